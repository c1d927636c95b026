//! The k8s-openapi schema table: the schema kube-derive inlines for each supported k8s-openapi 0.29 type, per
//! Kubernetes version feature (`v1_33` .. `v1_37`, and `v1_30` .. `v1_32` of k8s-openapi 0.26 to 0.28), generated
//! from the real crates by `cargo xtask k8s-schemas`.
//!
//! Layout (`data/k8s-schemas/`): `pool.jsonl` holds every distinct JSON object of the tables once, one per
//! line, children that are themselves pooled written `{"$pool": <line>}`; `v1_XX.json` maps a type name to
//! its pool line. Only the small per-version index is parsed eagerly; a type's schema is expanded from the pool
//! the first time a crate uses it, so a run that embeds no k8s type pays (almost) nothing for the table.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, OnceLock};

use serde_json::{Map, Value};

/// Supported Kubernetes minor versions, oldest first (k8s-openapi 0.29 features `v1_33` .. `v1_37`).
pub const VERSIONS: [&str; 5] = ["1.33", "1.34", "1.35", "1.36", "1.37"];

/// The version used when neither `PROJECT` nor `--k8s-version` names one (k8s-openapi's `latest`).
pub const DEFAULT_VERSION: &str = "1.37";

/// Every Kubernetes version kubesmith has schemas for, oldest first: [`VERSIONS`], and the older ones of crates
/// it reads (k8s-openapi 0.26 to 0.28's `v1_30` .. `v1_32`), which it does not scaffold.
pub const READ_VERSIONS: [&str; 8] = ["1.30", "1.31", "1.32", "1.33", "1.34", "1.35", "1.36", "1.37"];

const POOL: &str = include_str!("../../data/k8s-schemas/pool.jsonl");
const INDEXES: [&str; 8] = [
    include_str!("../../data/k8s-schemas/v1_30.json"),
    include_str!("../../data/k8s-schemas/v1_31.json"),
    include_str!("../../data/k8s-schemas/v1_32.json"),
    include_str!("../../data/k8s-schemas/v1_33.json"),
    include_str!("../../data/k8s-schemas/v1_34.json"),
    include_str!("../../data/k8s-schemas/v1_35.json"),
    include_str!("../../data/k8s-schemas/v1_36.json"),
    include_str!("../../data/k8s-schemas/v1_37.json"),
];

/// One Kubernetes version's table.
#[derive(Debug)]
pub struct K8sTable {
    version: &'static str,
    index: BTreeMap<String, usize>,
    expanded: Mutex<HashMap<usize, Value>>,
}

fn pool_lines() -> &'static [&'static str] {
    static LINES: OnceLock<Vec<&'static str>> = OnceLock::new();
    LINES.get_or_init(|| POOL.lines().collect())
}

