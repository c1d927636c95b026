//! `cargo xtask k8s-schemas [--check]`: kubesmith's table of k8s-openapi schemas, taken from the real crate.
//!
//! For every supported Kubernetes version feature (`v1_33` .. `v1_37` of k8s-openapi 0.29.0) a harness crate
//! under `target/harness/` declares one `#[derive(CustomResource)]` spec per table type, with a single required
//! field `v: <the k8s-openapi type>`, and prints `crd().spec.versions[0]...properties.spec.properties.v` —
//! exactly what kube-derive inlines for that type (same generator settings and kube transforms, upstream
//! descriptions included).
//!
//! Layout (`data/k8s-schemas/`), chosen to keep five versions of ~1 MB of schemas small and cheap to load:
//! - `pool.jsonl`: every distinct JSON object of at least [`POOL_MIN`] bytes, once, one per line; an object
//!   inside it that is itself pooled is written `{"$pool": <line number, 0-based>}`. Identical subschemas
//!   (within a type, across types, across versions) are stored once.
//! - `v1_33.json` .. `v1_37.json`: `{"<TypeName>": <pool line>}` for that version.
//!
//! kubesmith expands an entry only when a crate uses the type (`src/crd/k8s.rs`).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value, json};

use crate::harness::{cargo_in, write_crate};
use crate::root;

/// Kubernetes version features of k8s-openapi 0.29 that kubesmith supports.
pub const VERSIONS: [&str; 5] = ["v1_33", "v1_34", "v1_35", "v1_36", "v1_37"];

/// Objects shorter than this (compact JSON) stay inline.
const POOL_MIN: usize = 80;

/// The table: key (the type's own name, as written in Rust) and path under `k8s_openapi::`.
/// Keys are unique: where k8s-openapi has several types of one name, the core/meta one is listed.
pub const TYPES: &[(&str, &str)] = &[
    // apimachinery
    ("Condition", "apimachinery::pkg::apis::meta::v1::Condition"),
    ("IntOrString", "apimachinery::pkg::util::intstr::IntOrString"),
    ("LabelSelector", "apimachinery::pkg::apis::meta::v1::LabelSelector"),
    ("LabelSelectorRequirement", "apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement"),
    ("MicroTime", "apimachinery::pkg::apis::meta::v1::MicroTime"),
    ("ObjectMeta", "apimachinery::pkg::apis::meta::v1::ObjectMeta"),
    ("OwnerReference", "apimachinery::pkg::apis::meta::v1::OwnerReference"),
    ("Quantity", "apimachinery::pkg::api::resource::Quantity"),
    ("Time", "apimachinery::pkg::apis::meta::v1::Time"),
    // core/v1: pods and containers
    ("Affinity", "api::core::v1::Affinity"),
    ("Capabilities", "api::core::v1::Capabilities"),
    ("ConfigMapEnvSource", "api::core::v1::ConfigMapEnvSource"),
    ("ConfigMapKeySelector", "api::core::v1::ConfigMapKeySelector"),
    ("ConfigMapVolumeSource", "api::core::v1::ConfigMapVolumeSource"),
    ("Container", "api::core::v1::Container"),
    ("ContainerPort", "api::core::v1::ContainerPort"),
    ("EmptyDirVolumeSource", "api::core::v1::EmptyDirVolumeSource"),
    ("EnvFromSource", "api::core::v1::EnvFromSource"),
    ("EnvVar", "api::core::v1::EnvVar"),
    ("EnvVarSource", "api::core::v1::EnvVarSource"),
    ("EphemeralContainer", "api::core::v1::EphemeralContainer"),
    ("ExecAction", "api::core::v1::ExecAction"),
    ("HTTPGetAction", "api::core::v1::HTTPGetAction"),
    ("HostAlias", "api::core::v1::HostAlias"),
    ("HostPathVolumeSource", "api::core::v1::HostPathVolumeSource"),
    ("KeyToPath", "api::core::v1::KeyToPath"),
    ("Lifecycle", "api::core::v1::Lifecycle"),
    ("LocalObjectReference", "api::core::v1::LocalObjectReference"),
    ("NodeAffinity", "api::core::v1::NodeAffinity"),
    ("NodeSelector", "api::core::v1::NodeSelector"),
    ("ObjectFieldSelector", "api::core::v1::ObjectFieldSelector"),
    ("ObjectReference", "api::core::v1::ObjectReference"),
    ("PersistentVolumeClaimSpec", "api::core::v1::PersistentVolumeClaimSpec"),
    ("PersistentVolumeClaimTemplate", "api::core::v1::PersistentVolumeClaimTemplate"),
    ("PersistentVolumeClaimVolumeSource", "api::core::v1::PersistentVolumeClaimVolumeSource"),
    ("PodAffinity", "api::core::v1::PodAffinity"),
    ("PodAffinityTerm", "api::core::v1::PodAffinityTerm"),
    ("PodAntiAffinity", "api::core::v1::PodAntiAffinity"),
    ("PodDNSConfig", "api::core::v1::PodDNSConfig"),
    ("PodSecurityContext", "api::core::v1::PodSecurityContext"),
    ("PodSpec", "api::core::v1::PodSpec"),
    ("PodTemplateSpec", "api::core::v1::PodTemplateSpec"),
    ("Probe", "api::core::v1::Probe"),
    ("ResourceClaim", "api::core::v1::ResourceClaim"),
    ("ResourceFieldSelector", "api::core::v1::ResourceFieldSelector"),
    ("ResourceRequirements", "api::core::v1::ResourceRequirements"),
    ("SecretEnvSource", "api::core::v1::SecretEnvSource"),
    ("SecretKeySelector", "api::core::v1::SecretKeySelector"),
    ("SecretReference", "api::core::v1::SecretReference"),
    ("SecretVolumeSource", "api::core::v1::SecretVolumeSource"),
    ("SecurityContext", "api::core::v1::SecurityContext"),
    ("TCPSocketAction", "api::core::v1::TCPSocketAction"),
    ("Toleration", "api::core::v1::Toleration"),
    ("TopologySpreadConstraint", "api::core::v1::TopologySpreadConstraint"),
    ("TypedLocalObjectReference", "api::core::v1::TypedLocalObjectReference"),
    ("Volume", "api::core::v1::Volume"),
    ("VolumeMount", "api::core::v1::VolumeMount"),
    ("WeightedPodAffinityTerm", "api::core::v1::WeightedPodAffinityTerm"),
    // core/v1: services
    ("ServicePort", "api::core::v1::ServicePort"),
    ("ServiceSpec", "api::core::v1::ServiceSpec"),
    // workloads and RBAC
    ("DeploymentSpec", "api::apps::v1::DeploymentSpec"),
    ("DeploymentStrategy", "api::apps::v1::DeploymentStrategy"),
    ("JobSpec", "api::batch::v1::JobSpec"),
    ("PolicyRule", "api::rbac::v1::PolicyRule"),
];

