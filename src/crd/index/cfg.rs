//! `#[cfg_attr(P, a, b)]` on a type read as `#[a] #[b]` when P is the predicate under which the type derives
//! `JsonSchema` (`#[cfg_attr(feature = "schemars", derive(JsonSchema))]`): kube-derive's `crd()` needs the
//! type's `JsonSchema` impl, so wherever it compiles P holds, and the type's other attributes under P (a
//! `schemars(extend(..))` on the spec, a `serde(..)` or `schemars(..)` on its fields and variants) apply too.
//! So do attributes under a predicate every normal build meets (`not(doctest)`, `not(test)`: kubesmith generates
//! what `cargo build` gives, as kube-derive's `crd()` in a `crdgen` binary does). kubesmith evaluates no other cfg.

use syn::punctuated::Punctuated;
use syn::{Attribute, Meta, Token};

/// Unwraps, on an item (`attrs`) and its fields or variants (`inner`), the `cfg_attr`s whose predicate the item
/// derives `JsonSchema` under.
pub(super) fn unwrap_schema_cfg<'a>(attrs: &mut Vec<Attribute>, inner: impl Iterator<Item = &'a mut Vec<Attribute>>) {
    if !attrs.iter().any(|a| a.path().is_ident("cfg_attr")) {
        return;
    }
    let mut predicates: Vec<String> = attrs
        .iter()
        .filter_map(cfg_attr)
        .filter(|(_, metas)| metas.iter().any(derives_json_schema))
        .map(|(p, _)| p)
        .collect();
    predicates.extend(ALWAYS.iter().map(|p| p.to_string()));
    unwrap(attrs, &predicates);
    for list in inner {
        unwrap(list, &predicates);
    }
}

/// `cfg_attr(P, m1, m2)` as (P's tokens, [m1, m2]).
fn cfg_attr(a: &Attribute) -> Option<(String, Vec<Meta>)> {
    if !a.path().is_ident("cfg_attr") {
        return None;
    }
    let list = a.meta.require_list().ok()?;
    let metas = list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated).ok()?;
    let mut metas = metas.into_iter();
    let predicate = metas.next()?;
    Some((quote::quote!(#predicate).to_string(), metas.collect()))
}

/// Predicates every normal build meets, as `cfg_attr` prints them.
const ALWAYS: [&str; 2] = ["not (doctest)", "not (test)"];

fn derives_json_schema(m: &Meta) -> bool {
    let Meta::List(l) = m else { return false };
    l.path.is_ident("derive")
        && l.parse_args_with(Punctuated::<syn::Path, Token![,]>::parse_terminated)
            .is_ok_and(|paths| paths.iter().any(|p| p.segments.last().is_some_and(|s| s.ident == "JsonSchema")))
}

fn unwrap(attrs: &mut Vec<Attribute>, predicates: &[String]) {
    if !attrs.iter().any(|a| a.path().is_ident("cfg_attr")) {
        return;
    }
    let mut out = Vec::with_capacity(attrs.len());
    for a in attrs.drain(..) {
        match cfg_attr(&a) {
            Some((p, metas)) if predicates.contains(&p) => {
                out.extend(metas.into_iter().map(|meta| Attribute { meta, ..a.clone() }));
            }
            _ => out.push(a),
        }
    }
    *attrs = out;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(attrs: &[Attribute]) -> Vec<String> {
        attrs.iter().map(|a| quote::quote!(#a).to_string()).collect()
    }

    #[test]
    fn attributes_under_the_json_schema_predicate_apply() {
        let mut s: syn::ItemStruct = syn::parse_quote! {
            #[derive(CustomResource)]
            #[cfg_attr(feature = "schemars", derive(JsonSchema))]
            #[cfg_attr(feature = "schemars", schemars(extend("x" = 1)))]
            #[cfg_attr(feature = "other", serde(deny_unknown_fields))]
            struct S {
                #[cfg_attr(feature = "schemars", schemars(length(min = 1)), serde(default))]
                a: String,
            }
        };
        unwrap_schema_cfg(&mut s.attrs, s.fields.iter_mut().map(|f| &mut f.attrs));
        assert_eq!(
            names(&s.attrs),
            [
                "# [derive (CustomResource)]",
                "# [derive (JsonSchema)]",
                "# [schemars (extend (\"x\" = 1))]",
                "# [cfg_attr (feature = \"other\" , serde (deny_unknown_fields))]",
            ]
        );
        let field = s.fields.iter().next().map(|f| names(&f.attrs)).unwrap_or_default();
        assert_eq!(field, ["# [schemars (length (min = 1))]", "# [serde (default)]"]);
    }

    #[test]
    fn attributes_every_normal_build_has_apply() {
        let mut s: syn::ItemStruct = syn::parse_quote! {
            #[derive(CustomResource, JsonSchema)]
            #[cfg_attr(not(doctest), kube(doc = "The kind."))]
            #[cfg_attr(test, kube(doc = "Tests only."))]
            struct S;
        };
        unwrap_schema_cfg(&mut s.attrs, std::iter::empty());
        assert_eq!(
            names(&s.attrs),
            [
                "# [derive (CustomResource , JsonSchema)]",
                "# [kube (doc = \"The kind.\")]",
                "# [cfg_attr (test , kube (doc = \"Tests only.\"))]",
            ]
        );
    }

    #[test]
    fn without_a_conditional_json_schema_nothing_changes() {
        let mut s: syn::ItemStruct = syn::parse_quote! {
            #[derive(JsonSchema)]
            #[cfg_attr(feature = "schemars", schemars(extend("x" = 1)))]
            struct S;
        };
        let before = names(&s.attrs);
        unwrap_schema_cfg(&mut s.attrs, std::iter::empty());
        assert_eq!(names(&s.attrs), before);
    }
}
