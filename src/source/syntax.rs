//! Small syntax helpers every reader of Rust source shares: `use` trees, identifiers, `#[cfg(test)]`, `#[path]`,
//! the nesting limit checked before syn parses a text.

/// A `use` entry: `alias` stands for `path` (already absolute when it starts with `crate`).
#[derive(Debug, Clone)]
pub struct UseEntry {
    /// Name introduced (empty for globs).
    pub alias: String,
    /// Path segments.
    pub path: Vec<String>,
    /// `use path::*`.
    pub glob: bool,
    /// `pub use` (a re-export) or not; [`flatten_use`] leaves it private, its caller sets the `use` item's.
    pub vis: Vis,
}

/// How far a module, a `use` or an item can be named from elsewhere (what naming a type from the crate root or
/// from another crate needs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Vis {
    /// Private (or `pub(super)` / `pub(in ..)`, which are treated as private).
    #[default]
    Private,
    /// `pub(crate)`: anywhere in the crate.
    Crate,
    /// `pub`.
    Public,
}

impl Vis {
    /// The visibility syn read.
    pub fn of(vis: &syn::Visibility) -> Self {
        match vis {
            syn::Visibility::Public(_) => Vis::Public,
            syn::Visibility::Restricted(r) if r.path.is_ident("crate") && r.in_token.is_none() => Vis::Crate,
            _ => Vis::Private,
        }
    }
}

/// Flattens a `use` tree into one entry per name it imports (`use a::{b, c as d, e::*}` → `b`, `d`, glob `a::e`).
pub fn flatten_use(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<UseEntry>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(unraw(&p.ident));
            flatten_use(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = unraw(&n.ident);
            if name == "self" {
                if let Some(last) = prefix.last() {
                    out.push(UseEntry { alias: last.clone(), path: prefix.clone(), glob: false, vis: Vis::Private });
                }
            } else {
                let mut path = prefix.clone();
                path.push(name.clone());
                out.push(UseEntry { alias: name, path, glob: false, vis: Vis::Private });
            }
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            let name = unraw(&r.ident);
            if name != "self" {
                path.push(name);
            }
            out.push(UseEntry { alias: unraw(&r.rename), path, glob: false, vis: Vis::Private });
        }
        syn::UseTree::Glob(_) => {
            out.push(UseEntry { alias: String::new(), path: prefix.clone(), glob: true, vis: Vis::Private })
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                flatten_use(t, prefix, out);
            }
        }
    }
}

/// The type arguments written in `args` (`Api::<Pod>`'s `[Pod]`, `Role<Config, Extra>`'s two); lifetimes and
/// const arguments left out.
pub fn type_args(args: &syn::PathArguments) -> Vec<&syn::Type> {
    match args {
        syn::PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|g| match g {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Identifier text without a leading `r#`.
pub fn unraw(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_string).unwrap_or(s)
}

/// Whether `attrs` hold `#[cfg(test)]`.
pub fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("cfg") && a.meta.require_list().is_ok_and(|l| l.tokens.to_string().trim() == "test"))
}

