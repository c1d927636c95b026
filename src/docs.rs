//! The API reference (`kubesmith make docs`): a page model built from the project's CRDs ([`model`]), Kubernetes'
//! own types recognised in them ([`builtin`]), and the page rendered as Markdown ([`markdown`]) or AsciiDoc
//! ([`asciidoc`]).
//!
//! [`recorded`] is what PROJECT's `plugins["docs.rust.kubesmith.io/v1alpha1"]` records, made again by `make manifests`
//! with the CRDs it just planned. **Invariant:** the page is a function of the CRDs (and the Kubernetes version):
//! every property of every owned CRD is reachable on it from its kind's section through the page's own links
//! (`tests/it/docs.rs`).

pub(crate) mod asciidoc;
pub(crate) mod builtin;
pub(crate) mod markdown;
pub(crate) mod model;
pub(crate) mod recorded;

use serde_json::Value;

/// PROJECT's entry recording the page (`plugins["docs.rust.kubesmith.io/v1alpha1"]`: `output`, `format`).
pub const PLUGIN_KEY: &str = "docs.rust.kubesmith.io/v1alpha1";
/// The page `make docs` writes by default.
pub const DEFAULT_OUTPUT: &str = "docs/api-reference.md";
/// The AsciiDoc page's default name.
pub const DEFAULT_OUTPUT_ADOC: &str = "docs/api-reference.adoc";

/// The page's markup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Asciidoc,
}

impl Format {
    /// The name PROJECT records and `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Markdown => "markdown",
            Format::Asciidoc => "asciidoc",
        }
    }

    /// The format PROJECT names, if known.
    pub fn parse(name: &str) -> Option<Format> {
        match name {
            "markdown" => Some(Format::Markdown),
            "asciidoc" => Some(Format::Asciidoc),
            _ => None,
        }
    }

    /// The page's default path in this format.
    pub fn default_output(self) -> &'static str {
        match self {
            Format::Markdown => DEFAULT_OUTPUT,
            Format::Asciidoc => DEFAULT_OUTPUT_ADOC,
        }
    }
}

/// The page of `crds` (CustomResourceDefinitions as JSON) in `format`; `k8s_version` (`"1.37"`) picks the
/// Kubernetes reference the page links to and the table of built-in types it recognises.
pub fn render(crds: &[Value], format: Format, k8s_version: &str) -> String {
    let page = model::Page::build(crds, k8s_version);
    match format {
        Format::Markdown => markdown::render(&page),
        Format::Asciidoc => asciidoc::render(&page),
    }
}
