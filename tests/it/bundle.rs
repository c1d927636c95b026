//! `make bundle`, `bundle validate`, `make catalog` and `catalog validate` on the standard project.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::support::{ks, read, repo_root, snapshot, standard_project};

const IMAGE: &str = "example.com/memcached-operator:v0.1.0";
const CSV: &str = "bundle/manifests/memcached-operator.clusterserviceversion.yaml";
const BASE: &str = "config/manifests/bases/memcached-operator.clusterserviceversion.yaml";

fn yaml(path: &Path) -> Value {
    kubesmith::yaml::from_str(&read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// Every key path of a value (lists collapse to `[]`), e.g. `spec.install.spec.deployments[].name`.
fn key_paths(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                let p = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                out.insert(p.clone());
                key_paths(child, &p, out);
            }
        }
        Value::Array(a) => {
            for child in a {
                key_paths(child, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

/// Adds CSV markers to the Memcached v1alpha1 types and hand edits to the base CSV.
fn customise(dir: &Path) {
    let types = dir.join("src/api/v1alpha1/memcached.rs");
    let text = read(&types)
        .replace(
            "/// MemcachedSpec defines the desired state of Memcached.\n",
            "/// MemcachedSpec defines the desired state of Memcached.\n\
             // +operator-sdk:csv:customresourcedefinitions:displayName=\"Memcached App\",resources={{Deployment,v1,memcached-deployment}}\n",
        )
        .replace(
            "    /// Foo is an example field",
            "    // +operator-sdk:csv:customresourcedefinitions:type=spec,xDescriptors={\"urn:alm:descriptor:com.tectonic.ui:text\"}\n    /// Foo is an example field",
        )
        .replace(
            "    /// Conditions represent",
            "    // +operator-sdk:csv:customresourcedefinitions:type=status,displayName=\"Conditions\"\n    /// Conditions represent",
        );
    assert!(text.contains("type=status"), "the Memcached type changed shape");
    std::fs::write(&types, text).unwrap();
    let base = dir.join(BASE);
    let mut csv = yaml(&base);
    csv["spec"]["description"] = "Hand-written description that must survive.".into();
    csv["spec"]["keywords"] = serde_json::json!(["cache", "memcached"]);
    csv["spec"]["minKubeVersion"] = "1.33.0".into();
    csv["spec"]["relatedImages"] = serde_json::json!([{"name": "memcached", "image": "docker.io/memcached:1.6"}]);
    csv["metadata"]["annotations"]["categories"] = "Database".into();
    csv["spec"]["customresourcedefinitions"]["owned"] = serde_json::json!([{
        "name": "clusters.cache.example.com", "version": "v1", "kind": "Cluster", "displayName": "Memcached Cluster"
    }]);
    std::fs::write(&base, kubesmith::yaml::to_string(&csv)).unwrap();
}

#[test]
fn make_bundle_builds_a_valid_deterministic_bundle_keeping_base_edits() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = standard_project(tmp.path());
    customise(&dir);
    let out = ks(&dir).args(["make", "bundle", "--version", "0.1.0", "--image", IMAGE]).output().unwrap();
    assert!(out.status.success(), "{}", stdout(&out));

    let csv = yaml(&dir.join(CSV));
    // OLM's own CSV schema accepts it, and so does `bundle validate`.
    let schema = kubesmith::olm::schema::validate(kubesmith::olm::schema::csv_schema(), &csv);
    assert_eq!(schema, Default::default());
    let v = ks(&dir).args(["bundle", "validate", "bundle", "--strict"]).output().unwrap();
    assert!(v.status.success(), "{}", stdout(&v));
    assert!(stdout(&v).contains("All validation tests have completed successfully"));

    // The golden operator-sdk bundle's field inventory (minus what only its project has).
    let golden =
        yaml(&repo_root().join("tests/fixtures/olm/operator-sdk-memcached-operator.clusterserviceversion.yaml"));
    let (mut want, mut have) = (BTreeSet::new(), BTreeSet::new());
    key_paths(&golden, "", &mut want);
    key_paths(&csv, "", &mut have);
    let missing: Vec<&String> = want.difference(&have).filter(|p| !p.contains("deployments[].spec.")).collect();
    assert!(missing.is_empty(), "fields of the operator-sdk CSV missing: {missing:?}");

    let s = &csv["spec"];
    assert_eq!(csv["metadata"]["name"], "memcached-operator.v0.1.0");
    assert_eq!(s["version"], "0.1.0");
    assert_eq!(csv["metadata"]["annotations"]["createdAt"], "2026-01-01T00:00:00Z");
    assert_eq!(s["install"]["strategy"], "deployment");
    let dep = &s["install"]["spec"]["deployments"][0];
    assert_eq!(dep["name"], "memcached-operator-controller-manager");
    assert_eq!(dep["spec"]["template"]["spec"]["containers"][0]["image"], IMAGE);
    assert!(s["install"]["spec"]["clusterPermissions"][0]["rules"].as_array().is_some_and(|r| !r.is_empty()));
    assert!(s["install"]["spec"]["permissions"][0]["rules"].to_string().contains("leases"));
    // Base edits survive; generated fields fill in around them.
    assert_eq!(s["description"], "Hand-written description that must survive.");
    assert_eq!(s["keywords"], serde_json::json!(["cache", "memcached"]));
    assert_eq!(s["minKubeVersion"], "1.33.0");
    assert_eq!(s["relatedImages"][0]["image"], "docker.io/memcached:1.6");
    assert_eq!(csv["metadata"]["annotations"]["categories"], "Database");
    let owned = s["customresourcedefinitions"]["owned"].as_array().unwrap();
    let find = |name: &str, version: &str| {
        owned
            .iter()
            .find(|o| o["name"] == name && o["version"] == version)
            .unwrap_or_else(|| panic!("{name} {version}"))
    };
    assert_eq!(owned.len(), 4, "every served version is owned");
    assert_eq!(find("clusters.cache.example.com", "v1")["displayName"], "Memcached Cluster");
    assert_eq!(find("clusters.cache.example.com", "v1")["description"], "Cluster is the Schema for the clusters API.");
    let m = find("memcacheds.cache.example.com", "v1alpha1");
    assert_eq!(m["displayName"], "Memcached App");
    assert_eq!(
        m["resources"],
        serde_json::json!([{"kind": "Deployment", "name": "memcached-deployment", "version": "v1"}])
    );
    assert_eq!(m["specDescriptors"][0]["path"], "foo");
    assert_eq!(m["specDescriptors"][0]["displayName"], "Foo");
    assert_eq!(m["specDescriptors"][0]["x-descriptors"][0], "urn:alm:descriptor:com.tectonic.ui:text");
    assert!(m["specDescriptors"][0]["description"].as_str().unwrap().starts_with("Foo is an example field"));
    assert_eq!(m["statusDescriptors"][0]["path"], "conditions");
    assert!(find("memcacheds.cache.example.com", "v1beta1").get("specDescriptors").is_none());
    let examples: Value =
        serde_json::from_str(csv["metadata"]["annotations"]["alm-examples"].as_str().unwrap()).unwrap();
    assert_eq!(examples.as_array().unwrap().len(), 4);
    let hooks: Vec<&str> =
        s["webhookdefinitions"].as_array().unwrap().iter().map(|w| w["type"].as_str().unwrap()).collect();
    assert_eq!(hooks, ["ConversionWebhook", "MutatingAdmissionWebhook", "ValidatingAdmissionWebhook"]);
    assert_eq!(s["webhookdefinitions"][0]["conversionCRDs"], serde_json::json!(["memcacheds.cache.example.com"]));
    assert_eq!(s["webhookdefinitions"][1]["targetPort"], 9443);
    assert_eq!(s["webhookdefinitions"][1]["deploymentName"], "memcached-operator-controller-manager");

    // The other manifests: CRDs, services, unbound roles; no namespace; no ServiceAccount, bound roles, bindings.
    let files: BTreeSet<String> = std::fs::read_dir(dir.join("bundle/manifests"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for f in [
        "cache.example.com_memcacheds.yaml",
        "cache.example.com_clusters.yaml",
        "memcached-operator-webhook-service_v1_service.yaml",
        "memcached-operator-controller-manager-metrics-service_v1_service.yaml",
        "memcached-operator-metrics-reader_rbac.authorization.k8s.io_v1_clusterrole.yaml",
        "memcached-operator-memcached-editor-role_rbac.authorization.k8s.io_v1_clusterrole.yaml",
    ] {
        assert!(files.contains(f), "{f} missing from {files:?}");
    }
    assert!(
        !files.iter().any(|f| f.contains("serviceaccount") || f.contains("binding") || f.contains("manager-role")),
        "{files:?}"
    );
    for f in &files {
        assert!(
            yaml(&dir.join("bundle/manifests").join(f))["metadata"]
                .get("namespace")
                .is_none_or(|_| f.contains("clusterservice")),
            "{f}"
        );
    }

    // annotations.yaml and the Dockerfile carry the same keys.
    let ann = yaml(&dir.join("bundle/metadata/annotations.yaml"));
    let docker = read(&dir.join("bundle.Dockerfile"));
    for (k, v) in ann["annotations"].as_object().unwrap() {
        assert!(docker.contains(&format!("LABEL {k}={}", v.as_str().unwrap())), "{k}");
    }
    assert_eq!(ann["annotations"]["operators.operatorframework.io.bundle.channels.v1"], "alpha");
    assert!(dir.join("bundle/tests/scorecard/config.yaml").is_file());

    // A second run changes no byte, even without SOURCE_DATE_EPOCH; --check agrees.
    let before = snapshot(&dir);
    let again = ks(&dir)
        .env_remove("SOURCE_DATE_EPOCH")
        .args(["make", "bundle", "--version", "0.1.0", "--image", IMAGE])
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", stdout(&again));
    assert!(stdout(&again).contains("everything is up to date"), "{}", stdout(&again));
    assert_eq!(before, snapshot(&dir));
    ks(&dir).args(["make", "bundle", "--version", "0.1.0", "--image", IMAGE, "--check"]).assert().success();

    // A file that no longer belongs is reported by --check and removed.
    std::fs::write(dir.join("bundle/manifests/old_v1_configmap.yaml"), "apiVersion: v1\nkind: ConfigMap\n").unwrap();
    let check = ks(&dir).args(["make", "bundle", "--version", "0.1.0", "--image", IMAGE, "--check"]).output().unwrap();
    assert_eq!(check.status.code(), Some(1));
    assert!(stdout(&check).contains("would be removed: bundle/manifests/old_v1_configmap.yaml"), "{}", stdout(&check));
    ks(&dir).args(["make", "bundle", "--version", "0.1.0", "--image", IMAGE]).assert().success();
    assert!(!dir.join("bundle/manifests/old_v1_configmap.yaml").exists());

    // A new version moves createdAt (from the clock) and the name.
    let v2 = ks(&dir)
        .env_remove("SOURCE_DATE_EPOCH")
        .args(["make", "bundle", "--version", "0.2.0", "--channels", "alpha,stable", "--default-channel", "stable"])
        .args([
            "--replaces",
            "memcached-operator.v0.1.0",
            "--skips",
            "memcached-operator.v0.0.9",
            "--skip-range",
            ">=0.1.0 <0.2.0",
        ])
        .output()
        .unwrap();
    assert!(v2.status.success(), "{}", stdout(&v2));
    let csv2 = yaml(&dir.join(CSV));
    assert_ne!(csv2["metadata"]["annotations"]["createdAt"], "2026-01-01T00:00:00Z");
    assert_eq!(csv2["spec"]["replaces"], "memcached-operator.v0.1.0");
    assert_eq!(csv2["spec"]["skips"], serde_json::json!(["memcached-operator.v0.0.9"]));
    assert_eq!(csv2["metadata"]["annotations"]["olm.skipRange"], ">=0.1.0 <0.2.0");
    let ann = read(&dir.join("bundle/metadata/annotations.yaml"));
    assert!(ann.contains("operators.operatorframework.io.bundle.channel.default.v1: stable"), "{ann}");
}

#[test]
fn make_bundle_refuses_bad_input_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = standard_project(tmp.path());
    let before = snapshot(&dir);
    let cases: &[(&[&str], &str)] = &[
        (&["--version", "v0.1.0"], "is not a valid semantic version"),
        (&["--version", "0.1"], "is not a valid semantic version"),
        (&["--version", "01.0.0"], "leading zeroes"),
        (&["--version", "0.1.0", "--channels", "alpha,,stable"], "has an empty channel name"),
        (
            &["--version", "0.1.0", "--channels", "alpha", "--default-channel", "stable"],
            "--default-channel stable is not among the channels",
        ),
        (&["--version", "0.1.0", "--skip-range", ">=banana"], "--skip-range"),
        (&["--version", "0.1.0", "--package", "Bad_Name"], "DNS-1123 label"),
    ];
    for (args, want) in cases {
        let out = ks(&dir).args(["make", "bundle"]).args(*args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stdout(&out));
        assert!(stdout(&out).contains(want), "{args:?}: {}", stdout(&out));
    }
    std::fs::remove_file(dir.join(BASE)).unwrap();
    let out = ks(&dir).args(["make", "bundle", "--version", "0.1.0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains(
            "no base ClusterServiceVersion at config/manifests/bases/memcached-operator.clusterserviceversion.yaml"
        ),
        "{}",
        stdout(&out)
    );
    let mut after = snapshot(&dir);
    after.insert(BASE.into(), before[Path::new(BASE)].clone());
    assert_eq!(before, after, "a refused make bundle wrote something");

    // Without kubectl the message says so.
    std::fs::write(dir.join(BASE), &before[Path::new(BASE)]).unwrap();
    let out = ks(&dir)
        .env("KUBECTL", "kubectl-that-does-not-exist")
        .args(["make", "bundle", "--version", "0.1.0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("kubectl-that-does-not-exist not found"), "{}", stdout(&out));
}

#[test]
fn bundle_validate_cli_exit_codes_and_json() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = standard_project(tmp.path());
    ks(&dir).args(["make", "bundle", "--version", "0.1.0", "--image", IMAGE]).assert().success();
    // The bundle carries minKubeVersion (from k8sVersion) and the base CSV's icon: nothing to warn about.
    let out = ks(&dir).args(["bundle", "validate", "bundle"]).output().unwrap();
    assert!(out.status.success());
    assert!(!stdout(&out).contains("Warning"), "{}", stdout(&out));
    ks(&dir).args(["bundle", "validate", "bundle", "--strict"]).assert().success();
    // Without minKubeVersion: a warning, exit 0; --strict makes it fail.
    let csv_path = dir.join("bundle/manifests/memcached-operator.clusterserviceversion.yaml");
    let csv = std::fs::read_to_string(&csv_path).unwrap();
    std::fs::write(&csv_path, csv.replace("  minKubeVersion: 1.37.0\n", "")).unwrap();
    let out = ks(&dir).args(["bundle", "validate", "bundle"]).output().unwrap();
    assert!(out.status.success());
    assert!(
        stdout(&out).contains("Warning: Value : (memcached-operator.v0.1.0) csv.Spec.minKubeVersion is not informed"),
        "{}",
        stdout(&out)
    );
    ks(&dir).args(["bundle", "validate", "bundle", "--strict"]).assert().code(1);
    // Optional validators: an emptied icon and the alpha channel are flagged; messages carry their level in JSON,
    // as operator-sdk's json-alpha1 output does.
    std::fs::write(&csv_path, csv.replace("mediatype: image/svg+xml", "mediatype: \"\"")).unwrap();
    let out = ks(&dir)
        .args(["bundle", "validate", "bundle", "--select-optional", "suite=operatorframework", "-o", "json-alpha1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["passed"], false);
    let messages: Vec<(&str, &str)> = report["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["type"].as_str().unwrap(), o["message"].as_str().unwrap()))
        .collect();
    assert!(
        messages.contains(&(
            "error",
            "Error: Value : (memcached-operator.v0.1.0) csv.Spec.Icon elements should contain both data and mediatype"
        )),
        "{messages:?}"
    );
    assert!(
        messages.contains(&(
            "warning",
            "Warning: Value memcached-operator.v0.1.0: channel(s) [\"alpha\"] are not following the recommended \
             naming convention: https://olm.operatorframework.io/docs/best-practices/channel-naming"
        )),
        "{messages:?}"
    );
    // The suite is operatorhubv2 & co., not the deprecated operatorhub.
    assert!(!messages.iter().any(|(_, m)| m.contains("validator is deprecated")), "{messages:?}");
    ks(&dir).args(["bundle", "validate", "bundle", "--select-optional", "name=nope"]).assert().code(2);
    ks(&dir).args(["bundle", "validate", "bundle", "--optional-values", "k8s_version=1.25"]).assert().code(2);
    // An owned CRD missing from the bundle is an error.
    std::fs::remove_file(dir.join("bundle/manifests/cache.example.com_memcacheds.yaml")).unwrap();
    let out = ks(&dir).args(["bundle", "validate", "bundle"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains(
            "Error: Value cache.example.com/v1alpha1, Kind=Memcached: owned CRD \"cache.example.com/v1alpha1, \
             Kind=Memcached\" not found in bundle"
        ),
        "{}",
        stdout(&out)
    );
}

/// A small bundle that still ships a v1beta1 CRD (an API Kubernetes 1.22 and OpenShift 4.9 removed).
fn legacy_bundle(dir: &Path, properties: &str) {
    let csv = format!(
        r#"apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: legacy-operator.v0.1.0
  annotations:
    alm-examples: '[{{"apiVersion": "example.com/v1", "kind": "Legacy", "metadata": {{"name": "x"}}}}]'
    categories: Toys, Database
    olm.properties: '{properties}'
spec:
  displayName: Legacy
  version: 0.1.0
  minKubeVersion: 1.20.0
  installModes:
  - {{type: AllNamespaces, supported: true}}
  customresourcedefinitions:
    owned:
    - {{name: legacies.example.com, version: v1, kind: Legacy}}
  install:
    strategy: deployment
    spec:
      deployments:
      - name: legacy
        spec:
          selector: {{matchLabels: {{app: legacy}}}}
          template:
            metadata: {{labels: {{app: legacy}}}}
            spec: {{containers: [{{name: manager, image: example.com/legacy:v0.1.0}}]}}
"#
    );
    let crd = "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata:\n  \
               name: legacies.example.com\nspec:\n  group: example.com\n  names: {kind: Legacy, plural: legacies}\n  \
               scope: Namespaced\n  version: v1\n";
    let annotations = "annotations:\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n  \
                       operators.operatorframework.io.bundle.manifests.v1: manifests/\n  \
                       operators.operatorframework.io.bundle.metadata.v1: metadata/\n  \
                       operators.operatorframework.io.bundle.package.v1: legacy-operator\n  \
                       operators.operatorframework.io.bundle.channels.v1: stable\n";
    std::fs::create_dir_all(dir.join("bundle/manifests")).unwrap();
    std::fs::create_dir_all(dir.join("bundle/metadata")).unwrap();
    std::fs::write(dir.join("bundle/manifests/legacy.clusterserviceversion.yaml"), csv).unwrap();
    std::fs::write(dir.join("bundle/manifests/example.com_legacies.yaml"), crd).unwrap();
    std::fs::write(dir.join("bundle/metadata/annotations.yaml"), annotations).unwrap();
    std::fs::write(
        dir.join("bundle.Dockerfile"),
        "FROM scratch\nLABEL operators.operatorframework.io.bundle.package.v1=legacy-operator\n\
         LABEL com.redhat.openshift.versions=\"v4.6-v4.8\"\nCOPY bundle/manifests /manifests/\n",
    )
    .unwrap();
}

/// The findings of one validation run, one per line, without the success line.
fn lines(out: &std::process::Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.starts_with("All validation"))
        .map(String::from)
        .collect()
}

#[test]
fn bundle_validate_community_and_custom_categories() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    legacy_bundle(dir, r#"[{"type": "olm.maxOpenShiftVersion", "value": "4.8"}]"#);
    let removed = "using APIs which were deprecated and removed in v1.22. More info: \
                   https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-22";
    let crd = "CRD: ([\"legacies.example.com\"])";
    let v = "Value : (legacy-operator.v0.1.0)";

    // community, with the bundle image's Dockerfile as operator-sdk takes it: the label caps it below 4.9.
    let out = ks(dir)
        .args(["bundle", "validate", "bundle", "--select-optional", "name=community"])
        .args(["--optional-values=index-path=bundle.Dockerfile"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(!stdout(&out).contains(&format!("Error: {v}")), "{}", stdout(&out));

    // Without index-path, a warning asks for it.
    let out = ks(dir).args(["bundle", "validate", "bundle", "--select-optional", "name=community"]).output().unwrap();
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(
        lines(&out).contains(&format!(
            "Warning: {v} please, inform the path of its index image file via the the optional key values and the key \
             index-path to allow this validator check the labels configuration or migrate the API(s) for {crd}. (e.g. \
             index-path=./mypath/bundle.Dockerfile). This bundle is {removed} "
        )),
        "{}",
        stdout(&out)
    );

    // A path that is not there.
    let out = ks(dir)
        .args(["bundle", "validate", "bundle", "--select-optional", "name=community"])
        .args(["--optional-values", "index-path=./nope.Dockerfile"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        lines(&out).contains(&format!(
            "Error: {v} the index image in the path (./nope.Dockerfile) was not found. Please, inform the path of the \
             bundle operator index image via the the optional key values and the key index-path. (e.g. \
             index-path=./mypath/bundle.Dockerfile). Error : stat ./nope.Dockerfile: no such file or directory"
        )),
        "{}",
        stdout(&out)
    );

    // A label that lets the bundle onto 4.9.
    std::fs::write(dir.join("bundle.Dockerfile"), "LABEL com.redhat.openshift.versions=\"v4.6-v4.10\"\n").unwrap();
    let out = ks(dir)
        .args(["bundle", "validate", "bundle", "--select-optional", "name=community"])
        .args(["--optional-values", "index-path=bundle.Dockerfile"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        lines(&out).contains(&format!(
            "Error: {v} this bundle is {removed}. Upgrade the APIs from for {crd} or provide compatible distribution \
             version(s) by using the com.redhat.openshift.versions annotation in `metadata/annotations.yaml` to ensure \
             that the index image will be generated with its label. (e.g. LABEL com.redhat.openshift.versions='4.6-4.8')"
        )),
        "{}",
        stdout(&out)
    );

    // Categories: the standard list, then OPERATOR_BUNDLE_CATEGORIES' own.
    let out = ks(dir).args(["bundle", "validate", "bundle", "--select-optional", "name=categories"]).output().unwrap();
    assert_eq!(
        lines(&out).into_iter().filter(|l| l.contains("categories")).collect::<Vec<_>>(),
        [format!(
            "Error: {v} csv.Metadata.Annotations[\"categories\"] value \"Toys\" is not in the set of standard categories"
        )]
    );
    std::fs::write(dir.join("categories.json"), r#"{"categories": ["Toys", "Games"]}"#).unwrap();
    let out = ks(dir)
        .env("OPERATOR_BUNDLE_CATEGORIES", "./categories.json")
        .args(["bundle", "validate", "bundle", "--select-optional", "name=categories"])
        .output()
        .unwrap();
    assert_eq!(
        lines(&out).into_iter().filter(|l| l.contains("categories")).collect::<Vec<_>>(),
        [format!(
            "Error: {v} csv.Metadata.Annotations[\"categories\"] value \" Database\" is not in the set of custom \
             categories"
        )]
    );
    std::fs::write(dir.join("categories.json"), "{\"categories\": [\"Toys\",]}").unwrap();
    let out = ks(dir)
        .env("OPERATOR_BUNDLE_CATEGORIES", "categories.json")
        .args(["bundle", "validate", "bundle", "--select-optional", "name=categories"])
        .output()
        .unwrap();
    assert!(
        lines(&out).contains(&format!(
            "Error: {v} could not extract custom categories from categories map[string]struct {{}}(nil): unmarshaling \
             category file: invalid character ']' looking for beginning of value"
        )),
        "{}",
        stdout(&out)
    );

    // alpha-deprecated-apis: an invalid k8s-version is reported, and the check goes on from minKubeVersion 1.20.
    let out = ks(dir)
        .args(["bundle", "validate", "bundle", "--select-optional", "name=alpha-deprecated-apis"])
        .args(["--optional-values", "k8s-version=banana"])
        .output()
        .unwrap();
    assert_eq!(
        lines(&out).into_iter().filter(|l| l.contains("k8s key") || l.contains("Migrate")).collect::<Vec<_>>(),
        [
            format!("Warning: Value legacy-operator.v0.1.0: this bundle is {removed}. Migrate the API(s) for {crd}"),
            "Error: Value legacy-operator.v0.1.0: invalid value informed via the k8s key option : banana".to_string(),
        ]
    );
}

#[test]
fn two_bundles_make_a_catalog_whose_graph_validates() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = standard_project(tmp.path());
    ks(&dir)
        .args(["make", "bundle", "--version", "0.1.0", "--channels", "stable", "--output-dir", "bundles/0.1.0"])
        .assert()
        .success();
    ks(&dir)
        .args(["make", "bundle", "--version", "0.2.0", "--channels", "stable", "--output-dir", "bundles/0.2.0"])
        .args(["--replaces", "memcached-operator.v0.1.0", "--skip-range", ">=0.1.0 <0.2.0"])
        .assert()
        .success();
    let out = ks(&dir)
        .args(["make", "catalog", "--bundle", "bundles/0.1.0", "--bundle", "bundles/0.2.0"])
        .args(["--bundle-image", "example.com/memcached-operator-bundle:v{version}"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stdout(&out));
    let docs =
        kubesmith::yaml::from_multi_doc_str(&read(&dir.join("catalog/memcached-operator/catalog.yaml"))).unwrap();
    let schemas: Vec<&str> = docs.iter().map(|d| d["schema"].as_str().unwrap()).collect();
    assert_eq!(schemas, ["olm.package", "olm.channel", "olm.bundle", "olm.bundle"]);
    assert_eq!(docs[0]["defaultChannel"], "stable");
    assert_eq!(
        docs[1]["entries"][1],
        serde_json::json!({"name": "memcached-operator.v0.2.0",
        "replaces": "memcached-operator.v0.1.0", "skipRange": ">=0.1.0 <0.2.0"})
    );
    assert_eq!(docs[3]["image"], "example.com/memcached-operator-bundle:v0.2.0");
    assert!(docs[3]["properties"].to_string().contains("\"olm.gvk\""));
    assert!(read(&dir.join("catalog.Dockerfile")).contains("ADD catalog /configs"));

    let out = ks(&dir).args(["catalog", "validate", "catalog"]).output().unwrap();
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(stdout(&out).contains("channel stable (head: memcached-operator.v0.2.0)"), "{}", stdout(&out));
    let out = ks(&dir).args(["catalog", "validate", "catalog", "--graph", "mermaid"]).output().unwrap();
    assert!(stdout(&out).contains("-- replace -->"), "{}", stdout(&out));

    // Two heads: opm's message, from make catalog (nothing written) and from catalog validate.
    ks(&dir)
        .args(["make", "bundle", "--version", "0.3.0", "--channels", "stable", "--output-dir", "bundles/0.3.0"])
        .assert()
        .success();
    let before = snapshot(&dir);
    let out = ks(&dir)
        .args([
            "make",
            "catalog",
            "--bundle",
            "bundles/0.1.0",
            "--bundle",
            "bundles/0.2.0",
            "--bundle",
            "bundles/0.3.0",
        ])
        .args(["--bundle-image", "example.com/memcached-operator-bundle:v{version}"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out)
            .contains("multiple channel heads found in graph: memcached-operator.v0.2.0, memcached-operator.v0.3.0"),
        "{}",
        stdout(&out)
    );
    assert_eq!(before, snapshot(&dir));
    let path = dir.join("catalog/memcached-operator/catalog.yaml");
    std::fs::write(
        &path,
        read(&path).replace(
            "- name: memcached-operator.v0.1.0\n",
            "- name: memcached-operator.v0.1.0\n  replaces: memcached-operator.v0.2.0\n",
        ),
    )
    .unwrap();
    let out = ks(&dir).args(["catalog", "validate", "catalog"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("no channel head found in graph"), "{}", stdout(&out));
}
