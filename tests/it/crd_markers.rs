//! kubebuilder markers applied on top of the derived CRD schemas: every marker's effect, the placement rules,
//! the wrong-type errors (with `file:line`), and the CRD-level markers of the spec struct.

use kubesmith::crd::{self, CrdError, CrdErrorKind, GeneratedCrd, SourceSet};
use serde_json::{Value, json};

fn gen_src(src: &str) -> Result<Vec<GeneratedCrd>, CrdError> {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("src")).expect("mkdir");
    std::fs::write(dir.path().join("src/lib.rs"), src).expect("write");
    crd::generate(&SourceSet::new(&dir.path().join("src"))).map_err(|e| e.first().clone())
}

fn crd_of(src: &str) -> Value {
    let crds = gen_src(src).unwrap_or_else(|e| panic!("generate failed: {e}"));
    assert_eq!(crds.len(), 1);
    crds[0].crd.clone()
}

fn spec(crd: &Value) -> Value {
    crd.pointer("/spec/versions/0/schema/openAPIV3Schema/properties/spec").expect("spec schema").clone()
}

/// A CRD whose spec struct body is `fields` and whose extra items are `extra`.
fn kind(fields: &str, extra: &str) -> String {
    format!(
        r#"
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "m.io", version = "v1", kind = "Thing", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct ThingSpec {{
{fields}
}}
{extra}
"#
    )
}

fn props(fields: &str, extra: &str) -> Value {
    spec(&crd_of(&kind(fields, extra)))["properties"].clone()
}

/// The error for a source, which must be a marker error at the first line containing `at`, mentioning every needle.
fn marker_error(src: &str, at: &str, needles: &[&str]) -> CrdError {
    let line =
        src.lines().position(|l| l.contains(at)).map(|i| i + 1).unwrap_or_else(|| panic!("{at:?} not in the source"));
    let e = gen_src(src).expect_err("expected an error");
    let msg = e.to_string();
    assert!(matches!(e.kind, CrdErrorKind::Marker(_)), "not a marker error: {msg}");
    assert_eq!(e.line, line, "wrong line in {msg}");
    assert!(msg.contains("lib.rs:"), "no file in {msg}");
    for n in needles {
        assert!(msg.contains(n), "{msg:?} does not mention {n:?}");
    }
    e
}

fn num(v: &Value) -> f64 {
    v.as_f64().expect("number")
}

// ---- validation markers ------------------------------------------------------------------------------

#[test]
fn numeric_markers() {
    let p = props(
        r#"
    // +kubebuilder:validation:Minimum=1
    // +kubebuilder:validation:Maximum=10
    // +kubebuilder:validation:ExclusiveMaximum=true
    // +kubebuilder:validation:MultipleOf=2
    pub replicas: i32,
    // +kubebuilder:validation:Minimum=-0.5
    // +kubebuilder:validation:ExclusiveMinimum
    pub ratio: Option<f64>,
"#,
        "",
    );
    let r = &p["replicas"];
    assert_eq!(num(&r["minimum"]), 1.0);
    assert_eq!(num(&r["maximum"]), 10.0);
    assert_eq!(r["exclusiveMaximum"], true);
    assert_eq!(num(&r["multipleOf"]), 2.0);
    assert_eq!(num(&p["ratio"]["minimum"]), -0.5);
    assert_eq!(p["ratio"]["exclusiveMinimum"], true);
    assert_eq!(p["ratio"]["nullable"], true);
}

#[test]
fn string_markers() {
    let p = props(
        r#"
    // +kubebuilder:validation:MinLength=1
    // +kubebuilder:validation:MaxLength=63
    // +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
    pub name: String,
    // +kubebuilder:validation:Enum=Always;Never;IfNotPresent
    pub policy: String,
    // +kubebuilder:validation:Format=date-time
    pub at: Option<String>,
    // +kubebuilder:validation:Enum=1;2;3
    pub level: i64,
"#,
        "",
    );
    assert_eq!(p["name"]["minLength"], 1);
    assert_eq!(p["name"]["maxLength"], 63);
    assert_eq!(p["name"]["pattern"], "^[a-z]([-a-z0-9]*[a-z0-9])?$");
    assert_eq!(p["policy"]["enum"], json!(["Always", "Never", "IfNotPresent"]));
    assert_eq!(p["at"]["format"], "date-time");
    assert_eq!(p["level"]["enum"], json!([1, 2, 3]));
}

#[test]
fn array_and_object_markers() {
    let p = props(
        r#"
    // +kubebuilder:validation:MinItems=1
    // +kubebuilder:validation:MaxItems=3
    pub hosts: Vec<String>,
    // +kubebuilder:validation:MinProperties=1
    // +kubebuilder:validation:MaxProperties=8
    pub labels: std::collections::BTreeMap<String, String>,
    // +kubebuilder:validation:UniqueItems=false
    pub other: Vec<String>,
"#,
        "",
    );
    assert_eq!(p["hosts"]["minItems"], 1);
    assert_eq!(p["hosts"]["maxItems"], 3);
    assert_eq!(p["labels"]["minProperties"], 1);
    assert_eq!(p["labels"]["maxProperties"], 8);
    assert!(p["other"].get("uniqueItems").is_none());
}

