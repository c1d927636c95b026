//! The storage version from the crate's own `merge_crds` calls, end to end through [`crate::crd::generate_all`].

use std::path::Path;

use serde_json::Value;

use crate::crd::{Generation, K8sTable, SourceSet, generate_all};

const KINDS: &str = "use kube::CustomResource;\nuse schemars::JsonSchema;\nuse serde::{Deserialize, Serialize};\n\
    pub mod v1 {\n    use super::*;\n    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n    \
    #[kube(group = \"fleet.example.com\", version = \"v1\", kind = \"Ship\")]\n    pub struct ShipSpec {\n        pub name: String,\n    }\n}\n\
    pub mod v2 {\n    use super::*;\n    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n    \
    #[kube(group = \"fleet.example.com\", version = \"v2\", kind = \"Ship\")]\n    pub struct ShipSpec {\n        pub name: String,\n        pub crew: u32,\n    }\n}\n";

/// A package `fleet` with `files` (paths under the package folder), generated.
fn generate(files: &[(&str, &str)]) -> (tempfile::TempDir, Generation) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"fleet\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
    )
    .expect("manifest");
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().expect("folder")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
    let g = generate_all(&SourceSet::new(&dir.path().join("src")), K8sTable::default_table()).expect("a crate");
    (dir, g)
}

/// `(name, storage)` of each version of the only CRD.
fn versions(g: &Generation) -> Vec<(String, bool)> {
    assert!(g.problems.is_empty(), "{:#?}", g.problems);
    assert_eq!(g.crds.len(), 1, "{:?}", g.crds.iter().map(|c| &c.name).collect::<Vec<_>>());
    let vs = g.crds[0].crd["spec"]["versions"].as_array().expect("versions").clone();
    vs.iter().map(|v| (v["name"].as_str().unwrap_or_default().to_string(), v["storage"] == Value::Bool(true))).collect()
}

fn problems(g: &Generation, root: &Path) -> Vec<String> {
    g.problems
        .iter()
        .map(|p| {
            let mut e = p.error.clone();
            e.path = e.path.strip_prefix(root).map(Path::to_path_buf).unwrap_or(e.path);
            e.to_string()
        })
        .collect()
}

/// The 1-based line of the first line of `text` holding `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).expect("the needle is in the text") + 1
}

fn owned(v: &[(&str, bool)]) -> Vec<(String, bool)> {
    v.iter().map(|(n, s)| (n.to_string(), *s)).collect()
}

#[test]
fn a_crdgen_binary_names_the_storage_version_as_kube_rs_documents() {
    let crdgen = "use kube::CustomResourceExt;\nuse kube::core::crd::merge_crds;\nuse fleet::{v1, v2};\n\nfn main() {\n    \
                  let crds = vec![v1::Ship::crd(), v2::Ship::crd()];\n    \
                  let crd = merge_crds(crds, \"v1\").unwrap();\n    \
                  print!(\"{}\", serde_json::to_string(&crd).unwrap());\n}\n";
    let (_dir, g) = generate(&[("src/lib.rs", KINDS), ("src/bin/crdgen.rs", crdgen)]);
    // merge_crds puts the storage version first, then the others from the end of its list.
    assert_eq!(versions(&g), owned(&[("v1", true), ("v2", false)]));
}

#[test]
fn the_storage_argument_may_be_a_const_an_associated_const_a_let_or_a_kind_version() {
    let cases = [
        ("pub const STORAGE: &str = \"v1\";\n", "merge_crds(crds, fleet::STORAGE)"),
        (
            "pub struct Versions;\nimpl Versions {\n    pub const STORAGE: &'static str = \"v1\";\n}\n",
            "merge_crds(crds, fleet::Versions::STORAGE)",
        ),
        ("", "{ let storage = \"v1\".to_string(); merge_crds(crds, &storage) }"),
        ("", "merge_crds(crds, &v1::Ship::version(&()))"),
        ("", "merge_crds(crds, &<v1::Ship as kube::Resource>::version(&()))"),
        ("", "merge_crds(crds, &v1::Ship::api_resource().version)"),
        ("", "merge_crds(crds, String::from(\"v1\").as_str())"),
        // what the one interpreter of constant code reads: a crate fn, `format!`, a fn-local `use`
        (
            "const STORED: &str = \"v1\";\npub fn stored() -> &'static str { STORED }\n",
            "merge_crds(crds, fleet::stored())",
        ),
        ("", "merge_crds(crds, &format!(\"v{}\", 1))"),
        ("pub const STORAGE: &str = \"v1\";\n", "{ use fleet::STORAGE as S; merge_crds(crds, S) }"),
    ];
    for (lib_extra, call) in cases {
        let crdgen = format!(
            "use kube::core::crd::merge_crds;\nuse kube::{{CustomResourceExt, Resource}};\nuse fleet::{{v1, v2}};\n\n\
             fn main() {{\n    let crds = vec![v2::Ship::crd(), v1::Ship::crd()];\n    let _ = {call};\n}}\n"
        );
        let lib = format!("{KINDS}{lib_extra}");
        let (_dir, g) = generate(&[("src/lib.rs", lib.as_str()), ("src/bin/crdgen.rs", crdgen.as_str())]);
        assert_eq!(versions(&g), owned(&[("v1", true), ("v2", false)]), "{call}");
    }
}

