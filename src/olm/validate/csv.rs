//! The CSV validator (operator-framework/api `internal/csv.go`, `typecheck.go`, `annotations.go`) and the check
//! against OLM's own ClusterServiceVersion CRD schema.

use std::collections::BTreeSet;

use serde_json::Value;

use super::go_fmt::{self, quote};
use super::{Level, Out, go_json, group_of, gvk_text, s};
use crate::olm::semver::Version;

pub(super) const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or \
     '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used \
     for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
pub(super) const SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or \
     '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is \
     '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

pub(super) const DNS1035_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', \
     start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex \
     used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

fn matches(re: &str, s: &str) -> bool {
    regex::Regex::new(&format!("^(?:{re})$")).is_ok_and(|r| r.is_match(s))
}

/// apimachinery's `IsDNS1123Subdomain`.
pub(super) fn subdomain_problems(s: &str) -> Vec<String> {
    let mut p = Vec::new();
    if s.len() > 253 {
        p.push("must be no more than 253 bytes".to_string());
    }
    if !matches(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*", s) {
        p.push(SUBDOMAIN_MSG.to_string());
    }
    p
}

/// apimachinery's `IsDNS1035Label`.
pub(super) fn dns1035_problems(s: &str) -> Vec<String> {
    let mut p = Vec::new();
    if s.len() > 63 {
        p.push("must be no more than 63 bytes".to_string());
    }
    if !matches("[a-z]([-a-z0-9]*[a-z0-9])?", s) {
        p.push(DNS1035_MSG.to_string());
    }
    p
}

/// `IsDNS1123Subdomain` then `IsValidLabelValue`, as `parseCSVNameFormat` joins them.
pub(super) fn name_problems(name: &str) -> Vec<String> {
    let mut p = subdomain_problems(name);
    if name.len() > 63 {
        p.push("must be no more than 63 bytes".into());
    }
    if !matches("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?", name) {
        p.push(LABEL_VALUE_MSG.into());
    }
    p
}

/// The CSV as OLM's typed Go struct reads it (sigs.k8s.io/yaml decodes into its fields): a YAML number or
/// boolean where the CSV CRD schema has a string becomes the string Go writes for it (`minKubeVersion: 1.21` is
/// `"1.21"`).
pub(super) fn typed(csv: &Value) -> Value {
    fn walk(schema: &Value, v: &Value) -> Value {
        match v {
            Value::Number(n) if schema["type"] == "string" => Value::String(match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => i.to_string(),
                (_, Some(u)) => u.to_string(),
                _ => go_fmt::format_float_g32(n.as_f64().unwrap_or_default()),
            }),
            Value::Bool(b) if schema["type"] == "string" => Value::String(b.to_string()),
            Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, x)| {
                        let sub = schema["properties"]
                            .get(k)
                            .or_else(|| schema.get("additionalProperties").filter(|a| a.is_object()))
                            .unwrap_or(&Value::Null);
                        (k.clone(), walk(sub, x))
                    })
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(|x| walk(&schema["items"], x)).collect()),
            other => other.clone(),
        }
    }
    walk(crate::olm::schema::csv_schema(), csv)
}

/// `(group, version, kind)` of the APIs the CSV provides (owned CRDs and owned API services), with
/// `getProvidedAPIs`' error for an owned CRD name without a dot.
fn provided_apis(csv: &Value, out: &mut Out) -> Vec<(String, String, String)> {
    let mut provided = Vec::new();
    for o in csv.pointer("/spec/customresourcedefinitions/owned").and_then(Value::as_array).into_iter().flatten() {
        let name = s(o, "/name");
        match name.split_once('.') {
            Some((_, group)) => {
                provided.push((group.to_string(), s(o, "/version").to_string(), s(o, "/kind").to_string()))
            }
            None => out.bare(Level::Error, format!("couldn't parse plural.group from crd name: {name}")),
        }
    }
    for o in csv.pointer("/spec/apiservicedefinitions/owned").and_then(Value::as_array).into_iter().flatten() {
        provided.push((s(o, "/group").to_string(), s(o, "/version").to_string(), s(o, "/kind").to_string()));
    }
    provided
}

