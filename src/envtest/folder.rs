//! A folder holding envtest binaries itself (`--bin-dir DIR`, `$KUBEBUILDER_ASSETS`): whether it is one, and the
//! Kubernetes version of its `kube-apiserver` (`kube-apiserver --version` prints `Kubernetes v1.30.2`).

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use super::REQUIRED;
use super::platform::Platform;
use super::version::Version;

/// How long `kube-apiserver --version` may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(20);

/// Whether `dir` holds the binaries envtest needs (`kube-apiserver` and `etcd`) for `platform`.
pub fn holds_binaries(dir: &Path, platform: &Platform) -> bool {
    REQUIRED.iter().all(|b| dir.join(platform.exe(b)).is_file())
}

/// The version of the host's `kube-apiserver` in `dir`.
pub fn version(dir: &Path) -> Result<Version> {
    let bin = dir.join(Platform::host().exe("kube-apiserver"));
    let mut attempts = 0;
    let mut child = loop {
        match Command::new(&bin)
            .arg("--version")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
        {
            Ok(child) => break child,
            // Written a moment ago by a process that forked meanwhile: retry.
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && attempts < 20 => {
                attempts += 1;
                std::thread::sleep(Duration::from_millis(25));
            }
            Err(e) => return Err(e).with_context(|| format!("cannot run `{} --version`", bin.display())),
        }
    };
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if started.elapsed() > VERSION_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            bail!("`{} --version` did not finish within {} s", bin.display(), VERSION_TIMEOUT.as_secs());
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let mut out = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = stdout.read_to_string(&mut out);
    }
    if !status.success() {
        bail!("`{} --version` failed ({status})", bin.display());
    }
    Version::find_in(&out)
        .with_context(|| format!("`{} --version` printed {:?}, not `Kubernetes vX.Y.Z`", bin.display(), out.trim()))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn script(dir: &Path, name: &str, body: &str) {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn the_version_comes_from_kube_apiserver() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!holds_binaries(dir.path(), &Platform::host()));
        script(dir.path(), "kube-apiserver", "echo 'Kubernetes v1.20.2'");
        script(dir.path(), "etcd", "exit 0");
        assert!(holds_binaries(dir.path(), &Platform::host()));
        assert_eq!(version(dir.path()).unwrap(), Version::new(1, 20, 2));
        script(dir.path(), "kube-apiserver", "echo 'hello'");
        assert!(version(dir.path()).unwrap_err().to_string().contains("printed \"hello\""));
        script(dir.path(), "kube-apiserver", "exit 3");
        assert!(version(dir.path()).unwrap_err().to_string().contains("failed"));
    }
}
