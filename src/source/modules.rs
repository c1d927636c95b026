//! Fully parsed crates: the module tree from a crate root following `mod` declarations (inline, `x.rs`,
//! `x/mod.rs`, `#[path]`), every module's items with their fn bodies, `#[cfg(test)]` modules left out.

use std::path::{Path, PathBuf};

use super::module_files;

/// A module of a [`Crate`]: its items are [`Slot`]s.
pub type Module = module_files::Module<PathBuf, Slot>;

/// Index of a module in [`Crate::modules`].
pub type ModId = usize;

/// A source file that cannot be read or parsed, or a `mod` whose file is missing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}:{line}:{column}: {message}", path.display())]
pub struct SourceError {
    /// File.
    pub path: PathBuf,
    /// 1-based line (0 when the file could not be read).
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong, with the fix.
    pub message: String,
}

impl SourceError {
    fn at(path: &Path, span: proc_macro2::Span, message: String) -> Self {
        let start = span.start();
        Self { path: path.to_path_buf(), line: start.line, column: start.column + 1, message }
    }
}

/// What kind of item a [`Slot`] holds, known without building it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ItemKind {
    /// `fn`.
    Fn,
    /// `struct`.
    Struct,
    /// `enum`.
    Enum,
    /// `union`.
    Union,
    /// `type` alias.
    Alias,
    /// `trait`.
    Trait,
    /// `const`.
    Const,
    /// `static`.
    Static,
    /// `impl` block.
    Impl,
    /// Anything else.
    Other,
}

impl ItemKind {
    /// The kind of a syn item.
    pub fn of(item: &syn::Item) -> ItemKind {
        match item {
            syn::Item::Fn(_) => ItemKind::Fn,
            syn::Item::Struct(_) => ItemKind::Struct,
            syn::Item::Enum(_) => ItemKind::Enum,
            syn::Item::Union(_) => ItemKind::Union,
            syn::Item::Type(_) => ItemKind::Alias,
            syn::Item::Trait(_) => ItemKind::Trait,
            syn::Item::Const(_) => ItemKind::Const,
            syn::Item::Static(_) => ItemKind::Static,
            syn::Item::Impl(_) => ItemKind::Impl,
            _ => ItemKind::Other,
        }
    }
}

/// One item of a module: parsed, or built from a stored skeleton the first time it is looked at. Its kind and the
/// name it declares are known either way.
pub struct Slot {
    kind: ItemKind,
    name: Option<String>,
    item: std::cell::OnceCell<Box<syn::Item>>,
    make: Option<Box<dyn Fn() -> syn::Item>>,
}

impl std::fmt::Debug for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slot").field("kind", &self.kind).field("name", &self.name).finish_non_exhaustive()
    }
}

impl Slot {
    /// A parsed item.
    pub fn ready(item: syn::Item) -> Slot {
        let name = crate::source::syntax::item_name(&item);
        Slot { kind: ItemKind::of(&item), name, item: std::cell::OnceCell::from(Box::new(item)), make: None }
    }

    /// An item of `kind` declaring `name`, built by `make` when first asked for.
    pub fn lazy(kind: ItemKind, name: Option<String>, make: Box<dyn Fn() -> syn::Item>) -> Slot {
        Slot { kind, name, item: std::cell::OnceCell::new(), make: Some(make) }
    }

    /// The item.
    pub fn get(&self) -> &syn::Item {
        self.item.get_or_init(|| {
            Box::new(match &self.make {
                Some(make) => make(),
                None => syn::Item::Verbatim(proc_macro2::TokenStream::new()),
            })
        })
    }

    /// Its kind.
    pub fn kind(&self) -> ItemKind {
        self.kind
    }

