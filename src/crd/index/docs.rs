//! Outer line doc comments (`/// text`) lifted out of the text syn parses and put back on what it built, one
//! attribute per run of lines. syn builds an attribute, with a string literal it then checks and reads back, for
//! every doc line; types generated from CRDs carry a doc comment on every field, so on them that was a seventh of
//! `make manifests`. Here syn reads a bare `#[doc]` where a run starts and nothing for its other lines: lines, and
//! columns before the comment, stay where they were, so every span (and the line markers are placed by) is the
//! same as with the comments.

use std::borrow::Cow;

use crate::source::lex::{doc_comments, push_raw_string};

/// A text with its outer line doc comments lifted out, and the runs of them to put back.
pub(super) struct Lifted<'a> {
    /// What syn reads: a run's first comment is `#[doc]`, its other lines are blank after their indentation, and
    /// inner doc comments (`//! text`) are `#![doc = r"text"]`.
    pub text: Cow<'a, str>,
    /// Each run: the line (1-based) and column (in chars) of its `#[doc]`, as proc-macro2 gives them, and its value
    /// (taken once put back), in the text's order.
    runs: Vec<((usize, usize), Option<String>)>,
}

/// `text` with its outer line doc comments lifted out. A comment holding a bare carriage return stays (the parser
/// reports it), as do block doc comments (`/** */`) and `////` comments, which are no doc.
pub(super) fn lift(text: &str) -> Lifted<'_> {
    let b = text.as_bytes();
    let mut out: Option<String> = None;
    let mut runs: Vec<((usize, usize), Option<String>)> = Vec::new();
    let mut copied = 0;
    // Lines counted up to `counted`: that byte is on line `line_no`, which starts at `line_start`.
    let (mut line_no, mut line_start, mut counted) = (1, 0, 0);
    // The end (its `\n`) of the line the last lifted comment ended, while a run may go on.
    let mut run_end: Option<usize> = None;
    for d in doc_comments(text) {
        let (i, content) = (d.start, d.content(text));
        let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
        out.push_str(&text[copied..i]);
        if d.inner {
            out.push_str("#![doc = ");
            push_raw_string(out, content);
            out.push(']');
            run_end = None;
        } else {
            let goes_on = run_end.is_some_and(|e| b[e + 1..i].iter().all(|&c| c == b' ' || c == b'\t'));
            match runs.last_mut() {
                Some((_, Some(run))) if goes_on => {
                    run.push('\n');
                    run.push_str(content.strip_prefix(' ').unwrap_or(content));
                }
                _ => {
                    line_no += memchr::memchr_iter(b'\n', &b[counted..i]).count();
                    if let Some(p) = memchr::memrchr(b'\n', &b[counted..i]) {
                        line_start = counted + p + 1;
                    }
                    counted = i;
                    let column = text[line_start..i].chars().count();
                    runs.push(((line_no, column), Some(content.to_string())));
                    out.push_str("#[doc]");
                }
            }
            run_end = Some(d.line_end).filter(|&e| e < b.len());
        }
        out.push_str(d.cr(text));
        copied = d.line_end;
    }
    let text = match out {
        Some(mut out) => {
            out.push_str(&text[copied..]);
            Cow::Owned(out)
        }
        None => Cow::Borrowed(text),
    };
    Lifted { text, runs }
}

impl Lifted<'_> {
    /// Whether any outer doc comment was lifted (else `text` reads the same with or without [`Lifted::restore`]).
    pub fn lifts_any(&self) -> bool {
        !self.runs.is_empty()
    }

    /// Puts each run back on `items`, parsed from `text`: its `#[doc]` becomes `#[doc = r"lines"]`, the lines
    /// joined with `\n`, each but the first without its first space (what [`crate::crd::attrs::doc_text`] makes of
    /// one attribute per line). False when a run's `#[doc]` was not found (inside a macro's tokens, or on something
    /// that is not an item, field or variant): the caller then parses the text with its doc comments.
    pub fn restore(self, items: &mut [syn::Item]) -> bool {
        if self.runs.is_empty() {
            return true;
        }
        // One lexing for all the literals: proc-macro2 keeps every text it lexes, with its lines.
        let mut all = String::with_capacity(self.runs.iter().map(|r| r.1.as_ref().map_or(0, |v| v.len() + 8)).sum());
        for (_, value) in &self.runs {
            push_raw_string(&mut all, value.as_deref().unwrap_or_default());
            all.push(' ');
        }
        let Ok(tokens) = all.parse::<proc_macro2::TokenStream>() else { return false };
        let literals: Vec<proc_macro2::Literal> = tokens
            .into_iter()
            .filter_map(|t| match t {
                proc_macro2::TokenTree::Literal(l) => Some(l),
                _ => None,
            })
            .collect();
        if literals.len() != self.runs.len() {
            return false;
        }
        let runs: Vec<_> = self.runs.into_iter().zip(literals).map(|((at, _), lit)| (at, Some(lit))).collect();
        let mut r = Restore { left: runs.len(), runs };
        for_each_attrs(items, &mut |attrs| r.attrs(attrs));
        r.left == 0
    }
}

