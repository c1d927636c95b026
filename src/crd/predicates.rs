//! `skip_serializing_if` predicates evaluated on a field's default, as schemars runs them when it writes the
//! default (a default the predicate holds for is left out): `Option::is_none`-style methods by name, and the
//! crate's own predicate fns whose body, under the features the crate builds with by default, compares the value
//! with its type's default (`value == &T::default()`, `*v == Default::default()`) or a value (`*v == 0`,
//! `*v == DEFAULT_PORT + 1`), tests a bool (`!*b`), or calls one of those methods: the body is run by the one
//! interpreter of constant code ([`crate::source::eval`]) with the parameter bound to the default.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;
use syn::{Expr, Stmt};

use super::defaults::{Evaluator, predicate_holds};
use super::index::{CrateIndex, ItemKind, ModId, Resolved};
use crate::source::eval::{self, Site};

/// Whether predicate `pred` (a path, as `skip_serializing_if` names it from module `m`) holds for `v`, the
/// serialized default of a field of type `ty`; `None` when kubesmith cannot tell.
pub fn holds(ix: &CrateIndex, eval: &Evaluator, pred: &str, v: &Value, ty: &syn::Type, m: ModId) -> Option<bool> {
    if let Some(known) = predicate_holds(pred, v) {
        return Some(known);
    }
    let segs: Vec<String> = pred.split("::").map(|s| s.trim().to_string()).collect();
    let Resolved::Item(id) = ix.resolve(m, &segs, |k| matches!(k, ItemKind::Fn(_))) else { return None };
    let ItemKind::Fn(f) = &ix.items[id].kind else { return None };
    let module = ix.items[id].module;
    let [syn::FnArg::Typed(arg)] = f.sig.inputs.iter().collect::<Vec<_>>().as_slice() else { return None };
    let syn::Pat::Ident(param) = &*arg.pat else { return None };
    let body = ix.full_block(module, &f.block).ok()?;
    let features = default_features(ix.module_file(module));
    let e = tail(&body.stmts, &features)?;
    let param = param.ident.to_string();
    run(ix, module, e, &param, v, &|| eval.default_of(ty, m).ok())
}

/// The value of the predicate body `e` (written in `module`) with parameter `param` bound to `v`, run by the one
/// interpreter of constant code; `T::default()` (any `..::default()` without arguments: the parameter's type is
/// the only one a predicate compares it with) is `type_default()`. `None` when it is not a bool kubesmith can
/// tell, or when a `#[cfg(..)]` inside it would need the features ([`tail`] reads those of the body's statements).
fn run(
    ix: &CrateIndex,
    module: ModId,
    e: &Expr,
    param: &str,
    v: &Value,
    type_default: &dyn Fn() -> Option<Value>,
) -> Option<bool> {
    if quote::quote!(#e).to_string().contains("# [cfg") {
        return None;
    }
    let bound = [(param.to_string(), v.clone())];
    let site = Site { module, self_item: None, self_ty: None, before: &[], bound: &bound };
    match eval::Evaluator::values(ix).with_type_default(type_default).value(e, site) {
        Ok(Value::Bool(b)) => Some(b),
        _ => None,
    }
}

/// The one expression a body comes to once statements under a false `#[cfg(..)]` and `let _ = ..;` are dropped.
fn tail<'a>(stmts: &'a [Stmt], features: &BTreeSet<String>) -> Option<&'a Expr> {
    let mut kept = Vec::new();
    for s in stmts {
        match s {
            Stmt::Local(l) if matches!(l.pat, syn::Pat::Wild(_)) => {}
            Stmt::Expr(e, _) => {
                let attrs = match e {
                    Expr::Block(b) => &b.attrs,
                    _ => &Vec::new(),
                };
                if cfg_holds(attrs, features)? {
                    kept.push(e);
                }
            }
            _ => return None,
        }
    }
    match kept.as_slice() {
        [Expr::Block(b)] => tail(&b.block.stmts, features),
        [one] => Some(one),
        _ => None,
    }
}

/// Whether every `#[cfg(..)]` among `attrs` holds with `features` on (`None`: a predicate kubesmith cannot
/// evaluate).
fn cfg_holds(attrs: &[syn::Attribute], features: &BTreeSet<String>) -> Option<bool> {
    let mut all = true;
    for a in attrs.iter().filter(|a| a.path().is_ident("cfg")) {
        all &= cfg_meta(&a.parse_args::<syn::Meta>().ok()?, features)?;
    }
    Some(all)
}

fn cfg_meta(meta: &syn::Meta, features: &BTreeSet<String>) -> Option<bool> {
    match meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("feature") => match &nv.value {
            Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(features.contains(&s.value())),
            _ => None,
        },
        syn::Meta::Path(p) if p.is_ident("test") => Some(false),
        syn::Meta::List(l) => {
            let inner =
                l.parse_args_with(syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated).ok()?;
            let values: Option<Vec<bool>> = inner.iter().map(|m| cfg_meta(m, features)).collect();
            let values = values?;
            if l.path.is_ident("not") && values.len() == 1 {
                Some(!values[0])
            } else if l.path.is_ident("all") {
                Some(values.iter().all(|b| *b))
            } else if l.path.is_ident("any") {
                Some(values.iter().any(|b| *b))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The features the package holding `file` builds with by default: its `default` feature and what that turns
/// on, transitively (`dep:` and `crate/feature` entries left out).
fn default_features(file: &Path) -> BTreeSet<String> {
    let manifest = file.ancestors().skip(1).map(|d| d.join("Cargo.toml")).find(|p| p.is_file());
    let doc =
        manifest.and_then(|p| std::fs::read_to_string(p).ok()).and_then(|t| t.parse::<toml_edit::DocumentMut>().ok());
    let Some(table) = doc.as_ref().and_then(|d| d.get("features")).and_then(|f| f.as_table_like()) else {
        return BTreeSet::new();
    };
    let mut on = BTreeSet::new();
    let mut todo = vec!["default".to_string()];
    while let Some(f) = todo.pop() {
        let Some(list) = table.get(&f).and_then(|v| v.as_array()) else { continue };
        for entry in list.iter().filter_map(|v| v.as_str()) {
            if !entry.contains(':') && !entry.contains('/') && on.insert(entry.to_string()) {
                todo.push(entry.to_string());
            }
        }
    }
    on
}

#[cfg(test)]
mod tests;
