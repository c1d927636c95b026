//! Reading a body: the type of every block, statement, pattern, field access, expression, path, call and macro
//! argument, with locals bound in the frame; the calls met on the way are resolved and their needs recorded.

use std::collections::{BTreeMap, HashMap};

use syn::spanned::Spanned;

use super::needs::collect_policy_rules;
use super::{Engine, Frame, Instance};
use crate::rbac::infer::types::{FnRef, Scope, Ty, refine, segment_type_args};
use crate::source::lex::path_segs;
use crate::source::syntax::{UseEntry, flatten_use, unraw};
use crate::source::{ModKey, Res};

impl<'p> Engine<'p> {
    pub(super) fn block(&mut self, fr: &mut Frame, b: &syn::Block, expected: Option<&Ty>) -> Ty {
        fr.vars.push(HashMap::new());
        let uses_before = fr.scope.local_uses.len();
        for stmt in &b.stmts {
            if let syn::Stmt::Item(syn::Item::Use(u)) = stmt {
                let mut out: Vec<UseEntry> = Vec::new();
                flatten_use(&u.tree, &mut Vec::new(), &mut out);
                fr.scope.local_uses.extend(out);
            }
        }
        let mut last = Ty::Tuple(Vec::new());
        let n = b.stmts.len();
        for (i, stmt) in b.stmts.iter().enumerate() {
            last = match stmt {
                syn::Stmt::Local(l) => {
                    let declared = match &l.pat {
                        syn::Pat::Type(pt) => {
                            let s = fr.scope.clone();
                            Some(self.tcx().ty(&pt.ty, &s))
                        }
                        // What a later use of the local taught an earlier reading of this body.
                        syn::Pat::Ident(i) => {
                            let at = i.ident.span().start();
                            fr.hint(&unraw(&i.ident), (at.line, at.column)).cloned()
                        }
                        _ => None,
                    };
                    let init = match &l.init {
                        Some(init) => {
                            let t = self.expr(fr, &init.expr, declared.as_ref());
                            if let Some((_, diverge)) = &init.diverge {
                                self.expr(fr, diverge, None);
                            }
                            t
                        }
                        None => Ty::Unknown,
                    };
                    let ty = match declared {
                        Some(d) => refine(&d, &init),
                        None => init,
                    };
                    let pat = match &l.pat {
                        syn::Pat::Type(pt) => &*pt.pat,
                        p => p,
                    };
                    if let (syn::Pat::Ident(id), Some(init)) = (pat, &l.init) {
                        let mut found = Vec::new();
                        collect_policy_rules(&init.expr, &mut found, &mut false);
                        if !found.is_empty() {
                            fr.rule_inits.insert(unraw(&id.ident), (*init.expr).clone());
                        }
                    }
                    self.bind_pat(fr, pat, ty);
                    Ty::Tuple(Vec::new())
                }
                syn::Stmt::Expr(e, semi) => {
                    let exp = if i + 1 == n && semi.is_none() { expected } else { None };
                    let t = self.expr(fr, e, exp);
                    if semi.is_some() { Ty::Tuple(Vec::new()) } else { t }
                }
                syn::Stmt::Macro(m) => {
                    if may_call(&m.mac) {
                        self.macro_tokens(fr, &m.mac.tokens);
                    }
                    Ty::Unknown
                }
                syn::Stmt::Item(_) => Ty::Tuple(Vec::new()),
            };
        }
        fr.scope.local_uses.truncate(uses_before);
        fr.vars.pop();
        last
    }

