//! The skeleton of a parsed file: its items without fn bodies, in a compact form that can be stored and turned
//! back into syn items without lexing. What is kept is what naming and typing across files reads: item kinds and
//! names, visibilities, generics (type parameters, trait bounds, `where` predicates), fn signatures (parameter types,
//! receiver, return type), struct fields, type aliases, const/static types, impl headers and their fns, trait fns
//! (with whether they have a default body), `use` trees and `mod` declarations (`#[path]`; `#[cfg(test)]` modules
//! are left out, as the module loader skips them). Spans, doc comments, patterns of parameters, bodies and
//! expressions are not kept; attributes of a struct are kept (as text) only when the caller asks.
//!
//! [`Skeleton::items`] rebuilds syn items with empty fn bodies: equal to the parsed ones in everything listed above.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::module_files::{ModDecl, UseList};
use super::modules::{Entry, ItemKind, Slot};
use super::syntax::{UseEntry, is_cfg_test, path_attr};

mod to_syn;

/// The skeleton of one file (or inline module), for tests: the stored form is [`encode`]'s.
#[cfg(test)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skeleton {
    /// Items in source order.
    pub items: Vec<Item>,
}

/// An item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Item {
    /// `use`.
    Use(Vis, UseTree),
    /// `mod name;` or `mod name { .. }`, with its `#[path]`.
    Mod(String, Option<String>, Option<Vec<Item>>),
    /// `fn`.
    Fn(Vis, Sig),
    /// `struct`: kept attributes (text), name, generics, fields.
    Struct(Vec<String>, String, Generics, Fields),
    /// `enum`.
    Enum(String, Generics),
    /// `union`.
    Union(String, Generics),
    /// `type Name<..> = ty;`.
    Alias(String, Generics, Type),
    /// `trait`.
    Trait(String, Generics, Vec<Member>),
    /// `const`.
    Const(String, Type),
    /// `static`.
    Static(String, Type),
    /// `impl<..> [Trait for] Type { .. }`.
    Impl(Generics, Option<Path>, Type, Vec<Member>),
    /// Anything else (macros, extern blocks, ...).
    Other,
}

/// A fn of an impl or trait block, or another member (kept so member indexes stay those of the source).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Member {
    /// A fn: visibility, signature, whether it has a body (trait fns may not).
    Fn(Vis, Sig, bool),
    /// Anything else.
    Other,
}

/// A visibility.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Vis {
    /// Nothing written.
    Inherited,
    /// `pub`.
    Public,
    /// `pub(crate)`.
    Crate,
    /// `pub(super)`, `pub(in ..)`, `pub(self)`.
    Restricted,
}

/// A `use` tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum UseTree {
    /// `a::rest`.
    Path(String, Box<UseTree>),
    /// `a`.
    Name(String),
    /// `a as b`.
    Rename(String, String),
    /// `*`.
    Glob,
    /// `{a, b}`.
    Group(Vec<UseTree>),
}

/// A fn signature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sig {
    /// Name.
    pub ident: String,
    /// Generics.
    pub generics: Generics,
    /// Parameters: `None` for the receiver, else the parameter's type.
    pub inputs: Vec<Option<Type>>,
    /// Return type.
    pub output: Option<Type>,
}

/// Type parameters with their bounds, and `where` predicates on types.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Generics {
    /// `(name, trait bounds)`.
    pub params: Vec<(String, Vec<Path>)>,
    /// `where` clause: `None` when there is none, else its type predicates.
    pub where_clause: Option<Vec<(Type, Vec<Path>)>>,
}

/// Struct fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Fields {
    /// `{ a: T }`.
    Named(Vec<(String, Type)>),
    /// `(T, U)`.
    Unnamed(Vec<Type>),
    /// No fields.
    Unit,
}

