//! stackable-versioned's `#[versioned(version(name = "v1alpha1"), version(name = "v1"))] mod versioned { .. }`,
//! expanded as its macro does, to the extent a CRD's schema sees: one module per version (`mod v1alpha1 { use
//! super::*; .. }`), each holding every struct and enum of the written module as it is in that version — fields
//! and variants `added`, `changed` (`from_name`, `from_type`) and `deprecated` (`deprecated_` / `Deprecated`
//! prefixes) per version, the version's `doc` lines first, `#[deprecated]` where the macro puts it, and
//! `#[versioned(crd(..))]` turned into the `#[kube(group, version, kind, doc, ..)]` the macro writes. What only
//! conversions use (`From` impls, the entry enum with `merged_crd`, `hint`, `nested`, upgrade functions) is left
//! out. Anything the expansion does not model (an unknown argument, conversion tracking's generated status, an
//! item the macro refuses) leaves the module as written, so the kinds go to the compiled fallback as before.
//!
//! Only the macro of stackable's crates is expanded (its path, or a `use` of it, starts with `stackable`): another
//! crate's `versioned` may mean something else.

use std::collections::BTreeMap;

/// The attribute each version module of an expansion carries (inert: nothing compiles the expansion), so that a
/// kind's versions can be known as the macro's, whose merged CRD stores the version a `Kind::merged_crd(..)` call
/// names, else the newest.
pub(crate) const EXPANDED: &str = "kubesmith_stackable_versioned";

use proc_macro2::Span;
use quote::quote;
use syn::parse::ParseStream;

/// `items` with every stackable-versioned module replaced by its version modules.
pub(crate) fn expand_all(items: Vec<syn::Item>) -> Vec<syn::Item> {
    let named = |a: &syn::Attribute| a.path().segments.last().is_some_and(|s| s.ident == "versioned");
    if !items.iter().any(|i| matches!(i, syn::Item::Mod(m) if m.attrs.iter().any(named))) {
        return items;
    }
    let imported = imports_stackable_versioned(&items);
    if !items.iter().any(|i| matches!(i, syn::Item::Mod(m) if macro_attr(&m.attrs, imported).is_some())) {
        return items;
    }
    let mut out = Vec::with_capacity(items.len() + 2);
    for item in items {
        match item {
            syn::Item::Mod(m) if macro_attr(&m.attrs, imported).is_some() => match expand(&m, imported) {
                Some(expanded) => out.extend(expanded),
                None => out.push(syn::Item::Mod(m)),
            },
            other => out.push(other),
        }
    }
    out
}

/// Whether `items` import `versioned` from a stackable crate (`use stackable_operator::versioned::versioned;`).
fn imports_stackable_versioned(items: &[syn::Item]) -> bool {
    items.iter().any(|i| {
        let syn::Item::Use(u) = i else { return false };
        let mut entries = Vec::new();
        super::syntax::flatten_use(&u.tree, &mut Vec::new(), &mut entries);
        entries.iter().any(|e| {
            !e.glob
                && e.alias == "versioned"
                && e.path.first().is_some_and(|s| s.starts_with("stackable"))
                && e.path.last().is_some_and(|s| s == "versioned")
        })
    })
}

/// The `#[versioned(..)]` attribute of stackable's macro among `attrs`.
fn macro_attr(attrs: &[syn::Attribute], imported: bool) -> Option<&syn::Attribute> {
    attrs.iter().find(|a| {
        let segs: Vec<String> = a.path().segments.iter().map(|s| s.ident.to_string()).collect();
        match segs.as_slice() {
            [one] => one == "versioned" && imported,
            [first, .., last] => last == "versioned" && first.starts_with("stackable"),
            [] => false,
        }
    })
}

/// A version's place in Kubernetes' version order ([`version_order`]).
type Order = (u64, u8, u64);

/// A declared version: its name, its place in Kubernetes' version order, its doc lines and deprecation.
struct Version {
    name: String,
    order: (u64, u8, u64),
    docs: Vec<String>,
    deprecated: Option<Option<String>>,
}

/// Where `name` (`v1`, `v2beta3`) sits in the order stackable-versioned keeps: by major, then alpha < beta <
/// stable, then the alpha or beta number.
pub(crate) fn version_order(name: &str) -> Option<Order> {
    crate::names::version_parts(name)
}

/// The module attribute's arguments kubesmith needs.
struct ModuleArgs {
    versions: Vec<Version>,
    preserve_module: bool,
    conversion_tracking: bool,
}

