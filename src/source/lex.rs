//! Lexical scans of Rust source that run before (or instead of) syn: skipping comments and literals, finding
//! blocks and attributes, blanking fn bodies and `#[cfg(test)]` modules, rewriting doc comments; and the segments
//! of a parsed path as the names resolution compares. Each scan keeps the text's lines (and the columns outside
//! what it blanks), so spans of the parsed text point into the original.

pub(crate) fn is_ident_byte(c: u8) -> bool {
    IDENT_BYTES[c as usize]
}

/// The bytes of identifiers (ASCII letters, digits, `_`, and every byte of a non-ASCII character), by value: one
/// load in the scans that test every byte.
const IDENT_BYTES: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
        c += 1;
    }
    t
};

/// The bytes [`skip_block`] stops at: braces and the starts of comments, strings and chars.
const BLOCK_BYTES: [bool; 256] = {
    let mut t = [false; 256];
    t[b'{' as usize] = true;
    t[b'}' as usize] = true;
    t[b'/' as usize] = true;
    t[b'"' as usize] = true;
    t[b'\'' as usize] = true;
    t
};

/// The index just after the `}` matching the `{` at `open` (comments and literals skipped), or the end.
pub(crate) fn skip_block(b: &[u8], open: usize) -> usize {
    block_end(b, open).unwrap_or(b.len())
}

/// The index just after the `}` matching the `{` at `open`, if there is one.
pub(crate) fn block_end(b: &[u8], open: usize) -> Option<usize> {
    let n = b.len();
    let (mut depth, mut k) = (0usize, open);
    loop {
        while k < n && !BLOCK_BYTES[b[k] as usize] {
            k += 1;
        }
        if k >= n {
            return None;
        }
        match b[k] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k + 1);
                }
            }
            b'"' => {
                k = skip_string_at_quote(b, k);
                continue;
            }
            _ => {
                if let Some(next) = skip_literal(b, k) {
                    k = next;
                    continue;
                }
            }
        }
        k += 1;
    }
}

/// The index just after the string literal whose opening `"` is at `k`, looking back for the `r`, `br` or `cr`
/// and `#`s of a raw string (a scan that stops only at quotes meets a raw string there).
pub(crate) fn skip_string_at_quote(b: &[u8], k: usize) -> usize {
    // A raw string starts at its `r` (after an optional `b`/`c`), before the `#`s.
    let hashes = b[..k].iter().rev().take_while(|&&c| c == b'#').count();
    let start = k - hashes;
    let raw = start > 0 && b[start - 1] == b'r' && {
        let p = start - 1;
        p == 0 || !is_ident_byte(b[p - 1]) || (matches!(b[p - 1], b'b' | b'c') && (p == 1 || !is_ident_byte(b[p - 2])))
    };
    let from = if !raw {
        k
    } else if start >= 2 && matches!(b[start - 2], b'b' | b'c') && (start == 2 || !is_ident_byte(b[start - 3])) {
        start - 2
    } else {
        start - 1
    };
    skip_literal_at(b, from).unwrap_or(k + 1)
}

/// The end (just after `]`) of the outer attribute starting with `#` at `at`.
pub(crate) fn attribute_end(b: &[u8], at: usize) -> Option<usize> {
    let mut k = at + 1;
    while k < b.len() && b[k].is_ascii_whitespace() {
        k += 1;
    }
    if b.get(k) != Some(&b'[') {
        return None;
    }
    group_end(b, k)
}

/// The end (just after its closing delimiter) of the group opened by the `(`, `[` or `{` at `open`, past comments
/// and literals; `None` when the text ends first.
pub(crate) fn group_end(b: &[u8], open: usize) -> Option<usize> {
    let (opening, closing) = match b.get(open)? {
        b'(' => (b'(', b')'),
        b'[' => (b'[', b']'),
        _ => (b'{', b'}'),
    };
    let (mut depth, mut k) = (0usize, open);
    while k < b.len() {
        if let Some(next) = skip_literal(b, k) {
            k = next;
            continue;
        }
        if b[k] == opening {
            depth += 1;
        } else if b[k] == closing {
            depth -= 1;
            if depth == 0 {
                return Some(k + 1);
            }
        }
        k += 1;
    }
    None
}

