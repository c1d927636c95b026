//! `cargo xtask conformance [--bless]`: compile the kube-derive corpus and compare it live.
//!
//! The work is done by the integration test `conformance_live` (`tests/it/conformance_live.rs`), which CI runs as
//! part of `cargo test --workspace`: it builds a harness crate from `tests/conformance/kube-derive/input-*.rs`
//! with the corpus' exact `Cargo.lock` (kube 5.0.0), runs every binary, checks `out/` holds what they print and
//! that kubesmith's static output equals kube-derive's for every listed sample; the same build holds kube-derive's
//! own test files, read from cargo's registry (`conformance_suite`), whose kinds kubesmith must match and whose
//! compile-fail cases it must refuse. This task runs them (and the static `crd_conformance` tests) even when
//! `KUBESMITH_SKIP_E2E` is set; `--bless` rewrites `out/` instead.

use anyhow::{Result, bail};

use crate::root;

pub fn run(bless: bool) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = std::process::Command::new(cargo);
    cmd.current_dir(root()).args(["test", "--test", "it", "--"]).env_remove("KUBESMITH_SKIP_E2E");
    if bless {
        // Only the live test: the static ones read out/ while it is rewritten.
        cmd.args(["conformance_live", "--nocapture"]).env("KUBESMITH_BLESS", "1");
    } else {
        cmd.arg("conformance").env_remove("KUBESMITH_BLESS");
    }
    if !cmd.status()?.success() {
        bail!("conformance failed");
    }
    if bless {
        std::process::Command::new("git")
            .args(["status", "--short", "--", "tests/conformance"])
            .current_dir(root())
            .status()?;
        println!("blessed: review `git diff tests/conformance` before committing");
    }
    Ok(())
}
