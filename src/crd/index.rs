//! Module discovery and the crate index: every struct, enum, type alias, fn, const, static and impl, with its
//! module path and the `use` declarations needed to resolve the names written in field types; the full body of
//! a fn on demand ([`CrateIndex::full_block`]), since the index itself keeps only single-expression bodies.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, OnceLock};

use syn::parse::discouraged::Speculative;
use syn::spanned::Spanned;

use super::error::{CrdError, CrdErrorKind};
use crate::markers::{Marker, MarkerError};
use crate::source::resolve;
pub use crate::source::syntax::{UseEntry, Vis, unraw};
use crate::source::syntax::{flatten_use, is_cfg_test, path_attr};

mod scan;
pub use scan::blank_test_modules;
pub(crate) use scan::{attribute_end, cfg_test_module_body, skip_literal, skip_string_at_quote};
use scan::{blank_fn_bodies, is_ident_byte, names_api_group_or_crd, skip_block};

/// Source files as the tool sees them: disk, optionally overlaid with planned (not yet written) contents.
#[derive(Debug, Clone)]
pub struct SourceSet {
    src_dir: PathBuf,
    overlay: HashMap<PathBuf, String>,
    /// The markers of every file read so far that scanned without errors, by path.
    scanned: RefCell<HashMap<PathBuf, Vec<Marker>>>,
    /// The `.rs` files under the source folder and their sizes, once [`SourceSet::rust_files`] walked it.
    listed: std::cell::OnceCell<Vec<(PathBuf, u64)>>,
    /// The texts that walk read, shared with every index loaded from the set (each file is opened once), and what
    /// the index learned of each from its text alone, shared by the set's clones: the parts of a split generation
    /// ([`crate::crd::partition`]) each load the whole crate and look at every file.
    read_ahead: RefCell<HashMap<PathBuf, SourceText>>,
}

/// A file's text and its [`FileFacts`], once an index worked them out.
type SourceText = (Arc<String>, Arc<OnceLock<FileFacts>>);

/// What [`CrateIndex::load_part`] learns of a file from its text alone, the same for every index that loads it.
#[derive(Debug)]
struct FileFacts {
    /// Its markers ([`crate::markers::scan`]).
    markers: Result<Vec<Marker>, MarkerError>,
    /// Whether the parser would see a `CustomResource` in it (not only in fn bodies or `#[cfg(test)]` modules,
    /// which it skips: the shared webhook module's test kinds).
    derives: bool,
    /// Whether its attributes may make a kind through an attribute macro (`crd::macro_kinds`).
    macro_kinds: bool,
    /// [`prescan`]'s answer, once a load needed it.
    prescan: OnceLock<Option<Arc<StubNames>>>,
}

impl FileFacts {
    /// The facts of `text` (of `path`), and its text with fn bodies blanked when working them out needed it.
    fn of(path: &Path, text: &str) -> (Self, Option<String>) {
        let markers = if text.contains('+') { crate::markers::scan(path, text) } else { Ok(Vec::new()) };
        let mut blanked: Option<String> = None;
        let derives = text.contains("CustomResource")
            && blanked.get_or_insert_with(|| blank_fn_bodies(text)).contains("CustomResource");
        let macro_kinds = !derives
            && names_api_group_or_crd(text)
            && names_api_group_or_crd(blanked.get_or_insert_with(|| blank_fn_bodies(text)));
        (Self { markers, derives, macro_kinds, prescan: OnceLock::new() }, blanked)
    }

    fn prescan(&self, text: &str) -> Option<Arc<StubNames>> {
        self.prescan.get_or_init(|| prescan(text).map(Arc::new)).clone()
    }
}

impl SourceSet {
    /// Sources rooted at `src_dir` (the directory holding `lib.rs` / `main.rs`).
    pub fn new(src_dir: &Path) -> Self {
        Self {
            src_dir: src_dir.to_path_buf(),
            overlay: HashMap::new(),
            scanned: RefCell::default(),
            listed: std::cell::OnceCell::new(),
            read_ahead: RefCell::default(),
        }
    }

    /// Every `.rs` file under the source folder (hidden folders skipped, 32 levels at most) with its size in bytes,
    /// read once: the texts are kept for the readers that come next (the crate index takes them), so a command
    /// that looks at the whole folder first and then parses the crate opens each file once.
    pub fn rust_files(&self) -> &[(PathBuf, u64)] {
        self.listed.get_or_init(|| {
            let mut out = Vec::new();
            let mut texts = self.read_ahead.borrow_mut();
            let mut dirs = vec![(self.src_dir.clone(), 0usize)];
            while let Some((dir, depth)) = dirs.pop() {
                let Ok(entries) = std::fs::read_dir(&dir) else { continue };
                for entry in entries.flatten() {
                    let path = entry.path();
                    let hidden = path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
                    if path.is_dir() {
                        if !hidden && depth < 32 {
                            dirs.push((path, depth + 1));
                        }
                    } else if path.extension().is_some_and(|x| x == "rs")
                        && !self.overlay.contains_key(&path)
                        && let Ok(text) = std::fs::read_to_string(&path)
                    {
                        out.push((path.clone(), text.len() as u64));
                        texts.insert(path, (Arc::new(text), Arc::default()));
                    }
                }
            }
            // By bytes (cheaper than `Path`'s component order), for `exists`' binary search.
            out.sort_unstable_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
            out
        })
    }

    /// The markers of `path` ([`crate::markers::scan`], reporting `path`), when the CRD generator read and
    /// scanned that file, so `make manifests` neither reads nor scans it again for RBAC and webhook markers.
    pub fn take_scanned(&self, path: &Path) -> Option<Vec<Marker>> {
        self.scanned.borrow_mut().remove(path)
    }

