//! What the project's own RBAC files grant the manager besides the generated role: every Role and ClusterRole in
//! the RBAC folder (leader election, metrics authentication, roles the user wrote) that a binding in that folder
//! gives to a service account the generated role is bound to. The drift check counts these grants, so code they
//! cover (the scaffold's Lease, TokenReview and SubjectAccessReview calls) needs no cluster-wide marker.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// One rule of a role the manager is bound to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundRule {
    /// The file holding the role.
    pub file: PathBuf,
    /// The role's kind (`Role` or `ClusterRole`) and name.
    pub role: (String, String),
    /// API groups (`""` is the core group).
    pub groups: Vec<String>,
    /// Resources.
    pub resources: Vec<String>,
    /// Verbs.
    pub verbs: Vec<String>,
}

impl BoundRule {
    /// Whether the rule grants `verb` on `group`/`resource` (wildcards honoured).
    pub fn grants(&self, group: &str, resource: &str, verb: &str) -> bool {
        self.groups.iter().any(|g| g == "*" || g == group)
            && self.resources.iter().any(|r| r == "*" || r == resource)
            && self.verbs.iter().any(|v| v == "*" || v == verb)
    }
}

/// A role or binding document, with the file it came from.
struct Doc<'a> {
    file: &'a Path,
    value: Value,
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().into_iter().flatten().filter_map(|s| s.as_str().map(str::to_string)).collect()
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or_default()
}

/// The service accounts (by name) a binding gives its role to.
fn service_accounts(binding: &Value) -> Vec<&str> {
    binding
        .get("subjects")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|s| str_at(s, "/kind") == "ServiceAccount")
        .map(|s| str_at(s, "/name"))
        .collect()
}

