//! `cargo xtask bench`: how long `kubesmith make manifests` takes, and how much memory it needs, on generated
//! projects and on real kopium output, against the goals of issues 28 (speed at scale) and 45 (real kopium output).
//! A harness that prints figures, not a timed test.
//!
//! It builds kubesmith in release mode and scaffolds multigroup projects of 1, 10, 100 and 500 kinds under
//! `target/bench/` (`kubesmith init` and one `kubesmith create api` per kind, every kind with a status holding
//! `Vec<Condition>` and a controller with RBAC markers; cached, see `bench/scaffold.rs`). Each project gets an
//! (empty) `target/` folder, as a crate that has been built has: kubesmith keeps the cache of its RBAC inference
//! there. The tables, in order:
//!
//! - `init`, `create api` and `cargo new` (the regenerate check's yardstick), a new project each run in the
//!   system's temporary folder; `--scaffold-only` prints this table alone;
//! - `make manifests` per project, files up to date (the steady state of an edit–generate loop): median, min and
//!   max wall time of N runs after a warm-up, mean CPU time (user + sys from the children's times in
//!   `/proc/self/stat`: less disturbed by other load than wall time; CPU / wall above 1 means both cores
//!   worked), peak RSS of one more run (`/usr/bin/time -f %M`, else polling `/proc/<pid>/status`); then the
//!   500/100 growth;
//! - `make manifests` after an edit of one controller (a statement added to, then removed from, a fn body);
//! - the 100-kind project's RBAC share and first run: `make manifests --check` with `target/` present and with no
//!   `target/` folder (removed before each run: CI's `make manifests --check` before any build), and `make
//!   manifests` on a copy whose controllers carry no RBAC markers (CRD generation alone, no drift check);
//! - `kubesmith rbac infer` on the projects and on `tests/fixtures/rbac-infer/orchard`;
//! - the crdgen route (`bench/crdgen.rs`): `cargo run --example crdgen` after one field is added, its median
//!   against kubesmith's, in the same run; `--no-crdgen` skips it (the cold build takes minutes);
//! - real kopium output (`bench/kopium.rs`, `kopium_crate.rs`): `make manifests --source src --no-compile
//!   --keep-going --crd-dir OUT` (as `cargo xtask realworld` runs it; OUT removed before each run) on the wide
//!   crate `cargo xtask realworld` makes at `target/realworld/wide` (kopium's output of every CRD of its recipe,
//!   ~22 MB of Rust; `--wide-crate DIR` names another, `--wide-runs N` its runs, default 5) and on a crate of four
//!   of its projects' output, 5.7 MB (`kopium::SUBSET`, written to `target/bench/kopium-subset`, N runs): median,
//!   min, max, mean CPU and peak RSS (`/usr/bin/time`), the CRDs written and their sizes; beside each, its
//!   parse-only floor (`bench/floor.rs`): read + `syn::parse_file` of every `.rs` file on one thread and on every
//!   core, and read + proc-macro2 tokenize on one thread, timed in-process by a helper program built with `cargo
//!   build --release` (kubesmith's syn, proc-macro2 features and allocator; `target/bench/parse-floor`), and
//!   `make manifests` over the floor (the least wall and the least CPU time of the parse passes; issue 45's goal:
//!   ≤ 2× on the wide crate). Without the wide crate
//!   the section prints the command line that makes it (`cargo xtask realworld --mirrors DIR --skip
//!   kinds,fromcrd,kopium,rbac,adopt`) and is skipped; `--no-wide` skips it;
//! - with `--instructions`, instructions per kind under callgrind (valgrind) for 100, 200 and 500 kinds, and on
//!   the 5.7 MB kopium subset;
//! - a summary: each goal of issues 28 and 45, the measured value, met or not (`bench/summary.rs`).
//!
//! `--exe PATH` measures that binary instead of building one (to compare two builds the same way).

mod crdgen;
mod floor;
mod kopium;
mod measure;
mod scaffold;
mod summary;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::root;
use measure::{instructions, measure, measure_after_edit, measure_prepared, mib, ms, run_ok};
use scaffold::{measure_scaffolding, scaffold, without_rbac};
use summary::{Fig, Summary};

