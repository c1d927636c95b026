//! The `good-practices` optional validator (operator-framework/api `internal/good_practices.go`).

use serde_json::Value;

use super::{Loaded, Out, s};
use crate::olm::bundle as olm_bundle;
use crate::olm::semver::Version;

pub(super) fn good_practices(l: &Loaded, csv: &Value, out: &mut Out) {
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
        .get(olm_bundle::CHANNELS)
        .map(|c| c.split(',').map(|c| c.trim().to_string()).filter(|c| !c.is_empty()).collect())
        .unwrap_or_default();
    if let Some(d) = l.annotations.get(olm_bundle::DEFAULT_CHANNEL)
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
