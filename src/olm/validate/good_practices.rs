//! The `good-practices` optional validator (operator-framework/api `internal/good_practices.go`).

use std::collections::BTreeSet;

use serde_json::Value;

use super::go_fmt::{quote, quote_list_ascii};
use super::{Level, Loaded, Out, s};
use crate::olm::bundle as olm_bundle;
use crate::olm::semver::Version;

pub(super) fn good_practices(l: &Loaded, csv: &Value, out: &mut Out) {
    let name = s(csv, "/metadata/name");
    let mut warns = Vec::new();
    // `validateResourceRequests`: no deployment list at all is an error; a container without `requests` warns.
    let deployments = &csv["spec"]["install"]["spec"]["deployments"];
    if deployments.is_null() {
        out.value(Level::Error, name, "unable to find a deployment to install in the CSV");
    }
    for d in deployments.as_array().into_iter().flatten() {
        for c in d.pointer("/spec/template/spec/containers").and_then(Value::as_array).into_iter().flatten() {
            if c["resources"]["requests"].is_null() {
                warns.push(format!(
                    "unable to find the resource requests for the container: ({}). It is recommended to ensure the \
                     resource request for CPU and Memory. Be aware that for some clusters configurations it is \
                     required to specify requests or limits for those values. Otherwise, the system or quota may \
                     reject Pod creation. More info: https://master.sdk.operatorframework.io/docs/best-practices/managing-resources/",
                    s(c, "/name")
                ));
            }
        }
    }
    // `validateCrdDescriptions`.
    for kind in ["owned", "required"] {
        for o in csv["spec"]["customresourcedefinitions"][kind].as_array().into_iter().flatten() {
            if s(o, "/description").is_empty() {
                warns.push(format!("{kind} CRD {} has an empty description", quote(s(o, "/name"))));
            }
        }
    }
    // `validateHubChannels`: the bundle's channels and default channel, trimmed, each once.
    let mut channels: BTreeSet<String> = l
        .annotations
        .get(olm_bundle::CHANNELS)
        .map(|c| c.split(',').map(|c| c.trim().to_string()).collect())
        .unwrap_or_default();
    if let Some(d) = l.annotations.get(olm_bundle::DEFAULT_CHANNEL) {
        channels.insert(d.trim().to_string());
    }
    let bad: Vec<&String> = channels
        .iter()
        .filter(|c| !c.is_empty() && !["candidate", "stable", "fast"].iter().any(|p| c.starts_with(p)))
        .collect();
    if !bad.is_empty() {
        warns.push(format!(
            "channel(s) {} are not following the recommended naming convention: \
             https://olm.operatorframework.io/docs/best-practices/channel-naming",
            quote_list_ascii(&bad)
        ));
    }
    // `validateRBACForCRDsWith`.
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
        warns.push(
            "CSV contains permissions to create CRD. An Operator shouldn't deploy or manage other operators (such \
             patterns are known as meta or super operators or include CRDs in its Operands). It's the Operator \
             Lifecycle Manager's job to manage the deployment and lifecycle of operators.  Please, review the design \
             of your solution and if you should not be using Dependency Resolution from OLM instead. More info: \
             https://sdk.operatorframework.io/docs/best-practices/common-recommendation/"
                .to_string(),
        );
    }
    // `checkBundleName`: the name must end in a semver and have exactly one `.v`.
    let semver_tail = regex::Regex::new(
        r"([0-9]+)\.([0-9]+)\.([0-9]+)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+)?$",
    )
    .expect("valid regex");
    if semver_tail.find(name).is_none_or(|m| Version::parse(m.as_str()).is_err()) {
        warns.push(format!(
            "csv.metadata.Name {name} is not following the versioning convention (MAJOR.MINOR.PATCH e.g 0.0.1): \
             https://semver.org/"
        ));
    }
    if name.split(".v").count() != 2 {
        warns.push(format!(
            "csv.metadata.Name {name} is not following the recommended naming convention: \
             <operator-name>.v<semver> e.g. memcached-operator.v0.0.1"
        ));
    }
    for w in warns {
        out.value(Level::Warning, name, w);
    }
}
