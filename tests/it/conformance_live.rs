//! Live conformance with kube-derive: compile the corpus inputs (`tests/conformance/kube-derive/input-*.rs`, one
//! binary each) against the corpus' exact dependency set (`input-Cargo.toml` + `input-Cargo.lock`: kube 5.0.0,
//! k8s-openapi 0.29.0, schemars 1.2.3), run them, and check that
//! 1. what they print is what `out/` holds (else: `cargo xtask conformance --bless`, then review the diff), and
//! 2. kubesmith's static output for every sample in `crd_conformance::SAMPLES` equals the live `crd()`, and
//! 3. for every sample in `crd_conformance::COMPILED` kubesmith leaves exactly the schema to the compiled
//!    fallback, naming each construct, and the rest of its CRD equals the live `crd()`,
//! 4. kube-derive still panics on (or emits what the API server rejects for) every sample kubesmith refuses
//!    (`crd_conformance::REFUSED`), and
//! 5. `make manifests` with the compiled fallback gives the live `crd()` of every `COMPILED` sample.
//!
//! The same harness build holds kube-derive's own test files as binaries (`conformance_suite`), so the heavy
//! dependencies compile once for both.
//!
//! The harness crate lives under `CARGO_TARGET_TMPDIR` and builds in the e2e tests' shared target folder.
//! `KUBESMITH_SKIP_E2E=1` skips it; `KUBESMITH_BLESS=1` (what `cargo xtask conformance --bless` sets) rewrites
//! `out/` from the live outputs instead of comparing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::conformance_suite::{SuiteRun, suite_files};
use crate::crd_conformance::{
    COMPILED, REFUSED, SAMPLES, check_against, check_pending, check_refused, corpus_dir, diff, strip_expected,
};
use crate::e2e::{corpus_build_env, corpus_target};
use crate::support::blessing;

/// Writes `text` to `path` unless it already holds it (keeps cargo's fingerprints fresh).
fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return;
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The corpus inputs: (binary name, source).
fn inputs() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(corpus_dir()).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_prefix("input-").and_then(|n| n.strip_suffix(".rs")) {
            out.push((stem.to_string(), std::fs::read_to_string(&p).unwrap()));
        }
    }
    out.sort();
    out
}

/// The harness crate's folder (under `CARGO_TARGET_TMPDIR`, never part of the repository).
fn harness_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kube-derive-harness")
}

/// Writes the harness crate's manifest, lock file (the corpus' exact dependency set) and corpus binaries;
/// returns its folder.
pub(crate) fn harness_manifest() -> PathBuf {
    let dir = harness_dir();
    for (stem, src) in inputs() {
        write_if_changed(&dir.join("src/bin").join(format!("{stem}.rs")), &src);
    }
    let manifest = std::fs::read_to_string(corpus_dir().join("input-Cargo.toml")).unwrap();
    write_if_changed(
        &dir.join("Cargo.toml"),
        &format!("{manifest}\n# Not part of the kubesmith workspace.\n[workspace]\n"),
    );
    write_if_changed(&dir.join("Cargo.lock"), &std::fs::read_to_string(corpus_dir().join("input-Cargo.lock")).unwrap());
    dir
}

/// What the harness printed: the corpus outputs (name → contents) and, per kube-derive test file, the
/// `crd()` outcome of every kind it defines at module level.
pub(crate) struct HarnessRun {
    pub(crate) corpus: BTreeMap<String, String>,
    pub(crate) suite: Vec<SuiteRun>,
}

/// Builds the harness once per test process (the corpus and kube-derive's own tests share one build) and runs
/// every binary.
pub(crate) fn harness() -> &'static HarnessRun {
    static RUN: std::sync::OnceLock<HarnessRun> = std::sync::OnceLock::new();
    RUN.get_or_init(run_harness)
}