/// Calls `f` on the attributes of each item of `items` (inline modules' too), and of their fields, variants and
/// associated items: wherever a doc comment outside a macro's tokens and a fn's body ends up.
pub(super) fn for_each_attrs(items: &mut [syn::Item], f: &mut impl FnMut(&mut Vec<syn::Attribute>)) {
    let fields = |fields: &mut syn::Fields, f: &mut dyn FnMut(&mut Vec<syn::Attribute>)| {
        fields.iter_mut().for_each(|field| f(&mut field.attrs));
    };
    for item in items {
        match item {
            syn::Item::Struct(s) => {
                f(&mut s.attrs);
                fields(&mut s.fields, f);
            }
            syn::Item::Enum(e) => {
                f(&mut e.attrs);
                for v in &mut e.variants {
                    f(&mut v.attrs);
                    fields(&mut v.fields, f);
                }
            }
            syn::Item::Union(u) => {
                f(&mut u.attrs);
                u.fields.named.iter_mut().for_each(|field| f(&mut field.attrs));
            }
            syn::Item::Mod(m) => {
                f(&mut m.attrs);
                if let Some((_, items)) = &mut m.content {
                    for_each_attrs(items, f);
                }
            }
            syn::Item::Impl(i) => {
                f(&mut i.attrs);
                for it in &mut i.items {
                    match it {
                        syn::ImplItem::Const(c) => f(&mut c.attrs),
                        syn::ImplItem::Fn(func) => f(&mut func.attrs),
                        syn::ImplItem::Type(t) => f(&mut t.attrs),
                        syn::ImplItem::Macro(m) => f(&mut m.attrs),
                        _ => {}
                    }
                }
            }
            syn::Item::Trait(t) => {
                f(&mut t.attrs);
                for it in &mut t.items {
                    match it {
                        syn::TraitItem::Const(c) => f(&mut c.attrs),
                        syn::TraitItem::Fn(func) => f(&mut func.attrs),
                        syn::TraitItem::Type(t) => f(&mut t.attrs),
                        syn::TraitItem::Macro(m) => f(&mut m.attrs),
                        _ => {}
                    }
                }
            }
            syn::Item::ForeignMod(m) => {
                f(&mut m.attrs);
                for it in &mut m.items {
                    match it {
                        syn::ForeignItem::Fn(func) => f(&mut func.attrs),
                        syn::ForeignItem::Static(s) => f(&mut s.attrs),
                        syn::ForeignItem::Type(t) => f(&mut t.attrs),
                        syn::ForeignItem::Macro(m) => f(&mut m.attrs),
                        _ => {}
                    }
                }
            }
            syn::Item::Fn(func) => f(&mut func.attrs),
            syn::Item::Const(c) => f(&mut c.attrs),
            syn::Item::Static(s) => f(&mut s.attrs),
            syn::Item::Type(t) => f(&mut t.attrs),
            syn::Item::Use(u) => f(&mut u.attrs),
            syn::Item::ExternCrate(e) => f(&mut e.attrs),
            syn::Item::Macro(m) => f(&mut m.attrs),
            syn::Item::TraitAlias(t) => f(&mut t.attrs),
            _ => {}
        }
    }
}

struct Restore {
    runs: Vec<((usize, usize), Option<proc_macro2::Literal>)>,
    left: usize,
}

impl Restore {
    fn attrs(&mut self, attrs: &mut [syn::Attribute]) {
        if self.left == 0 {
            return;
        }
        for a in attrs {
            let syn::Meta::Path(path) = &a.meta else { continue };
            if !path.is_ident("doc") {
                continue;
            }
            let span = a.pound_token.spans[0];
            let at = span.start();
            let Ok(k) = self.runs.binary_search_by_key(&(at.line, at.column), |r| r.0) else { continue };
            let Some(mut lit) = self.runs[k].1.take() else { continue };
            lit.set_span(span);
            a.meta = syn::Meta::NameValue(syn::MetaNameValue {
                path: path.clone(),
                eq_token: syn::Token![=](span),
                value: syn::Expr::Lit(syn::ExprLit { attrs: Vec::new(), lit: syn::Lit::new(lit) }),
            });
            self.left -= 1;
        }
    }
}

#[cfg(test)]
mod tests;
