//! The envtest release index controller-tools publishes (`envtest-releases.yaml`): for each Kubernetes release, one
//! `envtest-v<version>-<os>-<arch>.tar.gz` per platform with its SHA-512 (hex) and download link (`selfLink`).
//!
//! ```yaml
//! releases:
//!   v1.30.0:
//!     envtest-v1.30.0-linux-amd64.tar.gz:
//!       hash: <sha512 hex>
//!       selfLink: https://github.com/kubernetes-sigs/controller-tools/releases/download/envtest-v1.30.0/envtest-v1.30.0-linux-amd64.tar.gz
//! ```

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Context, Result};
use serde::Deserialize;

use super::platform::Platform;
use super::version::{Selector, Version};

/// Where the index is read from by default (setup-envtest's default).
pub const DEFAULT_URL: &str =
    "https://raw.githubusercontent.com/kubernetes-sigs/controller-tools/HEAD/envtest-releases.yaml";

#[derive(Deserialize)]
struct RawIndex {
    #[serde(default)]
    releases: BTreeMap<String, Option<BTreeMap<String, RawArchive>>>,
}

#[derive(Deserialize)]
struct RawArchive {
    hash: String,
    #[serde(rename = "selfLink")]
    self_link: String,
}

/// One downloadable archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Archive {
    /// `envtest-v1.30.0-linux-amd64.tar.gz`
    pub name: String,
    pub version: Version,
    pub platform: Platform,
    /// SHA-512 of the archive, lowercase hex.
    pub sha512: String,
    /// Absolute URL of the archive.
    pub url: String,
}

/// The archives of an index, newest first (then by platform).
#[derive(Debug, Clone)]
pub struct Index {
    /// Where it was read from.
    pub url: String,
    pub archives: Vec<Archive>,
}

impl Index {
    /// Reads the index text fetched from `url`; archives whose name is no `envtest-v<version>-<os>-<arch>.tar.gz`
    /// are skipped (as setup-envtest does); relative links are resolved against `url`.
    pub fn parse(url: &str, text: &str) -> Result<Index> {
        let raw: RawIndex = serde_yaml_ng::from_str(text).with_context(|| {
            format!("{url} is no envtest release index (`releases: {{v1.30.0: {{envtest-v1.30.0-linux-amd64.tar.gz: {{hash, selfLink}}}}}}`)")
        })?;
        let mut archives: Vec<Archive> = raw
            .releases
            .into_values()
            .flatten()
            .flatten()
            .filter_map(|(name, a)| {
                let (version, platform) = Platform::parse_archive_name(&name)?;
                Some(Archive {
                    url: resolve(url, &a.self_link),
                    sha512: a.hash.trim().to_ascii_lowercase(),
                    name,
                    version,
                    platform,
                })
            })
            .collect();
        archives.sort_by(|a, b| b.version.cmp(&a.version).then_with(|| a.platform.cmp(&b.platform)));
        archives.dedup_by(|a, b| a.version == b.version && a.platform == b.platform);
        Ok(Index { url: url.to_string(), archives })
    }

    /// The archives for `platform`, newest first.
    pub fn for_platform<'a>(&'a self, platform: &'a Platform) -> impl Iterator<Item = &'a Archive> + 'a {
        self.archives.iter().filter(move |a| a.platform == *platform)
    }

    /// The newest archive for `platform` the selector takes.
    pub fn newest(&self, selector: &Selector, platform: &Platform) -> Option<&Archive> {
        self.archives.iter().find(|a| a.platform == *platform && selector.matches(a.version))
    }

    /// Every platform the index has archives for.
    pub fn platforms(&self) -> BTreeSet<String> {
        self.archives.iter().map(|a| a.platform.to_string()).collect()
    }
}

/// `link` as an absolute URL: as it is when it has a scheme, else relative to the index's URL.
fn resolve(index_url: &str, link: &str) -> String {
    let link = link.trim();
    if link.contains("://") {
        return link.to_string();
    }
    let origin_end = index_url.find("://").map(|i| i + 3).and_then(|s| index_url[s..].find('/').map(|e| s + e));
    match (link.starts_with('/'), origin_end) {
        (true, Some(end)) => format!("{}{link}", &index_url[..end]),
        _ => match index_url.rfind('/') {
            Some(i) => format!("{}{link}", &index_url[..=i]),
            None => link.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INDEX: &str = "releases:
  v1.29.3:
    envtest-v1.29.3-linux-amd64.tar.gz:
      hash: AA11
      selfLink: https://example.com/envtest-v1.29.3-linux-amd64.tar.gz
  v1.30.2:
    envtest-v1.30.2-darwin-arm64.tar.gz:
      hash: bb22
      selfLink: envtest-v1.30.2-darwin-arm64.tar.gz
    envtest-v1.30.2-linux-amd64.tar.gz:
      hash: cc33
      selfLink: /dl/envtest-v1.30.2-linux-amd64.tar.gz
    kubebuilder-tools-1.30.2-linux-amd64.tar.gz:
      hash: dd44
      selfLink: elsewhere
  v1.31.0:
";

    #[test]
    fn archives_are_read_newest_first_with_their_links() {
        let index = Index::parse("http://127.0.0.1:8080/idx/envtest-releases.yaml", INDEX).unwrap();
        let names: Vec<&str> = index.archives.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "envtest-v1.30.2-darwin-arm64.tar.gz",
                "envtest-v1.30.2-linux-amd64.tar.gz",
                "envtest-v1.29.3-linux-amd64.tar.gz"
            ]
        );
        assert_eq!(index.archives[0].url, "http://127.0.0.1:8080/idx/envtest-v1.30.2-darwin-arm64.tar.gz");
        assert_eq!(index.archives[1].url, "http://127.0.0.1:8080/dl/envtest-v1.30.2-linux-amd64.tar.gz");
        assert_eq!(index.archives[2].url, "https://example.com/envtest-v1.29.3-linux-amd64.tar.gz");
        assert_eq!(index.archives[2].sha512, "aa11");
        let linux = Platform { os: "linux".into(), arch: "amd64".into() };
        let pick = |s: &str| index.newest(&Selector::parse(s).unwrap(), &linux).map(|a| a.version.to_string());
        assert_eq!(pick("latest").as_deref(), Some("1.30.2"));
        assert_eq!(pick("1.29").as_deref(), Some("1.29.3"));
        assert_eq!(pick("1.31.x"), None);
        assert_eq!(index.platforms().into_iter().collect::<Vec<_>>(), ["darwin/arm64", "linux/amd64"]);
    }

    #[test]
    fn other_documents_are_refused() {
        let err = Index::parse("http://x/i.yaml", "releases: [1, 2]").unwrap_err();
        assert!(format!("{err:#}").contains("http://x/i.yaml is no envtest release index"), "{err:#}");
        assert!(Index::parse("http://x/i.yaml", "{}").unwrap().archives.is_empty());
    }
}
