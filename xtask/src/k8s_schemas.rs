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

/// The table's types: every type of k8s-openapi 0.29 with a `JsonSchema` impl, not generic, in a stable API
/// version (`v1`, `v2`) or apimachinery, present in every supported Kubernetes version; as paths under
/// `k8s_openapi::`, one per line.
const TYPE_PATHS: &str = include_str!("k8s_types.txt");

/// The table's types (paths under `k8s_openapi::`).
pub fn types() -> Vec<&'static str> {
    TYPE_PATHS.lines().map(str::trim).filter(|l| !l.is_empty()).collect()
}

/// The keys of the table: every type by its path, and by its own name (`Container`, as code names it after a
/// `use`) when no other type has that name or it is the core/v1 or meta/v1 one of the types that share it.
pub fn keys() -> Vec<(String, &'static str)> {
    let paths = types();
    let short = |p: &str| p.rsplit("::").next().unwrap_or(p).to_string();
    let mut by_name: BTreeMap<String, Vec<&'static str>> = BTreeMap::new();
    for p in &paths {
        by_name.entry(short(p)).or_default().push(p);
    }
    let mut out: Vec<(String, &'static str)> = paths.iter().map(|p| (p.to_string(), *p)).collect();
    for (name, sharing) in by_name {
        let preferred: Vec<&&str> = sharing
            .iter()
            .filter(|p| {
                sharing.len() == 1
                    || p.starts_with("api::core::v1::")
                    || p.starts_with("apimachinery::pkg::apis::meta::v1::")
            })
            .collect();
        if let [one] = preferred.as_slice() {
            out.push((name, **one));
        }
    }
    out
}

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
        println!("data/k8s-schemas is up to date ({} types x {} versions)", types().len(), VERSIONS.len());
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
    println!("wrote data/k8s-schemas ({} types x {} versions, {} KiB)", types().len(), VERSIONS.len(), size / 1024);
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
        let by_path: Map<String, Value> =
            serde_json::from_str(&stdout).context("the harness printed no JSON object")?;
        if by_path.len() != types().len() {
            bail!("the harness printed {} types, expected {}", by_path.len(), types().len());
        }
        let table: Map<String, Value> = keys().into_iter().map(|(key, path)| (key, by_path[path].clone())).collect();
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
    for (i, path) in types().iter().enumerate() {
        s.push_str(&format!(
            "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n\
             #[kube(group = \"harness.kubesmith.io\", version = \"v1\", kind = \"K{i}\")]\n\
             pub struct K{i}Spec {{\n    pub v: k8s_openapi::{path},\n}}\n\n"
        ));
    }
    s.push_str(
        "fn field<T: CustomResourceExt>() -> serde_json::Value {\n    \
         let crd = serde_json::to_value(T::crd()).unwrap();\n    \
         crd.pointer(\"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/v\").unwrap().clone()\n}\n\n\
         fn main() {\n    let mut out = serde_json::Map::new();\n",
    );
    for (i, path) in types().iter().enumerate() {
        s.push_str(&format!("    out.insert(\"{path}\".into(), field::<K{i}>());\n"));
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
