//! What `#[derive(CustomResource)]` is on: the spec item (a struct or an enum), the checks kube-derive makes on
//! it and its `#[kube(...)]` at compile time (beyond the attribute parser in [`super::kube_attrs`]), and the
//! derives kubesmith cannot build a CRD from (a union, a derive inside a fn body or a macro, or under
//! `cfg_attr`), which are reported instead of being skipped in silence.

use proc_macro2::Span;
use syn::punctuated::Punctuated;

use super::error::{CrdError, CrdErrorKind};
use super::index::{CrateIndex, ModId};
use super::kube_attrs::{self, KubeAttrs, SchemaMode};

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

/// The span of `CustomResource` in the item's `#[derive(...)]`, if it derives it.
pub fn custom_resource_derive(attrs: &[syn::Attribute]) -> Option<Span> {
    attrs.iter().filter(|a| a.path().is_ident("derive")).find_map(|a| {
        let paths = a.parse_args_with(Punctuated::<syn::Path, syn::Token![,]>::parse_terminated).ok()?;
        let p = paths.iter().find(|p| p.segments.last().is_some_and(|s| s.ident == "CustomResource"))?;
        p.segments.last().map(|s| s.ident.span())
    })
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
    if syn::parse_str::<syn::Ident>(&root).is_err() {
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

/// A `#[derive(CustomResource)]` that yields no CRD by construction, with the kind it names when its
/// `#[kube(...)]` can be read.
pub struct Unbuildable {
    /// `(group, kind, plural.group)`.
    pub key: Option<(String, String, String)>,
    /// Why.
    pub error: CrdError,
}

/// Every `#[derive(CustomResource)]` of the crate that is not on a module-level struct or enum: on a union
/// (kube-derive refuses it), inside a fn body or a macro (kubesmith cannot reach the kind), or under
/// `#[cfg_attr(..)]` (kubesmith does not evaluate cfg).
pub fn unbuildable(ix: &CrateIndex) -> Vec<Unbuildable> {
    let mut out = Vec::new();
    // Where the derives kubesmith builds from are: (file, line, column) of their `CustomResource`.
    let mut seen = std::collections::BTreeSet::new();
    for item in &ix.items {
        let span = match &item.kind {
            super::index::ItemKind::Struct(s) => custom_resource_derive(&s.attrs),
            super::index::ItemKind::Enum(e) => custom_resource_derive(&e.attrs),
            _ => None,
        };
        if let Some(span) = span {
            seen.insert(site_of(ix, item.module, span));
        }
    }
    for (m, u) in &ix.unions {
        let Some(span) = custom_resource_derive(&u.attrs) else { continue };
        seen.insert(site_of(ix, *m, span));
        let key = kube_attrs::parse(&u.attrs, span).ok().map(|k| crd_key(&k));
        let error = CrdError::at(
            ix.module_file(*m),
            u.ident.span(),
            CrdErrorKind::KubeAttr(format!(
                "union `{}` cannot #[derive(CustomResource)]: kube-derive refuses unions (Unions can not \
                 #[derive(CustomResource)]); make the spec a struct or an enum",
                u.ident
            )),
        );
        out.push(Unbuildable { key, error });
    }
    for (f, file) in ix.files.iter().enumerate() {
        if file.stub.is_some() || !file.text.contains("CustomResource") {
            continue;
        }
        for site in derive_sites(&file.text) {
            if seen.contains(&(f, site.line, site.column)) {
                continue;
            }
            let (where_, fix) = if site.cfg_attr {
                ("under #[cfg_attr(..)], which kubesmith does not evaluate", "derive it unconditionally")
            } else {
                (
                    "not on a struct or enum at module level (it is inside a fn body, an impl or a macro), so \
                     kubesmith cannot reach the kind",
                    "move the spec to module level",
                )
            };
            let error = CrdError {
                path: file.path.clone(),
                line: site.line,
                column: site.column,
                kind: CrdErrorKind::Unsupported {
                    construct: format!("#[derive(CustomResource)] {where_}"),
                    fix: fix.to_string(),
                },
            };
            out.push(Unbuildable { key: site.key, error });
        }
    }
    out
}

fn site_of(ix: &CrateIndex, m: ModId, span: Span) -> (usize, usize, usize) {
    let start = span.start();
    (ix.modules[m].file, start.line, start.column + 1)
}

/// A `CustomResource` inside a derive attribute, found lexically.
#[derive(Debug, PartialEq)]
struct DeriveSite {
    line: usize,
    column: usize,
    cfg_attr: bool,
    /// The kind its `#[kube(...)]` names, when the attributes that follow can be read.
    key: Option<(String, String, String)>,
}

/// Every `CustomResource` named in a `#[derive(..)]` or `#[cfg_attr(.., derive(..))]` of `text`, outside
/// comments, literals and `#[cfg(test)]` modules (which the index skips on purpose).
fn derive_sites(text: &str) -> Vec<DeriveSite> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if let Some(next) = super::index::skip_literal(b, i) {
            i = next;
            continue;
        }
        if b[i] != b'#' {
            i += 1;
            continue;
        }
        if let Some((_, close)) = super::index::cfg_test_module_body(b, i) {
            i = close + 1;
            continue;
        }
        let Some(end) = attribute_end(b, i) else {
            i += 1;
            continue;
        };
        let body = &text[i..end];
        let inner = body.trim_start_matches('#').trim_start().trim_start_matches('[').trim_start();
        let cfg_attr = inner.starts_with("cfg_attr");
        if inner.starts_with("derive") || cfg_attr {
            for at in word_positions(body, "CustomResource") {
                let (line, column) = line_col(text, i + at);
                let key = if cfg_attr { None } else { kind_after(text, i) };
                out.push(DeriveSite { line, column, cfg_attr, key: key.clone() });
            }
        }
        i = end;
    }
    out
}

