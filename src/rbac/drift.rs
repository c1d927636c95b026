//! Drift between the RBAC markers and the code: calls no marker grants (with the marker line to add), and
//! marker grants no reachable call uses.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use super::bound::BoundRule;
use super::infer::Inference;
use super::markers::RBAC_MARKER;
use crate::markers::Marker;

/// A resource the code uses with verbs no marker grants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// API group.
    pub group: String,
    /// Resource (with `/subresource`).
    pub resource: String,
    /// Verbs not granted, sorted.
    pub verbs: Vec<String>,
    /// The first call site needing them.
    pub file: PathBuf,
    /// Its line.
    pub line: usize,
    /// The call.
    pub call: String,
    /// The namespace every RBAC marker of the crate names (a namespace-scoped manager's Role), which the marker to
    /// add names too.
    pub namespace: Option<String>,
}

impl Missing {
    /// The marker line that grants what is missing.
    pub fn marker(&self) -> String {
        let group = if self.group.is_empty() { "core" } else { &self.group };
        let namespace = self.namespace.as_ref().map(|ns| format!(",namespace={ns}")).unwrap_or_default();
        format!(
            "// +{RBAC_MARKER}:groups={group}{namespace},resources={},verbs={}",
            self.resource,
            self.verbs.join(";")
        )
    }
}

/// A marker granting verbs no reachable call uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unused {
    /// The marker's file.
    pub file: PathBuf,
    /// Its line.
    pub line: usize,
    /// `verbs on resource` phrases, e.g. `delete on memcacheds`.
    pub grants: Vec<String>,
}

/// The drift of one crate's markers against its inferred needs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Drift {
    /// Needed and not granted.
    pub missing: Vec<Missing>,
    /// Granted and not needed.
    pub unused: Vec<Unused>,
}

fn core(g: &str) -> &str {
    if g == "core" { "" } else { g }
}

/// A marker's lists, read once.
struct Grant<'a> {
    marker: &'a Marker,
    groups: Vec<String>,
    resources: Vec<String>,
    verbs: Vec<String>,
}

impl Grant<'_> {
    /// Whether it grants `verb` on `group`/`resource` (wildcards honoured; `core` is the core group).
    fn grants(&self, group: &str, resource: &str, verb: &str) -> bool {
        self.groups.iter().any(|g| g == "*" || core(g) == group)
            && self.resources.iter().any(|r| r == "*" || r == resource)
            && self.verbs.iter().any(|v| v == "*" || v == verb)
    }

    fn has_wildcard(&self) -> bool {
        [&self.groups, &self.resources, &self.verbs].iter().any(|l| l.iter().any(|x| x == "*"))
    }
}

/// Compares the RBAC markers among `markers` with what `inference` found. What `bound` grants (the project's
/// own roles bound to the manager: leader election, metrics authentication) covers needs too, but is never
/// reported as unused: those roles are not the markers' to trim.
pub fn check(markers: &[Marker], bound: &[BoundRule], inference: &Inference) -> Drift {
    let rbac: Vec<Grant> = markers
        .iter()
        .filter(|m| m.name == RBAC_MARKER)
        .map(|m| Grant {
            marker: m,
            groups: m.strings("groups"),
            resources: m.strings("resources"),
            verbs: m.strings("verbs"),
        })
        .collect();
    // What the markers without wildcards grant, as triples; the others are asked one by one.
    let mut exact: HashSet<(&str, &str, &str)> = HashSet::new();
    let mut wildcards: Vec<&Grant> = Vec::new();
    for g in &rbac {
        if g.has_wildcard() {
            wildcards.push(g);
            continue;
        }
        for group in &g.groups {
            for r in &g.resources {
                for v in &g.verbs {
                    exact.insert((core(group), r, v));
                }
            }
        }
    }
    // A namespace-scoped manager's markers all name its namespace; a crate mixing namespaces gets none suggested.
    let mut namespaces = rbac.iter().map(|g| g.marker.string("namespace").unwrap_or_default());
    let namespace = namespaces.next().filter(|first| !first.is_empty() && namespaces.all(|n| n == *first));
    let mut missing: BTreeMap<(String, String), Missing> = BTreeMap::new();
    for n in &inference.needs {
        if exact.contains(&(n.group.as_str(), n.resource.as_str(), n.verb.as_str()))
            || wildcards.iter().any(|m| m.grants(&n.group, &n.resource, &n.verb))
            || bound.iter().any(|b| b.grants(&n.group, &n.resource, &n.verb))
        {
            continue;
        }
        let entry = missing.entry((n.group.clone(), n.resource.clone())).or_insert_with(|| Missing {
            group: n.group.clone(),
            resource: n.resource.clone(),
            verbs: Vec::new(),
            file: n.file.clone(),
            line: n.line,
            call: n.call.clone(),
            namespace: namespace.map(str::to_string),
        });
        if !entry.verbs.contains(&n.verb) {
            entry.verbs.push(n.verb.clone());
            entry.verbs.sort();
        }
    }
    let needed: HashSet<(&str, &str, &str)> =
        inference.needs.iter().map(|n| (n.group.as_str(), n.resource.as_str(), n.verb.as_str())).collect();
    let mut unused = Vec::new();
    for m in &rbac {
        if !m.marker.strings("urls").is_empty() {
            continue;
        }
        let mut phrases: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for g in &m.groups {
            for r in &m.resources {
                for v in &m.verbs {
                    if [g.as_str(), r.as_str(), v.as_str()].contains(&"*") {
                        continue;
                    }
                    if !needed.contains(&(core(g), r.as_str(), v.as_str())) {
                        phrases.entry(r.clone()).or_default().insert(v.clone());
                    }
                }
            }
        }
        if !phrases.is_empty() {
            let grants = phrases
                .into_iter()
                .map(|(r, vs)| format!("{} on {r}", vs.into_iter().collect::<Vec<_>>().join(", ")))
                .collect();
            unused.push(Unused { file: m.marker.file.clone(), line: m.marker.line, grants });
        }
    }
    Drift { missing: missing.into_values().collect(), unused }
}

