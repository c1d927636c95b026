//! Hand-written resource impls: the group, version, kind and plural that `impl kube::Resource for T` (its
//! `fn group(_: &()) -> Cow<'_, str>` and siblings) or `impl k8s_openapi::Resource for T` (its `GROUP`, `VERSION`,
//! `KIND` and `URL_PATH_SEGMENT` consts) gives a type of the sources, read from string literals and the consts
//! they name (module consts and associated consts, found through the one resolver), and whatever else the one
//! interpreter of constant code reads ([`crate::source::eval`]: `format!`, calls of crate fns, ...), never compiled.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::resources::Resource;
use crate::source::eval::{Evaluator, Site};
use crate::source::lex::path_segs;
use crate::source::{ItemKey, ItemKind, ModKey, Program, Res};

/// A type of the sources with a hand-written resource impl.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceImpl {
    /// The type (a struct or enum of the sources).
    pub ty: ItemKey,
    /// Its resource, or why it cannot be read, with the fix (calls on `Api<T>` warn with it).
    pub found: Result<Resource, String>,
    /// The file of the impl.
    pub file: PathBuf,
    /// 1-based line of what cannot be read (the fn or const), else of the impl.
    pub line: usize,
}

/// Which `Resource` trait an impl implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flavor {
    /// `kube::Resource` (`kube_core::Resource`): fns of the `DynamicType`.
    Kube,
    /// `k8s_openapi::Resource`: associated consts (kube implements its own trait for every such type).
    OpenApi,
}

/// What the resource impls of the program give, and the modules read to find out (a change there changes it).
pub fn read(prog: &Program) -> (Vec<ResourceImpl>, Vec<ModKey>) {
    // Only impls of a trait named `Resource` are resolved, so the modules watched are theirs and what they name.
    let candidates: Vec<ItemKey> = prog
        .items_of(ItemKind::Impl)
        .filter(|(_, item)| matches!(item, syn::Item::Impl(imp) if imp.trait_.as_ref().is_some_and(|(_, p, _)| is_resource_trait_name(p))))
        .map(|(key, _)| key)
        .collect();
    if candidates.is_empty() {
        return (Vec::new(), Vec::new());
    }
    prog.watch();
    let reader = Reader { prog };
    let found = candidates.into_iter().filter_map(|key| reader.resource_impl(key)).collect();
    (found, prog.watched())
}

/// Whether items (inline modules included) hold an impl of a trait named `Resource` (what [`read`] looks at).
pub fn has_resource_impl(items: &[syn::Item]) -> bool {
    items.iter().any(|i| match i {
        syn::Item::Impl(imp) => imp.trait_.as_ref().is_some_and(|(_, p, _)| is_resource_trait_name(p)),
        syn::Item::Mod(m) => m.content.as_ref().is_some_and(|(_, inner)| has_resource_impl(inner)),
        _ => false,
    })
}

fn is_resource_trait_name(path: &syn::Path) -> bool {
    path.segments.last().is_some_and(|s| s.ident == "Resource")
}

/// The four values, in the order they are reported.
const KUBE_FNS: [&str; 4] = ["group", "version", "kind", "plural"];
const OPENAPI_CONSTS: [&str; 4] = ["GROUP", "VERSION", "KIND", "URL_PATH_SEGMENT"];

struct Reader<'p> {
    prog: &'p Program,
}