/// The end (just after `]`) of the outer attribute starting with `#` at `at`.
fn attribute_end(b: &[u8], at: usize) -> Option<usize> {
    let mut k = at + 1;
    while k < b.len() && b[k].is_ascii_whitespace() {
        k += 1;
    }
    if b.get(k) != Some(&b'[') {
        return None;
    }
    let mut depth = 0usize;
    while k < b.len() {
        if let Some(next) = super::index::skip_literal(b, k) {
            k = next;
            continue;
        }
        match b[k] {
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k + 1);
                }
            }
            _ => {}
        }
        k += 1;
    }
    None
}

/// Byte offsets of `word` as a whole identifier in `s`.
fn word_positions(s: &str, word: &str) -> Vec<usize> {
    let is_ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let b = s.as_bytes();
    s.match_indices(word)
        .map(|(p, _)| p)
        .filter(|&p| (p == 0 || !is_ident(b[p - 1])) && b.get(p + word.len()).is_none_or(|&c| !is_ident(c)))
        .collect()
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// The kind named by the outer attributes that start at `at` (the derive and its neighbours), if they read.
fn kind_after(text: &str, at: usize) -> Option<(String, String, String)> {
    let b = text.as_bytes();
    let mut k = at;
    loop {
        while k < b.len() && b[k].is_ascii_whitespace() {
            k += 1;
        }
        if b.get(k) == Some(&b'/') && matches!(b.get(k + 1), Some(b'/' | b'*')) {
            k = super::index::skip_literal(b, k)?;
            continue;
        }
        if b.get(k) != Some(&b'#') {
            break;
        }
        k = attribute_end(b, k)?;
    }
    let attrs = syn::parse::Parser::parse_str(syn::Attribute::parse_outer, &text[at..k]).ok()?;
    let k = kube_attrs::parse(&attrs, Span::call_site()).ok()?;
    Some(crd_key(&k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derive_sites_skip_comments_literals_and_test_modules() {
        let src = r##"// #[derive(CustomResource)]
const S: &str = "#[derive(CustomResource)]";
#[derive(Clone, kube::CustomResource, Debug)]
#[kube(group = "g.io", version = "v1", kind = "Top")]
struct TopSpec {}
fn f() {
    #[derive(CustomResource)]
    #[kube(group = "g.io", version = "v1", kind = "Inner")]
    struct InnerSpec {}
}
#[cfg_attr(feature = "crd", derive(CustomResource))]
struct Gated {}
#[derive(CustomResourceExt)]
struct NotIt;
#[cfg(test)]
mod tests {
    #[derive(CustomResource)]
    struct Hidden {}
}
"##;
        let sites = derive_sites(src);
        let lines: Vec<(usize, usize, bool)> = sites.iter().map(|s| (s.line, s.column, s.cfg_attr)).collect();
        assert_eq!(lines, [(3, 23, false), (7, 14, false), (11, 36, true)]);
        assert_eq!(sites[1].key, Some(("g.io".into(), "Inner".into(), "inners.g.io".into())));
        assert_eq!(sites[2].key, None);
    }
}
