//! Spotting, from the text alone, the attributes that may make a kind through an attribute macro, so that a file
//! without one need not be parsed for its kinds.

use crate::source::lex::word_positions;

/// Whether an attribute of `text` may make a kind through an attribute macro ([`crate::crd::macro_kinds`]): a
/// `#[kube(..)]`, or one naming `crd` or a `group = ..` key. Only attributes count, outside `//` comments (RBAC
/// markers name `groups=`), so a controller's file is not parsed for its markers; such a file is parsed, not
/// prescanned. The caller asks again of the text with fn bodies (and `#[cfg(test)]` modules) blanked, which costs
/// more, only when this answers yes.
pub(super) fn names_api_group_or_crd(text: &str) -> bool {
    // One pass over the `#`s (memchr), looking only at each attribute's own few bytes: this runs on every file
    // `make manifests` reads, so no whole-text substring search.
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(offset) = text[from..].find('#') {
        let at = from + offset;
        from = at + 1;
        if bytes.get(at + 1) != Some(&b'[') {
            continue;
        }
        let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
        if bytes[line_start..at].windows(2).any(|w| w == b"//") {
            continue;
        }
        let Some(attr) = attribute_text(&text[at + 2..]) else {
            continue;
        };
        if attr.starts_with("kube(") || word_positions(attr, "crd").next().is_some() {
            return true;
        }
        let group_key = word_positions(attr, "group").any(|g| {
            let after = attr.as_bytes()[g + 5..].trim_ascii_start();
            after.starts_with(b"=") && !after.starts_with(b"==")
        });
        if group_key {
            return true;
        }
    }
    false
}

/// The text of an attribute after its `#[`, up to its closing `]` (brackets nested; at most 4 KiB).
fn attribute_text(rest: &str) -> Option<&str> {
    let mut depth = 0usize;
    for (i, b) in rest.bytes().enumerate().take(4096) {
        match b {
            b'[' => depth += 1,
            b']' if depth == 0 => return Some(&rest[..i]),
            b']' => depth -= 1,
            _ => {}
        }
    }
    None
}
