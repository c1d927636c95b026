//! envtest binaries (etcd, kube-apiserver, kubectl) for tests against a real API server, as setup-envtest
//! provides them: version selectors, platforms, controller-tools' release index, downloads, the store shared with
//! setup-envtest and folders holding binaries. `commands::envtest` drives it.

pub mod archive;
pub mod fetch;
pub mod folder;
pub mod index;
pub mod installed;
pub mod platform;
pub mod store;
pub mod version;

/// The binaries an envtest folder must hold (kubectl is optional).
pub const REQUIRED: [&str; 2] = ["kube-apiserver", "etcd"];

/// Environment variable naming the index instead of controller-tools' (`--index` wins).
pub const INDEX_ENV: &str = "KUBESMITH_ENVTEST_INDEX";
