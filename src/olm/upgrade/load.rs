//! The two sides of an upgrade: a [`Release`] (a bundle's CSV facts and CRDs, from a bundle folder, the files
//! `make bundle` is about to write, or an `olm.bundle` of a catalog) and the [`Previous`] one given with
//! `--previous` (a bundle folder, a catalog, or a folder or file of CRD YAML).

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use super::{Change, Rule};
use crate::olm::bundle::{self, BundleFiles};
use crate::olm::semver::{Range, Version};

/// What the upgrade rules need to know of one release.
#[derive(Debug, Clone, Default)]
pub struct Release {
    /// The bundle name (the CSV's `metadata.name`).
    pub name: Option<String>,
    /// Where it was read from, for messages when it has no name.
    pub origin: String,
    pub package: Option<String>,
    pub channels: Vec<String>,
    pub version: Option<Version>,
    pub replaces: Option<String>,
    pub skips: Vec<String>,
    pub skip_range: Option<String>,
    pub csv: Option<Value>,
    pub crds: Vec<Value>,
    /// The APIs a catalog bundle provides (`olm.gvk`), as `group/version Kind`.
    pub provides: Vec<String>,
}

fn text(v: &Value, ptr: &str) -> Option<String> {
    v.pointer(ptr).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string)
}

impl Release {
    /// The bundle name, else where it came from.
    pub fn display(&self) -> String {
        self.name.clone().unwrap_or_else(|| self.origin.clone())
    }

    /// From a bundle's objects (the first CSV and every CRD), its package and channels.
    pub fn from_objects(origin: &str, package: Option<String>, channels: Vec<String>, objects: &[Value]) -> Release {
        let csv = objects.iter().find(|o| o["kind"] == "ClusterServiceVersion").cloned();
        let crds = objects.iter().filter(|o| o["kind"] == "CustomResourceDefinition").cloned().collect();
        let mut r = Release { origin: origin.to_string(), package, channels, crds, ..Default::default() };
        if let Some(csv) = &csv {
            r.name = text(csv, "/metadata/name");
            r.version = text(csv, "/spec/version").and_then(|v| Version::parse(&v).ok());
            r.replaces = text(csv, "/spec/replaces");
            r.skips = csv["spec"]["skips"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect();
            r.skip_range = csv["metadata"]["annotations"]["olm.skipRange"].as_str().map(str::to_string);
        }
        r.csv = csv;
        r
    }

    /// From a bundle folder.
    pub fn from_bundle(files: &BundleFiles) -> Result<Release> {
        let mut objects = Vec::new();
        for (p, bytes) in files.in_dir(Path::new("manifests")) {
            let docs =
                BundleFiles::documents(bytes).map_err(|e| anyhow::anyhow!("{}/{}: {e}", files.root, p.display()))?;
            objects.extend(docs);
        }
        let ann = files.annotations().map(|(_, a)| a).unwrap_or_default();
        let channels = ann
            .get(bundle::CHANNELS)
            .map(|c| c.split(',').map(|c| c.trim().to_string()).filter(|c| !c.is_empty()).collect())
            .unwrap_or_default();
        Ok(Release::from_objects(&files.root, ann.get(bundle::PACKAGE).cloned(), channels, &objects))
    }

    /// From an `olm.bundle` document of a catalog: its `olm.package` and `olm.gvk` properties and the objects of
    /// its `olm.bundle.object` properties.
    pub fn from_catalog(blob: &Value) -> Release {
        let props: Vec<&Value> = blob["properties"].as_array().into_iter().flatten().collect();
        let objects: Vec<Value> = props
            .iter()
            .filter(|p| p["type"] == "olm.bundle.object")
            .filter_map(|p| p["value"]["data"].as_str())
            .filter_map(|d| base64_decode(d).ok())
            .filter_map(|bytes| serde_json::from_slice(&bytes).ok())
            .collect();
        let name = text(blob, "/name");
        let mut r =
            Release::from_objects(name.as_deref().unwrap_or("a bundle"), text(blob, "/package"), Vec::new(), &objects);
        r.name = name.or(r.name);
        if let Some(v) = props.iter().find(|p| p["type"] == "olm.package").and_then(|p| text(p, "/value/version")) {
            r.version = Version::parse(&v).ok();
        }
        r.provides = props
            .iter()
            .filter(|p| p["type"] == "olm.gvk")
            .map(|p| {
                let v = &p["value"];
                format!(
                    "{}/{} {}",
                    v["group"].as_str().unwrap_or(""),
                    v["version"].as_str().unwrap_or(""),
                    v["kind"].as_str().unwrap_or("")
                )
            })
            .collect();
        r
    }
}

/// The release given with `--previous`.
#[derive(Debug, Clone)]
pub enum Previous {
    Bundle(Box<Release>),
    /// Catalog documents; the predecessors are the entries of NEW's channels that NEW replaces or skips.
    Catalog {
        shown: String,
        docs: Vec<Value>,
    },
    Crds {
        shown: String,
        crds: Vec<Value>,
    },
}

fn is_catalog_doc(d: &Value) -> bool {
    d["schema"].as_str().is_some_and(|s| s.starts_with("olm."))
}

fn yaml_files(dir: &Path) -> Result<Vec<std::path::PathBuf>> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).with_context(|| format!("failed to list {}", d.display()))? {
            let p = e?.path();
            let hidden = p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if hidden {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml" || x == "json") {
                files.push(p);
            }
        }
    }
    files.sort();
    Ok(files)
}

