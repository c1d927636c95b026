//! kubesmith's integration tests: each drives the real binary in a temporary folder.

mod bundle;
mod cli;
#[path = "../crd_conformance.rs"]
mod crd_conformance;
#[path = "../crd_generate.rs"]
mod crd_generate;
#[path = "../crd_markers.rs"]
mod crd_markers;
mod create_api;
mod create_webhook;
mod e2e;
mod golden;
mod init;
mod support;
