//! Plans: the list of file changes a command wants, computed without touching the disk.
//!
//! A plan holds file operations (create, overwrite, update, remove) and notes. `Plan::read` gives the contents a file
//! will have after the plan (planned contents, else the disk), so later steps of a command see earlier ones: two
//! insertions into the same file compose. `--dry-run` prints the effective operations; [`crate::apply`] writes them.
//! `Plan::verbatim` marks files written as rendered, never through the user's `rustfmt` (the vendored runtime,
//! files that were not `rustfmt` clean before a move).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// What happens to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// A new file; applying fails if something appeared at the path in the meantime.
    Create,
    /// A scaffolded file replaced as a whole (`--force`, or a generated manifest).
    Overwrite,
    /// An existing file changed in place (an insertion at a marker, a merged manifest).
    Edit,
    /// A file that no longer belongs (a stale generated manifest).
    Delete,
}

impl Action {
    /// The word for it in kubesmith's output: `create`, `overwrite`, `update`, `remove`.
    pub fn verb(self) -> &'static str {
        match self {
            Action::Create => "create",
            Action::Overwrite => "overwrite",
            Action::Edit => "update",
            Action::Delete => "remove",
        }
    }
}

/// One planned file change. Paths are relative to the plan's root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileOp {
    pub path: PathBuf,
    pub action: Action,
    /// The full new contents; `None` for deletions.
    pub contents: Option<String>,
}

/// Everything a command wants to change, plus the messages to show the user.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub root: PathBuf,
    ops: Vec<FileOp>,
    index: HashMap<PathBuf, usize>,
    /// Lines printed after the plan is applied (or with `--dry-run`): next steps, notes, warnings.
    pub notes: Vec<String>,
    /// Rust files the formatter leaves as planned (user code that was not `rustfmt`-clean before the command).
    pub verbatim: BTreeSet<PathBuf>,
    /// Folders the user named on the command line (`--crd-dir`, `--output-dir`, ...): writes below them may leave
    /// the project through symbolic links; every other write must stay inside `root` (see `apply::confine`).
    pub outside_ok: Vec<PathBuf>,
}

impl Plan {
    pub fn new(root: &Path) -> Self {
        Plan { root: root.to_path_buf(), ..Default::default() }
    }

    /// Plans a new file; a later op on the same path replaces the contents but keeps `Create`.
    pub fn create(&mut self, path: impl Into<PathBuf>, contents: String) {
        self.put(path.into(), Action::Create, Some(contents));
    }

    /// Plans a whole-file replacement.
    pub fn overwrite(&mut self, path: impl Into<PathBuf>, contents: String) {
        self.put(path.into(), Action::Overwrite, Some(contents));
    }

    /// Plans a file that exists, or is planned, to get new contents.
    pub fn edit(&mut self, path: impl Into<PathBuf>, contents: String) {
        self.put(path.into(), Action::Edit, Some(contents));
    }

    /// Replaces the planned contents of a path already in the plan, keeping its action (used by formatters).
    pub fn replace_contents(&mut self, path: &Path, contents: String) {
        if let Some(&i) = self.index.get(path) {
            self.ops[i].contents = Some(contents);
        }
    }

    /// Plans a deletion.
    pub fn delete(&mut self, path: impl Into<PathBuf>) {
        self.put(path.into(), Action::Delete, None);
    }

    /// Writes `contents` at `path`: create it when absent, overwrite when present (for generated files).
    pub fn write(&mut self, path: impl Into<PathBuf>, contents: String) -> Result<()> {
        let path = path.into();
        if self.read(&path)?.is_some() {
            self.put(path, Action::Overwrite, Some(contents));
        } else {
            self.put(path, Action::Create, Some(contents));
        }
        Ok(())
    }

    fn put(&mut self, path: PathBuf, action: Action, contents: Option<String>) {
        if let Some(&i) = self.index.get(&path) {
            let op = &mut self.ops[i];
            // A file created earlier in this plan stays a creation whatever later steps do to it.
            if op.action != Action::Create || action == Action::Delete {
                op.action = action;
            }
            op.contents = contents;
            return;
        }
        self.index.insert(path.clone(), self.ops.len());
        self.ops.push(FileOp { path, action, contents });
    }

    /// The contents a file will have once the plan is applied: planned contents first, then the disk.
    pub fn read(&self, path: &Path) -> Result<Option<String>> {
        if let Some(&i) = self.index.get(path) {
            return Ok(self.ops[i].contents.clone());
        }
        let full = self.root.join(path);
        match std::fs::read_to_string(&full) {
            Ok(t) => Ok(Some(t)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e).with_context(|| format!("failed to read {}", full.display())),
        }
    }

    /// Like [`Plan::read`] but the file must exist.
    pub fn read_existing(&self, path: &Path) -> Result<String> {
        self.read(path)?.with_context(|| {
            format!(
                "{} is missing: kubesmith needs it to continue; restore it from version control or re-run `kubesmith init`",
                path.display()
            )
        })
    }

    /// True when the file exists on disk or is planned.
    pub fn exists(&self, path: &Path) -> bool {
        match self.index.get(path) {
            Some(&i) => self.ops[i].contents.is_some(),
            None => self.root.join(path).exists(),
        }
    }

    pub fn ops(&self) -> &[FileOp] {
        &self.ops
    }

    /// The planned contents of every file that will exist under `dir` once applied (for the CRD generator).
    pub fn overlay(&self) -> BTreeMap<PathBuf, String> {
        self.ops.iter().filter_map(|op| Some((self.root.join(&op.path), op.contents.clone()?))).collect()
    }

    /// Human-readable line for an op, e.g. `create  src/main.rs`.
    pub fn describe(op: &FileOp) -> String {
        format!("{:<9} {}", op.action.verb(), op.path.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_steps_see_earlier_ones() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "disk").unwrap();
        let mut plan = Plan::new(dir.path());
        assert_eq!(plan.read(Path::new("a.txt")).unwrap().as_deref(), Some("disk"));
        plan.edit("a.txt", "planned".into());
        assert_eq!(plan.read(Path::new("a.txt")).unwrap().as_deref(), Some("planned"));
        plan.create("b.txt", "one".into());
        plan.edit("b.txt", "two".into());
        assert_eq!(plan.ops()[1].action, Action::Create);
        assert_eq!(plan.ops()[1].contents.as_deref(), Some("two"));
        assert!(plan.exists(Path::new("b.txt")));
        assert!(!plan.exists(Path::new("c.txt")));
        plan.write("c.txt", "x".into()).unwrap();
        plan.write("a.txt", "y".into()).unwrap();
        assert_eq!(plan.ops()[2].action, Action::Create);
        assert_eq!(plan.ops()[0].action, Action::Overwrite);
    }
}
