//! The schema transforms kube-derive's generator runs (schemars' openapi3 set, then kube-core's
//! `StructuralSchemaRewriter`, `OptionalEnum`, `OptionalIntOrString`) and the final conversion into
//! `JSONSchemaProps` (unknown keys dropped, numbers coerced), ported to `serde_json::Value`. Under schemars 0.8
//! (kube < 2, [`Dialect::Schemars08`]) the set is schemars 0.8's openapi3 visitors and kube-core 0.99's rewriter.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::dialect::{Dialect, Rewriter};

/// A structural-rewriter conflict kube-derive would panic on.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict(pub String);

/// Run every transform of kube-derive's `crd()` on a raw schemars schema and convert it to JSONSchemaProps form.
pub fn finalize(schema: Value, dialect: Dialect, rewriter: Rewriter) -> Result<Value, Conflict> {
    rewrite(schema, dialect, rewriter).map(to_json_schema_props)
}

/// Every transform of [`finalize`] except the final JSONSchemaProps conversion (so kubebuilder markers can be
/// applied in between).
pub fn rewrite(mut schema: Value, dialect: Dialect, rewriter: Rewriter) -> Result<Value, Conflict> {
    if dialect == Dialect::Schemars08 {
        // schemars 0.8's openapi3 visitors (`RemoveRefSiblings` has nothing to do: subschemas are inlined), then
        // kube-core's rewriter
        replace_bool_schemas(&mut schema);
        set_single_example(&mut schema);
        structural(&mut schema, Kube::V099)?;
        return Ok(schema);
    }
    replace_unevaluated(&mut schema);
    replace_bool_schemas(&mut schema);
    add_nullable(&mut schema);
    // schemars' `SetSingleExample`, `ReplaceConstValue` and `ReplacePrefixItems` in one walk: each renames keys of
    // the schema it is at, after its subschemas, and none changes which subschemas there are. schemars then runs
    // `AddNullable` again, which has nothing left to do: the first left no subschema with a "null" type, and these
    // renames add none.
    for_each_post_order(&mut schema, &mut |obj| {
        single_example(obj);
        const_to_enum(obj);
        prefix_items_to_items(obj);
    });
    if rewriter == Rewriter::Kube2 {
        structural(&mut schema, Kube::V2)?;
        return Ok(schema);
    }
    structural(&mut schema, Kube::V3)?;
    // kube-core's `OptionalEnum` then `OptionalIntOrString`, in one walk: each changes only the schema it is at (the
    // second the properties of it), after its subschemas, and neither looks at what the other changes there.
    for_each_post_order(&mut schema, &mut |obj| {
        optional_enum(obj);
        optional_int_or_string(obj);
    });
    Ok(schema)
}

/// Which kube-core's `StructuralSchemaRewriter` runs: 0.99's (schemars 0.8), 2.x's or 3.x's and later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kube {
    V099,
    V2,
    V3,
}

/// schemars' `transform_subschemas`: apply `f` to each direct subschema.
fn for_subschemas(schema: &mut Value, f: &mut dyn FnMut(&mut Value)) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    for (key, value) in obj.iter_mut() {
        match key.as_str() {
            "not"
            | "if"
            | "then"
            | "else"
            | "contains"
            | "additionalProperties"
            | "propertyNames"
            | "additionalItems"
                if value.is_object() || value.is_boolean() =>
            {
                f(value)
            }
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                if let Some(a) = value.as_array_mut() {
                    a.iter_mut().filter(|v| v.is_object() || v.is_boolean()).for_each(&mut *f);
                }
            }
            "items" => {
                if let Some(a) = value.as_array_mut() {
                    a.iter_mut().filter(|v| v.is_object() || v.is_boolean()).for_each(&mut *f);
                } else if value.is_object() || value.is_boolean() {
                    f(value);
                }
            }
            "properties" | "patternProperties" | "$defs" | "definitions" => {
                if let Some(o) = value.as_object_mut() {
                    o.values_mut().filter(|v| v.is_object() || v.is_boolean()).for_each(&mut *f);
                }
            }
            _ => {}
        }
    }
}

fn replace_unevaluated(schema: &mut Value) {
    for_subschemas(schema, &mut replace_unevaluated);
    if let Some(obj) = schema.as_object_mut()
        && let Some(up) = obj.remove("unevaluatedProperties")
    {
        obj.insert("additionalProperties".into(), up);
    }
}

