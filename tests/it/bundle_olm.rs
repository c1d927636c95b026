//! OLM dependencies (`make bundle --depends-on-*`, `metadata/dependencies.yaml`, the catalog's required properties,
//! `catalog validate --resolve`), install modes (the project's, `--install-modes`, the base CSV's, the RBAC
//! warnings) and `bundle validate --olm-v1`, on the standard project.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{ks, read, snapshot, standard_project};

const CSV: &str = "bundle/manifests/memcached-operator.clusterserviceversion.yaml";
const BASE: &str = "config/manifests/bases/memcached-operator.clusterserviceversion.yaml";
const DEPS: &str = "bundle/metadata/dependencies.yaml";
const ETCD_RANGE: &str = ">=0.9.0 <1.0.0";
const ETCD_GVK: &str = "etcd.database.coreos.com/v1beta2/EtcdCluster";
const BUNDLE_IMAGE: &str = "example.com/memcached-operator-bundle:v{version}";

fn yaml(path: &Path) -> Value {
    kubesmith::yaml::from_str(&read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn output(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// Runs kubesmith and returns (exit code, stdout + stderr).
fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = ks(dir).args(args).output().unwrap();
    (out.status.code(), output(&out))
}

fn bundle(dir: &Path, extra: &[&str]) -> String {
    let (code, out) = run(dir, &[&["make", "bundle", "--version", "0.1.0"], extra].concat());
    assert_eq!(code, Some(0), "make bundle {extra:?}: {out}");
    out
}

fn supported_modes(dir: &Path) -> Vec<String> {
    yaml(&dir.join(CSV))["spec"]["installModes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["supported"] == true)
        .map(|m| m["type"].as_str().unwrap().to_string())
        .collect()
}

fn bundle_settings(dir: &Path) -> Value {
    yaml(&dir.join("PROJECT"))["plugins"]["rust.kubesmith.io/v1alpha1"]["bundle"].clone()
}

/// A catalog of one etcd bundle at `version`, providing `EtcdCluster` at `api_version`.
fn etcd_catalog(dir: &Path, version: &str, api_version: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let docs = [
        json!({"schema": "olm.package", "name": "etcd", "defaultChannel": "alpha"}),
        json!({"schema": "olm.channel", "package": "etcd", "name": "alpha", "entries": [{"name": format!("etcdoperator.v{version}")}]}),
        json!({"schema": "olm.bundle", "package": "etcd", "name": format!("etcdoperator.v{version}"),
            "image": format!("quay.io/coreos/etcd-operator-bundle:v{version}"), "properties": [
            {"type": "olm.package", "value": {"packageName": "etcd", "version": version}},
            {"type": "olm.gvk", "value": {"group": "etcd.database.coreos.com", "kind": "EtcdCluster", "version": api_version}}]}),
    ];
    std::fs::write(dir.join("catalog.yaml"), kubesmith::yaml::to_multi_doc_string(&docs)).unwrap();
}

#[test]
fn dependencies_are_written_recorded_removed_and_carried_into_the_catalog() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = standard_project(tmp.path());

    // A bad range or API is a usage error that writes nothing.
    let before = snapshot(&dir);
    for (args, want) in [
        (
            vec!["--depends-on-package", "etcd:>=banana"],
            "--depends-on-package \"etcd:>=banana\": version range \">=banana\" is not one OLM accepts",
        ),
        (vec!["--depends-on-package", "etcd"], "write PACKAGE:RANGE"),
        (vec!["--depends-on-package", "Etcd:1.0.0"], "must be a DNS-1123 label"),
        (vec!["--depends-on-gvk", "etcd.database.coreos.com/EtcdCluster"], "write GROUP/VERSION/KIND"),
        (vec!["--depends-on-gvk", "none", "--depends-on-gvk", ETCD_GVK], "--depends-on-gvk=none: stands alone"),
    ] {
        let (code, out) = run(&dir, &[&["make", "bundle", "--version", "0.1.0"], &args[..]].concat());
        assert_eq!(code, Some(2), "{args:?}: {out}");
        assert!(out.contains(want), "{args:?}: {out}");
    }
    assert_eq!(before, snapshot(&dir), "a refused make bundle wrote something");

    // Written to metadata/dependencies.yaml in OLM's shape, and recorded in PROJECT.
    let package = format!("etcd:{ETCD_RANGE}");
    bundle(&dir, &["--depends-on-package", &package, "--depends-on-gvk", ETCD_GVK]);
    let deps = yaml(&dir.join(DEPS));
    let want = json!({"dependencies": [
        {"type": "olm.package", "value": {"packageName": "etcd", "version": ETCD_RANGE}},
        {"type": "olm.gvk", "value": {"group": "etcd.database.coreos.com", "kind": "EtcdCluster", "version": "v1beta2"}}
    ]});
    assert_eq!(deps, want);
    assert_eq!(bundle_settings(&dir)["dependencies"], want["dependencies"]);
    let (code, out) = run(&dir, &["bundle", "validate", "bundle"]);
    assert_eq!(code, Some(0), "{out}");

    // A later run without the flags (the Makefile's) keeps them, byte for byte.
    let before = snapshot(&dir);
    let out = bundle(&dir, &[]);
    assert!(out.contains("everything is up to date"), "{out}");
    assert_eq!(before, snapshot(&dir));

    // bundle validate checks the file's format with operator-registry's messages.
    let text = read(&dir.join(DEPS));
    std::fs::write(dir.join(DEPS), text.replace(ETCD_RANGE, "banana").replace("kind: EtcdCluster", "kind: ''"))
        .unwrap();
    let (code, out) = run(&dir, &["bundle", "validate", "bundle"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("Error: Invalid semver format version: banana"), "{out}");
    assert!(out.contains("Error: API Kind is empty"), "{out}");
    std::fs::write(dir.join(DEPS), text).unwrap();

    // make catalog turns them into the olm.bundle's required properties.
    let (code, out) = run(&dir, &["make", "catalog", "--bundle", "bundle", "--bundle-image", BUNDLE_IMAGE]);
    assert_eq!(code, Some(0), "{out}");
    let docs =
        kubesmith::yaml::from_multi_doc_str(&read(&dir.join("catalog/memcached-operator/catalog.yaml"))).unwrap();
    let props = docs.iter().find(|d| d["schema"] == "olm.bundle").unwrap()["properties"].as_array().unwrap().clone();
    assert!(
        props.contains(
            &json!({"type": "olm.package.required", "value": {"packageName": "etcd", "versionRange": ETCD_RANGE}})
        ),
        "{props:#?}"
    );
    assert!(
        props.contains(&json!({"type": "olm.gvk.required", "value": {"group": "etcd.database.coreos.com", "kind": "EtcdCluster", "version": "v1beta2"}})),
        "{props:#?}"
    );

    // catalog validate --resolve: nothing in the catalog provides etcd; naming the bundle that needs it.
    let (code, out) = run(&dir, &["catalog", "validate", "catalog"]);
    assert_eq!(code, Some(0), "without --resolve the dependencies are not looked for: {out}");
    let (code, out) = run(&dir, &["catalog", "validate", "catalog", "--resolve"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(&format!("Error: bundle \"memcached-operator.v0.1.0\" requires package \"etcd\" at '{ETCD_RANGE}' (olm.package.required), but no bundle of the catalog provides it (pass the catalog that does with --with DIR)")),
        "{out}"
    );
    assert!(
        out.contains("Error: bundle \"memcached-operator.v0.1.0\" requires API etcd.database.coreos.com/v1beta2 EtcdCluster (olm.gvk.required)"),
        "{out}"
    );
    // An etcd catalog at the wrong versions does not satisfy it; the right one does.
    etcd_catalog(&tmp.path().join("etcd-old"), "1.2.0", "v1beta1");
    let (code, out) = run(&dir, &["catalog", "validate", "catalog", "--resolve", "--with", "../etcd-old"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("no bundle of \"etcd\" has a version in that range (found 1.2.0)"), "{out}");
    assert!(out.contains("EtcdCluster is provided only at other versions (v1beta1 in etcdoperator.v1.2.0)"), "{out}");
    etcd_catalog(&tmp.path().join("etcd"), "0.9.2", "v1beta2");
    let (code, out) = run(
        &dir,
        &["catalog", "validate", "catalog", "--resolve", "--with", "../etcd-old", "--with", "../etcd/catalog.yaml"],
    );
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("catalog is valid"), "{out}");

    // --depends-on-package=none removes the package dependency only; then the API one; then the file and the record.
    bundle(&dir, &["--depends-on-package=none"]);
    assert_eq!(yaml(&dir.join(DEPS))["dependencies"], json!([want["dependencies"][1]]));
    assert_eq!(bundle_settings(&dir)["dependencies"], json!([want["dependencies"][1]]));
    // Replacing the package dependencies keeps the API one.
    bundle(&dir, &["--depends-on-package", "etcd:0.9.x"]);
    assert_eq!(yaml(&dir.join(DEPS))["dependencies"][0]["value"]["version"], "0.9.x");
    assert_eq!(yaml(&dir.join(DEPS))["dependencies"][1], want["dependencies"][1]);
    bundle(&dir, &["--depends-on-package=none", "--depends-on-gvk=none"]);
    assert!(!dir.join(DEPS).exists());
    assert_eq!(bundle_settings(&dir), Value::Null);
    assert!(!read(&dir.join("PROJECT")).contains("bundle:"), "{}", read(&dir.join("PROJECT")));
}

/// Makes the manager's role a namespaced Role, as a namespaced project's RBAC is.
fn namespaced_rbac(dir: &Path) {
    let role = dir.join("config/rbac/role.yaml");
    std::fs::write(&role, read(&role).replace("kind: ClusterRole", "kind: Role")).unwrap();
    let binding = dir.join("config/rbac/role_binding.yaml");
    let text = read(&binding)
        .replace("kind: ClusterRoleBinding", "kind: RoleBinding")
        .replace("kind: ClusterRole", "kind: Role");
    std::fs::write(&binding, text).unwrap();
}

#[test]
fn install_modes_follow_the_project_the_flag_and_an_edited_base() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = standard_project(tmp.path());
    let all = ["AllNamespaces"];
    let namespaced = ["OwnNamespace", "SingleNamespace", "MultiNamespace"];

    // A cluster-scoped project: AllNamespaces only; bundle validate has nothing to say about it.
    bundle(&dir, &[]);
    assert_eq!(supported_modes(&dir), all);
    let (code, out) = run(&dir, &["bundle", "validate", "bundle"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(!out.contains("install mode") && !out.contains("cluster-scoped"), "{out}");

    // PROJECT says namespaced (the base CSV still holds kubesmith's cluster table): the namespace-bound modes.
    let project = dir.join("PROJECT");
    std::fs::write(&project, read(&project).replace("projectName:", "namespaced: true\nprojectName:")).unwrap();
    namespaced_rbac(&dir);
    let out = bundle(&dir, &[]);
    assert_eq!(supported_modes(&dir), namespaced);
    // The standard project has a conversion webhook: make bundle says OLM will refuse that, and bundle validate does.
    assert!(out.contains("warning: the bundle has conversion webhooks, which OLM accepts only when AllNamespaces is the only supported install mode"), "{out}");
    let (code, out) = run(&dir, &["bundle", "validate", "bundle"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("only AllNamespaces InstallModeType is supported when conversionCRDs is present"), "{out}");
    // The cluster-scoped Cluster kind with namespace-bound modes, granted in a Role.
    assert!(
        out.contains("Warning: (memcached-operator.v0.1.0) owned CRD clusters.cache.example.com is cluster-scoped, but only OwnNamespace, SingleNamespace, MultiNamespace are supported"),
        "{out}"
    );
    assert!(out.contains("a Role cannot grant access to a cluster-scoped resource"), "{out}");
    assert!(!out.contains("memcacheds.cache.example.com is cluster-scoped"), "{out}");

    // --install-modes overrides the project, is recorded and kept by a later run; `auto` drops it.
    let out = bundle(&dir, &["--install-modes", "AllNamespaces"]);
    assert!(!out.contains("conversion webhooks"), "{out}");
    assert_eq!(supported_modes(&dir), all);
    assert_eq!(bundle_settings(&dir)["installModes"], json!(["AllNamespaces"]));
    // AllNamespaces while the manager's role is a namespaced Role: warned, naming the kinds.
    let (code, out) = run(&dir, &["bundle", "validate", "bundle"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("Warning: (memcached-operator.v0.1.0) the AllNamespaces install mode is supported, but the manager's access to clusters.cache.example.com, matches.cache.example.com, memcacheds.cache.example.com is granted only in `permissions`"),
        "{out}"
    );
    let out = bundle(&dir, &[]);
    assert!(out.contains("note: install modes AllNamespaces as recorded in PROJECT"), "{out}");
    assert_eq!(supported_modes(&dir), all);
    bundle(&dir, &["--install-modes", "ownnamespace,SingleNamespace"]);
    assert_eq!(supported_modes(&dir), ["OwnNamespace", "SingleNamespace"]);
    let csv = yaml(&dir.join(CSV));
    assert_eq!(csv["spec"]["installModes"].as_array().unwrap().len(), 4, "every mode is listed, supported or not");
    bundle(&dir, &["--install-modes", "auto"]);
    assert_eq!(supported_modes(&dir), namespaced);
    assert_eq!(bundle_settings(&dir), Value::Null);

    // An edited base CSV wins over the project (not over the flag).
    let base = dir.join(BASE);
    let mut b = yaml(&base);
    b["spec"]["installModes"] =
        json!([{"supported": true, "type": "OwnNamespace"}, {"supported": true, "type": "AllNamespaces"}]);
    std::fs::write(&base, kubesmith::yaml::to_string(&b)).unwrap();
    let out = bundle(&dir, &[]);
    assert!(out.contains("note: install modes OwnNamespace,AllNamespaces come from the base CSV"), "{out}");
    assert_eq!(yaml(&dir.join(CSV))["spec"]["installModes"], b["spec"]["installModes"]);
    bundle(&dir, &["--install-modes", "SingleNamespace"]);
    assert_eq!(supported_modes(&dir), ["SingleNamespace"]);

    // A bad value is a usage error.
    let before = snapshot(&dir);
    for (modes, want) in [("Everywhere", "unknown install mode \"Everywhere\""), ("auto,OwnNamespace", "stands alone")]
    {
        let (code, out) = run(&dir, &["make", "bundle", "--version", "0.1.0", "--install-modes", modes]);
        assert_eq!(code, Some(2), "{out}");
        assert!(out.contains(want), "{out}");
    }
    assert_eq!(before, snapshot(&dir));
}

#[test]
fn olm_v1_reports_what_operator_controller_refuses_or_ignores() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = standard_project(tmp.path());
    let v1 = ["bundle", "validate", "bundle", "--olm-v1"];

    // kubesmith's default (AllNamespaces only, no dependencies) is what OLM v1 installs.
    bundle(&dir, &[]);
    let (code, out) = run(&dir, &v1);
    assert_eq!(code, Some(0), "{out}");
    assert!(!out.contains("OLM v1"), "{out}");

    // Namespace-bound modes: no AllNamespaces, the conversion webhook refused, the admission webhooks flagged.
    bundle(&dir, &["--install-modes", "OwnNamespace,SingleNamespace"]);
    let (code, out) = run(&dir, &v1);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("Error: (memcached-operator.v0.1.0) OLM v1: this bundle does not support the AllNamespaces install mode, which OLM v1 needs (the bundle supports: OwnNamespace,SingleNamespace)"), "{out}");
    assert!(out.contains("SingleOwnNamespaceInstallSupport"), "{out}");
    assert!(
        out.contains("OLM v1: conversion webhook(s) cmemcacheds.kb.io with install modes OwnNamespace,SingleNamespace: operator-controller refuses them"),
        "{out}"
    );
    assert!(out.contains("Warning: (memcached-operator.v0.1.0) OLM v1: admission webhooks with install modes OwnNamespace,SingleNamespace"), "{out}");
    // Without --olm-v1 the same bundle has none of these.
    let (_, out) = run(&dir, &["bundle", "validate", "bundle"]);
    assert!(!out.contains("OLM v1"), "{out}");

    // MultiNamespace beside AllNamespaces: ignored; the conversion webhook still refused (not AllNamespaces only).
    bundle(&dir, &["--install-modes", "AllNamespaces,MultiNamespace"]);
    let (code, out) = run(&dir, &v1);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("Warning: (memcached-operator.v0.1.0) OLM v1: MultiNamespace is ignored"), "{out}");
    assert!(
        out.contains("conversion webhook(s) cmemcacheds.kb.io with install modes MultiNamespace,AllNamespaces"),
        "{out}"
    );
    assert!(!out.contains("does not support the AllNamespaces install mode"), "{out}");

    // Dependencies are refused.
    let package = format!("etcd:{ETCD_RANGE}");
    bundle(&dir, &["--install-modes", "auto", "--depends-on-package", &package]);
    let (code, out) = run(&dir, &v1);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(&format!("OLM v1: metadata/dependencies.yaml requires package etcd '{ETCD_RANGE}': OLM v1 does not resolve dependencies")),
        "{out}"
    );

    // APIService definitions and required CRDs in the CSV (any bundle's, here edited by hand).
    bundle(&dir, &["--depends-on-package=none"]);
    let (code, _) = run(&dir, &v1);
    assert_eq!(code, Some(0));
    let mut csv = yaml(&dir.join(CSV));
    csv["spec"]["apiservicedefinitions"] = json!({"owned": [{"name": "v1alpha1.metrics.example.com", "group": "metrics.example.com",
        "version": "v1alpha1", "kind": "Metric", "deploymentName": "memcached-operator-controller-manager"}]});
    csv["spec"]["customresourcedefinitions"]["required"] =
        json!([{"name": "etcdclusters.etcd.database.coreos.com", "version": "v1beta2", "kind": "EtcdCluster"}]);
    std::fs::write(dir.join(CSV), kubesmith::yaml::to_string(&csv)).unwrap();
    let (code, out) = run(&dir, &v1);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("OLM v1: owned APIService definitions (v1alpha1.metrics.example.com): operator-controller refuses the bundle (\"unsupported bundle: apiServiceDefintions are not supported\")"),
        "{out}"
    );
    assert!(
        out.contains("OLM v1: spec.customresourcedefinitions.required lists etcd.database.coreos.com/v1beta2 EtcdCluster, which becomes an olm.gvk.required dependency"),
        "{out}"
    );
}
