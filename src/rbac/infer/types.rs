//! The types inference tracks (`Api<K>`, resources, the sources' structs, fn values, generic parameters), their
//! conversion from syn types written in a module, and unification of a declared type with an actual one.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::source::lex::path_segs;
use crate::source::{ItemKey, ModKey, Program, Res, syntax::UseEntry};

/// Index of a resource in [`Kinds`].
pub type KindId = usize;

/// A function inference can call: a free fn, a method of an `impl` block, or a trait's default method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum FnRef {
    /// `fn` item.
    Free(ItemKey),
    /// Method `index` (among the impl's items) of the `impl` block `impl_key`.
    Method(ItemKey, usize),
    /// Default method `index` of the trait `trait_key`.
    TraitDefault(ItemKey, usize),
}

/// A type as far as inference knows it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Ty {
    /// Not known.
    Unknown,
    /// A generic parameter nothing bound.
    Param(String),
    /// A Kubernetes resource type.
    Kind(KindId),
    /// A struct, enum or union of the sources with its generic arguments.
    Adt(ItemKey, Vec<Ty>),
    /// A type outside the sources, by its last path segment (`Api`, `Arc`, `Option`, `Recorder`, ...).
    Ext(String, Vec<Ty>),
    /// A fn value.
    Fn(FnRef),
    /// `dyn Trait` / `impl Trait` of traits of the sources, with the first trait's generic arguments.
    Dyn(Vec<ItemKey>, Vec<Ty>),
    /// A tuple.
    Tuple(Vec<Ty>),
    /// An `ApiResource` of a known (or unknown) resource.
    ApiResource(Option<KindId>),
    /// A string whose text is known: a literal, or a `format!` template (`/api/v1/nodes/{name}/proxy`).
    Str(String),
    /// An `http::Request` built with a known method (`GET`) and path (a [`Ty::Str`] text), for `Client::request`.
    Request(String, String),
    /// A `GroupVersionKind` written with string literals: group, version, kind.
    Gvk(String, String, String),
    /// A kube-runtime fn that lists and watches its `Api` argument, mentioned as a value (`stream_fn: watcher`
    /// handed to a generic helper that calls `stream_fn(api, cfg)`), by its name.
    ExtFn(String),
}

impl FnRef {
    /// The module the fn is written in.
    pub fn module(self) -> ModKey {
        let (FnRef::Free(k) | FnRef::Method(k, _) | FnRef::TraitDefault(k, _)) = self;
        ModKey { krate: k.krate, module: k.module }
    }
}

impl Ty {
    /// The same type with every resource id replaced by `map(id)`.
    pub fn map_kinds(&self, map: &dyn Fn(KindId) -> KindId) -> Ty {
        let all = |v: &[Ty]| v.iter().map(|t| t.map_kinds(map)).collect();
        match self {
            Ty::Kind(k) => Ty::Kind(map(*k)),
            Ty::Adt(k, a) => Ty::Adt(*k, all(a)),
            Ty::Ext(n, a) => Ty::Ext(n.clone(), all(a)),
            Ty::Dyn(t, a) => Ty::Dyn(t.clone(), all(a)),
            Ty::Tuple(a) => Ty::Tuple(all(a)),
            Ty::ApiResource(k) => Ty::ApiResource(k.map(map)),
            Ty::Unknown | Ty::Param(_) | Ty::Fn(_) | Ty::Gvk(..) | Ty::ExtFn(_) | Ty::Str(_) | Ty::Request(..) => {
                self.clone()
            }
        }
    }

    /// `Ext(name, args)`.
    pub fn ext(name: &str, args: Vec<Ty>) -> Ty {
        Ty::Ext(name.to_string(), args)
    }

    /// The associated type `assoc` of `of` (`T::Namespace`, `<T as Trait>::Namespace`): `Ext("::Namespace", [of])`,
    /// a name no written type has.
    pub fn projection(assoc: &str, of: Ty) -> Ty {
        Ty::Ext(format!("::{assoc}"), vec![of])
    }

