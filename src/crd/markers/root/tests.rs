//! Tests of the root-schema markers on kube-derive's root schemas.

use std::path::Path;

use serde_json::{Value, json};

use super::*;

/// The markers of `lines` (`// <line>`), the first at line 10 of `api/v1.rs`.
fn markers(lines: &[&str]) -> Vec<Marker> {
    let text = format!("{}{}", "\n".repeat(9), lines.iter().map(|l| format!("// {l}\n")).collect::<String>());
    let found = crate::markers::scan(Path::new("api/v1.rs"), &text).unwrap();
    assert_eq!(found.len(), lines.len());
    found
}

/// kube-derive's root for a kind with a status.
fn kube_root() -> Value {
    json!({
        "description": "Auto-generated derived type for FooSpec via `CustomResource`",
        "properties": {
            "spec": {"type": "object", "properties": {"size": {"type": "integer"}}, "required": ["size"]},
            "status": {"type": "object", "nullable": true},
        },
        "required": ["spec"],
        "title": "Foo",
        "type": "object",
    })
}

fn applied(lines: &[&str], mut root: Value) -> Result<Value, CrdError> {
    apply_root(&markers(lines), &mut root).map(|()| root)
}

fn error(lines: &[&str], root: Value) -> String {
    let e = applied(lines, root).unwrap_err();
    assert_eq!(e.path, Path::new("api/v1.rs"));
    format!("{}:{}: {}", e.path.display(), e.line, e.kind)
}

#[test]
fn type_meta_adds_the_type_meta_properties_and_drops_the_title() {
    let root = applied(&["+kubesmith:root:typeMeta"], kube_root()).unwrap();
    let mut want = kube_root();
    want.as_object_mut().unwrap().remove("title");
    want["properties"]["apiVersion"] = json!({"description": API_VERSION_DOC, "type": "string"});
    want["properties"]["kind"] = json!({"description": KIND_DOC, "type": "string"});
    want["properties"]["metadata"] = json!({"type": "object"});
    assert_eq!(root, want);
    let keys: Vec<&String> = root["properties"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["apiVersion", "kind", "metadata", "spec", "status"]);
    assert!(API_VERSION_DOC.starts_with("APIVersion defines the versioned schema of this representation"));
    assert!(KIND_DOC.ends_with("api-conventions.md#types-kinds"));
}

