//! RBAC from the code: the rules an operator's binaries need, read from how they call kube-rs, never compiled.
//!
//! [`infer_with_dependencies`] loads every `--source` crate (fully parsed, [`crate::source`]), registers the sources' own
//! `#[derive(CustomResource)]` kinds, and walks ([`walk`]) from each binary's `fn main` (or one `--bin`; a library
//! alone starts from its public fns) through every call it reaches. Each kube call on a known resource is a
//! [`Need`] with its call site; what cannot be known statically (a `DynamicObject` with a run-time
//! `ApiResource`, a generic `K` that comes from outside the sources, raw `Client::request`) is a [`Warning`]
//! with file:line and the rule to add by hand, never a guess. [`Inference::cluster_role`] renders the needs
//! with the marker generator's merge and sort rules.
//!
//! The kube-dependent crates the sources depend on ([`crate::source::dependencies`]) are roots of role
//! [`Role::Dependency`]: read only where the walk from the
//! sources' entry points reaches them, never an entry point themselves; each crate it cannot read is a warning at
//! the operator's first use of it (else at its `Cargo.lock` line) naming what it may hide and the fix.
//!
//! What a call needs: the verb table of kube 5 is [`kube_api`]; beyond it ([`walk`]'s `needs`), `Recorder::publish`
//! creates and patches `events.k8s.io` events (create alone for a kube-runtime older than 0.98, the version read from
//! its sources or the lock: `kube_api::recorder_verbs`); `controller_owner_ref` (or a hand-built owner reference with
//! `block_owner_deletion`) needs `update` on the owner's `<plural>/finalizers`; creating or replacing a Role or
//! ClusterRole built from `PolicyRule` literals needs every rule it grants, and a `RoleRef` literal `bind` on its
//! role; `kube_leader_election::LeaseLock::new` needs `leases` get, create, patch.
//!
//! How `K` is found: turbofish, annotated `let`s, fn parameters and return types, struct fields, aliases, `use`
//! renames and re-exports across crates, the object passed (`create(&obj)`, `Patch::Apply(&obj)`), the reconciler's
//! signature, generic fns and structs bound at each call (`walk::call_site`: turbofish, argument types, the receiver's
//! impl, the type the caller expects back), projections (`K::Namespace`), `ApiResource::erase::<K>(&())`, closures
//! of collection adaptors (`walk::iter`), a type of the sources handed to outside code (`walk::escape`: the
//! framework calls its impls of outside traits), and hand-written `Resource` impls ([`resource_impl`]). A kind name
//! in two groups resolves by the path the code uses.
//!
//! Reported, never guessed (a [`Warning`] with file:line and the marker to fill in): `Api<DynamicObject>` with an
//! `ApiResource` built at run time; `Api<K>` with a `K` no call in the sources binds; `Api<T>` of a type that is
//! neither a k8s-openapi resource nor a kind of the sources; a resource impl whose names are known only at run time;
//! `Client::request` of a path not written in the code; a `RoleRef` kind, a subresource or Role rules not written as
//! literals. [`cache`] keeps what the last inference over the same roots read and found.

pub(crate) mod cache;
pub(crate) mod kube_api;
pub(crate) mod resource_impl;
pub(crate) mod resources;
pub(crate) mod types;
pub(crate) mod walk;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::source::{Crate, ItemKey, ModKey, Program, SourceError};
use types::{FnRef, Kinds};
pub use walk::{Need, Warning};

/// What inference found.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Inference {
    /// Every access with its call site, sorted, without duplicates.
    pub needs: Vec<Need>,
    /// Calls whose resource is unknown, sorted.
    pub warnings: Vec<Warning>,
    /// The entry points walked (`bin fleet-operator`, `lib fleet_api (public fns)`).
    pub entries: Vec<String>,
}

/// Why inference could not run.
#[derive(Debug, thiserror::Error)]
pub enum InferError {
    /// A source file cannot be read or parsed.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// A source folder holds no crate root.
    #[error("{} holds no crate root (lib.rs, main.rs or bin/*.rs): pass --source with a crate's src folder", .0.display())]
    NoRoot(PathBuf),
    /// `--bin` names no binary of the sources.
    #[error("no binary named {name} in the sources (binaries: {known}): pass one of them to --bin")]
    UnknownBin {
        /// The name asked for.
        name: String,
        /// The binaries found.
        known: String,
    },
}

