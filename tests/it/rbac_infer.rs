//! `kubesmith rbac infer` on a workspace fixture of its own (`tests/fixtures/rbac-infer/orchard`), and the RBAC
//! drift check `make manifests` runs on a scaffold.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::support::{create_api, init, ks, read};

pub(crate) fn orchard() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rbac-infer/orchard")
}

const SOURCES: [&str; 4] = ["--source", "crates/orchard-types/src", "--source", "crates/orchard-controller/src"];

/// `(group, resource, verb)` of every rule of the ClusterRole YAML `text`.
pub(crate) fn triples(text: &str) -> BTreeSet<(String, String, String)> {
    let doc: serde_yaml_ng::Value = serde_yaml_ng::from_str(text).expect("the role is YAML");
    assert_eq!(doc["kind"], "ClusterRole");
    assert_eq!(doc["metadata"]["name"], "manager-role");
    let mut out = BTreeSet::new();
    let strings = |v: &serde_yaml_ng::Value| -> Vec<String> {
        v.as_sequence().into_iter().flatten().map(|s| s.as_str().expect("a string").to_string()).collect()
    };
    for rule in doc["rules"].as_sequence().expect("rules") {
        for g in strings(&rule["apiGroups"]) {
            for r in strings(&rule["resources"]) {
                for v in strings(&rule["verbs"]) {
                    out.insert((g.clone(), r.clone(), v));
                }
            }
        }
    }
    out
}

pub(crate) fn set(items: &[(&str, &str, &str)]) -> BTreeSet<(String, String, String)> {
    items.iter().map(|(g, r, v)| (g.to_string(), r.to_string(), v.to_string())).collect()
}

/// What `orchard-controller`'s main reaches, worked out by hand from the fixture's sources.
pub(crate) const CONTROLLER: &[(&str, &str, &str)] = &[
    // Controller::new(Api<Tree>) lists and watches; the finalizer patches; status is merge-patched.
    ("grove.example.net", "trees", "list"),
    ("grove.example.net", "trees", "watch"),
    ("grove.example.net", "trees", "patch"),
    ("grove.example.net", "trees/status", "patch"),
    // controller_owner_ref sets blockOwnerDeletion on the Deployment's owner reference.
    ("grove.example.net", "trees/finalizers", "update"),
    // The cluster-scoped Plot (plural set by #[kube(plural)]) is read; only the report binary lists them.
    ("land.example.net", "plotlands", "get"),
    // .owns(Api<Deployment>) and the Deployment's server-side apply (which may create it).
    ("apps", "deployments", "list"),
    ("apps", "deployments", "watch"),
    ("apps", "deployments", "patch"),
    ("apps", "deployments", "create"),
    // The ConfigMap goes through the generic `upsert<K>` (server-side apply).
    ("", "configmaps", "patch"),
    ("", "configmaps", "create"),
    // The Secret is read through the `Vault` trait's only implementation.
    ("", "secrets", "get"),
    // Cleanup lists the pickers' pods and evicts them.
    ("", "pods", "list"),
    ("", "pods/eviction", "create"),
    // kube's Recorder creates events and patches repeated ones.
    ("events.k8s.io", "events", "create"),
    ("events.k8s.io", "events", "patch"),
    // Leader election: get_opt, create, replace.
    ("coordination.k8s.io", "leases", "get"),
    ("coordination.k8s.io", "leases", "create"),
    ("coordination.k8s.io", "leases", "update"),
];

#[test]
fn rbac_infer_gives_exactly_what_the_controller_binary_reaches() {
    let out =
        ks(&orchard()).args(["rbac", "infer"]).args(SOURCES).args(["--bin", "orchard-controller"]).assert().success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert_eq!(triples(&stdout), set(CONTROLLER), "{stdout}");
    // The one DynamicObject with a run-time ApiResource: a warning at its call, with the rule to add by hand.
    assert_eq!(
        stderr.trim_end(),
        "warning: crates/orchard-controller/src/reconciler.rs:95: delete on an Api<DynamicObject> whose ApiResource is \
         only known at run time: add the rule by hand (// +kubebuilder:rbac:groups=<group>,resources=<resource>,verbs=delete)"
    );
    // Rules come out merged and sorted like controller-gen's: the core group first, resources grouped by verbs.
    assert!(stdout.starts_with("---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\n"), "{stdout}");
    assert!(
        stdout.contains("- apiGroups:\n  - \"\"\n  resources:\n  - configmaps\n  verbs:\n  - create\n  - patch\n"),
        "{stdout}"
    );
}

