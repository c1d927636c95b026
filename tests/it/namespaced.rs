//! A namespace-scoped manager: `init --namespaced` (a Role and RoleBinding, `namespace=` on the RBAC markers,
//! `WATCH_NAMESPACE`), `create api` in such a project, `edit --namespaced[=false]` (the same tree as scaffolding it
//! so, and back), refusals, and its replay by `alpha generate`.

use std::path::Path;

use crate::support::{BUSYBOX, assert_same_tree, create_api, init, ks, read, snapshot};

fn yaml_docs(text: &str) -> Vec<serde_json::Value> {
    text.split("\n---")
        .filter_map(|doc| serde_yaml_ng::from_str::<serde_json::Value>(doc).ok())
        .filter(|v| v.is_object())
        .collect()
}

/// The kinds and names of what `kubectl kustomize config/default` renders, when kubectl is there.
fn rendered_roles(dir: &Path) -> Option<Vec<(String, String)>> {
    let out = std::process::Command::new("kubectl").args(["kustomize", "config/default"]).current_dir(dir).output();
    let out = out.ok().filter(|o| o.status.success())?;
    let mut roles: Vec<(String, String)> = yaml_docs(&String::from_utf8_lossy(&out.stdout))
        .into_iter()
        .filter(|d| d["kind"].as_str().is_some_and(|k| k.ends_with("Role") || k.ends_with("RoleBinding")))
        .map(|d| (d["kind"].as_str().unwrap().to_string(), d["metadata"]["name"].as_str().unwrap().to_string()))
        .collect();
    roles.sort();
    Some(roles)
}

/// A project with a plain kind, a deploy-image kind and a controller for apps/v1 Deployments; manifests made.
fn project(parent: &Path, name: &str, init_args: &[&str]) -> std::path::PathBuf {
    let dir = init(parent, name, init_args);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    create_api(&dir, &BUSYBOX);
    create_api(&dir, &["--group", "apps", "--version", "v1", "--kind", "Deployment", "--resource=false"]);
    ks(&dir).args(["make", "manifests"]).assert().success();
    dir
}

#[test]
fn init_namespaced_gives_a_role_in_the_managers_namespace_and_watch_namespace() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project(tmp.path(), "op", &["--namespaced"]);
    assert!(read(&dir.join("PROJECT")).contains("\nnamespaced: true\n"));

    // Every marker names the namespace, so controller-gen's rules give one Role there and no ClusterRole.
    let controller = read(&dir.join("src/controller/memcached.rs"));
    assert!(controller.contains(
        "// +kubebuilder:rbac:groups=cache.example.com,namespace=op-system,resources=memcacheds,verbs=list;watch;patch"
    ));
    let roles = yaml_docs(&read(&dir.join("config/rbac/role.yaml")));
    assert_eq!(roles.len(), 1, "{roles:?}");
    assert_eq!(
        (roles[0]["kind"].as_str(), roles[0]["metadata"]["namespace"].as_str()),
        (Some("Role"), Some("op-system"))
    );
    let rules = serde_json::to_string(&roles[0]["rules"]).unwrap();
    for grant in ["memcacheds", "busyboxes/finalizers", "deployments", "pods", "events"] {
        assert!(rules.contains(grant), "{grant} missing from {rules}");
    }
    let binding = read(&dir.join("config/rbac/role_binding.yaml"));
    assert!(binding.contains("kind: RoleBinding\n") && binding.contains("  kind: Role\n  name: manager-role\n"));
    for role in ["admin", "editor", "viewer"] {
        assert!(read(&dir.join(format!("config/rbac/memcached_{role}_role.yaml"))).contains("\nkind: Role\n"));
    }
    let manager = read(&dir.join("config/manager/manager.yaml"));
    assert!(manager.contains(
        "        - name: WATCH_NAMESPACE\n          valueFrom:\n            fieldRef:\n              \
         fieldPath: metadata.namespace\n"
    ));
    // The markers and the code agree: no drift warning, and --check passes.
    let out = ks(&dir).args(["make", "manifests", "--check"]).assert().success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(!stderr.contains("warning"), "{stderr}");

    // What kustomize deploys: only the metrics roles stay cluster-wide (TokenReviews are not namespaced).
    if let Some(roles) = rendered_roles(&dir) {
        let cluster: Vec<&str> =
            roles.iter().filter(|(k, _)| k.starts_with("Cluster")).map(|(_, n)| n.as_str()).collect();
        assert_eq!(cluster, ["op-metrics-auth-role", "op-metrics-reader", "op-metrics-auth-rolebinding"], "{roles:?}");
        assert!(roles.contains(&("Role".into(), "op-manager-role".into())), "{roles:?}");
        assert!(roles.contains(&("RoleBinding".into(), "op-manager-rolebinding".into())), "{roles:?}");
    }
}

