//! A registry+v1 bundle: its metadata (`metadata/annotations.yaml` and `bundle.Dockerfile`, with the same
//! `operators.operatorframework.io.*` keys) and its files, loaded from disk or from a plan for validation.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::Value;

pub const MEDIATYPE: &str = "operators.operatorframework.io.bundle.mediatype.v1";
pub const MANIFESTS: &str = "operators.operatorframework.io.bundle.manifests.v1";
pub const METADATA: &str = "operators.operatorframework.io.bundle.metadata.v1";
pub const PACKAGE: &str = "operators.operatorframework.io.bundle.package.v1";
pub const CHANNELS: &str = "operators.operatorframework.io.bundle.channels.v1";
pub const DEFAULT_CHANNEL: &str = "operators.operatorframework.io.bundle.channel.default.v1";

/// What goes into `annotations.yaml` and the Dockerfile labels.
#[derive(Debug, Clone)]
pub struct Metadata {
    pub package: String,
    pub channels: Vec<String>,
    pub default_channel: Option<String>,
    pub builder: String,
    pub layout: String,
    pub scorecard: bool,
}

impl Metadata {
    fn core(&self) -> Vec<(String, String)> {
        let mut v = vec![
            (MEDIATYPE.to_string(), "registry+v1".to_string()),
            (MANIFESTS.to_string(), "manifests/".to_string()),
            (METADATA.to_string(), "metadata/".to_string()),
            (PACKAGE.to_string(), self.package.clone()),
            (CHANNELS.to_string(), self.channels.join(",")),
        ];
        if let Some(d) = &self.default_channel {
            v.push((DEFAULT_CHANNEL.to_string(), d.clone()));
        }
        v.push(("operators.operatorframework.io.metrics.builder".into(), self.builder.clone()));
        v.push(("operators.operatorframework.io.metrics.mediatype.v1".into(), "metrics+v1".into()));
        v.push(("operators.operatorframework.io.metrics.project_layout".into(), self.layout.clone()));
        v
    }

    fn test(&self) -> Vec<(String, String)> {
        if !self.scorecard {
            return Vec::new();
        }
        vec![
            ("operators.operatorframework.io.test.mediatype.v1".into(), "scorecard+v1".into()),
            ("operators.operatorframework.io.test.config.v1".into(), "tests/scorecard/".into()),
        ]
    }

    /// `metadata/annotations.yaml`, laid out like operator-sdk's (comments between the groups).
    pub fn annotations_yaml(&self) -> String {
        let mut out = String::from("annotations:\n  # Core bundle annotations.\n");
        for (k, v) in self.core() {
            out.push_str(&format!("  {k}: {}\n", crate::yaml::plain_or_quoted(&v)));
        }
        let test = self.test();
        if !test.is_empty() {
            out.push_str("\n  # Annotations for testing.\n");
            for (k, v) in test {
                out.push_str(&format!("  {k}: {}\n", crate::yaml::plain_or_quoted(&v)));
            }
        }
        out
    }

    /// `bundle.Dockerfile` (in the project root; `COPY` paths go through `output_dir`).
    pub fn dockerfile(&self, output_dir: &str) -> String {
        let mut out = String::from("FROM scratch\n\n# Core bundle labels.\n");
        for (k, v) in self.core() {
            out.push_str(&format!("LABEL {k}={v}\n"));
        }
        let test = self.test();
        if !test.is_empty() {
            out.push_str("\n# Labels for testing.\n");
            for (k, v) in test {
                out.push_str(&format!("LABEL {k}={v}\n"));
            }
        }
        out.push_str("\n# Copy files to locations specified by labels.\n");
        out.push_str(&format!("COPY {output_dir}/manifests /manifests/\nCOPY {output_dir}/metadata /metadata/\n"));
        if self.scorecard {
            out.push_str(&format!("COPY {output_dir}/tests/scorecard /tests/scorecard/\n"));
        }
        out
    }
}

/// A bundle's files, relative to the bundle root (`manifests/x.yaml`), with its sub-folders.
#[derive(Debug, Clone, Default)]
pub struct BundleFiles {
    /// Display name of the bundle root (for messages).
    pub root: String,
    pub files: BTreeMap<PathBuf, Vec<u8>>,
    /// Folders (relative), so that empty folders and sub-folders are seen.
    pub dirs: Vec<PathBuf>,
}

impl BundleFiles {
    /// Reads every file under `dir`.
    pub fn load(dir: &Path) -> Result<BundleFiles> {
        let mut out = BundleFiles { root: dir.display().to_string(), ..Default::default() };
        if !dir.is_dir() {
            anyhow::bail!(
                "{} is not a folder: pass the bundle folder (the one holding manifests/ and metadata/)",
                dir.display()
            );
        }
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).with_context(|| format!("failed to list {}", d.display()))? {
                let p = e.with_context(|| format!("failed to list {}", d.display()))?.path();
                let rel = p.strip_prefix(dir).unwrap_or(&p).to_path_buf();
                if p.is_dir() {
                    out.dirs.push(rel);
                    stack.push(p);
                } else {
                    let bytes = std::fs::read(&p).with_context(|| format!("failed to read {}", p.display()))?;
                    out.files.insert(rel, bytes);
                }
            }
        }
        out.dirs.sort();
        Ok(out)
    }

    /// Files directly in `dir` (relative), sorted.
    pub fn in_dir<'a>(&'a self, dir: &'a Path) -> impl Iterator<Item = (&'a PathBuf, &'a Vec<u8>)> + 'a {
        self.files.iter().filter(move |(p, _)| p.parent() == Some(dir))
    }

    pub fn has_dir(&self, dir: &Path) -> bool {
        self.dirs.iter().any(|d| d == dir)
    }

    /// The annotations map of the first file in `metadata/` that has a non-empty `annotations:` mapping.
    pub fn annotations(&self) -> Option<(PathBuf, BTreeMap<String, String>)> {
        for (p, bytes) in self.in_dir(Path::new("metadata")) {
            let Ok(v) = crate::yaml::from_str(&String::from_utf8_lossy(bytes)) else {
                continue;
            };
            if let Some(m) = v["annotations"].as_object().filter(|m| !m.is_empty()) {
                let map = m
                    .iter()
                    .map(|(k, v)| (k.clone(), v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string())))
                    .collect();
                return Some((p.clone(), map));
            }
        }
        None
    }

    /// Every YAML document of a file (or the parse error).
    pub fn documents(bytes: &[u8]) -> Result<Vec<Value>, String> {
        crate::yaml::from_multi_doc_str(&String::from_utf8_lossy(bytes)).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_files_agree() {
        let m = Metadata {
            package: "memcached-operator".into(),
            channels: vec!["alpha".into(), "stable".into()],
            default_channel: Some("stable".into()),
            builder: "kubesmith-v0.1.0".into(),
            layout: "rust.kubesmith.io/v1alpha1".into(),
            scorecard: true,
        };
        let ann = m.annotations_yaml();
        let parsed = crate::yaml::from_str(&ann).unwrap();
        let docker = m.dockerfile("bundle");
        for (k, v) in parsed["annotations"].as_object().unwrap() {
            assert!(docker.contains(&format!("LABEL {k}={}\n", v.as_str().unwrap())), "{k}");
        }
        assert_eq!(parsed["annotations"][CHANNELS], "alpha,stable");
        assert!(docker.contains("COPY bundle/tests/scorecard /tests/scorecard/"));
    }
}
