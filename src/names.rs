//! Name rules for groups, versions, kinds and projects, the names derived from them (plural, modules, files), and the
//! nearest known name to a misspelled one.
//!
//! DNS-1123/1035 rules, kinds, versions (a warning for names that are not `vN[alpha|betaM]`), kube-derive's own plural
//! rule ([`kube_plural`], so the CRD name in YAML matches `Kind::crd_name()`), module names that survive keywords
//! (`r#type`, `self_`), the crate-name rules `init` adds to a project name ([`validate_crate_name`]: no leading digit,
//! keyword or name cargo reserves), [`closest`] (which markers and PROJECT use for "did you mean") and FNV-1a for the
//! leader election id ([`fnv32a`]).

use heck::ToSnakeCase;

/// A name the user gave that breaks a rule; the message says which rule and how to fix it.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct NameError(pub String);

const DNS1123_LABEL_MAX: usize = 63;
const DNS1123_SUBDOMAIN_MAX: usize = 253;

/// Checks a DNS-1123 label: lower-case alphanumerics and '-', starting and ending alphanumeric, at most 63 chars.
pub fn is_dns1123_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= DNS1123_LABEL_MAX
        && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

/// Checks a DNS-1123 subdomain: dot-separated DNS-1123 labels, at most 253 chars.
pub fn is_dns1123_subdomain(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= DNS1123_SUBDOMAIN_MAX
        && s.split('.').all(|l| {
            !l.is_empty()
                && l.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        })
}

/// Checks a DNS-1035 label: like DNS-1123 but starting with a letter.
pub fn is_dns1035_label(s: &str) -> bool {
    is_dns1123_label(s) && s.as_bytes()[0].is_ascii_lowercase()
}

/// Validates a project name (a DNS-1123 label, as kubebuilder requires).
pub fn validate_project_name(name: &str) -> Result<(), NameError> {
    if is_dns1123_label(name) {
        return Ok(());
    }
    Err(NameError(format!(
        "project name `{name}` is invalid: it must be a DNS-1123 label (lower-case letters, digits and '-', \
         starting and ending with a letter or digit, at most 63 characters); pass --project-name, e.g. --project-name memcached-operator"
    )))
}

/// Validates a project name as the name of the crate `init` writes (`Cargo.toml`'s `name`): Cargo refuses a
/// package name that starts with a digit, is a Rust keyword, or names its test library or build folders.
pub fn validate_crate_name(name: &str) -> Result<(), NameError> {
    let krate = crate_name(name);
    let why = if name.starts_with(|c: char| c.is_ascii_digit()) {
        "a crate name cannot start with a digit"
    } else if KEYWORDS.contains(&krate.as_str()) {
        "it is a Rust keyword"
    } else if krate == "test" {
        "it conflicts with Rust's built-in test library"
    } else if ["build", "deps", "examples", "incremental"].contains(&krate.as_str()) {
        "it conflicts with cargo's build folder names"
    } else {
        return Ok(());
    };
    Err(NameError(format!(
        "project name `{name}` cannot name the operator's crate: {why}; pass --project-name, e.g. --project-name \
         memcached-operator"
    )))
}

/// Validates the domain on its own (a DNS-1123 subdomain).
pub fn validate_domain(domain: &str) -> Result<(), NameError> {
    if is_dns1123_subdomain(domain) {
        return Ok(());
    }
    Err(NameError(format!(
        "domain `{domain}` is invalid: it must be a lower-case DNS-1123 subdomain such as `example.com`"
    )))
}

/// Joins group and domain the way kubebuilder does: `group.domain`, or either alone when the other is empty.
pub fn qualified_group(group: &str, domain: &str) -> String {
    match (group.is_empty(), domain.is_empty()) {
        (true, _) => domain.to_string(),
        (false, true) => group.to_string(),
        (false, false) => format!("{group}.{domain}"),
    }
}

/// Validates the group joined with the domain.
pub fn validate_group(group: &str, domain: &str) -> Result<(), NameError> {
    if group.is_empty() && domain.is_empty() {
        return Err(NameError("group cannot be empty when the project has no domain: pass --group".into()));
    }
    let full = qualified_group(group, domain);
    if is_dns1123_subdomain(&full) {
        return Ok(());
    }
    Err(NameError(format!(
        "group `{group}` is invalid: the full API group `{full}` must be a DNS-1123 subdomain \
         (lower-case letters, digits, '-' and '.', e.g. `cache`)"
    )))
}

