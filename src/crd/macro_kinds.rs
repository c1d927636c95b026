//! Kinds an attribute macro generates: a struct or enum under an attribute macro kubesmith does not know that
//! carries the marks of a custom resource — the macro's arguments name an API group (`group = "x.example.org"`),
//! `crd` or `CustomResource`, or the item's own `#[kube(...)]` leaves to the macro what its derive needs (no
//! `#[derive(CustomResource)]`, or one whose `group`/`version`/`kind` are missing). The static reader cannot see what
//! the macro expands to, so such a kind is never read or refused statically: the compiled fallback calls `crd()` on
//! the type the macro generates ([`MacroKind::root`], in the item's module) and takes its CRD whole; `--no-compile`
//! refuses it. A versioning macro (arguments listing `version(name = "..")`, on the item or on its module) generates
//! the type once per version, in a module named after it (`versions`): the fallback merges their CRDs.

mod tokens;
pub(crate) mod versions;

pub use versions::{Storage, merge_stored};

use super::error::{CrdError, CrdErrorKind};
use super::index::{CrateIndex, ItemId, ItemKind, Vis};
use super::{GeneratedCrd, Reexport};
use tokens::{args, has_ident, is_foreign, path_text, string_arg};

/// A kind whose `CustomResource` derive an attribute macro generates.
#[derive(Debug, Clone)]
pub struct MacroKind {
    /// The macro's path as written (`loom::resource`).
    pub macro_path: String,
    /// The item it is on (`FabricSpec`).
    pub item: String,
    /// The generated type the compiled fallback calls `crd()` on: the macro's `kind` argument, else the item's
    /// `#[kube(root|kind)]`, else the item's name without `Spec`.
    pub root: String,
    /// A path naming `root` from the crate root, as for a kind of `#[derive(CustomResource)]`.
    pub crate_path: Option<Vec<String>>,
    /// A path naming it from another crate.
    pub public_path: Option<Vec<String>>,
    /// The re-exports the fallback's mirror adds when private modules hide it.
    pub reexport: Option<Reexport>,
    /// Whether the item is public (the generated type gets its visibility).
    pub public: bool,
    /// Why it needs compiling: a [`CrdErrorKind::NeedsCompile`] at the macro's attribute.
    pub because: CrdError,
    /// The versions a versioning macro generates a type for each (`v1alpha1::Foo`, `v1::Foo`), whose CRDs the
    /// fallback merges; empty when the macro generates the one type `root` in the item's module.
    pub versions: Vec<MacroVersion>,
    /// The storage version of `versions` (see [`versions::storage`]); `None` without versions.
    pub storage: Option<Storage>,
}

/// One version of a kind a versioning macro generates: the type `<version>::<root>` in the module the macro puts
/// its version modules in.
#[derive(Debug, Clone, PartialEq)]
pub struct MacroVersion {
    /// The version (`v1alpha1`), also its module's name.
    pub name: String,
    /// A path naming the version's type from the crate root.
    pub crate_path: Option<Vec<String>>,
    /// A path naming it from another crate.
    pub public_path: Option<Vec<String>>,
    /// The re-exports (of the version module) the fallback's mirror adds when private modules hide it.
    pub reexport: Option<Reexport>,
}

/// Whether some attribute of `attrs` may be an attribute macro.
pub fn has_attribute_macro(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(is_foreign)
}

/// Whether an attribute macro's path or arguments say it makes a custom resource: `crd` or `CustomResource` in
/// them, or an API group (`group = "x.example.org"`, or any `group` beside a `version` or `kind`).
fn marks_custom_resource(attr: &syn::Attribute) -> bool {
    const WORDS: &[&str] = &["crd", "CustomResource", "custom_resource"];
    if attr.path().segments.iter().any(|s| WORDS.iter().any(|w| s.ident == w)) {
        return true;
    }
    let tokens = args(attr);
    if has_ident(&tokens, WORDS) {
        return true;
    }
    match string_arg(&tokens, "group") {
        Some(g) => g.contains('.') || string_arg(&tokens, "version").is_some() || string_arg(&tokens, "kind").is_some(),
        None => false,
    }
}

/// Whether a `#[kube(...)]` error only says `group`, `version` or `kind` is missing (what a macro may add).
pub fn only_missing_names(e: &syn::Error) -> bool {
    e.clone().into_iter().all(|e| {
        let m = e.to_string();
        ["group", "version", "kind"].iter().any(|f| m.starts_with(&format!("missing field `{f}` in #[kube(...)]")))
    })
}

