//! The one interpreter of constant Rust code into JSON values, without running it: custom schema fns
//! ([`Evaluator::schema_fn`]), every value a serde default or a `skip_serializing_if` operand computes
//! ([`Evaluator::value`]; `crd::defaults` adds only the serde reading of struct and enum values), and the strings of
//! `merge_crds` storage versions and hand-written `Resource` impls ([`Evaluator::strings`]). It reads
//! literals, arithmetic, comparisons and casts, `json_schema!`/`json!` literals (parsed by [`json`]),
//! `serde_json::from_value`/`from_str`, `Schema::from`/`try_from`, consts, statics, associated consts and primitive
//! bounds (`u16::MAX`), locals edited by simple statements (`insert`, `remove`, `extend`, `push`,
//! `ensure_object()`, `x["k"] = v`, `if let Some(o) = x.as_object_mut() { .. }`), calls of crate fns made of the
//! same, and in schema code `generator.subschema_for::<T>()` / `T::json_schema(generator)` through the schema
//! generator. Anything else stops with the reader's error for code only compiling can tell
//! ([`Code::needs_compile`]: the CRD generator's NeedsCompile) at the construct, saying what it is: never a guess.
//!
//! It runs over any reader of Rust that answers [`Code`] (names, impls and constants as `source` resolves them, its
//! fns, its errors): the CRD index (`crd::custom` implements it) and RBAC inference's program (`source::program`).

use std::fmt::Display;

use proc_macro2::Span;
use serde_json::{Map, Value};
use syn::Expr;
use syn::spanned::Spanned;

use crate::source::constant::{self, Constants};
use crate::source::lex::path_segs;
use crate::source::resolve;
use crate::source::syntax::UseEntry;
use json::{Key, Node};

pub(crate) mod json;
pub(crate) mod names;
mod statements;

type Res<T, C> = Result<T, <C as Code>::Error>;

/// What the interpreter asks of the reader whose code it evaluates (the CRD index, RBAC's program): its names, impls
/// and constants ([`Constants`]), and what only the reader knows — its fns, how it reports an error, the schemars
/// generation.
pub(crate) trait Code: Constants + Sized {
    /// What evaluation stops with.
    type Error;
    /// How a caller names the crate type `Self` stands for, when it knows it rather than an impl's self type.
    type SelfItem: Copy;

    /// Whether the crate's schemas are schemars 0.8's (`SchemaObject::default()`, `Schema::Object(..)`).
    fn schemars_08(&self) -> bool {
        false
    }
    /// The name a path's `Self` stands for when the caller knows the crate type.
    fn self_name(&self, item: Self::SelfItem) -> Self::Item;
    /// The crate type a type path written in `at` names (through aliases): what `Self` names in an impl of it.
    fn type_item(&self, at: Self::Mod, segs: &[String]) -> Option<Self::SelfItem>;
    /// What a value path written in `at` (in a fn body whose own `use`s are `local`) names; the reader may load what
    /// it left unread first.
    fn resolve_value(&self, at: Self::Mod, segs: &[String], local: &[UseEntry]) -> resolve::Res<Self::Mod, Self::Item> {
        resolve::resolve(self, at, segs, local)
    }
    /// A free fn of the reader: its signature and body, with its module; `None` for any other item.
    fn function(&self, item: &Self::Item) -> Option<(Self::Mod, &syn::Signature, &syn::Block)>;
    /// The whole body of a fn of module `at` (a reader may keep a body without its statements until asked).
    fn full_block<'s>(&'s self, at: Self::Mod, block: &'s syn::Block) -> Result<&'s syn::Block, Self::Error> {
        let _ = at;
        Ok(block)
    }
    /// Code at `span` of module `at` that only compiling can tell (in `construct`, because of `why`).
    fn needs_compile(&self, at: Self::Mod, span: Span, construct: &str, why: String) -> Self::Error;
    /// Code at `span` of module `at` that would panic when kube-derive runs it (`what`, and how to `fix` it).
    fn panics(&self, at: Self::Mod, span: Span, what: String, fix: &str) -> Self::Error;
    /// The name of the type a subschema error says is not describable, with its hint.
    fn unresolved_type(error: &Self::Error) -> Option<(String, String)> {
        let _ = error;
        None
    }
}

/// What custom schema code asks of the schema generator: `generator.subschema_for::<T>()` of a type written in
/// `module`, under kube's settings. With `inline_subschemas` that is `T::json_schema(generator)` (so both forms
/// are evaluated alike), except for a type already being generated, where schemars leaves a `$ref` kube cannot
/// resolve: the generator reports that as a recursive type. `Option<T>` is `T`'s schema made nullable
/// (schemars' `allow_null`).
pub(crate) trait Subschemas<C: Code> {
    /// The schema of `ty`, or why it cannot be had.
    fn subschema_for(&mut self, ty: &syn::Type, module: C::Mod) -> Result<Value, C::Error>;
}

/// What the code an evaluation starts in sees beyond the interpreter's own frames, when the caller read the fn body
/// it is written in (`crd::storage`: a `merge_crds` argument): the bindings visible where it is written, the body's
/// `use`s, and the values of expressions only the reader knows. The interpreter asks it only in that code, not in the
/// consts and fns it follows from there.
pub(crate) trait Outer {
    /// The initializer of the binding a one-segment path written there names (`Ok(None)`: none; `Err(why)`: a
    /// binding whose value cannot be known, such as a parameter).
    fn local(&self, p: &syn::Path) -> Result<Option<&Expr>, String>;
    /// The fn body's own `use` declarations.
    fn uses(&self) -> &[UseEntry];
    /// The string `e` gives when only the reader knows it (a kind type's generated `version(&())`), or why it
    /// cannot; `None` leaves `e` to the interpreter.
    fn known(&self, e: &Expr) -> Option<Result<String, String>>;
}

/// How deep calls and const references may nest (a cycle ends here).
const MAX_DEPTH: usize = 24;

/// What the evaluator knows kubesmith can do without compiling, for the end of every NeedsCompile reason.
const EVALUATED: &str = "kubesmith evaluates json!/json_schema! literals, simple edits of them and subschema_for \
                         without compiling";

/// A value during evaluation.
#[derive(Debug, Clone)]
pub(crate) enum Val {
    /// A JSON value: a `Schema`, a `serde_json::Value` or `Map`, a string, number or bool (an `Option`'s
    /// `Some(x)` is `x`).
    Json(Value),
    /// A `Result` (`Schema::try_from`, `serde_json::from_value`, ...); `Err` holds why it fails.
    Res(Result<Value, String>),
    /// The `&mut SchemaGenerator` parameter.
    Generator,
    /// A value of a struct of the crate, its fields by Rust name (`let image = default_images();` read for
    /// `image.pg15`): only its fields are read, it is no JSON until serde writes it.
    Struct(Vec<(String, Val)>),
}

