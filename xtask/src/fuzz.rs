//! `cargo xtask fuzz [--time SECONDS] [TARGET...]`: builds the fuzz crate (`fuzz/`) with libFuzzer's coverage
//! instrumentation on stable Rust and runs each target (default: all) for SECONDS (default 60) from its seed corpus.
//!
//! The build is what `cargo fuzz build --sanitizer none` does, without cargo-fuzz or nightly: the sancov LLVM pass
//! through `-Cpasses=sancov-module` and `-Cllvm-args` (stable flags), `--cfg fuzzing`, debug assertions and overflow
//! checks, `--target <host>` so the flags reach neither build scripts nor proc macros, in its own target folder
//! (`target/fuzz/`) so the main build's artifacts are never rebuilt with coverage flags.
//!
//! Each run reads `fuzz/corpus/<target>/` (seeds of its own, never written), the repository files named in
//! [`REPO_SEEDS`] (test inputs and the golden scaffold, copied to `target/fuzz/seeds/<target>/` so the seeds follow
//! them instead of being copies that drift), and keeps what it finds in
//! `target/fuzz/corpus/<target>/`; a crash or hang is written to `target/fuzz/artifacts/<target>/` and fails
//! the command. Reproduce one with `target/fuzz/<host>/release/<target> <file>`.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::root;

/// Every target: `fuzz/fuzz_targets/<name>.rs`, seeds in `fuzz/corpus/<name>/`.
pub const TARGETS: &[&str] =
    &["markers", "crd_generate", "crate_resolve", "project", "bundle_validate", "catalog_validate", "yaml_roundtrip"];

/// Repository files that seed a target: a file, or a folder and a name prefix (every file of it starting so).
const REPO_SEEDS: &[(&str, &str, &str)] = &[
    ("crd_generate", "tests/conformance/kube-derive", "input-"),
    ("crd_generate", "tests/golden/memcached-operator/src/api/v1alpha1/memcached.rs", ""),
    ("markers", "tests/golden/memcached-operator/src/api/v1alpha1/memcached.rs", ""),
    ("markers", "tests/golden/memcached-operator/src/controller/memcached.rs", ""),
    ("markers", "tests/golden/memcached-operator/src/webhook/v1alpha1/memcached/validation.rs", ""),
    (
        "bundle_validate",
        "tests/golden/memcached-operator/config/manifests/bases/memcached-operator.clusterserviceversion.yaml",
        "",
    ),
    ("bundle_validate", "tests/fixtures/olm/operator-sdk-memcached-operator.clusterserviceversion.yaml", ""),
    ("project", "tests/golden/memcached-operator/PROJECT", ""),
];

/// Copies `target`'s [`REPO_SEEDS`] into a fresh `<dir>/`; returns it.
fn repo_seeds(root: &std::path::Path, target: &str, dir: PathBuf) -> Result<PathBuf> {
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut n = 0;
    for (_, path, prefix) in REPO_SEEDS.iter().filter(|(t, ..)| *t == target) {
        let path = root.join(path);
        let files: Vec<PathBuf> = if path.is_dir() {
            let mut found = Vec::new();
            for entry in std::fs::read_dir(&path).with_context(|| format!("cannot list {}", path.display()))? {
                let file = entry?.path();
                if file.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(prefix)) {
                    found.push(file);
                }
            }
            found
        } else {
            vec![path]
        };
        for file in &files {
            let name = file.file_name().context("a seed has no file name")?.to_string_lossy();
            n += 1;
            std::fs::copy(file, dir.join(format!("{n}-{name}")))
                .with_context(|| format!("cannot copy the seed {}", file.display()))?;
        }
    }
    Ok(dir)
}

const RUSTFLAGS: &[&str] = &[
    "-Cpasses=sancov-module",
    "-Cllvm-args=-sanitizer-coverage-level=4",
    "-Cllvm-args=-sanitizer-coverage-inline-8bit-counters",
    "-Cllvm-args=-sanitizer-coverage-pc-table",
    "-Cllvm-args=-sanitizer-coverage-trace-compares",
    "--cfg",
    "fuzzing",
    "-Cdebug-assertions",
    "-Coverflow-checks",
];

pub fn run(args: &[String]) -> Result<()> {
    let mut seconds = 60u64;
    let mut targets = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--time" => {
                let v = it.next().context("--time needs a number of seconds")?;
                seconds = v.parse().with_context(|| format!("--time: `{v}` is not a whole number of seconds"))?;
            }
            t if TARGETS.contains(&t) => targets.push(t),
            other => bail!("unknown fuzz target or option `{other}`; targets: {}", TARGETS.join(", ")),
        }
    }
    if targets.is_empty() {
        targets = TARGETS.to_vec();
    }
    let host = host_triple()?;
    let root = root();
    let target_dir = root.join("target/fuzz");
    build(&host, &target_dir, &targets)?;
    let mut failed = Vec::new();
    for t in &targets {
        let exe = target_dir.join(&host).join("release").join(t);
        let work = target_dir.join("corpus").join(t);
        let artifacts = target_dir.join("artifacts").join(t);
        for d in [&work, &artifacts] {
            std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
        }
        let seeds: PathBuf = root.join("fuzz/corpus").join(t);
        let from_repo = repo_seeds(&root, t, target_dir.join("seeds").join(t))?;
        println!("== fuzz {t} for {seconds} s");
        let status = Command::new(&exe)
            .arg(format!("-max_total_time={seconds}"))
            // One input taking 10 s is a hang; 2 GB is a leak or a blow-up, both findings.
            .arg("-timeout=10")
            .arg("-rss_limit_mb=2048")
            .arg("-max_len=65536")
            .arg("-print_final_stats=1")
            .arg(format!("-artifact_prefix={}/", artifacts.display()))
            .arg(&work)
            .args(seeds.is_dir().then_some(&seeds))
            .arg(&from_repo)
            .current_dir(&root)
            .status()
            .with_context(|| format!("cannot run {}", exe.display()))?;
        if !status.success() {
            eprintln!("fuzz target {t} found a crash or hang: see {}", artifacts.display());
            failed.push(*t);
        }
    }
    if !failed.is_empty() {
        bail!("fuzz targets with findings: {}", failed.join(", "));
    }
    Ok(())
}

fn build(host: &str, target_dir: &std::path::Path, targets: &[&str]) -> Result<()> {
    let root = root();
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args(["build", "--release", "--locked", "--manifest-path"])
        .arg(root.join("fuzz/Cargo.toml"))
        .args(["--target", host, "--target-dir"])
        .arg(target_dir)
        .current_dir(root.join("fuzz"))
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .env("RUSTFLAGS", RUSTFLAGS.join(" "));
    for t in targets {
        cmd.args(["--bin", t]);
    }
    let status = cmd.status().context("cannot run cargo build for the fuzz crate")?;
    if !status.success() {
        bail!("building the fuzz targets failed");
    }
    Ok(())
}

fn host_triple() -> Result<String> {
    let out = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .arg("-vV")
        .output()
        .context("cannot run rustc -vV")?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().find_map(|l| l.strip_prefix("host: ")).map(str::to_string).context("rustc -vV printed no host triple")
}
