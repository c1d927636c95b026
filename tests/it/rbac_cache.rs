//! The RBAC inference cache of `make manifests` and `rbac infer`: the same output with and without it, written
//! only under `target/kubesmith/rbac-cache/`, never in place of project files.

use std::path::{Path, PathBuf};

use crate::support::{create_api, init, ks, read, snapshot};

fn output(dir: &Path, args: &[&str], cache: bool, code: i32) -> String {
    let mut cmd = ks(dir);
    cmd.args(args).env_remove("CARGO_TARGET_DIR");
    if cache {
        cmd.env_remove("KUBESMITH_NO_CACHE");
    } else {
        cmd.env("KUBESMITH_NO_CACHE", "1");
    }
    let out = cmd.assert().code(code);
    let o = out.get_output();
    format!("{}\n--- stderr\n{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn cache_files(dir: &Path) -> Vec<PathBuf> {
    let cache = dir.join("target/kubesmith/rbac-cache");
    let mut out: Vec<PathBuf> =
        std::fs::read_dir(&cache).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    out.sort();
    out
}

/// Every file under `dir/target`.
fn target_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.join("target")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn cached_make_manifests_says_what_the_uncached_one_says() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = init(tmp.path(), "shop-operator", &[]);
    create_api(&dir, &["--group", "retail", "--version", "v1", "--kind", "Store"]);
    create_api(&dir, &["--group", "retail", "--version", "v1", "--kind", "Region", "--namespaced=false"]);
    let manifests = ["make", "manifests"];
    // No target folder: no cache.
    output(&dir, &manifests, true, 0);
    assert!(!dir.join("target").exists());
    std::fs::create_dir(dir.join("target")).unwrap();

    let cold = output(&dir, &manifests, true, 0);
    assert_eq!(cache_files(&dir).len(), 1, "{:?}", target_files(&dir));
    assert_eq!(target_files(&dir), cache_files(&dir), "only the cache is written under target/");
    assert_eq!(cold, output(&dir, &manifests, false, 0));
    assert_eq!(cold, output(&dir, &manifests, true, 0), "warm");

    // Body edits: a status patch no marker grants, a Secret read, lines moved.
    let controller = dir.join("src/controller/store.rs");
    let marker = "// +kubebuilder:rbac:groups=retail.example.com,resources=stores/status,verbs=patch\n";
    let text = read(&controller);
    let edited = text.replace(marker, "").replacen(
        "    let name = obj.name_any();\n",
        "    let name = obj.name_any();\n\n    let secrets: Api<k8s_openapi::api::core::v1::Secret> = Api::namespaced(ctx.client.clone(), \"x\");\n    secrets.get(\"token\").await?;\n",
        1,
    );
    assert_ne!(edited, text);
    std::fs::write(&controller, &edited).unwrap();
    let check = ["make", "manifests", "--check"];
    let before = snapshot(&dir);
    let cached = output(&dir, &check, true, 1);
    assert!(cached.contains("Api<Store>::patch_status needs patch on stores/status"), "{cached}");
    assert!(cached.contains("Api<Secret>::get needs get on secrets"), "{cached}");
    assert_eq!(cached, output(&dir, &check, false, 1));
    assert_eq!(cached, output(&dir, &check, true, 1), "warm");
    let dry = ["make", "manifests", "--dry-run"];
    let dry_out = output(&dir, &dry, true, 0);
    assert_eq!(dry_out, output(&dir, &dry, false, 0));
    assert_eq!(snapshot(&dir), before, "--check and --dry-run write no project file");

    // A damaged cache file: ignored, written again.
    let file = cache_files(&dir).remove(0);
    let mut bytes = std::fs::read(&file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&file, &bytes).unwrap();
    assert_eq!(cached, output(&dir, &check, true, 1));
    std::fs::write(&file, b"not a cache").unwrap();
    assert_eq!(cached, output(&dir, &check, true, 1));
    assert_ne!(std::fs::read(&file).unwrap(), b"not a cache");

    // An item edit (a new helper fn), then back to the scaffold as it was.
    std::fs::write(&controller, format!("{edited}\nfn helper() {{}}\n")).unwrap();
    assert_eq!(output(&dir, &check, true, 1), output(&dir, &check, false, 1));
    std::fs::write(&controller, &text).unwrap();
    assert_eq!(output(&dir, &manifests, true, 0), output(&dir, &manifests, false, 0));
    assert_eq!(target_files(&dir), cache_files(&dir));

    // `rbac infer` shares the cache (its own file: the same roots).
    let infer = ["rbac", "infer", "--explain"];
    assert_eq!(output(&dir, &infer, true, 0), output(&dir, &infer, false, 0));
    assert_eq!(cache_files(&dir).len(), 1);
}
