//! Custom schemas kubesmith evaluates without compiling (kubesmith issue 8): `schema_with` fns made of
//! `json_schema!`/`json!` literals, `serde_json::from_value`/`from_str`, `Schema::try_from`, consts and statics,
//! literals edited by simple statements, `subschema_for::<T>()` / `T::json_schema(g)` of crate and k8s-openapi
//! types, hand-written `impl JsonSchema`, `#[kube(schema = "manual")]`, `with`/`schema_with` on fields,
//! variants and containers, `#[serde(with)]` paired with `#[schemars(with/schema_with)]`; and kinds whose schema
//! code only compiling can run (`cs-compiled`; `cs-private`, in a module private below the crate root).
//! Output folder: first CLI argument (default `out`); writes `<sample>.json` (or `<sample>.PANIC.txt`).
#![allow(dead_code)]

use std::borrow::Cow;
use std::collections::BTreeMap;

use kube::{CustomResource, CustomResourceExt};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_json::json;

pub mod literals {
    use super::*;

    /// What the cache layer may hold.
    const CACHE_DESCRIPTION: &str = "Opaque cache settings, passed through unchanged.";
    const MAP_TYPE: &str = "x-kubernetes-map-type";
    const SHARD_SCHEMA: &str = r#"{
        "type": "object",
        "properties": { "count": { "type": "integer", "minimum": 1 }, "key": { "type": "string" } },
        "required": ["count"]
    }"#;
    static TAGS_SCHEMA: std::sync::LazyLock<serde_json::Value> = std::sync::LazyLock::new(|| {
        json!({ "type": "array", "items": { "type": "string", "maxLength": 32 }, "x-kubernetes-list-type": "set" })
    });

    /// Schema functions whose bodies are literals.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "custom.kubesmith.dev", version = "v1", kind = "LiteralSchemas", namespaced)]
    #[serde(rename_all = "camelCase")]
    pub struct LiteralSchemasSpec {
        /// Anything the plugin understands.
        #[schemars(schema_with = "open_object")]
        pub plugin_config: serde_json::Value,
        #[schemars(schema_with = "atomic_labels")]
        pub labels: BTreeMap<String, String>,
        /// Ports, each listed once.
        #[serde(default)]
        #[schemars(schema_with = "port_set")]
        pub ports: Vec<u16>,
        /// An Option with a custom schema is neither nullable nor optional to schemars.
        #[schemars(schema_with = "plain_string")]
        pub nickname: Option<String>,
        /// With a default it is optional.
        #[serde(default)]
        #[schemars(schema_with = "plain_string")]
        pub alias: Option<String>,
        #[schemars(schema_with = "shard_from_text")]
        pub shard: serde_json::Value,
        #[serde(default)]
        #[schemars(schema_with = "shared_tags")]
        pub tags: Vec<String>,
        /// Validation attributes still apply on top of the custom schema.
        #[schemars(schema_with = "plain_integer", range(min = 1, max = 9))]
        pub replicas: i32,
        #[schemars(schema_with = "cache_schema")]
        pub cache: Option<serde_json::Value>,
    }

    fn open_object(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "object", "x-kubernetes-preserve-unknown-fields": true })
    }

    fn atomic_labels(_: &mut SchemaGenerator) -> Schema {
        Schema::try_from(json!({
            "type": "object",
            "additionalProperties": { "type": "string" },
            MAP_TYPE: "atomic",
        }))
        .unwrap()
    }

    fn port_set(_: &mut SchemaGenerator) -> Schema {
        serde_json::from_value(serde_json::json!({
            "type": "array",
            "items": { "type": "integer", "minimum": 1, "maximum": 65535 },
            "x-kubernetes-list-type": "set",
            "x-not-a-kubernetes-key": "dropped"
        }))
        .expect("a valid schema")
    }

    fn plain_string(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "minLength": 1 })
    }

    fn plain_integer(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "integer", "format": "int32" })
    }

    fn shard_from_text(_: &mut SchemaGenerator) -> Schema {
        serde_json::from_str(SHARD_SCHEMA).unwrap()
    }

    fn shared_tags(_: &mut SchemaGenerator) -> Schema {
        Schema::try_from(TAGS_SCHEMA.clone()).expect("an object")
    }

    fn cache_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": CACHE_DESCRIPTION,
            "type": "object",
            "nullable": true,
            "x-kubernetes-preserve-unknown-fields": true
        })
    }
}

