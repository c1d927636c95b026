//! Reading `#[serde]`, `#[schemars]`, `#[validate]`, `#[garde]` and doc attributes the way serde_derive and
//! schemars_derive 1.2 read them, plus serde's rename rules.

use proc_macro2::Span;
use serde_json::Value;
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::{Expr, Token};

use crate::source::meta::{MetaItem, MetaValue, expr_literal, expr_str, meta_items, meta_items_of};

/// Doc comment text as schemars_derive collects it: one leading space stripped per line, lines joined.
pub fn doc_text(attrs: &[syn::Attribute]) -> Option<String> {
    // Built in the first line's string: a doc comment of generated types is most of their text.
    let mut out: Option<String> = None;
    let lines = attrs.iter().filter(|a| a.path().is_ident("doc")).filter_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) => expr_str(&nv.value),
        _ => None,
    });
    for mut line in lines {
        if line.starts_with(' ') {
            line.remove(0);
        }
        match &mut out {
            None => out = Some(line),
            Some(text) => {
                text.push('\n');
                text.push_str(&line);
            }
        }
    }
    out
}

/// serde's `RenameRule`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenameRule {
    /// `lowercase`.
    Lower,
    /// `UPPERCASE`.
    Upper,
    /// `PascalCase`.
    Pascal,
    /// `camelCase`.
    Camel,
    /// `snake_case`.
    Snake,
    /// `SCREAMING_SNAKE_CASE`.
    ScreamingSnake,
    /// `kebab-case`.
    Kebab,
    /// `SCREAMING-KEBAB-CASE`.
    ScreamingKebab,
}

impl RenameRule {
    /// Parse serde's rule names.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "lowercase" => Self::Lower,
            "UPPERCASE" => Self::Upper,
            "PascalCase" => Self::Pascal,
            "camelCase" => Self::Camel,
            "snake_case" => Self::Snake,
            "SCREAMING_SNAKE_CASE" => Self::ScreamingSnake,
            "kebab-case" => Self::Kebab,
            "SCREAMING-KEBAB-CASE" => Self::ScreamingKebab,
            _ => return None,
        })
    }

    /// Apply to a variant name (`PascalCase` in Rust).
    pub fn apply_to_variant(self, variant: &str) -> String {
        match self {
            Self::Pascal => variant.to_string(),
            Self::Lower => variant.to_ascii_lowercase(),
            Self::Upper => variant.to_ascii_uppercase(),
            Self::Camel => {
                let mut c = variant.chars();
                match c.next() {
                    Some(f) => f.to_ascii_lowercase().to_string() + c.as_str(),
                    None => String::new(),
                }
            }
            Self::Snake => {
                let mut snake = String::new();
                for (i, ch) in variant.char_indices() {
                    if i > 0 && ch.is_uppercase() {
                        snake.push('_');
                    }
                    snake.push(ch.to_ascii_lowercase());
                }
                snake
            }
            Self::ScreamingSnake => Self::Snake.apply_to_variant(variant).to_ascii_uppercase(),
            Self::Kebab => Self::Snake.apply_to_variant(variant).replace('_', "-"),
            Self::ScreamingKebab => Self::ScreamingSnake.apply_to_variant(variant).replace('_', "-"),
        }
    }

    /// Apply to a field name (`snake_case` in Rust).
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            Self::Lower | Self::Snake => field.to_string(),
            Self::Upper | Self::ScreamingSnake => field.to_ascii_uppercase(),
            Self::Pascal => {
                let mut pascal = String::new();
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(ch);
                    }
                }
                pascal
            }
            Self::Camel => {
                let pascal = Self::Pascal.apply_to_field(field);
                let mut c = pascal.chars();
                match c.next() {
                    Some(f) => f.to_ascii_lowercase().to_string() + c.as_str(),
                    None => String::new(),
                }
            }
            Self::Kebab => field.replace('_', "-"),
            Self::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }
}

