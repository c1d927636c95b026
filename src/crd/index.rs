//! Module discovery and the crate index: every struct, enum, type alias, fn, const and impl, with its module
//! path and the `use` declarations needed to resolve the names written in field types.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use syn::spanned::Spanned;

use super::error::{CrdError, CrdErrorKind};

/// Source files as the tool sees them: disk, optionally overlaid with planned (not yet written) contents.
#[derive(Debug, Clone)]
pub struct SourceSet {
    src_dir: PathBuf,
    overlay: BTreeMap<PathBuf, String>,
}

impl SourceSet {
    /// Sources rooted at `src_dir` (the directory holding `lib.rs` / `main.rs`).
    pub fn new(src_dir: &Path) -> Self {
        Self { src_dir: src_dir.to_path_buf(), overlay: BTreeMap::new() }
    }

    /// Overlay planned contents. Relative paths are taken relative to the src dir.
    pub fn with_overlay(mut self, overlay: BTreeMap<PathBuf, String>) -> Self {
        for (path, text) in overlay {
            let path = if path.is_absolute() { path } else { self.src_dir.join(path) };
            self.overlay.insert(path, text);
        }
        self
    }

    /// The src dir.
    pub fn src_dir(&self) -> &Path {
        &self.src_dir
    }

    fn exists(&self, path: &Path) -> bool {
        self.overlay.contains_key(path) || path.is_file()
    }

    fn read(&self, path: &Path) -> Result<String, CrdError> {
        if let Some(text) = self.overlay.get(path) {
            return Ok(text.clone());
        }
        std::fs::read_to_string(path).map_err(|e| CrdError::file(path, CrdErrorKind::Io(e.to_string())))
    }
}

/// Index of a module.
pub type ModId = usize;
/// Index of an item.
pub type ItemId = usize;

/// One parsed source file.
#[derive(Debug)]
pub struct SourceFile {
    /// Path on disk (or in the overlay).
    pub path: PathBuf,
    /// Its text, for marker comments.
    pub text: String,
}

/// A `use` entry: `alias` stands for `path` (already absolute when it starts with `crate`).
#[derive(Debug, Clone)]
pub struct UseEntry {
    /// Name introduced (empty for globs).
    pub alias: String,
    /// Path segments.
    pub path: Vec<String>,
    /// `use path::*`.
    pub glob: bool,
}

/// A module of the crate.
#[derive(Debug)]
pub struct Module {
    /// `["crate", "api", "v1"]`.
    pub path: Vec<String>,
    /// File index.
    pub file: usize,
    /// Parent module.
    pub parent: Option<ModId>,
    /// `use` entries.
    pub uses: Vec<UseEntry>,
    /// Child modules by name.
    pub children: BTreeMap<String, ModId>,
}

/// What an indexed item is.
#[derive(Debug)]
pub enum ItemKind {
    /// `struct`.
    Struct(syn::ItemStruct),
    /// `enum`.
    Enum(syn::ItemEnum),
    /// `type X = Y;`.
    Alias(syn::ItemType),
    /// `fn`.
    Fn(syn::ItemFn),
    /// `const`.
    Const(syn::ItemConst),
}

/// One indexed item.
#[derive(Debug)]
pub struct Item {
    /// Identifier.
    pub name: String,
    /// Defining module.
    pub module: ModId,
    /// The item.
    pub kind: ItemKind,
}

/// An `impl` block (inherent or of a trait).
#[derive(Debug)]
pub struct ImplBlock {
    /// Last segment of the self type.
    pub self_name: String,
    /// Last segment of the trait, if any.
    pub trait_name: Option<String>,
    /// Defining module.
    pub module: ModId,
    /// The block.
    pub item: syn::ItemImpl,
}

/// The whole crate.
#[derive(Debug, Default)]
pub struct CrateIndex {
    /// Files.
    pub files: Vec<SourceFile>,
    /// Modules; index 0 is the crate root.
    pub modules: Vec<Module>,
    /// Items.
    pub items: Vec<Item>,
    /// Impl blocks.
    pub impls: Vec<ImplBlock>,
}

impl CrateIndex {
    /// Discover and parse every module reachable from the crate root of `sources`.
    pub fn load(sources: &SourceSet) -> Result<Self, CrdError> {
        let dir = sources.src_dir();
        let root = ["lib.rs", "main.rs"]
            .iter()
            .map(|f| dir.join(f))
            .find(|p| sources.exists(p))
            .ok_or_else(|| CrdError::file(&dir.join("lib.rs"), CrdErrorKind::NoCrateRoot))?;
        let mut index = CrateIndex::default();
        index.load_file(sources, &root, vec!["crate".into()], None, dir.to_path_buf())?;
        Ok(index)
    }