#[test]
fn items_markers_apply_to_the_array_items() {
    let p = props(
        r#"
    // +kubebuilder:validation:MaxItems=4
    // +kubebuilder:validation:items:MaxLength=10
    // +kubebuilder:validation:items:Pattern=`^[a-z]+$`
    // +kubebuilder:validation:items:Enum=a;b
    pub tags: Vec<String>,
    // +kubebuilder:validation:items:Minimum=1
    // +kubebuilder:validation:items:XValidation:rule="self % 2 == 0",message="even"
    pub ports: Vec<i32>,
"#,
        "",
    );
    assert_eq!(p["tags"]["maxItems"], 4);
    assert_eq!(p["tags"]["items"]["maxLength"], 10);
    assert_eq!(p["tags"]["items"]["pattern"], "^[a-z]+$");
    assert_eq!(p["tags"]["items"]["enum"], json!(["a", "b"]));
    assert_eq!(num(&p["ports"]["items"]["minimum"]), 1.0);
    assert_eq!(p["ports"]["items"]["x-kubernetes-validations"], json!([{"rule": "self % 2 == 0", "message": "even"}]));
}

#[test]
fn type_int_or_string_and_preserve_unknown_fields() {
    let p = props(
        r#"
    // +kubebuilder:validation:Type=string
    // +kubebuilder:validation:Format=byte
    pub data: String,
    // +kubebuilder:validation:XIntOrString
    // +kubebuilder:validation:Pattern=`^\d+%?$`
    pub max_unavailable: Option<String>,
    // +kubebuilder:pruning:PreserveUnknownFields
    pub raw: Option<serde_json::Value>,
    // +kubebuilder:validation:XPreserveUnknownFields
    // +kubebuilder:validation:Type=object
    pub config: serde_json::Value,
    // +kubebuilder:validation:XEmbeddedResource
    // +kubebuilder:pruning:PreserveUnknownFields
    pub template: serde_json::Value,
    // +kubebuilder:validation:Schemaless
    // +kubebuilder:validation:Type=object
    // +kubebuilder:pruning:PreserveUnknownFields
    /// Anything goes.
    pub free: Inner,
"#,
        r#"
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Inner { pub a: String }
"#,
    );
    assert_eq!(p["data"]["type"], "string");
    assert_eq!(p["data"]["format"], "byte");
    let mu = &p["maxUnavailable"];
    assert_eq!(mu["x-kubernetes-int-or-string"], true);
    assert!(mu.get("type").is_none(), "{mu}");
    assert_eq!(mu["anyOf"], json!([{"type": "integer"}, {"type": "string"}]));
    assert_eq!(mu["pattern"], "^\\d+%?$");
    assert_eq!(p["raw"], json!({"x-kubernetes-preserve-unknown-fields": true}));
    assert_eq!(p["config"], json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}));
    assert_eq!(p["template"]["x-kubernetes-embedded-resource"], true);
    assert_eq!(p["template"]["type"], "object");
    assert_eq!(
        p["free"],
        json!({"description": "Anything goes.", "type": "object", "x-kubernetes-preserve-unknown-fields": true})
    );
}

#[test]
fn metadata_markers_default_example_title_nullable_external_docs() {
    let p = props(
        r#"
    // +kubebuilder:default=3
    // +kubebuilder:example=5
    pub replicas: i32,
    // +kubebuilder:default={a,b}
    pub tags: Vec<String>,
    // +kubebuilder:default={}
    #[serde(default)]
    pub empty: Vec<String>,
    // +kubebuilder:default={size: 1, name: "x"}
    pub inner: Option<Inner>,
    // +kubebuilder:default="1"
    // +kubebuilder:title=Mode
    // +nullable
    pub mode: String,
    // +default="fromJson"
    // +kubebuilder:default=fromMarker
    pub both: String,
    // +default="1"
    pub json_string: String,
    // +default={"k": [1, 2]}
    pub json_default: Option<std::collections::BTreeMap<String, Vec<i32>>>,
    // +kubebuilder:externalDocs:url="https://example.com/docs",description="Docs"
    pub documented: String,
    // +kubebuilder:default=8080
    #[serde(default = "default_port")]
    pub port: u16,
"#,
        r#"
fn default_port() -> u16 { 80 }
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Inner { pub size: i32, pub name: String }
"#,
    );
    assert_eq!(p["replicas"]["default"], 3);
    assert_eq!(p["replicas"]["example"], 5);
    assert_eq!(p["tags"]["default"], json!(["a", "b"]));
    assert_eq!(p["empty"]["default"], json!([]));
    assert_eq!(p["inner"]["default"], json!({"size": 1, "name": "x"}));
    assert_eq!(p["mode"]["default"], "1");
    assert_eq!(p["mode"]["title"], "Mode");
    assert_eq!(p["mode"]["nullable"], true);
    assert_eq!(p["both"]["default"], "fromMarker");
    assert_eq!(p["jsonDefault"]["default"], json!({"k": [1, 2]}));
    assert_eq!(p["jsonString"]["default"], "1");
    assert_eq!(p["documented"]["externalDocs"], json!({"url": "https://example.com/docs", "description": "Docs"}));
    // The marker wins over serde's default.
    assert_eq!(p["port"]["default"], 8080);
}

