//! Minimal sample objects: for a CRD version, the smallest object its own `openAPIV3Schema` accepts (every
//! required property with the least value its type, enum, bounds, lengths and pattern allow), as `kubesmith adopt`
//! writes into `config/samples/` for kinds it did not scaffold.

use serde_json::{Map, Value, json};

/// The sample of `version` of `crd`, named `name`, with `labels` in its metadata. `None` when the CRD has no such
/// version.
pub fn sample_object(crd: &Value, version: &str, name: &str, labels: &[(&str, &str)]) -> Option<Value> {
    let group = crd.pointer("/spec/group")?.as_str()?;
    let kind = crd.pointer("/spec/names/kind")?.as_str()?;
    let versions = crd.pointer("/spec/versions")?.as_array()?;
    let v = versions.iter().find(|v| v["name"] == version)?;
    let mut object = Map::new();
    object.insert("apiVersion".into(), json!(format!("{group}/{version}")));
    object.insert("kind".into(), json!(kind));
    let mut metadata = Map::new();
    if !labels.is_empty() {
        let l: Map<String, Value> = labels.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
        metadata.insert("labels".into(), Value::Object(l));
    }
    metadata.insert("name".into(), json!(name));
    object.insert("metadata".into(), Value::Object(metadata));
    if let Some(root) = v.pointer("/schema/openAPIV3Schema") {
        if let Value::Object(fields) = minimal(root) {
            for (k, val) in fields {
                if !["apiVersion", "kind", "metadata", "status"].contains(&k.as_str()) {
                    object.insert(k, val);
                }
            }
        }
        // A spec the schema describes is shown even when it is optional: it is what a sample is for.
        if !object.contains_key("spec")
            && let Some(spec) = root.pointer("/properties/spec")
        {
            object.insert("spec".into(), minimal(spec));
        }
    }
    Some(Value::Object(object))
}

/// The least value `schema` accepts (best effort for `pattern` and CEL rules, which are not evaluated).
pub fn minimal(schema: &Value) -> Value {
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|e| e.iter().find(|v| !v.is_null())) {
        return first.clone();
    }
    if schema.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        return json!(0);
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => object(schema),
        Some("array") => {
            let n = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let item = schema.get("items").map(minimal).unwrap_or(json!({}));
            let items: Vec<Value> = (0..n).map(|i| distinct(&item, i)).collect();
            Value::Array(items)
        }
        Some("string") => string(schema),
        Some("integer") => number(schema, true),
        Some("number") => number(schema, false),
        Some("boolean") => json!(false),
        _ if schema.get("properties").is_some() => object(schema),
        _ => json!({}),
    }
}

fn object(schema: &Value) -> Value {
    let props = schema.get("properties").and_then(Value::as_object);
    let mut required: Vec<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|r| r.as_str().map(String::from))
        .collect();
    // `oneOf`/`anyOf` branches that only list required properties: satisfy the first one.
    for key in ["oneOf", "anyOf"] {
        if let Some(first) = schema.get(key).and_then(Value::as_array).and_then(|b| b.first()) {
            for r in first.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
                if !required.iter().any(|x| x == r) {
                    required.push(r.to_string());
                }
            }
        }
    }
    let mut out = Map::new();
    for name in &required {
        let sub = props.and_then(|p| p.get(name)).cloned().unwrap_or(json!({}));
        out.insert(name.clone(), minimal(&sub));
    }
    let min = schema.get("minProperties").and_then(Value::as_u64).unwrap_or(0) as usize;
    if out.len() < min {
        if let Some(p) = props {
            for (name, sub) in p {
                if out.len() >= min {
                    break;
                }
                out.entry(name.clone()).or_insert_with(|| minimal(sub));
            }
        }
        let extra = schema.get("additionalProperties").filter(|a| a.is_object()).map(minimal).unwrap_or(json!({}));
        let mut i = 0;
        while out.len() < min {
            i += 1;
            out.entry(format!("key{i}")).or_insert_with(|| extra.clone());
        }
    }
    Value::Object(out)
}

/// The `i`th of several items: strings and numbers differ (sets and list-map keys stay unique).
fn distinct(item: &Value, i: u64) -> Value {
    match item {
        Value::String(s) if i > 0 => json!(format!("{s}{i}")),
        Value::Number(n) if i > 0 => n.as_i64().map(|n| json!(n + i as i64)).unwrap_or_else(|| item.clone()),
        _ => item.clone(),
    }
}

fn number(schema: &Value, integer: bool) -> Value {
    let min = schema.get("minimum").and_then(Value::as_f64);
    let max = schema.get("maximum").and_then(Value::as_f64);
    let exclusive = schema.get("exclusiveMinimum") == Some(&Value::Bool(true));
    let mut v = match min {
        Some(m) if exclusive => {
            if integer {
                m.floor() + 1.0
            } else {
                m + 1.0
            }
        }
        Some(m) => m.ceil().max(m),
        None => 0f64.min(max.unwrap_or(0.0)),
    };
    if let Some(step) = schema.get("multipleOf").and_then(Value::as_f64).filter(|s| *s > 0.0) {
        v = (v / step).ceil() * step;
    }
    if integer || v.fract() == 0.0 { json!(v as i64) } else { json!(v) }
}

