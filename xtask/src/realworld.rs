//! `cargo xtask realworld --mirrors DIR [--only NAME]...`: kubesmith's reading features measured on public
//! projects at pinned commits (the recipe in `xtask/realworld/`). Extracts the pinned files from the git mirrors
//! into `target/realworld/` (git-ignored), then prints, per project and in total: `make manifests` on the
//! operators' kinds against kube-derive's own `crd()`; each CRD through `init --from-crd` + `make manifests`;
//! each CRD through kopium + `make manifests` against `crd()` of kopium's types; `rbac infer` on each binary
//! against our reading; `adopt` on each tree; the wide corpus (kopium's output of every CRD) timed. A full run
//! (no `--only`, no `--skip`) writes the tables to `docs/realworld.md`.
//!
//! Flags: `--exe PATH` (a kubesmith binary; default: `cargo build --release` and `target/release/kubesmith`),
//! `--kopium PATH` (default: `kopium` on PATH, else `cargo install kopium` into `target/realworld/tools`),
//! `--skip SECTION,..` (`kinds`, `fromcrd`, `kopium`, `rbac`, `adopt`, `wide`; skipping all but `wide` only makes
//! and times the wide crate, `target/realworld/wide`, which `cargo xtask bench` reads), `--write` (write
//! `docs/realworld.md` from a partial run too; its header then names what was left out), `--compile-budget SECONDS`
//! (default 3600: no kopium crate starts compiling for its truth after that; truths already built are kept).

mod compare;
pub(crate) mod crds;
mod extract;
mod kinds;
mod rbac;
mod recipe;
mod report;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::root;
use recipe::Recipe;

/// How kubesmith is run: the binary, a shared cargo target for the compiled fallback, a time limit.
pub struct Run {
    exe: PathBuf,
    cargo_target: PathBuf,
    limit_s: u64,
}

/// What one run printed.
pub struct Ran {
    pub ok: bool,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    /// The first line that says what went wrong (an `error` line, else the last line of stderr).
    pub fn first_error(&self) -> String {
        let lines = self.stderr.lines().map(str::trim).filter(|l| !l.is_empty());
        let error = lines.clone().find(|l| l.starts_with("error") || l.contains(": error"));
        let line = error.or_else(|| lines.clone().next_back()).unwrap_or("failed with no message");
        let mut line = line.to_string();
        // `error: 3 problems:` says what follows: take the first of them too
        let next = if line.ends_with(':') { lines.skip_while(|l| *l != line).nth(1) } else { None };
        if let Some(next) = next {
            line = format!("{line} {next}");
        }
        if line.chars().count() > 240 {
            line = format!("{}…", line.chars().take(240).collect::<String>());
        }
        line
    }
}

impl Run {
    /// `kubesmith <args>` in `dir` with `envs`, under `timeout`.
    pub fn kubesmith(&self, dir: &Path, args: &[&str], envs: &[(&str, &str)]) -> Result<Ran> {
        let mut cmd = Command::new("timeout");
        cmd.arg(self.limit_s.to_string()).arg(&self.exe).args(args).current_dir(dir);
        cmd.env("CARGO_TARGET_DIR", &self.cargo_target)
            .env("CARGO_INCREMENTAL", "0")
            .env("CARGO_PROFILE_DEV_DEBUG", "0")
            .env("NO_COLOR", "1")
            // a project's rust-toolchain.toml may pin a toolchain this machine lacks: build with the installed one
            .env("RUSTUP_TOOLCHAIN", toolchain())
            .env_remove("KUBESMITH_COMPILE_ALL");
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let out = cmd.output().with_context(|| format!("cannot run {}", self.exe.display()))?;
        let mut stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        if out.status.code() == Some(124) {
            stderr.push_str(&format!("\nerror: timed out after {} s", self.limit_s));
        }
        Ok(Ran { ok: out.status.success(), stdout: String::from_utf8_lossy(&out.stdout).into_owned(), stderr })
    }
}