impl Inference {
    /// The `(group, resource, verb)` triples needed.
    pub fn grants(&self) -> BTreeSet<(String, String, String)> {
        self.needs.iter().map(|n| (n.group.clone(), n.resource.clone(), n.verb.clone())).collect()
    }

    /// Turns the warnings about calls on `Api<T>` with `T` another crate's type into needs, for the types
    /// `known` names (type name, e.g. `Issuer` → its resource); the other warnings stay.
    pub fn resolve_external(&mut self, known: &[(String, crate::builtin::Resource)]) {
        let mut kept = Vec::new();
        for w in std::mem::take(&mut self.warnings) {
            let found =
                w.unresolved.as_ref().and_then(|u| known.iter().find(|(n, _)| *n == u.type_name).map(|k| (u, k)));
            let Some((u, (_, r))) = found else {
                kept.push(w);
                continue;
            };
            for (sub, verbs) in &u.access {
                let resource = if sub.is_empty() { r.plural.clone() } else { format!("{}/{sub}", r.plural) };
                for verb in verbs {
                    self.needs.push(Need {
                        group: r.group.clone(),
                        resource: resource.clone(),
                        verb: verb.clone(),
                        file: w.file.clone(),
                        line: w.line,
                        call: format!("{}(Api<{}>)", u.call, u.type_name),
                    });
                }
            }
        }
        self.warnings = kept;
        self.needs.sort();
        self.needs.dedup();
    }

    /// The ClusterRole `name` granting exactly the needs, merged and sorted like controller-gen's.
    pub fn cluster_role(&self, name: &str) -> Value {
        let grants = self.grants();
        super::markers::cluster_role(grants.iter().map(|(g, r, v)| (g.as_str(), r.as_str(), v.as_str())), name)
    }

    /// The call sites of a triple.
    pub fn sites<'a>(&'a self, group: &'a str, resource: &'a str, verb: &'a str) -> impl Iterator<Item = &'a Need> {
        self.needs.iter().filter(move |n| n.group == group && n.resource == resource && n.verb == verb)
    }

    /// `--explain`: each rule of the role, then each resource and verb with the calls that need it.
    pub fn explain(&self, name: &str, display: &dyn Fn(&Path) -> String) -> String {
        let role = self.cluster_role(name);
        let mut out = String::new();
        let list = |v: &Value, key: &str| -> Vec<String> {
            v[key].as_array().into_iter().flatten().filter_map(|x| x.as_str().map(str::to_string)).collect()
        };
        for rule in role["rules"].as_array().into_iter().flatten() {
            let (groups, resources, verbs) = (list(rule, "apiGroups"), list(rule, "resources"), list(rule, "verbs"));
            let shown: Vec<String> =
                groups.iter().map(|g| if g.is_empty() { "\"\"".into() } else { g.clone() }).collect();
            out.push_str(&format!(
                "rule: apiGroups={} resources={} verbs={}\n",
                shown.join(","),
                resources.join(","),
                verbs.join(",")
            ));
            for g in &groups {
                for r in &resources {
                    for v in &verbs {
                        for site in self.sites(g, r, v) {
                            let group = if g.is_empty() { "core" } else { g };
                            out.push_str(&format!(
                                "  {v} {r} ({group}): {}:{} {}\n",
                                display(&site.file),
                                site.line,
                                site.call
                            ));
                        }
                    }
                }
            }
        }
        out
    }
}

/// Infers the role the code in `sources` (crate source folders, e.g. `crates/x/src`) needs, reading files from
/// disk; `bin` restricts the entry points to one binary (tests).
#[cfg(test)]
pub(crate) fn infer_sources(sources: &[PathBuf], bin: Option<&str>) -> Result<Inference, InferError> {
    infer_with(sources, bin, &crate::source::modules::read_disk)
}

