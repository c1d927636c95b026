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
