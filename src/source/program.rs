//! Several fully parsed crates that refer to each other by crate name, and path resolution across them: what a
//! path written in a module names (an item, a module, a name a derive generates, or a path outside the sources),
//! through `use` (renames, globs, `pub use` re-exports), `crate`/`self`/`super` and other crates' names.

use std::borrow::Cow;
use std::collections::HashMap;

use super::constant::Constants;
use super::eval::Code;
use super::impls::Impls;
use super::modules::{Crate, ItemKind, ModId};
use super::resolve;
use super::syntax::UseEntry;

/// An item of the program: `crates[krate].modules[module].items[index]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct ItemKey {
    /// Crate index.
    pub krate: usize,
    /// Module index in the crate.
    pub module: ModId,
    /// Item index in the module.
    pub index: usize,
}

/// A module of the program (the default is the first crate's root).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct ModKey {
    /// Crate index.
    pub krate: usize,
    /// Module index in the crate.
    pub module: ModId,
}

/// What a path names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Res {
    /// An item of the sources.
    Item(ItemKey),
    /// An item of the sources followed by associated names (`Type::new`, `Enum::Variant`).
    Assoc(ItemKey, Vec<String>),
    /// A name registered with [`Program::add_generated`] (e.g. the kind struct `#[derive(CustomResource)]` makes).
    Generated(usize),
    /// A generated name followed by associated names.
    GeneratedAssoc(usize, Vec<String>),
    /// A module of the sources.
    Module(ModKey),
    /// Not in the sources: the full path as far as known (`["k8s_openapi", "api", "core", "v1", "Pod"]`).
    External(Vec<String>),
}

/// The crates of a program.
#[derive(Debug, Default)]
pub struct Program {
    /// The crates.
    pub crates: Vec<Crate>,
    by_crate_name: HashMap<String, Vec<usize>>,
    /// Names per module: name → item indexes (several when a type and a fn share a name).
    names: HashMap<ModKey, HashMap<String, Vec<usize>>>,
    generated: Vec<(ModKey, String)>,
    generated_names: HashMap<(ModKey, String), usize>,
    /// Modules looked at since [`Program::watch`], while watching.
    touched: std::cell::RefCell<Option<std::collections::BTreeSet<ModKey>>>,
    /// [`Program::renames_of`]'s map, worked out when first asked.
    renames: std::cell::OnceCell<HashMap<String, Vec<String>>>,
}

/// What a name of the program stands for besides a module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Named {
    /// An item of the sources.
    Item(ItemKey),
    /// A name registered with [`Program::add_generated`].
    Generated(usize),
}

impl resolve::Scopes for Program {
    type Mod = ModKey;
    type Item = Named;

    fn root(&self, m: ModKey) -> ModKey {
        ModKey { krate: m.krate, module: 0 }
    }

    fn parent(&self, m: ModKey) -> Option<ModKey> {
        self.module(m).parent.map(|p| ModKey { krate: m.krate, module: p })
    }

    fn child(&self, m: ModKey, name: &str) -> Option<ModKey> {
        self.module(m).children.get(name).map(|&c| ModKey { krate: m.krate, module: c })
    }

    fn defined(&self, m: ModKey, name: &str) -> Option<Named> {
        self.touch(m);
        if let Some(&g) = self.generated_names.get(&(m, name.to_string())) {
            return Some(Named::Generated(g));
        }
        let idx = self.names.get(&m).and_then(|n| n.get(name))?;
        // A type and a fn may share a name; prefer the type (the fn is found through the value path).
        let pick = idx.iter().copied().find(|&i| self.module(m).items[i].kind() != ItemKind::Fn).unwrap_or(idx[0]);
        Some(Named::Item(ItemKey { krate: m.krate, module: m.module, index: pick }))
    }

    fn use_named(&self, m: ModKey, name: &str) -> Option<UseEntry> {
        self.module(m).uses().iter().find(|u| !u.glob && u.alias == name).cloned()
    }

    fn globs(&self, m: ModKey) -> Vec<UseEntry> {
        self.module(m).uses().iter().filter(|u| u.glob).cloned().collect()
    }

    fn crate_named(&self, name: &str) -> Option<ModKey> {
        self.crates_named(name).first().map(|&k| ModKey { krate: k, module: 0 })
    }

    fn value_only(&self, item: &Named) -> bool {
        let Named::Item(key) = *item else { return false };
        let m = ModKey { krate: key.krate, module: key.module };
        matches!(self.module(m).items[key.index].kind(), ItemKind::Fn | ItemKind::Const | ItemKind::Static)
    }
}

