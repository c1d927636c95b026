//! End-to-end behaviour of `kubesmith::crd::generate`: the kubesmith scaffold, a real multi-file operator crate,
//! module discovery, defaults, enum hoisting, multi-version merging and the errors that name file:line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kubesmith::crd::{self, CrdError, CrdErrorKind, GeneratedCrd, SourceSet};
use serde_json::{Value, json};

fn write_crate(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (path, text) in files {
        let p = dir.path().join("src").join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
    dir
}

fn gen_files(files: &[(&str, &str)]) -> Result<Vec<GeneratedCrd>, CrdError> {
    let dir = write_crate(files);
    crd::generate(&SourceSet::new(&dir.path().join("src"))).map_err(|e| e.first().clone())
}

fn gen_one(src: &str) -> Value {
    let crds = gen_files(&[("lib.rs", src)]).unwrap_or_else(|e| panic!("generate failed: {e}"));
    assert_eq!(crds.len(), 1);
    crds[0].crd.clone()
}

fn spec_schema(crd: &Value) -> &Value {
    crd.pointer("/spec/versions/0/schema/openAPIV3Schema/properties/spec").expect("spec schema")
}

fn numbers_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| numbers_equal(v, w)))
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| numbers_equal(p, q)),
        _ => a == b,
    }
}

fn condition_schema() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/conformance/kube-derive/out/k8stypes.json");
    let crd: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("json");
    crd.pointer("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/conditions/items")
        .expect("conditions")
        .clone()
}

const SCAFFOLD: &str = r#"use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
/// MemcachedSpec defines the desired state of Memcached.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(group = "cache.example.com", version = "v1alpha1", kind = "Memcached", namespaced, status = "MemcachedStatus", derive = "PartialEq", derive = "Default",
    printcolumn(name = "Available", type_ = "string", json_path = ".status.conditions[?(@.type==\"Available\")].status"),
    printcolumn(name = "Age", type_ = "date", json_path = ".metadata.creationTimestamp"))]
#[serde(rename_all = "camelCase")]
pub struct MemcachedSpec {
    /// An example field. Replace it with the fields of your API.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foo: Option<String>,
}
/// MemcachedStatus defines the observed state of Memcached.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemcachedStatus {
    /// Conditions describe the current state of the resource.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// The generation last reconciled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}
"#;

#[test]
fn scaffold_kind_matches_kube_derive() {
    let crds = gen_files(&[
        ("lib.rs", "pub mod api;\n"),
        ("api/mod.rs", "pub mod v1alpha1;\n"),
        ("api/v1alpha1/mod.rs", "pub mod memcached;\n"),
        ("api/v1alpha1/memcached.rs", SCAFFOLD),
    ])
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(crds.len(), 1);
    let c = &crds[0];
    assert_eq!(c.name, "memcacheds.cache.example.com");
    assert_eq!(c.group, "cache.example.com");
    assert_eq!(c.plural, "memcacheds");
    assert_eq!(c.file_name, "cache.example.com_memcacheds.yaml");
    let expected = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "memcacheds.cache.example.com"},
        "spec": {
            "group": "cache.example.com",
            "names": {"kind": "Memcached", "plural": "memcacheds", "singular": "memcached"},
            "scope": "Namespaced",
            "versions": [{
                "additionalPrinterColumns": [
                    {"jsonPath": ".status.conditions[?(@.type==\"Available\")].status", "name": "Available", "type": "string"},
                    {"jsonPath": ".metadata.creationTimestamp", "name": "Age", "type": "date"}
                ],
                "name": "v1alpha1",
                "schema": {"openAPIV3Schema": {
                    "description": "Auto-generated derived type for MemcachedSpec via `CustomResource`",
                    "properties": {
                        "spec": {
                            "description": "MemcachedSpec defines the desired state of Memcached.",
                            "properties": {
                                "foo": {
                                    "description": "An example field. Replace it with the fields of your API.",
                                    "nullable": true,
                                    "type": "string"
                                }
                            },
                            "type": "object"
                        },
                        "status": {
                            "description": "MemcachedStatus defines the observed state of Memcached.",
                            "nullable": true,
                            "properties": {
                                "conditions": {
                                    "description": "Conditions describe the current state of the resource.",
                                    "items": condition_schema(),
                                    "type": "array"
                                },
                                "observedGeneration": {
                                    "description": "The generation last reconciled.",
                                    "format": "int64",
                                    "nullable": true,
                                    "type": "integer"
                                }
                            },
                            "type": "object"
                        }
                    },
                    "required": ["spec"],
                    "title": "Memcached",
                    "type": "object"
                }},
                "served": true,
                "storage": true,
                "subresources": {"status": {}}
            }]
        }
    });
    assert_eq!(c.crd, expected);
}

#[test]
fn sample_operator_crate_matches_its_crdgen_output() {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/conformance/kube-operator"));
    let crds = crd::generate(&SourceSet::new(&root.join("src"))).unwrap_or_else(|e| panic!("{e}"));
    let yaml = std::fs::read_to_string(root.join("memcached-crd.yaml")).expect("yaml");
    let want: Value = serde_yaml_ng::from_str(&yaml).expect("parse");
    assert_eq!(crds.len(), 1);
    assert!(numbers_equal(&crds[0].crd, &want), "got {}", crds[0].crd);
}

