//! Loading a bundle's manifests the way operator-framework/api's `manifests.GetBundleFromDir` does.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::{Loaded, Out, s};
use crate::olm::bundle::{self as olm_bundle, BundleFiles};

pub(super) fn gzip_b64_len(bytes: &[u8]) -> usize {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let n = enc.write_all(bytes).and_then(|_| enc.finish()).map(|v| v.len()).unwrap_or(bytes.len());
    n.div_ceil(3) * 4
}

pub(super) fn load(b: &BundleFiles, annotations: BTreeMap<String, String>, out: &mut Out) -> Option<Loaded> {
    let dir = annotations.get(olm_bundle::MANIFESTS).map(|m| m.trim_end_matches('/')).unwrap_or("manifests");
    let dir = PathBuf::from(if dir.is_empty() { "manifests" } else { dir });
    if !b.has_dir(&dir) {
        return None;
    }
    let shown = Path::new(&b.root).join(&dir);
    for d in b.dirs.iter().filter(|d| d.parent() == Some(dir.as_path())) {
        out.err(format!("bundle manifests dir contains directory: {}", Path::new(&b.root).join(d).display()));
    }
    let mut l = Loaded {
        csv: None,
        crds: Vec::new(),
        others: Vec::new(),
        objects: Vec::new(),
        annotations,
        size: 0,
        compressed: 0,
    };
    let mut any = false;
    for (p, bytes) in b.in_dir(&dir) {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if name.starts_with('.') {
            out.err(format!("bundle manifests dir has hidden file: {}", Path::new(&b.root).join(p).display()));
            continue;
        }
        any = true;
        l.size += bytes.len();
        l.compressed += gzip_b64_len(bytes);
        let docs = match BundleFiles::documents(bytes) {
            Ok(d) => d,
            Err(e) => {
                out.err(format!("unable to decode object: {e} ({})", p.display()));
                continue;
            }
        };
        for d in docs {
            if !d.is_object() || s(&d, "/kind").is_empty() {
                out.err(format!("unable to decode object: Object 'Kind' is missing in {}", p.display()));
                continue;
            }
            l.objects.push(d.clone());
            match s(&d, "/kind") {
                "ClusterServiceVersion" => {
                    if l.csv.is_some() {
                        out.err("invalid bundle: contains multiple CSVs");
                    } else {
                        l.csv = Some((p.clone(), super::csv::typed(&d)));
                    }
                }
                "CustomResourceDefinition" => {
                    let api = s(&d, "/apiVersion");
                    if api != "apiextensions.k8s.io/v1" && api != "apiextensions.k8s.io/v1beta1" {
                        out.err(format!("unsupported CRD version {api} for {}", s(&d, "/metadata/name")));
                    } else {
                        l.crds.push(d);
                    }
                }
                _ => l.others.push(d),
            }
        }
    }
    if !any {
        out.err(format!("The directory {} contains no yaml files", shown.display()));
        return None;
    }
    if l.csv.is_none() {
        out.err(format!("unable to find a csv in bundle directory {}", shown.display()));
    }
    Some(l)
}
