//! Static evaluation of serde default values (`#[serde(default)]`, `default = "fn"`, `impl Default`,
//! `#[derive(Default)]`) into the JSON that `serde_json::to_value` would produce at run time.
//!
//! This module is the typed reading: it follows the field's type through `Option`, containers, wrappers, struct
//! literals (with `..rest`), enum variants and `impl Default` bodies, and serializes them as serde would (renames,
//! skips, flatten). Crate fns without parameters whose body is one expression after immutable `let`s (free, or
//! associated: `Type::f`, `Self::f` inside impls, inherent before trait impls), consts, associated consts and
//! immutable statics are followed to the expression they give. Every scalar and `serde_json::Value` it comes to is
//! computed by the one interpreter of constant code ([`crate::source::eval`]: literals, arithmetic, casts, consts, bounds,
//! `json!`). A default it cannot evaluate is `NeedsCompile`, for the compiled fallback; only a default
//! nesting without end, or code that does not compile where serde calls it, is refused.

use serde_json::{Map, Value, json};
use syn::punctuated::Punctuated;
use syn::{Expr, Token};

use super::attrs::{self, variant_name};
use super::index::{CrateIndex, ItemId, ItemKind, ModId, unraw};
use super::k8s::K8sTable;
use super::types::{ScalarKind, Ty, classify};
use crate::source::constant;
use crate::source::eval::{self, names};
use crate::source::lex::path_segs;
use crate::source::meta::expr_str;

type Res<T> = Result<T, String>;

/// Where an expression is written: the module its names resolve in, and the type `Self` stands for (inside
/// an impl block, or a serde attribute of a type).
#[derive(Debug, Clone, Copy)]
struct Scope<'a> {
    module: ModId,
    self_ty: Option<ItemId>,
    /// The self type of the impl block the code is in, when `Self` names no crate item (a kind type a derive
    /// generates).
    impl_ty: Option<&'a syn::Type>,
    /// The `let` bindings in effect: a fn body and how many of its statements precede the expression.
    locals: Option<(&'a syn::Block, usize)>,
}

impl<'a> Scope<'a> {
    /// The initializer of the local `p` names (the nearest `let` of it before the expression), with the scope
    /// that initializer is written in.
    fn local(&self, p: &syn::Path) -> Option<(&'a Expr, Scope<'a>)> {
        let (block, n) = self.locals?;
        let name = p.get_ident()?;
        block.stmts[..n].iter().enumerate().rev().find_map(|(i, s)| {
            let (id, init) = local_binding(s)?;
            (id == name).then_some((init, Scope { locals: Some((block, i)), ..*self }))
        })
    }

    /// The scope for looking up names.
    fn names(&self) -> names::Scope<'a, ModId, ItemId> {
        names::Scope { module: self.module, self_item: self.self_ty, self_ty: self.impl_ty, uses: &[] }
    }
}

/// Whether a `skip_serializing_if` predicate holds for a serialized value; `None` when unknown.
pub fn predicate_holds(pred: &str, v: &Value) -> Option<bool> {
    let last = pred.rsplit("::").next().unwrap_or(pred);
    match last {
        "is_none" => Some(v.is_null()),
        "is_some" => Some(!v.is_null()),
        "is_empty" => Some(match v {
            Value::String(s) => s.is_empty(),
            Value::Array(a) => a.is_empty(),
            Value::Object(o) => o.is_empty(),
            Value::Null => true,
            _ => false,
        }),
        _ => None,
    }
}

/// Evaluates default expressions.
pub struct Evaluator<'a> {
    ix: &'a CrateIndex,
    k8s: &'a K8sTable,
}

/// Strip parentheses, groups, single-expression blocks and value-preserving conversions.
fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
            syn::Stmt::Expr(inner, None) => strip(inner),
            _ => e,
        },
        // A default is read as the value `.to_string()` is called on, whatever it is.
        Expr::MethodCall(mc) if mc.args.is_empty() && mc.method == "to_string" => strip(&mc.receiver),
        Expr::Cast(c) => strip(&c.expr),
        _ => constant::converted_value(e).map_or(e, strip),
    }
}

/// `Default::default()`, `T::default()`, `<T>::default()`, `T::new()` of containers.
fn is_default_call(e: &Expr) -> bool {
    let Expr::Call(c) = e else { return false };
    if !c.args.is_empty() {
        return false;
    }
    let Expr::Path(p) = &*c.func else {
        return false;
    };
    let last = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
    last == "default"
}

