//! The bench's real kopium corpus: `make manifests --no-compile` on a ~5.8 MB subset of real kopium output and on
//! `cargo xtask realworld`'s wide crate (kopium's output of every CRD of its recipe), each beside its parse-only
//! floor (`bench/floor.rs`).

use std::path::Path;

use anyhow::Result;

use super::floor::{self, Pass};
use super::measure::{Timed, instructions, mib, ms};
use super::summary::{Corpus, Fig, Summary};
use crate::kopium_crate::{self, MAKE_MANIFESTS, MAKE_WIDE, Timing};
use crate::root;

/// The projects of the wide crate whose kopium output makes the ~5.8 MB corpus of issue 45's time and memory
/// goals: four projects, 50 files, 5.7 MB of Rust at the recipe's pinned commits (Prometheus' monitoring CRDs,
/// Elastic's, Argo CD's and Kyverno's), the size of the 53 CRDs the generated corpus imitated before.
pub const SUBSET: [&str; 4] = ["prometheus_operator", "cloud_on_k8s", "argo_cd", "kyverno"];

/// Times `make manifests` and the parse floor on the subset (`runs` runs each) and on the whole wide crate
/// (`wide_runs`); nothing but a note when the wide crate is missing.
pub fn tables(
    exe: &Path,
    base: &Path,
    wide: &Path,
    runs: usize,
    wide_runs: usize,
    count: bool,
    summary: &mut Summary,
) -> Result<()> {
    if !wide.join("src/lib.rs").exists() {
        println!(
            "real kopium corpus: no wide crate at {} (skipped); make it with `{MAKE_WIDE}` (DIR: the git mirrors of \
             the recipe's repositories, see xtask/realworld/README.md; kopium on PATH or `--kopium PATH`), or pass \
             `--wide-crate DIR`",
            wide.display()
        );
        return Ok(());
    }
    let subset = kopium_crate::subset(wide, &SUBSET, &base.join("kopium-subset"))?;
    let helper = floor::helper()?;
    let mut measured = Vec::new();
    for (dir, runs, label) in
        [(subset.as_path(), runs, format!("subset: {}", SUBSET.join(", "))), (wide, wide_runs, "all".into())]
    {
        let files = kopium_crate::rust_files(&dir.join("src"));
        let bytes: u64 = files.iter().map(|(_, len)| len).sum();
        let (timing, passes, rounds) = interleaved(exe, &helper, dir, runs)?;
        measured.push(Measured {
            dir,
            label,
            files: files.len(),
            mb: bytes as f64 / 1e6,
            runs,
            timing,
            passes,
            rounds,
        });
    }
    println!(
        "real kopium output: `kubesmith {} OUT` in the crate (OUT removed before each run, so every run writes \
         every CRD), beside the parse-only floor (a release-built helper: read + tokenize or `syn::parse_file` of \
         every .rs file with kubesmith's syn, proc-macro2 and allocator)",
        MAKE_MANIFESTS.join(" ")
    );
    println!();
    for m in &measured {
        let c = m.timing.crds;
        println!(
            "- {} ({}): {} files, {:.1} MB of Rust; make manifests wrote {} CRDs, {:.1} MB of YAML, the largest \
             {:.2} MB, {} over 1 MB{}",
            m.dir.strip_prefix(root()).unwrap_or(m.dir).display(),
            m.label,
            m.files,
            m.mb,
            c.count,
            c.total as f64 / 1e6,
            c.largest as f64 / 1e6,
            c.over_1mb,
            m.timing.failed.as_ref().map(|e| format!(" (it exited with a failure: {e})")).unwrap_or_default()
        );
    }
    println!();
    println!("| corpus | run | runs | median | min | max | CPU (user+sys, mean) | CPU / wall | peak RSS |");
    println!("|--------|-----|-----:|-------:|----:|----:|---------------:|---------:|---------:|");
    for m in &measured {
        let timed = m.timed();
        println!(
            "| {:.1} MB | make manifests | {} | {} | {} | {} |",
            m.mb,
            m.runs,
            timed.row(),
            cores(&timed),
            m.timing.rss_kib.map(mib).unwrap_or_else(|| "n/a".into())
        );
        for pass in &m.passes {
            println!(
                "| {:.1} MB | parse floor: {} | {} | {} | {} | |",
                m.mb,
                pass.what(),
                m.runs,
                pass.timed.row(),
                cores(&pass.timed)
            );
        }
    }
    println!();
    for m in &measured {
        let Some(floor) = floor(&m.passes) else { continue };
        let made = Fig::of(&m.timed());
        let cpu = made.cpu.zip(floor.cpu).map(|(a, b)| format!("; CPU {a:.2} s / {b:.2} s = {:.2}×", a / b));
        let rounds = match (m.rounds.first(), m.rounds.last()) {
            (Some(lo), Some(hi)) => {
                format!("; the rounds' own ratios: median {:.2}×, {lo:.2}–{hi:.2}×", m.rounds[m.rounds.len() / 2])
            }
            _ => String::new(),
        };
        println!(
            "{:.1} MB: make manifests / parse-only floor ({FLOOR}): {} / {} = {:.2}× (goal on the wide corpus: ≤ \
             2×){}{rounds}",
            m.mb,
            ms(m.timing.median()),
            ms(std::time::Duration::from_secs_f64(floor.wall)),
            made.wall / floor.wall,
            cpu.unwrap_or_default()
        );
    }
    if count {
        let dir = &measured[0].dir;
        let out = dir.join("target/realworld-crds-callgrind");
        let _ = std::fs::remove_dir_all(&out);
        let out = out.display().to_string();
        let args: Vec<&str> = MAKE_MANIFESTS.into_iter().chain([out.as_str()]).collect();
        if let Some(n) = instructions(exe, dir, &args)? {
            println!();
            println!("{:.1} MB subset instructions (callgrind): {:.1} M", measured[0].mb, n as f64 / 1e6);
        }
    }
    let mut corpora = measured.iter().map(|m| Corpus {
        mb: m.mb,
        fig: Fig::of(&m.timed()),
        rss_kib: m.timing.rss_kib,
        crds: m.timing.crds.count,
        big: m.timing.crds.over_1mb,
        floor: floor(&m.passes),
    });
    summary.kopium_subset = corpora.next();
    summary.kopium_wide = corpora.next();
    Ok(())
}

