//! Templates: handlebars over the files in `templates/`, embedded in the binary, strict and unescaped.
//!
//! A template's path mirrors the output path. Segments may hold `{{placeholders}}`; a `.hbs` suffix is
//! removed and a leading `dot-` becomes `.` (so `dot-gitignore.hbs` writes `.gitignore`). Templates hold no
//! logic beyond `{{#if}}`/`{{#each}}`: every value is computed in Rust and passed in a typed context.
//!
//! Templates that use only `{{name}}`, `{{#if}}`, `{{#unless}}` and `{{else}}` (all of them today) are rendered by
//! `substitute`, which gives handlebars' output without compiling them (handlebars' parser was most of `init`).
//!
//! `templates/init/` is everything `init` writes (the operator crate, `config/`, `Dockerfile`, `Makefile`, README,
//! dotfiles), `templates/api/` the per-kind files of `create api`, `templates/webhook/` those of `create webhook`
//! (the per-project webhook module and its test support with the first webhook; per kind, its parts and their tests).
//! A template's values come from typed contexts (`InitContext`, `ApiContext`); a test compares `substitute` with
//! handlebars on every template and every combination of its conditions.
//!
//! The project they make: `src/main.rs` (the manager and its controllers), `src/lib.rs` (`OPERATOR`, the modules),
//! `src/api/<version>/<kind>.rs` (the kind's types), `src/controller/<kind>.rs` (its reconciler and tests; with the
//! first `--image` kind, `src/controller/operand.rs`), `src/webhook/...` (from the first `create webhook`),
//! `tests/envtest/` (control-plane tests), `config/` (the kustomize tree) and `vendor/kubesmith-runtime/` (written
//! by `runtime_source`, never through the user's `rustfmt`); a multigroup project puts a `<group>` folder below
//! `api`, `controller` and `webhook`. One reconciler serves every version of a kind; a second version is scaffolded
//! with `storage = false`, so exactly one storage version exists. `create api` and `create webhook` run the parts of
//! `make manifests` they need, so a fresh tree renders with `kubectl kustomize` before the user runs anything else.

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
    let rust = name.ends_with(".rs.hbs");
    if let Some((text, short_names)) = substitute(template, ctx) {
        if rust {
            crate::formatted::rendered(&text, short_names);
        }
        return Ok(text);
    }
    let text = registry()
        .render_template(template, ctx)
        .with_context(|| format!("internal error: template `{name}` does not render"))?;
    if rust {
        crate::formatted::rendered(&text, false);
    }
    Ok(text)
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
/// ~1,000 instructions a byte), for templates made of text, `{{name}}`s of string or integer fields and `{{#if name}}`
/// / `{{#unless name}}` blocks (with an optional `{{else}}`) on fields that are booleans, strings, integers or null. `None` for
/// anything else (other helpers, comments, `~`, paths, escapes, a field missing or of another type), which
/// handlebars renders.
///
/// Handlebars' rules kept: a `{{name}}` is written unescaped and is never standalone; a block tag alone on its line
/// (only spaces or tabs around it, the template's start or end counting as a line end) is *standalone*: the spaces
/// before it on that line go, and so do the spaces and the line break after it.
///
/// Also says whether every value substituted is a short name (`formatted::is_short_name`), which keeps a Rust
/// template's rendering `rustfmt` clean.
fn substitute(template: &str, ctx: &impl Serialize) -> Option<(String, bool)> {
    if !template.contains("{{") {
        return Some((template.to_string(), true));
    }
    let nodes = compile(template)?;
    let fields = serde_json::to_value(ctx).ok()?;
    let mut out = String::with_capacity(template.len() + template.len() / 8);
    let mut short_names = true;
    render_nodes(&nodes, &fields, &mut out, &mut short_names)?;
    Some((out, short_names))
}

/// A compiled template of the fast path.
enum Node<'t> {
    Text(String),
    Field(&'t str),
    /// `{{#if cond}}then{{else}}otherwise{{/if}}`; `unless` negates.
    Block {
        unless: bool,
        cond: &'t str,
        then: Vec<Node<'t>>,
        otherwise: Vec<Node<'t>>,
    },
}