#[test]
fn rbac_infer_without_bin_starts_from_every_binary() {
    let out = ks(&orchard()).args(["rbac", "infer"]).args(SOURCES).assert().success();
    let mut want = set(CONTROLLER);
    want.insert(("land.example.net".into(), "plotlands".into(), "list".into()));
    assert_eq!(triples(&String::from_utf8(out.get_output().stdout.clone()).unwrap()), want);
    // At the root of a workspace with no `src/`, no --source means every member's source folders.
    let out = ks(&orchard()).args(["rbac", "infer"]).assert().success();
    assert_eq!(triples(&String::from_utf8(out.get_output().stdout.clone()).unwrap()), want);
    // The library alone starts from its public fns: the admin helper the binaries never call counts then.
    let lib = ks(&orchard()).args(["rbac", "infer", "--source", "crates/orchard-types/src"]).assert().success();
    let lib = triples(&String::from_utf8(lib.get_output().stdout.clone()).unwrap());
    assert_eq!(lib, set(&[("land.example.net", "plotlands", "delete")]));
}

#[test]
fn rbac_infer_explain_names_every_call_site() {
    let out = ks(&orchard())
        .args(["rbac", "infer", "--explain", "--bin", "orchard-controller"])
        .args(SOURCES)
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    for line in [
        "rule: apiGroups=\"\" resources=configmaps verbs=create,patch",
        "  create configmaps (core): crates/orchard-controller/src/upsert.rs:10 Api<ConfigMap>::patch (server-side apply)",
        "  get secrets (core): crates/orchard-controller/src/clients.rs:18 Api<Secret>::get",
        "  list trees (grove.example.net): crates/orchard-controller/src/main.rs:21 Controller::new(Api<Tree>)",
        "  patch trees (grove.example.net): crates/orchard-controller/src/reconciler.rs:44 finalizer(Api<Tree>)",
        "  create pods/eviction (core): crates/orchard-controller/src/reconciler.rs:90 Api<Pod>::evict",
        "  update leases (coordination.k8s.io): crates/orchard-controller/src/lease.rs:19 Api<Lease>::replace",
    ] {
        assert!(text.lines().any(|l| l == line), "--explain lacks `{line}`:\n{text}");
    }
}

#[test]
fn rbac_infer_bad_inputs() {
    // An unknown --bin is a usage error naming the binaries.
    let out = ks(&orchard()).args(["rbac", "infer", "--bin", "orchard"]).args(SOURCES).assert().code(2);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("binaries: orchard-controller, orchard-report"), "{err}");
    // A missing source folder is a usage error too.
    ks(&orchard()).args(["rbac", "infer", "--source", "nowhere"]).assert().code(2);
    // A file that does not parse fails with its place.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("src")).unwrap();
    std::fs::write(tmp.path().join("src/main.rs"), "mod broken;\nfn main() {}\n").unwrap();
    std::fs::write(tmp.path().join("src/broken.rs"), "fn half( {\n").unwrap();
    let out = ks(tmp.path()).args(["rbac", "infer"]).assert().code(1);
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("src/broken.rs:1:"), "{err}");
}

#[test]
fn make_manifests_warns_about_calls_no_marker_grants() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = init(tmp.path(), "shop-operator", &[]);
    create_api(&dir, &["--group", "retail", "--version", "v1", "--kind", "Store"]);
    create_api(&dir, &["--group", "retail", "--version", "v1", "--kind", "Region", "--namespaced=false"]);
    ks(&dir)
        .args(["create", "webhook", "--group", "retail", "--version", "v1", "--kind", "Store"])
        .args(["--defaulting", "--programmatic-validation"])
        .assert()
        .success();
    // A fresh scaffold is drift-free: no warning, no note, and --check passes.
    let out = ks(&dir).args(["make", "manifests"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(!text.contains("warning:") && !text.contains("RBAC marker"), "{text}");
    ks(&dir).args(["make", "manifests", "--check"]).assert().success();

    // Drop the status marker: the status patch is now a call no marker grants.
    let controller = dir.join("src/controller/store.rs");
    let marker = "// +kubebuilder:rbac:groups=retail.example.com,resources=stores/status,verbs=patch\n";
    let text = read(&controller);
    assert!(text.contains(marker), "{text}");
    std::fs::write(&controller, text.replace(marker, "")).unwrap();
    // And grant something no code uses.
    let text = read(&controller);
    std::fs::write(&controller, format!("// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=delete\n{text}"))
        .unwrap();

    let out = ks(&dir).args(["make", "manifests", "--check"]).assert().code(1);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    // The call is in the status helper of kubesmith-runtime (the vendored copy); the warning names the kind's type.
    let shared = "vendor/kubesmith-runtime/src/controller.rs";
    let line = read(&dir.join(shared)).lines().position(|l| l.contains(".patch_status(")).unwrap() + 1;
    let want = format!(
        "warning: {shared}:{line}: Api<Store>::patch_status needs patch on stores/status (retail.example.com), \
         which no RBAC marker grants; add:\n  // +kubebuilder:rbac:groups=retail.example.com,resources=stores/status,verbs=patch"
    );
    assert!(stderr.contains(&want), "want:\n{want}\ngot:\n{stderr}");
    assert!(stderr.contains("no RBAC marker grants"), "{stderr}");

    let out = ks(&dir).args(["make", "manifests"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains(&want), "{text}");
    assert!(
        text.contains(
            "note: src/controller/store.rs:1: this RBAC marker grants delete on deployments that no code reachable from main uses"
        ),
        "{text}"
    );
}

/// A name that leads back to itself through a glob re-export (`lib.rs`: `mod a; pub use a::*;`, `a.rs`: `use
/// crate::X;` with no `X` anywhere) once overflowed the stack of `rbac infer` and `make manifests`: resolution must
/// end on any cycle, and a name it cannot resolve is no call to infer.
#[test]
fn a_glob_reexport_cycle_ends_resolution() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"globcyc\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
        .unwrap();
    std::fs::write(root.join("src/lib.rs"), "mod a;\npub use a::*;\n").unwrap();
    std::fs::write(root.join("src/a.rs"), "use crate::X;\npub fn f() -> X {\n    X::new()\n}\n").unwrap();
    std::fs::write(root.join("src/main.rs"), "fn main() {\n    globcyc::f();\n}\n").unwrap();
    let out = ks(root).args(["rbac", "infer"]).assert().success().get_output().stdout.clone();
    let yaml = String::from_utf8(out).unwrap();
    assert!(yaml.contains("rules: []"), "no call reaches the API:\n{yaml}");
    ks(root).args(["make", "manifests", "--source", "src", "--rbac-dir", "out"]).assert().success();
    assert!(root.join("out/role.yaml").is_file());
}

fn forge() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rbac-infer/forge")
}