pub mod statements {
    use super::*;

    /// Literals edited by simple statements.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "custom.kubesmith.dev", version = "v1", kind = "EditedSchemas", namespaced)]
    #[serde(rename_all = "camelCase")]
    pub struct EditedSchemasSpec {
        #[schemars(schema_with = "inserted")]
        pub mode: String,
        #[schemars(schema_with = "ensured")]
        pub extra: serde_json::Value,
        #[schemars(schema_with = "indexed")]
        pub port: serde_json::Value,
        #[schemars(schema_with = "extended")]
        pub limits: BTreeMap<String, String>,
        #[schemars(schema_with = "if_object")]
        pub window: Window,
        #[schemars(schema_with = "entries")]
        pub selector: serde_json::Value,
    }

    /// A time window.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct Window {
        /// Start, as HH:MM.
        pub start: String,
        pub minutes: u32,
    }

    fn inserted(_: &mut SchemaGenerator) -> Schema {
        let mut schema = json_schema!({ "type": "string", "nullable": true });
        schema.insert("enum".to_owned(), json!(["fast", "safe"]));
        schema.insert("description".into(), "How changes roll out.".into());
        schema.remove("nullable");
        schema
    }

    fn ensured(_: &mut SchemaGenerator) -> Schema {
        let mut schema = json_schema!(true);
        schema.ensure_object().insert("type".into(), "object".into());
        let obj = schema.ensure_object();
        obj.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
        schema
    }

    fn indexed(_: &mut SchemaGenerator) -> Schema {
        let mut value = json!({ "anyOf": [{ "type": "integer" }, { "type": "string" }] });
        value["x-kubernetes-int-or-string"] = true.into();
        value["description"] = json!("A port number or name.");
        Schema::try_from(value).unwrap()
    }

    fn extended(_: &mut SchemaGenerator) -> Schema {
        let mut map = serde_json::Map::new();
        map.insert("type".into(), "object".into());
        map.extend(json!({ "additionalProperties": { "type": "string" } }).as_object().cloned().unwrap());
        map.extend([("maxProperties".to_string(), json!(8)), ("minProperties".to_string(), json!(1))]);
        Schema::from(map)
    }

    fn if_object(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = generator.subschema_for::<Window>();
        if let Some(obj) = schema.as_object_mut() {
            obj.insert("x-kubernetes-map-type".into(), "atomic".into());
            obj.remove("description");
        }
        schema
    }

    fn entries(_: &mut SchemaGenerator) -> Schema {
        let mut value = json!({ "type": "object", "required": [] });
        let props = value.as_object_mut().unwrap().entry("properties").or_insert(json!({}));
        props["app"] = json!({ "type": "string" });
        value["required"].as_array_mut().unwrap().push("app".into());
        Schema::try_from(value).unwrap()
    }
}

pub mod subschemas {
    use super::*;
    use k8s_openapi::api::core::v1::{EnvVar, PodTemplateSpec, Toleration};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

    /// Schema functions built around the schemas of other types.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "custom.kubesmith.dev", version = "v1", kind = "NestedSchemas", namespaced)]
    #[serde(rename_all = "camelCase")]
    pub struct NestedSchemasSpec {
        /// Environment of the main container, merged by name.
        #[schemars(default, schema_with = "env_list")]
        pub env: Option<Vec<EnvVar>>,
        /// Pod settings layered over the generated pod.
        #[serde(default)]
        #[schemars(schema_with = "open_object")]
        pub pod_overrides: Option<PodTemplateSpec>,
        #[schemars(schema_with = "described_selector")]
        pub selector: LabelSelector,
        #[schemars(schema_with = "atomic_endpoint")]
        pub primary: Endpoint,
        #[schemars(schema_with = "endpoint_group")]
        pub group: serde_json::Value,
        #[schemars(schema_with = "tolerations_list")]
        pub tolerations: Vec<Toleration>,
    }

