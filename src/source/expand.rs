//! Items macros that kubesmith knows generate, put in the tree as the macros would, so every reader of the tree sees
//! them as written code: stackable-versioned's version modules ([`super::versioned`]), strum's discriminants
//! enums ([`super::strum`]) and `lazy_static!`'s statics ([`lazy_statics`]).

/// Whether [`expand_all`] may change `items` (of one module): one of them is a `#[versioned]` module, a
/// `lazy_static!` or an enum that may derive strum's discriminants. A cheap look, so that a reader that does not
/// own its items copies them only then.
pub(crate) fn may_expand(items: &[syn::Item]) -> bool {
    items.iter().any(|i| match i {
        syn::Item::Mod(m) => m.attrs.iter().any(|a| a.path().segments.last().is_some_and(|s| s.ident == "versioned")),
        syn::Item::Macro(m) => is_lazy_static(m),
        syn::Item::Enum(e) => super::strum::may_derive(&e.attrs),
        _ => false,
    })
}

/// `items` (of one module) with what those macros generate in their place or beside them.
pub(crate) fn expand_all(items: Vec<syn::Item>) -> Vec<syn::Item> {
    let items = super::versioned::expand_all(items);
    let items = if items.iter().any(|i| matches!(i, syn::Item::Macro(m) if is_lazy_static(m))) {
        items.into_iter().flat_map(|i| lazy_statics(i).into_iter()).collect()
    } else {
        items
    };
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

/// Whether `m` is a `lazy_static!` invocation (by the macro path's last segment).
fn is_lazy_static(m: &syn::ItemMacro) -> bool {
    m.mac.path.segments.last().is_some_and(|s| s.ident == "lazy_static")
}

/// `item`, or the statics it declares when it is `lazy_static! { static ref NAME: T = expr; .. }`: each a `static`
/// like any other (a regex built once, a name computed once), which the readers find by name and read the
/// initializer of. A body that does not parse stays the macro it is.
pub(crate) fn lazy_statics(item: syn::Item) -> Vec<syn::Item> {
    match &item {
        syn::Item::Macro(m) if is_lazy_static(m) => match m.mac.parse_body::<LazyStatics>() {
            Ok(LazyStatics(statics)) => statics.into_iter().map(syn::Item::Static).collect(),
            Err(_) => vec![item],
        },
        _ => vec![item],
    }
}

/// The statics of a `lazy_static!` body, as the `static` items they stand for.
struct LazyStatics(Vec<syn::ItemStatic>);

impl syn::parse::Parse for LazyStatics {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let mut out = Vec::new();
        while !input.is_empty() {
            let attrs = input.call(syn::Attribute::parse_outer)?;
            let vis: syn::Visibility = input.parse()?;
            let static_token: syn::Token![static] = input.parse()?;
            input.parse::<syn::Token![ref]>()?;
            let ident: syn::Ident = input.parse()?;
            let colon_token: syn::Token![:] = input.parse()?;
            let ty: syn::Type = input.parse()?;
            let eq_token: syn::Token![=] = input.parse()?;
            let expr: syn::Expr = input.parse()?;
            let semi_token: syn::Token![;] = input.parse()?;
            out.push(syn::ItemStatic {
                attrs,
                vis,
                static_token,
                mutability: syn::StaticMutability::None,
                ident,
                colon_token,
                ty: Box::new(ty),
                eq_token,
                expr: Box::new(expr),
                semi_token,
            });
        }
        Ok(Self(out))
    }
}
