//! The one module loader: a crate's module tree walked from its root into [`Module`]s — where the file of a
//! `mod name;` is, by rustc's rules (`name.rs`, `name/mod.rs`, `#[path]`), the folder its own child modules are
//! looked for in, what a file's items are to the tree ([`entries`]: `use`s flattened, `mod` declarations with
//! their visibility, attributes and version names, the macros kubesmith knows expanded) and the walk itself
//! ([`walk`]), the one place a `mod` declaration becomes a module. Both readers' trees (the CRD index's and
//! [`super::modules::Crate`]'s) are this walk's; each is a [`Store`]: how it reads a file (parsed, a stub, a
//! stored skeleton) and where it keeps items (the index's typed tables, a crate's [`super::modules::Slot`]s).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::syntax::{UseEntry, Vis, flatten_use, is_cfg_test, path_attr, unraw};

/// Where a module's children are looked for, and the file it is written in.
#[derive(Debug, Clone)]
pub(crate) struct ModuleDirs {
    /// The folder of the file the module is written in (what a `#[path]` of a `mod` in that file's own module is
    /// relative to).
    pub(crate) file_dir: PathBuf,
    /// The folder its child modules' files are in (`x/` for `x.rs`; the file's folder for `mod.rs`, a crate root
    /// and a file loaded through `#[path]`).
    pub(crate) mod_dir: PathBuf,
    /// Whether the module is inline (`mod x { .. }`): a `#[path]` inside it is relative to `mod_dir`.
    pub(crate) inline: bool,
}

impl ModuleDirs {
    /// The crate root at `root`.
    pub(crate) fn root(root: &Path) -> ModuleDirs {
        let dir = root.parent().map(Path::to_path_buf).unwrap_or_default();
        ModuleDirs { file_dir: dir.clone(), mod_dir: dir, inline: false }
    }

    /// The files `mod name;` (with `#[path = path_attr]`) may be, in the order rustc tries them.
    pub(crate) fn candidates(&self, name: &str, path_attr: Option<&str>) -> Vec<PathBuf> {
        match path_attr {
            Some(p) if self.inline => vec![self.mod_dir.join(p)],
            Some(p) => vec![self.file_dir.join(p)],
            None => vec![self.mod_dir.join(format!("{name}.rs")), self.mod_dir.join(name).join("mod.rs")],
        }
    }

    /// The inline child `mod name { .. }` (with `#[path = path_attr]`).
    pub(crate) fn inline_child(&self, name: &str, path_attr: Option<&str>) -> ModuleDirs {
        ModuleDirs {
            file_dir: self.file_dir.clone(),
            mod_dir: self.mod_dir.join(path_attr.unwrap_or(name)),
            inline: true,
        }
    }

    /// The file child `mod name;` found at `found` (one of [`ModuleDirs::candidates`]): a file named `mod.rs` or
    /// loaded through `#[path]` owns its folder; `x.rs` owns `x/`.
    pub(crate) fn file_child(&self, name: &str, has_path_attr: bool, found: &Path) -> ModuleDirs {
        let file_dir = found.parent().map(Path::to_path_buf).unwrap_or_default();
        let mod_dir = if has_path_attr || found.file_name().is_some_and(|f| f == "mod.rs") {
            file_dir.clone()
        } else {
            self.mod_dir.join(name)
        };
        ModuleDirs { file_dir, mod_dir, inline: false }
    }

    /// What to say when none of [`ModuleDirs::candidates`] exists: the paths looked at.
    pub(crate) fn looked(candidates: &[PathBuf]) -> String {
        candidates.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    }
}

