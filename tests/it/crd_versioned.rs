//! A crate in the shape of stackable's operators (`tests/fixtures/stackable-versioned`): its kind declared once in a
//! `#[versioned(..)] mod versioned`, fields added, renamed, retyped and deprecated per version, a field typed with
//! the enum strum's `EnumDiscriminants` derives, a `merged_crd(..)` call naming the storage version, defaults a
//! crate predicate fn (`skip_serializing_if = "is_default"`) leaves out. `make manifests
//! --no-compile` expands the macro as it would and reads every version without compiling.

use std::path::Path;

use serde_json::Value;

use crate::adopt::copy_dir;
use crate::support::ks;

fn crd(dir: &Path) -> Value {
    let out = ks(dir).args(["make", "manifests", "--crd-dir", "crds", "--no-compile"]).output().expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(dir.join("crds/orchard.example.org_orchards.yaml")).expect("the CRD");
    serde_yaml_ng::from_str(&text).expect("yaml")
}

fn version<'a>(crd: &'a Value, name: &str) -> &'a Value {
    let versions = crd["spec"]["versions"].as_array().expect("versions");
    versions.iter().find(|v| v["name"] == name).unwrap_or_else(|| panic!("no version {name}"))
}

fn spec_fields(v: &Value) -> Vec<&str> {
    let props = v["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"].as_object().expect("spec");
    props.keys().map(String::as_str).collect()
}

#[test]
fn make_manifests_reads_each_version_stackable_versioned_writes_without_compiling() {
    let parent = tempfile::tempdir().expect("tempdir");
    let dir = parent.path().join("orchard");
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/stackable-versioned"), &dir);
    let crd = crd(&dir);
    assert_eq!(crd["spec"]["names"]["shortNames"], serde_json::json!(["orc"]));
    assert_eq!(crd["spec"]["scope"], "Namespaced");
    // `merged_crd(OrchardVersion::V1Beta1)` stores v1beta1, listed first as merge_crds lists it.
    let stored: Vec<(&str, bool)> = crd["spec"]["versions"]
        .as_array()
        .expect("versions")
        .iter()
        .map(|v| (v["name"].as_str().unwrap_or_default(), v["storage"].as_bool().unwrap_or_default()))
        .collect();
    assert_eq!(stored, [("v1beta1", true), ("v1", false), ("v1alpha1", false)]);
    // Before v1 the field had its `from_name` and `from_type`; `rows` is there from v1beta1; the deprecated field
    // has its prefix from the version deprecating it.
    let (alpha, beta, v1) = (version(&crd, "v1alpha1"), version(&crd, "v1beta1"), version(&crd, "v1"));
    assert_eq!(
        spec_fields(alpha),
        ["ladders", "organic", "packing", "picker", "pickers", "soil", "treeCount", "watering"]
    );
    assert_eq!(
        spec_fields(beta),
        ["ladders", "organic", "packing", "picker", "pickers", "rows", "soil", "treeCount", "watering"]
    );
    assert_eq!(
        spec_fields(v1),
        ["deprecatedPicker", "ladders", "organic", "packing", "pickers", "rows", "soil", "trees", "watering"]
    );
    let spec = |v: &Value| v["schema"]["openAPIV3Schema"]["properties"]["spec"].clone();
    assert_eq!(spec(alpha)["properties"]["treeCount"]["format"], "uint16");
    assert_eq!(spec(v1)["properties"]["trees"]["format"], "uint32");
    assert_eq!(spec(beta)["properties"]["rows"]["default"], 12);
    // A renamed variant, and the version's doc put before the type's own.
    assert_eq!(spec(alpha)["properties"]["soil"]["enum"], serde_json::json!(["loam", "experimentalClay"]));
    assert_eq!(spec(v1)["properties"]["soil"]["enum"], serde_json::json!(["loam", "clay"]));
    assert_eq!(spec(beta)["description"], "The beta: rows are counted.\nAn orchard of fruit trees.");
    assert_eq!(spec(v1)["description"], "An orchard of fruit trees.");
    // `#[versioned(crd(doc = ..))]` is the root's description; the status the crd arguments name is the status.
    assert_eq!(v1["schema"]["openAPIV3Schema"]["description"], "An orchard the operator tends.");
    assert!(v1["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"]["fruiting"].is_object());
    assert_eq!(v1["subresources"]["status"], serde_json::json!({}));
    // `skip_serializing_if = "is_default"`, the crate's fn comparing with `T::default()` unless the `examples`
    // feature (off by default) is on: a default equal to the type's is left out, another kept.
    assert_eq!(spec(v1)["properties"]["watering"]["default"], 90);
    assert_eq!(spec(v1)["properties"]["organic"].get("default"), None);
    // a list and an `Option` compare as serde writes them: `[]` is the default, `Some(2)` is not
    assert_eq!(spec(v1)["properties"]["pickers"].get("default"), None);
    assert_eq!(spec(v1)["properties"]["ladders"]["default"], 2);
    // strum's discriminants enum: kebab-case names, the variant's own rename passed through.
    assert_eq!(spec(v1)["properties"]["packing"]["enum"], serde_json::json!(["apple-kilos", "pear-box"]));
}

#[test]
fn without_a_merged_crd_call_the_newest_version_is_stored() {
    let parent = tempfile::tempdir().expect("tempdir");
    let dir = parent.path().join("orchard");
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/stackable-versioned"), &dir);
    let lib = dir.join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).expect("lib.rs");
    let cut = text.find("/// The merged CRD").expect("the install fn");
    std::fs::write(&lib, &text[..cut]).expect("write");
    let crd = crd(&dir);
    assert_eq!(crd["spec"]["versions"][0]["name"], "v1");
    assert_eq!(crd["spec"]["versions"][0]["storage"], true);
}