/// A type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Type {
    /// `&T`.
    Ref(Box<Type>),
    /// `(T)`.
    Paren(Box<Type>),
    /// An invisible group.
    Group(Box<Type>),
    /// `*const T`.
    Ptr(Box<Type>),
    /// `[T]`.
    Slice(Box<Type>),
    /// `[T; N]`.
    Array(Box<Type>),
    /// `(A, B)`.
    Tuple(Vec<Type>),
    /// `impl A + B` (trait bounds only).
    ImplTrait(Vec<Path>),
    /// `dyn A + B` (trait bounds only).
    TraitObject(Vec<Path>),
    /// A path without a qualified self.
    Path(Path),
    /// Anything else (`<T as Trait>::X`, `!`, `_`, fn pointers, macros).
    Other,
}

/// A path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Path {
    /// Written with a leading `::`.
    pub leading_colon: bool,
    /// Segments.
    pub segments: Vec<Segment>,
}

/// A path segment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    /// Identifier as written (`r#type` for a raw one).
    pub ident: String,
    /// Arguments.
    pub args: Args,
}

/// A segment's arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Args {
    /// None.
    None,
    /// `<..>`: types, `Name = T` bindings, and others (lifetimes, consts) as `None`.
    Angle(Vec<Arg>),
    /// `(A) -> B` (the `Fn` traits' sugar).
    Paren,
}

/// One argument between `<>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Arg {
    /// A type.
    Type(Type),
    /// `Name = T`.
    Assoc(String, Type),
    /// A lifetime, const or constraint.
    Other,
}

#[cfg(test)]
impl Skeleton {
    /// The skeleton of a parsed file; `keep_attrs` says whether a struct's attributes (other than doc comments)
    /// are kept.
    pub fn of(file: &syn::File, keep_attrs: &dyn Fn(&syn::ItemStruct) -> bool) -> Skeleton {
        Skeleton { items: items(&file.items, keep_attrs) }
    }

    /// The syn items again, fn bodies empty.
    pub fn items(&self) -> Vec<syn::Item> {
        self.items.iter().map(Item::to_syn).collect()
    }
}

// ----- stored form -----

/// The outline of a stored skeleton: `use`s and `mod`s as they are, other items by kind, name and where their
/// encoded [`Item`] is in the body.
#[derive(Serialize, Deserialize)]
enum Node {
    Use(u32, u32),
    Mod(String, Vis, Option<String>, Option<Vec<Node>>, Vec<String>),
    Item(ItemKind, Option<String>, u32, u32),
}

/// A parsed file's skeleton, encoded so that its outline reads at once and each item only when it is looked at:
/// the outline's length, the outline, then the items. Equal skeletons encode to equal bytes.
pub fn encode(items: &[syn::Item], keep_attrs: &dyn Fn(&syn::ItemStruct) -> bool) -> Vec<u8> {
    fn outline(list: &[syn::Item], keep_attrs: &dyn Fn(&syn::ItemStruct) -> bool, body: &mut Vec<u8>) -> Vec<Node> {
        // What the macros kubesmith knows generate, as `modules::entries` reads a parsed file.
        let expanded;
        let list = if super::expand::may_expand(list) {
            expanded = super::expand::expand_all(list.to_vec());
            &expanded[..]
        } else {
            list
        };
        let mut out = Vec::with_capacity(list.len());
        for i in list {
            match i {
                syn::Item::Use(u) => {
                    let at = body.len();
                    let _ = postcard::to_io(&(vis(&u.vis), use_tree(&u.tree)), &mut *body);
                    out.push(Node::Use(at as u32, (body.len() - at) as u32));
                }
                syn::Item::Mod(m) if is_cfg_test(&m.attrs) => {}
                syn::Item::Mod(m) => out.push(Node::Mod(
                    m.ident.to_string(),
                    vis(&m.vis),
                    path_attr(&m.attrs),
                    m.content.as_ref().map(|(_, inner)| outline(inner, keep_attrs, body)),
                    // As `module_files::entries` reads them: an inline module's.
                    match &m.content {
                        Some(_) => super::versioned::version_names(&m.attrs),
                        None => Vec::new(),
                    },
                )),
                other => out.push(node(other, keep_attrs, body)),
            }
        }
        out
    }
    /// An item's node, its encoding written to `body`.
    fn node(item_: &syn::Item, keep_attrs: &dyn Fn(&syn::ItemStruct) -> bool, body: &mut Vec<u8>) -> Node {
        let at = body.len();
        let _ = postcard::to_io(&item(item_, keep_attrs), &mut *body);
        Node::Item(ItemKind::of(item_), super::syntax::item_name(item_), at as u32, (body.len() - at) as u32)
    }
    let mut body = Vec::new();
    let head = postcard::to_allocvec(&outline(items, keep_attrs, &mut body)).unwrap_or_default();
    let mut out = Vec::with_capacity(4 + head.len() + body.len());
    out.extend_from_slice(&(head.len() as u32).to_le_bytes());
    out.extend_from_slice(&head);
    out.extend_from_slice(&body);
    out
}

