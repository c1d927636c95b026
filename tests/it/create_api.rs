//! `kubesmith create api`: files, PROJECT entries, versions, name rules, and all-or-nothing failures.

use crate::support::{create_api, init, ks, read, snapshot};

/// The standard output of a command that must succeed.
fn stdout(cmd: &mut assert_cmd::Command) -> String {
    String::from_utf8(cmd.assert().success().get_output().stdout.clone()).expect("UTF-8 output")
}

fn project() -> (tempfile::TempDir, std::path::PathBuf) {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &[]);
    (parent, dir)
}

#[test]
fn scaffolds_types_controller_samples_rbac_and_records_the_resource() {
    let (_t, dir) = project();
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    let types = read(&dir.join("src/api/v1alpha1/memcached.rs"));
    for needle in [
        "#[derive(CustomResource",
        "group = \"cache.example.com\"",
        "version = \"v1alpha1\"",
        "kind = \"Memcached\"",
        "namespaced",
        "status = \"MemcachedStatus\"",
        "printcolumn(",
        "#[serde(rename_all = \"camelCase\")]",
        "pub struct MemcachedSpec",
        "pub struct MemcachedStatus",
        "pub conditions: Vec<Condition>",
    ] {
        assert!(types.contains(needle), "types lack `{needle}`:\n{types}");
    }
    let controller = read(&dir.join("src/controller/memcached.rs"));
    for needle in [
        "// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds,verbs=",
        "// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/status,verbs=",
        "finalizer",
        "error_policy",
    ] {
        assert!(controller.contains(needle), "controller lacks `{needle}`");
    }
    assert!(read(&dir.join("src/main.rs")).contains("memcached_operator::controller::memcached::registration(),"));
    assert!(read(&dir.join("src/controller.rs")).contains("pub mod memcached;"));
    assert!(read(&dir.join("src/api.rs")).contains("pub mod v1alpha1;"));
    assert!(read(&dir.join("src/api/v1alpha1.rs")).contains("mod memcached;"));
    let sample = read(&dir.join("config/samples/cache_v1alpha1_memcached.yaml"));
    assert!(sample.contains("apiVersion: cache.example.com/v1alpha1") && sample.contains("name: memcached-sample"));
    assert!(read(&dir.join("config/samples/kustomization.yaml")).contains("- cache_v1alpha1_memcached.yaml"));
    for role in ["admin", "editor", "viewer"] {
        let f = format!("memcached_{role}_role.yaml");
        assert!(dir.join("config/rbac").join(&f).is_file(), "no {f}");
        assert!(read(&dir.join("config/rbac/kustomization.yaml")).contains(&format!("- {f}")));
    }
    assert!(read(&dir.join("config/crd/kustomization.yaml")).contains("- bases/cache.example.com_memcacheds.yaml"));
    let project = read(&dir.join("PROJECT"));
    let expected = "resources:\n- api:\n    crdVersion: v1\n    namespaced: true\n  controller: true\n  domain: example.com\n  \
                    group: cache\n  kind: Memcached\n  path: memcached_operator::api::v1alpha1\n  version: v1alpha1\n";
    assert!(project.contains(expected), "{project}");
}

#[test]
fn cluster_scoped_and_custom_plural() {
    let (_t, dir) = project();
    create_api(
        &dir,
        &["--group", "cache", "--version", "v1", "--kind", "Policy", "--namespaced=false", "--plural", "policyset"],
    );
    let types = read(&dir.join("src/api/v1/policy.rs"));
    assert!(!types.contains("    namespaced,"), "{types}");
    assert!(types.contains("plural = \"policyset\""), "{types}");
    let project = read(&dir.join("PROJECT"));
    assert!(project.contains("- api:\n    crdVersion: v1\n  controller: true"), "{project}");
    assert!(project.contains("  plural: policyset\n"), "{project}");
    assert!(read(&dir.join("config/crd/kustomization.yaml")).contains("cache.example.com_policyset.yaml"));
    // kube-derive's own plural rule is not stored.
    create_api(&dir, &["--group", "cache", "--version", "v1", "--kind", "Gateway"]);
    assert!(!read(&dir.join("PROJECT")).contains("plural: gateways"));
    assert!(read(&dir.join("config/crd/kustomization.yaml")).contains("cache.example.com_gateways.yaml"));
}

