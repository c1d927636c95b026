//! `serde_json::Value` in a field's type, wherever it sits (the field itself, `Option`, `Box`, a newtype, the items
//! of a list, the values of a map, nested), judged the same way: schemars gives it the schema `true`, which kube
//! turns into `{}` (a doc comment makes it `{"description": ..}`), a schema without `type` that the API server
//! rejects; inside a map's values schemars leaves `true` as it is, where `crd()` panics converting it. Unless the
//! field's schema carries `x-kubernetes-preserve-unknown-fields` at that very place (or a `type`), kubesmith
//! refuses it with the attribute that makes kube-derive's own output valid (each one checked in the conformance
//! corpus, `input-value_schemas.rs`).
//!
//! A map of values (`BTreeMap<String, Value>`) is not refused: kube-derive gives it `additionalProperties: true`,
//! which the API server accepts (it prunes the fields of objects inside the values, though).

use serde_json::Value;

use super::super::index::{CrateIndex, ItemId, ItemKind, ModId};
use super::super::k8s::K8sTable;
use super::super::types::{Ty, classify};
use super::super::{attrs, custom};

/// A step from a schema into a subschema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// `items` (a list).
    Items,
    /// `additionalProperties` (a map's values).
    Values,
}

impl Step {
    fn key(self) -> &'static str {
        match self {
            Step::Items => "items",
            Step::Values => "additionalProperties",
        }
    }
}

/// Where `ty` (written in module `m`) holds a `serde_json::Value`: the steps from the field's schema to its
/// schema (empty: the field itself). `None` when it holds none, or when a custom schema decides (a type with a
/// hand-written `impl JsonSchema`, `schema_with`, `with`).
///
/// A newtype for which `typed` holds (its type markers give its schema a type or
/// `x-kubernetes-preserve-unknown-fields`, applied after kube-derive's schema) ends the search: what kube-derive
/// emits inside it is replaced there.
pub fn value_spot(
    ix: &CrateIndex,
    k8s: &K8sTable,
    ty: &syn::Type,
    m: ModId,
    typed: &dyn Fn(ItemId) -> bool,
) -> Option<Vec<Step>> {
    spot(ix, k8s, ty, m, typed, 0)
}

fn spot(
    ix: &CrateIndex,
    k8s: &K8sTable,
    ty: &syn::Type,
    m: ModId,
    typed: &dyn Fn(ItemId) -> bool,
    depth: usize,
) -> Option<Vec<Step>> {
    if depth > 16 {
        return None;
    }
    spot_of(ix, k8s, classify(ix, k8s, ty, m).ok()?, typed, depth)
}

/// [`value_spot`] of a type already classified as `ty`.
pub fn value_spot_classified(
    ix: &CrateIndex,
    k8s: &K8sTable,
    ty: Ty<'_>,
    typed: &dyn Fn(ItemId) -> bool,
) -> Option<Vec<Step>> {
    spot_of(ix, k8s, ty, typed, 0)
}

fn spot_of(
    ix: &CrateIndex,
    k8s: &K8sTable,
    ty: Ty<'_>,
    typed: &dyn Fn(ItemId) -> bool,
    depth: usize,
) -> Option<Vec<Step>> {
    let prefixed = |step: Step, inner: Option<Vec<Step>>| {
        inner.map(|mut rest| {
            rest.insert(0, step);
            rest
        })
    };
    match ty {
        Ty::JsonValue => Some(Vec::new()),
        Ty::Option(t, m2) | Ty::Wrapper(t, m2) => spot(ix, k8s, t, m2, typed, depth + 1),
        Ty::Seq(t, m2, _) | Ty::Array(t, m2, _) => prefixed(Step::Items, spot(ix, k8s, t, m2, typed, depth + 1)),
        Ty::Map(k, v, m2) => match classify(ix, k8s, k, m2).ok()? {
            Ty::Scalar(..) | Ty::Wrapper(..) => prefixed(Step::Values, spot(ix, k8s, v, m2, typed, depth + 1)),
            _ => None,
        },
        Ty::Item(id) if typed(id) => None,
        Ty::Item(id) => newtype_field(ix, id).and_then(|(f, m2)| spot(ix, k8s, &f.ty, m2, typed, depth + 1)),
        _ => None,
    }
}

