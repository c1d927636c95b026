//! Templates: handlebars over the files in `templates/`, embedded in the binary, strict and unescaped.
//!
//! A template's path mirrors the output path. Segments may hold `{{placeholders}}`; a `.hbs` suffix is
//! removed and a leading `dot-` becomes `.` (so `dot-gitignore.hbs` writes `.gitignore`). Templates hold no
//! logic beyond `{{#if}}`/`{{#each}}`: every value is computed in Rust and passed in a typed context.

use std::sync::OnceLock;

use anyhow::{Context, Result};
use handlebars::Handlebars;
use include_dir::{Dir, include_dir};
use serde::Serialize;

static TEMPLATES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/templates");

fn registry() -> &'static Handlebars<'static> {
    static REGISTRY: OnceLock<Handlebars<'static>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut hb = Handlebars::new();
        hb.set_strict_mode(true);
        hb.register_escape_fn(handlebars::no_escape);
        hb
    })
}

/// Renders one template text with the context.
pub fn render_str(name: &str, template: &str, ctx: &impl Serialize) -> Result<String> {
    if let Some(text) = substitute(template, ctx) {
        return Ok(text);
    }
    registry()
        .render_template(template, ctx)
        .with_context(|| format!("internal error: template `{name}` does not render"))
}

/// Handlebars names that are no context lookup: its built-in helpers (with the `string_helpers` feature's),
/// decorators and literals. A `{{name}}` of one of these is left to handlebars.
#[rustfmt::skip]
const NOT_A_LOOKUP: &[&str] = &[
    "if", "unless", "each", "with", "lookup", "raw", "log", "eq", "ne", "gt", "gte", "lt", "lte", "and", "or", "not",
    "len", "lowerCamelCase", "upperCamelCase", "snakeCase", "kebabCase", "shoutySnakeCase", "shoutyKebabCase",
    "titleCase", "trainCase", "inline", "else", "this", "true", "false", "null",
];

/// The fast path of [`render_str`]: the output handlebars gives, without compiling the template (its parser costs
/// ~1,000 instructions a byte), for the templates that hold nothing but text and `{{name}}`s of string fields.
/// Such an expression is never standalone and its text is written unescaped, so the output is the text with each
/// `{{name}}` replaced by the field's value. `None` for anything else (blocks, comments, `~`, paths, escapes, a
/// field that is missing or not a string), which handlebars renders.
fn substitute(template: &str, ctx: &impl Serialize) -> Option<String> {
    let Some(first) = template.find("{{") else { return Some(template.to_string()) };
    let fields = serde_json::to_value(ctx).ok()?;
    let mut out = String::with_capacity(template.len() + template.len() / 8);
    let mut rest = template;
    let mut at = first;
    loop {
        // `\{{` escapes the expression in handlebars; `{{{` is the raw form.
        if rest[..at].ends_with('\\') || rest[at + 2..].starts_with('{') {
            return None;
        }
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after.find("}}")?;
        let name = &after[..end];
        let mut chars = name.chars();
        let is_name = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !is_name || NOT_A_LOOKUP.contains(&name) {
            return None;
        }
        out.push_str(fields.get(name)?.as_str()?);
        rest = &after[end + 2..];
        match rest.find("{{") {
            Some(next) => at = next,
            None => {
                out.push_str(rest);
                return Some(out);
            }
        }
    }
}

/// Renders the embedded template at `path` (relative to `templates/`).
pub fn render(path: &str, ctx: &impl Serialize) -> Result<String> {
    let file =
        TEMPLATES.get_file(path).with_context(|| format!("internal error: template `{path}` is not embedded"))?;
    let text = file.contents_utf8().with_context(|| format!("internal error: template `{path}` is not UTF-8"))?;
    render_str(path, text, ctx)
}

/// Whether `text` is an embedded Rust template without any handlebars expression, which renders to itself: a file
/// kubesmith ships formatted (`rustfmt::format_plan` need not format it; a test keeps these templates clean).
pub fn is_plain_rust_template(text: &str) -> bool {
    plain_rust_templates().iter().any(|(_, t)| *t == text)
}

