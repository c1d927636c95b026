//! What `create api`'s templates (and the deploy-image, adopt and `--from-crd` plans built on them) see of a kind.

use serde::Serialize;

/// Values the `api` templates see.
#[derive(Debug, Clone, Serialize)]
pub struct ApiContext {
    pub project_name: String,
    pub crate_name: String,
    pub domain: String,
    pub group: String,
    pub qualified_group: String,
    pub version: String,
    pub kind: String,
    /// `memcached`
    pub kind_lower: String,
    /// File stem of the kind's modules (`memcached`, `type`).
    pub kind_file: String,
    /// Name of the kind's controller in logs and metrics (`memcached`, or `cache-memcached` when multigroup).
    pub controller_name: String,
    pub plural: String,
    /// True when `plural` differs from kube-derive's rule, so `#[kube(plural)]` must say it.
    pub custom_plural: bool,
    /// Module ident of the kind (`memcached`, `r#type`).
    pub kind_module: String,
    /// Module path of the version's types from the crate root, e.g. `api::v1alpha1` or `api::cache::v1alpha1`.
    pub api_module_path: String,
    /// Module path of the kind's controller from the crate root, e.g. `controller::memcached`.
    pub controller_module_path: String,
    pub namespaced: bool,
    /// False when another version of the kind already is the storage version.
    pub storage: bool,
    /// Role names prefix: `memcached` (single group) or `cache-memcached` (multigroup).
    pub role_prefix: String,
    pub sample_name: String,
    /// The sample's file name in `config/samples` (`cache_v1alpha1_memcached.yaml`).
    pub sample_file: String,
    pub finalizer: String,
    pub field_manager: String,
    /// The project's manager is namespace-scoped (PROJECT `namespaced: true`): the kind's roles are Roles.
    pub manager_namespaced: bool,
    /// What the reconciler may rely on in the kind's types.
    #[serde(flatten)]
    pub shape: KindShape,
}

/// What the scaffolded reconciler and its tests may rely on in a kind's types.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct KindShape {
    /// The status is the scaffold's (`conditions: Vec<Condition>`, `observed_generation: Option<i64>`): the
    /// reconciler reports the `Available` condition. Types written from a CRD (`--from-crd`) have their own.
    pub status_conditions: bool,
    /// The kind has a status at all (`#[kube(status = ..)]`).
    pub has_status: bool,
    /// The spec implements `Default` (the reconciler's tests build objects with a default spec).
    pub spec_default: bool,
}

impl KindShape {
    /// The kinds `create api` scaffolds from its templates.
    pub const SCAFFOLD: KindShape = KindShape { status_conditions: true, has_status: true, spec_default: true };
}