#[test]
fn x_validation_rules_field_first_then_type() {
    let src = kind(
        r#"
    // +kubebuilder:validation:XValidation:rule="self.min <= self.max",message="min must not exceed max",reason=FieldValueInvalid,fieldPath=".min"
    // +kubebuilder:validation:XValidation:rule="self.max < 100",messageExpression="'max is ' + string(self.max)",optionalOldSelf=true
    pub range: Range,
"#,
        r#"
// +kubebuilder:validation:XValidation:rule="self.max >= 0"
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Range { pub min: i32, pub max: i32 }
"#,
    );
    let p = spec(&crd_of(&src))["properties"].clone();
    assert_eq!(
        p["range"]["x-kubernetes-validations"],
        json!([
            {"rule": "self.min <= self.max", "message": "min must not exceed max", "reason": "FieldValueInvalid", "fieldPath": ".min"},
            {"rule": "self.max < 100", "messageExpression": "'max is ' + string(self.max)", "optionalOldSelf": true},
            {"rule": "self.max >= 0"},
        ])
    );
}

#[test]
fn x_validation_reason_must_be_known() {
    let src = kind(
        r#"
    // +kubebuilder:validation:XValidation:rule="true",reason=Nope
    pub a: String,
"#,
        "",
    );
    marker_error(&src, "reason=Nope", &["reason", "FieldValueInvalid"]);
}

#[test]
fn type_markers_apply_wherever_the_type_is_used() {
    let p = props(
        r#"
    pub first: Port,
    pub second: Option<Port>,
    pub many: Vec<Port>,
    pub mode: Mode,
"#,
        r#"
// +kubebuilder:validation:Minimum=1
// +kubebuilder:validation:Maximum=65535
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Port(pub i32);

// +kubebuilder:validation:XValidation:rule="self != 'Off'",message="cannot be Off"
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub enum Mode { On, Off }
"#,
    );
    for p in [&p["first"], &p["second"], &p["many"]["items"]] {
        assert_eq!(num(&p["minimum"]), 1.0, "{p}");
        assert_eq!(num(&p["maximum"]), 65535.0, "{p}");
    }
    assert_eq!(p["second"]["nullable"], true);
    assert_eq!(p["mode"]["x-kubernetes-validations"], json!([{"rule": "self != 'Off'", "message": "cannot be Off"}]));
}

#[test]
fn spec_struct_validation_markers_apply_to_the_spec_schema() {
    let src = r#"
// +kubebuilder:validation:XValidation:rule="has(self.a) || has(self.b)",message="a or b"
// +kubebuilder:validation:MinProperties=1
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "m.io", version = "v1", kind = "Thing", namespaced)]
pub struct ThingSpec { pub a: Option<String>, pub b: Option<String> }
"#;
    let s = spec(&crd_of(src));
    assert_eq!(s["minProperties"], 1);
    assert_eq!(s["x-kubernetes-validations"], json!([{"rule": "has(self.a) || has(self.b)", "message": "a or b"}]));
}

// ---- optional / required -----------------------------------------------------------------------------

#[test]
fn optional_and_required_markers_change_the_parent_required_list() {
    let s = spec(&crd_of(&kind(
        r#"
    // +required
    pub a: Option<String>,
    // +k8s:required
    pub b: Option<String>,
    // +kubebuilder:validation:Required
    #[serde(default)]
    pub c: String,
    // +optional
    pub d: Option<String>,
    // +k8s:optional
    #[serde(default)]
    pub e: Vec<String>,
    // +kubebuilder:validation:Optional
    pub f: Option<i32>,
    pub g: String,
"#,
        "",
    )));
    assert_eq!(s["required"], json!(["a", "b", "c", "g"]));
}

#[test]
fn optional_on_a_field_rust_requires_is_an_error() {
    let src = kind(
        r#"
    // +optional
    pub name: String,
"#,
        "",
    );
    marker_error(&src, "+optional", &["field `name` is required by the Rust type", "Option<..>"]);
}

#[test]
fn optional_and_required_together_is_an_error() {
    let src = kind(
        r#"
    // +optional
    // +required
    pub name: Option<String>,
"#,
        "",
    );
    marker_error(&src, "+optional", &["both optional and required"]);
}

// ---- topology ----------------------------------------------------------------------------------------

