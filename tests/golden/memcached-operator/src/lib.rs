//! Library root of memcached-operator: API types, controllers and the manager that runs them (and the webhooks,
//! once `kubesmith create webhook` adds them).
pub mod api;
pub mod controller;
pub mod manager;
pub mod webhook;
// +kubesmith:scaffold:modules
