//! RBAC generation from `+kubebuilder:rbac` markers, with controller-gen's exact merge and sort rules.
//!
//! Mirrors controller-tools `pkg/rbac/parser.go` `GenerateRoles` (reference/kubebuilder.md §8.2):
//! rules are bucketed by `(namespace, roleName)`, exploded per resource, merged (verbs, then resources,
//! then groups, then URLs), sorted by their key string, and `*` collapses the verbs. The ClusterRole is
//! the bucket with namespace `""`; every other bucket is a namespaced Role.
//!
//! One deliberate difference: when two merged rules end up with the same key in the resource, group or
//! URL pass, controller-gen keeps one of them at random (Go map overwrite) and silently drops the
//! other's verbs; kubesmith unions their verbs instead, which is deterministic and never loses access.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use serde_json::{Map, Value, json};

use crate::markers::Marker;

/// Name of the RBAC marker (without `+`).
pub const RBAC_MARKER: &str = "kubebuilder:rbac";

/// `apiVersion` of the generated roles.
pub const RBAC_API_VERSION: &str = "rbac.authorization.k8s.io/v1";

/// Name of the manager's role, as controller-gen's kubebuilder setup generates it (`rbac:roleName=manager-role`).
pub const MANAGER_ROLE: &str = "manager-role";

/// One policy rule while merging (every list deduplicated and sorted once normalized).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Rule {
    groups: Vec<String>,
    resources: Vec<String>,
    resource_names: Vec<String>,
    verbs: Vec<String>,
    urls: Vec<String>,
}

fn dedup_sort(list: &mut Vec<String>) {
    list.sort();
    list.dedup();
}

impl Rule {
    fn normalize(&mut self) {
        dedup_sort(&mut self.groups);
        dedup_sort(&mut self.resources);
        dedup_sort(&mut self.resource_names);
        dedup_sort(&mut self.verbs);
        dedup_sort(&mut self.urls);
    }

    /// controller-gen's `ruleKey.String()`: `groups + resources + resourceNames + urls`.
    fn key(&mut self) -> String {
        self.normalize();
        format!(
            "{} + {} + {} + {}",
            self.groups.join("&"),
            self.resources.join("&"),
            self.resource_names.join("&"),
            self.urls.join("&")
        )
    }

    fn key_without_resources(&mut self) -> String {
        self.normalize();
        format!(
            "{} + {} + {} + {}",
            self.groups.join("&"),
            self.resource_names.join("&"),
            self.urls.join("&"),
            self.verbs.join("&")
        )
    }

    fn key_without_groups(&mut self) -> String {
        self.normalize();
        format!(
            "{} + {} + {} + {}",
            self.resources.join("&"),
            self.resource_names.join("&"),
            self.urls.join("&"),
            self.verbs.join("&")
        )
    }

    fn key_without_urls(&mut self) -> String {
        self.normalize();
        format!(
            "{} + {} + {} + {}",
            self.groups.join("&"),
            self.resources.join("&"),
            self.resource_names.join("&"),
            self.verbs.join("&")
        )
    }

    fn add_verbs(&mut self, verbs: Vec<String>) {
        self.verbs.extend(verbs);
        dedup_sort(&mut self.verbs);
    }

    fn to_json(&self) -> Value {
        let mut obj = Map::new();
        let mut put = |key: &str, list: &[String]| {
            if !list.is_empty() {
                obj.insert(key.to_string(), json!(list));
            }
        };
        put("apiGroups", &self.groups);
        put("nonResourceURLs", &self.urls);
        put("resourceNames", &self.resource_names);
        put("resources", &self.resources);
        put("verbs", &self.verbs);
        Value::Object(obj)
    }
}

/// Inserts `rule` under its key; on a collision the verbs are unioned.
fn insert_or_union(map: &mut BTreeMap<String, Rule>, mut rule: Rule) {
    match map.entry(rule.key()) {
        Entry::Vacant(e) => {
            e.insert(rule);
        }
        Entry::Occupied(mut e) => e.get_mut().add_verbs(rule.verbs),
    }
}

/// One merge pass: rules with the same `group_key` are merged into the first one by `merge`.
fn merge_pass(
    map: BTreeMap<String, Rule>,
    group_key: fn(&mut Rule) -> String,
    merge: fn(&mut Rule, Rule),
) -> BTreeMap<String, Rule> {
    let mut groups: BTreeMap<String, Vec<Rule>> = BTreeMap::new();
    for mut rule in map.into_values() {
        groups.entry(group_key(&mut rule)).or_default().push(rule);
    }
    let mut out = BTreeMap::new();
    for rules in groups.into_values() {
        let mut iter = rules.into_iter();
        let Some(mut first) = iter.next() else {
            continue;
        };
        for other in iter {
            merge(&mut first, other);
        }
        insert_or_union(&mut out, first);
    }
    out
}

