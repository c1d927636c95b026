//! Does kube-lease-manager 0.13 give the leader election the scaffold's tests demand (controller-runtime's
//! timings: lease 15 s, renew deadline 10 s, retry period 2 s; release on shutdown; takeover of an expired lease;
//! no split brain on conflict)? Each test drives the crate against a mocked API server that keeps one Lease and
//! applies writes the way the API server does (a strategic-merge or apply patch has no precondition).

use http::{Request, Response};
use k8s_openapi::jiff::Timestamp;
use kube::client::Body;
use kube_lease_manager::LeaseManagerBuilder;
use serde_json::{Value, json};
use std::{
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};
use tower_test::mock;

const PATH: &str = "/apis/coordination.k8s.io/v1/namespaces/system/leases/lease";

#[derive(Clone, Debug)]
struct Seen {
    at: Instant,
    method: String,
    content_type: String,
    body: Value,
    /// The Lease as the API server held it when the request came.
    lease_before: Option<Value>,
}

/// The API server's side: the Lease, what it answers, and every request seen.
#[derive(Default)]
struct Server {
    lease: Option<Value>,
    version: u64,
    failing: bool,
    /// Applied once, right after the next GET is answered: another replica renews the lease.
    renew_after_get: Option<String>,
    seen: Vec<Seen>,
}

impl Server {
    fn store(&mut self, mut lease: Value) -> Value {
        self.version += 1;
        lease["metadata"]["resourceVersion"] = json!(self.version.to_string());
        self.lease = Some(lease.clone());
        lease
    }

    fn answer(&mut self, method: &str, path: &str, content_type: &str, body: Value) -> (u16, Value) {
        let lease_before = self.lease.clone();
        self.seen.push(Seen {
            at: Instant::now(),
            method: method.into(),
            content_type: content_type.into(),
            body: body.clone(),
            lease_before,
        });
        if self.failing {
            return (500, status(500, "InternalError"));
        }
        match (method, path.trim_end_matches('/')) {
            ("GET", PATH) => match self.lease.clone() {
                Some(lease) => {
                    if let Some(holder) = self.renew_after_get.take() {
                        let mut renewed = lease.clone();
                        renewed["spec"]["holderIdentity"] = json!(holder);
                        renewed["spec"]["renewTime"] = json!(now());
                        self.store(renewed);
                    }
                    (200, lease)
                }
                None => (404, status(404, "NotFound")),
            },
            ("POST", "/apis/coordination.k8s.io/v1/namespaces/system/leases") => {
                if self.lease.is_some() {
                    return (409, status(409, "AlreadyExists"));
                }
                let mut lease = body;
                lease["metadata"]["namespace"] = json!("system");
                (201, self.store(lease))
            }
            ("PATCH", PATH) => {
                let Some(mut lease) = self.lease.clone() else { return (404, status(404, "NotFound")) };
                // Neither patch type carries a precondition here: the API server merges what it is sent.
                for (key, value) in body["spec"].as_object().cloned().unwrap_or_default() {
                    if value.is_null() {
                        lease["spec"].as_object_mut().map(|s| s.remove(&key));
                    } else {
                        if !lease["spec"].is_object() {
                            lease["spec"] = json!({});
                        }
                        lease["spec"][key] = value;
                    }
                }
                (200, self.store(lease))
            }
            _ => (404, status(404, "NotFound")),
        }
    }
}

fn status(code: u16, reason: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Status", "status": "Failure", "message": reason, "reason": reason, "code": code})
}

fn now() -> String {
    Timestamp::now().strftime("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}

fn lease(spec: Value) -> Value {
    json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "lease", "namespace": "system"}, "spec": spec})
}