fn replace_bool_schemas(schema: &mut Value) {
    match schema {
        Value::Bool(b) => {
            *schema = if *b { json!({}) } else { json!({"not": {}}) };
        }
        Value::Object(obj) => {
            if let Some(ap) = obj.remove("additionalProperties") {
                for_subschemas(schema, &mut replace_bool_schemas);
                if let Some(obj) = schema.as_object_mut() {
                    obj.insert("additionalProperties".into(), ap);
                }
                return;
            }
            for_subschemas(schema, &mut replace_bool_schemas);
        }
        _ => {}
    }
}

fn has_type(obj: &Map<String, Value>, t: &str) -> bool {
    match obj.get("type") {
        Some(Value::String(s)) => s == t,
        Some(Value::Array(a)) => a.iter().any(|v| v == t),
        _ => false,
    }
}

fn add_nullable(schema: &mut Value) {
    if let Some(obj) = schema.as_object_mut()
        && has_type(obj, "null")
    {
        obj.insert("nullable".into(), Value::Bool(true));
        let only_null = match obj.get("type") {
            Some(Value::Array(a)) => a.iter().all(|v| v == "null"),
            _ => true,
        };
        if only_null {
            obj.insert("const".into(), Value::Null);
            obj.remove("type");
        } else if let Some(Value::Array(a)) = obj.get_mut("type") {
            a.retain(|t| t != "null");
            if a.len() == 1 {
                let t = a.remove(0);
                obj.insert("type".into(), t);
            }
        }
    }
    for_subschemas(schema, &mut add_nullable);
}

/// `f` on every schema object, each after its subschemas.
fn for_each_post_order(schema: &mut Value, f: &mut dyn FnMut(&mut Map<String, Value>)) {
    for_subschemas(schema, &mut |s| for_each_post_order(s, f));
    if let Some(obj) = schema.as_object_mut() {
        f(obj);
    }
}

/// schemars' `SetSingleExample` at every schema (schemars 0.8's openapi3 visitor does the same).
fn set_single_example(schema: &mut Value) {
    for_each_post_order(schema, &mut single_example);
}

/// `examples: [a, ..]` becomes `example: a`.
fn single_example(obj: &mut Map<String, Value>) {
    if let Some(Value::Array(ex)) = obj.remove("examples")
        && let Some(first) = ex.into_iter().next()
    {
        obj.insert("example".into(), first);
    }
}

/// `const: c` becomes `enum: [c]` (schemars' `ReplaceConstValue`).
fn const_to_enum(obj: &mut Map<String, Value>) {
    if let Some(c) = obj.remove("const") {
        obj.insert("enum".into(), Value::Array(vec![c]));
    }
}

/// `prefixItems` becomes `items` (schemars' `ReplacePrefixItems`).
fn prefix_items_to_items(obj: &mut Map<String, Value>) {
    if let Some(p) = obj.remove("prefixItems") {
        obj.insert("items".into(), p);
    }
}

/// Keys of kube's private `SchemaObject` mirror that count as "object validation".
const OBJECT_KEYS: [&str; 7] = [
    "maxProperties",
    "minProperties",
    "required",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
];
const ARRAY_KEYS: [&str; 6] = ["items", "additionalItems", "maxItems", "minItems", "uniqueItems", "contains"];

fn is_nonempty(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
        Some(_) => true,
    }
}

fn has_object_validation(obj: &Map<String, Value>) -> bool {
    OBJECT_KEYS.iter().any(|k| match *k {
        "required" | "properties" | "patternProperties" => is_nonempty(obj.get(*k)),
        _ => obj.get(*k).is_some_and(|v| !v.is_null()),
    })
}

fn has_array_validation(obj: &Map<String, Value>) -> bool {
    ARRAY_KEYS.iter().any(|k| obj.get(*k).is_some_and(|v| !v.is_null()))
}

/// kube-core's `StructuralSchemaRewriter` (post-order).
fn structural(schema: &mut Value, kube: Kube) -> Result<(), Conflict> {
    let mut err = None;
    for_subschemas(schema, &mut |s| {
        if err.is_none()
            && let Err(e) = structural(s, kube)
        {
            err = Some(e);
        }
    });
    if let Some(e) = err {
        return Err(e);
    }
    let Some(obj) = schema.as_object_mut() else {
        return Ok(());
    };

    if let Some(Value::Array(mut one_of)) = obj.remove("oneOf") {
        hoist_properties(&mut one_of, obj, true, kube)?;
        hoist_enum_values(&mut one_of, obj)?;
        if !one_of.is_empty() {
            obj.insert("oneOf".into(), Value::Array(one_of));
        }
    }
    if let Some(Value::Array(mut any_of)) = obj.remove("anyOf") {
        // kube-core before 3 moves an anyOf variant's description as it does a oneOf variant's
        hoist_properties(&mut any_of, obj, kube != Kube::V3, kube)?;
        obj.insert("anyOf".into(), Value::Array(any_of));
    }
    if is_nonempty(obj.get("properties")) {
        match obj.get("additionalProperties") {
            Some(Value::Bool(true)) => {
                obj.remove("additionalProperties");
                obj.insert("x-kubernetes-preserve-unknown-fields".into(), Value::Bool(true));
            }
            Some(Value::Bool(false)) if kube == Kube::V3 => {
                obj.remove("additionalProperties");
            }
            _ => {}
        }
    }
    obj.remove("uniqueItems");
    normalize_mirror(obj);
    Ok(())
}