/// An open block while compiling: its nodes so far, and for a block its tag and the `then` part once `{{else}}` came.
struct Frame<'t> {
    nodes: Vec<Node<'t>>,
    block: Option<(bool, &'t str, Option<Vec<Node<'t>>>)>,
}

fn compile(template: &str) -> Option<Vec<Node<'_>>> {
    let mut stack = vec![Frame { nodes: Vec::new(), block: None }];
    // Set by a standalone tag: the next text loses its leading spaces and first line break.
    let mut trim_line = false;
    let mut pos = 0;
    while let Some(found) = template[pos..].find("{{") {
        let at = pos + found;
        // `\{{` escapes the expression in handlebars; `{{{` is the raw form.
        if template[..at].ends_with('\\') || template[at + 2..].starts_with('{') {
            return None;
        }
        if at > pos {
            stack.last_mut()?.nodes.push(Node::Text(text_after(&template[pos..at], trim_line)));
            trim_line = false;
        }
        let end = at + 2 + template[at + 2..].find("}}")?;
        let tag = &template[at + 2..end];
        let after = end + 2;
        if is_lookup(tag) {
            stack.last_mut()?.nodes.push(Node::Field(tag));
            pos = after;
            continue;
        }
        let frame = stack.last_mut()?;
        trim_line = standalone(template, at, after, &mut frame.nodes);
        match tag {
            "else" => match &mut frame.block {
                Some((_, _, then @ None)) => *then = Some(std::mem::take(&mut frame.nodes)),
                _ => return None,
            },
            "/if" | "/unless" => {
                let (unless, cond, then) = frame.block.take()?;
                if unless != (tag == "/unless") {
                    return None;
                }
                let last = std::mem::take(&mut frame.nodes);
                let (then, otherwise) = match then {
                    Some(then) => (then, last),
                    None => (last, Vec::new()),
                };
                stack.pop();
                stack.last_mut()?.nodes.push(Node::Block { unless, cond, then, otherwise });
            }
            _ => {
                let (unless, cond) = match (tag.strip_prefix("#if "), tag.strip_prefix("#unless ")) {
                    (Some(cond), _) => (false, cond),
                    (_, Some(cond)) => (true, cond),
                    _ => return None,
                };
                if !is_lookup(cond) {
                    return None;
                }
                stack.push(Frame { nodes: Vec::new(), block: Some((unless, cond, None)) });
            }
        }
        pos = after;
    }
    if pos < template.len() {
        stack.last_mut()?.nodes.push(Node::Text(text_after(&template[pos..], trim_line)));
    }
    let root = stack.pop()?;
    (stack.is_empty() && root.block.is_none()).then_some(root.nodes)
}

/// Whether `name` is a plain field name handlebars looks up in the context.
fn is_lookup(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !NOT_A_LOOKUP.contains(&name)
}

/// A text, without its leading spaces and first line break when it follows a standalone tag.
fn text_after(text: &str, trim_line: bool) -> String {
    if !trim_line {
        return text.to_string();
    }
    let text = text.trim_start_matches([' ', '\t']);
    text.strip_prefix("\r\n").or_else(|| text.strip_prefix('\n')).unwrap_or(text).to_string()
}