    /// `Api<K>`'s `K`, seen through kube's wrappers of an object ([`Ty::wrapped_resource`]).
    pub fn api_arg(&self) -> Option<&Ty> {
        match self {
            Ty::Ext(n, a) if n == "Api" => Some(a.first().map_or(&Ty::Unknown, Ty::wrapped_resource)),
            _ => None,
        }
    }

    /// The type behind smart pointers a method call or field access sees through (`Arc`, `Box`, `Rc`, `Cow`).
    pub fn pointee(&self) -> &Ty {
        match self {
            Ty::Ext(n, a) if matches!(n.as_str(), "Arc" | "Rc" | "Box" | "Cow" | "RefCell" | "Mutex" | "RwLock") => {
                a.first().map_or(self, Ty::pointee)
            }
            _ => self,
        }
    }

    /// The resource type a wrapper of kube's stands for: `K` of `PartialObjectMeta<K>` (a metadata watch or get)
    /// and of `DeserializeGuard<K>` (a watch that skips objects failing to deserialize), which take `K`'s
    /// resource; else the type itself.
    pub fn wrapped_resource(&self) -> &Ty {
        match self {
            Ty::Ext(n, a) if matches!(n.as_str(), "PartialObjectMeta" | "DeserializeGuard") && !a.is_empty() => {
                a[0].pointee().wrapped_resource()
            }
            _ => self,
        }
    }

    /// `T` of `Result<T, _>`, `Option<T>`, `Poll<T>` (what `?` and `unwrap` give); else the type itself.
    pub fn unwrap_try(&self) -> Ty {
        match self.pointee() {
            Ty::Ext(n, a) if matches!(n.as_str(), "Result" | "Option" | "Poll") => {
                a.first().cloned().unwrap_or(Ty::Unknown)
            }
            other => other.clone(),
        }
    }

    /// Whether the type holds nothing known.
    pub fn is_unknown(&self) -> bool {
        matches!(self, Ty::Unknown)
    }

    /// Whether `Unknown`, an unbound parameter or an opaque `dyn` appears in the type.
    pub fn is_vague(&self) -> bool {
        match self {
            Ty::Unknown | Ty::Param(_) | Ty::Dyn(..) => true,
            Ty::Adt(_, a) | Ty::Ext(_, a) | Ty::Tuple(a) => a.iter().any(Ty::is_vague),
            _ => false,
        }
    }
}

/// The resources met so far, deduplicated.
#[derive(Debug, Default)]
pub struct Kinds {
    /// By id.
    pub list: Vec<super::resources::Resource>,
    /// For the sources' own kinds: the id of the generated name ([`Program::add_generated`]) → kind.
    pub by_generated: BTreeMap<usize, KindId>,
    /// The spec struct of each own kind.
    pub spec_of: BTreeMap<KindId, ItemKey>,
    /// Types of the sources with a hand-written resource impl ([`super::resource_impl`]) → kind.
    pub by_item: BTreeMap<ItemKey, KindId>,
    /// The type of the sources behind such a kind (its fields and methods).
    pub item_of: BTreeMap<KindId, ItemKey>,
    /// Types whose resource impl gives values only known at run time: where (file name, line) and why.
    pub unreadable: BTreeMap<ItemKey, (String, usize, String)>,
}

impl Kinds {
    /// The id of `r`, adding it if new.
    pub fn id(&mut self, r: &super::resources::Resource) -> KindId {
        match self.list.iter().position(|x| x == r) {
            Some(i) => i,
            None => {
                self.list.push(r.clone());
                self.list.len() - 1
            }
        }
    }
}

/// Where a type is written: its module, the fn body's own `use`s, and the generic parameters in scope.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// The module.
    pub at: ModKey,
    /// `use` declarations inside the enclosing fn body.
    pub local_uses: Vec<UseEntry>,
    /// Generic parameters in scope with what they are bound to (`Ty::Param` when unbound).
    pub generics: BTreeMap<String, Ty>,
    /// `Self`.
    pub self_ty: Option<Ty>,
}

/// The type arguments of a path segment (`Api::<Pod>` → `[Pod]`).
pub fn segment_type_args(seg: &syn::PathSegment) -> Vec<&syn::Type> {
    crate::source::syntax::type_args(&seg.arguments)
}

