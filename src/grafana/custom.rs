//! Custom metrics: `grafana/custom-metrics/config.yaml` (the metrics the user's code adds, written once and never
//! overwritten) and the dashboard generated from it, `grafana/custom-metrics/custom-metrics-dashboard.json`.

use anyhow::Result;
use serde::Deserialize;

use super::dashboard::{Dashboard, Panel, Target};

/// The user's list of metrics.
pub const CONFIG_PATH: &str = "grafana/custom-metrics/config.yaml";
/// The dashboard generated from it.
pub const PATH: &str = "grafana/custom-metrics/custom-metrics-dashboard.json";

/// What `edit --plugins grafana` writes at [`CONFIG_PATH`] when there is no file yet.
pub const CONFIG_TEMPLATE: &str = "\
---
# Metrics your code adds to the manager's /metrics (registered in the manager's prometheus_client Registry).
# `kubesmith edit --plugins grafana` charts each in custom-metrics-dashboard.json; run it again after editing
# this file (it never overwrites this file).
#
#  - metric: # the sample name Prometheus stores, e.g. memcached_pods_ready or memcached_restarts_total
#            # (required unless expr is given)
#    type:   # counter, gauge or histogram (required unless expr is given)
#    expr:   # the panel's PromQL (optional; else made from metric and type)
#    unit:   # Grafana unit: none, s, bytes, percent, ops, ... (optional; default none)
#
# Example:
# customMetrics:
#   - metric: memcached_restarts_total
#     type: counter
#     unit: ops
#   - metric: memcached_backup_duration_seconds
#     type: histogram
#     unit: s
customMetrics:
";

/// One metric of the config, as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Item {
    metric: Option<String>,
    #[serde(rename = "type")]
    kind: Option<MetricType>,
    expr: Option<String>,
    unit: Option<String>,
}

/// A metric's type; the config spells it in any case, as kubebuilder's plugin reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub enum MetricType {
    Counter,
    Gauge,
    Histogram,
}

impl TryFrom<String> for MetricType {
    type Error = String;

    fn try_from(value: String) -> Result<Self, String> {
        match value.to_ascii_lowercase().as_str() {
            "counter" => Ok(MetricType::Counter),
            "gauge" => Ok(MetricType::Gauge),
            "histogram" => Ok(MetricType::Histogram),
            _ => Err(format!("unknown metric type `{value}`, expected counter, gauge or histogram")),
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Config {
    custom_metrics: Option<Vec<Item>>,
}

/// One metric to chart: a title and a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomMetric {
    pub title: String,
    pub expr: String,
    pub legend: String,
    pub unit: String,
}

/// The error for the config at `line:column`, with what to do.
fn config_error(line: usize, column: usize, message: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "{CONFIG_PATH}:{line}:{column}: {message}; each item of `customMetrics` takes `metric` (a metric name) and \
         `type` (counter, gauge or histogram), or an `expr`, and optionally `unit`: fix the file and run `kubesmith \
         edit --plugins grafana` again (nothing was written)"
    )
}

/// Whether `name` is a Prometheus metric name.
fn is_metric_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

/// The 1-based lines where the items of the top-level `customMetrics` list start (block style).
fn item_lines(text: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    let mut inside = false;
    let mut indent = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let depth = line.len() - trimmed.len();
        if depth == 0 && !trimmed.starts_with('-') {
            inside = trimmed.starts_with("customMetrics:");
            continue;
        }
        if inside && trimmed.starts_with('-') && *indent.get_or_insert(depth) == depth {
            lines.push(i + 1);
        }
    }
    lines
}

/// The metrics `text` (the contents of [`CONFIG_PATH`]) lists, each with its query; errors name the file and line.
pub fn parse(text: &str) -> Result<Vec<CustomMetric>> {
    let has_content = text.lines().any(|l| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with('#') && t != "---"
    });
    if !has_content {
        return Ok(Vec::new());
    }
    let config: Config = crate::yaml::from_str_as::<Option<Config>>(text)
        .map_err(|(message, place)| {
            let (line, column) = place.unwrap_or((1, 1));
            config_error(line, column, &message)
        })?
        .unwrap_or_default();
    let lines = item_lines(text);
    let mut out = Vec::new();
    for (i, item) in config.custom_metrics.unwrap_or_default().into_iter().enumerate() {
        let line = lines.get(i).copied().unwrap_or(1);
        let at = |message: String| config_error(line, 1, &format!("customMetrics[{i}]: {message}"));
        if let Some(metric) = &item.metric
            && !is_metric_name(metric)
        {
            return Err(at(format!(
                "`{metric}` is not a Prometheus metric name (letters, digits, `_` and `:`, not starting with a digit)"
            )));
        }
        let unit = item.unit.clone().unwrap_or_else(|| "none".into());
        let metric = match (item.expr, item.metric, item.kind) {
            (Some(expr), metric, _) if !expr.trim().is_empty() => {
                CustomMetric { title: metric.unwrap_or_else(|| expr.clone()), expr, legend: String::new(), unit }
            }
            (_, Some(metric), Some(kind)) => {
                let (expr, legend) = default_query(&metric, kind);
                CustomMetric { title: metric, expr, legend, unit }
            }
            (_, None, _) => return Err(at("`metric` is missing (or give an `expr`)".into())),
            (_, Some(metric), None) => {
                return Err(at(format!("`type` is missing for `{metric}`: counter, gauge or histogram")));
            }
        };
        out.push(metric);
    }
    Ok(out)
}

