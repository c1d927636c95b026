//! Impl blocks and associated items (`Type::NAME`, `Type::f`, `Self::NAME`) of the crate's types: the lookup the
//! CRD generator's readers (custom schema fns, defaults, `schema_with` paths, a manual root schema's
//! `impl JsonSchema`, `merge_crds` arguments) make, by [`crate::source::impls`]' rules (RBAC inference's too): in
//! Rust's order — the type's inherent impls, then its trait impls — of the type and its aliases, with the impl block
//! each item is written in (its `Self`).

use super::code::CodeName;
use super::{CrateIndex, ImplBlock, ItemId, ModId};
use crate::source::impls;
use crate::source::resolve;

/// The type whose associated items are looked up.
#[derive(Debug, Clone, Copy)]
pub enum Owner<'s> {
    /// A crate item (`Self` where the evaluator knows the item).
    Item(ItemId),
    /// A type path written in the given module (`Type` of `Type::NAME`, or an impl's self type for `Self`).
    Path(ModId, &'s [String]),
    /// A kind type `#[derive(CustomResource)]` generates, which no item of the sources spells out: its number in
    /// [`CrateIndex::generated`]. An impl is its when the impl's self type names it where the impl is written
    /// ([`CrateIndex::resolve_code`]).
    Generated(usize),
}

impl CrateIndex {
    /// The crate item (a struct or enum, not an alias) a type path written in `module` names, through aliases.
    pub fn type_item(&self, module: ModId, segs: &[String]) -> Option<ItemId> {
        let resolve::Res::Item(CodeName::Item(id)) = self.resolve_code(module, segs, &[]) else { return None };
        if !self.items[id].kind.is_type() {
            return None;
        }
        match impls::alias_chain(self, CodeName::Item(id)) {
            (chain, true) => match chain.last() {
                Some(&CodeName::Item(last)) => Some(last),
                _ => None,
            },
            _ => None,
        }
    }

    /// The impl blocks of `owner`, in Rust's order for looking up an associated item ([`impls::impls_of`]):
    /// inherent impls first, then trait impls; of the type and of every alias of it (the ones a path leads along
    /// and the ones written for it, a stub's found by the names its aliases and `use .. as` renames hold). A
    /// path may name a kind type of the parsed files' derives ([`CrateIndex::generated`]); a kind of a file this
    /// index left a stub (one part of a split generation parses only its own kinds) is among the stub's names
    /// ([`StubNames`](super::StubNames)), so the lookup records the stub and the crate is loaded again with it
    /// parsed: no impl is matched by its name alone.
    pub fn assoc_impls(&self, owner: Owner) -> Vec<&ImplBlock> {
        let Some(ty) = self.owner_type(owner) else { return Vec::new() };
        impls::impls_of(self, ty).into_iter().map(|i| &self.impls[i]).collect()
    }

    /// The type `owner` names (a struct, enum or alias of the crate, or a kind type a derive generates).
    fn owner_type(&self, owner: Owner) -> Option<CodeName> {
        match owner {
            Owner::Item(id) => Some(CodeName::Item(id)),
            Owner::Generated(g) => Some(CodeName::Generated(g)),
            Owner::Path(module, segs) => match self.resolve_code(module, segs, &[]) {
                resolve::Res::Item(CodeName::Item(id)) if self.items[id].kind.is_type() => Some(CodeName::Item(id)),
                resolve::Res::Item(CodeName::Generated(g)) => Some(CodeName::Generated(g)),
                _ => None,
            },
        }
    }

    /// The first associated item of `owner` that `wanted` accepts ([`impls::assoc_item`]), with its impl block.
    #[cfg(test)]
    fn assoc_item(
        &self,
        owner: Owner,
        wanted: impl Fn(&syn::ImplItem) -> bool,
    ) -> Option<(&ImplBlock, &syn::ImplItem)> {
        let (imp, .., item) = impls::assoc_item(self, self.owner_type(owner)?, wanted)?;
        Some((&self.impls[imp], item))
    }

    /// The impl blocks of the crate item `id` that implement the trait named `trait_name` (by its last segment).
    pub(crate) fn trait_impls(&self, id: ItemId, trait_name: &str) -> impl Iterator<Item = &ImplBlock> {
        self.assoc_impls(Owner::Item(id)).into_iter().filter(move |i| i.trait_name.as_deref() == Some(trait_name))
    }

