//! Generic types in CRDs (`gen-*`), in the shapes real operators use them (stackable-operator's `Role<Config>`,
//! `ClusterRef<K>`), written afresh: type parameters bound through nested generic instances, a flattened generic
//! struct, a parameter with a default type (`RoleConfig = GenericRoleConfig`), parameters bound to `Option`s (not
//! required), a parameter only in a skipped `PhantomData` field, a generic enum, `#[serde(default)]` fields typed
//! with a parameter, a generic `impl JsonSchema` whose own parameter has another name, and lifetime parameters.
//! Output folder: first CLI argument (default `out`); writes `<sample>.json` (or `<sample>.PANIC.txt`).
#![allow(dead_code)]

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::marker::PhantomData;

use kube::{CustomResource, CustomResourceExt};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

pub mod roles {
    use super::*;

    /// Settings every role group of a product shares.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema, Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct CommonConfiguration<Config, Overrides>
    where
        Config: Default + JsonSchema + Serialize,
        Overrides: Default + JsonSchema + Serialize,
    {
        /// The product's own configuration.
        #[serde(default)]
        pub config: Config,
        /// Overrides of generated configuration files.
        #[serde(default)]
        pub config_overrides: HashMap<String, Overrides>,
        /// Environment variables.
        #[serde(default)]
        pub env_overrides: BTreeMap<String, String>,
    }

    /// Role-level settings most products use.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema, Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct GenericRoleConfig {
        /// Whether a disruption budget is written.
        #[serde(default)]
        pub pod_disruption_budget: bool,
    }

    /// A role: configuration shared by its groups, and the groups.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema, Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Role<Config, Overrides, RoleConfig = GenericRoleConfig>
    where
        Config: Default + JsonSchema + Serialize,
        RoleConfig: Default + JsonSchema + Serialize,
        Overrides: Default + JsonSchema + Serialize,
    {
        #[serde(
            flatten,
            bound(deserialize = "Config: Default + Deserialize<'de>, Overrides: Default + Deserialize<'de>")
        )]
        pub config: CommonConfiguration<Config, Overrides>,
        #[serde(default)]
        pub role_config: RoleConfig,
        /// The groups of this role, by name.
        pub role_groups: HashMap<String, RoleGroup<Config, Overrides>>,
    }

    /// A group of replicas sharing one configuration.
    #[derive(Clone, Debug, Deserialize, JsonSchema, Serialize)]
    #[serde(
        rename_all = "camelCase",
        bound(deserialize = "Config: Default + Deserialize<'de>, Overrides: Default + Deserialize<'de>")
    )]
    #[schemars(bound = "Config: Default + JsonSchema + Serialize, Overrides: Default + JsonSchema + Serialize")]
    pub struct RoleGroup<Config, Overrides>
    where
        Config: Default + JsonSchema + Serialize,
        Overrides: Default + JsonSchema + Serialize,
    {
        #[serde(flatten)]
        pub config: CommonConfiguration<Config, Overrides>,
        pub replicas: Option<u16>,
    }

    /// A reference to another cluster of kind `K`.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema, Serialize)]
    pub struct ClusterRef<K> {
        /// The cluster's name.
        pub name: Option<String>,
        /// Its namespace; the referring object's when unset.
        #[serde(default)]
        pub namespace: Option<String>,
        #[serde(skip)]
        _kind: PhantomData<K>,
    }

    /// The broker's settings.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema, Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct BrokerConfig {
        /// Log retention in hours.
        pub retention_hours: Option<u32>,
        #[serde(default = "default_threads")]
        pub threads: u16,
    }

    fn default_threads() -> u16 {
        8
    }

    /// Settings only the controller role has.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema, Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct ControllerRoleConfig {
        #[serde(default)]
        pub quorum: u8,
        pub listener_class: Option<String>,
    }

    /// An override file's entries.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema, Serialize)]
    pub struct FileOverrides(pub BTreeMap<String, String>);

    /// What this stands for does not matter: only its name is in a skipped field.
    #[derive(Clone, Debug, Default)]
    pub struct Zone;

    /// A product cluster with two roles.
    #[derive(CustomResource, Clone, Debug, Deserialize, JsonSchema, Serialize)]
    #[kube(group = "generics.kube.rs", version = "v1", kind = "Broker", namespaced)]
    #[serde(rename_all = "camelCase")]
    pub struct BrokerSpec {
        pub brokers: Option<Role<BrokerConfig, FileOverrides>>,
        pub controllers: Role<BrokerConfig, FileOverrides, ControllerRoleConfig>,
        pub zone: ClusterRef<Zone>,
    }
}

pub mod shapes {
    use super::*;

    /// A value kept with the time it was set.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema, Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Stamped<T: Serialize> {
        pub value: T,
        pub set_at: Option<String>,
        /// Earlier values.
        #[serde(default)]
        pub history: Vec<T>,
    }

    /// One thing or the other.
    #[derive(Clone, Debug, Deserialize, JsonSchema, Serialize)]
    #[serde(rename_all = "camelCase")]
    pub enum Either<L, R> {
        /// The left one.
        Left(L),
        Right { value: R, weight: Option<u8> },
    }

    /// A list written by a hand-written generic impl.
    #[derive(Clone, Debug, Deserialize, Serialize)]
    pub struct Listed<T>(pub Vec<T>);

    impl<Item: JsonSchema> JsonSchema for Listed<Item> {
        fn schema_name() -> Cow<'static, str> {
            "Listed".into()
        }

        fn json_schema(generator: &mut SchemaGenerator) -> Schema {
            json_schema!({
                "type": "array",
                "items": generator.subschema_for::<Item>(),
                "x-kubernetes-list-type": "atomic"
            })
        }
    }

    /// Limits with their own defaults.
    #[derive(Clone, Debug, Deserialize, JsonSchema, Serialize)]
    pub struct Limits {
        pub cpu: String,
        pub pods: u32,
    }

    impl Default for Limits {
        fn default() -> Self {
            Limits { cpu: "500m".into(), pods: 10 }
        }
    }

    /// Something with defaults of its parameter's type.
    #[derive(Clone, Debug, Default, Deserialize, JsonSchema, Serialize)]
    pub struct WithDefaults<L: Default + Serialize> {
        #[serde(default)]
        pub limits: L,
        #[serde(default)]
        pub extra: Option<L>,
    }

    /// Borrowed text, owned when deserialized.
    #[derive(Clone, Debug, Deserialize, JsonSchema, Serialize)]
    pub struct Note<'a> {
        pub text: Cow<'a, str>,
    }

    /// Generic shapes beside each other.
    #[derive(CustomResource, Clone, Debug, Deserialize, JsonSchema, Serialize)]
    #[kube(group = "generics.kube.rs", version = "v1", kind = "Shaped", namespaced)]
    #[serde(rename_all = "camelCase")]
    pub struct ShapedSpec {
        pub replicas: Stamped<u32>,
        /// A parameter bound to an `Option`: the field is not required.
        pub owner: Stamped<Option<String>>,
        pub nested: Stamped<Stamped<bool>>,
        pub choice: Either<String, Vec<u16>>,
        pub tags: Listed<String>,
        pub limits: WithDefaults<Limits>,
        pub note: Note<'static>,
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
    write(&dir, "gen-roles", roles::Broker::crd);
    write(&dir, "gen-shapes", shapes::Shaped::crd);
}
