//! Module discovery and the crate index: every struct, enum, type alias, fn, const, static and impl, with its
//! module path and the `use` declarations needed to resolve the names written in field types; the full body of
//! a fn on demand ([`CrateIndex::full_block`]), since the index itself keeps only single-expression bodies.
//!
//! Discovery follows `mod` from `lib.rs`/`main.rs` (file, inline, `#[path]`); a source folder with neither takes the
//! root its `Cargo.toml` declares. The index parses only files that can matter (`CustomResource` outside fn bodies and
//! `#[cfg(test)]` modules, module declarations, CRD markers, attributes naming an API group or `crd`) and keeps the
//! others as stubs with the names a lexical scan finds (`prescan`); a lookup a stub could answer makes `generate`
//! load again with it parsed, so the result is that of the fully parsed crate. Its parts: `load` (the index as a
//! [`Store`](crate::source::module_files::Store) of the one module loader, which RBAC's crates share),
//! `scan` (lexical passes before syn, and `raw_doc_comments`, which hands syn each doc comment as the
//! `#[doc = r"..."]` it stands for),
//! `docs` (runs of `///` lines lifted and put back as one attribute; a run it cannot put back, or a syntax error,
//! makes the file be parsed with `raw_doc_comments`), `serde_lift` (plain `#[serde(..)]` attributes lifted the same
//! way and put back as built tokens), `deps` (the types of dependencies that may hold kinds' types,
//! under their crate's name, never the crate's own kinds), `cfg` (`#[cfg_attr(P, ..)]` read where P is `not(test)`,
//! `not(doctest)` or the predicate the type derives `JsonSchema` under; no other cfg is evaluated), `fast` (struct
//! items with plain-path field types read token by token) and `sources` (the [`SourceSet`]: every `.rs` file read
//! once per command, each text and what a first load learned of it, `FileFacts`, shared by every index of the set
//! and its clones). The index is a [`crate::source::resolve::Scopes`] like the other readers of Rust.
//!
//! **Invariant:** every pass keeps lines, and columns before what it changes, so spans of the parsed text point into
//! the original.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use syn::parse::discouraged::Speculative;
use syn::spanned::Spanned;

use super::error::{CrdError, CrdErrorKind};
use super::k8s::K8sTable;
use super::type_names::Named;
use crate::markers::{Marker, MarkerError};
use crate::source::lex::{blank_fn_bodies, raw_doc_comments};
use crate::source::resolve;
use crate::source::reverse::{self, Exposes};
use crate::source::syntax::is_cfg_test;
pub use crate::source::syntax::{UseEntry, Vis, unraw};

mod assoc;
mod cfg;
pub(crate) mod code;
mod deps;
mod docs;
mod fast;
mod load;
mod prescan;
mod scan;
mod serde_lift;
mod sources;
pub use assoc::Owner;
pub use prescan::StubNames;
use prescan::{has_name, name_hash};
use sources::FileFacts;
pub(crate) use sources::LARGE_CRATE;
pub use sources::SourceSet;

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
    /// Whether the file derives `CustomResource` and another part of a split generation owns it
    /// ([`Part::owns`]): parsed here only when a lookup needs it, its kinds are that part's to generate.
    pub elsewhere: bool,
}

/// A module of the crate: the one module type ([`crate::source::module_files::Module`]), naming files by their index
/// in [`CrateIndex::files`], with its `mod` declaration's [`ModDecl`](crate::source::module_files::ModDecl).
pub type Module = crate::source::module_files::Module<usize, std::convert::Infallible>;

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

impl ItemKind {
    /// A struct, an enum or a type alias: what a type path may name.
    pub fn is_type(&self) -> bool {
        matches!(self, Self::Struct(_) | Self::Enum(_) | Self::Alias(_))
    }

    /// A fn.
    pub fn is_fn(&self) -> bool {
        matches!(self, Self::Fn(_))
    }

    /// A fn, a const or a static: what lives in the value namespace alone.
    pub fn is_value(&self) -> bool {
        matches!(self, Self::Fn(_) | Self::Const(_) | Self::Static(_))
    }

