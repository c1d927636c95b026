//! What a value path names in the crate — a const's or static's initializer, or a fn — free or associated
//! (`Type::NAME`, `Self::f`, `a::Type::NAME`), with the module and impl block it is written in. The interpreter and
//! the typed reading of defaults both go through it, so a name one of them follows the other follows too; a const's
//! initializer is found by [`constant::initializer`], the lookup `merge_crds` storage versions and RBAC's
//! `Resource` impls make.

use syn::Expr;

use super::Code;
/// The segments of a path type (`Self`'s, through groups and parentheses).
pub(crate) use crate::source::lex::type_path_segs as type_path;
use crate::source::resolve::{self, Res};
use crate::source::syntax::UseEntry;
use crate::source::{constant, impls};

/// Where a path is written: its module `M` and what `Self` is there (`S`: how the reader names a crate type).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scope<'s, M, S> {
    pub module: M,
    /// The crate item `Self` names, when the caller knows it.
    pub self_item: Option<S>,
    /// The self type of the impl block the path is written in, when the caller knows only that.
    pub self_ty: Option<&'s syn::Type>,
    /// The `use` declarations of the fn body the path is written in, when the caller read them.
    pub uses: &'s [UseEntry],
}

/// A definition a path names, with where its code is written.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Found<'a, M, T> {
    pub def: T,
    pub module: M,
    /// The self type of the impl block of an associated item (`Self` in the definition).
    pub self_ty: Option<&'a syn::Type>,
}

impl<'a, M: Copy, T> Found<'a, M, T> {
    /// Where the definition's code is written: its module, and `Self` of its impl.
    pub(crate) fn scope<C: Code<Mod = M>>(&self, ix: &C) -> Scope<'a, M, C::SelfItem> {
        let self_ty = self.self_ty;
        let self_item = self_ty.and_then(type_path).and_then(|segs| ix.type_item(self.module, &segs));
        Scope { module: self.module, self_item, self_ty, uses: &[] }
    }
}

/// The const, immutable static or associated const `segs` names from `scope`: its initializer
/// ([`constant::initializer`]; `Self` is the item the scope knows, else its impl's self type).
pub(crate) fn constant<'a, C: Code>(
    ix: &'a C,
    scope: Scope<C::Mod, C::SelfItem>,
    segs: &[String],
) -> Option<Found<'a, C::Mod, &'a Expr>> {
    let init = constant::initializer(ix, named(ix, scope, segs)?).ok()?;
    Some(Found { def: init.expr, module: init.at, self_ty: init.self_ty })
}

/// A fn the path names from `scope`: a free crate fn, or an associated fn of a crate type or of a kind type a derive
/// generates (inherent impls first, through type aliases: [`impls::assoc_item`]), found by the resolution
/// [`constant`] makes ([`Code::resolve_value`]).
pub(crate) fn function<'a, C: Code>(
    ix: &'a C,
    scope: Scope<C::Mod, C::SelfItem>,
    segs: &[String],
) -> Option<Found<'a, C::Mod, (&'a syn::Signature, &'a syn::Block)>> {
    match named(ix, scope, segs)? {
        Res::Item(item) => {
            let (module, sig, block) = ix.function(&item)?;
            Some(Found { def: (sig, block), module, self_ty: None })
        }
        Res::Assoc(ty, rest) if rest.len() == 1 => match impls::assoc_item(ix, ty, |i| impls::is_fn(i, &rest[0]))? {
            (_, at, imp, syn::ImplItem::Fn(f)) => {
                Some(Found { def: (&f.sig, &f.block), module: at, self_ty: Some(&imp.self_ty) })
            }
            _ => None,
        },
        _ => None,
    }
}

/// What a value path written in `scope` names: `Self::NAME` is an associated name of the item the scope knows, else
/// `Self` is read as its impl's self type, resolved where the path is written.
fn named<C: Code>(ix: &C, scope: Scope<C::Mod, C::SelfItem>, segs: &[String]) -> Option<Res<C::Mod, C::Item>> {
    Some(match (segs, scope.self_item) {
        ([first, rest @ ..], Some(id)) if first == "Self" && !rest.is_empty() => {
            Res::Assoc(ix.self_name(id), rest.to_vec())
        }
        _ => ix.resolve_value(scope.module, &resolve::with_self(segs.to_vec(), scope.self_ty)?, scope.uses),
    })
}