/// Every embedded Rust template without any handlebars expression: `(path, text)`.
pub fn plain_rust_templates() -> &'static [(String, &'static str)] {
    static PLAIN: OnceLock<Vec<(String, &'static str)>> = OnceLock::new();
    PLAIN.get_or_init(|| {
        let mut files = Vec::new();
        collect(&TEMPLATES, &mut files);
        files
            .into_iter()
            .filter(|f| f.path().to_string_lossy().ends_with(".rs.hbs"))
            .filter_map(|f| Some((f.path().to_string_lossy().into_owned(), f.contents_utf8()?)))
            .filter(|(_, t)| !t.contains("{{"))
            .collect()
    })
}

/// Renders every template under `set` (e.g. `init`), returning output paths and contents, sorted by path.
pub fn render_set(set: &str, ctx: &impl Serialize) -> Result<Vec<(String, String)>> {
    let dir = TEMPLATES.get_dir(set).with_context(|| format!("internal error: template set `{set}` is missing"))?;
    let mut files = Vec::new();
    collect(dir, &mut files);
    let mut out = Vec::new();
    for f in files {
        let rel = f.path().strip_prefix(set).expect("embedded files live under their set").to_string_lossy();
        let template_path = f.path().to_string_lossy().into_owned();
        let out_path = output_path(&render_str(&template_path, &rel, ctx)?);
        let text =
            f.contents_utf8().with_context(|| format!("internal error: template `{template_path}` is not UTF-8"))?;
        out.push((out_path, render_str(&template_path, text, ctx)?));
    }
    out.sort();
    Ok(out)
}

/// The output path of a rendered template path: strip `.hbs`, turn leading `dot-` into `.`.
pub fn output_path(rendered: &str) -> String {
    rendered
        .split('/')
        .map(|seg| {
            let seg = seg.strip_suffix(".hbs").unwrap_or(seg);
            match seg.strip_prefix("dot-") {
                Some(rest) => format!(".{rest}"),
                None => seg.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn collect<'a>(dir: &'a Dir<'a>, out: &mut Vec<&'a include_dir::File<'a>>) {
    for f in dir.files() {
        out.push(f);
    }
    for d in dir.dirs() {
        collect(d, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_and_unescaped() {
        #[derive(Serialize)]
        struct Ctx {
            ty: &'static str,
        }
        assert_eq!(render_str("t", "let v: {{ty}};", &Ctx { ty: "Vec<String>" }).unwrap(), "let v: Vec<String>;");
        assert!(render_str("t", "{{missing}}", &Ctx { ty: "" }).is_err());
    }

    /// The fast path gives handlebars' output for every embedded template it takes, whatever the values hold.
    #[test]
    fn substitution_equals_handlebars_on_every_template() {
        let mut files = Vec::new();
        collect(&TEMPLATES, &mut files);
        let values = ["", "memcached-operator", "a\\b {{x}} <&>\"'", "line\nbreak", "é✓", "{{{y}}}"];
        let mut taken = 0;
        for (i, f) in files.iter().enumerate() {
            let text = f.contents_utf8().expect("templates are UTF-8");
            let mut ctx = serde_json::Map::new();
            for name in text.split("{{").skip(1).filter_map(|s| s.split("}}").next()) {
                let value = values[(i + ctx.len()) % values.len()];
                ctx.insert(name.trim().to_string(), serde_json::Value::String(value.to_string()));
            }
            if let Some(fast) = substitute(text, &ctx) {
                let slow = registry().render_template(text, &ctx).unwrap();
                assert_eq!(fast, slow, "template {}", f.path().display());
                taken += 1;
            }
        }
        assert!(taken > files.len() / 2, "the fast path takes most templates ({taken} of {})", files.len());
    }

    #[test]
    fn substitution_declines_what_it_does_not_know() {
        #[derive(Serialize)]
        struct Ctx {
            name: &'static str,
            len: &'static str,
            flag: bool,
        }
        let ctx = Ctx { name: "n", len: "l", flag: true };
        assert_eq!(substitute("a {{name}} b", &ctx).as_deref(), Some("a n b"));
        assert_eq!(substitute("no expression", &ctx).as_deref(), Some("no expression"));
        for declined in [
            "{{#if flag}}x{{/if}}",
            "{{ name }}",
            "{{~name}}",
            "{{!comment}}",
            "{{{name}}}",
            "\\{{name}}",
            "{{len}}",
            "{{flag}}",
            "{{missing}}",
            "{{this.name}}",
            "{{name",
        ] {
            assert_eq!(substitute(declined, &ctx), None, "{declined}");
        }
        // Declined templates still render through handlebars, strict as before.
        assert!(render_str("t", "{{missing}}", &ctx).is_err());
        assert_eq!(render_str("t", "{{#if flag}}{{name}}{{/if}}", &ctx).unwrap(), "n");
    }

    #[test]
    fn output_paths() {
        assert_eq!(output_path("dot-gitignore.hbs"), ".gitignore");
        assert_eq!(output_path("src/api/v1/memcached.rs.hbs"), "src/api/v1/memcached.rs");
        assert_eq!(output_path("Cargo.toml.hbs"), "Cargo.toml");
    }
}

#[cfg(test)]
mod template_syntax_tests {
    use super::*;

    /// Every embedded template must at least parse; rendering with real contexts is covered by the commands' tests.
    #[test]
    fn every_template_parses() {
        let mut files = Vec::new();
        collect(&TEMPLATES, &mut files);
        assert!(files.len() > 50, "templates are embedded");
        for f in files {
            let text = f.contents_utf8().expect("templates are UTF-8");
            if let Err(e) = handlebars::Template::compile(text) {
                panic!("template {} does not parse: {e}", f.path().display());
            }
        }
    }
}
