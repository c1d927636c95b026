//! The findings of a validation (a bundle's, a catalog's, an upgrade's) as the user reads them: printed as text with
//! hints, or as operator-sdk's JSON; each once; and the previous release `--previous` names.

use std::path::Path;

use anyhow::Result;
use serde_json::json;

use crate::olm::upgrade::Previous;
use crate::olm::validate::{Finding, Level};

/// Prints the findings; returns how many errors (and warnings, with `strict`) count as failures. In JSON, with
/// `levelled`, each message carries its level as operator-sdk's `json-alpha1` does (`Error: …`).
pub(crate) fn report(findings: &[Finding], json: bool, strict: bool, success: &str, levelled: bool) -> usize {
    let failing = findings.iter().filter(|f| f.level == Level::Error || strict).count();
    match json {
        true => {
            let outputs: Vec<_> = findings
                .iter()
                .map(|f| {
                    let message = if levelled { f.to_string() } else { f.message.clone() };
                    json!({"type": if f.level == Level::Error { "error" } else { "warning" }, "message": message})
                })
                .collect();
            let doc = json!({"passed": failing == 0, "outputs": outputs});
            println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        }
        false => {
            for f in findings {
                println!("{f}");
            }
            for hint in hints(findings) {
                println!("{hint}");
            }
            if failing == 0 {
                println!("{success}");
            }
        }
    }
    failing
}

/// Each finding once, in the order first found (operator-framework's validators repeat some).
pub(crate) fn unique(findings: Vec<Finding>) -> Vec<Finding> {
    let mut seen = std::collections::HashSet::new();
    findings.into_iter().filter(|f| seen.insert((f.level == Level::Error, f.message.clone()))).collect()
}

/// What to do about the findings whose words stay operator-framework's: the file to edit, or that there is
/// nothing to do.
fn hints(findings: &[Finding]) -> Vec<String> {
    // `(memcached-operator.v0.1.0) ...`: the package names the base CSV.
    let base = |m: &str| {
        let csv = m.strip_prefix("Value : (").or_else(|| m.strip_prefix("Value ")).unwrap_or(m);
        let package = csv.split(".v").next().unwrap_or_default().trim_start_matches('(');
        format!("config/manifests/bases/{package}.clusterserviceversion.yaml")
    };
    let mut out = Vec::new();
    let mut said = std::collections::HashSet::new();
    for f in findings {
        let m = f.message.as_str();
        let hint = if m.contains("csv.Spec.Icon") {
            format!("hint: give spec.icon a base64data and a mediatype (image/svg+xml, image/png, ..) in {}", base(m))
        } else if m.contains("csv.Spec.minKubeVersion is not informed") {
            format!(
                "hint: set spec.minKubeVersion in {} (make bundle sets it from PROJECT's k8sVersion when the base has \
                 none)",
                base(m)
            )
        } else if m.contains("deprecated and removed") && m.contains("for events:") && m.contains("Permissions") {
            "note: nothing to do about the events rule: RBAC rules name no API version, and the one kube's Recorder \
             uses (events.k8s.io/v1) is served; operator-framework's check cannot tell it from the removed v1beta1"
                .to_string()
        } else if m.contains("are not following the recommended naming convention") {
            "hint: OLM's recommended channels are candidate, fast and stable (`kubesmith make bundle --channels \
             stable --default-channel stable`); alpha, the scaffold's, is fine while the operator is young"
                .to_string()
        } else {
            continue;
        };
        if said.insert(hint.clone()) {
            out.push(hint);
        }
    }
    out
}

/// The release given with `--previous`, read relative to `cwd`.
pub(crate) fn previous(path: Option<&Path>, cwd: &Path) -> Result<Option<Previous>> {
    let Some(path) = path else {
        return Ok(None);
    };
    Ok(Some(Previous::load(&cwd.join(path), &path.display().to_string())?))
}