#[test]
fn calls_in_the_library_through_every_path_to_merge_crds_are_read() {
    let calls = [
        "kube::core::crd::merge_crds(vec![v1::Ship::crd(), v2::Ship::crd()], \"v1\")",
        "kube::core::crd::v1::merge_crds(vec![v1::Ship::crd(), v2::Ship::crd()], \"v1\")",
        "merge(vec![crate::v1::Ship::crd(), <v2::Ship as kube::CustomResourceExt>::crd()], \"v1\")",
        "merge([v1::Ship::crd(), v2::Ship::crd()].to_vec(), Self::STORAGE)",
    ];
    for call in calls {
        let lib = format!(
            "{KINDS}use kube::core::crd::merge_crds as merge;\npub struct Crds;\nimpl Crds {{\n    \
             const STORAGE: &'static str = \"v1\";\n    pub fn all() -> kube::core::crd::Crd {{\n        \
             {call}.unwrap()\n    }}\n}}\n"
        );
        let (_dir, g) = generate(&[("src/lib.rs", lib.as_str())]);
        assert_eq!(versions(&g), owned(&[("v1", true), ("v2", false)]), "{call}");
    }
}

#[test]
fn the_versions_come_in_merge_crds_order() {
    let lib = format!(
        "{KINDS}pub mod v3 {{\n    use super::*;\n    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n    \
         #[kube(group = \"fleet.example.com\", version = \"v3\", kind = \"Ship\")]\n    pub struct ShipSpec {{}}\n}}\n\
         pub fn crd() -> kube::core::crd::Crd {{\n    \
         kube::core::crd::merge_crds(vec![v3::Ship::crd(), v1::Ship::crd(), v2::Ship::crd()], \"v1\").unwrap()\n}}\n"
    );
    let (_dir, g) = generate(&[("src/lib.rs", lib.as_str())]);
    // [v3, v1, v2] without v1 is [v3, v2], appended from the end.
    assert_eq!(versions(&g), owned(&[("v1", true), ("v2", false), ("v3", false)]));
}

#[test]
fn a_call_overrides_kube_storage_false_as_merge_crds_does() {
    let lib = KINDS.replace("version = \"v1\", kind = \"Ship\"", "version = \"v1\", kind = \"Ship\", storage = false")
        + "pub fn crd() -> kube::core::crd::Crd {\n    \
           kube::core::crd::merge_crds(vec![v1::Ship::crd(), v2::Ship::crd()], \"v1\").unwrap()\n}\n";
    let (_dir, g) = generate(&[("src/lib.rs", lib.as_str())]);
    assert_eq!(versions(&g), owned(&[("v1", true), ("v2", false)]));
}

#[test]
fn calls_in_tests_and_the_crates_own_merge_crds_are_not_kubes() {
    let lib = format!(
        "{KINDS}pub fn merge_crds(_: Vec<u8>, _: &str) {{}}\npub fn local() {{\n    merge_crds(vec![], \"v1\");\n}}\n\
         #[test]\nfn merged() {{\n    kube::core::crd::merge_crds(vec![v1::Ship::crd(), v2::Ship::crd()], \"v1\").unwrap();\n}}\n\
         #[cfg(test)]\nmod tests {{\n    fn m() {{ kube::core::crd::merge_crds(vec![super::v1::Ship::crd()], \"v1\"); }}\n}}\n"
    );
    let (dir, g) = generate(&[("src/lib.rs", lib.as_str())]);
    let said = problems(&g, dir.path());
    assert_eq!(said.len(), 1, "{said:#?}");
    assert!(said[0].contains("has 2 storage versions (v1, v2)"), "{said:#?}");
}

