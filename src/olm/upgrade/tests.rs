//! Unit tests of the upgrade rules on hand-written CRDs: every rule refused and accepted, with exact messages.

use serde_json::{Value, json};

use super::*;

/// A CRD `widgets.example.com` with the given scope and versions `(name, served, storage, spec properties)`.
fn crd(scope: &str, versions: &[(&str, bool, bool, Value)]) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .map(|(name, served, storage, spec)| {
            json!({"name": name, "served": served, "storage": storage, "schema": {"openAPIV3Schema": {
                "type": "object", "properties": {"spec": spec}}}})
        })
        .collect();
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"}, "scope": scope,
            "versions": versions}})
}

/// One version `v1`, namespaced, with this spec schema.
fn one(spec: Value) -> Value {
    crd("Namespaced", &[("v1", true, true, spec)])
}

/// The messages of every change from `old` to `new`.
fn diff(old: Value, new: Value) -> Vec<String> {
    compare_crds(&[old], &[new]).iter().map(Change::to_string).collect()
}

fn rules(old: Value, new: Value) -> Vec<Rule> {
    compare_crds(&[old], &[new]).iter().map(|c| c.rule).collect()
}

const CRD: &str = "CRD widgets.example.com";

fn obj(props: Value) -> Value {
    json!({"type": "object", "properties": props})
}

#[test]
fn identical_crds_and_documentation_changes_pass() {
    let spec = obj(json!({"replicas": {"type": "integer", "description": "How many."}}));
    assert!(diff(one(spec.clone()), one(spec)).is_empty());
    let a = one(obj(json!({"replicas": {"type": "integer", "description": "How many."}})));
    let b = one(obj(json!({"replicas": {"type": "integer", "description": "How many pods."}})));
    assert!(diff(a, b).is_empty());
}

#[test]
fn scope_change_is_refused() {
    let spec = obj(json!({}));
    assert_eq!(
        diff(one(spec.clone()), crd("Cluster", &[("v1", true, true, spec)])),
        [format!(
            "{CRD}: scope changed from Namespaced to Cluster, so the objects stored under the old scope become \
             unreachable; keep the scope; a kind with the other scope needs a CRD of its own (another kind or group)"
        )]
    );
}

#[test]
fn removing_a_stored_version_is_refused() {
    let spec = obj(json!({}));
    let old = crd("Namespaced", &[("v1alpha1", true, true, spec.clone()), ("v1", true, false, spec.clone())]);
    let new = crd("Namespaced", &[("v1", true, true, spec.clone())]);
    assert_eq!(
        diff(old, new.clone()),
        [format!(
            "{CRD}, version v1alpha1: version removed, but the previous release stores objects in it (storage: true): \
             the API server cannot read those objects any more; keep v1alpha1 in the CRD \
             (`// +kubebuilder:unservedversion` on its spec struct stops serving it) until every object is stored in \
             the new storage version and status.storedVersions no longer lists v1alpha1"
        )]
    );
    // Stored once, as status.storedVersions says (a CRD read from a cluster), though no longer the storage version.
    let mut old = crd("Namespaced", &[("v1alpha1", false, false, spec.clone()), ("v1", true, true, spec.clone())]);
    old["status"] = json!({"storedVersions": ["v1alpha1", "v1"]});
    let found = diff(old, new.clone());
    assert_eq!(found.len(), 1);
    assert!(found[0].contains("version removed, but status.storedVersions lists it"), "{found:?}");
    // Neither stored nor served: removing it is safe.
    let old = crd("Namespaced", &[("v1alpha1", false, false, spec.clone()), ("v1", true, true, spec)]);
    assert!(diff(old, new).is_empty());
}

#[test]
fn removing_a_served_version_without_unserving_it_first_is_a_warning() {
    let spec = obj(json!({}));
    let old = crd("Namespaced", &[("v1beta1", true, false, spec.clone()), ("v1", true, true, spec.clone())]);
    let new = crd("Namespaced", &[("v1", true, true, spec)]);
    let changes = compare_crds(&[old], &[new]);
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].rule.class(), Class::Advisory);
    assert_eq!(
        changes[0].to_string(),
        format!(
            "{CRD}, version v1beta1: version removed while the previous release still served it, so clients using it \
             break; first ship a release that keeps v1beta1 with `served: false` (`// +kubebuilder:unservedversion` \
             on its spec struct), then remove it"
        )
    );
}

