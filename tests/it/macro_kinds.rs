//! Kinds a framework's attribute macro generates (`tests/fixtures/macro-kinds`: a proc-macro crate whose
//! `#[loom::resource(..)]` expands to `#[derive(CustomResource)]` and `#[kube(..)]`, a framework crate with a client
//! wrapper, an operator crate using both beside a plain derive). The static reader cannot see them: `make manifests`
//! and `adopt` send them to the compiled fallback and say so; `--no-compile` refuses them, naming each.

use std::path::{Path, PathBuf};

use crate::adopt::copy_dir;
use crate::e2e::corpus_build_env;
use crate::support::{ks, snapshot};

/// The fixture in a temp folder, locked as the kube-derive corpus is (kube 5.0.0, syn 2), so the compiled fallback
/// shares its dependencies with the other fallback tests.
fn loom(parent: &Path) -> PathBuf {
    loom_as(parent, "loom-operator")
}

/// The fixture with the operator package named `package` (its library keeps the name `loom_operator`): tests that
/// run at once build harnesses of their own (`crdgen-<package>` in the shared target folder).
fn loom_as(parent: &Path, package: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = parent.join("loom");
    copy_dir(&root.join("tests/fixtures/macro-kinds"), &dir);
    let manifest = dir.join("crates/loom-operator/Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let renamed = format!(
        "{}\n[lib]\nname = \"loom_operator\"\n\n[[bin]]\nname = \"loom-operator\"\npath = \"src/main.rs\"\n",
        text.replace("name = \"loom-operator\"", &format!("name = \"{package}\""))
    );
    std::fs::write(&manifest, if package == "loom-operator" { text } else { renamed }).unwrap();
    let lock = std::fs::read_to_string(root.join("tests/conformance/kube-derive/input-Cargo.lock")).unwrap();
    std::fs::write(dir.join("Cargo.lock"), lock.replace("name = \"scratch\"", &format!("name = \"{package}\"")))
        .unwrap();
    dir
}