    /// Takes the scanned markers of `other` (a clone that read files on another thread) this set does not have.
    pub fn absorb_scanned(&self, other: SourceSet) {
        let mut mine = self.scanned.borrow_mut();
        for (path, markers) in other.scanned.into_inner() {
            mine.entry(path).or_insert(markers);
        }
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

    /// The planned files of the overlay.
    pub fn overlay_paths(&self) -> impl Iterator<Item = &Path> {
        self.overlay.keys().map(PathBuf::as_path)
    }

    /// A file's text as the plan leaves it (the overlay, else the disk).
    pub fn read_text(&self, path: &Path) -> std::io::Result<String> {
        if let Some(text) = self.overlay.get(path) {
            return Ok(text.clone());
        }
        if let Some(text) = self.read_ahead.borrow().get(path) {
            return Ok(text.0.to_string());
        }
        std::fs::read_to_string(path)
    }

    /// Whether the text of `path` (as [`SourceSet::read_text`] gives it) holds `needle`, without copying it.
    pub fn text_contains(&self, path: &Path, needle: &str) -> bool {
        if let Some(text) = self.overlay.get(path) {
            return text.contains(needle);
        }
        if let Some(text) = self.read_ahead.borrow().get(path) {
            return text.0.contains(needle);
        }
        std::fs::read_to_string(path).is_ok_and(|t| t.contains(needle))
    }

    fn exists(&self, path: &Path) -> bool {
        self.overlay.contains_key(path)
            || self
                .listed
                .get()
                .is_some_and(|l| l.binary_search_by(|(p, _)| p.as_os_str().cmp(path.as_os_str())).is_ok())
            || path.is_file()
    }

    /// The text of `path` and its [`FileFacts`] cell (shared by the set's clones for the files walked ahead).
    fn read(&self, path: &Path) -> Result<SourceText, CrdError> {
        if let Some(text) = self.overlay.get(path) {
            return Ok((Arc::new(text.clone()), Arc::default()));
        }
        if let Some(known) = self.read_ahead.borrow().get(path) {
            return Ok(known.clone());
        }
        let text = std::fs::read_to_string(path).map_err(|e| CrdError::file(path, CrdErrorKind::Io(e.to_string())))?;
        Ok((Arc::new(text), Arc::default()))
    }
}

/// Index of a module.
pub type ModId = usize;
/// Index of an item.
pub type ItemId = usize;

/// One source file of the crate.
#[derive(Debug)]
pub struct SourceFile {
    /// Path on disk (or in the overlay).
    pub path: PathBuf,
    /// Its text, for marker comments (shared with the [`SourceSet`] and other indexes of it).
    pub text: Arc<String>,
    /// Its markers ([`crate::markers::scan`]).
    pub markers: Result<Vec<Marker>, MarkerError>,
    /// `Some` when the file was not parsed (see [`CrateIndex::load_with`]): the names that would make it matter.
    pub stub: Option<Arc<StubNames>>,
}

/// What a cheap lexical scan ([`prescan`]) knows of a file that was not parsed: hashes of the names it may
/// define or import. Hash collisions only make a lookup parse a file it did not need.
#[derive(Debug, Default)]
pub struct StubNames {
    /// Identifiers right after `struct`, `enum`, `type`, `fn`, `const` and `static`: the items the index would
    /// hold.
    declared: Vec<u64>,
    /// Identifiers inside `use ...;`: the aliases the module would import.
    used: Vec<u64>,
    /// Identifiers in `impl` headers: the types the file may implement a trait for.
    impls: Vec<u64>,
    /// Whether a `use` holds a `*`: a glob import a lookup through the module must see.
    globs: bool,
}

fn name_hash(name: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn has_name(set: &[u64], name: &str) -> bool {
    set.binary_search(&name_hash(name.as_bytes())).is_ok()
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
    /// Visibility of its `mod` declaration (the crate root counts as public).
    pub vis: Vis,
    /// The attributes of its `mod` declaration but doc comments (an attribute macro on the module, say).
    pub attrs: Vec<syn::Attribute>,
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
    /// `static`.
    Static(syn::ItemStatic),
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

/// Resolutions of the paths written in one module, by path.
type ResolvedPaths = HashMap<Vec<String>, Resolved>;

/// The whole crate.
///
/// Files that cannot matter are not parsed (they are "stubs": a module with no items, uses or impls, and the
/// [`StubNames`] of a cheap scan). Every lookup that a stub's contents could change records the stub in
/// [`CrateIndex::touched`]; [`crate::crd::generate_with`] then loads the crate again with those files parsed and
/// starts over, so the result is always the one of a fully parsed crate.
#[derive(Debug, Default)]
pub struct CrateIndex {
    /// Files.
    pub files: Vec<SourceFile>,
    /// Modules; index 0 is the crate root.
    pub modules: Vec<Module>,
    /// Items.
    pub items: Vec<Item>,
    /// Impl blocks (of parsed files; look them up with [`CrateIndex::impls_of`]).
    pub impls: Vec<ImplBlock>,
    /// Unions (never a schema; kept so a `#[derive(CustomResource)]` on one is reported).
    pub unions: Vec<(ModId, syn::ItemUnion)>,
    /// Files that do not parse and `mod` declarations without a file: reported, the rest of the crate still read.
    pub problems: Vec<CrdError>,
    /// The features the crate's `Cargo.toml` turns on for schemars (`chrono04`, `uuid1`, ...: which foreign types
    /// have a schema); `None` without a manifest.
    pub schemars_features: Option<BTreeSet<String>>,
    /// Stub files (indexes into `files`) a lookup needed.
    touched: RefCell<BTreeSet<usize>>,
    /// Item ids by name, in id order.
    by_name: HashMap<String, Vec<ItemId>>,
    /// The stubs by the hashes of the identifiers of their `impl` headers.
    stubs_by_impl: HashMap<u64, Vec<usize>>,
    /// Fn bodies parsed again from the source text ([`CrateIndex::full_block`]), by file and opening brace.
    full_blocks: RefCell<HashMap<(usize, usize, usize), Rc<syn::Block>>>,
    /// [`CrateIndex::resolve`]'s answers by module and item filter (the same few names are resolved for every field
    /// of a module: `Option`, `String`, ...). The index does not change once loaded, and the stubs a first
    /// resolution touched stay recorded, so an answer given again is the one computed again.
    resolved: RefCell<HashMap<(ModId, usize), ResolvedPaths>>,
    /// The part of a split generation this index is for ([`CrateIndex::load_part`]); `None`: the whole crate.
    part: Option<Part>,
}

/// One of the parts a generation is split into: which files deriving `CustomResource` it parses. Every such file
/// belongs to exactly one part ([`Part::owns`]).
#[derive(Debug, Clone)]
pub struct Part {
    /// This part, `0..of`.
    pub index: usize,
    /// How many parts there are.
    pub of: usize,
    /// The part of each file known when the split was made (balanced by size); a file not in it goes by the hash
    /// of its [`Part::key`].
    pub owners: std::sync::Arc<HashMap<PathBuf, usize>>,
}

impl Part {
    /// Whether this part parses `path`, a file deriving `CustomResource`.
    pub fn owns(&self, path: &Path) -> bool {
        let owner = match self.owners.get(path) {
            Some(owner) => *owner,
            None => (name_hash(Part::key(path).as_bytes()) % self.of as u64) as usize,
        };
        owner == self.index
    }

    /// What keeps files together in one part: a file's name, its folder's for `mod.rs` and version-named files
    /// (`v1.rs`, `v1beta1.rs`), so the versions of a kind — usually files of one name in version folders — and
    /// a kind's controller of the same name fall into one part.
    pub fn key(path: &Path) -> String {
        let name = |p: &Path| p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let key = name(path);
        let version_like = key.strip_prefix('v').is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
        if key == "mod" || version_like { path.parent().map(name).unwrap_or_default() } else { key }
    }
}

impl CrateIndex {
    /// Discover and parse every module reachable from the crate root of `sources`.
    pub fn load(sources: &SourceSet) -> Result<Self, CrdError> {
        Self::load_with(sources, &BTreeSet::new())
    }

    /// Discover every module reachable from the crate root of `sources`, parsing only the files that can
    /// matter: those in `force`, those that mention `CustomResource`, declare modules or hold CRD markers.
    /// The others are stubs until a lookup needs them ([`CrateIndex::take_touched`]).
    pub fn load_with(sources: &SourceSet, force: &BTreeSet<PathBuf>) -> Result<Self, CrdError> {
        Self::load_part(sources, force, None)
    }

    /// [`CrateIndex::load_with`] for one part of a generation split over threads ([`crate::crd::partition`]): of
    /// the files that derive `CustomResource`, only those `part` owns are parsed for that reason; the others are
    /// stubs here (another part parses them), loaded only if a lookup needs them, like any stub.
    pub fn load_part(sources: &SourceSet, force: &BTreeSet<PathBuf>, part: Option<Part>) -> Result<Self, CrdError> {
        let dir = sources.src_dir();
        let root = ["lib.rs", "main.rs"]
            .iter()
            .map(|f| dir.join(f))
            .find(|p| sources.exists(p))
            .ok_or_else(|| CrdError::file(&dir.join("lib.rs"), CrdErrorKind::NoCrateRoot))?;
        let mut index = CrateIndex {
            part,
            schemars_features: crate::source::workspace::dependency_features(dir, "schemars"),
            ..CrateIndex::default()
        };
        index.load_file(sources, force, &root, vec!["crate".into()], None, dir.to_path_buf())?;
        for (id, item) in index.items.iter().enumerate() {
            index.by_name.entry(item.name.clone()).or_default().push(id);
        }
        for (f, file) in index.files.iter().enumerate() {
            if let Some(stub) = &file.stub {
                for &h in &stub.impls {
                    index.stubs_by_impl.entry(h).or_default().push(f);
                }
            }
        }
        Ok(index)
    }

    /// The paths of the stub files some lookup needed since the index was loaded (empty: the results so far
    /// are those of a fully parsed crate).
    pub fn take_touched(&self) -> BTreeSet<PathBuf> {
        std::mem::take(&mut *self.touched.borrow_mut()).into_iter().map(|f| self.files[f].path.clone()).collect()
    }

    fn touch(&self, file: usize) {
        self.touched.borrow_mut().insert(file);
    }

    /// Records the stub of `module`, if it is one and `pick` finds `name` among its names.
    fn touch_module(&self, module: ModId, name: &str, pick: fn(&StubNames) -> &[u64]) {
        let file = self.modules[module].file;
        if let Some(stub) = &self.files[file].stub
            && has_name(pick(stub), name)
        {
            self.touch(file);
        }
    }

    /// Records every stub that may implement a trait for a type named `name`.
    fn touch_impl_stubs(&self, name: &str) {
        for &f in self.stubs_by_impl.get(&name_hash(name.as_bytes())).into_iter().flatten() {
            self.touch(f);
        }
    }

    /// The impl blocks whose self type's last segment is `self_name`.
    pub fn impls_of<'a>(&'a self, self_name: &'a str) -> impl Iterator<Item = &'a ImplBlock> + 'a {
        self.touch_impl_stubs(self_name);
        self.impls.iter().filter(move |i| i.self_name == self_name)
    }

    /// The non-glob `use` entry of `module` importing `alias`.
    fn use_alias(&self, module: ModId, alias: &str) -> Option<&UseEntry> {
        self.touch_module(module, alias, |s| &s.used);
        self.modules[module].uses.iter().find(|u| !u.glob && u.alias == alias)
    }

    fn load_file(
        &mut self,
        sources: &SourceSet,
        force: &BTreeSet<PathBuf>,
        path: &Path,
        mod_path: Vec<String>,
        parent: Option<ModId>,
        mod_dir: PathBuf,
    ) -> Result<ModId, CrdError> {
        let (text, cell) = sources.read(path)?;
        let mut blanked = None;
        let facts = cell.get_or_init(|| {
            let (facts, b) = FileFacts::of(path, &text);
            // Worked out here, the blanked text is what the parser reads too.
            blanked = b;
            facts
        });
        let markers = facts.markers.clone();
        if let Ok(ms) = &markers {
            sources.scanned.borrow_mut().insert(path.to_path_buf(), ms.clone());
        }
        let derives = facts.derives;
        // A derive another part owns is a stub here (markers and all: they matter only with its items).
        let elsewhere = derives && self.part.as_ref().is_some_and(|p| !p.owns(path));
        let stub = if force.contains(path) || (derives && !elsewhere) || facts.macro_kinds {
            None
        } else if elsewhere {
            facts.prescan(&text)
        } else {
            facts.prescan(&text).filter(|_| !has_crd_markers(&markers))
        };
        let file_idx = self.files.len();
        let file_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let ctx = FileCtx { file: file_idx, file_dir };
        if stub.is_some() {
            self.files.push(SourceFile { path: path.to_path_buf(), text, markers, stub });
            return self.load_items(sources, force, &ctx, Vec::new(), mod_path, parent, mod_dir, false);
        }
        let items = match parse_items(&text, blanked) {
            Ok(file) => file.0,
            Err(e) => {
                // Reported with every other problem; the module stays empty (its markers are not looked at).
                self.problems.push(CrdError::at(path, e.span(), CrdErrorKind::Parse(e.to_string())));
                self.files.push(SourceFile { path: path.to_path_buf(), text, markers: Ok(Vec::new()), stub: None });
                return self.load_items(sources, force, &ctx, Vec::new(), mod_path, parent, mod_dir, false);
            }
        };
        self.files.push(SourceFile { path: path.to_path_buf(), text, markers, stub: None });
        self.load_items(sources, force, &ctx, items, mod_path, parent, mod_dir, false)
    }

    #[allow(clippy::too_many_arguments)]
    fn load_items(
        &mut self,
        sources: &SourceSet,
        force: &BTreeSet<PathBuf>,
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
            vis: if parent.is_none() { Vis::Public } else { Vis::Private },
            attrs: Vec::new(),
        });
        if let Some(p) = parent
            && let Some(name) = mod_path.last()
        {
            self.modules[p].children.insert(name.clone(), id);
        }
        for item in items {
            match item {
                syn::Item::Struct(mut s) => {
                    shrink_attrs(&mut s.attrs, s.fields.iter_mut().map(|f| &mut f.attrs));
                    self.push_item(s.ident.to_string(), id, ItemKind::Struct(s));
                }
                syn::Item::Enum(mut e) => {
                    shrink_attrs(&mut e.attrs, e.variants.iter_mut().map(|v| &mut v.attrs));
                    self.push_item(e.ident.to_string(), id, ItemKind::Enum(e));
                }
                syn::Item::Type(t) => self.push_item(t.ident.to_string(), id, ItemKind::Alias(t)),
                syn::Item::Fn(f) => self.push_item(f.sig.ident.to_string(), id, ItemKind::Fn(f)),
                syn::Item::Const(c) => self.push_item(c.ident.to_string(), id, ItemKind::Const(c)),
                syn::Item::Union(u) => self.unions.push((id, u)),
                syn::Item::Static(st) => self.push_item(st.ident.to_string(), id, ItemKind::Static(st)),
                // `lazy_static! { static ref NAME: T = expr; }`: statics like any other (regexes built once).
                syn::Item::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "lazy_static") => {
                    if let Ok(LazyStatics(statics)) = m.mac.parse_body::<LazyStatics>() {
                        for st in statics {
                            self.push_item(st.ident.to_string(), id, ItemKind::Static(st));
                        }
                    }
                }
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
                    let vis = Vis::of(&u.vis);
                    self.modules[id].uses.extend(out.into_iter().map(|e| UseEntry { vis, ..e }));
                }
                syn::Item::Mod(m) => {
                    if is_cfg_test(&m.attrs) {
                        continue;
                    }
                    let name = unraw(&m.ident);
                    let vis = Vis::of(&m.vis);
                    let mut child_path = mod_path.clone();
                    child_path.push(name.clone());
                    let path_attr = path_attr(&m.attrs);
                    let attrs: Vec<syn::Attribute> =
                        m.attrs.iter().filter(|a| !a.path().is_ident("doc")).cloned().collect();
                    match m.content {
                        Some((_, items)) => {
                            let dir = match &path_attr {
                                Some(p) => mod_dir.join(p),
                                None => mod_dir.join(&name),
                            };
                            let child = self.load_items(sources, force, ctx, items, child_path, Some(id), dir, true)?;
                            self.modules[child].vis = vis;
                            self.modules[child].attrs = attrs;
                        }
                        None => {
                            let candidates: Vec<PathBuf> = match &path_attr {
                                Some(p) if inline => vec![mod_dir.join(p)],
                                Some(p) => vec![ctx.file_dir.join(p)],
                                None => vec![mod_dir.join(format!("{name}.rs")), mod_dir.join(&name).join("mod.rs")],
                            };
                            let Some(found) = candidates.iter().find(|p| sources.exists(p)) else {
                                let looked = candidates.iter().map(|p| p.display().to_string()).collect::<Vec<_>>();
                                self.problems.push(CrdError::at(
                                    &self.files[ctx.file].path,
                                    m.ident.span(),
                                    CrdErrorKind::ModuleNotFound { module: name, looked: looked.join(", ") },
                                ));
                                continue;
                            };
                            // A file named `mod.rs` or loaded through #[path] owns its directory; `x.rs` owns `x/`.
                            let child_dir = if path_attr.is_some() || found.file_name().is_some_and(|f| f == "mod.rs") {
                                found.parent().map(Path::to_path_buf).unwrap_or_default()
                            } else {
                                mod_dir.join(&name)
                            };
                            let found = found.clone();
                            let child = self.load_file(sources, force, &found, child_path, Some(id), child_dir)?;
                            self.modules[child].vis = vis;
                            self.modules[child].attrs = attrs;
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

    /// The shortest path (`["crate", "api", "v1", "Foo"]`) by which `name` — an item of module `home` with
    /// visibility `vis`, such as the root type kube-derive generates beside its spec — can be named from the crate
    /// root (`external == false`) or from another crate (`external == true`, the first segment then stands for the
    /// crate's name), through `pub mod`s and re-exports (`pub use x::Foo`, `pub use x::*`). `None` when it cannot.
    pub fn nameable_path(&self, home: ModId, name: &str, vis: Vis, external: bool) -> Option<Vec<String>> {
        // Modules reachable from the root, breadth first (so shorter paths come first).
        let mut queue = std::collections::VecDeque::from([0usize]);
        let mut best: Option<Vec<String>> = None;
        while let Some(m) = queue.pop_front() {
            if best.as_ref().is_some_and(|b| b.len() <= self.modules[m].path.len()) {
                break;
            }
            if let Some(exposed) = self.exposed_name(m, home, name, vis, external, 0) {
                let mut path = self.modules[m].path.clone();
                path.push(exposed);
                best = Some(path);
                continue;
            }
            for &child in self.modules[m].children.values() {
                let child_vis = self.modules[child].vis;
                let visible = if external { child_vis == Vis::Public } else { m == 0 || child_vis >= Vis::Crate };
                if visible {
                    queue.push_back(child);
                }
            }
        }
        best
    }

    /// The route by which the compiled fallback's copy of the crate re-exports `name` (of module `home`) up to a
    /// child of the root, when private modules hide it; `None` when the type itself is private to its module (a
    /// re-export cannot make it more visible) or it sits in the root.
    pub fn reexport_route(&self, home: ModId, name: &str, vis: Vis) -> Option<crate::crd::Reexport> {
        if vis < Vis::Crate {
            return None;
        }
        let mut steps = Vec::new();
        let mut child = home;
        while let Some(parent) = self.modules[child].parent.filter(|p| *p != 0) {
            let mut inline = Vec::new();
            let mut m = parent;
            while let Some(up) = self.modules[m].parent.filter(|up| self.modules[*up].file == self.modules[m].file) {
                inline.push(self.modules[m].path.last()?.clone());
                m = up;
            }
            inline.reverse();
            steps.push(crate::crd::ReexportStep {
                module: self.modules[parent].path.last()?.clone(),
                file: self.module_file(parent).to_path_buf(),
                inline,
                child: self.modules[child].path.last()?.clone(),
            });
            child = parent;
        }
        (!steps.is_empty()).then(|| crate::crd::Reexport { name: name.to_string(), steps, tail: Vec::new() })
    }

    /// The name under which `name` (of `home`, visibility `vis`) can be named as `<module m>::<it>` by whoever can
    /// see `m`: itself where it is defined, or what a re-export calls it (`pub use x::Foo as Bar`, `pub use x::*`).
    fn exposed_name(
        &self,
        m: ModId,
        home: ModId,
        name: &str,
        vis: Vis,
        external: bool,
        depth: usize,
    ) -> Option<String> {
        if depth > 8 {
            return None;
        }
        let enough = |v: Vis| if external { v == Vis::Public } else { v >= Vis::Crate || m == 0 };
        if m == home {
            return enough(vis).then(|| name.to_string());
        }
        // What a re-export points at must itself be visible to `m`: within the crate, crate-visible is enough.
        self.modules[m].uses.iter().filter(|u| enough(u.vis)).find_map(|u| {
            if u.glob {
                let t = self.module_of_path(m, &u.path).filter(|t| *t != m)?;
                return self.exposed_name(t, home, name, vis, false, depth + 1);
            }
            let (last, prefix) = u.path.split_last()?;
            let t = self.module_of_path(m, prefix).filter(|t| *t != m)?;
            (self.exposed_name(t, home, name, vis, false, depth + 1).as_deref() == Some(last.as_str()))
                .then(|| u.alias.clone())
        })
    }

    /// The file text of a module.
    pub fn module_text(&self, module: ModId) -> &str {
        &self.files[self.modules[module].file].text
    }

    /// The complete body of a fn (or method) of `module` whose syntax tree is `block`. Indexing keeps only
    /// single-expression bodies (see [`blank_fn_bodies`]); the few fns that must be evaluated in full (custom
    /// schema functions) are parsed here again from the source text, once, with their real lines and columns.
    pub fn full_block(&self, module: ModId, block: &syn::Block) -> Result<Rc<syn::Block>, CrdError> {
        if !block.stmts.is_empty() {
            return Ok(Rc::new(block.clone()));
        }
        let file = self.modules[module].file;
        let (open, close) = (block.brace_token.span.open().start(), block.brace_token.span.close().end());
        let key = (file, open.line, open.column);
        if let Some(b) = self.full_blocks.borrow().get(&key) {
            return Ok(Rc::clone(b));
        }
        let path = &self.files[file].path;
        let text = self.files[file].text.strip_prefix('\u{feff}').unwrap_or(&self.files[file].text);
        let (Some(from), Some(to)) =
            (byte_offset(text, open.line, open.column), byte_offset(text, close.line, close.column))
        else {
            return Err(CrdError::at(
                path,
                block.brace_token.span.open(),
                CrdErrorKind::Parse("fn body out of range".into()),
            ));
        };
        // Padding keeps the lines and columns of the body's tokens those of the file.
        let mut src = "\n".repeat(open.line.saturating_sub(1));
        src.push_str(&" ".repeat(open.column));
        src.push_str(&text[from..to]);
        let parsed: syn::Block =
            syn::parse_str(&src).map_err(|e| CrdError::at(path, e.span(), CrdErrorKind::Parse(e.to_string())))?;
        let parsed = Rc::new(parsed);
        self.full_blocks.borrow_mut().insert(key, Rc::clone(&parsed));
        Ok(parsed)
    }

    /// The ids of the items named `name`, in order.
    fn named(&self, name: &str) -> impl Iterator<Item = ItemId> + '_ {
        self.by_name.get(name).into_iter().flatten().copied()
    }

    /// The items named `name` defined directly in `module`.
    fn item_in(&self, module: ModId, name: &str, want: fn(&ItemKind) -> bool) -> Option<ItemId> {
        self.touch_module(module, name, |s| &s.declared);
        self.named(name).find(|&id| self.items[id].module == module && want(&self.items[id].kind))
    }

    /// Resolve a path (as written in `module`) to a crate item of the kind `want` picks, or to an external path:
    /// [`crate::source::resolve`]'s rules, the ones RBAC inference follows too. A path they lead nowhere in the
    /// crate is external (`["Missing"]` for a name defined nowhere): never a guess.
    pub fn resolve(&self, module: ModId, segs: &[String], want: fn(&ItemKind) -> bool) -> Resolved {
        let key = (module, want as usize);
        if let Some(r) = self.resolved.borrow().get(&key).and_then(|m| m.get(segs)) {
            return r.clone();
        }
        let r = self.resolve_uncached(module, segs, want);
        self.resolved.borrow_mut().entry(key).or_default().insert(segs.to_vec(), r.clone());
        r
    }

    fn resolve_uncached(&self, module: ModId, segs: &[String], want: fn(&ItemKind) -> bool) -> Resolved {
        let file = self.modules[module].file;
        if self.files[file].stub.is_some() {
            // Names are resolved from parsed items only; a stub here is a gap, so load it.
            self.touch(file);
        }
        match resolve::resolve(&Lookup { ix: self, want }, module, segs, &[]) {
            resolve::Res::Item(id) => Resolved::Item(id),
            resolve::Res::External(full) => Resolved::External(self.through_external_glob(module, full)),
            resolve::Res::Module(_) | resolve::Res::Assoc(..) => Resolved::External(segs.to_vec()),
        }
    }

    /// A single name found nowhere: the full path when a glob import of a crate kubesmith knows brings it in
    /// (`use k8s_openapi::api::core::v1::*;` then `Container`).
    fn through_external_glob(&self, module: ModId, full: Vec<String>) -> Vec<String> {
        let [name] = full.as_slice() else { return full };
        let lookup = Lookup { ix: self, want: |_| false };
        for u in resolve::Scopes::globs(&lookup, module) {
            if self.module_of_path(module, &u.path).is_none() {
                let mut path = u.path.clone();
                path.push(name.clone());
                if let Some(known) = known_external(&path) {
                    return known;
                }
            }
        }
        full
    }

    /// The module a path like `crate::a::b`, `super::x`, `self::y`, `v1::inner` (`v1` a child or a module
    /// imported by `use`) names, if it is a crate module.
    pub fn module_of_path(&self, from: ModId, path: &[String]) -> Option<ModId> {
        resolve::module_of_path(&Lookup { ix: self, want: |_| false }, from, path)
    }

    /// The glob `use`s of `module` (a stub that may hold one is loaded).
    fn globs(&self, module: ModId) -> Vec<UseEntry> {
        let file = self.modules[module].file;
        if self.files[file].stub.as_ref().is_some_and(|s| s.globs) {
            self.touch(file);
        }
        self.modules[module].uses.iter().filter(|u| u.glob).cloned().collect()
    }
}

/// The statics of a `lazy_static!` body, as the `static` items they stand for.
struct LazyStatics(Vec<syn::ItemStatic>);

impl syn::parse::Parse for LazyStatics {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let mut out = Vec::new();
        while !input.is_empty() {
            let attrs = input.call(syn::Attribute::parse_outer)?;
            let vis: syn::Visibility = input.parse()?;
            let static_token: syn::Token![static] = input.parse()?;
            input.parse::<syn::Token![ref]>()?;
            let ident: syn::Ident = input.parse()?;
            let colon_token: syn::Token![:] = input.parse()?;
            let ty: syn::Type = input.parse()?;
            let eq_token: syn::Token![=] = input.parse()?;
            let expr: syn::Expr = input.parse()?;
            let semi_token: syn::Token![;] = input.parse()?;
            out.push(syn::ItemStatic {
                attrs,
                vis,
                static_token,
                mutability: syn::StaticMutability::None,
                ident,
                colon_token,
                ty: Box::new(ty),
                eq_token,
                expr: Box::new(expr),
                semi_token,
            });
        }
        Ok(Self(out))
    }
}

/// The crate index as [`resolve::Scopes`]: names defined in a module are the items `want` picks.
struct Lookup<'a> {
    ix: &'a CrateIndex,
    want: fn(&ItemKind) -> bool,
}

impl resolve::Scopes for Lookup<'_> {
    type Mod = ModId;
    type Item = ItemId;

