//! The API reference page in (GitHub-flavoured) Markdown: HTML anchors before headings, field tables with `|` and
//! line breaks escaped, code spans that hold any text.

use std::fmt::Write;

use super::model::{Check, Column, Field, GroupVersion, Kind, Markup, Page, Part, TypeDoc};

/// Text of a table cell or paragraph: `<`, `>` and `&` escaped outside code spans (doc comments' `Vec<T>` is no
/// HTML), `|` escaped everywhere (GFM splits cells on it, code spans included), newlines as `<br>` in cells.
fn prose(text: &str, cell: bool) -> String {
    let mut out = String::new();
    for (i, piece) in text.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i % 2 == 1 {
            out.push_str(&piece.replace('|', "\\|"));
            continue;
        }
        for c in piece.chars() {
            match c {
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                '&' => out.push_str("&amp;"),
                '|' => out.push_str("\\|"),
                _ => out.push(c),
            }
        }
    }
    // An odd number of backticks leaves a dangling one: escape it so it opens no span.
    if text.matches('`').count() % 2 == 1
        && let Some(at) = out.rfind('`')
    {
        out.replace_range(at..at + 1, "\\`");
    }
    if cell { cell_lines(&out) } else { out }
}

fn cell_lines(text: &str) -> String {
    let trimmed = text.trim();
    let mut out = String::new();
    for (i, line) in trimmed.lines().enumerate() {
        if i > 0 {
            out.push_str("<br>");
        }
        out.push_str(line.trim_end());
    }
    out
}

/// A code span holding `text` whatever backticks it has (a longer fence, padded), `|` escaped for tables.
fn code(text: &str) -> String {
    let text = text.replace('\n', " ").replace('|', "\\|");
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    if longest > 0 || text.starts_with(' ') || text.ends_with(' ') {
        format!("{fence} {text} {fence}")
    } else {
        format!("{fence}{text}{fence}")
    }
}

fn link(text: &str, target: &str) -> String {
    format!("[{}]({target})", text.replace('[', "\\[").replace(']', "\\]"))
}

fn type_cell(parts: &[Part]) -> String {
    parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => code(t),
            Part::Local(name, anchor) => link(name, &format!("#{anchor}")),
            Part::External(name, url) => link(name, url),
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

fn checks_cell(checks: &[Check]) -> String {
    checks.iter().map(check).collect::<Vec<_>>().join("<br>")
}

fn fields_table(out: &mut String, fields: &[Field]) {
    if fields.is_empty() {
        out.push_str("No fields.\n\n");
        return;
    }
    out.push_str("| Field | Type | Required | Default | Validation | Description |\n");
    out.push_str("| --- | --- | --- | --- | --- | --- |\n");
    for f in fields {
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            code(&f.name),
            type_cell(&f.ty),
            if f.required { "required" } else { "optional" },
            f.default.as_deref().map(code).unwrap_or_default(),
            checks_cell(&f.checks),
            prose(&f.description, true)
        )
        .ok();
    }
    out.push('\n');
}

fn checks_list(out: &mut String, checks: &[Check]) {
    if checks.is_empty() {
        return;
    }
    out.push_str("Validation:\n\n");
    for c in checks {
        writeln!(out, "- {}", check(c)).ok();
    }
    out.push('\n');
}

fn anchor(out: &mut String, id: &str) {
    writeln!(out, "<a id=\"{id}\"></a>\n").ok();
}

fn columns_table(out: &mut String, columns: &[Column]) {
    if columns.is_empty() {
        return;
    }
    out.push_str(
        "Printer columns (`kubectl get`):\n\n| Name | Type | JSON path | Description |\n| --- | --- | --- | --- |\n",
    );
    for c in columns {
        let name = if c.priority > 0 { format!("{} (wide)", c.name) } else { c.name.clone() };
        writeln!(
            out,
            "| {} | {} | {} | {} |",
            prose(&name, true),
            code(&c.ty),
            code(&c.json_path),
            prose(&c.description, true)
        )
        .ok();
    }
    out.push('\n');
}

fn kind(out: &mut String, gv: &GroupVersion, k: &Kind) {
    anchor(out, &k.anchor);
    writeln!(out, "### {}\n", k.name).ok();
    if !k.description.is_empty() {
        writeln!(out, "{}\n", prose(&k.description, false)).ok();
    }
    let markup = Markup { code, prose, strong: "**" };
    for fact in k.facts(gv, &markup) {
        writeln!(out, "- {fact}").ok();
    }
    out.push('\n');
    columns_table(out, &k.columns);
    checks_list(out, &k.checks);
    fields_table(out, &k.fields);
}

