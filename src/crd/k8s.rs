//! The k8s-openapi schema table: the schema kube-derive inlines for each supported k8s-openapi 0.29 type, per
//! Kubernetes version feature (`v1_33` .. `v1_37`, and `v1_30` .. `v1_32` of k8s-openapi 0.26 to 0.28), and per
//! (release, feature) for crates that pin an older release ([`RELEASES`]), generated from the real crates by
//! `cargo xtask k8s-schemas`.
//!
//! Layout (`data/k8s-schemas/`): `pool.jsonl` holds every distinct JSON object of the tables once, one per
//! line, children that are themselves pooled written `{"$pool": <line>}`; `v1_XX.json` maps a type name to
//! its pool line. Only the small per-version index is parsed eagerly; a type's schema is expanded from the pool
//! the first time a crate uses it, so a run that embeds no k8s type pays (almost) nothing for the table.
//!
//! The types are every non-generic type with a `JsonSchema` impl in a stable API version or apimachinery (the list is
//! `xtask/src/k8s_types.txt`), keyed by path under `k8s_openapi::`, and by own name where that names one type or the
//! core/v1 or meta/v1 one; the schemars-0.8 releases' (≤ 0.25) as their kube-derive inlines them. kubesmith scaffolds
//! only [`VERSIONS`] and reads [`READ_VERSIONS`]. The version comes from `make manifests --k8s-version`, else PROJECT's
//! `k8sVersion`, else the `v1_XX` feature the crate's manifest turns on for k8s-openapi
//! (`source::workspace::k8s_openapi_version`), else 1.37; [`K8sTable::for_crate`] picks the release's own table, else
//! for a schemars-1 release the version's, else [`K8sTable::uncovered`] (the types every table agrees on): a type
//! outside it is `NeedsCompile`.

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

/// Tables of one k8s-openapi release's version feature: (release, Kubernetes version, index). The same Kubernetes
/// version's schemas differ between releases (`required` lists, descriptions, 0.20's `format: int-or-string`), so a
/// crate pinning a schemars-0.8 release (≤ 0.25) is read with its own release's table or none; these hold what
/// that release's kube-derive inlines, the schemars-1 releases' ones what the version tables hold.
pub const RELEASES: [(&str, &str, &str); 22] = [
    ("0.20", "1.28", include_str!("../../data/k8s-schemas/0.20-v1_28.json")),
    ("0.21", "1.28", include_str!("../../data/k8s-schemas/0.21-v1_28.json")),
    ("0.21", "1.29", include_str!("../../data/k8s-schemas/0.21-v1_29.json")),
    ("0.22", "1.28", include_str!("../../data/k8s-schemas/0.22-v1_28.json")),
    ("0.22", "1.29", include_str!("../../data/k8s-schemas/0.22-v1_29.json")),
    ("0.22", "1.30", include_str!("../../data/k8s-schemas/0.22-v1_30.json")),
    ("0.23", "1.28", include_str!("../../data/k8s-schemas/0.23-v1_28.json")),
    ("0.23", "1.29", include_str!("../../data/k8s-schemas/0.23-v1_29.json")),
    ("0.23", "1.30", include_str!("../../data/k8s-schemas/0.23-v1_30.json")),
    ("0.23", "1.31", include_str!("../../data/k8s-schemas/0.23-v1_31.json")),
    ("0.24", "1.28", include_str!("../../data/k8s-schemas/0.24-v1_28.json")),
    ("0.24", "1.29", include_str!("../../data/k8s-schemas/0.24-v1_29.json")),
    ("0.24", "1.30", include_str!("../../data/k8s-schemas/0.24-v1_30.json")),
    ("0.24", "1.31", include_str!("../../data/k8s-schemas/0.24-v1_31.json")),
    ("0.24", "1.32", include_str!("../../data/k8s-schemas/0.24-v1_32.json")),
    ("0.25", "1.30", include_str!("../../data/k8s-schemas/0.25-v1_30.json")),
    ("0.25", "1.31", include_str!("../../data/k8s-schemas/0.25-v1_31.json")),
    ("0.25", "1.32", include_str!("../../data/k8s-schemas/0.25-v1_32.json")),
    ("0.25", "1.33", include_str!("../../data/k8s-schemas/0.25-v1_33.json")),
    ("0.26", "1.34", include_str!("../../data/k8s-schemas/0.26-v1_34.json")),
    ("0.27", "1.35", include_str!("../../data/k8s-schemas/0.27-v1_35.json")),
    ("0.28", "1.36", include_str!("../../data/k8s-schemas/0.28-v1_36.json")),
];

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
    /// Holds a schemars-0.8 release's schemas as its kube-derive inlines them (not the schemars-1 form).
    schemars_08: bool,
    /// Holds its version's schemas ([`K8sTable::uncovered`]'s hold only what every table agrees on).
    covered: bool,
}