/// The value of a `#[path = ".."]` attribute.
pub fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find(|a| a.path().is_ident("path")).and_then(|a| match &a.meta {
        syn::Meta::NameValue(nv) => match &nv.value {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// The deepest nesting of brackets and generic arguments [`check_nesting`] lets syn parse: syn and the readers
/// of its trees recurse once (or more) per level, so a deeper text would overflow the stack. Real code stays far
/// below (serde_json and serde_yaml stop at 128).
pub const MAX_NESTING: usize = 256;

/// Refuses a text nested deeper than [`MAX_NESTING`] levels before syn parses it: `(`, `[`, `{` and the `<` of
/// generic arguments (an upper bound: a `<` that is a comparison counts until the next `;` or closing bracket),
/// outside comments, string and char literals. The error names the line and says what to do.
pub fn check_nesting(text: &str) -> Result<(), String> {
    scan(text, true, None).map(drop)
}

/// One pass over the code bytes of `text` ([`code_bytes`]): refused as [`check_nesting`] refuses when `limit`, and
/// the cuts [`top_level_cuts`] finds every `every` bytes when `every` is given (none otherwise).
fn scan(text: &str, limit: bool, every: Option<usize>) -> Result<Vec<usize>, String> {
    let b = text.as_bytes();
    // Per open bracket: the `<` counted inside it so far.
    let mut angles: Vec<usize> = vec![0];
    let mut depth = 0usize;
    // The cuts' own depth counts brackets alone.
    let (mut brackets, mut last, mut cuts) = (0usize, 0usize, Vec::new());
    for i in code_bytes(text) {
        if let Some(every) = every {
            match b[i] {
                b'(' | b'[' | b'{' => brackets += 1,
                b')' | b']' | b'}' => brackets = brackets.saturating_sub(1),
                _ => {}
            }
            if brackets == 0
                && matches!(b[i], b'}' | b';')
                && i - last >= every
                && let Some(cut) = line_after(b, i)
            {
                last = cut;
                cuts.push(cut);
            }
        }
        if !limit {
            continue;
        }
        match b[i] {
            b'(' | b'[' | b'{' => {
                depth += 1;
                angles.push(0);
            }
            b')' | b']' | b'}' if angles.len() > 1 => {
                depth -= 1 + angles.pop().unwrap_or(0);
            }
            b';' => {
                let a = angles.last_mut().expect("never empty");
                depth -= *a;
                *a = 0;
            }
            b'<' if b.get(i + 1) != Some(&b'=') => {
                depth += 1;
                *angles.last_mut().expect("never empty") += 1;
            }
            b'>' if i > 0 && !matches!(b[i - 1], b'-' | b'=') && b.get(i + 1) != Some(&b'=') => {
                let a = angles.last_mut().expect("never empty");
                if *a > 0 {
                    *a -= 1;
                    depth -= 1;
                }
            }
            _ => {}
        }
        if depth > MAX_NESTING {
            let line = 1 + memchr::memchr_iter(b'\n', &b[..i]).count();
            return Err(format!(
                "line {line}: brackets and generic arguments nested deeper than {MAX_NESTING} levels; kubesmith \
                 reads at most {MAX_NESTING} (split the type or expression, or move it out with a type alias or a \
                 helper fn)"
            ));
        }
    }
    Ok(cuts)
}

/// The start of the line after `b[i]` when nothing but blanks or a line comment (not a doc comment) follows it
/// there, and the text goes on.
fn line_after(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < b.len() && matches!(b[j], b' ' | b'\t' | b'\r') {
        j += 1;
    }
    if b[j..].starts_with(b"//") && !b[j..].starts_with(b"///") && !b[j..].starts_with(b"//!") {
        j = memchr::memchr(b'\n', &b[j..]).map_or(b.len(), |p| j + p);
    }
    (b.get(j) == Some(&b'\n') && j + 1 < b.len()).then_some(j + 1)
}

/// The offsets of the brackets, `;`, `<` and `>` of `text` outside comments, string and char literals, in order.
fn code_bytes(text: &str) -> impl Iterator<Item = usize> + '_ {
    let b = text.as_bytes();
    let mut i = 0usize;
    std::iter::from_fn(move || {
        while i < b.len() {
            // Most bytes neither open nor close anything: skip them by table, eight at a time while none is one.
            while let Some(chunk) = b.get(i..i + 8)
                && !chunk.iter().fold(false, |hit, &c| hit | NESTING_BYTES[c as usize])
            {
                i += 8;
            }
            while i < b.len() && !NESTING_BYTES[b[i] as usize] {
                i += 1;
            }
            let Some(&c) = b.get(i) else { break };
            match c {
                b'/' if b.get(i + 1) == Some(&b'/') => {
                    i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |p| i + p);
                    continue;
                }
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    let mut level = 0usize;
                    while i < b.len() {
                        if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                            level += 1;
                            i += 2;
                        } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                            level -= 1;
                            i += 2;
                            if level == 0 {
                                break;
                            }
                        } else {
                            i += 1;
                        }
                    }
                    continue;
                }
                // A raw string (`r"..."`, `br#"..."#`): its `r` and `#`s, which the table skips, come before the quote.
                b'"' if let Some(hashes) = raw_string_quote(b, i) => {
                    let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
                    i += 1;
                    while i < b.len() && !b[i..].starts_with(&close) {
                        i += 1;
                    }
                    i += close.len();
                    continue;
                }
                b'"' => {
                    i += 1;
                    // To the closing quote (or the end of an unterminated string), escapes skipped.
                    loop {
                        match memchr::memchr2(b'"', b'\\', b.get(i..).unwrap_or_default()) {
                            Some(at) if b[i + at] == b'\\' => i += at + 2,
                            Some(at) => {
                                i += at;
                                break;
                            }
                            None => {
                                i = b.len();
                                break;
                            }
                        }
                    }
                    i += 1;
                    continue;
                }
                b'\'' => {
                    // A char literal (`'x'`, `'\n'`, `'\u{..}'`), else a lifetime or label: skip the quote only.
                    if b.get(i + 1) == Some(&b'\\') {
                        i += 2;
                        while i < b.len() && b[i] != b'\'' && b[i] != b'\n' {
                            i += 1;
                        }
                        i += 1;
                        continue;
                    }
                    let ch = text[i + 1..].chars().next().map_or(0, char::len_utf8);
                    if ch > 0 && b.get(i + 1 + ch) == Some(&b'\'') {
                        i += ch + 2;
                        continue;
                    }
                }
                b'/' => {}
                _ => {
                    i += 1;
                    return Some(i - 1);
                }
            }
            i += 1;
        }
        None
    })
}

