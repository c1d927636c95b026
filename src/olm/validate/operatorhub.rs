//! The OperatorHub.io validators of operator-framework/api: `operatorhubv2` (`internal/operatorhubv2.go`: CSV
//! metadata, then the removed APIs), `capabilities` and `categories` (`standardcapabilities.go`,
//! `standardcategories.go`, with `OPERATOR_BUNDLE_CATEGORIES`' custom list), and the deprecated `operatorhub`,
//! which is all of them at once plus a deprecation warning.

use serde_json::Value;

use super::go_fmt::quote;
use super::{Level, Loaded, Out, deprecated_apis, go_json, s};
use crate::olm::semver::Version;

pub(super) const CAPABILITIES: &[&str] =
    &["Basic Install", "Seamless Upgrades", "Full Lifecycle", "Deep Insights", "Auto Pilot"];
pub(super) const CATEGORIES: &[&str] = &[
    "AI/Machine Learning",
    "Application Runtime",
    "Big Data",
    "Cloud Provider",
    "Developer Tools",
    "Database",
    "Integration & Delivery",
    "Logging & Tracing",
    "Monitoring",
    "Modernization & Migration",
    "Networking",
    "OpenShift Optional",
    "Security",
    "Storage",
    "Streaming & Messaging",
    "Observability",
];
const MEDIA_TYPES: &[&str] = &["image/gif", "image/jpeg", "image/png", "image/svg+xml"];

/// The custom categories named by `OPERATOR_BUNDLE_CATEGORIES`: the list, or `extractCategories`' error text
/// (`reading category file: open …: no such file or directory`, `unmarshaling category file: …`).
pub type CustomCategories = Result<Vec<String>, String>;

/// Decodes a custom categories file as `json.Unmarshal` into `struct{ Contents []string `json:"categories"` }`
/// does, with its error texts.
pub fn read_custom_categories(bytes: &[u8]) -> Result<Vec<String>, String> {
    go_json::check_syntax(bytes).map_err(|e| e.msg)?;
    let doc: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    let field = |ty: &str, of: &str| {
        format!("json: cannot unmarshal {ty} into Go struct field categories.categories of type {of}")
    };
    let obj = match &doc {
        Value::Null => return Ok(Vec::new()),
        Value::Object(o) => o,
        other => {
            return Err(format!(
                "json: cannot unmarshal {} into Go value of type internal.categories",
                go_json::type_name(other)
            ));
        }
    };
    let mut out = Vec::new();
    for (_, v) in obj.iter().filter(|(k, _)| k.eq_ignore_ascii_case("categories")) {
        out.clear();
        match v {
            Value::Null => {}
            Value::Array(items) => {
                for item in items {
                    match item {
                        Value::String(c) => out.push(c.clone()),
                        Value::Null => out.push(String::new()),
                        other => return Err(field(go_json::type_name(other), "string")),
                    }
                }
            }
            other => return Err(field(go_json::type_name(other), "[]string")),
        }
    }
    Ok(out)
}

