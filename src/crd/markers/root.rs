//! The root-schema markers of a `#[derive(CustomResource)]` spec struct (`+kubesmith:root:typeMeta`,
//! `+kubesmith:root:required`, `+kubesmith:root:optional`, `+kubesmith:root:notNullable`, `+kubesmith:root:nullable`, `+kubesmith:root:title`,
//! `+kubesmith:root:noTitle`, `+kubesmith:root:specDefault`, `+kubesmith:root:statusDefault`): the parts of the root `openAPIV3Schema` no Rust type can
//! change, written the way controller-gen writes them, so that a Rust port of a Go operator keeps its CRD.
//!
//! One function ([`apply_to_version_schema`]) serves the static generator and the compiled fallback, each on the
//! version's final schema (after kube's transforms and the schema markers). Order: `typeMeta`, the title, the
//! defaults, then every `required`, then every `optional`; the root `required` stays sorted, as kube/schemars
//! write it.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use crate::crd::error::CrdError;
use crate::markers::Marker;

/// `+kubesmith:root:typeMeta[:apiVersion=<string>,kind=<string>]`.
pub const TYPE_META: &str = "kubesmith:root:typeMeta";
/// `+kubesmith:root:required=<string list>`.
pub const REQUIRED: &str = "kubesmith:root:required";
/// `+kubesmith:root:optional=<string list>`.
pub const OPTIONAL: &str = "kubesmith:root:optional";
/// `+kubesmith:root:notNullable=<string list>`.
pub const NOT_NULLABLE: &str = "kubesmith:root:notNullable";
/// `+kubesmith:root:nullable=<string list>`.
pub const NULLABLE: &str = "kubesmith:root:nullable";
/// `+kubesmith:root:properties=<JSON object>`.
pub const PROPERTIES: &str = "kubesmith:root:properties";
/// `+kubesmith:root:title=<string>`.
pub const TITLE: &str = "kubesmith:root:title";
/// `+kubesmith:root:noTitle`.
pub const NO_TITLE: &str = "kubesmith:root:noTitle";
/// `+kubesmith:root:specDefault=<JSON>`.
pub const SPEC_DEFAULT: &str = "kubesmith:root:specDefault";
/// `+kubesmith:root:statusDefault=<JSON>`.
pub const STATUS_DEFAULT: &str = "kubesmith:root:statusDefault";

/// The description controller-gen gives `apiVersion` (metav1.TypeMeta's doc comment, current form).
pub const API_VERSION_DOC: &str = "APIVersion defines the versioned schema of this representation of an object.\n\
     Servers should convert recognized schemas to the latest internal value, and\n\
     may reject unrecognized values.\n\
     More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";

/// The description controller-gen gives `kind` (metav1.TypeMeta's doc comment, current form).
pub const KIND_DOC: &str = "Kind is a string value representing the REST resource this object represents.\n\
     Servers may infer this from the endpoint the client submits requests to.\n\
     Cannot be updated.\n\
     In CamelCase.\n\
     More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";

/// Whether `name` is one of the root-schema markers.
pub fn is_root_marker(name: &str) -> bool {
    [TYPE_META, PROPERTIES, REQUIRED, OPTIONAL, NOT_NULLABLE, NULLABLE, TITLE, NO_TITLE, SPEC_DEFAULT, STATUS_DEFAULT]
        .contains(&name)
}

/// The root-schema markers among a spec struct's markers, in marker order.
pub fn root_markers(markers: &[Marker]) -> Vec<Marker> {
    markers.iter().filter(|m| is_root_marker(&m.name)).cloned().collect()
}

fn err(m: &Marker, msg: impl std::fmt::Display) -> CrdError {
    CrdError::marker(&m.file, m.line, format!("`+{}`: {msg}", m.name))
}

/// Applies the root-schema markers among `markers` to a version's `schema` (`{openAPIV3Schema: ..}`); a version
/// without a schema (`#[kube(schema = "disabled")]`) cannot take them.
pub fn apply_to_version_schema(markers: &[Marker], schema: &mut Value) -> Result<(), CrdError> {
    let Some(first) = markers.iter().find(|m| is_root_marker(&m.name)) else {
        return Ok(());
    };
    match schema.get_mut("openAPIV3Schema") {
        Some(root) if root.is_object() => apply_root(markers, root),
        _ => Err(err(
            first,
            "the version has no schema (#[kube(schema = \"disabled\")]) whose root it could change; drop the marker \
             or let kube derive the schema",
        )),
    }
}