/// The serialized (deserialize) name of a variant.
pub fn variant_name(v: &syn::Variant, va: &VariantAttrs, c: &ContainerAttrs) -> String {
    let ident = v.ident.unraw().to_string();
    va.rename.clone().unwrap_or_else(|| c.rename_all.map_or(ident.clone(), |r| r.apply_to_variant(&ident)))
}

/// `#[serde(default)]` forms.
#[derive(Debug, Clone)]
pub enum SerdeDefault {
    /// `default`.
    Default,
    /// `default = "path"`.
    Path(String),
}

/// Length / range bounds.
#[derive(Debug, Clone, Default)]
pub struct Bounds {
    /// `min`.
    pub min: Option<Value>,
    /// `max`.
    pub max: Option<Value>,
    /// `equal`.
    pub equal: Option<Value>,
}

/// schemars validation attributes.
#[derive(Debug, Clone, Default)]
pub struct Validation {
    /// `length(..)`.
    pub length: Option<Bounds>,
    /// `range(..)`.
    pub range: Option<Bounds>,
    /// `regex`/`pattern`.
    pub pattern: Option<Pattern>,
    /// `contains`.
    pub contains: Option<String>,
    /// `required`.
    pub required: bool,
    /// `email`, `url`, ...
    pub format: Option<&'static str>,
    /// `inner(..)`.
    pub inner: Option<Box<Validation>>,
}

/// A `pattern` as an attribute gives it: schemars inserts `(expr).to_string()` (`validation.rs` of
/// schemars_derive 1.2), so a string literal is the pattern itself and anything else (a regex in a
/// `LazyLock`/`lazy_static!`/`once_cell` static, a const) is evaluated by the schema generator.
#[derive(Debug, Clone)]
pub enum Pattern {
    /// A string literal.
    Literal(String),
    /// An expression, with the attribute it comes from (`#[validate(regex(path = ..))]`) and its span.
    Expr {
        /// `*SEMVER_RE`.
        expr: Box<Expr>,
        /// `validate(regex(path = ..))`, for messages.
        attr: String,
        /// Where the attribute item is.
        span: Span,
    },
}

/// Attributes common to containers, fields and variants.
#[derive(Debug, Clone, Default)]
pub struct Common {
    /// Doc comment.
    pub doc: Option<String>,
    /// `#[schemars(title)]`.
    pub title: Option<String>,
    /// `#[schemars(description)]`.
    pub description: Option<String>,
    /// `#[deprecated]`.
    pub deprecated: bool,
    /// `#[schemars(example)]`.
    pub examples: Vec<Value>,
    /// `#[schemars(extend(..))]`.
    pub extend: Vec<(String, Value)>,
}

impl Common {
    /// schemars' `is_default`.
    pub fn is_default(&self) -> bool {
        self.doc.is_none()
            && self.title.is_none()
            && self.description.is_none()
            && !self.deprecated
            && self.examples.is_empty()
            && self.extend.is_empty()
    }

    /// schemars' `add_mutators` (title, description, deprecated, examples); extensions are applied by
    /// [`Common::apply_extensions`] last.
    pub fn apply_metadata(&self, schema: &mut Value, dialect: super::dialect::Dialect) {
        let (doc_title, doc_desc) = self.doc.as_deref().map(|d| dialect.title_and_description(d)).unwrap_or_default();
        let title = self.title.clone().or(self.doc.as_ref().map(|_| doc_title));
        let description = self.description.clone().or(self.doc.as_ref().map(|_| doc_desc));
        if let Some(t) = title.filter(|t| !t.is_empty()) {
            insert(schema, "title", Value::String(t));
        }
        if let Some(d) = description.filter(|d| !d.is_empty()) {
            insert(schema, "description", Value::String(d));
        }
        if self.deprecated {
            insert(schema, "deprecated", Value::Bool(true));
        }
        if !self.examples.is_empty() {
            insert(schema, "examples", Value::Array(self.examples.clone()));
        }
    }