/// Builds the harness and runs every input binary.
fn run_harness() -> HarnessRun {
    let dir = harness_manifest();
    let suite = suite_files();
    let mut bins = inputs();
    bins.extend(suite.iter().filter_map(|f| f.harness_bin()));
    let bin_dir = dir.join("src/bin");
    if let Ok(entries) = std::fs::read_dir(&bin_dir) {
        for e in entries {
            let p = e.unwrap().path();
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            if !bins.iter().any(|(s, _)| *s == stem) {
                std::fs::remove_file(p).unwrap();
            }
        }
    }
    for (stem, src) in &bins {
        write_if_changed(&bin_dir.join(format!("{stem}.rs")), src);
    }
    let started = std::time::Instant::now();
    let out = Command::new(env!("CARGO"))
        .args(["build", "--locked", "--bins", "--quiet"])
        .current_dir(&dir)
        .envs(corpus_build_env())
        .env_remove("RUSTFLAGS")
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .expect("cannot run cargo");
    eprintln!("conformance: building the kube-derive harness took {:.1}s", started.elapsed().as_secs_f64());
    assert!(
        out.status.success(),
        "the kube-derive harness does not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results = tempfile::tempdir().unwrap();
    for (stem, _) in &bins {
        let exe = corpus_target().join("debug").join(stem);
        let run = Command::new(&exe)
            .arg(results.path())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
        assert!(run.status.success(), "{stem} failed:\n{}", String::from_utf8_lossy(&run.stderr));
    }
    let mut corpus = BTreeMap::new();
    for e in std::fs::read_dir(results.path()).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_file() && is_output(&name) {
            corpus.insert(name, std::fs::read_to_string(&p).unwrap());
        }
    }
    let suite = suite.into_iter().map(|f| f.collect(results.path())).collect();
    HarnessRun { corpus, suite }
}

/// The files `out/` keeps: CRDs and raw schemas as JSON, and kube-derive's panic messages.
fn is_output(name: &str) -> bool {
    name.ends_with(".json") || name.ends_with(".PANIC.txt")
}

fn out_dir() -> PathBuf {
    corpus_dir().join("out")
}

fn bless(files: &BTreeMap<String, String>) {
    for e in std::fs::read_dir(out_dir()).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if !files.contains_key(&name) {
            std::fs::remove_file(&p).unwrap();
        }
    }
    for (name, text) in files {
        write_if_changed(&out_dir().join(name), text);
    }
    eprintln!("conformance: blessed {} files in {}", files.len(), out_dir().display());
}

