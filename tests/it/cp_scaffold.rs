//! A scaffolded project meets a real API server (`control_plane`): its samples, its bundle's `alm-examples`, its
//! `config/default` (server-side apply, dry run and real) and, in a second project, `config/default` with admission
//! webhooks enabled. No operator is built or run: the server only stores and validates what kubesmith writes.

use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::Value;

use crate::adopt::copy_dir;
use crate::control_plane::{ControlPlane, control_plane, kept, kustomize, name_of};
use crate::support::{create_api, init, ks, read};

const NAME: &str = "cp-scaffold-operator";
/// The deploy-image options of the `Cache` kind.
const IMAGE: &[&str] = &["--image", "memcached:1.6.26-alpine", "--image-container-port", "11211"];

/// The project of this file (`init --domain example.com`, group `cache`): `Memcached` (the tutorial's plain kind),
/// `Backup` (a second kind, in `v1beta1`), `Cache` (`--image memcached:1.6.26-alpine --image-container-port
/// 11211`) and the cluster-scoped `Tenant`; `make manifests` run; its CRDs installed from `kubectl kustomize
/// config/crd` by server-side apply, Established and served.
struct Project {
    dir: PathBuf,
    /// CRD documents as `config/crd` renders them.
    crds: Vec<Value>,
}

fn scaffold(cp: &ControlPlane) -> &'static Project {
    static PROJECT: OnceLock<Project> = OnceLock::new();
    PROJECT.get_or_init(|| {
        let dir = init(&cp.scratch("scaffold"), NAME, &[]);
        create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
        create_api(&dir, &["--group", "cache", "--version", "v1beta1", "--kind", "Backup"]);
        create_api(&dir, &[&["--group", "cache", "--version", "v1alpha1", "--kind", "Cache"][..], IMAGE].concat());
        create_api(&dir, &["--group", "cache", "--version", "v1", "--kind", "Tenant", "--namespaced=false"]);
        ks(&dir).args(["make", "manifests"]).assert().success();
        let mut crds = kustomize(&dir, "config/crd");
        assert_eq!(crds.len(), 4, "one CRD per kind");
        cp.docs_for_this_server(&mut crds);
        cp.apply(&crds, &[]);
        cp.wait_for_crds(&crds.iter().map(name_of).collect::<Vec<_>>());
        Project { dir, crds }
    })
}

/// Whether `kind` is cluster-scoped by its CRD.
fn cluster_scoped(crds: &[Value], kind: &str) -> bool {
    let crd = crds.iter().find(|c| c["spec"]["names"]["kind"] == kind).unwrap_or_else(|| panic!("no CRD of {kind}"));
    crd["spec"]["scope"] == "Cluster"
}

/// Every sample of `config/samples` (as `kubectl apply -k config/samples` renders them: one per kind) is created
/// against the installed CRDs in a namespace of its own (the cluster-scoped one cluster-wide), and the server kept
/// every field of each. Kubernetes 1.20 prunes unknown fields silently, so the comparison is what catches a sample
/// field the schema does not have.
#[test]
fn cp_scaffold_samples_are_created_against_their_crds_and_kept_whole() {
    let Some(cp) = control_plane() else { return };
    let _took = crate::control_plane::Took::start();
    let p = scaffold(cp);
    let mut samples = kustomize(&p.dir, "config/samples");
    let files = std::fs::read_dir(p.dir.join("config/samples"))
        .expect("config/samples")
        .filter(|e| e.as_ref().expect("entry").file_name() != "kustomization.yaml")
        .count();
    assert_eq!((samples.len(), files), (4, 4), "one sample per kind, each listed in config/samples/kustomization.yaml");
    cp.docs_for_this_server(&mut samples);
    let image = samples.iter().find(|s| s["kind"] == "Cache").expect("the --image kind's sample");
    assert_eq!(image["spec"]["containerPort"], 11211, "{image}");
    cp.ok(&["create", "namespace", "cp-scaffold-samples"], None);
    cp.ok(
        &["create", "--validate=false", "-n", "cp-scaffold-samples", "-f", "-"],
        Some(&crate::control_plane::list(&samples)),
    );
    let stored = cp.get_all(&samples, &["-n", "cp-scaffold-samples"]);
    if let Err(e) = kept(&samples, &stored) {
        panic!("the server did not keep the samples as written:\n{e}");
    }
    let tenant = stored.iter().find(|s| s["kind"] == "Tenant").expect("the cluster-scoped sample");
    assert!(tenant["metadata"].get("namespace").is_none() && cluster_scoped(&p.crds, "Tenant"), "{tenant}");
}