/// The checks of `validateHubCSVSpecV2` (with `capabilities_and_categories`, the deprecated validator's).
fn csv_checks(csv: &Value, custom: Option<&CustomCategories>, capabilities_and_categories: bool, out: &mut Out) {
    let name = s(csv, "/metadata/name");
    let mut errs: Vec<String> = Vec::new();
    let mut warns: Vec<String> = Vec::new();
    if s(csv, "/spec/provider/name").trim().is_empty() {
        errs.push("csv.Spec.Provider.Name not specified".into());
    }
    for m in csv["spec"]["maintainers"].as_array().into_iter().flatten() {
        let (n, mail) = (s(m, "/name"), s(m, "/email"));
        if n.is_empty() || mail.is_empty() {
            errs.push("csv.Spec.Maintainers elements should contain both name and email".into());
        }
        if !mail.is_empty()
            && let Err(e) = parse_mail_address(mail)
        {
            errs.push(format!("csv.Spec.Maintainers email {mail} is invalid: {e}"));
        }
    }
    for l in csv["spec"]["links"].as_array().into_iter().flatten() {
        let (n, u) = (s(l, "/name"), s(l, "/url"));
        if n.is_empty() || u.is_empty() {
            errs.push("csv.Spec.Links elements should contain both name and url".into());
        }
        if !u.is_empty()
            && let Err(e) = parse_request_uri(u)
        {
            errs.push(format!("csv.Spec.Links url {u} is invalid: {e}"));
        }
    }
    if capabilities_and_categories {
        errs.extend(capability_problems(csv));
        errs.extend(category_problems(csv, custom));
    }
    let version = s(csv, "/spec/version");
    if version.is_empty() || Version::parse(version).is_ok_and(|v| v.major == 0 && v.minor == 0 && v.patch == 0) {
        errs.push("csv.Spec.Version must be set".into());
    }
    match csv["spec"].get("icon").filter(|i| !i.is_null()) {
        None => warns.push("csv.Spec.Icon not specified".into()),
        Some(icons) => {
            let icons = icons.as_array().cloned().unwrap_or_default();
            if icons.len() != 1 {
                errs.push("csv.Spec.Icon should only have one element".into());
            }
            if let Some(icon) = icons.first() {
                let (data, mt) = (s(icon, "/base64data"), s(icon, "/mediatype"));
                if data.is_empty() || mt.is_empty() {
                    errs.push("csv.Spec.Icon elements should contain both data and mediatype".into());
                }
                if !mt.is_empty() && !MEDIA_TYPES.contains(&mt) {
                    errs.push(format!("csv.Spec.Icon {mt} does not have a valid mediatype"));
                }
            }
        }
    }
    let mkv = s(csv, "/spec/minKubeVersion");
    if mkv.trim().is_empty() {
        warns.push(super::csv::MIN_KUBE_VERSION_WARNING.into());
    } else if Version::parse(mkv).is_err() {
        errs.push(format!("csv.Spec.MinKubeVersion has an invalid value: {mkv}"));
    }
    for e in errs {
        out.csv(Level::Error, name, e);
    }
    for w in warns {
        out.csv(Level::Warning, name, w);
    }
}

/// `checkCapabilities`.
fn capability_problems(csv: &Value) -> Vec<String> {
    match csv["metadata"]["annotations"].get("capabilities").and_then(Value::as_str) {
        Some(c) if !CAPABILITIES.contains(&c) => {
            vec![format!("csv.Metadata.Annotations.Capabilities {} is not a valid capabilities level", quote(c))]
        }
        _ => Vec::new(),
    }
}

/// `checkCategories`: each comma-separated category, trimmed, must be a standard one, or one of the custom list
/// when `OPERATOR_BUNDLE_CATEGORIES` names one; the message quotes the category as written.
fn category_problems(csv: &Value, custom: Option<&CustomCategories>) -> Vec<String> {
    let Some(cats) = csv["metadata"]["annotations"].get("categories").and_then(Value::as_str) else {
        return Vec::new();
    };
    match custom {
        Some(Err(e)) => {
            vec![format!("could not extract custom categories from categories map[string]struct {{}}(nil): {e}")]
        }
        Some(Ok(custom)) => cats
            .split(',')
            .filter(|c| !custom.iter().any(|k| k == c.trim()))
            .map(|c| {
                format!(
                    "csv.Metadata.Annotations[\"categories\"] value {} is not in the set of custom categories",
                    quote(c)
                )
            })
            .collect(),
        None => cats
            .split(',')
            .filter(|c| !CATEGORIES.contains(&c.trim()))
            .map(|c| {
                format!(
                    "csv.Metadata.Annotations[\"categories\"] value {} is not in the set of standard categories",
                    quote(c)
                )
            })
            .collect(),
    }
}

/// `operatorhubv2`.
pub(super) fn operatorhub_v2(l: &Loaded, csv: &Value, k8s: Option<&str>, out: &mut Out) {
    csv_checks(csv, None, false, out);
    deprecated_apis::report(l, csv, k8s, out);
}

/// `capabilities` (`StandardCapabilitiesValidator`).
pub(super) fn capabilities(csv: &Value, out: &mut Out) {
    let name = s(csv, "/metadata/name");
    for e in capability_problems(csv) {
        out.csv(Level::Error, name, e);
    }
}

/// `categories` (`StandardCategoriesValidator`).
pub(super) fn categories(csv: &Value, custom: Option<&CustomCategories>, out: &mut Out) {
    let name = s(csv, "/metadata/name");
    for e in category_problems(csv, custom) {
        out.csv(Level::Error, name, e);
    }
}

