//! `kubesmith make helm` and `kubesmith helm lint`. Charts are rendered by `tools/helm-render` (Go's text/template
//! with sprig and Helm's functions, as `helm template` renders; built here in GOPATH mode from Debian's packages,
//! once per version of its source, under the target folder) and compared, as parsed objects, with what
//! `kubectl kustomize config/default` renders. Where Go is missing these tests say so and pass without rendering.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::support::{create_api, init, ks, read, repo_root, standard_project};

/// Rendered objects by kind and name.
type Objects = BTreeMap<(String, String), Value>;

const RELEASE: &str = "memcached-operator";
const NAMESPACE: &str = "memcached-operator-system";
/// Labels Helm's charts add (`<chart>.labels`); kustomize's `app.kubernetes.io/managed-by: kustomize` goes too.
const HELM_LABELS: [&str; 4] =
    ["helm.sh/chart", "app.kubernetes.io/instance", "app.kubernetes.io/version", "app.kubernetes.io/managed-by"];

/// The renderer, built once per version of its source; `None` (said on stderr) when Go is not installed.
pub(crate) fn renderer() -> Option<PathBuf> {
    let source = repo_root().join("tools/helm-render/main.go");
    let text = std::fs::read(&source).expect("tools/helm-render/main.go");
    let hash = text.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3));
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("helm-render");
    let bin = dir.join(format!("helm-render-{hash:016x}"));
    if bin.is_file() {
        return Some(bin);
    }
    if Command::new("go").arg("version").output().is_err() {
        eprintln!(
            "skipped: Go is not installed, so the chart is not rendered (install golang-go, \
             golang-github-masterminds-sprig-dev, golang-k8s-sigs-yaml-dev and golang-github-xeipuuv-gojsonschema-dev, \
             as .ci/run does)"
        );
        return None;
    }
    std::fs::create_dir_all(&dir).unwrap();
    let tmp = dir.join(format!("build-{}", std::process::id()));
    let out = Command::new("go")
        .args(["build", "-o"])
        .arg(&tmp)
        .arg("./tools/helm-render")
        .current_dir(repo_root())
        .env("GO111MODULE", "off")
        .env("GOPATH", "/usr/share/gocode")
        .env("GOFLAGS", "")
        .env("GOCACHE", dir.join("go-cache"))
        .output()
        .expect("go runs");
    assert!(
        out.status.success(),
        "building tools/helm-render failed (are golang-github-masterminds-sprig-dev, golang-k8s-sigs-yaml-dev and \
         golang-github-xeipuuv-gojsonschema-dev installed?):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::rename(&tmp, &bin).unwrap();
    Some(bin)
}

/// `helm template memcached-operator dist/chart -n memcached-operator-system [args]`: the output or the error.
fn template(bin: &Path, dir: &Path, args: &[&str]) -> Result<Vec<Value>, String> {
    let out = Command::new(bin)
        .args(["--release-name", RELEASE, "--namespace", NAMESPACE])
        .args(args)
        .arg(dir.join("dist/chart"))
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(kubesmith::yaml::from_multi_doc_str(&String::from_utf8(out.stdout).unwrap()).expect("rendered YAML"))
}

fn rendered(bin: &Path, dir: &Path, args: &[&str]) -> Objects {
    objects(template(bin, dir, args).unwrap_or_else(|e| panic!("helm-render {args:?} failed:\n{e}")))
}

