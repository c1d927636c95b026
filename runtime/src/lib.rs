//! kubesmith-runtime: what every operator kubesmith scaffolds runs on, as controller-runtime is for kubebuilder's.
//!
//! An operator's own crate holds its API types, its reconcilers, its webhook handlers and their tests; this crate
//! holds the rest, versioned with kubesmith, so a fix reaches every operator with one version bump:
//!
//! * [`manager`]: the command-line [`manager::Options`], logging, [`manager::Manager`] with its controller
//!   [`manager::Registration`]s, leader election on a Lease, health probes, the authenticated and authorized metrics
//!   server, the watched namespaces, and graceful shutdown;
//! * [`controller`]: the reconcile loop and its helpers: [`controller::Context`] (client, events, metrics,
//!   per-object backoff), the reconcile [`controller::Error`], status conditions and server-side applied status;
//! * [`webhook`] (feature `webhook`, on by default): admission (defaulting, validation) and CRD conversion webhooks
//!   served over HTTPS with certificate reload;
//! * [`testing`] and [`envtest`] (feature `testing`, for tests): a mocked API server for reconciler tests, an HTTPS
//!   client for webhook tests, and a real etcd + kube-apiserver with the project's `config/` installed, where
//!   controllers run as the manager's ServiceAccount.
//!
//! An operator names itself once, in its library root, and hands that [`Operator`] to the manager:
//!
//! ```
//! /// This operator: its name (field manager and event reporter), version and leader election Lease.
//! pub const OPERATOR: kubesmith_runtime::Operator = kubesmith_runtime::operator!("87a7d51f.example.com");
//!
//! assert_eq!(OPERATOR.leader_election_id, "87a7d51f.example.com");
//! ```
#![deny(missing_docs)]

pub mod controller;
#[cfg(feature = "testing")]
pub mod envtest;
pub mod manager;
#[cfg(feature = "testing")]
pub mod testing;
#[cfg(feature = "webhook")]
pub mod webhook;

/// Who an operator is: what the manager, its writes and its events are named after. Build it with [`operator!`],
/// which takes the name, version and description from the operator's own `Cargo.toml`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operator {
    /// The package's name: the field manager of server-side applies, the reporting controller of events, the
    /// command's name in `--help`.
    pub name: &'static str,
    /// The package's version (`--version`).
    pub version: &'static str,
    /// The package's description (`--help`).
    pub about: &'static str,
    /// The default name of the leader election Lease (`--leader-election-id`): kubesmith writes the FNV-32a hash
    /// of the project name and the project's domain, as kubebuilder does.
    pub leader_election_id: &'static str,
}

/// The [`Operator`] of the calling crate: its name, version and description from its `Cargo.toml`, and the given
/// default leader election Lease name.
///
/// ```
/// const OPERATOR: kubesmith_runtime::Operator = kubesmith_runtime::operator!("87a7d51f.example.com");
/// assert_eq!(OPERATOR.name, env!("CARGO_PKG_NAME"));
/// ```
#[macro_export]
macro_rules! operator {
    ($leader_election_id:expr $(,)?) => {
        $crate::Operator {
            name: env!("CARGO_PKG_NAME"),
            version: env!("CARGO_PKG_VERSION"),
            about: env!("CARGO_PKG_DESCRIPTION"),
            leader_election_id: $leader_election_id,
        }
    };
}