    /// The name it declares, if a path can name it (raw identifiers without `r#`).
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

/// A file's top-level content as RBAC inference's loader reads it ([`module_files::Entry`]).
pub type Entry = module_files::Entry<Slot>;

/// The entries of parsed items ([`module_files::entries`], the macros kubesmith knows expanded), each item a
/// [`Slot`].
pub fn entries(items: Vec<syn::Item>) -> Vec<Entry> {
    module_files::entries(items, &mut Slot::ready)
}

/// A crate: the module tree below one crate root, every file fully parsed.
#[derive(Debug)]
pub struct Crate {
    /// The name other crates use for it (`fleet_api`).
    pub name: String,
    /// Modules; index 0 is the crate root.
    pub modules: Vec<Module>,
}

impl Crate {
    /// Loads the crate rooted at `root` (`src/lib.rs`, `src/main.rs`, ...), reading files with `read`.
    #[cfg(test)]
    pub fn load(
        name: &str,
        root: &Path,
        read: &dyn Fn(&Path) -> std::io::Result<String>,
    ) -> Result<Crate, SourceError> {
        Crate::load_with(name, root, read, &parse_entries)
    }

    /// [`Crate::load`] with each file's text turned into items by `parse` (e.g. from a cache of skeletons).
    pub fn load_with(
        name: &str,
        root: &Path,
        read: &dyn Fn(&Path) -> std::io::Result<String>,
        parse: ParseFn<'_>,
    ) -> Result<Crate, SourceError> {
        let mut loader =
            Loader { krate: Crate { name: name.to_string(), modules: Vec::new() }, read, parse, found: None };
        module_files::walk(&mut loader, root, vec!["crate".into()])?;
        let mut krate = loader.krate;
        // A version of a module the expansion left as written names it (`v1alpha1::Kind`): the macro writes the
        // version modules in its place.
        for child in 0..krate.modules.len() {
            let Some(parent) = krate.modules[child].parent else { continue };
            for alias in std::mem::take(&mut krate.modules[child].decl.aliases) {
                krate.modules[parent].children.entry(alias).or_insert(child);
            }
        }
        Ok(krate)
    }
}

/// The [`module_files::Store`] of a [`Crate`]: every file read by `read` and parsed by `parse`; a missing module
/// file ends the load.
struct Loader<'a> {
    krate: Crate,
    read: &'a dyn Fn(&Path) -> std::io::Result<String>,
    parse: ParseFn<'a>,
    /// The text [`module_files::Store::exists`] read, which the walk reads next: a file is read once.
    found: Option<(PathBuf, String)>,
}

impl module_files::Store for Loader<'_> {
    type File = PathBuf;
    type Item = Slot;
    type Held = Slot;
    type Error = SourceError;

    fn read(&mut self, path: &Path) -> Result<module_files::Opened<Self>, SourceError> {
        let text = match self.found.take() {
            Some((found, text)) if found == path => text,
            _ => (self.read)(path).map_err(|e| SourceError {
                path: path.to_path_buf(),
                line: 0,
                column: 0,
                message: format!("cannot read the file: {e}"),
            })?,
        };
        Ok((path.to_path_buf(), module_files::Content::Entries((self.parse)(path, &text)?)))
    }

    fn exists(&mut self, path: &Path) -> bool {
        let Ok(text) = (self.read)(path) else { return false };
        self.found = Some((path.to_path_buf(), text));
        true
    }

    fn modules(&mut self) -> &mut Vec<Module> {
        &mut self.krate.modules
    }

    fn keep(&mut self, item: syn::Item) -> Slot {
        Slot::ready(item)
    }

    fn item(&mut self, module: ModId, slot: Slot) {
        self.krate.modules[module].items.push(slot);
    }

    fn missing(
        &mut self,
        file: &PathBuf,
        name: &str,
        span: Option<proc_macro2::Span>,
        looked: String,
    ) -> Result<(), SourceError> {
        let message =
            format!("module `{name}` not found (looked for {looked}): create the file or remove the `mod` line");
        Err(match span {
            Some(span) => SourceError::at(file, span, message),
            None => SourceError { path: file.clone(), line: 0, column: 0, message },
        })
    }
}

