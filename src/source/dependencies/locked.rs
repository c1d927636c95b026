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

/// The Kubernetes version the package whose sources are in `src_dir` builds k8s-openapi for: its `v1_XX` feature
/// ([`workspace::k8s_openapi_version`](crate::source::workspace::k8s_openapi_version)), else its `latest` feature's,
/// the newest version of the k8s-openapi release it builds with (its lock's, else its requirement's); `None` when it
/// names neither (another package sets the version).
pub fn k8s_openapi_version(src_dir: &Path) -> Option<String> {
    crate::source::workspace::k8s_openapi_version(src_dir).or_else(|| {
        crate::source::workspace::dependency_features(src_dir, "k8s-openapi")?.contains("latest").then_some(())?;
        latest_of_release(&dependency_version(src_dir, "k8s-openapi")?)
    })
}

/// The Kubernetes version k8s-openapi's `latest` feature selects in a release (`0.26.1` → `1.34`): 0.19 to 0.29
/// each add one version, `latest` being 1.(minor + 8); `None` for releases outside that range.
fn latest_of_release(release: &str) -> Option<String> {
    let mut parts = release.trim_start_matches(['=', '^', '~']).split('.');
    let (major, minor) = (parts.next()?.trim().parse::<u64>().ok()?, parts.next()?.trim().parse::<u64>().ok()?);
    (major == 0 && (19..=29).contains(&minor)).then(|| format!("1.{}", minor + 8))
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

    #[test]
    fn the_latest_feature_is_the_newest_version_of_the_release_built() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let k8s = |features: &str| format!("[package]\nname = \"p\"\n[dependencies]\nk8s-openapi = {{ {features} }}\n");
        for (dir, manifest, lock) in [
            ("pinned", k8s(r#"version = "0.26", features = ["v1_33", "latest"]"#), None),
            ("required", k8s(r#"version = "0.29", features = ["latest"]"#), None),
            (
                "locked",
                k8s(r#"version = "0.26", features = ["latest"]"#),
                Some(
                    "version = 4\n\n[[package]]\nname = \"p\"\nversion = \"0.1.0\"\ndependencies = [\"k8s-openapi\"]\n\n[[package]]\nname = \"k8s-openapi\"\nversion = \"0.26.1\"\n",
                ),
            ),
            ("ancient", k8s(r#"version = "0.13", features = ["latest"]"#), None),
            ("unset", k8s(r#"version = "0.29""#), None),
        ] {
            std::fs::create_dir_all(root.join(dir).join("src")).unwrap();
            std::fs::write(root.join(dir).join("Cargo.toml"), manifest).unwrap();
            if let Some(lock) = lock {
                std::fs::write(root.join(dir).join("Cargo.lock"), lock).unwrap();
            }
        }
        let version = |dir: &str| k8s_openapi_version(&root.join(dir).join("src"));
        assert_eq!(version("pinned").as_deref(), Some("1.33"), "a v1_XX feature wins");
        assert_eq!(version("required").as_deref(), Some("1.37"));
        assert_eq!(version("locked").as_deref(), Some("1.34"), "the lock's release, not the requirement's");
        assert_eq!(version("ancient"), None, "a release before 0.19");
        assert_eq!(version("unset"), None, "another package picks the version");
    }

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