#[test]
fn removing_a_crd_is_refused() {
    let changes = compare_crds(&[one(obj(json!({})))], &[]);
    assert_eq!(
        changes.iter().map(Change::to_string).collect::<Vec<_>>(),
        [format!(
            "{CRD}: CRD no longer shipped, so the versions it stores (v1) and every object in them lose their API; \
             keep shipping the CRD"
        )]
    );
}

#[test]
fn removing_a_field_is_refused_and_adding_an_optional_one_is_not() {
    let old = one(obj(json!({"replicas": {"type": "integer"}, "image": {"type": "string"}})));
    let new = one(obj(json!({"replicas": {"type": "integer"}})));
    assert_eq!(
        diff(old.clone(), new),
        [format!(
            "{CRD}, version v1, field spec.image: field removed, so the values stored in it are dropped and clients \
             that set it break; keep the field (say it is deprecated in its doc comment), or serve a new API version \
             with a conversion webhook"
        )]
    );
    let added =
        one(obj(json!({"replicas": {"type": "integer"}, "image": {"type": "string"}, "pause": {"type": "boolean"}})));
    assert!(diff(old, added).is_empty());
}

#[test]
fn a_rename_is_named_as_such() {
    let old = one(obj(json!({"size": {"type": "integer", "description": "Size."}})));
    let new = one(obj(json!({"replicas": {"type": "integer", "description": "Replicas."}})));
    assert_eq!(
        diff(old, new),
        [format!(
            "{CRD}, version v1, field spec.size: field removed (spec.replicas was added with the same schema: a rename \
             is a removal), so the values stored in it are dropped and clients that set it break; keep the JSON name \
             `size` (`#[serde(rename = \"size\")]` on the renamed Rust field), or serve a new API version with a \
             conversion webhook"
        )]
    );
}

#[test]
fn type_changes_are_refused() {
    let old = one(obj(json!({"size": {"type": "integer", "format": "int32"}})));
    let new = one(obj(json!({"size": {"type": "string"}})));
    assert_eq!(
        diff(old, new),
        [format!(
            "{CRD}, version v1, field spec.size: type changed from integer (int32) to string, so objects stored with \
             the old type no longer validate; keep the type; add a field with the new type instead (or serve a new \
             API version with a conversion webhook)"
        )]
    );
}

