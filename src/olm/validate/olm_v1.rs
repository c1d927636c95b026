//! `bundle validate --olm-v1`: what OLM v1 (operator-controller, a `ClusterExtension`) refuses or ignores in a
//! registry+v1 bundle that OLM v0 installs, each with the reason. Facts from operator-controller's documented
//! limitations and its registry+v1 renderer: the AllNamespaces install mode is required (Single/OwnNamespace only
//! behind the alpha `SingleOwnNamespaceInstallSupport` feature gate, through `watchNamespace`, one namespace);
//! dependencies (`olm.package.required`, `olm.gvk.required`, `olm.constraint`) are not resolved and such bundles
//! are refused; conversion webhooks need AllNamespaces as the only supported mode (older releases required it of
//! every webhook); owned APIService definitions are refused ("apiServiceDefintions are not supported").

use std::path::Path;

use serde_json::Value;

use super::{Finding, Level};
use crate::olm::bundle::BundleFiles;
use crate::olm::dependencies;
use crate::olm::install_modes::{self, Mode};

fn s<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

/// The bundle's CSV (the first in `manifests/`), if it has one that parses.
fn csv(b: &BundleFiles) -> Option<Value> {
    b.in_dir(Path::new("manifests"))
        .filter_map(|(_, bytes)| BundleFiles::documents(bytes).ok())
        .flatten()
        .find(|d| d["kind"] == "ClusterServiceVersion")
}

/// The OLM v1 findings of a bundle (none when it has no CSV: the ordinary validators report that).
pub fn check(b: &BundleFiles) -> Vec<Finding> {
    let Some(csv) = csv(b) else { return Vec::new() };
    let mut out = Vec::new();
    let name = s(&csv, "/metadata/name");
    let mut err = |m: String| out.push(Finding { level: Level::Error, message: format!("({name}) OLM v1: {m}") });
    let modes = install_modes::supported(&csv["spec"]["installModes"]);
    if !modes.contains(&Mode::AllNamespaces) {
        let shown = if modes.is_empty() { "none".to_string() } else { install_modes::list(&modes) };
        err(format!(
            "this bundle does not support the AllNamespaces install mode, which OLM v1 needs (the bundle supports: \
             {shown}): a ClusterExtension installs an \
             operator once for the whole cluster, since a CRD has one owner; OwnNamespace and SingleNamespace work \
             only behind operator-controller's alpha feature gate SingleOwnNamespaceInstallSupport (one namespace, \
             given as watchNamespace), MultiNamespace not at all. Support AllNamespaces (`make bundle \
             --install-modes ...,AllNamespaces`)"
        ));
    }
    let conversion: Vec<&str> = csv["spec"]["webhookdefinitions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|w| w["type"] == "ConversionWebhook")
        .map(|w| s(w, "/generateName"))
        .collect();
    let admission = csv["spec"]["webhookdefinitions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|w| w["type"] != "ConversionWebhook")
        .count();
    let only_all = modes == [Mode::AllNamespaces];
    if !conversion.is_empty() && !only_all {
        err(format!(
            "conversion webhook(s) {} with install modes {}: operator-controller refuses them (\"conversion webhooks \
             are only supported for bundles that only support AllNamespaces install mode\"), because a CRD's \
             conversion serves every namespace. Support AllNamespaces only",
            conversion.join(", "),
            install_modes::list(&modes)
        ));
    }
    let entries = dependencies::entries(b);
    for d in &entries {
        let t = s(d, "/type");
        let v = &d["value"];
        let (what, remove) = match t {
            "olm.package" => (
                format!("package {} '{}'", s(v, "/packageName"), s(v, "/version")),
                " (`make bundle --depends-on-package=none`)",
            ),
            "olm.gvk" => (
                format!("API {}/{} {}", s(v, "/group"), s(v, "/version"), s(v, "/kind")),
                " (`make bundle --depends-on-gvk=none`)",
            ),
            _ => (format!("an {t} dependency"), ""),
        };
        err(format!(
            "metadata/dependencies.yaml requires {what}: OLM v1 does not resolve dependencies and refuses bundles \
             that declare them (olm.package.required, olm.gvk.required, olm.constraint), so that nothing is \
             installed the cluster administrator did not ask for. Document the prerequisite for whoever installs \
             the operator and remove the dependency from the bundle{remove}"
        ));
    }
    for kind in ["customresourcedefinitions", "apiservicedefinitions"] {
        for r in csv["spec"][kind]["required"].as_array().into_iter().flatten() {
            let api = if kind == "apiservicedefinitions" {
                format!("{}/{} {}", s(r, "/group"), s(r, "/version"), s(r, "/kind"))
            } else {
                let group = s(r, "/name").split_once('.').map(|(_, g)| g).unwrap_or("");
                format!("{group}/{} {}", s(r, "/version"), s(r, "/kind"))
            };
            err(format!(
                "spec.{kind}.required lists {api}, which becomes an olm.gvk.required dependency: OLM v1 does not \
                 resolve dependencies and refuses bundles that declare them. Remove it from the base CSV and \
                 document the prerequisite"
            ));
        }
    }
    let apiservices: Vec<String> = csv["spec"]["apiservicedefinitions"]["owned"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| {
            let n = s(a, "/name");
            if n.is_empty() { format!("{}/{} {}", s(a, "/group"), s(a, "/version"), s(a, "/kind")) } else { n.into() }
        })
        .collect();
    if !apiservices.is_empty() {
        err(format!(
            "owned APIService definitions ({}): operator-controller refuses the bundle (\"unsupported bundle: \
             apiServiceDefintions are not supported\"); it installs no aggregated API servers. Serve the API as a \
             CRD instead",
            apiservices.join(", ")
        ));
    }
    if modes.contains(&Mode::MultiNamespace) && modes.contains(&Mode::AllNamespaces) {
        out.push(Finding {
            level: Level::Warning,
            message: format!(
                "({name}) OLM v1: MultiNamespace is ignored: a ClusterExtension watches all namespaces or (behind a \
                 feature gate) the one namespace given as watchNamespace, never a list"
            ),
        });
    }
    if admission > 0 && !only_all {
        out.push(Finding {
            level: Level::Warning,
            message: format!(
                "({name}) OLM v1: admission webhooks with install modes {}: earlier operator-controller releases \
                 refused every webhook unless AllNamespaces was the only supported mode (\"bundle contains webhook \
                 definitions but supported install modes beyond AllNamespaces\"); current ones refuse only conversion \
                 webhooks then. Webhooks also need cert-manager (or OpenShift's service CA) on the cluster",
                install_modes::list(&modes)
            ),
        });
    }
    out
}
