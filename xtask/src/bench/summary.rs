//! The bench's closing block: each goal of issues 28 (speed at scale) and 45 (real kopium output, the parse-only
//! floor), the value this run measured, met or not; judged on wall time (the goals' measure) and on CPU time (what
//! other load on the machine disturbs least).

use super::measure::{Timed, mib};

/// One measured command: wall median and mean CPU, in seconds.
#[derive(Clone, Copy)]
pub struct Fig {
    pub wall: f64,
    pub cpu: Option<f64>,
}

impl Fig {
    pub fn of(t: &Timed) -> Self {
        Fig { wall: t.median().as_secs_f64(), cpu: t.cpu }
    }

    /// `self / other`, on wall and on CPU.
    fn ratio(self, other: Fig) -> (f64, Option<f64>) {
        (self.wall / other.wall, self.cpu.zip(other.cpu).filter(|(_, b)| *b > 0.0).map(|(a, b)| a / b))
    }

    /// CPU / wall: above 1 when more than one core worked.
    fn cores(self) -> Option<f64> {
        self.cpu.map(|c| c / self.wall)
    }
}

/// What the tables measured, kept for the summary.
#[derive(Default)]
pub struct Summary {
    /// `make manifests` per project size.
    pub kinds: Vec<(usize, Fig)>,
    /// The crdgen route per project size: its incremental build + run, kubesmith on the same copy.
    pub crdgen: Vec<(usize, Fig, Fig)>,
    /// `make manifests` with RBAC markers and without (100 kinds).
    pub rbac: Option<(Fig, Fig)>,
    /// `make manifests --check` without `target/` and with it (100 kinds).
    pub first_run: Option<(Fig, Fig)>,
    /// `make manifests` on the ~5.8 MB subset of real kopium output (`bench/kopium.rs`).
    pub kopium_subset: Option<Corpus>,
    /// `make manifests` on the wide crate: kopium's output of every real CRD.
    pub kopium_wide: Option<Corpus>,
}

/// A real kopium corpus' figures.
pub struct Corpus {
    /// Its Rust, in MB.
    pub mb: f64,
    pub fig: Fig,
    pub rss_kib: Option<u64>,
    pub crds: usize,
    /// CRDs over 1 MB of YAML.
    pub big: usize,
    /// The parse-only floor: read + `syn::parse_file` of every file (`kopium::FLOOR`).
    pub floor: Option<Fig>,
}

fn secs(s: f64) -> String {
    if s >= 1.0 { format!("{s:.2} s") } else { format!("{:.1} ms", s * 1000.0) }
}

fn cpu(f: Fig) -> String {
    f.cpu.map(secs).unwrap_or_else(|| "n/a".into())
}

fn verdict(ok: Option<bool>) -> &'static str {
    match ok {
        Some(true) => "yes",
        Some(false) => "no",
        None => "-",
    }
}

impl Summary {
    fn kind(&self, n: usize) -> Option<Fig> {
        self.kinds.iter().find(|(k, _)| *k == n).map(|(_, f)| *f)
    }

    /// The 500-kind figures over the 100-kind ones (wall, CPU).
    pub fn growth(&self) -> Option<(f64, Option<f64>)> {
        Some(self.kind(500)?.ratio(self.kind(100)?))
    }

