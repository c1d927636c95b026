//! Which generation of schemars (and the kube-derive built on it) a crate's schemas are emulated for: the
//! version its `Cargo.lock` pins (else its manifest's requirement). schemars 1.x with kube ≥ 2 is the default;
//! schemars 0.8 with kube < 2 (kube 0.99: `SchemaSettings::openapi3()` and only kube-core's
//! `StructuralSchemaRewriter`) differs in how `Option<T>` is made nullable, how doc comments become
//! descriptions, how `#[serde(flatten)]` merges and which transforms run. Every decision that differs asks this.
//!
//! Under schemars 0.8 a doc paragraph's lines are joined with spaces, flattening merges schema objects
//! (`schema::flatten08`), integers are bounded as 0.8 does, the features are named `chrono`/`url`, k8s-openapi ≤ 0.25
//! types come from that release's own table, and only schemars 0.8's openapi3 visitors and kube-core 0.99's
//! rewriter run; its ground truth is `tests/conformance/kube-derive-0.99`. Under schemars 1, [`Rewriter`] (from the
//! lock's kube-core) tells kube 2's rewriter (no `OptionalEnum` / `OptionalIntOrString`) from kube 3's.

use std::path::Path;

/// The schemars generation a crate derives its schemas with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Dialect {
    /// schemars 0.8 (kube < 2): `Option<T>` adds `nullable: true` to T's schema, doc lines are trimmed and
    /// joined with spaces within a paragraph, flatten merges schema objects field by field.
    Schemars08,
    /// schemars 1.x (kube ≥ 2, the scaffold's kube 5).
    #[default]
    Schemars1,
}

/// Which kube-core rewrites a schemars-1 crate's schemas in `crd()` (schemars 0.8 crates have kube-core 0.99's,
/// [`Dialect::Schemars08`]): kube 2's `StructuralSchemaRewriter` alone, or the set kube 3 grew. Kube 3 added the
/// `OptionalEnum` and `OptionalIntOrString` transforms (`nullable: true` on optional enums and int-or-strings),
/// drops `additionalProperties: false` beside properties, keeps an `anyOf` variant's description off its property
/// and strips the type and description of non-object `oneOf`/`anyOf` variants.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Rewriter {
    /// kube 2.x.
    Kube2,
    /// kube 3 and later (the scaffold's kube 5).
    #[default]
    Kube3,
}

impl Rewriter {
    /// The rewriter of the crate whose sources are in `src_dir`: its lock's kube-core (else its requirement of kube).
    pub fn of_src_dir(src_dir: &Path) -> Self {
        let locked = |name: &str| crate::source::dependencies::locked::dependency_version(src_dir, name);
        locked("kube-core").or_else(|| locked("kube")).map_or(Self::default(), |v| Self::of_version(&v))
    }

    /// The rewriter of a kube(-core) version (`2.0.1`, a requirement `2`).
    pub fn of_version(version: &str) -> Self {
        match version.trim_start_matches(['=', '^', '~']).split('.').next().and_then(|m| m.trim().parse::<u64>().ok()) {
            Some(2) => Self::Kube2,
            _ => Self::Kube3,
        }
    }
}

impl Dialect {
    /// The dialect of the crate whose sources are in `src_dir`; schemars 1 when nothing names schemars.
    pub fn of_src_dir(src_dir: &Path) -> Self {
        crate::source::dependencies::locked::dependency_version(src_dir, "schemars")
            .map_or(Self::default(), |v| Self::of_version(&v))
    }

    /// The dialect of a schemars version (`0.8.22`, a requirement `0.8`): 0.8 and older are schemars 0.8's.
    pub fn of_version(version: &str) -> Self {
        let mut parts = version.split('.').map(|p| p.trim().parse::<u64>().unwrap_or(0));
        match (parts.next().unwrap_or(0), parts.next().unwrap_or(0)) {
            (0, minor) if minor <= 8 => Self::Schemars08,
            _ => Self::Schemars1,
        }
    }

