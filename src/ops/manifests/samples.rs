//! The sample check of `make manifests`: the samples in `config/samples/` the CRDs just generated would refuse.

use std::path::{Path, PathBuf};

use crate::crd;
use crate::plan::Plan;

/// A CRD this run generated: its group and kind, the file it is planned to, whether it differs from that file, and
/// when the file was last written.
pub(super) struct SeenCrd {
    pub(super) group: String,
    pub(super) kind: String,
    pub(super) path: PathBuf,
    pub(super) changed: bool,
    pub(super) modified: Option<std::time::SystemTime>,
}

/// The samples in `config/samples/` their CRD (as just generated) would refuse: one warning per problem, naming
/// the file (`make bundle` refuses them as alm-examples). Checked where it can have changed: every sample when a
/// CRD changes in this run, else the samples edited since the newest CRD file was written; an up-to-date run only
/// looks at the files' times.
pub(super) fn sample_warnings(plan: &Plan, seen: &[SeenCrd]) -> Vec<String> {
    let root = plan.root.as_path();
    let dir = root.join("config/samples");
    let Ok(entries) = std::fs::read_dir(&dir) else { return Vec::new() };
    if seen.is_empty() {
        return Vec::new();
    }
    let any_changed = seen.iter().any(|c| c.changed);
    let newest = seen.iter().map(|c| c.modified).max().flatten();
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            (name.ends_with(".yaml") || name.ends_with(".yml")) && name != "kustomization.yaml"
        })
        .filter(|e| {
            any_changed
                || match (newest, e.metadata().and_then(|m| m.modified())) {
                    (Some(crd), Ok(sample)) => sample > crd,
                    _ => true,
                }
        })
        .map(|e| e.path())
        .collect();
    if files.is_empty() {
        return Vec::new();
    }
    files.sort();
    // Each CRD a sample names is read back from its planned text once.
    let mut crds: std::collections::HashMap<&Path, Option<serde_json::Value>> = Default::default();
    let mut crd_of = |group: &str, kind: &str| -> Option<serde_json::Value> {
        let seen = seen.iter().find(|c| c.group == group && c.kind == kind)?;
        crds.entry(seen.path.as_path())
            .or_insert_with(|| {
                let text = plan.read(&seen.path).ok().flatten()?;
                crate::yaml::from_multi_doc_str(&text).ok()?.into_iter().next()
            })
            .clone()
    };
    let mut out = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        let rel = file.strip_prefix(root).unwrap_or(&file).display().to_string();
        let docs = match crate::yaml::from_multi_doc_str(&text) {
            Ok(d) => d,
            Err(e) => {
                out.push(format!("warning: {rel}: not valid YAML: {e}"));
                continue;
            }
        };
        for doc in docs {
            let name = doc["metadata"]["name"].as_str().unwrap_or("?").to_string();
            let group = doc["apiVersion"].as_str().and_then(|a| a.rsplit_once('/')).map_or("", |(g, _)| g);
            let crd: Vec<serde_json::Value> =
                crd_of(group, doc["kind"].as_str().unwrap_or_default()).into_iter().collect();
            for p in crd::instance::problems(&crd, &doc).unwrap_or_default() {
                out.push(format!(
                    "warning: {rel}: {} {name}: {p} (its CRD would refuse it; make bundle refuses it in alm-examples)",
                    doc["kind"].as_str().unwrap_or("?")
                ));
            }
        }
    }
    out
}
