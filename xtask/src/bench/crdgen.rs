//! The crdgen route the bench compares kubesmith with: what a kube-rs operator's author runs to get CRDs, a
//! program calling `<Kind>::crd()` for every kind and printing YAML (`examples/crdgen.rs`, built and run by
//! `cargo run --example crdgen` in the dev profile with cargo's defaults: incremental, full debug info). Timed
//! after one field is added to one kind's spec: the incremental build plus the run.
//!
//! The route works in a copy of the scaffolded project, `target/bench/crdgen-<n>/`, pinned by
//! `tests/e2e/operator.Cargo.lock` (and an empty `[workspace]` table: it sits inside kubesmith's), with its own
//! `target/` folder (kept, so the cold build happens once per
//! machine; its time is recorded in `target/bench/crdgen-<n>/cold-build.txt`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use super::measure::{Timed, find_file, timed_prepared};
use super::scaffold::copy_tree;
use crate::root;

/// The copy of the `n`-kind project `dir` set up for the crdgen route, its cold build done.
pub struct Route {
    pub dir: PathBuf,
    /// The cold build's seconds when it happened in this run, else as recorded by the run that did it.
    pub cold_build: Option<(f64, bool)>,
}

pub fn prepare(dir: &Path, n: usize) -> Result<Route> {
    let copy = dir.with_file_name(format!("crdgen-{n}"));
    let done = copy.join(".bench-complete");
    if !done.exists() {
        if copy.exists() {
            std::fs::remove_dir_all(&copy)?;
        }
        copy_tree(dir, &copy, &|p| p.file_name().is_some_and(|f| f == "target"))?;
        std::fs::copy(root().join("tests/e2e/operator.Cargo.lock"), copy.join("Cargo.lock"))
            .context("tests/e2e/operator.Cargo.lock")?;
        std::fs::create_dir_all(copy.join("examples"))?;
        std::fs::write(copy.join("examples/crdgen.rs"), program(dir, n)?)?;
        // Under the repository's `target/`, cargo would take the copy for a member of kubesmith's workspace.
        let manifest = copy.join("Cargo.toml");
        let mut toml = std::fs::read_to_string(&manifest)?;
        toml.push_str("\n[workspace]\n");
        std::fs::write(&manifest, toml)?;
        std::fs::write(&done, "")?;
    }
    let record = copy.join("cold-build.txt");
    let cold_build = if copy.join("target/debug/examples/crdgen").exists() {
        std::fs::read_to_string(&record).ok().and_then(|s| s.trim().parse().ok()).map(|s| (s, false))
    } else {
        eprintln!("(building the crdgen route of {n} kinds from cold: minutes on two cores)");
        let start = Instant::now();
        let out = cargo_run(&copy).output()?;
        if !out.status.success() {
            bail!(
                "the crdgen route's cold build failed in {}:\n{}",
                copy.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let secs = start.elapsed().as_secs_f64();
        std::fs::write(&record, format!("{secs:.1}\n"))?;
        Some((secs, true))
    };
    Ok(Route { dir: copy, cold_build })
}

/// `examples/crdgen.rs`: every kind's `crd()`, printed as a YAML stream.
fn program(dir: &Path, n: usize) -> Result<String> {
    let mut calls = String::new();
    for i in 1..=n {
        let group = format!("g{}", (i - 1) / 10);
        if !dir.join(format!("src/api/{group}/v1/kind{i}.rs")).exists() {
            bail!("no src/api/{group}/v1/kind{i}.rs in {}", dir.display());
        }
        calls.push_str(&format!("        bench::api::{group}::v1::Kind{i}::crd(),\n"));
    }
    Ok(format!(
        "//! Prints the CRD of every kind (the crdgen route of the kubesmith bench).\n\
         use kube::CustomResourceExt;\n\n\
         fn main() {{\n    let crds = [\n{calls}    ];\n    for crd in crds {{\n        \
         print!(\"---\\n{{}}\", serde_yaml_ng::to_string(&crd).expect(\"a CRD is YAML\"));\n    }}\n}}\n"
    ))
}

/// `cargo run --example crdgen` in `dir`, with cargo's own defaults (the bench's caller may have set others).
fn cargo_run(dir: &Path) -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args(["run", "--quiet", "--example", "crdgen"])
        .current_dir(dir)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_INCREMENTAL")
        .env_remove("CARGO_PROFILE_DEV_DEBUG")
        .env_remove("RUSTFLAGS")
        .stdin(Stdio::null());
    cmd
}

/// Wall times of `cargo run --example crdgen` right after a field was added to `Kind1Spec` (each run starts from
/// the built original: the file is restored and built again, untimed, before each run; the last restore is left
/// for the next bench to build). Checks that the program
/// prints `n` CRDs.
pub fn measure_incremental(route: &Route, n: usize, runs: usize) -> Result<Timed> {
    let file = find_file(&route.dir.join("src/api"), "kind1.rs").context("no api kind1.rs")?;
    let original = std::fs::read_to_string(&file)?;
    let anchor = "    pub foo: Option<String>,\n";
    let at = original.find(anchor).context("no `foo` field in Kind1Spec")? + anchor.len();
    let edited = |i: usize| {
        format!(
            "{}    /// A field the bench adds.\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    \
             pub bench_extra{i}: Option<i32>,\n{}",
            &original[..at],
            &original[at..]
        )
    };
    let build = |what: &str| -> Result<String> {
        let out = cargo_run(&route.dir).output()?;
        if !out.status.success() {
            bail!("`cargo run --example crdgen` ({what}) failed:\n{}", String::from_utf8_lossy(&out.stderr));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let result = timed_prepared(
        runs,
        |_| {
            // Unchanged since the last build (of an earlier run of the bench too): cargo has nothing to do.
            if std::fs::read_to_string(&file)? != original {
                std::fs::write(&file, &original)?;
            }
            build("the original").map(drop)
        },
        |i| {
            std::fs::write(&file, edited(i))?;
            let printed = build("a field added")?;
            let crds = printed.matches("kind: CustomResourceDefinition").count();
            if crds != n {
                bail!("the crdgen route printed {crds} CRDs, not {n}");
            }
            Ok(())
        },
    );
    // Left unbuilt: the next run's first build (untimed) catches up.
    std::fs::write(&file, &original)?;
    result
}
