//! How the bench measures one command: wall times (median, min, max), mean CPU time of the runs, peak RSS of one
//! more run, and instruction counts under callgrind; and `run_ok`, which runs kubesmith and fails with its stderr.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// Wall times of some runs (sorted) and their mean CPU time (this process' waited-for children).
pub struct Timed {
    pub times: Vec<Duration>,
    pub cpu: Option<f64>,
}

impl Timed {
    pub fn median(&self) -> Duration {
        self.times[self.times.len() / 2]
    }

    /// Adds later runs of the same thing: every time, sorted, and the mean CPU of all (each weighed by its runs).
    pub fn add(&mut self, later: Timed) {
        let (n, m) = (self.times.len() as f64, later.times.len() as f64);
        self.cpu = self.cpu.zip(later.cpu).map(|(a, b)| (a * n + b * m) / (n + m).max(1.0));
        self.times.extend(later.times);
        self.times.sort();
    }

    /// `median | min | max | CPU`.
    pub fn row(&self) -> String {
        format!(
            "{} | {} | {} | {}",
            ms(self.median()),
            ms(self.times[0]),
            ms(self.times[self.times.len() - 1]),
            self.cpu.map(|s| format!("{:.1} ms", s * 1000.0)).unwrap_or_else(|| "n/a".into()),
        )
    }

    /// CPU time over wall time of the median run: above 1 when more than one core worked.
    pub fn cores_used(&self) -> Option<f64> {
        self.cpu.map(|cpu| cpu / self.median().as_secs_f64())
    }
}

/// A [`Timed`] and the peak resident set size of one more run.
pub struct Measured {
    pub timed: Timed,
    pub rss_kib: Option<u64>,
}

impl Measured {
    /// `median | min | max | CPU | peak RSS`.
    pub fn row(&self) -> String {
        format!("{} | {}", self.timed.row(), self.rss_kib.map(mib).unwrap_or_else(|| "n/a".into()))
    }

    pub fn median(&self) -> Duration {
        self.timed.median()
    }
}

/// Runs `run(i)` for i in 0..runs, each after the untimed `prepare(i)`.
pub fn timed_prepared(
    runs: usize,
    mut prepare: impl FnMut(usize) -> Result<()>,
    mut run: impl FnMut(usize) -> Result<()>,
) -> Result<Timed> {
    let mut times = Vec::with_capacity(runs);
    let mut cpu_ticks = Some(0u64);
    for i in 0..runs {
        prepare(i)?;
        let before = children_cpu_ticks();
        let t = Instant::now();
        run(i)?;
        times.push(t.elapsed());
        cpu_ticks = cpu_ticks.zip(before.zip(children_cpu_ticks())).map(|(sum, (a, b))| sum + b - a);
    }
    let cpu = cpu_ticks.map(|ticks| ticks as f64 / 100.0 / runs.max(1) as f64);
    times.sort();
    Ok(Timed { times, cpu })
}

pub fn timed(runs: usize, run: impl FnMut(usize) -> Result<()>) -> Result<Timed> {
    timed_prepared(runs, |_| Ok(()), run)
}

/// `kubesmith <args>` in `dir` over `runs` runs (after one warm-up) and the peak RSS of one more.
pub fn measure(exe: &Path, dir: &Path, args: &[&str], runs: usize) -> Result<Measured> {
    measure_prepared(exe, dir, args, runs, || Ok(()))
}

/// [`measure`] with `prepare` run, untimed, before each run (the warm-up and the RSS run included).
pub fn measure_prepared(
    exe: &Path,
    dir: &Path,
    args: &[&str],
    runs: usize,
    mut prepare: impl FnMut() -> Result<()>,
) -> Result<Measured> {
    prepare()?;
    run_ok(exe, dir, args)?;
    let timed = timed_prepared(runs, |_| prepare(), |_| run_ok(exe, dir, args))?;
    prepare()?;
    let (rss_kib, one_cpu) = peak_rss_kib(exe, dir, args)?;
    let timed = Timed { cpu: timed.cpu.or(one_cpu), ..timed };
    Ok(Measured { timed, rss_kib })
}

/// `kubesmith make manifests` in `dir`, each run right after an edit of the body of a fn of the first kind's
/// controller (a statement added, then removed again); the file is restored at the end.
pub fn measure_after_edit(exe: &Path, dir: &Path, runs: usize) -> Result<Timed> {
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
    let result = timed_prepared(
        runs,
        |i| Ok(std::fs::write(&file, if i % 2 == 0 { &edited } else { &original })?),
        |_| run_ok(exe, dir, &["make", "manifests"]),
    );
    std::fs::write(&file, &original)?;
    run_ok(exe, dir, &["make", "manifests"])?;
    result
}

/// Instructions `kubesmith <args>` executes in `dir`, counted by callgrind (`None` when valgrind is missing).
pub fn instructions(exe: &Path, dir: &Path, args: &[&str]) -> Result<Option<u64>> {
    let out = match Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(exe)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .output()
    {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).context("cannot run valgrind"),
    };
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        bail!("`valgrind kubesmith {}` failed in {}:\n{err}", args.join(" "), dir.display());
    }
    let collected = err
        .lines()
        .find_map(|l| l.split_once("Collected :").map(|(_, n)| n.trim().to_string()))
        .context("no `Collected :` line in callgrind's output")?;
    Ok(Some(collected.parse().with_context(|| format!("callgrind's count {collected:?}"))?))
}

/// The first file named `name` below `dir`.
pub fn find_file(dir: &Path, name: &str) -> Option<PathBuf> {
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

pub fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

pub fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

pub fn run_ok(exe: &Path, dir: &Path, args: &[&str]) -> Result<()> {
    let out = Command::new(exe).args(args).current_dir(dir).output()?;
    if !out.status.success() {
        bail!("`kubesmith {}` failed in {}:\n{}", args.join(" "), dir.display(), String::from_utf8_lossy(&out.stderr));
    }
    Ok(())
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
