//! Items macros that kubesmith knows generate, put in the tree as the macros would, so every reader of the tree sees
//! them as written code: stackable-versioned's version modules ([`super::versioned`]) and strum's discriminants
//! enums ([`super::strum`]).

/// `items` (of one module) with what those macros generate in their place or beside them.
pub(crate) fn expand_all(items: Vec<syn::Item>) -> Vec<syn::Item> {
    let items = super::versioned::expand_all(items);
    if !items.iter().any(|i| matches!(i, syn::Item::Enum(e) if super::strum::may_derive(&e.attrs))) {
        return items;
    }
    let mut out = Vec::with_capacity(items.len() + 1);
    for item in items {
        let generated = match &item {
            syn::Item::Enum(e) => super::strum::discriminants(e),
            _ => None,
        };
        out.push(item);
        out.extend(generated.map(syn::Item::Enum));
    }
    out
}
