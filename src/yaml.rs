//! The one place that reads and writes YAML: a block-style emitter with one output style, and a parser.
//!
//! Style: 2-space indent, sequences not indented under their key, keys in the order of the value
//! (serde_json maps are sorted), `---` before every document of a multi-document file, strings quoted
//! only when a plain scalar would change meaning, multi-line strings as literal blocks.

use serde_json::Value;

/// Renders one YAML document (no leading `---`).
pub fn to_string(value: &Value) -> String {
    let mut out = String::new();
    write_doc(&mut out, value);
    out
}

/// Renders several documents, each preceded by `---` (controller-gen's layout).
pub fn to_multi_doc_string(docs: &[Value]) -> String {
    let mut out = String::with_capacity(4096);
    for d in docs {
        out.push_str("---\n");
        write_doc(&mut out, d);
    }
    out
}

fn write_doc(out: &mut String, value: &Value) {
    match value {
        Value::Object(m) if !m.is_empty() => write_map(out, m, 0),
        Value::Array(a) if !a.is_empty() => write_seq(out, a, 0),
        scalar => {
            write_scalar(out, scalar, 0);
            out.push('\n');
        }
    }
}

/// Parses one YAML document into a JSON value.
pub fn from_str(text: &str) -> Result<Value, serde_yaml_ng::Error> {
    serde_yaml_ng::from_str(text)
}

/// Parses one YAML document into a typed value; the error holds the message and, when known, the 1-based line
/// and column it points at.
pub fn from_str_as<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, (String, Option<(usize, usize)>)> {
    serde_yaml_ng::from_str(text).map_err(|e| {
        let place = e.location().map(|l| (l.line(), l.column()));
        let message = e.to_string();
        // The message ends with the place it names; the caller says it as `file:line:column`.
        let message = match message.rfind(" at line ") {
            Some(i) if place.is_some() => message[..i].to_string(),
            _ => message,
        };
        (message, place)
    })
}

/// Parses every document of a multi-document YAML text, skipping empty ones.
pub fn from_multi_doc_str(text: &str) -> Result<Vec<Value>, serde_yaml_ng::Error> {
    let mut docs = Vec::new();
    for de in serde_yaml_ng::Deserializer::from_str(text) {
        let v: Value = serde::Deserialize::deserialize(de)?;
        if !v.is_null() {
            docs.push(v);
        }
    }
    Ok(docs)
}

fn indent(out: &mut String, mut n: usize) {
    const SPACES: &str = "                                                                ";
    while n > 0 {
        let k = n.min(SPACES.len());
        out.push_str(&SPACES[..k]);
        n -= k;
    }
}

fn is_block(v: &Value) -> bool {
    matches!(v, Value::Object(m) if !m.is_empty()) || matches!(v, Value::Array(a) if !a.is_empty())
}

fn write_map(out: &mut String, m: &serde_json::Map<String, Value>, ind: usize) {
    let mut first = true;
    for (k, v) in m {
        if !first {
            indent(out, ind);
        }
        first = false;
        write_entry(out, k, v, ind);
    }
}

/// YAML limits an implicit key (`key: value`) to 1024 characters, and libyaml (serde_yaml_ng's parser) counts them in
/// bytes; a longer one is written in the explicit form.
const MAX_IMPLICIT_KEY: usize = 1024;

/// Writes `key: value` assuming the cursor is already indented for this line.
fn write_entry(out: &mut String, k: &str, v: &Value, ind: usize) {
    let start = out.len();
    write_plain_or_quoted(out, k);
    if out.len() - start > MAX_IMPLICIT_KEY {
        let key = out.split_off(start);
        write_explicit_entry(out, &key, v, ind);
        return;
    }
    out.push(':');
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            indent(out, ind + 2);
            write_map(out, m, ind + 2);
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            indent(out, ind);
            write_seq(out, a, ind);
        }
        scalar => {
            out.push(' ');
            write_scalar(out, scalar, ind + 2);
            out.push('\n');
        }
    }
}

/// Writes `? key` then `: value` on the next line at the map's indentation, the cursor already indented.
fn write_explicit_entry(out: &mut String, key: &str, v: &Value, ind: usize) {
    out.push_str("? ");
    out.push_str(key);
    out.push('\n');
    indent(out, ind);
    out.push(':');
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            indent(out, ind + 2);
            write_map(out, m, ind + 2);
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            indent(out, ind + 2);
            write_seq(out, a, ind + 2);
        }
        scalar => {
            out.push(' ');
            write_scalar(out, scalar, ind + 2);
            out.push('\n');
        }
    }
}