impl K8sTable {
    /// The table of `version` (`"1.30"` .. `"1.37"`; a leading `v` and `_` for `.` are accepted).
    pub fn for_version(version: &str) -> Option<&'static K8sTable> {
        static TABLES: [OnceLock<K8sTable>; 8] = [const { OnceLock::new() }; 8];
        let v = version.trim_start_matches('v').replace('_', ".");
        let i = READ_VERSIONS.iter().position(|x| *x == v)?;
        Some(TABLES[i].get_or_init(|| {
            let index: BTreeMap<String, usize> =
                serde_json::from_str(INDEXES[i]).expect("data/k8s-schemas index is valid JSON");
            K8sTable { version: READ_VERSIONS[i], index, expanded: Mutex::new(HashMap::new()) }
        }))
    }

    /// The table for a Kubernetes version outside [`READ_VERSIONS`] (`"1.29"`): only the types whose schema is the same
    /// in every version of the table (`Condition`, `ObjectMeta`, `Quantity`; not `Container`, which changes with
    /// every release), so that the others of such a crate are left to the compiled fallback rather than given
    /// another version's schema.
    pub fn uncovered(version: &str) -> &'static K8sTable {
        static TABLES: Mutex<BTreeMap<String, &'static K8sTable>> = Mutex::new(BTreeMap::new());
        let mut tables = TABLES.lock().unwrap_or_else(|e| e.into_inner());
        tables.entry(version.to_string()).or_insert_with(|| {
            let version: &'static str = Box::leak(version.to_string().into_boxed_str());
            let indexes: Vec<BTreeMap<String, usize>> = INDEXES
                .iter()
                .map(|text| serde_json::from_str(text).expect("data/k8s-schemas index is valid JSON"))
                .collect();
            let mut index = indexes[0].clone();
            index.retain(|name, id| indexes.iter().all(|ix| ix.get(name) == Some(id)));
            Box::leak(Box::new(K8sTable { version, index, expanded: Mutex::new(HashMap::new()) }))
        })
    }

    /// Whether the table holds the schemas of its version ([`K8sTable::uncovered`] holds none).
    pub fn covered(&self) -> bool {
        READ_VERSIONS.contains(&self.version)
    }

    /// The default version's table.
    pub fn default_table() -> &'static K8sTable {
        Self::for_version(DEFAULT_VERSION).expect("the default version has a table")
    }

    /// `"1.37"`.
    pub fn version(&self) -> &'static str {
        self.version
    }

    /// Whether the table has the type named `name`: its path under `k8s_openapi::`
    /// (`api::core::v1::Container`), or its own name (`Container`) where that names one type.
    pub fn contains(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    /// Whether keys `a` and `b` (a type's own name, its path under `k8s_openapi::`) name one entry.
    pub fn same_type(&self, a: &str, b: &str) -> bool {
        matches!((self.index.get(a), self.index.get(b)), (Some(x), Some(y)) if x == y)
    }

    /// Type names in the table, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.index.keys().map(String::as_str)
    }

    /// The schema of `name` as kube-derive inlines it for a required field of that type.
    pub fn get(&self, name: &str) -> Option<Value> {
        let id = *self.index.get(name)?;
        let mut cache = self.expanded.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = cache.get(&id) {
            return Some(v.clone());
        }
        let mut memo = HashMap::new();
        let v = expand_id(id, &mut memo);
        cache.insert(id, v.clone());
        Some(v)
    }
}

fn expand_id(id: usize, memo: &mut HashMap<usize, Value>) -> Value {
    if let Some(v) = memo.get(&id) {
        return v.clone();
    }
    let raw: Value = pool_lines()
        .get(id)
        .and_then(|l| serde_json::from_str(l).ok())
        .expect("data/k8s-schemas/pool.jsonl is consistent with its indexes");
    let v = expand(raw, memo);
    memo.insert(id, v.clone());
    v
}

fn expand(v: Value, memo: &mut HashMap<usize, Value>) -> Value {
    match v {
        Value::Object(m) => {
            if m.len() == 1
                && let Some(id) = m.get("$pool").and_then(Value::as_u64)
            {
                return expand_id(id as usize, memo);
            }
            Value::Object(m.into_iter().map(|(k, x)| (k, expand(x, memo))).collect::<Map<String, Value>>())
        }
        Value::Array(a) => Value::Array(a.into_iter().map(|x| expand(x, memo)).collect()),
        other => other,
    }
}

/// The description k8s-openapi gives `Quantity` (how its schema is known inside an expanded type).
const QUANTITY_DESCRIPTION: &str = "Quantity is a fixed-point representation of a number.";

/// k8s-openapi's schemas as its schemars-0.8 releases (≤ 0.25) write them: `Quantity` is a plain string there
/// (`x-kubernetes-int-or-string` came with schemars 1), wherever the table's schema holds one; and an optional
/// `IntOrString` property (a Service port's `targetPort`) is not `nullable`: those releases write each property's
/// schema by hand, without schemars' `Option` (the table's only `nullable` properties are these).
pub fn as_schemars_08(schema: &mut Value) {
    match schema {
        Value::Object(o) => {
            let int_or_string = o.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true));
            let quantity = int_or_string
                && o.get("description").and_then(Value::as_str).is_some_and(|d| d.starts_with(QUANTITY_DESCRIPTION));
            if quantity {
                o.remove("x-kubernetes-int-or-string");
                o.insert("type".into(), Value::String("string".into()));
            }
            if int_or_string {
                o.remove("nullable");
            }
            o.values_mut().for_each(as_schemars_08);
        }
        Value::Array(a) => a.iter_mut().for_each(as_schemars_08),
        _ => {}
    }
}

