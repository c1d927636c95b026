//! Webhooks of the `cache.example.com/v1alpha1` kinds, one module per kind.
pub mod memcached;
// +kubesmith:scaffold:webhook-kinds
