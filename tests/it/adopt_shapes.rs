//! `kubesmith adopt` on shapes real operators have, each a fixture of its own under `tests/fixtures/adopt/`: an
//! operator with no kinds of its own whose binary is declared at a non-standard path (`lookout`: a reflector over
//! Deployments, `[[bin]] path = "lookout.rs"`), and a kind whose versions the crate's own function combines
//! (`ledger`), adopted by naming its storage version instead of editing the sources; neither compiles anything. A
//! workspace whose framework is a git dependency it patches to a folder of its own (`forge`) goes through the
//! compiled fallback, whose harness builds the patched folder offline.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::adopt::copy_dir;
use crate::e2e::{corpus_build_env, corpus_target};
use crate::support::{ks, snapshot};

fn fixture(parent: &Path, name: &str) -> PathBuf {
    let dir = parent.join(name);
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/adopt").join(name), &dir);
    dir
}

fn text(out: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn renders(dir: &Path) {
    let rendered =
        std::process::Command::new("kubectl").args(["kustomize", "config/default"]).current_dir(dir).output().unwrap();
    assert!(rendered.status.success(), "{}", text(&rendered));
}

/// `config/default` renders, and every file of `before` (the tree before adopt) is still as it was.
fn renders_keeping(dir: &Path, before: &BTreeMap<PathBuf, Vec<u8>>) {
    renders(dir);
    let after = snapshot(dir);
    for (path, bytes) in before {
        assert_eq!(after.get(path), Some(bytes), "adopt changed {}", path.display());
    }
}

#[test]
fn rbac_infer_reads_a_binary_declared_at_a_non_standard_path() {
    let parent = tempfile::tempdir().unwrap();
    let dir = fixture(parent.path(), "lookout");
    let out = ks(&dir).args(["rbac", "infer", "--offline"]).output().unwrap();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    let role = String::from_utf8_lossy(&out.stdout);
    assert!(role.contains("deployments") && role.contains("watch"), "{role}");
}

#[test]
fn an_operator_without_kinds_is_adopted_with_its_built_in_kinds_as_core_resources() {
    let parent = tempfile::tempdir().unwrap();
    let dir = fixture(parent.path(), "lookout");
    let before = snapshot(&dir);
    let out = ks(&dir).args(["adopt", "--offline"]).output().unwrap();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("Deployment (apps/v1): watcher at lookout.rs:"), "{said}");
    let project: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(dir.join("PROJECT")).unwrap()).unwrap();
    let resources = project["resources"].as_sequence().unwrap();
    assert_eq!(resources.len(), 1, "{resources:?}");
    let r = &resources[0];
    assert_eq!((r["core"].as_bool(), r["controller"].as_bool()), (Some(true), Some(true)), "{r:?}");
    assert_eq!((&r["group"], &r["version"], &r["kind"]), (&"apps".into(), &"v1".into(), &"Deployment".into()));
    assert_eq!(r["path"], "k8s_openapi::api::apps::v1");
    let settings = &project["plugins"]["rust.kubesmith.io/v1alpha1"];
    assert_eq!(settings["sources"][0], ".");
    assert_eq!(settings["rbac"]["bin"], "lookout");
    let role = std::fs::read_to_string(dir.join("config/rbac/role.yaml")).unwrap();
    assert!(role.contains("deployments") && role.contains("watch"), "{role}");
    assert!(!dir.join("config/samples").join("apps_v1_deployment.yaml").exists(), "no sample of a built-in kind");
    renders_keeping(&dir, &before);
    // `make manifests` keeps it as it is.
    let out = ks(&dir).args(["make", "manifests", "--check", "--offline"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn a_kind_whose_versions_the_crate_combines_is_adopted_with_a_storage_version_flag() {
    let parent = tempfile::tempdir().unwrap();
    let dir = fixture(parent.path(), "ledger");
    let before = snapshot(&dir);
    let out = ks(&dir).args(["adopt", "--offline"]).output().unwrap();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("has 2 storage versions"), "{said}");
    assert!(said.contains("kubesmith adopt --storage-version Entry=<version>"), "the way that edits no source: {said}");
    assert_eq!(snapshot(&dir), before, "a refused adopt leaves the tree as it was");

    let out = ks(&dir).args(["adopt", "--offline", "--storage-version", "Entry=v3"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("Entry has no version `v3` (it has v1, v2)"), "{}", text(&out));
    assert_eq!(snapshot(&dir), before);

    let out = ks(&dir).args(["adopt", "--offline", "--storage-version", "Entry=v2"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    assert!(project.contains("storageVersions:\n      Entry.ledger.example.org: v2"), "{project}");
    let crd = kubesmith::yaml::from_str(
        &std::fs::read_to_string(dir.join("config/crd/bases/ledger.example.org_entries.yaml")).unwrap(),
    )
    .unwrap();
    let storage: Vec<(&str, bool)> = crd["spec"]["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["name"].as_str().unwrap(), v["storage"].as_bool().unwrap()))
        .collect();
    assert!(storage.contains(&("v2", true)) && storage.contains(&("v1", false)), "{storage:?}");
    renders_keeping(&dir, &before);
    // `make manifests` reads the choice back from PROJECT.
    let out = ks(&dir).args(["make", "manifests", "--check", "--offline"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn the_storage_version_of_such_a_kind_is_the_one_of_the_crd_the_repository_ships() {
    let parent = tempfile::tempdir().unwrap();
    let dir = fixture(parent.path(), "ledger");
    std::fs::create_dir_all(dir.join("deploy")).unwrap();
    let version = |name: &str, storage: bool| {
        format!(
            "  - name: {name}\n    served: true\n    storage: {storage}\n    schema:\n      openAPIV3Schema:\n        \
             type: object\n        x-kubernetes-preserve-unknown-fields: true\n"
        )
    };
    let shipped = format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: \
         entries.ledger.example.org\nspec:\n  group: ledger.example.org\n  names:\n    kind: Entry\n    plural: \
         entries\n    singular: entry\n    listKind: EntryList\n  scope: Namespaced\n  versions:\n{}{}",
        version("v2", true),
        version("v1", false)
    );
    std::fs::write(dir.join("deploy/crd.yaml"), shipped).unwrap();
    let out = ks(&dir).args(["adopt", "--offline"]).output().unwrap();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("v2 is stored, as the CRD deploy/crd.yaml ships says"), "{said}");
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    assert!(project.contains("Entry.ledger.example.org: v2"), "{project}");
    renders(&dir);
}

#[test]
fn the_compiled_fallback_builds_a_git_dependency_the_workspace_patches_to_a_folder_offline() {
    if std::env::var_os("KUBESMITH_SKIP_E2E").is_some() {
        eprintln!("KUBESMITH_SKIP_E2E is set: skipping a patched git dependency through the compiled fallback");
        return;
    }
    let parent = tempfile::tempdir().unwrap();
    let dir = fixture(parent.path(), "forge");
    // The lock a first build of the workspace leaves: the kube-derive corpus' versions (shared with the other
    // fallback tests), the framework built from the patch's folder. Its git URL does not resolve: a harness that
    // does not take the workspace's `[patch]` tries to fetch it and fails.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = std::fs::read_to_string(root.join("tests/conformance/kube-derive/input-Cargo.lock")).unwrap();
    let scratch = "[[package]]\nname = \"scratch\"\nversion = \"0.1.0\"\ndependencies = [\n";
    assert!(corpus.contains(scratch), "the corpus lock names its package `scratch`");
    let framework = "[[package]]\nname = \"framework\"\nversion = \"1.0.0\"\ndependencies = [\n \"schemars\",\n]\n\n";
    let operator = "[[package]]\nname = \"forge-operator\"\nversion = \"0.1.0\"\ndependencies = [\n \"framework\",\n";
    std::fs::write(dir.join("Cargo.lock"), corpus.replace(scratch, &format!("{framework}{operator}"))).unwrap();
    let before = snapshot(&dir);
    let started = std::time::Instant::now();
    let out = ks(&dir).arg("adopt").envs(corpus_build_env()).env_remove("RUSTFLAGS").output().unwrap();
    eprintln!("adopt with a patched git dependency: {:.1}s", started.elapsed().as_secs_f64());
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(!said.contains("git.example.invalid"), "nothing fetched: {said}");
    assert!(said.contains("note: compiled Furnace (furnaces.forge.example.org) v1 for its schema:"), "{said}");
    let harness = std::fs::read_to_string(corpus_target().join("kubesmith/crdgen-forge-operator/Cargo.toml")).unwrap();
    let patch = format!(
        "[patch.\"https://git.example.invalid/acme/framework.git\"]\nframework = {{ path = \"{}\" }}\n",
        dir.canonicalize().unwrap().join("vendor/framework").display()
    );
    assert!(harness.contains(&patch), "the harness takes the workspace's patch, its path absolute:\n{harness}");
    let crd = std::fs::read_to_string(dir.join("config/crd/bases/forge.example.org_furnaces.yaml")).unwrap();
    assert!(crd.contains("maximum: 1500.0"), "the framework's schema, computed: {crd}");
    renders_keeping(&dir, &before);
}
