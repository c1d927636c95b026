//! The CRD YAML a repository already ships (`crd/`, `charts/*/crds`, `config/crd`, `deploy/`, `yaml/`, …): which
//! kinds it installs, so `adopt` can tell the project's own kinds from the ones it only uses, and what to compare
//! kubesmith's CRDs with.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Folders never searched: build output, VCS data, dependencies.
const SKIPPED: &[&str] = &["target", "node_modules", "vendor"];
/// How deep below the repository root CRD YAML is looked for.
const MAX_DEPTH: usize = 8;
/// Larger files are not CRDs a project ships by hand (bundled installs, test data).
const MAX_BYTES: u64 = 8 << 20;

/// One CRD found in the repository.
#[derive(Debug, Clone)]
pub struct ShippedCrd {
    /// `spec.group`.
    pub group: String,
    /// `spec.names.kind`.
    pub kind: String,
    /// The file, relative to the repository root.
    pub file: PathBuf,
    /// Whether the file is a Helm template read without its `{{ }}` lines.
    pub template: bool,
    /// The whole object.
    pub doc: Value,
}

/// Every CRD in the YAML files below `root` (not following symbolic links; hidden folders, `target/` and
/// dependencies skipped). Files that are not YAML, and documents that are not CRDs, are passed over: this looks
/// for evidence, it does not validate the repository.
pub fn find(root: &Path) -> Vec<ShippedCrd> {
    let mut files = Vec::new();
    walk(root, 0, &mut files);
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        if !text.contains("CustomResourceDefinition") {
            continue;
        }
        let rel = file.strip_prefix(root).unwrap_or(&file).to_path_buf();
        let template = text.contains("{{");
        for doc in documents(&text, template) {
            let is_crd = doc["kind"] == "CustomResourceDefinition"
                && doc["apiVersion"].as_str().is_some_and(|v| v.starts_with("apiextensions.k8s.io/"));
            let group = doc["spec"]["group"].as_str().unwrap_or_default().to_string();
            let kind = doc["spec"]["names"]["kind"].as_str().unwrap_or_default().to_string();
            if is_crd && !group.is_empty() && !kind.is_empty() {
                out.push(ShippedCrd { group, kind, file: rel.clone(), template, doc });
            }
        }
    }
    out
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let Ok(meta) = entry.file_type() else { continue };
        let path = entry.path();
        if meta.is_dir() {
            if depth < MAX_DEPTH && !name.starts_with('.') && !SKIPPED.contains(&name.as_ref()) {
                walk(&path, depth + 1, out);
            }
        } else if meta.is_file()
            && (name.ends_with(".yaml") || name.ends_with(".yml"))
            && entry.metadata().is_ok_and(|m| m.len() <= MAX_BYTES)
        {
            out.push(path);
        }
    }
}

/// The documents of a YAML stream, each parsed on its own so one bad document loses only itself. In a Helm
/// template, lines that are only template actions (`{{- if .Values.crds.install }}`) are dropped first; a document
/// whose values are templated does not parse and is passed over.
fn documents(text: &str, template: bool) -> Vec<Value> {
    let kept: String = if template {
        text.lines()
            .filter(|l| {
                let t = l.trim();
                !(t.starts_with("{{") && t.ends_with("}}"))
            })
            .flat_map(|l| [l, "\n"])
            .collect()
    } else {
        text.to_string()
    };
    let mut docs = Vec::new();
    let mut current = String::new();
    for line in kept.lines() {
        if line.starts_with("---") {
            docs.extend(parse(&current));
            current.clear();
        } else {
            current.push_str(line);
            current.push('\n');
        }
    }
    docs.extend(parse(&current));
    docs
}

fn parse(doc: &str) -> Option<Value> {
    if doc.trim().is_empty() {
        return None;
    }
    crate::yaml::from_str(doc).ok().filter(Value::is_object)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd(group: &str, kind: &str) -> String {
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: x.{group}\n\
             spec:\n  group: {group}\n  names:\n    kind: {kind}\n    plural: x\n"
        )
    }

    #[test]
    fn crds_are_found_in_streams_charts_and_templates_but_not_in_target() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |rel: &str, text: &str| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write(
            "deploy/crds.yaml",
            &format!("{}---\napiVersion: v1\nkind: Namespace\n---\n{}", crd("a.io", "A"), crd("b.io", "B")),
        );
        write("charts/op/crds/c.yml", &crd("c.io", "C"));
        write(
            "charts/op/templates/d.yaml",
            &format!("{{{{- if .Values.crds }}}}\n{}{{{{- end }}}}\n", crd("d.io", "D")),
        );
        write("target/debug/e.yaml", &crd("e.io", "E"));
        write(".github/f.yaml", &crd("f.io", "F"));
        write("deploy/broken.yaml", "kind: CustomResourceDefinition\n  : : bad\n");
        let found = find(root);
        let got: Vec<(String, &str, bool)> =
            found.iter().map(|c| (c.file.display().to_string(), c.kind.as_str(), c.template)).collect();
        assert_eq!(
            got,
            [
                ("charts/op/crds/c.yml".to_string(), "C", false),
                ("charts/op/templates/d.yaml".to_string(), "D", true),
                ("deploy/crds.yaml".to_string(), "A", false),
                ("deploy/crds.yaml".to_string(), "B", false),
            ]
        );
    }
}
