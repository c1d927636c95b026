//! The control plane of these tests (`kubesmith_runtime::envtest`): etcd and kube-apiserver from
//! `KUBEBUILDER_ASSETS`, started once, with this project's `config/` installed and its webhooks served.
pub use kubesmith_runtime::envtest::*;

/// The control plane, started on first use; `None` when there is none and the tests skip.
pub fn env() -> Option<&'static Env> {
    kubesmith_runtime::envtest::env(&Project {
        root: env!("CARGO_MANIFEST_DIR"),
        operator: memcached_operator::OPERATOR,
        webhooks: memcached_operator::webhook::registrations,
    })
}