#[test]
fn list_and_map_topology_markers() {
    let p = props(
        r#"
    // +listType=map
    // +listMapKey=name
    // +listMapKey=protocol
    pub ports: Vec<Port>,
    // +k8s:listType=set
    pub finalizers: Vec<String>,
    // +listType=atomic
    pub args: Option<Vec<String>>,
    // +mapType=atomic
    pub selector: std::collections::BTreeMap<String, String>,
    // +structType=atomic
    pub target: Port,
    pub conditions: Vec<Cond>,
"#,
        r#"
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Port { pub name: String, pub protocol: String }

// +listType=map
// +k8s:listMapKey=type
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Conds(pub Vec<Cond>);
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Cond { pub r#type: String }
"#,
    );
    assert_eq!(p["ports"]["x-kubernetes-list-type"], "map");
    assert_eq!(p["ports"]["x-kubernetes-list-map-keys"], json!(["name", "protocol"]));
    assert_eq!(p["finalizers"]["x-kubernetes-list-type"], "set");
    assert_eq!(p["args"]["x-kubernetes-list-type"], "atomic");
    assert_eq!(p["selector"]["x-kubernetes-map-type"], "atomic");
    assert_eq!(p["target"]["x-kubernetes-map-type"], "atomic");
    assert!(p["conditions"].get("x-kubernetes-list-type").is_none());
}

#[test]
fn list_map_key_without_list_type_map_is_an_error() {
    let src = kind(
        r#"
    // +listMapKey=name
    pub ports: Vec<Port>,
"#,
        "#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]\npub struct Port { pub name: String }",
    );
    marker_error(&src, "+listMapKey", &["must apply listMapKey to an associative-list", "+listType=map"]);
}

#[test]
fn list_type_map_needs_keys_that_are_item_fields() {
    let port = "#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]\npub struct Port { pub name: String }";
    let src = kind("    // +listType=map\n    pub ports: Vec<Port>,", port);
    marker_error(&src, "+listType", &["+listMapKey=<field>"]);
    let src = kind("    // +listType=map\n    // +listMapKey=port\n    pub ports: Vec<Port>,", port);
    marker_error(&src, "+listMapKey", &["listMapKey `port` is not a field of the list items", "name"]);
    let src = kind("    // +listType=map\n    // +listMapKey=name\n    pub names: Vec<String>,", "");
    marker_error(&src, "+listType", &["needs a list of objects"]);
}

// ---- wrong types ---------------------------------------------------------------------------------------

#[test]
fn markers_on_the_wrong_schema_type_are_errors_with_the_line() {
    let cases: &[(&str, &str, &[&str])] = &[
        ("// +kubebuilder:validation:MinItems=1", "pub name: String,", &["applies to arrays", "type string"]),
        ("// +kubebuilder:validation:Minimum=1", "pub name: String,", &["applies to numbers", "type string"]),
        ("// +kubebuilder:validation:MaxLength=3", "pub count: i32,", &["applies to strings", "type integer"]),
        ("// +kubebuilder:validation:Minimum=1.5", "pub count: i32,", &["integer, so the bound must be one"]),
        ("// +listType=set", "pub name: String,", &["applies to arrays (lists)"]),
        ("// +mapType=atomic", "pub names: Vec<String>,", &["applies to maps", "type array"]),
        ("// +kubebuilder:validation:MinProperties=1", "pub count: i64,", &["applies to objects"]),
        ("// +kubebuilder:validation:items:MaxLength=1", "pub name: String,", &["items markers apply to arrays"]),
        ("// +kubebuilder:validation:UniqueItems", "pub names: Vec<String>,", &["uniqueItems", "+listType=set"]),
        ("// +kubebuilder:default=abc", "pub count: i32,", &["does not fit the schema type integer"]),
        ("// +kubebuilder:default=1", "pub name: String,", &["quote it"]),
        ("// +kubebuilder:validation:Enum=1;2", "pub name: String,", &["enum value 1 does not fit"]),
        ("// +kubebuilder:validation:Type=text", "pub name: String,", &["unknown type `text`"]),
    ];
    for (marker, field, needles) in cases {
        let src = kind(&format!("    {marker}\n    {field}"), "");
        marker_error(&src, marker, needles);
    }
}

// ---- one-of and immutability -------------------------------------------------------------------------

#[test]
fn one_of_markers_match_controller_gen_rules() {
    let p = props(
        r#"
    pub all: All,
"#,
        r#"
// +kubebuilder:validation:AtLeastOneOf=e;f
// +kubebuilder:validation:ExactlyOneOf=c;d
// +kubebuilder:validation:AtMostOneOf=a;b
// +kubebuilder:validation:XValidation:rule="true",message="first"
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct All {
    pub a: Option<String>, pub b: Option<String>, pub c: Option<String>,
    pub d: Option<String>, pub e: Option<String>, pub f: Option<String>,
}
"#,
    );
    // Golden: controller-tools testdata.kubebuilder.io_oneofs.yaml (typeWithAllOneOf).
    assert_eq!(
        p["all"]["x-kubernetes-validations"],
        json!([
            {"message": "first", "rule": "true"},
            {"message": "at most one of the fields in [a b] may be set", "rule": "(has(self.a)?1:0)+(has(self.b)?1:0) <= 1"},
            {"message": "exactly one of the fields in [c d] must be set", "rule": "(has(self.c)?1:0)+(has(self.d)?1:0) == 1"},
            {"message": "at least one of the fields in [e f] must be set", "rule": "has(self.e)||has(self.f)"},
        ])
    );
}

#[test]
fn one_of_errors() {
    let extra = |marker: &str| {
        format!(
            "{marker}\n#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]\npub struct O {{ pub a: String, pub b: Option<String> }}"
        )
    };
    let src = kind("    pub o: O,", &extra("// +kubebuilder:validation:ExactlyOneOf=a;b"));
    marker_error(&src, "ExactlyOneOf", &["field a is part of OneOf constraint and cannot be marked as required"]);
    let src = kind("    pub o: O,", &extra("// +kubebuilder:validation:AtMostOneOf=b;c"));
    marker_error(&src, "AtMostOneOf", &["`c` is not a field of this type"]);
    let src = kind("    pub o: O,", &extra("// +kubebuilder:validation:AtLeastOneOf=b;x.y"));
    marker_error(&src, "AtLeastOneOf", &["cannot reference nested fields: x.y"]);
}

#[test]
fn immutable_fields_match_controller_gen() {
    let s = spec(&crd_of(&kind(
        r#"
    // +k8s:immutable
    pub required_string: String,
    // +k8s:immutable
    pub optional_string: Option<String>,
    // +k8s:immutable
    #[serde(default)]
    pub optional_slice: Vec<String>,
    pub mutable_string: String,
"#,
        "",
    )));
    let field_rule = json!([{"message": "field is immutable", "rule": "self == oldSelf"}]);
    for f in ["requiredString", "optionalString", "optionalSlice"] {
        assert_eq!(s["properties"][f]["x-kubernetes-validations"], field_rule, "{f}");
    }
    assert!(s["properties"]["mutableString"].get("x-kubernetes-validations").is_none());
    // Golden: controller-tools testdata.kubebuilder.io_immutabletypes.yaml (declaration order).
    assert_eq!(
        s["x-kubernetes-validations"],
        json!([
            {"message": "field optionalString is immutable once set", "rule": "!has(oldSelf.optionalString) || has(self.optionalString)"},
            {"message": "field optionalSlice is immutable once set", "rule": "!has(oldSelf.optionalSlice) || has(self.optionalSlice)"},
        ])
    );
}

// ---- placement -----------------------------------------------------------------------------------------

#[test]
fn markers_may_sit_between_attributes_and_above_doc_comments() {
    let p = props(
        r#"
    // +kubebuilder:validation:MaxLength=5
    /// The name.
    #[serde(default)]
    // +kubebuilder:validation:MinLength=2
    pub name: String,
"#,
        "",
    );
    assert_eq!(p["name"]["maxLength"], 5);
    assert_eq!(p["name"]["minLength"], 2);
    assert_eq!(p["name"]["description"], "The name.");
}

#[test]
fn markers_do_not_change_descriptions() {
    let with = props("    /// Replica count.\n    // +kubebuilder:validation:Minimum=0\n    pub replicas: i32,", "");
    let without = props("    /// Replica count.\n    pub replicas: i32,", "");
    assert_eq!(with["replicas"]["description"], without["replicas"]["description"]);
    let mut stripped = with["replicas"].clone();
    stripped.as_object_mut().expect("object").remove("minimum");
    assert_eq!(stripped, without["replicas"]);
}

#[test]
fn type_markers_may_be_separated_by_one_blank_line_like_controller_gen() {
    let src = r#"
// +kubebuilder:printcolumn:name="Name",type=string,JSONPath=".spec.name"

/// The thing.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "m.io", version = "v1", kind = "Thing", namespaced)]
pub struct ThingSpec { pub name: String }
"#;
    let crd = crd_of(src);
    assert_eq!(
        crd["spec"]["versions"][0]["additionalPrinterColumns"],
        json!([{"jsonPath": ".spec.name", "name": "Name", "type": "string"}])
    );
}

#[test]
fn doc_comment_markers_are_errors() {
    let src = kind("    /// The count.\n    /// +kubebuilder:validation:Minimum=0\n    pub count: i32,", "");
    marker_error(&src, "/// +kubebuilder", &["`///` doc comment", "write it as a `//` comment"]);
}

#[test]
fn misplaced_markers_are_errors() {
    // Separated from the field by a blank line.
    let src = kind("    // +kubebuilder:validation:Minimum=0\n\n    pub count: i32,", "");
    marker_error(&src, "Minimum", &["is not attached to a struct, enum or field"]);
    // Above a fn.
    let src = kind("    pub count: i32,", "// +kubebuilder:validation:Minimum=0\nfn helper() {}");
    marker_error(&src, "Minimum", &["cannot go on fn `helper`"]);
    // Above an enum variant.
    let src = kind(
        "    pub mode: Mode,",
        "#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]\npub enum Mode {\n    // +optional\n    On,\n}",
    );
    marker_error(&src, "+optional", &["cannot go on enum variant `On`"]);
    // A field marker on a type.
    let src = format!("// +optional\n{}", kind("    pub a: String,", "").trim_start());
    marker_error(&src, "+optional", &["is a field marker and cannot go on type `ThingSpec`"]);
    // A type marker on a field.
    let src = kind("    // +kubebuilder:validation:ExactlyOneOf=a;b\n    pub a: Option<String>,", "");
    marker_error(&src, "ExactlyOneOf", &["is a type marker and cannot go on field `a`"]);
    // A CRD marker on a struct that is not the spec.
    let src = kind(
        "    pub a: Other,",
        "// +kubebuilder:printcolumn:name=A,type=string,JSONPath=.spec.a\n#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]\npub struct Other { pub b: String }",
    );
    marker_error(&src, "printcolumn", &["only goes on the #[derive(CustomResource)] spec struct"]);
    // Module-level default optionality.
    let src = format!("// +kubebuilder:validation:Optional\n\n{}", kind("    pub a: String,", ""));
    marker_error(&src, "validation:Optional", &["module-wide default optionality is not supported"]);
    // On a flattened field.
    let src = kind(
        "    // +optional\n    #[serde(flatten)]\n    pub extra: Extra,",
        "#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]\npub struct Extra { pub b: Option<String> }",
    );
    marker_error(&src, "+optional", &["#[serde(flatten)] field `extra`"]);
    // On a type alias.
    let src = kind("    pub a: Alias,", "// +kubebuilder:validation:Minimum=1\npub type Alias = i32;");
    marker_error(&src, "Minimum", &["type alias `Alias`", "newtype struct"]);
}

#[test]
fn unknown_and_misspelled_markers_are_errors() {
    let src = kind("    // +kubebuilder:validation:Minimun=1\n    pub count: i32,", "");
    marker_error(&src, "Minimun", &["unknown marker", "did you mean `+kubebuilder:validation:Minimum`"]);
    let src = kind("    // +kubebuilder:validation:XValidation:rule=\"true\",mesage=\"x\"\n    pub count: i32,", "");
    marker_error(&src, "mesage", &["unknown argument `mesage`", "did you mean `message`"]);
}

// ---- CRD-level markers ---------------------------------------------------------------------------------

const CRD_LEVEL: &str = r#"
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=".spec.replicas",description="desired",priority=1
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=".status.phase",format=password
// +kubebuilder:resource:path=things,singular=thing,shortName=th;thg,categories=all;m,scope=Namespaced
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:selectablefield:JSONPath=".spec.replicas"
// +kubebuilder:metadata:annotations="api-approved.kubernetes.io=unapproved";"b=c",labels="team=x"
// +kubebuilder:deprecatedversion:warning="use v2"
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "m.io", version = "v1", kind = "Thing", namespaced, status = "ThingStatus", shortname = "th")]
#[kube(printcolumn(name = "Age", type_ = "date", json_path = ".metadata.creationTimestamp"))]
pub struct ThingSpec { pub replicas: i32 }
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct ThingStatus { pub replicas: i32, pub phase: String, pub selector: String }
"#;

