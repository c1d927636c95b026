//! Reading Rust without compiling it, shared by the CRD generator, RBAC inference and adoption: cargo workspaces
//! (members, lib and bin roots), fully parsed crates (modules from a root), and path resolution across crates.
//!
//! Module map: [`workspace`] (cargo layout: members, packages, targets), [`dependencies`] (the kube-dependent crates
//! a package calls through, where cargo keeps them, and `cargo metadata` when one is missing), [`module_files`] (the
//! one module loader both readers' trees are built by), [`modules`] (RBAC's crates, items built on first use), [`skeleton`] (a file's items without bodies, stored by the RBAC cache),
//! [`cache`] (kubesmith's cache folder under the target directory), [`resolve`] (what a path names), [`program`]
//! (crates naming each other), [`syntax`] (shared syntax helpers and the nesting limit checked before any syn
//! parse), `expand` (items macros kubesmith knows generate: `versioned` for stackable-versioned, `strum`), [`eval`]
//! (the one interpreter of constant code, over any reader answering [`eval::Code`]), [`constant`] (its one list of
//! value-preserving calls, and where a const's value is written).
//!
//! **Invariant:** nothing here imports from `crd/` or `rbac/`; they build on it. Every path either of them resolves
//! goes through [`resolve`] (the CRD generator's lazy index, a [`module_files::Store`] of its own built for
//! speed, is a [`resolve::Scopes`] too); a path the rules lead nowhere is external, never a guess by its last segment.

pub(crate) mod cache;
pub(crate) mod constant;
pub(crate) mod dependencies;
pub(crate) mod eval;
pub(crate) mod expand;
pub(crate) mod forget;
pub(crate) mod impls;
pub mod kube_attrs;
pub(crate) mod lex;
pub(crate) mod meta;
pub(crate) mod module_files;
pub(crate) mod modules;
pub(crate) mod program;
pub(crate) mod resolve;
pub(crate) mod reverse;
pub(crate) mod skeleton;
pub(crate) mod strum;
pub mod syntax;
pub(crate) mod versioned;
pub(crate) mod workspace;

pub(crate) use modules::{Crate, ItemKind, SourceError};
pub(crate) use program::{ItemKey, ModKey, Program, Res};
pub(crate) use workspace::{Package, Workspace};
