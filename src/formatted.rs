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

/// Where a text came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Rendered from a Rust template; `clean` when every value was a short name.
    Rendered { clean: bool },
    /// An edit of this text that keeps it as clean as it was.
    EditOf(String),
}

fn known() -> &'static Mutex<HashMap<String, Origin>> {
    static KNOWN: OnceLock<Mutex<HashMap<String, Origin>>> = OnceLock::new();
    KNOWN.get_or_init(Mutex::default)
}

/// Records `text` as a rendering of a Rust template, `clean` or not.
pub fn rendered(text: &str, clean: bool) {
    known().lock().expect("not poisoned").entry(text.to_string()).or_insert(Origin::Rendered { clean });
}

/// Records `edited` as an edit of `original` that keeps it as clean as it was.
pub fn edited(original: &str, edited: &str) {
    if original != edited {
        known()
            .lock()
            .expect("not poisoned")
            .entry(edited.to_string())
            .or_insert_with(|| Origin::EditOf(original.into()));
    }
}

/// How `text` is known clean, if it is.
pub fn origin(text: &str) -> Option<Origin> {
    known().lock().expect("not poisoned").get(text).cloned()
}

/// Whether `text` is known clean. A new file's text must be a clean rendering, or edits of one that keep it clean;
/// an existing file's (`new_file` false) may also be edits of the file as it was, which is the user's text: it stays
/// as clean as the user kept it.
pub fn is_clean(text: &str, new_file: bool) -> bool {
    match origin(&root(text)) {
        Some(Origin::Rendered { clean }) => clean,
        Some(Origin::EditOf(_)) => false,
        None => !new_file && origin(text).is_some(),
    }
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

/// Fields the templates hold only where a longer value cannot change the layout, with their own bound: the
/// controller's name is the string of `pub const CONTROLLER_NAME: &str = "…";`, one line up to 62 characters; the
/// sample's file name the string of `const SAMPLE: &str = "…";` and the controller's module path the path of a
/// `use … as controller;`, which `rustfmt` cannot break (`tests/envtest`).
const FIELD_BOUNDS: &[(&str, usize)] = &[("controller_name", 60), ("sample_file", 60), ("controller_module_path", 100)];

/// Whether the value of `field` substituted into a template keeps the rendering clean: one line of at most
/// [`NAME_BOUND`] characters (or the field's own bound).
pub fn is_short_name(field: &str, value: &str) -> bool {
    let bound = FIELD_BOUNDS.iter().find(|(f, _)| *f == field).map_or(NAME_BOUND, |(_, b)| *b);
    !value.contains(['\n', '\r']) && value.chars().count() <= bound
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_lead_back_to_their_root() {
        rendered("fn rendered_root() {}\n", true);
        edited("fn rendered_root() {}\n", "fn rendered_root() {}\nmod a;\n");
        edited("fn rendered_root() {}\nmod a;\n", "fn rendered_root() {}\nmod a;\nmod b;\n");
        assert_eq!(root("fn rendered_root() {}\nmod a;\nmod b;\n"), "fn rendered_root() {}\n");
        assert_eq!(origin("fn rendered_root() {}\n"), Some(Origin::Rendered { clean: true }));
        assert!(is_clean("fn rendered_root() {}\nmod a;\n", true));
        assert!(!is_clean("fn never_seen() {}\n", false));
        assert_eq!(root("fn never_seen() {}\n"), "fn never_seen() {}\n");
        // A rendering with a long name is not clean, nor are edits of it.
        rendered("fn long_root() {}\n", false);
        edited("fn long_root() {}\n", "fn long_root() {}\nmod a;\n");
        assert!(!is_clean("fn long_root() {}\nmod a;\n", false));
        // Edits of a text of unknown origin: clean as it was for a file that exists (the user's), never for a new one.
        edited("fn users() {}\n", "fn users() {}\nmod a;\n");
        assert!(is_clean("fn users() {}\nmod a;\n", false));
        assert!(!is_clean("fn users() {}\nmod a;\n", true));
        assert!(!is_clean("fn users() {}\n", false), "the user's text itself is not known clean");
        // An edit that changes nothing records nothing.
        edited("fn same() {}\n", "fn same() {}\n");
        assert_eq!(origin("fn same() {}\n"), None);
    }

    #[test]
    fn short_names_are_one_line_within_the_bound() {
        assert!(is_short_name("project", "memcached-operator"));
        assert!(is_short_name("kind", &"a".repeat(NAME_BOUND)));
        assert!(!is_short_name("kind", &"a".repeat(NAME_BOUND + 1)));
        assert!(is_short_name("controller_name", &"a".repeat(60)));
        assert!(!is_short_name("controller_name", &"a".repeat(61)));
        assert!(!is_short_name("kind", "two\nlines"));
    }
}
