//! Least privilege of what the scaffold grants: the rendered `config/default` and the bundle's CSV give the
//! manager no cluster-wide write on sensitive resources unless a controller's marker asks for it, and no
//! (group, resource, verb) twice across the roles bound to its service account.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use crate::support::{ks, read, standard_project};

const WRITE: [&str; 6] = ["create", "update", "patch", "delete", "deletecollection", "*"];
const SENSITIVE: [(&str, &str); 9] = [
    ("coordination.k8s.io", "leases"),
    ("", "secrets"),
    ("rbac.authorization.k8s.io", "clusterroles"),
    ("rbac.authorization.k8s.io", "clusterrolebindings"),
    ("rbac.authorization.k8s.io", "roles"),
    ("rbac.authorization.k8s.io", "rolebindings"),
    ("apiextensions.k8s.io", "customresourcedefinitions"),
    ("admissionregistration.k8s.io", "mutatingwebhookconfigurations"),
    ("admissionregistration.k8s.io", "validatingwebhookconfigurations"),
];

fn strings(v: &Value) -> Vec<String> {
    v.as_array().into_iter().flatten().filter_map(|s| s.as_str().map(str::to_string)).collect()
}

/// Every (group, resource, verb) a list of rules grants, with the number of times it is granted.
fn triples<'a>(rules: impl Iterator<Item = &'a Value>, out: &mut BTreeMap<(String, String, String), usize>) {
    for rule in rules {
        let groups = strings(&rule["apiGroups"]);
        let groups = if groups.is_empty() { vec![String::new()] } else { groups };
        for g in &groups {
            for r in strings(&rule["resources"]) {
                for v in strings(&rule["verbs"]) {
                    *out.entry((g.clone(), r.clone(), v)).or_default() += 1;
                }
            }
        }
    }
}

/// The cluster-wide writes on sensitive resources of the rendered ClusterRoles, as `role: group/resource verb`.
fn sensitive_cluster_writes(docs: &[Value]) -> Vec<String> {
    let mut bad = Vec::new();
    for d in docs.iter().filter(|d| d["kind"] == "ClusterRole") {
        let mut granted = BTreeMap::new();
        triples(d["rules"].as_array().into_iter().flatten(), &mut granted);
        for (g, r, v) in granted.keys() {
            if SENSITIVE.contains(&(g.as_str(), r.as_str())) && WRITE.contains(&v.as_str()) {
                bad.push(format!("{}: {g}/{r} {v}", d["metadata"]["name"].as_str().unwrap_or_default()));
            }
        }
    }
    bad
}

/// What the roles bound (by the rendered bindings) to the service account `sa` grant, counted across roles.
fn granted_to(docs: &[Value], sa: &str) -> BTreeMap<(String, String, String), usize> {
    let mut out = BTreeMap::new();
    let bound: BTreeSet<(String, String)> = docs
        .iter()
        .filter(|d| d["kind"] == "RoleBinding" || d["kind"] == "ClusterRoleBinding")
        .filter(|d| {
            d["subjects"].as_array().into_iter().flatten().any(|s| s["kind"] == "ServiceAccount" && s["name"] == sa)
        })
        .map(|d| (d["roleRef"]["kind"].as_str().unwrap().into(), d["roleRef"]["name"].as_str().unwrap().into()))
        .collect();
    for d in docs {
        let key = (
            d["kind"].as_str().unwrap_or_default().to_string(),
            d["metadata"]["name"].as_str().unwrap_or_default().into(),
        );
        if bound.contains(&key) {
            triples(d["rules"].as_array().into_iter().flatten(), &mut out);
        }
    }
    out
}

fn render(dir: &Path) -> Vec<Value> {
    let out =
        std::process::Command::new("kubectl").args(["kustomize", "config/default"]).current_dir(dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    kubesmith::yaml::from_multi_doc_str(&String::from_utf8(out.stdout).unwrap()).unwrap()
}

#[test]
fn the_scaffold_grants_only_what_its_controllers_ask_for() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = standard_project(tmp.path());
    let docs = render(&dir);
    assert_eq!(sensitive_cluster_writes(&docs), Vec::<String>::new());

    // The manager's Lease is granted in its own namespace only, by the leader-election Role.
    let sa = "memcached-operator-controller-manager";
    let granted = granted_to(&docs, sa);
    let repeated: Vec<_> = granted.iter().filter(|(_, n)| **n > 1).map(|(t, _)| t).collect();
    assert!(repeated.is_empty(), "granted twice to {sa}: {repeated:?}");
    let leader =
        docs.iter().find(|d| d["kind"] == "Role" && d["metadata"]["name"] == "memcached-operator-leader-election-role");
    let leader = leader.expect("the leader-election Role");
    assert_eq!(leader["metadata"]["namespace"], "memcached-operator-system");
    let mut lease = BTreeMap::new();
    triples(leader["rules"].as_array().into_iter().flatten(), &mut lease);
    let verbs: Vec<&str> = lease.keys().map(|(_, _, v)| v.as_str()).collect();
    assert_eq!(verbs, ["create", "get", "update"], "only what src/manager/leader.rs calls");
    // TokenReviews and SubjectAccessReviews come from the metrics-auth role alone.
    let manager =
        docs.iter().find(|d| d["kind"] == "ClusterRole" && d["metadata"]["name"] == "memcached-operator-manager-role");
    let manager = serde_json::to_string(manager.expect("the manager role")).unwrap();
    assert!(!manager.contains("tokenreviews") && !manager.contains("leases"), "{manager}");

    // The CSV lists no rule twice for one service account, cluster-wide or namespaced.
    ks(&dir).args(["make", "bundle", "--version", "0.1.0"]).assert().success();
    let csv =
        kubesmith::yaml::from_str(&read(&dir.join("bundle/manifests/memcached-operator.clusterserviceversion.yaml")))
            .unwrap();
    let mut per_sa: BTreeMap<String, BTreeMap<(String, String, String), usize>> = BTreeMap::new();
    for kind in ["clusterPermissions", "permissions"] {
        for entry in csv["spec"]["install"]["spec"][kind].as_array().into_iter().flatten() {
            let sa = entry["serviceAccountName"].as_str().unwrap().to_string();
            triples(entry["rules"].as_array().into_iter().flatten(), per_sa.entry(sa).or_default());
        }
    }
    assert!(!per_sa.is_empty());
    for (sa, granted) in &per_sa {
        let repeated: Vec<_> = granted.iter().filter(|(_, n)| **n > 1).map(|(t, _)| t).collect();
        assert!(repeated.is_empty(), "the CSV grants {sa} twice: {repeated:?}");
    }

    // A controller that asks for a sensitive write gets it, through its marker and only then.
    let controller = dir.join("src/controller/memcached.rs");
    let text = read(&controller);
    let marker = "// +kubebuilder:rbac:groups=core,resources=secrets,verbs=get;create\n";
    std::fs::write(&controller, format!("{marker}{text}")).unwrap();
    ks(&dir).args(["make", "manifests"]).assert().success();
    assert_eq!(sensitive_cluster_writes(&render(&dir)), ["memcached-operator-manager-role: /secrets create"]);
}

