//! The cached inference equals the full read: cold, warm, after edits of every kind, with a damaged cache file.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Cache, Outcome};
use crate::rbac::infer::{Inference, infer_with_cache};

const API: &str = "#[derive(CustomResource, Clone, Debug)]\n\
    #[kube(group = \"widgets.example.net\", version = \"v1\", kind = \"Widget\", namespaced)]\n\
    pub struct WidgetSpec { pub size: u32 }\n";

const MAIN: &str = "mod controller;\nmod helpers;\nmod store;\n\
    use kube::{Api, Client};\n\
    use k8s_openapi::api::core::v1::ConfigMap;\n\
    #[tokio::main]\n\
    async fn main() {\n\
        let c = Client::try_default().await.unwrap();\n\
        controller::run(c.clone()).await;\n\
        helpers::touch::<ConfigMap>(&c).await;\n\
    }\n";

const HELPERS: &str = "use kube::{Api, Client, Resource};\n\
    /// Reads one object of any kind.\n\
    pub async fn touch<K: Resource>(c: &Client) {\n\
        let api: Api<K> = Api::all(c.clone());\n\
        api.get(\"x\").await;\n\
    }\n\
    pub async fn unused(c: &Client) { let a: Api<k8s_openapi::api::core::v1::Node> = Api::all(c.clone()); a.delete(\"n\", &Default::default()).await; }\n\
    #[cfg(test)]\nmod tests { fn t() { super::unused(todo!()); } }\n";

const STORE: &str = "use kube::Api;\n\
    pub struct Store<K> { pub api: Api<K> }\n\
    impl<K: kube::Resource> Store<K> {\n\
        pub async fn drop_all(&self) { self.api.delete_collection(&Default::default(), &Default::default()).await; }\n\
    }\n\
    pub trait Sweep { async fn sweep(&self); }\n";

const CONTROLLER: &str = "use std::sync::Arc;\n\
    use kube::{Api, Client, runtime::{Controller, watcher, events::Recorder}};\n\
    use k8s_openapi::api::core::v1::{Pod, Secret};\n\
    use widgets::Widget;\n\
    use crate::{helpers, store::{Store, Sweep}};\n\
    pub async fn run(c: Client) {\n\
        let pods: Api<Pod> = Api::namespaced(c.clone(), \"ns\");\n\
        pods.list(&Default::default()).await;\n\
        helpers::touch::<Secret>(&c).await;\n\
        Controller::new(Api::<Widget>::all(c.clone()), watcher::Config::default())\n\
            .run(reconcile, error_policy, Arc::new(c.clone()))\n\
            .await;\n\
    }\n\
    async fn reconcile(obj: Arc<Widget>, c: Arc<Client>) -> Result<(), kube::Error> {\n\
        let s = Store { api: Api::<Widget>::all((*c).clone()) };\n\
        s.drop_all().await;\n\
        Ok(())\n\
    }\n\
    fn error_policy(_o: Arc<Widget>, _e: &kube::Error, _c: Arc<Client>) {}\n\
    struct Sweeper { pods: Api<Pod> }\n\
    impl Sweep for Sweeper { async fn sweep(&self) { self.pods.evict(\"p\", &Default::default()).await; } }\n";

/// An in-memory tree whose files can be edited between runs.
struct Tree {
    files: RefCell<BTreeMap<PathBuf, String>>,
}

impl Tree {
    fn new() -> Tree {
        let files = [
            ("/ws/widgets/src/lib.rs", API),
            ("/ws/op/src/main.rs", MAIN),
            ("/ws/op/src/helpers.rs", HELPERS),
            ("/ws/op/src/store.rs", STORE),
            ("/ws/op/src/controller.rs", CONTROLLER),
        ];
        Tree { files: RefCell::new(files.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect()) }
    }

    fn set(&self, path: &str, text: &str) {
        self.files.borrow_mut().insert(PathBuf::from(path), text.to_string());
    }

    fn edit(&self, path: &str, from: &str, to: &str) {
        let old = self.files.borrow()[Path::new(path)].clone();
        assert!(old.contains(from), "{from:?} not in {path}");
        self.set(path, &old.replacen(from, to, 1));
    }

