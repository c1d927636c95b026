//! Where installed envtest binaries are looked for, in this order: `--bin-dir` (a folder holding the binaries
//! itself, then its store layout `k8s/<version>-<os>-<arch>/`), `$KUBEBUILDER_ASSETS`, the store; and what each
//! place holds for a platform.

use std::path::PathBuf;

use anyhow::Result;

use super::folder;
use super::platform::Platform;
use super::store::Store;
use super::version::Version;

/// Where a release was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// `--bin-dir` holds the binaries itself.
    BinDir,
    /// `--bin-dir`'s `k8s/<version>-<os>-<arch>/`.
    BinDirStore,
    /// `$KUBEBUILDER_ASSETS`.
    Assets,
    /// The store (`$KUBESMITH_ENVTEST_STORE` or setup-envtest's).
    Store,
    /// Just downloaded from this URL and verified.
    Downloaded(String),
}

impl Origin {
    /// How `envtest use` and `envtest list` name it.
    pub fn describe(&self) -> String {
        match self {
            Origin::BinDir => "--bin-dir".to_string(),
            Origin::BinDirStore => "--bin-dir's store".to_string(),
            Origin::Assets => "$KUBEBUILDER_ASSETS".to_string(),
            Origin::Store => "the envtest store (shared with setup-envtest)".to_string(),
            Origin::Downloaded(url) => format!("downloaded from {url}, SHA-512 verified"),
        }
    }
}

/// A folder holding one release's binaries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub version: Version,
    pub platform: Platform,
    pub dir: PathBuf,
    pub origin: Origin,
}

/// The places searched (absolute paths).
#[derive(Debug, Clone)]
pub struct Places {
    /// `--bin-dir`.
    pub bin_dir: Option<PathBuf>,
    /// `$KUBEBUILDER_ASSETS`.
    pub assets: Option<PathBuf>,
    /// The default store.
    pub store: Store,
}

impl Places {
    /// The store downloads go to and `cleanup` removes from: `--bin-dir`'s (as with setup-envtest), else the
    /// default one.
    pub fn target(&self) -> Store {
        self.bin_dir.as_ref().map(Store::at).unwrap_or_else(|| self.store.clone())
    }

    /// The folders searched, in order, for messages.
    pub fn searched(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(bin) = &self.bin_dir {
            out.push(format!("--bin-dir {}", bin.display()));
            out.push(Store::at(bin).versions_dir().display().to_string());
        }
        if let Some(assets) = &self.assets {
            out.push(format!("$KUBEBUILDER_ASSETS {}", assets.display()));
        }
        if self.bin_dir.as_ref() != Some(&self.store.root) {
            out.push(self.store.versions_dir().display().to_string());
        }
        out
    }

    /// What each place holds for `platform`, in search order (newest first within a place), and a warning for each
    /// folder whose version cannot be told.
    pub fn search(&self, platform: &Platform) -> Result<(Vec<Vec<Found>>, Vec<String>)> {
        let mut places = Vec::new();
        let mut warnings = Vec::new();
        let in_store = |store: &Store, origin: Origin| -> Result<Vec<Found>> {
            Ok(store
                .entries()?
                .into_iter()
                .filter(|e| e.platform == *platform)
                .map(|e| Found { version: e.version, platform: e.platform, dir: e.dir, origin: origin.clone() })
                .collect())
        };
        if let Some(bin) = &self.bin_dir {
            places.push(flat(bin, platform, Origin::BinDir, &mut warnings).into_iter().collect());
            places.push(in_store(&Store::at(bin), Origin::BinDirStore)?);
        }
        if let Some(assets) = &self.assets {
            let named = assets.file_name().and_then(|n| n.to_str()).and_then(Platform::parse_dir_name);
            let found = match named {
                // A store folder (`.../k8s/1.30.2-linux-amd64`): its name says what it holds.
                Some((version, p)) if folder::holds_binaries(assets, &p) => (p == *platform).then(|| Found {
                    version,
                    platform: p,
                    dir: assets.clone(),
                    origin: Origin::Assets,
                }),
                _ => {
                    let found = flat(assets, platform, Origin::Assets, &mut warnings);
                    if found.is_none() && !folder::holds_binaries(assets, &Platform::host()) {
                        warnings.push(format!(
                            "warning: $KUBEBUILDER_ASSETS ({}) holds no kube-apiserver and etcd: ignored",
                            assets.display()
                        ));
                    }
                    found
                }
            };
            places.push(found.into_iter().collect());
        }
        if self.bin_dir.as_ref() != Some(&self.store.root) {
            places.push(in_store(&self.store, Origin::Store)?);
        }
        Ok((places, warnings))
    }
}

/// The release in a folder holding the binaries itself; such a folder is the host's, so it counts only for the
/// host's platform.
fn flat(dir: &std::path::Path, platform: &Platform, origin: Origin, warnings: &mut Vec<String>) -> Option<Found> {
    if !platform.is_host() || !folder::holds_binaries(dir, platform) {
        return None;
    }
    match folder::version(dir) {
        Ok(version) => Some(Found { version, platform: platform.clone(), dir: dir.to_path_buf(), origin }),
        Err(e) => {
            warnings.push(format!(
                "warning: cannot tell the version of the envtest binaries in {}: {e:#}; skipped",
                dir.display()
            ));
            None
        }
    }
}