    fn root(&self, _: ModId) -> ModId {
        0
    }

    fn parent(&self, m: ModId) -> Option<ModId> {
        self.ix.modules[m].parent
    }

    fn child(&self, m: ModId, name: &str) -> Option<ModId> {
        self.ix.modules[m].children.get(name).copied()
    }

    fn defined(&self, m: ModId, name: &str) -> Option<ItemId> {
        self.ix.item_in(m, name, self.want)
    }

    fn use_named(&self, m: ModId, name: &str) -> Option<UseEntry> {
        self.ix.use_alias(m, name).cloned()
    }

    fn globs(&self, m: ModId) -> Vec<UseEntry> {
        self.ix.globs(m)
    }

    fn crate_named(&self, _: &str) -> Option<ModId> {
        None
    }
}

/// Result of name resolution.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    /// A crate item.
    Item(ItemId),
    /// Not a crate item: the full path as far as known.
    External(Vec<String>),
}

struct FileCtx {
    file: usize,
    file_dir: PathBuf,
}

/// Paths of external crates whose glob imports we understand.
fn known_external(full: &[String]) -> Option<Vec<String>> {
    let first = full.first()?.as_str();
    matches!(first, "k8s_openapi" | "std" | "core" | "alloc" | "serde_json" | "kube").then(|| full.to_vec())
}

