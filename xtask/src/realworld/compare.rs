//! How the harness compares CRDs: as data (parsed YAML, key order ignored), as the API server would store them
//! (its defaults filled in, set-like lists sorted, numbers as values), and by meaning per version against
//! kube-derive's `crd()`; the first differing path is what a table shows.

use serde_json::{Map, Value};

/// The parts of a CRD that make it what it is: `apiVersion`, `kind`, `metadata.name` and `spec` (status,
/// annotations and labels left out: tools and clusters add them).
pub fn identity(crd: &Value) -> Value {
    let mut out = Map::new();
    for key in ["apiVersion", "kind", "spec"] {
        if let Some(v) = crd.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    out.insert("metadata".into(), serde_json::json!({ "name": crd.pointer("/metadata/name").cloned() }));
    Value::Object(out)
}

/// [`identity`] as the API server stores it: `names.singular` and `listKind` defaulted, `conversion: {strategy:
/// None}` and `preserveUnknownFields: false` (the defaults) dropped, empty `subresources` dropped, versions in name
/// order, `required` lists sorted, whole numbers as integers.
pub fn as_stored(crd: &Value) -> Value {
    let mut crd = identity(crd);
    let kind = crd.pointer("/spec/names/kind").and_then(Value::as_str).unwrap_or_default().to_string();
    if let Some(names) = crd.pointer_mut("/spec/names").and_then(Value::as_object_mut) {
        names.entry("singular").or_insert_with(|| Value::String(kind.to_ascii_lowercase()));
        names.entry("listKind").or_insert_with(|| Value::String(format!("{kind}List")));
    }
    if let Some(spec) = crd.get_mut("spec").and_then(Value::as_object_mut) {
        if spec.get("conversion") == Some(&serde_json::json!({"strategy": "None"})) {
            spec.remove("conversion");
        }
        if spec.get("preserveUnknownFields") == Some(&Value::Bool(false)) {
            spec.remove("preserveUnknownFields");
        }
        if let Some(Value::Array(versions)) = spec.get_mut("versions") {
            versions.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
            for v in versions.iter_mut().filter_map(Value::as_object_mut) {
                if v.get("subresources") == Some(&serde_json::json!({})) {
                    v.remove("subresources");
                }
            }
        }
    }
    settle(&mut crd);
    crd
}

/// Whole numbers as integers, `required` sorted, everywhere below `v`.
fn settle(v: &mut Value) {
    match v {
        Value::Number(n) => {
            if let Some(f) = n.as_f64().filter(|f| n.is_f64() && f.fract() == 0.0 && f.abs() < 9.0e15) {
                *v = Value::from(f as i64);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(settle),
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                if let (true, Value::Array(list)) = (k == "required", &mut *x) {
                    list.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
                }
                settle(x);
            }
        }
        _ => {}
    }
}

/// The first path (`spec.versions[v1].schema...`) where `left` and `right` differ, with a short view of each side;
/// `None` when equal. Lists of objects with a `name` are matched by name.
pub fn first_difference(left: &Value, right: &Value) -> Option<String> {
    let mut path = String::new();
    walk(left, right, &mut path)
}

fn walk(left: &Value, right: &Value, path: &mut String) -> Option<String> {
    let here = |path: &str, l: Option<&Value>, r: Option<&Value>| {
        Some(format!("{}: {} / {}", if path.is_empty() { "(root)" } else { path }, short(l), short(r)))
    };
    match (left, right) {
        (Value::Object(l), Value::Object(r)) => {
            let mut keys: Vec<&String> = l.keys().chain(r.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                let found = match (l.get(k), r.get(k)) {
                    (Some(a), Some(b)) => walk(a, b, path),
                    (a, b) => here(path, a, b),
                };
                if found.is_some() {
                    return found;
                }
                path.truncate(len);
            }
            None
        }
        (Value::Array(l), Value::Array(r)) if l.len() == r.len() => {
            for (i, (a, b)) in l.iter().zip(r).enumerate() {
                let len = path.len();
                match a.get("name").and_then(Value::as_str) {
                    Some(n) => path.push_str(&format!("[{n}]")),
                    None => path.push_str(&format!("[{i}]")),
                }
                if let Some(found) = walk(a, b, path) {
                    return Some(found);
                }
                path.truncate(len);
            }
            None
        }
        (a, b) if a == b => None,
        (a, b) => here(path, Some(a), Some(b)),
    }
}

fn short(v: Option<&Value>) -> String {
    let Some(v) = v else { return "(absent)".into() };
    let text = v.to_string();
    if text.chars().count() > 60 { format!("{}…", text.chars().take(60).collect::<String>()) } else { text }
}

/// One version of a CRD as kube-derive's `crd()` of that version's type gives it, for comparison by meaning: the
/// version object (its `storage` flag left out: the merge decides it) with the CRD's group, names and scope.
pub fn version_view(crd: &Value, version: &str) -> Option<Value> {
    let spec = crd.get("spec")?;
    let mut v = spec["versions"].as_array()?.iter().find(|v| v["name"] == version)?.clone();
    let fields = v.as_object_mut()?;
    fields.remove("storage");
    // kube-derive spells out what is empty (`subresources: {}`, `shortNames: []`); by meaning it is absent
    fields.retain(|_, x| !is_empty(x));
    let mut names = spec["names"].clone();
    if let Some(n) = names.as_object_mut() {
        n.retain(|_, x| !is_empty(x));
    }
    let mut out = serde_json::json!({
        "group": spec["group"], "names": names, "scope": spec["scope"], "version": v,
    });
    settle(&mut out);
    Some(out)
}

fn is_empty(v: &Value) -> bool {
    v.as_array().is_some_and(Vec::is_empty) || v.as_object().is_some_and(Map::is_empty)
}

/// Where `schema` (an `openAPIV3Schema`) breaks the API server's structural rules, as far as this check sees:
/// a node below the root with no `type` (unless int-or-string or preserve-unknown-fields), or a `type`,
/// `default` or `nullable` inside `allOf`/`anyOf`/`oneOf`/`not`. `None`: structural.
pub fn non_structural(schema: &Value) -> Option<String> {
    fn node(s: &Value, path: &str, root: bool) -> Option<String> {
        let o = s.as_object()?;
        let free = o.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true))
            || o.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
        if !root && !free && o.get("type").and_then(Value::as_str).is_none_or(str::is_empty) {
            return Some(format!("{path}: no type"));
        }
        let int_or_string = o.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true));
        for c in ["allOf", "anyOf", "oneOf"] {
            for (i, branch) in o.get(c).and_then(Value::as_array).into_iter().flatten().enumerate() {
                // the one combinator with types the server allows: int-or-string's `anyOf` of integer and string
                let types_only = branch.as_object().is_some_and(|b| b.keys().all(|k| k == "type"));
                if int_or_string && c == "anyOf" && types_only {
                    continue;
                }
                if let Some(bad) = in_combinator(branch, &format!("{path}.{c}[{i}]")) {
                    return Some(bad);
                }
            }
        }
        if let Some(bad) = o.get("not").and_then(|n| in_combinator(n, &format!("{path}.not"))) {
            return Some(bad);
        }
        for (k, p) in o.get("properties").and_then(Value::as_object).into_iter().flatten() {
            if let Some(bad) = node(p, &format!("{path}.{k}"), false) {
                return Some(bad);
            }
        }
        for key in ["items", "additionalProperties"] {
            let sub = o.get(key).filter(|v| v.is_object());
            if let Some(bad) = sub.and_then(|sub| node(sub, &format!("{path}.{key}"), false)) {
                return Some(bad);
            }
        }
        None
    }
    fn in_combinator(s: &Value, path: &str) -> Option<String> {
        let o = s.as_object()?;
        for forbidden in ["type", "default", "nullable", "additionalProperties", "description"] {
            if o.contains_key(forbidden) {
                return Some(format!("{path}: `{forbidden}` inside a combinator"));
            }
        }
        for (k, p) in o.get("properties").and_then(Value::as_object).into_iter().flatten() {
            if let Some(bad) = in_combinator(p, &format!("{path}.{k}")) {
                return Some(bad);
            }
        }
        None
    }
    node(schema, "", true)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn crd(extra: Value) -> Value {
        let mut c = json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "foos.x.io", "annotations": {"controller-gen.kubebuilder.io/version": "v0.16.0"}},
            "spec": {"group": "x.io", "scope": "Namespaced", "names": {"kind": "Foo", "plural": "foos"},
                     "versions": [{"name": "v1", "served": true, "storage": true,
                                   "schema": {"openAPIV3Schema": {"type": "object", "required": ["b", "a"],
                                              "properties": {"a": {"type": "integer", "maximum": 5}}}}}]}
        });
        if let (Some(spec), Value::Object(extra)) = (c["spec"].as_object_mut(), extra) {
            spec.extend(extra);
        }
        c
    }

    #[test]
    fn identity_ignores_annotations_and_status_only() {
        let mut other = crd(json!({}));
        other["metadata"]["annotations"] = json!({});
        other["status"] = json!({"acceptedNames": {}});
        assert_eq!(identity(&crd(json!({}))), identity(&other));
        let renamed = crd(json!({"names": {"kind": "Foo", "plural": "foos", "singular": "foo"}}));
        assert_ne!(identity(&crd(json!({}))), identity(&renamed));
    }

    #[test]
    fn as_stored_fills_the_servers_defaults_and_orders_sets() {
        let plain = crd(json!({}));
        let mut spelled = crd(json!({
            "names": {"kind": "Foo", "plural": "foos", "singular": "foo", "listKind": "FooList"},
            "conversion": {"strategy": "None"}, "preserveUnknownFields": false,
        }));
        spelled["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["required"] = json!(["a", "b"]);
        spelled["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["a"]["maximum"] = json!(5.0);
        assert_ne!(identity(&plain), identity(&spelled));
        assert_eq!(as_stored(&plain), as_stored(&spelled));
        let webhook = crd(json!({"conversion": {"strategy": "Webhook"}}));
        assert_ne!(as_stored(&plain), as_stored(&webhook));
    }

    #[test]
    fn the_first_difference_names_the_path_and_both_sides() {
        let a = crd(json!({}));
        let mut b = a.clone();
        b["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["a"]["maximum"] = json!(6);
        assert_eq!(
            first_difference(&a, &b).unwrap(),
            "spec.versions[v1].schema.openAPIV3Schema.properties.a.maximum: 5 / 6"
        );
        assert_eq!(first_difference(&a, &a), None);
        b["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["a"]["maximum"] = json!(5);
        b["spec"]["scope"] = json!("Cluster");
        assert_eq!(first_difference(&a, &b).unwrap(), "spec.scope: \"Namespaced\" / \"Cluster\"");
        let mut c = a.clone();
        c["spec"].as_object_mut().unwrap().remove("scope");
        assert_eq!(first_difference(&a, &c).unwrap(), "spec.scope: \"Namespaced\" / (absent)");
    }

    #[test]
    fn a_version_view_leaves_storage_out() {
        let mut a = crd(json!({}));
        let b = a.clone();
        a["spec"]["versions"][0]["storage"] = json!(false);
        assert_eq!(version_view(&a, "v1"), version_view(&b, "v1"));
        assert_eq!(version_view(&a, "v2"), None);
        // empty lists and objects kube-derive spells out mean what their absence means
        a["spec"]["names"]["shortNames"] = json!([]);
        a["spec"]["versions"][0]["subresources"] = json!({});
        assert_eq!(version_view(&a, "v1"), version_view(&b, "v1"));
        a["spec"]["names"]["shortNames"] = json!(["f"]);
        assert_ne!(version_view(&a, "v1"), version_view(&b, "v1"));
    }

    #[test]
    fn structural_rules() {
        let ok = json!({"type": "object", "properties": {"a": {"type": "string"},
            "b": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]}}});
        // int-or-string's own anyOf of types is what kube emits and the server accepts; elsewhere it is not
        assert_eq!(non_structural(&ok), None);
        let typed_branch =
            json!({"type": "object", "properties": {"a": {"type": "string", "anyOf": [{"type": "string"}]}}});
        assert_eq!(non_structural(&typed_branch).unwrap(), ".a.anyOf[0]: `type` inside a combinator");
        let untyped = json!({"type": "object", "properties": {"a": {"description": "x"}}});
        assert_eq!(non_structural(&untyped).unwrap(), ".a: no type");
        let preserved = json!({"type": "object", "properties": {"a": {"x-kubernetes-preserve-unknown-fields": true}}});
        assert_eq!(non_structural(&preserved), None);
    }
}