#[test]
fn overlay_replaces_and_adds_files() {
    let dir = write_crate(&[("lib.rs", "pub mod api;\n"), ("api.rs", "")]);
    let src = dir.path().join("src");
    let mut overlay = BTreeMap::new();
    overlay.insert(PathBuf::from("api.rs"), "pub mod widget;\n".to_string());
    overlay.insert(
        src.join("api/widget.rs"),
        "#[derive(CustomResource)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Widget\")]\npub struct WidgetSpec { pub x: String }\n"
            .to_string(),
    );
    let crds = crd::generate(&SourceSet::new(&src).with_overlay(overlay)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(crds.iter().map(|c| c.file_name.as_str()).collect::<Vec<_>>(), ["g.io_widgets.yaml"]);
    assert_eq!(crds[0].crd["spec"]["scope"], "Cluster");
}

const MODS_LIB: &str = r#"
mod inline_mod {
    pub mod deeper;
}
#[path = "elsewhere/special.rs"]
mod special;
mod viamodrs;
#[cfg(test)]
mod tests;
pub use special::*;
"#;

fn kind_src(kind: &str, extra: &str) -> String {
    format!(
        "use kube::CustomResource;\n#[derive(CustomResource)]\n#[kube(group = \"m.io\", version = \"v1\", kind = \"{kind}\", namespaced)]\npub struct {kind}Spec {{ pub inner: {extra} }}\n"
    )
}

#[test]
fn module_discovery_follows_inline_path_and_mod_rs() {
    let deeper = kind_src("Deep", "super::super::Shared");
    let special = kind_src("Special", "crate::viamodrs::child::Shared");
    let viamodrs = "pub mod child;\n".to_string();
    let child = "/// shared doc\n#[derive(JsonSchema)]\npub struct Shared { pub n: u8 }\n".to_string();
    let lib = format!("{MODS_LIB}\n/// root shared\npub struct Shared {{ pub s: String }}\n");
    let crds = gen_files(&[
        ("lib.rs", &lib),
        ("inline_mod/deeper.rs", &deeper),
        ("elsewhere/special.rs", &special),
        ("viamodrs/mod.rs", &viamodrs),
        ("viamodrs/child.rs", &child),
    ])
    .unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = crds.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["deeps.m.io", "specials.m.io"]);
    let deep = &spec_schema(&crds[0].crd)["properties"]["inner"];
    assert_eq!(deep["description"], "root shared");
    assert_eq!(deep["properties"]["s"]["type"], "string");
    let special = &spec_schema(&crds[1].crd)["properties"]["inner"];
    assert_eq!(special["description"], "shared doc");
    assert_eq!(special["properties"]["n"]["format"], "uint8");
}

#[test]
fn missing_module_file_is_an_error_with_location() {
    let err = gen_files(&[("lib.rs", "\n\nmod absent;\n")]).expect_err("missing");
    assert!(matches!(err.kind, CrdErrorKind::ModuleNotFound { .. }));
    assert_eq!((err.line, err.column), (3, 5));
    assert!(err.to_string().ends_with("create it or fix the `mod` declaration"), "{err}");
}

#[test]
fn main_rs_is_the_root_without_lib_rs() {
    let crds = gen_files(&[("main.rs", &kind_src("Thing", "String"))]).expect("ok");
    assert_eq!(crds[0].name, "things.m.io");
    let err = gen_files(&[("other.rs", "")]).expect_err("no root");
    assert_eq!(err.kind, CrdErrorKind::NoCrateRoot);
}

