//! The one answer to "what does this path name" for every reader of Rust (the CRD generator's lazy index and the
//! fully parsed [`super::Program`] of RBAC inference alike): a path written in a module leads to an item, an item
//! followed by associated names, a module, or a path outside the sources, through `use` (renames, globs, `pub use`
//! re-exports), `crate`/`self`/`super`, child modules and other crates' names. Readers describe their module tree
//! through [`Scopes`]; the rules live here once.

use std::cell::RefCell;
use std::collections::BTreeMap;

use super::syntax::UseEntry;

/// How deep `use` chains and globs are followed (a `use` cycle ends here).
const MAX_DEPTH: usize = 24;

/// A reader's module tree, as the resolver sees it.
pub trait Scopes {
    /// A module (of one of the reader's crates).
    type Mod: Copy + Ord;
    /// What a name can stand for besides a module (an item, a name a derive generates).
    type Item: Clone + PartialEq;

    /// The root module of the crate `m` belongs to.
    fn root(&self, m: Self::Mod) -> Self::Mod;
    /// The parent of `m` (`None` for a crate root).
    fn parent(&self, m: Self::Mod) -> Option<Self::Mod>;
    /// The child module `name` declares in `m`.
    fn child(&self, m: Self::Mod, name: &str) -> Option<Self::Mod>;
    /// What `name` stands for as defined in `m` itself (an item, or a name a derive generates), if anything.
    fn defined(&self, m: Self::Mod, name: &str) -> Option<Self::Item>;
    /// The `use` of `m` that brings in `name` (not a glob).
    fn use_named(&self, m: Self::Mod, name: &str) -> Option<UseEntry>;
    /// The glob `use`s of `m`.
    fn globs(&self, m: Self::Mod) -> Vec<UseEntry>;
    /// The root module of another crate of the reader named `name`.
    fn crate_named(&self, name: &str) -> Option<Self::Mod>;
    /// Whether `item` lives in the value namespace alone (a fn, a const, a static): no path goes through it, so
    /// where a module shares its name (`mod defaults; fn defaults()`), `defaults::PORT` is the module's.
    fn value_only(&self, item: &Self::Item) -> bool;
}

/// What one query (one path resolved) learnt of names searched through globs: each module's glob imports are searched
/// once per name, and a search that leads back to one in progress finds nothing there, so glob cycles (`pub use a::*;`
/// in `b` and `pub use b::*;` in `a`, any number of modules round) end at once instead of trying every path round them.
struct Memo<S: Scopes + ?Sized> {
    /// What a name is in a module, through its globs (`None`: nothing, or being searched).
    names: RefCell<Found<S, Resolved<S>>>,
    /// What module a name is in a module, through its globs of the sources.
    modules: RefCell<Found<S, S::Mod>>,
}

/// What a path names, for a reader.
type Resolved<S> = Res<<S as Scopes>::Mod, <S as Scopes>::Item>;

/// Per module and name, what a search through globs found.
type Found<S, T> = BTreeMap<(<S as Scopes>::Mod, String), Option<T>>;

impl<S: Scopes + ?Sized> Default for Memo<S> {
    fn default() -> Self {
        Memo { names: RefCell::default(), modules: RefCell::default() }
    }
}

/// `segs` with a leading `Self` replaced by the path of `self_ty`, the self type of the impl block they are written
/// in (so they resolve where that impl is written, as Rust reads `Self::NAME`); `None` when they start with `Self`
/// and no path type stands for it there.
pub(crate) fn with_self(mut segs: Vec<String>, self_ty: Option<&syn::Type>) -> Option<Vec<String>> {
    if segs.first().is_none_or(|s| s != "Self") {
        return Some(segs);
    }
    let mut full = super::lex::type_path_segs(self_ty?)?;
    full.extend(segs.drain(1..));
    Some(full)
}

/// What a path names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Res<M, I> {
    /// A name defined in the sources.
    Item(I),
    /// A name of the sources followed by associated names (`Type::new`, `Enum::Variant`).
    Assoc(I, Vec<String>),
    /// A module of the sources.
    Module(M),
    /// Not in the sources: the full path as far as known (`["k8s_openapi", "api", "core", "v1", "Pod"]`).
    External(Vec<String>),
}