/// Validates a version; returns a warning when it is valid but not of the Kubernetes `vN[alpha|betaM]` form.
pub fn validate_version(version: &str) -> Result<Option<String>, NameError> {
    if !is_dns1035_label(version) {
        return Err(NameError(format!(
            "version `{version}` is invalid: CRD versions must be DNS-1035 labels \
             (lower-case letters, digits and '-', starting with a letter), e.g. `v1alpha1`"
        )));
    }
    if is_conventional_version(version) {
        Ok(None)
    } else {
        Ok(Some(format!(
            "version `{version}` does not follow the Kubernetes convention `vN`, `vNalphaM` or `vNbetaM`; \
             kubectl and the API server will order it after every conventional version"
        )))
    }
}

/// A Kubernetes version's parts (`v2beta3` → `(2, 1, 3)`): its major, its level (0 alpha, 1 beta, 2 GA) and the
/// alpha or beta number (0 for GA); `None` for anything else (`v1beta`, `v1gamma1`, `1`). Sorting by the parts is
/// the order stackable-versioned keeps (major first); Kubernetes' priority puts the level first.
pub fn version_parts(v: &str) -> Option<(u64, u8, u64)> {
    let rest = v.strip_prefix('v')?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let major: u64 = rest[..digits].parse().ok()?;
    let tail = &rest[digits..];
    if tail.is_empty() {
        return Some((major, 2, 0));
    }
    let (level, n) = match tail.strip_prefix("alpha") {
        Some(n) => (0, n),
        None => (1, tail.strip_prefix("beta")?),
    };
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((major, level, n.parse().ok()?))
}

/// True for `v1`, `v2alpha3`, `v10beta1`.
pub fn is_conventional_version(v: &str) -> bool {
    let Some(rest) = v.strip_prefix('v') else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || rest.starts_with('0') {
        return false;
    }
    let tail = &rest[digits..];
    if tail.is_empty() {
        return true;
    }
    let n = tail.strip_prefix("alpha").or_else(|| tail.strip_prefix("beta"));
    matches!(n, Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && !n.starts_with('0'))
}

/// Names a kind may not take: the Rust prelude's, and the types and derives its own API file imports (`Condition`
/// in a scaffolded status; `IntOrString` and `BTreeMap` in types written from a CRD). Everything else the generated
/// code names goes through aliases (`Kind`, `KindSpec`, `KindStatus`) and qualified paths, so any other Kubernetes
/// kind name works, `Event`, `Webhook` and `Deployment` included.
#[rustfmt::skip]
const RESERVED_KINDS: &[&str] = &[
    "Option", "Some", "None", "Result", "Ok", "Err", "Vec", "String", "Box", "Default",
    "Clone", "Debug", "Copy", "Send", "Sync", "Sized", "Drop", "Fn", "FnMut", "FnOnce",
    "Iterator", "IntoIterator", "Into", "From", "TryFrom", "TryInto", "Self", "PartialEq", "Eq", "PartialOrd", "Ord",
    "ToString", "ToOwned", "AsRef", "AsMut", "Extend", "Unpin",
    "Condition", "CustomResource", "CustomResourceExt", "JsonSchema", "Serialize", "Deserialize", "IntOrString",
    "BTreeMap",
];

/// Validates a kind: starts upper-case, ASCII alphanumeric, a DNS-1035 label once lower-cased.
pub fn validate_kind(kind: &str) -> Result<(), NameError> {
    let Some(first) = kind.chars().next() else {
        return Err(NameError("kind cannot be empty: pass --kind, e.g. --kind Memcached".into()));
    };
    if !first.is_ascii_uppercase() {
        return Err(NameError(format!(
            "kind `{kind}` is invalid: it must start with an upper-case letter, e.g. `{}`",
            upper_first(kind)
        )));
    }
    if !kind.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(NameError(format!(
            "kind `{kind}` is invalid: it may only contain ASCII letters and digits (PascalCase, e.g. `MemcachedBackup`)"
        )));
    }
    if kind.len() > DNS1123_LABEL_MAX {
        return Err(NameError(format!("kind `{kind}` is invalid: it must be at most 63 characters long")));
    }
    if RESERVED_KINDS.contains(&kind) {
        return Err(NameError(format!(
            "kind `{kind}` would shadow the Rust type `{kind}` used by the generated code; choose another name, e.g. `{kind}Resource`"
        )));
    }
    Ok(())
}

