//! Statements of custom schema code and the places they edit: `let` bindings, returns, `if let Some(o) =
//! x.as_object_mut()`, and the edits kubesmith can follow (`insert`, `remove`, `extend`, `push`,
//! `ensure_object()`, `x["k"] = v`) on a local or a field of one.

use proc_macro2::Span;
use serde_json::{Map, Value};
use syn::spanned::Spanned;
use syn::{Expr, Stmt};

use super::{
    Code, Evaluator, Frame, Local, Out, Place, Res, Seg, Val, describe, ensure_object, is_edit, is_place_expr, kind,
    strip,
};

impl<C: Code> Evaluator<'_, '_, C> {
    pub(super) fn block(&mut self, f: &mut Frame<C>, b: &syn::Block) -> Res<Out, C> {
        let mark = f.locals.len();
        let out = self.stmts(f, &b.stmts);
        f.locals.truncate(mark);
        out
    }

    pub(super) fn stmts(&mut self, f: &mut Frame<C>, stmts: &[Stmt]) -> Res<Out, C> {
        for (i, stmt) in stmts.iter().enumerate() {
            let last = i + 1 == stmts.len();
            match stmt {
                Stmt::Local(l) => self.local(f, l)?,
                Stmt::Item(syn::Item::Use(_)) => {}
                Stmt::Item(item) => return Err(self.needs(f.module, item.span(), "an item declared inside the fn")),
                Stmt::Expr(Expr::If(i), None) if last && i.else_branch.is_some() => {
                    return Err(self.needs(f.module, i.if_token.span, "an `if .. else` giving the value"));
                }
                Stmt::Expr(e, None) if last && !matches!(strip(e), Expr::If(_) | Expr::ForLoop(_) | Expr::While(_)) => {
                    if let Expr::Return(r) = strip(e) {
                        return self.ret(f, r);
                    }
                    return Ok(Out::Value(self.expr(f, e)?));
                }
                Stmt::Expr(e, _) => {
                    if let Out::Return(v) = self.stmt_expr(f, e)? {
                        return Ok(Out::Return(v));
                    }
                }
                Stmt::Macro(m) if last && m.semi_token.is_none() => {
                    return Ok(Out::Value(self.mac(f, &m.mac)?));
                }
                Stmt::Macro(m) => {
                    // A value macro as a statement does nothing; any other macro is code.
                    self.mac(f, &m.mac)?;
                }
            }
        }
        Ok(Out::Unit)
    }

    pub(super) fn ret(&mut self, f: &mut Frame<C>, r: &syn::ExprReturn) -> Res<Out, C> {
        Ok(Out::Return(match &r.expr {
            Some(e) => self.expr(f, e)?,
            None => Val::Json(Value::Null),
        }))
    }

    pub(super) fn local(&mut self, f: &mut Frame<C>, l: &syn::Local) -> Res<(), C> {
        if l.init.as_ref().is_some_and(|i| i.diverge.is_some()) {
            return Err(self.needs(f.module, l.span(), "a `let .. else`"));
        }
        let pat = match &l.pat {
            syn::Pat::Type(pt) => &*pt.pat,
            p => p,
        };
        let Some(init) = &l.init else {
            return Err(self.needs(f.module, l.span(), "a `let` without a value"));
        };
        match pat {
            syn::Pat::Ident(pi) if pi.subpat.is_none() => {
                let local = if is_place_expr(&init.expr) {
                    Local::Alias(self.place(f, &init.expr)?)
                } else {
                    Local::Val(self.expr(f, &init.expr)?)
                };
                f.locals.push((crate::source::syntax::unraw(&pi.ident), local));
                Ok(())
            }
            syn::Pat::Wild(_) => self.stmt_expr(f, &init.expr).map(|_| ()),
            other => Err(self.needs(f.module, other.span(), "a `let` pattern")),
        }
    }

    /// An expression statement: an edit, an assignment, `if let`, `return`, a nested block.
    pub(super) fn stmt_expr(&mut self, f: &mut Frame<C>, e: &Expr) -> Res<Out, C> {
        match strip(e) {
            Expr::Return(r) => self.ret(f, r),
            Expr::Assign(a) => {
                let place = self.place(f, &a.left)?;
                let v = self.json(f, &a.right)?;
                *self.place_mut(f, &place, a.left.span())? = v;
                Ok(Out::Unit)
            }
            Expr::MethodCall(mc) if is_edit(&mc.method.to_string()) => {
                self.edit(f, mc)?;
                Ok(Out::Unit)
            }
            Expr::If(i) => self.if_let(f, i),
            Expr::Block(b) if b.label.is_none() => match self.block(f, &b.block)? {
                Out::Return(v) => Ok(Out::Return(v)),
                _ => Ok(Out::Unit),
            },
            Expr::Macro(m) => {
                self.mac(f, &m.mac)?;
                Ok(Out::Unit)
            }
            // A crate fn called for its effect: evaluated like any call (an edit through `&mut` stops there).
            Expr::Call(_) => {
                self.expr(f, e)?;
                Ok(Out::Unit)
            }
            other => Err(self.needs(f.module, other.span(), describe(other))),
        }
    }

