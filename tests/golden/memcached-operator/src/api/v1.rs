//! Kinds of the `cache.example.com/v1` API version.
mod cluster;
pub use cluster::*;
mod r#match;
pub use r#match::*;
// +kubesmith:scaffold:api-kinds
