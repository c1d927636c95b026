//! `make bundle`'s check that `config/crd/bases` is what `make manifests` would write now.

use std::path::Path;

use anyhow::Result;

use super::{plan_into, targets};
use crate::plan::Plan;

/// Checks that the project's CRD files (`config/crd/bases`) are what `make manifests` would write from the sources
/// now, as `make manifests --check` does for them (descriptions aside: `--max-description-length` may have cut
/// them). `make bundle` calls it so a bundle never ships CRDs older than the types.
pub fn check_crds_current(cwd: &Path) -> Result<()> {
    let mut targets = targets(&super::Options::default(), cwd)?;
    targets.rbac_dir = None;
    targets.webhook_dir = None;
    let mut plan = Plan::new(cwd);
    let problems = plan_into(&mut plan, &targets)?;
    if !problems.is_empty() {
        return Err(problems.into_error(cwd).context(
            "cannot tell whether config/crd/bases is current with the types: fix these, then run `kubesmith make \
             manifests`",
        ));
    }
    let mut stale = Vec::new();
    for op in crate::apply::effective_ops(&plan)? {
        let on_disk = std::fs::read_to_string(cwd.join(&op.path)).ok();
        let same = match (&op.contents, on_disk) {
            (Some(new), Some(old)) => same_but_descriptions(new, &old),
            _ => false,
        };
        if !same {
            let state = match (&op.contents, cwd.join(&op.path).exists()) {
                (None, _) => "would be removed",
                (Some(_), true) => "stale",
                (Some(_), false) => "missing",
            };
            stale.push(format!("{} ({state})", op.path.display()));
        }
    }
    if !stale.is_empty() {
        anyhow::bail!(
            "the CRDs in config/crd/bases are older than the types in the sources: {}; run `kubesmith make manifests` \
             first (make bundle ships those CRDs)",
            stale.join(", ")
        );
    }
    Ok(())
}

/// Two CRD files equal once every `description` is dropped.
pub(super) fn same_but_descriptions(a: &str, b: &str) -> bool {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                // A field named `description` is a schema (an object), never a string: it stays.
                if m.get("description").is_some_and(serde_json::Value::is_string) {
                    m.remove("description");
                }
                m.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    match (crate::yaml::from_str(a), crate::yaml::from_str(b)) {
        (Ok(mut x), Ok(mut y)) => {
            strip(&mut x);
            strip(&mut y);
            x == y
        }
        _ => false,
    }
}
