//! Maps of any JSON in a CRD: kube-derive gives `BTreeMap<String, serde_json::Value>` the schema
//! `additionalProperties: true`, which the API server accepts but prunes: it keeps the keys and scalar (and list)
//! values, and drops every field of an object inside a value (`{"a": {"b": 1}}` is stored as `{"a": {}}`, checked
//! against kube-apiserver 1.20). Not an error (the CRD is valid and kube-derive's own); a note with the fix.

use serde_json::Value;

use super::GeneratedCrd;

/// The note for each map of any JSON in the CRD's schemas, by version and path (`spec.settings`).
pub fn pruning_notes(generated: &GeneratedCrd) -> Vec<String> {
    let mut found = Vec::new();
    for v in generated.crd["spec"]["versions"].as_array().into_iter().flatten() {
        if let Some(root) = v.pointer("/schema/openAPIV3Schema") {
            let mut at = At { version: v["name"].as_str().unwrap_or_default(), path: String::new(), steps: Vec::new() };
            walk(root, &mut at, &mut found);
        }
    }
    found
        .into_iter()
        .map(|(version, path, fix)| {
            format!(
                "note: CRD {} {version}: `{path}` is a map of any JSON (`additionalProperties: true`): the API server \
                 keeps its keys but prunes every field of an object inside its values; to keep them, add {fix} to the \
                 field",
                generated.name
            )
        })
        .collect()
}

/// Where the walk is: the version, the path shown, the subschema keys since the last property.
struct At<'a> {
    version: &'a str,
    path: String,
    steps: Vec<&'static str>,
}

/// The attribute that makes the values of the map `steps` below its field keep unknown fields: the extension on
/// the first subschema on the way, replaced by one whose map values keep them.
fn fix(steps: &[&str]) -> String {
    const KEEP: &str = "{\"x-kubernetes-preserve-unknown-fields\": true}";
    let Some((first, rest)) = steps.split_first() else {
        return format!("#[schemars(extend(\"additionalProperties\" = {KEEP}))]");
    };
    let mut text = format!("{{\"type\": \"object\", \"additionalProperties\": {KEEP}}}");
    for step in rest.iter().rev() {
        let ty = if *step == "items" { "array" } else { "object" };
        text = format!("{{\"type\": \"{ty}\", \"{step}\": {text}}}");
    }
    format!("#[schemars(extend(\"{first}\" = {text}))]")
}

fn walk(schema: &Value, at: &mut At, out: &mut Vec<(String, String, String)>) {
    let Value::Object(o) = schema else { return };
    if o.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)) {
        return;
    }
    if o.get("additionalProperties") == Some(&Value::Bool(true)) {
        out.push((at.version.to_string(), at.path.clone(), fix(&at.steps)));
    }
    if let Some(Value::Object(props)) = o.get("properties") {
        for (name, p) in props {
            let (len, steps) = (at.path.len(), std::mem::take(&mut at.steps));
            if !at.path.is_empty() {
                at.path.push('.');
            }
            at.path.push_str(name);
            walk(p, at, out);
            at.path.truncate(len);
            at.steps = steps;
        }
    }
    for (key, suffix) in [("items", "[]"), ("additionalProperties", ".*")] {
        if let Some(sub @ Value::Object(_)) = o.get(key) {
            let len = at.path.len();
            at.path.push_str(suffix);
            at.steps.push(key);
            walk(sub, at, out);
            at.steps.pop();
            at.path.truncate(len);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn maps_of_any_json_get_a_note_naming_their_path() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "labels": {"type": "object", "additionalProperties": true},
            "sets": {"type": "array", "items": {"type": "object", "additionalProperties": true}},
            "kept": {"type": "object", "additionalProperties": {"x-kubernetes-preserve-unknown-fields": true}},
            "open": {"x-kubernetes-preserve-unknown-fields": true, "type": "object", "properties": {
                "inner": {"type": "object", "additionalProperties": true}}},
        }}}});
        let crd = json!({"spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema": schema}}]}});
        let generated = GeneratedCrd {
            name: "things.example.com".into(),
            group: "example.com".into(),
            plural: "things".into(),
            file_name: "example.com_things.yaml".into(),
            crd,
        };
        let notes = pruning_notes(&generated);
        assert_eq!(notes.len(), 2, "{notes:#?}");
        assert!(notes[0].starts_with("note: CRD things.example.com v1: `spec.labels` is a map of any JSON"));
        assert!(notes[1].starts_with("note: CRD things.example.com v1: `spec.sets[]` is a map of any JSON"));
        assert!(notes[0].ends_with(
            "add #[schemars(extend(\"additionalProperties\" = {\"x-kubernetes-preserve-unknown-fields\": true}))] to \
             the field"
        ));
        assert!(notes[1].ends_with(
            "add #[schemars(extend(\"items\" = {\"type\": \"object\", \"additionalProperties\": \
             {\"x-kubernetes-preserve-unknown-fields\": true}}))] to the field"
        ));
    }
}