#[test]
fn a_namespaced_manager_refuses_controllers_of_cluster_scoped_kinds() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = init(tmp.path(), "op", &["--namespaced"]);
    let before = snapshot(&dir);
    for args in [
        &["--group", "cache", "--version", "v1", "--kind", "Cluster", "--namespaced=false"][..],
        &["--group", "core", "--version", "v1", "--kind", "Node", "--resource=false"][..],
    ] {
        let out = ks(&dir).args(["create", "api"]).args(args).assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(stderr.contains("is cluster-scoped, and this project's manager is namespace-scoped"), "{stderr}");
        assert!(stderr.contains("kubesmith edit --namespaced=false"), "{stderr}");
        assert_eq!(snapshot(&dir), before, "{args:?} wrote something");
    }
    // The types alone are fine: no controller watches them.
    create_api(
        &dir,
        &["--group", "cache", "--version", "v1", "--kind", "Cluster", "--namespaced=false", "--controller=false"],
    );
}

#[test]
fn edit_namespaced_gives_the_tree_init_namespaced_gives_and_back() {
    let tmp = tempfile::tempdir().unwrap();
    let scoped = project(tmp.path(), "op", &["--namespaced"]);
    let cluster = project(&tmp.path().join("cluster"), "op", &[]);
    let edited = project(&tmp.path().join("edited"), "op", &[]);

    ks(&edited).args(["edit", "--namespaced"]).assert().success();
    assert_same_tree(&edited, &scoped);
    ks(&edited).args(["make", "manifests", "--check"]).assert().success();
    // Again: nothing to do.
    let out = ks(&edited).args(["edit", "--namespaced"]).assert().success();
    assert!(String::from_utf8_lossy(&out.get_output().stdout).contains("the manager is already namespace-scoped"));
    assert_same_tree(&edited, &scoped);

    ks(&edited).args(["edit", "--namespaced=false"]).assert().success();
    assert_same_tree(&edited, &cluster);
}

#[test]
fn edit_namespaced_keeps_the_users_own_markers_and_refuses_cluster_scoped_controllers() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = init(tmp.path(), "op", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    // A marker of the user's for another namespace stays as it is, both ways.
    let controller = dir.join("src/controller/memcached.rs");
    let own = "// +kubebuilder:rbac:groups=core,namespace=shared,resources=configmaps,verbs=get\n";
    std::fs::write(&controller, format!("{own}{}", read(&controller))).unwrap();
    ks(&dir).args(["edit", "--namespaced"]).assert().success();
    assert!(read(&controller).starts_with(own));
    assert!(read(&controller).contains("groups=events.k8s.io,namespace=op-system,resources=events"));
    let roles = yaml_docs(&read(&dir.join("config/rbac/role.yaml")));
    let ids: Vec<_> = roles.iter().map(|r| (r["kind"].clone(), r["metadata"]["namespace"].clone())).collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    ks(&dir).args(["edit", "--namespaced=false"]).assert().success();
    assert!(read(&controller).starts_with(own));
    assert!(read(&controller).contains("groups=events.k8s.io,resources=events"));

    let cluster = init(tmp.path(), "cl", &[]);
    create_api(&cluster, &["--group", "cache", "--version", "v1", "--kind", "Cluster", "--namespaced=false"]);
    let before = snapshot(&cluster);
    let out = ks(&cluster).args(["edit", "--namespaced"]).assert().code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(stderr.contains("controllers of cluster-scoped kinds (Cluster)"), "{stderr}");
    assert_eq!(snapshot(&cluster), before);
}

#[test]
fn alpha_generate_replays_a_namespaced_project() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project(tmp.path(), "op", &["--namespaced"]);
    let out =
        ks(tmp.path()).args(["alpha", "generate", "--input-dir", "op", "--output-dir", "replay"]).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(stdout.contains("--namespaced"), "{stdout}");
    assert_same_tree(&tmp.path().join("replay"), &dir);
}

#[test]
fn a_namespaced_projects_bundle_installs_into_its_target_namespaces() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project(tmp.path(), "op", &["--namespaced"]);
    ks(&dir).args(["make", "bundle", "--version", "0.1.0"]).assert().success();
    let csv = yaml_docs(&read(&dir.join("bundle/manifests/op.clusterserviceversion.yaml"))).remove(0);
    let supported: Vec<&str> = csv["spec"]["installModes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["supported"] == true)
        .map(|m| m["type"].as_str().unwrap())
        .collect();
    assert_eq!(supported, ["OwnNamespace", "SingleNamespace", "MultiNamespace"]);
    let install = &csv["spec"]["install"]["spec"];
    // The manager's Role is a namespaced permission, which OLM grants in each target namespace.
    let permissions = serde_json::to_string(&install["permissions"]).unwrap();
    assert!(permissions.contains("memcacheds") && permissions.contains("deployments"), "{permissions}");
    let cluster = serde_json::to_string(&install["clusterPermissions"]).unwrap();
    assert!(!cluster.contains("memcacheds"), "{cluster}");
    // OLM tells the manager which namespaces to watch.
    let env =
        serde_json::to_string(&install["deployments"][0]["spec"]["template"]["spec"]["containers"][0]["env"]).unwrap();
    assert!(env.contains(r#"{"name":"WATCH_NAMESPACE","valueFrom":{"fieldRef":{"fieldPath":"metadata.annotations['olm.targetNamespaces']"}}}"#), "{env}");
    ks(&dir).args(["bundle", "validate", "bundle"]).assert().success();
}