/// A text as syn is given it ([`parseable`]).
pub struct Parseable<'a> {
    /// The text.
    pub text: std::borrow::Cow<'a, str>,
    /// Where a text of more than twice [`PIECE_BYTES`] may be cut ([`top_level_cuts`]), as the 0-based numbers of
    /// the lines each cut starts: [`parse_in_pieces`] cuts the text it parses there, which may be this text
    /// changed in ways that keep its lines (fn bodies blanked, doc comments turned into attributes).
    pub cut_lines: Vec<usize>,
}

/// `text` as syn is given it: a leading byte order mark dropped and a shebang line (`#!/usr/bin/env ..`, not
/// `#![attr]`) blanked with spaces, so lines and columns stay; refused ([`check_nesting`]) when nested too deep.
/// The same pass finds where a large text may be cut.
pub fn parseable(text: &str) -> Result<Parseable<'_>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let every = (text.len() > 2 * PIECE_BYTES).then_some(PIECE_BYTES);
    let cuts = scan(text, true, every)?;
    let cut_lines = line_numbers(text.as_bytes(), &cuts);
    if text.starts_with("#!") && !text.starts_with("#![") {
        let end = text.find('\n').unwrap_or(text.len());
        let text = std::borrow::Cow::Owned(format!("{}{}", " ".repeat(end), &text[end..]));
        return Ok(Parseable { text, cut_lines });
    }
    Ok(Parseable { text: std::borrow::Cow::Borrowed(text), cut_lines })
}

/// The 0-based line of each of `offsets` (in order) in `b`.
fn line_numbers(b: &[u8], offsets: &[usize]) -> Vec<usize> {
    let mut newlines = memchr::memchr_iter(b'\n', b).peekable();
    let mut line = 0;
    let mut out = Vec::with_capacity(offsets.len());
    for &o in offsets {
        while newlines.next_if(|&p| p < o).is_some() {
            line += 1;
        }
        out.push(line);
    }
    out
}

/// The offsets in `b` where each of `lines` (0-based, in order) starts; lines past its end are left out.
fn line_starts(b: &[u8], lines: &[usize]) -> Vec<usize> {
    let mut want = lines.iter().copied().peekable();
    let mut out = Vec::with_capacity(lines.len());
    while want.next_if_eq(&0).is_some() {
        out.push(0);
    }
    for (n, p) in memchr::memchr_iter(b'\n', b).enumerate() {
        while want.next_if_eq(&(n + 1)).is_some() {
            out.push(p + 1);
        }
        if want.peek().is_none() {
            break;
        }
    }
    out.retain(|&o| o < b.len());
    out.dedup();
    out
}

/// About how many bytes of a large text [`parse_in_pieces`] parses at a time.
pub const PIECE_BYTES: usize = 64 << 10;