/// Turns a file's text into its entries: [`parse_entries`], or another reader of the same text.
pub type ParseFn<'a> = &'a dyn Fn(&Path, &str) -> Result<Vec<Entry>, SourceError>;

/// A file's entries, parsed in full with syn.
#[cfg(test)]
pub fn parse_entries(path: &Path, text: &str) -> Result<Vec<Entry>, SourceError> {
    parse_items(path, text).map(entries)
}

/// A file's items, parsed in full with syn (a syntax error names the place and the fix).
pub fn parse_items(path: &Path, text: &str) -> Result<Vec<syn::Item>, SourceError> {
    parse_file(text).map(|f| f.items).map_err(|e| {
        SourceError::at(
            path,
            e.span(),
            format!("does not parse as Rust: {e} (fix the syntax; kubesmith never compiles it)"),
        )
    })
}

/// [`syn::parse_file`] of the text [`super::syntax::parseable`] makes (a leading BOM and a shebang line tolerated,
/// line numbers kept); a large text in pieces ([`super::syntax::parse_in_pieces`]).
pub fn parse_file(text: &str) -> syn::Result<syn::File> {
    let readable = super::syntax::parseable(text).map_err(|m| syn::Error::new(proc_macro2::Span::call_site(), m))?;
    let text = readable.text;
    let mut attrs = Vec::new();
    let pieces = super::syntax::parse_in_pieces(&text, &readable.cut_lines, |piece, first| {
        if first {
            let file = syn::parse_file(piece)?;
            attrs = file.attrs;
            return Ok(file.items);
        }
        syn::parse::Parser::parse_str(
            |input: syn::parse::ParseStream| {
                let mut items = Vec::new();
                while !input.is_empty() {
                    items.push(input.parse()?);
                }
                Ok(items)
            },
            piece,
        )
    });
    match pieces {
        Some(items) => Ok(syn::File { shebang: None, attrs, items }),
        None => syn::parse_file(&text),
    }
}

