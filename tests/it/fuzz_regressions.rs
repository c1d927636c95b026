//! Regressions found by fuzzing (`cargo xtask fuzz`, targets in `fuzz/`) and the deep-nesting checks of issue 11:
//! each input that crashed or hung kubesmith, now refused with an error or read correctly.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kubesmith::crd::{self, K8sTable, SourceSet};
use kubesmith::source::syntax::MAX_NESTING;

use crate::support::ks;

/// `Option<Option<..String..>>`, `n` levels.
fn nested_type(n: usize) -> String {
    format!("{}String{}", "Option<".repeat(n), ">".repeat(n))
}

fn deep_spec(n: usize) -> String {
    format!(
        "use kube::CustomResource;\n\n#[derive(CustomResource, Clone, Debug, serde::Serialize, serde::Deserialize, \
         schemars::JsonSchema)]\n#[kube(group = \"x.io\", version = \"v1\", kind = \"Deep\", namespaced)]\npub struct \
         DeepSpec {{\n    pub a: {},\n}}\n",
        nested_type(n)
    )
}

fn generate(lib_rs: &str) -> Result<crd::Generation, crd::CrdError> {
    let src = PathBuf::from("/nonexistent/kubesmith-fuzz-regression/src");
    let sources = SourceSet::new(&src).with_overlay(BTreeMap::from([(src.join("lib.rs"), lib_rs.to_string())]));
    crd::generate_all(&sources, K8sTable::default_table())
}

fn problems(g: &crd::Generation) -> String {
    g.problems.iter().map(|p| p.error.to_string()).collect::<Vec<_>>().join("\n")
}

#[test]
fn fuzz_crd_type_nested_10000_deep_is_refused_not_a_stack_overflow() {
    let g = generate(&deep_spec(10_000)).expect("a crate");
    let text = problems(&g);
    assert!(text.contains(&format!("nested deeper than {MAX_NESTING} levels")), "{text}");
    assert!(g.crds.is_empty());
}

#[test]
fn fuzz_crd_modules_nested_10000_deep_are_refused() {
    let lib = format!("{}{}\n", "mod a { ".repeat(10_000), "}".repeat(10_000));
    let g = generate(&lib).expect("a crate");
    assert!(problems(&g).contains("nested deeper than"), "{}", problems(&g));
}

#[test]
fn fuzz_crd_schemars_with_string_nested_10000_deep_is_refused() {
    let lib = format!(
        "use kube::CustomResource;\n#[derive(CustomResource, Clone, Debug, serde::Serialize, serde::Deserialize, \
         schemars::JsonSchema)]\n#[kube(group = \"x.io\", version = \"v1\", kind = \"Deep\")]\npub struct DeepSpec \
         {{\n    #[schemars(with = \"{}\")]\n    pub a: String,\n}}\n",
        nested_type(10_000)
    );
    let g = generate(&lib).expect("a crate");
    assert!(problems(&g).contains("nested deeper than"), "{}", problems(&g));
}

#[test]
fn fuzz_crd_type_nested_within_the_limit_still_generates() {
    // Well within the limit and deeper than any real spec; run on a thread with the main thread's stack size.
    let g = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(|| generate(&deep_spec(64)).map(|g| (g.crds.len(), problems(&g))))
        .expect("thread")
        .join()
        .expect("no panic")
        .expect("a crate");
    assert_eq!(g, (1, String::new()));
}

#[test]
fn fuzz_make_manifests_and_rbac_infer_refuse_a_deep_type_with_an_error() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let src = tmp.path().join("src");
    std::fs::create_dir_all(&src).expect("src");
    std::fs::write(src.join("lib.rs"), deep_spec(10_000)).expect("lib.rs");
    let out = ks(tmp.path())
        .args(["make", "manifests", "--source", "src", "--crd-dir", "out/crds", "--rbac-dir", "out/rbac"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("src/lib.rs") && stderr.contains("nested deeper than 256 levels"), "{stderr}");
    let out = ks(tmp.path()).args(["rbac", "infer", "--source", "src"]).output().expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("nested deeper than 256 levels"), "{stderr}");
}

#[test]
fn fuzz_yaml_nested_10000_deep_is_an_error() {
    for text in ["[".repeat(10_000), "{a: ".repeat(10_000), "- ".repeat(10_000) + "x"] {
        assert!(kubesmith::yaml::from_str(&text).is_err());
        assert!(kubesmith::yaml::from_multi_doc_str(&text).is_err());
        let e = kubesmith::project::ProjectFile::parse(&text, Path::new("PROJECT")).expect_err("refused");
        assert!(format!("{e:#}").contains("PROJECT: not valid YAML"), "{e:#}");
        assert!(kubesmith::olm::bundle::BundleFiles::documents(text.as_bytes()).is_err());
    }
}