#[test]
fn a_call_covered_by_a_role_bound_to_the_manager_is_no_drift_and_one_no_role_covers_is() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = standard_project(tmp.path());
    // The scaffold calls Leases and TokenReviews with no marker: the bound roles cover them.
    let out = ks(&dir).args(["make", "manifests", "--check"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("warning"), "{}", String::from_utf8_lossy(&out.stdout));
    // Without the leader-election binding the Lease calls are drift again, with the marker to add.
    std::fs::remove_file(dir.join("config/rbac/leader_election_role_binding.yaml")).unwrap();
    let out = ks(&dir).args(["make", "manifests", "--check"]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("src/manager/leader.rs:"), "{said}");
    assert!(said.contains("resources=leases,verbs=create;get;update"), "{said}");
}

/// Every file under `dir`, with its bytes (empty when there is no such folder).
fn files_under(dir: &Path) -> BTreeMap<std::path::PathBuf, Vec<u8>> {
    if dir.exists() { crate::support::snapshot(dir) } else { BTreeMap::new() }
}

#[cfg(unix)]
#[test]
fn writes_never_follow_a_symbolic_link_out_of_the_project_unless_the_folder_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = standard_project(tmp.path());
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("keep.txt"), "not kubesmith's").unwrap();

    // config/crd/bases made a link to a folder outside the project: refused, naming the link and its target.
    let bases = dir.join("config/crd/bases");
    std::fs::rename(&bases, tmp.path().join("bases-moved")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &bases).unwrap();
    let before = files_under(&dir.join("src"));
    for args in [&["make", "manifests"][..], &["make", "manifests", "--dry-run"][..]] {
        let out = ks(&dir).args(args).output().unwrap();
        let said = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {said}");
        assert!(said.contains("config/crd/bases is a symbolic link to"), "{said}");
        assert!(said.contains(&elsewhere.display().to_string()), "{said}");
        assert!(said.contains("nothing was written"), "{said}");
    }
    assert_eq!(files_under(&elsewhere).len(), 1, "nothing written outside the project");
    assert_eq!(files_under(&dir.join("src")), before);

    // A dangling link (its target does not exist yet) is judged by where it points.
    std::fs::remove_file(&bases).unwrap();
    std::os::unix::fs::symlink(tmp.path().join("not-yet"), &bases).unwrap();
    ks(&dir).args(["make", "manifests"]).assert().code(1);
    assert!(!tmp.path().join("not-yet").exists());

    // A link that stays inside the project is followed.
    std::fs::remove_file(&bases).unwrap();
    std::fs::create_dir_all(dir.join("generated/crds")).unwrap();
    std::os::unix::fs::symlink("../../generated/crds", &bases).unwrap();
    ks(&dir).args(["make", "manifests"]).assert().success();
    assert!(dir.join("generated/crds/cache.example.com_memcacheds.yaml").is_file());

    // Named on the command line, the folder outside may be written.
    ks(&dir).args(["make", "manifests", "--crd-dir"]).arg(&elsewhere).assert().success();
    assert!(elsewhere.join("cache.example.com_memcacheds.yaml").is_file());

    // The same for make bundle's default folder, and its --output-dir given explicitly (with config/crd/bases a
    // folder again: kustomize, which make bundle runs, refuses links out of a kustomization's folder itself).
    std::fs::remove_file(&bases).unwrap();
    std::fs::rename(tmp.path().join("bases-moved"), &bases).unwrap();
    ks(&dir).args(["make", "manifests"]).assert().success();
    let outside_bundle = tmp.path().join("bundle-out");
    std::fs::create_dir_all(&outside_bundle).unwrap();
    std::os::unix::fs::symlink(&outside_bundle, dir.join("bundle")).unwrap();
    let out = ks(&dir).args(["make", "bundle", "--version", "0.1.0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("bundle is a symbolic link to"), "{said}");
    assert!(files_under(&outside_bundle).is_empty());
    ks(&dir).args(["make", "bundle", "--version", "0.1.0", "--output-dir"]).arg(&outside_bundle).assert().success();
    assert!(outside_bundle.join("manifests").is_dir());
}