    fn load_file(
        &mut self,
        sources: &SourceSet,
        path: &Path,
        mod_path: Vec<String>,
        parent: Option<ModId>,
        mod_dir: PathBuf,
    ) -> Result<ModId, CrdError> {
        let text = sources.read(path)?;
        let file =
            syn::parse_file(&text).map_err(|e| CrdError::at(path, e.span(), CrdErrorKind::Parse(e.to_string())))?;
        let file_idx = self.files.len();
        self.files.push(SourceFile { path: path.to_path_buf(), text });
        let file_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let ctx = FileCtx { file: file_idx, file_dir };
        self.load_items(sources, &ctx, file.items, mod_path, parent, mod_dir, false)
    }

    #[allow(clippy::too_many_arguments)]
    fn load_items(
        &mut self,
        sources: &SourceSet,
        ctx: &FileCtx,
        items: Vec<syn::Item>,
        mod_path: Vec<String>,
        parent: Option<ModId>,
        mod_dir: PathBuf,
        inline: bool,
    ) -> Result<ModId, CrdError> {
        let id = self.modules.len();
        self.modules.push(Module {
            path: mod_path.clone(),
            file: ctx.file,
            parent,
            uses: Vec::new(),
            children: BTreeMap::new(),
        });
        if let Some(p) = parent {
            if let Some(name) = mod_path.last() {
                self.modules[p].children.insert(name.clone(), id);
            }
        }
        for item in items {
            match item {
                syn::Item::Struct(s) => self.push_item(s.ident.to_string(), id, ItemKind::Struct(s)),
                syn::Item::Enum(e) => self.push_item(e.ident.to_string(), id, ItemKind::Enum(e)),
                syn::Item::Type(t) => self.push_item(t.ident.to_string(), id, ItemKind::Alias(t)),
                syn::Item::Fn(f) => self.push_item(f.sig.ident.to_string(), id, ItemKind::Fn(f)),
                syn::Item::Const(c) => self.push_item(c.ident.to_string(), id, ItemKind::Const(c)),
                syn::Item::Impl(i) => {
                    if let Some(self_name) = type_last_name(&i.self_ty) {
                        let trait_name =
                            i.trait_.as_ref().and_then(|(_, p, _)| p.segments.last()).map(|s| s.ident.to_string());
                        self.impls.push(ImplBlock { self_name, trait_name, module: id, item: i });
                    }
                }
                syn::Item::Use(u) => {
                    let mut out = Vec::new();
                    flatten_use(&u.tree, &mut Vec::new(), &mut out);
                    self.modules[id].uses.extend(out);
                }
                syn::Item::Mod(m) => {
                    if is_cfg_test(&m.attrs) {
                        continue;
                    }
                    let name = unraw(&m.ident);
                    let mut child_path = mod_path.clone();
                    child_path.push(name.clone());
                    let path_attr = path_attr(&m.attrs);
                    match m.content {
                        Some((_, items)) => {
                            let dir = match &path_attr {
                                Some(p) => mod_dir.join(p),
                                None => mod_dir.join(&name),
                            };
                            self.load_items(sources, ctx, items, child_path, Some(id), dir, true)?;
                        }
                        None => {
                            let candidates: Vec<PathBuf> = match &path_attr {
                                Some(p) if inline => vec![mod_dir.join(p)],
                                Some(p) => vec![ctx.file_dir.join(p)],
                                None => vec![mod_dir.join(format!("{name}.rs")), mod_dir.join(&name).join("mod.rs")],
                            };
                            let Some(found) = candidates.iter().find(|p| sources.exists(p)) else {
                                let looked = candidates.iter().map(|p| p.display().to_string()).collect::<Vec<_>>();
                                return Err(CrdError::at(
                                    &self.files[ctx.file].path,
                                    m.ident.span(),
                                    CrdErrorKind::ModuleNotFound { module: name, looked: looked.join(", ") },
                                ));
                            };
                            // A file named `mod.rs` or loaded through #[path] owns its directory; `x.rs` owns `x/`.
                            let child_dir = if path_attr.is_some() || found.file_name().is_some_and(|f| f == "mod.rs") {
                                found.parent().map(Path::to_path_buf).unwrap_or_default()
                            } else {
                                mod_dir.join(&name)
                            };
                            let found = found.clone();
                            self.load_file(sources, &found, child_path, Some(id), child_dir)?;
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(id)
    }

    fn push_item(&mut self, name: String, module: ModId, kind: ItemKind) {
        self.items.push(Item { name, module, kind });
    }

    /// The file path of a module.
    pub fn module_file(&self, module: ModId) -> &Path {
        &self.files[self.modules[module].file].path
    }

    /// The file text of a module.
    pub fn module_text(&self, module: ModId) -> &str {
        &self.files[self.modules[module].file].text
    }

    /// The items named `name` defined directly in `module`.
    fn item_in(&self, module: ModId, name: &str, want: fn(&ItemKind) -> bool) -> Option<ItemId> {
        self.items.iter().position(|i| i.module == module && i.name == name && want(&i.kind))
    }

    /// Resolve a path (as written in `module`) to a crate item, or to an external path.
    pub fn resolve(&self, module: ModId, segs: &[String], want: fn(&ItemKind) -> bool) -> Resolved {
        self.resolve_depth(module, segs, want, 0)
    }

    fn resolve_depth(&self, module: ModId, segs: &[String], want: fn(&ItemKind) -> bool, depth: usize) -> Resolved {
        if depth > 16 || segs.is_empty() {
            return Resolved::External(segs.to_vec());
        }
        let name = &segs[segs.len() - 1];
        if segs.len() == 1 {
            if let Some(id) = self.item_in(module, name, want) {
                return Resolved::Item(id);
            }
            if let Some(u) = self.modules[module].uses.iter().find(|u| !u.glob && &u.alias == name) {
                return self.resolve_use_path(module, &u.path, want, depth);
            }
            for u in self.modules[module].uses.iter().filter(|u| u.glob) {
                if let Some(m) = self.module_of_path(module, &u.path) {
                    if let Some(id) = self.item_in(m, name, want) {
                        return Resolved::Item(id);
                    }
                    // One level of re-export through the glob-imported module.
                    if let Some(inner) = self.modules[m].uses.iter().find(|x| !x.glob && &x.alias == name) {
                        return self.resolve_use_path(m, &inner.path, want, depth + 1);
                    }
                } else if !is_crate_relative(&u.path) && !self.is_glob_into_crate(module, &u.path) {
                    let mut full = u.path.clone();
                    full.push(name.clone());
                    if let Some(known) = known_external(&full) {
                        return Resolved::External(known);
                    }
                }
            }
            return self.by_last_segment(segs, want);
        }
        // Multi-segment path: resolve the prefix to a module.
        let prefix = &segs[..segs.len() - 1];
        let first = &prefix[0];
        let expanded: Option<Vec<String>> = if first == "crate" || first == "self" || first == "super" {
            Some(prefix.to_vec())
        } else if let Some(u) = self.modules[module].uses.iter().find(|u| !u.glob && &u.alias == first) {
            let mut p = u.path.clone();
            p.extend(prefix[1..].iter().cloned());
            Some(p)
        } else if self.modules[module].children.contains_key(first) {
            let mut p = vec!["self".to_string()];
            p.extend(prefix.iter().cloned());
            Some(p)
        } else {
            None
        };
        if let Some(prefix) = expanded {
            if let Some(m) = self.module_of_path(module, &prefix) {
                if let Some(id) = self.item_in(m, name, want) {
                    return Resolved::Item(id);
                }
                if let Some(u) = self.modules[m].uses.iter().find(|u| !u.glob && &u.alias == name) {
                    return self.resolve_use_path(m, &u.path, want, depth + 1);
                }
                return self.by_last_segment(segs, want);
            }
            let mut full = prefix;
            full.push(name.clone());
            return Resolved::External(full);
        }
        Resolved::External(segs.to_vec())
    }

    fn is_glob_into_crate(&self, module: ModId, path: &[String]) -> bool {
        path.first().is_some_and(|f| self.modules[module].children.contains_key(f))
    }

    fn resolve_use_path(&self, module: ModId, path: &[String], want: fn(&ItemKind) -> bool, depth: usize) -> Resolved {
        if depth > 16 {
            return Resolved::External(path.to_vec());
        }
        if is_crate_relative(path) || path.first().is_some_and(|f| self.modules[module].children.contains_key(f)) {
            let (prefix, name) = path.split_at(path.len() - 1);
            let prefix = if is_crate_relative(path) {
                prefix.to_vec()
            } else {
                let mut p = vec!["self".to_string()];
                p.extend(prefix.iter().cloned());
                p
            };
            if let Some(m) = self.module_of_path(module, &prefix) {
                if let Some(id) = self.item_in(m, &name[0], want) {
                    return Resolved::Item(id);
                }
                if let Some(u) = self.modules[m].uses.iter().find(|u| !u.glob && u.alias == name[0]) {
                    return self.resolve_use_path(m, &u.path.clone(), want, depth + 1);
                }
            }
            return self.by_last_segment(path, want);
        }
        Resolved::External(path.to_vec())
    }

    /// Fallback: a unique crate item with this last segment, else an external path.
    fn by_last_segment(&self, segs: &[String], want: fn(&ItemKind) -> bool) -> Resolved {
        let name = &segs[segs.len() - 1];
        let found: Vec<ItemId> =
            self.items.iter().enumerate().filter(|(_, i)| &i.name == name && want(&i.kind)).map(|(id, _)| id).collect();
        match found.as_slice() {
            [one] => Resolved::Item(*one),
            [] => Resolved::External(segs.to_vec()),
            many => Resolved::Ambiguous(many.to_vec()),
        }
    }

    /// The module a path like `crate::a::b`, `super::x`, `self::y` names, if it is a crate module.
    pub fn module_of_path(&self, from: ModId, path: &[String]) -> Option<ModId> {
        let mut cur = from;
        let mut rest = path;
        match rest.first().map(String::as_str) {
            Some("crate") => {
                cur = 0;
                rest = &rest[1..];
            }
            Some("self") => rest = &rest[1..],
            Some("super") => {
                while rest.first().map(String::as_str) == Some("super") {
                    cur = self.modules[cur].parent?;
                    rest = &rest[1..];
                }
            }
            Some(first) if self.modules[cur].children.contains_key(first) => {}
            _ => return None,
        }
        for seg in rest {
            if seg == "super" {
                cur = self.modules[cur].parent?;
                continue;
            }
            cur = *self.modules[cur].children.get(seg)?;
        }
        Some(cur)
    }
}

/// Result of name resolution.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    /// A crate item.
    Item(ItemId),
    /// Several crate items share the name and nothing disambiguates.
    Ambiguous(Vec<ItemId>),
    /// Not a crate item: the full path as far as known.
    External(Vec<String>),
}

struct FileCtx {
    file: usize,
    file_dir: PathBuf,
}

fn is_crate_relative(path: &[String]) -> bool {
    matches!(path.first().map(String::as_str), Some("crate" | "self" | "super"))
}

/// Paths of external crates whose glob imports we understand.
fn known_external(full: &[String]) -> Option<Vec<String>> {
    let first = full.first()?.as_str();
    matches!(first, "k8s_openapi" | "std" | "core" | "alloc" | "serde_json" | "kube").then(|| full.to_vec())
}

fn flatten_use(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<UseEntry>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(unraw(&p.ident));
            flatten_use(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = unraw(&n.ident);
            if name == "self" {
                if let Some(last) = prefix.last() {
                    out.push(UseEntry { alias: last.clone(), path: prefix.clone(), glob: false });
                }
            } else {
                let mut path = prefix.clone();
                path.push(name.clone());
                out.push(UseEntry { alias: name, path, glob: false });
            }
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            let name = unraw(&r.ident);
            if name != "self" {
                path.push(name);
            }
            out.push(UseEntry { alias: unraw(&r.rename), path, glob: false });
        }
        syn::UseTree::Glob(_) => out.push(UseEntry { alias: String::new(), path: prefix.clone(), glob: true }),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                flatten_use(t, prefix, out);
            }
        }
    }
}

/// Identifier text without a leading `r#`.
pub fn unraw(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_string).unwrap_or(s)
}

fn type_last_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("cfg") && a.meta.require_list().is_ok_and(|l| l.tokens.to_string().trim() == "test"))
}

fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find(|a| a.path().is_ident("path")).and_then(|a| match &a.meta {
        syn::Meta::NameValue(nv) => match &nv.value {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// The span of an item, for errors.
pub fn item_span(kind: &ItemKind) -> proc_macro2::Span {
    match kind {
        ItemKind::Struct(s) => s.ident.span(),
        ItemKind::Enum(e) => e.ident.span(),
        ItemKind::Alias(t) => t.ident.span(),
        ItemKind::Fn(f) => f.sig.ident.span(),
        ItemKind::Const(c) => c.span(),
    }
}
