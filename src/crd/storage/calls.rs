//! Finding the crate's `merge_crds(crds, storage)` calls and reading their two arguments without running them:
//! which `Kind::crd()`s the first one lists, and which version the second one names.
//!
//! Paths are resolved by the [`CrateIndex`] of every target of the package (the library and the binaries, where a
//! `crdgen` binary usually makes the call), with the kind types `#[derive(CustomResource)]` generates beside the
//! items ([`CrateIndex::resolve_code`]), so `v1::Foo::crd()`, `mylib::api::v2::Foo::crd()` and `use` renames all
//! name their kind.
//!
//! What an argument may be: for the storage version, what the one interpreter of constant code reads
//! ([`crate::source::eval`]: a string literal, a `const`/`static` (free or associated, `Self::X` in impls), a call of a
//! crate fn, `format!`, the calls that keep a string's value) over the fn body's `let`s where the call is (shadowing
//! and blocks followed as Rust scopes them; a `let mut` only when nothing assigns to it) and its `use`s, and the
//! version of a kind (`v2::Foo::version(&())`, `v2::Foo::api_resource().version`); for the CRDs, `vec![..]` or an
//! array of `Kind::crd()` (also `<Kind as CustomResourceExt>::crd()`), directly or through a `let`, or an
//! `if`/`match` choosing between them (each branch's version is merged: the CRD holds them all). Anything else is
//! read as "not evaluable", with the reason, never guessed.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use proc_macro2::LineColumn;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::Visit;

use super::{Kinds, MergeCall, VersionKey};
use crate::crd::error::CrdError;
use crate::crd::index::code::CodeName;
use crate::crd::index::{CrateIndex, ItemId, ItemKind, ModId};
use crate::source::constant;
use crate::source::eval::{Evaluator, Outer, Site};
use crate::source::lex::path_segs;
use crate::source::resolve;
use crate::source::syntax::{UseEntry, flatten_use};

/// How deep evaluation follows `let`s and consts before giving up (a cycle would not compile anyway).
const MAX_DEPTH: usize = 16;

/// Every `merge_crds` call of the fns, consts and statics (test fns left out) of the files `holders`, with what
/// kubesmith can read of its arguments; and the fn bodies that could not be parsed.
pub fn calls(ix: &CrateIndex, kinds: &Kinds, holders: &BTreeSet<PathBuf>) -> (Vec<MergeCall>, Vec<CrdError>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    let mut queue: Vec<Body> = Vec::new();
    let held = |module: ModId| holders.contains(ix.module_file(module));
    for (_, item) in ix.own_items() {
        if !held(item.module) {
            continue;
        }
        let module = item.module;
        match &item.kind {
            ItemKind::Fn(f) if !is_test(&f.attrs) => match ix.full_block(module, &f.block) {
                Ok(block) => {
                    queue.push(Body { module, self_ty: None, code: Code::Block(block.clone(), inputs(&f.sig)) })
                }
                Err(e) => problems.push(e),
            },
            ItemKind::Const(c) => queue.push(Body { module, self_ty: None, code: Code::Expr(*c.expr.clone()) }),
            ItemKind::Static(s) => queue.push(Body { module, self_ty: None, code: Code::Expr(*s.expr.clone()) }),
            _ => {}
        }
    }
    for imp in ix.impls.iter().filter(|i| held(i.module)) {
        for it in &imp.item.items {
            if let syn::ImplItem::Fn(f) = it
                && !is_test(&f.attrs)
            {
                match ix.full_block(imp.module, &f.block) {
                    Ok(block) => queue.push(Body {
                        module: imp.module,
                        self_ty: Some(&imp.item.self_ty),
                        code: Code::Block(block.clone(), inputs(&f.sig)),
                    }),
                    Err(e) => problems.push(e),
                }
            }
        }
    }
    while let Some(body) = queue.pop() {
        let mut scope = Scope::default();
        match &body.code {
            Code::Block(b, inputs) => {
                for input in inputs {
                    scope.param(input);
                }
                scope.visit_block(b);
            }
            Code::Expr(e) => scope.visit_expr(e),
        }
        let cx = Cx { ix, kinds, module: body.module, self_ty: body.self_ty, scope: Some(&scope), depth: 0 };
        for call in &scope.calls {
            if !cx.is_merge_crds(&call.func) {
                continue;
            }
            let start = call.func.span().start();
            let (merges, storage) = match (call.args.first(), call.args.get(1)) {
                (Some(crds), Some(stored)) if call.args.len() == 2 => (cx.crds(crds), storage(&cx, stored)),
                _ => continue,
            };
            out.push(MergeCall {
                path: ix.module_file(body.module).to_path_buf(),
                line: start.line,
                column: start.column + 1,
                merges,
                storage: storage.map_err(|why| (tokens(&call.args[1]), why)),
            });
        }
        queue.extend(scope.nested.into_iter().map(|f| Body {
            module: body.module,
            self_ty: None,
            code: Code::Block(*f.block.clone(), inputs(&f.sig)),
        }));
    }
    out.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
    (out, problems)
}

