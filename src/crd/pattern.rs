//! The `pattern` of `#[validate(regex(path = ..))]`, `#[garde(pattern(..))]` and `#[schemars(regex(pattern = ..))]`
//! when it names run-time data: schemars inserts `(expr).to_string()`, which for a `regex::Regex` is the text it
//! was built from. Read statically when that text is in the sources: a string literal or `&str` const, or a
//! static holding `Regex::new(<literal>)` (`.unwrap()`/`.expect(..)`) directly, in a `LazyLock`/`LazyCell`,
//! once_cell's `Lazy`, or `lazy_static!`. Anything else is for compiling, with the reason.

use syn::Expr;

use super::index::{CrateIndex, ItemKind, ModId};
use crate::source::constant;
use crate::source::lex::path_segs;

/// How deep consts naming consts are followed.
const MAX_DEPTH: usize = 8;

/// The text `(expr).to_string()` gives, written in `module`, or why only running the code can tell.
pub fn text(ix: &CrateIndex, expr: &Expr, module: ModId) -> Result<String, String> {
    value(ix, expr, module, 0)
}

fn value(ix: &CrateIndex, expr: &Expr, module: ModId, depth: usize) -> Result<String, String> {
    if depth > MAX_DEPTH {
        return Err("its definition is nested too deeply".into());
    }
    if let Some(inner) = constant::converted_string(expr) {
        return value(ix, inner, module, depth);
    }
    match expr {
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Ok(s.value()),
        Expr::Paren(p) => value(ix, &p.expr, module, depth),
        Expr::Group(g) => value(ix, &g.expr, module, depth),
        Expr::Reference(r) => value(ix, &r.expr, module, depth),
        Expr::Unary(syn::ExprUnary { op: syn::UnOp::Deref(_), expr, .. }) => value(ix, expr, module, depth),
        Expr::Path(p) if p.qself.is_none() => {
            let segs = path_segs(&p.path);
            let shown = segs.join("::");
            match ix.resolve(module, &segs, is_static_or_const) {
                super::index::Resolved::Item(id) => {
                    let item = &ix.items[id];
                    let init = match &item.kind {
                        ItemKind::Static(s) => &s.expr,
                        ItemKind::Const(c) => &c.expr,
                        _ => return Err(format!("`{shown}` is not a static or const")),
                    };
                    initializer(ix, init, item.module, depth + 1)
                        .map_err(|why| format!("`{shown}` is built at run time ({why})"))
                }
                _ => Err(format!("kubesmith finds no static or const `{shown}` in the crate")),
            }
        }
        Expr::Macro(m) => {
            Err(format!("the macro `{}!`", m.mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default()))
        }
        _ => Err(format!("`{}` is computed at run time", quote::quote!(#expr).to_string().replace(' ', ""))),
    }
}

fn is_static_or_const(k: &ItemKind) -> bool {
    matches!(k, ItemKind::Static(_) | ItemKind::Const(_))
}

/// The text of a static's or const's initializer: a string, `Regex::new(..)`, or either inside a lazy cell.
fn initializer(ix: &CrateIndex, init: &Expr, module: ModId, depth: usize) -> Result<String, String> {
    match init {
        Expr::Paren(p) => initializer(ix, &p.expr, module, depth),
        Expr::Group(g) => initializer(ix, &g.expr, module, depth),
        Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
            syn::Stmt::Expr(e, None) => initializer(ix, e, module, depth),
            _ => Err("a block of statements".into()),
        },
        // `.unwrap()` / `.expect("..")` of `Regex::new(..)`: the same text (or a panic kube-derive would share).
        Expr::MethodCall(m) if m.method == "unwrap" || m.method == "expect" => {
            initializer(ix, &m.receiver, module, depth)
        }
        Expr::Call(c) => {
            let Expr::Path(f) = &*c.func else {
                return Err("a call kubesmith does not know".into());
            };
            let segs = path_segs(&f.path);
            match segs.iter().rev().take(2).map(String::as_str).collect::<Vec<_>>().as_slice() {
                ["new", "Regex"] => match c.args.first() {
                    Some(arg) if c.args.len() == 1 => value(ix, arg, module, depth),
                    _ => Err("`Regex::new` without one argument".into()),
                },
                ["new", "LazyLock" | "LazyCell" | "Lazy"] => match c.args.first() {
                    Some(Expr::Closure(cl)) if cl.inputs.is_empty() => initializer(ix, &cl.body, module, depth),
                    _ => Err("a lazy cell not built from a closure".into()),
                },
                _ => Err(format!("a call of `{}`", segs.join("::"))),
            }
        }
        other => value(ix, other, module, depth),
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
static OTHER: LazyLock<Regex> = LazyLock::new(|| regex::RegexBuilder::new("x").build().unwrap());
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
    }

    #[test]
    fn regexes_built_at_run_time_say_why() {
        let why = eval(SRC, "*BUILT").unwrap_err();
        assert!(why.contains("`BUILT` is built at run time (the macro `format!`)"), "{why}");
        let why = eval(SRC, "OTHER").unwrap_err();
        assert!(why.contains("`OTHER` is built at run time (`regex::RegexBuilder::new(\"x\").build()`"), "{why}");
        let why = eval(SRC, "MISSING").unwrap_err();
        assert!(why.contains("no static or const `MISSING`"), "{why}");
    }
}