#[test]
fn new_required_fields_are_refused_and_required_to_optional_is_not() {
    let old = one(obj(json!({"size": {"type": "integer"}})));
    let mut became = one(obj(json!({"size": {"type": "integer"}})));
    became["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["required"] = json!(["size"]);
    assert_eq!(
        diff(old.clone(), became.clone()),
        [format!(
            "{CRD}, version v1, field spec.size: became required (it was optional), so objects stored without it no \
             longer validate; keep it optional, as it was (`Option<T>`)"
        )]
    );
    // Required -> optional is safe.
    assert!(diff(became, old.clone()).is_empty());
    let mut new_field = one(obj(json!({"size": {"type": "integer"}, "image": {"type": "string"}})));
    new_field["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["required"] = json!(["image"]);
    let found = diff(old.clone(), new_field);
    assert_eq!(found.len(), 1);
    assert!(
        found[0].starts_with(&format!("{CRD}, version v1, field spec.image: new required field, so objects")),
        "{found:?}"
    );
    // A new optional object whose own fields are required: no stored object has it, so nothing breaks.
    let nested = one(obj(json!({"size": {"type": "integer"},
        "tls": {"type": "object", "required": ["secret"], "properties": {"secret": {"type": "string"}}}})));
    assert!(diff(old, nested).is_empty());
}

#[test]
fn nullable_changes_are_refused() {
    let old = one(obj(json!({"size": {"type": "integer", "nullable": true}})));
    let new = one(obj(json!({"size": {"type": "integer"}})));
    assert_eq!(
        diff(old.clone(), new.clone()),
        [format!(
            "{CRD}, version v1, field spec.size: no longer nullable (an `Option<T>` became `T`?), so objects storing \
             null there no longer validate; keep it nullable (`Option<T>`)"
        )]
    );
    assert_eq!(rules(new, old), [Rule::NullableChanged]);
    // `nullable: false` is the same as no `nullable`.
    let explicit = one(obj(json!({"size": {"type": "integer", "nullable": false}})));
    assert!(diff(explicit, one(obj(json!({"size": {"type": "integer"}})))).is_empty());
}

#[test]
fn default_changes_are_refused() {
    let none = one(obj(json!({"size": {"type": "integer"}})));
    let one_ = one(obj(json!({"size": {"type": "integer", "default": 1}})));
    let three = one(obj(json!({"size": {"type": "integer", "default": 3}})));
    let tail = "so objects stored without the field change meaning; keep the default as it was; set the new value in \
                the reconciler or in a new API version";
    assert_eq!(
        diff(none.clone(), one_.clone()),
        [format!("{CRD}, version v1, field spec.size: default 1 added where there was none, {tail}")]
    );
    assert_eq!(
        diff(one_.clone(), three),
        [format!("{CRD}, version v1, field spec.size: default changed from 1 to 3, {tail}")]
    );
    assert_eq!(diff(one_.clone(), none), [format!("{CRD}, version v1, field spec.size: default 1 removed, {tail}")]);
    assert!(diff(one_.clone(), one_).is_empty());
}

#[test]
fn enum_rules() {
    let free = one(obj(json!({"mode": {"type": "string"}})));
    let ab = one(obj(json!({"mode": {"type": "string", "enum": ["Fast", "Slow"]}})));
    let abc = one(obj(json!({"mode": {"type": "string", "enum": ["Fast", "Slow", "Auto"]}})));
    let a = one(obj(json!({"mode": {"type": "string", "enum": ["Fast"]}})));
    assert_eq!(
        diff(free.clone(), ab.clone()),
        [format!(
            "{CRD}, version v1, field spec.mode: enum [\"Fast\",\"Slow\"] added where any value was allowed, so stored \
             objects with other values no longer validate; leave the field unconstrained and check its values in a \
             validating webhook or the reconciler"
        )]
    );
    // A new value is safe.
    assert!(diff(ab.clone(), abc).is_empty());
    assert_eq!(
        diff(ab.clone(), a),
        [format!(
            "{CRD}, version v1, field spec.mode: enum value \"Slow\" removed, so stored objects using it no longer \
             validate; keep the value (the enum variant) and say it is deprecated in its doc comment"
        )]
    );
    // Dropping the whole enum relaxes the field, but OLM v1 counts it as removing every value.
    let found = diff(ab, free);
    assert_eq!(found.len(), 1);
    assert!(found[0].contains("enum [\"Fast\",\"Slow\"] removed; any value is allowed now"), "{found:?}");
}

#[test]
fn tightened_minima_are_refused_and_relaxed_ones_are_not() {
    let tail =
        "no longer validate; keep the old bound; enforce the tighter one for new objects in a validating webhook";
    for (key, beyond) in [
        ("minimum", "smaller values"),
        ("minLength", "shorter strings"),
        ("minItems", "fewer items"),
        ("minProperties", "fewer properties"),
    ] {
        let at = |v: Option<i64>| {
            let mut s = json!({"type": "integer"});
            if let Some(v) = v {
                s[key] = json!(v);
            }
            one(obj(json!({"x": s})))
        };
        assert_eq!(
            diff(at(None), at(Some(1))),
            [format!(
                "{CRD}, version v1, field spec.x: {key} 1 added where there was none, so stored objects with {beyond} \
                 there {tail}"
            )]
        );
        assert_eq!(
            diff(at(Some(1)), at(Some(2))),
            [format!(
                "{CRD}, version v1, field spec.x: {key} raised from 1 to 2, so stored objects with {beyond} there {tail}"
            )]
        );
        assert!(diff(at(Some(2)), at(Some(1))).is_empty(), "{key} lowered");
        assert!(diff(at(Some(2)), at(None)).is_empty(), "{key} removed");
        assert_eq!(rules(at(None), at(Some(0))), [Rule::MinimumTightened]);
    }
}

#[test]
fn tightened_maxima_are_refused_and_relaxed_ones_are_not() {
    for (key, beyond) in [
        ("maximum", "larger values"),
        ("maxLength", "longer strings"),
        ("maxItems", "more items"),
        ("maxProperties", "more properties"),
    ] {
        let at = |v: Option<f64>| {
            let mut s = json!({"type": "number"});
            if let Some(v) = v {
                s[key] = json!(v);
            }
            one(obj(json!({"x": s})))
        };
        assert_eq!(
            diff(at(Some(10.0)), at(Some(5.5))),
            [format!(
                "{CRD}, version v1, field spec.x: {key} lowered from 10.0 to 5.5, so stored objects with {beyond} there \
                 no longer validate; keep the old bound; enforce the tighter one for new objects in a validating webhook"
            )]
        );
        assert_eq!(rules(at(None), at(Some(5.0))), [Rule::MaximumTightened]);
        assert!(diff(at(Some(5.0)), at(Some(10.0))).is_empty(), "{key} raised");
        assert!(diff(at(Some(5.0)), at(None)).is_empty(), "{key} removed");
    }
    // A bound that is not a number cannot be compared: an unknown change.
    let text = one(obj(json!({"x": {"type": "integer", "maximum": "ten"}})));
    assert_eq!(rules(one(obj(json!({"x": {"type": "integer", "maximum": 10}}))), text), [Rule::UnknownChange]);
}

#[test]
fn other_changes_are_unknown() {
    let tail = "a change kubesmith (like OLM v1) cannot prove keeps stored objects valid; revert it, or check the \
                objects stored in the cluster and pass --allow-breaking";
    let old = one(obj(json!({"size": {"type": "integer", "format": "int32"}})));
    let new = one(obj(json!({"size": {"type": "integer", "format": "int64"}})));
    assert_eq!(
        diff(old, new),
        [format!("{CRD}, version v1, field spec.size: `format` changed from \"int32\" to \"int64\", {tail}")]
    );
    let old = one(obj(json!({"name": {"type": "string"}})));
    let new = one(obj(json!({"name": {"type": "string", "pattern": "^[a-z]+$",
        "x-kubernetes-validations": [{"rule": "self.size() < 64"}]}})));
    assert_eq!(
        diff(old, new),
        [
            format!("{CRD}, version v1, field spec.name: `pattern` added (\"^[a-z]+$\"), {tail}"),
            format!(
                "{CRD}, version v1, field spec.name: `x-kubernetes-validations` added ([{{\"rule\":\"self.size() < \
                 64\"}}]), {tail}"
            ),
        ]
    );
    // A subschema keyword appearing is unknown too, reported on the node that gained it.
    let old = one(obj(json!({"labels": {"type": "object"}})));
    let new = one(obj(json!({"labels": {"type": "object", "additionalProperties": {"type": "string"}}})));
    assert_eq!(
        diff(old, new),
        [format!(
            "{CRD}, version v1, field spec.labels: `additionalProperties` added ({{\"type\":\"string\"}}), {tail}"
        )]
    );
    let old = one(obj(json!({"x": {"x-kubernetes-preserve-unknown-fields": true}})));
    let new = one(obj(json!({"x": {}})));
    assert_eq!(rules(old, new), [Rule::UnknownChange]);
}

#[test]
fn titles_and_examples_are_warnings() {
    let old = one(obj(json!({"size": {"type": "integer", "title": "Size"}})));
    let new = one(obj(json!({"size": {"type": "integer", "title": "Replicas", "example": 3}})));
    let changes = compare_crds(&[old], &[new]);
    assert_eq!(
        changes.iter().map(|c| (c.rule, c.rule.class())).collect::<Vec<_>>(),
        [(Rule::Cosmetic, Class::Advisory); 2]
    );
    assert_eq!(
        changes[1].to_string(),
        format!(
            "{CRD}, version v1, field spec.size: `title` changed from \"Size\" to \"Replicas\"; harmless for stored \
             objects, but OLM v1 has no rule for it; keep `title` as it was, or expect OLM v1 to refuse the upgrade \
             as an unknown change (it ignores only descriptions)"
        )
    );
}

#[test]
fn paths_follow_items_maps_compositions_and_quote_odd_names() {
    let old = one(obj(json!({
        "items": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "choice": {"oneOf": [{"type": "object", "properties": {"a": {"type": "string"}}}]},
        "app.kubernetes.io/name": {"type": "string"}
    })));
    let new = one(obj(json!({
        "items": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "integer"}}}},
        "labels": {"type": "object", "additionalProperties": {"type": "integer"}},
        "choice": {"oneOf": [{"type": "object", "properties": {"a": {"type": "integer"}}}]},
        "app.kubernetes.io/name": {"type": "integer"}
    })));
    let paths: Vec<String> = compare_crds(&[old], &[new]).into_iter().filter_map(|c| c.path).collect();
    assert_eq!(
        paths,
        ["spec.choice.oneOf[0].a", "spec.items[*].name", "spec.labels.*", "spec[\"app.kubernetes.io/name\"]"]
    );
    // The schema root.
    let root = |t: &str| {
        json!({"metadata": {"name": "widgets.example.com"}, "spec": {"scope": "Namespaced", "versions": [
            {"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": t}}}]}})
    };
    assert_eq!(
        diff(root("object"), root("string"))[0],
        format!(
            "{CRD}, version v1, the schema root: type changed from object to string, so objects stored with the old \
             type no longer validate; keep the type; add a field with the new type instead (or serve a new API \
             version with a conversion webhook)"
        )
    );
}