/// Every CRD under `dir` (YAML files), by `metadata.name`.
pub fn read_crd_dir(dir: &Path) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    for e in entries.flatten() {
        let p = e.path();
        if !p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&p) else { continue };
        for crd in crds::documents(&text).unwrap_or_default() {
            if let Some(name) = crd.pointer("/metadata/name").and_then(Value::as_str) {
                out.insert(name.to_string(), crd);
            }
        }
    }
    out
}

struct Options {
    mirrors: PathBuf,
    only: Vec<String>,
    skip: Vec<String>,
    exe: Option<PathBuf>,
    kopium: Option<PathBuf>,
    write: bool,
    /// Seconds after which no more kopium crates are compiled for their truth (kept ones are still used).
    budget_s: u64,
}

fn options(args: &[String]) -> Result<Options> {
    let mut o = Options {
        mirrors: PathBuf::new(),
        only: Vec::new(),
        skip: Vec::new(),
        exe: None,
        kopium: None,
        write: false,
        budget_s: 3600,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().cloned().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "--mirrors" => o.mirrors = PathBuf::from(value()?),
            "--only" => o.only.extend(value()?.split(',').map(str::to_string)),
            "--skip" => o.skip.extend(value()?.split(',').map(str::to_string)),
            "--exe" => o.exe = Some(PathBuf::from(value()?)),
            "--kopium" => o.kopium = Some(PathBuf::from(value()?)),
            "--write" => o.write = true,
            "--compile-budget" => o.budget_s = value()?.parse().context("--compile-budget takes seconds")?,
            other => bail!(
                "unknown argument {other}; usage: cargo xtask realworld --mirrors DIR [--only NAME,..] \
                 [--skip kinds,fromcrd,kopium,rbac,adopt,wide] [--exe PATH] [--kopium PATH] [--write] [--compile-budget SECONDS]"
            ),
        }
    }
    if o.mirrors.as_os_str().is_empty() {
        bail!("pass --mirrors DIR, the folder holding the fetched git mirrors (owner+name/ folders)");
    }
    Ok(o)
}

