//! Rust names for a CRD's JSON names: field idents serde maps back to the exact JSON name, type names unique in
//! the generated file.

use std::collections::HashSet;

use heck::{ToSnakeCase, ToUpperCamelCase};

/// Words Rust reserves; a field named after one is written `r#word` (serde drops the `r#`).
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn", "else", "enum",
    "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "macro", "match", "mod", "move",
    "mut", "override", "priv", "pub", "ref", "return", "static", "struct", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Keywords that cannot be raw identifiers: the field gets a `_` suffix and a `#[serde(rename)]`.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// What serde's `rename_all = "camelCase"` makes of a field ident: the rule kubesmith reads the types back with.
pub fn serde_camel(ident: &str) -> String {
    crate::crd::attrs::RenameRule::Camel.apply_to_field(ident.strip_prefix("r#").unwrap_or(ident))
}

/// A field's Rust ident for `json`, distinct from `taken` (which it joins), and whether it needs
/// `#[serde(rename = json)]` under `rename_all = "camelCase"`.
pub fn field_ident(json: &str, taken: &mut HashSet<String>) -> (String, bool) {
    let mut base = json.to_snake_case();
    if base.is_empty() || base.starts_with(|c: char| c.is_ascii_digit()) {
        base = format!("f_{base}");
    }
    if !base.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        base = base.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    }
    let mut ident = if NOT_RAW.contains(&base.as_str()) {
        format!("{base}_")
    } else if KEYWORDS.contains(&base.as_str()) {
        format!("r#{base}")
    } else {
        base.clone()
    };
    let mut n = 2;
    while taken.contains(ident.strip_prefix("r#").unwrap_or(&ident)) {
        ident = format!("{base}_{n}");
        n += 1;
    }
    taken.insert(ident.strip_prefix("r#").unwrap_or(&ident).to_string());
    let rename = serde_camel(&ident) != json;
    (ident, rename)
}

/// Type names handed out for one generated file.
#[derive(Debug, Default)]
pub struct TypeNames {
    taken: HashSet<String>,
}

impl TypeNames {
    /// Reserves names the file uses otherwise (the kind's own type, imports).
    pub fn reserve(&mut self, name: &str) {
        self.taken.insert(name.to_string());
    }

    /// A unique type name: `parent` followed by `json` in UpperCamelCase (`MemcachedSpecTls`).
    pub fn child(&mut self, parent: &str, json: &str) -> String {
        let mut part = json.to_upper_camel_case();
        part.retain(|c| c.is_ascii_alphanumeric());
        if part.is_empty() || part.starts_with(|c: char| c.is_ascii_digit()) {
            part = format!("F{part}");
        }
        self.unique(format!("{parent}{part}"))
    }

    /// `name`, or `name2`, `name3`... when taken.
    pub fn unique(&mut self, name: String) -> String {
        let mut candidate = name.clone();
        let mut n = 2;
        while self.taken.contains(&candidate) {
            candidate = format!("{name}{n}");
            n += 1;
        }
        self.taken.insert(candidate.clone());
        candidate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idents_map_back_to_the_json_name() {
        let mut taken = HashSet::new();
        for (json, ident, rename) in [
            ("http2Enabled", "http2_enabled", false),
            ("maxSurge", "max_surge", false),
            ("IPv6", "i_pv6", true),
            ("URL", "url", true),
            ("type", "r#type", false),
            ("self", "self_", false),
            ("$ref", "r#ref", true),
            ("x-header", "x_header", true),
            ("3d", "f_3d", true),
            ("url", "url_2", true),
        ] {
            assert_eq!(field_ident(json, &mut taken), (ident.to_string(), rename), "{json}");
        }
    }

    #[test]
    fn type_names_are_unique() {
        let mut names = TypeNames::default();
        assert_eq!(names.child("FooSpec", "tls"), "FooSpecTls");
        assert_eq!(names.child("FooSpec", "TLS"), "FooSpecTls2");
        assert_eq!(names.child("Foo", "3d-config"), "FooF3dConfig");
    }
}
