//! Rust text for the generated items: doc comments schemars reads back exactly, markers, serde and schemars
//! attributes, and schema functions as `json_schema!` literals.

use std::fmt::Write;

use serde_json::Value;

use super::shape::{Field, Item, Struct};

/// The derives of every generated type but the spec.
pub const DERIVES: &str = "#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]";

/// Doc lines for `text` (each with `indent`), or a `#[schemars(description)]` attribute when a doc comment
/// would not give `text` back (schemars trims it, makes a leading `#` line a title; the marker scanner reads
/// `///` lines starting with `+`; rustfmt drops trailing spaces) or would hold a code block (a doctest).
pub fn doc(out: &mut String, indent: &str, text: &str) {
    let trimmed = text.trim_matches(|c: char| c.is_ascii_whitespace());
    // rustdoc would run an indented or fenced block as a doctest
    let code_block = text.contains("```")
        || text.contains("~~~")
        || text.lines().any(|l| l.starts_with("    ") || l.starts_with('\t'));
    let doc_safe = !text.is_empty()
        && trimmed == text
        && !text.starts_with('#')
        && !text.contains('\r')
        && !code_block
        && text.lines().all(|l| !l.trim_start().starts_with('+') && l.trim_end() == l);
    if doc_safe {
        for line in text.split('\n') {
            if line.is_empty() {
                let _ = writeln!(out, "{indent}///");
            } else {
                let _ = writeln!(out, "{indent}/// {line}");
            }
        }
    } else {
        let _ = writeln!(out, "{indent}#[schemars(description = {})]", rust_str(text));
    }
}

/// A Rust string literal for `s`.
pub fn rust_str(s: &str) -> String {
    format!("{s:?}")
}

fn markers(out: &mut String, indent: &str, markers: &[String]) {
    for m in markers {
        let _ = writeln!(out, "{indent}// {m}");
    }
}

/// A struct other than the spec (`attrs`: lines the spec puts between its markers and the derive).
pub fn write_struct(out: &mut String, s: &Struct, head: &[String]) {
    markers(out, "", &s.markers);
    if let Some(d) = &s.doc {
        doc(out, "", d);
    }
    if head.is_empty() {
        let _ = writeln!(out, "{DERIVES}");
    }
    for line in head {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "#[serde(rename_all = \"camelCase\")]");
    if s.fields.is_empty() {
        let _ = writeln!(out, "pub struct {} {{}}", s.name);
        return;
    }
    let _ = writeln!(out, "pub struct {} {{", s.name);
    for f in &s.fields {
        write_field(out, f);
    }
    let _ = writeln!(out, "}}");
}

fn write_field(out: &mut String, f: &Field) {
    if let Some(d) = &f.doc {
        doc(out, "    ", d);
    }
    markers(out, "    ", &f.markers);
    let mut serde = Vec::new();
    if let Some(r) = &f.rename {
        serde.push(format!("rename = {}", rust_str(r)));
    }
    serde.extend(f.serde.clone());
    if !serde.is_empty() {
        let _ = writeln!(out, "    #[serde({})]", serde.join(", "));
    }
    if let Some(s) = &f.schemars {
        let _ = writeln!(out, "    #[schemars({s})]");
    }
    let _ = writeln!(out, "    pub {}: {},", f.ident, f.ty);
}

pub fn write_item(out: &mut String, item: &Item) {
    match item {
        Item::Struct(s) => write_struct(out, s, &[]),
        Item::Newtype { name, doc: d, markers: m, inner, schema_fn } => {
            markers(out, "", m);
            if let Some(d) = d {
                doc(out, "", d);
            }
            let _ = writeln!(out, "{DERIVES}");
            if let Some(f) = schema_fn {
                let _ = writeln!(out, "#[schemars(schema_with = \"{f}\")]");
            }
            let _ = writeln!(out, "pub struct {name}(pub {inner});");
        }
        Item::SchemaFn { name, schema } => {
            let _ = writeln!(out, "fn {name}(_: &mut schemars::SchemaGenerator) -> schemars::Schema {{");
            let _ = write!(out, "    schemars::json_schema!(");
            json_tokens(out, schema, 1);
            let _ = writeln!(out, ")\n}}");
        }
    }
}

/// `value` as tokens `json!`/`json_schema!` read back (strings as Rust literals).
fn json_tokens(out: &mut String, value: &Value, depth: usize) {
    let pad = "    ".repeat(depth + 1);
    let close = "    ".repeat(depth);
    match value {
        Value::Object(o) if !o.is_empty() => {
            out.push_str("{\n");
            for (i, (k, v)) in o.iter().enumerate() {
                let _ = write!(out, "{pad}{}: ", rust_str(k));
                json_tokens(out, v, depth + 1);
                out.push_str(if i + 1 < o.len() { ",\n" } else { "\n" });
            }
            let _ = write!(out, "{close}}}");
        }
        Value::Array(a) if !a.is_empty() => {
            out.push_str("[\n");
            for (i, v) in a.iter().enumerate() {
                out.push_str(&pad);
                json_tokens(out, v, depth + 1);
                out.push_str(if i + 1 < a.len() { ",\n" } else { "\n" });
            }
            let _ = write!(out, "{close}]");
        }
        Value::Object(_) => out.push_str("{}"),
        Value::Array(_) => out.push_str("[]"),
        Value::String(s) => out.push_str(&rust_str(s)),
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_schemars_reads_back_are_comments() {
        let mut out = String::new();
        doc(&mut out, "", "Size is the size.\n\n  Indented.");
        assert_eq!(out, "/// Size is the size.\n///\n///   Indented.\n");
        for text in ["# Title", " leading", "+optional", "trailing \nx"] {
            let mut out = String::new();
            doc(&mut out, "", text);
            assert!(out.starts_with("#[schemars(description = "), "{text}: {out}");
        }
    }

    #[test]
    fn schema_fn_is_a_json_schema_literal() {
        let mut out = String::new();
        let schema = serde_json::json!({"oneOf": [{"required": ["a"]}], "type": "object", "x": "q\"\u{1}"});
        write_item(&mut out, &Item::SchemaFn { name: "f".into(), schema });
        assert_eq!(
            out,
            "fn f(_: &mut schemars::SchemaGenerator) -> schemars::Schema {\n    schemars::json_schema!({\n        \
             \"oneOf\": [\n            {\n                \"required\": [\n                    \"a\"\n                \
             ]\n            }\n        ],\n        \"type\": \"object\",\n        \"x\": \"q\\\"\\u{1}\"\n    })\n}\n"
        );
    }
}
