//! Which resource a Rust type names: k8s-openapi's types through `crate::builtin`, and the sources' own
//! `#[derive(CustomResource)]` kinds through their `#[kube]` attributes (or stackable-versioned's
//! `#[versioned(crd(..))]`) and kube-derive's plural rule.

pub use crate::builtin::{Resource, k8s, k8s_gvk, k8s_path};

/// The resource a `#[derive(CustomResource)]` spec struct declares, if its `#[kube]` attributes parse.
pub fn custom_resource(attrs: &[syn::Attribute]) -> Option<(String, Resource)> {
    let k = crate::source::kube_attrs::parse(attrs, proc_macro2::Span::call_site()).ok()?;
    let singular = k.singular.clone().unwrap_or_else(|| k.kind.to_ascii_lowercase());
    let plural = k.plural.clone().unwrap_or_else(|| crate::source::kube_attrs::to_plural(&singular));
    let name = k.root.clone().unwrap_or_else(|| k.kind.clone());
    Some((name, Resource { group: k.group, version: k.version, kind: k.kind, plural, namespaced: k.namespaced }))
}

/// The resource of a `#[derive(CustomResource)]` spec struct `ident` inside a stackable-versioned module
/// (`#[versioned(version(name = "v1alpha1"))] mod versioned { .. }`), whose `#[kube]` attribute the macro writes
/// from `#[versioned(crd(group = .., kind = .., plural = .., namespaced))]` (read as the CRD generator's expansion
/// reads it, [`crate::source::versioned::spec_kind`]); `version` is one of the module's versions.
pub fn versioned_resource(attrs: &[syn::Attribute], ident: &syn::Ident, version: &str) -> Option<(String, Resource)> {
    let k = crate::source::versioned::spec_kind(attrs, ident)?;
    let singular = k.singular.unwrap_or_else(|| k.kind.to_ascii_lowercase());
    let plural = k.plural.unwrap_or_else(|| crate::source::kube_attrs::to_plural(&singular));
    let resource =
        Resource { group: k.group, version: version.into(), kind: k.kind.clone(), plural, namespaced: k.namespaced };
    Some((k.kind, resource))
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

    #[test]
    fn a_versioned_crd_is_read_from_its_crd_arguments() {
        let s: syn::ItemStruct = syn::parse_quote! {
            #[derive(CustomResource)]
            #[versioned(crd(
                group = "herd.example.org",
                plural = "flocks",
                status = "v1alpha1::FlockStatus",
                shortname = "fl",
                namespaced,
            ))]
            struct FlockSpec {}
        };
        let (name, r) = versioned_resource(&s.attrs, &s.ident, "v1alpha1").unwrap();
        assert_eq!((name.as_str(), r.group.as_str(), r.plural.as_str()), ("Flock", "herd.example.org", "flocks"));
        assert!(r.namespaced);
        let s: syn::ItemStruct = syn::parse_quote! {
            #[versioned(crd(group = "herd.example.org", kind = "Shepherd"), skip(from))]
            struct KeeperSpec {}
        };
        let (name, r) = versioned_resource(&s.attrs, &s.ident, "v1").unwrap();
        assert_eq!((name.as_str(), r.plural.as_str(), r.namespaced), ("Shepherd", "shepherds", false));
        let s: syn::ItemStruct = syn::parse_quote! { #[versioned(deprecated(since = "v1"))] struct Field {} };
        assert!(versioned_resource(&s.attrs, &s.ident, "v1").is_none(), "a field's or variant's attribute is no kind");
    }
}