/// One module of a module tree ([`walk`] builds both readers'): `F` is how its tree names files (a path in RBAC's
/// crates, an index into its files in the CRD index), `I` what [`Module::items`] hold.
#[derive(Debug)]
pub struct Module<F, I> {
    /// `["crate", "api", "v1"]`.
    pub path: Vec<String>,
    /// The file the module's items are written in.
    pub file: F,
    /// Parent module.
    pub parent: Option<usize>,
    /// Child modules by name.
    pub children: BTreeMap<String, usize>,
    /// What the tree keeps of its `mod` declaration.
    pub decl: ModDecl,
    /// `use` declarations of the module, flattened when first asked for.
    uses: std::cell::OnceCell<(Vec<UseEntry>, Vec<bool>)>,
    /// The module's `use` items, until [`Module::uses`] flattens them.
    use_items: std::cell::RefCell<Vec<UseList>>,
    /// Every item but `mod` and `use`, in source order (the CRD index keeps its items in a table of its own).
    pub items: Vec<I>,
}

impl<F, I> Module<F, I> {
    /// The module `path` written in `file`, a child of `parent`, without uses or items yet.
    pub(crate) fn new(path: Vec<String>, file: F, parent: Option<usize>, decl: ModDecl) -> Self {
        Module {
            path,
            file,
            parent,
            children: BTreeMap::new(),
            decl,
            uses: Default::default(),
            use_items: Default::default(),
            items: Vec::new(),
        }
    }

    /// Adds a `use` item's entries (before [`Module::uses`] is first asked for).
    pub(crate) fn push_uses(&mut self, list: UseList) {
        self.use_items.get_mut().push(list);
    }

    /// `use` declarations of the module (flattened).
    pub fn uses(&self) -> &[UseEntry] {
        &self.flat_uses().0
    }

    /// Whether each `use` of [`Module::uses`] is `pub` (a re-export), by index.
    #[cfg(test)]
    pub fn pub_uses(&self) -> &[bool] {
        &self.flat_uses().1
    }

    fn flat_uses(&self) -> &(Vec<UseEntry>, Vec<bool>) {
        self.uses.get_or_init(|| {
            let (mut uses, mut public) = (Vec::new(), Vec::new());
            for list in self.use_items.take() {
                let (entries, p) = match list {
                    UseList::Ready(e, p) => (e, p),
                    UseList::Lazy(make) => make(),
                };
                public.extend(std::iter::repeat_n(p, entries.len()));
                uses.extend(entries);
            }
            (uses, public)
        })
    }
}

/// One `use` item: flattened, or flattened from a stored skeleton when the module's uses are first looked at.
pub enum UseList {
    /// Its entries and whether it is `pub` (any visibility written).
    Ready(Vec<UseEntry>, bool),
    /// Gives them when asked.
    Lazy(Box<dyn FnOnce() -> (Vec<UseEntry>, bool)>),
}

impl std::fmt::Debug for UseList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UseList::Ready(e, p) => f.debug_tuple("Ready").field(e).field(p).finish(),
            UseList::Lazy(_) => f.write_str("Lazy"),
        }
    }
}

/// What a module tree keeps of a module's `mod` declaration (the crate root: public, nothing else).
#[derive(Debug, Default)]
pub struct ModDecl {
    /// Its visibility (the crate root counts as public).
    pub vis: Vis,
    /// Its attributes but doc comments (an attribute macro on the module, say); none when read from a skeleton.
    pub attrs: Vec<syn::Attribute>,
    /// The names of the version modules a stackable-versioned `#[versioned(..)]` on it makes the macro write, when
    /// the expansion leaves the module as written ([`super::versioned::version_names`]; inline modules only):
    /// RBAC inference's [`super::modules::Crate`] names the module by them too.
    pub aliases: Vec<String>,
}

/// A file's top-level content, or an inline module's, as the loader reads it: `I` is how its tree keeps an item
/// (a syn item in the CRD index, a [`super::modules::Slot`] in RBAC's crates).
#[derive(Debug)]
pub enum Entry<I> {
    /// A `use` item.
    Use(UseList),
    /// A `mod` (never a `#[cfg(test)]` one).
    Mod {
        /// Name (raw identifiers without `r#`).
        name: String,
        /// `#[path = ".."]`.
        path: Option<String>,
        /// `mod x { .. }` content; `None` for `mod x;`.
        content: Option<Vec<Entry<I>>>,
        /// The name's span, for a missing file's error (none when read from a skeleton).
        span: Option<proc_macro2::Span>,
        /// What the tree keeps of the declaration.
        decl: ModDecl,
    },
    /// Any other item.
    Item(I),
}

