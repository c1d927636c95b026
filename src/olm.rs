//! OLM packaging: bundles (`make bundle`, `bundle validate`) and file-based catalogs (`make catalog`,
//! `catalog validate`).
//!
//! `csv` builds the ClusterServiceVersion from the rendered manifests and the user's base CSV; `descriptors` reads
//! the `+operator-sdk:csv:customresourcedefinitions` markers and doc comments of the API types (through the CRD
//! generator's source index) for its owned-CRD descriptors; `bundle` lays out
//! a bundle (file names, `annotations.yaml`, `bundle.Dockerfile`) and loads one from disk; `validate` holds the
//! operator-framework/api validators; `schema` checks an object against a structural schema (OLM's CSV CRD is
//! embedded from `data/olm/`); `catalog` renders and validates file-based catalogs; `semver` parses versions and
//! ranges; `dependencies` holds a bundle's OLM dependencies (`metadata/dependencies.yaml`, their catalog properties,
//! `catalog validate --resolve`); `install_modes` the CSV's install modes (the project's defaults, precedence, RBAC
//! warnings); `settings` what `make bundle` records in PROJECT; `upgrade` compares a release's CRDs with the previous release's (safe CRD
//! upgrades).
//!
//! **Invariant:** `make bundle` refuses (writing nothing) a CSV that OLM's schema rejects and examples their CRD
//! would refuse ([`examples`]); `make catalog` refuses a catalog `opm validate` would reject; dependencies and install
//! modes given once survive every later `make bundle` until changed.

pub mod bundle;
pub mod catalog;
pub(crate) mod csv;
pub(crate) mod dependencies;
pub(crate) mod descriptors;
pub(crate) mod examples;
pub(crate) mod finding;
pub(crate) mod install_modes;
pub mod schema;
pub(crate) mod semver;
pub(crate) mod settings;
pub mod upgrade;
pub mod validate;
