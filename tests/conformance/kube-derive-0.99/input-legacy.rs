//! kube 0.99 + schemars 0.8: shapes whose schema differs from kube 5 / schemars 1 (kubesmith issue 41).
//! Output folder: first CLI argument (default `out`); writes `<sample>.json`.
#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::{CustomResource, CustomResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Shapes of a kopium-generated spec.
///
/// A second paragraph,
/// broken over two lines.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "legacy.kube.rs", version = "v1", kind = "Legacy", namespaced, status = "LegacyStatus")]
#[serde(rename_all = "camelCase")]
pub struct LegacySpec {
    /// The method: one of `a` and `b`.
    /// Defaults to `a`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<Method>,
    /// A required enum.
    pub required_method: Method,
    /// An enum whose variants are documented.
    pub tier: Option<Tier>,
    pub plain_tier: Tier,
    /// Lines
    ///   indented and
    ///
    /// paragraphs
    ///
    ///
    /// and more.
    pub text: Option<String>,
    pub count: Option<i32>,
    pub big: i64,
    pub small: u32,
    pub ratio: Option<f64>,
    pub flag: bool,
    /// A list.
    pub items: Option<Vec<String>>,
    pub labels: Option<BTreeMap<String, String>>,
    pub hashed: HashMap<String, i64>,
    /// A nested object.
    pub nested: Option<Nested>,
    pub nested_required: Nested,
    pub nested_list: Vec<Nested>,
    pub port: Option<IntOrString>,
    pub memory: Option<Quantity>,
    /// Untagged.
    pub choice: Option<Choice>,
    /// Externally tagged.
    pub action: Option<Action>,
    #[serde(default = "default_replicas")]
    pub replicas: i32,
    #[serde(default)]
    pub defaulted: Nested,
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
    pub boxed: Option<Box<Nested>>,
    pub set: std::collections::BTreeSet<String>,
    pub arr: [u8; 2],
    #[schemars(length(min = 1, max = 5))]
    pub bounded: Option<String>,
    #[schemars(range(min = 1, max = 9))]
    pub ranged: Option<u16>,
    pub chrono: Option<chrono::DateTime<chrono::Utc>>,
    /// # A title
    ///
    /// And a description.
    pub titled: Option<String>,
}

fn default_replicas() -> i32 {
    3
}

/// How.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema, PartialEq)]
pub enum Method {
    #[serde(rename = "a")]
    A,
    #[serde(rename = "b")]
    B,
}

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// Cheap.
    Low,
    /// Fast.
    High,
}

/// Nested doc.
#[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Nested {
    /// Name of the thing.
    pub name: String,
    pub optional_name: Option<String>,
    #[serde(default)]
    pub keys: Vec<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[serde(untagged)]
pub enum Choice {
    Named { name: String },
    Numbered { number: i32, label: Option<String> },
}

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Action {
    /// Run it.
    Run { command: String },
    Stop(Nested),
    Wait(u32),
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
pub struct LegacyStatus {
    pub phase: Option<String>,
    pub conditions: Option<Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition>>,
}

/// Flattened structs and maps, closed objects, fields serde skips one way.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "legacy.kube.rs", version = "v1", kind = "Merged")]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MergedSpec {
    pub own: String,
    #[serde(flatten)]
    pub common: Common,
    #[serde(flatten)]
    pub optional_common: Option<Extra>,
    #[serde(flatten)]
    pub labels: BTreeMap<String, String>,
    #[serde(skip_deserializing)]
    pub computed: Option<String>,
    #[serde(skip)]
    pub hidden: String,
    pub tiny: i8,
    pub byte: u8,
    pub positive: std::num::NonZeroU8,
    /// * Starred
    /// * lines
    pub starred: Option<Strict>,
}

/// Shared fields.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Common {
    /// The common name.
    pub common_name: String,
    pub own: Option<i64>,
}

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Extra {
    pub extra_required: String,
}

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Strict {
    pub only: Option<bool>,
}

fn write(dir: &std::path::Path, name: &str, crd: fn() -> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition) {
    let text = match std::panic::catch_unwind(crd) {
        Ok(c) => serde_json::to_string_pretty(&c).unwrap(),
        Err(_) => "PANIC".into(),
    };
    std::fs::write(dir.join(format!("{name}.json")), text + "\n").unwrap();
}

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "out".into()));
    std::fs::create_dir_all(&dir).unwrap();
    write(&dir, "legacy", Legacy::crd);
    write(&dir, "merged", Merged::crd);
}
