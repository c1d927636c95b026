//! Reading the items of an attribute's list (`#[name(a, b = 1, c(..))]`) the way darling and serde_derive read
//! them, and the literal values written there.

use proc_macro2::{Span, TokenStream};
use serde_json::Value;
use syn::ext::IdentExt;
use syn::parse::discouraged::Speculative;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Expr, Lit, Token};

/// One `name`, `name = expr` or `name(tokens)` inside an attribute.
#[derive(Debug, Clone)]
pub(crate) struct MetaItem {
    /// The key.
    pub(crate) name: String,
    /// Where it is.
    pub(crate) span: Span,
    /// Its value.
    pub(crate) value: MetaValue,
}

/// Value of a [`MetaItem`].
#[derive(Debug, Clone)]
pub(crate) enum MetaValue {
    /// `name`.
    Flag,
    /// `name = expr`.
    Expr(ValueExpr),
    /// `name(...)`.
    List(TokenStream),
}

/// The expression after `name =`. A lone literal (`rename = "x"`, what nearly every `#[serde(..)]` holds) is kept as
/// its token until something needs the expression: syn's `Lit::new` cost more than the rest of reading the list,
/// and a plain string's value ([`MetaItem::str_value`]) is read from the token without it.
#[derive(Debug, Clone)]
pub(crate) struct ValueExpr {
    /// The literal token, when the expression is one.
    literal: Option<proc_macro2::Literal>,
    /// The expression, built from `literal` on first use.
    expr: std::cell::OnceCell<Box<Expr>>,
}

impl ValueExpr {
    fn of_expr(e: Expr) -> ValueExpr {
        ValueExpr { literal: None, expr: std::cell::OnceCell::from(Box::new(e)) }
    }

    fn of_literal(literal: proc_macro2::Literal) -> ValueExpr {
        ValueExpr { literal: Some(literal), expr: std::cell::OnceCell::new() }
    }

    /// The value of a plain string literal token (`"text"` without escapes, `r"text"`, `r#"text"#`), without
    /// building the expression; `None` for anything else, which [`expr_str`] reads.
    fn plain_str(&self) -> Option<String> {
        let mut repr = self.literal.as_ref()?.to_string();
        let inner = match repr.strip_prefix('r') {
            Some(raw) => {
                let hashes = raw.len() - raw.trim_start_matches('#').len();
                raw[hashes..].strip_prefix('"')?.strip_suffix(&raw[..hashes])?.strip_suffix('"')?
            }
            None => repr.strip_prefix('"')?.strip_suffix('"').filter(|t| !t.contains('\\'))?,
        };
        if inner.contains('\r') {
            return None;
        }
        // The value in place of the token's text: one allocation per string read, for every field's `rename`.
        let start = inner.as_ptr() as usize - repr.as_ptr() as usize;
        let end = start + inner.len();
        repr.truncate(end);
        repr.drain(..start);
        Some(repr)
    }
}

impl std::ops::Deref for ValueExpr {
    type Target = Expr;

    fn deref(&self) -> &Expr {
        self.expr.get_or_init(|| {
            let lit = self.literal.clone().expect("a value is a literal or an expression");
            Box::new(Expr::Lit(syn::ExprLit { attrs: Vec::new(), lit: Lit::new(lit) }))
        })
    }
}

impl MetaItem {
    /// `name = "string"`.
    pub(crate) fn str_value(&self) -> Option<String> {
        match &self.value {
            MetaValue::Expr(e) => e.plain_str().or_else(|| expr_str(e)),
            _ => None,
        }
    }

    /// Nested items of `name(a = 1, b)`.
    pub(crate) fn nested(&self) -> syn::Result<Vec<MetaItem>> {
        match &self.value {
            MetaValue::List(ts) => plain_meta_list(ts).map_or_else(|| parse_meta_list.parse2(ts.clone()), Ok),
            _ => Err(syn::Error::new(self.span, format!("expected `{}(...)`", self.name))),
        }
    }

    /// Expressions of `name(a, b)`.
    pub(crate) fn list_exprs(&self) -> syn::Result<Vec<Expr>> {
        match &self.value {
            MetaValue::List(ts) => {
                let p = Punctuated::<Expr, Token![,]>::parse_terminated.parse2(ts.clone())?;
                Ok(p.into_iter().collect())
            }
            _ => Err(syn::Error::new(self.span, format!("expected `{}(...)`", self.name))),
        }
    }
}