#[test]
fn two_calls_naming_different_versions_are_an_error_naming_both() {
    let crdgen = "use kube::core::crd::merge_crds;\nuse fleet::{v1, v2};\n\nfn main() {\n    \
                  merge_crds(vec![v1::Ship::crd(), v2::Ship::crd()], \"v2\").unwrap();\n}\n";
    let lib = format!(
        "{KINDS}pub fn crd() -> kube::core::crd::Crd {{\n    \
         kube::core::crd::merge_crds(vec![v1::Ship::crd(), v2::Ship::crd()], \"v1\").unwrap()\n}}\n"
    );
    let (dir, g) = generate(&[("src/lib.rs", lib.as_str()), ("src/bin/crdgen.rs", crdgen)]);
    let said = problems(&g, dir.path());
    assert_eq!(said.len(), 1, "{said:#?}");
    assert!(said[0].starts_with(&format!("src/lib.rs:{}:", line_of(&lib, "merge_crds("))), "{said:#?}");
    assert!(said[0].contains("chooses `v1` as the storage version of kind Ship"), "{said:#?}");
    assert!(said[0].contains("but `merge_crds` at src/bin/crdgen.rs:5 chooses `v2`"), "{said:#?}");
}

#[test]
fn a_storageversion_marker_on_another_version_is_an_error_naming_the_call() {
    let lib = KINDS.replace("    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n    #[kube(group = \"fleet.example.com\", version = \"v2\"",
        "    // +kubebuilder:storageversion\n    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n    #[kube(group = \"fleet.example.com\", version = \"v2\"")
        + "pub fn crd() -> kube::core::crd::Crd {\n    \
           kube::core::crd::merge_crds(vec![v1::Ship::crd(), v2::Ship::crd()], \"v1\").unwrap()\n}\n";
    let (dir, g) = generate(&[("src/lib.rs", lib.as_str())]);
    let said = problems(&g, dir.path());
    assert_eq!(said.len(), 1, "{said:#?}");
    let marker = format!("src/lib.rs:{}:1: ", line_of(&lib, "+kubebuilder:storageversion"));
    assert!(said[0].starts_with(&marker), "{said:#?}");
    assert!(said[0].contains("`+kubebuilder:storageversion` makes `v2` the storage version"), "{said:#?}");
    let call = format!("but `merge_crds` at src/lib.rs:{} chooses `v1`", line_of(&lib, "merge_crds("));
    assert!(said[0].contains(&call), "{said:#?}");
    // The same marker on the version the call names agrees.
    let agreeing = lib.replace("], \"v1\")", "], \"v2\")");
    let (_dir, g) = generate(&[("src/lib.rs", agreeing.as_str())]);
    assert_eq!(versions(&g), owned(&[("v2", true), ("v1", false)]));
}

#[test]
fn a_storage_argument_known_only_at_run_time_says_why_unless_a_marker_decides() {
    let crdgen = "use kube::core::crd::merge_crds;\nuse fleet::{v1, v2};\n\nfn main() {\n    \
                  let stored = std::env::args().nth(1).unwrap();\n    \
                  merge_crds(vec![v1::Ship::crd(), v2::Ship::crd()], &stored).unwrap();\n}\n";
    let (dir, g) = generate(&[("src/lib.rs", KINDS), ("src/bin/crdgen.rs", crdgen)]);
    let said = problems(&g, dir.path());
    assert_eq!(said.len(), 1, "{said:#?}");
    assert!(
        said[0].starts_with("src/bin/crdgen.rs:6:5: `merge_crds` chooses the storage version of kind Ship"),
        "{said:#?}"
    );
    assert!(said[0].contains("from `&stored`, which kubesmith cannot evaluate"), "{said:#?}");
    assert!(
        said[0].contains("`std::env::args().nth(1).unwrap()` is a call kubesmith does not run")
            || said[0].contains("is not a string literal"),
        "{said:#?}"
    );
    assert!(said[0].contains("`// +kubebuilder:storageversion`"), "{said:#?}");
    let marked = KINDS.replace(
        "    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n    #[kube(group = \"fleet.example.com\", version = \"v2\"",
        "    // +kubebuilder:storageversion\n    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n    #[kube(group = \"fleet.example.com\", version = \"v2\"",
    );
    let (_dir, g) = generate(&[("src/lib.rs", marked.as_str()), ("src/bin/crdgen.rs", crdgen)]);
    assert_eq!(versions(&g), owned(&[("v2", true), ("v1", false)]));
}

