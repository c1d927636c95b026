//! The checks of `helm lint` that catch real mistakes, on a chart's files (from disk, or as a plan leaves them):
//! Chart.yaml's fields (apiVersion, a valid name, a SemVer 2 version, the type), values.yaml parses, the values
//! (with `--set` overrides) are valid against values.schema.json, every template parses ([`super::gotmpl`]) and
//! every `.Values` path a template reads exists in the values.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// What the checks found, each message naming its file (and line).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Report {
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
}

/// Checks the chart whose files (path inside the chart → text) are given, with `overrides` (from `--set`) merged
/// over values.yaml.
pub fn lint(files: &BTreeMap<String, String>, overrides: &Value) -> Report {
    let mut r = Report::default();
    chart_yaml(files.get("Chart.yaml"), &mut r);
    let defaults = match files.get("values.yaml").map(|t| crate::yaml::from_str(t)) {
        None => Value::Object(Map::new()),
        Some(Ok(Value::Null)) => Value::Object(Map::new()),
        Some(Ok(v @ Value::Object(_))) => v,
        Some(Ok(_)) => {
            r.errors.push("values.yaml: must be a mapping of keys to values".into());
            Value::Object(Map::new())
        }
        Some(Err(e)) => {
            r.errors.push(format!("values.yaml: not valid YAML: {e}"));
            Value::Object(Map::new())
        }
    };
    let values = coalesce(overrides, &defaults);
    if let Some(text) = files.get("values.schema.json") {
        match serde_json::from_str::<Value>(text) {
            Err(e) => r.errors.push(format!("values.schema.json: not valid JSON: {e}")),
            Ok(schema) => match jsonschema::validator_for(&schema) {
                Err(e) => r.errors.push(format!("values.schema.json: not a valid JSON schema: {e}")),
                Ok(validator) => {
                    for e in validator.iter_errors(&values) {
                        let at = e.instance_path().to_string();
                        let at = if at.is_empty() {
                            "<root>".to_string()
                        } else {
                            at.trim_start_matches('/').replace('/', ".")
                        };
                        r.errors.push(format!("values.schema.json: the values do not match at {at}: {e}"));
                    }
                }
            },
        }
    }
    for (path, text) in files.iter().filter(|(p, _)| p.starts_with("templates/")) {
        match super::gotmpl::check(text) {
            Err(e) => r.errors.push(format!("{path}:{}: parse error: {}", e.line, e.message)),
            Ok(reads) => {
                for (line, p) in reads.values {
                    if let Some(why) = missing(&values, &p) {
                        r.errors.push(format!(
                            "{path}:{line}: reads .Values.{}, {why}: add it to values.yaml or fix the template",
                            p.join(".")
                        ));
                    }
                }
            }
        }
    }
    r
}

/// Why `.Values.<path>` cannot be read from `values`, if it cannot.
fn missing(values: &Value, path: &[String]) -> Option<String> {
    let mut cur = values;
    for (i, key) in path.iter().enumerate() {
        match cur {
            Value::Object(m) => match m.get(key) {
                Some(v) => cur = v,
                // An empty map is free-form (podAnnotations: {}): any key may be read from it.
                None if m.is_empty() && i > 0 => return None,
                None => return Some("which values.yaml does not define".into()),
            },
            _ => return Some(format!("but .Values.{} is not a map", path[..i].join("."))),
        }
    }
    None
}

