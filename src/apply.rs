//! The only writer: applies a plan all-or-nothing, skipping files whose bytes would not change.
//!
//! Every new content goes to a temporary sibling first (written on every core: [`crate::parallel`]), then is renamed
//! into place, in plan order; a `Create` over an existing file is refused; on any error every touched path is
//! restored and the folders it created are removed. Once every change is in place, folders a deletion left empty are
//! removed (a moved module leaves no empty folder behind).
//! Inside the write, SIGINT/SIGTERM wait ([`crate::interrupt`]): staging stops and rolls back, or the renames finish.
//!
//! **Invariant (confinement):** before anything is written (and for `--dry-run`), `confine` resolves every planned
//! path component by component and refuses the whole plan, naming the link and its target, when a symbolic link
//! (a dangling one judged by its target) or a `..` would take a write outside the project; only folders named on
//! the command line (`Plan::outside_ok`: `--crd-dir`, `--rbac-dir`, `--webhook-dir`, a non-default `--output-dir`)
//! may lead elsewhere. [`Staging`] is a folder filled through `apply` and published with one rename (or removed
//! when dropped): `alpha generate`'s replay.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::plan::{Action, FileOp, Plan};

/// What applying a plan did, for the summary printed to the user.
#[derive(Debug, Default)]
pub struct Outcome {
    /// What happened to each file that changed, in plan order.
    pub changed: Vec<(Action, PathBuf)>,
    /// Files the plan touched whose contents were already right.
    pub unchanged: usize,
}

/// Ops whose result differs from the disk, with a check that `Create` does not clobber a file.
pub fn effective_ops(plan: &Plan) -> Result<Vec<&FileOp>> {
    let mut out = Vec::new();
    for op in plan.ops() {
        let full = plan.root.join(&op.path);
        let current = read_opt(&full)?;
        if op.action == Action::Create && current.is_some() {
            anyhow::bail!(
                "{} already exists; kubesmith will not overwrite it (pass --force to replace scaffolded files)",
                op.path.display()
            );
        }
        if current.as_deref() == op.contents.as_deref().map(str::as_bytes) {
            continue;
        }
        out.push(op);
    }
    Ok(out)
}

fn read_opt(path: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::IsADirectory => {
            anyhow::bail!("{} is a directory where kubesmith needs a file; move it away", path.display())
        }
        Err(e) => Err(e).with_context(|| format!("failed to read {}", path.display())),
    }
}

/// Refuses a plan that would write or remove a file outside the project through a symbolic link (or a `..`): a
/// repository is untrusted input, and `config/crd/bases -> /etc` must not make `make manifests` write to `/etc`.
/// Paths below a folder the user named on the command line (`Plan::outside_ok`) may go anywhere.
pub fn confine(plan: &Plan) -> Result<()> {
    let root = plan.root.canonicalize().with_context(|| format!("cannot resolve {}", plan.root.display()))?;
    let allowed: Vec<PathBuf> = plan.outside_ok.iter().map(|d| plan.root.join(d)).collect();
    for op in plan.ops() {
        let full = plan.root.join(&op.path);
        if allowed.iter().any(|a| full.starts_with(a)) {
            continue;
        }
        let outside = |what: String| -> anyhow::Error {
            anyhow::anyhow!(
                "refusing to write {}: {what}, outside the project ({}); nothing was written. Replace the link with a \
                 folder, or name the folder on the command line (e.g. --crd-dir, --output-dir) to write there on purpose",
                op.path.display(),
                root.display()
            )
        };
        let Ok(rel) = full.strip_prefix(&plan.root) else {
            return Err(outside(format!("{} is not below the project folder", full.display())));
        };
        let mut cur = plan.root.clone();
        for comp in rel.components() {
            match comp {
                std::path::Component::Normal(c) => cur.push(c),
                std::path::Component::CurDir => continue,
                _ => return Err(outside(format!("{} leaves the project folder", op.path.display()))),
            }
            let meta = match std::fs::symlink_metadata(&cur) {
                Ok(m) => m,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
                Err(e) => return Err(e).with_context(|| format!("cannot inspect {}", cur.display())),
            };
            if !meta.file_type().is_symlink() {
                continue;
            }
            let target = std::fs::read_link(&cur).with_context(|| format!("cannot read the link {}", cur.display()))?;
            // A dangling link would be created at its target: judge that place.
            let resolved = cur.canonicalize().unwrap_or_else(|_| match cur.parent() {
                Some(parent) if target.is_relative() => parent.join(&target),
                _ => target.clone(),
            });
            if !resolved.starts_with(&root) {
                let link = cur.strip_prefix(&plan.root).unwrap_or(&cur);
                return Err(outside(format!("{} is a symbolic link to {}", link.display(), target.display())));
            }
        }
    }
    Ok(())
}

