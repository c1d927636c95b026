//! The interpreter over RBAC inference's program (its tests over the CRD index are `crd::custom`'s): string code,
//! the calls that keep a string, crate consts and fns, and what a caller's fn body adds ([`Outer`]).

use std::path::Path;

use super::*;
use crate::source::{Crate, ModKey, Program};

const LIB: &str = "pub const NAME: &str = \"hammer\";\n\
    pub static PLURAL: &str = \"hammers\";\n\
    pub fn named() -> &'static str { NAME }\n\
    pub fn versioned(n: u8) -> String { format!(\"v{n}\") }\n\
    pub struct Vise;\n\
    impl Vise { pub const GRIP: &'static str = \"grip\"; pub fn kind() -> &'static str { Self::GRIP } }\n";

fn program() -> Program {
    let read = |p: &Path| match p.to_str() {
        Some("lib.rs") => Ok(LIB.to_string()),
        _ => Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
    };
    Program::new(vec![Crate::load("ops", Path::new("lib.rs"), &read).unwrap()])
}

/// The string `text`, written in the crate root, gives to an evaluator of string code (or of any value).
fn string(prog: &Program, text: &str, strings: bool, outer: Option<&dyn Outer>) -> Result<String, String> {
    let e: Expr = syn::parse_str(text).unwrap();
    let site = Site { module: ModKey::default(), self_item: None, self_ty: None, before: &[], bound: &[] };
    let mut ev = Evaluator::values(prog);
    if strings {
        ev = ev.strings();
    }
    if let Some(outer) = outer {
        ev = ev.with_outer(outer);
    }
    ev.string_value(&e, site)
}

#[test]
fn string_code_reads_literals_consts_fns_and_the_calls_that_keep_a_string() {
    let prog = program();
    for (text, want) in [
        ("\"x\".to_string()", Ok("x")),
        ("NAME.to_string()", Ok("hammer")),
        ("Cow::Borrowed(&*NAME).into()", Ok("hammer")),
        ("Quantity::from(PLURAL)", Ok("hammers")),
        ("named().to_owned()", Ok("hammer")),
        ("versioned(2)", Ok("v2")),
        ("format!(\"{}-{}\", Vise::kind(), 1)", Ok("grip-1")),
        ("{ let v = Vise::GRIP; v }", Ok("grip")),
        ("MISSING", Err("`MISSING` is not a local, const, static or associated const of this crate")),
        ("std::env::var(NAME)", Err("a call of `std::env::var`, which is not a fn of this crate")),
    ] {
        assert_eq!(string(&prog, text, true, None).as_deref().map_err(String::as_str), want, "{text}");
    }
    // Outside string code `.to_string()` of a const may be JSON text (a `serde_json::Value`'s): not read.
    assert!(string(&prog, "NAME.to_string()", false, None).is_err());
    assert_eq!(string(&prog, "\"x\".to_string()", false, None).as_deref(), Ok("x"));
}

/// A fn body's bindings and a value only its reader knows, as `crd::storage` gives them: `stored` is bound to
/// `NAME`, `arg` is a parameter, `generated()` a kind's version.
struct Body {
    stored: Expr,
}

impl Outer for Body {
    fn local(&self, p: &syn::Path) -> Result<Option<&Expr>, String> {
        match p.get_ident().map(ToString::to_string).as_deref() {
            Some("stored") => Ok(Some(&self.stored)),
            Some("arg") => Err("`arg` is a parameter".into()),
            _ => Ok(None),
        }
    }

    fn uses(&self) -> &[UseEntry] {
        &[]
    }

    fn known(&self, e: &Expr) -> Option<Result<String, String>> {
        matches!(e, Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.path.is_ident("generated")))
            .then(|| Ok("v1beta1".to_string()))
    }
}

#[test]
fn the_code_an_evaluation_starts_in_sees_its_callers_bindings_and_known_values() {
    let prog = program();
    let body = Body { stored: syn::parse_str("NAME").unwrap() };
    for (text, want) in [
        ("&stored", Ok("hammer")),
        ("stored.as_str()", Ok("hammer")),
        ("format!(\"{}/{}\", stored, generated())", Ok("hammer/v1beta1")),
        ("arg", Err("`arg` is a parameter")),
        ("NAME", Ok("hammer")),
    ] {
        assert_eq!(string(&prog, text, true, Some(&body)).as_deref().map_err(String::as_str), want, "{text}");
    }
    // Without the caller's body, its bindings are unknown names.
    assert!(string(&prog, "stored", true, None).is_err());
}
