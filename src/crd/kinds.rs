//! The kinds a crate declares, read from their `#[kube(...)]` attributes alone (no schema is built): what
//! `kubesmith adopt` records in PROJECT.

use std::path::PathBuf;

use super::error::{CrdError, CrdErrorKind, CrdErrors};
use super::index::{CrateIndex, ItemKind, SourceSet, Vis, item_span};
use super::kube_attrs;

/// One `#[derive(CustomResource)]` spec.
#[derive(Debug, Clone, PartialEq)]
pub struct KindDecl {
    /// API group (`fleet.example.org`).
    pub group: String,
    /// Version (`v1`).
    pub version: String,
    /// Kind (`Widget`).
    pub kind: String,
    /// Plural (`#[kube(plural)]` or kube-derive's rule).
    pub plural: String,
    /// `#[kube(namespaced)]`.
    pub namespaced: bool,
    /// `#[kube(storage = false)]` clears it.
    pub storage: bool,
    /// A path naming the generated root type from another crate (`crate::widget::Widget`, `crate` standing for
    /// the library's name), else from the crate's root; `None` when private modules hide it.
    pub path: Option<Vec<String>>,
    /// Whether `path` works from another crate.
    pub public: bool,
    /// The spec's file.
    pub file: PathBuf,
    /// The spec's line.
    pub line: usize,
}

/// Every kind of the crate at `sources`, in source order. Fails with every problem of reading them (a file that
/// does not parse, a `#[kube]` attribute that does not).
pub fn kinds(sources: &SourceSet) -> Result<Vec<KindDecl>, CrdErrors> {
    let ix = CrateIndex::load(sources)?;
    let mut out = Vec::new();
    let mut problems = ix.problems.clone();
    for item in &ix.items {
        let (attrs, vis) = match &item.kind {
            ItemKind::Struct(s) => (&s.attrs, Vis::of(&s.vis)),
            ItemKind::Enum(e) => (&e.attrs, Vis::of(&e.vis)),
            _ => continue,
        };
        if !super::derives_custom_resource(attrs) {
            continue;
        }
        let file = ix.module_file(item.module).to_path_buf();
        let span = item_span(&item.kind);
        let k = match kube_attrs::parse(attrs, span) {
            Ok(k) => k,
            Err(e) => {
                problems.push(CrdError::at(&file, e.span(), CrdErrorKind::KubeAttr(e.to_string())));
                continue;
            }
        };
        let singular = k.singular.clone().unwrap_or_else(|| k.kind.to_ascii_lowercase());
        let plural = k.plural.clone().unwrap_or_else(|| kube_attrs::to_plural(&singular));
        let root = k.root.clone().unwrap_or_else(|| k.kind.clone());
        let public = ix.nameable_path(item.module, &root, vis, true);
        let (path, public) = match public {
            Some(p) => (Some(p), true),
            None => (ix.nameable_path(item.module, &root, vis, false), false),
        };
        out.push(KindDecl {
            group: k.group,
            version: k.version,
            kind: k.kind,
            plural,
            namespaced: k.namespaced,
            storage: k.storage,
            path,
            public,
            file,
            line: span.start().line,
        });
    }
    if problems.is_empty() { Ok(out) } else { Err(CrdErrors::new(problems)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_come_from_the_attributes_with_a_path_other_crates_can_use() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("lib.rs"), "mod widget;\npub use widget::Widget;\n").unwrap();
        std::fs::write(
            src.join("widget.rs"),
            "use kube::CustomResource;\n#[derive(CustomResource)]\n#[kube(group = \"fleet.example.org\", version = \
             \"v1\", kind = \"Widget\", namespaced, plural = \"widgetz\")]\npub struct WidgetSpec {}\n\
             #[derive(CustomResource)]\n#[kube(group = \"infra.example.org\", version = \"v1alpha1\", kind = \
             \"Gadget\", storage = false)]\npub struct GadgetSpec {}\n",
        )
        .unwrap();
        let found = kinds(&SourceSet::new(&src)).unwrap();
        let summary: Vec<(String, String, bool, Option<String>, bool)> = found
            .iter()
            .map(|k| (k.kind.clone(), k.plural.clone(), k.namespaced, k.path.as_ref().map(|p| p.join("::")), k.public))
            .collect();
        assert_eq!(
            summary,
            [
                ("Widget".into(), "widgetz".into(), true, Some("crate::Widget".into()), true),
                ("Gadget".into(), "gadgets".into(), false, Some("crate::widget::Gadget".into()), false),
            ]
        );
        assert!(!found[1].storage);
        assert_eq!(found[0].line, 4);
    }
}
