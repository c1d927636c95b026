//! Names as a reader of code sees them (`merge_crds` calls in fn bodies, the owners of associated items): any item
//! of the crate, and beside them the kind types `#[derive(CustomResource)]` generates, which no item of the sources
//! spells out ([`CrateIndex::generated`]); with the `use` declarations of the fn body the path is written in. The
//! rules are [`crate::source::resolve`]'s, as for every other lookup of the index (stubs a lookup could need are
//! recorded the same way).

use std::borrow::Cow;

use super::{CrateIndex, ItemId, ItemKind, Lookup, ModId, UseEntry};
use crate::source::constant::Constants;
use crate::source::impls::Impls;
use crate::source::kube_attrs::{self, KubeAttrs};
use crate::source::resolve::{self, Scopes};

/// What a name written in code stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeName {
    /// An item of the sources.
    Item(ItemId),
    /// A name a derive generates: its number among the names [`Generated`] knows.
    Generated(usize),
}

/// The names derives generate, by module and name.
pub(crate) type Generated = std::collections::HashMap<(ModId, String), usize>;

/// The kind types the parsed files' `#[derive(CustomResource)]`s generate.
#[derive(Debug, Default)]
pub(crate) struct GeneratedKinds {
    /// By the module of the spec and the root type's name (`#[kube(root = ..)]`, else the kind).
    pub names: Generated,
    /// By the number [`GeneratedKinds::names`] gives: the spec's `#[kube(..)]`.
    pub specs: Vec<KubeAttrs>,
}

impl CrateIndex {
    /// The index's names with the generated ones, for [`Scopes`] (a lookup of every kind of item).
    fn lookup(&self) -> Lookup<'_> {
        Lookup { ix: self, want: |_| true }
    }
}

/// The index as a reader of code sees it, as [`Scopes`] (and [`Impls`]: impl blocks by their number in
/// [`CrateIndex::impls`]): its items with the kind types its derives generate beside them ([`CrateIndex::generated`],
/// worked out when a lookup first needs them: most lookups of an item's impls find no impl block to resolve). A type
/// and a fn of one name: the type (the fn is what a call of it would name, and code readers look at types'
/// associated items).
impl Scopes for CrateIndex {
    type Mod = ModId;
    type Item = CodeName;

    fn root(&self, m: ModId) -> ModId {
        self.lookup().root(m)
    }

    fn parent(&self, m: ModId) -> Option<ModId> {
        self.lookup().parent(m)
    }

    fn child(&self, m: ModId, name: &str) -> Option<ModId> {
        self.lookup().child(m, name)
    }

    /// An item, else a generated name (a module cannot hold both under one name: the crate would not compile).
    fn defined(&self, m: ModId, name: &str) -> Option<CodeName> {
        let item = self.item_in(m, name, |k| !k.is_fn()).or_else(|| self.item_in(m, name, ItemKind::is_fn));
        if let Some(item) = item {
            return Some(CodeName::Item(item));
        }
        self.generated().names.get(&(m, name.to_string())).map(|&g| CodeName::Generated(g))
    }

    fn use_named(&self, m: ModId, name: &str) -> Option<UseEntry> {
        self.lookup().use_named(m, name)
    }

    fn globs(&self, m: ModId) -> Vec<UseEntry> {
        self.lookup().globs(m)
    }

    fn crate_named(&self, name: &str) -> Option<ModId> {
        self.lookup().crate_named(name)
    }

    fn value_only(&self, item: &CodeName) -> bool {
        matches!(*item, CodeName::Item(id) if self.items[id].kind.is_value())
    }
}

impl Impls for CrateIndex {
    type Impl = usize;

