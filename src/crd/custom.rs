//! Custom schemas: the functions named by `#[schemars(schema_with = "f")]` (on fields, variants and
//! containers), hand-written `impl JsonSchema` blocks of crate types and the root of `#[kube(schema =
//! "manual")]`, found in the crate index and evaluated statically by the one interpreter ([`crate::source::eval`])
//! when their code is data. What only running the code can tell is a [`CrdErrorKind::NeedsCompile`] naming the
//! construct, for the compiled fallback. The index is the interpreter's [`Code`] (implemented here): its errors are the
//! generator's, its fn bodies parsed whole when asked.
//!
//! The interpreter reads JSON values (a `Schema`, `Value` or `Map` alike), `Result`s and the generator parameter;
//! `let` bindings, aliases into them, edits (`insert`, `remove`, `extend`, `push`, `x["k"] = v`,
//! `entry(k).or_insert(v)`, `if let Some(o) = x.as_object_mut()`), `return`, calls of crate fns, consts and statics
//! (`LazyLock::new(|| ..)` too) and associated consts of inherent impls. `generator.subschema_for::<T>()` and
//! `T::json_schema(g)` go back to the schema generator through the [`Subschemas`] trait, so this module does not
//! import `schema`. What it returns is spliced in before kube's transforms, as schemars does; a `schema_with` field
//! is never an `Option` to schemars: required unless it has a default, and not made nullable. Bodies of more than
//! one statement are parsed again from the original text of just that fn (`CrateIndex::full_block`), once per run.
//!
//! **Invariant:** anything else (a loop, an `if` on a condition, a call into another crate or of an unknown method, a
//! macro other than `json!`/`json_schema!`/`vec!`, `transform`, a `#[serde(with)]` module schemars would take for a
//! type) stops that construct with `NeedsCompile` at its line, naming the attribute or impl and why; never a guess.
//! Code that would make `crd()` panic (`Schema::try_from` of a non-object, `unwrap` of a missing key) is an error.

use proc_macro2::Span;
use serde_json::Value;
use syn::spanned::Spanned;

use super::error::{CrdError, CrdErrorKind};
use super::index::code::CodeName;
use super::index::{CrateIndex, ImplBlock, ItemId, ItemKind, ModId, Owner};
pub(crate) use crate::source::eval::Subschemas;
use crate::source::eval::names::{self, Scope};
use crate::source::eval::{Code, Evaluator};
use crate::source::lex::path_segs;

/// The CRD index as the interpreter reads it: its errors are the generator's (NeedsCompile for what only compiling
/// tells, Unsupported for what would panic), fn bodies left unparsed are parsed on demand, `Self` is an item id.
impl Code for CrateIndex {
    type Error = CrdError;
    type SelfItem = ItemId;

    fn schemars_08(&self) -> bool {
        self.dialect == super::dialect::Dialect::Schemars08
    }

    fn self_name(&self, item: ItemId) -> CodeName {
        CodeName::Item(item)
    }

    fn type_item(&self, at: ModId, segs: &[String]) -> Option<ItemId> {
        CrateIndex::type_item(self, at, segs)
    }

    fn resolve_value(
        &self,
        at: ModId,
        segs: &[String],
        local: &[crate::source::syntax::UseEntry],
    ) -> crate::source::resolve::Res<ModId, CodeName> {
        self.resolve_code(at, segs, local)
    }

    fn function(&self, item: &CodeName) -> Option<(ModId, &syn::Signature, &syn::Block)> {
        let CodeName::Item(id) = *item else { return None };
        match &self.items[id].kind {
            ItemKind::Fn(f) => Some((self.items[id].module, &f.sig, &f.block)),
            _ => None,
        }
    }

    fn full_block<'s>(&'s self, at: ModId, block: &'s syn::Block) -> Result<&'s syn::Block, CrdError> {
        CrateIndex::full_block(self, at, block)
    }

    fn needs_compile(&self, at: ModId, span: Span, construct: &str, why: String) -> CrdError {
        CrdError::needs_compile(self.module_file(at), span, construct, why)
    }

    fn panics(&self, at: ModId, span: Span, what: String, fix: &str) -> CrdError {
        CrdError::unsupported(self.module_file(at), span, what, fix)
    }

    fn unresolved_type(error: &CrdError) -> Option<(String, String)> {
        super::types::unresolved_type(error)
    }
}

