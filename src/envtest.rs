//! envtest binaries (etcd, kube-apiserver, kubectl) for tests against a real API server, as setup-envtest
//! provides them: version selectors, platforms, controller-tools' release index, downloads, the store shared with
//! setup-envtest and folders holding binaries. `commands::envtest` drives it.
//!
//! An installed match needs no network (`latest` is the newest installed); otherwise, or with a trailing `!` when the
//! index has a newer match, the newest matching release is downloaded into `--bin-dir`'s `k8s/` or the store.
//! `cleanup` with no selector removes every version of the platform, as setup-envtest's does.
//!
//! **Invariant:** an archive is unpacked only after its SHA-512 equals the index's, into a temporary sibling renamed
//! into place, so a failed install leaves no version folder (nor a `k8s/` it made); only the store's version folders
//! are ever removed, never a folder holding binaries itself; the only binary run is `kube-apiserver --version` of
//! such a folder. These downloads are the only network access kubesmith makes itself (the cargo it runs may
//! download crates: `source::dependencies::fetch`, the compiled fallback).

pub(crate) mod archive;
pub(crate) mod fetch;
pub(crate) mod folder;
pub(crate) mod index;
pub(crate) mod installed;
pub(crate) mod platform;
pub(crate) mod store;
pub(crate) mod version;

/// The binaries an envtest folder must hold (kubectl is optional).
pub const REQUIRED: [&str; 2] = ["kube-apiserver", "etcd"];

/// Environment variable naming the index instead of controller-tools' (`--index` wins).
pub const INDEX_ENV: &str = "KUBESMITH_ENVTEST_INDEX";