fn string(m: &syn::meta::ParseNestedMeta) -> syn::Result<String> {
    Ok(m.value()?.parse::<syn::LitStr>()?.value())
}

/// Skips a `key = value` or `key(..)` argument whose content does not matter here.
fn skip(m: &syn::meta::ParseNestedMeta) -> syn::Result<()> {
    if m.input.peek(syn::Token![=]) {
        m.value()?.parse::<syn::Expr>()?;
    } else if m.input.peek(syn::token::Paren) {
        m.input.parse::<proc_macro2::Group>()?;
    }
    Ok(())
}

/// How the attributes' readers take what they do not model: the expansion refuses the module (`Strict`: its kinds
/// go to the compiled fallback); the readers of names alone ([`version_names`], [`spec_kind`]) skip it (`Lenient`),
/// so a newer macro's argument still leaves RBAC inference the versions and kinds it names.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Strict,
    Lenient,
}

/// An argument the expansion does not model: an error in [`Mode::Strict`], skipped in [`Mode::Lenient`].
fn unknown(m: &syn::meta::ParseNestedMeta, mode: Mode) -> syn::Result<()> {
    match mode {
        Mode::Strict => Err(m.error("an argument the expansion does not model")),
        Mode::Lenient => skip(m),
    }
}

fn module_args(attr: &syn::Attribute, mode: Mode) -> syn::Result<ModuleArgs> {
    let mut args = ModuleArgs { versions: Vec::new(), preserve_module: false, conversion_tracking: false };
    attr.parse_nested_meta(|m| {
        if m.path.is_ident("version") {
            let (mut name, mut docs, mut deprecated) = (None, Vec::new(), None);
            m.parse_nested_meta(|v| {
                if v.path.is_ident("name") {
                    name = Some(string(&v)?);
                } else if v.path.is_ident("doc") {
                    docs = doc_lines(&string(&v)?);
                } else if v.path.is_ident("deprecated") {
                    deprecated = Some(if v.input.peek(syn::Token![=]) { Some(string(&v)?) } else { None });
                } else if v.path.is_ident("skip") {
                    skip(&v)?;
                } else {
                    unknown(&v, mode)?;
                }
                Ok(())
            })?;
            let Some(name) = name else {
                return if mode == Mode::Lenient { Ok(()) } else { Err(m.error("a version without a name")) };
            };
            let order = match (version_order(&name), mode) {
                (Some(order), _) => order,
                // Named all the same; placed last.
                (None, Mode::Lenient) => (u64::MAX, u8::MAX, u64::MAX),
                (None, Mode::Strict) => return Err(m.error("not a Kubernetes version")),
            };
            let deprecated = deprecated
                .map(|note: Option<String>| Some(note.unwrap_or_else(|| format!("Version {name} is deprecated"))));
            args.versions.push(Version { name, order, docs, deprecated });
        } else if m.path.is_ident("options") {
            m.parse_nested_meta(|o| {
                if o.path.is_ident("preserve_module") {
                    args.preserve_module = true;
                } else if o.path.is_ident("allow_unsorted") {
                } else if o.path.is_ident("k8s") {
                    o.parse_nested_meta(|k| {
                        if k.path.is_ident("experimental_conversion_tracking") {
                            args.conversion_tracking = true;
                        } else if !k.path.is_ident("enable_tracing") {
                            unknown(&k, mode)?;
                        }
                        Ok(())
                    })?;
                } else {
                    unknown(&o, mode)?;
                }
                Ok(())
            })?;
        } else if m.path.is_ident("crates") || m.path.is_ident("skip") {
            skip(&m)?;
        } else {
            unknown(&m, mode)?;
        }
        Ok(())
    })?;
    if args.versions.is_empty() && mode == Mode::Strict {
        return Err(syn::Error::new(Span::call_site(), "no version"));
    }
    args.versions.sort_by_key(|v| v.order);
    Ok(args)
}

/// The names of the version modules a `#[versioned(version(name = ..), ..)]` module attribute among `attrs` makes
/// the macro write (`v1alpha1`, `v1`), read leniently ([`Mode::Lenient`]): RBAC inference's loader names a module
/// the expansion leaves as written by them too (`v1alpha1::Kind`).
pub(crate) fn version_names(attrs: &[syn::Attribute]) -> Vec<String> {
    let args =
        attrs.iter().filter(|a| a.path().is_ident("versioned")).filter_map(|a| module_args(a, Mode::Lenient).ok());
    args.flat_map(|args| args.versions.into_iter().map(|v| v.name)).collect()
}

