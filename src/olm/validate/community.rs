//! The `community` optional validator (operator-framework/api `internal/community.go`, `--optional-values
//! index-path=<bundle.Dockerfile>`): a bundle that still uses APIs Kubernetes 1.22 removed (OpenShift 4.9) must cap
//! the OpenShift versions it installs on, with the `olm.maxOpenShiftVersion` property in the CSV's `olm.properties`
//! annotation (below 4.9, major.minor only) and the `com.redhat.openshift.versions` label of its bundle image.

use serde_json::Value;

use super::deprecated_apis::{message, removed_in_1_22};
use super::{Level, Loaded, Out, go_json, s};
use crate::olm::semver::{Version, parse_tolerant};

const OCP_LABEL: &str = "com.redhat.openshift.versions";
const INDEX_PATH_KEY: &str = "index-path";
/// The OpenShift release without the APIs Kubernetes 1.22 removed.
const OCP_UNSUPPORTED: &str = "4.9";
const REMOVED_1_22: &str = "using APIs which were deprecated and removed in v1.22. More info: \
     https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-22";

/// The file given as `index-path`, as the validator finds it (the command reads it; its path is shown as given).
#[derive(Debug, Clone)]
pub enum IndexFile {
    /// `os.Stat` failed: its error text (`stat <path>: no such file or directory`).
    NotFound {
        path: String,
        error: String,
    },
    Directory {
        path: String,
    },
    Unreadable {
        path: String,
        error: String,
    },
    /// The file's text.
    Content {
        text: String,
    },
}

/// `propertiesAnnotation` entries (`type`, `value`), or `None` when `json.Unmarshal` into them fails.
fn properties(text: &str) -> Option<Vec<(String, String)>> {
    go_json::check_syntax(text.as_bytes()).ok()?;
    let parsed: Value = serde_json::from_str(text).ok()?;
    let items = match parsed {
        Value::Null => return Some(Vec::new()),
        Value::Array(items) => items,
        _ => return None,
    };
    let mut out = Vec::new();
    for item in items {
        let (mut ty, mut value) = (String::new(), String::new());
        match item {
            Value::Null => {}
            Value::Object(m) => {
                for (k, v) in m {
                    let slot = if k.eq_ignore_ascii_case("type") {
                        &mut ty
                    } else if k.eq_ignore_ascii_case("value") {
                        &mut value
                    } else {
                        continue;
                    };
                    match v {
                        Value::String(x) => *slot = x,
                        Value::Null => {}
                        _ => return None,
                    }
                }
            }
            _ => return None,
        }
        out.push((ty, value));
    }
    Some(out)
}

fn unsupported() -> Version {
    parse_tolerant(OCP_UNSUPPORTED).expect("a version")
}

/// `checkMaxOpenShiftVersion`.
fn max_openshift_version(csv: &Value, apis: &str, errs: &mut Vec<String>, warns: &mut Vec<String>) {
    let props = csv["metadata"]["annotations"]["olm.properties"].as_str().unwrap_or("");
    if props.is_empty() {
        errs.push(format!(
            "csv.Annotations not specified olm.maxOpenShiftVersion for an OCP version < {OCP_UNSUPPORTED}. This \
             annotation is required to prevent the user from upgrading their OCP cluster before they have installed a \
             version of their operator which is compatible with {OCP_UNSUPPORTED}. This bundle is {REMOVED_1_22} which \
             are no longer supported on {OCP_UNSUPPORTED}. Migrate the API(s) for {apis} or use the annotation"
        ));
        return;
    }
    let Some(list) = properties(props) else {
        errs.push(format!(
            "csv.Annotations has an invalid value specified for olm.properties. Please, check the value  ({props}) and \
             ensure that it is an array such as: \"olm.properties\": '[{{\"type\": \"key name\", \"value\": \"key value\"}}]'"
        ));
        return;
    };
    let Some((_, value)) = list.into_iter().find(|(t, _)| t == "olm.maxOpenShiftVersion") else {
        errs.push(format!(
            "csv.Annotations.olm.properties with the key `olm.maxOpenShiftVersion` and a value with an OCP version \
             which is < {OCP_UNSUPPORTED} is required for any operator bundle that is {REMOVED_1_22}. Migrate the \
             API(s) for {apis} or use the annotation"
        ));
        return;
    };
    let version = match parse_tolerant(&value) {
        Ok(v) => v,
        Err(e) => {
            errs.push(format!(
                "csv.Annotations.olm.properties has an invalid value.Unable to parse ({value}) using semver : {e}"
            ));
            return;
        }
    };
    let truncated = Version { patch: 0, pre: Vec::new(), build: Vec::new(), ..version.clone() };
    if version.patch != 0 || !version.pre.is_empty() {
        warns.push(format!(
            "csv.Annotations.olm.properties has an invalid value. olm.maxOpenShiftVersion must specify only \
             major.minor versions, {version} will be truncated to {truncated}"
        ));
        return;
    }
    if version.ge(&unsupported()) {
        errs.push(format!(
            "csv.Annotations.olm.properties with the key and value for olm.maxOpenShiftVersion has the OCP version \
             value {value} which is >= of {OCP_UNSUPPORTED}. This bundle is {REMOVED_1_22}. Migrate the API(s) for \
             {apis} or inform in this property an OCP version which is < {OCP_UNSUPPORTED}"
        ));
    }
}

