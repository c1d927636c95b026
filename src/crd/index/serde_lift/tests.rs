//! Lifted `#[serde(..)]` attributes give the items syn gives, at the same places; what is not plain, or not found
//! again, is read as written.

use super::lift;
use crate::crd::index::docs::for_each_attrs;
use crate::crd::index::parse_items;
use crate::source::meta::meta_items;

/// Every attribute list of `items`: where each attribute starts, the attribute as tokens, and serde's items as the
/// readers see them (name, string value).
type View = Vec<Vec<((usize, usize), String, Vec<(String, Option<String>)>)>>;

fn view(items: &mut [syn::Item]) -> View {
    let mut out = Vec::new();
    for_each_attrs(items, &mut |attrs| {
        let list = attrs
            .iter()
            .map(|a| {
                let at = a.pound_token.spans[0].start();
                let serde = meta_items(std::slice::from_ref(a), "serde").expect("serde's items read");
                let serde = serde.iter().map(|m| (m.name.clone(), m.str_value())).collect();
                ((at.line, at.column), quote::quote!(#a).to_string(), serde)
            })
            .collect();
        out.push(list);
    });
    out
}

/// The items as the index reads `text`, and as syn reads it.
fn both(text: &str) -> (View, View, Vec<String>, Vec<String>) {
    let mut index = parse_items(text, None).expect("the index parses it").0;
    let mut syn = syn::parse_file(text).expect("syn parses it").items;
    let shown = |items: &[syn::Item]| items.iter().map(|i| quote::quote!(#i).to_string()).collect();
    (view(&mut index), view(&mut syn), shown(&index), shown(&syn))
}

const KOPIUM: &str = r#"use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct MachineSpec {
    #[serde(rename = "clusterName")]
    pub cluster_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "failureDomain")]
    pub failure_domain: Option<String>,
	#[serde(default,skip_serializing_if="Option::is_none")]
    pub taints: Option<Vec<String>>,
    #[serde(rename = "x-kubernetes: a b/c.d")]
    pub odd: Option<i64>,
}

#[derive(Serialize, Deserialize, Clone, Debug)]
pub enum MachinePhase {
    #[serde(rename = "Running")]
    Running,
    #[serde(rename = "")]
    Empty,
}
"#;

#[test]
fn lifted_attributes_read_as_written() {
    let lifted = lift(KOPIUM);
    assert_eq!(lifted.attrs.len(), 6, "every attribute of the text is plain");
    let lifted_text = lifted.text.to_string();
    assert_eq!(lifted.text.lines().count(), KOPIUM.lines().count());
    assert!(lifted.text.contains("    #[serde]\n    pub cluster_name"));
    let (index, syn, index_items, syn_items) = both(KOPIUM);
    // Read lifted, not as written after a restore gave up.
    let mut read = syn::parse_file(&lifted.text).expect("parses lifted").items;
    assert!(lifted.restore(&mut read), "every attribute found again");
    assert_eq!(view(&mut read), syn);
    assert_eq!(index, syn);
    assert_eq!(index_items, syn_items);
    // The fields' and variants' own places are where syn puts them.
    let places = |text: &str| -> Vec<(usize, usize)> {
        let file = syn::parse_file(text).expect("parses");
        let mut out = Vec::new();
        for item in &file.items {
            match item {
                syn::Item::Struct(s) => out.extend(s.fields.iter().filter_map(|f| f.ident.as_ref()).map(|i| i.span())),
                syn::Item::Enum(e) => out.extend(e.variants.iter().map(|v| v.ident.span())),
                _ => {}
            }
        }
        out.into_iter().map(|s| (s.start().line, s.start().column)).collect()
    };
    assert_eq!(places(&lifted_text), places(KOPIUM));
}

#[test]
fn only_plain_attributes_alone_on_their_line_are_lifted() {
    for text in [
        "struct A {\n    #[serde(rename = \"a\\\"b\")]\n    a: u8,\n}\n",
        "struct A {\n    #[serde(rename = \"it's\")]\n    a: u8,\n}\n",
        "struct A {\n    #[serde(rename = \"caf\u{e9}\")]\n    a: u8,\n}\n",
        "struct A {\n    #[serde(with = \"x\")]\n    a: u8,\n}\n",
        "struct A {\n    #[serde(default = \"f\")]\n    a: u8,\n}\n",
        "struct A {\n    #[serde(rename)]\n    a: u8,\n}\n",
        "struct A {\n    #[serde(rename = r\"a\")]\n    a: u8,\n}\n",
        "struct A {\n    #[serde(rename = \"a\",)]\n    a: u8,\n}\n",
        "struct A {\n    #[serde()]\n    a: u8,\n}\n",
        "struct A {\n    #[serde(rename = \"a\")] a: u8,\n}\n",
        "struct A {\n    a: u8, #[serde(rename = \"b\")]\n    b: u8,\n}\n",
        "struct A {\n    #[serde(rename = \"a\",\n        default)]\n    a: u8,\n}\n",
        "struct A {\n    #[serde(defaults)]\n    a: u8,\n}\n",
    ] {
        let lifted = lift(text);
        assert!(!lifted.lifts_any(), "{text}");
        assert!(matches!(lifted.text, std::borrow::Cow::Borrowed(_)), "{text}");
        let (index, syn, index_items, syn_items) = both(text);
        assert_eq!((index, index_items), (syn, syn_items), "{text}");
    }
}

#[test]
fn an_attribute_not_found_again_is_read_as_written() {
    // In a string that spans lines, in a block comment, in a macro's tokens: the text is parsed as it is, so the
    // string keeps its value.
    let text = concat!(
        "const S: &str = \"\n    #[serde(rename = \\u{22}a\\u{22})]\n\";\n",
        "const T: &str = r#\"\n    #[serde(rename = \"a\")]\n\"#;\n",
        "/*\n    #[serde(rename = \"a\")]\n*/\n",
        "m! {\n    #[serde(rename = \"a\")]\n    struct X;\n}\n",
        "struct A {\n    #[serde(rename = \"b\")]\n    b: u8,\n}\n",
    );
    assert_eq!(lift(text).attrs.len(), 4, "the raw string's, the comment's, the macro's and the field's");
    let (index, syn, index_items, syn_items) = both(text);
    assert_eq!((index, index_items), (syn, syn_items));
}

#[test]
fn a_syntax_error_is_the_one_of_the_text_as_written() {
    let text = "struct A {\n    #[serde(rename = \"a\")]\n    a: u8\n    b: u8,\n}\n";
    assert!(lift(text).lifts_any());
    let lifted = parse_items(text, None).map(|_| ()).expect_err("does not parse");
    let written = syn::parse_file(text).map(|_| ()).expect_err("does not parse");
    assert_eq!(lifted.to_string(), written.to_string());
    assert_eq!(lifted.span().start(), written.span().start());
}

#[test]
fn an_attribute_written_again_reads_as_the_first() {
    // The third attribute shares the first's tokens (the second's values are other), however it is spaced.
    let text = "pub struct S {\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub a: Option<u8>,\n    \
                #[serde(rename = \"bee\", skip_serializing_if = \"Option::is_none\")]\n    pub b: Option<u8>,\n    \
                #[serde(default,skip_serializing_if=\"Option::is_none\")]\n    pub c: Option<u8>,\n}\n";
    let lifted = lift(text);
    assert_eq!(lifted.attrs.len(), 3, "every attribute is plain");
    let mut read = syn::parse_file(&lifted.text).expect("parses lifted").items;
    assert!(lifted.restore(&mut read), "every attribute found again");
    let (index, syn, index_items, syn_items) = both(text);
    assert_eq!(view(&mut read), syn);
    assert_eq!(index, syn);
    assert_eq!(index_items, syn_items);
}
