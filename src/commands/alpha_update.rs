//! `kubesmith alpha update`: brings today's templates into a project with git's three-way merge. The ancestor is
//! the project replayed as it was scaffolded, the upgrade the project replayed with this kubesmith, the original the
//! user's tree; each is a commit on its own branch, made from a folder through a temporary index, and the upgrade is
//! merged into a copy of the original, conflicts left marked for the user.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result};

use crate::apply::{self, Staging};
use crate::cli::AlphaUpdateArgs;
use crate::git::Repo;
use crate::ops::replay;
use crate::ops::replay::{replay_into, summarize};
use crate::output;
use crate::plan::Plan;
use crate::project::{PROJECT_FILE, ProjectFile};

/// The project replayed as it was scaffolded.
pub const ANCESTOR: &str = "kubesmith-ancestor";
/// The project replayed with this kubesmith.
pub const UPGRADE: &str = "kubesmith-upgrade";
/// The user's tree, on top of the ancestor.
pub const ORIGINAL: &str = "kubesmith-original";
/// The original with the upgrade merged in; checked out at the end.
pub const MERGE: &str = "kubesmith-merge";
const BRANCHES: [&str; 4] = [ANCESTOR, UPGRADE, ORIGINAL, MERGE];

const VERSION: &str = env!("CARGO_PKG_VERSION");

pub fn run(args: &AlphaUpdateArgs, cwd: &Path) -> Result<()> {
    let repo = Repo::find(cwd)?.with_context(|| {
        format!(
            "{} is not in a git repository: `kubesmith alpha update` merges with git; commit the project to git \
             first (`git init`, `git add -A`, `git commit`)",
            cwd.display()
        )
    })?;
    let top = repo.top.canonicalize().with_context(|| format!("cannot resolve {}", repo.top.display()))?;
    if cwd.canonicalize().ok().as_deref() != Some(top.as_path()) {
        anyhow::bail!(
            "run `kubesmith alpha update` at the top of the repository ({}): it replaces the whole tree, and a project \
             in a subfolder of a repository is not supported",
            top.display()
        );
    }
    let changes = repo.changes()?;
    if !changes.is_empty() {
        anyhow::bail!(
            "the git tree has uncommitted changes ({}): `kubesmith alpha update` checks out a new branch and merges \
             into it, which would mix them in; commit or stash them first",
            summarize(&changes)
        );
    }
    let current = repo.current_branch()?;
    let from = match (&args.from_branch, &current) {
        (Some(b), _) => b.clone(),
        (None, Some(b)) => b.clone(),
        (None, None) => anyhow::bail!(
            "HEAD is detached: pass --from-branch with the branch holding the project, or check it out first"
        ),
    };
    if !repo.branch_exists(&from)? {
        anyhow::bail!("there is no branch `{from}`: pass --from-branch with a local branch holding the project");
    }
    let from_commit = repo.commit_of(&from)?.with_context(|| format!("branch `{from}` names no commit"))?;
    for branch in BRANCHES {
        if repo.branch_exists(branch)? {
            anyhow::bail!(
                "branch `{branch}` already exists (from an earlier `kubesmith alpha update`?): take what you need from \
                 it, delete the update's branches (`git branch -D {}`), then run the update again",
                BRANCHES.join(" ")
            );
        }
    }
    if !repo.has_identity()? {
        anyhow::bail!(
            "git does not know who you are, and the update makes commits: set `git config user.name \"Your Name\"` and \
             `git config user.email you@example.com`, then run it again"
        );
    }
    let text = repo.show_file(&from, PROJECT_FILE)?.with_context(|| {
        format!("branch `{from}` has no PROJECT at the top of the repository: only kubesmith projects can be updated")
    })?;
    let pf = ProjectFile::parse(&text, Path::new(&format!("{from}:{PROJECT_FILE}")))?;
    let script = replay::script(&pf)?;
    let scaffolded_with =
        if pf.cli_version.is_empty() { "an unrecorded version".to_string() } else { pf.cli_version.clone() };

    for note in &script.notes {
        output::warn(note);
    }
    let ancestor_source = match &args.ancestor_binary {
        Some(bin) => {
            check_ancestor_binary(bin, &pf)?;
            format!("{}'s `alpha generate`", bin.display())
        }
        None => {
            output::warn(format_args!(
                "note: the ancestor is replayed with this kubesmith's templates ({VERSION}), standing in for those of \
                 kubesmith {scaffolded_with}, which scaffolded the project, until older kubesmith versions can be \
                 run: the merge brings no template change made since {scaffolded_with} (pass --ancestor-binary with \
                 a kubesmith {scaffolded_with} to bring them)"
            ));
            format!("kubesmith {VERSION}'s templates, standing in for {scaffolded_with}'s")
        }
    };
    for step in &script.steps {
        output::info(format_args!("replay: {}", step.command_line()));
    }
    if args.dry_run {
        output::info(format_args!(
            "dry run: would commit the replays and `{from}` on {ANCESTOR}, {UPGRADE} and {ORIGINAL}, and merge {UPGRADE} \
             into {MERGE}; no branch was created"
        ));
        return Ok(());
    }

    // The replays, made before any branch exists: a failing replay leaves the repository as it was.
    let input = Staging::temporary("update-input")?;
    let mut plan = Plan::new(input.path());
    plan.create(PROJECT_FILE, text.clone());
    apply::apply(&plan)?;
    let ancestor_dir = Staging::temporary("ancestor")?;
    match &args.ancestor_binary {
        Some(bin) => generate_with(bin, input.path(), ancestor_dir.path())?,
        None => replay_into(&pf, &script, cwd, ancestor_dir.path(), false, &super::run_step)
            .context("the ancestor's replay failed")?,
    }
    let upgrade_dir = Staging::temporary("upgrade")?;
    replay_into(&pf, &script, cwd, upgrade_dir.path(), false, &super::run_step)
        .context("the upgrade's replay failed")?;

    let scratch = Staging::temporary("index")?;
    let ancestor_tree = repo.tree_of_folder(ancestor_dir.path(), &scratch.path().join("ancestor.index"))?;
    let upgrade_tree = repo.tree_of_folder(upgrade_dir.path(), &scratch.path().join("upgrade.index"))?;
    let ancestor = repo.commit_tree(
        &ancestor_tree,
        &[&from_commit],
        &format!("kubesmith alpha update: the project as scaffolded ({ancestor_source})"),
    )?;
    let original = repo.commit_tree(
        &format!("{from_commit}^{{tree}}"),
        &[&ancestor],
        &format!("kubesmith alpha update: the project as it is on {from}"),
    )?;
    let upgrade = repo.commit_tree(
        &upgrade_tree,
        &[&ancestor],
        &format!("kubesmith alpha update: the project replayed with kubesmith {VERSION}"),
    )?;

    let back_to = match &current {
        Some(branch) => branch.clone(),
        None => repo.commit_of("HEAD")?.context("HEAD names no commit")?,
    };
    let mut undo = Undo { repo: &repo, branches: Vec::new(), back_to, armed: true };
    for (branch, commit) in [(ANCESTOR, &ancestor), (ORIGINAL, &original), (UPGRADE, &upgrade)] {
        repo.run(&["branch", branch, commit.as_str()])?;
        undo.branches.push(branch);
    }
    repo.run(&["checkout", "--quiet", "-b", MERGE, ORIGINAL])?;
    undo.branches.push(MERGE);
    let message = format!("kubesmith alpha update: merge {UPGRADE} (kubesmith {VERSION}) into {ORIGINAL}");
    let merged = repo.output(&["merge", "--no-ff", "--no-edit", "-m", message.as_str(), UPGRADE])?;
    let conflicts = if merged.status.success() {
        Vec::new()
    } else {
        let unmerged = repo.run(&["diff", "--name-only", "--diff-filter=U"])?;
        let files: Vec<String> = unmerged.lines().filter(|l| !l.is_empty()).map(str::to_string).collect();
        if files.is_empty() {
            let _ = repo.output(&["merge", "--abort"]);
            anyhow::bail!(
                "git could not merge {UPGRADE} into {MERGE}: {}; nothing was changed",
                String::from_utf8_lossy(&merged.stderr).trim()
            );
        }
        files
    };
    undo.armed = false;

    output::info(format_args!(
        "created {ANCESTOR} (the project as scaffolded: {ancestor_source}), {ORIGINAL} (`{from}`), {UPGRADE} \
         (kubesmith {VERSION}) and {MERGE}, checked out"
    ));
    if conflicts.is_empty() {
        output::info(format_args!(
            "merged without conflicts: review with `git diff {from} {MERGE}`, run the tests, then merge {MERGE} into \
             `{from}`"
        ));
    } else {
        output::warn(format_args!(
            "warning: {} file(s) have conflicts, marked in the files: {}\nresolve them, `git add` them and `git \
             commit`; then review with `git diff {from} {MERGE}` and merge {MERGE} into `{from}`",
            conflicts.len(),
            conflicts.join(", ")
        ));
    }
    Ok(())
}