    pub fn print(&self) {
        println!(
            "summary: the goals of issues 28 (speed at scale) and 45 (real kopium output, the parse-only floor); \
             wall = median, CPU = mean user + sys per run"
        );
        println!();
        println!("| issue | goal | wall | met | CPU | met on CPU |");
        println!("|------:|------|------|-----|-----|------------|");
        let row = |issue: &str, goal: &str, wall: String, met: Option<bool>, cpu: String, met_cpu: Option<bool>| {
            println!("| {issue} | {goal} | {wall} | {} | {cpu} | {} |", verdict(met), verdict(met_cpu))
        };
        for &(n, crdgen, kubesmith) in &self.crdgen {
            let (wall, on_cpu) = crdgen.ratio(kubesmith);
            let goal = n == 100;
            row(
                "28",
                &format!("{n} kinds: crdgen incremental / kubesmith, same run{}", if goal { " ≥ 200×" } else { "" }),
                format!("{} / {} = {wall:.0}×", secs(crdgen.wall), secs(kubesmith.wall)),
                goal.then_some(wall >= 200.0),
                on_cpu.map(|r| format!("{} / {} = {r:.0}×", cpu(crdgen), cpu(kubesmith))).unwrap_or_default(),
                on_cpu.filter(|_| goal).map(|r| r >= 200.0),
            );
        }
        if let Some(f) = self.kind(100) {
            row(
                "28",
                "100 kinds: make manifests ≈ 30 ms",
                secs(f.wall),
                Some(f.wall <= 0.030),
                cpu(f),
                f.cpu.map(|c| c <= 0.030),
            );
            row(
                "28",
                "100 kinds: both cores used (CPU / wall > 1.2)",
                f.cores().map(|c| format!("{c:.2}")).unwrap_or_default(),
                f.cores().map(|c| c > 1.2),
                String::new(),
                None,
            );
        }
        if let Some(k) = &self.kopium_subset {
            row(
                "28",
                &format!("real kopium output, {:.1} MB: both cores used (CPU / wall > 1.2)", k.mb),
                k.fig.cores().map(|c| format!("{c:.2}")).unwrap_or_default(),
                k.fig.cores().map(|c| c > 1.2),
                String::new(),
                None,
            );
        }
        if let Some((with, without)) = self.rbac {
            let (wall, on_cpu) = with.ratio(without);
            row(
                "28",
                "RBAC drift check ≤ +10 % of CRD generation alone (100 kinds)",
                format!("{:+.1} %", (wall - 1.0) * 100.0),
                Some(wall <= 1.10),
                on_cpu.map(|r| format!("{:+.1} %", (r - 1.0) * 100.0)).unwrap_or_default(),
                on_cpu.map(|r| r <= 1.10),
            );
        }
        if let Some((cold, warm)) = self.first_run {
            row(
                "28",
                "first run without target/ (`--check`, 100 kinds; reported, with target/ in brackets)",
                format!("{} ({})", secs(cold.wall), secs(warm.wall)),
                None,
                format!("{} ({})", cpu(cold), cpu(warm)),
                None,
            );
        }
        match &self.kopium_subset {
            Some(k) => {
                row(
                    "45",
                    &format!(
                        "make manifests on real kopium output of ~5.8 MB ({:.1} MB, {} CRDs written, {} over 1 MB) ≤ 0.25 s",
                        k.mb, k.crds, k.big
                    ),
                    secs(k.fig.wall),
                    Some(k.fig.wall <= 0.25),
                    cpu(k.fig),
                    k.fig.cpu.map(|c| c <= 0.25),
                );
                row(
                    "45",
                    &format!("the same, peak RSS ≤ 100 MB ({:.1} MB)", k.mb),
                    k.rss_kib.map(mib).unwrap_or_else(|| "n/a".into()),
                    k.rss_kib.map(|kib| kib as f64 / 1024.0 <= 100.0),
                    String::new(),
                    None,
                );
            }
            None => row(
                "45",
                "real kopium output of ~5.8 MB: ≤ 0.25 s, ≤ 100 MB",
                "not measured".into(),
                None,
                String::new(),
                None,
            ),
        }
        match self.kopium_wide.as_ref().and_then(|k| Some((k, k.floor?))) {
            Some((k, floor)) => {
                let (wall, on_cpu) = k.fig.ratio(floor);
                row(
                    "45",
                    &format!(
                        "wide corpus (all real kopium output, {:.1} MB): make manifests ≤ 2× the parse-only floor ({})",
                        k.mb,
                        super::kopium::FLOOR
                    ),
                    format!("{} / {} = {wall:.2}×", secs(k.fig.wall), secs(floor.wall)),
                    Some(wall <= 2.0),
                    on_cpu.map(|r| format!("{} / {} = {r:.2}×", cpu(k.fig), cpu(floor))).unwrap_or_default(),
                    on_cpu.map(|r| r <= 2.0),
                );
            }
            None => row(
                "45",
                "wide corpus: make manifests ≤ 2× the parse-only floor",
                "not measured".into(),
                None,
                String::new(),
                None,
            ),
        }
        if let Some((wall, on_cpu)) = self.growth() {
            row(
                "28, 45",
                "500 kinds ≤ 5.5 × 100 kinds",
                format!("{wall:.2}×"),
                Some(wall <= 5.5),
                on_cpu.map(|r| format!("{r:.2}×")).unwrap_or_default(),
                on_cpu.map(|r| r <= 5.5),
            );
        }
        if let Some(f) = self.kind(1) {
            row("28, 45", "1 kind: no slower (compare a base build with `--exe`)", secs(f.wall), None, cpu(f), None);
        }
        println!();
        println!(
            "(byte-identical output of the parallel and sequential paths is kubesmith's tests' to check, not the bench's)"
        );
    }
}
