//! `kubesmith adopt` on a workspace of its own in real operators' shapes (`tests/fixtures/adopt/harbor`): an
//! operator's kinds beside the Knative and AWS ACK kinds it only uses as a client, a chart shipping its CRDs (one of
//! them a Helm template), the storage version chosen by `merge_crds`; and a types crate the compiled fallback must
//! build as it builds in the workspace — a build script reading `../../proto`, the k8s-openapi version feature
//! enabled only by the operator crate, a kind with a computed schema in a module private below the root. The
//! others' kinds become external APIs with no CRD, sample or role, the shipped CRDs are compared with kubesmith's
//! by path, and flags override the evidence.

use std::path::{Path, PathBuf};

use crate::adopt::copy_dir;
use crate::e2e::corpus_build_env;
use crate::support::{ks, snapshot};

/// The fixture in a temp folder, locked as the kube-derive corpus is (kube 5.0.0), so the compiled fallback shares
/// its dependencies with the other fallback tests.
fn harbor(parent: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = parent.join("harbor");
    copy_dir(&root.join("tests/fixtures/adopt/harbor"), &dir);
    let lock = std::fs::read_to_string(root.join("tests/conformance/kube-derive/input-Cargo.lock")).unwrap();
    std::fs::write(dir.join("Cargo.lock"), lock.replace("name = \"scratch\"", "name = \"harbor-types\"")).unwrap();
    dir
}