    /// Where a backend listens.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct Endpoint {
        /// Host name or address.
        pub host: String,
        pub port: Option<u16>,
    }

    fn env_list(g: &mut SchemaGenerator) -> Schema {
        let item = g.subschema_for::<EnvVar>();
        json_schema!({
            "type": "array",
            "items": item,
            "nullable": true,
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name"]
        })
    }

    fn open_object(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "object", "x-kubernetes-preserve-unknown-fields": true })
    }

    fn described_selector(g: &mut SchemaGenerator) -> Schema {
        let mut schema = LabelSelector::json_schema(g);
        schema.insert("description".into(), "Pods the rule applies to.".into());
        schema
    }

    fn atomic_endpoint(g: &mut SchemaGenerator) -> Schema {
        let mut schema = <Endpoint as JsonSchema>::json_schema(g);
        schema.insert("x-kubernetes-map-type".into(), "atomic".into());
        schema
    }

    fn endpoint_group(g: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "properties": {
                "leader": g.subschema_for::<Endpoint>(),
                "standby": g.subschema_for::<Option<Endpoint>>(),
                "followers": { "type": "array", "items": g.subschema_for::<Endpoint>() },
                "weights": g.subschema_for::<BTreeMap<String, u8>>()
            },
            "required": ["leader"]
        })
    }

    fn tolerations_list(g: &mut SchemaGenerator) -> Schema {
        let mut schema = g.subschema_for::<Vec<Toleration>>();
        schema.insert("x-kubernetes-list-type".into(), "atomic".into());
        schema
    }
}

pub mod impls {
    use super::*;

    /// A Go-style duration (`1m30s`), kept as text.
    #[derive(Serialize, Deserialize, Clone, Debug)]
    #[serde(transparent)]
    pub struct GoDuration(String);

    impl JsonSchema for GoDuration {
        fn schema_name() -> Cow<'static, str> {
            "GoDuration".into()
        }

        fn inline_schema() -> bool {
            true
        }

        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            json_schema!({ "type": "string", "pattern": "^([0-9]+(\\.[0-9]+)?(ns|us|ms|s|m|h))+$" })
        }
    }

    /// A port given by number or by name.
    #[derive(Serialize, Deserialize, Clone, Debug)]
    #[serde(untagged)]
    pub enum PortRef {
        Number(u16),
        Name(String),
    }

    impl JsonSchema for PortRef {
        fn schema_name() -> Cow<'static, str> {
            Cow::Borrowed("PortRef")
        }

        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            let mut schema = json_schema!({ "anyOf": [{ "type": "integer" }, { "type": "string" }] });
            schema.insert("x-kubernetes-int-or-string".into(), true.into());
            schema
        }
    }

    /// Retry settings.
    #[derive(Serialize, Deserialize, Clone, Debug)]
    pub struct Retry {
        pub attempts: u32,
        pub backoff: GoDuration,
    }

    impl JsonSchema for Retry {
        fn schema_name() -> Cow<'static, str> {
            "Retry".into()
        }

        fn json_schema(g: &mut SchemaGenerator) -> Schema {
            let backoff = g.subschema_for::<GoDuration>();
            json_schema!({
                "type": "object",
                "description": "How failed calls are tried again.",
                "properties": { "attempts": { "type": "integer", "minimum": 0 }, "backoff": backoff },
                "required": ["attempts", "backoff"]
            })
        }
    }

    /// Hand-written `impl JsonSchema` blocks used as field types.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "custom.kubesmith.dev", version = "v1", kind = "HandWritten", namespaced)]
    #[serde(rename_all = "camelCase")]
    pub struct HandWrittenSpec {
        /// How long a request may take.
        pub timeout: GoDuration,
        pub idle_timeout: Option<GoDuration>,
        pub steps: Vec<GoDuration>,
        pub port: PortRef,
        pub admin_port: Option<PortRef>,
        pub retry: Option<Retry>,
        pub named_ports: BTreeMap<String, PortRef>,
    }
}

pub mod manual {
    use super::*;

