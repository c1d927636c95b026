//! The bench's closing block: each goal of issue 28 (speed at scale), the value this run measured, met or not.

use std::time::Duration;

use super::measure::{mib, ms};

/// What the tables measured, kept for the summary.
#[derive(Default)]
pub struct Summary {
    /// `make manifests` per project: kinds, median, CPU / wall.
    pub kinds: Vec<(usize, Duration, Option<f64>)>,
    /// The crdgen route: kinds, its incremental median, kubesmith's median on the same copy.
    pub crdgen: Vec<(usize, Duration, Duration)>,
    /// Median with RBAC markers over median without, minus one.
    pub rbac_share: Option<f64>,
    /// `make manifests --check` medians without and with `target/`.
    pub first_run: Option<(Duration, Duration)>,
    pub wide: Option<Wide>,
}

/// The wide corpus' figures.
pub struct Wide {
    pub median: Duration,
    pub rss_kib: Option<u64>,
    /// CPU / wall of the median run.
    pub cores: Option<f64>,
    pub crds: usize,
    /// CRDs over 1 MB of YAML.
    pub big: usize,
}

impl Summary {
    fn median(&self, n: usize) -> Option<Duration> {
        self.kinds.iter().find(|(k, ..)| *k == n).map(|(_, m, _)| *m)
    }

    /// The 500-kind median over the 100-kind one.
    pub fn growth(&self) -> Option<f64> {
        Some(self.median(500)?.as_secs_f64() / self.median(100)?.as_secs_f64())
    }

    pub fn print(&self) {
        println!("summary: the goals of issue 28 (speed at scale)");
        println!();
        println!("| goal | measured | met |");
        println!("|------|----------|-----|");
        let verdict = |ok: bool| if ok { "yes" } else { "no" };
        for &(n, crdgen, kubesmith) in &self.crdgen {
            let ratio = crdgen.as_secs_f64() / kubesmith.as_secs_f64();
            let goal = if n == 100 { "≥ 200×" } else { "(no goal)" };
            let met = if n == 100 { verdict(ratio >= 200.0) } else { "-" };
            println!(
                "| {n} kinds: crdgen incremental / kubesmith, same run {goal} | {} / {} = {ratio:.0}× | {met} |",
                ms(crdgen),
                ms(kubesmith)
            );
        }
        if let Some(m) = self.median(100) {
            println!(
                "| 100 kinds: make manifests ≈ 30 ms on this machine | {} | {} |",
                ms(m),
                verdict(m.as_millis() <= 30)
            );
        }
        if let Some(g) = self.growth() {
            println!("| 500 kinds ≤ 5.5 × 100 kinds | {g:.2}× | {} |", verdict(g <= 5.5));
        }
        if let Some(Wide { median, rss_kib: rss, cores, crds, big }) = self.wide {
            println!(
                "| wide corpus ({crds} CRDs, {big} over 1 MB) ≤ 0.25 s | {} | {} |",
                ms(median),
                verdict(median.as_secs_f64() <= 0.25)
            );
            match rss {
                Some(k) => {
                    println!("| wide corpus peak RSS ≤ 100 MB | {} | {} |", mib(k), verdict(k as f64 / 1024.0 <= 100.0))
                }
                None => println!("| wide corpus peak RSS ≤ 100 MB | n/a | - |"),
            }
            if let Some(c) = cores {
                println!("| wide corpus: both cores used (CPU / wall) | {c:.2} | {} |", verdict(c > 1.2));
            }
        }
        if let Some(&(_, _, Some(c))) = self.kinds.iter().find(|(k, ..)| *k == 100) {
            println!("| 100 kinds: both cores used (CPU / wall) | {c:.2} | {} |", verdict(c > 1.2));
        }
        if let Some(m) = self.median(1) {
            println!("| 1 kind: nothing slower (compare with `--exe` of the base build) | {} | - |", ms(m));
        }
        if let Some(share) = self.rbac_share {
            println!(
                "| RBAC drift check ≤ +10 % of CRD generation alone (100 kinds) | {:+.1} % | {} |",
                share * 100.0,
                verdict(share <= 0.10)
            );
        }
        if let Some((cold, warm)) = self.first_run {
            println!(
                "| first run without target/ (`--check`, 100 kinds; reported) | {} (with target/: {}) | - |",
                ms(cold),
                ms(warm)
            );
        }
        println!();
        println!("(byte-identical parallel output is checked by kubesmith's tests, not here)");
    }
}
