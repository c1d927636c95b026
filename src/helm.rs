//! Helm charts from `config/` (`kubesmith make helm`, `kubesmith helm lint`): `source` renders `config/default` with
//! kustomize as the plan leaves the project, `chart` turns each object into a template and gathers the values,
//! `holes` writes manifests with template text in them, `values` is the values tree (values.yaml and its schema),
//! `merge` keeps the user's values.yaml, `update` decides which chart files are written, kept or removed,
//! `gotmpl` checks Go template syntax and `lint` runs `helm lint`'s checks.
//!
//! `source` copies `config/` to a temporary folder with the planned contents when the plan touches it, so `make
//! manifests` builds the chart from the CRDs and roles it is about to write. The chart's labels are `config/`'s, so
//! an upgrade from `make deploy` keeps its selectors.
//!
//! **Invariant:** with default values and a release named after the project in `config/default`'s namespace, the
//! chart renders the objects kustomize renders, but the Namespace (`namespace.create`), the CRDs'
//! `helm.sh/resource-policy: keep` (`crds.keep`) and the image tag (`appVersion`) (`tests/it/helm.rs`, through
//! `tools/helm-render`); kubesmith never writes a chart file without its mark.

pub(crate) mod chart;
pub(crate) mod gotmpl;
pub(crate) mod holes;
pub(crate) mod lint;
pub(crate) mod merge;
pub(crate) mod source;
pub(crate) mod update;
pub(crate) mod values;

/// The PROJECT `plugins` key recording the chart (`{output: dist/chart}`); `make manifests` keeps a recorded
/// chart current.
pub const PLUGIN_KEY: &str = "helm.rust.kubesmith.io/v1alpha1";

/// Where `make helm` writes the chart unless told otherwise (kubebuilder's helm plugin uses the same folder).
pub const DEFAULT_DIR: &str = "dist/chart";