/// `make bundle --version 0.1.0` (on a copy of the project): the bundle's CRDs are the installed ones (their
/// `spec` as the server stores it), and every `alm-examples` entry of the CSV is created against its CRD and kept
/// whole, one per owned CRD (the cluster-scoped example renamed `<name>-alm`, since the samples test creates the
/// same object).
#[test]
fn cp_scaffold_bundle_alm_examples_are_created_against_their_crds() {
    let Some(cp) = control_plane() else { return };
    let _took = crate::control_plane::Took::start();
    let p = scaffold(cp);
    let dir = cp.scratch("scaffold-bundle").join(NAME);
    copy_dir(&p.dir, &dir);
    let out = ks(&dir).args(["make", "bundle", "--version", "0.1.0"]).output().expect("kubesmith runs");
    assert!(out.status.success(), "{}", crate::control_plane::said(&out));
    let manifests = dir.join("bundle/manifests");
    let csv =
        kubesmith::yaml::from_str(&read(&manifests.join(format!("{NAME}.clusterserviceversion.yaml")))).expect("YAML");
    let owned = csv["spec"]["customresourcedefinitions"]["owned"].as_array().expect("owned CRDs").len();
    let mut examples: Vec<Value> =
        serde_json::from_str(csv["metadata"]["annotations"]["alm-examples"].as_str().expect("alm-examples"))
            .expect("JSON");
    assert_eq!((examples.len(), owned), (4, 4), "one example per owned CRD");

    let mut bundle_crds: Vec<Value> = std::fs::read_dir(&manifests)
        .expect("bundle/manifests")
        .map(|e| kubesmith::yaml::from_str(&read(&e.expect("entry").path())).expect("YAML"))
        .filter(|d: &Value| d["kind"] == "CustomResourceDefinition")
        .collect();
    assert_eq!(bundle_crds.len(), 4);
    cp.docs_for_this_server(&mut bundle_crds);
    let installed = cp.get_all(&bundle_crds, &[]);
    for crd in &bundle_crds {
        let stored = installed.iter().find(|s| name_of(s) == name_of(crd)).expect("installed");
        if let Some(d) = crate::control_plane::dropped(&crd["spec"], &stored["spec"], "/spec", true) {
            panic!("the bundle's CRD {} is not the one config/crd installs: {d}", name_of(crd));
        }
    }

    for e in &mut examples {
        if cluster_scoped(&p.crds, e["kind"].as_str().expect("kind")) {
            e["metadata"]["name"] = Value::from(format!("{}-alm", name_of(e)));
        }
    }
    cp.docs_for_this_server(&mut examples);
    cp.ok(&["create", "namespace", "cp-scaffold-alm"], None);
    cp.ok(
        &["create", "--validate=false", "-n", "cp-scaffold-alm", "-f", "-"],
        Some(&crate::control_plane::list(&examples)),
    );
    let stored = cp.get_all(&examples, &["-n", "cp-scaffold-alm"]);
    if let Err(e) = kept(&examples, &stored) {
        panic!("the server did not keep the alm-examples as written:\n{e}");
    }
}

