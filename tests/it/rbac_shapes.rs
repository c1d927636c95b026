//! `kubesmith rbac infer` on shapes real operators use (`tests/fixtures/rbac-infer/`: `relay`, `herd`,
//! `switchboard`): watches through a
//! runtime crate's generic `watch_all::<DeserializeGuard<R>>` (the kind carried by `impl Stream<Item = Event<T>>`),
//! kube-runtime's watchers handed to a helper as values, writes through a blanket `impl<T, K> Owned<T, K> for T`,
//! closures over a reflector store's objects, `get_opt`'s `Result<Option<K>>`, a gate only a framework calls, a
//! patched framework crate, and a `dyn` client whose kind a later use of its result tells.

use std::path::Path;

use crate::rbac_infer::{set, triples};
use crate::support::ks;

/// What `relay`'s main reaches, worked out by hand from the fixture's sources.
const RELAY: &[(&str, &str, &str)] = &[
    // guarded::<Beacon> and guarded::<ConfigMap> -> rt.watch_all::<DeserializeGuard<R>> -> watch -> inner ->
    // watcher: the guard's resource is R's.
    ("relay.example.net", "beacons", "list"),
    ("relay.example.net", "beacons", "watch"),
    ("", "configmaps", "list"),
    ("", "configmaps", "watch"),
    // spawn_watch(Api<Deployment>, watcher) and spawn_watch(Api<Secret>, metadata_watcher): `stream_fn(api, ..)`.
    ("apps", "deployments", "list"),
    ("apps", "deployments", "watch"),
    ("", "secrets", "list"),
    ("", "secrets", "watch"),
    // beacon.apply_owned(.., Service): the blanket impl's server-side apply, K = Service.
    ("", "services", "patch"),
    ("", "services", "create"),
    // cm.remove_owned(.., &Secret): the blanket impl on a k8s-openapi receiver, K = Secret.
    ("", "secrets", "delete"),
    // `let Some(lamp) = pods.get_opt(..).await? else ..` then lamp.remove_owned: get, then delete on the Pod.
    ("", "pods", "get"),
    ("", "pods", "delete"),
    // prune: store.state() -> filter -> collect -> iter -> map(|d| beacon.remove_owned(.., d.as_ref())).
    ("apps", "deployments", "delete"),
    // Router::layer(Gate::new(ApiReviewer { .. })): the framework calls Gate's `Service::call`, which reviews the
    // token through the Reviewer impl.
    ("authentication.k8s.io", "tokenreviews", "create"),
];

/// `rbac infer --offline` in fixture `name` (with `args`) gives exactly `rules`, with no warning: every call's kind
/// is known.
fn infers_exactly(name: &str, args: &[&str], rules: &[(&str, &str, &str)]) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rbac-infer").join(name);
    let out = ks(&dir).args(["rbac", "infer", "--offline"]).args(args).assert().success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert_eq!(triples(&stdout), set(rules), "{stdout}\n{stderr}");
    assert_eq!(stderr.trim_end(), "", "every call's kind is known");
}

#[test]
fn rbac_infer_follows_runtime_watches_watchers_as_values_and_blanket_impls() {
    infers_exactly("relay", &["--bin", "relay"], RELAY);
}

/// What `herd`'s operator reaches through its framework crate (a git dependency the workspace's `[patch]` points
/// at a folder), worked out by hand from the fixture's sources.
const HERD: &[(&str, &str, &str)] = &[
    // Controller::new(Api<DeserializeGuard<v1alpha1::Flock>>): the versioned kind through its guard.
    ("herd.example.org", "flocks", "list"),
    ("herd.example.org", "flocks", "watch"),
    // client.get::<v1alpha1::Flock> and ::<Pen>: `self.get_api(namespace)` binds get_api's T through T::Namespace.
    ("herd.example.org", "flocks", "get"),
    ("fw.herd.example.org", "pens", "get"),
    // Tracker::add of the Vecs a destructured struct holds: `tuned()` (the trait's default for ConfigMap, its own
    // for StatefulSet) then apply_patch (server-side apply: patch, create) or, paused, `get` whose T is what
    // `add` returns through `map_err`.
    ("", "configmaps", "patch"),
    ("", "configmaps", "create"),
    ("", "configmaps", "get"),
    ("apps", "statefulsets", "patch"),
    ("apps", "statefulsets", "create"),
    ("apps", "statefulsets", "get"),
    // prune_kind::<K>: list, then delete of each orphan pushed into a local Vec.
    ("", "configmaps", "list"),
    ("", "configmaps", "delete"),
    ("apps", "statefulsets", "list"),
    ("apps", "statefulsets", "delete"),
    // tracker.add(role_binding(..)): the RoleBinding applied, and `bind` on the ClusterRole its RoleRef names.
    ("rbac.authorization.k8s.io", "rolebindings", "patch"),
    ("rbac.authorization.k8s.io", "rolebindings", "create"),
    ("rbac.authorization.k8s.io", "rolebindings", "get"),
    ("rbac.authorization.k8s.io", "clusterroles", "bind"),
    // kube.request(http::Request::get(format!("/api/v1/nodes/{}/proxy/configz", ..))): the path's rule.
    ("", "nodes/proxy", "get"),
    // Server::run calls each `Box<dyn Hook>`'s rotate: Conversion<H>'s (H open) force-applies the CRDs through
    // its own `self.reconcile_crd(..)`.
    ("apiextensions.k8s.io", "customresourcedefinitions", "patch"),
    ("apiextensions.k8s.io", "customresourcedefinitions", "create"),
];

#[test]
fn rbac_infer_reads_a_patched_framework_crate_its_versioned_kinds_and_generic_client() {
    // (`hasher.update(bytes)` on sha2's hasher is no call of the framework client's methods: no warning.)
    infers_exactly("herd", &["--bin", "herd-op"], HERD);
}

/// What `switchboard`'s agent reaches through its `dyn` client abstraction (akri's shape), by hand.
const SWITCHBOARD: &[(&str, &str, &str)] = &[
    // `namespaced(..)` through the supertraits `IntoApi<ConfigMap> + IntoApi<Secret>`, then `.get(..)`: the kind
    // is what the `let Some(cm): Option<ConfigMap> = cm else` after it, or the `let` annotation, says.
    ("", "configmaps", "get"),
    ("", "secrets", "get"),
    // `.add_finalizer(svc.as_ref(), ..)`: the trait's default, `T` from the argument, then its `set_finalizers`.
    ("", "services", "patch"),
    // `let api = client.namespaced(..)`; `api.delete(..)`; later `api.apply(copy, ..)` with a Pod.
    ("", "pods", "delete"),
    ("", "pods", "patch"),
    ("", "pods", "create"),
];

#[test]
fn rbac_infer_reads_the_kind_of_a_dyn_client_from_the_later_use_of_its_result() {
    infers_exactly("switchboard", &[], SWITCHBOARD);
}
