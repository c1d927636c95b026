//! The webhooks of `Memcached` (cache.example.com/v1alpha1) called by a real API server: registered from `config/webhook` (and the
//! CRD's conversion patch) with the operator's webhook server on 127.0.0.1 as their endpoint, one test per part.
//! A webhook configuration reaches the API server's admission chain a moment after it is registered, so the first
//! object of each admission test is made again until the webhook answers.

use crate::support;
use kube::{
    Api,
    api::{ApiResource, DynamicObject, GroupVersionKind, PostParams},
};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Memcached as the API server serves it: API group, version, kind and plural.
const GROUP: &str = "cache.example.com";
const VERSION: &str = "v1alpha1";
const KIND: &str = "Memcached";
const PLURAL: &str = "memcacheds";
/// Prefix of the namespaces and objects these tests create.
const PREFIX: &str = "memcached";

/// Where a test works: a namespace of its own.
async fn scope(env: &support::Env) -> Option<String> {
    Some(env.namespace(PREFIX).await)
}

/// The API of Memcached `version` in `scope`.
fn api(env: &support::Env, scope: Option<&str>, version: &str) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk(GROUP, version, KIND);
    let resource = ApiResource::from_gvk_with_plural(&gvk, PLURAL);
    match scope {
        Some(namespace) => Api::namespaced_with(env.admin(), namespace, &resource),
        None => Api::all_with(env.admin(), &resource),
    }
}

/// A Memcached of `version` named after `test` (unique in this binary): the least spec its schema accepts, with
/// `spec`'s fields over it.
fn object(version: &str, test: &str, spec: Value) -> DynamicObject {
    static NEXT: AtomicUsize = AtomicUsize::new(1);
    let name = format!("{PREFIX}-{test}-{}", NEXT.fetch_add(1, Ordering::Relaxed));
    let mut full = json!({});
    if let (Some(full), Value::Object(fields)) = (full.as_object_mut(), spec) {
        full.extend(fields);
    }
    serde_json::from_value(json!({
        "apiVersion": format!("{GROUP}/{version}"),
        "kind": KIND,
        "metadata": { "name": name },
        "spec": full,
    }))
    .expect("a valid object")
}

#[tokio::test]
async fn the_api_server_applies_the_defaulting_webhook() {
    let Some(env) = support::env() else { return };
    let scope = scope(env).await;
    let api = api(env, scope.as_deref(), VERSION);
    let make = || object(VERSION, "defaulted", json!({}));
    let defaulted =
        support::create_until(&api, make, |obj| obj.data["spec"]["foo"].is_string()).await;
    assert_eq!(defaulted.data["spec"]["foo"], "default");
    let mine = object(VERSION, "kept", json!({ "foo": "mine" }));
    let kept = api.create(&PostParams::default(), &mine).await;
    let kept = kept.expect("the API server admits the object");
    assert_eq!(kept.data["spec"]["foo"], "mine", "a value set is kept");
}
#[tokio::test]
async fn the_api_server_refuses_what_the_validating_webhook_denies() {
    let Some(env) = support::env() else { return };
    let scope = scope(env).await;
    let api = api(env, scope.as_deref(), VERSION);
    let too_long = "x".repeat(64);
    let invalid = || object(VERSION, "invalid", json!({ "foo": too_long }));
    let message = support::refusal(&api, invalid).await;
    assert!(
        message.contains("must be no more than 63 characters"),
        "refused with the webhook's message: {message}"
    );
    let valid = object(VERSION, "valid", json!({ "foo": "short" }));
    let admitted = api.create(&PostParams::default(), &valid).await;
    admitted.expect("a valid object is admitted");
}
#[tokio::test]
async fn the_api_server_converts_v1beta1_through_the_webhook() {
    const SPOKE: &str = "v1beta1";
    use kube::ResourceExt;
    let Some(env) = support::env() else { return };
    let strategy = env.conversion_strategy(&format!("{PLURAL}.{GROUP}")).await;
    assert_eq!(strategy, "Webhook", "the CRD converts through the webhook");
    let scope = scope(env).await;
    let hub = api(env, scope.as_deref(), VERSION);
    let spoke = api(env, scope.as_deref(), SPOKE);

    // Written as the spoke: the API server converts it to the storage version through the webhook, and back.
    let object = object(SPOKE, "converted", json!({ "foo": "kept" }));
    let created = spoke.create(&PostParams::default(), &object).await;
    let name = created
        .expect("the webhook converts to the storage version")
        .name_any();
    let stored = hub.get(&name).await.expect("read as the hub");
    assert_eq!(stored.data["spec"]["foo"], "kept");
    let read = spoke.get(&name).await.expect("read as the spoke");
    let api_version = read.types.as_ref().map(|t| t.api_version.clone());
    assert_eq!(api_version, Some(format!("{GROUP}/{SPOKE}")));
    assert_eq!(read.data["spec"]["foo"], "kept");
}
// +kubesmith:scaffold:webhook-tests