/// What `segs`, written in module `at` (with the extra `use` entries `local` of an enclosing fn body), names.
pub fn resolve<S: Scopes>(s: &S, at: S::Mod, segs: &[String], local: &[UseEntry]) -> Res<S::Mod, S::Item> {
    let mm = &Memo::default();
    resolve_depth(s, mm, at, segs, local, 0)
}

/// The module a path written in `at` names (`crate::a`, `super::b`, `v1` imported by a glob), if it names one.
pub fn module_of_path<S: Scopes>(s: &S, at: S::Mod, path: &[String]) -> Option<S::Mod> {
    let mm = &Memo::default();
    match resolve_prefix(s, mm, at, path, &[], 0) {
        Res::Module(m) if !path.is_empty() => Some(m),
        _ => None,
    }
}

/// The paths outside the sources `segs`, written in `at`, may name through glob imports of such paths, for a path
/// the rules lead to no item: where it stops in a module of the sources (at a name that module neither defines nor
/// imports by name), each glob of that module that leads outside the sources (`pub use k8s_openapi::api::apps::v1::*;`)
/// continued with the rest of the path, also through globs of other modules of the sources, each module once.
/// Several globs give several candidates: a reader keeps one only when it knows that path (k8s-openapi's resources),
/// never guessing which glob holds the name.
pub fn external_candidates<S: Scopes>(s: &S, at: S::Mod, segs: &[String], local: &[UseEntry]) -> Vec<Vec<String>> {
    let mm = &Memo::default();
    let mut search = Search { seen: Vec::new(), out: Vec::new(), budget: MAX_GLOB_SEARCH };
    match dead_end(s, mm, at, segs, local) {
        Some((m, i)) => search.globs(s, mm, m, &segs[i..], &[], 0),
        // The path's first name is not a module: it is looked up in `at`'s globs.
        None => search.globs(s, mm, at, segs, local, 0),
    }
    search.out
}

/// Most candidates [`external_candidates`] gives.
const MAX_CANDIDATES: usize = 64;
/// Most (module, rest of the path) pairs one [`external_candidates`] search visits.
const MAX_GLOB_SEARCH: usize = 256;

/// Where a path stops in the sources: the module its longest prefix names (of at least one segment) and the
/// index of the first segment that module does not hold.
fn dead_end<S: Scopes>(
    s: &S,
    mm: &Memo<S>,
    at: S::Mod,
    segs: &[String],
    local: &[UseEntry],
) -> Option<(S::Mod, usize)> {
    (1..segs.len()).rev().find_map(|i| match resolve_prefix(s, mm, at, &segs[..i], local, 0) {
        Res::Module(m) => Some((m, i)),
        _ => None,
    })
}

/// The state of one [`external_candidates`] search.
struct Search<M> {
    /// Modules searched, with the rest of the path they were searched for.
    seen: Vec<(M, Vec<String>)>,
    out: Vec<Vec<String>>,
    budget: usize,
}

impl<M: Copy + PartialEq> Search<M> {
    /// The candidates for `rest` in module `m`: each glob of `m` (and `local`'s) leading outside the sources
    /// continued with `rest`; globs leading to modules of the sources, or to paths that stop in them, searched in turn.
    fn globs<S: Scopes<Mod = M>>(
        &mut self,
        s: &S,
        mm: &Memo<S>,
        m: M,
        rest: &[String],
        local: &[UseEntry],
        depth: usize,
    ) {
        if depth > MAX_DEPTH || self.budget == 0 || self.out.len() >= MAX_CANDIDATES {
            return;
        }
        if self.seen.iter().any(|(seen, r)| *seen == m && r.as_slice() == rest) {
            return;
        }
        self.budget -= 1;
        self.seen.push((m, rest.to_vec()));
        let globs: Vec<UseEntry> = local.iter().filter(|u| u.glob).cloned().chain(s.globs(m)).collect();
        for u in globs {
            match resolve_use_prefix(s, mm, m, &u.path, depth + 1) {
                Res::Module(inner) => self.globs(s, mm, inner, rest, &[], depth + 1),
                Res::External(path) => match dead_end(s, mm, m, &u.path, &[]) {
                    // `pub use crate::k8s::api::*;` where `crate::k8s` glob-imports k8s-openapi.
                    Some((inner, i)) => {
                        let longer: Vec<String> = u.path[i..].iter().chain(rest).cloned().collect();
                        self.globs(s, mm, inner, &longer, &[], depth + 1);
                    }
                    None => {
                        let path: Vec<String> = path.into_iter().chain(rest.iter().cloned()).collect();
                        if !self.out.contains(&path) && self.out.len() < MAX_CANDIDATES {
                            self.out.push(path);
                        }
                    }
                },
                _ => {}
            }
        }
    }
}

