//! Health probe server: `/healthz` (liveness) and `/readyz` (readiness) over plain HTTP.
//!
//! `/healthz` answers 200 as long as the process serves requests. `/readyz` answers 200 once the manager
//! has a client that reached the API server and every registered readiness check passed (e.g. the webhook
//! server loaded its certificate); with leader election that is already the case while the replica waits
//! for leadership (a standby replica is healthy, like controller-runtime's ping check).
use axum::{Router, extract::State, http::StatusCode, routing::get};
use axum_server::Handle;
use std::{
    net::SocketAddr,
    sync::{
        Arc, Mutex, PoisonError,
        atomic::{AtomicBool, Ordering},
    },
};
use tracing::info;

/// Readiness shared between the manager (writer) and the probe server (reader): the manager's own flag
/// plus named checks that components register and flip (all must pass).
#[derive(Clone, Debug, Default)]
pub struct Readiness {
    manager: Arc<AtomicBool>,
    checks: Arc<Mutex<Vec<ReadyCheck>>>,
}

impl Readiness {
    /// Marks the manager ready (or not).
    pub fn set(&self, ready: bool) {
        self.manager.store(ready, Ordering::Release);
    }

    /// Whether the manager is ready and all checks pass.
    pub fn is_ready(&self) -> bool {
        self.pending().is_empty()
    }

    /// Registers a named check, initially failing; `/readyz` fails until it is set ready.
    pub fn check(&self, name: &'static str) -> ReadyCheck {
        let check = ReadyCheck { name, ready: Arc::new(AtomicBool::new(false)) };
        self.checks.lock().unwrap_or_else(PoisonError::into_inner).push(check.clone());
        check
    }

    /// Names of what is not ready yet (`manager` for the manager's own flag).
    pub fn pending(&self) -> Vec<&'static str> {
        let manager = (!self.manager.load(Ordering::Acquire)).then_some("manager");
        let checks = self.checks.lock().unwrap_or_else(PoisonError::into_inner);
        manager.into_iter().chain(checks.iter().filter(|c| !c.is_ready()).map(|c| c.name)).collect()
    }
}

/// One named readiness check (see [`Readiness::check`]); cheap to clone.
#[derive(Clone, Debug)]
pub struct ReadyCheck {
    name: &'static str,
    ready: Arc<AtomicBool>,
}

impl ReadyCheck {
    /// A check not registered anywhere (for components run outside a manager, e.g. in tests).
    pub fn detached(name: &'static str) -> Self {
        Readiness::default().check(name)
    }

    /// Marks the check passing (or failing).
    pub fn set(&self, ready: bool) {
        self.ready.store(ready, Ordering::Release);
    }

    /// Whether the check passes.
    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Acquire)
    }

    /// The check's name.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// The probe routes.
pub fn router(readiness: Readiness) -> Router {
    Router::new().route("/healthz", get(healthz)).route("/readyz", get(readyz)).with_state(readiness)
}

/// Serves the probes on `addr` until `handle` is shut down.
pub async fn serve(addr: SocketAddr, readiness: Readiness, handle: Handle<SocketAddr>) -> anyhow::Result<()> {
    info!(%addr, "serving health probes");
    axum_server::bind(addr).handle(handle).serve(router(readiness).into_make_service()).await?;
    Ok(())
}

async fn healthz() -> &'static str {
    "ok"
}

async fn readyz(State(readiness): State<Readiness>) -> (StatusCode, String) {
    let pending = readiness.pending();
    if pending.is_empty() {
        (StatusCode::OK, "ok".into())
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, format!("not ready: {}", pending.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn healthz_is_ok() {
        assert_eq!(healthz().await, "ok");
    }

    #[tokio::test]
    async fn readyz_follows_readiness() {
        let readiness = Readiness::default();
        assert_eq!(readyz(State(readiness.clone())).await.0, StatusCode::SERVICE_UNAVAILABLE);
        readiness.set(true);
        assert_eq!(readyz(State(readiness)).await.0, StatusCode::OK);
    }

    #[tokio::test]
    async fn readyz_waits_for_every_check() {
        let readiness = Readiness::default();
        readiness.set(true);
        let certificate = readiness.check("webhook-certificate");
        let (status, body) = readyz(State(readiness.clone())).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(body, "not ready: webhook-certificate");
        certificate.set(true);
        assert_eq!(readyz(State(readiness.clone())).await.0, StatusCode::OK);
        readiness.set(false);
        assert_eq!(readiness.pending(), ["manager"]);
    }
}
