//! Enum specs (kubesmith issue 15): `#[derive(CustomResource)]` on an enum. Valid shapes: externally tagged
//! (struct, newtype and empty struct variants, docs, renames, with a status and CRD attributes), unit-only (plain
//! and with documented variants), untagged struct variants sharing a field, renamed fields of variants. Shapes
//! kube-derive's `crd()` panics on: unit variants mixed with data variants, internally and adjacently tagged,
//! untagged variants whose shared field differs. Shapes it emits a CRD the API server rejects for: untagged
//! scalar variants (an `anyOf` without a type), an enum without variants.
//! Output folder: first CLI argument (default `out`); writes `<sample>.json` (or `<sample>.PANIC.txt`).
#![allow(dead_code)]

use kube::{CustomResource, CustomResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod tagged {
    use super::*;

    /// Where backups go: exactly one of the variants.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(
        group = "enums.kube.rs",
        version = "v1",
        kind = "BackupTarget",
        namespaced,
        status = "BackupTargetStatus",
        shortname = "bt",
        printcolumn(name = "Phase", type_ = "string", json_path = ".status.phase")
    )]
    #[serde(rename_all = "camelCase")]
    pub enum BackupTargetSpec {
        /// An S3 bucket.
        S3Bucket {
            bucket: String,
            #[serde(default)]
            prefix: Option<String>,
            region: String,
        },
        /// A PersistentVolumeClaim, by name.
        Volume(String),
        /// Keep nothing.
        Discard {},
        Retained(Retention),
    }

    /// How long to keep backups.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct Retention {
        pub days: u32,
    }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct BackupTargetStatus {
        pub phase: Option<String>,
    }

    /// Variant names kebab-case, their fields camelCase.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "enums.kube.rs", version = "v1", kind = "Sink")]
    #[serde(rename_all = "kebab-case", rename_all_fields = "camelCase")]
    pub enum SinkSpec {
        HttpPost {
            target_url: String,
            max_retries: u8,
        },
        LogOnly {},
        #[serde(rename = "discard")]
        Drop {},
    }
}

pub mod unit {
    use super::*;

    /// How the operator treats the cluster.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "enums.kube.rs", version = "v1", kind = "Mode")]
    pub enum ModeSpec {
        Active,
        Passive,
        #[serde(rename = "off")]
        Off,
    }

    /// Documented variants: schemars emits a oneOf that kube hoists back into one enum.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "enums.kube.rs", version = "v1", kind = "Tier", namespaced)]
    #[serde(rename_all = "lowercase")]
    pub enum TierSpec {
        /// The cheapest.
        Bronze,
        Silver,
        /// The best.
        Gold,
    }
}

pub mod untagged {
    use super::*;

    /// Either source; `url` has the same schema in both.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "enums.kube.rs", version = "v1", kind = "Source", namespaced)]
    #[serde(untagged)]
    pub enum SourceSpec {
        Git { url: String, revision: Option<String> },
        Oci { url: String, tag: String },
    }

    /// Untagged scalars: kube-derive emits an anyOf without a type, which the API server rejects.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "enums.kube.rs", version = "v1", kind = "Threshold")]
    #[serde(untagged)]
    pub enum ThresholdSpec {
        Count(i64),
        Percent(String),
    }
}

pub mod invalid {
    use super::*;

    /// Unit variants mixed with data variants: crd() panics.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "enums.kube.rs", version = "v1", kind = "Mixed")]
    pub enum MixedSpec {
        Off,
        Limited { rate: u32 },
    }

    /// Internally tagged: crd() panics.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "enums.kube.rs", version = "v1", kind = "Shape")]
    #[serde(tag = "type")]
    pub enum ShapeSpec {
        Circle { radius: f64 },
        Square { side: f64 },
    }

    /// Adjacently tagged: crd() panics.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "enums.kube.rs", version = "v1", kind = "Event")]
    #[serde(tag = "kind", content = "data")]
    pub enum EventSpec {
        Started { at: String },
        Stopped { code: i32 },
    }

    /// Untagged variants whose shared field differs: crd() panics.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "enums.kube.rs", version = "v1", kind = "Port")]
    #[serde(untagged)]
    pub enum PortSpec {
        Named { port: String },
        Numbered { port: u16 },
    }

    /// No variant at all.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "enums.kube.rs", version = "v1", kind = "Nothing")]
    pub enum NothingSpec {}
}

type CrdFn = fn() -> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

fn write(dir: &std::path::Path, name: &str, f: CrdFn) {
    match std::panic::catch_unwind(f) {
        Ok(crd) => std::fs::write(dir.join(format!("{name}.json")), serde_json::to_string_pretty(&crd).unwrap()).unwrap(),
        Err(e) => {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            std::fs::write(dir.join(format!("{name}.PANIC.txt")), msg).unwrap();
        }
    }
}

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "out".into()));
    std::fs::create_dir_all(&dir).unwrap();
    std::panic::set_hook(Box::new(|_| {}));
    write(&dir, "enum-spec-tagged", tagged::BackupTarget::crd);
    write(&dir, "enum-spec-renamed", tagged::Sink::crd);
    write(&dir, "enum-spec-unit", unit::Mode::crd);
    write(&dir, "enum-spec-documented-unit", unit::Tier::crd);
    write(&dir, "enum-spec-untagged", untagged::Source::crd);
    write(&dir, "enum-spec-untagged-scalar", untagged::Threshold::crd);
    write(&dir, "enum-spec-mixed", invalid::Mixed::crd);
    write(&dir, "enum-spec-internally-tagged", invalid::Shape::crd);
    write(&dir, "enum-spec-adjacently-tagged", invalid::Event::crd);
    write(&dir, "enum-spec-untagged-conflict", invalid::Port::crd);
    write(&dir, "enum-spec-empty", invalid::Nothing::crd);
}