/// What `forge-operator`'s main reaches, worked out by hand from the fixture's sources: every kind comes from the
/// `forge-types` crate or from k8s-openapi named through `forge-kit`'s re-exports.
const FORGE_OPERATOR: &[(&str, &str, &str)] = &[
    // Controller::new(Api<Furnace>): a #[derive(CustomResource)] of the types crate (its plural set by #[kube]).
    ("forge.example.io", "furnaces", "list"),
    ("forge.example.io", "furnaces", "watch"),
    // .owns(Api<Deployment>) with `use forge_kit::k8s::apps::v1::Deployment` (`pub use k8s_openapi::api as k8s`).
    ("apps", "deployments", "list"),
    ("apps", "deployments", "watch"),
    // Api<Job> through `use forge_kit::batch::*`, itself `pub use k8s_openapi::api::batch::v1::*`.
    ("batch", "jobs", "create"),
    // Api<crate::k8s::core::ConfigMap> and `use crate::k8s::core::Secret`: the operator's own module re-exports
    // `forge_kit::k8s_openapi::api::core::v1 as core`.
    ("", "configmaps", "get"),
    ("", "secrets", "get"),
    // Ingot's hand-written `impl kube::Resource`: group and version from consts of `names`, kind and plural from
    // associated consts; listed, and its status merge-patched.
    ("metal.forge.example.io", "ingots", "list"),
    ("metal.forge.example.io", "ingots/status", "patch"),
    // Crucible's `impl k8s_openapi::Resource` (kube implements its own trait for it): URL_PATH_SEGMENT is the plural.
    ("metal.forge.example.io", "crucibles", "delete"),
];

/// The molds binary's one call: Mold's resource impl reads its names from its `ApiResource` at run time.
const MOLD_WARNING: &str = "warning: crates/forge-operator/src/bin/forge-molds.rs:9: list on Api<Mold>: the group of \
    `impl kube::Resource for Mold` cannot be read without running the code (its DynamicType is `ApiResource`: the \
    value may come from it at run time): make `fn group` give a string literal or a const holding one (mold.rs:18), or \
    add the rule by hand (// +kubebuilder:rbac:groups=<group>,resources=<resource>,verbs=list)";

#[test]
fn rbac_infer_reads_kinds_of_a_types_crate_and_k8s_openapi_re_exported() {
    let sources = [
        "--source",
        "crates/forge-kit/src",
        "--source",
        "crates/forge-types/src",
        "--source",
        "crates/forge-operator/src",
    ];
    let out = ks(&forge()).args(["rbac", "infer", "--bin", "forge-operator"]).args(sources).assert().success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert_eq!(triples(&stdout), set(FORGE_OPERATOR), "{stdout}");
    assert_eq!(stderr, "", "the operator's every call resolves");

    // Every binary of the workspace (no --source): the molds binary adds no rule, and a warning at its call that
    // names the fn the group cannot be read from.
    let out = ks(&forge()).args(["rbac", "infer"]).assert().success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert_eq!(triples(&stdout), set(FORGE_OPERATOR), "{stdout}");
    assert_eq!(stderr.trim_end(), MOLD_WARNING);
}
