//! `kubesmith helm lint [DIR] [--set K=V]...`: `helm lint`'s checks ([`crate::helm::lint`]) on a chart folder;
//! prints every problem, exits 1 on errors.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::cli::HelmLintArgs;
use crate::usage::UsageError;

/// Every text file under `dir` (path inside it → text); other files are skipped.
fn chart_files(dir: &Path) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let full = dir.join(&rel);
        for e in std::fs::read_dir(&full).with_context(|| format!("failed to list {}", full.display()))? {
            let e = e.with_context(|| format!("failed to list {}", full.display()))?;
            let r = rel.join(e.file_name());
            if e.path().is_dir() {
                stack.push(r);
            } else if let Ok(text) = std::fs::read_to_string(e.path()) {
                out.insert(r.to_string_lossy().replace('\\', "/"), text);
            }
        }
    }
    Ok(out)
}

/// Runs the checks and prints what they found.
pub fn run(args: &HelmLintArgs, cwd: &Path) -> Result<()> {
    let dir = match &args.dir {
        Some(d) => d.clone(),
        None => crate::ops::helm::recorded_in(cwd)?.unwrap_or_else(|| PathBuf::from(crate::helm::DEFAULT_DIR)),
    };
    let full = cwd.join(&dir);
    if !full.join("Chart.yaml").is_file() {
        return Err(UsageError(format!(
            "{} holds no Chart.yaml: name a chart folder (`kubesmith make helm` writes one to dist/chart)",
            dir.display()
        ))
        .into());
    }
    let overrides = crate::helm::lint::set_values(&args.set).map_err(UsageError)?;
    let report = crate::helm::lint::lint(&chart_files(&full)?, &overrides);
    let shown = dir.to_string_lossy().trim_end_matches('/').to_string();
    for w in &report.warnings {
        crate::output::warn(format_args!("{shown}/{w}"));
    }
    for e in &report.errors {
        println!("error: {shown}/{e}");
    }
    if !report.errors.is_empty() {
        bail!("{shown}: {} error(s), {} warning(s)", report.errors.len(), report.warnings.len());
    }
    crate::output::info(format_args!("{shown}: 0 errors, {} warning(s)", report.warnings.len()));
    Ok(())
}
