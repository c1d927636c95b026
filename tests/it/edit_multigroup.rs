//! `kubesmith edit --multigroup`: a converted project equals one scaffolded multigroup from the start; user edits
//! survive; refusals write nothing.

use std::path::{Path, PathBuf};

use crate::support::{create_api, init, ks, read, snapshot};

/// The same commands in any layout: Memcached (v1alpha1, and v1beta1 without controller), Match (a Rust keyword
/// as module name) in group `cache`; Memcached v1alpha1 has all three webhooks, v1beta1 its conversion spoke.
fn scaffold(parent: &Path, init_args: &[&str]) -> PathBuf {
    let dir = init(parent, "memcached-operator", init_args);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    create_api(&dir, &["--group", "cache", "--version", "v1", "--kind", "Match"]);
    create_api(&dir, &["--group", "cache", "--version", "v1beta1", "--kind", "Memcached", "--controller=false"]);
    ks(&dir)
        .args(["create", "webhook", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"])
        .args(["--defaulting", "--programmatic-validation", "--conversion", "--spoke", "v1beta1"])
        .assert()
        .success();
    dir
}

fn edit(dir: &Path) -> assert_cmd::assert::Assert {
    ks(dir).args(["edit", "--multigroup"]).assert()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn converted_project_equals_one_scaffolded_multigroup() {
    let a_parent = tempfile::tempdir().unwrap();
    let b_parent = tempfile::tempdir().unwrap();
    let a = scaffold(a_parent.path(), &[]);
    let b = scaffold(b_parent.path(), &["--multigroup"]);
    edit(&a).success().stdout(predicates::str::contains("create    src/api/cache/v1alpha1.rs"));

    // Nothing differs: same files (no folder left behind by the moves), same bytes.
    let (got, want) = (snapshot(&a), snapshot(&b));
    let paths = |s: &std::collections::BTreeMap<PathBuf, Vec<u8>>| s.keys().cloned().collect::<Vec<_>>();
    assert_eq!(paths(&got), paths(&want), "file sets differ");
    for (path, bytes) in &want {
        assert_eq!(text(&got[path]), text(bytes), "{} differs", path.display());
    }

    ks(&a).args(["make", "manifests"]).assert().success();
    ks(&a).args(["make", "manifests", "--check"]).assert().success().stdout(predicates::str::contains("up to date"));
    // A second group is welcome now.
    create_api(&a, &["--group", "ship", "--version", "v1", "--kind", "Frigate"]);
}

#[test]
fn user_edits_move_along_and_keep_their_code() {
    let parent = tempfile::tempdir().unwrap();
    let dir = scaffold(parent.path(), &[]);
    // An edited controller, not rustfmt-clean: only the paths change, the layout of the user's code stays.
    let controller = dir.join("src/controller/memcached.rs");
    let mine = "\npub fn  replicas( spec:&crate::api::v1alpha1::MemcachedSpec )->i32{ spec.size }\n";
    std::fs::write(&controller, format!("{}{mine}", read(&controller))).unwrap();
    // A module of the user's inside a version folder, and one of its own naming the moved paths.
    std::fs::write(dir.join("src/api/v1alpha1/extra.rs"), "//! Mine.\npub const EXTRA: u8 = 1;\n").unwrap();
    let version = dir.join("src/api/v1alpha1.rs");
    std::fs::write(
        &version,
        read(&version).replace("// +kubesmith:scaffold", "pub mod extra;\n// +kubesmith:scaffold"),
    )
    .unwrap();
    let util = "//! Mine.\nuse kube::runtime::controller::Action;\nuse k8s_openapi::api::core::v1::Pod;\n\
                use crate::{api::v1alpha1::{Memcached, extra::EXTRA}, controller::r#match::CONTROLLER_NAME};\n\n\
                /// Names `crate::api::v1alpha1::Memcached`.\npub fn f(_: Memcached, _: Pod) -> (Action, u8, &'static str) \
                { todo!() }\n";
    std::fs::write(dir.join("src/util.rs"), util).unwrap();
    let main = dir.join("src/main.rs");
    std::fs::write(&main, format!("{}\nmod util;\n", read(&main))).unwrap();

    edit(&dir).success();

    let moved = read(&dir.join("src/controller/cache/memcached.rs"));
    assert!(moved.contains(&mine.replace("api::v1alpha1", "api::cache::v1alpha1")), "{moved}");
    assert!(moved.contains("pub const CONTROLLER_NAME: &str = \"cache-memcached\";"));
    assert!(!controller.exists());
    assert_eq!(read(&dir.join("src/api/cache/v1alpha1/extra.rs")), "//! Mine.\npub const EXTRA: u8 = 1;\n");
    assert!(read(&dir.join("src/api/cache/v1alpha1.rs")).contains("pub mod extra;"));
    let util = read(&dir.join("src/util.rs"));
    for line in [
        "use kube::runtime::controller::Action;",
        "use k8s_openapi::api::core::v1::Pod;",
        "api::cache::v1alpha1::{Memcached, extra::EXTRA}",
        "controller::cache::r#match::CONTROLLER_NAME",
        "/// Names `crate::api::cache::v1alpha1::Memcached`.",
    ] {
        assert!(util.contains(line), "{line} missing from\n{util}");
    }
    assert!(read(&main).ends_with("\nmod util;\n"));
    assert!(!dir.join("src/api/v1alpha1").exists() && !dir.join("src/webhook/v1alpha1").exists());
}

#[test]
fn refusals_write_nothing_and_name_the_file() {
    let parent = tempfile::tempdir().unwrap();
    let dir = scaffold(parent.path(), &[]);
    let refused = |dir: &Path, message: &str| {
        let before = snapshot(dir);
        edit(dir).code(1).stderr(predicates::str::contains(message));
        assert_eq!(snapshot(dir), before, "a refused edit changed the folder");
    };

    std::fs::write(dir.join("tests/webhook_cache_v1alpha1_memcached.rs"), "// mine\n").unwrap();
    refused(&dir, "tests/webhook_cache_v1alpha1_memcached.rs already exists");
    std::fs::remove_file(dir.join("tests/webhook_cache_v1alpha1_memcached.rs")).unwrap();

    std::fs::write(dir.join("src/controller/cache.rs"), "// mine\n").unwrap();
    refused(&dir, "src/controller/cache.rs already exists");
    std::fs::remove_file(dir.join("src/controller/cache.rs")).unwrap();

    let dry = snapshot(&dir);
    ks(&dir).args(["edit", "--multigroup", "--dry-run"]).assert().success();
    assert_eq!(snapshot(&dir), dry, "--dry-run wrote something");

    let project = read(&dir.join("PROJECT"));
    std::fs::write(dir.join("PROJECT"), project.replace("    k8sVersion:", "    adopted: true\n    k8sVersion:"))
        .unwrap();
    refused(&dir, "adopted");
    std::fs::write(dir.join("PROJECT"), &project).unwrap();

    edit(&dir).success();
    refused(&dir, "already multigroup");

    std::fs::remove_file(dir.join("PROJECT")).unwrap();
    refused(&dir, "no PROJECT file");

    ks(&dir).args(["edit"]).assert().code(2).stderr(predicates::str::contains("pass --multigroup"));
    let help = ks(&dir).args(["edit", "--help"]).assert().success().get_output().stdout.clone();
    assert!(text(&help).contains("Examples:\n  kubesmith edit --multigroup") && text(&help).contains("--dry-run"));
}
