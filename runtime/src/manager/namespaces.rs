//! Which namespaces the controllers watch: `--watch-namespace` / `WATCH_NAMESPACE`, one namespace or a
//! comma-separated list (as OLM's `olm.targetNamespaces` annotation gives it), empty for every namespace.

use std::fmt;

/// The namespaces a manager's namespaced controllers watch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WatchNamespaces(Vec<String>);

impl WatchNamespaces {
    /// Every namespace (the cluster-scoped default).
    pub fn all() -> Self {
        Self(Vec::new())
    }

    /// Whether every namespace is watched.
    pub fn is_all(&self) -> bool {
        self.0.is_empty()
    }

    /// The scopes to start a namespaced controller in: each watched namespace, or `None` (every namespace).
    pub fn scopes(&self) -> Vec<Option<String>> {
        if self.is_all() { vec![None] } else { self.0.iter().cloned().map(Some).collect() }
    }
}

impl fmt::Display for WatchNamespaces {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_all() { f.write_str("all namespaces") } else { f.write_str(&self.0.join(",")) }
    }
}

/// Parses `""` (every namespace), `ns` or `ns1,ns2`: names are trimmed, empty entries and repeats dropped, and
/// each must be a valid namespace name (a DNS-1123 label).
pub fn parse_watch_namespaces(value: &str) -> Result<WatchNamespaces, String> {
    let mut namespaces: Vec<String> = Vec::new();
    for name in value.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if !is_dns1123_label(name) {
            return Err(format!(
                "{name:?} is not a namespace name (lowercase letters, digits and '-', at most 63 characters, \
                 starting and ending with a letter or digit)"
            ));
        }
        if !namespaces.iter().any(|n| n == name) {
            namespaces.push(name.to_string());
        }
    }
    Ok(WatchNamespaces(namespaces))
}

fn is_dns1123_label(name: &str) -> bool {
    let alnum = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    name.len() <= 63 && name.starts_with(alnum) && name.ends_with(alnum) && name.chars().all(|c| alnum(c) || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(value: &str) -> Vec<Option<String>> {
        parse_watch_namespaces(value).expect("valid list").scopes()
    }

    #[test]
    fn empty_means_every_namespace() {
        assert_eq!(parse(""), [None]);
        assert_eq!(parse(" , "), [None]);
        assert!(parse_watch_namespaces("").expect("valid").is_all());
    }

    #[test]
    fn lists_are_trimmed_and_deduplicated_in_order() {
        assert_eq!(parse("team-a"), [Some("team-a".to_string())]);
        assert_eq!(parse(" team-b, team-a,,team-b "), [Some("team-b".to_string()), Some("team-a".to_string())]);
        let list = parse_watch_namespaces("a,b").expect("valid");
        assert_eq!(list.to_string(), "a,b");
        assert_eq!(WatchNamespaces::all().to_string(), "all namespaces");
    }

    #[test]
    fn invalid_names_are_refused() {
        for bad in ["Team", "a_b", "-a", "a-", &"a".repeat(64)] {
            let err = parse_watch_namespaces(bad).expect_err(bad);
            assert!(err.contains("is not a namespace name"), "{err}");
        }
    }
}
