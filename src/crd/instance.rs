//! Objects against their CRD's schema — a sample in `config/samples/`, an example in a CSV's `alm-examples` — as
//! the API server checks them on create: types, required fields, enums, bounds, lengths, patterns and unknown
//! fields. The jsonschema crate does the validating, on the version's `openAPIV3Schema` translated the way
//! Kubernetes reads it (`nullable`, `x-kubernetes-int-or-string`, `x-kubernetes-preserve-unknown-fields`,
//! embedded resources; formats are not checked, as the API server checks few).

use serde_json::{Map, Value, json};

/// What is wrong with `object` by the schema of the CRD version among `crds` that serves its `apiVersion` and
/// `kind`, one line per problem (`spec.size: "3" is not of type "integer"`); `None` when no CRD serves it.
pub fn problems(crds: &[Value], object: &Value) -> Option<Vec<String>> {
    let api = object["apiVersion"].as_str()?;
    let (group, version) = api.rsplit_once('/')?;
    let kind = object["kind"].as_str()?;
    let crd = crds.iter().find(|c| c["spec"]["group"] == group && c["spec"]["names"]["kind"] == kind)?;
    let served = crd["spec"]["versions"].as_array()?.iter().find(|v| v["name"] == version);
    let Some(served) = served else {
        return Some(vec![format!(
            "{kind} has no version {version} (the CRD {} serves other versions)",
            s(&crd["metadata"]["name"])
        )]);
    };
    let Some(schema) = served.pointer("/schema/openAPIV3Schema") else { return Some(Vec::new()) };
    let translated = translate(schema, true);
    let validator = match jsonschema::options().with_draft(jsonschema::Draft::Draft4).build(&translated) {
        Ok(v) => v,
        Err(e) => return Some(vec![format!("the CRD's schema cannot be used to check it: {e}")]),
    };
    let mut out: Vec<String> = validator
        .iter_errors(object)
        .map(|e| {
            let path = e.instance_path().to_string();
            let path = path.trim_start_matches('/').replace('/', ".");
            if path.is_empty() { e.to_string() } else { format!("{path}: {e}") }
        })
        .collect();
    out.sort();
    out.dedup();
    Some(out)
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

/// A structural schema as JSON Schema draft 4, with Kubernetes' meanings. `root`: the object itself, whose
/// `apiVersion`, `kind` and `metadata` the API server handles.
fn translate(schema: &Value, root: bool) -> Value {
    let Some(m) = schema.as_object() else { return schema.clone() };
    if m.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        return nullable(m, json!({"type": ["integer", "string"]}));
    }
    let mut out = Map::new();
    for (k, v) in m {
        match k.as_str() {
            "properties" | "patternProperties" | "definitions" => {
                let props: Map<String, Value> =
                    v.as_object().into_iter().flatten().map(|(n, p)| (n.clone(), translate(p, false))).collect();
                out.insert(k.clone(), Value::Object(props));
            }
            "items" | "additionalProperties" | "not" if v.is_object() => {
                out.insert(k.clone(), translate(v, false));
            }
            "allOf" | "anyOf" | "oneOf" => {
                let list: Vec<Value> = v.as_array().into_iter().flatten().map(|p| translate(p, false)).collect();
                out.insert(k.clone(), Value::Array(list));
            }
            "nullable" | "format" | "default" | "example" | "externalDocs" | "description" => {}
            _ if k.starts_with("x-kubernetes-") => {}
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    let preserve = m.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
    let embedded = m.get("x-kubernetes-embedded-resource") == Some(&Value::Bool(true));
    if (root || embedded) && out.contains_key("properties") {
        let props = out.get_mut("properties").and_then(Value::as_object_mut).expect("inserted above as an object");
        for meta in ["apiVersion", "kind", "metadata"] {
            props.entry(meta).or_insert_with(|| json!({}));
        }
    }
    if out.contains_key("properties") && !out.contains_key("additionalProperties") && !preserve {
        out.insert("additionalProperties".into(), Value::Bool(false));
    }
    nullable(m, Value::Object(out))
}

/// `schema`, also accepting null when the original says `nullable: true` (null joins its `type` and `enum`, so
/// messages keep naming the type).
fn nullable(original: &Map<String, Value>, mut schema: Value) -> Value {
    if original.get("nullable") != Some(&Value::Bool(true)) {
        return schema;
    }
    if let Some(t) = schema.get_mut("type") {
        let mut types = match t.take() {
            Value::Array(list) => list,
            one => vec![one],
        };
        types.push(json!("null"));
        *t = Value::Array(types);
    }
    if let Some(Value::Array(values)) = schema.get_mut("enum") {
        values.push(Value::Null);
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd() -> Value {
        json!({"metadata": {"name": "memcacheds.cache.example.com"}, "spec": {"group": "cache.example.com",
            "names": {"kind": "Memcached"}, "versions": [{"name": "v1", "schema": {"openAPIV3Schema": {
                "type": "object", "properties": {
                    "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
                    "spec": {"type": "object", "required": ["size"], "properties": {
                        "size": {"type": "integer", "format": "int32", "minimum": 1},
                        "mode": {"type": "string", "enum": ["fast", "safe"], "nullable": true},
                        "port": {"x-kubernetes-int-or-string": true},
                        "name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 8},
                        "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                        "labels": {"type": "object", "additionalProperties": {"type": "string"}}}}}}}}]}})
    }

    fn check(spec: Value) -> Vec<String> {
        let object = json!({"apiVersion": "cache.example.com/v1", "kind": "Memcached",
            "metadata": {"name": "m", "labels": {"a": "b"}}, "spec": spec});
        problems(&[crd()], &object).expect("served")
    }

    #[test]
    fn objects_are_checked_as_the_api_server_checks_them() {
        let ok = json!({"size": 1, "mode": null, "port": "http", "name": "web", "extra": {"any": [1]}, "labels": {"x": "y"}});
        assert_eq!(check(ok), Vec::<String>::new());
        let got = check(
            json!({"size": "3", "mode": "slow", "port": 1.5, "name": "Web!", "notAField": 1, "labels": {"x": 2}}),
        );
        let joined = got.join("\n");
        for want in [
            "spec.size: \"3\" is not of type \"integer\"",
            "spec.mode:",
            "spec.port:",
            "spec.name:",
            "notAField",
            "spec.labels.x: 2 is not of type \"string\"",
        ] {
            assert!(joined.contains(want), "missing {want:?} in:\n{joined}");
        }
        assert!(check(json!({})).join("\n").contains("\"size\" is a required property"), "{:?}", check(json!({})));
        let other = json!({"apiVersion": "apps/v1", "kind": "Deployment"});
        assert!(problems(&[crd()], &other).is_none());
        let wrong_version = json!({"apiVersion": "cache.example.com/v2", "kind": "Memcached"});
        assert!(problems(&[crd()], &wrong_version).unwrap()[0].contains("has no version v2"));
    }
}
