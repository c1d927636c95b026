//! RBAC: the role from `+kubebuilder:rbac` markers ([`markers`]) and the role the code needs ([`infer`]).

pub(crate) mod bound;
pub(crate) mod check;
pub(crate) mod drift;
pub mod infer;
pub(crate) mod markers;
pub(crate) mod scope;

pub use markers::{MANAGER_ROLE, RBAC_API_VERSION, RBAC_MARKER, generate};