impl Reader<'_> {
    fn resource_impl(&self, key: ItemKey) -> Option<ResourceImpl> {
        let prog = self.prog;
        let syn::Item::Impl(imp) = prog.item(key) else { return None };
        let at = ModKey { krate: key.krate, module: key.module };
        let flavor = self.flavor(at, &imp.trait_.as_ref()?.1)?;
        let ty = self.type_of(at, &imp.self_ty)?;
        let name = crate::source::syntax::item_name(prog.item(ty)).unwrap_or_default();
        let file = prog.module(at).file.clone();
        let impl_line = imp.impl_token.span.start().line;
        let mut values = Vec::new();
        let names = match flavor {
            Flavor::Kube => KUBE_FNS,
            Flavor::OpenApi => OPENAPI_CONSTS,
        };
        for what in names {
            let (value, line) = match flavor {
                Flavor::Kube => self.kube_fn(at, imp, what),
                Flavor::OpenApi => self.openapi_const(at, imp, what),
            };
            match value {
                Some(v) => values.push(v),
                None => {
                    let message = self.unreadable(imp, flavor, &name, what);
                    return Some(ResourceImpl { ty, found: Err(message), file, line: line.unwrap_or(impl_line) });
                }
            }
        }
        let [group, version, kind, plural] = <[String; 4]>::try_from(values).ok()?;
        let namespaced = match flavor {
            Flavor::Kube => assoc_type_name(imp, "Scope").is_none_or(|s| s != "ClusterResourceScope"),
            Flavor::OpenApi => true,
        };
        let found = Ok(Resource { group, version, kind, plural, namespaced });
        Some(ResourceImpl { ty, found, file, line: impl_line })
    }

    /// Why a value cannot be read, with the fix (the warning of a call on `Api<T>` adds where and the rule).
    fn unreadable(&self, imp: &syn::ItemImpl, flavor: Flavor, name: &str, what: &str) -> String {
        let (trait_name, item) = match flavor {
            Flavor::Kube => ("kube::Resource", format!("fn {what}")),
            Flavor::OpenApi => ("k8s_openapi::Resource", format!("const {what}")),
        };
        let dynamic = match assoc_type_name(imp, "DynamicType") {
            Some(t) if t != "()" => format!(" (its DynamicType is `{t}`: the value may come from it at run time)"),
            _ => String::new(),
        };
        format!(
            "the {what} of `impl {trait_name} for {name}` cannot be read without running the code{dynamic}: make \
             `{item}` give a string literal or a const holding one"
        )
    }

    /// Which `Resource` trait `path`, written in `at`, names: kube's (`kube::Resource`, `kube::api::Resource`,
    /// `kube_core::Resource`, or `Resource` from a glob of one of them) or k8s-openapi's.
    fn flavor(&self, at: ModKey, path: &syn::Path) -> Option<Flavor> {
        let segs = path_segs(path);
        let Res::External(full) = self.prog.resolve(at, &segs, &[]) else { return None };
        let mut paths = vec![full];
        if paths[0].len() == 1 {
            paths.extend(self.prog.external_candidates(at, &segs, &[]));
        }
        paths.iter().find_map(|p| match p.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
            ["k8s_openapi", "Resource"] | ["kube", "k8s_openapi", "Resource"] => Some(Flavor::OpenApi),
            ["kube" | "kube_core", .., "Resource"] if !p.iter().any(|s| s == "k8s_openapi") => Some(Flavor::Kube),
            _ => None,
        })
    }

    /// The struct, enum or union of the sources a self type names.
    fn type_of(&self, at: ModKey, ty: &syn::Type) -> Option<ItemKey> {
        match self.prog.type_named(at, ty) {
            Res::Item(k)
                if matches!(self.prog.item(k), syn::Item::Struct(_) | syn::Item::Enum(_) | syn::Item::Union(_)) =>
            {
                Some(k)
            }
            _ => None,
        }
    }

    /// `fn what(..)` of a `kube::Resource` impl: its value and line.
    fn kube_fn(&self, at: ModKey, imp: &syn::ItemImpl, what: &str) -> (Option<String>, Option<usize>) {
        let Some(f) = imp.items.iter().find_map(|i| match i {
            syn::ImplItem::Fn(f) if f.sig.ident == what => Some(f),
            _ => None,
        }) else {
            return (None, None);
        };
        let line = f.sig.ident.span().start().line;
        let value = Evaluator::values(self.prog).strings().string_fn(&f.sig, &f.block, at, Some(&imp.self_ty));
        (value.ok(), Some(line))
    }

    /// `const WHAT` of a `k8s_openapi::Resource` impl: its value and line.
    fn openapi_const(&self, at: ModKey, imp: &syn::ItemImpl, what: &str) -> (Option<String>, Option<usize>) {
        let Some(c) = imp.items.iter().find_map(|i| match i {
            syn::ImplItem::Const(c) if c.ident == what => Some(c),
            _ => None,
        }) else {
            return (None, None);
        };
        let site = Site { module: at, self_item: None, self_ty: Some(&imp.self_ty), before: &[], bound: &[] };
        let value = Evaluator::values(self.prog).strings().string_value(&c.expr, site).ok();
        (value, Some(c.ident.span().start().line))
    }
}

/// The last segment of the type of `type NAME = ..;` in an impl (`()` for the unit type).
fn assoc_type_name(imp: &syn::ItemImpl, name: &str) -> Option<String> {
    imp.items.iter().find_map(|i| match i {
        syn::ImplItem::Type(t) if t.ident == name => Some(match &t.ty {
            syn::Type::Tuple(tuple) if tuple.elems.is_empty() => "()".to_string(),
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
            other => quote::ToTokens::to_token_stream(other).to_string(),
        }),
        _ => None,
    })
}

#[cfg(test)]
mod tests;