fn resolve_depth<S: Scopes>(
    s: &S,
    mm: &Memo<S>,
    at: S::Mod,
    segs: &[String],
    local: &[UseEntry],
    depth: usize,
) -> Res<S::Mod, S::Item> {
    if segs.is_empty() || depth > MAX_DEPTH {
        return Res::External(segs.to_vec());
    }
    let last = &segs[segs.len() - 1];
    if segs.len() == 1 {
        let found = resolve_name(s, mm, at, last, local, depth);
        if !matches!(found, Res::Module(_)) {
            return found;
        }
        // `use kit::apply;` brings both `kit`'s module `apply` and the fn it re-exports under that name.
        let u = local.iter().rev().find(|u| !u.glob && u.alias == *last).cloned().or_else(|| s.use_named(at, last));
        return match u.map(|u| resolve_use_as(s, mm, at, &u.path, depth + 1, true)) {
            Some(r @ (Res::Item(_) | Res::Assoc(..))) => r,
            _ => found,
        };
    }
    match resolve_prefix(s, mm, at, &segs[..segs.len() - 1], local, depth) {
        Res::Module(m) => last_in_module(s, mm, m, last, depth + 1).unwrap_or_else(|| Res::External(segs.to_vec())),
        other => then(other, last),
    }
}

/// The last segment of a path, in module `m`: as [`name_in_module`], but a name that is both a child module and
/// an item a `use` brings in (`pub mod apply; pub use apply::apply;`) is the item, since a path's last segment
/// names a value or a type, never a module (a module and a fn live in different namespaces).
fn last_in_module<S: Scopes>(s: &S, mm: &Memo<S>, m: S::Mod, name: &str, depth: usize) -> Option<Res<S::Mod, S::Item>> {
    let found = name_in_module(s, mm, m, name, depth);
    if !matches!(found, Some(Res::Module(_))) || depth > MAX_DEPTH {
        return found;
    }
    match s.use_named(m, name).map(|u| resolve_use_as(s, mm, m, &u.path, depth + 1, true)) {
        Some(r @ (Res::Item(_) | Res::Assoc(..))) => Some(r),
        _ => found,
    }
}

/// `prefix` followed by one more segment that is not a module's.
fn then<M, I>(prefix: Res<M, I>, seg: &str) -> Res<M, I> {
    match prefix {
        Res::Item(key) => Res::Assoc(key, vec![seg.to_string()]),
        Res::Assoc(key, mut rest) => {
            rest.push(seg.to_string());
            Res::Assoc(key, rest)
        }
        Res::External(mut p) => {
            p.push(seg.to_string());
            Res::External(p)
        }
        Res::Module(m) => Res::Module(m),
    }
}

/// Resolves a path used as a prefix (a module, a type, or something external).
fn resolve_prefix<S: Scopes>(
    s: &S,
    mm: &Memo<S>,
    at: S::Mod,
    segs: &[String],
    local: &[UseEntry],
    depth: usize,
) -> Res<S::Mod, S::Item> {
    let Some(first) = segs.first() else {
        return Res::Module(at);
    };
    let mut cur = match first.as_str() {
        "crate" => Res::Module(s.root(at)),
        "self" => Res::Module(at),
        "super" => match s.parent(at) {
            Some(p) => Res::Module(p),
            None => return Res::External(segs.to_vec()),
        },
        _ => through(s, mm, at, first, resolve_name(s, mm, at, first, local, depth), depth),
    };
    for seg in &segs[1..] {
        cur = match cur {
            Res::Module(m) if seg == "super" => match s.parent(m) {
                Some(p) => Res::Module(p),
                None => return Res::External(segs.to_vec()),
            },
            Res::Module(m) => match name_in_module(s, mm, m, seg, depth + 1) {
                Some(r) => through(s, mm, m, seg, r, depth + 1),
                None => return Res::External(segs.to_vec()),
            },
            other => then(other, seg),
        };
    }
    cur
}