/// If a comment, string, char or byte literal starts at `i`, the index just after it.
#[inline(always)]
pub(crate) fn skip_literal(b: &[u8], i: usize) -> Option<usize> {
    // Most bytes cannot start one: decide those without the call.
    let next = b.get(i + 1).copied().unwrap_or(0);
    let may = match b[i] {
        b'"' | b'\'' => true,
        b'/' => matches!(next, b'/' | b'*'),
        b'r' => matches!(next, b'#' | b'"'),
        b'b' | b'c' => next == b'r',
        _ => false,
    };
    if may { skip_literal_at(b, i) } else { None }
}

#[inline(never)]
pub(crate) fn skip_literal_at(b: &[u8], i: usize) -> Option<usize> {
    let n = b.len();
    let at = |k: usize| b.get(k).copied().unwrap_or(0);
    match b[i] {
        b'/' if at(i + 1) == b'/' => Some(memchr::memchr(b'\n', &b[i..]).map_or(n, |p| i + p)),
        b'/' if at(i + 1) == b'*' => {
            let (mut depth, mut k) = (0usize, i);
            while k < n {
                if at(k) == b'/' && at(k + 1) == b'*' {
                    depth += 1;
                    k += 2;
                } else if at(k) == b'*' && at(k + 1) == b'/' {
                    depth -= 1;
                    k += 2;
                    if depth == 0 {
                        return Some(k);
                    }
                } else {
                    k += 1;
                }
            }
            Some(n)
        }
        b'"' => {
            let mut k = i + 1;
            while k < n {
                match b[k] {
                    b'\\' => k += 2,
                    b'"' => return Some(k + 1),
                    _ => k += 1,
                }
            }
            Some(n)
        }
        b'\'' => {
            if at(i + 1) == b'\\' {
                let close = b[i + 2..].iter().position(|&c| c == b'\'')?;
                return Some(i + 2 + close + 1);
            }
            // 'x' (any UTF-8 char) is a char literal; 'a without a closing quote is a lifetime.
            let len = match at(i + 1) {
                c if c < 0x80 => 1,
                c if c >= 0xf0 => 4,
                c if c >= 0xe0 => 3,
                _ => 2,
            };
            (at(i + 1 + len) == b'\'').then_some(i + 2 + len)
        }
        b'r' | b'b' | b'c' if i == 0 || !is_ident_byte(b[i - 1]) => {
            let mut k = i + 1;
            if b[i] != b'r' && at(k) == b'r' {
                k += 1;
            } else if b[i] != b'r' {
                return None;
            }
            let hashes = b[k..].iter().take_while(|&&c| c == b'#').count();
            if at(k + hashes) != b'"' {
                return None;
            }
            let mut j = k + hashes + 1;
            while j < n {
                if b[j] == b'"' && b[j + 1..].iter().take(hashes).filter(|&&c| c == b'#').count() == hashes {
                    return Some(j + 1 + hashes);
                }
                j += 1;
            }
            Some(n)
        }
        _ => None,
    }
}

/// `text` with the bodies of its inline `#[cfg(test)]` modules blanked (newlines kept, so lines do not move): what a
/// reader that skips test modules need not lex. Used by RBAC inference, which parses fn bodies.
pub(crate) fn blank_test_modules(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("#[cfg(test)]") {
        return std::borrow::Cow::Borrowed(text);
    }
    // Only the places the attribute is written are looked at (inside a string or comment it cannot also be
    // followed by `mod name {`, which `cfg_test_module_body` requires).
    let mut b = text.as_bytes().to_vec();
    let mut from = 0;
    while let Some(at) = text[from..].find("#[cfg(test)]").map(|p| p + from) {
        from = at + 1;
        if let Some((open, close)) = cfg_test_module_body(&b, at) {
            for c in &mut b[open + 1..close] {
                if *c != b'\n' {
                    *c = b' ';
                }
            }
            from = close + 1;
        }
    }
    std::borrow::Cow::Owned(String::from_utf8(b).unwrap_or_else(|_| text.to_string()))
}

