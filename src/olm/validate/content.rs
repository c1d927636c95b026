//! Bundle content: operator-sdk's `ValidateBundleContent` (kinds a registry+v1 bundle may hold, object metadata).

use super::{Loaded, Out, group_of, gvk_text, s};
use crate::olm::csv::SUPPORTED_KINDS;

pub(super) fn content(l: &Loaded, out: &mut Out) {
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
