//! Tests against a real Kubernetes API server (envtest): etcd and kube-apiserver from `KUBEBUILDER_ASSETS`,
//! started once for this test binary, with the CRDs of `config/crd/bases`, the manager's RBAC of `config/rbac`
//! and the webhooks of `config/webhook` installed (see `support`). Controllers run in-process as the manager's
//! ServiceAccount, so a rule missing from the manager's role fails the test that needs it.
//!
//! Without the binaries these tests skip, saying how to get them (`make test` provisions them with
//! `kubesmith envtest use`); `KUBESMITH_REQUIRE_CONTROL_PLANE=1` makes a missing control plane a failure.
//! Run them alone with `cargo test --test envtest`; each kind's tests are in the module named after its group
//! and kind, which `kubesmith create api` and `create webhook` add below.

mod leader_election;
mod support;

mod cache_cluster;
mod cache_match;
mod cache_memcached;
mod cache_v1alpha1_memcached_webhooks;
// +kubesmith:scaffold:envtest-modules
