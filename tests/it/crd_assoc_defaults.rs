//! Defaults that name associated items: `Type::f` resolved to the impl blocks of that very type (not of a type
//! of the same name elsewhere), across files the lazy index first leaves unparsed, trait impls after inherent
//! ones, `Self::` inside impl blocks, `let` bindings in their bodies, and the errors for what is not data.

use kubesmith::crd::{self, CrdErrors, GeneratedCrd, SourceSet};
use serde_json::{Value, json};

fn generate(files: &[(&str, &str)]) -> Result<Vec<GeneratedCrd>, CrdErrors> {
    let dir = tempfile::tempdir().expect("tempdir");
    for (path, text) in files {
        let p = dir.path().join("src").join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
    crd::generate(&SourceSet::new(&dir.path().join("src")))
}

fn spec_props(crds: &[GeneratedCrd]) -> Value {
    crds[0].crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"].clone()
}

const SPEC: &str = r#"use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use crate::a::Config;
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "g.io", version = "v1", kind = "Foo")]
pub struct FooSpec {
    #[serde(default = "Config::standard")]
    pub a: Config,
    #[serde(default = "crate::b::Config::standard")]
    pub b: crate::b::Config,
    #[serde(default = "FooSpec::retries")]
    pub retries: u8,
    #[serde(default = "FooSpec::label")]
    pub label: String,
}
"#;

/// Two types named `Config`, each with its own `standard()`, in files the spec does not otherwise need parsed.
const A: &str = r#"#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, schemars::JsonSchema)]
pub struct Config { pub size: u32 }
impl Config {
    pub fn standard() -> Self { Self { size: Self::SIZE } }
    const SIZE: u32 = 1;
}
"#;

const B: &str = r#"#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, schemars::JsonSchema)]
pub struct Config { pub size: u32 }
impl Config {
    pub fn standard() -> Config { Config { size: crate::limits::MAX } }
}
"#;

/// The spec's impls live in yet another file: an inherent fn, and a trait fn found after the inherent impls.
const IMPLS: &str = r#"use crate::FooSpec;
pub static RETRIES: u8 = 7;
impl FooSpec {
    pub fn retries() -> u8 { RETRIES }
}
pub trait Labelled { fn label() -> String; }
impl Labelled for FooSpec {
    fn label() -> String { String::from("from-trait") }
}
"#;

#[test]
fn crd_associated_fn_defaults_resolve_to_the_type_the_path_names_across_files() {
    let lib = format!("pub mod a;\npub mod b;\npub mod impls;\npub mod limits;\n{SPEC}");
    let crds = generate(&[
        ("lib.rs", &lib),
        ("a.rs", A),
        ("b.rs", B),
        ("impls.rs", IMPLS),
        ("limits.rs", "pub const MAX: u32 = u32::MAX;\n"),
    ])
    .unwrap_or_else(|e| panic!("{e}"));
    let p = spec_props(&crds);
    assert_eq!(p["a"]["default"], json!({"size": 1}));
    assert_eq!(p["b"]["default"], json!({"size": u32::MAX}));
    assert_eq!(p["retries"]["default"], json!(7));
    assert_eq!(p["label"]["default"], json!("from-trait"));
}

#[test]
fn crd_associated_fn_defaults_that_are_not_data_are_errors_naming_the_field() {
    let lib = format!("pub mod a;\npub mod b;\npub mod impls;\npub mod limits;\n{SPEC}");
    let impls = IMPLS.replace("{ RETRIES }", "{ let mut r = RETRIES; r += 1; r }");
    let err = generate(&[
        ("lib.rs", &lib),
        ("a.rs", A),
        ("b.rs", B),
        ("impls.rs", &impls),
        ("limits.rs", "pub const MAX: u32 = u32::MAX;\n"),
    ])
    .expect_err("a body of statements");
    let msg = err.to_string();
    assert!(
        msg.contains("field `retries`")
            && msg.contains("the body of `retries` is not an expression after immutable `let`s"),
        "{msg}"
    );
    assert_eq!(err.first().line, 16, "{msg}");
    let missing = SPEC.replace("FooSpec::label", "FooSpec::nothing");
    let lib = format!("pub mod a;\npub mod b;\npub mod impls;\npub mod limits;\n{missing}");
    let err = generate(&[
        ("lib.rs", &lib),
        ("a.rs", A),
        ("b.rs", B),
        ("impls.rs", IMPLS),
        ("limits.rs", "pub const MAX: u32 = u32::MAX;\n"),
    ])
    .expect_err("no such associated fn");
    assert!(err.to_string().contains("`FooSpec` has no associated fn `nothing` without parameters"), "{err}");
}

#[test]
fn crd_default_fns_may_bind_names_with_let_before_their_value() {
    // tembo-operator's shape: `let limits: BTreeMap<..> = BTreeMap::from([..]); Resources { limits: Some(limits), .. }`;
    // a later `let` of a name shadows an earlier one from where it is written, and `impl Default` bodies too.
    let lib = r#"use std::collections::BTreeMap;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Limits { pub cpu: String, pub extra: Option<BTreeMap<String, String>>, pub port: u16 }
const PORT: u16 = 8080;
pub fn default_limits() -> Limits {
    let cpu = "500m";
    let extra: BTreeMap<String, String> = BTreeMap::from([("tier".to_owned(), cpu.to_string())]);
    let cpu = "2";
    let port = PORT;
    Limits { cpu: cpu.into(), extra: Some(extra), port }
}
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Tuning { pub level: u8 }
impl Default for Tuning {
    fn default() -> Self {
        let level = 3;
        return Tuning { level };
    }
}
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "g.io", version = "v1", kind = "Foo")]
pub struct FooSpec {
    #[serde(default = "default_limits")]
    pub limits: Limits,
    #[serde(default)]
    pub tuning: Tuning,
}
"#;
    let crds = generate(&[("lib.rs", lib)]).unwrap_or_else(|e| panic!("{e}"));
    let p = spec_props(&crds);
    assert_eq!(p["limits"]["default"], json!({"cpu": "2", "extra": {"tier": "500m"}, "port": 8080}));
    assert_eq!(p["tuning"]["default"], json!({"level": 3}));
}