fn inputs(sig: &syn::Signature) -> Vec<syn::FnArg> {
    sig.inputs.iter().cloned().collect()
}

fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().segments.last().is_some_and(|s| s.ident == "test"))
}

/// Code whose calls are read in one scope.
struct Body<'a> {
    module: ModId,
    /// The self type of the impl a method is in.
    self_ty: Option<&'a syn::Type>,
    code: Code,
}

enum Code {
    /// A fn's or method's body and parameters.
    Block(syn::Block, Vec<syn::FnArg>),
    /// A const's or static's initializer.
    Expr(syn::Expr),
}

/// What one fn body binds and calls (closures included; nested fn items are bodies of their own).
#[derive(Default)]
struct Scope {
    /// Every name a pattern, parameter, `let` or local const binds, with where the binding is visible; a later
    /// `let` of the same name shadows an earlier one from where it ends.
    bindings: HashMap<String, Vec<Binding>>,
    /// Names an assignment (`x = ..`, `x += ..`) writes to: a `let mut` of them is not read.
    assigned: std::collections::HashSet<String>,
    /// The ends of the blocks, closures and arms being visited: a binding is visible up to the innermost one.
    regions: Vec<LineColumn>,
    /// The fn's own `use` declarations.
    uses: Vec<UseEntry>,
    calls: Vec<syn::ExprCall>,
    nested: Vec<syn::ItemFn>,
}

/// One binding of a name.
struct Binding {
    /// Where it starts to be visible (the end of its `let`).
    from: LineColumn,
    /// Where it stops (the end of the block it is in).
    until: LineColumn,
    /// `Some(init)` for a plain `let x = init;` or a local const, `None` for anything else.
    value: Option<syn::Expr>,
    /// A `let mut`: read only when nothing assigns to the name.
    mutable: bool,
}

/// Past the end of any file.
const END: LineColumn = LineColumn { line: usize::MAX, column: usize::MAX };

impl Scope {
    fn bind(&mut self, name: String, from: LineColumn, value: Option<syn::Expr>, mutable: bool) {
        let until = self.regions.last().copied().unwrap_or(END);
        self.bindings.entry(name).or_default().push(Binding { from, until, value, mutable });
    }

    /// The binding of `name` visible at `at`: the latest one started before it and not yet ended.
    fn visible(&self, name: &str, at: LineColumn) -> Option<&Binding> {
        self.bindings.get(name)?.iter().filter(|b| b.from <= at && at <= b.until).max_by_key(|b| b.from)
    }

    fn param(&mut self, input: &syn::FnArg) {
        if let syn::FnArg::Typed(t) = input {
            self.pattern(&t.pat, LineColumn { line: 0, column: 0 });
        }
    }

    /// Every name `pat` binds from `from`, bound to nothing kubesmith reads.
    fn pattern(&mut self, pat: &syn::Pat, from: LineColumn) {
        let mut names = Vec::new();
        pat_idents(pat, &mut names);
        for n in names {
            self.bind(n, from, None, false);
        }
    }

    /// Visits `f` with bindings made inside it ending at `end`.
    fn within(&mut self, end: LineColumn, f: impl FnOnce(&mut Self)) {
        self.regions.push(end);
        f(self);
        self.regions.pop();
    }

    /// The arguments of a macro call read as expressions (`println!("{}", merge_crds(..))`), when they are.
    fn macro_exprs(&mut self, mac: &syn::Macro) {
        if let Ok(args) = mac.parse_body_with(Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated) {
            for e in &args {
                self.visit_expr(e);
            }
        }
    }
}

