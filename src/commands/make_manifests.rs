//! `kubesmith make manifests`: the manifests ([`crate::ops::manifests`]), then `--check` (report and fail),
//! `--dry-run` (print) or apply. With problems nothing is written unless `--keep-going` (every CRD without a problem
//! is); either way they are all reported, exit 1.

use std::path::Path;

use anyhow::Result;

use crate::cli::MakeManifestsArgs;
use crate::ops::{manifests, write};

/// The flags as the operation's options.
pub(crate) fn options(args: &MakeManifestsArgs) -> manifests::Options {
    manifests::Options {
        sources: args.sources.clone(),
        crd_dir: args.crd_dir.clone(),
        rbac_dir: args.rbac_dir.clone(),
        webhook_dir: args.webhook_dir.clone(),
        k8s_version: args.k8s_version.map(|v| v.dotted()),
        max_description_length: args.max_description_length,
        no_compile: args.no_compile,
        offline: args.offline,
    }
}

pub(crate) fn run(args: &MakeManifestsArgs, cwd: &Path) -> Result<()> {
    let (plan, problems) = manifests::plan_with_problems(&options(args), cwd)?;
    if args.check {
        for note in plan.notes.iter().filter(|n| n.starts_with("warning:")) {
            crate::output::warn(note);
        }
        let missing = problems.drift.as_ref().map_or(0, |d| d.missing.len());
        let files = write::check(&plan, "manifest", "kubesmith make manifests");
        if !problems.is_empty() {
            return Err(problems.into_error(cwd));
        }
        if missing > 0 {
            files?;
            anyhow::bail!(
                "the code calls {missing} API resource(s) no RBAC marker grants: add the markers the warnings above show, \
                 then run `kubesmith make manifests`"
            );
        }
        return files;
    }
    if problems.is_empty() {
        return write::finish(plan, args.dry_run);
    }
    if args.keep_going || args.dry_run {
        write::finish(plan, args.dry_run)?;
    } else {
        crate::output::warn(
            "nothing was written: fix the problems below (or pass --keep-going to write the CRDs that have none)",
        );
    }
    Err(problems.into_error(cwd))
}
