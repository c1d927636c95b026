//! `make manifests` with problems and with kinds that need compiling: every problem reported at once,
//! `--keep-going`, `--no-compile` (and PROJECT `crd.compile: false`), and the compiled fallback on a binary-only
//! crate that mixes a static and a compiled version of one kind.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::e2e::{corpus_build_env, corpus_target};
use crate::support::{init, ks, snapshot};

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

const HEAD: &str = "use kube::CustomResource;\nuse schemars::JsonSchema;\nuse serde::{Deserialize, Serialize};\n";

/// Two kinds with problems (one also needing compiling) and one without.
fn problem_crate() -> String {
    format!(
        r#"{HEAD}
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "p.example.org", version = "v1", kind = "Pair")]
pub struct PairSpec {{
    pub pair: (u8, u8),
}}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "p.example.org", version = "v1", kind = "Good")]
pub struct GoodSpec {{
    pub name: String,
}}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "p.example.org", version = "v1", kind = "Keyed")]
pub struct KeyedSpec {{
    pub keyed: std::collections::BTreeMap<u32, String>,
}}

/// kube-derive turns this into a schema the API server rejects as non-structural.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[serde(untagged)]
pub enum Amount {{
    Text(String),
    Number(i64),
}}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "p.example.org", version = "v1", kind = "Scalar")]
pub struct ScalarSpec {{
    pub amount: Amount,
}}
"#
    )
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn every_problem_is_reported_and_nothing_is_written_without_keep_going() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("src/lib.rs", &problem_crate())]);
    let before = snapshot(dir.path());
    let out = ks(dir.path()).args(["make", "manifests", "--crd-dir", "crds"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("4 problems:"), "{err}");
    assert!(err.contains("src/lib.rs:8:15: tuple type"), "{err}");
    assert!(err.contains("untagged enum `Amount` with non-struct variant `Text`"), "{err}");
    assert!(err.contains("src/lib.rs:20:43: map key type `u32`"), "{err}");
    assert!(err.contains("--keep-going"), "{err}");
    assert_eq!(snapshot(dir.path()), before, "a failed run writes nothing");

    // --dry-run shows what the kinds without problems would give, and fails.
    let out = ks(dir.path()).args(["make", "manifests", "--crd-dir", "crds", "--dry-run"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.contains("crds/p.example.org_goods.yaml"), "{printed}");
    assert!(!printed.contains("pairs"), "{printed}");
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn keep_going_writes_every_kind_without_a_problem_and_keeps_the_others_files() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("src/lib.rs", &problem_crate())]);
    // An older Pair CRD must survive: the kind failed, its file is not stale.
    let old_pair = "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: pairs.p.example.org\n";
    write(dir.path(), &[("crds/p.example.org_pairs.yaml", old_pair)]);
    let out = ks(dir.path()).args(["make", "manifests", "--crd-dir", "crds", "--keep-going"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("4 problems:"));
    assert!(!dir.path().join("crds/p.example.org_scalars.yaml").exists(), "a non-structural kind stays an error");
    let good: Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(dir.path().join("crds/p.example.org_goods.yaml")).unwrap())
            .unwrap();
    assert_eq!(good["spec"]["names"]["kind"], "Good");
    assert_eq!(std::fs::read_to_string(dir.path().join("crds/p.example.org_pairs.yaml")).unwrap(), old_pair);
    assert!(!dir.path().join("crds/p.example.org_keyeds.yaml").exists());
}

/// Two constructs only compiling can resolve, in two kinds.
fn compile_crate() -> String {
    format!(
        r#"{HEAD}
fn spread(_: &mut schemars::SchemaGenerator) -> schemars::Schema {{
    let mut s = schemars::json_schema!({{"type": "object"}});
    for k in ["a", "b"] {{
        s.insert(k.into(), true.into());
    }}
    s
}}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "c.example.org", version = "v1", kind = "Spread")]
pub struct SpreadSpec {{
    #[schemars(schema_with = "spread")]
    pub values: std::collections::BTreeMap<String, String>,
}}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kube(group = "c.example.org", version = "v1", kind = "Manual", schema = "manual")]
pub struct ManualSpec {{
    pub name: String,
}}