/// What re-serializing kube's mirror does: `required` sorted/deduplicated, empty maps and sets dropped.
fn normalize_mirror(obj: &mut Map<String, Value>) {
    if let Some(Value::Array(req)) = obj.get("required") {
        let set: BTreeSet<String> = req.iter().filter_map(|v| v.as_str().map(str::to_string)).collect();
        if set.is_empty() {
            obj.remove("required");
        } else {
            obj.insert("required".into(), Value::Array(set.into_iter().map(Value::String).collect()));
        }
    }
    for k in ["properties", "patternProperties"] {
        if matches!(obj.get(k), Some(Value::Object(o)) if o.is_empty()) {
            obj.remove(k);
        }
    }
}

fn instance_type(obj: &Map<String, Value>) -> Option<Value> {
    obj.get("type").cloned()
}

fn merge_type(common: &mut Map<String, Value>, variant_type: Option<Value>) -> Result<(), Conflict> {
    let Some(vt) = variant_type else {
        return Ok(());
    };
    match common.get("type") {
        None => {
            common.insert("type".into(), vt);
        }
        Some(ct) if *ct == vt => {}
        Some(ct) => {
            return Err(Conflict(format!("variant defined type {vt}, conflicting with existing type {ct}")));
        }
    }
    Ok(())
}

fn hoist_properties(
    subschemas: &mut [Value],
    common: &mut Map<String, Value>,
    push_description: bool,
    kube: Kube,
) -> Result<(), Conflict> {
    for variant in subschemas.iter_mut() {
        let Some(vobj) = variant.as_object_mut() else {
            continue;
        };
        if has_object_validation(vobj) {
            // kube takes the variant's description in every case and moves it onto the variant's single
            // property (oneOf only); with several properties, or for anyOf, it is lost.
            let single_prop = matches!(vobj.get("properties"), Some(Value::Object(p)) if p.len() == 1 && p.values().all(Value::is_object));
            if let Some(Value::String(desc)) = vobj.remove("description")
                && single_prop
                && push_description
                && let Some(Value::Object(props)) = vobj.get_mut("properties")
                && let Some(Value::Object(p)) = props.values_mut().next()
            {
                p.insert("description".into(), Value::String(desc));
            }
            let props = match vobj.remove("properties") {
                Some(Value::Object(p)) => p,
                _ => Map::new(),
            };
            let common_props = common.entry("properties").or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(cp) = common_props {
                for (name, prop) in props {
                    match cp.get(&name) {
                        None => {
                            cp.insert(name, prop);
                        }
                        Some(existing) if *existing == prop => {}
                        Some(existing) => {
                            return Err(Conflict(format!(
                                "property {name:?} has the schema {prop} but was already defined as {existing} in another \
                                 subschema"
                            )));
                        }
                    }
                }
            }
            vobj.remove("additionalProperties");
            let vt = vobj.remove("type");
            merge_type(common, vt)?;
        } else if kube == Kube::V3
            && !vobj.contains_key("enum")
            && !vobj.contains_key("anyOf")
            && !vobj.contains_key("oneOf")
            && !has_array_validation(vobj)
        {
            vobj.remove("type");
            vobj.remove("description");
            vobj.remove("default");
        }
    }
    Ok(())
}

fn hoist_enum_values(subschemas: &mut Vec<Value>, common: &mut Map<String, Value>) -> Result<(), Conflict> {
    let mut err = None;
    subschemas.retain(|variant| {
        let Some(vobj) = variant.as_object() else {
            return true;
        };
        let Some(Value::Array(values)) = vobj.get("enum") else {
            return true;
        };
        if let Some(vt) = instance_type(vobj) {
            match common.get("type") {
                None => {
                    common.insert("type".into(), vt);
                }
                Some(ct) if *ct == vt => {}
                Some(ct) => {
                    if err.is_none() {
                        err = Some(Conflict(format!(
                            "enum variant set {} has type {vt} but was already defined as {ct}",
                            Value::Array(values.clone())
                        )));
                    }
                }
            }
        }
        if let Value::Array(e) = common.entry("enum").or_insert_with(|| Value::Array(Vec::new())) {
            e.extend(values.iter().cloned());
        }
        false
    });
    err.map_or(Ok(()), Err)
}

