//! Prometheus `/metrics` endpoint (HTTPS + TokenReview/SubjectAccessReview auth by default) and the reconcile metrics controllers record.

// TokenReviews and SubjectAccessReviews are granted by `config/rbac/metrics_auth_role.yaml` (its own ClusterRole,
// bound to the manager), not by markers: the manager role keeps to what the controllers ask for.

use anyhow::Context as _;
use axum::{
    Router,
    extract::State,
    http::{HeaderMap, StatusCode, header},
    response::{IntoResponse, Response},
    routing::get,
};
use axum_server::{Handle, tls_rustls::RustlsConfig};
use k8s_openapi::api::{authentication::v1::TokenReview, authorization::v1::SubjectAccessReview};
use kube::{Api, Client, api::PostParams};
use prometheus_client::{
    encoding::{EncodeLabelSet, text::encode},
    metrics::{counter::Counter, family::Family, histogram::Histogram},
    registry::Registry,
};
use serde_json::json;
use std::{net::SocketAddr, path::PathBuf, sync::Arc, time::Duration};
use tracing::{debug, info, warn};

/// Path served by the metrics server and authorized through the SubjectAccessReview.
pub const METRICS_PATH: &str = "/metrics";

/// Buckets of the reconcile duration histogram (seconds).
const DURATION_BUCKETS: [f64; 10] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0, 15.0];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabels {
    controller: String,
    result: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ErrorLabels {
    controller: String,
    error: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ControllerLabels {
    controller: String,
}

/// Reconcile metrics of all controllers (named like controller-runtime's so existing dashboards work).
#[derive(Debug)]
pub struct Metrics {
    reconciles: Family<ResultLabels, Counter>,
    errors: Family<ErrorLabels, Counter>,
    durations: Family<ControllerLabels, Histogram, fn() -> Histogram>,
}

impl Metrics {
    /// Creates the metrics and registers them in `registry`.
    pub fn new(registry: &mut Registry) -> Self {
        let metrics = Self {
            reconciles: Family::default(),
            errors: Family::default(),
            durations: Family::new_with_constructor(|| Histogram::new(DURATION_BUCKETS)),
        };
        registry.register(
            "controller_runtime_reconcile",
            "Total number of reconciliations per controller and result",
            metrics.reconciles.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_errors",
            "Total number of reconciliation errors per controller and error kind",
            metrics.errors.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_time_seconds",
            "Length of time per reconciliation per controller",
            metrics.durations.clone(),
        );
        metrics
    }

    /// A handle recording into these metrics with the label `controller = name`.
    ///
    /// The controller's series are created at zero right away, so they are scraped before the first reconcile.
    pub fn controller(self: &Arc<Self>, name: &'static str) -> ControllerMetrics {
        // get_or_create returns a read guard; dropping it right away only keeps the created series.
        for result in ["success", "error"] {
            drop(self.reconciles.get_or_create(&ResultLabels { controller: name.into(), result: result.into() }));
        }
        drop(self.durations.get_or_create(&ControllerLabels { controller: name.into() }));
        ControllerMetrics { name, metrics: self.clone() }
    }
}

/// Reconcile metrics bound to one controller.
#[derive(Clone, Debug)]
pub struct ControllerMetrics {
    name: &'static str,
    metrics: Arc<Metrics>,
}

impl ControllerMetrics {
    /// The controller label value.
    pub fn controller(&self) -> &'static str {
        self.name
    }

    /// Records one finished reconcile.
    pub fn reconciled(&self, duration: Duration, success: bool) {
        let result = if success { "success" } else { "error" };
        self.metrics
            .reconciles
            .get_or_create(&ResultLabels { controller: self.name.into(), result: result.into() })
            .inc();
        self.metrics
            .durations
            .get_or_create(&ControllerLabels { controller: self.name.into() })
            .observe(duration.as_secs_f64());
    }

    /// Records one reconcile failure of kind `error`.
    pub fn failed(&self, error: &'static str) {
        self.metrics.errors.get_or_create(&ErrorLabels { controller: self.name.into(), error: error.into() }).inc();
    }
}

/// Installs rustls' ring crypto provider as the process default (no-op if one is installed already).
pub fn install_crypto_provider() {
    // Err only means a provider is already installed, which is fine.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// How the metrics endpoint is served.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Listen address.
    pub addr: SocketAddr,
    /// HTTPS with bearer-token authentication and authorization (else plain HTTP, no auth).
    pub secure: bool,
    /// Directory holding `tls.crt` and `tls.key` (else a self-signed certificate is generated).
    pub cert_path: Option<PathBuf>,
}

#[derive(Clone)]
struct MetricsState {
    registry: Arc<Registry>,
    /// Set when requests must be authenticated and authorized against the API server.
    auth: Option<Client>,
}

/// Serves `registry` on `opts.addr` until `handle` is shut down.
pub async fn serve(
    opts: ServeOptions,
    registry: Arc<Registry>,
    client: Client,
    handle: Handle<SocketAddr>,
) -> anyhow::Result<()> {
    let state = MetricsState { registry, auth: opts.secure.then_some(client) };
    let app = Router::new().route(METRICS_PATH, get(metrics)).with_state(state);
    if opts.secure {
        install_crypto_provider();
        let tls = match &opts.cert_path {
            Some(dir) => RustlsConfig::from_pem_file(dir.join("tls.crt"), dir.join("tls.key"))
                .await
                .with_context(|| format!("loading metrics certificate from {}", dir.display()))?,
            None => {
                let (cert, key) = self_signed_certificate()?;
                RustlsConfig::from_pem(cert, key).await.context("loading the self-signed metrics certificate")?
            }
        };
        info!(addr = %opts.addr, "serving metrics over https with authentication and authorization");
        axum_server::bind_rustls(opts.addr, tls)
            .handle(handle)
            .serve(app.into_make_service())
            .await
            .context("metrics server")
    } else {
        info!(addr = %opts.addr, "serving metrics over http without authentication");
        axum_server::bind(opts.addr).handle(handle).serve(app.into_make_service()).await.context("metrics server")
    }
}

/// A self-signed certificate for `localhost` (PEM certificate, PEM private key).
pub fn self_signed_certificate() -> anyhow::Result<(Vec<u8>, Vec<u8>)> {
    let mut names = vec!["localhost".to_string()];
    if let Ok(host) = std::env::var("HOSTNAME") {
        names.push(host);
    }
    let certified = rcgen::generate_simple_self_signed(names).context("generating a self-signed certificate")?;
    Ok((certified.cert.pem().into_bytes(), certified.signing_key.serialize_pem().into_bytes()))
}

async fn metrics(State(state): State<MetricsState>, headers: HeaderMap) -> Response {
    if let Some(client) = &state.auth
        && let Err(denied) = authorize(client, &headers).await
    {
        return denied.into_response();
    }
    let mut body = String::new();
    if let Err(err) = encode(&mut body, &state.registry) {
        warn!(error = %err, "encoding metrics failed");
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    ([(header::CONTENT_TYPE, "application/openmetrics-text; version=1.0.0; charset=utf-8")], body).into_response()
}

/// Why a metrics request was refused.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// No `Authorization: Bearer` header.
    #[error("missing bearer token")]
    MissingToken,
    /// The TokenReview did not authenticate the token.
    #[error("token not authenticated: {0}")]
    Unauthenticated(String),
    /// The SubjectAccessReview did not allow `get` on `/metrics`.
    #[error("forbidden: {0}")]
    Forbidden(String),
    /// The API server could not be asked.
    #[error("authentication/authorization request failed: {0}")]
    Api(#[from] kube::Error),
    /// A review object could not be built.
    #[error("invalid review object: {0}")]
    Review(#[from] serde_json::Error),
}

impl IntoResponse for AuthError {
    fn into_response(self) -> Response {
        let status = match &self {
            AuthError::MissingToken | AuthError::Unauthenticated(_) => StatusCode::UNAUTHORIZED,
            AuthError::Forbidden(_) => StatusCode::FORBIDDEN,
            AuthError::Api(_) | AuthError::Review(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        debug!(error = %self, %status, "metrics request refused");
        (status, self.to_string()).into_response()
    }
}

/// The bearer token of an `Authorization` header.
fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Authenticates the request's bearer token (TokenReview) and authorizes `get /metrics` (SubjectAccessReview).
pub async fn authorize(client: &Client, headers: &HeaderMap) -> Result<(), AuthError> {
    let token = bearer_token(headers).ok_or(AuthError::MissingToken)?;
    // Built from JSON: TokenReviewSpec.token is Option in k8s <= 1.36 types and required in 1.37.
    let review: TokenReview = serde_json::from_value(json!({
        "apiVersion": "authentication.k8s.io/v1",
        "kind": "TokenReview",
        "spec": { "token": token },
    }))?;
    let review = Api::<TokenReview>::all(client.clone()).create(&PostParams::default(), &review).await?;
    let status = review.status.unwrap_or_default();
    if status.authenticated != Some(true) {
        return Err(AuthError::Unauthenticated(status.error.unwrap_or_default()));
    }
    let user = status.user.unwrap_or_default();
    let access: SubjectAccessReview = serde_json::from_value(json!({
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SubjectAccessReview",
        "spec": {
            "user": user.username,
            "uid": user.uid,
            "groups": user.groups,
            "extra": user.extra,
            "nonResourceAttributes": { "path": METRICS_PATH, "verb": "get" },
        },
    }))?;
    let access = Api::<SubjectAccessReview>::all(client.clone()).create(&PostParams::default(), &access).await?;
    match access.status {
        Some(status) if status.allowed => Ok(()),
        Some(status) => Err(AuthError::Forbidden(status.reason.unwrap_or_default())),
        None => Err(AuthError::Forbidden(String::new())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{self, within};
    use axum::http::HeaderValue;
    use http::Method;

    fn headers(authorization: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, HeaderValue::from_str(authorization).expect("valid header"));
        headers
    }

    #[test]
    fn bearer_token_is_extracted() {
        assert_eq!(bearer_token(&headers("Bearer abc")), Some("abc"));
        assert_eq!(bearer_token(&headers("bearer abc")), Some("abc"));
        assert_eq!(bearer_token(&headers("Basic abc")), None);
        assert_eq!(bearer_token(&headers("Bearer ")), None);
        assert_eq!(bearer_token(&HeaderMap::new()), None);
    }

    #[test]
    fn metrics_are_encoded_with_controller_labels() {
        let mut registry = Registry::default();
        let metrics = Arc::new(Metrics::new(&mut registry));
        let example = metrics.controller("example");
        example.reconciled(Duration::from_millis(20), true);
        example.failed("kube");
        let mut text = String::new();
        encode(&mut text, &registry).expect("encodes");
        assert!(text.contains(r#"controller_runtime_reconcile_total{controller="example",result="success"} 1"#));
        assert!(text.contains(r#"controller_runtime_reconcile_errors_total{controller="example",error="kube"} 1"#));
        assert!(text.contains(r#"controller_runtime_reconcile_time_seconds_count{controller="example"} 1"#));
        assert!(text.contains(r#"controller_runtime_reconcile_total{controller="example",result="error"} 0"#));
    }

    /// Every sample `/metrics` serves (the names Prometheus stores), with its labels. kubesmith's Grafana
    /// dashboards (`kubesmith edit --plugins grafana`) query only these: when you change the metrics, change this
    /// list, and the dashboards' queries with it.
    const SERVED: &[(&str, &[&str])] = &[
        ("controller_runtime_reconcile_errors_total", &["controller", "error"]),
        ("controller_runtime_reconcile_time_seconds_bucket", &["controller", "le"]),
        ("controller_runtime_reconcile_time_seconds_count", &["controller"]),
        ("controller_runtime_reconcile_time_seconds_sum", &["controller"]),
        ("controller_runtime_reconcile_total", &["controller", "result"]),
    ];

    #[test]
    fn served_samples_are_exactly_the_listed_ones() {
        let mut registry = Registry::default();
        let metrics = Arc::new(Metrics::new(&mut registry));
        let example = metrics.controller("example");
        example.reconciled(Duration::from_millis(20), false);
        example.failed("kube");
        let mut text = String::new();
        encode(&mut text, &registry).expect("encodes");
        let mut served = std::collections::BTreeMap::<&str, std::collections::BTreeSet<&str>>::new();
        for sample in text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
            let (name, rest) = sample.split_at(sample.find(['{', ' ']).expect("a sample has a value"));
            let labels = served.entry(name).or_default();
            if let Some(inner) = rest.strip_prefix('{').and_then(|r| r.split_once('}')) {
                labels.extend(inner.0.split(',').filter_map(|pair| pair.split_once('=')).map(|(key, _)| key));
            }
        }
        let listed: std::collections::BTreeMap<&str, std::collections::BTreeSet<&str>> =
            SERVED.iter().map(|(name, labels)| (*name, labels.iter().copied().collect())).collect();
        assert_eq!(served, listed, "the samples /metrics serves:\n{text}");
    }

    #[test]
    fn self_signed_certificate_is_pem() {
        let (cert, key) = self_signed_certificate().expect("certificate");
        assert!(String::from_utf8(cert).expect("utf8").starts_with("-----BEGIN CERTIFICATE-----"));
        assert!(String::from_utf8(key).expect("utf8").contains("PRIVATE KEY-----"));
    }

    #[tokio::test]
    async fn token_is_reviewed_then_access_is_checked() {
        let (client, mut server) = testing::client();
        let api = tokio::spawn(async move {
            let request = server.expect(Method::POST, "/apis/authentication.k8s.io/v1/tokenreviews").await;
            assert_eq!(request.body["spec"]["token"], "secret");
            let mut review = request.body.clone();
            review["status"] = json!({ "authenticated": true, "user": { "username": "system:serviceaccount:monitoring:prometheus", "groups": ["system:serviceaccounts"] } });
            request.respond(&review);

            let request = server.expect(Method::POST, "/apis/authorization.k8s.io/v1/subjectaccessreviews").await;
            let spec = &request.body["spec"];
            assert_eq!(spec["user"], "system:serviceaccount:monitoring:prometheus");
            assert_eq!(spec["groups"], json!(["system:serviceaccounts"]));
            assert_eq!(spec["nonResourceAttributes"], json!({ "path": "/metrics", "verb": "get" }));
            let mut access = request.body.clone();
            access["status"] = json!({ "allowed": false, "reason": "no RBAC policy matched" });
            request.respond(&access);
        });
        let result = within(authorize(&client, &headers("Bearer secret"))).await;
        within(api).await.expect("API scenario passed");
        assert!(matches!(result, Err(AuthError::Forbidden(reason)) if reason == "no RBAC policy matched"));
    }
}