    fn read(&self, p: &Path) -> std::io::Result<String> {
        self.files.borrow().get(p).cloned().ok_or_else(|| std::io::ErrorKind::NotFound.into())
    }

    fn infer(&self, cache: Option<&Cache>) -> Inference {
        let sources = [PathBuf::from("/ws/widgets/src"), PathBuf::from("/ws/op/src")];
        infer_with_cache(&sources, None, &|p| self.read(p), cache).unwrap()
    }

    /// Infers through `cache`, checks the result equals a run without cache, and says how it was found.
    fn check(&self, cache: &Cache) -> Outcome {
        let cached = self.infer(Some(cache));
        let full = self.infer(None);
        assert_eq!(cached, full, "cached and full inference differ ({:?})", cache.last_outcome());
        cache.last_outcome().unwrap()
    }
}

fn cache_file(cache: &Cache) -> PathBuf {
    let files: Vec<PathBuf> = std::fs::read_dir(cache.dir()).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

#[test]
fn cold_warm_and_edited_runs_equal_the_full_read() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = Cache::at(&tmp.path().join("rbac-cache"));
    let tree = Tree::new();
    assert_eq!(tree.check(&cache), Outcome::Full, "cold");
    let first = tree.infer(None);
    assert!(first.needs.len() >= 5 && first.needs.iter().any(|n| n.resource == "widgets"), "{first:?}");
    assert_eq!(tree.check(&cache), Outcome::Unchanged, "warm");

    // A body edit that moves every line below it and adds a call: only that file is parsed, and only its fns
    // are read again.
    tree.edit(
        "/ws/op/src/controller.rs",
        "pods.list(&Default::default()).await;\n",
        "pods.list(&Default::default()).await;\n\n\n        let cms: Api<k8s_openapi::api::core::v1::ConfigMap> = Api::all(c.clone());\n        cms.delete(\"y\", &Default::default()).await;\n",
    );
    assert_eq!(tree.check(&cache), Outcome::Reread);
    assert_eq!(tree.check(&cache), Outcome::Unchanged);
    assert_ne!(tree.infer(None), first);

    // A generic helper in an unchanged file called with a new type: the walk is replayed, and that file is read in
    // full as well.
    tree.edit(
        "/ws/op/src/controller.rs",
        "helpers::touch::<Secret>(&c).await;",
        "helpers::touch::<Secret>(&c).await; helpers::touch::<k8s_openapi::api::apps::v1::Deployment>(&c).await;",
    );
    assert_eq!(tree.check(&cache), Outcome::Replayed { parsed: 2 });
    assert!(tree.infer(None).needs.iter().any(|n| n.resource == "deployments"));

    // A comment and a test-module edit in another file.
    tree.edit("/ws/op/src/helpers.rs", "/// Reads one object", "// an edit\n/// Reads one object");
    tree.edit("/ws/op/src/helpers.rs", "fn t() {", "fn t2() {");
    assert_eq!(tree.check(&cache), Outcome::Reread);

    // Item edits (a new fn, a new `use`, a field's type, a signature, a fn renamed away): the walk is replayed, and
    // every instance that looked at a changed file's modules is read again.
    let replayed = |o: Outcome| matches!(o, Outcome::Replayed { .. });
    tree.edit("/ws/op/src/controller.rs", "fn error_policy", "fn extra() {}\nfn error_policy");
    assert!(replayed(tree.check(&cache)));
    tree.edit("/ws/op/src/store.rs", "use kube::Api;", "use kube::Api;\nuse kube::Client;");
    assert!(replayed(tree.check(&cache)));
    tree.edit(
        "/ws/op/src/store.rs",
        "pub struct Store<K> { pub api: Api<K> }",
        "pub struct Store<K> { pub api: Api<k8s_openapi::api::core::v1::Service>, pub k: Option<K> }",
    );
    assert!(replayed(tree.check(&cache)));
    assert!(tree.infer(None).needs.iter().any(|n| n.resource == "services"));
    tree.edit(
        "/ws/op/src/helpers.rs",
        "pub async fn touch<K: Resource>(c: &Client) {",
        "pub async fn touch<K: Resource>(c: &Client) -> Api<K> {",
    );
    assert!(replayed(tree.check(&cache)));
    tree.edit("/ws/op/src/helpers.rs", "pub async fn touch<", "pub async fn touched<");
    assert!(replayed(tree.check(&cache)));
    assert!(!tree.infer(None).needs.iter().any(|n| n.resource == "configmaps" && n.verb == "get"));
    tree.edit("/ws/op/src/helpers.rs", "pub async fn touched<", "pub async fn touch<");
    assert!(replayed(tree.check(&cache)));
    // A new method in an impl: the impls are not those recorded, everything is read again.
    tree.edit("/ws/op/src/store.rs", "pub async fn drop_all", "pub fn extra(&self) {}\n        pub async fn drop_all");
    assert_eq!(tree.check(&cache), Outcome::Full);
    // A new module: another module tree.
    tree.edit("/ws/op/src/store.rs", "use kube::Api;", "use kube::Api;\nmod inner { pub fn f() {} }");
    assert_eq!(tree.check(&cache), Outcome::Full);
    // A trait impl's body now calls through a trait object: reached or not, equal.
    tree.edit(
        "/ws/op/src/controller.rs",
        "s.drop_all().await;",
        "s.drop_all().await; let w: &dyn Sweep = &Sweeper { pods: Api::all((*c).clone()) }; w.sweep().await;",
    );
    assert_eq!(tree.check(&cache), Outcome::Replayed { parsed: 1 });
    assert!(tree.infer(None).needs.iter().any(|n| n.resource == "pods/eviction"));

    // A kind's group changes: its file's skeleton (the kept `#[kube]` attribute) changed.
    tree.edit("/ws/widgets/src/lib.rs", "widgets.example.net", "gadgets.example.net");
    assert_eq!(tree.check(&cache), Outcome::Full);

    // Back to the start, then a file removed along with its `mod`, then added again.
    for (p, t) in [
        ("/ws/op/src/controller.rs", CONTROLLER),
        ("/ws/op/src/helpers.rs", HELPERS),
        ("/ws/op/src/store.rs", STORE),
        ("/ws/widgets/src/lib.rs", API),
    ] {
        tree.set(p, t);
    }
    assert_ne!(tree.check(&cache), Outcome::Unchanged);
    assert_eq!(tree.infer(None), first);
    tree.files.borrow_mut().remove(Path::new("/ws/op/src/store.rs"));
    tree.set(
        "/ws/op/src/main.rs",
        &MAIN.replace(
            "mod store;\n",
            "mod store { pub struct Store<K> { pub api: kube::Api<K> } pub trait Sweep { async fn sweep(&self); } }\n",
        ),
    );
    assert_eq!(tree.check(&cache), Outcome::Full);
    tree.set("/ws/op/src/main.rs", MAIN);
    tree.set("/ws/op/src/store.rs", STORE);
    assert_eq!(tree.check(&cache), Outcome::Full);
    assert_eq!(tree.check(&cache), Outcome::Unchanged);
}