/// kube-core's `OptionalEnum` at one schema: `anyOf: [T, {enum: [null], nullable: true}]` becomes T, nullable.
fn optional_enum(obj: &mut Map<String, Value>) {
    let Some(Value::Array(any_of)) = obj.get("anyOf") else {
        return;
    };
    let [Value::Object(first), Value::Object(second)] = any_of.as_slice() else {
        return;
    };
    if !first.contains_key("nullable")
        && second.get("enum") == Some(&json!([null]))
        && second.get("nullable") == Some(&Value::Bool(true))
    {
        let first = first.clone();
        obj.remove("anyOf");
        for (k, v) in first {
            obj.insert(k, v);
        }
        obj.insert("nullable".into(), Value::Bool(true));
    }
}

/// kube-core's `OptionalIntOrString` at one schema: a property that is not required and may be an int or a string
/// is nullable.
fn optional_int_or_string(obj: &mut Map<String, Value>) {
    let Some(Value::Object(props)) = obj.get("properties") else {
        return;
    };
    let required = |name: &str| matches!(obj.get("required"), Some(Value::Array(a)) if a.iter().any(|r| r == name));
    // Nearly no property is one: the names are gathered first, without allocating when there is none.
    let nullable: Vec<String> = props
        .iter()
        .filter(|(name, p)| {
            p.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true))
                && p.get("nullable").is_none()
                && !required(name)
        })
        .map(|(name, _)| name.clone())
        .collect();
    if let Some(Value::Object(props)) = obj.get_mut("properties") {
        for name in nullable {
            if let Some(Value::Object(p)) = props.get_mut(&name) {
                p.insert("nullable".into(), Value::Bool(true));
            }
        }
    }
}

/// The key of the wrapper a kubebuilder marker puts around a numeric bound (`{"$marker-number": 1}`) so that
/// [`to_json_schema_props`] writes it as the marker spells it (`Minimum=1` → `minimum: 1`, as controller-gen and
/// the API server write it) instead of as the f64 kube-derive's `JSONSchemaProps` makes of a schemars `range`.
pub(crate) const MARKER_NUMBER: &str = "$marker-number";

/// A marker's numeric bound, wrapped for [`to_json_schema_props`] (see [`MARKER_NUMBER`]).
pub(crate) fn marker_number(n: Value) -> Value {
    json!({ MARKER_NUMBER: n })
}

