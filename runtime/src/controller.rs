//! The reconcile loop every controller runs, and its helpers: [`Context`], [`Error`]/[`Result`], per-object error
//! backoff, server-side applied status and condition helpers.
//!
//! A controller module of the operator's crate builds a [`Controller`] over its kind and hands it to [`run`] with
//! its `reconcile` and `error_policy` functions; [`run`] times and counts every reconcile
//! ([`crate::manager::metrics`]) and stops when the manager shuts down.

use crate::manager::{
    Runtime,
    metrics::{ControllerMetrics, Metrics},
};
use futures::StreamExt;
use k8s_openapi::{
    apimachinery::pkg::apis::meta::v1::Condition, apimachinery::pkg::apis::meta::v1::Time, jiff::Timestamp,
};
use kube::{
    Api, Client, Resource, ResourceExt,
    api::{Patch, PatchParams},
    core::DynamicObject,
    runtime::{
        controller::{Action, Controller},
        events::{Event, Recorder, Reporter},
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
                finalizer::Error::ApplyFailed(inner) | finalizer::Error::CleanupFailed(inner) => inner.metric_label(),
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
    /// The field manager of the controller's server-side applies: the operator's name.
    pub field_manager: &'static str,
    /// Publishes `events.k8s.io/v1` Events about reconciled objects.
    pub recorder: Recorder,
    /// Reconcile metrics labelled with this controller's name.
    pub metrics: ControllerMetrics,
    /// Per-object retry delays after failures.
    pub backoff: Backoff,
}

impl Context {
    /// Context for the controller `controller` of the operator named `field_manager`, recording into the
    /// manager's `metrics`.
    pub fn new(client: Client, field_manager: &'static str, controller: &'static str, metrics: &Arc<Metrics>) -> Self {
        let reporter = Reporter { controller: field_manager.into(), instance: std::env::var("POD_NAME").ok() };
        Self {
            recorder: Recorder::new(client.clone(), reporter),
            client,
            field_manager,
            metrics: metrics.controller(controller),
            backoff: Backoff::default(),
        }
    }

    /// Publishes `event` about `obj`. Events are best effort, as controller-runtime's recorder makes them: one the
    /// API server refuses (RBAC, a quota, validation; Kubernetes before 1.22 refuses events about cluster-scoped
    /// objects outside `kube-system`) is logged and never fails the reconcile, so it cannot hold up a finalizer.
    pub async fn publish<K: Resource<DynamicType = ()>>(&self, event: &Event, obj: &K) {
        let reference = obj.object_ref(&());
        if let Err(error) = self.recorder.publish(event, &reference).await {
            let name = reference.name.unwrap_or_default();
            warn!(%name, reason = %event.reason, %error, "publishing an event failed");
        }
    }

    /// Server-side applies `status` to the status subresource of `obj` as [`Context::field_manager`], taking over
    /// its fields.
    pub async fn apply_status<K, S>(&self, api: &Api<K>, obj: &K, status: &S) -> Result<()>
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
        api.patch_status(&obj.name_any(), &PatchParams::apply(self.field_manager).force(), &Patch::Apply(&patch))
            .await?;
        Ok(())
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
    let ctx = Arc::new(Context::new(runtime.client, runtime.field_manager, name, &runtime.metrics));
    info!(controller = name, namespace = ?runtime.namespace, "starting controller");
    controller
        .graceful_shutdown_on(runtime.shutdown.wait())
        .run(move |obj, ctx| instrumented(reconcile, obj, ctx), error_policy, ctx)
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
        self.failures.lock().unwrap_or_else(PoisonError::into_inner).remove(key);
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
        let mut conditions = vec![new_condition(CONDITION_AVAILABLE, true, "Reconciled", "old", Some(1), at(10))];
        set_condition(&mut conditions, new_condition(CONDITION_AVAILABLE, true, "Reconciled", "new", Some(2), at(20)));
        assert_eq!(conditions.len(), 1);
        assert_eq!(conditions[0].last_transition_time, Time(at(10)));
        assert_eq!(conditions[0].message, "new");
        assert_eq!(conditions[0].observed_generation, Some(2));
    }

    #[test]
    fn set_condition_updates_transition_time_when_status_changes() {
        let mut conditions = vec![new_condition(CONDITION_AVAILABLE, false, "Failed", "", None, at(10))];
        set_condition(&mut conditions, new_condition(CONDITION_AVAILABLE, true, "Reconciled", "", None, at(20)));
        let available = find_condition(&conditions, CONDITION_AVAILABLE).expect("condition present");
        assert_eq!(available.status, "True");
        assert_eq!(available.last_transition_time, Time(at(20)));
    }

    #[test]
    fn set_condition_appends_new_types() {
        let mut conditions = vec![new_condition("Degraded", false, "Ok", "", None, at(1))];
        set_condition(&mut conditions, new_condition(CONDITION_AVAILABLE, true, "Reconciled", "", None, at(2)));
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
