//! Strict semantic versions (semver 2.0.0, as blang/semver parses them) and blang-style ranges
//! (`>=1.0.0 <2.0.0 || 3.0.0`, wildcards `1.2.x`), as OLM uses them for `spec.version`, `minKubeVersion`,
//! `olm.skipRange` and the version ranges of package dependencies.

use std::cmp::Ordering;
use std::fmt;

/// One pre-release identifier: numeric identifiers sort before alphanumeric ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pre {
    Num(u64),
    Alpha(String),
}

/// A parsed semantic version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: Vec<Pre>,
    pub build: Vec<String>,
}

fn number(s: &str, what: &str) -> Result<u64, String> {
    if s.is_empty() {
        return Err(format!("{what} number is empty"));
    }
    if !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("invalid character(s) found in {what} number {s:?}"));
    }
    if s.len() > 1 && s.starts_with('0') {
        return Err(format!("{what} number must not contain leading zeroes {s:?}"));
    }
    s.parse().map_err(|_| format!("{what} number {s:?} is too large"))
}

fn ident_ok(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

impl Version {
    /// Parses `MAJOR.MINOR.PATCH[-pre][+build]` strictly: no leading `v`, no leading zeros, three numbers.
    pub fn parse(s: &str) -> Result<Version, String> {
        if s.is_empty() {
            return Err("version string empty".into());
        }
        let (rest, build) = match s.split_once('+') {
            Some((r, b)) => (r, Some(b)),
            None => (s, None),
        };
        let (core, pre) = match rest.split_once('-') {
            Some((c, p)) => (c, Some(p)),
            None => (rest, None),
        };
        let parts: Vec<&str> = core.split('.').collect();
        if parts.len() != 3 {
            return Err("no Major.Minor.Patch elements found".into());
        }
        let mut v = Version {
            major: number(parts[0], "Major")?,
            minor: number(parts[1], "Minor")?,
            patch: number(parts[2], "Patch")?,
            pre: Vec::new(),
            build: Vec::new(),
        };
        if let Some(pre) = pre {
            for id in pre.split('.') {
                if !ident_ok(id) {
                    return Err(format!("invalid character(s) found in prerelease {id:?}"));
                }
                if id.bytes().all(|b| b.is_ascii_digit()) {
                    v.pre.push(Pre::Num(number(id, "prerelease")?));
                } else {
                    v.pre.push(Pre::Alpha(id.to_string()));
                }
            }
        }
        if let Some(build) = build {
            for id in build.split('.') {
                if !ident_ok(id) {
                    return Err(format!("invalid character(s) found in build meta data {id:?}"));
                }
                v.build.push(id.to_string());
            }
        }
        Ok(v)
    }

    /// Parses and requires the text to be the canonical form (what `--version` accepts).
    pub fn parse_canonical(s: &str) -> Result<Version, String> {
        let v = Version::parse(s)?;
        if v.to_string() != s {
            return Err(format!("version {s} contains bad values (parses to {v})"));
        }
        Ok(v)
    }
}

/// blang/semver's `Parse`, with its error texts (operator-framework prints them): strict like [`Version::parse`].
pub fn parse_blang(s: &str) -> Result<Version, String> {
    fn uint(s: &str) -> Result<u64, String> {
        s.parse().map_err(|_| {
            let why = if s.is_empty() { "invalid syntax" } else { "value out of range" };
            format!("strconv.ParseUint: parsing {}: {why}", quote_go(s))
        })
    }
    fn numeric(part: &str, what: &str, capital: &str) -> Result<u64, String> {
        if !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("Invalid character(s) found in {what} number {}", quote_go(part)));
        }
        if part.len() > 1 && part.starts_with('0') {
            return Err(format!("{capital} number must not contain leading zeroes {}", quote_go(part)));
        }
        uint(part)
    }
    if s.is_empty() {
        return Err("Version string empty".into());
    }
    let parts: Vec<&str> = s.splitn(3, '.').collect();
    if parts.len() != 3 {
        return Err("No Major.Minor.Patch elements found".into());
    }
    let major = numeric(parts[0], "major", "Major")?;
    let minor = numeric(parts[1], "minor", "Minor")?;
    let mut patch = parts[2];
    let mut build: Vec<&str> = Vec::new();
    let mut pre: Vec<&str> = Vec::new();
    if let Some((p, b)) = patch.split_once('+') {
        build = b.split('.').collect();
        patch = p;
    }
    if let Some((p, r)) = patch.split_once('-') {
        pre = r.split('.').collect();
        patch = p;
    }
    let patch = numeric(patch, "patch", "Patch")?;
    let mut v = Version { major, minor, patch, pre: Vec::new(), build: Vec::new() };
    for id in pre {
        if id.is_empty() {
            return Err("Prerelease is empty".into());
        }
        if id.bytes().all(|b| b.is_ascii_digit()) {
            if id.len() > 1 && id.starts_with('0') {
                return Err(format!("Numeric PreRelease version must not contain leading zeroes {}", quote_go(id)));
            }
            v.pre.push(Pre::Num(uint(id)?));
        } else if ident_ok(id) {
            v.pre.push(Pre::Alpha(id.to_string()));
        } else {
            return Err(format!("Invalid character(s) found in prerelease {}", quote_go(id)));
        }
    }
    for id in build {
        if id.is_empty() {
            return Err("Build meta data is empty".into());
        }
        if !ident_ok(id) {
            return Err(format!("Invalid character(s) found in build meta data {}", quote_go(id)));
        }
        v.build.push(id.to_string());
    }
    Ok(v)
}

