//! The bench's projects: multigroup projects of N kinds scaffolded by `kubesmith init` and `create api` (cached under
//! `target/bench/`), their copy without RBAC markers, and the table timing `init`, `create api` and `cargo new`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use super::measure::{Timed, run_ok, timed};

/// A multigroup project with `n` kinds (`Kind1` .. `Kind<n>`) in groups of ten, reused when already there. Prints
/// how long scaffolding took when it happened.
pub fn scaffold(exe: &Path, base: &Path, n: usize) -> Result<PathBuf> {
    let dir = base.join(format!("kinds-{n}"));
    let done = dir.join(".bench-complete");
    if done.exists() {
        return Ok(dir);
    }
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    let start = Instant::now();
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
    eprintln!("(scaffolded {n} kinds with init + {n} × create api in {:.1} s)", start.elapsed().as_secs_f64());
    Ok(dir)
}

/// A copy of the project `dir` (its `target/` left out) whose controllers carry no `// +kubebuilder:rbac` markers:
/// `make manifests` there generates the CRDs without the RBAC drift check. Made again when `dir` is newer.
pub fn without_rbac(dir: &Path) -> Result<PathBuf> {
    let name = dir.file_name().context("project folder name")?.to_string_lossy().into_owned();
    let copy = dir.with_file_name(format!("{name}-no-rbac"));
    if copy.join(".bench-complete").exists() {
        return Ok(copy);
    }
    if copy.exists() {
        std::fs::remove_dir_all(&copy)?;
    }
    copy_tree(dir, &copy, &|p| p.file_name().is_some_and(|f| f == "target"))?;
    strip_rbac_markers(&copy.join("src"))?;
    // kubesmith wrote role.yaml from the markers: the copy's stays as it was, which the check leaves alone
    // when no markers ask for it.
    std::fs::write(copy.join(".bench-complete"), "")?;
    Ok(copy)
}

fn strip_rbac_markers(dir: &Path) -> Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            strip_rbac_markers(&path)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path)?;
            if text.contains("+kubebuilder:rbac") {
                let kept: String = text
                    .split_inclusive('\n')
                    .filter(|l| !l.trim_start().starts_with("// +kubebuilder:rbac"))
                    .collect();
                std::fs::write(&path, kept)?;
            }
        }
    }
    Ok(())
}

/// Copies the tree `from` to `to`, leaving out the paths `skip` names.
pub fn copy_tree(from: &Path, to: &Path, skip: &dyn Fn(&Path) -> bool) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let path = entry?.path();
        if skip(&path) {
            continue;
        }
        let dest = to.join(path.file_name().context("file name")?);
        if path.is_dir() {
            copy_tree(&path, &dest, skip)?;
        } else {
            std::fs::copy(&path, &dest).with_context(|| format!("cannot copy {}", path.display()))?;
        }
    }
    Ok(())
}

/// The scaffolding table: `kubesmith init` and `kubesmith create api` in a new project each run, and `cargo new` (the
/// `cargo` on the `PATH`, as the regenerate check runs it) for reference; each after one warm-up run, all in the
/// system's temporary folder.
pub fn measure_scaffolding(exe: &Path, runs: usize) -> Result<()> {
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