/// `0.20.0` (or a requirement `=0.20`) → `0.20`: releases are told apart by their minor version.
fn release_key(release: &str) -> Option<String> {
    let mut parts = release.trim_start_matches(['=', '^', '~']).trim().split('.');
    let (major, minor) = (parts.next()?.parse::<u64>().ok()?, parts.next()?.parse::<u64>().ok()?);
    Some(format!("{major}.{minor}"))
}

/// Whether k8s-openapi release `key` (`0.24`) implements schemars 0.8's `JsonSchema` (every release before 0.26).
fn is_schemars_08(key: &str) -> bool {
    key.strip_prefix("0.").and_then(|m| m.parse::<u64>().ok()).is_some_and(|minor| minor < 26)
}

fn parse_index(text: &str) -> BTreeMap<String, usize> {
    serde_json::from_str(text).expect("data/k8s-schemas index is valid JSON")
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
        Some(TABLES[i].get_or_init(|| K8sTable {
            version: READ_VERSIONS[i],
            index: parse_index(INDEXES[i]),
            expanded: Mutex::new(HashMap::new()),
            schemars_08: false,
            covered: true,
        }))
    }

    /// The table for a crate that builds k8s-openapi `release` (the lock's, `0.20.0`; `None` when unknown) for
    /// Kubernetes `version` (`1.28`): that release's own table for the version where there is one; else, for a
    /// schemars-1 release (or an unknown one), the version's table; else [`K8sTable::uncovered`], so that a type
    /// no table holds exactly for the crate is left to the compiled fallback rather than given a near miss.
    pub fn for_crate(version: &str, release: Option<&str>) -> &'static K8sTable {
        static TABLES: [OnceLock<K8sTable>; RELEASES.len()] = [const { OnceLock::new() }; RELEASES.len()];
        let v = version.trim_start_matches('v').replace('_', ".");
        let key = release.and_then(release_key);
        if let Some(key) = &key
            && let Some(i) = RELEASES.iter().position(|(r, rv, _)| r == key && *rv == v)
        {
            return TABLES[i].get_or_init(|| K8sTable {
                version: RELEASES[i].1,
                index: parse_index(RELEASES[i].2),
                expanded: Mutex::new(HashMap::new()),
                schemars_08: is_schemars_08(key),
                covered: true,
            });
        }
        match key {
            Some(key) if is_schemars_08(&key) => Self::uncovered(&v),
            _ => Self::for_version(&v).unwrap_or_else(|| Self::uncovered(&v)),
        }
    }

    /// The table for a Kubernetes version (`"1.29"`) or release no table holds: only the types whose schema is the
    /// same in every table, of every version and release, in both schemars forms (`Condition`, `Time`; not
    /// `Container`, which changes with every version, nor `Quantity`, whose form changed with schemars 1), so that
    /// the others of such a crate are left to the compiled fallback rather than given another version's schema.
    pub fn uncovered(version: &str) -> &'static K8sTable {
        static TABLES: Mutex<BTreeMap<String, &'static K8sTable>> = Mutex::new(BTreeMap::new());
        let mut tables = TABLES.lock().unwrap_or_else(|e| e.into_inner());
        tables.entry(version.to_string()).or_insert_with(|| {
            let version: &'static str = Box::leak(version.to_string().into_boxed_str());
            let indexes: Vec<BTreeMap<String, usize>> =
                INDEXES.iter().chain(RELEASES.iter().map(|(_, _, text)| text)).map(|t| parse_index(t)).collect();
            let mut index = indexes[0].clone();
            index.retain(|name, id| indexes.iter().all(|ix| ix.get(name) == Some(id)));
            Box::leak(Box::new(K8sTable {
                version,
                index,
                expanded: Mutex::new(HashMap::new()),
                schemars_08: false,
                covered: false,
            }))
        })
    }

    /// Whether the table holds the schemas of its version ([`K8sTable::uncovered`] holds none).
    pub fn covered(&self) -> bool {
        self.covered
    }

    /// Whether the table holds a schemars-0.8 release's schemas as they are (no [`as_schemars_08`] needed).
    pub fn is_schemars_08(&self) -> bool {
        self.schemars_08
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
        // each release's tables hold the types its tree declares, and expand
        for (release, v, _) in RELEASES {
            let t = K8sTable::for_crate(v, Some(release));
            assert!(t.covered() && t.version() == v, "{release} {v}");
            assert!(t.names().count() > 600 && t.names().all(|n| latest.contains(n)), "{release} {v}");
            for name in ["Container", "PodSpec", "ObjectMeta", "Condition"] {
                assert!(t.get(name).is_some_and(|s| !s.to_string().contains("$pool")), "{release} {v} {name}");
            }
        }
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
        let t = K8sTable::uncovered("1.27");
        assert!(!t.covered() && K8sTable::default_table().covered());
        assert_eq!(t.version(), "1.27");
        assert_eq!(t.get("Condition"), K8sTable::default_table().get("Condition"));
        assert!(t.contains("Time"));
        // Container differs between 1.28 and 1.37, so it differs from 1.27's too, most likely; Quantity's form
        // differs between schemars 0.8 and 1.
        assert!(!t.contains("Container") && !t.contains("api::core::v1::Container") && !t.contains("Quantity"));
        assert!(std::ptr::eq(t, K8sTable::uncovered("1.27")));
    }

    #[test]
    fn a_crate_is_read_with_its_own_releases_table_where_there_is_one() {
        // a schemars-0.8 release's own table, as its kube-derive inlines it
        let t = K8sTable::for_crate("1.28", Some("0.20.0"));
        assert!(t.covered() && t.is_schemars_08() && t.version() == "1.28");
        assert_eq!(t.get("Quantity").unwrap()["type"], "string");
        let port = t.get("ServicePort").unwrap()["properties"]["targetPort"].clone();
        assert_eq!(port["format"], "int-or-string");
        // the same version differs between releases (upstream patch releases), so each has its own table and a
        // pair no table holds is not guessed
        let other = K8sTable::for_crate("1.28", Some("=0.24"));
        assert!(other.covered() && other.is_schemars_08());
        assert_ne!(other.get("Container"), t.get("Container"));
        let none = K8sTable::for_crate("1.27", Some("0.21.1"));
        assert!(!none.covered() && !none.contains("Container"));
        let t24 = K8sTable::for_crate("v1_32", Some("0.24.0"));
        assert!(t24.is_schemars_08() && t24.covered());
        let divisor = t24.get("ResourceFieldSelector").unwrap()["properties"]["divisor"].clone();
        assert_eq!(divisor["type"], "string", "a Quantity with its own description: {divisor}");
        assert_ne!(
            t24.get("StatefulSetSpec"),
            K8sTable::for_crate("1.32", Some("0.25.0")).get("StatefulSetSpec"),
            "0.24 and 0.25 differ for 1.32"
        );
        // schemars-1 releases: their own table where there is one, else the version's
        let t26 = K8sTable::for_crate("1.34", Some("0.26.1"));
        assert!(t26.covered() && !t26.is_schemars_08());
        assert!(std::ptr::eq(K8sTable::for_crate("1.33", Some("0.29.0")), K8sTable::for_version("1.33").unwrap()));
        assert!(std::ptr::eq(K8sTable::for_crate("1.30", None), K8sTable::for_version("1.30").unwrap()));
        assert!(!K8sTable::for_crate("1.21", Some("0.19.0")).covered());
        assert!(!K8sTable::for_crate("1.29", Some("0.29.0")).covered());
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