/// Applies the plan. Every new content is first written to a temporary sibling; only when all of them are
/// written are they renamed into place. Any failure restores the previous state of every touched path. A Ctrl-C
/// while staging is such a failure; one during the renames waits for them to finish.
pub fn apply(plan: &Plan) -> Result<Outcome> {
    // Ctrl-C from here on stops the staging (rolled back) or waits for the renames to finish.
    let _critical = crate::interrupt::Critical::enter();
    confine(plan)?;
    let ops = effective_ops(plan)?;
    let mut outcome = Outcome { unchanged: plan.ops().len() - ops.len(), ..Default::default() };
    let mut tx = Transaction::default();
    let result = (|| -> Result<()> {
        // Phase 1: stage every file next to its destination, the folders first, then the files on every core (a
        // large crate's CRDs are a hundred new files, and creating them kept one core busy alone).
        let mut staged = Vec::new();
        for op in &ops {
            let dest = plan.root.join(&op.path);
            let tmp = match &op.contents {
                Some(_) => {
                    tx.create_dirs(dest.parent().context("a planned file has no parent folder")?)?;
                    Some(temp_sibling(&dest))
                }
                None => None,
            };
            staged.push((*op, dest, tmp));
        }
        tx.temps.extend(staged.iter().filter_map(|(_, _, tmp)| tmp.clone()));
        let writes: Vec<(&str, &Path)> =
            staged.iter().filter_map(|(op, _, tmp)| Some((op.contents.as_deref()?, tmp.as_deref()?))).collect();
        crate::parallel::map(writes, |(contents, tmp)| -> Result<()> {
            if crate::interrupt::pending() {
                return Err(crate::interrupt::Interrupted.into());
            }
            std::fs::write(tmp, contents).with_context(|| format!("failed to write {}", tmp.display()))
        })
        .into_iter()
        .collect::<Result<()>>()?;
        // Phase 2: back up and move into place.
        for (op, dest, tmp) in staged {
            let previous = read_opt(&dest)?;
            tx.backups.push((dest.clone(), previous));
            match tmp {
                Some(tmp) => std::fs::rename(&tmp, &dest)
                    .with_context(|| format!("failed to move {} into place", dest.display()))?,
                None => std::fs::remove_file(&dest).with_context(|| format!("failed to remove {}", dest.display()))?,
            }
            outcome.changed.push((op.action, op.path.clone()));
        }
        Ok(())
    })();
    match result {
        Ok(()) => {
            tx.temps.clear();
            for op in ops.iter().filter(|op| op.action == Action::Delete) {
                remove_empty_folders(&plan.root, &op.path);
            }
            Ok(outcome)
        }
        Err(e) => {
            tx.rollback();
            Err(e.context("nothing was changed: every file was restored to its previous state"))
        }
    }
}

/// A folder a command fills (through [`apply`]) before it is published in one rename, or thrown away: `alpha
/// generate` replays a project into one, so a failed replay leaves nothing behind. Removed when dropped unless
/// published.
#[derive(Debug)]
pub struct Staging {
    path: PathBuf,
    published: bool,
}

impl Staging {
    /// A new empty folder beside `dest` (same file system, so publishing is a rename): `.<name>.kubesmith-<pid>-<n>`.
    pub fn beside(dest: &Path) -> Result<Staging> {
        let parent = dest.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let name = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
        Staging::create(parent, &format!(".{name}.kubesmith"))
    }

    /// A new empty folder in the system's temporary folder, for work that is never published.
    pub fn temporary(what: &str) -> Result<Staging> {
        Staging::create(&std::env::temp_dir(), &format!("kubesmith-{what}"))
    }