/// Found by the `crd_generate` fuzz target: an attribute left open at the end of a file (`#[` as its last bytes,
/// the fuzzer's input was `use <<<..kube::KubeSchema; .. #[`) made the lexical scan of the crate index slice
/// backwards (`slice index starts at 197 but ends at 196`).
#[test]
fn fuzz_crd_unterminated_attribute_at_end_of_file_is_a_parse_problem() {
    // A file that cannot declare a kind is not parsed (see `crd::index`): no problem, and no panic.
    for lib in ["#[", "#[cfg(test)", "#  ["] {
        let g = generate(lib).expect("a crate");
        assert!(g.crds.is_empty() && g.problems.is_empty(), "{lib}: {}", problems(&g));
    }
    let g = generate("use kube::CustomResource;\n#[derive(CustomResource)").expect("a crate");
    assert!(problems(&g).contains("lib.rs"), "{}", problems(&g));
}

/// Found by the `project` fuzz target: a plugin key of more than 1024 characters (tabs) loaded, but kubesmith wrote
/// it back as an implicit YAML key, which YAML limits to 1024 characters, so the PROJECT it wrote did not load.
#[test]
fn fuzz_project_with_a_key_longer_than_1024_characters_writes_back_a_loadable_file() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz/project-long-key");
    let text = String::from_utf8(std::fs::read(&path).unwrap()).unwrap();
    let project = kubesmith::project::ProjectFile::parse(&text, Path::new("PROJECT")).expect("the input loads");
    let written = project.to_yaml();
    let again = kubesmith::project::ProjectFile::parse(&written, Path::new("PROJECT"))
        .unwrap_or_else(|e| panic!("the PROJECT kubesmith wrote does not load: {e}\n{written}"));
    assert_eq!(again.to_yaml(), written);
}

/// Found by `crate_resolve`: modules glob-importing each other round a cycle (`a` → `c` → `a::b` → `crate` → ...),
/// with names no module holds, made every lookup try every path round the cycle (17 s for one `rbac infer` of six
/// small files). Each module's globs are now searched once per name and query: both readers end at once, and the
/// names resolve where they can.
#[test]
fn fuzz_crate_resolve_glob_cycles_through_many_modules_end_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("cycle");
    let files = [
        ("src/lib.rs", "pub mod a;\npub mod c;\npub use a::*;\npub use c::*;\n"),
        ("src/a.rs", "pub use super::c::*;\npub mod b;\npub use b::*;\n"),
        ("src/a/b.rs", "pub use super::*;\npub use crate::*;\npub use crate::c::d::Thing as Other;\n"),
        ("src/c/mod.rs", "pub use crate::a::*;\npub mod d;\npub use self::d::*;\n"),
        ("src/c/d.rs", "pub use super::super::*;\npub use crate::a::b::Other as Thing;\n"),
        (
            "src/main.rs",
            "use cycle::*;\nuse kube::Api;\nfn main() {\n    let api: Api<Thing> = Api::all(client());\n    \
             let _ = apk.list(&Defau::default());\n    let again: Api<Other> = Api::all(client());\n    \
             let _ = again.get(\"x\");\n    let pods: Api<Pod> = Api::all(client());\n    let _ = pods.list(&lp());\n}\n",
        ),
    ];
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    // One more module in the cycle holds a glob of k8s-openapi's core types: `Pod` resolves through it.
    std::fs::write(root.join("src/c/d.rs"), format!("{}pub use k8s_openapi::api::core::v1::*;\n", files[4].1)).unwrap();
    let started = std::time::Instant::now();
    let out = ks(&root).args(["rbac", "infer", "--source", "src"]).assert().success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(crate::rbac_infer::triples(&stdout), crate::rbac_infer::set(&[("", "pods", "list")]), "{stdout}");
    let mut overlay = BTreeMap::new();
    for (path, _) in files {
        overlay.insert(root.join(path), std::fs::read_to_string(root.join(path)).unwrap());
    }
    let sources = SourceSet::new(&root.join("src")).with_overlay(overlay);
    crd::generate_all(&sources, K8sTable::default_table()).expect("a crate without kinds");
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
}
