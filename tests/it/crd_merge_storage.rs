//! A crate in the shape kube-rs documents for several versions of a kind (`tests/fixtures/merge-storage`: the
//! versions in `src/api/`, a `crdgen` binary calling `merge_crds(.., STORAGE_VERSION)`) gets the storage version
//! that call names from `make manifests`, in `merge_crds`' version order; a call disagreeing with another call or
//! with a marker, or naming its version at run time, fails the run naming the places, leaving the tree as it was.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{ks, snapshot};

const FILES: [&str; 6] =
    ["Cargo.toml", "src/lib.rs", "src/api.rs", "src/api/v1.rs", "src/api/v1alpha1.rs", "src/bin/crdgen.rs"];

/// The fixture in a temporary folder.
fn fixture() -> (tempfile::TempDir, PathBuf) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/merge-storage");
    let parent = tempfile::tempdir().expect("tempdir");
    let dir = parent.path().join("harbor-operator");
    for rel in FILES {
        let to = dir.join(rel);
        std::fs::create_dir_all(to.parent().expect("folder")).expect("mkdir");
        std::fs::copy(from.join(rel), to).expect("copy");
    }
    (parent, dir)
}

fn edit(dir: &Path, rel: &str, from: &str, to: &str) {
    let path = dir.join(rel);
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains(from), "{rel} has no {from:?}");
    std::fs::write(path, text.replacen(from, to, 1)).expect("write");
}

/// Runs `make manifests`, which must fail without touching the tree; returns what it said.
fn refused(dir: &Path) -> String {
    let before = snapshot(dir);
    let out = ks(dir).args(["make", "manifests", "--crd-dir", "crds", "--no-compile"]).output().expect("runs");
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert_eq!(snapshot(dir), before, "{said}");
    said
}

#[test]
fn crd_merge_crds_in_a_crdgen_binary_chooses_the_storage_version() {
    let (_parent, dir) = fixture();
    let out = ks(&dir).args(["make", "manifests", "--crd-dir", "crds", "--no-compile"]).output().expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let crd: Value = serde_yaml_ng::from_str(
        &std::fs::read_to_string(dir.join("crds/harbor.example.org_moorings.yaml")).expect("the CRD is written"),
    )
    .expect("yaml");
    let versions: Vec<(&str, bool)> = crd["spec"]["versions"]
        .as_array()
        .expect("versions")
        .iter()
        .map(|v| (v["name"].as_str().unwrap_or_default(), v["storage"].as_bool().unwrap_or_default()))
        .collect();
    // What `merge_crds(vec![v1alpha1, v1], "v1")` returns: the storage version first, then the rest.
    assert_eq!(versions, [("v1", true), ("v1alpha1", false)]);
    // The CRD-level fields come from the storage version's derive, as merge_crds keeps them.
    assert_eq!(crd["spec"]["versions"][0]["subresources"], serde_json::json!({"status": {}}));

    // Without the call, the two versions both claim storage.
    std::fs::remove_file(dir.join("src/bin/crdgen.rs")).expect("rm");
    let said = refused(&dir);
    assert!(said.contains("kind Mooring in group harbor.example.org has 2 storage versions (v1, v1alpha1)"), "{said}");
    assert!(said.contains("merge_crds(vec![..], \"<version>\")"), "{said}");
}

#[test]
fn crd_merge_crds_conflicts_name_both_places() {
    // A second call, in the library, naming the other version.
    let (_parent, dir) = fixture();
    edit(
        &dir,
        "src/lib.rs",
        "pub mod api;\n",
        "pub mod api;\n\n/// Both versions, the first one stored.\npub fn crd() -> kube::core::crd::Crd {\n    \
         kube::core::crd::merge_crds(vec![api::v1alpha1::Mooring::crd(), api::v1::Mooring::crd()], \"v1alpha1\")\n        \
         .expect(\"they merge\")\n}\n\nuse kube::CustomResourceExt;\n",
    );
    let said = refused(&dir);
    assert!(
        said.contains(
            "src/lib.rs:7:5: `merge_crds` chooses `v1alpha1` as the storage version of kind Mooring in group \
             harbor.example.org, but `merge_crds` at src/bin/crdgen.rs:13 chooses `v1`"
        ),
        "{said}"
    );

    // A marker on the version the call does not store.
    let (_parent, dir) = fixture();
    edit(
        &dir,
        "src/api/v1alpha1.rs",
        "/// Where a vessel is tied up.\n",
        "// +kubebuilder:storageversion\n/// Where a vessel is tied up.\n",
    );
    let said = refused(&dir);
    assert!(
        said.contains(
            "src/api/v1alpha1.rs:7:1: `+kubebuilder:storageversion` makes `v1alpha1` the storage version of kind \
             Mooring in group harbor.example.org, but `merge_crds` at src/bin/crdgen.rs:13 chooses `v1`"
        ),
        "{said}"
    );
}

#[test]
fn crd_merge_crds_with_a_storage_version_known_at_run_time_says_why() {
    let (_parent, dir) = fixture();
    edit(
        &dir,
        "src/bin/crdgen.rs",
        "merge_crds(crds, STORAGE_VERSION)",
        "merge_crds(crds, &std::env::var(\"STORAGE\").unwrap_or_else(|_| STORAGE_VERSION.into()))",
    );
    let said = refused(&dir);
    assert!(
        said.contains("src/bin/crdgen.rs:13:15: `merge_crds` chooses the storage version of kind Mooring"),
        "{said}"
    );
    assert!(said.contains("which kubesmith cannot evaluate without running the crate"), "{said}");
    assert!(said.contains("put `// +kubebuilder:storageversion` on the storage version's spec struct"), "{said}");
}
