//! The Helm chart of `make helm` meets a real API server (`control_plane`): rendered as `helm template` renders it
//! (`tools/helm-render`, as `helm.rs` builds it) and applied server-side, in a dry run and really, in a fresh
//! namespace.

use std::process::Command;

use serde_json::Value;

use crate::control_plane::{control_plane, kept, said};
use crate::helm::renderer;
use crate::support::{create_api, init, ks};

const RELEASE: &str = "cp-helm-operator";
const NAMESPACE: &str = "cp-helm";

/// A project with a plain kind, an `--image` kind, a cluster-scoped kind (group `charts`, so no CRD is shared with
/// the other `cp_*` tests) and admission webhooks on the plain kind; `make helm`. The chart is rendered for a
/// release in the fresh namespace `cp-helm` with the CRDs (`--include-crds`, as `helm install` does), the server's
/// version as `.Capabilities.KubeVersion` and `certManager.enable=false` (the server has no cert-manager CRDs; the
/// webhook configurations and their Service are still rendered). The namespace is created first, as `helm install
/// --create-namespace` does; then a server-side dry run of every object, the real apply, and every object exists
/// with every value the chart rendered.
#[test]
fn cp_helm_chart_renders_and_applies_server_side_in_a_fresh_namespace() {
    let Some(cp) = control_plane() else { return };
    let _took = crate::control_plane::Took::start();
    let Some(render) = renderer() else { return };
    let dir = init(&cp.scratch("helm"), RELEASE, &[]);
    create_api(&dir, &["--group", "charts", "--version", "v1alpha1", "--kind", "Memcached"]);
    let image = ["--image", "memcached:1.6.26-alpine", "--image-container-port", "11211"];
    create_api(&dir, &[&["--group", "charts", "--version", "v1alpha1", "--kind", "Cache"][..], &image].concat());
    create_api(&dir, &["--group", "charts", "--version", "v1", "--kind", "Tenant", "--namespaced=false"]);
    ks(&dir)
        .args(["create", "webhook", "--group", "charts", "--version", "v1alpha1", "--kind", "Memcached"])
        .args(["--defaulting", "--programmatic-validation"])
        .assert()
        .success();
    let out = ks(&dir).args(["make", "helm"]).output().expect("kubesmith runs");
    assert!(out.status.success(), "make helm failed:\n{}", said(&out));

    let out = Command::new(render)
        .args(["--release-name", RELEASE, "--namespace", NAMESPACE, "--include-crds"])
        .args(["--kube-version", &cp.version, "--set", "certManager.enable=false"])
        .arg(dir.join("dist/chart"))
        .output()
        .expect("helm-render runs");
    assert!(out.status.success(), "helm-render failed:\n{}", said(&out));
    let mut docs: Vec<Value> =
        kubesmith::yaml::from_multi_doc_str(&String::from_utf8(out.stdout).expect("UTF-8")).expect("rendered YAML");
    cp.docs_for_this_server(&mut docs);
    let kinds: Vec<&str> = docs.iter().map(|d| d["kind"].as_str().expect("kind")).collect();
    for kind in [
        "CustomResourceDefinition",
        "ClusterRole",
        "ClusterRoleBinding",
        "Deployment",
        "ServiceAccount",
        "Service",
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
    ] {
        assert!(kinds.contains(&kind), "the chart renders a {kind}: {kinds:?}");
    }
    assert_eq!(kinds.iter().filter(|k| **k == "CustomResourceDefinition").count(), 3, "{kinds:?}");
    assert!(!kinds.contains(&"Certificate") && !kinds.contains(&"Namespace"), "{kinds:?}");

    cp.ok(&["create", "namespace", NAMESPACE], None);
    cp.apply(&docs, &["-n", NAMESPACE, "--dry-run=server"]);
    cp.apply(&docs, &["-n", NAMESPACE]);
    let stored = cp.get_all(&docs, &["-n", NAMESPACE]);
    if let Err(e) = kept(&docs, &stored) {
        panic!("the server did not keep the chart's objects as rendered:\n{e}");
    }
    let namespaced = stored.iter().filter(|d| d["metadata"]["namespace"] == NAMESPACE).count();
    assert!(namespaced >= 4, "the release's objects are in {NAMESPACE}");
}
