//! The kinds whose CRD `adopt` could not generate: by default the refusal listing every problem, with
//! `--keep-going` the kinds left out of PROJECT and `config/` (so what adopt writes still renders) and the note
//! naming them.

use std::path::Path;

use crate::crd::kinds::KindDecl;
use crate::ops::manifests::Problems;
use crate::plan::Plan;

/// The kinds of `owned` whose CRD file the plan does not write: each version of a kind once, in source order.
pub fn failed<'a>(draft: &Plan, owned: impl IntoIterator<Item = &'a KindDecl>) -> Vec<&'a KindDecl> {
    owned
        .into_iter()
        .filter(|k| {
            let path = Path::new("config/crd/bases").join(format!("{}_{}.yaml", k.group, k.plural));
            !draft.ops().iter().any(|op| op.path == path && op.contents.is_some())
        })
        .collect()
}

/// `Pair (pairs.p.example.org)`, each CRD once.
fn names(kinds: &[&KindDecl]) -> String {
    let mut out: Vec<String> = Vec::new();
    for k in kinds {
        let name = format!("{} ({}.{})", k.kind, k.plural, k.group);
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out.join(", ")
}

/// Why adopt writes nothing: which kinds' CRDs failed, every problem (paths relative to `root`), and the ways on.
pub fn refusal(failed: &[&KindDecl], problems: Problems, root: &Path) -> anyhow::Error {
    let what = if failed.is_empty() {
        "the sources have problems that keep kubesmith from reading them whole".to_string()
    } else {
        format!("the CRD of {} cannot be generated", names(failed))
    };
    anyhow::anyhow!(
        "adopt wrote nothing: {what}, and PROJECT and config/ would name a CRD file that does not exist (`kubectl \
         kustomize config/default` would fail); fix the problems below and run `kubesmith adopt` again, or pass \
         --keep-going to adopt the other kinds and leave these out of PROJECT and config/\n{:#}",
        problems.into_error(root)
    )
}

/// What `--keep-going` left out and why, as a warning note.
pub fn left_out_note(failed: &[&KindDecl], problems: Problems, root: &Path) -> String {
    let problems = problems.into_error(root);
    if failed.is_empty() {
        return format!(
            "warning: --keep-going adopted every kind whose CRD kubesmith made, but the sources have problems to \
             fix:\n{problems:#}"
        );
    }
    format!(
        "warning: --keep-going left out {} whose CRD cannot be generated: not in PROJECT, config/crd, config/samples \
         or anything config/default renders; fix the problems below, then adopt again (remove PROJECT and pass \
         --force) to add them:\n{problems:#}",
        names(failed)
    )
}
