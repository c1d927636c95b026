//! `cargo xtask k8s-schemas [--check]`: kubesmith's table of k8s-openapi schemas, taken from the real crate.
//!
//! For every supported Kubernetes version feature (`v1_33` .. `v1_37` of k8s-openapi 0.29.0, and `v1_30` ..
//! `v1_32` of the releases in [`OLDER`], for the types their trees declare) a harness crate
//! under `target/harness/` declares one `#[derive(CustomResource)]` spec per table type, with a single required
//! field `v: <the k8s-openapi type>`, and prints `crd().spec.versions[0]...properties.spec.properties.v` —
//! exactly what kube-derive inlines for that type (same generator settings and kube transforms, upstream
//! descriptions included).
//!
//! Layout (`data/k8s-schemas/`), chosen to keep five versions of ~1 MB of schemas small and cheap to load:
//! - `pool.jsonl`: every distinct JSON object of at least [`POOL_MIN`] bytes, once, one per line; an object
//!   inside it that is itself pooled is written `{"$pool": <line number, 0-based>}`. Identical subschemas
//!   (within a type, across types, across versions) are stored once.
//! - `v1_30.json` .. `v1_37.json`: `{"<TypeName>": <pool line>}` for that version.
//! - `0.20-v1_28.json` ..: the same for one release's feature ([`RELEASES`]), read for crates that pin that release.
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

/// Older Kubernetes versions kubesmith reads crates built for (their schemas only; it scaffolds 0.29's): each from
/// the newest k8s-openapi release that has it, with the kube release built on that k8s-openapi. kube 2's `crd()`
/// lacks kube 3's `OptionalIntOrString` transform, which [`with_optional_int_or_string`] applies after, so that every
/// table holds what kube ≥ 3 inlines (kubesmith takes it back out for kube 2 crates).
pub const OLDER: [(&str, &str, &str); 3] =
    [("v1_30", "0.26.1", "2.0.1"), ("v1_31", "0.27.1", "3.1.0"), ("v1_32", "0.28.0", "4.2.0")];

/// Tables of one k8s-openapi release's version feature, for crates that pin that release (`0.20-v1_28.json`): the
/// same Kubernetes version differs between releases (upstream patch releases change `required` lists and
/// descriptions; 0.20 writes `IntOrString` as `format: int-or-string`), so a crate built on a schemars-0.8 release
/// (≤ 0.25) is read only with its own release's table, kept as that release's kube-derive writes it. The
/// schemars-1 releases' tables are normalised like [`OLDER`]'s. Every feature from `v1_28` of the schemars-0.8
/// releases 0.20 to 0.25, and each later release's newest (what `latest` picks); (feature, release, kube release
/// built on it).
pub const RELEASES: [(&str, &str, &str); 22] = [
    ("v1_28", "0.20.0", "0.87.2"),
    ("v1_28", "0.21.1", "0.90.0"),
    ("v1_29", "0.21.1", "0.90.0"),
    ("v1_28", "0.22.0", "0.93.1"),
    ("v1_29", "0.22.0", "0.93.1"),
    ("v1_30", "0.22.0", "0.93.1"),
    ("v1_28", "0.23.0", "0.97.0"),
    ("v1_29", "0.23.0", "0.97.0"),
    ("v1_30", "0.23.0", "0.97.0"),
    ("v1_31", "0.23.0", "0.97.0"),
    ("v1_28", "0.24.0", "0.99.0"),
    ("v1_29", "0.24.0", "0.99.0"),
    ("v1_30", "0.24.0", "0.99.0"),
    ("v1_31", "0.24.0", "0.99.0"),
    ("v1_32", "0.24.0", "0.99.0"),
    ("v1_30", "0.25.0", "1.1.0"),
    ("v1_31", "0.25.0", "1.1.0"),
    ("v1_32", "0.25.0", "1.1.0"),
    ("v1_33", "0.25.0", "1.1.0"),
    ("v1_34", "0.26.1", "2.0.1"),
    ("v1_35", "0.27.1", "3.1.0"),
    ("v1_36", "0.28.0", "4.2.0"),
];

/// Whether k8s-openapi `release` implements schemars 0.8's `JsonSchema` (≤ 0.25) rather than schemars 1's.
fn schemars_08(release: &str) -> bool {
    release.split('.').nth(1).and_then(|m| m.parse::<u32>().ok()).is_some_and(|minor| minor <= 25)
}

/// `0.20.0` → `0.20`: a release's tables are keyed by its minor version.
fn release_key(release: &str) -> String {
    release.split('.').take(2).collect::<Vec<_>>().join(".")
}

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
        println!(
            "data/k8s-schemas is up to date ({} types x {} versions)",
            types().len(),
            VERSIONS.len() + OLDER.len() + RELEASES.len()
        );
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
    let versions = VERSIONS.len() + OLDER.len() + RELEASES.len();
    println!("wrote data/k8s-schemas ({} types x {versions} versions, {} KiB)", types().len(), size / 1024);
    Ok(())
}

/// One table per version: type name → schema.
fn harness_tables() -> Result<BTreeMap<String, Map<String, Value>>> {
    let dir = root().join("target/harness/k8s-schemas");
    let target = root().join("target/harness");
    let mut out = BTreeMap::new();
    let all = types();
    for v in VERSIONS {
        out.insert(v.to_string(), harness_table(&dir, &target, v, "0.29.0", "5.0.0", &all)?);
    }
    for (v, release, kube) in OLDER {
        out.insert(v.to_string(), release_table(&target, v, release, kube, &all)?);
    }
    for (v, release, kube) in RELEASES {
        out.insert(format!("{}-{v}", release_key(release)), release_table(&target, v, release, kube, &all)?);
    }
    Ok(out)
}