    /// `extend(...)` keys.
    pub fn apply_extensions(&self, schema: &mut Value) {
        for (k, v) in &self.extend {
            insert(schema, k, v.clone());
        }
    }
}

/// Insert into a schema, turning a boolean schema into an object first (schemars' `Schema::insert`).
pub fn insert(schema: &mut Value, key: &str, value: Value) {
    if let Value::Bool(b) = schema {
        *schema = if *b { Value::Object(Default::default()) } else { serde_json::json!({"not": {}}) };
    }
    if let Value::Object(o) = schema {
        o.insert(key.to_string(), value);
    }
}

/// Everything schemars/serde read from a field.
#[derive(Debug, Clone, Default)]
pub struct FieldAttrs {
    /// Common metadata.
    pub common: Common,
    /// Validation.
    pub validation: Validation,
    /// `rename`.
    pub rename: Option<String>,
    /// `default`.
    pub default: Option<SerdeDefault>,
    /// `skip_serializing`.
    pub skip_ser: bool,
    /// `skip_deserializing`.
    pub skip_de: bool,
    /// `skip_serializing_if`.
    pub skip_ser_if: Option<String>,
    /// `flatten`.
    pub flatten: bool,
    /// `#[schemars(with = "T")]`, else `#[serde(with = "T")]` (schemars reads serde's `with` as a type too).
    pub with: Option<WithType>,
    /// `#[schemars(schema_with = "path")]`: the fn and where the attribute is.
    pub schema_with: Option<(String, Span)>,
    /// `#[schemars(transform = ..)]`.
    pub transform: Option<Span>,
    /// `#[serde(with)]` / `#[serde(serialize_with)]`: the default value is serialized by that code.
    pub serialize_with: Option<Span>,
}

/// A type a schema is taken from instead of the declared one (`with = "T"`).
#[derive(Debug, Clone)]
pub struct WithType {
    /// The type.
    pub ty: syn::Type,
    /// Whether it comes from `#[serde(with = ..)]`, which usually names a module rather than a type.
    pub from_serde: bool,
    /// Where the attribute is.
    pub span: Span,
}

/// Everything serde/schemars read from a container (struct or enum).
#[derive(Debug, Clone, Default)]
pub struct ContainerAttrs {
    /// Common metadata.
    pub common: Common,
    /// `rename_all`.
    pub rename_all: Option<RenameRule>,
    /// `rename_all_fields` (enums).
    pub rename_all_fields: Option<RenameRule>,
    /// `default`.
    pub default: Option<SerdeDefault>,
    /// `deny_unknown_fields`.
    pub deny_unknown_fields: bool,
    /// `transparent`.
    pub transparent: bool,
    /// `tag`.
    pub tag: Option<String>,
    /// `content`.
    pub content: Option<String>,
    /// `untagged`.
    pub untagged: bool,
    /// `#[schemars(with = "T")]`, or serde's `from = "T"` / `try_from = "T"` (the deserialize contract takes the
    /// schema of the type deserialized from).
    pub with: Option<WithType>,
    /// `#[schemars(schema_with = "path")]`.
    pub schema_with: Option<(String, Span)>,
    /// Code that changes the schema at run time (`transform`, `remote`): only compiling can tell.
    pub custom_schema: Option<(String, Span)>,
}

/// Variant attributes.
#[derive(Debug, Clone, Default)]
pub struct VariantAttrs {
    /// Common metadata.
    pub common: Common,
    /// `rename`.
    pub rename: Option<String>,
    /// `rename_all` for the variant's fields.
    pub rename_all: Option<RenameRule>,
    /// `skip` / `skip_deserializing`.
    pub skip_de: bool,
    /// `skip_serializing` (or `skip`): never written.
    pub skip_ser: bool,
    /// `untagged`.
    pub untagged: bool,
    /// `with` (schemars', else serde's).
    pub with: Option<WithType>,
    /// `#[schemars(schema_with = "path")]`.
    pub schema_with: Option<(String, Span)>,
    /// `#[schemars(transform = ..)]`.
    pub transform: Option<Span>,
}