fn kustomize(dir: &Path, path: &str) -> Objects {
    let out = Command::new("kubectl").args(["kustomize", path]).current_dir(dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    objects(kubesmith::yaml::from_multi_doc_str(&String::from_utf8(out.stdout).unwrap()).unwrap())
}

/// Objects by kind and name, without Helm's labels (and kustomize's managed-by), empty label maps dropped.
fn objects(docs: Vec<Value>) -> Objects {
    let mut out = BTreeMap::new();
    for mut d in docs {
        for meta in ["/metadata", "/spec/template/metadata"] {
            if let Some(labels) = d.pointer_mut(&format!("{meta}/labels")).and_then(Value::as_object_mut) {
                for l in HELM_LABELS {
                    labels.remove(l);
                }
                if labels.is_empty() {
                    d.pointer_mut(meta).unwrap().as_object_mut().unwrap().remove("labels");
                }
            }
        }
        let key = (d["kind"].as_str().unwrap().to_string(), d["metadata"]["name"].as_str().unwrap().to_string());
        assert!(out.insert(key.clone(), d).is_none(), "{key:?} rendered twice");
    }
    out
}

fn keys(m: &Objects) -> BTreeSet<(String, String)> {
    m.keys().cloned().collect()
}

fn key(kind: &str, name: &str) -> (String, String) {
    (kind.to_string(), name.to_string())
}

fn deployment(m: &Objects) -> &Value {
    &m[&key("Deployment", "memcached-operator-controller-manager")]
}

fn args(m: &Objects) -> Vec<String> {
    deployment(m)["spec"]["template"]["spec"]["containers"][0]["args"]
        .as_array()
        .map(|a| a.iter().map(|x| x.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

fn make_helm(dir: &Path) -> String {
    let out = ks(dir).args(["make", "helm"]).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "make helm failed:\n{text}");
    text
}

/// A project with a CRD (converted by a webhook), admission webhooks and metrics: the tests' standard one.
fn project_with_chart(parent: &Path) -> PathBuf {
    let dir = standard_project(parent);
    make_helm(&dir);
    dir
}

#[test]
fn helm_chart_defaults_render_what_kustomize_renders() {
    let parent = tempfile::tempdir().unwrap();
    let dir = project_with_chart(parent.path());
    // Lint-clean as written, and recorded in PROJECT.
    ks(&dir).args(["helm", "lint"]).assert().success();
    assert!(read(&dir.join("PROJECT")).contains("helm.rust.kubesmith.io/v1alpha1:\n    output: dist/chart\n"));
    // The helpers name objects, label them, select the manager's pods and name its ServiceAccount.
    let helpers = read(&dir.join("dist/chart/templates/_helpers.tpl"));
    for h in ["name", "fullname", "chart", "labels", "selectorLabels", "serviceAccountName"] {
        assert!(helpers.contains(&format!("{{{{- define \"memcached-operator.{h}\" -}}}}")), "{h}: {helpers}");
    }
    let manager = read(&dir.join("dist/chart/templates/manager/manager.yaml"));
    assert!(
        manager.contains("matchLabels:\n      {{- include \"memcached-operator.selectorLabels\" $ | nindent 6 }}\n")
    );
    assert!(manager.contains("serviceAccountName: {{ include \"memcached-operator.serviceAccountName\" $ }}\n"));
    let Some(bin) = renderer() else { return };
    let mut want = kustomize(&dir, "config/default");
    let got = rendered(&bin, &dir, &[]);

    // The Namespace is Helm's (`--create-namespace`) unless namespace.create; then it is kustomize's.
    let namespace = want.remove(&key("Namespace", NAMESPACE)).expect("config/default renders the namespace");
    assert_eq!(rendered(&bin, &dir, &["--set", "namespace.create=true"])[&key("Namespace", NAMESPACE)], namespace);
    // Helm's own additions: the keep policy of the CRDs; the image's tag is the chart's appVersion (the crate's).
    let mut got = got;
    for ((kind, _), o) in got.iter_mut() {
        if kind == "CustomResourceDefinition" {
            let annotations = o["metadata"]["annotations"].as_object_mut().unwrap();
            assert_eq!(annotations.remove("helm.sh/resource-policy"), Some(json!("keep")));
            if annotations.is_empty() {
                o["metadata"].as_object_mut().unwrap().remove("annotations");
            }
        }
    }
    let image =
        |m: &Objects| deployment(m)["spec"]["template"]["spec"]["containers"][0]["image"].as_str().unwrap().to_string();
    assert_eq!(image(&want), "controller:latest");
    assert_eq!(image(&got), "controller:0.1.0");
    let latest = rendered(&bin, &dir, &["--set", "manager.image.tag=latest"]);
    assert_eq!(image(&latest), "controller:latest");
    got.insert(key("Deployment", "memcached-operator-controller-manager"), deployment(&latest).clone());

    assert_eq!(keys(&got), keys(&want), "the same objects");
    let kinds: BTreeSet<&str> = want.keys().map(|(k, _)| k.as_str()).collect();
    for k in [
        "CustomResourceDefinition",
        "Deployment",
        "Service",
        "ClusterRole",
        "Role",
        "ClusterRoleBinding",
        "RoleBinding",
        "ServiceAccount",
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
        "Certificate",
        "Issuer",
    ] {
        assert!(kinds.contains(k), "the project renders a {k}");
    }
    for (k, w) in &want {
        assert_eq!(&got[k], w, "{k:?} differs from kustomize's");
    }
    // The conversion webhook of the CRD points at the release's webhook Service.
    let crd = &got[&key("CustomResourceDefinition", "memcacheds.cache.example.com")];
    assert_eq!(
        crd["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["name"],
        "memcached-operator-webhook-service"
    );
}

#[test]
fn helm_chart_offers_the_prometheus_and_network_policy_parts_config_default_leaves_out() {
    let parent = tempfile::tempdir().unwrap();
    let dir = project_with_chart(parent.path());
    let Some(bin) = renderer() else { return };
    let base = rendered(&bin, &dir, &[]);
    let on = rendered(&bin, &dir, &["--set", "prometheus.enable=true,networkPolicy.enable=true"]);
    // What config/default renders once those parts are uncommented.
    let k = dir.join("config/default/kustomization.yaml");
    let text =
        read(&k).replace("#- ../prometheus", "- ../prometheus").replace("#- ../network-policy", "- ../network-policy");
    std::fs::write(&k, text).unwrap();
    let want = kustomize(&dir, "config/default");
    let added: BTreeSet<_> = keys(&on).difference(&keys(&base)).cloned().collect();
    assert_eq!(
        added,
        BTreeSet::from([
            key("ServiceMonitor", "memcached-operator-controller-manager-metrics-monitor"),
            key("NetworkPolicy", "memcached-operator-allow-metrics-traffic"),
            key("NetworkPolicy", "memcached-operator-allow-webhook-traffic"),
        ])
    );
    for k in &added {
        assert_eq!(on[k], want[k], "{k:?}");
    }
    // A chart made from that config/default has them on by default.
    make_helm(&dir);
    let now = rendered(&bin, &dir, &[]);
    assert!(added.iter().all(|k| now.contains_key(k)));
    // Metrics off takes the ServiceMonitor and the metrics policy with it.
    let off = rendered(&bin, &dir, &["--set", "metrics.enable=false"]);
    assert!(!off.contains_key(&key("ServiceMonitor", "memcached-operator-controller-manager-metrics-monitor")));
    assert!(!off.contains_key(&key("NetworkPolicy", "memcached-operator-allow-metrics-traffic")));
    assert!(off.contains_key(&key("NetworkPolicy", "memcached-operator-allow-webhook-traffic")));
}

#[test]
fn helm_chart_toggles_change_exactly_what_they_should() {
    let parent = tempfile::tempdir().unwrap();
    let dir = project_with_chart(parent.path());
    let Some(bin) = renderer() else { return };
    let base = rendered(&bin, &dir, &[]);
    let removed = |set: &str| -> (BTreeSet<(String, String)>, Objects) {
        let m = rendered(&bin, &dir, &["--set", set]);
        assert!(keys(&m).is_subset(&keys(&base)), "{set} adds nothing");
        (keys(&base).difference(&keys(&m)).cloned().collect(), m)
    };
    let changed = |m: &Objects| -> BTreeSet<(String, String)> {
        m.iter().filter(|(k, v)| base[*k] != **v).map(|(k, _)| k.clone()).collect()
    };
    let p = |n: &str| format!("memcached-operator-{n}");

    let (gone, m) = removed("metrics.enable=false");
    assert_eq!(
        gone,
        BTreeSet::from([
            key("Service", &p("controller-manager-metrics-service")),
            key("ClusterRole", &p("metrics-auth-role")),
            key("ClusterRoleBinding", &p("metrics-auth-rolebinding")),
            key("ClusterRole", &p("metrics-reader")),
        ])
    );
    assert_eq!(changed(&m), BTreeSet::from([key("Deployment", &p("controller-manager"))]));
    assert!(!args(&m).iter().any(|a| a.starts_with("--metrics")), "{:?}", args(&m));

    let (gone, m) = removed("webhook.enable=false");
    assert_eq!(
        gone,
        BTreeSet::from([
            key("MutatingWebhookConfiguration", &p("mutating-webhook-configuration")),
            key("ValidatingWebhookConfiguration", &p("validating-webhook-configuration")),
            key("Service", &p("webhook-service")),
            key("Certificate", &p("serving-cert")),
        ])
    );
    // The manager loses its webhook flags, port and certificate; the CRD its conversion webhook.
    assert_eq!(
        changed(&m),
        BTreeSet::from([
            key("Deployment", &p("controller-manager")),
            key("CustomResourceDefinition", "memcacheds.cache.example.com")
        ])
    );
    assert!(!args(&m).iter().any(|a| a.starts_with("--webhook")));
    let pod = &deployment(&m)["spec"]["template"]["spec"];
    assert!(pod["volumes"].as_array().is_none_or(Vec::is_empty), "{pod}");
    assert!(!pod["containers"][0]["ports"].to_string().contains("9443"));
    assert!(m[&key("CustomResourceDefinition", "memcacheds.cache.example.com")]["spec"].get("conversion").is_none());

    let (gone, m) = removed("certManager.enable=false");
    assert_eq!(gone, BTreeSet::from([key("Issuer", &p("selfsigned-issuer")), key("Certificate", &p("serving-cert"))]));
    for k in changed(&m) {
        assert!(!m[&k].to_string().contains("cert-manager.io/inject-ca-from"), "{k:?}");
        assert!(base[&k].to_string().contains("cert-manager.io/inject-ca-from"), "{k:?} changed for no reason");
    }

    let (gone, m) = removed("rbac.create=false");
    let rbac_kinds = ["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"];
    let all_rbac: BTreeSet<_> = base.keys().filter(|(k, _)| rbac_kinds.contains(&k.as_str())).cloned().collect();
    assert_eq!(gone, all_rbac);
    assert!(changed(&m).is_empty());

    let (gone, m) = removed("crds.install=false");
    let crds: BTreeSet<_> = base.keys().filter(|(k, _)| k == "CustomResourceDefinition").cloned().collect();
    assert_eq!(crds.len(), 3);
    assert_eq!(gone, crds);
    assert!(changed(&m).is_empty());

    let (gone, m) = removed("crds.keep=false");
    assert!(gone.is_empty());
    assert_eq!(changed(&m), crds);
    assert!(crds.iter().all(|k| !m[k].to_string().contains("helm.sh/resource-policy")));

    let (gone, m) = removed("leaderElection.enable=false");
    assert_eq!(
        gone,
        BTreeSet::from([
            key("Role", &p("leader-election-role")),
            key("RoleBinding", &p("leader-election-rolebinding"))
        ])
    );
    assert_eq!(changed(&m), BTreeSet::from([key("Deployment", &p("controller-manager"))]));
    assert!(!args(&m).contains(&"--leader-elect".to_string()));

    let (gone, m) = removed("rbac.helperRoles=false");
    assert_eq!(gone.len(), 9, "admin, editor and viewer roles of three kinds: {gone:?}");
    assert!(gone.iter().all(|(k, n)| k == "ClusterRole"
        && (n.ends_with("-admin-role") || n.ends_with("-editor-role") || n.ends_with("-viewer-role"))));
    assert!(changed(&m).is_empty());

    let (gone, m) = removed("serviceAccount.create=false,serviceAccount.name=shared");
    assert_eq!(gone, BTreeSet::from([key("ServiceAccount", &p("controller-manager"))]));
    for k in changed(&m) {
        assert!(m[&k].to_string().contains("\"shared\""), "{k:?}");
    }
    assert_eq!(deployment(&m)["spec"]["template"]["spec"]["serviceAccountName"], "shared");
    let bindings = m.iter().filter(|((k, _), _)| k.ends_with("Binding"));
    for (_, b) in bindings {
        assert_eq!(b["subjects"][0]["name"], "shared");
    }
}

#[test]
fn helm_values_tune_the_manager() {
    let parent = tempfile::tempdir().unwrap();
    let dir = project_with_chart(parent.path());
    let Some(bin) = renderer() else { return };
    let values = dir.join("tuning.yaml");
    std::fs::write(
        &values,
        "manager:\n  replicas: 3\n  image:\n    repository: ghcr.io/acme/memcached-operator\n    tag: v9\n    \
         pullPolicy: Always\n  imagePullSecrets: [{name: regcred}]\n  extraArgs: [--log-level=debug]\n  \
         extraEnv: [{name: RUST_LOG, value: debug}]\n  resources: {limits: {memory: 1Gi}}\n  \
         podSecurityContext: {runAsUser: 1000}\n  securityContext: {privileged: false}\n  \
         nodeSelector: {disk: ssd}\n  tolerations: [{key: k, operator: Exists}]\n  \
         affinity: {nodeAffinity: {}}\n  podAnnotations: {a: b}\n  podLabels: {team: x}\n\
         metrics: {port: 9000}\nwebhook: {port: 10443}\nserviceAccount: {annotations: {iam: role}}\n",
    )
    .unwrap();
    let m = rendered(&bin, &dir, &["-f", values.to_str().unwrap()]);
    let d = deployment(&m);
    let pod = &d["spec"]["template"];
    let c = &pod["spec"]["containers"][0];
    assert_eq!(d["spec"]["replicas"], 3);
    assert_eq!(c["image"], "ghcr.io/acme/memcached-operator:v9");
    assert_eq!(c["imagePullPolicy"], "Always");
    assert_eq!(pod["spec"]["imagePullSecrets"], json!([{"name": "regcred"}]));
    assert_eq!(
        args(&m),
        [
            "--metrics-bind-address=:9000",
            "--leader-elect",
            "--health-probe-bind-address=:8081",
            "--webhook-cert-path=/tmp/k8s-webhook-server/serving-certs",
            "--webhook-port=10443",
            "--log-level=debug"
        ]
    );
    assert_eq!(c["env"].as_array().unwrap().last().unwrap(), &json!({"name": "RUST_LOG", "value": "debug"}));
    // Helm merges maps: the limit set, the rest of the default resources kept.
    assert_eq!(
        c["resources"],
        json!({"limits": {"cpu": "500m", "memory": "1Gi"}, "requests": {"cpu": "10m", "memory": "64Mi"}})
    );
    assert_eq!(c["securityContext"]["privileged"], false);
    assert_eq!(c["securityContext"]["readOnlyRootFilesystem"], true);
    assert_eq!(pod["spec"]["securityContext"]["runAsUser"], 1000);
    assert_eq!(pod["spec"]["securityContext"]["runAsNonRoot"], true);
    assert_eq!(pod["spec"]["nodeSelector"], json!({"disk": "ssd"}));
    assert_eq!(pod["spec"]["tolerations"], json!([{"key": "k", "operator": "Exists"}]));
    assert_eq!(pod["spec"]["affinity"], json!({"nodeAffinity": {}}));
    assert_eq!(pod["metadata"]["annotations"]["a"], "b");
    assert_eq!(pod["metadata"]["annotations"]["kubectl.kubernetes.io/default-container"], "manager");
    assert_eq!(pod["metadata"]["labels"]["team"], "x");
    assert_eq!(
        c["ports"].as_array().unwrap().iter().find(|p| p["name"] == "webhook-server").unwrap()["containerPort"],
        10443
    );
    let metrics = &m[&key("Service", "memcached-operator-controller-manager-metrics-service")];
    assert_eq!(
        (metrics["spec"]["ports"][0]["port"].as_u64(), metrics["spec"]["ports"][0]["targetPort"].as_u64()),
        (Some(9000), Some(9000))
    );
    let webhook = &m[&key("Service", "memcached-operator-webhook-service")];
    assert_eq!(
        (webhook["spec"]["ports"][0]["port"].as_u64(), webhook["spec"]["ports"][0]["targetPort"].as_u64()),
        (Some(443), Some(10443))
    );
    assert_eq!(
        m[&key("ServiceAccount", "memcached-operator-controller-manager")]["metadata"]["annotations"],
        json!({"iam": "role"})
    );
    // A digest wins over the tag; another release name renames every object and reference.
    let m = rendered(&bin, &dir, &["--set", "manager.image.digest=sha256:abc"]);
    assert_eq!(deployment(&m)["spec"]["template"]["spec"]["containers"][0]["image"], "controller@sha256:abc");
    let other = template(&bin, &dir, &["--set", "fullnameOverride=blue"]).unwrap();
    let text = serde_json::to_string(&other).unwrap();
    assert!(!text.contains("memcached-operator-controller-manager"), "every name follows the release");
    assert!(text.contains("blue-webhook-service.memcached-operator-system.svc"));
}

#[test]
fn helm_schema_rejects_a_wrong_value_type() {
    let parent = tempfile::tempdir().unwrap();
    let dir = project_with_chart(parent.path());
    // kubesmith's own check, with --set as helm takes it.
    let out = ks(&dir).args(["helm", "lint", "--set", "manager.replicas=two,metrics.enable=yes"]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains(
            "values.schema.json: the values do not match at manager.replicas: \"two\" is not of type \"integer\""
        ),
        "{said}"
    );
    assert!(said.contains("at metrics.enable: \"yes\" is not of type \"boolean\""), "{said}");
    ks(&dir).args(["helm", "lint", "--set", "manager.replicas=2"]).assert().success();
    if let Some(bin) = renderer() {
        // Helm's own validation library (gojsonschema) rejects it too.
        let err = template(&bin, &dir, &["--set", "manager.replicas=two"]).unwrap_err();
        assert!(err.contains("values don't meet the specifications of the schema"), "{err}");
        assert!(err.contains("manager.replicas: Invalid type. Expected: integer, given: string"), "{err}");
        let err = template(&bin, &dir, &["--set", "manager.image.pullPolicy=Sometimes"]).unwrap_err();
        assert!(err.contains("manager.image.pullPolicy"), "{err}");
    }
    // A wrong type written into values.yaml stops make helm, which writes nothing.
    let values = dir.join("dist/chart/values.yaml");
    let text = read(&values).replace("  replicas: 1\n", "  replicas: \"1\"\n");
    std::fs::write(&values, &text).unwrap();
    let out = ks(&dir).args(["make", "helm"]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("manager.replicas: \"1\" is not of type \"integer\""), "{said}");
    assert_eq!(read(&values), text);
}

#[test]
fn helm_values_edits_survive_make_helm() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    make_helm(&dir);
    let values = dir.join("dist/chart/values.yaml");
    let original = read(&values);
    assert!(!original.contains("webhook:"), "no webhook values before there are webhooks");
    // The user changes a default, adds a key and a comment of their own.
    let edited = original
        .replace("  replicas: 1\n", "  # two for availability\n  replicas: 2\n")
        .replace("  podLabels: {}\n", "  podLabels:\n    team: cache\n")
        + "\n# our own settings\nglobal:\n  region: eu\n";
    std::fs::write(&values, &edited).unwrap();
    // The config changes: the manager's memory limit, and webhooks arrive.
    let manager = dir.join("config/manager/manager.yaml");
    std::fs::write(&manager, read(&manager).replace("memory: 128Mi", "memory: 256Mi")).unwrap();
    ks(&dir)
        .args(["create", "webhook", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached", "--defaulting"])
        .assert()
        .success();
    make_helm(&dir);
    let after = read(&values);
    assert!(after.contains("  # two for availability\n  replicas: 2\n"), "{after}");
    assert!(after.contains("  podLabels:\n    team: cache\n"), "{after}");
    assert!(after.contains("\n# our own settings\nglobal:\n  region: eu\n"), "{after}");
    assert!(after.contains("      memory: 256Mi\n"), "an untouched default follows config/: {after}");
    assert!(
        after.contains("\n# The admission and conversion webhooks.\nwebhook:\n"),
        "new keys come with their comment: {after}"
    );
    // Every line of the user's file is still there but the default that changed.
    for line in edited.lines().filter(|l| !l.contains("memory: 128Mi")) {
        assert!(after.lines().any(|a| a == line), "lost {line:?}:\n{after}");
    }
    // Again: nothing changes.
    let out = make_helm(&dir);
    assert!(out.contains("everything is up to date"), "{out}");
    // The user's value wins over a later change of the default too.
    std::fs::write(&manager, read(&manager).replace("replicas: 1", "replicas: 4")).unwrap();
    make_helm(&dir);
    assert!(read(&values).contains("  replicas: 2\n"));
}

#[test]
fn helm_check_detects_a_stale_chart_and_make_manifests_keeps_it_current() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    // Without a chart make manifests makes none.
    ks(&dir).args(["make", "manifests"]).assert().success();
    assert!(!dir.join("dist").exists());
    make_helm(&dir);
    ks(&dir).args(["make", "helm", "--check"]).assert().success();
    // A new kind: its CRD and roles are missing from the chart.
    create_api(&dir, &["--group", "cache", "--version", "v1", "--kind", "Cluster", "--namespaced=false"]);
    let out = ks(&dir).args(["make", "helm", "--check"]).output().unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("missing: dist/chart/templates/crd/clusters.cache.example.com.yaml"), "{said}");
    assert!(said.contains("missing: dist/chart/templates/rbac/cluster-admin-role.yaml"), "{said}");
    assert!(said.contains("run `kubesmith make helm`"), "{said}");
    // make manifests brings the chart up to date, as PROJECT records it, with the role it writes.
    let before = read(&dir.join("dist/chart/templates/rbac/manager-role.yaml"));
    ks(&dir).args(["make", "manifests"]).assert().success();
    ks(&dir).args(["make", "helm", "--check"]).assert().success();
    assert!(dir.join("dist/chart/templates/crd/clusters.cache.example.com.yaml").is_file());
    let after = read(&dir.join("dist/chart/templates/rbac/manager-role.yaml"));
    assert!(!before.contains("clusters") && after.contains("- clusters\n"), "{after}");
    // make manifests --check sees a stale chart too.
    let role = dir.join("dist/chart/templates/rbac/cluster-viewer-role.yaml");
    std::fs::write(&role, read(&role).replace("- get", "- delete")).unwrap();
    let out = ks(&dir).args(["make", "manifests", "--check"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("stale: dist/chart/templates/rbac/cluster-viewer-role.yaml"));
}

#[test]
fn helm_never_touches_files_it_did_not_write() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    make_helm(&dir);
    let chart = dir.join("dist/chart");
    // A template of the user's, a generated one the user took over, one kubesmith wrote for an object now gone.
    std::fs::write(chart.join("templates/configmap.yaml"), "kind: ConfigMap\n").unwrap();
    let taken = chart.join("templates/rbac/manager-role.yaml");
    let mine = read(&taken).lines().skip(1).collect::<Vec<_>>().join("\n") + "\n# mine\n";
    std::fs::write(&taken, &mine).unwrap();
    let stale = chart.join("templates/rbac/gone.yaml");
    std::fs::write(&stale, read(&chart.join("templates/rbac/manager-rolebinding.yaml"))).unwrap();
    std::fs::write(chart.join("README.md"), "# my chart\n").unwrap();
    let out = make_helm(&dir);
    assert!(
        out.contains(
            "kept dist/chart/templates/rbac/manager-role.yaml: it has no `Generated by kubesmith make helm` mark"
        ),
        "{out}"
    );
    assert_eq!(read(&chart.join("templates/configmap.yaml")), "kind: ConfigMap\n");
    assert_eq!(read(&taken), mine);
    assert_eq!(read(&chart.join("README.md")), "# my chart\n");
    assert!(!stale.exists(), "a generated template nothing renders any more is removed");
}

#[test]
fn adopted_projects_get_a_chart() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("orchard");
    crate::adopt::copy_dir(&crate::rbac_infer::orchard(), &dir);
    ks(&dir)
        .args(["adopt", "--domain", "example.net", "--image", "quay.io/orchard/controller:0.1.0", "--bin"])
        .arg("orchard-controller")
        .assert()
        .success();
    make_helm(&dir);
    ks(&dir).args(["helm", "lint"]).assert().success();
    let values = read(&dir.join("dist/chart/values.yaml"));
    assert!(
        values.contains(
            "    repository: quay.io/orchard/controller\n    # Defaults to the chart's appVersion.\n    tag: 0.1.0\n"
        ),
        "{values}"
    );
    let Some(bin) = renderer() else { return };
    let out = Command::new(&bin)
        .args(["--release-name", "orchard-controller", "--namespace", "orchard-controller-system"])
        .arg(dir.join("dist/chart"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let got = objects(kubesmith::yaml::from_multi_doc_str(&String::from_utf8(out.stdout).unwrap()).unwrap());
    let mut want = kustomize(&dir, "config/default");
    want.retain(|(k, _), _| k != "Namespace");
    assert_eq!(keys(&got), keys(&want));
    for (k, w) in &want {
        let mut g = got[k].clone();
        if k.0 == "CustomResourceDefinition" {
            g["metadata"].as_object_mut().unwrap().remove("annotations");
        }
        assert_eq!(&g, w, "{k:?}");
    }
}

/// Templates Go's parser rejects are rejected by `kubesmith helm lint` too, with the file and line.
#[test]
fn helm_lint_finds_what_go_rejects() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &[]);
    make_helm(&dir);
    let bin = renderer();
    if let Some(bin) = &bin {
        let ok = Command::new(bin).arg("--parse-only").arg(dir.join("dist/chart")).output().unwrap();
        assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    }
    let broken = [
        ("{{ if .Values.rbac.create }}\nx: 1\n", "unexpected EOF"),
        ("x: {{ .Values.rbac.create | toYml }}\n", "function \"toYml\" not defined"),
        ("x: {{ end }}\n", "unexpected {{end}}"),
        ("x: {{ $missing }}\n", "undefined variable \"$missing\""),
        ("x: {{ \"open }}\n", "unterminated quoted string"),
    ];
    let file = dir.join("dist/chart/templates/broken.yaml");
    for (text, why) in broken {
        std::fs::write(&file, text).unwrap();
        let out = ks(&dir).args(["helm", "lint"]).output().unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{text}: {said}");
        assert!(said.contains("dist/chart/templates/broken.yaml:") && said.contains(why), "{text}: {said}");
        if let Some(bin) = &bin {
            let out = Command::new(bin).arg("--parse-only").arg(dir.join("dist/chart")).output().unwrap();
            assert!(!out.status.success(), "Go accepts {text:?}");
        }
    }
    std::fs::write(&file, "x: {{ .Values.manager.replica }}\n").unwrap();
    let out = ks(&dir).args(["helm", "lint"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains(
        "dist/chart/templates/broken.yaml:1: reads .Values.manager.replica, which values.yaml does not define"
    ));
}

#[test]
fn alpha_generate_replays_make_helm() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    ks(&dir).args(["make", "manifests"]).assert().success();
    make_helm(&dir);
    let out = ks(&dir).args(["alpha", "generate"]).output().unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{said}");
    assert!(said.contains("replay: kubesmith make helm\n"), "{said}");
    assert!(!said.contains("warning"), "{said}");
    let replayed = parent.path().join("memcached-operator-generated");
    assert_eq!(crate::support::snapshot(&replayed.join("dist")), crate::support::snapshot(&dir.join("dist")));
    assert_eq!(read(&replayed.join("PROJECT")), read(&dir.join("PROJECT")));
}

/// The scaffold's Makefile builds, checks and lints the chart, and its README says how to install it.
#[test]
fn scaffold_makefile_and_readme_have_the_helm_targets() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    let readme = read(&dir.join("README.md"));
    assert!(readme.contains("## Deploy with Helm\n"), "{readme}");
    assert!(readme.contains(
        "helm install memcached-operator dist/chart --namespace memcached-operator-system --create-namespace"
    ));
    let makefile = read(&dir.join("Makefile"));
    for target in ["helm:", "verify-helm:", "helm-lint:", "helm-deploy:", "helm-uninstall:"] {
        assert!(makefile.lines().any(|l| l.starts_with(target)), "no {target} in the Makefile");
    }
    if Command::new("make").arg("--version").output().is_err() {
        eprintln!("skipped: make is not installed, so the Makefile's targets do not run");
        return;
    }
    let kubesmith = assert_cmd::cargo::cargo_bin("kubesmith");
    let make = |targets: &[&str]| {
        Command::new("make")
            .args(targets)
            .arg(format!("KUBESMITH={}", kubesmith.display()))
            .current_dir(&dir)
            .output()
            .unwrap()
    };
    let out = make(&["helm"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(dir.join("dist/chart/Chart.yaml").is_file());
    let out = make(&["verify-helm", "helm-lint"]);
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    // helm-deploy runs helm with the chart, the release and namespace of `make deploy`.
    let out = Command::new("make")
        .args(["-n", "helm-deploy", "HELM_ARGS=--set manager.replicas=2"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains("helm upgrade --install memcached-operator dist/chart --namespace memcached-operator-system --create-namespace --set manager.replicas=2"),
        "{shown}"
    );
}

/// The renderer treats `crds/` as Helm does: left out of `helm template` unless `--include-crds`, then printed
/// first and never rendered as a template. (kubesmith's charts keep CRDs in templates/, to switch them.)
#[test]
fn helm_render_treats_a_crds_folder_as_helm_does() {
    let Some(bin) = renderer() else { return };
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &[]);
    make_helm(&dir);
    let crds = dir.join("dist/chart/crds");
    std::fs::create_dir_all(&crds).unwrap();
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things.example.com\n  \
               annotations:\n    note: \"{{ not rendered }}\"\n";
    std::fs::write(crds.join("things.yaml"), crd).unwrap();
    let without = template(&bin, &dir, &[]).unwrap();
    assert!(!without.iter().any(|d| d["kind"] == "CustomResourceDefinition"));
    let with = template(&bin, &dir, &["--include-crds"]).unwrap();
    assert_eq!(with[0]["metadata"]["name"], "things.example.com");
    assert_eq!(with[0]["metadata"]["annotations"]["note"], "{{ not rendered }}");
    assert_eq!(with.len(), without.len() + 1);
}
