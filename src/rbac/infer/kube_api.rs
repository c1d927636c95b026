//! What kube-rs (kube 5, kube-runtime 5) calls need: the verbs and subresources of every `Api<K>` method, the
//! constructors of `Api`, and the kube-runtime entry points that list and watch.
//!
//! Verbs the call site does not show are part of the table: `replace` is `update`; `entry` gets, then creates
//! or replaces (`update`); `cordon`/`uncordon` and `Api<Deployment>::restart` patch; `evict` creates
//! `pods/eviction`; `exec`/`attach`/`portforward` need `create` and `get` on their subresource (kubectl's
//! grants: the WebSocket upgrade is a GET, SPDY a POST). A server-side apply (`Patch::Apply`) of the object
//! itself may create it, so `patch` on the main resource with `Patch::Apply` adds `create` (see `walk`).

/// One access an `Api<K>` method makes: subresource (`""` for the resource itself) and verbs.
pub type Access = (&'static str, &'static [&'static str]);

/// The accesses of `Api<K>::method`, or `None` for a method that makes no request (or is not kube's).
pub fn api_method(method: &str) -> Option<&'static [Access]> {
    Some(match method {
        "get"
        | "get_opt"
        | "get_with"
        | "get_metadata"
        | "get_metadata_opt"
        | "get_metadata_with"
        | "get_metadata_opt_with" => &[("", &["get"])],
        "list" | "list_metadata" => &[("", &["list"])],
        "watch" | "watch_metadata" => &[("", &["watch"])],
        "create" => &[("", &["create"])],
        "replace" => &[("", &["update"])],
        "patch" | "patch_metadata" | "cordon" | "uncordon" | "restart" => &[("", &["patch"])],
        "delete" => &[("", &["delete"])],
        "delete_collection" => &[("", &["deletecollection"])],
        "entry" => &[("", &["get", "create", "update"])],
        "get_status" => &[("status", &["get"])],
        "patch_status" => &[("status", &["patch"])],
        "replace_status" => &[("status", &["update"])],
        "get_scale" => &[("scale", &["get"])],
        "patch_scale" => &[("scale", &["patch"])],
        "replace_scale" => &[("scale", &["update"])],
        "evict" => &[("eviction", &["create"])],
        "logs" | "log_stream" => &[("log", &["get"])],
        "exec" => &[("exec", &["create", "get"])],
        "attach" => &[("attach", &["create", "get"])],
        "portforward" => &[("portforward", &["create", "get"])],
        "get_ephemeral_containers" => &[("ephemeralcontainers", &["get"])],
        "patch_ephemeral_containers" => &[("ephemeralcontainers", &["patch"])],
        "replace_ephemeral_containers" => &[("ephemeralcontainers", &["update"])],
        "create_token_request" => &[("token", &["create"])],
        "get_approval" => &[("approval", &["get"])],
        "patch_approval" => &[("approval", &["patch"])],
        "get_resize" => &[("resize", &["get"])],
        "patch_resize" => &[("resize", &["patch"])],
        "replace_resize" => &[("resize", &["update"])],
        _ => return None,
    })
}

/// `Api<K>::*_subresource(name, ..)` methods: the verb; the subresource is their first argument.
pub fn api_subresource_method(method: &str) -> Option<&'static str> {
    Some(match method {
        "get_subresource" => "get",
        "create_subresource" => "create",
        "patch_subresource" => "patch",
        "replace_subresource" => "update",
        _ => return None,
    })
}

/// Methods of `Api<K>` that give back a `K` (after `?`/`.await`).
pub fn api_returns_object(method: &str) -> bool {
    matches!(
        method,
        "get"
            | "create"
            | "replace"
            | "patch"
            | "get_status"
            | "patch_status"
            | "replace_status"
            | "cordon"
            | "uncordon"
    )
}

/// Constructors `Api::<K>::*`; `true` for the `_with` ones, whose `K` may come from an `ApiResource` argument.
pub fn api_constructor(name: &str) -> Option<bool> {
    match name {
        "all" | "namespaced" | "default_namespaced" => Some(false),
        "all_with" | "namespaced_with" | "default_namespaced_with" => Some(true),
        _ => None,
    }
}

