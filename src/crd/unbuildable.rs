//! The `#[derive(CustomResource)]`s kubesmith cannot build a CRD from: on a union (kube-derive refuses it), inside
//! a fn body, an impl or a macro (no module-level item to read), or under `cfg_attr` (kubesmith does not evaluate
//! cfg). Each is a problem of its kind, never skipped in silence; found lexically, and only where a quick look at
//! a file's mentions of `CustomResource` leaves one unexplained.

use proc_macro2::Span;

use super::error::{CrdError, CrdErrorKind};
use super::index::{CrateIndex, ModId};
use super::spec::{crd_key, custom_resource_derive};
use crate::source::kube_attrs;
use crate::source::lex::{self, word_positions};

/// A `#[derive(CustomResource)]` that yields no CRD by construction, with the kind it names when its
/// `#[kube(...)]` can be read.
pub struct Unbuildable {
    /// `(group, kind, plural.group)`.
    pub key: Option<(String, String, String)>,
    /// Why.
    pub error: CrdError,
}

/// Every `#[derive(CustomResource)]` of the crate that is not on a module-level struct or enum: on a union
/// (kube-derive refuses it), inside a fn body or a macro (kubesmith cannot reach the kind), or under
/// `#[cfg_attr(..)]` (kubesmith does not evaluate cfg). `built`: the specs kubesmith builds from, as (module, `CustomResource` span of their derive).
pub fn find(ix: &CrateIndex, built: &[(ModId, Span)]) -> Vec<Unbuildable> {
    let mut out = Vec::new();
    // Where the derives kubesmith builds from are: (file, line, column) of their `CustomResource`.
    let mut seen: std::collections::BTreeSet<(usize, usize, usize)> =
        built.iter().map(|(m, span)| site_of(ix, *m, *span)).collect();
    for (m, u) in ix.own_unions().iter().filter(|(m, _)| !ix.generated_elsewhere(*m)) {
        let Some(span) = custom_resource_derive(&u.attrs) else { continue };
        seen.insert(site_of(ix, *m, span));
        let key = kube_attrs::parse(&u.attrs, span).ok().map(|k| crd_key(&k));
        let error = CrdError::at(
            ix.module_file(*m),
            u.ident.span(),
            CrdErrorKind::KubeAttr(format!(
                "union `{}` cannot #[derive(CustomResource)]: kube-derive refuses unions (Unions can not \
                 #[derive(CustomResource)]); make the spec a struct or an enum",
                u.ident
            )),
        );
        out.push(Unbuildable { key, error });
    }
    for (f, file) in ix.own_files() {
        let built_here = |line, column| seen.contains(&(f, line, column));
        if file.stub.is_some()
            || file.elsewhere
            || !file.text.contains("CustomResource")
            || !may_hide_derives(&file.text, built_here)
        {
            continue;
        }
        for site in derive_sites(&file.text) {
            if seen.contains(&(f, site.line, site.column)) {
                continue;
            }
            let (where_, fix) = if site.cfg_attr {
                ("under #[cfg_attr(..)], which kubesmith does not evaluate", "derive it unconditionally")
            } else {
                (
                    "not on a struct or enum at module level (it is inside a fn body, an impl or a macro), so \
                     kubesmith cannot reach the kind",
                    "move the spec to module level",
                )
            };
            let key = if site.cfg_attr { None } else { kind_after(&file.text, site.attribute) };
            let error = CrdError {
                path: file.path.clone(),
                line: site.line,
                column: site.column,
                kind: CrdErrorKind::Unsupported {
                    construct: format!("#[derive(CustomResource)] {where_}"),
                    fix: fix.to_string(),
                },
            };
            out.push(Unbuildable { key, error });
        }
    }
    out
}

fn site_of(ix: &CrateIndex, m: ModId, span: Span) -> (usize, usize, usize) {
    let start = span.start();
    (ix.modules[m].file, start.line, start.column + 1)
}

/// Whether `text` may hold a derive of `CustomResource` other than those at `built(line, column)`: some
/// mention of the name is neither one of those nor on a `use` or comment line. Most files are decided by
/// this quick look; the others get the exact [`derive_sites`] scan.
fn may_hide_derives(text: &str, built: impl Fn(usize, usize) -> bool) -> bool {
    // Lines counted up to `counted` (a line start).
    let (mut line, mut counted) = (1, 0);
    // `#[cfg(test)] mod x { .. }` bodies, which the index skips, found when a mention needs them.
    let mut test_modules: Option<Vec<(usize, usize)>> = None;
    for at in word_positions(text, "CustomResource") {
        let line_start = text[..at].rfind('\n').map_or(0, |p| p + 1);
        let head = text[line_start..at].trim_start();
        if head.starts_with("use ") || head.starts_with("pub use ") || head.starts_with("//") {
            continue;
        }
        line += text[counted..line_start].matches('\n').count();
        counted = line_start;
        if built(line, text[line_start..at].chars().count() + 1) {
            continue;
        }
        let tests = test_modules.get_or_insert_with(|| {
            let b = text.as_bytes();
            let cfg_test = |p: &usize| b[*p..].starts_with(b"#[cfg(test)]");
            let starts = text.match_indices('#').map(|(p, _)| p).filter(cfg_test);
            starts.filter_map(|p| lex::cfg_test_module_body(b, p)).collect()
        });
        if !tests.iter().any(|(open, close)| (*open..*close).contains(&at)) {
            return true;
        }
    }
    false
}

