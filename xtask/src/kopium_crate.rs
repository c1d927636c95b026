//! A crate of kopium's output (`cargo xtask realworld`'s wide crate of every real CRD, and the bench's subset of
//! its projects) and `kubesmith make manifests --no-compile` timed on it: shared by `realworld` and `bench`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::root;

/// Where `cargo xtask realworld` writes the crate of kopium's output of every CRD of its recipe.
pub fn wide_dir() -> PathBuf {
    root().join("target/realworld/wide")
}

/// The command line that makes [`wide_dir`] (and times `make manifests` on it) without reading the operators.
pub const MAKE_WIDE: &str = "cargo xtask realworld --mirrors DIR --skip kinds,fromcrd,kopium,rbac,adopt";

/// Where `make manifests` writes the CRDs, inside the crate.
const OUT: &str = "target/realworld-crds";

/// `kubesmith make manifests` as it runs on a kopium crate: the kinds read from `src/` alone, never compiled, a
/// kind kubesmith refuses reported without stopping the others.
pub const MAKE_MANIFESTS: [&str; 7] =
    ["make", "manifests", "--source", "src", "--no-compile", "--keep-going", "--crd-dir"];

/// `make manifests` timed on a kopium crate.
pub struct Timing {
    /// Wall times of the timed runs, sorted.
    pub times: Vec<Duration>,
    /// Mean user + sys seconds of the timed runs (`/usr/bin/time`), when known.
    pub cpu: Option<f64>,
    /// The highest peak RSS of all runs in KiB (`/usr/bin/time`), when known.
    pub rss_kib: Option<u64>,
    /// The CRD files the last run wrote: their count, total bytes, the largest, and how many exceed 1 MB.
    pub crds: CrdSizes,
    /// The last run's first error line when it exited with a failure (`--keep-going` wrote the other CRDs).
    pub failed: Option<String>,
}

impl Timing {
    pub fn median(&self) -> Duration {
        self.times[self.times.len() / 2]
    }

    /// Adds a later timing of the same command: every run, the mean CPU of all (each weighed by its runs), the
    /// highest peak RSS, the later one's CRDs and failure.
    pub fn add(&mut self, later: Timing) {
        let (n, m) = (self.times.len() as f64, later.times.len() as f64);
        self.cpu = self.cpu.zip(later.cpu).map(|(a, b)| (a * n + b * m) / (n + m).max(1.0));
        self.times.extend(later.times);
        self.times.sort();
        self.rss_kib = self.rss_kib.max(later.rss_kib);
        (self.crds, self.failed) = (later.crds, later.failed);
    }
}

#[derive(Default, Clone, Copy)]
pub struct CrdSizes {
    pub count: usize,
    pub total: u64,
    pub largest: u64,
    pub over_1mb: usize,
}

/// `kubesmith make manifests --no-compile` in the kopium crate `dir`: a warm-up, then `runs` timed runs, each after
/// the CRD folder is removed (so every run writes every CRD); peak RSS and CPU from `/usr/bin/time` when present.
pub fn time(exe: &Path, dir: &Path, runs: usize) -> Result<Timing> {
    let out = dir.join(OUT);
    let gnu_time = Path::new("/usr/bin/time");
    let mut times = Vec::with_capacity(runs);
    let mut cpu = Some(0.0);
    let mut rss_kib: Option<u64> = None;
    let mut failed = None;
    for i in 0..=runs {
        if out.exists() {
            std::fs::remove_dir_all(&out).with_context(|| format!("cannot remove {}", out.display()))?;
        }
        let mut cmd = if gnu_time.exists() {
            let mut cmd = Command::new(gnu_time);
            cmd.args(["-f", "%M %U %S"]).arg(exe);
            cmd
        } else {
            Command::new(exe)
        };
        cmd.args(MAKE_MANIFESTS).arg(&out).current_dir(dir).env("NO_COLOR", "1");
        let t = Instant::now();
        let ran = cmd.output().with_context(|| format!("cannot run {}", exe.display()))?;
        let elapsed = t.elapsed();
        let err = String::from_utf8_lossy(&ran.stderr);
        let (mut run_cpu, mut run_rss) = (None, None);
        if gnu_time.exists() {
            let last: Vec<f64> =
                err.lines().last().unwrap_or_default().split(' ').filter_map(|v| v.parse().ok()).collect();
            if let [kib, user, sys] = last[..] {
                (run_rss, run_cpu) = (Some(kib as u64), Some(user + sys));
            }
        }
        rss_kib = rss_kib.max(run_rss);
        failed = (!ran.status.success()).then(|| {
            let ran = crate::realworld::Ran { ok: false, stdout: String::new(), stderr: err.into_owned() };
            ran.first_error()
        });
        if i > 0 {
            times.push(elapsed);
            cpu = cpu.zip(run_cpu).map(|(sum, c)| sum + c);
        }
    }
    times.sort();
    let crds = crd_sizes(&out)?;
    Ok(Timing { times, cpu: cpu.map(|c| c / runs.max(1) as f64), rss_kib, crds, failed })
}

