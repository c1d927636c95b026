//! Applies field and type markers to a schema after kube's transforms (controller-gen semantics, reference §10.3).
//!
//! Every object of the schema may carry placeholders ([`TYPE_KEY`], [`FIELD_KEY`]) left by the generator. Per
//! object, bottom-up: the properties' field markers change this object's `required` list (`+optional`,
//! `+required`) and add `+k8s:immutable` once-set rules; then the object's own type markers and field markers
//! are applied in controller-gen's priority order.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::{FIELD_KEY, FieldKey, MarkerIndex, TYPE_KEY};
use crate::crd::error::CrdError;
use crate::crd::index::ItemId;
use crate::markers::{Marker, MarkerValue};

const VALIDATION: &str = "kubebuilder:validation:";
const ITEMS: &str = "kubebuilder:validation:items:";

/// Applies every placeholder in `schema` and removes them.
pub fn apply_schema(schema: &mut Value, idx: &MarkerIndex) -> Result<(), CrdError> {
    if idx.is_empty() {
        // No markers, so no placeholders: nothing to apply.
        return Ok(());
    }
    walk(schema, idx)
}

fn refs(obj: &mut Map<String, Value>, key: &str) -> Vec<Value> {
    match obj.remove(key) {
        Some(Value::Array(a)) => a,
        _ => Vec::new(),
    }
}

fn type_markers<'a>(idx: &'a MarkerIndex, refs: &[Value]) -> Vec<&'a Marker> {
    refs.iter().filter_map(|r| r.as_u64()).flat_map(|id| idx.item(id as ItemId)).collect()
}

pub(super) fn field_key(r: &Value) -> Option<FieldKey> {
    let a = r.as_array()?;
    Some((a.first()?.as_u64()? as usize, a.get(1)?.as_u64()? as usize, a.get(2)?.as_u64()? as usize))
}

fn field_markers<'a>(idx: &'a MarkerIndex, refs: &[Value]) -> Vec<&'a Marker> {
    refs.iter().filter_map(field_key).flat_map(|k| idx.field(k)).collect()
}

fn err(m: &Marker, msg: impl std::fmt::Display) -> CrdError {
    CrdError::marker(&m.file, m.line, format!("`+{}`: {msg}", m.name))
}

/// The unaliased short name of a marker (`Minimum`, `listType`, `optional`, ...).
fn short(name: &str) -> &str {
    if let Some(rest) = name.strip_prefix(VALIDATION) {
        return match rest {
            "Optional" => "optional",
            "Required" => "required",
            "EmbeddedResource" => "XEmbeddedResource",
            other => other,
        };
    }
    match name {
        "k8s:optional" => "optional",
        "k8s:required" => "required",
        "k8s:listType" => "listType",
        "k8s:listMapKey" => "listMapKey",
        "kubebuilder:pruning:PreserveUnknownFields" => "XPreserveUnknownFields",
        other => other.strip_prefix("kubebuilder:").unwrap_or(other),
    }
}

fn is_optional(m: &Marker) -> bool {
    short(&m.name) == "optional"
}

fn is_required(m: &Marker) -> bool {
    short(&m.name) == "required"
}

fn walk(node: &mut Value, idx: &MarkerIndex) -> Result<(), CrdError> {
    if !node.is_object() {
        return Ok(());
    }
    // Placeholders of a wrapped (Option) schema move up to the schema that stands for the field.
    for key in ["anyOf", "oneOf", "allOf"] {
        let mut lifted = (Vec::new(), Vec::new());
        if let Some(Value::Array(subs)) = node.get_mut(key) {
            for s in subs.iter_mut() {
                if let Value::Object(so) = s {
                    lifted.0.extend(refs(so, TYPE_KEY));
                    lifted.1.extend(refs(so, FIELD_KEY));
                }
            }
        }
        for (k, v) in [(TYPE_KEY, lifted.0), (FIELD_KEY, lifted.1)] {
            for r in v {
                super::add_placeholder(node, k, r);
            }
        }
    }
    let Some(obj) = node.as_object_mut() else {
        return Ok(());
    };

    let once_set = parent_effects(obj, idx)?;

    // Children first.
    if let Some(Value::Object(props)) = obj.get_mut("properties") {
        for p in props.values_mut() {
            walk(p, idx)?;
        }
    }
    match obj.get_mut("items") {
        Some(Value::Array(a)) => {
            for s in a {
                walk(s, idx)?;
            }
        }
        Some(s @ Value::Object(_)) => walk(s, idx)?,
        _ => {}
    }
    if let Some(s @ Value::Object(_)) = obj.get_mut("additionalProperties") {
        walk(s, idx)?;
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(a)) = obj.get_mut(key) {
            for s in a {
                walk(s, idx)?;
            }
        }
    }
    if let Some(s) = obj.get_mut("not") {
        walk(s, idx)?;
    }

    let trefs = refs(obj, TYPE_KEY);
    let frefs = refs(obj, FIELD_KEY);
    let tms = type_markers(idx, &trefs);
    let fms = field_markers(idx, &frefs);
    apply_own(obj, &tms, &fms)?;
    if !once_set.is_empty() {
        push_rules(obj, once_set);
    }
    Ok(())
}

