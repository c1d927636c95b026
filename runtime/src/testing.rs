//! Reconciler tests against a mocked API server (kube-rs/controller-rs fixture style): the API server's side of a
//! reconcile ([`ApiServer`], [`reconcile_against`]), test objects and the expectations every controller's tests
//! share. Feature `testing`.
//!
//! ```
//! use kubesmith_runtime::testing::{self, reconcile_against};
//! use kube::runtime::controller::Action;
//! # use k8s_openapi::api::core::v1::ConfigMap;
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let obj = ConfigMap { metadata: testing::metadata(Some("team-a")), ..Default::default() };
//! let action = reconcile_against(
//!     |_obj, _ctx| async { Ok(Action::await_change()) },
//!     obj,
//!     async |_server| {},
//! )
//! .await
//! .expect("reconciled");
//! assert_eq!(action, Action::await_change());
//! # }
//! ```

use crate::controller::{Context, Error, Result, find_condition, instrumented};
use crate::manager::metrics::Metrics;
use http::{Method, Request, Response, StatusCode};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
use kube::{Resource, ResourceExt, client::Body, runtime::controller::Action};
use prometheus_client::registry::Registry;
use serde::{Serialize, de::DeserializeOwned};
use serde_json::{Value, json};
use std::{collections::BTreeMap, future::Future, sync::Arc, time::Duration};
use tower_test::mock::{self, Handle, SendResponse};

pub mod webhook;

/// The field manager of the contexts and runtimes these helpers make ([`context`], [`runtime`]): the server-side
/// applies [`ApiServer::expect_apply`] accepts are this one's.
pub const FIELD_MANAGER: &str = "kubesmith-test";

/// The `.metadata.generation` of the test objects [`metadata`] makes.
pub const GENERATION: i64 = 3;
/// The uid of the test objects [`metadata`] makes.
pub const UID: &str = "8f5c2d1e-0000-4000-8000-000000000001";

/// Metadata of a test object as the API server returns it: `test` (in `namespace`), with a uid, a
/// resourceVersion and generation [`GENERATION`].
pub fn metadata(namespace: Option<&str>) -> ObjectMeta {
    ObjectMeta {
        name: Some("test".into()),
        namespace: namespace.map(Into::into),
        uid: Some(UID.into()),
        resource_version: Some("100".into()),
        generation: Some(GENERATION),
        ..ObjectMeta::default()
    }
}

/// `obj` carrying `finalizer`, as after its first reconcile.
pub fn finalized<K: Resource>(mut obj: K, finalizer: &str) -> K {
    obj.finalizers_mut().push(finalizer.into());
    obj
}

/// `(status, reason)` of the condition `type_`, which must be there and observe [`GENERATION`].
pub fn condition<'a>(conditions: &'a [Condition], type_: &str) -> (&'a str, &'a str) {
    let c = find_condition(conditions, type_).unwrap_or_else(|| panic!("no {type_} condition in {conditions:?}"));
    assert_eq!(c.observed_generation, Some(GENERATION), "{type_}");
    (c.status.as_str(), c.reason.as_str())
}

/// The test side of a mocked API server: receives the client's requests and answers them.
pub struct ApiServer(Handle<Request<Body>, Response<Body>>);

/// One request received by the mocked API server.
pub struct MockRequest {
    /// The request's method.
    pub method: Method,
    /// The request's path, without the query.
    pub path: String,
    /// The query's parameters.
    pub query: BTreeMap<String, String>,
    /// The `Content-Type` header (empty when absent).
    pub content_type: String,
    /// The JSON body (`null` when empty).
    pub body: Value,
    send: SendResponse<Response<Body>>,
}

impl MockRequest {
    /// Answers `200 OK` with `obj` as JSON.
    pub fn respond<T: Serialize>(self, obj: &T) {
        self.respond_with(StatusCode::OK, obj);
    }

    /// Answers with `status` and `obj` as JSON.
    pub fn respond_with<T: Serialize>(self, status: StatusCode, obj: &T) {
        let body = serde_json::to_vec(obj).expect("test objects serialize");
        let response = Response::builder().status(status).body(Body::from(body)).expect("valid test response");
        self.send.send_response(response);
    }

    /// Answers with a Kubernetes `Status` error (e.g. 404 NotFound, 409 Conflict).
    pub fn respond_error(self, code: u16, reason: &str) {
        let status = StatusCode::from_u16(code).expect("valid status code");
        let body = json!({
            "apiVersion": "v1", "kind": "Status", "status": "Failure",
            "message": reason, "reason": reason, "code": code,
        });
        self.respond_with(status, &body);
    }
}