/// A version's `doc` as the macro splits it: trimmed, then each line trimmed.
fn doc_lines(doc: &str) -> Vec<String> {
    doc.trim().lines().map(|l| l.trim().to_string()).collect()
}

/// `#[versioned(crd(..))]` on a spec struct.
#[derive(Default)]
struct CrdArgs {
    group: String,
    kind: Option<String>,
    singular: Option<String>,
    plural: Option<String>,
    namespaced: bool,
    status: Option<String>,
    scale: Option<(String, String, Option<String>)>,
    shortnames: Vec<String>,
    doc: Option<String>,
}

fn crd_args(m: &syn::meta::ParseNestedMeta, mode: Mode) -> syn::Result<CrdArgs> {
    let mut c = CrdArgs::default();
    m.parse_nested_meta(|a| {
        let key = a.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
        match key.as_str() {
            "group" => c.group = string(&a)?,
            "kind" => c.kind = Some(string(&a)?),
            "singular" => c.singular = Some(string(&a)?),
            "plural" => c.plural = Some(string(&a)?),
            "namespaced" => c.namespaced = true,
            "status" => c.status = Some(path_text(&a)?),
            "shortname" => c.shortnames.push(string(&a)?),
            "doc" => c.doc = Some(string(&a)?),
            "scale" => {
                let (mut spec, mut status, mut selector) = (None, None, None);
                a.parse_nested_meta(|s| {
                    if s.path.is_ident("spec_replicas_path") {
                        spec = Some(string(&s)?);
                    } else if s.path.is_ident("status_replicas_path") {
                        status = Some(string(&s)?);
                    } else if s.path.is_ident("label_selector_path") {
                        selector = Some(string(&s)?);
                    } else {
                        unknown(&s, mode)?;
                    }
                    Ok(())
                })?;
                c.scale = Some((
                    spec.ok_or_else(|| a.error("scale without spec_replicas_path"))?,
                    status.ok_or_else(|| a.error("scale without status_replicas_path"))?,
                    selector,
                ));
            }
            _ => unknown(&a, mode)?,
        }
        Ok(())
    })?;
    if c.group.is_empty() {
        return Err(m.error("crd(..) without a group"));
    }
    Ok(c)
}