pub fn data_dir() -> PathBuf {
    root().join("data/k8s-schemas")
}

pub fn run(check: bool) -> Result<()> {
    let tables = harness_tables()?;
    let files = encode(&tables)?;
    if check {
        let mut stale = Vec::new();
        for (name, text) in &files {
            let path = data_dir().join(name);
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                stale.push(name.clone());
            }
        }
        if !stale.is_empty() {
            bail!(
                "data/k8s-schemas is out of date ({}): run `cargo xtask k8s-schemas` and commit the result",
                stale.join(", ")
            );
        }
        println!("data/k8s-schemas is up to date ({} types x {} versions)", TYPES.len(), VERSIONS.len());
        return Ok(());
    }
    std::fs::create_dir_all(data_dir())?;
    for entry in std::fs::read_dir(data_dir())? {
        let p = entry?.path();
        if !files.contains_key(p.file_name().unwrap_or_default().to_str().unwrap_or_default()) {
            std::fs::remove_file(&p)?;
        }
    }
    for (name, text) in &files {
        std::fs::write(data_dir().join(name), text)?;
    }
    let size: usize = files.values().map(String::len).sum();
    println!("wrote data/k8s-schemas ({} types x {} versions, {} KiB)", TYPES.len(), VERSIONS.len(), size / 1024);
    Ok(())
}

/// One table per version: type name → schema.
fn harness_tables() -> Result<BTreeMap<String, Map<String, Value>>> {
    let dir = root().join("target/harness/k8s-schemas");
    let target = root().join("target/harness");
    let mut out = BTreeMap::new();
    for v in VERSIONS {
        write_crate(&dir, &[("Cargo.toml".into(), cargo_toml(v)), ("src/main.rs".into(), main_rs())])?;
        let log = target.join(format!("k8s-schemas-{v}.log"));
        let stdout = cargo_in(&dir, &target, &["run", "--quiet"], &log)?;
        let table: Map<String, Value> = serde_json::from_str(&stdout).context("the harness printed no JSON object")?;
        if table.len() != TYPES.len() {
            bail!("the harness printed {} types, expected {}", table.len(), TYPES.len());
        }
        out.insert(v.to_string(), table);
    }
    Ok(out)
}