fn type_last_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// Items of a file or inline module, parsed like [`syn::parse_file`] except that the syntax trees of fn bodies
/// that are not a single expression are not built (only single-expression bodies can be evaluated as
/// defaults) and `#[cfg(test)]` modules are skipped. Building every body dominated `make manifests` on
/// crates with many controllers.
struct LazyItems(Vec<syn::Item>);

impl syn::parse::Parse for LazyItems {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        input.call(syn::Attribute::parse_inner)?;
        let mut items = Vec::new();
        while !input.is_empty() {
            if let Some(item) = lazy_item(input)? {
                items.push(item);
            }
        }
        Ok(LazyItems(items))
    }
}

/// `blanked`: [`blank_fn_bodies`] of `text` when the caller has it already.
fn parse_items(text: &str, blanked: Option<String>) -> syn::Result<LazyItems> {
    let (text, blanked) = match text.strip_prefix('\u{feff}') {
        Some(rest) => (rest, None),
        None => (text, blanked),
    };
    // On the whole text: the fn bodies blanked here may be parsed later (`full_block`).
    crate::source::syntax::check_nesting(text).map_err(|m| syn::Error::new(proc_macro2::Span::call_site(), m))?;
    let blanked = blanked.unwrap_or_else(|| blank_fn_bodies(text));
    let raw_docs = scan::raw_doc_comments(&blanked);
    let text = raw_docs.as_ref();
    if text.starts_with("#!") && !text.starts_with("#![") {
        // A shebang line: blank it out, keeping line numbers.
        let end = text.find('\n').unwrap_or(text.len());
        let blanked = format!("{}{}", " ".repeat(end), &text[end..]);
        return syn::parse_str(&blanked);
    }
    syn::parse_str(text)
}