/// `+optional`/`+required` of the properties (changing this object's `required`) and `+k8s:immutable`
/// once-set rules for optional properties, in declaration order.
fn parent_effects(obj: &mut Map<String, Value>, idx: &MarkerIndex) -> Result<Vec<Value>, CrdError> {
    let Some(Value::Object(props)) = obj.get("properties") else {
        return Ok(Vec::new());
    };
    let mut required: BTreeSet<String> = match obj.get("required") {
        Some(Value::Array(a)) => a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect(),
        _ => BTreeSet::new(),
    };
    let mut immutable: Vec<(FieldKey, String)> = Vec::new();
    let mut changed = false;
    for (name, p) in props {
        let Some(Value::Array(frefs)) = p.get(FIELD_KEY) else {
            continue;
        };
        for r in frefs {
            let Some(key) = field_key(r) else { continue };
            let ms = idx.field(key);
            let opt = ms.iter().find(|m| is_optional(m));
            let req = ms.iter().find(|m| is_required(m));
            if let (Some(o), Some(_)) = (opt, req) {
                return Err(err(o, format!("field `{name}` is marked both optional and required; keep one")));
            }
            if let Some(o) = opt
                && required.contains(name)
            {
                return Err(err(
                    o,
                    format!(
                        "field `{name}` is required by the Rust type (not an Option and no #[serde(default)]), so \
                             objects without it would fail to deserialize; make it `Option<..>` or add \
                             #[serde(default)] instead of the marker"
                    ),
                ));
            }
            if req.is_some() && required.insert(name.clone()) {
                changed = true;
            }
            if ms.iter().any(|m| m.name == "k8s:immutable") {
                immutable.push((key, name.clone()));
            }
        }
    }
    if changed {
        obj.insert("required".into(), Value::Array(required.iter().cloned().map(Value::String).collect()));
    }
    immutable.sort();
    Ok(immutable
        .into_iter()
        .filter(|(_, n)| !required.contains(n))
        .map(|(_, n)| {
            json!({
                "rule": format!("!has(oldSelf.{n}) || has(self.{n})"),
                "message": format!("field {n} is immutable once set"),
            })
        })
        .collect())
}

fn push_rules(obj: &mut Map<String, Value>, rules: Vec<Value>) {
    if let Value::Array(a) = obj.entry("x-kubernetes-validations").or_insert_with(|| json!([])) {
        a.extend(rules);
    }
}

/// controller-gen's apply priority (lower first; stable within a priority).
fn priority(name: &str) -> u8 {
    if name == "default" {
        return 9;
    }
    match short(name) {
        "Schemaless" => 0,
        "Type" | "XIntOrString" | "listType" => 9,
        "AtMostOneOf" => 11,
        "ExactlyOneOf" => 12,
        "AtLeastOneOf" => 13,
        _ => 10,
    }
}

fn type_of(obj: &Map<String, Value>) -> String {
    match obj.get("type") {
        Some(Value::String(s)) => s.clone(),
        _ if obj.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) => "int-or-string".into(),
        _ if obj.contains_key("properties") || obj.contains_key("additionalProperties") => "object".into(),
        _ => "untyped".into(),
    }
}

