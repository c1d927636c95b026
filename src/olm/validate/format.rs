//! Bundle format: operator-registry's `ValidateBundleFormat` (folders, annotations, dependencies).

use std::collections::BTreeMap;
use std::path::Path;

use super::{Out, s};
use crate::olm::bundle::{self as olm_bundle, BundleFiles};

pub(super) fn format(b: &BundleFiles, out: &mut Out) -> BTreeMap<String, String> {
    if !b.has_dir(Path::new("manifests")) {
        out.err("Unable to locate manifests directory");
    }
    if !b.has_dir(Path::new("metadata")) {
        out.err("Unable to locate metadata directory");
        return BTreeMap::new();
    }
    let Some((_, ann)) = b.annotations() else {
        out.err("Could not find annotations file");
        return BTreeMap::new();
    };
    for key in
        [olm_bundle::MEDIATYPE, olm_bundle::MANIFESTS, olm_bundle::METADATA, olm_bundle::PACKAGE, olm_bundle::CHANNELS]
    {
        if !ann.contains_key(key) {
            out.err(format!("Missing annotation {key:?}"));
        }
    }
    let has_csv = b.files.iter().any(|(p, bytes)| {
        p.starts_with("manifests")
            && BundleFiles::documents(bytes).is_ok_and(|d| d.iter().any(|d| d["kind"] == "ClusterServiceVersion"))
    });
    let media = if has_csv { "registry+v1" } else { "plain" };
    if let Some(v) = ann.get(olm_bundle::MEDIATYPE)
        && v != media
    {
        out.err(format!("Expecting annotation {:?} to have value {media:?} instead of {v:?}", olm_bundle::MEDIATYPE));
    }
    if ann.get(olm_bundle::CHANNELS).is_some_and(|c| c.trim().is_empty()) {
        out.err(format!("Expecting annotation {:?} to have non-empty value", olm_bundle::CHANNELS));
    }
    if ann.get(olm_bundle::DEFAULT_CHANNEL).is_some_and(|c| c.trim().is_empty()) {
        out.err(format!("Expecting annotation {:?} to have non-empty value", olm_bundle::DEFAULT_CHANNEL));
    }
    if let Some(c) = ann.get(olm_bundle::CHANNELS)
        && c.split(',').any(|n| n.trim().is_empty())
        && !c.trim().is_empty()
    {
        out.err(format!("annotation {:?} has an empty channel name in {c:?}", olm_bundle::CHANNELS));
    }
    if let (Some(d), Some(c)) = (ann.get(olm_bundle::DEFAULT_CHANNEL), ann.get(olm_bundle::CHANNELS))
        && !d.trim().is_empty()
        && !c.split(',').any(|n| n.trim() == d)
    {
        out.err(format!("default channel {d:?} is not among the bundle's channels {c:?}"));
    }
    dependencies(b, out);
    ann
}

pub(super) fn dependencies(b: &BundleFiles, out: &mut Out) {
    for (_, bytes) in b.in_dir(Path::new("metadata")) {
        let Ok(v) = crate::yaml::from_str(&String::from_utf8_lossy(bytes)) else {
            continue;
        };
        let Some(deps) = v["dependencies"].as_array() else {
            continue;
        };
        for d in deps {
            let t = s(d, "/type");
            let val = &d["value"];
            match t {
                "olm.gvk" => {
                    if !val.is_object() {
                        out.err(format!("couldn't parse dependency of type {t}"));
                        continue;
                    }
                    for (f, m) in [
                        ("group", "API Group is empty"),
                        ("version", "API Version is empty"),
                        ("kind", "API Kind is empty"),
                    ] {
                        if s(val, &format!("/{f}")).is_empty() {
                            out.err(m);
                        }
                    }
                }
                "olm.package" => {
                    if !val.is_object() {
                        out.err(format!("couldn't parse dependency of type {t}"));
                        continue;
                    }
                    if s(val, "/packageName").is_empty() {
                        out.err("Package name is empty");
                    }
                    let version = s(val, "/version");
                    if version.is_empty() {
                        out.err("Package version is empty");
                    } else if crate::olm::semver::Range::parse(version).is_err() {
                        out.err(format!("Invalid semver format version: {version}"));
                    }
                }
                "olm.label" => {
                    if s(val, "/label").is_empty() {
                        out.err("Label information is missing");
                    }
                }
                "olm.constraint" => {
                    if val.get("cel").is_some() && s(val, "/cel/rule").is_empty() {
                        out.err("The CEL expression is missing");
                    }
                }
                _ => out.err(format!("unsupported dependency type {t}")),
            }
        }
    }
}