/// A file's content, or an inline module's, as a [`Store`] reads it: parsed items, which the walk reads in place
/// (as [`entries`] would, without building them), or entries built already (from a stored skeleton, say).
pub(crate) enum Content<I> {
    /// Syn items, before the macros kubesmith knows are expanded.
    Parsed(Vec<syn::Item>),
    /// Entries.
    Entries(Vec<Entry<I>>),
}

/// The entries of parsed items: what the macros kubesmith knows generate in their place
/// ([`super::expand::expand_all`]: stackable-versioned's version modules, strum's discriminants enums,
/// `lazy_static!`'s statics), `use`s flattened with their visibility, `mod`s with their declarations
/// ([`mod_entry`]; `#[cfg(test)]` ones left out), and every other item kept as `keep` makes it.
pub(crate) fn entries<I>(items: Vec<syn::Item>, keep: &mut impl FnMut(syn::Item) -> I) -> Vec<Entry<I>> {
    let items = super::expand::expand_all(items);
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match item {
            syn::Item::Use(u) => out.push(Entry::Use(use_list(&u))),
            syn::Item::Mod(m) => {
                if let Some((name, path, span, decl, content)) = mod_entry(m) {
                    let content = content.map(|inner| entries(inner, keep));
                    out.push(Entry::Mod { name, path, content, span, decl });
                }
            }
            other => out.push(Entry::Item(keep(other))),
        }
    }
    out
}

/// A `use` item's entries, each with the item's visibility.
fn use_list(u: &syn::ItemUse) -> UseList {
    let mut list = Vec::new();
    flatten_use(&u.tree, &mut Vec::new(), &mut list);
    let vis = Vis::of(&u.vis);
    list.iter_mut().for_each(|e| e.vis = vis);
    UseList::Ready(list, !matches!(u.vis, syn::Visibility::Inherited))
}

/// The parts of a `mod` item's [`Entry::Mod`] (its inline items not yet read); none for a `#[cfg(test)]` module.
type ModParts = (String, Option<String>, Option<proc_macro2::Span>, ModDecl, Option<Vec<syn::Item>>);

fn mod_entry(m: syn::ItemMod) -> Option<ModParts> {
    if is_cfg_test(&m.attrs) {
        return None;
    }
    let aliases = if m.content.is_some() { super::versioned::version_names(&m.attrs) } else { Vec::new() };
    let attrs: Vec<syn::Attribute> = m.attrs.into_iter().filter(|a| !a.path().is_ident("doc")).collect();
    let decl = ModDecl { vis: Vis::of(&m.vis), attrs, aliases };
    Some((unraw(&m.ident), path_attr(&decl.attrs), Some(m.ident.span()), decl, m.content.map(|(_, items)| items)))
}

/// A file [`Store::read`] read: how the store names the file, and the file's content.
pub(crate) type Opened<S> = (<S as Store>::File, Content<<S as Store>::Item>);

/// Where [`walk`] puts a module tree: how files are read (parsed, stubs, stored skeletons) and where items go. The
/// modules themselves, their `use`s and `mod` declarations, are the walk's.
pub(crate) trait Store {
    /// How the store names a file (its path, an index into its files).
    type File: Clone;
    /// An item as the store takes it.
    type Item;
    /// What a module's [`Module::items`] hold (nothing, in a store that keeps items in tables of its own).
    type Held;
    /// What ends the walk.
    type Error;

    /// Reads the file at `path`: how the store names it, and its content.
    fn read(&mut self, path: &Path) -> Result<Opened<Self>, Self::Error>;
    /// Whether there is a file at `path`.
    fn exists(&mut self, path: &Path) -> bool;
    /// The tree's modules, which the walk adds to.
    fn modules(&mut self) -> &mut Vec<Module<Self::File, Self::Held>>;
    /// A parsed item (not a `use` or a `mod`) as the store takes it.
    fn keep(&mut self, item: syn::Item) -> Self::Item;
    /// Takes an item of `module`.
    fn item(&mut self, module: usize, item: Self::Item);
    /// `mod name;` in `file` has no file (`looked`: the paths tried): recorded, or an error that ends the walk.
    fn missing(
        &mut self,
        file: &Self::File,
        name: &str,
        span: Option<proc_macro2::Span>,
        looked: String,
    ) -> Result<(), Self::Error>;
}