/// Validates a user-given plural (a DNS-1035 label).
pub fn validate_plural(plural: &str) -> Result<(), NameError> {
    if is_dns1035_label(plural) {
        return Ok(());
    }
    Err(NameError(format!("plural `{plural}` is invalid: it must be a lower-case DNS-1035 label, e.g. `memcacheds`")))
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
}

/// kube-derive's own plural rule (`to_plural` in kube-derive 5): the CRD name in code and YAML must agree.
pub fn kube_plural(singular: &str) -> String {
    if singular.ends_with('s')
        || singular.ends_with('x')
        || singular.ends_with('z')
        || singular.ends_with("ch")
        || singular.ends_with("sh")
    {
        return format!("{singular}es");
    }
    if let Some(stem) = singular.strip_suffix('y') {
        let consonant_before = stem.chars().last().is_some_and(|c| !"aeiou".contains(c));
        if consonant_before {
            return format!("{stem}ies");
        }
    }
    format!("{singular}s")
}

/// Rust keywords (strict and reserved) as of edition 2024.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn",
    "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self",
    "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "abstract",
    "become", "box", "do", "final", "macro", "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// Keywords that cannot be written as raw identifiers.
const NOT_RAW: &[&str] = &["crate", "self", "Self", "super", "_"];

/// A Rust module name and the file stem it lives in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleName {
    /// How the module is written in code (`memcached`, `r#type`, `self_`).
    pub ident: String,
    /// The file stem on disk (`memcached`, `type`, `self_`).
    pub file: String,
}

/// Turns any DNS-style name into a Rust module name that compiles, keeping keywords usable.
pub fn module_name(raw: &str) -> ModuleName {
    let mut s: String =
        raw.to_snake_case().chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if s.is_empty() || s.as_bytes()[0].is_ascii_digit() {
        s.insert(0, '_');
    }
    if NOT_RAW.contains(&s.as_str()) {
        let name = format!("{s}_");
        return ModuleName { ident: name.clone(), file: name };
    }
    if KEYWORDS.contains(&s.as_str()) {
        return ModuleName { ident: format!("r#{s}"), file: s };
    }
    ModuleName { ident: s.clone(), file: s }
}