    fn create(parent: &Path, stem: &str) -> Result<Staging> {
        static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        loop {
            let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let path = parent.join(format!("{stem}-{}-{n}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(Staging { path, published: false }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e).with_context(|| format!("cannot create the folder {}", path.display())),
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Moves the folder to `dest`, which must be absent or an empty folder (then replaced).
    pub fn publish(mut self, dest: &Path) -> Result<()> {
        let was_empty_folder = dest.is_dir();
        if was_empty_folder {
            std::fs::remove_dir(dest)
                .with_context(|| format!("{} is not empty: kubesmith will not write into it", dest.display()))?;
        }
        if let Err(e) = std::fs::rename(&self.path, dest) {
            if was_empty_folder {
                let _ = std::fs::create_dir(dest);
            }
            return Err(e).with_context(|| format!("failed to move {} to {}", self.path.display(), dest.display()));
        }
        self.published = true;
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.published {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// After a deletion: removes the folders above `path` (up to `root`, not included) that it left empty.
fn remove_empty_folders(root: &Path, path: &Path) {
    let mut dir = path.parent();
    while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
        // `remove_dir` fails on a folder that still holds anything: then the folders above are not empty either.
        if std::fs::remove_dir(root.join(d)).is_err() {
            break;
        }
        dir = d.parent();
    }
}

fn temp_sibling(dest: &Path) -> PathBuf {
    let name = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    dest.with_file_name(format!(".{name}.kubesmith-{}.tmp", std::process::id()))
}

/// Undo log for [`apply`].
#[derive(Default)]
struct Transaction {
    temps: Vec<PathBuf>,
    /// Destinations touched, with their previous contents (`None`: did not exist).
    backups: Vec<(PathBuf, Option<Vec<u8>>)>,
    /// Folders created, outermost first.
    dirs: Vec<PathBuf>,
}

impl Transaction {
    fn create_dirs(&mut self, dir: &Path) -> Result<()> {
        let mut missing = Vec::new();
        let mut cur = Some(dir);
        while let Some(d) = cur {
            if d.as_os_str().is_empty() || d.exists() {
                break;
            }
            missing.push(d.to_path_buf());
            cur = d.parent();
        }
        for d in missing.into_iter().rev() {
            std::fs::create_dir(&d).with_context(|| format!("failed to create folder {}", d.display()))?;
            self.dirs.push(d);
        }
        Ok(())
    }

    fn rollback(&mut self) {
        for tmp in self.temps.drain(..) {
            let _ = std::fs::remove_file(tmp);
        }
        for (dest, previous) in self.backups.drain(..).rev() {
            let _ = match previous {
                Some(bytes) => std::fs::write(&dest, bytes),
                None => std::fs::remove_file(&dest),
            };
        }
        for d in self.dirs.drain(..).rev() {
            let _ = std::fs::remove_dir(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    out.push((p.clone(), Vec::new()));
                    stack.push(p);
                } else {
                    out.push((p.clone(), std::fs::read(&p).unwrap()));
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn applies_and_skips_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("same.txt"), "x").unwrap();
        let mut plan = Plan::new(dir.path());
        plan.create("a/b/new.txt", "new".into());
        plan.overwrite("same.txt", "x".into());
        let out = apply(&plan).unwrap();
        assert_eq!(out.changed, [(Action::Create, PathBuf::from("a/b/new.txt"))]);
        assert_eq!(out.unchanged, 1);
        assert_eq!(std::fs::read_to_string(dir.path().join("a/b/new.txt")).unwrap(), "new");
    }

    #[test]
    fn failure_leaves_tree_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("keep.txt"), "old").unwrap();
        std::fs::create_dir(dir.path().join("blocker")).unwrap();
        let before = snapshot(dir.path());
        let mut plan = Plan::new(dir.path());
        plan.edit("keep.txt", "new".into());
        plan.create("deep/new.txt", "n".into());
        // Writing a file where a folder stands fails in the middle of the plan.
        plan.overwrite("blocker", "cannot".into());
        assert!(apply(&plan).is_err());
        assert_eq!(snapshot(dir.path()), before);
    }

    #[test]
    fn a_failed_write_among_many_leaves_no_file_and_names_the_first_failure() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("keep.txt"), "old").unwrap();
        // Enough files that they are written on several threads; two of them cannot be staged (a folder stands
        // where their temporary file goes).
        for blocked in ["crds/f05.yaml", "crds/f17.yaml"] {
            std::fs::create_dir_all(temp_sibling(&dir.path().join(blocked))).unwrap();
        }
        let before = snapshot(dir.path());
        let mut plan = Plan::new(dir.path());
        plan.edit("keep.txt", "new".into());
        for i in 0..24 {
            plan.create(format!("crds/f{i:02}.yaml"), format!("file {i}\n"));
        }
        let err = format!("{:#}", apply(&plan).unwrap_err());
        assert!(err.contains("f05.yaml") && !err.contains("f17.yaml"), "{err}");
        assert!(err.contains("nothing was changed"), "{err}");
        assert_eq!(snapshot(dir.path()), before);
    }

    #[test]
    fn many_files_are_all_written() {
        let dir = tempfile::tempdir().unwrap();
        let mut plan = Plan::new(dir.path());
        for i in 0..30 {
            plan.create(format!("out/{}/f{i}.yaml", i % 3), format!("file {i}\n"));
        }
        assert_eq!(apply(&plan).unwrap().changed.len(), 30);
        for i in 0..30 {
            let text = std::fs::read_to_string(dir.path().join(format!("out/{}/f{i}.yaml", i % 3))).unwrap();
            assert_eq!(text, format!("file {i}\n"));
        }
        let names: Vec<String> = (0..3)
            .flat_map(|d| std::fs::read_dir(dir.path().join(format!("out/{d}"))).unwrap())
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(names.is_empty(), "temporary files left: {names:?}");
    }

    #[test]
    fn create_refuses_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("x.rs"), "mine").unwrap();
        let mut plan = Plan::new(dir.path());
        plan.create("x.rs", "theirs".into());
        let err = apply(&plan).unwrap_err().to_string();
        assert!(err.contains("already exists"), "{err}");
        assert_eq!(std::fs::read_to_string(dir.path().join("x.rs")).unwrap(), "mine");
    }

    #[test]
    fn deletes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("stale.yaml"), "x").unwrap();
        let mut plan = Plan::new(dir.path());
        plan.delete("stale.yaml");
        plan.delete("absent.yaml");
        let out = apply(&plan).unwrap();
        assert_eq!(out.changed, [(Action::Delete, PathBuf::from("stale.yaml"))]);
        assert!(!dir.path().join("stale.yaml").exists());
    }
}
