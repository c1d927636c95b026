//! Leader election on a `coordination.k8s.io/v1` Lease: acquire, renew, take over expired leases, release.
//!
//! Timing follows controller-runtime: lease duration 15s, renew deadline 10s, retry period 2s. Writes use
//! optimistic concurrency (the `resourceVersion` read is sent back with the update, so a concurrent writer
//! makes the update fail with 409 Conflict instead of overwriting). Expiry is judged from the lease's
//! `renewTime`, so the replicas' clocks must be roughly in sync.

// The Lease lives in the manager's own namespace: `config/rbac/leader_election_role.yaml` grants it there (a Role,
// not the cluster-wide manager role, so the operator can never touch another component's Lease).

use super::Shutdown;
use k8s_openapi::{
    api::coordination::v1::{Lease, LeaseSpec},
    apimachinery::pkg::apis::meta::v1::MicroTime,
    jiff::{SignedDuration, Timestamp},
};
use kube::{
    Api, Client,
    api::{ObjectMeta, PostParams},
};
use std::{
    hash::{BuildHasher, RandomState},
    time::{Duration, SystemTime},
};
use tokio::time::Instant;
use tracing::{debug, info, warn};

/// How long a lease is valid after its last renewal.
pub const LEASE_DURATION: Duration = Duration::from_secs(15);
/// How long the leader keeps trying to renew before it gives up leadership.
pub const RENEW_DEADLINE: Duration = Duration::from_secs(10);
/// Interval between acquire attempts and between renewals.
pub const RETRY_PERIOD: Duration = Duration::from_secs(2);

/// What to do with the lease, given its current state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Nobody holds the lease: take it.
    Acquire,
    /// We hold the lease: renew it.
    Renew,
    /// Another holder let the lease expire: take it over.
    Takeover,
    /// Another holder's lease is still valid: wait.
    Wait {
        /// The current holder.
        holder: String,
    },
}

/// Decides what `identity` should do with a lease whose spec is `spec`, at time `now`.
pub fn decide(spec: Option<&LeaseSpec>, identity: &str, now: Timestamp) -> Decision {
    let Some(spec) = spec else {
        return Decision::Acquire;
    };
    match spec.holder_identity.as_deref() {
        None | Some("") => Decision::Acquire,
        Some(holder) if holder == identity => Decision::Renew,
        Some(holder) => {
            let valid_for = SignedDuration::from_secs(i64::from(spec.lease_duration_seconds.unwrap_or(0)));
            let expired = match &spec.renew_time {
                Some(MicroTime(renewed)) => renewed.checked_add(valid_for).is_ok_and(|expiry| expiry <= now),
                None => true,
            };
            if expired { Decision::Takeover } else { Decision::Wait { holder: holder.to_string() } }
        }
    }
}

/// The lease spec to write after `decision`, or `None` when the lease must be left alone.
pub fn next_spec(
    current: Option<&LeaseSpec>,
    decision: &Decision,
    identity: &str,
    now: Timestamp,
) -> Option<LeaseSpec> {
    let previous = current.cloned().unwrap_or_default();
    let duration = i32::try_from(LEASE_DURATION.as_secs()).unwrap_or(i32::MAX);
    match decision {
        Decision::Wait { .. } => None,
        Decision::Renew => Some(LeaseSpec {
            holder_identity: Some(identity.to_string()),
            lease_duration_seconds: Some(duration),
            renew_time: Some(MicroTime(now)),
            ..previous
        }),
        Decision::Acquire | Decision::Takeover => Some(LeaseSpec {
            holder_identity: Some(identity.to_string()),
            lease_duration_seconds: Some(duration),
            acquire_time: Some(MicroTime(now)),
            renew_time: Some(MicroTime(now)),
            lease_transitions: Some(current.map_or(0, |c| c.lease_transitions.unwrap_or(0).saturating_add(1))),
            ..previous
        }),
    }
}

/// The lease spec that hands the lease back (no holder, expires after one second).
pub fn released_spec(current: Option<&LeaseSpec>, now: Timestamp) -> LeaseSpec {
    LeaseSpec {
        holder_identity: None,
        lease_duration_seconds: Some(1),
        acquire_time: Some(MicroTime(now)),
        renew_time: Some(MicroTime(now)),
        ..current.cloned().unwrap_or_default()
    }
}

/// This replica's identity: `POD_NAME` (or the hostname) plus a random suffix, like client-go.
pub fn default_identity() -> String {
    let host = std::env::var("POD_NAME")
        .or_else(|_| std::env::var("HOSTNAME"))
        .ok()
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "unknown".into());
    let suffix = RandomState::new().hash_one((std::process::id(), SystemTime::now()));
    format!("{host}_{suffix:016x}")
}