/// Whether the block tag at `at..after` is standalone; if so, and a line break precedes it, the spaces before it
/// leave the text just before (the last node of the open block, when it is a text).
fn standalone(template: &str, at: usize, after: usize, nodes: &mut [Node<'_>]) -> bool {
    let rest = &template[after..];
    if !(rest.is_empty() || rest.trim_start_matches([' ', '\t']).starts_with(['\n', '\r'])) {
        return false;
    }
    let before = template[..at].trim_end_matches([' ', '\t']);
    let leading = before.is_empty() || before.ends_with(['\n', '\r']);
    if leading && let Some(Node::Text(text)) = nodes.last_mut() {
        text.truncate(text.trim_end_matches([' ', '\t']).len());
    }
    at == 0 || leading
}

fn render_nodes(nodes: &[Node<'_>], fields: &serde_json::Value, out: &mut String, short: &mut bool) -> Option<()> {
    for node in nodes {
        match node {
            Node::Text(text) => out.push_str(text),
            Node::Field(name) => {
                let value = match fields.get(*name)? {
                    serde_json::Value::String(s) => std::borrow::Cow::Borrowed(s.as_str()),
                    // Integers print as handlebars prints them; other numbers are left to handlebars.
                    serde_json::Value::Number(n) if n.is_i64() || n.is_u64() => std::borrow::Cow::Owned(n.to_string()),
                    _ => return None,
                };
                *short &= crate::formatted::is_short_name(name, &value);
                out.push_str(&value);
            }
            Node::Block { unless, cond, then, otherwise } => {
                let truthy = match fields.get(*cond)? {
                    serde_json::Value::Bool(b) => *b,
                    serde_json::Value::String(s) => !s.is_empty(),
                    serde_json::Value::Null => false,
                    // Handlebars: a number is true unless it is zero (or not a normal float, left to handlebars).
                    serde_json::Value::Number(n) if n.is_i64() || n.is_u64() => n.as_f64() != Some(0.0),
                    _ => return None,
                };
                render_nodes(if truthy != *unless { then } else { otherwise }, fields, out, short)?;
            }
        }
    }
    Some(())
}

/// Renders the embedded template at `path` (relative to `templates/`).
pub fn render(path: &str, ctx: &impl Serialize) -> Result<String> {
    let file =
        TEMPLATES.get_file(path).with_context(|| format!("internal error: template `{path}` is not embedded"))?;
    let text = file.contents_utf8().with_context(|| format!("internal error: template `{path}` is not UTF-8"))?;
    render_str(path, text, ctx)
}

/// Every embedded Rust template without any handlebars expression: `(path, text)`.
#[cfg(test)]
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

    /// The fast path gives handlebars' output for every embedded template, whatever the values hold and for every
    /// combination of the blocks' conditions.
    #[test]
    fn substitution_equals_handlebars_on_every_template() {
        let mut files = Vec::new();
        collect(&TEMPLATES, &mut files);
        let values = ["", "memcached-operator", "a\\b {{x}} <&>\"'", "line\nbreak", "é✓", "{{{y}}}"];
        let mut taken = 0;
        for (i, f) in files.iter().enumerate() {
            let text = f.contents_utf8().expect("templates are UTF-8");
            let tags: Vec<&str> = text.split("{{").skip(1).filter_map(|s| s.split("}}").next()).collect();
            let conditions: Vec<&str> = tags
                .iter()
                .filter_map(|t| t.strip_prefix("#if ").or_else(|| t.strip_prefix("#unless ")))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            assert!(conditions.len() < 8, "template {} has few conditions", f.path().display());
            let mut fields = serde_json::Map::new();
            for name in &tags {
                let value = values[(i + fields.len()) % values.len()];
                fields.insert(name.to_string(), serde_json::Value::String(value.to_string()));
            }
            let condition_values = |bits: usize, n: usize| serde_json::Value::Bool(bits & (1 << n) != 0);
            let mut variants: Vec<serde_json::Map<String, serde_json::Value>> = (0..1usize << conditions.len())
                .map(|bits| {
                    let mut ctx = fields.clone();
                    for (n, c) in conditions.iter().enumerate() {
                        ctx.insert(c.to_string(), condition_values(bits, n));
                    }
                    ctx
                })
                .collect();
            // Truthiness of strings and null as handlebars has it.
            for value in [serde_json::Value::Null, "".into(), "x".into()] {
                let mut ctx = fields.clone();
                for c in &conditions {
                    ctx.insert(c.to_string(), value.clone());
                }
                variants.push(ctx);
            }
            let mut took = false;
            for ctx in &variants {
                if let Some((fast, _)) = substitute(text, ctx) {
                    let slow = registry().render_template(text, ctx).unwrap();
                    assert_eq!(fast, slow, "template {} with {ctx:?}", f.path().display());
                    took = true;
                }
            }
            let known = |t: &&str| {
                is_lookup(t)
                    || matches!(*t, "else" | "/if" | "/unless")
                    || t.strip_prefix("#if ").or_else(|| t.strip_prefix("#unless ")).is_some_and(is_lookup)
            };
            assert!(took || !tags.iter().all(known), "the fast path declines {}", f.path().display());
            taken += usize::from(took);
        }
        assert!(taken > files.len() * 9 / 10, "the fast path takes most templates ({taken} of {})", files.len());
    }

    /// Standalone block tags lose their line; others keep the text around them (checked against handlebars).
    #[test]
    fn substitution_keeps_handlebars_whitespace_rules() {
        let cases = [
            "a\n{{#if yes}}\nb\n{{/if}}\nc\n",
            "a\n  {{#if no}}  \nb\n  {{else}}\t\r\nc\n  {{/if}}",
            "{{#if yes}}\nfirst line\n{{/if}}",
            "x {{#if yes}}inline{{/if}} y\n",
            "  {{#unless no}}\n    {{#if yes}}\n      {{name}}\n    {{/if}}\n  {{/unless}}\n",
            "{{name}}\n{{#if yes}}{{name}}{{/if}}\n\n{{#if no}}\n{{else}}\n  z\n{{/if}}\n",
            "line {{name}}\n  {{#if yes}} trailing\n{{/if}}\n",
            "port {{port}}, {{neg}}: {{#if port}}set{{/if}}{{#if zero}}zero{{else}}no zero{{/if}}{{#unless neg}}x{{/unless}}",
        ];
        let ctx = serde_json::json!({"yes": true, "no": false, "name": "n", "port": 8080, "zero": 0, "neg": -3});
        for case in cases {
            let (fast, _) = substitute(case, &ctx).unwrap_or_else(|| panic!("the fast path takes {case:?}"));
            assert_eq!(fast, registry().render_template(case, &ctx).unwrap(), "{case:?}");
        }
    }

    #[test]
    fn substitution_declines_what_it_does_not_know() {
        #[derive(Serialize)]
        struct Ctx {
            name: &'static str,
            len: &'static str,
            flag: bool,
            count: u32,
        }
        let ctx = Ctx { name: "n", len: "l", flag: true, count: 1 };
        assert_eq!(substitute("a {{name}} b", &ctx), Some(("a n b".into(), true)));
        assert_eq!(substitute("no expression", &ctx), Some(("no expression".into(), true)));
        assert_eq!(substitute("{{#if flag}}x{{else}}y{{/if}}", &ctx), Some(("x".into(), true)));
        // A long or multi-line value is no short name: the rendering is not known `rustfmt` clean.
        let long = "x".repeat(crate::formatted::NAME_BOUND + 1);
        assert_eq!(
            substitute("{{controller_name}}", &serde_json::json!({ "controller_name": long })).map(|r| r.1),
            Some(true)
        );
        assert_eq!(substitute("{{name}}", &serde_json::json!({ "name": long })).map(|r| r.1), Some(false));
        assert_eq!(substitute("{{name}}", &serde_json::json!({ "name": "a\nb" })).map(|r| r.1), Some(false));
        for declined in [
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
            "{{#if missing}}x{{/if}}",
            "{{#if flag}}x{{/unless}}",
            "{{#if flag}}x",
            "x{{/if}}",
            "{{else}}",
            "{{#if flag}}a{{else}}b{{else}}c{{/if}}",
            "{{#if flag}}a{{else if flag}}b{{/if}}",
            "{{#each name}}x{{/each}}",
            "{{#if (not flag)}}x{{/if}}",
        ] {
            assert_eq!(substitute(declined, &ctx), None, "{declined}");
        }
        // Integers print and test as in handlebars; other numbers are left to it.
        assert_eq!(substitute("{{count}}{{#if count}}x{{/if}}", &ctx), Some(("1x".into(), true)));
        assert_eq!(substitute("{{f}}", &serde_json::json!({ "f": 1.5 })), None);
        assert_eq!(substitute("{{#if f}}x{{/if}}", &serde_json::json!({ "f": 1.5 })), None);
        // Declined templates still render through handlebars, strict as before.
        assert!(render_str("t", "{{missing}}", &ctx).is_err());
        assert_eq!(render_str("t", "{{#if (not flag)}}x{{else}}y{{/if}}", &ctx).unwrap(), "y");
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
