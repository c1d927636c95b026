//! Golden snapshot of a scaffolded project: `init` + three APIs must reproduce `tests/golden/memcached-operator/`
//! byte for byte. Re-bless with `cargo xtask bless` after an intended change, then review `git diff tests/golden`.

use std::path::PathBuf;

use crate::support::{blessing, repo_root, snapshot, standard_project};

#[test]
fn scaffolded_tree_matches_golden() {
    let parent = tempfile::tempdir().unwrap();
    let dir = standard_project(parent.path());
    let mut actual = snapshot(&dir);
    // The vendored runtime's sources are `runtime/src/` as they are: compared with it, not kept twice.
    let vendored = PathBuf::from("vendor/kubesmith-runtime/src");
    let sources: Vec<PathBuf> = actual.keys().filter(|p| p.starts_with(&vendored)).cloned().collect();
    assert!(sources.iter().any(|p| p.ends_with("manager.rs")), "init vendors kubesmith-runtime: {sources:?}");
    for rel in sources {
        let bytes = actual.remove(&rel).unwrap();
        if rel.as_os_str().to_string_lossy().ends_with('/') {
            continue;
        }
        let source = repo_root().join("runtime/src").join(rel.strip_prefix(&vendored).unwrap());
        let want = std::fs::read(&source)
            .unwrap_or_else(|_| panic!("{} vendors {}, which is missing", rel.display(), source.display()));
        assert!(bytes == want, "{} is not {}", rel.display(), source.display());
    }
    let golden_dir = repo_root().join("tests/golden/memcached-operator");
    if blessing() {
        let _ = std::fs::remove_dir_all(&golden_dir);
        for (rel, bytes) in &actual {
            let dest = golden_dir.join(rel);
            if rel.as_os_str().to_string_lossy().ends_with('/') {
                std::fs::create_dir_all(&dest).unwrap();
            } else {
                std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
                std::fs::write(&dest, bytes).unwrap();
            }
        }
        return;
    }
    let expected = snapshot(&golden_dir);
    let paths = |m: &std::collections::BTreeMap<PathBuf, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        paths(&actual),
        paths(&expected),
        "the scaffolded file list changed; run `cargo xtask bless` if intended"
    );
    for (rel, bytes) in &actual {
        let want = &expected[rel];
        if bytes != want {
            panic!(
                "{} differs from the golden copy; run `cargo xtask bless` if intended.\n--- golden\n{}\n--- actual\n{}",
                rel.display(),
                String::from_utf8_lossy(want),
                String::from_utf8_lossy(bytes)
            );
        }
    }
}

/// `docs/markers.md` is exactly `kubesmith markers --output markdown`.
#[test]
fn golden_markers_doc() {
    let dir = tempfile::tempdir().unwrap();
    let out = crate::support::ks(dir.path()).args(["markers", "--output", "markdown"]).assert().success();
    let actual = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let path = repo_root().join("docs/markers.md");
    if blessing() {
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if actual != expected {
        let line = actual
            .lines()
            .zip(expected.lines())
            .position(|(a, e)| a != e)
            .map_or_else(|| actual.lines().count().min(expected.lines().count()) + 1, |i| i + 1);
        panic!(
            "docs/markers.md differs from `kubesmith markers --output markdown` from line {line}: the registry \
             (src/markers/registry.rs) or its guide (src/markers/guide.md) changed; run `cargo xtask bless` and \
             review `git diff docs/markers.md`"
        );
    }
}
