//! The CRD validator (operator-framework/api `internal/crd.go`): a v1 or v1beta1 CRD is defaulted and converted
//! to the internal form as its own version defines them, then checked by apiextensions'
//! `ValidateCustomResourceDefinition`, whose errors on schemas and status are dropped. Messages are api's
//! `errors.Error` around apimachinery's `field.Error`: `Field spec.group, Value x: spec.group: Invalid value: …`.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::csv::{dns1035_problems, subdomain_problems};
use super::go_fmt::{go_string_slice, list, quote};
use super::{Level, Out, s};

/// The field errors of one CRD, rendered.
#[derive(Default)]
struct Errs(Vec<String>);

impl Errs {
    fn push(&mut self, field: &str, value: &str, body: String) {
        self.0.push(format!("Field {field}, Value {value}: {field}: {body}"));
    }
    /// `field.Invalid` with a string value.
    fn invalid(&mut self, field: &str, bad: &str, detail: &str) {
        self.push(field, bad, format!("Invalid value: {}: {detail}", quote(bad)));
    }
    /// `field.Required`.
    fn required(&mut self, field: &str, detail: &str) {
        let body = if detail.is_empty() { "Required value".to_string() } else { format!("Required value: {detail}") };
        self.push(field, "", body);
    }
    /// `field.Forbidden`.
    fn forbidden(&mut self, field: &str, detail: &str) {
        self.push(field, "", format!("Forbidden: {detail}"));
    }
    /// `field.NotSupported`.
    fn unsupported(&mut self, field: &str, bad: &str, valid: &[&str]) {
        let valid: Vec<String> = valid.iter().map(|v| quote(v)).collect();
        self.push(field, bad, format!("Unsupported value: {}: supported values: {}", quote(bad), valid.join(", ")));
    }
}

/// What a CRD is once defaulted and converted to apiextensions' internal type, for the fields validated here.
struct Internal {
    /// `spec.versions` (`None`: Go's nil slice).
    versions: Option<Vec<Value>>,
    /// `spec.version`: v1beta1's field, else the first version's name.
    version: String,
    /// `spec.conversion` (`None` strategy when unset): strategy, `webhookClientConfig`, `conversionReviewVersions`.
    conversion: (String, Option<Value>, Option<Vec<String>>),
    preserve_unknown_fields: bool,
}

fn strings(v: &Value) -> Option<Vec<String>> {
    v.as_array().map(|a| a.iter().map(|x| x.as_str().map(String::from).unwrap_or_else(|| x.to_string())).collect())
}

/// `SetDefaults_CustomResourceDefinition(Spec)` of the CRD's version, then the conversion to the internal type.
fn internal(crd: &Value) -> Internal {
    let spec = &crd["spec"];
    let v1beta1 = s(crd, "/apiVersion") == "apiextensions.k8s.io/v1beta1";
    let mut versions = spec["versions"].as_array().cloned();
    let mut version = String::new();
    let conv = spec.get("conversion").filter(|c| !c.is_null());
    let mut conversion = match conv {
        None => ("None".to_string(), None, None),
        Some(c) if v1beta1 => (
            s(c, "/strategy").to_string(),
            c.get("webhookClientConfig").filter(|w| !w.is_null()).cloned(),
            strings(&c["conversionReviewVersions"]),
        ),
        Some(c) => {
            let hook = c.get("webhook").filter(|w| !w.is_null());
            (
                s(c, "/strategy").to_string(),
                hook.and_then(|h| h.get("clientConfig")).filter(|w| !w.is_null()).cloned(),
                hook.and_then(|h| strings(&h["conversionReviewVersions"])),
            )
        }
    };
    if v1beta1 {
        version = s(spec, "/version").to_string();
        if version.is_empty()
            && let Some(first) = versions.as_ref().and_then(|v| v.first())
        {
            version = s(first, "/name").to_string();
        }
        if versions.as_ref().is_none_or(Vec::is_empty) && !version.is_empty() {
            versions = Some(vec![json!({"name": version, "served": true, "storage": true})]);
        }
        let (strategy, _, reviews) = &mut conversion;
        if strategy == "Webhook" && reviews.as_ref().is_none_or(Vec::is_empty) {
            *reviews = Some(vec!["v1beta1".to_string()]);
        }
    } else if let Some(first) = versions.as_ref().and_then(|v| v.first()) {
        version = s(first, "/name").to_string();
    }
    let preserve_unknown_fields = match spec.get("preserveUnknownFields").and_then(Value::as_bool) {
        Some(p) => p,
        None => v1beta1,
    };
    Internal { versions, version, conversion, preserve_unknown_fields }
}