/// `validateImageFile`: the label's range must end below 4.9.
fn index_file(file: &IndexFile, apis: &str, errs: &mut Vec<String>) {
    let example = format!("(e.g. {INDEX_PATH_KEY}=./mypath/bundle.Dockerfile)");
    let text = match file {
        IndexFile::NotFound { path, error } => {
            errs.push(format!(
                "the index image in the path ({path}) was not found. Please, inform the path of the bundle operator \
                 index image via the the optional key values and the key {INDEX_PATH_KEY}. {example}. Error : {error}"
            ));
            return;
        }
        IndexFile::Directory { path } => {
            errs.push(format!(
                "the index image in the path ({path}) is not file. Please, inform the path of its index image via the \
                 the optional key values and the key {INDEX_PATH_KEY}. {example}. The value informed is a diretory and \
                 not a file"
            ));
            return;
        }
        IndexFile::Unreadable { path, error } => {
            errs.push(format!("unable to read the index image in the path ({path}). Error : {error}"));
            return;
        }
        IndexFile::Content { text } => text,
    };
    let use_annotation = format!(
        "by using the {OCP_LABEL} annotation in `metadata/annotations.yaml` to ensure that the index image will be \
         generated with its label. (e.g. LABEL {OCP_LABEL}='4.6-4.8')"
    );
    let Some(line) = text.split('\n').find(|l| l.contains(OCP_LABEL)) else {
        errs.push(format!(
            "this bundle is {REMOVED_1_22}. Migrate the APIs for {apis} or provide compatible version(s) via the \
             labels. (e.g. LABEL {OCP_LABEL}='4.6-4.8')"
        ));
        return;
    };
    let Some(value) = line.split('=').nth(1) else {
        errs.push(format!("invalid syntax ({line}) for ({OCP_LABEL})"));
        return;
    };
    let range = value.replace(['\'', '"'], "");
    if range.len() <= 1 {
        errs.push(format!("unable to get the range informed on {OCP_LABEL}"));
        return;
    }
    let Some(max) = range.split('-').nth(1) else {
        errs.push(format!(
            "this bundle is {REMOVED_1_22} The {range} allows to distribute it on >= {OCP_UNSUPPORTED}. Migrate the \
             API(s) for {apis} or provide compatible version(s) {use_annotation}"
        ));
        return;
    };
    match parse_tolerant(max) {
        Err(_) => errs.push(format!("unable to parse the value ({max}) on ({OCP_LABEL})")),
        Ok(v) if v.ge(&unsupported()) => errs.push(format!(
            "this bundle is {REMOVED_1_22}. Upgrade the APIs from for {apis} or provide compatible distribution \
             version(s) {use_annotation}"
        )),
        Ok(_) => {}
    }
}

/// `validateCommunityBundle`: nothing to say unless the bundle uses APIs removed in 1.22.
pub(super) fn community(l: &Loaded, csv: &Value, index: Option<&IndexFile>, out: &mut Out) {
    let removed = removed_in_1_22(l);
    if removed.is_empty() {
        return;
    }
    let apis = message(&removed);
    let (mut errs, mut warns) = (Vec::new(), Vec::new());
    max_openshift_version(csv, &apis, &mut errs, &mut warns);
    match index {
        None => {
            // Upstream appends this warning to its error list and keeps that as the warnings: each error so far
            // is reported a second time, as a warning, and an earlier warning is lost.
            warns = errs.clone();
            warns.push(format!(
                "please, inform the path of its index image file via the the optional key values and the key \
                 {INDEX_PATH_KEY} to allow this validator check the labels configuration or migrate the API(s) for \
                 {apis}. (e.g. {INDEX_PATH_KEY}=./mypath/bundle.Dockerfile). This bundle is {REMOVED_1_22} "
            ));
        }
        Some(file) => index_file(file, &apis, &mut errs),
    }
    let name = s(csv, "/metadata/name");
    for e in errs {
        out.csv(Level::Error, name, e);
    }
    for w in warns {
        out.csv(Level::Warning, name, w);
    }
}
