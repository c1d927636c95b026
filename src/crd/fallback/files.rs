//! The harness' files on disk: written only when their contents change (so cargo's fingerprints stay fresh),
//! links to the crate's own files, and the mirror's source folder — links to the crate's files but for the few it
//! copies with changes, each inside real folders so nothing is ever written through a link into the crate.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// Removes a file, link or folder of the harness if it is there (a link itself, never what it points at).
pub fn remove_if_present(path: &Path) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(_) => return Ok(()),
    }
    .with_context(|| format!("cannot remove {}", path.display()))
}

/// Writes `text` unless the file already holds it; says whether it wrote. A link in the way is removed first, so
/// the write never goes through it.
pub fn write_if_changed(path: &Path, text: &str) -> Result<bool> {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if !is_link && std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(false);
    }
    if is_link {
        remove_if_present(path)?;
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(true)
}

/// Links every entry of `from` into `to` except those `skip` names, and removes what `to` holds that `from` no
/// longer has: links only, unless `owned` (then `to` is all the harness', and stale copies go too).
pub fn link_entries(from: &Path, to: &Path, owned: bool, skip: impl Fn(&OsStr) -> bool) -> Result<()> {
    let list = |d: &Path| -> Result<Vec<OsString>> {
        let mut names = Vec::new();
        for e in std::fs::read_dir(d).with_context(|| format!("cannot list {}", d.display()))? {
            names.push(e?.file_name());
        }
        Ok(names)
    };
    let all = list(from)?;
    let wanted: Vec<OsString> = all.iter().filter(|n| !skip(n)).cloned().collect();
    for name in list(to)? {
        let path = to.join(&name);
        let is_link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
        let stale = !wanted.contains(&name) && (is_link || (owned && !all.contains(&name)));
        if stale {
            remove_if_present(&path)?;
        }
    }
    for name in wanted {
        let (target, link) = (from.join(&name), to.join(&name));
        if std::fs::read_link(&link).is_ok_and(|t| t == target) {
            continue;
        }
        remove_if_present(&link)?;
        symlink(&target, &link)?;
    }
    Ok(())
}

/// Makes `to` mirror `from`: links to its entries, except the `copies` (paths relative to `from`), written as
/// files inside real folders. Everything in `to` is the harness'.
pub fn overlay(from: &Path, to: &Path, copies: &BTreeMap<PathBuf, String>) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("cannot create {}", to.display()))?;
    let mut here: BTreeMap<OsString, &String> = BTreeMap::new();
    let mut below: BTreeMap<OsString, BTreeMap<PathBuf, String>> = BTreeMap::new();
    for (rel, text) in copies {
        let mut parts = rel.components();
        let Some(first) = parts.next() else { continue };
        let rest = parts.as_path();
        if rest.as_os_str().is_empty() {
            here.insert(first.as_os_str().to_owned(), text);
        } else {
            below.entry(first.as_os_str().to_owned()).or_default().insert(rest.to_path_buf(), text.clone());
        }
    }
    link_entries(from, to, true, |n| here.contains_key(n) || below.contains_key(n))?;
    for (name, text) in here {
        write_if_changed(&to.join(name), text)?;
    }
    for (name, nested) in below {
        let dir = to.join(&name);
        if std::fs::symlink_metadata(&dir).is_ok_and(|m| !m.is_dir() || m.file_type().is_symlink()) {
            remove_if_present(&dir)?;
        }
        overlay(&from.join(&name), &dir, &nested)?;
    }
    Ok(())
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> Result<()> {
    std::os::unix::fs::symlink(target, link).with_context(|| format!("cannot link {}", link.display()))
}

#[cfg(not(unix))]
fn symlink(_target: &Path, link: &Path) -> Result<()> {
    anyhow::bail!(
        "the compiled fallback for binary-only crates needs symbolic links, which this system lacks ({}); expose the \
         kinds from a library target, or pass --no-compile",
        link.display()
    )
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn an_overlay_links_everything_but_its_copies_and_never_writes_through_a_link() {
        let tmp = tempfile::tempdir().unwrap();
        let (from, to) = (tmp.path().join("src"), tmp.path().join("mirror"));
        for (rel, text) in [("lib.rs", "root"), ("a.rs", "a"), ("a/b.rs", "b"), ("a/c.rs", "c"), ("d/e.rs", "e")] {
            std::fs::create_dir_all(from.join(rel).parent().unwrap()).unwrap();
            std::fs::write(from.join(rel), text).unwrap();
        }
        // A first run with everything linked, then one copying a/b.rs: a/ becomes a real folder.
        overlay(&from, &to, &BTreeMap::new()).unwrap();
        assert!(std::fs::symlink_metadata(to.join("a")).unwrap().file_type().is_symlink());
        let copies = BTreeMap::from([(PathBuf::from("a/b.rs"), "b + more".to_string())]);
        overlay(&from, &to, &copies).unwrap();
        assert!(!std::fs::symlink_metadata(to.join("a")).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(to.join("a/b.rs")).unwrap(), "b + more");
        assert_eq!(std::fs::read_to_string(from.join("a/b.rs")).unwrap(), "b", "the crate's file is untouched");
        assert!(std::fs::symlink_metadata(to.join("a/c.rs")).unwrap().file_type().is_symlink());
        assert!(std::fs::symlink_metadata(to.join("d")).unwrap().file_type().is_symlink());
        // Back to no copies: a/ is a link again.
        overlay(&from, &to, &BTreeMap::new()).unwrap();
        assert!(std::fs::symlink_metadata(to.join("a")).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(from.join("a/b.rs")).unwrap(), "b");
    }
}