impl Impls for Program {
    type Impl = ItemKey;

    fn type_name(&self, ty: &Named) -> Option<Cow<'_, str>> {
        match *ty {
            Named::Item(k) => super::syntax::item_name(self.item(k)).map(Cow::Owned),
            Named::Generated(g) => Some(Cow::Borrowed(&self.generated[g].1)),
        }
    }

    /// Every impl whose self type's last segment is `name` or a name a `use .. as` gives a path ending in `name`.
    fn impls_named(&self, name: &str) -> Vec<ItemKey> {
        let renames = self.renames_of(name);
        self.items_of(ItemKind::Impl)
            .filter(|(_, item)| {
                let syn::Item::Impl(imp) = item else { return false };
                let syn::Type::Path(p) = &*imp.self_ty else { return false };
                p.path.segments.last().is_some_and(|s| s.ident == name || renames.iter().any(|r| s.ident == r.as_str()))
            })
            .map(|(key, _)| key)
            .collect()
    }

    fn impl_block(&self, key: ItemKey) -> Option<(ModKey, &syn::ItemImpl)> {
        match self.item(key) {
            syn::Item::Impl(imp) => Some((ModKey { krate: key.krate, module: key.module }, imp)),
            _ => None,
        }
    }

    fn aliased(&self, ty: &Named) -> Option<(ModKey, &syn::Type)> {
        match *ty {
            Named::Item(k) => match self.item(k) {
                syn::Item::Type(t) => Some((ModKey { krate: k.krate, module: k.module }, &*t.ty)),
                _ => None,
            },
            Named::Generated(_) => None,
        }
    }

    /// Every alias whose target's last segment is `name` or a name a `use .. as` gives a path ending in `name`.
    fn aliases_named(&self, name: &str) -> Vec<Named> {
        let renames = self.renames_of(name);
        self.items_of(ItemKind::Alias)
            .filter(|(_, item)| {
                let syn::Item::Type(alias) = item else { return false };
                let Some(segs) = super::lex::type_path_segs(&alias.ty) else { return false };
                segs.last().is_some_and(|l| l == name || renames.contains(l))
            })
            .map(|(key, _)| Named::Item(key))
            .collect()
    }
}

impl Constants for Program {
    fn constant(&self, item: &Named) -> Option<(ModKey, &syn::Expr)> {
        let Named::Item(k) = *item else { return None };
        let at = ModKey { krate: k.krate, module: k.module };
        match self.item(k) {
            syn::Item::Const(c) => Some((at, &c.expr)),
            syn::Item::Static(s) if matches!(s.mutability, syn::StaticMutability::None) => Some((at, &s.expr)),
            _ => None,
        }
    }
}

/// The program as the interpreter of constant code reads it ([`super::eval`]: RBAC's `Resource` impls): an error is
/// why a value cannot be read; every body is whole.
impl Code for Program {
    type Error = String;
    type SelfItem = Named;

    fn self_name(&self, item: Named) -> Named {
        item
    }

    fn type_item(&self, at: ModKey, segs: &[String]) -> Option<Named> {
        let resolve::Res::Item(named) = resolve::resolve(self, at, segs, &[]) else { return None };
        let (chain, true) = super::impls::alias_chain(self, named) else { return None };
        let last = *chain.last()?;
        match last {
            Named::Item(k) => {
                matches!(self.item(k), syn::Item::Struct(_) | syn::Item::Enum(_) | syn::Item::Union(_)).then_some(last)
            }
            Named::Generated(_) => Some(last),
        }
    }

    fn function(&self, item: &Named) -> Option<(ModKey, &syn::Signature, &syn::Block)> {
        let Named::Item(k) = *item else { return None };
        match self.item(k) {
            syn::Item::Fn(f) => Some((ModKey { krate: k.krate, module: k.module }, &f.sig, &*f.block)),
            _ => None,
        }
    }

    fn needs_compile(&self, _: ModKey, _: proc_macro2::Span, _: &str, why: String) -> String {
        why
    }

    fn panics(&self, _: ModKey, _: proc_macro2::Span, what: String, _: &str) -> String {
        what
    }
}

