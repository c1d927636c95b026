//! `bundle validate`: operator-framework/api's bundle validators (format, content, CSV, CRD, bundle and size),
//! a check of the CSV against OLM's own CSV CRD schema, and the optional suites (`operatorhub`,
//! `good-practices`, `alpha-deprecated-apis`). Messages are operator-framework's.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::bundle::{self, BundleFiles};
use super::csv::SUPPORTED_KINDS;
use super::semver::Version;
use crate::names::{is_dns1035_label, is_dns1123_subdomain};

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
    let annotations = format(b, &mut out);
    let loaded = load(b, annotations, &mut out);
    if let Some(l) = &loaded {
        content(l, &mut out);
        if let Some((_, csv)) = &l.csv {
            csv_rules(csv, &mut out);
            schema(csv, &mut out);
            bundle_rules(l, csv, &mut out);
            out.0.extend(super::install_modes::findings(csv, &l.crds));
            if suites.operatorhub {
                operatorhub(csv, &mut out);
            }
            if suites.good_practices {
                good_practices(l, csv, &mut out);
            }
            if suites.deprecated_apis {
                deprecated_apis(l, csv, suites.k8s_version.as_deref(), &mut out);
            }
        }
        for crd in &l.crds {
            crd_rules(crd, &mut out);
        }
    }
    out.0
}

// ---------------------------------------------------------------- format (operator-registry ValidateBundleFormat)

fn format(b: &BundleFiles, out: &mut Out) -> BTreeMap<String, String> {
    if !b.has_dir(Path::new("manifests")) {
        out.err("Unable to locate manifests directory");
    }
    if !b.has_dir(Path::new("metadata")) {
        out.err("Unable to locate metadata directory");
        return BTreeMap::new();
    }
    let Some((_, ann)) = b.annotations() else {
        out.err("Could not find annotations file");
        return BTreeMap::new();
    };
    for key in [bundle::MEDIATYPE, bundle::MANIFESTS, bundle::METADATA, bundle::PACKAGE, bundle::CHANNELS] {
        if !ann.contains_key(key) {
            out.err(format!("Missing annotation {key:?}"));
        }
    }
    let has_csv = b.files.iter().any(|(p, bytes)| {
        p.starts_with("manifests")
            && BundleFiles::documents(bytes).is_ok_and(|d| d.iter().any(|d| d["kind"] == "ClusterServiceVersion"))
    });
    let media = if has_csv { "registry+v1" } else { "plain" };
    if let Some(v) = ann.get(bundle::MEDIATYPE)
        && v != media
    {
        out.err(format!("Expecting annotation {:?} to have value {media:?} instead of {v:?}", bundle::MEDIATYPE));
    }
    if ann.get(bundle::CHANNELS).is_some_and(|c| c.trim().is_empty()) {
        out.err(format!("Expecting annotation {:?} to have non-empty value", bundle::CHANNELS));
    }
    if ann.get(bundle::DEFAULT_CHANNEL).is_some_and(|c| c.trim().is_empty()) {
        out.err(format!("Expecting annotation {:?} to have non-empty value", bundle::DEFAULT_CHANNEL));
    }
    if let Some(c) = ann.get(bundle::CHANNELS)
        && c.split(',').any(|n| n.trim().is_empty())
        && !c.trim().is_empty()
    {
        out.err(format!("annotation {:?} has an empty channel name in {c:?}", bundle::CHANNELS));
    }
    if let (Some(d), Some(c)) = (ann.get(bundle::DEFAULT_CHANNEL), ann.get(bundle::CHANNELS))
        && !d.trim().is_empty()
        && !c.split(',').any(|n| n.trim() == d)
    {
        out.err(format!("default channel {d:?} is not among the bundle's channels {c:?}"));
    }
    dependencies(b, out);
    ann
}

fn dependencies(b: &BundleFiles, out: &mut Out) {
    for (_, bytes) in b.in_dir(Path::new("metadata")) {
        let Ok(v) = crate::yaml::from_str(&String::from_utf8_lossy(bytes)) else {
            continue;
        };
        let Some(deps) = v["dependencies"].as_array() else {
            continue;
        };
        for d in deps {
            let t = s(d, "/type");
            let val = &d["value"];
            match t {
                "olm.gvk" => {
                    if !val.is_object() {
                        out.err(format!("couldn't parse dependency of type {t}"));
                        continue;
                    }
                    for (f, m) in [
                        ("group", "API Group is empty"),
                        ("version", "API Version is empty"),
                        ("kind", "API Kind is empty"),
                    ] {
                        if s(val, &format!("/{f}")).is_empty() {
                            out.err(m);
                        }
                    }
                }
                "olm.package" => {
                    if !val.is_object() {
                        out.err(format!("couldn't parse dependency of type {t}"));
                        continue;
                    }
                    if s(val, "/packageName").is_empty() {
                        out.err("Package name is empty");
                    }
                    let version = s(val, "/version");
                    if version.is_empty() {
                        out.err("Package version is empty");
                    } else if super::semver::Range::parse(version).is_err() {
                        out.err(format!("Invalid semver format version: {version}"));
                    }
                }
                "olm.label" => {
                    if s(val, "/label").is_empty() {
                        out.err("Label information is missing");
                    }
                }
                "olm.constraint" => {
                    if val.get("cel").is_some() && s(val, "/cel/rule").is_empty() {
                        out.err("The CEL expression is missing");
                    }
                }
                _ => out.err(format!("unsupported dependency type {t}")),
            }
        }
    }
}

