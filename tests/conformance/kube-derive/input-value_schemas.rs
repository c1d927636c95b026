//! `serde_json::Value` in every position (kubesmith issue 26). `value-fixes`: each position with the attribute
//! kubesmith's refusal suggests for it, so kube-derive's own output is structural (the API server takes it), plus
//! the positions kube-derive already gets right (maps of values: `additionalProperties: true`). `value-flatten`: a
//! flattened `Value` (the spec keeps unknown fields). The refused shapes, whose kube-derive output the API server
//! rejects or whose `crd()` panics: a documented `Value` (`value-documented`), a list of values with the extension
//! on the list (`value-list-marked`, the fix kubesmith used to suggest), a map of lists of values
//! (`value-map-of-lists`, panics), the extension on a newtype variant instead of its field
//! (`value-variant-marked`), a documented newtype of `Value` (`value-newtype`).
//! Output folder: first CLI argument (default `out`); writes `<sample>.json` (or `<sample>.PANIC.txt`).
#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};

use kube::{CustomResource, CustomResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub mod fixes {
    use super::*;

    /// A raw value whose users mark it.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct Raw(pub Value);

    /// A raw value that keeps unknown fields wherever it is used.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[schemars(extend("x-kubernetes-preserve-unknown-fields" = true))]
    pub struct Kept(pub Value);

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct InnerKept(#[schemars(extend("x-kubernetes-preserve-unknown-fields" = true))] pub Value);

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct Nested {
        #[schemars(extend("x-kubernetes-preserve-unknown-fields" = true))]
        pub payload: Value,
    }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub enum Choice {
        Inline(#[schemars(extend("x-kubernetes-preserve-unknown-fields" = true))] Value),
        Named { name: String },
    }

    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "values.kube.rs", version = "v1", kind = "ValueFixes")]
    #[serde(rename_all = "camelCase")]
    pub struct ValueFixesSpec {
        #[schemars(extend("x-kubernetes-preserve-unknown-fields" = true))]
        pub plain: Value,
        /// Any JSON, documented.
        #[schemars(extend("x-kubernetes-preserve-unknown-fields" = true))]
        pub documented: Value,
        #[serde(default)]
        #[schemars(extend("x-kubernetes-preserve-unknown-fields" = true))]
        pub defaulted: Value,
        #[schemars(extend("x-kubernetes-preserve-unknown-fields" = true))]
        pub optional: Option<Value>,
        #[schemars(extend("x-kubernetes-preserve-unknown-fields" = true))]
        pub boxed: Box<Value>,
        #[schemars(extend("items" = {"x-kubernetes-preserve-unknown-fields": true}))]
        pub list: Vec<Value>,
        /// A documented list.
        #[schemars(extend("items" = {"x-kubernetes-preserve-unknown-fields": true}))]
        pub documented_list: Vec<Value>,
        #[schemars(extend("items" = {"x-kubernetes-preserve-unknown-fields": true}))]
        pub optional_list: Option<Vec<Value>>,
        #[schemars(extend("items" = {"x-kubernetes-preserve-unknown-fields": true}))]
        pub nullable_items: Vec<Option<Value>>,
        #[schemars(extend("items" = {"type": "array", "items": {"x-kubernetes-preserve-unknown-fields": true}}))]
        pub matrix: Vec<Vec<Value>>,
        #[schemars(extend(
            "additionalProperties" = {"type": "array", "items": {"x-kubernetes-preserve-unknown-fields": true}}
        ))]
        pub lists_by_name: BTreeMap<String, Vec<Value>>,
        #[schemars(extend("x-kubernetes-preserve-unknown-fields" = true))]
        pub raw: Raw,
        pub kept: Kept,
        pub kept_list: Vec<Kept>,
        pub inner_kept: InnerKept,
        pub nested: Nested,
        pub choice: Choice,
        /// Map values keep their nested objects too with the extension on `additionalProperties`.
        #[schemars(extend("additionalProperties" = {"x-kubernetes-preserve-unknown-fields": true}))]
        pub settings: BTreeMap<String, Value>,
        #[schemars(extend(
            "items" = {"type": "object", "additionalProperties": {"x-kubernetes-preserve-unknown-fields": true}}
        ))]
        pub kept_label_sets: Vec<BTreeMap<String, Value>>,
        // Accepted as they are: `additionalProperties: true` (kubesmith notes that nested objects are pruned).
        pub labels: BTreeMap<String, Value>,
        pub optional_labels: Option<HashMap<String, Value>>,
        pub label_sets: Vec<BTreeMap<String, Value>>,
    }

    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "values.kube.rs", version = "v1", kind = "Extras")]
    pub struct ExtrasSpec {
        pub name: String,
        #[serde(flatten)]
        pub rest: Value,
    }
}

pub mod refused {
    use super::*;

    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "values.kube.rs", version = "v1", kind = "Documented")]
    pub struct DocumentedSpec {
        /// Any JSON.
        pub config: Value,
    }

    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "values.kube.rs", version = "v1", kind = "ListMarked")]
    pub struct ListMarkedSpec {
        #[schemars(extend("x-kubernetes-preserve-unknown-fields" = true))]
        pub entries: Vec<Value>,
    }

    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "values.kube.rs", version = "v1", kind = "MapOfLists")]
    pub struct MapOfListsSpec {
        pub groups: BTreeMap<String, Vec<Value>>,
    }

    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub enum Source {
        #[schemars(extend("x-kubernetes-preserve-unknown-fields" = true))]
        Inline(Value),
        Named { name: String },
    }

    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "values.kube.rs", version = "v1", kind = "VariantMarked")]
    pub struct VariantMarkedSpec {
        pub source: Source,
    }

    /// A document of any shape.
    #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
    pub struct Document(pub Value);

    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "values.kube.rs", version = "v1", kind = "Wrapped")]
    pub struct WrappedSpec {
        pub document: Document,
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
    write(&dir, "value-fixes", fixes::ValueFixes::crd);
    write(&dir, "value-flatten", fixes::Extras::crd);
    write(&dir, "value-documented", refused::Documented::crd);
    write(&dir, "value-list-marked", refused::ListMarked::crd);
    write(&dir, "value-map-of-lists", refused::MapOfLists::crd);
    write(&dir, "value-variant-marked", refused::VariantMarked::crd);
    write(&dir, "value-newtype", refused::Wrapped::crd);
}
