//! `kubesmith edit --plugins <plugin>,...` (and `init --plugins`): adds optional plugins' files to a project and
//! records the plugins in PROJECT. The one plugin is `grafana` (`crate::grafana`).

use std::path::Path;

use anyhow::Result;

use crate::grafana;
use crate::plan::Plan;
use crate::project::{PROJECT_FILE, Project, ProjectFile};
use crate::usage::UsageError;

/// Checks the `--plugins` values: each must name a plugin kubesmith has.
pub fn check_names(plugins: &[String]) -> Result<()> {
    for name in plugins {
        if !grafana::is_named(name) {
            return Err(UsageError(format!(
                "unknown plugin `{name}` for --plugins: kubesmith has `grafana` (also spelled {}); deploy-image is \
                 `create api --image`, the Helm chart `make helm`",
                grafana::NAMES[1..].iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
            ))
            .into());
        }
    }
    Ok(())
}

/// Plans the plugins' files into `plan` and records them in `file` (the PROJECT the caller writes).
pub fn plan_into(plan: &mut Plan, file: &mut ProjectFile, plugins: &[String]) -> Result<()> {
    check_names(plugins)?;
    if plugins.iter().any(|p| grafana::is_named(p)) {
        if file.adopted() {
            plan.notes.push(
                "warning: this project was adopted: the dashboards chart the reconcile metrics kubesmith's scaffolded \
                 manager serves (controller_runtime_reconcile_*); they show data only if your manager serves them too"
                    .into(),
            );
        }
        grafana::plan_into(plan, &file.project_name)?;
        grafana::record(file);
    }
    Ok(())
}

/// Plans `kubesmith edit --plugins <plugins>` in the project at `cwd`.
pub fn plan(cwd: &Path, plugins: &[String]) -> Result<Plan> {
    check_names(plugins)?;
    let project = Project::load(cwd)?;
    let mut file = project.file.clone();
    let mut plan = Plan::new(cwd);
    plan_into(&mut plan, &mut file, plugins)?;
    if file != project.file {
        plan.edit(PROJECT_FILE, file.to_yaml());
    }
    Ok(plan)
}