/// Gives back the room syn's attribute lists grew into (a doc comment and a `#[serde(..)]` take two of the four
/// places the first push makes): the index keeps every type's attributes until `make manifests` ends, and on a
/// crate of generated types these spare places were a fifth of its memory.
fn shrink_attrs<'a>(item: &mut Vec<syn::Attribute>, inner: impl Iterator<Item = &'a mut Vec<syn::Attribute>>) {
    item.shrink_to_fit();
    inner.for_each(Vec::shrink_to_fit);
}

/// The byte offset of a 1-based line and 0-based column counted in chars (proc-macro2's `LineColumn`).
fn byte_offset(text: &str, line: usize, column: usize) -> Option<usize> {
    let start = if line <= 1 { 0 } else { text.match_indices('\n').nth(line - 2).map(|(i, _)| i + 1)? };
    let rest = &text[start..];
    match rest.char_indices().nth(column) {
        Some((i, _)) => Some(start + i),
        None if rest.chars().count() == column => Some(text.len()),
        None => None,
    }
}

/// Whether a file holds a marker the CRD generator attaches to a type or field (or a marker it must report).
fn has_crd_markers(markers: &Result<Vec<Marker>, MarkerError>) -> bool {
    markers.as_ref().map_or(true, |ms| ms.iter().any(|m| crate::markers::is_crd_marker(&m.name)))
}

/// A cheap lexical scan deciding whether a file must be parsed: `None` when it declares a module (`mod`
/// outside fn bodies and `#[cfg(test)] mod x { .. }` blocks), else the names a lookup could find in it. The
/// names are a superset: fn bodies and `#[cfg(test)]` modules are skipped (syn's index never looks inside
/// them), everything else that could be an item name, a `use` alias or an impl's self type is kept.
fn prescan(text: &str) -> Option<StubNames> {
    let b = text.as_bytes();
    let n = b.len();
    let mut out = StubNames::default();
    let (mut i, mut depth) = (0usize, 0i32);
    let (mut in_fn_sig, mut in_impl, mut in_use, mut declare_next, mut cfg_test) = (false, false, false, false, false);
    let mut prev_punct = 0u8;
    // Skips whitespace and comments from `k`.
    let skip_trivia = |mut k: usize| {
        while k < n {
            if b[k].is_ascii_whitespace() {
                k += 1;
            } else if b[k] == b'/' && matches!(b.get(k + 1), Some(b'/' | b'*')) {
                k = skip_literal(b, k).unwrap_or(n);
            } else {
                break;
            }
        }
        k
    };
    while i < n {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if let Some(next) = skip_literal(b, i) {
            i = next;
            continue;
        }
        if c.is_ascii_digit() {
            while i < n && is_ident_byte(b[i]) {
                i += 1;
            }
            prev_punct = 0;
            continue;
        }
        if is_ident_byte(c) {
            let start = i;
            while i < n && is_ident_byte(b[i]) {
                i += 1;
            }
            let mut word = &b[start..i];
            let mut raw = None;
            if word == b"r" && b.get(i) == Some(&b'#') && b.get(i + 1).is_some_and(|&c| is_ident_byte(c)) {
                i += 1;
                let s = i;
                while i < n && is_ident_byte(b[i]) {
                    i += 1;
                }
                raw = Some(&b[start..i]);
                word = &b[s..i];
            }
            let add = |set: &mut Vec<u64>| {
                set.push(name_hash(word));
                if let Some(r) = raw {
                    set.push(name_hash(r));
                }
            };
            if in_use {
                add(&mut out.used);
            }
            if in_impl {
                add(&mut out.impls);
            }
            if declare_next {
                add(&mut out.declared);
                // `static mut NAME`: the name comes next.
                declare_next = word == b"mut" || word == b"ref";
            }
            prev_punct = 0;
            if raw.is_some() {
                cfg_test = false;
                continue;
            }
            match word {
                // `fn name`: a declaration whose body is skipped (`fn(..)` is a fn pointer type).
                b"fn" if b.get(skip_trivia(i)).is_some_and(|&c| is_ident_byte(c) && !c.is_ascii_digit()) => {
                    in_fn_sig = true;
                    declare_next = true;
                    depth = 0;
                }
                b"struct" | b"enum" => {
                    in_fn_sig = false;
                    declare_next = true;
                }
                b"type" | b"const" => declare_next = true,
                // `static NAME` declares an item; `&'static str` is a lifetime.
                b"static" if start == 0 || b[start - 1] != b'\'' => {
                    in_fn_sig = false;
                    declare_next = true;
                }
                b"trait" | b"union" | b"static" => in_fn_sig = false,
                b"impl" => {
                    in_impl = true;
                    if !in_fn_sig {
                        depth = 0;
                    }
                }
                b"use" => {
                    in_use = true;
                    in_fn_sig = false;
                }
                b"mod" => {
                    if !cfg_test {
                        return None;
                    }
                    // `#[cfg(test)] mod name { .. }`: skipped, as the index skips it.
                    let k = skip_trivia(i);
                    let name_end = k + b[k..].iter().take_while(|&&c| is_ident_byte(c)).count();
                    let open = skip_trivia(name_end);
                    if name_end == k || b.get(open) != Some(&b'{') {
                        return None;
                    }
                    i = skip_block(b, open);
                    cfg_test = false;
                    continue;
                }
                _ => {}
            }
            if !matches!(word, b"pub" | b"crate" | b"super" | b"self" | b"in") {
                cfg_test = false;
            }
            continue;
        }
        match c {
            b'#' => {
                let k = skip_trivia(i + 1);
                if b.get(k) == Some(&b'[') {
                    // An outer attribute: `#[cfg(test)]` marks the next item.
                    let mut end = k + 1;
                    let mut d = 1;
                    while end < n && d > 0 {
                        if let Some(next) = skip_literal(b, end) {
                            end = next;
                            continue;
                        }
                        match b[end] {
                            b'[' => d += 1,
                            b']' => d -= 1,
                            _ => {}
                        }
                        end += 1;
                    }
                    // Without the closing `]` when there is one (an unterminated `#[` runs to the end of the text).
                    let close = if d == 0 { end - 1 } else { end };
                    let inner = b[k + 1..close].iter().copied().filter(|c| !c.is_ascii_whitespace());
                    if inner.eq(b"cfg(test)".iter().copied()) {
                        cfg_test = true;
                    }
                    i = end;
                    prev_punct = b']';
                    continue;
                }
            }
            b'*' if in_use => out.globs = true,
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b';' if depth == 0 => {
                in_fn_sig = false;
                in_impl = false;
                in_use = false;
            }
            b'{' if depth == 0 && in_fn_sig => {
                i = skip_block(b, i);
                in_fn_sig = false;
                in_impl = false;
                cfg_test = false;
                prev_punct = b'}';
                continue;
            }
            b'{' if depth == 0 && in_impl && !matches!(prev_punct, b'<' | b',' | b'=') => in_impl = false,
            _ => {}
        }
        if !matches!(c, b'(' | b')') {
            cfg_test = false;
        }
        declare_next = false;
        prev_punct = c;
        i += 1;
    }
    for set in [&mut out.declared, &mut out.used, &mut out.impls] {
        set.sort_unstable();
        set.dedup();
    }
    Some(out)
}