/// k8s-openapi's schemas as kube 2's `crd()` leaves them ([`Rewriter::Kube2`](super::dialect::Rewriter)): without
/// the `nullable: true` kube 3's `OptionalIntOrString` puts on optional int-or-string properties (the table's only
/// `nullable` properties).
pub fn as_kube_2(schema: &mut Value) {
    match schema {
        Value::Object(o) => {
            if o.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
                o.remove("nullable");
            }
            o.values_mut().for_each(as_kube_2);
        }
        Value::Array(a) => a.iter_mut().for_each(as_kube_2),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemars_08_int_or_string_properties_are_not_nullable() {
        let mut port = K8sTable::default_table().get("ServicePort").unwrap();
        assert_eq!(port["properties"]["targetPort"]["nullable"], true);
        as_schemars_08(&mut port);
        assert_eq!(port["properties"]["targetPort"].get("nullable"), None);
        assert_eq!(port["properties"]["targetPort"]["x-kubernetes-int-or-string"], true);
        let mut selector = K8sTable::default_table().get("ResourceFieldSelector").unwrap();
        assert_eq!(selector["properties"]["divisor"]["nullable"], true);
        as_kube_2(&mut selector);
        assert_eq!(selector["properties"]["divisor"].get("nullable"), None);
        assert_eq!(selector["properties"]["divisor"]["x-kubernetes-int-or-string"], true);
    }

    #[test]
    fn every_version_has_every_type_and_they_expand() {
        let latest = K8sTable::default_table();
        for v in VERSIONS {
            let t = K8sTable::for_version(v).unwrap();
            assert_eq!(t.version(), v);
            assert_eq!(t.names().collect::<Vec<_>>(), latest.names().collect::<Vec<_>>());
            for name in t.names() {
                let s = t.get(name).unwrap();
                assert!(s.get("description").is_some(), "{v} {name}: {s}");
                assert!(!s.to_string().contains("$pool"), "{v} {name}");
            }
        }
        assert!(K8sTable::for_version("v1_35").is_some());
        assert!(K8sTable::for_version("1.29").is_none());
        // the older versions hold the types their k8s-openapi trees declare
        for v in &READ_VERSIONS[..3] {
            let t = K8sTable::for_version(v).unwrap();
            assert!(t.names().count() > 700, "{v}");
            assert!(t.names().all(|n| latest.contains(n)), "{v}");
            for name in ["Container", "PodSpec", "ObjectMeta", "Condition", "api::core::v1::Container"] {
                assert!(t.get(name).is_some_and(|s| !s.to_string().contains("$pool")), "{v} {name}");
            }
        }
        assert_ne!(
            K8sTable::for_version("1.32").unwrap().get("Container"),
            K8sTable::for_version("1.33").unwrap().get("Container")
        );
    }

    #[test]
    fn a_version_outside_the_table_has_only_the_types_every_version_agrees_on() {
        let t = K8sTable::uncovered("1.29");
        assert!(!t.covered() && K8sTable::default_table().covered());
        assert_eq!(t.version(), "1.29");
        assert_eq!(t.get("Condition"), K8sTable::default_table().get("Condition"));
        assert!(t.contains("ObjectMeta") && t.contains("Quantity"));
        // Container differs between 1.30 and 1.37, so it differs from 1.29's too, most likely.
        assert!(!t.contains("Container") && !t.contains("api::core::v1::Container"));
        assert!(std::ptr::eq(t, K8sTable::uncovered("1.29")));
    }

    #[test]
    fn types_are_keyed_by_path_and_by_their_own_name_where_that_names_one() {
        let t = K8sTable::default_table();
        assert!(t.same_type("Container", "api::core::v1::Container"));
        // Three groups have a `ServiceReference`: only their paths name them.
        assert!(!t.contains("ServiceReference"));
        assert!(t.contains("api::admissionregistration::v1::ServiceReference"));
        assert!(t.contains("apiextensions_apiserver::pkg::apis::apiextensions::v1::ServiceReference"));
        // core/v1's `Event` keeps the name; events/v1's is a type of its own.
        assert!(t.same_type("Event", "api::core::v1::Event"));
        assert!(!t.same_type("Event", "api::events::v1::Event"));
        assert!(t.get("api::events::v1::Event").unwrap()["properties"].get("eventTime").is_some());
        // Beta versions are not in the table.
        assert!(!t.contains("api::resource::v1beta1::ResourceClaimSpec"));
    }

    #[test]
    fn well_known_shapes() {
        let t = K8sTable::default_table();
        assert_eq!(t.get("Quantity").unwrap()["x-kubernetes-int-or-string"], true);
        assert_eq!(t.get("Time").unwrap()["format"], "date-time");
        let cond = t.get("Condition").unwrap();
        assert_eq!(cond["required"], serde_json::json!(["lastTransitionTime", "message", "reason", "status", "type"]));
        assert!(t.get("Nope").is_none());
    }
}