/// Walks the module tree rooted at the file `root`, whose module path is `mod_path` (`["crate"]`, or a
/// dependency's name), into `store`: every module in declaration order, depth first, each child named in its
/// parent's `children`; returns the root module's id.
pub(crate) fn walk<S: Store>(store: &mut S, root: &Path, mod_path: Vec<String>) -> Result<usize, S::Error> {
    let decl = ModDecl { vis: Vis::Public, ..ModDecl::default() };
    let (file, content) = store.read(root)?;
    walk_module(store, &file, content, mod_path, None, decl, &ModuleDirs::root(root))
}

/// Where a module is in the walk: its store's file, its path and id, its folders.
struct At<'a, F> {
    file: &'a F,
    mod_path: &'a [String],
    id: usize,
    dirs: &'a ModuleDirs,
}

fn walk_module<S: Store>(
    store: &mut S,
    file: &S::File,
    content: Content<S::Item>,
    mod_path: Vec<String>,
    parent: Option<usize>,
    decl: ModDecl,
    dirs: &ModuleDirs,
) -> Result<usize, S::Error> {
    let modules = store.modules();
    let id = modules.len();
    if let (Some(p), Some(name)) = (parent, mod_path.last()) {
        modules[p].children.insert(name.clone(), id);
    }
    modules.push(Module::new(mod_path.clone(), file.clone(), parent, decl));
    let at = At { file, mod_path: &mod_path, id, dirs };
    match content {
        // Read in place: no entry is built for a parsed item.
        Content::Parsed(items) => {
            for item in super::expand::expand_all(items) {
                match item {
                    syn::Item::Use(u) => store.modules()[id].push_uses(use_list(&u)),
                    syn::Item::Mod(m) => {
                        if let Some((name, path, span, decl, inner)) = mod_entry(m) {
                            child(store, &at, name, path, span, decl, inner.map(Content::Parsed))?;
                        }
                    }
                    other => {
                        let kept = store.keep(other);
                        store.item(id, kept);
                    }
                }
            }
        }
        Content::Entries(entries) => {
            for entry in entries {
                match entry {
                    Entry::Use(list) => store.modules()[id].push_uses(list),
                    Entry::Item(item) => store.item(id, item),
                    Entry::Mod { name, path, content, span, decl } => {
                        child(store, &at, name, path, span, decl, content.map(Content::Entries))?;
                    }
                }
            }
        }
    }
    Ok(id)
}

