//! The compiled fallback: the kinds whose schema only the crate's own code can produce (see
//! [`super::PendingCrd`]) get it from `Kind::crd()`, printed by a throw-away harness crate that cargo builds
//! under `<target-dir>/kubesmith/`, with the crate's `Cargo.lock` and target directory.
//!
//! Two harness shapes, one output:
//! - **dependent** (a library whose kinds other crates can name): the harness depends on the library by path and
//!   calls `<lib>::path::Kind::crd()`; cargo reuses the library the user's own builds compiled;
//! - **mirror** (a binary-only crate, or kinds behind private modules): the harness is a copy of the package (same
//!   name) whose source folder holds links to the crate's files and a copy of its root file with one generated
//!   function appended, compiled as a library, so `crate::` paths and private modules resolve as in the crate
//!   itself; modules private below the root get copies re-exporting the kind ([`reexport`]), and the crate's build
//!   script runs in the crate's own folder ([`build_script`]).
//!
//! A crate that leaves k8s-openapi's version feature to the crates using it gets the one they enable
//! ([`cargo::K8sPin`]).
//!
//! The harness lock file starts as a copy of the crate's `Cargo.lock`; cargo trims it to the harness' graph (no
//! version moves), kubesmith checks that every registry package kept the crate's version, and the build runs
//! `--locked`. Nothing is written outside `<target-dir>/kubesmith/`. The static skeleton of each CRD (names,
//! versions, storage) is kept and only the compiled versions' `schema` is taken from `crd()`, which is what
//! `merge_crds` would give for the same versions.

mod build_script;
mod cargo;
mod files;
mod harness;
mod reexport;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use super::{GeneratedCrd, PendingCrd};

pub use cargo::Package;

/// What the fallback produced.
#[derive(Debug)]
pub struct Compiled {
    /// The pending CRDs, complete, in the order given.
    pub crds: Vec<GeneratedCrd>,
    /// One note per compiled kind (the constructs that forced it) and one with the time it took.
    pub notes: Vec<String>,
}

/// Completes `pending` (kinds of the crate whose root is in `source_dir`) by building and running the harness.
/// `display_root` is the folder paths in notes are shown relative to; `k8s_version` (`1.33`) the project's
/// Kubernetes version, whose k8s-openapi feature a crate that enables none, in a workspace that enables none,
/// is built with.
pub fn compile(
    source_dir: &Path,
    pending: Vec<PendingCrd>,
    display_root: &Path,
    k8s_version: &str,
) -> Result<Compiled> {
    if pending.is_empty() {
        return Ok(Compiled { crds: Vec::new(), notes: Vec::new() });
    }
    let started = Instant::now();
    let feature = format!("v{}", k8s_version.replace('.', "_"));
    let package = cargo::package_of(source_dir, Some(&feature))?;
    let wanted: Vec<harness::Wanted> = pending
        .iter()
        .flat_map(|p| {
            p.versions.iter().map(move |v| harness::Wanted {
                key: key(&p.crd.name, &v.version),
                kind: format!("{} ({} {})", v.root, p.crd.name, v.version),
                crate_path: v.crate_path.clone(),
                public_path: v.public_path.clone(),
                reexport: v.reexport.clone(),
            })
        })
        .collect();
    let built = harness::write(&package, &wanted)?;
    let output = cargo::run_harness(&package, &built)?;
    let compiled: BTreeMap<String, Value> =
        serde_json::from_str(output.trim()).context("the compiled harness printed something that is not JSON")?;
    let elapsed = started.elapsed();
    let mut crds = Vec::new();
    let mut notes = Vec::new();
    for mut p in pending {
        for v in &p.versions {
            let k = key(&p.crd.name, &v.version);
            let Some(crd) = compiled.get(&k) else {
                bail!("the compiled harness printed no CRD for {k}; this is a kubesmith bug, please report it");
            };
            let schema = crd.pointer("/spec/versions/0/schema").cloned();
            let versions = p.crd.crd.pointer_mut("/spec/versions").and_then(Value::as_array_mut);
            let Some(target) = versions.and_then(|vs| vs.iter_mut().find(|x| x["name"] == v.version.as_str())) else {
                bail!(
                    "version {} of {} is missing from the static CRD; this is a kubesmith bug",
                    v.version,
                    p.crd.name
                );
            };
            match (schema, target.as_object_mut()) {
                (Some(s), Some(t)) => {
                    t.insert("schema".into(), s);
                }
                (None, Some(t)) => {
                    t.remove("schema");
                }
                _ => {}
            }
        }
        let kind = p.crd.crd.pointer("/spec/names/kind").and_then(Value::as_str).unwrap_or_default().to_string();
        let versions: Vec<&str> = p.versions.iter().map(|v| v.version.as_str()).collect();
        let mut note = format!("note: compiled {kind} ({}) {} for its schema:", p.crd.name, versions.join(", "));
        for v in &p.versions {
            for e in &v.because {
                let path = e.path.strip_prefix(display_root).unwrap_or(&e.path);
                note.push_str(&format!("\n  {}:{}:{}: {}", path.display(), e.line, e.column, e.kind));
            }
        }
        notes.push(note);
        crds.push(p.crd);
    }
    if let Some(pin) = &package.k8s_openapi {
        notes.push(format!(
            "note: {} enables no k8s-openapi version feature of its own; the compiled fallback built it with `{}`, \
             as {} does",
            package.name, pin.feature, pin.from
        ));
    }
    notes.push(format!(
        "note: the compiled fallback ({} kind(s), harness in {}) took {:.1}s; `--no-compile` refuses these kinds \
         instead",
        crds.len(),
        display(&built.dir, display_root).display(),
        elapsed.as_secs_f64()
    ));
    Ok(Compiled { crds, notes })
}

fn key(crd: &str, version: &str) -> String {
    format!("{crd}/{version}")
}

fn display(path: &Path, root: &Path) -> PathBuf {
    path.strip_prefix(root).map(Path::to_path_buf).unwrap_or_else(|_| path.to_path_buf())
}
