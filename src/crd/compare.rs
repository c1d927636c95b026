//! Where two CRDs differ, by path: `adopt` compares the CRD YAML a repository ships with the one kubesmith
//! generates, the first question a maintainer asks before switching.
//!
//! Paths read like `spec.versions[v1].schema.openAPIV3Schema...`: lists of named objects are matched by name, scalar
//! lists compared whole, and `status` and the metadata a cluster adds are left out.

use serde_json::Value;

/// Metadata a cluster or a tool adds, which says nothing about the API.
const IGNORED_METADATA: &[&str] =
    &["annotations", "labels", "creationTimestamp", "generation", "resourceVersion", "uid", "managedFields"];

/// One place the two differ: its path (`spec.versions[v1].schema.openAPIV3Schema.properties.spec.required`) and
/// the value on each side (`None`: absent there).
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    pub path: String,
    pub left: Option<Value>,
    pub right: Option<Value>,
}

/// Every difference between two CRD objects, in path order. `status` and the metadata clusters and tools add are
/// left out; lists of named objects (`versions`) are matched by name, lists of scalars (`required`, `enum`)
/// compared whole.
pub fn differences(left: &Value, right: &Value) -> Vec<Difference> {
    let strip = |v: &Value| {
        let mut v = v.clone();
        if let Some(o) = v.as_object_mut() {
            o.remove("status");
            if let Some(m) = o.get_mut("metadata").and_then(Value::as_object_mut) {
                m.retain(|k, _| !IGNORED_METADATA.contains(&k.as_str()));
            }
        }
        v
    };
    let mut out = Vec::new();
    walk(&strip(left), &strip(right), &mut String::new(), &mut out);
    out
}

fn walk(left: &Value, right: &Value, path: &mut String, out: &mut Vec<Difference>) {
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
                match (l.get(k), r.get(k)) {
                    (Some(a), Some(b)) => walk(a, b, path, out),
                    (a, b) => out.push(Difference { path: path.clone(), left: a.cloned(), right: b.cloned() }),
                }
                path.truncate(len);
            }
        }
        (Value::Array(l), Value::Array(r)) if named(l) && named(r) => {
            let name = |v: &Value| v["name"].as_str().unwrap_or_default().to_string();
            let mut names: Vec<String> = l.iter().chain(r).map(name).collect();
            names.sort();
            names.dedup();
            for n in names {
                let len = path.len();
                path.push_str(&format!("[{n}]"));
                match (l.iter().find(|v| name(v) == n), r.iter().find(|v| name(v) == n)) {
                    (Some(a), Some(b)) => walk(a, b, path, out),
                    (a, b) => out.push(Difference { path: path.clone(), left: a.cloned(), right: b.cloned() }),
                }
                path.truncate(len);
            }
        }
        (Value::Array(l), Value::Array(r)) if l.len() == r.len() && l.iter().chain(r).all(is_container) => {
            for (i, (a, b)) in l.iter().zip(r).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                walk(a, b, path, out);
                path.truncate(len);
            }
        }
        (a, b) if same_value(a, b) => {}
        (a, b) => out.push(Difference { path: path.clone(), left: Some(a.clone()), right: Some(b.clone()) }),
    }
}

/// Every element an object with a `name` (a CRD's `versions`, `additionalPrinterColumns`).
fn named(list: &[Value]) -> bool {
    !list.is_empty() && list.iter().all(|v| v["name"].is_string())
}

fn is_container(v: &Value) -> bool {
    v.is_object() || v.is_array()
}

/// Equal, counting `1` and `1.0` the same (YAML writers differ on floats).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd(version: Value) -> Value {
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
               "metadata": {"name": "widgets.example.org", "annotations": {"controller-gen.kubebuilder.io/version": "v0.16"}},
               "spec": {"group": "example.org", "versions": [version]}, "status": {"storedVersions": ["v1"]}})
    }

    #[test]
    fn differences_are_reported_by_path_with_versions_matched_by_name() {
        let shipped = crd(json!({"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
            "type": "object", "properties": {"spec": {"type": "object", "required": ["size"],
                "properties": {"size": {"type": "integer", "minimum": 1.0}, "old": {"type": "string"}}}}}}}));
        let ours = crd(json!({"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
            "type": "object", "properties": {"spec": {"type": "object", "required": ["size", "image"],
                "properties": {"size": {"type": "integer", "minimum": 1}, "image": {"type": "string"}}}}}}}));
        let got: Vec<(String, Option<Value>, Option<Value>)> =
            differences(&shipped, &ours).into_iter().map(|d| (d.path, d.left, d.right)).collect();
        let spec = "spec.versions[v1].schema.openAPIV3Schema.properties.spec";
        assert_eq!(
            got,
            [
                (format!("{spec}.properties.image"), None, Some(json!({"type": "string"}))),
                (format!("{spec}.properties.old"), Some(json!({"type": "string"})), None),
                (format!("{spec}.required"), Some(json!(["size"])), Some(json!(["size", "image"]))),
            ]
        );
        assert!(differences(&ours, &ours).is_empty());
    }

    #[test]
    fn a_version_on_one_side_only_is_one_difference() {
        let mut two = crd(json!({"name": "v1", "served": true}));
        two["spec"]["versions"].as_array_mut().unwrap().push(json!({"name": "v2", "served": true}));
        let d = differences(&crd(json!({"name": "v1", "served": true})), &two);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].path, "spec.versions[v2]");
        assert!(d[0].left.is_none());
    }
}
