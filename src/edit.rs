//! Edits of existing files, only at marker comments, checked by re-parsing before anything is written.
//!
//! Markers are `// +kubesmith:scaffold:<what>` lines in Rust and `# +kubesmith:scaffold:<what>` lines in YAML (the
//! templates hold every one: `grep -r '+kubesmith:scaffold:' templates/`). The new line goes just before the marker,
//! with its indentation, unless an identical line already exists (idempotent); a `mod name;` goes to its sorted place
//! in the run of `mod` declarations above the marker, where `rustfmt` would put it. Commented blocks after a
//! `# +kubesmith:uncomment:<tag>` line lose one `#` when a command enables the tag ([`uncomment_blocks`]).
//! `neutral` says whether a Rust insertion keeps a clean file clean, for [`crate::formatted`].
//!
//! **Invariant:** the result is re-parsed (syn for Rust, the YAML parser for YAML) before it enters the plan; a file
//! that would not parse is an error naming it.

use std::path::Path;

use anyhow::Result;

mod neutral;

/// The language of an edited file decides how the result is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Rust,
    Yaml,
}

/// Inserts `line` (indented like the marker) just before the line that holds `marker`, unless a line with the
/// same trimmed text already exists. Returns the new text; errors name the file and the missing marker.
pub fn insert_before_marker(path: &Path, text: &str, marker: &str, line: &str, lang: Lang) -> Result<String> {
    insert_lines_before_marker(path, text, marker, &[line.to_string()], lang)
}

/// Like [`insert_before_marker`] for several lines (kept together; skipped when the first already exists).
pub fn insert_lines_before_marker(
    path: &Path,
    text: &str,
    marker: &str,
    lines: &[String],
    lang: Lang,
) -> Result<String> {
    let Some(first) = lines.first() else {
        return Ok(text.to_string());
    };
    if text.lines().any(|l| l.trim() == first.trim()) {
        return Ok(text.to_string());
    }
    let Some(pos) = text.lines().position(|l| l.trim_start().starts_with(marker) && l.trim() == marker) else {
        anyhow::bail!(
            "{}: the marker `{marker}` is missing, so kubesmith cannot add `{}`; put the marker line back where \
             such lines belong (see docs/markers.md), or add the line yourself and re-run with the marker restored",
            path.display(),
            first.trim()
        );
    };
    let all: Vec<&str> = text.split_inclusive('\n').collect();
    let marker_line = all[pos];
    let indent: String = marker_line.chars().take_while(|c| c.is_whitespace() && *c != '\n').collect();
    let bare: Vec<&str> = all.iter().map(|l| l.trim_end_matches(['\n', '\r'])).collect();
    let at = if lang == Lang::Rust { neutral::position(&bare, pos, lines) } else { pos };
    let mut out = String::with_capacity(text.len() + 64);
    for (i, l) in all.iter().enumerate() {
        if i == at {
            for new in lines {
                if !new.is_empty() {
                    out.push_str(&indent);
                }
                out.push_str(new);
                out.push('\n');
            }
        }
        out.push_str(l);
    }
    // Whole items at the top level cannot change whether the file parses: re-parsing a large file costs more than
    // the rest of `create api`.
    let offset: usize = all[..at].iter().map(|l| l.len()).sum();
    if !(lang == Lang::Rust && neutral::whole_items(lines) && neutral::at_top_level(text, offset)) {
        check(path, &out, lang)?;
    }
    if lang == Lang::Rust && !text.contains('\r') && neutral::keeps_clean(&bare, at, pos, lines, &indent) {
        crate::formatted::edited(text, &out);
    }
    Ok(out)
}

/// Inserts a multi-line `block` (used verbatim, no re-indentation) just before the line holding `marker`,
/// unless the file already contains the block. For YAML list items that must keep their own indentation.
pub fn insert_block_before_marker(path: &Path, text: &str, marker: &str, block: &str, lang: Lang) -> Result<String> {
    let block = if block.ends_with('\n') { block.to_string() } else { format!("{block}\n") };
    if text.contains(&block) {
        return Ok(text.to_string());
    }
    let Some(at) = text
        .split_inclusive('\n')
        .scan(0, |pos, l| {
            let start = *pos;
            *pos += l.len();
            Some((start, l))
        })
        .find(|(_, l)| l.trim() == marker)
        .map(|(start, _)| start)
    else {
        anyhow::bail!(
            "{}: the marker `{marker}` is missing, so kubesmith cannot add its lines there; put the marker line back \
             (see docs/ARCHITECTURE.md) and run the command again",
            path.display()
        );
    };
    let out = format!("{}{block}{}", &text[..at], &text[at..]);
    check(path, &out, lang)?;
    Ok(out)
}