fn write_seq(out: &mut String, a: &[Value], ind: usize) {
    let mut first = true;
    for item in a {
        if !first {
            indent(out, ind);
        }
        first = false;
        out.push_str("- ");
        match item {
            Value::Object(m) if !m.is_empty() => write_map(out, m, ind + 2),
            Value::Array(inner) if !inner.is_empty() => write_seq(out, inner, ind + 2),
            scalar => {
                write_scalar(out, scalar, ind + 2);
                out.push('\n');
            }
        }
    }
    debug_assert!(a.iter().all(|v| !is_block(v) || !v.is_null()));
}

fn write_scalar(out: &mut String, v: &Value, ind: usize) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => write_string(out, s, ind),
        Value::Object(_) => out.push_str("{}"),
        Value::Array(_) => out.push_str("[]"),
    }
}

fn write_string(out: &mut String, s: &str, ind: usize) {
    // A document that is one string has no indentation for a literal block's lines, and libyaml reads a line at
    // column 0 that starts with an indicator (`*`, `&`, `!`, `%`, `---`) as that token: quote it instead.
    if s.contains('\n') && literal_block_ok(s) && ind > 0 {
        let chomp = if s.ends_with("\n\n") {
            "+"
        } else if s.ends_with('\n') {
            ""
        } else {
            "-"
        };
        let body = s.strip_suffix('\n').unwrap_or(s);
        out.push('|');
        if body.starts_with(' ') {
            out.push('2');
        }
        out.push_str(chomp);
        for line in body.split('\n') {
            out.push('\n');
            if !line.is_empty() {
                indent(out, ind);
                out.push_str(line);
            }
        }
        return;
    }
    write_plain_or_quoted(out, s);
}

fn literal_block_ok(s: &str) -> bool {
    s.chars().all(|c| c == '\n' || printable(c))
        && !s.split('\n').any(|l| l.ends_with(' ') || l.ends_with('\t'))
        && !s.starts_with('\n')
}

/// Returns the string as a plain scalar when that reads back as the same string, else quoted.
pub fn plain_or_quoted(s: &str) -> String {
    let mut out = String::new();
    write_plain_or_quoted(&mut out, s);
    out
}

fn write_plain_or_quoted(out: &mut String, s: &str) {
    if s.is_empty() || needs_double_quotes(s) {
        write_double_quoted(out, s);
    } else if needs_quotes(s) {
        out.push('\'');
        for (i, part) in s.split('\'').enumerate() {
            if i > 0 {
                out.push_str("''");
            }
            out.push_str(part);
        }
        out.push('\'');
    } else {
        out.push_str(s);
    }
}

fn needs_double_quotes(s: &str) -> bool {
    // Most scalars are printable ASCII, told in one pass over the bytes.
    !s.bytes().all(|b| (0x20..0x7f).contains(&b)) && s.chars().any(|c| !printable(c))
}

/// Whether YAML reads `c` as itself in a plain, single-quoted or literal scalar: its printable set (no C0/C1
/// control, DEL, BOM, U+FFFE/U+FFFF) minus the characters YAML 1.1 takes for line breaks (NEL, U+2028, U+2029).
fn printable(c: char) -> bool {
    matches!(c, '\u{20}'..='\u{7E}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
        && !matches!(c, '\u{FEFF}' | '\u{2028}' | '\u{2029}')
}

/// A double-quoted scalar: the escapes JSON uses below U+0020 (the same bytes serde_json writes), and `\u`
/// escapes for every other character YAML does not take as itself (JSON leaves DEL, C1 controls and U+2028 raw, which
/// YAML rejects or reads as a line break).
fn write_double_quoted(out: &mut String, s: &str) {
    use std::fmt::Write as _;
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if printable(c) => out.push(c),
            // Every character above U+FFFF is printable.
            c => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
        }
    }
    out.push('"');
}

fn needs_quotes(s: &str) -> bool {
    if s.is_empty() || s.trim() != s {
        return true;
    }
    const RESERVED: &[&str] =
        &["true", "false", "yes", "no", "on", "off", "y", "n", "null", "~", ".inf", "-.inf", "+.inf", ".nan"];
    if RESERVED.iter().any(|r| r.eq_ignore_ascii_case(s)) || looks_numeric(s) || looks_timestamp(s) {
        return true;
    }
    let first = s.chars().next().unwrap_or(' ');
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) {
        // "-" alone or "- x" is a sequence; "-x" is plain, but keep it simple and quote every indicator start
        // except a minus followed by a non-space that is not a number (e.g. `--leader-elect`).
        let plain_dash = first == '-' && s.len() > 1 && !s[1..].starts_with(' ') && !looks_numeric(s);
        if !plain_dash {
            return true;
        }
    }
    // `: ` starts a mapping value and ` #` a comment: both found in one pass.
    let b = s.as_bytes();
    b.ends_with(b":")
        || memchr::memchr2_iter(b':', b'#', b)
            .any(|i| if b[i] == b':' { b.get(i + 1) == Some(&b' ') } else { i > 0 && b[i - 1] == b' ' })
}

