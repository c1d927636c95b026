//! The way back: a skeleton's items as syn items (empty fn bodies, call-site spans), equal to the parsed ones in
//! everything the skeleton keeps.

use super::{Arg, Args, Fields, Generics, Item, Member, Path, Sig, Type, UseTree, Vis};

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
    pub(super) fn to_syn(&self) -> syn::Item {
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
    pub(super) fn to_syn(self) -> syn::Visibility {
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
    pub(super) fn to_syn(&self) -> syn::UseTree {
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
    pub(super) fn to_syn(&self) -> syn::Signature {
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
    pub(super) fn to_syn(&self) -> syn::Generics {
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
    pub(super) fn to_syn(&self) -> syn::Type {
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
    pub(super) fn to_syn(&self) -> syn::Path {
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
