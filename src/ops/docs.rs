//! The API reference page (`make docs`): the page of the project's own kinds ([`crate::docs`]), built from the CRDs
//! `make manifests` plans (in memory: external kinds left out, compiled-fallback kinds included), and its record in
//! PROJECT, after which `make manifests` keeps the page current ([`crate::docs::recorded`]).

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::json;

use crate::docs::recorded::{Recorded, planned_crds, recorded};
use crate::docs::{self, Format};
use crate::plan::Plan;
use crate::project::{PROJECT_FILE, Project};

/// Plans `make docs`: the CRDs as `make manifests` would write them (nothing of them is written), the page, and
/// its entry in PROJECT.
/// `output` and `format` are `--output` and `--format` (default: what PROJECT records, else markdown at
/// docs/api-reference.md).
pub(crate) fn plan(output: Option<&Path>, format: Option<Format>, cwd: &Path) -> Result<Plan> {
    if !cwd.join(PROJECT_FILE).is_file() {
        anyhow::bail!(
            "no PROJECT file in {} or above it: make docs documents the kinds of a kubesmith project (`kubesmith init` or \
             `kubesmith adopt` makes one)",
            cwd.display()
        );
    }
    let project = Project::load(cwd)?;
    let before = recorded(&project.file)?;
    let (asked, outside) = (format, output.is_some());
    let format = format.unwrap_or_else(|| before.as_ref().map_or(Format::Markdown, |r| r.format));
    let output = match (output, &before) {
        (Some(o), _) => o.to_path_buf(),
        (None, Some(r)) if asked.is_none() || r.format == format => r.output.clone(),
        _ => PathBuf::from(format.default_output()),
    };
    let mut targets = crate::ops::manifests::targets(&crate::ops::manifests::Options::default(), cwd)?;
    targets.rbac_dir = None;
    targets.webhook_dir = None;
    let crd_dir = targets.crd_dir.clone().unwrap_or_else(|| PathBuf::from("config/crd/bases"));
    let mut manifests = Plan::new(cwd);
    let problems = crate::ops::manifests::plan_into(&mut manifests, &targets)?;
    if !problems.is_empty() {
        return Err(problems.into_error(cwd).context("the API reference is made from the CRDs, which failed"));
    }
    let mut plan = Plan::new(cwd);
    if outside {
        plan.outside_ok.push(output.clone());
    }
    let record = Recorded { output: output.clone(), format };
    let page = docs::render(&planned_crds(&manifests, &crd_dir)?, format, targets.k8s.version());
    plan.write(output.clone(), format!("{page}\n"))?;
    let mut file = project.file.clone();
    let mut entry = json!({ "output": output.to_string_lossy() });
    if format != Format::Markdown {
        entry["format"] = json!(format.name());
    }
    if file.plugins.get(docs::PLUGIN_KEY) != Some(&entry) {
        file.plugins.insert(docs::PLUGIN_KEY.into(), entry);
        plan.edit(PROJECT_FILE, file.to_yaml());
    }
    if before.as_ref().is_some_and(|b| b.output != record.output) {
        plan.notes.push(format!(
            "note: PROJECT now records {} as the API reference; the previous page stays where it was",
            output.display()
        ));
    } else if before.is_none() {
        plan.notes.push("next: `kubesmith make manifests` now keeps the API reference current".into());
    }
    Ok(plan)
}