/// When `#[cfg(test)]` at `at` starts an inline module (`#[cfg(test)] [#[..]].. [pub[(..)]] mod name {`), the
/// positions of its braces. The index skips such modules, so their contents need not be lexed.
pub(crate) fn cfg_test_module_body(b: &[u8], at: usize) -> Option<(usize, usize)> {
    const CFG_TEST: &[u8] = b"#[cfg(test)]";
    if !b[at..].starts_with(CFG_TEST) {
        return None;
    }
    let n = b.len();
    let skip_trivia = |mut k: usize| {
        while k < n {
            if b[k].is_ascii_whitespace() {
                k += 1;
            } else if let Some(next) = skip_literal(b, k).filter(|_| b[k] == b'/') {
                k = next;
            } else {
                break;
            }
        }
        k
    };
    let mut k = skip_trivia(at + CFG_TEST.len());
    // Further outer attributes.
    while b.get(k) == Some(&b'#') && b.get(k + 1) == Some(&b'[') {
        k = skip_trivia(attribute_end(b, k)?);
    }
    let word = |k: usize, w: &[u8]| b[k..].starts_with(w) && b.get(k + w.len()).is_some_and(|c| !is_ident_byte(*c));
    if word(k, b"pub") {
        k = skip_trivia(k + 3);
        if b.get(k) == Some(&b'(') {
            k += b[k..].iter().position(|&c| c == b')')? + 1;
            k = skip_trivia(k);
        }
    }
    if !word(k, b"mod") {
        return None;
    }
    k = skip_trivia(k + 3);
    let name = b[k..].iter().take_while(|&&c| is_ident_byte(c)).count();
    if name == 0 {
        return None;
    }
    let open = skip_trivia(k + name);
    if b.get(open) != Some(&b'{') {
        return None;
    }
    Some((open, block_end(b, open)? - 1))
}

/// The source with the bodies of fns that are not a single expression replaced by spaces (newlines kept, so
/// lines and the columns outside those bodies do not move). Lexing them is most of the cost of indexing a
/// crate with many controllers, and only single-expression bodies are ever evaluated (as defaults).
pub(crate) fn blank_fn_bodies(text: &str) -> std::borrow::Cow<'_, str> {
    // Only a `fn` or a `#[cfg(test)]` starts a blank: a file of types alone (kopium's) is its own blanked text.
    if !text.contains("fn") && !text.contains("#[cfg(test)]") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut b = text.as_bytes().to_vec();
    let n = b.len();
    let mut i = 0;
    while i < n {
        if let Some(next) = skip_literal(&b, i) {
            i = next;
            continue;
        }
        if b[i] == b'#'
            && let Some((open, close)) = cfg_test_module_body(&b, i)
        {
            for c in &mut b[open + 1..close] {
                if *c != b'\n' {
                    *c = b' ';
                }
            }
            i = close + 1;
            continue;
        }
        let starts_ident = is_ident_byte(b[i]) && !b[i].is_ascii_digit();
        if !starts_ident || (i > 0 && is_ident_byte(b[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        while i < n && is_ident_byte(b[i]) {
            i += 1;
        }
        if &b[start..i] != b"fn" || !b.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
            continue;
        }
        // The signature: up to the first `{` or `;` outside parentheses and brackets.
        let mut k = i;
        let mut depth = 0i32;
        let open = loop {
            if k >= n {
                break None;
            }
            if let Some(next) = skip_literal(&b, k) {
                k = next;
                continue;
            }
            match b[k] {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b';' if depth == 0 => break None,
                b'{' if depth == 0 => break Some(k),
                _ => {}
            }
            k += 1;
        };
        let Some(open) = open else {
            i = k;
            continue;
        };
        // The body: its matching `}`, counting `;` at its top level.
        let (mut k, mut depth, mut semis, mut last_semi) = (open + 1, 0i32, 0usize, 0usize);
        let close = loop {
            if k >= n {
                break None;
            }
            if let Some(next) = skip_literal(&b, k) {
                k = next;
                continue;
            }
            match b[k] {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' => depth -= 1,
                b'}' if depth == 0 => break Some(k),
                b'}' => depth -= 1,
                b';' if depth == 0 => {
                    semis += 1;
                    last_semi = k;
                }
                _ => {}
            }
            k += 1;
        };
        let Some(close) = close else {
            return std::borrow::Cow::Borrowed(text);
        };
        let body = std::str::from_utf8(&b[open + 1..close]).unwrap_or_default().trim();
        let single = semis == 0
            || (semis == 1
                && body.starts_with("return")
                && body.as_bytes().get(6).is_some_and(|c| !is_ident_byte(*c))
                && std::str::from_utf8(&b[last_semi + 1..close]).is_ok_and(|t| t.trim().is_empty()));
        if single {
            i = open + 1;
        } else {
            for c in &mut b[open + 1..close] {
                if *c != b'\n' {
                    *c = b' ';
                }
            }
            i = close + 1;
        }
    }
    String::from_utf8(b).map_or(std::borrow::Cow::Borrowed(text), std::borrow::Cow::Owned)
}

/// `text` with each doc comment (`/// text`, `//! text`) written as the attribute it stands for, with a raw string
/// (`#[doc = r"text"]`, `#![doc = r"text"]`): the same tokens to syn, but lexing a comment escapes its text into a
/// string literal that syn then unescapes char by char, twice (to check the literal, then for its value), where a
/// raw string is copied. Types generated from CRDs carry a doc comment on every field, so this was a fifth of
/// `make manifests` on them. Only the comment itself changes: lines, and columns before it, stay where they were.
/// Block doc comments (`/** */`) and comments holding a bare carriage return stay as they are.
pub(crate) fn raw_doc_comments(text: &str) -> std::borrow::Cow<'_, str> {
    let mut out: Option<String> = None;
    let mut copied = 0;
    for d in doc_comments(text) {
        let out = out.get_or_insert_with(|| String::with_capacity(text.len() + text.len() / 8));
        out.push_str(&text[copied..d.start]);
        out.push_str(if d.inner { "#![doc = " } else { "#[doc = " });
        push_raw_string(out, d.content(text));
        out.push(']');
        out.push_str(d.cr(text));
        copied = d.line_end;
    }
    match out {
        Some(mut out) => {
            out.push_str(&text[copied..]);
            std::borrow::Cow::Owned(out)
        }
        None => std::borrow::Cow::Borrowed(text),
    }
}

