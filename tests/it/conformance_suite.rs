//! kube-derive's own test suite run through kubesmith, read from the kube-derive 5.0.0 crate cargo unpacks into
//! its registry (located with `cargo metadata` on the live conformance harness), never copied into this
//! repository:
//!
//! - every kind a `tests/*.rs` file defines is compiled: the file plus a generated `main` that prints each
//!   module-level kind's `crd()` (or its panic) is one more binary of the live harness
//!   (`conformance_live::harness`); kubesmith's output for the same file run as a crate of its own must equal
//!   it, refuse what panics (naming what the panic names), or refuse one of [`REFUSED_ON_PURPOSE`]; a kind
//!   defined inside a fn body (no `main` can reach it) must be refused by kubesmith at its derive;
//! - every compile-fail case `tests/ui/*.rs` goes through the real `kubesmith make manifests`, which must exit 1,
//!   leave the tree as it was and report, at the line of each error kube-derive's `.stderr` reports, a problem
//!   naming everything that error names in backquotes. No ui case is excluded: each is refused for a reason
//!   that bears on the CRD (or on whether there is one).
//!
//! Both need kube-derive's sources (and the harness build), so `KUBESMITH_SKIP_E2E=1` skips them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use kubesmith::crd::{self, K8sTable, SourceSet, kube_attrs, spec};
use serde_json::Value;
use syn::visit::Visit;

use crate::conformance_live::{harness, harness_manifest};
use crate::crd_conformance::diff;
use crate::support::{ks, snapshot};

/// Kinds of kube-derive's tests whose `crd()` kubesmith refuses on purpose: (test file, kind, what the refusal
/// says, why).
const REFUSED_ON_PURPOSE: &[(&str, &str, &str, &str)] = &[(
    "crd_schema_test",
    "Foo",
    "does not serve any version",
    "its only version has `served = false` and `storage = false`: the API server rejects a CRD without a storage \
     version, and kubesmith, like controller-gen, refuses a CRD that serves no version",
)];

fn skip() -> bool {
    let skip = std::env::var_os("KUBESMITH_SKIP_E2E").is_some();
    if skip {
        eprintln!("KUBESMITH_SKIP_E2E is set: skipping kube-derive's own test suite");
    }
    skip
}

/// The unpacked kube-derive 5.0.0 crate the harness depends on (through kube).
pub(crate) fn kube_derive_dir() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = harness_manifest();
        let out = Command::new(env!("CARGO"))
            .args(["metadata", "--locked", "--format-version", "1"])
            .current_dir(&dir)
            .output()
            .expect("cannot run cargo metadata");
        assert!(out.status.success(), "cargo metadata failed:\n{}", String::from_utf8_lossy(&out.stderr));
        let meta: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON");
        let pkg = meta["packages"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["name"] == "kube-derive" && p["version"] == "5.0.0")
            .expect("the harness depends on kube-derive 5.0.0");
        let manifest = PathBuf::from(pkg["manifest_path"].as_str().expect("manifest_path"));
        manifest.parent().expect("crate folder").to_path_buf()
    })
    .clone()
}

/// A kind a kube-derive test file defines.
#[derive(Debug, Clone)]
pub(crate) struct SuiteKind {
    /// Rust path of the generated root type from the crate root (`Foo`, `m::Foo`).
    root: String,
    kind: String,
    /// `plural.group`.
    crd_name: String,
    line: usize,
    /// At module level (outside fn bodies and `#[cfg(test)]` modules), so a `main` can call its `crd()`.
    reachable: bool,
}

/// One `tests/*.rs` file of kube-derive.
pub(crate) struct SuiteFile {
    stem: String,
    text: String,
    kinds: Vec<SuiteKind>,
}

/// What a kind's `crd()` did.
#[derive(Debug)]
enum Outcome {
    Crd(Value),
    Panic(String),
}

/// A test file and the outcome of each reachable kind's `crd()`, by root path.
pub(crate) struct SuiteRun {
    file: SuiteFile,
    outcomes: BTreeMap<String, Outcome>,
}

/// Finds every `#[derive(CustomResource)]` of a file, module-level or not.
struct KindFinder {
    modules: Vec<String>,
    hidden: usize,
    kinds: Vec<SuiteKind>,
}