    /// `if let Some(o) = x.as_object_mut() { .. } [else { .. }]` (also `as_array_mut()`, `get_mut("k")`).
    pub(super) fn if_let(&mut self, f: &mut Frame<C>, i: &syn::ExprIf) -> Res<Out, C> {
        let Expr::Let(l) = strip(&i.cond) else {
            return Err(self.needs(f.module, i.cond.span(), "an `if` on a condition"));
        };
        let name = match &*l.pat {
            syn::Pat::TupleStruct(ts) if ts.path.is_ident("Some") && ts.elems.len() == 1 => match &ts.elems[0] {
                syn::Pat::Ident(pi) if pi.subpat.is_none() => Some(crate::source::syntax::unraw(&pi.ident)),
                syn::Pat::Wild(_) => None,
                other => return Err(self.needs(f.module, other.span(), "an `if let` pattern")),
            },
            other => return Err(self.needs(f.module, other.span(), "an `if let` pattern other than `Some(x)`")),
        };
        let Expr::MethodCall(mc) = strip(&l.expr) else {
            return Err(self.needs(f.module, l.expr.span(), describe(&l.expr)));
        };
        let method = mc.method.to_string();
        let base = self.place(f, &mc.receiver)?;
        let found = match (method.as_str(), mc.args.len()) {
            ("as_object_mut", 0) => matches!(self.read(f, &base), Some(Value::Object(_))).then_some(base),
            ("as_array_mut", 0) => matches!(self.read(f, &base), Some(Value::Array(_))).then_some(base),
            ("get_mut", 1) => {
                let key = self.key(f, &mc.args[0])?;
                let has = match (self.read(f, &base), &key) {
                    (Some(Value::Object(o)), Seg::Key(k)) => o.contains_key(k),
                    (Some(Value::Array(a)), Seg::Index(n)) => *n < a.len(),
                    _ => false,
                };
                has.then(|| {
                    let mut p = base;
                    p.path.push(key);
                    p
                })
            }
            _ => return Err(self.needs(f.module, mc.method.span(), format!("`if let` on `.{method}()`"))),
        };
        let branch = match found {
            Some(place) => {
                let mark = f.locals.len();
                if let Some(name) = name {
                    f.locals.push((name, Local::Alias(place)));
                }
                let out = self.block(f, &i.then_branch);
                f.locals.truncate(mark);
                out?
            }
            None => match &i.else_branch {
                Some((_, e)) => self.stmt_expr(f, e)?,
                None => Out::Unit,
            },
        };
        Ok(match branch {
            Out::Return(v) => Out::Return(v),
            _ => Out::Unit,
        })
    }

    /// `x.insert(k, v)`, `x.remove(k)`, `x.extend(..)`, `x.push(v)`, `x.clear()`, `x.ensure_object()`,
    /// `x.entry(k).or_insert(v)`.
    pub(super) fn edit(&mut self, f: &mut Frame<C>, mc: &syn::ExprMethodCall) -> Res<(), C> {
        let module = f.module;
        let method = mc.method.to_string();
        let span = mc.method.span();
        if matches!(method.as_str(), "ensure_object" | "or_insert" | "or_default") {
            self.place(f, &Expr::MethodCall(mc.clone()))?;
            return Ok(());
        }
        let place = self.place(f, &mc.receiver)?;
        let args: Vec<&Expr> = mc.args.iter().collect();
        match (method.as_str(), args.as_slice()) {
            ("insert", [k, v]) => {
                let k = self.string(f, k)?;
                let v = self.json(f, v)?;
                match self.place_mut(f, &place, span)? {
                    target @ (Value::Object(_) | Value::Bool(_)) => {
                        if let Some(o) = ensure_object(target) {
                            o.insert(k, v);
                        }
                        Ok(())
                    }
                    other => Err(self.needs(module, span, format!("`.insert` on {}", kind(other)))),
                }
            }
            ("remove" | "shift_remove" | "swap_remove", [k]) => {
                let key = self.key(f, k)?;
                match (self.place_mut(f, &place, span)?, key) {
                    (Value::Object(o), Seg::Key(k)) => {
                        o.remove(&k);
                        Ok(())
                    }
                    (Value::Bool(_), Seg::Key(_)) => Ok(()),
                    (Value::Array(a), Seg::Index(n)) if n < a.len() => {
                        a.remove(n);
                        Ok(())
                    }
                    _ => Err(self.fails(f.module, span, "`.remove` of something that is not there")),
                }
            }
            ("extend" | "append", [arg]) => {
                let items = self.extend_items(f, arg)?;
                match (self.place_mut(f, &place, span)?, items) {
                    (target @ (Value::Object(_) | Value::Bool(_)), Value::Object(more)) => {
                        if let Some(o) = ensure_object(target) {
                            o.extend(more);
                        }
                        Ok(())
                    }
                    (Value::Array(a), Value::Array(more)) => {
                        a.extend(more);
                        Ok(())
                    }
                    _ => Err(self.needs(f.module, arg.span(), "`.extend` with values of another kind")),
                }
            }
            ("push", [v]) => {
                let v = self.json(f, v)?;
                match self.place_mut(f, &place, span)? {
                    Value::Array(a) => {
                        a.push(v);
                        Ok(())
                    }
                    other => Err(self.needs(module, span, format!("`.push` on {}", kind(other)))),
                }
            }
            ("clear", []) => {
                match self.place_mut(f, &place, span)? {
                    Value::Object(o) => o.clear(),
                    Value::Array(a) => a.clear(),
                    Value::String(s) => s.clear(),
                    _ => {}
                }
                Ok(())
            }
            _ => Err(self.needs(f.module, span, format!("`.{method}()` with {} arguments", args.len()))),
        }
    }