fn is_conflict(err: &kube::Error) -> bool {
    matches!(err, kube::Error::Api(status) if status.code == 409)
}

/// Competes for one Lease on behalf of this replica.
pub struct LeaderElector {
    api: Api<Lease>,
    name: String,
    identity: String,
}

impl LeaderElector {
    /// An elector for the Lease `namespace/name`, holding it as `identity`.
    pub fn new(client: Client, namespace: &str, name: &str, identity: String) -> Self {
        Self { api: Api::namespaced(client, namespace), name: name.to_string(), identity }
    }

    /// This replica's holder identity.
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// One acquire-or-renew round; `Ok(true)` when this replica holds the lease afterwards.
    pub async fn try_acquire_or_renew(&self) -> Result<bool, kube::Error> {
        let now = Timestamp::now();
        let Some(mut lease) = self.api.get_opt(&self.name).await? else {
            let lease = Lease {
                metadata: ObjectMeta { name: Some(self.name.clone()), ..ObjectMeta::default() },
                spec: next_spec(None, &Decision::Acquire, &self.identity, now),
            };
            return match self.api.create(&PostParams::default(), &lease).await {
                Ok(_) => {
                    info!(lease = %self.name, identity = %self.identity, "created lease, leadership acquired");
                    Ok(true)
                }
                Err(err) if is_conflict(&err) => Ok(false),
                Err(err) => Err(err),
            };
        };
        let decision = decide(lease.spec.as_ref(), &self.identity, now);
        let Some(spec) = next_spec(lease.spec.as_ref(), &decision, &self.identity, now) else {
            debug!(lease = %self.name, ?decision, "lease held by another replica");
            return Ok(false);
        };
        lease.spec = Some(spec);
        // `lease.metadata.resource_version` is kept: the update fails with 409 if someone wrote in between.
        match self.api.replace(&self.name, &PostParams::default(), &lease).await {
            Ok(_) => {
                if decision != Decision::Renew {
                    info!(lease = %self.name, identity = %self.identity, ?decision, "leadership acquired");
                }
                Ok(true)
            }
            Err(err) if is_conflict(&err) => Ok(false),
            Err(err) => Err(err),
        }
    }

    /// Retries every [`RETRY_PERIOD`] until the lease is held (`true`) or shutdown is requested (`false`).
    pub async fn acquire(&self, shutdown: &Shutdown) -> bool {
        info!(lease = %self.name, identity = %self.identity, "waiting for leadership");
        loop {
            match self.try_acquire_or_renew().await {
                Ok(true) => return true,
                Ok(false) => {}
                Err(err) => warn!(lease = %self.name, error = %err, "acquiring lease failed"),
            }
            tokio::select! {
                () = shutdown.clone().wait() => return false,
                () = tokio::time::sleep(RETRY_PERIOD) => {}
            }
        }
    }

    /// Renews the lease every [`RETRY_PERIOD`]; returns only once leadership is lost, i.e. when no
    /// renewal succeeded within [`RENEW_DEADLINE`].
    pub async fn hold(&self) -> anyhow::Error {
        let mut renewed = Instant::now();
        loop {
            tokio::time::sleep(RETRY_PERIOD).await;
            // A hanging request must not keep us leading past the deadline.
            let remaining = RENEW_DEADLINE.saturating_sub(renewed.elapsed());
            if remaining.is_zero() {
                break;
            }
            match tokio::time::timeout(remaining, self.try_acquire_or_renew()).await {
                Ok(Ok(true)) => renewed = Instant::now(),
                Ok(Ok(false)) => warn!(lease = %self.name, "lease renewal rejected"),
                Ok(Err(err)) => warn!(lease = %self.name, error = %err, "renewing lease failed"),
                Err(_) => warn!(lease = %self.name, "renewing lease timed out"),
            }
            if renewed.elapsed() >= RENEW_DEADLINE {
                break;
            }
        }
        anyhow::anyhow!("leader election lost: lease {} not renewed within {}s", self.name, RENEW_DEADLINE.as_secs())
    }