/// The role the code in `sources` needs, with files read by `read` (an in-memory tree: tests and the fuzz
/// targets), through the cache beside the sources when there is one.
pub fn infer_with(
    sources: &[PathBuf],
    bin: Option<&str>,
    read: &dyn Fn(&Path) -> std::io::Result<String>,
) -> Result<Inference, InferError> {
    let roots = roots_of_sources(sources, read)?;
    let cache = roots.first().and_then(|(_, root, _)| cache::Cache::for_root(root));
    infer_roots(roots, bin, read, cache.as_ref())
}

/// [`infer_with`] with `cache` (or none) instead of the one beside the sources (tests).
#[cfg(test)]
pub(crate) fn infer_with_cache(
    sources: &[PathBuf],
    bin: Option<&str>,
    read: &dyn Fn(&Path) -> std::io::Result<String>,
    cache: Option<&cache::Cache>,
) -> Result<Inference, InferError> {
    infer_roots(roots_of_sources(sources, read)?, bin, read, cache)
}

fn roots_of_sources(
    sources: &[PathBuf],
    read: &dyn Fn(&Path) -> std::io::Result<String>,
) -> Result<Vec<(String, PathBuf, Role)>, InferError> {
    let mut roots: Vec<(String, PathBuf, Role)> = Vec::new();
    for src in sources {
        let found = crate::source::workspace::crate_roots(src, read);
        if found.is_empty() {
            return Err(InferError::NoRoot(src.clone()));
        }
        roots.extend(found.into_iter().map(|(n, p, is_bin)| (n, p, if is_bin { Role::Bin } else { Role::Lib })));
    }
    Ok(roots)
}

/// The role the crates in `sources` (their source folders, read by `read`: a plan's overlay or the disk) need,
/// where `dependencies` are the source folders of crates the sources depend on
/// ([`crate::source::dependencies`]): their libs are read, but only where the walk from the sources' entry points
/// reaches them (a dependency is never an entry point, and its binaries are not read).
///
/// The files of an immutable dependency (a registry crate's `<name>-<version>` folder, a git checkout's revision)
/// are not read again to tell whether the cached inference still holds: they never change.
pub fn infer_with_dependencies(
    sources: &[PathBuf],
    dependencies: &[crate::source::dependencies::Found],
    bin: Option<&str>,
    read: &dyn Fn(&Path) -> std::io::Result<String>,
) -> Result<Inference, InferError> {
    let mut roots = roots_of_sources(sources, read)?;
    for dep in dependencies {
        let libs = crate::source::workspace::crate_roots(&dep.src, read).into_iter().filter(|(_, _, is_bin)| !is_bin);
        roots.extend(libs.map(|(n, p, _)| (n, p, Role::Dependency)));
    }
    let immutable: Vec<PathBuf> = dependencies.iter().filter(|d| d.immutable).map(|d| d.src.clone()).collect();
    let cache =
        roots.first().and_then(|(_, root, _)| cache::Cache::for_root(root)).map(|c| c.with_immutable(immutable));
    infer_roots(roots, bin, read, cache.as_ref())
}

/// What a crate root is to the walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum Role {
    /// A library of the sources: its public fns are entry points when no binary is walked.
    Lib,
    /// A library the sources depend on: read only where the walk reaches it.
    Dependency,
    /// A binary: its `fn main` is an entry point.
    Bin,
}

/// Inference over crate roots `(crate name, root file, is a binary)`: through `cache` when there is one (see
/// [`cache`]), else by reading every file.
fn infer_roots(
    roots: Vec<(String, PathBuf, Role)>,
    bin: Option<&str>,
    read: &dyn Fn(&Path) -> std::io::Result<String>,
    cache: Option<&cache::Cache>,
) -> Result<Inference, InferError> {
    match cache {
        Some(c) => c.infer(roots, bin, read),
        None => walk_roots(roots, bin, read, &parse_code, None, false, None).map(|w| w.inference),
    }
}

/// A file's entries, fully parsed; test modules are blanked first: they never run in the operator, not even lexed.
fn parse_code(path: &Path, text: &str) -> Result<Vec<crate::source::modules::Entry>, SourceError> {
    parse_code_items(path, text).map(crate::source::modules::entries)
}