/// controller-gen's `NormalizeRules`.
fn normalize_rules(rules: Vec<Rule>) -> Vec<Rule> {
    // a. `core` → "", merge rules with the same key by union of verbs.
    let mut map = BTreeMap::new();
    for mut rule in rules {
        for g in &mut rule.groups {
            if g == "core" {
                g.clear();
            }
        }
        insert_or_union(&mut map, rule);
    }
    // b. union of resources, c. union of groups, d. union of URLs.
    let map = merge_pass(map, Rule::key_without_resources, |a, b| a.resources.extend(b.resources));
    let map = merge_pass(map, Rule::key_without_groups, |a, b| a.groups.extend(b.groups));
    let map = merge_pass(map, Rule::key_without_urls, |a, b| a.urls.extend(b.urls));
    // e. sorted by key string (BTreeMap order is byte-wise, like strings.Compare);
    // f. `*` collapses the verbs.
    map.into_values()
        .map(|mut rule| {
            if rule.verbs.iter().any(|v| v == "*") {
                rule.verbs = vec!["*".to_string()];
            }
            rule
        })
        .collect()
}

/// Generates the ClusterRole (namespace `""`) and the Roles (per namespace and role name) from the
/// `+kubebuilder:rbac` markers among `markers` (other markers are ignored). `role_name` names every
/// object whose markers carry no `roleName=`. Objects are ordered by namespace, then role name;
/// buckets without rules are skipped, so no RBAC markers means an empty vector.
pub fn generate(markers: &[Marker], role_name: &str) -> Vec<Value> {
    let mut buckets: BTreeMap<(String, String), Vec<Rule>> = BTreeMap::new();
    for marker in markers.iter().filter(|m| m.name == RBAC_MARKER) {
        let namespace = marker.string("namespace").unwrap_or_default().to_string();
        let name = marker.string("roleName").filter(|n| !n.is_empty()).unwrap_or(role_name).to_string();
        let base = Rule {
            groups: marker.strings("groups"),
            resources: Vec::new(),
            resource_names: marker.strings("resourceNames"),
            verbs: marker.strings("verbs"),
            urls: marker.strings("urls"),
        };
        let bucket = buckets.entry((namespace, name)).or_default();
        let resources = marker.strings("resources");
        if resources.is_empty() {
            bucket.push(base);
        } else {
            for resource in resources {
                bucket.push(Rule { resources: vec![resource], ..base.clone() });
            }
        }
    }

    let mut objects = Vec::new();
    for ((namespace, name), rules) in buckets {
        let rules = normalize_rules(rules);
        if rules.is_empty() {
            continue;
        }
        let rules: Vec<Value> = rules.iter().map(Rule::to_json).collect();
        let object = if namespace.is_empty() {
            json!({
                "apiVersion": RBAC_API_VERSION,
                "kind": "ClusterRole",
                "metadata": { "name": name },
                "rules": rules,
            })
        } else {
            json!({
                "apiVersion": RBAC_API_VERSION,
                "kind": "Role",
                "metadata": { "name": name, "namespace": namespace },
                "rules": rules,
            })
        };
        objects.push(object);
    }
    objects
}

/// A ClusterRole named `name` granting each `(group, resource, verb)` of `grants`, merged and sorted exactly like
/// rules from markers (one rule per group and resource first, then controller-gen's passes). Always one object,
/// with `rules: []` when `grants` is empty.
pub fn cluster_role<'a>(grants: impl IntoIterator<Item = (&'a str, &'a str, &'a str)>, name: &str) -> Value {
    let mut by_resource: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for (group, resource, verb) in grants {
        by_resource.entry((group.to_string(), resource.to_string())).or_default().push(verb.to_string());
    }
    let rules: Vec<Rule> = by_resource
        .into_iter()
        .map(|((group, resource), verbs)| Rule {
            groups: vec![group],
            resources: vec![resource],
            verbs,
            ..Rule::default()
        })
        .collect();
    let rules: Vec<Value> = normalize_rules(rules).iter().map(Rule::to_json).collect();
    json!({
        "apiVersion": RBAC_API_VERSION,
        "kind": "ClusterRole",
        "metadata": { "name": name },
        "rules": rules,
    })
}

#[cfg(test)]
mod tests;