    /// Hands the lease back if this replica still holds it, so a successor need not wait for expiry.
    pub async fn release(&self) -> Result<(), kube::Error> {
        let Some(mut lease) = self.api.get_opt(&self.name).await? else {
            return Ok(());
        };
        let spec = lease.spec.as_ref();
        if spec.and_then(|s| s.holder_identity.as_deref()) != Some(self.identity.as_str()) {
            return Ok(());
        }
        lease.spec = Some(released_spec(spec, Timestamp::now()));
        self.api.replace(&self.name, &PostParams::default(), &lease).await?;
        info!(lease = %self.name, identity = %self.identity, "lease released");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{self, within};
    use http::Method;
    use serde_json::{Value, json};

    const LEASES: &str = "/apis/coordination.k8s.io/v1/namespaces/system/leases";
    const NAME: &str = "87a7d51f.example.com";

    /// Where the Lease `NAME` of the namespace `system` is.
    fn path() -> String {
        format!("{LEASES}/{NAME}")
    }

    fn at(secs: i64) -> Timestamp {
        Timestamp::from_second(secs).expect("valid test timestamp")
    }

    fn held_by(holder: &str, renewed: i64) -> LeaseSpec {
        LeaseSpec {
            holder_identity: Some(holder.into()),
            lease_duration_seconds: Some(15),
            acquire_time: Some(MicroTime(at(renewed - 100))),
            renew_time: Some(MicroTime(at(renewed))),
            lease_transitions: Some(2),
            ..LeaseSpec::default()
        }
    }

    #[test]
    fn decides_acquire_renew_takeover_or_wait() {
        assert_eq!(decide(None, "me", at(1000)), Decision::Acquire);
        assert_eq!(decide(Some(&LeaseSpec::default()), "me", at(1000)), Decision::Acquire);
        assert_eq!(decide(Some(&held_by("", 990)), "me", at(1000)), Decision::Acquire);
        assert_eq!(decide(Some(&held_by("me", 990)), "me", at(1000)), Decision::Renew);
        assert_eq!(decide(Some(&held_by("other", 990)), "me", at(1000)), Decision::Wait { holder: "other".into() });
        assert_eq!(decide(Some(&held_by("other", 985)), "me", at(1000)), Decision::Takeover);
        let never_renewed = LeaseSpec { renew_time: None, ..held_by("other", 990) };
        assert_eq!(decide(Some(&never_renewed), "me", at(1000)), Decision::Takeover);
    }

    #[test]
    fn renew_keeps_acquire_time_and_transitions() {
        let current = held_by("me", 990);
        let spec = next_spec(Some(&current), &Decision::Renew, "me", at(1000)).expect("renewal");
        assert_eq!(spec.renew_time, Some(MicroTime(at(1000))));
        assert_eq!(spec.acquire_time, current.acquire_time);
        assert_eq!(spec.lease_transitions, Some(2));
    }

    #[test]
    fn takeover_counts_a_transition() {
        let current = held_by("other", 900);
        let spec = next_spec(Some(&current), &Decision::Takeover, "me", at(1000)).expect("takeover");
        assert_eq!(spec.holder_identity.as_deref(), Some("me"));
        assert_eq!(spec.acquire_time, Some(MicroTime(at(1000))));
        assert_eq!(spec.lease_transitions, Some(3));
        assert_eq!(spec.lease_duration_seconds, Some(15));
        assert_eq!(next_spec(None, &Decision::Acquire, "me", at(1000)).and_then(|s| s.lease_transitions), Some(0));
        assert_eq!(next_spec(Some(&current), &Decision::Wait { holder: "other".into() }, "me", at(1000)), None);
    }

    #[test]
    fn release_clears_the_holder() {
        let spec = released_spec(Some(&held_by("me", 990)), at(1000));
        assert_eq!(spec.holder_identity, None);
        assert_eq!(spec.lease_duration_seconds, Some(1));
        assert_eq!(spec.lease_transitions, Some(2));
    }

    #[test]
    fn identity_has_a_random_suffix() {
        let (a, b) = (default_identity(), default_identity());
        assert_ne!(a, b);
        assert!(a.rsplit_once('_').is_some_and(|(host, suffix)| !host.is_empty() && suffix.len() == 16));
    }

    #[tokio::test]
    async fn missing_lease_is_created() {
        let (client, mut server) = testing::client();
        let elector = LeaderElector::new(client, "system", NAME, "me_1".into());
        let api = tokio::spawn(async move {
            server.expect(Method::GET, &path()).await.respond_error(404, "NotFound");
            let request = server.expect(Method::POST, LEASES).await;
            assert_eq!(request.body["metadata"]["name"], NAME);
            assert_eq!(request.body["spec"]["holderIdentity"], "me_1");
            assert_eq!(request.body["spec"]["leaseDurationSeconds"], 15);
            assert_eq!(request.body["spec"]["leaseTransitions"], 0);
            let created = request.body.clone();
            request.respond(&created);
        });
        let acquired = within(elector.try_acquire_or_renew()).await;
        within(api).await.expect("API scenario passed");
        assert!(acquired.expect("no API error"));
    }

    #[tokio::test]
    async fn expired_lease_is_taken_over_with_resource_version() {
        let (client, mut server) = testing::client();
        let elector = LeaderElector::new(client, "system", NAME, "me_1".into());
        let api = tokio::spawn(async move {
            let stale = json!({
                "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                "metadata": { "name": NAME, "namespace": "system", "resourceVersion": "42" },
                "spec": { "holderIdentity": "old_2", "leaseDurationSeconds": 15,
                          "renewTime": "2020-01-01T00:00:00.000000Z", "leaseTransitions": 4 },
            });
            server.expect(Method::GET, &path()).await.respond(&stale);
            let request = server.expect(Method::PUT, &path()).await;
            assert_eq!(request.body["metadata"]["resourceVersion"], "42");
            assert_eq!(request.body["spec"]["holderIdentity"], "me_1");
            assert_eq!(request.body["spec"]["leaseTransitions"], 5);
            request.respond_error(409, "Conflict");
        });
        let acquired = within(elector.try_acquire_or_renew()).await;
        within(api).await.expect("API scenario passed");
        assert!(!acquired.expect("a conflict is not an error"), "lost the race on conflict");
    }

    /// The Lease as the API server returns it, held by `holder` (renewed now), at resourceVersion "7".
    fn lease(holder: Option<&str>) -> Value {
        json!({
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": { "name": NAME, "namespace": "system", "resourceVersion": "7" },
            "spec": { "holderIdentity": holder, "leaseDurationSeconds": 15, "renewTime": MicroTime(Timestamp::now()) },
        })
    }

    #[tokio::test(start_paused = true)]
    async fn a_leader_that_cannot_renew_gives_up_at_the_renew_deadline_before_the_lease_expires() {
        let (client, mut server) = testing::client();
        let elector = LeaderElector::new(client, "system", NAME, "me_1".into());
        let started = Instant::now();
        let api = tokio::spawn(async move {
            let mut attempts = Vec::new();
            for _ in 0..4 {
                server.expect(Method::GET, &path()).await.respond_error(500, "InternalError");
                attempts.push(started.elapsed().as_secs());
            }
            server.expect_done().await;
            attempts
        });
        let lost =
            tokio::time::timeout(LEASE_DURATION, elector.hold()).await.expect("gave up before the lease expired");
        let given_up = started.elapsed();
        drop(elector);
        assert_eq!(api.await.expect("API scenario passed"), [2, 4, 6, 8], "one attempt a retry period");
        assert!(given_up >= RENEW_DEADLINE && given_up < LEASE_DURATION, "{given_up:?}");
        assert!(lost.to_string().contains("not renewed within 10s"), "{lost}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_candidate_retries_every_retry_period_until_the_lease_is_free() {
        let (client, mut server) = testing::client();
        let elector = LeaderElector::new(client, "system", NAME, "me_1".into());
        let (_trigger, shutdown) = Shutdown::new();
        let started = Instant::now();
        let api = tokio::spawn(async move {
            server.expect(Method::GET, &path()).await.respond(&lease(Some("other_2")));
            // The holder released the lease (shutdown): the next attempt takes it.
            server.expect(Method::GET, &path()).await.respond(&lease(None));
            let retried = started.elapsed();
            let request = server.expect(Method::PUT, &path()).await;
            assert_eq!(request.body["metadata"]["resourceVersion"], "7");
            assert_eq!(request.body["spec"]["holderIdentity"], "me_1");
            let acquired = request.body.clone();
            request.respond(&acquired);
            retried
        });
        assert!(elector.acquire(&shutdown).await, "acquired");
        assert_eq!(api.await.expect("API scenario passed"), RETRY_PERIOD);
    }

    #[tokio::test]
    async fn release_hands_the_lease_back_only_if_held() {
        let (client, mut server) = testing::client();
        let elector = LeaderElector::new(client, "system", NAME, "me_1".into());
        let api = tokio::spawn(async move {
            server.expect(Method::GET, &path()).await.respond(&lease(Some("me_1")));
            let request = server.expect(Method::PUT, &path()).await;
            assert_eq!(request.body["metadata"]["resourceVersion"], "7");
            assert_eq!(request.body["spec"].get("holderIdentity"), None);
            assert_eq!(request.body["spec"]["leaseDurationSeconds"], 1);
            let released = request.body.clone();
            request.respond(&released);
            // Held by someone else: left alone.
            server.expect(Method::GET, &path()).await.respond(&lease(Some("other_2")));
            server.expect_done().await;
        });
        within(elector.release()).await.expect("released");
        within(elector.release()).await.expect("nothing to release");
        drop(elector);
        within(api).await.expect("API scenario passed");
    }
}
