//! `make manifests` never skips a `#[derive(CustomResource)]` in silence: what kube-derive refuses at compile time
//! (or panics on in `crd()`), and derives kubesmith cannot reach, fail the command with exit code 1, `file:line`
//! and the fix, leaving the tree as it was; with the library, each problem is attributed to its kind.

use std::path::Path;

use kubesmith::crd::{self, K8sTable, SourceSet};

use crate::support::{ks, snapshot};

const HEAD: &str = "use kube::CustomResource;\nuse schemars::JsonSchema;\nuse serde::{Deserialize, Serialize};\n";

/// A crate whose `lib.rs` is `HEAD` + `body`, refused at `line` (of `lib.rs`) with every needle said there.
struct Case {
    name: &'static str,
    body: &'static str,
    line: usize,
    needles: &'static [&'static str],
}

const DERIVES: &str = "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]";

const CASES: &[Case] = &[
    Case {
        name: "union",
        body: "#[derive(CustomResource, Serialize, Deserialize, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\")]\nunion FooSpec {\n    int: u32,\n}\n",
        line: 6,
        needles: &["union `FooSpec` cannot #[derive(CustomResource)]", "struct or an enum"],
    },
    Case {
        name: "inside a fn body",
        body: "pub fn make() {\n    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n    #[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\")]\n    struct FooSpec {}\n    let _ = 1;\n}\n",
        line: 5,
        needles: &["not on a struct or enum at module level", "move the spec to module level"],
    },
    Case {
        name: "inside a macro",
        body: "macro_rules! kind {\n    () => {\n        #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n        #[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\")]\n        pub struct FooSpec {}\n    };\n}\nkind!();\n",
        line: 6,
        needles: &["not on a struct or enum at module level"],
    },
    Case {
        name: "under cfg_attr",
        body: "#[cfg_attr(feature = \"crd\", derive(CustomResource))]\n#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]\npub struct FooSpec {}\n",
        line: 4,
        needles: &["under #[cfg_attr(..)]", "derive it unconditionally"],
    },
    Case {
        name: "attr derive",
        body: "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\", attr = \"derive(PartialEq)\")]\npub struct FooSpec {}\n",
        line: 5,
        needles: &["`kube(attr = \"...\")` cannot set derives", "`kube(derive = \"...\")`"],
    },
    Case {
        name: "attr schemars",
        body: "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\")]\n#[kube(attr = \"schemars(deny_unknown_fields)\")]\npub struct FooSpec {}\n",
        line: 6,
        needles: &["cannot set `schemars` attributes"],
    },
    Case {
        name: "cel with a manual schema",
        body: "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\", schema = \"manual\", cel)]\npub struct FooSpec {}\n",
        line: 4,
        needles: &["#[kube(cel)] requires a derived schema", "`schema = \"manual\"`"],
    },
    Case {
        name: "cel with a disabled schema",
        body: "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\", schema = \"disabled\", cel)]\npub struct FooSpec {}\n",
        line: 4,
        needles: &["`schema = \"disabled\"`"],
    },
    Case {
        name: "validation without a derived schema",
        body: "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\", schema = \"disabled\", validation = \"self.x > 0\")]\npub struct FooSpec { x: i32 }\n",
        line: 4,
        needles: &["#[kube(validation = ..)] requires a derived schema", "`x_kube`"],
    },
    Case {
        name: "kind that is no identifier",
        body: "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"my-kind\")]\npub struct FooSpec {}\n",
        line: 4,
        needles: &["`kind = \"my-kind\"` is not a Rust identifier", "root = "],
    },
    Case {
        name: "kind equal to the struct",
        body: "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\")]\npub struct Foo {}\n",
        line: 6,
        needles: &["`kind = \"Foo\"` must not equal the struct name"],
    },
    Case {
        name: "duplicate key",
        body: "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\")]\n#[kube(group = \"h.io\")]\npub struct FooSpec {}\n",
        line: 6,
        needles: &["duplicate field `group`"],
    },
    Case {
        name: "unknown key",
        body: "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\", categories = \"all\")]\npub struct FooSpec {}\n",
        line: 5,
        needles: &["unknown field `categories`", "did you mean `category`?"],
    },
    Case {
        name: "no_spec on a tuple struct",
        body: "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\", no_spec)]\npub struct FooSpec(String);\n",
        line: 6,
        needles: &["`kube(no_spec)` requires a struct with named fields"],
    },
    Case {
        name: "no_spec with a status field",
        body: "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\", no_spec)]\npub struct FooSpec {\n    status: String,\n}\n",
        line: 7,
        needles: &["where `status` is already taken"],
    },
    Case {
        name: "printcolumn without json_path",
        body: "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\", printcolumn(name = \"X\", type_ = \"string\"))]\npub struct FooSpec {}\n",
        line: 5,
        needles: &["missing field `json_path`"],
    },
    Case {
        name: "scale JSON without specReplicasPath",
        body: "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\", status = \"FooStatus\", scale = r#\"{\"statusReplicasPath\": \".status.r\"}\"#)]\npub struct FooSpec {}\n#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]\npub struct FooStatus {}\n",
        line: 5,
        needles: &["invalid scale JSON: missing field `specReplicasPath`"],
    },
    Case {
        name: "enum spec mixing unit and data variants",
        body: "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\")]\npub enum FooSpec {\n    Off,\n    On { level: u8 },\n}\n",
        line: 7,
        needles: &["mixes unit variant `Off` with data variants", "`Off {}`"],
    },
    Case {
        name: "the only version not the storage version",
        body: "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\", storage = false)]\npub struct FooSpec {}\n",
        line: 6,
        needles: &[
            "the only version v1 of kind Foo in group g.io has #[kube(storage = false)]",
            "drop `storage = false`",
        ],
    },
    Case {
        name: "a unit struct field",
        body: "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\")]\npub struct FooSpec {\n    marker: Marker,\n}\n#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]\npub struct Marker;\n",
        line: 10,
        needles: &["unit struct `Marker`", "not a structural schema"],
    },
    Case {
        name: "a unit type field",
        body: "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\")]\npub struct FooSpec {\n    nothing: (),\n}\n",
        line: 7,
        needles: &["unit type `()`", "not a structural schema"],
    },
    Case {
        name: "documented serde_json::Value",
        body: "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\")]\npub struct FooSpec {\n    /// Anything.\n    pub config: serde_json::Value,\n}\n",
        line: 8,
        needles: &[
            "field `config` holds a serde_json::Value without x-kubernetes-preserve-unknown-fields",
            "kube-derive 5 emits `{\"description\": ..}` for it, a schema without `type`, which the API server rejects",
            "add #[schemars(extend(\"x-kubernetes-preserve-unknown-fields\" = true))] to the field",
        ],
    },
    Case {
        name: "list of values with the extension on the list",
        body: "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\")]\npub struct FooSpec {\n    #[schemars(extend(\"x-kubernetes-preserve-unknown-fields\" = true))]\n    pub entries: Option<Vec<serde_json::Value>>,\n}\n",
        line: 8,
        needles: &[
            "field `entries` holds a serde_json::Value (in `items`)",
            "`items.type: Required value: must not be empty for specified array items`",
            "add #[schemars(extend(\"items\" = {\"x-kubernetes-preserve-unknown-fields\": true}))] to the field",
        ],
    },
    Case {
        name: "map of lists of values",
        body: "use std::collections::BTreeMap;\n#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\")]\npub struct FooSpec {\n    pub groups: BTreeMap<String, Vec<serde_json::Value>>,\n}\n",
        line: 8,
        needles: &[
            "(in `additionalProperties.items`)",
            "kube-derive 5's crd() panics on it",
            "#[schemars(extend(\"additionalProperties\" = {\"type\": \"array\", \"items\": {\"x-kubernetes-preserve-unknown-fields\": true}}))]",
        ],
    },
    Case {
        name: "value in a struct inside a map's values",
        body: "use std::collections::BTreeMap;\n#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]\npub struct Entry {\n    pub raw: serde_json::Value,\n}\n#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\")]\npub struct FooSpec {\n    pub entries: BTreeMap<String, Entry>,\n}\n",
        line: 7,
        needles: &["field `raw` holds a serde_json::Value", "crd() panics on it"],
    },
    Case {
        name: "value in a newtype variant",
        body: "#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]\npub enum Source {\n    Inline(serde_json::Value),\n    Named { name: String },\n}\n#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\")]\npub struct FooSpec {\n    pub source: Source,\n}\n",
        line: 6,
        needles: &[
            "the field of variant `Inline` holds a serde_json::Value",
            "to the variant's field (`Inline(#[schemars(..)] ..)`",
        ],
    },
    Case {
        name: "internally tagged enum of two variants",
        body: "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\")]\n#[serde(tag = \"type\")]\npub enum FooSpec {\n    A { x: u8 },\n    B { y: u8 },\n}\n",
        line: 7,
        needles: &[
            "internally tagged enum `FooSpec` (tag = \"type\")",
            "kube-derive 5's crd() panics on it",
            "`Property \"..\" has the schema",
        ],
    },
    Case {
        name: "untagged enum of a struct and a string",
        body: "#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[serde(untagged)]\npub enum Target {\n    Pod { name: String },\n    Name(String),\n}\n#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\")]\npub struct FooSpec {\n    pub target: Target,\n}\n",
        line: 8,
        needles: &[
            "untagged enum `Target` with non-struct variant `Name`",
            "the API server accepts the CRD but refuses every `Name` value",
        ],
    },
    Case {
        name: "Self in a serde default path",
        body: "#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\")]\npub struct FooSpec {\n    #[serde(default = \"Self::on\")]\n    on: bool,\n}\nimpl FooSpec {\n    fn on() -> bool {\n        true\n    }\n}\n",
        line: 7,
        needles: &["`Self::on` does not compile there", "`TypeName::on`"],
    },
];

