//! The grafana plugin (kubebuilder's `grafana.kubebuilder.io/v1-alpha`, for kubesmith's manager): Grafana
//! dashboards for the metrics the scaffolded manager serves, and one for the metrics the user lists in
//! `grafana/custom-metrics/config.yaml`, planned into a `Plan`.
//!
//! **Invariant:** a dashboard queries only the samples and labels the manager serves (plus Prometheus' target
//! labels): `queries` (tests) parses every expression with promql-parser and checks it against `served::SERVED`,
//! and `served`'s tests read the same list from the scaffold's own metrics test, so the three cannot drift apart.
//! `grafana/custom-metrics/config.yaml` is written once, never overwritten.

pub(crate) mod custom;
pub(crate) mod dashboard;
pub(crate) mod runtime;
#[cfg(test)]
mod served;

#[cfg(test)]
mod queries;

use anyhow::Result;

use crate::plan::Plan;
use crate::project::ProjectFile;

/// Where PROJECT records the plugin: `plugins["grafana.rust.kubesmith.io/v1alpha1"]: {}`.
pub const PLUGIN_KEY: &str = "grafana.rust.kubesmith.io/v1alpha1";

/// The names `--plugins` accepts for this plugin: kubesmith's, and kubebuilder's long and short ones.
pub const NAMES: [&str; 4] = ["grafana", PLUGIN_KEY, "grafana.kubebuilder.io/v1-alpha", "grafana/v1-alpha"];

/// Whether `name` (a `--plugins` value) names this plugin.
pub fn is_named(name: &str) -> bool {
    NAMES.contains(&name)
}

/// Records the plugin in PROJECT; true when it was not recorded yet.
pub fn record(file: &mut ProjectFile) -> bool {
    if file.plugins.contains_key(PLUGIN_KEY) {
        return false;
    }
    file.plugins.insert(PLUGIN_KEY.into(), serde_json::json!({}));
    true
}

/// Whether PROJECT records the plugin.
pub fn recorded(file: &ProjectFile) -> bool {
    file.plugins.contains_key(PLUGIN_KEY)
}

/// Plans the dashboards of project `project_name` into `plan` (reading `grafana/` through it): the
/// controller-runtime dashboard (regenerated), `custom-metrics/config.yaml` (only when missing) and the custom
/// dashboard from the config's metrics. A config that does not parse is an error naming its line; the plan then
/// must not be applied. The notes list every dashboard's panels.
pub fn plan_into(plan: &mut Plan, project_name: &str) -> Result<()> {
    let config = custom::CONFIG_PATH.as_ref();
    let metrics = match plan.read(config)? {
        Some(text) => custom::parse(&text)?,
        None => {
            plan.create(config, custom::CONFIG_TEMPLATE.to_string());
            Vec::new()
        }
    };
    let runtime = runtime::dashboard(project_name);
    plan.write(runtime::PATH, runtime.to_json())?;
    let mut listing = vec![panel_list(runtime::PATH, &runtime)];
    if metrics.is_empty() {
        if plan.exists(custom::PATH.as_ref()) {
            plan.notes.push(format!(
                "note: {} lists no metrics: {} is left as it is (delete it if you no longer want it)",
                custom::CONFIG_PATH,
                custom::PATH
            ));
        }
    } else {
        let custom = custom::dashboard(project_name, &metrics);
        plan.write(custom::PATH, custom.to_json())?;
        listing.push(panel_list(custom::PATH, &custom));
    }
    plan.notes.push(format!(
        "Grafana dashboards (import each file in Grafana: Dashboards > New > Import, then pick the Prometheus data \
         source that scrapes the manager):\n{}",
        listing.join("\n")
    ));
    if metrics.is_empty() {
        plan.notes.push(format!(
            "next: list the metrics your code adds in {} and run `kubesmith edit --plugins grafana` again: {} charts \
             them",
            custom::CONFIG_PATH,
            custom::PATH
        ));
    }
    Ok(())
}

/// `  <path>: N panels` and one line per panel.
fn panel_list(path: &str, dashboard: &dashboard::Dashboard) -> String {
    let count = dashboard.panels.len();
    let mut out = format!("  {path}: {count} panel{}", if count == 1 { "" } else { "s" });
    for panel in &dashboard.panels {
        out.push_str(&format!("\n    - {}", panel.title));
    }
    out
}
