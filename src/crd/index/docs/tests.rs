//! Lifted doc comments give the attributes syn gives: every attribute list of this repository's Rust files, and
//! the edge cases of runs, blank lines, CRLF, macros and syntax errors.

use super::{for_each_attrs, lift};
use crate::crd::attrs::doc_text;
use crate::source::lex::{blank_fn_bodies, raw_doc_comments};

/// What the index reads of each attribute list: the doc text, where the list starts, and the other attributes.
type View = Vec<(Option<String>, Option<(usize, usize)>, Vec<String>)>;

fn view(items: &mut [syn::Item]) -> View {
    let mut out = Vec::new();
    for_each_attrs(items, &mut |attrs| {
        let start = attrs.iter().map(|a| syn::spanned::Spanned::span(a).start()).min_by_key(|p| (p.line, p.column));
        let others = attrs.iter().filter(|a| !a.path().is_ident("doc")).map(|a| quote::quote!(#a).to_string());
        out.push((doc_text(attrs), start.map(|p| (p.line, p.column)), others.collect()));
    });
    out
}

/// The items and their view as read with the doc comments, and as read lifted (None when [`super::Lifted::restore`]
/// gives up).
fn both(text: &str) -> (View, Option<View>) {
    let blanked = blank_fn_bodies(text);
    let mut with: syn::File = syn::parse_str(&raw_doc_comments(&blanked)).expect("parses with its comments");
    let lifted = lift(&blanked);
    let mut without: syn::File = syn::parse_str(&lifted.text).expect("parses lifted");
    let restored = lifted.restore(&mut without.items);
    let stripped = |f: &syn::File| {
        let mut f = f.clone();
        for_each_attrs(&mut f.items, &mut |attrs| attrs.retain(|a| !a.path().is_ident("doc")));
        quote::quote!(#f).to_string()
    };
    if restored {
        assert_eq!(stripped(&with), stripped(&without), "the same items but their docs");
    }
    (view(&mut with.items), restored.then(|| view(&mut without.items)))
}

#[test]
fn lifted_docs_read_as_the_comments() {
    let text = concat!(
        "//! Crate docs, \"quoted\".\n",
        "/// A type.\n///\n///   indented, `code`, \\n not an escape, é, \"#\"##\n",
        "#[derive(Debug)]\n/// After an attribute.\n  \t/// And indented.\npub struct S {\n",
        "    /// The field.\r\n    /// Second line.\r\n    pub a: u8, /// after code\n",
        "    //// four slashes: a plain comment\n    /// c\n\n    /// after a blank line\n",
        "    #[serde(rename = \"b\")] /// on the same line as an attribute\n    pub(crate) b: String,\n",
        "    ///no space\n    /// \n    r#type: Option<String>,\n}\n",
        "/// Tuple.\npub struct T(/// first\n pub u8, /// second\n String);\n",
        "/// An enum.\nenum E {\n    /// A.\n    A,\n    /// B.\n    B { /// x\n x: u8 },\n    /// C.\n    C(/// c0\n u8),\n}\n",
        "/** block doc */\n/// line doc after it\nfn f() -> &'static str { \"/// not a comment\" }\n",
        "/* /// inside a block comment */\nconst R: &str = r#\"a \" /// b\"#;\nconst C: char = '\"';\n",
        "/// Impl.\nimpl S {\n    /// A method.\n    pub fn m(&self) {}\n    /// A const.\n    const K: u8 = 1;\n}\n",
        "/// Trait.\ntrait Tr {\n    /// Required.\n    fn r(&self);\n}\n",
        "/// A module.\nmod m {\n    //! Inner.\n    /// Nested.\n    pub struct N;\n}\n",
        "/// Alias.\ntype A = u8;\n/// Use.\nuse std::fmt;\n/// Static.\nstatic X: u8 = 1;\n",
        "/// Last\nfn g() {}\n",
    );
    let (with, without) = both(text);
    assert_eq!(without.as_ref(), Some(&with));
    let docs: Vec<&str> = with.iter().filter_map(|(d, ..)| d.as_deref()).collect();
    assert!(
        docs.contains(
            &"A type.\n\n  indented, `code`, \\n not an escape, é, \"#\"##\nAfter an attribute.\nAnd indented."
        ),
        "{docs:?}"
    );
    assert!(docs.contains(&"The field.\nSecond line."), "{docs:?}");
    assert!(docs.contains(&"after code\nc\nafter a blank line\non the same line as an attribute"), "{docs:?}");
    assert!(docs.contains(&"no space\n"), "{docs:?}");
}

#[test]
fn lines_and_earlier_columns_stay() {
    let text = "/// a\n///   b \"x\"#\npub struct S {\n    /// f\r\n    pub f: u8,\n}\n";
    let lifted = lift(text);
    assert_eq!(lifted.text, "#[doc]\n\npub struct S {\n    #[doc]\r\n    pub f: u8,\n}\n");
    let runs: Vec<_> = lifted.runs.iter().map(|(at, value)| (*at, value.as_deref().unwrap())).collect();
    assert_eq!(runs, [((1, 0), " a\n  b \"x\"#"), ((4, 4), " f")]);
}

#[test]
fn docs_in_a_macro_are_left_to_the_comments() {
    let text = "macro_rules! m { () => { /// doc\n struct S; } }\n/// kept\nstruct T;\n";
    let (_, without) = both(text);
    assert_eq!(without, None, "a doc comment in a macro's tokens is never put back");
    let lazy = super::super::parse_items(text, None).expect("parses");
    let syn::Item::Macro(m) = &lazy.0[0] else { panic!("a macro first") };
    assert!(m.mac.tokens.to_string().contains("doc = r\" doc\""), "{}", m.mac.tokens);
}

#[test]
fn a_syntax_error_is_the_one_read_with_the_comments() {
    let text = "struct S {\n    pub a: u8,\n    /// dangling\n}\n";
    let with = syn::parse_str::<syn::File>(&raw_doc_comments(text)).map(|_| ()).unwrap_err();
    let got = super::super::parse_items(text, None).map(|_| ()).unwrap_err();
    assert_eq!((got.to_string(), got.span().start()), (with.to_string(), with.span().start()));
}

#[test]
fn no_doc_comment_borrows_the_text() {
    for text in ["struct S;", "// +kubebuilder:object:root=true\nstruct S;", "const X: &str = \"///\";"] {
        let lifted = lift(text);
        assert!(matches!(lifted.text, std::borrow::Cow::Borrowed(_)) && !lifted.lifts_any(), "{text}");
    }
}

/// Every Rust file of this repository (kubesmith's own sources, its fixtures and tests: docs on fns, impls,
/// modules, macros) reads the same lifted as with its comments.
#[test]
fn this_repository_reads_the_same() {
    let (mut files, mut given_up) = (0, Vec::new());
    for (path, text) in crate::crd::index::tests::repository_rust_files() {
        if syn::parse_str::<syn::File>(&raw_doc_comments(&blank_fn_bodies(&text))).is_err() {
            continue;
        }
        files += 1;
        match both(&text) {
            (with, Some(without)) => assert_eq!(without, with, "{}", path.display()),
            (_, None) => given_up.push(path),
        }
    }
    assert!(files > 300, "{files} files");
    // Only files with doc comments in a macro's tokens (or a single-expression fn body) fall back.
    assert!(given_up.len() * 20 < files, "{} of {files} fell back: {given_up:?}", given_up.len());
}
