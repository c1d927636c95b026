//! Rust texts kubesmith knows are `rustfmt` clean under `rustfmt`'s default style, which `rustfmt::format_plan`
//! writes as they are instead of starting a `rustfmt` process (~30 ms, more than the rest of `init`).
//!
//! Two kinds of texts are known clean:
//!
//! - **Rendered templates.** A Rust template is written in the layout `rustfmt` gives, and its names sit where their
//!   length cannot change that layout (a test renders every scaffold with names from 1 to [`NAME_BOUND`] characters
//!   and checks). A rendering counts as clean when every value substituted into it is one line of at most
//!   [`NAME_BOUND`] characters; a longer name may push a line past `rustfmt`'s widths, so that file is formatted.
//! - **Edits that keep a file as clean as it was** (`edit::insert_lines_before_marker`): lines `rustfmt` would leave
//!   where they are, inserted where it would put them. The result is clean when the file was; a file of the user's
//!   that was not stays as the user wrote it, but for the inserted lines.
//!
//! With `KUBESMITH_AUDIT_FORMATTING` set (the test suites set it), `format_plan` formats these texts too and fails
//! when `rustfmt` would change one: every scaffolding test is then a check of this module's claims.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// The longest value (in characters) a rendered template may hold and still count as clean.
pub const NAME_BOUND: usize = 40;

/// The environment variable that makes `rustfmt::format_plan` check every text this module calls clean.
pub const AUDIT_VAR: &str = "KUBESMITH_AUDIT_FORMATTING";

/// How a text came to be known clean.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Rendered from a template.
    Rendered,
    /// An edit of this text (clean when this text is).
    EditOf(String),
}

fn known() -> &'static Mutex<HashMap<String, Origin>> {
    static KNOWN: OnceLock<Mutex<HashMap<String, Origin>>> = OnceLock::new();
    KNOWN.get_or_init(Mutex::default)
}

/// Records `text` as a template rendering that is clean.
pub fn rendered(text: &str) {
    known().lock().expect("not poisoned").entry(text.to_string()).or_insert(Origin::Rendered);
}

/// Records `edited` as an edit of `original` that keeps it as clean as it was.
pub fn edited(original: &str, edited: &str) {
    known().lock().expect("not poisoned").entry(edited.to_string()).or_insert_with(|| Origin::EditOf(original.into()));
}

/// How `text` is known clean, if it is.
pub fn origin(text: &str) -> Option<Origin> {
    known().lock().expect("not poisoned").get(text).cloned()
}

/// Whether `text` is known clean: a clean rendering, or an edit that keeps a text as clean as it was.
pub fn is_clean(text: &str) -> bool {
    origin(text).is_some()
}

/// The text an edit chain starts from: `text` itself when it is no known edit.
pub fn root(text: &str) -> String {
    let mut current = text.to_string();
    // An edit never returns its own input as a new text, so the chain ends; the bound guards against a loop anyway.
    for _ in 0..64 {
        match origin(&current) {
            Some(Origin::EditOf(original)) => current = original,
            _ => break,
        }
    }
    current
}

/// Whether the audit is on.
pub fn auditing() -> bool {
    std::env::var_os(AUDIT_VAR).is_some_and(|v| !v.is_empty())
}

/// Whether a value substituted into a template keeps the rendering clean: one line of at most [`NAME_BOUND`]
/// characters.
pub fn is_short_name(value: &str) -> bool {
    !value.contains(['\n', '\r']) && value.chars().count() <= NAME_BOUND
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_lead_back_to_their_root() {
        rendered("fn rendered_root() {}\n");
        edited("fn rendered_root() {}\n", "fn rendered_root() {}\nmod a;\n");
        edited("fn rendered_root() {}\nmod a;\n", "fn rendered_root() {}\nmod a;\nmod b;\n");
        assert_eq!(root("fn rendered_root() {}\nmod a;\nmod b;\n"), "fn rendered_root() {}\n");
        assert_eq!(origin("fn rendered_root() {}\n"), Some(Origin::Rendered));
        assert!(is_clean("fn rendered_root() {}\nmod a;\n"));
        assert!(!is_clean("fn never_seen() {}\n"));
        assert_eq!(root("fn never_seen() {}\n"), "fn never_seen() {}\n");
    }

    #[test]
    fn short_names_are_one_line_within_the_bound() {
        assert!(is_short_name("memcached-operator"));
        assert!(is_short_name(&"a".repeat(NAME_BOUND)));
        assert!(!is_short_name(&"a".repeat(NAME_BOUND + 1)));
        assert!(!is_short_name("two\nlines"));
    }
}