/// `serde_json::from_value::<JSONSchemaProps>` then back: unknown keys dropped, `default: null` dropped,
/// numeric bounds as f64 (a marker's bound as it is spelled) and lengths as integers.
pub fn to_json_schema_props(schema: Value) -> Value {
    let Value::Object(obj) = schema else {
        return Value::Object(Map::new());
    };
    let mut out = Map::new();
    for (k, v) in obj {
        let v = match k.as_str() {
            "properties" | "patternProperties" | "definitions" => match v {
                Value::Object(o) => Value::Object(o.into_iter().map(|(n, s)| (n, to_json_schema_props(s))).collect()),
                other => other,
            },
            "items" => match v {
                Value::Array(a) => Value::Array(a.into_iter().map(to_json_schema_props).collect()),
                other => to_json_schema_props(other),
            },
            "additionalProperties" | "additionalItems" => match v {
                Value::Bool(b) => Value::Bool(b),
                other => to_json_schema_props(other),
            },
            "allOf" | "anyOf" | "oneOf" => match v {
                Value::Array(a) => Value::Array(a.into_iter().map(to_json_schema_props).collect()),
                other => other,
            },
            "not" => to_json_schema_props(v),
            "default"
            | "example"
            | "enum"
            | "x-kubernetes-validations"
            | "x-kubernetes-list-map-keys"
            | "dependencies"
            | "externalDocs" => {
                if v.is_null() {
                    continue;
                }
                v
            }
            "minimum" | "maximum" | "multipleOf" => match v {
                Value::Object(mut o) if o.len() == 1 && o.get(MARKER_NUMBER).is_some_and(Value::is_number) => {
                    o.remove(MARKER_NUMBER).unwrap_or_default()
                }
                v => match v.as_f64() {
                    Some(f) => Value::from(f),
                    None => continue,
                },
            },
            "maxItems" | "minItems" | "maxLength" | "minLength" | "maxProperties" | "minProperties" => {
                match v.as_i64().or_else(|| v.as_f64().map(|f| f as i64)) {
                    Some(i) => Value::from(i),
                    None => continue,
                }
            }
            "$ref"
            | "$schema"
            | "description"
            | "format"
            | "id"
            | "pattern"
            | "title"
            | "type"
            | "x-kubernetes-list-type"
            | "x-kubernetes-map-type" => {
                if !v.is_string() {
                    continue;
                }
                v
            }
            "exclusiveMaximum"
            | "exclusiveMinimum"
            | "nullable"
            | "uniqueItems"
            | "x-kubernetes-embedded-resource"
            | "x-kubernetes-int-or-string"
            | "x-kubernetes-preserve-unknown-fields" => {
                if !v.is_boolean() {
                    continue;
                }
                v
            }
            "required" => v,
            _ => continue,
        };
        out.insert(k, v);
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documented_unit_enum_is_hoisted_in_kube_order() {
        let raw = json!({"oneOf": [
            {"type": "string", "enum": ["Three"]},
            {"type": "string", "const": "One", "description": "The first"},
            {"type": "string", "const": "Two", "description": "The second"}
        ]});
        assert_eq!(
            finalize(raw, Dialect::Schemars1, Rewriter::Kube3),
            Ok(json!({"type": "string", "enum": ["Three", "One", "Two"]}))
        );
    }

    #[test]
    fn kube_2_lacks_the_transforms_kube_3_added() {
        let raw = json!({"type": "object", "additionalProperties": false, "properties": {
            "port": {"x-kubernetes-int-or-string": true},
            "mode": {"anyOf": [{"type": "string", "enum": ["A", "B"]}, {"type": "null"}]}
        }});
        let kube3 = finalize(raw.clone(), Dialect::Schemars1, Rewriter::Kube3).expect("kube 3");
        assert_eq!(kube3["properties"]["port"], json!({"x-kubernetes-int-or-string": true, "nullable": true}));
        assert_eq!(kube3["properties"]["mode"], json!({"type": "string", "enum": ["A", "B"], "nullable": true}));
        assert!(kube3.get("additionalProperties").is_none(), "{kube3}");
        let kube2 = finalize(raw, Dialect::Schemars1, Rewriter::Kube2).expect("kube 2");
        assert_eq!(kube2["properties"]["port"], json!({"x-kubernetes-int-or-string": true}));
        assert_eq!(
            kube2["properties"]["mode"],
            json!({"anyOf": [{"type": "string", "enum": ["A", "B"]}, {"enum": [null], "nullable": true}]})
        );
        assert_eq!(kube2["additionalProperties"], json!(false));
        assert_eq!(Rewriter::of_version("2.0.1"), Rewriter::Kube2);
        assert_eq!(Rewriter::of_version("5.0.0"), Rewriter::Kube3);
        assert_eq!(Rewriter::of_version("0.99.0"), Rewriter::Kube3, "schemars 0.8's dialect decides there");
    }

    #[test]
    fn mixed_variant_types_conflict() {
        let raw = json!({"oneOf": [
            {"type": "string", "enum": ["Unit"]},
            {"type": "object", "properties": {"Data": {"type": "object"}}, "required": ["Data"], "additionalProperties": false}
        ]});
        assert!(finalize(raw, Dialect::Schemars1, Rewriter::Kube3).is_err());
    }

    #[test]
    fn props_conversion_drops_unknown_keys_and_coerces_numbers() {
        let raw = json!({"type": ["integer", "null"], "minimum": 0, "x-custom": 1, "readOnly": true, "default": null});
        assert_eq!(
            finalize(raw, Dialect::Schemars1, Rewriter::Kube3),
            Ok(json!({"type": "integer", "minimum": 0.0, "nullable": true}))
        );
    }

    #[test]
    fn a_markers_bound_is_written_as_spelled() {
        let raw = json!({"type": "integer", "minimum": marker_number(json!(1)), "maximum": marker_number(json!(2.0)),
            "multipleOf": 3});
        let want = json!({"type": "integer", "minimum": 1, "maximum": 2.0, "multipleOf": 3.0});
        let got = to_json_schema_props(raw);
        assert_eq!(got, want);
        assert!(got["minimum"].is_u64() && got["maximum"].is_f64() && got["multipleOf"].is_f64());
    }
}
