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
    constant::string(&Reader { ix, module, depth: 0 }, expr)
}

/// The string evaluator's lookups in the crate index, from one module.
struct Reader<'a> {
    ix: &'a CrateIndex,
    module: ModId,
    /// How many consts and statics were followed to get here.
    depth: usize,
}

impl constant::StringReader for Reader<'_> {
    fn path(&self, p: &syn::Path) -> Result<String, String> {
        if self.depth > MAX_DEPTH {
            return Err("its definition is nested too deeply".into());
        }
        let segs = path_segs(p);
        let shown = segs.join("::");
        match self.ix.resolve(self.module, &segs, ItemKind::is_constant) {
            super::index::Resolved::Item(id) => {
                let item = &self.ix.items[id];
                let init = match &item.kind {
                    ItemKind::Static(s) => &s.expr,
                    ItemKind::Const(c) => &c.expr,
                    _ => return Err(format!("`{shown}` is not a static or const")),
                };
                let there = Reader { ix: self.ix, module: item.module, depth: self.depth + 1 };
                there.initializer(init).map_err(|why| format!("`{shown}` is built at run time ({why})"))
            }
            _ => Err(format!("kubesmith finds no static or const `{shown}` in the crate")),
        }
    }

    fn other(&self, e: &Expr) -> Result<String, String> {
        match e {
            Expr::Macro(m) => Err(format!(
                "the macro `{}!`",
                m.mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default()
            )),
            _ => Err(format!("`{}` is computed at run time", quote::quote!(#e).to_string().replace(' ', ""))),
        }
    }
}

impl Reader<'_> {
    /// The text of a static's or const's initializer: a string, `Regex::new(..)`, or either inside a lazy cell.
    fn initializer(&self, init: &Expr) -> Result<String, String> {
        match init {
            Expr::Paren(p) => self.initializer(&p.expr),
            Expr::Group(g) => self.initializer(&g.expr),
            Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                syn::Stmt::Expr(e, None) => self.initializer(e),
                _ => Err("a block of statements".into()),
            },
            // `.unwrap()` / `.expect("..")` of `Regex::new(..)`: the same text (or a panic kube-derive would share).
            Expr::MethodCall(m) if m.method == "unwrap" || m.method == "expect" => self.initializer(&m.receiver),
            Expr::Call(c) => {
                let Expr::Path(f) = &*c.func else {
                    return Err("a call kubesmith does not know".into());
                };
                let segs = path_segs(&f.path);
                match segs.iter().rev().take(2).map(String::as_str).collect::<Vec<_>>().as_slice() {
                    ["new", "Regex"] => match c.args.first() {
                        Some(arg) if c.args.len() == 1 => constant::string(self, arg),
                        _ => Err("`Regex::new` without one argument".into()),
                    },
                    ["new", "LazyLock" | "LazyCell" | "Lazy"] => match c.args.first() {
                        Some(Expr::Closure(cl)) if cl.inputs.is_empty() => self.initializer(&cl.body),
                        _ => Err("a lazy cell not built from a closure".into()),
                    },
                    _ => Err(format!("a call of `{}`", segs.join("::"))),
                }
            }
            other => constant::string(self, other),
        }
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
    }

    #[test]
    fn regexes_built_at_run_time_say_why() {
        let why = eval(SRC, "*BUILT").unwrap_err();
        assert!(why.contains("`BUILT` is built at run time (the macro `format!`)"), "{why}");
        let why = eval(SRC, "OTHER").unwrap_err();
        assert!(why.contains("`OTHER` is built at run time (`regex::RegexBuilder::new(\"x\").build()`"), "{why}");
        let why = eval(SRC, "MISSING").unwrap_err();
        assert!(why.contains("no static or const `MISSING`"), "{why}");
        let why = eval(SRC, "CHANGING").unwrap_err();
        assert!(why.contains("no static or const `CHANGING`"), "a `static mut` may change at run time: {why}");
    }
}