#[test]
fn kube_derive_corpus_compiled_live_matches_out_and_kubesmith() {
    if std::env::var_os("KUBESMITH_SKIP_E2E").is_some() {
        eprintln!("KUBESMITH_SKIP_E2E is set: skipping the live kube-derive conformance run");
        return;
    }
    let files = &harness().corpus;
    if blessing() {
        bless(files);
        return;
    }
    let mut problems = Vec::new();
    // 1. out/ is what kube-derive produces today.
    let mut committed = Vec::new();
    for e in std::fs::read_dir(out_dir()).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if !files.contains_key(&name) {
            problems.push(format!("out/{name} is committed but the corpus no longer produces it"));
        }
        committed.push(name);
    }
    for (name, live) in files {
        let Ok(old) = std::fs::read_to_string(out_dir().join(name)) else {
            problems.push(format!("out/{name} is missing"));
            continue;
        };
        if name.ends_with(".json") {
            let (a, b): (Value, Value) = (serde_json::from_str(live).unwrap(), serde_json::from_str(&old).unwrap());
            if let Some(d) = diff(&a, &b, "") {
                problems.push(format!("out/{name} differs from the live output at {d}"));
            }
        } else if old.trim() != live.trim() {
            problems.push(format!("out/{name} differs from the live output"));
        }
    }
    if !problems.is_empty() {
        problems.push("run `cargo xtask conformance --bless` and review `git diff tests/conformance`".into());
    }
    // 2. kubesmith reproduces every listed sample.
    for sample in SAMPLES {
        let name = format!("{}.json", sample.name);
        let Some(live) = files.get(&name) else {
            problems.push(format!("the corpus produced no {name}"));
            continue;
        };
        let want = strip_expected(sample, serde_json::from_str(live).unwrap());
        if let Err(e) = check_against(sample, &want) {
            problems.push(e);
        }
    }
    // 3. Samples only compiling can produce: kubesmith leaves exactly their schemas to the fallback.
    for (sample, because) in COMPILED {
        let name = format!("{}.json", sample.name);
        let Some(live) = files.get(&name) else {
            problems.push(format!("the corpus produced no {name}"));
            continue;
        };
        if let Err(e) = check_pending(sample, because, &serde_json::from_str(live).unwrap()) {
            problems.push(e);
        }
    }
    // 4. kube-derive still panics on (or emits what the API server rejects for) every sample kubesmith refuses.
    for r in REFUSED {
        let (panic, json) = (format!("{}.PANIC.txt", r.name), format!("{}.json", r.name));
        match (r.rejected_because, files.contains_key(&panic), files.contains_key(&json)) {
            (None, true, _) | (Some(_), _, true) => {}
            (None, _, _) => problems.push(format!("kube-derive no longer panics on {}: kubesmith refuses it", r.name)),
            (Some(_), _, _) => problems.push(format!("the corpus produced no {json}")),
        }
        if let Err(e) = check_refused(r) {
            problems.push(e);
        }
    }
    // 5. The compiled fallback completes those samples exactly as kube-derive's crd() (the real binary, cargo and
    //    the corpus' own lock file).
    for (sample, _) in COMPILED {
        let Some(live) = files.get(&format!("{}.json", sample.name)) else { continue };
        if let Err(e) = fallback_matches(sample, &serde_json::from_str(live).unwrap()) {
            problems.push(e);
        }
    }
    assert!(problems.is_empty(), "live conformance with kube-derive failed:\n  {}", problems.join("\n  "));
    eprintln!("conformance: {} live outputs match out/; kubesmith matches {} samples", files.len(), SAMPLES.len());
}

/// `make manifests` on a package made of `sample`'s input file (the corpus' dependencies and lock file), compiling
/// what it must in the shared target folder, gives kube-derive's CRD `want` for the sample's kind.
fn fallback_matches(sample: &crate::crd_conformance::Sample, want: &Value) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let manifest = std::fs::read_to_string(corpus_dir().join("input-Cargo.toml")).unwrap();
    let lock = std::fs::read_to_string(corpus_dir().join("input-Cargo.lock")).unwrap();
    // The corpus' package name too (`scratch`): a sample may print `env!("CARGO_PKG_NAME")` into its schema.
    write_if_changed(&dir.path().join("Cargo.toml"), &format!("{manifest}\n[workspace]\n"));
    write_if_changed(&dir.path().join("Cargo.lock"), &lock);
    // The whole input file, as it compiles: its other kinds are generated statically beside the compiled one.
    let input = std::fs::read_to_string(corpus_dir().join(sample.input)).unwrap();
    write_if_changed(&dir.path().join("src/lib.rs"), &input);
    let out = crate::support::ks(dir.path())
        .args(["make", "manifests", "--crd-dir", "out"])
        .envs(corpus_build_env())
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if !out.status.success() || !said.contains("note: compiled ") {
        return Err(format!("{}: make manifests with the compiled fallback failed:\n{said}", sample.name));
    }
    let name = format!(
        "{}_{}.yaml",
        want["spec"]["group"].as_str().unwrap(),
        want["spec"]["names"]["plural"].as_str().unwrap()
    );
    let got: Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(dir.path().join("out").join(&name)).unwrap()).unwrap();
    match diff(&got, want, "") {
        Some(d) => Err(format!("{}: the compiled fallback's CRD differs from kube-derive's at {d}", sample.name)),
        None => Ok(()),
    }
}