/// `kubectl kustomize config/default` (CRDs, RBAC, the manager's Deployment, the metrics Service, the Namespace)
/// applied by server-side apply. The dry run comes first for the cluster-scoped objects only: a dry run stores
/// nothing, so the namespaced objects would be refused by the NamespaceLifecycle admission for a namespace that
/// does not exist yet. Then the real apply (its Namespace created by it), after which every object exists with
/// every value sent; then a dry run of everything again, which the server accepts without conflict.
#[test]
fn cp_scaffold_config_default_applies_server_side() {
    let Some(cp) = control_plane() else { return };
    let _took = crate::control_plane::Took::start();
    let p = scaffold(cp);
    let mut docs = kustomize(&p.dir, "config/default");
    cp.docs_for_this_server(&mut docs);
    let kinds: Vec<&str> = docs.iter().map(|d| d["kind"].as_str().expect("kind")).collect();
    for kind in ["Namespace", "CustomResourceDefinition", "ClusterRole", "Deployment", "Service", "ServiceAccount"] {
        assert!(kinds.contains(&kind), "config/default renders a {kind}: {kinds:?}");
    }
    let cluster: Vec<Value> = docs.iter().filter(|d| d["metadata"].get("namespace").is_none()).cloned().collect();
    assert!(cluster.len() >= 6 && cluster.len() < docs.len(), "{kinds:?}");
    cp.apply(&cluster, &["--dry-run=server"]);
    cp.apply(&docs, &[]);
    let stored = cp.get_all(&docs, &[]);
    if let Err(e) = kept(&docs, &stored) {
        panic!("the server did not keep config/default as rendered:\n{e}");
    }
    let ns = stored.iter().find(|d| d["kind"] == "Namespace").expect("the Namespace");
    assert_eq!(ns["metadata"]["name"], format!("{NAME}-system"));
    cp.apply(&docs, &["--dry-run=server"]);
}

/// A second project (`cp-hooks-operator`, kind `Sentinel` in group `cache`, versions `v1alpha1` and `v1beta1`) with
/// `create webhook --defaulting --programmatic-validation` on `v1alpha1`, and `--conversion --spoke v1beta1`:
/// `config/default` with the webhooks enabled renders, and every object but cert-manager's (`Certificate`,
/// `Issuer`: the server has no cert-manager CRDs) is accepted by a server-side dry run: the webhook configurations
/// and their Service, and the CRD whose conversion webhook `config/crd`'s patch sets. In the project's namespace,
/// created first: a dry run stores nothing, so the rendered Namespace would not exist for the objects after it.
#[test]
fn cp_scaffold_with_webhooks_config_default_applies_in_dry_run() {
    let Some(cp) = control_plane() else { return };
    let _took = crate::control_plane::Took::start();
    let dir = init(&cp.scratch("hooks"), "cp-hooks-operator", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Sentinel"]);
    create_api(&dir, &["--group", "cache", "--version", "v1beta1", "--kind", "Sentinel", "--controller=false"]);
    ks(&dir)
        .args(["create", "webhook", "--group", "cache", "--version", "v1alpha1", "--kind", "Sentinel"])
        .args(["--defaulting", "--programmatic-validation", "--conversion", "--spoke", "v1beta1"])
        .assert()
        .success();
    ks(&dir).args(["make", "manifests"]).assert().success();
    let mut docs = kustomize(&dir, "config/default");
    cp.docs_for_this_server(&mut docs);
    let (cert_manager, docs): (Vec<Value>, Vec<Value>) =
        docs.into_iter().partition(|d| d["apiVersion"].as_str().is_some_and(|v| v.starts_with("cert-manager.io/")));
    let kinds: Vec<&str> = docs.iter().map(|d| d["kind"].as_str().expect("kind")).collect();
    assert!(!cert_manager.is_empty(), "the webhooks' certificates come from cert-manager");
    for kind in ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "Service", "Deployment"] {
        assert!(kinds.contains(&kind), "config/default renders a {kind}: {kinds:?}");
    }
    let crd = docs.iter().find(|d| d["kind"] == "CustomResourceDefinition").expect("the CRD");
    assert_eq!(crd["spec"]["conversion"]["strategy"], "Webhook", "{crd}");
    assert_eq!(crd["spec"]["versions"].as_array().map(Vec::len), Some(2), "{crd}");
    cp.ok(&["create", "namespace", "cp-hooks-operator-system"], None);
    cp.apply(&docs, &["--dry-run=server"]);
}