/// Enables every block tagged `tag`: after each `# +kubesmith:uncomment:<tag>` line, the following lines that
/// start with `#` (up to a blank line, another marker, or an uncommented line) lose exactly one leading `#`.
/// Enabling twice changes nothing, since an enabled block no longer starts with `#`.
pub fn uncomment_blocks(path: &Path, text: &str, tag: &str, lang: Lang) -> Result<String> {
    let marker = format!("# +kubesmith:uncomment:{tag}");
    if !text.lines().any(|l| l.trim() == marker) {
        anyhow::bail!(
            "{}: the marker `{marker}` is missing, so kubesmith cannot enable that section; restore the marker \
             line above the commented block (see docs/ARCHITECTURE.md), or enable the section by hand",
            path.display()
        );
    }
    let mut out = String::with_capacity(text.len());
    let mut in_block = false;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        if trimmed.starts_with("# +kubesmith:") {
            in_block = trimmed == marker;
            out.push_str(line);
            continue;
        }
        if in_block && line.starts_with('#') {
            out.push_str(&line[1..]);
            continue;
        }
        in_block = false;
        out.push_str(line);
    }
    check(path, &out, lang)?;
    Ok(out)
}

/// Checks that an edited file still parses; a failure means kubesmith would break the user's file.
pub fn check(path: &Path, text: &str, lang: Lang) -> Result<()> {
    match lang {
        Lang::Rust => {
            if let Err(e) = crate::source::syntax::check_nesting(text)
                .map_err(|m| syn::Error::new(proc_macro2::Span::call_site(), m))
                .and_then(|()| syn::parse_file(text))
            {
                let at = e.span().start();
                anyhow::bail!(
                    "{}:{}:{}: the file would not parse after kubesmith's edit ({e}); nothing was written. \
                     Fix the file so that it parses, then run the command again",
                    path.display(),
                    at.line,
                    at.column + 1
                );
            }
        }
        Lang::Yaml => {
            if let Err(e) = crate::yaml::from_multi_doc_str(text) {
                anyhow::bail!(
                    "{}: the file would not be valid YAML after kubesmith's edit ({e}); nothing was written. \
                     Fix the file, then run the command again",
                    path.display()
                );
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAIN: &str =
        "fn main() {\n    let v = vec![\n        a(),\n        // +kubesmith:scaffold:controllers\n    ];\n}\n";

    #[test]
    fn inserts_with_marker_indent_once() {
        let p = Path::new("src/main.rs");
        let once = insert_before_marker(p, MAIN, "// +kubesmith:scaffold:controllers", "b(),", Lang::Rust).unwrap();
        assert!(once.contains("        a(),\n        b(),\n        // +kubesmith:scaffold:controllers\n"));
        let twice = insert_before_marker(p, &once, "// +kubesmith:scaffold:controllers", "b(),", Lang::Rust).unwrap();
        assert_eq!(once, twice);
    }

    #[test]
    fn missing_marker_is_a_clear_error() {
        let err = insert_before_marker(
            Path::new("src/main.rs"),
            "fn main() {}\n",
            "// +kubesmith:scaffold:x",
            "y();",
            Lang::Rust,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("src/main.rs") && err.contains("`// +kubesmith:scaffold:x` is missing"), "{err}");
    }

    #[test]
    fn refuses_to_break_rust() {
        let err = insert_before_marker(
            Path::new("src/lib.rs"),
            MAIN,
            "// +kubesmith:scaffold:controllers",
            "}}}",
            Lang::Rust,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("would not parse"), "{err}");
    }

    #[test]
    fn uncomments_tagged_blocks_once() {
        let y = "resources:\n- a\n# +kubesmith:uncomment:crd\n#- ../crd\n# +kubesmith:uncomment:other\n#- ../other\n\n#- keep\n";
        let p = Path::new("k.yaml");
        let once = uncomment_blocks(p, y, "crd", Lang::Yaml).unwrap();
        assert_eq!(
            once,
            "resources:\n- a\n# +kubesmith:uncomment:crd\n- ../crd\n# +kubesmith:uncomment:other\n#- ../other\n\n#- keep\n"
        );
        assert_eq!(uncomment_blocks(p, &once, "crd", Lang::Yaml).unwrap(), once);
        assert!(uncomment_blocks(p, y, "missing", Lang::Yaml).unwrap_err().to_string().contains("is missing"));
    }

    #[test]
    fn blocks_keep_their_indentation_and_are_added_once() {
        let y = "targets:\n# +kubesmith:scaffold:x\n";
        let p = Path::new("k.yaml");
        let block = "  - select:\n      name: a\n";
        let once = insert_block_before_marker(p, y, "# +kubesmith:scaffold:x", block, Lang::Yaml).unwrap();
        assert_eq!(once, "targets:\n  - select:\n      name: a\n# +kubesmith:scaffold:x\n");
        assert_eq!(insert_block_before_marker(p, &once, "# +kubesmith:scaffold:x", block, Lang::Yaml).unwrap(), once);
    }

    #[test]
    fn yaml_lists() {
        let y = "resources:\n- a.yaml\n# +kubesmith:scaffold:crd-resources\n";
        let out =
            insert_before_marker(Path::new("k.yaml"), y, "# +kubesmith:scaffold:crd-resources", "- b.yaml", Lang::Yaml)
                .unwrap();
        assert_eq!(out, "resources:\n- a.yaml\n- b.yaml\n# +kubesmith:scaffold:crd-resources\n");
    }
}
