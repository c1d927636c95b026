//! A CSV's `installModes`: the project's defaults (cluster-scoped: AllNamespaces; namespaced: OwnNamespace,
//! SingleNamespace and MultiNamespace), `make bundle --install-modes`, which of them and the base CSV's wins, and
//! `bundle validate`'s warnings where the install modes promise what the manager's RBAC does not match.
//!
//! Precedence (highest first): `--install-modes` on the command line; the install modes recorded in PROJECT by an
//! earlier `--install-modes`; the base CSV's `installModes` when the user edited them (they are not one of the two
//! tables kubesmith writes); the project's defaults (PROJECT `namespaced`).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::{Value, json};

use super::finding::{Finding, Level};

/// The value of `--install-modes` that drops a recorded choice (the project and the base CSV decide again).
pub const AUTO: &str = "auto";

/// An OLM install mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mode {
    OwnNamespace,
    SingleNamespace,
    MultiNamespace,
    AllNamespaces,
}

/// Every mode, in the order operator-sdk lists them in a CSV.
pub const ALL: [Mode; 4] = [Mode::OwnNamespace, Mode::SingleNamespace, Mode::MultiNamespace, Mode::AllNamespaces];

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::OwnNamespace => "OwnNamespace",
            Mode::SingleNamespace => "SingleNamespace",
            Mode::MultiNamespace => "MultiNamespace",
            Mode::AllNamespaces => "AllNamespaces",
        }
    }

    /// A mode's name, in any case.
    pub fn parse(text: &str) -> Option<Mode> {
        ALL.into_iter().find(|m| m.name().eq_ignore_ascii_case(text.trim()))
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Names joined with `,` (as `--install-modes` takes them).
pub fn list(modes: &[Mode]) -> String {
    modes.iter().map(|m| m.name()).collect::<Vec<_>>().join(",")
}

/// `--install-modes`: `None` for `auto`, else the supported modes (sorted, each once).
pub fn parse_flag(items: &[String]) -> Result<Option<Vec<Mode>>, String> {
    let known = list(&ALL);
    if items.len() == 1 && items[0].trim() == AUTO {
        return Ok(None);
    }
    let mut out = BTreeSet::new();
    for item in items {
        if item.trim() == AUTO {
            return Err(format!("--install-modes: `{AUTO}` stands alone (it drops the recorded install modes)"));
        }
        let Some(m) = Mode::parse(item) else {
            return Err(format!("--install-modes: unknown install mode {item:?}; use some of {known}, or {AUTO}"));
        };
        if !out.insert(m) {
            return Err(format!("--install-modes: {m} is listed twice"));
        }
    }
    if out.is_empty() {
        return Err(format!("--install-modes: list the supported install modes ({known}), or {AUTO}"));
    }
    Ok(Some(out.into_iter().collect()))
}

/// The supported modes of a project: cluster-scoped, AllNamespaces; namespaced (the manager watches
/// `WATCH_NAMESPACE`, one namespace or a comma-separated list), OwnNamespace, SingleNamespace and MultiNamespace.
pub fn defaults(namespaced: bool) -> Vec<Mode> {
    if namespaced {
        vec![Mode::OwnNamespace, Mode::SingleNamespace, Mode::MultiNamespace]
    } else {
        vec![Mode::AllNamespaces]
    }
}

/// The CSV's `installModes` table: every mode, supported or not.
pub fn to_value(supported: &[Mode]) -> Value {
    Value::Array(ALL.iter().map(|m| json!({"supported": supported.contains(m), "type": m.name()})).collect())
}

/// The supported modes of a CSV's `installModes` (unknown types ignored).
pub fn supported(modes: &Value) -> Vec<Mode> {
    let mut out: Vec<Mode> = modes
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["supported"] == Value::Bool(true))
        .filter_map(|m| m["type"].as_str().and_then(Mode::parse))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Whether a CSV's `installModes` is one of the tables kubesmith writes (every mode listed once, supported as in
/// one of the two defaults): such a table follows the project; anything else is the user's choice.
fn is_a_default(modes: &Value) -> bool {
    let Some(list) = modes.as_array() else { return false };
    let mut table = BTreeMap::new();
    for m in list {
        let (Some(t), Some(sup)) = (m["type"].as_str().and_then(Mode::parse), m["supported"].as_bool()) else {
            return false;
        };
        if table.insert(t, sup).is_some() {
            return false;
        }
    }
    [false, true].into_iter().any(|namespaced| {
        let d = defaults(namespaced);
        table.len() == ALL.len() && ALL.iter().all(|m| table.get(m) == Some(&d.contains(m)))
    })
}

/// Where the bundle's install modes came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `--install-modes` on this command line.
    Flag,
    /// PROJECT, from an earlier `--install-modes`.
    Recorded,
    /// The user's edit in the base CSV.
    Base,
    /// The project's scope (PROJECT `namespaced`).
    Project,
}

