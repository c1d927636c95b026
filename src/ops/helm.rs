//! The Helm chart of a project (`make helm`, and `make manifests` keeping a recorded chart current): renders `config/default` with `kubectl kustomize` ([`crate::helm::source`]), builds the
//! chart ([`crate::helm::chart`]), merges it with the chart already there ([`crate::helm::update`]: the user's
//! values and files are kept), refuses a chart that fails `helm lint`'s checks, and records the chart in PROJECT
//! so that `make manifests` keeps it current ([`plan_into`], which reads the project as a plan leaves it).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::json;

use crate::helm::{self, chart, update};
use crate::plan::Plan;
use crate::project::{PROJECT_FILE, Project, ProjectFile};

/// The chart folder PROJECT records (`plugins["helm.rust.kubesmith.io/v1alpha1"].output`), if any.
pub fn recorded_dir(file: &ProjectFile) -> Option<PathBuf> {
    let entry = file.plugins.get(helm::PLUGIN_KEY)?;
    Some(PathBuf::from(entry.get("output").and_then(|o| o.as_str()).unwrap_or(helm::DEFAULT_DIR)))
}

/// The chart folder the project in `cwd` records, read cheaply: a PROJECT without the plugin key is not parsed
/// (`make manifests` asks this on every run).
pub fn recorded_in(cwd: &Path) -> Result<Option<PathBuf>> {
    let path = cwd.join(PROJECT_FILE);
    let Ok(text) = std::fs::read_to_string(&path) else { return Ok(None) };
    if !text.contains(helm::PLUGIN_KEY) {
        return Ok(None);
    }
    Ok(recorded_dir(&ProjectFile::parse(&text, &path)?))
}

/// The crate's version (`[package] version`, or the workspace's), for `appVersion`.
fn crate_version(plan: &Plan) -> Result<Option<String>> {
    let Some(text) = plan.read(Path::new("Cargo.toml"))? else { return Ok(None) };
    let doc: toml_edit::DocumentMut = text.parse().context("Cargo.toml is not valid TOML")?;
    let workspace = doc.get("workspace").and_then(|w| w.get("package")).and_then(|p| p.get("version"));
    let version = match doc.get("package").and_then(|p| p.get("version")) {
        Some(v) if v.as_str().is_some() => v.as_str().map(str::to_string),
        Some(_) | None => workspace.and_then(|v| v.as_str()).map(str::to_string),
    };
    Ok(version)
}

/// Every file under the chart folder as the plan leaves it (path inside the chart → text).
fn existing_files(plan: &Plan, dir: &Path) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let full = plan.root.join(dir).join(&rel);
        let Ok(entries) = std::fs::read_dir(&full) else { continue };
        for e in entries {
            let e = e.with_context(|| format!("failed to list {}", full.display()))?;
            let r = rel.join(e.file_name());
            if e.path().is_dir() {
                stack.push(r);
            } else if let Ok(Some(text)) = plan.read(&dir.join(&r)) {
                out.insert(r.to_string_lossy().replace('\\', "/"), text);
            }
        }
    }
    for op in plan.ops() {
        if let Ok(r) = op.path.strip_prefix(dir) {
            let key = r.to_string_lossy().replace('\\', "/");
            match &op.contents {
                Some(text) => out.insert(key, text.clone()),
                None => out.remove(&key),
            };
        }
    }
    Ok(out)
}

/// Plans the chart in `dir` from the project as `plan` leaves it: templates, values.yaml (merged), its schema,
/// Chart.yaml, helpers, NOTES.txt and .helmignore; removes owned templates that no longer belong. Returns the
/// namespace config/default installs into.
pub fn plan_into(plan: &mut Plan, dir: &Path) -> Result<String> {
    let project = ProjectFile::parse(&plan.read_existing(Path::new(PROJECT_FILE))?, Path::new(PROJECT_FILE))?;
    let name = project.project_name.clone();
    if !crate::names::is_dns1123_label(&name) {
        bail!("PROJECT's projectName {name:?} is no DNS-1123 label, which a chart's name must be: fix projectName");
    }
    let app_version = match crate_version(plan)? {
        Some(v) => v,
        None => {
            plan.notes.push("note: Cargo.toml has no package version; the chart's appVersion is 0.1.0".into());
            "0.1.0".into()
        }
    };
    let source = helm::source::render(plan)?;
    let built = chart::build(&source, &chart::Options { name: name.clone() })?;
    let existing = existing_files(plan, dir)?;
    let shown = dir.to_string_lossy().trim_end_matches('/').to_string();
    let meta = update::Meta { name: name.clone(), app_version, dir: shown.clone() };
    let up = update::update(&existing, &built, &meta)?;

    let mut after = existing;
    for p in &up.delete {
        after.remove(p);
    }
    after.extend(up.write.iter().map(|(p, t)| (p.clone(), t.clone())));
    let report = helm::lint::lint(&after, &json!({}));
    if !report.errors.is_empty() {
        bail!(
            "the chart in {shown} would fail `helm lint` ({} problem(s)); nothing was written:\n  {}",
            report.errors.len(),
            report.errors.join("\n  ")
        );
    }
    plan.notes.extend(up.notes);
    plan.notes.extend(report.warnings.into_iter().map(|w| format!("warning: {shown}/{w}")));
    for (p, text) in up.write {
        plan.write(dir.join(p), text)?;
    }
    for p in up.delete {
        plan.delete(dir.join(p));
    }
    Ok(source.namespace)
}

/// Plans `make helm`: the chart, and its entry in PROJECT.
/// `output_dir` is `--output-dir`: default the folder PROJECT records, else dist/chart.
pub(crate) fn plan(output_dir: Option<&Path>, cwd: &Path) -> Result<Plan> {
    if !cwd.join(PROJECT_FILE).is_file() {
        anyhow::bail!(
            "no PROJECT file in {} or above it: make helm builds the chart of a kubesmith project (`kubesmith init` or `kubesmith \
             adopt` makes one)",
            cwd.display()
        );
    }
    let project = Project::load(cwd)?;
    let dir = output_dir
        .map(Path::to_path_buf)
        .or_else(|| recorded_dir(&project.file))
        .unwrap_or_else(|| PathBuf::from(helm::DEFAULT_DIR));
    let mut plan = Plan::new(cwd);
    if dir != Path::new(helm::DEFAULT_DIR) {
        plan.outside_ok.push(dir.clone());
    }
    let namespace = plan_into(&mut plan, &dir)?;
    let mut file = project.file.clone();
    let entry = json!({ "output": dir.to_string_lossy().trim_end_matches('/') });
    if file.plugins.get(helm::PLUGIN_KEY) != Some(&entry) {
        file.plugins.insert(helm::PLUGIN_KEY.into(), entry);
        plan.edit(PROJECT_FILE, file.to_yaml());
    }
    let shown = dir.to_string_lossy().trim_end_matches('/').to_string();
    plan.notes.push(format!(
        "next: `helm install {name} {shown} --namespace {namespace} --create-namespace` (a release named {name} \
         gets the names `make deploy` gives); `kubesmith make manifests` keeps the chart current",
        name = project.file.project_name
    ));
    Ok(plan)
}
