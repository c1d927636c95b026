//! Unit tests of RBAC inference, one per resolution pattern, on in-memory crates.
