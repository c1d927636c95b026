//! Classifying the Rust types written in fields: std containers and scalars, `serde_json::Value`, k8s-openapi
//! types, and crate items (through `use`, type aliases and last-segment lookup).
//!
//! Crate items resolve through `use` (renames, a module a glob brings in: `use super::*;` then `v1::Status`,
//! `self::`/`super::`/`crate::`); chrono, uuid, url and jiff types map as schemars maps them ([`feature_scalar`]) when
//! the crate's manifest turns on schemars' feature for them (a crate without a manifest is read as if it did). A type
//! it cannot resolve (a type another crate's derive generates, a type of another crate with no known schema, a
//! foreign type whose schemars feature is off, an ambiguous name, a const generic, a k8s-openapi type of a version the
//! table lacks) is `NeedsCompile` naming the type and why. A generic type's use is a `Ty::Instance`: the schema
//! generator binds its parameters to the arguments written there (or their defaults), resolved in the module they
//! were written in.

use serde_json::{Value, json};
use syn::spanned::Spanned;

use super::error::{CrdError, CrdErrorKind};
use super::index::{CrateIndex, ItemId, ItemKind, ModId, Resolved};
use super::k8s::K8sTable;
use super::type_names::Named;
pub use super::type_names::ScalarKind;

/// What a field type is (the types in it borrowed from the type classified, or from a type alias of the crate).
#[derive(Debug, Clone)]
pub enum Ty<'a> {
    /// `Option<T>`.
    Option(&'a syn::Type, ModId),
    /// `Vec<T>`, `VecDeque<T>`, sets (`set` = uniqueItems).
    Seq(&'a syn::Type, ModId, bool),
    /// `[T; N]`.
    Array(&'a syn::Type, ModId, u64),
    /// `BTreeMap<K, V>` / `HashMap<K, V>`.
    Map(&'a syn::Type, &'a syn::Type, ModId),
    /// `Box<T>`, `Arc<T>`, `Rc<T>`, `Cow<T>`, references: the schema of T.
    Wrapper(&'a syn::Type, ModId),
    /// A scalar with its raw schemars schema (the index's remembered answer: cloned only where a schema is built).
    Scalar(ScalarKind, &'a Value),
    /// `serde_json::Value`.
    JsonValue,
    /// A k8s-openapi type (table key).
    K8s(&'a str),
    /// A crate struct or enum.
    Item(ItemId),
    /// A generic crate struct or enum with the arguments written where it is named (in module `ModId`).
    Instance(ItemId, &'a syn::PathArguments, ModId),
    /// `()`.
    Unit,
    /// A tuple.
    Tuple,
}

fn int(format: &str, min: Option<i64>, max: Option<u64>) -> Value {
    let mut v = json!({"type": "integer", "format": format});
    if let Some(m) = min {
        v["minimum"] = json!(m);
    }
    if let Some(m) = max {
        v["maximum"] = json!(m);
    }
    v
}

fn scalar_by_name(name: &str, full: &[String]) -> Option<(ScalarKind, Value)> {
    use ScalarKind::*;
    let s = |v: Value| Some((Str, v));
    match name {
        "String" | "str" | "PathBuf" | "Path" | "OsString" | "OsStr" => s(json!({"type": "string"})),
        "char" => s(json!({"type": "string", "minLength": 1, "maxLength": 1})),
        "bool" => Some((Bool, json!({"type": "boolean"}))),
        "i8" => Some((Int, int("int8", Some(-128), Some(127)))),
        "i16" => Some((Int, int("int16", Some(-32768), Some(32767)))),
        "i32" => Some((Int, int("int32", None, None))),
        "i64" => Some((Int, int("int64", None, None))),
        "isize" => Some((Int, int("int", None, None))),
        "i128" => Some((Int, int("int128", None, None))),
        "u8" => Some((Int, int("uint8", Some(0), Some(255)))),
        "u16" => Some((Int, int("uint16", Some(0), Some(65535)))),
        "u32" => Some((Int, int("uint32", Some(0), None))),
        "u64" => Some((Int, int("uint64", Some(0), None))),
        "usize" => Some((Int, int("uint", Some(0), None))),
        "u128" => Some((Int, int("uint128", Some(0), None))),
        "NonZeroU8" => Some((Int, int("uint8", Some(1), Some(255)))),
        "NonZeroU16" => Some((Int, int("uint16", Some(1), Some(65535)))),
        "NonZeroU32" => Some((Int, int("uint32", Some(1), None))),
        "NonZeroU64" => Some((Int, int("uint64", Some(1), None))),
        "NonZeroUsize" => Some((Int, int("uint", Some(1), None))),
        "f32" => Some((Float, json!({"type": "number", "format": "float"}))),
        "f64" => Some((Float, json!({"type": "number", "format": "double"}))),
        "IpAddr" => s(json!({"type": "string", "format": "ip"})),
        "Ipv4Addr" => s(json!({"type": "string", "format": "ipv4"})),
        "Ipv6Addr" => s(json!({"type": "string", "format": "ipv6"})),
        "SocketAddr" | "SocketAddrV4" | "SocketAddrV6" => s(json!({"type": "string"})),
        "Duration" if full.iter().any(|p| p == "kube" || p == "kube_core") => s(json!({"type": "string"})),
        "Duration" => Some((
            Other,
            json!({
                "type": "object",
                "properties": {
                    "secs": {"type": "integer", "format": "uint64", "minimum": 0},
                    "nanos": {"type": "integer", "format": "uint32", "minimum": 0}
                },
                "required": ["secs", "nanos"]
            }),
        )),
        _ => None,
    }
}

/// The types schemars implements `JsonSchema` for behind one of its features (`json_schema_impls/chrono04.rs`,
/// `uuid1.rs`, `url2.rs`, `jiff02.rs` of schemars 1.2): `(feature, schema)` by the crate a path starts with and its
/// last segment. jiff's own types are also reached through k8s-openapi's re-export (`k8s_openapi::jiff`).
pub fn feature_scalar(full: &[String]) -> Option<(&'static str, Value)> {
    let krate = match full {
        [k, j, ..] if k == "k8s_openapi" && j == "jiff" => "jiff",
        [k, _, ..] => k.as_str(),
        _ => return None,
    };
    let name = full.last()?.as_str();
    let formatted = |feature: &'static str, format: &str| Some((feature, json!({"type": "string", "format": format})));
    match (krate, name) {
        ("chrono", "DateTime") => formatted("chrono04", "date-time"),
        ("chrono", "NaiveDate") => formatted("chrono04", "date"),
        ("chrono", "NaiveDateTime") => formatted("chrono04", "partial-date-time"),
        ("chrono", "NaiveTime") => formatted("chrono04", "partial-time"),
        ("chrono", "Weekday") => {
            Some(("chrono04", json!({"type": "string", "enum": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]})))
        }
        ("uuid", "Uuid") => formatted("uuid1", "uuid"),
        ("url", "Url") => formatted("url2", "uri"),
        ("jiff", "Timestamp") => formatted("jiff02", "date-time"),
        ("jiff", "SignedDuration" | "Span") => formatted("jiff02", "duration"),
        ("jiff", "Zoned") => formatted("jiff02", "zoned-date-time"),
        ("jiff", "Date") => formatted("jiff02", "date"),
        ("jiff", "Time") => formatted("jiff02", "partial-time"),
        ("jiff", "DateTime") => formatted("jiff02", "partial-date-time"),
        _ => None,
    }
}

/// The kind type `#[derive(CustomResource)]` generates under the name `name` (`kind`, or `root`), if a spec of the
/// crate generates one: the spec's item.
pub fn generated_kind(ix: &CrateIndex, name: &str) -> Option<ItemId> {
    ix.own_items().find_map(|(id, item)| {
        let spec = match &item.kind {
            ItemKind::Struct(s) => super::spec::SpecItem::of_struct(s),
            ItemKind::Enum(e) => super::spec::SpecItem::of_enum(e),
            _ => None,
        }?;
        let k = spec.kube_attrs().ok()?;
        (k.root.as_deref().unwrap_or(&k.kind) == name).then_some(id)
    })
}

/// Generic type arguments of the last path segment.
pub fn type_args(path: &syn::Path) -> Vec<syn::Type> {
    match path.segments.last().map(|s| &s.arguments) {
        Some(syn::PathArguments::AngleBracketed(a)) => a
            .args
            .iter()
            .filter_map(|g| match g {
                syn::GenericArgument::Type(t) => Some(t.clone()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Classify `ty` as written in `module`.
pub fn classify<'a>(ix: &'a CrateIndex, k8s: &K8sTable, ty: &'a syn::Type, module: ModId) -> Result<Ty<'a>, CrdError> {
    classify_depth(ix, k8s, ty, module, 0)
}

/// The type arguments of the last segment of `path`, borrowed (through `pairs`: syn boxes the iterator `iter`
/// returns, an allocation per classified field type).
fn type_arg_refs(path: &syn::Path) -> impl Iterator<Item = &syn::Type> {
    let args = match path.segments.last().map(|s| &s.arguments) {
        Some(syn::PathArguments::AngleBracketed(a)) => Some(a.args.pairs().map(syn::punctuated::Pair::into_value)),
        _ => None,
    };
    args.into_iter().flatten().filter_map(|g| match g {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

fn classify_depth<'a>(
    ix: &'a CrateIndex,
    k8s: &K8sTable,
    ty: &'a syn::Type,
    module: ModId,
    depth: usize,
) -> Result<Ty<'a>, CrdError> {
    let file = ix.module_file(module);
    let unresolved = |name: String, hint: &str| {
        CrdError::at(file, ty.span(), CrdErrorKind::UnresolvedType { name, hint: hint.to_string() })
    };
    // What the static reader cannot resolve, compiling can: the kind goes to the compiled fallback, saying why.
    let needs = |written: String, why: String| {
        CrdError::needs_compile(file, ty.span(), format!("type `{written}`"), format!("{why}; {RESOLVED}"))
    };
    match ty {
        syn::Type::Paren(p) => classify_depth(ix, k8s, &p.elem, module, depth),
        syn::Type::Group(g) => classify_depth(ix, k8s, &g.elem, module, depth),
        syn::Type::Reference(r) => Ok(Ty::Wrapper(&r.elem, module)),
        syn::Type::Tuple(t) if t.elems.is_empty() => Ok(Ty::Unit),
        syn::Type::Tuple(_) => Ok(Ty::Tuple),
        syn::Type::Slice(s) => Ok(Ty::Seq(&s.elem, module, false)),
        syn::Type::Array(a) => {
            let len = match &a.len {
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse::<u64>().ok(),
                _ => None,
            };
            let len = len.ok_or_else(|| {
                needs(quote::quote!(#ty).to_string(), "kubesmith reads only literal array lengths".into())
            })?;
            Ok(Ty::Array(&a.elem, module, len))
        }
        syn::Type::Path(p) => {
            if p.qself.is_some() {
                return Err(needs(
                    quote::quote!(#ty).to_string(),
                    "kubesmith does not resolve qualified paths (`<T as Trait>::X`)".into(),
                ));
            }
            let named = ix.type_named(module, k8s, &p.path, |segs| path_named(ix, k8s, segs, module));
            let args = || type_arg_refs(&p.path);
            let missing = |name: &str| unresolved(name.to_string(), "missing generic argument");
            match named {
                Named::Alias(id) => {
                    let ItemKind::Alias(a) = &ix.items[*id].kind else { return Ok(Ty::Item(*id)) };
                    if depth > 32 {
                        return Err(unresolved(crate::source::lex::path_segs(&p.path).join("::"), "type alias cycle"));
                    }
                    classify_depth(ix, k8s, &a.ty, ix.items[*id].module, depth + 1)
                }
                Named::Generic(id) => {
                    let args = &p.path.segments.last().expect("a resolved path has a segment").arguments;
                    Ok(Ty::Instance(*id, args, module))
                }
                Named::Item(id) => Ok(Ty::Item(*id)),
                Named::Option(name) => Ok(Ty::Option(args().next().ok_or_else(|| missing(name))?, module)),
                Named::Seq { set, name } => Ok(Ty::Seq(args().next().ok_or_else(|| missing(name))?, module, *set)),
                Named::Map(name) => {
                    let mut kv = args();
                    let (k, v) = (kv.next().ok_or_else(|| missing(name))?, kv.next().ok_or_else(|| missing(name))?);
                    Ok(Ty::Map(k, v, module))
                }
                Named::Wrapper(name) => Ok(Ty::Wrapper(args().last().ok_or_else(|| missing(name))?, module)),
                Named::JsonValue => Ok(Ty::JsonValue),
                Named::K8s(key) => Ok(Ty::K8s(key)),
                Named::Scalar(kind, schema) => Ok(Ty::Scalar(*kind, schema)),
                Named::NeedsCompile { written, why } => Err(needs(written.clone(), why.clone())),
                Named::Unresolved { name, hint } => Err(unresolved(name.clone(), hint)),
            }
        }
        other => Err(needs(
            quote::quote!(#other).to_string(),
            "kubesmith reads paths, references, arrays, slices and tuples in field types".into(),
        )),
    }
}

/// What the path `segs`, a type written in `module`, names (see [`Named`]): resolved in the crate, else by what it
/// leads to outside it (std, serde_json, k8s-openapi, schemars' feature types).
fn path_named(ix: &CrateIndex, k8s: &K8sTable, segs: &[String], module: ModId) -> Named {
    let needs = |why: String| Named::NeedsCompile { written: segs.join("::"), why };
    let full = match ix.resolve(module, segs, ItemKind::is_type) {
        Resolved::Item(id) => {
            return match &ix.items[id].kind {
                ItemKind::Alias(_) => Named::Alias(id),
                ItemKind::Struct(syn::ItemStruct { generics, .. }) | ItemKind::Enum(syn::ItemEnum { generics, .. })
                    if !generics.params.is_empty() =>
                {
                    Named::Generic(id)
                }
                _ => Named::Item(id),
            };
        }
        Resolved::External(full) => full,
    };
    // The name the path leads to (`use k8s_openapi::..::Container as K8sContainer` names `Container`).
    let name = full.last().cloned().unwrap_or_default();
    match name.as_str() {
        "Option" => return Named::Option(name),
        "Vec" | "VecDeque" | "LinkedList" => return Named::Seq { set: false, name },
        "HashSet" | "BTreeSet" | "IndexSet" => return Named::Seq { set: true, name },
        "HashMap" | "BTreeMap" | "IndexMap" => return Named::Map(name),
        "Box" | "Arc" | "Rc" | "Cow" | "RefCell" | "Cell" | "Mutex" | "RwLock" => return Named::Wrapper(name),
        _ => {}
    }
    if name == "Value" && full.iter().any(|s| s == "serde_json") {
        return Named::JsonValue;
    }
    // kube re-exports k8s-openapi's ObjectMeta (`kube::api::ObjectMeta`, `kube::core::ObjectMeta`)
    let kube_reexport = name == "ObjectMeta" && full.first().is_some_and(|k| k == "kube" || k == "kube_core");
    // By its path under k8s_openapi (several types share a name: `ServiceReference`), named by its own
    // name where that is the same type (what the rest of the generator matches on: `Quantity`).
    if let Some(at) = full.iter().position(|s| s == "k8s_openapi") {
        let key = full[at + 1..].join("::");
        if k8s.contains(&key) {
            return Named::K8s(if k8s.same_type(&name, &key) { name } else { key });
        }
    }
    if k8s.contains(&name) && (full.len() == 1 || kube_reexport || full.iter().any(|s| s == "k8s_openapi")) {
        return Named::K8s(name);
    }
    if let Some((feature, schema)) = feature_scalar(&full) {
        let Some(feature) = ix.dialect.feature(feature) else {
            return needs(format!("schemars 0.8 has no JsonSchema impl for `{}`", full.join("::")));
        };
        let enabled = ix.schemars_features.as_ref().is_none_or(|f| f.contains(feature));
        if enabled {
            return Named::Scalar(ScalarKind::Str, schema);
        }
        return needs(format!(
            "schemars implements JsonSchema for `{}` with its `{feature}` feature, which the crate's \
                     Cargo.toml does not turn on (another dependency may: cargo unifies features); add \
                     `features = [\"{feature}\"]` to the schemars dependency to have it read statically",
            full.join("::")
        ));
    }
    if let Some((kind, mut schema)) = scalar_by_name(&name, &full) {
        if kind == ScalarKind::Int && ix.dialect == super::dialect::Dialect::Schemars08 {
            // schemars 0.8 bounds unsigned integers below (0) only, signed ones not at all
            let signed = schema["minimum"].as_i64().is_some_and(|m| m < 0);
            if let Value::Object(o) = &mut schema {
                o.remove("maximum");
                if signed {
                    o.remove("minimum");
                }
            }
        }
        return Named::Scalar(kind, schema);
    }
    if name == "Value" {
        return Named::Unresolved {
            name,
            hint: "import it (`use serde_json::Value;`) or write `serde_json::Value`".into(),
        };
    }
    if let Some(spec) = generated_kind(ix, &name) {
        let spec = &ix.items[spec];
        let at = ix.modules[spec.module].path.join("::");
        return needs(format!(
            "`{name}` is the kind type #[derive(CustomResource)] generates from `{at}::{}`, which the \
                     sources do not spell out",
            spec.name
        ));
    }
    let why = if full.iter().any(|s| s == "k8s_openapi") && !k8s.covered() {
        format!(
            "the crate builds k8s-openapi for Kubernetes {} (its `v1_XX` feature); kubesmith's table of \
                 k8s-openapi schemas holds {}..{} of k8s-openapi ≥ 0.26 and the newest versions of releases \
                 0.20..0.25, not this release's {0}, and this type's schema changes between those, so it would \
                 be a guess (pass --k8s-version to read the crate with one of those)",
            k8s.version(),
            super::k8s::READ_VERSIONS[0],
            super::k8s::READ_VERSIONS[super::k8s::READ_VERSIONS.len() - 1]
        )
    } else if full.iter().any(|s| s == "k8s_openapi") {
        format!("`{}` is not in kubesmith's table of k8s-openapi schemas", full.join("::"))
    } else if full.len() > 1 && !is_crate_path(&full) {
        format!("kubesmith has no schema for `{}`", full.join("::"))
    } else {
        format!("kubesmith finds no struct, enum or type alias `{}` in the crate", full.join("::"))
    };
    needs(why)
}

/// What compiling adds to a type the static reader cannot resolve.
const RESOLVED: &str = "kubesmith reads the crate's own types, std's, those of its k8s-openapi table, and chrono, uuid, \
                        url and jiff types with schemars' feature for them";

/// The type and the reason of a resolution failure of [`classify`] (a type the static reader cannot resolve), for
/// callers that name the construct it sits in (a `with` attribute, a schema fn) instead.
pub fn unresolved_type(e: &CrdError) -> Option<(String, String)> {
    match &e.kind {
        CrdErrorKind::UnresolvedType { name, hint } => Some((name.clone(), hint.clone())),
        CrdErrorKind::NeedsCompile { construct, why } => {
            let name = construct.strip_prefix("type `")?.strip_suffix('`')?;
            let why = why.strip_suffix(RESOLVED).map_or(why.as_str(), |w| w.trim_end_matches("; "));
            Some((name.to_string(), why.to_string()))
        }
        _ => None,
    }
}

fn is_crate_path(full: &[String]) -> bool {
    matches!(full.first().map(String::as_str), Some("crate" | "self" | "super"))
}

/// Whether `ty` names any of `names` anywhere in it (`Vec<T>`, `Option<Box<T>>`).
pub(crate) fn mentions(ty: &syn::Type, names: &[&str]) -> bool {
    fn walk(ts: proc_macro2::TokenStream, names: &[&str]) -> bool {
        ts.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => names.iter().any(|n| i == n),
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), names),
            _ => false,
        })
    }
    !names.is_empty() && walk(quote::ToTokens::to_token_stream(ty), names)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::PathBuf;

    use super::*;
    use crate::crd::index::SourceSet;

    /// What `ty` written in the module named `module` of a crate whose `lib.rs` is `lib` classifies as, in short.
    fn classified(ix: &CrateIndex, k8s: &K8sTable, module: &str, ty: &str) -> String {
        let m = ix.modules.iter().position(|m| m.path.last().map(String::as_str) == Some(module)).expect("module");
        let ty: syn::Type = syn::parse_str(ty).expect("a type");
        match classify(ix, k8s, &ty, m) {
            Ok(Ty::Item(id)) => format!("item {}", ix.items[id].name),
            Ok(Ty::K8s(key)) => format!("k8s {key}"),
            Ok(Ty::Scalar(kind, schema)) => format!("{kind:?} {schema}"),
            Ok(Ty::Option(inner, _)) => format!("option of {}", quote::quote!(#inner)),
            Ok(other) => format!("{other:?}"),
            Err(e) => format!("error: {}", e.kind),
        }
    }

    /// One path names different types in different modules and with different k8s-openapi tables; the arguments
    /// are those written where it is classified: what is remembered per path ([`Named`]) keeps them apart.
    #[test]
    fn a_path_is_classified_where_it_is_written() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = dir.path().join("lib.rs");
        std::fs::write(
            &lib,
            "pub mod a { pub struct Thing; pub struct Other; }\n\
             pub mod b { pub type Thing = u8; }\n\
             pub mod c { pub use k8s_openapi::api::core::v1::*; }\n",
        )
        .expect("write");
        let force: BTreeSet<PathBuf> = [lib].into();
        let ix = CrateIndex::load_with(&SourceSet::new(dir.path()), &force).expect("load");
        let k8s = K8sTable::default_table();
        for _ in 0..2 {
            assert_eq!(classified(&ix, k8s, "a", "Thing"), "item Thing");
            assert!(classified(&ix, k8s, "b", "Thing").starts_with("Int {"), "{}", classified(&ix, k8s, "b", "Thing"));
            assert_eq!(classified(&ix, k8s, "a", "Option<Thing>"), "option of Thing");
            assert_eq!(classified(&ix, k8s, "a", "Option<Other>"), "option of Other");
            assert_eq!(classified(&ix, k8s, "c", "Container"), "k8s Container");
            let old = K8sTable::uncovered("1.20");
            assert!(
                classified(&ix, old, "c", "Container").starts_with("error: "),
                "{}",
                classified(&ix, old, "c", "Container")
            );
            assert_eq!(
                classified(&ix, k8s, "a", "Option"),
                "error: cannot resolve type `Option`: missing generic argument"
            );
        }
    }
}