/// What `name`, found as `found` in module `m`, is when a path goes on after it: a value-only item (a fn, a const)
/// cannot be gone through, so a child module of that name, else what the module's `use` of it brings, is (a
/// module and a fn of one name live in different namespaces).
fn through<S: Scopes>(
    s: &S,
    mm: &Memo<S>,
    m: S::Mod,
    name: &str,
    found: Res<S::Mod, S::Item>,
    depth: usize,
) -> Res<S::Mod, S::Item> {
    let Res::Item(item) = &found else { return found };
    if !s.value_only(item) || depth > MAX_DEPTH {
        return found;
    }
    if let Some(child) = s.child(m, name) {
        return Res::Module(child);
    }
    match s.use_named(m, name).map(|u| resolve_use_prefix(s, mm, m, &u.path, depth + 1)) {
        Some(r @ Res::Module(_)) => r,
        _ => found,
    }
}

/// A single name in scope at `at`: local `use`s, the module's own names, its `use`s, child modules, its globs,
/// then crate names; anything else is external (std's prelude, a dependency).
fn resolve_name<S: Scopes>(
    s: &S,
    mm: &Memo<S>,
    at: S::Mod,
    name: &str,
    local: &[UseEntry],
    depth: usize,
) -> Res<S::Mod, S::Item> {
    if let Some(u) = local.iter().rev().find(|u| !u.glob && u.alias == name) {
        return resolve_use(s, mm, at, &u.path, depth + 1);
    }
    if let Some(r) = name_in_module(s, mm, at, name, depth + 1) {
        return r;
    }
    for u in local.iter().filter(|u| u.glob) {
        if let Res::Module(m) = resolve_use_prefix(s, mm, at, &u.path, depth + 1)
            && let Some(r) = name_in_module(s, mm, m, name, depth + 1)
        {
            return r;
        }
    }
    if let Some(k) = s.crate_named(name) {
        return Res::Module(k);
    }
    Res::External(vec![name.to_string()])
}

/// A name defined in or imported into module `m`: its own names, child modules, `use` aliases, globs.
fn name_in_module<S: Scopes>(s: &S, mm: &Memo<S>, m: S::Mod, name: &str, depth: usize) -> Option<Res<S::Mod, S::Item>> {
    if depth > MAX_DEPTH {
        return None;
    }
    if let Some(item) = s.defined(m, name) {
        return Some(Res::Item(item));
    }
    if let Some(child) = s.child(m, name) {
        return Some(Res::Module(child));
    }
    if let Some(u) = s.use_named(m, name) {
        return Some(resolve_use(s, mm, m, &u.path, depth + 1));
    }
    let globs = s.globs(m);
    if globs.is_empty() {
        return None;
    }
    let key = (m, name.to_string());
    if let Some(known) = mm.names.borrow().get(&key) {
        return known.clone();
    }
    // In progress: a glob leading back here finds nothing more.
    mm.names.borrow_mut().insert(key.clone(), None);
    let found = globs.into_iter().find_map(|u| match resolve_use_prefix(s, mm, m, &u.path, depth + 1) {
        Res::Module(inner) if inner != m => name_in_module(s, mm, inner, name, depth + 1),
        _ => None,
    });
    mm.names.borrow_mut().insert(key, found.clone());
    found
}

/// A `use` path written in `at`: `crate::`/`self::`/`super::`, a name in scope there, another crate, or external.
fn resolve_use<S: Scopes>(s: &S, mm: &Memo<S>, at: S::Mod, path: &[String], depth: usize) -> Res<S::Mod, S::Item> {
    resolve_use_as(s, mm, at, path, depth, false)
}

/// [`resolve_use`]; with `last`, the `use` path's last segment is the last of the path being resolved
/// ([`last_in_module`]).
fn resolve_use_as<S: Scopes>(
    s: &S,
    mm: &Memo<S>,
    at: S::Mod,
    path: &[String],
    depth: usize,
    last_segment: bool,
) -> Res<S::Mod, S::Item> {
    if depth > MAX_DEPTH || path.is_empty() {
        return Res::External(path.to_vec());
    }
    if path.len() == 1 {
        if let Some(k) = s.crate_named(&path[0]) {
            return Res::Module(k);
        }
        return Res::External(path.to_vec());
    }
    let last = &path[path.len() - 1];
    match resolve_use_prefix(s, mm, at, &path[..path.len() - 1], depth) {
        Res::Module(m) if last_segment => {
            last_in_module(s, mm, m, last, depth + 1).unwrap_or_else(|| Res::External(path.to_vec()))
        }
        Res::Module(m) => name_in_module(s, mm, m, last, depth + 1).unwrap_or_else(|| Res::External(path.to_vec())),
        // An item's associated name, or a path outside the sources continued (`use kit::k8s::apps::v1::Deployment;`
        // where `kit` has `pub use k8s_openapi::api as k8s;`).
        other => then(other, last),
    }
}

