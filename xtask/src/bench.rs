//! `cargo xtask bench [--runs N] [--kinds 1,10,100]`: how long `kubesmith make manifests` takes, and how much memory
//! it needs, on generated projects with 1, 10 and 100 kinds. A harness that prints figures, not a timed test.
//!
//! It builds kubesmith in release mode, scaffolds each project under `target/bench/` (`kubesmith init` and one
//! `kubesmith create api` per kind, every kind with a status holding `Vec<Condition>`), runs `make manifests` once
//! to write the manifests, then N more times and reports the median and minimum wall time of those runs (files
//! already up to date: the steady state of a developer's edit-generate loop) and the peak resident set size of
//! one more run, measured by `/usr/bin/time -f %M` when present, else by polling `/proc/<pid>/status` (VmHWM).
//! CPU time (user + sys, a figure less disturbed by other load on the machine than wall time) is the mean over
//! the N runs, from the children's times in `/proc/self/stat` (1/100 s ticks summed over all runs, so the mean
//! is finer than one run's 10 ms resolution). The load average is printed with the table.
//! The aim is under 50 ms for 100 kinds.
//!
//! Every project gets an (empty) `target/` folder, as a crate that has been built has: kubesmith keeps the cache of
//! its RBAC inference there. A second table measures the edit–generate loop after an edit: before each of the N
//! runs, one controller (`kind1.rs`) is modified (a statement added to, then removed from, a fn body).
//!
//! The first table times scaffolding: `kubesmith init` and `kubesmith create api` (one kind) in a new project each run
//! (in the system's temporary folder, `rustfmt` included: most of their time), and `cargo new` for reference, the
//! yardstick of the regenerate check (init at most twice `cargo new`). `--scaffold-only` prints that table alone;
//! `--exe PATH` measures that binary instead of building one (to compare two builds the same way).
//!
//! A third table times `kubesmith rbac infer` (the RBAC inference `make manifests` runs as its drift check when the
//! sources hold RBAC markers) on the same projects and on the workspace fixture `tests/fixtures/rbac-infer/orchard`,
//! whose operator makes every kind of API call inference reads.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::root;

pub fn run(args: &[String]) -> Result<()> {
    let mut runs = 20usize;
    let mut kinds = vec![1usize, 10, 100];
    let mut scaffold_only = false;
    let mut exe = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runs" => runs = it.next().context("--runs N")?.parse()?,
            "--kinds" => {
                kinds = it.next().context("--kinds 1,10,100")?.split(',').map(str::parse).collect::<Result<_, _>>()?
            }
            "--scaffold-only" => scaffold_only = true,
            "--exe" => exe = Some(PathBuf::from(it.next().context("--exe PATH")?)),
            other => bail!(
                "unknown argument {other}; usage: cargo xtask bench [--runs N] [--kinds 1,10,100] [--scaffold-only] \
                 [--exe PATH]"
            ),
        }
    }
    if runs == 0 {
        bail!("--runs must be at least 1");
    }
    let exe = match exe {
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
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        let load: Vec<&str> = load.split_whitespace().take(3).collect();
        println!(
            "load average {} (cores: {})",
            load.join(" "),
            std::thread::available_parallelism().map_or(0, |n| n.get())
        );
    }
    println!();
    measure_scaffolding(&exe, runs)?;
    if scaffold_only {
        return Ok(());
    }
    println!();
    println!("kubesmith make manifests, {runs} runs each (release build, files up to date)");
    println!();
    println!("| kinds | CRDs | median | min | max | CPU (user+sys, mean) | peak RSS |");
    println!("|------:|-----:|-------:|----:|----:|---------------:|---------:|");
    let mut dirs = Vec::new();
    for n in kinds {
        let dir = scaffold(&exe, &base, n)?;
        std::fs::create_dir_all(dir.join("target"))?;
        run_ok(&exe, &dir, &["make", "manifests"])?;
        let crds = std::fs::read_dir(dir.join("config/crd/bases"))?.count();
        println!("| {n} | {crds} | {} |", measure(&exe, &dir, &["make", "manifests"], runs)?);
        dirs.push((n.to_string(), dir));
    }
    println!();
    println!("kubesmith make manifests after an edit of one controller, {runs} runs each");
    println!();
    println!("| kinds | median | min | max | CPU (user+sys, mean) |");
    println!("|------:|-------:|----:|----:|---------------:|");
    for (n, dir) in &dirs {
        println!("| {n} | {} |", measure_after_edit(&exe, dir, runs)?);
    }
    println!();
    println!("kubesmith rbac infer, {runs} runs each");
    println!();
    println!("| sources | median | min | max | CPU (user+sys, mean) | peak RSS |");
    println!("|--------|-------:|----:|----:|---------------:|---------:|");
    for (n, dir) in &dirs {
        println!("| {n} kinds | {} |", measure(&exe, dir, &["rbac", "infer"], runs)?);
    }
    let orchard = root().join("tests/fixtures/rbac-infer/orchard");
    let args = ["rbac", "infer", "--source", "crates/orchard-types/src", "--source", "crates/orchard-controller/src"];
    println!("| orchard fixture | {} |", measure(&exe, &orchard, &args, runs)?);
    Ok(())
}