    /// A root schema written by hand around the derived spec and status schemas.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(
        group = "custom.kubesmith.dev",
        version = "v1",
        kind = "ManualRoot",
        namespaced,
        schema = "manual",
        status = "ManualRootStatus",
        shortname = "mr"
    )]
    #[serde(rename_all = "camelCase")]
    pub struct ManualRootSpec {
        /// Image to run.
        pub image: String,
        pub replicas: Option<i32>,
    }

    /// What the operator saw last.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct ManualRootStatus {
        pub ready_replicas: i32,
    }

    impl JsonSchema for ManualRoot {
        fn schema_name() -> Cow<'static, str> {
            "ManualRoot".into()
        }

        fn json_schema(generator: &mut SchemaGenerator) -> Schema {
            let spec = generator.subschema_for::<ManualRootSpec>();
            let status = generator.subschema_for::<Option<ManualRootStatus>>();
            json_schema!({
                "type": "object",
                "description": "A workload whose name must be a DNS label.",
                "properties": {
                    "metadata": {
                        "type": "object",
                        "properties": {
                            "name": { "type": "string", "maxLength": 63, "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" }
                        }
                    },
                    "spec": spec,
                    "status": status
                },
                "required": ["metadata", "spec"]
            })
        }
    }

    /// A root schema that is one literal, title included.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
    #[kube(group = "custom.kubesmith.dev", version = "v1", kind = "LiteralRoot", schema = "manual")]
    pub struct LiteralRootSpec {
        pub size: u32,
    }

    impl JsonSchema for LiteralRoot {
        fn schema_name() -> Cow<'static, str> {
            "LiteralRoot".into()
        }

        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            json_schema!({
                "title": "Sized",
                "type": "object",
                "properties": {
                    "spec": {
                        "type": "object",
                        "properties": { "size": { "type": "integer", "format": "uint32", "minimum": 0 } },
                        "required": ["size"]
                    }
                },
                "required": ["spec"]
            })
        }
    }
}

pub mod with {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

    /// Serializes a duration as whole seconds with an `s` suffix.
    pub mod seconds_text {
        use serde::{Deserialize, Deserializer, Serializer};

        pub fn serialize<S: Serializer>(d: &std::time::Duration, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(&format!("{}s", d.as_secs()))
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<std::time::Duration, D::Error> {
            let text = String::deserialize(d)?;
            let secs = text.trim_end_matches('s').parse().map_err(serde::de::Error::custom)?;
            Ok(std::time::Duration::from_secs(secs))
        }
    }

    /// Serializes a byte count as a Kubernetes quantity (`512Mi`).
    pub mod quantity_text {
        use serde::{Deserialize, Deserializer, Serializer};

        pub fn serialize<S: Serializer>(bytes: &u64, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(&format!("{}Mi", bytes / (1024 * 1024)))
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
            let text = String::deserialize(d)?;
            let mib: u64 = text.trim_end_matches("Mi").parse().map_err(serde::de::Error::custom)?;
            Ok(mib * 1024 * 1024)
        }
    }

    fn quantity_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [{ "type": "integer" }, { "type": "string" }],
            "x-kubernetes-int-or-string": true
        })
    }

    /// Free-form settings described by a fn on the type itself.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[schemars(schema_with = "Settings::schema")]
    pub struct Settings(BTreeMap<String, serde_json::Value>);

    impl Settings {
        fn schema(_: &mut SchemaGenerator) -> Schema {
            json_schema!({ "type": "object", "x-kubernetes-preserve-unknown-fields": true })
        }
    }

    /// A name read from a plain string.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(from = "String")]
    pub struct Handle {
        pub value: String,
    }

    impl From<String> for Handle {
        fn from(value: String) -> Self {
            Self { value }
        }
    }

    /// A backend address.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct Backend {
        pub url: String,
    }

    /// `with`, `schema_with` and serde's `with`, on fields and containers.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "custom.kubesmith.dev", version = "v1", kind = "WithAttrs", namespaced)]
    #[serde(rename_all = "camelCase")]
    pub struct WithAttrsSpec {
        /// How often to check, like `30s`.
        #[serde(with = "seconds_text")]
        #[schemars(with = "String")]
        pub interval: std::time::Duration,
        /// Memory to reserve.
        #[serde(with = "quantity_text")]
        #[schemars(schema_with = "quantity_schema")]
        pub memory: u64,
        #[schemars(with = "Backend")]
        pub backend: serde_json::Value,
        #[schemars(with = "Option<u8>")]
        pub priority: String,
        #[schemars(with = "LabelSelector")]
        pub selector: serde_json::Value,
        pub settings: Settings,
        /// The owner's handle.
        pub owner: Handle,
    }
}

pub mod variants {
    use super::*;

