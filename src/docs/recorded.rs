//! The API reference page PROJECT records (`make docs` wrote it): where and in which format, and the page made
//! again from the CRDs a plan writes, which is how `make manifests` keeps it current.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::Value;

use super::{Format, PLUGIN_KEY};
use crate::plan::Plan;
use crate::project::{PROJECT_FILE, ProjectFile};

/// What PROJECT records (`plugins["docs.rust.kubesmith.io/v1alpha1"]`).
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    pub output: PathBuf,
    pub format: Format,
}

/// The page PROJECT records, if any.
pub fn recorded(file: &ProjectFile) -> Result<Option<Recorded>> {
    let Some(entry) = file.plugins.get(PLUGIN_KEY) else { return Ok(None) };
    let format = match entry.get("format").and_then(Value::as_str) {
        None => Format::Markdown,
        Some(name) => Format::parse(name).with_context(|| {
            format!(
                "PROJECT's plugins[\"{}\"].format is {name:?}: kubesmith knows markdown and asciidoc; fix it or run \
                 `kubesmith make docs --format markdown`",
                PLUGIN_KEY
            )
        })?,
    };
    let output = entry.get("output").and_then(Value::as_str).unwrap_or(format.default_output());
    Ok(Some(Recorded { output: PathBuf::from(output), format }))
}

/// The page the project in `cwd` records, read cheaply: a PROJECT without the plugin key is not parsed
/// (`make manifests` asks this on every run).
pub fn recorded_in(cwd: &Path) -> Result<Option<Recorded>> {
    let path = cwd.join(PROJECT_FILE);
    let Ok(text) = std::fs::read_to_string(&path) else { return Ok(None) };
    if !text.contains(PLUGIN_KEY) {
        return Ok(None);
    }
    recorded(&ProjectFile::parse(&text, &path)?)
}

/// The CRDs `plan` writes into `crd_dir` (`make manifests` plans every CRD it generates, changed or not).
pub fn planned_crds(plan: &Plan, crd_dir: &Path) -> Result<Vec<Value>> {
    let mut crds = Vec::new();
    for op in plan.ops() {
        let (Some(text), true) = (&op.contents, op.path.starts_with(crd_dir)) else { continue };
        let docs = crate::yaml::from_multi_doc_str(text)
            .with_context(|| format!("the planned {} is not valid YAML", op.path.display()))?;
        crds.extend(docs.into_iter().filter(|d| d["kind"] == "CustomResourceDefinition"));
    }
    crds.sort_by_key(|c| c.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("").to_string());
    Ok(crds)
}

/// Plans the page `recorded` names from the CRDs `plan` writes into `crd_dir`.
pub fn plan_into(plan: &mut Plan, crd_dir: &Path, k8s_version: &str, recorded: &Recorded) -> Result<()> {
    let crds = planned_crds(plan, crd_dir)?;
    let page = super::render(&crds, recorded.format, k8s_version);
    plan.write(recorded.output.clone(), format!("{page}\n"))
}