/// The expression a fn body evaluates to, with the number of statements before it: `{ expr }`,
/// `{ return expr; }`, after any number of immutable `let`s of names (`let limits = BTreeMap::from(..);`), which
/// the expression may use.
fn block_expr(block: &syn::Block) -> Option<(&Expr, usize)> {
    let (last, lets) = block.stmts.split_last()?;
    if !lets.iter().all(|s| local_binding(s).is_some()) {
        return None;
    }
    let e = match last {
        syn::Stmt::Expr(Expr::Return(r), _) => r.expr.as_deref()?,
        syn::Stmt::Expr(e, None) => e,
        _ => return None,
    };
    Some((e, lets.len()))
}

/// `let name = init;` or `let name: T = init;` (not `mut`, no `else`): the name and its initializer.
fn local_binding(s: &syn::Stmt) -> Option<(&syn::Ident, &Expr)> {
    let syn::Stmt::Local(l) = s else { return None };
    let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
    let pat = match &l.pat {
        syn::Pat::Type(t) => &*t.pat,
        p => p,
    };
    let syn::Pat::Ident(pi) = pat else { return None };
    (pi.mutability.is_none() && pi.by_ref.is_none() && pi.subpat.is_none()).then_some((&pi.ident, &*init.expr))
}

fn derives(attrs_list: &[syn::Attribute], name: &str) -> bool {
    attrs_list.iter().filter(|a| a.path().is_ident("derive")).any(|a| {
        a.parse_args_with(Punctuated::<syn::Path, Token![,]>::parse_terminated)
            .map(|l| l.iter().any(|p| p.segments.last().is_some_and(|s| s.ident == name)))
            .unwrap_or(false)
    })
}

/// Whether a struct's `Default` is the derived one: `#[derive(Default)]`, or educe's `#[derive(Educe)]` with
/// `#[educe(Default)]` (`Default(bound(..))` too) and no field giving its own default (`#[educe(Default = ..)]`).
fn derives_default(s: &syn::ItemStruct) -> bool {
    derives(&s.attrs, "Default") || (derives(&s.attrs, "Educe") && educe_default(s))
}

fn educe_default(s: &syn::ItemStruct) -> bool {
    let metas = |a: &syn::Attribute| {
        a.parse_args_with(Punctuated::<syn::Meta, Token![,]>::parse_terminated)
            .map(|l| l.into_iter().collect::<Vec<_>>())
    };
    let plain = s.attrs.iter().filter(|a| a.path().is_ident("educe")).any(|a| {
        metas(a).is_ok_and(|l| {
            l.iter().any(|m| match m {
                syn::Meta::Path(p) => p.is_ident("Default"),
                // only `bound` arguments: `new` or `expression` make it code
                syn::Meta::List(list) if list.path.is_ident("Default") => list
                    .parse_args_with(Punctuated::<syn::Meta, Token![,]>::parse_terminated)
                    .is_ok_and(|args| args.iter().all(|a| a.path().is_ident("bound"))),
                _ => false,
            })
        })
    });
    let field_own = s
        .fields
        .iter()
        .flat_map(|f| &f.attrs)
        .filter(|a| a.path().is_ident("educe"))
        .any(|a| metas(a).map_or(true, |l| l.iter().any(|m| m.path().is_ident("Default"))));
    plain && !field_own
}

impl<'a> Evaluator<'a> {
    /// An evaluator over the crate index.
    pub fn new(ix: &'a CrateIndex, k8s: &'a K8sTable) -> Self {
        Self { ix, k8s }
    }

    /// The JSON value of `e` written at `scope`, from the one interpreter of constant code ([`eval`]); `None` when
    /// it cannot tell without compiling.
    fn value(&self, e: &Expr, scope: Scope<'a>) -> Option<Value> {
        let before = scope.locals.map_or(&[][..], |(block, n)| &block.stmts[..n]);
        let site =
            eval::Site { module: scope.module, self_item: scope.self_ty, self_ty: scope.impl_ty, before, bound: &[] };
        eval::Evaluator::values(self.ix).value(e, site).ok()
    }