#[test]
fn a_second_version_keeps_one_storage_version() {
    let (_t, dir) = project();
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    let rbac_before = read(&dir.join("config/rbac/kustomization.yaml"));
    let text = stdout(
        ks(&dir)
            .args(["create", "api", "--group", "cache", "--version", "v1beta1", "--kind", "Memcached"])
            .arg("--controller=false"),
    );
    assert!(text.contains("v1alpha1 stays the storage version"), "{text}");
    assert!(read(&dir.join("src/api/v1beta1/memcached.rs")).contains("storage = false"));
    assert!(!read(&dir.join("src/api/v1alpha1/memcached.rs")).contains("storage = false"));
    assert_eq!(read(&dir.join("config/rbac/kustomization.yaml")), rbac_before);
    let crd_k = read(&dir.join("config/crd/kustomization.yaml"));
    assert_eq!(crd_k.matches("cache.example.com_memcacheds.yaml").count(), 1);
    assert!(dir.join("config/samples/cache_v1beta1_memcached.yaml").is_file());
    // A second reconciler for the same kind is refused.
    let before = snapshot(&dir);
    let out = ks(&dir)
        .args(["create", "api", "--group", "cache", "--version", "v1", "--kind", "Memcached"])
        .assert()
        .code(1)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&out).contains("--controller=false"));
    assert_eq!(snapshot(&dir), before);
}

/// `controller::testing` and `controller::operand` are the project's own modules: a kind (or, multigroup, a group)
/// whose controller module would take one of those names is refused, its types alone are not.
#[test]
fn a_controller_named_like_a_shared_module_is_refused() {
    let (_t, dir) = project();
    for kind in ["Testing", "Operand"] {
        let before = snapshot(&dir);
        let args = ["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", kind];
        let out = ks(&dir).args(args).assert().code(1).get_output().stderr.clone();
        let err = String::from_utf8_lossy(&out);
        let module = kind.to_ascii_lowercase();
        assert!(err.contains(&format!("would be `controller::{module}`")), "{err}");
        assert!(err.contains("--controller=false"), "{err}");
        assert_eq!(snapshot(&dir), before);
        ks(&dir).args(args).arg("--controller=false").assert().success();
    }
    let parent = tempfile::tempdir().unwrap();
    let multi = init(parent.path(), "multi-operator", &["--multigroup"]);
    let out = ks(&multi)
        .args(["create", "api", "--group", "testing", "--version", "v1", "--kind", "Probe"])
        .assert()
        .code(1)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&out).contains("group `testing`"), "{}", String::from_utf8_lossy(&out));
}

