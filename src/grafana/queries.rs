//! Tests of the dashboards as Grafana and Prometheus read them: every query parses as PromQL (promql-parser) and
//! names only samples and labels the scaffolded manager serves (`served::SERVED`); the JSON is a dashboard model.

use std::collections::BTreeSet;

use promql_parser::parser::{self, Expr, LabelModifier};
use serde_json::Value;

use super::custom::{self, MetricType};
use super::dashboard::{PANEL_TYPE, SCHEMA_VERSION};
use super::runtime;
use super::served::{self, TARGET_LABELS};

/// Grafana's interpolation of the variables a query may hold, so the text is PromQL.
fn interpolate(query: &str) -> String {
    query.replace("$__rate_interval", "5m")
}

/// Every vector selector and every grouping label of `expr`.
fn walk(expr: &Expr, selectors: &mut Vec<parser::VectorSelector>, grouping: &mut BTreeSet<String>) {
    let mut modifier = |m: &Option<LabelModifier>| {
        if let Some(m) = m {
            grouping.extend(m.labels().labels.iter().cloned());
        }
    };
    match expr {
        Expr::Aggregate(a) => {
            modifier(&a.modifier);
            walk(&a.expr, selectors, grouping);
            if let Some(p) = &a.param {
                walk(p, selectors, grouping);
            }
        }
        Expr::Binary(b) => {
            if let Some(m) = &b.modifier {
                modifier(&m.matching);
            }
            walk(&b.lhs, selectors, grouping);
            walk(&b.rhs, selectors, grouping);
        }
        Expr::Unary(u) => walk(&u.expr, selectors, grouping),
        Expr::Paren(p) => walk(&p.expr, selectors, grouping),
        Expr::Subquery(s) => walk(&s.expr, selectors, grouping),
        Expr::Call(c) => c.args.args.iter().for_each(|a| walk(a, selectors, grouping)),
        Expr::VectorSelector(v) => selectors.push(v.clone()),
        Expr::MatrixSelector(m) => selectors.push(m.vs.clone()),
        Expr::NumberLiteral(_) | Expr::StringLiteral(_) | Expr::Extension(_) => {}
    }
}

/// Checks that `query` parses and names only served samples, each with served or target labels, and groups only
/// by labels of the samples it reads; returns the sample names.
fn check_served(query: &str) -> Vec<String> {
    let expr = parser::parse(&interpolate(query)).unwrap_or_else(|e| panic!("`{query}` is not PromQL: {e}"));
    let (mut selectors, mut grouping) = (Vec::new(), BTreeSet::new());
    walk(&expr, &mut selectors, &mut grouping);
    assert!(!selectors.is_empty(), "`{query}` reads no metric");
    let mut readable: BTreeSet<&str> = TARGET_LABELS.iter().copied().collect();
    let mut names = Vec::new();
    for selector in &selectors {
        let name = selector.name.as_deref().unwrap_or_else(|| panic!("`{query}`: a selector without a metric name"));
        let served =
            served::find(name).unwrap_or_else(|| panic!("`{query}` names `{name}`, which /metrics does not serve"));
        for matcher in &selector.matchers.matchers {
            assert!(
                served.labels.contains(&matcher.name.as_str()) || TARGET_LABELS.contains(&matcher.name.as_str()),
                "`{query}` matches label `{}` of `{name}`, which it does not have",
                matcher.name
            );
        }
        assert!(selector.matchers.or_matchers.is_empty(), "`{query}`: `or` matchers are not used");
        readable.extend(served.labels.iter().copied());
        names.push(name.to_string());
    }
    for label in &grouping {
        assert!(readable.contains(label.as_str()), "`{query}` groups by `{label}`, which no sample it reads has");
    }
    names
}

/// `label_values(<selector>, <label>)`: the selector and the label.
fn label_values(query: &str) -> (&str, &str) {
    let inner = query.strip_prefix("label_values(").and_then(|q| q.strip_suffix(')')).expect("label_values(...)");
    let (selector, label) = inner.rsplit_once(',').expect("label_values(selector, label)");
    (selector.trim(), label.trim())
}