    /// The associated const `name` of `owner`, with the impl block it is written in. The readers find consts and fns
    /// through `source::eval::names`, over [`impls::assoc_item`] as this does; the tests below check the lookup here.
    #[cfg(test)]
    pub fn assoc_const(&self, owner: Owner, name: &str) -> Option<(&ImplBlock, &syn::ImplItemConst)> {
        match self.assoc_item(owner, |i| impls::is_const(i, name))? {
            (imp, syn::ImplItem::Const(c)) => Some((imp, c)),
            _ => None,
        }
    }

    /// The associated fn `name` of `owner`, with the impl block it is written in (for the tests, as `assoc_const`).
    #[cfg(test)]
    pub fn assoc_fn(&self, owner: Owner, name: &str) -> Option<(&ImplBlock, &syn::ImplItemFn)> {
        match self.assoc_item(owner, |i| impls::is_fn(i, name))? {
            (imp, syn::ImplItem::Fn(f)) => Some((imp, f)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::PathBuf;

    use super::*;
    use crate::crd::index::SourceSet;

    const SRC: &str = r#"
pub struct Limits;
pub type Alias = Limits;
pub type Outside = k8s_openapi::api::core::v1::Pod;
pub trait Named { const NAME: &'static str; fn make() -> u8; }
impl Named for Limits { const NAME: &'static str = "trait"; fn make() -> u8 { 1 } }
impl Limits { pub const NAME: &'static str = "inherent"; pub const ONLY_TRAIT_HAS_NOT: u8 = 3; }
impl Alias { pub fn make() -> u8 { 2 } }
pub mod other {
    pub struct Limits;
    impl Limits { pub const NAME: &'static str = "other"; }
    pub type Same = Limits;
    impl Same { pub const SAME: &'static str = "other's alias"; }
}
pub mod written {
    use super::Limits as Lim;
    pub type Second = Lim;
    pub type Third = Second;
    impl Third { pub const DEEP: u8 = 4; }
}
impl Generated { pub const KIND_NAME: &'static str = "generated"; }
pub mod renamed {
    use super::Limits as Lim;
    impl Lim { pub const RENAMED: u8 = 9; }
}
"#;

    fn index() -> (tempfile::TempDir, CrateIndex) {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("lib.rs"), SRC).expect("write");
        let force: BTreeSet<PathBuf> = [dir.path().join("lib.rs")].into();
        let ix = CrateIndex::load_with(&SourceSet::new(dir.path()), &force).expect("load");
        (dir, ix)
    }

    fn segs(path: &str) -> Vec<String> {
        path.split("::").map(str::to_string).collect()
    }

    fn value(c: &syn::ImplItemConst) -> String {
        let e = &c.expr;
        quote::quote!(#e).to_string()
    }

    #[test]
    fn inherent_impls_come_before_trait_impls_and_aliases_lead_to_their_type() {
        let (_dir, ix) = index();
        let limits = ix.type_item(0, &segs("Limits")).expect("Limits");
        assert_eq!(ix.type_item(0, &segs("Alias")), Some(limits));
        assert_eq!(ix.type_item(0, &segs("Outside")), None, "an alias of a type outside the crate");
        let (_, c) = ix.assoc_const(Owner::Item(limits), "NAME").expect("NAME");
        assert_eq!(value(c), "\"inherent\"");
        let (_, c) = ix.assoc_const(Owner::Path(0, &segs("Alias")), "NAME").expect("through the alias");
        assert_eq!(value(c), "\"inherent\"");
        // `impl Alias { fn make() }` is `Limits`' inherent impl: it comes before the trait's `make`, whichever name
        // the path uses.
        for path in ["Alias", "Limits"] {
            let (imp, _) = ix.assoc_fn(Owner::Path(0, &segs(path)), "make").expect("make");
            assert!(imp.trait_name.is_none() && imp.self_name == "Alias", "{path}");
        }
        let (imp, _) = ix.assoc_fn(Owner::Item(limits), "make").expect("make");
        assert!(imp.trait_name.is_none(), "the impls written for an alias are the type's own");
        let (imp, c) = ix.assoc_const(Owner::Item(limits), "DEEP").expect("through an alias of an alias of a rename");
        assert_eq!((value(c).as_str(), imp.self_name.as_str()), ("4", "Third"));
        let (_, c) = ix.assoc_const(Owner::Path(0, &segs("Alias")), "DEEP").expect("from another alias");
        assert_eq!(value(c), "4");
        assert!(ix.assoc_const(Owner::Item(limits), "SAME").is_none(), "an alias of another `Limits`");
        let (_, c) = ix.assoc_const(Owner::Path(0, &segs("other::Limits")), "SAME").expect("that one's");
        assert_eq!(value(c), "\"other's alias\"");
        let (_, c) = ix.assoc_const(Owner::Path(0, &segs("other::Limits")), "NAME").expect("other");
        assert_eq!(value(c), "\"other\"", "a type of the same name elsewhere is another type");
        assert!(ix.assoc_const(Owner::Item(limits), "MISSING").is_none());
        let (imp, c) = ix.assoc_const(Owner::Item(limits), "RENAMED").expect("an impl through a `use` rename");
        assert_eq!((value(c).as_str(), imp.self_name.as_str()), ("9", "Lim"));
    }

    #[test]
    fn a_generated_type_owns_the_impls_whose_self_type_names_it_where_they_are_written() {
        let src = r#"
pub mod v1 {
    #[derive(CustomResource)]
    #[kube(group = "g.io", version = "v1", kind = "Foo")]
    pub struct FooSpec {}
}
pub mod v2 {
    #[derive(CustomResource)]
    #[kube(group = "g.io", version = "v2", kind = "Foo")]
    pub struct FooSpec {}
    impl Foo { pub const STORED: &'static str = "v2 inherent"; }
}
pub mod other { pub struct Foo; impl Foo { pub const STORED: &'static str = "an item"; } }
use v1::Foo as Renamed;
trait Stored { const STORED: &'static str; }
impl Stored for v1::Foo { const STORED: &'static str = "v1 trait"; }
impl Renamed { pub const STORED: &'static str = "v1 inherent"; }
impl v2::Foo { pub fn f() {} }
"#;
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("lib.rs"), src).expect("write");
        let ix = CrateIndex::load(&SourceSet::new(dir.path())).expect("load");
        let number = |v: &str| ix.generated().specs.iter().position(|k| k.version == v).expect(v);
        let (v1, v2) = (number("v1"), number("v2"));
        let stored = |g| ix.assoc_const(Owner::Generated(g), "STORED").map(|(_, c)| value(c));
        assert_eq!(
            stored(v1).as_deref(),
            Some("\"v1 inherent\""),
            "through a `use` rename, inherent before the trait's"
        );
        assert_eq!(stored(v2).as_deref(), Some("\"v2 inherent\""), "`Foo` written in v2 is v2's");
        assert_eq!(ix.assoc_impls(Owner::Generated(v2)).len(), 2, "v2's own impl and `impl v2::Foo`, not other::Foo's");
        assert_eq!(ix.assoc_impls(Owner::Generated(v1)).len(), 2);
        assert!(ix.assoc_impls(Owner::Generated(7)).is_empty(), "a number no derive gives");
    }

    #[test]
    fn a_path_to_a_kind_type_of_the_parsed_derives_names_that_kind_not_another_of_its_name() {
        let kind = |v: &str| {
            format!(
                "pub mod {v} {{\n    #[derive(CustomResource)]\n    #[kube(group = \"g.io\", version = \"{v}\", kind = \"Foo\")]\n    \
                 pub struct FooSpec {{}}\n    impl Foo {{ pub const REPLICAS: i32 = {n}; }}\n}}\n",
                n = &v[1..]
            )
        };
        let src = format!("{}{}use v2::Foo as Latest;\n", kind("v1"), kind("v2"));
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("lib.rs"), src).expect("write");
        let ix = CrateIndex::load(&SourceSet::new(dir.path())).expect("load");
        assert_eq!(ix.generated().specs.len(), 2);
        let replicas = |path: &str| ix.assoc_const(Owner::Path(0, &segs(path)), "REPLICAS").map(|(_, c)| value(c));
        assert_eq!(replicas("v1::Foo").as_deref(), Some("1"));
        assert_eq!(replicas("v2::Foo").as_deref(), Some("2"), "not v1's, written first");
        assert_eq!(replicas("Latest").as_deref(), Some("2"), "through a `use` rename");
    }

    #[test]
    fn a_type_nothing_defines_or_generates_has_no_impls_even_when_one_is_written_for_its_name() {
        let (_dir, ix) = index();
        assert!(ix.assoc_const(Owner::Path(0, &segs("Generated")), "KIND_NAME").is_none(), "never a guess by name");
        assert!(ix.assoc_const(Owner::Path(0, &segs("Outside")), "NAME").is_none(), "an alias leads nowhere");
    }
}