/// Converts types written in the sources.
pub struct TypeCx<'p> {
    /// The program.
    pub prog: &'p Program,
    /// Resources.
    pub kinds: &'p mut Kinds,
}

impl TypeCx<'_> {
    /// The type `ty` written in `scope`.
    pub fn ty(&mut self, ty: &syn::Type, scope: &Scope) -> Ty {
        self.ty_depth(ty, scope, 0)
    }

    fn ty_depth(&mut self, ty: &syn::Type, scope: &Scope, depth: usize) -> Ty {
        if depth > 16 {
            return Ty::Unknown;
        }
        match ty {
            syn::Type::Reference(r) => self.ty_depth(&r.elem, scope, depth + 1),
            syn::Type::Paren(p) => self.ty_depth(&p.elem, scope, depth + 1),
            syn::Type::Group(g) => self.ty_depth(&g.elem, scope, depth + 1),
            syn::Type::Ptr(p) => self.ty_depth(&p.elem, scope, depth + 1),
            syn::Type::Slice(s) => Ty::ext("Vec", vec![self.ty_depth(&s.elem, scope, depth + 1)]),
            syn::Type::Array(a) => Ty::ext("Vec", vec![self.ty_depth(&a.elem, scope, depth + 1)]),
            syn::Type::Tuple(t) => Ty::Tuple(t.elems.iter().map(|e| self.ty_depth(e, scope, depth + 1)).collect()),
            syn::Type::ImplTrait(i) => self.bounds_ty(i.bounds.iter(), scope, depth),
            syn::Type::TraitObject(o) => self.bounds_ty(o.bounds.iter(), scope, depth),
            syn::Type::Path(p) if p.qself.is_none() => self.path_ty(&p.path, scope, depth),
            // `<T as Trait>::Assoc`
            syn::Type::Path(syn::TypePath { qself: Some(q), path }) if q.position > 0 => {
                let of = self.ty_depth(&q.ty, scope, depth + 1);
                match path.segments.last() {
                    Some(last) => Ty::projection(&crate::source::syntax::unraw(&last.ident), of),
                    None => Ty::Unknown,
                }
            }
            _ => Ty::Unknown,
        }
    }

    /// `impl Trait` / `dyn Trait`: the sources' traits, or `T` for `Future<Output = T>`.
    fn bounds_ty<'a>(
        &mut self,
        bounds: impl Iterator<Item = &'a syn::TypeParamBound>,
        scope: &Scope,
        depth: usize,
    ) -> Ty {
        let mut traits = Vec::new();
        let mut args = Vec::new();
        let mut bounds_item: Option<(&syn::Path, &syn::Type)> = None;
        for b in bounds {
            let syn::TypeParamBound::Trait(t) = b else { continue };
            let last = t.path.segments.last();
            if bounds_item.is_none() {
                bounds_item = item_binding(&t.path).map(|item| (&t.path, item));
            }
            if last.is_some_and(|s| s.ident == "Future")
                && let Some(syn::PathArguments::AngleBracketed(a)) = last.map(|s| &s.arguments)
            {
                for arg in &a.args {
                    if let syn::GenericArgument::AssocType(at) = arg
                        && at.ident == "Output"
                    {
                        return self.ty_depth(&at.ty, scope, depth + 1);
                    }
                }
            }
            if let Res::Item(key) = self.prog.resolve(scope.at, &path_segs(&t.path), &scope.local_uses)
                && matches!(self.prog.item(key), syn::Item::Trait(_))
            {
                if traits.is_empty()
                    && let Some(l) = last
                {
                    args = segment_type_args(l).into_iter().map(|t| self.ty_depth(t, scope, depth + 1)).collect();
                }
                traits.push(key);
            }
        }
        if traits.is_empty() { self.item_bound(bounds_item, scope, depth) } else { Ty::Dyn(traits, args) }
    }

    /// `impl Stream<Item = X>` / `impl Iterator<Item = X>` of a trait outside the sources: `Ext(trait, [X])`, so
    /// a generic fn returning `impl Stream<Item = Event<T>>` binds `T` from what its caller expects back.
    fn item_bound(&mut self, bound: Option<(&syn::Path, &syn::Type)>, scope: &Scope, depth: usize) -> Ty {
        let Some((path, item)) = bound else { return Ty::Unknown };
        let name = path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        Ty::Ext(name, vec![self.ty_depth(item, scope, depth + 1)])
    }

    fn path_ty(&mut self, path: &syn::Path, scope: &Scope, depth: usize) -> Ty {
        let segs = path_segs(path);
        let Some(last) = path.segments.last() else { return Ty::Unknown };
        let args: Vec<Ty> = segment_type_args(last).into_iter().map(|t| self.ty_depth(t, scope, depth + 1)).collect();
        if segs.len() == 1 {
            if let Some(bound) = scope.generics.get(&segs[0]) {
                return bound.clone();
            }
            if segs[0] == "Self" {
                return scope.self_ty.clone().unwrap_or(Ty::Unknown);
            }
        }
        if segs.len() == 2 && (scope.generics.contains_key(&segs[0]) || segs[0] == "Self") {
            // `T::Namespace`: an associated type of a generic, kept as a projection of what `T` is bound to, so
            // that a call passing a `K::Namespace` binds the callee's `T` to `K`
            let of = if segs[0] == "Self" {
                scope.self_ty.clone().unwrap_or(Ty::Unknown)
            } else {
                scope.generics[&segs[0]].clone()
            };
            return Ty::projection(&segs[1], of);
        }
        match self.prog.resolve(scope.at, &segs, &scope.local_uses) {
            Res::Item(key) => self.item_ty(key, args, depth),
            Res::Generated(g) => self.kinds.by_generated.get(&g).map_or(Ty::Unknown, |k| Ty::Kind(*k)),
            Res::External(full) => self.external_ty(&segs, &full, args, scope),
            _ => Ty::Unknown,
        }
    }

    /// The type an item names with `args`: a struct/enum, an alias expanded, a trait as `dyn`.
    pub fn item_ty(&mut self, key: ItemKey, args: Vec<Ty>, depth: usize) -> Ty {
        match self.prog.item(key) {
            syn::Item::Struct(_) | syn::Item::Enum(_) | syn::Item::Union(_) => match self.kinds.by_item.get(&key) {
                Some(id) => Ty::Kind(*id),
                None => Ty::Adt(key, args),
            },
            syn::Item::Trait(_) => Ty::Dyn(vec![key], args),
            syn::Item::Type(alias) => {
                let mut scope = Scope { at: ModKey { krate: key.krate, module: key.module }, ..Scope::default() };
                for (i, p) in alias.generics.type_params().enumerate() {
                    scope.generics.insert(p.ident.to_string(), args.get(i).cloned().unwrap_or(Ty::Unknown));
                }
                self.ty_depth(&alias.ty, &scope, depth + 1)
            }
            _ => Ty::Unknown,
        }
    }

    /// A type outside the sources, written `segs` and resolved to `full`: a k8s-openapi resource (also through a
    /// glob of the sources that imports or re-exports one of its modules), else `Ext(last segment)`.
    pub fn external_ty(&mut self, segs: &[String], full: &[String], args: Vec<Ty>, scope: &Scope) -> Ty {
        if let Some(r) = super::resources::k8s_path(full) {
            return Ty::Kind(self.kinds.id(r));
        }
        for path in self.prog.external_candidates(scope.at, segs, &scope.local_uses) {
            if let Some(r) = super::resources::k8s_path(&path) {
                return Ty::Kind(self.kinds.id(r));
            }
        }
        Ty::Ext(full.last().cloned().unwrap_or_default(), args)
    }
}

