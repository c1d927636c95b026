//! Kubernetes' built-in resources as k8s-openapi types: the generated table `data/k8s-resources.tsv` (`cargo xtask
//! k8s-resources`), looked up by Rust path (RBAC inference) or by group, version and kind (`create api` and
//! `create webhook` for types the project does not define).

use std::collections::HashMap;
use std::sync::OnceLock;

const TABLE: &str = include_str!("../data/k8s-resources.tsv");

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

/// One row of the table: a k8s-openapi type and the resource it is.
#[derive(Debug)]
pub struct Builtin {
    /// Path below `k8s_openapi::` (`api::apps::v1::Deployment`).
    pub path: &'static str,
    pub resource: Resource,
    /// Kubernetes minor versions that serve it (`1.33-1.37`).
    pub minors: &'static str,
}

fn rows() -> &'static [Builtin] {
    static T: OnceLock<Vec<Builtin>> = OnceLock::new();
    T.get_or_init(|| {
        TABLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .filter_map(|l| {
                let f: Vec<&'static str> = l.split('\t').collect();
                Some(Builtin {
                    path: f.first()?,
                    resource: Resource {
                        group: f.get(1)?.to_string(),
                        version: f.get(2)?.to_string(),
                        kind: f.get(3)?.to_string(),
                        plural: f.get(4)?.to_string(),
                        namespaced: *f.get(5)? == "namespaced",
                    },
                    minors: f.get(6).copied().unwrap_or_default(),
                })
            })
            .collect()
    })
}

fn by_path() -> &'static HashMap<&'static str, &'static Builtin> {
    static T: OnceLock<HashMap<&'static str, &'static Builtin>> = OnceLock::new();
    T.get_or_init(|| rows().iter().map(|b| (b.path, b)).collect())
}

/// The resource of a k8s-openapi type, by its path below `k8s_openapi::` (`api::apps::v1::Deployment`).
pub fn k8s(path: &str) -> Option<&'static Resource> {
    by_path().get(path).map(|b| &b.resource)
}

/// The resources (plurals) of a built-in API group (`""` for core) in any version; empty for a group Kubernetes
/// does not serve itself.
pub fn group_resources(group: &str) -> Vec<&'static str> {
    let mut out: Vec<&'static str> =
        rows().iter().filter(|b| b.resource.group == group).map(|b| b.resource.plural.as_str()).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The k8s-openapi resource of a group, version and kind (`""` for core).
pub fn k8s_gvk(group: &str, version: &str, kind: &str) -> Option<&'static Resource> {
    rows().iter().map(|b| &b.resource).find(|r| r.group == group && r.version == version && r.kind == kind)
}

/// The k8s-openapi type of a resource (`apps`, `deployments`) that Kubernetes `minor` (`1.33`) serves, in its
/// preferred version (GA before beta before alpha, then the highest: `autoscaling/v2` over `v1`).
pub fn by_resource(group: &str, plural: &str, minor: &str) -> Option<&'static Builtin> {
    // every k8s-openapi version is conventional (`v2`, `v1beta1`)
    let priority = |v: &str| crate::names::version_parts(v).map(|(major, level, n)| (level, major, n));
    rows()
        .iter()
        .filter(|b| b.resource.group == group && b.resource.plural == plural && b.served_in(minor))
        .max_by_key(|b| priority(&b.resource.version))
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

/// A built-in API group as `--group` names it, in kubebuilder's forms: `core` (or empty) for the core group, the
/// group itself (`apps`, `networking.k8s.io`), or its short name when the group ends in `.k8s.io`
/// (`networking`, `rbac.authorization`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltinGroup {
    /// The API group (`""`, `apps`, `networking.k8s.io`).
    pub api_group: String,
    /// `group` as kubebuilder records it in PROJECT (`core`, `apps`, `networking`).
    pub project_group: String,
    /// `domain` as kubebuilder records it in PROJECT (`k8s.io` for `*.k8s.io` groups, else empty).
    pub project_domain: String,
}

impl BuiltinGroup {
    /// The group `flag` names, if Kubernetes serves it.
    pub fn resolve(flag: &str) -> Option<BuiltinGroup> {
        let known = |g: &str| rows().iter().any(|b| b.resource.group == g);
        let api_group = if flag.is_empty() || flag == "core" {
            String::new()
        } else if known(flag) {
            flag.to_string()
        } else if known(&format!("{flag}.k8s.io")) {
            format!("{flag}.k8s.io")
        } else {
            return None;
        };
        let (project_group, project_domain) = if api_group.is_empty() {
            ("core".to_string(), String::new())
        } else if let Some(short) = api_group.strip_suffix(".k8s.io") {
            (short.to_string(), "k8s.io".to_string())
        } else {
            (api_group.clone(), String::new())
        };
        Some(BuiltinGroup { api_group, project_group, project_domain })
    }

