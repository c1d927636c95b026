//! The walk: from entry points, every reachable fn body is read once per distinct argument types (a generic fn
//! called with `Api<ConfigMap>` is read with `K = ConfigMap`), tracking the types of locals, and every kube call
//! on a known resource becomes a [`Need`]; a call whose resource cannot be known becomes a [`Warning`].
//!
//! Reachability: a call, or a mention of a fn as a value (`Controller::run(reconcile, ..)`), makes the fn
//! reachable. Methods are found from the receiver's type (inherent and trait impls of the sources; a trait's
//! every impl for a `dyn`/bounded receiver); closures and async blocks are walked where they are written.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::kube_api;
use super::types::{FnRef, KindId, Kinds, Scope, Ty, TypeCx, refine};
use crate::source::lex::path_segs;
use crate::source::{ItemKey, ModKey, Program, Res};

mod call_site;
mod escape;
mod expr;
mod iter;
mod methods;
mod needs;

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

/// How far the walk's findings went, to undo a reading back to ([`Engine::mark`]).
#[derive(Clone, Copy)]
struct Mark {
    needs: usize,
    warnings: usize,
    queue: usize,
    pushed: usize,
    recorded_warnings: usize,
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
    /// A blanket impl (`impl<T, K> Ops<T, K> for T where ..`): the traits of the sources its `T` is bound by.
    blanket: Option<Vec<ItemKey>>,
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
    /// Where each local was bound, with the depth of `vars` it lives in, in binding order.
    origins: Vec<(String, LineColumn, usize)>,
    /// Types a second reading starts locals with, by where they are bound: what a later use of the local told
    /// the first reading (`let cm = api.get(n).await?; let Some(cm): Option<ConfigMap> = cm else ..`).
    hints: HashMap<(String, LineColumn), Ty>,
    /// What later uses told of locals bound vaguer, by where they are bound (the next reading's `hints`).
    learned: HashMap<(String, LineColumn), Ty>,
}

/// A line and column in a file (where a local is bound).
type LineColumn = (usize, usize);

/// How many unknown parts a type has (`Unknown`, open parameters; a `dyn`'s own arguments, not the `dyn`).
fn vagueness(t: &Ty) -> usize {
    match t {
        Ty::Unknown | Ty::Param(_) => 1,
        Ty::Dyn(_, a) | Ty::Adt(_, a) | Ty::Ext(_, a) | Ty::Tuple(a) => a.iter().map(vagueness).sum(),
        _ => 0,
    }
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

    /// Binds a new variable, bound at `at`.
    fn bind(&mut self, name: String, at: LineColumn, ty: Ty) {
        let ty = match self.hints.get(&(name.clone(), at)) {
            Some(h) => refine(&ty, h),
            None => ty,
        };
        self.origins.push((name.clone(), at, self.vars.len()));
        self.set(name, ty);
    }

    /// What the next reading should start local `name` (bound at `at`) with, if a use taught anything.
    fn hint(&self, name: &str, at: LineColumn) -> Option<&Ty> {
        self.hints.get(&(name.to_string(), at))
    }

    /// Rebinds an existing variable (where it was declared). A type a use made sharper is remembered for a
    /// second reading, whose earlier uses of the local then see it too.
    fn update(&mut self, name: &str, ty: Ty) {
        let Some(depth) = self.vars.iter().rposition(|s| s.contains_key(name)) else { return };
        let old = self.vars[depth].get(name).cloned().unwrap_or(Ty::Unknown);
        if vagueness(&ty) < vagueness(&old)
            && let Some((_, at, _)) = self.origins.iter().rev().find(|(n, _, d)| n == name && *d == depth + 1)
        {
            self.learned.insert((name.to_string(), *at), ty.clone());
        }
        self.vars[depth].insert(name.to_string(), ty);
    }
}

/// The inference engine over a program.
pub struct Engine<'p> {
    prog: &'p Program,
    /// Resources met.
    pub kinds: Kinds,
    impls: Vec<ImplInfo>,
    /// The impls of traits from outside the sources (`impl Service<Req> for Middleware<S>`), by self type: their
    /// methods run when a value of that type is handed to outside code ([`Engine::escape`]).
    ext_trait_impls: HashMap<ItemKey, Vec<ItemKey>, Fx>,
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
    /// The verbs the events `Recorder` of the program's kube-runtime publishes with
    /// ([`kube_api::recorder_verbs`](super::kube_api::recorder_verbs)).
    pub recorder_verbs: &'static [&'static str],
}