#[test]
fn what_kubes_merge_crds_refuses_at_run_time_is_an_error_at_the_call() {
    let other = "pub mod boat {\n    use super::*;\n    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n    \
                 #[kube(group = \"fleet.example.com\", version = \"v1\", kind = \"Boat\")]\n    pub struct BoatSpec {}\n}\n";
    let cases = [
        ("vec![v1::Ship::crd(), boat::Boat::crd()], \"v1\"", "mismatching kind property from given CRDs"),
        ("vec![v1::Ship::crd(), v2::Ship::crd()], \"v3\"", "root api version v3 not found"),
        ("vec![v2::Ship::crd()], \"v2\"", "but the crate also defines version `v1` (at src/lib.rs:SPEC)"),
    ];
    let spec = line_of(KINDS, "pub struct ShipSpec").to_string();
    for (args, needle) in cases {
        let lib = format!("{KINDS}{other}pub fn crd() {{\n    kube::core::crd::merge_crds({args}).unwrap();\n}}\n");
        let (dir, g) = generate(&[("src/lib.rs", lib.as_str())]);
        let said = problems(&g, dir.path());
        assert!(!said.is_empty() && said.iter().all(|s| s.starts_with("src/lib.rs:")), "{args}: {said:#?}");
        let at = format!("src/lib.rs:{}:", line_of(&lib, "merge_crds("));
        let needle = needle.replace("SPEC", &spec);
        assert!(said.iter().any(|s| s.contains(&needle) && s.starts_with(&at)), "{args}: {said:#?}");
        assert!(g.crds.iter().all(|c| c.name != "ships.fleet.example.com"), "{args}");
    }
}

#[test]
fn a_list_kubesmith_cannot_read_is_named_when_the_storage_version_is_unknown() {
    let crdgen = "use kube::core::crd::merge_crds;\n\nfn all() -> Vec<kube::core::crd::Crd> {\n    Vec::new()\n}\n\n\
                  fn main() {\n    merge_crds(all(), \"v2\").unwrap();\n}\n";
    let (dir, g) = generate(&[("src/lib.rs", KINDS), ("src/bin/crdgen.rs", crdgen)]);
    let said = problems(&g, dir.path());
    assert_eq!(said.len(), 2, "{said:#?}");
    // Sorted by file: the call first, then the kind.
    assert!(
        said[0].starts_with("src/bin/crdgen.rs:8:5: `merge_crds` may choose the storage version of kind Ship"),
        "{said:#?}"
    );
    assert!(said[0].contains("`all()` is not a `vec![..]` of `Kind::crd()` calls"), "{said:#?}");
    assert!(said[1].contains("has 2 storage versions (v1, v2)"), "{said:#?}");
}

#[test]
fn a_name_is_read_where_it_is_used_through_shadowing_blocks_and_branches() {
    let lib = format!(
        "{KINDS}pub mod v3 {{\n    use super::*;\n    #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n    \
         #[kube(group = \"fleet.example.com\", version = \"v3\", kind = \"Ship\")]\n    pub struct ShipSpec {{}}\n}}\n\
         pub fn migrate(old: bool) -> kube::core::crd::Crd {{\n    \
         let mut crd = if old {{ v1::Ship::crd() }} else {{ v2::Ship::crd() }};\n    \
         crd.spec.versions[0].served = false;\n    \
         let new_crd = v3::Ship::crd();\n    \
         {{\n        let new_crd = v1::Ship::crd();\n        let _ = new_crd;\n    }}\n    \
         let all = vec![crd.clone(), new_crd.clone()];\n    \
         let new_crd = kube::core::crd::merge_crds(all, \"v3\").unwrap();\n    \
         let crd = new_crd.clone();\n    \
         crd\n}}\n"
    );
    let (_dir, g) = generate(&[("src/lib.rs", lib.as_str())]);
    // Either branch's version is merged with v3: the CRD holds all three, v3 stored.
    assert_eq!(versions(&g), owned(&[("v3", true), ("v2", false), ("v1", false)]));
}

