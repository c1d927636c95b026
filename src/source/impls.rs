//! The one lookup of a type's impl blocks for every reader of Rust (the CRD generator's index and RBAC inference's
//! [`super::Program`]): what `Type::NAME`, `Self::NAME` or `Type::f` finds, in Rust's order — the type's inherent
//! impls, then its trait impls — of the type and of every alias of it (the aliases a path leads along, and the
//! aliases written for it: `type A = Limits; impl A { .. }` is `Limits`' impl). An impl is a type's when its self
//! type, resolved where the impl is written ([`super::resolve`]), names that type: never by its name alone; an alias
//! is a type's when its target, resolved where the alias is written, names it.

use std::borrow::Cow;

use super::lex::type_path_segs;
use super::resolve::{self, Scopes};

/// How many type aliases are followed from a type to the type it names (an alias cycle ends here).
const MAX_ALIASES: usize = 8;

/// What the lookup needs of a reader besides its names: its impl blocks, and what its types are called.
pub(crate) trait Impls: Scopes {
    /// How the reader refers to one of its impl blocks.
    type Impl: Copy;

    /// The name a self type spells `ty` with (an item's name, or the name a derive generates); `None` for anything
    /// else.
    fn type_name(&self, ty: &Self::Item) -> Option<Cow<'_, str>>;

    /// The impl blocks whose self type may name a type called `name`: a superset, of which the lookup keeps those
    /// whose self type names the type where they are written (the ones written with a `use .. as` rename of it too).
    fn impls_named(&self, name: &str) -> Vec<Self::Impl>;

    /// An impl block, with the module it is written in (`None`: the handle is no impl block's).
    fn impl_block(&self, imp: Self::Impl) -> Option<(Self::Mod, &syn::ItemImpl)>;

    /// The type `ty` stands for when it is a type alias (`type Alias = Target;`), with the alias's module.
    fn aliased(&self, ty: &Self::Item) -> Option<(Self::Mod, &syn::Type)>;

    /// The type aliases whose target may name a type called `name` (`type A = path::Name;`): a superset, of which the
    /// lookup keeps those whose target names the type where they are written (through a `use .. as` rename too).
    fn aliases_named(&self, name: &str) -> Vec<Self::Item>;
}

/// What a type written in module `at` names among the reader's items (a path, through parentheses), if anything.
pub(crate) fn type_named<S: Scopes>(s: &S, at: S::Mod, ty: &syn::Type) -> Option<S::Item> {
    match resolve::resolve(s, at, &type_path_segs(ty)?, &[]) {
        resolve::Res::Item(item) => Some(item),
        _ => None,
    }
}

/// `ty` and the types the aliases it leads along name (`ty` first), and whether the chain ends at a type of the
/// reader that is no alias (an alias of a type outside the sources, or too long a chain, does not).
pub(crate) fn alias_chain<T: Impls>(t: &T, ty: T::Item) -> (Vec<T::Item>, bool)
where
    T::Item: PartialEq,
{
    let mut chain = vec![ty];
    for _ in 0..MAX_ALIASES {
        let Some((at, target)) = chain.last().and_then(|ty| t.aliased(ty)) else { return (chain, true) };
        match type_named(t, at, target) {
            Some(next) if !chain.contains(&next) => chain.push(next),
            _ => return (chain, false),
        }
    }
    (chain, false)
}

/// `ty` and every alias of the same type: the aliases `ty` leads along and, when they end at a type of the reader,
/// that type's aliases (`type A = Limits;`), theirs in turn (`type B = A;`), each once.
pub(crate) fn same_types<T: Impls>(t: &T, ty: T::Item) -> Vec<T::Item>
where
    T::Item: PartialEq,
{
    let (mut types, ends) = if t.aliased(&ty).is_some() { alias_chain(t, ty) } else { (vec![ty], true) };
    if !ends {
        return types;
    }
    // Breadth first; an alias joins when its own target names a type already found (a bounded number of them).
    let mut next = 0;
    while next < types.len() && types.len() <= MAX_ALIASES * 4 {
        let current = types[next].clone();
        next += 1;
        let Some(name) = t.type_name(&current) else { continue };
        for alias in t.aliases_named(&name) {
            if !types.contains(&alias)
                && let Some((at, target)) = t.aliased(&alias)
                && type_named(t, at, target).as_ref() == Some(&current)
            {
                types.push(alias);
            }
        }
    }
    types
}

/// The impl blocks of `ty` in Rust's order for looking up an associated item: inherent impls first, then trait
/// impls, each in the reader's order. The impls written for an alias count as the aliased type's
/// (`impl Alias { .. }`), whichever of them the path names ([`same_types`]).
pub(crate) fn impls_of<T: Impls>(t: &T, ty: T::Item) -> Vec<T::Impl>
where
    T::Item: PartialEq,
{
    let mut out: Vec<(T::Impl, bool)> = Vec::new();
    for ty in &same_types(t, ty) {
        let Some(name) = t.type_name(ty) else { continue };
        for imp in t.impls_named(&name) {
            if let Some((at, block)) = t.impl_block(imp)
                && type_named(t, at, &block.self_ty).as_ref() == Some(ty)
            {
                out.push((imp, block.trait_.is_some()));
            }
        }
    }
    out.sort_by_key(|&(_, of_trait)| of_trait);
    out.into_iter().map(|(imp, _)| imp).collect()
}

/// The first associated item of `ty` that `wanted` accepts, in Rust's lookup order ([`impls_of`]), with the impl
/// block it is written in, that block's module and its handle (what `Self` stands for there is its self type).
pub(crate) fn assoc_item<T: Impls>(
    t: &T,
    ty: T::Item,
    wanted: impl Fn(&syn::ImplItem) -> bool,
) -> Option<(T::Impl, T::Mod, &syn::ItemImpl, &syn::ImplItem)>
where
    T::Item: PartialEq,
{
    impls_of(t, ty).into_iter().find_map(|imp| {
        let (at, block) = t.impl_block(imp)?;
        block.items.iter().find(|i| wanted(i)).map(|item| (imp, at, block, item))
    })
}

/// Whether an impl item is the const `name`.
pub(crate) fn is_const(item: &syn::ImplItem, name: &str) -> bool {
    matches!(item, syn::ImplItem::Const(c) if c.ident == name)
}

/// Whether an impl item is the fn `name`.
pub(crate) fn is_fn(item: &syn::ImplItem, name: &str) -> bool {
    matches!(item, syn::ImplItem::Fn(f) if f.sig.ident == name)
}
