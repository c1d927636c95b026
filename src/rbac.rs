//! RBAC: the role from `+kubebuilder:rbac` markers ([`markers`]) and the role the code needs ([`infer`]).
//!
//! [`check`] checks each marker's verbs (Kubernetes' set; HTTP's for URLs) and resources (k8s-openapi's table for
//! built-in groups, the project's kinds and their subresources for its own groups) before role.yaml is planned: a
//! typo is an error at its line with the closest name. [`markers`] turns markers into ClusterRole/Roles with
//! controller-gen's merge and sort rules (`cluster_role` renders any set of grants the same way). [`drift`] compares
//! markers with the inferred needs; [`bound`] reads the project's own roles in `config/rbac/` bound to the manager's
//! service account (leader election, metrics auth, the user's), which cover needs but are never reported unused;
//! [`scope`] adds or removes `namespace=<ns>` on every RBAC marker line (a namespace-scoped manager).
//!
//! **Invariant (least privilege):** scaffolded infrastructure code carries no RBAC markers: the Lease is granted by
//! the namespaced leader-election Role only, TokenReviews and SubjectAccessReviews by the metrics-auth role only, so
//! `manager-role` is what the controllers' markers ask for.

pub(crate) mod bound;
pub(crate) mod check;
pub(crate) mod drift;
pub mod infer;
pub(crate) mod markers;
pub(crate) mod scope;

pub use markers::{MANAGER_ROLE, RBAC_MARKER, generate};