pub fn run(args: &[String]) -> Result<()> {
    let o = options(args)?;
    let started = Instant::now();
    let recipe = Recipe::load(&root().join("xtask/realworld"))?;
    let wanted = |name: &str| o.only.is_empty() || o.only.iter().any(|w| w == name);
    let doing = |section: &str| !o.skip.iter().any(|s| s == section);
    let base = root().join("target/realworld");
    let exe = match &o.exe {
        Some(e) => e.canonicalize().with_context(|| format!("no kubesmith at {}", e.display()))?,
        None => {
            crate::cargo(&["build", "--release", "--locked", "-p", "kubesmith"], &[])?;
            root().join("target/release/kubesmith")
        }
    };
    let run = Run { exe, cargo_target: base.join("cargo-target"), limit_s: 3600 };
    let mut r = report::Report::default();

    // The CRD corpus: extract, then split into documents.
    let mut docs: Vec<crds::Doc> = Vec::new();
    for c in recipe.crds.iter().filter(|c| wanted(&c.name)) {
        let into = base.join("src/crds").join(&c.name);
        extract::extract(&o.mirrors, &c.repo, &c.commit, &c.files, &into)?;
        for f in &c.files {
            let text =
                std::fs::read_to_string(into.join(f)).with_context(|| format!("{}: {f} not extracted", c.name))?;
            for crd in crds::documents(&text).with_context(|| format!("{}: {f}", c.name))? {
                let name = crd.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default().to_string();
                let bytes = serde_yaml_ng::to_string(&crd).map(|s| s.len()).unwrap_or_default();
                docs.push(crds::Doc { project: c.name.clone(), file: f.clone(), name, crd, bytes });
            }
        }
    }
    r.crd_projects = recipe.crds.iter().filter(|c| wanted(&c.name)).count();
    for c in recipe.crds.iter().filter(|c| wanted(&c.name)) {
        let n = docs.iter().filter(|d| d.project == c.name).count();
        r.corpus.push(report::CorpusRow {
            name: c.name.clone(),
            at: format!("{}@{}", c.repo, &c.commit[..12]),
            gave: format!("{n} CRDs in {} files", c.files.len()),
            shapes: c.shapes.join(", "),
        });
    }
    for op in recipe.operators.iter().filter(|op| wanted(&op.name)) {
        let bins: Vec<&str> = op.bins.iter().map(|b| b.name.as_str()).collect();
        let deps: Vec<String> = op.deps.iter().map(|d| format!("{} {}", d.krate, d.version)).collect();
        r.corpus.push(report::CorpusRow {
            name: op.name.clone(),
            at: format!("{}@{}", op.repo, &op.commit[..12]),
            gave: format!(
                "binaries {}; kinds in {}",
                bins.join(", "),
                if op.kinds.is_empty() { "none".into() } else { op.kinds.join(", ") }
            ),
            shapes: deps.join(", "),
        });
    }
    eprintln!("realworld: {} CRDs of {} projects", docs.len(), r.crd_projects);

    if doing("fromcrd") {
        r.from_crd = from_crd_all(&run, &docs, &base.join("work/fromcrd"))?;
    }

    // The operators: extract each workspace and the crates its calls go through, patched to build offline
    // (not when every section that reads them is skipped: `--skip kinds,fromcrd,kopium,rbac,adopt` only makes
    // and times the wide crate).
    let mut trees: Vec<(&recipe::Operator, PathBuf, PathBuf)> = Vec::new();
    let read_operators = ["kinds", "rbac", "adopt"].into_iter().any(doing);
    for op in recipe.operators.iter().filter(|op| read_operators && wanted(&op.name)) {
        let tree = base.join("src/operators").join(&op.name);
        // the stamp names what the tree is made with, so a recipe adding a dependency patch re-extracts
        let also: Vec<String> =
            op.deps.iter().map(|d| format!("{} {} {} {}", d.krate, d.commit, d.path, d.git)).collect();
        let fresh = extract::extract_with(&o.mirrors, &op.repo, &op.commit, &op.paths, &tree, &also.join("\n"))?;
        extract::submodules(&o.mirrors, &op.repo, &op.commit, &op.submodules, &tree)?;
        let mut patches = Vec::new();
        for d in &op.deps {
            let dir = base.join("src/deps").join(format!("{}@{}", d.repo.replace('/', "+"), &d.commit[..12]));
            extract::extract(&o.mirrors, &d.repo, &d.commit, &[], &dir)?;
            if let Some(source) = extract::patch_source(&d.git) {
                patches.push((source.to_string(), d.krate.clone(), dir.join(&d.path)));
            }
        }
        let ws = tree.join(&op.root);
        if fresh {
            // a workspace of its own (not a member of kubesmith's, which holds target/), building the git
            // dependencies from their extracted copies
            let manifest = ws.join("Cargo.toml");
            let text = std::fs::read_to_string(&manifest)?;
            std::fs::write(&manifest, extract::with_patches(&text, &patches)?)?;
        }
        // The registry crates the lock names, fetched as a user's first build would (kubesmith reads them there).
        let fetched =
            Command::new("cargo").arg("fetch").env("RUSTUP_TOOLCHAIN", toolchain()).current_dir(&ws).output()?;
        if !fetched.status.success() {
            eprintln!(
                "realworld: {}: cargo fetch failed: {}",
                op.name,
                String::from_utf8_lossy(&fetched.stderr).lines().last().unwrap_or("")
            );
        }
        trees.push((op, tree, ws));
    }

    for (op, tree, ws) in &trees {
        if doing("kinds") {
            for k in &op.kinds {
                let dir = tree.join(k);
                // the workspace root's package (`.`) keeps its output in the project's own folder: a path ending
                // in `.` makes create_dir_all fail when the folder is new
                let project_out = base.join("work/kinds").join(&op.name);
                let out = if k == "." { project_out } else { project_out.join(k.replace('/', "+")) };
                eprintln!("realworld: {}: make manifests on {k}", op.name);
                let runs = kinds::run_crate(&run, &dir, &out, &format!("{}@{}", op.repo, op.commit), true)?;
                r.kind_errors.push((
                    op.name.clone(),
                    k.clone(),
                    runs.static_error.clone(),
                    runs.fallback_error.clone(),
                ));
                r.kinds.extend(kinds::classify(&op.name, k, &runs));
            }
        }
        if doing("rbac") {
            for b in &op.bins {
                eprintln!("realworld: {}: rbac infer --bin {}", op.name, b.name);
                r.rbac.push(rbac::measure(&run, &op.name, ws, b)?);
            }
        }
        if doing("adopt") {
            eprintln!("realworld: {}: adopt", op.name);
            r.adopt.push(adopt(&run, &op.name, ws, &base.join("work/adopt").join(&op.name))?);
        }
    }

    if doing("kopium") || doing("wide") {
        let kopium = kopium_binary(o.kopium.as_deref(), &base.join("tools"))?;
        let mut modules = Vec::new();
        for d in &docs {
            match crds::kopium(&kopium, d, &base.join("work/kopium-in"))? {
                Ok(versions) => modules
                    .extend(versions.into_iter().map(|(v, text)| (d.project.clone(), crds::module_name(d), v, text))),
                Err(why) => r.kopium_failed.push((d.project.clone(), d.name.clone(), why)),
            }
        }
        let wide =
            crds::write_wide_crate(&base.join("wide"), "realworld-kopium", &modules, &crate::harness::corpus_lock())?;
        if doing("wide") {
            r.wide = Some(time_wide(&run, &wide, 5)?);
        }
        if doing("kopium") {
            // one crate per project, so each compiles in minutes and its truth is kept on its own
            let started = Instant::now();
            let projects: std::collections::BTreeSet<&str> = modules.iter().map(|m| m.0.as_str()).collect();
            for p in projects {
                let mine: Vec<_> = modules.iter().filter(|m| m.0 == p).cloned().collect();
                let dir = base.join("work/kopium").join(p);
                let krate = crds::write_wide_crate(
                    &dir.join("crate"),
                    "realworld-kopium",
                    &mine,
                    &crate::harness::corpus_lock(),
                )?;
                let fingerprint = fingerprint(&mine);
                let allowed = started.elapsed().as_secs() < o.budget_s;
                eprintln!("realworld: kopium output of {p}: make manifests static, default and kube-derive's crd()");
                let runs = kinds::run_crate(&run, &krate, &dir.join("out"), &fingerprint, allowed)?;
                r.kopium_errors.push((
                    p.to_string(),
                    runs.static_error.clone(),
                    runs.fallback_error.clone(),
                    runs.truth_error.clone(),
                ));
                let rows = kinds::classify(p, "kopium", &runs);
                // the versions kopium gave that make manifests wrote no CRD for: refused before any compiling
                for (_, m, v, _) in &mine {
                    let written = rows.iter().any(|r| {
                        let name = r.key.rsplit_once('/').map_or(r.key.as_str(), |(n, _)| n);
                        crds::module_name_of(name) == *m && r.key.ends_with(&format!("/{v}"))
                    });
                    if !written {
                        let why = runs.static_error.clone().unwrap_or_else(|| "no CRD written".into());
                        r.kopium.push(kinds::KindRow {
                            project: p.to_string(),
                            krate: "kopium".into(),
                            key: format!("{m}/{v}"),
                            outcome: kinds::Outcome::RefusedUntried(why),
                        });
                    }
                }
                r.kopium.extend(rows);
            }
        }
    }

    r.partial = match (o.only.is_empty(), o.skip.is_empty()) {
        (true, true) => None,
        _ => Some(format!(
            "only: {}; skipped: {}",
            if o.only.is_empty() { "all".into() } else { o.only.join(", ") },
            if o.skip.is_empty() { "none".into() } else { o.skip.join(", ") }
        )),
    };
    r.commit = git_head();
    r.date = today();
    r.seconds = started.elapsed().as_secs();
    let text = r.render();
    println!("{text}");
    if (o.only.is_empty() && o.skip.is_empty()) || o.write {
        std::fs::write(root().join("docs/realworld.md"), &text)?;
        eprintln!("realworld: wrote docs/realworld.md");
    }
    Ok(())
}

