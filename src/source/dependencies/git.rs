//! Where cargo checks out a git dependency: `$CARGO_HOME/git/checkouts/<repo>-<hash>/<short rev>/`, one folder per
//! revision (never changed once written; `.cargo-ok` marks it complete), the crate anywhere inside it (the
//! repository may be a workspace): the `Cargo.toml` whose package name is the crate's.

use std::path::{Path, PathBuf};

use super::super::Package;

/// How deep inside a checkout a crate's `Cargo.toml` is looked for.
const MAX_DEPTH: usize = 4;

/// The lib root folder of crate `name` locked at `source` (`git+<url>[?branch=..|?rev=..|?tag=..]#<full sha>`),
/// checked out under `home`, if cargo checked it out.
pub fn checkout_source(home: &Path, name: &str, source: &str) -> Option<PathBuf> {
    let (url, rev) = source.strip_prefix("git+")?.rsplit_once('#')?;
    let url = url.split('?').next().unwrap_or(url);
    if rev.len() < 7 || !rev.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    // cargo names the folder after the URL's last segment (`.git` dropped) and a hash of the canonical URL, which
    // is not recomputed here: every `<repo>-<hash>` folder is tried, the revision folder telling them apart.
    let repo = url.trim_end_matches('/').rsplit('/').next().unwrap_or_default().trim_end_matches(".git");
    let repo = if repo.is_empty() { "_empty" } else { repo };
    let checkouts = std::fs::read_dir(home.join("git").join("checkouts")).ok()?;
    let mut candidates: Vec<PathBuf> = checkouts
        .flatten()
        .filter(|e| e.file_name().to_str().and_then(|n| n.strip_prefix(repo)).is_some_and(|r| r.starts_with('-')))
        .flat_map(|e| std::fs::read_dir(e.path()).into_iter().flatten().flatten())
        .filter(|e| {
            // The short id is the revision's first 7 hex digits, longer when 7 are ambiguous in the repository.
            e.file_name().to_str().is_some_and(|short| short.len() >= 7 && rev.starts_with(short))
        })
        .map(|e| e.path())
        .filter(|d| d.join(".cargo-ok").is_file())
        .collect();
    candidates.sort();
    candidates.iter().find_map(|dir| crate_in(dir, name, MAX_DEPTH))
}

/// The lib root folder of the package `name` at or below `dir` (`.git` and `target` skipped), breadth first.
fn crate_in(dir: &Path, name: &str, depth: usize) -> Option<PathBuf> {
    let mut level = vec![dir.to_path_buf()];
    for _ in 0..=depth {
        let mut next = Vec::new();
        for d in &level {
            if d.join("Cargo.toml").is_file()
                && let Ok(pkg) = Package::load(d)
                && pkg.name == name
            {
                return pkg.lib?.path.parent().map(Path::to_path_buf);
            }
            let Ok(entries) = std::fs::read_dir(d) else { continue };
            let mut subs: Vec<PathBuf> = entries
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .filter(|e| !matches!(e.file_name().to_str(), Some(".git" | "target")))
                .map(|e| e.path())
                .collect();
            subs.sort();
            next.extend(subs);
        }
        level = next;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn a_crate_is_found_inside_its_revisions_checkout_as_cargo_lays_it_out() {
        let home = tempfile::tempdir().unwrap();
        let rev = "45d2b0b7caebf6df5144608303fe5b4cd16661de";
        let checkout = "git/checkouts/larder-0a9a765b9c96c568/45d2b0b";
        write(home.path(), &format!("{checkout}/.cargo-ok"), "");
        write(home.path(), &format!("{checkout}/Cargo.toml"), "[workspace]\nmembers = [\"crates/larder\"]\n");
        write(home.path(), &format!("{checkout}/crates/larder/Cargo.toml"), "[package]\nname = \"larder\"\n");
        write(home.path(), &format!("{checkout}/crates/larder/src/lib.rs"), "");
        let source = format!("git+https://git.example.org/larder.git?rev=45d2b0b#{rev}");
        let found = checkout_source(home.path(), "larder", &source);
        assert_eq!(found, Some(home.path().join(checkout).join("crates/larder/src")));
        // Another revision, another repository, or a checkout cargo did not finish is not it.
        let other = format!("git+https://git.example.org/larder#{}", "9".repeat(40));
        assert_eq!(checkout_source(home.path(), "larder", &other), None);
        assert_eq!(checkout_source(home.path(), "larder", &source.replace("larder.git", "shelf.git")), None);
        std::fs::remove_file(home.path().join(checkout).join(".cargo-ok")).unwrap();
        assert_eq!(checkout_source(home.path(), "larder", &source), None);
    }
}