/// 32-bit FNV-1a, used for the leader election id as kubebuilder does.
pub fn fnv32a(data: &str) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for b in data.bytes() {
        hash ^= u32::from(b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

/// The crate name cargo derives from a package name.
pub fn crate_name(project: &str) -> String {
    project.replace('-', "_")
}

/// operator-sdk's `k8sutil.GetDisplayName`: `memcached-operator` → `Memcached Operator`, `containerPort` →
/// `Container Port`; the title of a project, a kind or a field in a CSV and a README.
pub fn display_name(name: &str) -> String {
    let mut words = Vec::new();
    for part in name.split(['.', '-', '_', ' ']).filter(|p| !p.is_empty()) {
        let mut word = String::new();
        let mut prev: Option<char> = None;
        for c in part.chars() {
            if c.is_uppercase() && prev.is_some_and(|p| !p.is_uppercase()) && !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            word.push(c);
            prev = Some(c);
        }
        words.push(word);
    }
    words
        .iter()
        .map(|w| {
            let mut cs = w.chars();
            cs.next().map(|f| f.to_uppercase().collect::<String>() + cs.as_str()).unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The candidate closest to `name` by edit distance, if reasonably close.
pub fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<(&'a str, usize)> {
    let lower = name.to_lowercase();
    let mut best: Option<(&'a str, usize)> = None;
    for c in candidates {
        // Case-only differences count as the closest possible match.
        let d = if c.to_lowercase() == lower { 0 } else { edit_distance(name, c) + 1 };
        if best.is_none_or(|(_, bd)| d < bd) {
            best = Some((c, d));
        }
    }
    let limit = (name.chars().count() / 3).max(2) + 1;
    best.filter(|&(_, d)| d <= limit)
}

/// Levenshtein distance over chars.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plural_follows_kube_derive() {
        assert_eq!(kube_plural("memcached"), "memcacheds");
        assert_eq!(kube_plural("policy"), "policies");
        assert_eq!(kube_plural("gateway"), "gateways");
        assert_eq!(kube_plural("ingress"), "ingresses");
        assert_eq!(kube_plural("shapes"), "shapeses");
        assert_eq!(kube_plural("box"), "boxes");
        assert_eq!(kube_plural("match"), "matches");
        assert_eq!(kube_plural("mesh"), "meshes");
        assert_eq!(kube_plural("quiz"), "quizes");
        assert_eq!(kube_plural("key"), "keys");
        assert_eq!(kube_plural("y"), "ys");
        assert_eq!(kube_plural("cluster"), "clusters");
    }

    #[test]
    fn kinds_are_checked() {
        assert!(validate_kind("Memcached").is_ok());
        assert!(validate_kind("CAPTAIN").is_ok());
        assert!(validate_kind("Type").is_ok());
        assert!(validate_kind("memcached").unwrap_err().0.contains("upper-case"));
        assert!(validate_kind("Mem-cached").unwrap_err().0.contains("ASCII letters and digits"));
        assert!(validate_kind("Mem_cached").is_err());
        assert!(validate_kind("").is_err());
        assert!(validate_kind("Option").unwrap_err().0.contains("shadow"));
        assert!(validate_kind("JsonSchema").unwrap_err().0.contains("shadow"));
        for kind in ["Event", "EventType", "Webhook", "Deployment", "Context", "Error", "Api", "Kind"] {
            assert_eq!(validate_kind(kind), Ok(()), "{kind}");
        }
        assert!(validate_kind(&format!("A{}", "b".repeat(63))).is_err());
    }

    #[test]
    fn versions_are_checked_and_unusual_ones_warned() {
        assert_eq!(validate_version("v1"), Ok(None));
        assert_eq!(validate_version("v1alpha1"), Ok(None));
        assert_eq!(validate_version("v2beta3"), Ok(None));
        assert!(validate_version("foo").unwrap().is_some());
        assert!(validate_version("v1alpha").unwrap().is_some());
        assert!(validate_version("v01").unwrap().is_some());
        assert!(validate_version("1").is_err());
        assert!(validate_version("V1").is_err());
        assert!(validate_version("v1.2").is_err());
    }

    #[test]
    fn groups_are_checked_with_domain() {
        assert!(validate_group("cache", "example.com").is_ok());
        assert!(validate_group("", "example.com").is_ok());
        assert!(validate_group("", "").is_err());
        assert!(validate_group("Cache", "example.com").is_err());
        assert!(validate_group("ca_che", "example.com").is_err());
        assert_eq!(qualified_group("cache", "example.com"), "cache.example.com");
        assert_eq!(qualified_group("cache", ""), "cache");
    }

    #[test]
    fn module_names_survive_keywords() {
        assert_eq!(module_name("Memcached"), ModuleName { ident: "memcached".into(), file: "memcached".into() });
        assert_eq!(module_name("Type"), ModuleName { ident: "r#type".into(), file: "type".into() });
        assert_eq!(module_name("Match"), ModuleName { ident: "r#match".into(), file: "match".into() });
        assert_eq!(module_name("Self"), ModuleName { ident: "self_".into(), file: "self_".into() });
        assert_eq!(module_name("Crate"), ModuleName { ident: "crate_".into(), file: "crate_".into() });
        assert_eq!(module_name("MemcachedBackup").ident, "memcached_backup");
        assert_eq!(module_name("cert-manager").ident, "cert_manager");
        assert_eq!(module_name("v1alpha1").ident, "v1alpha1");
        assert_eq!(module_name("1abc").ident, "_1abc");
    }

    #[test]
    fn fnv_matches_kubebuilder() {
        // kubebuilder's leader election id for repo sigs.k8s.io/kubebuilder/testdata/project-v4 is da1d9c86.
        assert_eq!(format!("{:08x}", fnv32a("sigs.k8s.io/kubebuilder/testdata/project-v4")), "da1d9c86");
    }

    #[test]
    fn dns_rules() {
        assert!(is_dns1123_label("memcached-operator"));
        assert!(!is_dns1123_label("-a"));
        assert!(!is_dns1123_label("A"));
        assert!(is_dns1123_subdomain("a.b-c.d"));
        assert!(!is_dns1123_subdomain("a..b"));
        assert!(is_dns1035_label("abc-1"));
        assert!(!is_dns1035_label("1abc"));
    }

    #[test]
    fn display_names() {
        assert_eq!(display_name("memcached-operator"), "Memcached Operator");
        assert_eq!(display_name("containerPort"), "Container Port");
        assert_eq!(display_name("container_port"), "Container Port");
        assert_eq!(display_name("Memcached"), "Memcached");
        assert_eq!(display_name("op"), "Op");
        assert_eq!(display_name("observedGeneration"), "Observed Generation");
    }
}
