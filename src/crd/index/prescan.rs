//! The prescan: a cheap lexical pass telling whether a file must be parsed, and otherwise the hashes of the
//! names a lookup could find in it (the file is then a stub of the crate index).

use crate::source::lex::{group_end, is_ident_byte, skip_block, skip_literal};

/// What a cheap lexical scan ([`prescan`]) knows of a file that was not parsed: hashes of the names it may
/// define or import. Hash collisions only make a lookup parse a file it did not need.
#[derive(Debug, Default, PartialEq)]
pub struct StubNames {
    /// Identifiers right after `struct`, `enum`, `type`, `fn`, `const` and `static`: the items the index would
    /// hold; in a derive another part owns, also the identifier-shaped strings of its `#[kube(..)]` attributes
    /// (`kind = "Foo"`, `root = "FooRoot"`): the kind types the derive generates, which a path names like an item.
    pub(super) declared: Vec<u64>,
    /// Identifiers inside `use ...;`: the aliases the module would import.
    pub(super) used: Vec<u64>,
    /// Identifiers in `impl` headers: the types the file may implement a trait for.
    pub(super) impls: Vec<u64>,
    /// The last identifiers of the paths type aliases stand for (`Limits` of `type A = v1::Limits;`, any
    /// `type X = ..;` read as one, associated types too): the types the file may give another name.
    pub(super) aliased: Vec<u64>,
    /// Identifiers a `use` renames (`Limits` of `use crate::Limits as Lim;`): the types the file's impls and aliases
    /// may name by another name.
    pub(super) renamed: Vec<u64>,
    /// Whether a `use` holds a `*`: a glob import a lookup through the module must see.
    pub(super) globs: bool,
}