#[test]
fn rename_all_cases() {
    let src = r#"
#[derive(CustomResource)]
#[kube(group = "r.io", version = "v1", kind = "Ren")]
pub struct RenSpec {
    pub lower: L, pub upper: U, pub pascal: P, pub camel: C, pub snake: S, pub screaming: SS, pub kebab: K, pub sk: SK,
    pub fields: Fields,
}
#[derive(JsonSchema)] #[serde(rename_all = "lowercase")] pub enum L { FirstValue, HTTPServer }
#[derive(JsonSchema)] #[serde(rename_all = "UPPERCASE")] pub enum U { FirstValue, HTTPServer }
#[derive(JsonSchema)] #[serde(rename_all = "PascalCase")] pub enum P { FirstValue, HTTPServer }
#[derive(JsonSchema)] #[serde(rename_all = "camelCase")] pub enum C { FirstValue, HTTPServer }
#[derive(JsonSchema)] #[serde(rename_all = "snake_case")] pub enum S { FirstValue, HTTPServer }
#[derive(JsonSchema)] #[serde(rename_all = "SCREAMING_SNAKE_CASE")] pub enum SS { FirstValue, HTTPServer }
#[derive(JsonSchema)] #[serde(rename_all = "kebab-case")] pub enum K { FirstValue, HTTPServer }
#[derive(JsonSchema)] #[serde(rename_all = "SCREAMING-KEBAB-CASE")] pub enum SK { FirstValue, #[serde(rename = "x")] HTTPServer }
#[derive(JsonSchema)] #[serde(rename_all = "PascalCase")]
pub struct Fields { pub api_url: String, pub a_b_c: String, #[serde(rename = "$raw")] pub r#type: String }
"#;
    let crd = gen_one(src);
    let p = &spec_schema(&crd)["properties"];
    let cases = [
        ("lower", json!(["firstvalue", "httpserver"])),
        ("upper", json!(["FIRSTVALUE", "HTTPSERVER"])),
        ("pascal", json!(["FirstValue", "HTTPServer"])),
        ("camel", json!(["firstValue", "hTTPServer"])),
        ("snake", json!(["first_value", "h_t_t_p_server"])),
        ("screaming", json!(["FIRST_VALUE", "H_T_T_P_SERVER"])),
        ("kebab", json!(["first-value", "h-t-t-p-server"])),
        ("sk", json!(["FIRST-VALUE", "x"])),
    ];
    for (field, want) in cases {
        assert_eq!(p[field]["enum"], want, "{field}");
    }
    let keys: Vec<&String> = p["fields"]["properties"].as_object().expect("obj").keys().collect();
    assert_eq!(keys, ["$raw", "ABC", "ApiUrl"]);
}

#[test]
fn defaults_are_evaluated_statically() {
    let src = r#"
use std::collections::BTreeMap;
const PORT: u16 = 8080;
fn default_image() -> String { "nginx:1".into() }
fn default_port() -> u16 { PORT }
fn default_tags() -> Vec<String> { vec!["a".to_string(), String::from("b")] }
fn default_mode() -> Mode { Mode::Fast }
#[derive(CustomResource)]
#[kube(group = "d.io", version = "v1", kind = "Def")]
#[serde(rename_all = "camelCase")]
pub struct DefSpec {
    #[serde(default = "default_image")] pub image: String,
    #[serde(default = "default_port")] pub port: u16,
    #[serde(default = "default_tags")] pub tags: Vec<String>,
    #[serde(default = "default_mode")] pub mode: Mode,
    #[serde(default)] pub level: Level,
    #[serde(default)] pub ratio: f64,
    #[serde(default)] pub labels: BTreeMap<String, String>,
    #[serde(default)] pub settings: Settings,
    #[serde(default)] pub nested: Nested,
    #[serde(default, skip_serializing_if = "String::is_empty")] pub omitted: String,
}
#[derive(JsonSchema, Default)] pub enum Mode { #[default] Slow, Fast }
#[derive(JsonSchema)] #[serde(rename_all = "lowercase")] pub enum Level { Low, High }
impl Default for Level { fn default() -> Self { Level::High } }
#[derive(JsonSchema)] #[serde(rename_all = "camelCase")]
pub struct Settings { pub max_conns: u32, pub name: Option<String>, #[serde(skip_serializing_if = "Option::is_none")] pub hidden: Option<i32> }
impl Default for Settings { fn default() -> Self { Self { max_conns: 10, name: Some("n".into()), hidden: None } } }
#[derive(JsonSchema, Default)] #[serde(rename_all = "camelCase")]
pub struct Nested { pub inner_list: Vec<i32>, pub flag: bool }
"#;
    let crd = gen_one(src);
    let p = &spec_schema(&crd)["properties"];
    assert_eq!(p["image"]["default"], "nginx:1");
    assert_eq!(p["port"]["default"], 8080);
    assert_eq!(p["tags"]["default"], json!(["a", "b"]));
    assert_eq!(p["mode"]["default"], "Fast");
    assert_eq!(p["level"]["default"], "high");
    assert_eq!(p["ratio"]["default"], json!(0.0));
    assert_eq!(p["labels"]["default"], json!({}));
    assert_eq!(p["settings"]["default"], json!({"maxConns": 10, "name": "n"}));
    assert_eq!(p["nested"]["default"], json!({"innerList": [], "flag": false}));
    assert!(p["omitted"].get("default").is_none());
    assert!(spec_schema(&crd).get("required").is_none());
}

/// A default that names an associated const or fn reads it as Rust resolves `Type::NAME`: the type's inherent
/// impls before its trait impls, through a type alias.
#[test]
fn defaults_read_associated_items_inherent_impls_first() {
    let src = r#"
pub trait Sized2 { const SIZE: u32; fn size() -> u32; }
pub struct Limits;
impl Sized2 for Limits { const SIZE: u32 = 1; fn size() -> u32 { 1 } }
impl Limits { pub const SIZE: u32 = 2; pub fn size() -> u32 { 2 } }
pub struct OnlyTrait;
impl Sized2 for OnlyTrait { const SIZE: u32 = 3; fn size() -> u32 { 3 } }
pub type Alias = Limits;
fn by_const() -> u32 { Limits::SIZE }
fn by_fn() -> u32 { Limits::size() }
fn by_alias() -> u32 { Alias::SIZE }
fn by_trait() -> u32 { OnlyTrait::size() }
#[derive(CustomResource)]
#[kube(group = "d.io", version = "v1", kind = "Assoc")]
#[serde(rename_all = "camelCase")]
pub struct AssocSpec {
    #[serde(default = "by_const")] pub a: u32,
    #[serde(default = "by_fn")] pub b: u32,
    #[serde(default = "by_alias")] pub c: u32,
    #[serde(default = "by_trait")] pub d: u32,
}
"#;
    let crd = gen_one(src);
    let p = &spec_schema(&crd)["properties"];
    assert_eq!([&p["a"]["default"], &p["b"]["default"], &p["c"]["default"], &p["d"]["default"]], [2, 2, 2, 3]);
}

#[test]
fn self_referential_default_impl_is_an_error() {
    // `..Default::default()` inside `impl Default` recurses at run time too; kubesmith must stop, not hang.
    let src = r#"
#[derive(CustomResource)]
#[kube(group = "d.io", version = "v1", kind = "Loop")]
pub struct LoopSpec { #[serde(default)] pub s: S }
#[derive(JsonSchema)] pub struct S { pub a: u32 }
impl Default for S { fn default() -> Self { Self { ..Default::default() } } }
"#;
    let err = gen_files(&[("lib.rs", src)]).expect_err("loop");
    assert!(matches!(err.kind, CrdErrorKind::Default { .. }), "{err}");
}

#[test]
fn unevaluable_default_needs_compiling_and_a_marker_reads_it_statically() {
    let src = r#"
fn compute() -> u32 { let x = 2; x * std::env::args().count() as u32 }
#[derive(CustomResource)]
#[kube(group = "d.io", version = "v1", kind = "Calc")]
pub struct CalcSpec {
    #[serde(default = "compute")]
    pub answer: u32,
}
"#;
    // kube-derive's `crd()` runs the default fn: the compiled fallback gives what kubesmith cannot evaluate.
    let err = gen_files(&[("lib.rs", src)]).expect_err("unevaluable");
    match &err.kind {
        CrdErrorKind::NeedsCompile { construct, .. } => assert_eq!(construct, "the default of field `answer`"),
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(err.line, 6);
    assert!(err.to_string().contains("+kubebuilder:default="), "{err}");
    let fixed = src.replace(
        "    #[serde(default = \"compute\")]",
        "    // +kubebuilder:default=42\n    #[serde(default = \"compute\")]",
    );
    let crd = gen_one(&fixed);
    assert_eq!(spec_schema(&crd)["properties"]["answer"]["default"], 42);
}

#[test]
fn defaults_are_computed_by_the_one_interpreter_of_constant_code() {
    // Arithmetic over locals, consts, associated consts and bounds, a cast, a `json!` value and a
    // Quantity from a const: what `serde_json::to_value` of the default gives, without compiling.
    let src = r#"
const MINUTE: u64 = 60;
pub struct Limits;
impl Limits { pub const RETRIES: i32 = 3; }
fn timeout() -> u64 { let minutes = 5; minutes * MINUTE + 1 }
fn ratio() -> f64 { (Limits::RETRIES as f64) / 4.0 }
fn tries() -> i32 { Limits::RETRIES * 2 - 1 }
fn ceiling() -> u32 { u16::MAX as u32 + 1 }
fn extra() -> serde_json::Value { serde_json::json!({"tier": "gold", "weight": MINUTE / 2}) }
const MEMORY: &str = "512Mi";
fn memory() -> Quantity { Quantity(MEMORY.to_string()) }
// an image named from a struct of defaults and a format!, as operators write them
fn repository() -> String { "quay.io/acme".to_owned() }
pub struct Images { pub pg15: Option<String>, pub pg16: Option<String> }
fn images() -> Images { Images { pg15: Some("standard:15-abc".to_string()), pg16: None } }
fn image() -> String {
    let repo = repository();
    let images = images();
    let pg15 = images.pg15.expect("a default image for 15");
    format!("{}/{pg15}", repo)
}
#[derive(CustomResource)]
#[kube(group = "d.io", version = "v1", kind = "Calc")]
pub struct CalcSpec {
    #[serde(default = "timeout")]
    pub timeout: u64,
    #[serde(default = "ratio")]
    pub ratio: f64,
    #[serde(default = "tries")]
    pub tries: i32,
    #[serde(default = "ceiling")]
    pub ceiling: u32,
    #[serde(default = "extra")]
    #[schemars(extend("x-kubernetes-preserve-unknown-fields" = true))]
    pub extra: serde_json::Value,
    #[serde(default = "memory")]
    pub memory: Quantity,
    #[serde(default = "image")]
    pub image: String,
}
"#;
    let crd = gen_one(src);
    let props = &spec_schema(&crd)["properties"];
    assert_eq!(props["timeout"]["default"], 301);
    assert_eq!(props["ratio"]["default"], 0.75);
    assert_eq!(props["tries"]["default"], 5);
    assert_eq!(props["ceiling"]["default"], 65536);
    assert_eq!(props["extra"]["default"], serde_json::json!({"tier": "gold", "weight": 30}));
    assert_eq!(props["memory"]["default"], "512Mi");
    assert_eq!(props["image"]["default"], "quay.io/acme/standard:15-abc");
}

#[test]
fn regex_patterns_built_with_format_are_read_by_the_one_interpreter() {
    // A pattern named by path is the text of the `Regex` a static builds; operators build it from consts with
    // `format!` (the DNS label regexes of stackable's and others' types).
    let src = r#"
use regex::Regex;
use std::sync::LazyLock;
const LABEL: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
fn max_len() -> usize { 63 }
static DNS_LABEL: LazyLock<Regex> = LazyLock::new(|| Regex::new(&format!("^{LABEL}$")).expect("a valid regex"));
static SUBDOMAIN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!("^{LABEL}(\\.{LABEL})*$")).unwrap());
static LENGTH: LazyLock<Regex> = LazyLock::new(|| Regex::new(&format!("^.{{1,{}}}$", max_len())).unwrap());
#[derive(CustomResource, Validate)]
#[kube(group = "d.io", version = "v1", kind = "Named")]
pub struct NamedSpec {
    #[validate(regex(path = *DNS_LABEL))]
    pub label: String,
    #[validate(regex(path = *SUBDOMAIN))]
    pub domain: String,
    #[validate(regex(path = *LENGTH))]
    pub short: String,
}
"#;
    let crd = gen_one(src);
    let props = &spec_schema(&crd)["properties"];
    assert_eq!(props["label"]["pattern"], "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
    assert_eq!(props["domain"]["pattern"], "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
    assert_eq!(props["short"]["pattern"], "^.{1,63}$");
}

#[test]
fn a_default_behind_a_predicate_kubesmith_cannot_run_needs_compiling() {
    let src = r#"
fn is_default(v: &u32) -> bool { v.count_ones() > 3 }
#[derive(CustomResource)]
#[kube(group = "d.io", version = "v1", kind = "Pred")]
pub struct PredSpec {
    #[serde(default, skip_serializing_if = "is_default")]
    pub count: u32,
}
"#;
    let err = gen_files(&[("lib.rs", src)]).expect_err("needs compiling");
    assert!(err.needs_compiling(), "kube-derive runs the predicate, so the compiled fallback gives it: {err}");
    assert_eq!(err.line, 6);
    // A predicate comparing with a literal (or the type's default) is run statically: 0 is left out, 7 kept.
    let simple = src.replace("v.count_ones() > 3", "*v == 0");
    assert_eq!(spec_schema(&gen_one(&simple))["properties"]["count"].get("default"), None);
    let kept = simple.replace("#[serde(default, ", "#[serde(default = \"seven\", ") + "fn seven() -> u32 { 7 }\n";
    assert_eq!(spec_schema(&gen_one(&kept))["properties"]["count"]["default"], 7);
    // The operand is any value the interpreter computes: a const, arithmetic on one.
    let by_const = kept.replace("*v == 0", "*v == LUCKY") + "const LUCKY: u32 = 7;\n";
    assert_eq!(spec_schema(&gen_one(&by_const))["properties"]["count"].get("default"), None);
    let by_sum = kept.replace("*v == 0", "*v == LUCKY + 1") + "const LUCKY: u32 = 7;\n";
    assert_eq!(spec_schema(&gen_one(&by_sum))["properties"]["count"]["default"], 7);
}

#[test]
fn documented_unit_variants_are_hoisted_after_undocumented_ones() {
    let src = r#"
#[derive(CustomResource)]
#[kube(group = "e.io", version = "v1", kind = "Hoist")]
pub struct HoistSpec { pub phase: Phase, pub opt: Option<Phase> }
/// The phase.
#[derive(JsonSchema)]
pub enum Phase {
    /// Documented first.
    Pending,
    Running,
    /// Documented third.
    Failed,
    Succeeded,
}
"#;
    let crd = gen_one(src);
    let p = &spec_schema(&crd)["properties"];
    assert_eq!(
        p["phase"],
        json!({"description": "The phase.", "enum": ["Running", "Succeeded", "Pending", "Failed"], "type": "string"})
    );
    assert_eq!(p["opt"]["nullable"], true);
    assert_eq!(p["opt"]["enum"], json!(["Running", "Succeeded", "Pending", "Failed"]));
    assert_eq!(spec_schema(&crd)["required"], json!(["phase"]));
}

const MULTI: &str = r#"
pub mod v1 {
    #[derive(CustomResource)]
    #[kube(group = "m.io", version = "v1", kind = "Multi", namespaced STORAGE1)]
    pub struct MultiSpec { pub a: String }
}
pub mod v2 {
    MARKER
    #[derive(CustomResource)]
    #[kube(group = "m.io", version = "v2", kind = "Multi", namespaced STORAGE2)]
    pub struct MultiSpec { pub a: String, pub b: Option<i32> }
}
pub mod v3 {
    #[derive(CustomResource)]
    #[kube(group = "m.io", version = "v3", kind = "Multi", namespaced STORAGE3)]
    pub struct MultiSpec { pub c: Vec<String> }
}
"#;

fn multi(s1: &str, s2: &str, s3: &str, marker: bool) -> Result<Vec<GeneratedCrd>, CrdError> {
    let src = MULTI
        .replace("STORAGE1", s1)
        .replace("STORAGE2", s2)
        .replace("STORAGE3", s3)
        .replace("MARKER", if marker { "// +kubebuilder:storageversion" } else { "" });
    gen_files(&[("lib.rs", &src)])
}

fn version_list(c: &GeneratedCrd) -> Vec<(String, bool)> {
    c.crd["spec"]["versions"]
        .as_array()
        .expect("versions")
        .iter()
        .map(|v| (v["name"].as_str().unwrap_or_default().to_string(), v["storage"].as_bool().unwrap_or_default()))
        .collect()
}

#[test]
fn merge_uses_the_single_storage_version() {
    let crds = multi(", storage = false", "", ", storage = false", false).expect("merge");
    assert_eq!(crds.len(), 1);
    let v = version_list(&crds[0]);
    assert_eq!(v, [("v2".into(), true), ("v3".into(), false), ("v1".into(), false)]);
}

#[test]
fn merge_honours_the_storageversion_marker() {
    let crds = multi("", "", "", true).expect("merge");
    let v = version_list(&crds[0]);
    assert_eq!(v, [("v2".into(), true), ("v3".into(), false), ("v1".into(), false)]);
}

#[test]
fn merge_without_a_single_storage_version_is_an_error() {
    let err = multi("", "", "", false).expect_err("three storage versions");
    let msg = err.to_string();
    assert!(
        msg.contains("kind Multi in group m.io has 3 storage versions (v1, v2, v3): mark all but one with #[kube(storage = false)]"),
        "{msg}"
    );
    assert_eq!(err.line, 5);
    let err = multi(", storage = false", ", storage = false", ", storage = false", false).expect_err("none");
    assert!(err.to_string().contains("has 0 storage versions"), "{err}");
}

#[test]
fn merge_rejects_scope_mismatch() {
    let src = MULTI
        .replace("MARKER", "")
        .replace("STORAGE1", "")
        .replace("STORAGE2", ", storage = false")
        .replace("STORAGE3", ", storage = false");
    let src = src.replacen("namespaced", "", 1);
    let err = gen_files(&[("lib.rs", &src)]).expect_err("scope");
    assert!(err.to_string().contains("scope"), "{err}");
}

#[test]
fn unknown_kube_key_is_an_error_with_location() {
    let src = "#[derive(CustomResource)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"K\", listKind = \"KList\")]\npub struct KSpec {}\n";
    let err = gen_files(&[("lib.rs", src)]).expect_err("unknown key");
    assert!(matches!(err.kind, CrdErrorKind::KubeAttr(_)));
    assert_eq!((err.line, err.column), (2, 52));
    assert!(err.to_string().contains("unknown field `listKind` in #[kube(...)]: kube-derive accepts group"), "{err}");
    let missing = gen_files(&[(
        "lib.rs",
        "#[derive(kube::CustomResource)]\n#[kube(version = \"v1\", kind = \"K\")]\npub struct KSpec {}\n",
    )])
    .expect_err("missing group");
    assert!(missing.to_string().contains("missing field `group` in #[kube(...)]"), "{missing}");
    assert_eq!((missing.line, missing.column), (1, 16), "at the derive's CustomResource");
}

#[test]
fn manual_schema_without_an_impl_and_opaque_impls_need_compiling() {
    let manual = "#[derive(CustomResource)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"K\", schema = \"manual\")]\npub struct KSpec {}\n";
    let dir = write_crate(&[("lib.rs", manual)]);
    let g = crd::generate_all(&SourceSet::new(&dir.path().join("src")), crd::K8sTable::default_table()).expect("crate");
    assert!(g.problems.is_empty() && g.crds.is_empty(), "{:#?}", g.problems);
    let because = &g.pending[0].versions[0].because;
    assert!(because[0].to_string().contains("no `impl JsonSchema for K`"), "{}", because[0]);
    assert_eq!(because[0].line, 2);
    let handwritten = "#[derive(CustomResource)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"K\")]\npub struct KSpec { pub x: X }\npub struct X;\nimpl JsonSchema for X {}\n";
    let err = gen_files(&[("lib.rs", handwritten)]).expect_err("impl");
    assert!(matches!(err.kind, CrdErrorKind::NeedsCompile { .. }), "{err}");
    assert!(err.to_string().contains("`impl JsonSchema for X` needs compiling"), "{err}");
    assert_eq!(err.line, 5);
}

#[test]
fn flatten_struct_option_and_map() {
    let src = r#"
use std::collections::BTreeMap;
#[derive(CustomResource)]
#[kube(group = "f.io", version = "v1", kind = "Flat")]
pub struct FlatSpec {
    pub own: String,
    #[serde(flatten)] pub a: A,
    #[serde(flatten)] pub b: Option<B>,
    #[serde(flatten)] pub rest: BTreeMap<String, serde_json::Value>,
}
#[derive(JsonSchema)] pub struct A { pub a1: String }
#[derive(JsonSchema)] pub struct B { pub b1: String }
"#;
    let crd = gen_one(src);
    let s = spec_schema(&crd);
    assert_eq!(s["required"], json!(["a1", "own"]));
    assert_eq!(s["x-kubernetes-preserve-unknown-fields"], true);
    assert!(s.get("additionalProperties").is_none());
    assert_eq!(s["properties"]["b1"]["type"], "string");
}

#[test]
fn errors_display_path_line_column() {
    let err = gen_files(&[("lib.rs", "#[derive(CustomResource)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"K\")]\npub struct KSpec { pub t: (u8, u8) }\n")])
        .expect_err("tuple");
    let shown = err.to_string();
    let path: &Path = &err.path;
    assert!(shown.starts_with(&format!("{}:3:27: tuple type: ", path.display())), "{shown}");
}

// ---- every problem at once ----------------------------------------------------------------------------

const PROBLEMS: &str = r#"use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "p.io", version = "v1", kind = "Broken", namespaced)]
pub struct BrokenSpec {
    pub pair: (u8, u8),
    pub ok: String,
    pub keyed: std::collections::BTreeMap<u32, String>,
}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "p.io", version = "v1", kind = "Fine", namespaced)]
pub struct FineSpec {
    pub name: String,
}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "p.io", version = "v1", kind = "AlsoBroken")]
pub struct AlsoBrokenSpec {
    // +kubebuilder:validation:Minimun=1
    pub count: i32,
}
"#;

