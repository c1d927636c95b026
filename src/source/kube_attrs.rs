//! Reading `#[derive(CustomResource)]` and the `#[kube(...)]` on its spec struct (every key kube-derive 5
//! accepts), and CEL rules in the forms `"rule"`, `("rule", "message")` and `Rule::new(..).message(..)...`.
//!
//! Read the way kube-derive's darling parser reads them: unknown keys (with a suggestion), duplicates, missing
//! `group`/`version`/`kind`, values of the wrong kind, `attr = "derive|serde|schemars(..)"`, `printcolumn` and
//! `scale` fields; every error at once.

use proc_macro2::Span;
use serde_json::{Map, Value, json};
use syn::Expr;
use syn::punctuated::Punctuated;

use super::meta::{self as attrs, MetaItem, MetaValue};

/// The span of `CustomResource` in the item's `#[derive(...)]`, if it derives it.
pub fn custom_resource_derive(attrs: &[syn::Attribute]) -> Option<Span> {
    attrs.iter().filter(|a| a.path().is_ident("derive")).find_map(|a| {
        // Most derives of a crate name no `CustomResource` at all: tell so from the tokens, without parsing paths.
        if let syn::Meta::List(l) = &a.meta
            && !l
                .tokens
                .clone()
                .into_iter()
                .any(|t| matches!(&t, proc_macro2::TokenTree::Ident(i) if i == "CustomResource"))
        {
            return None;
        }
        let paths = a.parse_args_with(Punctuated::<syn::Path, syn::Token![,]>::parse_terminated).ok()?;
        let p = paths.iter().find(|p| p.segments.last().is_some_and(|s| s.ident == "CustomResource"))?;
        p.segments.last().map(|s| s.ident.span())
    })
}

/// Whether `attrs` hold a `#[derive(..., CustomResource)]`.
pub(crate) fn derives_custom_resource(attrs: &[syn::Attribute]) -> bool {
    custom_resource_derive(attrs).is_some()
}

/// How the root schema is produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaMode {
    /// `schema = "derived"` (default).
    Derived,
    /// `schema = "manual"`.
    Manual,
    /// `schema = "disabled"`.
    Disabled,
}

/// Every `#[kube(...)]` key of one spec.
#[derive(Debug, Clone)]
pub struct KubeAttrs {
    /// `group`.
    pub group: String,
    /// `version`.
    pub version: String,
    /// `kind`.
    pub kind: String,
    /// `root`.
    pub root: Option<String>,
    /// `namespaced`.
    pub namespaced: bool,
    /// `plural`.
    pub plural: Option<String>,
    /// `singular`.
    pub singular: Option<String>,
    /// `shortname`.
    pub shortnames: Vec<String>,
    /// `category`.
    pub categories: Vec<String>,
    /// `status`.
    pub status: Option<(String, Span)>,
    /// `scale`.
    pub scale: Option<Value>,
    /// `printcolumn`.
    pub printcolumns: Vec<Value>,
    /// `selectable`.
    pub selectable: Vec<String>,
    /// `doc`.
    pub doc: Option<String>,
    /// `annotation`.
    pub annotations: Vec<(String, String)>,
    /// `label`.
    pub labels: Vec<(String, String)>,
    /// `schema`.
    pub schema: (SchemaMode, Span),
    /// `served`.
    pub served: bool,
    /// `storage`.
    pub storage: bool,
    /// `deprecated` (with optional warning).
    pub deprecated: Option<Option<String>>,
    /// `validation` rules (serialized `Rule`s).
    pub validations: Vec<Value>,
    /// `no_spec`.
    pub no_spec: bool,
    /// `cel`, where it is given.
    pub cel: Option<Span>,
}

pub(crate) fn err(span: Span, msg: impl Into<String>) -> syn::Error {
    syn::Error::new(span, msg.into())
}

fn string(item: &MetaItem) -> syn::Result<String> {
    item.str_value().ok_or_else(|| err(item.span, format!("#[kube({} = \"...\")] expects a string literal", item.name)))
}