// ---------------------------------------------------------------- loading (api manifests.GetBundleFromDir)

fn gzip_b64_len(bytes: &[u8]) -> usize {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let n = enc.write_all(bytes).and_then(|_| enc.finish()).map(|v| v.len()).unwrap_or(bytes.len());
    n.div_ceil(3) * 4
}

fn load(b: &BundleFiles, annotations: BTreeMap<String, String>, out: &mut Out) -> Option<Loaded> {
    let dir = annotations.get(bundle::MANIFESTS).map(|m| m.trim_end_matches('/')).unwrap_or("manifests");
    let dir = PathBuf::from(if dir.is_empty() { "manifests" } else { dir });
    if !b.has_dir(&dir) {
        return None;
    }
    let shown = Path::new(&b.root).join(&dir);
    for d in b.dirs.iter().filter(|d| d.parent() == Some(dir.as_path())) {
        out.err(format!("bundle manifests dir contains directory: {}", Path::new(&b.root).join(d).display()));
    }
    let mut l = Loaded { csv: None, crds: Vec::new(), others: Vec::new(), annotations, size: 0, compressed: 0 };
    let mut any = false;
    for (p, bytes) in b.in_dir(&dir) {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if name.starts_with('.') {
            out.err(format!("bundle manifests dir has hidden file: {}", Path::new(&b.root).join(p).display()));
            continue;
        }
        any = true;
        l.size += bytes.len();
        l.compressed += gzip_b64_len(bytes);
        let docs = match BundleFiles::documents(bytes) {
            Ok(d) => d,
            Err(e) => {
                out.err(format!("unable to decode object: {e} ({})", p.display()));
                continue;
            }
        };
        for d in docs {
            if !d.is_object() || s(&d, "/kind").is_empty() {
                out.err(format!("unable to decode object: Object 'Kind' is missing in {}", p.display()));
                continue;
            }
            match s(&d, "/kind") {
                "ClusterServiceVersion" => {
                    if l.csv.is_some() {
                        out.err("invalid bundle: contains multiple CSVs");
                    } else {
                        l.csv = Some((p.clone(), d));
                    }
                }
                "CustomResourceDefinition" => {
                    let api = s(&d, "/apiVersion");
                    if api != "apiextensions.k8s.io/v1" && api != "apiextensions.k8s.io/v1beta1" {
                        out.err(format!("unsupported CRD version {api} for {}", s(&d, "/metadata/name")));
                    } else {
                        l.crds.push(d);
                    }
                }
                _ => l.others.push(d),
            }
        }
    }
    if !any {
        out.err(format!("The directory {} contains no yaml files", shown.display()));
        return None;
    }
    if l.csv.is_none() {
        out.err(format!("unable to find a csv in bundle directory {}", shown.display()));
    }
    Some(l)
}

// ---------------------------------------------------------------- content (operator-sdk ValidateBundleContent)

fn content(l: &Loaded, out: &mut Out) {
    if l.csv.is_none() {
        out.err("no ClusterServiceVersion in bundle");
    }
    let all = l.csv.iter().map(|(_, c)| c).chain(&l.crds).chain(&l.others);
    for o in all {
        let kind = s(o, "/kind");
        let api = s(o, "/apiVersion");
        if !SUPPORTED_KINDS.contains(&kind) {
            out.err(format!(
                "Value {}: unsupported media type registry+v1 for bundle object",
                gvk_text(group_of(api), api.rsplit('/').next().unwrap_or(api), kind)
            ));
        }
        let mut errs = Vec::new();
        if s(o, "/metadata/name").is_empty() && s(o, "/metadata/generateName").is_empty() {
            errs.push("metadata.name: Required value: name or generateName is required".to_string());
        }
        if kind != "ClusterServiceVersion" && o["metadata"].get("namespace").is_some_and(|n| n != "") {
            errs.push("metadata.namespace: Forbidden: not allowed on this type".to_string());
        }
        let ann_size: usize = o["metadata"]["annotations"]
            .as_object()
            .map(|m| m.iter().map(|(k, v)| k.len() + v.as_str().map_or(0, str::len)).sum())
            .unwrap_or(0);
        if ann_size > 256 * 1024 {
            errs.push(format!("metadata.annotations: Too long: must have at most {} bytes", 256 * 1024));
        }
        if !errs.is_empty() {
            out.err(format!("error validating object: {}. {kind} {}", errs.join(", "), s(o, "/metadata/name")));
        }
    }
}