/// Reads files from disk.
pub fn read_disk(path: &Path) -> std::io::Result<String> {
    std::fs::read_to_string(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A large file is parsed in pieces: the same attributes, items and lines as one parse of it.
    #[test]
    fn large_files_parse_as_a_whole() {
        let mut text = String::from("#![allow(dead_code)]\n");
        for i in 0..3000 {
            text.push_str(&format!(
                "/// Type {i}.\npub struct S{i} {{ pub f: u8 }}\nimpl S{i} {{ fn g(&self) -> u8 {{ self.f }} }}\n"
            ));
        }
        assert!(text.len() > 2 * crate::source::syntax::PIECE_BYTES);
        assert!(crate::source::syntax::top_level_cuts(&text, crate::source::syntax::PIECE_BYTES).len() >= 2);
        let (pieces, whole) = (parse_file(&text).expect("parses"), syn::parse_file(&text).expect("parses"));
        assert_eq!(quote::quote!(#pieces).to_string(), quote::quote!(#whole).to_string());
        let lines = |f: &syn::File| -> Vec<usize> {
            f.items
                .iter()
                .filter_map(|i| match i {
                    syn::Item::Struct(s) => Some(s.ident.span().start().line),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(lines(&pieces), lines(&whole));
        assert_eq!(lines(&pieces)[2999], 2 + 2999 * 3 + 1);
        // A syntax error is the whole text's.
        let broken = format!("{text}struct Broken {{ x: }}\n");
        assert_eq!(parse_file(&broken).unwrap_err().span().start().line, 2 + 3000 * 3);
    }

    fn memory(files: &[(&str, &str)]) -> impl Fn(&Path) -> std::io::Result<String> {
        let map: std::collections::BTreeMap<PathBuf, String> =
            files.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect();
        move |p: &Path| map.get(p).cloned().ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
    }

    #[test]
    fn follows_file_inline_mod_rs_and_path_modules_skipping_tests() {
        let read = memory(&[
            (
                "src/lib.rs",
                "pub mod a; mod b; #[path = \"other/c_impl.rs\"] mod c; mod inline { pub fn f() {} }\n#[cfg(test)] mod tests;\npub use a::Thing;",
            ),
            ("src/a.rs", "pub struct Thing; mod deep;"),
            ("src/a/deep.rs", "fn d() {}"),
            ("src/b/mod.rs", "fn body() { let x = 1; let y = x + 1; }"),
            ("src/other/c_impl.rs", "fn c() {}"),
        ]);
        let krate = Crate::load("demo", Path::new("src/lib.rs"), &read).unwrap();
        let paths: Vec<String> = krate.modules.iter().map(|m| m.path.join("::")).collect();
        assert_eq!(paths, ["crate", "crate::a", "crate::a::deep", "crate::b", "crate::c", "crate::inline"]);
        assert_eq!(krate.modules[0].uses()[0].path, ["a", "Thing"]);
        assert!(krate.modules[0].pub_uses()[0]);
        let syn::Item::Fn(f) = krate.modules[3].items[0].get() else { panic!("fn expected") };
        assert_eq!(f.block.stmts.len(), 2, "fn bodies are parsed in full");
    }

    /// RBAC inference's loader reads the items the CRD index reads: a stackable-versioned module the expansion
    /// models becomes its version modules (each kind's spec with the `#[kube]` the macro writes), one it does not
    /// model stays as written under its versions' names, and `lazy_static!` declares statics.
    #[test]
    fn macros_kubesmith_knows_are_expanded_as_the_crd_index_expands_them() {
        let read = memory(&[(
            "src/lib.rs",
            "use stackable_operator::versioned::versioned;\n\
             #[versioned(version(name = \"v1alpha1\"), version(name = \"v1\"))]\n\
             pub mod herd {\n\
                 #[versioned(crd(group = \"herd.example.org\"))]\n\
                 #[derive(CustomResource)]\n\
                 pub struct FlockSpec { pub size: u8 }\n\
             }\n\
             #[versioned(version(name = \"v2\"))]\n\
             pub mod kept { pub fn not_modelled() {} }\n\
             lazy_static::lazy_static! { static ref NAME: String = String::new(); }\n",
        )]);
        let krate = Crate::load("demo", Path::new("src/lib.rs"), &read).unwrap();
        let root = &krate.modules[0];
        let names: Vec<&String> = root.children.keys().collect();
        assert_eq!(names, ["kept", "v1", "v1alpha1", "v2"]);
        assert_eq!(root.children["v2"], root.children["kept"], "a version of a module left as written is its name");
        for version in ["v1alpha1", "v1"] {
            let module = &krate.modules[root.children[version]];
            let spec = module.items.iter().find(|s| s.name() == Some("FlockSpec")).expect("the spec");
            let syn::Item::Struct(s) = spec.get() else { panic!("a struct") };
            let kube = s.attrs.iter().find(|a| a.path().is_ident("kube")).expect("the #[kube] the macro writes");
            let kube = quote::quote!(#kube).to_string();
            assert!(kube.contains(&format!("version = \"{version}\"")) && kube.contains("kind = \"Flock\""), "{kube}");
        }
        let statics: Vec<_> = root.items.iter().filter(|s| s.kind() == ItemKind::Static).map(|s| s.name()).collect();
        assert_eq!(statics, [Some("NAME")]);
    }

    #[test]
    fn missing_module_and_syntax_errors_name_the_place() {
        let read = memory(&[("src/main.rs", "mod gone;\n"), ("src/x.rs", "fn (")]);
        let err = Crate::load("demo", Path::new("src/main.rs"), &read).unwrap_err();
        assert_eq!((err.line, err.column), (1, 5));
        assert!(err.message.contains("src/gone.rs"), "{err}");
        let err = Crate::load("demo", Path::new("src/x.rs"), &read).unwrap_err();
        assert!(err.to_string().starts_with("src/x.rs:1:"), "{err}");
    }
}
