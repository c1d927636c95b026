//! Lexical rewrites of the module paths a single-group project's code names (`api::v1`, `controller::memcached`,
//! `webhook::v1`) to their multigroup places, touching nothing else in the text.

/// The modules that move below the group module.
#[derive(Debug, Clone)]
pub struct Renames {
    /// The crate's own name, which paths from tests and `main.rs` start with (`memcached_operator`).
    pub crate_name: String,
    /// The group module's ident (`cache`).
    pub group: String,
    /// Version module idents (`v1alpha1`), moved below `api::<group>` and `webhook::<group>`.
    pub versions: Vec<String>,
    /// Controller module idents (`memcached`, `r#type`), moved below `controller::<group>`.
    pub controllers: Vec<String>,
}

/// Rewrites `api::<version>`, `webhook::<version>` and `controller::<kind>` to put the group module in between.
/// A path is rewritten when it starts there (`use crate::{api::v1::X, ..}`) or right after `crate::` or the
/// crate's name; `kube::runtime::controller::Action` and other crates' `api` modules are left alone.
pub fn rewrite_paths(text: &str, r: &Renames) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut last = 0;
    let mut i = 0;
    while let Some((start, end)) = next_ident(text, i) {
        i = end;
        let root = &text[start..end];
        let children: &[String] = match root {
            "api" | "webhook" => &r.versions,
            "controller" => &r.controllers,
            _ => continue,
        };
        let Some(rest) = text[end..].strip_prefix("::") else { continue };
        let Some((cs, ce)) = next_ident(rest, 0).filter(|&(cs, _)| cs == 0) else { continue };
        if !children.iter().any(|c| c == &rest[cs..ce]) || !starts_path(text, start, &r.crate_name) {
            continue;
        }
        out.push_str(&text[last..end + 2]);
        out.push_str(&r.group);
        out.push_str("::");
        last = end + 2;
    }
    out.push_str(&text[last..]);
    out
}

/// True when the identifier at `start` begins a path, or follows `crate::` / `<crate_name>::`.
fn starts_path(text: &str, start: usize, crate_name: &str) -> bool {
    let before = &text[..start];
    match before.strip_suffix("::") {
        None => !before.chars().next_back().is_some_and(is_ident_char),
        Some(prefix) => ["crate", crate_name]
            .iter()
            .any(|root| prefix.strip_suffix(root).is_some_and(|p| !p.chars().next_back().is_some_and(is_ident_char))),
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The next identifier (`r#type` counts as one) at or after byte `from`: its start and end.
fn next_ident(text: &str, from: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut i = from;
    while i < bytes.len() {
        let c = text[i..].chars().next()?;
        if is_ident_char(c) {
            let raw = text[i..].starts_with("r#") && text[i + 2..].starts_with(|c: char| is_ident_char(c));
            let body = if raw { i + 2 } else { i };
            let end = body + text[body..].find(|c: char| !is_ident_char(c)).unwrap_or(text.len() - body);
            return Some((i, end));
        }
        i += c.len_utf8();
    }
    None
}

/// Rewrites the relative registration lines of `src/webhook.rs` (`v1::memcached::registration(),`) to start
/// with the group module.
pub fn rewrite_webhook_registrations(text: &str, r: &Renames) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let moves = trimmed.ends_with("::registration(),\n") || trimmed.ends_with("::registration(),");
        match trimmed.split_once("::") {
            Some((first, _)) if moves && r.versions.iter().any(|v| v == first) => {
                let indent = &line[..line.len() - trimmed.len()];
                out.push_str(indent);
                out.push_str(&r.group);
                out.push_str("::");
                out.push_str(trimmed);
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// Replaces `old` by `new` where it stands as a whole word (for test names and role names).
pub fn replace_word(text: &str, old: &str, new: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (at, _) in text.match_indices(old) {
        let before = text[..at].chars().next_back();
        let after = text[at + old.len()..].chars().next();
        if at >= last && !before.is_some_and(is_ident_char) && !after.is_some_and(is_ident_char) {
            out.push_str(&text[last..at]);
            out.push_str(new);
            last = at + old.len();
        }
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn renames() -> Renames {
        Renames {
            crate_name: "memcached_operator".into(),
            group: "cache".into(),
            versions: vec!["v1".into(), "v1alpha1".into()],
            controllers: vec!["memcached".into(), "r#type".into()],
        }
    }

    #[test]
    fn rewrites_paths_the_scaffold_writes() {
        let r = renames();
        let cases = [
            (
                "use crate::{api::v1alpha1::{Memcached, MemcachedStatus}, webhook::Webhook};",
                "use crate::{api::cache::v1alpha1::{Memcached, MemcachedStatus}, webhook::Webhook};",
            ),
            (
                "memcached_operator::controller::memcached::registration(),",
                "memcached_operator::controller::cache::memcached::registration(),",
            ),
            (
                "use memcached_operator::webhook::v1alpha1::memcached::registration;",
                "use memcached_operator::webhook::cache::v1alpha1::memcached::registration;",
            ),
            (
                "conversion.spoke::<crate::api::v1::Memcached>();",
                "conversion.spoke::<crate::api::cache::v1::Memcached>();",
            ),
            ("use crate::api::v1alpha1 as hub;", "use crate::api::cache::v1alpha1 as hub;"),
            ("crate::controller::r#type::run", "crate::controller::cache::r#type::run"),
        ];
        for (before, after) in cases {
            assert_eq!(rewrite_paths(before, &r), after, "{before}");
        }
    }

    #[test]
    fn leaves_other_paths_alone() {
        let r = renames();
        for text in [
            "use kube::runtime::controller::Action;",
            "use k8s_openapi::api::core::v1::Pod;",
            "other::api::v1::X",
            "crate::api::v1beta1::X",
            "crate::api::cache::v1::X",
            "my_api::v1::X",
            "crate::controller::memcached_extra::X",
            "let api = Api::<Memcached>::all(client);",
        ] {
            assert_eq!(rewrite_paths(text, &r), text);
        }
    }

    #[test]
    fn webhook_registrations_and_words() {
        let r = renames();
        let text = "    vec![\n        v1alpha1::memcached::registration(),\n        // +kubesmith:scaffold:webhooks\n";
        assert_eq!(
            rewrite_webhook_registrations(text, &r),
            "    vec![\n        cache::v1alpha1::memcached::registration(),\n        // +kubesmith:scaffold:webhooks\n"
        );
        assert_eq!(
            replace_word("--test webhook_v1_memcached -- x webhook_v1_memcached_2", "webhook_v1_memcached", "W"),
            "--test W -- x webhook_v1_memcached_2"
        );
    }
}