/// A path given as a string (`status = "v1::FooStatus"`) or written out (`status = v1::FooStatus`).
fn path_text(m: &syn::meta::ParseNestedMeta) -> syn::Result<String> {
    let input: ParseStream = m.value()?;
    if input.peek(syn::LitStr) {
        return Ok(input.parse::<syn::LitStr>()?.value());
    }
    let path: syn::Path = input.parse()?;
    Ok(quote!(#path).to_string().replace(' ', ""))
}

/// A field's or variant's actions, each at a version's place in the order.
#[derive(Default)]
struct Actions {
    added: Option<(u64, u8, u64)>,
    /// `(since, from_name, from_type)`, as declared.
    changed: Vec<(Order, Option<String>, Option<syn::Type>)>,
    deprecated: Option<((u64, u8, u64), Option<String>)>,
}

/// The actions of an item's `#[versioned(..)]` attributes; `versions` are the declared ones (an action naming
/// another is the macro's error).
fn actions(attrs: &[syn::Attribute], versions: &[Version]) -> syn::Result<Actions> {
    let mut out = Actions::default();
    let since = |m: &syn::meta::ParseNestedMeta, v: &mut Option<(u64, u8, u64)>| -> syn::Result<()> {
        let name = string(m)?;
        let order = versions
            .iter()
            .find(|d| d.name == name)
            .map(|d| d.order)
            .ok_or_else(|| m.error("a version the module does not declare"))?;
        *v = Some(order);
        Ok(())
    };
    for a in attrs.iter().filter(|a| a.path().is_ident("versioned")) {
        a.parse_nested_meta(|m| {
            if m.path.is_ident("added") {
                let mut at = None;
                m.parse_nested_meta(|x| if x.path.is_ident("since") { since(&x, &mut at) } else { skip(&x) })?;
                out.added = Some(at.ok_or_else(|| m.error("added without since"))?);
            } else if m.path.is_ident("changed") {
                let (mut at, mut from_name, mut from_type) = (None, None, None);
                m.parse_nested_meta(|x| {
                    if x.path.is_ident("since") {
                        since(&x, &mut at)
                    } else if x.path.is_ident("from_name") {
                        from_name = Some(string(&x)?);
                        Ok(())
                    } else if x.path.is_ident("from_type") {
                        from_type = Some(syn::parse_str::<syn::Type>(&string(&x)?)?);
                        Ok(())
                    } else {
                        skip(&x)
                    }
                })?;
                out.changed.push((at.ok_or_else(|| m.error("changed without since"))?, from_name, from_type));
            } else if m.path.is_ident("deprecated") {
                let (mut at, mut note) = (None, None);
                m.parse_nested_meta(|x| {
                    if x.path.is_ident("since") {
                        since(&x, &mut at)
                    } else if x.path.is_ident("note") {
                        note = Some(string(&x)?);
                        Ok(())
                    } else {
                        skip(&x)
                    }
                })?;
                out.deprecated = Some((at.ok_or_else(|| m.error("deprecated without since"))?, note));
            } else if m.path.is_ident("hint") || m.path.is_ident("nested") {
                skip(&m)?;
            } else {
                unknown(&m, Mode::Strict)?;
            }
            Ok(())
        })?;
    }
    Ok(out)
}

/// What an item is in one version.
#[derive(Clone)]
enum Shape {
    Absent,
    /// Its name, its type (fields only), and the `#[deprecated]` the macro writes on it.
    Present(syn::Ident, Option<Box<syn::Type>>, Option<Option<String>>),
}

/// The item's shape in each of `versions`, worked out as the macro's change sets are: the declared name and type
/// are the last ones; each change, from the newest back, names what the item was before it; a deprecation names it
/// without its `prefix` before.
fn shapes(
    ident: &syn::Ident,
    ty: Option<&syn::Type>,
    actions: &Actions,
    versions: &[Version],
    prefix: &str,
) -> Vec<Shape> {
    let mut events: BTreeMap<(u64, u8, u64), Shape> = BTreeMap::new();
    let mut name = ident.clone();
    let mut ty = ty.cloned().map(Box::new);
    if let Some((at, note)) = &actions.deprecated {
        events.insert(*at, Shape::Present(name.clone(), ty.clone(), Some(note.clone())));
        let text = ident.to_string();
        name = syn::Ident::new(text.strip_prefix(prefix).unwrap_or(&text), ident.span());
    }
    for (at, from_name, from_type) in actions.changed.iter().rev() {
        events.insert(*at, Shape::Present(name.clone(), ty.clone(), None));
        if let Some(from) = from_name {
            name = syn::Ident::new(from, ident.span());
        }
        if let Some(from) = from_type {
            ty = Some(Box::new(from.clone()));
        }
    }
    let before = match actions.added {
        Some(at) => {
            events.insert(at, Shape::Present(name, ty, None));
            Shape::Absent
        }
        None => Shape::Present(name, ty, None),
    };
    versions
        .iter()
        .map(|v| {
            let mut latest = events.range(..=v.order);
            match latest.next_back() {
                None => before.clone(),
                Some((at, shape)) => match shape {
                    // After its deprecation, an item keeps a plain `#[deprecated]`.
                    Shape::Present(n, t, Some(_)) if *at != v.order => Shape::Present(n.clone(), t.clone(), Some(None)),
                    other => other.clone(),
                },
            }
        })
        .collect()
}

fn deprecated_attr(note: &Option<String>) -> syn::Attribute {
    match note {
        Some(note) => syn::parse_quote!(#[deprecated = #note]),
        None => syn::parse_quote!(#[deprecated]),
    }
}

fn without_macro(attrs: &[syn::Attribute]) -> Vec<syn::Attribute> {
    attrs.iter().filter(|a| !a.path().is_ident("versioned")).cloned().collect()
}

/// A struct or enum of the module in every version.
enum Container {
    Struct(Box<syn::ItemStruct>, Vec<Vec<Shape>>, Option<Box<CrdArgs>>),
    Enum(Box<syn::ItemEnum>, Vec<Vec<Shape>>),
}

fn container_crd(attrs: &[syn::Attribute], mode: Mode) -> syn::Result<Option<CrdArgs>> {
    let mut crd = None;
    for a in attrs.iter().filter(|a| a.path().is_ident("versioned")) {
        a.parse_nested_meta(|m| {
            if m.path.is_ident("crd") {
                crd = Some(crd_args(&m, mode)?);
            } else if m.path.is_ident("skip") {
                skip(&m)?;
            } else {
                unknown(&m, mode)?;
            }
            Ok(())
        })?;
    }
    Ok(crd)
}

/// The kind a spec struct inside a stackable-versioned module declares with `#[versioned(crd(group = .., ..))]`,
/// read leniently ([`Mode::Lenient`]), as the macro names it in each version ([`kube_attr`]): for RBAC inference, in
/// a module the expansion leaves as written. `None` for a struct without `crd(..)` (or whose `crd(..)` has no group).
pub(crate) fn spec_kind(attrs: &[syn::Attribute], ident: &syn::Ident) -> Option<SpecKind> {
    let crd = container_crd(attrs, Mode::Lenient).ok()??;
    let kind = kind_of(&crd, ident);
    Some(SpecKind { group: crd.group, kind, singular: crd.singular, plural: crd.plural, namespaced: crd.namespaced })
}

/// What [`spec_kind`] reads of a `#[versioned(crd(..))]`: what the `#[kube(..)]` the macro writes names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SpecKind {
    pub(crate) group: String,
    /// `kind`, else the struct's name without its `Spec` suffix.
    pub(crate) kind: String,
    pub(crate) singular: Option<String>,
    pub(crate) plural: Option<String>,
    pub(crate) namespaced: bool,
}

/// The kind the macro gives a spec struct: `kind`, else the struct's name without its `Spec` suffix.
fn kind_of(crd: &CrdArgs, ident: &syn::Ident) -> String {
    crd.kind.clone().unwrap_or_else(|| {
        let mut k = ident.to_string();
        while let Some(stripped) = k.strip_suffix("Spec") {
            k = stripped.to_string();
        }
        k
    })
}

/// The version modules for `m`, or `None` when the expansion does not model what it holds.
fn expand(m: &syn::ItemMod, imported: bool) -> Option<Vec<syn::Item>> {
    let args = module_args(macro_attr(&m.attrs, imported)?, Mode::Strict).ok()?;
    let (_, items) = m.content.as_ref()?;
    let versions = &args.versions;
    let mut containers = Vec::new();
    let mut uses: BTreeMap<String, Vec<syn::Item>> = BTreeMap::new();
    for item in items {
        match item {
            syn::Item::Struct(s) => {
                let crd = container_crd(&s.attrs, Mode::Strict).ok()?;
                if crd.is_some() && (args.conversion_tracking || !s.ident.to_string().ends_with("Spec")) {
                    return None;
                }
                let syn::Fields::Named(fields) = &s.fields else {
                    return None;
                };
                let mut per_field = Vec::new();
                for f in &fields.named {
                    let acts = actions(&f.attrs, versions).ok()?;
                    per_field.push(shapes(f.ident.as_ref()?, Some(&f.ty), &acts, versions, "deprecated_"));
                }
                containers.push(Container::Struct(Box::new(s.clone()), per_field, crd.map(Box::new)));
            }
            syn::Item::Enum(e) => {
                if container_crd(&e.attrs, Mode::Strict).ok()?.is_some() {
                    return None;
                }
                let mut per_variant = Vec::new();
                for v in &e.variants {
                    let acts = actions(&v.attrs, versions).ok()?;
                    per_variant.push(shapes(&v.ident, None, &acts, versions, "Deprecated"));
                }
                containers.push(Container::Enum(Box::new(e.clone()), per_variant));
            }
            syn::Item::Mod(sub) => {
                let name = sub.ident.to_string();
                if !versions.iter().any(|v| v.name == name) {
                    return None;
                }
                let (_, sub_items) = sub.content.as_ref()?;
                if !sub_items.iter().all(|i| matches!(i, syn::Item::Use(_))) {
                    return None;
                }
                uses.insert(name, sub_items.clone());
            }
            _ => return None,
        }
    }
    let module_vis: syn::Visibility = if args.preserve_module { syn::parse_quote!(pub) } else { m.vis.clone() };
    let mut modules = Vec::new();
    for (i, version) in versions.iter().enumerate() {
        let mut body: Vec<syn::Item> = vec![syn::parse_quote!(
            use super::*;
        )];
        body.extend(uses.get(&version.name).cloned().unwrap_or_default());
        for c in &containers {
            body.push(container_in(c, i, version));
        }
        let ident = syn::Ident::new(&version.name, m.ident.span());
        let marker = syn::Ident::new(EXPANDED, Span::call_site());
        let mut attrs: Vec<syn::Attribute> = vec![syn::parse_quote!(#[#marker])];
        if let Some(note) = &version.deprecated {
            attrs.push(deprecated_attr(note));
        }
        modules.push(syn::Item::Mod(syn::ItemMod {
            attrs,
            vis: module_vis.clone(),
            unsafety: None,
            mod_token: m.mod_token,
            ident,
            content: Some((m.content.as_ref()?.0, body)),
            semi: None,
        }));
    }
    if !args.preserve_module {
        return Some(modules);
    }
    let mut kept = m.clone();
    let at = m.attrs.iter().position(|a| macro_attr(std::slice::from_ref(a), imported).is_some())?;
    kept.attrs.remove(at);
    kept.content = Some((m.content.as_ref()?.0, modules));
    Some(vec![syn::Item::Mod(kept)])
}

/// Container `c` as version `i` (`version`) has it.
fn container_in(c: &Container, i: usize, version: &Version) -> syn::Item {
    let docs: Vec<syn::Attribute> = version.docs.iter().map(|d| syn::parse_quote!(#[doc = #d])).collect();
    match c {
        Container::Struct(s, fields, crd) => {
            let mut s = (**s).clone();
            let mut attrs = docs;
            attrs.extend(without_macro(&s.attrs));
            if let Some(crd) = crd {
                attrs.push(kube_attr(crd, &s.ident, version));
            }
            s.attrs = attrs;
            s.vis = syn::parse_quote!(pub);
            if let syn::Fields::Named(named) = &mut s.fields {
                let old = std::mem::take(&mut named.named);
                for (pair, shapes) in old.into_pairs().zip(fields) {
                    let mut f = pair.into_value();
                    let Shape::Present(ident, ty, deprecated) = &shapes[i] else { continue };
                    f.attrs = without_macro(&f.attrs);
                    if let Some(note) = deprecated {
                        f.attrs.push(deprecated_attr(note));
                    }
                    f.vis = syn::parse_quote!(pub);
                    f.ident = Some(ident.clone());
                    if let Some(ty) = ty {
                        f.ty = (**ty).clone();
                    }
                    named.named.push(f);
                }
            }
            syn::Item::Struct(s)
        }
        Container::Enum(e, variants) => {
            let mut e = (**e).clone();
            let mut attrs = docs;
            attrs.extend(without_macro(&e.attrs));
            e.attrs = attrs;
            e.vis = syn::parse_quote!(pub);
            let old = std::mem::take(&mut e.variants);
            for (pair, shapes) in old.into_pairs().zip(variants) {
                let mut v = pair.into_value();
                let Shape::Present(ident, _, deprecated) = &shapes[i] else { continue };
                v.attrs = without_macro(&v.attrs);
                if let Some(note) = deprecated {
                    v.attrs.push(deprecated_attr(note));
                }
                v.ident = ident.clone();
                e.variants.push(v);
            }
            syn::Item::Enum(e)
        }
    }
}

/// The `#[kube(..)]` the macro writes on a spec struct for `version`; the kind is the struct's name without its
/// `Spec` suffix unless `kind` says otherwise.
fn kube_attr(crd: &CrdArgs, ident: &syn::Ident, version: &Version) -> syn::Attribute {
    let group = &crd.group;
    let name = &version.name;
    let kind = kind_of(crd, ident);
    let mut args = vec![quote!(group = #group), quote!(version = #name), quote!(kind = #kind)];
    if let Some(doc) = &crd.doc {
        args.push(quote!(doc = #doc));
    }
    if let Some(s) = &crd.singular {
        args.push(quote!(singular = #s));
    }
    if let Some(p) = &crd.plural {
        args.push(quote!(plural = #p));
    }
    if crd.namespaced {
        args.push(quote!(namespaced));
    }
    if let Some(s) = &crd.status {
        args.push(quote!(status = #s));
    }
    if let Some((spec, status, selector)) = &crd.scale {
        let selector = selector.as_ref().map(|l| quote!(, label_selector_path = #l));
        args.push(quote!(scale(spec_replicas_path = #spec, status_replicas_path = #status #selector)));
    }
    for s in &crd.shortnames {
        args.push(quote!(shortname = #s));
    }
    syn::parse_quote!(#[kube(#(#args),*)])
}

#[cfg(test)]
mod tests;
