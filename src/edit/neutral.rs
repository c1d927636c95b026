//! Rust lines inserted before a marker where `rustfmt` keeps them: the place of a `mod` declaration in its sorted
//! group, and whether an insertion leaves a `rustfmt`-clean file clean (`formatted` then spares the `rustfmt` run).
//!
//! The rules are `rustfmt`'s (default style, edition 2024), kept conservative: anything they do not cover counts as
//! changing the layout, and the file is formatted as before.
//! - A run of consecutive `mod name;` items is sorted by name (bytes, `r#` dropped); attributes and doc comments
//!   join an item to the run, plain comments and other items end it.
//! - A run of consecutive `use` items is sorted too (by rules not repeated here): an inserted `use` must have no
//!   `use` beside it.
//! - An element `path::to::call(),` inserted before a marker comment inside a list stays: the comment keeps the list
//!   vertical.
//! - A line is at most 100 characters (a list element longer than that cannot be broken, and stays), without tabs
//!   or trailing spaces.

/// What `rustfmt` does with one inserted line, by its shape.
#[derive(Debug, PartialEq, Eq)]
enum Shape<'a> {
    /// `[pub[(..)]] mod name;`, with the name it is sorted by.
    Mod(&'a str),
    /// `[pub[(..)]] use path;` (no braces).
    Use,
    /// `path::to::call(),`, a list element.
    Element,
    Other,
}

const MAX_WIDTH: usize = 100;

fn shape(line: &str) -> Shape<'_> {
    let line = line.trim();
    let item = strip_visibility(line);
    if let Some(name) = item.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) {
        let bare = name.strip_prefix("r#").unwrap_or(name);
        if is_ident(bare) {
            return Shape::Mod(bare);
        }
    }
    if let Some(path) = item.strip_prefix("use ").and_then(|r| r.strip_suffix(';')) {
        let path = path.strip_suffix("::*").unwrap_or(path);
        if is_path(path) {
            return Shape::Use;
        }
    }
    if item.len() == line.len() && line.strip_suffix("(),").is_some_and(is_path) {
        return Shape::Element;
    }
    Shape::Other
}

