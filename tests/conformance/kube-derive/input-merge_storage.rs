//! Multi-version kinds whose storage version the crate's own `merge_crds` call chooses (kubesmith issue 26): the
//! expected CRDs are what kube-core 5's `merge_crds` returns for the compiled kinds, so kubesmith must read the
//! storage argument and the list's order from the call below. `merge-ordered`: three versions listed out of
//! order, the storage version a `const`; `merge-kind-version`: the storage version given as a kind's version
//! (`Resource::version`), one version marked `storage = false` that the call makes the storage version anyway.
//! Output folder: first CLI argument (default `out`); writes `<sample>.json` (or `<sample>.PANIC.txt`).
#![allow(dead_code)]

use kube::core::crd::merge_crds;
use kube::{CustomResource, CustomResourceExt, Resource};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod ordered {
    pub mod v1 {
        use crate::*;

        /// A berth in the first API.
        #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
        #[kube(group = "merge.kube.rs", version = "v1", kind = "Berth", namespaced, shortname = "bt")]
        pub struct BerthSpec {
            pub length: u32,
        }
    }

    pub mod v2 {
        use crate::*;

        /// A berth with a draft limit.
        #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
        #[kube(group = "merge.kube.rs", version = "v2", kind = "Berth", namespaced, shortname = "bt")]
        pub struct BerthSpec {
            pub length: u32,
            pub max_draft: Option<f32>,
        }
    }

    pub mod v3 {
        use crate::*;

        /// A berth measured in centimetres.
        #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
        #[kube(group = "merge.kube.rs", version = "v3", kind = "Berth", namespaced, shortname = "bt")]
        #[serde(rename_all = "camelCase")]
        pub struct BerthSpec {
            pub length_cm: u64,
            pub max_draft_cm: Option<u64>,
        }
    }

    /// The version the API server stores.
    pub const STORAGE: &str = "v2";
}

pub mod by_version {
    pub mod v1beta1 {
        use crate::*;

        #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
        #[kube(group = "merge.kube.rs", version = "v1beta1", kind = "Lock")]
        pub struct LockSpec {
            pub gates: u8,
        }
    }

    pub mod v1 {
        use crate::*;

        /// `storage = false` here is what `Lock::crd()` says alone; `merge_crds` below stores this version anyway.
        #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
        #[kube(group = "merge.kube.rs", version = "v1", kind = "Lock", storage = false)]
        pub struct LockSpec {
            pub gates: u8,
            pub chambers: Vec<String>,
        }
    }
}

type Crd = k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

fn write(dir: &std::path::Path, name: &str, f: fn() -> Crd) {
    match std::panic::catch_unwind(f) {
        Ok(crd) => std::fs::write(dir.join(format!("{name}.json")), serde_json::to_string_pretty(&crd).unwrap()).unwrap(),
        Err(e) => {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            std::fs::write(dir.join(format!("{name}.PANIC.txt")), msg).unwrap();
        }
    }
}

fn berths() -> Crd {
    use ordered::{v1, v2, v3};
    merge_crds(vec![v3::Berth::crd(), v1::Berth::crd(), v2::Berth::crd()], ordered::STORAGE).unwrap()
}

fn locks() -> Crd {
    use by_version::{v1, v1beta1};
    let crds = vec![v1beta1::Lock::crd(), v1::Lock::crd()];
    merge_crds(crds, &v1::Lock::version(&())).unwrap()
}

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "out".into()));
    std::fs::create_dir_all(&dir).unwrap();
    std::panic::set_hook(Box::new(|_| {}));
    write(&dir, "merge-ordered", berths);
    write(&dir, "merge-kind-version", locks);
}