/// Whether a fn body may be a single expression (`{ expr }` or `{ return expr; }`): no `;` at its top level,
/// or one closing a leading `return`.
fn maybe_single_expression(body: &proc_macro2::TokenStream) -> bool {
    let tokens: Vec<proc_macro2::TokenTree> = body.clone().into_iter().collect();
    let semis: Vec<usize> = tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| matches!(t, proc_macro2::TokenTree::Punct(p) if p.as_char() == ';'))
        .map(|(i, _)| i)
        .collect();
    match semis.as_slice() {
        [] => true,
        [last] => {
            *last + 1 == tokens.len()
                && matches!(tokens.first(), Some(proc_macro2::TokenTree::Ident(i)) if i == "return")
        }
        _ => false,
    }
}

fn lazy_item(input: syn::parse::ParseStream) -> syn::Result<Option<syn::Item>> {
    let fork = input.fork();
    let attrs = fork.call(syn::Attribute::parse_outer)?;
    let vis: syn::Visibility = fork.parse()?;
    if fork.peek(syn::Token![mod]) {
        let mod_token: syn::Token![mod] = fork.parse()?;
        let ident: syn::Ident = fork.parse()?;
        if fork.peek(syn::token::Brace) {
            let content;
            let brace = syn::braced!(content in fork);
            if is_cfg_test(&attrs) {
                content.parse::<proc_macro2::TokenStream>()?;
                input.advance_to(&fork);
                return Ok(None);
            }
            let inner: LazyItems = content.parse()?;
            input.advance_to(&fork);
            return Ok(Some(syn::Item::Mod(syn::ItemMod {
                attrs,
                vis,
                unsafety: None,
                mod_token,
                ident,
                content: Some((brace, inner.0)),
                semi: None,
            })));
        }
    }
    let sig_fork = fork.fork();
    if let Ok(sig) = sig_fork.parse::<syn::Signature>()
        && sig_fork.peek(syn::token::Brace)
    {
        let content;
        let brace_token = syn::braced!(content in sig_fork);
        let body: proc_macro2::TokenStream = content.parse()?;
        let stmts = if maybe_single_expression(&body) {
            syn::parse::Parser::parse2(syn::Block::parse_within, body)?
        } else {
            Vec::new()
        };
        input.advance_to(&sig_fork);
        return Ok(Some(syn::Item::Fn(syn::ItemFn {
            attrs,
            vis,
            sig,
            block: Box::new(syn::Block { brace_token, stmts }),
        })));
    }
    input.parse().map(Some)
}

/// The span of an item, for errors.
pub fn item_span(kind: &ItemKind) -> proc_macro2::Span {
    match kind {
        ItemKind::Struct(s) => s.ident.span(),
        ItemKind::Enum(e) => e.ident.span(),
        ItemKind::Alias(t) => t.ident.span(),
        ItemKind::Fn(f) => f.sig.ident.span(),
        ItemKind::Const(c) => c.span(),
        ItemKind::Static(st) => st.ident.span(),
    }
}

#[cfg(test)]
mod lazy_tests {
    use super::*;

    #[test]
    fn test_modules_are_blanked_keeping_lines() {
        let src = "fn a() {}\n#[cfg(test)]\nmod tests {\n    fn t() { \"}\"; }\n}\nfn b() {}\n";
        let out = blank_test_modules(src);
        assert_eq!(out.lines().count(), src.lines().count());
        assert!(out.contains("mod tests {") && !out.contains("fn t()") && out.ends_with("}\nfn b() {}\n"), "{out}");
        assert!(matches!(blank_test_modules("fn a() {}"), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn multi_statement_bodies_are_blanked_keeping_lines() {
        let src =
            "fn a() -> u8 { 1 }\nfn b() -> u8 {\n    let x = \"}\";\n    2\n}\nfn c() -> u8 { return 3; }\nstruct S;\n";
        let out = blank_fn_bodies(src);
        assert_eq!(out.len(), src.len());
        assert_eq!(out.lines().count(), src.lines().count());
        assert!(out.contains("fn a() -> u8 { 1 }"));
        assert!(out.contains("fn c() -> u8 { return 3; }"));
        assert!(!out.contains("let x"));
        assert!(out.contains("struct S;"));
        let items = parse_items(src, None).unwrap().0;
        assert_eq!(items.len(), 4);
    }

    #[test]
    fn literals_comments_and_lifetimes_do_not_confuse_the_scanner() {
        let src = r####"
fn life<'a>(x: &'a str) -> &'a str { x }
fn chars() -> char { '{' }
fn raw() -> &'static str { r#"fn x() { a; b; }"# }
/* fn hidden() { a; b; } */
// fn line() { a; b; }
fn bytes() -> u8 { b'}' }
fn esc() -> char { '\'' }
fn big() { let a = 1; let b = '}'; }
trait T { fn decl(&self); fn def(&self) -> u8 { 7 } }
struct After { pub f: u8 }
"####;
        let out = blank_fn_bodies(src);
        for kept in [
            "{ x }",
            "{ '{' }",
            r####"r#"fn x() { a; b; }"#"####,
            "/* fn hidden() { a; b; } */",
            "{ b'}' }",
            "fn decl(&self);",
            "{ 7 }",
            "struct After { pub f: u8 }",
        ] {
            assert!(out.contains(kept), "{kept} missing from\n{out}");
        }
        assert!(!out.contains("let a"));
        parse_items(src, None).unwrap();
    }

    #[test]
    fn cfg_test_module_bodies_are_blanked() {
        let src = "#[cfg(test)]\n#[allow(unused)] // c\npub(crate) mod tests {\n    use super::*;\n    #[test] fn t() { let s = \"}\"; }\n}\nstruct After;\n";
        let out = blank_fn_bodies(src);
        assert_eq!(out.len(), src.len());
        assert_eq!(out.lines().count(), src.lines().count());
        assert!(!out.contains("use super") && out.contains("mod tests {") && out.contains("struct After;"), "{out}");
        assert_eq!(parse_items(src, None).unwrap().0.len(), 1);
        // Not a test module: kept.
        for kept in ["#[cfg(not(test))]\nmod m { struct S; }\n", "#[cfg(test)]\nfn f() { a; b; }\n"] {
            let out = blank_fn_bodies(kept);
            assert!(out.contains("mod m { struct S; }") || out.contains("fn f() {"), "{out}");
        }
    }

    #[test]
    fn full_blocks_are_parsed_again_with_their_lines() {
        let dir = tempfile::tempdir().expect("tempdir");
        let src = "// é\npub struct S;\nimpl S {\n    fn m() -> u8 {\n        let a = \"}\";\n        1\n    }\n}\nfn f() -> u8 {\n  let x = 1;\n  x }\nfn one() -> u8 { 2 }\npub static ST: u8 = 3;\n";
        std::fs::write(dir.path().join("lib.rs"), src).expect("write");
        let force: BTreeSet<PathBuf> = [dir.path().join("lib.rs")].into();
        let ix = CrateIndex::load_with(&SourceSet::new(dir.path()), &force).expect("load");
        let f = ix.items.iter().find(|i| i.name == "f").expect("f");
        let ItemKind::Fn(f) = &f.kind else { panic!("fn") };
        assert!(f.block.stmts.is_empty(), "multi-statement bodies are not indexed");
        let full = ix.full_block(0, &f.block).expect("parse");
        assert_eq!(full.stmts.len(), 2);
        assert_eq!(full.stmts[0].span().start().line, 10);
        assert_eq!(full.stmts[1].span().start().column, 2);
        assert!(Rc::ptr_eq(&full, &ix.full_block(0, &f.block).expect("cached")));
        let m = ix.impls[0].item.items.iter().find_map(|i| match i {
            syn::ImplItem::Fn(m) => Some(m),
            _ => None,
        });
        let full = ix.full_block(0, &m.expect("method").block).expect("parse method");
        assert_eq!(full.stmts.len(), 2);
        assert_eq!(full.stmts[0].span().start().line, 5);
        assert!(ix.items.iter().any(|i| i.name == "ST" && matches!(i.kind, ItemKind::Static(_))));
        let one = ix.items.iter().find(|i| i.name == "one").expect("one");
        let ItemKind::Fn(one) = &one.kind else { panic!("fn") };
        assert_eq!(ix.full_block(0, &one.block).expect("kept").stmts.len(), 1);
    }

    #[test]
    fn byte_offsets_count_chars() {
        let text = "ab\nçd\n";
        assert_eq!(byte_offset(text, 1, 1), Some(1));
        assert_eq!(byte_offset(text, 2, 1), Some(5));
        assert_eq!(byte_offset(text, 3, 0), Some(text.len()));
        assert_eq!(byte_offset(text, 9, 0), None);
    }

    #[test]
    fn cfg_test_modules_are_skipped() {
        let src = "#[cfg(test)]\nmod tests { pub struct Hidden; }\nmod inline { pub struct Seen; }\n";
        let items = parse_items(src, None).unwrap().0;
        assert_eq!(items.len(), 1);
    }
}

#[cfg(test)]
mod stub_tests {
    use super::*;
    use crate::crd::{CrdErrors, GeneratedCrd, K8sTable};

    fn names(text: &str) -> StubNames {
        prescan(text).expect("no module declared")
    }

    #[test]
    fn prescan_finds_modules_outside_test_modules_and_fn_bodies() {
        assert!(prescan("pub mod api;\n").is_none());
        assert!(prescan("mod inline { pub struct S; }\n").is_none());
        assert!(prescan("#[cfg(test)]\nmod tests;\n").is_none(), "out-of-line test modules are parsed");
        assert!(
            prescan("#[cfg(test)]\n#[allow(unused)]\npub(crate) mod tests { mod x; }\nfn f() { mod y {} }\n").is_some()
        );
        assert!(prescan("// mod a;\n/* mod b; */\nconst S: &str = \"mod c;\";\nfn r#mod() {}\n").is_some());
        assert!(prescan("#[cfg(not(test))]\nmod tests {}\n").is_none());
    }

    #[test]
    fn prescan_keeps_every_name_a_lookup_could_find() {
        let s = names(
            "use crate::{api::Kind1, api::Kind1Status as St};\n\
             pub const NAME: &str = \"x\";\n\
             pub static SCHEMA: &'static str = \"{}\";\nstatic mut COUNTER: u8 = 0;\n\
             type Alias = u8;\n\
             pub struct Holder { f: fn(u8) -> u8 }\n\
             use other::Later;\n\
             pub fn run(obj: Kind1) -> Result<()> { struct Hidden; let x = Kind1Status::default(); }\n\
             impl<T> Default for Wrapper<T> where T: Clone { fn default() -> Self { todo!() } }\n\
             enum r#Raw { A }\n\
             #[cfg(test)]\nmod tests { pub struct InTests; use super::*; }\n",
        );
        for declared in ["NAME", "Alias", "Holder", "run", "Raw", "r#Raw", "SCHEMA", "COUNTER"] {
            assert!(has_name(&s.declared, declared), "{declared}");
        }
        for hidden in ["Hidden", "InTests", "Kind1", "str"] {
            assert!(!has_name(&s.declared, hidden), "{hidden}");
        }
        for used in ["Kind1", "Kind1Status", "St", "Later"] {
            assert!(has_name(&s.used, used), "{used}");
        }
        assert!(!has_name(&s.used, "Holder"));
        assert!(has_name(&s.impls, "Wrapper") && has_name(&s.impls, "Default"));
        assert!(!has_name(&s.impls, "Kind1"));
    }

    #[test]
    fn prescan_skips_bodies_whatever_they_hold() {
        let s = names(
            "fn a() { let s = r#\"} mod x;\"#; let t = \"}\\\"}\"; let c = '}'; let l: &'static str = \"\"; }\n\
             fn b() { let u = br\"}\"; let v = b'}'; /* } mod y; */ // }\n let w = cr#\"}\"#; { { } } }\n\
             pub struct After;\n",
        );
        assert!(has_name(&s.declared, "After") && has_name(&s.declared, "a") && has_name(&s.declared, "b"));
    }

    const SPEC: &str = r#"
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use crate::reexport::Renamed;
use crate::types::*;

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "a.example.com", version = "v1", kind = "Foo", namespaced)]
pub struct FooSpec {
    pub inner: crate::types::Inner,
    pub other: Other,
    pub renamed: Renamed,
    #[serde(default)]
    pub defaulted: WithDefault,
}
"#;