/// `+kubesmith:root:properties`: root properties beside `spec` and `status` (argo-cd's Application keeps an
/// `operation` there), which a kind's Rust type cannot hold, so a CRD that has them keeps them.
fn add_properties(m: &Marker, root: &mut Map<String, Value>) -> Result<(), CrdError> {
    let text = m.string("").unwrap_or_default();
    let given: Map<String, Value> = match serde_json::from_str(text) {
        Ok(Value::Object(o)) if !o.is_empty() && o.values().all(Value::is_object) => o,
        Ok(_) => return Err(err(m, "takes a JSON object of property names to their schemas")),
        Err(e) => return Err(err(m, format!("`{text}` is not JSON ({e}); write the properties as a JSON object"))),
    };
    let props = root.entry("properties").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(props) = props else {
        return Err(err(m, "the root's `properties` is not an object"));
    };
    for (name, schema) in given {
        if props.contains_key(&name) {
            return Err(err(
                m,
                format!("`{name}` is a root property already (from the Rust type); drop it from the marker"),
            ));
        }
        props.insert(name, schema);
    }
    Ok(())
}

/// Applies the root-schema markers among `markers` to a root `openAPIV3Schema` object.
pub fn apply_root(markers: &[Marker], root: &mut Value) -> Result<(), CrdError> {
    let Value::Object(root) = root else {
        return Ok(());
    };
    let of = |name: &'static str| markers.iter().filter(move |m| m.name == name);
    let mut type_meta = of(TYPE_META);
    if let Some(m) = type_meta.next() {
        if let Some(again) = type_meta.next() {
            return Err(err(again, format!("given twice (first at line {}); keep one", m.line)));
        }
        add_type_meta(m, root)?;
    }
    for m in of(PROPERTIES) {
        add_properties(m, root)?;
    }
    apply_title(markers, root)?;
    for (name, property) in [(SPEC_DEFAULT, "spec"), (STATUS_DEFAULT, "status")] {
        let mut given = of(name);
        if let Some(m) = given.next() {
            if let Some(again) = given.next() {
                return Err(err(again, format!("given twice (first at line {}); keep one", m.line)));
            }
            add_default(m, root, property)?;
        }
    }
    let kube_required = required_of(root);
    let mut required = kube_required.clone();
    let mut changed = false;
    for m in of(REQUIRED) {
        for name in m.strings("") {
            if !has_property(root, &name) {
                return Err(err(
                    m,
                    format!("`{name}` is not a root property ({}){}", properties_of(root), hint(&name)),
                ));
            }
            if !required.insert(name.clone()) {
                let why = if kube_required.contains(&name) {
                    "kube-derive's root already requires it"
                } else {
                    "it is named twice"
                };
                return Err(err(m, format!("`{name}` is already in the root `required` ({why}); drop it")));
            }
            changed = true;
        }
    }
    for m in of(OPTIONAL) {
        for name in m.strings("") {
            if !required.remove(&name) {
                let listed = required.iter().map(String::as_str).collect::<Vec<_>>().join(", ");
                let no_spec = if name == "spec" && !has_property(root, "spec") {
                    " (with #[kube(no_spec)] the root has no `spec`: the spec's fields sit at the root)"
                } else {
                    ""
                };
                return Err(err(
                    m,
                    format!("`{name}` is not in the root `required` ([{listed}]){no_spec}; drop it from the list"),
                ));
            }
            changed = true;
        }
    }
    for m in of(NOT_NULLABLE) {
        for name in m.strings("") {
            let prop = root.get_mut("properties").and_then(|p| p.get_mut(&name)).and_then(Value::as_object_mut);
            match prop.map(|p| p.remove("nullable")) {
                Some(Some(_)) => {}
                Some(None) => {
                    return Err(err(m, format!("the root property `{name}` is not nullable; drop it from the list")));
                }
                None => {
                    return Err(err(
                        m,
                        format!("`{name}` is not a root property ({}){}", properties_of(root), hint(&name)),
                    ));
                }
            }
        }
    }
    for m in of(NULLABLE) {
        for name in m.strings("") {
            let prop = root.get_mut("properties").and_then(|p| p.get_mut(&name)).and_then(Value::as_object_mut);
            match prop {
                Some(p) if p.get("nullable") == Some(&Value::Bool(true)) => {
                    return Err(err(
                        m,
                        format!("the root property `{name}` is nullable already; drop it from the list"),
                    ));
                }
                Some(p) => {
                    p.insert("nullable".into(), Value::Bool(true));
                }
                None => {
                    return Err(err(
                        m,
                        format!("`{name}` is not a root property ({}){}", properties_of(root), hint(&name)),
                    ));
                }
            }
        }
    }
    if changed {
        if required.is_empty() {
            root.remove("required");
        } else {
            root.insert("required".into(), Value::Array(required.into_iter().map(Value::String).collect()));
        }
    }
    Ok(())
}

