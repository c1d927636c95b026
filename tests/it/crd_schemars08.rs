//! The static CRD generator on a crate whose lock pins schemars 0.8 and kube 0.99: the corpus
//! `tests/conformance/kube-derive-0.99` (kube-derive 0.99's own `crd()` output) must come out equal by meaning.

use std::path::Path;

use kubesmith::crd::{self, SourceSet};
use serde_json::{Map, Value};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/conformance/kube-derive-0.99");

fn corpus(file: &str) -> String {
    std::fs::read_to_string(Path::new(CORPUS).join(file)).expect("corpus file")
}

/// The corpus crate with its manifest and lock (the lock decides the schemars generation).
fn generated(lock: bool) -> Vec<Value> {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("src")).expect("mkdir");
    std::fs::write(dir.path().join("src/main.rs"), corpus("input-legacy.rs")).expect("write");
    std::fs::write(dir.path().join("Cargo.toml"), corpus("input-Cargo.toml")).expect("write");
    if lock {
        std::fs::write(dir.path().join("Cargo.lock"), corpus("input-Cargo.lock")).expect("write");
    }
    let crds = crd::generate(&SourceSet::new(&dir.path().join("src"))).expect("generate");
    crds.into_iter().map(|c| c.crd).collect()
}

/// Empty lists and objects dropped, numbers as f64: equal by meaning.
fn settle(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(_, x)| !x.as_array().is_some_and(Vec::is_empty) && !x.as_object().is_some_and(Map::is_empty))
                .map(|(k, x)| (k.clone(), settle(x)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(settle).collect()),
        Value::Number(n) => n.as_f64().map_or(Value::Null, Value::from),
        other => other.clone(),
    }
}

fn expected(sample: &str) -> Value {
    serde_json::from_str(&corpus(&format!("out/{sample}.json"))).expect("json")
}

fn find<'a>(crds: &'a [Value], name: &str) -> &'a Value {
    crds.iter().find(|c| c["metadata"]["name"] == name).unwrap_or_else(|| panic!("no CRD {name}"))
}

#[test]
fn schemars_08_crates_get_kube_derive_099s_crds() {
    let crds = generated(true);
    for (sample, name) in [("legacy", "legacies.legacy.kube.rs"), ("merged", "mergeds.legacy.kube.rs")] {
        let (got, want) = (settle(find(&crds, name)), settle(&expected(sample)));
        assert!(
            got == want,
            "{sample}: got\n{}\nwant\n{}",
            serde_json::to_string_pretty(&got).unwrap_or_default(),
            serde_json::to_string_pretty(&want).unwrap_or_default()
        );
    }
}

#[test]
fn without_a_lock_the_manifests_requirement_decides() {
    // `schemars = "=0.8.22"` in the manifest alone: the same generation as with the lock.
    let crds = generated(false);
    let got = settle(find(&crds, "legacies.legacy.kube.rs"));
    assert_eq!(got, settle(&expected("legacy")));
}
