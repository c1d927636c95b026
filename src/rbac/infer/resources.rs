//! Which resource a Rust type names: k8s-openapi's types through the generated table `data/k8s-resources.tsv`
//! (`cargo xtask k8s-resources`), and the sources' own `#[derive(CustomResource)]` kinds through their `#[kube]`
//! attributes and kube-derive's plural rule.

use std::collections::HashMap;
use std::sync::OnceLock;

const TABLE: &str = include_str!("../../../data/k8s-resources.tsv");

/// A Kubernetes resource type.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Resource {
    /// API group (`""` for core).
    pub group: String,
    /// Version (`v1`).
    pub version: String,
    /// Kind (`Deployment`).
    pub kind: String,
    /// Plural, the RBAC resource name (`deployments`).
    pub plural: String,
    /// Namespaced (else cluster-scoped).
    pub namespaced: bool,
}

fn table() -> &'static HashMap<&'static str, Resource> {
    static T: OnceLock<HashMap<&'static str, Resource>> = OnceLock::new();
    T.get_or_init(|| {
        TABLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .filter_map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                let r = Resource {
                    group: f.get(1)?.to_string(),
                    version: f.get(2)?.to_string(),
                    kind: f.get(3)?.to_string(),
                    plural: f.get(4)?.to_string(),
                    namespaced: *f.get(5)? == "namespaced",
                };
                Some((f[0], r))
            })
            .collect()
    })
}

/// The resource of a k8s-openapi type, by its path below `k8s_openapi::` (`api::apps::v1::Deployment`).
pub fn k8s(path: &str) -> Option<&'static Resource> {
    table().get(path)
}

/// The k8s-openapi resource of a group, version and kind (`""` for core).
pub fn k8s_gvk(group: &str, version: &str, kind: &str) -> Option<&'static Resource> {
    table().values().find(|r| r.group == group && r.version == version && r.kind == kind)
}

/// The resource a full external path names (`k8s_openapi::api::core::v1::Pod`, also through `kube::k8s_openapi`).
pub fn k8s_path(path: &[String]) -> Option<&'static Resource> {
    let rest = match path {
        [first, rest @ ..] if first == "k8s_openapi" => rest,
        [first, second, rest @ ..] if first == "kube" && second == "k8s_openapi" => rest,
        _ => return None,
    };
    k8s(&rest.join("::"))
}

/// The resource a `#[derive(CustomResource)]` spec struct declares, if its `#[kube]` attributes parse.
pub fn custom_resource(attrs: &[syn::Attribute]) -> Option<(String, Resource)> {
    let k = crate::crd::kube_attrs::parse(attrs, proc_macro2::Span::call_site()).ok()?;
    let singular = k.singular.clone().unwrap_or_else(|| k.kind.to_ascii_lowercase());
    let plural = k.plural.clone().unwrap_or_else(|| crate::crd::kube_attrs::to_plural(&singular));
    let name = k.root.clone().unwrap_or_else(|| k.kind.clone());
    Some((name, Resource { group: k.group, version: k.version, kind: k.kind, plural, namespaced: k.namespaced }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_covers_the_groups_operators_use() {
        let want = [
            ("api::core::v1::Pod", "", "pods", true),
            ("api::core::v1::Node", "", "nodes", false),
            ("api::core::v1::Event", "", "events", true),
            ("api::events::v1::Event", "events.k8s.io", "events", true),
            ("api::apps::v1::StatefulSet", "apps", "statefulsets", true),
            ("api::batch::v1::CronJob", "batch", "cronjobs", true),
            ("api::networking::v1::Ingress", "networking.k8s.io", "ingresses", true),
            ("api::rbac::v1::ClusterRole", "rbac.authorization.k8s.io", "clusterroles", false),
            ("api::coordination::v1::Lease", "coordination.k8s.io", "leases", true),
            ("api::policy::v1::PodDisruptionBudget", "policy", "poddisruptionbudgets", true),
            ("api::storage::v1::StorageClass", "storage.k8s.io", "storageclasses", false),
            ("api::autoscaling::v2::HorizontalPodAutoscaler", "autoscaling", "horizontalpodautoscalers", true),
            (
                "api::admissionregistration::v1::ValidatingWebhookConfiguration",
                "admissionregistration.k8s.io",
                "validatingwebhookconfigurations",
                false,
            ),
            (
                "apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition",
                "apiextensions.k8s.io",
                "customresourcedefinitions",
                false,
            ),
            ("api::authentication::v1::TokenReview", "authentication.k8s.io", "tokenreviews", false),
        ];
        for (path, group, plural, namespaced) in want {
            let r = k8s(path).unwrap_or_else(|| panic!("{path} missing from data/k8s-resources.tsv"));
            assert_eq!((r.group.as_str(), r.plural.as_str(), r.namespaced), (group, plural, namespaced), "{path}");
        }
        let p: Vec<String> = "kube::k8s_openapi::api::core::v1::Secret".split("::").map(String::from).collect();
        assert_eq!(k8s_path(&p).map(|r| r.plural.as_str()), Some("secrets"));
        assert!(table().len() > 100);
    }

    #[test]
    fn custom_resource_plural_follows_kube_derive() {
        let s: syn::ItemStruct = syn::parse_quote! {
            #[derive(CustomResource)]
            #[kube(group = "ops.example.net", version = "v2", kind = "Policy", namespaced)]
            struct PolicySpec {}
        };
        let (name, r) = custom_resource(&s.attrs).unwrap();
        assert_eq!((name.as_str(), r.plural.as_str(), r.namespaced), ("Policy", "policies", true));
        let s: syn::ItemStruct = syn::parse_quote! {
            #[kube(group = "g.io", version = "v1", kind = "Box", plural = "boxen")]
            struct BoxSpec {}
        };
        assert_eq!(custom_resource(&s.attrs).unwrap().1.plural, "boxen");
    }
}