/// The install modes a bundle gets.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// The CSV's `installModes`.
    pub value: Value,
    pub source: Source,
}

/// Picks the bundle's install modes (see the module's precedence).
pub fn choose(
    base_modes: Option<&Value>,
    flag: Option<&[Mode]>,
    recorded: Option<&[Mode]>,
    namespaced: bool,
) -> Choice {
    if let Some(f) = flag {
        return Choice { value: to_value(f), source: Source::Flag };
    }
    if let Some(r) = recorded {
        return Choice { value: to_value(r), source: Source::Recorded };
    }
    match base_modes {
        Some(b) if !b.is_null() && !is_a_default(b) => Choice { value: b.clone(), source: Source::Base },
        _ => Choice { value: to_value(&defaults(namespaced)), source: Source::Project },
    }
}

fn s<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

fn strings(v: &Value) -> impl Iterator<Item = &str> {
    v.as_array().into_iter().flatten().filter_map(Value::as_str)
}

/// Whether any rule of a `permissions` / `clusterPermissions` list grants something on `resource` of `group`.
fn grants(perms: &Value, group: &str, resource: &str) -> bool {
    perms.as_array().into_iter().flatten().flat_map(|p| p["rules"].as_array().into_iter().flatten()).any(|r| {
        strings(&r["apiGroups"]).any(|g| g == group || g == "*")
            && strings(&r["resources"]).any(|x| x == resource || x == "*")
            && strings(&r["verbs"]).next().is_some()
    })
}

