//! The RBAC half of `make manifests`: `role.yaml` from the markers and the inferred grants, the inference over the
//! sources as the plan leaves them (started beside the CRD generator when it can be), and the drift check.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::{ROLE_FILE, scan_markers, targets_of};
use crate::crd;
use crate::plan::Plan;
use crate::project::Project;
use crate::rbac::MANAGER_ROLE;

/// An inference started beside the CRD generator ([`plan_into`]).
pub(super) type EarlyInference<'s> = std::thread::ScopedJoinHandle<'s, Result<crate::rbac::infer::Inference>>;

/// The inference of `sources` for `bin`: the early one when there is one, else computed now.
pub(super) fn take_inference(
    plan: &Plan,
    sources: &[PathBuf],
    bin: Option<&str>,
    offline: bool,
    early: &mut Option<EarlyInference<'_>>,
) -> Result<crate::rbac::infer::Inference> {
    match early.take() {
        Some(handle) => handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        None => infer_in_plan(plan, sources, bin, offline),
    }
}

/// Plans `role.yaml` from `grants` (a Role in `manager_namespace` when the manager is namespace-scoped, else the
/// ClusterRole); returns whether it grants anything.
pub(super) fn write_role(
    plan: &mut Plan,
    rbac_dir: &Path,
    grants: &[crate::markers::Marker],
    manager_namespace: Option<&str>,
) -> Result<bool> {
    let mut roles = crate::rbac::generate(grants, MANAGER_ROLE);
    let grants_any = !roles.is_empty();
    if roles.is_empty() {
        roles.push(match manager_namespace {
            Some(namespace) => serde_json::json!({
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "Role",
                "metadata": { "name": MANAGER_ROLE, "namespace": namespace },
                "rules": [],
            }),
            None => serde_json::json!({
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRole",
                "metadata": { "name": MANAGER_ROLE },
                "rules": [],
            }),
        });
    }
    plan.write(rbac_dir.join(ROLE_FILE), crate::yaml::to_multi_doc_string(&roles))?;
    Ok(grants_any)
}

/// Plans the project's `role.yaml` from the RBAC markers (and, where PROJECT asks for it, the inferred grants) as
/// the plan leaves the sources: what `make manifests` writes, without its checks, so a controller `create api`
/// scaffolds has its rules at once and the project's `cargo test` passes against a real API server before the
/// first `make manifests`. Nothing outside a project or without an RBAC folder.
pub fn plan_role(plan: &mut Plan) -> Result<()> {
    let args = super::Options { no_compile: true, ..Default::default() };
    let targets = targets_of(&args, &plan.root.clone(), Project::planned(plan)?, Some(plan))?;
    let Some(rbac_dir) = &targets.rbac_dir else {
        return Ok(());
    };
    let mut grants = scan_markers(plan, &targets.sources, &[])?;
    if let Some(bin) = &targets.rbac_infer {
        grants.extend(inferred_grants(plan, &targets.sources, bin.as_deref(), targets.offline, &[])?);
    }
    write_role(plan, rbac_dir, &grants, targets.manager_namespace.as_deref())?;
    Ok(())
}

/// The resource a CRD compiled from a macro's kind names (its storage version).
pub(super) fn macro_resource(c: &crd::GeneratedCrd) -> crate::builtin::Resource {
    let text = |p: &str| c.crd.pointer(p).and_then(serde_json::Value::as_str).unwrap_or_default().to_string();
    let versions = c.crd.pointer("/spec/versions").and_then(serde_json::Value::as_array);
    let stored = versions.and_then(|vs| vs.iter().find(|v| v["storage"] == true).or(vs.first()));
    crate::builtin::Resource {
        group: c.group.clone(),
        version: stored.and_then(|v| v["name"].as_str()).unwrap_or_default().to_string(),
        kind: text("/spec/names/kind"),
        plural: c.plural.clone(),
        namespaced: text("/spec/scope") == "Namespaced",
    }
}