#[test]
fn a_damaged_cache_file_is_ignored_and_written_again() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = Cache::at(&tmp.path().join("rbac-cache"));
    let tree = Tree::new();
    tree.check(&cache);
    let file = cache_file(&cache);
    let good = std::fs::read(&file).unwrap();
    let mut damaged: Vec<Vec<u8>> = vec![Vec::new(), b"garbage".to_vec(), good[..good.len() / 2].to_vec()];
    for at in [10, good.len() / 3, good.len() / 2, good.len() - 5] {
        let mut b = good.clone();
        b[at] ^= 0x5a;
        damaged.push(b);
    }
    for bytes in damaged {
        std::fs::write(&file, &bytes).unwrap();
        // Damage after an edit too: the replay must not use a damaged section.
        tree.edit("/ws/op/src/controller.rs", "pods.list(", "pods.list( ");
        let outcome = tree.check(&cache);
        assert_ne!(outcome, Outcome::Unchanged);
        assert_eq!(tree.check(&cache), Outcome::Unchanged, "written again");
    }
    assert_eq!(cache_file(&cache), file);
}

#[test]
fn errors_are_those_of_the_full_read() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = Cache::at(&tmp.path().join("rbac-cache"));
    let tree = Tree::new();
    tree.check(&cache);
    tree.edit("/ws/op/src/controller.rs", "pub async fn run(c: Client) {", "pub async fn run(c: Client) { let x = ;");
    let sources = [PathBuf::from("/ws/widgets/src"), PathBuf::from("/ws/op/src")];
    let cached = infer_with_cache(&sources, None, &|p| tree.read(p), Some(&cache)).unwrap_err().to_string();
    let full = infer_with_cache(&sources, None, &|p| tree.read(p), None).unwrap_err().to_string();
    assert_eq!(cached, full);
    assert!(cached.contains("controller.rs:6:"), "{cached}");
}

