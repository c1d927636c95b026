//! Unit tests of RBAC inference, one per resolution pattern, on in-memory crates.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::{InferError, Inference, infer_with};

/// In-memory sources: `(path, text)`; every crate's folder is `/<name>/src`.
fn run(files: &[(&str, &str)], sources: &[&str], bin: Option<&str>) -> Result<Inference, InferError> {
    let map: BTreeMap<PathBuf, String> = files.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect();
    let read = move |p: &Path| map.get(p).cloned().ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound));
    let sources: Vec<PathBuf> = sources.iter().map(PathBuf::from).collect();
    infer_with(&sources, bin, &read)
}

/// One binary crate `/op/src/main.rs` with `body` after a common prelude of imports.
fn main_rs(body: &str) -> Inference {
    let text = format!("{PRELUDE}\n{body}");
    run(&[("/op/src/main.rs", &text)], &["/op/src"], None).unwrap()
}

const PRELUDE: &str = "use kube::{Api, Client, Resource, ResourceExt};\n\
    use kube::api::{Patch, PatchParams, PostParams, DeleteParams, ListParams};\n\
    use k8s_openapi::api::core::v1::{ConfigMap, Pod, Secret, Node};\n\
    use k8s_openapi::api::apps::v1::Deployment;\n";

fn triples(inf: &Inference) -> BTreeSet<String> {
    inf.grants().into_iter().map(|(g, r, v)| format!("{}/{r}:{v}", if g.is_empty() { "core" } else { &g })).collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn turbofish_annotated_let_param_and_return_type() {
    let inf = main_rs(
        "async fn main() {\n\
           let c = Client::try_default().await.unwrap();\n\
           let pods = Api::<Pod>::all(c.clone());\n\
           pods.list(&ListParams::default()).await.unwrap();\n\
           let cms: Api<ConfigMap> = Api::default_namespaced(c.clone());\n\
           cms.get(\"x\").await.unwrap();\n\
           read(&api_for(c.clone())?).await;\n\
         }\n\
         fn api_for(c: Client) -> Result<Api<Secret>, kube::Error> { Ok(Api::namespaced(c, \"ns\")) }\n\
         async fn read(s: &Api<Secret>) { s.get_opt(\"token\").await; }\n",
    );
    assert_eq!(triples(&inf), set(&["core/configmaps:get", "core/pods:list", "core/secrets:get"]));
    assert!(inf.warnings.is_empty(), "{:?}", inf.warnings);
    let site = inf.sites("", "secrets", "get").next().unwrap();
    assert_eq!((site.line, site.call.as_str()), (15, "Api<Secret>::get_opt"));
}

#[test]
fn struct_fields_aliases_and_use_renames() {
    let inf = main_rs(
        "use k8s_openapi::api::batch::v1::Job as BatchJob;\n\
         type Jobs = Api<BatchJob>;\n\
         struct Ctx { jobs: Jobs, nodes: Api<Node> }\n\
         async fn main() {\n\
           let c = Client::try_default().await.unwrap();\n\
           let ctx = std::sync::Arc::new(Ctx { jobs: Api::all(c.clone()), nodes: Api::all(c) });\n\
           ctx.jobs.delete_collection(&DeleteParams::default(), &ListParams::default()).await;\n\
           ctx.nodes.cordon(\"n1\").await;\n\
           ctx.nodes.uncordon(\"n1\").await;\n\
         }\n",
    );
    assert_eq!(triples(&inf), set(&["batch/jobs:deletecollection", "core/nodes:patch"]));
}

#[test]
fn object_argument_tells_the_resource_of_an_unannotated_api() {
    let inf = main_rs(
        "async fn main() {\n\
           let c = Client::try_default().await.unwrap();\n\
           let api = Api::namespaced(c.clone(), \"ns\");\n\
           let cm = ConfigMap::default();\n\
           api.create(&PostParams::default(), &cm).await;\n\
           api.replace(\"x\", &PostParams::default(), &cm).await;\n\
           api.delete(\"x\", &DeleteParams::default()).await;\n\
           let deploys = Api::namespaced(c, \"ns\");\n\
           let d: Deployment = Deployment::default();\n\
           deploys.patch(\"d\", &PatchParams::apply(\"me\"), &Patch::Apply(&d)).await;\n\
         }\n",
    );
    assert_eq!(
        triples(&inf),
        set(&[
            "apps/deployments:create",
            "apps/deployments:patch",
            "core/configmaps:create",
            "core/configmaps:delete",
            "core/configmaps:update"
        ])
    );
}

#[test]
fn controller_owns_watches_and_reconciler_signature() {
    let inf = run(
        &[
            ("/cache-api/src/lib.rs", "pub mod v1;\npub use v1::Cache;"),
            (
                "/cache-api/src/v1.rs",
                "#[derive(CustomResource, Clone)]\n#[kube(group = \"cache.example.net\", version = \"v1\", kind = \"Cache\", namespaced, status = \"S\")]\npub struct CacheSpec {}",
            ),
            (
                "/op/src/main.rs",
                "use std::sync::Arc;\nuse kube::{Api, Client, runtime::{Controller, watcher}};\nuse k8s_openapi::api::apps::v1::StatefulSet;\nuse k8s_openapi::api::core::v1::Service;\nuse cache_api::Cache;\n\
                 async fn main() {\n  let c = Client::try_default().await.unwrap();\n\
                   Controller::new(Api::all(c.clone()), watcher::Config::default())\n\
                     .owns(Api::<StatefulSet>::all(c.clone()), watcher::Config::default())\n\
                     .watches(Api::<Service>::all(c.clone()), watcher::Config::default(), |_| None)\n\
                     .shutdown_on_signal()\n\
                     .run(reconcile, error_policy, Arc::new(()))\n    .for_each(|_| async {}).await;\n}\n\
                 async fn reconcile(obj: Arc<Cache>, _ctx: Arc<()>) -> Result<(), kube::Error> { Ok(()) }\n\
                 fn error_policy(_o: Arc<Cache>, _e: &kube::Error, _c: Arc<()>) {}\n",
            ),
        ],
        &["/cache-api/src", "/op/src"],
        None,
    )
    .unwrap();
    assert_eq!(
        triples(&inf),
        set(&[
            "apps/statefulsets:list",
            "apps/statefulsets:watch",
            "cache.example.net/caches:list",
            "cache.example.net/caches:watch",
            "core/services:list",
            "core/services:watch",
        ])
    );
}

#[test]
fn generic_helpers_are_read_with_the_concrete_types_of_each_call() {
    let inf = main_rs(
        "async fn main() {\n\
           let c = Client::try_default().await.unwrap();\n\
           let cms: Api<ConfigMap> = Api::namespaced(c.clone(), \"ns\");\n\
           apply(&cms, &ConfigMap::default()).await;\n\
           let secret = Secret::default();\n\
           let api = scoped(&c, &secret);\n\
           api.get_metadata(\"s\").await;\n\
         }\n\
         async fn apply<K: Resource>(api: &Api<K>, obj: &K) { api.patch(\"n\", &PatchParams::apply(\"me\"), &Patch::Apply(obj)).await; }\n\
         fn scoped<K>(c: &Client, _obj: &K) -> Api<K> { Api::all(c.clone()) }\n\
         async fn unused<K: Resource>(api: &Api<K>) { api.delete(\"x\", &DeleteParams::default()).await; }\n",
    );
    assert_eq!(triples(&inf), set(&["core/configmaps:create", "core/configmaps:patch", "core/secrets:get"]));
    assert!(inf.warnings.is_empty(), "{:?}", inf.warnings);
}

#[test]
fn own_client_struct_and_single_impl_trait_wrap_api() {
    let inf = main_rs(
        "struct Store<K> { api: Api<K> }\n\
         impl<K: Resource> Store<K> {\n\
           fn new(c: Client) -> Self { Store { api: Api::all(c) } }\n\
           async fn fetch(&self, n: &str) { self.api.get(n).await; }\n\
         }\n\
         trait Janitor { async fn sweep(&self); }\n\
         struct PodJanitor { pods: Api<Pod> }\n\
         impl Janitor for PodJanitor { async fn sweep(&self) { self.pods.delete(\"p\", &DeleteParams::default()).await; } }\n\
         async fn clean(j: &dyn Janitor) { j.sweep().await }\n\
         async fn clean_generic<J: Janitor>(j: J) { j.sweep().await }\n\
         async fn main() {\n\
           let c = Client::try_default().await.unwrap();\n\
           let store: Store<Deployment> = Store::new(c.clone());\n\
           store.fetch(\"d\").await;\n\
           Store::<Secret>::new(c.clone()).fetch(\"s\").await;\n\
           let j = PodJanitor { pods: Api::all(c) };\n\
           clean(&j).await;\n\
           clean_generic(j).await;\n\
         }\n",
    );
    assert_eq!(triples(&inf), set(&["apps/deployments:get", "core/pods:delete", "core/secrets:get"]));
}

#[test]
fn generic_trait_object_binds_the_impl_through_its_arguments() {
    let inf = main_rs(
        "trait Objects<T> { async fn drop_one(&self, name: &str); }\n\
         struct Live<T> { inner: Api<T> }\n\
         impl<T: Resource> Objects<T> for Live<T> { async fn drop_one(&self, name: &str) { self.inner.delete(name, &DeleteParams::default()).await; } }\n\
         struct Ctx { secrets: Box<dyn Objects<Secret>> }\n\
         async fn main() { let ctx: Ctx = todo(); ctx.secrets.drop_one(\"x\").await; }\n",
    );
    assert_eq!(triples(&inf), set(&["core/secrets:delete"]));
}

#[test]
fn the_path_picks_the_group_of_a_kind_name_in_two_groups() {
    let inf = run(
        &[(
            "/op/src/main.rs",
            "mod own;\nuse kube::{Api, Client};\nuse k8s_openapi::api::core::v1 as corev1;\nuse k8s_openapi::api::events::v1::Event;\n\
             async fn main() {\n  let c = Client::try_default().await.unwrap();\n\
               Api::<corev1::Event>::all(c.clone()).list(&Default::default()).await;\n\
               Api::<Event>::all(c.clone()).watch(&Default::default(), \"0\").await;\n\
               Api::<own::Event>::all(c).get(\"e\").await;\n}\n",
        ), (
            "/op/src/own.rs",
            "#[derive(kube::CustomResource)]\n#[kube(group = \"audit.example.net\", version = \"v1\", kind = \"Event\")]\npub struct EventSpec {}",
        )],
        &["/op/src"],
        None,
    )
    .unwrap();
    assert_eq!(triples(&inf), set(&["audit.example.net/events:get", "core/events:list", "events.k8s.io/events:watch"]));
}

#[test]
fn subresources_and_verbs_the_call_does_not_show() {
    let inf = main_rs(
        "async fn main() {\n\
           let c = Client::try_default().await.unwrap();\n\
           let pods: Api<Pod> = Api::namespaced(c.clone(), \"ns\");\n\
           pods.evict(\"p\", &Default::default()).await;\n\
           pods.logs(\"p\", &Default::default()).await;\n\
           pods.exec(\"p\", vec![\"ls\"], &Default::default()).await;\n\
           pods.portforward(\"p\", &[80]).await;\n\
           let d: Api<Deployment> = Api::all(c.clone());\n\
           d.patch_scale(\"d\", &PatchParams::default(), &Patch::Merge(())).await;\n\
           d.replace_status(\"d\", &PostParams::default(), vec![]).await;\n\
           d.restart(\"d\").await;\n\
           d.get_subresource(\"status\", \"d\").await;\n\
           let cms: Api<ConfigMap> = Api::all(c);\n\
           cms.entry(\"cm\").await;\n\
         }\n",
    );
    assert_eq!(
        triples(&inf),
        set(&[
            "apps/deployments/scale:patch",
            "apps/deployments/status:get",
            "apps/deployments/status:update",
            "apps/deployments:patch",
            "core/configmaps:create",
            "core/configmaps:get",
            "core/configmaps:update",
            "core/pods/eviction:create",
            "core/pods/exec:create",
            "core/pods/exec:get",
            "core/pods/log:get",
            "core/pods/portforward:create",
            "core/pods/portforward:get",
        ])
    );
}

#[test]
fn runtime_helpers_finalizer_recorder_watcher_and_owner_references() {
    let inf = run(
        &[(
            "/op/src/main.rs",
            "use std::sync::Arc;\nuse kube::{Api, Client, Resource, runtime::{finalizer, watcher, metadata_watcher, reflector, events::{Recorder, Reporter}}};\n\
             use k8s_openapi::api::core::v1::{Namespace, Pod};\n\
             #[derive(kube::CustomResource)]\n#[kube(group = \"g.example.net\", version = \"v1\", kind = \"Thing\", namespaced)]\nstruct ThingSpec {}\n\
             struct Ctx { recorder: Recorder, client: Client }\n\
             async fn main() {\n  let c = Client::try_default().await.unwrap();\n\
               let ctx = Arc::new(Ctx { recorder: Recorder::new(c.clone(), Reporter::from(\"op\")), client: c.clone() });\n\
               let things: Api<Thing> = Api::all(c.clone());\n\
               let (reader, writer) = reflector::store();\n\
               let _s = reflector(writer, watcher(Api::<Namespace>::all(c.clone()), Default::default()));\n\
               let _m = metadata_watcher(Api::<Pod>::all(c.clone()), Default::default());\n\
               let t = Arc::new(Thing::new(\"t\", ThingSpec {}));\n\
               finalizer(&things, \"f\", t.clone(), |e| async { step(t.clone(), ctx.clone()).await }).await;\n}\n\
             async fn step(t: Arc<Thing>, ctx: Arc<Ctx>) {\n  let _o = t.controller_owner_ref(&());\n\
               ctx.recorder.publish(&ev(), &t.object_ref(&())).await;\n}\n",
        )],
        &["/op/src"],
        None,
    )
    .unwrap();
    assert_eq!(
        triples(&inf),
        set(&[
            "core/namespaces:list",
            "core/namespaces:watch",
            "core/pods:list",
            "core/pods:watch",
            "events.k8s.io/events:create",
            "events.k8s.io/events:patch",
            "g.example.net/things/finalizers:update",
            "g.example.net/things:patch",
        ])
    );
}

#[test]
fn dynamic_objects_resolve_through_erase_and_warn_when_runtime_only() {
    let inf = main_rs(
        "use kube::api::{ApiResource, DynamicObject, GroupVersionKind};\n\
         async fn main() {\n\
           let c = Client::try_default().await.unwrap();\n\
           let ar = ApiResource::erase::<Deployment>(&());\n\
           let known: Api<DynamicObject> = Api::all_with(c.clone(), &ar);\n\
           known.list(&Default::default()).await;\n\
           let gvk = GroupVersionKind::gvk(\"x\", \"v1\", \"Y\");\n\
           let unknown: Api<DynamicObject> = Api::namespaced_with(c.clone(), \"ns\", &ApiResource::from_gvk(&gvk));\n\
           unknown.delete(\"y\", &Default::default()).await;\n\
           c.request::<Pod>(http::Request::new(vec![])).await;\n\
         }\n",
    );
    assert_eq!(triples(&inf), set(&["apps/deployments:list"]));
    let literal = main_rs(
        "use kube::api::{ApiResource, DynamicObject, GroupVersionKind};\n\
         async fn main() {\n\
           let c = Client::try_default().await.unwrap();\n\
           let gvk = GroupVersionKind::gvk(\"batch\", \"v1\", \"CronJob\");\n\
           Api::<DynamicObject>::all_with(c.clone(), &ApiResource::from_gvk(&gvk)).list(&Default::default()).await;\n\
           let mon = GroupVersionKind::gvk(\"monitoring.coreos.com\", \"v1\", \"ServiceMonitor\");\n\
           let ar = ApiResource::from_gvk_with_plural(&mon, \"servicemonitors\");\n\
           Api::<DynamicObject>::namespaced_with(c, \"ns\", &ar).create(&Default::default(), &todo()).await;\n\
         }\n",
    );
    assert_eq!(triples(&literal), set(&["batch/cronjobs:list", "monitoring.coreos.com/servicemonitors:create"]));
    assert!(literal.warnings.is_empty(), "{:?}", literal.warnings);
    let lines: Vec<(usize, bool)> =
        inf.warnings.iter().map(|w| (w.line, w.message.contains("resources=<resource>,verbs=delete"))).collect();
    assert_eq!(lines, [(14, true), (15, false)], "{:?}", inf.warnings);
    assert!(inf.warnings[1].message.starts_with("Client::request"), "{:?}", inf.warnings);
}

#[test]
fn only_code_reachable_from_main_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let files = [
        (
            "tools/src/lib.rs",
            "use kube::{Api, Client};\nuse k8s_openapi::api::core::v1::{Pod, Secret};\n\
             pub async fn used(c: Client) { Api::<Pod>::all(c).list(&Default::default()).await; }\n\
             pub async fn only_for_admins(c: Client) { Api::<Secret>::all(c).delete(\"s\", &Default::default()).await; }\n\
             pub async fn leaves<K>(api: kube::Api<K>) { api.get(\"x\").await; }\n",
        ),
        (
            "op/src/main.rs",
            "async fn main() { let c = kube::Client::try_default().await.unwrap(); let f = || tools::used(c); f().await; }",
        ),
        ("op/src/bin/audit.rs", "fn main() { let _ = tools::only_for_admins; }"),
    ];
    for (rel, text) in files {
        let p = tmp.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let both = [tmp.path().join("tools/src"), tmp.path().join("op/src")];
    let all = super::infer_sources(&both, None).unwrap();
    assert_eq!(triples(&all), set(&["core/pods:list", "core/secrets:delete"]));
    let op = super::infer_sources(&both, Some("op")).unwrap();
    assert_eq!(triples(&op), set(&["core/pods:list"]));
    assert_eq!(op.entries, ["bin op"]);
    // A library alone starts from its public fns; a generic K from outside is a warning, not a guess.
    let lib = super::infer_sources(&both[..1], None).unwrap();
    assert_eq!(triples(&lib), set(&["core/pods:list", "core/secrets:delete"]));
    assert_eq!(lib.warnings.len(), 1);
    assert!(lib.warnings[0].message.contains("Api<K> where the generic K is not bound"), "{:?}", lib.warnings);
    match super::infer_sources(&both, Some("nope")) {
        Err(InferError::UnknownBin { known, .. }) => assert_eq!(known, "audit, op"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn creating_a_cluster_role_needs_what_it_grants() {
    let inf = main_rs(
        "use k8s_openapi::api::rbac::v1::{ClusterRole, PolicyRule};\n\
         async fn main() {\n\
           let c = Client::try_default().await.unwrap();\n\
           let role = ClusterRole { rules: Some(vec![PolicyRule { api_groups: Some(vec![\"apps\".into()]), resources: Some(vec![\"daemonsets\".to_string()]), verbs: vec![\"get\".into(), \"list\".into()], ..Default::default() }]), ..Default::default() };\n\
           Api::<ClusterRole>::all(c).create(&PostParams::default(), &role).await;\n\
         }\n",
    );
    // The rules are read from the object's `let`: the call itself names only `role`.
    assert_eq!(
        triples(&inf),
        set(&["apps/daemonsets:get", "apps/daemonsets:list", "rbac.authorization.k8s.io/clusterroles:create"])
    );
    assert!(inf.warnings.is_empty(), "{:?}", inf.warnings);
}

#[test]
fn leader_election_crates_and_macros() {
    let inf = main_rs(
        "use kube_leader_election::{LeaseLock, LeaseLockParams};\n\
         async fn main() {\n\
           let c = Client::try_default().await.unwrap();\n\
           let lock = LeaseLock::new(c.clone(), \"ns\", LeaseLockParams::default());\n\
           tokio::join!(one(c.clone()), two(c));\n\
         }\n\
         async fn one(c: Client) { Api::<Secret>::all(c).get(\"a\").await; }\n\
         async fn two(c: Client) { Api::<ConfigMap>::all(c).list(&Default::default()).await; }\n",
    );
    assert_eq!(
        triples(&inf),
        set(&[
            "coordination.k8s.io/leases:create",
            "coordination.k8s.io/leases:get",
            "coordination.k8s.io/leases:patch",
            "core/configmaps:list",
            "core/secrets:get"
        ])
    );
}

#[test]
fn explain_lists_every_call_site_of_every_rule() {
    let inf = main_rs(
        "async fn main() {\n\
           let c = Client::try_default().await.unwrap();\n\
           let s: Api<Secret> = Api::all(c);\n\
           s.get(\"a\").await;\n\
           s.get(\"b\").await;\n\
         }\n",
    );
    let text = inf.explain("manager-role", &|p| p.display().to_string());
    assert_eq!(
        text,
        "rule: apiGroups=\"\" resources=secrets verbs=get\n  get secrets (core): /op/src/main.rs:9 Api<Secret>::get\n  get secrets (core): /op/src/main.rs:10 Api<Secret>::get\n"
    );
}

#[test]
fn server_side_apply_with_the_patch_type_spelled_out_still_creates() {
    let inf = main_rs(
        "async fn main() {\n\
           let c = Client::try_default().await.unwrap();\n\
           let cms: Api<ConfigMap> = Api::namespaced(c, \"ns\");\n\
           let cm = ConfigMap::default();\n\
           let patch: Patch<&ConfigMap> = Patch::Apply(&cm);\n\
           cms.patch(\"x\", &PatchParams::apply(\"op\"), &patch).await.unwrap();\n\
         }\n",
    );
    assert_eq!(triples(&inf), set(&["core/configmaps:create", "core/configmaps:patch"]));
}

#[test]
fn a_hand_built_owner_reference_blocking_deletion_counts_as_controller_owner_ref() {
    let kind = "#[derive(kube::CustomResource)]\n#[kube(group = \"g.example.net\", version = \"v1\", kind = \"Thing\", namespaced)]\n\
                struct ThingSpec {}\n\
                use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;\n";
    for (kind_field, block) in [
        ("\"Thing\".into()", "Some(true)"),
        ("Thing::kind(&()).to_string()", "Some(true)"),
        ("\"Thing\".to_string()", "Some(false)"),
        ("\"Thing\".to_string()", "None"),
    ] {
        let inf = main_rs(&format!(
            "{kind}async fn main() {{\n\
               let c = Client::try_default().await.unwrap();\n\
               let cms: Api<ConfigMap> = Api::namespaced(c, \"ns\");\n\
               let owner = OwnerReference {{ api_version: \"g.example.net/v1\".into(), kind: {kind_field}, name: \"t\".into(), \
                 uid: \"u\".into(), controller: Some(true), block_owner_deletion: {block} }};\n\
               let _ = owner;\n\
               cms.get(\"x\").await.unwrap();\n\
             }}\n"
        ));
        let want: &[&str] = if block == "Some(true)" {
            &["core/configmaps:get", "g.example.net/things/finalizers:update"]
        } else {
            &["core/configmaps:get"]
        };
        assert_eq!(triples(&inf), set(want), "{kind_field} {block}");
        if block == "Some(true)" {
            let need = inf.needs.iter().find(|n| n.resource == "things/finalizers").unwrap();
            assert!(need.call.contains("OwnerReferencesPermissionEnforcement"), "{}", need.call);
        }
    }
}

#[test]
fn k8s_openapi_re_exported_under_other_paths() {
    // A library re-exports k8s-openapi whole, one module of it renamed, and one module's every name by a glob; the
    // binary names resources through each, and through a glob of its own over the library's glob module.
    let lib = "pub use k8s_openapi;\n\
        pub use k8s_openapi::api as k8s;\n\
        pub use k8s_openapi::api::apps::v1 as apps;\n\
        pub mod batch { pub use k8s_openapi::api::batch::v1::*; }\n\
        pub mod all { pub use k8s_openapi::*; }\n";
    let main = "use kube::Api;\n\
        use kit::batch::*;\n\
        async fn run(c: kube::Client) {\n\
            Api::<kit::k8s::apps::v1::Deployment>::all(c.clone()).list(&Default::default()).await;\n\
            Api::<kit::apps::StatefulSet>::all(c.clone()).get(\"x\").await;\n\
            Api::<kit::k8s_openapi::api::core::v1::Pod>::all(c.clone()).watch(&Default::default(), \"0\").await;\n\
            Api::<kit::batch::Job>::all(c.clone()).delete(\"x\", &Default::default()).await;\n\
            Api::<CronJob>::all(c.clone()).create(&Default::default(), &todo!()).await;\n\
            Api::<kit::all::api::core::v1::Secret>::all(c.clone()).get(\"x\").await;\n\
        }\n\
        fn main() { run(todo!()); }\n";
    let inf = run(&[("/kit/src/lib.rs", lib), ("/op/src/main.rs", main)], &["/kit/src", "/op/src"], None).unwrap();
    assert_eq!(
        triples(&inf),
        set(&[
            "apps/deployments:list",
            "apps/statefulsets:get",
            "core/pods:watch",
            "batch/jobs:delete",
            "batch/cronjobs:create",
            "core/secrets:get",
        ])
    );
    assert!(inf.warnings.is_empty(), "{:?}", inf.warnings);
}

#[test]
fn a_name_two_external_globs_could_hold_is_kept_only_when_one_is_k8s_openapi() {
    // `Pod` could come from either glob: only k8s-openapi's path is a resource, so that one is taken; a name no
    // glob's path knows stays unknown (a warning, never a guess by last segment).
    let lib = "pub mod kinds { pub use other_crate::prelude::*; pub use k8s_openapi::api::core::v1::*; }\n\
        pub mod none { pub use other_crate::prelude::*; }\n";
    let main = "async fn run(c: kube::Client) {\n\
            kube::Api::<kit::kinds::Pod>::all(c.clone()).list(&Default::default()).await;\n\
            kube::Api::<kit::none::Deployment>::all(c.clone()).list(&Default::default()).await;\n\
        }\n\
        fn main() { run(todo!()); }\n";
    let inf = run(&[("/kit/src/lib.rs", lib), ("/op/src/main.rs", main)], &["/kit/src", "/op/src"], None).unwrap();
    assert_eq!(triples(&inf), set(&["core/pods:list"]));
    assert_eq!(inf.warnings.len(), 1, "{:?}", inf.warnings);
    assert_eq!(inf.warnings[0].line, 3);
}

#[test]
fn a_dependency_is_read_only_where_the_walk_reaches_it() {
    // A library whose one public fn calls one of its dependency's two helpers: the other helper, public as it
    // is, is no entry point.
    let files = [
        ("/app/src/lib.rs", "pub async fn sync(c: kube::Client) { kit::pods(c).await; }"),
        (
            "/kit/src/lib.rs",
            "use kube::Api; use k8s_openapi::api::core::v1::{Pod, Secret};\n\
             pub async fn pods(c: kube::Client) { Api::<Pod>::all(c).list(&Default::default()).await; }\n\
             pub async fn secrets(c: kube::Client) { Api::<Secret>::all(c).delete(\"x\", &Default::default()).await; }\n",
        ),
    ];
    let map: BTreeMap<PathBuf, String> = files.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect();
    let read = move |p: &Path| map.get(p).cloned().ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound));
    let kit =
        crate::source::dependencies::Found { name: "kit".into(), src: PathBuf::from("/kit/src"), immutable: false };
    let inf = super::infer_with_dependencies(&[PathBuf::from("/app/src")], &[kit], None, &read).unwrap();
    assert_eq!(triples(&inf), set(&["core/pods:list"]));
    assert_eq!(inf.entries, ["lib app (public fns)"]);
}

#[test]
fn a_call_on_an_unknown_receiver_reaches_methods_of_that_name_not_associated_fns() {
    // kubert 0.18's shape: `LeaseManager::get(api, name)` is an associated fn (no `self`); a `.get(..)` on a value
    // kubesmith cannot type (a reflector store's lookup) is never a call of it, but it may be a method's.
    let inf = main_rs(
        "struct Manager;\n\
         impl Manager {\n\
           async fn get(api: Api<Secret>, name: &str) { api.get(name).await.unwrap(); }\n\
         }\n\
         struct Other;\n\
         impl Other {\n\
           async fn get(&self, c: Client) { Api::<ConfigMap>::all(c).list(&Default::default()).await.unwrap(); }\n\
         }\n\
         async fn main() {\n\
           let c = Client::try_default().await.unwrap();\n\
           let store = unknown_store();\n\
           store.get(c).await;\n\
         }\n",
    );
    assert_eq!(triples(&inf), set(&["core/configmaps:list"]));
}
