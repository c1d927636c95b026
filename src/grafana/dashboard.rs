//! The Grafana dashboard model kubesmith writes: dashboards of time-series panels over a Prometheus data source
//! chosen by a `datasource` variable, laid out two panels a row, as serde_json values.

use serde_json::{Value, json};

/// The dashboard JSON model version the files declare (Grafana 10.4 and later read it as is).
pub const SCHEMA_VERSION: u64 = 39;
/// The panel type of every panel.
pub const PANEL_TYPE: &str = "timeseries";
/// The data source every panel and target names: the dashboard's `datasource` variable.
const DATASOURCE_UID: &str = "${datasource}";
/// Panel size in grid units (the grid is 24 wide).
const PANEL_WIDTH: u64 = 12;
const PANEL_HEIGHT: u64 = 8;

/// One query of a panel.
#[derive(Debug, Clone)]
pub struct Target {
    pub expr: String,
    /// The series name, e.g. `{{controller}}`.
    pub legend: String,
}

/// One time-series panel.
#[derive(Debug, Clone)]
pub struct Panel {
    pub title: String,
    pub description: String,
    /// Grafana's unit id (`ops`, `s`, `percentunit`, `none`, ...).
    pub unit: String,
    pub targets: Vec<Target>,
}

/// A dashboard variable whose values come from a `label_values(...)` query.
#[derive(Debug, Clone)]
pub struct Variable {
    pub name: &'static str,
    pub label: &'static str,
    /// `label_values(<selector>, <label>)`.
    pub query: String,
    /// Several values may be chosen, `All` among them (the queries then match with `=~`).
    pub multi: bool,
}

/// A whole dashboard.
#[derive(Debug, Clone)]
pub struct Dashboard {
    pub uid: String,
    pub title: String,
    pub description: String,
    pub tags: Vec<String>,
    pub variables: Vec<Variable>,
    pub panels: Vec<Panel>,
}

fn datasource() -> Value {
    json!({ "type": "prometheus", "uid": DATASOURCE_UID })
}

impl Dashboard {
    /// The dashboard's JSON model, pretty-printed with a final newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.model()).expect("a JSON value always serializes");
        text.push('\n');
        text
    }

    /// The dashboard's JSON model: panels numbered from 1 and placed two a row.
    pub fn model(&self) -> Value {
        let panels: Vec<Value> = self
            .panels
            .iter()
            .enumerate()
            .map(|(i, panel)| {
                let i = i as u64;
                panel_model(panel, i + 1, (i % 2) * PANEL_WIDTH, (i / 2) * PANEL_HEIGHT)
            })
            .collect();
        let mut variables = vec![json!({
            "name": "datasource",
            "label": "Data source",
            "type": "datasource",
            "query": "prometheus",
            "current": {},
            "hide": 0,
            "refresh": 1,
            "options": [],
        })];
        variables.extend(self.variables.iter().map(variable_model));
        json!({
            "annotations": { "list": [{
                "builtIn": 1,
                "datasource": { "type": "grafana", "uid": "-- Grafana --" },
                "enable": true,
                "hide": true,
                "iconColor": "rgba(0, 211, 255, 1)",
                "name": "Annotations & Alerts",
                "type": "dashboard",
            }] },
            "description": self.description,
            "editable": true,
            "fiscalYearStartMonth": 0,
            "graphTooltip": 1,
            "links": [],
            "panels": panels,
            "refresh": "30s",
            "schemaVersion": SCHEMA_VERSION,
            "tags": self.tags,
            "templating": { "list": variables },
            "time": { "from": "now-1h", "to": "now" },
            "timepicker": {},
            "timezone": "",
            "title": self.title,
            "uid": self.uid,
            "version": 1,
        })
    }
}

fn panel_model(panel: &Panel, id: u64, x: u64, y: u64) -> Value {
    let targets: Vec<Value> = panel
        .targets
        .iter()
        .enumerate()
        .map(|(i, target)| {
            json!({
                "datasource": datasource(),
                "editorMode": "code",
                "expr": target.expr,
                "legendFormat": target.legend,
                "range": true,
                // A, B, C, ...: a panel has few queries.
                "refId": char::from(b'A' + i as u8).to_string(),
            })
        })
        .collect();
    json!({
        "datasource": datasource(),
        "description": panel.description,
        "fieldConfig": {
            "defaults": {
                "custom": { "drawStyle": "line", "fillOpacity": 10, "lineWidth": 1, "showPoints": "never" },
                "unit": panel.unit,
            },
            "overrides": [],
        },
        "gridPos": { "h": PANEL_HEIGHT, "w": PANEL_WIDTH, "x": x, "y": y },
        "id": id,
        "options": {
            "legend": { "calcs": [], "displayMode": "list", "placement": "bottom", "showLegend": true },
            "tooltip": { "mode": "multi", "sort": "desc" },
        },
        "targets": targets,
        "title": panel.title,
        "type": PANEL_TYPE,
    })
}

fn variable_model(variable: &Variable) -> Value {
    let mut model = json!({
        "name": variable.name,
        "label": variable.label,
        "type": "query",
        "datasource": datasource(),
        "definition": variable.query,
        "query": { "query": variable.query, "refId": "PrometheusVariableQueryEditor-VariableQuery" },
        "current": {},
        "hide": 0,
        "includeAll": variable.multi,
        "multi": variable.multi,
        "options": [],
        "refresh": 2,
        "sort": 1,
    });
    if variable.multi {
        model["allValue"] = ".*".into();
    }
    model
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dashboard(panels: usize) -> Dashboard {
        Dashboard {
            uid: "u".into(),
            title: "t".into(),
            description: "d".into(),
            tags: vec![],
            variables: vec![],
            panels: (0..panels)
                .map(|i| Panel {
                    title: format!("p{i}"),
                    description: String::new(),
                    unit: "none".into(),
                    targets: vec![
                        Target { expr: "up".into(), legend: String::new() },
                        Target { expr: "up".into(), legend: String::new() },
                    ],
                })
                .collect(),
        }
    }

    #[test]
    fn panels_are_numbered_and_laid_out_two_a_row() {
        let model = dashboard(3).model();
        let places: Vec<(u64, u64, u64)> = model["panels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (p["id"].as_u64().unwrap(), p["gridPos"]["x"].as_u64().unwrap(), p["gridPos"]["y"].as_u64().unwrap())
            })
            .collect();
        assert_eq!(places, [(1, 0, 0), (2, 12, 0), (3, 0, 8)]);
        let refs: Vec<&str> =
            model["panels"][0]["targets"].as_array().unwrap().iter().map(|t| t["refId"].as_str().unwrap()).collect();
        assert_eq!(refs, ["A", "B"]);
    }
}
