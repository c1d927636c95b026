//! Kinds of the `cache.example.com/v1alpha1` API version.
mod memcached;
pub use memcached::*;
// +kubesmith:scaffold:api-kinds