impl KindFinder {
    fn found(&mut self, attrs: &[syn::Attribute]) {
        let Some(span) = spec::custom_resource_derive(attrs) else { return };
        let k = kube_attrs::parse(attrs, span).expect("kube-derive's tests compile, so their #[kube] reads");
        let (_, kind, crd_name) = spec::crd_key(&k);
        let mut root: Vec<String> = self.modules.clone();
        root.push(k.root.clone().unwrap_or_else(|| k.kind.clone()));
        self.kinds.push(SuiteKind {
            root: root.join("::"),
            kind,
            crd_name,
            line: span.start().line,
            reachable: self.hidden == 0,
        });
    }
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("cfg") && a.meta.require_list().is_ok_and(|l| l.tokens.to_string().trim() == "test"))
}

impl<'ast> Visit<'ast> for KindFinder {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let test = is_cfg_test(&m.attrs);
        self.hidden += usize::from(test);
        self.modules.push(m.ident.to_string());
        syn::visit::visit_item_mod(self, m);
        self.modules.pop();
        self.hidden -= usize::from(test);
    }
    fn visit_block(&mut self, b: &'ast syn::Block) {
        self.hidden += 1;
        syn::visit::visit_block(self, b);
        self.hidden -= 1;
    }
    fn visit_item_struct(&mut self, s: &'ast syn::ItemStruct) {
        self.found(&s.attrs);
    }
    fn visit_item_enum(&mut self, e: &'ast syn::ItemEnum) {
        self.found(&e.attrs);
    }
}

/// kube-derive's `tests/*.rs`, with the kinds each defines.
pub(crate) fn suite_files() -> Vec<SuiteFile> {
    let tests = kube_derive_dir().join("tests");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&tests)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", tests.display()))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable test file");
            let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let mut finder = KindFinder { modules: Vec::new(), hidden: 0, kinds: Vec::new() };
            finder.visit_file(&file);
            let stem = p.file_stem().expect("stem").to_string_lossy().into_owned();
            SuiteFile { stem, text, kinds: finder.kinds }
        })
        .collect()
}

impl SuiteFile {
    fn bin(&self) -> String {
        format!("kube_derive_{}", self.stem)
    }

    /// The harness binary: the test file as it is (its `#[test]` fns and `#[cfg(test)]` modules vanish in a
    /// binary) plus a `main` printing every reachable kind's `crd()`; `None` when the file defines no kind.
    pub(crate) fn harness_bin(&self) -> Option<(String, String)> {
        let calls: Vec<String> = self
            .kinds
            .iter()
            .filter(|k| k.reachable)
            .map(|k| {
                format!(
                    "    __kubesmith_crd(&dir, \"{0}\", <{0} as ::kube::core::crd::v1::CustomResourceExt>::crd);\n",
                    k.root
                )
            })
            .collect();
        if calls.is_empty() {
            return None;
        }
        let main = format!(
            r#"

// Appended by kubesmith's live conformance test (tests/it/conformance_suite.rs): print every kind's crd().
fn main() {{
    let dir = ::std::path::PathBuf::from(::std::env::args().nth(1).expect("output folder")).join("{stem}");
    ::std::fs::create_dir_all(&dir).expect("output folder");
    ::std::panic::set_hook(Box::new(|_| {{}}));
{calls}}}

fn __kubesmith_crd(
    dir: &::std::path::Path,
    root: &str,
    crd: fn() -> ::k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
) {{
    match ::std::panic::catch_unwind(crd) {{
        Ok(crd) => ::std::fs::write(dir.join(format!("{{root}}.json")), ::serde_json::to_string_pretty(&crd).unwrap()),
        Err(e) => {{
            let msg = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
            ::std::fs::write(dir.join(format!("{{root}}.PANIC.txt")), msg.unwrap_or_default())
        }}
    }}
    .expect("writable output folder");
}}
"#,
            stem = self.stem,
            calls = calls.concat()
        );
        Some((self.bin(), format!("{}{main}", self.text)))
    }

    /// The outcomes the harness binary wrote into `results`.
    pub(crate) fn collect(self, results: &Path) -> SuiteRun {
        let dir = results.join(&self.stem);
        let mut outcomes = BTreeMap::new();
        for k in self.kinds.iter().filter(|k| k.reachable) {
            let json = dir.join(format!("{}.json", k.root));
            let outcome = match std::fs::read_to_string(&json) {
                Ok(text) => Outcome::Crd(serde_json::from_str(&text).expect("crd() as JSON")),
                Err(_) => Outcome::Panic(
                    std::fs::read_to_string(dir.join(format!("{}.PANIC.txt", k.root)))
                        .unwrap_or_else(|_| panic!("{}: no output for {}", self.stem, k.root)),
                ),
            };
            outcomes.insert(k.root.clone(), outcome);
        }
        SuiteRun { file: self, outcomes }
    }
}