/// `validateCSV`, in its order: names, examples, install modes, minKubeVersion, required fields, annotation
/// names, apiVersion and kind.
pub(super) fn csv_rules(csv: &Value, out: &mut Out) {
    let name = s(csv, "/metadata/name");
    let p = name_problems(name);
    if !p.is_empty() {
        out.csv(Level::Error, name, format!("metadata.name {} is invalid: {}", quote(name), p.join(",")));
    }
    let replaces = s(csv, "/spec/replaces");
    if !replaces.is_empty() {
        let p = name_problems(replaces);
        if !p.is_empty() {
            out.csv(Level::Error, name, format!("spec.replaces {} is invalid: {}", quote(replaces), p.join(",")));
        }
    }
    let ann = csv["metadata"]["annotations"].as_object().filter(|a| !a.is_empty());
    match ann {
        None => out.csv(Level::Warning, name, "annotations not found"),
        Some(ann) => examples(csv, ann, out),
    }
    install_modes(csv, out);
    min_kube_version(csv, out);
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
    // Annotation names (annotations.go), then kubesmith's own check of olm.skipRange.
    if let Some(ann) = ann {
        for (wrong, right) in [
            ("olm.operatorgroup", "olm.operatorGroup"),
            ("olm.operatornamespace", "olm.operatorNamespace"),
            ("olm.targetnamespaces", "olm.targetNamespaces"),
            ("olm.providedapis", "olm.providedAPIs"),
            ("olm.skiprange", "olm.skipRange"),
        ] {
            for k in ann.keys() {
                if k.to_ascii_lowercase() == wrong && k != right {
                    out.value(
                        Level::Error,
                        name,
                        format!("provided annotation {k} uses wrong case and should be {right} instead"),
                    );
                }
            }
        }
        if ann.contains_key("olm.properties") {
            out.value(
                Level::Warning,
                "",
                "found olm.properties annotation, please define these properties in metadata/properties.yaml instead",
            );
        }
        if let Some(r) = ann.get("olm.skipRange").and_then(Value::as_str)
            && let Err(e) = crate::olm::semver::Range::parse(r)
        {
            out.err(format!("({name}) invalid olm.skipRange {r:?}: {e}"));
        }
    }
    if s(csv, "/apiVersion").rsplit('/').next().unwrap_or("").is_empty() {
        out.csv(Level::Error, name, "'apiVersion' is missing");
    }
    if s(csv, "/kind").is_empty() {
        out.csv(Level::Error, name, "'kind' is missing");
    }
}

/// `validateInstallModes`.
fn install_modes(csv: &Value, out: &mut Out) {
    let name = s(csv, "/metadata/name");
    let modes = csv["spec"]["installModes"].as_array().cloned().unwrap_or_default();
    if modes.is_empty() {
        out.csv(Level::Error, name, "install modes not found");
        return;
    }
    let supported = |m: &Value| m["supported"] == Value::Bool(true);
    for w in csv["spec"]["webhookdefinitions"].as_array().into_iter().flatten() {
        if w["conversionCRDs"].as_array().is_some_and(|c| !c.is_empty()) {
            let only_all = modes.iter().all(|m| (m["type"] == "AllNamespaces") == supported(m));
            if !only_all {
                out.csv(
                    Level::Error,
                    name,
                    "only AllNamespaces InstallModeType is supported when conversionCRDs is present",
                );
            }
        }
    }
    if !modes.iter().any(supported) {
        out.csv(Level::Error, name, "none of InstallModeTypes are supported");
    }
}

pub(super) const MIN_KUBE_VERSION_WARNING: &str = "csv.Spec.minKubeVersion is not informed. It is recommended you \
     provide this information. Otherwise, it would mean that your operator project can be distributed and installed \
     in any cluster version available, which is not necessarily the case for all projects.";

/// `validateMinKubeVersion` (and operatorhub's `checkSpecMinKubeVersion`): empty warns, not strict semver fails.
pub(super) fn min_kube_version(csv: &Value, out: &mut Out) {
    let name = s(csv, "/metadata/name");
    let mkv = s(csv, "/spec/minKubeVersion");
    if mkv.trim().is_empty() {
        out.csv(Level::Warning, name, MIN_KUBE_VERSION_WARNING);
    } else if Version::parse(mkv).is_err() {
        out.csv(Level::Error, name, format!("csv.Spec.MinKubeVersion has an invalid value: {mkv}"));
    }
}

