//! Defaults that name associated items (kubesmith issue 15): `default = "Type::f"` for inherent and trait impl
//! fns, of the spec and of other types (struct and enum), `Self::f`, `Self::CONST` and `Self { .. }` inside impl
//! blocks, associated and free consts, an immutable static, `u16::MAX`, a constructor that spreads
//! `..Self::default()`, a container default from an associated fn and an `impl Default` that calls one.
//! Output folder: first CLI argument (default `out`); writes `<sample>.json` (or `<sample>.PANIC.txt`).
#![allow(dead_code)]

use kube::{CustomResource, CustomResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod tuned {
    use super::*;

    static IMAGE: &str = "registry.example.com/tuned:1.2";
    const BASE_PORT: u16 = 8000;

    /// Every default names something associated.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "defaults.kube.rs", version = "v1", kind = "Tuned", namespaced)]
    #[serde(rename_all = "camelCase")]
    pub struct TunedSpec {
        #[serde(default = "TunedSpec::default_replicas")]
        pub replicas: i32,
        #[serde(default = "TunedSpec::default_image")]
        pub image: String,
        #[serde(default = "TunedSpec::default_port")]
        pub port: u16,
        #[serde(default = "TunedSpec::max_port")]
        pub max_port: u16,
        #[serde(default = "TunedSpec::name")]
        pub name: String,
        #[serde(default = "Limits::standard")]
        pub limits: Limits,
        #[serde(default = "crate::tuned::Tier::default_tier")]
        pub tier: Tier,
        #[serde(default = "Window::new")]
        pub window: Window,
        #[serde(default)]
        pub labels: Labels,
        pub settings: Settings,
    }

    impl TunedSpec {
        const REPLICAS: i32 = 3;

        fn default_replicas() -> i32 {
            Self::REPLICAS
        }

        fn default_image() -> String {
            IMAGE.to_string()
        }

        fn default_port() -> u16 {
            BASE_PORT
        }

        fn max_port() -> u16 {
            u16::MAX
        }
    }

    pub trait Named {
        fn name() -> String;
    }

    impl Named for TunedSpec {
        fn name() -> String {
            "tuned".into()
        }
    }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct Limits {
        pub cpu_millis: u32,
        pub memory_mib: u32,
    }

    impl Limits {
        const CPU: u32 = 500;

        fn standard() -> Self {
            Self { cpu_millis: Self::CPU, memory_mib: Self::memory() }
        }

        fn memory() -> u32 {
            256
        }
    }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub enum Tier {
        Bronze,
        Gold,
    }

    impl Tier {
        fn default_tier() -> Self {
            Self::Gold
        }
    }

    #[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
    pub struct Window {
        pub start: String,
        pub hours: u8,
    }

    impl Window {
        fn new() -> Self {
            Self { hours: 4, ..Self::default() }
        }
    }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct Labels {
        pub team: String,
    }

    impl Default for Labels {
        fn default() -> Self {
            Self::platform()
        }
    }

    impl Labels {
        fn platform() -> Self {
            Labels { team: "platform".into() }
        }
    }

    /// Every field defaults from `Settings::recommended()`.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(default = "Settings::recommended", rename_all = "camelCase")]
    pub struct Settings {
        pub verbose: bool,
        pub retries: u8,
    }

    impl Settings {
        fn recommended() -> Self {
            Self { verbose: false, retries: Self::RETRIES }
        }

        const RETRIES: u8 = 5;
    }
}

type CrdFn = fn() -> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

fn write(dir: &std::path::Path, name: &str, f: CrdFn) {
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

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "out".into()));
    std::fs::create_dir_all(&dir).unwrap();
    std::panic::set_hook(Box::new(|_| {}));
    write(&dir, "assoc-defaults", tuned::Tuned::crd);
}
