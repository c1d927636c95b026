//! The marker reference rendered from [`registry()`](super::registry): text, Markdown (`docs/markers.md`), JSON.

use std::fmt::Write as _;

use super::registry::{ArgType, MarkerDef, Section};

/// The guide that opens the Markdown reference (placement rules, application order, CRD size).
const GUIDE: &str = include_str!("guide.md");

/// `defs` grouped by section, each section in definition order.
fn by_section<'a>(defs: &[&'a MarkerDef]) -> Vec<(Section, Vec<&'a MarkerDef>)> {
    Section::ALL
        .iter()
        .map(|&s| (s, defs.iter().copied().filter(|d| d.section == s).collect::<Vec<_>>()))
        .filter(|(_, d)| !d.is_empty())
        .collect()
}

/// `+name`, `+name=<type>` or `+name[=<bool>]`: the marker's usage when it takes no named arguments, else its name.
fn heading(def: &MarkerDef) -> String {
    if def.args.is_empty() || def.is_anonymous() || def.open_suffix {
        def.usage()
    } else {
        format!("+{}:…", def.name)
    }
}

fn named_args(def: &MarkerDef) -> bool {
    !def.args.is_empty() && !def.is_anonymous() && !def.open_suffix
}

/// One line per marker with its arguments below it.
pub fn text(defs: &[&MarkerDef]) -> String {
    let mut out = String::new();
    for (i, (section, defs)) in by_section(defs).into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "{}", section.title().replace('`', ""));
        for def in defs {
            let _ = writeln!(out, "  {}  ({})", heading(def), def.target.as_str());
            let _ = writeln!(out, "      {}", def.doc);
            if named_args(def) {
                let width = def.args.iter().map(|a| a.name.len()).max().unwrap_or(0);
                for a in &def.args {
                    let ty = if a.required { format!("{}, required", a.ty.describe()) } else { a.ty.describe() };
                    let _ = writeln!(out, "      {:<width$}  {ty}: {}", a.name, a.doc);
                }
            }
            if !def.example.is_empty() {
                let _ = writeln!(out, "      e.g. {}", def.example);
            }
        }
    }
    out
}

/// `text` as a Markdown code span, whatever backquotes it holds.
fn code(text: &str) -> String {
    let text = text.replace('|', "\\|");
    if text.contains('`') { format!("`` {text} ``") } else { format!("`{text}`") }
}

/// A table cell: pipes escaped.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The whole reference (`docs/markers.md`) when `guide`, else only the sections of `defs`.
pub fn markdown(defs: &[&MarkerDef], guide: bool) -> String {
    let mut out = String::new();
    if guide {
        out.push_str(GUIDE);
    }
    for (section, defs) in by_section(defs) {
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = writeln!(out, "## {}\n\n{}\n", section.title(), section.intro());
        out.push_str("| marker | on | effect | example |\n|---|---|---|---|\n");
        for def in &defs {
            let example = if def.example.is_empty() { String::new() } else { code(&def.example) };
            let _ =
                writeln!(out, "| {} | {} | {} | {example} |", code(&heading(def)), def.target.as_str(), cell(&def.doc));
        }
        for def in defs.iter().filter(|d| named_args(d)) {
            let _ = writeln!(out, "\nArguments of `+{}`:\n", def.name);
            out.push_str("| argument | type | required | meaning |\n|---|---|---|---|\n");
            for a in &def.args {
                let _ = writeln!(
                    out,
                    "| `{}` | {} | {} | {} |",
                    a.name,
                    cell(&a.ty.describe()),
                    if a.required { "yes" } else { "no" },
                    cell(a.doc)
                );
            }
        }
    }
    out
}

/// Every marker as a JSON array (pretty, with a final newline).
pub fn json(defs: &[&MarkerDef]) -> String {
    let markers: Vec<serde_json::Value> = by_section(defs)
        .into_iter()
        .flat_map(|(_, defs)| defs)
        .map(|def| {
            let args: Vec<serde_json::Value> = def
                .args
                .iter()
                .map(|a| {
                    let mut arg = serde_json::json!({
                        "name": a.name,
                        "type": match a.ty { ArgType::OneOf(_) => "one of".to_string(), ty => ty.describe() },
                        "required": a.required,
                        "description": a.doc,
                    });
                    if let ArgType::OneOf(words) = a.ty {
                        arg["values"] = serde_json::json!(words);
                    }
                    arg
                })
                .collect();
            serde_json::json!({
                "name": def.name,
                "section": def.section.key(),
                "target": def.target.as_str(),
                "usage": def.usage(),
                "description": def.doc,
                "arguments": args,
                "example": def.example,
            })
        })
        .collect();
    let mut out = serde_json::to_string_pretty(&markers).unwrap_or_default();
    out.push('\n');
    out
}