/// Checks the JSON model: a schema version, unique panel ids, each panel with a type, a grid place, a Prometheus
/// data source and targets with unique refIds and an expression; returns every query (targets and variables).
fn check_model(json: &str) -> Vec<String> {
    let model: Value = serde_json::from_str(json).expect("the dashboard is JSON");
    assert_eq!(model["schemaVersion"].as_u64(), Some(SCHEMA_VERSION));
    assert!(model["uid"].as_str().is_some_and(|s| !s.is_empty() && s.len() <= 40), "a uid of 1 to 40 characters");
    assert!(model["title"].as_str().is_some_and(|s| !s.is_empty()), "a title");
    let panels = model["panels"].as_array().expect("panels");
    assert!(!panels.is_empty());
    let ids: BTreeSet<u64> = panels.iter().map(|p| p["id"].as_u64().expect("a panel id")).collect();
    assert_eq!(ids.len(), panels.len(), "panel ids are unique");
    let mut queries = Vec::new();
    for panel in panels {
        assert_eq!(panel["type"], PANEL_TYPE);
        assert_eq!(panel["datasource"]["type"], "prometheus");
        assert_eq!(panel["datasource"]["uid"], "${datasource}");
        for key in ["h", "w", "x", "y"] {
            assert!(panel["gridPos"][key].is_u64(), "gridPos.{key}");
        }
        let targets = panel["targets"].as_array().expect("targets");
        assert!(!targets.is_empty(), "{panel}");
        let refs: BTreeSet<&str> = targets.iter().map(|t| t["refId"].as_str().expect("refId")).collect();
        assert_eq!(refs.len(), targets.len(), "refIds are unique within a panel");
        for target in targets {
            assert_eq!(target["datasource"], panel["datasource"]);
            queries.push(target["expr"].as_str().expect("expr").to_string());
        }
    }
    let variables = model["templating"]["list"].as_array().expect("templating.list");
    assert_eq!(variables[0]["name"], "datasource");
    assert_eq!(variables[0]["query"], "prometheus");
    for variable in &variables[1..] {
        let query = variable["query"]["query"].as_str().expect("a variable query").to_string();
        let (_, label) = label_values(&query);
        // Every query's `$variable` is defined.
        assert!(!label.is_empty());
        queries.push(query);
    }
    let defined: BTreeSet<String> = variables.iter().map(|v| format!("${}", v["name"].as_str().unwrap())).collect();
    for query in &queries {
        for (i, _) in query.match_indices('$') {
            let name: String =
                query[i..].chars().take_while(|c| *c == '$' || c.is_ascii_alphanumeric() || *c == '_').collect();
            assert!(name == "$__rate_interval" || defined.contains(&name), "`{query}` uses undefined `{name}`");
        }
    }
    queries
}

#[test]
fn runtime_dashboard_queries_only_what_the_manager_serves() {
    let json = runtime::dashboard("memcached-operator").to_json();
    let mut read = BTreeSet::new();
    for query in check_model(&json) {
        if query.starts_with("label_values(") {
            let (selector, label) = label_values(&query);
            read.extend(check_served(selector));
            let name = selector.split('{').next().unwrap();
            let served = served::find(name).unwrap();
            assert!(served.labels.contains(&label) || TARGET_LABELS.contains(&label), "`{query}`");
        } else {
            read.extend(check_served(&query));
        }
    }
    // Every served sample is charted.
    let all: BTreeSet<String> = served::SERVED.iter().map(|s| s.name.to_string()).collect();
    assert_eq!(read, all);
}

#[test]
fn a_query_naming_an_unserved_metric_or_label_is_caught() {
    for query in [
        "sum(rate(workqueue_depth[5m]))",
        r#"sum(rate(controller_runtime_reconcile_total{kind="x"}[5m]))"#,
        "sum by (error) (rate(controller_runtime_reconcile_total[5m]))",
        "rate(controller_runtime_reconcile_total[5m]",
    ] {
        assert!(std::panic::catch_unwind(|| check_served(query)).is_err(), "{query} passed");
    }
}

#[test]
fn custom_dashboard_queries_parse() {
    let metrics = custom::parse(&format!(
        "{}  - metric: foo_total\n    type: counter\n  - metric: lat_seconds\n    type: histogram\n  - metric: \
         depth\n    type: gauge\n  - metric: ratio\n    expr: sum(rate(foo_total[$__rate_interval])) / 2\n",
        custom::CONFIG_TEMPLATE
    ))
    .unwrap();
    let json = custom::dashboard("memcached-operator", &metrics).to_json();
    let queries = check_model(&json);
    assert_eq!(queries.len(), 4 + 2, "four panels and the job and namespace variables");
    for query in queries {
        if let Some(selector) = query.strip_prefix("label_values(") {
            check_served(label_values(&format!("label_values({selector}")).0);
        } else {
            parser::parse(&interpolate(&query)).unwrap_or_else(|e| panic!("`{query}` is not PromQL: {e}"));
        }
    }
    for kind in [MetricType::Counter, MetricType::Gauge, MetricType::Histogram] {
        let (query, _) = custom::default_query("x_total", kind);
        parser::parse(&interpolate(&query)).unwrap();
    }
}

#[test]
fn dashboards_are_deterministic() {
    assert_eq!(runtime::dashboard("a").to_json(), runtime::dashboard("a").to_json());
    assert_eq!(runtime::uid(&"x".repeat(60), "controller-runtime").len(), 40);
}