/// A local binding.
#[derive(Debug, Clone)]
enum Local {
    /// An owned value.
    Val(Val),
    /// A `&mut` into another local's value (`let obj = schema.ensure_object();`).
    Alias(Place),
}

/// A location inside a local's JSON value.
#[derive(Debug, Clone)]
struct Place {
    /// Index of the local in [`Frame::locals`].
    root: usize,
    path: Vec<Seg>,
}

#[derive(Debug, Clone)]
enum Seg {
    Key(String),
    Index(usize),
}

/// One fn (or const initializer) being evaluated.
struct Frame<C: Code> {
    module: C::Mod,
    /// The self type of the impl the fn belongs to (`Self`).
    self_ty: Option<syn::Type>,
    /// The crate item `Self` names, where the caller knows it rather than the impl (a default's type).
    self_item: Option<C::SelfItem>,
    /// Locals, innermost last (a block truncates back to its start when it ends).
    locals: Vec<(String, Local)>,
    /// Whether this is the code the evaluation started in, which sees [`Evaluator::with_outer`]'s bindings.
    outer: bool,
}

impl<C: Code> Frame<C> {
    fn new(module: C::Mod, self_ty: Option<syn::Type>) -> Self {
        Self { module, self_ty, self_item: None, locals: Vec::new(), outer: false }
    }

    fn lookup(&self, name: &str) -> Option<usize> {
        self.locals.iter().rposition(|(n, _)| n == name)
    }

    /// Where the frame's code is written, for looking up names (`uses`: its fn body's, when the caller read them).
    fn scope<'s>(&'s self, uses: &'s [UseEntry]) -> names::Scope<'s, C::Mod, C::SelfItem> {
        let uses = if self.outer { uses } else { &[] };
        names::Scope { module: self.module, self_item: self.self_item, self_ty: self.self_ty.as_ref(), uses }
    }
}

/// Where a value expression is written, for [`Evaluator::value`]: its module, the crate item `Self` names there,
/// and the statements of the fn body before it (its `let`s are in scope).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Site<'e, M, S> {
    pub module: M,
    pub self_item: Option<S>,
    /// The self type of the impl block the expression is in, when `Self` names no crate item (a kind type a
    /// derive generates).
    pub self_ty: Option<&'e syn::Type>,
    pub before: &'e [syn::Stmt],
    /// Values bound to names there (a `skip_serializing_if` predicate's parameter).
    pub bound: &'e [(String, Value)],
}

/// What a block or statement produced.
enum Out {
    /// The block's trailing expression.
    Value(Val),
    /// `return x`.
    Return(Val),
    /// Nothing (statements only).
    Unit,
}