/// A client talking to a fresh mocked API server.
pub fn client() -> (kube::Client, ApiServer) {
    let (service, handle) = mock::pair::<Request<Body>, Response<Body>>();
    (kube::Client::new(service, "default"), ApiServer(handle))
}

/// A controller context backed by a mocked API server and an unexposed metrics registry; its field manager is
/// [`FIELD_MANAGER`].
pub fn context(controller: &'static str) -> (Arc<Context>, ApiServer) {
    let (client, server) = client();
    let metrics = Arc::new(Metrics::new(&mut Registry::default()));
    let context = Context::new(client, FIELD_MANAGER, controller, &metrics);
    (Arc::new(context), server)
}

/// What the manager hands the controller `controller` watching `namespace` (`None`: every namespace), backed by
/// a mocked API server, with the trigger that stops the controller.
pub fn runtime(
    controller: &'static str,
    namespace: Option<&str>,
) -> (crate::manager::Runtime, ApiServer, crate::manager::ShutdownTrigger) {
    let (client, server) = client();
    let (trigger, shutdown) = crate::manager::Shutdown::new();
    let runtime = crate::manager::Runtime {
        field_manager: FIELD_MANAGER,
        controller,
        client,
        metrics: Arc::new(Metrics::new(&mut Registry::default())),
        shutdown,
        namespace: namespace.map(str::to_string),
    };
    (runtime, server, trigger)
}

/// Starts a controller's `run` for the namespace `team-a` and asserts that it lists, then watches, `collection`
/// (the kind's path in `team-a`) and nothing else, and that it stops on shutdown.
pub async fn assert_watches_only_its_namespace<F, Fut>(controller: &'static str, run: F, collection: &str)
where
    F: FnOnce(crate::manager::Runtime) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let (runtime, mut server, trigger) = runtime(controller, Some("team-a"));
    let running = tokio::spawn(run(runtime));
    let list = server.next().await;
    assert_eq!((&list.method, list.path.as_str()), (&Method::GET, collection), "the first request lists the namespace");
    list.respond(&json!({
        "apiVersion": "v1", "kind": "List", "metadata": { "resourceVersion": "1" }, "items": [],
    }));
    let watch = server.next().await;
    assert_eq!(watch.path, collection, "the watch stays in the namespace");
    assert_eq!(watch.query.get("watch").map(String::as_str), Some("true"));
    trigger.trigger();
    within(running).await.expect("the controller stops on shutdown");
}

/// Fails the test if `fut` does not finish within 5 seconds.
pub async fn within<T>(fut: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(5), fut).await.expect("timed out talking to the mocked API server")
}

/// Reconciles `obj` with `reconcile` against a mocked API server whose side `script` plays; fails when the
/// reconciler sends a request the script does not expect or one after it, or when either takes over 5 seconds.
pub async fn reconcile_against<K, Fut>(
    reconcile: impl FnOnce(Arc<K>, Arc<Context>) -> Fut,
    obj: K,
    script: impl AsyncFnOnce(&mut ApiServer),
) -> Result<Action>
where
    Fut: Future<Output = Result<Action>>,
{
    let (ctx, mut server) = context("test");
    let api = async move {
        script(&mut server).await;
        server.expect_done().await;
    };
    within(async { tokio::join!(reconcile(Arc::new(obj), ctx), api).0 }).await
}

/// Checks `error_policy`: retries back off exponentially from 5 seconds, capped at 5 minutes, per object, and
/// a successful reconcile starts over.
pub async fn assert_error_policy_backs_off<K>(error_policy: fn(Arc<K>, &Error, Arc<Context>) -> Action, obj: K)
where
    K: Resource<DynamicType = ()>,
{
    let (ctx, _server) = context("test");
    let obj = Arc::new(obj);
    let err = Error::MissingObjectKey(".metadata.name");
    let delays: Vec<Action> = (0..8).map(|_| error_policy(obj.clone(), &err, ctx.clone())).collect();
    let expected: Vec<Action> =
        [5, 10, 20, 40, 80, 160, 300, 300].into_iter().map(|secs| Action::requeue(Duration::from_secs(secs))).collect();
    assert_eq!(delays, expected);
    let ok = |_: Arc<K>, _: Arc<Context>| async { Ok(Action::await_change()) };
    instrumented(ok, obj.clone(), ctx.clone()).await.expect("stub reconcile succeeds");
    assert_eq!(error_policy(obj, &err, ctx), Action::requeue(Duration::from_secs(5)));
}

