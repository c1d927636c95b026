//! Developer tasks for kubesmith, run as `cargo xtask <task>`.
//!
//! - `bless`        rewrite the golden files (`tests/golden/`) from what kubesmith now produces
//! - `bless --lock` also rebuild a scaffolded operator and refresh `tests/e2e/operator.Cargo.lock`
//! - `ci`           what `.ci/run` does: fmt, clippy, the whole test suite

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context, Result, bail};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("bless") => bless(args.iter().any(|a| a == "--lock")),
        Some("ci") => ci(),
        _ => {
            eprintln!("usage: cargo xtask <bless [--lock] | ci>");
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

fn root() -> PathBuf {
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
    let mut filter = vec!["test", "--test", "it", "--", "golden"];
    if lock {
        filter.push("e2e");
    }
    cargo(&filter, &[("KUBESMITH_BLESS", "1")])?;
    let status = Command::new("git").args(["status", "--short", "--", "tests/"]).current_dir(root()).status()?;
    if !status.success() {
        bail!("git status failed");
    }
    println!("blessed: review the changes above with `git diff tests/` before committing");
    Ok(())
}

fn ci() -> Result<()> {
    cargo(&["fmt", "--all", "--check"], &[])?;
    cargo(&["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"], &[])?;
    cargo(&["test", "--workspace", "--locked"], &[])
}