/// A line doc comment [`doc_comments`] found.
pub(crate) struct DocLine {
    /// Where its `//` starts.
    pub start: usize,
    /// Where its line ends (the `\n`, or the end of the text).
    pub line_end: usize,
    /// `//!`, not `///`.
    pub inner: bool,
}

impl DocLine {
    /// Its text, after the `///` or `//!` and without a final `\r`.
    pub fn content<'t>(&self, text: &'t str) -> &'t str {
        let line = &text[self.start + 3..self.line_end];
        line.strip_suffix('\r').unwrap_or(line)
    }

    /// The `\r` ending its line, if one does.
    pub fn cr<'t>(&self, text: &'t str) -> &'t str {
        if text[..self.line_end].ends_with('\r') && self.line_end > self.start + 3 { "\r" } else { "" }
    }
}

/// The line doc comments (`/// text`, `//! text`) of `text`, in order, outside other comments and literals.
/// `////` comments are no doc; block doc comments (`/** */`) and doc comments holding a bare carriage return (which
/// the parser reports) are not given.
pub(crate) fn doc_comments(text: &str) -> impl Iterator<Item = DocLine> + '_ {
    let b = text.as_bytes();
    let n = b.len();
    let mut i = if memchr::memmem::find(b, b"//").is_some() { 0 } else { n };
    std::iter::from_fn(move || {
        while i < n {
            // Only a `/`, `"` or `'` can start a comment or a literal (a raw string is met at its quote).
            match memchr::memchr3(b'/', b'"', b'\'', &b[i..]) {
                Some(p) => i += p,
                None => break,
            }
            if b[i] == b'"' {
                i = skip_string_at_quote(b, i);
                continue;
            }
            let inner = b[i] == b'/' && b.get(i + 1) == Some(&b'/') && b.get(i + 2) == Some(&b'!');
            let outer = b[i] == b'/'
                && b.get(i + 1) == Some(&b'/')
                && b.get(i + 2) == Some(&b'/')
                && b.get(i + 3) != Some(&b'/');
            if !inner && !outer {
                i = skip_literal(b, i).unwrap_or(i + 1);
                continue;
            }
            let start = i;
            let line_end = memchr::memchr(b'\n', &b[i..]).map_or(n, |p| i + p);
            i = line_end;
            let d = DocLine { start, line_end, inner };
            if !d.content(text).contains('\r') {
                return Some(d);
            }
        }
        i = n;
        None
    })
}

/// `content` as a raw string literal (`r"..."`, with enough `#`s that no `"` in it closes the string early).
pub(crate) fn push_raw_string(out: &mut String, content: &str) {
    let bytes = content.as_bytes();
    let hashes = memchr::memchr_iter(b'"', bytes)
        .map(|k| bytes[k + 1..].iter().take_while(|&&c| c == b'#').count() + 1)
        .max()
        .unwrap_or(0);
    out.reserve(content.len() + 3 + 2 * hashes);
    out.push('r');
    (0..hashes).for_each(|_| out.push('#'));
    out.push('"');
    out.push_str(content);
    out.push('"');
    (0..hashes).for_each(|_| out.push('#'));
}