/// A project whose shared modules an older kubesmith wrote gets the new kind's code all the same, with a warning
/// naming what the shared module lacks and how to bring it up to date.
#[test]
fn shared_code_of_an_older_kubesmith_is_a_warning() {
    let (_t, dir) = project();
    // A project of a kubesmith that copied the manager into `src/` names no kubesmith-runtime.
    let manifest = dir.join("Cargo.toml");
    let text = read(&manifest);
    let runtime: Vec<&str> = text.lines().filter(|l| l.starts_with("kubesmith-runtime = ")).collect();
    assert_eq!(runtime.len(), 2, "{text}");
    let older: String =
        text.lines().filter(|l| !l.starts_with("kubesmith-runtime = ")).map(|l| format!("{l}\n")).collect();
    std::fs::write(&manifest, older).unwrap();
    let out =
        stdout(ks(&dir).args(["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]));
    assert!(
        out.contains(
            "warning: Cargo.toml predates this kubesmith (it has no `kubesmith-runtime`), which \
             `controller::memcached` uses"
        ) && out.contains("kubesmith alpha update"),
        "{out}"
    );
    std::fs::write(&manifest, text).unwrap();
    ks(&dir)
        .args(["create", "webhook", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached", "--defaulting"])
        .assert()
        .success();
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Guest"]);
    let out = stdout(
        ks(&dir)
            .args(["create", "webhook", "--group", "cache", "--version", "v1alpha1", "--kind", "Guest"])
            .args(["--defaulting", "--programmatic-validation"]),
    );
    assert!(!out.contains("predates this kubesmith"), "{out}");
    assert!(!out.contains("warning: tests/webhook_v1alpha1_guest.rs"), "{out}");

    // A kind's test file without the constants the parts use gets the new part and a warning, once.
    let tests = dir.join("tests/webhook_v1alpha1_memcached.rs");
    std::fs::write(&tests, read(&tests).replace("const PLURAL: &str = \"memcacheds\";\n", "")).unwrap();
    let out = stdout(
        ks(&dir)
            .args(["create", "webhook", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"])
            .arg("--programmatic-validation"),
    );
    assert_eq!(
        out.matches(
            "warning: tests/webhook_v1alpha1_memcached.rs predates this kubesmith (it has no `const GROUP`, \
             `VERSION`, `KIND` and `PLURAL`)"
        )
        .count(),
        1,
        "{out}"
    );
    assert!(read(&tests).contains("async fn validation_denies_with_its_message_and_warns_on_update()"));
}

#[test]
fn the_same_api_twice_is_refused_unless_forced() {
    let (_t, dir) = project();
    let args = ["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"];
    create_api(&dir, &args);
    let types = dir.join("src/api/v1alpha1/memcached.rs");
    std::fs::write(&types, read(&types).replace("An example field", "My own field")).unwrap();
    let before = snapshot(&dir);
    let out = ks(&dir).args(["create", "api"]).args(args).assert().code(1).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&out).contains("already exists"), "{}", String::from_utf8_lossy(&out));
    assert_eq!(snapshot(&dir), before);
    ks(&dir).args(["create", "api"]).args(args).arg("--force").assert().success();
    assert!(!read(&types).contains("My own field"));
    let project = read(&dir.join("PROJECT"));
    assert_eq!(project.matches("kind: Memcached").count(), 1, "{project}");
    assert_eq!(read(&dir.join("src/main.rs")).matches("controller::memcached::registration()").count(), 1);
}

#[test]
fn name_rules_are_enforced_with_exit_2() {
    let (_t, dir) = project();
    let before = snapshot(&dir);
    for (args, needle) in [
        (["--group", "cache", "--version", "v1", "--kind", "memcached"], "upper-case"),
        (["--group", "cache", "--version", "v1", "--kind", "Mem-Cached"], "ASCII letters and digits"),
        (["--group", "Cache_", "--version", "v1", "--kind", "Memcached"], "DNS-1123 subdomain"),
        (["--group", "cache", "--version", "V1", "--kind", "Memcached"], "DNS-1035"),
        (["--group", "cache", "--version", "v1", "--kind", "Option"], "shadow"),
    ] {
        let out = ks(&dir).args(["create", "api"]).args(args).assert().code(2).get_output().stderr.clone();
        assert!(String::from_utf8_lossy(&out).contains(needle), "{args:?}: {}", String::from_utf8_lossy(&out));
    }
    assert_eq!(snapshot(&dir), before);
    // Unconventional but valid versions are accepted with a warning.
    let out =
        stdout(ks(&dir).args(["create", "api", "--group", "cache", "--version", "stable", "--kind", "Memcached"]));
    assert!(out.contains("warning: version `stable`"));
}

/// A kind in the project's domain itself (`--group ""`): its sample is named after the domain's first label, as
/// kubebuilder names its Go package (`core` is Kubernetes' own group), and kinds named like the Rust types the
/// generated code uses are taken: that code refers to them through aliases.
#[test]
fn a_kind_in_the_domain_group_and_kinds_named_like_rust_types() {
    let (_t, dir) = project();
    create_api(&dir, &["--group", "", "--version", "v1", "--kind", "Hook"]);
    assert!(dir.join("config/samples/example_v1_hook.yaml").is_file());
    let samples = read(&dir.join("config/samples/kustomization.yaml"));
    assert!(samples.contains("example_v1_hook.yaml") && !samples.contains("core_"), "{samples}");
    create_api(&dir, &["--group", "", "--version", "v1", "--kind", "Event"]);
    let controller = read(&dir.join("src/controller/event.rs"));
    assert!(controller.contains("type Kind = crate::api::v1::Event;"), "{controller}");
    assert!(controller.contains("events::{Event, EventType},"), "{controller}");
    assert!(!controller.contains("use crate::api::v1::Event"), "{controller}");
}

#[test]
fn a_second_group_needs_multigroup() {
    let (_t, dir) = project();
    create_api(&dir, &["--group", "cache", "--version", "v1", "--kind", "Memcached"]);
    let before = snapshot(&dir);
    let out = ks(&dir)
        .args(["create", "api", "--group", "web", "--version", "v1", "--kind", "Site"])
        .assert()
        .code(1)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&out).contains("--multigroup"));
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn multigroup_layout() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "multi-operator", &["--multigroup"]);
    create_api(&dir, &["--group", "cache", "--version", "v1", "--kind", "Memcached"]);
    create_api(&dir, &["--group", "web-apps", "--version", "v1beta1", "--kind", "Site", "--namespaced=false"]);
    assert!(dir.join("src/api/cache/v1/memcached.rs").is_file());
    assert!(dir.join("src/api/web_apps/v1beta1/site.rs").is_file());
    assert!(dir.join("src/controller/web_apps/site.rs").is_file());
    assert!(read(&dir.join("src/api.rs")).contains("pub mod web_apps;"));
    assert!(read(&dir.join("src/api/web_apps.rs")).contains("pub mod v1beta1;"));
    assert!(read(&dir.join("src/controller/web_apps.rs")).contains("pub mod site;"));
    assert!(read(&dir.join("src/main.rs")).contains("controller::web_apps::site::registration(),"));
    assert!(dir.join("config/rbac/web_apps_site_admin_role.yaml").is_file());
    assert!(read(&dir.join("PROJECT")).contains("path: multi_operator::api::web_apps::v1beta1"));
}

#[test]
fn a_missing_marker_fails_and_changes_nothing() {
    let (_t, dir) = project();
    let main = dir.join("src/main.rs");
    std::fs::write(&main, read(&main).replace("// +kubesmith:scaffold:controllers", "")).unwrap();
    let before = snapshot(&dir);
    let out = ks(&dir)
        .args(["create", "api", "--group", "cache", "--version", "v1", "--kind", "Memcached"])
        .assert()
        .code(1)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8_lossy(&out);
    assert!(err.contains("src/main.rs") && err.contains("+kubesmith:scaffold:controllers"), "{err}");
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn outside_a_project_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = ks(dir.path())
        .args(["create", "api", "--group", "cache", "--version", "v1", "--kind", "Memcached"])
        .assert()
        .code(1)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&out).contains("kubesmith init"));
}