#[test]
fn crd_level_markers_on_the_spec_struct() {
    let crd = crd_of(CRD_LEVEL);
    let v = &crd["spec"]["versions"][0];
    assert_eq!(
        v["additionalPrinterColumns"],
        json!([
            {"jsonPath": ".metadata.creationTimestamp", "name": "Age", "type": "date"},
            {"description": "desired", "jsonPath": ".spec.replicas", "name": "Replicas", "priority": 1, "type": "integer"},
            {"format": "password", "jsonPath": ".status.phase", "name": "Phase", "type": "string"},
        ])
    );
    assert_eq!(crd["spec"]["names"]["shortNames"], json!(["th", "thg"]));
    assert_eq!(crd["spec"]["names"]["categories"], json!(["all", "m"]));
    assert_eq!(crd["spec"]["names"]["plural"], "things");
    assert_eq!(
        v["subresources"],
        json!({"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas", "labelSelectorPath": ".status.selector"}})
    );
    assert_eq!(v["selectableFields"], json!([{"jsonPath": ".spec.replicas"}]));
    assert_eq!(crd["metadata"]["annotations"], json!({"api-approved.kubernetes.io": "unapproved", "b": "c"}));
    assert_eq!(crd["metadata"]["labels"], json!({"team": "x"}));
    assert_eq!(v["deprecated"], true);
    assert_eq!(v["deprecationWarning"], "use v2");
    assert_eq!(v["served"], true);
}