/// Two versions of kind `Foo`: each `#[derive(CustomResource)]` generates a type `Foo` of its own module, each with
/// an inherent const; a default naming `v1::Foo::REPLICAS` reads v1's, `Self::` in v2's impl reads v2's (not the
/// first `Foo` written).
#[test]
fn crd_defaults_naming_a_generated_kind_type_read_that_versions_impl() {
    let version = |v: &str, n: u32, default: &str| {
        format!(
            r#"use kube::CustomResource;
use schemars::JsonSchema;
use serde::{{Deserialize, Serialize}};
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "g.io", version = "{v}", kind = "Foo"{storage})]
pub struct FooSpec {{
    #[serde(default = "{default}")]
    pub replicas: u32,
}}
impl Foo {{
    pub const REPLICAS: u32 = {n};
    pub fn replicas() -> u32 {{ Self::REPLICAS }}
}}
pub fn older() -> u32 {{ super::v1::Foo::REPLICAS }}
"#,
            storage = if v == "v1" { ", storage = false" } else { "" }
        )
    };
    let lib = "pub mod v1;\npub mod v2;\n";
    for (default_in_v2, want) in [("Foo::replicas", 2), ("older", 1)] {
        let crds = generate(&[
            ("lib.rs", lib),
            ("v1.rs", &version("v1", 1, "Foo::replicas")),
            ("v2.rs", &version("v2", 2, default_in_v2)),
        ])
        .unwrap_or_else(|e| panic!("{e}"));
        let versions = crds[0].crd["spec"]["versions"].as_array().expect("versions").clone();
        let default_of = |name: &str| {
            let v = versions.iter().find(|v| v["name"] == name).expect(name);
            v["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["replicas"]["default"].clone()
        };
        assert_eq!(default_of("v1"), json!(1));
        assert_eq!(default_of("v2"), json!(want), "v2's default `{default_in_v2}`");
    }
}

/// A default fn called `default` in a module is that fn, not the field type's `Default` (`Default::default` is;
/// `Config::default` is `Config`'s, whatever the field's type); a `schema_with` fn may be an associated fn of the kind type the derive generates, or of a
/// type reached through an alias: the lookup a call in a default's body makes.
#[test]
fn crd_default_and_schema_with_paths_name_fns_as_calls_do() {
    let lib = r#"use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
pub mod defaults {
    pub fn default() -> u8 { 3 }
}
/// A fn of the module's name: `defaults::default` still goes through the module.
pub fn defaults() -> u8 { 9 }
pub struct Helper;
pub type Schemas = Helper;
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Config { pub size: u32 }
impl Default for Config {
    fn default() -> Self { Config { size: 5 } }
}
impl Helper {
    pub fn port(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "integer", "format": "port"})
    }
}
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "g.io", version = "v1", kind = "Foo")]
pub struct FooSpec {
    #[serde(default = "defaults::default")]
    pub replicas: u8,
    #[serde(default = "Default::default")]
    pub spare: u8,
    #[serde(default = "Config::default")]
    pub config: Option<Config>,
    #[schemars(schema_with = "Foo::level")]
    pub level: String,
    #[schemars(schema_with = "Schemas::port")]
    pub port: u16,
}
impl Foo {
    pub fn level(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "enum": ["low", "high"]})
    }
}
"#;
    let crds = generate(&[("lib.rs", lib)]).unwrap_or_else(|e| panic!("{e}"));
    let p = spec_props(&crds);
    assert_eq!(p["replicas"]["default"], json!(3));
    assert_eq!(p["spare"]["default"], json!(0));
    assert_eq!(p["config"]["default"], json!({"size": 5}));
    assert_eq!(p["level"], json!({"type": "string", "enum": ["low", "high"]}));
    assert_eq!(p["port"], json!({"type": "integer", "format": "port"}));
}

/// The impls written for a type alias are the aliased type's: a default naming `Limits::f` finds `impl Lim { fn f }`
/// written for `type Lim = Limits;`, even in a file nothing else makes the lazy index parse, and before a trait's `f`.
#[test]
fn crd_defaults_find_the_impls_written_for_an_alias_of_the_type() {
    let lib = r#"use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
pub mod limits;
pub mod names;
pub struct Limits;
pub trait Sized2 { fn replicas() -> u8; }
impl Sized2 for Limits { fn replicas() -> u8 { 1 } }
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "g.io", version = "v1", kind = "Foo")]
pub struct FooSpec {
    #[serde(default = "Limits::replicas")]
    pub replicas: u8,
    #[serde(default = "Limits::label")]
    pub label: String,
}
"#;
    let limits =
        "use crate::Limits as Lim;\npub type Bounds = Lim;\nimpl Bounds {\n    pub fn replicas() -> u8 { 3 }\n}\n";
    let names = "pub type Named = crate::limits::Bounds;\nimpl Named {\n    pub fn label() -> String { \"from-alias\".into() }\n}\n";
    let crds =
        generate(&[("lib.rs", lib), ("limits.rs", limits), ("names.rs", names)]).unwrap_or_else(|e| panic!("{e}"));
    let p = spec_props(&crds);
    assert_eq!(p["replicas"]["default"], json!(3), "the alias's inherent fn, not the trait's");
    assert_eq!(p["label"]["default"], json!("from-alias"), "through an alias of an alias");
}