fn string(schema: &Value) -> Value {
    let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = schema.get("maxLength").and_then(Value::as_u64).map(|m| m as usize);
    let fits = |s: &str| s.chars().count() >= min && max.is_none_or(|m| s.chars().count() <= m);
    let by_format = match schema.get("format").and_then(Value::as_str) {
        Some("date-time") => Some("1970-01-01T00:00:00Z"),
        Some("date") => Some("1970-01-01"),
        Some("duration") => Some("1s"),
        Some("byte") => Some("AA=="),
        Some("int-or-string") => Some("0"),
        _ => None,
    };
    if let Some(s) = by_format.filter(|s| fits(s)) {
        return json!(s);
    }
    let pattern = schema.get("pattern").and_then(Value::as_str).and_then(|p| regex::Regex::new(p).ok());
    let candidates = ["", "a", "example", "0", "a0", "example-1", "example.com", "A", "a-b", "1s", "10Mi"];
    let padded = |s: &str| {
        let mut s = s.to_string();
        while s.chars().count() < min {
            s.push('a');
        }
        s
    };
    for c in candidates {
        let s = padded(c);
        if fits(&s) && pattern.as_ref().is_none_or(|p| p.is_match(&s)) {
            return json!(s);
        }
    }
    // A pattern none of those match (`^(sha256|sha512):[a-f0-9]+$`): the shortest string its regex matches.
    let pattern_text = schema.get("pattern").and_then(Value::as_str).unwrap_or_default();
    if let Some(s) = shortest_match(pattern_text)
        && fits(&s)
        && pattern.as_ref().is_none_or(|p| p.is_match(&s))
    {
        return json!(s);
    }
    json!(padded("example"))
}

/// The shortest string a regex matches, built from its syntax tree: the first alternative, the fewest
/// repetitions, the first character of each class. The caller checks it against the regex.
fn shortest_match(pattern: &str) -> Option<String> {
    use regex_syntax::hir::{Class, Hir, HirKind};
    fn walk(h: &Hir, out: &mut String) -> Option<()> {
        match h.kind() {
            HirKind::Empty | HirKind::Look(_) => {}
            HirKind::Literal(l) => out.push_str(std::str::from_utf8(&l.0).ok()?),
            HirKind::Class(Class::Unicode(c)) => out.push(c.ranges().first()?.start()),
            HirKind::Class(Class::Bytes(c)) => out.push(char::from(c.ranges().first()?.start())),
            HirKind::Repetition(r) => {
                for _ in 0..r.min {
                    walk(&r.sub, out)?;
                }
            }
            HirKind::Capture(c) => walk(&c.sub, out)?,
            HirKind::Concat(list) => {
                for x in list {
                    walk(x, out)?;
                }
            }
            HirKind::Alternation(list) => walk(list.first()?, out)?,
        }
        Some(())
    }
    let hir = regex_syntax::parse(pattern).ok()?;
    let mut out = String::new();
    walk(&hir, &mut out)?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_properties_get_their_least_values() {
        let schema = json!({"type": "object", "required": ["image", "replicas", "mode", "ports", "labels", "ok"],
            "properties": {
                "image": {"type": "string"},
                "replicas": {"type": "integer", "minimum": 1, "maximum": 5},
                "mode": {"type": "string", "enum": ["Fast", "Slow"]},
                "ports": {"type": "array", "minItems": 2, "items": {"type": "integer", "minimum": 1}},
                "labels": {"type": "object", "minProperties": 1, "additionalProperties": {"type": "string", "minLength": 2}},
                "ok": {"type": "boolean"},
                "optional": {"type": "string"}}});
        assert_eq!(
            minimal(&schema),
            json!({"image": "", "replicas": 1, "mode": "Fast", "ports": [1, 2], "labels": {"key1": "aa"}, "ok": false})
        );
    }

    #[test]
    fn a_pattern_no_common_value_matches_gets_its_shortest_match() {
        let digest = json!({"type": "string", "pattern": "^(sha256:[a-f0-9]+|sha512:[a-f0-9]+)$"});
        assert_eq!(string(&digest), json!("sha256:0"));
        let version = json!({"type": "string", "pattern": "^v[0-9]+\\.[0-9]+\\.[0-9]+$"});
        assert_eq!(string(&version), json!("v0.0.0"));
    }

    #[test]
    fn strings_meet_lengths_formats_and_simple_patterns() {
        assert_eq!(minimal(&json!({"type": "string", "minLength": 3})), json!("aaa"));
        assert_eq!(minimal(&json!({"type": "string", "format": "date-time"})), json!("1970-01-01T00:00:00Z"));
        let dns = json!({"type": "string", "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"});
        assert_eq!(minimal(&dns), json!("a"));
        assert_eq!(minimal(&json!({"type": "number", "minimum": 0.5, "exclusiveMinimum": true})), json!(1.5));
    }

    #[test]
    fn a_sample_has_the_version_kind_name_and_a_spec() {
        let crd = json!({"spec": {"group": "fleet.example.org", "names": {"kind": "Widget"}, "versions": [{"name": "v1",
            "schema": {"openAPIV3Schema": {"type": "object", "required": ["spec"], "properties": {
                "spec": {"type": "object", "required": ["image"], "properties": {"image": {"type": "string", "minLength": 1}}},
                "status": {"type": "object", "nullable": true}}}}}]}});
        let s = sample_object(&crd, "v1", "widget-sample", &[("app.kubernetes.io/name", "fleet")]).unwrap();
        assert_eq!(
            s,
            json!({"apiVersion": "fleet.example.org/v1", "kind": "Widget", "metadata": {"labels":
                {"app.kubernetes.io/name": "fleet"}, "name": "widget-sample"}, "spec": {"image": "a"}})
        );
        assert!(sample_object(&crd, "v2", "x", &[]).is_none());
    }
}