fn rename_value(item: &MetaItem) -> syn::Result<Option<String>> {
    match &item.value {
        MetaValue::Expr(_) => Ok(item.str_value()),
        MetaValue::List(_) => {
            // rename(serialize = "..", deserialize = "..") — schemars uses the deserialize name.
            let nested = item.nested()?;
            Ok(nested.iter().find(|n| n.name == "deserialize").and_then(MetaItem::str_value))
        }
        MetaValue::Flag => Ok(None),
    }
}

fn rename_rule(item: &MetaItem) -> syn::Result<Option<RenameRule>> {
    let Some(s) = rename_value(item)? else {
        return Ok(None);
    };
    RenameRule::parse(&s).map(Some).ok_or_else(|| syn::Error::new(item.span, format!("unknown rename rule `{s}`")))
}

fn parse_type(item: &MetaItem) -> syn::Result<syn::Type> {
    let s =
        item.str_value().ok_or_else(|| syn::Error::new(item.span, format!("expected `{} = \"Type\"`", item.name)))?;
    // The string's contents are not part of the file's nesting check.
    crate::source::syntax::check_nesting(&s).map_err(|m| syn::Error::new(item.span, m))?;
    syn::parse_str::<syn::Type>(&s).map_err(|e| syn::Error::new(item.span, e.to_string()))
}

fn with_type(item: &MetaItem, from_serde: bool) -> syn::Result<WithType> {
    Ok(WithType { ty: parse_type(item)?, from_serde, span: item.span })
}

fn path_value(item: &MetaItem) -> syn::Result<(String, Span)> {
    let s =
        item.str_value().ok_or_else(|| syn::Error::new(item.span, format!("expected `{} = \"path\"`", item.name)))?;
    Ok((s, item.span))
}

fn serde_default(item: &MetaItem) -> SerdeDefault {
    match item.str_value() {
        Some(p) => SerdeDefault::Path(p),
        None => SerdeDefault::Default,
    }
}

