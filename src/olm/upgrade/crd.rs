//! The CRD-wide rules of an upgrade: scope, removed versions (stored or served), and, for each version both CRDs
//! have, the schema rules of `schema`; plus the rules on the new CRD alone (one storage version, a conversion
//! strategy when served versions differ).

use std::collections::BTreeSet;

use serde_json::Value;

use super::schema;
use super::{Change, Rule};

fn s<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

pub fn name(crd: &Value) -> &str {
    s(crd, "/metadata/name")
}

fn versions(crd: &Value) -> Vec<&Value> {
    crd["spec"]["versions"].as_array().into_iter().flatten().collect()
}

fn served(v: &Value) -> bool {
    v["served"] != Value::Bool(false)
}

/// A version's `openAPIV3Schema` (or the CRD-wide `spec.validation` of old-style CRDs).
fn schema_of<'a>(crd: &'a Value, v: &'a Value) -> Option<&'a Value> {
    v.pointer("/schema/openAPIV3Schema").or_else(|| crd.pointer("/spec/validation/openAPIV3Schema"))
}

fn change(rule: Rule, crd: &str, version: Option<&str>, what: String, fix: String) -> Change {
    Change { rule, crd: Some(crd.to_string()), version: version.map(str::to_string), path: None, what, fix }
}

/// Every rule between the previous release's CRD and the new one (same `metadata.name`).
pub fn compare(old: &Value, new: &Value) -> Vec<Change> {
    let crd = name(new);
    let mut out = Vec::new();
    let (old_scope, new_scope) = (s(old, "/spec/scope"), s(new, "/spec/scope"));
    if old_scope != new_scope {
        out.push(change(
            Rule::ScopeChanged,
            crd,
            None,
            format!(
                "scope changed from {old_scope} to {new_scope}, so the objects stored under the old scope become \
                 unreachable"
            ),
            "keep the scope; a kind with the other scope needs a CRD of its own (another kind or group)".into(),
        ));
    }
    let new_versions = versions(new);
    let stored_by_status: BTreeSet<&str> =
        old["status"]["storedVersions"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    for ov in versions(old) {
        let vname = s(ov, "/name");
        let Some(nv) = new_versions.iter().find(|nv| s(nv, "/name") == vname) else {
            let why = if ov["storage"] == Value::Bool(true) {
                Some("the previous release stores objects in it (storage: true)")
            } else if stored_by_status.contains(vname) {
                Some("status.storedVersions lists it")
            } else {
                None
            };
            if let Some(why) = why {
                out.push(change(
                    Rule::StoredVersionRemoved,
                    crd,
                    Some(vname),
                    format!("version removed, but {why}: the API server cannot read those objects any more"),
                    format!(
                        "keep {vname} in the CRD (`// +kubebuilder:unservedversion` on its spec struct stops serving \
                         it) until every object is stored in the new storage version and status.storedVersions no \
                         longer lists {vname}"
                    ),
                ));
            } else if served(ov) {
                out.push(change(
                    Rule::ServedVersionRemoved,
                    crd,
                    Some(vname),
                    "version removed while the previous release still served it, so clients using it break".into(),
                    format!(
                        "first ship a release that keeps {vname} with `served: false` (`// +kubebuilder:unservedversion` \
                         on its spec struct), then remove it"
                    ),
                ));
            }
            continue;
        };
        if let (Some(a), Some(b)) = (schema_of(old, ov), schema_of(new, nv)) {
            schema::compare(crd, vname, a, b, &mut out);
        }
    }
    for stored in &stored_by_status {
        if !versions(old).iter().any(|v| s(v, "/name") == *stored)
            && !new_versions.iter().any(|v| s(v, "/name") == *stored)
        {
            out.push(change(
                Rule::StoredVersionRemoved,
                crd,
                Some(stored),
                "version missing, but status.storedVersions lists it: the API server cannot read those objects".into(),
                format!("bring {stored} back until no object is stored in it"),
            ));
        }
    }
    out
}

/// A CRD of the previous release that the new one no longer ships.
pub fn removed(old: &Value) -> Change {
    let stored: Vec<&str> =
        versions(old).into_iter().filter(|v| v["storage"] == Value::Bool(true)).map(|v| s(v, "/name")).collect();
    change(
        Rule::CrdRemoved,
        name(old),
        None,
        format!(
            "CRD no longer shipped, so the versions it stores ({}) and every object in them lose their API",
            if stored.is_empty() { "none marked".to_string() } else { stored.join(", ") }
        ),
        "keep shipping the CRD".into(),
    )
}

/// The rules on the new CRD alone: exactly one storage version, and a conversion webhook when served versions
/// have different schemas.
pub fn alone(new: &Value) -> Vec<Change> {
    let crd = name(new);
    let mut out = Vec::new();
    let all = versions(new);
    let storage: Vec<&str> = all.iter().filter(|v| v["storage"] == Value::Bool(true)).map(|v| s(v, "/name")).collect();
    if storage.len() != 1 && !all.is_empty() {
        out.push(change(
            Rule::StorageVersions,
            crd,
            None,
            if storage.is_empty() {
                "no version is marked `storage: true`".into()
            } else {
                format!("{} versions are marked `storage: true` ({})", storage.len(), storage.join(", "))
            },
            "mark exactly one version as the storage version (`// +kubebuilder:storageversion` on its spec struct)"
                .into(),
        ));
    }
    let strategy = match s(new, "/spec/conversion/strategy") {
        "" => "None",
        other => other,
    };
    let served: Vec<&&Value> = all.iter().filter(|v| served(v)).collect();
    if strategy != "Webhook" && served.len() > 1 {
        let hub = served.iter().find(|v| v["storage"] == Value::Bool(true)).unwrap_or(&served[0]);
        for v in served.iter().filter(|v| s(v, "/name") != s(hub, "/name")) {
            let (Some(a), Some(b)) = (schema_of(new, hub), schema_of(new, v)) else {
                continue;
            };
            if let Some(at) = schema::first_difference(a, b, &mut Vec::new()) {
                let at = if at.is_empty() { "the schema root".to_string() } else { at };
                out.push(change(
                    Rule::ConversionNeeded,
                    crd,
                    Some(s(v, "/name")),
                    format!(
                        "served with a schema that differs from {}'s (first at {at}) while spec.conversion.strategy \
                         is {strategy}, so the API server hands objects of one version out as the other unchanged",
                        s(hub, "/name")
                    ),
                    "add a conversion webhook (`kubesmith create webhook --conversion`), or keep the served \
                     versions' schemas identical"
                        .into(),
                ));
            }
        }
    }
    out
}
