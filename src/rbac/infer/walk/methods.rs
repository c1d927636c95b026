//! Methods: the fns a method call on a receiver type can reach (inherent impls, trait impls, a bound's or a
//! `dyn` trait's every impl), how an impl binds its generics for that receiver, associated and external calls
//! (kube's own API), and the method call expression itself.

use std::collections::{BTreeMap, BTreeSet};

use super::{Engine, Frame, Head, Need, kube_api, strip_ref};
use crate::rbac::infer::types::{FnRef, Scope, Ty, segment_type_args, unify};
use crate::source::lex::path_segs;
use crate::source::syntax::unraw;
use crate::source::{ItemKey, ModKey, Program, Res};

impl<'p> Engine<'p> {
    /// The methods named `name` a receiver of type `recv` may call, with the impl's generic bindings.
    pub(super) fn methods(
        &mut self,
        fr: &Frame,
        recv: &Ty,
        name: &str,
    ) -> Vec<(FnRef, Option<Ty>, BTreeMap<String, Ty>)> {
        if let Some(c) = &mut self.current {
            c.impls = true;
        }
        let recv = recv.pointee().clone();
        let head = match &recv {
            Ty::Adt(k, _) => Some(Head::Item(*k)),
            Ty::Kind(id) => match self.kinds.item_of.get(id) {
                Some(k) => Some(Head::Item(*k)),
                None => match self.kinds.by_generated.iter().find(|(_, k)| *k == id) {
                    Some((g, _)) => Some(Head::Generated(*g)),
                    // a k8s-openapi type: the sources' `impl Trait for StatefulSet`
                    None => Some(Head::Ext(self.kinds.list[*id].kind.clone())),
                },
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
            if out.is_empty() {
                out = self.blanket_methods(&recv, Some(&head), name);
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
            if out.is_empty() {
                // A method of a supertrait (`trait Kube: IntoApi<Secret> + IntoApi<ConfigMap>`): through that
                // trait, its arguments left open where the supertraits differ, for the call's use to tell.
                for sup in self.supertraits(&recv) {
                    out.extend(self.methods(fr, &sup, name));
                }
            }
            return out;
        }
        if matches!(recv, Ty::Kind(_) | Ty::Tuple(_)) {
            // A k8s-openapi resource (no impl of the sources names it) may still take a blanket impl's methods.
            return self.blanket_methods(&recv, None, name);
        }
        if recv.is_unknown() {
            // Nothing known of the receiver: every method of that name in the sources may be the one called (a
            // method: an associated fn without `self`, kubert's `LeaseManager::get(api, name)`, is not called so).
            for i in 0..self.impls.len() {
                let key = self.impls[i].key;
                if let Some(idx) = impl_method(self.prog, key, name).filter(|&idx| takes_self(self.prog, key, idx)) {
                    out.push((FnRef::Method(key, idx), None, BTreeMap::new()));
                }
            }
        }
        out
    }

    /// The methods named `name` of the blanket impls (`impl<T, K> Ops<T, K> for T where T: ..`) a receiver of
    /// type `recv` (whose impls' self type is `head`, if any) takes, `T` bound to `recv`. A blanket impl whose `T`
    /// is bound by a trait of the sources applies only when `recv` has an impl of that trait; bounds on traits
    /// outside the sources (`Resource`, `Clone`) are taken as met.
    pub(super) fn blanket_methods(
        &mut self,
        recv: &Ty,
        head: Option<&Head>,
        name: &str,
    ) -> Vec<(FnRef, Option<Ty>, BTreeMap<String, Ty>)> {
        let mut out = Vec::new();
        for i in 0..self.impls.len() {
            let Some(bounds) = &self.impls[i].blanket else { continue };
            let met = bounds.iter().all(|b| {
                self.impls.iter().any(|other| {
                    other.trait_key == Some(*b)
                        && (other.blanket.is_some() || (head.is_some() && other.head.as_ref() == head))
                })
            });
            if !met {
                continue;
            }
            let (key, trait_key) = (self.impls[i].key, self.impls[i].trait_key);
            let generics = self.impl_bindings(key, recv);
            if let Some(idx) = impl_method(self.prog, key, name) {
                out.push((FnRef::Method(key, idx), Some(recv.clone()), generics));
            } else if let Some(t) = trait_key
                && let Some(idx) = trait_default(self.prog, t, name)
            {
                out.push((FnRef::TraitDefault(t, idx), Some(recv.clone()), generics));
            }
        }
        out
    }

    /// The supertraits of the traits of a `dyn` receiver, as `dyn` types: `trait Kube: IntoApi<Secret> +
    /// IntoApi<ConfigMap>` gives one `dyn IntoApi<_>`, its argument open because the two differ.
    fn supertraits(&mut self, recv: &Ty) -> Vec<Ty> {
        let Ty::Dyn(traits, dargs) = recv else { return Vec::new() };
        let prog = self.prog;
        let mut found: Vec<(ItemKey, Vec<Ty>)> = Vec::new();
        for (n, key) in traits.iter().enumerate() {
            let syn::Item::Trait(t) = prog.item(*key) else { continue };
            let at = ModKey { krate: key.krate, module: key.module };
            let mut scope = Scope { at, ..Scope::default() };
            for (i, p) in t.generics.type_params().enumerate() {
                let arg = if n == 0 { dargs.get(i).cloned() } else { None };
                scope.generics.insert(p.ident.to_string(), arg.unwrap_or(Ty::Unknown));
            }
            for b in &t.supertraits {
                let syn::TypeParamBound::Trait(tb) = b else { continue };
                let Res::Item(sup) = prog.resolve(at, &path_segs(&tb.path), &[]) else { continue };
                if !matches!(prog.item(sup), syn::Item::Trait(_)) {
                    continue;
                }
                let args: Vec<Ty> = match tb.path.segments.last() {
                    Some(last) => segment_type_args(last).into_iter().map(|a| self.item_type(a, &scope)).collect(),
                    None => Vec::new(),
                };
                match found.iter_mut().find(|(k, _)| *k == sup) {
                    Some((_, seen)) => {
                        for (s, a) in seen.iter_mut().zip(&args) {
                            if s != a {
                                *s = Ty::Unknown;
                            }
                        }
                    }
                    None => found.push((sup, args)),
                }
            }
        }
        found.into_iter().map(|(k, a)| Ty::Dyn(vec![k], a)).collect()
    }

    /// `dyn Trait<args>` with open arguments, called as `.name(args)`: the arguments the trait's declaration of
    /// `name` binds from the call's argument types and the type it is expected to give; `None` when nothing
    /// sharper is learned.
    pub(super) fn dyn_args_from_call(
        &mut self,
        recv: &Ty,
        name: &str,
        args: &[Ty],
        expected: Option<&Ty>,
    ) -> Option<Ty> {
        let Ty::Dyn(traits, dargs) = recv else { return None };
        let key = *traits.first()?;
        let prog = self.prog;
        let syn::Item::Trait(t) = prog.item(key) else { return None };
        let params: Vec<String> = t.generics.type_params().map(|p| p.ident.to_string()).collect();
        if params.is_empty() {
            return None;
        }
        let current: Vec<Ty> = (0..params.len()).map(|i| dargs.get(i).cloned().unwrap_or(Ty::Unknown)).collect();
        if !current.iter().any(Ty::is_vague) {
            return None;
        }
        let method = t.items.iter().find_map(|it| match it {
            syn::TraitItem::Fn(f) if f.sig.ident == name => Some(f),
            _ => None,
        })?;
        let mut scope = Scope { at: ModKey { krate: key.krate, module: key.module }, ..Scope::default() };
        let mut names = BTreeSet::new();
        for (p, cur) in params.iter().zip(&current) {
            names.insert(p.clone());
            let t = if cur.is_vague() { Ty::Param(p.clone()) } else { cur.clone() };
            scope.generics.insert(p.clone(), t);
        }
        for p in method.sig.generics.type_params() {
            scope.generics.insert(p.ident.to_string(), Ty::Unknown);
        }
        let mut bound = BTreeMap::new();
        let inputs = method.sig.inputs.iter().filter_map(|i| match i {
            syn::FnArg::Typed(pt) => Some(&*pt.ty),
            syn::FnArg::Receiver(_) => None,
        });
        for (ty, actual) in inputs.zip(args) {
            let declared = self.item_type(ty, &scope);
            unify(&declared, actual, &names, &mut bound);
        }
        if let (Some(e), syn::ReturnType::Type(_, ret)) = (expected, &method.sig.output) {
            let declared = self.item_type(ret, &scope);
            unify(&declared, e, &names, &mut bound);
        }
        let sharper: Vec<Ty> = params
            .iter()
            .zip(&current)
            .map(|(p, cur)| match bound.get(p) {
                Some(b) if cur.is_vague() && !b.is_vague() => b.clone(),
                _ => cur.clone(),
            })
            .collect();
        (sharper != current).then(|| Ty::Dyn(traits.clone(), sharper))
    }

    /// An impl of a trait seen through `dyn Trait<args>`: its generics bound by matching the impl's trait
    /// arguments with `args`, and its self type under those bindings.
    pub(super) fn impl_for_trait_args(&mut self, key: ItemKey, args: &[Ty]) -> (Option<Ty>, BTreeMap<String, Ty>) {
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
    pub(super) fn impl_bindings(&mut self, key: ItemKey, recv: &Ty) -> BTreeMap<String, Ty> {
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

    /// `Type::name(args)`: an associated fn of the sources (or a method called with UFCS).
    pub(super) fn assoc_call(&mut self, fr: &mut Frame, recv: &Ty, name: &str, args: &[Ty], turbofish: &[Ty]) -> Ty {
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
    pub(super) fn dispatch(&mut self, fr: &mut Frame, recv: &Ty, name: &str, args: &[Ty], turbofish: &[Ty]) -> Ty {
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
    pub(super) fn external_call(
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
            && let Some(r) = crate::rbac::infer::resources::k8s_path(&full[..n - 1])
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
                let known = match (own, crate::rbac::infer::resources::k8s_gvk(g, v, k)) {
                    (Some(id), _) => Some(self.kinds.list[id].clone()),
                    (None, Some(r)) => Some(r.clone()),
                    (None, None) => None,
                };
                let r = match (known, plural) {
                    (Some(r), None) => Some(r),
                    (known, Some(p)) => Some(crate::rbac::infer::resources::Resource {
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
            // `http::Request::get(url)`: a raw request whose rule its path tells
            ("Request", method @ ("get" | "post" | "put" | "patch" | "delete")) => {
                match args.first().map(Ty::pointee) {
                    Some(Ty::Str(path)) => Ty::Request(method.to_ascii_uppercase(), path.clone()),
                    _ => Ty::Unknown,
                }
            }
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
                if let Some(r) = crate::rbac::infer::resources::k8s("api::coordination::v1::Lease") {
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
            // `Sha256::new()`, `Vec::new()`: a value of that type outside the sources, whose methods are never the
            // sources' own (but for the sources' impls of their traits for it)
            (ty, "new" | "default" | "with_capacity") if ty.starts_with(|c: char| c.is_ascii_uppercase()) => {
                Ty::ext(ty, Vec::new())
            }
            _ => Ty::Unknown,
        }
    }

    pub(super) fn method_call(&mut self, fr: &mut Frame, m: &syn::ExprMethodCall, expected: Option<&Ty>) -> Ty {
        let name = unraw(&m.method);
        // What the receiver must be for the call to give `expected`, for the adapters that keep the value:
        // `client.get(..).await.context(..)` returning `Result<Pod>` tells `get`'s `T`.
        let recv_expected = match name.as_str() {
            "context" | "with_context" | "map_err" | "clone" | "to_owned" => expected.cloned(),
            "unwrap" | "expect" | "unwrap_or_default" => expected.map(|e| Ty::ext("Result", vec![e.clone()])),
            _ => None,
        };
        let recv = self.expr(fr, &m.receiver, recv_expected.as_ref());
        // A closure given to an adaptor of a collection takes its elements (`.map(|svc| owner.apply(svc))`).
        let elem = super::iter::closure_input(&recv, &name);
        let mut body = Ty::Unknown;
        let args: Vec<Ty> = m
            .args
            .iter()
            .map(|a| match (a, &elem) {
                (syn::Expr::Closure(c), Some(e)) => {
                    body = self.closure(fr, c, std::slice::from_ref(e));
                    Ty::Unknown
                }
                _ => self.expr(fr, a, None),
            })
            .collect();
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
        let mut base = recv.pointee().clone();
        // `dyn Api<T>` with `T` open: the trait's declaration of the method tells `T` from the arguments and what
        // the caller expects (`api.apply(pod, ..)`, `.add_finalizer(svc.as_ref(), ..)`); a local receiver keeps it.
        if let Some(sharper) = self.dyn_args_from_call(&base, &name, &args, expected) {
            base = sharper;
            if let syn::Expr::Path(p) = strip_ref(&m.receiver)
                && let Some(id) = p.path.get_ident()
            {
                fr.update(&unraw(id), with_pointee(&recv, base.clone()));
            }
        }
        // kube's Api<K>; a method it does not have is a trait's of the sources (`impl Ops<K> for kube::Api<K>`).
        let sources_method = kube_api::api_method(&name).is_none()
            && kube_api::api_subresource_method(&name).is_none()
            && base.api_arg().is_some()
            && !self.methods(fr, &base, &name).is_empty();
        if let Some(k) = base.api_arg().cloned().filter(|_| !sources_method) {
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
                // `Result<Option<K>>`: `?` gives the `Option` a `let Some(x) = .. else` takes apart.
                "get_opt" => Ty::ext("Result", vec![Ty::ext("Option", vec![k])]),
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
                    let (group, resource) = kube_api::RECORDER;
                    for v in self.recorder_verbs {
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
                let known = match args.first().map(Ty::pointee) {
                    Some(Ty::Request(method, path)) => kube_api::raw_request_rule(method, path),
                    _ => None,
                };
                if let Some((group, resource, verb)) = known {
                    self.needs.push(Need {
                        group,
                        resource,
                        verb: verb.into(),
                        file: fr.file.clone(),
                        line,
                        call: format!("Client::{name}"),
                    });
                } else {
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
                    // Through `dyn Trait` or a bound: the impl's own type (`Conversion<H>`, `H` open) is still the
                    // one whose fields and methods the body uses.
                    Some(t) if matches!(base, Ty::Dyn(..) | Ty::Param(_)) && !t.is_unknown() => self_ty.clone(),
                    _ => Some(base.clone()).filter(|b| !b.is_unknown()).or(self_ty),
                };
                let t = self.call_expecting(f, st, generics, &args, &turbofish, expected);
                if out.is_unknown() {
                    out = t;
                }
            }
            return out;
        }
        // A method outside the sources (`App::wrap`, `Router::layer`): what it is given may be called back.
        self.escape(&args);
        if let Some(t) = super::iter::adaptor_result(&recv, &name, body) {
            return t;
        }
        // Methods of std types that keep or unwrap the type.
        match (name.as_str(), &base) {
            ("to_string" | "as_str" | "to_owned" | "clone" | "into", Ty::Str(_)) => return base.clone(),
            // `http::request::Builder::body` gives `Result<Request>`
            ("body", Ty::Request(..)) => return Ty::ext("Result", vec![base.clone()]),
            _ => {}
        }
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
            // `let mut found = Vec::new(); .. found.push(obj)`: the local holds what is pushed.
            "push" | "push_back" | "push_front" if args.len() == 1 && !args[0].is_vague() => {
                let vague = match recv.pointee() {
                    Ty::Ext(n, a) if matches!(n.as_str(), "Vec" | "VecDeque") => a.iter().all(Ty::is_vague),
                    t => t.is_unknown(),
                };
                if vague
                    && let syn::Expr::Path(p) = strip_ref(&m.receiver)
                    && let Some(id) = p.path.get_ident()
                {
                    let collection = match recv.pointee() {
                        Ty::Ext(n, _) => n.clone(),
                        _ => "Vec".to_string(),
                    };
                    fr.update(&unraw(id), Ty::Ext(collection, vec![args[0].clone()]));
                }
                Ty::Unknown
            }
            _ => {
                let _ = expected;
                Ty::Unknown
            }
        }
    }
}

/// `recv` with the type it points to (through `Box`, `Arc`, ..) replaced by `base`.
fn with_pointee(recv: &Ty, base: Ty) -> Ty {
    match recv {
        Ty::Ext(n, a)
            if a.len() == 1 && matches!(n.as_str(), "Arc" | "Rc" | "Box" | "Cow" | "RefCell" | "Mutex" | "RwLock") =>
        {
            Ty::Ext(n.clone(), vec![with_pointee(&a[0], base)])
        }
        _ => base,
    }
}

pub(super) fn string_lit(e: &syn::Expr) -> Option<String> {
    match strip_ref(e) {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
        _ => None,
    }
}

/// An access for a subresource named by a literal (kept for the process' life: few, small).
pub(super) fn leak_access(sub: String, verb: &'static str) -> &'static [kube_api::Access] {
    let sub: &'static str = Box::leak(sub.into_boxed_str());
    let verbs: &'static [&'static str] = Box::leak(vec![verb].into_boxed_slice());
    Box::leak(vec![(sub, verbs)].into_boxed_slice())
}

pub(super) fn impl_method(prog: &Program, key: ItemKey, name: &str) -> Option<usize> {
    let syn::Item::Impl(imp) = prog.item(key) else { return None };
    imp.items.iter().position(|i| matches!(i, syn::ImplItem::Fn(f) if f.sig.ident == name))
}

/// Whether the fn at `idx` of the impl block `key` is a method (takes `self`).
fn takes_self(prog: &Program, key: ItemKey, idx: usize) -> bool {
    let syn::Item::Impl(imp) = prog.item(key) else { return false };
    matches!(imp.items.get(idx), Some(syn::ImplItem::Fn(f)) if f.sig.receiver().is_some())
}

pub(super) fn trait_default(prog: &Program, key: ItemKey, name: &str) -> Option<usize> {
    let syn::Item::Trait(t) = prog.item(key) else { return None };
    t.items.iter().position(|i| matches!(i, syn::TraitItem::Fn(f) if f.sig.ident == name && f.default.is_some()))
}