fn parse_common(attrs: &[syn::Attribute], item: &MetaItem, common: &mut Common) -> syn::Result<bool> {
    let _ = attrs;
    match item.name.as_str() {
        "title" => common.title = item.str_value(),
        "description" => common.description = item.str_value(),
        "deprecated" => common.deprecated = true,
        "example" => match &item.value {
            MetaValue::Expr(e) => {
                let v = expr_literal(e).ok_or_else(|| {
                    syn::Error::new(
                        item.span,
                        "only literal `example` values can be evaluated statically; use a literal",
                    )
                })?;
                common.examples.push(v);
            }
            _ => return Err(syn::Error::new(item.span, "expected `example = <literal>`")),
        },
        "extend" => {
            let MetaValue::List(ts) = &item.value else {
                return Err(syn::Error::new(item.span, "expected `extend(\"key\" = value, ...)`"));
            };
            let pairs = (|input: ParseStream| {
                let mut out = Vec::new();
                while !input.is_empty() {
                    let key: syn::LitStr = input.parse()?;
                    input.parse::<Token![=]>()?;
                    // schemars passes each value to `json!`: `{..}` and `[..]` are JSON there.
                    let value = crate::source::eval::json::value(input)?;
                    out.push((key, value));
                    if input.is_empty() {
                        break;
                    }
                    input.parse::<Token![,]>()?;
                }
                Ok(out)
            })
            .parse2(ts.clone())?;
            for (k, v) in pairs {
                let value = node_json(&v).ok_or_else(|| {
                    syn::Error::new(k.span(), "only literal / json!-like `extend` values can be evaluated statically")
                })?;
                common.extend.push((k.value(), value));
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// A `json!` value made of literals as JSON (`extend` values).
fn node_json(node: &crate::source::eval::json::Node) -> Option<Value> {
    use crate::source::eval::json::{Key, Node};
    match node {
        Node::Null => Some(Value::Null),
        Node::Bool(b) => Some(Value::Bool(*b)),
        Node::Array(items) => items.iter().map(node_json).collect::<Option<Vec<_>>>().map(Value::Array),
        Node::Object(entries) => entries
            .iter()
            .map(|(k, v)| match k {
                Key::Str(k) => node_json(v).map(|v| (k.clone(), v)),
                Key::Expr(_) => None,
            })
            .collect::<Option<serde_json::Map<_, _>>>()
            .map(Value::Object),
        Node::Expr(e) => expr_json(e),
    }
}

/// A literal, array or `json!`-free object expression as JSON (for `extend`).
pub fn expr_json(e: &Expr) -> Option<Value> {
    if let Some(v) = expr_literal(e) {
        return Some(v);
    }
    match e {
        Expr::Array(a) => a.elems.iter().map(expr_json).collect::<Option<Vec<_>>>().map(Value::Array),
        Expr::Path(p) if p.path.is_ident("null") => Some(Value::Null),
        _ => None,
    }
}

fn parse_bounds(item: &MetaItem) -> syn::Result<Bounds> {
    let mut b = Bounds::default();
    for n in item.nested()? {
        let MetaValue::Expr(e) = &n.value else {
            continue;
        };
        let v = expr_literal(e)
            .ok_or_else(|| syn::Error::new(n.span, "only literal bounds can be evaluated statically; use a literal"))?;
        match n.name.as_str() {
            "min" => b.min = Some(v),
            "max" => b.max = Some(v),
            "equal" => b.equal = Some(v),
            _ => {}
        }
    }
    Ok(b)
}

fn parse_pattern_arg(item: &MetaItem, which: &str) -> syn::Result<Option<Pattern>> {
    let pattern = |e: &Expr, attr: String| match expr_str(e) {
        Some(s) => Pattern::Literal(s),
        None => Pattern::Expr { expr: Box::new(e.clone()), attr, span: item.span },
    };
    match &item.value {
        MetaValue::Expr(e) => Ok(expr_str(e).map(Pattern::Literal)),
        MetaValue::List(_) => {
            let exprs = item.list_exprs();
            if let Ok(exprs) = exprs
                && let [e] = exprs.as_slice()
                && !matches!(e, Expr::Assign(_))
                && (item.name == "pattern" || expr_str(e).is_some())
            {
                return Ok(Some(pattern(e, format!("{which}({}(..))", item.name))));
            }
            for n in item.nested()? {
                let MetaValue::Expr(e) = &n.value else { continue };
                if n.name == "pattern" {
                    return Ok(Some(pattern(e, format!("{which}({}(pattern = ..))", item.name))));
                }
                if n.name == "path" {
                    if which != "validate" {
                        return Err(syn::Error::new(
                            n.span,
                            "`path` is not supported in `schemars(regex(...))` attribute - use \
                             `schemars(regex(pattern = ...))` instead",
                        ));
                    }
                    // validator's `path = "NAME"` names the regex in a string; schemars parses it as an expression.
                    let e = match expr_str(e) {
                        Some(s) => syn::parse_str::<Expr>(&s).map_err(|err| syn::Error::new(n.span, err))?,
                        None => (**e).clone(),
                    };
                    return Ok(Some(Pattern::Expr {
                        expr: Box::new(e),
                        attr: format!("{which}({}(path = ..))", item.name),
                        span: item.span,
                    }));
                }
            }
            Ok(None)
        }
        MetaValue::Flag => Ok(None),
    }
}

fn parse_validation(item: &MetaItem, which: &str, v: &mut Validation) -> syn::Result<bool> {
    let fmt = match item.name.as_str() {
        "email" => Some("email"),
        "url" => Some("uri"),
        "ip" => Some("ip"),
        "ipv4" => Some("ipv4"),
        "ipv6" => Some("ipv6"),
        _ => None,
    };
    if let Some(f) = fmt {
        v.format = Some(f);
        return Ok(true);
    }
    match item.name.as_str() {
        "length" => v.length = Some(parse_bounds(item)?),
        "range" => v.range = Some(parse_bounds(item)?),
        "required" => v.required = true,
        "pattern" if which != "validate" => v.pattern = parse_pattern_arg(item, which)?,
        "regex" if which != "garde" => v.pattern = parse_pattern_arg(item, which)?,
        "contains" => {
            v.contains = match &item.value {
                MetaValue::Expr(e) => expr_str(e),
                _ => match parse_pattern_arg(item, which)? {
                    Some(Pattern::Literal(s)) => Some(s),
                    Some(Pattern::Expr { span, .. }) => {
                        return Err(syn::Error::new(
                            span,
                            "only a string literal `contains` can be evaluated statically",
                        ));
                    }
                    None => None,
                },
            }
        }
        "inner" if which != "validate" => {
            let inner = v.inner.get_or_insert_with(Default::default);
            for n in item.nested()? {
                parse_validation(&n, which, inner)?;
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Read a field's attributes.
pub fn field_attrs(attrs: &[syn::Attribute]) -> syn::Result<FieldAttrs> {
    let mut f = FieldAttrs {
        common: Common {
            doc: doc_text(attrs),
            deprecated: attrs.iter().any(|a| a.path().is_ident("deprecated")),
            ..Default::default()
        },
        ..Default::default()
    };
    let [serde, schemars, validate, garde] = meta_items_of(attrs, ["serde", "schemars", "validate", "garde"]);
    for (which, items) in [("serde", serde), ("schemars", schemars)] {
        for item in items? {
            match item.name.as_str() {
                "rename" => f.rename = rename_value(&item)?.or(f.rename.take()),
                "default" => f.default = Some(serde_default(&item)),
                "skip" => {
                    f.skip_ser = true;
                    f.skip_de = true;
                }
                "skip_serializing" => f.skip_ser = true,
                "skip_deserializing" => f.skip_de = true,
                "skip_serializing_if" => f.skip_ser_if = item.str_value(),
                "flatten" => f.flatten = true,
                // schemars reads its own attributes first: its `with`/`schema_with` win over serde's `with`.
                "with" if which == "schemars" => f.with = Some(with_type(&item, false)?),
                "schema_with" if which == "schemars" => f.schema_with = Some(path_value(&item)?),
                "transform" if which == "schemars" => f.transform = Some(item.span),
                "with" => {
                    f.serialize_with = Some(item.span);
                    if f.with.is_none() && f.schema_with.is_none() {
                        f.with = Some(with_type(&item, true)?);
                    }
                }
                "serialize_with" => f.serialize_with = Some(item.span),
                _ => {
                    if which == "schemars" && !parse_common(attrs, &item, &mut f.common)? {
                        parse_validation(&item, which, &mut f.validation)?;
                    }
                }
            }
        }
    }
    for (which, items) in [("validate", validate), ("garde", garde)] {
        for item in items? {
            parse_validation(&item, which, &mut f.validation)?;
        }
    }
    Ok(f)
}

/// Read a container's attributes.
pub fn container_attrs(attrs: &[syn::Attribute]) -> syn::Result<ContainerAttrs> {
    let mut c = container_serde_attrs(attrs)?;
    c.common.doc = doc_text(attrs);
    c.common.deprecated |= attrs.iter().any(|a| a.path().is_ident("deprecated"));
    Ok(c)
}

/// [`container_attrs`] without the doc comment and `#[deprecated]` (what callers that only look at the shape of a
/// type need, at a fraction of the cost on documented types).
pub fn container_serde_attrs(attrs: &[syn::Attribute]) -> syn::Result<ContainerAttrs> {
    let mut c = ContainerAttrs::default();
    for which in ["serde", "schemars"] {
        for item in meta_items(attrs, which)? {
            match item.name.as_str() {
                "rename_all" => c.rename_all = rename_rule(&item)?,
                "rename_all_fields" => c.rename_all_fields = rename_rule(&item)?,
                "default" => c.default = Some(serde_default(&item)),
                "deny_unknown_fields" => c.deny_unknown_fields = true,
                "transparent" => c.transparent = true,
                "tag" => c.tag = item.str_value(),
                "content" => c.content = item.str_value(),
                "untagged" => c.untagged = true,
                "with" if which == "schemars" => c.with = Some(with_type(&item, false)?),
                "schema_with" if which == "schemars" => c.schema_with = Some(path_value(&item)?),
                "from" | "try_from" if which == "serde" => {
                    if c.with.is_none() && c.schema_with.is_none() {
                        c.with = Some(with_type(&item, false)?);
                    }
                }
                // Under the deserialize contract `into` does not change the schema.
                "into" if which == "serde" => {}
                "remote" | "transform" => c.custom_schema = Some((item.name.clone(), item.span)),
                _ => {
                    if which == "schemars" {
                        parse_common(attrs, &item, &mut c.common)?;
                    }
                }
            }
        }
    }
    Ok(c)
}

/// Read a variant's attributes.
pub fn variant_attrs(attrs: &[syn::Attribute]) -> syn::Result<VariantAttrs> {
    let mut v = VariantAttrs {
        common: Common {
            doc: doc_text(attrs),
            deprecated: attrs.iter().any(|a| a.path().is_ident("deprecated")),
            ..Default::default()
        },
        ..Default::default()
    };
    for which in ["serde", "schemars"] {
        for item in meta_items(attrs, which)? {
            match item.name.as_str() {
                "rename" => v.rename = rename_value(&item)?.or(v.rename.take()),
                "rename_all" => v.rename_all = rename_rule(&item)?,
                "skip" => {
                    v.skip_de = true;
                    v.skip_ser = true;
                }
                "skip_deserializing" => v.skip_de = true,
                "skip_serializing" => v.skip_ser = true,
                "untagged" => v.untagged = true,
                "with" if which == "schemars" => v.with = Some(with_type(&item, false)?),
                "with" => {
                    if v.with.is_none() && v.schema_with.is_none() {
                        v.with = Some(with_type(&item, true)?);
                    }
                }
                "schema_with" if which == "schemars" => v.schema_with = Some(path_value(&item)?),
                "transform" if which == "schemars" => v.transform = Some(item.span),
                _ => {
                    if which == "schemars" {
                        parse_common(attrs, &item, &mut v.common)?;
                    }
                }
            }
        }
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_rename_rules_follow_serde() {
        let f = "http2_enabled";
        assert_eq!(RenameRule::Camel.apply_to_field(f), "http2Enabled");
        assert_eq!(RenameRule::Camel.apply_to_field("a_b_c"), "aBC");
        assert_eq!(RenameRule::Pascal.apply_to_field("api_url"), "ApiUrl");
        assert_eq!(RenameRule::Kebab.apply_to_field("api_url"), "api-url");
        assert_eq!(RenameRule::ScreamingSnake.apply_to_field("api_url"), "API_URL");
        assert_eq!(RenameRule::ScreamingKebab.apply_to_field("api_url"), "API-URL");
        assert_eq!(RenameRule::Upper.apply_to_field("api_url"), "API_URL");
        assert_eq!(RenameRule::Lower.apply_to_field("api_url"), "api_url");
        assert_eq!(RenameRule::parse("camelCase"), Some(RenameRule::Camel));
        assert_eq!(RenameRule::parse("Camel"), None);
    }

    #[test]
    fn doc_title_and_description() {
        let d = super::super::dialect::Dialect::Schemars1;
        assert_eq!(d.title_and_description("# Title\nbody\n\n  more"), ("Title".into(), "body\n\n  more".into()));
        assert_eq!(d.title_and_description("  plain  "), (String::new(), "plain".into()));
        let attrs: Vec<syn::Attribute> = vec![syn::parse_quote!(#[doc = " a"]), syn::parse_quote!(#[doc = "  b"])];
        assert_eq!(doc_text(&attrs).as_deref(), Some("a\n b"));
    }
}
