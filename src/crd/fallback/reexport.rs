//! The re-exports the mirror adds to its copies of module files, so the crate root can name a kind private modules
//! hide ([`crate::crd::Reexport`]): text inserted at the end of a file, or before the closing brace of an inline
//! module inside it.

use anyhow::{Context, Result, bail};

/// `text` with `insert` placed at the end of the inline module `inline` (outermost first), or of the file when
/// `inline` is empty.
pub fn insert_into_module(text: &str, inline: &[String], insert: &str) -> Result<String> {
    let at = if inline.is_empty() {
        text.len()
    } else {
        let file = syn::parse_file(text).context("the module's file does not parse")?;
        let mut items = &file.items;
        let mut close = None;
        for name in inline {
            let found = items.iter().find_map(|i| match i {
                syn::Item::Mod(m) if crate::source::syntax::unraw(&m.ident) == *name => {
                    m.content.as_ref().map(|(brace, items)| (brace, items))
                }
                _ => None,
            });
            let Some((brace, inner)) = found else { bail!("no inline module {name} in the file") };
            close = Some(brace.span.close().start());
            items = inner;
        }
        let close = close.expect("inline is not empty");
        offset(text, close.line, close.column).context("the module's closing brace is outside its file")?
    };
    let mut out = String::with_capacity(text.len() + insert.len() + 2);
    out.push_str(&text[..at]);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(insert);
    out.push_str(&text[at..]);
    Ok(out)
}

/// The byte offset of a 1-based line and a 0-based column counted in characters.
pub(super) fn offset(text: &str, line: usize, column: usize) -> Option<usize> {
    let mut start = 0;
    for _ in 1..line {
        start += text[start..].find('\n')? + 1;
    }
    let rest = &text[start..];
    Some(start + rest.char_indices().nth(column).map(|(i, _)| i).unwrap_or(rest.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_goes_at_the_end_of_the_file_or_inside_the_inline_module() {
        let file = "mod a {\n    mod b {\n        pub struct K;\n    }\n}\nfn f() {}\n";
        let out = insert_into_module(file, &[], "pub(crate) use a::K;\n").unwrap();
        assert_eq!(out, format!("{file}pub(crate) use a::K;\n"));
        let out = insert_into_module(file, &["a".into()], "pub(crate) use self::b::K as X;\n").unwrap();
        assert!(out.contains("    }\npub(crate) use self::b::K as X;\n}\nfn f() {}"), "{out}");
        syn::parse_file(&out).unwrap();
        let out = insert_into_module("mod é { /* ü */ }", &["é".into()], "use x;\n").unwrap();
        assert_eq!(out, "mod é { /* ü */ \nuse x;\n}");
        assert!(insert_into_module(file, &["z".into()], "x").is_err());
    }
}