/// The child module `name` of the module `at`: inline (`content`), or in the file rustc would read.
fn child<S: Store>(
    store: &mut S,
    at: &At<'_, S::File>,
    name: String,
    path: Option<String>,
    span: Option<proc_macro2::Span>,
    decl: ModDecl,
    content: Option<Content<S::Item>>,
) -> Result<(), S::Error> {
    let mut child_path = at.mod_path.to_vec();
    child_path.push(name.clone());
    match content {
        Some(inner) => {
            let inline = at.dirs.inline_child(&name, path.as_deref());
            walk_module(store, at.file, inner, child_path, Some(at.id), decl, &inline)?;
        }
        None => {
            let candidates = at.dirs.candidates(&name, path.as_deref());
            let Some(found) = candidates.iter().find(|p| store.exists(p)) else {
                return store.missing(at.file, &name, span, ModuleDirs::looked(&candidates));
            };
            let child_dirs = at.dirs.file_child(&name, path.is_some(), found);
            let (file, content) = store.read(found)?;
            walk_module(store, &file, content, child_path, Some(at.id), decl, &child_dirs)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_folders_follow_rustc() {
        let root = ModuleDirs::root(Path::new("src/lib.rs"));
        assert_eq!(root.candidates("a", None), [PathBuf::from("src/a.rs"), PathBuf::from("src/a/mod.rs")]);
        let a = root.file_child("a", false, Path::new("src/a.rs"));
        assert_eq!(a.candidates("b", None)[0], PathBuf::from("src/a/b.rs"));
        assert_eq!(a.candidates("b", Some("x.rs")), [PathBuf::from("src/x.rs")]);
        let inline = a.inline_child("i", None);
        assert_eq!(inline.candidates("b", Some("x.rs")), [PathBuf::from("src/a/i/x.rs")]);
        let m = root.file_child("m", false, Path::new("src/m/mod.rs"));
        assert_eq!(m.candidates("c", None)[0], PathBuf::from("src/m/c.rs"));
        let p = root.file_child("p", true, Path::new("src/other/p_impl.rs"));
        assert_eq!(p.candidates("d", None)[0], PathBuf::from("src/other/d.rs"));
    }

    /// A store over in-memory files whose entries are words: `mod:name`, `mod:name=path` (a `#[path]`),
    /// `{`..`}` around an inline module's words, anything else an item. It records what the walk asks of it.
    struct Words {
        files: std::collections::BTreeMap<PathBuf, &'static str>,
        modules: Vec<Module<PathBuf, ()>>,
        /// `module path: item`, in the order the walk hands them over.
        items: Vec<String>,
        missing: Vec<String>,
    }

    fn words(tokens: &mut std::iter::Peekable<std::str::SplitWhitespace<'_>>) -> Vec<Entry<String>> {
        let mut out = Vec::new();
        while let Some(t) = tokens.next() {
            if t == "}" {
                break;
            }
            match t.strip_prefix("mod:") {
                Some(decl) => {
                    let (name, path) = match decl.split_once('=') {
                        Some((n, p)) => (n.to_string(), Some(p.to_string())),
                        None => (decl.to_string(), None),
                    };
                    let content = if tokens.peek() == Some(&"{") {
                        tokens.next();
                        Some(words(tokens))
                    } else {
                        None
                    };
                    let decl = ModDecl { aliases: vec![format!("alias of {name}")], ..ModDecl::default() };
                    out.push(Entry::Mod { name, path, content, span: None, decl });
                }
                None => out.push(Entry::Item(t.to_string())),
            }
        }
        out
    }

    impl Store for Words {
        type File = PathBuf;
        type Item = String;
        type Held = ();
        type Error = String;

        fn read(&mut self, path: &Path) -> Result<Opened<Self>, String> {
            let text = self.files.get(path).ok_or(format!("cannot read {}", path.display()))?;
            Ok((path.to_path_buf(), Content::Entries(words(&mut text.split_whitespace().peekable()))))
        }

        fn exists(&mut self, path: &Path) -> bool {
            self.files.contains_key(path)
        }

        fn modules(&mut self) -> &mut Vec<Module<PathBuf, ()>> {
            &mut self.modules
        }

        fn keep(&mut self, item: syn::Item) -> String {
            quote::quote!(#item).to_string()
        }

        fn item(&mut self, module: usize, item: String) {
            let at = self.modules[module].path.join("::");
            self.items.push(format!("{at}: {item}"));
        }

        fn missing(
            &mut self,
            _: &PathBuf,
            name: &str,
            _: Option<proc_macro2::Span>,
            looked: String,
        ) -> Result<(), String> {
            self.missing.push(format!("{name}: {looked}"));
            Ok(())
        }
    }

    #[test]
    fn the_walk_visits_modules_depth_first_with_their_items_in_source_order() {
        let files = [
            ("src/lib.rs", "first mod:api mod:gone mod:inline { mod:deep=deep_file.rs inner } last"),
            ("src/api.rs", "mod:v1 api_item"),
            ("src/api/v1/mod.rs", "v1_item"),
            ("src/inline/deep_file.rs", "deep_item"),
        ];
        let mut store = Words {
            files: files.iter().map(|(p, t)| (PathBuf::from(p), *t)).collect(),
            modules: Vec::new(),
            items: Vec::new(),
            missing: Vec::new(),
        };
        assert_eq!(walk(&mut store, Path::new("src/lib.rs"), vec!["crate".into()]), Ok(0));
        let modules: Vec<(String, &str)> =
            store.modules.iter().map(|m| (m.path.join("::"), m.file.to_str().unwrap())).collect();
        let modules: Vec<(&str, &str)> = modules.iter().map(|(m, f)| (m.as_str(), *f)).collect();
        assert_eq!(
            modules,
            [
                ("crate", "src/lib.rs"),
                ("crate::api", "src/api.rs"),
                ("crate::api::v1", "src/api/v1/mod.rs"),
                ("crate::inline", "src/lib.rs"),
                ("crate::inline::deep", "src/inline/deep_file.rs"),
            ]
        );
        assert_eq!(
            store.items,
            [
                "crate: first",
                "crate::api::v1: v1_item",
                "crate::api: api_item",
                "crate::inline::deep: deep_item",
                "crate::inline: inner",
                "crate: last",
            ],
            "a child module's items come where its `mod` is written"
        );
        assert_eq!(store.missing, ["gone: src/gone.rs, src/gone/mod.rs"]);
        let children: Vec<Vec<(&str, usize)>> =
            store.modules.iter().map(|m| m.children.iter().map(|(n, &c)| (n.as_str(), c)).collect()).collect();
        assert_eq!(children, [vec![("api", 1), ("inline", 3)], vec![("v1", 2)], vec![], vec![("deep", 4)], vec![]]);
        let parents: Vec<Option<usize>> = store.modules.iter().map(|m| m.parent).collect();
        assert_eq!(parents, [None, Some(0), Some(1), Some(0), Some(3)]);
        let decls: Vec<(Vis, Vec<String>)> =
            store.modules.iter().map(|m| (m.decl.vis, m.decl.aliases.clone())).collect();
        assert_eq!(decls[0], (Vis::Public, vec![]), "the crate root is public");
        assert_eq!(decls[4], (Vis::Private, vec!["alias of deep".to_string()]), "each module keeps its declaration");
        assert_eq!(
            walk(&mut store, Path::new("src/none.rs"), vec!["crate".into()]),
            Err("cannot read src/none.rs".into())
        );
    }

    /// What the loader reads of parsed items: `use`s flattened with their visibility, `mod`s with their
    /// declarations (doc comments left out; `#[cfg(test)]` ones not at all), items kept as the caller keeps them.
    #[test]
    fn entries_of_parsed_items() {
        let file: syn::File = syn::parse_quote! {
            pub use a::{B, c::*};
            /// Docs.
            #[path = "x_impl.rs"]
            pub(crate) mod x;
            #[cfg(test)]
            mod tests;
            mod r#inline { fn f() {} }
            struct S;
        };
        let mut kept = Vec::new();
        let out = entries(file.items, &mut |i: syn::Item| {
            kept.push(crate::source::syntax::item_name(&i));
            kept.len()
        });
        assert_eq!(out.len(), 4);
        let Entry::Use(UseList::Ready(uses, true)) = &out[0] else { panic!("a pub use: {:?}", out[0]) };
        let uses: Vec<(String, bool, Vis)> = uses.iter().map(|u| (u.path.join("::"), u.glob, u.vis)).collect();
        assert_eq!(uses, [("a::B".to_string(), false, Vis::Public), ("a::c".to_string(), true, Vis::Public)]);
        let Entry::Mod { name, path, content: None, decl, .. } = &out[1] else { panic!("mod x: {:?}", out[1]) };
        assert_eq!((name.as_str(), path.as_deref(), decl.vis), ("x", Some("x_impl.rs"), Vis::Crate));
        assert_eq!(decl.attrs.len(), 1, "the `#[path]`, not the doc comment");
        let Entry::Mod { name, content: Some(inner), .. } = &out[2] else { panic!("mod inline: {:?}", out[2]) };
        assert_eq!((name.as_str(), inner.len()), ("inline", 1));
        assert!(matches!(out[3], Entry::Item(2)));
        assert_eq!(kept, [Some("f".to_string()), Some("S".to_string())]);
    }

    /// A store over in-memory Rust files that reads them as parsed items, or as [`entries`] built from them.
    struct Rust {
        files: std::collections::BTreeMap<PathBuf, &'static str>,
        built: bool,
        modules: Vec<Module<PathBuf, ()>>,
        items: Vec<String>,
    }

    impl Store for Rust {
        type File = PathBuf;
        type Item = String;
        type Held = ();
        type Error = String;

        fn read(&mut self, path: &Path) -> Result<Opened<Self>, String> {
            let text = self.files.get(path).ok_or("unread")?;
            let items = syn::parse_file(text).map_err(|e| e.to_string())?.items;
            let content = match self.built {
                true => Content::Entries(entries(items, &mut |i: syn::Item| quote::quote!(#i).to_string())),
                false => Content::Parsed(items),
            };
            Ok((path.to_path_buf(), content))
        }

        fn exists(&mut self, path: &Path) -> bool {
            self.files.contains_key(path)
        }

        fn modules(&mut self) -> &mut Vec<Module<PathBuf, ()>> {
            &mut self.modules
        }

        fn keep(&mut self, item: syn::Item) -> String {
            quote::quote!(#item).to_string()
        }

        fn item(&mut self, module: usize, item: String) {
            self.items.push(format!("{}: {item}", self.modules[module].path.join("::")));
        }

        fn missing(&mut self, _: &PathBuf, name: &str, _: Option<proc_macro2::Span>, _: String) -> Result<(), String> {
            Err(format!("no file for {name}"))
        }
    }

    /// The walk reads parsed items in place as [`entries`] reads them: the same modules, declarations, `use`s and
    /// items either way (macros expanded, `#[cfg(test)]` modules left out).
    #[test]
    fn parsed_items_walk_as_their_entries_do() {
        let files = [
            (
                "src/lib.rs",
                "pub use api::Thing as Other;\n/// Docs.\npub mod api;\n#[cfg(test)] mod tests;\n\
                 pub(crate) mod inline { use super::*; pub struct Inner; }\n\
                 lazy_static::lazy_static! { static ref NAME: String = String::new(); }\nfn last() {}",
            ),
            ("src/api.rs", "pub struct Thing;\n#[derive(strum::EnumDiscriminants)] pub enum E { A(u8) }"),
        ];
        let walked = |built: bool| {
            let mut store = Rust {
                files: files.iter().map(|(p, t)| (PathBuf::from(p), *t)).collect(),
                built,
                modules: Vec::new(),
                items: Vec::new(),
            };
            walk(&mut store, Path::new("src/lib.rs"), vec!["crate".into()]).expect("walks");
            let modules: Vec<String> = store
                .modules
                .iter()
                .map(|m| {
                    let uses: Vec<(String, String, Vis)> =
                        m.uses().iter().map(|u| (u.alias.clone(), u.path.join("::"), u.vis)).collect();
                    let d = &m.decl;
                    format!(
                        "{} {:?} {} {:?} {uses:?} {:?}",
                        m.path.join("::"),
                        d.vis,
                        d.attrs.len(),
                        d.aliases,
                        m.children
                    )
                })
                .collect();
            (modules, store.items)
        };
        let (parsed, built) = (walked(false), walked(true));
        assert_eq!(parsed, built);
        let (modules, items) = parsed;
        assert_eq!(modules.len(), 3, "{modules:?}");
        assert!(modules[0].contains(r#"("Other", "api::Thing", Public)"#), "{}", modules[0]);
        assert!(modules[2].starts_with("crate::inline Crate 0 []"), "{}", modules[2]);
        assert!(items.iter().any(|i| i.starts_with("crate: static NAME")), "lazy_static! expanded: {items:?}");
        assert!(items.iter().any(|i| i.starts_with("crate::api: ") && i.contains("EDiscriminants")), "{items:?}");
    }
}