/// The field a newtype struct (`struct Raw(Value)`, or `#[serde(transparent)]`) takes its schema from, when
/// schemars derives it from that field.
fn newtype_field(ix: &CrateIndex, id: ItemId) -> Option<(&syn::Field, ModId)> {
    let item = &ix.items[id];
    let ItemKind::Struct(s) = &item.kind else { return None };
    // Only one unnamed field, or named ones with `#[serde(transparent)]`, make a newtype.
    if !matches!(&s.fields, syn::Fields::Named(_))
        && !matches!(&s.fields, syn::Fields::Unnamed(u) if u.unnamed.len() == 1)
    {
        return None;
    }
    if custom::json_schema_impl(ix, id).is_some() {
        return None;
    }
    let c = attrs::container_serde_attrs(&s.attrs).ok()?;
    if c.schema_with.is_some() || c.with.is_some() || c.custom_schema.is_some() {
        return None;
    }
    let field = match &s.fields {
        syn::Fields::Unnamed(u) if u.unnamed.len() == 1 => &u.unnamed[0],
        syn::Fields::Named(n) if c.transparent => {
            n.named.iter().find(|f| attrs::field_attrs(&f.attrs).is_ok_and(|fa| !fa.skip_de))?
        }
        _ => return None,
    };
    let fa = attrs::field_attrs(&field.attrs).ok()?;
    (fa.schema_with.is_none() && fa.with.is_none() && fa.transform.is_none()).then_some((field, item.module))
}

/// What kube-derive makes of a field whose `serde_json::Value` sits at `steps` of its schema `schema`.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Typed or marked `x-kubernetes-preserve-unknown-fields` there (or a custom schema in the way): fine.
    Fine,
    /// A map's values: `additionalProperties: true`, accepted.
    MapValues,
    /// A schema without `type` (what it is, shown), rejected by the API server with `reason`.
    Rejected { emitted: String, reason: String },
    /// `true` left inside a map's values where JSONSchemaProps wants a schema: `crd()` panics.
    Panics,
}

/// Judges the schema `schema` a field got (its attributes applied), whose `Value` sits at `steps`;
/// `in_map` says whether the field's own schema lies in a map's values (where schemars leaves `true` alone).
pub fn verdict(schema: &Value, steps: &[Step], in_map: bool) -> Verdict {
    let mut node = schema;
    let mut under_map = in_map;
    for (i, step) in steps.iter().enumerate() {
        match node.get(step.key()) {
            Some(next) => node = next,
            None => return Verdict::Fine,
        }
        if i + 1 < steps.len() && *step == Step::Values {
            under_map = true;
        }
    }
    let last = steps.last().copied();
    if last == Some(Step::Values) && *node == Value::Bool(true) {
        return Verdict::MapValues;
    }
    if !untyped(node) {
        return Verdict::Fine;
    }
    if under_map && *node == Value::Bool(true) {
        return Verdict::Panics;
    }
    let at: String = steps.iter().map(|s| format!("{}.", s.key())).collect();
    let what = if last == Some(Step::Items) { "array items" } else { "object fields" };
    Verdict::Rejected {
        emitted: shown(node),
        reason: format!("{at}type: Required value: must not be empty for specified {what}"),
    }
}

fn preserves(node: &Value) -> bool {
    node.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true))
}

/// Whether a schema has neither a `type` nor anything that stands for one in a structural schema.
fn untyped(node: &Value) -> bool {
    match node {
        Value::Bool(b) => *b,
        Value::Object(o) => {
            const TYPED: [&str; 11] = [
                "type",
                "$ref",
                "allOf",
                "anyOf",
                "oneOf",
                "not",
                "enum",
                "const",
                "properties",
                "items",
                "additionalProperties",
            ];
            !TYPED.iter().any(|k| o.contains_key(*k))
                && !preserves(node)
                && o.get("x-kubernetes-int-or-string") != Some(&Value::Bool(true))
        }
        _ => false,
    }
}

