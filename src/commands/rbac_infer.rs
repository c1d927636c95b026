//! `kubesmith rbac infer`: the ClusterRole the code needs (YAML on stdout), warnings on stderr; prints only.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::cli::RbacInferArgs;
use crate::ops::rbac_infer::{display_path, unread_warnings, warning_lines};
use crate::rbac::MANAGER_ROLE;
use crate::rbac::infer::{self, InferError};
use crate::usage::UsageError;

/// What the command prints.
#[derive(Debug)]
pub struct Report {
    /// stdout.
    pub out: String,
    /// stderr lines.
    pub warnings: Vec<String>,
}

/// The source folders and binary to infer for: the flags; else, in a kubesmith project, its PROJECT's `sources`
/// and `rbac.bin` (what `make manifests` reads); else `src` when it exists; else, at the root of a cargo workspace,
/// every member's source folders.
fn sources_and_bin(args: &RbacInferArgs, cwd: &Path) -> Result<(Vec<PathBuf>, Option<String>)> {
    if !args.sources.is_empty() {
        return Ok((args.sources.clone(), args.bin.clone()));
    }
    if cwd.join(crate::project::PROJECT_FILE).is_file() {
        let project = crate::project::Project::load(cwd)?;
        let bin = args.bin.clone().or_else(|| project.file.rbac_inferred().flatten());
        let sources = project.file.sources();
        if !sources.is_empty() {
            return Ok((sources, bin));
        }
        return Ok((vec![PathBuf::from("src")], bin));
    }
    if !cwd.join("src").is_dir() && cwd.join("Cargo.toml").is_file() {
        let ws = crate::source::Workspace::discover(cwd)?;
        let sources = ws.source_dirs(cwd);
        if !sources.is_empty() {
            return Ok((sources, args.bin.clone()));
        }
    }
    Ok((vec![PathBuf::from("src")], args.bin.clone()))
}

/// Computes the report for `args` in `cwd`.
pub fn plan(args: &RbacInferArgs, cwd: &Path) -> Result<Report> {
    let (sources, bin) = sources_and_bin(args, cwd)?;
    for s in &sources {
        if !cwd.join(s).is_dir() {
            return Err(UsageError(format!(
                "source folder {} does not exist: pass --source with a crate's src folder (holding lib.rs or main.rs), \
                 once per crate of a workspace",
                s.display()
            ))
            .into());
        }
    }
    let full: Vec<PathBuf> = sources.iter().map(|s| cwd.join(s)).collect();
    // The crates the sources call kube through: read where the walk reaches them, without `--source`; cargo runs
    // only when the lock names one whose source is not on disk.
    use crate::source::dependencies::fetch::{Fetch, kube_dependencies_fetching};
    let fetch = if args.offline { Fetch::Never } else { Fetch::Missing };
    let fetched = kube_dependencies_fetching(&full, None, fetch);
    let read = crate::source::modules::read_disk;
    let mut inference = match infer::infer_with_dependencies(&full, &fetched.deps.found, bin.as_deref(), &read) {
        Ok(i) => i,
        Err(e @ (InferError::UnknownBin { .. } | InferError::NoRoot(_))) => {
            return Err(UsageError(e.to_string()).into());
        }
        Err(InferError::Source(e)) => {
            let e = crate::source::SourceError { path: PathBuf::from(display_path(&e.path, cwd)), ..e };
            return Err(anyhow::Error::new(e).context("cannot read the sources"));
        }
    };
    inference.warnings.splice(0..0, unread_warnings(&fetched, &full));
    let out = if args.explain {
        inference.explain(MANAGER_ROLE, &|p| display_path(p, cwd))
    } else {
        crate::yaml::to_multi_doc_string(&[inference.cluster_role(MANAGER_ROLE)])
    };
    let mut warnings: Vec<String> = fetched.note.into_iter().collect();
    warnings.extend(warning_lines(&inference, cwd));
    Ok(Report { out, warnings })
}

/// Runs the command: prints the role (or the explanation) and the warnings.
pub fn run(args: &RbacInferArgs, cwd: &Path) -> Result<()> {
    let report = plan(args, cwd)?;
    for w in &report.warnings {
        crate::output::warn(w);
    }
    print!("{}", report.out);
    Ok(())
}
