//! The API reference page in AsciiDoc: `[[id]]` anchors, `<<id,Name>>` cross references, `|===` tables with `|`
//! escaped, literal monospace (`` `+text+` ``) for names, types and rules.

use std::fmt::Write;

use super::model::{Check, Column, Field, GroupVersion, Kind, Page, Part, TypeDoc};

/// Text of a cell or paragraph: `|` escaped, lines joined in cells (a blank line would end the cell's paragraph).
fn prose(text: &str, cell: bool) -> String {
    let text = text.replace('|', "\\|");
    if cell { text.split_whitespace().collect::<Vec<_>>().join(" ") } else { text.trim().to_string() }
}

/// Literal monospace: no markup inside, `|` escaped.
fn code(text: &str) -> String {
    let text = text.replace('\n', " ").replace('|', "\\|");
    if text.contains("+`") || text.ends_with('+') {
        format!("`pass:[{}]`", text.replace(']', "\\]"))
    } else {
        format!("`+{text}+`")
    }
}

/// One table row, a cell a line (`|` alone for an empty one).
fn row(out: &mut String, cells: &[String]) {
    for c in cells {
        if c.is_empty() {
            out.push_str("|\n");
        } else {
            writeln!(out, "| {c}").ok();
        }
    }
}

fn type_cell(parts: &[Part]) -> String {
    parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => code(t),
            Part::Local(name, anchor) => format!("<<{anchor},{name}>>"),
            Part::External(name, url) => format!("{url}[{name}]"),
        })
        .collect()
}

fn check(c: &Check) -> String {
    let mut out = c.label.clone();
    if !c.values.is_empty() {
        out.push_str(": ");
        out.push_str(&c.values.iter().map(|v| code(v)).collect::<Vec<_>>().join(", "));
    }
    if let Some(m) = &c.message {
        write!(out, " — {}", prose(m, true)).ok();
    }
    out
}

fn fields_table(out: &mut String, fields: &[Field]) {
    if fields.is_empty() {
        out.push_str("No fields.\n\n");
        return;
    }
    out.push_str("[cols=\"2,2,1,1,3,4\",options=\"header\"]\n|===\n| Field | Type | Required | Default | Validation | Description\n");
    for f in fields {
        let checks: Vec<String> = f.checks.iter().map(check).collect();
        out.push('\n');
        row(
            out,
            &[
                code(&f.name),
                type_cell(&f.ty),
                if f.required { "required" } else { "optional" }.to_string(),
                f.default.as_deref().map(code).unwrap_or_default(),
                checks.join(" +\n"),
                prose(&f.description, true),
            ],
        );
    }
    out.push_str("|===\n\n");
}

fn checks_list(out: &mut String, checks: &[Check]) {
    if checks.is_empty() {
        return;
    }
    out.push_str("Validation:\n\n");
    for c in checks {
        writeln!(out, "* {}", check(c)).ok();
    }
    out.push('\n');
}

fn columns_table(out: &mut String, columns: &[Column]) {
    if columns.is_empty() {
        return;
    }
    out.push_str(
        "Printer columns (`kubectl get`):\n\n[options=\"header\"]\n|===\n| Name | Type | JSON path | Description\n",
    );
    for c in columns {
        let name = if c.priority > 0 { format!("{} (wide)", c.name) } else { c.name.clone() };
        out.push('\n');
        row(out, &[prose(&name, true), code(&c.ty), code(&c.json_path), prose(&c.description, true)]);
    }
    out.push_str("|===\n\n");
}

fn kind(out: &mut String, gv: &GroupVersion, k: &Kind) {
    writeln!(out, "[[{}]]\n=== {}\n", k.anchor, k.name).ok();
    if !k.description.is_empty() {
        writeln!(out, "{}\n", prose(&k.description, false)).ok();
    }
    let api_version = if gv.group.is_empty() { gv.version.clone() } else { format!("{}/{}", gv.group, gv.version) };
    writeln!(out, "* API version: {}", code(&api_version)).ok();
    writeln!(out, "* Scope: {}", k.scope).ok();
    writeln!(out, "* Plural: {}, singular: {}", code(&k.plural), code(&k.singular)).ok();
    if !k.short_names.is_empty() {
        writeln!(out, "* Short names: {}", k.short_names.iter().map(|s| code(s)).collect::<Vec<_>>().join(", ")).ok();
    }
    if !k.categories.is_empty() {
        writeln!(out, "* Categories: {}", k.categories.iter().map(|s| code(s)).collect::<Vec<_>>().join(", ")).ok();
    }
    let mut state = vec![if k.served { "served" } else { "not served" }];
    if k.storage {
        state.push("storage version");
    }
    writeln!(out, "* This version: {}", state.join(", ")).ok();
    if let Some(warning) = &k.deprecated {
        match warning {
            Some(w) => writeln!(out, "* *Deprecated*: {}", prose(w, true)).ok(),
            None => writeln!(out, "* *Deprecated*").ok(),
        };
    }
    if !k.other_versions.is_empty() {
        writeln!(out, "* Other versions: {}", k.other_versions.join("; ")).ok();
    }
    if !k.subresources.is_empty() {
        writeln!(out, "* Subresources: {}", k.subresources.join(", ")).ok();
    }
    out.push('\n');
    columns_table(out, &k.columns);
    checks_list(out, &k.checks);
    fields_table(out, &k.fields);
}

fn type_doc(out: &mut String, t: &TypeDoc) {
    writeln!(out, "[[{}]]\n==== {}\n", t.anchor, t.name).ok();
    if let Some(url) = &t.builtin_url {
        writeln!(out, "A Kubernetes type: see {url}[{} in the Kubernetes API reference].\n", t.name).ok();
    } else if t.builtin {
        writeln!(out, "A Kubernetes type.\n").ok();
    }
    if !t.description.is_empty() {
        writeln!(out, "{}\n", prose(&t.description, false)).ok();
    }
    let appears: Vec<String> = t.appears_in.iter().map(|(n, a)| format!("<<{a},{n}>>")).collect();
    writeln!(out, "Appears in: {}\n", appears.join(", ")).ok();
    checks_list(out, &t.checks);
    fields_table(out, &t.fields);
}

/// The whole page.
pub fn render(page: &Page) -> String {
    let mut out = String::from(
        "= API Reference\n\n// Generated by `kubesmith make docs` from the project's CRDs; do not edit.\n\n",
    );
    if page.groups.is_empty() {
        out.push_str("The project defines no kinds yet.\n");
        return out;
    }
    out.push_str("== Packages\n\n");
    for gv in &page.groups {
        let kinds: Vec<String> = gv.kinds.iter().map(|k| format!("<<{},{}>>", k.anchor, k.name)).collect();
        writeln!(out, "* <<{},{}/{}>>: {}", gv.anchor, gv.group, gv.version, kinds.join(", ")).ok();
    }
    out.push('\n');
    for gv in &page.groups {
        writeln!(out, "[[{}]]\n== {}/{}\n", gv.anchor, gv.group, gv.version).ok();
        for k in &gv.kinds {
            kind(&mut out, gv, k);
        }
        for t in &gv.types {
            type_doc(&mut out, t);
        }
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}
