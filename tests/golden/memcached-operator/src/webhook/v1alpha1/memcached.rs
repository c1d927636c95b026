//! Webhooks of `Memcached` (cache.example.com/v1alpha1), one submodule per part: `defaulting` (edit `default`),
//! `validation` (edit the `validate_*` functions) and `conversion` (this version is the hub; each spoke's `From`
//! impls live in `src/api/<spoke>/memcached_conversion.rs`). The `+kubebuilder:webhook` markers in the parts
//! become the webhook configurations in `config/webhook/manifests.yaml` (`make manifests`).
use kubesmith_runtime::webhook::WebhookRegistration;

mod conversion;
mod defaulting;
mod validation;
// +kubesmith:scaffold:webhook-parts

/// Registers this kind's webhooks with the manager (listed in `crate::webhook::registrations`).
pub fn registration() -> WebhookRegistration {
    WebhookRegistration::new(
        "memcached-v1alpha1",
        vec![
            defaulting::webhook(),
            validation::webhook(),
            conversion::webhook(),
            // +kubesmith:scaffold:webhook-list
        ],
    )
}
