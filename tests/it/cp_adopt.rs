//! An adopted operator's RBAC meets a real API server (`control_plane`): the role `kubesmith adopt` infers from
//! the code, applied and bound as its `config/default` binds it, lets the manager's ServiceAccount make every call
//! the controller's code makes, and nothing else that was checked.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::adopt::copy_dir;
use crate::control_plane::{ControlPlane, control_plane, kept, kustomize, name_of, said};
use crate::rbac_infer::{CONTROLLER, orchard, set, triples};
use crate::support::{ks, read};

/// `kubectl auth can-i VERB RESOURCE[.GROUP] [--subresource SUB] -n NS --as SA`: whether the server says yes.
fn can_i(cp: &ControlPlane, sa: &str, ns: &str, (group, resource, verb): (&str, &str, &str)) -> bool {
    let (resource, sub) = resource.split_once('/').map_or((resource, None), |(r, s)| (r, Some(s)));
    let resource = if group.is_empty() { resource.to_string() } else { format!("{resource}.{group}") };
    let mut args = vec!["auth", "can-i", verb, &resource, "-n", ns, "--as", sa];
    let sub = sub.map(|s| format!("--subresource={s}"));
    args.extend(sub.as_deref());
    let out = cp.kubectl(&args);
    let answer = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(answer == "yes" || answer == "no", "kubectl auth can-i {}:\n{}", args.join(" "), said(&out));
    answer == "yes"
}

/// The fixture `tests/fixtures/rbac-infer/orchard` (two crates, a namespaced `Tree` and a cluster-scoped `Plot`)
/// adopted with `--bin orchard-controller`; its `config/default` applied server-side (Namespace, CRDs,
/// ServiceAccount, the manager ClusterRole from `config/rbac/role.yaml` and its binding, the Deployment), every
/// object stored as rendered, and the samples it wrote created against the CRDs and stored whole. Then, as `system:serviceaccount:<namespace>:<manager's ServiceAccount>`, `kubectl
/// auth can-i` says yes to every call the controller binary makes (`rbac_infer::CONTROLLER`, worked out by hand from
/// the sources, subresources included), and no to calls it does not make: listing `plotlands` (only the report
/// binary does), listing or deleting Secrets (the controller only gets one) and creating ClusterRoles.
#[test]
fn cp_adopted_role_allows_every_call_the_code_makes_and_no_other() {
    let Some(cp) = control_plane() else { return };
    let _took = crate::control_plane::Took::start();
    let dir = cp.scratch("adopt").join("orchard");
    copy_dir(&orchard(), &dir);
    let out = ks(&dir)
        .args(["adopt", "--domain", "example.net", "--image", "quay.io/orchard/controller:0.1.0"])
        .args(["--bin", "orchard-controller"])
        .output()
        .expect("kubesmith runs");
    assert!(out.status.success(), "{}", said(&out));
    assert_eq!(triples(&read(&dir.join("config/rbac/role.yaml"))), set(CONTROLLER), "the inferred role");

    let mut docs = kustomize(&dir, "config/default");
    cp.docs_for_this_server(&mut docs);
    cp.apply(&docs, &[]);
    let stored = cp.get_all(&docs, &[]);
    if let Err(e) = kept(&docs, &stored) {
        panic!("the server did not keep the adopted config/default as rendered:\n{e}");
    }
    // The samples adopt writes (the least object each schema accepts) are created against the installed CRDs.
    let crds: Vec<String> = docs.iter().filter(|d| d["kind"] == "CustomResourceDefinition").map(name_of).collect();
    assert_eq!(crds.len(), 2, "{crds:?}");
    cp.wait_for_crds(&crds);
    let mut samples = kustomize(&dir, "config/samples");
    assert_eq!(samples.len(), 2, "one sample per kind");
    cp.docs_for_this_server(&mut samples);
    cp.ok(&["create", "namespace", "cp-adopt-samples"], None);
    cp.ok(
        &["create", "--validate=false", "-n", "cp-adopt-samples", "-f", "-"],
        Some(&crate::control_plane::list(&samples)),
    );
    if let Err(e) = kept(&samples, &cp.get_all(&samples, &["-n", "cp-adopt-samples"])) {
        panic!("the server did not keep the adopted samples as written:\n{e}");
    }

    let one = |kind: &str| -> &Value {
        let found: Vec<&Value> = docs.iter().filter(|d| d["kind"] == kind).collect();
        assert_eq!(found.len(), 1, "one {kind} in config/default");
        found[0]
    };
    let account = one("ServiceAccount");
    let ns = account["metadata"]["namespace"].as_str().expect("namespace");
    let sa = format!("system:serviceaccount:{ns}:{}", account["metadata"]["name"].as_str().expect("name"));
    let binding = docs
        .iter()
        .find(|d| {
            d["kind"] == "ClusterRoleBinding"
                && d["roleRef"]["name"].as_str().is_some_and(|r| r.ends_with("manager-role"))
        })
        .expect("the manager role's binding");
    assert_eq!(binding["subjects"][0]["name"], account["metadata"]["name"], "{binding}");

    // Bindings reach the authorizer through its informers: wait until the first grant is seen.
    let first = CONTROLLER[0];
    let deadline = Instant::now() + Duration::from_secs(30);
    while !can_i(cp, &sa, ns, first) {
        assert!(Instant::now() < deadline, "{sa} is never granted {first:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
    let denied: Vec<_> = CONTROLLER.iter().filter(|call| !can_i(cp, &sa, ns, **call)).collect();
    assert!(denied.is_empty(), "the adopted role does not grant calls the code makes: {denied:?}");
    for call in [
        ("land.example.net", "plotlands", "list"),
        ("", "secrets", "list"),
        ("", "secrets", "delete"),
        ("rbac.authorization.k8s.io", "clusterroles", "create"),
    ] {
        assert!(!can_i(cp, &sa, ns, call), "{sa} may {call:?}, which the controller never does");
    }
}
