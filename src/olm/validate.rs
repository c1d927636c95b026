//! `bundle validate`: operator-framework/api's bundle validators (format, content, CSV, CRD, bundle and size),
//! a check of the CSV against OLM's own CSV CRD schema, and the optional suites (`operatorhub`,
//! `good-practices`, `alpha-deprecated-apis`). Messages are operator-framework's.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use super::bundle::BundleFiles;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Error,
    Warning,
}

/// One validation result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub level: Level,
    pub message: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let l = if self.level == Level::Error { "Error" } else { "Warning" };
        write!(f, "{l}: {}", self.message)
    }
}

/// The optional suites (`--select-optional`).
#[derive(Debug, Clone, Default)]
pub struct Suites {
    pub operatorhub: bool,
    pub good_practices: bool,
    pub deprecated_apis: bool,
    /// `--k8s-version` for `alpha-deprecated-apis`.
    pub k8s_version: Option<String>,
}

#[derive(Default)]
struct Out(Vec<Finding>);

impl Out {
    fn err(&mut self, m: impl Into<String>) {
        self.0.push(Finding { level: Level::Error, message: m.into() });
    }
    fn warn(&mut self, m: impl Into<String>) {
        self.0.push(Finding { level: Level::Warning, message: m.into() });
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
    annotations: BTreeMap<String, String>,
    size: usize,
    compressed: usize,
}

/// Runs every validator on a bundle.
pub fn validate(b: &BundleFiles, suites: &Suites) -> Vec<Finding> {
    let mut out = Out::default();
    let annotations = format::format(b, &mut out);
    let loaded = load::load(b, annotations, &mut out);
    if let Some(l) = &loaded {
        content::content(l, &mut out);
        if let Some((_, csv)) = &l.csv {
            csv::csv_rules(csv, &mut out);
            csv::schema(csv, &mut out);
            bundle::bundle_rules(l, csv, &mut out);
            if suites.operatorhub {
                operatorhub::operatorhub(csv, &mut out);
            }
            if suites.good_practices {
                good_practices::good_practices(l, csv, &mut out);
            }
            if suites.deprecated_apis {
                deprecated_apis::deprecated_apis(l, csv, suites.k8s_version.as_deref(), &mut out);
            }
        }
        for crd in &l.crds {
            crd::crd_rules(crd, &mut out);
        }
    }
    out.0
}

mod bundle;
mod content;
mod csv;
mod format;
mod load;
pub use bundle::check_image;
mod crd;
mod deprecated_apis;
mod good_practices;
mod operatorhub;

#[cfg(test)]
mod tests;