fn pat_idents(pat: &syn::Pat, out: &mut Vec<String>) {
    match pat {
        syn::Pat::Ident(i) => {
            out.push(crate::source::syntax::unraw(&i.ident));
            if let Some((_, sub)) = &i.subpat {
                pat_idents(sub, out);
            }
        }
        syn::Pat::Or(o) => o.cases.iter().for_each(|p| pat_idents(p, out)),
        syn::Pat::Paren(p) => pat_idents(&p.pat, out),
        syn::Pat::Reference(r) => pat_idents(&r.pat, out),
        syn::Pat::Slice(s) => s.elems.iter().for_each(|p| pat_idents(p, out)),
        syn::Pat::Struct(s) => s.fields.iter().for_each(|f| pat_idents(&f.pat, out)),
        syn::Pat::Tuple(t) => t.elems.iter().for_each(|p| pat_idents(p, out)),
        syn::Pat::TupleStruct(t) => t.elems.iter().for_each(|p| pat_idents(p, out)),
        syn::Pat::Type(t) => pat_idents(&t.pat, out),
        _ => {}
    }
}

/// The name a plain `let x = ..;` / `let mut x: T = ..;` binds (not `ref` or a sub-pattern), and whether it is
/// `mut`.
fn plain_ident(pat: &syn::Pat) -> Option<(String, bool)> {
    match pat {
        syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
            Some((crate::source::syntax::unraw(&i.ident), i.mutability.is_some()))
        }
        syn::Pat::Type(t) => plain_ident(&t.pat),
        _ => None,
    }
}

/// The name an assignment writes to (`x = ..`, `x.field = ..` is not one).
fn assigned_name(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(ToString::to_string),
        syn::Expr::Paren(p) => assigned_name(&p.expr),
        _ => None,
    }
}

impl<'ast> Visit<'ast> for Scope {
    fn visit_block(&mut self, b: &'ast syn::Block) {
        self.within(b.span().end(), |s| syn::visit::visit_block(s, b));
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        // The initializer cannot see the names the `let` binds.
        syn::visit::visit_local(self, l);
        let from = l.span().end();
        match (plain_ident(&l.pat), &l.init) {
            (Some((name, mutable)), Some(init)) if init.diverge.is_none() => {
                self.bind(name, from, Some(*init.expr.clone()), mutable)
            }
            _ => self.pattern(&l.pat, from),
        }
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        self.within(c.span().end(), |s| {
            c.inputs.iter().for_each(|p| s.pattern(p, p.span().start()));
            syn::visit::visit_expr_closure(s, c);
        });
    }

    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.within(f.span().end(), |s| {
            s.pattern(&f.pat, f.pat.span().start());
            syn::visit::visit_expr_for_loop(s, f);
        });
    }

    fn visit_arm(&mut self, a: &'ast syn::Arm) {
        self.within(a.span().end(), |s| {
            s.pattern(&a.pat, a.pat.span().start());
            syn::visit::visit_arm(s, a);
        });
    }

    fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
        // `if let` / `while let`: visible in the rest of the enclosing block at most (an over-estimate that only
        // makes later names unreadable, never wrong).
        self.pattern(&l.pat, l.pat.span().start());
        syn::visit::visit_expr_let(self, l);
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        self.assigned.extend(assigned_name(&a.left));
        syn::visit::visit_expr_assign(self, a);
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        if matches!(
            b.op,
            syn::BinOp::AddAssign(_)
                | syn::BinOp::SubAssign(_)
                | syn::BinOp::MulAssign(_)
                | syn::BinOp::DivAssign(_)
                | syn::BinOp::RemAssign(_)
                | syn::BinOp::BitXorAssign(_)
                | syn::BinOp::BitAndAssign(_)
                | syn::BinOp::BitOrAssign(_)
                | syn::BinOp::ShlAssign(_)
                | syn::BinOp::ShrAssign(_)
        ) {
            self.assigned.extend(assigned_name(&b.left));
        }
        syn::visit::visit_expr_binary(self, b);
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_test(&f.attrs) {
            self.nested.push(f.clone());
        }
    }

    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        // Items are visible in their whole block.
        self.bind(
            crate::source::syntax::unraw(&c.ident),
            LineColumn { line: 0, column: 0 },
            Some(*c.expr.clone()),
            false,
        );
        syn::visit::visit_item_const(self, c);
    }

    fn visit_item_static(&mut self, s: &'ast syn::ItemStatic) {
        let value = s.mutability == syn::StaticMutability::None;
        self.bind(
            crate::source::syntax::unraw(&s.ident),
            LineColumn { line: 0, column: 0 },
            value.then(|| *s.expr.clone()),
            false,
        );
        syn::visit::visit_item_static(self, s);
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        flatten_use(&u.tree, &mut Vec::new(), &mut self.uses);
    }

    fn visit_item_impl(&mut self, _: &'ast syn::ItemImpl) {}

    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        self.calls.push(c.clone());
        syn::visit::visit_expr_call(self, c);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.macro_exprs(m);
    }
}