    const TYPES: &str = r#"
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
/// Inner docs.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Inner { pub a: u8 }
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Other { pub b: String }
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Target { pub c: bool }
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct WithDefault { pub d: u32 }
"#;

    const CONTROLLER: &str = r#"
// +kubebuilder:rbac:groups=a.example.com,resources=foos,verbs=get
use crate::api::{Foo, FooSpec};
pub const NAME: &str = "foo";
pub fn reconcile(obj: Foo) -> FooSpec { let spec = obj.spec; spec }
#[cfg(test)]
mod tests { use super::*; #[test] fn t() { let _ = NAME; } }
"#;

    fn write(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        for (path, text) in files {
            let p = dir.path().join("src").join(path);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, text).expect("write");
        }
        dir
    }

    #[test]
    fn paths_resolve_through_glob_imported_modules_renames_and_lazy_statics() {
        let src = "pub mod paths {\n\
                   pub mod v1 { pub struct Status; }\n\
                   pub mod v2 { pub struct Status; }\n\
                   pub mod kinds {\n\
                       use super::*;\n\
                       use super::v2 as second;\n\
                       use second::Status as Two;\n\
                       lazy_static::lazy_static! { static ref RE: regex::Regex = regex::Regex::new(\"x\").unwrap(); }\n\
                   }\n\
                   }\n";
        let dir = write(&[("lib.rs", src)]);
        let ix = CrateIndex::load(&SourceSet::new(&dir.path().join("src"))).expect("load");
        let kinds = ix.modules.iter().position(|m| m.path == ["crate", "paths", "kinds"]).expect("module");
        let segs = |p: &str| p.split("::").map(str::to_string).collect::<Vec<_>>();
        let module_of = |r: Resolved| match r {
            Resolved::Item(id) => ix.modules[ix.items[id].module].path.join("::"),
            other => format!("{other:?}"),
        };
        let types = |k: &ItemKind| matches!(k, ItemKind::Struct(_));
        assert_eq!(module_of(ix.resolve(kinds, &segs("v1::Status"), types)), "crate::paths::v1");
        assert_eq!(module_of(ix.resolve(kinds, &segs("v2::Status"), types)), "crate::paths::v2");
        assert_eq!(module_of(ix.resolve(kinds, &segs("second::Status"), types)), "crate::paths::v2");
        assert_eq!(module_of(ix.resolve(kinds, &segs("Two"), types)), "crate::paths::v2");
        assert_eq!(module_of(ix.resolve(kinds, &segs("self::super::v1::Status"), types)), "crate::paths::v1");
        assert_eq!(ix.resolve(kinds, &segs("Status"), types), Resolved::External(segs("Status")), "never a guess");
        let statics = |k: &ItemKind| matches!(k, ItemKind::Static(_));
        assert_eq!(module_of(ix.resolve(kinds, &segs("RE"), statics)), "crate::paths::kinds");
        // A glob of another crate leads to no module of this one.
        let ext = "use k8s_openapi::api::core::v1::*;\nuse chrono::*;\npub mod a { use super::*; }\n";
        let dir = write(&[("lib.rs", ext)]);
        let ix = CrateIndex::load(&SourceSet::new(&dir.path().join("src"))).expect("load");
        assert_eq!(ix.module_of_path(1, &segs("v1::Pod")), None);
    }

    #[test]
    fn files_naming_a_group_or_crd_in_an_attribute_are_parsed() {
        assert!(names_api_group_or_crd("#[loom::resource(group = \"a.b\")]\npub struct S;"));
        assert!(names_api_group_or_crd("#[versioned(crd(group = \"a.b\"))]\npub struct S;"));
        assert!(!names_api_group_or_crd("#[derive(Debug)]\npub struct S { group: u8 }\nconst X: bool = group == 1;"));
        assert!(!names_api_group_or_crd("pub fn f() {}"));
        assert!(names_api_group_or_crd("#[kube(kind = \"A\")]\npub struct ASpec;"));
        // RBAC markers and comments name groups; serde renames and fields only contain the letters.
        let controller = "// +kubebuilder:rbac:groups=a.b,resources=cs,verbs=get\n// the crd of the group = x\n#[instrument(skip(ctx))]\nasync fn f() {}";
        assert!(!names_api_group_or_crd(controller));
        assert!(!names_api_group_or_crd("#[serde(rename = \"crdName\", default = \"subgroup\")]\npub x: u8,"));
    }

    #[test]
    fn prescan_declares_lazy_static_refs() {
        let stub = prescan("lazy_static::lazy_static! { static ref NAME_RE: Regex = make(); }\n").expect("stub");
        assert!(has_name(&stub.declared, "NAME_RE"));
    }

