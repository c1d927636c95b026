//! `cargo xtask bench [--runs N] [--kinds 1,10,100]`: how long `kubesmith make manifests` takes, and how much memory
//! it needs, on generated projects with 1, 10 and 100 kinds. A harness that prints figures, not a timed test.
//!
//! It builds kubesmith in release mode, scaffolds each project under `target/bench/` (`kubesmith init` and one
//! `kubesmith create api` per kind, every kind with a status holding `Vec<Condition>`), runs `make manifests` once
//! to write the manifests, then N more times and reports the median and minimum wall time of those runs (files
//! already up to date: the steady state of a developer's edit-generate loop) and the peak resident set size of
//! one more run, measured by `/usr/bin/time -f %M` when present (which also gives that run's CPU time, a figure
//! less disturbed by other load on the machine), else by polling `/proc/<pid>/status` (VmHWM).
//! The aim is under 50 ms for 100 kinds.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::root;

pub fn run(args: &[String]) -> Result<()> {
    let mut runs = 20usize;
    let mut kinds = vec![1usize, 10, 100];
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runs" => runs = it.next().context("--runs N")?.parse()?,
            "--kinds" => {
                kinds = it.next().context("--kinds 1,10,100")?.split(',').map(str::parse).collect::<Result<_, _>>()?
            }
            other => bail!("unknown argument {other}; usage: cargo xtask bench [--runs N] [--kinds 1,10,100]"),
        }
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--release", "--quiet", "-p", "kubesmith", "--bin", "kubesmith"])
        .current_dir(root())
        .status()?;
    if !status.success() {
        bail!("cargo build --release failed");
    }
    let exe = root().join("target/release/kubesmith");
    let base = root().join("target/bench");
    println!("kubesmith make manifests, {runs} runs each (release build, files up to date)\n");
    println!("| kinds | CRDs | median | min | max | CPU (user+sys) | peak RSS |");
    println!("|------:|-----:|-------:|----:|----:|---------------:|---------:|");
    for n in kinds {
        let dir = scaffold(&exe, &base, n)?;
        run_ok(&exe, &dir, &["make", "manifests"])?;
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs {
            let t = Instant::now();
            run_ok(&exe, &dir, &["make", "manifests"])?;
            times.push(t.elapsed());
        }
        times.sort();
        let crds = std::fs::read_dir(dir.join("config/crd/bases"))?.count();
        let (rss, cpu) = peak_rss_kib(&exe, &dir)?;
        println!(
            "| {n} | {crds} | {} | {} | {} | {} | {} |",
            ms(times[times.len() / 2]),
            ms(times[0]),
            ms(times[times.len() - 1]),
            cpu.map(|s| format!("{:.0} ms", s * 1000.0)).unwrap_or_else(|| "n/a".into()),
            rss.map(|k| format!("{:.1} MiB", k as f64 / 1024.0)).unwrap_or_else(|| "n/a".into())
        );
    }
    Ok(())
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn run_ok(exe: &Path, dir: &Path, args: &[&str]) -> Result<()> {
    let out = Command::new(exe).args(args).current_dir(dir).output()?;
    if !out.status.success() {
        bail!("`kubesmith {}` failed in {}:\n{}", args.join(" "), dir.display(), String::from_utf8_lossy(&out.stderr));
    }
    Ok(())
}

/// A multigroup project with `n` kinds (`Kind1` .. `Kind<n>`) in groups of ten, reused when already there.
fn scaffold(exe: &Path, base: &Path, n: usize) -> Result<PathBuf> {
    let dir = base.join(format!("kinds-{n}"));
    let done = dir.join(".bench-complete");
    if done.exists() {
        return Ok(dir);
    }
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    run_ok(exe, &dir, &["init", "--domain", "bench.example.com", "--project-name", "bench", "--multigroup"])?;
    for i in 1..=n {
        let group = format!("g{}", (i - 1) / 10);
        let kind = format!("Kind{i}");
        run_ok(
            exe,
            &dir,
            &["create", "api", "--group", &group, "--version", "v1", "--kind", &kind, "--resource", "--controller"],
        )?;
    }
    std::fs::write(done, "")?;
    Ok(dir)
}

/// Peak resident set size of one `make manifests` run in KiB, and its CPU seconds (user + sys) when known.
fn peak_rss_kib(exe: &Path, dir: &Path) -> Result<(Option<u64>, Option<f64>)> {
    let time = Path::new("/usr/bin/time");
    if time.exists() {
        let out = Command::new(time)
            .args(["-f", "%M %U %S"])
            .arg(exe)
            .args(["make", "manifests"])
            .current_dir(dir)
            .stdout(Stdio::null())
            .output()?;
        let err = String::from_utf8_lossy(&out.stderr);
        let last: Vec<&str> = err.lines().last().unwrap_or_default().split(' ').collect();
        let num = |i: usize| last.get(i).and_then(|v| v.parse::<f64>().ok());
        let cpu = num(1).zip(num(2)).map(|(u, s)| u + s);
        return Ok((last.first().and_then(|v| v.parse().ok()), cpu));
    }
    // Fallback: poll the high-water mark until the process exits (may miss the last milliseconds).
    let mut child = Command::new(exe)
        .args(["make", "manifests"])
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let status = format!("/proc/{}/status", child.id());
    let mut peak = None;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status) {
            let hwm = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
            if hwm.is_some() {
                peak = hwm.max(peak);
            }
        }
        if child.try_wait()?.is_some() {
            return Ok((peak, None));
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}
