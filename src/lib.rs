//! kubesmith: scaffold, generate and package Kubernetes operators written in Rust with kube-rs.

/// Entry point used by the binary.
pub fn run_cli() -> std::process::ExitCode {
    std::process::ExitCode::SUCCESS
}

pub mod crd;
