//! Which resource a Rust type names: k8s-openapi's types through `crate::builtin`, and the sources' own
//! `#[derive(CustomResource)]` kinds through their `#[kube]` attributes and kube-derive's plural rule.

pub use crate::builtin::{Resource, k8s, k8s_gvk, k8s_path};

/// The resource a `#[derive(CustomResource)]` spec struct declares, if its `#[kube]` attributes parse.
pub fn custom_resource(attrs: &[syn::Attribute]) -> Option<(String, Resource)> {
    let k = crate::crd::kube_attrs::parse(attrs, proc_macro2::Span::call_site()).ok()?;
    let singular = k.singular.clone().unwrap_or_else(|| k.kind.to_ascii_lowercase());
    let plural = k.plural.clone().unwrap_or_else(|| crate::crd::kube_attrs::to_plural(&singular));
    let name = k.root.clone().unwrap_or_else(|| k.kind.clone());
    Some((name, Resource { group: k.group, version: k.version, kind: k.kind, plural, namespaced: k.namespaced }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_resource_plural_follows_kube_derive() {
        let s: syn::ItemStruct = syn::parse_quote! {
            #[derive(CustomResource)]
            #[kube(group = "ops.example.net", version = "v2", kind = "Policy", namespaced)]
            struct PolicySpec {}
        };
        let (name, r) = custom_resource(&s.attrs).unwrap();
        assert_eq!((name.as_str(), r.plural.as_str(), r.namespaced), ("Policy", "policies", true));
        let s: syn::ItemStruct = syn::parse_quote! {
            #[kube(group = "g.io", version = "v1", kind = "Box", plural = "boxen")]
            struct BoxSpec {}
        };
        assert_eq!(custom_resource(&s.attrs).unwrap().1.plural, "boxen");
    }
}