    pub(super) fn bind_pat(&mut self, fr: &mut Frame, pat: &syn::Pat, ty: Ty) {
        match pat {
            syn::Pat::Ident(i) => {
                if let Some((_, sub)) = &i.subpat {
                    self.bind_pat(fr, sub, ty.clone());
                }
                let at = i.ident.span().start();
                fr.bind(unraw(&i.ident), (at.line, at.column), ty);
            }
            syn::Pat::Type(pt) => {
                let s = fr.scope.clone();
                let d = self.tcx().ty(&pt.ty, &s);
                self.bind_pat(fr, &pt.pat, refine(&d, &ty));
            }
            syn::Pat::Reference(r) => self.bind_pat(fr, &r.pat, ty),
            syn::Pat::Paren(p) => self.bind_pat(fr, &p.pat, ty),
            syn::Pat::Tuple(t) => {
                for (i, p) in t.elems.iter().enumerate() {
                    let elem = match &ty {
                        Ty::Tuple(v) => v.get(i).cloned().unwrap_or(Ty::Unknown),
                        _ => Ty::Unknown,
                    };
                    self.bind_pat(fr, p, elem);
                }
            }
            syn::Pat::TupleStruct(ts) => {
                let last = ts.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
                let inner = match (last.as_str(), ty.pointee()) {
                    ("Some" | "Ok", Ty::Ext(n, a)) if n == "Option" || n == "Result" => a.first().cloned(),
                    _ => None,
                };
                for p in &ts.elems {
                    self.bind_pat(fr, p, inner.clone().unwrap_or(Ty::Unknown));
                }
            }
            syn::Pat::Struct(ps) => {
                for f in &ps.fields {
                    let field_ty = match &f.member {
                        syn::Member::Named(n) => self.field_ty(&ty, &unraw(n)),
                        syn::Member::Unnamed(_) => Ty::Unknown,
                    };
                    self.bind_pat(fr, &f.pat, field_ty);
                }
            }
            syn::Pat::Or(o) => {
                for p in &o.cases {
                    self.bind_pat(fr, p, ty.clone());
                }
            }
            syn::Pat::Slice(s) => {
                for p in &s.elems {
                    self.bind_pat(fr, p, Ty::Unknown);
                }
            }
            _ => {}
        }
    }

    /// The type of field `name` of a struct type (through smart pointers).
    pub(super) fn field_ty(&mut self, base: &Ty, name: &str) -> Ty {
        let prog = self.prog;
        // A type of the sources with a hand-written resource impl is a kind with that type's fields.
        let own = match base.pointee() {
            Ty::Kind(id) => self.kinds.item_of.get(id).map(|k| Ty::Adt(*k, Vec::new())),
            _ => None,
        };
        match own.as_ref().unwrap_or(base.pointee()) {
            Ty::Adt(key, args) => {
                let key = *key;
                let args = args.clone();
                let syn::Item::Struct(s) = prog.item(key) else { return Ty::Unknown };
                let mut scope = Scope { at: ModKey { krate: key.krate, module: key.module }, ..Scope::default() };
                for (i, p) in s.generics.type_params().enumerate() {
                    scope.generics.insert(p.ident.to_string(), args.get(i).cloned().unwrap_or(Ty::Unknown));
                }
                let field = s.fields.iter().enumerate().find(|(i, f)| match &f.ident {
                    Some(id) => unraw(id) == name,
                    None => i.to_string() == name,
                });
                match field {
                    Some((_, f)) => self.item_type(&f.ty, &scope),
                    None => Ty::Unknown,
                }
            }
            Ty::Kind(id) if name == "spec" => match self.kinds.spec_of.get(id) {
                Some(k) => Ty::Adt(*k, Vec::new()),
                None => Ty::Unknown,
            },
            Ty::Tuple(v) => name.parse::<usize>().ok().and_then(|i| v.get(i).cloned()).unwrap_or(Ty::Unknown),
            // kube's `DeserializeGuard<K>(pub Result<K, InvalidObject>)`
            Ty::Ext(n, a) if n == "DeserializeGuard" && name == "0" => {
                Ty::ext("Result", vec![a.first().cloned().unwrap_or(Ty::Unknown)])
            }
            _ => Ty::Unknown,
        }
    }