/// The item `id` as a kind an attribute macro generates, if it is one. `derives` says whether the item has its own
/// `#[derive(CustomResource)]` (then only when its `#[kube(...)]` misses names the macro may add: `incomplete`).
pub fn of_item(ix: &CrateIndex, id: ItemId, derives: bool, incomplete: bool) -> Option<MacroKind> {
    let item = &ix.items[id];
    let (attrs, ident, vis) = match &item.kind {
        ItemKind::Struct(s) => (&s.attrs, &s.ident, Vis::of(&s.vis)),
        ItemKind::Enum(e) => (&e.attrs, &e.ident, Vis::of(&e.vis)),
        _ => return None,
    };
    if derives && !incomplete {
        return None;
    }
    let foreign: Vec<&syn::Attribute> = attrs.iter().filter(|a| is_foreign(a)).collect();
    let kube: Vec<&syn::Attribute> = attrs.iter().filter(|a| a.path().is_ident("kube")).collect();
    // The macro: the first foreign attribute marking a custom resource, else (when the item's own #[kube] or derive
    // says a macro completes it) the first foreign attribute.
    let marked = foreign.iter().find(|a| marks_custom_resource(a)).copied();
    let by_kube = (derives || !kube.is_empty()).then(|| foreign.first().copied()).flatten();
    let attr = marked.or(by_kube)?;
    let kube_arg = |key: &str| kube.iter().find_map(|a| string_arg(&args(a), key));
    let name = ident.to_string();
    let from_name = name.strip_suffix("Spec").filter(|s| !s.is_empty()).unwrap_or(&name).to_string();
    let root = string_arg(&args(attr), "kind")
        .filter(|k| crate::source::kube_attrs::is_type_name(k))
        .or_else(|| kube_arg("root"))
        .or_else(|| kube_arg("kind"))
        .unwrap_or(from_name);
    let file = ix.module_file(item.module);
    let macro_path = path_text(attr);
    let shown = if args(attr).is_empty() { format!("#[{macro_path}]") } else { format!("#[{macro_path}(..)]") };
    let versioning = versions::of(ix, item.module, vis, attr);
    let why = match &versioning {
        None => format!(
            "an attribute macro generates the kind's `CustomResource` derive, which kubesmith cannot expand; the \
             compiled fallback takes the CRD from `{root}::crd()`, in the module of `{name}`"
        ),
        Some(v) => {
            let types: Vec<String> = v.names.iter().map(|n| format!("`{n}::{root}::crd()`")).collect();
            let place = match &v.on_module {
                Some((module, on)) => format!("the version modules #[{on}] on `mod {module}` generates"),
                None => format!("the version modules beside `{name}`"),
            };
            format!(
                "an attribute macro generates the kind's `CustomResource` derive once per version, which kubesmith \
                 cannot expand; the compiled fallback merges {}, from {place}",
                types.join(", ")
            )
        }
    };
    let because = CrdError::at(
        file,
        syn::spanned::Spanned::span(attr),
        CrdErrorKind::NeedsCompile { construct: format!("`{shown}` on `{name}`"), why },
    );
    let (versions, storage) = match &versioning {
        None => (Vec::new(), None),
        Some(v) => {
            let versions: Vec<MacroVersion> = v
                .names
                .iter()
                .map(|n| {
                    let with_root = |mut p: Vec<String>| {
                        p.push(root.clone());
                        p
                    };
                    let crate_path = ix.nameable_path(v.home, n, v.vis, false).map(with_root);
                    let reexport = if crate_path.is_none() {
                        ix.reexport_route(v.home, n, v.vis).map(|r| Reexport { tail: vec![root.clone()], ..r })
                    } else {
                        None
                    };
                    MacroVersion {
                        name: n.clone(),
                        public_path: ix.nameable_path(v.home, n, v.vis, true).map(with_root),
                        crate_path,
                        reexport,
                    }
                })
                .collect();
            (versions, Some(versions::storage(ix, &root, &v.names)))
        }
    };
    // Without versions, the one type beside the item; with them, the storage version's (what a path to "the kind"
    // names: PROJECT's entry of the storage version).
    let stored = storage.as_ref().and_then(|s| versions.iter().find(|v| v.name == s.version));
    let (crate_path, public_path, reexport) = match stored {
        Some(v) => (v.crate_path.clone(), v.public_path.clone(), v.reexport.clone()),
        None => {
            let crate_path = ix.nameable_path(item.module, &root, vis, false);
            let reexport = if crate_path.is_none() { ix.reexport_route(item.module, &root, vis) } else { None };
            (crate_path, ix.nameable_path(item.module, &root, vis, true), reexport)
        }
    };
    Some(MacroKind {
        macro_path,
        item: name,
        root,
        public: public_path.is_some(),
        crate_path,
        public_path,
        reexport,
        because,
        versions,
        storage,
    })
}