#[test]
fn exactly_one_storage_version() {
    let spec = obj(json!({}));
    let two = crd("Namespaced", &[("v1alpha1", true, true, spec.clone()), ("v1", true, true, spec.clone())]);
    assert_eq!(
        crd::alone(&two).iter().map(Change::to_string).collect::<Vec<_>>(),
        [format!(
            "{CRD}: 2 versions are marked `storage: true` (v1alpha1, v1); mark exactly one version as the storage \
             version (`// +kubebuilder:storageversion` on its spec struct)"
        )]
    );
    let none = crd("Namespaced", &[("v1", true, false, spec.clone())]);
    assert!(crd::alone(&none)[0].to_string().contains("no version is marked `storage: true`"));
    assert!(crd::alone(&one(spec)).is_empty());
}

#[test]
fn served_versions_with_different_schemas_need_a_conversion_webhook() {
    let a = obj(json!({"size": {"type": "integer", "description": "Size."}}));
    let b = obj(json!({"replicas": {"type": "integer"}}));
    let mut two = crd("Namespaced", &[("v1alpha1", true, false, a.clone()), ("v1", true, true, b)]);
    assert_eq!(
        crd::alone(&two).iter().map(Change::to_string).collect::<Vec<_>>(),
        [format!(
            "{CRD}, version v1alpha1: served with a schema that differs from v1's (first at spec.replicas) while \
             spec.conversion.strategy is None, so the API server hands objects of one version out as the other \
             unchanged; add a conversion webhook (`kubesmith create webhook --conversion`), or keep the served \
             versions' schemas identical"
        )]
    );
    two["spec"]["conversion"] = json!({"strategy": "Webhook"});
    assert!(crd::alone(&two).is_empty());
    // Same schemas but for documentation, or the other version not served: no conversion needed.
    let a2 = obj(json!({"size": {"type": "integer", "description": "The size."}}));
    assert!(crd::alone(&crd("Namespaced", &[("v1alpha1", true, false, a.clone()), ("v1", true, true, a2)])).is_empty());
    let other = obj(json!({"replicas": {"type": "integer"}}));
    assert!(crd::alone(&crd("Namespaced", &[("v1alpha1", false, false, a), ("v1", true, true, other)])).is_empty());
}