const USAGE: &str = "usage: cargo xtask bench [--runs N] [--kinds 1,10,100,500] [--scaffold-only] [--exe PATH] \
                     [--crdgen-runs N] [--crdgen-kinds 100] [--no-crdgen] [--no-wide] [--wide-crate DIR] [--wide-runs N] \
                     [--instructions]";

struct Options {
    runs: usize,
    kinds: Vec<usize>,
    scaffold_only: bool,
    exe: Option<PathBuf>,
    crdgen_runs: usize,
    crdgen_kinds: Vec<usize>,
    wide: bool,
    wide_crate: PathBuf,
    wide_runs: usize,
    instructions: bool,
}

fn list(value: Option<&String>, what: &str) -> Result<Vec<usize>> {
    value.with_context(|| format!("{what} LIST"))?.split(',').map(|n| Ok(n.parse()?)).collect()
}

fn options(args: &[String]) -> Result<Options> {
    let mut o = Options {
        runs: 20,
        kinds: vec![1, 10, 100, 500],
        scaffold_only: false,
        exe: None,
        crdgen_runs: 3,
        crdgen_kinds: vec![100],
        wide: true,
        wide_crate: crate::kopium_crate::wide_dir(),
        wide_runs: 5,
        instructions: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runs" => o.runs = it.next().context("--runs N")?.parse()?,
            "--kinds" => o.kinds = list(it.next(), "--kinds")?,
            "--scaffold-only" => o.scaffold_only = true,
            "--exe" => o.exe = Some(PathBuf::from(it.next().context("--exe PATH")?)),
            "--crdgen-runs" => o.crdgen_runs = it.next().context("--crdgen-runs N")?.parse()?,
            "--crdgen-kinds" => o.crdgen_kinds = list(it.next(), "--crdgen-kinds")?,
            "--no-crdgen" => o.crdgen_kinds.clear(),
            "--no-wide" => o.wide = false,
            "--wide-crate" => o.wide_crate = PathBuf::from(it.next().context("--wide-crate DIR")?),
            "--wide-runs" => o.wide_runs = it.next().context("--wide-runs N")?.parse()?,
            "--instructions" => o.instructions = true,
            other => bail!("unknown argument {other}; {USAGE}"),
        }
    }
    if o.runs == 0 || o.crdgen_runs == 0 || o.wide_runs == 0 {
        bail!("--runs, --crdgen-runs and --wide-runs must be at least 1");
    }
    Ok(o)
}

