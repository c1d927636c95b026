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

#[test]
fn a_project_file_missing_or_mangling_a_required_key_is_refused_naming_it() {
    let parent = tempfile::tempdir().unwrap();
    let dir = project(parent.path());
    let good = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    for (broken, want) in [
        (good.replace("\ndomain: example.com\n", "\n"), "PROJECT: the required key `domain` is missing"),
        (good.replace("\ndomain: example.com", "\ndomain: Example_com"), "PROJECT: `domain: Example_com` is invalid"),
        (good.replace("projectName: memcached-operator\n", ""), "PROJECT: the required key `projectName` is missing"),
    ] {
        std::fs::write(dir.join("PROJECT"), &broken).unwrap();
        let before = snapshot(&dir);
        for args in
            [&["create", "api", "--group", "cache", "--version", "v1", "--kind", "Foo"][..], &["make", "manifests"]]
        {
            let out = ks(&dir).args(args).output().unwrap();
            assert_eq!(out.status.code(), Some(1), "{args:?}: {}", output(&out));
            let text = output(&out);
            assert!(text.contains(want), "{args:?}: missing {want:?} in {text}");
            assert!(!text.contains("--group"), "the PROJECT is to blame, not the flag: {text}");
            assert_eq!(snapshot(&dir), before);
        }
    }
}

