//! The token-by-token struct parse equals syn's: trees and token spans over this repository's structs, field type
//! shapes, and syn's own errors.

use super::item_struct;
use crate::source::lex::{blank_fn_bodies, raw_doc_comments};
use quote::ToTokens;

/// Every token of a struct with where it starts and ends.
fn tokens(s: &syn::ItemStruct) -> Vec<(String, proc_macro2::LineColumn, proc_macro2::LineColumn)> {
    fn walk(ts: proc_macro2::TokenStream, out: &mut Vec<(String, proc_macro2::LineColumn, proc_macro2::LineColumn)>) {
        for t in ts {
            let span = t.span();
            match t {
                proc_macro2::TokenTree::Group(g) => {
                    out.push((format!("{:?}", g.delimiter()), g.span_open().start(), g.span_close().end()));
                    walk(g.stream(), out);
                }
                other => out.push((other.to_string(), span.start(), span.end())),
            }
        }
    }
    let mut out = Vec::new();
    walk(s.to_token_stream(), &mut out);
    out
}

/// Each struct of `text` as syn reads it and as [`item_struct`] does.
fn both(text: &str) -> Vec<(syn::ItemStruct, syn::ItemStruct)> {
    struct Both(Vec<(syn::ItemStruct, syn::ItemStruct)>);
    impl syn::parse::Parse for Both {
        fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
            use syn::parse::discouraged::Speculative;
            input.call(syn::Attribute::parse_inner)?;
            let mut out = Vec::new();
            while !input.is_empty() {
                let fork = input.fork();
                let attrs = fork.call(syn::Attribute::parse_outer)?;
                let vis: syn::Visibility = fork.parse()?;
                if fork.peek(syn::Token![struct]) {
                    let fast = item_struct(&fork, attrs, vis)?;
                    let syn: syn::ItemStruct = input.fork().parse()?;
                    out.push((syn, fast));
                    input.advance_to(&fork);
                } else {
                    input.parse::<syn::Item>()?;
                }
            }
            Ok(Both(out))
        }
    }
    syn::parse_str::<Both>(text).expect("parses").0
}

#[test]
fn plain_and_other_field_types_read_as_syn_reads_them() {
    let text = concat!(
        "#[derive(Debug)]\npub struct S<T: Clone> where T: Default {\n",
        "    /// doc\n    #[serde(default)]\n    pub a: Option<Vec<Foo>>,\n",
        "    pub(crate) b: std::collections::BTreeMap<String, serde_json::Value>,\n",
        "    c: Vec<u8,>, d: Option<>, r#type: r#Foo,\n",
        "    e: &'static str, f: (u8, u16), g: [u8; 4], h: Box<dyn Fn(u8) -> u8 + Send>,\n",
        "    i: Vec::<u8>, j: <T as Trait>::Out, k: ::std::string::String, l: Cow<'a, str>,\n",
        "    m: Foo<3>, o: Self, p: Foo<Bar>::Baz, q: impl Trait, s: fn(),\n",
        "    t: Foo<Item = u8>, u: Vec<Vec<Vec<u8>>>, v: crate::Foo, w: T\n}\n",
        "struct Tuple(pub u8, String);\nstruct Unit;\nstruct Empty {}\nstruct W<T>(T) where T: Copy;\n",
    );
    let got = both(text);
    assert_eq!(got.len(), 5);
    for (syn, fast) in &got {
        assert_eq!(syn, fast);
        assert_eq!(tokens(syn), tokens(fast));
    }
}

#[test]
fn bare_attributes_read_as_syn_reads_them() {
    // What lifted attributes and doc comments leave, alone, together and among attributes syn reads.
    let text = concat!(
        "struct S {\n    #[serde]\n    a: u8,\n    #[doc]\n    #[serde]\n    b: u8,\n",
        "    #[serde]\n    #[serde(rename = \"c\")]\n    #[doc]\n    c: u8,\n",
        "    #[cfg(x)]\n    #[serde]\n    d: u8,\n    #[doc = \"e\"] #[serde] #[r#serde] #[serde::x] #[other]\n    e: u8,\n",
        "    #[serde]\n    pub(crate) f: Vec<u8>,\n    #[ serde ]\n    g: u8,\n}\n",
    );
    let got = both(text);
    assert_eq!(got.len(), 1);
    for (syn, fast) in &got {
        assert_eq!(syn, fast);
        assert_eq!(tokens(syn), tokens(fast));
    }
}

#[test]
fn an_error_is_syn_s() {
    for text in [
        "struct S { a: Vec<u8 }",
        "struct S { a: }",
        "struct S { a: u8 b: u8 }",
        "struct S { a: u8,, }",
        "struct S<T { }",
        "struct S { n: Box<Fn(u8)> }",
    ] {
        let syn = syn::parse_str::<syn::Item>(text).map(|_| ()).unwrap_err();
        let got = crate::crd::index::parse_items(text, None).map(|_| ()).unwrap_err();
        assert_eq!((got.to_string(), got.span().start()), (syn.to_string(), syn.span().start()), "{text}");
    }
}

/// Every struct in this repository's Rust files reads the same, tokens and spans.
#[test]
fn this_repository_reads_the_same() {
    let mut structs = 0;
    for (path, text) in crate::crd::index::tests::repository_rust_files() {
        let text = raw_doc_comments(&blank_fn_bodies(&text)).into_owned();
        if syn::parse_str::<syn::File>(&text).is_err() {
            continue;
        }
        for (syn, fast) in both(&text) {
            assert_eq!(syn, fast, "{}", path.display());
            assert_eq!(tokens(&syn), tokens(&fast), "{}", path.display());
            structs += 1;
        }
    }
    assert!(structs > 300, "{structs} structs");
}