/// The items of a text of more than twice [`PIECE_BYTES`], parsed a piece of whole items at a time by
/// `parse(piece, first)`, cut at the starts of `cut_lines` ([`Parseable::cut_lines`]), each piece on its own lines (after as many empty lines as come
/// before it), so every span is the one parsing the whole text gives. syn holds the tokens of what it parses twice
/// over while it builds the trees, ~20 times the text: a megabyte file of generated types took 23 MB more at once
/// than its trees keep. `None` for a smaller text, or when a piece does not parse (a cut that does not end an item,
/// or an error in the text): the caller parses the whole text then, for the same items or error.
pub fn parse_in_pieces<T>(
    text: &str,
    cut_lines: &[usize],
    mut parse: impl FnMut(&str, bool) -> syn::Result<Vec<T>>,
) -> Option<Vec<T>> {
    if text.len() <= 2 * PIECE_BYTES {
        return None;
    }
    let cuts = line_starts(text.as_bytes(), cut_lines);
    if cuts.is_empty() {
        return None;
    }
    let mut items = Vec::new();
    let (mut from, mut lines) = (0, 0);
    let mut piece = String::new();
    for to in cuts.into_iter().chain(std::iter::once(text.len())) {
        piece.clear();
        piece.extend(std::iter::repeat_n('\n', lines));
        piece.push_str(&text[from..to]);
        items.extend(parse(&piece, from == 0).ok()?);
        lines += memchr::memchr_iter(b'\n', &text.as_bytes()[from..to]).count();
        from = to;
    }
    Some(items)
}

/// Where `text` may be cut into pieces of whole items of at least `every` bytes each: the starts of lines that
/// follow a `}` or `;` closing an item at the top level (nothing but blanks or a line comment after it), in
/// order. A piece parses like the same items in the whole text, once it sits on its own lines (a cut that does not
/// end an item leaves a piece that does not parse: its caller then parses the whole text).
pub fn top_level_cuts(text: &str, every: usize) -> Vec<usize> {
    scan(text, false, Some(every)).unwrap_or_default()
}

/// The bytes [`check_nesting`] looks at: brackets, `;`, angle brackets and the starts of comments and literals.
const NESTING_BYTES: [bool; 256] = {
    let mut t = [false; 256];
    let mut k = 0;
    let bytes = b"/\"'([{)]};<>";
    while k < bytes.len() {
        t[bytes[k] as usize] = true;
        k += 1;
    }
    t
};

/// The number of `#`s of the raw string whose opening quote is at `quote` (`r"` 0, `br##"` 2), or `None` when
/// the quote opens a plain string.
fn raw_string_quote(b: &[u8], quote: usize) -> Option<usize> {
    let hashes = b[..quote].iter().rev().take_while(|&&x| x == b'#').count();
    let r = quote.checked_sub(hashes + 1)?;
    (b[r] == b'r' && raw_prefix_starts(b, r)).then_some(hashes)
}

/// Whether the `r` at `i` starts a raw string (`r"`, `br"`, `cr"`), not an identifier ending in `r`.
fn raw_prefix_starts(b: &[u8], i: usize) -> bool {
    let before = |k: usize| i >= k && is_ident_byte(b[i - k]);
    !before(1) || (matches!(b[i - 1], b'b' | b'c') && !before(2))
}

fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The name an item declares, if it is one a path can name.
pub fn item_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Fn(f) => &f.sig.ident,
        syn::Item::Struct(s) => &s.ident,
        syn::Item::Enum(e) => &e.ident,
        syn::Item::Type(t) => &t.ident,
        syn::Item::Trait(t) => &t.ident,
        syn::Item::Const(c) => &c.ident,
        syn::Item::Static(s) => &s.ident,
        syn::Item::Union(u) => &u.ident,
        _ => return None,
    };
    Some(unraw(ident))
}

#[cfg(test)]
mod tests {
    use super::{MAX_NESTING, PIECE_BYTES, check_nesting, line_numbers, line_starts, parseable, top_level_cuts};

