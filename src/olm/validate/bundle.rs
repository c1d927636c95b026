//! The bundle validator (operator-framework/api `internal/bundle.go`): CRDs against the CSV, service accounts,
//! size, release name, related images.

use std::collections::BTreeSet;

use serde_json::Value;

use super::go_fmt::quote;
use super::{Level, Loaded, Out, gvk_text, s};
use crate::olm::bundle as olm_bundle;

/// `getBundleCRDKeys`: a v1 CRD's `versions`; a v1beta1 CRD's `versions`, or its `version` when it has none.
pub(super) fn crd_keys(crd: &Value) -> Vec<(String, String, String)> {
    let group = s(crd, "/spec/group").to_string();
    let kind = s(crd, "/spec/names/kind").to_string();
    let versions: Vec<&str> = crd["spec"]["versions"].as_array().into_iter().flatten().map(|v| s(v, "/name")).collect();
    let versions = if versions.is_empty() && s(crd, "/apiVersion") == "apiextensions.k8s.io/v1beta1" {
        vec![s(crd, "/spec/version")]
    } else {
        versions
    };
    versions.into_iter().map(|v| (group.clone(), v.to_string(), kind.clone())).collect()
}

/// `formatBytesInUnit`.
pub(super) fn size_text(n: usize) -> String {
    match n {
        0..1_000 => format!("{n} B"),
        1_000..1_000_000 => format!("{:.1} kB", n as f64 / 1e3),
        _ => format!("{:.1} MB", n as f64 / 1e6),
    }
}

pub(super) const MAX_COMPRESSED: usize = 1_048_576;

pub(super) fn bundle_rules(l: &Loaded, csv: &Value, out: &mut Out) {
    let bundle = s(csv, "/metadata/name");
    let gvk = |k: &(String, String, String)| gvk_text(&k.0, &k.1, &k.2);
    // `validateOwnedCRDs`.
    let mut keys = BTreeSet::new();
    for crd in &l.crds {
        for k in crd_keys(crd) {
            if keys.contains(&k) {
                out.value(
                    Level::Error,
                    &gvk(&k),
                    format!("duplicate CRD {} in bundle {}", quote(&gvk(&k)), quote(bundle)),
                );
            }
            keys.insert(k);
        }
    }
    let owned =
        csv.pointer("/spec/customresourcedefinitions/owned").and_then(Value::as_array).into_iter().flatten().map(|o| {
            let name = s(o, "/name");
            let group = name.split_once('.').map(|(_, g)| g).unwrap_or(name).to_string();
            (group, s(o, "/version").to_string(), s(o, "/kind").to_string())
        });
    let mut owned_kinds = BTreeSet::new();
    for k in owned {
        if keys.remove(&k) {
            owned_kinds.insert((k.0.clone(), k.2.clone()));
        } else {
            out.value(
                Level::Error,
                &gvk(&k),
                format!("owned CRD {} not found in bundle {}", quote(&gvk(&k)), quote(bundle)),
            );
        }
    }
    for k in keys.iter().filter(|k| !owned_kinds.contains(&(k.0.clone(), k.2.clone()))) {
        out.value(
            Level::Error,
            &gvk(k),
            format!("CRD {} is present in bundle {} but not defined in CSV", quote(&gvk(k)), quote(bundle)),
        );
    }
    let csv_sas: BTreeSet<&str> = csv["spec"]["install"]["spec"]["deployments"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d.pointer("/spec/template/spec/serviceAccountName").and_then(Value::as_str))
        .collect();
    for o in l.others.iter().filter(|o| o["kind"] == "ServiceAccount" && o["apiVersion"] == "v1") {
        let sa = s(o, "/metadata/name");
        if csv_sas.contains(sa) {
            out.value(Level::Error, sa, format!(
                "invalid service account found in bundle. This service account {sa} in your bundle is not valid, because \
                 a service account with the same name was already specified in your CSV. If this was unintentional, \
                 please remove the service account manifest from your bundle. If it was intentional to specify a \
                 separate service account, please rename the SA in either the bundle manifest or the CSV."
            ));
        }
    }
    if l.compressed > MAX_COMPRESSED {
        out.value(Level::Error, bundle, format!(
            "maximum bundle compressed size with gzip size exceeded: size=~{} , max={}. Bundle uncompressed size is {}",
            size_text(l.compressed),
            size_text(MAX_COMPRESSED),
            size_text(l.size)
        ));
    } else if l.compressed * 100 > MAX_COMPRESSED * 85 {
        out.value(
            Level::Warning,
            bundle,
            format!(
                "nearing maximum bundle compressed size with gzip: size=~{} , max={}. Bundle uncompressed size is {}",
                size_text(l.compressed),
                size_text(MAX_COMPRESSED),
                size_text(l.size)
            ),
        );
    }
    let release = s(csv, "/spec/release");
    if !release.is_empty() {
        let pkg = l.annotations.get(olm_bundle::PACKAGE).cloned().unwrap_or_default();
        let expected = format!("{pkg}-v{}-{release}", s(csv, "/spec/version"));
        if bundle != expected {
            out.err(format!(
                "bundle name with release versioning {bundle:?} does not match expected name {expected:?}"
            ));
        }
    }
    for (i, r) in csv["spec"]["relatedImages"].as_array().into_iter().flatten().enumerate() {
        let image = s(r, "/image");
        if image.is_empty() {
            out.err(format!("relatedImages[{i}] has an empty image field"));
        } else if let Err(e) = check_image(image) {
            out.err(format!("relatedImages[{i}] has an invalid image pullspec {image:?}: {e}"));
        }
    }
}

/// A docker reference check (`distribution/reference.ParseNormalizedNamed`, simplified).
pub fn check_image(image: &str) -> Result<(), String> {
    let re = regex::Regex::new(
        r"^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$",
    )
    .map_err(|e| e.to_string())?;
    if re.is_match(image) { Ok(()) } else { Err("invalid reference format".into()) }
}
