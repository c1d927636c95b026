//! The markers that say what a schema node's keywords say (bounds, lengths, patterns, CEL rules, list types...),
//! written so kubesmith's marker parser reads back the exact values.

use serde_json::{Map, Value};

/// Where the markers go: a field, the items of an array field (`validation:items:` forms), or a type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Field,
    Items,
    Type,
}

/// Keywords the type mapping handles itself (never turned into markers here).
pub const STRUCTURAL: &[&str] = &[
    "description",
    "type",
    "format",
    "items",
    "properties",
    "additionalProperties",
    "required",
    "nullable",
    "x-kubernetes-int-or-string",
    "anyOf",
];

/// The markers for `node`'s keywords; keywords no marker at `place` can say go to `left`.
pub fn keyword_markers(node: &Map<String, Value>, place: Place, out: &mut Vec<String>, left: &mut Vec<String>) {
    let validation = |name: &str| match place {
        Place::Items => format!("+kubebuilder:validation:items:{name}"),
        _ => format!("+kubebuilder:validation:{name}"),
    };
    for (key, value) in node {
        if STRUCTURAL.contains(&key.as_str()) {
            continue;
        }
        let simple = |name: &str| Some(format!("{}={}", validation(name), number_or_bool(value)?));
        let line = match key.as_str() {
            "minimum" => simple("Minimum"),
            "maximum" => simple("Maximum"),
            "multipleOf" => simple("MultipleOf"),
            "minLength" => simple("MinLength"),
            "maxLength" => simple("MaxLength"),
            "minItems" => simple("MinItems"),
            "maxItems" => simple("MaxItems"),
            "minProperties" => simple("MinProperties"),
            "maxProperties" => simple("MaxProperties"),
            "exclusiveMinimum" => simple("ExclusiveMinimum"),
            "exclusiveMaximum" => simple("ExclusiveMaximum"),
            "uniqueItems" if *value == Value::Bool(false) => simple("UniqueItems"),
            "pattern" => value.as_str().map(|p| format!("{}={}", validation("Pattern"), quote(p))),
            "enum" => enum_values(value).map(|v| format!("{}={v}", validation("Enum"))),
            "x-kubernetes-validations" => match rules(value) {
                Some(lines) => {
                    out.extend(lines.into_iter().map(|args| format!("{}:{args}", validation("XValidation"))));
                    continue;
                }
                None => None,
            },
            "x-kubernetes-embedded-resource" if *value == Value::Bool(true) => Some(validation("XEmbeddedResource")),
            "x-kubernetes-preserve-unknown-fields" if *value == Value::Bool(true) => {
                Some(validation("XPreserveUnknownFields"))
            }
            _ if place == Place::Items => None,
            "default" | "example" if place == Place::Type => None,
            "default" => Some(format!("+default={}", default_text(value))),
            "title" => value.as_str().map(|t| format!("+kubebuilder:title={}", quote(t))),
            "example" => any_text(value).map(|v| format!("+kubebuilder:example={v}")),
            "externalDocs" => external_docs(value),
            "x-kubernetes-list-type" => value.as_str().map(|t| format!("+listType={t}")),
            "x-kubernetes-list-map-keys" => match value.as_array() {
                Some(keys) if keys.iter().all(Value::is_string) => {
                    out.extend(keys.iter().filter_map(Value::as_str).map(|k| format!("+listMapKey={k}")));
                    continue;
                }
                _ => None,
            },
            "x-kubernetes-map-type" => value.as_str().map(|t| {
                let on_struct = node.contains_key("properties");
                format!("+{}={t}", if on_struct { "structType" } else { "mapType" })
            }),
            _ => None,
        };
        match line {
            Some(l) => out.push(l),
            None => left.push(key.clone()),
        }
    }
}

/// A number or bool as a marker value (`1`, `0.5`, `true`).
fn number_or_bool(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A scalar as kubebuilder's `Any` syntax reads it back: strings quoted, numbers and bools bare.
fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(quote_double(s)),
        Value::Number(_) | Value::Bool(_) => number_or_bool(v),
        _ => None,
    }
}