/// What a path names, for these readers.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Res {
    /// An item of the sources.
    Item(ItemId),
    /// An item followed by associated names (`Type::NAME`).
    Assoc(ItemId, Vec<String>),
    /// A kind type a derive generates ([`Kinds::versions`]' number).
    Generated(usize),
    /// A generated kind type followed by associated names (`Kind::crd`).
    GeneratedAssoc(usize, Vec<String>),
    /// A module of the sources.
    Module,
    /// Not in the sources: the full path as far as known.
    External(Vec<String>),
}

/// Where an expression is evaluated.
#[derive(Clone, Copy)]
struct Cx<'a> {
    ix: &'a CrateIndex,
    kinds: &'a Kinds,
    module: ModId,
    self_ty: Option<&'a syn::Type>,
    /// The fn body's bindings and `use`s; `None` outside fns (a const's initializer).
    scope: Option<&'a Scope>,
    depth: usize,
}

fn tokens(e: &impl quote::ToTokens) -> String {
    let text = e.to_token_stream().to_string();
    // Token streams print with spaces around punctuation; the common ones read better without.
    text.replace(" :: ", "::")
        .replace(" . ", ".")
        .replace("& ", "&")
        .replace(" (", "(")
        .replace("( ", "(")
        .replace(" )", ")")
}