/// Byte offsets of `word` (an ASCII identifier) as a whole identifier in `s`. Found from its first byte with
/// `memchr`, much faster than a substring search on long files.
pub(crate) fn word_positions<'s>(s: &'s str, word: &'s str) -> impl Iterator<Item = usize> + 's {
    let is_ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let b = s.as_bytes();
    let first = char::from(word.as_bytes()[0]);
    s.match_indices(first).map(|(p, _)| p).filter(move |&p| {
        b[p..].starts_with(word.as_bytes())
            && (p == 0 || !is_ident(b[p - 1]))
            && b.get(p + word.len()).is_none_or(|&c| !is_ident(c))
    })
}

/// The segments of a type that is a path (through groups and parentheses; not a qualified `<T as X>::Y`).
pub(crate) fn type_path_segs(ty: &syn::Type) -> Option<Vec<String>> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => Some(path_segs(&p.path)),
        syn::Type::Group(g) => type_path_segs(&g.elem),
        syn::Type::Paren(p) => type_path_segs(&p.elem),
        _ => None,
    }
}

/// The segments of `path` as names (a raw identifier's `r#` dropped), as resolution compares them.
pub(crate) fn path_segs(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| super::syntax::unraw(&s.ident)).collect()
}

#[cfg(test)]
mod tests {
    use super::raw_doc_comments;

    /// The doc attributes syn reads from `text`, as (outer, value) pairs, and the tokens of everything else.
    fn docs_and_rest(text: &str) -> (Vec<(bool, String)>, String) {
        let mut file: syn::File = syn::parse_str(text).expect("parses");
        let mut docs = Vec::new();
        let mut take = |attrs: &mut Vec<syn::Attribute>| {
            attrs.retain(|a| match &a.meta {
                syn::Meta::NameValue(nv) if nv.path.is_ident("doc") => {
                    let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = &nv.value else {
                        panic!("doc is a string")
                    };
                    docs.push((matches!(a.style, syn::AttrStyle::Outer), s.value()));
                    false
                }
                _ => true,
            })
        };
        take(&mut file.attrs);
        for item in &mut file.items {
            match item {
                syn::Item::Struct(s) => {
                    take(&mut s.attrs);
                    s.fields.iter_mut().for_each(|f| take(&mut f.attrs));
                }
                syn::Item::Fn(f) => take(&mut f.attrs),
                _ => {}
            }
        }
        (docs, quote::quote!(#file).to_string())
    }

    #[test]
    fn doc_comments_read_the_same_as_raw_attributes() {
        let text = concat!(
            "//! Crate docs with \"quotes\" and \"# hashes\"#.\n",
            "/// A type.\n///\n///   indented, `code`, \\n not an escape, é, \"#\"##\n",
            "#[derive(Debug)]\npub struct S {\n    /// The field.\r\n    pub a: u8, // plain\n",
            "    //// four slashes: a plain comment\n    pub b: String,\n}\n",
            "/** block doc */\nfn f() -> &'static str { \"/// not a comment\" }\n",
            "/* /// inside a block comment */\nconst R: &str = r#\"a \" /// b\"#;\nconst C: char = '\"';\n///\n",
            "fn g() {}\n///no space",
        );
        let rewritten = raw_doc_comments(text);
        assert!(rewritten.contains("#[doc = r\" A type.\"]"), "{rewritten}");
        assert!(rewritten.contains("\"/// not a comment\""), "{rewritten}");
        assert!(rewritten.contains("/* /// inside a block comment */"), "{rewritten}");
        assert!(rewritten.contains("//// four slashes"), "{rewritten}");
        assert!(rewritten.contains("r#\"a \" /// b\"#"), "{rewritten}");
        assert_eq!(rewritten.lines().count(), text.lines().count());
        let with_item = |t: &str| format!("{t}\nfn h() {{}}\n");
        assert_eq!(docs_and_rest(&with_item(&rewritten)), docs_and_rest(&with_item(text)));
        let (docs, _) = docs_and_rest(&with_item(text));
        assert_eq!(docs.len(), 8, "{docs:?}");
    }

    #[test]
    fn text_without_doc_comments_is_borrowed() {
        for text in ["struct S;", "// +kubebuilder:object:root=true\nstruct S;", "const X: &str = \"///\";"] {
            assert!(matches!(raw_doc_comments(text), std::borrow::Cow::Borrowed(_)), "{text}");
        }
    }

    #[test]
    fn a_carriage_return_inside_a_comment_is_left_to_the_parser() {
        let text = "/// a\rb\nstruct S;\n";
        assert_eq!(raw_doc_comments(text), text);
    }
}
