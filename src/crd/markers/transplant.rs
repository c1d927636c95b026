//! Markers of a kind whose schema the compiled fallback builds: the marker placeholders of the static schema
//! around its holes (the fields only the crate's code can give a schema) are carried to the same places of the
//! compiled schema and applied there as on the static path, so that a marker never silently drops out because a
//! kind needs compiling.

use serde_json::{Map, Value};

use super::{FIELD_KEY, MarkerIndex, TYPE_KEY, apply};
use crate::crd::error::CrdError;

/// The keys whose object values are schemas at the same place in both trees.
const SCHEMA_VALUED: &[&str] = &["items", "additionalProperties", "additionalItems", "not"];
/// The keys whose values map names to schemas.
const SCHEMA_MAPS: &[&str] = &["properties", "patternProperties"];
/// The keys whose values list schemas.
const SCHEMA_LISTS: &[&str] = &["anyOf", "oneOf", "allOf"];

/// Applies the markers `index` holds for `skeleton`'s placeholders to `compiled` (a root `openAPIV3Schema`); a
/// marker whose place the compiled schema lacks is an error at the marker.
pub fn apply_to_compiled(skeleton: &Value, index: &MarkerIndex, compiled: &mut Value) -> Result<(), CrdError> {
    let mut lost = Vec::new();
    carry(skeleton, compiled, &mut lost);
    if let Some((key, reference)) = lost.first() {
        let markers = if key == TYPE_KEY {
            reference.as_u64().map(|id| index.item(id as crate::crd::index::ItemId)).unwrap_or_default()
        } else {
            apply::field_key(reference).map(|k| index.field(k)).unwrap_or_default()
        };
        if let Some(m) = markers.first() {
            return Err(CrdError::marker(
                &m.file,
                m.line,
                format!(
                    "`+{}`: the compiled schema has no place for this marker (the code that builds the schema around \
                     it changes its shape); write the keyword into that code instead",
                    m.name
                ),
            ));
        }
    }
    apply::apply_schema(compiled, index)
}

/// Copies the placeholders of `from` onto `to`, recursively; what finds no place goes to `lost`.
fn carry(from: &Value, to: &mut Value, lost: &mut Vec<(String, Value)>) {
    let Value::Object(from) = from else {
        return;
    };
    let Value::Object(to) = to else {
        collect(&Value::Object(from.clone()), lost);
        return;
    };
    for key in [TYPE_KEY, FIELD_KEY] {
        if let Some(Value::Array(refs)) = from.get(key) {
            let slot = to.entry(key).or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(a) = slot {
                for r in refs {
                    if !a.contains(r) {
                        a.push(r.clone());
                    }
                }
            }
        }
    }
    for key in SCHEMA_VALUED {
        if let Some(sub @ Value::Object(_)) = from.get(*key) {
            match to.get_mut(*key) {
                Some(target @ Value::Object(_)) => carry(sub, target, lost),
                _ => collect(sub, lost),
            }
        }
    }
    for key in SCHEMA_MAPS {
        if let Some(Value::Object(subs)) = from.get(*key) {
            for (name, sub) in subs {
                match to.get_mut(*key).and_then(|m| m.get_mut(name)) {
                    Some(target) => carry(sub, target, lost),
                    None => collect(sub, lost),
                }
            }
        }
    }
    for key in SCHEMA_LISTS {
        if let Some(Value::Array(subs)) = from.get(*key) {
            match to.get_mut(*key) {
                Some(Value::Array(targets)) if targets.len() == subs.len() => {
                    for (sub, target) in subs.iter().zip(targets.iter_mut()) {
                        carry(sub, target, lost);
                    }
                }
                _ => subs.iter().for_each(|s| collect(s, lost)),
            }
        }
    }
}

/// Every placeholder reference under `v`.
fn collect(v: &Value, lost: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(o) => {
            placeholders(o, lost);
            o.values().for_each(|c| collect(c, lost));
        }
        Value::Array(a) => a.iter().for_each(|c| collect(c, lost)),
        _ => {}
    }
}

fn placeholders(o: &Map<String, Value>, lost: &mut Vec<(String, Value)>) {
    for key in [TYPE_KEY, FIELD_KEY] {
        for r in o.get(key).and_then(Value::as_array).into_iter().flatten() {
            lost.push((key.to_string(), r.clone()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn placeholders_move_to_the_same_places() {
        let skeleton = json!({
            "properties": {
                "spec": {"properties": {
                    "port": {FIELD_KEY: [[0, 1, 2]]},
                    "hosts": {"items": {TYPE_KEY: [3]}, "type": "array"}
                }, "type": "object"}
            },
            "type": "object"
        });
        let mut compiled = json!({
            "properties": {
                "spec": {"properties": {
                    "port": {"type": "integer", "format": "int32"},
                    "hosts": {"items": {"type": "string"}, "type": "array"}
                }, "type": "object"}
            },
            "type": "object"
        });
        let mut lost = Vec::new();
        carry(&skeleton, &mut compiled, &mut lost);
        assert!(lost.is_empty(), "{lost:?}");
        assert_eq!(compiled["properties"]["spec"]["properties"]["port"][FIELD_KEY], json!([[0, 1, 2]]));
        assert_eq!(compiled["properties"]["spec"]["properties"]["hosts"]["items"][TYPE_KEY], json!([3]));
    }

    #[test]
    fn a_place_the_compiled_schema_lacks_is_lost() {
        let skeleton = json!({"properties": {"gone": {FIELD_KEY: [[0, 0, 0]]}, "kept": {}}});
        let mut compiled = json!({"properties": {"kept": {"type": "string"}}});
        let mut lost = Vec::new();
        carry(&skeleton, &mut compiled, &mut lost);
        assert_eq!(lost, vec![(FIELD_KEY.to_string(), json!([0, 0, 0]))]);
    }
}