impl Program {
    /// The names `use .. as` declarations give a path ending in `name` (`use v1::Foo as Stored;`).
    fn renames_of(&self, name: &str) -> &[String] {
        let renames = self.renames.get_or_init(|| {
            let mut out: HashMap<String, Vec<String>> = HashMap::new();
            for u in self.crates.iter().flat_map(|c| c.modules.iter().flat_map(|m| m.uses())) {
                if let Some(last) = u.path.last().filter(|l| !u.glob && **l != u.alias) {
                    let names = out.entry(last.clone()).or_default();
                    if !names.contains(&u.alias) {
                        names.push(u.alias.clone());
                    }
                }
            }
            out
        });
        renames.get(name).map_or(&[], Vec::as_slice)
    }

    /// A program of `crates`; several crates may share a name (a package's bins), the first one with a lib
    /// root wins for paths that name it.
    pub fn new(crates: Vec<Crate>) -> Program {
        let mut p = Program { crates, ..Program::default() };
        for (k, c) in p.crates.iter().enumerate() {
            p.by_crate_name.entry(c.name.clone()).or_default().push(k);
            for (m, module) in c.modules.iter().enumerate() {
                let names = p.names.entry(ModKey { krate: k, module: m }).or_default();
                for (i, item) in module.items.iter().enumerate() {
                    if let Some(n) = item.name() {
                        names.entry(n.to_string()).or_default().push(i);
                    }
                }
            }
        }
        p
    }

    /// Registers a name that a derive macro generates in `module` (e.g. `Widget` from `WidgetSpec`); returns its id.
    pub fn add_generated(&mut self, module: ModKey, name: &str) -> usize {
        let id = self.generated.len();
        self.generated.push((module, name.to_string()));
        self.generated_names.insert((module, name.to_string()), id);
        id
    }

    /// The item behind a key.
    pub fn item(&self, key: ItemKey) -> &syn::Item {
        self.touch(ModKey { krate: key.krate, module: key.module });
        self.crates[key.krate].modules[key.module].items[key.index].get()
    }

    /// Starts noting every module whose names, `use`s or items are looked at (what a result depends on).
    pub fn watch(&self) {
        *self.touched.borrow_mut() = Some(Default::default());
    }

    /// The modules looked at since [`Program::watch`], in order; stops watching.
    pub fn watched(&self) -> Vec<ModKey> {
        self.touched.borrow_mut().take().map(|s| s.into_iter().collect()).unwrap_or_default()
    }

    fn touch(&self, m: ModKey) {
        if let Some(t) = self.touched.borrow_mut().as_mut() {
            t.insert(m);
        }
    }

    /// The module tree: each module's crate, path and file, in order (equal trees give equal keys).
    pub fn tree(&self) -> Vec<String> {
        self.crates
            .iter()
            .enumerate()
            .flat_map(|(k, c)| c.modules.iter().map(move |m| format!("{k} {} {}", m.path.join("::"), m.file.display())))
            .collect()
    }

    /// The module of an item.
    pub fn module(&self, m: ModKey) -> &super::modules::Module {
        self.touch(m);
        &self.crates[m.krate].modules[m.module]
    }

    /// Crate indexes named `name` (lib crates first if several).
    pub fn crates_named(&self, name: &str) -> &[usize] {
        self.by_crate_name.get(name).map(Vec::as_slice).unwrap_or_default()
    }

    /// Every item of every crate with its key.
    pub fn items(&self) -> impl Iterator<Item = (ItemKey, &syn::Item)> {
        self.crates.iter().enumerate().flat_map(|(k, c)| {
            c.modules.iter().enumerate().flat_map(move |(m, module)| {
                module
                    .items
                    .iter()
                    .enumerate()
                    .map(move |(i, item)| (ItemKey { krate: k, module: m, index: i }, item.get()))
            })
        })
    }

    /// Every item of one kind with its key (items of other kinds are not built).
    pub fn items_of(&self, kind: ItemKind) -> impl Iterator<Item = (ItemKey, &syn::Item)> {
        self.crates.iter().enumerate().flat_map(move |(k, c)| {
            c.modules.iter().enumerate().flat_map(move |(m, module)| {
                module
                    .items
                    .iter()
                    .enumerate()
                    .filter(move |(_, item)| item.kind() == kind)
                    .map(move |(i, item)| (ItemKey { krate: k, module: m, index: i }, item.get()))
            })
        })
    }

    /// What a type written in module `at` names: its path's resolution (through parentheses); an empty outside path
    /// for any other type.
    pub fn type_named(&self, at: ModKey, ty: &syn::Type) -> Res {
        match super::lex::type_path_segs(ty) {
            Some(segs) => self.resolve(at, &segs, &[]),
            None => Res::External(Vec::new()),
        }
    }