    fn type_name(&self, ty: &CodeName) -> Option<Cow<'_, str>> {
        match *ty {
            CodeName::Item(id) => Some(Cow::Borrowed(&self.items[id].name)),
            CodeName::Generated(g) => {
                self.generated().specs.get(g).map(|k| Cow::Borrowed(k.root.as_ref().unwrap_or(&k.kind).as_str()))
            }
        }
    }

    /// The impl blocks whose self type's last segment is `name`, or a name a `use .. as` of a parsed module gives a
    /// path ending in `name` (`use v1::Foo as Stored; impl Stored { .. }`); the stubs that may hold more are loaded.
    fn impls_named(&self, name: &str) -> Vec<usize> {
        let renames = self.renames().get(name).map_or(&[][..], Vec::as_slice);
        self.touch_impl_stubs(name);
        renames.iter().for_each(|r| self.touch_impl_stubs(r));
        let named = |i: &super::ImplBlock| i.self_name == name || renames.contains(&i.self_name);
        self.impls.iter().enumerate().filter(|(_, i)| named(i)).map(|(n, _)| n).collect()
    }

    fn impl_block(&self, imp: usize) -> Option<(ModId, &syn::ItemImpl)> {
        self.impls.get(imp).map(|block| (block.module, &block.item))
    }

    fn aliased(&self, ty: &CodeName) -> Option<(ModId, &syn::Type)> {
        match *ty {
            CodeName::Item(id) => match &self.items[id].kind {
                ItemKind::Alias(a) => Some((self.items[id].module, &a.ty)),
                _ => None,
            },
            CodeName::Generated(_) => None,
        }
    }

    /// The aliases whose target's last segment is `name`, or a name a `use .. as` of a parsed module gives a path
    /// ending in `name` (`use v1::Foo as Stored; type A = Stored;`); the stubs that may hold more are loaded.
    fn aliases_named(&self, name: &str) -> Vec<CodeName> {
        let renames = self.renames().get(name).map_or(&[][..], Vec::as_slice);
        self.touch_alias_stubs(name);
        renames.iter().for_each(|r| self.touch_alias_stubs(r));
        let by_target = self.aliases_by_target();
        if by_target.is_empty() {
            return Vec::new();
        }
        (std::iter::once(name).chain(renames.iter().map(String::as_str)))
            .flat_map(|n| by_target.get(n).into_iter().flatten())
            .map(|&id| CodeName::Item(id))
            .collect()
    }
}

impl Constants for CrateIndex {
    fn constant(&self, item: &CodeName) -> Option<(ModId, &syn::Expr)> {
        let CodeName::Item(id) = *item else { return None };
        match &self.items[id].kind {
            ItemKind::Const(c) => Some((self.items[id].module, &c.expr)),
            ItemKind::Static(s) if matches!(s.mutability, syn::StaticMutability::None) => {
                Some((self.items[id].module, &s.expr))
            }
            _ => None,
        }
    }
}

impl CrateIndex {
    /// The kind types the `#[derive(CustomResource)]`s of the crate's parsed files generate (a derive whose
    /// `#[kube(..)]` cannot be read generates none kubesmith knows of). Worked out once, when first asked.
    pub(crate) fn generated(&self) -> &GeneratedKinds {
        self.generated.get_or_init(|| {
            let mut out = GeneratedKinds::default();
            for (_, item) in self.own_items() {
                let attrs = match &item.kind {
                    ItemKind::Struct(s) => &s.attrs,
                    ItemKind::Enum(e) => &e.attrs,
                    _ => continue,
                };
                let Some(span) = kube_attrs::custom_resource_derive(attrs) else { continue };
                let Ok(k) = kube_attrs::parse(attrs, span) else { continue };
                let root = k.root.clone().unwrap_or_else(|| k.kind.clone());
                out.names.insert((item.module, root), out.specs.len());
                out.specs.push(k);
            }
            out
        })
    }

    /// What `segs`, written in `module` of a fn body whose own `use`s are `local`, names: an item, a generated name
    /// (either followed by associated names), a module, or a path outside the sources.
    pub(crate) fn resolve_code(
        &self,
        module: ModId,
        segs: &[String],
        local: &[UseEntry],
    ) -> resolve::Res<ModId, CodeName> {
        let file = self.modules[module].file;
        if self.files[file].stub.is_some() {
            self.touch(file);
        }
        resolve::resolve(self, module, segs, local)
    }
}