/// kube-runtime fns whose first argument is an `Api<K>` they list and watch.
pub fn is_list_watch_fn(name: &str) -> bool {
    matches!(name, "watcher" | "metadata_watcher" | "watch_object" | "await_condition")
}

/// `Controller<K>` methods whose first argument is an `Api<K2>` the controller lists and watches.
pub fn is_controller_watch_method(name: &str) -> bool {
    matches!(name, "owns" | "owns_with" | "watches" | "watches_with")
}

/// `Client` methods that send a request kubesmith cannot read the resource of.
pub fn is_raw_client_method(name: &str) -> bool {
    matches!(name, "request" | "request_text" | "request_stream" | "request_events" | "request_status" | "send")
}

/// The rule of a raw request with a known method and path (`GET /api/v1/nodes/{name}/proxy/configz` → core
/// `nodes/proxy` `get`): `/api/v1/..` or `/apis/<group>/<version>/..`, an optional `namespaces/<ns>/`, the
/// plural, then the name and a subresource. A `{..}` segment is a value only known at run time; a path this does
/// not read gives `None` (the caller warns).
pub fn raw_request_rule(method: &str, url: &str) -> Option<(String, String, &'static str)> {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let watch = query.split('&').any(|q| q == "watch=true" || q == "watch=1");
    let mut segs = path.trim_start_matches('/').split('/').filter(|s| !s.is_empty());
    let group = match segs.next()? {
        "api" => {
            segs.next()?;
            String::new()
        }
        "apis" => {
            let g = segs.next().filter(|g| !g.contains('{'))?.to_string();
            segs.next()?;
            g
        }
        _ => return None,
    };
    let mut rest: Vec<&str> = segs.collect();
    if rest.first() == Some(&"namespaces") && rest.len() > 2 {
        rest.drain(..2);
    }
    let is_literal = |s: &str| !s.contains('{') && !s.is_empty();
    let (plural, name, sub) = match rest.as_slice() {
        [plural] => (*plural, false, None),
        [plural, _name] => (*plural, true, None),
        [plural, _name, sub, ..] => (*plural, true, Some(*sub)),
        _ => return None,
    };
    if !is_literal(plural) || sub.is_some_and(|s| !is_literal(s)) {
        return None;
    }
    let verb = match (method, name) {
        ("GET", _) if watch => "watch",
        ("GET", true) => "get",
        ("GET", false) => "list",
        ("POST", _) => "create",
        ("PUT", _) => "update",
        ("PATCH", _) => "patch",
        ("DELETE", true) => "delete",
        ("DELETE", false) => "deletecollection",
        _ => return None,
    };
    let resource = match sub {
        Some(s) => format!("{plural}/{s}"),
        None => plural.to_string(),
    };
    Some((group, resource, verb))
}

/// The events `Recorder` publishes `events.k8s.io/v1` Events: since kube-runtime 0.98 it creates a new event and
/// patches one that repeats (its series count) within the dedup window; before, it only creates.
pub const RECORDER: (&str, &str) = ("events.k8s.io", "events");

/// The verbs the `Recorder` of kube-runtime `version` (`0.85.0`; `None` when unknown: the newest) publishes with.
pub fn recorder_verbs(version: Option<&str>) -> &'static [&'static str] {
    let minor = |v: &str| {
        let mut parts = v.split('.').map(|p| p.trim().parse::<u64>().ok());
        Some((parts.next()??, parts.next()??))
    };
    match version.and_then(minor) {
        Some((0, m)) if m < 98 => &["create"],
        _ => &["create", "patch"],
    }
}

/// The version of kube-runtime the walked code builds with: the manifest of its crate when it is among `roots`
/// (read with `read`), else what the lock (or manifest) of the first of the sources' own crates pins.
pub fn kube_runtime_version(
    roots: &[(String, std::path::PathBuf, super::Role)],
    read: &dyn Fn(&std::path::Path) -> std::io::Result<String>,
) -> Option<String> {
    let own_manifest = |root: &std::path::Path| {
        let dir = root.ancestors().skip(1).find(|d| read(&d.join("Cargo.toml")).is_ok())?;
        let doc: toml_edit::DocumentMut = read(&dir.join("Cargo.toml")).ok()?.parse().ok()?;
        doc.get("package")?.get("version")?.as_str().map(str::to_string)
    };
    if let Some((_, root, _)) = roots.iter().find(|(name, _, _)| name == "kube_runtime" || name == "kube-runtime") {
        return own_manifest(root);
    }
    let (_, root, _) = roots.iter().find(|(_, _, role)| *role != super::Role::Dependency)?;
    crate::source::dependencies::locked::dependency_version(root.parent()?, "kube-runtime")
}