/// Every CRD through `--from-crd`, two at a time.
fn from_crd_all(run: &Run, docs: &[crds::Doc], work: &Path) -> Result<Vec<(crds::Doc, crds::RoundTrip)>> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for w in 0..2 {
            let (next, results) = (&next, &results);
            s.spawn(move || {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(d) = docs.get(i) else { break };
                    let got = crds::round_trip(run, d, &work.join(format!("w{w}")))
                        .unwrap_or_else(|e| crds::RoundTrip::Refused(format!("harness: {e:#}")));
                    results.lock().expect("no panics").push((i, got));
                }
            });
        }
    });
    let mut results = results.into_inner().expect("no panics");
    results.sort_by_key(|(i, _)| *i);
    Ok(results.into_iter().map(|(i, got)| (docs[i].clone(), got)).collect())
}

/// `adopt` on a copy of the workspace `ws`: clean, or its problems; and whether `config/default` renders.
fn adopt(run: &Run, name: &str, ws: &Path, copy: &Path) -> Result<report::AdoptRow> {
    let _ = std::fs::remove_dir_all(copy);
    std::fs::create_dir_all(copy)?;
    let cp = Command::new("cp").arg("-a").arg(format!("{}/.", ws.display())).arg(copy).status()?;
    if !cp.success() {
        bail!("cannot copy {} to {}", ws.display(), copy.display());
    }
    let ran = run.kubesmith(copy, &["adopt"], &[])?;
    let problems: Vec<String> = ran
        .stderr
        .lines()
        .filter(|l| l.starts_with("error") || l.starts_with("warning") || l.trim_start().starts_with("- "))
        .take(6)
        .map(|l| l.chars().take(200).collect())
        .collect();
    let renders = copy.join("config/default").is_dir().then(|| {
        Command::new("kubectl")
            .args(["kustomize", "config/default"])
            .current_dir(copy)
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    });
    Ok(report::AdoptRow {
        project: name.into(),
        clean: ran.ok && !ran.stderr.contains("warning"),
        ok: ran.ok,
        problems,
        renders,
    })
}