    #[test]
    fn cuts_are_found_in_the_nesting_pass_and_carried_as_lines() {
        let text = "struct A;\nstruct B { x: u8 }\n// c\nfn f() { g(); }\nconst C: u8 = 1;\nstruct D;\n";
        let cuts = top_level_cuts(text, 0);
        let lines = line_numbers(text.as_bytes(), &cuts);
        assert_eq!(lines, [1, 2, 4, 5]);
        assert_eq!(line_starts(text.as_bytes(), &lines), cuts, "lines back to the same offsets");
        // In a text of other line lengths, the starts of the same lines.
        let other = "struct A ;\n\nx\ny\nz\nw\n";
        assert_eq!(line_starts(other.as_bytes(), &lines), [11, 12, 16, 18]);
        assert_eq!(line_starts(b"a\nb", &[1, 5]), [2], "lines past the end are left out");
        // A small text is not cut; a large one is, where `top_level_cuts` cuts it.
        assert!(parseable(text).unwrap().cut_lines.is_empty());
        let large = "struct Filler;\n".repeat(PIECE_BYTES / 5);
        let want = line_numbers(large.as_bytes(), &top_level_cuts(&large, PIECE_BYTES));
        assert!(!want.is_empty());
        assert_eq!(parseable(&large).unwrap().cut_lines, want);
    }

    #[test]
    fn cuts_fall_after_items_at_the_top_level_only() {
        let text = concat!(
            "use a::b; // after\n",
            "struct A {\n    x: u8, // } ;\n}\n",
            "const S: &str = \"}\n;\";\n",
            "fn f() { let c = '}'; g(); }\n",
            "/* } ;\n */ impl A {\n    fn g() {}\n}\n",
            "const T: &str = r#\"\n}\"#;\n",
            "#[derive(Debug)]\nstruct B;",
        );
        let cut_lines: Vec<&str> = top_level_cuts(text, 0).iter().map(|&c| text[c..].lines().next().unwrap()).collect();
        assert_eq!(
            cut_lines,
            [
                "struct A {",
                "const S: &str = \"}",
                "fn f() { let c = '}'; g(); }",
                "/* } ;",
                "const T: &str = r#\"",
                "#[derive(Debug)]"
            ]
        );
        // Each piece is at least `every` bytes; the text's end is no cut.
        let cuts = top_level_cuts(text, 40);
        assert!(cuts.windows(2).all(|w| w[1] - w[0] >= 40) && cuts[0] >= 40, "{cuts:?}");
        assert!(top_level_cuts("struct A;\n", 0).is_empty());
        assert!(top_level_cuts("struct A { x: u8 }", 0).is_empty());
    }

    #[test]
    fn nesting_counts_brackets_and_generic_arguments() {
        let deep = |n: usize| format!("type T = {}u8{};", "Option<".repeat(n), ">".repeat(n));
        assert!(check_nesting(&deep(MAX_NESTING - 1)).is_ok());
        let e = check_nesting(&format!("\n{}", deep(MAX_NESTING + 1))).unwrap_err();
        assert!(e.starts_with("line 2: brackets and generic arguments nested deeper than 256 levels"), "{e}");
        assert!(check_nesting(&format!("fn f() {}{}", "{".repeat(300), "}".repeat(300))).is_err());
        assert!(check_nesting(&format!("const X: u8 = {}1{};", "(".repeat(300), ")".repeat(300))).is_err());
    }

    #[test]
    fn nesting_ignores_comments_literals_and_closed_levels() {
        let many = "(".repeat(400);
        for text in [
            format!("// {many}\nfn f() {{}}"),
            format!("/* /* {many} */ {many} */ fn f() {{}}"),
            format!("const S: &str = \"\\\" {many}\";"),
            format!("const S: &str = r#\"{many}\"#;"),
            format!("const S: &[u8] = br\"{many}\\\";"),
            format!("const S: &str = r##\"\"# {many}\"##;"),
            format!("const S: &str = \"{many}"),
            format!("const S: &str = \"{many}\\"),
            format!("const S: &CStr = cr\"{many}\"; const T: &str = \"r\";"),
            "fn f<'a>(x: &'a str) -> char { let _ = ('(', '\\'', '{'); 'x' }".repeat(400),
            "fn f(a: u8, b: u8) -> bool { a < b && b <= a }\n".repeat(400),
            "type A = Vec<Vec<u8>>; fn g() -> Vec<u8> { vec![] }\n".repeat(400),
        ] {
            assert!(check_nesting(&text).is_ok(), "{text}");
        }
    }
}
