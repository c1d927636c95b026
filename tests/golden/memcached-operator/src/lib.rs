//! Library root of memcached-operator: API types and controllers (and the webhooks, once `kubesmith create webhook`
//! adds them). The manager that runs them is `kubesmith_runtime`'s.
pub mod api;
pub mod controller;
pub mod webhook;
// +kubesmith:scaffold:modules

use kubesmith_runtime::{Operator, operator};

/// This operator: its name (the field manager of its writes, the reporter of its events), version and the
/// default name of its leader election Lease (the FNV-32a hash of the project name, and the domain).
pub const OPERATOR: Operator = operator!("87a7d51f.example.com");
