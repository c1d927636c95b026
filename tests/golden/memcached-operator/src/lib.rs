//! Library root of memcached-operator: API types, controllers, webhooks and the manager that runs them.
pub mod api;
pub mod controller;
pub mod manager;
pub mod webhook;
