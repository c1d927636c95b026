//! Getting the sources of kube-dependent crates that `Cargo.lock` names but that are not on disk, as cargo gets them:
//! `cargo metadata` (which downloads or checks out every package it lists, and may update the lock as any build
//! does when the manifests changed since), then the crates looked up again where cargo put them, or at the
//! `manifest_path` cargo gives. cargo runs only when something is missing, never with `--offline`, `CARGO_NET_OFFLINE=true` or
//! cargo's `net.offline` set: the common case (every source on disk) spawns no process.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;

use super::{Dependencies, Found, kube_dependencies};
use crate::source::Package;

/// The manifests `cargo metadata` ran for in this process, with what cargo said when it failed.
static TRIED: std::sync::Mutex<Vec<(PathBuf, Option<String>)>> = std::sync::Mutex::new(Vec::new());

/// When kubesmith may run cargo to get sources that are not on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fetch {
    /// Never (`--offline`).
    Never,
    /// When the lock names a kube-dependent crate whose source is not on disk. A package without a `Cargo.lock`
    /// is not resolved here: that is a build's job, and on a fresh scaffold (`rbac infer` before the first build)
    /// it would download kube's whole dependency graph to find no crate of interest.
    Missing,
}

/// The dependencies, after cargo ran when it had to.
#[derive(Debug, Clone, Default)]
pub struct Fetched {
    /// The crates found, and those still not read.
    pub deps: Dependencies,
    /// The note to print when cargo ran and got sources (`note: kubesmith ran cargo ...`).
    pub note: Option<String>,
    /// What cargo said, in one line, when it failed.
    pub failed: Option<String>,
    /// Whether cargo was kept from running by `--offline`, `CARGO_NET_OFFLINE` or `net.offline`.
    pub offline: bool,
}

/// [`kube_dependencies`], running `cargo metadata` first when a source is missing and `fetch` allows it.
pub fn kube_dependencies_fetching(sources: &[PathBuf], cargo_home: Option<&Path>, fetch: Fetch) -> Fetched {
    let deps = kube_dependencies(sources, cargo_home);
    if deps.unread.is_empty() {
        return Fetched { deps, ..Fetched::default() };
    }
    let Some(package) = sources.iter().find_map(|s| Package::of_source_dir(s)) else {
        return Fetched { deps, ..Fetched::default() };
    };
    let manifest = package.dir.join("Cargo.toml");
    if fetch == Fetch::Never || offline_configured(&manifest, cargo_home) {
        return Fetched { deps, offline: true, ..Fetched::default() };
    }
    // Once per manifest and process: `make manifests` and `adopt` look for the dependencies more than once, and a
    // second run could only fail again (or find everything on disk, and not be spawned).
    let tried = TRIED.lock().ok().and_then(|t| t.iter().find(|(m, _)| *m == manifest).map(|(_, r)| r.clone()));
    match tried {
        Some(Some(said)) => return Fetched { deps, failed: Some(said), ..Fetched::default() },
        Some(None) => return Fetched { deps, ..Fetched::default() },
        None => {}
    }
    let packages = match cargo_metadata(&manifest, cargo_home) {
        Ok(p) => p,
        Err(said) => {
            if let Ok(mut t) = TRIED.lock() {
                t.push((manifest, Some(said.clone())));
            }
            return Fetched { deps, failed: Some(said), ..Fetched::default() };
        }
    };
    if let Ok(mut t) = TRIED.lock() {
        t.push((manifest.clone(), None));
    }
    let mut again = kube_dependencies(sources, cargo_home);
    // What the lock names and is still not where kubesmith looks: where cargo says it is.
    let mut from_cargo = Vec::new();
    again.unread.retain(|u| {
        let lib = packages.iter().find(|p| p.name == u.name && p.version == u.version).and_then(MetaPackage::lib_dir);
        match lib {
            Some(src) => {
                from_cargo.push(Found { name: u.name.clone(), src, immutable: true });
                false
            }
            None => true,
        }
    });
    again.found.extend(from_cargo);
    let new: Vec<&str> =
        again.found.iter().filter(|f| !deps.found.iter().any(|d| d.name == f.name)).map(|f| f.name.as_str()).collect();
    let note = format!(
        "note: kubesmith ran `cargo metadata` to fetch {} crate{} the code may call kube through{}; later runs read \
         {} from disk",
        new.len(),
        if new.len() == 1 { "" } else { "s" },
        if new.is_empty() { String::new() } else { format!(" ({})", new.join(", ")) },
        if new.len() == 1 { "it" } else { "them" },
    );
    Fetched { deps: again, note: Some(note), failed: None, offline: false }
}

