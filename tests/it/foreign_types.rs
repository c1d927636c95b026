//! Controllers and webhooks for types the project does not define: Kubernetes' built-in kinds (`--group apps
//! --kind Deployment --resource=false`, `create webhook --group core --kind Pod`) and other crates' types
//! (`--external-api-*`), with their PROJECT entries, RBAC, webhook configurations and refusals.

use std::path::Path;

use crate::support::{create_api, init, ks, read, repo_root, snapshot};

fn project(parent: &Path) -> std::path::PathBuf {
    let dir = init(parent, "op", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    dir
}

fn yaml(path: &Path) -> serde_json::Value {
    kubesmith::yaml::from_str(&read(path)).unwrap()
}

fn stderr(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stderr).into_owned()
}

/// Everything a command said, on either stream.
fn said(out: &assert_cmd::assert::Assert) -> String {
    let o = out.get_output();
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[test]
fn a_controller_for_a_built_in_kind_has_no_types_and_kubebuilders_project_entry() {
    let parent = tempfile::tempdir().unwrap();
    let dir = project(parent.path());
    create_api(
        &dir,
        &["--group", "apps", "--version", "v1", "--kind", "Deployment", "--controller", "--resource=false"],
    );
    create_api(&dir, &["--group", "networking.k8s.io", "--version", "v1", "--kind", "Ingress", "--resource=false"]);

    let controller = read(&dir.join("src/controller/deployment.rs"));
    assert!(controller.contains("type Kind = k8s_openapi::api::apps::v1::Deployment;"), "{controller}");
    assert!(controller.contains("// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=list;watch"));
    assert!(!controller.contains("finalizer("), "no finalizer on objects the operator does not own");
    assert!(read(&dir.join("src/main.rs")).contains("op::controller::deployment::registration(),"));
    assert!(!dir.join("src/api/v1").exists() && !dir.join("config/samples/apps_v1_deployment.yaml").exists());

    let p = yaml(&dir.join("PROJECT"));
    let res = p["resources"].as_array().unwrap();
    let dep = res.iter().find(|r| r["kind"] == "Deployment").unwrap();
    assert_eq!(
        dep,
        &serde_json::json!({"controller": true, "core": true, "group": "apps", "kind": "Deployment",
                            "path": "k8s_openapi::api::apps::v1", "version": "v1"})
    );
    let ing = res.iter().find(|r| r["kind"] == "Ingress").unwrap();
    assert_eq!((&ing["group"], &ing["domain"]), (&"networking".into(), &"k8s.io".into()));

    let out = ks(&dir).args(["make", "manifests"]).assert().success();
    assert!(!said(&out).contains("warning") && !said(&out).contains("note:"), "{}", said(&out));
    let role = read(&dir.join("config/rbac/role.yaml"));
    assert!(role.contains("- apps\n  resources:\n  - deployments\n  verbs:\n  - list\n  - watch\n"), "{role}");
    assert!(role.contains("- networking.k8s.io\n  resources:\n  - ingresses\n"), "{role}");

    // again: refused, nothing changes
    let before = snapshot(&dir);
    let out = ks(&dir)
        .args(["create", "api", "--group", "apps", "--version", "v1", "--kind", "Deployment", "--resource=false"])
        .assert()
        .code(1);
    assert!(stderr(&out).contains("apps/v1 Deployment already has a controller"), "{}", stderr(&out));
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn unknown_built_in_kinds_are_refused_with_the_groups_kinds() {
    let parent = tempfile::tempdir().unwrap();
    let dir = project(parent.path());
    let before = snapshot(&dir);
    let out = ks(&dir)
        .args(["create", "api", "--group", "apps", "--version", "v1", "--kind", "Deploymnt", "--resource=false"])
        .assert()
        .code(1);
    let err = stderr(&out);
    assert!(err.contains("Kubernetes has no kind `Deploymnt` in apps/v1"), "{err}");
    assert!(err.contains("v1/Deployment, v1/ReplicaSet, v1/StatefulSet"), "{err}");
    let out = ks(&dir)
        .args(["create", "webhook", "--group", "core", "--version", "v1", "--kind", "Pod", "--conversion"])
        .args(["--spoke", "v2"])
        .assert()
        .code(2);
    assert!(stderr(&out).contains("has no CRD of ours to convert"), "{}", stderr(&out));
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn a_pod_defaulting_webhook_targets_the_core_group() {
    let parent = tempfile::tempdir().unwrap();
    let dir = project(parent.path());
    ks(&dir)
        .args(["create", "webhook", "--group", "core", "--version", "v1", "--kind", "Pod", "--defaulting"])
        .args(["--programmatic-validation"])
        .assert()
        .success();
    let defaulting = read(&dir.join("src/webhook/v1/pod/defaulting.rs"));
    assert!(defaulting.contains(
        "// +kubebuilder:webhook:path=/mutate--v1-pod,mutating=true,failurePolicy=ignore,sideEffects=None,groups=\"\",\
         resources=pods,verbs=create;update,versions=v1,name=mpod-v1.kb.io,admissionReviewVersions=v1"
    ));
    assert!(defaulting.contains("use k8s_openapi::api::core::v1::Pod as Kind;"));
    assert!(read(&dir.join("src/webhook/v1/pod.rs")).contains("pub const TEAM_LABEL: &str = \"example.com/team\";"));
    let test = read(&dir.join("tests/webhook_v1_pod.rs"));
    assert!(test.contains("async fn defaulting_labels_the_team_with_a_json_patch()"), "{test}");
    assert!(test.contains("async fn validation_denies_an_empty_team_and_warns_without_one()"), "{test}");

    let p = yaml(&dir.join("PROJECT"));
    let pod = p["resources"].as_array().unwrap().iter().find(|r| r["kind"] == "Pod").unwrap().clone();
    assert_eq!(pod["core"], true);
    assert_eq!(pod["group"], "core");
    assert_eq!(pod["webhooks"], serde_json::json!({"defaulting": true, "validation": true, "webhookVersion": "v1"}));

    ks(&dir).args(["make", "manifests"]).assert().success();
    let docs = kubesmith::yaml::from_multi_doc_str(&read(&dir.join("config/webhook/manifests.yaml"))).unwrap();
    for (kind, name, path) in [
        ("MutatingWebhookConfiguration", "mpod-v1.kb.io", "/mutate--v1-pod"),
        ("ValidatingWebhookConfiguration", "vpod-v1.kb.io", "/validate--v1-pod"),
    ] {
        let config = docs.iter().find(|d| d["kind"] == kind).unwrap();
        let hook = config["webhooks"].as_array().unwrap().iter().find(|w| w["name"] == name).unwrap();
        assert_eq!(hook["rules"][0]["apiGroups"], serde_json::json!([""]), "{kind}");
        assert_eq!(hook["rules"][0]["resources"], serde_json::json!(["pods"]), "{kind}");
        assert_eq!(hook["clientConfig"]["service"]["path"], path);
        assert_eq!(hook["failurePolicy"], "Ignore");
    }
}

#[test]
fn an_external_type_adds_its_crate_and_is_recorded_as_external() {
    let parent = tempfile::tempdir().unwrap();
    let dir = project(parent.path());
    let fixture = repo_root().join("tests/fixtures/external/acme-crds");
    let crate_dir = parent.path().join("acme-crds");
    std::fs::create_dir_all(crate_dir.join("src")).unwrap();
    for f in ["Cargo.toml", "src/lib.rs"] {
        std::fs::copy(fixture.join(f), crate_dir.join(f)).unwrap();
    }
    let manifest_before = read(&dir.join("Cargo.toml"));
    ks(&dir)
        .args(["create", "api", "--group", "cert-manager", "--version", "v1", "--kind", "Issuer", "--resource=false"])
        .args(["--external-api-path", "acme_crds::v1::Issuer", "--external-api-crate", "acme-crds@../acme-crds"])
        .args(["--external-api-domain", "io"])
        .assert()
        .success();
    let manifest = read(&dir.join("Cargo.toml"));
    let added = "acme-crds = { path = \"../acme-crds\" }\n";
    assert!(manifest.contains(added), "{manifest}");
    assert_eq!(manifest.replacen(added, "", 1), manifest_before, "only the dependency is added, comments kept");
    let controller = read(&dir.join("src/controller/issuer.rs"));
    assert!(controller.contains("type Kind = acme_crds::v1::Issuer;"));
    assert!(controller.contains("// +kubebuilder:rbac:groups=cert-manager.io,resources=issuers,verbs=list;watch"));

    // the webhook finds the type through PROJECT
    ks(&dir)
        .args(["create", "webhook", "--group", "cert-manager", "--version", "v1", "--kind", "Issuer", "--defaulting"])
        .assert()
        .success();
    assert!(read(&dir.join("src/webhook/v1/issuer/defaulting.rs")).contains("failurePolicy=fail"));
    let p = yaml(&dir.join("PROJECT"));
    let issuer = p["resources"].as_array().unwrap().iter().find(|r| r["kind"] == "Issuer").unwrap().clone();
    assert_eq!(
        issuer,
        serde_json::json!({"controller": true, "domain": "io", "external": true, "group": "cert-manager",
                           "kind": "Issuer", "module": "acme-crds@../acme-crds", "path": "acme_crds::v1::Issuer",
                           "version": "v1", "webhooks": {"defaulting": true, "webhookVersion": "v1"}})
    );
    let out = ks(&dir).args(["make", "manifests"]).assert().success();
    assert!(!said(&out).contains("warning") && !said(&out).contains("note:"), "{}", said(&out));
    assert!(read(&dir.join("config/rbac/role.yaml")).contains("- cert-manager.io\n  resources:\n  - issuers\n"));
}

/// The scope of an external type is what `--namespaced` says; kubebuilder's resource fields have no place for it
/// (no `api` block), so kubesmith's plugin entry records a cluster-scoped one, for `alpha generate` to replay.
#[test]
fn a_cluster_scoped_external_type_is_recorded_in_kubesmiths_plugin_entry() {
    let parent = tempfile::tempdir().unwrap();
    let dir = project(parent.path());
    ks(&dir)
        .args(["create", "api", "--group", "cert-manager", "--version", "v1", "--kind", "ClusterIssuer"])
        .args(["--resource=false", "--namespaced=false", "--external-api-domain", "io"])
        .args(["--external-api-path", "acme_crds::v1::ClusterIssuer"])
        .assert()
        .success();
    let controller = read(&dir.join("src/controller/cluster_issuer.rs"));
    assert!(!controller.contains("\"namespace\": \"default\""), "{controller}");
    let p = yaml(&dir.join("PROJECT"));
    assert_eq!(
        p["plugins"]["rust.kubesmith.io/v1alpha1"]["resources"],
        serde_json::json!([{"domain": "io", "group": "cert-manager", "kind": "ClusterIssuer", "namespaced": false,
                            "version": "v1"}])
    );
}

#[test]
fn external_flags_are_refused_like_kubebuilder_and_change_nothing() {
    let parent = tempfile::tempdir().unwrap();
    let dir = project(parent.path());
    let before = snapshot(&dir);
    let gvk = ["create", "api", "--group", "cert-manager", "--version", "v1", "--kind", "Issuer"];
    let cases: [(&[&str], &str); 4] = [
        (
            &["--external-api-path", "acme_crds::v1::Issuer"],
            "cannot use '--external-api-path', '--external-api-domain', or '--external-api-crate' when creating an API \
             in the project with '--resource=true'. Use '--resource=false' when referencing an external API",
        ),
        (
            &["--resource=false", "--external-api-crate", "acme-crds@0.3"],
            "'--external-api-crate' requires '--external-api-path' to be specified",
        ),
        (
            &["--resource=false", "--external-api-path", "acme_crds::v1::Issuer", "--external-api-crate", "acme-crds"],
            "names no version",
        ),
        (
            &["--resource=false", "--external-api-path", "other::v1::Issuer", "--external-api-crate", "acme-crds@0.3"],
            "does not start with `acme_crds`",
        ),
    ];
    for (extra, message) in cases {
        let out = ks(&dir).args(gvk).args(extra).assert().code(2);
        assert!(stderr(&out).contains(message), "{extra:?}: {}", stderr(&out));
    }
    assert_eq!(snapshot(&dir), before);
}
