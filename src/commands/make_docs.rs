//! `kubesmith make docs`: the API reference page ([`crate::ops::docs`]), then `--check`, `--dry-run` or apply.

use std::path::Path;

use anyhow::Result;

use crate::cli::{DocsFormat, MakeDocsArgs};
use crate::docs::Format;
use crate::ops::{docs, write};

pub(crate) fn run(args: &MakeDocsArgs, cwd: &Path) -> Result<()> {
    let plan = docs::plan(args.output.as_deref(), format(args.format), cwd)?;
    if args.check {
        return write::check(&plan, "API reference", "kubesmith make docs");
    }
    write::finish(plan, args.dry_run)
}

/// The page's markup `--format` asks for.
pub(crate) fn format(asked: Option<DocsFormat>) -> Option<Format> {
    asked.map(|f| match f {
        DocsFormat::Markdown => Format::Markdown,
        DocsFormat::Asciidoc => Format::Asciidoc,
    })
}
