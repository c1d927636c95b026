//! Reconciler for `Memcached` (cache.example.com/v1alpha1, namespaced): finalizer, `Available` status condition, events.

// The markers grant what this file's calls need (`kubesmith make manifests` warns, with the marker to add, when
// the code calls an API no marker grants): the controller lists and watches, the finalizer is a patch, status is
// server-side applied to the status subresource.
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds,verbs=list;watch;patch
// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/status,verbs=patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

use crate::{
    api::v1alpha1::{Memcached, MemcachedStatus},
    controller::{self, CONDITION_AVAILABLE, Context, Error, FIELD_MANAGER, Result},
    manager::{Registration, Runtime},
};
use futures::StreamExt;
use k8s_openapi::jiff::Timestamp;
use kube::{
    Client, Resource, ResourceExt,
    api::{Api, Patch, PatchParams},
    runtime::{
        controller::{Action, Controller},
        events::{Event, EventType},
        finalizer::{Event as FinalizerEvent, finalizer},
        watcher,
    },
};
use serde_json::json;
use std::{sync::Arc, time::Duration};
use tracing::{debug, info, warn};

/// Name of this controller (metrics and log label).
pub const CONTROLLER_NAME: &str = "memcached";
/// Finalizer this controller keeps on every Memcached until its cleanup ran.
pub const FINALIZER: &str = "memcacheds.cache.example.com/finalizer";
/// Periodic resync interval after a successful reconcile.
const REQUEUE_AFTER: Duration = Duration::from_secs(5 * 60);

/// Registers this controller with the manager.
pub fn registration() -> Registration {
    Registration::namespaced(CONTROLLER_NAME, run)
}

/// Watches Memcacheds and reconciles them until the manager shuts down.
pub async fn run(runtime: Runtime) {
    let api = runtime.api::<Memcached>();
    let ctx = Arc::new(Context::new(
        runtime.client.clone(),
        CONTROLLER_NAME,
        &runtime.metrics,
    ));
    info!(controller = CONTROLLER_NAME, namespace = ?runtime.namespace, "starting controller");
    Controller::new(api, watcher::Config::default().any_semantic())
        .graceful_shutdown_on(runtime.shutdown.wait())
        .run(
            |obj, ctx| controller::instrumented(reconcile, obj, ctx),
            error_policy,
            ctx,
        )
        .for_each(|result| async move {
            match result {
                Ok((obj, action)) => {
                    debug!(controller = CONTROLLER_NAME, object = %obj, ?action, "reconciled")
                }
                Err(err) => {
                    warn!(controller = CONTROLLER_NAME, error = %err, "reconcile loop error")
                }
            }
        })
        .await;
    info!(controller = CONTROLLER_NAME, "controller stopped");
}

/// The API through which `obj` is read and written.
fn api_for(client: Client, obj: &Memcached) -> Result<Api<Memcached>> {
    let namespace = obj
        .namespace()
        .ok_or(Error::MissingObjectKey(".metadata.namespace"))?;
    Ok(Api::namespaced(client, &namespace))
}

/// Reconciles one Memcached: adds the finalizer, then applies (or cleans up on deletion).
pub async fn reconcile(obj: Arc<Memcached>, ctx: Arc<Context>) -> Result<Action> {
    let api = api_for(ctx.client.clone(), &obj)?;
    finalizer(&api, FINALIZER, obj, |event| async {
        match event {
            FinalizerEvent::Apply(obj) => apply(obj, &api, &ctx).await,
            FinalizerEvent::Cleanup(obj) => cleanup(obj, &ctx).await,
        }
    })
    .await
    .map_err(|err| Error::Finalizer(Box::new(err)))
}

/// Retries a failed reconcile with per-object exponential backoff.
pub fn error_policy(obj: Arc<Memcached>, err: &Error, ctx: Arc<Context>) -> Action {
    controller::requeue_on_error(obj.as_ref(), err, &ctx)
}

/// The status this controller wants `obj` to have.
fn desired_status(obj: &Memcached, now: Timestamp) -> MemcachedStatus {
    let generation = obj.metadata.generation;
    let mut conditions = obj
        .status
        .as_ref()
        .map(|s| s.conditions.clone())
        .unwrap_or_default();
    controller::set_condition(
        &mut conditions,
        controller::new_condition(
            CONDITION_AVAILABLE,
            true,
            "Reconciled",
            "Memcached has been reconciled",
            generation,
            now,
        ),
    );
    MemcachedStatus {
        conditions,
        observed_generation: generation,
    }
}

