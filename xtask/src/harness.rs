//! Throw-away harness crates under `target/`: written fresh, built and run with a shared target folder so
//! the heavy dependencies (k8s-openapi, kube) compile once per feature set.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::root;

/// The corpus' exact dependency set (kube 5.0.0, k8s-openapi 0.29.0, schemars 1.2.3, ...).
pub fn corpus_lock() -> PathBuf {
    root().join("tests/conformance/kube-derive/input-Cargo.lock")
}

/// Writes `files` (relative path, contents) into `dir`, leaving other files (Cargo.lock) alone and
/// skipping files whose contents are unchanged (so cargo's fingerprints stay fresh).
pub fn write_crate(dir: &Path, files: &[(String, String)]) -> Result<()> {
    write_crate_locked(dir, files, &corpus_lock())
}

/// [`write_crate`], seeding a missing Cargo.lock from `lock`.
pub fn write_crate_locked(dir: &Path, files: &[(String, String)], lock: &Path) -> Result<()> {
    for (rel, text) in files {
        let path = dir.join(rel);
        if std::fs::read_to_string(&path).is_ok_and(|old| &old == text) {
            continue;
        }
        std::fs::create_dir_all(path.parent().expect("file in a folder"))?;
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let seeded = dir.join("Cargo.lock");
    if !seeded.exists() {
        std::fs::copy(lock, &seeded)
            .with_context(|| format!("cannot seed {} from {}", seeded.display(), lock.display()))?;
    }
    Ok(())
}

/// `cargo <args>` in `dir` with `target` as the target folder; returns stdout. Build output goes to `log`.
pub fn cargo_in(dir: &Path, target: &Path, args: &[&str], log: &Path) -> Result<String> {
    let started = std::time::Instant::now();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS")
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .with_context(|| format!("cannot run cargo {}", args.join(" ")))?;
    if let Some(p) = log.parent() {
        std::fs::create_dir_all(p)?;
    }
    std::fs::write(log, &out.stderr)?;
    eprintln!(
        "xtask: `cargo {}` in {} took {:.1}s (log: {})",
        args.join(" "),
        dir.display(),
        started.elapsed().as_secs_f64(),
        log.display()
    );
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(40).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        bail!("`cargo {}` failed in {}:\n{}", args.join(" "), dir.display(), tail.join("\n"));
    }
    String::from_utf8(out.stdout).context("harness output is not UTF-8")
}