fn number(m: &Marker) -> Option<f64> {
    match m.value()? {
        MarkerValue::Int(i) => Some(*i as f64),
        MarkerValue::Float(f) => Some(*f),
        _ => None,
    }
}

fn flag(m: &Marker) -> bool {
    !matches!(m.value(), Some(MarkerValue::Bool(false)))
}

/// Rules collected while applying markers, kept apart so field rules precede type rules.
#[derive(Default)]
struct Rules {
    field: Vec<Value>,
    typ: Vec<Value>,
}

fn apply_own(obj: &mut Map<String, Value>, tms: &[&Marker], fms: &[&Marker]) -> Result<(), CrdError> {
    if tms.is_empty() && fms.is_empty() {
        return Ok(());
    }
    let mut all: Vec<(bool, &Marker)> = tms
        .iter()
        .map(|m| (false, *m))
        .chain(fms.iter().map(|m| (true, *m)))
        .filter(|(_, m)| !m.name.starts_with(ITEMS))
        .collect();
    all.sort_by_key(|(_, m)| priority(&m.name));
    let mut rules = Rules::default();
    let mut map_keys_marker: Option<&Marker> = None;
    let mut list_type_marker: Option<&Marker> = None;
    for (is_field, m) in &all {
        let s = short(&m.name);
        if s == "listMapKey" {
            map_keys_marker.get_or_insert(m);
        }
        if s == "listType" {
            list_type_marker = Some(m);
        }
        if m.name == "default" && all.iter().any(|(_, o)| o.name == "kubebuilder:default") {
            continue;
        }
        let target = if *is_field { &mut rules.field } else { &mut rules.typ };
        apply_one(obj, m, target)?;
    }
    // items: markers after the field's own markers.
    let items: Vec<&Marker> = fms.iter().chain(tms.iter()).copied().filter(|m| m.name.starts_with(ITEMS)).collect();
    if !items.is_empty() {
        let t = type_of(obj);
        let first = items[0];
        if t != "array" {
            return Err(err(first, format!("items markers apply to arrays, but this schema has type {t}")));
        }
        let Some(Value::Object(item_schema)) = obj.get_mut("items") else {
            return Err(err(first, "the array has no items schema"));
        };
        let mut item_rules = Rules::default();
        let renamed: Vec<Marker> = items
            .iter()
            .map(|m| Marker {
                name: format!("{VALIDATION}{}", m.name.strip_prefix(ITEMS).unwrap_or(&m.name)),
                ..(*m).clone()
            })
            .collect();
        for m in &renamed {
            apply_one(item_schema, m, &mut item_rules.field)?;
        }
        if !item_rules.field.is_empty() {
            push_rules(item_schema, item_rules.field);
        }
        check_consistent(item_schema, &renamed.iter().collect::<Vec<_>>())?;
    }
    // Topology consistency.
    let list_type = obj.get("x-kubernetes-list-type").and_then(Value::as_str);
    if let Some(m) = map_keys_marker
        && list_type != Some("map")
    {
        return Err(err(
            m,
            "must apply listMapKey to an associative-list: add `// +listType=map` to the same field or type",
        ));
    }
    if let (Some(m), Some("map")) = (list_type_marker, list_type) {
        let keys: Vec<String> = match obj.get("x-kubernetes-list-map-keys") {
            Some(Value::Array(a)) => a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect(),
            _ => Vec::new(),
        };
        if keys.is_empty() {
            return Err(err(m, "a map list needs its key fields: add `// +listMapKey=<field>` (repeatable)"));
        }
        let item_props = obj.get("items").and_then(|i| i.get("properties")).and_then(Value::as_object);
        let Some(item_props) = item_props else {
            return Err(err(m, "`+listType=map` needs a list of objects (structs); use `set` or `atomic` for scalars"));
        };
        if let Some(k) = keys.iter().find(|k| !item_props.contains_key(*k)) {
            return Err(err(
                map_keys_marker.unwrap_or(m),
                format!(
                    "listMapKey `{k}` is not a field of the list items (fields: {})",
                    item_props.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            ));
        }
    }
    let own: Vec<&Marker> = all.iter().map(|(_, m)| *m).collect();
    check_consistent(obj, &own)?;
    let mut new_rules = rules.field;
    new_rules.extend(rules.typ);
    if !new_rules.is_empty() {
        push_rules(obj, new_rules);
    }
    Ok(())
}

/// Bounds whose lower and upper markers must leave some value valid: (schema keys, marker names).
const BOUNDS: &[(&str, &str, &str, &str)] = &[
    ("minLength", "maxLength", "MinLength", "MaxLength"),
    ("minimum", "maximum", "Minimum", "Maximum"),
    ("minItems", "maxItems", "MinItems", "MaxItems"),
    ("minProperties", "maxProperties", "MinProperties", "MaxProperties"),
];

/// Refuses markers that leave no valid value (a lower bound above the upper one) or a default the schema itself
/// rejects (not one of the enum's values, outside the bounds): the API server refuses such a CRD, or every object.
/// The error is at the last of the markers involved; a default no marker set is left to kube-derive's rules.
fn check_consistent(obj: &Map<String, Value>, markers: &[&Marker]) -> Result<(), CrdError> {
    let last =
        |names: &[&str]| markers.iter().copied().filter(|m| names.contains(&short(&m.name))).max_by_key(|m| m.line);
    // A marker's numeric bound is still wrapped for `to_json_schema_props` here.
    let bare = |v: &Value| v.get(crate::crd::transform::MARKER_NUMBER).cloned().unwrap_or_else(|| v.clone());
    let num = |key: &str| obj.get(key).map(bare).and_then(|v| v.as_f64());
    for (lo_key, hi_key, lo_name, hi_name) in BOUNDS {
        if let (Some(lo), Some(hi), Some(m)) = (num(lo_key), num(hi_key), last(&[lo_name, hi_name]))
            && lo > hi
        {
            return Err(err(
                m,
                format!(
                    "{lo_name}={} is greater than {hi_name}={}, so no value is valid; raise {hi_name} or lower {lo_name}",
                    bare(&obj[*lo_key]),
                    bare(&obj[*hi_key])
                ),
            ));
        }
    }
    // A default from the Rust type (`#[serde(default)]`) is kube-derive's; only a default marker is checked.
    let Some(default) = obj.get("default").filter(|d| !d.is_null() && last(&["default"]).is_some()) else {
        return Ok(());
    };
    if let (Some(Value::Array(values)), Some(m)) = (obj.get("enum"), last(&["Enum", "default"]))
        && !values.contains(default)
    {
        let list = values.iter().map(Value::to_string).collect::<Vec<_>>().join(", ");
        return Err(err(
            m,
            format!(
                "the default {default} is not one of the enum values ({list}), and the API server refuses a CRD whose \
                 default its own schema rejects; make the default one of them or add it to the enum"
            ),
        ));
    }
    let measure = match default {
        Value::String(text) => Some((text.chars().count() as f64, "minLength", "maxLength", "length")),
        Value::Number(n) => n.as_f64().map(|n| (n, "minimum", "maximum", "value")),
        Value::Array(items) => Some((items.len() as f64, "minItems", "maxItems", "number of items")),
        _ => None,
    };
    if let Some((size, lo_key, hi_key, what)) = measure {
        let names: Vec<&str> =
            BOUNDS.iter().filter(|b| b.0 == lo_key).flat_map(|b| [b.2, b.3]).chain(["default"]).collect();
        let outside = num(lo_key).is_some_and(|lo| size < lo) || num(hi_key).is_some_and(|hi| size > hi);
        if outside && let Some(m) = last(&names) {
            return Err(err(
                m,
                format!(
                    "the default {default} has a {what} outside the bounds ({lo_key} {}, {hi_key} {}), and the API \
                     server refuses a CRD whose default its own schema rejects; change the default or the bounds",
                    obj.get(lo_key).map_or("none".to_string(), |v| bare(v).to_string()),
                    obj.get(hi_key).map_or("none".to_string(), |v| bare(v).to_string()),
                ),
            ));
        }
    }
    Ok(())
}

fn need(m: &Marker, obj: &Map<String, Value>, ok: &[&str], what: &str) -> Result<String, CrdError> {
    let t = type_of(obj);
    if ok.contains(&t.as_str()) {
        Ok(t)
    } else {
        Err(err(m, format!("applies to {what}, but this schema has type {t}")))
    }
}

const NUMERIC: &[&str] = &["integer", "number", "int-or-string"];
const TEXTUAL: &[&str] = &["string", "int-or-string"];

/// Whether a JSON value fits a schema type (for defaults).
fn value_fits(t: &str, v: &Value) -> bool {
    match (t, v) {
        ("string", Value::String(_)) => true,
        ("integer", Value::Number(n)) => n.is_i64() || n.is_u64(),
        ("number", Value::Number(_)) => true,
        ("boolean", Value::Bool(_)) => true,
        ("array", Value::Array(_)) => true,
        ("object", Value::Object(_)) => true,
        ("int-or-string", Value::String(_) | Value::Number(_)) => true,
        ("untyped", _) => true,
        _ => false,
    }
}

/// A marker value as JSON; `{}` on an array is `[]`.
fn any_json(v: &MarkerValue, t: &str) -> Value {
    match v {
        MarkerValue::Map(e) if e.is_empty() && t == "array" => json!([]),
        other => other.to_json(),
    }
}

fn apply_one(obj: &mut Map<String, Value>, m: &Marker, rules: &mut Vec<Value>) -> Result<(), CrdError> {
    let s = short(&m.name);
    let val = m.value();
    match s {
        "Schemaless" => {
            let desc = obj.remove("description");
            obj.retain(|k, _| k == TYPE_KEY || k == FIELD_KEY);
            if let Some(d) = desc {
                obj.insert("description".into(), d);
            }
        }
        "kubesmith:schema:oneOf" | "kubesmith:schema:anyOf" | "kubesmith:schema:allOf" | "kubesmith:schema:not" => {
            let key = m.name.rsplit(':').next().unwrap_or_default();
            let text = m.string("").unwrap_or_default();
            let v: Value = serde_json::from_str(text)
                .map_err(|e| err(m, format!("`{text}` is not JSON ({e}); write the `{key}` value as JSON")))?;
            let fits = match &v {
                Value::Object(_) => key == "not",
                Value::Array(a) => key != "not" && !a.is_empty() && a.iter().all(Value::is_object),
                _ => false,
            };
            if !fits {
                let want = if key == "not" { "a JSON object (a schema)" } else { "a JSON array of schemas" };
                return Err(err(m, format!("`{key}` takes {want}")));
            }
            if obj.contains_key(key) {
                return Err(err(m, format!("the schema already has `{key}` (from the Rust type); keep one of them")));
            }
            obj.insert(key.into(), v);
        }
        "kubesmith:schema:required" => {
            let names = m.strings("");
            let required = obj.entry("required").or_insert_with(|| json!([]));
            let Value::Array(list) = required else {
                return Err(err(m, "the schema's `required` is not a list"));
            };
            for name in names {
                if list.iter().any(|v| v.as_str() == Some(name.as_str())) {
                    return Err(err(
                        m,
                        format!(
                            "`{name}` is required already (by a field or named twice); name only keys no field declares"
                        ),
                    ));
                }
                list.push(json!(name));
            }
        }
        "kubesmith:requiredOrder" => {
            let order = m.strings("");
            let current: BTreeSet<String> = match obj.get("required") {
                Some(Value::Array(a)) => a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect(),
                _ => BTreeSet::new(),
            };
            let given: BTreeSet<String> = order.iter().cloned().collect();
            if given.len() != order.len() {
                return Err(err(m, "a field is named twice; name each required field once"));
            }
            if given != current {
                let list = |s: &BTreeSet<String>| s.iter().map(String::as_str).collect::<Vec<_>>().join(";");
                return Err(err(
                    m,
                    format!(
                        "names [{}] but the object requires [{}]; name exactly the required fields, in the order \
                         the CRD lists them",
                        list(&given),
                        list(&current)
                    ),
                ));
            }
            obj.insert("required".into(), json!(order));
        }
        "Type" => {
            let t = m.string("").unwrap_or_default().to_string();
            const TYPES: &[&str] = &["string", "integer", "number", "boolean", "array", "object"];
            if !TYPES.contains(&t.as_str()) {
                return Err(err(m, format!("unknown type `{t}` (use one of {})", TYPES.join(", "))));
            }
            obj.insert("type".into(), json!(t));
        }
        "XIntOrString" if flag(m) => {
            obj.remove("type");
            obj.remove("format");
            obj.insert("x-kubernetes-int-or-string".into(), json!(true));
            obj.entry("anyOf").or_insert_with(|| json!([{"type": "integer"}, {"type": "string"}]));
        }
        "listType" => {
            need(m, obj, &["array"], "arrays (lists)")?;
            obj.insert("x-kubernetes-list-type".into(), json!(m.string("")));
        }
        "listMapKey" => {
            need(m, obj, &["array"], "arrays (lists)")?;
            let k = m.string("").unwrap_or_default();
            if let Value::Array(a) = obj.entry("x-kubernetes-list-map-keys").or_insert_with(|| json!([]))
                && !a.iter().any(|x| x == k)
            {
                a.push(json!(k));
            }
        }
        "mapType" => {
            need(m, obj, &["object"], "maps")?;
            obj.insert("x-kubernetes-map-type".into(), json!(m.string("")));
        }
        "structType" => {
            need(m, obj, &["object"], "structs")?;
            obj.insert("x-kubernetes-map-type".into(), json!(m.string("")));
        }
        "Minimum" | "Maximum" | "MultipleOf" => {
            let t = need(m, obj, NUMERIC, "numbers")?;
            let n = number(m).unwrap_or_default();
            if t == "integer" && n.fract() != 0.0 {
                return Err(err(m, format!("the field is an integer, so the bound must be one (got {n})")));
            }
            if s == "MultipleOf" && n <= 0.0 {
                return Err(err(m, "multipleOf must be greater than 0"));
            }
            let key = match s {
                "Minimum" => "minimum",
                "Maximum" => "maximum",
                _ => "multipleOf",
            };
            let n = val.map(MarkerValue::to_json).unwrap_or_default();
            obj.insert(key.into(), crate::crd::transform::marker_number(n));
        }
        "ExclusiveMinimum" | "ExclusiveMaximum" => {
            need(m, obj, NUMERIC, "numbers")?;
            let key = if s == "ExclusiveMinimum" { "exclusiveMinimum" } else { "exclusiveMaximum" };
            obj.insert(key.into(), json!(flag(m)));
        }
        "MinLength" | "MaxLength" | "Pattern" => {
            need(m, obj, TEXTUAL, "strings")?;
            let key = match s {
                "MinLength" => "minLength",
                "MaxLength" => "maxLength",
                _ => "pattern",
            };
            obj.insert(key.into(), val.map(MarkerValue::to_json).unwrap_or_default());
        }
        "MinItems" | "MaxItems" => {
            need(m, obj, &["array"], "arrays")?;
            let key = if s == "MinItems" { "minItems" } else { "maxItems" };
            obj.insert(key.into(), val.map(MarkerValue::to_json).unwrap_or_default());
        }
        "UniqueItems" => {
            need(m, obj, &["array"], "arrays")?;
            if flag(m) {
                return Err(err(
                    m,
                    "the API server rejects `uniqueItems: true` in CRD schemas; use `// +listType=set` instead",
                ));
            }
        }
        "MinProperties" | "MaxProperties" => {
            need(m, obj, &["object"], "objects (structs and maps)")?;
            let key = if s == "MinProperties" { "minProperties" } else { "maxProperties" };
            obj.insert(key.into(), val.map(MarkerValue::to_json).unwrap_or_default());
        }
        "Enum" => {
            let t = type_of(obj);
            let values: Vec<Value> = match val {
                Some(MarkerValue::List(items)) => items.iter().map(MarkerValue::to_json).collect(),
                Some(other) => vec![other.to_json()],
                None => Vec::new(),
            };
            if let Some(bad) = values.iter().find(|v| !value_fits(&t, v)) {
                return Err(err(
                    m,
                    format!("enum value {bad} does not fit the schema type {t}; quote string values (`\"1\"`)"),
                ));
            }
            obj.insert("enum".into(), Value::Array(values));
        }
        "Format" => {
            obj.insert("format".into(), json!(m.string("")));
        }
        "XPreserveUnknownFields" => {
            obj.insert("x-kubernetes-preserve-unknown-fields".into(), json!(flag(m)));
        }
        "XEmbeddedResource" => {
            need(m, obj, &["object", "untyped"], "objects")?;
            if flag(m) {
                obj.insert("x-kubernetes-embedded-resource".into(), json!(true));
                obj.entry("type").or_insert_with(|| json!("object"));
            }
        }
        "XValidation" => {
            let mut rule = Map::new();
            for (arg, key) in [
                ("rule", "rule"),
                ("message", "message"),
                ("messageExpression", "messageExpression"),
                ("reason", "reason"),
                ("fieldPath", "fieldPath"),
                ("optionalOldSelf", "optionalOldSelf"),
            ] {
                if let Some(v) = m.arg(arg) {
                    rule.insert(key.into(), v.to_json());
                }
            }
            rules.push(Value::Object(rule));
        }
        "k8s:immutable" => {
            rules.push(json!({"rule": "self == oldSelf", "message": "field is immutable"}));
        }
        "default" | "example" => {
            let t = type_of(obj);
            let v = match val {
                Some(MarkerValue::String(text)) if m.name == "default" => {
                    if text.starts_with("ref(") {
                        return Ok(());
                    }
                    // The scanner already removed quotes: `+default="1"` on a string is the string "1".
                    serde_json::from_str(text).ok().filter(|v| value_fits(&t, v)).unwrap_or_else(|| json!(text))
                }
                Some(v) => any_json(v, &t),
                None => Value::Null,
            };
            if !value_fits(&t, &v) {
                return Err(err(
                    m,
                    format!(
                        "value {v} does not fit the schema type {t}{}",
                        if t == "string" { "; quote it (`\"...\"`)" } else { "" }
                    ),
                ));
            }
            let key = if s == "example" { "example" } else { "default" };
            obj.insert(key.into(), v);
        }
        "title" => {
            obj.insert("title".into(), json!(m.string("")));
        }
        "nullable" => {
            obj.insert("nullable".into(), json!(true));
        }
        "externalDocs" => {
            let url = m.string("url").unwrap_or_default();
            if !url.contains("://") {
                return Err(err(m, format!("url `{url}` is not an absolute URL")));
            }
            let mut d = Map::new();
            d.insert("url".into(), json!(url));
            if let Some(desc) = m.string("description") {
                d.insert("description".into(), json!(desc));
            }
            obj.insert("externalDocs".into(), Value::Object(d));
        }
        "ExactlyOneOf" | "AtMostOneOf" | "AtLeastOneOf" => {
            let fields = m.strings("");
            if let Some(f) = fields.iter().find(|f| f.contains('.')) {
                return Err(err(m, format!("cannot reference nested fields: {f}")));
            }
            let props = obj.get("properties").and_then(Value::as_object);
            let required: Vec<&str> = obj
                .get("required")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for f in &fields {
                if !props.is_some_and(|p| p.contains_key(f)) {
                    return Err(err(
                        m,
                        format!(
                            "`{f}` is not a field of this type (use the JSON names: {})",
                            props.map(|p| p.keys().cloned().collect::<Vec<_>>().join(", ")).unwrap_or_default()
                        ),
                    ));
                }
                if required.contains(&f.as_str()) {
                    return Err(err(
                        m,
                        format!(
                            "field {f} is part of OneOf constraint and cannot be marked as required; make it \
                             `Option<..>` or give it #[serde(default)]"
                        ),
                    ));
                }
            }
            let list = fields.join(" ");
            let counted = fields.iter().map(|f| format!("(has(self.{f})?1:0)")).collect::<Vec<_>>().join("+");
            let (rule, message) = match s {
                "ExactlyOneOf" => {
                    (format!("{counted} == 1"), format!("exactly one of the fields in [{list}] must be set"))
                }
                "AtMostOneOf" => {
                    (format!("{counted} <= 1"), format!("at most one of the fields in [{list}] may be set"))
                }
                _ => (
                    fields.iter().map(|f| format!("has(self.{f})")).collect::<Vec<_>>().join("||"),
                    format!("at least one of the fields in [{list}] must be set"),
                ),
            };
            rules.push(json!({"rule": rule, "message": message}));
        }
        // Handled by the parent (required list) or at the CRD level; accepted and ignored on schemas.
        _ => {}
    }
    Ok(())
}