/// The CRD files (YAML) in `dir`.
pub fn crd_sizes(dir: &Path) -> Result<CrdSizes> {
    let mut sizes = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("make manifests wrote no {}", dir.display()))? {
        let entry = entry?;
        if entry.path().extension().is_some_and(|e| e == "yaml") {
            sizes.push(entry.metadata()?.len());
        }
    }
    if sizes.is_empty() {
        bail!("make manifests wrote no CRD in {}", dir.display());
    }
    Ok(CrdSizes {
        count: sizes.len(),
        total: sizes.iter().sum(),
        largest: sizes.iter().copied().max().unwrap_or(0),
        over_1mb: sizes.iter().filter(|&&s| s > 1_000_000).count(),
    })
}

/// The `.rs` files below `dir`, sorted, with their sizes.
pub fn rust_files(dir: &Path) -> Vec<(PathBuf, u64)> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, u64)>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push((p, e.metadata().map(|m| m.len()).unwrap_or(0)));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// A crate of the kopium output of the `projects` of the wide crate `wide` (each `src/<project>/<crd>/<version>.rs`
/// copied as it is), written to `into` with the same layout and manifest.
pub fn subset(wide: &Path, projects: &[&str], into: &Path) -> Result<PathBuf> {
    let mut modules = Vec::new();
    for p in projects {
        let dir = wide.join("src").join(p);
        if !dir.is_dir() {
            bail!("the wide crate {} has no project {p}: make it again with `{MAKE_WIDE}`", wide.display());
        }
        for (file, _) in rust_files(&dir) {
            let rel = file.strip_prefix(&dir).expect("below dir");
            let (Some(crd), Some(version)) = (rel.parent(), rel.file_stem()) else { continue };
            let text = std::fs::read_to_string(&file).with_context(|| format!("cannot read {}", file.display()))?;
            let name = |p: &Path| p.to_string_lossy().into_owned();
            modules.push((p.to_string(), name(crd), name(Path::new(version)), text));
        }
    }
    crate::realworld::crds::write_wide_crate(into, "kopium-subset", &modules, &crate::harness::corpus_lock())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subset_copies_the_projects_files_with_the_wide_crates_layout() {
        let tmp = std::env::temp_dir().join(format!("xtask-kopium-subset-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        let wide = tmp.join("wide");
        for (p, crd, v) in [("a", "foos_x_io", "v1"), ("a", "foos_x_io", "v2"), ("b", "bars_y_io", "v1")] {
            let file = wide.join(format!("src/{p}/{crd}/{v}.rs"));
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, format!("// {p} {crd} {v}\n")).unwrap();
        }
        let into = subset(&wide, &["a"], &tmp.join("subset")).unwrap();
        let files: Vec<PathBuf> =
            rust_files(&into.join("src")).into_iter().map(|(f, _)| f.strip_prefix(&into).unwrap().into()).collect();
        // sorted by path components: the folder `a` before `a.rs`
        let expected = ["src/a/foos_x_io/v1.rs", "src/a/foos_x_io/v2.rs", "src/a.rs", "src/lib.rs"];
        assert_eq!(files, expected.map(PathBuf::from));
        let v2 = std::fs::read_to_string(into.join("src/a/foos_x_io/v2.rs")).unwrap();
        assert_eq!(v2, "// a foos_x_io v2\n");
        let lib = std::fs::read_to_string(into.join("src/lib.rs")).unwrap();
        assert!(lib.contains("pub mod a;") && !lib.contains("pub mod b;"), "{lib}");
        let err = subset(&wide, &["c"], &tmp.join("subset")).unwrap_err().to_string();
        assert!(err.contains("no project c") && err.contains("cargo xtask realworld"), "{err}");
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}
