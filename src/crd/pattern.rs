//! The `pattern` of `#[validate(regex(path = ..))]`, `#[garde(pattern(..))]` and `#[schemars(regex(pattern = ..))]`
//! when it names run-time data: schemars inserts `(expr).to_string()`, which for a `regex::Regex` is the text it
//! was built from. Read statically by the one interpreter of constant code ([`crate::source::eval`]), for which a
//! `Regex::new(text)` is its text: a string literal, a `&str` const, a static holding `Regex::new(..)`
//! (`.unwrap()`/`.expect(..)`) directly, in a `LazyLock`/`LazyCell`, once_cell's `Lazy`, or `lazy_static!`, with
//! the text built the ways the interpreter reads (`format!`, consts, calls of crate fns). Anything else is for
//! compiling, with the reason.

use serde_json::Value;
use syn::Expr;

use super::index::{CrateIndex, ModId};
use crate::source::eval::names::{self, Scope};
use crate::source::eval::{Evaluator, Site};
use crate::source::lex::path_segs;

/// The text `(expr).to_string()` gives, written in `module`, or why only running the code can tell.
pub fn text(ix: &CrateIndex, expr: &Expr, module: ModId) -> Result<String, String> {
    let site = Site { module, self_item: None, self_ty: None, before: &[], bound: &[] };
    let why = match Evaluator::values(ix).value(expr, site) {
        Ok(Value::String(text)) => return Ok(text),
        Ok(other) => format!("it is {other}, not a string"),
        Err(e) => e.reason(),
    };
    // A static or const the pattern names: the reason is its initializer's.
    Err(match named(expr) {
        Some(segs)
            if names::constant(ix, Scope { module, self_item: None, self_ty: None, uses: &[] }, &segs).is_some() =>
        {
            format!("`{}` is built at run time ({why})", segs.join("::"))
        }
        _ => why,
    })
}

/// The path `expr` names, through `*`, `&` and parentheses.
fn named(expr: &Expr) -> Option<Vec<String>> {
    match expr {
        Expr::Unary(syn::ExprUnary { op: syn::UnOp::Deref(_), expr, .. })
        | Expr::Reference(syn::ExprReference { expr, .. })
        | Expr::Paren(syn::ExprParen { expr, .. })
        | Expr::Group(syn::ExprGroup { expr, .. }) => named(expr),
        Expr::Path(p) if p.qself.is_none() => Some(path_segs(&p.path)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crd::index::SourceSet;

    fn eval(src: &str, expr: &str) -> Result<String, String> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("lib.rs"), src).unwrap();
        let sources = SourceSet::new(dir.path());
        let mut parse = std::collections::BTreeSet::new();
        loop {
            let ix = CrateIndex::load_with(&sources, &parse).unwrap();
            let out = text(&ix, &syn::parse_str(expr).unwrap(), 0);
            let touched = ix.take_touched();
            if touched.is_empty() {
                return out;
            }
            parse.extend(touched);
        }
    }

    const SRC: &str = r#"
use regex::Regex;
use std::sync::LazyLock;
const DIGITS: &str = r"\d+";
static SEMVER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^v\d+$").unwrap());
static NAMED: LazyLock<Regex> = LazyLock::new(|| { Regex::new(DIGITS).expect("valid") });
lazy_static::lazy_static! {
    static ref LOWER: Regex = Regex::new("^[a-z]+$").unwrap();
    pub static ref UPPER: regex::Regex = regex::Regex::new("^[A-Z]+$").unwrap();
}
static TAG: once_cell::sync::Lazy<Regex> = once_cell::sync::Lazy::new(|| Regex::new("^t$").unwrap());
static BUILT: LazyLock<Regex> = LazyLock::new(|| Regex::new(&format!("^{DIGITS}$")).unwrap());
static FROM_ENV: LazyLock<Regex> = LazyLock::new(|| Regex::new(&std::env::var("RE").unwrap()).unwrap());
fn port() -> &'static str { r"\d{1,5}" }
static BY_FN: LazyLock<Regex> = LazyLock::new(|| Regex::new(&format!("^{}$", port())).unwrap());
static OTHER: LazyLock<Regex> = LazyLock::new(|| regex::RegexBuilder::new("x").build().unwrap());
static mut CHANGING: &str = "^m$";
pub mod inner { pub static DEEP: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| regex::Regex::new("^d$").unwrap()); }
"#;

    #[test]
    fn regexes_whose_text_is_in_the_sources_are_read() {
        assert_eq!(eval(SRC, "*SEMVER").unwrap(), r"^v\d+$");
        assert_eq!(eval(SRC, "SEMVER").unwrap(), r"^v\d+$");
        assert_eq!(eval(SRC, "NAMED").unwrap(), r"\d+", "through a const and a block");
        assert_eq!(eval(SRC, "*LOWER").unwrap(), "^[a-z]+$");
        assert_eq!(eval(SRC, "UPPER").unwrap(), "^[A-Z]+$");
        assert_eq!(eval(SRC, "TAG").unwrap(), "^t$");
        assert_eq!(eval(SRC, "&*inner::DEEP").unwrap(), "^d$");
        assert_eq!(eval(SRC, "DIGITS").unwrap(), r"\d+");
        assert_eq!(eval(SRC, "*BUILT").unwrap(), r"^\d+$", "format! of a const");
        assert_eq!(eval(SRC, "BY_FN").unwrap(), r"^\d{1,5}$", "format! of a crate fn's value");
    }

    #[test]
    fn regexes_built_at_run_time_say_why() {
        let why = eval(SRC, "OTHER").unwrap_err();
        assert!(
            why.contains("`OTHER` is built at run time (a call of `regex::RegexBuilder::new`, which is not a fn of"),
            "{why}"
        );
        let why = eval(SRC, "*FROM_ENV").unwrap_err();
        assert!(why.contains("`FROM_ENV` is built at run time (a call of `std::env::var`"), "{why}");
        let why = eval(SRC, "MISSING").unwrap_err();
        assert!(why.contains("`MISSING` is not a local, const, static or associated const"), "{why}");
        let why = eval(SRC, "CHANGING").unwrap_err();
        assert!(
            why.contains("`CHANGING` is not a local, const, static"),
            "a `static mut` may change at run time: {why}"
        );
    }
}
