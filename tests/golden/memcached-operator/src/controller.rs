//! Shared controller plumbing: `Context`, `Error`/`Result`, the controller loop, per-object error backoff, status and condition helpers, and mock-API test helpers.
pub mod cluster;
pub mod r#match;
pub mod memcached;
// +kubesmith:scaffold:controller-modules

use crate::manager::{
    Runtime,
    metrics::{ControllerMetrics, Metrics},
};
use futures::StreamExt;
use k8s_openapi::{
    apimachinery::pkg::apis::meta::v1::Condition, apimachinery::pkg::apis::meta::v1::Time,
    jiff::Timestamp,
};
use kube::{
    Api, Client, Resource, ResourceExt,
    api::{Patch, PatchParams},
    core::DynamicObject,
    runtime::{
        controller::{Action, Controller},
        events::{Recorder, Reporter},
        finalizer,
        reflector::ObjectRef,
    },
};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::json;
use std::{
    collections::HashMap,
    fmt::Debug,
    future::Future,
    sync::{Arc, Mutex, PoisonError},
    time::{Duration, Instant},
};
use tracing::{debug, info, warn};

/// Field manager for server-side apply and reporting controller for events.
pub const FIELD_MANAGER: &str = "memcached-operator";

/// Condition type set by every reconciler once an object has been reconciled.
pub const CONDITION_AVAILABLE: &str = "Available";

/// First retry delay after a failed reconcile.
pub const BACKOFF_BASE: Duration = Duration::from_secs(5);
/// Upper bound for the retry delay after repeated failures.
pub const BACKOFF_MAX: Duration = Duration::from_secs(300);

