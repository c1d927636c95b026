//! The bodies of `serde_json::json!(..)` and `schemars::json_schema!(..)` read the way their `macro_rules!`
//! read them: `null`, `true`, `false`, `[..]` and `{..}` are JSON; keys and every other value are Rust
//! expressions, left as [`Node::Expr`] for the evaluator (`"spec": spec_schema`, `"x": -1`, `(KEY): 2`).

use proc_macro2::TokenStream;
use syn::parse::{ParseStream, Parser};
use syn::{Expr, Token};

/// A `json!` value before its Rust expressions are evaluated.
#[derive(Debug, Clone)]
pub enum Node {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// `[a, b]`.
    Array(Vec<Node>),
    /// `{"k": v, (expr): v}`, in order.
    Object(Vec<(Key, Node)>),
    /// Any other value: `serde_json::to_value(&expr)`.
    Expr(Box<Expr>),
}

/// An object key.
#[derive(Debug, Clone)]
pub enum Key {
    /// A string literal.
    Str(String),
    /// An expression converted with `.into()` (a const, a local, `(expr)`).
    Expr(Box<Expr>),
}

/// The body of `json!(..)`.
pub fn json_body(tokens: TokenStream) -> syn::Result<Node> {
    (|input: ParseStream| {
        let node = value(input)?;
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the JSON value"));
        }
        Ok(node)
    })
    .parse2(tokens)
}

/// The body of `json_schema!(..)`: an object, `true` or `false`.
pub fn json_schema_body(tokens: TokenStream) -> syn::Result<Node> {
    let node = json_body(tokens.clone())?;
    match node {
        Node::Object(_) | Node::Bool(_) => Ok(node),
        _ => Err(syn::Error::new_spanned(tokens, "json_schema! takes an object literal, `true` or `false`")),
    }
}

fn at_value_end(input: ParseStream) -> bool {
    input.is_empty() || input.peek(Token![,])
}

/// One `json!` value, up to the next top-level comma (`extend("key" = value, ..)` reads its values so).
pub fn value(input: ParseStream) -> syn::Result<Node> {
    if input.peek(syn::token::Brace) {
        let content;
        syn::braced!(content in input);
        return object(&content);
    }
    if input.peek(syn::token::Bracket) {
        let content;
        syn::bracketed!(content in input);
        return array(&content);
    }
    let fork = input.fork();
    if let Ok(ident) = fork.parse::<syn::Ident>()
        && ident == "null"
        && at_value_end(&fork)
    {
        input.parse::<syn::Ident>()?;
        return Ok(Node::Null);
    }
    let fork = input.fork();
    if let Ok(b) = fork.parse::<syn::LitBool>()
        && at_value_end(&fork)
    {
        input.parse::<syn::LitBool>()?;
        return Ok(Node::Bool(b.value));
    }
    Ok(Node::Expr(Box::new(input.parse()?)))
}

fn array(input: ParseStream) -> syn::Result<Node> {
    let mut out = Vec::new();
    while !input.is_empty() {
        out.push(value(input)?);
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok(Node::Array(out))
}

fn object(input: ParseStream) -> syn::Result<Node> {
    let mut out = Vec::new();
    while !input.is_empty() {
        let key = if input.peek(syn::LitStr) && input.peek2(Token![:]) {
            Key::Str(input.parse::<syn::LitStr>()?.value())
        } else {
            Key::Expr(Box::new(input.parse()?))
        };
        input.parse::<Token![:]>()?;
        out.push((key, value(input)?));
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok(Node::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> Node {
        json_body(src.parse().expect("tokens")).expect("json")
    }

    #[test]
    fn literals_nest_and_expressions_are_left_for_the_evaluator() {
        let n = parse(
            r#"{ "a": null, "b": [true, false, 1, "s"], "c": { "d": g.subschema_for::<BTreeMap<String, u8>>() }, (KEY): -1, }"#,
        );
        let Node::Object(entries) = n else { panic!("object") };
        assert_eq!(entries.len(), 4);
        assert!(matches!(&entries[0], (Key::Str(k), Node::Null) if k == "a"));
        let Node::Array(items) = &entries[1].1 else { panic!("array") };
        assert!(matches!(items.as_slice(), [Node::Bool(true), Node::Bool(false), Node::Expr(_), Node::Expr(_)]));
        let Node::Object(inner) = &entries[2].1 else { panic!("inner object") };
        assert!(
            matches!(&inner[0].1, Node::Expr(e) if matches!(**e, Expr::MethodCall(_))),
            "generic commas stay inside"
        );
        assert!(matches!(&entries[3], (Key::Expr(_), Node::Expr(_))));
    }

    #[test]
    fn top_level_values() {
        assert!(matches!(parse("null"), Node::Null));
        assert!(matches!(parse("true"), Node::Bool(true)));
        assert!(matches!(parse("true.into()"), Node::Expr(_)));
        assert!(matches!(parse("some_value"), Node::Expr(_)));
        assert!(json_schema_body("[1]".parse().expect("tokens")).is_err());
        assert!(json_schema_body("false".parse().expect("tokens")).is_ok());
        assert!(json_body("{ \"a\" 1 }".parse().expect("tokens")).is_err());
    }
}
