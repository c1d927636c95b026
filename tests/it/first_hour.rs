//! What a newcomer trips on in the first hour (issue 27): each test fails on the behaviour the issue reports.

use std::path::{Path, PathBuf};

use crate::support::{create_api, init, ks, snapshot};

/// `init` + one kind with a controller, manifests made.
fn project(parent: &Path) -> PathBuf {
    let dir = init(parent, "memcached-operator", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    ks(&dir).args(["make", "manifests"]).assert().success();
    dir
}

fn output(out: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn rbac_marker_typos_are_errors_at_their_line_and_change_nothing() {
    let parent = tempfile::tempdir().unwrap();
    let dir = project(parent.path());
    let controller = dir.join("src/controller/memcached.rs");
    let text = std::fs::read_to_string(&controller).unwrap();
    let line = text.lines().count() + 1;
    std::fs::write(
        &controller,
        format!(
            "{text}// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;lst\n\
             // +kubebuilder:rbac:groups=apps,resources=deploymnets,verbs=get\n\
             // +kubebuilder:rbac:groups=cache.example.com,resources=memcached/status,verbs=get\n\
             // +kubebuilder:rbac:groups=monitoring.coreos.com,resources=servicemonitors,verbs=get\n"
        ),
    )
    .unwrap();
    let before = snapshot(&dir);
    for args in [&["make", "manifests"][..], &["make", "manifests", "--check"]] {
        let out = ks(&dir).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", output(&out));
        let text = output(&out);
        for want in [
            format!(
                "src/controller/memcached.rs:{line}: marker `+kubebuilder:rbac`: unknown verb `lst`; did you mean `list`?"
            ),
            format!(
                "src/controller/memcached.rs:{}: marker `+kubebuilder:rbac`: unknown resource `deploymnets` in group \
                 apps; did you mean `deployments`?",
                line + 1
            ),
            format!(
                "src/controller/memcached.rs:{}: marker `+kubebuilder:rbac`: unknown resource `memcached` in group \
                 cache.example.com; did you mean `memcacheds`?",
                line + 2
            ),
        ] {
            assert!(text.contains(&want), "missing {want:?} in:\n{text}");
        }
        assert!(!text.contains("servicemonitors"), "another project's group passes: {text}");
        assert_eq!(snapshot(&dir), before, "a refused make manifests writes nothing");
    }
}