/// blang/semver v4's `ParseTolerant`: trims spaces and a leading `v`, drops leading zeros, fills a short
/// `1` or `1.2` with zeros; then [`parse_blang`].
pub fn parse_tolerant(s: &str) -> Result<Version, String> {
    let s = s.trim();
    let s = s.strip_prefix('v').unwrap_or(s);
    let mut parts: Vec<String> = s
        .splitn(3, '.')
        .map(|p| {
            if p.len() > 1 {
                let t = p.trim_start_matches('0');
                if t.is_empty() || !t.as_bytes()[0].is_ascii_digit() { format!("0{t}") } else { t.to_string() }
            } else {
                p.to_string()
            }
        })
        .collect();
    if parts.len() < 3 {
        if parts.last().is_some_and(|p| p.contains(['+', '-'])) {
            return Err("Short version cannot contain PreRelease/Build meta data".into());
        }
        while parts.len() < 3 {
            parts.push("0".into());
        }
    }
    parse_blang(&parts.join("."))
}

/// Go's `%q` for the ASCII texts these messages quote.
fn quote_go(s: &str) -> String {
    format!("{s:?}")
}

impl Version {
    /// blang's `Compare` >= 0: precedence without build metadata.
    pub fn ge(&self, other: &Version) -> bool {
        let strip = |v: &Version| Version { build: Vec::new(), ..v.clone() };
        strip(self) >= strip(other)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        for (i, p) in self.pre.iter().enumerate() {
            f.write_str(if i == 0 { "-" } else { "." })?;
            match p {
                Pre::Num(n) => write!(f, "{n}")?,
                Pre::Alpha(a) => f.write_str(a)?,
            }
        }
        if !self.build.is_empty() {
            write!(f, "+{}", self.build.join("."))?;
        }
        Ok(())
    }
}

impl Ord for Version {
    /// Semver precedence; build metadata breaks ties last so that the order is total.
    fn cmp(&self, o: &Self) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(o.major, o.minor, o.patch))
            .then_with(|| match (self.pre.is_empty(), o.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => {
                    for (a, b) in self.pre.iter().zip(&o.pre) {
                        let c = match (a, b) {
                            (Pre::Num(x), Pre::Num(y)) => x.cmp(y),
                            (Pre::Num(_), Pre::Alpha(_)) => Ordering::Less,
                            (Pre::Alpha(_), Pre::Num(_)) => Ordering::Greater,
                            (Pre::Alpha(x), Pre::Alpha(y)) => x.cmp(y),
                        };
                        if c != Ordering::Equal {
                            return c;
                        }
                    }
                    self.pre.len().cmp(&o.pre.len())
                }
            })
            .then_with(|| self.build.cmp(&o.build))
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
}

