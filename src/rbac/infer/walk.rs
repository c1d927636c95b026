//! The walk: from entry points, every reachable fn body is read once per distinct argument types (a generic fn
//! called with `Api<ConfigMap>` is read with `K = ConfigMap`), tracking the types of locals, and every kube call
//! on a known resource becomes a [`Need`]; a call whose resource cannot be known becomes a [`Warning`].
//!
//! Reachability: a call, or a mention of a fn as a value (`Controller::run(reconcile, ..)`), makes the fn
//! reachable. Methods are found from the receiver's type (inherent and trait impls of the sources; a trait's
//! every impl for a `dyn`/bounded receiver); closures and async blocks are walked where they are written.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use syn::spanned::Spanned;

use super::kube_api;
use super::types::{FnRef, KindId, Kinds, Scope, Ty, TypeCx, path_segs, refine, segment_type_args, unify};
use crate::source::syntax::{UseEntry, flatten_use, unraw};
use crate::source::{ItemKey, ModKey, Program, Res};

mod call_site;

/// One access the code needs, where it is made.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Need {
    /// API group.
    pub group: String,
    /// Resource, with `/subresource`.
    pub resource: String,
    /// Verb.
    pub verb: String,
    /// File of the call.
    pub file: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// What is called (`Api<Secret>::get`).
    pub call: String,
}

/// A call whose resource cannot be known statically.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Warning {
    /// File of the call.
    pub file: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// What cannot be resolved and the rule to add by hand.
    pub message: String,
    /// Set when the call is on `Api<T>` with `T` a type from outside the sources that is no k8s-openapi
    /// resource: a caller that knows `T`'s resource (PROJECT's external types) can resolve it.
    pub unresolved: Option<Unresolved>,
}

/// The accesses of a call on `Api<T>` whose `T` is a type from another crate.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Unresolved {
    /// The type's name (last path segment: `Issuer`).
    pub type_name: String,
    /// Subresource (`""` for the resource itself) and verbs.
    pub access: Vec<(String, Vec<String>)>,
    /// What is called (`Controller::new`).
    pub call: String,
}

/// A fast hasher for the walk's own maps (instances, fn refs, type keys): FxHash's multiply–rotate, which is
/// plenty for keys that are not chosen by an adversary.
#[derive(Default, Clone, Copy)]
pub struct Fx;

impl std::hash::BuildHasher for Fx {
    type Hasher = FxHasher;
    fn build_hasher(&self) -> FxHasher {
        FxHasher(0)
    }
}

/// The hasher of [`Fx`].
pub struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]));
        }
        let mut tail = [0u8; 8];
        let rest = chunks.remainder();
        tail[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(tail) ^ rest.len() as u64);
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl FxHasher {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// Most instances (distinct argument types) read per fn; past it the fn is read once with its declared types. It
/// bounds code whose types grow without end (`fn f<T>() { f::<Vec<T>>() }`), not real operators: a shared generic
/// controller runs once per kind, and an operator of a few hundred kinds must still be read kind by kind (at 24,
/// the 25th kind's status patches and watches were missed, and their markers reported as unused).
const MAX_INSTANCES_PER_FN: usize = 2048;

/// One reading of a fn: the fn with the types it is read with.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Instance {
    /// The fn.
    pub f: FnRef,
    /// `Self`, when known from the caller.
    pub self_ty: Option<Ty>,
    /// Generic parameters bound by the caller.
    pub generics: BTreeMap<String, Ty>,
    /// The argument types.
    pub params: Vec<Ty>,
}

impl Instance {
    /// The same instance with every resource id replaced by `map(id)`.
    pub fn map_kinds(&self, map: &dyn Fn(KindId) -> KindId) -> Instance {
        Instance {
            f: self.f,
            self_ty: self.self_ty.as_ref().map(|t| t.map_kinds(map)),
            generics: self.generics.iter().map(|(k, v)| (k.clone(), v.map_kinds(map))).collect(),
            params: self.params.iter().map(|t| t.map_kinds(map)).collect(),
        }
    }
}

/// What reading one instance did, all that a later run needs to replay it without reading the body: the
/// needs found, the warnings raised and the instances queued, in order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Effects {
    /// Needs, in the order found.
    pub needs: Vec<Need>,
    /// Warnings raised (before de-duplication).
    pub warnings: Vec<Warning>,
    /// Instances queued, as asked (before the per-fn cap).
    pub pushed: Vec<Instance>,
    /// The modules whose names, `use`s or items the reading looked at.
    pub deps: Vec<ModKey>,
    /// Whether it looked methods up in the impls of the sources.
    pub impls: bool,
}

/// A type's address, module, generic bindings and `Self`.
type TypeKey = (usize, ModKey, Vec<(String, Ty)>, Option<Ty>);

/// Where an impl block's methods apply.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Head {
    Item(ItemKey),
    Generated(usize),
    Ext(String),
}

struct ImplInfo {
    key: ItemKey,
    head: Option<Head>,
    trait_key: Option<ItemKey>,
}

/// One fn body being read.
struct Frame {
    scope: Scope,
    vars: Vec<HashMap<String, Ty>>,
    file: PathBuf,
    bounds: BTreeMap<String, Vec<ItemKey>>,
    ret: Ty,
    /// Initializers of locals that build RBAC rules (`let role = ClusterRole { .. PolicyRule { .. } .. }`).
    rule_inits: HashMap<String, syn::Expr>,
}

impl Frame {
    fn var(&self, name: &str) -> Option<&Ty> {
        self.vars.iter().rev().find_map(|s| s.get(name))
    }

    fn set(&mut self, name: String, ty: Ty) {
        if let Some(s) = self.vars.last_mut() {
            s.insert(name, ty);
        }
    }

    /// Rebinds an existing variable (where it was declared).
    fn update(&mut self, name: &str, ty: Ty) {
        if let Some(s) = self.vars.iter_mut().rev().find(|s| s.contains_key(name)) {
            s.insert(name.to_string(), ty);
        }
    }
}

/// The inference engine over a program.
pub struct Engine<'p> {
    prog: &'p Program,
    /// Resources met.
    pub kinds: Kinds,
    impls: Vec<ImplInfo>,
    queue: VecDeque<Instance>,
    seen: HashSet<Instance, Fx>,
    per_fn: HashMap<FnRef, usize, Fx>,
    /// Conversions of types written in the sources' items (signatures, fields, impl headers), by address.
    type_cache: HashMap<TypeKey, Ty, Fx>,
    /// Accesses found.
    pub needs: Vec<Need>,
    /// Unresolved calls.
    pub warnings: Vec<Warning>,
    /// When `Some`, every instance read or replayed is recorded here with its effects, in order.
    pub recorded: Option<Vec<(Instance, Effects)>>,
    /// Effects of instances read by an earlier run that are still valid: replayed instead of read.
    pub replay: HashMap<Instance, Effects, Fx>,
    /// Files whose fn bodies are not loaded (skeletons): reading an instance there that is not in
    /// [`Engine::replay`] stops the walk and names the file in [`Engine::missing`].
    pub bodiless: HashSet<PathBuf>,
    /// The bodiless files the walk needed (their instances were skipped).
    pub missing: Vec<PathBuf>,
    /// Whether a read depended on the order resources were met (`ApiResource::from_gvk` looks the kind up in
    /// that list), which a replay cannot reproduce.
    pub order_dependent: bool,
    /// The effects of the instance being read, while recording.
    current: Option<Effects>,
}

impl<'p> Engine<'p> {
    /// An engine over `prog`, whose own kinds are registered in `kinds`.
    pub fn new(prog: &'p Program, kinds: Kinds) -> Self {
        let mut e = Engine {
            prog,
            kinds,
            impls: Vec::new(),
            queue: VecDeque::new(),
            seen: HashSet::default(),
            per_fn: HashMap::default(),
            type_cache: HashMap::default(),
            needs: Vec::new(),
            warnings: Vec::new(),
            recorded: None,
            replay: HashMap::default(),
            bodiless: HashSet::new(),
            missing: Vec::new(),
            order_dependent: false,
            current: None,
        };
        for (key, item) in prog.items_of(crate::source::ItemKind::Impl) {
            let syn::Item::Impl(imp) = item else { continue };
            let at = ModKey { krate: key.krate, module: key.module };
            let head = match &*imp.self_ty {
                syn::Type::Path(p) => match prog.resolve(at, &path_segs(&p.path), &[]) {
                    Res::Item(k) => Some(Head::Item(k)),
                    Res::Generated(g) => Some(Head::Generated(g)),
                    Res::External(full) => full.last().map(|l| Head::Ext(l.clone())),
                    _ => None,
                },
                _ => None,
            };
            let trait_key = imp.trait_.as_ref().and_then(|(_, p, _)| match prog.resolve(at, &path_segs(p), &[]) {
                Res::Item(k) if matches!(prog.item(k), syn::Item::Trait(_)) => Some(k),
                _ => None,
            });
            e.impls.push(ImplInfo { key, head, trait_key });
        }
        e
    }

