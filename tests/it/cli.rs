//! Command-line conventions: help with examples, version, exit codes.

use crate::support::ks;

#[test]
fn every_command_has_help_with_an_example() {
    let dir = tempfile::tempdir().unwrap();
    for args in [vec!["init"], vec!["create", "api"], vec!["make", "manifests"]] {
        let out = ks(dir.path()).args(&args).arg("--help").assert().success().get_output().stdout.clone();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("Example"), "{args:?} --help has no example:\n{text}");
        assert!(text.contains("--dry-run"), "{args:?} --help has no --dry-run:\n{text}");
    }
}

#[test]
fn version_is_printed() {
    let dir = tempfile::tempdir().unwrap();
    let out = ks(dir.path()).arg("--version").assert().success().get_output().stdout.clone();
    assert_eq!(String::from_utf8(out).unwrap().trim(), format!("kubesmith {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    ks(dir.path()).arg("frobnicate").assert().code(2);
    ks(dir.path()).arg("init").assert().code(2); // --domain is required
    ks(dir.path()).args(["init", "--domain", "example.com", "--k8s-version", "1.20"]).assert().code(2);
}

#[test]
fn invalid_names_exit_2_and_write_nothing() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("Bad_Name");
    std::fs::create_dir(&dir).unwrap();
    let out = ks(&dir).args(["init", "--domain", "example.com"]).assert().code(2).get_output().stderr.clone();
    let err = String::from_utf8(out).unwrap();
    assert!(err.contains("project name `bad_name` is invalid") && err.contains("--project-name"), "{err}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    ks(&dir).args(["init", "--domain", "Example.COM", "--project-name", "ok"]).assert().code(2);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}