/// A package as `cargo metadata` lists it.
#[derive(Debug, Deserialize)]
struct MetaPackage {
    name: String,
    version: String,
    targets: Vec<MetaTarget>,
}

#[derive(Debug, Deserialize)]
struct MetaTarget {
    kind: Vec<String>,
    src_path: PathBuf,
}

#[derive(Debug, Deserialize)]
struct Metadata {
    packages: Vec<MetaPackage>,
}

impl MetaPackage {
    /// The folder of its lib target's root.
    fn lib_dir(&self) -> Option<PathBuf> {
        let lib = self.targets.iter().find(|t| t.kind.iter().any(|k| k == "lib" || k == "rlib"))?;
        lib.src_path.parent().map(Path::to_path_buf)
    }
}

/// `cargo metadata` of `manifest` (every platform's dependencies: a crate's kube calls do not depend on where it
/// is built for, and a `--filter-platform` would need the host triple first); `Err` with what cargo said.
fn cargo_metadata(manifest: &Path, cargo_home: Option<&Path>) -> Result<Vec<MetaPackage>, String> {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.args(["metadata", "--format-version", "1", "--manifest-path"]).arg(manifest);
    if let Some(dir) = manifest.parent() {
        cmd.current_dir(dir);
    }
    if let Some(home) = cargo_home {
        cmd.env("CARGO_HOME", home);
    }
    let out = cmd.output().map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(one_line(&String::from_utf8_lossy(&out.stderr)));
    }
    let meta: Metadata =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("cannot read cargo metadata's output: {e}"))?;
    Ok(meta.packages)
}

/// cargo's error in one line: its `error:` line and, when there is one, the last cause it gives.
fn one_line(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let error = lines.iter().find(|l| l.starts_with("error")).copied();
    let cause = lines.iter().rev().find(|l| !l.starts_with("error") && !l.starts_with("Caused by")).copied();
    let mut said = match (error, cause) {
        (Some(e), Some(c)) if lines.iter().position(|l| *l == c) > lines.iter().position(|l| *l == e) => {
            format!("{e} ({c})")
        }
        (Some(e), _) => e.to_string(),
        (None, Some(c)) => c.to_string(),
        (None, None) => "cargo metadata failed without a message".to_string(),
    };
    if said.len() > 400 {
        let mut end = 400;
        while !said.is_char_boundary(end) {
            end -= 1;
        }
        said.truncate(end);
        said.push_str("...");
    }
    said
}

/// Whether cargo is told to stay offline: `CARGO_NET_OFFLINE=true`, or `net.offline = true` in a cargo config
/// file of the project (`.cargo/config.toml` or `.cargo/config` at or above it) or of `$CARGO_HOME`.
fn offline_configured(manifest: &Path, cargo_home: Option<&Path>) -> bool {
    if let Some(v) = std::env::var_os("CARGO_NET_OFFLINE") {
        return v == "true";
    }
    let home = cargo_home.map(Path::to_path_buf).or_else(super::default_cargo_home);
    let project = manifest.parent().into_iter().flat_map(Path::ancestors).map(|d| d.join(".cargo"));
    for dir in project.chain(home) {
        for file in ["config.toml", "config"] {
            let Ok(text) = std::fs::read_to_string(dir.join(file)) else { continue };
            let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else { continue };
            if let Some(v) = doc.get("net").and_then(|n| n.get("offline")).and_then(toml_edit::Item::as_bool) {
                return v;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargos_error_is_said_in_one_line_with_its_last_cause() {
        let stderr = "    Updating git repository `https://git.example.org/larder`\nerror: failed to get `larder` as \
            a dependency of package `op v0.1.0 (/x/op)`\n\nCaused by:\n  failed to load source for dependency \
            `larder`\n\nCaused by:\n  unable to update https://git.example.org/larder\n";
        assert_eq!(
            one_line(stderr),
            "error: failed to get `larder` as a dependency of package `op v0.1.0 (/x/op)` (unable to update \
             https://git.example.org/larder)"
        );
        assert_eq!(one_line("error: no network\n"), "error: no network");
    }

    #[test]
    fn net_offline_in_a_projects_cargo_config_keeps_cargo_from_running() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        std::fs::create_dir_all(tmp.path().join("op/.cargo")).unwrap();
        let manifest = tmp.path().join("op/Cargo.toml");
        if std::env::var_os("CARGO_NET_OFFLINE").is_some() {
            return; // the variable decides, whatever the files say
        }
        assert!(!offline_configured(&manifest, Some(&home)));
        std::fs::write(tmp.path().join("op/.cargo/config.toml"), "[net]\noffline = true\n").unwrap();
        assert!(offline_configured(&manifest, Some(&home)));
    }
}
