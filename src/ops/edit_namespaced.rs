//! `kubesmith edit --namespaced[=false]`: plans the switch of a project's manager between cluster scope (a
//! ClusterRole, every namespace watched) and namespace scope (a Role in its own namespace, `WATCH_NAMESPACE`), as
//! kubebuilder's `edit --namespaced` does, but carrying the RBAC markers of the code along.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::edit::{self, Lang};
use crate::ops::deploy_image::MANAGER_ENV_MARKER;
use crate::ops::manifests::{self, Targets};
use crate::plan::Plan;
use crate::project::{PROJECT_FILE, Project, ProjectFile};
use crate::usage::UsageError;

/// The manager's binding, which names the generated role.
const ROLE_BINDING: &str = "config/rbac/role_binding.yaml";
/// The manager's Deployment.
const MANAGER: &str = "config/manager/manager.yaml";
/// The per-kind helper roles `create api` writes end so.
const KIND_ROLE_SUFFIXES: [&str; 3] = ["_admin_role.yaml", "_editor_role.yaml", "_viewer_role.yaml"];

/// The env entry a namespace-scoped manager's Deployment gets, before the manager-env marker (as `init
/// --namespaced` renders it, the marker's indentation added).
pub const WATCH_NAMESPACE_ENV: [&str; 7] = [
    "# The namespaces the controllers watch (comma-separated; empty: all): the",
    "# manager's own, where its Role grants access. OLM sets its target namespaces.",
    "- name: WATCH_NAMESPACE",
    "  valueFrom:",
    "    fieldRef:",
    "      fieldPath: metadata.namespace",
    "",
];

/// Plans `kubesmith edit --namespaced=<namespaced>`.
pub fn plan(cwd: &Path, namespaced: bool) -> Result<Plan> {
    let project = Project::load(cwd)?;
    let pf = &project.file;
    if pf.adopted() {
        anyhow::bail!(
            "this project was adopted (`kubesmith adopt`): its role is inferred from the code, not from markers \
             kubesmith scaffolded, so `edit --namespaced` has nothing to switch; write the Role and RoleBinding in \
             config/rbac/ yourself"
        );
    }
    let mut plan = Plan::new(cwd);
    if pf.namespaced == namespaced {
        plan.notes.push(format!(
            "note: the manager is already {}: nothing to change",
            if namespaced { "namespace-scoped (PROJECT `namespaced: true`)" } else { "cluster-scoped" }
        ));
        return Ok(plan);
    }
    if namespaced {
        refuse_cluster_scoped_controllers(pf)?;
    }
    let namespace = pf.manager_namespace();
    // What `make manifests` would read and write, without CRDs and webhooks: role.yaml is regenerated below.
    let mut targets = manifests_targets(cwd)?;
    targets.crd_dir = None;
    targets.webhook_dir = None;
    targets.rbac_dir = Some(PathBuf::from("config/rbac"));

    // The code's RBAC markers name the manager's namespace (or no longer do).
    for source in &targets.sources {
        for file in manifests::rust_files(&cwd.join(source))? {
            let rel = file.strip_prefix(cwd).unwrap_or(&file).to_path_buf();
            let text = plan.read_existing(&rel)?;
            let new = if namespaced {
                crate::rbac::scope::add_namespace(&text, &namespace)
            } else {
                crate::rbac::scope::remove_namespace(&text, &namespace)
            };
            if new != text {
                plan.edit(rel, new);
            }
        }
    }

    // The binding and the per-kind helper roles change kind.
    let (cluster, scoped) = (("ClusterRoleBinding", "ClusterRole"), ("RoleBinding", "Role"));
    let ((from_binding, from_role), (to_binding, to_role)) =
        if namespaced { (cluster, scoped) } else { (scoped, cluster) };
    if let Some(text) = plan.read(Path::new(ROLE_BINDING))? {
        let new = set_kind(&set_kind(&text, 0, from_binding, to_binding), 2, from_role, to_role);
        if new == text {
            anyhow::bail!(
                "{ROLE_BINDING}: no `kind: {from_binding}` with a `roleRef` of `kind: {from_role}` found, so kubesmith \
                 cannot make it a {to_binding}; restore the file as `kubesmith init` wrote it, or edit it by hand"
            );
        }
        edit::check(Path::new(ROLE_BINDING), &new, Lang::Yaml)?;
        plan.edit(ROLE_BINDING, new);
    }
    for rel in kind_roles(cwd)? {
        let text = plan.read_existing(&rel)?;
        let new = set_kind(&text, 0, from_role, to_role);
        if new != text {
            plan.edit(rel, new);
        }
    }

    // The Deployment tells the manager what to watch.
    if let Some(text) = plan.read(Path::new(MANAGER))? {
        let path = Path::new(MANAGER);
        let new = if namespaced { add_watch_namespace(path, &text)? } else { remove_watch_namespace(&text) };
        if new != text {
            edit::check(path, &new, Lang::Yaml)?;
            plan.edit(MANAGER, new);
        } else if !namespaced {
            plan.notes.push(format!("note: {MANAGER} sets no WATCH_NAMESPACE; the manager watches every namespace"));
        }
    }

    let mut file = pf.clone();
    file.namespaced = namespaced;
    plan.edit(PROJECT_FILE, file.to_yaml());

    // role.yaml follows the markers as they are now.
    manifests::plan_into(&mut plan, &targets)?;
    plan.notes.push(if namespaced {
        format!(
            "next: the manager now runs with a Role in its namespace and watches the namespaces in WATCH_NAMESPACE \
             (its own, {namespace} unless config/default changes it); markers you add name `namespace={namespace}`"
        )
    } else {
        "next: the manager now runs with the ClusterRole and watches every namespace".into()
    });
    Ok(plan)
}