#[test]
fn crd_level_markers_contradicting_kube_attributes_are_errors() {
    let base = r#"
MARKER
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "m.io", version = "v1", kind = "Thing", namespaced)]
pub struct ThingSpec { pub replicas: i32 }
"#;
    let cases: &[(&str, &[&str])] = &[
        (
            "// +kubebuilder:resource:path=thingies",
            &["path=thingies contradicts the plural `things`", "plural = \"thingies\""],
        ),
        ("// +kubebuilder:resource:scope=Cluster", &["scope=Cluster contradicts", "remove `namespaced`"]),
        ("// +kubebuilder:resource:singular=thingy", &["singular = \"thingy\""]),
        ("// +kubebuilder:printcolumn:name=A,type=text,JSONPath=.spec.a", &["column type `text`"]),
        ("// +kubebuilder:metadata:annotations=novalue", &["not in 'xxx=xxx' format"]),
        ("// +kubebuilder:unservedversion", &["does not serve any version"]),
        ("// +kubebuilder:skipversion", &["cannot skip a version if there is only a single version"]),
    ];
    for (marker, needles) in cases {
        let src = base.replace("MARKER", marker);
        let e = gen_src(&src).expect_err(marker);
        let msg = e.to_string();
        for n in *needles {
            assert!(msg.contains(n), "{marker}: {msg:?} does not mention {n:?}");
        }
    }
    // A cluster-scoped kind agrees with scope=Cluster.
    let ok = base.replace("MARKER", "// +kubebuilder:resource:scope=Cluster,path=things").replace(", namespaced", "");
    assert_eq!(crd_of(&ok)["spec"]["scope"], "Cluster");
}

