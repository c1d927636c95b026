//! Reconciler for `Match` (cache.example.com/v1, namespaced): finalizer, `Available` status condition, events.

// The markers grant what this file's calls need (`kubesmith make manifests` warns, with the marker to add, when
// the code calls an API no marker grants): the controller lists and watches, the finalizer is a patch, status is
// server-side applied to the status subresource.
// +kubebuilder:rbac:groups=cache.example.com,resources=matches,verbs=list;watch;patch
// +kubebuilder:rbac:groups=cache.example.com,resources=matches/status,verbs=patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

use k8s_openapi::jiff::Timestamp;
use kube::{
    Client, Resource, ResourceExt,
    api::Api,
    runtime::{
        controller::{Action, Controller},
        events::{Event, EventType},
        finalizer::{Event as FinalizerEvent, finalizer},
        watcher,
    },
};
use kubesmith_runtime::{
    controller::{self, CONDITION_AVAILABLE, Context, Error, Result},
    manager::{Registration, Runtime},
};
use std::{sync::Arc, time::Duration};
use tracing::info;

/// The kind this controller reconciles.
type Kind = crate::api::v1::Match;
/// The status of [`Kind`].
type KindStatus = crate::api::v1::MatchStatus;

/// Name of this controller (metrics and log label).
pub const CONTROLLER_NAME: &str = "match";
/// Finalizer this controller keeps on every Match until its cleanup ran.
#[rustfmt::skip] // one line, however long the kind's plural and API group
pub const FINALIZER: &str = "matches.cache.example.com/finalizer";
/// Periodic resync interval after a successful reconcile.
const REQUEUE_AFTER: Duration = Duration::from_secs(5 * 60);

/// Registers this controller with the manager.
pub fn registration() -> Registration {
    Registration::namespaced(CONTROLLER_NAME, run)
}

/// Watches Matchs and reconciles them until the manager shuts down.
pub async fn run(runtime: Runtime) {
    let api = runtime.api::<Kind>();
    let controller = Controller::new(api, watcher::Config::default().any_semantic());
    controller::run(runtime, controller, reconcile, error_policy).await;
}

/// The API through which `obj` is read and written.
fn api_for(client: Client, obj: &Kind) -> Result<Api<Kind>> {
    let namespace = obj
        .namespace()
        .ok_or(Error::MissingObjectKey(".metadata.namespace"))?;
    Ok(Api::namespaced(client, &namespace))
}

/// Reconciles one Match: adds the finalizer, then applies (or cleans up on deletion).
pub async fn reconcile(obj: Arc<Kind>, ctx: Arc<Context>) -> Result<Action> {
    let api = api_for(ctx.client.clone(), &obj)?;
    Ok(finalizer(&api, FINALIZER, obj, |event| async {
        match event {
            FinalizerEvent::Apply(obj) => apply(obj, &api, &ctx).await,
            FinalizerEvent::Cleanup(obj) => cleanup(obj, &ctx).await,
        }
    })
    .await?)
}

/// Retries a failed reconcile with per-object exponential backoff.
pub fn error_policy(obj: Arc<Kind>, err: &Error, ctx: Arc<Context>) -> Action {
    controller::requeue_on_error(obj.as_ref(), err, &ctx)
}

/// The status this controller wants `obj` to have.
fn desired_status(obj: &Kind, now: Timestamp) -> KindStatus {
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
            "Match has been reconciled",
            generation,
            now,
        ),
    );
    KindStatus {
        conditions,
        observed_generation: generation,
    }
}

/// Drives the actual state towards `obj`'s spec and reports the outcome in its status.
async fn apply(obj: Arc<Kind>, api: &Api<Kind>, ctx: &Context) -> Result<Action> {
    let name = obj.name_any();
    let status = desired_status(&obj, Timestamp::now());
    if obj.status.as_ref() != Some(&status) {
        ctx.apply_status(api, obj.as_ref(), &status).await?;
        let event = Event {
            type_: EventType::Normal,
            reason: "Reconciled".into(),
            note: Some(format!("{} {name} is available", Kind::kind(&()))),
            action: "UpdateStatus".into(),
            secondary: None,
        };
        ctx.publish(&event, obj.as_ref()).await;
        info!(controller = CONTROLLER_NAME, %name, generation = ?obj.metadata.generation, "status updated");
    }
    Ok(Action::requeue(REQUEUE_AFTER))
}