fn text(out: &std::process::Output) -> (String, String) {
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn yaml(path: &Path) -> serde_json::Value {
    serde_yaml_ng::from_str(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .unwrap()
}

#[test]
fn foreign_kinds_become_external_apis_and_shipped_crds_are_compared_by_path() {
    if std::env::var_os("KUBESMITH_SKIP_E2E").is_some() {
        eprintln!("KUBESMITH_SKIP_E2E is set: skipping adopt with the compiled fallback");
        return;
    }
    let parent = tempfile::tempdir().unwrap();
    let dir = harbor(parent.path());
    let sources = snapshot(&dir.join("crates"));
    let started = std::time::Instant::now();
    let out = ks(&dir)
        .args(["adopt", "--image", "harbor-operator:0.4.0"])
        .envs(corpus_build_env())
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    eprintln!("adopt with the compiled fallback: {:.1}s", started.elapsed().as_secs_f64());
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    for line in [
        "  owned    Dock (harbor.example.io): the repository ships its CRD (charts/harbor/crds/docks.yaml)",
        "  owned    Berth (ops.example.io): the repository ships its CRD (charts/harbor/templates/berth-crd.yaml)",
        "  external Bucket (s3.services.k8s.aws): its group s3.services.k8s.aws is outside the project's domain \
         (example.io), the repository ships no CRD for it and no Controller reconciles it",
        "  external Service (serving.knative.dev): its group serving.knative.dev is outside the project's domain",
        "the CRD of Dock that charts/harbor/crds/docks.yaml ships differs from kubesmith's \
         (config/crd/bases/harbor.example.io_docks.yaml) in 3 place(s):",
        "  spec.versions[v1].schema.openAPIV3Schema.properties.spec.properties.image: only kubesmith's (",
        "  spec.versions[v1].schema.openAPIV3Schema.properties.spec.properties.size.minimum: only shipped (1)",
        "  spec.versions[v1].schema.openAPIV3Schema.properties.spec.required: shipped [\"size\"], kubesmith \
         [\"image\",\"size\"]",
        "the CRD of Berth that charts/harbor/templates/berth-crd.yaml ships is the one kubesmith generates",
        "  owned    Manifest (harbor.example.io): its group is in the project's domain example.io",
        // The compiled fallback built harbor-types as the workspace does: its build script ran in its own folder
        // (reading ../../proto), k8s-openapi got the operator's version feature, the private module re-exported.
        "note: compiled Manifest (manifests.harbor.example.io) v1 for its schema:",
        "note: harbor-types enables no k8s-openapi version feature of its own; the compiled fallback built it with \
         `latest`, as harbor-operator does",
    ] {
        assert!(stdout.contains(line), "missing {line:?} in:\n{stdout}");
    }
    // The Knative Service's `serde_json::Value` field would be refused: not our kind, not our problem.
    assert!(!format!("{stdout}{stderr}").contains("serving.knative.dev v1"), "{stdout}{stderr}");
    assert_eq!(snapshot(&dir.join("crates")), sources, "adopt never writes sources");

    let project = yaml(&dir.join("PROJECT"));
    let resources = project["resources"].as_array().unwrap();
    let entry = |kind: &str| resources.iter().find(|r| r["kind"] == kind).unwrap_or_else(|| panic!("{kind}"));
    assert_eq!(project["domain"], "example.io");
    for (kind, group, domain, path) in [
        ("Bucket", "s3", "services.k8s.aws", "harbor_types::foreign::ack::Bucket"),
        ("Service", "serving", "knative.dev", "harbor_types::foreign::knative::Service"),
    ] {
        let r = entry(kind);
        assert_eq!(
            (&r["external"], &r["group"], &r["domain"], &r["path"]),
            (&true.into(), &group.into(), &domain.into(), &path.into())
        );
        assert!(r.get("api").is_none(), "an external API has no api block: {r}");
    }
    assert!(entry("Dock").get("external").is_none() && entry("Dock")["api"]["namespaced"] == true);
    let files: Vec<String> = ["config/crd/bases", "config/samples", "config/rbac"]
        .iter()
        .flat_map(|d| {
            std::fs::read_dir(dir.join(d)).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        })
        .collect();
    for f in &files {
        let theirs = ["bucket", "serving", "_service", "knative"].iter().any(|k| f.contains(k));
        assert!(!theirs, "{f} belongs to another project");
    }
    assert!(
        files.contains(&"harbor.example.io_docks.yaml".to_string())
            && files.contains(&"ops_berth_editor_role.yaml".to_string())
    );
    // merge_crds(.., DOCK_STORAGE) chose v1.
    let dock = yaml(&dir.join("config/crd/bases/harbor.example.io_docks.yaml"));
    let storage: Vec<&serde_json::Value> = dock["spec"]["versions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["storage"] == true)
        .map(|v| &v["name"])
        .collect();
    assert_eq!(storage, ["v1"]);
    // The computed schema, from the crate's own code.
    let manifest = yaml(&dir.join("config/crd/bases/harbor.example.io_manifests.yaml"));
    let digest = manifest.pointer("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/digest").unwrap();
    assert_eq!(digest["pattern"], "^(sha256:[a-f0-9]+|sha512:[a-f0-9]+)$", "{digest}");
    // The role still grants what the code does with the others' kinds.
    let role = std::fs::read_to_string(dir.join("config/rbac/role.yaml")).unwrap();
    assert!(role.contains("serving.knative.dev") && role.contains("s3.services.k8s.aws"), "{role}");

    // make manifests keeps to the project's own kinds: up to date as adopt left it, no CRD for the external ones.
    let started = std::time::Instant::now();
    let out = ks(&dir)
        .args(["make", "manifests", "--check"])
        .envs(corpus_build_env())
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    assert!(out.status.success(), "{:?}", text(&out));
    eprintln!("make manifests --check with the compiled fallback, warm: {:.1}s", started.elapsed().as_secs_f64());
    assert_eq!(snapshot(&dir.join("crates")), sources, "the compiled fallback never writes sources");
    // make bundle checks the CRDs are current, compiling Manifest again (warm).
    let out = ks(&dir)
        .args(["make", "bundle", "--version", "0.1.0"])
        .envs(corpus_build_env())
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    assert!(out.status.success(), "{:?}", text(&out));
    let mut shipped: Vec<String> = std::fs::read_dir(dir.join("bundle/manifests"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.contains("example.io"))
        .collect();
    shipped.sort();
    assert_eq!(
        shipped,
        ["harbor.example.io_docks.yaml", "harbor.example.io_manifests.yaml", "ops.example.io_berths.yaml"]
    );
    let out = ks(&dir).args(["bundle", "validate", "bundle"]).output().unwrap();
    assert!(out.status.success(), "{:?}", text(&out));
}

#[test]
fn owned_and_external_flags_override_the_evidence() {
    let parent = tempfile::tempdir().unwrap();
    let dir = harbor(parent.path());
    let args = ["adopt", "--owned", "services.serving.knative.dev", "--external", "Berth,Manifest.harbor.example.io"];
    // Owned, the Knative Service's untyped field is ours to fix: adopt refuses, saying so, and writes nothing.
    let before = snapshot(&dir);
    let out = ks(&dir).args(args).output().unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stderr.contains("the CRD of Service (services.serving.knative.dev) cannot be generated"), "{stderr}");
    assert!(stderr.contains("serde_json::Value"), "{stderr}");
    assert_eq!(snapshot(&dir), before);
    // With --keep-going the others are adopted and the Service is left out.
    let out = ks(&dir).args(args).arg("--keep-going").output().unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("  owned    Service (serving.knative.dev): --owned"), "{stdout}");
    assert!(stdout.contains("  external Berth (ops.example.io): --external"), "{stdout}");
    assert!(stdout.contains("  external Manifest (harbor.example.io): --external"), "{stdout}");
    assert!(stdout.contains("--keep-going left out Service (services.serving.knative.dev)"), "{stdout}");
    assert!(stdout.contains("serde_json::Value"), "{stdout}");
    assert!(!dir.join("config/crd/bases/ops.example.io_berths.yaml").exists());
    let project = yaml(&dir.join("PROJECT"));
    let berth = project["resources"].as_array().unwrap().iter().find(|r| r["kind"] == "Berth").unwrap().clone();
    assert_eq!(berth["external"], true);
    // A cluster-scoped external kind keeps its scope in the plugin's record.
    let scopes = &project["plugins"]["rust.kubesmith.io/v1alpha1"]["resources"];
    assert!(
        scopes.as_array().is_some_and(|l| l.iter().any(|e| e["kind"] == "Berth" && e["namespaced"] == false)),
        "{scopes}"
    );
}

#[test]
fn a_flag_naming_no_kind_is_a_usage_error_that_changes_nothing() {
    let parent = tempfile::tempdir().unwrap();
    let dir = harbor(parent.path());
    let before = snapshot(&dir);
    for args in [["--owned", "Ferry"], ["--external", "docks.example.com"]] {
        let out = ks(&dir).arg("adopt").args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{:?}", text(&out));
        let (_, stderr) = text(&out);
        assert!(stderr.contains(&format!("{} {}: no kind of the crate has that name", args[0], args[1])), "{stderr}");
        assert!(stderr.contains("Dock (harbor.example.io)"), "{stderr}");
        assert_eq!(snapshot(&dir), before);
    }
    let out = ks(&dir).args(["adopt", "--owned", "Dock", "--external", "Dock.harbor.example.io"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("named by both --owned and --external"), "{:?}", text(&out));
    assert_eq!(snapshot(&dir), before);
}