    fn classify<'t>(&self, ty: &'t syn::Type, m: ModId) -> Res<Ty<'t>>
    where
        'a: 't,
    {
        classify(self.ix, self.k8s, ty, m).map_err(|e| e.kind.to_string())
    }

    /// `serde_json::to_value(<T>::default())`.
    pub fn default_of(&self, ty: &syn::Type, m: ModId) -> Res<Value> {
        self.default_depth(ty, m, 0)
    }

    /// [`Evaluator::default_of`] of a type already classified as `ty`.
    pub fn default_of_classified(&self, ty: Ty<'_>) -> Res<Value> {
        self.default_of_ty(ty, 0)
    }

    fn default_depth(&self, ty: &syn::Type, m: ModId, depth: usize) -> Res<Value> {
        if depth > 24 {
            return Err("default values nest too deeply".into());
        }
        self.default_of_ty(self.classify(ty, m)?, depth)
    }

    fn default_of_ty(&self, ty: Ty<'_>, depth: usize) -> Res<Value> {
        Ok(match ty {
            Ty::Option(..) | Ty::Unit | Ty::JsonValue => Value::Null,
            Ty::Seq(..) => json!([]),
            Ty::Array(t, m2, n) => {
                let v = self.default_depth(t, m2, depth + 1)?;
                Value::Array(vec![v; n as usize])
            }
            Ty::Map(..) => json!({}),
            Ty::Wrapper(t, m2) => self.default_depth(t, m2, depth + 1)?,
            Ty::Scalar(kind, schema) => match kind {
                ScalarKind::Str => json!(""),
                ScalarKind::Bool => json!(false),
                ScalarKind::Int => json!(0),
                ScalarKind::Float => json!(0.0),
                ScalarKind::Other if schema.get("properties").is_some() => {
                    json!({"secs": 0, "nanos": 0})
                }
                ScalarKind::Other => return Err("type has no statically known default".into()),
            },
            Ty::K8s(name) => match name {
                "Quantity" => json!(""),
                "IntOrString" => json!(0),
                _ => return Err(format!("`{name}::default()` is not evaluated statically")),
            },
            Ty::Tuple => return Err("tuples are not supported".into()),
            Ty::Item(id) => self.item_default(id, depth + 1)?,
            Ty::Instance(id, ..) if self.independent_of_parameters(id) => self.item_default(id, depth + 1)?,
            Ty::Instance(..) => {
                return Err("the default of a generic type whose fields name its parameters is not evaluated \
                            statically"
                    .into());
            }
        })
    }

    /// The body of `fn default()` of the type's `impl Default`, with its scope.
    fn default_impl_body(&self, id: ItemId) -> Option<(&'a Expr, Scope<'a>)> {
        let ix: &'a CrateIndex = self.ix;
        let (i, f) = ix.trait_impls(id, "Default").find_map(|i| {
            i.item.items.iter().find_map(|ii| match ii {
                syn::ImplItem::Fn(f) if f.sig.ident == "default" && f.sig.inputs.is_empty() => Some((i, f)),
                _ => None,
            })
        })?;
        let block = self.ix.full_block(i.module, &f.block).ok()?;
        let (e, lets) = block_expr(block)?;
        Some((e, Scope { module: i.module, self_ty: Some(id), impl_ty: None, locals: Some((block, lets)) }))
    }

    /// The item a type path written in `scope` names (`Self` included), through type aliases.
    fn type_item(&self, segs: &[String], scope: Scope<'a>) -> Option<ItemId> {
        match segs {
            [one] if one == "Self" => scope.self_ty,
            _ => self.ix.type_item(scope.module, segs),
        }
    }

    /// The body of the fn a call path names: a crate fn, or an associated fn without parameters (`Type::f`,
    /// `Self::f`) of an inherent impl (else of a trait impl) of a crate type. `Ok(None)`: not a crate fn.
    fn callee(&self, segs: &[String], scope: Scope<'a>) -> Res<Option<(&'a Expr, Scope<'a>)>> {
        let ix: &'a CrateIndex = self.ix;
        let Some(found) = names::function(ix, scope.names(), segs) else { return Ok(None) };
        let (sig, block) = found.def;
        if found.self_ty.is_some() && !sig.inputs.is_empty() {
            return Ok(None);
        }
        let sc = found.scope(ix);
        // the index keeps only single-expression bodies: a body of `let`s is parsed again
        let block = ix.full_block(sc.module, block).map_err(|e| e.to_string())?;
        let (body, lets) = block_expr(block).ok_or_else(|| {
            format!(
                "the body of `{}` is not an expression after immutable `let`s of names (kubesmith reads no other \
                 statements)",
                sig.ident
            )
        })?;
        Ok(Some((
            body,
            Scope { module: sc.module, self_ty: sc.self_item, impl_ty: sc.self_ty, locals: Some((block, lets)) },
        )))
    }

    /// The value expression of a const (or immutable static) a path names: a crate const, or an associated
    /// const (`Type::C`, `Self::C`) of a crate type.
    fn constant(&self, segs: &[String], scope: Scope<'a>) -> Option<(&'a Expr, Scope<'a>)> {
        let ix: &'a CrateIndex = self.ix;
        let found = names::constant(ix, scope.names(), segs)?;
        let sc = found.scope(ix);
        Some((found.def, Scope { module: sc.module, self_ty: sc.self_item, impl_ty: sc.self_ty, locals: None }))
    }

    /// `e` with calls of crate fns without arguments and paths of crate consts replaced by what they evaluate
    /// to (repeatedly), with the scope that is then in effect.
    fn deref<'e>(&self, e: &'e Expr, scope: Scope<'a>, depth: usize) -> Res<(&'e Expr, Scope<'a>)>
    where
        'a: 'e,
    {
        let (mut e, mut scope) = (strip(e), scope);
        for _ in depth..24 {
            let next = match e {
                Expr::Call(c) if c.args.is_empty() && !is_default_call(e) => match &*c.func {
                    Expr::Path(p) if p.qself.is_none() => self.callee(&path_segs(&p.path), scope)?,
                    _ => None,
                },
                Expr::Path(p) if p.qself.is_none() => {
                    scope.local(&p.path).or_else(|| self.constant(&path_segs(&p.path), scope))
                }
                _ => None,
            };
            match next {
                Some((n, sc)) => (e, scope) = (strip(n), sc),
                None => return Ok((e, scope)),
            }
        }
        Err("default values nest too deeply".into())
    }

    fn item_default(&self, id: ItemId, depth: usize) -> Res<Value> {
        let item = &self.ix.items[id];
        match &item.kind {
            ItemKind::Struct(_) => {
                let fields = self.item_default_fields_depth(id, depth)?;
                self.serialize_struct(id, &fields)
            }
            ItemKind::Enum(e) => {
                if derives(&e.attrs, "Default") {
                    let v =
                        e.variants.iter().find(|v| v.attrs.iter().any(|a| a.path().is_ident("default"))).ok_or_else(
                            || format!("enum `{}` derives Default without a #[default] variant", item.name),
                        )?;
                    return self.serialize_variant(id, v, None);
                }
                let (body, scope) = self
                    .default_impl_body(id)
                    .ok_or_else(|| format!("no evaluable `impl Default for {}`", item.name))?;
                self.eval_item(body, id, scope, depth)
            }
            _ => Err(format!("`{}` has no statically known default", item.name)),
        }
    }

    /// Whether the generic struct `id` serializes no field whose type names one of its type parameters
    /// (`ClusterRef<K>` with `K` only in a skipped `PhantomData<K>`): its default is then the same for every instance.
    fn independent_of_parameters(&self, id: ItemId) -> bool {
        let ItemKind::Struct(s) = &self.ix.items[id].kind else { return false };
        let params: Vec<String> = s.generics.type_params().map(|p| p.ident.to_string()).collect();
        let names: Vec<&str> = params.iter().map(String::as_str).collect();
        s.fields
            .iter()
            .all(|f| attrs::field_attrs(&f.attrs).is_ok_and(|fa| fa.skip_ser) || !super::types::mentions(&f.ty, &names))
    }

    /// Serialized values of each field of `<Struct>::default()`, keyed by Rust field name.
    pub fn item_default_fields(&self, id: ItemId) -> Res<Map<String, Value>> {
        self.item_default_fields_depth(id, 0)
    }

    fn item_default_fields_depth(&self, id: ItemId, depth: usize) -> Res<Map<String, Value>> {
        if depth > 24 {
            return Err("default values nest too deeply".into());
        }
        let item = &self.ix.items[id];
        let ItemKind::Struct(s) = &item.kind else {
            return Err(format!("`{}` is not a struct", item.name));
        };
        if derives_default(s) {
            let mut out = Map::new();
            for (i, f) in s.fields.iter().enumerate() {
                let key = f.ident.as_ref().map(unraw).unwrap_or_else(|| i.to_string());
                // serde never writes a field it skips serializing (a `PhantomData<K>` marker): its default is moot
                let skipped = attrs::field_attrs(&f.attrs).is_ok_and(|fa| fa.skip_ser);
                let value = if skipped { Value::Null } else { self.default_depth(&f.ty, item.module, depth + 1)? };
                out.insert(key, value);
            }
            return Ok(out);
        }
        let (body, scope) = self
            .default_impl_body(id)
            .ok_or_else(|| format!("`{}` has neither #[derive(Default)] nor an evaluable `impl Default`", item.name))?;
        self.struct_fields_of(body, id, scope, depth + 1)
    }

    /// The crate type whose associated item `path` (`Config::default`, written in module `m`) names, as a type.
    fn crate_type_of(&self, path: &str, m: ModId) -> Option<syn::Type> {
        let mut p = syn::parse_str::<syn::Path>(path).ok()?;
        p.segments.pop()?;
        p.segments.pop_punct();
        let segs = path_segs(&p);
        if segs.is_empty() || segs[0] == "Self" || self.ix.type_item(m, &segs).is_none() {
            return None;
        }
        Some(syn::Type::Path(syn::TypePath { qself: None, path: p }))
    }

    /// Whether `path`, written in module `m`, names a free fn of the crate (`defaults::default`).
    fn names_free_fn(&self, path: &str, m: ModId) -> bool {
        let Ok(p) = syn::parse_str::<syn::Path>(path) else { return false };
        let scope = names::Scope { module: m, self_item: None, self_ty: None, uses: &[] };
        names::function(self.ix, scope, &path_segs(&p)).is_some_and(|f| f.self_ty.is_none())
    }

    /// Fields of the struct value built by `path()`.
    pub fn call_default_fn_fields(&self, path: &str, id: ItemId, m: ModId) -> Res<Map<String, Value>> {
        let (body, scope) = self.default_fn(path, m)?;
        self.struct_fields_of(body, id, scope, 0)
    }

    /// The body of the fn a serde `default = "path"` names, written in module `m`.
    fn default_fn(&self, path: &str, m: ModId) -> Res<(&'a Expr, Scope<'a>)> {
        let p: syn::Path = syn::parse_str(path).map_err(|e| format!("invalid default path `{path}`: {e}"))?;
        if p.segments.first().is_some_and(|s| s.ident == "Self") {
            // serde_derive calls the path from its own visitor type, where `Self` is that visitor.
            return Err(format!(
                "`{path}` does not compile there: serde calls it from its generated visitor, where `Self` is not \
                 the type; name the type instead (`TypeName::{}`)",
                p.segments.iter().skip(1).map(|s| s.ident.to_string()).collect::<Vec<_>>().join("::")
            ));
        }
        let scope = Scope { module: m, self_ty: None, impl_ty: None, locals: None };
        self.callee(&path_segs(&p), scope)?.ok_or_else(|| {
            let segs = path_segs(&p);
            match segs.as_slice() {
                [.., ty, f] if self.type_item(&segs[..segs.len() - 1], scope).is_some() => {
                    format!("`{ty}` has no associated fn `{f}` without parameters in this crate")
                }
                _ => format!("fn `{path}` not found in this crate"),
            }
        })
    }

    /// `serde_json::to_value(path())`. A path ending in `default` that names no free fn of the crate is a type's
    /// `Default`, read as `#[serde(default)]` reads it: `Config::default` the crate type `Config`'s, anything else
    /// (`Default::default`, `u8::default`) the field type's.
    pub fn call_default_fn(&self, path: &str, ty: &syn::Type, m: ModId) -> Res<Value> {
        let last = path.rsplit("::").next().unwrap_or(path);
        if last == "default" && !self.names_free_fn(path, m) {
            return match self.crate_type_of(path, m) {
                Some(owner) => self.default_of(&owner, m),
                None => self.default_of(ty, m),
            };
        }
        let (body, scope) = self.default_fn(path, m)?;
        self.eval_depth(body, ty, m, scope, 0)
    }

    /// Evaluate an expression of type `ty` (written in module `tm`), the expression being written in `em`.
    fn eval_depth(&self, e: &Expr, ty: &syn::Type, tm: ModId, em: Scope<'a>, depth: usize) -> Res<Value> {
        if depth > 24 {
            return Err("default values nest too deeply".into());
        }
        let e = strip(e);
        if is_default_call(e) {
            return self.default_depth(ty, tm, depth + 1);
        }
        // Calls of crate fns without arguments, and crate consts.
        let (e, em) = self.deref(e, em, depth)?;
        if is_default_call(e) {
            return self.default_depth(ty, tm, depth + 1);
        }
        let unsupported = || Err(format!("`{}` is not a literal expression", quote::quote!(#e)));
        match self.classify(ty, tm)? {
            Ty::Option(t, m2) => {
                if let Expr::Path(p) = e
                    && p.path.is_ident("None")
                {
                    return Ok(Value::Null);
                }
                if let Expr::Call(c) = e
                    && let Expr::Path(p) = &*c.func
                    && p.path.is_ident("Some")
                    && c.args.len() == 1
                {
                    return self.eval_depth(&c.args[0], t, m2, em, depth + 1);
                }
                self.eval_depth(e, t, m2, em, depth + 1)
            }
            Ty::Scalar(kind, _) => {
                if let Expr::Call(c) = e
                    && c.args.is_empty()
                    && let Expr::Path(p) = &*c.func
                    && p.path.segments.last().is_some_and(|s| s.ident == "new")
                {
                    return match kind {
                        ScalarKind::Str => Ok(json!("")),
                        _ => unsupported(),
                    };
                }
                let v = self.value(e, em).ok_or_else(|| format!("`{}` is not a literal", quote::quote!(#e)))?;
                match (kind, &v) {
                    (ScalarKind::Str, Value::String(_)) | (ScalarKind::Bool, Value::Bool(_)) => Ok(v),
                    (ScalarKind::Int, Value::Number(n)) if n.is_i64() || n.is_u64() => Ok(v),
                    (ScalarKind::Float, Value::Number(n)) => Ok(json!(n.as_f64().unwrap_or_default())),
                    _ => Err(format!("literal `{}` does not match the field type", quote::quote!(#e))),
                }
            }
            Ty::Seq(t, m2, _) | Ty::Array(t, m2, _) => {
                let elems: Vec<Expr> = match e {
                    Expr::Macro(mac) if mac.mac.path.is_ident("vec") => mac
                        .mac
                        .parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
                        .map_err(|err| err.to_string())?
                        .into_iter()
                        .collect(),
                    Expr::Array(a) => a.elems.iter().cloned().collect(),
                    Expr::Call(c) if c.args.is_empty() => {
                        if let Expr::Path(p) = &*c.func
                            && p.path.segments.last().is_some_and(|s| s.ident == "new")
                        {
                            return Ok(json!([]));
                        }
                        return unsupported();
                    }
                    Expr::Call(c) if c.args.len() == 1 => {
                        if let Expr::Path(p) = &*c.func
                            && p.path.segments.last().is_some_and(|s| s.ident == "from")
                        {
                            return self.eval_depth(&c.args[0], ty, tm, em, depth + 1);
                        }
                        return unsupported();
                    }
                    _ => return unsupported(),
                };
                elems
                    .iter()
                    .map(|x| self.eval_depth(x, t, m2, em, depth + 1))
                    .collect::<Res<Vec<_>>>()
                    .map(Value::Array)
            }
            Ty::Map(_, v, m2) => match e {
                Expr::Call(c) => {
                    let Expr::Path(p) = &*c.func else {
                        return unsupported();
                    };
                    let last = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
                    match (last.as_str(), c.args.len()) {
                        ("new", 0) => Ok(json!({})),
                        ("from", 1) => {
                            let Expr::Array(a) = strip(&c.args[0]) else {
                                return unsupported();
                            };
                            let mut out = Map::new();
                            for el in &a.elems {
                                let Expr::Tuple(t) = strip(el) else {
                                    return unsupported();
                                };
                                if t.elems.len() != 2 {
                                    return unsupported();
                                }
                                let k = expr_str(strip(&t.elems[0])).ok_or("map keys must be string literals")?;
                                out.insert(k, self.eval_depth(&t.elems[1], v, m2, em, depth + 1)?);
                            }
                            Ok(Value::Object(out))
                        }
                        _ => unsupported(),
                    }
                }
                _ => unsupported(),
            },
            Ty::Wrapper(t, m2) => {
                if let Expr::Call(c) = e
                    && let Expr::Path(p) = &*c.func
                    && c.args.len() == 1
                    && p.path.segments.last().is_some_and(|s| s.ident == "new")
                {
                    return self.eval_depth(&c.args[0], t, m2, em, depth + 1);
                }
                self.eval_depth(e, t, m2, em, depth + 1)
            }
            Ty::K8s(name) => {
                if let Expr::Call(c) = e
                    && let (Expr::Path(p), 1) = (&*c.func, c.args.len())
                {
                    let last = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
                    let lit = self.value(strip(&c.args[0]), em);
                    match (name, last.as_str(), lit) {
                        ("Quantity", "Quantity", Some(v @ Value::String(_)))
                        | ("IntOrString", "Int" | "String", Some(v)) => return Ok(v),
                        _ => {}
                    }
                }
                unsupported()
            }
            Ty::JsonValue => self.value(e, em).map_or_else(unsupported, Ok),
            Ty::Unit => Ok(Value::Null),
            Ty::Tuple => Err("tuples are not supported".into()),
            Ty::Item(id) => self.eval_item(e, id, em, depth + 1),
            Ty::Instance(..) => Err("a value of a generic type is not evaluated statically".into()),
        }
    }

    /// Evaluate an expression whose type is the crate item `id`.
    fn eval_item(&self, e: &Expr, id: ItemId, em: Scope<'a>, depth: usize) -> Res<Value> {
        let (e, em) = self.deref(e, em, depth)?;
        if is_default_call(e) {
            return self.item_default(id, depth + 1);
        }
        let item = &self.ix.items[id];
        match &item.kind {
            ItemKind::Struct(s) => match (&s.fields, e) {
                (syn::Fields::Named(_), _) => {
                    let fields = self.struct_fields_of(e, id, em, depth + 1)?;
                    self.serialize_struct(id, &fields)
                }
                (syn::Fields::Unnamed(u), Expr::Call(c)) if u.unnamed.len() == 1 && c.args.len() == 1 => {
                    let mut fields = Map::new();
                    fields
                        .insert("0".into(), self.eval_depth(&c.args[0], &u.unnamed[0].ty, item.module, em, depth + 1)?);
                    self.serialize_struct(id, &fields)
                }
                (syn::Fields::Unit, _) => Ok(Value::Null),
                _ => Err(format!("`{}` is not a literal value of `{}`", quote::quote!(#e), item.name)),
            },
            ItemKind::Enum(en) => {
                let (path, payload): (&syn::Path, Option<&Expr>) = match e {
                    Expr::Path(p) => (&p.path, None),
                    Expr::Call(c) if c.args.len() == 1 => match &*c.func {
                        Expr::Path(p) => (&p.path, Some(&c.args[0])),
                        _ => {
                            return Err(format!("`{}` is not a variant of `{}`", quote::quote!(#e), item.name));
                        }
                    },
                    Expr::Struct(s) => {
                        let v_ident = s.path.segments.last().map(|x| x.ident.to_string()).unwrap_or_default();
                        let v = en
                            .variants
                            .iter()
                            .find(|v| v.ident == v_ident)
                            .ok_or_else(|| format!("`{v_ident}` is not a variant of `{}`", item.name))?;
                        let fields = self.fields_from_literal(&v.fields, s, item.module, em, None, depth)?;
                        let value = self.serialize_fields(&v.fields, &fields, variant_field_rule(en, v))?;
                        return self.serialize_variant(id, v, Some(value));
                    }
                    _ => {
                        return Err(format!("`{}` is not a variant of `{}`", quote::quote!(#e), item.name));
                    }
                };
                let v_ident = path.segments.last().map(|x| x.ident.to_string()).unwrap_or_default();
                let v = en
                    .variants
                    .iter()
                    .find(|v| v.ident == v_ident)
                    .ok_or_else(|| format!("`{v_ident}` is not a variant of `{}`", item.name))?;
                let payload = match (payload, &v.fields) {
                    (Some(p), syn::Fields::Unnamed(u)) if u.unnamed.len() == 1 => {
                        Some(self.eval_depth(p, &u.unnamed[0].ty, item.module, em, depth + 1)?)
                    }
                    (None, syn::Fields::Unit) => None,
                    _ => return Err(format!("`{}` is not a literal variant", quote::quote!(#e))),
                };
                self.serialize_variant(id, v, payload)
            }
            _ => Err(format!("`{}` has no statically known value", item.name)),
        }
    }

    /// Rust-field-name → serialized value for a struct literal of struct `id`.
    fn struct_fields_of(&self, e: &Expr, id: ItemId, em: Scope<'a>, depth: usize) -> Res<Map<String, Value>> {
        let item = &self.ix.items[id];
        let ItemKind::Struct(s) = &item.kind else {
            return Err(format!("`{}` is not a struct", item.name));
        };
        let (e, em) = self.deref(e, em, depth)?;
        match e {
            Expr::Struct(lit) => self.fields_from_literal(&s.fields, lit, item.module, em, Some(id), depth),
            other if is_default_call(other) => self.item_default_fields_depth(id, depth + 1),
            other => Err(format!("`{}` is not a struct literal", quote::quote!(#other))),
        }
    }

    fn fields_from_literal(
        &self,
        fields: &syn::Fields,
        lit: &syn::ExprStruct,
        tm: ModId,
        em: Scope<'a>,
        owner: Option<ItemId>,
        depth: usize,
    ) -> Res<Map<String, Value>> {
        let mut out = Map::new();
        let rest = match (&lit.rest, owner) {
            (Some(r), Some(id)) => Some(
                self.struct_fields_of(r, id, em, depth + 1)
                    .map_err(|why| format!("`..{}` is not evaluable ({why})", quote::quote!(#r)))?,
            ),
            (Some(r), None) => return Err(format!("`..{}` is not evaluable", quote::quote!(#r))),
            (None, _) => None,
        };
        for f in fields.iter() {
            let Some(ident) = f.ident.as_ref() else {
                continue;
            };
            let key = unraw(ident);
            let given = lit.fields.iter().find(|fv| match &fv.member {
                syn::Member::Named(n) => unraw(n) == key,
                syn::Member::Unnamed(_) => false,
            });
            let v = match (given, &rest) {
                (Some(fv), _) => self.eval_depth(&fv.expr, &f.ty, tm, em, depth + 1)?,
                (None, Some(r)) => r.get(&key).cloned().ok_or_else(|| format!("field `{key}` missing"))?,
                (None, None) => {
                    return Err(format!("field `{key}` missing from the struct literal"));
                }
            };
            out.insert(key, v);
        }
        Ok(out)
    }

    /// Serialize a struct from its field values (serde renames, skips and flatten).
    fn serialize_struct(&self, id: ItemId, fields: &Map<String, Value>) -> Res<Value> {
        let ItemKind::Struct(s) = &self.ix.items[id].kind else {
            return Err("not a struct".into());
        };
        let c = attrs::container_attrs(&s.attrs).map_err(|e| e.to_string())?;
        match &s.fields {
            syn::Fields::Unit => Ok(Value::Null),
            syn::Fields::Unnamed(u) if u.unnamed.len() == 1 => Ok(fields.get("0").cloned().unwrap_or(Value::Null)),
            syn::Fields::Unnamed(_) => Err("tuple structs are not supported".into()),
            syn::Fields::Named(n) if c.transparent => {
                let f = n.named.first().and_then(|f| f.ident.as_ref()).map(unraw).unwrap_or_default();
                Ok(fields.get(&f).cloned().unwrap_or(Value::Null))
            }
            syn::Fields::Named(_) => self.serialize_fields(&s.fields, fields, c.rename_all),
        }
    }

    fn serialize_fields(
        &self,
        fields: &syn::Fields,
        values: &Map<String, Value>,
        rule: Option<attrs::RenameRule>,
    ) -> Res<Value> {
        let mut out = Map::new();
        for f in fields.iter() {
            let Some(ident) = f.ident.as_ref() else {
                continue;
            };
            let key = unraw(ident);
            let fa = attrs::field_attrs(&f.attrs).map_err(|e| e.to_string())?;
            if fa.skip_ser {
                continue;
            }
            let v = values.get(&key).cloned().unwrap_or(Value::Null);
            if let Some(pred) = &fa.skip_ser_if {
                match predicate_holds(pred, &v) {
                    Some(true) => continue,
                    Some(false) => {}
                    None => return Err(format!("unknown skip_serializing_if predicate `{pred}`")),
                }
            }
            if fa.flatten {
                if let Value::Object(o) = v {
                    out.extend(o);
                }
                continue;
            }
            let name = fa.rename.clone().unwrap_or_else(|| rule.map_or(key.clone(), |r| r.apply_to_field(&key)));
            out.insert(name, v);
        }
        Ok(Value::Object(out))
    }

    fn serialize_variant(&self, id: ItemId, v: &syn::Variant, payload: Option<Value>) -> Res<Value> {
        let ItemKind::Enum(e) = &self.ix.items[id].kind else {
            return Err("not an enum".into());
        };
        let c = attrs::container_attrs(&e.attrs).map_err(|e| e.to_string())?;
        let va = attrs::variant_attrs(&v.attrs).map_err(|e| e.to_string())?;
        let name = variant_name(v, &va, &c);
        if c.untagged || va.untagged {
            return Ok(payload.unwrap_or(Value::Null));
        }
        if c.tag.is_some() {
            return Err("tagged enums are not supported".into());
        }
        Ok(match payload {
            None => Value::String(name),
            Some(p) => json!({ name: p }),
        })
    }
}

fn variant_field_rule(e: &syn::ItemEnum, v: &syn::Variant) -> Option<attrs::RenameRule> {
    let c = attrs::container_attrs(&e.attrs).ok()?;
    let va = attrs::variant_attrs(&v.attrs).ok()?;
    va.rename_all.or(c.rename_all_fields)
}