/// What the code needs (files as the plan leaves them), as one `+kubebuilder:rbac` marker per resource so it merges
/// with the markers' own rules; the inference's warnings become notes.
pub fn inferred_grants(
    plan: &mut Plan,
    sources: &[PathBuf],
    bin: Option<&str>,
    offline: bool,
    macro_types: &[(String, crate::builtin::Resource)],
) -> Result<Vec<crate::markers::Marker>> {
    let inference = infer_in_plan(plan, sources, bin, offline)?;
    grants_of(plan, inference, macro_types)
}

/// The grants of an inference, as RBAC markers; its warnings join the plan's notes.
pub(super) fn grants_of(
    plan: &mut Plan,
    mut inference: crate::rbac::infer::Inference,
    macro_types: &[(String, crate::builtin::Resource)],
) -> Result<Vec<crate::markers::Marker>> {
    inference.resolve_external(macro_types);
    let root = plan.root.clone();
    plan.notes.extend(crate::ops::rbac_infer::warning_lines(&inference, &root));
    let mut by_resource: std::collections::BTreeMap<(String, String), Vec<String>> = Default::default();
    for (group, resource, verb) in inference.grants() {
        by_resource.entry((group, resource)).or_default().push(verb);
    }
    Ok(by_resource
        .into_iter()
        .enumerate()
        .map(|(i, ((group, resource), verbs))| rbac_marker(i + 1, group, resource, verbs))
        .collect())
}

/// An RBAC marker granting `verbs` on `group`/`resource`, as `markers::scan` reads
/// `// +kubebuilder:rbac:groups=G,resources=R,verbs=V1;V2` at line `line` of `<inferred>`.
fn rbac_marker(line: usize, group: String, resource: String, verbs: Vec<String>) -> crate::markers::Marker {
    use crate::markers::MarkerValue::{List, String as Text};
    let list = |items: Vec<String>| List(items.into_iter().map(Text).collect());
    crate::markers::Marker {
        name: crate::rbac::RBAC_MARKER.to_string(),
        args: [("groups", list(vec![group])), ("resources", list(vec![resource])), ("verbs", list(verbs))]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        file: PathBuf::from("<inferred>"),
        line,
    }
}

/// Runs RBAC inference over the sources as the plan leaves them; `offline`: never run cargo to fetch missing
/// sources of kube-dependent crates (`--offline`).
pub(crate) fn infer_in_plan(
    plan: &Plan,
    sources: &[PathBuf],
    bin: Option<&str>,
    offline: bool,
) -> Result<crate::rbac::infer::Inference> {
    let root = plan.root.clone();
    let full: Vec<PathBuf> = sources.iter().map(|s| root.join(s)).collect();
    let read = |p: &Path| -> std::io::Result<String> {
        let rel = p.strip_prefix(&root).unwrap_or(p);
        match plan.read(rel) {
            Ok(Some(t)) => Ok(t),
            Ok(None) => Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
            Err(e) => Err(std::io::Error::other(e.to_string())),
        }
    };
    let display = |p: &Path| crate::ops::rbac_infer::display_path(p, &root);
    // The crates the sources call kube through (manifests and Cargo.lock: cargo runs only when the lock names one
    // whose source is not on disk, unless --offline).
    use crate::source::dependencies::fetch::{Fetch, kube_dependencies_fetching};
    let fetched = kube_dependencies_fetching(&full, None, if offline { Fetch::Never } else { Fetch::Missing });
    if let Some(note) = &fetched.note {
        crate::output::warn(note);
    }
    let infer = crate::rbac::infer::infer_with_dependencies(&full, &fetched.deps.found, bin, &read);
    let mut inference = infer.map_err(|e| match e {
        crate::rbac::infer::InferError::Source(e) => {
            let e = crate::source::SourceError { path: PathBuf::from(display(&e.path)), ..e };
            anyhow::Error::new(e).context("cannot read the sources to infer the RBAC the code needs")
        }
        other => anyhow::Error::new(other),
    })?;
    inference.resolve_external(&external_types(plan));
    inference.warnings.splice(0..0, crate::ops::rbac_infer::unread_warnings(&fetched, &full));
    Ok(inference)
}