fn chart_yaml(text: Option<&String>, r: &mut Report) {
    let Some(text) = text else {
        r.errors.push("Chart.yaml: missing".into());
        return;
    };
    let chart = match crate::yaml::from_str(text) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => return r.errors.push("Chart.yaml: must be a mapping".into()),
        Err(e) => return r.errors.push(format!("Chart.yaml: not valid YAML: {e}")),
    };
    match chart["apiVersion"].as_str() {
        Some("v2") => {}
        Some("v1") => r.warnings.push("Chart.yaml: apiVersion v1 is Helm 2's; use v2".into()),
        Some(v) => r.errors.push(format!("Chart.yaml: apiVersion {v:?} is not valid: use v2")),
        None => r.errors.push("Chart.yaml: apiVersion is required".into()),
    }
    match chart["name"].as_str() {
        None | Some("") => r.errors.push("Chart.yaml: name is required".into()),
        Some(n) if !n.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')) => {
            r.errors.push(format!("Chart.yaml: chart name {n:?} may hold only letters, digits, '-', '_' and '.'"))
        }
        Some(n) if n.chars().any(|c| c.is_ascii_uppercase()) => {
            r.warnings.push(format!("Chart.yaml: chart name {n:?} should be lower case"))
        }
        Some(_) => {}
    }
    match &chart["version"] {
        Value::String(v) if crate::olm::semver::Version::parse(v).is_ok() => {}
        Value::Null => r.errors.push("Chart.yaml: version is required".into()),
        v => r.errors.push(format!(
            "Chart.yaml: version {} is not a valid SemVer 2 version (MAJOR.MINOR.PATCH, e.g. 0.1.0)",
            v.as_str().map(|s| format!("{s:?}")).unwrap_or_else(|| v.to_string())
        )),
    }
    match &chart["appVersion"] {
        Value::Null => r.warnings.push("Chart.yaml: appVersion is recommended (the default image tag)".into()),
        Value::String(_) => {}
        v => r.warnings.push(format!("Chart.yaml: appVersion {v} should be quoted as a string")),
    }
    match chart["type"].as_str() {
        None | Some("application" | "library") => {}
        Some(t) => r.errors.push(format!("Chart.yaml: type {t:?} is not valid: use application or library")),
    }
}

/// `user` over `defaults`, as Helm coalesces values: the user's win, maps merge, a user null removes the key.
pub fn coalesce(user: &Value, defaults: &Value) -> Value {
    match (user, defaults) {
        (Value::Object(u), Value::Object(d)) => {
            let mut out = d.clone();
            for (k, uv) in u {
                if uv.is_null() {
                    out.remove(k);
                } else {
                    let merged = coalesce(uv, d.get(k).unwrap_or(&Value::Null));
                    out.insert(k.clone(), merged);
                }
            }
            Value::Object(out)
        }
        (Value::Null, d) => d.clone(),
        (u, _) => u.clone(),
    }
}

/// Reads `--set` arguments (`a.b=c,d=1`) as Helm does: `true`/`false`/`null`, integers without a leading zero,
/// `{x,y}` lists, else strings; `\,` and `\.` escape.
pub fn set_values(args: &[String]) -> Result<Value, String> {
    let mut out = Value::Object(Map::new());
    for arg in args {
        for pair in split_escaped(arg, ',', true) {
            if pair.is_empty() {
                continue;
            }
            let Some((key, raw)) = split_once_escaped(&pair, '=') else {
                return Err(format!("--set {arg}: key {pair:?} has no value (use key=value)"));
            };
            let value = if raw.starts_with('{') && raw.ends_with('}') {
                let inner = &raw[1..raw.len() - 1];
                Value::Array(if inner.is_empty() {
                    Vec::new()
                } else {
                    split_escaped(inner, ',', false).iter().map(|s| typed(s)).collect()
                })
            } else {
                typed(&unescape(&raw))
            };
            let path = split_escaped(&key, '.', false);
            if path.iter().any(|p| p.is_empty() || p.contains('[')) {
                return Err(format!("--set {arg}: {key:?} is not a dotted key (list indexes are not supported)"));
            }
            let mut cur = &mut out;
            for (i, seg) in path.iter().enumerate() {
                let obj = match cur {
                    Value::Object(m) => m,
                    other => {
                        *other = Value::Object(Map::new());
                        other.as_object_mut().expect("just made")
                    }
                };
                if i == path.len() - 1 {
                    obj.insert(seg.clone(), value.clone());
                    break;
                }
                cur = obj.entry(seg.clone()).or_insert_with(|| Value::Object(Map::new()));
            }
        }
    }
    Ok(out)
}