/// Deletes the branches an update created and checks the user's branch out again, unless disarmed.
struct Undo<'a> {
    repo: &'a Repo,
    branches: Vec<&'static str>,
    /// The branch (or, detached, the commit) checked out before.
    back_to: String,
    armed: bool,
}

impl Drop for Undo<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let _ = self.repo.output(&["checkout", "--quiet", "--force", self.back_to.as_str()]);
        for branch in self.branches.drain(..) {
            let _ = self.repo.output(&["branch", "-D", branch]);
        }
    }
}

/// The ancestor's kubesmith answers `--version`; a version other than PROJECT's `cliVersion` is a warning.
fn check_ancestor_binary(bin: &Path, pf: &ProjectFile) -> Result<()> {
    let out = Command::new(bin).arg("--version").output().with_context(|| {
        format!("cannot run --ancestor-binary {}: give the path of a kubesmith binary", bin.display())
    })?;
    let said = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let Some(version) = said.strip_prefix("kubesmith ").filter(|_| out.status.success()) else {
        anyhow::bail!(
            "--ancestor-binary {} is not a kubesmith (`--version` printed `{said}`): give the path of a kubesmith binary",
            bin.display()
        );
    };
    if !pf.cli_version.is_empty() && version != pf.cli_version {
        output::warn(format_args!(
            "warning: --ancestor-binary is kubesmith {version}, but PROJECT says the project was scaffolded with {}: \
             the merge brings the template changes since {version}",
            pf.cli_version
        ));
    }
    Ok(())
}

/// `BIN alpha generate --input-dir INPUT --output-dir OUT`, its output shown only when it fails.
fn generate_with(bin: &Path, input: &Path, out: &Path) -> Result<()> {
    let result = Command::new(bin)
        .args(["alpha", "generate", "--input-dir"])
        .arg(input)
        .arg("--output-dir")
        .arg(out)
        .current_dir(input)
        .output()
        .with_context(|| format!("cannot run {}", bin.display()))?;
    if !result.status.success() {
        anyhow::bail!(
            "the ancestor's kubesmith ({}) failed to replay the project; nothing was changed:\n{}{}",
            bin.display(),
            String::from_utf8_lossy(&result.stdout),
            String::from_utf8_lossy(&result.stderr)
        );
    }
    Ok(())
}