    /// The paths outside the sources a path that resolves to none of their items may name through glob imports
    /// ([`resolve::external_candidates`]: `pub use k8s_openapi::api::apps::v1::*;` in a module it leads to).
    pub fn external_candidates(&self, at: ModKey, segs: &[String], local: &[UseEntry]) -> Vec<Vec<String>> {
        resolve::external_candidates(self, at, segs, local)
    }

    /// What `segs`, written in module `at` (with the extra `use` entries `local` of an enclosing fn body), names,
    /// by [`super::resolve`]'s rules (the CRD generator's too).
    pub fn resolve(&self, at: ModKey, segs: &[String], local: &[UseEntry]) -> Res {
        let named = |n: Named, rest: Option<Vec<String>>| match (n, rest) {
            (Named::Item(k), None) => Res::Item(k),
            (Named::Item(k), Some(rest)) => Res::Assoc(k, rest),
            (Named::Generated(g), None) => Res::Generated(g),
            (Named::Generated(g), Some(rest)) => Res::GeneratedAssoc(g, rest),
        };
        match resolve::resolve(self, at, segs, local) {
            resolve::Res::Item(n) => named(n, None),
            resolve::Res::Assoc(n, rest) => named(n, Some(rest)),
            resolve::Res::Module(m) => Res::Module(m),
            resolve::Res::External(p) => Res::External(p),
        }
    }

    /// Where a generated name lives and what it is called.
    #[cfg(test)]
    pub fn generated(&self, id: usize) -> (ModKey, &str) {
        let (m, n) = &self.generated[id];
        (*m, n)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::source::syntax::item_name;

    /// `(crate name, root file, files)`.
    type Spec<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);

    fn program(crates: &[Spec]) -> Program {
        let mut out = Vec::new();
        for (name, root, files) in crates {
            let map: BTreeMap<PathBuf, String> = files.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect();
            let read =
                move |p: &Path| map.get(p).cloned().ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound));
            out.push(Crate::load(name, Path::new(root), &read).unwrap());
        }
        Program::new(out)
    }

    fn segs(p: &str) -> Vec<String> {
        p.split("::").map(str::to_string).collect()
    }

    fn name_of(p: &Program, r: &Res) -> String {
        match r {
            Res::Item(k) => item_name(p.item(*k)).unwrap(),
            Res::Generated(g) => p.generated(*g).1.to_string(),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn resolves_across_crates_re_exports_renames_and_globs() {
        let mut p = program(&[
            (
                "ops_api",
                "a/lib.rs",
                &[
                    (
                        "a/lib.rs",
                        "pub mod kinds; pub use kinds::{Engine as Motor, EngineSpec};\npub mod prelude { pub use crate::kinds::*; }",
                    ),
                    ("a/kinds.rs", "pub struct EngineSpec; pub fn helper() {}"),
                ],
            ),
            (
                "ops",
                "b/main.rs",
                &[(
                    "b/main.rs",
                    "use ops_api::Motor as M; use ops_api::prelude::*; use k8s_openapi::api::core::v1 as corev1;\nmod inner { use super::*; }\nfn main() {}",
                )],
            ),
        ]);
        let kinds = ModKey { krate: 0, module: 1 };
        p.add_generated(kinds, "Engine");
        let main = ModKey { krate: 1, module: 0 };
        assert_eq!(name_of(&p, &p.resolve(main, &segs("M"), &[])), "Engine");
        assert_eq!(name_of(&p, &p.resolve(main, &segs("helper"), &[])), "helper");
        assert_eq!(name_of(&p, &p.resolve(main, &segs("ops_api::kinds::EngineSpec"), &[])), "EngineSpec");
        assert_eq!(p.resolve(main, &segs("corev1::Pod"), &[]), Res::External(segs("k8s_openapi::api::core::v1::Pod")));
        assert_eq!(p.resolve(main, &segs("Option"), &[]), Res::External(segs("Option")));
        let inner = ModKey { krate: 1, module: 1 };
        assert_eq!(p.resolve(inner, &segs("corev1::Pod"), &[]), Res::External(segs("k8s_openapi::api::core::v1::Pod")));
        let local =
            vec![UseEntry { alias: "Api".into(), path: segs("kube::api::Api"), glob: false, vis: Default::default() }];
        assert_eq!(p.resolve(main, &segs("Api::all"), &local), Res::External(segs("kube::api::Api::all")));
        match p.resolve(main, &segs("ops_api::Motor::new"), &[]) {
            Res::GeneratedAssoc(_, rest) => assert_eq!(rest, ["new"]),
            other => panic!("{other:?}"),
        }
    }
}
