//! CRD types shaped like those of public Rust operators that use custom schemas (kubesmith issue 8), written
//! afresh with their own names and docs: a hand-written root schema around derived spec and status schemas with
//! list-map and atomic `schema_with` fns over k8s-openapi types (a workflow engine operator), shared
//! "raw object" schema helpers made of `serde_json::from_value(json!(..)).expect(..)` for pod overrides and
//! extra volumes (a data platform operator), a duration type with a hand-written `impl JsonSchema` used in
//! optional route timeouts (a service mesh policy controller), and defaulting rules next to a `set` list schema
//! (kube-rs' schema example).
//! Output folder: first CLI argument (default `out`); writes `<sample>.json` (or `<sample>.PANIC.txt`).
#![allow(dead_code)]

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use kube::{CustomResource, CustomResourceExt};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

pub mod workflow {
    use super::*;
    use k8s_openapi::api::core::v1::{
        Affinity, EnvVar, LocalObjectReference, PodDNSConfig, ResourceRequirements, Toleration,
        TopologySpreadConstraint,
    };
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector};

    /// Desired state of a workflow engine deployment.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(
        group = "workflows.kubesmith.dev",
        version = "v1",
        kind = "WorkflowEngine",
        schema = "manual",
        status = "WorkflowEngineStatus",
        shortname = "wfe",
        printcolumn = r#"{"name":"Ready", "type":"string", "jsonPath":".status.conditions[?(@.type==\"Ready\")].status"}"#
    )]
    #[serde(rename_all = "camelCase")]
    pub struct WorkflowEngineSpec {
        /// Name the engine's nodes report; defaults to the object's name.
        pub engine_name: Option<String>,
        pub storage: EngineStorage,
        pub compute: EngineCompute,
        pub security: Option<EngineSecurity>,
        /// Engine configuration file, as TOML.
        pub config: Option<String>,
    }

    /// Where the engine keeps its journal.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct EngineStorage {
        /// Storage class of the journal volumes.
        pub storage_class_name: Option<String>,
        /// Size of each journal volume, in bytes; it may grow but not shrink.
        #[schemars(range(min = 1))]
        pub request_bytes: i64,
    }

    /// How the engine's pods run.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct EngineCompute {
        /// How many engine nodes; one when unset.
        pub replicas: Option<i32>,
        /// Container image.
        pub image: String,
        pub image_pull_secrets: Option<Vec<LocalObjectReference>>,
        /// Extra environment of the engine container, merged by name.
        #[schemars(default, schema_with = "env_schema")]
        pub env: Option<Vec<EnvVar>>,
        pub resources: Option<ResourceRequirements>,
        pub dns_config: Option<PodDNSConfig>,
        pub tolerations: Option<Vec<Toleration>>,
        /// Nodes the pods may run on.
        #[schemars(default, schema_with = "node_selector_schema")]
        pub node_selector: Option<BTreeMap<String, String>>,
        pub affinity: Option<Affinity>,
        pub topology_spread_constraints: Option<Vec<TopologySpreadConstraint>>,
    }

    /// Who may talk to the engine.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct EngineSecurity {
        pub service_annotations: Option<BTreeMap<String, String>>,
        /// Pods allowed to reach the ingress port; none when unset.
        #[schemars(default, schema_with = "peers_schema")]
        pub ingress_peers: Option<Vec<LabelSelector>>,
        /// Pods allowed to reach the admin port.
        #[schemars(default, schema_with = "peers_schema")]
        pub admin_peers: Option<Vec<LabelSelector>>,
        pub egress: Option<Vec<EgressRule>>,
    }

    /// Outbound traffic the engine may send.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct EgressRule {
        #[schemars(default, schema_with = "ports_schema")]
        pub ports: Option<Vec<serde_json::Value>>,
        #[schemars(default, schema_with = "peers_schema")]
        pub to: Option<Vec<LabelSelector>>,
    }

    /// What the operator observed.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct WorkflowEngineStatus {
        pub conditions: Option<Vec<Condition>>,
        pub ready_nodes: Option<i32>,
    }

    fn env_schema(g: &mut SchemaGenerator) -> Schema {
        let var = g.subschema_for::<EnvVar>();
        json_schema!({
            "items": var,
            "nullable": true,
            "type": "array",
            "x-kubernetes-list-map-keys": ["name"],
            "x-kubernetes-list-type": "map"
        })
    }

    fn node_selector_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "Nodes the pods may run on.",
            "additionalProperties": { "type": "string" },
            "type": "object",
            "x-kubernetes-map-type": "atomic"
        })
    }

    fn peers_schema(g: &mut SchemaGenerator) -> Schema {
        let peer = g.subschema_for::<LabelSelector>();
        json_schema!({ "items": peer, "nullable": true, "type": "array", "x-kubernetes-list-type": "atomic" })
    }

    fn ports_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "items": {
                "description": "A destination port and protocol.",
                "properties": {
                    "port": {
                        "x-kubernetes-int-or-string": true,
                        "anyOf": [{ "type": "integer" }, { "type": "string" }],
                        "description": "Port number or name."
                    },
                    "protocol": { "description": "TCP, UDP or SCTP; TCP when unset.", "type": "string" }
                },
                "type": "object"
            },
            "nullable": true,
            "type": "array",
            "x-kubernetes-list-type": "atomic"
        })
    }

    impl JsonSchema for WorkflowEngine {
        fn schema_name() -> Cow<'static, str> {
            "WorkflowEngine".into()
        }

        fn schema_id() -> Cow<'static, str> {
            "shapes::workflow::WorkflowEngine".into()
        }

        fn json_schema(generator: &mut SchemaGenerator) -> Schema {
            let spec_schema = generator.subschema_for::<WorkflowEngineSpec>();
            let status_schema = generator.subschema_for::<Option<WorkflowEngineStatus>>();
            json_schema!({
                "type": "object",
                "description": "A workflow engine; its name must be a valid namespace name.",
                "properties": {
                    "metadata": {
                        "type": "object",
                        "properties": {
                            "name": {
                                "type": "string",
                                "minLength": 1,
                                "maxLength": 63,
                                "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
                            }
                        }
                    },
                    "spec": spec_schema,
                    "status": status_schema
                },
                "required": ["metadata", "spec"]
            })
        }
    }
}