fn csv(name: &str, version: &str, owned: &[&str]) -> Value {
    let owned: Vec<Value> =
        owned.iter().map(|v| json!({"name": "widgets.example.com", "version": v, "kind": "Widget"})).collect();
    json!({"kind": "ClusterServiceVersion", "metadata": {"name": name, "annotations": {}},
        "spec": {"version": version, "customresourcedefinitions": {"owned": owned}}})
}

fn release(csv: Value, crds: Vec<Value>) -> Release {
    let mut objects = vec![csv];
    objects.extend(crds);
    Release::from_objects("bundle", Some("widgets".into()), vec!["alpha".into()], &objects)
}

#[test]
fn the_csv_owns_exactly_the_served_versions() {
    let spec = obj(json!({}));
    let two = crd("Namespaced", &[("v1alpha1", false, false, spec.clone()), ("v1", true, true, spec.clone())]);
    assert!(alone(&release(csv("widgets.v0.2.0", "0.2.0", &["v1"]), vec![two.clone()])).is_empty());
    let found: Vec<String> = alone(&release(csv("widgets.v0.2.0", "0.2.0", &["v1alpha1"]), vec![two]))
        .iter()
        .map(Change::to_string)
        .collect();
    assert_eq!(
        found,
        [format!(
            "{CRD}: widgets.v0.2.0 does not own served version(s) v1 and widgets.v0.2.0 owns version(s) v1alpha1 that \
             the CRD does not serve (owned: v1alpha1; served: v1); list exactly the served versions in \
             spec.customresourcedefinitions.owned (`make bundle` writes them from the CRDs)"
        )]
    );
}