/// `Kind (plural.group)` of a compiled CRD, and its file name.
pub fn generated_crd(crd: serde_json::Value) -> Option<GeneratedCrd> {
    let name = crd.pointer("/metadata/name")?.as_str()?.to_string();
    let group = crd.pointer("/spec/group")?.as_str()?.to_string();
    let plural = crd.pointer("/spec/names/plural")?.as_str()?.to_string();
    Some(GeneratedCrd { file_name: format!("{group}_{plural}.yaml"), name, group, plural, crd })
}

/// CRDs of one name merged into one, as `merge_crds` does: every version once, the storage version first, one
/// scope. CRDs whose versions disagree (two storage versions or none, two scopes, a version twice) are left out,
/// each named with why.
pub fn merge_same_names(crds: Vec<GeneratedCrd>) -> (Vec<GeneratedCrd>, Vec<(String, String)>) {
    let mut groups: Vec<Vec<GeneratedCrd>> = Vec::new();
    for c in crds {
        match groups.iter_mut().find(|g| g[0].name == c.name) {
            Some(g) => g.push(c),
            None => groups.push(vec![c]),
        }
    }
    let mut merged = Vec::new();
    let mut failed = Vec::new();
    for group in groups {
        let name = group[0].name.clone();
        match merge_one(group) {
            Ok(c) => merged.push(c),
            Err(why) => failed.push((name, why)),
        }
    }
    (merged, failed)
}