#[test]
fn type_meta_takes_its_own_descriptions_and_empty_means_none() {
    let root = applied(&[r#"+kubesmith:root:typeMeta:apiVersion="API version.",kind="""#], kube_root()).unwrap();
    assert_eq!(root["properties"]["apiVersion"], json!({"description": "API version.", "type": "string"}));
    assert_eq!(root["properties"]["kind"], json!({"type": "string"}));
    assert_eq!(root["properties"]["metadata"], json!({"type": "object"}));
}

#[test]
fn required_adds_sorted_names_after_type_meta() {
    // typeMeta applies first whatever the marker order, so `metadata` exists for `required`.
    let root = applied(
        &["+kubesmith:root:required=status;metadata", "+kubesmith:root:typeMeta", "+kubesmith:root:required=kind"],
        kube_root(),
    )
    .unwrap();
    assert_eq!(root["required"], json!(["kind", "metadata", "spec", "status"]));
}

#[test]
fn optional_removes_names_after_required() {
    let root = applied(&["+kubesmith:root:optional=spec"], kube_root()).unwrap();
    assert!(root.get("required").is_none(), "{root}");
    assert_eq!(root["title"], "Foo");
    let root = applied(
        &["+kubesmith:root:optional=spec", "+kubesmith:root:typeMeta", "+kubesmith:root:required=metadata;status"],
        kube_root(),
    )
    .unwrap();
    assert_eq!(root["required"], json!(["metadata", "status"]));
}

#[test]
fn no_spec_roots_take_the_spec_fields() {
    let no_spec = json!({
        "properties": {"replicas": {"type": "integer"}, "name": {"type": "string"}},
        "required": ["replicas"],
        "title": "Foo",
        "type": "object",
    });
    let root =
        applied(&["+kubesmith:root:required=name", "+kubesmith:root:optional=replicas"], no_spec.clone()).unwrap();
    assert_eq!(root["required"], json!(["name"]));
    assert_eq!(
        error(&["+kubesmith:root:optional=spec"], no_spec),
        "api/v1.rs:10: `+kubesmith:root:optional`: `spec` is not in the root `required` ([replicas]) (with \
         #[kube(no_spec)] the root has no `spec`: the spec's fields sit at the root); drop it from the list"
    );
}

#[test]
fn errors_name_the_marker_line() {
    assert_eq!(
        error(&["+kubesmith:root:typeMeta", "+kubesmith:root:required=spek"], kube_root()),
        "api/v1.rs:11: `+kubesmith:root:required`: `spek` is not a root property (the root has apiVersion, kind, \
         metadata, spec, status)"
    );
    assert_eq!(
        error(&["+kubesmith:root:required=metadata"], kube_root()),
        "api/v1.rs:10: `+kubesmith:root:required`: `metadata` is not a root property (the root has spec, status); \
         add `+kubesmith:root:typeMeta` for apiVersion, kind and metadata"
    );
    assert_eq!(
        error(&["+kubesmith:root:required=spec"], kube_root()),
        "api/v1.rs:10: `+kubesmith:root:required`: `spec` is already in the root `required` (kube-derive's root \
         already requires it); drop it"
    );
    assert_eq!(
        error(&["+kubesmith:root:required=status", "+kubesmith:root:required=status"], kube_root()),
        "api/v1.rs:11: `+kubesmith:root:required`: `status` is already in the root `required` (it is named twice); \
         drop it"
    );
    assert_eq!(
        error(&["+kubesmith:root:optional=status"], kube_root()),
        "api/v1.rs:10: `+kubesmith:root:optional`: `status` is not in the root `required` ([spec]); drop it from \
         the list"
    );
    assert_eq!(
        error(&["+kubesmith:root:optional=spec;spec"], kube_root()),
        "api/v1.rs:10: `+kubesmith:root:optional`: `spec` is not in the root `required` ([]); drop it from the list"
    );
    assert_eq!(
        error(&["+kubesmith:root:typeMeta", "+kubesmith:root:typeMeta:kind=\"\""], kube_root()),
        "api/v1.rs:11: `+kubesmith:root:typeMeta`: given twice (first at line 10); keep one"
    );
}

#[test]
fn a_version_without_schema_refuses_them() {
    let ms = markers(&["+kubesmith:root:optional=spec"]);
    let mut disabled = json!({});
    let e = apply_to_version_schema(&ms, &mut disabled).unwrap_err();
    assert_eq!(e.line, 10);
    assert!(e.kind.to_string().contains("#[kube(schema = \"disabled\")]"), "{e}");
    let mut schema = json!({ "openAPIV3Schema": kube_root() });
    apply_to_version_schema(&ms, &mut schema).unwrap();
    assert!(schema["openAPIV3Schema"].get("required").is_none());
    // Other CRD-level markers leave the schema alone.
    let other = markers(&["+kubebuilder:printcolumn:name=Age,type=date,JSONPath=.metadata.creationTimestamp"]);
    apply_to_version_schema(&other, &mut disabled).unwrap();
    assert_eq!(disabled, json!({}));
}

#[test]
fn properties_adds_root_properties_beside_spec() {
    let mut root = kube_root();
    let line =
        r#"+kubesmith:root:properties={"operation": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}"#;
    apply_root(&markers(&[line]), &mut root).unwrap();
    assert_eq!(
        root["properties"]["operation"],
        json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})
    );
    for (line, says) in [
        (
            r#"+kubesmith:root:properties={"spec": {"type": "object"}}"#,
            "api/v1.rs:10:1: `+kubesmith:root:properties`: `spec` is a root property already",
        ),
        (r#"+kubesmith:root:properties=[1]"#, "api/v1.rs:10:1: `+kubesmith:root:properties`: takes a JSON object"),
        (r#"+kubesmith:root:properties={"a": 1}"#, "api/v1.rs:10:1: `+kubesmith:root:properties`: takes a JSON object"),
        (r#"+kubesmith:root:properties={oops"#, "api/v1.rs:10:1: `+kubesmith:root:properties`: `{oops` is not JSON"),
    ] {
        let e = apply_root(&markers(&[line]), &mut root).unwrap_err().to_string();
        assert!(e.starts_with(says), "{e}");
    }
}

#[test]
fn nullable_adds_nullable_to_named_root_properties() {
    let mut root = kube_root();
    assert_eq!(root["properties"]["spec"].get("nullable"), None);
    apply_root(&markers(&["+kubesmith:root:nullable=spec"]), &mut root).unwrap();
    assert_eq!(root["properties"]["spec"]["nullable"], json!(true));
    for (line, says) in [
        (
            "+kubesmith:root:nullable=spec",
            "api/v1.rs:10:1: `+kubesmith:root:nullable`: the root property `spec` is nullable already",
        ),
        (
            "+kubesmith:root:nullable=metadata",
            "api/v1.rs:10:1: `+kubesmith:root:nullable`: `metadata` is not a root property",
        ),
    ] {
        let e = apply_root(&markers(&[line]), &mut root).unwrap_err().to_string();
        assert!(e.starts_with(says), "{e}");
    }
}

#[test]
fn not_nullable_drops_nullable_from_named_root_properties() {
    let mut root = kube_root();
    assert_eq!(root["properties"]["status"]["nullable"], json!(true));
    apply_root(&markers(&["+kubesmith:root:notNullable=status"]), &mut root).unwrap();
    assert_eq!(root["properties"]["status"].get("nullable"), None);
    for (line, says) in [
        (
            "+kubesmith:root:notNullable=spec",
            "api/v1.rs:10:1: `+kubesmith:root:notNullable`: the root property `spec` is not nullable",
        ),
        (
            "+kubesmith:root:notNullable=metadata",
            "api/v1.rs:10:1: `+kubesmith:root:notNullable`: `metadata` is not a root property",
        ),
    ] {
        let e = apply_root(&markers(&[line]), &mut root).unwrap_err().to_string();
        assert!(e.starts_with(says), "{e}");
    }
}
