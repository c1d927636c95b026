//! The operator's webhooks: admission (defaulting, validation) and CRD conversion, served over HTTPS by the
//! manager (`kubesmith_runtime::webhook` serves them, reloads the certificate and stops gracefully).
//!
//! Each kind with webhooks has a module `webhook::<version>::<kind>` exposing `registration()`, with one
//! submodule per part (`defaulting`, `validation`, `conversion`); [`registrations`] lists them, one per line
//! (`kubesmith create webhook` adds the modules and lines before the scaffold markers).
pub mod v1alpha1;
// +kubesmith:scaffold:webhook-modules

use kubesmith_runtime::{manager::Server, webhook::WebhookRegistration};

/// The webhooks of every kind, one registration per kind; the manager serves them when there is at least one.
pub fn registrations() -> Vec<WebhookRegistration> {
    vec![
        v1alpha1::memcached::registration(),
        // +kubesmith:scaffold:webhooks
    ]
}

/// The webhook server as the manager runs it (`Manager::with_server` in `main.rs`): the webhooks of
/// [`registrations`] on `--webhook-port`, with the certificate of `--webhook-cert-path`.
pub fn server() -> Server {
    kubesmith_runtime::webhook::server(registrations)
}
