//! strum's `#[derive(EnumDiscriminants)]`, expanded as strum_macros 0.27 does for what a schema sees: beside the
//! enum, a field-less enum (`<Enum>Discriminants`, or `#[strum_discriminants(name(..))]`) with one unit variant per
//! variant (their `doc`, `cfg`, `allow`, `deny` attributes, and what `#[strum_discriminants(..)]` on a variant
//! passes through), `#[derive(Clone, Copy, Debug, PartialEq, Eq, ..)]` with the listed derives, the listed `doc`s
//! and every other `#[strum_discriminants(path(..))]` as an attribute of its own (`serde(rename_all = "..")`).
//! The `From` and `IntoDiscriminant` impls are left out: no schema reads them.

use proc_macro2::TokenStream;
use quote::quote;

/// The discriminants enum `#[derive(EnumDiscriminants)]` on `e` generates, when it does.
pub(crate) fn discriminants(e: &syn::ItemEnum) -> Option<syn::ItemEnum> {
    if !derives_enum_discriminants(&e.attrs) {
        return None;
    }
    let mut name = None;
    let mut vis = None;
    let mut derives: Vec<syn::Path> = Vec::new();
    let mut docs: Vec<syn::LitStr> = Vec::new();
    let mut others: Vec<TokenStream> = Vec::new();
    for a in e.attrs.iter().filter(|a| a.path().is_ident("strum_discriminants")) {
        let list = a.meta.require_list().ok()?;
        let metas =
            list.parse_args_with(syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated).ok()?;
        for meta in metas {
            let path = meta.path();
            if path.is_ident("derive") {
                let l = meta.require_list().ok()?;
                let paths = l
                    .parse_args_with(syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated)
                    .ok()?;
                derives.extend(paths);
            } else if path.is_ident("name") {
                name = Some(meta.require_list().ok()?.parse_args::<syn::Ident>().ok()?);
            } else if path.is_ident("vis") {
                vis = Some(meta.require_list().ok()?.parse_args::<syn::Visibility>().ok()?);
            } else if path.is_ident("doc") {
                let syn::Meta::NameValue(nv) = &meta else { return None };
                let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = &nv.value else { return None };
                docs.push(s.clone());
            } else {
                let syn::Meta::List(l) = &meta else { return None };
                let (p, tokens) = (&l.path, &l.tokens);
                others.push(quote!(#p(#tokens)));
            }
        }
    }
    let name = name.unwrap_or_else(|| syn::Ident::new(&format!("{}Discriminants", e.ident), e.ident.span()));
    let vis = vis.unwrap_or_else(|| e.vis.clone());
    let repr = e.attrs.iter().find(|a| a.path().is_ident("repr"));
    let mut variants = Vec::new();
    for v in &e.variants {
        let mut attrs = Vec::new();
        for a in &v.attrs {
            if a.path().is_ident("strum_discriminants") {
                let tokens = &a.meta.require_list().ok()?.tokens;
                attrs.push(quote!(#[#tokens]));
            } else if ["doc", "cfg", "allow", "deny"].iter().any(|k| a.path().is_ident(k)) {
                attrs.push(quote!(#a));
            }
        }
        let ident = &v.ident;
        let discriminant = v.discriminant.as_ref().map(|(_, expr)| quote!(= #expr));
        variants.push(quote!(#(#attrs)* #ident #discriminant));
    }
    syn::parse2(quote! {
        #(#[doc = #docs])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, #(#derives),*)]
        #repr
        #(#[#others])*
        #vis enum #name {
            #(#variants),*
        }
    })
    .ok()
}

/// Whether a `#[derive(..)]` among `attrs` names `EnumDiscriminants` (a cheap look at the tokens).
pub(crate) fn may_derive(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("derive")
            && a.meta.require_list().is_ok_and(|l| {
                l.tokens
                    .clone()
                    .into_iter()
                    .any(|t| matches!(t, proc_macro2::TokenTree::Ident(i) if i == "EnumDiscriminants"))
            })
    })
}

/// Whether `attrs` derive `EnumDiscriminants` (`strum::EnumDiscriminants`, `strum_macros::EnumDiscriminants`).
fn derives_enum_discriminants(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().filter(|a| a.path().is_ident("derive")).any(|a| {
        a.parse_args_with(syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated)
            .is_ok_and(|ps| ps.iter().any(|p| p.segments.last().is_some_and(|s| s.ident == "EnumDiscriminants")))
    })
}

#[cfg(test)]
mod tests;
