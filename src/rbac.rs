//! RBAC: the role from `+kubebuilder:rbac` markers ([`markers`]) and the role the code needs ([`infer`]).

pub mod bound;
pub mod check;
pub mod drift;
pub mod infer;
pub mod markers;
pub mod scope;

pub use markers::{MANAGER_ROLE, RBAC_API_VERSION, RBAC_MARKER, generate};
