//! The APIs (custom resource types) served by this operator, one module per version.
pub mod v1;
pub mod v1alpha1;
pub mod v1beta1;
// +kubesmith:scaffold:api-modules
