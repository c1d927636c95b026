//! A faster parse of struct items: the same syntax tree as syn's `ItemStruct` parse, but field types that are
//! plain paths (`Option<Vec<Foo>>`, `std::collections::BTreeMap<String, serde_json::Value>`) are read token by
//! token instead of through syn's type grammar, which tries every kind of type first. On types generated from
//! CRDs (thousands of fields) that grammar was a tenth of `make manifests`. Anything else in a field's type (a
//! reference, tuple, lifetime, qualified path, bound, ...) is left to syn, from where the field's type starts.

use syn::parse::ParseStream;
use syn::parse::discouraged::Speculative;
use syn::punctuated::Punctuated;

/// A struct item after its outer attributes and visibility (`input` at `struct`), parsed as syn parses it.
pub(super) fn item_struct(
    input: ParseStream,
    attrs: Vec<syn::Attribute>,
    vis: syn::Visibility,
) -> syn::Result<syn::ItemStruct> {
    let struct_token: syn::Token![struct] = input.parse()?;
    let ident: syn::Ident = input.parse()?;
    let mut generics: syn::Generics = input.parse()?;
    let mut lookahead = input.lookahead1();
    if lookahead.peek(syn::Token![where]) {
        generics.where_clause = Some(input.parse()?);
        lookahead = input.lookahead1();
    }
    let (fields, semi_token) = if generics.where_clause.is_none() && lookahead.peek(syn::token::Paren) {
        let fields: syn::FieldsUnnamed = input.parse()?;
        let mut lookahead = input.lookahead1();
        if lookahead.peek(syn::Token![where]) {
            generics.where_clause = Some(input.parse()?);
            lookahead = input.lookahead1();
        }
        if !lookahead.peek(syn::Token![;]) {
            return Err(lookahead.error());
        }
        (syn::Fields::Unnamed(fields), Some(input.parse()?))
    } else if lookahead.peek(syn::token::Brace) {
        let content;
        let brace_token = syn::braced!(content in input);
        let named = content.parse_terminated(named_field, syn::Token![,])?;
        (syn::Fields::Named(syn::FieldsNamed { brace_token, named }), None)
    } else if lookahead.peek(syn::Token![;]) {
        (syn::Fields::Unit, Some(input.parse()?))
    } else {
        return Err(lookahead.error());
    };
    Ok(syn::ItemStruct { attrs, vis, struct_token, ident, generics, fields, semi_token })
}

/// syn's `Field::parse_named`, with plain path types read by [`path_type`].
fn named_field(input: ParseStream) -> syn::Result<syn::Field> {
    let start = input.fork();
    let attrs = outer_attrs(input)?;
    let vis: syn::Visibility = input.parse()?;
    if input.peek(syn::Token![_]) {
        // An unnamed field (`_: struct { .. }`): syn's own reading.
        input.advance_to(&start);
        return syn::Field::parse_named(input);
    }
    let ident: syn::Ident = input.parse()?;
    let colon_token: syn::Token![:] = input.parse()?;
    let fork = input.fork();
    let ty = match path_type(&fork) {
        Some(ty) if fork.is_empty() || fork.peek(syn::Token![,]) => {
            input.advance_to(&fork);
            ty
        }
        _ => input.parse()?,
    };
    Ok(syn::Field {
        attrs,
        vis,
        mutability: syn::FieldMutability::None,
        ident: Some(ident),
        colon_token: Some(colon_token),
        ty,
    })
}

/// syn's `Attribute::parse_outer`, with the bare `#[serde]` and `#[doc]` the lifted attributes and doc comments
/// leave (`serde_lift`, `docs`: nearly every field of a type generated from a CRD has one or both) read token by
/// token into the attribute syn builds for them.
fn outer_attrs(input: ParseStream) -> syn::Result<Vec<syn::Attribute>> {
    let mut attrs = Vec::new();
    while input.peek(syn::Token![#]) && input.peek2(syn::token::Bracket) {
        let bare = input.step(|cursor| {
            let bare = cursor.punct().filter(|(pound, _)| pound.as_char() == '#').and_then(|(pound, rest)| {
                let (inner, delim, rest) = rest.group(proc_macro2::Delimiter::Bracket)?;
                let (word, after) = inner.ident()?;
                (after.eof() && (word == "serde" || word == "doc")).then(|| {
                    let attr = syn::Attribute {
                        pound_token: syn::Token![#](pound.span()),
                        style: syn::AttrStyle::Outer,
                        bracket_token: syn::token::Bracket { span: delim },
                        meta: syn::Meta::Path(syn::Path::from(word)),
                    };
                    (attr, rest)
                })
            });
            Ok(match bare {
                Some((attr, rest)) => (Some(attr), rest),
                None => (None, *cursor),
            })
        })?;
        match bare {
            Some(attr) => attrs.push(attr),
            None => {
                attrs.extend(input.call(syn::Attribute::parse_outer)?);
                break;
            }
        }
    }
    Ok(attrs)
}

/// A path type of identifiers and angle-bracketed type arguments, each one such a type too (`None`: something
/// else, for syn to read). Reads from a fork; the caller checks what follows.
fn path_type(input: ParseStream) -> Option<syn::Type> {
    let mut segments: Punctuated<syn::PathSegment, syn::Token![::]> = Punctuated::new();
    loop {
        // Not a keyword (`dyn`, `impl`, `fn`, `Self`, `crate`, ...: other kinds of type, or paths syn reads its way).
        let ident = input.parse::<syn::Ident>().ok()?;
        let arguments = if input.peek(syn::Token![<]) && !input.peek(syn::Token![<=]) {
            syn::PathArguments::AngleBracketed(type_arguments(input)?)
        } else {
            syn::PathArguments::None
        };
        segments.push_value(syn::PathSegment { ident, arguments });
        if input.peek(syn::Token![::]) && !input.peek3(syn::Token![<]) {
            segments.push_punct(input.parse().ok()?);
        } else {
            break;
        }
    }
    Some(syn::Type::Path(syn::TypePath { qself: None, path: syn::Path { leading_colon: None, segments } }))
}

/// `<T, U>` where each argument is a [`path_type`].
fn type_arguments(input: ParseStream) -> Option<syn::AngleBracketedGenericArguments> {
    let lt_token: syn::Token![<] = input.parse().ok()?;
    let mut args: Punctuated<syn::GenericArgument, syn::Token![,]> = Punctuated::new();
    loop {
        if input.peek(syn::Token![>]) {
            break;
        }
        args.push_value(syn::GenericArgument::Type(path_type(input)?));
        if input.peek(syn::Token![,]) {
            args.push_punct(input.parse().ok()?);
        } else if !input.peek(syn::Token![>]) {
            return None;
        }
    }
    let gt_token: syn::Token![>] = input.parse().ok()?;
    Some(syn::AngleBracketedGenericArguments { colon2_token: None, lt_token, args, gt_token })
}

#[cfg(test)]
mod tests;
