//! `kubesmith init`: what it writes, what it refuses, and that refusing leaves the folder as it was.

use crate::support::{init, ks, read, snapshot};

#[test]
fn writes_a_project_and_records_it() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &["--repo", "https://github.com/example/memcached-operator"]);
    let project = read(&dir.join("PROJECT"));
    for line in [
        "domain: example.com",
        "- rust.kubesmith.io/v1alpha1",
        "projectName: memcached-operator",
        "repo: https://github.com/example/memcached-operator",
        "version: '3'",
        "k8sVersion: '1.37'",
        // what `alpha generate` needs to replay `init`
        "license: apache2",
        "owner: The memcached-operator authors",
        "copyrightYear: 2026",
    ] {
        assert!(project.lines().any(|l| l.trim() == line.trim()), "PROJECT lacks `{line}`:\n{project}");
    }
    let cargo = read(&dir.join("Cargo.toml"));
    assert!(cargo.contains("name = \"memcached-operator\""), "{cargo}");
    assert!(cargo.contains("v1_37"), "{cargo}");
    assert!(cargo.contains("repository = \"https://github.com/example/memcached-operator\""), "{cargo}");
    assert!(cargo.contains("license = \"Apache-2.0\""), "{cargo}");
    for f in [
        "src/main.rs",
        "src/lib.rs",
        "Dockerfile",
        ".dockerignore",
        ".gitignore",
        "Makefile",
        "README.md",
        "LICENSE",
        "config/default/kustomization.yaml",
        "config/manager/manager.yaml",
        "config/rbac/role.yaml",
        "config/rbac/leader_election_role.yaml",
        "config/prometheus/monitor.yaml",
        "config/network-policy/allow-metrics-traffic.yaml",
        "config/crd/kustomization.yaml",
        "config/samples/kustomization.yaml",
        "config/manifests/bases/memcached-operator.clusterserviceversion.yaml",
    ] {
        assert!(dir.join(f).is_file(), "init did not write {f}");
    }
}

#[test]
fn k8s_version_and_license_are_honoured() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "op", &["--k8s-version", "1.33", "--license", "none"]);
    assert!(read(&dir.join("Cargo.toml")).contains("v1_33"));
    assert!(!dir.join("LICENSE").exists());
    let project = read(&dir.join("PROJECT"));
    assert!(project.contains("k8sVersion: '1.33'"));
    // without a license notice, its owner and year are not recorded
    assert!(project.contains("license: none") && !project.contains("owner:") && !project.contains("copyrightYear"));
}

#[test]
fn copyright_year_and_owner_are_recorded() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "op", &["--copyright-year", "2019", "--owner", "ACME Inc."]);
    assert!(read(&dir.join("LICENSE")).starts_with("Copyright 2019 ACME Inc.\n"));
    assert!(read(&dir.join("README.md")).contains("Copyright 2019 ACME Inc."));
    let project = read(&dir.join("PROJECT"));
    assert!(project.contains("copyrightYear: 2019\n") && project.contains("owner: ACME Inc.\n"), "{project}");
    let bad = tempfile::tempdir().unwrap();
    ks(bad.path()).args(["init", "--domain", "example.com", "--copyright-year", "99"]).assert().code(2);
}

#[test]
fn refuses_a_folder_with_a_project_or_a_cargo_toml() {
    for existing in ["PROJECT", "Cargo.toml"] {
        let parent = tempfile::tempdir().unwrap();
        let dir = parent.path().join("op");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join(existing), "keep me").unwrap();
        let before = snapshot(&dir);
        for force in [false, true] {
            let mut cmd = ks(&dir);
            cmd.args(["init", "--domain", "example.com"]);
            if force {
                cmd.arg("--force");
            }
            let out = cmd.assert().code(1).get_output().stderr.clone();
            let text = String::from_utf8_lossy(&out);
            let want =
                if existing == "PROJECT" { "already a kubesmith project" } else { "run `kubesmith adopt` there" };
            assert!(text.contains(want), "{text}");
            assert_eq!(snapshot(&dir), before, "init changed the folder");
        }
    }
}

#[test]
fn refuses_to_clobber_other_files_without_force() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("op");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("README.md"), "mine").unwrap();
    let out = ks(&dir).args(["init", "--domain", "example.com"]).assert().code(1).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&out).contains("README.md"));
    assert_eq!(read(&dir.join("README.md")), "mine");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    ks(&dir).args(["init", "--domain", "example.com", "--force"]).assert().success();
    assert_ne!(read(&dir.join("README.md")), "mine");
}

#[test]
fn dry_run_writes_nothing() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("op");
    std::fs::create_dir(&dir).unwrap();
    let out =
        ks(&dir).args(["init", "--domain", "example.com", "--dry-run"]).assert().success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("create    PROJECT") && text.contains("create    src/main.rs"), "{text}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}

/// The runtime a project runs on: vendored by default (kubesmith's copy, named by path, never the user's rustfmt's),
/// or the published crate with `--runtime registry`, which PROJECT records so a replay gives the same tree.
#[test]
fn the_runtime_is_vendored_or_named_from_the_registry() {
    let parent = tempfile::tempdir().unwrap();
    let vendored = init(parent.path(), "vendored-operator", &[]);
    let manifest = read(&vendored.join("Cargo.toml"));
    assert!(
        manifest.contains("kubesmith-runtime = { version = \"0.1.0\", path = \"vendor/kubesmith-runtime\" }"),
        "{manifest}"
    );
    let runtime = vendored.join("vendor/kubesmith-runtime");
    assert!(read(&runtime.join("Cargo.toml")).starts_with("# Generated by kubesmith"));
    let lib = read(&runtime.join("src/lib.rs"));
    assert_eq!(lib, read(&crate::support::repo_root().join("runtime/src/lib.rs")), "the crate's sources, as they are");
    assert!(!read(&vendored.join("PROJECT")).contains("runtime:"));
    assert!(!std::path::Path::new(&vendored.join("src/manager.rs")).exists(), "the manager is the runtime's");

    let registry = init(parent.path(), "registry-operator", &["--runtime", "registry"]);
    let manifest = read(&registry.join("Cargo.toml"));
    assert!(manifest.contains("\nkubesmith-runtime = \"0.1.0\" "), "{manifest}");
    assert!(manifest.contains("kubesmith-runtime = { version = \"0.1.0\", features = [\"testing\"] }"), "{manifest}");
    assert!(!registry.join("vendor").exists());
    assert!(read(&registry.join("PROJECT")).contains("    runtime: registry\n"));
    let out = ks(parent.path())
        .args(["alpha", "generate", "--input-dir", "registry-operator", "--output-dir", "replayed"])
        .assert()
        .success();
    let said = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(said.contains(" --runtime registry\n"), "{said}");
    assert_eq!(read(&parent.path().join("replayed/Cargo.toml")), manifest);
}