fn boolean(item: &MetaItem) -> syn::Result<bool> {
    match &item.value {
        MetaValue::Flag => Ok(true),
        MetaValue::Expr(e) => match attrs::expr_literal(e) {
            Some(Value::Bool(b)) => Ok(b),
            // darling reads a string through `str::parse::<bool>`.
            Some(Value::String(s)) if s == "true" || s == "false" => Ok(s == "true"),
            _ => Err(err(item.span, format!("#[kube({} = ..)] expects true or false", item.name))),
        },
        MetaValue::List(_) => Err(err(item.span, format!("#[kube({} = ..)] expects true or false", item.name))),
    }
}

fn pair(item: &MetaItem) -> syn::Result<(String, String)> {
    let exprs = item.list_exprs()?;
    match exprs.as_slice() {
        [k, v] => match (attrs::expr_str(k), attrs::expr_str(v)) {
            (Some(k), Some(v)) => Ok((k, v)),
            _ => Err(err(item.span, format!("#[kube({}(\"key\", \"value\"))] expects two string literals", item.name))),
        },
        _ => Err(err(item.span, format!("#[kube({}(\"key\", \"value\"))] expects two string literals", item.name))),
    }
}

/// Every key kube-derive 5 accepts in `#[kube(...)]`, and whether it may be given more than once.
const KEYS: [(&str, bool); 26] = [
    ("group", false),
    ("version", false),
    ("kind", false),
    ("root", false),
    ("namespaced", false),
    ("plural", false),
    ("singular", false),
    ("shortname", true),
    ("category", true),
    ("status", false),
    ("scale", false),
    ("printcolumn", true),
    ("selectable", true),
    ("doc", false),
    ("annotation", true),
    ("label", true),
    ("derive", true),
    ("attr", true),
    ("schema", false),
    ("served", false),
    ("storage", false),
    ("deprecated", false),
    ("validation", true),
    ("cel", false),
    ("crates", false),
    ("no_spec", false),
];

/// The entry of [`KEYS`] for `name` (a `match`: this runs for every key of every kind).
fn key_of(name: &str) -> Option<(&'static str, bool)> {
    let i = match name {
        "group" => 0,
        "version" => 1,
        "kind" => 2,
        "root" => 3,
        "namespaced" => 4,
        "plural" => 5,
        "singular" => 6,
        "shortname" => 7,
        "category" => 8,
        "status" => 9,
        "scale" => 10,
        "printcolumn" => 11,
        "selectable" => 12,
        "doc" => 13,
        "annotation" => 14,
        "label" => 15,
        "derive" => 16,
        "attr" => 17,
        "schema" => 18,
        "served" => 19,
        "storage" => 20,
        "deprecated" => 21,
        "validation" => 22,
        "cel" => 23,
        "crates" => 24,
        "no_spec" => 25,
        _ => return None,
    };
    Some(KEYS[i])
}

/// Where a key's value is (the key itself for flags and lists), as rustc reports darling's value errors.
fn value_span(item: &MetaItem) -> Span {
    match &item.value {
        MetaValue::Expr(e) => syn::spanned::Spanned::span(&**e),
        _ => item.span,
    }
}

/// `unknown #[kube] key`, with kube-derive's (darling's) suggestion of the closest key.
fn unknown_key(item: &MetaItem) -> syn::Error {
    let names = KEYS.iter().map(|(k, _)| *k);
    let hint = match crate::names::closest(&item.name, names.clone()) {
        Some((s, _)) => format!("did you mean `{s}`?"),
        None => format!("kube-derive accepts {}", names.collect::<Vec<_>>().join(", ")),
    };
    err(item.span, format!("unknown field `{}` in #[kube(...)]: {hint}", item.name))
}