/// Releases what `obj` owns outside Kubernetes before its finalizer is removed.
async fn cleanup(obj: Arc<Kind>, ctx: &Context) -> Result<Action> {
    let name = obj.name_any();
    let event = Event {
        type_: EventType::Normal,
        reason: "Deleting".into(),
        note: Some(format!("Cleaning up {} {name}", Kind::kind(&()))),
        action: "Cleanup".into(),
        secondary: None,
    };
    ctx.publish(&event, obj.as_ref()).await;
    Ok(Action::await_change())
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
    use kubesmith_runtime::testing::{self, reconcile_against};

    const EVENTS_NAMESPACE: &str = "default";

    /// The URL path of the object the tests reconcile.
    fn path() -> String {
        format!("{}/test", Kind::url_path(&(), Some("default")))
    }

    fn object() -> Kind {
        Kind {
            metadata: testing::metadata(Some("default")),
            spec: Default::default(),
            status: None,
        }
    }

    #[tokio::test]
    async fn run_lists_and_watches_only_its_namespace() {
        testing::assert_watches_only_its_namespace(
            CONTROLLER_NAME,
            run,
            &Kind::url_path(&(), Some("team-a")),
        )
        .await;
    }

    #[tokio::test]
    async fn new_object_gets_finalizer() {
        let obj = object();
        let response = testing::finalized(obj.clone(), FINALIZER);
        let action = reconcile_against(reconcile, obj, async |server| {
            server
                .expect_finalizer_added(&path(), FINALIZER, &response)
                .await;
        })
        .await;
        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
    }

    #[tokio::test]
    async fn finalized_object_gets_status_and_event() {
        let obj = testing::finalized(object(), FINALIZER);
        let response = obj.clone();
        let action = reconcile_against(reconcile, obj, async |server| {
            let status: KindStatus = server.expect_status_apply(&path(), &response).await;
            assert_eq!(status.observed_generation, Some(testing::GENERATION));
            assert_eq!(
                testing::condition(&status.conditions, CONDITION_AVAILABLE),
                ("True", "Reconciled")
            );
            let event = server.expect_event(EVENTS_NAMESPACE, "Reconciled").await;
            assert_eq!(event["regarding"]["name"], "test");
        })
        .await;
        assert_eq!(
            action.expect("reconcile succeeds"),
            Action::requeue(REQUEUE_AFTER)
        );
    }

    #[tokio::test]
    async fn up_to_date_status_is_not_patched() {
        let mut obj = testing::finalized(object(), FINALIZER);
        let earlier = Timestamp::from_second(1_700_000_000).expect("valid timestamp");
        obj.status = Some(desired_status(&obj, earlier));
        let action = reconcile_against(reconcile, obj, async |_| {}).await;
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
        let mut obj = testing::finalized(object(), FINALIZER);
        obj.metadata.deletion_timestamp = Some(Time(Timestamp::now()));
        let mut response = obj.clone();
        response.metadata.finalizers = None;
        let action = reconcile_against(reconcile, obj, async |server| {
            server.expect_event(EVENTS_NAMESPACE, "Deleting").await;
            server
                .expect_finalizer_removed(&path(), FINALIZER, &response)
                .await;
        })
        .await;
        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
    }

    #[tokio::test]
    async fn a_refused_event_does_not_hold_up_the_finalizer() {
        let mut obj = testing::finalized(object(), FINALIZER);
        obj.metadata.deletion_timestamp = Some(Time(Timestamp::now()));
        let mut response = obj.clone();
        response.metadata.finalizers = None;
        let action = reconcile_against(reconcile, obj, async |server| {
            server.refuse_event(EVENTS_NAMESPACE, "Deleting").await;
            server
                .expect_finalizer_removed(&path(), FINALIZER, &response)
                .await;
        })
        .await;
        assert_eq!(action.expect("reconcile succeeds"), Action::await_change());
    }

    #[tokio::test]
    async fn error_policy_backs_off_exponentially_and_is_capped() {
        testing::assert_error_policy_backs_off(error_policy, object()).await;
    }
}