fn cargo_toml(feature: &str) -> String {
    format!(
        r#"# Generated by `cargo xtask k8s-schemas`; do not edit.
[package]
name = "kubesmith-k8s-schemas-harness"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
k8s-openapi = {{ version = "=0.29.0", features = ["{feature}", "schemars"] }}
kube = {{ version = "=5.0.0", default-features = false, features = ["derive"] }}
schemars = "1"
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
"#
    )
}

fn main_rs() -> String {
    let mut s = String::from(
        "//! Generated by `cargo xtask k8s-schemas`; do not edit.\n#![allow(dead_code)]\n\
         use kube::{CustomResource, CustomResourceExt};\nuse schemars::JsonSchema;\n\
         use serde::{Deserialize, Serialize};\n\n",
    );
    for (name, path) in TYPES {
        s.push_str(&format!(
            "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n\
             #[kube(group = \"harness.kubesmith.io\", version = \"v1\", kind = \"K{name}\")]\n\
             pub struct K{name}Spec {{\n    pub v: k8s_openapi::{path},\n}}\n\n"
        ));
    }
    s.push_str(
        "fn field<T: CustomResourceExt>() -> serde_json::Value {\n    \
         let crd = serde_json::to_value(T::crd()).unwrap();\n    \
         crd.pointer(\"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/v\").unwrap().clone()\n}\n\n\
         fn main() {\n    let mut out = serde_json::Map::new();\n",
    );
    for (name, _) in TYPES {
        s.push_str(&format!("    out.insert(\"{name}\".into(), field::<K{name}>());\n"));
    }
    s.push_str("    println!(\"{}\", serde_json::Value::Object(out));\n}\n");
    s
}

/// Pools the tables into `pool.jsonl` + one `<version>.json` each (file name → contents).
pub fn encode(tables: &BTreeMap<String, Map<String, Value>>) -> Result<BTreeMap<String, String>> {
    let mut pool = Pool::default();
    let mut files = BTreeMap::new();
    for (version, table) in tables {
        let mut index = String::from("{\n");
        for (i, (name, schema)) in table.iter().enumerate() {
            let id = pool.intern_top(schema);
            let comma = if i + 1 == table.len() { "" } else { "," };
            index.push_str(&format!("  {}: {id}{comma}\n", json!(name)));
        }
        index.push_str("}\n");
        files.insert(format!("{version}.json"), index);
    }
    let mut text = String::new();
    for line in &pool.lines {
        text.push_str(line);
        text.push('\n');
    }
    files.insert("pool.jsonl".into(), text);
    // Round trip: decoding must give back every table exactly.
    let lines: Vec<&str> = pool.lines.iter().map(String::as_str).collect();
    for (version, table) in tables {
        let index: Map<String, Value> = serde_json::from_str(&files[&format!("{version}.json")])?;
        for (name, schema) in table {
            let id = index[name].as_u64().context("pool id")? as usize;
            let back = decode(&lines, &json!({ "$pool": id }))?;
            if &back != schema {
                bail!("pooling is lossy for {name} in {version}");
            }
        }
    }
    Ok(files)
}

#[derive(Default)]
struct Pool {
    ids: HashMap<String, usize>,
    lines: Vec<String>,
}

impl Pool {
    fn add(&mut self, text: String) -> usize {
        if let Some(id) = self.ids.get(&text) {
            return *id;
        }
        let id = self.lines.len();
        self.lines.push(text.clone());
        self.ids.insert(text, id);
        id
    }

    fn intern_top(&mut self, v: &Value) -> usize {
        let inner = self.children(v);
        self.add(inner.to_string())
    }

    fn children(&mut self, v: &Value) -> Value {
        match v {
            Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), self.intern(x))).collect()),
            Value::Array(a) => Value::Array(a.iter().map(|x| self.intern(x)).collect()),
            other => other.clone(),
        }
    }

    fn intern(&mut self, v: &Value) -> Value {
        let inner = self.children(v);
        if inner.is_object() {
            let text = inner.to_string();
            if text.len() >= POOL_MIN {
                return json!({ "$pool": self.add(text) });
            }
        }
        inner
    }
}

fn decode(lines: &[&str], v: &Value) -> Result<Value> {
    Ok(match v {
        Value::Object(m) => {
            if let (1, Some(id)) = (m.len(), m.get("$pool").and_then(Value::as_u64)) {
                let line = lines.get(id as usize).context("pool id out of range")?;
                decode(lines, &serde_json::from_str(line)?)?
            } else {
                let mut out = Map::new();
                for (k, x) in m {
                    out.insert(k.clone(), decode(lines, x)?);
                }
                Value::Object(out)
            }
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| decode(lines, x)).collect::<Result<_>>()?),
        other => other.clone(),
    })
}