/// `make manifests --no-compile` on the wide crate: `runs` timed runs after a warm-up, and the peak RSS.
fn time_wide(run: &Run, dir: &Path, runs: usize) -> Result<report::Wide> {
    let t = crate::kopium_crate::time(&run.exe, dir, runs)?;
    let rust_bytes = crate::kopium_crate::rust_files(&dir.join("src")).iter().map(|(_, len)| len).sum();
    Ok(report::Wide {
        median_ms: t.median().as_millis() as u64,
        rss_kib: t.rss_kib.unwrap_or(0),
        crds: t.crds.count,
        rust_bytes,
    })
}

/// kopium: the given path, else on PATH, else installed from crates.io into `tools`.
fn kopium_binary(given: Option<&Path>, tools: &Path) -> Result<PathBuf> {
    if let Some(p) = given {
        return Ok(p.to_path_buf());
    }
    if Command::new("kopium").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return Ok(PathBuf::from("kopium"));
    }
    let installed = tools.join("bin/kopium");
    if !installed.exists() {
        eprintln!("realworld: installing kopium from crates.io into {}", tools.display());
        let ok = Command::new("cargo").args(["install", "--locked", "kopium", "--root"]).arg(tools).status()?;
        if !ok.success() {
            bail!("cannot install kopium (cargo install kopium); pass --kopium PATH");
        }
    }
    Ok(installed)
}

/// What a generated crate is, for its cached truth: a hash of its modules.
fn fingerprint(modules: &[(String, String, String, String)]) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    modules.hash(&mut h);
    format!("{:016x}", h.finish())
}

/// The toolchain xtask itself runs on (`RUSTUP_TOOLCHAIN` as rustup set it, else `stable`).
fn toolchain() -> String {
    std::env::var("RUSTUP_TOOLCHAIN").unwrap_or_else(|_| "stable".into())
}

fn git_head() -> String {
    let out = Command::new("git").args(["rev-parse", "--short=12", "HEAD"]).current_dir(root()).output();
    let head = out.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_default();
    let dirty = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no", "--", "src"])
        .current_dir(root())
        .output()
        .is_ok_and(|o| !o.stdout.is_empty());
    if dirty { format!("{head} (src/ modified)") } else { head }
}

fn today() -> String {
    let out = Command::new("date").args(["-u", "+%Y-%m-%d"]).output();
    out.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_default()
}
