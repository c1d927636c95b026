//! Kubernetes versions of envtest binaries (`1.30.2`) and the selectors that pick one, as setup-envtest reads
//! them: `latest`, `1.30.x` / `1.30.*` / `1.30` (any patch of 1.30), `1.30.2`, `~1.30.2` (1.30.2 or a later
//! patch), `<1.31` / `<=1.30.2` (older ones), each optionally ending in `!` (check the index for a newer release).

use std::fmt;
use std::sync::LazyLock;

use regex::Regex;

/// A concrete version, `major.minor.patch`; orders oldest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
}

impl Version {
    pub const fn new(major: u64, minor: u64, patch: u64) -> Self {
        Version { major, minor, patch }
    }

    /// The first `X.Y.Z` (optionally after a `v`) in `text`: `Kubernetes v1.20.2` gives 1.20.2.
    pub fn find_in(text: &str) -> Option<Version> {
        static RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(\d+)\.(\d+)\.(\d+)").expect("valid regex"));
        let c = RE.captures(text)?;
        Some(Version::new(c[1].parse().ok()?, c[2].parse().ok()?, c[3].parse().ok()?))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// Which versions a selector takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Range {
    /// `latest`, or nothing.
    Any,
    /// `X.Y.x`, `X.Y.*`, `X.Y`.
    Minor { major: u64, minor: u64 },
    /// `X.Y.Z`.
    Exact(Version),
    /// `~X.Y.Z` (`~X.Y` is `~X.Y.0`): X.Y.Z or a later patch of X.Y.
    Tilde(Version),
    /// `<X.Y[.Z]`, `<=X.Y[.Z]`; without a patch, `<=` takes every patch of X.Y and `<` none.
    Below { major: u64, minor: u64, patch: Option<u64>, or_equal: bool },
}

/// A version selector as written on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    range: Range,
    /// The selector ended in `!`: look in the index for a newer matching release even when one is installed.
    pub check_index: bool,
    text: String,
}

/// A selector that does not parse (a usage error).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is no envtest version selector: write X.Y.Z (1.30.2), X.Y or X.Y.x (the newest patch of 1.30), ~X.Y[.Z], \
     <X.Y[.Z], <=X.Y[.Z] or latest, optionally followed by ! to check the index for a newer release"
)]
pub struct SelectorError(pub String);

