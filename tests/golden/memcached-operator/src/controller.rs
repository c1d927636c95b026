//! The operator's controllers, one module per kind (`kubesmith create api` adds them). The reconcile loop and its
//! helpers (context, errors, backoff, conditions, status) are `kubesmith_runtime::controller`'s.
pub mod cluster;
pub mod r#match;
pub mod memcached;
// +kubesmith:scaffold:controller-modules

/// The field manager of the operator's server-side applies, and the `app.kubernetes.io/managed-by` label of
/// what it makes: the operator's name.
pub const FIELD_MANAGER: &str = crate::OPERATOR.name;