#[test]
fn the_status_subresource_without_a_status_type_adds_no_status_property() {
    let src = r#"
// +kubebuilder:subresource:status
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "m.io", version = "v1", kind = "Thing", namespaced)]
pub struct ThingSpec { pub replicas: i32 }
"#;
    let crd = crd_of(src);
    let v = &crd["spec"]["versions"][0];
    assert_eq!(v["subresources"], serde_json::json!({"status": {}}));
    assert!(v["schema"]["openAPIV3Schema"]["properties"].get("status").is_none(), "{v}");
}

const VERSIONS: &str = r#"
pub mod v1 {
    V1MARKER
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "m.io", version = "v1", kind = "Multi", namespaced)]
    pub struct MultiSpec { pub a: String }
}
pub mod v2 {
    // +kubebuilder:storageversion
    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
    #[kube(group = "m.io", version = "v2", kind = "Multi", namespaced)]
    pub struct MultiSpec { pub a: String }
}
"#;

#[test]
fn version_markers_skip_unserve_and_store() {
    let crds = gen_src(&VERSIONS.replace("V1MARKER", "// +kubebuilder:unservedversion")).expect("generate");
    let versions = &crds[0].crd["spec"]["versions"];
    let summary: Vec<(String, bool, bool)> = versions
        .as_array()
        .expect("versions")
        .iter()
        .map(|v| (v["name"].as_str().unwrap_or_default().to_string(), v["served"] == true, v["storage"] == true))
        .collect();
    assert!(summary.contains(&("v1".into(), false, false)), "{summary:?}");
    assert!(summary.contains(&("v2".into(), true, true)), "{summary:?}");

    let crds = gen_src(&VERSIONS.replace("V1MARKER", "// +kubebuilder:skipversion")).expect("generate");
    let names: Vec<&str> = crds[0].crd["spec"]["versions"]
        .as_array()
        .expect("versions")
        .iter()
        .filter_map(|v| v["name"].as_str())
        .collect();
    assert_eq!(names, ["v2"]);
}

#[test]
fn markers_leave_a_kind_without_markers_unchanged() {
    // Markers elsewhere in the crate do not touch a CRD that uses none of the marked types.
    let plain = kind("    pub a: String,", "");
    let with_other = kind(
        "    pub a: String,",
        "// +kubebuilder:validation:MinProperties=1\n#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]\npub struct Unused { pub b: String }",
    );
    assert_eq!(crd_of(&plain), crd_of(&with_other));
}

// ---- make manifests: size check and --max-description-length -------------------------------------------

const BIG: &str = r#"
use k8s_openapi::api::core::v1::{Container, PodTemplateSpec};
use kube::CustomResource;

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "samples.kube.rs", version = "v1", kind = "BigK8sTypes", namespaced)]
#[serde(rename_all = "camelCase")]
pub struct BigK8sTypesSpec {
    pub container: Container,
    pub template: Option<PodTemplateSpec>,
}
"#;

fn make_manifests(src: &str, extra: &[&str]) -> (tempfile::TempDir, std::process::Output) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("src")).expect("mkdir");
    std::fs::write(dir.path().join("src/lib.rs"), src).expect("write");
    let out = crate::support::ks(dir.path())
        .args(["make", "manifests", "--source", "src", "--crd-dir", "out"])
        .args(extra)
        .output()
        .expect("run kubesmith");
    (dir, out)
}

#[test]
fn make_manifests_warns_when_a_crd_is_too_big_for_kubectl_apply() {
    // corpus big-k8stypes: a spec embedding PodTemplateSpec (about 400 KB as JSON).
    let (_dir, out) = make_manifests(BIG, &[]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("warning: CRD bigk8stypeses.samples.kube.rs is 406055 bytes"), "{stdout}");
    assert!(
        stdout.contains("spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.template: 341 KB"),
        "{stdout}"
    );
    assert!(stdout.contains("kubectl apply --server-side"), "{stdout}");
    assert!(stdout.contains("--max-description-length"), "{stdout}");

    // Dropping the descriptions brings it under the limit.
    let (dir, out) = make_manifests(BIG, &["--max-description-length", "0"]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("warning: CRD"), "{stdout}");
    let yaml = std::fs::read_to_string(dir.path().join("out/samples.kube.rs_bigk8stypeses.yaml")).expect("crd file");
    assert!(!yaml.contains("description:"), "descriptions left");
}

