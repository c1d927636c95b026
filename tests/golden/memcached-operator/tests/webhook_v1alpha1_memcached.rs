//! End-to-end tests of the webhooks of `Memcached` (cache.example.com/v1alpha1) over real HTTPS, one test per
//! webhook part, with the AdmissionReview / ConversionReview JSON the API server sends.
//!
//! Run with `cargo test --test webhook_v1alpha1_memcached -- --nocapture` to see every request and response.
use kubesmith_runtime::testing::webhook::{self, TestServer};
use serde_json::{Value, json};

use memcached_operator::webhook::v1alpha1::memcached::registration;

/// Memcached as reviews name it: API group, version, kind and plural.
const GROUP: &str = "cache.example.com";
const VERSION: &str = "v1alpha1";
const KIND: &str = "Memcached";
const PLURAL: &str = "memcacheds";

/// Starts the webhook server with Memcached's webhooks and a certificate.
async fn start(test: &str) -> TestServer {
    let name = format!("memcached-v1alpha1-{test}");
    TestServer::start(&name, Some(1), vec![registration()]).await
}

/// A v1alpha1 Memcached as the API server sends it: the least spec its schema accepts, with `spec`'s fields over it.
fn object(spec: Value) -> Value {
    let mut full = json!({});
    if let (Some(full), Value::Object(fields)) = (full.as_object_mut(), spec) {
        full.extend(fields);
    }
    json!({
        "apiVersion": "cache.example.com/v1alpha1",
        "kind": "Memcached",
        "metadata": {"name": "sample", "namespace": "default", "uid": "7d9f6c1e-2b1a-4c3d-9e8f-0a1b2c3d4e5f",
                     "labels": {"app.kubernetes.io/name": "memcached"}},
        "spec": full,
    })
}

#[tokio::test]
async fn defaulting_returns_a_json_patch_that_applies_and_defaults() {
    const PATH: &str = "/mutate-cache-example-com-v1alpha1-memcached";
    let hook = webhook::Admission::new(GROUP, VERSION, KIND, PLURAL);
    let server = start("defaulting").await;
    let object = object(json!({}));
    let reply = server
        .review(
            PATH,
            &hook.review("m-1", "CREATE", object.clone(), Value::Null),
        )
        .await;
    assert_eq!(reply["apiVersion"], "admission.k8s.io/v1");
    assert_eq!(reply["kind"], "AdmissionReview");
    let response = &reply["response"];
    assert_eq!(response["uid"], "m-1");
    assert_eq!(response["allowed"], true);
    assert_eq!(response["patchType"], "JSONPatch");
    let patch = webhook::patch_of(response);
    let mut patched = object.clone();
    json_patch::patch(&mut patched, &patch).expect("patch applies to the original object");
    let mut defaulted = object;
    defaulted["spec"]["foo"] = json!("default");
    assert_eq!(
        patched, defaulted,
        "the patch sets the default and nothing else"
    );

    // An object that is already defaulted gets no patch; DELETE is not mutated.
    let reply = server
        .review(
            PATH,
            &hook.review("m-2", "UPDATE", defaulted.clone(), defaulted.clone()),
        )
        .await;
    assert_eq!(reply["response"]["allowed"], true);
    assert!(reply["response"].get("patch").is_none());
    let reply = server
        .review(PATH, &hook.review("m-3", "DELETE", Value::Null, defaulted))
        .await;
    assert_eq!(reply["response"]["allowed"], true);
    assert!(reply["response"].get("patch").is_none());
    server.stop().await;
}

#[tokio::test]
async fn validation_denies_with_its_message_and_warns_on_update() {
    const PATH: &str = "/validate-cache-example-com-v1alpha1-memcached";
    let hook = webhook::Admission::new(GROUP, VERSION, KIND, PLURAL);
    let server = start("validation").await;
    let long = object(json!({"foo": "x".repeat(64)}));
    let reply = server
        .review(PATH, &hook.review("v-1", "CREATE", long, Value::Null))
        .await;
    let response = &reply["response"];
    assert_eq!(response["uid"], "v-1");
    assert_eq!(response["allowed"], false);
    assert_eq!(
        response["status"]["message"],
        "spec.foo: Invalid value: must be no more than 63 characters, got 64"
    );
    assert_eq!(response["status"]["code"], 422);
    assert_eq!(response["status"]["reason"], "Invalid");

    let (old, new) = (object(json!({"foo": "a"})), object(json!({"foo": "b"})));
    let reply = server
        .review(PATH, &hook.review("v-2", "UPDATE", new, old))
        .await;
    assert_eq!(reply["response"]["allowed"], true);
    assert_eq!(
        reply["response"]["warnings"],
        json!(["spec.foo changed from \"a\" to \"b\""])
    );

    let ok = object(json!({"foo": "ok"}));
    let reply = server
        .review(PATH, &hook.review("v-3", "CREATE", ok, Value::Null))
        .await;
    assert_eq!(reply["response"]["allowed"], true);
    assert!(reply["response"].get("warnings").is_none());
    server.stop().await;
}

#[tokio::test]
async fn conversion_round_trips_hub_to_v1beta1_to_hub_without_loss() {
    const PATH: &str = "/convert";
    let server = start("conversion-v1beta1").await;
    let mut hub = object(json!({"foo": "bar"}));
    let metadata = hub["metadata"].as_object_mut().expect("metadata");
    metadata.insert("resourceVersion".into(), json!("1234"));
    metadata.insert("generation".into(), json!(2));
    metadata.insert("creationTimestamp".into(), json!("2026-01-02T03:04:05Z"));
    metadata.insert("annotations".into(), json!({"note": "kept"}));
    let finalizer = format!("{PLURAL}.{GROUP}/finalizer");
    metadata.insert("finalizers".into(), json!([finalizer]));
    hub["status"] = json!({
        "conditions": [{"type": "Available", "status": "True", "reason": "Reconciled", "message": "ok",
                        "lastTransitionTime": "2026-01-02T03:04:06Z", "observedGeneration": 2}],
        "observedGeneration": 2,
    });
    let spoke_api_version = format!("{GROUP}/v1beta1");
    let to_spoke = webhook::conversion_review("c-1", &spoke_api_version, vec![hub.clone()]);
    let reply = server.review(PATH, &to_spoke).await;
    assert_eq!(reply["apiVersion"], "apiextensions.k8s.io/v1");
    assert_eq!(reply["kind"], "ConversionReview");
    let response = &reply["response"];
    assert_eq!(response["uid"], "c-1");
    assert_eq!(response["result"]["status"], "Success", "{response}");
    let spoke = response["convertedObjects"][0].clone();
    assert_eq!(spoke["apiVersion"], spoke_api_version);
    assert_eq!(spoke["kind"], KIND);
    assert_eq!(spoke["metadata"], hub["metadata"]);

    let hub_api_version = format!("{GROUP}/{VERSION}");
    let to_hub = webhook::conversion_review("c-2", &hub_api_version, vec![spoke]);
    let reply = server.review(PATH, &to_hub).await;
    assert_eq!(reply["response"]["result"]["status"], "Success");
    assert_eq!(
        reply["response"]["convertedObjects"],
        json!([hub]),
        "hub -> v1beta1 -> hub loses nothing"
    );
    server.stop().await;
}

// +kubesmith:scaffold:webhook-tests