pub fn run(args: &[String]) -> Result<()> {
    let o = options(args)?;
    let exe = match &o.exe {
        Some(exe) => std::path::absolute(exe)?,
        None => {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let status = Command::new(cargo)
                .args(["build", "--release", "--quiet", "-p", "kubesmith", "--bin", "kubesmith"])
                .current_dir(root())
                .status()?;
            if !status.success() {
                bail!("cargo build --release failed");
            }
            root().join("target/release/kubesmith")
        }
    };
    let base = root().join("target/bench");
    let runs = o.runs;
    print_load("load average at the start");
    println!();
    measure_scaffolding(&exe, runs)?;
    if o.scaffold_only {
        return Ok(());
    }
    let mut summary = Summary::default();
    println!();
    println!("kubesmith make manifests, {runs} runs each (release build, files up to date)");
    println!();
    println!("| kinds | CRDs | median | min | max | CPU (user+sys, mean) | CPU / wall | peak RSS |");
    println!("|------:|-----:|-------:|----:|----:|---------------:|---------:|---------:|");
    let mut dirs = Vec::new();
    for &n in &o.kinds {
        let dir = scaffold(&exe, &base, n)?;
        std::fs::create_dir_all(dir.join("target"))?;
        run_ok(&exe, &dir, &["make", "manifests"])?;
        let crds = std::fs::read_dir(dir.join("config/crd/bases"))?.count();
        let m = measure(&exe, &dir, &["make", "manifests"], runs)?;
        println!(
            "| {n} | {crds} | {} | {} | {} |",
            m.timed.row(),
            cores(&m.timed),
            m.rss_kib.map(mib).unwrap_or_default()
        );
        summary.kinds.push((n, Fig::of(&m.timed)));
        dirs.push((n, dir));
    }
    if let Some((wall, on_cpu)) = summary.growth() {
        println!();
        let on_cpu = on_cpu.map(|r| format!("; CPU means: {r:.2}")).unwrap_or_default();
        println!("500/100 time ratio: {wall:.2} (medians; goal ≤ 5.5){on_cpu}");
    }
    println!();
    println!("kubesmith make manifests after an edit of one controller, {runs} runs each");
    println!();
    println!("| kinds | median | min | max | CPU (user+sys, mean) |");
    println!("|------:|-------:|----:|----:|---------------:|");
    for (n, dir) in &dirs {
        println!("| {n} | {} |", measure_after_edit(&exe, dir, runs)?.row());
    }
    if let Some((_, dir)) = dirs.iter().find(|(n, _)| *n == 100) {
        println!();
        rbac_share_and_first_run(&exe, dir, runs, &mut summary)?;
    }
    println!();
    println!("kubesmith rbac infer, {runs} runs each");
    println!();
    println!("| sources | median | min | max | CPU (user+sys, mean) | peak RSS |");
    println!("|--------|-------:|----:|----:|---------------:|---------:|");
    for (n, dir) in &dirs {
        println!("| {n} kinds | {} |", measure(&exe, dir, &["rbac", "infer"], runs)?.row());
    }
    let orchard = root().join("tests/fixtures/rbac-infer/orchard");
    let args = ["rbac", "infer", "--source", "crates/orchard-types/src", "--source", "crates/orchard-controller/src"];
    println!("| orchard fixture | {} |", measure(&exe, &orchard, &args, runs)?.row());
    if !o.crdgen_kinds.is_empty() {
        println!();
        crdgen_table(&exe, &base, &o, &mut summary)?;
    }
    if o.wide {
        println!();
        let wide = std::path::absolute(&o.wide_crate)?;
        kopium::tables(&exe, &base, &wide, runs, o.wide_runs, o.instructions, &mut summary)?;
    }
    if o.instructions {
        println!();
        instruction_counts(&exe, &base)?;
    }
    println!();
    print_load("load average at the end");
    println!();
    summary.print();
    Ok(())
}

fn print_load(what: &str) {
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        let load: Vec<&str> = load.split_whitespace().take(3).collect();
        println!("{what}: {} (cores: {})", load.join(" "), std::thread::available_parallelism().map_or(0, |n| n.get()));
    }
}

fn cores(t: &measure::Timed) -> String {
    t.cores_used().map(|c| format!("{c:.2}")).unwrap_or_else(|| "n/a".into())
}

/// The 100-kind project with and without `target/`, and its copy without RBAC markers.
fn rbac_share_and_first_run(exe: &Path, dir: &Path, runs: usize, summary: &mut Summary) -> Result<()> {
    let target = dir.join("target");
    let no_rbac = without_rbac(dir)?;
    std::fs::create_dir_all(no_rbac.join("target"))?;
    println!("100 kinds: the RBAC drift check's share and the first run without target/, {runs} runs each");
    println!();
    println!("| run | median | min | max | CPU (user+sys, mean) | peak RSS |");
    println!("|-----|-------:|----:|----:|---------------:|---------:|");
    let full = measure(exe, dir, &["make", "manifests"], runs)?;
    println!("| `make manifests` (RBAC markers, target/ present) | {} |", full.row());
    let alone = measure(exe, &no_rbac, &["make", "manifests"], runs)?;
    println!("| `make manifests`, controllers without RBAC markers (CRDs alone) | {} |", alone.row());
    let check = measure(exe, dir, &["make", "manifests", "--check"], runs)?;
    println!("| `make manifests --check`, target/ present | {} |", check.row());
    let remove = || -> Result<()> {
        if target.exists() {
            std::fs::remove_dir_all(&target).with_context(|| format!("cannot remove {}", target.display()))?;
        }
        Ok(())
    };
    let cold = measure_prepared(exe, dir, &["make", "manifests", "--check"], runs, remove);
    std::fs::create_dir_all(&target)?;
    run_ok(exe, dir, &["make", "manifests"])?;
    let cold = cold?;
    println!("| `make manifests --check`, no target/ folder (CI before any build) | {} |", cold.row());
    let share = full.median().as_secs_f64() / alone.median().as_secs_f64() - 1.0;
    println!();
    println!("RBAC drift check share (medians, with markers / without − 1): {:+.1} % (goal ≤ +10 %)", share * 100.0);
    println!(
        "first run without target/ vs with (`--check` medians): {} vs {} ({:+.1} %)",
        ms(cold.median()),
        ms(check.median()),
        (cold.median().as_secs_f64() / check.median().as_secs_f64() - 1.0) * 100.0
    );
    summary.rbac = Some((Fig::of(&full.timed), Fig::of(&alone.timed)));
    summary.first_run = Some((Fig::of(&cold.timed), Fig::of(&check.timed)));
    Ok(())
}

