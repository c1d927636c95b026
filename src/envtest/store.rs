//! The envtest store, shared with setup-envtest: `<root>/k8s/<version>-<os>-<arch>/` holds one release's
//! binaries. The default root is setup-envtest's (`$XDG_DATA_HOME/kubebuilder-envtest`, else
//! `~/.local/share/kubebuilder-envtest`; `~/Library/Application Support/io.kubebuilder.envtest` on macOS,
//! `%LocalAppData%\kubebuilder-envtest` on Windows), or `$KUBESMITH_ENVTEST_STORE`; `--bin-dir DIR` makes DIR the
//! root. Installing verifies the archive's SHA-512 before unpacking it into a temporary sibling that is renamed
//! into place, so a failure leaves no version folder behind.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};

use super::index::Archive;
use super::platform::Platform;
use super::version::Version;
use super::{archive, folder};

/// Environment variable naming the store's root instead of setup-envtest's default.
pub const STORE_ENV: &str = "KUBESMITH_ENVTEST_STORE";

/// A store root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Store {
    pub root: PathBuf,
}

/// One installed release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub version: Version,
    pub platform: Platform,
    pub dir: PathBuf,
}

fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from)
}

impl Store {
    pub fn at(root: impl Into<PathBuf>) -> Store {
        Store { root: root.into() }
    }

    /// `$KUBESMITH_ENVTEST_STORE`, else setup-envtest's default store.
    pub fn default_root() -> Result<PathBuf> {
        if let Some(root) = env_path(STORE_ENV) {
            return Ok(root);
        }
        let missing = |what: &str| {
            anyhow!(
                "cannot tell where the envtest store is: {what} is not set; set {STORE_ENV}=DIR or pass --bin-dir DIR"
            )
        };
        if cfg!(windows) {
            return Ok(env_path("LocalAppData").ok_or_else(|| missing("%LocalAppData%"))?.join("kubebuilder-envtest"));
        }
        if cfg!(target_os = "macos") {
            let home = env_path("HOME").ok_or_else(|| missing("$HOME"))?;
            return Ok(home.join("Library/Application Support/io.kubebuilder.envtest"));
        }
        let data = match env_path("XDG_DATA_HOME") {
            Some(d) => d,
            None => env_path("HOME").ok_or_else(|| missing("neither $XDG_DATA_HOME nor $HOME"))?.join(".local/share"),
        };
        Ok(data.join("kubebuilder-envtest"))
    }

    /// `<root>/k8s`, where the version folders are.
    pub fn versions_dir(&self) -> PathBuf {
        self.root.join("k8s")
    }

