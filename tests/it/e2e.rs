//! End to end: a scaffolded project builds with no warnings, passes clippy, rustfmt and its own tests, and its
//! kustomize tree renders. Generated projects share one target folder and one Cargo.lock
//! (`tests/e2e/operator.Cargo.lock`, refreshed by `cargo xtask bless`) so the cost is paid once.
//! Set `KUBESMITH_SKIP_E2E=1` to skip it during quick local runs; CI always runs it.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{BUSYBOX, MEMCACHED, blessing, create_api, init, ks, repo_root, standard_project};

pub(crate) fn shared_target() -> PathBuf {
    std::env::var_os("KUBESMITH_E2E_TARGET")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("operator-target"))
}

/// The environment of every build of a generated project, whether cargo runs it or kubesmith's compiled fallback
/// does: the shared target folder, and one set of settings so the builds share their artifacts. Incremental
/// state and full debug info are off: across the scaffolds, fixtures and harnesses they took over 10 GB of disk
/// in a CI run (and the linker dies with a bus error when the disk fills). Pair with `.env_remove("RUSTFLAGS")`.
pub(crate) fn shared_build_env() -> [(&'static str, std::ffi::OsString); 3] {
    build_env(shared_target())
}

/// The target folder of builds pinned to the kube-derive corpus' lock (`tests/conformance/kube-derive/
/// input-Cargo.lock`: the conformance harness, the compiled fallback's fixtures), apart from the scaffolds'. Both
/// locks hold mostly the same crates with other features, and a build of one may rewrite an artifact the other's
/// doctests are reading at that moment (cargo releases the folder's lock once it has built, before tests run).
pub(crate) fn corpus_target() -> PathBuf {
    shared_target().with_file_name("corpus-target")
}

/// [`shared_build_env`] for builds pinned to the corpus' lock, in [`corpus_target`].
pub(crate) fn corpus_build_env() -> [(&'static str, std::ffi::OsString); 3] {
    build_env(corpus_target())
}

fn build_env(target: PathBuf) -> [(&'static str, std::ffi::OsString); 3] {
    [
        ("CARGO_TARGET_DIR", target.into_os_string()),
        ("CARGO_INCREMENTAL", "0".into()),
        ("CARGO_PROFILE_DEV_DEBUG", "line-tables-only".into()),
    ]
}

fn lock_file() -> PathBuf {
    repo_root().join("tests/e2e/operator.Cargo.lock")
}

/// The webhook objects of the rendered `config/default` agree with each other: every webhook and the CRD's
/// conversion point at the rendered Service, the Certificate covers it, CA injection is wired.
fn check_webhook_wiring(rendered: &str) {
    let docs = kubesmith::yaml::from_multi_doc_str(rendered).expect("kustomize output is YAML");
    let of_kind = |k: &str| docs.iter().filter(|d| d["kind"] == k).collect::<Vec<_>>();
    let services: Vec<&str> = of_kind("Service").iter().filter_map(|s| s["metadata"]["name"].as_str()).collect();
    assert!(services.contains(&"memcached-operator-webhook-service"), "{services:?}");
    for kind in ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"] {
        let configs = of_kind(kind);
        assert_eq!(configs.len(), 1, "one {kind}");
        let annotation = &configs[0]["metadata"]["annotations"]["cert-manager.io/inject-ca-from"];
        assert_eq!(annotation, "memcached-operator-system/memcached-operator-serving-cert", "{kind}");
        for w in configs[0]["webhooks"].as_array().expect("webhooks") {
            let svc = &w["clientConfig"]["service"];
            assert_eq!(svc["name"], "memcached-operator-webhook-service");
            assert_eq!(svc["namespace"], "memcached-operator-system");
        }
    }
    let certs = of_kind("Certificate");
    assert_eq!(certs[0]["spec"]["dnsNames"][0], "memcached-operator-webhook-service.memcached-operator-system.svc");
    let crd = docs
        .iter()
        .find(|d| d["kind"] == "CustomResourceDefinition" && d["metadata"]["name"] == "memcacheds.cache.example.com")
        .expect("Memcached CRD rendered");
    let conversion = &crd["spec"]["conversion"];
    assert_eq!(conversion["strategy"], "Webhook");
    assert_eq!(conversion["webhook"]["clientConfig"]["service"]["name"], "memcached-operator-webhook-service");
    assert_eq!(conversion["webhook"]["clientConfig"]["service"]["path"], "/convert");
    let versions = crd["spec"]["versions"].as_array().expect("versions");
    let storage: Vec<_> = versions.iter().filter(|v| v["storage"] == true).map(|v| v["name"].clone()).collect();
    assert_eq!(storage, ["v1alpha1"], "the hub is the one storage version");
    assert!(crd["metadata"]["annotations"]["cert-manager.io/inject-ca-from"].is_string());
}

/// Runs a command in `dir`, returning its combined output; panics with the output when it fails.
fn run(dir: &Path, program: &str, args: &[&str]) -> String {
    let started = std::time::Instant::now();
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .envs(shared_build_env())
        .env_remove("RUSTFLAGS")
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    eprintln!("e2e: `{program} {}` took {:.1}s", args.join(" "), started.elapsed().as_secs_f64());
    assert!(out.status.success(), "`{program} {}` failed in {}:\n{text}", args.join(" "), dir.display());
    text
}

/// True (with a message) when `KUBESMITH_SKIP_E2E` asks to skip the end-to-end builds.
fn skipped() -> bool {
    let skip = std::env::var_os("KUBESMITH_SKIP_E2E").is_some();
    if skip {
        eprintln!("KUBESMITH_SKIP_E2E is set: skipping the end-to-end build of a scaffolded operator");
    }
    skip
}

/// Gives a scaffolded project the pinned lock file (unless blessing, which resolves it again).
fn pin_lock(dir: &Path) {
    if !blessing() {
        std::fs::copy(lock_file(), dir.join("Cargo.lock")).expect("tests/e2e/operator.Cargo.lock exists");
    }
}

/// Whether the scaffolded operators' control-plane tests (`tests/envtest`) run here: `KUBEBUILDER_ASSETS` names the
/// etcd + kube-apiserver binaries (CI sets it, and `KUBESMITH_REQUIRE_CONTROL_PLANE=1`, so they cannot skip).
fn control_plane() -> bool {
    std::env::var_os("KUBEBUILDER_ASSETS").is_some_and(|v| !v.is_empty())
}

/// The control-plane tests of the project in `dir` (built already) fail when a control plane is required and there
/// are no binaries: they really need the API server, and say how to get it.
fn envtest_requires_its_binaries(dir: &Path) {
    let out = Command::new("cargo")
        .args(["test", "--test", "envtest"])
        .current_dir(dir)
        .envs(shared_build_env())
        .env_remove("RUSTFLAGS")
        .env_remove("KUBEBUILDER_ASSETS")
        .env("KUBESMITH_REQUIRE_CONTROL_PLANE", "1")
        .output()
        .expect("cargo runs");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "the control-plane tests pass without a control plane:\n{text}");
    assert!(
        text.contains("KUBESMITH_REQUIRE_CONTROL_PLANE=1 but no control plane: KUBEBUILDER_ASSETS is not set"),
        "{text}"
    );
    envtest_says_what_is_wrong(dir);
}

/// The control-plane tests of the project in `dir` (built already) against `KUBEBUILDER_ASSETS` folders that do
/// not work: a folder without the binaries fails (it is a mistake, not a machine without binaries), and an API
/// server that dies while starting fails with its log, not with the connection errors of the readiness wait.
fn envtest_says_what_is_wrong(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let assets = tempfile::tempdir().unwrap();
    let envtest = |assets: &Path| {
        let out = Command::new("cargo")
            .args(["test", "--test", "envtest"])
            .current_dir(dir)
            .envs(shared_build_env())
            .env_remove("RUSTFLAGS")
            .env_remove("KUBESMITH_REQUIRE_CONTROL_PLANE")
            .env("KUBEBUILDER_ASSETS", assets)
            .output()
            .expect("cargo runs");
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(
            !out.status.success(),
            "the control-plane tests pass with KUBEBUILDER_ASSETS={}:\n{text}",
            assets.display()
        );
        text
    };
    let text = envtest(assets.path());
    assert!(text.contains(&format!("KUBEBUILDER_ASSETS={} has no etcd", assets.path().display())), "{text}");
    assert!(!text.contains("envtest: skipping"), "{text}");
    for (name, script) in [
        ("etcd", "#!/bin/sh\nsleep 30\n"),
        (
            "kube-apiserver",
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'Kubernetes v1.37.0'; exit 0; fi\n\
             sleep 3; echo 'fake kube-apiserver: cannot start'; exit 1\n",
        ),
    ] {
        let path = assets.path().join(name);
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let text = envtest(assets.path());
    assert!(text.contains("kube-apiserver exited") && text.contains("fake kube-apiserver: cannot start"), "{text}");
    for noise in ["client error (Connect)", "Connection refused", "ERROR"] {
        assert!(!text.contains(noise), "the readiness wait logs `{noise}`:\n{text}");
    }
}

/// `cargo build` with no warnings, `cargo fmt --check`, `cargo clippy -D warnings`, then `cargo test`; returns the
/// tests' output and how many passed, at least `min_passed`, `expected` among them.
pub(crate) fn build_lint_test(dir: &Path, min_passed: usize, expected: &[&str]) -> (String, usize) {
    let build = run(dir, "cargo", &["build"]);
    assert!(!build.contains("warning"), "the scaffolded operator builds with warnings:\n{build}");
    run(dir, "cargo", &["fmt", "--check"]);
    run(dir, "cargo", &["clippy", "--all-targets", "--", "-D", "warnings"]);
    // Every target but the doctests (the scaffold has none): rustdoc runs outside cargo's lock of the shared target
    // folder with `--extern` paths, and another project's build there rewrites an rlib they name (every project's
    // vendored kubesmith-runtime has the same artifact name).
    let tests = run(dir, "cargo", &["test", "--all-targets"]);
    let passed: usize = tests
        .lines()
        .filter_map(|l| l.strip_prefix("test result: ok. "))
        .filter_map(|l| l.split(' ').next()?.parse::<usize>().ok())
        .sum();
    assert!(passed >= min_passed, "the scaffolded operator ran only {passed} tests:\n{tests}");
    if control_plane() {
        assert!(!tests.contains("envtest: skipping"), "the control-plane tests skipped:\n{tests}");
    }
    for test in expected {
        assert!(tests.contains(&format!("{test} ... ok")), "the scaffolded operator did not pass `{test}`:\n{tests}");
    }
    eprintln!("e2e: the scaffolded operator passed {passed} tests");
    (tests, passed)
}

#[test]
fn scaffolded_operator_builds_tests_lints_and_renders() {
    if skipped() {
        return;
    }
    let parent = tempfile::tempdir().unwrap();
    let dir = standard_project(parent.path());
    pin_lock(&dir);

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
    check_webhook_wiring(&rendered);
    ks(&dir).args(["make", "manifests", "--check"]).assert().success();

    // The manager's, the webhook server's and the test support's own tests are kubesmith-runtime's
    // (`cargo test -p kubesmith-runtime`); the project runs its kinds'.
    build_lint_test(
        &dir,
        40,
        &[
            "defaulting_returns_a_json_patch_that_applies_and_defaults",
            "validation_denies_with_its_message_and_warns_on_update",
            "conversion_round_trips_hub_to_v1beta1_to_hub_without_loss",
            "new_object_gets_finalizer",
            "leader_election::replicas_elect_one_leader_on_a_lease_in_the_manager_namespace",
            "cache_memcached::the_sample_is_reconciled_as_the_manager",
            "cache_cluster::the_sample_is_reconciled_as_the_manager",
            "cache_match::the_sample_is_reconciled_as_the_manager",
            "cache_v1alpha1_memcached_webhooks::the_api_server_applies_the_defaulting_webhook",
            "cache_v1alpha1_memcached_webhooks::the_api_server_refuses_what_the_validating_webhook_denies",
            "cache_v1alpha1_memcached_webhooks::the_api_server_converts_v1beta1_through_the_webhook",
        ],
    );
    envtest_requires_its_binaries(&dir);
    compiled_fallback_on_the_scaffold(&dir);

    // A project with no API yet must build and lint cleanly too (shared code with nothing using it yet).
    let bare = init(parent.path(), "bare-operator", &[]);
    std::fs::copy(lock_file(), bare.join("Cargo.lock")).expect("lock file");
    run(&bare, "cargo", &["clippy", "--all-targets", "--", "-D", "warnings"]);
    run(&bare, "cargo", &["fmt", "--check"]);

    if blessing() {
        std::fs::create_dir_all(lock_file().parent().unwrap()).unwrap();
        std::fs::copy(dir.join("Cargo.lock"), lock_file()).unwrap();
    }
}

/// The tutorial's operator (`create api --image`, kubebuilder's deploy-image plugin): Memcached with a command, a
/// port and a user, Busybox with only an image; plus a controller for apps/v1 Deployments and a Pod defaulting
/// webhook, types the project does not define. Each runs its image as a Deployment it owns; the manager's
/// environment names the images, the role grants what the reconcilers call, and the project builds and passes its
/// tests, clippy and rustfmt.
#[test]
fn tutorial_operator_builds_tests_lints_and_renders() {
    if skipped() {
        return;
    }
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &[]);
    create_api(&dir, &MEMCACHED);
    create_api(&dir, &BUSYBOX);
    // types the project does not define: a controller for apps/v1 Deployments and a Pod defaulting webhook
    create_api(
        &dir,
        &["--group", "apps", "--version", "v1", "--kind", "Deployment", "--controller", "--resource=false"],
    );
    ks(&dir)
        .args(["create", "webhook", "--group", "core", "--version", "v1", "--kind", "Pod", "--defaulting"])
        .assert()
        .success();
    ks(&dir)
        .args(["create", "webhook", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"])
        .args(["--defaulting", "--programmatic-validation"])
        .assert()
        .success();
    let out = ks(&dir).args(["make", "manifests"]).assert().success();
    let said = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(!said.contains("warning"), "make manifests warns on the tutorial operator:\n{said}");
    pin_lock(&dir);

    let rendered = run(&dir, "kubectl", &["kustomize", "config/default"]);
    let docs = kubesmith::yaml::from_multi_doc_str(&rendered).expect("kustomize output is YAML");
    let manager = docs.iter().find(|d| d["kind"] == "Deployment").expect("the manager Deployment");
    let env = &manager["spec"]["template"]["spec"]["containers"][0]["env"];
    let value =
        |name: &str| env.as_array().into_iter().flatten().find(|e| e["name"] == name).map(|e| e["value"].clone());
    assert_eq!(value("MEMCACHED_IMAGE"), Some("memcached:1.6.26-alpine3.19".into()), "{env}");
    assert_eq!(value("BUSYBOX_IMAGE"), Some("busybox:1.36.1".into()), "{env}");
    let role = docs.iter().find(|d| d["metadata"]["name"] == "memcached-operator-manager-role").expect("manager role");
    let grants = |group: &str, resource: &str, verb: &str| {
        role["rules"].as_array().into_iter().flatten().any(|r| {
            let has = |key: &str, v: &str| r[key].as_array().into_iter().flatten().any(|x| x == v);
            has("apiGroups", group) && has("resources", resource) && has("verbs", verb)
        })
    };
    for (group, resource, verb) in [
        ("apps", "deployments", "create"),
        ("apps", "deployments", "patch"),
        ("apps", "deployments", "watch"),
        ("", "pods", "list"),
        ("cache.example.com", "memcacheds/finalizers", "update"),
        ("cache.example.com", "busyboxes/status", "patch"),
    ] {
        assert!(grants(group, resource, verb), "the manager role does not grant {verb} on {group}/{resource}:\n{role}");
    }
    let pod_hooks: Vec<&serde_json::Value> = docs
        .iter()
        .filter(|d| d["kind"] == "MutatingWebhookConfiguration")
        .flat_map(|d| d["webhooks"].as_array().into_iter().flatten())
        .filter(|w| w["rules"][0]["resources"] == serde_json::json!(["pods"]))
        .collect();
    assert_eq!(pod_hooks.len(), 1, "one Pod defaulting webhook rendered:\n{rendered}");
    assert_eq!(pod_hooks[0]["rules"][0]["apiGroups"], serde_json::json!([""]));
    assert_eq!(pod_hooks[0]["clientConfig"]["service"]["path"], "/mutate--v1-pod");
    for sub in ["config/samples", "config/manifests"] {
        run(&dir, "kubectl", &["kustomize", sub]);
    }
    ks(&dir).args(["make", "manifests", "--check"]).assert().success();

    build_lint_test(
        &dir,
        40,
        &[
            "controller::memcached::tests::new_object_gets_its_deployment_and_is_progressing",
            "controller::memcached::tests::size_change_patches_replicas_and_records_the_scale",
            "controller::memcached::tests::all_pods_ready_is_available",
            "controller::memcached::tests::invalid_size_is_degraded_and_gets_no_deployment",
            "controller::memcached::tests::deployment_runs_the_image_restricted_and_owned",
            "controller::busybox::tests::failing_pod_makes_it_degraded_with_the_pod_reason",
            "controller::deployment::tests::reconcile_writes_nothing_and_waits_for_the_next_change",
            "webhook::v1::pod::defaulting::tests::defaulting_patch_adds_the_team_label_and_nothing_else",
            "defaulting_labels_the_team_with_a_json_patch",
            "cache_memcached::the_sample_runs_as_an_owned_deployment_that_follows_its_size",
            "cache_busybox::the_sample_runs_as_an_owned_deployment_that_follows_its_size",
            "cache_v1alpha1_memcached_webhooks::the_api_server_applies_the_defaulting_webhook",
            "cache_v1alpha1_memcached_webhooks::the_api_server_refuses_what_the_validating_webhook_denies",
        ],
    );
}

/// A namespace-scoped manager (`init --namespaced`): its role is a Role in its own namespace, so its control-plane
/// tests run the controllers there, as the manager's ServiceAccount, and prove that Role is enough. Its Memcached
/// has a conversion webhook and no other; kinds named `Webhook` and `Deployment` (types the generated code uses)
/// have their controllers and webhooks; the project passes clippy.
#[test]
fn namespaced_operator_passes_its_tests() {
    if skipped() {
        return;
    }
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &["--namespaced"]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    create_api(&dir, &BUSYBOX);
    // A conversion webhook alone: its control-plane tests file holds only what conversion uses (clippy below).
    create_api(&dir, &["--group", "cache", "--version", "v1beta1", "--kind", "Memcached", "--controller=false"]);
    ks(&dir)
        .args(["create", "webhook", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"])
        .args(["--conversion", "--spoke", "v1beta1"])
        .assert()
        .success();
    // Kinds named like the types the generated code imports (the runtime's `Webhook`, k8s-openapi's `Deployment`).
    create_api(&dir, &["--group", "cache", "--version", "v1", "--kind", "Webhook"]);
    ks(&dir)
        .args(["create", "webhook", "--group", "cache", "--version", "v1", "--kind", "Webhook"])
        .args(["--defaulting", "--programmatic-validation"])
        .assert()
        .success();
    create_api(&dir, &["--group", "cache", "--version", "v1", "--kind", "Deployment", "--image", "nginx:1.27"]);
    ks(&dir).args(["make", "manifests"]).assert().success();
    pin_lock(&dir);
    run(&dir, "cargo", &["clippy", "--all-targets", "--", "-D", "warnings"]);
    let tests = run(&dir, "cargo", &["test", "--all-targets"]); // no doctests: see build_lint_test
    for test in [
        "cache_memcached::the_sample_is_reconciled_as_the_manager",
        "cache_v1alpha1_memcached_webhooks::the_api_server_converts_v1beta1_through_the_webhook",
        "cache_webhook::the_sample_is_reconciled_as_the_manager",
        "cache_v1_webhook_webhooks::the_api_server_applies_the_defaulting_webhook",
        "cache_deployment::the_sample_runs_as_an_owned_deployment_that_follows_its_size",
        "cache_busybox::the_sample_runs_as_an_owned_deployment_that_follows_its_size",
        "leader_election::replicas_elect_one_leader_on_a_lease_in_the_manager_namespace",
    ] {
        assert!(tests.contains(&format!("{test} ... ok")), "the namespaced operator did not pass `{test}`:\n{tests}");
    }
    if control_plane() {
        assert!(!tests.contains("envtest: skipping"), "the control-plane tests skipped:\n{tests}");
    }
}

/// A `schema_with` function only compiling can evaluate (a loop), on Cluster's `foo`: `make manifests` compiles that
/// one kind through the library the scaffold exposes (`pub mod api`), and keeps every other kind static.
fn compiled_fallback_on_the_scaffold(dir: &Path) {
    let api = dir.join("src/api/v1/cluster.rs");
    let text = std::fs::read_to_string(&api).unwrap();
    let field = "    pub foo: Option<String>,";
    assert!(text.contains(field), "{text}");
    let text = text.replacen(field, &format!("    #[schemars(schema_with = \"foo_schema\")]\n{field}"), 1)
        + "\n/// The sizes foo may take, built at run time.\npub fn foo_schema(_: &mut schemars::SchemaGenerator) -> \
           schemars::Schema {\n    let mut sizes = Vec::new();\n    for size in [\"small\", \"large\"] {\n        \
           sizes.push(serde_json::Value::from(size));\n    }\n    schemars::json_schema!({\"type\": \"string\", \
           \"enum\": sizes})\n}\n";
    std::fs::write(&api, text).unwrap();
    let out = ks(dir).args(["make", "manifests"]).envs(shared_build_env()).env_remove("RUSTFLAGS").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("note: compiled Cluster (clusters.cache.example.com) v1 for its schema:"), "{stdout}");
    assert!(!stdout.contains("compiled Memcached") && !stdout.contains("compiled Match"), "{stdout}");
    // The build is said before it starts (stderr is no terminal here: plain lines).
    let stderr = String::from_utf8_lossy(&out.stderr);
    let compiling = "compiling 1 kind(s) of memcached-operator whose CRD only its own code gives (Cluster \
                     (clusters.cache.example.com v1)): cargo builds a harness in ";
    let started = stderr.lines().any(|l| l.starts_with(compiling) && l.ends_with(" ..."));
    let done = stderr.lines().any(|l| l.starts_with(compiling) && l.contains("takes minutes: done in "));
    assert!(started && done, "{stderr}");
    let crd: serde_json::Value = serde_yaml_ng::from_str(
        &std::fs::read_to_string(dir.join("config/crd/bases/cache.example.com_clusters.yaml")).unwrap(),
    )
    .unwrap();
    let foo_schema = crd.pointer("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/foo").unwrap();
    assert_eq!(foo_schema["enum"], serde_json::json!(["small", "large"]), "{foo_schema}");
    assert_eq!(foo_schema["type"], "string");
    let harness = shared_target().join("kubesmith/crdgen-memcached-operator/main.rs");
    let main = std::fs::read_to_string(&harness).unwrap();
    assert!(main.contains("crate_under_test::api::v1::Cluster"), "depends on the library: {main}");
    // Warm, --check compiles again and agrees.
    let started = std::time::Instant::now();
    ks(dir).args(["make", "manifests", "--check"]).envs(shared_build_env()).env_remove("RUSTFLAGS").assert().success();
    eprintln!("e2e: make manifests --check with the compiled fallback, warm: {:.1}s", started.elapsed().as_secs_f64());
}