/// The folders `kubesmith make manifests` (no flags) reads and writes in the project at `cwd`.
fn manifests_targets(cwd: &Path) -> Result<Targets> {
    manifests::targets(&manifests::Options::default(), cwd)
}

/// A namespace-scoped manager cannot reconcile cluster-scoped kinds: each is named with the way out.
fn refuse_cluster_scoped_controllers(pf: &ProjectFile) -> Result<()> {
    let cluster: Vec<String> = pf
        .resources
        .iter()
        .filter(|r| r.controller)
        .filter(|r| match &r.api {
            Some(api) if !r.is_foreign() => !api.namespaced,
            _ if r.external => !pf.external_namespaced(r),
            _ if r.core => crate::builtin::BuiltinGroup::resolve(&r.group)
                .and_then(|g| crate::builtin::k8s_gvk(&g.api_group, &r.version, &r.kind))
                .is_some_and(|b| !b.namespaced),
            _ => false,
        })
        .map(|r| r.kind.clone())
        .collect();
    if !cluster.is_empty() {
        return Err(UsageError(format!(
            "the project has controllers of cluster-scoped kinds ({}), which a namespace-scoped manager cannot \
             watch (its Role grants nothing outside its namespace); the manager stays cluster-scoped",
            cluster.join(", ")
        ))
        .into());
    }
    Ok(())
}

/// The per-kind helper roles in `config/rbac/`.
fn kind_roles(cwd: &Path) -> Result<Vec<PathBuf>> {
    let dir = cwd.join("config/rbac");
    let mut out = Vec::new();
    if !dir.is_dir() {
        return Ok(out);
    }
    for entry in std::fs::read_dir(&dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let name = entry?.file_name().to_string_lossy().to_string();
        if KIND_ROLE_SUFFIXES.iter().any(|s| name.ends_with(s)) {
            out.push(Path::new("config/rbac").join(name));
        }
    }
    out.sort();
    Ok(out)
}

/// `text` with its `kind: <from>` line at `indent` spaces made `kind: <to>` (the first one only).
fn set_kind(text: &str, indent: usize, from: &str, to: &str) -> String {
    let wanted = format!("{}kind: {from}", " ".repeat(indent));
    let mut done = false;
    text.split_inclusive('\n')
        .map(|line| {
            if !done && line.trim_end() == wanted {
                done = true;
                format!("{}kind: {to}{}", " ".repeat(indent), &line[wanted.len()..])
            } else {
                line.to_string()
            }
        })
        .collect()
}

