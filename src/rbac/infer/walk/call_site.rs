//! Binding a callee's generic parameters at its call site: from the turbofish (`watch_all::<Pod>(..)`,
//! `rt.list_in::<Order>(..)`), the argument types (`apply(&Api<Secret>, &Secret)`), the receiver and the impl it
//! belongs to (`Scoped::new(Api<Service>)` is a `Scoped<Service>`), and what the caller expects back
//! (`let cms: Vec<ConfigMap> = rt.list_in(ns).await?`), so the callee's instance is read with the caller's kind.

use std::collections::{BTreeMap, BTreeSet};

use super::{Engine, Instance};
use crate::rbac::infer::types::{FnRef, Scope, Ty, refine, subst, unify};
use crate::source::ModKey;

impl<'p> Engine<'p> {
    /// Calls `f` with `args`: binds its generics from the argument types, queues its body, and gives the declared
    /// return type (with the bound generics).
    pub(super) fn call(
        &mut self,
        f: FnRef,
        self_ty: Option<Ty>,
        impl_generics: BTreeMap<String, Ty>,
        args: &[Ty],
        turbofish: &[Ty],
    ) -> Ty {
        self.call_expecting(f, self_ty, impl_generics, args, turbofish, None)
    }

    /// [`Engine::call`] where the caller expects a value of type `expected`: what the turbofish and the arguments
    /// leave unbound is bound by matching the declared return type with it.
    pub(super) fn call_expecting(
        &mut self,
        f: FnRef,
        self_ty: Option<Ty>,
        impl_generics: BTreeMap<String, Ty>,
        args: &[Ty],
        turbofish: &[Ty],
        expected: Option<&Ty>,
    ) -> Ty {
        let Some((at, sig, _, gens)) = self.fn_parts(f) else { return Ty::Unknown };
        let mut names = BTreeSet::new();
        let mut scope = Scope { at, ..Scope::default() };
        for g in &gens {
            for p in g.type_params() {
                names.insert(p.ident.to_string());
                scope.generics.insert(p.ident.to_string(), Ty::Param(p.ident.to_string()));
            }
        }
        if let Some(last) = gens.last() {
            for (p, t) in last.type_params().zip(turbofish) {
                scope.generics.insert(p.ident.to_string(), t.clone());
            }
        }
        for (k, v) in &impl_generics {
            if !v.is_unknown() {
                scope.generics.insert(k.clone(), v.clone());
            }
        }
        scope.self_ty = self_ty.clone();
        let has_receiver = matches!(sig.inputs.first(), Some(syn::FnArg::Receiver(_)));
        let mut declared = Vec::new();
        for input in &sig.inputs {
            match input {
                syn::FnArg::Receiver(_) => declared.push(self_ty.clone().unwrap_or(Ty::Unknown)),
                syn::FnArg::Typed(pt) => {
                    let s = scope.clone();
                    declared.push(self.item_type(&pt.ty, &s));
                }
            }
        }
        // Method-call syntax passes the receiver separately: line the arguments up with the declared inputs.
        let actual: Vec<Ty> = if has_receiver && args.len() + 1 == declared.len() {
            std::iter::once(self_ty.clone().unwrap_or(Ty::Unknown)).chain(args.iter().cloned()).collect()
        } else {
            args.to_vec()
        };
        let mut bound = BTreeMap::new();
        for (d, a) in declared.iter().zip(&actual) {
            unify(d, a, &names, &mut bound);
        }
        if let (Some(e), syn::ReturnType::Type(_, t)) = (expected, &sig.output) {
            let s = scope.clone();
            let ret = self.item_type(t, &s);
            unify(&ret, e, &names, &mut bound);
        }
        let mut generics: BTreeMap<String, Ty> = scope
            .generics
            .iter()
            .filter(|(_, v)| !matches!(v, Ty::Param(_)))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (k, v) in bound {
            generics.entry(k).or_insert(v);
        }
        let self_ty = self.bound_self(f, self_ty, &generics);
        let params: Vec<Ty> = declared
            .iter()
            .zip(actual.iter().chain(std::iter::repeat(&Ty::Unknown)))
            .map(|(d, a)| refine(&subst(d, &generics), a))
            .collect();
        self.push(Instance { f, self_ty: self_ty.clone(), generics: generics.clone(), params });
        match &sig.output {
            syn::ReturnType::Type(_, t) => {
                let mut s = scope.clone();
                s.self_ty = self_ty;
                for (k, v) in &generics {
                    s.generics.insert(k.clone(), v.clone());
                }
                self.item_type(t, &s)
            }
            syn::ReturnType::Default => Ty::Tuple(Vec::new()),
        }
    }

    /// `Self` of a trait's default method: the caller's type, or `dyn Trait<..>` with the trait's parameters the
    /// call bound (`add_finalizer(&self, obj: &T)` called with a `&Service` runs on a `dyn Api<Service>`).
    pub(super) fn trait_self(
        &mut self,
        key: crate::source::ItemKey,
        given: Option<Ty>,
        generics: &BTreeMap<String, Ty>,
    ) -> Ty {
        let syn::Item::Trait(t) = self.prog.item(key) else { return given.unwrap_or(Ty::Unknown) };
        let args = |current: &[Ty]| -> Vec<Ty> {
            t.generics
                .type_params()
                .enumerate()
                .map(|(i, p)| {
                    let cur = current.get(i).cloned().unwrap_or(Ty::Unknown);
                    match generics.get(&p.ident.to_string()) {
                        Some(b) if cur.is_vague() && !b.is_vague() => b.clone(),
                        _ => cur,
                    }
                })
                .collect()
        };
        match given {
            Some(Ty::Dyn(traits, a)) if traits.first() == Some(&key) => Ty::Dyn(traits, args(&a)),
            Some(other) => other,
            None => Ty::Dyn(vec![key], args(&[])),
        }
    }

    /// `Self` of a method of a generic impl with the impl's parameters the call bound, when the caller's type left
    /// them open: `Scoped::new(api)` with `api: Api<Service>` and `fn new(api: Api<K>) -> Self` is a
    /// `Scoped<Service>`, whose methods then read `self.api` as an `Api<Service>`.
    fn bound_self(&mut self, f: FnRef, given: Option<Ty>, generics: &BTreeMap<String, Ty>) -> Option<Ty> {
        if let FnRef::TraitDefault(key, _) = f {
            return Some(self.trait_self(key, given, generics));
        }
        let FnRef::Method(key, _) = f else { return given };
        let syn::Item::Impl(imp) = self.prog.item(key) else { return given };
        let open = given.as_ref().is_none_or(|t| t.is_vague() || matches!(t, Ty::Adt(_, a) if a.is_empty()));
        let params: Vec<String> = imp.generics.type_params().map(|p| p.ident.to_string()).collect();
        if !open || !params.iter().any(|p| generics.get(p).is_some_and(|t| !t.is_unknown())) {
            return given;
        }
        let mut scope = Scope { at: ModKey { krate: key.krate, module: key.module }, ..Scope::default() };
        for p in params {
            let t = generics.get(&p).cloned().unwrap_or_else(|| Ty::Param(p.clone()));
            scope.generics.insert(p, t);
        }
        Some(self.item_type(&imp.self_ty, &scope))
    }
}
