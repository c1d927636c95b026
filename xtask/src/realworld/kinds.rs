//! `make manifests` on a crate's kinds against kube-derive's own `crd()`: the static reader (`--no-compile`), the
//! default run (static, then the compiled fallback for what needs it), and the truth, every kind compiled through
//! the fallback with `KUBESMITH_COMPILE_ALL` recording what each version's `crd()` printed (built once, cached).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::Value;

use super::compare::{first_difference, non_structural, version_view};
use super::{Run, read_crd_dir};

/// How one version of one kind came out.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Equal to `crd()` without compiling.
    Static,
    /// Equal to `crd()` through the compiled fallback.
    Fallback,
    /// Refused; `structural` says whether kube-derive's own output passes the structural check.
    Refused { why: String, truth_structural: bool },
    /// Different from `crd()`: the first differing path.
    Wrong(String),
    /// No truth: `crd()` could not be had (the harness did not build), so nothing is judged.
    Unjudged(String),
    /// Refused by the static reader before any compiling, so no `crd()` was taken for it (compile-all only takes
    /// kinds that read without error): whether kube-derive's output is valid is not known.
    RefusedUntried(String),
}

impl Outcome {
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::Static => "equal static",
            Outcome::Fallback => "equal through the fallback",
            Outcome::Refused { truth_structural: false, .. } => "refused, crd() non-structural",
            Outcome::Refused { .. } => "refused, crd() valid",
            Outcome::Wrong(_) => "wrong",
            Outcome::Unjudged(_) => "unjudged",
            Outcome::RefusedUntried(_) => "refused, crd() not taken",
        }
    }
}

/// One version of one kind.
#[derive(Debug, Clone)]
pub struct KindRow {
    pub project: String,
    /// The crate folder, from the project's root.
    pub krate: String,
    /// `plural.group/version`.
    pub key: String,
    pub outcome: Outcome,
}

/// The three runs' outputs for one crate.
pub struct Runs {
    pub static_crds: BTreeMap<String, Value>,
    pub fallback_crds: BTreeMap<String, Value>,
    /// `name/version` → the whole CRD `crd()` printed for that version.
    pub truth: Option<BTreeMap<String, Value>>,
    /// Why there is no truth (the harness failed), else the fallback run's first error, if any.
    pub truth_error: Option<String>,
    pub fallback_error: Option<String>,
    pub static_error: Option<String>,
}