impl Previous {
    /// Reads `path` (`shown` names it in messages): a bundle folder (with `manifests/` and `metadata/`), a
    /// catalog (files of `olm.*` documents), or CRD YAML (a file or a folder).
    pub fn load(path: &Path, shown: &str) -> Result<Previous> {
        let files = if path.is_dir() {
            if path.join("manifests").is_dir() && path.join("metadata").is_dir() {
                let mut files = BundleFiles::load(path)?;
                files.root = shown.to_string();
                return Ok(Previous::Bundle(Box::new(Release::from_bundle(&files)?)));
            }
            yaml_files(path)?
        } else if path.is_file() {
            vec![path.to_path_buf()]
        } else {
            bail!(
                "--previous {shown}: no such file or folder; pass the previous bundle folder, a catalog.yaml or a folder of CRDs"
            );
        };
        let mut docs = Vec::new();
        for f in &files {
            let text = std::fs::read_to_string(f).with_context(|| format!("failed to read {}", f.display()))?;
            let parsed = crate::yaml::from_multi_doc_str(&text)
                .with_context(|| format!("{} is not valid YAML/JSON", f.display()))?;
            docs.extend(parsed.into_iter().filter(|d| !d.is_null()));
        }
        if docs.iter().any(is_catalog_doc) {
            return Ok(Previous::Catalog { shown: shown.to_string(), docs });
        }
        let crds: Vec<Value> = docs.into_iter().filter(|d| d["kind"] == "CustomResourceDefinition").collect();
        if crds.is_empty() {
            bail!(
                "--previous {shown} holds no CustomResourceDefinition and no catalog: pass the previous bundle folder \
                 (with manifests/ and metadata/), a catalog.yaml, or a folder of the previous CRDs"
            );
        }
        Ok(Previous::Crds { shown: shown.to_string(), crds })
    }
}