    fn opaque(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "object", "x-kubernetes-preserve-unknown-fields": true })
    }

    fn bucket_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "properties": { "bucket": { "type": "string" }, "prefix": { "type": "string" } },
            "required": ["bucket"]
        })
    }

    /// Where data comes from.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub enum Source {
        /// A git repository.
        Git { url: String, revision: Option<String> },
        /// Whatever the plugin reads.
        #[schemars(schema_with = "opaque")]
        Plugin(serde_json::Value),
        #[schemars(with = "String")]
        Inline(Vec<u8>),
    }

    /// A destination, told apart by its fields.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(untagged)]
    pub enum Sink {
        Http { endpoint: String },
        #[schemars(schema_with = "bucket_schema")]
        Bucket(serde_json::Value),
    }

    /// `with` and `schema_with` on enum variants.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "custom.kubesmith.dev", version = "v1", kind = "VariantSchemas", namespaced)]
    pub struct VariantSchemasSpec {
        pub source: Source,
        pub sink: Sink,
    }
}

pub mod compiled {
    use super::*;
    use k8s_openapi::api::core::v1::Affinity;

    fn strip_descriptions(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(o) => {
                o.remove("description");
                for (_, child) in o.iter_mut() {
                    strip_descriptions(child);
                }
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip_descriptions),
            _ => {}
        }
    }

    fn terse_affinity(g: &mut SchemaGenerator) -> Schema {
        let mut value = Affinity::json_schema(g).to_value();
        strip_descriptions(&mut value);
        Schema::try_from(value).unwrap()
    }

    fn levels(_: &mut SchemaGenerator) -> Schema {
        let mut names = Vec::new();
        for level in 1..=3 {
            names.push(json!(format!("level-{level}")));
        }
        json_schema!({ "type": "string", "enum": names })
    }

    fn versioned(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "description": format!("Written by {}.", env!("CARGO_PKG_NAME")) })
    }

    /// A step of the pipeline.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub enum Step {
        Run { command: String },
        #[schemars(schema_with = "versioned")]
        Note(String),
    }

    /// Schema code only compiling can run: kubesmith leaves this kind to the compiled fallback.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "custom.kubesmith.dev", version = "v1", kind = "NeedsBuild", namespaced)]
    #[serde(rename_all = "camelCase")]
    pub struct NeedsBuildSpec {
        pub name: String,
        #[schemars(schema_with = "terse_affinity")]
        pub affinity: Option<Affinity>,
        #[schemars(schema_with = "levels")]
        pub level: String,
        pub steps: Vec<Step>,
    }
}

/// A kind the crate root cannot name: `inner` is private to `hidden`, and only `hidden::crd` reaches it. Its schema
/// needs compiling, so kubesmith's compiled fallback re-exports it through its copy of `hidden`.
mod hidden {
    pub(crate) fn crd() -> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition {
        use kube::CustomResourceExt;
        inner::Hidden::crd()
    }

    mod inner {
        use kube::CustomResource;
        use schemars::{JsonSchema, Schema, SchemaGenerator};
        use serde::{Deserialize, Serialize};

        fn shade(generator: &mut SchemaGenerator) -> Schema {
            let mut schema = generator.subschema_for::<String>();
            let names: Vec<String> = ["light", "dark"].iter().map(|s| s.to_string()).collect();
            schema.insert("enum".into(), names.into());
            schema
        }

        #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
        #[kube(group = "custom.kubesmith.dev", version = "v1", kind = "Hidden", namespaced)]
        pub struct HiddenSpec {
            #[schemars(schema_with = "shade")]
            pub shade: String,
            pub replicas: i32,
        }
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
    write(&dir, "cs-literals", literals::LiteralSchemas::crd);
    write(&dir, "cs-statements", statements::EditedSchemas::crd);
    write(&dir, "cs-subschemas", subschemas::NestedSchemas::crd);
    write(&dir, "cs-impls", impls::HandWritten::crd);
    write(&dir, "cs-manual", manual::ManualRoot::crd);
    write(&dir, "cs-manual-literal", manual::LiteralRoot::crd);
    write(&dir, "cs-with", with::WithAttrs::crd);
    write(&dir, "cs-variants", variants::VariantSchemas::crd);
    write(&dir, "cs-compiled", compiled::NeedsBuild::crd);
    write(&dir, "cs-private", hidden::crd);
}
