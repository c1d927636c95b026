//! What inferring RBAC says besides the rules, shared by `rbac infer` and `make manifests`: warnings as
//! `path:line:` lines, and one warning per kube-dependent crate whose source could not be read.

use std::path::{Path, PathBuf};

use crate::rbac::infer::{self, Inference};

/// `path` as the user should read it: relative to `cwd` when below it.
pub(crate) fn display_path(path: &Path, cwd: &Path) -> String {
    path.strip_prefix(cwd).unwrap_or(path).display().to_string()
}

/// The warnings of an inference, one `path:line: message` line each.
pub(crate) fn warning_lines(inference: &Inference, cwd: &Path) -> Vec<String> {
    inference
        .warnings
        .iter()
        .map(|w| format!("warning: {}:{}: {}", display_path(&w.file, cwd), w.line, w.message))
        .collect()
}

/// A warning for each kube-dependent crate whose source could not be read: what it may hide (the calls the code
/// makes through it) and the fix, at the first line of `sources` (or of the path dependencies found) that uses the
/// crate, else at its entry in the lock file.
pub(crate) fn unread_warnings(
    fetched: &crate::source::dependencies::fetch::Fetched,
    sources: &[PathBuf],
) -> Vec<infer::Warning> {
    let deps = &fetched.deps;
    if deps.unread.is_empty() {
        return Vec::new();
    }
    let mut dirs: Vec<PathBuf> = sources.to_vec();
    dirs.extend(deps.found.iter().filter(|f| !f.immutable).map(|f| f.src.clone()));
    let names: Vec<String> = deps.unread.iter().map(|u| u.name.replace('-', "_")).collect();
    let uses = crate::source::dependencies::uses::first_uses(&dirs, &names);
    deps.unread
        .iter()
        .zip(uses)
        .map(|(u, used)| {
            let kind = if u.is_git() { "a git dependency" } else { "a registry dependency" };
            let lock = u.lock.file_name().map_or_else(|| u.lock.display().to_string(), |f| f.to_string_lossy().into());
            let fetch = if let Some(said) = &fetched.failed {
                format!("kubesmith ran `cargo metadata` to fetch it, which failed: {said}; ")
            } else if fetched.offline {
                "nothing was fetched (offline); ".to_string()
            } else {
                String::new()
            };
            let ident = u.name.replace('-', "_");
            let (file, line, at) = match used {
                Some((file, line)) => (file, line, format!(" ({kind}, {lock}:{})", u.line)),
                None => (u.lock.clone(), u.line, format!(" ({kind})")),
            };
            infer::Warning {
                file,
                line,
                message: format!(
                    "{} {}{at} depends on kube but {}, so it was not read: the role misses the API calls the code \
                     makes through `{ident}::`; {fetch}{}",
                    u.name, u.version, u.why, u.fix
                ),
                unresolved: None,
            }
        })
        .collect()
}