/// `#[kube(attr = "...")]`: any attribute but `derive`, `serde` and `schemars`, which kube-derive refuses.
fn root_attr(item: &MetaItem) -> syn::Result<()> {
    let text = string(item)?;
    let span = value_span(item);
    let meta: syn::Meta = syn::parse_str(&text).map_err(|e| {
        err(span, format!("`kube(attr = \"{text}\")` is not an attribute ({e}); write it without `#[]`"))
    })?;
    let Some(ident) = meta.path().get_ident() else { return Ok(()) };
    if ident == "derive" {
        return Err(err(
            span,
            "`kube(attr = \"...\")` cannot set derives: kube-derive refuses `derive` there; use \
             `kube(derive = \"...\")` once per derive",
        ));
    }
    if ident == "serde" || ident == "schemars" {
        return Err(err(
            span,
            format!(
                "`kube(attr = \"...\")` cannot set `{ident}` attributes: kube-derive refuses `derive`, `serde` and \
                 `schemars` there (they would conflict with the attributes it generates on the root type); remove it"
            ),
        ));
    }
    Ok(())
}

/// `#[kube(schema = "...")]`, with darling's suggestion for a near miss.
fn schema_mode(item: &MetaItem) -> syn::Result<SchemaMode> {
    let value = string(item)?;
    match value.as_str() {
        "derived" => Ok(SchemaMode::Derived),
        "manual" => Ok(SchemaMode::Manual),
        "disabled" => Ok(SchemaMode::Disabled),
        other => {
            let values = ["derived", "disabled", "manual"];
            let hint = match crate::names::closest(other, values.iter().copied()) {
                Some((s, _)) => format!("did you mean `{s}`?"),
                None => "use `derived`, `disabled` or `manual`".to_string(),
            };
            Err(err(value_span(item), format!("unknown value `{other}` for #[kube(schema = \"...\")]: {hint}")))
        }
    }
}

/// Whether `s` parses as a path, as kube-derive parses `derive`, `status` and `crates` values. The common
/// `Name` / `a::b::Name` form is checked without syn's parser.
fn check_path(s: &str) -> syn::Result<()> {
    // Anything but plain identifiers (generics, keywords, odd spacing) is left to syn.
    if s.strip_prefix("::").unwrap_or(s).split("::").all(plain_ident) {
        return Ok(());
    }
    syn::parse_str::<syn::Path>(s).map(|_| ())
}

/// Whether `s` is an ASCII identifier that is no keyword (`self`, `super`, `crate` and `Self` included).
fn plain_ident(s: &str) -> bool {
    const KEYWORDS: [&str; 40] = [
        "_", "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false", "fn",
        "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
        "struct", "trait", "true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "gen",
        "try",
    ];
    s.bytes().next().is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
        && !KEYWORDS.contains(&s)
}

/// Whether kube-derive can name a type `s` (`Ident::new` panics on anything else).
pub fn is_type_name(s: &str) -> bool {
    (plain_ident(s) && !matches!(s, "self" | "super" | "crate" | "Self"))
        || (!s.is_ascii() && syn::parse_str::<syn::Ident>(s).is_ok())
}

/// `#[kube(crates(kube = "::kube", ...))]`: known keys whose values are paths.
fn crates(item: &MetaItem) -> syn::Result<()> {
    const CRATES: [&str; 7] = ["kube", "kube_core", "k8s_openapi", "schemars", "serde", "serde_json", "std"];
    for n in item.nested()? {
        if !CRATES.contains(&n.name.as_str()) {
            return Err(err(
                n.span,
                format!("unknown field `{}` in #[kube(crates(...))]: use {}", n.name, CRATES.join(", ")),
            ));
        }
        let path = string(&n)?;
        check_path(&path)
            .map_err(|e| err(value_span(&n), format!("`crates({} = \"{path}\")` is not a path: {e}", n.name)))?;
    }
    Ok(())
}