/// A blang/semver range: `||`-separated alternatives of space-separated comparisons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Range {
    any_of: Vec<Vec<(Op, Version)>>,
}

impl Range {
    pub fn parse(s: &str) -> Result<Range, String> {
        let mut any_of = Vec::new();
        for alt in s.split("||") {
            let mut all = Vec::new();
            let parts: Vec<&str> = alt.split_whitespace().collect();
            let mut i = 0;
            while i < parts.len() {
                let mut p = parts[i].to_string();
                // `>= 1.0.0` (operator and version apart) reads as `>=1.0.0`.
                if ["<", "<=", ">", ">=", "=", "==", "!=", "!"].contains(&p.as_str()) && i + 1 < parts.len() {
                    p.push_str(parts[i + 1]);
                    i += 1;
                }
                let (op, v) = if let Some(v) = p.strip_prefix(">=") {
                    (Op::Ge, v)
                } else if let Some(v) = p.strip_prefix("<=") {
                    (Op::Le, v)
                } else if let Some(v) = p.strip_prefix("!=").or_else(|| p.strip_prefix('!')) {
                    (Op::Ne, v)
                } else if let Some(v) = p.strip_prefix("==").or_else(|| p.strip_prefix('=')) {
                    (Op::Eq, v)
                } else if let Some(v) = p.strip_prefix('>') {
                    (Op::Gt, v)
                } else if let Some(v) = p.strip_prefix('<') {
                    (Op::Lt, v)
                } else {
                    (Op::Eq, p.as_str())
                };
                if v.contains(".x") {
                    for (op, version) in
                        expand_wildcard(op, v).map_err(|e| format!("could not parse Range {s:?}: {e}"))?
                    {
                        all.push((op, version));
                    }
                } else {
                    let version = Version::parse(v).map_err(|e| format!("could not parse Range {s:?}: {e}"))?;
                    all.push((op, version));
                }
                i += 1;
            }
            if all.is_empty() {
                return Err(format!("could not parse Range {s:?}: empty alternative"));
            }
            any_of.push(all);
        }
        Ok(Range { any_of })
    }

    /// Whether a version satisfies the range.
    pub fn contains(&self, v: &Version) -> bool {
        self.any_of.iter().any(|all| {
            all.iter().all(|(op, w)| match op {
                Op::Eq => v == w,
                Op::Ne => v != w,
                Op::Gt => v > w,
                Op::Ge => v >= w,
                Op::Lt => v < w,
                Op::Le => v <= w,
            })
        })
    }
}

