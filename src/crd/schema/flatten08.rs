//! schemars 0.8's `Schema::flatten` (`#[serde(flatten)]`): the two schema objects merged field group by field
//! group (its `Merge` impls), ported to `serde_json::Value`.

use serde_json::{Map, Value, json};

/// Keys of a schema object that schemars 0.8 keeps in typed fields; any other key is an extension.
const TYPED: &[&str] = &[
    "$id",
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "type",
    "format",
    "enum",
    "const",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "items",
    "additionalItems",
    "maxItems",
    "minItems",
    "uniqueItems",
    "contains",
    "maxProperties",
    "minProperties",
    "required",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "$ref",
];

/// schemars 0.8's `InstanceType` order (what a merged `type` list is sorted by).
const TYPE_ORDER: &[&str] = &["null", "boolean", "object", "array", "number", "string", "integer"];

/// `schema.flatten(other)`: a `{"type": "null"}` side gives the other one; else both as objects, merged.
pub(super) fn flatten(schema: &mut Value, other: Value) {
    if is_null_type(schema) {
        *schema = other;
        return;
    }
    if is_null_type(&other) {
        return;
    }
    let Value::Object(s1) = into_object(std::mem::take(schema)) else { return };
    let Value::Object(s2) = into_object(other) else { return };
    *schema = Value::Object(merge(s1, s2));
}

fn is_null_type(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

fn into_object(schema: Value) -> Value {
    match schema {
        Value::Bool(true) => json!({}),
        Value::Bool(false) => json!({"not": {}}),
        other => other,
    }
}

/// `SchemaObject::merge`: `or` fields keep the first side's, lists and sets are joined, maps extended (the second
/// side's entries win), `type`s unioned, flags or-ed, `additionalProperties` merged permissively.
fn merge(mut s1: Map<String, Value>, s2: Map<String, Value>) -> Map<String, Value> {
    // An absent group takes the other side's whole (`Option::merge`): the object group's keys below.
    let object_keys = ["maxProperties", "minProperties", "required", "properties", "patternProperties"];
    let has_object = |o: &Map<String, Value>| {
        object_keys.iter().chain(["additionalProperties", "propertyNames"].iter()).any(|k| o.contains_key(*k))
    };
    let both_objects = has_object(&s1) && has_object(&s2);
    let ap1 = s1.remove("additionalProperties");
    let mut ap2 = None;
    for (key, v2) in s2 {
        match key.as_str() {
            "additionalProperties" => ap2 = Some(v2),
            "deprecated" | "readOnly" | "writeOnly" => {
                let either = s1.get(&key).and_then(Value::as_bool).unwrap_or(false) || v2.as_bool().unwrap_or(false);
                s1.insert(key, Value::Bool(either));
            }
            "examples" | "enum" | "required" => match (s1.get_mut(&key), v2) {
                (Some(Value::Array(a1)), Value::Array(a2)) => a1.extend(a2),
                (None, v2) => {
                    s1.insert(key, v2);
                }
                _ => {}
            },
            "properties" | "patternProperties" => match (s1.get_mut(&key), v2) {
                (Some(Value::Object(o1)), Value::Object(o2)) => o1.extend(o2),
                (None, v2) => {
                    s1.insert(key, v2);
                }
                _ => {}
            },
            "type" => {
                let merged = match s1.remove("type") {
                    Some(t1) => merge_types(t1, v2),
                    None => v2,
                };
                s1.insert(key, merged);
            }
            k if TYPED.contains(&k) => {
                s1.entry(key).or_insert(v2);
            }
            _ => {
                // extensions: the second side's value wins
                s1.insert(key, v2);
            }
        }
    }
    let ap = if both_objects { merge_additional(ap1, ap2) } else { ap1.or(ap2) };
    if let Some(ap) = ap {
        s1.insert("additionalProperties".into(), ap);
    }
    if let Some(Value::Array(required)) = s1.get_mut("required") {
        // a set in schemars 0.8
        let mut names: Vec<String> = required.iter().filter_map(|v| v.as_str().map(str::to_string)).collect();
        names.sort();
        names.dedup();
        *required = names.into_iter().map(Value::String).collect();
    }
    s1
}

fn merge_types(t1: Value, t2: Value) -> Value {
    if t1 == t2 {
        return t1;
    }
    let list = |t: Value| match t {
        Value::Array(a) => a,
        single => vec![single],
    };
    let mut all: Vec<Value> = list(t1).into_iter().chain(list(t2)).collect();
    let rank = |v: &Value| TYPE_ORDER.iter().position(|t| v == t).unwrap_or(TYPE_ORDER.len());
    all.sort_by_key(rank);
    all.dedup();
    Value::Array(all)
}

/// `Option<Box<Schema>>::merge` of two `additionalProperties`, both sides holding object validation.
fn merge_additional(a1: Option<Value>, a2: Option<Value>) -> Option<Value> {
    match (a1, a2) {
        (Some(Value::Bool(true)), _) | (_, Some(Value::Bool(true))) => Some(Value::Bool(true)),
        (None, _) | (_, None) => None,
        (Some(Value::Object(o1)), Some(Value::Object(o2))) => Some(Value::Object(merge(o1, o2))),
        (Some(s1 @ Value::Object(_)), Some(_)) => Some(s1),
        (Some(_), Some(s2 @ Value::Object(_))) => Some(s2),
        (Some(a), Some(_)) => Some(a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flattened_map_of_anything_keeps_additional_properties_true() {
        let mut s = json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
        flatten(&mut s, json!({"type": "object", "additionalProperties": true}));
        assert_eq!(
            s,
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": true})
        );
    }

    #[test]
    fn a_typed_map_loses_its_value_schema_beside_properties() {
        let mut s = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        flatten(&mut s, json!({"type": "object", "additionalProperties": {"type": "string"}}));
        assert_eq!(s, json!({"type": "object", "properties": {"a": {"type": "string"}}}));
    }

    #[test]
    fn properties_join_the_second_wins_and_required_is_a_sorted_set() {
        let mut s = json!({"type": "object", "description": "first", "properties": {"b": {"type": "string"}}, "required": ["b"]});
        let other = json!({"type": "object", "description": "second", "properties": {"b": {"type": "integer"}, "a": {}},
            "required": ["a", "b"], "x-ext": 1});
        flatten(&mut s, other);
        assert_eq!(
            s,
            json!({"type": "object", "description": "first", "properties": {"b": {"type": "integer"}, "a": {}},
                "required": ["a", "b"], "x-ext": 1})
        );
    }

    #[test]
    fn types_union_in_schemars_order() {
        let mut s = json!({"type": "string"});
        flatten(&mut s, json!({"type": "object"}));
        assert_eq!(s, json!({"type": ["object", "string"]}));
    }
}