/// kubesmith's static generation for `text` as the `lib.rs` of a crate of its own.
fn kubesmith_on(text: &str) -> (crd::Generation, PathBuf, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tempdir");
    let lib = dir.path().join("src/lib.rs");
    std::fs::create_dir_all(lib.parent().expect("src")).expect("mkdir");
    std::fs::write(&lib, text).expect("write");
    let generation =
        crd::generate_all(&SourceSet::new(&dir.path().join("src")), K8sTable::default_table()).expect("a crate root");
    (generation, lib, dir)
}

/// The first `"quoted"` word of a panic message: what kube-derive's panic is about (a property, a variant).
fn panic_subject(msg: &str) -> Option<&str> {
    let start = msg.find('"')? + 1;
    let len = msg[start..].find('"')?;
    Some(&msg[start..start + len])
}

/// Figures of one run of the suite.
#[derive(Default, Debug)]
struct Figures {
    kinds: usize,
    equal: usize,
    refused_like_panic: usize,
    refused_on_purpose: usize,
    unreachable_refused: usize,
}

/// Compares one test file's kinds; returns the problems.
fn check_file(run: &SuiteRun, figures: &mut Figures) -> Vec<String> {
    let stem = &run.file.stem;
    let (generation, lib, _dir) = kubesmith_on(&run.file.text);
    let mut problems = Vec::new();
    let problems_of = |name: &str| -> Vec<String> {
        generation.problems.iter().filter(|p| p.crd.as_deref() == Some(name)).map(|p| p.error.to_string()).collect()
    };
    for p in generation.problems.iter().filter(|p| p.crd.is_none()) {
        problems.push(format!("{stem}: a problem of no kind: {}", p.error));
    }
    for c in &generation.pending {
        problems.push(format!("{stem}: kind {} needs compiling: {:?}", c.crd.name, c.versions));
    }
    for k in &run.file.kinds {
        figures.kinds += 1;
        let refusals = problems_of(&k.crd_name);
        let generated = generation.crds.iter().find(|c| c.name == k.crd_name);
        let at = format!("{stem}: kind {} ({})", k.kind, k.root);
        if !k.reachable {
            let line = format!("{}:{}:", lib.display(), k.line);
            if refusals.iter().any(|r| r.starts_with(&line)) {
                figures.unreachable_refused += 1;
            } else {
                problems.push(format!("{at} is defined where crd() cannot be reached, and kubesmith does not say so at {line} (it says {refusals:?})"));
            }
            continue;
        }
        let on_purpose = REFUSED_ON_PURPOSE.iter().find(|(f, kind, _, _)| f == stem && *kind == k.kind);
        match (&run.outcomes[&k.root], generated, on_purpose) {
            (Outcome::Crd(want), Some(got), None) => match diff(&got.crd, want, "") {
                None => figures.equal += 1,
                Some(d) => problems.push(format!("{at}: kubesmith's CRD differs from kube-derive's at {d}")),
            },
            (Outcome::Crd(_), None, Some((_, _, says, _))) => {
                if refusals.iter().any(|r| r.contains(says)) {
                    figures.refused_on_purpose += 1;
                } else {
                    problems.push(format!("{at}: refused on purpose, but not saying {says:?}: {refusals:?}"));
                }
            }
            (Outcome::Crd(_), _, _) => {
                problems.push(format!("{at}: kube-derive generates it; kubesmith: {refusals:?}"));
            }
            (Outcome::Panic(msg), None, _) => {
                let subject = panic_subject(msg);
                let named = |r: &&String| {
                    subject.is_none_or(|s| r.contains(&format!("`{s}`")) || r.contains(&format!("\"{s}\"")))
                };
                if refusals.iter().any(|r| named(&r)) {
                    figures.refused_like_panic += 1;
                } else {
                    problems.push(format!(
                        "{at}: kube-derive's crd() panics ({msg}); kubesmith must refuse it naming {subject:?}, it \
                         says {refusals:?}"
                    ));
                }
            }
            (Outcome::Panic(msg), Some(_), _) => {
                problems.push(format!("{at}: kube-derive's crd() panics ({msg}) but kubesmith generates a CRD"));
            }
        }
    }
    for c in &generation.crds {
        if !run.file.kinds.iter().any(|k| k.crd_name == c.name) {
            problems.push(format!("{stem}: kubesmith generates {} which the file does not define", c.name));
        }
    }
    problems
}