/// `text` with the `WATCH_NAMESPACE` env entry where `init --namespaced` puts it: above the manager-env marker and
/// above the `<KIND>_IMAGE` entries `create api --image` added there since.
fn add_watch_namespace(path: &Path, text: &str) -> Result<String> {
    if text.lines().any(|l| l.trim() == "- name: WATCH_NAMESPACE") {
        return Ok(text.to_string());
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let Some(marker) = lines.iter().position(|l| l.trim() == MANAGER_ENV_MARKER) else {
        anyhow::bail!(
            "{}: the marker `{MANAGER_ENV_MARKER}` is missing, so kubesmith cannot add WATCH_NAMESPACE to the manager's \
             environment; put the marker back as the last line of the manager container's `env:` list and run the \
             command again",
            path.display()
        );
    };
    let is_image_entry = |at: usize| {
        lines[at].trim().strip_prefix("- name:").is_some_and(|n| n.trim().ends_with("_IMAGE"))
            && lines.get(at + 1).is_some_and(|l| l.trim_start().starts_with("value:"))
    };
    let mut at = marker;
    while at >= 2 && is_image_entry(at - 2) {
        at -= 2;
    }
    let indent: String = lines[marker].chars().take_while(|c| *c == ' ').collect();
    let block: String = WATCH_NAMESPACE_ENV[..6].iter().map(|l| format!("{indent}{l}\n")).collect();
    let out = format!("{}{block}{}", lines[..at].concat(), lines[at..].concat());
    edit::check(path, &out, Lang::Yaml)?;
    Ok(out)
}

/// `text` without the `WATCH_NAMESPACE` env entry (and the comment `init --namespaced` puts above it).
fn remove_watch_namespace(text: &str) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let Some(at) = lines.iter().position(|l| l.trim() == "- name: WATCH_NAMESPACE") else {
        return text.to_string();
    };
    let indent = lines[at].len() - lines[at].trim_start().len();
    let mut end = at + 1;
    while end < lines.len() {
        let l = lines[end];
        let own = l.len() - l.trim_start().len();
        if l.trim().is_empty() || own <= indent {
            break;
        }
        end += 1;
    }
    let mut start = at;
    for comment in WATCH_NAMESPACE_ENV[..2].iter().rev() {
        if start > 0 && lines[start - 1].trim() == *comment {
            start -= 1;
        }
    }
    lines[..start].iter().chain(&lines[end..]).copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANAGER_YAML: &str = "        env:\n        - name: POD_NAME\n          valueFrom:\n            fieldRef:\n              \
        fieldPath: metadata.name\n        # +kubesmith:scaffold:manager-env\n        ports: []\n";

    #[test]
    fn the_watch_namespace_entry_is_added_and_removed_again() {
        let added = add_watch_namespace(Path::new(MANAGER), MANAGER_YAML).unwrap();
        assert!(added.contains(
            "        - name: WATCH_NAMESPACE\n          valueFrom:\n            fieldRef:\n              \
             fieldPath: metadata.namespace\n        # +kubesmith:scaffold:manager-env\n"
        ));
        assert_eq!(add_watch_namespace(Path::new(MANAGER), &added).unwrap(), added);
        assert_eq!(remove_watch_namespace(&added), MANAGER_YAML);
        assert_eq!(remove_watch_namespace(MANAGER_YAML), MANAGER_YAML);
        // Above the images `create api --image` added, as `init --namespaced` has it.
        let images = MANAGER_YAML.replace(
            "        # +kubesmith",
            "        - name: A_IMAGE\n          value: a:1\n        - name: B_IMAGE\n          value: b:1\n        # +kubesmith",
        );
        let added = add_watch_namespace(Path::new(MANAGER), &images).unwrap();
        assert!(added.contains("metadata.namespace\n        - name: A_IMAGE\n"), "{added}");
        assert_eq!(remove_watch_namespace(&added), images);
    }
    #[test]
    fn without_the_marker_the_entry_cannot_be_placed() {
        let err = add_watch_namespace(Path::new(MANAGER), "env: []\n").unwrap_err().to_string();
        assert!(err.contains("config/manager/manager.yaml: the marker `# +kubesmith:scaffold:manager-env` is missing"));
    }

    #[test]
    fn kinds_change_only_at_their_indentation() {
        let binding = "kind: ClusterRoleBinding\nroleRef:\n  kind: ClusterRole\n  name: manager-role\nsubjects:\n\
            - kind: ServiceAccount\n";
        let scoped = set_kind(&set_kind(binding, 0, "ClusterRoleBinding", "RoleBinding"), 2, "ClusterRole", "Role");
        assert_eq!(
            scoped,
            "kind: RoleBinding\nroleRef:\n  kind: Role\n  name: manager-role\nsubjects:\n- kind: ServiceAccount\n"
        );
        assert_eq!(
            set_kind(&set_kind(&scoped, 0, "RoleBinding", "ClusterRoleBinding"), 2, "Role", "ClusterRole"),
            binding
        );
    }
}