/// Parse `a, b = 1, c(..)`.
pub(crate) fn parse_meta_list(input: ParseStream) -> syn::Result<Vec<MetaItem>> {
    let mut out = Vec::new();
    while !input.is_empty() {
        let span = input.span();
        let mut name = syn::Ident::parse_any(input)?.to_string();
        while input.peek(Token![::]) {
            input.parse::<Token![::]>()?;
            name.push_str("::");
            name.push_str(&syn::Ident::parse_any(input)?.to_string());
        }
        let value = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            MetaValue::Expr(ValueExpr::of_expr(parse_value_expr(input)?))
        } else if input.peek(syn::token::Paren) {
            let content;
            syn::parenthesized!(content in input);
            MetaValue::List(content.parse::<TokenStream>()?)
        } else {
            MetaValue::Flag
        };
        out.push(MetaItem { name, span, value });
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok(out)
}

/// [`parse_meta_list`] read from the tokens directly, for lists of plain items (`name`, `a::b`, `name = <literal>`,
/// `name(..)`): the same items without building syn's parse buffer, which every field's `#[serde(..)]` paid for.
/// `None` for anything else, which syn's parser then reads (and reports what is wrong with).
fn plain_meta_list(tokens: &TokenStream) -> Option<Vec<MetaItem>> {
    use proc_macro2::{Delimiter, Spacing, TokenTree};
    let mut out = Vec::new();
    let mut it = tokens.clone().into_iter().peekable();
    while let Some(first) = it.next() {
        let TokenTree::Ident(first) = first else { return None };
        let span = first.span();
        let mut name = first.to_string();
        while let Some(TokenTree::Punct(p)) = it.peek()
            && p.as_char() == ':'
        {
            let (TokenTree::Punct(a), Some(TokenTree::Punct(b)), Some(TokenTree::Ident(next))) =
                (it.next()?, it.next(), it.next())
            else {
                return None;
            };
            if a.spacing() != Spacing::Joint || b.as_char() != ':' {
                return None;
            }
            name.push_str("::");
            name.push_str(&next.to_string());
        }
        let value = match it.peek() {
            Some(TokenTree::Punct(p)) if p.as_char() == '=' && p.spacing() == Spacing::Alone => {
                it.next();
                let Some(TokenTree::Literal(lit)) = it.next() else { return None };
                MetaValue::Expr(ValueExpr::of_literal(lit))
            }
            Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => {
                let stream = g.stream();
                it.next();
                MetaValue::List(stream)
            }
            _ => MetaValue::Flag,
        };
        out.push(MetaItem { name, span, value });
        match it.next() {
            None => break,
            Some(TokenTree::Punct(p)) if p.as_char() == ',' => {}
            Some(_) => return None,
        }
    }
    Some(out)
}

/// The expression after `name =`. A lone literal (the common case: `rename = "x"`) is what `Expr` parsing
/// would give, `Expr::Lit`, built without syn's general expression parser.
fn parse_value_expr(input: ParseStream) -> syn::Result<Expr> {
    if input.peek(Lit) {
        let fork = input.fork();
        if let Ok(lit) = fork.parse::<Lit>()
            && (fork.is_empty() || fork.peek(Token![,]))
        {
            input.advance_to(&fork);
            return Ok(Expr::Lit(syn::ExprLit { attrs: Vec::new(), lit }));
        }
    }
    input.parse::<Expr>()
}

/// All items of every `#[<which>(...)]` attribute.
pub(crate) fn meta_items(attrs: &[syn::Attribute], which: &str) -> syn::Result<Vec<MetaItem>> {
    let [items] = meta_items_of(attrs, [which]);
    items
}

/// [`meta_items`] of each of `names`, in one pass over the attributes (a field's four lists: serde's, schemars',
/// validator's and garde's). Each list is its own result, as [`meta_items`] would give it.
pub(crate) fn meta_items_of<const N: usize>(
    attrs: &[syn::Attribute],
    names: [&str; N],
) -> [syn::Result<Vec<MetaItem>>; N] {
    let mut out: [syn::Result<Vec<MetaItem>>; N] = std::array::from_fn(|_| Ok(Vec::new()));
    for a in attrs {
        let syn::Meta::List(l) = &a.meta else { continue };
        let Some(ident) = l.path.get_ident() else { continue };
        let Some(k) = names.iter().position(|name| ident == name) else { continue };
        let Ok(items) = &mut out[k] else { continue };
        match plain_meta_list(&l.tokens) {
            Some(more) => items.extend(more),
            None => match parse_meta_list.parse2(l.tokens.clone()) {
                Ok(more) => items.extend(more),
                Err(e) => out[k] = Err(e),
            },
        }
    }
    out
}

/// A string literal expression's value.
pub(crate) fn expr_str(e: &Expr) -> Option<String> {
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => Some(s.value()),
            _ => None,
        },
        Expr::Group(g) => expr_str(&g.expr),
        Expr::Paren(p) => expr_str(&p.expr),
        _ => None,
    }
}

