//! Reading Rust without compiling it, shared by the CRD generator, RBAC inference and adoption: cargo workspaces
//! (members, lib and bin roots), fully parsed crates (modules from a root), and path resolution across crates.
//!
//! **Invariant:** nothing here imports from `crd/` or `rbac/`; they build on it.

pub mod cache;
pub mod dependencies;
pub(crate) mod expand;
pub mod forget;
pub mod kube_attrs;
pub(crate) mod lex;
pub(crate) mod meta;
pub mod modules;
pub mod program;
pub mod resolve;
pub mod skeleton;
pub(crate) mod strum;
pub mod syntax;
pub(crate) mod versioned;
pub mod workspace;

pub use modules::{Crate, ItemKind, SourceError};
pub use program::{ItemKey, ModKey, Program, Res};
pub use workspace::{Package, Target, Workspace};
