//! The `operatorhub` optional validator (operator-framework/api `internal/operatorhub.go`).

use serde_json::Value;

use super::{Out, s};

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

pub(super) fn email_ok(e: &str) -> bool {
    regex::Regex::new(r"^[^\s@<>]+@[^\s@<>]+$").is_ok_and(|r| r.is_match(e))
}

pub(super) fn url_ok(u: &str) -> Result<(), String> {
    match u.split_once("://") {
        Some((scheme, rest)) if !scheme.is_empty() && !rest.is_empty() && !u.contains(' ') => Ok(()),
        _ if u.starts_with('/') => Ok(()),
        _ => Err(format!("parse {u:?}: invalid URI for request")),
    }
}

pub(super) fn operatorhub(csv: &Value, out: &mut Out) {
    let name = s(csv, "/metadata/name");
    let e = |m: String| format!("({name}) {m}");
    if s(csv, "/spec/provider/name").is_empty() {
        out.err(e("csv.Spec.Provider.Name not specified".into()));
    }
    for m in csv["spec"]["maintainers"].as_array().into_iter().flatten() {
        let (n, mail) = (s(m, "/name"), s(m, "/email"));
        if n.is_empty() || mail.is_empty() {
            out.err(e("csv.Spec.Maintainers elements should contain both name and email".into()));
        } else if !email_ok(mail) {
            out.err(e(format!("csv.Spec.Maintainers email {mail} is invalid: mail: missing '@' or angle-addr")));
        }
    }
    for l in csv["spec"]["links"].as_array().into_iter().flatten() {
        let (n, u) = (s(l, "/name"), s(l, "/url"));
        if n.is_empty() || u.is_empty() {
            out.err(e("csv.Spec.Links elements should contain both name and url".into()));
        } else if let Err(err) = url_ok(u) {
            out.err(e(format!("csv.Spec.Links url {u} is invalid: {err}")));
        }
    }
    if s(csv, "/spec/version").is_empty() {
        out.err(e("csv.Spec.Version must be set".into()));
    }
    match csv["spec"]["icon"].as_array() {
        None => out.warn(e("csv.Spec.Icon not specified".into())),
        Some(icons) if icons.len() != 1 => out.err(e("csv.Spec.Icon should only have one element".into())),
        Some(icons) => {
            let (data, mt) = (s(&icons[0], "/base64data"), s(&icons[0], "/mediatype"));
            if data.is_empty() || mt.is_empty() {
                out.err(e("csv.Spec.Icon elements should contain both data and mediatype".into()));
            } else if !["image/gif", "image/jpeg", "image/png", "image/svg+xml"].contains(&mt) {
                out.err(e(format!("csv.Spec.Icon {mt} does not have a valid mediatype")));
            }
        }
    }
    let ann = &csv["metadata"]["annotations"];
    if let Some(c) = ann["capabilities"].as_str()
        && !CAPABILITIES.contains(&c)
    {
        out.err(format!("csv.Metadata.Annotations.Capabilities {c:?} is not a valid capabilities level"));
    }
    if let Some(cats) = ann["categories"].as_str() {
        for c in cats.split(',').map(str::trim) {
            if !CATEGORIES.contains(&c) {
                out.err(format!(
                    "csv.Metadata.Annotations[\"categories\"] value {c:?} is not in the set of standard categories"
                ));
            }
        }
    }
}