/// `X` of a bound written `Trait<Item = X>`.
fn item_binding(path: &syn::Path) -> Option<&syn::Type> {
    let syn::PathArguments::AngleBracketed(a) = &path.segments.last()?.arguments else { return None };
    a.args.iter().find_map(|arg| match arg {
        syn::GenericArgument::AssocType(at) if at.ident == "Item" => Some(&at.ty),
        _ => None,
    })
}

/// Binds the generic parameters of `declared` (named in `params`) by matching it against `actual`.
pub fn unify(declared: &Ty, actual: &Ty, params: &std::collections::BTreeSet<String>, out: &mut BTreeMap<String, Ty>) {
    let actual = if matches!(declared, Ty::Ext(n, _) if n == "Arc" || n == "Box" || n == "Rc") {
        actual
    } else {
        actual.pointee()
    };
    match (declared, actual) {
        (_, Ty::Unknown) => {}
        (Ty::Param(p), a) if params.contains(p) => {
            let slot = out.entry(p.clone()).or_insert(Ty::Unknown);
            if slot.is_vague() {
                *slot = a.clone();
            }
        }
        (Ty::Adt(k1, a1), Ty::Adt(k2, a2)) if k1 == k2 => {
            for (d, a) in a1.iter().zip(a2) {
                unify(d, a, params, out);
            }
        }
        (Ty::Ext(n1, a1), Ty::Ext(n2, a2)) if n1 == n2 => {
            for (d, a) in a1.iter().zip(a2) {
                unify(d, a, params, out);
            }
        }
        (Ty::Tuple(a1), Ty::Tuple(a2)) => {
            for (d, a) in a1.iter().zip(a2) {
                unify(d, a, params, out);
            }
        }
        (Ty::Dyn(t1, a1), Ty::Dyn(t2, a2)) if t1.first() == t2.first() => {
            for (d, a) in a1.iter().zip(a2) {
                unify(d, a, params, out);
            }
        }
        _ => {}
    }
}