/// The module loader's entries of an [`encode`]d skeleton; items are built from `bytes` when first looked at.
pub fn entries(bytes: &Arc<[u8]>) -> Option<Vec<Entry>> {
    let head_len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    let head: Vec<Node> = postcard::from_bytes(bytes.get(4..4 + head_len)?).ok()?;
    let body = 4 + head_len;
    fn convert(nodes: Vec<Node>, bytes: &Arc<[u8]>, body: usize) -> Option<Vec<Entry>> {
        let mut out = Vec::with_capacity(nodes.len());
        for n in nodes {
            out.push(match n {
                Node::Use(at, len) => {
                    let (at, len) = (body + at as usize, len as usize);
                    bytes.get(at..at + len)?;
                    let bytes = Arc::clone(bytes);
                    Entry::Use(UseList::Lazy(Box::new(move || {
                        let mut list = Vec::new();
                        match postcard::from_bytes::<(Vis, UseTree)>(&bytes[at..at + len]) {
                            Ok((v, tree)) => {
                                flatten(&tree, &mut Vec::new(), &mut list);
                                list.iter_mut().for_each(|e| e.vis = v.read());
                                (list, v != Vis::Inherited)
                            }
                            Err(_) => (list, false),
                        }
                    })))
                }
                Node::Mod(name, vis, path, content, aliases) => Entry::Mod {
                    name: unraw(&name).to_string(),
                    path,
                    decl: ModDecl { vis: vis.read(), attrs: Vec::new(), aliases },
                    content: match content {
                        Some(inner) => Some(convert(inner, bytes, body)?),
                        None => None,
                    },
                    span: None,
                },
                Node::Item(kind, name, at, len) => {
                    let (at, len) = (body + at as usize, len as usize);
                    bytes.get(at..at + len)?;
                    let bytes = Arc::clone(bytes);
                    Entry::Item(Slot::lazy(
                        kind,
                        name,
                        Box::new(move || {
                            postcard::from_bytes::<Item>(&bytes[at..at + len]).map_or(Item::Other, |i| i).to_syn()
                        }),
                    ))
                }
            });
        }
        Some(out)
    }
    convert(head, bytes, body)
}

fn unraw(s: &str) -> &str {
    s.strip_prefix("r#").unwrap_or(s)
}

/// [`super::syntax::flatten_use`] of a stored tree.
fn flatten(tree: &UseTree, prefix: &mut Vec<String>, out: &mut Vec<UseEntry>) {
    let entry = |alias: String, path: Vec<String>, glob: bool| UseEntry { alias, path, glob, vis: Default::default() };
    match tree {
        UseTree::Path(name, rest) => {
            prefix.push(unraw(name).to_string());
            flatten(rest, prefix, out);
            prefix.pop();
        }
        UseTree::Name(name) => {
            let name = unraw(name);
            if name == "self" {
                if let Some(last) = prefix.last() {
                    out.push(entry(last.clone(), prefix.clone(), false));
                }
            } else {
                let mut path = prefix.clone();
                path.push(name.to_string());
                out.push(entry(name.to_string(), path, false));
            }
        }
        UseTree::Rename(name, alias) => {
            let mut path = prefix.clone();
            let name = unraw(name);
            if name != "self" {
                path.push(name.to_string());
            }
            out.push(entry(unraw(alias).to_string(), path, false));
        }
        UseTree::Glob => out.push(entry(String::new(), prefix.clone(), true)),
        UseTree::Group(list) => {
            for t in list {
                flatten(t, prefix, out);
            }
        }
    }
}

