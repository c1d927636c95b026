//! `kubesmith create webhook`: files, PROJECT entries, incremental additions, storage version, errors.

use crate::support::{create_api, init, ks, read, snapshot};

fn project() -> (tempfile::TempDir, std::path::PathBuf) {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    create_api(&dir, &["--group", "cache", "--version", "v1beta1", "--kind", "Memcached", "--controller=false"]);
    (parent, dir)
}

fn webhook(dir: &std::path::Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    ks(dir)
        .args(["create", "webhook", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"])
        .args(extra)
        .assert()
}

#[test]
fn defaulting_then_validation_then_conversion_add_only_what_is_new() {
    let (_t, dir) = project();
    webhook(&dir, &["--defaulting"]).success();
    let kind = dir.join("src/webhook/v1alpha1/memcached.rs");
    assert!(read(&kind).contains("defaulting::webhook(),"));
    assert!(!read(&kind).contains("validation::webhook(),"));
    assert!(read(&dir.join("src/webhook.rs")).contains("v1alpha1::memcached::registration(),"));
    let defaulting = dir.join("src/webhook/v1alpha1/memcached/defaulting.rs");
    assert!(read(&defaulting).contains(
        "// +kubebuilder:webhook:path=/mutate-cache-example-com-v1alpha1-memcached,mutating=true,failurePolicy=fail,\
         sideEffects=None,groups=cache.example.com,resources=memcacheds,verbs=create;update,versions=v1alpha1,\
         name=mmemcached-v1alpha1.kb.io,admissionReviewVersions=v1"
    ));
    let manifests = read(&dir.join("config/webhook/manifests.yaml"));
    assert!(manifests.contains("kind: MutatingWebhookConfiguration") && !manifests.contains("Validating"));
    assert!(read(&dir.join("config/default/kustomization.yaml")).contains("\n- ../webhook\n"));

    // The user edits the defaulter; adding validation keeps the edit.
    std::fs::write(&defaulting, read(&defaulting).replace("\"default\"", "\"mine\"")).unwrap();
    webhook(&dir, &["--programmatic-validation", "--defaulting"]).success();
    assert!(read(&defaulting).contains("\"mine\""));
    assert!(read(&kind).contains("validation::webhook(),"));
    assert!(read(&dir.join("config/webhook/manifests.yaml")).contains("kind: ValidatingWebhookConfiguration"));
    let tests = read(&dir.join("tests/webhook_v1alpha1_memcached.rs"));
    assert_eq!(tests.matches("async fn defaulting_returns").count(), 1);
    assert_eq!(tests.matches("async fn validation_denies").count(), 1);

    webhook(&dir, &["--conversion", "--spoke", "v1beta1"]).success();
    assert!(read(&kind).contains("conversion::webhook(),"));
    assert!(
        read(&dir.join("src/webhook/v1alpha1/memcached/conversion.rs"))
            .contains("let conversion = conversion.spoke::<crate::api::v1beta1::Memcached>();")
    );
    assert!(read(&dir.join("src/api/v1beta1.rs")).contains("mod memcached_conversion;"));
    assert!(dir.join("src/api/v1beta1/memcached_conversion.rs").is_file());
    assert!(read(&dir.join("src/api/v1alpha1/memcached.rs")).contains("// +kubebuilder:storageversion"));
    assert!(read(&dir.join("src/api/v1beta1/memcached.rs")).contains("storage = false"));
    assert!(read(&dir.join("config/crd/kustomization.yaml")).contains("- path: patches/webhook_in_memcacheds.yaml"));
    let project = read(&dir.join("PROJECT"));
    assert!(
        project.contains(
            "  webhooks:\n    conversion: true\n    defaulting: true\n    spoke:\n    - v1beta1\n    validation: true\n    webhookVersion: v1\n"
        ),
        "{project}"
    );

    // Asking again changes nothing.
    let before = snapshot(&dir);
    let out = webhook(&dir, &["--defaulting", "--programmatic-validation", "--conversion", "--spoke", "v1beta1"])
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8_lossy(&out).contains("already exists"));
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn conversion_moves_storage_to_the_hub() {
    let (_t, dir) = project();
    // v1beta1 becomes the hub: it gets the storage marker, v1alpha1 gets `storage = false`.
    ks(&dir)
        .args(["create", "webhook", "--group", "cache", "--version", "v1beta1", "--kind", "Memcached"])
        .args(["--conversion", "--spoke", "v1alpha1"])
        .assert()
        .success();
    let hub = read(&dir.join("src/api/v1beta1/memcached.rs"));
    assert!(hub.contains("// +kubebuilder:storageversion") && !hub.contains("storage = false"), "{hub}");
    assert!(read(&dir.join("src/api/v1alpha1/memcached.rs")).contains("storage = false"));
    ks(&dir).args(["make", "manifests"]).assert().success();
    let crd =
        kubesmith::yaml::from_str(&read(&dir.join("config/crd/bases/cache.example.com_memcacheds.yaml"))).unwrap();
    let storage: Vec<_> = crd["spec"]["versions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["storage"] == true)
        .map(|v| v["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(storage, ["v1beta1"]);
}

#[test]
fn usage_errors_change_nothing() {
    let (_t, dir) = project();
    let before = snapshot(&dir);
    let out = webhook(&dir, &[]).code(2).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&out).contains("at least one of --defaulting"));
    let out = webhook(&dir, &["--conversion"]).code(2).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&out).contains("--spoke"));
    let out = webhook(&dir, &["--conversion", "--spoke", "v9"]).code(2).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&out).contains("invalid spoke version `v9`"));
    webhook(&dir, &["--spoke", "v1beta1"]).code(2); // --spoke needs --conversion
    let out = ks(&dir)
        .args(["create", "webhook", "--group", "cache", "--version", "v1", "--kind", "Memcached", "--defaulting"])
        .assert()
        .code(1)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&out).contains("kubesmith create api"));
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn dry_run_writes_nothing() {
    let (_t, dir) = project();
    let before = snapshot(&dir);
    let out = webhook(&dir, &["--defaulting", "--dry-run"]).success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("create    src/webhook/v1alpha1/memcached/defaulting.rs"), "{text}");
    assert_eq!(snapshot(&dir), before);
}
