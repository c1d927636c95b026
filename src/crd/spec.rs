//! What `#[derive(CustomResource)]` is on: the spec item (a struct or an enum), and the checks kube-derive makes
//! on it and its `#[kube(...)]` at compile time beyond the attribute parser in [`crate::source::kube_attrs`] (the
//! derives kubesmith cannot build from at all are in [`super::unbuildable`]).

use proc_macro2::Span;

use super::error::{CrdError, CrdErrorKind};
pub use crate::source::kube_attrs::custom_resource_derive;
use crate::source::kube_attrs::{self, KubeAttrs, SchemaMode};

/// Fields a `#[kube(no_spec)]` struct may not have: the root object already holds them (kube-derive's
/// `RESERVED_ROOT_FIELDS`).
const RESERVED_ROOT_FIELDS: [&str; 5] = ["apiVersion", "api_version", "kind", "metadata", "status"];

/// The item a `#[derive(CustomResource)]` is on.
#[derive(Clone, Copy)]
pub struct SpecItem<'a> {
    /// Its name (`FooSpec`).
    pub ident: &'a syn::Ident,
    /// Its attributes (`#[kube]`, `#[serde]`, docs...).
    pub attrs: &'a [syn::Attribute],
    /// The `CustomResource` of its derive, where kube-derive reports what applies to the whole derive.
    pub derive_span: Span,
    /// The named fields of a struct; `None` for an enum.
    pub fields: Option<&'a syn::Fields>,
}

impl<'a> SpecItem<'a> {
    /// A struct spec, when it derives `CustomResource`.
    pub fn of_struct(s: &'a syn::ItemStruct) -> Option<Self> {
        let derive_span = custom_resource_derive(&s.attrs)?;
        Some(Self { ident: &s.ident, attrs: &s.attrs, derive_span, fields: Some(&s.fields) })
    }

    /// An enum spec, when it derives `CustomResource`.
    pub fn of_enum(e: &'a syn::ItemEnum) -> Option<Self> {
        let derive_span = custom_resource_derive(&e.attrs)?;
        Some(Self { ident: &e.ident, attrs: &e.attrs, derive_span, fields: None })
    }

    /// `#[kube(...)]` read as kube-derive's parser reads it.
    pub fn kube_attrs(&self) -> syn::Result<KubeAttrs> {
        kube_attrs::parse(self.attrs, self.derive_span)
    }
}

/// `(group, kind, plural.group)` of a kind, as `crd()` names it.
pub fn crd_key(k: &KubeAttrs) -> (String, String, String) {
    let singular = k.singular.clone().unwrap_or_else(|| k.kind.to_ascii_lowercase());
    let plural = k.plural.clone().unwrap_or_else(|| kube_attrs::to_plural(&singular));
    (k.group.clone(), k.kind.clone(), format!("{plural}.{}", k.group))
}

/// kube-derive's own compile errors for this spec and its `#[kube(...)]` (in `file`), beyond those of the
/// attribute parser: each stops the crate from compiling, so there is no `crd()` to match.
pub fn compile_errors(file: &std::path::Path, spec: &SpecItem, k: &KubeAttrs) -> Vec<CrdError> {
    let kube = |span: Span, msg: String| CrdError::at(file, span, CrdErrorKind::KubeAttr(msg));
    let mut out = Vec::new();
    let root = k.root.clone().unwrap_or_else(|| k.kind.clone());
    let what = if k.root.is_some() { "root" } else { "kind" };
    if !kube_attrs::is_type_name(&root) {
        out.push(kube(
            spec.derive_span,
            format!(
                "`{what} = \"{root}\"` is not a Rust identifier, and kube-derive names the generated root type after \
                 it; set `root = \"...\"` to a type name (the kind itself may stay as it is)"
            ),
        ));
    } else if *spec.ident == root {
        out.push(kube(
            spec.ident.span(),
            format!(
                "`{what} = \"{root}\"` must not equal the struct name: kube-derive generates a type of that name; \
                 rename the spec (e.g. {root}Spec)"
            ),
        ));
    }
    if k.no_spec {
        match spec.fields {
            None => out.push(kube(
                spec.ident.span(),
                "`kube(no_spec)` requires a struct with named fields; an enum has no properties to lift onto the \
                 root: drop no_spec or make the spec a struct"
                    .into(),
            )),
            Some(syn::Fields::Named(named)) => {
                for f in named.named.iter().filter_map(|f| f.ident.as_ref()) {
                    if RESERVED_ROOT_FIELDS.iter().any(|r| f == r) {
                        out.push(kube(
                            f.span(),
                            format!(
                                "`kube(no_spec)` lifts this field onto the root object, where `{f}` is already \
                                 taken; rename the field (keep its wire name with #[serde(rename)] only if it is \
                                 not `{f}` either)"
                            ),
                        ));
                    }
                }
            }
            Some(_) => out.push(kube(
                spec.ident.span(),
                "`kube(no_spec)` requires a struct with named fields; a tuple or unit struct has no properties to \
                 lift onto the root: name the fields or drop no_spec"
                    .into(),
            )),
        }
    }
    let mode = match k.schema.0 {
        SchemaMode::Derived => None,
        SchemaMode::Manual => Some("manual"),
        SchemaMode::Disabled => Some("disabled"),
    };
    if let (Some(mode), Some(_)) = (mode, k.cel) {
        out.push(kube(
            spec.derive_span,
            format!(
                "#[kube(cel)] requires a derived schema; it cannot be combined with `schema = \"{mode}\"` (the \
                 generated `validate_cel` would check no rule): drop `cel` or the schema mode"
            ),
        ));
    }
    if let (Some(mode), false) = (mode, k.validations.is_empty()) {
        out.push(kube(
            spec.derive_span,
            format!(
                "#[kube(validation = ..)] requires a derived schema; with `schema = \"{mode}\"` kube-derive still \
                 puts `#[x_kube(validation = ..)]` on the root type, which nothing derives (cannot find attribute \
                 `x_kube`): move the rules into the schema or drop the schema mode"
            ),
        ));
    }
    out
}
