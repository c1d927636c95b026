//! The version of a dependency a package builds with: what its workspace's `Cargo.lock` pins for it (the entry
//! the package's own dependency list names when the lock holds several), else the requirement its manifest
//! writes. kubesmith emulates the schemars generation a crate's kinds are derived with from it.

use std::path::Path;

use super::{lock_file, read_manifest};
use crate::source::Package;

/// The version of `dependency` (a package name: `schemars`) the package whose sources are in `src_dir` builds
/// with: the lock's, else its manifest's requirement (`0.8`, `=1.2.3`, `^0.8.21`, with the operator left out);
/// `None` when neither names it.
pub fn dependency_version(src_dir: &Path, dependency: &str) -> Option<String> {
    let package = Package::of_source_dir(src_dir)?;
    let from_lock = lock_file(&package.dir)
        .and_then(|lock| std::fs::read_to_string(lock).ok())
        .and_then(|text| locked(&text, dependency, &[&package.name, "kube-core"]));
    from_lock.or_else(|| required(&package.dir, dependency))
}

/// The version the lock file `lock` pins for the package `name`: the only one it holds, else the one the first of
/// `via` (package names) that depends on it lists in its entry (`"schemars 0.8.22"`).
pub fn version_in_lock(lock: &Path, name: &str, via: &[&str]) -> Option<String> {
    locked(&std::fs::read_to_string(lock).ok()?, name, via)
}

/// [`version_in_lock`] of a lock's text. A package's schemars is its own entry's, else kube-core's (kube-derive's
/// code names the crate's `::schemars`, which must be kube-core's for the derive to compile).
fn locked(lock: &str, dependency: &str, via: &[&str]) -> Option<String> {
    let entries = entries(lock);
    let versions: Vec<&str> = entries.iter().filter(|e| e.name == dependency).map(|e| e.version.as_str()).collect();
    match versions.as_slice() {
        [] => return None,
        [only] => return Some(only.to_string()),
        _ => {}
    }
    let listed = |name: &str| {
        entries.iter().filter(|e| e.name == name).find_map(|e| {
            e.dependencies.iter().find_map(|d| {
                let (n, v) = d.split_once(' ')?;
                (n == dependency).then(|| v.to_string())
            })
        })
    };
    via.iter().find_map(|p| listed(p))
}

/// One `[[package]]` of a lock: name, version and the raw dependency entries (`"name"` or `"name version"`).
struct Entry {
    name: String,
    version: String,
    dependencies: Vec<String>,
}

/// The packages of a lock, read line by line as cargo writes it (a whole TOML parse of a large workspace's lock
/// costs more than this runs for).
fn entries(lock: &str) -> Vec<Entry> {
    let unquote = |v: &str| v.trim().trim_end_matches(',').trim_matches('"').to_string();
    let mut out: Vec<Entry> = Vec::new();
    let mut in_package = false;
    let mut in_deps = false;
    for line in lock.lines() {
        let t = line.trim();
        if in_deps {
            if t.starts_with(']') {
                in_deps = false;
            } else if let Some(e) = out.last_mut() {
                e.dependencies.push(unquote(t));
            }
            continue;
        }
        if t.starts_with('[') {
            in_package = t == "[[package]]";
            if in_package {
                out.push(Entry { name: String::new(), version: String::new(), dependencies: Vec::new() });
            }
            continue;
        }
        let (true, Some((key, value)), Some(e)) = (in_package, t.split_once(" = "), out.last_mut()) else { continue };
        match key {
            "name" => e.name = unquote(value),
            "version" => e.version = unquote(value),
            "dependencies" => {
                let inner = value.trim().trim_start_matches('[');
                match inner.strip_suffix(']') {
                    Some(list) => {
                        e.dependencies.extend(list.split(',').filter(|d| !d.trim().is_empty()).map(unquote));
                    }
                    None => in_deps = true,
                }
            }
            _ => {}
        }
    }
    out
}

