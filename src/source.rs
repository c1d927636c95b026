//! Reading Rust without compiling it, shared by the CRD generator, RBAC inference and adoption: cargo workspaces
//! (members, lib and bin roots), fully parsed crates (modules from a root), and path resolution across crates.
//!
//! **Invariant:** nothing here imports from `crd/` or `rbac/`; they build on it.

pub(crate) mod cache;
pub(crate) mod constant;
pub(crate) mod dependencies;
pub(crate) mod expand;
pub(crate) mod forget;
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
