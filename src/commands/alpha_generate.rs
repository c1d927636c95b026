//! `kubesmith alpha generate`: re-creates a project from its PROJECT file with this kubesmith. The replay script's
//! commands run one after the other in a staging folder through the CLI's own parse, plan and apply (each reads
//! what the previous one wrote); the folder is then published as a new folder, or, with `--output-dir .` on a
//! clean git tree, applied over the project as one plan.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::apply::{self, Staging};
use crate::cli::AlphaGenerateArgs;
use crate::git::Repo;
use crate::ops::replay::{self, replay_into, summarize};
use crate::output;
use crate::plan::Plan;
use crate::project::{Project, ProjectFile};

/// A tracked file `--output-dir .` keeps although the replay does not make it: the dependency versions the project
/// was built and tested with (kubesmith scaffolds no lock file).
const KEPT_IN_PLACE: &[&str] = &["Cargo.lock"];

pub fn run(args: &AlphaGenerateArgs, cwd: &Path) -> Result<()> {
    let input = args.input_dir.as_ref().map_or_else(|| cwd.to_path_buf(), |d| cwd.join(d));
    let project = Project::load(&input)?;
    let script = replay::script(&project.file)?;
    let input = input.canonicalize().with_context(|| format!("cannot resolve {}", input.display()))?;
    let output_dir = match &args.output_dir {
        Some(d) => cwd.join(d),
        None => default_output(&input, &project.file)?,
    };
    let in_place = output_dir.canonicalize().is_ok_and(|o| o == input);
    let repo = if in_place { Some(check_in_place(&input)?) } else { None };
    if !in_place {
        check_new_folder(&output_dir)?;
    }
    for note in &script.notes {
        output::warn(note);
    }
    if args.dry_run {
        for step in &script.steps {
            output::info(format_args!("replay: {}", step.command_line()));
        }
        output::info(format_args!(
            "dry run: {} command(s) would be replayed into {}, nothing was written",
            script.steps.len(),
            output_dir.display()
        ));
        return Ok(());
    }

    let staging = if in_place { Staging::temporary("generate")? } else { Staging::beside(&output_dir)? };
    replay_into(&project.file, &script, &input, staging.path(), true, &super::run_step)?;
    if let Some(repo) = repo {
        let outcome = publish_in_place(&repo, staging.path(), &input)?;
        for (action, path) in &outcome.changed {
            output::change(action.verb(), path);
        }
        output::info(format_args!(
            "replayed {} command(s) over the project ({} file(s) changed, {} unchanged): review with `git status` and \
             `git diff`, keep what you want and restore the rest from git",
            script.steps.len(),
            outcome.changed.len(),
            outcome.unchanged
        ));
    } else {
        staging.publish(&output_dir)?;
        output::info(format_args!(
            "replayed {} command(s) into {}; compare with\n  diff -r -x target -x Cargo.lock -x .git {} {}",
            script.steps.len(),
            output_dir.display(),
            replay::shell_quote(&input.to_string_lossy()),
            replay::shell_quote(&output_dir.to_string_lossy())
        ));
    }
    Ok(())
}

/// `<project>-generated` beside the project folder.
fn default_output(input: &Path, pf: &ProjectFile) -> Result<PathBuf> {
    let parent = input.parent().with_context(|| {
        format!("{} has no parent folder to put the replay beside: pass --output-dir", input.display())
    })?;
    Ok(parent.join(format!("{}-generated", pf.project_name)))
}

/// A new folder, or an empty one, whose parent exists.
fn check_new_folder(dir: &Path) -> Result<()> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                anyhow::bail!(
                    "{} already exists and is not empty: `kubesmith alpha generate` writes only into a new or empty \
                     folder; remove it or pass another --output-dir (`--output-dir .` regenerates the project in place \
                     on a clean git tree)",
                    dir.display()
                );
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let parent = dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            if !parent.is_dir() {
                anyhow::bail!(
                    "the folder {} that would hold {} does not exist: create it first or pass another --output-dir",
                    parent.display(),
                    dir.display()
                );
            }
            Ok(())
        }
        Err(e) if dir.exists() && !dir.is_dir() => {
            Err(anyhow::anyhow!("{} is a file, not a folder ({e}): pass a new folder as --output-dir", dir.display()))
        }
        Err(e) => Err(e).with_context(|| format!("cannot read {}", dir.display())),
    }
}

/// In place only in a git work tree without uncommitted changes below the project, so `git diff` shows what the
/// replay changed and git can bring every file back.
fn check_in_place(root: &Path) -> Result<Repo> {
    let Some(repo) = Repo::find(root)? else {
        anyhow::bail!(
            "`--output-dir .` replaces the project's files, which kubesmith does only in a git repository (to review \
             and undo the change with git): commit the project to git first, or pass another --output-dir"
        );
    };
    let changes = repo.changes()?;
    if !changes.is_empty() {
        anyhow::bail!(
            "`--output-dir .` replaces the project's files, and the git tree has uncommitted changes ({}): commit or \
             stash them first, so that `git diff` shows exactly what the replay changed",
            summarize(&changes)
        );
    }
    Ok(repo)
}

/// Makes the project's tracked files those of the replay: every replayed file written, every tracked file the replay
/// does not make removed (but `Cargo.lock`); ignored files (`target/`) stay. One plan: all or nothing.
fn publish_in_place(repo: &Repo, staged: &Path, root: &Path) -> Result<apply::Outcome> {
    let files = files_below(staged)?;
    let mut plan = Plan::new(root);
    for rel in &files {
        let path = staged.join(rel);
        let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
        plan.write(rel.clone(), text)?;
    }
    for tracked in repo.tracked_files()? {
        if !files.contains(&tracked) && !KEPT_IN_PLACE.iter().any(|k| tracked == Path::new(k)) {
            plan.delete(tracked);
        }
    }
    apply::apply(&plan)
}

/// Every file below `dir`, relative to it, but the build output (`target/`).
fn files_below(dir: &Path) -> Result<BTreeSet<PathBuf>> {
    let mut out = BTreeSet::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let full = dir.join(&rel);
        for entry in std::fs::read_dir(&full).with_context(|| format!("cannot read {}", full.display()))? {
            let entry = entry?;
            let child = rel.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                if child != Path::new("target") {
                    stack.push(child);
                }
            } else {
                out.insert(child);
            }
        }
    }
    Ok(out)
}