/// Errors a reconciler can return.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A request to the Kubernetes API failed.
    #[error("Kubernetes API error: {0}")]
    Kube(#[from] kube::Error),
    /// The finalizer helper failed (it embeds the reconciler error, hence the box).
    #[error("finalizer error: {0}")]
    Finalizer(#[source] Box<finalizer::Error<Error>>),
    /// The object lacks a field the reconciler needs.
    #[error("missing object key: {0}")]
    MissingObjectKey(&'static str),
}

impl Error {
    /// Low-cardinality label for the `error` label of the failure metric.
    pub fn metric_label(&self) -> &'static str {
        match self {
            Error::Kube(_) => "kube",
            Error::MissingObjectKey(_) => "missing_object_key",
            Error::Finalizer(err) => match err.as_ref() {
                finalizer::Error::ApplyFailed(inner) | finalizer::Error::CleanupFailed(inner) => {
                    inner.metric_label()
                }
                _ => "finalizer",
            },
        }
    }
}

impl From<finalizer::Error<Error>> for Error {
    fn from(err: finalizer::Error<Error>) -> Self {
        Error::Finalizer(Box::new(err))
    }
}

/// Result type of reconcilers.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// State shared by all reconcile calls of one controller (handed out as `Arc<Context>`).
pub struct Context {
    /// Kubernetes client.
    pub client: Client,
    /// Publishes `events.k8s.io/v1` Events about reconciled objects.
    pub recorder: Recorder,
    /// Reconcile metrics labelled with this controller's name.
    pub metrics: ControllerMetrics,
    /// Per-object retry delays after failures.
    pub backoff: Backoff,
}

impl Context {
    /// Context for the controller `controller`, recording into the manager's `metrics`.
    pub fn new(client: Client, controller: &'static str, metrics: &Arc<Metrics>) -> Self {
        let reporter = Reporter {
            controller: FIELD_MANAGER.into(),
            instance: std::env::var("POD_NAME").ok(),
        };
        Self {
            recorder: Recorder::new(client.clone(), reporter),
            client,
            metrics: metrics.controller(controller),
            backoff: Backoff::default(),
        }
    }
}

/// Runs `controller` until the manager shuts down: each object through `reconcile` (timed and counted by
/// [`instrumented`]), each failure through `error_policy`.
pub async fn run<K, R, Fut>(
    runtime: Runtime,
    controller: Controller<K>,
    reconcile: R,
    error_policy: fn(Arc<K>, &Error, Arc<Context>) -> Action,
) where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    R: FnOnce(Arc<K>, Arc<Context>) -> Fut + Copy + Send + 'static,
    Fut: Future<Output = Result<Action>> + Send + 'static,
{
    let name = runtime.controller;
    let ctx = Arc::new(Context::new(runtime.client, name, &runtime.metrics));
    info!(controller = name, namespace = ?runtime.namespace, "starting controller");
    controller
        .graceful_shutdown_on(runtime.shutdown.wait())
        .run(
            move |obj, ctx| instrumented(reconcile, obj, ctx),
            error_policy,
            ctx,
        )
        .for_each(|result| async move {
            match result {
                Ok((obj, action)) => {
                    debug!(controller = name, object = %obj, ?action, "reconciled")
                }
                Err(err) => warn!(controller = name, error = %err, "reconcile loop error"),
            }
        })
        .await;
    info!(controller = name, "controller stopped");
}

/// Runs `reconcile`, records its duration and result, and resets the object's backoff on success.
pub async fn instrumented<K, F, Fut>(reconcile: F, obj: Arc<K>, ctx: Arc<Context>) -> Result<Action>
where
    K: Resource<DynamicType = ()>,
    F: FnOnce(Arc<K>, Arc<Context>) -> Fut,
    Fut: Future<Output = Result<Action>>,
{
    let key = ObjectRef::from_obj(obj.as_ref()).erase();
    let started = Instant::now();
    let result = reconcile(obj, ctx.clone()).await;
    ctx.metrics.reconciled(started.elapsed(), result.is_ok());
    if result.is_ok() {
        ctx.backoff.reset(&key);
    }
    result
}

/// Shared body of the per-kind `error_policy`: log, count the failure, requeue with per-object backoff.
pub fn requeue_on_error<K>(obj: &K, err: &Error, ctx: &Context) -> Action
where
    K: Resource<DynamicType = ()>,
{
    let delay = ctx.backoff.next(ObjectRef::from_obj(obj).erase());
    warn!(
        controller = ctx.metrics.controller(),
        name = %obj.name_any(),
        namespace = obj.namespace().unwrap_or_default(),
        error = %err,
        retry_in_secs = delay.as_secs(),
        "reconcile failed"
    );
    ctx.metrics.failed(err.metric_label());
    Action::requeue(delay)
}

/// Server-side applies `status` to the status subresource of `obj` as [`FIELD_MANAGER`], taking over its fields.
pub async fn apply_status<K, S>(api: &Api<K>, obj: &K, status: &S) -> Result<()>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug,
    S: Serialize,
{
    // The body of a server-side apply must carry apiVersion and kind.
    let patch = json!({
        "apiVersion": K::api_version(&()),
        "kind": K::kind(&()),
        "status": status,
    });
    api.patch_status(
        &obj.name_any(),
        &PatchParams::apply(FIELD_MANAGER).force(),
        &Patch::Apply(&patch),
    )
    .await?;
    Ok(())
}

/// Retry delay after `failures` consecutive failures: 5s, 10s, 20s, … capped at 5 minutes.
pub fn backoff_delay(failures: u32) -> Duration {
    let exponent = failures.saturating_sub(1).min(16);
    BACKOFF_BASE.saturating_mul(1 << exponent).min(BACKOFF_MAX)
}

/// Consecutive failure counts per object, used by the error policy.
#[derive(Debug, Default)]
pub struct Backoff {
    failures: Mutex<HashMap<ObjectRef<DynamicObject>, u32>>,
}

impl Backoff {
    /// Records one more failure of `key` and returns how long to wait before retrying.
    pub fn next(&self, key: ObjectRef<DynamicObject>) -> Duration {
        let mut failures = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
        let count = failures.entry(key).or_default();
        *count = count.saturating_add(1);
        backoff_delay(*count)
    }

    /// Forgets the failures of `key` (called after a successful reconcile).
    pub fn reset(&self, key: &ObjectRef<DynamicObject>) {
        self.failures
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(key);
    }
}

/// Builds a condition observed at `generation`, transitioning at `now`.
pub fn new_condition(
    type_: &str,
    status: bool,
    reason: &str,
    message: impl Into<String>,
    generation: Option<i64>,
    now: Timestamp,
) -> Condition {
    Condition {
        type_: type_.into(),
        status: if status { "True" } else { "False" }.into(),
        reason: reason.into(),
        message: message.into(),
        observed_generation: generation,
        last_transition_time: Time(now),
    }
}

/// Finds the condition of type `type_`.
pub fn find_condition<'a>(conditions: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    conditions.iter().find(|c| c.type_ == type_)
}