pub(super) fn crd_rules(crd: &Value, out: &mut Out) {
    let mut e = Errs::default();
    let spec = &crd["spec"];
    let int = internal(crd);
    // ValidateObjectMeta, with the CRD's name function.
    let name = s(crd, "/metadata/name");
    let (group, plural) = (s(spec, "/group"), s(spec, "/names/plural"));
    if name.is_empty() {
        e.required("metadata.name", "name or generateName is required");
    } else {
        for p in subdomain_problems(name) {
            e.invalid("metadata.name", name, &p);
        }
        if name != format!("{plural}.{group}") {
            e.invalid("metadata.name", name, "must be spec.names.plural+\".\"+spec.group");
        }
    }
    if crd["metadata"].get("namespace").is_some_and(|n| n != "" && !n.is_null()) {
        e.forbidden("metadata.namespace", "not allowed on this type");
    }
    // validateCustomResourceDefinitionSpec.
    let group_problems = subdomain_problems(group);
    if group.is_empty() {
        e.required("spec.group", "");
    } else if !group_problems.is_empty() {
        e.invalid("spec.group", group, &group_problems.join(","));
    } else if group.split('.').count() < 2 {
        e.invalid("spec.group", group, "should be a domain with at least one dot");
    }
    match s(spec, "/scope") {
        "" if v1beta1_scope_default(crd) => {}
        "" => e.required("spec.scope", ""),
        "Cluster" | "Namespaced" => {}
        other => e.unsupported("spec.scope", other, &["Cluster", "Namespaced"]),
    }
    let versions = int.versions.clone().unwrap_or_default();
    let names: Vec<&str> = versions.iter().map(|v| s(v, "/name")).collect();
    let mut seen = BTreeSet::new();
    let mut unique = true;
    for (i, vn) in names.iter().enumerate() {
        unique &= seen.insert(*vn);
        let p = dns1035_problems(vn);
        if !p.is_empty() {
            e.invalid(&format!("spec.versions[{i}].name"), vn, &p.join(","));
        }
    }
    // Go prints the version structs themselves (with pointers); their names stand for them here, and the empty
    // list is exactly Go's nil slice.
    let shown = if int.versions.is_none() {
        ("[]".to_string(), "[]apiextensions.CustomResourceDefinitionVersion(nil)".to_string())
    } else {
        (list(&names), serde_json::to_string(&names).unwrap_or_default())
    };
    if !unique {
        e.push("spec.versions", &shown.0, format!("Invalid value: {}: must contain unique version names", shown.1));
    }
    if versions.iter().filter(|v| v["storage"] == Value::Bool(true)).count() != 1 {
        e.push(
            "spec.versions",
            &shown.0,
            format!("Invalid value: {}: must have exactly one version marked as storage version", shown.1),
        );
    }
    if !int.version.is_empty() {
        let p = dns1035_problems(&int.version);
        if !p.is_empty() {
            e.invalid("spec.version", &int.version, &p.join(","));
        }
        if names.first().is_some_and(|first| *first != int.version) {
            e.invalid("spec.version", &int.version, "must match the first version in spec.versions");
        }
    }
    let n = &spec["names"];
    let (kind, list_kind) = (s(n, "/kind"), s(n, "/listKind"));
    // kube-derive and controller-gen always set singular and listKind; the API server defaults them.
    for f in ["plural", "kind"] {
        if s(n, &format!("/{f}")).is_empty() {
            e.required(&format!("spec.names.{f}"), "");
        }
    }
    // ValidateCustomResourceDefinitionNames.
    for f in ["plural", "singular"] {
        let v = s(n, &format!("/{f}"));
        let p = dns1035_problems(v);
        if !v.is_empty() && !p.is_empty() {
            e.invalid(&format!("spec.names.{f}"), v, &p.join(","));
        }
    }
    for (f, v) in [("kind", kind), ("listKind", list_kind)] {
        let p = dns1035_problems(&v.to_lowercase());
        if !v.is_empty() && !p.is_empty() {
            e.invalid(
                &format!("spec.names.{f}"),
                v,
                &format!("may have mixed case, but should otherwise match: {}", p.join(",")),
            );
        }
    }
    for (i, v) in strings(&n["shortNames"]).unwrap_or_default().iter().enumerate() {
        let p = dns1035_problems(v);
        if !p.is_empty() {
            e.invalid(&format!("spec.names.shortNames[{i}]"), v, &p.join(","));
        }
    }
    if !kind.is_empty() && kind == list_kind {
        e.invalid("spec.names.listKind", list_kind, "kind and listKind may not be the same");
    }
    for (i, v) in strings(&n["categories"]).unwrap_or_default().iter().enumerate() {
        let p = dns1035_problems(v);
        if !p.is_empty() {
            e.invalid(&format!("spec.names.categories[{i}]"), v, &p.join(","));
        }
    }
    let (strategy, client_config, reviews) = &int.conversion;
    conversion(&mut e, strategy, client_config.as_ref(), reviews.as_deref());
    if strategy == "Webhook" && int.preserve_unknown_fields {
        e.push(
            "spec.conversion.strategy",
            strategy,
            format!("Invalid value: {}: must be None if spec.preserveUnknownFields is true", quote(strategy)),
        );
    }
    for m in e.0 {
        out.push(Level::Error, m);
    }
}