/// The rules of every role in `files` (path, text) bound to a service account that the role `manager_role` (the
/// ClusterRole, or the Role of a namespace-scoped manager) is bound to, the manager role itself left out. Files that are not YAML are skipped: they are not kubesmith's
/// to judge, and kustomize reports them.
pub fn manager_rules(files: &[(PathBuf, String)], manager_role: &str) -> Vec<BoundRule> {
    // Only files that hold a binding are parsed first (a scaffold has a role file per kind and few bindings),
    // then only the files that name a role those bindings refer to.
    let parse = |keep: &dyn Fn(&str) -> bool| -> Vec<Doc> {
        let mut docs = Vec::new();
        for (file, text) in files.iter().filter(|(_, t)| keep(t)) {
            let Ok(values) = crate::yaml::from_multi_doc_str(text) else { continue };
            docs.extend(values.into_iter().filter(|v| v.is_object()).map(|value| Doc { file, value }));
        }
        docs
    };
    let mut docs = parse(&|t| t.contains("Binding"));
    let is_binding = |d: &Doc| matches!(str_at(&d.value, "/kind"), "RoleBinding" | "ClusterRoleBinding");
    let mut accounts: Vec<&str> = docs
        .iter()
        .filter(|d| {
            is_binding(d)
                && matches!(str_at(&d.value, "/roleRef/kind"), "ClusterRole" | "Role")
                && str_at(&d.value, "/roleRef/name") == manager_role
        })
        .flat_map(|d| service_accounts(&d.value))
        .collect();
    accounts.sort_unstable();
    accounts.dedup();
    let mut refs: Vec<(String, String)> = docs
        .iter()
        .filter(|d| is_binding(d) && service_accounts(&d.value).iter().any(|a| accounts.contains(a)))
        .map(|d| (str_at(&d.value, "/roleRef/kind").to_string(), str_at(&d.value, "/roleRef/name").to_string()))
        .filter(|(kind, name)| !(matches!(kind.as_str(), "ClusterRole" | "Role") && name == manager_role))
        .collect();
    refs.sort_unstable();
    refs.dedup();
    if refs.is_empty() {
        return Vec::new();
    }
    docs.extend(parse(&|t| !t.contains("Binding") && refs.iter().any(|(_, n)| t.contains(n.as_str()))));
    let mut out = Vec::new();
    for d in &docs {
        let kind = str_at(&d.value, "/kind");
        let name = str_at(&d.value, "/metadata/name");
        if !matches!(kind, "Role" | "ClusterRole") || !refs.iter().any(|(k, n)| k == kind && n == name) {
            continue;
        }
        for rule in d.value.get("rules").and_then(Value::as_array).into_iter().flatten() {
            let groups = strings(&rule["apiGroups"]);
            out.push(BoundRule {
                file: d.file.to_path_buf(),
                role: (kind.to_string(), name.to_string()),
                groups: if groups.is_empty() { vec![String::new()] } else { groups },
                resources: strings(&rule["resources"]),
                verbs: strings(&rule["verbs"]),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANAGER_BINDING: &str = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\n\
        metadata:\n  name: manager-rolebinding\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  \
        name: manager-role\nsubjects:\n- kind: ServiceAccount\n  name: controller-manager\n  namespace: system\n";

    fn files(list: &[(&str, &str)]) -> Vec<(PathBuf, String)> {
        list.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect()
    }

    #[test]
    fn roles_bound_to_the_managers_account_count_and_others_do_not() {
        let leader = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: leader-election-role\n\
            rules:\n- apiGroups:\n  - coordination.k8s.io\n  resources:\n  - leases\n  verbs:\n  - get\n  - update\n";
        let leader_binding = "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: lb\n\
            roleRef:\n  kind: Role\n  name: leader-election-role\nsubjects:\n- kind: ServiceAccount\n  \
            name: controller-manager\n";
        // A role bound to somebody else (a metrics reader, a user) grants the manager nothing.
        let other = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\nrules:\n\
            - nonResourceURLs:\n  - /metrics\n  verbs:\n  - get\n---\napiVersion: rbac.authorization.k8s.io/v1\n\
            kind: ClusterRoleBinding\nmetadata:\n  name: rb\nroleRef:\n  kind: ClusterRole\n  name: reader\n\
            subjects:\n- kind: ServiceAccount\n  name: prometheus\n";
        let rules = manager_rules(
            &files(&[
                ("config/rbac/role_binding.yaml", MANAGER_BINDING),
                ("config/rbac/leader_election_role.yaml", leader),
                ("config/rbac/leader_election_role_binding.yaml", leader_binding),
                ("config/rbac/reader.yaml", other),
                ("config/rbac/kustomization.yaml", "resources:\n- role.yaml\n"),
                ("config/rbac/broken.yaml", "kind: [\n"),
            ]),
            "manager-role",
        );
        assert_eq!(rules.len(), 1, "{rules:?}");
        assert_eq!(rules[0].file, PathBuf::from("config/rbac/leader_election_role.yaml"));
        assert!(rules[0].grants("coordination.k8s.io", "leases", "update"));
        assert!(!rules[0].grants("coordination.k8s.io", "leases", "delete"));
        assert!(!rules[0].grants("", "leases", "get"));
    }

    #[test]
    fn a_namespace_scoped_managers_role_binding_counts_too() {
        let binding = MANAGER_BINDING.replace("ClusterRole", "Role");
        let leader = "kind: Role\nmetadata:\n  name: leader-election-role\nrules:\n- apiGroups:\n  - coordination.k8s.io\n  \
            resources:\n  - leases\n  verbs:\n  - get\n";
        let leader_binding = "kind: RoleBinding\nroleRef:\n  kind: Role\n  name: leader-election-role\nsubjects:\n\
            - kind: ServiceAccount\n  name: controller-manager\n";
        let rules = manager_rules(
            &files(&[("r.yaml", &binding), ("l.yaml", leader), ("lb.yaml", leader_binding)]),
            "manager-role",
        );
        assert_eq!(rules.len(), 1, "{rules:?}");
        assert_eq!(rules[0].role, ("Role".to_string(), "leader-election-role".to_string()));
    }

    #[test]
    fn without_a_binding_of_the_manager_role_nothing_is_bound() {
        let role =
            "kind: ClusterRole\nmetadata:\n  name: x\nrules:\n- apiGroups: ['*']\n  resources: ['*']\n  verbs: ['*']\n";
        let binding = "kind: ClusterRoleBinding\nroleRef:\n  kind: ClusterRole\n  name: x\nsubjects:\n\
            - kind: ServiceAccount\n  name: controller-manager\n";
        assert!(manager_rules(&files(&[("a.yaml", role), ("b.yaml", binding)]), "manager-role").is_empty());
    }
}
