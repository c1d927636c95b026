//! The git commands `alpha generate --output-dir .` and `alpha update` run (`git` on the PATH): the state of a work
//! tree, and commits made from a folder's files through a temporary index, so the user's index and files are
//! never touched until the final merge.
//!
//! Besides [`crate::apply`], this is the one writer into a user's repository: only under `alpha update` (the
//! `kubesmith-ancestor`, `kubesmith-upgrade`, `kubesmith-original` and `kubesmith-merge` branches and the final
//! `git merge`) and `alpha generate --output-dir .` (reading state only).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use anyhow::Result;

/// A git repository seen from one folder of its work tree.
#[derive(Debug, Clone)]
pub struct Repo {
    /// The folder commands run in.
    pub dir: PathBuf,
    /// The top of the work tree.
    pub top: PathBuf,
}

fn git_command(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    // Plain, untranslated output whatever the user's configuration.
    cmd.current_dir(dir).env("LC_ALL", "C").env("GIT_TERMINAL_PROMPT", "0").env_remove("GIT_INDEX_FILE");
    cmd
}

fn spawn_error(e: std::io::Error) -> anyhow::Error {
    if e.kind() == std::io::ErrorKind::NotFound {
        anyhow::anyhow!("git is not installed (no `git` on the PATH): install git and run the command again")
    } else {
        anyhow::Error::new(e).context("cannot run git")
    }
}

fn describe<S: AsRef<OsStr>>(args: &[S]) -> String {
    let words: Vec<String> = args.iter().map(|a| a.as_ref().to_string_lossy().into_owned()).collect();
    format!("git {}", words.join(" "))
}

/// Runs git and returns its output whatever its exit code.
fn output<S: AsRef<OsStr>>(mut cmd: Command, args: &[S]) -> Result<Output> {
    cmd.args(args).output().map_err(spawn_error)
}

/// Runs git, failing with its message when it fails; returns stdout.
fn checked<S: AsRef<OsStr>>(cmd: Command, args: &[S]) -> Result<String> {
    let out = output(cmd, args)?;
    if !out.status.success() {
        anyhow::bail!("`{}` failed: {}", describe(args), String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

impl Repo {
    /// The repository whose work tree holds `dir`; `None` when `dir` is in none.
    pub fn find(dir: &Path) -> Result<Option<Repo>> {
        let out = output(git_command(dir), &["rev-parse", "--show-toplevel"])?;
        if !out.status.success() {
            return Ok(None);
        }
        let top = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        Ok(Some(Repo { dir: dir.to_path_buf(), top }))
    }

    fn cmd(&self) -> Command {
        git_command(&self.dir)
    }

    /// Runs git in the repository's folder; stdout on success, git's message on failure.
    pub fn run<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<String> {
        checked(self.cmd(), args)
    }

    /// Runs git and returns its raw output whatever its exit code (for commands whose failure means something, such
    /// as a merge with conflicts).
    pub fn output<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<Output> {
        output(self.cmd(), args)
    }

    /// `git status --porcelain` of the folder (untracked files included, ignored ones not): empty when clean.
    pub fn changes(&self) -> Result<Vec<String>> {
        let text = self.run(&["status", "--porcelain", "--untracked-files=all", "--", "."])?;
        Ok(text.lines().map(str::to_string).filter(|l| !l.is_empty()).collect())
    }

    /// The files git tracks below the folder, relative to it.
    pub fn tracked_files(&self) -> Result<Vec<PathBuf>> {
        let text = self.run(&["ls-files", "-z", "--", "."])?;
        Ok(text.split('\0').filter(|p| !p.is_empty()).map(PathBuf::from).collect())
    }

    /// The current branch; `None` on a detached HEAD.
    pub fn current_branch(&self) -> Result<Option<String>> {
        let out = self.output(&["symbolic-ref", "--quiet", "--short", "HEAD"])?;
        Ok(out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string()))
    }

    /// The commit a revision names, if it names one.
    pub fn commit_of(&self, rev: &str) -> Result<Option<String>> {
        let out = self.output(&["rev-parse", "--verify", "--quiet", &format!("{rev}^{{commit}}")])?;
        Ok(out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string()))
    }

    /// Whether a local branch of that name exists.
    pub fn branch_exists(&self, name: &str) -> Result<bool> {
        Ok(self.output(&["show-ref", "--verify", "--quiet", &format!("refs/heads/{name}")])?.status.success())
    }

    /// The text of a file at a revision, `None` when the revision has no such file.
    pub fn show_file(&self, rev: &str, path: &str) -> Result<Option<String>> {
        let out = self.output(&["show", &format!("{rev}:{path}")])?;
        Ok(out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned()))
    }

    /// The tree of a folder's files as git would commit them (its `.gitignore` files apply), written through the
    /// temporary index file `index` (in an existing folder) so the repository's own index is left alone.
    pub fn tree_of_folder(&self, folder: &Path, index: &Path) -> Result<String> {
        let git_dir = PathBuf::from(self.run(&["rev-parse", "--absolute-git-dir"])?.trim());
        let with_index = || {
            let mut cmd = Command::new("git");
            cmd.current_dir(folder)
                .env("LC_ALL", "C")
                .env("GIT_INDEX_FILE", index)
                .env("GIT_DIR", &git_dir)
                .env("GIT_WORK_TREE", folder);
            cmd
        };
        checked(with_index(), &["add", "--all", "--", "."])?;
        Ok(checked(with_index(), &["write-tree"])?.trim().to_string())
    }

    /// A commit of `tree` with `parents` and `message`; returns its id. No hook runs, nothing is checked out.
    pub fn commit_tree(&self, tree: &str, parents: &[&str], message: &str) -> Result<String> {
        let mut args = vec!["commit-tree".to_string(), tree.to_string()];
        for p in parents {
            args.extend(["-p".to_string(), (*p).to_string()]);
        }
        args.extend(["-m".to_string(), message.to_string()]);
        Ok(self.run(&args)?.trim().to_string())
    }

    /// Whether git knows who commits (`user.name` and `user.email`, or their environment variables).
    pub fn has_identity(&self) -> Result<bool> {
        Ok(self.output(&["var", "GIT_COMMITTER_IDENT"])?.status.success()
            && self.output(&["var", "GIT_AUTHOR_IDENT"])?.status.success())
    }
}
