//! The CRD validator (operator-framework/api `internal/crd.go`: apiextensions' `ValidateCustomResourceDefinition`
//! without schema and status errors).

use std::collections::BTreeSet;

use serde_json::Value;

use super::csv::SUBDOMAIN_MSG;
use super::{Out, s};
use crate::names::{is_dns1035_label, is_dns1123_subdomain};

pub(super) fn crd_rules(crd: &Value, out: &mut Out) {
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

pub(super) fn crd_name_value(crd: &Value) -> String {
    let name = s(crd, "/metadata/name");
    if name.is_empty() { "<unnamed CRD>".into() } else { name.to_string() }
}
