//! Health probe server: `/healthz` (liveness) and `/readyz` (readiness) over plain HTTP.
//!
//! `/healthz` answers 200 as long as the process serves requests. `/readyz` answers 200 once the manager
//! has a client that reached the API server; with leader election that is already the case while the
//! replica waits for leadership (a standby replica is healthy, like controller-runtime's ping check).
use axum::{Router, extract::State, http::StatusCode, routing::get};
use axum_server::Handle;
use std::{
    net::SocketAddr,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
};
use tracing::info;

/// Readiness flag shared between the manager (writer) and the probe server (reader).
#[derive(Clone, Debug, Default)]
pub struct Readiness(Arc<AtomicBool>);

impl Readiness {
    /// Marks the manager ready (or not).
    pub fn set(&self, ready: bool) {
        self.0.store(ready, Ordering::Release);
    }

    /// Whether the manager is ready.
    pub fn is_ready(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// The probe routes.
pub fn router(readiness: Readiness) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .with_state(readiness)
}

/// Serves the probes on `addr` until `handle` is shut down.
pub async fn serve(
    addr: SocketAddr,
    readiness: Readiness,
    handle: Handle<SocketAddr>,
) -> anyhow::Result<()> {
    info!(%addr, "serving health probes");
    axum_server::bind(addr)
        .handle(handle)
        .serve(router(readiness).into_make_service())
        .await?;
    Ok(())
}

async fn healthz() -> &'static str {
    "ok"
}

async fn readyz(State(readiness): State<Readiness>) -> (StatusCode, &'static str) {
    if readiness.is_ready() {
        (StatusCode::OK, "ok")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "not ready")
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
        assert_eq!(
            readyz(State(readiness.clone())).await.0,
            StatusCode::SERVICE_UNAVAILABLE
        );
        readiness.set(true);
        assert_eq!(readyz(State(readiness)).await.0, StatusCode::OK);
    }
}