    /// A const or an immutable static: what a value path the evaluators read may name (a `static mut` may change
    /// at run time, so its initializer is not its value).
    pub fn is_constant(&self) -> bool {
        match self {
            Self::Const(_) => true,
            Self::Static(s) => matches!(s.mutability, syn::StaticMutability::None),
            _ => false,
        }
    }
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

/// Fn bodies parsed again, append-only so that a body borrowed from it lives as long as the index.
#[derive(Default)]
struct FullBlocks(elsa::FrozenMap<(usize, usize, usize), Box<syn::Block>>);

impl std::fmt::Debug for FullBlocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FullBlocks")
    }
}

impl std::ops::Deref for FullBlocks {
    type Target = elsa::FrozenMap<(usize, usize, usize), Box<syn::Block>>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

/// Resolutions of the paths written in one module, by path.
type ResolvedPaths = FastMap<Vec<String>, Resolved>;

/// A map hashed with foldhash, for the index's hot lookups (names, resolutions), where std's SipHash showed in profiles.
type FastMap<K, V> = foldhash::HashMap<K, V>;

/// A map by path hashed with foldhash: every part of a split generation looks each file of the crate up a few times
/// (its text, its scanned markers, its owner), and std's SipHash of those paths cost ~1 % of the wide bench crate's run.
pub(crate) type PathMap<V> = foldhash::HashMap<PathBuf, V>;

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
    /// Impl blocks (of parsed files; looked up through [`crate::source::impls`], the index answering its `Impls`).
    pub impls: Vec<ImplBlock>,
    /// Unions (never a schema; kept so a `#[derive(CustomResource)]` on one is reported).
    pub unions: Vec<(ModId, syn::ItemUnion)>,
    /// Files that do not parse and `mod` declarations without a file: reported, the rest of the crate still read.
    pub problems: Vec<CrdError>,
    /// The features the crate's `Cargo.toml` turns on for schemars (`chrono04`, `uuid1`, ...: which foreign types
    /// have a schema); `None` without a manifest.
    pub schemars_features: Option<BTreeSet<String>>,
    /// The schemars generation the crate derives its schemas with (its lock's schemars).
    pub dialect: super::dialect::Dialect,
    /// The kube-core schema rewriting the crate's `crd()` runs (its lock's kube-core).
    pub rewriter: super::dialect::Rewriter,
    /// Stub files (indexes into `files`) a lookup needed.
    touched: RefCell<BTreeSet<usize>>,
    /// The crate's source folder.
    src_dir: Option<PathBuf>,
    /// Lib roots of the crate's kube-dependent dependencies by crate name ([`deps`]).
    /// (The [`SourceSet`]'s, shared by every index of it.)
    dependency_roots: Arc<std::sync::OnceLock<BTreeMap<String, PathBuf>>>,
    /// Dependency lib roots a lookup needed.
    wanted: RefCell<BTreeSet<PathBuf>>,
    /// The dependency crates loaded beside the crate's own: crate name, root module.
    crates: Vec<(String, ModId)>,
    /// How many of `items`, `files` and `unions` are the crate's own (the rest are its dependencies').
    own: Option<(usize, usize, usize)>,
    /// Item ids by name, in id order.
    by_name: FastMap<String, Vec<ItemId>>,
    /// The stubs by the hashes of the identifiers of their `impl` headers.
    stubs_by_impl: FastMap<u64, Vec<usize>>,
    /// The stubs by the hashes of the type names their type aliases' targets may end with.
    stubs_by_alias: FastMap<u64, Vec<usize>>,
    /// The stubs with impls or aliases, by the hashes of the names their `use .. as` rename (an impl or an alias
    /// there may name the type by its new name).
    stubs_by_rename: FastMap<u64, Vec<usize>>,
    /// Fn bodies parsed again from the source text ([`CrateIndex::full_block`]), by file and opening brace.
    full_blocks: FullBlocks,
    /// [`CrateIndex::resolve`]'s answers by module and item filter (the same few names are resolved for every field
    /// of a module: `Option`, `String`, ...). The index does not change once loaded, and the stubs a first
    /// resolution touched stay recorded, so an answer given again is the one computed again.
    resolved: RefCell<FastMap<(ModId, usize), ResolvedPaths>>,
    /// The part of a split generation this index is for ([`CrateIndex::load_part`]); `None`: the whole crate.
    part: Option<Part>,
    /// What the type paths classified so far name ([`CrateIndex::type_named`]).
    type_names: TypeNames,
    /// The kind types the parsed files' derives generate ([`CrateIndex::generated`]).
    generated: std::cell::OnceCell<code::GeneratedKinds>,
    /// [`CrateIndex::renames`], worked out when first asked.
    renames: std::cell::OnceCell<FastMap<String, Vec<String>>>,
    /// [`CrateIndex::aliases_by_target`], worked out when first asked.
    aliases: std::cell::OnceCell<FastMap<String, Vec<ItemId>>>,
}

