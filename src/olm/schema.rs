//! Validation of an object against a structural schema (a CRD's `openAPIV3Schema`), the way the API server
//! checks a custom resource: types, `required`, `enum`, `pattern`, lengths and bounds, `nullable`,
//! `x-kubernetes-int-or-string`, `x-kubernetes-preserve-unknown-fields`. Fields the schema does not know are
//! reported separately: the API server prunes them silently.
//!
//! Messages follow the API server's (`spec.install.spec.deployments: Required value`).

use std::sync::OnceLock;

use serde_json::Value;

/// OLM's own ClusterServiceVersion CRD (operator-framework/api, Apache-2.0; see `data/olm/README.md`).
const CSV_CRD: &str = include_str!("../../data/olm/operators.coreos.com_clusterserviceversions.yaml");

/// The `openAPIV3Schema` of `operators.coreos.com/v1alpha1` ClusterServiceVersion.
pub fn csv_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let crd = crate::yaml::from_str(CSV_CRD).unwrap_or(Value::Null);
        crd["spec"]["versions"]
            .as_array()
            .and_then(|vs| vs.iter().find(|v| v["name"] == "v1alpha1"))
            .map(|v| v["schema"]["openAPIV3Schema"].clone())
            .unwrap_or(Value::Null)
    })
}

/// What a schema check found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Violations: the API server would reject the object.
    pub errors: Vec<String>,
    /// Paths of fields the schema does not declare (pruned on admission).
    pub unknown: Vec<String>,
}

/// Validates `value` against `schema`.
pub fn validate(schema: &Value, value: &Value) -> Outcome {
    let mut out = Outcome::default();
    check(schema, value, "", &mut out, true);
    out
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_string() } else { format!("{path}.{key}") }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn shown(path: &str) -> &str {
    if path.is_empty() { "<root>" } else { path }
}