fn typed(s: &str) -> Value {
    match s.to_ascii_lowercase().as_str() {
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        "null" => return Value::Null,
        _ => {}
    }
    if (s == "0" || (!s.starts_with('0') && !s.is_empty()))
        && let Ok(i) = s.parse::<i64>()
    {
        return Value::from(i);
    }
    Value::String(s.to_string())
}

fn unescape(s: &str) -> String {
    s.replace("\\,", ",").replace("\\=", "=")
}

fn split_escaped(s: &str, sep: char, keep_braces: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    if keep_braces {
                        cur.push('\\');
                    }
                    cur.push(n);
                }
            }
            '{' if keep_braces => {
                depth += 1;
                cur.push(c);
            }
            '}' if keep_braces => {
                depth -= 1;
                cur.push(c);
            }
            c if c == sep && depth == 0 => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out
}

fn split_once_escaped(s: &str, sep: char) -> Option<(String, String)> {
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == sep {
            return Some((s[..i].to_string(), s[i + 1..].to_string()));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chart(extra: &[(&str, &str)]) -> BTreeMap<String, String> {
        let mut files: BTreeMap<String, String> = [
            ("Chart.yaml", "apiVersion: v2\nname: op\nversion: 0.1.0\nappVersion: \"0.1.0\"\n"),
            ("values.yaml", "manager:\n  replicas: 1\n  podLabels: {}\n"),
            (
                "values.schema.json",
                r#"{"type":"object","properties":{"manager":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}"#,
            ),
            ("templates/d.yaml", "replicas: {{ .Values.manager.replicas }}\n{{- with .Values.manager.podLabels }}{{ .x }}{{ end }}\n"),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        for (p, t) in extra {
            files.insert(p.to_string(), t.to_string());
        }
        files
    }

    #[test]
    fn a_good_chart_passes() {
        assert_eq!(lint(&chart(&[]), &json!({})), Report::default());
    }

    #[test]
    fn each_check_names_the_file_and_line() {
        let r = lint(
            &chart(&[
                ("Chart.yaml", "apiVersion: v3\nname: Op\nversion: 1.0\n"),
                (
                    "templates/x.yaml",
                    "a: {{ .Values.manager.replica }}\nb: {{ .Values.manager.podLabels.team }}\n{{ if }}",
                ),
            ]),
            &set_values(&["manager.replicas=two".into()]).unwrap(),
        );
        assert_eq!(
            r.errors,
            vec![
                "Chart.yaml: apiVersion \"v3\" is not valid: use v2".to_string(),
                "Chart.yaml: version 1.0 is not a valid SemVer 2 version (MAJOR.MINOR.PATCH, e.g. 0.1.0)".into(),
                "values.schema.json: the values do not match at manager.replicas: \"two\" is not of type \"integer\""
                    .into(),
                "templates/x.yaml:3: parse error: missing value for if".into(),
            ]
        );
        assert_eq!(
            r.warnings,
            vec![
                "Chart.yaml: chart name \"Op\" should be lower case".to_string(),
                "Chart.yaml: appVersion is recommended (the default image tag)".into()
            ]
        );
        let r = lint(&chart(&[("templates/x.yaml", "a: {{ .Values.manager.replica }}\n")]), &json!({}));
        assert_eq!(
            r.errors,
            vec![
                "templates/x.yaml:1: reads .Values.manager.replica, which values.yaml does not define: add it to \
                 values.yaml or fix the template"
                    .to_string()
            ]
        );
    }

    #[test]
    fn set_reads_values_as_helm_does() {
        assert_eq!(
            set_values(&["a.b=1,c=true,d=null,e=007,f={x,y}".into(), "g=a\\,b".into()]).unwrap(),
            json!({"a": {"b": 1}, "c": true, "d": null, "e": "007", "f": ["x", "y"], "g": "a,b"})
        );
        assert_eq!(
            coalesce(&json!({"a": {"b": null}, "c": 2}), &json!({"a": {"b": 1, "x": 0}, "c": 1})),
            json!({"a": {"x": 0}, "c": 2})
        );
    }
}
