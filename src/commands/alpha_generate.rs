//! `kubesmith alpha generate`: re-creates a project from its PROJECT file with this kubesmith. The replay script's
//! commands run one after the other in a staging folder through the CLI's own parse, plan and apply (each reads
//! what the previous one wrote); the folder is then published as a new folder, or, with `--output-dir .` on a
//! clean git tree, applied over the project as one plan.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Parser;

use crate::apply::{self, Staging};
use crate::cli::{AlphaGenerateArgs, Cli, Command, CreateCommand, MakeCommand};
use crate::commands::replay::{self, Script, Step};
use crate::commands::{create_api, create_webhook, init, make_manifests};
use crate::git::Repo;
use crate::output;
use crate::plan::Plan;
use crate::project::{self, PROJECT_FILE, Project, ProjectFile};

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
    replay_into(&project.file, &script, &input, staging.path(), true)?;
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

/// The first few lines of `git status --porcelain`, for a message.
pub fn summarize(changes: &[String]) -> String {
    let mut shown: Vec<&str> = changes.iter().take(5).map(|c| c.trim()).collect();
    if changes.len() > 5 {
        shown.push("...");
    }
    shown.join(", ")
}

/// Runs the script in `dir` (an empty folder): each step parsed by the CLI and planned by its command, formatted
/// and applied, as if typed there. Before `make manifests`, kubesmith settings PROJECT holds that no command writes
/// (`crd: {compile: false}`) are carried over; afterwards the replayed PROJECT is compared with the original.
/// `show` prints each command as it runs.
/// `origin`: the project replayed, where the CRDs PROJECT records (`create api --from-crd`) are read.
pub fn replay_into(original: &ProjectFile, script: &Script, origin: &Path, dir: &Path, show: bool) -> Result<()> {
    for step in &script.steps {
        if step.args.first().is_some_and(|a| a == "make") {
            carry_settings(original, dir)?;
        }
        if show {
            output::info(format_args!("replay: {}", step.command_line()));
        }
        run_step(step, origin, dir)
            .map_err(|e| anyhow::anyhow!("replaying `{}` failed: {e:#}", step.command_line()))?;
    }
    if let Some(difference) = project_difference(original, dir)? {
        output::warn(format_args!(
            "warning: the replayed PROJECT differs from the project's ({difference}): PROJECT was edited by hand, or \
             records something no kubesmith command replays; compare the two files"
        ));
    }
    Ok(())
}

/// One step, the way `kubesmith` would run it in `dir` (without printing its file list and next steps).
fn run_step(step: &Step, origin: &Path, dir: &Path) -> Result<()> {
    let cli = Cli::try_parse_from(step.argv()).map_err(|e| {
        let message = e.to_string();
        let first = message.lines().next().unwrap_or_default().trim_start_matches("error: ").to_string();
        anyhow::anyhow!(
            "this kubesmith does not accept the command ({first}); PROJECT was written by a kubesmith that knows it: \
             replay it with that version"
        )
    })?;
    let mut plan = match cli.command {
        Command::Init(a) => init::plan(&a, dir)?,
        Command::Create(CreateCommand::Api(a)) => match &a.from_crd {
            Some(crd) => crate::commands::from_crd::plan_replayed(&a, crd, origin, dir)?,
            None => create_api::plan(&a, dir)?,
        },
        Command::Create(CreateCommand::Webhook(a)) => create_webhook::plan(&a, dir)?,
        Command::Make(MakeCommand::Manifests(a)) => make_manifests::plan(&a, dir)?,
        Command::Make(MakeCommand::Helm(a)) => crate::commands::make_helm::plan(&a, dir)?,
        Command::Edit(a) if !a.plugins.is_empty() => crate::commands::edit_plugins::plan(dir, &a.plugins)?,
        Command::Make(MakeCommand::Docs(a)) => crate::commands::make_docs::plan(&a, dir)?,
        other => anyhow::bail!("{other:?} is not a command a replay runs"),
    };
    crate::rustfmt::format_plan(&mut plan)?;
    let outcome = apply::apply(&plan)?;
    for (action, path) in &outcome.changed {
        output::planned(action.verb(), path);
    }
    // Warnings matter (something differs from what the user got); next steps do not.
    for note in plan.notes.iter().filter(|n| n.starts_with("warning:") || n.contains("rustfmt")) {
        output::warn(note);
    }
    Ok(())
}

/// Settings of kubesmith's plugin entry the project has and the replay does not (written by hand, such as
/// `crd: {compile: false}`), added to the replayed PROJECT.
fn carry_settings(original: &ProjectFile, dir: &Path) -> Result<()> {
    let Some(theirs) = original.plugins.get(project::PLUGIN_KEY).and_then(|p| p.as_object()) else { return Ok(()) };
    let mut file = Project::load(dir)?.file;
    let ours = file.plugins.entry(project::PLUGIN_KEY).or_insert_with(|| serde_json::json!({}));
    let Some(ours) = ours.as_object_mut() else { return Ok(()) };
    let mut kept = Vec::new();
    for (key, value) in theirs {
        if !ours.contains_key(key) {
            ours.insert(key.clone(), value.clone());
            kept.push(key.as_str());
        }
    }
    if kept.is_empty() {
        return Ok(());
    }
    let mut plan = Plan::new(dir);
    plan.edit(PROJECT_FILE, file.to_yaml());
    apply::apply(&plan)?;
    output::info(format_args!(
        "note: kept PROJECT settings no command writes: {}",
        kept.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
    ));
    Ok(())
}

/// Where the replayed PROJECT first differs from the original (`cliVersion` aside: the replay is this version's).
fn project_difference(original: &ProjectFile, dir: &Path) -> Result<Option<String>> {
    let mut replayed = Project::load(dir)?.file;
    replayed.cli_version.clone_from(&original.cli_version);
    if &replayed == original {
        return Ok(None);
    }
    let (want, got) = (original.to_yaml(), replayed.to_yaml());
    let (want, got): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let at = want.iter().zip(&got).position(|(a, b)| a != b).unwrap_or(want.len().min(got.len()));
    let line = |l: &[&str]| l.get(at).map_or_else(|| "end of file".to_string(), |s| format!("`{}`", s.trim()));
    Ok(Some(format!("line {}: {} in the project, {} in the replay", at + 1, line(&want), line(&got))))
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