fn quoted(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

fn type_ok(want: &str, v: &Value) -> bool {
    match want {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "number" => v.is_number(),
        _ => true,
    }
}

fn regex_cached(pattern: &str) -> Option<regex::Regex> {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static CACHE: OnceLock<Mutex<HashMap<String, Option<regex::Regex>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut map = cache.lock().ok()?;
    map.entry(pattern.to_string()).or_insert_with(|| regex::Regex::new(pattern).ok()).clone()
}

fn check(schema: &Value, v: &Value, path: &str, out: &mut Outcome, prune: bool) {
    let Some(s) = schema.as_object() else {
        return;
    };
    let p = shown(path);
    if v.is_null() {
        if s.get("nullable") != Some(&Value::Bool(true)) && s.contains_key("type") {
            out.errors.push(format!(
                "{p}: Invalid value: \"null\": {p} in body must be of type {}: \"null\"",
                s["type"].as_str().unwrap_or("object")
            ));
        }
        return;
    }
    let int_or_string = s.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true));
    if int_or_string {
        if !(v.is_string() || type_ok("integer", v)) {
            out.errors.push(format!(
                "{p}: Invalid value: \"{}\": {p} in body must be of type integer or string: {}",
                type_name(v),
                quoted(v)
            ));
            return;
        }
    } else if let Some(t) = s.get("type").and_then(Value::as_str)
        && !type_ok(t, v)
    {
        out.errors.push(format!(
            "{p}: Invalid value: \"{}\": {p} in body must be of type {t}: \"{}\"",
            type_name(v),
            type_name(v)
        ));
        return;
    }
    if let Some(Value::Array(allowed)) = s.get("enum")
        && !allowed.contains(v)
    {
        let list: Vec<String> = allowed.iter().map(quoted).collect();
        out.errors.push(format!("{p}: Unsupported value: {}: supported values: {}", quoted(v), list.join(", ")));
    }
    if let Some(text) = v.as_str() {
        let len = text.chars().count() as u64;
        if let Some(max) = s.get("maxLength").and_then(Value::as_u64)
            && len > max
        {
            out.errors.push(format!("{p}: Too long: may not be more than {max} bytes"));
        }
        if let Some(min) = s.get("minLength").and_then(Value::as_u64)
            && len < min
        {
            out.errors
                .push(format!("{p}: Invalid value: {}: {p} in body should be at least {min} chars long", quoted(v)));
        }
        if let Some(pat) = s.get("pattern").and_then(Value::as_str)
            && let Some(re) = regex_cached(pat)
            && !re.is_match(text)
        {
            out.errors.push(format!("{p}: Invalid value: {}: {p} in body should match '{pat}'", quoted(v)));
        }
    }
    if let Some(n) = v.as_f64().filter(|_| v.is_number()) {
        if let Some(max) = s.get("maximum").and_then(Value::as_f64)
            && n > max
        {
            out.errors.push(format!("{p}: Invalid value: {v}: {p} in body should be less than or equal to {max}"));
        }
        if let Some(min) = s.get("minimum").and_then(Value::as_f64)
            && n < min
        {
            out.errors.push(format!("{p}: Invalid value: {v}: {p} in body should be greater than or equal to {min}"));
        }
    }
    if let Some(Value::Array(alts)) = s.get("anyOf")
        && !int_or_string
    {
        let ok = alts.iter().any(|alt| {
            let mut sub = Outcome::default();
            check(alt, v, path, &mut sub, false);
            sub.errors.is_empty()
        });
        if !ok {
            out.errors.push(format!(
                "{p}: Invalid value: {}: {p} in body must match at least one schema in anyOf",
                quoted(v)
            ));
        }
    }
    let preserve = s.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
    match v {
        Value::Object(m) => {
            if let Some(Value::Array(req)) = s.get("required") {
                for r in req.iter().filter_map(Value::as_str) {
                    if !m.contains_key(r) {
                        out.errors.push(format!("{}: Required value", join(path, r)));
                    }
                }
            }
            let props = s.get("properties").and_then(Value::as_object);
            let additional = s.get("additionalProperties");
            for (k, child) in m {
                let cp = join(path, k);
                if let Some(ps) = props.and_then(|ps| ps.get(k)) {
                    check(ps, child, &cp, out, prune);
                } else if let Some(add) = additional.filter(|a| a.is_object()) {
                    check(add, child, &cp, out, prune);
                } else if additional == Some(&Value::Bool(false)) {
                    out.errors.push(format!("{cp}: Forbidden: additional properties are not allowed"));
                } else if props.is_some() && !preserve && prune && additional.is_none() {
                    out.unknown.push(cp);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = s.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check(item_schema, item, &format!("{path}[{i}]"), out, prune);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn structural_rules() {
        let schema = json!({
            "type": "object",
            "required": ["spec"],
            "properties": {
                "spec": {"type": "object", "required": ["name"], "properties": {
                    "name": {"type": "string", "maxLength": 5, "pattern": "^[a-z]+$"},
                    "mode": {"type": "string", "enum": ["a", "b"]},
                    "port": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                    "list": {"type": "array", "items": {"type": "integer", "minimum": 0}},
                    "maybe": {"type": "string", "nullable": true},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}}
                }}
            }
        });
        let ok = json!({"spec": {"name": "abc", "mode": "a", "port": "http", "list": [1], "maybe": null,
            "labels": {"x": "y"}}});
        assert_eq!(validate(&schema, &ok), Outcome::default());
        let bad = json!({"spec": {"name": "ABCDEFG", "mode": "c", "port": true, "list": [-1, "x"],
            "labels": {"x": 1}, "extra": 1}});
        let o = validate(&schema, &bad);
        assert_eq!(o.unknown, ["spec.extra"]);
        let text = o.errors.join("\n");
        for want in [
            "spec.name: Too long: may not be more than 5 bytes",
            "spec.name: Invalid value: \"ABCDEFG\": spec.name in body should match '^[a-z]+$'",
            "spec.mode: Unsupported value: \"c\": supported values: \"a\", \"b\"",
            "spec.port: Invalid value: \"boolean\": spec.port in body must be of type integer or string: true",
            "spec.list[0]: Invalid value: -1: spec.list[0] in body should be greater than or equal to 0",
            "spec.list[1]: Invalid value: \"string\": spec.list[1] in body must be of type integer: \"string\"",
            "spec.labels.x: Invalid value: \"integer\"",
        ] {
            assert!(text.contains(want), "missing {want:?} in\n{text}");
        }
        let o = validate(&schema, &json!({}));
        assert_eq!(o.errors, ["spec: Required value"]);
    }

    #[test]
    fn csv_schema_is_embedded() {
        let s = csv_schema();
        assert_eq!(s["type"], "object");
        assert!(s["properties"]["spec"]["required"].as_array().is_some_and(|r| r.contains(&json!("install"))));
    }
}
