//! The last mile of real operators' types (kubesmith issue 26): shapes the static reader once refused although
//! kube-derive emits a valid CRD for them. Statically read: a `#[kube(status)]` path relative to the attribute's
//! module (through a glob import, `super::`) and field types written as `self::`/`super::`/`crate::` paths or
//! `use .. as` renames (`lm-relative-status`, `lm-super-status`); chrono, uuid, url and std::net types mapped by
//! schemars' `chrono04`/`uuid1`/`url2` features (`lm-foreign-scalars`); regexes built once in `LazyLock`,
//! `lazy_static!` and `once_cell` statics named by `#[validate(regex(path))]`, `#[garde(pattern)]` and
//! `#[schemars(regex)]` (`lm-regex`); untagged enums with skipped and deserialize-only variants
//! (`lm-untagged-skip`). Left to the compiled fallback: a field holding a kind generated in a sibling module, a
//! k8s-openapi type outside kubesmith's table, a std type it has no schema for and a regex built at run time
//! (`lm-compiled`).
//! Output folder: first CLI argument (default `out`); writes `<sample>.json` (or `<sample>.PANIC.txt`).
#![allow(dead_code)]

use kube::{CustomResource, CustomResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod paths {
    use super::*;

    pub mod v1 {
        use super::*;

        /// Observed state, first version.
        #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
        pub struct ManyDeriveStatus {
            pub ready: bool,
        }
    }

    pub mod v2 {
        use super::*;

        /// Observed state, second version: same name, other fields.
        #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
        pub struct ManyDeriveStatus {
            pub phase: String,
            pub observed_generation: Option<i64>,
        }
    }

    pub mod shared {
        use super::*;

        /// Where to reach a backend.
        #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
        pub struct Endpoint {
            pub host: String,
            pub port: u16,
        }
    }

    pub mod kinds {
        use super::*;
        use super::shared::Endpoint as Ep;
        use k8s_openapi::api::core::v1::LocalObjectReference as SecretRef;

        /// The status path is relative to this module, reached through `use super::*`.
        #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
        #[kube(group = "lastmile.kube.rs", version = "v1", kind = "ManyDerive", status = "v1::ManyDeriveStatus")]
        pub struct ManyDeriveSpec {
            pub primary: Ep,
            pub secondary: self::super::shared::Endpoint,
            pub fallback: Option<crate::paths::shared::Endpoint>,
            pub credentials: SecretRef,
        }

        #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
        #[kube(group = "lastmile.kube.rs", version = "v1", kind = "OtherDerive", status = "super::v2::ManyDeriveStatus")]
        pub struct OtherDeriveSpec {
            pub backends: Vec<super::shared::Endpoint>,
        }
    }
}

pub mod foreign {
    use super::*;
    use chrono::NaiveDate as Day;
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

    /// A maintenance window.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "lastmile.kube.rs", version = "v1", kind = "Schedule", namespaced)]
    #[serde(rename_all = "camelCase")]
    pub struct ScheduleSpec {
        pub starts_at: chrono::DateTime<chrono::Utc>,
        pub local_start: Option<chrono::NaiveDateTime>,
        pub first_day: Day,
        pub daily_at: chrono::NaiveTime,
        pub skipped_days: Vec<chrono::NaiveDate>,
        pub id: uuid::Uuid,
        pub callback: url::Url,
        pub mirrors: Option<Vec<url::Url>>,
        pub address: IpAddr,
        pub v4: Ipv4Addr,
        pub v6: Option<Ipv6Addr>,
        pub listen: SocketAddr,
    }
}

pub mod regexes {
    use super::*;
    use regex::Regex;
    use std::sync::LazyLock;

    static SEMVER_RE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$").unwrap());

    lazy_static::lazy_static! {
        static ref NAME_RE: Regex = Regex::new("^[a-z]([-a-z0-9]*[a-z0-9])?$").expect("a valid regex");
    }

    pub static TAG_RE: once_cell::sync::Lazy<Regex> =
        once_cell::sync::Lazy::new(|| regex::Regex::new(r"^[\w][\w.-]{0,127}$").unwrap());

    /// A release of an application.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "lastmile.kube.rs", version = "v1", kind = "Release")]
    pub struct ReleaseSpec {
        #[validate(regex(path = *SEMVER_RE))]
        pub version: String,
        #[validate(regex(path = "NAME_RE"))]
        pub name: String,
        #[garde(pattern(TAG_RE))]
        pub tag: Option<String>,
        #[schemars(regex(pattern = *SEMVER_RE))]
        pub previous: Option<String>,
        #[schemars(inner(pattern(NAME_RE)))]
        pub aliases: Vec<String>,
    }
}

pub mod untagged {
    use super::*;

    /// How to reach the upstream: kube-derive hoists the struct variant's properties; the skipped variant is not
    /// in the schema and the deserialize-only scalar keeps an empty `anyOf` entry.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(untagged)]
    pub enum Target {
        Address { host: String, port: u16 },
        #[serde(skip)]
        Resolved(std::net::SocketAddr),
        #[serde(skip_deserializing)]
        Computed(u32),
        #[serde(skip_serializing)]
        Legacy(String),
    }

    /// Only one variant deserializes.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "lastmile.kube.rs", version = "v1", kind = "Upstream")]
    #[serde(untagged)]
    pub enum UpstreamSpec {
        Static {
            hosts: Vec<String>,
            target: Target,
        },
        #[serde(skip)]
        Discovered(String),
    }
}

pub mod compiled {
    use super::*;
    use regex::Regex;
    use std::sync::LazyLock;

    const PORT: &str = r"\d{1,5}";
    static PORT_RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(&std::env::var("MIRROR_PORT_PATTERN").unwrap_or_else(|_| format!("^{PORT}$"))).unwrap());

    pub mod sibling {
        use super::*;

        #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
        #[kube(group = "lastmile.kube.rs", version = "v1", kind = "CopyTarget", root = "CopyTargetCrd")]
        pub struct CopyTargetSpec {
            pub bucket: String,
        }
    }

    /// Types only compiling can describe to kubesmith.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "lastmile.kube.rs", version = "v1", kind = "Mirror")]
    pub struct MirrorSpec {
        pub copy: self::sibling::CopyTargetCrd,
        pub policy: k8s_openapi::api::networking::v1::NetworkPolicySpec,
        pub started: std::time::SystemTime,
        #[validate(regex(path = *PORT_RE))]
        pub port: String,
    }
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
    write(&dir, "lm-relative-status", paths::kinds::ManyDerive::crd);
    write(&dir, "lm-super-status", paths::kinds::OtherDerive::crd);
    write(&dir, "lm-foreign-scalars", foreign::Schedule::crd);
    write(&dir, "lm-regex", regexes::Release::crd);
    write(&dir, "lm-untagged-skip", untagged::Upstream::crd);
    write(&dir, "lm-compiled", compiled::Mirror::crd);
}
