//! A CSV's `alm-examples` against the bundle's CRDs: each example must be an object the API server would create
//! ([`crate::crd::instance`]), since OperatorHub and the console offer it as the starting point.

use std::path::Path;

use serde_json::Value;

use crate::olm::bundle::BundleFiles;
use crate::olm::finding::{Finding, Level};

/// The findings of a bundle's `alm-examples` against the CRDs in its `manifests/`: one error per problem.
pub fn check(bundle: &BundleFiles) -> Vec<Finding> {
    let docs: Vec<Value> = bundle
        .in_dir(Path::new("manifests"))
        .filter_map(|(_, bytes)| BundleFiles::documents(bytes).ok())
        .flatten()
        .collect();
    let crds: Vec<Value> = docs.iter().filter(|d| d["kind"] == "CustomResourceDefinition").cloned().collect();
    let Some(csv) = docs.iter().find(|d| d["kind"] == "ClusterServiceVersion") else { return Vec::new() };
    let name = csv["metadata"]["name"].as_str().unwrap_or_default();
    problems(csv, &crds)
        .into_iter()
        .map(|p| Finding { level: Level::Error, message: format!("({name}) {p}; fix the sample in config/samples/") })
        .collect()
}

/// One line per problem of the examples in `csv`'s `alm-examples` (`alm-examples: Memcached memcached-sample:
/// spec.size: "3" is not of type "integer"`); examples of kinds no CRD of `crds` serves are left to OLM's own
/// checks. Unparsable `alm-examples` is a problem too.
pub fn problems(csv: &Value, crds: &[Value]) -> Vec<String> {
    let Some(text) = csv["metadata"]["annotations"]["alm-examples"].as_str() else { return Vec::new() };
    let examples: Vec<Value> = match serde_json::from_str(text) {
        Ok(Value::Array(list)) => list,
        Ok(_) => return vec!["alm-examples: not a JSON list of objects".into()],
        Err(e) => return vec![format!("alm-examples: not valid JSON: {e}")],
    };
    let mut out = Vec::new();
    for example in &examples {
        let kind = example["kind"].as_str().unwrap_or("?");
        let name = example["metadata"]["name"].as_str().unwrap_or("?");
        for p in crate::crd::instance::problems(crds, example).unwrap_or_default() {
            out.push(format!("alm-examples: {kind} {name}: {p}"));
        }
    }
    out
}
