//! The `alpha-deprecated-apis` optional validator (operator-framework/api `internal/removed_apis.go`).

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Loaded, Out, s};

pub(super) const REMOVED: &[(u64, &str, &str)] = &[
    (22, "apiextensions.k8s.io/v1beta1", "CustomResourceDefinition"),
    (22, "rbac.authorization.k8s.io/v1beta1", "Role"),
    (22, "rbac.authorization.k8s.io/v1beta1", "ClusterRole"),
    (22, "rbac.authorization.k8s.io/v1beta1", "RoleBinding"),
    (22, "rbac.authorization.k8s.io/v1beta1", "ClusterRoleBinding"),
    (22, "admissionregistration.k8s.io/v1beta1", "ValidatingWebhookConfiguration"),
    (22, "admissionregistration.k8s.io/v1beta1", "MutatingWebhookConfiguration"),
    (22, "scheduling.k8s.io/v1beta1", "PriorityClass"),
    (22, "apiregistration.k8s.io/v1beta1", "APIService"),
    (22, "coordination.k8s.io/v1beta1", "Lease"),
    (22, "extensions/v1beta1", "Ingress"),
    (22, "networking.k8s.io/v1beta1", "Ingress"),
    (22, "networking.k8s.io/v1beta1", "IngressClass"),
    (22, "storage.k8s.io/v1beta1", "CSIDriver"),
    (22, "storage.k8s.io/v1beta1", "CSINode"),
    (22, "storage.k8s.io/v1beta1", "StorageClass"),
    (22, "storage.k8s.io/v1beta1", "VolumeAttachment"),
    (22, "certificates.k8s.io/v1beta1", "CertificateSigningRequest"),
    (25, "batch/v1beta1", "CronJob"),
    (25, "discovery.k8s.io/v1beta1", "EndpointSlice"),
    (25, "events.k8s.io/v1beta1", "Event"),
    (25, "autoscaling/v2beta1", "HorizontalPodAutoscaler"),
    (25, "policy/v1beta1", "PodDisruptionBudget"),
    (25, "policy/v1beta1", "PodSecurityPolicy"),
    (25, "node.k8s.io/v1beta1", "RuntimeClass"),
    (26, "autoscaling/v2beta2", "HorizontalPodAutoscaler"),
];

pub(super) fn minor_of(v: &str) -> Option<(u64, u64)> {
    let v = v.trim_start_matches('v');
    let mut it = v.split('.');
    let major = it.next()?.parse().ok()?;
    let minor = it.next()?.parse().ok()?;
    Some((major, minor))
}

pub(super) fn deprecated_apis(l: &Loaded, csv: &Value, k8s: Option<&str>, out: &mut Out) {
    let target = match k8s {
        Some(v) => match minor_of(v) {
            Some(m) => Some(m),
            None => {
                out.err(format!("invalid value informed via the k8s key option : {v}"));
                return;
            }
        },
        None => minor_of(s(csv, "/spec/minKubeVersion")),
    };
    let mut found: BTreeMap<u64, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for o in l.crds.iter().chain(&l.others) {
        let (api, kind) = (s(o, "/apiVersion"), s(o, "/kind"));
        for (minor, a, k) in REMOVED {
            if *a == api && *k == kind {
                found
                    .entry(*minor)
                    .or_default()
                    .entry(kind.to_string())
                    .or_default()
                    .push(s(o, "/metadata/name").into());
            }
        }
    }
    for kind in ["owned", "required"] {
        for o in csv["spec"]["customresourcedefinitions"][kind].as_array().into_iter().flatten() {
            for r in o["resources"].as_array().into_iter().flatten() {
                for (minor, a, k) in REMOVED.iter().filter(|(m, _, _)| *m == 25) {
                    if a.ends_with(&format!("/{}", s(r, "/version"))) && *k == s(r, "/kind") {
                        found.entry(*minor).or_default().entry(k.to_string()).or_default().push(s(r, "/name").into());
                    }
                }
            }
        }
    }
    for (minor, kinds) in found {
        let list: Vec<String> = kinds
            .iter()
            .map(|(k, names)| {
                let names: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
                format!("{k}: ({})", names.join(","))
            })
            .collect();
        let msg = format!(
            "this bundle is using APIs which were deprecated and removed in v1.{minor}. More info: \
             https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-{minor}. Migrate the API(s) for {}",
            list.join(",")
        );
        if target.is_some_and(|t| t >= (1, minor)) { out.err(msg) } else { out.warn(msg) }
    }
}
