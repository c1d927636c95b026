//! Fuzz target: the static CRD generator (`crd::generate_all`, what `make manifests` runs) on arbitrary text as
//! the crate root `src/lib.rs`, read from an in-memory overlay (the folder does not exist on disk).
#![no_main]

use std::collections::BTreeMap;
use std::path::PathBuf;

use kubesmith::crd::{self, SourceSet, k8s::K8sTable};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let src = PathBuf::from("/nonexistent/kubesmith-fuzz/src");
    let sources = SourceSet::new(&src).with_overlay(BTreeMap::from([(src.join("lib.rs"), text.to_string())]));
    let _ = crd::generate_all(&sources, K8sTable::default_table());
});