/// The schema the fn of `#[schemars(schema_with = "path")]` returns; `path` is written in `module`.
/// `construct` names the attribute in errors.
pub fn schema_with(
    ix: &CrateIndex,
    schemas: &mut dyn Subschemas<CrateIndex>,
    path: &str,
    at: Span,
    module: ModId,
    construct: String,
) -> Result<Value, CrdError> {
    let file = ix.module_file(module);
    let parsed: syn::Path = syn::parse_str(path).map_err(|e| {
        CrdError::at(
            file,
            at,
            CrdErrorKind::Unsupported { construct: construct.clone(), fix: format!("`{path}` is not a path: {e}") },
        )
    })?;
    // An associated fn `Type::f` too (`Self::f` would name schemars' wrapper type and not compile).
    let scope = Scope { module, self_item: None, self_ty: None, uses: &[] };
    if let Some(found) = names::function(ix, scope, &path_segs(&parsed)) {
        let (sig, block) = found.def;
        return Evaluator::new(ix, schemas, construct).schema_fn(sig, block, found.module, found.self_ty);
    }
    Err(CrdError::needs_compile(
        file,
        at,
        construct,
        format!("`{path}` is not a fn kubesmith finds in this crate's sources (another crate's, or made by a macro)"),
    ))
}

/// The hand-written `impl JsonSchema for T` of the crate item `id`, if there is one.
pub fn json_schema_impl(ix: &CrateIndex, id: ItemId) -> Option<&ImplBlock> {
    ix.trait_impls(id, "JsonSchema").next()
}

/// The hand-written `impl JsonSchema for <root>` of the root type kube-derive generates in `module`: that type is
/// no item of the sources, so an impl is its when the impl's self type names `root` of `module` where the impl is
/// written ([`Owner::Generated`]).
pub fn root_impl<'a>(ix: &'a CrateIndex, root: &str, module: ModId) -> Option<&'a ImplBlock> {
    let &g = ix.generated().names.get(&(module, root.to_string()))?;
    ix.assoc_impls(Owner::Generated(g)).into_iter().find(|i| i.trait_name.as_deref() == Some("JsonSchema"))
}

/// `T::json_schema(generator)` of a hand-written impl. `construct` names it in errors.
///
/// A generic impl is evaluated only when `bound`: the caller has bound its type parameters (through `schemas`) to the
/// arguments of the instance being described.
pub fn impl_schema(
    ix: &CrateIndex,
    schemas: &mut dyn Subschemas<CrateIndex>,
    imp: &ImplBlock,
    construct: String,
    bound: bool,
) -> Result<Value, CrdError> {
    let file = ix.module_file(imp.module);
    if !bound && !imp.item.generics.params.is_empty() {
        return Err(CrdError::needs_compile(
            file,
            imp.item.impl_token.span,
            construct,
            "a generic impl: the schema depends on the type arguments",
        ));
    }
    let Some(m) = method(imp, "json_schema") else {
        return Err(CrdError::needs_compile(
            file,
            imp.item.impl_token.span,
            construct,
            "it has no `json_schema` fn kubesmith can see (a macro may provide it)",
        ));
    };
    Evaluator::new(ix, schemas, construct).schema_fn(&m.sig, &m.block, imp.module, Some(&imp.item.self_ty))
}

/// `T::schema_name()` of a hand-written impl (the root schema's `title` when it has none).
pub fn impl_schema_name(
    ix: &CrateIndex,
    schemas: &mut dyn Subschemas<CrateIndex>,
    imp: &ImplBlock,
    construct: String,
) -> Result<String, CrdError> {
    let Some(m) = method(imp, "schema_name") else {
        return Err(CrdError::needs_compile(
            ix.module_file(imp.module),
            imp.item.self_ty.span(),
            construct,
            "it has no `schema_name` fn kubesmith can see (a macro may provide it)",
        ));
    };
    Evaluator::new(ix, schemas, construct).string_fn(&m.sig, &m.block, imp.module, None)
}

fn method<'a>(imp: &'a ImplBlock, name: &str) -> Option<&'a syn::ImplItemFn> {
    imp.item.items.iter().find_map(|it| match it {
        syn::ImplItem::Fn(m) if m.sig.ident == name => Some(m),
        _ => None,
    })
}

#[cfg(test)]
mod tests;