#[test]
fn dry_run_writes_nothing() {
    let (_t, dir) = project();
    let before = snapshot(&dir);
    let text = stdout(ks(&dir).args([
        "create",
        "api",
        "--group",
        "cache",
        "--version",
        "v1",
        "--kind",
        "Memcached",
        "--dry-run",
    ]));
    assert!(text.contains("create    src/api/v1/memcached.rs") && text.contains("update    src/main.rs"), "{text}");
    assert_eq!(snapshot(&dir), before);
}

/// Each kind with a controller gets its control-plane test in `tests/envtest/<group>_<kind>.rs`, declared in
/// `tests/envtest/main.rs`, and each webhook part of the project's own kinds a test there too; the module names
/// are the same in the multigroup layout, and a project whose `tests/envtest/` an older kubesmith did not write
/// gets the kind's code with a warning instead.
#[test]
fn control_plane_tests_come_with_each_kind_and_webhook() {
    let (_t, dir) = project();
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    create_api(&dir, &["--group", "cache", "--version", "v1", "--kind", "Type", "--namespaced=false"]);
    create_api(&dir, &["--group", "cache", "--version", "v1beta1", "--kind", "Memcached", "--controller=false"]);
    ks(&dir)
        .args(["create", "webhook", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"])
        .args(["--defaulting", "--programmatic-validation", "--conversion", "--spoke", "v1beta1"])
        .assert()
        .success();
    let main = read(&dir.join("tests/envtest/main.rs"));
    let modules: Vec<&str> = main.lines().filter(|l| l.starts_with("mod ")).collect();
    assert_eq!(
        modules,
        [
            "mod leader_election;",
            "mod support;",
            "mod cache_memcached;",
            "mod cache_type;",
            "mod cache_v1alpha1_memcached_webhooks;"
        ]
    );
    let memcached = read(&dir.join("tests/envtest/cache_memcached.rs"));
    assert!(memcached.contains("use memcached_operator::api::v1alpha1::Memcached as Kind;"), "{memcached}");
    assert!(memcached.contains("const SAMPLE: &str = \"cache_v1alpha1_memcached.yaml\";"), "{memcached}");
    assert!(memcached.contains("Some(&namespace),"), "namespaced: {memcached}");
    let cluster_scoped = read(&dir.join("tests/envtest/cache_type.rs"));
    assert!(cluster_scoped.contains("controller::run, None)"), "cluster-scoped: {cluster_scoped}");
    let webhooks = read(&dir.join("tests/envtest/cache_v1alpha1_memcached_webhooks.rs"));
    for test in [
        "async fn the_api_server_applies_the_defaulting_webhook()",
        "async fn the_api_server_refuses_what_the_validating_webhook_denies()",
        "async fn the_api_server_converts_v1beta1_through_the_webhook()",
    ] {
        assert_eq!(webhooks.matches(test).count(), 1, "{test} in {webhooks}");
    }
    // Asking again adds nothing twice.
    ks(&dir)
        .args(["create", "webhook", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"])
        .args(["--defaulting", "--force"])
        .assert()
        .success();
    let again = read(&dir.join("tests/envtest/cache_v1alpha1_memcached_webhooks.rs"));
    assert_eq!(again.matches("async fn the_api_server_applies_the_defaulting_webhook()").count(), 1);

    // Types the project does not define get no control-plane test.
    ks(&dir)
        .args(["create", "webhook", "--group", "core", "--version", "v1", "--kind", "Pod", "--defaulting"])
        .assert()
        .success();
    assert!(!dir.join("tests/envtest/core_v1_pod_webhooks.rs").exists());

    // An older project: no tests/envtest/main.rs.
    std::fs::remove_dir_all(dir.join("tests/envtest")).unwrap();
    let out = stdout(ks(&dir).args(["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Guest"]));
    assert!(
        out.contains(
            "warning: tests/envtest/main.rs is missing (an older kubesmith scaffolded this project), so Guest"
        ) && out.contains("kubesmith alpha update"),
        "{out}"
    );
    assert!(!dir.join("tests/envtest").exists());
}