/// Replaces bound parameters in `ty`.
pub fn subst(ty: &Ty, map: &BTreeMap<String, Ty>) -> Ty {
    match ty {
        Ty::Param(p) => map.get(p).filter(|t| !t.is_unknown()).cloned().unwrap_or_else(|| ty.clone()),
        Ty::Adt(k, a) => Ty::Adt(*k, a.iter().map(|t| subst(t, map)).collect()),
        Ty::Ext(n, a) => Ty::Ext(n.clone(), a.iter().map(|t| subst(t, map)).collect()),
        Ty::Tuple(a) => Ty::Tuple(a.iter().map(|t| subst(t, map)).collect()),
        other => other.clone(),
    }
}

/// The more precise of a declared type and the type actually passed: vague parts of `declared` are taken
/// from `actual` (`Api<K>` with `K` unbound and `Api<ConfigMap>` passed → `Api<ConfigMap>`).
pub fn refine(declared: &Ty, actual: &Ty) -> Ty {
    match (declared, actual) {
        (d, Ty::Unknown) => d.clone(),
        (Ty::Unknown | Ty::Param(_) | Ty::Dyn(..), a) => a.clone(),
        // `Api<DynamicObject>` built with the `ApiResource` of a known kind.
        (Ty::Ext(n, _), Ty::Kind(k)) if n == "DynamicObject" => Ty::Kind(*k),
        (Ty::Adt(k1, a1), Ty::Adt(k2, a2)) if k1 == k2 && a1.len() == a2.len() => {
            Ty::Adt(*k1, a1.iter().zip(a2).map(|(d, a)| refine(d, a)).collect())
        }
        // `let p: Patch<&T> = Patch::Apply(..)`: the value is what server-side apply needs to know.
        (Ty::Ext(n1, a1), Ty::Ext(n2, a2)) if n1 == "Patch" && n2 == "PatchApply" && a1.len() == a2.len() => {
            Ty::Ext(n2.clone(), a1.iter().zip(a2).map(|(d, a)| refine(d, a)).collect())
        }
        (Ty::Ext(n1, a1), Ty::Ext(n2, a2)) if n1 == n2 && a1.len() == a2.len() => {
            Ty::Ext(n1.clone(), a1.iter().zip(a2).map(|(d, a)| refine(d, a)).collect())
        }
        (Ty::Ext(n, a), other) if matches!(n.as_str(), "Arc" | "Box" | "Rc") && a.len() == 1 => {
            Ty::Ext(n.clone(), vec![refine(&a[0], other)])
        }
        (d, _) => d.clone(),
    }
}