pub mod analytics {
    use super::*;
    use k8s_openapi::api::core::v1::{PodTemplateSpec, Volume};
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

    /// Schema helpers shared by every kind of the operator.
    pub mod crds {
        use super::*;

        pub fn raw_object_schema(_: &mut SchemaGenerator) -> Schema {
            serde_json::from_value(serde_json::json!({
                "type": "object",
                "x-kubernetes-preserve-unknown-fields": true,
            }))
            .expect("the raw object schema is valid")
        }

        pub fn raw_optional_object_schema(_: &mut SchemaGenerator) -> Schema {
            serde_json::from_value(serde_json::json!({
                "type": "object",
                "nullable": true,
                "x-kubernetes-preserve-unknown-fields": true,
            }))
            .expect("the optional raw object schema is valid")
        }

        pub fn raw_object_list_schema(_: &mut SchemaGenerator) -> Schema {
            serde_json::from_value(serde_json::json!({
                "type": "array",
                "items": { "type": "object", "x-kubernetes-preserve-unknown-fields": true }
            }))
            .expect("the raw object list schema is valid")
        }
    }

    use crds::raw_object_list_schema;

    /// An analytics cluster: coordinators and workers in role groups.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(
        group = "analytics.kubesmith.dev",
        version = "v1alpha1",
        kind = "AnalyticsCluster",
        plural = "analyticsclusters",
        shortname = "ac",
        status = "AnalyticsClusterStatus",
        namespaced
    )]
    #[serde(rename_all = "camelCase")]
    pub struct AnalyticsClusterSpec {
        pub image: ProductImage,
        pub cluster_config: ClusterConfig,
        pub coordinators: Option<Role>,
        pub workers: Option<Role>,
    }

    /// Which product image to run.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct ProductImage {
        pub product_version: String,
        pub repository: Option<String>,
        #[serde(default)]
        pub pull_policy: PullPolicy,
    }

    /// When to pull the image.
    #[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
    pub enum PullPolicy {
        #[default]
        IfNotPresent,
        Always,
        Never,
    }

    /// Settings of the whole cluster.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct ClusterConfig {
        /// Name of the discovery ConfigMap of the metadata store.
        pub metastore_config_map: String,
        /// Extra volumes mounted into every container.
        #[serde(default)]
        #[schemars(schema_with = "raw_object_list_schema")]
        pub extra_volumes: Vec<Volume>,
    }

    /// A role: defaults for its groups, and the groups.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct Role {
        #[serde(default, flatten)]
        pub config: CommonConfig,
        pub role_groups: BTreeMap<String, RoleGroup>,
    }

    /// A group of identical replicas.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct RoleGroup {
        pub replicas: Option<u16>,
        #[serde(default, flatten)]
        pub config: CommonConfig,
    }

    /// What roles and groups both configure.
    #[derive(Serialize, Deserialize, Clone, Debug, Default, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct CommonConfig {
        /// Settings per configuration file, overriding the operator's.
        #[serde(default)]
        pub config_overrides: HashMap<String, BTreeMap<String, String>>,
        #[serde(default)]
        pub env_overrides: HashMap<String, String>,
        /// Pod template fields merged over the generated pods.
        #[serde(default)]
        #[schemars(schema_with = "crate::analytics::crds::raw_optional_object_schema")]
        pub pod_overrides: Option<PodTemplateSpec>,
        /// Memory of the main container.
        pub memory_limit: Option<Quantity>,
    }

    /// What the operator observed.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct AnalyticsClusterStatus {
        #[schemars(schema_with = "crds::raw_object_schema")]
        pub discovery: serde_json::Value,
    }
}