#[test]
fn every_problem_of_a_crate_is_reported_kind_by_kind() {
    let dir = write_crate(&[("lib.rs", PROBLEMS)]);
    let set = SourceSet::new(&dir.path().join("src"));
    let g = crd::generate_all(&set, crd::K8sTable::default_table()).expect("a crate to read");
    let names: Vec<&str> = g.crds.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["fines.p.io"], "the kind without problems is still generated");
    assert!(g.pending.is_empty());
    let found: Vec<(Option<&str>, usize)> = g.problems.iter().map(|p| (p.crd.as_deref(), p.error.line)).collect();
    assert_eq!(
        found,
        [(Some("brokens.p.io"), 8), (Some("brokens.p.io"), 10), (Some("alsobrokens.p.io"), 22)],
        "{:#?}",
        g.problems
    );
    let all = crd::generate(&set).expect_err("all or nothing");
    assert_eq!(all.len(), 3);
    let text = all.to_string();
    assert!(text.starts_with("3 problems:\n"), "{text}");
    assert!(text.contains("lib.rs:8:15: tuple type"), "{text}");
    assert!(text.contains("lib.rs:22:1: unknown marker"), "{text}");
}

#[test]
fn files_that_do_not_parse_and_missing_modules_are_reported_together() {
    let lib = "mod a;\nmod gone;\nmod b;\n";
    // Both files mention CustomResource, so they can matter and are parsed.
    let (a, b) = ("// CustomResource\npub struct A {\n", "// CustomResource\nfn broken( {}\n");
    let dir = write_crate(&[("lib.rs", lib), ("a.rs", a), ("b.rs", b)]);
    let all = crd::generate(&SourceSet::new(&dir.path().join("src"))).expect_err("three problems");
    let kinds: Vec<String> =
        all.all().iter().map(|e| format!("{}:{}", e.path.file_name().unwrap().to_string_lossy(), e.line)).collect();
    assert_eq!(kinds, ["a.rs:2", "b.rs:2", "lib.rs:2"], "{all}");
}