/// A client whose requests `server` answers.
fn client(server: Arc<Mutex<Server>>) -> kube::Client {
    let (service, mut handle) = mock::pair::<Request<Body>, Response<Body>>();
    tokio::spawn(async move {
        while let Some((request, send)) = handle.next_request().await {
            let (parts, body) = request.into_parts();
            let bytes = body.collect_bytes().await.unwrap_or_default();
            let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
            let content_type =
                parts.headers.get(http::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default();
            let (code, reply) =
                server.lock().unwrap().answer(parts.method.as_str(), parts.uri.path(), content_type, body);
            let response =
                Response::builder().status(code).body(Body::from(serde_json::to_vec(&reply).unwrap())).unwrap();
            send.send_response(response);
        }
    });
    kube::Client::new(service, "default")
}

async fn wait_for(rx: &mut tokio::sync::watch::Receiver<bool>, value: bool, within: Duration) -> Duration {
    let started = Instant::now();
    tokio::time::timeout(within, rx.wait_for(|v| *v == value)).await.expect("in time").expect("watch open");
    started.elapsed()
}

/// controller-runtime's renew deadline: a leader that cannot renew within 10 s (of a 15 s lease) stops leading,
/// before any other replica may take the lease over. kube-lease-manager's watch loop only logs a failed renewal
/// and backs off (`LeaseManager::watch`, the `Err(e)` arm): the channel keeps saying `true`.
#[tokio::test(flavor = "multi_thread")]
async fn a_leader_that_cannot_renew_keeps_reporting_leadership() {
    let server = Arc::new(Mutex::new(Server::default()));
    let manager = LeaseManagerBuilder::new(client(server.clone()), "lease")
        .with_namespace("system")
        .with_identity("me")
        .with_duration(3)
        .with_grace(1)
        .build()
        .await
        .expect("manager");
    let (mut rx, _task) = manager.watch().await;
    wait_for(&mut rx, true, Duration::from_secs(10)).await;
    server.lock().unwrap().failing = true;
    let lost_at = Instant::now();
    // Three lease durations without a single successful request.
    tokio::time::sleep(Duration::from_secs(9)).await;
    let failed: Vec<_> =
        server.lock().unwrap().seen.iter().filter(|s| s.at > lost_at).map(|s| s.method.clone()).collect();
    assert!(!failed.is_empty(), "it tried to renew");
    assert!(*rx.borrow(), "still reports leadership after {:?} of failed renewals: {failed:?}", lost_at.elapsed());
}

/// controller-runtime's retry period: a candidate tries every 2 s, so a lease its holder released on shutdown is
/// taken over within ~2 s. kube-lease-manager's candidate sleeps until the expiry it last read
/// (`watcher_step`, the last branch: `grace_sleep_duration(self.expiry().await, 0)`).
#[tokio::test(flavor = "multi_thread")]
async fn a_released_lease_is_taken_over_only_when_it_would_have_expired() {
    let server = Arc::new(Mutex::new(Server::default()));
    {
        let mut s = server.lock().unwrap();
        let held = lease(
            json!({"holderIdentity": "other", "leaseDurationSeconds": 15, "renewTime": now(), "acquireTime": now()}),
        );
        s.store(held);
    }
    let manager = LeaseManagerBuilder::new(client(server.clone()), "lease")
        .with_namespace("system")
        .with_identity("me")
        .with_duration(15)
        .with_grace(5)
        .build()
        .await
        .expect("manager");
    let (mut rx, _task) = manager.watch().await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    // The holder shuts down and releases the lease, as the scaffold's `release` does.
    let released_at = Instant::now();
    {
        let mut s = server.lock().unwrap();
        let released = lease(json!({"leaseDurationSeconds": 1, "renewTime": now(), "acquireTime": now()}));
        s.store(released);
    }
    let took = wait_for(&mut rx, true, Duration::from_secs(30)).await;
    let seen = server.lock().unwrap().seen.clone();
    let first_after = seen.iter().find(|s| s.at > released_at).map(|s| s.at - released_at);
    eprintln!("first request after the release: {first_after:?}; leader after {took:?}");
    assert!(took > Duration::from_secs(10), "took over after {took:?}");
}

/// No split brain on conflict: the scaffold's takeover is a PUT carrying the resourceVersion it read, so a renewal
/// in between makes it fail with 409. kube-lease-manager erases the holder of a lease it saw expired with a
/// strategic-merge patch without precondition (`LeaseState::release` with `LeaseLockOpts::Force`), so a renewal
/// in between is overwritten and the renewing holder keeps leading until its next renewal.
#[tokio::test(flavor = "multi_thread")]
async fn an_expired_lease_is_taken_over_without_a_precondition() {
    let server = Arc::new(Mutex::new(Server::default()));
    {
        let mut s = server.lock().unwrap();
        let stale = lease(
            json!({"holderIdentity": "other", "leaseDurationSeconds": 15, "renewTime": "2020-01-01T00:00:00.000000Z", "acquireTime": "2020-01-01T00:00:00.000000Z"}),
        );
        s.store(stale);
    }
    let manager = LeaseManagerBuilder::new(client(server.clone()), "lease")
        .with_namespace("system")
        .with_identity("me")
        .with_duration(15)
        .with_grace(5)
        .build()
        .await
        .expect("manager");
    // `other` renews right after the candidate has read the expired lease.
    server.lock().unwrap().renew_after_get = Some("other".into());
    let (mut rx, _task) = manager.watch().await;
    wait_for(&mut rx, true, Duration::from_secs(10)).await;
    let seen = server.lock().unwrap().seen.clone();
    let erase = seen
        .iter()
        .find(|s| s.method == "PATCH" && s.body["spec"]["holderIdentity"].is_null())
        .expect("the holder was erased");
    assert_eq!(erase.content_type, "application/strategic-merge-patch+json");
    assert!(erase.body["metadata"]["resourceVersion"].is_null(), "{}", erase.body);
    // What it erased: `other`'s lease, renewed after the candidate's first read, valid for 15 more seconds; the
    // candidate had read that renewal too (its second GET) and erased it anyway.
    let before = erase.lease_before.clone().expect("a lease");
    assert_eq!(before["spec"]["holderIdentity"], "other");
    assert_ne!(before["spec"]["renewTime"], "2020-01-01T00:00:00.000000Z", "renewed: {before}");
    let gets_before_erase = seen.iter().take_while(|s| s.at < erase.at).filter(|s| s.method == "GET").count();
    eprintln!("GETs before the erase: {gets_before_erase}; erased lease: {}", before["spec"]);
    let writes: Vec<_> = seen
        .iter()
        .filter(|s| s.method != "GET")
        .map(|s| (s.method.clone(), s.content_type.clone(), s.body["spec"].clone()))
        .collect();
    eprintln!("writes: {writes:#?}");
    // `other` renewed (resourceVersion 2) before the erase; `me` leads now, `other` still believes it does.
}
