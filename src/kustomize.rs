//! Running kustomize: `kubectl kustomize DIR` renders a project's `config/` for `make bundle` and `make helm` (the
//! `KUBECTL` variable names another binary).

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

/// `kubectl kustomize <dir>` (the `KUBECTL` variable names another binary); `make helm` renders with it too.
pub(crate) fn kustomize(cwd: &Path, dir: &Path) -> Result<String> {
    let kubectl = std::env::var("KUBECTL").ok().filter(|k| !k.is_empty()).unwrap_or_else(|| "kubectl".into());
    let output = match Command::new(&kubectl).arg("kustomize").arg(dir).current_dir(cwd).output() {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "{kubectl} not found: kubesmith renders {} with `kubectl kustomize`; install kubectl \
             (https://kubernetes.io/docs/tasks/tools/) or point KUBECTL at it",
            dir.display()
        ),
        Err(e) => return Err(e).with_context(|| format!("failed to run {kubectl} kustomize {}", dir.display())),
    };
    if !output.status.success() {
        bail!(
            "`{kubectl} kustomize {}` failed:\n{}",
            dir.display(),
            String::from_utf8_lossy(&output.stderr).trim_end()
        );
    }
    String::from_utf8(output.stdout).context("kubectl kustomize printed something that is not UTF-8")
}