// ---- custom schemas ------------------------------------------------------------------------------------

const CUSTOM_PROBLEMS: &str = r#"use kube::CustomResource;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "c.io", version = "v1", kind = "Compiled", namespaced)]
pub struct CompiledSpec {
    #[schemars(schema_with = "looped")]
    pub a: String,
    #[schemars(schema_with = "elsewhere::schema")]
    pub b: String,
    pub c: Choice,
    #[schemars(transform = add_title)]
    pub d: String,
}

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub enum Choice {
    #[schemars(schema_with = "formatted")]
    One(String),
    #[schemars(schema_with = "looped")]
    Two(String),
}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "c.io", version = "v1", kind = "Mixed", namespaced)]
pub struct MixedSpec {
    #[schemars(schema_with = "looped")]
    pub a: String,
    pub pair: (u8, u8),
}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "c.io", version = "v1", kind = "Static", namespaced)]
pub struct StaticSpec {
    #[schemars(schema_with = "literal")]
    pub a: Option<String>,
}

fn looped(_: &mut SchemaGenerator) -> Schema {
    let mut s = json_schema!({});
    for _ in 0..2 {}
    s
}

fn formatted(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "description": format!("{:>4}", 1) })
}

fn literal(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string" })
}
"#;

#[test]
fn every_custom_schema_problem_of_a_kind_is_reported() {
    let dir = write_crate(&[("lib.rs", CUSTOM_PROBLEMS)]);
    let g = crd::generate_all(&SourceSet::new(&dir.path().join("src")), crd::K8sTable::default_table()).expect("crate");
    let names: Vec<&str> = g.crds.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["statics.c.io"]);
    let a = &spec_schema(&g.crds[0].crd)["properties"]["a"];
    assert_eq!(a, &json!({"type": "string"}), "an Option with schema_with is not nullable");
    assert_eq!(spec_schema(&g.crds[0].crd)["required"], json!(["a"]), "nor optional");
    // Both schema_with fields, both variants and the transform need compiling: the kind is pending, all five named.
    assert_eq!(g.pending.len(), 1, "{:#?}", g.problems);
    assert_eq!(g.pending[0].crd.name, "compileds.c.io");
    let because: Vec<(usize, String)> =
        g.pending[0].versions[0].because.iter().map(|e| (e.line, e.to_string())).collect();
    let expect = [
        (42, "`#[schemars(schema_with = \"looped\")]` on field `a` needs compiling: a `for` loop"),
        (
            10,
            "`#[schemars(schema_with = \"elsewhere::schema\")]` on field `b` needs compiling: `elsewhere::schema` is not a fn",
        ),
        (13, "`#[schemars(transform = ..)]` on field `d`"),
        (42, "`#[schemars(schema_with = \"looped\")]` on variant `Two` needs compiling: a `for` loop"),
        (47, "`#[schemars(schema_with = \"formatted\")]` on variant `One` needs compiling: the format spec `{:>4}`"),
    ];
    assert_eq!(because.len(), 5, "{because:#?}");
    for (line, needle) in expect {
        assert!(because.iter().any(|(l, m)| *l == line && m.contains(needle)), "{needle} at {line} in {because:#?}");
    }
    // A kind with a real problem besides one that needs compiling reports both, and is not pending.
    let mixed: Vec<(usize, bool)> = g
        .problems
        .iter()
        .filter(|p| p.crd.as_deref() == Some("mixeds.c.io"))
        .map(|p| (p.error.line, p.error.needs_compiling()))
        .collect();
    assert_eq!(mixed, [(30, false), (42, true)]);
}

