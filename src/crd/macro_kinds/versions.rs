//! Kinds a versioning macro generates once per version (the shape of `stackable-versioned`): a macro whose
//! arguments list `version(name = "..")` entries, on the spec itself or on the module holding it, generates a module
//! per version (`v1alpha1`, `v1`), each with the kind's `CustomResource` derive (`v1::Foo`). Where those modules
//! sit, which version the merged CRD stores, and the merge (kube's `merge_crds`).

use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};

use super::tokens::{args, has_ident, is_foreign, path_text};
use crate::crd::GeneratedCrd;
use crate::crd::index::{CrateIndex, ModId, Vis};

/// Where a versioning macro puts a kind's versions.
#[derive(Debug, Clone, PartialEq)]
pub struct Versioning {
    /// The declared versions, in declaration order.
    pub names: Vec<String>,
    /// The module the version modules are generated in.
    pub home: ModId,
    /// The version modules' visibility, and so the widest a kind inside them can be named with.
    pub vis: Vis,
    /// The module the macro is on (`#[versioned(..)] mod versioned`), with the macro's path, when it is not on the
    /// item itself.
    pub on_module: Option<(String, String)>,
}

/// The `version(name = "..")` entries among an attribute's top-level arguments, in order.
pub fn declared(tokens: &TokenStream) -> Vec<String> {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let mut out = Vec::new();
    for (i, t) in trees.iter().enumerate() {
        let (TokenTree::Ident(id), Some(TokenTree::Group(g))) = (t, trees.get(i + 1)) else { continue };
        if id != "version" || g.delimiter() != proc_macro2::Delimiter::Parenthesis {
            continue;
        }
        if let Some(name) = top_string(&g.stream(), "name") {
            out.push(name);
        }
    }
    out
}

/// The string value of a top-level `key = ".."` of `tokens`.
fn top_string(tokens: &TokenStream, key: &str) -> Option<String> {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    trees.windows(3).find_map(|w| match w {
        [TokenTree::Ident(id), TokenTree::Punct(p), TokenTree::Literal(lit)] if id == key && p.as_char() == '=' => {
            match syn::parse_str::<syn::Lit>(&lit.to_string()) {
                Ok(syn::Lit::Str(s)) => Some(s.value()),
                _ => None,
            }
        }
        _ => None,
    })
}

/// How the versions of the item of module `module` (visibility `vis`) under the kind-making macro `attr` are
/// generated: the versions `attr` itself declares (modules beside the item, with its visibility), else those a macro
/// on the item's module declares (modules beside that module, which the macro replaces, with the module's visibility;
/// inside it when the macro's arguments say `preserve_module`). `None` when no macro declares versions.
pub fn of(ix: &CrateIndex, module: ModId, vis: Vis, attr: &syn::Attribute) -> Option<Versioning> {
    let names = declared(&args(attr));
    if !names.is_empty() {
        return Some(Versioning { names, home: module, vis, on_module: None });
    }
    let m = &ix.modules[module];
    let (on, names) = m.decl.attrs.iter().filter(|a| is_foreign(a)).find_map(|a| {
        let names = declared(&args(a));
        (!names.is_empty()).then_some((a, names))
    })?;
    let home = if has_ident(&args(on), &["preserve_module"]) { module } else { m.parent.unwrap_or(module) };
    let name = m.path.last().cloned().unwrap_or_default();
    Some(Versioning { names, home, vis: vis.min(m.decl.vis), on_module: Some((name, path_text(on))) })
}

/// The storage version of a kind a versioning macro generates, and why it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Storage {
    /// The version (`v1alpha1`).
    pub version: String,
    /// The `Kind::merged_crd(..)` call naming it (file and line), else `None`: the last version declared.
    pub call: Option<(PathBuf, usize)>,
}

impl Storage {
    /// `storage version v1alpha1, named by ..`, paths shown relative to `root`.
    pub fn describe(&self, kind: &str, root: &Path) -> String {
        match &self.call {
            Some((file, line)) => format!(
                "storage version {}, named by `{kind}::merged_crd(..)` at {}:{line}",
                self.version,
                file.strip_prefix(root).unwrap_or(file).display()
            ),
            None => format!(
                "storage version {}, the last declared: no `{kind}::merged_crd(..)` call of the crate names one",
                self.version
            ),
        }
    }
}

/// The storage version of kind `kind` among `names`: the version a `Kind::merged_crd(..)` call of the crate names
/// (`KindVersion::V1Alpha1` or `"v1alpha1"`: how versioning macros' merge helpers take it), else the last one
/// declared (the newest).
pub fn storage(ix: &CrateIndex, kind: &str, names: &[String]) -> Storage {
    let call = format!("{kind}::merged_crd(");
    for file in &ix.files {
        let text = &file.text;
        let mut from = 0;
        while let Some(at) = text[from..].find(&call) {
            let start = from + at;
            from = start + call.len();
            let before = text[..start].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let args: String = text[from..].chars().take_while(|c| *c != ')').collect();
            let words = args.split(|c: char| !(c.is_alphanumeric() || c == '_'));
            let named = words.filter(|w| !w.is_empty()).find_map(|w| names.iter().find(|n| n.eq_ignore_ascii_case(w)));
            if let Some(v) = named {
                let line = text[..start].matches('\n').count() + 1;
                return Storage { version: v.clone(), call: Some((file.path.clone(), line)) };
            }
        }
    }
    Storage { version: names.last().cloned().unwrap_or_default(), call: None }
}

/// The CRDs of a kind's versions (one version each) merged as kube's `merge_crds(crds, stored)` does: the stored
/// version's CRD with every other version appended in order, only the stored one `storage: true`. Refused, with why,
/// when a CRD has other than one version, when group, scope or kind differ, or when no CRD has the stored version.
pub fn merge_stored(mut crds: Vec<GeneratedCrd>, stored: &str) -> Result<GeneratedCrd, String> {
    let text = |c: &GeneratedCrd, p: &str| c.crd.pointer(p).and_then(|v| v.as_str()).unwrap_or_default().to_string();
    let version = |c: &GeneratedCrd| text(c, "/spec/versions/0/name");
    let first = crds.first().ok_or("no version's CRD to merge")?;
    for c in &crds {
        let n = c.crd.pointer("/spec/versions").and_then(|v| v.as_array()).map_or(0, Vec::len);
        if n != 1 {
            return Err(format!("the CRD of version {} has {n} versions, where each must have one", version(c)));
        }
        for (p, what) in [("/spec/group", "group"), ("/spec/scope", "scope"), ("/spec/names/kind", "kind")] {
            if text(c, p) != text(first, p) {
                return Err(format!(
                    "versions {} and {} disagree on the {what} ({} and {})",
                    version(first),
                    version(c),
                    text(first, p),
                    text(c, p)
                ));
            }
        }
    }
    let Some(at) = crds.iter().position(|c| version(c) == stored) else {
        return Err(format!("no version is the storage version {stored}"));
    };
    let mut root = crds.remove(at);
    root.crd["spec"]["versions"][0]["storage"] = true.into();
    for c in crds {
        let mut v = c.crd["spec"]["versions"][0].clone();
        v["storage"] = false.into();
        if let Some(vs) = root.crd["spec"]["versions"].as_array_mut() {
            vs.push(v);
        }
    }
    Ok(root)
}
