//! The webhook server over real HTTPS (rustls) on 127.0.0.1 with a throw-away CA: malformed reviews, only the
//! registered paths served, certificate reload and graceful shutdown, and the manager's flags. Run with
//! `cargo test -p kubesmith-runtime --test webhook_server -- --nocapture` to see every request and response.

use clap::Parser as _;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::ResourceExt as _;
use kubesmith_runtime::manager::{self, Options, ServerContext, Shutdown};
use kubesmith_runtime::testing::webhook::{TestServer, conversion_review, describe, print_pair, write_cert};
use kubesmith_runtime::webhook::{self, CONVERT_PATH, Conversion, Webhook, WebhookRegistration};
use serde_json::{Value, json};
use std::time::Duration;

/// The webhooks under test: a defaulting webhook of ConfigMaps (it labels them) and their conversion.
fn registrations() -> Vec<WebhookRegistration> {
    let label = |cm: &mut ConfigMap| {
        cm.labels_mut().entry("team".into()).or_insert_with(|| "platform".into());
    };
    vec![WebhookRegistration::new(
        "configmap",
        vec![
            Webhook::defaulting::<ConfigMap>("/mutate--v1-configmap", label),
            Webhook::conversion(Conversion::<ConfigMap>::hub()),
        ],
    )]
}

/// The admission paths of all registrations, and whether any registers a conversion (served on `/convert`).
fn registered() -> (Vec<&'static str>, bool) {
    let registrations = registrations();
    let paths =
        registrations.iter().flat_map(|registration| registration.admission_paths()).map(|(path, _)| path).collect();
    let conversion = registrations.iter().any(|registration| registration.has_conversion());
    (paths, conversion)
}

/// A path every test can POST to: the first admission path, or `/convert`.
fn served_path() -> &'static str {
    let (paths, conversion) = registered();
    assert!(!paths.is_empty() || conversion, "registrations() registers at least one webhook");
    paths.first().copied().unwrap_or(CONVERT_PATH)
}

/// Checks a failed `Status` of a malformed review.
fn assert_bad_request(status: &Value) {
    assert_eq!(status["status"], "Failure");
    assert_eq!(status["code"], 400);
    assert_eq!(status["reason"], "BadRequest");
    assert!(
        status["message"].as_str().is_some_and(|m| m.starts_with("malformed") || m.ends_with("has no request")),
        "{status}"
    );
}

#[tokio::test]
async fn malformed_reviews_are_answered_with_errors_not_crashes() {
    let (paths, conversion) = registered();
    assert!(!paths.is_empty() || conversion, "registrations() registers at least one webhook");
    let server = TestServer::start("malformed", Some(1), registrations()).await;
    for path in &paths {
        let bodies = [
            "{not json".to_string(),
            json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}).to_string(),
            json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                   "request": {"uid": "bad-1", "operation": "CREATE"}})
            .to_string(),
        ];
        for body in bodies {
            let (reply, _) = server.post(path, body.clone().into_bytes()).await;
            print_pair(path, &body, &reply);
            assert_eq!(reply["apiVersion"], "admission.k8s.io/v1");
            assert_eq!(reply["kind"], "AdmissionReview");
            let response = &reply["response"];
            assert_eq!(response["allowed"], false);
            assert_bad_request(&response["status"]);
            if body.contains("bad-1") {
                assert_eq!(response["uid"], "bad-1", "an undecodable request keeps its uid");
            }
        }
    }
    if conversion {
        let bodies = [
            "[1, 2, 3]".to_string(),
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview"}).to_string(),
        ];
        for body in bodies {
            let (reply, _) = server.post(CONVERT_PATH, body.clone().into_bytes()).await;
            print_pair(CONVERT_PATH, &body, &reply);
            assert_eq!(reply["apiVersion"], "apiextensions.k8s.io/v1");
            assert_eq!(reply["kind"], "ConversionReview");
            assert_bad_request(&reply["response"]["result"]);
        }
        // A well-formed review of a kind without conversion fails that review, not the server.
        let unknown = json!({"apiVersion": "unknown.example.com/v1", "kind": "Unknown", "metadata": {"name": "u"}});
        let review = conversion_review("c-unknown", "unknown.example.com/v2", vec![unknown]);
        let reply = server.review(CONVERT_PATH, &review).await;
        let response = &reply["response"];
        assert_eq!(response["uid"], "c-unknown");
        assert_eq!(response["result"]["status"], "Failure");
        assert!(
            response["result"]["message"]
                .as_str()
                .is_some_and(|m| m.ends_with("no conversion registered for this kind")),
            "{response}"
        );
        assert_eq!(response["convertedObjects"], json!([]));
    }
    // Only registered paths are served: `/convert` only with a conversion, never an unknown path.
    let mut unserved = vec!["/validate-unregistered"];
    if !conversion {
        unserved.push(CONVERT_PATH);
    }
    for path in unserved {
        let (status, _, _) = server.post_raw(path, b"{}".to_vec()).await;
        eprintln!("==> POST {path}\n<== {status}\n");
        assert_eq!(status, 404, "{path} is not served");
    }
    // Still serving after all that.
    let path = served_path();
    let (reply, _) = server.post(path, b"{}".to_vec()).await;
    print_pair(path, "{}", &reply);
    assert!(reply.get("response").is_some(), "{reply}");
    server.stop().await;
}