/// The resources of the external types PROJECT records (`create api --external-api-path`), by type name.
pub(super) fn external_types(plan: &Plan) -> Vec<(String, crate::builtin::Resource)> {
    let Ok(Some(text)) = plan.read(Path::new(crate::project::PROJECT_FILE)) else { return Vec::new() };
    // Parsing PROJECT costs as much as the cached inference itself on a large project: only when it can matter.
    if !text.contains("external: true") {
        return Vec::new();
    }
    let Ok(pf) = crate::project::ProjectFile::parse(&text, Path::new(crate::project::PROJECT_FILE)) else {
        return Vec::new();
    };
    pf.resources
        .iter()
        .filter(|r| r.external)
        .map(|r| {
            let last = r.path.rsplit("::").next().unwrap_or_default();
            let type_name = if last.starts_with(|c: char| c.is_ascii_uppercase()) { last } else { &r.kind };
            let group = r.qualified_group();
            let plural = r.plural_name();
            let resource = crate::builtin::Resource {
                group,
                version: r.version.clone(),
                kind: r.kind.clone(),
                plural,
                namespaced: true,
            };
            (type_name.to_string(), resource)
        })
        .collect()
}

/// Infers what the code needs (files as the plan leaves them) and compares it with the RBAC markers; the
/// inference's own warnings and the drift's messages become notes.
pub(super) fn rbac_drift(
    plan: &mut Plan,
    mut inference: crate::rbac::infer::Inference,
    markers: &[crate::markers::Marker],
    bound: &[crate::rbac::bound::BoundRule],
    macro_types: &[(String, crate::builtin::Resource)],
) -> crate::rbac::drift::Drift {
    let root = plan.root.clone();
    let display = |p: &Path| crate::ops::rbac_infer::display_path(p, &root);
    inference.resolve_external(macro_types);
    let drift = crate::rbac::drift::check(markers, bound, &inference);
    plan.notes.extend(crate::ops::rbac_infer::warning_lines(&inference, &root));
    plan.notes.extend(drift.messages(&display));
    drift
}

/// The rules the project's own roles in `rbac_dir` (as the plan leaves them; the generated role left out) grant
/// the manager's service account: leader election, metrics authentication, roles the user added.
pub(super) fn bound_rules(plan: &Plan, rbac_dir: &Path) -> Result<Vec<crate::rbac::bound::BoundRule>> {
    let dir = plan.root.join(rbac_dir);
    let mut names: std::collections::BTreeSet<PathBuf> = std::collections::BTreeSet::new();
    if dir.is_dir() {
        for entry in std::fs::read_dir(&dir).with_context(|| format!("cannot list {}", dir.display()))? {
            let name = entry?.file_name();
            names.insert(rbac_dir.join(name));
        }
    }
    names.extend(plan.ops().iter().filter(|op| op.path.parent() == Some(rbac_dir)).map(|op| op.path.clone()));
    let mut files = Vec::new();
    for rel in names {
        let is_yaml = rel.extension().is_some_and(|e| e == "yaml" || e == "yml");
        if !is_yaml || rel.file_name().is_some_and(|n| n == ROLE_FILE) {
            continue;
        }
        if let Some(text) = plan.read(&rel)? {
            files.push((rel, text));
        }
    }
    Ok(crate::rbac::bound::manager_rules(&files, MANAGER_ROLE))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// The inferred grants are the markers a user would write for them.
    #[test]
    fn an_inferred_grant_is_the_marker_its_text_reads_as() {
        let grants = [
            ("", "pods", vec!["get", "list"]),
            ("apps", "deployments/status", vec!["*"]),
            ("cert-manager.io", "certificates", vec!["create"]),
        ];
        let text: String = grants
            .iter()
            .map(|(g, r, v)| {
                format!("// +{}:groups={g},resources={r},verbs={}\n", crate::rbac::RBAC_MARKER, v.join(";"))
            })
            .collect();
        let read = crate::markers::scan(Path::new("<inferred>"), &text).expect("markers");
        let built: Vec<_> = grants
            .iter()
            .enumerate()
            .map(|(i, (g, r, v))| {
                super::rbac_marker(i + 1, g.to_string(), r.to_string(), v.iter().map(|s| s.to_string()).collect())
            })
            .collect();
        assert_eq!(format!("{read:?}"), format!("{built:?}"));
    }
}