impl<'p> Engine<'p> {
    /// An engine over `prog`, whose own kinds are registered in `kinds`.
    pub fn new(prog: &'p Program, kinds: Kinds) -> Self {
        let mut e = Engine {
            prog,
            kinds,
            impls: Vec::new(),
            ext_trait_impls: HashMap::default(),
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
            recorder_verbs: super::kube_api::recorder_verbs(None),
        };
        for (key, item) in prog.items_of(crate::source::ItemKind::Impl) {
            let syn::Item::Impl(imp) = item else { continue };
            let at = ModKey { krate: key.krate, module: key.module };
            let head = match &*imp.self_ty {
                // `impl<T> Trait for T`: a blanket impl, no type's own
                syn::Type::Path(p)
                    if p.path.get_ident().is_some_and(|i| imp.generics.type_params().any(|t| t.ident == *i)) =>
                {
                    None
                }
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
            if let (Some(Head::Item(k)), Some(_), None) = (&head, &imp.trait_, trait_key) {
                e.ext_trait_impls.entry(*k).or_default().push(key);
            }
            let blanket = e.blanket_bounds(at, imp);
            e.impls.push(ImplInfo { key, head, trait_key, blanket });
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
                FnRef::TraitDefault(key, _) => Some(self.trait_self(key, None, &inst.generics)),
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
        let mut fr = Frame {
            scope,
            vars: vec![HashMap::new()],
            file,
            bounds,
            ret,
            rule_inits: HashMap::new(),
            origins: Vec::new(),
            hints: HashMap::new(),
            learned: HashMap::new(),
        };
        // A later use of a local may tell what its first uses could not: read the body again with what it
        // taught, undoing what the first reading found and queued (a second reading learns nothing new to use).
        let mark = self.mark();
        self.read_body(&mut fr, sig, block, inst);
        if !fr.learned.is_empty() {
            self.undo(mark);
            let hints = std::mem::take(&mut fr.learned);
            fr.vars = vec![HashMap::new()];
            fr.origins.clear();
            fr.rule_inits.clear();
            fr.hints = hints;
            self.read_body(&mut fr, sig, block, inst);
        }
    }

    /// Where the walk's findings stand, to undo a reading back to.
    fn mark(&self) -> Mark {
        Mark {
            needs: self.needs.len(),
            warnings: self.warnings.len(),
            queue: self.queue.len(),
            pushed: self.current.as_ref().map_or(0, |c| c.pushed.len()),
            recorded_warnings: self.current.as_ref().map_or(0, |c| c.warnings.len()),
        }
    }

    /// Forgets what was found and queued since `mark`.
    fn undo(&mut self, mark: Mark) {
        self.needs.truncate(mark.needs);
        self.warnings.truncate(mark.warnings);
        for inst in self.queue.drain(mark.queue..) {
            self.seen.remove(&inst);
            if let Some(n) = self.per_fn.get_mut(&inst.f) {
                *n = n.saturating_sub(1);
            }
        }
        if let Some(c) = &mut self.current {
            c.pushed.truncate(mark.pushed);
            c.warnings.truncate(mark.recorded_warnings);
        }
    }

    fn read_body(&mut self, fr: &mut Frame, sig: &'p syn::Signature, block: &'p syn::Block, inst: &Instance) {
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
                    self.bind_pat(fr, &pt.pat, refine(&declared, &actual));
                }
            }
        }
        let expected = fr.ret.clone();
        self.block(fr, block, Some(&expected));
    }

    /// For `impl<T: Bound> Trait for T` (the self type one of the impl's own parameters): the traits of the
    /// sources `T` is bound by, in its declaration and the where clause.
    fn blanket_bounds(&self, at: ModKey, imp: &syn::ItemImpl) -> Option<Vec<ItemKey>> {
        let syn::Type::Path(p) = &*imp.self_ty else { return None };
        let id = p.path.get_ident().filter(|_| p.qself.is_none())?;
        let param = imp.generics.type_params().find(|t| t.ident == *id)?;
        let mut traits = self.bound_traits(at, param.bounds.iter());
        for pred in imp.generics.where_clause.iter().flat_map(|w| w.predicates.iter()) {
            if let syn::WherePredicate::Type(t) = pred
                && matches!(&t.bounded_ty, syn::Type::Path(b) if b.path.is_ident(id))
            {
                traits.extend(self.bound_traits(at, t.bounds.iter()));
            }
        }
        Some(traits)
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

    // ----- statements and expressions -----
}

fn strip_ref(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Reference(r) => strip_ref(&r.expr),
        syn::Expr::Paren(p) => strip_ref(&p.expr),
        other => other,
    }
}