#[test]
fn only_the_cache_folder_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join("target")).unwrap();
    std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"op\"\nversion = \"0.1.0\"\n").unwrap();
    std::fs::write(root.join("src/main.rs"), "use kube::Api;\nuse k8s_openapi::api::core::v1::Pod;\nfn main() { let a: Api<Pod> = Api::all(c); a.get(\"x\"); }\n").unwrap();
    let listing = |dir: &Path| -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    out.push((p.clone(), std::fs::read(&p).unwrap()));
                }
            }
        }
        out.sort();
        out
    };
    let before = listing(root);
    let cache = Cache::for_root(&root.join("src/main.rs"));
    if std::env::var_os("CARGO_TARGET_DIR").is_some() || std::env::var_os(crate::source::cache::NO_CACHE_ENV).is_some()
    {
        return;
    }
    let cache = cache.expect("a target folder beside Cargo.toml");
    assert_eq!(cache.dir(), root.join("target/kubesmith/rbac-cache"));
    for _ in 0..2 {
        let inf = crate::rbac::infer::infer_sources(&[root.join("src")], None).unwrap();
        assert_eq!(inf.needs.len(), 1);
    }
    let after = listing(root);
    let added: Vec<&PathBuf> = after.iter().filter(|f| !before.contains(f)).map(|(p, _)| p).collect();
    assert_eq!(added.len(), 1, "{added:?}");
    assert!(added[0].starts_with(root.join("target/kubesmith/rbac-cache")), "{added:?}");
    assert!(before.iter().all(|f| after.contains(f)), "a file outside the cache changed");
}

