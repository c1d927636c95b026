//! What a value path names in the crate — a const's or static's initializer, or a fn — free or associated
//! (`Type::NAME`, `Self::f`, `a::Type::NAME`), with the module and impl block it is written in. The interpreter and
//! the typed reading of defaults both go through it, so a name one of them follows the other follows too; a const's
//! initializer is found by [`constant::initializer`], the lookup `merge_crds` storage versions and RBAC's
//! `Resource` impls make.

use syn::Expr;

use crate::crd::index::code::CodeName;
use crate::crd::index::{CrateIndex, ItemId, ItemKind, ModId, Owner, Resolved};
use crate::source::constant;
/// The segments of a path type (`Self`'s, through groups and parentheses).
pub(crate) use crate::source::lex::type_path_segs as type_path;
use crate::source::resolve::{self, Res};

/// Where a path is written: its module and what `Self` is there.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scope<'s> {
    pub module: ModId,
    /// The crate item `Self` names, when the caller knows it.
    pub self_item: Option<ItemId>,
    /// The self type of the impl block the path is written in, when the caller knows only that.
    pub self_ty: Option<&'s syn::Type>,
}

impl<'s> Scope<'s> {
    /// The type whose associated items `Prefix::NAME` names, `Self` read here.
    fn owner<'p>(&self, prefix: &'p [String], self_path: &'p mut Vec<String>) -> Owner<'p>
    where
        's: 'p,
    {
        if let [one] = prefix
            && one == "Self"
        {
            if let Some(id) = self.self_item {
                return Owner::Item(id);
            }
            *self_path = self.self_ty.and_then(type_path).unwrap_or_default();
            return Owner::Path(self.module, self_path);
        }
        Owner::Path(self.module, prefix)
    }
}

/// A definition a path names, with where its code is written.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Found<'a, T> {
    pub def: T,
    pub module: ModId,
    /// The self type of the impl block of an associated item (`Self` in the definition).
    pub self_ty: Option<&'a syn::Type>,
}

impl<'a, T> Found<'a, T> {
    /// Where the definition's code is written: its module, and `Self` of its impl.
    pub(crate) fn scope(&self, ix: &CrateIndex) -> Scope<'a> {
        let self_ty = self.self_ty;
        let self_item = self_ty.and_then(type_path).and_then(|segs| ix.type_item(self.module, &segs));
        Scope { module: self.module, self_item, self_ty }
    }
}

/// The const, immutable static or associated const `segs` names from `scope`: its initializer
/// ([`constant::initializer`]; `Self` is the item the scope knows, else its impl's self type).
pub(crate) fn constant<'a>(ix: &'a CrateIndex, scope: Scope, segs: &[String]) -> Option<Found<'a, &'a Expr>> {
    let named = match (segs, scope.self_item) {
        ([first, rest @ ..], Some(id)) if first == "Self" && !rest.is_empty() => {
            Res::Assoc(CodeName::Item(id), rest.to_vec())
        }
        _ => ix.resolve_code(scope.module, &resolve::with_self(segs.to_vec(), scope.self_ty)?, &[]),
    };
    let init = constant::initializer(ix, named).ok()?;
    Some(Found { def: init.expr, module: init.at, self_ty: init.self_ty })
}

/// A fn the path names from `scope`: a free crate fn, or an associated fn of a crate type (inherent impls first).
pub(crate) fn function<'a>(
    ix: &'a CrateIndex,
    scope: Scope,
    segs: &[String],
) -> Option<Found<'a, (&'a syn::Signature, &'a syn::Block)>> {
    if let Resolved::Item(id) = ix.resolve(scope.module, segs, ItemKind::is_fn)
        && let ItemKind::Fn(f) = &ix.items[id].kind
    {
        return Some(Found { def: (&f.sig, &*f.block), module: ix.items[id].module, self_ty: None });
    }
    let (prefix, name) = segs.split_at(segs.len().checked_sub(1)?);
    if prefix.is_empty() {
        return None;
    }
    let mut self_path = Vec::new();
    let (imp, f) = ix.assoc_fn(scope.owner(prefix, &mut self_path), &name[0])?;
    Some(Found { def: (&f.sig, &f.block), module: imp.module, self_ty: Some(&imp.item.self_ty) })
}