/// The deprecated `operatorhub`: v2's checks with capabilities and categories, and the removed APIs. Its
/// warning that it is deprecated ([`DEPRECATED`]) is a result of its own, after this one.
pub(super) fn operatorhub(
    l: &Loaded,
    csv: &Value,
    k8s: Option<&str>,
    custom: Option<&CustomCategories>,
    out: &mut Out,
) {
    csv_checks(csv, custom, true, out);
    deprecated_apis::report(l, csv, k8s, out);
}

/// `WarnDeprecatedValidator`'s detail for `operatorhub`.
pub(super) const DEPRECATED: &str = "The \"operatorhub\" validator is deprecated; for equivalent validation use \
     \"operatorhub/v2\", \"standardcapabilities\" and \"standardcategories\" validators";

// ---------------------------------------------------------------- Go's net/mail.ParseAddress, the parts met here

fn is_atext(c: char, dot: bool) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c) || (dot && c == '.') || !c.is_ascii()
}

struct Mail<'a> {
    s: &'a str,
}

impl Mail<'_> {
    fn skip_space(&mut self) {
        self.s = self.s.trim_start_matches([' ', '\t']);
    }
    fn consume(&mut self, c: char) -> bool {
        if self.s.starts_with(c) {
            self.s = &self.s[c.len_utf8()..];
            true
        } else {
            false
        }
    }
    /// A dot-atom or quoted string (as `consumeAtom` / `consumeQuotedString` accept them).
    fn atom_or_quoted(&mut self, dot: bool) -> Result<String, &'static str> {
        if self.s.starts_with('"') {
            let body = &self.s[1..];
            let Some(end) = body.find('"') else { return Err("mail: unclosed quoted-string") };
            let word = body[..end].to_string();
            self.s = &body[end + 1..];
            return Ok(word);
        }
        let n: usize = self.s.chars().take_while(|c| is_atext(*c, dot)).map(char::len_utf8).sum();
        if n == 0 {
            return Err("mail: invalid string");
        }
        let atom = &self.s[..n];
        if dot && (atom.starts_with('.') || atom.ends_with('.') || atom.contains("..")) {
            return Err("mail: invalid string");
        }
        self.s = &self.s[n..];
        Ok(atom.to_string())
    }
    /// `consumeAddrSpec`: `local@domain`.
    fn addr_spec(&mut self) -> Result<(), &'static str> {
        let orig = self.s;
        let r = (|| {
            self.skip_space();
            if self.s.is_empty() {
                return Err("mail: no addr-spec");
            }
            self.atom_or_quoted(true)?;
            if !self.consume('@') {
                return Err("mail: missing @ in addr-spec");
            }
            self.skip_space();
            if self.s.is_empty() {
                return Err("mail: no domain in addr-spec");
            }
            if self.s.starts_with('[') {
                let Some(end) = self.s.find(']') else { return Err("mail: unclosed domain-literal") };
                self.s = &self.s[end + 1..];
                return Ok(());
            }
            self.atom_or_quoted(true).map(|_| ()).map_err(|_| "mail: invalid string")
        })();
        if r.is_err() {
            self.s = orig;
        }
        r
    }
}

/// `mail.ParseAddress` for one address: `a@b.c`, `Name <a@b.c>`; the error texts Go gives the usual mistakes.
fn parse_mail_address(addr: &str) -> Result<(), String> {
    let mut p = Mail { s: addr };
    p.skip_space();
    if p.s.is_empty() {
        return Err("mail: no address".into());
    }
    if p.addr_spec().is_ok() {
        p.skip_space();
        if !p.s.is_empty() && !p.s.starts_with('(') {
            return Err(format!("mail: expected single address, got {}", quote(p.s)));
        }
        return Ok(());
    }
    // display-name, then angle-addr.
    let mut words = Vec::new();
    if !p.s.starts_with('<') {
        loop {
            p.skip_space();
            match p.atom_or_quoted(true) {
                Ok(w) => words.push(w),
                Err(_) if !words.is_empty() => break,
                Err(e) => return Err(e.into()),
            }
        }
    }
    p.skip_space();
    if !p.consume('<') {
        let display = words.join(" ");
        return Err(if display.chars().all(|c| is_atext(c, true)) {
            "mail: missing '@' or angle-addr".into()
        } else {
            "mail: no angle-addr".into()
        });
    }
    p.addr_spec().map_err(String::from)?;
    if !p.consume('>') {
        return Err("mail: unclosed angle-addr".into());
    }
    p.skip_space();
    if !p.s.is_empty() {
        return Err(format!("mail: expected single address, got {}", quote(p.s)));
    }
    Ok(())
}

