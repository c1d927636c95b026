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
    registry()
        .render_template(template, ctx)
        .with_context(|| format!("internal error: template `{name}` does not render"))
}

/// Renders the embedded template at `path` (relative to `templates/`).
pub fn render(path: &str, ctx: &impl Serialize) -> Result<String> {
    let file =
        TEMPLATES.get_file(path).with_context(|| format!("internal error: template `{path}` is not embedded"))?;
    let text = file.contents_utf8().with_context(|| format!("internal error: template `{path}` is not UTF-8"))?;
    render_str(path, text, ctx)
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
        out.push((out_path, render(&template_path, ctx)?));
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

    #[test]
    fn output_paths() {
        assert_eq!(output_path("dot-gitignore.hbs"), ".gitignore");
        assert_eq!(output_path("src/api/v1/memcached.rs.hbs"), "src/api/v1/memcached.rs");
        assert_eq!(output_path("Cargo.toml.hbs"), "Cargo.toml");
    }
}