fn resolve_use_prefix<S: Scopes>(
    s: &S,
    mm: &Memo<S>,
    at: S::Mod,
    path: &[String],
    depth: usize,
) -> Res<S::Mod, S::Item> {
    let Some(first) = path.first() else {
        return Res::Module(at);
    };
    let mut cur = match first.as_str() {
        "crate" | "self" | "super" => return resolve_prefix(s, mm, at, path, &[], depth),
        _ if s.child(at, first).is_some() => return resolve_prefix(s, mm, at, path, &[], depth),
        _ => match s.crate_named(first) {
            Some(k) => Res::Module(k),
            // A module the `use`'s own module imports (`use super::*;` then `use v1::Status;`).
            None => match imported_module(s, mm, at, first, depth + 1) {
                Some(m) => Res::Module(m),
                // A path outside the sources the module imports by name (`use k8s_openapi::api as k8s;` then
                // `use k8s::apps::v1::Deployment;`).
                None => match s.use_named(at, first) {
                    Some(u) if depth < MAX_DEPTH => match resolve_use(s, mm, at, &u.path, depth + 1) {
                        Res::External(p) if p.len() > 1 || p[..] != path[..1] => Res::External(p),
                        _ => return Res::External(path.to_vec()),
                    },
                    _ => return Res::External(path.to_vec()),
                },
            },
        },
    };
    for seg in &path[1..] {
        cur = match cur {
            Res::Module(m) if seg == "super" => match s.parent(m) {
                Some(p) => Res::Module(p),
                None => return Res::External(path.to_vec()),
            },
            Res::Module(m) => match name_in_module(s, mm, m, seg, depth + 1) {
                Some(r) => r,
                None => return Res::External(path.to_vec()),
            },
            other => then(other, seg),
        };
    }
    cur
}