/// v1beta1 defaults an empty scope to `Namespaced`.
fn v1beta1_scope_default(crd: &Value) -> bool {
    s(crd, "/apiVersion") == "apiextensions.k8s.io/v1beta1"
}

/// `validateCustomResourceConversion` (creation: a recognized review version is required).
fn conversion(e: &mut Errs, strategy: &str, client_config: Option<&Value>, reviews: Option<&[String]>) {
    let cc_path = "spec.conversion.webhookClientConfig";
    let rv_path = "spec.conversion.conversionReviewVersions";
    match strategy {
        "" => e.required("spec.conversion.strategy", ""),
        "None" | "Webhook" => {}
        other => e.unsupported("spec.conversion.strategy", other, &["None", "Webhook"]),
    }
    if strategy != "Webhook" {
        if client_config.is_some() {
            e.forbidden(cc_path, "should not be set when strategy is not set to Webhook");
        }
        if reviews.is_some_and(|r| !r.is_empty()) {
            e.forbidden(rv_path, "should not be set when strategy is not set to Webhook");
        }
        return;
    }
    match client_config {
        None => e.required(cc_path, "required when strategy is set to Webhook"),
        Some(cc) => {
            let has = |k: &str| cc.get(k).is_some_and(|v| !v.is_null());
            if has("url") == has("service") {
                e.required(cc_path, "exactly one of url or service is required");
            }
        }
    }
    let reviews = reviews.unwrap_or_default();
    if reviews.is_empty() {
        e.required(rv_path, "");
        return;
    }
    let mut seen = BTreeSet::new();
    for (i, v) in reviews.iter().enumerate() {
        if !seen.insert(v) {
            e.invalid(&format!("{rv_path}[{i}]"), v, "duplicate version");
            continue;
        }
        for p in dns1035_problems(v) {
            e.invalid(&format!("{rv_path}[{i}]"), v, &p);
        }
    }
    if !reviews.iter().any(|v| v == "v1" || v == "v1beta1") {
        e.push(
            rv_path,
            &list(reviews),
            format!("Invalid value: {}: must include at least one of v1, v1beta1", go_string_slice(reviews)),
        );
    }
}