    /// Reads everything reachable from `f` (called with its declared types).
    pub fn enter(&mut self, f: FnRef) {
        self.push(Instance { f, self_ty: None, generics: BTreeMap::new(), params: Vec::new() });
        while let Some(inst) = self.queue.pop_front() {
            if let Some(effects) = self.replay.remove(&inst) {
                self.needs.extend(effects.needs.iter().cloned());
                for w in &effects.warnings {
                    self.add_warning(w.clone());
                }
                for p in &effects.pushed {
                    self.push(p.clone());
                }
                if let Some(r) = &mut self.recorded {
                    r.push((inst, effects));
                }
                continue;
            }
            if !self.bodiless.is_empty() {
                let file = &self.prog.module(inst.f.module()).file;
                if self.bodiless.contains(file) {
                    if !self.missing.contains(file) {
                        self.missing.push(file.clone());
                    }
                    continue;
                }
            }
            let recording = self.recorded.is_some();
            let needs_before = self.needs.len();
            if recording {
                self.current = Some(Effects::default());
                self.prog.watch();
            }
            self.run(&inst);
            if let (Some(mut effects), Some(r)) = (self.current.take(), self.recorded.as_mut()) {
                effects.needs = self.needs[needs_before..].to_vec();
                effects.deps = self.prog.watched();
                r.push((inst, effects));
            }
        }
    }