#[test]
fn every_edit_of_every_file_of_the_orchard_fixture_equals_the_full_read() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rbac-infer/orchard");
    let sources = [root.join("crates/orchard-types/src"), root.join("crates/orchard-controller/src")];
    let mut files = BTreeMap::new();
    let mut stack: Vec<PathBuf> = sources.to_vec();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.insert(p.clone(), std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    assert!(files.len() >= 4, "{files:?}");
    let tree = RefCell::new(files.clone());
    let read = |p: &Path| -> std::io::Result<String> {
        match tree.borrow().get(p) {
            Some(t) => Ok(t.clone()),
            None => crate::source::modules::read_disk(p),
        }
    };
    let tmp = tempfile::tempdir().unwrap();
    let cache = Cache::at(&tmp.path().join("rbac-cache"));
    let check = |what: &str| {
        let cached = infer_with_cache(&sources, None, &read, Some(&cache)).unwrap();
        let full = infer_with_cache(&sources, None, &read, None).unwrap();
        assert_eq!(cached, full, "{what} ({:?})", cache.last_outcome());
        cache.last_outcome().unwrap()
    };
    check("cold");
    assert_eq!(check("warm"), Outcome::Unchanged);
    type Edit = (&'static str, fn(&str) -> String);
    let edits: [Edit; 4] = [
        ("a line added at the top", |t| format!("\n{t}")),
        ("a fn added", |t| format!("{t}\nfn zz_added() {{}}\n")),
        ("a use added", |t| format!("{t}\nuse std::fmt::Write as _;\n")),
        ("the first `pub fn` made private", |t| t.replacen("pub fn ", "fn ", 1)),
    ];
    let mut outcomes = Vec::new();
    for (path, text) in &files {
        for (what, edit) in &edits {
            let edited = edit(text);
            if &edited == text {
                continue;
            }
            tree.borrow_mut().insert(path.clone(), edited);
            let o = check(&format!("{what} in {}", path.display()));
            outcomes.push(o);
            tree.borrow_mut().insert(path.clone(), text.clone());
            check(&format!("{} restored", path.display()));
        }
    }
    assert!(outcomes.iter().any(|o| matches!(o, Outcome::Replayed { .. })), "{outcomes:?}");
    assert!(outcomes.contains(&Outcome::Reread), "{outcomes:?}");
}

/// A type with a hand-written `impl kube::Resource`, its group in a const of another module.
const TOOLS: &str = "use std::borrow::Cow;\n\
    use kube::Resource;\n\
    pub struct Hammer { metadata: kube::core::ObjectMeta }\n\
    impl Resource for Hammer {\n\
        type DynamicType = ();\n\
        type Scope = kube::core::NamespaceResourceScope;\n\
        fn kind(_: &()) -> Cow<'_, str> { \"Hammer\".into() }\n\
        fn group(_: &()) -> Cow<'_, str> { crate::names::GROUP.into() }\n\
        fn version(_: &()) -> Cow<'_, str> { \"v1\".into() }\n\
        fn plural(_: &()) -> Cow<'_, str> { \"hammers\".into() }\n\
        fn meta(&self) -> &kube::core::ObjectMeta { &self.metadata }\n\
        fn meta_mut(&mut self) -> &mut kube::core::ObjectMeta { &mut self.metadata }\n\
    }\n";

#[test]
fn resource_impl_values_in_fn_bodies_and_consts_are_never_stale() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = Cache::at(&tmp.path().join("rbac-cache"));
    let tree = Tree::new();
    tree.set("/ws/widgets/src/lib.rs", &format!("pub mod tools;\npub mod names;\n{API}"));
    tree.set("/ws/widgets/src/tools.rs", TOOLS);
    tree.set("/ws/widgets/src/names.rs", "pub const GROUP: &str = \"tools.example.net\";\n");
    tree.edit(
        "/ws/op/src/controller.rs",
        "pods.list(&Default::default()).await;\n",
        "pods.list(&Default::default()).await;\n        Api::<widgets::tools::Hammer>::all(c.clone()).list(&Default::default()).await;\n",
    );
    let groups = || -> Vec<String> {
        tree.infer(None).needs.iter().filter(|n| n.resource == "hammers").map(|n| n.group.clone()).collect()
    };
    assert_eq!(tree.check(&cache), Outcome::Full);
    assert_eq!(groups(), ["tools.example.net"]);
    // An edit elsewhere inside a fn body is still read alone.
    tree.edit(
        "/ws/op/src/controller.rs",
        "pods.list(",
        "pods.watch(&Default::default(), \"0\").await;\n        pods.list(",
    );
    assert_eq!(tree.check(&cache), Outcome::Reread);
    // The const the impl reads, and the impl's fn body (the skeletons of both files stay the same): read again.
    tree.edit("/ws/widgets/src/names.rs", "tools.example.net", "smithy.example.net");
    assert_eq!(tree.check(&cache), Outcome::Full);
    assert_eq!(groups(), ["smithy.example.net"]);
    tree.edit("/ws/widgets/src/tools.rs", "\"hammers\"", "\"mallets\"");
    assert_eq!(tree.check(&cache), Outcome::Full);
    assert!(tree.infer(None).needs.iter().any(|n| n.resource == "mallets" && n.group == "smithy.example.net"));
    // A new impl in a file the last read did not look at.
    tree.edit(
        "/ws/op/src/helpers.rs",
        "/// Reads one object",
        "pub struct Tongs;\nimpl kube::Resource for Tongs {}\n/// Reads one object",
    );
    assert_eq!(tree.check(&cache), Outcome::Full);
    assert_eq!(tree.check(&cache), Outcome::Unchanged);
}

