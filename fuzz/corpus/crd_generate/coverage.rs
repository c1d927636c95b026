//! Shapes the first corpus lacks (kubesmith issue: live conformance): the JSON `scale` syntax, stacked
//! `selectable`/`annotation`/`label`, every serde `rename_all` case, defaults from `Default` and from fns,
//! wrappers (Box, newtypes, aliases, sets, nested maps), every integer and float, documented and plain
//! unit enums, externally tagged and untagged enums, and the k8s-openapi types of kubesmith's table.
//! Output folder: first CLI argument (default `out`); writes `<sample>.json` (or `<sample>.PANIC.txt`).
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use kube::{CustomResource, CustomResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod kubeattrs {
    use super::*;

    /// Scale given as JSON, several selectable fields, annotations and labels.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(
        group = "coverage.kube.rs",
        version = "v1",
        kind = "Scaled",
        namespaced,
        status = "ScaledStatus",
        scale = r#"{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas","labelSelectorPath":".status.selector"}"#,
        selectable = ".spec.mode",
        selectable = ".spec.tier",
        annotation("coverage.kube.rs/a", "1"),
        annotation("coverage.kube.rs/b", "two words"),
        label("app.kubernetes.io/name", "scaled"),
        label("app.kubernetes.io/part-of", "coverage"),
        printcolumn = r#"{"name":"Mode", "type":"string", "jsonPath":".spec.mode"}"#,
        printcolumn(name = "Tier", type_ = "string", json_path = ".spec.tier", priority = 0),
        shortname = "sc",
        category = "coverage",
        deprecated
    )]
    #[serde(rename_all = "camelCase")]
    pub struct ScaledSpec {
        pub replicas: i32,
        pub mode: String,
        pub tier: Option<String>,
    }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct ScaledStatus {
        pub replicas: i32,
        pub selector: Option<String>,
    }
}

pub mod renames {
    use super::*;

    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "coverage.kube.rs", version = "v1", kind = "Renames", namespaced)]
    #[serde(rename_all = "PascalCase")]
    pub struct RenamesSpec {
        pub pascal_field: String,
        pub lower: Lower,
        pub upper: Upper,
        pub screaming_kebab: ScreamingKebab,
        pub snake: Snake,
        pub camel: Camel,
        pub kebab_enum: KebabEnum,
        pub screaming_enum: ScreamingEnum,
        pub pascal_enum: PascalEnum,
        pub lower_enum: LowerEnum,
        #[serde(rename = "renamed-explicitly")]
        pub explicit: bool,
        #[serde(alias = "otherName")]
        pub aliased: bool,
    }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    pub struct Lower { pub some_field: u8, pub other_field_name: u8 }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "UPPERCASE")]
    pub struct Upper { pub some_field: u8 }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "SCREAMING-KEBAB-CASE")]
    pub struct ScreamingKebab { pub some_field: u8, pub http_port2: u8 }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    pub struct Snake { pub some_field: u8 }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct Camel { pub some_field: u8, pub url_v2_path: u8 }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "kebab-case")]
    pub enum KebabEnum { FirstValue, HTTPServer, V2 }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    pub enum ScreamingEnum { FirstValue, Second }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "PascalCase")]
    pub enum PascalEnum { FirstValue, Second }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    pub enum LowerEnum { FirstValue, Second }
}

pub mod defaults {
    use super::*;

    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "coverage.kube.rs", version = "v1", kind = "Defaults", namespaced)]
    #[serde(rename_all = "camelCase")]
    pub struct DefaultsSpec {
        #[serde(default)]
        pub settings: Settings,
        #[serde(default = "default_port")]
        pub port: u16,
        #[serde(default = "default_name")]
        pub name: String,
        #[serde(default = "default_tags")]
        pub tags: Vec<String>,
        #[serde(default)]
        pub level: Level,
        #[serde(default)]
        pub labels: BTreeMap<String, String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub maybe: Option<u32>,
        #[serde(skip)]
        pub runtime_only: u64,
    }

    fn default_port() -> u16 { 8080 }
    fn default_name() -> String { "web".into() }
    fn default_tags() -> Vec<String> { vec!["a".into(), "b".into()] }

    #[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct Settings {
        pub verbose: bool,
        pub retries: u32,
        pub mode: Option<String>,
    }

    #[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
    pub enum Level {
        Low,
        #[default]
        Medium,
        High,
    }
}

pub mod wrappers {
    use super::*;