/// `{}`, or `{"description": ..}`: the schema kube-derive emits (after its transforms), keys only.
fn shown(node: &Value) -> String {
    let emitted = super::super::transform::finalize(
        node.clone(),
        super::super::dialect::Dialect::Schemars1,
        super::super::dialect::Rewriter::Kube3,
    )
    .unwrap_or_else(|_| node.clone());
    match &emitted {
        Value::Object(o) if !o.is_empty() => {
            let keys: Vec<String> =
                o.keys().filter(|k| !k.starts_with("x-kubesmith")).map(|k| format!("\"{k}\": ..")).collect();
            if keys.is_empty() { "{}".into() } else { format!("{{{}}}", keys.join(", ")) }
        }
        _ => "{}".into(),
    }
}

/// The attribute that makes kube-derive's schema valid at `steps`: the extension on the field itself, else the
/// first subschema on the way replaced by one whose `Value` keeps unknown fields.
pub fn fix(steps: &[Step]) -> String {
    let Some((first, rest)) = steps.split_first() else {
        return "#[schemars(extend(\"x-kubernetes-preserve-unknown-fields\" = true))]".into();
    };
    let mut text = "{\"x-kubernetes-preserve-unknown-fields\": true}".to_string();
    for step in rest.iter().rev() {
        text = match step {
            Step::Items => format!("{{\"type\": \"array\", \"items\": {text}}}"),
            Step::Values => format!("{{\"type\": \"object\", \"additionalProperties\": {text}}}"),
        };
    }
    format!("#[schemars(extend(\"{}\" = {text}))]", first.key())
}

/// Where the value is in the field's schema: `items`, `additionalProperties.items`; empty for the field itself.
pub fn at(steps: &[Step]) -> String {
    steps.iter().map(|s| s.key()).collect::<Vec<_>>().join(".")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_value_is_judged_by_where_it_sits_and_what_marks_it() {
        let t = Value::Bool(true);
        let rejected = |emitted: &str, items: bool| Verdict::Rejected {
            emitted: emitted.into(),
            reason: if items {
                "items.type: Required value: must not be empty for specified array items".into()
            } else {
                "type: Required value: must not be empty for specified object fields".into()
            },
        };
        assert_eq!(verdict(&t, &[], false), rejected("{}", false));
        assert_eq!(verdict(&json!({"description": "d"}), &[], false), rejected("{\"description\": ..}", false));
        assert_eq!(verdict(&json!({"x-kubernetes-preserve-unknown-fields": true}), &[], false), Verdict::Fine);
        assert_eq!(verdict(&t, &[], true), Verdict::Panics);
        let list = json!({"type": "array", "items": true});
        assert_eq!(verdict(&list, &[Step::Items], false), rejected("{}", true));
        // The extension on the list itself leaves its items as they are.
        let marked = json!({"type": "array", "items": true, "x-kubernetes-preserve-unknown-fields": true});
        assert_eq!(verdict(&marked, &[Step::Items], false), rejected("{}", true));
        let fixed = json!({"type": "array", "items": {"x-kubernetes-preserve-unknown-fields": true}});
        assert_eq!(verdict(&fixed, &[Step::Items], false), Verdict::Fine);
        let map = json!({"type": "object", "additionalProperties": true});
        assert_eq!(verdict(&map, &[Step::Values], false), Verdict::MapValues);
        let map_of_lists = json!({"type": "object", "additionalProperties": {"type": "array", "items": true}});
        assert_eq!(verdict(&map_of_lists, &[Step::Values, Step::Items], false), Verdict::Panics);
        // A custom schema in the way decides.
        assert_eq!(verdict(&json!({"type": "string"}), &[Step::Items], false), Verdict::Fine);
    }

    #[test]
    fn the_fix_replaces_the_first_subschema_on_the_way() {
        assert_eq!(fix(&[]), "#[schemars(extend(\"x-kubernetes-preserve-unknown-fields\" = true))]");
        assert_eq!(
            fix(&[Step::Items]),
            "#[schemars(extend(\"items\" = {\"x-kubernetes-preserve-unknown-fields\": true}))]"
        );
        assert_eq!(
            fix(&[Step::Values, Step::Items]),
            "#[schemars(extend(\"additionalProperties\" = {\"type\": \"array\", \"items\": \
             {\"x-kubernetes-preserve-unknown-fields\": true}}))]"
        );
    }
}