#[test]
fn the_files_of_an_immutable_dependency_are_not_read_to_tell_the_cache_still_holds() {
    use crate::rbac::infer::Role;
    let files: RefCell<BTreeMap<PathBuf, String>> = RefCell::new(
        [
            (
                "/ws/op/src/main.rs",
                "use k8s_openapi::api::core::v1::ConfigMap;\n#[tokio::main]\nasync fn main() {\n\
                 let c = kube::Client::try_default().await.unwrap();\n kit::touch::<ConfigMap>(&c).await;\n}\n",
            ),
            ("/home/registry/src/idx/kit-1.0.0/src/lib.rs", HELPERS),
        ]
        .iter()
        .map(|(p, t)| (PathBuf::from(p), t.to_string()))
        .collect(),
    );
    let log: RefCell<Vec<PathBuf>> = RefCell::default();
    let read = |p: &Path| -> std::io::Result<String> {
        log.borrow_mut().push(p.to_path_buf());
        files.borrow().get(p).cloned().ok_or_else(|| std::io::ErrorKind::NotFound.into())
    };
    let roots = || {
        vec![
            ("op".to_string(), PathBuf::from("/ws/op/src/main.rs"), Role::Bin),
            ("kit".to_string(), PathBuf::from("/home/registry/src/idx/kit-1.0.0/src/lib.rs"), Role::Dependency),
        ]
    };
    let kit = PathBuf::from("/home/registry/src/idx/kit-1.0.0/src");
    let tmp = tempfile::tempdir().unwrap();
    let cache = Cache::at(&tmp.path().join("rbac-cache")).with_immutable(vec![kit.clone()]);
    let full = |roots| crate::rbac::infer::walk_roots(roots, None, &read, &super::super::parse_code, None, false, None);
    let first = cache.infer(roots(), None, &read).unwrap();
    assert_eq!(cache.last_outcome(), Some(Outcome::Full));
    assert!(first.needs.iter().any(|n| n.resource == "configmaps" && n.verb == "get"), "{first:?}");
    assert_eq!(first, full(roots()).unwrap().inference);

    log.borrow_mut().clear();
    assert_eq!(cache.infer(roots(), None, &read).unwrap(), first);
    assert_eq!(cache.last_outcome(), Some(Outcome::Unchanged));
    assert!(!log.borrow().iter().any(|p| p.starts_with(&kit)), "read again: {:?}", log.borrow());
    assert!(log.borrow().iter().any(|p| p.starts_with("/ws/op")), "the operator's files are checked");

    // An edit of the operator: the partial run reads the dependency's files it needs, and equals the full read.
    let main = PathBuf::from("/ws/op/src/main.rs");
    let edited = files.borrow()[&main].replace(
        " kit::touch",
        " let p: kube::Api<k8s_openapi::api::core::v1::Pod> = kube::Api::all(c.clone());\n p.list(&Default::default()).await;\n kit::touch",
    );
    files.borrow_mut().insert(main, edited);
    let second = cache.infer(roots(), None, &read).unwrap();
    assert_ne!(cache.last_outcome(), Some(Outcome::Unchanged));
    assert_eq!(second, full(roots()).unwrap().inference);
    assert!(second.needs.iter().any(|n| n.resource == "pods" && n.verb == "list"));

    // The folder is taken as immutable, as cargo's registry and checkout folders are: a path dependency's (no
    // `with_immutable`) edit is seen.
    let lib = kit.join("lib.rs");
    let changed = files.borrow()[&lib].replace("api.get(\"x\")", "api.list(&Default::default())");
    files.borrow_mut().insert(lib, changed);
    assert_eq!(cache.infer(roots(), None, &read).unwrap(), second, "not read again");
    let path_dep = Cache::at(&tmp.path().join("rbac-cache"));
    let third = path_dep.infer(roots(), None, &read).unwrap();
    assert_ne!(path_dep.last_outcome(), Some(Outcome::Unchanged));
    assert!(third.needs.iter().any(|n| n.resource == "configmaps" && n.verb == "list"), "{third:?}");
}