// ---------------------------------------------------------------- CSV (api internal/csv.go)

const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or \
     '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used \
     for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or \
     '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is \
     '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

fn name_problems(name: &str) -> Vec<String> {
    let mut p = Vec::new();
    if !is_dns1123_subdomain(name) {
        p.push(SUBDOMAIN_MSG.to_string());
    }
    if name.len() > 63 {
        p.push("must be no more than 63 characters".into());
    }
    let label_ok = name.is_empty()
        || (name.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
            && name.as_bytes()[0].is_ascii_alphanumeric()
            && name.as_bytes()[name.len() - 1].is_ascii_alphanumeric());
    if !label_ok {
        p.push(LABEL_VALUE_MSG.into());
    }
    p
}

/// `(group, version, kind)` of the APIs the CSV provides (owned CRDs and owned API services).
fn provided_apis(csv: &Value) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for o in csv.pointer("/spec/customresourcedefinitions/owned").and_then(Value::as_array).into_iter().flatten() {
        let name = s(o, "/name");
        if let Some((_, group)) = name.split_once('.') {
            out.push((group.to_string(), s(o, "/version").to_string(), s(o, "/kind").to_string()));
        }
    }
    for o in csv.pointer("/spec/apiservicedefinitions/owned").and_then(Value::as_array).into_iter().flatten() {
        out.push((s(o, "/group").to_string(), s(o, "/version").to_string(), s(o, "/kind").to_string()));
    }
    out
}

fn csv_rules(csv: &Value, out: &mut Out) {
    let name = s(csv, "/metadata/name");
    if s(csv, "/apiVersion").is_empty() {
        out.err(format!("({name}) 'apiVersion' is missing"));
    }
    if s(csv, "/kind").is_empty() {
        out.err(format!("({name}) 'kind' is missing"));
    }
    let p = name_problems(name);
    if !p.is_empty() {
        out.err(format!("({name}) metadata.name {name:?} is invalid: {}", p.join(",")));
    }
    let replaces = s(csv, "/spec/replaces");
    if !replaces.is_empty() {
        let p = name_problems(replaces);
        if !p.is_empty() {
            out.err(format!("({name}) spec.replaces {replaces:?} is invalid: {}", p.join(",")));
        }
    }
    // Required fields (typecheck.go).
    if csv.get("metadata").is_none_or(|m| m.as_object().is_none_or(|m| m.is_empty())) {
        out.err("Field ObjectMeta, Value field: required field missing");
    }
    if csv.get("spec").is_none() {
        out.err("Field Spec, Value field: required field missing");
    }
    if s(csv, "/spec/displayName").is_empty() {
        out.err("Field Spec.DisplayName, Value field: required field missing");
    }
    let install = &csv["spec"]["install"];
    if install.is_null() {
        out.err("Field Spec.InstallStrategy, Value field: required field missing");
    } else {
        if s(install, "/strategy").is_empty() {
            out.err("Field Spec.InstallStrategy.StrategyName, Value field: required field missing");
        }
        if install["spec"].as_object().is_some_and(|m| !m.is_empty())
            && install["spec"]["deployments"].as_array().is_none_or(|d| d.is_empty())
        {
            out.err("Field Spec.InstallStrategy.StrategySpec.DeploymentSpecs, Value field: required field missing");
        }
    }
    // Annotations and examples.
    let ann = csv["metadata"]["annotations"].as_object();
    match ann {
        None => out.warn(format!("({name}) annotations not found")),
        Some(ann) => {
            for (wrong, right) in [
                ("olm.operatorgroup", "olm.operatorGroup"),
                ("olm.operatornamespace", "olm.operatorNamespace"),
                ("olm.targetnamespaces", "olm.targetNamespaces"),
                ("olm.providedapis", "olm.providedAPIs"),
                ("olm.skiprange", "olm.skipRange"),
            ] {
                for k in ann.keys() {
                    if k.to_ascii_lowercase() == wrong && k != right {
                        out.err(format!("provided annotation {k} uses wrong case and should be {right} instead"));
                    }
                }
            }
            if ann.contains_key("olm.properties") {
                out.warn("found olm.properties annotation, please define these properties in metadata/properties.yaml instead");
            }
            if let Some(r) = ann.get("olm.skipRange").and_then(Value::as_str)
                && let Err(e) = super::semver::Range::parse(r)
            {
                out.err(format!("({name}) invalid olm.skipRange {r:?}: {e}"));
            }
            examples(csv, ann, out);
        }
    }
    for o in csv.pointer("/spec/customresourcedefinitions/owned").and_then(Value::as_array).into_iter().flatten() {
        if !s(o, "/name").contains('.') {
            out.err(format!("couldn't parse plural.group from crd name: {}", s(o, "/name")));
        }
    }
    // Install modes.
    let modes = csv["spec"]["installModes"].as_array().cloned().unwrap_or_default();
    if modes.is_empty() {
        out.err(format!("({name}) install modes not found"));
    } else if !modes.iter().any(|m| m["supported"] == Value::Bool(true)) {
        out.err(format!("({name}) none of InstallModeTypes are supported"));
    }
    let conversion = csv["spec"]["webhookdefinitions"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|w| w["conversionCRDs"].as_array().is_some_and(|c| !c.is_empty()));
    if conversion {
        let ok = modes.iter().all(|m| (m["type"] == "AllNamespaces") == (m["supported"] == Value::Bool(true)))
            && modes.iter().any(|m| m["type"] == "AllNamespaces");
        if !ok {
            out.err(format!("({name}) only AllNamespaces InstallModeType is supported when conversionCRDs is present"));
        }
    }
    min_kube_version(csv, out);
}