/// The version requirement the manifest in `dir` writes for `dependency` (its own `[dependencies]`, or the
/// workspace's when the entry says `workspace = true`), without its operator.
fn required(dir: &Path, dependency: &str) -> Option<String> {
    let doc = read_manifest(&dir.join("Cargo.toml")).ok()?;
    let entry = crate::source::workspace::dependency_entry(doc.get("dependencies"), dependency)?;
    fn version(e: &toml_edit::Item) -> Option<&str> {
        e.as_str().or_else(|| e.get("version").and_then(toml_edit::Item::as_str))
    }
    let req = match version(entry) {
        Some(v) => v.to_string(),
        None if entry.get("workspace").and_then(toml_edit::Item::as_bool) == Some(true) => {
            let ws = dir.ancestors().skip(1).find_map(|d| {
                let doc = read_manifest(&d.join("Cargo.toml")).ok()?;
                doc.get("workspace").is_some().then_some(doc)
            })?;
            let deps = ws.get("workspace").and_then(|w| w.get("dependencies"));
            version(crate::source::workspace::dependency_entry(deps, dependency)?)?.to_string()
        }
        None => return None,
    };
    Some(req.trim_start_matches(['=', '^', '~', ' ']).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCK: &str = r#"version = 4

[[package]]
name = "kube-core"
version = "0.99.0"
dependencies = ["schemars 0.8.22", "serde"]

[[package]]
name = "op"
version = "0.1.0"
dependencies = [
 "kube-core",
 "schemars 1.2.2",
]

[[package]]
name = "schemars"
version = "0.8.22"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "schemars"
version = "1.2.2"
source = "registry+https://github.com/rust-lang/crates.io-index"
"#;

    #[test]
    fn the_packages_own_entry_picks_among_several_versions() {
        assert_eq!(locked(LOCK, "schemars", &["op", "kube-core"]).as_deref(), Some("1.2.2"));
        assert_eq!(locked(LOCK, "schemars", &["other", "kube-core"]).as_deref(), Some("0.8.22"), "kube-core's, else");
        assert_eq!(locked(LOCK, "uuid", &["op"]), None);
        let one = "[[package]]\nname = \"schemars\"\nversion = \"0.8.21\"\n";
        assert_eq!(locked(one, "schemars", &["op"]).as_deref(), Some("0.8.21"));
    }

    #[test]
    fn inline_and_multi_line_dependency_lists_are_read() {
        let lock = "[[package]]\nname = \"op\"\nversion = \"0.1.0\"\ndependencies = [\"kube\", \"schemars 0.8.22\"]\n\n\
                    [[package]]\nname = \"schemars\"\nversion = \"0.8.22\"\n\n[[package]]\nname = \"schemars\"\nversion = \"1.2.2\"\n";
        assert_eq!(locked(lock, "schemars", &["op"]).as_deref(), Some("0.8.22"));
        let e = entries(LOCK);
        assert_eq!(e[1].dependencies, ["kube-core", "schemars 1.2.2"]);
    }

    #[test]
    fn lock_first_then_the_manifests_requirement() {
        let tmp = tempfile::tempdir().unwrap();
        let manifest =
            "[package]\nname = \"op\"\nversion = \"0.1.0\"\n\n[dependencies]\nschemars = { version = \"=0.8\" }\n";
        std::fs::create_dir_all(tmp.path().join("src")).unwrap();
        std::fs::write(tmp.path().join("src/lib.rs"), "").unwrap();
        std::fs::write(tmp.path().join("Cargo.toml"), manifest).unwrap();
        assert_eq!(dependency_version(&tmp.path().join("src"), "schemars").as_deref(), Some("0.8"));
        std::fs::write(tmp.path().join("Cargo.lock"), LOCK).unwrap();
        assert_eq!(dependency_version(&tmp.path().join("src"), "schemars").as_deref(), Some("1.2.2"));
    }
}