#[test]
fn make_manifests_truncates_descriptions() {
    let src = kind(
        "    /// Kind is a string value representing the REST resource this object represents.\n    pub a: String,",
        "",
    );
    let (dir, out) = make_manifests(&src, &["--max-description-length", "50"]);
    assert!(out.status.success(), "{out:?}");
    let yaml = std::fs::read_to_string(dir.path().join("out/m.io_things.yaml")).expect("crd file");
    assert!(yaml.contains("description: Kind is a string value representing the REST...\n"), "{yaml}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("warning: CRD"));
}

// ---- make manifests: the root-schema markers ------------------------------------------------------------

const ROOT_MARKERS: &str = r#"
// +kubesmith:root:typeMeta:kind="Kind of the object."
// +kubesmith:root:required=metadata;status
// +kubesmith:root:optional=spec
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "m.io", version = "v1", kind = "Thing", namespaced, status = "ThingStatus")]
pub struct ThingSpec { pub replicas: i32 }
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct ThingStatus { pub phase: String }
"#;

#[test]
fn make_manifests_writes_the_root_the_root_markers_ask_for() {
    let (dir, out) = make_manifests(ROOT_MARKERS, &[]);
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(dir.path().join("out/m.io_things.yaml")).expect("crd file");
    let crd: Value = serde_yaml_ng::from_str(&text).expect("yaml");
    // controller-gen's root: TypeMeta's apiVersion (default text) and kind (the marker's), metadata, no title,
    // `required` sorted, spec optional.
    assert_eq!(
        crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"],
        json!({
            "description": "Auto-generated derived type for ThingSpec via `CustomResource`",
            "properties": {
                "apiVersion": {
                    "description": "APIVersion defines the versioned schema of this representation of an object.\nServers should convert recognized schemas to the latest internal value, and\nmay reject unrecognized values.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources",
                    "type": "string",
                },
                "kind": {"description": "Kind of the object.", "type": "string"},
                "metadata": {"type": "object"},
                "spec": {
                    "properties": {"replicas": {"format": "int32", "type": "integer"}},
                    "required": ["replicas"],
                    "type": "object",
                },
                "status": {
                    "nullable": true,
                    "properties": {"phase": {"type": "string"}},
                    "required": ["phase"],
                    "type": "object",
                },
            },
            "required": ["metadata", "status"],
            "type": "object",
        })
    );
}

#[test]
fn make_manifests_refuses_root_markers_naming_what_the_root_lacks() {
    let no_spec = ROOT_MARKERS
        .replace("namespaced, status", "namespaced, no_spec, status")
        .replace("required=metadata;status", "required=metadata;specs");
    let (dir, out) = make_manifests(&no_spec, &[]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "src/lib.rs:3:1: `+kubesmith:root:required`: `specs` is not a root property (the root has apiVersion, kind, \
             metadata, replicas, status)"
        ),
        "{stderr}"
    );
    assert!(!dir.path().join("out").exists(), "a failed run wrote files");
    let (_dir, out) = make_manifests(&no_spec.replace("required=metadata;specs", "required=metadata"), &[]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "src/lib.rs:4:1: `+kubesmith:root:optional`: `spec` is not in the root `required` ([metadata, replicas]) \
             (with #[kube(no_spec)] the root has no `spec`"
        ),
        "{stderr}"
    );
}

#[test]
fn markers_that_leave_no_valid_value_are_errors_at_the_last_marker() {
    let src = kind(
        r#"
    // +kubebuilder:validation:Enum=a;b
    // +kubebuilder:default=c
    pub mode: Option<String>,
"#,
        "",
    );
    marker_error(&src, "default=c", &["the default \"c\" is not one of the enum values (\"a\", \"b\")"]);
    let src = kind(
        r#"
    // +kubebuilder:validation:MinLength=1
    // +kubebuilder:validation:MaxLength=0
    pub name: Option<String>,
"#,
        "",
    );
    marker_error(&src, "MaxLength=0", &["MinLength=1 is greater than MaxLength=0", "no value is valid"]);
    let src = kind(
        r#"
    // +kubebuilder:validation:Maximum=3
    // +kubebuilder:validation:Minimum=5
    pub size: Option<i32>,
"#,
        "",
    );
    marker_error(&src, "Minimum=5", &["Minimum=5 is greater than Maximum=3"]);
    let src = kind(
        r#"
    // +kubebuilder:validation:MaxLength=3
    // +kubebuilder:default=toolong
    pub short: Option<String>,
"#,
        "",
    );
    marker_error(&src, "default=toolong", &["the default \"toolong\" has a length outside the bounds"]);
    let src = kind(
        r#"
    // +kubebuilder:validation:items:MinLength=4
    // +kubebuilder:validation:items:MaxLength=2
    pub tags: Vec<String>,
"#,
        "",
    );
    marker_error(&src, "items:MaxLength=2", &["MinLength=4 is greater than MaxLength=2"]);
    // What fits passes: a default among the enum values, within bounds, equal bounds.
    let p = props(
        r#"
    // +kubebuilder:validation:Enum=a;b
    // +kubebuilder:default=b
    pub mode: Option<String>,
    // +kubebuilder:validation:MinLength=2
    // +kubebuilder:validation:MaxLength=2
    // +kubebuilder:default=ab
    pub name: Option<String>,
"#,
        "",
    );
    assert_eq!(p["mode"]["default"], json!("b"));
    assert_eq!(p["name"]["maxLength"], json!(2));
}
