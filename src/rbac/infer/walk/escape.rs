//! Values handed to code outside the sources: a framework calls the methods of the traits it asks for
//! (`App::new().wrap(AuthMiddleware::new(..))` makes actix call `Transform::new_transform`, then the returned
//! service's `Service::call`; `tokio::spawn(MyFuture { .. })` polls it). When a value of a type of the sources goes
//! into an outside fn or method, the methods of its impls of outside traits are read, `Self` being that type.

use super::{Engine, Instance};
use crate::rbac::infer::types::{FnRef, Ty};

impl Engine<'_> {
    /// `args` are passed to code outside the sources: every type of the sources in them (also inside `Ok`,
    /// `Box`, `Vec`, tuples, ..) gets the methods of its impls of outside traits read.
    pub(super) fn escape(&mut self, args: &[Ty]) {
        for a in args {
            self.escape_one(a, 0);
        }
    }

    fn escape_one(&mut self, ty: &Ty, depth: usize) {
        if depth > 4 {
            return;
        }
        match ty {
            Ty::Adt(key, args) => {
                if let Some(c) = &mut self.current {
                    c.impls = true;
                }
                let impls = self.ext_trait_impls.get(key).cloned().unwrap_or_default();
                for imp in impls {
                    let syn::Item::Impl(item) = self.prog.item(imp) else { continue };
                    let generics = self.impl_bindings(imp, ty);
                    for (i, it) in item.items.iter().enumerate() {
                        if matches!(it, syn::ImplItem::Fn(_)) {
                            let self_ty = Some(ty.clone());
                            let f = FnRef::Method(imp, i);
                            self.push(Instance { f, self_ty, generics: generics.clone(), params: Vec::new() });
                        }
                    }
                }
                for a in args {
                    self.escape_one(a, depth + 1);
                }
            }
            Ty::Ext(_, args) | Ty::Tuple(args) => {
                for a in args {
                    self.escape_one(a, depth + 1);
                }
            }
            _ => {}
        }
    }
}