/// Adds or updates `condition` (by type), keeping `lastTransitionTime` when the status did not change.
pub fn set_condition(conditions: &mut Vec<Condition>, mut condition: Condition) {
    match conditions.iter_mut().find(|c| c.type_ == condition.type_) {
        Some(existing) => {
            if existing.status == condition.status {
                condition.last_transition_time = existing.last_transition_time.clone();
            }
            *existing = condition;
        }
        None => conditions.push(condition),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;

    fn at(secs: i64) -> Timestamp {
        Timestamp::from_second(secs).expect("valid test timestamp")
    }

    #[test]
    fn set_condition_keeps_transition_time_when_status_unchanged() {
        let mut conditions = vec![new_condition(
            CONDITION_AVAILABLE,
            true,
            "Reconciled",
            "old",
            Some(1),
            at(10),
        )];
        set_condition(
            &mut conditions,
            new_condition(
                CONDITION_AVAILABLE,
                true,
                "Reconciled",
                "new",
                Some(2),
                at(20),
            ),
        );
        assert_eq!(conditions.len(), 1);
        assert_eq!(conditions[0].last_transition_time, Time(at(10)));
        assert_eq!(conditions[0].message, "new");
        assert_eq!(conditions[0].observed_generation, Some(2));
    }

    #[test]
    fn set_condition_updates_transition_time_when_status_changes() {
        let mut conditions = vec![new_condition(
            CONDITION_AVAILABLE,
            false,
            "Failed",
            "",
            None,
            at(10),
        )];
        set_condition(
            &mut conditions,
            new_condition(CONDITION_AVAILABLE, true, "Reconciled", "", None, at(20)),
        );
        let available =
            find_condition(&conditions, CONDITION_AVAILABLE).expect("condition present");
        assert_eq!(available.status, "True");
        assert_eq!(available.last_transition_time, Time(at(20)));
    }

    #[test]
    fn set_condition_appends_new_types() {
        let mut conditions = vec![new_condition("Degraded", false, "Ok", "", None, at(1))];
        set_condition(
            &mut conditions,
            new_condition(CONDITION_AVAILABLE, true, "Reconciled", "", None, at(2)),
        );
        assert_eq!(conditions.len(), 2);
        assert!(find_condition(&conditions, "Degraded").is_some());
    }

    #[test]
    fn backoff_doubles_and_is_capped() {
        let delays: Vec<u64> = (1..=9).map(|n| backoff_delay(n).as_secs()).collect();
        assert_eq!(delays, [5, 10, 20, 40, 80, 160, 300, 300, 300]);
        assert_eq!(backoff_delay(u32::MAX), BACKOFF_MAX);
    }

    #[test]
    fn backoff_is_per_object_and_resets() {
        let backoff = Backoff::default();
        let a = ObjectRef::<ConfigMap>::new("a").within("ns").erase();
        let b = ObjectRef::<ConfigMap>::new("b").within("ns").erase();
        assert_eq!(backoff.next(a.clone()), Duration::from_secs(5));
        assert_eq!(backoff.next(a.clone()), Duration::from_secs(10));
        assert_eq!(backoff.next(b.clone()), Duration::from_secs(5));
        backoff.reset(&a);
        assert_eq!(backoff.next(a), Duration::from_secs(5));
        assert_eq!(backoff.next(b), Duration::from_secs(10));
    }
}

/// Mocked API server helpers shared by the per-kind controller tests (kube-rs/controller-rs fixture style).
#[cfg(test)]
#[allow(
    dead_code,
    reason = "each kind's controller tests use some of these; none before `kubesmith create api`"
)]
pub(crate) mod testing {
    use super::{Context, Error, FIELD_MANAGER, Result, find_condition, instrumented};
    use crate::manager::metrics::Metrics;
    use http::{Method, Request, Response, StatusCode};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
    use kube::{Resource, ResourceExt, client::Body, runtime::controller::Action};
    use prometheus_client::registry::Registry;
    use serde::{Serialize, de::DeserializeOwned};
    use serde_json::{Value, json};
    use std::{collections::BTreeMap, future::Future, sync::Arc, time::Duration};
    use tower_test::mock::{self, Handle, SendResponse};

    /// The `.metadata.generation` of the test objects [`metadata`] makes.
    pub(crate) const GENERATION: i64 = 3;
    /// The uid of the test objects [`metadata`] makes.
    pub(crate) const UID: &str = "8f5c2d1e-0000-4000-8000-000000000001";

    /// Metadata of a test object as the API server returns it: `test` (in `namespace`), with a uid, a
    /// resourceVersion and generation [`GENERATION`].
    pub(crate) fn metadata(namespace: Option<&str>) -> ObjectMeta {
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
    pub(crate) fn finalized<K: Resource>(mut obj: K, finalizer: &str) -> K {
        obj.finalizers_mut().push(finalizer.into());
        obj
    }

    /// `(status, reason)` of the condition `type_`, which must be there and observe [`GENERATION`].
    pub(crate) fn condition<'a>(conditions: &'a [Condition], type_: &str) -> (&'a str, &'a str) {
        let c = find_condition(conditions, type_)
            .unwrap_or_else(|| panic!("no {type_} condition in {conditions:?}"));
        assert_eq!(c.observed_generation, Some(GENERATION), "{type_}");
        (c.status.as_str(), c.reason.as_str())
    }