    /// The impls of the sources as methods are looked up in them: each impl's file, self type, trait and fns, in
    /// order, written without item indexes (equal lists give equal lookups, but for impls whose module changed).
    pub fn impl_signature(&self) -> Vec<String> {
        let desc = |k: &ItemKey| {
            let m = self.prog.module(ModKey { krate: k.krate, module: k.module });
            format!(
                "{}::{}",
                m.path.join("::"),
                crate::source::syntax::item_name(self.prog.item(*k)).unwrap_or_default()
            )
        };
        self.impls
            .iter()
            .map(|i| {
                let head = match &i.head {
                    Some(Head::Item(k)) => desc(k),
                    Some(Head::Generated(g)) => format!("generated {g}"),
                    Some(Head::Ext(n)) => format!("ext {n}"),
                    None => String::new(),
                };
                let fns: Vec<String> = match self.prog.item(i.key) {
                    syn::Item::Impl(imp) => imp
                        .items
                        .iter()
                        .map(|it| match it {
                            syn::ImplItem::Fn(f) => f.sig.ident.to_string(),
                            _ => "-".into(),
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                let file = &self.prog.module(ModKey { krate: i.key.krate, module: i.key.module }).file;
                format!(
                    "{} | {head} | {} | {}",
                    file.display(),
                    i.trait_key.as_ref().map(desc).unwrap_or_default(),
                    fns.join(",")
                )
            })
            .collect()
    }

    /// Reads one instance alone (nothing it queues is read) and gives its effects.
    pub fn read_alone(&mut self, inst: &Instance) -> Effects {
        let needs_before = self.needs.len();
        self.current = Some(Effects::default());
        self.prog.watch();
        self.run(inst);
        let mut effects = self.current.take().unwrap_or_default();
        effects.needs = self.needs.split_off(needs_before);
        effects.deps = self.prog.watched();
        self.queue.clear();
        effects
    }

    fn push(&mut self, mut inst: Instance) {
        if let Some(c) = &mut self.current {
            c.pushed.push(inst.clone());
        }
        let count = self.per_fn.entry(inst.f).or_default();
        if *count >= MAX_INSTANCES_PER_FN {
            inst = Instance { f: inst.f, self_ty: None, generics: BTreeMap::new(), params: Vec::new() };
        }
        if self.seen.insert(inst.clone()) {
            *self.per_fn.entry(inst.f).or_default() += 1;
            self.queue.push_back(inst);
        }
    }

    fn tcx(&mut self) -> TypeCx<'_> {
        TypeCx { prog: self.prog, kinds: &mut self.kinds }
    }

    /// [`TypeCx::ty`] of a type written in an item of the program (which lives as long as the engine), cached.
    fn item_type(&mut self, ty: &'p syn::Type, scope: &Scope) -> Ty {
        if !scope.local_uses.is_empty() {
            return self.tcx().ty(ty, scope);
        }
        let key: TypeKey = (
            std::ptr::from_ref(ty) as usize,
            scope.at,
            scope.generics.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            scope.self_ty.clone(),
        );
        if let Some(t) = self.type_cache.get(&key) {
            return t.clone();
        }
        let t = self.tcx().ty(ty, scope);
        self.type_cache.insert(key, t.clone());
        t
    }

    // ----- functions -----

    /// Module, signature, body, and the generics (impl's, then fn's) of a fn.
    fn fn_parts(&self, f: FnRef) -> Option<(ModKey, &'p syn::Signature, &'p syn::Block, Vec<&'p syn::Generics>)> {
        let prog = self.prog;
        match f {
            FnRef::Free(key) => match prog.item(key) {
                syn::Item::Fn(func) => Some((
                    ModKey { krate: key.krate, module: key.module },
                    &func.sig,
                    &*func.block,
                    vec![&func.sig.generics],
                )),
                _ => None,
            },
            FnRef::Method(key, i) => match prog.item(key) {
                syn::Item::Impl(imp) => match imp.items.get(i)? {
                    syn::ImplItem::Fn(m) => Some((
                        ModKey { krate: key.krate, module: key.module },
                        &m.sig,
                        &m.block,
                        vec![&imp.generics, &m.sig.generics],
                    )),
                    _ => None,
                },
                _ => None,
            },
            FnRef::TraitDefault(key, i) => match prog.item(key) {
                syn::Item::Trait(t) => match t.items.get(i)? {
                    syn::TraitItem::Fn(m) => Some((
                        ModKey { krate: key.krate, module: key.module },
                        &m.sig,
                        m.default.as_ref()?,
                        vec![&t.generics, &m.sig.generics],
                    )),
                    _ => None,
                },
                _ => None,
            },
        }
    }

    fn run(&mut self, inst: &Instance) {
        let prog = self.prog;
        let Some((at, sig, block, gens)) = self.fn_parts(inst.f) else { return };
        let mut scope = Scope { at, ..Scope::default() };
        let mut bounds: BTreeMap<String, Vec<ItemKey>> = BTreeMap::new();
        for g in &gens {
            for p in g.type_params() {
                let name = p.ident.to_string();
                scope
                    .generics
                    .insert(name.clone(), inst.generics.get(&name).cloned().unwrap_or(Ty::Param(name.clone())));
                let traits = self.bound_traits(at, p.bounds.iter());
                bounds.entry(name).or_default().extend(traits);
            }
            if let Some(w) = &g.where_clause {
                for pred in &w.predicates {
                    if let syn::WherePredicate::Type(t) = pred
                        && let syn::Type::Path(p) = &t.bounded_ty
                        && let Some(id) = p.path.get_ident()
                    {
                        let traits = self.bound_traits(at, t.bounds.iter());
                        bounds.entry(id.to_string()).or_default().extend(traits);
                    }
                }
            }
        }
        scope.self_ty = match &inst.self_ty {
            Some(t) => Some(t.clone()),
            None => match inst.f {
                FnRef::Method(key, _) => match prog.item(key) {
                    syn::Item::Impl(imp) => {
                        let s = scope.clone();
                        Some(self.item_type(&imp.self_ty, &s))
                    }
                    _ => None,
                },
                FnRef::TraitDefault(key, _) => Some(Ty::Dyn(vec![key], Vec::new())),
                FnRef::Free(_) => None,
            },
        };
        let file = self.prog.module(at).file.clone();
        let ret = match &sig.output {
            syn::ReturnType::Type(_, t) => {
                let s = scope.clone();
                self.item_type(t, &s)
            }
            syn::ReturnType::Default => Ty::Tuple(Vec::new()),
        };
        let mut fr = Frame { scope, vars: vec![HashMap::new()], file, bounds, ret, rule_inits: HashMap::new() };
        for (i, input) in sig.inputs.iter().enumerate() {
            match input {
                syn::FnArg::Receiver(_) => {
                    let st = fr.scope.self_ty.clone().unwrap_or(Ty::Unknown);
                    fr.set("self".into(), st);
                }
                syn::FnArg::Typed(pt) => {
                    let s = fr.scope.clone();
                    let declared = self.item_type(&pt.ty, &s);
                    let actual = inst.params.get(i).cloned().unwrap_or(Ty::Unknown);
                    self.bind_pat(&mut fr, &pt.pat, refine(&declared, &actual));
                }
            }
        }
        let expected = fr.ret.clone();
        self.block(&mut fr, block, Some(&expected));
    }

    fn bound_traits<'a>(&self, at: ModKey, bounds: impl Iterator<Item = &'a syn::TypeParamBound>) -> Vec<ItemKey> {
        bounds
            .filter_map(|b| match b {
                syn::TypeParamBound::Trait(t) => match self.prog.resolve(at, &path_segs(&t.path), &[]) {
                    Res::Item(k) if matches!(self.prog.item(k), syn::Item::Trait(_)) => Some(k),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }

    /// The declared type of parameter `i` of `f`.
    fn fn_param_ty(&mut self, f: FnRef, i: usize) -> Ty {
        let Some((at, sig, _, _)) = self.fn_parts(f) else { return Ty::Unknown };
        match sig.inputs.iter().nth(i) {
            Some(syn::FnArg::Typed(pt)) => {
                let s = Scope { at, ..Scope::default() };
                self.item_type(&pt.ty, &s)
            }
            _ => Ty::Unknown,
        }
    }

    /// The methods named `name` a receiver of type `recv` may call, with the impl's generic bindings.
    fn methods(&mut self, fr: &Frame, recv: &Ty, name: &str) -> Vec<(FnRef, Option<Ty>, BTreeMap<String, Ty>)> {
        if let Some(c) = &mut self.current {
            c.impls = true;
        }
        let recv = recv.pointee().clone();
        let head = match &recv {
            Ty::Adt(k, _) => Some(Head::Item(*k)),
            Ty::Kind(id) => match self.kinds.item_of.get(id) {
                Some(k) => Some(Head::Item(*k)),
                None => self.kinds.by_generated.iter().find(|(_, k)| *k == id).map(|(g, _)| Head::Generated(*g)),
            },
            Ty::Ext(n, _) => Some(Head::Ext(n.clone())),
            _ => None,
        };
        let mut out = Vec::new();
        if let Some(head) = head {
            let mut traits_with_impl = Vec::new();
            for i in 0..self.impls.len() {
                if self.impls[i].head.as_ref() != Some(&head) {
                    continue;
                }
                let key = self.impls[i].key;
                if let Some(t) = self.impls[i].trait_key {
                    traits_with_impl.push(t);
                }
                if let Some(idx) = impl_method(self.prog, key, name) {
                    let generics = self.impl_bindings(key, &recv);
                    out.push((FnRef::Method(key, idx), Some(recv.clone()), generics));
                }
            }
            if out.is_empty() {
                for t in traits_with_impl {
                    if let Some(idx) = trait_default(self.prog, t, name) {
                        out.push((FnRef::TraitDefault(t, idx), Some(recv.clone()), BTreeMap::new()));
                    }
                }
            }
            return out;
        }
        let (traits, dyn_args): (Vec<ItemKey>, Vec<Ty>) = match &recv {
            Ty::Dyn(t, a) => (t.clone(), a.clone()),
            Ty::Param(p) => (fr.bounds.get(p).cloned().unwrap_or_default(), Vec::new()),
            _ => (Vec::new(), Vec::new()),
        };
        if !traits.is_empty() {
            for t in traits {
                let mut any = false;
                for i in 0..self.impls.len() {
                    if self.impls[i].trait_key != Some(t) {
                        continue;
                    }
                    let key = self.impls[i].key;
                    let (self_ty, generics) = self.impl_for_trait_args(key, &dyn_args);
                    if let Some(idx) = impl_method(self.prog, key, name) {
                        out.push((FnRef::Method(key, idx), self_ty, generics));
                        any = true;
                    } else if let Some(idx) = trait_default(self.prog, t, name) {
                        out.push((FnRef::TraitDefault(t, idx), self_ty, generics));
                        any = true;
                    }
                }
                if !any && let Some(idx) = trait_default(self.prog, t, name) {
                    out.push((FnRef::TraitDefault(t, idx), Some(recv.clone()), BTreeMap::new()));
                }
            }
            return out;
        }
        if recv.is_unknown() {
            // Nothing known of the receiver: every method of that name in the sources may be the one called.
            for i in 0..self.impls.len() {
                let key = self.impls[i].key;
                if let Some(idx) = impl_method(self.prog, key, name) {
                    out.push((FnRef::Method(key, idx), None, BTreeMap::new()));
                }
            }
        }
        out
    }

    /// An impl of a trait seen through `dyn Trait<args>`: its generics bound by matching the impl's trait
    /// arguments with `args`, and its self type under those bindings.
    fn impl_for_trait_args(&mut self, key: ItemKey, args: &[Ty]) -> (Option<Ty>, BTreeMap<String, Ty>) {
        let prog = self.prog;
        let syn::Item::Impl(imp) = prog.item(key) else { return (None, BTreeMap::new()) };
        let mut scope = Scope { at: ModKey { krate: key.krate, module: key.module }, ..Scope::default() };
        let mut names = BTreeSet::new();
        for p in imp.generics.type_params() {
            names.insert(p.ident.to_string());
            scope.generics.insert(p.ident.to_string(), Ty::Param(p.ident.to_string()));
        }
        let mut out = BTreeMap::new();
        if let Some((_, path, _)) = &imp.trait_
            && let Some(last) = path.segments.last()
        {
            let declared: Vec<Ty> = segment_type_args(last).into_iter().map(|t| self.item_type(t, &scope)).collect();
            for (d, a) in declared.iter().zip(args) {
                unify(d, a, &names, &mut out);
            }
        }
        for (k, v) in &out {
            scope.generics.insert(k.clone(), v.clone());
        }
        let self_ty = self.item_type(&imp.self_ty, &scope);
        (Some(self_ty), out)
    }

    /// The impl's generic parameters bound by matching its self type with `recv`.
    fn impl_bindings(&mut self, key: ItemKey, recv: &Ty) -> BTreeMap<String, Ty> {
        let prog = self.prog;
        let syn::Item::Impl(imp) = prog.item(key) else { return BTreeMap::new() };
        let mut scope = Scope { at: ModKey { krate: key.krate, module: key.module }, ..Scope::default() };
        let mut names = BTreeSet::new();
        for p in imp.generics.type_params() {
            names.insert(p.ident.to_string());
            scope.generics.insert(p.ident.to_string(), Ty::Param(p.ident.to_string()));
        }
        let declared = self.item_type(&imp.self_ty, &scope);
        let mut out = BTreeMap::new();
        unify(&declared, recv, &names, &mut out);
        out
    }

    // ----- statements and expressions -----

    fn block(&mut self, fr: &mut Frame, b: &syn::Block, expected: Option<&Ty>) -> Ty {
        fr.vars.push(HashMap::new());
        let uses_before = fr.scope.local_uses.len();
        for stmt in &b.stmts {
            if let syn::Stmt::Item(syn::Item::Use(u)) = stmt {
                let mut out: Vec<UseEntry> = Vec::new();
                flatten_use(&u.tree, &mut Vec::new(), &mut out);
                fr.scope.local_uses.extend(out);
            }
        }
        let mut last = Ty::Tuple(Vec::new());
        let n = b.stmts.len();
        for (i, stmt) in b.stmts.iter().enumerate() {
            last = match stmt {
                syn::Stmt::Local(l) => {
                    let declared = match &l.pat {
                        syn::Pat::Type(pt) => {
                            let s = fr.scope.clone();
                            Some(self.tcx().ty(&pt.ty, &s))
                        }
                        _ => None,
                    };
                    let init = match &l.init {
                        Some(init) => {
                            let t = self.expr(fr, &init.expr, declared.as_ref());
                            if let Some((_, diverge)) = &init.diverge {
                                self.expr(fr, diverge, None);
                            }
                            t
                        }
                        None => Ty::Unknown,
                    };
                    let ty = match declared {
                        Some(d) => refine(&d, &init),
                        None => init,
                    };
                    let pat = match &l.pat {
                        syn::Pat::Type(pt) => &*pt.pat,
                        p => p,
                    };
                    if let (syn::Pat::Ident(id), Some(init)) = (pat, &l.init) {
                        let mut found = Vec::new();
                        collect_policy_rules(&init.expr, &mut found, &mut false);
                        if !found.is_empty() {
                            fr.rule_inits.insert(unraw(&id.ident), (*init.expr).clone());
                        }
                    }
                    self.bind_pat(fr, pat, ty);
                    Ty::Tuple(Vec::new())
                }
                syn::Stmt::Expr(e, semi) => {
                    let exp = if i + 1 == n && semi.is_none() { expected } else { None };
                    let t = self.expr(fr, e, exp);
                    if semi.is_some() { Ty::Tuple(Vec::new()) } else { t }
                }
                syn::Stmt::Macro(m) => {
                    if may_call(&m.mac) {
                        self.macro_tokens(fr, &m.mac.tokens);
                    }
                    Ty::Unknown
                }
                syn::Stmt::Item(_) => Ty::Tuple(Vec::new()),
            };
        }
        fr.scope.local_uses.truncate(uses_before);
        fr.vars.pop();
        last
    }

    fn bind_pat(&mut self, fr: &mut Frame, pat: &syn::Pat, ty: Ty) {
        match pat {
            syn::Pat::Ident(i) => {
                if let Some((_, sub)) = &i.subpat {
                    self.bind_pat(fr, sub, ty.clone());
                }
                fr.set(unraw(&i.ident), ty);
            }
            syn::Pat::Type(pt) => {
                let s = fr.scope.clone();
                let d = self.tcx().ty(&pt.ty, &s);
                self.bind_pat(fr, &pt.pat, refine(&d, &ty));
            }
            syn::Pat::Reference(r) => self.bind_pat(fr, &r.pat, ty),
            syn::Pat::Paren(p) => self.bind_pat(fr, &p.pat, ty),
            syn::Pat::Tuple(t) => {
                for (i, p) in t.elems.iter().enumerate() {
                    let elem = match &ty {
                        Ty::Tuple(v) => v.get(i).cloned().unwrap_or(Ty::Unknown),
                        _ => Ty::Unknown,
                    };
                    self.bind_pat(fr, p, elem);
                }
            }
            syn::Pat::TupleStruct(ts) => {
                let last = ts.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
                let inner = match (last.as_str(), ty.pointee()) {
                    ("Some" | "Ok", Ty::Ext(n, a)) if n == "Option" || n == "Result" => a.first().cloned(),
                    _ => None,
                };
                for p in &ts.elems {
                    self.bind_pat(fr, p, inner.clone().unwrap_or(Ty::Unknown));
                }
            }
            syn::Pat::Struct(ps) => {
                for f in &ps.fields {
                    let field_ty = match &f.member {
                        syn::Member::Named(n) => self.field_ty(&ty, &unraw(n)),
                        syn::Member::Unnamed(_) => Ty::Unknown,
                    };
                    self.bind_pat(fr, &f.pat, field_ty);
                }
            }
            syn::Pat::Or(o) => {
                for p in &o.cases {
                    self.bind_pat(fr, p, ty.clone());
                }
            }
            syn::Pat::Slice(s) => {
                for p in &s.elems {
                    self.bind_pat(fr, p, Ty::Unknown);
                }
            }
            _ => {}
        }
    }

    /// The type of field `name` of a struct type (through smart pointers).
    fn field_ty(&mut self, base: &Ty, name: &str) -> Ty {
        let prog = self.prog;
        // A type of the sources with a hand-written resource impl is a kind with that type's fields.
        let own = match base.pointee() {
            Ty::Kind(id) => self.kinds.item_of.get(id).map(|k| Ty::Adt(*k, Vec::new())),
            _ => None,
        };
        match own.as_ref().unwrap_or(base.pointee()) {
            Ty::Adt(key, args) => {
                let key = *key;
                let args = args.clone();
                let syn::Item::Struct(s) = prog.item(key) else { return Ty::Unknown };
                let mut scope = Scope { at: ModKey { krate: key.krate, module: key.module }, ..Scope::default() };
                for (i, p) in s.generics.type_params().enumerate() {
                    scope.generics.insert(p.ident.to_string(), args.get(i).cloned().unwrap_or(Ty::Unknown));
                }
                let field = s.fields.iter().enumerate().find(|(i, f)| match &f.ident {
                    Some(id) => unraw(id) == name,
                    None => i.to_string() == name,
                });
                match field {
                    Some((_, f)) => self.item_type(&f.ty, &scope),
                    None => Ty::Unknown,
                }
            }
            Ty::Kind(id) if name == "spec" => match self.kinds.spec_of.get(id) {
                Some(k) => Ty::Adt(*k, Vec::new()),
                None => Ty::Unknown,
            },
            Ty::Tuple(v) => name.parse::<usize>().ok().and_then(|i| v.get(i).cloned()).unwrap_or(Ty::Unknown),
            _ => Ty::Unknown,
        }
    }

    fn exprs<'a>(&mut self, fr: &mut Frame, es: impl IntoIterator<Item = &'a syn::Expr>) -> Vec<Ty> {
        es.into_iter().map(|e| self.expr(fr, e, None)).collect()
    }

    fn line(e: &impl Spanned) -> usize {
        e.span().start().line
    }

    #[allow(clippy::too_many_lines)]
    fn expr(&mut self, fr: &mut Frame, e: &syn::Expr, expected: Option<&Ty>) -> Ty {
        use syn::Expr;
        match e {
            Expr::Path(p) => self.path_value(fr, &p.path),
            Expr::Call(c) => self.call_expr(fr, c, expected),
            Expr::MethodCall(m) => self.method_call(fr, m, expected),
            Expr::Field(f) => {
                let base = self.expr(fr, &f.base, None);
                match &f.member {
                    syn::Member::Named(n) => self.field_ty(&base, &unraw(n)),
                    syn::Member::Unnamed(i) => self.field_ty(&base, &i.index.to_string()),
                }
            }
            Expr::Await(a) => self.expr(fr, &a.base, expected),
            Expr::Try(t) => {
                let wrapped = expected.map(|e| Ty::ext("Result", vec![e.clone()]));
                self.expr(fr, &t.expr, wrapped.as_ref()).unwrap_try()
            }
            Expr::Reference(r) => self.expr(fr, &r.expr, expected),
            Expr::Paren(p) => self.expr(fr, &p.expr, expected),
            Expr::Group(g) => self.expr(fr, &g.expr, expected),
            Expr::Unary(u) => {
                let t = self.expr(fr, &u.expr, None);
                if matches!(u.op, syn::UnOp::Deref(_)) { t.pointee().clone() } else { t }
            }
            Expr::Cast(c) => {
                self.expr(fr, &c.expr, None);
                let s = fr.scope.clone();
                self.tcx().ty(&c.ty, &s)
            }
            Expr::Block(b) => self.block(fr, &b.block, expected),
            Expr::Async(a) => self.block(fr, &a.block, None),
            Expr::Unsafe(u) => self.block(fr, &u.block, expected),
            Expr::Const(c) => self.block(fr, &c.block, expected),
            Expr::TryBlock(t) => self.block(fr, &t.block, None),
            Expr::Loop(l) => {
                self.block(fr, &l.body, None);
                Ty::Unknown
            }
            Expr::While(w) => {
                fr.vars.push(HashMap::new());
                self.expr(fr, &w.cond, None);
                self.block(fr, &w.body, None);
                fr.vars.pop();
                Ty::Tuple(Vec::new())
            }
            Expr::ForLoop(f) => {
                let it = self.expr(fr, &f.expr, None);
                let elem = match it.pointee() {
                    Ty::Ext(n, a)
                        if matches!(
                            n.as_str(),
                            "Vec" | "ObjectList" | "Option" | "VecDeque" | "HashSet" | "BTreeSet"
                        ) =>
                    {
                        a.first().cloned().unwrap_or(Ty::Unknown)
                    }
                    _ => Ty::Unknown,
                };
                fr.vars.push(HashMap::new());
                self.bind_pat(fr, &f.pat, elem);
                self.block(fr, &f.body, None);
                fr.vars.pop();
                Ty::Tuple(Vec::new())
            }
            Expr::If(i) => {
                fr.vars.push(HashMap::new());
                self.expr(fr, &i.cond, None);
                let t = self.block(fr, &i.then_branch, expected);
                fr.vars.pop();
                let t2 = match &i.else_branch {
                    Some((_, e)) => self.expr(fr, e, expected),
                    None => Ty::Unknown,
                };
                if t.is_unknown() { t2 } else { t }
            }
            Expr::Let(l) => {
                let t = self.expr(fr, &l.expr, None);
                self.bind_pat(fr, &l.pat, t);
                Ty::Unknown
            }
            Expr::Match(m) => {
                let t = self.expr(fr, &m.expr, None);
                let mut out = Ty::Unknown;
                for arm in &m.arms {
                    fr.vars.push(HashMap::new());
                    self.bind_pat(fr, &arm.pat, t.clone());
                    if let Some((_, g)) = &arm.guard {
                        self.expr(fr, g, None);
                    }
                    let a = self.expr(fr, &arm.body, expected);
                    fr.vars.pop();
                    if out.is_unknown() {
                        out = a;
                    }
                }
                out
            }
            Expr::Closure(c) => {
                fr.vars.push(HashMap::new());
                for input in &c.inputs {
                    self.bind_pat(fr, input, Ty::Unknown);
                }
                self.expr(fr, &c.body, None);
                fr.vars.pop();
                Ty::Unknown
            }
            Expr::Return(r) => {
                if let Some(v) = &r.expr {
                    let ret = fr.ret.clone();
                    self.expr(fr, v, Some(&ret));
                }
                Ty::Unknown
            }
            Expr::Break(b) => {
                if let Some(v) = &b.expr {
                    self.expr(fr, v, None);
                }
                Ty::Unknown
            }
            Expr::Yield(y) => {
                if let Some(v) = &y.expr {
                    self.expr(fr, v, None);
                }
                Ty::Unknown
            }
            Expr::Assign(a) => {
                let left = self.expr(fr, &a.left, None);
                let right = self.expr(fr, &a.right, Some(&left));
                if let Expr::Path(p) = &*a.left
                    && let Some(id) = p.path.get_ident()
                    && left.is_vague()
                    && !right.is_unknown()
                {
                    fr.update(&id.to_string(), refine(&left, &right));
                }
                Ty::Tuple(Vec::new())
            }
            Expr::Binary(b) => {
                self.expr(fr, &b.left, None);
                self.expr(fr, &b.right, None);
                Ty::Unknown
            }
            Expr::Index(i) => {
                let base = self.expr(fr, &i.expr, None);
                self.expr(fr, &i.index, None);
                match base.pointee() {
                    Ty::Ext(n, a) if n == "Vec" => a.first().cloned().unwrap_or(Ty::Unknown),
                    _ => Ty::Unknown,
                }
            }
            Expr::Range(r) => {
                for x in r.start.iter().chain(r.end.iter()) {
                    self.expr(fr, x, None);
                }
                Ty::Unknown
            }
            Expr::Array(a) => {
                let ts = self.exprs(fr, &a.elems);
                Ty::ext("Vec", vec![ts.into_iter().find(|t| !t.is_unknown()).unwrap_or(Ty::Unknown)])
            }
            Expr::Repeat(r) => {
                let t = self.expr(fr, &r.expr, None);
                self.expr(fr, &r.len, None);
                Ty::ext("Vec", vec![t])
            }
            Expr::Tuple(t) => Ty::Tuple(self.exprs(fr, &t.elems)),
            Expr::Struct(s) => {
                let segs = path_segs(&s.path);
                let ty = if segs.len() == 1 && segs[0] == "Self" {
                    fr.scope.self_ty.clone().unwrap_or(Ty::Unknown)
                } else {
                    match self.prog.resolve(fr.scope.at, &segs, &fr.scope.local_uses) {
                        Res::Item(k) => self.tcx().item_ty(k, Vec::new(), 0),
                        Res::Generated(g) => self.kinds.by_generated.get(&g).map_or(Ty::Unknown, |k| Ty::Kind(*k)),
                        Res::External(full) => {
                            let s = fr.scope.clone();
                            self.tcx().external_ty(&segs, &full, Vec::new(), &s)
                        }
                        _ => Ty::Unknown,
                    }
                };
                let ty = match (&ty, expected) {
                    (Ty::Adt(k, a), Some(Ty::Adt(k2, a2))) if k == k2 && a.is_empty() => Ty::Adt(*k, a2.clone()),
                    _ => ty,
                };
                for f in &s.fields {
                    let ft = match &f.member {
                        syn::Member::Named(n) => self.field_ty(&ty, &unraw(n)),
                        syn::Member::Unnamed(i) => self.field_ty(&ty, &i.index.to_string()),
                    };
                    self.expr(fr, &f.expr, Some(&ft));
                }
                if let Some(rest) = &s.rest {
                    self.expr(fr, rest, None);
                }
                if segs.last().is_some_and(|l| l == "OwnerReference") {
                    self.owner_reference(fr, s);
                }
                ty
            }
            Expr::Macro(m) => {
                if may_call(&m.mac) {
                    self.macro_tokens(fr, &m.mac.tokens);
                }
                Ty::Unknown
            }
            _ => Ty::Unknown,
        }
    }

    /// A hand-built `OwnerReference { block_owner_deletion: Some(true), kind: .., .. }`: as `controller_owner_ref`,
    /// `update` on the owner's `finalizers` (wanted where OwnerReferencesPermissionEnforcement runs, as on
    /// OpenShift). The owner is the project kind the `kind` field names (`"Memcached".into()`, `Memcached::kind(&())`).
    fn owner_reference(&mut self, fr: &Frame, s: &syn::ExprStruct) {
        let field = |name: &str| {
            s.fields.iter().find(|f| matches!(&f.member, syn::Member::Named(n) if unraw(n) == name)).map(|f| &f.expr)
        };
        let blocks = field("block_owner_deletion").is_some_and(|e| {
            matches!(strip_ref(e), syn::Expr::Call(c)
                if matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident("Some"))
                    && matches!(c.args.first(), Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(b), .. })) if b.value))
        });
        let Some(kind_expr) = field("kind").filter(|_| blocks) else { return };
        let named = owner_kind_name(kind_expr);
        let id = match named {
            Some(OwnerKind::Name(n)) => self.kinds.list.iter().position(|r| r.kind == n),
            Some(OwnerKind::Type(segs)) => match self.prog.resolve(fr.scope.at, &segs, &fr.scope.local_uses) {
                Res::Generated(g) => self.kinds.by_generated.get(&g).copied(),
                Res::Item(k) => self.kinds.by_item.get(&k).copied(),
                _ => None,
            },
            None => None,
        };
        let Some(id) = id else { return };
        let line = s.brace_token.span.open().start().line;
        self.owner_finalizers(fr, id, line, "OwnerReference { block_owner_deletion: Some(true) }");
    }

    /// An owner reference with blockOwnerDeletion: the API server's OwnerReferencesPermissionEnforcement (on in
    /// OpenShift) then wants `update` on the owner's finalizers subresource. `call` names what set it.
    fn owner_finalizers(&mut self, fr: &Frame, owner: usize, line: usize, call: &str) {
        let r = self.kinds.list[owner].clone();
        self.needs.push(Need {
            group: r.group.clone(),
            resource: format!("{}/finalizers", r.plural),
            verb: "update".into(),
            file: fr.file.clone(),
            line,
            call: format!(
                "{call} (blockOwnerDeletion: needed only where OwnerReferencesPermissionEnforcement runs, as on \
                 OpenShift; upstream Kubernetes does not ask)"
            ),
        });
    }

    /// Expressions inside a macro call (`tokio::join!(a(), b())`, `vec![..]`, `select! { x = f() => .. }`).
    fn macro_tokens(&mut self, fr: &mut Frame, tokens: &proc_macro2::TokenStream) {
        use syn::parse::Parser;
        let parsed = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated.parse2(tokens.clone());
        if let Ok(list) = parsed {
            for e in list {
                let e: &syn::Expr = Box::leak(Box::new(e));
                self.expr(fr, e, None);
            }
            return;
        }
        if let Ok(stmts) = syn::Block::parse_within.parse2(tokens.clone()) {
            let block = syn::Block { brace_token: Default::default(), stmts };
            self.block(fr, &block, None);
            return;
        }
        // Split at top-level `,`, `;`, `=>` and `=`, and read each piece that parses.
        let mut chunk = proc_macro2::TokenStream::new();
        let mut chunks = Vec::new();
        let tokens: Vec<proc_macro2::TokenTree> = tokens.clone().into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            let t = &tokens[i];
            let split = match t {
                proc_macro2::TokenTree::Punct(p) => match p.as_char() {
                    ',' | ';' => true,
                    '=' if p.spacing() == proc_macro2::Spacing::Joint
                        && matches!(tokens.get(i + 1), Some(proc_macro2::TokenTree::Punct(q)) if q.as_char() == '>') =>
                    {
                        i += 1;
                        true
                    }
                    '=' if p.spacing() == proc_macro2::Spacing::Alone => true,
                    _ => false,
                },
                _ => false,
            };
            if split {
                chunks.push(std::mem::take(&mut chunk));
            } else {
                chunk.extend(std::iter::once(t.clone()));
            }
            i += 1;
        }
        chunks.push(chunk);
        for c in chunks {
            if let Ok(e) = syn::parse2::<syn::Expr>(c.clone()) {
                let e: &syn::Expr = Box::leak(Box::new(e));
                self.expr(fr, e, None);
            } else if let Some(proc_macro2::TokenTree::Group(g)) = c.into_iter().last() {
                self.macro_tokens(fr, &g.stream());
            }
        }
    }

    /// A path used as a value: a local, a fn (made reachable), a const or static.
    fn path_value(&mut self, fr: &mut Frame, path: &syn::Path) -> Ty {
        if let Some(id) = path.get_ident()
            && let Some(t) = fr.var(&unraw(id))
        {
            return t.clone();
        }
        let segs = path_segs(path);
        match self.prog.resolve(fr.scope.at, &segs, &fr.scope.local_uses) {
            Res::Item(key) => match self.prog.item(key) {
                syn::Item::Fn(_) => {
                    let f = FnRef::Free(key);
                    self.push(Instance { f, self_ty: None, generics: BTreeMap::new(), params: Vec::new() });
                    Ty::Fn(f)
                }
                syn::Item::Const(c) => {
                    let s = Scope { at: ModKey { krate: key.krate, module: key.module }, ..Scope::default() };
                    self.tcx().ty(&c.ty, &s)
                }
                syn::Item::Static(st) => {
                    let s = Scope { at: ModKey { krate: key.krate, module: key.module }, ..Scope::default() };
                    self.tcx().ty(&st.ty, &s)
                }
                syn::Item::Struct(_) => Ty::Adt(key, Vec::new()),
                _ => Ty::Unknown,
            },
            Res::Assoc(key, rest) if rest.len() == 1 => {
                // `Type::method` as a value.
                let recv = self.tcx().item_ty(key, Vec::new(), 0);
                let found = self.methods(fr, &recv, &rest[0]);
                let mut out = Ty::Unknown;
                for (f, self_ty, generics) in found {
                    self.push(Instance { f, self_ty, generics, params: Vec::new() });
                    out = Ty::Fn(f);
                }
                out
            }
            _ if segs.first().is_some_and(|s| s == "Self") && segs.len() == 2 => {
                let recv = fr.scope.self_ty.clone().unwrap_or(Ty::Unknown);
                let found = self.methods(fr, &recv, &segs[1]);
                let mut out = Ty::Unknown;
                for (f, self_ty, generics) in found {
                    self.push(Instance { f, self_ty, generics, params: Vec::new() });
                    out = Ty::Fn(f);
                }
                out
            }
            _ => Ty::Unknown,
        }
    }

    fn call_expr(&mut self, fr: &mut Frame, c: &syn::ExprCall, expected: Option<&Ty>) -> Ty {
        let syn::Expr::Path(fp) = &*c.func else {
            let f = self.expr(fr, &c.func, None);
            let args = self.exprs(fr, &c.args);
            return match f {
                Ty::Fn(r) => self.call(r, None, BTreeMap::new(), &args, &[]),
                _ => Ty::Unknown,
            };
        };
        let path = &fp.path;
        // A local holding a fn value or a closure.
        if let Some(id) = path.get_ident()
            && let Some(t) = fr.var(&unraw(id)).cloned()
        {
            let args = self.exprs(fr, &c.args);
            return match t {
                Ty::Fn(r) => self.call(r, None, BTreeMap::new(), &args, &[]),
                _ => Ty::Unknown,
            };
        }
        let segs = path_segs(path);
        let turbofish: Vec<Ty> = {
            let s = fr.scope.clone();
            let last = path.segments.last();
            last.map(|l| segment_type_args(l).into_iter().map(|t| self.tcx().ty(t, &s)).collect()).unwrap_or_default()
        };
        // Parameter types guide the arguments (`f(Api::all(c))` with `f(api: Api<Pod>)`).
        let args: Vec<Ty> = c.args.iter().map(|a| self.expr(fr, a, None)).collect();
        let res = if segs.first().is_some_and(|s| s == "Self") && segs.len() == 2 {
            None
        } else {
            Some(self.prog.resolve(fr.scope.at, &segs, &fr.scope.local_uses))
        };
        match res {
            Some(Res::Item(key)) => match self.prog.item(key) {
                syn::Item::Fn(_) => {
                    self.call_expecting(FnRef::Free(key), None, BTreeMap::new(), &args, &turbofish, expected)
                }
                syn::Item::Struct(_) => Ty::Adt(key, Vec::new()),
                _ => Ty::Unknown,
            },
            Some(Res::Assoc(key, rest)) => {
                let type_args: Vec<Ty> = {
                    let s = fr.scope.clone();
                    let n = path.segments.len();
                    if n >= 2 {
                        segment_type_args(&path.segments[n - 2]).into_iter().map(|t| self.tcx().ty(t, &s)).collect()
                    } else {
                        Vec::new()
                    }
                };
                match self.prog.item(key) {
                    syn::Item::Enum(_) => Ty::Adt(key, type_args),
                    syn::Item::Trait(_) => {
                        // `Trait::method(recv, ..)`: dispatch on the first argument.
                        let recv = args.first().cloned().unwrap_or(Ty::Unknown);
                        self.dispatch(fr, &recv, &rest[rest.len() - 1], &args[1.min(args.len())..], &turbofish)
                    }
                    _ => {
                        let recv = self.tcx().item_ty(key, type_args, 0);
                        self.assoc_call(fr, &recv, &rest[rest.len() - 1], &args, &turbofish)
                    }
                }
            }
            Some(Res::GeneratedAssoc(g, rest)) => {
                let kind = self.kinds.by_generated.get(&g).copied();
                let recv = kind.map_or(Ty::Unknown, Ty::Kind);
                let name = rest[rest.len() - 1].as_str();
                match name {
                    "new" => recv,
                    "api_resource" => Ty::ApiResource(kind),
                    _ => self.assoc_call(fr, &recv, name, &args, &turbofish),
                }
            }
            None => {
                let recv = fr.scope.self_ty.clone().unwrap_or(Ty::Unknown);
                self.assoc_call(fr, &recv, &segs[1], &args, &turbofish)
            }
            Some(Res::External(full)) => self.external_call(fr, c, path, &full, &args, &turbofish, expected),
            Some(_) => Ty::Unknown,
        }
    }

    /// `Type::name(args)`: an associated fn of the sources (or a method called with UFCS).
    fn assoc_call(&mut self, fr: &mut Frame, recv: &Ty, name: &str, args: &[Ty], turbofish: &[Ty]) -> Ty {
        let found = self.methods(fr, recv, name);
        let mut out = Ty::Unknown;
        for (f, self_ty, generics) in found {
            let t = self.call(f, self_ty, generics, args, turbofish);
            if out.is_unknown() {
                out = t;
            }
        }
        out
    }

    /// A method of the sources on `recv`.
    fn dispatch(&mut self, fr: &mut Frame, recv: &Ty, name: &str, args: &[Ty], turbofish: &[Ty]) -> Ty {
        let found = self.methods(fr, recv, name);
        let mut out = Ty::Unknown;
        for (f, self_ty, generics) in found {
            let t = self.call(f, self_ty.or_else(|| Some(recv.clone())), generics, args, turbofish);
            if out.is_unknown() {
                out = t;
            }
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn external_call(
        &mut self,
        fr: &mut Frame,
        c: &syn::ExprCall,
        path: &syn::Path,
        full: &[String],
        args: &[Ty],
        turbofish: &[Ty],
        expected: Option<&Ty>,
    ) -> Ty {
        let n = full.len();
        let last = full[n - 1].as_str();
        let owner = if n >= 2 { full[n - 2].as_str() } else { "" };
        let line = Self::line(c);
        // `Pod::default()`, `ConfigMap::new()`...: a value of that resource type.
        if matches!(last, "default" | "new" | "from" | "clone")
            && let Some(r) = super::resources::k8s_path(&full[..n - 1])
        {
            return Ty::Kind(self.kinds.id(r));
        }
        match (owner, last) {
            ("Api", ctor) if kube_api::api_constructor(ctor).is_some() => {
                let s = fr.scope.clone();
                let segs = &path.segments;
                let mut k = if segs.len() >= 2 {
                    segment_type_args(&segs[segs.len() - 2]).first().map(|t| self.tcx().ty(t, &s))
                } else {
                    None
                }
                .unwrap_or(Ty::Unknown);
                if k.is_unknown()
                    && let Some(e) = expected.and_then(|t| t.unwrap_try().api_arg().cloned())
                {
                    k = e;
                }
                if kube_api::api_constructor(ctor) == Some(true) {
                    if let Some(Ty::ApiResource(Some(kind))) = args.last() {
                        if k.is_unknown() || matches!(&k, Ty::Ext(n, _) if n == "DynamicObject") {
                            k = Ty::Kind(*kind);
                        }
                    } else if k.is_unknown() {
                        k = Ty::ext("DynamicObject", Vec::new());
                    }
                }
                Ty::ext("Api", vec![k])
            }
            ("Controller", "new" | "new_with") => {
                let api = args.first().cloned().unwrap_or(Ty::Unknown);
                let k = api.api_arg().cloned().unwrap_or(Ty::Unknown);
                if k.is_vague() {
                    // Told later by the reconciler's signature (`.run(reconcile, ..)` with `Arc<K>`).
                    return Ty::ext("Controller", vec![Ty::Unknown]);
                }
                self.need_api(fr, &api, &[("", &["list", "watch"])], line, "Controller::new");
                Ty::ext("Controller", vec![k])
            }
            (_, "finalizer") => {
                let api = args.first().cloned().unwrap_or(Ty::Unknown);
                self.need_api(fr, &api, &[("", &["patch"])], line, "finalizer");
                Ty::Unknown
            }
            (_, f) if kube_api::is_list_watch_fn(f) => {
                let api = args.first().cloned().unwrap_or(Ty::Unknown);
                self.need_api(fr, &api, &[("", &["list", "watch"])], line, f);
                Ty::Unknown
            }
            ("Recorder", "new") => Ty::ext("Recorder", Vec::new()),
            ("Client", "try_default" | "try_from" | "new") => Ty::ext("Client", Vec::new()),
            ("ApiResource", "erase") => match turbofish.first() {
                Some(Ty::Kind(k)) => Ty::ApiResource(Some(*k)),
                _ => Ty::ApiResource(None),
            },
            ("GroupVersionKind", "gvk") => match (c.args.first(), c.args.get(1), c.args.get(2)) {
                (Some(g), Some(v), Some(k)) => match (string_lit(g), string_lit(v), string_lit(k)) {
                    (Some(g), Some(v), Some(k)) => Ty::Gvk(g, v, k),
                    _ => Ty::Unknown,
                },
                _ => Ty::Unknown,
            },
            ("ApiResource", "from_gvk" | "from_gvk_with_plural") => {
                // A GroupVersionKind of literals: the resource of a known kind, or the plural written next to it.
                let Some(Ty::Gvk(g, v, k)) = args.first() else { return Ty::ApiResource(None) };
                let plural = c.args.get(1).and_then(string_lit);
                self.order_dependent = true;
                let own = self.kinds.list.iter().position(|r| &r.group == g && &r.kind == k);
                let known = match (own, super::resources::k8s_gvk(g, v, k)) {
                    (Some(id), _) => Some(self.kinds.list[id].clone()),
                    (None, Some(r)) => Some(r.clone()),
                    (None, None) => None,
                };
                let r = match (known, plural) {
                    (Some(r), None) => Some(r),
                    (known, Some(p)) => Some(super::resources::Resource {
                        group: g.clone(),
                        version: v.clone(),
                        kind: k.clone(),
                        plural: p,
                        namespaced: known.is_none_or(|r| r.namespaced),
                    }),
                    (None, None) => None,
                };
                Ty::ApiResource(r.map(|r| self.kinds.id(&r)))
            }
            ("ApiResource", _) => Ty::ApiResource(None),
            ("Arc" | "Rc" | "Box" | "Mutex" | "RwLock", "new" | "from") => {
                Ty::ext(owner, vec![args.first().cloned().unwrap_or(Ty::Unknown)])
            }
            (_, "Some") => Ty::ext("Option", vec![args.first().cloned().unwrap_or(Ty::Unknown)]),
            (_, "Ok") => Ty::ext("Result", vec![args.first().cloned().unwrap_or(Ty::Unknown)]),
            ("Patch", "Apply") => Ty::ext("PatchApply", vec![args.first().cloned().unwrap_or(Ty::Unknown)]),
            ("Patch", _) => Ty::ext("Patch", vec![args.first().cloned().unwrap_or(Ty::Unknown)]),
            ("LeaseLock", "new") => {
                // kube-leader-election: reads, creates and patches its Lease.
                let file = fr.file.clone();
                if let Some(r) = super::resources::k8s("api::coordination::v1::Lease") {
                    for verb in ["get", "create", "patch"] {
                        self.needs.push(Need {
                            group: r.group.clone(),
                            resource: r.plural.clone(),
                            verb: verb.into(),
                            file: file.clone(),
                            line,
                            call: "LeaseLock::new".into(),
                        });
                    }
                }
                Ty::Unknown
            }
            _ => Ty::Unknown,
        }
    }

    fn method_call(&mut self, fr: &mut Frame, m: &syn::ExprMethodCall, expected: Option<&Ty>) -> Ty {
        let recv = self.expr(fr, &m.receiver, None);
        let args: Vec<Ty> = m.args.iter().map(|a| self.expr(fr, a, None)).collect();
        let name = unraw(&m.method);
        let line = m.method.span().start().line;
        let turbofish: Vec<Ty> = match &m.turbofish {
            Some(t) => {
                let s = fr.scope.clone();
                t.args
                    .iter()
                    .filter_map(|g| match g {
                        syn::GenericArgument::Type(ty) => Some(self.tcx().ty(ty, &s)),
                        _ => None,
                    })
                    .collect()
            }
            None => Vec::new(),
        };
        let base = recv.pointee().clone();
        // kube's Api<K>.
        if let Some(k) = base.api_arg().cloned() {
            let mut api = base.clone();
            if k.is_vague() {
                // `K` from the object passed (`create(&pp, &obj)`, `replace(name, &pp, &obj)`, `Patch::Apply(&obj)`).
                let from_arg = args.iter().find_map(|a| match a.pointee() {
                    Ty::Kind(id) => Some(Ty::Kind(*id)),
                    Ty::Ext(n, inner) if n == "PatchApply" || n == "Patch" => match inner.first().map(Ty::pointee) {
                        Some(Ty::Kind(id)) => Some(Ty::Kind(*id)),
                        _ => None,
                    },
                    _ => None,
                });
                if let Some(found) = from_arg {
                    api = Ty::ext("Api", vec![found]);
                    if let syn::Expr::Path(p) = strip_ref(&m.receiver)
                        && let Some(id) = p.path.get_ident()
                    {
                        fr.update(&id.to_string(), api.clone());
                    }
                }
            }
            let k = api.api_arg().cloned().unwrap_or(Ty::Unknown);
            if let Some(access) = kube_api::api_method(&name) {
                self.need_api(fr, &api, access, line, &name);
                let is_apply = args.iter().any(|a| matches!(a.pointee(), Ty::Ext(n, _) if n == "PatchApply"));
                if name == "patch" && is_apply {
                    // Server-side apply creates the object when it does not exist.
                    self.need_api(fr, &api, &[("", &["create"])], line, "patch (server-side apply)");
                }
                if matches!(name.as_str(), "create" | "replace" | "patch") {
                    self.escalation(fr, &k, m, line);
                }
            } else if let Some(verb) = kube_api::api_subresource_method(&name) {
                match m.args.first().and_then(string_lit) {
                    Some(sub) => {
                        let access: &'static [kube_api::Access] = leak_access(sub, verb);
                        self.need_api(fr, &api, access, line, &name);
                    }
                    None => self.warn(
                        fr,
                        line,
                        format!("Api::{name} with a subresource named at run time: add the rule for `<resource>/<subresource>` (verb {verb}) by hand"),
                    ),
                }
            }
            return match name.as_str() {
                n if kube_api::api_returns_object(n) => k,
                "get_opt" => Ty::ext("Option", vec![k]),
                "list" => Ty::ext("ObjectList", vec![k]),
                "clone" => api,
                _ => Ty::Unknown,
            };
        }
        match &base {
            Ty::Ext(n, a) if n == "Controller" => {
                if kube_api::is_controller_watch_method(&name) {
                    let api = args.first().cloned().unwrap_or(Ty::Unknown);
                    self.need_api(fr, &api, &[("", &["list", "watch"])], line, &format!("Controller::{name}"));
                }
                let k = a.first().cloned().unwrap_or(Ty::Unknown);
                if name == "run" && k.is_vague() {
                    let from_reconciler = match args.first() {
                        Some(Ty::Fn(f)) => self.fn_param_ty(*f, 0).pointee().clone(),
                        _ => Ty::Unknown,
                    };
                    let api = Ty::ext("Api", vec![from_reconciler]);
                    self.need_api(fr, &api, &[("", &["list", "watch"])], line, "Controller::new");
                }
                return Ty::ext("Controller", a.clone());
            }
            Ty::Ext(n, _) if n == "Recorder" => {
                if name == "publish" {
                    let (group, resource, verbs) = kube_api::RECORDER;
                    for v in verbs {
                        self.needs.push(Need {
                            group: group.into(),
                            resource: resource.into(),
                            verb: (*v).into(),
                            file: fr.file.clone(),
                            line,
                            call: "Recorder::publish".into(),
                        });
                    }
                }
                return base.clone();
            }
            Ty::Ext(n, _) if n == "Client" && kube_api::is_raw_client_method(&name) => {
                {
                    self.warn(
                        fr,
                        line,
                        format!(
                            "Client::{name} sends a request kubesmith cannot read the resource of: add its rule by hand \
                             (// +kubebuilder:rbac:groups=<group>,resources=<resource>,verbs=<verb>)"
                        ),
                    );
                }
                return Ty::Unknown;
            }
            Ty::Kind(id) if name == "controller_owner_ref" => {
                self.owner_finalizers(fr, *id, line, "controller_owner_ref");
                return Ty::Unknown;
            }
            _ => {}
        }
        let found = self.methods(fr, &base, &name);
        if !found.is_empty() {
            let mut out = Ty::Unknown;
            for (f, self_ty, generics) in found {
                let st = match &self_ty {
                    Some(t) if !t.is_vague() => self_ty.clone(),
                    _ => Some(base.clone()).filter(|b| !b.is_unknown()).or(self_ty),
                };
                let t = self.call_expecting(f, st, generics, &args, &turbofish, expected);
                if out.is_unknown() {
                    out = t;
                }
            }
            return out;
        }
        // Methods of std types that keep or unwrap the type.
        match name.as_str() {
            "clone" | "to_owned" | "as_ref" | "as_mut" | "borrow" | "borrow_mut" | "into" | "by_ref" | "lock"
            | "read" | "write" => recv,
            "unwrap" | "expect" | "unwrap_or_default" | "unwrap_or" | "unwrap_or_else" | "ok_or" | "ok_or_else"
            | "context" | "with_context" | "map_err" => match name.as_str() {
                "ok_or" | "ok_or_else" | "context" | "with_context" | "map_err" => {
                    Ty::ext("Result", vec![recv.unwrap_try()])
                }
                _ => recv.unwrap_try(),
            },
            "next" | "first" | "last" | "pop" | "next_back" => match recv.pointee() {
                Ty::Ext(n, a) if matches!(n.as_str(), "Vec" | "ObjectList" | "VecDeque") => {
                    Ty::ext("Option", a.clone())
                }
                _ => Ty::Unknown,
            },
            "iter" | "into_iter" | "iter_mut" | "drain" => match recv.pointee() {
                Ty::Ext(n, a) if matches!(n.as_str(), "Vec" | "ObjectList" | "Option") => Ty::ext("Vec", a.clone()),
                _ => Ty::Unknown,
            },
            _ => {
                let _ = expected;
                Ty::Unknown
            }
        }
    }

    /// Records the accesses `access` on the resource of `api` (an `Api<K>`), or a warning when `K` is not known.
    fn need_api(&mut self, fr: &Frame, api: &Ty, access: &[kube_api::Access], line: usize, call: &str) {
        let k = api.pointee().api_arg().cloned().unwrap_or(Ty::Unknown);
        let verbs_of = |sub: &str, verbs: &[&str]| -> String {
            let res = if sub.is_empty() { "<resource>".to_string() } else { format!("<resource>/{sub}") };
            format!("resources={res},verbs={}", verbs.join(";"))
        };
        let hint = access.iter().map(|(s, v)| verbs_of(s, v)).collect::<Vec<_>>().join(" and ");
        match k.pointee() {
            Ty::Kind(id) => {
                let r = self.kinds.list[*id].clone();
                let method = call.split(' ').next().unwrap_or_default();
                let what = if kube_api::api_method(method).is_some() || kube_api::api_subresource_method(method).is_some() {
                    format!("Api<{}>::{call}", r.kind)
                } else {
                    format!("{call}(Api<{}>)", r.kind)
                };
                for (sub, verbs) in access {
                    let resource = if sub.is_empty() { r.plural.clone() } else { format!("{}/{sub}", r.plural) };
                    for v in *verbs {
                        self.needs.push(Need {
                            group: r.group.clone(),
                            resource: resource.clone(),
                            verb: (*v).into(),
                            file: fr.file.clone(),
                            line,
                            call: what.clone(),
                        });
                    }
                }
            }
            Ty::Ext(n, _) if n == "DynamicObject" => self.warn(
                fr,
                line,
                format!(
                    "{call} on an Api<DynamicObject> whose ApiResource is only known at run time: add the rule by hand \
                     (// +kubebuilder:rbac:groups=<group>,{hint})"
                ),
            ),
            Ty::Param(p) => self.warn(
                fr,
                line,
                format!(
                    "{call} on Api<{p}> where the generic {p} is not bound by any call in the sources (it comes from \
                     outside them, or no caller's argument tells its type): name the kind at the call \
                     (`::<Kind>`) or add the rule by hand (// +kubebuilder:rbac:groups=<group>,{hint})"
                ),
            ),
            Ty::Ext(n, _) => {
                let message = format!(
                    "{call} on Api<{n}>: {n} is neither a k8s-openapi resource nor a CustomResource of the sources: add \
                     the rule by hand (// +kubebuilder:rbac:groups=<group>,{hint})"
                );
                let unresolved = Unresolved {
                    type_name: n.clone(),
                    access: access
                        .iter()
                        .map(|(sub, verbs)| (sub.to_string(), verbs.iter().map(|v| v.to_string()).collect()))
                        .collect(),
                    call: call.to_string(),
                };
                self.warn_with(fr, line, message, Some(unresolved))
            }
            Ty::Adt(key, _) if self.kinds.unreadable.contains_key(key) => {
                let (file, at, why) = &self.kinds.unreadable[key];
                let name = crate::source::syntax::item_name(self.prog.item(*key)).unwrap_or_default();
                self.warn(
                    fr,
                    line,
                    format!(
                        "{call} on Api<{name}>: {why} ({file}:{at}), or add the rule by hand \
                         (// +kubebuilder:rbac:groups=<group>,{hint})"
                    ),
                )
            }
            _ => self.warn(
                fr,
                line,
                format!(
                    "{call} on an Api whose resource type cannot be told from the code: annotate it (`let api: Api<Kind> = ..`) \
                     or add the rule by hand (// +kubebuilder:rbac:groups=<group>,{hint})"
                ),
            ),
        }
    }

    /// Creating or replacing a Role/ClusterRole needs every rule it grants (RBAC escalation prevention): the
    /// rules of a `PolicyRule { .. }` literal in the object's expression (or its `let`) are added.
    fn escalation(&mut self, fr: &Frame, k: &Ty, m: &syn::ExprMethodCall, line: usize) {
        let Ty::Kind(id) = k.pointee() else { return };
        let r = &self.kinds.list[*id];
        if r.group != "rbac.authorization.k8s.io" || !matches!(r.kind.as_str(), "Role" | "ClusterRole") {
            return;
        }
        let kind = r.kind.clone();
        let mut rules = Vec::new();
        let mut unknown = false;
        for arg in &m.args {
            let local = match strip_ref(arg) {
                syn::Expr::Path(p) => p.path.get_ident().and_then(|id| fr.rule_inits.get(&unraw(id))),
                _ => None,
            };
            collect_policy_rules(local.unwrap_or(arg), &mut rules, &mut unknown);
        }
        if rules.is_empty() {
            self.warn(
                fr,
                line,
                format!(
                    "creates or updates a {kind} whose rules are not written as `PolicyRule {{ .. }}` literals here: the \
                     operator must itself hold every rule it grants; add them by hand"
                ),
            );
            return;
        }
        for (groups, resources, verbs) in rules {
            for g in &groups {
                for res in &resources {
                    for v in &verbs {
                        self.needs.push(Need {
                            group: g.clone(),
                            resource: res.clone(),
                            verb: v.clone(),
                            file: fr.file.clone(),
                            line,
                            call: format!("{kind} rule it grants (escalation prevention)"),
                        });
                    }
                }
            }
        }
        if unknown {
            self.warn(
                fr,
                line,
                format!("a rule of this {kind} is not a literal: add what it grants to the operator's role by hand"),
            );
        }
    }

    fn warn(&mut self, fr: &Frame, line: usize, message: String) {
        self.warn_with(fr, line, message, None)
    }

    fn warn_with(&mut self, fr: &Frame, line: usize, message: String, unresolved: Option<Unresolved>) {
        let w = Warning { file: fr.file.clone(), line, message, unresolved };
        if let Some(c) = &mut self.current {
            c.warnings.push(w.clone());
        }
        self.add_warning(w);
    }

    fn add_warning(&mut self, w: Warning) {
        if !self.warnings.contains(&w) {
            self.warnings.push(w);
        }
    }
}

/// Whether a macro's arguments may hold calls that matter: not logging, formatting or assertions, whose
/// arguments are values to print (re-parsing them on every walk was most of the walk's time).
fn may_call(m: &syn::Macro) -> bool {
    let name = m.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
    !matches!(
        name.as_str(),
        "info"
            | "debug"
            | "warn"
            | "error"
            | "trace"
            | "event"
            | "span"
            | "info_span"
            | "debug_span"
            | "format"
            | "format_args"
            | "print"
            | "println"
            | "eprint"
            | "eprintln"
            | "write"
            | "writeln"
            | "panic"
            | "assert"
            | "assert_eq"
            | "assert_ne"
            | "debug_assert"
            | "debug_assert_eq"
            | "unreachable"
            | "todo"
            | "unimplemented"
            | "json"
            | "concat"
            | "stringify"
            | "include_str"
            | "env"
            | "matches"
            | "bail"
            | "anyhow"
            | "ensure"
    )
}

fn strip_ref(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Reference(r) => strip_ref(&r.expr),
        syn::Expr::Paren(p) => strip_ref(&p.expr),
        other => other,
    }
}