/// blang's wildcard expansion (`1.2.x`, `1.x`, `1.x.x`): the number of dot-separated parts decides whether the patch
/// (three parts) or the minor (two parts) is the wildcard; `>=1.2.x` is `>=1.2.0`, `<=1.2.x` is `<1.3.0`, `>1.x` is
/// `>=2.0.0`, `1.x` is `>=1.0.0 <2.0.0`, `!=1.2.x` is `<1.2.0 || >=1.3.0` written as blang does (`<1.2.0 >=1.3.0`,
/// which no version satisfies).
fn expand_wildcard(op: Op, v: &str) -> Result<Vec<(Op, Version)>, String> {
    let parts = v.split('.').count();
    let patch_wildcard = parts == 3 && v.ends_with(".x");
    let minor_wildcard = parts == 2 && v.ends_with(".x");
    let flat = v.replacen(".x.x", ".x", 1).replacen(".x", ".0", 1);
    let flat = if flat.split('.').count() == 2 { format!("{flat}.0") } else { flat };
    let base = Version::parse(&flat).map_err(|e| format!("invalid wildcard version {v:?}: {e}"))?;
    let bumped = || {
        let mut b = base.clone();
        if patch_wildcard {
            b.minor += 1;
        } else if minor_wildcard {
            b.major += 1;
        }
        b
    };
    Ok(match op {
        Op::Ge => vec![(Op::Ge, base)],
        Op::Gt => vec![(Op::Ge, bumped())],
        Op::Lt => vec![(Op::Lt, base)],
        Op::Le => vec![(Op::Lt, bumped())],
        Op::Eq => vec![(Op::Ge, base.clone()), (Op::Lt, bumped())],
        Op::Ne => vec![(Op::Lt, base.clone()), (Op::Ge, bumped())],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_parsing() {
        assert!(Version::parse("1.2.3").is_ok());
        assert!(Version::parse("1.2.3-alpha.1+build.5").is_ok());
        for bad in ["v1.2.3", "1.2", "01.2.3", "1.2.3-", "1.2.3-a..b", "1.2.x", ""] {
            assert!(Version::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Version::parse_canonical("1.2.3-rc.1").unwrap().to_string(), "1.2.3-rc.1");
    }

    #[test]
    fn blang_parsing_and_tolerance() {
        assert_eq!(parse_blang("1.2").unwrap_err(), "No Major.Minor.Patch elements found");
        assert_eq!(parse_blang("x.1.2").unwrap_err(), "Invalid character(s) found in major number \"x\"");
        assert_eq!(parse_blang("1.02.0").unwrap_err(), "Minor number must not contain leading zeroes \"02\"");
        assert_eq!(parse_blang("1..0").unwrap_err(), "strconv.ParseUint: parsing \"\": invalid syntax");
        assert_eq!(parse_blang("1.2.3-").unwrap_err(), "Prerelease is empty");
        assert_eq!(parse_blang("1.2.3+a_b").unwrap_err(), "Invalid character(s) found in build meta data \"a_b\"");
        assert_eq!(parse_tolerant(" v1.25 ").unwrap().to_string(), "1.25.0");
        assert_eq!(parse_tolerant("4.08").unwrap().to_string(), "4.8.0");
        assert_eq!(parse_tolerant("4.8.1").unwrap().to_string(), "4.8.1");
        assert_eq!(parse_tolerant("1.2-rc").unwrap_err(), "Short version cannot contain PreRelease/Build meta data");
        assert_eq!(parse_tolerant("banana").unwrap_err(), "Invalid character(s) found in major number \"0banana\"");
        assert!(parse_tolerant("4.9.0+b").unwrap().ge(&parse_tolerant("4.9").unwrap()));
        assert!(!parse_tolerant("4.8.9").unwrap().ge(&parse_tolerant("4.9").unwrap()));
    }

    #[test]
    fn precedence() {
        let v = |s| Version::parse(s).unwrap();
        assert!(v("1.0.0-alpha") < v("1.0.0-alpha.1"));
        assert!(v("1.0.0-alpha.1") < v("1.0.0-beta"));
        assert!(v("1.0.0-rc.1") < v("1.0.0"));
        assert!(v("1.0.0") < v("1.0.1"));
        assert!(v("1.9.0") < v("1.10.0"));
    }

    #[test]
    fn ranges() {
        let r = Range::parse(">=0.1.0 <0.2.0").unwrap();
        assert!(r.contains(&Version::parse("0.1.5").unwrap()));
        assert!(!r.contains(&Version::parse("0.2.0").unwrap()));
        let r = Range::parse("<1.0.0 || >= 2.0.0").unwrap();
        assert!(r.contains(&Version::parse("2.1.0").unwrap()));
        assert!(!r.contains(&Version::parse("1.5.0").unwrap()));
        assert!(Range::parse(">=a").is_err());
        // blang's wildcards.
        let has = |r: &str, v: &str| Range::parse(r).unwrap().contains(&Version::parse(v).unwrap());
        assert!(has("1.2.x", "1.2.9") && !has("1.2.x", "1.3.0") && !has("1.2.x", "1.1.9"));
        assert!(has("1.x", "1.9.0") && !has("1.x", "2.0.0"));
        assert!(has(">=0.9.x <1.x", "0.9.0") && !has(">=0.9.x <1.x", "1.0.0"));
        assert!(has("<=1.2.x", "1.2.7") && !has("<=1.2.x", "1.3.0"));
        assert!(has(">1.x", "2.0.0") && !has(">1.x", "1.9.9"));
        assert!(Range::parse("1.y.x").is_err());
        assert!(Range::parse("").is_err());
    }
}