pub(super) fn name_hash(name: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

pub(super) fn has_name(set: &[u64], name: &str) -> bool {
    set.binary_search(&name_hash(name.as_bytes())).is_ok()
}

/// A cheap lexical scan deciding whether a file must be parsed: `None` when it declares a module (`mod`
/// outside fn bodies and `#[cfg(test)] mod x { .. }` blocks), else the names a lookup could find in it. The
/// names are a superset: fn bodies and `#[cfg(test)]` modules are skipped (syn's index never looks inside
/// them), everything else that could be an item name, a `use` alias or an impl's self type is kept.
pub(super) fn prescan(text: &str) -> Option<StubNames> {
    prescan_with(text, false)
}

/// [`prescan`] for a file deriving `CustomResource` that another part of a split generation owns
/// ([`super::Part`]): an inline module (kopium's `mod prelude { .. }`) does not make it parsed; its name and its
/// body's names count as the file's (a superset), and a path through it loads the file. The kind types its derives
/// generate count too (the identifier-shaped strings of its `#[kube(..)]` attributes).
pub(super) fn prescan_elsewhere(text: &str) -> Option<StubNames> {
    let mut out = prescan_with(text, true)?;
    kube_names(text.as_bytes(), &mut out.declared);
    Some(out)
}

/// Adds to `declared` (sorted, without repeats) the names [`string_names`] finds in every `kube(..)` of the text,
/// wherever it is (`#[kube(..)]`, `#[cfg_attr(.., kube(..))]`): a superset. Apart from [`prescan_with`], whose loop
/// every file's bytes go through.
#[inline(never)]
fn kube_names(b: &[u8], declared: &mut Vec<u64>) {
    let mut found = Vec::new();
    for at in memchr::memmem::find_iter(b, b"kube(") {
        let open = at + 4;
        string_names(&b[open..group_end(b, open).unwrap_or(b.len())], &mut found);
    }
    // A handful of names into thousands: each where it sorts.
    for h in found {
        if let Err(at) = declared.binary_search(&h) {
            declared.insert(at, h);
        }
    }
}

fn prescan_with(text: &str, inline_modules: bool) -> Option<StubNames> {
    let b = text.as_bytes();
    let n = b.len();
    let mut out = StubNames::default();
    let (mut i, mut depth) = (0usize, 0i32);
    let (mut in_fn_sig, mut in_impl, mut in_use, mut declare_next, mut cfg_test) = (false, false, false, false, false);
    let mut prev_punct = 0u8;
    // In a `type` item: 1 before its `=`, 2 after it (the type it stands for); `<` .. `>` depth there.
    let (mut alias, mut angle) = (0u8, 0i32);
    // Skips whitespace and comments from `k`.
    let skip_trivia = |mut k: usize| {
        while k < n {
            if b[k].is_ascii_whitespace() {
                k += 1;
            } else if b[k] == b'/' && matches!(b.get(k + 1), Some(b'/' | b'*')) {
                k = skip_literal(b, k).unwrap_or(n);
            } else {
                break;
            }
        }
        k
    };
    while i < n {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        // Only a quote, a slash or an identifier's first byte can start a literal or a comment (`r"..."`, `b'x'`).
        if matches!(c, b'"' | b'\'' | b'/' | b'r' | b'b' | b'c')
            && let Some(next) = skip_literal(b, i)
        {
            i = next;
            continue;
        }
        if c.is_ascii_digit() {
            while i < n && is_ident_byte(b[i]) {
                i += 1;
            }
            prev_punct = 0;
            continue;
        }
        if is_ident_byte(c) {
            let start = i;
            while i < n && is_ident_byte(b[i]) {
                i += 1;
            }
            let mut word = &b[start..i];
            let mut raw = None;
            if word == b"r" && b.get(i) == Some(&b'#') && b.get(i + 1).is_some_and(|&c| is_ident_byte(c)) {
                i += 1;
                let s = i;
                while i < n && is_ident_byte(b[i]) {
                    i += 1;
                }
                raw = Some(&b[start..i]);
                word = &b[s..i];
            }
            let add = |set: &mut Vec<u64>| {
                set.push(name_hash(word));
                if let Some(r) = raw {
                    set.push(name_hash(r));
                }
            };
            if in_use {
                add(&mut out.used);
                let k = skip_trivia(i);
                if b[k..].starts_with(b"as") && !b.get(k + 2).is_some_and(|&c| is_ident_byte(c)) {
                    add(&mut out.renamed);
                }
            }
            if in_impl {
                add(&mut out.impls);
            }
            // A path's last segment outside generic arguments (`Limits` of `v1::Limits<T>`).
            if alias == 2 && angle == 0 && b.get(skip_trivia(i)) != Some(&b':') {
                add(&mut out.aliased);
            }
            if declare_next {
                add(&mut out.declared);
                // `static mut NAME`: the name comes next.
                declare_next = word == b"mut" || word == b"ref";
            }
            prev_punct = 0;
            if raw.is_some() {
                cfg_test = false;
                continue;
            }
            match word {
                // `fn name`: a declaration whose body is skipped (`fn(..)` is a fn pointer type).
                b"fn" if b.get(skip_trivia(i)).is_some_and(|&c| is_ident_byte(c) && !c.is_ascii_digit()) => {
                    in_fn_sig = true;
                    declare_next = true;
                    depth = 0;
                }
                b"struct" | b"enum" => {
                    in_fn_sig = false;
                    declare_next = true;
                }
                b"type" => {
                    declare_next = true;
                    (alias, angle) = (1, 0);
                }
                b"const" => declare_next = true,
                // `static NAME` declares an item; `&'static str` is a lifetime.
                b"static" if start == 0 || b[start - 1] != b'\'' => {
                    in_fn_sig = false;
                    declare_next = true;
                }
                b"trait" | b"union" | b"static" => in_fn_sig = false,
                b"impl" => {
                    in_impl = true;
                    if !in_fn_sig {
                        depth = 0;
                    }
                }
                b"use" => {
                    in_use = true;
                    in_fn_sig = false;
                }
                b"mod" => {
                    let k = skip_trivia(i);
                    let name_end = k + b[k..].iter().take_while(|&&c| is_ident_byte(c)).count();
                    let open = skip_trivia(name_end);
                    // `mod name;`: a file of the module tree, which only a parse discovers.
                    if name_end == k || b.get(open) != Some(&b'{') {
                        return None;
                    }
                    if cfg_test {
                        // `#[cfg(test)] mod name { .. }`: skipped, as the index skips it.
                        i = skip_block(b, open);
                        cfg_test = false;
                        continue;
                    }
                    if !inline_modules {
                        return None;
                    }
                    // `mod name { .. }`: the module's name is a name of the file, and its body is scanned as the
                    // file's own: a superset of the names a lookup could find.
                    out.declared.push(name_hash(&b[k..name_end]));
                    i = open;
                    continue;
                }
                _ => {}
            }
            if !matches!(word, b"pub" | b"crate" | b"super" | b"self" | b"in") {
                cfg_test = false;
            }
            continue;
        }
        if alias != 0 {
            match c {
                b'<' => angle += 1,
                b'>' => angle = (angle - 1).max(0),
                b'=' if alias == 1 && angle == 0 => alias = 2,
                b';' if depth == 0 => alias = 0,
                b'{' | b'}' => alias = 0,
                _ => {}
            }
        }
        match c {
            b'#' => {
                let k = skip_trivia(i + 1);
                if b.get(k) == Some(&b'[') {
                    // An outer attribute: `#[cfg(test)]` marks the next item.
                    let mut end = k + 1;
                    let mut d = 1;
                    while end < n && d > 0 {
                        let c = b[end];
                        if matches!(c, b'"' | b'\'' | b'/' | b'r' | b'b' | b'c')
                            && let Some(next) = skip_literal(b, end)
                        {
                            end = next;
                            continue;
                        }
                        // Past its first byte an identifier starts nothing: skipped whole.
                        if is_ident_byte(c) {
                            end += 1 + b[end + 1..].iter().take_while(|&&c| is_ident_byte(c)).count();
                            continue;
                        }
                        match c {
                            b'[' => d += 1,
                            b']' => d -= 1,
                            _ => {}
                        }
                        end += 1;
                    }
                    // Without the closing `]` when there is one (an unterminated `#[` runs to the end of the text).
                    let close = if d == 0 { end - 1 } else { end };
                    let inner = b[k + 1..close].iter().copied().filter(|c| !c.is_ascii_whitespace());
                    if inner.eq(b"cfg(test)".iter().copied()) {
                        cfg_test = true;
                    }
                    i = end;
                    prev_punct = b']';
                    continue;
                }
            }
            b'*' if in_use => out.globs = true,
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b';' if depth == 0 => {
                in_fn_sig = false;
                in_impl = false;
                in_use = false;
            }
            b'{' if depth == 0 && in_fn_sig => {
                i = skip_block(b, i);
                in_fn_sig = false;
                in_impl = false;
                cfg_test = false;
                prev_punct = b'}';
                continue;
            }
            b'{' if depth == 0 && in_impl && !matches!(prev_punct, b'<' | b',' | b'=') => in_impl = false,
            _ => {}
        }
        if !matches!(c, b'(' | b')') {
            cfg_test = false;
        }
        declare_next = false;
        prev_punct = c;
        i += 1;
    }
    for set in [&mut out.declared, &mut out.used, &mut out.impls, &mut out.aliased, &mut out.renamed] {
        set.sort_unstable();
        set.dedup();
    }
    Some(out)
}

/// Adds the hash of every string literal of `attr` (a `kube(..)` group's text) whose value is an identifier: a
/// superset of the type names a `#[kube(kind = "..", root = "..")]` makes its derive generate.
fn string_names(attr: &[u8], out: &mut Vec<u64>) {
    let mut i = 0;
    while i < attr.len() {
        let Some(end) = skip_literal(attr, i) else {
            i += 1;
            continue;
        };
        let lit = &attr[i..end];
        // `"..."`, `r"..."` or `r#"..."#`: the value between the quotes (escapes make no identifier).
        let hashes = lit.iter().skip(1).take_while(|&&c| c == b'#').count();
        let value = match lit.first() {
            Some(b'"') if lit.len() >= 2 => Some(&lit[1..lit.len() - 1]),
            Some(b'r') if lit.len() >= 3 + 2 * hashes => Some(&lit[2 + hashes..lit.len() - 1 - hashes]),
            _ => None,
        };
        if let Some(v) = value
            && v.first().is_some_and(|c| !c.is_ascii_digit())
            && v.iter().all(|&c| is_ident_byte(c))
        {
            out.push(name_hash(v));
        }
        i = end;
    }
}