fn text(out: &std::process::Output) -> (String, String) {
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn yaml(path: &Path) -> serde_json::Value {
    serde_yaml_ng::from_str(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .unwrap()
}

/// Why each macro kind needs compiling, at its macro: two of `#[loom::resource]`, then the versioning macro's on a
/// module and on a struct.
const WHY: [&str; 4] = [
    "crates/loom-operator/src/lib.rs:17:1: `#[loom::resource(..)]` on `FabricSpec` needs compiling: an attribute \
     macro generates the kind's `CustomResource` derive, which kubesmith cannot expand; the compiled fallback takes \
     the CRD from `Weave::crd()`, in the module of `FabricSpec`",
    "crates/loom-operator/src/lib.rs:27:1: `#[loom::resource(..)]` on `ShuttleSpec` needs compiling",
    "crates/loom-operator/src/versioned.rs:11:5: `#[versioned(..)]` on `BobbinSpec` needs compiling: an attribute \
     macro generates the kind's `CustomResource` derive once per version, which kubesmith cannot expand; the compiled \
     fallback merges `v1alpha1::Bobbin::crd()`, `v1::Bobbin::crd()`, from the version modules #[loom::versioned] on \
     `mod bobbins` generates",
    "crates/loom-operator/src/heddle.rs:9:1: `#[loom::versioned(..)]` on `HeddleFrameSpec` needs compiling: an \
     attribute macro generates the kind's `CustomResource` derive once per version, which kubesmith cannot expand; \
     the compiled fallback merges `v1beta1::Heddle::crd()`, `v1::Heddle::crd()`, from the version modules beside \
     `HeddleFrameSpec`",
];

#[test]
fn no_compile_refuses_kinds_attribute_macros_generate_naming_each() {
    let parent = tempfile::tempdir().unwrap();
    let dir = loom(parent.path());
    let before = snapshot(&dir);
    let out = ks(&dir)
        .args(["make", "manifests", "--source", "crates/loom-operator/src", "--crd-dir", "crds", "--no-compile"])
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stderr.contains(
            "4 kind(s) come from attribute macros kubesmith cannot expand, so only compiling gives their CRDs"
        ),
        "{stderr}"
    );
    for why in WHY {
        assert!(stderr.contains(why), "missing {why:?} in:\n{stderr}");
    }
    assert!(!stderr.contains("missing field `group`"), "never read as an incomplete derive: {stderr}");
    assert_eq!(snapshot(&dir), before);
    // --keep-going writes the kind kube's own derive declares, and still fails.
    let out = ks(&dir)
        .args(["make", "manifests", "--source", "crates/loom-operator/src", "--crd-dir", "crds", "--no-compile"])
        .arg("--keep-going")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let written: Vec<String> =
        std::fs::read_dir(dir.join("crds")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
    assert_eq!(written, ["weaving.loom.example.dev_spools.yaml"]);
}

#[test]
fn adopt_and_make_manifests_compile_kinds_attribute_macros_generate() {
    if std::env::var_os("KUBESMITH_SKIP_E2E").is_some() {
        eprintln!("KUBESMITH_SKIP_E2E is set: skipping kinds of attribute macros through the compiled fallback");
        return;
    }
    let parent = tempfile::tempdir().unwrap();
    let dir = loom(parent.path());
    let sources = snapshot(&dir.join("crates"));
    let started = std::time::Instant::now();
    let out = ks(&dir)
        .args(["adopt", "--bin", "loom-operator"])
        .envs(corpus_build_env())
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    eprintln!("adopt with macro kinds: {:.1}s", started.elapsed().as_secs_f64());
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    for line in [
        "note: compiled Weave (weaves.weaving.loom.example.dev) v1, whose CustomResource derive an attribute macro \
         generates:",
        "note: compiled Shuttle (shuttles.weaving.loom.example.dev) v1alpha1, whose CustomResource derive an attribute \
         macro generates:",
        "note: compiled Bobbin (bobbins.weaving.loom.example.dev) v1alpha1, v1, whose CustomResource derive an \
         attribute macro generates (storage version v1alpha1, named by `Bobbin::merged_crd(..)` at \
         crates/loom-operator/src/lib.rs:13):",
        "note: compiled Heddle (heddles.weaving.loom.example.dev) v1, v1beta1, whose CustomResource derive an \
         attribute macro generates (storage version v1, the last declared: no `Heddle::merged_crd(..)` call of the \
         crate names one):",
        WHY[0],
        WHY[1],
        WHY[2],
        WHY[3],
        "adopted 7 kind(s) as the project's own:",
    ] {
        assert!(stdout.contains(line), "missing {line:?} in:\n{stdout}");
    }
    assert_eq!(snapshot(&dir.join("crates")), sources, "adopt never writes sources");

    let project = yaml(&dir.join("PROJECT"));
    let resources = project["resources"].as_array().unwrap();
    let entry =
        |kind: &str| resources.iter().find(|r| r["kind"] == kind).unwrap_or_else(|| panic!("{kind}: {project}"));
    assert_eq!(entry("Weave")["path"], "loom_operator::Weave");
    assert_eq!(entry("Weave")["api"]["namespaced"], true);
    assert_eq!(entry("Shuttle")["version"], "v1alpha1");
    assert!(entry("Shuttle")["api"]["namespaced"] != true, "the macro made Shuttle cluster-scoped");
    assert_eq!(entry("Spool")["path"], "loom_operator::spool::Spool");
    // The CRDs are what the macro's expansion gives, schema and all.
    let weave = yaml(&dir.join("config/crd/bases/weaving.loom.example.dev_weaves.yaml"));
    assert_eq!(weave["spec"]["scope"], "Namespaced");
    let spec = weave.pointer("/spec/versions/0/schema/openAPIV3Schema/properties/spec").unwrap();
    assert_eq!(spec["properties"]["density"]["format"], "uint32", "{spec}");
    assert_eq!(spec["required"], serde_json::json!(["density"]), "{spec}");
    let shuttle = yaml(&dir.join("config/crd/bases/weaving.loom.example.dev_shuttles.yaml"));
    assert_eq!(shuttle["spec"]["scope"], "Cluster");
    assert!(dir.join("config/samples/weaving_v1_weave.yaml").is_file());
    // A versioning macro's kind: one CRD merging the type of each version it generates, the storage version the
    // crate's `merged_crd` call names first, each version's own schema (`colour` from v1 on).
    let bobbin = yaml(&dir.join("config/crd/bases/weaving.loom.example.dev_bobbins.yaml"));
    assert_eq!(bobbin["spec"]["scope"], "Namespaced");
    let versions = bobbin["spec"]["versions"].as_array().unwrap();
    let summary: Vec<(&str, bool, bool)> = versions
        .iter()
        .map(|v| {
            let props = &v["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"];
            assert_eq!(props["capacity"]["format"], "uint32", "{v}");
            (v["name"].as_str().unwrap(), v["storage"] == true, props.get("colour").is_some())
        })
        .collect();
    assert_eq!(summary, [("v1alpha1", true, false), ("v1", false, true)]);
    let heddle = yaml(&dir.join("config/crd/bases/weaving.loom.example.dev_heddles.yaml"));
    assert_eq!(heddle["spec"]["scope"], "Cluster");
    let versions = heddle["spec"]["versions"].as_array().unwrap();
    let summary: Vec<(&str, bool, bool)> = versions
        .iter()
        .map(|v| {
            let props = &v["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"];
            (v["name"].as_str().unwrap(), v["storage"] == true, props.get("shaft").is_some())
        })
        .collect();
    assert_eq!(summary, [("v1", true, true), ("v1beta1", false, false)]);
    // PROJECT records each version with the path of its own type.
    let bobbins: Vec<(&str, &str)> = resources
        .iter()
        .filter(|r| r["kind"] == "Bobbin")
        .map(|r| (r["version"].as_str().unwrap(), r["path"].as_str().unwrap()))
        .collect();
    assert_eq!(
        bobbins,
        [("v1alpha1", "loom_operator::versioned::v1alpha1::Bobbin"), ("v1", "loom_operator::versioned::v1::Bobbin")]
    );
    assert_eq!(entry("Heddle")["path"], "loom_operator::heddle::v1::Heddle");
    // The binary reads Weaves through the framework's client: the role grants it, the type known from its CRD.
    let role = std::fs::read_to_string(dir.join("config/rbac/role.yaml")).unwrap();
    assert!(role.contains("- weaving.loom.example.dev\n  resources:\n  - weaves\n  verbs:\n  - get"), "{role}");
    assert!(!stdout.contains("Weave is neither"), "{stdout}");

    let rendered =
        std::process::Command::new("kubectl").args(["kustomize", "config/default"]).current_dir(&dir).output().unwrap();
    assert!(rendered.status.success(), "{:?}", text(&rendered));
    let rendered = String::from_utf8(rendered.stdout).unwrap();
    for name in ["weaves", "shuttles", "spools", "bobbins", "heddles"] {
        assert!(rendered.contains(&format!("name: {name}.weaving.loom.example.dev")), "{name}:\n{rendered}");
    }

    // make manifests, warm, finds the project as adopt left it; without compiling it refuses the macro kinds.
    let out = ks(&dir).args(["make", "manifests"]).envs(corpus_build_env()).env_remove("RUSTFLAGS").output().unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("note: compiled Weave (weaves.weaving.loom.example.dev) v1"), "{stdout}");
    assert!(stdout.contains("everything is up to date"), "{stdout}");
    // make manifests writes a versioning macro's merged CRD as adopt did.
    let bobbins = dir.join("config/crd/bases/weaving.loom.example.dev_bobbins.yaml");
    let adopted = std::fs::read_to_string(&bobbins).unwrap();
    std::fs::remove_file(&bobbins).unwrap();
    let out = ks(&dir).args(["make", "manifests"]).envs(corpus_build_env()).env_remove("RUSTFLAGS").output().unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("create    config/crd/bases/weaving.loom.example.dev_bobbins.yaml"), "{stdout}");
    assert!(stdout.contains("note: compiled Bobbin (bobbins.weaving.loom.example.dev) v1alpha1, v1"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&bobbins).unwrap(), adopted);
    let before = snapshot(&dir);
    let out = ks(&dir).args(["make", "manifests", "--no-compile"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).1.contains(WHY[0]), "{:?}", text(&out));
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn a_macro_kind_that_does_not_build_stops_adopt_unless_keep_going() {
    if std::env::var_os("KUBESMITH_SKIP_E2E").is_some() {
        eprintln!("KUBESMITH_SKIP_E2E is set: skipping a macro kind whose harness does not build");
        return;
    }
    let parent = tempfile::tempdir().unwrap();
    let dir = loom_as(parent.path(), "loom-operator-broken");
    // The macro names this kind after the struct itself: kube-derive's root type clashes with it.
    let lib = dir.join("crates/loom-operator/src/lib.rs");
    let mut source = std::fs::read_to_string(&lib).unwrap();
    source.push_str(
        "\n/// A loom; the macro would name the kind `Loom` too.\n#[loom::resource(group = \
         \"weaving.loom.example.dev\")]\npub struct Loom {\n    pub width: u32,\n}\n",
    );
    std::fs::write(&lib, source).unwrap();
    let before = snapshot(&dir);
    let adopt = |extra: &[&str]| {
        ks(&dir).arg("adopt").args(extra).envs(corpus_build_env()).env_remove("RUSTFLAGS").output().unwrap()
    };
    let out = adopt(&[]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stderr.contains(
            "adopt wrote nothing: the compiled fallback cannot name the kinds attribute macros generate in \
             crates/loom-operator/src: Heddle (#[loom::versioned] on `HeddleFrameSpec`), Bobbin (#[versioned] on \
             `BobbinSpec`), Weave (#[loom::resource] on `FabricSpec`), Shuttle (#[loom::resource] on `ShuttleSpec`), \
             Loom (#[loom::resource] on `Loom`); fix the build, or pass --keep-going"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("building the compiled fallback's harness failed"), "{stderr}");
    assert_eq!(snapshot(&dir), before, "a refused adopt leaves the tree as it was");

    let out = adopt(&["--keep-going"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.contains("warning: --keep-going left out Heddle (#[loom::versioned] on `HeddleFrameSpec`), Bobbin"),
        "{stdout}"
    );
    assert_eq!(stdout.matches("must not equal the struct name").count(), 1, "cargo's errors once: {stdout}");
    assert!(stdout.contains("adopted 1 kind(s) as the project's own: Spool"), "{stdout}");
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    assert!(project.contains("kind: Spool") && !project.contains("Weave"), "{project}");
    let rendered =
        std::process::Command::new("kubectl").args(["kustomize", "config/default"]).current_dir(&dir).output().unwrap();
    assert!(rendered.status.success(), "{:?}", text(&rendered));

    // A CRD file of a macro kind is never stale while its build fails: which CRDs the macro makes is unknown.
    let weaves = "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: \
                  weaves.weaving.loom.example.dev\n";
    std::fs::write(dir.join("config/crd/bases/weaving.loom.example.dev_weaves.yaml"), weaves).unwrap();
    let out = ks(&dir)
        .args(["make", "manifests", "--keep-going"])
        .envs(corpus_build_env())
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));
    assert!(
        text(&out).1.contains("the compiled fallback for Heddle (#[loom::versioned]), Bobbin (#[versioned]), Weave"),
        "{:?}",
        text(&out)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("config/crd/bases/weaving.loom.example.dev_weaves.yaml")).unwrap(),
        weaves
    );
}