/// Parse all `#[kube(...)]` attributes of a spec struct or enum the way kube-derive's darling parser does:
/// unknown keys (with a suggestion), keys given twice, values of the wrong kind and missing `group`, `version`
/// or `kind` are errors, all of them reported (`derive_span`: the `CustomResource` of the derive, where
/// kube-derive reports a missing key).
pub fn parse(attrs_list: &[syn::Attribute], derive_span: Span) -> syn::Result<KubeAttrs> {
    let mut k = KubeAttrs {
        group: String::new(),
        version: String::new(),
        kind: String::new(),
        root: None,
        namespaced: false,
        plural: None,
        singular: None,
        shortnames: Vec::new(),
        categories: Vec::new(),
        status: None,
        scale: None,
        printcolumns: Vec::new(),
        selectable: Vec::new(),
        doc: None,
        annotations: Vec::new(),
        labels: Vec::new(),
        schema: (SchemaMode::Derived, derive_span),
        served: true,
        storage: true,
        deprecated: None,
        validations: Vec::new(),
        no_spec: false,
        cel: None,
    };
    let (mut group, mut version, mut kind) = (None, None, None);
    let mut errors: Vec<syn::Error> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for item in attrs::meta_items(attrs_list, "kube")? {
        let Some((key, multiple)) = key_of(&item.name) else {
            errors.push(unknown_key(&item));
            continue;
        };
        if !multiple && seen.contains(&key) {
            errors.push(err(item.span, format!("duplicate field `{key}` in #[kube(...)]: give it once")));
            continue;
        }
        seen.push(key);
        if let Err(e) = read_key(&mut k, &item, (&mut group, &mut version, &mut kind)) {
            errors.push(e);
        }
    }
    let mut missing = |what: &str, value: Option<String>, out: &mut String| {
        match value {
        Some(v) => *out = v,
        None => errors.push(err(
            derive_span,
            format!("missing field `{what}` in #[kube(...)]: #[derive(CustomResource)] needs group, version and kind; add {what} = \"...\""),
        )),
    }
    };
    missing("group", group, &mut k.group);
    missing("version", version, &mut k.version);
    missing("kind", kind, &mut k.kind);
    match errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        Some(e) => Err(e),
        None => Ok(k),
    }
}

/// One key of `#[kube(...)]` into `k` (`gvk`: where group, version and kind go).
fn read_key(
    k: &mut KubeAttrs,
    item: &MetaItem,
    gvk: (&mut Option<String>, &mut Option<String>, &mut Option<String>),
) -> syn::Result<()> {
    match item.name.as_str() {
        "group" => *gvk.0 = Some(string(item)?),
        "version" => *gvk.1 = Some(string(item)?),
        "kind" => *gvk.2 = Some(string(item)?),
        "root" => k.root = Some(string(item)?),
        "namespaced" => k.namespaced = boolean(item)?,
        "plural" => k.plural = Some(string(item)?),
        "singular" => k.singular = Some(string(item)?),
        "shortname" => k.shortnames.push(string(item)?),
        "category" => k.categories.push(string(item)?),
        "status" => {
            let path = string(item)?;
            check_path(&path)
                .map_err(|e| err(value_span(item), format!("`status = \"{path}\"` is not a type path: {e}")))?;
            k.status = Some((path, item.span));
        }
        "selectable" => k.selectable.push(string(item)?),
        "doc" => k.doc = Some(string(item)?),
        "annotation" => k.annotations.push(pair(item)?),
        "label" => k.labels.push(pair(item)?),
        "derive" => {
            let path = string(item)?;
            check_path(&path)
                .map_err(|e| err(value_span(item), format!("`derive = \"{path}\"` is not a path: {e}")))?;
        }
        "attr" => root_attr(item)?,
        "crates" => crates(item)?,
        "cel" => k.cel = boolean(item)?.then_some(item.span),
        "no_spec" => k.no_spec = boolean(item)?,
        "served" => k.served = boolean(item)?,
        "storage" => k.storage = boolean(item)?,
        "deprecated" => {
            k.deprecated = Some(match &item.value {
                MetaValue::Flag => None,
                _ => Some(string(item)?),
            })
        }
        "schema" => k.schema = (schema_mode(item)?, value_span(item)),
        "scale" => k.scale = Some(scale(item)?),
        "printcolumn" => k.printcolumns.push(printcolumn(item)?),
        "validation" => {
            let MetaValue::Expr(e) = &item.value else {
                return Err(err(item.span, "#[kube(validation = ..)] expects a CEL rule"));
            };
            k.validations.push(rule(e).ok_or_else(|| {
                err(
                    item.span,
                    "this validation rule cannot be evaluated statically; use a string, (\"rule\", \"message\") or a \
                     Rule::new(\"..\").message(\"..\") chain of literals",
                )
            })?);
        }
        other => return Err(err(item.span, format!("unknown field `{other}` in #[kube(...)]"))),
    }
    Ok(())
}

