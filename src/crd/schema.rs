//! The raw schema of a Rust type as schemars 1.2's derive and std impls produce it under kube's settings
//! (openapi3, inline subschemas, deserialize contract), before the transforms in `transform.rs`.

use proc_macro2::Span;
use serde_json::{Map, Value, json};
use syn::spanned::Spanned;

use super::attrs::{self, ContainerAttrs, FieldAttrs, RenameRule, SerdeDefault, Validation, WithType, variant_name};
use super::custom::{self, Subschemas};
use super::defaults::Evaluator;
use super::dialect::Dialect;
use super::error::{CrdError, CrdErrorKind};
use super::index::{CrateIndex, ItemId, ItemKind, ModId, item_span, unraw};
use super::k8s::K8sTable;
use super::markers::{self as crd_markers, FIELD_KEY, MarkerIndex, TYPE_KEY};
use super::types::{Ty, classify, mentions};

/// Why a unit type or unit struct is refused, and the fix.
/// Markers that give a schema its type (or `x-kubernetes-preserve-unknown-fields`), by the last segment of their
/// name: where one applies, the `serde_json::Value` kube-derive leaves untyped there is typed.
const TYPING_MARKERS: &[&str] = &[
    "PreserveUnknownFields",
    "XPreserveUnknownFields",
    "Schemaless",
    "Type",
    "XIntOrString",
    "XEmbeddedResource",
    "EmbeddedResource",
];

const UNIT_FIX: &str = "it serializes as `null`, and kube-derive's schema for it is `enum: [null]` without a type, \
                        which the API server rejects (not a structural schema); use a struct with named fields (`{}` \
                        is an empty object) or leave the field out";
mod enums;
mod flatten08;
mod values;

/// Schema generator over a crate index.
pub struct Generator<'a> {
    /// The crate.
    pub ix: &'a CrateIndex,
    /// k8s-openapi schema table.
    pub k8s: &'a K8sTable,
    /// The items being described, each with the key of its instance's arguments (`None` for a non-generic one).
    stack: Vec<(ItemId, Option<String>)>,
    markers: Option<&'a MarkerIndex>,
    /// Problems found so far that did not stop the walk (see [`Generator::report`]).
    problems: Vec<CrdError>,
    /// How many map value schemas the schema being built lies in (schemars leaves `true` alone there).
    map_depth: usize,
    /// The type parameters of the generic instances being described, innermost last.
    frames: Vec<Frame>,
    /// The frame the type parameters of the item being described resolve in (`None` outside generic items).
    env: Option<usize>,
}

/// A type parameter's argument: the type written for it, resolved in the module it was written in, where its own
/// type parameters (`Role<Config>` inside another generic type) resolve in frame `env`.
#[derive(Debug, Clone)]
struct Bound {
    ty: syn::Type,
    module: ModId,
    env: Option<usize>,
}

/// The type parameters of one generic instance being described (`Role<ZkConfig>`: `Config` = `ZkConfig`), as
/// schemars describes each instance: the item's fields with the arguments in place of the parameters.
#[derive(Debug)]
struct Frame {
    params: Vec<(String, Bound)>,
}

/// The identifier of a type written as one bare name (`T`), the shape a type parameter has.
fn bare_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Paren(p) => bare_name(&p.elem),
        syn::Type::Group(g) => bare_name(&g.elem),
        syn::Type::Path(p)
            if p.qself.is_none()
                && p.path.leading_colon.is_none()
                && p.path.segments.len() == 1
                && p.path.segments[0].arguments.is_none() =>
        {
            Some(p.path.segments[0].ident.to_string())
        }
        _ => None,
    }
}

fn attr_err(ix: &CrateIndex, m: ModId, e: syn::Error) -> CrdError {
    CrdError::at(
        ix.module_file(m),
        e.span(),
        CrdErrorKind::Unsupported { construct: "invalid attribute".into(), fix: e.to_string() },
    )
}

/// A JSON object of `entries`, moved in: `json!` copies every value it is given through `serde_json::to_value`, a
/// whole subschema when one is among them.
pub fn object<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// schemars' `allow_null` (what `Option<T>` does to T's schema).
pub fn allow_null(schema: &mut Value) {
    match schema {
        Value::Bool(false) => *schema = json!({"type": "null"}),
        Value::Bool(true) => {}
        Value::Object(obj) => {
            let is_null_schema = |v: &Value| match v.get("type") {
                Some(Value::String(s)) => s == "null",
                Some(Value::Array(a)) => a.iter().any(|t| t == "null"),
                _ => false,
            };
            if obj.len() == 1 && matches!(obj.get("anyOf"), Some(Value::Array(a)) if a.iter().any(is_null_schema)) {
                return;
            }
            if contains_immediate_subschema(obj) {
                let inner = Value::Object(std::mem::take(obj));
                *schema = object([("anyOf", Value::Array(vec![inner, json!({"type": "null"})]))]);
                return;
            }
            match obj.get_mut("type") {
                Some(Value::Array(a)) if !a.iter().any(|t| t == "null") => a.push(json!("null")),
                Some(Value::String(s)) if s != "null" => {
                    let t = std::mem::take(s);
                    obj.insert("type".into(), json!([t, "null"]));
                }
                _ => {}
            }
            if let Some(c) = obj.remove("const") {
                if !c.is_null() {
                    obj.insert("enum".into(), json!([c, null]));
                }
            } else if let Some(Value::Array(e)) = obj.get_mut("enum")
                && !e.contains(&Value::Null)
            {
                e.push(Value::Null);
            }
        }
        _ => {}
    }
}

/// What `Option<T>` makes of T's schema under the crate's schemars: 1.x's [`allow_null`]; 0.8's openapi3
/// `option_nullable` (the schema as an object, with `nullable: true`).
pub fn make_optional(schema: &mut Value, dialect: Dialect) {
    match dialect {
        Dialect::Schemars1 => allow_null(schema),
        Dialect::Schemars08 => attrs::insert(schema, "nullable", Value::Bool(true)),
    }
}

fn contains_immediate_subschema(obj: &Map<String, Value>) -> bool {
    ["if", "allOf", "anyOf", "oneOf", "$ref"].iter().any(|k| obj.contains_key(*k))
}