/// Evaluates constant code for one construct (a `schema_with` attribute, an `impl JsonSchema`: errors name it) or
/// one value (a default, a storage version, a `Resource` impl's string: the caller says what it was).
pub(crate) struct Evaluator<'a, 'g, C: Code> {
    ix: &'a C,
    /// The schema generator; `None` when a value is evaluated outside schema code (a default).
    schemas: Option<&'g mut dyn Subschemas<C>>,
    construct: String,
    depth: usize,
    /// What `T::default()` (any `..::default()` without arguments) gives, when the caller knows the one type such a
    /// call can name (a predicate's parameter type).
    type_default: Option<&'g dyn Fn() -> Option<Value>>,
    /// Whether the code gives a string ([`Evaluator::strings`]).
    strings: bool,
    /// What the code the evaluation starts in sees beyond the interpreter ([`Evaluator::with_outer`]).
    outer: Option<&'g dyn Outer>,
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

/// What an expression is, for a NeedsCompile reason.
fn describe(e: &Expr) -> String {
    match strip(e) {
        Expr::ForLoop(_) => "a `for` loop".into(),
        Expr::While(_) => "a `while` loop".into(),
        Expr::Loop(_) => "a `loop`".into(),
        Expr::If(_) => "an `if`".into(),
        Expr::Match(_) => "a `match`".into(),
        Expr::Closure(_) => "a closure".into(),
        Expr::Binary(b) => {
            let op = &b.op;
            format!("the operator `{}`", quote::quote!(#op))
        }
        Expr::Macro(m) => {
            let path = &m.mac.path;
            format!("the macro `{}!`", quote::quote!(#path).to_string().replace(' ', ""))
        }
        Expr::Call(c) => {
            let func = &c.func;
            format!("a call of `{}`", quote::quote!(#func).to_string().replace(' ', ""))
        }
        Expr::MethodCall(m) => format!("`.{}()`", m.method),
        Expr::Struct(_) => "a struct literal".into(),
        Expr::Unsafe(_) => "an `unsafe` block".into(),
        Expr::Async(_) | Expr::Await(_) => "async code".into(),
        other => format!("`{}`", short(&quote::quote!(#other).to_string())),
    }
}

fn short(s: &str) -> String {
    let s: String = s.chars().take(60).collect();
    if s.len() == 60 { format!("{s}…") } else { s }
}

/// A value read as a JSON object key / string.
fn as_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

fn is_schema(v: &Value) -> bool {
    matches!(v, Value::Object(_) | Value::Bool(_))
}

/// `Schema::ensure_object`.
fn ensure_object(v: &mut Value) -> Option<&mut Map<String, Value>> {
    if let Value::Bool(b) = v {
        let mut m = Map::new();
        if !*b {
            m.insert("not".into(), Value::Object(Map::new()));
        }
        *v = Value::Object(m);
    }
    v.as_object_mut()
}

impl<'a, 'g, C: Code> Evaluator<'a, 'g, C> {
    /// An evaluator for the code of `construct` (how errors name it).
    pub(crate) fn new(ix: &'a C, schemas: &'g mut dyn Subschemas<C>, construct: String) -> Self {
        Self { ix, schemas: Some(schemas), construct, depth: 0, type_default: None, strings: false, outer: None }
    }

    /// An evaluator of values outside schema code (serde defaults, `skip_serializing_if` operands): there is no
    /// schema generator, and errors name no construct (the caller says what it was evaluating).
    pub(crate) fn values(ix: &'a C) -> Self {
        Self { ix, schemas: None, construct: String::new(), depth: 0, type_default: None, strings: false, outer: None }
    }

    /// This evaluator for code that gives a string (a `Resource` impl's `fn kind`, a `merge_crds` version): there a
    /// value's `.to_string()` and `.as_str()` are the string it holds, and any call that keeps a string's value
    /// ([`constant::converted_string`]: a one-argument `from`, `into`, `Borrowed`, ...) is its argument.
    pub(crate) fn strings(mut self) -> Self {
        self.strings = true;
        self
    }

    /// This evaluator with what the code it starts in sees beyond it: the bindings and `use`s of the fn body the
    /// caller read, and the values only the caller knows.
    pub(crate) fn with_outer(mut self, outer: &'g dyn Outer) -> Self {
        self.outer = Some(outer);
        self
    }

    /// This evaluator with `..::default()` calls giving `type_default()`.
    pub(crate) fn with_type_default(mut self, type_default: &'g dyn Fn() -> Option<Value>) -> Self {
        self.type_default = Some(type_default);
        self
    }

    /// The JSON value of expression `e` written at `site`: literals, arithmetic, casts, consts and statics,
    /// associated consts, calls of crate fns made of the same, `json!` and the conversions that keep a value. A
    /// `let` before `e` that cannot be evaluated is left unbound (an error only if `e` uses it).
    pub(crate) fn value(&mut self, e: &Expr, site: Site<C::Mod, C::SelfItem>) -> Res<Value, C> {
        let mut frame = Frame::new(site.module, site.self_ty.cloned());
        frame.self_item = site.self_item;
        frame.outer = true;
        for (name, v) in site.bound {
            frame.locals.push((name.clone(), Local::Val(Val::Json(v.clone()))));
        }
        for s in site.before {
            if let syn::Stmt::Local(l) = s {
                let mark = frame.locals.len();
                if self.local(&mut frame, l).is_err() {
                    frame.locals.truncate(mark);
                }
            }
        }
        self.json(&mut frame, e)
    }

    /// What only compiling can tell; in schema code, with what the interpreter reads there.
    fn needs(&self, module: C::Mod, span: Span, why: impl Display) -> C::Error {
        let why = if self.schemas.is_some() { format!("{why}; {EVALUATED}") } else { why.to_string() };
        self.ix.needs_compile(module, span, &self.construct, why)
    }

    /// Code that would panic (or not compile) when kube-derive runs it.
    fn fails(&self, module: C::Mod, span: Span, why: impl Display) -> C::Error {
        let construct = if self.construct.is_empty() { why.to_string() } else { format!("{}: {why}", self.construct) };
        self.ix.panics(module, span, construct, "Kind::crd() would panic on it; fix the schema code")
    }

    /// A schema function (`fn(&mut SchemaGenerator) -> Schema`, or without the parameter): the schema it
    /// returns. `self_ty` is `Self` for a method.
    pub(crate) fn schema_fn(
        &mut self,
        sig: &syn::Signature,
        block: &syn::Block,
        module: C::Mod,
        self_ty: Option<&syn::Type>,
    ) -> Res<Value, C> {
        let args = if sig.inputs.is_empty() { Vec::new() } else { vec![Val::Generator] };
        let v = self.call_fn(sig, block, module, self_ty.cloned(), args)?;
        match v {
            Val::Json(v) if is_schema(&v) => Ok(v),
            Val::Json(v) => Err(self.fails(
                module,
                sig.ident.span(),
                format!("`{}` returns {v}, which is not a schema (an object or a bool)", sig.ident),
            )),
            _ => Err(self.needs(module, sig.ident.span(), format!("`{}` does not return a schema value", sig.ident))),
        }
    }

    /// The string a fn returns (`schema_name`, a `Resource` impl's `fn kind(_: &()) -> Cow<str>`), its parameters
    /// bound to null (what it gives must not depend on them); `self_ty` is `Self` for an associated fn.
    pub(crate) fn string_fn(
        &mut self,
        sig: &syn::Signature,
        block: &syn::Block,
        module: C::Mod,
        self_ty: Option<&syn::Type>,
    ) -> Res<String, C> {
        let args = vec![Val::Json(Value::Null); sig.inputs.len()];
        match self.call_fn(sig, block, module, self_ty.cloned(), args)? {
            Val::Json(Value::String(s)) => Ok(s),
            _ => Err(self.needs(module, sig.ident.span(), format!("`{}` does not return a string literal", sig.ident))),
        }
    }

    /// The string expression `e` written at `site` gives ([`Evaluator::value`]).
    pub(crate) fn string_value(&mut self, e: &Expr, site: Site<C::Mod, C::SelfItem>) -> Res<String, C> {
        match self.value(e, site)? {
            Value::String(s) => Ok(s),
            v => Err(self.needs(site.module, e.span(), format!("{v} where a string is expected"))),
        }
    }

    fn call_fn(
        &mut self,
        sig: &syn::Signature,
        block: &syn::Block,
        module: C::Mod,
        self_ty: Option<syn::Type>,
        args: Vec<Val>,
    ) -> Res<Val, C> {
        let at = sig.ident.span();
        if self.depth > MAX_DEPTH {
            return Err(self.needs(module, at, format!("calls nest too deeply at `{}` (recursion?)", sig.ident)));
        }
        if !sig.generics.params.is_empty() || sig.asyncness.is_some() {
            return Err(self.needs(module, at, format!("`{}` is generic or async", sig.ident)));
        }
        if sig.inputs.len() != args.len() {
            return Err(self.needs(
                module,
                at,
                format!("`{}` takes {} arguments, called with {}", sig.ident, sig.inputs.len(), args.len()),
            ));
        }
        let mut frame = Frame::new(module, self_ty);
        for (input, arg) in sig.inputs.iter().zip(args) {
            let syn::FnArg::Typed(pt) = input else {
                return Err(self.needs(module, input.span(), format!("`{}` is a method taking `self`", sig.ident)));
            };
            if matches!(&*pt.ty, syn::Type::Reference(r) if r.mutability.is_some()) && !matches!(arg, Val::Generator) {
                return Err(self.needs(
                    module,
                    pt.ty.span(),
                    format!("`{}` edits a value through a `&mut` parameter", sig.ident),
                ));
            }
            match &*pt.pat {
                syn::Pat::Ident(pi) if pi.subpat.is_none() => {
                    frame.locals.push((crate::source::syntax::unraw(&pi.ident), Local::Val(arg)))
                }
                syn::Pat::Wild(_) => {}
                other => return Err(self.needs(module, other.span(), "a parameter pattern")),
            }
        }
        let block = self.ix.full_block(module, block)?;
        self.depth += 1;
        let out = self.block(&mut frame, block);
        self.depth -= 1;
        match out? {
            Out::Value(v) | Out::Return(v) => Ok(v),
            Out::Unit => Ok(Val::Json(Value::Null)),
        }
    }

    // ---- statements -------------------------------------------------------------------------------------

    // ---- places -----------------------------------------------------------------------------------------

    // ---- expressions ------------------------------------------------------------------------------------

    fn json(&mut self, f: &mut Frame<C>, e: &Expr) -> Res<Value, C> {
        let v = self.expr(f, e)?;
        self.as_json(f, v, e)
    }

    /// The JSON of `v`, the value of `e`.
    fn as_json(&self, f: &Frame<C>, v: Val, e: &Expr) -> Res<Value, C> {
        match v {
            Val::Json(v) => Ok(v),
            Val::Res(_) => Err(self.needs(f.module, e.span(), "a `Result` used as a value (unwrap it)")),
            Val::Generator => Err(self.needs(f.module, e.span(), "the schema generator used as a value")),
            Val::Struct(_) => Err(self.needs(
                f.module,
                e.span(),
                "a struct value used as data (kubesmith reads its fields, not how serde writes it)",
            )),
        }
    }

    fn string(&mut self, f: &mut Frame<C>, e: &Expr) -> Res<String, C> {
        let v = self.json(f, e)?;
        as_string(&v).ok_or_else(|| self.needs(f.module, e.span(), format!("{v} where a string is expected")))
    }

    fn expr(&mut self, f: &mut Frame<C>, e: &Expr) -> Res<Val, C> {
        if let Some(known) = self.outer.filter(|_| f.outer).and_then(|o| o.known(e)) {
            return known.map(|s| Val::Json(Value::String(s))).map_err(|why| self.needs(f.module, e.span(), why));
        }
        if self.strings
            && let Some(inner) = constant::converted_string(e)
        {
            return self.expr(f, inner);
        }
        match e {
            Expr::Paren(p) => self.expr(f, &p.expr),
            Expr::Group(g) => self.expr(f, &g.expr),
            Expr::Reference(r) => self.expr(f, &r.expr),
            Expr::Cast(c) => {
                let v = self.json(f, &c.expr)?;
                let target = type_name(&c.ty).unwrap_or_default();
                match (target.as_str(), &v) {
                    ("f32" | "f64", Value::Number(n)) => {
                        Ok(Val::Json(n.as_f64().map(Value::from).unwrap_or(Value::Null)))
                    }
                    (t, Value::Number(n)) if int_fits(t, n) => Ok(Val::Json(v)),
                    _ => Err(self.needs(f.module, c.span(), format!("a cast to `{target}`"))),
                }
            }
            Expr::Lit(l) => match crate::source::meta::expr_literal(e) {
                Some(v) => Ok(Val::Json(v)),
                None => Err(self.needs(f.module, l.span(), format!("the literal `{}`", quote::quote!(#l)))),
            },
            Expr::Unary(u) => match u.op {
                syn::UnOp::Deref(_) => self.expr(f, &u.expr),
                syn::UnOp::Neg(_) => match self.json(f, &u.expr)? {
                    Value::Number(n) => Ok(Val::Json(match (n.as_i64(), n.as_f64()) {
                        (Some(i), _) => Value::from(-i),
                        (None, Some(x)) => Value::from(-x),
                        _ => return Err(self.needs(f.module, u.span(), "negating this number")),
                    })),
                    _ => Err(self.needs(f.module, u.span(), "negating a non-number")),
                },
                syn::UnOp::Not(_) => match self.json(f, &u.expr)? {
                    Value::Bool(b) => Ok(Val::Json(Value::Bool(!b))),
                    _ => Err(self.needs(f.module, u.span(), "`!` on a non-bool")),
                },
                _ => Err(self.needs(f.module, u.span(), describe(e))),
            },
            Expr::Macro(m) => self.mac(f, &m.mac),
            Expr::Path(p) => self.path(f, p),
            Expr::Call(c) => self.call(f, c),
            Expr::MethodCall(mc) => self.method(f, mc),
            Expr::Try(t) => match self.expr(f, &t.expr)? {
                Val::Res(Ok(v)) | Val::Json(v) => Ok(Val::Json(v)),
                Val::Res(Err(why)) => Err(self.fails(f.module, t.span(), why)),
                Val::Generator | Val::Struct(_) => {
                    Err(self.needs(f.module, t.span(), "`?` on a value that is no `Result`"))
                }
            },
            Expr::Block(b) if b.label.is_none() => match self.block(f, &b.block)? {
                Out::Value(v) | Out::Return(v) => Ok(v),
                Out::Unit => Ok(Val::Json(Value::Null)),
            },
            // `()`, as serde writes it
            Expr::Tuple(t) if t.elems.is_empty() => Ok(Val::Json(Value::Null)),
            Expr::Array(a) => {
                let mut out = Vec::new();
                for el in &a.elems {
                    out.push(self.json(f, el)?);
                }
                Ok(Val::Json(Value::Array(out)))
            }
            Expr::Binary(b) => self.binary(f, b),
            Expr::Struct(s) => self.struct_value(f, s),
            Expr::Field(fe) => {
                let syn::Member::Named(name) = &fe.member else {
                    return Err(self.needs(f.module, fe.span(), "a tuple field"));
                };
                let name = crate::source::syntax::unraw(name);
                match self.expr(f, &fe.base)? {
                    Val::Struct(fields) => match fields.into_iter().find(|(n, _)| *n == name) {
                        Some((_, v)) => Ok(v),
                        None => {
                            Err(self.needs(f.module, fe.span(), format!("the field `{name}`, not in the struct value")))
                        }
                    },
                    _ => {
                        Err(self.needs(f.module, fe.span(), format!("the field `{name}` of a value that is no struct")))
                    }
                }
            }
            Expr::Index(_) => {
                let place = self.place(f, e)?;
                match self.read(f, &place) {
                    Some(v) => Ok(Val::Json(v.clone())),
                    None => Err(self.fails(f.module, e.span(), "indexing a key that is not there")),
                }
            }
            other => Err(self.needs(f.module, other.span(), describe(other))),
        }
    }

    fn mac(&mut self, f: &mut Frame<C>, m: &syn::Macro) -> Res<Val, C> {
        let segs = path_segs(&m.path);
        let name = segs.last().cloned().unwrap_or_default();
        let from = segs.first().map(String::as_str).unwrap_or_default();
        let ours = segs.len() == 1 || matches!(from, "serde_json" | "schemars");
        let node = match name.as_str() {
            "json_schema" if ours => json::json_schema_body(m.tokens.clone()),
            "json" if ours => json::json_body(m.tokens.clone()),
            "format" if segs.len() == 1 || matches!(from, "std" | "alloc") => return self.format(f, m),
            "vec" if segs.len() == 1 => {
                let items = m
                    .parse_body_with(syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated)
                    .map_err(|_| self.needs(f.module, m.span(), "a `vec![x; n]`"))?;
                let mut out = Vec::new();
                for el in &items {
                    out.push(self.json(f, el)?);
                }
                return Ok(Val::Json(Value::Array(out)));
            }
            _ => return Err(self.needs(f.module, m.path.span(), format!("the macro `{}!`", segs.join("::")))),
        };
        let node =
            node.map_err(|e| self.needs(f.module, e.span(), format!("a `{name}!` body kubesmith cannot read ({e})")))?;
        self.node(f, &node).map(Val::Json)
    }

    fn node(&mut self, f: &mut Frame<C>, n: &Node) -> Res<Value, C> {
        Ok(match n {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Array(items) => {
                let mut out = Vec::new();
                for i in items {
                    out.push(self.node(f, i)?);
                }
                Value::Array(out)
            }
            Node::Object(entries) => {
                let mut out = Map::new();
                for (k, v) in entries {
                    let k = match k {
                        Key::Str(s) => s.clone(),
                        Key::Expr(e) => self.string(f, e)?,
                    };
                    out.insert(k, self.node(f, v)?);
                }
                Value::Object(out)
            }
            Node::Expr(e) => self.json(f, e)?,
        })
    }

    fn path(&mut self, f: &mut Frame<C>, p: &syn::ExprPath) -> Res<Val, C> {
        let segs = path_segs(&p.path);
        if p.qself.is_none() && segs.len() == 1 {
            if let Some(i) = f.lookup(&segs[0]) {
                return match f.locals[i].1.clone() {
                    Local::Val(v) => Ok(v),
                    Local::Alias(place) => self
                        .read(f, &place)
                        .cloned()
                        .map(Val::Json)
                        .ok_or_else(|| self.fails(f.module, p.span(), "reading a key that is not there")),
                };
            }
            if segs[0] == "None" {
                return Ok(Val::Json(Value::Null));
            }
            if let Some(outer) = self.outer.filter(|_| f.outer) {
                match outer.local(&p.path) {
                    Ok(Some(init)) => return self.nested(f, init, &segs),
                    Ok(None) => {}
                    Err(why) => return Err(self.needs(f.module, p.span(), why)),
                }
            }
        }
        if segs.len() >= 2 && segs[segs.len() - 1] == "Null" && segs[segs.len() - 2] == "Value" {
            return Ok(Val::Json(Value::Null));
        }
        let ix = self.ix;
        if p.qself.is_none() {
            if let Some(found) = names::constant(ix, f.scope(self.outer_uses()), &segs) {
                return self.constant_value(found, &segs, p.span());
            }
            if let Some(v) = primitive_bound(&segs) {
                return Ok(Val::Json(v));
            }
        }
        Err(self.needs(
            f.module,
            p.span(),
            format!("`{}` is not a local, const, static or associated const of this crate", segs.join("::")),
        ))
    }

    /// The `use`s of the fn body the caller read ([`Outer::uses`]).
    fn outer_uses(&self) -> &'g [UseEntry] {
        self.outer.map_or(&[], |o| o.uses())
    }

    /// The value of the initializer of an outer binding `name`, evaluated where it is written (the same frame).
    fn nested(&mut self, f: &mut Frame<C>, init: &Expr, name: &[String]) -> Res<Val, C> {
        if self.depth > MAX_DEPTH {
            return Err(self.needs(f.module, init.span(), format!("`{}` refers to itself", name.join("::"))));
        }
        self.depth += 1;
        let v = self.expr(f, init);
        self.depth -= 1;
        v
    }

    /// The value of the const, static or associated const `name` led to.
    fn constant_value(&mut self, found: names::Found<'a, C::Mod, &'a Expr>, name: &[String], at: Span) -> Res<Val, C> {
        if self.depth > MAX_DEPTH {
            return Err(self.needs(found.module, at, format!("`{}` refers to itself", name.join("::"))));
        }
        let mut frame = Frame::new(found.module, found.self_ty.cloned());
        self.depth += 1;
        let v = self.lazy_init(&mut frame, found.def);
        self.depth -= 1;
        v
    }

    /// A static's initializer: `LazyLock::new(|| ..)` / `Lazy::new(|| ..)` / `Lazy::new(f)` is the value the
    /// closure or fn gives.
    fn lazy_init(&mut self, f: &mut Frame<C>, e: &Expr) -> Res<Val, C> {
        if let Expr::Call(c) = strip(e)
            && let Expr::Path(p) = strip(&c.func)
        {
            let segs = path_segs(&p.path);
            let lazy = segs.len() >= 2
                && segs[segs.len() - 1] == "new"
                && matches!(segs[segs.len() - 2].as_str(), "LazyLock" | "Lazy" | "LazyCell");
            if lazy && c.args.len() == 1 {
                return match strip(&c.args[0]) {
                    Expr::Closure(cl) if cl.inputs.is_empty() => self.expr(f, &cl.body),
                    Expr::Path(fp) => self.call_path(f, &fp.path, Vec::new(), fp.span()),
                    other => Err(self.needs(f.module, other.span(), describe(other))),
                };
            }
        }
        self.expr(f, e)
    }

    fn call(&mut self, f: &mut Frame<C>, c: &syn::ExprCall) -> Res<Val, C> {
        let Expr::Path(fp) = strip(&c.func) else {
            return Err(self.needs(f.module, c.func.span(), "a call of a computed fn"));
        };
        let segs = path_segs(&fp.path);
        let last = segs.last().map(String::as_str).unwrap_or_default();
        let owner = if segs.len() >= 2 { segs[segs.len() - 2].as_str() } else { "" };
        let args: Vec<&Expr> = c.args.iter().collect();
        if last == "default"
            && args.is_empty()
            && let Some(type_default) = self.type_default
        {
            return type_default()
                .map(Val::Json)
                .ok_or_else(|| self.needs(f.module, c.span(), "a type's default kubesmith cannot tell"));
        }
        if let Some(q) = &fp.qself {
            // `<T as JsonSchema>::json_schema(generator)`, `<T>::json_schema(generator)`.
            if last == "json_schema" && args.len() == 1 {
                return self.json_schema_of(f, &q.ty, args[0]);
            }
            return Err(self.needs(f.module, c.span(), describe(&Expr::Call(c.clone()))));
        }
        let from_serde_json = segs.len() == 1 || segs[0] == "serde_json";
        match (owner, last, args.as_slice()) {
            ("", "Ok", [x]) => return Ok(Val::Res(Ok(self.json(f, x)?))),
            ("", "Some", [x]) => {
                return match self.expr(f, x)? {
                    v @ Val::Struct(_) => Ok(v),
                    v => Ok(Val::Json(self.as_json(f, v, x)?)),
                };
            }
            (_, "from_value" | "to_value", [x]) if from_serde_json => return Ok(Val::Res(Ok(self.json(f, x)?))),
            (_, "from_str", [x]) if from_serde_json => {
                let text = self.string(f, x)?;
                return Ok(Val::Res(
                    serde_json::from_str(&text).map_err(|e| format!("the JSON text does not parse: {e}")),
                ));
            }
            ("Schema" | "TryFrom", "try_from", [x]) => {
                let v = self.json(f, x)?;
                return Ok(Val::Res(if is_schema(&v) {
                    Ok(v)
                } else {
                    Err(format!("`Schema::try_from` of {v}, which is not an object or a bool"))
                }));
            }
            // the conversions every reader strips, and a JSON value's or map's own `from`
            (owner, last, [x]) if constant::keeps_argument(owner, last) => return self.converted(f, x),
            ("Schema" | "Value" | "Map", "from", [x]) => return self.converted(f, x),
            ("Value", "Bool" | "String" | "Number" | "Array" | "Object", [x]) => {
                return Ok(Val::Json(self.json(f, x)?));
            }
            ("Map" | "Schema", "new" | "default", []) => return Ok(Val::Json(Value::Object(Map::new()))),
            // schemars 0.8's schema object, and its `Schema::Object(..)` wrapping
            ("SchemaObject", "default", []) if self.ix.schemars_08() => {
                return Ok(Val::Json(Value::Object(Map::new())));
            }
            ("Schema", "Object", [x]) if self.ix.schemars_08() => return self.converted(f, x),
            // a regex is the text it was built from (what its `to_string()` gives: a pattern written as a `Regex`)
            ("Regex", "new", [x]) => return Ok(Val::Res(Ok(Value::String(self.string(f, x)?)))),
            ("Vec", "new", []) => return Ok(Val::Json(Value::Array(Vec::new()))),
            ("String", "new", []) => return Ok(Val::Json(Value::String(String::new()))),
            (_, "json_schema", [g]) if segs.len() >= 2 => {
                let mut ty_path = fp.path.clone();
                ty_path.segments.pop();
                if let Some(p) = ty_path.segments.pop() {
                    ty_path.segments.push(p.into_value());
                }
                let ty = syn::Type::Path(syn::TypePath { qself: None, path: ty_path });
                return self.json_schema_of(f, &ty, g);
            }
            _ => {}
        }
        let mut vals = Vec::new();
        for a in &args {
            vals.push(self.expr(f, a)?);
        }
        self.call_path(f, &fp.path, vals, c.span())
    }

    /// `From::from`-like conversions keep the value (`Map::from([(k, v), ..])` builds an object).
    fn converted(&mut self, f: &mut Frame<C>, x: &Expr) -> Res<Val, C> {
        if let Expr::Array(a) = strip(x)
            && !a.elems.is_empty()
            && a.elems.iter().all(|e| matches!(strip(e), Expr::Tuple(t) if t.elems.len() == 2))
        {
            return self.extend_items(f, x).map(Val::Json);
        }
        Ok(Val::Json(self.json(f, x)?))
    }

    /// `T::json_schema(generator)`: with kube's inlining, what `generator.subschema_for::<T>()` gives.
    fn json_schema_of(&mut self, f: &mut Frame<C>, ty: &syn::Type, g: &Expr) -> Res<Val, C> {
        match self.expr(f, g)? {
            Val::Generator => self.subschema(f, ty),
            _ => Err(self.needs(f.module, g.span(), "`json_schema` called without the schema generator")),
        }
    }

    /// A call of a crate fn (free, or associated with a crate type) with evaluated arguments.
    fn call_path(&mut self, f: &mut Frame<C>, path: &syn::Path, args: Vec<Val>, at: Span) -> Res<Val, C> {
        let segs = path_segs(path);
        let ix = self.ix;
        if let Some(found) = names::function(ix, f.scope(self.outer_uses()), &segs) {
            let (sig, block) = found.def;
            return self.call_fn(sig, block, found.module, found.self_ty.cloned(), args);
        }
        Err(self.needs(f.module, at, format!("a call of `{}`, which is not a fn of this crate", segs.join("::"))))
    }

    /// Arithmetic on numbers, comparisons and `&&` / `||`, as the compiled constant would compute them.
    fn binary(&mut self, f: &mut Frame<C>, b: &syn::ExprBinary) -> Res<Val, C> {
        use syn::BinOp;
        let span = b.span();
        let op = &b.op;
        let op_text = quote::quote!(#op).to_string();
        let l = self.json(f, &b.left)?;
        // `&&` / `||` short-circuit like Rust's
        if let BinOp::And(_) | BinOp::Or(_) = op {
            let Value::Bool(lb) = l else {
                return Err(self.needs(f.module, span, format!("`{op_text}` on {}", kind(&l))));
            };
            if matches!(op, BinOp::And(_)) != lb {
                return Ok(Val::Json(Value::Bool(lb)));
            }
            return match self.json(f, &b.right)? {
                Value::Bool(rb) => Ok(Val::Json(Value::Bool(rb))),
                r => Err(self.needs(f.module, span, format!("`{op_text}` on {}", kind(&r)))),
            };
        }
        let r = self.json(f, &b.right)?;
        match binary_op(op, &l, &r) {
            Some(v) => Ok(Val::Json(v)),
            None => {
                Err(self.needs(f.module, span, format!("the operator `{op_text}` on {} and {}", kind(&l), kind(&r))))
            }
        }
    }

    fn method(&mut self, f: &mut Frame<C>, mc: &syn::ExprMethodCall) -> Res<Val, C> {
        let method = mc.method.to_string();
        let span = mc.method.span();
        if method == "subschema_for" {
            let recv = self.expr(f, &mc.receiver)?;
            let ty = mc.turbofish.as_ref().and_then(|t| match t.args.first() {
                Some(syn::GenericArgument::Type(ty)) if t.args.len() == 1 => Some(ty.clone()),
                _ => None,
            });
            return match (recv, ty, mc.args.is_empty()) {
                (Val::Generator, Some(ty), true) => self.subschema(f, &ty),
                _ => Err(self.needs(f.module, span, "`subschema_for` without the generator and one type argument")),
            };
        }
        if is_edit(&method) {
            return Err(self.needs(f.module, span, format!("the value of `.{method}()`")));
        }
        if !mc.args.is_empty() && !matches!(method.as_str(), "expect") {
            return Err(self.needs(f.module, span, format!("`.{method}(..)`")));
        }
        let recv = self.expr(f, &mc.receiver)?;
        match method.as_str() {
            "unwrap" | "expect" => match recv {
                Val::Res(Ok(v)) | Val::Json(v) => Ok(Val::Json(v)),
                Val::Res(Err(why)) => Err(self.fails(f.module, span, why)),
                v @ Val::Struct(_) => Ok(v),
                Val::Generator => Err(self.needs(f.module, span, "unwrapping the schema generator")),
            },
            // Conversions between `&str`/`String`/`Cow`, `Value`, `Map` and `Schema` keep the JSON.
            m if constant::keeps_value(m) => Ok(recv),
            // `Option`'s (a `None` is null), and emptiness of a string, an array or a map
            "is_none" | "is_some" | "is_empty" => match recv {
                Val::Json(v) => match method.as_str() {
                    "is_none" => Ok(Val::Json(Value::Bool(v.is_null()))),
                    "is_some" => Ok(Val::Json(Value::Bool(!v.is_null()))),
                    _ => match v {
                        Value::String(s) => Ok(Val::Json(Value::Bool(s.is_empty()))),
                        Value::Array(a) => Ok(Val::Json(Value::Bool(a.is_empty()))),
                        Value::Object(o) => Ok(Val::Json(Value::Bool(o.is_empty()))),
                        other => Err(self.needs(f.module, span, format!("`.is_empty()` of {}", kind(&other)))),
                    },
                },
                _ => Err(self.needs(f.module, span, format!("`.{method}()` of a value that is no JSON"))),
            },
            // a `str`'s length in bytes, an array's (`Vec`, slice, `Value::Array`) in elements
            "len" => match recv {
                Val::Json(Value::String(t)) => Ok(Val::Json(Value::from(t.len()))),
                Val::Json(Value::Array(a)) => Ok(Val::Json(Value::from(a.len()))),
                _ => Err(self.needs(f.module, span, "`.len()` of a value that is neither a string nor an array")),
            },
            // `Value::to_string()` is JSON text (`"\"a\""`); only a `str`'s is the string itself.
            "to_string" if is_str_expr(&mc.receiver) => Ok(recv),
            "to_string" => Err(self.needs(f.module, span, "`.to_string()` of a value that may not be a `str`")),
            "as_object" | "as_array" | "as_str" | "as_bool" | "as_object_mut" | "as_array_mut" => {
                let Val::Json(v) = recv else {
                    return Err(self.needs(f.module, span, format!("`.{method}()` of a non-JSON value")));
                };
                let fits = match method.as_str() {
                    "as_object" | "as_object_mut" => v.is_object(),
                    "as_array" | "as_array_mut" => v.is_array(),
                    "as_str" => v.is_string(),
                    _ => v.is_boolean(),
                };
                if fits {
                    Ok(Val::Json(v))
                } else {
                    Err(self.needs(f.module, span, format!("`.{method}()` of {} (`None`)", kind(&v))))
                }
            }
            _ => Err(self.needs(f.module, span, format!("`.{method}()`"))),
        }
    }

    /// A struct literal `Name { field: value, .. }` (no `..rest`): its fields' values.
    fn struct_value(&mut self, f: &mut Frame<C>, s: &syn::ExprStruct) -> Res<Val, C> {
        if let Some(rest) = &s.rest {
            return Err(self.needs(f.module, rest.span(), "a struct literal with `..rest`"));
        }
        let mut fields = Vec::new();
        for fv in &s.fields {
            let syn::Member::Named(name) = &fv.member else {
                return Err(self.needs(f.module, fv.span(), "a tuple struct literal"));
            };
            fields.push((crate::source::syntax::unraw(name), self.expr(f, &fv.expr)?));
        }
        Ok(Val::Struct(fields))
    }

    /// `format!("{}/{name}:{0}", a, name = b)`: `{}`, `{N}`, `{name}` (an argument or a captured name) of strings,
    /// integers and bools, and `{{` / `}}`. A format spec (`{:>4}`, `{:?}`) or a float is left to compiling.
    fn format(&mut self, f: &mut Frame<C>, m: &syn::Macro) -> Res<Val, C> {
        enum Arg {
            Positional(Expr),
            Named(String, Expr),
        }
        let parse = |input: syn::parse::ParseStream| -> syn::Result<(syn::LitStr, Vec<Arg>)> {
            let text: syn::LitStr = input.parse()?;
            let mut args = Vec::new();
            while !input.is_empty() {
                input.parse::<syn::Token![,]>()?;
                if input.is_empty() {
                    break;
                }
                if input.peek(syn::Ident) && input.peek2(syn::Token![=]) && !input.peek2(syn::Token![==]) {
                    let name: syn::Ident = input.parse()?;
                    input.parse::<syn::Token![=]>()?;
                    args.push(Arg::Named(crate::source::syntax::unraw(&name), input.parse()?));
                } else {
                    args.push(Arg::Positional(input.parse()?));
                }
            }
            Ok((text, args))
        };
        let (text, args) =
            m.parse_body_with(parse).map_err(|e| self.needs(f.module, m.span(), format!("a `format!` body ({e})")))?;
        let at = text.span();
        let template = text.value();
        let mut out = String::new();
        let mut next = 0;
        let mut chars = template.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    out.push('{');
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    out.push('}');
                }
                '{' => {
                    let mut spec = String::new();
                    for c in chars.by_ref() {
                        if c == '}' {
                            break;
                        }
                        spec.push(c);
                    }
                    let name = spec.trim_end_matches(':').trim();
                    if name.contains(':') {
                        return Err(self.needs(f.module, at, format!("the format spec `{{{spec}}}`")));
                    }
                    let value = if name.is_empty() {
                        next += 1;
                        match args.iter().filter(|a| matches!(a, Arg::Positional(_))).nth(next - 1) {
                            Some(Arg::Positional(e)) => self.json(f, e)?,
                            _ => return Err(self.fails(f.module, at, "more `{}` than arguments")),
                        }
                    } else if let Ok(i) = name.parse::<usize>() {
                        match args.get(i) {
                            Some(Arg::Positional(e) | Arg::Named(_, e)) => self.json(f, e)?,
                            None => return Err(self.fails(f.module, at, format!("no argument {i}"))),
                        }
                    } else {
                        match args.iter().find(|a| matches!(a, Arg::Named(n, _) if n == name)) {
                            Some(Arg::Named(_, e)) => self.json(f, e)?,
                            _ => {
                                let captured: Expr = syn::parse_str(name)
                                    .map_err(|_| self.needs(f.module, at, format!("the format argument `{name}`")))?;
                                self.json(f, &captured)?
                            }
                        }
                    };
                    match value {
                        Value::String(s) => out.push_str(&s),
                        Value::Bool(b) => out.push_str(if b { "true" } else { "false" }),
                        Value::Number(n) if !n.is_f64() => out.push_str(&n.to_string()),
                        other => {
                            return Err(self.needs(f.module, at, format!("formatting {} with `{{}}`", kind(&other))));
                        }
                    }
                }
                c => out.push(c),
            }
        }
        Ok(Val::Json(Value::String(out)))
    }

    fn subschema(&mut self, f: &Frame<C>, ty: &syn::Type) -> Res<Val, C> {
        let ty = match (ty, &f.self_ty) {
            (syn::Type::Path(p), Some(st)) if p.qself.is_none() && p.path.is_ident("Self") => st.clone(),
            _ => ty.clone(),
        };
        let Some(schemas) = self.schemas.as_deref_mut() else {
            return Err(self.needs(f.module, ty.span(), "a subschema outside schema code"));
        };
        match schemas.subschema_for(&ty, f.module) {
            Ok(v) => Ok(Val::Json(v)),
            Err(e) => match C::unresolved_type(&e) {
                Some((name, hint)) => Err(self.needs(
                    f.module,
                    ty.span(),
                    format!("`{name}` is not a type kubesmith can describe ({hint})"),
                )),
                None => Err(e),
            },
        }
    }
}

/// `u16::MAX`, `i64::MIN` and the like.
fn primitive_bound(segs: &[String]) -> Option<Value> {
    let [ty, c] = segs else { return None };
    macro_rules! bounds {
        ($($t:ident),*) => {
            match (ty.as_str(), c.as_str()) {
                $((stringify!($t), "MAX") => Some(Value::from($t::MAX)), (stringify!($t), "MIN") => Some(Value::from($t::MIN)),)*
                _ => None,
            }
        };
    }
    bounds!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize)
}

/// Whether casting the integer `n` to the integer type `t` keeps its value.
fn int_fits(t: &str, n: &serde_json::Number) -> bool {
    let (min, max): (i128, i128) = match t {
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "i64" | "isize" => (i64::MIN.into(), i64::MAX.into()),
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" | "usize" => (0, u64::MAX.into()),
        _ => return false,
    };
    let v: Option<i128> = n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from));
    v.is_some_and(|v| (min..=max).contains(&v))
}

/// Whether `e` is a string literal (possibly through `&`, parentheses or `.as_str()`).
fn is_str_expr(e: &Expr) -> bool {
    match strip(e) {
        Expr::Lit(l) => matches!(l.lit, syn::Lit::Str(_)),
        Expr::Reference(r) => is_str_expr(&r.expr),
        _ => false,
    }
}

/// Methods that edit their receiver.
fn is_edit(method: &str) -> bool {
    matches!(
        method,
        "insert"
            | "remove"
            | "shift_remove"
            | "swap_remove"
            | "extend"
            | "append"
            | "push"
            | "clear"
            | "ensure_object"
            | "or_insert"
            | "or_default"
    )
}

/// Whether `let x = e;` binds a reference into another local (an alias) rather than a value.
fn is_place_expr(e: &Expr) -> bool {
    match strip(e) {
        Expr::Reference(r) => r.mutability.is_some() && is_place_expr_inner(&r.expr),
        Expr::MethodCall(mc) => match mc.method.to_string().as_str() {
            "ensure_object" | "or_insert" | "or_default" => true,
            "unwrap" | "expect" => matches!(
                strip(&mc.receiver),
                Expr::MethodCall(inner) if matches!(inner.method.to_string().as_str(), "as_object_mut" | "as_array_mut" | "get_mut")
            ),
            _ => false,
        },
        _ => false,
    }
}

fn is_place_expr_inner(e: &Expr) -> bool {
    matches!(strip(e), Expr::Path(_) | Expr::Index(_)) || is_place_expr(e)
}

/// `l op r` on evaluated operands: integer arithmetic when both are integers (checked: what would overflow or
/// divide by zero does not compile or panics, so it gives `None`), float arithmetic otherwise, comparisons of numbers,
/// strings and bools, `==` / `!=` of any values; `None` for anything else.
fn binary_op(op: &syn::BinOp, l: &Value, r: &Value) -> Option<Value> {
    use std::cmp::Ordering;
    use syn::BinOp;
    let ord = match (l, r) {
        (Value::Number(a), Value::Number(b)) => match (a.as_i64(), b.as_i64()) {
            (Some(x), Some(y)) => Some(x.cmp(&y)),
            _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
        },
        (Value::String(a), Value::String(b)) => Some(a.cmp(b)),
        (Value::Bool(a), Value::Bool(b)) => Some(a.cmp(b)),
        _ => None,
    };
    let cmp = |want: fn(Ordering) -> bool| ord.map(|o| Value::Bool(want(o)));
    match op {
        // Values without an order (arrays, maps, `None`, or a mix) are equal as their JSON is: `Vec`s, maps,
        // `Option`s and derived `PartialEq`s compare what serde writes.
        BinOp::Eq(_) => cmp(|o| o == Ordering::Equal).or_else(|| Some(Value::Bool(l == r))),
        BinOp::Ne(_) => cmp(|o| o != Ordering::Equal).or_else(|| Some(Value::Bool(l != r))),
        BinOp::Lt(_) => cmp(|o| o == Ordering::Less),
        BinOp::Le(_) => cmp(|o| o != Ordering::Greater),
        BinOp::Gt(_) => cmp(|o| o == Ordering::Greater),
        BinOp::Ge(_) => cmp(|o| o != Ordering::Less),
        BinOp::Add(_) | BinOp::Sub(_) | BinOp::Mul(_) | BinOp::Div(_) | BinOp::Rem(_) => {
            let (Value::Number(a), Value::Number(b)) = (l, r) else { return None };
            if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
                let v = match op {
                    BinOp::Add(_) => x.checked_add(y),
                    BinOp::Sub(_) => x.checked_sub(y),
                    BinOp::Mul(_) => x.checked_mul(y),
                    BinOp::Div(_) => x.checked_div(y),
                    _ => x.checked_rem(y),
                }?;
                return Some(Value::from(v));
            }
            if a.is_f64() || b.is_f64() {
                let (x, y) = (a.as_f64()?, b.as_f64()?);
                let v = match op {
                    BinOp::Add(_) => x + y,
                    BinOp::Sub(_) => x - y,
                    BinOp::Mul(_) => x * y,
                    BinOp::Div(_) => x / y,
                    _ => x % y,
                };
                return serde_json::Number::from_f64(v).map(Value::Number);
            }
            None
        }
        _ => None,
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a bool",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The last segment of a type path (`Foo` of `crate::a::Foo`).
pub fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        syn::Type::Group(g) => type_name(&g.elem),
        syn::Type::Paren(p) => type_name(&p.elem),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
