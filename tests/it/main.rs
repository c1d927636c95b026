//! kubesmith's integration tests: each drives the real binary in a temporary folder.

mod cli;
mod create_api;
mod create_webhook;
mod e2e;
mod golden;
mod init;
mod support;
