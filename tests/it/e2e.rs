//! End to end: a scaffolded project builds with no warnings, passes clippy, rustfmt and its own tests, and its
//! kustomize tree renders. Generated projects share one target folder and one Cargo.lock
//! (`tests/e2e/operator.Cargo.lock`, refreshed by `cargo xtask bless`) so the cost is paid once.
//! Set `KUBESMITH_SKIP_E2E=1` to skip it during quick local runs; CI always runs it.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{blessing, repo_root, standard_project};

pub(crate) fn shared_target() -> PathBuf {
    std::env::var_os("KUBESMITH_E2E_TARGET")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("operator-target"))
}

fn lock_file() -> PathBuf {
    repo_root().join("tests/e2e/operator.Cargo.lock")
}

/// Runs a command in `dir`, returning its combined output; panics with the output when it fails.
fn run(dir: &Path, program: &str, args: &[&str]) -> String {
    let started = std::time::Instant::now();
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", shared_target())
        .env_remove("RUSTFLAGS")
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    eprintln!("e2e: `{program} {}` took {:.1}s", args.join(" "), started.elapsed().as_secs_f64());
    assert!(out.status.success(), "`{program} {}` failed in {}:\n{text}", args.join(" "), dir.display());
    text
}

#[test]
fn scaffolded_operator_builds_tests_lints_and_renders() {
    if std::env::var_os("KUBESMITH_SKIP_E2E").is_some() {
        eprintln!("KUBESMITH_SKIP_E2E is set: skipping the end-to-end build of a scaffolded operator");
        return;
    }
    let parent = tempfile::tempdir().unwrap();
    let dir = standard_project(parent.path());
    if !blessing() {
        std::fs::copy(lock_file(), dir.join("Cargo.lock")).expect("tests/e2e/operator.Cargo.lock exists");
    }

    // kustomize first: it is quick and needs nothing built.
    let rendered = run(&dir, "kubectl", &["kustomize", "config/default"]);
    for kind in [
        "Namespace",
        "Deployment",
        "ServiceAccount",
        "ClusterRole",
        "ClusterRoleBinding",
        "Role",
        "RoleBinding",
        "Service",
    ] {
        assert!(
            rendered.lines().any(|l| l == format!("kind: {kind}")),
            "config/default renders no {kind}:\n{rendered}"
        );
    }
    assert!(rendered.contains("namespace: memcached-operator-system"));
    assert!(rendered.contains("serviceAccountName: memcached-operator-controller-manager"));
    for sub in ["config/samples", "config/manifests", "config/prometheus", "config/network-policy", "config/crd"] {
        run(&dir, "kubectl", &["kustomize", sub]);
    }

    let build = run(&dir, "cargo", &["build"]);
    assert!(!build.contains("warning"), "the scaffolded operator builds with warnings:\n{build}");
    run(&dir, "cargo", &["fmt", "--check"]);
    run(&dir, "cargo", &["clippy", "--all-targets", "--", "-D", "warnings"]);
    let tests = run(&dir, "cargo", &["test"]);
    let passed: usize = tests
        .lines()
        .filter_map(|l| l.strip_prefix("test result: ok. "))
        .filter_map(|l| l.split(' ').next()?.parse::<usize>().ok())
        .sum();
    assert!(passed >= 8, "the scaffolded operator ran only {passed} tests:\n{tests}");
    eprintln!("e2e: the scaffolded operator passed {passed} tests");

    if blessing() {
        std::fs::create_dir_all(lock_file().parent().unwrap()).unwrap();
        std::fs::copy(dir.join("Cargo.lock"), lock_file()).unwrap();
    }
}