impl ApiServer {
    /// Waits for the next request.
    pub async fn next(&mut self) -> MockRequest {
        let (request, send) = within(self.0.next_request()).await.expect("expected another API request");
        let (parts, body) = request.into_parts();
        let bytes = body.collect_bytes().await.expect("readable request body");
        let body =
            if bytes.is_empty() { Value::Null } else { serde_json::from_slice(&bytes).expect("JSON request body") };
        let query = parts
            .uri
            .query()
            .unwrap_or_default()
            .split('&')
            .filter(|pair| !pair.is_empty())
            .map(|pair| match pair.split_once('=') {
                Some((k, v)) => (k.to_string(), v.to_string()),
                None => (pair.to_string(), String::new()),
            })
            .collect();
        let content_type =
            parts.headers.get(http::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
        MockRequest { method: parts.method, path: parts.uri.path().to_string(), query, content_type, body, send }
    }

    /// Waits for the next request and asserts its method and path.
    pub async fn expect(&mut self, method: Method, path: &str) -> MockRequest {
        let request = self.next().await;
        assert_eq!((&request.method, request.path.as_str()), (&method, path), "unexpected API request");
        request
    }

    /// Expects an `events.k8s.io/v1` Event with `reason` in `namespace`, echoes it back and returns it.
    pub async fn expect_event(&mut self, namespace: &str, reason: &str) -> Value {
        let path = format!("/apis/events.k8s.io/v1/namespaces/{namespace}/events");
        let request = self.expect(Method::POST, &path).await;
        assert_eq!(request.body["reason"], reason, "event reason");
        let event = request.body.clone();
        request.respond(&event);
        event
    }

    /// Expects an `events.k8s.io/v1` Event with `reason` in `namespace` and refuses it (422 Invalid).
    pub async fn refuse_event(&mut self, namespace: &str, reason: &str) {
        let path = format!("/apis/events.k8s.io/v1/namespaces/{namespace}/events");
        let request = self.expect(Method::POST, &path).await;
        assert_eq!(request.body["reason"], reason, "event reason");
        request.respond_error(422, "Invalid");
    }

    /// Expects the finalizer helper's JSON patch adding `finalizer` to an object at `path` that has none, and
    /// answers with `response`.
    pub async fn expect_finalizer_added<K: Serialize>(&mut self, path: &str, finalizer: &str, response: &K) {
        let patch = json!([
            { "op": "test", "path": "/metadata/finalizers", "value": null },
            { "op": "add", "path": "/metadata/finalizers", "value": [finalizer] },
        ]);
        self.expect_json_patch(path, &patch, response).await;
    }

    /// Expects the finalizer helper's JSON patch removing `finalizer`, the object's only one, from the object
    /// at `path`, and answers with `response`.
    pub async fn expect_finalizer_removed<K: Serialize>(&mut self, path: &str, finalizer: &str, response: &K) {
        let patch = json!([
            { "op": "test", "path": "/metadata/finalizers/0", "value": finalizer },
            { "op": "remove", "path": "/metadata/finalizers/0" },
        ]);
        self.expect_json_patch(path, &patch, response).await;
    }

    /// Expects the JSON patch `patch` of the object at `path` and answers with `response`.
    async fn expect_json_patch<K: Serialize>(&mut self, path: &str, patch: &Value, response: &K) {
        let request = self.expect(Method::PATCH, path).await;
        assert_eq!(request.content_type, "application/json-patch+json");
        assert_eq!(&request.body, patch);
        request.respond(response);
    }

    /// Expects a forced server-side apply at `path` by [`FIELD_MANAGER`].
    pub async fn expect_apply(&mut self, path: &str) -> MockRequest {
        let request = self.expect(Method::PATCH, path).await;
        assert_eq!(request.content_type, "application/apply-patch+yaml");
        assert_eq!(request.query.get("fieldManager").map(String::as_str), Some(FIELD_MANAGER));
        assert_eq!(request.query.get("force").map(String::as_str), Some("true"));
        request
    }

    /// Expects the server-side apply of `obj`'s status (`obj` is at `path`), answers with `obj` carrying that
    /// status and returns it.
    pub async fn expect_status_apply<K, S>(&mut self, path: &str, obj: &K) -> S
    where
        K: Resource<DynamicType = ()> + Serialize,
        S: DeserializeOwned,
    {
        let request = self.expect_apply(&format!("{path}/status")).await;
        assert_eq!(request.body["apiVersion"], K::api_version(&()).as_ref());
        assert_eq!(request.body["kind"], K::kind(&()).as_ref());
        let status = request.body["status"].clone();
        let mut patched = serde_json::to_value(obj).expect("test objects serialize");
        patched["status"] = status.clone();
        request.respond(&patched);
        serde_json::from_value(status).expect("a status body")
    }

    /// Asserts that the client sends no further requests (all clients must have been dropped).
    pub async fn expect_done(mut self) {
        if let Some((request, _)) = within(self.0.next_request()).await {
            panic!("unexpected API request: {} {}", request.method(), request.uri());
        }
    }
}