fn has_type(schema: &Value, t: &str) -> bool {
    match schema.get("type") {
        Some(Value::String(s)) => s == t,
        Some(Value::Array(a)) => a.iter().any(|v| v == t),
        _ => false,
    }
}

fn insert_validation(schema: &mut Value, required_type: &str, key: &str, value: Value) {
    if has_type(schema, required_type) || (required_type == "number" && has_type(schema, "integer")) {
        attrs::insert(schema, key, value);
    }
}

/// schemars' validation mutators.
fn apply_validation(v: &Validation, schema: &mut Value) {
    if let Some(l) = &v.length {
        for (t, suffix) in [("string", "Length"), ("array", "Items")] {
            if let Some(min) = l.min.clone().or(l.equal.clone()) {
                insert_validation(schema, t, &format!("min{suffix}"), min);
            }
            if let Some(max) = l.max.clone().or(l.equal.clone()) {
                insert_validation(schema, t, &format!("max{suffix}"), max);
            }
        }
    }
    if let Some(r) = &v.range {
        if let Some(min) = r.min.clone().or(r.equal.clone()) {
            insert_validation(schema, "number", "minimum", min);
        }
        if let Some(max) = r.max.clone().or(r.equal.clone()) {
            insert_validation(schema, "number", "maximum", max);
        }
    }
    // A pattern expression is read into a literal by `Generator::read_patterns` before this runs.
    if let Some(attrs::Pattern::Literal(p)) = &v.pattern {
        insert_validation(schema, "string", "pattern", Value::String(p.clone()));
    }
    if let Some(c) = &v.contains {
        insert_validation(schema, "string", "pattern", Value::String(regex_escape(c)));
    }
    if let Some(f) = v.format {
        attrs::insert(schema, "format", Value::String(f.into()));
    }
    if let Some(inner) = &v.inner
        && let Some(items) = schema.get_mut("items")
        && (items.is_object() || items.is_boolean())
    {
        apply_validation(inner, items);
    }
}

fn regex_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// schemars' `flatten(schema, other)`.
fn flatten(schema: &mut Value, other: Value) {
    match other {
        Value::Bool(false) => {}
        Value::Bool(true) => {
            if let Value::Object(obj) = schema
                && !obj.contains_key("additionalProperties")
                && !obj.contains_key("unevaluatedProperties")
            {
                let key =
                    if contains_immediate_subschema(obj) { "unevaluatedProperties" } else { "additionalProperties" };
                obj.insert(key.into(), Value::Bool(true));
            }
        }
        Value::Object(mut obj2) => {
            let Value::Object(obj1) = schema else { return };
            normalise_additional(obj1, &obj2);
            normalise_additional(&mut obj2, obj1);
            for (key, value2) in obj2 {
                match obj1.get_mut(&key) {
                    None => {
                        obj1.insert(key, value2);
                    }
                    Some(existing) => match key.as_str() {
                        "required" | "allOf" => {
                            if let (Value::Array(a1), Value::Array(a2)) = (existing, value2) {
                                a1.extend(a2);
                            }
                        }
                        "properties" | "patternProperties" => {
                            if let (Value::Object(o1), Value::Object(o2)) = (existing, value2) {
                                o1.extend(o2);
                            }
                        }
                        "oneOf" | "anyOf" => {
                            let current = obj1.remove(&key).unwrap_or(Value::Null);
                            let one = |k: String, v: Value| Value::Object(Map::from_iter([(k, v)]));
                            let pair = Value::Array(vec![one(key.clone(), current), one(key, value2)]);
                            match obj1.get_mut("allOf") {
                                Some(Value::Array(a)) => {
                                    if let Value::Array(p) = pair {
                                        a.extend(p);
                                    }
                                }
                                _ => {
                                    obj1.insert("allOf".into(), pair);
                                }
                            }
                        }
                        _ => {}
                    },
                }
            }
        }
        _ => {}
    }
}

fn normalise_additional(obj1: &mut Map<String, Value>, obj2: &Map<String, Value>) {
    if obj1.contains_key("additionalProperties")
        && (obj2.contains_key("unevaluatedProperties") || contains_immediate_subschema(obj2))
        && let Some(ap) = obj1.remove("additionalProperties")
    {
        obj1.insert("unevaluatedProperties".into(), ap);
    }
}

fn allow_unknown_properties(schema: &mut Value) {
    if let Value::Object(obj) = schema {
        if obj.get("additionalProperties") == Some(&Value::Bool(false)) {
            obj.remove("additionalProperties");
        }
        if obj.get("unevaluatedProperties") == Some(&Value::Bool(false)) {
            obj.remove("unevaluatedProperties");
        }
        for k in ["allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(a)) = obj.get_mut(k) {
                a.iter_mut().for_each(allow_unknown_properties);
            }
        }
        for k in ["if", "then", "else"] {
            if let Some(s) = obj.get_mut(k) {
                allow_unknown_properties(s);
            }
        }
    }
}

/// What every field of one struct shares.
struct StructCtx<'c> {
    rename_all: Option<RenameRule>,
    container_default: Option<&'c SerdeDefault>,
    owner: Option<ItemId>,
    module: ModId,
}

/// A field (of a struct or a struct variant) being described.
struct FieldCtx<'f> {
    field: &'f syn::Field,
    attrs: FieldAttrs,
    module: ModId,
    /// The field's type classified, when nothing stands between the type written and its schema (no `with`,
    /// `schema_with`, `transform` or type parameter: where it is set, none of them is): worked out once for its
    /// schema, its default, its `serde_json::Value` check and whether it is optional, which each classified it again.
    class: Option<Ty<'f>>,
}

impl<'a> Generator<'a> {
    /// A generator.
    pub fn new(ix: &'a CrateIndex, k8s: &'a K8sTable) -> Self {
        Self {
            ix,
            k8s,
            stack: Vec::new(),
            markers: None,
            problems: Vec::new(),
            map_depth: 0,
            frames: Vec::new(),
            env: None,
        }
    }

    /// Records a problem and goes on with the next field or variant, so that one run reports every problem of a
    /// kind (the schema built meanwhile is discarded by whoever finds problems in [`Generator::take_problems`]).
    pub fn report(&mut self, e: CrdError) {
        self.problems.push(e);
    }