impl Selector {
    /// Parses `VERSION` (empty: `latest`); a leading `v` on the version is accepted (`v1.30.2`, `~v1.30`).
    pub fn parse(text: &str) -> Result<Selector, SelectorError> {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"^(<=|<|~)?v?(0|[1-9]\d*)\.(0|[1-9]\d*)(?:\.(0|[1-9]\d*|x|X|\*))?$").expect("valid regex")
        });
        let trimmed = text.trim();
        let (body, check_index) = match trimmed.strip_suffix('!') {
            Some(b) => (b, true),
            None => (trimmed, false),
        };
        let err = || SelectorError(text.to_string());
        if body.is_empty() || body == "latest" {
            return Ok(Selector {
                range: Range::Any,
                check_index,
                text: format!("latest{}", if check_index { "!" } else { "" }),
            });
        }
        let c = RE.captures(body).ok_or_else(err)?;
        let number = |i: usize| c[i].parse::<u64>().map_err(|_| err());
        let (major, minor) = (number(2)?, number(3)?);
        let patch = match c.get(4).map(|m| m.as_str()) {
            None | Some("x" | "X" | "*") => None,
            Some(p) => Some(p.parse::<u64>().map_err(|_| err())?),
        };
        let range = match (c.get(1).map(|m| m.as_str()), patch) {
            (None, None) => Range::Minor { major, minor },
            (None, Some(patch)) => Range::Exact(Version::new(major, minor, patch)),
            (Some("~"), patch) => Range::Tilde(Version::new(major, minor, patch.unwrap_or(0))),
            (Some(op), patch) => Range::Below { major, minor, patch, or_equal: op == "<=" },
        };
        Ok(Selector { range, check_index, text: trimmed.to_string() })
    }

    /// Whether `v` is one of the selected versions.
    pub fn matches(&self, v: Version) -> bool {
        match self.range {
            Range::Any => true,
            Range::Minor { major, minor } => v.major == major && v.minor == minor,
            Range::Exact(e) => v == e,
            Range::Tilde(t) => v.major == t.major && v.minor == t.minor && v.patch >= t.patch,
            Range::Below { major, minor, patch, or_equal } => match (v.major.cmp(&major), v.minor.cmp(&minor)) {
                (std::cmp::Ordering::Less, _) => true,
                (std::cmp::Ordering::Greater, _) => false,
                (_, std::cmp::Ordering::Less) => true,
                (_, std::cmp::Ordering::Greater) => false,
                _ => match patch {
                    None => or_equal,
                    Some(p) => v.patch < p || (or_equal && v.patch == p),
                },
            },
        }
    }

    /// Whether the selector is `latest` (every version).
    pub fn is_latest(&self) -> bool {
        self.range == Range::Any
    }

    /// Up to `n` of `available` closest to the selected versions, newest first (for "no such version" errors).
    pub fn nearest(&self, available: &[Version], n: usize) -> Vec<Version> {
        let mut all: Vec<Version> = available.to_vec();
        all.sort();
        all.dedup();
        let target = match self.range {
            Range::Any => return all.into_iter().rev().take(n).collect(),
            Range::Minor { major, minor } => Version::new(major, minor, 0),
            Range::Exact(v) | Range::Tilde(v) => v,
            Range::Below { major, minor, patch, .. } => Version::new(major, minor, patch.unwrap_or(0)),
        };
        all.sort_by_key(|v| {
            (v.major.abs_diff(target.major), v.minor.abs_diff(target.minor), v.patch.abs_diff(target.patch))
        });
        all.truncate(n);
        all.sort_by_key(|v| std::cmp::Reverse(*v));
        all
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::find_in(s).unwrap()
    }

    fn sel(s: &str) -> Selector {
        Selector::parse(s).unwrap()
    }

    #[test]
    fn versions_are_found_in_kube_apiserver_output() {
        assert_eq!(Version::find_in("Kubernetes v1.20.2\n"), Some(Version::new(1, 20, 2)));
        assert_eq!(Version::find_in("Kubernetes v1.31.0-alpha.1"), Some(Version::new(1, 31, 0)));
        assert_eq!(Version::find_in("Kubernetes"), None);
        assert!(Version::new(1, 9, 0) < Version::new(1, 10, 0));
    }

    #[test]
    fn selectors_match_like_setup_envtest() {
        assert!(sel("").is_latest() && sel("latest").is_latest());
        assert!(sel("latest!").check_index && sel("1.30.x!").check_index && !sel("1.30.x").check_index);
        for s in ["1.30.x", "1.30.*", "1.30", "v1.30", "1.30.X"] {
            assert!(sel(s).matches(v("1.30.0")) && sel(s).matches(v("1.30.9")), "{s}");
            assert!(!sel(s).matches(v("1.31.0")) && !sel(s).matches(v("1.29.9")), "{s}");
        }
        assert!(sel("1.30.2").matches(v("1.30.2")) && !sel("1.30.2").matches(v("1.30.3")));
        assert!(sel("~1.30.2").matches(v("1.30.5")) && !sel("~1.30.2").matches(v("1.30.1")));
        assert!(!sel("~1.30.2").matches(v("1.31.0")) && sel("~1.30").matches(v("1.30.0")));
        assert!(sel("<1.31").matches(v("1.30.9")) && !sel("<1.31").matches(v("1.31.0")));
        assert!(sel("<=1.31").matches(v("1.31.4")) && !sel("<=1.31").matches(v("1.32.0")));
        assert!(sel("<1.30.2").matches(v("1.30.1")) && !sel("<1.30.2").matches(v("1.30.2")));
        assert!(sel("<=1.30.2").matches(v("1.30.2")) && sel("<1.31").matches(v("0.99.0")));
        assert_eq!(sel("1.30.x!").to_string(), "1.30.x!");
    }

    #[test]
    fn malformed_selectors_are_refused() {
        for s in ["1", "1.x", "1.30.2.1", "abc", ">1.30", "1.30.02", "~", "1.30-beta", "latest-on-disk"] {
            let e = Selector::parse(s).unwrap_err();
            assert!(e.to_string().contains(&format!("`{s}`")) && e.to_string().contains("X.Y.Z"), "{e}");
        }
    }

    #[test]
    fn nearest_versions_surround_the_selector() {
        let all = [v("1.28.0"), v("1.29.3"), v("1.30.0"), v("1.30.2"), v("1.31.0"), v("1.32.1")];
        assert_eq!(sel("1.30.5").nearest(&all, 3), vec![v("1.30.2"), v("1.30.0"), v("1.29.3")]);
        assert_eq!(sel("1.27.x").nearest(&all, 2), vec![v("1.29.3"), v("1.28.0")]);
        assert_eq!(sel("latest").nearest(&all, 2), vec![v("1.32.1"), v("1.31.0")]);
    }
}