    /// The name under this generation of the schemars feature that 1.x calls `feature_1x` (`chrono04` is 0.8's
    /// `chrono`); `None` when 0.8 has no such impl (jiff).
    pub fn feature(self, feature_1x: &'static str) -> Option<&'static str> {
        match (self, feature_1x) {
            (Self::Schemars1, f) => Some(f),
            (Self::Schemars08, "chrono04") => Some("chrono"),
            (Self::Schemars08, "url2") => Some("url"),
            (Self::Schemars08, "uuid1") => Some("uuid1"),
            (Self::Schemars08, _) => None,
        }
    }

    /// The title and description schemars derives from a doc comment (as `attrs::doc_text` reads it: one line per
    /// doc line), empty when there is none.
    pub fn title_and_description(self, doc: &str) -> (String, String) {
        match self {
            Self::Schemars1 => title_and_description_1(doc),
            Self::Schemars08 => title_and_description_08(doc),
        }
    }
}

/// schemars 1's `get_title_and_description`.
fn title_and_description_1(doc: &str) -> (String, String) {
    let doc = doc.trim_matches(|c: char| c.is_ascii_whitespace());
    if doc.starts_with('#') {
        let end = doc.find('\n').unwrap_or(doc.len());
        let title = doc[..end].trim_start_matches('#').trim_matches(|c: char| c.is_ascii_whitespace());
        let description = doc[end..].trim_matches(|c: char| c.is_ascii_whitespace());
        (title.to_string(), description.to_string())
    } else {
        (String::new(), doc.to_string())
    }
}

/// schemars_derive 0.8's `get_title_and_desc_from_doc`: every line trimmed, leading blank lines and one trailing
/// blank line dropped (and a leading `*` on every line, when all have one); a first line starting with `#` is
/// the title; the rest splits into paragraphs at blank lines, each joined into one line with spaces.
fn title_and_description_08(doc: &str) -> (String, String) {
    let mut lines: Vec<&str> = doc.split('\n').map(str::trim).skip_while(|l| l.is_empty()).collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    if lines.iter().all(|l| l.starts_with('*')) {
        for l in lines.iter_mut() {
            *l = l[1..].trim();
        }
        while lines.first() == Some(&"") {
            lines.remove(0);
        }
    }
    let doc = lines.join("\n");
    if doc.starts_with('#') {
        let (first, rest) = doc.split_once('\n').unwrap_or((&doc, ""));
        (first.trim_start_matches('#').trim().to_string(), merge_description_lines(rest))
    } else {
        (String::new(), merge_description_lines(&doc))
    }
}

fn merge_description_lines(doc: &str) -> String {
    let paragraphs: Vec<String> =
        doc.trim().split("\n\n").map(|p| p.trim().replace('\n', " ")).filter(|p| !p.is_empty()).collect();
    paragraphs.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_map_to_their_generation() {
        assert_eq!(Dialect::of_version("0.8.22"), Dialect::Schemars08);
        assert_eq!(Dialect::of_version("0.8"), Dialect::Schemars08);
        assert_eq!(Dialect::of_version("0.9.0"), Dialect::Schemars1);
        assert_eq!(Dialect::of_version("1.2.3"), Dialect::Schemars1);
    }

    #[test]
    fn schemars_08_joins_the_lines_of_a_paragraph() {
        let d = Dialect::Schemars08;
        let doc = "Lines\n  indented and\n\nparagraphs\n\n\nand more.";
        assert_eq!(
            d.title_and_description(doc),
            (String::new(), "Lines indented and\n\nparagraphs\n\nand more.".into())
        );
        assert_eq!(
            d.title_and_description("# A title\n\nAnd a description."),
            ("A title".into(), "And a description.".into())
        );
        assert_eq!(d.title_and_description("* a\n* b"), (String::new(), "a b".into()));
        assert_eq!(d.title_and_description("  \n"), (String::new(), String::new()));
        assert_eq!(Dialect::Schemars1.title_and_description("a\nb"), (String::new(), "a\nb".into()));
    }
}
