//! `make manifests` on every core writes what the sequential path writes, byte for byte, and says the same.

use crate::support::{assert_same_tree, create_api, ks, standard_project};

#[test]
fn the_parallel_path_writes_and_says_what_the_sequential_one_does() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = standard_project(tmp.path());
    // Enough CRDs that the rendering is spread over threads (the standard project has three).
    for kind in ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India"] {
        create_api(&dir, &["--group", "cache", "--version", "v2", "--kind", kind, "--controller=false"]);
    }
    let bases = dir.join("config/crd/bases");
    let copy = tmp.path().join("sequential");
    let status = std::process::Command::new("cp").arg("-a").arg(&dir).arg(&copy).status().expect("cp");
    assert!(status.success());
    let run = |project: &std::path::Path, threads: &str| {
        // Every CRD written anew, one changed on disk, one left stale: every branch of the loop.
        for e in std::fs::read_dir(project.join("config/crd/bases")).expect("bases") {
            let p = e.expect("entry").path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if name.starts_with("cache.example.com_a") {
                std::fs::remove_file(&p).expect("remove");
            } else if name.starts_with("cache.example.com_b") {
                std::fs::write(&p, "# edited\n").expect("edit");
            }
        }
        let out = ks(project)
            .args(["make", "manifests", "--max-description-length", "40"])
            .env("KUBESMITH_THREADS", threads)
            .output()
            .expect("run");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        (out.stdout, out.stderr)
    };
    let parallel = run(&dir, "2");
    let sequential = run(&copy, "1");
    assert_eq!(String::from_utf8_lossy(&parallel.0), String::from_utf8_lossy(&sequential.0));
    assert_eq!(String::from_utf8_lossy(&parallel.1), String::from_utf8_lossy(&sequential.1));
    assert_same_tree(&dir, &copy);
    assert!(std::fs::read_dir(&bases).expect("bases").count() >= 12);
}

/// A kind of `wide.example.com` with `fields` optional fields, each with a long doc comment and a nested type.
fn wide_kind(n: usize, fields: usize) -> String {
    let mut out =
        String::from("use kube::CustomResource;\nuse schemars::JsonSchema;\nuse serde::{Deserialize, Serialize};\n\n");
    out.push_str(&format!(
        "/// Wide kind number {n}.\n#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n\
         #[kube(group = \"wide.example.com\", version = \"v1\", kind = \"Wide{n}\", namespaced)]\n\
         pub struct Wide{n}Spec {{\n"
    ));
    for f in 0..fields {
        out.push_str(&format!(
            "    /// Field {f} of kind {n}: a description long enough to look like the ones generated from real CRDs, \
             with \"quotes\" and `code`.\n    #[serde(default, skip_serializing_if = \"Option::is_none\", rename = \
             \"field{f}Name\")]\n    pub field_{f}: Option<Wide{n}Part>,\n"
        ));
    }
    out.push_str(&format!(
        "}}\n\n/// A part.\n#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]\npub struct Wide{n}Part {{\n    \
         /// Its size.\n    pub size: Option<i64>,\n}}\n"
    ));
    out
}

#[test]
fn a_large_crate_is_generated_in_parts_with_the_one_thread_output() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = standard_project(tmp.path());
    // Over the 2 MiB of Rust above which the generation is split over threads.
    let api = dir.join("src/api.rs");
    let text = std::fs::read_to_string(&api).expect("api.rs");
    std::fs::write(&api, format!("{text}pub mod wide;\n")).expect("api.rs");
    std::fs::create_dir_all(dir.join("src/api/wide")).expect("mkdir");
    let mut module = String::new();
    let mut bytes = 0;
    for n in 0..24 {
        let kind = wide_kind(n, 420);
        bytes += kind.len();
        std::fs::write(dir.join(format!("src/api/wide/wide{n}.rs")), kind).expect("write");
        module.push_str(&format!("mod wide{n};\npub use wide{n}::*;\n"));
    }
    assert!(bytes > 2 << 20, "{bytes} bytes");
    std::fs::write(dir.join("src/api/wide.rs"), module).expect("wide.rs");
    let copy = tmp.path().join("sequential");
    let status = std::process::Command::new("cp").arg("-a").arg(&dir).arg(&copy).status().expect("cp");
    assert!(status.success());
    let run = |project: &std::path::Path, threads: &str| {
        let out = ks(project)
            .args(["make", "manifests", "--max-description-length", "30"])
            .env("KUBESMITH_THREADS", threads)
            .output()
            .expect("run");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let first = run(&dir, "2");
    assert_eq!(first, run(&copy, "1"));
    assert_same_tree(&dir, &copy);
    // The parts finished each CRD as the one-piece path does: descriptions cut, the text the file holds.
    let wide7 = std::fs::read_to_string(dir.join("config/crd/bases/wide.example.com_wide7s.yaml")).expect("wide7");
    assert!(wide7.contains("description: 'Field 3 of kind 7: a...'"), "{wide7}");
    assert!(!wide7.contains("long enough"), "{wide7}");
    // A sample one of them refuses is still named (its CRD read back from the planned text).
    std::fs::write(
        dir.join("config/samples/wide_v1_wide7.yaml"),
        "apiVersion: wide.example.com/v1\nkind: Wide7\nmetadata:\n  name: w\nspec:\n  field3Name:\n    size: big\n",
    )
    .expect("sample");
    let (stdout, _) = run(&dir, "2");
    assert!(
        stdout.contains("warning: config/samples/wide_v1_wide7.yaml: Wide7 w: spec.field3Name.size: \"big\" is not"),
        "{stdout}"
    );
    let bases = std::fs::read_dir(dir.join("config/crd/bases")).expect("bases");
    assert_eq!(
        bases.filter(|e| e.as_ref().is_ok_and(|e| e.file_name().to_string_lossy().starts_with("wide."))).count(),
        24
    );
}