#[test]
fn an_upgrade_edge_must_lead_from_old_to_new() {
    let old = release(csv("widgets.v0.1.0", "0.1.0", &[]), vec![]);
    let mut new = release(csv("widgets.v0.2.0", "0.2.0", &[]), vec![]);
    assert_eq!(
        edge(&old, &new).map(|c| c.to_string()).as_deref(),
        Some(
            "no upgrade edge from widgets.v0.1.0 to widgets.v0.2.0: widgets.v0.2.0 replaces nothing, skips nothing, \
             has no olm.skipRange, so OLM never upgrades widgets.v0.1.0 to it; pass `--replaces widgets.v0.1.0` to \
             `make bundle` (or `--skips widgets.v0.1.0`, or a --skip-range holding its version)"
        )
    );
    new.replaces = Some("widgets.v0.1.0".into());
    assert!(edge(&old, &new).is_none());
    new.replaces = Some("widgets.v0.0.9".into());
    new.skips = vec!["widgets.v0.1.0".into()];
    assert!(edge(&old, &new).is_none());
    new.skips.clear();
    new.skip_range = Some(">=0.1.0 <0.2.0".into());
    assert!(edge(&old, &new).is_none());
    new.skip_range = Some(">=0.1.5 <0.2.0".into());
    let c = edge(&old, &new).unwrap();
    assert!(
        c.what.contains(
            "replaces widgets.v0.0.9, skips nothing, its olm.skipRange '>=0.1.5 <0.2.0' does not contain 0.1.0"
        ),
        "{c}"
    );
    // Not newer, or another package.
    new.replaces = Some("widgets.v0.1.0".into());
    new.version = Version::parse("0.1.0").ok();
    assert!(edge(&old, &new).unwrap().what.contains("is not newer than widgets.v0.1.0 (version 0.1.0)"));
    new.version = Version::parse("0.2.0").ok();
    new.package = Some("gadgets".into());
    assert!(edge(&old, &new).unwrap().what.contains("is in package gadgets but the previous release"));
}