fn merge_one(mut group: Vec<GeneratedCrd>) -> Result<GeneratedCrd, String> {
    let mut first = group.remove(0);
    if group.is_empty() {
        return Ok(first);
    }
    let scope = first.crd.pointer("/spec/scope").cloned();
    let mut versions = first.crd.pointer("/spec/versions").and_then(|v| v.as_array()).cloned().unwrap_or_default();
    for c in group {
        if c.crd.pointer("/spec/scope").cloned() != scope {
            return Err("its versions disagree on the scope (Namespaced or Cluster): give them one".into());
        }
        for v in c.crd.pointer("/spec/versions").and_then(|v| v.as_array()).cloned().unwrap_or_default() {
            if versions.iter().any(|o| o["name"] == v["name"]) {
                return Err(format!("version {} is declared twice: keep one", v["name"].as_str().unwrap_or_default()));
            }
            versions.push(v);
        }
    }
    let storage: Vec<usize> = (0..versions.len()).filter(|i| versions[*i]["storage"] == true).collect();
    if storage.len() != 1 {
        let names: Vec<&str> = versions.iter().map(|v| v["name"].as_str().unwrap_or_default()).collect();
        return Err(format!(
            "{} of its versions ({}) are storage versions, and exactly one must be: give the others `storage = false`",
            storage.len(),
            names.join(", ")
        ));
    }
    let stored = versions.remove(storage[0]);
    versions.insert(0, stored);
    first.crd["spec"]["versions"] = serde_json::Value::Array(versions);
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crd::SourceSet;
    use proc_macro2::TokenStream;

    fn index(lib: &str) -> (tempfile::TempDir, CrateIndex) {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("lib.rs"), lib).unwrap();
        let ix = CrateIndex::load(&SourceSet::new(&src)).unwrap();
        (dir, ix)
    }

    fn found(ix: &CrateIndex) -> Vec<(String, String, String)> {
        (0..ix.items.len())
            .filter_map(|id| {
                let attrs = match &ix.items[id].kind {
                    ItemKind::Struct(s) => &s.attrs,
                    _ => return None,
                };
                let derives = crate::source::kube_attrs::derives_custom_resource(attrs);
                let incomplete = derives
                    && crate::source::kube_attrs::parse(attrs, proc_macro2::Span::call_site())
                        .err()
                        .is_some_and(|e| only_missing_names(&e));
                of_item(ix, id, derives, incomplete)
            })
            .map(|m| (m.item, m.macro_path, m.root))
            .collect()
    }

    #[test]
    fn macros_marking_a_custom_resource_are_found_with_the_type_they_generate() {
        let (_d, ix) = index(
            "#[loom::resource(group = \"w.example.dev\", kind = \"Weave\")]\npub struct FabricSpec { pub a: u8 }\n\
             #[loom::resource(group = \"w.example.dev\")]\npub struct ShuttleSpec { pub a: u8 }\n\
             #[versioned(crd(group = \"stable\"))]\npub struct Gear { pub a: u8 }\n\
             #[framework::kind]\n#[kube(namespaced)]\npub struct ThingSpec { pub a: u8 }\n\
             #[framework::kind]\n#[derive(kube::CustomResource)]\n#[kube(version = \"v1\", kind = \"Bolt\")]\n\
             pub struct BoltSpec { pub a: u8 }\n",
        );
        assert_eq!(
            found(&ix),
            [
                ("FabricSpec".into(), "loom::resource".into(), "Weave".into()),
                ("ShuttleSpec".into(), "loom::resource".into(), "Shuttle".into()),
                ("Gear".into(), "versioned".into(), "Gear".into()),
                ("ThingSpec".into(), "framework::kind".into(), "Thing".into()),
                ("BoltSpec".into(), "framework::kind".into(), "Bolt".into()),
            ]
        );
    }

    #[test]
    fn other_attribute_macros_and_complete_derives_are_not_macro_kinds() {
        let (_d, ix) = index(
            "#[derive(clap::Parser)]\n#[command(group = \"output\")]\npub struct Args { pub a: u8 }\n\
             #[serde_with::skip_serializing_none]\npub struct Plain { pub a: Option<u8> }\n\
             #[tracing::instrument]\npub struct Traced;\n\
             #[framework::kind]\n#[derive(kube::CustomResource)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \
             \"Full\")]\npub struct FullSpec { pub a: u8 }\n",
        );
        assert_eq!(found(&ix), []);
    }

    #[test]
    fn versions_of_one_crd_merge_with_the_storage_version_first() {
        let crd = |version: &str, storage: bool| {
            generated_crd(serde_json::json!({"metadata": {"name": "ws.g.io"}, "spec": {"group": "g.io",
                "names": {"plural": "ws"}, "scope": "Namespaced",
                "versions": [{"name": version, "storage": storage}]}}))
            .unwrap()
        };
        let (merged, failed) = merge_same_names(vec![crd("v1alpha1", false), crd("v1", true)]);
        assert!(failed.is_empty(), "{failed:?}");
        assert_eq!(merged.len(), 1);
        assert_eq!(merged[0].file_name, "g.io_ws.yaml");
        let names: Vec<&str> =
            merged[0].crd["spec"]["versions"].as_array().unwrap().iter().map(|v| v["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["v1", "v1alpha1"]);
        let (merged, failed) = merge_same_names(vec![crd("v1alpha1", true), crd("v1", true)]);
        assert!(merged.is_empty());
        let (name, why) = &failed[0];
        assert_eq!(name, "ws.g.io");
        assert!(why.starts_with("2 of its versions (v1alpha1, v1) are storage versions"), "{why}");
    }

    fn kinds(ix: &CrateIndex) -> Vec<MacroKind> {
        (0..ix.items.len())
            .filter_map(|id| {
                let ItemKind::Struct(s) = &ix.items[id].kind else { return None };
                let derives = crate::source::kube_attrs::derives_custom_resource(&s.attrs);
                of_item(ix, id, derives, derives)
            })
            .collect()
    }

    fn path(p: &[&str]) -> Option<Vec<String>> {
        Some(p.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn versioning_macros_give_a_type_per_version_where_they_put_it() {
        let (dir, ix) = index(
            "pub mod api {\n\
             #[versioned(version(name = \"v1alpha1\"), version(name = \"v1\"))]\n\
             pub mod versioned {\n\
             #[versioned(crd(group = \"stable.example.dev\", namespaced))]\n\
             #[derive(kube::CustomResource)]\n\
             pub struct GearSpec { pub a: u8 }\n\
             pub struct Other;\n\
             }\n\
             #[framework::versions(version(name = \"v1beta1\"), version(name = \"v2\"), crd(group = \"g.example.dev\", \
             kind = \"Cog\"))]\n\
             pub struct CogWheelSpec { pub a: u8 }\n\
             }\n\
             #[versioned(version(name = \"v1\"), version(name = \"v2\"), preserve_module)]\n\
             pub(crate) mod kept {\n#[versioned(crd(group = \"k.example.dev\"))]\npub struct ChainSpec { pub a: u8 }\n}\n\
             pub fn install() {\n    let _ = api::Gear::merged_crd(api::GearVersion::V1Alpha1);\n}\n",
        );
        let found = kinds(&ix);
        let summary: Vec<(&str, &str, &str)> =
            found.iter().map(|m| (m.item.as_str(), m.macro_path.as_str(), m.root.as_str())).collect();
        assert_eq!(
            summary,
            [
                ("GearSpec", "versioned", "Gear"),
                ("CogWheelSpec", "framework::versions", "Cog"),
                ("ChainSpec", "versioned", "Chain")
            ]
        );
        let version = |name: &str, crate_path: Option<Vec<String>>, public_path: Option<Vec<String>>| MacroVersion {
            name: name.into(),
            crate_path,
            public_path,
            reexport: None,
        };
        // The macro on the module replaces it: the version modules sit beside it, in `api`.
        let gear = &found[0];
        assert_eq!(
            gear.versions,
            [
                version(
                    "v1alpha1",
                    path(&["crate", "api", "v1alpha1", "Gear"]),
                    path(&["crate", "api", "v1alpha1", "Gear"])
                ),
                version("v1", path(&["crate", "api", "v1", "Gear"]), path(&["crate", "api", "v1", "Gear"])),
            ]
        );
        let lib = dir.path().join("src/lib.rs");
        assert_eq!(gear.storage, Some(Storage { version: "v1alpha1".into(), call: Some((lib.clone(), 18)) }));
        assert_eq!(gear.public_path, path(&["crate", "api", "v1alpha1", "Gear"]), "the storage version's type");
        assert_eq!(
            gear.storage.as_ref().unwrap().describe("Gear", dir.path()),
            "storage version v1alpha1, named by `Gear::merged_crd(..)` at src/lib.rs:18"
        );
        assert!(gear.because.kind.to_string().contains(
            "merges `v1alpha1::Gear::crd()`, `v1::Gear::crd()`, from the version modules #[versioned] on `mod versioned` \
             generates"
        ));
        // On the struct: beside it, named by the crd's `kind`; no call names a version, so the last one is stored.
        let cog = &found[1];
        let names: Vec<(&str, Option<Vec<String>>)> =
            cog.versions.iter().map(|v| (v.name.as_str(), v.crate_path.clone())).collect();
        assert_eq!(
            names,
            [("v1beta1", path(&["crate", "api", "v1beta1", "Cog"])), ("v2", path(&["crate", "api", "v2", "Cog"]))]
        );
        assert_eq!(cog.storage, Some(Storage { version: "v2".into(), call: None }));
        assert_eq!(
            cog.storage.as_ref().unwrap().describe("Cog", dir.path()),
            "storage version v2, the last declared: no `Cog::merged_crd(..)` call of the crate names one"
        );
        // `preserve_module` keeps them inside the module, with its visibility: no path from another crate.
        let chain = &found[2];
        assert_eq!(
            chain.versions,
            [
                version("v1", path(&["crate", "kept", "v1", "Chain"]), None),
                version("v2", path(&["crate", "kept", "v2", "Chain"]), None),
            ]
        );
        assert!(!chain.public);
    }

    #[test]
    fn version_entries_are_read_from_the_top_level_arguments_only() {
        let tokens: TokenStream =
            "version(name = \"v1alpha1\"), version(name = \"v1\", deprecated), crd(version(name = \"x\")), version = \"v9\""
                .parse()
                .unwrap();
        assert_eq!(versions::declared(&tokens), ["v1alpha1", "v1"]);
    }

    #[test]
    fn versions_merge_as_merge_crds_does_with_the_named_storage_version() {
        let crd = |version: &str, scope: &str| {
            generated_crd(serde_json::json!({"metadata": {"name": "gs.g.io"}, "spec": {"group": "g.io",
                "names": {"plural": "gs", "kind": "G"}, "scope": scope,
                "versions": [{"name": version, "storage": true, "served": true}]}}))
            .unwrap()
        };
        let merged = merge_stored(
            vec![crd("v1alpha1", "Namespaced"), crd("v1beta1", "Namespaced"), crd("v1", "Namespaced")],
            "v1beta1",
        )
        .unwrap();
        assert_eq!(
            merged.crd["spec"]["versions"],
            serde_json::json!([
                {"name": "v1beta1", "storage": true, "served": true},
                {"name": "v1alpha1", "storage": false, "served": true},
                {"name": "v1", "storage": false, "served": true},
            ])
        );
        assert_eq!(
            merge_stored(vec![crd("v1alpha1", "Namespaced")], "v2").unwrap_err(),
            "no version is the storage version v2"
        );
        assert_eq!(
            merge_stored(vec![crd("v1alpha1", "Namespaced"), crd("v1", "Cluster")], "v1").unwrap_err(),
            "versions v1alpha1 and v1 disagree on the scope (Namespaced and Cluster)"
        );
    }
}
