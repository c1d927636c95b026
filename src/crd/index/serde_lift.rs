//! `#[serde(..)]` attributes of plain items lifted out of the text syn parses and put back as tokens built from
//! what was read. Types generated from CRDs (kopium's) carry one on nearly every field —
//! `#[serde(default, skip_serializing_if = "Option::is_none", rename = "x")]`, 42 % of the bytes of the wide bench
//! crate — and lexing them, then building syn's attribute, was about a fifth of `make manifests` there. Here syn
//! reads `#[serde]` where such an attribute is, alone on its line: lines, and the columns of everything else, stay
//! where they were (byte offsets after it do not, and nothing reads them).
//!
//! Only an attribute alone on its line whose items are `default`, `rename = "…"` and `skip_serializing_if = "…"`
//! (strings of printable ASCII without quotes or backslashes) is lifted: the built tokens all take the span of the
//! `serde` word, and no message names the place of one of those items. An attribute whose items were met before in
//! the text shares the tokens built for the first (their span is that one's). An attribute not found again on an
//! item, field or variant (in a macro's tokens, a string, a comment) makes the caller parse the text as it is.

use std::borrow::Cow;

use proc_macro2::{Ident, Punct, Spacing, Span, TokenStream, TokenTree};

/// The items a lifted attribute may hold.
const NAMES: [&str; 3] = ["default", "rename", "skip_serializing_if"];

/// What `#[serde(` and its items become.
const PLACEHOLDER: &str = "#[serde]";

/// A text with its plain `#[serde(..)]` attributes lifted out, and their items to put back.
pub(super) struct Lifted<'a> {
    /// What syn reads: `#[serde]` in place of each lifted attribute.
    pub text: Cow<'a, str>,
    /// Each attribute: the line (1-based) and column (in chars) of its `#`, as proc-macro2 gives them, and its
    /// items (taken once put back), in the text's order.
    attrs: Vec<Attr<'a>>,
}

/// A lifted attribute: the line (1-based) and column (in chars) of its `#`, and its items (taken once put back).
type Attr<'a> = ((usize, usize), Option<Vec<Item<'a>>>);

/// One item of a lifted attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Item<'a> {
    name: &'static str,
    /// The string after `=`, without its quotes.
    value: Option<&'a str>,
}

/// `text` with its plain `#[serde(..)]` attributes lifted out (see the module's doc).
pub(super) fn lift(text: &str) -> Lifted<'_> {
    const OPEN: &[u8] = b"#[serde(";
    let b = text.as_bytes();
    let mut out: Option<String> = None;
    let mut attrs = Vec::new();
    let mut copied = 0;
    // Lines counted up to `counted`, which is on line `line_no`.
    let (mut line_no, mut counted) = (1, 0);
    for at in memchr::memmem::find_iter(b, OPEN) {
        let line_start = memchr::memrchr(b'\n', &b[..at]).map_or(0, |p| p + 1);
        if at < copied || !b[line_start..at].iter().all(|&c| c == b' ' || c == b'\t') {
            continue;
        }
        let Some((items, end)) = plain_items(text, at + OPEN.len()) else { continue };
        let line_end = memchr::memchr(b'\n', &b[end..]).map_or(b.len(), |p| end + p);
        if !b[end..line_end].iter().all(|&c| matches!(c, b' ' | b'\t' | b'\r')) {
            continue;
        }
        line_no += memchr::memchr_iter(b'\n', &b[counted..at]).count();
        counted = at;
        let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
        out.push_str(&text[copied..at]);
        out.push_str(PLACEHOLDER);
        copied = end;
        // Only blanks before the `#`: its column in chars is its offset in the line.
        attrs.push(((line_no, at - line_start), Some(items)));
    }
    let text = match out {
        Some(mut out) => {
            out.push_str(&text[copied..]);
            Cow::Owned(out)
        }
        None => Cow::Borrowed(text),
    };
    Lifted { text, attrs }
}

/// The items of a plain attribute from `i` (just past `#[serde(`) and the offset just past its `)]`; `None` for
/// anything else.
fn plain_items(text: &str, mut i: usize) -> Option<(Vec<Item<'_>>, usize)> {
    let b = text.as_bytes();
    let blanks = |mut k: usize| {
        while matches!(b.get(k), Some(b' ' | b'\t')) {
            k += 1;
        }
        k
    };
    let mut items = Vec::with_capacity(3);
    loop {
        let start = blanks(i);
        i = start + b[start..].iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_').count();
        let name = *NAMES.iter().find(|n| n.as_bytes() == &b[start..i])?;
        i = blanks(i);
        let value = if b.get(i) == Some(&b'=') {
            i = blanks(i + 1);
            if b.get(i) != Some(&b'"') {
                return None;
            }
            let len = b[i + 1..].iter().position(|&c| c == b'"')?;
            let value = &text[i + 1..i + 1 + len];
            // What `Literal::string` writes back as it was read: no escapes, no quote of either kind.
            if !value.bytes().all(|c| (b' '..=b'~').contains(&c) && !matches!(c, b'\\' | b'\'')) {
                return None;
            }
            i += len + 2;
            Some(value)
        } else {
            None
        };
        // `default = ".."` names a fn, whose place a message may name: only the flag is lifted.
        if (name == "default") != value.is_none() {
            return None;
        }
        items.push(Item { name, value });
        i = blanks(i);
        match (b.get(i), b.get(i + 1)) {
            (Some(b','), _) => i += 1,
            (Some(b')'), Some(b']')) => return Some((items, i + 2)),
            _ => return None,
        }
    }
}