#[test]
fn allow_breaking_turns_breaking_errors_into_warnings_only() {
    let old = release(csv("widgets.v0.1.0", "0.1.0", &["v1"]), vec![one(obj(json!({"size": {"type": "integer"}})))]);
    let new = release(csv("widgets.v0.2.0", "0.2.0", &["v1"]), vec![one(obj(json!({"size": {"type": "string"}})))]);
    let previous = Previous::Bundle(Box::new(old));
    let strict = check(&new, &previous, Options::default());
    assert_eq!(strict.iter().map(|f| f.level).collect::<Vec<_>>(), [Level::Error, Level::Error]);
    assert!(strict[0].message.starts_with("upgrade from widgets.v0.1.0: no upgrade edge"), "{}", strict[0].message);
    assert!(strict[1].message.starts_with(
        "upgrade from widgets.v0.1.0: CRD widgets.example.com, version v1, field spec.size: type changed"
    ));
    let allowed = check(&new, &previous, Options { allow_breaking: true });
    // The missing edge stays an error: no flag makes OLM upgrade along an edge that does not exist.
    assert_eq!(allowed.iter().map(|f| f.level).collect::<Vec<_>>(), [Level::Error, Level::Warning]);
    assert!(allowed[1].message.ends_with("(allowed by --allow-breaking)"));
}

fn catalog_bundle(name: &str, version: &str, objects: &[Value], gvk: bool) -> Value {
    let mut props = vec![json!({"type": "olm.package", "value": {"packageName": "widgets", "version": version}})];
    if gvk {
        props.push(json!({"type": "olm.gvk", "value": {"group": "example.com", "kind": "Widget", "version": "v1"}}));
    }
    for o in objects {
        let data = super::super::catalog::base64(&serde_json::to_vec(o).unwrap());
        props.push(json!({"type": "olm.bundle.object", "value": {"data": data}}));
    }
    json!({"schema": "olm.bundle", "package": "widgets", "name": name, "image": "", "properties": props})
}

fn catalog(entries: Value, bundles: Vec<Value>) -> Vec<Value> {
    let mut docs = vec![
        json!({"schema": "olm.package", "name": "widgets", "defaultChannel": "alpha"}),
        json!({"schema": "olm.channel", "package": "widgets", "name": "alpha", "entries": entries}),
    ];
    docs.extend(bundles);
    docs
}

#[test]
fn base64_round_trips() {
    for text in ["", "f", "fo", "foo", "foobar", "{\"kind\":\"CustomResourceDefinition\"}"] {
        let encoded = super::super::catalog::base64(text.as_bytes());
        assert_eq!(load::base64_decode(&encoded).unwrap(), text.as_bytes());
    }
    assert!(load::base64_decode("a*b").is_err());
}

#[test]
fn a_catalog_as_previous_compares_with_the_bundles_new_replaces_or_skips() {
    let v1 = one(obj(json!({"size": {"type": "integer"}})));
    let v2 = one(obj(json!({"size": {"type": "string"}})));
    let docs = catalog(
        json!([{"name": "widgets.v0.1.0"}, {"name": "widgets.v0.1.1", "replaces": "widgets.v0.1.0"}]),
        vec![
            catalog_bundle("widgets.v0.1.0", "0.1.0", std::slice::from_ref(&v1), true),
            catalog_bundle("widgets.v0.1.1", "0.1.1", std::slice::from_ref(&v1), true),
        ],
    );
    let previous = Previous::Catalog { shown: "catalog.yaml".into(), docs };
    let mut new = release(csv("widgets.v0.2.0", "0.2.0", &["v1"]), vec![v2]);
    new.replaces = Some("widgets.v0.1.1".into());
    new.skip_range = Some(">=0.1.0 <0.1.1".into());
    let found: Vec<String> = check(&new, &previous, Options::default()).into_iter().map(|f| f.message).collect();
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("upgrade from widgets.v0.1.0 (catalog.yaml): CRD widgets.example.com, version v1, field spec.size: type changed"), "{found:?}");
    assert!(found[1].starts_with("upgrade from widgets.v0.1.1 (catalog.yaml): CRD"), "{found:?}");

    // No entry reached: the missing edge, said as such.
    new.replaces = Some("widgets.v0.0.1".into());
    new.skip_range = None;
    let found: Vec<String> = check(&new, &previous, Options::default()).into_iter().map(|f| f.message).collect();
    assert_eq!(
        found,
        ["no bundle of package widgets in channel(s) alpha of catalog catalog.yaml is upgraded by widgets.v0.2.0 \
          (replaces widgets.v0.0.1; skips nothing; skipRange none), so there is no upgrade edge to check; name the \
          bundle it upgrades with `make bundle --replaces` (or --skips, --skip-range)"]
    );
}

