//! Fuzz target: the bundle loader and `bundle validate` (`olm::validate::validate`, every optional validator) on arbitrary
//! text as the bundle's CSV, next to a fixed `metadata/annotations.yaml` and CRD.
#![no_main]

use std::path::PathBuf;

use kubesmith::olm::bundle::BundleFiles;
use kubesmith::olm::validate::{IndexFile, Suites, validate};
use libfuzzer_sys::fuzz_target;

const ANNOTATIONS: &str = include_str!("../support/annotations.yaml");
const CRD: &str = include_str!("../support/crd.yaml");

fuzz_target!(|data: &[u8]| {
    let mut b = BundleFiles { root: "bundle".into(), ..Default::default() };
    b.dirs = vec![PathBuf::from("manifests"), PathBuf::from("metadata")];
    b.files.insert(PathBuf::from("metadata/annotations.yaml"), ANNOTATIONS.as_bytes().to_vec());
    b.files.insert(PathBuf::from("manifests/cache.example.com_memcacheds.yaml"), CRD.as_bytes().to_vec());
    b.files.insert(PathBuf::from("manifests/fuzz.clusterserviceversion.yaml"), data.to_vec());
    let suites = Suites {
        operatorhub: true,
        operatorhubv2: true,
        capabilities: true,
        categories: true,
        community: true,
        good_practices: true,
        deprecated_apis: true,
        k8s_version: Some("1.33".into()),
        index_path: Some(IndexFile::Content { text: "LABEL com.redhat.openshift.versions=\"v4.6-v4.8\"\n".into() }),
        custom_categories: Some(Ok(vec!["Database".into()])),
    };
    let _ = validate(&b, &suites);
});