/// What the `kind` field of an `OwnerReference` names: a literal, or the type whose `kind` it asks.
enum OwnerKind {
    Name(String),
    Type(Vec<String>),
}

/// `"Memcached".into()`, `"Memcached".to_string()`, `String::from("Memcached")`, `Memcached::kind(&()).into()`.
fn owner_kind_name(e: &syn::Expr) -> Option<OwnerKind> {
    match strip_ref(e) {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(OwnerKind::Name(s.value())),
        syn::Expr::MethodCall(m) if m.method == "kind" => match strip_ref(&m.receiver) {
            syn::Expr::Path(p) => Some(OwnerKind::Type(path_segs(&p.path))),
            _ => None,
        },
        syn::Expr::MethodCall(m) => owner_kind_name(&m.receiver),
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(p) if p.path.segments.last().is_some_and(|l| l.ident == "kind") => {
                let mut segs = path_segs(&p.path);
                segs.pop();
                Some(OwnerKind::Type(segs))
            }
            _ => c.args.first().and_then(owner_kind_name),
        },
        _ => None,
    }
}

fn string_lit(e: &syn::Expr) -> Option<String> {
    match strip_ref(e) {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
        _ => None,
    }
}

/// An access for a subresource named by a literal (kept for the process' life: few, small).
fn leak_access(sub: String, verb: &'static str) -> &'static [kube_api::Access] {
    let sub: &'static str = Box::leak(sub.into_boxed_str());
    let verbs: &'static [&'static str] = Box::leak(vec![verb].into_boxed_slice());
    Box::leak(vec![(sub, verbs)].into_boxed_slice())
}

