//! Where code first names a crate (`use larder::..`, `larder::shelve(..)`, `extern crate larder`): the line a
//! warning about a crate that was not read points at, the caller's rather than the lock file's.

use std::path::{Path, PathBuf};

/// For each crate ident of `names` (`-` already `_`), the first `(file, 1-based line)` of the `.rs` files under
/// `dirs` naming it as a path root, crate roots (`main.rs`, `lib.rs`) first, then files in path order; comments
/// skipped.
pub fn first_uses(dirs: &[PathBuf], names: &[String]) -> Vec<Option<(PathBuf, usize)>> {
    let mut out: Vec<Option<(PathBuf, usize)>> = vec![None; names.len()];
    for dir in dirs {
        for file in rust_files(dir) {
            if out.iter().all(Option::is_some) {
                return out;
            }
            let Ok(text) = std::fs::read_to_string(&file) else { continue };
            for (i, name) in names.iter().enumerate() {
                if out[i].is_none() {
                    out[i] = first_line_naming(&text, name).map(|l| (file.clone(), l));
                }
            }
        }
    }
    out
}

/// The 1-based line of `text` where `name` is first a path's root (`name::`, not `x::name::` nor `my_name::`) or
/// an `extern crate`, outside `//` comments.
fn first_line_naming(text: &str, name: &str) -> Option<usize> {
    let path = format!("{name}::");
    let extern_crate = format!("extern crate {name}");
    text.lines()
        .position(|line| {
            let code = line.split("//").next().unwrap_or_default();
            if code.trim_start().starts_with(&extern_crate) {
                return true;
            }
            code.match_indices(&path).any(|(at, _)| {
                let before = code[..at].chars().next_back();
                !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
            })
        })
        .map(|i| i + 1)
}

/// The `.rs` files under `dir` (no `target/`, no hidden folders), crate roots first, then in path order.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name();
            let name = name.to_string_lossy();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                if !name.starts_with('.') && name != "target" {
                    stack.push(p);
                }
            } else if name.ends_with(".rs") {
                files.push(p);
            }
        }
    }
    let root = |p: &Path| !matches!(p.strip_prefix(dir).ok().and_then(Path::to_str), Some("main.rs" | "lib.rs"));
    files.sort_by(|a, b| (root(a), a).cmp(&(root(b), b)));
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crate_is_found_as_a_paths_root_not_inside_another_name_nor_in_a_comment() {
        let text = "// larder::shelve in a comment\nuse my_larder::x;\nlet a = self::larder::y;\n\
            let b = larder::shelve(c); // here\n";
        assert_eq!(first_line_naming(text, "larder"), Some(4));
        assert_eq!(first_line_naming("use larder::{a, b};\n", "larder"), Some(1));
        assert_eq!(first_line_naming("extern crate larder;\n", "larder"), Some(1));
        assert_eq!(first_line_naming("use pantry::x;\n", "larder"), None);
    }

    #[test]
    fn the_crate_root_is_searched_first() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("a.rs"), "use larder::x;\n").unwrap();
        std::fs::write(tmp.path().join("main.rs"), "mod a;\n\nfn main() { larder::go(); }\n").unwrap();
        let found = first_uses(&[tmp.path().to_path_buf()], &["larder".into(), "pantry".into()]);
        assert_eq!(found, [Some((tmp.path().join("main.rs"), 3)), None]);
    }
}