    /// A port number.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct Port(pub u16);

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(transparent)]
    pub struct Name(String);

    pub type Labels = BTreeMap<String, String>;
    pub type Ports = Vec<Port>;

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct Leaf {
        pub value: String,
    }

    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "coverage.kube.rs", version = "v1", kind = "Wrappers", namespaced)]
    #[serde(rename_all = "camelCase")]
    pub struct WrappersSpec {
        pub i8v: i8,
        pub i16v: i16,
        pub i32v: i32,
        pub i64v: i64,
        pub isizev: isize,
        pub u8v: u8,
        pub u16v: u16,
        pub u32v: u32,
        pub u64v: u64,
        pub usizev: usize,
        pub f32v: f32,
        pub f64v: f64,
        pub boxed: Box<Leaf>,
        pub opt_boxed: Option<Box<Leaf>>,
        pub port: Port,
        pub opt_port: Option<Port>,
        pub name: Name,
        pub labels: Labels,
        pub ports: Ports,
        pub set: BTreeSet<String>,
        pub hash_set: HashSet<u32>,
        pub hash_map: HashMap<String, Leaf>,
        pub nested: BTreeMap<String, Vec<BTreeMap<String, i64>>>,
        pub opt_vec: Option<Vec<Option<String>>>,
        pub vec_of_vec: Vec<Vec<f64>>,
        pub json: BTreeMap<String, String>,
    }
}

pub mod enums {
    use super::*;

    /// Plain unit enum.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub enum Plain { Alpha, Beta }

    /// Documented unit enum.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub enum Documented {
        /// The first one.
        One,
        /// The second one.
        Two,
    }

    /// Externally tagged.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub enum Source {
        /// From git.
        Git { url: String, branch: Option<String> },
        /// From an image.
        Image(String),
        Bucket(BucketRef),
    }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct BucketRef { pub bucket: String, pub prefix: Option<String> }

    /// Untagged struct variants.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(untagged)]
    pub enum Target {
        ByName { name: String },
        BySelector { selector: BTreeMap<String, String>, limit: Option<u32> },
    }

    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "coverage.kube.rs", version = "v1", kind = "EnumShapes", namespaced)]
    #[serde(rename_all = "camelCase")]
    pub struct EnumShapesSpec {
        pub plain: Plain,
        pub opt_plain: Option<Plain>,
        pub documented: Documented,
        pub opt_documented: Option<Documented>,
        pub plains: Vec<Plain>,
        pub source: Source,
        pub opt_source: Option<Source>,
        pub target: Target,
        pub opt_target: Option<Target>,
    }
}

pub mod k8s {
    use super::*;
    use k8s_openapi::api::core::v1::{
        Affinity, ConfigMapKeySelector, ContainerPort, EnvFromSource, ObjectReference, PersistentVolumeClaimSpec,
        Probe, ResourceClaim, SecurityContext, ServicePort, TopologySpreadConstraint, Volume, VolumeMount,
    };
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, OwnerReference, Time};
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "coverage.kube.rs", version = "v1", kind = "MoreK8sTypes", namespaced, status = "MoreK8sStatus")]
    #[serde(rename_all = "camelCase")]
    pub struct MoreK8sTypesSpec {
        pub volumes: Vec<Volume>,
        pub volume_mounts: Option<Vec<VolumeMount>>,
        pub affinity: Option<Affinity>,
        pub probe: Probe,
        pub security_context: Option<SecurityContext>,
        pub service_ports: Vec<ServicePort>,
        pub env_from: Vec<EnvFromSource>,
        pub config_key: Option<ConfigMapKeySelector>,
        pub target_ref: ObjectReference,
        pub owners: Vec<OwnerReference>,
        pub spread: Vec<TopologySpreadConstraint>,
        pub storage: Option<PersistentVolumeClaimSpec>,
        pub ports: Vec<ContainerPort>,
        pub claims: Vec<ResourceClaim>,
        pub limit: Option<Quantity>,
        pub port: Option<IntOrString>,
        pub capacity: BTreeMap<String, Quantity>,
        /// Documented k8s field: the doc replaces the type's description.
        pub documented_time: Option<Time>,
    }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct MoreK8sStatus {
        #[serde(default)]
        pub conditions: Vec<Condition>,
        pub last_update: Option<Time>,
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
    write(&dir, "cov-scaled", kubeattrs::Scaled::crd);
    write(&dir, "cov-renames", renames::Renames::crd);
    write(&dir, "cov-defaults", defaults::Defaults::crd);
    write(&dir, "cov-wrappers", wrappers::Wrappers::crd);
    write(&dir, "cov-enum-shapes", enums::EnumShapes::crd);
    write(&dir, "cov-more-k8stypes", k8s::MoreK8sTypes::crd);
}
