//! The parse-only floor of `make manifests` on a corpus: read + `syn::parse_file` of every `.rs` file (and read +
//! proc-macro2 tokenize alone), timed in a release-built helper program (`bench/floor_helper.rs`) that uses the
//! syn, proc-macro2 and allocator kubesmith's `Cargo.toml` names, so the floor is not a debug-mode figure.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use toml_edit::{DocumentMut, Item, Table};

use super::measure::Timed;
use crate::root;

/// kubesmith's dependencies the helper takes, with their versions and features, from its `Cargo.toml`.
const DEPENDENCIES: [&str; 3] = ["syn", "proc-macro2", "mimalloc"];

/// The helper's manifest: a workspace of its own, kubesmith's edition, [`DEPENDENCIES`] and release profile.
fn manifest(kubesmith: &str) -> Result<String> {
    let kubesmith: DocumentMut = kubesmith.parse().context("kubesmith's Cargo.toml is not TOML")?;
    let mut doc = DocumentMut::new();
    let mut package = Table::new();
    package.insert("name", toml_edit::value("parse-floor"));
    package.insert("version", toml_edit::value("0.0.0"));
    package.insert("edition", kubesmith["package"]["edition"].clone());
    package.insert("publish", toml_edit::value(false));
    doc.insert("package", Item::Table(package));
    let mut deps = Table::new();
    for name in DEPENDENCIES {
        let dep = kubesmith["dependencies"].get(name).with_context(|| {
            format!("kubesmith's Cargo.toml has no {name} dependency: update DEPENDENCIES in xtask/src/bench/floor.rs")
        })?;
        deps.insert(name, dep.clone());
    }
    doc.insert("dependencies", Item::Table(deps));
    doc.insert("workspace", Item::Table(Table::new()));
    if let Some(release) = kubesmith.get("profile").and_then(|p| p.get("release")) {
        let mut profile = Table::new();
        profile.set_implicit(true);
        profile.insert("release", release.clone());
        doc.insert("profile", Item::Table(profile));
    }
    Ok(doc.to_string())
}

/// Writes the helper crate to `target/bench/parse-floor/` (kubesmith's `Cargo.lock` seeds its lock, so it builds
/// the same versions) and builds it with `cargo build --release`; returns the binary.
pub fn helper() -> Result<PathBuf> {
    let dir = root().join("target/bench/parse-floor");
    let kubesmith = std::fs::read_to_string(root().join("Cargo.toml")).context("cannot read kubesmith's Cargo.toml")?;
    let files = [
        ("Cargo.toml".to_string(), manifest(&kubesmith)?),
        ("src/main.rs".to_string(), include_str!("floor_helper.rs").to_string()),
    ];
    crate::harness::write_crate_locked(&dir, &files, &root().join("Cargo.lock"))?;
    let target = dir.join("target");
    crate::harness::cargo_in(&dir, &target, &["build", "--release", "--quiet"], &dir.join("build.log"))?;
    Ok(target.join("release/parse-floor"))
}

/// One pass of the helper: what it did, on how many threads, and its runs.
pub struct Pass {
    pub parse: bool,
    pub threads: usize,
    pub timed: Timed,
}

impl Pass {
    pub fn what(&self) -> String {
        let what = if self.parse { "read + `syn::parse_file`" } else { "read + proc-macro2 tokenize" };
        let threads = if self.threads == 1 { "1 thread".into() } else { format!("{} threads", self.threads) };
        format!("{what}, {threads}")
    }
}

/// The helper's passes over the `.rs` files below `dir`: tokenize (1 thread), parse (1 thread) and parse on every
/// core when there are several; each `runs` timed runs after a warm-up.
pub fn measure(helper: &Path, dir: &Path, runs: usize) -> Result<Vec<Pass>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let out = Command::new(helper)
        .arg(dir)
        .arg(runs.to_string())
        .arg(threads.to_string())
        .output()
        .with_context(|| format!("cannot run {}", helper.display()))?;
    if !out.status.success() {
        bail!("the parse floor failed on {}:\n{}", dir.display(), String::from_utf8_lossy(&out.stderr));
    }
    parse_output(&String::from_utf8_lossy(&out.stdout))
}

/// The helper's lines `<pass> <threads> <wall ns> <cpu ns>`, grouped by pass in their order.
fn parse_output(stdout: &str) -> Result<Vec<Pass>> {
    let mut passes: Vec<(bool, usize, Vec<Duration>, u64)> = Vec::new();
    for line in stdout.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [name, threads, wall, cpu] = fields[..] else { bail!("unexpected parse floor line {line:?}") };
        let parse = match name {
            "parse" => true,
            "tokenize" => false,
            _ => bail!("unexpected parse floor pass {name:?}"),
        };
        let threads: usize = threads.parse()?;
        let (wall, cpu): (u64, u64) = (wall.parse()?, cpu.parse()?);
        match passes.last_mut() {
            Some(p) if p.0 == parse && p.1 == threads => {
                p.2.push(Duration::from_nanos(wall));
                p.3 += cpu;
            }
            _ => passes.push((parse, threads, vec![Duration::from_nanos(wall)], cpu)),
        }
    }
    if passes.is_empty() {
        bail!("the parse floor printed no runs");
    }
    Ok(passes
        .into_iter()
        .map(|(parse, threads, mut times, cpu)| {
            times.sort();
            let cpu = Some(cpu as f64 / 1e9 / times.len() as f64);
            Pass { parse, threads, timed: Timed { times, cpu } }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_helper_builds_with_kubesmiths_dependencies() {
        let kubesmith = "[package]\nname = \"kubesmith\"\nedition = \"2024\"\n\n[dependencies]\nanyhow = \"1\"\n\
                         proc-macro2 = { version = \"1\", features = [\"span-locations\"] }\nsyn = { version = \"2\", \
                         features = [\"full\"] }\nmimalloc = { version = \"0.1\", features = [\"v2\"] }\n\n\
                         [profile.release]\nlto = true\n";
        let made: toml_edit::DocumentMut = manifest(kubesmith).unwrap().parse().unwrap();
        assert_eq!(made["package"]["edition"].as_str(), Some("2024"));
        assert_eq!(made["dependencies"]["proc-macro2"]["features"].to_string().trim(), "[\"span-locations\"]");
        assert_eq!(made["dependencies"]["syn"]["features"].to_string().trim(), "[\"full\"]");
        assert!(made["dependencies"].get("anyhow").is_none());
        assert_eq!(made["profile"]["release"]["lto"].as_bool(), Some(true));
        assert!(made.get("workspace").is_some());
        let err = manifest("[package]\nedition = \"2024\"\n[dependencies]\nsyn = \"2\"\n").unwrap_err().to_string();
        assert!(err.contains("no proc-macro2 dependency"), "{err}");
        // the real one
        manifest(&std::fs::read_to_string(root().join("Cargo.toml")).unwrap()).unwrap();
    }

    #[test]
    fn the_helpers_runs_are_grouped_by_pass() {
        let out = "tokenize 1 300 0\ntokenize 1 100 10000000\nparse 1 900 20000000\nparse 2 500 20000000\n";
        let passes = parse_output(out).unwrap();
        assert_eq!(passes.len(), 3);
        assert_eq!(passes[0].timed.times, [Duration::from_nanos(100), Duration::from_nanos(300)]);
        assert_eq!(passes[0].timed.cpu, Some(0.005));
        assert_eq!(passes[2].what(), "read + `syn::parse_file`, 2 threads");
        assert!(parse_output("").is_err());
        assert!(parse_output("lex 1 2 3\n").is_err());
    }
}