    /// Whether a problem was recorded since the last [`Generator::take_problems`].
    pub fn has_problems(&self) -> bool {
        !self.problems.is_empty()
    }

    /// The problems recorded since the last call.
    pub fn take_problems(&mut self) -> Vec<CrdError> {
        std::mem::take(&mut self.problems)
    }

    /// Leave placeholders for the kubebuilder markers of `markers` (applied by `markers::apply`).
    pub fn with_markers(mut self, markers: &'a MarkerIndex) -> Self {
        self.markers = Some(markers);
        self
    }

    fn file(&self, m: ModId) -> &'a std::path::Path {
        self.ix.module_file(m)
    }

    /// What a bare type parameter (`T`) of the instance being described stands for, followed through parameters
    /// bound to parameters; `None` for any other type.
    fn bound_param(&self, ty: &syn::Type) -> Option<Bound> {
        self.bound_in(ty, self.env)
    }

    /// [`Generator::bound_param`] in frame `env`.
    fn bound_in(&self, ty: &syn::Type, env: Option<usize>) -> Option<Bound> {
        // outside generic items (nearly always) nothing is bound
        env?;
        let mut env = env;
        let mut found: Option<Bound> = None;
        let mut name = bare_name(ty);
        while let (Some(n), Some(e)) = (&name, env) {
            let Some((_, b)) = self.frames[e].params.iter().find(|(p, _)| p == n) else { break };
            name = bare_name(&b.ty);
            env = b.env;
            found = Some(b.clone());
        }
        found
    }

    /// What tells instances of one generic item apart: each argument of frame `frame`, followed through parameters,
    /// with the module it is written in (so that `Tree<T>` inside `Tree<X>` is the same instance again).
    fn frame_key(&self, frame: usize) -> String {
        let mut key = String::new();
        for (_, b) in &self.frames[frame].params {
            let b = self.bound_in(&b.ty, b.env).unwrap_or_else(|| b.clone());
            let ty = &b.ty;
            key.push_str(&format!("{}@{:?}@{:?};", quote::quote!(#ty), b.module, b.env));
        }
        key
    }

    /// The type parameter names of frame `env`.
    fn param_names(&self, env: Option<usize>) -> Vec<&str> {
        env.map(|e| self.frames[e].params.iter().map(|(n, _)| n.as_str()).collect()).unwrap_or_default()
    }

    /// Runs `f` with the type parameters of frame `env` in scope.
    fn in_env<T>(&mut self, env: Option<usize>, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = std::mem::replace(&mut self.env, env);
        let out = f(self);
        self.env = saved;
        out
    }

    /// `subschema_for::<T>()` with inlining.
    pub fn type_schema(&mut self, ty: &syn::Type, m: ModId) -> Result<Value, CrdError> {
        if let Some(b) = self.bound_param(ty) {
            return self.in_env(b.env, |g| g.type_schema(&b.ty, b.module));
        }
        let class = classify(self.ix, self.k8s, ty, m)?;
        self.type_schema_of(ty, m, class)
    }

    /// [`Generator::type_schema`] of `ty` (written in `m`, no type parameter), classified as `class`.
    fn type_schema_of(&mut self, ty: &syn::Type, m: ModId, class: Ty<'_>) -> Result<Value, CrdError> {
        match class {
            Ty::Option(t, m2) => {
                let mut s = self.type_schema(t, m2)?;
                make_optional(&mut s, self.ix.dialect);
                Ok(s)
            }
            Ty::Seq(t, m2, set) => {
                let items = self.type_schema(t, m2)?;
                let mut s = object([("type", json!("array")), ("items", items)]);
                if set {
                    s["uniqueItems"] = Value::Bool(true);
                }
                Ok(s)
            }
            Ty::Array(t, m2, n) => {
                let items = self.type_schema(t, m2)?;
                Ok(object([
                    ("type", json!("array")),
                    ("items", items),
                    ("minItems", Value::from(n)),
                    ("maxItems", Value::from(n)),
                ]))
            }
            Ty::Map(k, v, m2) => {
                self.map_depth += 1;
                let vs = self.type_schema(v, m2);
                self.map_depth -= 1;
                let vs = vs?;
                let key = self.bound_param(k);
                let (k, m2) = key.as_ref().map_or((k, m2), |b| (&b.ty, b.module));
                match classify(self.ix, self.k8s, k, m2)? {
                    Ty::Scalar(super::types::ScalarKind::Str, _) => {
                        Ok(object([("type", json!("object")), ("additionalProperties", vs)]))
                    }
                    Ty::Wrapper(..) => Ok(object([("type", json!("object")), ("additionalProperties", vs)])),
                    Ty::Item(id) => {
                        let names = self.unit_enum_names(id);
                        match names {
                            Some(names) => {
                                let props: Map<String, Value> = names.into_iter().map(|n| (n, vs.clone())).collect();
                                Ok(object([
                                    ("type", json!("object")),
                                    ("properties", Value::Object(props)),
                                    ("additionalProperties", Value::Bool(false)),
                                ]))
                            }
                            None => Err(self.non_string_key(k, m2)),
                        }
                    }
                    _ => Err(self.non_string_key(k, m2)),
                }
            }
            Ty::Wrapper(t, m2) => self.type_schema(t, m2),
            Ty::Scalar(_, s) => Ok(s.clone()),
            Ty::JsonValue => Ok(Value::Bool(true)),
            Ty::K8s(name) => {
                let mut s = self.k8s.get(name).unwrap_or(Value::Bool(true));
                if self.ix.dialect == Dialect::Schemars08 {
                    if !self.k8s.is_schemars_08() {
                        super::k8s::as_schemars_08(&mut s);
                    }
                } else if self.ix.rewriter == super::dialect::Rewriter::Kube2 {
                    super::k8s::as_kube_2(&mut s);
                }
                Ok(s)
            }
            Ty::Item(id) => self.item_schema(id),
            Ty::Instance(id, args, m2) => self.instance_schema(id, args, m2),
            Ty::Unit => Err(CrdError::unsupported(self.file(m), ty.span(), "unit type `()`", UNIT_FIX)),
            Ty::Tuple => Err(CrdError::unsupported(
                self.file(m),
                ty.span(),
                "tuple type",
                "kube-derive 5 emits `items` as an array of schemas, which the API server rejects (`items must be a \
                 schema object and not an array`); use a struct with named fields",
            )),
        }
    }

    fn non_string_key(&self, k: &syn::Type, m: ModId) -> CrdError {
        CrdError::unsupported(
            self.file(m),
            k.span(),
            format!("map key type `{}`", quote::quote!(#k)),
            "kube-derive 5 emits `patternProperties` (with `additionalProperties: false`), which the API server \
             rejects (`patternProperties is not supported`); use String keys",
        )
    }

    /// The serialized names of a unit-only enum.
    fn unit_enum_names(&self, id: ItemId) -> Option<Vec<String>> {
        let ItemKind::Enum(e) = &self.ix.items[id].kind else {
            return None;
        };
        let c = attrs::container_attrs(&e.attrs).ok()?;
        let mut out = Vec::new();
        for v in &e.variants {
            if !matches!(v.fields, syn::Fields::Unit) {
                return None;
            }
            let va = attrs::variant_attrs(&v.attrs).ok()?;
            if va.skip_de {
                continue;
            }
            out.push(variant_name(v, &va, &c));
        }
        Some(out)
    }

    /// Whether the type is `Option<_>` (through aliases).
    pub fn is_option(&self, ty: &syn::Type, m: ModId) -> bool {
        match self.bound_param(ty) {
            Some(b) => matches!(classify(self.ix, self.k8s, &b.ty, b.module), Ok(Ty::Option(..))),
            None => matches!(classify(self.ix, self.k8s, ty, m), Ok(Ty::Option(..))),
        }
    }

    /// `_schemars_private_non_optional_json_schema`.
    fn non_optional_schema(&mut self, ty: &syn::Type, m: ModId) -> Result<Value, CrdError> {
        if let Some(b) = self.bound_param(ty) {
            return self.in_env(b.env, |g| g.non_optional_schema(&b.ty, b.module));
        }
        match classify(self.ix, self.k8s, ty, m)? {
            Ty::Option(t, m2) => self.non_optional_schema(t, m2),
            _ => self.type_schema(ty, m),
        }
    }

    /// The schema of a crate struct or enum (container attributes applied).
    pub fn item_schema(&mut self, id: ItemId) -> Result<Value, CrdError> {
        // a type parameter of an enclosing generic item means nothing here
        self.in_env(None, |g| g.item_schema_in(id, false))
    }

    /// The schema of an instance of the generic item `id` with the arguments `args` written in module `at`
    /// (`Role<ZkConfig>`): the item's own schema with each type parameter bound to its argument, or to its default.
    fn instance_schema(&mut self, id: ItemId, args: &syn::PathArguments, at: ModId) -> Result<Value, CrdError> {
        let ix = self.ix;
        let item = &ix.items[id];
        let generics = match &item.kind {
            ItemKind::Struct(s) => &s.generics,
            ItemKind::Enum(e) => &e.generics,
            _ => return self.item_schema(id),
        };
        let written = crate::source::syntax::type_args(args);
        let needs = |span: Span, why: &str| {
            CrdError::needs_compile(self.file(item.module), span, format!("generic type `{}`", item.name), why)
        };
        let frame = self.frames.len();
        if frame > 64 {
            return Err(needs(item_span(&item.kind), "its instances nest without end"));
        }
        let mut params = Vec::new();
        let mut next = written.iter();
        for p in &generics.params {
            match p {
                syn::GenericParam::Lifetime(_) => {}
                syn::GenericParam::Const(c) => {
                    return Err(needs(c.span(), "kubesmith does not evaluate const generic parameters"));
                }
                syn::GenericParam::Type(tp) => {
                    let bound = match (next.next(), &tp.default) {
                        (Some(t), _) => Bound { ty: (*t).clone(), module: at, env: self.env },
                        // a default may name the parameters before it: it resolves in the instance's own frame
                        (None, Some(d)) => Bound { ty: d.clone(), module: item.module, env: Some(frame) },
                        (None, None) => return Err(needs(tp.span(), "the type is named without its arguments")),
                    };
                    params.push((tp.ident.to_string(), bound));
                }
            }
        }
        self.frames.push(Frame { params });
        let out = self.in_env(Some(frame), |g| g.item_schema_in(id, true));
        self.frames.truncate(frame);
        out
    }

    /// The frame of a generic `impl JsonSchema` describing the instance of frame `self.env`: the impl's own type
    /// parameters (`impl<X> JsonSchema for Wrapper<X>`) bound to the instance's arguments by position.
    fn impl_frame(&mut self, imp: &syn::ItemImpl) -> Option<usize> {
        let instance = &self.frames[self.env?];
        let syn::Type::Path(p) = &*imp.self_ty else { return None };
        let written = crate::source::syntax::type_args(&p.path.segments.last()?.arguments);
        let mut params = Vec::new();
        for (t, (_, bound)) in written.into_iter().zip(&instance.params) {
            let name = bare_name(t)?;
            let is_param =
                imp.generics.params.iter().any(|g| matches!(g, syn::GenericParam::Type(tp) if tp.ident == name));
            if !is_param {
                return None;
            }
            params.push((name, bound.clone()));
        }
        self.frames.push(Frame { params });
        Some(self.frames.len() - 1)
    }

    /// [`Generator::item_schema`], where `bound` says the item's type parameters are bound in frame `self.env`.
    fn item_schema_in(&mut self, id: ItemId, bound: bool) -> Result<Value, CrdError> {
        let ix = self.ix;
        let item = &ix.items[id];
        let m = item.module;
        let file = self.file(m);
        let key = if bound { self.env.map(|f| self.frame_key(f)) } else { None };
        if self.stack.iter().any(|(i, k)| *i == id && *k == key) {
            return Err(CrdError::unsupported(
                file,
                item_span(&item.kind),
                format!("recursive type `{}`", item.name),
                "kube-derive 5 emits a `$ref` to a definition the CRD does not hold, which the API server rejects \
                 (`$ref is not supported`); break the recursion (e.g. `children: Vec<serde_json::Value>` with \
                 #[schemars(extend(\"items\" = {\"x-kubernetes-preserve-unknown-fields\": true}))])",
            ));
        }
        if let Some(imp) = custom::json_schema_impl(ix, id) {
            if let Some(mi) = self.markers {
                self.problems.extend(mi.item_problems(id).iter().cloned());
            }
            self.stack.push((id, key.clone()));
            let construct = format!("`impl JsonSchema for {}`", item.name);
            let depth = self.frames.len();
            let result = match (bound, imp.item.generics.params.is_empty()) {
                (true, false) => match self.impl_frame(&imp.item) {
                    Some(f) => self.in_env(Some(f), |g| custom::impl_schema(ix, g, imp, construct, true)),
                    None => custom::impl_schema(ix, self, imp, construct, false),
                },
                _ => self.in_env(None, |g| custom::impl_schema(ix, g, imp, construct, false)),
            };
            self.frames.truncate(depth);
            self.stack.pop();
            let mut schema = self.hole_for_markers(id, result)?;
            if self.markers.is_some_and(|mi| !mi.item(id).is_empty()) {
                crd_markers::add_placeholder(&mut schema, TYPE_KEY, crd_markers::type_ref(id));
            }
            return Ok(schema);
        }
        let (attrs_list, generics) = match &item.kind {
            ItemKind::Struct(s) => (&s.attrs, &s.generics),
            ItemKind::Enum(e) => (&e.attrs, &e.generics),
            _ => return Ok(Value::Bool(true)),
        };
        if !bound && !generics.params.is_empty() {
            // schemars gives a generic type a schema per instance: without the instance's arguments, the compiled
            // fallback gives it.
            return Err(CrdError::needs_compile(
                file,
                item_span(&item.kind),
                format!("generic type `{}`", item.name),
                "kubesmith does not put a generic type's arguments in its fields",
            ));
        }
        if let Some(mi) = self.markers {
            self.problems.extend(mi.item_problems(id).iter().cloned());
        }
        let cattrs = attrs::container_attrs(attrs_list).map_err(|e| attr_err(ix, m, e))?;
        if let Some((what, span)) = &cattrs.custom_schema {
            let e = CrdError::needs_compile(
                file,
                *span,
                format!("`#[serde/schemars({what} = ..)]` on `{}`", item.name),
                "the schema then depends on code run at compile or run time",
            );
            let mut schema = self.hole_for_markers(id, Err(e))?;
            crd_markers::add_placeholder(&mut schema, TYPE_KEY, crd_markers::type_ref(id));
            return Ok(schema);
        }
        self.stack.push((id, key));
        let result = self.container_schema(id, &cattrs);
        self.stack.pop();
        let mut schema = self.hole_for_markers(id, result)?;
        cattrs.common.apply_metadata(&mut schema, self.ix.dialect);
        cattrs.common.apply_extensions(&mut schema);
        super::x_kube::apply_x_kube(attrs_list, &mut schema).map_err(|e| attr_err(ix, m, e))?;
        if self.markers.is_some_and(|mi| !mi.item(id).is_empty()) {
            crd_markers::add_placeholder(&mut schema, TYPE_KEY, crd_markers::type_ref(id));
        }
        Ok(schema)
    }

    /// A type only the crate's code can give a schema, whose markers the compiled fallback must still apply: the
    /// problem reported and an empty schema returned, where the caller puts the type's marker placeholder
    /// (`markers::transplant` carries it to the compiled schema). Other results pass through.
    fn hole_for_markers(&mut self, id: ItemId, result: Result<Value, CrdError>) -> Result<Value, CrdError> {
        match result {
            Err(e) if e.needs_compiling() && self.markers.is_some_and(|mi| !mi.item(id).is_empty()) => {
                self.report(e);
                Ok(json!({}))
            }
            other => other,
        }
    }

    fn container_schema(&mut self, id: ItemId, cattrs: &ContainerAttrs) -> Result<Value, CrdError> {
        let ix = self.ix;
        let item = &ix.items[id];
        let m = item.module;
        if let Some((path, span)) = &cattrs.schema_with {
            let construct = format!("`#[schemars(schema_with = \"{path}\")]` on `{}`", item.name);
            return custom::schema_with(ix, self, path, *span, m, construct);
        }
        if let Some(with) = &cattrs.with {
            return self.with_schema(with, m);
        }
        match &item.kind {
            ItemKind::Struct(s) => match &s.fields {
                syn::Fields::Unit => Err(CrdError::unsupported(
                    self.file(m),
                    s.ident.span(),
                    format!("unit struct `{}`", item.name),
                    UNIT_FIX,
                )),
                syn::Fields::Unnamed(u) if u.unnamed.len() == 1 => {
                    let f = &u.unnamed[0];
                    let fa = attrs::field_attrs(&f.attrs).map_err(|e| attr_err(ix, m, e))?;
                    let mut schema =
                        self.field_schema(&FieldCtx { field: f, attrs: fa.clone(), module: m, class: None })?;
                    fa.common.apply_extensions(&mut schema);
                    Ok(schema)
                }
                syn::Fields::Unnamed(u) => Err(CrdError::unsupported(
                    self.file(m),
                    u.span(),
                    format!("tuple struct `{}`", item.name),
                    "kube-derive 5 emits `items` as an array of schemas, which the API server rejects (`items must \
                     be a schema object and not an array`); use named fields",
                )),
                syn::Fields::Named(n) => {
                    if cattrs.transparent {
                        for f in &n.named {
                            let fa = attrs::field_attrs(&f.attrs).map_err(|e| attr_err(ix, m, e))?;
                            if !fa.skip_de {
                                let mut schema = self.field_schema(&FieldCtx {
                                    field: f,
                                    attrs: fa.clone(),
                                    module: m,
                                    class: None,
                                })?;
                                fa.common.apply_extensions(&mut schema);
                                return Ok(schema);
                            }
                        }
                        return Ok(json!({"type": "null"}));
                    }
                    let fields: Vec<&syn::Field> = n.named.iter().collect();
                    self.struct_schema(
                        &fields,
                        cattrs.rename_all,
                        cattrs.default.as_ref(),
                        Some(id),
                        cattrs.deny_unknown_fields,
                        m,
                    )
                }
            },
            ItemKind::Enum(e) => self.enum_schema(id, e, cattrs),
            _ => Ok(Value::Bool(true)),
        }
    }

    /// `expr_for_field`: the field type's schema plus the field's metadata and validation.
    fn field_schema(&mut self, f: &FieldCtx) -> Result<Value, CrdError> {
        let mut schema = match self.custom_field_schema(f) {
            Some(custom) => custom?,
            None => {
                let with = f.attrs.with.as_ref();
                match (with, f.attrs.validation.required) {
                    (Some(w), false) => self.with_schema(w, f.module)?,
                    (Some(w), true) => self.non_optional_schema(&w.ty, f.module)?,
                    (None, false) => match &f.class {
                        Some(class) => self.type_schema_of(&f.field.ty, f.module, class.clone())?,
                        None => self.type_schema(&f.field.ty, f.module)?,
                    },
                    (None, true) => self.non_optional_schema(&f.field.ty, f.module)?,
                }
            }
        };
        f.attrs.common.apply_metadata(&mut schema, self.ix.dialect);
        let mut validation = f.attrs.validation.clone();
        self.read_patterns(&mut validation, f)?;
        apply_validation(&validation, &mut schema);
        if f.attrs.skip_de {
            attrs::insert(&mut schema, "readOnly", Value::Bool(true));
        }
        if f.attrs.skip_ser {
            attrs::insert(&mut schema, "writeOnly", Value::Bool(true));
        }
        Ok(schema)
    }

    /// Reads the pattern expressions of a field's validation (and of its `inner`) into literals: the text of a
    /// regex statically visible in the sources, else a NeedsCompile naming the attribute and why.
    fn read_patterns(&self, v: &mut Validation, f: &FieldCtx) -> Result<(), CrdError> {
        if let Some(attrs::Pattern::Expr { expr, attr, span }) = &v.pattern {
            let text = super::pattern::text(self.ix, expr, f.module).map_err(|why| {
                CrdError::needs_compile(
                    self.file(f.module),
                    *span,
                    format!("`#[{attr}]` on field `{}`", field_label(f.field)),
                    format!(
                        "schemars takes the pattern from `{}` at run time and {why}; kubesmith reads strings it \
                         can evaluate (literals, consts, `format!`, crate fns) and `Regex::new(..)` of one in statics \
                         (`LazyLock`, once_cell's `Lazy`, `lazy_static!`)",
                        quote::quote!(#expr).to_string().replace(' ', "")
                    ),
                )
            })?;
            v.pattern = Some(attrs::Pattern::Literal(text));
        }
        if let Some(inner) = &mut v.inner {
            self.read_patterns(inner, f)?;
        }
        Ok(())
    }

    /// Whether the type markers of item `id` give its schema a type (or `x-kubernetes-preserve-unknown-fields`),
    /// so whatever kube-derive emits for the `serde_json::Value` inside it is replaced.
    pub(crate) fn typed_by_type_markers(&self, id: ItemId) -> bool {
        self.markers.is_some_and(|mi| {
            mi.item(id).iter().any(|mk| TYPING_MARKERS.iter().any(|n| mk.name.ends_with(&format!(":{n}"))))
        })
    }

    /// Refuses `schema`, the schema a field got, when its `serde_json::Value` (at `steps` of it) is one kube-derive
    /// gets wrong; `what` names the field, `target` where the fix goes.
    fn check_value(
        &self,
        schema: &Value,
        steps: &[values::Step],
        file: &std::path::Path,
        span: proc_macro2::Span,
        what: &str,
        target: &str,
    ) -> Result<(), CrdError> {
        let at = values::at(steps);
        let said = match values::verdict(schema, steps, self.map_depth > 0) {
            values::Verdict::Fine | values::Verdict::MapValues => return Ok(()),
            values::Verdict::Rejected { emitted, reason } => {
                let place = if at.is_empty() { "for it".to_string() } else { format!("at `{at}`") };
                format!(
                    "kube-derive 5 emits `{emitted}` {place}, a schema without `type`, which the API server rejects \
                     (`{reason}`)"
                )
            }
            values::Verdict::Panics => "kube-derive 5's crd() panics on it: in a map's values schemars leaves it the \
                                        boolean schema `true`, which does not convert to JSONSchemaProps (\"valid \
                                        JSONSchemaProps from schemars schema\")"
                .to_string(),
        };
        let place = if at.is_empty() { String::new() } else { format!(" (in `{at}`)") };
        Err(CrdError::unsupported(
            file,
            span,
            format!("{what} holds a serde_json::Value{place} without x-kubernetes-preserve-unknown-fields"),
            format!("{said}; add {} to {target}", values::fix(steps)),
        ))
    }

    /// The schema of a field's `#[schemars(schema_with = ..)]` fn (`transform` needs compiling), if it has one.
    fn custom_field_schema(&mut self, f: &FieldCtx) -> Option<Result<Value, CrdError>> {
        if let Some(span) = f.attrs.transform {
            return Some(Err(CrdError::needs_compile(
                self.file(f.module),
                span,
                format!("`#[schemars(transform = ..)]` on field `{}`", field_label(f.field)),
                "a transform fn edits the schema at run time",
            )));
        }
        let (path, span) = f.attrs.schema_with.as_ref()?;
        let construct = format!("`#[schemars(schema_with = \"{path}\")]` on field `{}`", field_label(f.field));
        Some(custom::schema_with(self.ix, self, path, *span, f.module, construct))
    }

    /// `subschema_for::<T>()` of a `with = "T"`; a `#[serde(with = "x")]` schemars reads as a type but kubesmith
    /// does not know (usually a module) needs compiling.
    fn with_schema(&mut self, with: &WithType, m: ModId) -> Result<Value, CrdError> {
        match self.type_schema(&with.ty, m) {
            Err(e) if with.from_serde && super::types::unresolved_type(&e).is_some() => {
                let ty = &with.ty;
                let ty = quote::quote!(#ty).to_string().replace(' ', "");
                Err(CrdError::needs_compile(
                    self.file(m),
                    with.span,
                    format!("`#[serde(with = \"{ty}\")]`"),
                    format!(
                        "schemars takes `{ty}` for the schema type and kubesmith does not know it; if it is a module, \
                         kube-derive does not compile either: add #[schemars(with = \"Type\")] or \
                         #[schemars(schema_with = \"fn\")] to the field"
                    ),
                ))
            }
            other => other,
        }
    }

    /// `expr_for_struct`.
    pub fn struct_schema(
        &mut self,
        fields: &[&syn::Field],
        rename_all: Option<RenameRule>,
        container_default: Option<&SerdeDefault>,
        owner: Option<ItemId>,
        deny_unknown_fields: bool,
        m: ModId,
    ) -> Result<Value, CrdError> {
        let mut schema = json!({"type": "object"});
        if deny_unknown_fields {
            schema["additionalProperties"] = Value::Bool(false);
        }
        let mut container_values: Option<Map<String, Value>> = None;
        let ctx = StructCtx { rename_all, container_default, owner, module: m };
        for field in fields {
            if let Err(e) = self.struct_field(field, &mut schema, &mut container_values, &ctx) {
                self.report(e);
            }
        }
        Ok(schema)
    }

    /// One field of [`Generator::struct_schema`]: its property (and `required` entry) added to `schema`.
    fn struct_field(
        &mut self,
        field: &syn::Field,
        schema: &mut Value,
        container_values: &mut Option<Map<String, Value>>,
        ctx: &StructCtx,
    ) -> Result<(), CrdError> {
        let (rename_all, container_default, owner, m) = (ctx.rename_all, ctx.container_default, ctx.owner, ctx.module);
        let ix = self.ix;
        let file = self.file(m);
        if let Some(mi) = self.markers.filter(|mi| mi.has_field_markers()) {
            self.problems.extend(mi.field_problems(MarkerIndex::field_key(ix, m, field)).iter().cloned());
        }
        let fa = attrs::field_attrs(&field.attrs).map_err(|e| attr_err(ix, m, e))?;
        // schemars 0.8 describes a field serde only skips deserializing (`readOnly`, which kube drops)
        if fa.skip_de && (ix.dialect == Dialect::Schemars1 || fa.skip_ser) {
            return Ok(());
        }
        let ident = field.ident.as_ref().map(unraw).unwrap_or_default();
        let name = fa.rename.clone().unwrap_or_else(|| rename_all.map_or(ident.clone(), |r| r.apply_to_field(&ident)));
        if fa.flatten {
            let ty = fa.with.as_ref().map_or(&field.ty, |w| &w.ty);
            let fctx = FieldCtx { field, attrs: fa.clone(), module: m, class: None };
            // A `schema_with` fn's type is never an Option to schemars.
            let (base, optional) = match self.custom_field_schema(&fctx) {
                Some(custom) => (custom?, false),
                None => (self.non_optional_schema(ty, m)?, self.is_option(ty, m) && !fa.validation.required),
            };
            let mut fs = base;
            if ix.dialect == Dialect::Schemars08 {
                // `json_schema_for_flatten`: an optional flattened struct requires nothing; then `Schema::flatten`
                if optional && let Value::Object(o) = &mut fs {
                    o.remove("required");
                }
                flatten08::flatten(schema, fs);
                return Ok(());
            }
            if optional {
                if let Value::Object(o) = &mut fs {
                    o.remove("required");
                    if let Some(one_of) = o.remove("oneOf") {
                        let any_of = Value::Array(vec![object([("oneOf", one_of)]), json!({})]);
                        flatten(&mut fs, object([("anyOf", any_of)]));
                    }
                }
                if let Some(Value::Array(any_of)) = fs.get_mut("anyOf") {
                    let empty = json!({});
                    if !any_of.contains(&empty) {
                        any_of.push(empty);
                    }
                }
            }
            allow_unknown_properties(&mut fs);
            flatten(schema, fs);
            return Ok(());
        }
        let plain = fa.with.is_none()
            && fa.schema_with.is_none()
            && fa.transform.is_none()
            && self.bound_param(&field.ty).is_none();
        let class = if plain { classify(ix, self.k8s, &field.ty, m).ok() } else { None };
        let fctx = FieldCtx { field, attrs: fa, module: m, class };
        // A field only the crate's code can give a schema is a hole in the schema: reported (the kind goes to the
        // compiled fallback), the property kept empty with its marker placeholder, so that the fallback can apply
        // the markers to the compiled schema at the same place (`markers::transplant`).
        let (mut fs, hole) = match self.field_schema(&fctx) {
            Ok(fs) => (fs, false),
            Err(e) if e.needs_compiling() => {
                self.report(e);
                (json!({}), true)
            }
            Err(e) => return Err(e),
        };
        let fa = &fctx.attrs;
        let field_markers = self.markers.filter(|mi| mi.has_field_markers());
        let fmarkers = field_markers.map(|mi| mi.field(MarkerIndex::field_key(ix, m, field))).unwrap_or_default();
        let marker_default = fmarkers.iter().any(|mk| mk.name == "kubebuilder:default" || mk.name == "default");
        let has_default = container_default.is_some() || fa.default.is_some();
        // a hole has no schema to put a default in: the compiled schema brings its own
        if !fa.skip_ser && has_default && !marker_default && !hole {
            if let Some(span) = fa.serialize_with {
                return Err(CrdError::needs_compile(
                    file,
                    span,
                    format!("the default of field `{ident}`"),
                    "schemars serializes it with the field's `#[serde(with/serialize_with)]` code",
                ));
            }
            let eval = Evaluator::new(ix, self.k8s);
            // a field typed with a type parameter (`role_config: RoleConfig`) defaults to its argument's default
            let bound = self.bound_param(&field.ty);
            let (dty, dm) = bound.as_ref().map_or((&field.ty, m), |b| (&b.ty, b.module));
            let generic_left = match &bound {
                Some(b) => mentions(&b.ty, &self.param_names(b.env)),
                None => mentions(&field.ty, &self.param_names(self.env)),
            };
            // `Option<T>`, `Vec<T>` and maps default to null, `[]` and `{}` whatever their parameters
            let generic_left = generic_left
                && !matches!(classify(ix, self.k8s, dty, dm), Ok(Ty::Option(..) | Ty::Seq(..) | Ty::Map(..)));
            let value = match &fa.default {
                _ if generic_left => Err("its type names a type parameter of a generic type".to_string()),
                Some(SerdeDefault::Default) => match &fctx.class {
                    Some(class) => eval.default_of_classified(class.clone()),
                    None => eval.default_of(dty, dm),
                },
                Some(SerdeDefault::Path(p)) => eval.call_default_fn(p, &field.ty, m),
                _ => {
                    if container_values.is_none() {
                        let v = match (container_default, owner) {
                            (Some(SerdeDefault::Path(p)), Some(id)) => eval.call_default_fn_fields(p, id, m),
                            (_, Some(id)) => eval.item_default_fields(id),
                            _ => Err("no container".to_string()),
                        };
                        // A container default only code gives: each field's default is then the compiled one
                        // (the reason kept under "", a key no field has).
                        *container_values = Some(match v {
                            Ok(values) => values,
                            Err(reason) if compiled_default(&reason) => Map::from_iter([("".into(), reason.into())]),
                            Err(reason) => return Err(self.default_error(field, &ident, m, reason)),
                        });
                    }
                    let values = container_values.as_ref();
                    match values.and_then(|c| c.get("")) {
                        Some(reason) => Err(format!("the container's default: {}", reason.as_str().unwrap_or(""))),
                        None => values
                            .and_then(|c| c.get(&ident).cloned())
                            .ok_or_else(|| format!("field `{ident}` missing from the container default")),
                    }
                }
            };
            let value = match value {
                Ok(v) => Some(v),
                // kube-derive's `crd()` runs the default's code: the compiled fallback gives it.
                Err(reason) if compiled_default(&reason) => {
                    self.report(CrdError::needs_compile(
                        file,
                        field.span(),
                        format!("the default of field `{ident}`"),
                        format!(
                            "kubesmith cannot evaluate it statically ({reason}); a `// +kubebuilder:default=<json>` \
                             marker above the field has it read without compiling"
                        ),
                    ));
                    None
                }
                Err(reason) => return Err(self.default_error(field, &ident, m, reason)),
            };
            let value = match (value, &fa.skip_ser_if) {
                (Some(v), Some(pred)) => match super::predicates::holds(ix, &eval, pred, &v, dty, dm) {
                    Some(true) => None,
                    Some(false) => Some(v),
                    // kube-derive's `crd()` runs the predicate on the default: the compiled fallback gives it.
                    None => {
                        self.report(CrdError::needs_compile(
                            file,
                            field.span(),
                            format!("skip_serializing_if = \"{pred}\" on field `{ident}` with a default"),
                            "kubesmith evaluates is_none/is_some/is_empty and crate fns comparing the value with its type's default or a literal",
                        ));
                        None
                    }
                },
                (v, _) => v,
            };
            if let Some(v) = value {
                attrs::insert(&mut fs, "default", v);
            }
        }
        fa.common.apply_extensions(&mut fs);
        super::x_kube::apply_x_kube(&field.attrs, &mut fs).map_err(|e| attr_err(ix, m, e))?;
        let typed_by_marker =
            fmarkers.iter().any(|mk| TYPING_MARKERS.iter().any(|n| mk.name.ends_with(&format!(":{n}"))));
        let items_marked = fmarkers.iter().any(|mk| {
            ["XPreserveUnknownFields", "Type", "XIntOrString", "XEmbeddedResource"]
                .iter()
                .any(|n| mk.name == format!("kubebuilder:validation:items:{n}"))
        });
        if fa.schema_with.is_none() && !hole {
            let bound = self.bound_param(&field.ty).filter(|_| fa.with.is_none());
            let (ty, vm) = match (&fa.with, &bound) {
                (Some(w), _) => (&w.ty, m),
                (None, Some(b)) => (&b.ty, b.module),
                (None, None) => (&field.ty, m),
            };
            let typed = |id| self.typed_by_type_markers(id);
            let spot = match &fctx.class {
                Some(class) => values::value_spot_classified(ix, self.k8s, class.clone(), &typed),
                None => values::value_spot(ix, self.k8s, ty, vm, &typed),
            };
            if let Some(steps) = spot {
                let marked = match steps.first() {
                    None => typed_by_marker,
                    Some(values::Step::Items) => items_marked && steps.len() == 1,
                    Some(values::Step::Values) => false,
                };
                if !marked {
                    self.check_value(&fs, &steps, file, field.ty.span(), &format!("field `{ident}`"), "the field")?;
                }
            }
        }
        if !fmarkers.is_empty() {
            let key = MarkerIndex::field_key(ix, m, field);
            crd_markers::add_placeholder(&mut fs, FIELD_KEY, crd_markers::field_ref(key));
        }
        let has_ssi = fa.skip_ser_if.is_some();
        let required_attr = fa.validation.required;
        // schemars asks `_SchemarsSchemaWithFunction::_schemars_private_is_option()` of a `schema_with` field: false,
        // so such an Option field is required (and its schema is not made nullable) unless it has a default.
        let ty = fa.with.as_ref().map_or(&field.ty, |w| &w.ty);
        let is_option = fa.schema_with.is_none()
            && match &fctx.class {
                Some(class) => matches!(class, Ty::Option(..)),
                None => self.is_option(ty, m),
            };
        let optional = if has_ssi && has_default {
            true
        } else if !has_ssi && !has_default && !required_attr {
            is_option
        } else {
            has_default || (!required_attr && is_option)
        };
        if let Value::Object(obj) = schema {
            if let Value::Object(props) = obj.entry("properties").or_insert_with(|| json!({})) {
                props.insert(name.clone(), fs);
            }
            if !optional && let Value::Array(req) = obj.entry("required").or_insert_with(|| json!([])) {
                req.push(Value::String(name));
            }
        }
        Ok(())
    }

    fn default_error(&self, field: &syn::Field, ident: &str, m: ModId, reason: String) -> CrdError {
        CrdError::at(self.file(m), field.span(), CrdErrorKind::Default { field: ident.to_string(), reason })
    }
}

/// Whether a default kubesmith cannot evaluate is the compiled fallback's to give: any but one nesting without end
/// (a `Default` impl calling itself), which overflows kube-derive's `crd()` too, and code that does not compile
/// where serde calls it (`Self::f`).
fn compiled_default(reason: &str) -> bool {
    !reason.contains("nest too deeply") && !reason.contains("does not compile")
}

/// A field's name for messages (`0` for a newtype's field).
fn field_label(field: &syn::Field) -> String {
    field.ident.as_ref().map(unraw).unwrap_or_else(|| "0".into())
}

impl Subschemas<CrateIndex> for Generator<'_> {
    fn subschema_for(&mut self, ty: &syn::Type, module: ModId) -> Result<Value, CrdError> {
        self.type_schema(ty, module)
    }
}