/// The string literals of `vec!["a".into(), ..]`, `Some(vec![..])`, `["a".to_string()]`.
fn string_list(e: &syn::Expr, unknown: &mut bool) -> Vec<String> {
    match strip_ref(e) {
        syn::Expr::Call(c) if c.args.len() == 1 => string_list(&c.args[0], unknown),
        syn::Expr::MethodCall(m) if m.args.is_empty() => string_list(&m.receiver, unknown),
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => vec![s.value()],
        syn::Expr::Array(a) => a.elems.iter().flat_map(|x| string_list(x, unknown)).collect(),
        syn::Expr::Macro(m) => {
            use syn::parse::Parser;
            match syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated
                .parse2(m.mac.tokens.clone())
            {
                Ok(list) => list.iter().flat_map(|x| string_list(x, unknown)).collect(),
                Err(_) => {
                    *unknown = true;
                    Vec::new()
                }
            }
        }
        _ => {
            *unknown = true;
            Vec::new()
        }
    }
}

/// `PolicyRule { api_groups, resources, verbs, .. }` literals anywhere in `e`.
fn collect_policy_rules(e: &syn::Expr, out: &mut Vec<(Vec<String>, Vec<String>, Vec<String>)>, unknown: &mut bool) {
    struct V<'a> {
        out: &'a mut Vec<(Vec<String>, Vec<String>, Vec<String>)>,
        unknown: &'a mut bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for V<'_> {
        fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
            if s.path.segments.last().is_some_and(|l| l.ident == "PolicyRule") {
                let mut field = |name: &str| {
                    s.fields
                        .iter()
                        .find(|f| matches!(&f.member, syn::Member::Named(n) if n == name))
                        .map(|f| string_list(&f.expr, self.unknown))
                        .unwrap_or_default()
                };
                let groups = field("api_groups");
                let resources = field("resources");
                let verbs = field("verbs");
                self.out.push((if groups.is_empty() { vec![String::new()] } else { groups }, resources, verbs));
                return;
            }
            syn::visit::visit_expr_struct(self, s);
        }

        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            use syn::parse::Parser;
            if let Ok(list) =
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated.parse2(m.tokens.clone())
            {
                for e in &list {
                    syn::visit::Visit::visit_expr(self, e);
                }
            }
        }
    }
    syn::visit::Visit::visit_expr(&mut V { out, unknown }, e);
}

fn impl_method(prog: &Program, key: ItemKey, name: &str) -> Option<usize> {
    let syn::Item::Impl(imp) = prog.item(key) else { return None };
    imp.items.iter().position(|i| matches!(i, syn::ImplItem::Fn(f) if f.sig.ident == name))
}

fn trait_default(prog: &Program, key: ItemKey, name: &str) -> Option<usize> {
    let syn::Item::Trait(t) = prog.item(key) else { return None };
    t.items.iter().position(|i| matches!(i, syn::TraitItem::Fn(f) if f.sig.ident == name && f.default.is_some()))
}