/// A typed sub-attribute (`scale(...)`, `printcolumn(...)`) as kube-derive reads it: either a JSON string
/// deserialized into its struct (unknown JSON keys ignored, like serde does there) or a list of `key = value`s
/// (unknown, duplicate and missing keys are errors). `keys`: (Rust key, JSON key, required).
fn typed_sub(item: &MetaItem, keys: &[(&str, &str, bool)]) -> syn::Result<Value> {
    let what = &item.name;
    let mut out = Map::new();
    if let Some(s) = item.str_value() {
        let span = value_span(item);
        let json: Map<String, Value> =
            serde_json::from_str(&s).map_err(|e| err(span, format!("invalid {what} JSON: {e}")))?;
        for (_, key, required) in keys {
            match json.get(*key) {
                Some(Value::Null) | None if *required => {
                    return Err(err(span, format!("invalid {what} JSON: missing field `{key}`")));
                }
                Some(Value::Null) | None => {}
                Some(v) => {
                    let ok = if *key == "priority" {
                        v.as_i64().is_some_and(|p| i32::try_from(p).is_ok())
                    } else {
                        v.is_string()
                    };
                    if !ok {
                        return Err(err(span, format!("invalid {what} JSON: invalid type for field `{key}`")));
                    }
                    out.insert((*key).to_string(), v.clone());
                }
            }
        }
        return Ok(Value::Object(out));
    }
    let mut seen: Vec<&str> = Vec::new();
    for n in item.nested()? {
        let Some((rust, key, _)) = keys.iter().find(|(r, _, _)| *r == n.name) else {
            let known: Vec<&str> = keys.iter().map(|(r, _, _)| *r).collect();
            return Err(err(
                n.span,
                format!("unknown field `{}` in #[kube({what}(...))]: use {}", n.name, known.join(", ")),
            ));
        };
        if seen.contains(rust) {
            return Err(err(n.span, format!("duplicate field `{rust}` in #[kube({what}(...))]: give it once")));
        }
        seen.push(rust);
        let value = if *key == "priority" {
            match &n.value {
                MetaValue::Expr(e) => attrs::expr_literal(e)
                    .filter(|v| v.as_i64().is_some_and(|p| i32::try_from(p).is_ok()))
                    .ok_or_else(|| err(n.span, "priority must be an i32 literal"))?,
                _ => return Err(err(n.span, "priority must be an i32 literal")),
            }
        } else {
            Value::String(string(&n)?)
        };
        out.insert((*key).to_string(), value);
    }
    for (rust, key, required) in keys {
        if *required && !out.contains_key(*key) {
            // darling names printcolumn's `type_` by its JSON name.
            let shown = if *rust == "type_" { "type" } else { rust };
            return Err(err(
                item.span,
                format!("missing field `{shown}` in #[kube({what}(...))]: add {rust} = \"...\""),
            ));
        }
    }
    Ok(Value::Object(out))
}

fn scale(item: &MetaItem) -> syn::Result<Value> {
    typed_sub(
        item,
        &[
            ("label_selector_path", "labelSelectorPath", false),
            ("spec_replicas_path", "specReplicasPath", true),
            ("status_replicas_path", "statusReplicasPath", true),
        ],
    )
}

fn printcolumn(item: &MetaItem) -> syn::Result<Value> {
    typed_sub(
        item,
        &[
            ("description", "description", false),
            ("format", "format", false),
            ("json_path", "jsonPath", true),
            ("name", "name", true),
            ("priority", "priority", false),
            ("type_", "type", true),
        ],
    )
}

pub(crate) fn lit_string(e: &Expr) -> Option<String> {
    attrs::expr_str(strip_into(e))
}