#[test]
fn messages_lead_somewhere() {
    let parent = tempfile::tempdir().unwrap();
    // An existing crate: init and create api both point to adopt.
    let krate = parent.path().join("existing");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::write(
        krate.join("Cargo.toml"),
        "[package]\nname = \"existing\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    std::fs::write(krate.join("src/main.rs"), "fn main() {}\n").unwrap();
    let before = snapshot(&krate);
    let out = ks(&krate).args(["init", "--domain", "example.com"]).output().unwrap();
    assert!(!out.status.success() && output(&out).contains("run `kubesmith adopt`"), "{}", output(&out));
    let out = ks(&krate).args(["create", "api", "--group", "a", "--version", "v1", "--kind", "B"]).output().unwrap();
    assert!(!out.status.success() && output(&out).contains("run `kubesmith adopt`"), "{}", output(&out));
    assert_eq!(snapshot(&krate), before);
    // A project: commands run from a subfolder work on the project above, as cargo does.
    let dir = project(parent.path());
    let out = ks(&dir.join("src/controller")).args(["make", "manifests", "--check"]).output().unwrap();
    assert!(out.status.success(), "{}", output(&out));
    assert!(output(&out).contains("note: working in the project at"), "{}", output(&out));
    let out = ks(&dir.join("src"))
        .args(["create", "api", "--group", "cache", "--version", "v1", "--kind", "Pool"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", output(&out));
    assert!(dir.join("src/api/v1/pool.rs").is_file() && !dir.join("src/src").exists());
    // init beside files it does not write keeps them and says so; hidden ones go unmentioned.
    let fresh = parent.path().join("fresh");
    std::fs::create_dir_all(fresh.join(".git")).unwrap();
    std::fs::write(fresh.join("NOTES.txt"), "mine\n").unwrap();
    let out = ks(&fresh).args(["init", "--domain", "example.com"]).output().unwrap();
    assert!(out.status.success(), "{}", output(&out));
    assert!(output(&out).contains("init does not write, kept as they are: NOTES.txt"), "{}", output(&out));
    assert_eq!(std::fs::read_to_string(fresh.join("NOTES.txt")).unwrap(), "mine\n");
}

#[test]
fn make_bundle_refuses_crds_older_than_the_types() {
    let parent = tempfile::tempdir().unwrap();
    let dir = project(parent.path());
    // CRDs made with shorter descriptions are current all the same.
    ks(&dir).args(["make", "manifests", "--max-description-length", "0"]).assert().success();
    ks(&dir).args(["make", "bundle", "--version", "0.1.0"]).assert().success();
    let api = dir.join("src/api/v1alpha1/memcached.rs");
    let text = std::fs::read_to_string(&api).unwrap();
    let changed = text
        .replace("pub struct MemcachedSpec {\n", "pub struct MemcachedSpec {\n    pub added_later: Option<String>,\n");
    assert_ne!(changed, text);
    std::fs::write(&api, changed).unwrap();
    let before = snapshot(&dir);
    let out = ks(&dir).args(["make", "bundle", "--version", "0.2.0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", output(&out));
    let text = output(&out);
    assert!(
        text.contains("the CRDs in config/crd/bases are older than the types in the sources: config/crd/bases/cache.example.com_memcacheds.yaml (stale); run `kubesmith make manifests` first"),
        "{text}"
    );
    assert_eq!(snapshot(&dir), before);
    ks(&dir).args(["make", "manifests"]).assert().success();
    ks(&dir).args(["make", "bundle", "--version", "0.2.0"]).assert().success();
    let crd = std::fs::read_to_string(dir.join("bundle/manifests/cache.example.com_memcacheds.yaml")).unwrap();
    assert!(crd.contains("addedLater") || crd.contains("added_later"), "{crd}");
}

#[test]
fn the_scaffold_passes_operator_frameworks_suite_saying_each_finding_once() {
    let parent = tempfile::tempdir().unwrap();
    let dir = project(parent.path());
    ks(&dir).args(["make", "bundle", "--version", "0.1.0"]).assert().success();
    let csv =
        std::fs::read_to_string(dir.join("bundle/manifests/memcached-operator.clusterserviceversion.yaml")).unwrap();
    assert!(csv.contains("minKubeVersion: 1.37.0") && csv.contains("mediatype: image/svg+xml"), "{csv}");
    let out = ks(&dir)
        .args(["bundle", "validate", "bundle", "--select-optional", "suite=operatorframework"])
        .output()
        .unwrap();
    let text = output(&out);
    assert!(out.status.success(), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let mut unique = lines.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), lines.len(), "a finding printed twice:\n{text}");
    assert!(!text.contains("minKubeVersion is not informed") && !text.contains("csv.Spec.Icon"), "{text}");
    if text.contains("for events:") {
        assert!(text.contains("note: nothing to do about the events rule"), "{text}");
    }
    // A base CSV whose icon was emptied: the error names the file to edit.
    let base = dir.join("config/manifests/bases/memcached-operator.clusterserviceversion.yaml");
    let text = std::fs::read_to_string(&base).unwrap();
    let start = text.find("  - base64data: ").unwrap();
    let end = start + text[start..].find('\n').unwrap();
    std::fs::write(
        &base,
        format!("{}  - base64data: \"\"{}", &text[..start], &text[end..])
            .replace("mediatype: image/svg+xml", "mediatype: \"\""),
    )
    .unwrap();
    ks(&dir).args(["make", "bundle", "--version", "0.1.0"]).assert().success();
    let out = ks(&dir)
        .args(["bundle", "validate", "bundle", "--select-optional", "suite=operatorframework"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        output(&out).contains("hint: give spec.icon a base64data and a mediatype (image/svg+xml, image/png, ..) in config/manifests/bases/memcached-operator.clusterserviceversion.yaml"),
        "{}",
        output(&out)
    );
}

#[test]
fn samples_and_alm_examples_are_checked_against_their_crd() {
    let parent = tempfile::tempdir().unwrap();
    let dir = project(parent.path());
    ks(&dir).args(["make", "bundle", "--version", "0.1.0"]).assert().success();
    let sample = dir.join("config/samples/cache_v1alpha1_memcached.yaml");
    let good = std::fs::read_to_string(&sample).unwrap();
    assert!(good.contains("spec:"), "{good}");
    // `foo` is a string field; a number and an unknown field are what the API server refuses.
    let bad = format!(
        "{}\n  foo: 12345\n  notAField: 3\n",
        good.trim_end().trim_end_matches("spec: {}").trim_end_matches("spec:")
    )
    .replace("\n\n  foo", "\nspec:\n  foo");
    let bad = if bad.contains("spec:\n  foo") { bad } else { bad.replace("\n  foo: 12345", "\nspec:\n  foo: 12345") };
    std::fs::write(&sample, &bad).unwrap();
    let out = ks(&dir).args(["make", "manifests"]).output().unwrap();
    assert!(out.status.success(), "{}", output(&out));
    let text = output(&out);
    assert!(
        text.contains("warning: config/samples/cache_v1alpha1_memcached.yaml: Memcached memcached-sample: spec.foo: 12345 is not of type"),
        "{text}\n{bad}"
    );
    assert!(text.contains("notAField"), "{text}");
    let before = snapshot(&dir);
    let out = ks(&dir).args(["make", "bundle", "--version", "0.1.0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", output(&out));
    assert!(
        output(&out).contains("alm-examples: Memcached memcached-sample: spec.foo: 12345 is not of type"),
        "{}",
        output(&out)
    );
    assert_eq!(snapshot(&dir), before);
    // A bundle edited by hand: bundle validate says the same.
    let csv_path = dir.join("bundle/manifests/memcached-operator.clusterserviceversion.yaml");
    let mut csv: serde_json::Value = serde_yaml_ng::from_str(&std::fs::read_to_string(&csv_path).unwrap()).unwrap();
    let examples = csv["metadata"]["annotations"]["alm-examples"].as_str().unwrap().to_string();
    let mut examples: serde_json::Value = serde_json::from_str(&examples).unwrap();
    examples[0]["spec"] = serde_json::json!({"foo": 7});
    csv["metadata"]["annotations"]["alm-examples"] = serde_json::Value::String(examples.to_string());
    std::fs::write(&csv_path, kubesmith::yaml::to_string(&csv)).unwrap();
    let out = ks(&dir).args(["bundle", "validate", "bundle"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", output(&out));
    assert!(
        output(&out).contains("alm-examples: Memcached memcached-sample: spec.foo: 7 is not of type"),
        "{}",
        output(&out)
    );
}

#[test]
fn webhook_tests_send_objects_valid_for_the_kind_as_it_is_now() {
    let parent = tempfile::tempdir().unwrap();
    let dir = project(parent.path());
    let api = dir.join("src/api/v1alpha1/memcached.rs");
    let text = std::fs::read_to_string(&api).unwrap();
    let required = "pub struct MemcachedSpec {\n    /// Size is the number of pods.\n    // +kubebuilder:validation:Minimum=1\n    pub size: i32,\n";
    std::fs::write(&api, text.replace("pub struct MemcachedSpec {\n", required)).unwrap();
    ks(&dir).args(["make", "manifests"]).assert().success();
    ks(&dir)
        .args(["create", "webhook", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"])
        .args(["--defaulting", "--programmatic-validation"])
        .assert()
        .success();
    for file in [
        "tests/webhook_v1alpha1_memcached.rs",
        "tests/envtest/cache_v1alpha1_memcached_webhooks.rs",
        "src/webhook/v1alpha1/memcached/defaulting.rs",
        "src/webhook/v1alpha1/memcached/validation.rs",
    ] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(text.contains("json!({\"size\": 1})"), "{file} builds its objects from the least valid spec:\n{text}");
        assert!(!text.contains("MemcachedSpec {\n"), "{file} spells out the spec's fields:\n{text}");
    }
}

#[test]
fn the_webhook_server_comes_with_the_first_webhook() {
    let parent = tempfile::tempdir().unwrap();
    let dir = project(parent.path());
    let read = |file: &str| std::fs::read_to_string(dir.join(file)).unwrap_or_default();
    assert!(!dir.join("src/webhook.rs").exists(), "init writes no webhook server");
    assert!(!read("src/lib.rs").contains("pub mod webhook;"), "{}", read("src/lib.rs"));
    assert!(!read("src/main.rs").contains("webhook"), "{}", read("src/main.rs"));
    assert!(!read("Cargo.toml").contains("json-patch"), "{}", read("Cargo.toml"));
    assert!(read("tests/envtest/support.rs").contains("webhooks: Vec::new,"), "{}", read("tests/envtest/support.rs"));

    ks(&dir)
        .args(["create", "webhook", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"])
        .arg("--defaulting")
        .assert()
        .success();
    assert!(read("src/webhook.rs").contains("pub fn server() -> Server"), "{}", read("src/webhook.rs"));
    assert!(read("src/lib.rs").contains("pub mod controller;\npub mod webhook;\n"), "{}", read("src/lib.rs"));
    let with_server = "    let manager = manager.with_server(memcached_operator::webhook::server());\n";
    assert!(read("src/main.rs").contains(with_server), "{}", read("src/main.rs"));
    assert!(read("Cargo.toml").contains("\njson-patch = \"4\" "), "{}", read("Cargo.toml"));
    let support = read("tests/envtest/support.rs");
    assert!(support.contains("webhooks: memcached_operator::webhook::registrations,"), "{support}");

    // A second webhook (another part, a built-in type) adds its own modules and nothing twice.
    let shared = ["src/lib.rs", "src/main.rs", "Cargo.toml", "tests/envtest/support.rs"].map(read);
    for args in [
        &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached", "--programmatic-validation"][..],
        &["--group", "core", "--version", "v1", "--kind", "Pod", "--defaulting"][..],
    ] {
        ks(&dir).args(["create", "webhook"]).args(args).assert().success();
    }
    assert_eq!(["src/lib.rs", "src/main.rs", "Cargo.toml", "tests/envtest/support.rs"].map(read), shared);
    assert_eq!(read("src/webhook.rs").matches("registration(),").count(), 2, "{}", read("src/webhook.rs"));
}

/// `init` + `create api` + `cargo test` (no `make manifests` between, as the check scripts and impatient users
/// do): the role already grants what the new controller's markers say, so its control-plane test is not refused.
#[test]
fn create_api_grants_the_controllers_markers_at_once() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    let role = std::fs::read_to_string(dir.join("config/rbac/role.yaml")).unwrap();
    let docs = kubesmith::yaml::from_multi_doc_str(&role).unwrap();
    let rules = docs[0]["rules"].as_array().unwrap();
    let memcacheds = rules.iter().find(|r| r["resources"] == serde_json::json!(["memcacheds"])).expect(&role);
    assert_eq!(memcacheds["apiGroups"], serde_json::json!(["cache.example.com"]), "{role}");
    assert_eq!(memcacheds["verbs"], serde_json::json!(["list", "patch", "watch"]), "{role}");
    let before = snapshot(&dir);
    let out = ks(&dir).args(["make", "manifests"]).assert().success().get_output().clone();
    assert!(output(&out).contains("everything is up to date"), "{}", output(&out));
    assert_eq!(snapshot(&dir), before);
}