#[test]
fn a_let_mut_the_fn_assigns_to_is_not_read() {
    let lib = format!(
        "{KINDS}pub fn crd() -> kube::core::crd::Crd {{\n    let mut crds = vec![v1::Ship::crd()];\n    \
         crds = vec![v1::Ship::crd(), v2::Ship::crd()];\n    kube::core::crd::merge_crds(crds, \"v2\").unwrap()\n}}\n"
    );
    let (dir, g) = generate(&[("src/lib.rs", lib.as_str())]);
    let said = problems(&g, dir.path());
    assert!(said.iter().any(|s| s.contains("`crds` is a `let mut` the fn assigns to")), "{said:#?}");
}

#[test]
fn names_in_files_that_do_not_mention_merge_crds_are_read_where_they_are_written() {
    // The storage version a const of another module holds, an associated const of the generated kind type written
    // in a third file, and a call through a rename a fourth file exports: files that neither derive a kind nor
    // mention `merge_crds` where the call is.
    let lib = format!("{KINDS}pub mod versions;\npub mod storage;\npub mod util;\n");
    let versions_rs = "pub const STORED: &str = \"v1\";\n";
    let storage = "impl crate::v2::Ship {\n    pub const STORED: &'static str = \"v2\";\n}\n";
    let util = "pub use kube::core::crd::merge_crds as merge_all;\n";
    let cases = [
        ("merge_crds(vec![v1::Ship::crd(), v2::Ship::crd()], fleet::versions::STORED)", ("v1", "v2")),
        ("merge_crds(vec![v1::Ship::crd(), v2::Ship::crd()], v2::Ship::STORED)", ("v2", "v1")),
        ("fleet::util::merge_all(vec![v2::Ship::crd(), v1::Ship::crd()], \"v1\")", ("v1", "v2")),
    ];
    for (call, (stored, other)) in cases {
        let crdgen = format!(
            "use kube::core::crd::merge_crds;\nuse kube::CustomResourceExt;\nuse fleet::{{v1, v2}};\n\n\
             fn main() {{\n    let _ = {call};\n}}\n"
        );
        let crdgen = if call.starts_with("fleet::util") {
            crdgen.replace("use kube::core::crd::merge_crds;\n", "")
        } else {
            crdgen
        };
        let (_dir, g) = generate(&[
            ("src/lib.rs", lib.as_str()),
            ("src/versions.rs", versions_rs),
            ("src/storage.rs", storage),
            ("src/util.rs", util),
            ("src/bin/crdgen.rs", crdgen.as_str()),
        ]);
        assert_eq!(versions(&g), owned(&[(stored, true), (other, false)]), "{call}");
    }
}

#[test]
fn a_binary_that_does_not_parse_is_reported_as_read_for_merge_crds() {
    let crdgen = "use kube::core::crd::merge_crds;\n\nfn main() {\n    merge_crds(vec![, \"v1\");\n}\n";
    let (dir, g) = generate(&[("src/lib.rs", KINDS), ("src/bin/crdgen.rs", crdgen)]);
    let said = problems(&g, dir.path());
    assert!(
        said.iter().any(|s| s.starts_with("src/bin/crdgen.rs:")
            && s.contains("(kubesmith reads this target for `merge_crds` calls)")),
        "{said:#?}"
    );
}

#[test]
fn a_binary_only_package_and_a_binary_with_modules_of_its_own_are_read() {
    // An operator without a library: its kinds in `main.rs`' modules, the call in `main`.
    let kinds = KINDS.replace("use kube::CustomResource;", "use kube::{CustomResource, CustomResourceExt};");
    let main = format!(
        "{kinds}fn main() {{\n    let crd = kube::core::crd::merge_crds(vec![v1::Ship::crd(), v2::Ship::crd()], \"v2\");\n    \
         drop(crd);\n}}\n"
    );
    let (_dir, g) = generate(&[("src/main.rs", main.as_str())]);
    assert_eq!(versions(&g), owned(&[("v2", true), ("v1", false)]));

    // A `crdgen` binary in a folder of its own, whose storage version is a const of one of its modules.
    let crdgen = "mod pick;\nuse kube::CustomResourceExt;\nuse fleet::{v1, v2};\n\nfn main() {\n    \
                  let _ = kube::core::crd::merge_crds(vec![v1::Ship::crd(), v2::Ship::crd()], pick::STORED);\n}\n";
    let pick = "pub const STORED: &str = \"v2\";\n";
    let (_dir, g) =
        generate(&[("src/lib.rs", KINDS), ("src/bin/crdgen/main.rs", crdgen), ("src/bin/crdgen/pick.rs", pick)]);
    assert_eq!(versions(&g), owned(&[("v2", true), ("v1", false)]));
}
