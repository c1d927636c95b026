//! The CSV validator (operator-framework/api `internal/csv.go`, `typecheck.go`, `annotations.go`) and the check
//! against OLM's own ClusterServiceVersion CRD schema.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{Out, group_of, gvk_text, s};
use crate::names::is_dns1123_subdomain;
use crate::olm::semver::Version;

pub(super) const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or \
     '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used \
     for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
pub(super) const SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or \
     '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is \
     '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

pub(super) fn name_problems(name: &str) -> Vec<String> {
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
pub(super) fn provided_apis(csv: &Value) -> Vec<(String, String, String)> {
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

pub(super) fn csv_rules(csv: &Value, out: &mut Out) {
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
                && let Err(e) = crate::olm::semver::Range::parse(r)
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

pub(super) fn min_kube_version(csv: &Value, out: &mut Out) {
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

pub(super) fn examples(csv: &Value, ann: &serde_json::Map<String, Value>, out: &mut Out) {
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

pub(super) fn schema(csv: &Value, out: &mut Out) {
    let name = s(csv, "/metadata/name");
    let o = crate::olm::schema::validate(crate::olm::schema::csv_schema(), csv);
    for e in o.errors {
        out.err(format!("({name}) does not match OLM's ClusterServiceVersion schema: {e}"));
    }
    for u in o.unknown {
        out.warn(format!("({name}) field {u} is not in OLM's ClusterServiceVersion schema and would be dropped"));
    }
}
