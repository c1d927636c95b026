//! Kinds of the `cache.example.com/v1beta1` API version.
mod memcached;
pub use memcached::*;
mod memcached_conversion;
// +kubesmith:scaffold:api-kinds