/// A literal (number, string, bool, possibly negated) as JSON.
pub(crate) fn expr_literal(e: &Expr) -> Option<Value> {
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => Some(Value::String(s.value())),
            Lit::Bool(b) => Some(Value::Bool(b.value)),
            Lit::Int(i) => {
                i.base10_parse::<i64>().ok().map(Value::from).or_else(|| i.base10_parse::<u64>().ok().map(Value::from))
            }
            Lit::Float(f) => f.base10_parse::<f64>().ok().map(Value::from),
            Lit::Char(c) => Some(Value::String(c.value().to_string())),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => match expr_literal(&u.expr)? {
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Some(Value::from(-i))
                } else {
                    n.as_f64().map(|f| Value::from(-f))
                }
            }
            _ => None,
        },
        Expr::Group(g) => expr_literal(&g.expr),
        Expr::Paren(p) => expr_literal(&p.expr),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Items as comparable text: name, line and column, value.
    fn shown(items: &[MetaItem]) -> Vec<String> {
        items
            .iter()
            .map(|i| {
                let value = match &i.value {
                    MetaValue::Flag => String::new(),
                    MetaValue::Expr(e) => {
                        let e: &Expr = e;
                        format!("= {}", quote::quote!(#e))
                    }
                    MetaValue::List(ts) => format!("({ts})"),
                };
                let at = i.span.start();
                format!("{} {}:{} {value}", i.name, at.line, at.column)
            })
            .collect()
    }

    #[test]
    fn string_values_read_from_the_token_are_syns() {
        let values = [
            r#""plain""#,
            r#""""#,
            r#""with \"escapes\" and \n""#,
            r#""\u{1F600}""#,
            r#"r"raw \d+""#,
            r##"r#"raw "quoted""#"##,
            r#""suffixed"x"#,
            r#"b"bytes""#,
            "42",
            "true",
        ];
        for value in values {
            let tokens: TokenStream = format!("rename = {value}").parse().expect("tokens");
            let items =
                plain_meta_list(&tokens).unwrap_or_else(|| parse_meta_list.parse2(tokens.clone()).expect("parses"));
            let syns = syn::parse_str::<Expr>(value).ok().and_then(|e| expr_str(&e));
            assert_eq!(items[0].str_value(), syns, "{value}");
            // The expression, when asked for, is syn's.
            let MetaValue::Expr(e) = &items[0].value else { panic!("{value}: not an expression") };
            let e: &Expr = e;
            assert_eq!(quote::quote!(#e).to_string(), value, "{value}");
        }
    }

    #[test]
    fn lists_read_in_one_pass_are_each_name_s_own() {
        let item: syn::ItemStruct = syn::parse_str(
            "#[serde(rename = \"a\")] #[doc = \"x\"] #[garde(length(min = 1))] #[schemars(x = + )] \
             #[serde(default)] #[validate] #[schemars(y)] struct S;",
        )
        .expect("parses");
        let names = ["serde", "schemars", "validate", "garde"];
        let [serde, schemars, validate, garde] = meta_items_of(&item.attrs, names);
        // Each name's items, in the order written, where they are written.
        let serde_items = ["rename 1:8 = \"a\"", "default 1:90 "];
        assert_eq!(shown(&serde.expect("reads")), serde_items);
        assert_eq!(shown(&garde.expect("reads")), ["length 1:44 (min = 1)"]);
        assert!(validate.expect("reads").is_empty(), "`#[validate]` has no list");
        // The first list of a name that does not read is that name's error; the other names read on.
        let err = schemars.expect_err("`x = +` does not read").to_string();
        assert_eq!(err, parse_meta_list.parse_str("x = +").expect_err("refused").to_string());
        // `meta_items` is the one-name case.
        assert_eq!(shown(&meta_items(&item.attrs, "serde").expect("reads")), serde_items);
    }

    #[test]
    fn plain_meta_lists_read_like_syn() {
        let plain = [
            "default, skip_serializing_if = \"Option::is_none\", rename = \"camelCase\"",
            "rename(serialize = \"a\", deserialize = \"b\"), flatten,",
            "with = \"x\", length(min = 1), range(max = 5.5), r#type = 3u8, a::b::c",
            "",
        ];
        for text in plain {
            let tokens: TokenStream = text.parse().expect("tokens");
            let fast = plain_meta_list(&tokens).unwrap_or_else(|| panic!("plain: {text}"));
            let slow = parse_meta_list.parse2(tokens).expect("parses");
            assert_eq!(shown(&fast), shown(&slow), "{text}");
        }
        // What is not plain goes to syn's parser (which reads or refuses it).
        for text in ["default = \"a\" + b", "x = -1", "x = true", "x = path::to", ":: x", "a b", "x == 1", "a: b"] {
            let tokens: TokenStream = text.parse().expect("tokens");
            assert!(plain_meta_list(&tokens).is_none(), "{text}");
        }
    }
}