fn type_doc(out: &mut String, t: &TypeDoc) {
    anchor(out, &t.anchor);
    writeln!(out, "#### {}\n", t.name).ok();
    if let Some(url) = &t.builtin_url {
        writeln!(
            out,
            "A Kubernetes type: see {}.\n",
            link(&format!("{} in the Kubernetes API reference", t.name), url)
        )
        .ok();
    } else if t.builtin {
        writeln!(out, "A Kubernetes type.\n").ok();
    }
    if !t.description.is_empty() {
        writeln!(out, "{}\n", prose(&t.description, false)).ok();
    }
    let appears: Vec<String> = t.appears_in.iter().map(|(n, a)| link(n, &format!("#{a}"))).collect();
    writeln!(out, "Appears in: {}\n", appears.join(", ")).ok();
    checks_list(out, &t.checks);
    fields_table(out, &t.fields);
}

/// The whole page.
pub fn render(page: &Page) -> String {
    let mut out = String::from(
        "# API Reference\n\n<!-- Generated by `kubesmith make docs` from the project's CRDs; do not edit. -->\n\n",
    );
    if page.groups.is_empty() {
        out.push_str("The project defines no kinds yet.\n");
        return out;
    }
    out.push_str("## Packages\n\n");
    for gv in &page.groups {
        let kinds: Vec<String> = gv.kinds.iter().map(|k| link(&k.name, &format!("#{}", k.anchor))).collect();
        writeln!(
            out,
            "- {}: {}",
            link(&format!("{}/{}", gv.group, gv.version), &format!("#{}", gv.anchor)),
            kinds.join(", ")
        )
        .ok();
    }
    out.push('\n');
    for gv in &page.groups {
        anchor(&mut out, &gv.anchor);
        writeln!(out, "## {}/{}\n", gv.group, gv.version).ok();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_escape_pipes_html_and_newlines() {
        assert_eq!(prose("a | b\nc <d> `Vec<T>`", true), "a \\| b<br>c &lt;d&gt; `Vec<T>`");
        assert_eq!(code("a`b"), "`` a`b ``");
        assert_eq!(code("x || y"), "`x \\|\\| y`");
    }

    #[test]
    fn a_kind_shows_its_names_versions_columns_and_rules() {
        let crd = serde_json::json!({
            "kind": "CustomResourceDefinition",
            "spec": {
                "group": "ship.example.com",
                "scope": "Namespaced",
                "names": {"kind": "Frigate", "plural": "frigates", "singular": "frigate", "shortNames": ["fg"],
                          "categories": ["fleet"]},
                "versions": [
                    {"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                        "type": "object",
                        "properties": {"spec": {"type": "object",
                            "x-kubernetes-validations": [{"rule": "self.min <= self.max", "message": "min | max"}],
                            "properties": {
                                "min": {"type": "integer", "minimum": 0.0, "default": 1},
                                "max": {"type": "integer", "exclusiveMaximum": true, "maximum": 10.0},
                                "crew": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}},
                                "cargo": {"type": "object", "additionalProperties": {"type": "integer"}}
                            }, "required": ["min"]}}}},
                     "additionalPrinterColumns": [{"name": "Min", "type": "integer", "jsonPath": ".spec.min",
                                                   "priority": 1}]},
                    {"name": "v1beta1", "served": true, "storage": false, "deprecated": true,
                     "deprecationWarning": "use v1", "schema": {"openAPIV3Schema": {"type": "object"}}}
                ]
            }
        });
        let page = render(&Page::build(&[crd], "1.37"));
        for line in [
            "- Short names: `fg`",
            "- Categories: `fleet`",
            "- **Deprecated**: use v1",
            "- Other versions: v1beta1 (served, deprecated)",
            "| Min (wide) | `integer` | `.spec.min` |  |",
            "- rule: `self.min <= self.max` — min \\| max",
            "| `cargo` | `map[string]integer` | optional |  |  |  |",
            "| `crew` | `[]string` | optional |  | items pattern: `^[a-z]+$` |  |",
            "| `max` | `integer` | optional |  | exclusive maximum: `10` |  |",
            "| `min` | `integer` | required | `1` | minimum: `0` |  |",
        ] {
            assert!(page.lines().any(|l| l == line), "no line {line:?} in\n{page}");
        }
        assert!(page.find("## ship.example.com/v1\n") < page.find("## ship.example.com/v1beta1\n"));
    }
}