pub mod routes {
    use super::*;
    use std::num::NonZeroU16;

    /// A duration in Go's `time.ParseDuration` syntax (`1m30s`).
    #[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
    #[serde(transparent)]
    pub struct WallDuration(String);

    impl schemars::JsonSchema for WallDuration {
        fn schema_name() -> Cow<'static, str> {
            "WallDuration".into()
        }

        fn inline_schema() -> bool {
            true
        }

        fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
            // Plain text: JSON Schema's `duration` format is ISO 8601, not Go's syntax.
            schemars::json_schema!({
                "type": "string",
            })
        }
    }

    /// Traffic to one service, split by matches.
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "mesh.kubesmith.dev", version = "v1beta1", kind = "TrafficRoute", namespaced)]
    #[serde(rename_all = "camelCase")]
    pub struct TrafficRouteSpec {
        pub parent_refs: Option<Vec<ParentRef>>,
        pub hostnames: Option<Vec<String>>,
        pub rules: Option<Vec<RouteRule>>,
    }

    /// The object a route attaches to.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct ParentRef {
        pub group: Option<String>,
        pub kind: Option<String>,
        pub name: String,
        pub port: Option<NonZeroU16>,
    }

    /// Matches and where they go.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct RouteRule {
        pub matches: Option<Vec<PathMatch>>,
        pub backend_refs: Option<Vec<BackendRef>>,
        pub timeouts: Option<RouteTimeouts>,
    }

    /// A path to match.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct PathMatch {
        pub value: String,
        pub protocol: Option<Protocol>,
    }

    /// The protocol spoken on the path.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub enum Protocol {
        #[serde(rename = "HTTP/1")]
        Http1,
        #[serde(rename = "HTTP/2")]
        Http2,
        #[serde(rename = "gRPC")]
        Grpc,
        #[serde(rename = "opaque")]
        Opaque,
    }

    /// A backend and its share of the traffic.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct BackendRef {
        pub name: String,
        pub port: NonZeroU16,
        pub weight: Option<u16>,
    }

    /// How long requests may take.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct RouteTimeouts {
        /// The whole request, retries included.
        pub request: Option<WallDuration>,
        /// One attempt against a backend.
        pub backend_request: Option<WallDuration>,
        pub idle: WallDuration,
    }
}

pub mod listable {
    use super::*;

    /// Defaulting and nullability next to a list merged as a set.
    #[derive(CustomResource, Serialize, Deserialize, Default, Debug, PartialEq, Eq, Clone, JsonSchema)]
    #[kube(group = "lists.kubesmith.dev", version = "v1", kind = "Listable", namespaced, derive = "PartialEq", derive = "Default")]
    pub struct ListableSpec {
        required_name: String,
        #[serde(default = "default_label")]
        label_with_default: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        maybe_skipped: Option<String>,
        maybe: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[serde(default = "default_note")]
        maybe_skipped_with_default: Option<String>,
        #[serde(default = "default_note")]
        maybe_with_default: Option<String>,
        /// Merged as an atomic list.
        #[serde(default)]
        plain_list: Vec<u32>,
        // Merged as a set by server-side apply.
        #[serde(default)]
        #[schemars(schema_with = "set_list_schema")]
        set_list: Vec<u32>,
    }

    fn set_list_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        serde_json::from_value(serde_json::json!({
            "type": "array",
            "items": {
                "type": "integer",
                "minimum": 0,
                "x-unit": "count"
            },
            "x-kubernetes-list-type": "set"
        }))
        .unwrap()
    }

    fn default_label() -> String {
        "unnamed".into()
    }

    fn default_note() -> Option<String> {
        Some("none".into())
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
    write(&dir, "op-workflow-engine", workflow::WorkflowEngine::crd);
    write(&dir, "op-analytics-cluster", analytics::AnalyticsCluster::crd);
    write(&dir, "op-traffic-route", routes::TrafficRoute::crd);
    write(&dir, "op-listable", listable::Listable::crd);
}
