//! kubesmith's integration tests: most drive the real binary in a temporary folder; `crd_*` and
//! `conformance_live` call the CRD generator library; `cp_*` check what kubesmith writes against a real API server
//! (`control_plane`, when `KUBEBUILDER_ASSETS` has one).

mod adopt;
mod adopt_owners;
mod adopt_partial;
mod alpha;
mod bundle;
mod bundle_olm;
mod cli;
mod conformance_live;
mod conformance_suite;
mod control_plane;
mod conveniences;
mod cp_adopt;
mod cp_crds;
mod cp_helm;
mod cp_samples;
mod cp_scaffold;
mod crd_assoc_defaults;
mod crd_conformance;
mod crd_generate;
mod crd_markers;
mod crd_merge_storage;
mod crd_refusals;
mod create_api;
mod create_webhook;
mod deploy_image;
mod e2e;
mod edit_multigroup;
mod envtest;
mod first_hour;
mod foreign_types;
mod formatting;
mod fuzz_regressions;
mod golden;
mod guide;
mod helm;
mod init;
mod k8s_version;
mod least_privilege;
mod make_manifests_problems;
mod namespaced;
mod rbac_cache;
mod rbac_infer;
mod support;
mod upgrade;
