//! What kubesmith reads of an attribute macro without expanding it: whether an attribute may be one, its path, its
//! arguments' tokens and the `key = ".."` values and words in them.

use proc_macro2::{TokenStream, TokenTree};

/// Attributes that are no attribute macro: built-in ones and the helpers of the derives CRD specs use.
const INERT: &[&str] = &[
    "allow",
    "automatically_derived",
    "cfg",
    "cfg_attr",
    "deny",
    "deprecated",
    "derive",
    "doc",
    "expect",
    "forbid",
    "garde",
    "kube",
    "must_use",
    "non_exhaustive",
    "repr",
    "schemars",
    "serde",
    "validate",
    "warn",
    "x_kube",
];

/// Tool attributes (`#[rustfmt::skip]`, `#[clippy::..]`): never macros.
const TOOLS: &[&str] = &["rustfmt", "clippy", "diagnostic"];

/// Whether `attr` may be an attribute macro: neither built in nor a known derive helper.
pub fn is_foreign(attr: &syn::Attribute) -> bool {
    let path = attr.path();
    let Some(first) = path.segments.first() else { return false };
    if path.segments.len() > 1 {
        return !TOOLS.iter().any(|t| first.ident == t);
    }
    !INERT.iter().any(|n| first.ident == n)
}

/// The attribute's path as written (`loom::resource`).
pub fn path_text(attr: &syn::Attribute) -> String {
    let segments: Vec<String> = attr.path().segments.iter().map(|s| s.ident.to_string()).collect();
    segments.join("::")
}

/// The tokens of an attribute's arguments (empty for `#[x]`).
pub fn args(attr: &syn::Attribute) -> TokenStream {
    match &attr.meta {
        syn::Meta::List(l) => l.tokens.clone(),
        syn::Meta::NameValue(nv) => quote::ToTokens::to_token_stream(&nv.value),
        syn::Meta::Path(_) => TokenStream::new(),
    }
}

/// The string value of `key = "..."` anywhere in `tokens` (nested groups included), the first one found.
pub fn string_arg(tokens: &TokenStream, key: &str) -> Option<String> {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    for (i, t) in trees.iter().enumerate() {
        match t {
            TokenTree::Ident(id) if id == key => {
                let eq = matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '=');
                if let (true, Some(TokenTree::Literal(lit))) = (eq, trees.get(i + 2))
                    && let Ok(syn::Lit::Str(s)) = syn::parse_str::<syn::Lit>(&lit.to_string())
                {
                    return Some(s.value());
                }
            }
            TokenTree::Group(g) => {
                if let Some(v) = string_arg(&g.stream(), key) {
                    return Some(v);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether `tokens` hold one of `words` as an identifier, at any depth.
pub fn has_ident(tokens: &TokenStream, words: &[&str]) -> bool {
    tokens.clone().into_iter().any(|t| match t {
        TokenTree::Ident(id) => words.iter().any(|w| id == w),
        TokenTree::Group(g) => has_ident(&g.stream(), words),
        _ => false,
    })
}