/// A `CustomResource` inside a derive attribute, found lexically.
#[derive(Debug, PartialEq)]
struct DeriveSite {
    line: usize,
    column: usize,
    cfg_attr: bool,
    /// Where its attribute starts (the `#`).
    attribute: usize,
}

/// Every `CustomResource` named in a `#[derive(..)]` or `#[cfg_attr(.., derive(..))]` of `text`, outside
/// comments, literals and `#[cfg(test)]` modules (which the index skips on purpose).
fn derive_sites(text: &str) -> Vec<DeriveSite> {
    let b = text.as_bytes();
    let n = b.len();
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        // Only `#` (an attribute) and the starts of comments, strings and chars matter.
        while i < n && !SCAN_BYTES[b[i] as usize] {
            i += 1;
        }
        if i >= n {
            break;
        }
        if b[i] == b'"' {
            i = lex::skip_string_at_quote(b, i);
            continue;
        }
        if b[i] != b'#' {
            i = lex::skip_literal(b, i).unwrap_or(i + 1);
            continue;
        }
        if let Some((_, close)) = lex::cfg_test_module_body(b, i) {
            i = close + 1;
            continue;
        }
        let Some(end) = lex::attribute_end(b, i) else {
            i += 1;
            continue;
        };
        let body = &text[i..end];
        let inner = body.trim_start_matches('#').trim_start().trim_start_matches('[').trim_start();
        let cfg_attr = inner.starts_with("cfg_attr");
        if inner.starts_with("derive") || cfg_attr {
            for at in word_positions(body, "CustomResource") {
                let (line, column) = line_col(text, i + at);
                out.push(DeriveSite { line, column, cfg_attr, attribute: i });
            }
        }
        i = end;
    }
    out
}

/// The bytes [`derive_sites`] stops at.
const SCAN_BYTES: [bool; 256] = {
    let mut t = [false; 256];
    t[b'#' as usize] = true;
    t[b'/' as usize] = true;
    t[b'"' as usize] = true;
    t[b'\'' as usize] = true;
    t
};

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// The kind named by the outer attributes that start at `at` (the derive and its neighbours), if they read.
fn kind_after(text: &str, at: usize) -> Option<(String, String, String)> {
    let b = text.as_bytes();
    let mut k = at;
    loop {
        while k < b.len() && b[k].is_ascii_whitespace() {
            k += 1;
        }
        if b.get(k) == Some(&b'/') && matches!(b.get(k + 1), Some(b'/' | b'*')) {
            k = lex::skip_literal(b, k)?;
            continue;
        }
        if b.get(k) != Some(&b'#') {
            break;
        }
        k = lex::attribute_end(b, k)?;
    }
    let attrs = syn::parse::Parser::parse_str(syn::Attribute::parse_outer, &text[at..k]).ok()?;
    let k = kube_attrs::parse(&attrs, Span::call_site()).ok()?;
    Some(crd_key(&k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derive_sites_skip_comments_literals_and_test_modules() {
        let src = r##"// #[derive(CustomResource)]
const S: &str = "#[derive(CustomResource)]"; const R: &str = r#"#[derive(CustomResource)]"#; const C: char = '#';
#[derive(Clone, kube::CustomResource, Debug)]
#[kube(group = "g.io", version = "v1", kind = "Top")]
struct TopSpec {}
fn f() {
    #[derive(CustomResource)]
    #[kube(group = "g.io", version = "v1", kind = "Inner")]
    struct InnerSpec {}
}
#[cfg_attr(feature = "crd", derive(CustomResource))]
struct Gated {}
#[derive(CustomResourceExt)]
struct NotIt;
#[cfg(test)]
mod tests {
    #[derive(CustomResource)]
    struct Hidden {}
}
"##;
        assert!(may_hide_derives(src, |_, _| false));
        assert!(!may_hide_derives(
            "use kube::CustomResource;\n/// CustomResource\n#[derive(CustomResource)]",
            |l, c| (l, c) == (3, 10)
        ));
        assert!(may_hide_derives("use kube::CustomResource;\n#[derive(CustomResource)]", |l, c| (l, c) == (3, 10)));
        assert!(!may_hide_derives("#[cfg(test)]\nmod t {\n    #[derive(CustomResource)]\n}\n", |_, _| false));
        let sites = derive_sites(src);
        let lines: Vec<(usize, usize, bool)> = sites.iter().map(|s| (s.line, s.column, s.cfg_attr)).collect();
        assert_eq!(lines, [(3, 23, false), (7, 14, false), (11, 36, true)]);
        assert_eq!(kind_after(src, sites[1].attribute), Some(("g.io".into(), "Inner".into(), "inners.g.io".into())));
    }
}
