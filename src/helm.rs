//! Helm charts from `config/` (`kubesmith make helm`, `kubesmith helm lint`): `source` renders `config/default` with
//! kustomize as the plan leaves the project, `chart` turns each object into a template and gathers the values,
//! `holes` writes manifests with template text in them, `values` is the values tree (values.yaml and its schema),
//! `merge` keeps the user's values.yaml, `update` decides which chart files are written, kept or removed,
//! `gotmpl` checks Go template syntax and `lint` runs `helm lint`'s checks.

pub mod chart;
pub mod gotmpl;
pub mod holes;
pub mod lint;
pub mod merge;
pub mod source;
pub mod update;
pub mod values;

/// The PROJECT `plugins` key recording the chart (`{output: dist/chart}`); `make manifests` keeps a recorded
/// chart current.
pub const PLUGIN_KEY: &str = "helm.rust.kubesmith.io/v1alpha1";

/// Where `make helm` writes the chart unless told otherwise (kubebuilder's helm plugin uses the same folder).
pub const DEFAULT_DIR: &str = "dist/chart";
