//! Fuzz target: name resolution over a multi-file crate, through both readers of Rust that ask `source::resolve`:
//! the static CRD generator (`crd::generate_all`, what `make manifests` runs) and RBAC inference
//! (`rbac::infer::infer_with`, what `make manifests`' drift check and `rbac infer` run), on one in-memory overlay.
//!
//! The input is split at lines reading `//--` into the files of [`FILES`], in order (`src/lib.rs` first; files
//! past the input are absent), so `mod`, `use` globs, `pub use` re-exports and `crate::`/`super::` paths can lead
//! from file to file and back: any cycle must end, and nothing may panic.
#![no_main]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kubesmith::crd::{self, SourceSet, k8s::K8sTable};
use libfuzzer_sys::fuzz_target;

/// The crate's files, below `src/`, in the order the input's parts fill them: a library root with modules in
/// `x.rs`, `x/y.rs` and `x/mod.rs` form, and a binary root (whose `main` the RBAC walk starts from).
const FILES: &[&str] = &["lib.rs", "a.rs", "a/b.rs", "c/mod.rs", "c/d.rs", "main.rs"];

/// The line that starts the next file.
const SEPARATOR: &str = "//--";

fuzz_target!(|text: &str| {
    let src = PathBuf::from("/nonexistent/kubesmith-fuzz/src");
    let mut files = BTreeMap::new();
    let mut parts = FILES.iter();
    let mut current = String::new();
    for line in text.split_inclusive('\n') {
        if line.trim_end() == SEPARATOR {
            let Some(name) = parts.next() else { break };
            files.insert(src.join(name), std::mem::take(&mut current));
            continue;
        }
        current.push_str(line);
    }
    if let Some(name) = parts.next() {
        files.insert(src.join(name), current);
    }

    let sources = SourceSet::new(&src).with_overlay(files.clone());
    let _ = crd::generate_all(&sources, K8sTable::default_table());

    let read = |p: &Path| files.get(p).cloned().ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound));
    let _ = kubesmith::rbac::infer::infer_with(&[src.clone()], None, &read);
});