// ----- lowering -----

fn items(list: &[syn::Item], keep_attrs: &dyn Fn(&syn::ItemStruct) -> bool) -> Vec<Item> {
    list.iter()
        .filter(|i| !matches!(i, syn::Item::Mod(m) if is_cfg_test(&m.attrs)))
        .map(|i| item(i, keep_attrs))
        .collect()
}

fn item(i: &syn::Item, keep_attrs: &dyn Fn(&syn::ItemStruct) -> bool) -> Item {
    match i {
        syn::Item::Use(u) => Item::Use(vis(&u.vis), use_tree(&u.tree)),
        syn::Item::Mod(m) => Item::Mod(
            m.ident.to_string(),
            path_attr(&m.attrs),
            m.content.as_ref().map(|(_, inner)| items(inner, keep_attrs)),
        ),
        syn::Item::Fn(f) => Item::Fn(vis(&f.vis), sig(&f.sig)),
        syn::Item::Struct(s) => {
            let attrs = if keep_attrs(s) {
                s.attrs.iter().filter(|a| !a.path().is_ident("doc")).map(|a| quote::quote!(#a).to_string()).collect()
            } else {
                Vec::new()
            };
            let fields = match &s.fields {
                syn::Fields::Named(n) => Fields::Named(
                    n.named
                        .iter()
                        .map(|f| (f.ident.as_ref().map(ToString::to_string).unwrap_or_default(), ty(&f.ty)))
                        .collect(),
                ),
                syn::Fields::Unnamed(u) => Fields::Unnamed(u.unnamed.iter().map(|f| ty(&f.ty)).collect()),
                syn::Fields::Unit => Fields::Unit,
            };
            Item::Struct(attrs, s.ident.to_string(), generics(&s.generics), fields)
        }
        syn::Item::Enum(e) => Item::Enum(e.ident.to_string(), generics(&e.generics)),
        syn::Item::Union(u) => Item::Union(u.ident.to_string(), generics(&u.generics)),
        syn::Item::Type(t) => Item::Alias(t.ident.to_string(), generics(&t.generics), ty(&t.ty)),
        syn::Item::Trait(t) => Item::Trait(
            t.ident.to_string(),
            generics(&t.generics),
            t.items
                .iter()
                .map(|m| match m {
                    syn::TraitItem::Fn(f) => Member::Fn(Vis::Inherited, sig(&f.sig), f.default.is_some()),
                    _ => Member::Other,
                })
                .collect(),
        ),
        syn::Item::Const(c) => Item::Const(c.ident.to_string(), ty(&c.ty)),
        syn::Item::Static(s) => Item::Static(s.ident.to_string(), ty(&s.ty)),
        syn::Item::Impl(imp) => Item::Impl(
            generics(&imp.generics),
            imp.trait_.as_ref().map(|(_, p, _)| path(p)),
            ty(&imp.self_ty),
            imp.items
                .iter()
                .map(|m| match m {
                    syn::ImplItem::Fn(f) => Member::Fn(vis(&f.vis), sig(&f.sig), true),
                    _ => Member::Other,
                })
                .collect(),
        ),
        _ => Item::Other,
    }
}

impl Vis {
    /// The visibility a module tree keeps (`pub(super)` and `pub(in ..)` count as private, as
    /// [`super::syntax::Vis::of`] counts them).
    fn read(self) -> super::syntax::Vis {
        match self {
            Vis::Public => super::syntax::Vis::Public,
            Vis::Crate => super::syntax::Vis::Crate,
            Vis::Inherited | Vis::Restricted => super::syntax::Vis::Private,
        }
    }
}

fn vis(v: &syn::Visibility) -> Vis {
    match v {
        syn::Visibility::Public(_) => Vis::Public,
        syn::Visibility::Restricted(r) if r.path.is_ident("crate") && r.in_token.is_none() => Vis::Crate,
        syn::Visibility::Restricted(_) => Vis::Restricted,
        syn::Visibility::Inherited => Vis::Inherited,
    }
}

fn use_tree(t: &syn::UseTree) -> UseTree {
    match t {
        syn::UseTree::Path(p) => UseTree::Path(p.ident.to_string(), Box::new(use_tree(&p.tree))),
        syn::UseTree::Name(n) => UseTree::Name(n.ident.to_string()),
        syn::UseTree::Rename(r) => UseTree::Rename(r.ident.to_string(), r.rename.to_string()),
        syn::UseTree::Glob(_) => UseTree::Glob,
        syn::UseTree::Group(g) => UseTree::Group(g.items.iter().map(use_tree).collect()),
    }
}

fn sig(s: &syn::Signature) -> Sig {
    Sig {
        ident: s.ident.to_string(),
        generics: generics(&s.generics),
        inputs: s
            .inputs
            .iter()
            .map(|i| match i {
                syn::FnArg::Receiver(_) => None,
                syn::FnArg::Typed(pt) => Some(ty(&pt.ty)),
            })
            .collect(),
        output: match &s.output {
            syn::ReturnType::Default => None,
            syn::ReturnType::Type(_, t) => Some(ty(t)),
        },
    }
}

fn bounds<'a>(b: impl Iterator<Item = &'a syn::TypeParamBound>) -> Vec<Path> {
    b.filter_map(|b| match b {
        syn::TypeParamBound::Trait(t) => Some(path(&t.path)),
        _ => None,
    })
    .collect()
}

fn generics(g: &syn::Generics) -> Generics {
    Generics {
        params: g.type_params().map(|p| (p.ident.to_string(), bounds(p.bounds.iter()))).collect(),
        where_clause: g.where_clause.as_ref().map(|w| {
            w.predicates
                .iter()
                .filter_map(|p| match p {
                    syn::WherePredicate::Type(t) => Some((ty(&t.bounded_ty), bounds(t.bounds.iter()))),
                    _ => None,
                })
                .collect()
        }),
    }
}

/// The skeleton form of a syn type.
pub fn ty(t: &syn::Type) -> Type {
    let b = |t: &syn::Type| Box::new(ty(t));
    match t {
        syn::Type::Reference(r) => Type::Ref(b(&r.elem)),
        syn::Type::Paren(p) => Type::Paren(b(&p.elem)),
        syn::Type::Group(g) => Type::Group(b(&g.elem)),
        syn::Type::Ptr(p) => Type::Ptr(b(&p.elem)),
        syn::Type::Slice(s) => Type::Slice(b(&s.elem)),
        syn::Type::Array(a) => Type::Array(b(&a.elem)),
        syn::Type::Tuple(t) => Type::Tuple(t.elems.iter().map(ty).collect()),
        syn::Type::ImplTrait(i) => Type::ImplTrait(bounds(i.bounds.iter())),
        syn::Type::TraitObject(o) => Type::TraitObject(bounds(o.bounds.iter())),
        syn::Type::Path(p) if p.qself.is_none() => Type::Path(path(&p.path)),
        _ => Type::Other,
    }
}

fn path(p: &syn::Path) -> Path {
    Path {
        leading_colon: p.leading_colon.is_some(),
        segments: p
            .segments
            .iter()
            .map(|s| Segment {
                ident: s.ident.to_string(),
                args: match &s.arguments {
                    syn::PathArguments::None => Args::None,
                    syn::PathArguments::Parenthesized(_) => Args::Paren,
                    syn::PathArguments::AngleBracketed(a) => Args::Angle(
                        a.args
                            .iter()
                            .map(|g| match g {
                                syn::GenericArgument::Type(t) => Arg::Type(ty(t)),
                                syn::GenericArgument::AssocType(at) => Arg::Assoc(at.ident.to_string(), ty(&at.ty)),
                                _ => Arg::Other,
                            })
                            .collect(),
                    ),
                },
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests;