    pub(super) fn exprs<'a>(&mut self, fr: &mut Frame, es: impl IntoIterator<Item = &'a syn::Expr>) -> Vec<Ty> {
        es.into_iter().map(|e| self.expr(fr, e, None)).collect()
    }

    pub(super) fn line(e: &impl Spanned) -> usize {
        e.span().start().line
    }

    #[allow(clippy::too_many_lines)]
    pub(super) fn expr(&mut self, fr: &mut Frame, e: &syn::Expr, expected: Option<&Ty>) -> Ty {
        use syn::Expr;
        match e {
            Expr::Path(p) => {
                let t = self.path_value(fr, &p.path);
                // A local used where a sharper type is expected (`let Some(cm): Option<ConfigMap> = cm else ..`)
                // is that type: its earlier uses see it in a second reading.
                match (expected, p.path.get_ident()) {
                    (Some(e), Some(id)) if p.qself.is_none() => {
                        let sharper = refine(&t, e);
                        let name = unraw(id);
                        if sharper != t && fr.var(&name).is_some() && super::vagueness(&sharper) < super::vagueness(&t)
                        {
                            fr.update(&name, sharper.clone());
                            return sharper;
                        }
                        t
                    }
                    _ => t,
                }
            }
            Expr::Call(c) => self.call_expr(fr, c, expected),
            Expr::MethodCall(m) => self.method_call(fr, m, expected),
            Expr::Field(f) => {
                let base = self.expr(fr, &f.base, None);
                match &f.member {
                    syn::Member::Named(n) => self.field_ty(&base, &unraw(n)),
                    syn::Member::Unnamed(i) => self.field_ty(&base, &i.index.to_string()),
                }
            }
            Expr::Await(a) => self.expr(fr, &a.base, expected),
            Expr::Try(t) => {
                let wrapped = expected.map(|e| Ty::ext("Result", vec![e.clone()]));
                self.expr(fr, &t.expr, wrapped.as_ref()).unwrap_try()
            }
            Expr::Reference(r) => self.expr(fr, &r.expr, expected),
            Expr::Paren(p) => self.expr(fr, &p.expr, expected),
            Expr::Group(g) => self.expr(fr, &g.expr, expected),
            Expr::Unary(u) => {
                let t = self.expr(fr, &u.expr, None);
                if matches!(u.op, syn::UnOp::Deref(_)) { t.pointee().clone() } else { t }
            }
            Expr::Cast(c) => {
                self.expr(fr, &c.expr, None);
                let s = fr.scope.clone();
                self.tcx().ty(&c.ty, &s)
            }
            Expr::Block(b) => self.block(fr, &b.block, expected),
            Expr::Async(a) => self.block(fr, &a.block, None),
            Expr::Unsafe(u) => self.block(fr, &u.block, expected),
            Expr::Const(c) => self.block(fr, &c.block, expected),
            Expr::TryBlock(t) => self.block(fr, &t.block, None),
            Expr::Loop(l) => {
                self.block(fr, &l.body, None);
                Ty::Unknown
            }
            Expr::While(w) => {
                fr.vars.push(HashMap::new());
                self.expr(fr, &w.cond, None);
                self.block(fr, &w.body, None);
                fr.vars.pop();
                Ty::Tuple(Vec::new())
            }
            Expr::ForLoop(f) => {
                let it = self.expr(fr, &f.expr, None);
                let elem = match it.pointee() {
                    Ty::Ext(n, a)
                        if matches!(
                            n.as_str(),
                            "Vec" | "ObjectList" | "Option" | "VecDeque" | "HashSet" | "BTreeSet"
                        ) =>
                    {
                        a.first().cloned().unwrap_or(Ty::Unknown)
                    }
                    _ => Ty::Unknown,
                };
                fr.vars.push(HashMap::new());
                self.bind_pat(fr, &f.pat, elem);
                self.block(fr, &f.body, None);
                fr.vars.pop();
                Ty::Tuple(Vec::new())
            }
            Expr::If(i) => {
                fr.vars.push(HashMap::new());
                self.expr(fr, &i.cond, None);
                let t = self.block(fr, &i.then_branch, expected);
                fr.vars.pop();
                let t2 = match &i.else_branch {
                    Some((_, e)) => self.expr(fr, e, expected),
                    None => Ty::Unknown,
                };
                if t.is_unknown() { t2 } else { t }
            }
            Expr::Let(l) => {
                let t = self.expr(fr, &l.expr, None);
                self.bind_pat(fr, &l.pat, t);
                Ty::Unknown
            }
            Expr::Match(m) => {
                let t = self.expr(fr, &m.expr, None);
                let mut out = Ty::Unknown;
                for arm in &m.arms {
                    fr.vars.push(HashMap::new());
                    self.bind_pat(fr, &arm.pat, t.clone());
                    if let Some((_, g)) = &arm.guard {
                        self.expr(fr, g, None);
                    }
                    let a = self.expr(fr, &arm.body, expected);
                    fr.vars.pop();
                    if out.is_unknown() {
                        out = a;
                    }
                }
                out
            }
            Expr::Closure(c) => {
                self.closure(fr, c, &[]);
                Ty::Unknown
            }
            Expr::Return(r) => {
                if let Some(v) = &r.expr {
                    let ret = fr.ret.clone();
                    self.expr(fr, v, Some(&ret));
                }
                Ty::Unknown
            }
            Expr::Break(b) => {
                if let Some(v) = &b.expr {
                    self.expr(fr, v, None);
                }
                Ty::Unknown
            }
            Expr::Yield(y) => {
                if let Some(v) = &y.expr {
                    self.expr(fr, v, None);
                }
                Ty::Unknown
            }
            Expr::Assign(a) => {
                let left = self.expr(fr, &a.left, None);
                let right = self.expr(fr, &a.right, Some(&left));
                if let Expr::Path(p) = &*a.left
                    && let Some(id) = p.path.get_ident()
                    && left.is_vague()
                    && !right.is_unknown()
                {
                    fr.update(&id.to_string(), refine(&left, &right));
                }
                Ty::Tuple(Vec::new())
            }
            Expr::Binary(b) => {
                self.expr(fr, &b.left, None);
                self.expr(fr, &b.right, None);
                Ty::Unknown
            }
            Expr::Index(i) => {
                let base = self.expr(fr, &i.expr, None);
                self.expr(fr, &i.index, None);
                match base.pointee() {
                    Ty::Ext(n, a) if n == "Vec" => a.first().cloned().unwrap_or(Ty::Unknown),
                    _ => Ty::Unknown,
                }
            }
            Expr::Range(r) => {
                for x in r.start.iter().chain(r.end.iter()) {
                    self.expr(fr, x, None);
                }
                Ty::Unknown
            }
            Expr::Array(a) => {
                let ts = self.exprs(fr, &a.elems);
                Ty::ext("Vec", vec![ts.into_iter().find(|t| !t.is_unknown()).unwrap_or(Ty::Unknown)])
            }
            Expr::Repeat(r) => {
                let t = self.expr(fr, &r.expr, None);
                self.expr(fr, &r.len, None);
                Ty::ext("Vec", vec![t])
            }
            Expr::Tuple(t) => Ty::Tuple(self.exprs(fr, &t.elems)),
            Expr::Struct(s) => {
                let segs = path_segs(&s.path);
                let ty = if segs.len() == 1 && segs[0] == "Self" {
                    fr.scope.self_ty.clone().unwrap_or(Ty::Unknown)
                } else {
                    match self.prog.resolve(fr.scope.at, &segs, &fr.scope.local_uses) {
                        Res::Item(k) => self.tcx().item_ty(k, Vec::new(), 0),
                        Res::Generated(g) => self.kinds.by_generated.get(&g).map_or(Ty::Unknown, |k| Ty::Kind(*k)),
                        Res::External(full) => {
                            let s = fr.scope.clone();
                            self.tcx().external_ty(&segs, &full, Vec::new(), &s)
                        }
                        _ => Ty::Unknown,
                    }
                };
                let ty = match (&ty, expected) {
                    (Ty::Adt(k, a), Some(Ty::Adt(k2, a2))) if k == k2 && a.is_empty() => Ty::Adt(*k, a2.clone()),
                    _ => ty,
                };
                for f in &s.fields {
                    let ft = match &f.member {
                        syn::Member::Named(n) => self.field_ty(&ty, &unraw(n)),
                        syn::Member::Unnamed(i) => self.field_ty(&ty, &i.index.to_string()),
                    };
                    self.expr(fr, &f.expr, Some(&ft));
                }
                if let Some(rest) = &s.rest {
                    self.expr(fr, rest, None);
                }
                if segs.last().is_some_and(|l| l == "OwnerReference") {
                    self.owner_reference(fr, s);
                }
                if segs.last().is_some_and(|l| l == "RoleRef") {
                    self.role_ref(fr, s);
                }
                ty
            }
            Expr::Macro(m) => {
                if may_call(&m.mac) {
                    self.macro_tokens(fr, &m.mac.tokens);
                }
                // `format!("/api/v1/nodes/{name}/proxy", ..)`: the template's text
                if m.mac.path.is_ident("format")
                    && let Some(proc_macro2::TokenTree::Literal(l)) = m.mac.tokens.clone().into_iter().next()
                    && let Ok(syn::Lit::Str(s)) = syn::parse_str::<syn::Lit>(&l.to_string())
                {
                    return Ty::Str(s.value());
                }
                Ty::Unknown
            }
            Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Ty::Str(s.value()),
            _ => Ty::Unknown,
        }
    }

    /// Expressions inside a macro call (`tokio::join!(a(), b())`, `vec![..]`, `select! { x = f() => .. }`).
    pub(super) fn macro_tokens(&mut self, fr: &mut Frame, tokens: &proc_macro2::TokenStream) {
        use syn::parse::Parser;
        let parsed = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated.parse2(tokens.clone());
        if let Ok(list) = parsed {
            for e in list {
                let e: &syn::Expr = Box::leak(Box::new(e));
                self.expr(fr, e, None);
            }
            return;
        }
        if let Ok(stmts) = syn::Block::parse_within.parse2(tokens.clone()) {
            let block = syn::Block { brace_token: Default::default(), stmts };
            self.block(fr, &block, None);
            return;
        }
        // Split at top-level `,`, `;`, `=>` and `=`, and read each piece that parses.
        let mut chunk = proc_macro2::TokenStream::new();
        let mut chunks = Vec::new();
        let tokens: Vec<proc_macro2::TokenTree> = tokens.clone().into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            let t = &tokens[i];
            let split = match t {
                proc_macro2::TokenTree::Punct(p) => match p.as_char() {
                    ',' | ';' => true,
                    '=' if p.spacing() == proc_macro2::Spacing::Joint
                        && matches!(tokens.get(i + 1), Some(proc_macro2::TokenTree::Punct(q)) if q.as_char() == '>') =>
                    {
                        i += 1;
                        true
                    }
                    '=' if p.spacing() == proc_macro2::Spacing::Alone => true,
                    _ => false,
                },
                _ => false,
            };
            if split {
                chunks.push(std::mem::take(&mut chunk));
            } else {
                chunk.extend(std::iter::once(t.clone()));
            }
            i += 1;
        }
        chunks.push(chunk);
        for c in chunks {
            if let Ok(e) = syn::parse2::<syn::Expr>(c.clone()) {
                let e: &syn::Expr = Box::leak(Box::new(e));
                self.expr(fr, e, None);
            } else if let Some(proc_macro2::TokenTree::Group(g)) = c.into_iter().last() {
                self.macro_tokens(fr, &g.stream());
            }
        }
    }

    /// A path used as a value: a local, a fn (made reachable), a const or static.
    pub(super) fn path_value(&mut self, fr: &mut Frame, path: &syn::Path) -> Ty {
        if let Some(id) = path.get_ident()
            && let Some(t) = fr.var(&unraw(id))
        {
            return t.clone();
        }
        let segs = path_segs(path);
        match self.prog.resolve(fr.scope.at, &segs, &fr.scope.local_uses) {
            Res::Item(key) => match self.prog.item(key) {
                syn::Item::Fn(_) => {
                    let f = FnRef::Free(key);
                    self.push(Instance { f, self_ty: None, generics: BTreeMap::new(), params: Vec::new() });
                    Ty::Fn(f)
                }
                syn::Item::Const(c) => {
                    let s = Scope { at: ModKey { krate: key.krate, module: key.module }, ..Scope::default() };
                    self.tcx().ty(&c.ty, &s)
                }
                syn::Item::Static(st) => {
                    let s = Scope { at: ModKey { krate: key.krate, module: key.module }, ..Scope::default() };
                    self.tcx().ty(&st.ty, &s)
                }
                syn::Item::Struct(_) => Ty::Adt(key, Vec::new()),
                _ => Ty::Unknown,
            },
            Res::Assoc(key, rest) if rest.len() == 1 => {
                // `Type::method` as a value.
                let recv = self.tcx().item_ty(key, Vec::new(), 0);
                let found = self.methods(fr, &recv, &rest[0]);
                let mut out = Ty::Unknown;
                for (f, self_ty, generics) in found {
                    self.push(Instance { f, self_ty, generics, params: Vec::new() });
                    out = Ty::Fn(f);
                }
                out
            }
            Res::External(full) => match full.last() {
                // kube-runtime's `watcher` handed to a helper that calls it: the call lists and watches.
                Some(f) if crate::rbac::infer::kube_api::is_list_watch_fn(f) => Ty::ExtFn(f.clone()),
                _ => Ty::Unknown,
            },
            _ if segs.first().is_some_and(|s| s == "Self") && segs.len() == 2 => {
                let recv = fr.scope.self_ty.clone().unwrap_or(Ty::Unknown);
                let found = self.methods(fr, &recv, &segs[1]);
                let mut out = Ty::Unknown;
                for (f, self_ty, generics) in found {
                    self.push(Instance { f, self_ty, generics, params: Vec::new() });
                    out = Ty::Fn(f);
                }
                out
            }
            _ => Ty::Unknown,
        }
    }

    pub(super) fn call_expr(&mut self, fr: &mut Frame, c: &syn::ExprCall, expected: Option<&Ty>) -> Ty {
        let syn::Expr::Path(fp) = &*c.func else {
            let f = self.expr(fr, &c.func, None);
            let args = self.exprs(fr, &c.args);
            return self.call_value(fr, f, &args, Self::line(c));
        };
        let path = &fp.path;
        // A local holding a fn value or a closure.
        if let Some(id) = path.get_ident()
            && let Some(t) = fr.var(&unraw(id)).cloned()
        {
            let args = self.exprs(fr, &c.args);
            return self.call_value(fr, t, &args, Self::line(c));
        }
        let segs = path_segs(path);
        let turbofish: Vec<Ty> = {
            let s = fr.scope.clone();
            let last = path.segments.last();
            last.map(|l| segment_type_args(l).into_iter().map(|t| self.tcx().ty(t, &s)).collect()).unwrap_or_default()
        };
        // Parameter types guide the arguments (`f(Api::all(c))` with `f(api: Api<Pod>)`).
        let args: Vec<Ty> = c.args.iter().map(|a| self.expr(fr, a, None)).collect();
        let res = if segs.first().is_some_and(|s| s == "Self") && segs.len() == 2 {
            None
        } else {
            Some(self.prog.resolve(fr.scope.at, &segs, &fr.scope.local_uses))
        };
        match res {
            Some(Res::Item(key)) => match self.prog.item(key) {
                syn::Item::Fn(_) => {
                    self.call_expecting(FnRef::Free(key), None, BTreeMap::new(), &args, &turbofish, expected)
                }
                syn::Item::Struct(_) => Ty::Adt(key, Vec::new()),
                _ => Ty::Unknown,
            },
            Some(Res::Assoc(key, rest)) => {
                let type_args: Vec<Ty> = {
                    let s = fr.scope.clone();
                    let n = path.segments.len();
                    if n >= 2 {
                        segment_type_args(&path.segments[n - 2]).into_iter().map(|t| self.tcx().ty(t, &s)).collect()
                    } else {
                        Vec::new()
                    }
                };
                match self.prog.item(key) {
                    syn::Item::Enum(_) => Ty::Adt(key, type_args),
                    syn::Item::Trait(_) => {
                        // `Trait::method(recv, ..)`: dispatch on the first argument.
                        let recv = args.first().cloned().unwrap_or(Ty::Unknown);
                        self.dispatch(fr, &recv, &rest[rest.len() - 1], &args[1.min(args.len())..], &turbofish)
                    }
                    _ => {
                        let recv = self.tcx().item_ty(key, type_args, 0);
                        self.assoc_call(fr, &recv, &rest[rest.len() - 1], &args, &turbofish)
                    }
                }
            }
            Some(Res::GeneratedAssoc(g, rest)) => {
                let kind = self.kinds.by_generated.get(&g).copied();
                let recv = kind.map_or(Ty::Unknown, Ty::Kind);
                let name = rest[rest.len() - 1].as_str();
                match name {
                    "new" => recv,
                    "api_resource" => Ty::ApiResource(kind),
                    _ => self.assoc_call(fr, &recv, name, &args, &turbofish),
                }
            }
            None => {
                let recv = fr.scope.self_ty.clone().unwrap_or(Ty::Unknown);
                self.assoc_call(fr, &recv, &segs[1], &args, &turbofish)
            }
            Some(Res::External(full)) => {
                self.escape(&args);
                self.external_call(fr, c, path, &full, &args, &turbofish, expected)
            }
            Some(_) => Ty::Unknown,
        }
    }
}