fn min_kube_version(csv: &Value, out: &mut Out) {
    let name = s(csv, "/metadata/name");
    let mkv = s(csv, "/spec/minKubeVersion");
    if mkv.is_empty() {
        out.warn(format!(
            "({name}) csv.Spec.minKubeVersion is not informed. It is recommended you provide this information. \
             Otherwise, it would mean that your operator project can be distributed and installed in any cluster \
             version available, which is not necessarily the case for all projects."
        ));
    } else if Version::parse(mkv).is_err() {
        out.err(format!("({name}) csv.Spec.MinKubeVersion has an invalid value: {mkv}"));
    }
}

fn examples(csv: &Value, ann: &serde_json::Map<String, Value>, out: &mut Out) {
    let name = s(csv, "/metadata/name");
    let alm = ann.get("alm-examples").and_then(Value::as_str);
    let olm = ann.get("olm.examples").and_then(Value::as_str);
    let text = match (alm, olm) {
        (None, None) => {
            out.warn(format!("({name}) example annotations not found"));
            return;
        }
        (Some(a), Some(_)) => {
            out.warn(format!(
                "({name}) both `alm-examples` and `olm.examples` are present. Checking only `alm-examples`"
            ));
            a
        }
        (Some(a), None) => a,
        (None, Some(o)) => o,
    };
    let parsed: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            out.err(format!("invalid example: {e}"));
            return;
        }
    };
    let Some(items) = parsed.as_array().filter(|a| a.iter().all(Value::is_object)) else {
        out.err("error decoding example CustomResource");
        return;
    };
    let provided = provided_apis(csv);
    let mut seen = BTreeSet::new();
    for ex in items {
        let api = s(ex, "/apiVersion");
        let (g, v) = (group_of(api), api.rsplit('/').next().unwrap_or(api));
        let k = s(ex, "/kind");
        let key = (g.to_string(), v.to_string(), k.to_string());
        if !provided.contains(&key) {
            out.err(format!("Value {}: example must have a provided API", gvk_text(g, v, k)));
        }
        seen.insert(key);
    }
    for (g, v, k) in &provided {
        if !seen.contains(&(g.clone(), v.clone(), k.clone())) {
            out.warn(format!("Value {}: provided API should have an example annotation", gvk_text(g, v, k)));
        }
    }
}

fn schema(csv: &Value, out: &mut Out) {
    let name = s(csv, "/metadata/name");
    let o = super::schema::validate(super::schema::csv_schema(), csv);
    for e in o.errors {
        out.err(format!("({name}) does not match OLM's ClusterServiceVersion schema: {e}"));
    }
    for u in o.unknown {
        out.warn(format!("({name}) field {u} is not in OLM's ClusterServiceVersion schema and would be dropped"));
    }
}

// ---------------------------------------------------------------- bundle (api internal/bundle.go)