/// `bundle validate`'s install-mode warnings on a CSV and the bundle's CRDs:
/// - AllNamespaces supported while an owned kind is granted only in `permissions` (the manager's role is a
///   namespaced Role): OLM lifts those rules to a ClusterRole for an all-namespaces install, a wider grant than the
///   project's own RBAC ever makes;
/// - a cluster-scoped owned CRD while only namespace-bound modes (OwnNamespace, SingleNamespace, MultiNamespace)
///   are supported: its objects are in no namespace, so every installation sees all of them.
pub fn findings(csv: &Value, crds: &[Value]) -> Vec<Finding> {
    let name = s(csv, "/metadata/name");
    let modes = supported(&csv["spec"]["installModes"]);
    let install = &csv["spec"]["install"]["spec"];
    let owned: BTreeSet<&str> = csv
        .pointer("/spec/customresourcedefinitions/owned")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|o| s(o, "/name"))
        .filter(|n| n.contains('.'))
        .collect();
    let mut out = Vec::new();
    if modes.contains(&Mode::AllNamespaces) {
        let namespaced_only: Vec<&str> = owned
            .iter()
            .copied()
            .filter(|n| {
                let (plural, group) = n.split_once('.').unwrap_or((n, ""));
                grants(&install["permissions"], group, plural) && !grants(&install["clusterPermissions"], group, plural)
            })
            .collect();
        if !namespaced_only.is_empty() {
            out.push(Finding {
                level: Level::Warning,
                message: format!(
                    "({name}) the AllNamespaces install mode is supported, but the manager's access to {} is granted \
                     only in `permissions` (a namespaced Role, no `clusterPermissions`): installed for all namespaces, \
                     OLM lifts these rules to a ClusterRole, a wider grant than the project's own RBAC makes, for a \
                     manager written to watch its namespaces. Support only the namespace-bound modes (`make bundle \
                     --install-modes OwnNamespace,SingleNamespace,MultiNamespace`), or make the project cluster-scoped \
                     so that its role is a ClusterRole",
                    namespaced_only.join(", ")
                ),
            });
        }
    }
    let bound = !modes.is_empty() && !modes.contains(&Mode::AllNamespaces);
    if bound {
        for crd in crds.iter().filter(|c| c["spec"]["scope"] == "Cluster") {
            let crd_name = s(crd, "/metadata/name");
            if !owned.contains(crd_name) {
                continue;
            }
            let (group, plural) = (s(crd, "/spec/group"), s(crd, "/spec/names/plural"));
            let rbac = if grants(&install["permissions"], group, plural)
                && !grants(&install["clusterPermissions"], group, plural)
            {
                " Its rules are only in `permissions`, and a Role cannot grant access to a cluster-scoped resource: \
                 the manager cannot read it at all."
            } else {
                ""
            };
            out.push(Finding {
                level: Level::Warning,
                message: format!(
                    "({name}) owned CRD {crd_name} is cluster-scoped, but only {} supported: its objects belong to no \
                     namespace, so an operator installed for one namespace still sees (and reconciles) every one of \
                     them, and two installations reconcile the same objects.{rbac} Support AllNamespaces, or make the \
                     kind namespaced",
                    match modes.as_slice() {
                        [m] => format!("{m} is"),
                        ms => format!("{} are", ms.iter().map(|m| m.name()).collect::<Vec<_>>().join(", ")),
                    }
                ),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_parsing() {
        let p = |v: &[&str]| parse_flag(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            p(&["singlenamespace", "OwnNamespace"]).unwrap(),
            Some(vec![Mode::OwnNamespace, Mode::SingleNamespace])
        );
        assert_eq!(p(&["auto"]).unwrap(), None);
        assert!(p(&["auto", "OwnNamespace"]).unwrap_err().contains("stands alone"));
        assert!(p(&["Own"]).unwrap_err().contains("unknown install mode \"Own\""));
        assert!(p(&["OwnNamespace", "ownnamespace"]).unwrap_err().contains("listed twice"));
        assert!(p(&[]).is_err());
    }

    #[test]
    fn precedence_flag_record_edited_base_project() {
        let cluster = to_value(&defaults(false));
        let namespaced = to_value(&defaults(true));
        let edited = json!([{"supported": true, "type": "OwnNamespace"}, {"supported": true, "type": "AllNamespaces"}]);
        let own = [Mode::OwnNamespace];
        // The kubesmith tables (either) follow the project; absent too.
        assert_eq!(
            choose(Some(&cluster), None, None, true),
            Choice { value: namespaced.clone(), source: Source::Project }
        );
        assert_eq!(
            choose(Some(&namespaced), None, None, false),
            Choice { value: cluster.clone(), source: Source::Project }
        );
        assert_eq!(choose(None, None, None, false).value, cluster);
        // An edited base is kept as written.
        assert_eq!(choose(Some(&edited), None, None, true), Choice { value: edited.clone(), source: Source::Base });
        // A record beats the base, the flag beats both.
        assert_eq!(choose(Some(&edited), None, Some(&own), false).source, Source::Recorded);
        let c = choose(Some(&edited), Some(&[Mode::AllNamespaces]), Some(&own), true);
        assert_eq!((c.value, c.source), (cluster, Source::Flag));
        // A default table in another order is still a default; a partial one is an edit.
        let mut reordered = namespaced.as_array().unwrap().clone();
        reordered.reverse();
        assert!(is_a_default(&Value::Array(reordered)));
        assert!(!is_a_default(&json!([{"supported": true, "type": "AllNamespaces"}])));
    }

    fn csv(modes: &[Mode], permissions: Value, cluster_permissions: Value) -> Value {
        json!({"metadata": {"name": "op.v0.1.0"}, "spec": {
            "installModes": to_value(modes),
            "customresourcedefinitions": {"owned": [
                {"name": "widgets.example.com", "version": "v1", "kind": "Widget"},
                {"name": "clusters.example.com", "version": "v1", "kind": "Cluster"}]},
            "install": {"spec": {"permissions": permissions, "clusterPermissions": cluster_permissions}}}})
    }

    fn rules(resources: &[&str]) -> Value {
        json!([{"serviceAccountName": "sa", "rules": [
            {"apiGroups": ["example.com"], "resources": resources, "verbs": ["get", "list", "watch"]}]}])
    }

    #[test]
    fn rbac_warnings() {
        let crds = vec![
            json!({"metadata": {"name": "widgets.example.com"}, "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets"}}}),
            json!({"metadata": {"name": "clusters.example.com"}, "spec": {"group": "example.com", "scope": "Cluster", "names": {"plural": "clusters"}}}),
        ];
        // Cluster project: all in clusterPermissions, AllNamespaces: nothing to say.
        assert!(findings(&csv(&[Mode::AllNamespaces], json!([]), rules(&["widgets", "clusters"])), &crds).is_empty());
        // AllNamespaces with a namespaced Role only.
        let f = findings(&csv(&[Mode::AllNamespaces, Mode::OwnNamespace], rules(&["widgets"]), json!([])), &crds);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].message.contains("access to widgets.example.com is granted only in `permissions`"), "{f:?}");
        // A cluster-scoped kind with namespace-bound modes, granted in a Role.
        let f = findings(
            &csv(&[Mode::OwnNamespace, Mode::SingleNamespace], rules(&["widgets", "clusters"]), json!([])),
            &crds,
        );
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].message.contains(
                "owned CRD clusters.example.com is cluster-scoped, but only OwnNamespace, SingleNamespace are supported"
            ),
            "{f:?}"
        );
        assert!(f[0].message.contains("a Role cannot grant access to a cluster-scoped resource"), "{f:?}");
        // Granted cluster-wide: the scope warning stays, without the RBAC sentence.
        let f = findings(&csv(&[Mode::OwnNamespace], rules(&["widgets"]), rules(&["clusters"])), &crds);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].message.contains("only OwnNamespace is supported") && !f[0].message.contains("a Role cannot"));
    }
}