    /// The argument of `extend`: an object (a map), or an array of values or of `(key, value)` pairs.
    pub(super) fn extend_items(&mut self, f: &mut Frame<C>, arg: &Expr) -> Res<Value, C> {
        let pairs: Option<Vec<&Expr>> = match strip(arg) {
            Expr::Array(a) => Some(a.elems.iter().collect()),
            Expr::Macro(m) if m.mac.path.is_ident("vec") => None,
            _ => None,
        };
        if let Some(elems) =
            pairs.filter(|e| e.iter().all(|x| matches!(strip(x), Expr::Tuple(t) if t.elems.len() == 2)))
        {
            let mut out = Map::new();
            for el in elems {
                if let Expr::Tuple(t) = strip(el) {
                    let k = self.string(f, &t.elems[0])?;
                    let v = self.json(f, &t.elems[1])?;
                    out.insert(k, v);
                }
            }
            return Ok(Value::Object(out));
        }
        self.json(f, arg)
    }

    /// A mutable location (`x`, `x["k"]`, `x.ensure_object()`, `x.as_object_mut().unwrap()`,
    /// `x.get_mut("k").unwrap()`, `x.entry("k").or_insert(v)`, `&mut x`, `*x`).
    pub(super) fn place(&mut self, f: &mut Frame<C>, e: &Expr) -> Res<Place, C> {
        let module = f.module;
        match strip(e) {
            Expr::Reference(r) => self.place(f, &r.expr),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.place(f, &u.expr),
            Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
                let name = p.path.segments[0].ident.to_string();
                match f.lookup(&name).map(|i| (i, &f.locals[i].1)) {
                    Some((i, Local::Val(Val::Json(_)))) => Ok(Place { root: i, path: Vec::new() }),
                    Some((_, Local::Alias(place))) => Ok(place.clone()),
                    _ => Err(self.needs(f.module, p.span(), format!("`{name}` is not a local JSON value"))),
                }
            }
            // schemars 0.8's `SchemaObject::extensions`: the keys no typed field holds, in the schema object itself
            Expr::Field(fe)
                if self.ix.schemars_08() && matches!(&fe.member, syn::Member::Named(n) if n == "extensions") =>
            {
                self.place(f, &fe.base)
            }
            Expr::Index(ix) => {
                let mut place = self.place(f, &ix.expr)?;
                let key = self.key(f, &ix.index)?;
                place.path.push(key);
                Ok(place)
            }
            Expr::MethodCall(mc) => {
                let method = mc.method.to_string();
                let span = mc.method.span();
                match (method.as_str(), mc.args.len()) {
                    ("unwrap" | "expect", _) => {
                        let Expr::MethodCall(inner) = strip(&mc.receiver) else {
                            return Err(self.needs(f.module, mc.receiver.span(), describe(&mc.receiver)));
                        };
                        let base = self.place(f, &inner.receiver)?;
                        let inner_method = inner.method.to_string();
                        match (inner_method.as_str(), inner.args.len()) {
                            ("as_object_mut", 0) | ("as_array_mut", 0) => {
                                let ok = match self.read(f, &base) {
                                    Some(Value::Object(_)) => inner_method == "as_object_mut",
                                    Some(Value::Array(_)) => inner_method == "as_array_mut",
                                    _ => false,
                                };
                                if ok {
                                    Ok(base)
                                } else {
                                    Err(self.fails(
                                        f.module,
                                        span,
                                        format!("`.{inner_method}().{method}()` on a value of another kind"),
                                    ))
                                }
                            }
                            ("get_mut", 1) => {
                                let key = self.key(f, &inner.args[0])?;
                                let present = match (self.read(f, &base), &key) {
                                    (Some(Value::Object(o)), Seg::Key(k)) => o.contains_key(k),
                                    (Some(Value::Array(a)), Seg::Index(n)) => *n < a.len(),
                                    _ => false,
                                };
                                if !present {
                                    return Err(self.fails(
                                        f.module,
                                        span,
                                        "`.get_mut(..).unwrap()` of a key that is not there",
                                    ));
                                }
                                let mut p = base;
                                p.path.push(key);
                                Ok(p)
                            }
                            _ => Err(self.needs(
                                f.module,
                                inner.method.span(),
                                format!("`.{inner_method}().{method}()`"),
                            )),
                        }
                    }
                    ("ensure_object", 0) => {
                        let base = self.place(f, &mc.receiver)?;
                        match self.place_mut(f, &base, span)? {
                            target @ (Value::Object(_) | Value::Bool(_)) => {
                                ensure_object(target);
                                Ok(base)
                            }
                            other => Err(self.needs(module, span, format!("`.ensure_object()` on {}", kind(other)))),
                        }
                    }
                    ("or_insert" | "or_default", n) if n <= 1 => {
                        let Expr::MethodCall(entry) = strip(&mc.receiver) else {
                            return Err(self.needs(f.module, mc.receiver.span(), describe(&mc.receiver)));
                        };
                        if entry.method != "entry" || entry.args.len() != 1 {
                            return Err(self.needs(
                                f.module,
                                entry.method.span(),
                                format!("`.{}().{method}()`", entry.method),
                            ));
                        }
                        let mut base = self.place(f, &entry.receiver)?;
                        let k = self.string(f, &entry.args[0])?;
                        let v = match mc.args.first() {
                            Some(a) => self.json(f, a)?,
                            None => Value::Null,
                        };
                        match self.place_mut(f, &base, span)? {
                            Value::Object(o) => {
                                o.entry(k.clone()).or_insert(v);
                            }
                            other => return Err(self.needs(module, span, format!("`.entry()` on {}", kind(other)))),
                        }
                        base.path.push(Seg::Key(k));
                        Ok(base)
                    }
                    _ => Err(self.needs(f.module, span, format!("`.{method}()` where a value to edit is expected"))),
                }
            }
            other => Err(self.needs(
                f.module,
                other.span(),
                format!("{} where a value to edit is expected", describe(other)),
            )),
        }
    }

    /// The value at `place`, creating it the way `Value`'s `IndexMut` does (`null` becomes an object, a
    /// missing key `null`).
    pub(super) fn place_mut<'f>(&self, f: &'f mut Frame<C>, place: &Place, span: Span) -> Res<&'f mut Value, C> {
        let module = f.module;
        let mut cur = match &mut f.locals[place.root].1 {
            Local::Val(Val::Json(v)) => v,
            _ => return Err(self.needs(module, span, "an edit of something that is not a JSON value")),
        };
        for seg in &place.path {
            cur = match seg {
                Seg::Key(k) => {
                    if cur.is_null() {
                        *cur = Value::Object(Map::new());
                    }
                    match cur {
                        Value::Object(o) => o.entry(k.clone()).or_insert(Value::Null),
                        _ => return Err(self.fails(module, span, format!("indexing a non-object with \"{k}\""))),
                    }
                }
                Seg::Index(n) => match cur {
                    Value::Array(a) if *n < a.len() => &mut a[*n],
                    _ => return Err(self.fails(module, span, format!("index {n} is out of bounds"))),
                },
            };
        }
        Ok(cur)
    }

    /// The value at `place`, if it is there.
    pub(super) fn read<'f>(&self, f: &'f Frame<C>, place: &Place) -> Option<&'f Value> {
        let Local::Val(Val::Json(root)) = &f.locals[place.root].1 else {
            return None;
        };
        let mut cur = root;
        for seg in &place.path {
            cur = match seg {
                Seg::Key(k) => cur.get(k)?,
                Seg::Index(n) => cur.get(n)?,
            };
        }
        Some(cur)
    }

    pub(super) fn key(&mut self, f: &mut Frame<C>, e: &Expr) -> Res<Seg, C> {
        match self.json(f, e)? {
            Value::String(s) => Ok(Seg::Key(s)),
            Value::Number(n) if n.as_u64().is_some() => Ok(Seg::Index(n.as_u64().unwrap_or_default() as usize)),
            _ => Err(self.needs(f.module, e.span(), "an index that is not a string or a number")),
        }
    }
}