impl Lifted<'_> {
    /// Whether any attribute was lifted (else `text` is the text itself).
    pub fn lifts_any(&self) -> bool {
        !self.attrs.is_empty()
    }

    /// Puts each attribute's items back on `items`, parsed from `text`: its `#[serde]` becomes `#[serde(items)]`,
    /// the tokens those items lex to. False when an attribute was not found again (the caller then parses the
    /// text as it is).
    pub fn restore(self, items: &mut [syn::Item]) -> bool {
        if self.attrs.is_empty() {
            return true;
        }
        // One lexing for all the distinct values (plain ASCII without quotes or backslashes: each is its own
        // literal), much cheaper than building each with `Literal::string`.
        let values = self.attrs.iter().flat_map(|(_, items)| items.iter().flatten()).filter_map(|i| i.value);
        let mut distinct: foldhash::HashMap<&str, usize> = foldhash::HashMap::default();
        let mut all = String::new();
        for value in values {
            let next = distinct.len();
            distinct.entry(value).or_insert_with(|| {
                all.push('"');
                all.push_str(value);
                all.push_str("\" ");
                next
            });
        }
        let Ok(lexed) = all.parse::<TokenStream>() else { return false };
        let lexed: Vec<TokenTree> = lexed.into_iter().collect();
        let words = NAMES.map(|name| Ident::new(name, Span::call_site()));
        let mut r = Restore {
            left: self.attrs.len(),
            attrs: self.attrs,
            values: &distinct,
            lexed: &lexed,
            words: &words,
            built: foldhash::HashMap::default(),
        };
        super::docs::for_each_attrs(items, &mut |attrs| r.attrs(attrs));
        r.left == 0
    }
}

struct Restore<'a, 'l> {
    attrs: Vec<Attr<'a>>,
    left: usize,
    /// Each distinct value's place in `lexed`.
    values: &'l foldhash::HashMap<&'a str, usize>,
    /// The distinct values' literals.
    lexed: &'l [TokenTree],
    /// An identifier of each of [`NAMES`], cloned for each item.
    words: &'l [Ident; 3],
    /// The tokens of each distinct list of items put back so far: an attribute written again (kopium's
    /// `#[serde(default, skip_serializing_if = "Option::is_none")]`, four in five of the wide bench crate's lifted
    /// attributes repeat one before them in their file) shares them.
    built: foldhash::HashMap<Vec<Item<'a>>, TokenStream>,
}

impl Restore<'_, '_> {
    fn attrs(&mut self, attrs: &mut [syn::Attribute]) {
        if self.left == 0 {
            return;
        }
        for a in attrs {
            let syn::Meta::Path(path) = &a.meta else { continue };
            let Some(word) = path.get_ident().filter(|i| *i == "serde") else { continue };
            let at = a.pound_token.spans[0].start();
            let Ok(k) = self.attrs.binary_search_by_key(&(at.line, at.column), |r| r.0) else { continue };
            // Found by its place, each at most once: one never found keeps `left` above zero, and the caller reads
            // the text as written.
            let Some(items) = self.attrs[k].1.take() else { return };
            let tokens = match self.built.get(&items) {
                Some(tokens) => tokens.clone(),
                None => {
                    let Some(tokens) = self.tokens(&items, word.span()) else { return };
                    self.built.insert(items, tokens.clone());
                    tokens
                }
            };
            let empty = syn::Path { leading_colon: None, segments: syn::punctuated::Punctuated::new() };
            let syn::Meta::Path(path) = std::mem::replace(&mut a.meta, syn::Meta::Path(empty)) else { return };
            a.meta = syn::Meta::List(syn::MetaList {
                path,
                // The brackets' place: building one from `span` cost as much as the rest of the attribute.
                delimiter: syn::MacroDelimiter::Paren(syn::token::Paren { span: a.bracket_token.span }),
                tokens,
            });
            self.left -= 1;
        }
    }

    /// The tokens `items` lex to, each with `span`; `None` when a value's literal is missing.
    fn tokens(&self, items: &[Item<'_>], span: Span) -> Option<TokenStream> {
        let punct = |c| {
            let mut p = Punct::new(c, Spacing::Alone);
            p.set_span(span);
            TokenTree::Punct(p)
        };
        let mut out = Vec::with_capacity(items.len() * 4);
        for (k, item) in items.iter().enumerate() {
            if k > 0 {
                out.push(punct(','));
            }
            let mut word = self.words[NAMES.iter().position(|n| *n == item.name)?].clone();
            word.set_span(span);
            out.push(TokenTree::Ident(word));
            if item.value.is_some() {
                out.push(punct('='));
                let TokenTree::Literal(mut lit) = self.lexed.get(*self.values.get(item.value?)?)?.clone() else {
                    return None;
                };
                lit.set_span(span);
                out.push(TokenTree::Literal(lit));
            }
        }
        Some(out.into_iter().collect())
    }
}

#[cfg(test)]
mod tests;