/// The module `name` stands for in `at` through a `use` of it, or as a child of a module `at` glob-imports from the
/// sources (`use super::*;`). Globs of other crates are not followed: they hold no module of the sources, and
/// following them from here would search every glob again at each level.
fn imported_module<S: Scopes>(s: &S, mm: &Memo<S>, at: S::Mod, name: &str, depth: usize) -> Option<S::Mod> {
    if depth > MAX_DEPTH {
        return None;
    }
    if let Some(u) = s.use_named(at, name) {
        return match resolve_use(s, mm, at, &u.path, depth + 1) {
            Res::Module(m) => Some(m),
            _ => None,
        };
    }
    let local = |u: &UseEntry| {
        u.path.first().is_some_and(|f| matches!(f.as_str(), "crate" | "self" | "super") || s.child(at, f).is_some())
    };
    let globs: Vec<UseEntry> = s.globs(at).into_iter().filter(local).collect();
    if globs.is_empty() {
        return None;
    }
    let key = (at, name.to_string());
    if let Some(known) = mm.modules.borrow().get(&key) {
        return *known;
    }
    mm.modules.borrow_mut().insert(key.clone(), None);
    let found = globs.into_iter().find_map(|u| match resolve_prefix(s, mm, at, &u.path, &[], depth + 1) {
        Res::Module(inner) if inner != at => {
            s.child(inner, name).or_else(|| imported_module(s, mm, inner, name, depth + 1))
        }
        _ => None,
    });
    mm.modules.borrow_mut().insert(key, found);
    found
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::source::{Crate, ModKey, Program, Res as ProgramRes};

    fn program(files: &[(&str, &str)]) -> Program {
        let map: BTreeMap<PathBuf, String> = files.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect();
        let read =
            move |p: &Path| map.get(p).cloned().ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound));
        Program::new(vec![Crate::load("ops", Path::new("lib.rs"), &read).unwrap()])
    }

    fn segs(p: &str) -> Vec<String> {
        p.split("::").map(str::to_string).collect()
    }

    /// The module path of the item a path names, or what it resolved to.
    fn item_module(p: &Program, at: ModKey, path: &str) -> String {
        match p.resolve(at, &segs(path), &[]) {
            ProgramRes::Item(k) => p.module(ModKey { krate: k.krate, module: k.module }).path.join("::"),
            other => format!("{other:?}"),
        }
    }

    const TREE: &str = "pub mod paths {\n\
        pub mod v1 { pub struct Status; }\n\
        pub mod v2 { pub struct Status; }\n\
        pub mod kinds {\n\
            use super::*;\n\
            use super::v2 as second;\n\
            use second::Status as Two;\n\
            use v1::Status as One;\n\
            use k8s_openapi::api::core::v1::*;\n\
            use serde_json::*;\n\
        }\n\
    }\n";

    #[test]
    fn modules_imported_by_globs_and_renames_lead_to_their_items() {
        let p = program(&[("lib.rs", TREE)]);
        let at = |path: &[&str]| {
            let module = p.crates[0].modules.iter().position(|m| m.path == path).expect("module");
            ModKey { krate: 0, module }
        };
        let kinds = at(&["crate", "paths", "kinds"]);
        assert_eq!(item_module(&p, kinds, "v1::Status"), "crate::paths::v1", "v1 through `use super::*`");
        assert_eq!(item_module(&p, kinds, "v2::Status"), "crate::paths::v2");
        assert_eq!(item_module(&p, kinds, "second::Status"), "crate::paths::v2");
        assert_eq!(item_module(&p, kinds, "Two"), "crate::paths::v2", "a `use` through a renamed module");
        assert_eq!(item_module(&p, kinds, "One"), "crate::paths::v1", "a `use` through a glob-imported module");
        assert_eq!(item_module(&p, kinds, "self::super::v1::Status"), "crate::paths::v1");
        assert_eq!(item_module(&p, kinds, "crate::paths::v2::Status"), "crate::paths::v2");
        // A name two glob-imported modules could hold is not guessed.
        assert_eq!(p.resolve(kinds, &segs("Status"), &[]), ProgramRes::External(segs("Status")));
        assert_eq!(module_of_path(&p, kinds, &segs("v1")), Some(at(&["crate", "paths", "v1"])));
        assert_eq!(module_of_path(&p, kinds, &segs("corev1")), None);
    }

    #[test]
    fn a_path_goes_through_the_module_a_fn_or_const_shares_its_name_with() {
        // `mod defaults; fn defaults()`: `defaults::PORT` is the module's const, `defaults` alone the fn; a `use`
        // of a module beside a fn of its name leads the same way.
        let p = program(&[(
            "lib.rs",
            "pub mod defaults { pub const PORT: u16 = 1; pub mod inner { pub struct Deep; } }\n\
             pub fn defaults() -> u16 { 2 }\n\
             pub mod other { pub mod limits { pub const MAX: u8 = 3; } }\n\
             pub mod op { use crate::other::limits; pub const limits: u8 = 0; }\n",
        )]);
        let root = ModKey { krate: 0, module: 0 };
        let op = p.crates[0].modules.iter().position(|m| m.path == ["crate", "op"]).expect("op");
        let op = ModKey { krate: 0, module: op };
        assert_eq!(item_module(&p, root, "defaults::PORT"), "crate::defaults");
        assert_eq!(item_module(&p, root, "defaults::inner::Deep"), "crate::defaults::inner");
        assert_eq!(item_module(&p, root, "crate::defaults::PORT"), "crate::defaults");
        assert_eq!(item_module(&p, root, "defaults"), "crate", "the fn, at a path's end");
        assert_eq!(item_module(&p, op, "limits::MAX"), "crate::other::limits");
    }

    #[test]
    fn a_fn_re_exported_beside_its_module_of_the_same_name_is_the_fn_at_a_path_end() {
        // `pub mod apply; pub use apply::apply;`: the module is the type namespace's `apply`, the fn the value's.
        let p = program(&[(
            "lib.rs",
            "pub mod apply { pub fn apply() {} pub fn create_in() {} }\npub use apply::apply;\n\
             pub mod op { use crate::apply; }\n",
        )]);
        let root = ModKey { krate: 0, module: 0 };
        let op = ModKey { krate: 0, module: 2 };
        let fn_named = |at: ModKey, path: &str| match p.resolve(at, &segs(path), &[]) {
            ProgramRes::Item(k) => crate::source::syntax::item_name(p.item(k)),
            other => Some(format!("{other:?}")),
        };
        assert_eq!(fn_named(root, "apply").as_deref(), Some("apply"), "the name in its own crate");
        assert_eq!(fn_named(root, "crate::apply").as_deref(), Some("apply"), "a path ending at the name");
        assert_eq!(fn_named(op, "apply").as_deref(), Some("apply"), "brought in by a `use`");
        // As a prefix it is still the module.
        assert_eq!(fn_named(root, "apply::create_in").as_deref(), Some("create_in"));
        assert_eq!(fn_named(op, "apply::create_in").as_deref(), Some("create_in"));
        assert_eq!(module_of_path(&p, op, &segs("apply")), Some(ModKey { krate: 0, module: 1 }));
    }

    #[test]
    fn external_candidates_continue_a_path_through_external_globs() {
        let p = program(&[(
            "lib.rs",
            "pub mod k8s { pub use k8s_openapi::*; }\n\
             pub mod apps { pub use serde::*; pub use crate::k8s::api::apps::v1::*; }\n\
             pub mod loop_a { pub use super::loop_b::*; pub use dep::a::*; }\n\
             pub mod loop_b { pub use super::loop_a::*; pub use dep::b::*; }\n\
             use apps::*;\n",
        )]);
        let root = ModKey { krate: 0, module: 0 };
        let cands = |path: &str| -> Vec<String> {
            p.external_candidates(root, &segs(path), &[]).iter().map(|c| c.join("::")).collect()
        };
        // The path stops in `k8s` at `api`: k8s's glob continues it.
        assert_eq!(cands("k8s::api::apps::v1::Deployment"), ["k8s_openapi::api::apps::v1::Deployment"]);
        // Both globs of `apps` are candidates (the second through `crate::k8s`); a reader checks which it knows.
        assert_eq!(cands("apps::Deployment"), ["serde::Deployment", "k8s_openapi::api::apps::v1::Deployment"]);
        // A single name in the root: through the root's glob of `apps`.
        assert_eq!(cands("Deployment"), ["serde::Deployment", "k8s_openapi::api::apps::v1::Deployment"]);
        // Two modules glob-importing each other: each searched once.
        assert_eq!(cands("loop_a::Thing"), ["dep::b::Thing", "dep::a::Thing"]);
    }

    #[test]
    fn uses_through_re_exports_of_other_crates_lead_to_their_paths() {
        let p = program(&[
            (
                "lib.rs",
                "pub use k8s_openapi;\npub use k8s_openapi::api as k8s;\nmod short;\n\
                 use k8s::apps::v1::Deployment;\nuse self::short::core::Secret;\nuse crate::k8s_openapi::api::batch::v1 as batch;\n",
            ),
            ("short.rs", "pub use crate::k8s_openapi::api::core::v1 as core;\n"),
        ]);
        let root = ModKey { krate: 0, module: 0 };
        let external = |path: &str| ProgramRes::External(segs(path));
        assert_eq!(p.resolve(root, &segs("Deployment"), &[]), external("k8s_openapi::api::apps::v1::Deployment"));
        assert_eq!(p.resolve(root, &segs("Secret"), &[]), external("k8s_openapi::api::core::v1::Secret"));
        assert_eq!(p.resolve(root, &segs("batch::Job"), &[]), external("k8s_openapi::api::batch::v1::Job"));
    }

    #[test]
    fn globs_of_other_crates_lead_to_no_module_and_end() {
        // Many external globs: every lookup through them is external, and ends quickly.
        let globs: String = (0..12).map(|i| format!("use dep{i}::prelude::*;\n")).collect();
        let p = program(&[("lib.rs", &format!("{globs}pub mod a {{ use super::*; {globs} }}\n"))]);
        let a = ModKey { krate: 0, module: 1 };
        let started = std::time::Instant::now();
        assert_eq!(p.resolve(a, &segs("x::y::Missing"), &[]), ProgramRes::External(segs("x::y::Missing")));
        assert_eq!(module_of_path(&p, a, &segs("dep3::prelude")), None);
        assert!(started.elapsed() < std::time::Duration::from_secs(2), "{:?}", started.elapsed());
    }
}
