//! Developer tasks for kubesmith, run as `cargo xtask <task>`.
//!
//! - `bless`        rewrite the golden files (`tests/golden/`, `docs/markers.md`, the outputs in `docs/guide.md`)
//!   from what kubesmith now produces
//! - `bless --lock` also rebuild a scaffolded operator and refresh `tests/e2e/operator.Cargo.lock`
//! - `ci`           what `.ci/run` does: fmt, clippy, the whole test suite
//! - `k8s-schemas [--check]`  regenerate `data/k8s-schemas/` from k8s-openapi 0.29 (every `v1_*` feature);
//!   `--check` fails if the committed table differs
//! - `k8s-resources [--check]`  regenerate `data/k8s-resources.tsv` (group, version, kind, plural, scope of every
//!   k8s-openapi 0.29 resource type) from the crate's source; `--check` fails if the committed table differs
//! - `conformance [--bless]`  compile the kube-derive corpus (`tests/conformance/kube-derive/input-*.rs`) and
//!   kube-derive's own tests (from cargo's registry), compare every `crd()` with kubesmith's static output and
//!   run kube-derive's compile-fail cases through `make manifests`; `--bless` rewrites the expected files
//! - `bench`        `init` and `create api` wall and CPU time; `make manifests` wall time and peak memory on
//!   generated projects of 1, 10, 100 and 500 kinds and on real kopium output (`realworld`'s wide crate and a
//!   5.7 MB subset), against the crdgen route (`cargo run` of a program printing every `crd()`) and the goals of
//!   issues 28 and 45 (see `xtask/src/bench.rs`)
//! - `fuzz [--time SECONDS] [TARGET...]`  build the libFuzzer targets of `fuzz/` (stable Rust, own target folder)
//!   and run each (default: all) for SECONDS (default 60) from its seed corpus `fuzz/corpus/<target>/`
//! - `realworld --mirrors DIR [--only NAME,..]`  kubesmith's reading features measured on public projects at
//!   pinned commits (the recipe in `xtask/realworld/`, extracted from git mirrors in DIR); writes `docs/realworld.md`

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context, Result, bail};

mod bench;
mod conformance;
mod fuzz;
mod harness;
mod k8s_resources;
mod k8s_schemas;
mod kopium_crate;
mod realworld;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("bless") => bless(args.iter().any(|a| a == "--lock")),
        Some("ci") => ci(),
        Some("k8s-schemas") => k8s_schemas::run(args.iter().any(|a| a == "--check")),
        Some("k8s-resources") => k8s_resources::run(args.iter().any(|a| a == "--check")),
        Some("conformance") => conformance::run(args.iter().any(|a| a == "--bless")),
        Some("bench") => bench::run(&args[1..]),
        Some("fuzz") => fuzz::run(&args[1..]),
        Some("realworld") => realworld::run(&args[1..]),
        _ => {
            eprintln!(
                "usage: cargo xtask <bless [--lock] | ci | k8s-schemas [--check] | k8s-resources [--check] | conformance [--bless] | bench [--runs N] [--kinds 1,10,100,500] [--scaffold-only] [--exe PATH] [--crdgen-runs N] [--crdgen-kinds 100] [--no-crdgen] [--no-wide] [--wide-crate DIR] [--wide-runs N] [--instructions] | fuzz [--time SECONDS] [TARGET...] | realworld --mirrors DIR [--only NAME,..] [--skip SECTION,..] [--exe PATH] [--kopium PATH]>"
            );
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the repository").to_path_buf()
}

fn cargo(args: &[&str], envs: &[(&str, &str)]) -> Result<()> {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args(args).current_dir(root());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let status = cmd.status().with_context(|| format!("cannot run cargo {}", args.join(" ")))?;
    if !status.success() {
        bail!("`cargo {}` failed", args.join(" "));
    }
    Ok(())
}

fn bless(lock: bool) -> Result<()> {
    // `golden` also selects `golden_markers_doc`, which rewrites `docs/markers.md`, and `golden_guide_transcript`,
    // which rewrites the command outputs in `docs/guide.md`.
    let mut filter = vec!["test", "--test", "it", "--", "golden"];
    if lock {
        filter.push("e2e");
    }
    cargo(&filter, &[("KUBESMITH_BLESS", "1")])?;
    let status = Command::new("git")
        .args(["status", "--short", "--", "tests/", "docs/markers.md", "docs/guide.md"])
        .current_dir(root())
        .status()?;
    if !status.success() {
        bail!("git status failed");
    }
    println!(
        "blessed: review the changes above with `git diff tests/ docs/markers.md docs/guide.md` before committing"
    );
    Ok(())
}

fn ci() -> Result<()> {
    cargo(&["fmt", "--all", "--check"], &[])?;
    cargo(&["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"], &[])?;
    cargo(&["test", "--workspace", "--locked"], &[])
}