impl Engine<'_> {
    /// Reads a closure where it is written, its inputs of types `inputs` (unknown past them); gives its body's type.
    pub(super) fn closure(&mut self, fr: &mut Frame, c: &syn::ExprClosure, inputs: &[Ty]) -> Ty {
        fr.vars.push(HashMap::new());
        for (i, input) in c.inputs.iter().enumerate() {
            self.bind_pat(fr, input, inputs.get(i).cloned().unwrap_or(Ty::Unknown));
        }
        let t = self.expr(fr, &c.body, None);
        fr.vars.pop();
        t
    }

    /// Calling a value: a fn of the sources, or kube-runtime's `watcher`/`metadata_watcher` passed as a value
    /// (`stream_fn(api, cfg)` lists and watches `api`'s resource).
    fn call_value(&mut self, fr: &mut Frame, f: Ty, args: &[Ty], line: usize) -> Ty {
        match f {
            Ty::Fn(r) => self.call(r, None, BTreeMap::new(), args, &[]),
            Ty::ExtFn(name) => {
                let api = args.first().cloned().unwrap_or(Ty::Unknown);
                self.need_api(fr, &api, &[("", &["list", "watch"])], line, &name);
                Ty::Unknown
            }
            _ => Ty::Unknown,
        }
    }
}

/// Whether a macro's arguments may hold calls that matter: not logging, formatting or assertions, whose
/// arguments are values to print (re-parsing them on every walk was most of the walk's time).
pub(super) fn may_call(m: &syn::Macro) -> bool {
    let name = m.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
    !matches!(
        name.as_str(),
        "info"
            | "debug"
            | "warn"
            | "error"
            | "trace"
            | "event"
            | "span"
            | "info_span"
            | "debug_span"
            | "format"
            | "format_args"
            | "print"
            | "println"
            | "eprint"
            | "eprintln"
            | "write"
            | "writeln"
            | "panic"
            | "assert"
            | "assert_eq"
            | "assert_ne"
            | "debug_assert"
            | "debug_assert_eq"
            | "unreachable"
            | "todo"
            | "unimplemented"
            | "json"
            | "concat"
            | "stringify"
            | "include_str"
            | "env"
            | "matches"
            | "bail"
            | "anyhow"
            | "ensure"
    )
}