fn crd_keys(crd: &Value) -> Vec<(String, String, String)> {
    let group = s(crd, "/spec/group").to_string();
    let kind = s(crd, "/spec/names/kind").to_string();
    let mut out: Vec<(String, String, String)> = crd["spec"]["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| (group.clone(), s(v, "/name").to_string(), kind.clone()))
        .collect();
    if let Some(v) = crd["spec"]["version"].as_str()
        && !out.iter().any(|k| k.1 == v)
    {
        out.push((group, v.to_string(), kind));
    }
    out
}

fn size_text(n: usize) -> String {
    if n >= 1_000_000 { format!("{:.1} MB", n as f64 / 1e6) } else { format!("{:.1} kB", n as f64 / 1e3) }
}

const MAX_COMPRESSED: usize = 1_048_576;

fn bundle_rules(l: &Loaded, csv: &Value, out: &mut Out) {
    let bundle = s(csv, "/metadata/name");
    let mut seen = BTreeSet::new();
    let mut in_bundle = BTreeSet::new();
    for crd in &l.crds {
        for k in crd_keys(crd) {
            if !seen.insert(k.clone()) {
                out.err(format!("duplicate CRD {:?} in bundle {bundle:?}", gvk_text(&k.0, &k.1, &k.2)));
            }
            in_bundle.insert(k);
        }
    }
    let owned: Vec<(String, String, String)> = csv
        .pointer("/spec/customresourcedefinitions/owned")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|o| {
            let group = s(o, "/name").split_once('.').map(|(_, g)| g).unwrap_or("").to_string();
            (group, s(o, "/version").to_string(), s(o, "/kind").to_string())
        })
        .collect();
    for k in &owned {
        if !in_bundle.contains(k) {
            out.err(format!("owned CRD {:?} not found in bundle {bundle:?}", gvk_text(&k.0, &k.1, &k.2)));
        }
    }
    for k in &in_bundle {
        let owned_gk = owned.iter().any(|o| o.0 == k.0 && o.2 == k.2);
        if !owned.contains(k) && !owned_gk {
            out.err(format!(
                "CRD {:?} is present in bundle {bundle:?} but not defined in CSV",
                gvk_text(&k.0, &k.1, &k.2)
            ));
        }
    }
    let csv_sas: BTreeSet<&str> = csv["spec"]["install"]["spec"]["deployments"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d.pointer("/spec/template/spec/serviceAccountName").and_then(Value::as_str))
        .collect();
    for o in l.others.iter().filter(|o| o["kind"] == "ServiceAccount") {
        let sa = s(o, "/metadata/name");
        if csv_sas.contains(sa) {
            out.err(format!(
                "invalid service account found in bundle. This service account {sa} in your bundle is not valid, because \
                 a service account with the same name was already specified in your CSV. If this was unintentional, \
                 please remove the service account manifest from your bundle. If it was intentional to specify a \
                 separate service account, please rename the SA in either the bundle manifest or the CSV."
            ));
        }
    }
    if l.compressed > MAX_COMPRESSED {
        out.err(format!(
            "maximum bundle compressed size with gzip size exceeded: size=~{} , max={}. Bundle uncompressed size is {}",
            size_text(l.compressed),
            size_text(MAX_COMPRESSED),
            size_text(l.size)
        ));
    } else if l.compressed * 100 > MAX_COMPRESSED * 85 {
        out.warn(format!(
            "nearing maximum bundle compressed size with gzip: size=~{} , max={}. Bundle uncompressed size is {}",
            size_text(l.compressed),
            size_text(MAX_COMPRESSED),
            size_text(l.size)
        ));
    }
    let release = s(csv, "/spec/release");
    if !release.is_empty() {
        let pkg = l.annotations.get(bundle::PACKAGE).cloned().unwrap_or_default();
        let expected = format!("{pkg}-v{}-{release}", s(csv, "/spec/version"));
        if bundle != expected {
            out.err(format!(
                "bundle name with release versioning {bundle:?} does not match expected name {expected:?}"
            ));
        }
    }
    for (i, r) in csv["spec"]["relatedImages"].as_array().into_iter().flatten().enumerate() {
        let image = s(r, "/image");
        if image.is_empty() {
            out.err(format!("relatedImages[{i}] has an empty image field"));
        } else if let Err(e) = check_image(image) {
            out.err(format!("relatedImages[{i}] has an invalid image pullspec {image:?}: {e}"));
        }
    }
}

/// A docker reference check (`distribution/reference.ParseNormalizedNamed`, simplified).
pub fn check_image(image: &str) -> Result<(), String> {
    let re = regex::Regex::new(
        r"^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$",
    )
    .map_err(|e| e.to_string())?;
    if re.is_match(image) { Ok(()) } else { Err("invalid reference format".into()) }
}

// ---------------------------------------------------------------- CRD (api internal/crd.go)