    /// Every complete version folder (holding `kube-apiserver` and `etcd`), newest first.
    pub fn entries(&self) -> Result<Vec<Entry>> {
        let dir = self.versions_dir();
        let read = match fs::read_dir(&dir) {
            Ok(r) => r,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e).with_context(|| format!("cannot list the envtest store {}", dir.display())),
        };
        let mut entries = Vec::new();
        for item in read {
            let item = item.with_context(|| format!("cannot list the envtest store {}", dir.display()))?;
            let Some((version, platform)) = item.file_name().to_str().and_then(Platform::parse_dir_name) else {
                continue;
            };
            let path = item.path();
            if path.is_dir() && folder::holds_binaries(&path, &platform) {
                entries.push(Entry { version, platform, dir: path });
            }
        }
        entries.sort_by(|a, b| b.version.cmp(&a.version).then_with(|| a.platform.cmp(&b.platform)));
        Ok(entries)
    }

    /// The folder `version` for `platform` has (or will have) in this store.
    pub fn dir_of(&self, version: Version, platform: &Platform) -> PathBuf {
        self.versions_dir().join(platform.dir_name(version))
    }

    /// Downloads `archive`, checks its SHA-512 against the index's, unpacks it into a temporary folder beside the
    /// version folders and renames that into place. Nothing is written to the store before the checksum matches.
    pub fn install(&self, archive: &Archive) -> Result<Entry> {
        let name = &archive.name;
        if archive.sha512.len() != 128 || !archive.sha512.bytes().all(|b| b.is_ascii_hexdigit()) {
            bail!(
                "the index gives {name} no SHA-512 (hash `{}`): refusing to install it unverified; pass --index URL \
                 with an index whose hashes are SHA-512 hex digests",
                archive.sha512
            );
        }
        let mut download = tempfile::tempfile().context("cannot create a temporary file for the download")?;
        let got = super::fetch::download(&archive.url, &mut download)
            .with_context(|| format!("cannot download {name} from {}", archive.url))?;
        if got != archive.sha512 {
            bail!(
                "checksum mismatch for {name} from {}: the index says SHA-512 {}…, the download has {}…; nothing was \
                 extracted — run the command again (a damaged download), or check that --index names the index \
                 this archive belongs to",
                archive.url,
                &archive.sha512[..16],
                &got[..16]
            );
        }
        let versions = self.versions_dir();
        let created = !versions.exists();
        fs::create_dir_all(&versions)
            .with_context(|| format!("cannot create the envtest store {}", versions.display()))?;
        let installed = self.unpack_into(&versions, &mut download, archive);
        if installed.is_err() && created {
            // Leave the store as it was: remove `k8s/` again when this made it (it is empty then).
            let _ = fs::remove_dir(&versions);
        }
        installed
    }

    /// Unpacks the verified download into a temporary folder in `versions` and renames it into place.
    fn unpack_into(&self, versions: &Path, download: &mut fs::File, archive: &Archive) -> Result<Entry> {
        let name = &archive.name;
        let staging = tempfile::Builder::new()
            .prefix(".kubesmith-")
            .tempdir_in(versions)
            .with_context(|| format!("cannot write in the envtest store {}", versions.display()))?;
        archive::unpack(download, name, &archive.platform, staging.path())?;
        set_mode(staging.path(), 0o755)?;
        let target = self.dir_of(archive.version, &archive.platform);
        if target.exists() {
            // An incomplete folder (complete ones are never installed again): replace it.
            remove_dir(&target)?;
        }
        let staged = staging.keep();
        if let Err(e) = fs::rename(&staged, &target) {
            let _ = fs::remove_dir_all(&staged);
            // Another process may have installed the same version meanwhile.
            if !folder::holds_binaries(&target, &archive.platform) {
                return Err(e).with_context(|| format!("cannot move the unpacked {name} to {}", target.display()));
            }
        }
        Ok(Entry { version: archive.version, platform: archive.platform.clone(), dir: target })
    }

    /// Removes an installed version's folder (setup-envtest leaves them read-only).
    pub fn remove(&self, entry: &Entry) -> Result<()> {
        remove_dir(&entry.dir)
    }
}

fn remove_dir(dir: &Path) -> Result<()> {
    let _ = set_mode(dir, 0o755);
    fs::remove_dir_all(dir).with_context(|| format!("cannot remove {}", dir.display()))
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .with_context(|| format!("cannot set the permissions of {}", path.display()))
}

#[cfg(not(unix))]
fn set_mode(_: &Path, _: u32) -> Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_complete_version_folders_newest_first() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::at(dir.path());
        assert!(store.entries().unwrap().is_empty(), "a missing store has no entries");
        let linux = Platform { os: "linux".into(), arch: "amd64".into() };
        for (name, files) in [
            ("1.29.3-linux-amd64", &["kube-apiserver", "etcd", "kubectl"][..]),
            ("1.30.2-linux-amd64", &["kube-apiserver", "etcd"][..]),
            ("1.31.0-linux-amd64", &["kube-apiserver"][..]),
            (".kubesmith-abc", &["kube-apiserver", "etcd"][..]),
            ("notes", &["kube-apiserver", "etcd"][..]),
        ] {
            let d = store.versions_dir().join(name);
            fs::create_dir_all(&d).unwrap();
            for f in files {
                fs::write(d.join(f), "").unwrap();
            }
        }
        let entries = store.entries().unwrap();
        let names: Vec<String> = entries.iter().map(|e| e.platform.dir_name(e.version)).collect();
        assert_eq!(names, ["1.30.2-linux-amd64", "1.29.3-linux-amd64"]);
        assert_eq!(store.dir_of(Version::new(1, 30, 2), &linux), entries[0].dir);
        store.remove(&entries[0]).unwrap();
        assert_eq!(store.entries().unwrap().len(), 1);
    }
}