/// `make manifests` and the parse floor timed in `runs` rounds, each one run of the one (after its warm-up) and then
/// one of each floor pass (after theirs): the machine's speed drifts over minutes on a shared host, and timing all
/// of one before all of the other put that drift into their ratio.
/// Also each round's wall-time ratio of `make manifests` to the floor (the quicker parse pass of that round), sorted.
fn interleaved(exe: &Path, helper: &Path, dir: &Path, runs: usize) -> Result<(Timing, Vec<Pass>, Vec<f64>)> {
    let mut timing: Option<Timing> = None;
    let mut passes: Vec<Pass> = Vec::new();
    let mut rounds = Vec::new();
    for _ in 0..runs.max(1) {
        let round = kopium_crate::time(exe, dir, 1)?;
        let made = round.median().as_secs_f64();
        match &mut timing {
            Some(t) => t.add(round),
            None => timing = Some(round),
        }
        let floor = floor::measure(helper, &dir.join("src"), 1)?;
        rounds.extend(self::floor(&floor).map(|f| made / f.wall));
        if passes.is_empty() {
            passes = floor;
        } else {
            for (pass, more) in passes.iter_mut().zip(floor) {
                pass.timed.add(more.timed);
            }
        }
    }
    rounds.sort_by(f64::total_cmp);
    Ok((timing.expect("at least one round"), passes, rounds))
}

/// One corpus' figures.
struct Measured<'a> {
    dir: &'a Path,
    label: String,
    files: usize,
    mb: f64,
    runs: usize,
    timing: Timing,
    passes: Vec<Pass>,
    /// Each round's ratio of `make manifests` to the floor, sorted ([`interleaved`]).
    rounds: Vec<f64>,
}

impl Measured<'_> {
    fn timed(&self) -> Timed {
        Timed { times: self.timing.times.clone(), cpu: self.timing.cpu }
    }
}

fn cores(t: &Timed) -> String {
    t.cores_used().map(|c| format!("{c:.2}")).unwrap_or_else(|| "n/a".into())
}

/// What the floor is, for the tables and the summary.
pub const FLOOR: &str = "read + `syn::parse_file`, the least wall and the least CPU time of 1 thread and every core";

/// The floor `make manifests` is held to: read + `syn::parse_file` of every file the cheapest way the helper found
/// (the least median wall time and the least mean CPU time of its parse passes; on a loaded machine more threads
/// can cost more than one).
fn floor(passes: &[Pass]) -> Option<Fig> {
    let parse = passes.iter().filter(|p| p.parse);
    let wall = parse.clone().map(|p| p.timed.median().as_secs_f64()).min_by(f64::total_cmp)?;
    let cpu = parse.filter_map(|p| p.timed.cpu).min_by(f64::total_cmp);
    Some(Fig { wall, cpu })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn pass(parse: bool, threads: usize, wall_ms: u64, cpu: f64) -> Pass {
        Pass { parse, threads, timed: Timed { times: vec![Duration::from_millis(wall_ms)], cpu: Some(cpu) } }
    }

    #[test]
    fn rounds_add_up_to_every_run_with_the_mean_cpu() {
        let ms = Duration::from_millis;
        let mut t = Timed { times: vec![ms(3), ms(1)], cpu: Some(1.0) };
        t.add(Timed { times: vec![ms(2)], cpu: Some(4.0) });
        assert_eq!((t.times, t.cpu), (vec![ms(1), ms(2), ms(3)], Some(2.0)));
        let mut t = Timed { times: vec![ms(1)], cpu: None };
        t.add(Timed { times: vec![ms(2)], cpu: Some(4.0) });
        assert_eq!(t.cpu, None, "a round without CPU figures leaves the mean unknown");
    }

    #[test]
    fn the_floor_is_the_cheapest_parse_on_wall_and_on_cpu() {
        let passes = [pass(false, 1, 100, 0.1), pass(true, 1, 900, 0.8), pass(true, 2, 1200, 0.7)];
        let f = floor(&passes).unwrap();
        assert_eq!((f.wall, f.cpu), (0.9, Some(0.7)));
        assert!(floor(&passes[..1]).is_none(), "tokenizing alone is not the floor");
    }
}