/// [`parse_code`]'s syn items.
fn parse_code_items(path: &Path, text: &str) -> Result<Vec<syn::Item>, SourceError> {
    crate::source::modules::parse_items(path, &crate::source::lex::blank_test_modules(text))
}

/// A `#[derive(CustomResource)]` spec: where it is, the kind struct it generates, its resource.
type Spec = (ItemKey, String, resources::Resource);

/// The sources' own kinds as a full read finds them; the cache stores them for loads from skeletons (which keep
/// neither `#[kube]` attributes of other structs nor fn bodies).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct OwnKinds {
    /// `#[derive(CustomResource)]` specs.
    specs: Vec<Spec>,
    /// Hand-written resource impls ([`resource_impl`]), readable or not (calls on the type then warn).
    impls: Vec<resource_impl::ResourceImpl>,
    /// The files read to find the impls' values: an edit there, even inside a fn body, changes them.
    impl_files: Vec<PathBuf>,
}

/// Effects of instances read by an earlier run over the same program, to replay.
struct Replay<'a> {
    /// The resources the instances' kind ids index.
    kinds: &'a [resources::Resource],
    /// Instances with their effects.
    entries: Vec<(walk::Instance, walk::Effects)>,
    /// Files whose instances are read again (changed since): their entries are dropped.
    changed: &'a std::collections::HashSet<PathBuf>,
    /// Files loaded without fn bodies (filled while loading).
    bodiless: &'a std::cell::RefCell<std::collections::HashSet<PathBuf>>,
    /// Whether entries that looked at a module of a changed file are dropped too (the files' items changed).
    check_deps: bool,
    /// The module tree and impl signature the entries were recorded with: when the program's differ, the walk
    /// stops at once (`Walked::stale`).
    expect: Option<(&'a [String], &'a [String])>,
}

/// The effects of the instances of one file's fns.
pub(crate) type Group = (PathBuf, Vec<(walk::Instance, walk::Effects)>);

/// What one walk gave.
struct Walked {
    inference: Inference,
    /// Every instance read or replayed with its effects, by the file of its fn (when recording).
    recorded: Vec<Group>,
    kinds: Vec<resources::Resource>,
    own: OwnKinds,
    order_dependent: bool,
    /// The bodiless files the walk needed (their instances were skipped).
    missing: Vec<PathBuf>,
    /// The program's module tree ([`Program::tree`]).
    tree: Vec<String>,
    /// The impls as method lookups see them ([`walk::Engine::impl_signature`]).
    impls: Vec<String>,
    /// The files of the specs.
    spec_files: Vec<PathBuf>,
    /// The program is not the one the replayed entries were recorded with: nothing was walked.
    stale: bool,
}

/// The program of some crate roots, its kinds and where the walk starts.
struct Loaded {
    prog: Program,
    kinds: Kinds,
    own: OwnKinds,
    starts: Vec<FnRef>,
    entries: Vec<String>,
    /// The verbs the events `Recorder` of the roots' kube-runtime publishes with.
    recorder_verbs: &'static [&'static str],
}