/// `validateExamplesAnnotations`: `alm-examples` (or `olm.examples`) must be JSON (checked with Go's scanner), decode
/// as a list of objects with a kind, and match the provided APIs both ways. An empty annotation is no example.
fn examples(csv: &Value, ann: &serde_json::Map<String, Value>, out: &mut Out) {
    let name = s(csv, "/metadata/name");
    let alm = ann.get("alm-examples").map(|v| v.as_str().unwrap_or(""));
    let olm = ann.get("olm.examples").map(|v| v.as_str().unwrap_or(""));
    let text = match (alm, olm) {
        (None, None) => {
            out.csv(Level::Warning, name, "example annotations not found");
            return;
        }
        (Some(a), Some(_)) => {
            out.csv(
                Level::Warning,
                name,
                "both `alm-examples` and `olm.examples` are present. Checking only `alm-examples`",
            );
            a
        }
        (Some(a), None) => a,
        (None, Some(o)) => o,
    };
    if !text.is_empty()
        && let Err(e) = go_json::check_syntax(text.as_bytes())
    {
        let seen = String::from_utf8_lossy(&text.as_bytes()[..e.offset]);
        let value = format!("invalid character at {}\n {seen}<--(see the invalid character)", e.offset);
        out.value(Level::Error, &value, "invalid example");
        return;
    }
    let items = match decode_examples(text) {
        Ok(items) => items,
        Err(e) => {
            out.value(Level::Error, &e, "error decoding example CustomResource");
            return;
        }
    };
    let provided = provided_apis(csv, out);
    let mut seen = BTreeSet::new();
    for ex in &items {
        let (g, v, k) = example_gvk(ex);
        if !provided.contains(&(g.clone(), v.clone(), k.clone())) && seen.insert((g.clone(), v.clone(), k.clone())) {
            out.value(Level::Error, &gvk_text(&g, &v, &k), "example must have a provided API");
        }
        seen.insert((g, v, k));
    }
    for (g, v, k) in &provided {
        if !seen.contains(&(g.clone(), v.clone(), k.clone())) {
            out.value(Level::Warning, &gvk_text(g, v, k), "provided API should have an example annotation");
        }
    }
}

/// What apimachinery's `YAMLOrJSONDecoder` makes of the (syntactically valid) examples when decoding them into
/// `[]unstructured.Unstructured`: text starting with `{` goes to the JSON decoder, anything else through
/// sigs.k8s.io/yaml; each element must be an object with a kind.
fn decode_examples(text: &str) -> Result<Vec<Value>, String> {
    const TARGET: &str = "[]unstructured.Unstructured";
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let peek = String::from_utf8_lossy(&text.as_bytes()[..text.len().min(8)]).into_owned();
    let parsed: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if peek.trim_start().starts_with('{') {
        return Err(format!("json: cannot unmarshal {} into Go value of type {TARGET}", go_json::type_name(&parsed)));
    }
    let wrap = |e: String| format!("error unmarshaling JSON: while decoding JSON: {e}");
    let items = match parsed {
        Value::Null => return Ok(Vec::new()),
        Value::Array(items) => items,
        other => {
            return Err(wrap(format!(
                "json: cannot unmarshal {} into Go value of type {TARGET}",
                go_json::type_name(&other)
            )));
        }
    };
    for item in &items {
        match item {
            Value::Object(_) | Value::Null => {
                if item["kind"].as_str().is_none_or(str::is_empty) {
                    return Err(wrap(format!("Object 'Kind' is missing in '{}'", go_json::marshal(item))));
                }
            }
            other => {
                return Err(wrap(format!(
                    "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                    go_json::type_name(other)
                )));
            }
        }
    }
    Ok(items)
}

/// `Unstructured.GroupVersionKind()`: an apiVersion with more than one `/` gives the empty GVK.
fn example_gvk(ex: &Value) -> (String, String, String) {
    let api = s(ex, "/apiVersion");
    let kind = s(ex, "/kind").to_string();
    match api.split('/').count() {
        1 => (String::new(), api.to_string(), kind),
        2 => (group_of(api).to_string(), api.rsplit('/').next().unwrap_or("").to_string(), kind),
        _ => Default::default(),
    }
}

pub(super) fn schema(csv: &Value, out: &mut Out) {
    let name = s(csv, "/metadata/name");
    let o = crate::olm::schema::validate(crate::olm::schema::csv_schema(), csv);
    for e in o.errors {
        out.err(format!(
            "({name}) the cluster would refuse this ClusterServiceVersion: {e} (OLM's ClusterServiceVersion CRD schema)"
        ));
    }
    for u in o.unknown {
        out.warn(format!("({name}) field {u} is not in OLM's ClusterServiceVersion schema and would be dropped"));
    }
}