impl<'a> Cx<'a> {
    fn deeper(&self) -> Option<Cx<'a>> {
        (self.depth < MAX_DEPTH).then(|| Cx { depth: self.depth + 1, ..*self })
    }

    /// What a path written here names (`Self` standing for the impl's self type).
    fn resolve(&self, p: &syn::Path) -> Res {
        Self::res(self.named(p))
    }

    /// What a path written here names, as the resolver gives it (the fn body's own `use`s included).
    fn named(&self, p: &syn::Path) -> resolve::Res<ModId, CodeName> {
        match resolve::with_self(path_segs(p), self.self_ty) {
            Some(segs) => self.ix.resolve_code(self.module, &segs, self.scope.map_or(&[], |s| &s.uses)),
            None => resolve::Res::External(path_segs(p)),
        }
    }

    /// What `segs` written here names, with the fn body's own `use`s `local`.
    fn resolve_segs(&self, segs: &[String], local: &[UseEntry]) -> Res {
        Self::res(self.ix.resolve_code(self.module, segs, local))
    }

    /// The resolver's answer, the kind types derives generate told apart from items.
    fn res(r: resolve::Res<ModId, CodeName>) -> Res {
        let named = |n: CodeName, rest: Option<Vec<String>>| match (n, rest) {
            (CodeName::Item(k), None) => Res::Item(k),
            (CodeName::Item(k), Some(rest)) => Res::Assoc(k, rest),
            (CodeName::Generated(g), None) => Res::Generated(g),
            (CodeName::Generated(g), Some(rest)) => Res::GeneratedAssoc(g, rest),
        };
        match r {
            resolve::Res::Item(n) => named(n, None),
            resolve::Res::Assoc(n, rest) => named(n, Some(rest)),
            resolve::Res::Module(_) => Res::Module,
            resolve::Res::External(p) => Res::External(p),
        }
    }

    /// What a type names (a kind's generated root type, a crate item).
    fn resolve_type(&self, ty: &syn::Type) -> Res {
        match ty {
            syn::Type::Path(tp) if tp.qself.is_none() => self.resolve(&tp.path),
            syn::Type::Paren(p) => self.resolve_type(&p.elem),
            syn::Type::Group(g) => self.resolve_type(&g.elem),
            _ => Res::External(Vec::new()),
        }
    }

    /// What the function of a call names: its path, or `<T as Trait>::f` as `T` followed by `f`.
    fn callee(&self, func: &syn::Expr) -> Option<Res> {
        let syn::Expr::Path(p) = func else { return None };
        match &p.qself {
            None => Some(self.resolve(&p.path)),
            Some(q) => {
                let last = p.path.segments.last()?.ident.to_string();
                Some(match self.resolve_type(&q.ty) {
                    Res::Generated(g) => Res::GeneratedAssoc(g, vec![last]),
                    Res::Item(k) => Res::Assoc(k, vec![last]),
                    other => other,
                })
            }
        }
    }

    /// Whether `func` is kube's `merge_crds` (`kube::core::crd::merge_crds`, `kube::core::crd::v1::merge_crds`,
    /// `kube_core::..`, through `use` and renames), not a fn of the crate's own.
    fn is_merge_crds(&self, func: &syn::Expr) -> bool {
        let syn::Expr::Path(p) = func else { return false };
        if p.qself.is_some() {
            return false;
        }
        match self.resolve(&p.path) {
            Res::External(full) => {
                full.last().is_some_and(|l| l == "merge_crds")
                    && (full.len() == 1 || matches!(full[0].as_str(), "kube" | "kube_core"))
            }
            _ => false,
        }
    }

    /// The local binding of a one-segment path where it is written: `Ok(Some(init))` for a plain `let` or local
    /// const, `Ok(None)` when no local binds it there, `Err(why)` when kubesmith cannot tell what it holds.
    fn local(&self, p: &syn::Path) -> Result<Option<&'a syn::Expr>, String> {
        let Some(name) = p.get_ident().map(ToString::to_string) else { return Ok(None) };
        let Some(scope) = self.scope else { return Ok(None) };
        let Some(bound) = scope.visible(&name, p.span().start()) else { return Ok(None) };
        match &bound.value {
            Some(_) if bound.mutable && scope.assigned.contains(&name) => {
                Err(format!("`{name}` is a `let mut` the fn assigns to"))
            }
            Some(init) => {
                if matches!(self.resolve_segs(std::slice::from_ref(&name), &[]), Res::Item(_)) {
                    return Err(format!("`{name}` names both a local and an item of the module"));
                }
                Ok(Some(init))
            }
            None => Err(format!("`{name}` is a parameter or bound by a pattern")),
        }
    }

    fn version_of(&self, g: usize) -> Result<String, String> {
        self.kinds
            .versions
            .get(g)
            .map(|k| k.version.clone())
            .ok_or_else(|| "its kind's `#[kube(...)]` cannot be read".into())
    }

    /// The kinds `e` (the first argument of `merge_crds`) lists, in order.
    pub fn crds(&self, e: &syn::Expr) -> Result<Vec<VersionKey>, String> {
        let Some(cx) = self.deeper() else { return Err("it refers to itself".into()) };
        match e {
            syn::Expr::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "vec") => {
                let items = m
                    .mac
                    .parse_body_with(Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated)
                    .map_err(|_| format!("`{}` is not a list kubesmith can read", tokens(e)))?;
                flatten(items.iter().map(|x| cx.crd(x)))
            }
            syn::Expr::Array(a) => flatten(a.elems.iter().map(|x| cx.crd(x))),
            syn::Expr::Reference(r) => cx.crds(&r.expr),
            syn::Expr::Paren(p) => cx.crds(&p.expr),
            syn::Expr::Group(g) => cx.crds(&g.expr),
            // a list is the same list through the calls that keep any value, and a slice's `.to_vec()`
            syn::Expr::MethodCall(m)
                if m.args.is_empty() && (m.method == "to_vec" || constant::keeps_value(&m.method.to_string())) =>
            {
                cx.crds(&m.receiver)
            }
            syn::Expr::Call(c) if c.args.len() == 1 && is_path(&c.func, &["Vec", "from"]) => cx.crds(&c.args[0]),
            syn::Expr::Path(p) if p.qself.is_none() => match cx.local(&p.path)? {
                Some(init) => cx.crds(init),
                None => Err(format!("`{}` is not a `let` bound to a list of `Kind::crd()`", tokens(e))),
            },
            _ => Err(format!("`{}` is not a `vec![..]` of `Kind::crd()` calls", tokens(e))),
        }
    }

    /// The kind versions a `Kind::crd()` element may be: one, or one per branch of an `if`/`match` choosing
    /// between kinds' `crd()`s (each is merged when its branch runs, so the CRD the crate means holds them all).
    fn crd(&self, e: &syn::Expr) -> Result<Vec<VersionKey>, String> {
        let Some(cx) = self.deeper() else { return Err("it refers to itself".into()) };
        match e {
            syn::Expr::Call(c) if c.args.is_empty() => match cx.callee(&c.func) {
                Some(Res::GeneratedAssoc(g, rest)) if rest == ["crd"] => cx
                    .kinds
                    .versions
                    .get(g)
                    .cloned()
                    .map(|k| vec![k])
                    .ok_or_else(|| format!("the `#[kube(...)]` of `{}` cannot be read", tokens(e))),
                _ => Err(format!("`{}` is not the `crd()` of a kind of the crate", tokens(e))),
            },
            syn::Expr::MethodCall(m) if m.args.is_empty() && m.method == "clone" => cx.crd(&m.receiver),
            syn::Expr::Paren(p) => cx.crd(&p.expr),
            syn::Expr::Group(g) => cx.crd(&g.expr),
            syn::Expr::Block(b) if b.label.is_none() => cx.crd_of_block(&b.block, e),
            syn::Expr::If(i) => {
                let Some((_, other)) = &i.else_branch else {
                    return Err(format!("`{}` is an `if` without `else`", tokens(e)));
                };
                let mut out = cx.crd_of_block(&i.then_branch, e)?;
                for k in cx.crd(other)? {
                    if !out.contains(&k) {
                        out.push(k);
                    }
                }
                Ok(out)
            }
            syn::Expr::Match(m) => {
                let mut out = Vec::new();
                for arm in &m.arms {
                    for k in cx.crd(&arm.body)? {
                        if !out.contains(&k) {
                            out.push(k);
                        }
                    }
                }
                Ok(out)
            }
            syn::Expr::Path(p) if p.qself.is_none() => match cx.local(&p.path)? {
                Some(init) => cx.crd(init),
                None => Err(format!("`{}` is not a `let` bound to a `Kind::crd()`", tokens(e))),
            },
            _ => Err(format!("`{}` is not a `Kind::crd()` call", tokens(e))),
        }
    }

    /// The `crd()` a block of one expression evaluates to.
    fn crd_of_block(&self, b: &syn::Block, whole: &syn::Expr) -> Result<Vec<VersionKey>, String> {
        match b.stmts.as_slice() {
            [syn::Stmt::Expr(tail, None)] => self.crd(tail),
            _ => Err(format!("`{}` is a block kubesmith does not run", tokens(whole))),
        }
    }
}