    /// The test side of a mocked API server: receives the client's requests and answers them.
    pub(crate) struct ApiServer(Handle<Request<Body>, Response<Body>>);

    /// One request received by the mocked API server.
    pub(crate) struct MockRequest {
        pub method: Method,
        pub path: String,
        pub query: BTreeMap<String, String>,
        pub content_type: String,
        pub body: Value,
        send: SendResponse<Response<Body>>,
    }

    impl MockRequest {
        /// Answers `200 OK` with `obj` as JSON.
        pub(crate) fn respond<T: Serialize>(self, obj: &T) {
            self.respond_with(StatusCode::OK, obj);
        }

        /// Answers with `status` and `obj` as JSON.
        pub(crate) fn respond_with<T: Serialize>(self, status: StatusCode, obj: &T) {
            let body = serde_json::to_vec(obj).expect("test objects serialize");
            let response = Response::builder()
                .status(status)
                .body(Body::from(body))
                .expect("valid test response");
            self.send.send_response(response);
        }

        /// Answers with a Kubernetes `Status` error (e.g. 404 NotFound, 409 Conflict).
        pub(crate) fn respond_error(self, code: u16, reason: &str) {
            let status = StatusCode::from_u16(code).expect("valid status code");
            let body = json!({
                "apiVersion": "v1", "kind": "Status", "status": "Failure",
                "message": reason, "reason": reason, "code": code,
            });
            self.respond_with(status, &body);
        }
    }

    /// A client talking to a fresh mocked API server.
    pub(crate) fn client() -> (kube::Client, ApiServer) {
        let (service, handle) = mock::pair::<Request<Body>, Response<Body>>();
        (kube::Client::new(service, "default"), ApiServer(handle))
    }

    /// A controller context backed by a mocked API server and an unexposed metrics registry.
    pub(crate) fn context(controller: &'static str) -> (Arc<Context>, ApiServer) {
        let (client, server) = client();
        let metrics = Arc::new(Metrics::new(&mut Registry::default()));
        (Arc::new(Context::new(client, controller, &metrics)), server)
    }

