//! `kubesmith rbac infer` through a wrapper crate of generic helpers (`tests/fixtures/rbac-infer/kitchen`): each
//! helper's kube call lands on the kind the operator calls it with, bound by turbofish, arguments, receivers and
//! the `let` the result fills.

use std::path::{Path, PathBuf};

use crate::rbac_infer::{set, triples};
use crate::support::ks;

fn kitchen() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rbac-infer/kitchen")
}

const SOURCES: [&str; 4] = ["--source", "op/src", "--source", "kitchen/src"];

/// What `op`'s main reaches through the kitchen, worked out by hand from the fixture's sources.
pub(crate) const OP: &[(&str, &str, &str)] = &[
    // LeaseKeeper::try_acquire: get_opt, create, replace on its Api<Lease>.
    ("coordination.k8s.io", "leases", "get"),
    ("coordination.k8s.io", "leases", "create"),
    ("coordination.k8s.io", "leases", "update"),
    // kitchen::watch_all::<Pod> and rt.watch_all::<Order> (which calls watch_all::<K>): one body, two kinds.
    ("", "pods", "watch"),
    ("diner.example.org", "orders", "watch"),
    // rt.count::<Node> lists through the private `self.api::<K>()`.
    ("", "nodes", "list"),
    // rt.list_in::<Order> by turbofish; `let menus: Vec<ConfigMap> = rt.list_in(..)` by the let.
    ("diner.example.org", "orders", "list"),
    ("", "configmaps", "list"),
    // StatusIndex<Order> by the let's type; the unannotated index by the Table it patches.
    ("diner.example.org", "orders/status", "patch"),
    ("diner.example.org", "tables/status", "patch"),
    // kitchen::apply (a fn re-exported beside its module `apply`) with &Api<Secret>: server-side apply.
    ("", "secrets", "patch"),
    ("", "secrets", "create"),
    // kitchen::apply::create_in(.., &ConfigMap): K from the object.
    ("", "configmaps", "create"),
    // Scoped::new(Api<Service>) is a Scoped<Service>: fetch gets, remove deletes.
    ("", "services", "get"),
    ("", "services", "delete"),
    // pantry::restock::<Secret>, a registry crate's helper read where cargo unpacked it.
    ("", "secrets", "list"),
];

/// The cargo home the tests point `CARGO_HOME` at: `pantry` 0.3.1 unpacked in a registry's src folder.
fn cargo_home() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rbac-infer/kitchen-cargo-home")
}

/// The one dependency on kube no source is found for, warned at the operator's call into it.
const LARDER: &str = "warning: op/src/main.rs:57: larder 0.2.0 (a git dependency, Cargo.lock:48) depends on kube but \
    its git checkout is not on disk, so it was not read: the role misses the API calls the code makes through \
    `larder::`; nothing was fetched (offline); run `cargo fetch` (or kubesmith without --offline) and infer again, or \
    pass --source with its src folder";

#[test]
fn rbac_infer_lands_a_wrapper_crates_generic_calls_on_the_callers_kinds() {
    let out = ks(&kitchen())
        .env("CARGO_HOME", cargo_home())
        .args(["rbac", "infer", "--offline", "--bin", "op"])
        .args(SOURCES)
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert_eq!(triples(&stdout), set(OP), "{stdout}");
    assert_eq!(stderr.trim_end(), LARDER, "every generic is bound by op's calls");
}

#[test]
fn rbac_infer_reads_the_kube_dependent_crates_the_operator_depends_on_without_source_flags() {
    // Only the operator's folder: the kitchen is its path dependency, pantry a registry crate of its Cargo.lock.
    let out = ks(&kitchen())
        .env("CARGO_HOME", cargo_home())
        .args(["rbac", "infer", "--offline", "--bin", "op", "--source", "op/src"])
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert_eq!(triples(&stdout), set(OP), "{stdout}");
    assert_eq!(stderr.trim_end(), LARDER);

    // Nothing fetched: pantry is not read, and the warning says so; the rest is the same.
    let empty = tempfile::tempdir().unwrap();
    let out = ks(&kitchen())
        .env("CARGO_HOME", empty.path())
        .args(["rbac", "infer", "--offline", "--bin", "op", "--source", "op/src"])
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    let without_pantry: Vec<_> = OP.iter().copied().filter(|t| *t != ("", "secrets", "list")).collect();
    assert_eq!(triples(&stdout), set(&without_pantry), "{stdout}");
    let pantry = "warning: op/src/main.rs:55: pantry 0.3.1 (a registry dependency, Cargo.lock:67) depends on kube \
        but its source is not on disk (not fetched), so it was not read: the role misses the API calls the code makes \
        through `pantry::`; nothing was fetched (offline); run `cargo fetch` (or kubesmith without --offline) and \
        infer again, or pass --source with its src folder";
    assert_eq!(stderr.lines().collect::<Vec<_>>(), [LARDER, pantry]);
}

#[test]
fn rbac_infer_warns_at_each_generic_call_no_caller_binds() {
    // The wrapper alone (its public fns as entry points): only the lease, whose type is written, is a rule; each
    // generic helper's call is a warning at its own line, naming the parameter.
    let out = ks(&kitchen()).args(["rbac", "infer", "--source", "kitchen/src"]).assert().success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    let leases = [
        ("coordination.k8s.io", "leases", "get"),
        ("coordination.k8s.io", "leases", "create"),
        ("coordination.k8s.io", "leases", "update"),
    ];
    assert_eq!(triples(&stdout), set(&leases), "{stdout}");
    let sites: Vec<(&str, &str)> = stderr
        .lines()
        .map(|l| {
            let at = l.strip_prefix("warning: ").and_then(|r| r.split(' ').next()).expect("a warning with its site");
            let param = if l.contains("Api<R> where the generic R is not bound") { "R" } else { "K" };
            assert!(l.contains(&format!("Api<{param}> where the generic {param} is not bound")), "{l}");
            assert!(l.contains("name the kind at the call (`::<Kind>`)"), "{l}");
            (at, param)
        })
        .collect();
    assert_eq!(
        sites,
        [
            ("kitchen/src/apply.rs:15:", "K"),
            ("kitchen/src/apply.rs:15:", "K"),
            ("kitchen/src/apply.rs:28:", "K"),
            ("kitchen/src/apply.rs:45:", "K"),
            ("kitchen/src/apply.rs:49:", "K"),
            ("kitchen/src/runtime.rs:15:", "K"),
            ("kitchen/src/runtime.rs:47:", "K"),
            ("kitchen/src/runtime.rs:57:", "K"),
            ("kitchen/src/status.rs:29:", "R"),
        ]
    );
}
