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

use super::modules::{Entry, ItemKind, Slot, UseList};
use super::syntax::{UseEntry, is_cfg_test, path_attr};

/// The skeleton of one file (or inline module).
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
    Mod(String, Option<String>, Option<Vec<Node>>),
    Item(ItemKind, Option<String>, u32, u32),
}

/// A parsed file's skeleton, encoded so that its outline reads at once and each item only when it is looked at:
/// the outline's length, the outline, then the items. Equal skeletons encode to equal bytes.
pub fn encode(items: &[syn::Item], keep_attrs: &dyn Fn(&syn::ItemStruct) -> bool) -> Vec<u8> {
    fn outline(list: &[syn::Item], keep_attrs: &dyn Fn(&syn::ItemStruct) -> bool, body: &mut Vec<u8>) -> Vec<Node> {
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
                    path_attr(&m.attrs),
                    m.content.as_ref().map(|(_, inner)| outline(inner, keep_attrs, body)),
                )),
                other => {
                    let at = body.len();
                    let _ = postcard::to_io(&item(other, keep_attrs), &mut *body);
                    out.push(Node::Item(
                        ItemKind::of(other),
                        super::syntax::item_name(other),
                        at as u32,
                        (body.len() - at) as u32,
                    ));
                }
            }
        }
        out
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
                                (list, v != Vis::Inherited)
                            }
                            Err(_) => (list, false),
                        }
                    })))
                }
                Node::Mod(name, path, content) => Entry::Mod {
                    name: unraw(&name).to_string(),
                    path,
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

// ----- back to syn -----

fn span() -> proc_macro2::Span {
    proc_macro2::Span::call_site()
}

fn ident(s: &str) -> syn::Ident {
    match s.strip_prefix("r#") {
        Some(raw) => syn::Ident::new_raw(raw, span()),
        None => syn::Ident::new(s, span()),
    }
}

fn empty_block() -> syn::Block {
    syn::Block { brace_token: Default::default(), stmts: Vec::new() }
}

impl Item {
    fn to_syn(&self) -> syn::Item {
        match self {
            Item::Use(v, tree) => syn::Item::Use(syn::ItemUse {
                attrs: Vec::new(),
                vis: v.to_syn(),
                use_token: Default::default(),
                leading_colon: None,
                tree: tree.to_syn(),
                semi_token: Default::default(),
            }),
            Item::Mod(name, path, content) => {
                let attrs = path
                    .iter()
                    .map(|p| {
                        let lit = syn::LitStr::new(p, span());
                        syn::parse_quote!(#[path = #lit])
                    })
                    .collect();
                syn::Item::Mod(syn::ItemMod {
                    attrs,
                    vis: syn::Visibility::Inherited,
                    unsafety: None,
                    mod_token: Default::default(),
                    ident: ident(name),
                    content: content
                        .as_ref()
                        .map(|items| (Default::default(), items.iter().map(Item::to_syn).collect())),
                    semi: content.is_none().then(Default::default),
                })
            }
            Item::Fn(v, s) => syn::Item::Fn(syn::ItemFn {
                attrs: Vec::new(),
                vis: v.to_syn(),
                sig: s.to_syn(),
                block: Box::new(empty_block()),
            }),
            Item::Struct(attrs, name, g, fields) => {
                let attrs = attrs
                    .iter()
                    .flat_map(|a| {
                        use syn::parse::Parser;
                        syn::Attribute::parse_outer.parse_str(a).unwrap_or_default()
                    })
                    .collect();
                let field = |ident: Option<syn::Ident>, t: &Type| syn::Field {
                    attrs: Vec::new(),
                    vis: syn::Visibility::Inherited,
                    mutability: syn::FieldMutability::None,
                    colon_token: ident.is_some().then(Default::default),
                    ident,
                    ty: t.to_syn(),
                };
                let fields = match fields {
                    Fields::Named(list) => syn::Fields::Named(syn::FieldsNamed {
                        brace_token: Default::default(),
                        named: list.iter().map(|(n, t)| field(Some(ident(n)), t)).collect(),
                    }),
                    Fields::Unnamed(list) => syn::Fields::Unnamed(syn::FieldsUnnamed {
                        paren_token: Default::default(),
                        unnamed: list.iter().map(|t| field(None, t)).collect(),
                    }),
                    Fields::Unit => syn::Fields::Unit,
                };
                syn::Item::Struct(syn::ItemStruct {
                    attrs,
                    vis: syn::Visibility::Inherited,
                    struct_token: Default::default(),
                    ident: ident(name),
                    generics: g.to_syn(),
                    semi_token: (!matches!(fields, syn::Fields::Named(_))).then(Default::default),
                    fields,
                })
            }
            Item::Enum(name, g) => syn::Item::Enum(syn::ItemEnum {
                attrs: Vec::new(),
                vis: syn::Visibility::Inherited,
                enum_token: Default::default(),
                ident: ident(name),
                generics: g.to_syn(),
                brace_token: Default::default(),
                variants: Default::default(),
            }),
            Item::Union(name, g) => syn::Item::Union(syn::ItemUnion {
                attrs: Vec::new(),
                vis: syn::Visibility::Inherited,
                union_token: Default::default(),
                ident: ident(name),
                generics: g.to_syn(),
                fields: syn::FieldsNamed { brace_token: Default::default(), named: Default::default() },
            }),
            Item::Alias(name, g, t) => syn::Item::Type(syn::ItemType {
                attrs: Vec::new(),
                vis: syn::Visibility::Inherited,
                type_token: Default::default(),
                ident: ident(name),
                generics: g.to_syn(),
                eq_token: Default::default(),
                ty: Box::new(t.to_syn()),
                semi_token: Default::default(),
            }),
            Item::Trait(name, g, members) => syn::Item::Trait(syn::ItemTrait {
                attrs: Vec::new(),
                vis: syn::Visibility::Inherited,
                unsafety: None,
                auto_token: None,
                restriction: None,
                trait_token: Default::default(),
                ident: ident(name),
                generics: g.to_syn(),
                colon_token: None,
                supertraits: Default::default(),
                brace_token: Default::default(),
                items: members
                    .iter()
                    .map(|m| match m {
                        Member::Fn(_, s, has_body) => syn::TraitItem::Fn(syn::TraitItemFn {
                            attrs: Vec::new(),
                            sig: s.to_syn(),
                            default: has_body.then(empty_block),
                            semi_token: (!has_body).then(Default::default),
                        }),
                        Member::Other => syn::TraitItem::Verbatim(proc_macro2::TokenStream::new()),
                    })
                    .collect(),
            }),
            Item::Const(name, t) => syn::Item::Const(syn::ItemConst {
                attrs: Vec::new(),
                vis: syn::Visibility::Inherited,
                const_token: Default::default(),
                ident: ident(name),
                generics: Default::default(),
                colon_token: Default::default(),
                ty: Box::new(t.to_syn()),
                eq_token: Default::default(),
                expr: Box::new(syn::Expr::Verbatim(proc_macro2::TokenStream::new())),
                semi_token: Default::default(),
            }),
            Item::Static(name, t) => syn::Item::Static(syn::ItemStatic {
                attrs: Vec::new(),
                vis: syn::Visibility::Inherited,
                static_token: Default::default(),
                mutability: syn::StaticMutability::None,
                ident: ident(name),
                colon_token: Default::default(),
                ty: Box::new(t.to_syn()),
                eq_token: Default::default(),
                expr: Box::new(syn::Expr::Verbatim(proc_macro2::TokenStream::new())),
                semi_token: Default::default(),
            }),
            Item::Impl(g, trait_, self_ty, members) => syn::Item::Impl(syn::ItemImpl {
                attrs: Vec::new(),
                defaultness: None,
                unsafety: None,
                impl_token: Default::default(),
                generics: g.to_syn(),
                trait_: trait_.as_ref().map(|p| (None, p.to_syn(), Default::default())),
                self_ty: Box::new(self_ty.to_syn()),
                brace_token: Default::default(),
                items: members
                    .iter()
                    .map(|m| match m {
                        Member::Fn(v, s, _) => syn::ImplItem::Fn(syn::ImplItemFn {
                            attrs: Vec::new(),
                            vis: v.to_syn(),
                            defaultness: None,
                            sig: s.to_syn(),
                            block: empty_block(),
                        }),
                        Member::Other => syn::ImplItem::Verbatim(proc_macro2::TokenStream::new()),
                    })
                    .collect(),
            }),
            Item::Other => syn::Item::Verbatim(proc_macro2::TokenStream::new()),
        }
    }
}

impl Vis {
    fn to_syn(self) -> syn::Visibility {
        let restricted = |name: &str| {
            syn::Visibility::Restricted(syn::VisRestricted {
                pub_token: Default::default(),
                paren_token: Default::default(),
                in_token: None,
                path: Box::new(syn::Path::from(ident(name))),
            })
        };
        match self {
            Vis::Inherited => syn::Visibility::Inherited,
            Vis::Public => syn::Visibility::Public(Default::default()),
            Vis::Crate => restricted("crate"),
            Vis::Restricted => restricted("super"),
        }
    }
}

impl UseTree {
    fn to_syn(&self) -> syn::UseTree {
        match self {
            UseTree::Path(name, rest) => syn::UseTree::Path(syn::UsePath {
                ident: ident(name),
                colon2_token: Default::default(),
                tree: Box::new(rest.to_syn()),
            }),
            UseTree::Name(name) => syn::UseTree::Name(syn::UseName { ident: ident(name) }),
            UseTree::Rename(name, alias) => syn::UseTree::Rename(syn::UseRename {
                ident: ident(name),
                as_token: Default::default(),
                rename: ident(alias),
            }),
            UseTree::Glob => syn::UseTree::Glob(syn::UseGlob { star_token: Default::default() }),
            UseTree::Group(list) => syn::UseTree::Group(syn::UseGroup {
                brace_token: Default::default(),
                items: list.iter().map(UseTree::to_syn).collect(),
            }),
        }
    }
}

impl Sig {
    fn to_syn(&self) -> syn::Signature {
        let inputs = self
            .inputs
            .iter()
            .map(|i| match i {
                None => syn::FnArg::Receiver(syn::Receiver {
                    attrs: Vec::new(),
                    reference: None,
                    mutability: None,
                    self_token: Default::default(),
                    colon_token: None,
                    ty: Box::new(syn::parse_quote!(Self)),
                }),
                Some(t) => syn::FnArg::Typed(syn::PatType {
                    attrs: Vec::new(),
                    pat: Box::new(syn::Pat::Wild(syn::PatWild {
                        attrs: Vec::new(),
                        underscore_token: Default::default(),
                    })),
                    colon_token: Default::default(),
                    ty: Box::new(t.to_syn()),
                }),
            })
            .collect();
        syn::Signature {
            constness: None,
            asyncness: None,
            unsafety: None,
            abi: None,
            fn_token: Default::default(),
            ident: ident(&self.ident),
            generics: self.generics.to_syn(),
            paren_token: Default::default(),
            inputs,
            variadic: None,
            output: match &self.output {
                None => syn::ReturnType::Default,
                Some(t) => syn::ReturnType::Type(Default::default(), Box::new(t.to_syn())),
            },
        }
    }
}

fn bounds_to_syn(list: &[Path]) -> syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]> {
    list.iter()
        .map(|p| {
            syn::TypeParamBound::Trait(syn::TraitBound {
                paren_token: None,
                modifier: syn::TraitBoundModifier::None,
                lifetimes: None,
                path: p.to_syn(),
            })
        })
        .collect()
}

impl Generics {
    fn to_syn(&self) -> syn::Generics {
        let params = self
            .params
            .iter()
            .map(|(name, b)| {
                let bounds = bounds_to_syn(b);
                syn::GenericParam::Type(syn::TypeParam {
                    attrs: Vec::new(),
                    ident: ident(name),
                    colon_token: (!bounds.is_empty()).then(Default::default),
                    bounds,
                    eq_token: None,
                    default: None,
                })
            })
            .collect::<syn::punctuated::Punctuated<_, syn::Token![,]>>();
        syn::Generics {
            lt_token: (!params.is_empty()).then(Default::default),
            gt_token: (!params.is_empty()).then(Default::default),
            params,
            where_clause: self.where_clause.as_ref().map(|preds| syn::WhereClause {
                where_token: Default::default(),
                predicates: preds
                    .iter()
                    .map(|(t, b)| {
                        syn::WherePredicate::Type(syn::PredicateType {
                            lifetimes: None,
                            bounded_ty: t.to_syn(),
                            colon_token: Default::default(),
                            bounds: bounds_to_syn(b),
                        })
                    })
                    .collect(),
            }),
        }
    }
}

impl Type {
    fn to_syn(&self) -> syn::Type {
        let b = |t: &Type| Box::new(t.to_syn());
        let bounded = |list: &[Path]| bounds_to_syn(list);
        match self {
            Type::Ref(t) => syn::Type::Reference(syn::TypeReference {
                and_token: Default::default(),
                lifetime: None,
                mutability: None,
                elem: b(t),
            }),
            Type::Paren(t) => syn::Type::Paren(syn::TypeParen { paren_token: Default::default(), elem: b(t) }),
            Type::Group(t) => syn::Type::Group(syn::TypeGroup { group_token: Default::default(), elem: b(t) }),
            Type::Ptr(t) => syn::Type::Ptr(syn::TypePtr {
                star_token: Default::default(),
                const_token: Some(Default::default()),
                mutability: None,
                elem: b(t),
            }),
            Type::Slice(t) => syn::Type::Slice(syn::TypeSlice { bracket_token: Default::default(), elem: b(t) }),
            Type::Array(t) => syn::Type::Array(syn::TypeArray {
                bracket_token: Default::default(),
                elem: b(t),
                semi_token: Default::default(),
                len: syn::Expr::Verbatim(proc_macro2::TokenStream::new()),
            }),
            Type::Tuple(list) => syn::Type::Tuple(syn::TypeTuple {
                paren_token: Default::default(),
                elems: list.iter().map(Type::to_syn).collect(),
            }),
            Type::ImplTrait(list) => {
                syn::Type::ImplTrait(syn::TypeImplTrait { impl_token: Default::default(), bounds: bounded(list) })
            }
            Type::TraitObject(list) => syn::Type::TraitObject(syn::TypeTraitObject {
                dyn_token: Some(Default::default()),
                bounds: bounded(list),
            }),
            Type::Path(p) => syn::Type::Path(syn::TypePath { qself: None, path: p.to_syn() }),
            Type::Other => syn::Type::Verbatim(proc_macro2::TokenStream::new()),
        }
    }
}

impl Path {
    fn to_syn(&self) -> syn::Path {
        syn::Path {
            leading_colon: self.leading_colon.then(Default::default),
            segments: self
                .segments
                .iter()
                .map(|s| syn::PathSegment {
                    ident: ident(&s.ident),
                    arguments: match &s.args {
                        Args::None => syn::PathArguments::None,
                        Args::Paren => syn::PathArguments::Parenthesized(syn::ParenthesizedGenericArguments {
                            paren_token: Default::default(),
                            inputs: Default::default(),
                            output: syn::ReturnType::Default,
                        }),
                        Args::Angle(list) => syn::PathArguments::AngleBracketed(syn::AngleBracketedGenericArguments {
                            colon2_token: None,
                            lt_token: Default::default(),
                            args: list
                                .iter()
                                .map(|a| match a {
                                    Arg::Type(t) => syn::GenericArgument::Type(t.to_syn()),
                                    Arg::Assoc(name, t) => syn::GenericArgument::AssocType(syn::AssocType {
                                        ident: ident(name),
                                        generics: None,
                                        eq_token: Default::default(),
                                        ty: t.to_syn(),
                                    }),
                                    Arg::Other => syn::GenericArgument::Lifetime(syn::Lifetime::new("'_", span())),
                                })
                                .collect(),
                            gt_token: Default::default(),
                        }),
                    },
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"
        use crate::{a::{self, B as C}, d::*};
        pub(crate) use ::k8s_openapi::api::core::v1 as corev1;
        #[path = "x/y.rs"] mod y;
        mod inline { pub fn f<T: Clone + ?Sized>(t: &T) -> Option<T> where T: Send { None } }
        #[cfg(test)] mod tests { fn t() {} }
        pub async fn run(self_: Arc<Ctx>, api: Api<Pod>, f: impl Fn(u8) -> u8, g: Box<dyn Trait<X, Output = Y> + Send>) {}
        #[derive(CustomResource, Clone)]
        #[kube(group = "g.io", version = "v1", kind = "K")]
        /// doc
        pub struct KSpec<T> { pub a: Vec<T>, r#type: [u8; 4], c: (A, *const B), d: <T as Tr>::X }
        struct Tup(u8, String);
        struct Unit;
        enum E<T> { A(T) }
        type Alias<K> = Api<K>;
        trait Tr<A>: Sized { type X; fn req(&self) -> A; fn def(&self) {} const C: u8; }
        const K: &str = "x";
        static S: Mutex<u8> = Mutex::new(0);
        impl<K: Resource> Client for Wrapper<K> where K::DynamicType: Default { type T = u8; pub fn get(&self, n: &str) -> Result<K> { todo!() } fn x() {} }
        macro_rules! m { () => {} }
    "#;

    /// A syn item with fn bodies, expressions, patterns, spans, docs and lifetimes removed the way the skeleton
    /// does, printed: what must survive the round trip.
    fn printed(items: &[syn::Item]) -> String {
        items.iter().map(|i| quote::quote!(#i).to_string()).collect::<Vec<_>>().join("\n")
    }

    #[test]
    fn round_trip_keeps_what_naming_and_typing_read() {
        let file = syn::parse_file(SAMPLE).unwrap();
        let keep = |s: &syn::ItemStruct| s.ident == "KSpec";
        let sk = Skeleton::of(&file, &keep);
        let bytes = postcard::to_allocvec(&sk).unwrap();
        let back: Skeleton = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back, sk);
        let rebuilt = back.items();
        // Lowering the rebuilt items gives the same skeleton: nothing read by the walk was lost or changed.
        let again = Skeleton::of(&syn::File { shebang: None, attrs: Vec::new(), items: rebuilt.clone() }, &keep);
        assert_eq!(again, sk);
        let text = printed(&rebuilt);
        assert!(text.contains("# [derive (CustomResource , Clone)]"), "{text}");
        assert!(text.contains("# [kube (group = \"g.io\""), "{text}");
        assert!(!text.contains("doc"), "{text}");
        assert!(!text.contains("tests"), "{text}");
        assert!(text.contains("# [path = \"x/y.rs\"] mod y ;"), "{text}");
        assert!(text.contains("r#type"), "{text}");
        let syn::Item::Trait(t) = &rebuilt[rebuilt.len() - 5] else { panic!("{text}") };
        assert_eq!(t.items.len(), 4);
        assert!(matches!(&t.items[1], syn::TraitItem::Fn(f) if f.default.is_none()));
        assert!(matches!(&t.items[2], syn::TraitItem::Fn(f) if f.default.is_some()));
        let syn::Item::Use(u) = &rebuilt[1] else { panic!() };
        assert!(!matches!(u.vis, syn::Visibility::Inherited));
    }

    /// What the module loader reads: flattened uses, mods, item kinds and names, and each item once built.
    fn outline(list: Vec<Entry>) -> Vec<String> {
        let keep = |s: &syn::ItemStruct| s.ident == "KSpec";
        list.into_iter()
            .map(|e| match e {
                Entry::Use(list) => {
                    let (u, public) = match list {
                        UseList::Ready(u, p) => (u, p),
                        UseList::Lazy(make) => make(),
                    };
                    format!("use {public} {:?}", u.iter().map(|x| (&x.alias, &x.path, x.glob)).collect::<Vec<_>>())
                }
                Entry::Mod { name, path, content, .. } => format!("mod {name} {path:?} {:?}", content.map(outline)),
                Entry::Item(slot) => {
                    let file = syn::File { shebang: None, attrs: Vec::new(), items: vec![slot.get().clone()] };
                    format!("{:?} {:?} {:?}", slot.kind(), slot.name(), Skeleton::of(&file, &keep))
                }
            })
            .collect()
    }

    #[test]
    fn stored_skeletons_load_like_parsed_files() {
        let file = syn::parse_file(SAMPLE).unwrap();
        let keep = |s: &syn::ItemStruct| s.ident == "KSpec";
        let bytes: Arc<[u8]> = encode(&file.items, &keep).into();
        let stored = outline(entries(&bytes).unwrap());
        let parsed = outline(crate::source::modules::entries(file.items.clone()));
        assert_eq!(stored, parsed);
        assert_eq!(stored.len(), 15);
        let rebuilt = Skeleton::of(&file, &keep).items();
        assert_eq!(&encode(&rebuilt, &keep)[..], &bytes[..], "equal skeletons encode to equal bytes");
        assert!(entries(&bytes[..bytes.len() - 1].to_vec().into()).is_none());
    }
}
