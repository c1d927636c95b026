//! `Memcached` (cache.example.com/v1alpha1) against a real API server: the sample of `config/samples` is accepted by its CRD,
//! and the reconciler, running as the manager's ServiceAccount, adds its finalizer and the `Available` condition,
//! then releases the finalizer when the object is deleted.

use crate::support;
use kube::{
    Api, ResourceExt,
    api::{DeleteParams, PostParams},
};

use memcached_operator::api::v1alpha1::Memcached as Kind;
use memcached_operator::controller::memcached as controller;

/// The sample `kubesmith create api` wrote.
const SAMPLE: &str = "cache_v1alpha1_memcached.yaml";
/// Prefix of the namespaces these tests create.
const NAMESPACE: &str = "memcached";

#[tokio::test]
async fn the_sample_is_reconciled_as_the_manager() {
    let Some(env) = support::env() else { return };
    let namespace = env.namespace(NAMESPACE).await;
    let running = env.run(
        controller::CONTROLLER_NAME,
        controller::run,
        Some(&namespace),
    );
    let api: Api<Kind> = Api::namespaced(env.admin(), &namespace);
    let sample: Kind = support::sample(SAMPLE);
    let name = sample.name_any();
    api.create(&PostParams::default(), &sample)
        .await
        .expect("the API server accepts the sample");

    let reconciled = running
        .until("the finalizer and Available=True", || async {
            let obj = api.get(&name).await.ok()?;
            let conditions = obj.status.as_ref().map(|s| s.conditions.clone())?;
            (obj.finalizers().iter().any(|f| f == controller::FINALIZER)
                && support::condition_true(&obj, &conditions, "Available"))
            .then_some(obj)
        })
        .await;
    let status = reconciled.status.expect("status");
    assert_eq!(status.observed_generation, reconciled.metadata.generation);

    api.delete(&name, &DeleteParams::default())
        .await
        .expect("the sample is deleted");
    running
        .until("the finalizer released and the object gone", || async {
            api.get_opt(&name).await.ok()?.is_none().then_some(())
        })
        .await;
    running.stop().await;
}
