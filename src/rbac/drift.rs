//! Drift between the RBAC markers and the code: calls no marker grants (with the marker line to add), and
//! marker grants no reachable call uses.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

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
}

impl Missing {
    /// The marker line that grants what is missing.
    pub fn marker(&self) -> String {
        let group = if self.group.is_empty() { "core" } else { &self.group };
        format!("// +{RBAC_MARKER}:groups={group},resources={},verbs={}", self.resource, self.verbs.join(";"))
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

/// Whether `m` grants `verb` on `group`/`resource` (wildcards honoured; `core` is the core group).
fn grants(m: &Marker, group: &str, resource: &str, verb: &str) -> bool {
    let groups = m.strings("groups");
    let resources = m.strings("resources");
    let verbs = m.strings("verbs");
    groups.iter().any(|g| g == "*" || core(g) == group)
        && resources.iter().any(|r| r == "*" || r == resource)
        && verbs.iter().any(|v| v == "*" || v == verb)
}

/// Compares the RBAC markers among `markers` with what `inference` found.
pub fn check(markers: &[Marker], inference: &Inference) -> Drift {
    let rbac: Vec<&Marker> = markers.iter().filter(|m| m.name == RBAC_MARKER).collect();
    let mut missing: BTreeMap<(String, String), Missing> = BTreeMap::new();
    for n in &inference.needs {
        if rbac.iter().any(|m| grants(m, &n.group, &n.resource, &n.verb)) {
            continue;
        }
        let entry = missing.entry((n.group.clone(), n.resource.clone())).or_insert_with(|| Missing {
            group: n.group.clone(),
            resource: n.resource.clone(),
            verbs: Vec::new(),
            file: n.file.clone(),
            line: n.line,
            call: n.call.clone(),
        });
        if !entry.verbs.contains(&n.verb) {
            entry.verbs.push(n.verb.clone());
            entry.verbs.sort();
        }
    }
    let needed = inference.grants();
    let mut unused = Vec::new();
    for m in &rbac {
        if !m.strings("urls").is_empty() {
            continue;
        }
        let mut phrases: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for g in m.strings("groups") {
            for r in m.strings("resources") {
                for v in m.strings("verbs") {
                    if [g.as_str(), r.as_str(), v.as_str()].contains(&"*") {
                        continue;
                    }
                    if !needed.contains(&(core(&g).to_string(), r.clone(), v.clone())) {
                        phrases.entry(r.clone()).or_default().insert(v);
                    }
                }
            }
        }
        if !phrases.is_empty() {
            let grants = phrases
                .into_iter()
                .map(|(r, vs)| format!("{} on {r}", vs.into_iter().collect::<Vec<_>>().join(", ")))
                .collect();
            unused.push(Unused { file: m.file.clone(), line: m.line, grants });
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
        let drift = check(&markers, &inference);
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
}
