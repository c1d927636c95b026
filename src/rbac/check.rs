//! RBAC markers against what exists: verbs from Kubernetes' set, resources of built-in groups from k8s-openapi's
//! table, resources of the project's own groups from its kinds. A typo (`verbs=get;lst`, `resources=deploymnets`)
//! is an error at the marker's file and line with the closest known name, instead of a rule that grants nothing;
//! a resource of a group kubesmith does not know (another project's API) passes.

use std::collections::{BTreeMap, BTreeSet};

use crate::markers::{Marker, MarkerDiagnostic, closest};

use super::RBAC_MARKER;

/// Verbs of resource rules: the API server's, and the special verbs of RBAC, pod security and certificates.
pub const RESOURCE_VERBS: &[&str] = &[
    "get",
    "list",
    "watch",
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
    "use",
    "bind",
    "escalate",
    "impersonate",
    "approve",
    "sign",
    "*",
];

/// Verbs of non-resource URL rules: HTTP's, lowercase.
pub const URL_VERBS: &[&str] = &["get", "post", "put", "patch", "delete", "head", "options", "*"];

/// Subresources the API server serves for custom resources.
const CUSTOM_SUBRESOURCES: &[&str] = &["status", "scale", "finalizers"];

/// Built-in resources Kubernetes removed but older clusters still serve, which roles may still name.
const REMOVED: &[(&str, &str)] = &[("policy", "podsecuritypolicies")];

/// Every unknown verb or resource of the `+kubebuilder:rbac` markers among `markers`, in their order. `own` maps
/// each API group the project defines to the plurals of its kinds.
pub fn check(markers: &[Marker], own: &BTreeMap<String, BTreeSet<String>>) -> Vec<MarkerDiagnostic> {
    let mut out = Vec::new();
    for m in markers.iter().filter(|m| m.name == RBAC_MARKER) {
        let mut problem = |message: String| {
            out.push(MarkerDiagnostic { file: m.file.clone(), line: m.line, message });
        };
        let urls = !m.strings("urls").is_empty();
        let verbs = if urls { URL_VERBS } else { RESOURCE_VERBS };
        for verb in m.strings("verbs") {
            if !verbs.contains(&verb.as_str()) {
                problem(unknown("verb", &verb, "", verbs.iter().copied(), if urls { "URL verbs" } else { "verbs" }));
            }
        }
        for group in m.strings("groups") {
            let group = if group == "core" { String::new() } else { group };
            if group == "*" {
                continue;
            }
            let mut known: Vec<String> =
                crate::builtin::group_resources(&group).into_iter().map(str::to_string).collect();
            known.extend(REMOVED.iter().filter(|(g, _)| *g == group).map(|(_, r)| r.to_string()));
            let own_kinds = own.get(&group);
            if let Some(plurals) = own_kinds {
                known.extend(plurals.iter().cloned());
            }
            if known.is_empty() {
                continue;
            }
            for resource in m.strings("resources") {
                let (base, sub) = match resource.split_once('/') {
                    Some((b, s)) => (b, Some(s)),
                    None => (resource.as_str(), None),
                };
                if base == "*" {
                    continue;
                }
                let shown = if group.is_empty() { "the core group".to_string() } else { format!("group {group}") };
                if !known.iter().any(|k| k == base) {
                    problem(unknown(
                        "resource",
                        base,
                        &format!(" in {shown}"),
                        known.iter().map(String::as_str),
                        "resources",
                    ));
                } else if let (Some(sub), true) = (sub, own_kinds.is_some_and(|p| p.contains(base)))
                    && sub != "*"
                    && !CUSTOM_SUBRESOURCES.contains(&sub)
                {
                    problem(unknown("subresource", &resource, "", CUSTOM_SUBRESOURCES.iter().copied(), "subresources"));
                }
            }
        }
    }
    out
}

/// "marker `+kubebuilder:rbac`: unknown verb `lst`; did you mean `list`? (verbs: get, list, ..)".
fn unknown<'a>(
    what: &str,
    name: &str,
    place: &str,
    known: impl Iterator<Item = &'a str> + Clone,
    list: &str,
) -> String {
    let mut msg = format!("marker `+{RBAC_MARKER}`: unknown {what} `{name}`{place}");
    if let Some((s, _)) = closest(name, known.clone()) {
        msg.push_str(&format!("; did you mean `{s}`?"));
    }
    let all: Vec<&str> = known.collect();
    if all.len() <= 20 {
        msg.push_str(&format!(" ({list}: {})", all.join(", ")));
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

    fn markers(text: &str) -> Vec<Marker> {
        crate::markers::scan(std::path::Path::new("src/controller.rs"), text).unwrap()
    }

    fn messages(text: &str) -> Vec<String> {
        let own = BTreeMap::from([("cache.example.com".to_string(), BTreeSet::from(["memcacheds".to_string()]))]);
        check(&markers(text), &own).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn typos_in_verbs_and_known_groups_resources_are_errors_with_the_closest_name() {
        let got = messages(
            "// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;lst\n\
             // +kubebuilder:rbac:groups=apps,resources=deploymnets,verbs=get\n\
             // +kubebuilder:rbac:groups=core,resources=pods/log;secrets,verbs=get\n\
             // +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/status;memcached,verbs=patch\n\
             // +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/stats,verbs=patch\n\
             // +kubebuilder:rbac:groups=serving.knative.dev,resources=anything,verbs=get\n\
             // +kubebuilder:rbac:urls=/metrics,verbs=get;post\n\
             // +kubebuilder:rbac:urls=/metrics,verbs=list\n\
             // +kubebuilder:rbac:groups=policy,resources=podsecuritypolicies,verbs=use\n\
             // +kubebuilder:rbac:groups=*,resources=*,verbs=*\n",
        );
        assert_eq!(got.len(), 5, "{got:#?}");
        assert!(
            got[0].starts_with(
                "src/controller.rs:1: marker `+kubebuilder:rbac`: unknown verb `lst`; did you mean `list`?"
            ),
            "{}",
            got[0]
        );
        assert!(got[1].starts_with("src/controller.rs:2: marker `+kubebuilder:rbac`: unknown resource `deploymnets` in group apps; did you mean `deployments`?"), "{}", got[1]);
        assert!(
            got[2].contains(":4: ")
                && got[2]
                    .contains("unknown resource `memcached` in group cache.example.com; did you mean `memcacheds`?"),
            "{}",
            got[2]
        );
        assert!(got[3].contains(":5: ") && got[3].contains("unknown subresource `memcacheds/stats`"), "{}", got[3]);
        assert!(
            got[4].contains(":8: ")
                && got[4].contains("unknown verb `list`")
                && got[4].contains("URL verbs: get, post"),
            "{}",
            got[4]
        );
    }
}