pub(crate) fn strip_into(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip_into(&p.expr),
        Expr::Group(g) => strip_into(&g.expr),
        _ => super::constant::converted_string(e).map_or(e, strip_into),
    }
}

/// `Message::Expression("..")` → messageExpression, a literal → message.
fn message(e: &Expr, out: &mut Map<String, Value>) -> Option<()> {
    let e = strip_into(e);
    if let Some(s) = lit_string(e) {
        out.insert("message".into(), Value::String(s));
        return Some(());
    }
    let Expr::Call(c) = e else { return None };
    let Expr::Path(p) = &*c.func else { return None };
    let last = p.path.segments.last()?.ident.to_string();
    match last.as_str() {
        "Some" => message(c.args.first()?, out),
        "Expression" => {
            out.insert("messageExpression".into(), Value::String(lit_string(c.args.first()?)?));
            Some(())
        }
        "Message" => {
            out.insert("message".into(), Value::String(lit_string(c.args.first()?)?));
            Some(())
        }
        _ => None,
    }
}

/// A CEL rule expression as kube serializes `Rule`.
pub fn rule(e: &Expr) -> Option<Value> {
    let e = strip_into(e);
    if let Some(s) = lit_string(e) {
        return Some(json!({ "rule": s }));
    }
    match e {
        Expr::Tuple(t) if t.elems.len() == 2 => Some(json!({
            "rule": lit_string(&t.elems[0])?,
            "message": lit_string(&t.elems[1])?,
        })),
        Expr::MethodCall(mc) => {
            let mut base = rule(&mc.receiver)?;
            let obj = base.as_object_mut()?;
            let arg = mc.args.first()?;
            match mc.method.to_string().as_str() {
                "message" => message(arg, obj)?,
                "reason" => {
                    let Expr::Path(p) = strip_into(arg) else {
                        return None;
                    };
                    obj.insert("reason".into(), Value::String(p.path.segments.last()?.ident.to_string()));
                }
                "field_path" => {
                    obj.insert("fieldPath".into(), Value::String(lit_string(arg)?));
                }
                "optional_old_self" => {
                    obj.insert("optionalOldSelf".into(), attrs::expr_literal(arg)?);
                }
                _ => return None,
            }
            Some(base)
        }
        Expr::Call(c) => {
            let Expr::Path(p) = &*c.func else { return None };
            let last = p.path.segments.last()?.ident.to_string();
            match (last.as_str(), c.args.len()) {
                ("new" | "from", 1) => rule(&c.args[0]),
                _ => None,
            }
        }
        Expr::Struct(s) => {
            let mut out = Map::new();
            for f in &s.fields {
                let syn::Member::Named(n) = &f.member else {
                    return None;
                };
                match n.to_string().as_str() {
                    "rule" => {
                        out.insert("rule".into(), Value::String(lit_string(&f.expr)?));
                    }
                    "message" => message(&f.expr, &mut out)?,
                    "field_path" => {
                        if let Some(s) = some_string(&f.expr) {
                            out.insert("fieldPath".into(), Value::String(s));
                        }
                    }
                    "optional_old_self" => {
                        if let Expr::Call(c) = strip_into(&f.expr) {
                            out.insert("optionalOldSelf".into(), attrs::expr_literal(c.args.first()?)?);
                        }
                    }
                    "reason" => {
                        if let Expr::Call(c) = strip_into(&f.expr) {
                            let Expr::Path(p) = strip_into(c.args.first()?) else {
                                return None;
                            };
                            out.insert("reason".into(), Value::String(p.path.segments.last()?.ident.to_string()));
                        }
                    }
                    _ => return None,
                }
            }
            out.contains_key("rule").then_some(Value::Object(out))
        }
        _ => None,
    }
}

fn some_string(e: &Expr) -> Option<String> {
    let Expr::Call(c) = strip_into(e) else {
        return None;
    };
    lit_string(c.args.first()?)
}