/// [`CrateIndex::type_named`]'s memo, and the buffer its keys are written in.
#[derive(Default)]
struct TypeNames {
    named: elsa::FrozenMap<Vec<u8>, Box<Named>, foldhash::fast::RandomState>,
    key: RefCell<Vec<u8>>,
}

impl std::fmt::Debug for TypeNames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TypeNames")
    }
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
    pub owners: std::sync::Arc<PathMap<usize>>,
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
        // The lib target (`[lib] path` honoured), else lib.rs or main.rs, else a binary the manifest declares in the
        // folder (`[[bin]] path = "version.rs"`).
        let read = |p: &Path| sources.read_text(p);
        let root = crate::source::workspace::crate_root(dir, &read)
            .ok_or_else(|| CrdError::file(&dir.join("lib.rs"), CrdErrorKind::NoCrateRoot))?;
        let package = sources.package();
        let mut index = CrateIndex {
            part,
            schemars_features: package.schemars_features.clone(),
            dialect: package.dialect,
            rewriter: package.rewriter,
            src_dir: Some(dir.to_path_buf()),
            dependency_roots: sources.dependency_roots.clone(),
            ..CrateIndex::default()
        };
        load::load(&mut index, sources, force, &root, vec!["crate".into()])?;
        index.finish(sources, force)?;
        Ok(index)
    }

    /// The index of every target of the package whose sources are `sources` — the library (or `main.rs`) as the
    /// crate, then each binary as a crate of its own that names the library by its crate name — for the readers of
    /// code that may live in a binary (`merge_crds` calls in a `crdgen`). Parsed and stubbed like
    /// [`CrateIndex::load_with`]; a target whose root cannot be read is a problem, the others are still read.
    pub(crate) fn load_targets(sources: &SourceSet, force: &BTreeSet<PathBuf>) -> Result<Self, CrdError> {
        let dir = sources.src_dir();
        let read = |p: &Path| sources.read_text(p);
        let mut roots = crate::source::workspace::crate_roots(dir, &read);
        // The library first: a crate name names it even when a binary shares it.
        roots.sort_by_key(|(_, _, is_bin)| *is_bin);
        let mut index = CrateIndex {
            src_dir: Some(dir.to_path_buf()),
            dependency_roots: sources.dependency_roots.clone(),
            ..CrateIndex::default()
        };
        for (name, root, is_bin) in roots {
            if !sources.exists(&root) {
                let why = format!("{} does not exist; fix the target's `path` in Cargo.toml", root.display());
                index.problems.push(CrdError::file(&root, CrdErrorKind::Io(why)));
                continue;
            }
            let id = load::load(&mut index, sources, force, &root, vec!["crate".into()])?;
            if !is_bin {
                index.crates.push((name, id));
            }
        }
        if index.modules.is_empty() {
            return Err(CrdError::file(&dir.join("lib.rs"), CrdErrorKind::NoCrateRoot));
        }
        index.finish(sources, force)?;
        Ok(index)
    }

    /// What follows the crate's own modules: its dependencies, and the lookups by name.
    fn finish(&mut self, sources: &SourceSet, force: &BTreeSet<PathBuf>) -> Result<(), CrdError> {
        let index = self;
        index.own = Some((index.items.len(), index.files.len(), index.unions.len()));
        index.load_dependencies(sources, force)?;
        for (id, item) in index.items.iter().enumerate() {
            index.by_name.entry(item.name.clone()).or_default().push(id);
        }
        for (f, file) in index.files.iter().enumerate() {
            if let Some(stub) = &file.stub {
                for &h in &stub.impls {
                    index.stubs_by_impl.entry(h).or_default().push(f);
                }
                for &h in &stub.aliased {
                    index.stubs_by_alias.entry(h).or_default().push(f);
                }
                if !stub.impls.is_empty() || !stub.aliased.is_empty() {
                    for &h in &stub.renamed {
                        index.stubs_by_rename.entry(h).or_default().push(f);
                    }
                }
            }
        }
        Ok(())
    }

    /// The paths of the stub files some lookup needed since the index was loaded (empty: the results so far
    /// are those of a fully parsed crate).
    pub fn take_touched(&self) -> BTreeSet<PathBuf> {
        let mut out: BTreeSet<PathBuf> =
            std::mem::take(&mut *self.touched.borrow_mut()).into_iter().map(|f| self.files[f].path.clone()).collect();
        out.append(&mut self.wanted.borrow_mut());
        out
    }

    /// The crate's own items (not its dependencies'), with their ids.
    pub fn own_items(&self) -> impl Iterator<Item = (ItemId, &Item)> {
        self.items.iter().enumerate().take(self.own.map_or(self.items.len(), |o| o.0))
    }

    /// The crate's own files (not its dependencies'), with their indexes.
    pub fn own_files(&self) -> impl Iterator<Item = (usize, &SourceFile)> {
        self.files.iter().enumerate().take(self.own.map_or(self.files.len(), |o| o.1))
    }

    /// Whether the kinds `module` derives are another part's to generate ([`SourceFile::elsewhere`]).
    pub(crate) fn generated_elsewhere(&self, module: ModId) -> bool {
        self.files[self.modules[module].file].elsewhere
    }

    /// The crate's own unions.
    pub fn own_unions(&self) -> &[(ModId, syn::ItemUnion)] {
        &self.unions[..self.own.map_or(self.unions.len(), |o| o.2)]
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

    /// Records every stub that may write an impl for a type named `name`: by that name, or by a name its own
    /// `use .. as` gives it.
    fn touch_impl_stubs(&self, name: &str) {
        self.touch_stubs(&self.stubs_by_impl, name);
        self.touch_stubs(&self.stubs_by_rename, name);
    }

    /// Records every stub that may declare a type alias of a type named `name` (by that name or a rename of it).
    fn touch_alias_stubs(&self, name: &str) {
        self.touch_stubs(&self.stubs_by_alias, name);
        self.touch_stubs(&self.stubs_by_rename, name);
    }

    fn touch_stubs(&self, by_name: &FastMap<u64, Vec<usize>>, name: &str) {
        // Most crates have no stub with aliases or renames: nothing to hash.
        if by_name.is_empty() {
            return;
        }
        for &f in by_name.get(&name_hash(name.as_bytes())).into_iter().flatten() {
            self.touch(f);
        }
    }

    /// The type aliases of the parsed modules (the dependencies' too) by the last segment of the path they stand
    /// for (`type A = v1::Limits;` under `Limits`).
    pub(super) fn aliases_by_target(&self) -> &FastMap<String, Vec<ItemId>> {
        self.aliases.get_or_init(|| {
            let mut out: FastMap<String, Vec<ItemId>> = FastMap::default();
            for (id, item) in self.items.iter().enumerate() {
                if let ItemKind::Alias(a) = &item.kind
                    && let Some(last) = crate::source::lex::type_path_segs(&a.ty).and_then(|mut s| s.pop())
                {
                    out.entry(last).or_default().push(id);
                }
            }
            out
        })
    }

    /// The names `use .. as` declarations of the parsed modules give, by the last segment of the path they rename.
    pub(super) fn renames(&self) -> &FastMap<String, Vec<String>> {
        self.renames.get_or_init(|| {
            let mut out: FastMap<String, Vec<String>> = FastMap::default();
            for u in self.modules.iter().flat_map(|m| m.uses()) {
                if let Some(last) = u.path.last().filter(|l| !u.glob && **l != u.alias) {
                    let names = out.entry(last.clone()).or_default();
                    if !names.contains(&u.alias) {
                        names.push(u.alias.clone());
                    }
                }
            }
            out
        })
    }

    /// The non-glob `use` entry of `module` importing `alias`.
    fn use_alias(&self, module: ModId, alias: &str) -> Option<&UseEntry> {
        self.touch_module(module, alias, |s| &s.used);
        self.modules[module].uses().iter().find(|u| !u.glob && u.alias == alias)
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
        reverse::nameable_path(&Lookup { ix: self, want: |_| false }, 0, home, name, vis, external)
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

    /// The complete body of a fn (or method) of `module` whose syntax tree is `block`. Indexing keeps only
    /// single-expression bodies (see [`blank_fn_bodies`]); the few fns that must be evaluated in full (custom
    /// schema functions) are parsed here again from the source text, once, with their real lines and columns.
    /// Parsed once per index and kept as long as it (so that what is read from a body may borrow from it).
    pub fn full_block<'s>(&'s self, module: ModId, block: &'s syn::Block) -> Result<&'s syn::Block, CrdError> {
        if !block.stmts.is_empty() {
            return Ok(block);
        }
        let file = self.modules[module].file;
        let (open, close) = (block.brace_token.span.open().start(), block.brace_token.span.close().end());
        let key = (file, open.line, open.column);
        if let Some(b) = self.full_blocks.get(&key) {
            return Ok(b);
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
        Ok(self.full_blocks.insert(key, Box::new(parsed)))
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
    /// (`use k8s_openapi::api::core::v1::*;` then `Container`), by [`resolve::external_candidates`] (the search RBAC
    /// inference makes too: also through globs of the crate's modules that lead outside it), the first such candidate.
    fn through_external_glob(&self, module: ModId, full: Vec<String>) -> Vec<String> {
        if full.len() != 1 {
            return full;
        }
        let lookup = Lookup { ix: self, want: |_| false };
        let candidates = resolve::external_candidates(&lookup, module, &full, &[]);
        candidates.iter().find_map(|c| known_external(c)).unwrap_or(full)
    }

    /// What `path`, a type written in `module`, names with the k8s-openapi table `k8s`: `name` works it out the first
    /// time (from the path's segments), the memo answers after ([`super::type_names`]). The index does not change
    /// once loaded, and what a first resolution touched stays recorded, so a remembered answer is the one computed
    /// again.
    pub(crate) fn type_named(
        &self,
        module: ModId,
        k8s: &K8sTable,
        path: &syn::Path,
        name: impl FnOnce(&[String]) -> Named,
    ) -> &Named {
        let key = {
            let mut key = self.type_names.key.borrow_mut();
            super::type_names::write_key(&mut key, module, k8s, path);
            if let Some(named) = self.type_names.named.get(key.as_slice()) {
                return named;
            }
            key.clone()
        };
        let named = name(&crate::source::lex::path_segs(path));
        self.type_names.named.insert(key, Box::new(named))
    }

    /// The glob `use`s of `module` (a stub that may hold one is loaded).
    fn globs(&self, module: ModId) -> Vec<UseEntry> {
        let file = self.modules[module].file;
        if self.files[file].stub.as_ref().is_some_and(|s| s.globs) {
            self.touch(file);
        }
        self.modules[module].uses().iter().filter(|u| u.glob).cloned().collect()
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

    fn root(&self, m: ModId) -> ModId {
        self.ix.crate_root(m)
    }

    fn parent(&self, m: ModId) -> Option<ModId> {
        self.ix.modules[m].parent
    }

    fn child(&self, m: ModId, name: &str) -> Option<ModId> {
        // A stub's inline modules (`mod prelude { .. }`) are among its declared names: a path through one loads it.
        self.ix.touch_module(m, name, |s| &s.declared);
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

    fn crate_named(&self, name: &str) -> Option<ModId> {
        let found = self.ix.dependency_crate(name);
        if found.is_none() {
            // a dependency's name: the next load reads its module tree
            self.ix.want_dependency(name);
        }
        found
    }

    fn value_only(&self, item: &ItemId) -> bool {
        self.ix.items[*item].kind.is_value()
    }
}

impl Exposes for Lookup<'_> {
    fn module_path(&self, m: ModId) -> Vec<String> {
        self.ix.modules[m].path.clone()
    }

    fn children(&self, m: ModId) -> Vec<(ModId, Vis)> {
        self.ix.modules[m].children.values().map(|&c| (c, self.ix.modules[c].decl.vis)).collect()
    }

    fn uses(&self, m: ModId) -> &[UseEntry] {
        self.ix.modules[m].uses()
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

/// Paths of external crates whose glob imports we understand.
fn known_external(full: &[String]) -> Option<Vec<String>> {
    let first = full.first()?.as_str();
    matches!(first, "k8s_openapi" | "std" | "core" | "alloc" | "serde_json" | "kube").then(|| full.to_vec())
}

/// Items of a file or inline module, parsed like [`syn::parse_file`] except that the syntax trees of fn bodies
/// that are not a single expression are not built (only single-expression bodies can be evaluated as
/// defaults) and `#[cfg(test)]` modules are skipped. Building every body dominated `make manifests` on
/// crates with many controllers.
struct LazyItems(Vec<syn::Item>);

impl syn::parse::Parse for LazyItems {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        input.call(syn::Attribute::parse_inner)?;
        Self::parse_rest(input)
    }
}

impl LazyItems {
    /// The items up to the end of `input`, without inner attributes first (a piece of a file after its first).
    fn parse_rest(input: syn::parse::ParseStream) -> syn::Result<Self> {
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
fn parse_items(text: &str, blanked: Option<std::borrow::Cow<'_, str>>) -> syn::Result<LazyItems> {
    let readable =
        crate::source::syntax::parseable(text).map_err(|m| syn::Error::new(proc_macro2::Span::call_site(), m))?;
    // On the whole text: the fn bodies blanked here may be parsed later (`full_block`). A byte order mark or a
    // shebang line changed the text the caller blanked.
    let changed = readable.text.len() != text.len() || matches!(readable.text, std::borrow::Cow::Owned(_));
    let cuts = &readable.cut_lines;
    let text = readable.text.as_ref();
    let blanked = blanked.filter(|_| !changed).unwrap_or_else(|| blank_fn_bodies(text));
    // Blanking bodies and lifting doc comments and attributes keep the lines, so the text's cuts are the parsed
    // text's. With plain `#[serde(..)]` attributes lifted first; when one is not found again, or the text does not
    // parse, it is read as below, for the same items and the same error.
    let serde = serde_lift::lift(&blanked);
    if serde.lifts_any() {
        let lifted = docs::lift(&serde.text);
        if let Ok(mut items) = parse_text(&lifted.text, cuts)
            && lifted.restore(&mut items.0)
            && serde.restore(&mut items.0)
        {
            return Ok(items);
        }
    }
    let lifted = docs::lift(&blanked);
    if !lifted.lifts_any() {
        return parse_text(&lifted.text, cuts);
    }
    if let Ok(mut items) = parse_text(&lifted.text, cuts)
        && lifted.restore(&mut items.0)
    {
        return Ok(items);
    }
    // A doc comment where no attribute was put back (in a macro's tokens), or a syntax error: read the comments as
    // they are, for the same items and the same error.
    parse_text(&raw_doc_comments(&blanked), cuts)
}

/// The items of a text ready for syn ([`crate::source::syntax::parseable`]); a large one in pieces, cut at the
/// starts of `cut_lines`.
fn parse_text(text: &str, cut_lines: &[usize]) -> syn::Result<LazyItems> {
    parse_pieces(text, cut_lines).map_or_else(|| syn::parse_str(text), Ok)
}

/// [`crate::source::syntax::parse_in_pieces`] for the index's items.
fn parse_pieces(text: &str, cut_lines: &[usize]) -> Option<LazyItems> {
    let items = crate::source::syntax::parse_in_pieces(text, cut_lines, |piece, first| {
        let parsed = if first {
            syn::parse_str::<LazyItems>(piece)
        } else {
            syn::parse::Parser::parse_str(LazyItems::parse_rest, piece)
        };
        parsed.map(|items| items.0)
    })?;
    Some(LazyItems(items))
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
    if fork.peek(syn::Token![struct]) {
        // On an error, syn's own parse says it.
        if let Ok(s) = fast::item_struct(&fork, attrs.clone(), vis.clone()) {
            input.advance_to(&fork);
            return Ok(Some(syn::Item::Struct(s)));
        }
        return input.parse().map(Some);
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
mod tests;