fn strip_visibility(line: &str) -> &str {
    for vis in ["pub(crate) ", "pub(super) ", "pub "] {
        if let Some(rest) = line.strip_prefix(vis) {
            return rest;
        }
    }
    line
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `a::b::r#c`: identifiers (raw ones included) joined by `::`.
fn is_path(s: &str) -> bool {
    !s.is_empty() && s.split("::").all(|seg| is_ident(seg.strip_prefix("r#").unwrap_or(seg)))
}

/// Whether `line` attaches to the item below it (an outer attribute or a doc comment).
fn attaches_down(line: &str) -> bool {
    let line = line.trim_start();
    (line.starts_with("#[") || line.starts_with("///") || line.starts_with("/**")) && !line.starts_with("////")
}

/// Whether every line is a whole item that parses (`mod` and `use` declarations with valid identifiers), so that
/// inserting them at the top level of a file cannot change whether it parses.
pub fn whole_items(lines: &[String]) -> bool {
    lines.iter().all(|line| {
        let item = strip_visibility(line.trim());
        match shape(line) {
            Shape::Mod(_) => {
                let ident = item.trim_start_matches("mod ").trim_end_matches(';');
                syn::parse_str::<syn::Ident>(ident).is_ok()
            }
            Shape::Use => {
                let path = item.trim_start_matches("use ").trim_end_matches(';');
                let path = path.strip_suffix("::*").unwrap_or(path);
                path.split("::").all(|seg| syn::parse_str::<syn::Ident>(seg).is_ok() || is_path_keyword(seg))
            }
            _ => false,
        }
    })
}

/// The keywords a path may start with (`crate::`, `self::`, `super::`).
fn is_path_keyword(seg: &str) -> bool {
    matches!(seg, "crate" | "self" | "super")
}

/// Whether byte `at` of `text` is at the top level: outside every brace, bracket and parenthesis, and outside
/// comments and literals.
pub fn at_top_level(text: &str, at: usize) -> bool {
    let b = text.as_bytes();
    let mut depth = 0i32;
    let mut i = 0;
    while i < at.min(b.len()) {
        if let Some(end) = crate::source::lex::skip_literal(b, i) {
            if end > at {
                return false;
            }
            i = end;
            continue;
        }
        match b[i] {
            b'{' | b'[' | b'(' => depth += 1,
            b'}' | b']' | b')' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    depth == 0
}

/// Where to insert `lines` before the marker at `marker` (an index into `all`, the file's lines without their
/// breaks): a single `mod` declaration goes to its sorted place in the run of `mod` declarations just above the
/// marker; anything else just before the marker.
pub fn position(all: &[&str], marker: usize, lines: &[String]) -> usize {
    let [line] = lines else { return marker };
    let Shape::Mod(name) = shape(line) else { return marker };
    let mut start = marker;
    while start > 0 && matches!(shape(all[start - 1]), Shape::Mod(_)) {
        start -= 1;
    }
    (start..marker).find(|&i| matches!(shape(all[i]), Shape::Mod(other) if other > name)).unwrap_or(marker)
}

/// Whether the file `all` (lines without their breaks), with `lines` inserted at `at` with `indent` and a marker
/// comment line at `marker` (≥ `at`), is as `rustfmt` clean as it was: every inserted line sits where `rustfmt`
/// keeps it, as it would write it.
pub fn keeps_clean(all: &[&str], at: usize, marker: usize, lines: &[String], indent: &str) -> bool {
    if !all.get(marker).is_some_and(|m| m.trim_start().starts_with("//")) {
        return false;
    }
    let inserted: Vec<String> = lines.iter().map(|l| format!("{indent}{l}")).collect();
    let result: Vec<&str> =
        all[..at].iter().copied().chain(inserted.iter().map(String::as_str)).chain(all[at..].iter().copied()).collect();
    (at..at + inserted.len()).all(|i| {
        let line = result[i];
        let above = i.checked_sub(1).map(|k| result[k]);
        let below = result.get(i + 1).copied();
        let kind = shape(line);
        // A path call cannot be broken: rustfmt leaves a longer one as it is.
        let too_wide = line.chars().count() > MAX_WIDTH && kind != Shape::Element;
        if line.trim().is_empty() || line.contains('\t') || line.ends_with(char::is_whitespace) || too_wide {
            return false;
        }
        match kind {
            Shape::Mod(_) => sorted_mod_run(&result, i),
            Shape::Use => ![above, below].iter().flatten().any(|l| shape(l) == Shape::Use),
            Shape::Element => {
                above.is_some_and(|l| l.trim_end().ends_with([',', '[', '(', '{']))
                    && below.is_some_and(|l| matches!(shape(l), Shape::Element) || l.trim_start().starts_with("//"))
            }
            Shape::Other => false,
        }
    })
}

/// Whether the run of `mod` declarations holding line `i` is sorted and bounded by lines that do not join it.
fn sorted_mod_run(lines: &[&str], i: usize) -> bool {
    let (mut start, mut end) = (i, i + 1);
    while start > 0 && matches!(shape(lines[start - 1]), Shape::Mod(_)) {
        start -= 1;
    }
    while end < lines.len() && matches!(shape(lines[end]), Shape::Mod(_)) {
        end += 1;
    }
    let names: Vec<&str> =
        lines[start..end].iter().filter_map(|l| if let Shape::Mod(n) = shape(l) { Some(n) } else { None }).collect();
    let above_joins = start > 0 && attaches_down(lines[start - 1]);
    let below_joins = lines.get(end).is_some_and(|l| attaches_down(l));
    names.windows(2).all(|w| w[0] < w[1]) && !above_joins && !below_joins
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<&str> {
        text.lines().collect()
    }

    #[test]
    fn shapes() {
        assert_eq!(shape("pub mod memcached;"), Shape::Mod("memcached"));
        assert_eq!(shape("    pub(crate) mod r#match;"), Shape::Mod("match"));
        assert_eq!(shape("mod a_b;"), Shape::Mod("a_b"));
        assert_eq!(shape("pub use memcached::*;"), Shape::Use);
        assert_eq!(shape("use crate::a::B;"), Shape::Use);
        assert_eq!(shape("use crate::{a, b};"), Shape::Other);
        assert_eq!(shape("        my_op::controller::r#match::registration(),"), Shape::Element);
        assert_eq!(shape("pub mod tests {"), Shape::Other);
        assert_eq!(shape("f(x),"), Shape::Other);
        assert_eq!(shape("pub f(),"), Shape::Other);
    }

    #[test]
    fn a_mod_goes_to_its_sorted_place_in_the_run_above_the_marker() {
        let file = lines("//! Controllers.\npub mod cluster;\npub mod r#match;\npub mod memcached;\n// +marker\n");
        let at = |name: &str| position(&file, 4, &[format!("pub mod {name};")]);
        assert_eq!(at("aardvark"), 1);
        assert_eq!(at("frigate"), 2);
        assert_eq!(at("mb"), 3, "after match, before memcached (bytes, r# dropped)");
        assert_eq!(at("zebra"), 4);
        assert_eq!(at("Zebra"), 1, "upper case sorts first");
        assert_eq!(position(&file, 4, &["mod a;".into(), "pub use a::*;".into()]), 4, "pairs go before the marker");
    }

    #[test]
    fn whole_items_at_the_top_level_cannot_break_the_parse() {
        assert!(whole_items(&["pub mod r#type;".into(), "pub use r#type::*;".into()]));
        assert!(whole_items(&["pub(crate) use crate::api::v1::Kind;".into()]));
        assert!(!whole_items(&["pub mod type;".into()]), "a keyword needs r#");
        assert!(!whole_items(&["mod r#self;".into()]));
        assert!(!whole_items(&["op::registration(),".into()]));
        let text = "//! a\nmod a;\nfn f() {\n    // +m\n}\nconst S: &str = \"{\";\n/* { */\n// +m\n";
        let line = |n: usize| text.split_inclusive('\n').take(n).map(str::len).sum::<usize>();
        assert!(at_top_level(text, line(1)));
        assert!(!at_top_level(text, line(3)), "inside the fn body");
        assert!(at_top_level(text, line(7)), "braces in strings and comments do not count");
        assert!(!at_top_level("/* open\n// +m\n*/\n", 8), "inside a block comment");
    }

    #[test]
    fn insertions_that_keep_a_file_clean() {
        let file = lines("//! Controllers.\npub mod cluster;\npub mod memcached;\n// +marker\n\nfn f() {}\n");
        let keeps = |at: usize, line: &str| keeps_clean(&file, at, 3, &[line.to_string()], "");
        assert!(keeps(2, "pub mod frigate;"));
        assert!(keeps(3, "pub mod zebra;"));
        assert!(!keeps(3, "pub mod frigate;"), "out of order");
        assert!(!keeps(3, &format!("pub mod memcached_{};", "x".repeat(MAX_WIDTH))), "past the width");
        assert!(!keeps(3, "pub mod  zebra;"));
        assert!(!keeps(3, "fn g() {}"));
        // An attribute above the run would join its item to it.
        let attributed = lines("#[cfg(test)]\nmod a;\n// +marker\n");
        assert!(!keeps_clean(&attributed, 2, 2, &["mod b;".into()], ""));
        // A kind's module and its re-export, after another pair.
        let version = lines("//! v1.\nmod memcached;\npub use memcached::*;\n// +marker\n");
        assert!(keeps_clean(&version, 3, 3, &["mod busybox;".into(), "pub use busybox::*;".into()], ""));
        let uses = lines("use a::B;\n// +marker\n");
        assert!(!keeps_clean(&uses, 1, 1, &["use c::D;".into()], ""), "use runs are sorted by rustfmt");
        // A list element before a marker comment inside the list.
        let main = lines("    let c = vec![\n        op::controller::a::registration(),\n        // +marker\n    ];\n");
        assert!(keeps_clean(&main, 2, 2, &["op::controller::b::registration(),".into()], "        "));
        assert!(!keeps_clean(&main, 2, 2, &["op::controller::b::registration( ),".into()], "        "));
        let long = format!("op::controller::{}::registration(),", "b".repeat(MAX_WIDTH));
        assert!(keeps_clean(&main, 2, 2, &[long], "        "), "rustfmt cannot break a path");
        // The marker must be a comment.
        assert!(!keeps_clean(&lines("mod a;\nfn marker() {}\n"), 1, 1, &["mod b;".into()], ""));
    }
}
