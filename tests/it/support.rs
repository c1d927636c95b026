//! Helpers shared by the integration tests: running the binary, snapshotting folders, scaffolding projects.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// A `kubesmith` command running in `dir`, with a fixed year so outputs are reproducible.
pub fn ks(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("kubesmith").expect("the kubesmith binary is built for tests");
    cmd.current_dir(dir)
        .env("SOURCE_DATE_EPOCH", "1767225600")
        // Every Rust file kubesmith writes without rustfmt (as known clean) is checked by rustfmt: a test fails when
        // one is not clean.
        .env("KUBESMITH_AUDIT_FORMATTING", "1")
        .env_remove("RUST_LOG")
        .env_remove("OPERATOR_BUNDLE_CATEGORIES");
    cmd
}

/// Every file under `dir` (relative path → bytes), skipping `target/`.
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("readable folder") {
            let p = e.expect("readable entry").path();
            let rel = p.strip_prefix(dir).expect("under dir").to_path_buf();
            if rel.starts_with("target") {
                continue;
            }
            if p.is_dir() {
                out.insert(rel.join(""), Vec::new());
                stack.push(p);
            } else {
                out.insert(rel, std::fs::read(&p).expect("readable file"));
            }
        }
    }
    out
}

/// Fails with the first file that differs, or the lists of files when they differ.
pub fn assert_same_tree(actual: &Path, expected: &Path) {
    let (a, e) = (snapshot(actual), snapshot(expected));
    let paths = |m: &BTreeMap<PathBuf, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(paths(&a), paths(&e), "the files of {} differ from those of {}", actual.display(), expected.display());
    for (rel, bytes) in &a {
        if bytes != &e[rel] {
            panic!(
                "{} differs\n--- expected ({})\n{}\n--- actual ({})\n{}",
                rel.display(),
                expected.display(),
                String::from_utf8_lossy(&e[rel]),
                actual.display(),
                String::from_utf8_lossy(bytes)
            );
        }
    }
}

/// `init` in `parent/name` with the given extra arguments; returns the project folder.
pub fn init(parent: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir_all(&dir).expect("project folder");
    ks(&dir).args(["init", "--domain", "example.com"]).args(extra).assert().success();
    dir
}

/// `create api` with the given arguments, expected to succeed.
pub fn create_api(dir: &Path, args: &[&str]) {
    ks(dir).args(["create", "api"]).args(args).assert().success();
}

/// The standard project of these tests: Memcached (namespaced, v1alpha1 and v1beta1), Cluster (cluster-scoped,
/// v1), Match (a Rust keyword as module name, v1) in group `cache` of `example.com`; Memcached v1alpha1 has all three
/// webhooks (hub of a conversion with spoke v1beta1); manifests are generated.
pub fn standard_project(parent: &Path) -> PathBuf {
    let dir = init(parent, "memcached-operator", &["--owner", "The Memcached Authors"]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    create_api(&dir, &["--group", "cache", "--version", "v1", "--kind", "Cluster", "--namespaced=false"]);
    create_api(&dir, &["--group", "cache", "--version", "v1", "--kind", "Match"]);
    create_api(&dir, &["--group", "cache", "--version", "v1beta1", "--kind", "Memcached", "--controller=false"]);
    ks(&dir)
        .args(["create", "webhook", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"])
        .args(["--defaulting", "--programmatic-validation", "--conversion", "--spoke", "v1beta1"])
        .assert()
        .success();
    ks(&dir).args(["make", "manifests"]).assert().success();
    dir
}

/// True when golden files should be rewritten instead of compared (`cargo xtask bless`).
pub fn blessing() -> bool {
    std::env::var_os("KUBESMITH_BLESS").is_some()
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// `create api` arguments of the tutorial's Memcached (`--image` with a command, a port and a user).
pub const MEMCACHED: [&str; 14] = [
    "--group",
    "cache",
    "--version",
    "v1alpha1",
    "--kind",
    "Memcached",
    "--image",
    "memcached:1.6.26-alpine3.19",
    "--image-container-command",
    "memcached,--memory-limit=64,-o,modern,-v",
    "--image-container-port",
    "11211",
    "--run-as-user",
    "1001",
];
/// `create api` arguments of a deploy-image kind with only an image.
pub const BUSYBOX: [&str; 8] =
    ["--group", "cache", "--version", "v1alpha1", "--kind", "Busybox", "--image", "busybox:1.36.1"];