impl Drift {
    /// The lines `make manifests` prints: a `warning:` per missing grant, a `note:` per unused marker.
    pub fn messages(&self, display: &dyn Fn(&Path) -> String) -> Vec<String> {
        let mut out = Vec::new();
        for m in &self.missing {
            out.push(format!(
                "warning: {}:{}: {} needs {} on {}{}, which no RBAC marker grants; add:\n  {}",
                display(&m.file),
                m.line,
                m.call,
                m.verbs.join(", "),
                m.resource,
                if m.group.is_empty() { String::new() } else { format!(" ({})", m.group) },
                m.marker()
            ));
        }
        for u in &self.unused {
            out.push(format!(
                "note: {}:{}: this RBAC marker grants {} that no code reachable from main uses",
                display(&u.file),
                u.line,
                u.grants.join("; ")
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rbac::infer::Need;

    fn need(group: &str, resource: &str, verb: &str) -> Need {
        Need {
            group: group.into(),
            resource: resource.into(),
            verb: verb.into(),
            file: "src/run.rs".into(),
            line: 7,
            call: format!("Api<X>::{verb}"),
        }
    }

    #[test]
    fn missing_grants_get_a_marker_line_and_unused_grants_a_note() {
        let markers = crate::markers::scan(
            Path::new("src/lib.rs"),
            "// +kubebuilder:rbac:groups=core,resources=secrets,verbs=get;list\n\
             // +kubebuilder:rbac:groups=apps,resources=*,verbs=*\n",
        )
        .unwrap();
        let inference = Inference {
            needs: vec![
                need("", "secrets", "get"),
                need("", "configmaps", "patch"),
                need("", "configmaps", "create"),
                need("apps", "deployments", "delete"),
            ],
            ..Inference::default()
        };
        let drift = check(&markers, &[], &inference);
        assert_eq!(drift.missing.len(), 1);
        assert_eq!(
            drift.missing[0].marker(),
            "// +kubebuilder:rbac:groups=core,resources=configmaps,verbs=create;patch"
        );
        assert_eq!(drift.unused.len(), 1);
        assert_eq!((drift.unused[0].line, drift.unused[0].grants.clone()), (1, vec!["list on secrets".to_string()]));
        let text = drift.messages(&|p| p.display().to_string());
        assert!(
            text[0].starts_with("warning: src/run.rs:7: Api<X>::patch needs create, patch on configmaps, "),
            "{text:?}"
        );
        assert!(text[1].starts_with("note: src/lib.rs:1: "), "{text:?}");
    }

    #[test]
    fn the_marker_to_add_names_the_namespace_all_markers_name() {
        let scan = |text: &str| crate::markers::scan(Path::new("src/lib.rs"), text).unwrap();
        let inference = Inference { needs: vec![need("", "configmaps", "get")], ..Inference::default() };
        let scoped = scan(
            "// +kubebuilder:rbac:groups=apps,namespace=op-system,resources=deployments,verbs=get\n\
             // +kubebuilder:rbac:groups=core,namespace=op-system,resources=pods,verbs=list\n",
        );
        assert_eq!(
            check(&scoped, &[], &inference).missing[0].marker(),
            "// +kubebuilder:rbac:groups=core,namespace=op-system,resources=configmaps,verbs=get"
        );
        let mixed = scan(
            "// +kubebuilder:rbac:groups=apps,namespace=op-system,resources=deployments,verbs=get\n\
             // +kubebuilder:rbac:groups=core,resources=pods,verbs=list\n",
        );
        assert_eq!(
            check(&mixed, &[], &inference).missing[0].marker(),
            "// +kubebuilder:rbac:groups=core,resources=configmaps,verbs=get"
        );
    }

    #[test]
    fn a_role_bound_to_the_manager_covers_needs_and_is_never_unused() {
        let markers = crate::markers::scan(
            Path::new("src/lib.rs"),
            "// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get\n",
        )
        .unwrap();
        let bound = vec![BoundRule {
            file: "config/rbac/leader_election_role.yaml".into(),
            role: ("Role".into(), "leader-election-role".into()),
            groups: vec!["coordination.k8s.io".into()],
            resources: vec!["leases".into()],
            verbs: vec!["get".into(), "create".into(), "update".into(), "delete".into()],
        }];
        let inference = Inference {
            needs: vec![
                need("apps", "deployments", "get"),
                need("coordination.k8s.io", "leases", "get"),
                need("coordination.k8s.io", "leases", "update"),
                need("coordination.k8s.io", "leases", "patch"),
            ],
            ..Inference::default()
        };
        let drift = check(&markers, &bound, &inference);
        // Only what the bound role does not grant is missing; its unused `delete` is no note.
        assert_eq!(drift.missing.len(), 1);
        assert_eq!(drift.missing[0].verbs, ["patch"]);
        assert!(drift.unused.is_empty(), "{:?}", drift.unused);
    }
}