// ---------------------------------------------------------------- Go's net/url.ParseRequestURI, the parts met here

/// `url.ParseRequestURI`: an absolute URL or an absolute path; errors as `*url.Error` prints them.
fn parse_request_uri(u: &str) -> Result<(), String> {
    let fail = |why: &str| Err(format!("parse {}: {why}", quote(u)));
    if u.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return fail("net/url: invalid control character in URL");
    }
    if u == "*" {
        return Ok(());
    }
    // getScheme
    let mut rest = u;
    let mut scheme = "";
    for (i, c) in u.char_indices() {
        match c {
            'a'..='z' | 'A'..='Z' => {}
            '0'..='9' | '+' | '-' | '.' if i > 0 => {}
            ':' if i == 0 => return fail("missing protocol scheme"),
            ':' => {
                scheme = &u[..i];
                rest = &u[i + 1..];
                break;
            }
            _ => break,
        }
    }
    let rest = rest.split_once('?').map(|(p, _)| p).unwrap_or(rest);
    if !rest.starts_with('/') {
        if !scheme.is_empty() {
            return Ok(());
        }
        return fail("invalid URI for request");
    }
    let mut path = rest;
    if !scheme.is_empty()
        && let Some(auth) = rest.strip_prefix("//")
    {
        let (authority, p) = auth.split_at(auth.find('/').unwrap_or(auth.len()));
        path = p;
        let host = authority.rsplit_once('@').map(|(_, h)| h).unwrap_or(authority);
        if let Some(c) =
            host.chars().find(|c| c.is_ascii() && !(c.is_ascii_alphanumeric() || "-._~!$&'()*+,;=:[]%".contains(*c)))
        {
            return fail(&format!("invalid character {} in host name", quote(&c.to_string())));
        }
        if !host.starts_with('[')
            && let Some((_, port)) = host.rsplit_once(':')
            && !port.bytes().all(|b| b.is_ascii_digit())
        {
            return fail(&format!("invalid port {} after host", quote(&format!(":{port}"))));
        }
    }
    let bytes = path.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let hex = |j: usize| bytes.get(j).is_some_and(u8::is_ascii_hexdigit);
        if b == b'%' && !(hex(i + 1) && hex(i + 2)) {
            let end = (i + 3).min(bytes.len());
            return fail(&format!("invalid URL escape {}", quote(&String::from_utf8_lossy(&bytes[i..end]))));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mail_addresses_like_go() {
        assert_eq!(parse_mail_address("ann@example.com"), Ok(()));
        assert_eq!(parse_mail_address("Ann Smith <ann@example.com>"), Ok(()));
        assert_eq!(parse_mail_address("invalidemail").unwrap_err(), "mail: missing '@' or angle-addr");
        assert_eq!(parse_mail_address("Ann Smith").unwrap_err(), "mail: no angle-addr");
        assert_eq!(parse_mail_address("   ").unwrap_err(), "mail: no address");
        assert_eq!(parse_mail_address("a@b c").unwrap_err(), "mail: expected single address, got \"c\"");
    }

    #[test]
    fn request_uris_like_go() {
        assert_eq!(parse_request_uri("https://example.com/docs"), Ok(()));
        assert_eq!(parse_request_uri("/docs"), Ok(()));
        assert_eq!(parse_request_uri("mailto:ann@example.com"), Ok(()));
        assert_eq!(
            parse_request_uri("https//coreos.com/operators/etcd/docs/latest/").unwrap_err(),
            "parse \"https//coreos.com/operators/etcd/docs/latest/\": invalid URI for request"
        );
        assert_eq!(parse_request_uri("not a url").unwrap_err(), "parse \"not a url\": invalid URI for request");
        assert_eq!(parse_request_uri(":x").unwrap_err(), "parse \":x\": missing protocol scheme");
        assert_eq!(
            parse_request_uri("https://exa mple.com").unwrap_err(),
            "parse \"https://exa mple.com\": invalid character \" \" in host name"
        );
        assert_eq!(
            parse_request_uri("https://x.com/%zz").unwrap_err(),
            "parse \"https://x.com/%zz\": invalid URL escape \"%zz\""
        );
    }
}
