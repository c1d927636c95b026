//! Edge cases for static CRD derivation. Prints the CRD for `Edge` (kube 5.0.0, schemars 1.2.3).
#![allow(dead_code)]
use kube::{CustomResource, CustomResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// # Edge Title
/// First line of description
/// continues on a second line (no blank line).
///
///   Indented paragraph keeps extra spaces?
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "samples.kube.rs", version = "v1", kind = "Edge", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct EdgeSpec {
    #[serde(default)]
    pub default_opt: Option<String>,
    #[serde(default)]
    pub default_map: BTreeMap<String, String>,
    #[serde(default)]
    pub default_vec_struct: Vec<Port>,
    #[serde(default = "yes")]
    pub default_true: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_skip_opt: Option<i32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub default_skip_vec: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub default_skip_string_nonempty_default: String,
    pub api_url: String,
    pub http2_enabled: bool,
    pub tls_ca_cert: String,
    pub a_b_c: String,
    #[serde(rename = "$special")]
    pub dollar: String,
    /// field doc on Option<Struct>
    pub opt_port: Option<Port>,
    pub newtype: Port,
    pub transparent: Transparent,
    pub vec_opt: Vec<Option<String>>,
    pub map_vec: HashMap<String, Vec<String>>,
    pub std_duration: std::time::Duration,
    #[schemars(range(min = 0))]
    pub opt_ranged: Option<i64>,
    #[schemars(length(min = 1))]
    pub opt_len: Option<String>,
    #[serde(flatten)]
    pub opt_flat: Option<Flat>,
    pub kebab: KebabEnum,
    pub screaming: ScreamingEnum,
    pub snake: SnakeEnum,
    pub container_default: ContainerDefault,
    pub u128_field: u128,
    pub i128_field: i128,
    pub unit_struct: UnitStruct,
    pub arr: [u8; 4],
    pub bytes: Vec<u8>,
    pub ip: std::net::IpAddr,
    pub path: std::path::PathBuf,
    pub boxed_str: Box<str>,
    pub cow: std::borrow::Cow<'static, str>,
    pub set: std::collections::BTreeSet<i32>,
    pub nested_map: BTreeMap<String, BTreeMap<String, i32>>,
    pub u32_map_key: BTreeMap<u32, String>,
    pub enum_map_key: BTreeMap<KebabEnum, String>,
}

fn yes() -> bool { true }

/// Port newtype doc
#[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
pub struct Port(pub u16);

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[serde(transparent)]
pub struct Transparent { pub inner: String }

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Flat { pub flat_x: String, pub flat_y: Option<i32> }

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum KebabEnum { FirstValue, HTTPServer }

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ScreamingEnum { FirstValue, HTTPServer }

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SnakeEnum { FirstValue, HTTPServer }

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[serde(default)]
pub struct ContainerDefault { pub a: Option<String>, pub b: u8, pub c: String }
impl Default for ContainerDefault { fn default() -> Self { Self { a: Some("x".into()), b: 7, c: String::new() } } }

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct UnitStruct;

fn main() {
    // With an output folder (the conformance harness): write edge-cases.json there; else print YAML.
    match std::env::args().nth(1) {
        Some(dir) => std::fs::write(
            std::path::Path::new(&dir).join("edge-cases.json"),
            serde_json::to_string_pretty(&Edge::crd()).unwrap(),
        )
        .unwrap(),
        None => print!("{}", serde_yaml::to_string(&Edge::crd()).unwrap()),
    }
}