/// Any value in kubebuilder's syntax (`{a,b}` lists, `{k: v}` maps, quoted strings); `None` for what it cannot
/// write (null, map keys that are not plain words).
fn any_text(v: &Value) -> Option<String> {
    match v {
        Value::Array(items) => {
            let parts: Option<Vec<String>> = items.iter().map(any_text).collect();
            Some(format!("{{{}}}", parts?.join(",")))
        }
        Value::Object(map) => {
            let plain = |k: &str| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            let parts: Option<Vec<String>> =
                map.iter().map(|(k, v)| plain(k).then(|| Some(format!("{k}: {}", any_text(v)?))).flatten()).collect();
            Some(format!("{{{}}}", parts?.join(", ")))
        }
        other => scalar_text(other),
    }
}

/// `Enum` values: strings always quoted (so `"1"` stays a string), numbers and bools bare.
fn enum_values(v: &Value) -> Option<String> {
    let items = v.as_array()?;
    let parts: Option<Vec<String>> = items.iter().map(scalar_text).collect();
    parts.filter(|p| !p.is_empty()).map(|p| p.join(";"))
}

/// `+default=` takes JSON; a string default is written quoted, which the marker scanner unquotes.
fn default_text(v: &Value) -> String {
    match v {
        Value::String(s) => quote_double(s),
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

/// The arguments of one `XValidation` marker per rule, in order.
fn rules(v: &Value) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for rule in v.as_array()? {
        let rule = rule.as_object()?;
        let mut args = Vec::new();
        for (key, value) in rule {
            let arg = match (key.as_str(), value) {
                ("rule" | "message" | "messageExpression" | "fieldPath", Value::String(s)) => quote(s),
                ("reason", Value::String(s)) if !s.is_empty() => s.clone(),
                ("optionalOldSelf", Value::Bool(b)) => b.to_string(),
                _ => return None,
            };
            args.push((key.as_str(), arg));
        }
        if !args.iter().any(|(k, _)| *k == "rule") {
            return None;
        }
        // the rule first, as people write it
        args.sort_by_key(|(k, _)| *k != "rule");
        out.push(args.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(","));
    }
    Some(out)
}

fn external_docs(v: &Value) -> Option<String> {
    let o = v.as_object()?;
    let mut args = Vec::new();
    for (k, v) in o {
        match (k.as_str(), v) {
            ("url" | "description", Value::String(s)) => args.push(format!("{k}={}", quote(s))),
            _ => return None,
        }
    }
    Some(format!("+kubebuilder:externalDocs:{}", args.join(",")))
}

/// A marker string: `` `raw` `` when that says it exactly, else `"double"` with escapes.
pub fn quote(s: &str) -> String {
    if !s.contains('`') && !s.chars().any(char::is_control) { format!("`{s}`") } else { quote_double(s) }
}

/// A `"double"` quoted marker string with the escapes the marker parser reads.
pub fn quote_double(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn markers(node: Value, place: Place) -> (Vec<String>, Vec<String>) {
        let (mut out, mut left) = (Vec::new(), Vec::new());
        keyword_markers(node.as_object().unwrap(), place, &mut out, &mut left);
        (out, left)
    }

    #[test]
    fn keywords_become_markers() {
        let (out, left) = markers(
            json!({"type": "string", "minLength": 1, "pattern": "^a`b$", "enum": ["1", "x"], "default": "x",
                   "x-kubernetes-validations": [{"message": "m", "rule": "self != \"\""}], "oneOf": []}),
            Place::Field,
        );
        assert_eq!(
            out,
            [
                "+default=\"x\"",
                "+kubebuilder:validation:Enum=\"1\";\"x\"",
                "+kubebuilder:validation:MinLength=1",
                "+kubebuilder:validation:Pattern=\"^a`b$\"",
                "+kubebuilder:validation:XValidation:rule=`self != \"\"`,message=`m`",
            ]
        );
        assert_eq!(left, ["oneOf"]);
    }

    #[test]
    fn examples_of_any_shape_are_written_in_kubebuilder_syntax() {
        let (out, left) = markers(
            json!({"example": [{"nested": {"bar": true, "foo": "baz"}}, {"n": 1}], "type": "array"}),
            Place::Field,
        );
        assert_eq!(out, ["+kubebuilder:example={{nested: {bar: true, foo: \"baz\"}},{n: 1}}"]);
        assert!(left.is_empty());
        let (_, left) = markers(json!({"example": {"a.b": 1}}), Place::Field);
        assert_eq!(left, ["example"]);
    }

    #[test]
    fn items_take_only_validation_markers() {
        let (out, left) = markers(json!({"type": "string", "maxLength": 3, "default": "a"}), Place::Items);
        assert_eq!(out, ["+kubebuilder:validation:items:MaxLength=3"]);
        assert_eq!(left, ["default"]);
    }
}
