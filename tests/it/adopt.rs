//! `kubesmith adopt` on a workspace fixture of its own (`tests/fixtures/rbac-infer/orchard`: two crates, two API
//! groups, a namespaced and a cluster-scoped kind, two binaries): PROJECT, the config/ tree, the role inferred from
//! the code; then `make manifests`, `make bundle` and `bundle validate` pass with no edit; bad inputs change nothing.

use std::path::{Path, PathBuf};

use crate::rbac_infer::{CONTROLLER, orchard, set, triples};
use crate::support::{ks, snapshot};

/// A copy of the fixture workspace in a temp folder.
fn copy_orchard(parent: &Path) -> PathBuf {
    let dir = parent.join("orchard");
    copy_dir(&orchard(), &dir);
    dir
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let target = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &target);
        } else {
            std::fs::copy(&p, &target).unwrap();
        }
    }
}

fn text(out: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn adopt_then_manifests_bundle_and_validate_pass_with_no_edit() {
    let parent = tempfile::tempdir().unwrap();
    let dir = copy_orchard(parent.path());
    let crates_before = snapshot(&dir.join("crates"));
    let out = ks(&dir)
        .args(["adopt", "--domain", "example.net", "--image", "quay.io/orchard/controller:0.1.0", "--bin"])
        .arg("orchard-controller")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let said = text(&out);
    assert!(said.contains("adopted 2 kind(s)"), "{said}");
    assert!(said.contains("warning: crates/orchard-controller/src/reconciler.rs:95:"), "{said}");
    assert_eq!(snapshot(&dir.join("crates")), crates_before, "adopt never writes under the sources");
    assert!(!dir.join("src").exists());

    let project: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(dir.join("PROJECT")).unwrap()).unwrap();
    assert_eq!(project["domain"], "example.net");
    assert_eq!(project["multigroup"], true);
    assert_eq!(project["projectName"], "orchard-controller");
    let settings = &project["plugins"]["rust.kubesmith.io/v1alpha1"];
    assert_eq!(settings["rbac"]["infer"], true);
    assert_eq!(settings["rbac"]["bin"], "orchard-controller");
    let sources: Vec<&str> = settings["sources"].as_sequence().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    assert_eq!(sources, ["crates/orchard-controller/src", "crates/orchard-types/src"]);
    let resources: Vec<(String, String, String, bool)> = project["resources"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["group"].as_str().unwrap().to_string(),
                r["kind"].as_str().unwrap().to_string(),
                r["path"].as_str().unwrap().to_string(),
                r["api"]["namespaced"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    assert!(
        resources.contains(&("grove".into(), "Tree".into(), "orchard_types::OrchardTree".into(), true)),
        "{resources:?}"
    );
    assert!(
        resources.iter().any(|(g, k, p, ns)| g == "land" && k == "Plot" && p.starts_with("orchard_types::") && !ns),
        "{resources:?}"
    );
    let plot = project["resources"].as_sequence().unwrap().iter().find(|r| r["kind"] == "Plot").unwrap();
    assert_eq!(plot["plural"], "plotlands", "a plural kube-derive's rule would not give is recorded");

    // The role is what the controller binary reaches, exactly.
    assert_eq!(triples(&std::fs::read_to_string(dir.join("config/rbac/role.yaml")).unwrap()), set(CONTROLLER));
    // The manager runs the given image and no scaffold-only flags.
    let manager = std::fs::read_to_string(dir.join("config/manager/kustomization.yaml")).unwrap();
    assert!(manager.contains("newName: quay.io/orchard/controller\n  newTag: 0.1.0"), "{manager}");
    let deployment = std::fs::read_to_string(dir.join("config/manager/manager.yaml")).unwrap();
    assert!(!deployment.contains("--leader-elect") && !deployment.contains("livenessProbe"), "{deployment}");
    // One sample per kind, each the least object its own schema accepts.
    for (sample, crd) in [
        ("config/samples/grove_v1beta1_tree.yaml", "config/crd/bases/grove.example.net_trees.yaml"),
        ("config/samples/land_v1_plot.yaml", "config/crd/bases/land.example.net_plotlands.yaml"),
    ] {
        let object = kubesmith::yaml::from_str(&std::fs::read_to_string(dir.join(sample)).unwrap()).unwrap();
        let crd = kubesmith::yaml::from_str(&std::fs::read_to_string(dir.join(crd)).unwrap()).unwrap();
        let schema = crd.pointer("/spec/versions/0/schema/openAPIV3Schema").unwrap();
        let outcome = kubesmith::olm::schema::validate(schema, &object);
        assert!(outcome.errors.is_empty(), "{sample} fails its schema: {:?}", outcome.errors);
    }

    // Then every generating command passes as it is.
    let out = ks(&dir).args(["make", "manifests"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("everything is up to date"), "{}", text(&out));
    ks(&dir).args(["make", "manifests", "--check"]).assert().success();
    // `rbac infer` with no flag reads what PROJECT says: its sources, from its manager binary.
    let out = ks(&dir).args(["rbac", "infer"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(triples(&String::from_utf8(out.stdout.clone()).unwrap()), set(CONTROLLER));
    let rendered =
        std::process::Command::new("kubectl").args(["kustomize", "config/default"]).current_dir(&dir).output().unwrap();
    assert!(rendered.status.success(), "{}", text(&rendered));
    let rendered = String::from_utf8(rendered.stdout).unwrap();
    assert!(rendered.contains("image: quay.io/orchard/controller:0.1.0"), "{rendered}");
    assert!(!rendered.contains("leader-election"), "no scaffold leader-election role for an adopted operator");
    let out = ks(&dir).args(["make", "bundle", "--version", "0.1.0"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let out = ks(&dir).args(["bundle", "validate", "bundle"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(snapshot(&dir.join("crates")), crates_before);

    // Scaffolding into the operator's own layout is refused, with the way forward.
    let before = snapshot(&dir);
    let out =
        ks(&dir).args(["create", "api", "--group", "grove", "--version", "v1", "--kind", "Seed"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("this project was adopted"), "{}", text(&out));
    assert_eq!(snapshot(&dir), before);

    // A second adopt is refused and changes nothing.
    let before = snapshot(&dir);
    let out = ks(&dir).args(["adopt"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("already a kubesmith project"), "{}", text(&out));
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn adopt_refuses_what_it_cannot_adopt_and_leaves_the_tree_as_it_was() {
    let parent = tempfile::tempdir().unwrap();
    // Not a crate.
    let empty = parent.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = ks(&empty).arg("adopt").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("is not a crate: there is no Cargo.toml"), "{}", text(&out));
    assert!(std::fs::read_dir(&empty).unwrap().next().is_none());

    // A crate without kinds, and without controllers or watchers of built-in ones: says where it looked.
    let plain = parent.path().join("plain");
    std::fs::create_dir_all(plain.join("src")).unwrap();
    std::fs::write(plain.join("Cargo.toml"), "[package]\nname = \"plain\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
        .unwrap();
    std::fs::write(plain.join("src/main.rs"), "fn main() {}\n").unwrap();
    let before = snapshot(&plain);
    let out = ks(&plain).arg("adopt").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("no #[derive(CustomResource)] kind, and no `Controller::new` or watcher")
            && text(&out).contains("looked in src"),
        "{}",
        text(&out)
    );
    assert_eq!(snapshot(&plain), before);

    // Files in the way: one error listing every clash, nothing written; --force overwrites them.
    let dir = copy_orchard(parent.path());
    std::fs::create_dir_all(dir.join("config/rbac")).unwrap();
    std::fs::create_dir_all(dir.join("config/manager")).unwrap();
    std::fs::write(dir.join("config/rbac/role.yaml"), "# mine\n").unwrap();
    std::fs::write(dir.join("config/manager/manager.yaml"), "# mine\n").unwrap();
    let before = snapshot(&dir);
    let out = ks(&dir).args(["adopt", "--bin", "orchard-controller"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let said = text(&out);
    assert!(said.contains("would overwrite 2 existing file(s)"), "{said}");
    assert!(said.contains("config/manager/manager.yaml") && said.contains("config/rbac/role.yaml"), "{said}");
    assert_eq!(snapshot(&dir), before);
    ks(&dir).args(["adopt", "--bin", "orchard-controller", "--force"]).assert().success();
    assert!(!std::fs::read_to_string(dir.join("config/rbac/role.yaml")).unwrap().contains("# mine"));

    // An unknown --bin is a usage error.
    let dir = copy_orchard(&parent.path().join("again"));
    let out = ks(&dir).args(["adopt", "--bin", "nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("orchard-controller"), "{}", text(&out));
}
