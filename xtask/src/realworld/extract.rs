//! Extraction of pinned files from git mirrors into `target/realworld/` (git-ignored): `git archive` of the
//! recipe's paths at its commit, redone only when the commit or the paths change.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

/// The git directory of `repo` (`owner/name`) under `mirrors`: `owner+name/repo` (bare) or `owner+name/repo/.git`.
pub fn git_dir(mirrors: &Path, repo: &str) -> Result<PathBuf> {
    let base = mirrors.join(repo.replace('/', "+"));
    for candidate in [base.join("repo/.git"), base.join("repo"), base.join(".git"), base.clone()] {
        if candidate.join("HEAD").is_file() && candidate.join("objects").is_dir() {
            return Ok(candidate);
        }
    }
    bail!("no git mirror of {repo} in {} (fetch github:{repo} first)", base.display())
}

/// Extracts `paths` (all of the commit when empty) of `repo` at `commit` into `into`, unless a previous
/// extraction of the same commit and paths is there. Returns whether it extracted.
pub fn extract(mirrors: &Path, repo: &str, commit: &str, paths: &[String], into: &Path) -> Result<bool> {
    extract_with(mirrors, repo, commit, paths, into, "")
}

/// [`extract`], also redone when `also` changes: what else the caller builds on the extraction (the operator
/// recipe's dependency patches and submodules, so a recipe that adds one gets a freshly patched tree).
pub fn extract_with(
    mirrors: &Path,
    repo: &str,
    commit: &str,
    paths: &[String],
    into: &Path,
    also: &str,
) -> Result<bool> {
    let stamp = format!("{repo}@{commit}\n{}\n{also}", paths.join("\n"));
    let stamp_file = into.join(".realworld-stamp");
    if std::fs::read_to_string(&stamp_file).is_ok_and(|s| s == stamp) {
        return Ok(false);
    }
    let git = git_dir(mirrors, repo)?;
    let has = Command::new("git")
        .arg("--git-dir")
        .arg(&git)
        .args(["cat-file", "-e", &format!("{commit}^{{commit}}")])
        .stderr(Stdio::null())
        .status()?;
    if !has.success() {
        bail!("the mirror of {repo} ({}) has no commit {commit}: fetch a newer snapshot or re-pin", git.display());
    }
    if into.exists() {
        std::fs::remove_dir_all(into).with_context(|| format!("cannot clear {}", into.display()))?;
    }
    std::fs::create_dir_all(into)?;
    let mut archive = Command::new("git");
    archive.arg("--git-dir").arg(&git).args(["archive", "--format=tar", commit]);
    if !paths.is_empty() {
        archive.arg("--").args(paths);
    }
    let out = archive.output().with_context(|| format!("cannot run git archive for {repo}"))?;
    if !out.status.success() {
        bail!("git archive of {repo}@{commit} {paths:?} failed: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    let mut tar = Command::new("tar").arg("-x").arg("-C").arg(into).stdin(Stdio::piped()).spawn()?;
    std::io::Write::write_all(tar.stdin.as_mut().expect("piped"), &out.stdout)?;
    if !tar.wait()?.success() {
        bail!("cannot unpack {repo}@{commit} into {}", into.display());
    }
    std::fs::write(&stamp_file, stamp)?;
    Ok(true)
}

/// The commit the gitlink (submodule entry) at `path` of `repo` at `commit` pins, if `path` is one.
pub fn gitlink(mirrors: &Path, repo: &str, commit: &str, path: &str) -> Result<Option<String>> {
    let git = git_dir(mirrors, repo)?;
    let out = Command::new("git")
        .arg("--git-dir")
        .arg(&git)
        .args(["ls-tree", commit, "--", path.trim_end_matches('/')])
        .output()
        .with_context(|| format!("cannot run git ls-tree for {repo}"))?;
    if !out.status.success() {
        bail!("git ls-tree of {repo}@{commit} {path} failed: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    // `160000 commit <sha>\t<path>`
    let text = String::from_utf8_lossy(&out.stdout);
    let mut fields = text.split_whitespace();
    Ok(match (fields.next(), fields.next(), fields.next()) {
        (Some("160000"), Some("commit"), Some(sha)) => Some(sha.to_string()),
        _ => None,
    })
}

/// Places each submodule of the recipe (`[[submodules]]`: a gitlink the snapshot leaves empty, which a real clone
/// checks out) into the extracted `tree`, from its own mirror at the commit the gitlink pins; the recipe's commit
/// must be that one.
pub fn submodules(
    mirrors: &Path,
    repo: &str,
    commit: &str,
    subs: &[super::recipe::Submodule],
    tree: &Path,
) -> Result<()> {
    for s in subs {
        match gitlink(mirrors, repo, commit, &s.path)? {
            Some(pinned) if pinned == s.commit => {}
            Some(pinned) => bail!(
                "{repo}@{commit}: the submodule {} pins {pinned}, the recipe says {}: pin the recipe to the gitlink",
                s.path,
                s.commit
            ),
            None => {
                bail!("{repo}@{commit}: {} is no submodule (no gitlink there): remove it from [[submodules]]", s.path)
            }
        }
        extract(mirrors, &s.repo, &s.commit, &[], &tree.join(&s.path))?;
    }
    Ok(())
}

/// The `[patch]` table key of a Cargo.lock git source (`git+https://host/o/r.git?tag=x#rev` → `https://host/o/r.git`).
pub fn patch_source(lock_source: &str) -> Option<&str> {
    let url = lock_source.strip_prefix("git+")?;
    let end = url.find(['?', '#']).unwrap_or(url.len());
    Some(&url[..end])
}

/// Adds `[patch."<source>"] <crate> = { path = "<dir>" }` for each git dependency to the workspace manifest
/// `manifest` (text in, text out), so cargo builds with the extracted copies instead of fetching them; and an
/// empty `[workspace]` to a single package's manifest, so cargo does not take it for a member of the workspace
/// around the extraction folder.
pub fn with_patches(manifest: &str, patches: &[(String, String, PathBuf)]) -> Result<String> {
    let mut doc: toml_edit::DocumentMut = manifest.parse().context("the workspace Cargo.toml does not parse")?;
    if !doc.contains_key("workspace") {
        doc.insert("workspace", toml_edit::table());
    }
    for (source, krate, dir) in patches {
        let patch =
            doc.entry("patch").or_insert(toml_edit::table()).as_table_mut().context("[patch] is not a table")?;
        patch.set_implicit(true);
        let table = patch.entry(source).or_insert(toml_edit::table()).as_table_mut().context("patch source")?;
        let mut inline = toml_edit::InlineTable::new();
        inline.insert("path", dir.display().to_string().into());
        // a second version of one crate (two tags of a repository in the lock) takes a key of its own
        let mut key = krate.clone();
        if table.contains_key(&key) {
            inline.insert("package", krate.as_str().into());
            let mut n = 2;
            while table.contains_key(&key) {
                key = format!("{krate}-{n}");
                n += 1;
            }
        }
        table.insert(&key, toml_edit::value(inline));
    }
    Ok(doc.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_git_source_becomes_its_patch_key() {
        assert_eq!(
            patch_source("git+https://github.com/o/operator-rs.git?tag=v1#7b9f9ac"),
            Some("https://github.com/o/operator-rs.git")
        );
        assert_eq!(patch_source("git+https://h/o/r#abc"), Some("https://h/o/r"));
        assert_eq!(patch_source("registry+https://github.com/rust-lang/crates.io-index"), None);
    }

    #[test]
    fn patches_join_the_manifest_and_keep_it() {
        let text = "[workspace]\nmembers = [\"a\"]\n# kept\n";
        let patched = with_patches(
            text,
            &[
                ("https://h/o/r.git".into(), "fw".into(), PathBuf::from("/x/fw")),
                ("https://h/o/r.git".into(), "fw-derive".into(), PathBuf::from("/x/fw-derive")),
                ("https://h/o/r.git".into(), "fw".into(), PathBuf::from("/y/fw")),
            ],
        )
        .unwrap();
        assert!(patched.starts_with("[workspace]\nmembers = [\"a\"]\n") && patched.contains("# kept"), "{patched}");
        let doc: toml_edit::DocumentMut = patched.parse().unwrap();
        assert_eq!(doc["patch"]["https://h/o/r.git"]["fw"]["path"].as_str(), Some("/x/fw"));
        assert_eq!(doc["patch"]["https://h/o/r.git"]["fw-derive"]["path"].as_str(), Some("/x/fw-derive"));
        assert_eq!(doc["patch"]["https://h/o/r.git"]["fw-2"]["path"].as_str(), Some("/y/fw"));
        assert_eq!(doc["patch"]["https://h/o/r.git"]["fw-2"]["package"].as_str(), Some("fw"), "another version");
        let single = with_patches("[package]\nname = \"x\"\n", &[]).unwrap();
        assert_eq!(single, "[package]\nname = \"x\"\n\n[workspace]\n");
    }

    #[test]
    fn extraction_takes_the_pinned_paths_and_is_cached() {
        let tmp = std::env::temp_dir().join(format!("xtask-rw-extract-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        let work = tmp.join("work");
        std::fs::create_dir_all(work.join("a")).unwrap();
        std::fs::write(work.join("a/x.yaml"), "one").unwrap();
        std::fs::write(work.join("b.txt"), "two").unwrap();
        let git = |args: &[&str]| {
            let ok = Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"])
                .args(args)
                .current_dir(&work)
                .output()
                .unwrap();
            assert!(ok.status.success(), "{ok:?}");
            String::from_utf8(ok.stdout).unwrap()
        };
        git(&["init", "-q"]);
        git(&["add", "."]);
        git(&["commit", "-qm", "x"]);
        let commit = git(&["rev-parse", "HEAD"]).trim().to_string();
        let mirrors = tmp.join("mirrors");
        std::fs::create_dir_all(mirrors.join("o+r")).unwrap();
        std::fs::rename(work.join(".git"), mirrors.join("o+r/repo")).unwrap();
        let into = tmp.join("out");
        assert!(extract(&mirrors, "o/r", &commit, &["a".into()], &into).unwrap());
        assert_eq!(std::fs::read_to_string(into.join("a/x.yaml")).unwrap(), "one");
        assert!(!into.join("b.txt").exists());
        assert!(!extract(&mirrors, "o/r", &commit, &["a".into()], &into).unwrap(), "cached");
        let missing = extract(&mirrors, "o/r", &"0".repeat(40), &[], &into).unwrap_err();
        assert!(missing.to_string().contains("has no commit"), "{missing}");
        assert!(extract_with(&mirrors, "o/r", &commit, &["a".into()], &into, "patched").unwrap(), "a new patch");
        assert!(!extract_with(&mirrors, "o/r", &commit, &["a".into()], &into, "patched").unwrap(), "cached");

        // A superproject whose gitlink `vendor/sub` pins the commit above: the submodule is placed from its mirror.
        let sup = tmp.join("sup");
        std::fs::create_dir_all(&sup).unwrap();
        std::fs::write(sup.join("x.txt"), "three").unwrap();
        let git_in = |args: &[&str]| {
            let ok = Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"])
                .args(args)
                .current_dir(&sup)
                .output()
                .unwrap();
            assert!(ok.status.success(), "{ok:?}");
            String::from_utf8(ok.stdout).unwrap()
        };
        git_in(&["init", "-q"]);
        git_in(&["add", "."]);
        git_in(&["update-index", "--add", "--cacheinfo", &format!("160000,{commit},vendor/sub")]);
        git_in(&["commit", "-qm", "sup"]);
        let sup_commit = git_in(&["rev-parse", "HEAD"]).trim().to_string();
        std::fs::create_dir_all(mirrors.join("o+sup")).unwrap();
        std::fs::rename(sup.join(".git"), mirrors.join("o+sup/repo")).unwrap();
        assert_eq!(gitlink(&mirrors, "o/sup", &sup_commit, "vendor/sub").unwrap(), Some(commit.clone()));
        assert_eq!(gitlink(&mirrors, "o/sup", &sup_commit, "x.txt").unwrap(), None);
        let tree = tmp.join("tree");
        extract(&mirrors, "o/sup", &sup_commit, &[], &tree).unwrap();
        let sub = |c: &str| super::super::recipe::Submodule {
            path: "vendor/sub".into(),
            repo: "o/r".into(),
            commit: c.into(),
        };
        submodules(&mirrors, "o/sup", &sup_commit, &[sub(&commit)], &tree).unwrap();
        assert_eq!(std::fs::read_to_string(tree.join("vendor/sub/b.txt")).unwrap(), "two");
        let wrong = submodules(&mirrors, "o/sup", &sup_commit, &[sub(&"1".repeat(40))], &tree).unwrap_err();
        assert!(wrong.to_string().contains("pin the recipe to the gitlink"), "{wrong}");
        let _ = std::fs::remove_dir_all(&tmp);
    }
}