    /// The k8s-openapi type of `version`/`kind` in this group.
    pub fn find(&self, version: &str, kind: &str) -> Option<&'static Builtin> {
        rows()
            .iter()
            .find(|b| b.resource.group == self.api_group && b.resource.version == version && b.resource.kind == kind)
    }

    /// `version/Kind` of every k8s-openapi type in this group, sorted (for error messages).
    pub fn kinds(&self) -> Vec<String> {
        let mut v: Vec<String> = rows()
            .iter()
            .filter(|b| b.resource.group == self.api_group)
            .map(|b| format!("{}/{}", b.resource.version, b.resource.kind))
            .collect();
        v.sort();
        v.dedup();
        v
    }
}

impl Builtin {
    /// The full Rust path of the type (`k8s_openapi::api::apps::v1::Deployment`).
    pub fn type_path(&self) -> String {
        format!("k8s_openapi::{}", self.path)
    }

    /// The Rust path of the type's module (`k8s_openapi::api::apps::v1`).
    pub fn module_path(&self) -> String {
        let p = self.type_path();
        p.rsplit_once("::").map(|(m, _)| m.to_string()).unwrap_or(p)
    }

    /// Whether the Kubernetes minor version `minor` (`1.37`) serves the type.
    pub fn served_in(&self, minor: &str) -> bool {
        let key = |v: &str| v.split_once('.').and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)));
        let Some((lo, hi)) = self.minors.split_once('-') else { return true };
        match (key(lo), key(hi), key(minor)) {
            (Some(lo), Some(hi), Some(v)) => lo <= v && v <= hi,
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resource_is_found_in_its_preferred_served_version() {
        let at = |g: &str, p: &str| {
            by_resource(g, p, "1.33").map(|b| (b.resource.version.as_str(), b.resource.kind.as_str()))
        };
        assert_eq!(at("apps", "deployments"), Some(("v1", "Deployment")));
        assert_eq!(at("autoscaling", "horizontalpodautoscalers"), Some(("v2", "HorizontalPodAutoscaler")));
        assert_eq!(at("", "pods"), Some(("v1", "Pod")));
        assert_eq!(at("example.org", "widgets"), None);
    }

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
        assert!(rows().len() > 100);
    }

    #[test]
    fn groups_resolve_in_kubebuilders_forms() {
        let g = |flag: &str| BuiltinGroup::resolve(flag).map(|g| (g.api_group, g.project_group, g.project_domain));
        let own = |a: &str, b: &str, c: &str| Some((a.to_string(), b.to_string(), c.to_string()));
        assert_eq!(g("core"), own("", "core", ""));
        assert_eq!(g(""), own("", "core", ""));
        assert_eq!(g("apps"), own("apps", "apps", ""));
        assert_eq!(g("networking"), own("networking.k8s.io", "networking", "k8s.io"));
        assert_eq!(g("networking.k8s.io"), own("networking.k8s.io", "networking", "k8s.io"));
        assert_eq!(g("rbac.authorization"), own("rbac.authorization.k8s.io", "rbac.authorization", "k8s.io"));
        assert_eq!(g("coordination.k8s.io"), own("coordination.k8s.io", "coordination", "k8s.io"));
        assert_eq!(g("cache"), None);
        assert_eq!(g("cert-manager"), None);
    }

    #[test]
    fn kinds_are_found_with_their_module_and_versions() {
        let apps = BuiltinGroup::resolve("apps").unwrap();
        let d = apps.find("v1", "Deployment").unwrap();
        assert_eq!(d.type_path(), "k8s_openapi::api::apps::v1::Deployment");
        assert_eq!(d.module_path(), "k8s_openapi::api::apps::v1");
        assert!(d.served_in("1.33") && d.served_in("1.37"));
        assert!(apps.find("v1", "Deploymnt").is_none());
        assert!(apps.kinds().contains(&"v1/StatefulSet".to_string()));
        let pod = BuiltinGroup::resolve("core").unwrap().find("v1", "Pod").unwrap();
        assert_eq!(pod.type_path(), "k8s_openapi::api::core::v1::Pod");
        let map = rows().iter().find(|b| b.path == "api::admissionregistration::v1::MutatingAdmissionPolicy").unwrap();
        assert!(!map.served_in("1.33") && map.served_in("1.36"));
    }
}