/// Runs kubesmith three ways on the crate in `dir` (its sources in `dir/src`), outputs under `out`. The truth is
/// kept between runs while `fingerprint` (what the crate is: a pinned commit, a hash of generated sources) is the
/// same; without `truth_allowed` a missing truth is not built (a time budget ran out).
pub fn run_crate(run: &Run, dir: &Path, out: &Path, fingerprint: &str, truth_allowed: bool) -> Result<Runs> {
    let source = ["--source", "src", "--keep-going", "--crd-dir"];
    let static_dir = out.join("static");
    let fallback_dir = out.join("fallback");
    let truth_dir = out.join("truth");
    let truth_file = out.join("truth.json");
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let _ = std::fs::remove_dir_all(&static_dir);
    let _ = std::fs::remove_dir_all(&fallback_dir);
    let s = run.kubesmith(
        dir,
        &[&["make", "manifests"], &source[..], &[&path(&static_dir), "--no-compile"]].concat(),
        &[],
    )?;
    let f = run.kubesmith(dir, &[&["make", "manifests"], &source[..], &[&path(&fallback_dir)]].concat(), &[])?;
    let stamp = out.join("truth.stamp");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(fingerprint) {
        let _ = std::fs::remove_file(&truth_file);
    }
    let mut truth_error = None;
    if !truth_file.is_file() && !truth_allowed {
        truth_error = Some("crd() not compiled: the run's time budget for compiling was spent".to_string());
    } else if !truth_file.is_file() {
        let _ = std::fs::remove_dir_all(&truth_dir);
        let t = run.kubesmith(
            dir,
            &[&["make", "manifests"], &source[..], &[&path(&truth_dir)]].concat(),
            &[("KUBESMITH_COMPILE_ALL", &path(&truth_file))],
        )?;
        if !t.ok && !truth_file.is_file() {
            truth_error = Some(t.first_error());
        }
        std::fs::write(&stamp, fingerprint)?;
    }
    let truth = std::fs::read_to_string(&truth_file).ok().and_then(|t| serde_json::from_str(&t).ok());
    Ok(Runs {
        static_crds: read_crd_dir(&static_dir),
        fallback_crds: read_crd_dir(&fallback_dir),
        truth,
        truth_error,
        fallback_error: (!f.ok).then(|| f.first_error()),
        static_error: (!s.ok).then(|| s.first_error()),
    })
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

/// Classifies every version the truth has (and every CRD kubesmith wrote that the truth lacks).
pub fn classify(project: &str, krate: &str, runs: &Runs) -> Vec<KindRow> {
    let row = |key: String, outcome| KindRow { project: project.into(), krate: krate.into(), key, outcome };
    let Some(truth) = &runs.truth else {
        let why = runs.truth_error.clone().unwrap_or_else(|| "no kind compiled".into());
        let mut keys: Vec<String> = Vec::new();
        for crd in runs.fallback_crds.values().chain(runs.static_crds.values()) {
            keys.extend(version_keys(crd));
        }
        keys.sort();
        keys.dedup();
        return keys.into_iter().map(|k| row(k, Outcome::Unjudged(why.clone()))).collect();
    };
    let mut rows = Vec::new();
    for (key, crd) in truth {
        let (name, version) = key.rsplit_once('/').unwrap_or((key, ""));
        let want = version_view(crd, version);
        let got = |crds: &BTreeMap<String, Value>| crds.get(name).and_then(|c| version_view(c, version));
        let outcome = match (got(&runs.static_crds), got(&runs.fallback_crds)) {
            (Some(s), _) if Some(&s) == want.as_ref() => Outcome::Static,
            (_, Some(f)) if Some(&f) == want.as_ref() => Outcome::Fallback,
            (_, Some(f)) => {
                Outcome::Wrong(first_difference(want.as_ref().unwrap_or(&Value::Null), &f).unwrap_or_default())
            }
            (Some(s), None) => {
                Outcome::Wrong(first_difference(want.as_ref().unwrap_or(&Value::Null), &s).unwrap_or_default())
            }
            (None, None) => {
                let schema = crd.pointer("/spec/versions/0/schema/openAPIV3Schema").cloned().unwrap_or(Value::Null);
                Outcome::Refused {
                    why: runs.fallback_error.clone().unwrap_or_else(|| "no CRD written".into()),
                    truth_structural: non_structural(&schema).is_none(),
                }
            }
        };
        rows.push(row(key.clone(), outcome));
    }
    for crd in runs.fallback_crds.values() {
        for key in version_keys(crd) {
            if !truth.contains_key(&key) {
                rows.push(row(key, Outcome::Unjudged("kube-derive's crd() printed no such version".into())));
            }
        }
    }
    rows
}

fn version_keys(crd: &Value) -> Vec<String> {
    let name = crd.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
    let versions = crd.pointer("/spec/versions").and_then(Value::as_array).into_iter().flatten();
    versions.filter_map(|v| v["name"].as_str()).map(|v| format!("{name}/{v}")).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn crd(versions: &[(&str, Value)]) -> Value {
        let versions: Vec<Value> = versions
            .iter()
            .map(|(n, s)| json!({"name": n, "served": true, "storage": false, "schema": {"openAPIV3Schema": s}}))
            .collect();
        json!({"metadata": {"name": "foos.x.io"},
               "spec": {"group": "x.io", "scope": "Namespaced", "names": {"kind": "Foo", "plural": "foos"}, "versions": versions}})
    }

    #[test]
    fn each_version_is_judged_against_its_own_crd() {
        let good = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        let other = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
        let mut truth = BTreeMap::new();
        truth.insert("foos.x.io/v1".to_string(), crd(&[("v1", good.clone())]));
        truth.insert("foos.x.io/v2".to_string(), crd(&[("v2", good.clone())]));
        truth.insert("foos.x.io/v3".to_string(), crd(&[("v3", good.clone())]));
        let static_crds = BTreeMap::from([("foos.x.io".to_string(), crd(&[("v1", good.clone())]))]);
        let fallback_crds = BTreeMap::from([(
            "foos.x.io".to_string(),
            crd(&[("v1", good.clone()), ("v2", good.clone()), ("v3", other.clone())]),
        )]);
        let runs = Runs {
            static_crds,
            fallback_crds,
            truth: Some(truth),
            truth_error: None,
            fallback_error: None,
            static_error: None,
        };
        let rows = classify("p", "c", &runs);
        let got: Vec<(&str, &str)> = rows.iter().map(|r| (r.key.as_str(), r.outcome.label())).collect();
        assert_eq!(
            got,
            [
                ("foos.x.io/v1", "equal static"),
                ("foos.x.io/v2", "equal through the fallback"),
                ("foos.x.io/v3", "wrong")
            ]
        );
        let Outcome::Wrong(path) = &rows[2].outcome else { unreachable!() };
        assert!(path.starts_with("version.schema.openAPIV3Schema.properties.a.type"), "{path}");
    }

    #[test]
    fn a_refusal_says_whether_kube_derives_output_is_structural() {
        let untyped = json!({"type": "object", "properties": {"a": {}}});
        let truth = BTreeMap::from([("foos.x.io/v1".to_string(), crd(&[("v1", untyped)]))]);
        let runs = Runs {
            static_crds: BTreeMap::new(),
            fallback_crds: BTreeMap::new(),
            truth: Some(truth),
            truth_error: None,
            fallback_error: Some("error: x".into()),
            static_error: None,
        };
        let rows = classify("p", "c", &runs);
        assert_eq!(rows[0].outcome.label(), "refused, crd() non-structural");
    }

    #[test]
    fn without_truth_nothing_is_judged() {
        let runs = Runs {
            static_crds: BTreeMap::from([("foos.x.io".into(), crd(&[("v1", json!({"type": "object"}))]))]),
            fallback_crds: BTreeMap::new(),
            truth: None,
            truth_error: Some("the harness did not build".into()),
            fallback_error: None,
            static_error: None,
        };
        let rows = classify("p", "c", &runs);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].outcome, Outcome::Unjudged("the harness did not build".into()));
    }
}