/// Loads the crates (each file's items by `parse`), registers their kinds (`own` when already known) and
/// finds the entry points.
fn load(
    mut roots: Vec<(String, PathBuf, Role)>,
    bin: Option<&str>,
    read: &dyn Fn(&Path) -> std::io::Result<String>,
    parse: crate::source::modules::ParseFn<'_>,
    own: Option<&OwnKinds>,
) -> Result<Loaded, InferError> {
    let recorder_verbs = kube_api::recorder_verbs(kube_api::kube_runtime_version(&roots, read).as_deref());
    let mut crates = Vec::new();
    let mut bins: Vec<(String, usize)> = Vec::new();
    let mut libs: Vec<usize> = Vec::new();
    // Libraries first, so a crate name resolves to the library even when a binary shares it.
    roots.sort_by_key(|(_, _, role)| *role);
    for (name, root, role) in roots {
        let crate_name = if role == Role::Bin { format!("{name} (bin)") } else { name.clone() };
        crates.push(Crate::load_with(&crate_name, &root, read, parse)?);
        match role {
            Role::Bin => bins.push((name, crates.len() - 1)),
            Role::Lib => libs.push(crates.len() - 1),
            // Read only where the walk reaches it: never an entry point.
            Role::Dependency => {}
        }
    }
    let mut prog = Program::new(crates);
    let own = match own {
        Some(o) => o.clone(),
        None => {
            let (impls, modules) = resource_impl::read(&prog);
            let mut impl_files: Vec<PathBuf> = modules.iter().map(|m| prog.module(*m).file.clone()).collect();
            impl_files.sort();
            impl_files.dedup();
            OwnKinds { specs: custom_resources(&prog), impls, impl_files }
        }
    };
    let kinds = register_kinds(&mut prog, &own);
    let mut entries = Vec::new();
    let mut starts: Vec<FnRef> = Vec::new();
    let chosen: Vec<&(String, usize)> = match bin {
        Some(b) => {
            let one: Vec<_> = bins.iter().filter(|(n, _)| n == b).collect();
            if one.is_empty() {
                let mut known = bins.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>();
                known.sort_unstable();
                let known = known.join(", ");
                return Err(InferError::UnknownBin {
                    name: b.to_string(),
                    known: if known.is_empty() { "none".into() } else { known },
                });
            }
            one
        }
        None => bins.iter().collect(),
    };
    for (name, k) in &chosen {
        let main = prog.module(ModKey { krate: *k, module: 0 }).items.iter().position(|i| {
            i.kind() == crate::source::ItemKind::Fn && matches!(i.get(), syn::Item::Fn(f) if f.sig.ident == "main")
        });
        if let Some(index) = main {
            starts.push(FnRef::Free(ItemKey { krate: *k, module: 0, index }));
            entries.push(format!("bin {name}"));
        }
    }
    if chosen.is_empty() {
        for &k in &libs {
            entries.push(format!("lib {} (public fns)", prog.crates[k].name));
            for (key, item) in prog.items().filter(|(key, _)| key.krate == k) {
                match item {
                    syn::Item::Fn(f) if is_pub(&f.vis) => starts.push(FnRef::Free(key)),
                    syn::Item::Impl(imp) => {
                        for (i, it) in imp.items.iter().enumerate() {
                            if let syn::ImplItem::Fn(f) = it
                                && (imp.trait_.is_some() || is_pub(&f.vis))
                            {
                                starts.push(FnRef::Method(key, i));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(Loaded { prog, kinds, own, starts, entries, recorder_verbs })
}

/// Loads the crates and walks from the entry points, replaying `replay`'s effects where it can and recording
/// every instance's when `record`.
fn walk_roots(
    roots: Vec<(String, PathBuf, Role)>,
    bin: Option<&str>,
    read: &dyn Fn(&Path) -> std::io::Result<String>,
    parse: crate::source::modules::ParseFn<'_>,
    replay: Option<Replay<'_>>,
    record: bool,
    own: Option<&OwnKinds>,
) -> Result<Walked, InferError> {
    let Loaded { prog, kinds, own, starts, entries, recorder_verbs } = load(roots, bin, read, parse, own)?;
    let mut engine = walk::Engine::new(&prog, kinds);
    engine.recorder_verbs = recorder_verbs;
    let tree = prog.tree();
    let impls = engine.impl_signature();
    let spec_files: Vec<PathBuf> = own
        .specs
        .iter()
        .map(|(k, _, _)| prog.module(ModKey { krate: k.krate, module: k.module }).file.clone())
        .collect();
    if let Some((t, i)) = replay.as_ref().and_then(|r| r.expect)
        && (t != tree.as_slice() || i != impls.as_slice())
    {
        let inference = Inference::default();
        return Ok(Walked {
            inference,
            recorded: Vec::new(),
            kinds: Vec::new(),
            own,
            order_dependent: false,
            missing: Vec::new(),
            tree,
            impls,
            spec_files,
            stale: true,
        });
    }
    if record {
        engine.recorded = Some(Vec::new());
    }
    if let Some(r) = replay {
        let ids: Vec<types::KindId> = r.kinds.iter().map(|res| engine.kinds.id(res)).collect();
        let map = |k: types::KindId| ids.get(k).copied().unwrap_or(k);
        // The modules of the changed files, by crate and module index.
        let changed_mods: Vec<Vec<bool>> =
            prog.crates.iter().map(|c| c.modules.iter().map(|m| r.changed.contains(&m.file)).collect()).collect();
        let changed_dep =
            |m: &ModKey| changed_mods.get(m.krate).and_then(|c| c.get(m.module)).is_none_or(|&changed| changed);
        for (inst, mut effects) in r.entries {
            if changed_dep(&inst.f.module()) || (r.check_deps && effects.deps.iter().any(changed_dep)) {
                continue;
            }
            for p in &mut effects.pushed {
                *p = p.map_kinds(&map);
            }
            engine.replay.insert(inst.map_kinds(&map), effects);
        }
        engine.bodiless = r.bodiless.take();
    }
    for s in starts {
        engine.enter(s);
    }
    let mut needs = std::mem::take(&mut engine.needs);
    let mut warnings = std::mem::take(&mut engine.warnings);
    let mut recorded: Vec<Group> = Vec::new();
    let mut group_of: std::collections::HashMap<&Path, usize> = std::collections::HashMap::new();
    for (inst, effects) in engine.recorded.take().unwrap_or_default() {
        let file = &prog.module(inst.f.module()).file;
        let g = *group_of.entry(file).or_insert_with(|| {
            recorded.push((file.clone(), Vec::new()));
            recorded.len() - 1
        });
        recorded[g].1.push((inst, effects));
    }
    drop(group_of);
    let kinds = std::mem::take(&mut engine.kinds.list);
    let (order_dependent, missing) = (engine.order_dependent, std::mem::take(&mut engine.missing));
    if crate::source::forget::forgets_trees() {
        // The process exits soon: freeing every syntax tree one by one is wasted time (see `source::forget`).
        std::mem::forget(engine);
        std::mem::forget(prog);
    }
    needs.sort();
    needs.dedup();
    warnings.sort();
    warnings.dedup();
    let inference = Inference { needs, warnings, entries };
    Ok(Walked { inference, recorded, kinds, own, order_dependent, missing, tree, impls, spec_files, stale: false })
}

fn is_pub(vis: &syn::Visibility) -> bool {
    matches!(vis, syn::Visibility::Public(_))
}

/// The `#[derive(CustomResource)]` specs of the program.
fn custom_resources(prog: &Program) -> Vec<Spec> {
    prog.items_of(crate::source::ItemKind::Struct)
        .filter_map(|(key, item)| match item {
            syn::Item::Struct(s) if crate::source::kube_attrs::derives_custom_resource(&s.attrs) => {
                resources::custom_resource(&s.attrs).map(|(name, r)| (key, name, r)).or_else(|| {
                    // stackable-versioned, a module the expansion left as written: the kind is generated in each
                    // version's module, which the loader names as aliases of it (`v1alpha1` → `versioned`)
                    let m = ModKey { krate: key.krate, module: key.module };
                    let parent = prog.module(m).parent?;
                    let version = prog.crates[key.krate].modules[parent]
                        .children
                        .iter()
                        .find(|(name, id)| **id == key.module && Some(*name) != prog.module(m).path.last())?
                        .0;
                    resources::versioned_resource(&s.attrs, &s.ident, version).map(|(name, r)| (key, name, r))
                })
            }
            _ => None,
        })
        .collect()
}

/// Registers the kind struct each spec generates, with its resource, then each type with a readable resource impl.
fn register_kinds(prog: &mut Program, own: &OwnKinds) -> Kinds {
    let mut kinds = Kinds::default();
    for (key, name, r) in &own.specs {
        let g = prog.add_generated(ModKey { krate: key.krate, module: key.module }, name);
        let id = kinds.id(r);
        kinds.by_generated.insert(g, id);
        kinds.spec_of.insert(id, *key);
    }
    for ri in &own.impls {
        match &ri.found {
            Ok(r) => {
                let id = kinds.id(r);
                kinds.by_item.insert(ri.ty, id);
                kinds.item_of.insert(id, ri.ty);
            }
            Err(why) => {
                let file = ri.file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                kinds.unreadable.insert(ri.ty, (file, ri.line, why.clone()));
            }
        }
    }
    kinds
}

#[cfg(test)]
mod tests;
