//! What a chart is made from: the objects `kubectl kustomize config/default` renders, read through the plan (so
//! `make manifests` builds the chart from the CRDs and roles it is about to write), plus the optional parts of
//! `config/` that `config/default` leaves out (`prometheus/`, `network-policy/`), rendered with the same name
//! prefix and namespace so the chart can offer them switched off.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::Value;

use crate::plan::Plan;

/// The optional `config/` folders a chart offers even when `config/default` does not include them.
const OPTIONAL_DIRS: [&str; 2] = ["prometheus", "network-policy"];
/// Annotation marking the objects of [`OPTIONAL_DIRS`] in the combined rendering (removed again).
const OPTIONAL_MARK: &str = "kubesmith.io/helm-optional";

/// What `config/default` renders, and the optional objects it leaves out.
#[derive(Debug, Clone, Default)]
pub struct Source {
    /// The objects of `kubectl kustomize config/default`, in its order.
    pub objects: Vec<Value>,
    /// Objects of the optional folders `config/default` does not include (off by default in the chart), each
    /// with its folder (`prometheus`, `network-policy`).
    pub optional: Vec<(String, Value)>,
    /// `namePrefix` of `config/default/kustomization.yaml` (`memcached-operator-`).
    pub prefix: String,
    /// `namespace` of `config/default/kustomization.yaml` (`memcached-operator-system`).
    pub namespace: String,
}

/// Renders `config/default` (and the optional folders it leaves out) as the plan leaves the project.
pub fn render(plan: &Plan) -> Result<Source> {
    let kustomization_path = Path::new("config/default/kustomization.yaml");
    let text = plan.read(kustomization_path)?.with_context(|| {
        format!(
            "{} is missing: make helm builds the chart from what config/default renders; restore it from version \
             control",
            kustomization_path.display()
        )
    })?;
    let kustomization =
        crate::yaml::from_str(&text).with_context(|| format!("{} is not valid YAML", kustomization_path.display()))?;
    let prefix = kustomization["namePrefix"].as_str().unwrap_or_default().to_string();
    let namespace = kustomization["namespace"].as_str().unwrap_or_default().to_string();
    let included: Vec<String> = kustomization["resources"]
        .as_array()
        .map(|r| r.iter().filter_map(|x| x.as_str()).map(|s| s.trim_end_matches('/').to_string()).collect())
        .unwrap_or_default();
    let optional: Vec<&str> = OPTIONAL_DIRS
        .into_iter()
        .filter(|d| !included.iter().any(|r| r == &format!("../{d}")))
        .filter(|d| plan.exists(&Path::new("config").join(d).join("kustomization.yaml")))
        .collect();
    let config_planned = plan.ops().iter().any(|op| op.path.starts_with("config"));

    let rendered = if optional.is_empty() && !config_planned {
        crate::kustomize::kustomize(&plan.root, Path::new("config/default"))?
    } else {
        let tmp = tempfile::Builder::new()
            .prefix("kubesmith-helm-")
            .tempdir()
            .context("failed to create a temporary folder for kustomize")?;
        copy_config(plan, tmp.path())?;
        let dir = if optional.is_empty() {
            PathBuf::from("config/default")
        } else {
            let mut resources = vec!["../config/default".to_string()];
            for d in &optional {
                let extra = serde_json::json!({
                    "namespace": namespace,
                    "namePrefix": prefix,
                    "commonAnnotations": { OPTIONAL_MARK: d },
                    "resources": [format!("../config/{d}")],
                });
                write(&tmp.path().join(format!("optional-{d}/kustomization.yaml")), &crate::yaml::to_string(&extra))?;
                resources.push(format!("../optional-{d}"));
            }
            let all = serde_json::json!({ "resources": resources });
            write(&tmp.path().join("all/kustomization.yaml"), &crate::yaml::to_string(&all))?;
            PathBuf::from("all")
        };
        crate::kustomize::kustomize(tmp.path(), &dir)?
    };
    let docs = crate::yaml::from_multi_doc_str(&rendered)
        .context("`kubectl kustomize config/default` printed invalid YAML")?;
    let mut source = Source { prefix, namespace, ..Default::default() };
    for mut doc in docs {
        let folder = doc["metadata"]["annotations"].get(OPTIONAL_MARK).and_then(Value::as_str).map(str::to_string);
        if let Some(folder) = folder {
            let annotations = doc["metadata"]["annotations"].as_object_mut().expect("an object: it has a key");
            annotations.remove(OPTIONAL_MARK);
            if annotations.is_empty() {
                doc["metadata"].as_object_mut().expect("metadata is an object").remove("annotations");
            }
            source.optional.push((folder, doc));
        } else {
            source.objects.push(doc);
        }
    }
    if source.namespace.is_empty() {
        source.namespace =
            source.objects.iter().find_map(|o| o["metadata"]["namespace"].as_str()).unwrap_or("default").to_string();
    }
    Ok(source)
}

fn write(path: &Path, text: &str) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("failed to create {}", parent.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("failed to write {}", path.display()))
}

/// Copies `config/` as the plan leaves it (planned contents over the disk's, planned deletions left out) into `dest`.
fn copy_config(plan: &Plan, dest: &Path) -> Result<()> {
    let mut files = Vec::new();
    let mut stack = vec![PathBuf::from("config")];
    while let Some(dir) = stack.pop() {
        let full = plan.root.join(&dir);
        let Ok(entries) = std::fs::read_dir(&full) else { continue };
        for e in entries {
            let e = e.with_context(|| format!("failed to list {}", full.display()))?;
            let rel = dir.join(e.file_name());
            if e.path().is_dir() {
                stack.push(rel);
            } else {
                files.push(rel);
            }
        }
    }
    let planned: Vec<&crate::plan::FileOp> = plan.ops().iter().filter(|op| op.path.starts_with("config")).collect();
    files.retain(|f| !planned.iter().any(|op| &op.path == f));
    for rel in files {
        let to = dest.join(&rel);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("failed to create {}", parent.display()))?;
        }
        std::fs::copy(plan.root.join(&rel), &to).with_context(|| format!("failed to copy {}", rel.display()))?;
    }
    for op in planned {
        if let Some(text) = &op.contents {
            write(&dest.join(&op.path), text)?;
        }
    }
    Ok(())
}
