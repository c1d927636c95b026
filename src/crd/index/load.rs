//! Loading the index: the [`Store`] [`module_files::walk`] fills with the crate's module tree (and a dependency's),
//! each file read once from the [`SourceSet`], parsed or kept as a stub (what [`CrateIndex::load_with`] says), and
//! its items (read by the walk as [`module_files::entries`] reads them: macros that generate items expanded) sorted
//! into the index's tables.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::{
    CrateIndex, CrdError, CrdErrorKind, FileFacts, ImplBlock, ItemKind, ModId, Module, SourceFile, SourceSet, cfg,
    parse_items,
};
use crate::markers::{Marker, MarkerError};
use crate::source::module_files::{self, Content, Opened, Store};
use crate::source::syntax::unraw;

/// Walks the module tree rooted at `root` into `index` (module path `mod_path`: `["crate"]`, or a dependency's
/// name); returns the root module.
pub(super) fn load(
    index: &mut CrateIndex,
    sources: &SourceSet,
    force: &BTreeSet<PathBuf>,
    root: &Path,
    mod_path: Vec<String>,
) -> Result<ModId, CrdError> {
    module_files::walk(&mut Loader { index, sources, force }, root, mod_path)
}

/// The index's [`Store`]: files parsed only when they can matter (or are in `force`), the others stubs; a file
/// that does not parse and a `mod` without a file are problems, the rest of the crate still read.
struct Loader<'a> {
    index: &'a mut CrateIndex,
    sources: &'a SourceSet,
    force: &'a BTreeSet<PathBuf>,
}

impl Store for Loader<'_> {
    /// An index into [`CrateIndex::files`].
    type File = usize;
    type Item = syn::Item;
    /// The index keeps items in its own tables.
    type Held = std::convert::Infallible;
    type Error = CrdError;

    fn read(&mut self, path: &Path) -> Result<Opened<Self>, CrdError> {
        let (text, cell) = self.sources.read(path)?;
        let mut blanked = None;
        let facts = cell.get_or_init(|| {
            let (facts, b) = FileFacts::of(path, &text);
            // Worked out here, the blanked text is what the parser reads too.
            blanked = b;
            facts
        });
        let markers = facts.markers.clone();
        if let Ok(ms) = &markers {
            // Every part of a split generation reads every file: the first read records its markers.
            self.sources.scanned.borrow_mut().entry(path.to_path_buf()).or_insert_with(|| ms.clone());
        }
        let derives = facts.derives;
        // A derive another part owns is a stub here (markers and all: they matter only with its items).
        let elsewhere = derives && self.index.part.as_ref().is_some_and(|p| !p.owns(path));
        let stub = if self.force.contains(path) || (derives && !elsewhere) || facts.macro_kinds || facts.generates_types
        {
            None
        } else if elsewhere {
            facts.prescan_elsewhere(&text)
        } else {
            facts.prescan(&text).filter(|_| !has_crd_markers(&markers))
        };
        let files = &mut self.index.files;
        let file = files.len();
        if stub.is_some() {
            files.push(SourceFile { path: path.to_path_buf(), text, markers, stub, elsewhere });
            return Ok((file, Content::Parsed(Vec::new())));
        }
        match parse_items(&text, blanked) {
            Ok(items) => {
                files.push(SourceFile { path: path.to_path_buf(), text, markers, stub: None, elsewhere });
                Ok((file, Content::Parsed(items.0)))
            }
            Err(e) => {
                // Reported with every other problem; the module stays empty (its markers are not looked at).
                self.index.problems.push(CrdError::at(path, e.span(), CrdErrorKind::Parse(e.to_string())));
                files.push(SourceFile {
                    path: path.to_path_buf(),
                    text,
                    markers: Ok(Vec::new()),
                    stub: None,
                    elsewhere,
                });
                Ok((file, Content::Parsed(Vec::new())))
            }
        }
    }

    fn exists(&mut self, path: &Path) -> bool {
        self.sources.exists(path)
    }

    fn modules(&mut self) -> &mut Vec<Module> {
        &mut self.index.modules
    }

    fn keep(&mut self, item: syn::Item) -> syn::Item {
        item
    }

    fn item(&mut self, id: ModId, item: syn::Item) {
        let index = &mut *self.index;
        match item {
            syn::Item::Struct(mut s) => {
                cfg::unwrap_schema_cfg(&mut s.attrs, s.fields.iter_mut().map(|f| &mut f.attrs));
                shrink_attrs(&mut s.attrs, s.fields.iter_mut().map(|f| &mut f.attrs));
                index.push_item(unraw(&s.ident), id, ItemKind::Struct(s));
            }
            syn::Item::Enum(mut e) => {
                let variants = e
                    .variants
                    .iter_mut()
                    .flat_map(|v| std::iter::once(&mut v.attrs).chain(v.fields.iter_mut().map(|f| &mut f.attrs)));
                cfg::unwrap_schema_cfg(&mut e.attrs, variants);
                shrink_attrs(&mut e.attrs, e.variants.iter_mut().map(|v| &mut v.attrs));
                index.push_item(unraw(&e.ident), id, ItemKind::Enum(e));
            }
            syn::Item::Type(t) => index.push_item(unraw(&t.ident), id, ItemKind::Alias(t)),
            syn::Item::Fn(f) => index.push_item(unraw(&f.sig.ident), id, ItemKind::Fn(f)),
            syn::Item::Const(c) => index.push_item(unraw(&c.ident), id, ItemKind::Const(c)),
            syn::Item::Union(u) => index.unions.push((id, u)),
            // `lazy_static!`'s statics too: the walk expanded the macro in their place.
            syn::Item::Static(st) => index.push_item(unraw(&st.ident), id, ItemKind::Static(st)),
            syn::Item::Impl(i) => {
                if let Some(self_name) = type_last_name(&i.self_ty) {
                    let trait_name =
                        i.trait_.as_ref().and_then(|(_, p, _)| p.segments.last()).map(|s| s.ident.to_string());
                    index.impls.push(ImplBlock { self_name, trait_name, module: id, item: i });
                }
            }
            _ => {}
        }
    }

    fn missing(
        &mut self,
        file: &usize,
        name: &str,
        span: Option<proc_macro2::Span>,
        looked: String,
    ) -> Result<(), CrdError> {
        let path = &self.index.files[*file].path;
        let kind = CrdErrorKind::ModuleNotFound { module: name.to_string(), looked };
        let error = match span {
            Some(span) => CrdError::at(path, span, kind),
            None => CrdError::file(path, kind),
        };
        self.index.problems.push(error);
        Ok(())
    }
}

/// Gives back the room syn's attribute lists grew into (a doc comment and a `#[serde(..)]` take two of the four
/// places the first push makes): the index keeps every type's attributes until `make manifests` ends, and on a
/// crate of generated types these spare places were a fifth of its memory.
fn shrink_attrs<'a>(item: &mut Vec<syn::Attribute>, inner: impl Iterator<Item = &'a mut Vec<syn::Attribute>>) {
    item.shrink_to_fit();
    inner.for_each(Vec::shrink_to_fit);
}

/// Whether a file holds a marker the CRD generator attaches to a type or field (or a marker it must report).
fn has_crd_markers(markers: &Result<Vec<Marker>, MarkerError>) -> bool {
    markers.as_ref().map_or(true, |ms| ms.iter().any(|m| crate::markers::is_crd_marker(&m.name)))
}

/// The last segment of a path type (an impl's self type).
fn type_last_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}