/// The query of a metric without `expr`, as kubebuilder's plugin makes it, and its series name: a counter's rate
/// per instance and pod, a histogram's 90th percentile per instance, a gauge's value.
pub fn default_query(metric: &str, kind: MetricType) -> (String, String) {
    let matchers = r#"{job="$job", namespace="$namespace"}"#;
    match kind {
        MetricType::Counter => {
            (format!("sum by (instance, pod) (rate({metric}{matchers}[$__rate_interval]))"), "{{pod}}".into())
        }
        MetricType::Histogram => {
            let buckets = if metric.ends_with("_bucket") { metric.to_string() } else { format!("{metric}_bucket") };
            (
                format!("histogram_quantile(0.9, sum by (instance, le) (rate({buckets}{matchers}[$__rate_interval])))"),
                "{{instance}} p90".into(),
            )
        }
        MetricType::Gauge => (format!("{metric}{matchers}"), "{{pod}}".into()),
    }
}

/// The dashboard of `metrics` for project `project_name`.
pub fn dashboard(project_name: &str, metrics: &[CustomMetric]) -> Dashboard {
    Dashboard {
        uid: super::runtime::uid(project_name, "custom-metrics"),
        title: format!("{project_name} / Custom Metrics"),
        description: format!(
            "The metrics {CONFIG_PATH} lists (generated by `kubesmith edit --plugins grafana`: edit that file, not \
             this one)"
        ),
        tags: vec!["kubesmith".into(), "custom-metrics".into(), project_name.into()],
        variables: super::runtime::target_variables(),
        panels: metrics
            .iter()
            .map(|m| Panel {
                title: m.title.clone(),
                description: String::new(),
                unit: m.unit.clone(),
                targets: vec![Target { expr: m.expr.clone(), legend: m.legend.clone() }],
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_lists_nothing() {
        assert_eq!(parse(CONFIG_TEMPLATE).unwrap(), []);
        assert_eq!(parse("").unwrap(), []);
    }

    #[test]
    fn items_get_their_queries() {
        let text = format!(
            "{CONFIG_TEMPLATE}  - metric: foo_total\n    type: counter\n    unit: ops\n  - metric: lat_seconds\n    \
             type: Histogram\n  - metric: depth\n    type: gauge\n  - expr: sum(up)\n"
        );
        let got = parse(&text).unwrap();
        let exprs: Vec<&str> = got.iter().map(|m| m.expr.as_str()).collect();
        assert_eq!(
            exprs,
            [
                r#"sum by (instance, pod) (rate(foo_total{job="$job", namespace="$namespace"}[$__rate_interval]))"#,
                r#"histogram_quantile(0.9, sum by (instance, le) (rate(lat_seconds_bucket{job="$job", namespace="$namespace"}[$__rate_interval])))"#,
                r#"depth{job="$job", namespace="$namespace"}"#,
                "sum(up)",
            ]
        );
        assert_eq!(got[0].unit, "ops");
        assert_eq!(got[1].unit, "none");
        assert_eq!(got[3].title, "sum(up)");
    }

    fn error(text: &str) -> String {
        format!("{:#}", parse(text).unwrap_err())
    }

    #[test]
    fn an_unknown_type_is_refused_at_its_line() {
        let e = error("---\ncustomMetrics:\n  - metric: foo\n    type: summary\n");
        assert!(e.starts_with("grafana/custom-metrics/config.yaml:3:5: customMetrics[0]: "), "{e}");
        assert!(e.contains("unknown metric type `summary`"), "{e}");
        assert!(e.contains("counter, gauge or histogram"), "{e}");
    }

    #[test]
    fn a_missing_type_or_metric_is_refused_at_its_item() {
        let e = error("customMetrics:\n  - metric: ok_total\n    type: counter\n  - metric: foo\n");
        assert!(e.starts_with("grafana/custom-metrics/config.yaml:4:1: customMetrics[1]: `type` is missing"), "{e}");
        let e = error("customMetrics:\n- unit: s\n");
        assert!(e.starts_with("grafana/custom-metrics/config.yaml:2:1: customMetrics[0]: `metric` is missing"), "{e}");
    }

    #[test]
    fn malformed_yaml_and_unknown_keys_are_refused() {
        let e = error("customMetrics:\n  - metric: [foo\n");
        assert!(e.starts_with("grafana/custom-metrics/config.yaml:"), "{e}");
        let e = error("customMetrics:\n  - metrc: foo\n    type: gauge\n");
        assert!(e.starts_with("grafana/custom-metrics/config.yaml:2:"), "{e}");
        assert!(e.contains("unknown field `metrc`"), "{e}");
        let e = error("customMetrics:\n  - metric: 9lives\n    type: gauge\n");
        assert!(e.contains("`9lives` is not a Prometheus metric name"), "{e}");
    }
}
