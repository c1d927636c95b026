//! The types of the crates a crate depends on, read from their sources as rust-analyzer reads them: a path
//! whose first segment names a dependency that may hold kinds' types (any path dependency, a kube-dependent registry
//! crate such as `gateway_api`, found through the manifests and `Cargo.lock` by
//! [`crate::source::dependencies::schema_dependencies`]) makes `generate` load the index again with that crate's
//! module tree beside the crate's own (its files stubs until a lookup needs them, like the crate's). Its kinds are
//! never the crate's: the crate's own modules, items and files come first ([`CrateIndex::own_items`]).

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::{CrateIndex, CrdError, ModId, SourceSet};

/// Crates whose types kubesmith knows by name (or never reads): not looked up among the dependencies.
const KNOWN: &[&str] = &[
    "std",
    "core",
    "alloc",
    "k8s_openapi",
    "kube",
    "kube_core",
    "kube_client",
    "kube_runtime",
    "kube_derive",
    "serde",
    "serde_json",
    "schemars",
    "chrono",
    "uuid",
    "url",
    "jiff",
];

impl CrateIndex {
    /// The lib roots of the crate's kube-dependent dependencies, by crate name (worked out on first use).
    fn dependency_roots(&self) -> &BTreeMap<String, PathBuf> {
        self.dependency_roots.get_or_init(|| {
            let Some(dir) = self.src_dir.as_deref() else { return BTreeMap::new() };
            let deps = crate::source::dependencies::schema_dependencies(&[dir.to_path_buf()], None);
            deps.found
                .iter()
                .filter_map(|f| {
                    let package = crate::source::Package::of_source_dir(&f.src)?;
                    let lib = package.lib.as_ref()?;
                    Some((package.crate_name(), lib.path.clone()))
                })
                .collect()
        })
    }

    /// Records that a path starting with `name` needs that dependency's module tree, when `name` is a dependency
    /// not yet loaded ([`CrateIndex::take_touched`] hands its root to the next load).
    pub(super) fn want_dependency(&self, name: &str) {
        // crate names are snake case: `String`, `Option` never send it looking
        let crate_like = name.starts_with(|c: char| c.is_ascii_lowercase());
        if !crate_like || KNOWN.contains(&name) || self.crates.iter().any(|(n, _)| n == name) {
            return;
        }
        if let Some(root) = self.dependency_roots().get(name) {
            self.wanted.borrow_mut().insert(root.clone());
        }
    }

    /// Loads, after the crate's own modules, the dependency crates whose lib roots are among `force`.
    pub(super) fn load_dependencies(
        &mut self,
        sources: &SourceSet,
        force: &std::collections::BTreeSet<PathBuf>,
    ) -> Result<(), CrdError> {
        let own_dir = self.src_dir.clone().unwrap_or_default();
        let outside: Vec<&PathBuf> = force.iter().filter(|p| !p.starts_with(&own_dir)).collect();
        if outside.is_empty() {
            return Ok(());
        }
        let roots: Vec<(String, PathBuf)> = self
            .dependency_roots()
            .iter()
            .filter(|(_, root)| outside.contains(root))
            .map(|(n, r)| (n.clone(), r.clone()))
            .collect();
        for (name, root) in roots {
            let id = super::load::load(self, sources, force, &root, vec![name.clone()])?;
            self.crates.push((name, id));
        }
        Ok(())
    }

    /// The root module of the dependency crate `name`, when it is loaded.
    pub(super) fn dependency_crate(&self, name: &str) -> Option<ModId> {
        self.crates.iter().find(|(n, _)| n == name).map(|(_, m)| *m)
    }

    /// The root of the crate module `m` belongs to (0: the crate's own).
    pub(super) fn crate_root(&self, mut m: ModId) -> ModId {
        while let Some(p) = self.modules[m].parent {
            m = p;
        }
        m
    }
}