#[tokio::test]
async fn certificate_is_awaited_then_reloaded_when_its_files_change() {
    let path = served_path();
    let server = TestServer::start("reload", None, registrations()).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!server.ready.is_ready(), "not ready before the certificate exists");

    write_cert(&server.cert_dir, &server.ca.serving(1));
    server.wait_ready().await;
    let body = b"{}".to_vec();
    let (_, served) = server.post(path, body.clone()).await;
    let (serial, subject) = describe(&served);
    eprintln!("served certificate before rotation: serial {serial}, subject {subject}");
    assert_eq!(serial, "01");
    assert!(subject.contains("#1"));

    write_cert(&server.cert_dir, &server.ca.serving(2));
    let rotated = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let (_, served) = server.post(path, body.clone()).await;
            let described = describe(&served);
            if described.0 == "02" {
                return described;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("new certificate served within 10s");
    eprintln!("served certificate after rotation:  serial {}, subject {}", rotated.0, rotated.1);
    assert!(rotated.1.contains("#2"));

    // A broken rotation (garbage certificate) keeps the current certificate.
    std::fs::write(server.cert_dir.join("tls.crt"), "garbage").expect("written");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (_, served) = server.post(path, body).await;
    assert_eq!(describe(&served).0, "02");
    assert!(server.ready.is_ready());
    server.stop().await;
}

#[tokio::test]
async fn shutdown_while_waiting_for_the_certificate_is_clean() {
    let server = TestServer::start("no-cert", None, registrations()).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!server.ready.is_ready());
    server.stop().await;
}

#[tokio::test]
async fn the_manager_serves_the_webhooks_on_its_flags_port_and_certificate() {
    // A free port for `--webhook-port`, and a certificate folder with nothing in it yet.
    let port = std::net::TcpListener::bind("0.0.0.0:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let cert_dir =
        std::env::temp_dir().join(format!("{}-webhook-manager-{}", env!("CARGO_PKG_NAME"), std::process::id()));
    let _ = std::fs::remove_dir_all(&cert_dir);
    std::fs::create_dir_all(&cert_dir).expect("cert dir");
    let opts = Options::try_parse_from([
        "manager".to_string(),
        format!("--webhook-port={port}"),
        format!("--webhook-cert-path={}", cert_dir.display()),
    ])
    .expect("the webhook flags parse");
    let readiness = manager::health::Readiness::default();
    readiness.set(true);
    let (trigger, shutdown) = Shutdown::new();
    let context = ServerContext { opts: &opts, readiness: &readiness, shutdown };
    let serving = webhook::server(registrations)(context)
        .expect("the webhook server binds")
        .expect("a project with webhooks runs the webhook server");
    let task = tokio::spawn(serving);
    assert!(std::net::TcpListener::bind(("0.0.0.0", port)).is_err(), "the webhook server holds --webhook-port");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        readiness.pending(),
        vec!["webhook-certificate"],
        "/readyz waits for the certificate of --webhook-cert-path"
    );
    trigger.trigger();
    tokio::time::timeout(Duration::from_secs(5), task)
        .await
        .expect("the server stops on shutdown")
        .expect("the server task")
        .expect("a clean stop");
    let _ = std::fs::remove_dir_all(&cert_dir);
}