/// YAML 1.1 timestamps (`2001-12-14`, `2001-12-14T21:59:43Z`) read back as dates, not strings.
fn looks_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 8
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5].is_ascii_digit()
        && s[5..].split_once('-').is_some_and(|(m, rest)| {
            m.len() <= 2
                && m.bytes().all(|c| c.is_ascii_digit())
                && rest.bytes().next().is_some_and(|c| c.is_ascii_digit())
        })
}

fn looks_numeric(s: &str) -> bool {
    let t = s.strip_prefix(['+', '-']).unwrap_or(s);
    if t.is_empty() {
        return false;
    }
    // Everything below starts with a digit or `.`, or is f64's `inf`/`infinity`/`nan` (any case).
    if !matches!(t.as_bytes()[0], b'0'..=b'9' | b'.' | b'i' | b'I' | b'n' | b'N') {
        return false;
    }
    // `0x`, `0o` and `0b` (binary, which serde_yaml's resolver reads too) integers.
    if t.parse::<f64>().is_ok() || t.starts_with("0x") || t.starts_with("0o") || t.starts_with("0b") {
        return true;
    }
    // YAML 1.1 sexagesimal and digit groups (1:20, 1_000) also resolve to numbers.
    let number_like = t.bytes().all(|b| b.is_ascii_digit() || b == b':' || b == b'_' || b == b'.');
    number_like && t.as_bytes()[0].is_ascii_digit() && (t.contains(':') || t.contains('_'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(v: Value) {
        let text = to_string(&v);
        assert_eq!(from_str(&text).unwrap(), v, "yaml was:\n{text}");
    }

    #[test]
    fn colons_and_hashes_are_quoted_where_yaml_reads_them() {
        let old = |s: &str| s.contains(": ") || s.contains(" #") || s.ends_with(':');
        let pieces = ["a", ":", "#", " ", ": ", " #", "::", "##", "é", "x:y", "x#y"];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let s = format!("z{a}{b}{c}");
                    let quoted = to_string(&json!(s)).starts_with('\'');
                    assert_eq!(quoted, old(&s) || s.trim() != s, "{s:?}");
                    round_trip(json!({ s.clone(): s }));
                }
            }
        }
    }

    /// Found by the `yaml_roundtrip` fuzz target: DEL in a key (`"\u{1a}\u{1a}\u{7f}"`) was written raw inside
    /// double quotes, which YAML rejects ("control characters are not allowed"); so were C1 controls, and NEL,
    /// U+2028/U+2029 and BOM/U+FFFE were written plain, where YAML reads a line break or refuses them.
    #[test]
    fn fuzz_non_printable_characters_round_trip() {
        for c in [
            '\u{7f}', '\u{80}', '\u{85}', '\u{9f}', '\u{a0}', '\u{2028}', '\u{2029}', '\u{feff}', '\u{fffe}',
            '\u{ffff}',
        ] {
            for s in [format!("{c}"), format!("a{c}b"), format!("line one\nline{c}two\n"), format!("\u{1a}\u{1a}{c}")] {
                round_trip(json!({ s.clone(): s.clone(), "list": [s.clone(), {"k": s.clone()}] }));
            }
        }
        assert_eq!(to_string(&json!("a\u{7f}\u{1a}")), "\"a\\u007f\\u001a\"\n");
        assert_eq!(to_string(&json!("tab\there")), "\"tab\\there\"\n");
    }

    /// Found by the `project` fuzz target: a key of more than 1024 characters (tabs, escaped to `\t`) was written
    /// as an implicit key, which YAML limits to 1024 characters, so the output did not parse back.
    #[test]
    fn fuzz_keys_longer_than_1024_characters_round_trip() {
        for key in ["\t".repeat(600), "k".repeat(1025), "é".repeat(1100), "k".repeat(1024)] {
            let v = json!({
                key.clone(): "scalar",
                "nested": { key.clone(): { "a": 1, key.clone(): [1, {key.clone(): null}] } },
                "list": [{ key.clone(): ["x", "y"], "b": true }, { "c": { key.clone(): {} } }],
            });
            round_trip(v);
        }
        let text = to_string(&json!({ "k".repeat(1025): "v" }));
        assert!(text.starts_with("? kkk") && text.ends_with("\n: v\n"), "{text}");
        assert!(to_string(&json!({ "k".repeat(1024): "v" })).ends_with("k: v\n"));
    }

    #[test]
    fn block_style_with_unindented_sequences() {
        let v =
            json!({"rules": [{"apiGroups": [""], "verbs": ["get", "*"]}], "metadata": {"name": "x"}, "e": {}, "l": []});
        assert_eq!(
            to_string(&v),
            "e: {}\nl: []\nmetadata:\n  name: x\nrules:\n- apiGroups:\n  - \"\"\n  verbs:\n  - get\n  - '*'\n"
        );
        round_trip(v);
    }

    #[test]
    fn ambiguous_strings_are_quoted() {
        assert_eq!(to_string(&json!("")), "\"\"\n");
        for s in [
            "true",
            "Yes",
            "null",
            "1.0",
            "0.5",
            "1:20",
            " x",
            "a: b",
            "#c",
            "x #y",
            "@a",
            "- a",
            "-",
            "10",
            "2022-11-08T17:26:37Z",
            "2022-1-8",
        ] {
            round_trip(json!({ "k": s }));
            assert!(to_string(&json!(s)).starts_with('\''), "{s}");
        }
        assert_eq!(to_string(&json!("--leader-elect")), "--leader-elect\n");
        assert_eq!(to_string(&json!("it's")), "it's\n");
        round_trip(json!({"k": "tab\there", "bell": "\u{7}"}));
    }

    #[test]
    fn multi_line_strings_are_literal_blocks() {
        let v = json!({"d": {"description": "line one\nline two"}, "t": "a\n", "u": "  lead\nx", "w": "trail \nx"});
        let text = to_string(&v);
        assert!(text.contains("description: |-\n    line one\n    line two\n"), "{text}");
        round_trip(v);
        round_trip(json!(["a\n\nb", "x\n\n"]));
    }

    #[test]
    fn binary_integer_lookalikes_are_quoted() {
        // Found by the yaml_roundtrip fuzz target: serde_yaml reads a plain `0b1111` as the integer 15.
        for s in ["0b1111111111111", "-0b101", "+0b1"] {
            let v = serde_json::json!({ "k": s });
            let text = to_string(&v);
            assert!(text.contains(&format!("'{s}'")), "{text}");
            assert_eq!(from_str(&text).unwrap(), v);
        }
    }

    /// Found by `cargo xtask fuzz yaml_roundtrip`: a document that is one multi-line string whose line starts with an
    /// indicator was emitted as a literal block at column 0, which libyaml reads as an alias.
    #[test]
    fn a_document_that_is_a_multi_line_string_is_quoted() {
        for s in ["*\n", "x\n*", "&a\n!b\n%c", "---\nx", "plain\ntext"] {
            let text = to_string(&json!(s));
            assert!(text.starts_with('"'), "{text}");
            round_trip(json!(s));
            assert_eq!(from_multi_doc_str(&to_multi_doc_string(&[json!(s), json!(s)])).unwrap(), [json!(s), json!(s)]);
        }
    }

    #[test]
    fn nested_sequences_and_numbers() {
        let v = json!({"a": [[1, 2], [], {"x": 1.5}], "n": -3, "f": 0.0});
        round_trip(v);
    }

    #[test]
    fn multi_documents() {
        let docs = vec![json!({"a": 1}), json!({"b": 2})];
        let text = to_multi_doc_string(&docs);
        assert_eq!(text, "---\na: 1\n---\nb: 2\n");
        assert_eq!(from_multi_doc_str(&text).unwrap(), docs);
    }
}

#[cfg(test)]
mod long_key_tests {
    use super::*;

    /// Keys around YAML's 1024-character limit on implicit keys, plain, quoted with escapes, with multi-byte
    /// characters, at the top and nested: every one reads back (a fuzz finding: a quoted key with `Ѐ`).
    #[test]
    fn keys_near_the_implicit_key_limit_read_back() {
        for len in 1000..1040 {
            for filler in ["a", "\u{1f}", "Ѐ", "aЀ\u{7}"] {
                let mut key: String = filler.repeat(len / filler.chars().count() + 1).chars().take(len).collect();
                key.push('x');
                for value in [serde_json::json!({ key.clone(): null }), serde_json::json!({"a": { key.clone(): 1 }})] {
                    let text = to_string(&value);
                    let back = from_str(&text).unwrap_or_else(|e| panic!("{len} {filler:?}: {e}\n{text}"));
                    assert_eq!(back, value, "{len} {filler:?}");
                }
            }
        }
    }
}