/// The crdgen route against kubesmith, per project size, in this run.
fn crdgen_table(exe: &Path, base: &Path, o: &Options, summary: &mut Summary) -> Result<()> {
    let runs = o.crdgen_runs;
    let mut rows = Vec::new();
    for &n in &o.crdgen_kinds {
        let dir = scaffold(exe, base, n)?;
        let route = crdgen::prepare(&dir, n)?;
        let incremental = crdgen::measure_incremental(&route, n, runs)?;
        // kubesmith on the same copy (Cargo.lock and a built target/ folder, as the author's project has them)
        // and on the bench project.
        let copy = measure(exe, &route.dir, &["make", "manifests"], o.runs)?;
        let plain = match summary.kinds.iter().find(|(k, _)| *k == n) {
            Some((_, fig)) => *fig,
            None => Fig::of(&measure(exe, &dir, &["make", "manifests"], o.runs)?.timed),
        };
        rows.push((n, route, incremental, copy, plain));
    }
    println!(
        "the crdgen route: `cargo run --example crdgen` (dev profile, cargo's defaults) after one field is added to \
         one kind's spec, {runs} runs (build + run), against kubesmith make manifests in the same run"
    );
    println!();
    println!(
        "| kinds | crdgen median | min | max | crdgen CPU | kubesmith (same copy) | ratio | CPU ratio | kubesmith (bench \
         project) | ratio | cold build |"
    );
    println!("|------:|------:|----:|----:|------:|------:|------:|------:|------:|------:|------:|");
    for (n, route, incremental, copy, plain) in rows {
        let crdgen = incremental.median().as_secs_f64();
        let cold = match route.cold_build {
            Some((s, true)) => format!("{s:.1} s (this run)"),
            Some((s, false)) => format!("{s:.1} s (an earlier run)"),
            None => "n/a".into(),
        };
        let cpu_ratio = incremental.cpu.zip(copy.timed.cpu).filter(|(_, k)| *k > 0.0).map(|(c, k)| c / k);
        println!(
            "| {n} | {} | {} | {} | {} | {} | {:.0}× | {} | {} | {:.0}× | {cold} |",
            ms(incremental.median()),
            ms(incremental.times[0]),
            ms(incremental.times[incremental.times.len() - 1]),
            incremental.cpu.map(|c| format!("{c:.2} s")).unwrap_or_else(|| "n/a".into()),
            ms(copy.median()),
            crdgen / copy.median().as_secs_f64(),
            cpu_ratio.map(|r| format!("{r:.0}×")).unwrap_or_else(|| "n/a".into()),
            ms(Duration::from_secs_f64(plain.wall)),
            crdgen / plain.wall,
        );
        summary.crdgen.push((n, Fig::of(&incremental), Fig::of(&copy.timed)));
    }
    Ok(())
}

/// Instructions per kind for 100, 200 and 500 kinds (callgrind; nothing when valgrind is missing).
fn instruction_counts(exe: &Path, base: &Path) -> Result<()> {
    println!("kubesmith make manifests instructions (valgrind --tool=callgrind), files up to date");
    println!();
    println!("| kinds | instructions | per kind |");
    println!("|------:|-------------:|---------:|");
    for n in [100, 200, 500] {
        let dir = scaffold(exe, base, n)?;
        std::fs::create_dir_all(dir.join("target"))?;
        run_ok(exe, &dir, &["make", "manifests"])?;
        match instructions(exe, &dir, &["make", "manifests"])? {
            Some(count) => {
                println!("| {n} | {:.1} M | {:.2} M |", count as f64 / 1e6, count as f64 / 1e6 / n as f64)
            }
            None => {
                println!("(valgrind is not installed: no instruction counts)");
                break;
            }
        }
    }
    Ok(())
}
