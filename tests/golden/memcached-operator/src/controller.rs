//! Shared controller plumbing: `Context`, `Error`/`Result`, per-object error backoff, condition helpers and mock-API test helpers.
pub mod cluster;
pub mod r#match;
pub mod memcached;
// +kubesmith:scaffold:controller-modules

use crate::manager::metrics::{ControllerMetrics, Metrics};
use k8s_openapi::{
    apimachinery::pkg::apis::meta::v1::Condition, apimachinery::pkg::apis::meta::v1::Time,
    jiff::Timestamp,
};
use kube::{
    Client, Resource, ResourceExt,
    core::DynamicObject,
    runtime::{
        controller::Action,
        events::{Recorder, Reporter},
        finalizer,
        reflector::ObjectRef,
    },
};
use std::{
    collections::HashMap,
    future::Future,
    sync::{Arc, Mutex, PoisonError},
    time::{Duration, Instant},
};
use tracing::warn;

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
    reason = "used by the per-kind controller tests; unused until `kubesmith create api` adds the first controller"
)]
pub(crate) mod testing {
    use super::Context;
    use crate::manager::metrics::Metrics;
    use http::{Method, Request, Response, StatusCode};
    use kube::client::Body;
    use prometheus_client::registry::Registry;
    use serde::Serialize;
    use serde_json::{Value, json};
    use std::{collections::BTreeMap, future::Future, sync::Arc, time::Duration};
    use tower_test::mock::{self, Handle, SendResponse};

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

    /// What the manager hands a controller watching `namespace` (`None`: every namespace), backed by a mocked API
    /// server, with the trigger that stops the controller.
    pub(crate) fn runtime(
        namespace: Option<&str>,
    ) -> (
        crate::manager::Runtime,
        ApiServer,
        crate::manager::ShutdownTrigger,
    ) {
        let (client, server) = client();
        let (trigger, shutdown) = crate::manager::Shutdown::new();
        let runtime = crate::manager::Runtime {
            client,
            metrics: Arc::new(Metrics::new(&mut Registry::default())),
            shutdown,
            namespace: namespace.map(str::to_string),
        };
        (runtime, server, trigger)
    }

    /// Fails the test if `fut` does not finish within 5 seconds.
    pub(crate) async fn within<T>(fut: impl Future<Output = T>) -> T {
        tokio::time::timeout(Duration::from_secs(5), fut)
            .await
            .expect("timed out talking to the mocked API server")
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