#[test]
fn serde_with_is_read_as_schemars_reads_it() {
    let src = r#"
mod as_text { pub fn serialize<S>(_: &u32, _: S) {} }
#[derive(CustomResource)]
#[kube(group = "w.io", version = "v1", kind = "W")]
pub struct WSpec {
    #[serde(with = "Text")]
    pub typed: u32,
    #[serde(with = "as_text")]
    pub module: u32,
    #[serde(default = "seven", with = "as_text")]
    #[schemars(with = "String")]
    pub defaulted: u32,
}
#[derive(JsonSchema)]
pub struct Text(String);
fn seven() -> u32 { 7 }
"#;
    let dir = write_crate(&[("lib.rs", src)]);
    let g = crd::generate_all(&SourceSet::new(&dir.path().join("src")), crd::K8sTable::default_table()).expect("crate");
    let because: Vec<String> = g.pending[0].versions[0].because.iter().map(|e| e.to_string()).collect();
    assert_eq!(because.len(), 2, "{because:#?}");
    assert!(
        because[0].contains("`#[serde(with = \"as_text\")]` needs compiling: schemars takes `as_text`"),
        "{because:#?}"
    );
    assert!(because[1].contains("the default of field `defaulted` needs compiling"), "{because:#?}");
    let typed = src.replace("    #[serde(with = \"as_text\")]\n    pub module: u32,\n", "").replace(
        "    #[serde(default = \"seven\", with = \"as_text\")]\n    #[schemars(with = \"String\")]\n    pub defaulted: u32,\n",
        "",
    );
    let crd = gen_one(&typed);
    assert_eq!(
        spec_schema(&crd)["properties"]["typed"],
        json!({"type": "string"}),
        "serde's `with` names the schema type"
    );
}