/// `apiVersion` and `kind` (`type: string`, described) and `metadata: {type: object}`; no root `title`.
fn add_type_meta(m: &Marker, root: &mut Map<String, Value>) -> Result<(), CrdError> {
    let props = root.entry("properties").or_insert_with(|| json!({}));
    let Value::Object(props) = props else {
        return Ok(());
    };
    let string_prop = |arg: &str, default: &str| {
        let doc = m.string(arg).unwrap_or(default);
        if doc.is_empty() { json!({ "type": "string" }) } else { json!({ "description": doc, "type": "string" }) }
    };
    let added = [
        ("apiVersion", string_prop("apiVersion", API_VERSION_DOC)),
        ("kind", string_prop("kind", KIND_DOC)),
        ("metadata", json!({ "type": "object" })),
    ];
    for (name, schema) in added {
        if props.contains_key(name) {
            return Err(err(m, format!("the root already has a property `{name}`; rename the field")));
        }
        props.insert(name.to_string(), schema);
    }
    root.remove("title");
    Ok(())
}

/// `+kubesmith:root:title=..` sets the root `title`, `+kubesmith:root:noTitle` drops the one kube-derive writes
/// (the kind's name, when the doc has no title of its own).
fn apply_title(markers: &[Marker], root: &mut Map<String, Value>) -> Result<(), CrdError> {
    let given: Vec<&Marker> = markers.iter().filter(|m| m.name == TITLE || m.name == NO_TITLE).collect();
    let Some(m) = given.first() else {
        return Ok(());
    };
    if let Some(again) = given.get(1) {
        return Err(err(again, format!("the root title is already set at line {}; keep one marker", m.line)));
    }
    match m.string("") {
        Some(title) if m.name == TITLE => {
            if title.is_empty() {
                return Err(err(m, "an empty title; use `+kubesmith:root:noTitle` for no title"));
            }
            root.insert("title".into(), json!(title));
        }
        _ => {
            root.remove("title");
        }
    }
    Ok(())
}

/// `default` on the root property `property` (`spec` or `status`), a JSON object.
fn add_default(m: &Marker, root: &mut Map<String, Value>, property: &str) -> Result<(), CrdError> {
    let text = m.string("").unwrap_or_default();
    let value: Value = serde_json::from_str(text)
        .map_err(|e| err(m, format!("`{text}` is not JSON ({e}); write the default as a JSON object")))?;
    if !value.is_object() {
        return Err(err(m, format!("the default of `{property}` must be a JSON object (`{{..}}`), not `{text}`")));
    }
    let found = properties_of(root);
    let Some(prop) = root.get_mut("properties").and_then(|p| p.get_mut(property)).and_then(Value::as_object_mut) else {
        return Err(err(m, format!("`{property}` is not a root property ({found}){}", hint(property))));
    };
    prop.insert("default".into(), value);
    Ok(())
}

fn required_of(root: &Map<String, Value>) -> BTreeSet<String> {
    match root.get("required") {
        Some(Value::Array(a)) => a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect(),
        _ => BTreeSet::new(),
    }
}

fn has_property(root: &Map<String, Value>, name: &str) -> bool {
    root.get("properties").and_then(Value::as_object).is_some_and(|p| p.contains_key(name))
}

fn properties_of(root: &Map<String, Value>) -> String {
    let names: Vec<&str> =
        root.get("properties").and_then(Value::as_object).into_iter().flatten().map(|(k, _)| k.as_str()).collect();
    if names.is_empty() {
        "the root has no properties".to_string()
    } else {
        format!("the root has {}", names.join(", "))
    }
}

fn hint(name: &str) -> &'static str {
    match name {
        "apiVersion" | "kind" | "metadata" => "; add `+kubesmith:root:typeMeta` for apiVersion, kind and metadata",
        "status" => "; `#[kube(status = \"..\")]` adds status",
        _ => "",
    }
}

#[cfg(test)]
mod tests;