impl schemars::JsonSchema for Manual {{
    fn schema_name() -> std::borrow::Cow<'static, str> {{
        helper_name()
    }}
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {{
        make_schema(g)
    }}
}}
"#
    )
}

#[test]
fn no_compile_lists_every_construct_that_needs_compiling_in_one_run() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("src/lib.rs", &compile_crate())]);
    let before = snapshot(dir.path());
    let out = ks(dir.path()).args(["make", "manifests", "--crd-dir", "crds", "--no-compile"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("2 kind(s) need compiling for their schema, which --no-compile"), "{err}");
    assert!(err.contains("manuals.c.example.org v1: src/lib.rs:31:9: `impl JsonSchema for Manual` needs compiling: a call of `make_schema`"), "{err}");
    assert!(err.contains("spreads.c.example.org v1: src/lib.rs:7:5: `#[schemars(schema_with = \"spread\")]` on field `values` needs compiling: a `for` loop"), "{err}");
    assert_eq!(snapshot(dir.path()), before);
    // --check refuses the same way, writing nothing.
    let out =
        ks(dir.path()).args(["make", "manifests", "--crd-dir", "crds", "--no-compile", "--check"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("need compiling"));
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn project_setting_turns_the_fallback_off() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "spread-operator", &[]);
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    let project = project.replace("    k8sVersion:", "    crd:\n      compile: false\n    k8sVersion:");
    assert!(project.contains("compile: false"), "{project}");
    std::fs::write(dir.join("PROJECT"), project).unwrap();
    write(&dir, &[("src/api.rs", &compile_crate())]);
    let out = ks(&dir).args(["make", "manifests"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("`crd: {compile: false}` in PROJECT"), "{}", stderr(&out));
}

/// The fixture crate in a temp folder, with the corpus' lock file (same dependencies) as its own.
fn bin_only_fixture(parent: &Path) -> PathBuf {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fallback-bin");
    let dir = parent.join("gadget-operator");
    for rel in ["Cargo.toml", "src/main.rs", "src/kinds.rs", "src/kinds/v1.rs", "src/kinds/v2.rs"] {
        write(&dir, &[(rel, &std::fs::read_to_string(fixture.join(rel)).unwrap())]);
    }
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/kube-derive/input-Cargo.lock");
    let lock = std::fs::read_to_string(lock).unwrap().replace("name = \"scratch\"", "name = \"gadget-operator\"");
    write(&dir, &[("Cargo.lock", &lock)]);
    dir
}

#[test]
fn fallback_compiles_a_binary_only_crate_mixing_static_and_compiled_versions() {
    if std::env::var_os("KUBESMITH_SKIP_E2E").is_some() {
        eprintln!("KUBESMITH_SKIP_E2E is set: skipping the compiled fallback on a binary-only crate");
        return;
    }
    let parent = tempfile::tempdir().unwrap();
    let dir = bin_only_fixture(parent.path());
    let sources = snapshot(&dir.join("src"));
    let out = ks(&dir)
        .args(["make", "manifests", "--crd-dir", "crds"])
        .envs(corpus_build_env())
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", stderr(&out));
    assert!(stdout.contains("note: compiled Gadget (gadgets.hw.example.net) v2 for its schema:"), "{stdout}");
    assert!(
        stdout.contains(
            "src/kinds/v2.rs:9:5: `#[schemars(schema_with = \"port_names_schema\")]` on field `ports` needs \
             compiling: a `for` loop"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("the compiled fallback (1 kind(s)"), "{stdout}");
    assert_eq!(snapshot(&dir.join("src")), sources, "the fallback never writes into the sources");
    assert!(corpus_target().join("kubesmith/crdgen-gadget-operator/src/main.rs").is_file());

    let read = |f: &str| -> Value {
        serde_yaml_ng::from_str(&std::fs::read_to_string(dir.join("crds").join(f)).unwrap()).unwrap()
    };
    let gadget = read("hw.example.net_gadgets.yaml");
    let versions = gadget["spec"]["versions"].as_array().unwrap();
    let names: Vec<(&str, bool)> =
        versions.iter().map(|v| (v["name"].as_str().unwrap(), v["storage"].as_bool().unwrap())).collect();
    assert_eq!(names, [("v1", true), ("v2", false)], "merged like merge_crds: storage first");
    let ports = |v: &Value| v.pointer("/schema/openAPIV3Schema/properties/spec/properties/ports").cloned().unwrap();
    assert_eq!(
        ports(&versions[1]),
        json!({"type": "object", "description": "Port numbers by well-known name.", "properties": {
            "http": {"type": "integer", "minimum": 1.0, "maximum": 65535.0},
            "https": {"type": "integer", "minimum": 1.0, "maximum": 65535.0},
            "metrics": {"type": "integer", "minimum": 1.0, "maximum": 65535.0}}}),
        "the compiled version's schema is what port_names_schema builds, with the field's doc"
    );
    assert_eq!(
        ports(&versions[0]),
        json!({"type": "object", "description": "Port numbers by name.",
            "additionalProperties": {"type": "integer", "format": "uint16", "minimum": 0.0, "maximum": 65535.0}}),
        "the static version is unchanged"
    );
    assert_eq!(read("hw.example.net_widgets.yaml")["spec"]["names"]["kind"], "Widget");

    // Up to date, warm: --check compiles again and agrees; --no-compile --check refuses.
    let out = ks(&dir)
        .args(["make", "manifests", "--crd-dir", "crds", "--check"])
        .envs(corpus_build_env())
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let out = ks(&dir).args(["make", "manifests", "--crd-dir", "crds", "--check", "--no-compile"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

/// The fixture of kinds the static reader cannot resolve (`tests/fixtures/fallback-unresolved`), with the corpus'
/// lock file as its own.
fn unresolved_fixture(parent: &Path) -> PathBuf {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fallback-unresolved");
    let dir = parent.join("archive-operator");
    for rel in ["Cargo.toml", "src/lib.rs"] {
        write(&dir, &[(rel, &std::fs::read_to_string(fixture.join(rel)).unwrap())]);
    }
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/kube-derive/input-Cargo.lock");
    let lock = std::fs::read_to_string(lock).unwrap().replace("name = \"scratch\"", "name = \"archive-operator\"");
    write(&dir, &[("Cargo.lock", &lock)]);
    dir
}

/// Why `Archive` needs compiling, each at its place in the fixture.
const UNRESOLVED: [&str; 3] = [
    "src/lib.rs:28:17: type `self::storage::BucketCrd` needs compiling: `BucketCrd` is the kind type \
     #[derive(CustomResource)] generates from `crate::storage::BucketSpec`",
    "src/lib.rs:29:16: type `std::time::SystemTime` needs compiling: kubesmith has no schema for \
     `std::time::SystemTime`",
    "src/lib.rs:30:16: `#[validate(regex(path = ..))]` on field `port` needs compiling: schemars takes the pattern \
     from `*PORT_RE` at run time and `PORT_RE` is built at run time (`.unwrap_or_else(..)`)",
];

#[test]
fn no_compile_refuses_what_the_static_reader_cannot_resolve_naming_why() {
    let parent = tempfile::tempdir().unwrap();
    let dir = unresolved_fixture(parent.path());
    let before = snapshot(&dir);
    let out = ks(&dir).args(["make", "manifests", "--crd-dir", "crds", "--no-compile"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("1 kind(s) need compiling for their schema, which --no-compile"), "{err}");
    for why in UNRESOLVED {
        assert!(err.contains(&format!("archives.fb.example.net v1: {why}")), "{why}\n{err}");
    }
    assert!(!err.contains("buckets"), "Bucket is read statically: {err}");
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn a_foreign_type_without_its_schemars_feature_needs_compiling() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = "[package]\nname = \"dated\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\n\
                    schemars = { version = \"1\", features = [\"uuid1\"] }\nchrono = \"0.4\"\nuuid = \"1\"\n";
    let lib = format!(
        r#"{HEAD}
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "d.example.org", version = "v1", kind = "Dated")]
pub struct DatedSpec {{
    pub id: uuid::Uuid,
    pub day: chrono::NaiveDate,
}}
"#
    );
    write(dir.path(), &[("Cargo.toml", manifest), ("src/lib.rs", &lib)]);
    let out = ks(dir.path()).args(["make", "manifests", "--crd-dir", "crds", "--no-compile"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(
            "dateds.d.example.org v1: src/lib.rs:9:14: type `chrono::NaiveDate` needs compiling: schemars implements \
             JsonSchema for `chrono::NaiveDate` with its `chrono04` feature, which the crate's Cargo.toml does not \
             turn on"
        ),
        "{err}"
    );
    assert!(!err.contains("uuid::Uuid"), "uuid1 is on: {err}");
    // With the feature, both are read statically.
    write(dir.path(), &[("Cargo.toml", &manifest.replace("[\"uuid1\"]", "[\"uuid1\", \"chrono04\"]"))]);
    ks(dir.path()).args(["make", "manifests", "--crd-dir", "crds", "--no-compile"]).assert().success();
    let crd: Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(dir.path().join("crds/d.example.org_dateds.yaml")).unwrap())
            .unwrap();
    let props = crd.pointer("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties").unwrap();
    assert_eq!(props["day"], json!({"type": "string", "format": "date"}));
    assert_eq!(props["id"], json!({"type": "string", "format": "uuid"}));
}

#[test]
fn fallback_compiles_kinds_the_static_reader_cannot_resolve() {
    if std::env::var_os("KUBESMITH_SKIP_E2E").is_some() {
        eprintln!("KUBESMITH_SKIP_E2E is set: skipping the compiled fallback on unresolved types");
        return;
    }
    let parent = tempfile::tempdir().unwrap();
    let dir = unresolved_fixture(parent.path());
    let run = |extra: &[&str]| {
        ks(&dir)
            .args(["make", "manifests", "--crd-dir", "crds"])
            .args(extra)
            .envs(corpus_build_env())
            .env_remove("RUSTFLAGS")
            .output()
            .unwrap()
    };
    let out = run(&[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", stderr(&out));
    assert!(stdout.contains("note: compiled Archive (archives.fb.example.net) v1 for its schema:"), "{stdout}");
    for why in UNRESOLVED {
        assert!(stdout.contains(why), "{why}\n{stdout}");
    }
    let read = |f: &str| -> Value {
        serde_yaml_ng::from_str(&std::fs::read_to_string(dir.join("crds").join(f)).unwrap()).unwrap()
    };
    let archive = read("fb.example.net_archives.yaml");
    let spec = archive.pointer("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties").unwrap();
    assert_eq!(spec["port"], json!({"type": "string", "pattern": "^\\d{1,5}$"}), "the pattern format! built");
    assert_eq!(
        spec["since"]["properties"]["secs_since_epoch"],
        json!({"type": "integer", "format": "uint64", "minimum": 0.0}),
        "schemars' SystemTime"
    );
    assert_eq!(
        spec["source"]["properties"]["spec"]["properties"]["region"],
        json!({"type": "string"}),
        "the generated kind's own schema"
    );
    // Bucket, read statically, is written beside it.
    let bucket = read("fb.example.net_buckets.yaml");
    assert_eq!(bucket["spec"]["names"]["kind"], "Bucket");
    // Warm: --check compiles again and agrees.
    let started = std::time::Instant::now();
    let out = run(&["--check"]);
    assert!(out.status.success(), "{}", stderr(&out));
    eprintln!("fallback on unresolved types, warm: {:.1}s", started.elapsed().as_secs_f64());
}