    /// The nameable paths of the root type `name` generated beside the spec in module `at` (from the crate root,
    /// from another crate).
    fn paths_of(files: &[(&str, &str)], at: &[&str], name: &str) -> (Option<String>, Option<String>) {
        let dir = write(files);
        let all: BTreeSet<PathBuf> = files.iter().map(|(p, _)| dir.path().join("src").join(p)).collect();
        let ix = CrateIndex::load_with(&SourceSet::new(&dir.path().join("src")), &all).expect("load");
        let at: Vec<String> = at.iter().map(|s| s.to_string()).collect();
        let home = ix.modules.iter().position(|m| m.path == at).expect("module");
        let show = |p: Option<Vec<String>>| p.map(|p| p.join("::"));
        (show(ix.nameable_path(home, name, Vis::Public, false)), show(ix.nameable_path(home, name, Vis::Public, true)))
    }

    #[test]
    fn kinds_are_named_through_public_modules_and_re_exports() {
        // The scaffold: a private module per kind, re-exported by its version module.
        let scaffold = [
            ("lib.rs", "pub mod api;\n"),
            ("api.rs", "pub mod v1;\n"),
            ("api/v1.rs", "mod cluster;\npub use cluster::*;\n"),
            ("api/v1/cluster.rs", "pub struct ClusterSpec;\n"),
        ];
        let both = Some("crate::api::v1::Cluster".to_string());
        assert_eq!(paths_of(&scaffold, &["crate", "api", "v1", "cluster"], "Cluster"), (both.clone(), both));
        // A binary's private module: nameable from its own root only.
        let bin = [("main.rs", "mod kinds;\nfn main() {}\n"), ("kinds.rs", "pub mod v1 { pub struct GSpec; }\n")];
        let own = Some("crate::kinds::v1::G".to_string());
        assert_eq!(paths_of(&bin, &["crate", "kinds", "v1"], "G"), (own, None));
        // A named re-export at the root wins over the long path; a private grandchild without one is unnameable.
        let reexport = [
            ("lib.rs", "mod inner;\npub use inner::deep::Thing;\n"),
            ("inner.rs", "pub mod deep { pub struct ThingSpec; }\n"),
        ];
        let short = Some("crate::Thing".to_string());
        assert_eq!(paths_of(&reexport, &["crate", "inner", "deep"], "Thing"), (short.clone(), short));
        let renamed =
            [("lib.rs", "mod inner;\npub use inner::Thing as Other;\n"), ("inner.rs", "pub struct ThingSpec;\n")];
        let other = Some("crate::Other".to_string());
        assert_eq!(paths_of(&renamed, &["crate", "inner"], "Thing"), (other.clone(), other));
        let hidden = [("lib.rs", "mod a;\n"), ("a.rs", "mod b { pub struct HidSpec; }\n")];
        assert_eq!(paths_of(&hidden, &["crate", "a", "b"], "Hid"), (None, None));
    }

    /// Lazy generation and generation with every file parsed.
    fn lazy_and_full(
        files: &[(&str, &str)],
    ) -> (Result<Vec<GeneratedCrd>, CrdErrors>, Result<Vec<GeneratedCrd>, CrdErrors>) {
        let dir = write(files);
        let set = SourceSet::new(&dir.path().join("src"));
        let lazy = crate::crd::generate(&set);
        let all: BTreeSet<PathBuf> = files.iter().map(|(p, _)| dir.path().join("src").join(p)).collect();
        let ix = CrateIndex::load_with(&set, &all).expect("load");
        assert!(ix.files.iter().all(|f| f.stub.is_none()));
        let full = crate::crd::generate_from(&ix, K8sTable::default_table(), &Default::default()).into_result();
        assert!(ix.take_touched().is_empty());
        (lazy, full)
    }

    /// A file whose only `CustomResource`s are test kinds in a `#[cfg(test)]` module (as the scaffold's shared
    /// webhook module has) is prescanned, not parsed, and the CRDs are those of a full parse.
    #[test]
    fn test_only_custom_resources_do_not_force_a_parse() {
        let webhook = "pub fn handle() {}\n#[cfg(test)]\nmod tests {\n    use kube::CustomResource;\n    \
                       #[derive(CustomResource)]\n    #[kube(group = \"t.io\", version = \"v1\", kind = \"W\")]\n    \
                       pub struct WSpec {}\n}\n";
        let mut files = crate_files("");
        files[0].1.push_str("pub mod webhook;\n");
        files.push(("webhook.rs", webhook.to_string()));
        let (lazy, full) = lazy_and_full(&refs(&files));
        assert_eq!(lazy.expect("lazy"), full.expect("full"));
        let dir = write(&refs(&files));
        let ix = CrateIndex::load_with(&SourceSet::new(&dir.path().join("src")), &BTreeSet::new()).expect("load");
        let file = ix.files.iter().find(|f| f.path.ends_with("webhook.rs")).expect("webhook.rs is indexed");
        assert!(file.stub.is_some(), "prescanned, not parsed");
        let api = ix.files.iter().find(|f| f.path.ends_with("api.rs")).expect("api.rs is indexed");
        assert!(api.stub.is_none(), "the file with the kind is parsed");
    }

    const DEFAULT: &str =
        "use crate::types::WithDefault;\nimpl Default for WithDefault { fn default() -> Self { Self { d: 7 } } }\n";

    /// The crate; `more` is appended to `more.rs`, which holds the `impl Default` the spec needs.
    fn crate_files(more: &str) -> Vec<(&'static str, String)> {
        vec![
            ("lib.rs", "pub mod api;\npub mod types;\npub mod reexport;\npub mod controller;\npub mod more;\n".into()),
            ("api.rs", SPEC.into()),
            ("types.rs", TYPES.into()),
            ("reexport.rs", "pub use crate::types::Target as Renamed;\n".into()),
            ("controller.rs", CONTROLLER.into()),
            ("more.rs", format!("{DEFAULT}{more}")),
        ]
    }

    fn refs<'a>(files: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
        files.iter().map(|(p, t)| (*p, t.as_str())).collect()
    }

    #[test]
    fn stubs_a_lookup_leads_into_are_parsed() {
        let (lazy, full) = lazy_and_full(&refs(&crate_files("")));
        let (lazy, full) = (lazy.expect("lazy"), full.expect("full"));
        assert_eq!(lazy, full);
        let spec = &lazy[0].crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
        assert_eq!(spec["properties"]["inner"]["description"], "Inner docs.");
        assert_eq!(spec["properties"]["renamed"]["properties"]["c"]["type"], "boolean");
        assert_eq!(spec["properties"]["defaulted"]["default"], serde_json::json!({"d": 7}), "impl Default in a stub");
    }

    #[test]
    fn impls_in_stubs_count() {
        let manual = "impl schemars::JsonSchema for crate::types::Other {\n    fn json_schema(_: &mut SchemaGenerator) -> Schema {\n        let mut s = schemars::json_schema!({ \"type\": \"string\" });\n        s.insert(\"format\".into(), \"x\".into());\n        s\n    }\n}\n";
        let (lazy, full) = lazy_and_full(&refs(&crate_files(manual)));
        let (lazy, full) = (lazy.expect("hand-written JsonSchema"), full.expect("hand-written JsonSchema"));
        assert_eq!(lazy, full);
        let spec = &lazy[0].crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
        assert_eq!(spec["properties"]["other"], serde_json::json!({"type": "string", "format": "x"}));
    }

    #[test]
    fn a_name_defined_twice_is_the_one_imported() {
        let (lazy, full) = lazy_and_full(&refs(&crate_files("pub struct Other { pub z: u8 }\n")));
        let (lazy, full) = (lazy.expect("lazy"), full.expect("full"));
        assert_eq!(lazy, full);
        let spec = &lazy[0].crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
        assert_eq!(spec["properties"]["other"]["properties"]["b"]["type"], "string", "types::Other, through the glob");
    }

    #[test]
    fn controllers_stay_stubs() {
        let dir = write(&refs(&crate_files("")));
        let set = SourceSet::new(&dir.path().join("src"));
        let mut parse = BTreeSet::new();
        let mut rounds = 0;
        loop {
            rounds += 1;
            let ix = CrateIndex::load_with(&set, &parse).expect("load");
            let out = crate::crd::generate_from(&ix, K8sTable::default_table(), &Default::default());
            let touched = ix.take_touched();
            if touched.is_empty() {
                out.into_result().expect("generate");
                break;
            }
            parse.extend(touched);
        }
        let names: Vec<String> =
            parse.iter().map(|p| p.file_name().unwrap_or_default().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["more.rs", "reexport.rs", "types.rs"], "only what the spec needs, after {rounds} rounds");
    }
}