fn project(lib: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("src")).expect("mkdir");
    std::fs::write(dir.path().join("src/lib.rs"), lib).expect("write");
    dir
}

/// Runs `make manifests` on `lib`, which must fail; returns what it said.
fn refused(lib: &str) -> String {
    let dir = project(lib);
    let before = snapshot(dir.path());
    let out = ks(dir.path()).args(["make", "manifests", "--crd-dir", "config/crd"]).output().expect("kubesmith runs");
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert_eq!(snapshot(dir.path()), before, "the tree changed: {said}");
    assert!(!said.contains("up to date"), "{said}");
    said
}

#[test]
fn crd_refusals_of_what_kube_derive_refuses_name_file_line_and_fix() {
    let mut problems = Vec::new();
    for case in CASES {
        let said = refused(&format!("{HEAD}{}", case.body));
        let at = format!("src/lib.rs:{}:", case.line);
        let line = said.lines().find(|l| l.contains(&at));
        match line {
            Some(l) if case.needles.iter().all(|n| l.contains(n)) => {}
            _ => problems.push(format!("{}: want {at} saying {:?}; got {said}", case.name, case.needles)),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// kube-derive 5 builds a tagged enum with one variant (the tag property is defined once): kubesmith leaves its
/// schema to the compiled fallback rather than refuse it, and `--no-compile` says so.
#[test]
fn crd_a_tagged_enum_of_one_variant_is_compiled_not_refused() {
    let lib = format!(
        "{HEAD}{DERIVES}\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\")]\n#[serde(tag = \"type\")]\n\
         pub enum FooSpec {{\n    Only {{ x: u8 }},\n}}\n"
    );
    let dir = project(&lib);
    let before = snapshot(dir.path());
    let out = ks(dir.path())
        .args(["make", "manifests", "--crd-dir", "config/crd", "--no-compile"])
        .output()
        .expect("kubesmith runs");
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert_eq!(snapshot(dir.path()), before);
    assert!(
        said.contains(
            "src/lib.rs:7:10: internally tagged enum `FooSpec` (tag = \"type\") with one variant needs compiling"
        ),
        "{said}"
    );
    assert!(!said.contains("panics"), "{said}");
}

#[test]
fn crd_missing_group_version_and_kind_are_all_reported_at_the_derive() {
    let said = refused(&format!("{HEAD}{DERIVES}\npub struct FooSpec {{}}\n"));
    for key in ["group", "version", "kind"] {
        assert!(said.contains(&format!("src/lib.rs:4:10: missing field `{key}`")), "{said}");
    }
}

#[test]
fn crd_a_refused_kind_fails_the_run_without_writing_the_good_ones() {
    let lib = format!(
        "{HEAD}{DERIVES}\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Good\")]\npub struct GoodSpec {{ a: u8 }}\n\
         #[derive(CustomResource, Serialize, Deserialize, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Bad\")]\n\
         pub union BadSpec {{ a: u8 }}\n"
    );
    let said = refused(&lib);
    assert!(said.contains("src/lib.rs:9:11: union `BadSpec`"), "{said}");
}

/// With the library, each problem names the CRD it keeps from being generated, and the other kinds are
/// generated (what `make manifests --keep-going` reports kind by kind).
#[test]
fn crd_problems_of_unbuildable_derives_are_attributed_to_their_kind() {
    let lib = format!(
        "{HEAD}{DERIVES}\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Good\")]\npub struct GoodSpec {{ a: u8 }}\n\
         #[derive(CustomResource, Serialize, Deserialize, JsonSchema)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Union\")]\n\
         pub union UnionSpec {{ a: u8 }}\n\
         pub fn hidden() {{\n    {DERIVES}\n    #[kube(group = \"g.io\", version = \"v1\", kind = \"Hidden\")]\n    struct HiddenSpec {{}}\n    let _ = 1;\n}}\n\
         {DERIVES}\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Mixed\")]\npub enum MixedSpec {{ Off, On {{ a: u8 }} }}\n\
         {DERIVES}\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Tagged\")]\npub enum TaggedSpec {{ One {{ a: u8 }}, Two(String) }}\n"
    );
    let dir = project(&lib);
    let generation =
        crd::generate_all(&SourceSet::new(&dir.path().join("src")), K8sTable::default_table()).expect("a crate");
    let names: Vec<&str> = generation.crds.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["goods.g.io", "taggeds.g.io"]);
    let tagged = &generation.crds[1].crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
    assert_eq!(tagged["oneOf"], serde_json::json!([{"required": ["One"]}, {"required": ["Two"]}]), "{tagged}");
    let mut attributed: Vec<(Option<&str>, usize)> =
        generation.problems.iter().map(|p| (p.crd.as_deref(), p.error.line)).collect();
    attributed.sort();
    assert_eq!(attributed, [(Some("hiddens.g.io"), 11), (Some("mixeds.g.io"), 18), (Some("unions.g.io"), 9)]);
    assert!(generation.problems.iter().all(|p| p.error.path == Path::new(&dir.path().join("src/lib.rs"))));
}
