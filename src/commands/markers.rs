//! `kubesmith markers [--output text|markdown|json] [PREFIX]`: the marker registry as a reference.

use anyhow::Result;

use crate::cli::{MarkersArgs, MarkersFormat};
use crate::markers::{MarkerDef, reference, registry};

/// Prints every marker whose name starts with the prefix, in the chosen format.
pub fn run(args: &MarkersArgs) -> Result<()> {
    let prefix = args.prefix.as_deref().map(|p| p.trim_start_matches("//").trim().trim_start_matches('+'));
    let defs: Vec<&MarkerDef> = registry().iter().filter(|d| prefix.is_none_or(|p| d.name.starts_with(p))).collect();
    if let Some(p) = prefix
        && defs.is_empty()
    {
        let names = registry().iter().map(|d| d.name.as_str());
        let hint = match crate::markers::closest(p, names) {
            Some((s, _)) => format!("; did you mean `{s}`?"),
            None => String::new(),
        };
        anyhow::bail!("no marker starts with `{p}`{hint} (run `kubesmith markers` for every marker)");
    }
    let text = match args.output {
        MarkersFormat::Text => reference::text(&defs),
        MarkersFormat::Markdown => reference::markdown(&defs, prefix.is_none()),
        MarkersFormat::Json => reference::json(&defs),
    };
    crate::output::product(text.as_bytes(), "the marker reference")
}