/// The table of feature `v` of k8s-openapi `release` (built with `kube`), for the types of `all` its tree declares.
fn release_table(
    target: &std::path::Path,
    v: &str,
    release: &str,
    kube: &str,
    all: &[&str],
) -> Result<Map<String, Value>> {
    let dir = root().join(format!("target/harness/k8s-schemas-{release}-{v}"));
    // a type newer than the version is not in its tree
    write_crate(&dir, &[("Cargo.toml".into(), cargo_toml(v, release, kube)), ("src/main.rs".into(), main_rs(&[]))])?;
    let src = crate_src(&dir, target, release)?.join(v);
    let present: Vec<&str> = all.iter().copied().filter(|p| declared(&src, p)).collect();
    let mut table = harness_table(&dir, target, v, release, kube, &present)?;
    if kube.starts_with("2.") {
        table.values_mut().for_each(with_optional_int_or_string);
    }
    Ok(table)
}

/// The table of feature `v` of k8s-openapi `release` (with `kube`) for the type paths `paths`, by key.
fn harness_table(
    dir: &std::path::Path,
    target: &std::path::Path,
    v: &str,
    release: &str,
    kube: &str,
    paths: &[&str],
) -> Result<Map<String, Value>> {
    write_crate(dir, &[("Cargo.toml".into(), cargo_toml(v, release, kube)), ("src/main.rs".into(), main_rs(paths))])?;
    let log = target.join(format!("k8s-schemas-{release}-{v}.log"));
    let stdout = cargo_in(dir, target, &["run", "--quiet"], &log)?;
    let by_path: Map<String, Value> = serde_json::from_str(&stdout).context("the harness printed no JSON object")?;
    if by_path.len() != paths.len() {
        bail!("the harness printed {} types, expected {}", by_path.len(), paths.len());
    }
    Ok(keys().into_iter().filter_map(|(key, path)| Some((key, by_path.get(path)?.clone()))).collect())
}

/// Where cargo keeps the source of k8s-openapi `release` (its `src/`) for the harness in `dir`.
fn crate_src(dir: &std::path::Path, target: &std::path::Path, release: &str) -> Result<PathBuf> {
    let log = target.join(format!("k8s-schemas-metadata-{release}.log"));
    let out = cargo_in(dir, target, &["metadata", "--format-version", "1"], &log)?;
    let meta: Value = serde_json::from_str(&out).context("cargo metadata printed no JSON")?;
    let manifest = meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "k8s-openapi" && p["version"] == release)
        .and_then(|p| p["manifest_path"].as_str())
        .with_context(|| format!("cargo metadata does not list k8s-openapi {release}"))?;
    Ok(std::path::Path::new(manifest).parent().context("manifest in a folder")?.join("src"))
}

/// Whether the version tree `src` (`.../src/v1_30`) declares the type at `path` (`api::core::v1::Container`): its
/// module's `mod.rs` re-exports it (`pub use self::container::Container;`).
fn declared(src: &std::path::Path, path: &str) -> bool {
    let mut segs: Vec<&str> = path.split("::").collect();
    let Some(name) = segs.pop() else { return false };
    let module = segs.iter().fold(src.to_path_buf(), |p, s| p.join(s)).join("mod.rs");
    std::fs::read_to_string(module).is_ok_and(|text| {
        text.lines().any(|l| l.trim().starts_with("pub use self::") && l.trim().ends_with(&format!("::{name};")))
    })
}

/// kube 3's `OptionalIntOrString`: an int-or-string property an object does not require gets `nullable: true`.
fn with_optional_int_or_string(schema: &mut Value) {
    match schema {
        Value::Object(o) => {
            let required: Vec<String> = o
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
                .unwrap_or_default();
            if let Some(Value::Object(props)) = o.get_mut("properties") {
                for (name, p) in props.iter_mut() {
                    if let Value::Object(po) = p
                        && !required.contains(name)
                        && po.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true))
                        && !po.contains_key("nullable")
                    {
                        po.insert("nullable".into(), Value::Bool(true));
                    }
                }
            }
            o.values_mut().for_each(with_optional_int_or_string);
        }
        Value::Array(a) => a.iter_mut().for_each(with_optional_int_or_string),
        _ => {}
    }
}

/// The harness manifest. A schemars-0.8 release's derives need schemars 0.8 and edition 2021 (its derive output
/// names a variable `gen`, a keyword in 2024).
fn cargo_toml(feature: &str, release: &str, kube: &str) -> String {
    let (edition, schemars) = if schemars_08(release) { ("2021", "0.8") } else { ("2024", "1") };
    format!(
        r#"# Generated by `cargo xtask k8s-schemas`; do not edit.
[package]
name = "kubesmith-k8s-schemas-harness"
version = "0.0.0"
edition = "{edition}"
publish = false

[workspace]

[dependencies]
k8s-openapi = {{ version = "={release}", features = ["{feature}", "schemars"] }}
kube = {{ version = "={kube}", default-features = false, features = ["derive"] }}
schemars = "{schemars}"
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
"#
    )
}

fn main_rs(paths: &[&str]) -> String {
    let mut s = String::from(
        "//! Generated by `cargo xtask k8s-schemas`; do not edit.\n#![allow(dead_code)]\n\
         use kube::{CustomResource, CustomResourceExt};\nuse schemars::JsonSchema;\n\
         use serde::{Deserialize, Serialize};\n\n",
    );
    for (i, path) in paths.iter().enumerate() {
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
    for (i, path) in paths.iter().enumerate() {
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