/// The scaffolding table: `kubesmith init` and `kubesmith create api` in a new project each run, and `cargo new` (the
/// `cargo` on the `PATH`, as the regenerate check runs it) for reference; each after one warm-up run, all in the
/// system's temporary folder.
fn measure_scaffolding(exe: &Path, runs: usize) -> Result<()> {
    // Outside the repository: its rustfmt.toml would format the projects (rustfmt looks for one from the working
    // folder upward), and `cargo new` inside a workspace adds the package to its members.
    let dir = std::env::temp_dir().join(format!("kubesmith-bench-scaffold-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let result = scaffolding_times(exe, &dir, runs);
    std::fs::remove_dir_all(&dir)?;
    let (init_times, api_times, new_times) = result?;
    println!(
        "kubesmith init and create api, {runs} runs each (release build, a new project each run in {}, rustfmt where a \
         file needs it; TMPDIR chooses the file system)",
        std::env::temp_dir().display()
    );
    println!();
    println!("| command | median | min | max | CPU (user+sys, mean) |");
    println!("|---------|-------:|----:|----:|---------------:|");
    println!("| `kubesmith init` | {} |", init_times.row());
    println!("| `kubesmith create api` | {} |", api_times.row());
    println!("| `cargo new` (reference) | {} |", new_times.row());
    println!();
    println!(
        "init / cargo new (medians): {:.2}× (the regenerate check wants at most 2×)",
        init_times.median().as_secs_f64() / new_times.median().as_secs_f64()
    );
    Ok(())
}

/// Wall and CPU times of `init`, `create api` and `cargo new`, projects in `dir`.
fn scaffolding_times(exe: &Path, dir: &Path, runs: usize) -> Result<(Timed, Timed, Timed)> {
    let project = |i: usize| dir.join(format!("p{i}"));
    let init = ["init", "--domain", "example.com", "--project-name", "p"];
    let api = ["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"];
    for i in 0..=runs {
        std::fs::create_dir_all(project(i))?;
    }
    let cargo_new = |i: usize| -> Result<()> {
        let target = dir.join(format!("c{i}"));
        let status = Command::new("cargo").args(["new", "-q", "--vcs", "none"]).arg(&target).status()?;
        if !status.success() {
            bail!("`cargo new {}` failed", target.display());
        }
        Ok(())
    };
    // Warm-up: project and package `runs` are made before the measured ones.
    run_ok(exe, &project(runs), &init)?;
    run_ok(exe, &project(runs), &api)?;
    cargo_new(runs)?;
    let init_times = timed(runs, |i| run_ok(exe, &project(i), &init))?;
    let api_times = timed(runs, |i| run_ok(exe, &project(i), &api))?;
    let new_times = timed(runs, cargo_new)?;
    Ok((init_times, api_times, new_times))
}

/// Wall times of `runs` runs of `run(i)` and their mean CPU time (this process' waited-for children).
struct Timed {
    times: Vec<Duration>,
    cpu: Option<f64>,
}

impl Timed {
    fn median(&self) -> Duration {
        self.times[self.times.len() / 2]
    }

    /// `median | min | max | CPU`.
    fn row(&self) -> String {
        format!(
            "{} | {} | {} | {}",
            ms(self.median()),
            ms(self.times[0]),
            ms(self.times[self.times.len() - 1]),
            self.cpu.map(|s| format!("{:.1} ms", s * 1000.0)).unwrap_or_else(|| "n/a".into()),
        )
    }
}

fn timed(runs: usize, mut run: impl FnMut(usize) -> Result<()>) -> Result<Timed> {
    let mut times = Vec::with_capacity(runs);
    let cpu_before = children_cpu_ticks();
    for i in 0..runs {
        let t = Instant::now();
        run(i)?;
        times.push(t.elapsed());
    }
    let cpu = cpu_before.zip(children_cpu_ticks()).map(|(a, b)| (b - a) as f64 / 100.0 / runs as f64);
    times.sort();
    Ok(Timed { times, cpu })
}

/// `median | min | max | CPU | peak RSS` of `kubesmith <args>` in `dir` over `runs` runs (after one warm-up).
fn measure(exe: &Path, dir: &Path, args: &[&str], runs: usize) -> Result<String> {
    run_ok(exe, dir, args)?;
    let mut times = Vec::with_capacity(runs);
    let cpu_before = children_cpu_ticks();
    for _ in 0..runs {
        let t = Instant::now();
        run_ok(exe, dir, args)?;
        times.push(t.elapsed());
    }
    let cpu = cpu_before.zip(children_cpu_ticks()).map(|(a, b)| (b - a) as f64 / 100.0 / runs.max(1) as f64);
    times.sort();
    let (rss, one_cpu) = peak_rss_kib(exe, dir, args)?;
    let cpu = cpu.or(one_cpu);
    Ok(format!(
        "{} | {} | {} | {} | {}",
        ms(times[times.len() / 2]),
        ms(times[0]),
        ms(times[times.len() - 1]),
        cpu.map(|s| format!("{:.1} ms", s * 1000.0)).unwrap_or_else(|| "n/a".into()),
        rss.map(|k| format!("{:.1} MiB", k as f64 / 1024.0)).unwrap_or_else(|| "n/a".into())
    ))
}

/// `median | min | max | CPU` of `kubesmith make manifests` in `dir`, each run right after an edit of the body of a
/// fn of the first kind's controller (a statement added, then removed again); the file is restored at the end.
fn measure_after_edit(exe: &Path, dir: &Path, runs: usize) -> Result<String> {
    let file = find_file(&dir.join("src/controller"), "kind1.rs").context("no controller kind1.rs")?;
    let original = std::fs::read_to_string(&file)?;
    let at = original.find("async fn cleanup(").context("no cleanup fn in the controller")?;
    let open = at + original[at..].find("{\n").context("no cleanup body")? + 2;
    let edited = format!(
        "{}        debug!(controller = CONTROLLER_NAME, \"cleaning up\");\n{}",
        &original[..open],
        &original[open..]
    );
    run_ok(exe, dir, &["make", "manifests"])?;
    let mut times = Vec::with_capacity(runs);
    let cpu_before = children_cpu_ticks();
    for i in 0..runs {
        std::fs::write(&file, if i % 2 == 0 { &edited } else { &original })?;
        let t = Instant::now();
        run_ok(exe, dir, &["make", "manifests"])?;
        times.push(t.elapsed());
    }
    let cpu = cpu_before.zip(children_cpu_ticks()).map(|(a, b)| (b - a) as f64 / 100.0 / runs.max(1) as f64);
    std::fs::write(&file, &original)?;
    run_ok(exe, dir, &["make", "manifests"])?;
    times.sort();
    Ok(format!(
        "{} | {} | {} | {}",
        ms(times[times.len() / 2]),
        ms(times[0]),
        ms(times[times.len() - 1]),
        cpu.map(|s| format!("{:.1} ms", s * 1000.0)).unwrap_or_else(|| "n/a".into()),
    ))
}

/// The first file named `name` below `dir`.
fn find_file(dir: &Path, name: &str) -> Option<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).ok()?.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in &entries {
        if p.file_name().is_some_and(|f| f == name) {
            return Some(p.clone());
        }
    }
    entries.iter().filter(|p| p.is_dir()).find_map(|p| find_file(p, name))
}

/// User + sys time of the waited-for children of this process, in 1/100 s (`cutime` + `cstime` of
/// `/proc/self/stat`; Linux reports them in USER_HZ = 100).
fn children_cpu_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; cutime and cstime are fields 16 and 17 (1-based).
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let at = |n: usize| fields.get(n - 3).and_then(|v| v.parse::<u64>().ok());
    Some(at(16)? + at(17)?)
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

/// Peak resident set size of one `kubesmith <args>` run in KiB, and its CPU seconds (user + sys) when known.
fn peak_rss_kib(exe: &Path, dir: &Path, args: &[&str]) -> Result<(Option<u64>, Option<f64>)> {
    let time = Path::new("/usr/bin/time");
    if time.exists() {
        let out = Command::new(time)
            .args(["-f", "%M %U %S"])
            .arg(exe)
            .args(args)
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
    let mut child =
        Command::new(exe).args(args).current_dir(dir).stdout(Stdio::null()).stderr(Stdio::null()).spawn()?;
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