/// kaniop's shape: `JsonSchema` derived under `cfg_attr(feature = "schemars", ..)`, and the spec's CEL rule and a
/// field's attributes under the same predicate (which holds wherever `crd()` compiles); another predicate's
/// attributes stay unread.
#[test]
fn attributes_under_the_json_schema_cfg_apply() {
    let crd = gen_one(
        r#"
use kube::CustomResource;
use serde::{Deserialize, Serialize};
#[cfg(feature = "schemars")]
use schemars::JsonSchema;

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[cfg_attr(feature = "schemars", derive(JsonSchema))]
#[cfg_attr(
    feature = "schemars",
    schemars(extend("x-kubernetes-validations" = [{"message": "spec is immutable", "rule": "self == oldSelf"}]))
)]
#[kube(group = "cfg.example.com", version = "v1", kind = "Restore", namespaced)]
pub struct RestoreSpec {
    #[cfg_attr(feature = "schemars", schemars(length(min = 1)))]
    pub target: String,
    #[cfg_attr(feature = "other", schemars(length(min = 2)))]
    pub source: String,
}
"#,
    );
    let spec = spec_schema(&crd);
    assert_eq!(spec["x-kubernetes-validations"], json!([{"message": "spec is immutable", "rule": "self == oldSelf"}]));
    assert_eq!(spec["properties"]["target"]["minLength"], json!(1));
    assert_eq!(spec["properties"]["source"].get("minLength"), None);
}

/// kaniop's and linkerd's shape: a spec's types come from a dependency crate (a path dependency here; a registry
/// crate is found the same way, through the lock), named by its path or through a glob re-export; the
/// dependency's own kind is not the crate's.
#[test]
fn types_of_a_dependency_crate_are_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |path: &str, text: &str| {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    };
    write(
        "op/Cargo.toml",
        "[package]\nname = \"op\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\nkube = \"5\"\n\
         shared-types = { path = \"../shared\" }\n",
    );
    write(
        "shared/Cargo.toml",
        "[package]\nname = \"shared-types\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\nkube = \"5\"\n",
    );
    write(
        "shared/src/lib.rs",
        r#"
pub mod refs {
    use kube::CustomResource;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// Which cluster.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct ClusterRef {
        /// Its name.
        pub name: String,
        pub namespace: Option<String>,
    }

    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "shared.example.com", version = "v1", kind = "Cluster")]
    pub struct ClusterSpec {
        pub size: u32,
    }
}
"#,
    );
    write(
        "op/src/lib.rs",
        r#"
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod shared {
    pub use shared_types::refs::*;
}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "op.example.com", version = "v1", kind = "Member", namespaced)]
pub struct MemberSpec {
    pub cluster: shared_types::refs::ClusterRef,
    pub backup: Option<crate::shared::ClusterRef>,
}
"#,
    );
    let crds = crd::generate(&SourceSet::new(&dir.path().join("op/src"))).unwrap_or_else(|e| panic!("{}", e.first()));
    let names: Vec<&Value> = crds.iter().map(|c| &c.crd["metadata"]["name"]).collect();
    assert_eq!(names, [&json!("members.op.example.com")], "the dependency's kind is not the crate's");
    let spec = spec_schema(&crds[0].crd);
    let cluster = json!({
        "description": "Which cluster.",
        "type": "object",
        "properties": {"name": {"description": "Its name.", "type": "string"}, "namespace": {"nullable": true, "type": "string"}},
        "required": ["name"]
    });
    assert_eq!(spec["properties"]["cluster"], cluster);
    let mut backup = cluster.clone();
    backup["nullable"] = json!(true);
    assert_eq!(spec["properties"]["backup"], backup);
}

