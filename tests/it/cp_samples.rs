//! kubesmith's verdict on objects against their CRD (`crd::instance`, what `make manifests` warns about in samples
//! and `make bundle` refuses in `alm-examples`) beside the real API server's: the same objects, valid and not, are
//! sent with `kubectl create --dry-run=server`, and the two must agree on each. An unknown field kubesmith and
//! kubectl (against the schema the server publishes) refuse, while the Kubernetes 1.20 server itself only prunes
//! it (strict field validation came in 1.25): both are checked.

use serde_json::{Value, json};

use crate::control_plane::{control_plane, said};
use crate::support::ks;

const TYPES: &str = r#"use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "samples.kubesmith.dev", version = "v1", kind = "Pool", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct PoolSpec {
    /// How many members.
    // +kubebuilder:validation:Minimum=1
    // +kubebuilder:validation:Maximum=9
    pub size: i32,
    pub mode: Mode,
    // +kubebuilder:validation:Pattern=`^[a-z]+$`
    // +kubebuilder:validation:MaxLength=8
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<k8s_openapi::apimachinery::pkg::util::intstr::IntOrString>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<Member>,
}

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub enum Mode {
    Fast,
    Safe,
}

#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Member {
    pub host: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<i64>,
}
"#;

fn pool(name: &str, spec: Value) -> Value {
    json!({"apiVersion": "samples.kubesmith.dev/v1", "kind": "Pool", "metadata": {"name": name, "namespace": "default"}, "spec": spec})
}

#[test]
fn cp_kubesmiths_verdict_on_samples_is_the_api_servers() {
    let Some(cp) = control_plane() else { return };
    let _took = crate::control_plane::Took::start();
    let dir = cp.scratch("sample-verdicts");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), TYPES).unwrap();
    let out = ks(&dir).args(["make", "manifests", "--crd-dir", "crds"]).output().unwrap();
    assert!(out.status.success(), "{}", said(&out));
    let file = dir.join("crds/samples.kubesmith.dev_pools.yaml");
    let crd: Value = kubesmith::yaml::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let mut sent = crd.clone();
    cp.for_this_server(&mut sent);
    cp.ok(&["create", "--validate=false", "-f", "-"], Some(&sent.to_string()));
    cp.wait_for_crds(&["pools.samples.kubesmith.dev".to_string()]);

    let cases = [
        ("least", json!({"size": 1, "mode": "Fast"})),
        (
            "full",
            json!({"size": 9, "mode": "Safe", "name": "abc", "port": "http", "labels": {"a": "b"},
                        "members": [{"host": "h", "weight": 2}]}),
        ),
        ("port-number", json!({"size": 2, "mode": "Fast", "port": 8080})),
        ("missing-size", json!({"mode": "Fast"})),
        ("size-string", json!({"size": "3", "mode": "Fast"})),
        ("size-too-big", json!({"size": 10, "mode": "Fast"})),
        ("size-zero", json!({"size": 0, "mode": "Fast"})),
        ("mode-unknown", json!({"size": 1, "mode": "Slow"})),
        ("name-pattern", json!({"size": 1, "mode": "Fast", "name": "ABC"})),
        ("name-too-long", json!({"size": 1, "mode": "Fast", "name": "abcdefghi"})),
        ("port-list", json!({"size": 1, "mode": "Fast", "port": [1]})),
        ("label-number", json!({"size": 1, "mode": "Fast", "labels": {"a": 1}})),
        ("member-no-host", json!({"size": 1, "mode": "Fast", "members": [{"weight": 1}]})),
        ("member-weight-float", json!({"size": 1, "mode": "Fast", "members": [{"host": "h", "weight": 1.5}]})),
    ];
    let mut disagree = Vec::new();
    for (name, spec) in cases {
        let object = pool(name, spec);
        let ours = kubesmith::crd::instance::problems(std::slice::from_ref(&crd), &object).expect("the CRD serves it");
        let server = cp.kubectl_with(&["create", "--dry-run=server", "-f", "-"], &object.to_string());
        if ours.is_empty() != server.status.success() {
            disagree.push(format!(
                "{name}: kubesmith says {ours:?}; the API server {}",
                if server.status.success() {
                    "accepts it".to_string()
                } else {
                    format!("refuses it: {}", said(&server))
                }
            ));
        }
    }
    assert!(disagree.is_empty(), "{}", disagree.join("\n"));

    // An unknown field: kubesmith refuses it, and so does kubectl, checking the object against the schema the server
    // publishes; the 1.20 server itself only prunes it (strict field validation came in 1.25).
    let object = pool("unknown-field", json!({"size": 1, "mode": "Fast", "notAField": 3}));
    let ours = kubesmith::crd::instance::problems(std::slice::from_ref(&crd), &object).unwrap();
    assert!(ours.iter().any(|p| p.contains("notAField")), "{ours:?}");
    let refused = cp.kubectl_with(&["create", "--dry-run=server", "-f", "-"], &object.to_string());
    assert!(!refused.status.success() && said(&refused).contains("notAField"), "{}", said(&refused));
    let args = ["create", "--dry-run=server", "--validate=false", "-o", "json", "-f", "-"];
    let stored: Value = serde_json::from_str(&cp.ok(&args, Some(&object.to_string()))).unwrap();
    assert!(stored["spec"].get("notAField").is_none(), "pruned: {stored}");
}