#[cfg(test)]
mod raw_tests {
    use super::raw_request_rule;

    #[test]
    fn a_raw_request_path_tells_its_rule() {
        let rule = |m, p| raw_request_rule(m, p).map(|(g, r, v)| format!("{g}|{r}|{v}"));
        assert_eq!(rule("GET", "/api/v1/nodes/{node_name}/proxy/configz").as_deref(), Some("|nodes/proxy|get"));
        assert_eq!(rule("GET", "/apis/apps/v1/namespaces/{ns}/deployments").as_deref(), Some("apps|deployments|list"));
        assert_eq!(rule("GET", "/api/v1/pods?watch=true").as_deref(), Some("|pods|watch"));
        assert_eq!(rule("POST", "/api/v1/namespaces/{}/pods/{}/eviction").as_deref(), Some("|pods/eviction|create"));
        assert_eq!(rule("DELETE", "/apis/g.io/v1/things").as_deref(), Some("g.io|things|deletecollection"));
        assert_eq!(rule("GET", "/apis/{group}/v1/things"), None, "a group only known at run time");
        assert_eq!(rule("GET", "/healthz"), None);
        assert_eq!(rule("GET", "/api/v1/{kind}"), None, "a resource only known at run time");
    }
}

#[cfg(test)]
mod recorder_tests {
    use super::{kube_runtime_version, recorder_verbs};
    use crate::rbac::infer::Role;

    #[test]
    fn the_recorder_patches_from_kube_runtime_0_98() {
        // kube-runtime 0.98 added the event series (a repeat within the cache window is a patch)
        assert_eq!(recorder_verbs(Some("0.85.0")), ["create"]);
        assert_eq!(recorder_verbs(Some("0.97.1")), ["create"]);
        assert_eq!(recorder_verbs(Some("0.98.0")), ["create", "patch"]);
        assert_eq!(recorder_verbs(Some("3.1.0")), ["create", "patch"]);
        assert_eq!(recorder_verbs(None), ["create", "patch"]);
    }

    #[test]
    fn the_kube_runtime_version_is_its_manifests() {
        let dir = tempfile::tempdir().unwrap();
        let krate = dir.path().join("kube-runtime-0.85.0");
        std::fs::create_dir_all(krate.join("src")).unwrap();
        std::fs::write(krate.join("Cargo.toml"), "[package]\nname = \"kube-runtime\"\nversion = \"0.85.0\"\n").unwrap();
        let read = |p: &std::path::Path| std::fs::read_to_string(p);
        let mut roots = vec![("op".to_string(), dir.path().join("op/src/main.rs"), Role::Bin)];
        assert_eq!(kube_runtime_version(&roots, &read), None);
        // the operator's lock pins it (kube re-exports it as `kube::runtime`; its sources are not read)
        let op = dir.path().join("op");
        std::fs::create_dir_all(op.join("src")).unwrap();
        std::fs::write(op.join("src/main.rs"), "fn main() {}\n").unwrap();
        std::fs::write(
            op.join("Cargo.toml"),
            "[package]\nname = \"op\"\nversion = \"0.1.0\"\n\n[dependencies]\nkube = \"0.87\"\n",
        )
        .unwrap();
        std::fs::write(
            op.join("Cargo.lock"),
            "version = 3\n\n[[package]]\nname = \"kube-runtime\"\nversion = \"0.87.2\"\n\n\
             [[package]]\nname = \"op\"\nversion = \"0.1.0\"\ndependencies = [\"kube\"]\n",
        )
        .unwrap();
        assert_eq!(kube_runtime_version(&roots, &read).as_deref(), Some("0.87.2"));
        // its sources, when read, tell
        roots.push(("kube_runtime".to_string(), krate.join("src/lib.rs"), Role::Dependency));
        assert_eq!(kube_runtime_version(&roots, &read).as_deref(), Some("0.85.0"));
    }
}
