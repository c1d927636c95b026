//! `bundle validate`: operator-framework/api's bundle validators (format, content, CSV, CRD, bundle and size),
//! a check of the CSV against OLM's own CSV CRD schema, and the optional validators operator-sdk offers
//! (`operatorhubv2`, `capabilities`, `categories`, `operatorhub`, `community`, `alpha-deprecated-apis`,
//! `good-practices`), one module each. Messages are operator-framework's, word for word (`go_fmt` and `go_json`
//! reproduce Go's quoting and JSON errors); kubesmith's own checks say so in theirs.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use super::bundle::BundleFiles;
pub use super::finding::{Finding, Level};

/// The optional validators (`--select-optional`) and their values (`--optional-values`).
#[derive(Debug, Clone, Default)]
pub struct Suites {
    /// `operatorhub`: deprecated upstream; v2's checks, capabilities, categories and a deprecation warning.
    pub operatorhub: bool,
    pub operatorhubv2: bool,
    pub capabilities: bool,
    pub categories: bool,
    pub good_practices: bool,
    pub deprecated_apis: bool,
    pub community: bool,
    /// `k8s-version` for `alpha-deprecated-apis`, `operatorhub` and `operatorhubv2`.
    pub k8s_version: Option<String>,
    /// `index-path` for `community`.
    pub index_path: Option<IndexFile>,
    /// `OPERATOR_BUNDLE_CATEGORIES`' list for `categories` and `operatorhub`.
    pub custom_categories: Option<CustomCategories>,
}

/// operator-framework/api's `errors.Error` text after its level: `Field f, Value v: detail`, each part left out
/// as Go leaves it out (a value of `""` still prints, as `Value : …`; neither field nor value leaves `: detail`).
fn go_error(field: Option<&str>, value: Option<&str>, detail: &str) -> String {
    let detail = if detail.is_empty() { String::new() } else { format!(": {detail}") };
    match (field.filter(|f| !f.is_empty()), value) {
        (Some(f), Some(v)) => format!("Field {f}, Value {v}{detail}"),
        (Some(f), None) => format!("Field {f}{detail}"),
        (None, Some(v)) => format!("Value {v}{detail}"),
        (None, None) if detail.is_empty() => "ErrMessageMissing".into(),
        (None, None) => detail,
    }
}

#[derive(Default)]
struct Out(Vec<Finding>);

impl Out {
    fn push(&mut self, level: Level, m: impl Into<String>) {
        self.0.push(Finding { level, message: m.into() });
    }
    /// A message of kubesmith's own or one operator-framework prints as it is.
    fn err(&mut self, m: impl Into<String>) {
        self.push(Level::Error, m);
    }
    fn warn(&mut self, m: impl Into<String>) {
        self.push(Level::Warning, m);
    }
    /// `errors.ErrInvalidCSV(detail, name)` / `WarnInvalidCSV`: `Value : (name) detail`.
    fn csv(&mut self, level: Level, name: &str, detail: impl AsRef<str>) {
        self.push(level, go_error(None, Some(""), &format!("({name}) {}", detail.as_ref())));
    }
    /// An error about a value (`ErrFailedValidation`, `ErrInvalidBundle`, `ErrInvalidOperation`, …): `Value v: detail`.
    fn value(&mut self, level: Level, value: &str, detail: impl AsRef<str>) {
        self.push(level, go_error(None, Some(value), detail.as_ref()));
    }
    /// An error with neither field nor value (`ErrInvalidParse(detail, nil)`): `: detail`.
    fn bare(&mut self, level: Level, detail: impl AsRef<str>) {
        self.push(level, go_error(None, None, detail.as_ref()));
    }
    /// One validator's `ManifestResult`, printed as operator-sdk prints it: its warnings, then its errors.
    fn result(&mut self, run: impl FnOnce(&mut Out)) {
        let mut r = Out::default();
        run(&mut r);
        let (errors, warnings): (Vec<Finding>, Vec<Finding>) = r.0.into_iter().partition(|f| f.level == Level::Error);
        self.0.extend(warnings);
        self.0.extend(errors);
    }
}

fn s<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

fn group_of(api: &str) -> &str {
    api.rsplit_once('/').map(|(g, _)| g).unwrap_or("")
}

fn gvk_text(group: &str, version: &str, kind: &str) -> String {
    if group.is_empty() { format!("/{version}, Kind={kind}") } else { format!("{group}/{version}, Kind={kind}") }
}

/// The loaded contents of a bundle.
struct Loaded {
    csv: Option<(PathBuf, Value)>,
    crds: Vec<Value>,
    others: Vec<Value>,
    /// Every object in file order (operator-framework's `bundle.Objects`), the CSV and CRDs included.
    objects: Vec<Value>,
    annotations: BTreeMap<String, String>,
    size: usize,
    compressed: usize,
}

/// Runs every validator on a bundle: the default ones, then the optional ones in operator-sdk's order.
pub fn validate(b: &BundleFiles, suites: &Suites) -> Vec<Finding> {
    let mut out = Out::default();
    let annotations = format::format(b, &mut out);
    let loaded = load::load(b, annotations, &mut out);
    let Some(l) = &loaded else {
        return out.0;
    };
    content::content(l, &mut out);
    if let Some((_, csv)) = &l.csv {
        out.result(|o| csv::csv_rules(csv, o));
        csv::schema(csv, &mut out);
    }
    for crd in &l.crds {
        out.result(|o| crd::crd_rules(crd, o));
    }
    let Some((_, csv)) = &l.csv else {
        return out.0;
    };
    out.result(|o| bundle::bundle_rules(l, csv, o));
    out.0.extend(super::install_modes::findings(csv, &l.crds));
    let k8s = suites.k8s_version.as_deref();
    let custom = suites.custom_categories.as_ref();
    if suites.operatorhubv2 {
        out.result(|o| operatorhub::operatorhub_v2(l, csv, k8s, o));
    }
    if suites.capabilities {
        out.result(|o| operatorhub::capabilities(csv, o));
    }
    if suites.categories {
        out.result(|o| operatorhub::categories(csv, custom, o));
    }
    if suites.operatorhub {
        out.result(|o| operatorhub::operatorhub(l, csv, k8s, custom, o));
        out.value(Level::Warning, "", operatorhub::DEPRECATED);
    }
    if suites.community {
        out.result(|o| community::community(l, csv, suites.index_path.as_ref(), o));
    }
    if suites.deprecated_apis {
        out.result(|o| deprecated_apis::report(l, csv, k8s, o));
    }
    if suites.good_practices {
        out.result(|o| good_practices::good_practices(l, csv, o));
    }
    out.0
}

mod bundle;
mod community;
mod content;
mod crd;
mod csv;
mod format;
mod go_fmt;
mod go_json;
mod load;
pub use bundle::check_image;
pub use community::IndexFile;
pub use operatorhub::{CustomCategories, read_custom_categories};
mod deprecated_apis;
mod good_practices;
pub mod olm_v1;
mod operatorhub;

#[cfg(test)]
mod tests;
