//! The `alpha-deprecated-apis` optional validator (operator-framework/api `internal/removed_apis.go`), also run by
//! `operatorhub` and `operatorhubv2`: the APIs Kubernetes 1.22, 1.25 and 1.26 removed, found in the bundle's
//! objects, the CSV's CRD `resources` and (1.25, warnings only) its RBAC rules.

use std::collections::BTreeMap;

use serde_json::Value;

use super::go_fmt::quote_list_ascii;
use super::{Level, Loaded, Out, s};
use crate::olm::semver::{Version, parse_tolerant};

/// The Kubernetes versions whose removals the validator knows.
const CHECKED: [(u64, u64); 3] = [(1, 22), (1, 25), (1, 26)];

/// Kind → names, in the order found; printed with sorted kinds.
type Found = BTreeMap<String, Vec<String>>;

/// `generateMessageWithDeprecatedAPIs`: `Kind: (["a" "b"])`; with more than one kind every entry ends in a comma
/// (upstream's counter never moves).
pub(super) fn message(found: &Found) -> String {
    let n = found.len();
    found
        .iter()
        .map(|(k, names)| {
            let entry = format!("{k}: ({})", quote_list_ascii(names));
            if n == 1 { entry } else { format!("{entry},") }
        })
        .collect()
}

/// `getRemovedAPIsOn1_22From`: v1beta1 CRDs as `CRD`, then the objects of the APIs 1.22 removed.
pub(super) fn removed_in_1_22(l: &Loaded) -> Found {
    let mut found = Found::new();
    let crds: Vec<String> = l
        .crds
        .iter()
        .filter(|c| s(c, "/apiVersion") == "apiextensions.k8s.io/v1beta1")
        .map(|c| s(c, "/metadata/name").to_string())
        .collect();
    if !crds.is_empty() {
        found.insert("CRD".into(), crds);
    }
    for o in &l.objects {
        let kinds: &[&str] = match s(o, "/apiVersion") {
            "scheduling.k8s.io/v1beta1" => &["PriorityClass"],
            "rbac.authorization.k8s.io/v1beta1" => &["Role", "ClusterRoleBinding", "RoleBinding", "ClusterRole"],
            "apiregistration.k8s.io/v1beta1" => &["APIService"],
            "authentication.k8s.io/v1beta1" => &["TokenReview"],
            "authorization.k8s.io/v1beta1" => {
                &["LocalSubjectAccessReview", "SelfSubjectAccessReview", "SubjectAccessReview"]
            }
            "admissionregistration.k8s.io/v1beta1" => {
                &["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]
            }
            "coordination.k8s.io/v1beta1" => &["Lease"],
            "extensions/v1beta1" => &["Ingress"],
            "networking.k8s.io/v1beta1" => &["Ingress", "IngressClass"],
            "storage.k8s.io/v1beta1" => &["CSIDriver", "CSINode", "StorageClass", "VolumeAttachment"],
            "certificates.k8s.io/v1beta1" => &["CertificateSigningRequest"],
            _ => &[],
        };
        let kind = s(o, "/kind");
        if kinds.contains(&kind) {
            found.entry(kind.to_string()).or_default().push(s(o, "/metadata/name").to_string());
        }
    }
    found
}

/// `(group, version)` of an apiVersion as `schema.ParseGroupVersion` reads it (`None` for more than one `/`).
fn group_version(api: &str) -> Option<(&str, &str)> {
    match api.split('/').count() {
        1 => Some(("", api)),
        2 => api.split_once('/'),
        _ => None,
    }
}

const REMOVED_1_25: [(&str, &str, &str, &str); 7] = [
    ("batch", "v1beta1", "CronJob", "cronjobs"),
    ("discovery.k8s.io", "v1beta1", "EndpointSlice", "endpointslices"),
    ("events.k8s.io", "v1beta1", "Event", "events"),
    ("autoscaling", "v2beta1", "HorizontalPodAutoscaler", "horizontalpodautoscalers"),
    ("policy", "v1beta1", "PodDisruptionBudget", "poddisruptionbudgets"),
    ("policy", "v1beta1", "PodSecurityPolicy", "podsecuritypolicies"),
    ("node.k8s.io", "v1beta1", "RuntimeClass", "runtimeclasses"),
];

/// `getRemovedAPIsOn1_25From`: objects (and the CSV's CRD `resources`, whose `version` is read as an apiVersion)
/// of the APIs 1.25 removed; RBAC rules of the CSV on their resources are the second map (warnings only).
fn removed_in_1_25(l: &Loaded) -> (Found, Found) {
    let (mut found, mut rules) = (Found::new(), Found::new());
    let mut add = |api: &str, kind: &str, name: String| {
        if let Some((g, v)) = group_version(api)
            && REMOVED_1_25.iter().any(|(rg, rv, rk, _)| (*rg, *rv, *rk) == (g, v, kind))
        {
            found.entry(kind.to_string()).or_default().push(name);
        }
    };
    for o in &l.objects {
        let (api, kind) = (s(o, "/apiVersion"), s(o, "/kind"));
        if api != "operators.coreos.com/v1alpha1" {
            add(api, kind, s(o, "/metadata/name").to_string());
            continue;
        }
        if kind != "ClusterServiceVersion" {
            continue;
        }
        let mut in_crds = Vec::new();
        for field in ["Owned", "Required"] {
            let descs = o["spec"]["customresourcedefinitions"][field.to_ascii_lowercase()].as_array();
            for (i, d) in descs.into_iter().flatten().enumerate() {
                for (j, r) in d["resources"].as_array().into_iter().flatten().enumerate() {
                    let kind = s(r, "/kind");
                    in_crds.push(format!("{}s", kind.to_lowercase()));
                    let name =
                        format!("ClusterServiceVersion.Spec.CustomResourceDefinitions.{field}[{i}].Resource[{j}]");
                    add(s(r, "/version"), kind, name);
                }
            }
        }
        for (field, key) in [("ClusterPermissions", "clusterPermissions"), ("Permissions", "permissions")] {
            for (i, p) in o["spec"]["install"]["spec"][key].as_array().into_iter().flatten().enumerate() {
                for (j, rule) in p["rules"].as_array().into_iter().flatten().enumerate() {
                    let strs = |k: &str| -> Vec<String> {
                        rule[k].as_array().into_iter().flatten().filter_map(Value::as_str).map(String::from).collect()
                    };
                    for group in strs("apiGroups") {
                        for res in strs("resources") {
                            if in_crds.contains(&res) {
                                continue;
                            }
                            if REMOVED_1_25.iter().any(|(g, _, _, r)| (*g, *r) == (group.as_str(), res.as_str())) {
                                rules.entry(res).or_default().push(format!(
                                    "ClusterServiceVersion.Spec.InstallStrategy.StrategySpec.{field}[{i}].Rules[{j}]"
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
    (found, rules)
}

/// `getRemovedAPIsOn1_26From`.
fn removed_in_1_26(l: &Loaded) -> Found {
    let mut found = Found::new();
    for o in l.objects.iter().filter(|o| s(o, "/apiVersion") == "autoscaling/v2beta2") {
        if s(o, "/kind") == "HorizontalPodAutoscaler" {
            found.entry("HorizontalPodAutoscaler".into()).or_default().push(s(o, "/metadata/name").to_string());
        }
    }
    found
}

/// `DeprecateMessage`.
pub(super) fn removed_message(major: u64, minor: u64, list: &str) -> String {
    format!(
        "this bundle is using APIs which were deprecated and removed in v{major}.{minor}. More info: \
         https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v{major}-{minor}. Migrate the API(s) for {list}"
    )
}

/// `validateDeprecatedAPIS`: the errors and warnings, in upstream's order. A removal is an error when the
/// `k8s-version` option or the CSV's `minKubeVersion` (both read tolerantly) is at least that release.
pub(super) fn check(l: &Loaded, csv: &Value, k8s: Option<&str>) -> (Vec<String>, Vec<String>) {
    let (mut errs, mut warns) = (Vec::new(), Vec::new());
    let k8s = k8s.filter(|v| !v.is_empty());
    let zero = Version { major: 0, minor: 0, patch: 0, pre: Vec::new(), build: Vec::new() };
    let provided = k8s.and_then(|v| parse_tolerant(v).ok()).unwrap_or_else(|| zero.clone());
    if let Some(v) = k8s
        && parse_tolerant(v).is_err()
    {
        errs.push(format!("invalid value informed via the k8s key option : {v}"));
    }
    let mkv = s(csv, "/spec/minKubeVersion");
    let mut min_kube = zero.clone();
    if !mkv.is_empty() {
        match parse_tolerant(mkv) {
            Ok(v) => min_kube = v,
            Err(_) => errs.push(format!(
                "unable to use csv.Spec.MinKubeVersion to verify the CRD/Webhook apis because it has an invalid value: {mkv}"
            )),
        }
    }
    for (major, minor) in CHECKED {
        let (found, rules) = match minor {
            22 => (removed_in_1_22(l), Found::new()),
            25 => removed_in_1_25(l),
            _ => (removed_in_1_26(l), Found::new()),
        };
        let release = Version { major, minor, ..zero.clone() };
        if !found.is_empty() {
            let msg = removed_message(major, minor, &message(&found));
            if provided.ge(&release) || min_kube.ge(&release) { errs.push(msg) } else { warns.push(msg) }
        }
        if !rules.is_empty() {
            warns.push(removed_message(major, minor, &message(&rules)));
        }
    }
    (errs, warns)
}

/// Adds `check`'s findings as `ErrFailedValidation` / `WarnFailedValidation` of the CSV.
pub(super) fn report(l: &Loaded, csv: &Value, k8s: Option<&str>, out: &mut Out) {
    let name = s(csv, "/metadata/name");
    let (errs, warns) = check(l, csv, k8s);
    for e in errs {
        out.value(Level::Error, name, e);
    }
    for w in warns {
        out.value(Level::Warning, name, w);
    }
}