/// kube-derive's `to_plural`.
pub fn to_plural(word: &str) -> String {
    if word.ends_with('s') || word.ends_with('x') || word.ends_with('z') || word.ends_with("ch") || word.ends_with("sh")
    {
        return format!("{word}es");
    }
    if word.ends_with('y')
        && let Some(c) = word.chars().nth(word.len().wrapping_sub(2))
        && !matches!(c, 'a' | 'e' | 'i' | 'o' | 'u')
    {
        let mut chars = word.chars();
        chars.next_back();
        return format!("{}ies", chars.as_str());
    }
    format!("{word}s")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plural_rules_match_kube_derive() {
        for (s, p) in [
            ("shapes", "shapeses"),
            ("ingress", "ingresses"),
            ("policy", "policies"),
            ("gateway", "gateways"),
            ("box", "boxes"),
            ("match", "matches"),
            ("mesh", "meshes"),
            ("memcached", "memcacheds"),
            ("y", "ys"),
        ] {
            assert_eq!(to_plural(s), p, "{s}");
        }
    }

    fn parse_str(attrs: &str) -> syn::Result<KubeAttrs> {
        let item: syn::ItemStruct = syn::parse_str(&format!("{attrs}\nstruct S {{}}")).expect("item");
        parse(&item.attrs, Span::call_site())
    }

    fn errors(attrs: &str) -> Vec<String> {
        parse_str(attrs).err().map(|e| e.into_iter().map(|e| e.to_string()).collect()).unwrap_or_default()
    }

    #[test]
    fn key_lookup_matches_the_key_table() {
        for (i, (k, _)) in KEYS.iter().enumerate() {
            assert_eq!(key_of(k), Some(KEYS[i]));
        }
        assert_eq!(key_of("listKind"), None);
    }

    #[test]
    fn values_read_like_darling() {
        // A JSON printcolumn is deserialized into kube-derive's struct: unknown JSON keys are dropped; booleans
        // may be strings.
        let k = parse_str(
            r##"#[kube(group = "g", version = "v1", kind = "K", namespaced = "true", storage = "false",
                printcolumn = r#"{"name": "X", "type": "string", "jsonPath": ".x", "extra": 1}"#)]"##,
        )
        .expect("valid");
        assert!(k.namespaced && !k.storage);
        assert_eq!(k.printcolumns, [json!({"name": "X", "type": "string", "jsonPath": ".x"})]);
    }

    #[test]
    fn every_attribute_error_is_reported() {
        let errs = errors(
            r#"#[kube(version = "v1", shortnames = "k", schema = "Manual", attr = "serde(default)")]
               #[kube(version = "v2", printcolumn(name = "X"), scale(spec_replicas_path = ".a", spec_replicas_path = ".b"))]"#,
        );
        let want = [
            "unknown field `shortnames` in #[kube(...)]: did you mean `shortname`?",
            "unknown value `Manual` for #[kube(schema = \"...\")]: did you mean `manual`?",
            "cannot set `serde` attributes",
            "duplicate field `version`",
            "missing field `json_path` in #[kube(printcolumn(...))]",
            "duplicate field `spec_replicas_path` in #[kube(scale(...))]",
            "missing field `group`",
            "missing field `kind`",
        ];
        for w in want {
            assert!(errs.iter().any(|e| e.contains(w)), "{w:?} missing from {errs:#?}");
        }
        assert_eq!(errs.len(), want.len(), "{errs:#?}");
    }

    #[test]
    fn cel_rule_forms() {
        let e: Expr = syn::parse_quote!(
            Rule::new("self.a")
                .message(Message::Expression("'x'".into()))
                .reason(Reason::FieldValueForbidden)
                .field_path(".a")
        );
        assert_eq!(
            rule(&e),
            Some(
                json!({"rule": "self.a", "messageExpression": "'x'", "reason": "FieldValueForbidden", "fieldPath": ".a"})
            )
        );
        let e: Expr = syn::parse_quote!(("self.b", "bad b"));
        assert_eq!(rule(&e), Some(json!({"rule": "self.b", "message": "bad b"})));
        let e: Expr = syn::parse_quote!(compute_rule());
        assert_eq!(rule(&e), None);
    }
}