/// What the interpreter sees of the fn body a `merge_crds` call is written in: its `let`s where the call is (as Rust
/// scopes them), its `use`s, and the version of a kind a derive generates (`v2::Foo::version(&())`,
/// `v2::Foo::api_resource().version`), which no code of the sources spells out.
impl Outer for Cx<'_> {
    fn local(&self, p: &syn::Path) -> Result<Option<&syn::Expr>, String> {
        Cx::local(self, p)
    }

    fn uses(&self) -> &[UseEntry] {
        self.scope.map_or(&[], |s| &s.uses)
    }

    fn known(&self, e: &syn::Expr) -> Option<Result<String, String>> {
        let (call, wanted) = match e {
            syn::Expr::Call(c) => (c, "version"),
            syn::Expr::Field(f) => match (&*f.base, &f.member) {
                (syn::Expr::Call(c), syn::Member::Named(n)) if n == "version" => (c, "api_resource"),
                _ => return None,
            },
            _ => return None,
        };
        match self.callee(&call.func) {
            Some(Res::GeneratedAssoc(g, rest)) if rest == [wanted] => Some(self.version_of(g)),
            _ => None,
        }
    }
}

/// The storage version `e` (the second argument of a `merge_crds` call written where `cx` is) names, read by the one
/// interpreter of constant code, or why it cannot be read.
fn storage(cx: &Cx, e: &syn::Expr) -> Result<String, String> {
    let site = Site { module: cx.module, self_item: None, self_ty: cx.self_ty, before: &[], bound: &[] };
    Evaluator::values(cx.ix).strings().with_outer(cx).string_value(e, site).map_err(|e| {
        format!("{}: the argument is not a string literal, a const or a `let` bound to one kubesmith reads", e.reason())
    })
}

/// The elements' kind versions in order, each once.
fn flatten(elems: impl Iterator<Item = Result<Vec<VersionKey>, String>>) -> Result<Vec<VersionKey>, String> {
    let mut out = Vec::new();
    for e in elems {
        for k in e? {
            if !out.contains(&k) {
                out.push(k);
            }
        }
    }
    Ok(out)
}

fn is_path(e: &syn::Expr, want: &[&str]) -> bool {
    matches!(e, syn::Expr::Path(p) if p.qself.is_none() && path_segs(&p.path).iter().map(String::as_str).eq(want.iter().copied()))
}