fn crd_rules(crd: &Value, out: &mut Out) {
    let name = s(crd, "/metadata/name");
    let mut errs = Vec::new();
    let group = s(crd, "/spec/group");
    let plural = s(crd, "/spec/names/plural");
    if !is_dns1123_subdomain(name) {
        errs.push(format!("metadata.name: Invalid value: {name:?}: {SUBDOMAIN_MSG}"));
    }
    if name != format!("{plural}.{group}") {
        errs.push(format!("metadata.name: Invalid value: {name:?}: must be spec.names.plural+\".\"+spec.group"));
    }
    if crd["metadata"].get("namespace").is_some_and(|n| n != "") {
        errs.push("metadata.namespace: Forbidden: not allowed on this type".into());
    }
    if group.is_empty() {
        errs.push("spec.group: Required value".into());
    } else {
        if !is_dns1123_subdomain(group) {
            errs.push(format!("spec.group: Invalid value: {group:?}: {SUBDOMAIN_MSG}"));
        }
        if group.split('.').count() < 2 {
            errs.push(format!("spec.group: Invalid value: {group:?}: should be a domain with at least one dot"));
        }
    }
    match s(crd, "/spec/scope") {
        "" => errs.push("spec.scope: Required value".into()),
        "Cluster" | "Namespaced" => {}
        other => errs
            .push(format!("spec.scope: Unsupported value: {other:?}: supported values: \"Cluster\", \"Namespaced\"")),
    }
    let names = &crd["spec"]["names"];
    for f in ["plural", "singular", "kind", "listKind"] {
        let v = s(names, &format!("/{f}"));
        if v.is_empty() {
            // kube-derive and controller-gen always set these; listKind defaults to <Kind>List server-side.
            if f != "listKind" && f != "singular" {
                errs.push(format!("spec.names.{f}: Required value"));
            }
        } else if (f == "plural" || f == "singular") && !is_dns1035_label(v) {
            errs.push(format!("spec.names.{f}: Invalid value: {v:?}: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"));
        }
    }
    for (list, what) in [("shortNames", "shortNames"), ("categories", "categories")] {
        for (i, v) in names[list].as_array().into_iter().flatten().enumerate() {
            if !v.as_str().is_some_and(is_dns1035_label) {
                errs.push(format!("spec.names.{what}[{i}]: Invalid value: {v}: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"));
            }
        }
    }
    let kind = s(names, "/kind");
    let list_kind = s(names, "/listKind");
    if !kind.is_empty() && kind == list_kind {
        errs.push(format!("spec.names.listKind: Invalid value: {list_kind:?}: kind and listKind may not be the same"));
    }
    let versions = crd["spec"]["versions"].as_array().cloned().unwrap_or_default();
    let mut seen = BTreeSet::new();
    for (i, v) in versions.iter().enumerate() {
        let vn = s(v, "/name");
        if !is_dns1035_label(vn) {
            errs.push(format!("spec.versions[{i}].name: Invalid value: {vn:?}: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"));
        }
        if !seen.insert(vn) {
            errs.push(format!(
                "spec.versions: Invalid value: {}: must contain unique version names",
                serde_json::to_string(&versions.iter().map(|v| s(v, "/name")).collect::<Vec<_>>()).unwrap_or_default()
            ));
        }
    }
    let storage = versions.iter().filter(|v| v["storage"] == Value::Bool(true)).count();
    if !versions.is_empty() && storage != 1 {
        errs.push(format!(
            "spec.versions: Invalid value: {}: must have exactly one version marked as storage version",
            serde_json::to_string(&versions.iter().map(|v| s(v, "/name")).collect::<Vec<_>>()).unwrap_or_default()
        ));
    }
    if versions.is_empty() && crd["spec"]["version"].is_null() {
        errs.push("spec.versions: Invalid value: null: must have exactly one version marked as storage version".into());
    }
    let conv = &crd["spec"]["conversion"];
    match s(conv, "/strategy") {
        "" | "None" => {
            if conv.get("webhook").is_some_and(|w| !w.is_null()) {
                errs.push(
                    "spec.conversion.webhook: Forbidden: should not be set when strategy is not set to Webhook".into(),
                );
            }
        }
        "Webhook" => {
            let w = &conv["webhook"];
            let cc = &w["clientConfig"];
            if cc.is_null() {
                errs.push(
                    "spec.conversion.webhook.clientConfig: Required value: required when strategy is set to Webhook"
                        .into(),
                );
            } else if cc.get("url").is_some() == cc.get("service").is_some() {
                errs.push(
                    "spec.conversion.webhook.clientConfig: Required value: exactly one of url or service is required"
                        .into(),
                );
            }
            let crv: Vec<&str> =
                w["conversionReviewVersions"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            if !crv.iter().any(|v| *v == "v1" || *v == "v1beta1") {
                errs.push(format!("spec.conversion.webhook.conversionReviewVersions: Invalid value: {crv:?}: must include at least one of v1, v1beta1"));
            }
            if crd["spec"]["preserveUnknownFields"] == Value::Bool(true) {
                errs.push("spec.conversion.strategy: Invalid value: \"Webhook\": must be None if spec.preserveUnknownFields is true".into());
            }
        }
        other => errs.push(format!(
            "spec.conversion.strategy: Unsupported value: {other:?}: supported values: \"None\", \"Webhook\""
        )),
    }
    for e in errs {
        out.err(format!("Value {}: {e}", crd_name_value(crd)));
    }
}

fn crd_name_value(crd: &Value) -> String {
    let name = s(crd, "/metadata/name");
    if name.is_empty() { "<unnamed CRD>".into() } else { name.to_string() }
}

// ---------------------------------------------------------------- optional suites

const CAPABILITIES: &[&str] = &["Basic Install", "Seamless Upgrades", "Full Lifecycle", "Deep Insights", "Auto Pilot"];
const CATEGORIES: &[&str] = &[
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

fn email_ok(e: &str) -> bool {
    regex::Regex::new(r"^[^\s@<>]+@[^\s@<>]+$").is_ok_and(|r| r.is_match(e))
}

fn url_ok(u: &str) -> Result<(), String> {
    match u.split_once("://") {
        Some((scheme, rest)) if !scheme.is_empty() && !rest.is_empty() && !u.contains(' ') => Ok(()),
        _ if u.starts_with('/') => Ok(()),
        _ => Err(format!("parse {u:?}: invalid URI for request")),
    }
}

fn operatorhub(csv: &Value, out: &mut Out) {
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

fn good_practices(l: &Loaded, csv: &Value, out: &mut Out) {
    let name = s(csv, "/metadata/name");
    let deployments = csv["spec"]["install"]["spec"]["deployments"].as_array().cloned().unwrap_or_default();
    if deployments.is_empty() {
        out.err(format!("Value {name}: unable to find a deployment to install in the CSV"));
    }
    for d in &deployments {
        for c in d.pointer("/spec/template/spec/containers").and_then(Value::as_array).into_iter().flatten() {
            let req = &c["resources"]["requests"];
            if req.get("cpu").is_none() || req.get("memory").is_none() {
                out.warn(format!(
                    "Value {name}: unable to find the resource requests for the container: ({}). It is recommended to \
                     ensure the resource request for CPU and Memory. Be aware that for some clusters configurations it \
                     is required to specify requests or limits for those values. Otherwise, the system or quota may \
                     reject Pod creation. More info: https://master.sdk.operatorframework.io/docs/best-practices/managing-resources/",
                    s(c, "/name")
                ));
            }
        }
    }
    for kind in ["owned", "required"] {
        for o in csv["spec"]["customresourcedefinitions"][kind].as_array().into_iter().flatten() {
            if s(o, "/description").is_empty() {
                out.warn(format!("Value {name}: {kind} CRD {:?} has an empty description", s(o, "/name")));
            }
        }
    }
    let mut channels: Vec<String> = l
        .annotations
        .get(bundle::CHANNELS)
        .map(|c| c.split(',').map(|c| c.trim().to_string()).filter(|c| !c.is_empty()).collect())
        .unwrap_or_default();
    if let Some(d) = l.annotations.get(bundle::DEFAULT_CHANNEL)
        && !channels.contains(d)
    {
        channels.push(d.clone());
    }
    let bad: Vec<String> =
        channels.into_iter().filter(|c| !["candidate", "stable", "fast"].iter().any(|p| c.starts_with(p))).collect();
    if !bad.is_empty() {
        out.warn(format!(
            "Value {name}: channel(s) [{}] are not following the recommended naming convention: \
             https://olm.operatorframework.io/docs/best-practices/channel-naming",
            bad.join(" ")
        ));
    }
    let perms = ["permissions", "clusterPermissions"]
        .iter()
        .flat_map(|k| csv["spec"]["install"]["spec"][*k].as_array().cloned().unwrap_or_default())
        .flat_map(|p| p["rules"].as_array().cloned().unwrap_or_default());
    let has = |r: &Value, k: &str, vals: &[&str]| {
        r[k].as_array().into_iter().flatten().filter_map(Value::as_str).any(|v| vals.contains(&v))
    };
    let creates_crds = perms.into_iter().any(|r| {
        has(&r, "apiGroups", &["apiextensions.k8s.io"])
            && has(&r, "resources", &["customresourcedefinitions", "*", "[*]"])
            && has(&r, "verbs", &["create", "*", "[*]", "patch"])
    });
    if creates_crds {
        out.warn(format!(
            "Value {name}: CSV contains permissions to create CRD. An Operator shouldn't deploy or manage other \
             operators (such patterns are known as meta or super operators or include CRDs in its Operands). It's the \
             Operator Lifecycle Manager's job to manage the deployment and lifecycle of operators.  Please, review the \
             design of your solution and if you should not be using Dependency Resolution from OLM instead. More \
             info: https://sdk.operatorframework.io/docs/best-practices/common-recommendation/"
        ));
    }
    let parts: Vec<&str> = name.split(".v").collect();
    if parts.len() != 2 {
        out.warn(format!(
            "Value {name}: csv.metadata.Name {name} is not following the recommended naming convention: \
             <operator-name>.v<semver> e.g. memcached-operator.v0.0.1"
        ));
    } else if Version::parse(parts[1]).is_err() {
        out.warn(format!(
            "Value {name}: csv.metadata.Name {name} is not following the versioning convention (MAJOR.MINOR.PATCH e.g \
             0.0.1): https://semver.org/"
        ));
    }
}

/// `(removed in minor, apiVersion, kind)`.
const REMOVED: &[(u64, &str, &str)] = &[
    (22, "apiextensions.k8s.io/v1beta1", "CustomResourceDefinition"),
    (22, "rbac.authorization.k8s.io/v1beta1", "Role"),
    (22, "rbac.authorization.k8s.io/v1beta1", "ClusterRole"),
    (22, "rbac.authorization.k8s.io/v1beta1", "RoleBinding"),
    (22, "rbac.authorization.k8s.io/v1beta1", "ClusterRoleBinding"),
    (22, "admissionregistration.k8s.io/v1beta1", "ValidatingWebhookConfiguration"),
    (22, "admissionregistration.k8s.io/v1beta1", "MutatingWebhookConfiguration"),
    (22, "scheduling.k8s.io/v1beta1", "PriorityClass"),
    (22, "apiregistration.k8s.io/v1beta1", "APIService"),
    (22, "coordination.k8s.io/v1beta1", "Lease"),
    (22, "extensions/v1beta1", "Ingress"),
    (22, "networking.k8s.io/v1beta1", "Ingress"),
    (22, "networking.k8s.io/v1beta1", "IngressClass"),
    (22, "storage.k8s.io/v1beta1", "CSIDriver"),
    (22, "storage.k8s.io/v1beta1", "CSINode"),
    (22, "storage.k8s.io/v1beta1", "StorageClass"),
    (22, "storage.k8s.io/v1beta1", "VolumeAttachment"),
    (22, "certificates.k8s.io/v1beta1", "CertificateSigningRequest"),
    (25, "batch/v1beta1", "CronJob"),
    (25, "discovery.k8s.io/v1beta1", "EndpointSlice"),
    (25, "events.k8s.io/v1beta1", "Event"),
    (25, "autoscaling/v2beta1", "HorizontalPodAutoscaler"),
    (25, "policy/v1beta1", "PodDisruptionBudget"),
    (25, "policy/v1beta1", "PodSecurityPolicy"),
    (25, "node.k8s.io/v1beta1", "RuntimeClass"),
    (26, "autoscaling/v2beta2", "HorizontalPodAutoscaler"),
];

fn minor_of(v: &str) -> Option<(u64, u64)> {
    let v = v.trim_start_matches('v');
    let mut it = v.split('.');
    let major = it.next()?.parse().ok()?;
    let minor = it.next()?.parse().ok()?;
    Some((major, minor))
}

fn deprecated_apis(l: &Loaded, csv: &Value, k8s: Option<&str>, out: &mut Out) {
    let target = match k8s {
        Some(v) => match minor_of(v) {
            Some(m) => Some(m),
            None => {
                out.err(format!("invalid value informed via the k8s key option : {v}"));
                return;
            }
        },
        None => minor_of(s(csv, "/spec/minKubeVersion")),
    };
    let mut found: BTreeMap<u64, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for o in l.crds.iter().chain(&l.others) {
        let (api, kind) = (s(o, "/apiVersion"), s(o, "/kind"));
        for (minor, a, k) in REMOVED {
            if *a == api && *k == kind {
                found
                    .entry(*minor)
                    .or_default()
                    .entry(kind.to_string())
                    .or_default()
                    .push(s(o, "/metadata/name").into());
            }
        }
    }
    for kind in ["owned", "required"] {
        for o in csv["spec"]["customresourcedefinitions"][kind].as_array().into_iter().flatten() {
            for r in o["resources"].as_array().into_iter().flatten() {
                for (minor, a, k) in REMOVED.iter().filter(|(m, _, _)| *m == 25) {
                    if a.ends_with(&format!("/{}", s(r, "/version"))) && *k == s(r, "/kind") {
                        found.entry(*minor).or_default().entry(k.to_string()).or_default().push(s(r, "/name").into());
                    }
                }
            }
        }
    }
    for (minor, kinds) in found {
        let list: Vec<String> = kinds
            .iter()
            .map(|(k, names)| {
                let names: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
                format!("{k}: ({})", names.join(","))
            })
            .collect();
        let msg = format!(
            "this bundle is using APIs which were deprecated and removed in v1.{minor}. More info: \
             https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-{minor}. Migrate the API(s) for {}",
            list.join(",")
        );
        if target.is_some_and(|t| t >= (1, minor)) { out.err(msg) } else { out.warn(msg) }
    }
}

pub mod olm_v1;

#[cfg(test)]
mod tests;