/// Drives the actual state towards `obj`'s spec and reports the outcome in its status.
async fn apply(obj: Arc<Memcached>, api: &Api<Memcached>, ctx: &Context) -> Result<Action> {
    let name = obj.name_any();
    let status = desired_status(&obj, Timestamp::now());
    if obj.status.as_ref() != Some(&status) {
        // Server-side apply on the status subresource; the body must carry apiVersion and kind.
        let patch = json!({
            "apiVersion": Memcached::api_version(&()),
            "kind": Memcached::kind(&()),
            "status": status,
        });
        api.patch_status(
            &name,
            &PatchParams::apply(FIELD_MANAGER).force(),
            &Patch::Apply(&patch),
        )
        .await?;
        let event = Event {
            type_: EventType::Normal,
            reason: "Reconciled".into(),
            note: Some(format!("Memcached {name} is available")),
            action: "UpdateStatus".into(),
            secondary: None,
        };
        ctx.recorder.publish(&event, &obj.object_ref(&())).await?;
        info!(controller = CONTROLLER_NAME, %name, generation = ?obj.metadata.generation, "status updated");
    }
    Ok(Action::requeue(REQUEUE_AFTER))
}

/// Releases what `obj` owns outside Kubernetes before its finalizer is removed.
async fn cleanup(obj: Arc<Memcached>, ctx: &Context) -> Result<Action> {
    let event = Event {
        type_: EventType::Normal,
        reason: "Deleting".into(),
        note: Some(format!("Cleaning up Memcached {}", obj.name_any())),
        action: "Cleanup".into(),
        secondary: None,
    };
    ctx.recorder.publish(&event, &obj.object_ref(&())).await?;
    Ok(Action::await_change())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        api::v1alpha1::MemcachedSpec,
        controller::testing::{self, within},
    };
    use http::Method;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

    const PATH: &str = "/apis/cache.example.com/v1alpha1/namespaces/default/memcacheds/test";
    const EVENTS_NAMESPACE: &str = "default";

    fn object() -> Memcached {
        let mut obj = Memcached::new("test", MemcachedSpec::default());
        obj.metadata.namespace = Some("default".into());
        obj.metadata.uid = Some("8f5c2d1e-0000-4000-8000-000000000001".into());
        obj.metadata.resource_version = Some("100".into());
        obj.metadata.generation = Some(3);
        obj
    }

    fn finalized(mut obj: Memcached) -> Memcached {
        obj.finalizers_mut().push(FINALIZER.into());
        obj
    }

    #[tokio::test]
    async fn run_lists_and_watches_only_its_namespace() {
        let (runtime, mut server, trigger) = testing::runtime(Some("team-a"));
        let controller = tokio::spawn(run(runtime));
        let list = server.next().await;
        assert_eq!(
            (list.method.clone(), list.path.as_str()),
            (
                Method::GET,
                "/apis/cache.example.com/v1alpha1/namespaces/team-a/memcacheds"
            )
        );
        list.respond(&json!({
            "apiVersion": "cache.example.com/v1alpha1", "kind": "MemcachedList",
            "metadata": { "resourceVersion": "1" }, "items": [],
        }));
        let watch = server.next().await;
        assert_eq!(
            watch.path,
            "/apis/cache.example.com/v1alpha1/namespaces/team-a/memcacheds"
        );
        assert_eq!(watch.query.get("watch").map(String::as_str), Some("true"));
        trigger.trigger();
        within(controller)
            .await
            .expect("controller stops on shutdown");
    }

    #[tokio::test]
    async fn new_object_gets_finalizer() {
        let (ctx, mut server) = testing::context(CONTROLLER_NAME);
        let obj = object();
        let response = finalized(obj.clone());
        let api = tokio::spawn(async move {
            let request = server.expect(Method::PATCH, PATH).await;
            assert_eq!(request.content_type, "application/json-patch+json");
            assert_eq!(
                request.body,
                json!([
                    { "op": "test", "path": "/metadata/finalizers", "value": null },
                    { "op": "add", "path": "/metadata/finalizers", "value": [FINALIZER] },
                ])
            );
            request.respond(&response);
            server.expect_done().await;
        });
        let action = within(reconcile(Arc::new(obj), ctx)).await;
        within(api).await.expect("API scenario passed");
        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
    }

    #[tokio::test]
    async fn finalized_object_gets_status_and_event() {
        let (ctx, mut server) = testing::context(CONTROLLER_NAME);
        let obj = finalized(object());
        let response = obj.clone();
        let api = tokio::spawn(async move {
            let request = server
                .expect(Method::PATCH, &format!("{PATH}/status"))
                .await;
            assert_eq!(request.content_type, "application/apply-patch+yaml");
            assert_eq!(
                request.query.get("fieldManager").map(String::as_str),
                Some(FIELD_MANAGER)
            );
            assert_eq!(request.query.get("force").map(String::as_str), Some("true"));
            assert_eq!(request.body["apiVersion"], "cache.example.com/v1alpha1");
            assert_eq!(request.body["kind"], "Memcached");
            let status: MemcachedStatus =
                serde_json::from_value(request.body["status"].clone()).expect("status body");
            assert_eq!(status.observed_generation, Some(3));
            let available = controller::find_condition(&status.conditions, CONDITION_AVAILABLE)
                .expect("Available condition");
            assert_eq!(available.status, "True");
            assert_eq!(available.reason, "Reconciled");
            assert_eq!(available.observed_generation, Some(3));
            let mut patched = response;
            patched.status = Some(status);
            request.respond(&patched);
            let event = server.expect_event(EVENTS_NAMESPACE, "Reconciled").await;
            assert_eq!(event["regarding"]["name"], "test");
            server.expect_done().await;
        });
        let action = within(reconcile(Arc::new(obj), ctx)).await;
        within(api).await.expect("API scenario passed");
        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(REQUEUE_AFTER)
        );
    }

    #[tokio::test]
    async fn up_to_date_status_is_not_patched() {
        let (ctx, server) = testing::context(CONTROLLER_NAME);
        let mut obj = finalized(object());
        let earlier = Timestamp::from_second(1_700_000_000).expect("valid timestamp");
        obj.status = Some(desired_status(&obj, earlier));
        let api = tokio::spawn(server.expect_done());
        let action = within(reconcile(Arc::new(obj), ctx)).await;
        within(api).await.expect("no API requests");
        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(REQUEUE_AFTER)
        );
    }

    #[test]
    fn desired_status_keeps_transition_time_until_status_changes() {
        let mut obj = object();
        let earlier = Timestamp::from_second(1_700_000_000).expect("valid timestamp");
        let later = Timestamp::from_second(1_700_000_600).expect("valid timestamp");
        obj.status = Some(desired_status(&obj, earlier));
        obj.metadata.generation = Some(4);
        let status = desired_status(&obj, later);
        let available =
            controller::find_condition(&status.conditions, CONDITION_AVAILABLE).expect("Available");
        assert_eq!(available.last_transition_time, Time(earlier));
        assert_eq!(status.observed_generation, Some(4));
    }

    #[tokio::test]
    async fn deleted_object_publishes_event_and_removes_finalizer() {
        let (ctx, mut server) = testing::context(CONTROLLER_NAME);
        let mut obj = finalized(object());
        obj.metadata.deletion_timestamp = Some(Time(Timestamp::now()));
        let mut response = obj.clone();
        response.metadata.finalizers = None;
        let api = tokio::spawn(async move {
            server.expect_event(EVENTS_NAMESPACE, "Deleting").await;
            let request = server.expect(Method::PATCH, PATH).await;
            assert_eq!(request.content_type, "application/json-patch+json");
            assert_eq!(
                request.body,
                json!([
                    { "op": "test", "path": "/metadata/finalizers/0", "value": FINALIZER },
                    { "op": "remove", "path": "/metadata/finalizers/0" },
                ])
            );
            request.respond(&response);
            server.expect_done().await;
        });
        let action = within(reconcile(Arc::new(obj), ctx)).await;
        within(api).await.expect("API scenario passed");
        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
    }

    #[tokio::test]
    async fn error_policy_backs_off_exponentially_and_is_capped() {
        let (ctx, _server) = testing::context(CONTROLLER_NAME);
        let obj = Arc::new(object());
        let err = Error::MissingObjectKey(".metadata.name");
        let delays: Vec<Action> = (0..8)
            .map(|_| error_policy(obj.clone(), &err, ctx.clone()))
            .collect();
        let expected: Vec<Action> = [5, 10, 20, 40, 80, 160, 300, 300]
            .into_iter()
            .map(|secs| Action::requeue(Duration::from_secs(secs)))
            .collect();
        assert_eq!(delays, expected);

        // a successful reconcile resets the backoff for that object
        let ok = |_: Arc<Memcached>, _: Arc<Context>| async { Ok(Action::await_change()) };
        controller::instrumented(ok, obj.clone(), ctx.clone())
            .await
            .expect("stub reconcile succeeds");
        assert_eq!(
            error_policy(obj, &err, ctx),
            Action::requeue(Duration::from_secs(5))
        );
    }
}