#[test]
fn kube_derive_test_suite_kinds_match_kubesmith() {
    if skip() {
        return;
    }
    let mut figures = Figures::default();
    let mut problems = Vec::new();
    let runs = &harness().suite;
    for run in runs {
        problems.extend(check_file(run, &mut figures));
    }
    eprintln!(
        "kube-derive's own tests ({} files): {} kinds; {} equal to crd(), {} refused where crd() panics, {} refused \
         on purpose, {} defined where no crd() can be called (inside a fn) and refused at their derive",
        runs.len(),
        figures.kinds,
        figures.equal,
        figures.refused_like_panic,
        figures.refused_on_purpose,
        figures.unreachable_refused
    );
    for (file, kind, _, why) in REFUSED_ON_PURPOSE {
        eprintln!("  refused on purpose: {file} {kind}: {why}");
    }
    assert!(problems.is_empty(), "kube-derive's own tests through kubesmith:\n  {}", problems.join("\n  "));
    assert!(figures.equal > 0, "no kind of kube-derive's tests was compared");
}

/// One `error: ...` of a trybuild `.stderr` (a proc-macro's own error, not a follow-on `error[E..]` of rustc).
#[derive(Debug)]
struct ExpectedError {
    message: String,
    line: usize,
}

fn expected_errors(stderr: &str) -> Vec<ExpectedError> {
    let lines: Vec<&str> = stderr.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some(message) = l.strip_prefix("error: ") else { continue };
        let location = lines[i + 1..].iter().find_map(|l| l.trim_start().strip_prefix("--> "));
        let line = location
            .and_then(|loc| loc.rsplit(':').nth(1))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no location for {l:?}"));
        out.push(ExpectedError { message: message.to_string(), line });
    }
    out
}

/// The words an error message names in backquotes.
fn named(message: &str) -> Vec<&str> {
    message.split('`').skip(1).step_by(2).collect()
}

#[test]
fn kube_derive_ui_cases_are_refused_naming_what_kube_derive_names() {
    if skip() {
        return;
    }
    let ui = kube_derive_dir().join("tests/ui");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&ui)
        .expect("kube-derive ships tests/ui")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    cases.sort();
    let mut problems = Vec::new();
    for case in &cases {
        let name = case.file_name().expect("name").to_string_lossy().into_owned();
        let stderr = std::fs::read_to_string(case.with_extension("stderr")).expect("a .stderr per case");
        let expected = expected_errors(&stderr);
        assert!(!expected.is_empty(), "{name}: no error in its .stderr");
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("src")).expect("mkdir");
        std::fs::copy(case, dir.path().join("src/main.rs")).expect("copy");
        let before = snapshot(dir.path());
        let out = ks(dir.path()).args(["make", "manifests", "--crd-dir", "out"]).output().expect("run kubesmith");
        let said = String::from_utf8_lossy(&out.stderr).into_owned();
        if out.status.code() != Some(1) {
            problems.push(format!("{name}: exit code {:?} (want 1); it says {said}", out.status.code()));
        }
        if snapshot(dir.path()) != before {
            problems.push(format!("{name}: the tree changed"));
        }
        // kubesmith's problems: (line, message).
        let reported: Vec<(usize, &str)> = said
            .lines()
            .filter_map(|l| {
                let rest = &l[l.find("src/main.rs:")? + "src/main.rs:".len()..];
                let mut parts = rest.splitn(3, ':');
                let line = parts.next()?.parse().ok()?;
                parts.next()?;
                Some((line, parts.next()?.trim()))
            })
            .collect();
        for e in &expected {
            let ok =
                reported.iter().any(|(line, msg)| *line == e.line && named(&e.message).iter().all(|w| msg.contains(w)));
            if !ok {
                problems.push(format!(
                    "{name}: kube-derive says {:?} at line {}; kubesmith names none of that there: {said}",
                    e.message, e.line
                ));
            }
        }
    }
    eprintln!(
        "kube-derive's ui cases: {} of {} refused by `make manifests` naming what kube-derive names",
        cases.len()
            - problems
                .iter()
                .map(|p| p.split(':').next().unwrap_or_default())
                .collect::<std::collections::BTreeSet<_>>()
                .len(),
        cases.len()
    );
    assert!(problems.is_empty(), "kube-derive's ui cases through kubesmith:\n  {}", problems.join("\n  "));
}