/// The bundles of a catalog that NEW upgrades: in NEW's package and channels, those NEW replaces or skips, or
/// whose version is in NEW's skipRange. When there are none, the reason.
pub fn predecessors(docs: &[Value], shown: &str, new: &Release) -> (Vec<Release>, Vec<Change>) {
    let new_name = new.display();
    let fail = |what: String, fix: &str| Change {
        rule: Rule::NoUpgradeEdge,
        crd: None,
        version: None,
        path: None,
        what,
        fix: fix.into(),
    };
    let Some(package) = &new.package else {
        return (
            Vec::new(),
            vec![fail(
                format!("{new_name} names no package (annotation {})", bundle::PACKAGE),
                "make the bundle with `kubesmith make bundle`",
            )],
        );
    };
    let in_package = |d: &&Value| d["package"] == package.as_str();
    if !docs.iter().any(|d| d["schema"] == "olm.package" && d["name"] == package.as_str())
        && !docs.iter().filter(in_package).any(|d| d["schema"] == "olm.bundle")
    {
        return (
            Vec::new(),
            vec![fail(
                format!("catalog {shown} has no package {package}"),
                "pass the catalog of this package (or the previous bundle folder)",
            )],
        );
    }
    let range = new.skip_range.as_deref().and_then(|r| Range::parse(r).ok());
    let bundles: Vec<Release> =
        docs.iter().filter(in_package).filter(|d| d["schema"] == "olm.bundle").map(Release::from_catalog).collect();
    let mut names: Vec<String> = Vec::new();
    for c in docs.iter().filter(in_package).filter(|d| d["schema"] == "olm.channel") {
        let channel = c["name"].as_str().unwrap_or("");
        if !new.channels.is_empty() && !new.channels.iter().any(|n| n == channel) {
            continue;
        }
        for e in c["entries"].as_array().into_iter().flatten() {
            let Some(name) = e["name"].as_str() else { continue };
            if Some(name) == new.name.as_deref() || names.iter().any(|n| n == name) {
                continue;
            }
            let version = bundles.iter().find(|b| b.name.as_deref() == Some(name)).and_then(|b| b.version.clone());
            let hit = new.replaces.as_deref() == Some(name)
                || new.skips.iter().any(|s| s == name)
                || range.as_ref().zip(version.as_ref()).is_some_and(|(r, v)| r.contains(v));
            if hit {
                names.push(name.to_string());
            }
        }
    }
    if names.is_empty() {
        let channels = if new.channels.is_empty() {
            "any channel".to_string()
        } else {
            format!("channel(s) {}", new.channels.join(", "))
        };
        let how = format!(
            "replaces {}; skips {}; skipRange {}",
            new.replaces.as_deref().unwrap_or("nothing"),
            if new.skips.is_empty() { "nothing".to_string() } else { new.skips.join(", ") },
            new.skip_range.as_deref().unwrap_or("none")
        );
        return (
            Vec::new(),
            vec![fail(
                format!(
                    "no bundle of package {package} in {channels} of catalog {shown} is upgraded by {new_name} ({how}), so there is no upgrade edge to check"
                ),
                "name the bundle it upgrades with `make bundle --replaces` (or --skips, --skip-range)",
            )],
        );
    }
    let olds = names
        .iter()
        .map(|n| {
            bundles.iter().find(|b| b.name.as_deref() == Some(n.as_str())).cloned().unwrap_or_else(|| Release {
                name: Some(n.clone()),
                origin: shown.to_string(),
                ..Default::default()
            })
        })
        .collect();
    (olds, Vec::new())
}

/// A catalog bundle that provides APIs but carries none of its CRDs: nothing to compare with.
pub fn missing_crds(old: &Release, shown: &str) -> Option<Change> {
    if !old.crds.is_empty() {
        return None;
    }
    let what = if old.provides.is_empty() {
        format!(
            "catalog {shown} has no olm.bundle document for {} (or it carries no CustomResourceDefinition and no olm.gvk property)",
            old.display()
        )
    } else {
        format!(
            "bundle {} in catalog {shown} carries no CustomResourceDefinition: it provides {} (olm.gvk) but no \
             olm.bundle.object property holds the CRD",
            old.display(),
            old.provides.join(", ")
        )
    };
    Some(Change {
        rule: Rule::MissingCrds,
        crd: None,
        version: None,
        path: None,
        what,
        fix: "pass a catalog rendered with its bundle objects (`kubesmith make catalog` keeps them; `opm render \
              --migrate-level bundle-object-to-csv-metadata` drops them), the previous bundle folder, or a folder of \
              its CRDs"
            .into(),
    })
}

/// Standard base64 (padded or not; whitespace ignored).
pub fn base64_decode(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes().filter(|c| !c.is_ascii_whitespace()) {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            _ => return Err(format!("invalid base64 character {:?}", c as char)),
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}
