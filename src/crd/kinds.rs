//! The kinds a crate declares, read from their `#[kube(...)]` attributes alone (no schema is built): what
//! `kubesmith adopt` records in PROJECT.

use std::path::PathBuf;

use super::error::{CrdError, CrdErrorKind, CrdErrors};
use super::index::{CrateIndex, ItemKind, SourceSet, Vis, item_span};
use super::macro_kinds::{self, MacroKind};
use crate::source::kube_attrs;

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

/// The kinds of a crate: those its `#[kube(...)]` attributes declare, and those attribute macros generate, which
/// only compiling names.
#[derive(Debug, Default)]
pub struct Kinds {
    /// Declared kinds, in source order.
    pub declared: Vec<KindDecl>,
    /// Kinds an attribute macro generates, in source order.
    pub generated: Vec<MacroKind>,
}

/// Every kind of the crate at `sources`, in source order. Fails with every problem of reading them (a file that
/// does not parse, a `#[kube]` attribute that does not).
pub fn kinds(sources: &SourceSet) -> Result<Kinds, CrdErrors> {
    let ix = CrateIndex::load(sources)?;
    let mut out = Vec::new();
    let mut generated = Vec::new();
    let mut problems = ix.problems.clone();
    for (id, item) in ix.own_items() {
        let (attrs, vis) = match &item.kind {
            ItemKind::Struct(s) => (&s.attrs, Vis::of(&s.vis)),
            ItemKind::Enum(e) => (&e.attrs, Vis::of(&e.vis)),
            _ => continue,
        };
        if !kube_attrs::derives_custom_resource(attrs) {
            generated.extend(macro_kinds::of_item(&ix, id, false, false));
            continue;
        }
        let file = ix.module_file(item.module).to_path_buf();
        let span = item_span(&item.kind);
        let k = match kube_attrs::parse(attrs, span) {
            Ok(k) => k,
            Err(e) if macro_kinds::has_attribute_macro(attrs) && macro_kinds::only_missing_names(&e) => {
                generated.extend(macro_kinds::of_item(&ix, id, true, true));
                continue;
            }
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
    if problems.is_empty() { Ok(Kinds { declared: out, generated }) } else { Err(CrdErrors::new(problems)) }
}

impl KindDecl {
    /// The kinds of one CRD an attribute macro generated, from its compiled CRD (every version), at the macro's
    /// item (one per version).
    pub fn of_compiled(crd: &serde_json::Value, m: &MacroKind) -> Vec<KindDecl> {
        let text = |p: &str| crd.pointer(p).and_then(serde_json::Value::as_str).unwrap_or_default().to_string();
        let versions = crd.pointer("/spec/versions").and_then(serde_json::Value::as_array).cloned().unwrap_or_default();
        versions
            .iter()
            .map(|v| (v, m.versions.iter().find(|mv| v["name"] == mv.name.as_str())))
            .map(|(v, own)| KindDecl {
                group: text("/spec/group"),
                version: v["name"].as_str().unwrap_or_default().to_string(),
                kind: text("/spec/names/kind"),
                plural: text("/spec/names/plural"),
                namespaced: text("/spec/scope") == "Namespaced",
                storage: v["storage"] != false,
                // A versioning macro's version has its own type (`v1::Foo`).
                path: match own {
                    Some(o) => o.public_path.clone().or_else(|| o.crate_path.clone()),
                    None => m.public_path.clone().or_else(|| m.crate_path.clone()),
                },
                public: own.map_or(m.public, |o| o.public_path.is_some()),
                file: m.because.path.clone(),
                line: m.because.line,
            })
            .collect()
    }
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
        let found = kinds(&SourceSet::new(&src)).unwrap().declared;
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