/// kube's re-exports of k8s-openapi's `ObjectMeta` name the same type (kaniop's pod template metadata).
#[test]
fn kube_reexported_object_meta_is_k8s_openapis() {
    let crd = gen_one(
        r#"
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "meta.example.com", version = "v1", kind = "Template", namespaced)]
pub struct TemplateSpec {
    pub api: kube::api::ObjectMeta,
    pub core: kube::core::ObjectMeta,
    pub k8s: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
}
"#,
    );
    let props = &spec_schema(&crd)["properties"];
    assert!(props["k8s"]["properties"]["labels"].is_object());
    assert_eq!(props["api"], props["k8s"]);
    assert_eq!(props["core"], props["k8s"]);
}

#[test]
fn a_schema_fn_reads_associated_consts_of_its_impl_and_of_named_types() {
    // The shape of stackable's secret-operator: a schema fn in `impl KeyGen` listing `Self::` consts.
    let src = r#"
use schemars::{json_schema, Schema, SchemaGenerator};
pub struct KeyGen;
impl KeyGen {
    pub const SHORT: u32 = 2048;
    pub const LONG: u32 = 4096;
    pub fn lengths(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "integer", "enum": [Self::SHORT, KeyGen::LONG] })
    }
}
#[derive(CustomResource)]
#[kube(group = "k.io", version = "v1", kind = "Key")]
pub struct KeySpec {
    #[schemars(schema_with = "KeyGen::lengths")]
    pub length: u32,
}
"#;
    let crd = gen_one(src);
    assert_eq!(spec_schema(&crd)["properties"]["length"]["enum"], serde_json::json!([2048, 4096]));
}

#[test]
fn a_generic_type_is_described_per_instance_with_its_arguments() {
    // stackable's `Role<Config>` shape: schemars describes each instance with the arguments in place of the
    // parameters; a parameter bound to another instance's parameter, a default type argument and a parameter bound
    // to an `Option` (not required) all resolve where they were written.
    let src = r#"
pub mod kinds {
    #[derive(JsonSchema)]
    pub struct Settings { pub replicas: u32 }
}
#[derive(JsonSchema)]
pub struct Role<T, Extra = String> { pub config: T, pub groups: Vec<Group<T>>, pub extra: Extra }
#[derive(JsonSchema)]
pub struct Group<U> { pub config: U }
#[derive(JsonSchema)]
pub struct Held<T> { pub value: T }
#[derive(CustomResource)]
#[kube(group = "g.io", version = "v1", kind = "Cluster")]
pub struct ClusterSpec {
    pub servers: Role<kinds::Settings>,
    pub owner: Held<Option<bool>>,
}
"#;
    let crd = gen_one(src);
    let spec = spec_schema(&crd);
    let settings = serde_json::json!({"type": "object", "properties": {"replicas": {"type": "integer", "format": "uint32", "minimum": 0.0}}, "required": ["replicas"]});
    assert_eq!(spec["properties"]["servers"]["properties"]["config"], settings);
    assert_eq!(spec["properties"]["servers"]["properties"]["groups"]["items"]["properties"]["config"], settings);
    assert_eq!(spec["properties"]["servers"]["properties"]["extra"], serde_json::json!({"type": "string"}));
    let held = &spec["properties"]["owner"];
    assert_eq!(held["properties"]["value"], serde_json::json!({"type": "boolean", "nullable": true}));
    assert!(held.get("required").is_none(), "a parameter bound to an Option is not required: {held}");
}

#[test]
fn a_generic_type_holding_its_own_instance_is_recursive() {
    let src = r#"
#[derive(JsonSchema)]
pub struct Tree<T> { pub value: T, pub children: Vec<Tree<T>> }
#[derive(CustomResource)]
#[kube(group = "g.io", version = "v1", kind = "Forest")]
pub struct ForestSpec {
    pub tree: Tree<String>,
}
"#;
    let err = gen_files(&[("lib.rs", src)]).expect_err("recursive");
    assert!(err.to_string().contains("recursive type `Tree`"), "{err}");
}

#[test]
fn the_default_of_a_generic_type_whose_parameter_is_only_a_marker_is_its_derived_one() {
    // stackable's `ClusterRef<K>`: educe's derived Default, the parameter only in a skipped PhantomData.
    let src = r#"
use std::marker::PhantomData;
#[derive(JsonSchema, Educe)]
#[educe(Clone(bound()), Default(bound()))]
pub struct ClusterRef<K> {
    pub name: Option<String>,
    #[serde(default)]
    pub namespace: Option<String>,
    #[serde(skip)]
    _kind: PhantomData<K>,
}
#[derive(JsonSchema, Default)]
pub struct Holder<T> { pub value: T }
pub struct Target;
#[derive(CustomResource)]
#[kube(group = "g.io", version = "v1", kind = "Node")]
pub struct NodeSpec {
    #[serde(default)]
    pub cluster_ref: ClusterRef<Target>,
    #[serde(default)]
    pub held: Holder<u8>,
}
"#;
    let err = gen_files(&[("lib.rs", src)]).expect_err("held's default names the parameter");
    assert!(err.needs_compiling(), "{err}");
    assert!(err.to_string().contains("the default of field `held`"), "{err}");
    let src = src.replace("    #[serde(default)]\n    pub held: Holder<u8>,\n", "");
    let crd = gen_one(&src);
    let cluster_ref = &spec_schema(&crd)["properties"]["cluster_ref"];
    assert_eq!(cluster_ref["default"], serde_json::json!({"name": null, "namespace": null}), "{cluster_ref}");
}

#[test]
fn a_const_generic_type_is_left_to_the_compiled_fallback() {
    let src = r#"
#[derive(JsonSchema)]
pub struct Slots<const N: usize> { pub names: Vec<String> }
#[derive(CustomResource)]
#[kube(group = "g.io", version = "v1", kind = "Pool")]
pub struct PoolSpec {
    pub slots: Slots<3>,
}
"#;
    let err = gen_files(&[("lib.rs", src)]).expect_err("needs compiling");
    assert!(err.needs_compiling(), "kube-derive's crd() has it, so the fallback gives it: {err}");
    assert!(err.to_string().contains("const generic parameters"), "{err}");
}