#[test]
fn a_catalog_without_crd_objects_is_an_error_naming_what_is_missing() {
    let docs = catalog(json!([{"name": "widgets.v0.1.0"}]), vec![catalog_bundle("widgets.v0.1.0", "0.1.0", &[], true)]);
    let previous = Previous::Catalog { shown: "catalog.yaml".into(), docs };
    let mut new = release(csv("widgets.v0.2.0", "0.2.0", &["v1"]), vec![one(obj(json!({})))]);
    new.replaces = Some("widgets.v0.1.0".into());
    let found = check(&new, &previous, Options { allow_breaking: true });
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].level, Level::Error);
    assert_eq!(
        found[0].message,
        "upgrade from widgets.v0.1.0 (catalog.yaml): bundle widgets.v0.1.0 in catalog catalog.yaml carries no \
         CustomResourceDefinition: it provides example.com/v1 Widget (olm.gvk) but no olm.bundle.object property \
         holds the CRD; pass a catalog rendered with its bundle objects (`kubesmith make catalog` keeps them; `opm \
         render --migrate-level bundle-object-to-csv-metadata` drops them), the previous bundle folder, or a folder \
         of its CRDs"
    );
}

#[test]
fn catalog_validate_checks_every_edge_that_carries_crds() {
    let v1 = one(obj(json!({"size": {"type": "integer"}})));
    let v2 = one(obj(json!({"size": {"type": "integer", "maximum": 5}})));
    let docs = catalog(
        json!([
            {"name": "widgets.v0.1.0"},
            {"name": "widgets.v0.2.0", "replaces": "widgets.v0.1.0"},
            {"name": "widgets.v0.3.0", "replaces": "widgets.v0.2.0", "skipRange": ">=0.1.0 <0.3.0"}
        ]),
        vec![
            catalog_bundle("widgets.v0.1.0", "0.1.0", std::slice::from_ref(&v1), true),
            catalog_bundle("widgets.v0.2.0", "0.2.0", &[v1], true),
            catalog_bundle("widgets.v0.3.0", "0.3.0", &[v2], true),
        ],
    );
    let (packages, problems) = crate::olm::catalog::validate(&docs);
    assert!(problems.is_empty(), "{problems:?}");
    let found: Vec<String> = check_catalog(&packages, Options::default()).into_iter().map(|f| f.to_string()).collect();
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("Error: upgrade widgets.v0.1.0 -> widgets.v0.3.0: CRD widgets.example.com, version v1, field spec.size: maximum 5 added"), "{found:?}");
    assert!(found[1].starts_with("Error: upgrade widgets.v0.2.0 -> widgets.v0.3.0: "), "{found:?}");

    // Bundles that provide APIs without their CRDs: said once, as a warning.
    let docs = catalog(
        json!([{"name": "widgets.v0.1.0"}, {"name": "widgets.v0.2.0", "replaces": "widgets.v0.1.0"}]),
        vec![
            catalog_bundle("widgets.v0.1.0", "0.1.0", &[], true),
            catalog_bundle("widgets.v0.2.0", "0.2.0", &[], true),
        ],
    );
    let (packages, _) = crate::olm::catalog::validate(&docs);
    let found = check_catalog(&packages, Options::default());
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].level, Level::Warning);
    assert!(
        found[0].message.starts_with(
            "package widgets: CRD upgrade safety not checked on the edges of widgets.v0.1.0, widgets.v0.2.0"
        )
    );
}