    /// What the manager hands the controller `controller` watching `namespace` (`None`: every namespace), backed by
    /// a mocked API server, with the trigger that stops the controller.
    pub(crate) fn runtime(
        controller: &'static str,
        namespace: Option<&str>,
    ) -> (
        crate::manager::Runtime,
        ApiServer,
        crate::manager::ShutdownTrigger,
    ) {
        let (client, server) = client();
        let (trigger, shutdown) = crate::manager::Shutdown::new();
        let runtime = crate::manager::Runtime {
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
    pub(crate) async fn assert_watches_only_its_namespace<F, Fut>(
        controller: &'static str,
        run: F,
        collection: &str,
    ) where
        F: FnOnce(crate::manager::Runtime) -> Fut,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let (runtime, mut server, trigger) = runtime(controller, Some("team-a"));
        let running = tokio::spawn(run(runtime));
        let list = server.next().await;
        assert_eq!(
            (&list.method, list.path.as_str()),
            (&Method::GET, collection),
            "the first request lists the namespace"
        );
        list.respond(&json!({
            "apiVersion": "v1", "kind": "List", "metadata": { "resourceVersion": "1" }, "items": [],
        }));
        let watch = server.next().await;
        assert_eq!(watch.path, collection, "the watch stays in the namespace");
        assert_eq!(watch.query.get("watch").map(String::as_str), Some("true"));
        trigger.trigger();
        within(running)
            .await
            .expect("the controller stops on shutdown");
    }

    /// Fails the test if `fut` does not finish within 5 seconds.
    pub(crate) async fn within<T>(fut: impl Future<Output = T>) -> T {
        tokio::time::timeout(Duration::from_secs(5), fut)
            .await
            .expect("timed out talking to the mocked API server")
    }

    /// Reconciles `obj` with `reconcile` against a mocked API server whose side `script` plays; fails when the
    /// reconciler sends a request the script does not expect or one after it, or when either takes over 5 seconds.
    pub(crate) async fn reconcile_against<K, Fut>(
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
    pub(crate) async fn assert_error_policy_backs_off<K>(
        error_policy: fn(Arc<K>, &Error, Arc<Context>) -> Action,
        obj: K,
    ) where
        K: Resource<DynamicType = ()>,
    {
        let (ctx, _server) = context("test");
        let obj = Arc::new(obj);
        let err = Error::MissingObjectKey(".metadata.name");
        let delays: Vec<Action> = (0..8)
            .map(|_| error_policy(obj.clone(), &err, ctx.clone()))
            .collect();
        let expected: Vec<Action> = [5, 10, 20, 40, 80, 160, 300, 300]
            .into_iter()
            .map(|secs| Action::requeue(Duration::from_secs(secs)))
            .collect();
        assert_eq!(delays, expected);
        let ok = |_: Arc<K>, _: Arc<Context>| async { Ok(Action::await_change()) };
        instrumented(ok, obj.clone(), ctx.clone())
            .await
            .expect("stub reconcile succeeds");
        assert_eq!(
            error_policy(obj, &err, ctx),
            Action::requeue(Duration::from_secs(5))
        );
    }

    impl ApiServer {
        /// Waits for the next request.
        pub(crate) async fn next(&mut self) -> MockRequest {
            let (request, send) = within(self.0.next_request())
                .await
                .expect("expected another API request");
            let (parts, body) = request.into_parts();
            let bytes = body.collect_bytes().await.expect("readable request body");
            let body = if bytes.is_empty() {
                Value::Null
            } else {
                serde_json::from_slice(&bytes).expect("JSON request body")
            };
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
            let content_type = parts
                .headers
                .get(http::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string();
            MockRequest {
                method: parts.method,
                path: parts.uri.path().to_string(),
                query,
                content_type,
                body,
                send,
            }
        }

        /// Waits for the next request and asserts its method and path.
        pub(crate) async fn expect(&mut self, method: Method, path: &str) -> MockRequest {
            let request = self.next().await;
            assert_eq!(
                (&request.method, request.path.as_str()),
                (&method, path),
                "unexpected API request"
            );
            request
        }

        /// Expects an `events.k8s.io/v1` Event with `reason` in `namespace`, echoes it back and returns it.
        pub(crate) async fn expect_event(&mut self, namespace: &str, reason: &str) -> Value {
            let path = format!("/apis/events.k8s.io/v1/namespaces/{namespace}/events");
            let request = self.expect(Method::POST, &path).await;
            assert_eq!(request.body["reason"], reason, "event reason");
            let event = request.body.clone();
            request.respond(&event);
            event
        }

        /// Expects the finalizer helper's JSON patch adding `finalizer` to an object at `path` that has none, and
        /// answers with `response`.
        pub(crate) async fn expect_finalizer_added<K: Serialize>(
            &mut self,
            path: &str,
            finalizer: &str,
            response: &K,
        ) {
            let request = self.expect(Method::PATCH, path).await;
            assert_eq!(request.content_type, "application/json-patch+json");
            assert_eq!(
                request.body,
                json!([
                    { "op": "test", "path": "/metadata/finalizers", "value": null },
                    { "op": "add", "path": "/metadata/finalizers", "value": [finalizer] },
                ])
            );
            request.respond(response);
        }

        /// Expects the finalizer helper's JSON patch removing `finalizer`, the object's only one, from the object
        /// at `path`, and answers with `response`.
        pub(crate) async fn expect_finalizer_removed<K: Serialize>(
            &mut self,
            path: &str,
            finalizer: &str,
            response: &K,
        ) {
            let request = self.expect(Method::PATCH, path).await;
            assert_eq!(request.content_type, "application/json-patch+json");
            assert_eq!(
                request.body,
                json!([
                    { "op": "test", "path": "/metadata/finalizers/0", "value": finalizer },
                    { "op": "remove", "path": "/metadata/finalizers/0" },
                ])
            );
            request.respond(response);
        }

        /// Expects a forced server-side apply at `path` by this operator's field manager.
        pub(crate) async fn expect_apply(&mut self, path: &str) -> MockRequest {
            let request = self.expect(Method::PATCH, path).await;
            assert_eq!(request.content_type, "application/apply-patch+yaml");
            assert_eq!(
                request.query.get("fieldManager").map(String::as_str),
                Some(FIELD_MANAGER)
            );
            assert_eq!(request.query.get("force").map(String::as_str), Some("true"));
            request
        }

        /// Expects the server-side apply of `obj`'s status (`obj` is at `path`), answers with `obj` carrying that
        /// status and returns it.
        pub(crate) async fn expect_status_apply<K, S>(&mut self, path: &str, obj: &K) -> S
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
        pub(crate) async fn expect_done(mut self) {
            if let Some((request, _)) = within(self.0.next_request()).await {
                panic!(
                    "unexpected API request: {} {}",
                    request.method(),
                    request.uri()
                );
            }
        }
    }
}
