//! Webhooks: admission (defaulting, validation) and CRD conversion, served over HTTPS by the manager. Feature
//! `webhook`.
//!
//! In the operator's crate, each kind with webhooks has a module `webhook::<version>::<kind>` exposing
//! `registration()` (a [`WebhookRegistration`]), with one submodule per part (`defaulting`, `validation`,
//! `conversion`); its `webhook::registrations()` lists them, and [`server`] of them, which `main.rs` gives the
//! manager, serves them on `--webhook-port` with the certificate from `--webhook-cert-path` once at least one is
//! registered. This module holds the generic parts:
//!
//! * [`Webhook::defaulting`] turns a `fn(&mut K)` into a mutating webhook: the difference between the object as
//!   received and the defaulted object becomes a JSON Patch (`patchType: JSONPatch`);
//! * [`Webhook::validating`] calls a [`Validator`]'s create/update/delete hook and answers with its warnings or
//!   its [`Denial`];
//! * [`Webhook::conversion`] registers a kind's versions for `POST /convert`: every object is converted to the
//!   hub (storage) version and from there to the desired version (`From`/`TryFrom` impls the user writes);
//! * [`WebhookServer`] serves them with rustls, reloads the certificate when its files change (cert-manager
//!   rotates it) and stops gracefully on the manager's [`Shutdown`].
//!
//! Malformed reviews (unparsable JSON, no `request`) are answered with HTTP 200 and a review whose response
//! fails with code 400, like controller-runtime does: the API server then reports the webhook's message
//! instead of an opaque HTTP error (it never sends such requests itself).
use crate::manager::{self, Server, ServerContext, ServerFuture, Shutdown, health::ReadyCheck};
use anyhow::Context as _;
use axum::{
    Router,
    body::Bytes,
    extract::{DefaultBodyLimit, State},
    http::header,
    response::{IntoResponse, Response},
    routing::post,
};
use axum_server::{Handle, tls_rustls::RustlsConfig};
use kube::core::{
    DynamicObject, Resource, ResourceExt, Status,
    admission::{AdmissionRequest, AdmissionResponse, AdmissionReview, Operation},
    conversion::{ConversionRequest, ConversionResponse, ConversionReview},
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;
use std::{
    collections::{BTreeMap, HashSet},
    fmt::Display,
    marker::PhantomData,
    net::SocketAddr,
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};
use tracing::{debug, info, warn};

/// The webhook server as the manager runs it (`Manager::with_server` in `main.rs`): the webhooks `registrations`
/// gives on `--webhook-port`, with the certificate of `--webhook-cert-path`; `/readyz` fails until the
/// certificate is loaded. Nothing runs while no webhook is registered.
pub fn server(registrations: fn() -> Vec<WebhookRegistration>) -> Server {
    Box::new(move |context: ServerContext<'_>| {
        let webhooks = registrations();
        if webhooks.iter().all(WebhookRegistration::is_empty) {
            return Ok(None);
        }
        let opts = context.opts;
        let serve = ServeOptions {
            addr: SocketAddr::from(([0, 0, 0, 0], opts.webhook_port)),
            cert_dir: opts.webhook_cert_path.clone(),
            cert_name: opts.webhook_cert_name.clone(),
            key_name: opts.webhook_cert_key.clone(),
            reload_interval: CERT_RELOAD_INTERVAL,
        };
        let server = WebhookServer::bind(serve, webhooks)?;
        let ready = context.readiness.check("webhook-certificate");
        let serving: ServerFuture = Box::pin(server.run(ready, context.shutdown));
        Ok(Some(serving))
    })
}

/// Path of the conversion webhook (referenced by the CRD's `spec.conversion.webhook.clientConfig.service.path`).
pub const CONVERT_PATH: &str = "/convert";
/// How often the certificate files are checked for changes.
pub const CERT_RELOAD_INTERVAL: Duration = Duration::from_secs(5);
/// Largest accepted request body (controller-runtime's limit; a review carries up to two objects).
const MAX_BODY_BYTES: usize = 7 * 1024 * 1024;
/// How long in-flight requests may take after shutdown was requested.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Warnings returned to the API client (kubectl prints them); keep each under 120 characters.
pub type Warnings = Vec<String>;

/// Why a validation hook rejects an object; the message reaches the user as
/// `admission webhook "<name>" denied the request: <message>`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Denial {
    /// HTTP status code the API server answers the user with.
    pub code: u16,
    /// Machine-readable reason (a Kubernetes `StatusReason`).
    pub reason: String,
    /// Human-readable explanation.
    pub message: String,
}

impl Denial {
    /// A denial with `message` (403 Forbidden).
    pub fn new(message: impl Into<String>) -> Self {
        Self { code: 403, reason: "Forbidden".into(), message: message.into() }
    }

    /// An invalid field value (422 Invalid), e.g. `Denial::invalid("spec.foo", "must not be empty")`.
    pub fn invalid(field: &str, message: impl Display) -> Self {
        Self { code: 422, reason: "Invalid".into(), message: format!("{field}: Invalid value: {message}") }
    }
}

/// The validation hooks of one kind. `delete` runs only if the webhook's marker lists the `delete` verb.
pub struct Validator<K> {
    /// Checks an object about to be created.
    pub create: fn(&K) -> Result<Warnings, Denial>,
    /// Checks an update (`old`, `new`).
    pub update: fn(&K, &K) -> Result<Warnings, Denial>,
    /// Checks an object about to be deleted.
    pub delete: fn(&K) -> Result<Warnings, Denial>,
}

/// Errors of the generic webhook machinery (not denials: these are answered with a failed status).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The review could not be parsed.
    #[error("malformed {kind}: {source}")]
    MalformedReview {
        /// `AdmissionReview` or `ConversionReview`.
        kind: &'static str,
        /// The parse error.
        source: serde_json::Error,
    },
    /// The review has no `request`.
    #[error("{0} has no request")]
    MissingRequest(&'static str),
    /// A CREATE/UPDATE request without `object` (or UPDATE/DELETE without `oldObject`).
    #[error("admission request has no {0}")]
    MissingObject(&'static str),
    /// The object does not match the Rust type of its kind.
    #[error("cannot decode {kind}: {source}")]
    Decode {
        /// Kind being decoded.
        kind: String,
        /// The decode error.
        source: serde_json::Error,
    },
    /// The object could not be serialized to JSON.
    #[error("cannot encode {kind}: {source}")]
    Encode {
        /// Kind being encoded.
        kind: String,
        /// The encode error.
        source: serde_json::Error,
    },
    /// The defaulting patch does not apply to the object as received (a typed round trip lost a field).
    #[error("defaulting patch does not apply to the received object: {0}")]
    PatchDoesNotApply(#[from] json_patch::PatchError),
}

type AdmitFn = dyn Fn(&AdmissionRequest<DynamicObject>) -> AdmissionResponse + Send + Sync;
type ConvertFn = Box<dyn Fn(Value) -> Result<Value, String> + Send + Sync>;

enum Kind {
    Admission { path: &'static str, mutating: bool, admit: Arc<AdmitFn> },
    Conversion(KindConversion),
}

/// One webhook: a defaulting or validating admission endpoint, or a kind's conversion.
pub struct Webhook(Kind);

impl Webhook {
    /// A mutating webhook at `path` that applies `default` to CREATE and UPDATE requests of `K`.
    pub fn defaulting<K>(path: &'static str, default: impl Fn(&mut K) + Send + Sync + 'static) -> Self
    where
        K: Resource<DynamicType = ()> + Serialize + DeserializeOwned + 'static,
    {
        let admit = move |req: &AdmissionRequest<DynamicObject>| {
            let res = AdmissionResponse::from(req);
            if !matches!(req.operation, Operation::Create | Operation::Update) {
                return res;
            }
            let patch = req
                .object
                .as_ref()
                .ok_or(Error::MissingObject("object"))
                .and_then(to_json)
                .and_then(|raw| defaulting_patch::<K>(&raw, &default));
            match patch {
                Ok(patch) if patch.0.is_empty() => res,
                Ok(patch) => match res.clone().with_patch(patch) {
                    Ok(patched) => patched,
                    Err(err) => failed(res, 500, "InternalError", &err.to_string()),
                },
                Err(err) => failed(res, 400, "BadRequest", &err.to_string()),
            }
        };
        Self(Kind::Admission { path, mutating: true, admit: Arc::new(admit) })
    }

    /// A validating webhook at `path` that runs `validator`'s hook for the request's operation on `K`.
    pub fn validating<K>(path: &'static str, validator: Validator<K>) -> Self
    where
        K: Resource<DynamicType = ()> + DeserializeOwned + 'static,
    {
        let admit = move |req: &AdmissionRequest<DynamicObject>| {
            let res = AdmissionResponse::from(req);
            let object = || decode::<K>(req.object.as_ref(), "object");
            let old_object = || decode::<K>(req.old_object.as_ref(), "oldObject");
            let outcome = match req.operation {
                Operation::Create => object().map(|new| (validator.create)(&new)),
                Operation::Update => object().and_then(|new| old_object().map(|old| (validator.update)(&old, &new))),
                Operation::Delete => old_object().map(|old| (validator.delete)(&old)),
                Operation::Connect => Ok(Ok(Vec::new())),
            };
            match outcome {
                Ok(Ok(warnings)) if warnings.is_empty() => res,
                Ok(Ok(warnings)) => {
                    let mut res = res;
                    res.warnings = Some(warnings);
                    res
                }
                Ok(Err(denial)) => failed(res, denial.code, &denial.reason, &denial.message),
                Err(err) => failed(res, 400, "BadRequest", &err.to_string()),
            }
        };
        Self(Kind::Admission { path, mutating: false, admit: Arc::new(admit) })
    }

    /// Serves `conversion` (a kind's hub and spokes) on `POST /convert`.
    pub fn conversion<H>(conversion: Conversion<H>) -> Self {
        Self(Kind::Conversion(conversion.inner))
    }
}

/// The webhooks of one kind, registered with the manager (each webhook module exposes `registration()`).
pub struct WebhookRegistration {
    name: &'static str,
    webhooks: Vec<Webhook>,
}

impl WebhookRegistration {
    /// Registers `webhooks` under `name` (used in logs and error messages).
    pub fn new(name: &'static str, webhooks: Vec<Webhook>) -> Self {
        Self { name, webhooks }
    }

    /// The registration's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The admission paths, with `true` for mutating webhooks.
    pub fn admission_paths(&self) -> Vec<(&'static str, bool)> {
        self.webhooks
            .iter()
            .filter_map(|webhook| match &webhook.0 {
                Kind::Admission { path, mutating, .. } => Some((*path, *mutating)),
                Kind::Conversion(_) => None,
            })
            .collect()
    }

    /// Whether the registration holds a conversion (served on [`CONVERT_PATH`]).
    pub fn has_conversion(&self) -> bool {
        self.webhooks.iter().any(|webhook| matches!(webhook.0, Kind::Conversion(_)))
    }

    /// Whether the registration holds no webhook at all.
    pub fn is_empty(&self) -> bool {
        self.webhooks.is_empty()
    }
}

/// The routes of all `registrations`: one `POST` route per admission path, plus `POST /convert` when any kind
/// registered a conversion. Fails on duplicate paths or kinds.
pub fn router(registrations: Vec<WebhookRegistration>) -> anyhow::Result<Router> {
    let mut router = Router::new();
    let mut paths = HashSet::new();
    let mut conversions = Conversions::default();
    for registration in registrations {
        for webhook in registration.webhooks {
            match webhook.0 {
                Kind::Admission { path, admit, .. } => {
                    anyhow::ensure!(
                        path.starts_with('/') && path != CONVERT_PATH && paths.insert(path),
                        "webhook {}: path {path} is invalid or already registered",
                        registration.name
                    );
                    router = router.route(path, post(admission).with_state(admit));
                }
                Kind::Conversion(conversion) => {
                    conversions.add(conversion).with_context(|| format!("webhook {}", registration.name))?
                }
            }
        }
    }
    if !conversions.kinds.is_empty() {
        router = router.route(CONVERT_PATH, post(convert).with_state(Arc::new(conversions)));
    }
    Ok(router.layer(DefaultBodyLimit::max(MAX_BODY_BYTES)))
}

// ---------------------------------------------------------------------------------------------------------
// Admission

/// The JSON Patch that turns `raw` (an object of kind `K` as received) into its defaulted form.
///
/// The difference is taken between `K`'s own serialization before and after `default`, so fields the Rust type
/// drops or normalizes are never removed by the patch; the patch is checked to apply to `raw`.
pub fn defaulting_patch<K>(raw: &Value, default: impl Fn(&mut K)) -> Result<json_patch::Patch, Error>
where
    K: Resource<DynamicType = ()> + Serialize + DeserializeOwned,
{
    let kind = || K::kind(&()).into_owned();
    let mut obj: K = serde_json::from_value(raw.clone()).map_err(|source| Error::Decode { kind: kind(), source })?;
    let encode = |obj: &K| serde_json::to_value(obj).map_err(|source| Error::Encode { kind: kind(), source });
    let before = encode(&obj)?;
    default(&mut obj);
    let after = encode(&obj)?;
    let patch = json_patch::diff(&before, &after);
    let mut check = raw.clone();
    json_patch::patch(&mut check, &patch)?;
    Ok(patch)
}

/// Answers an `AdmissionReview` (JSON `body`) with `admit`; malformed reviews get a failed response (code 400).
pub fn review_admission(body: &[u8], admit: &AdmitFn) -> AdmissionReview<DynamicObject> {
    let value: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(source) => {
            return invalid_admission("", &Error::MalformedReview { kind: "AdmissionReview", source });
        }
    };
    let uid = request_uid(&value);
    let review: AdmissionReview<DynamicObject> = match serde_json::from_value(value) {
        Ok(review) => review,
        Err(source) => {
            return invalid_admission(&uid, &Error::MalformedReview { kind: "AdmissionReview", source });
        }
    };
    let req: AdmissionRequest<DynamicObject> = match review.try_into() {
        Ok(req) => req,
        Err(_) => return invalid_admission(&uid, &Error::MissingRequest("AdmissionReview")),
    };
    let res = admit(&req);
    let name =
        req.object.as_ref().or(req.old_object.as_ref()).map(|obj| obj.name_any()).unwrap_or_else(|| req.name.clone());
    if res.allowed {
        debug!(uid = %req.uid, kind = %req.kind.kind, %name, operation = ?req.operation,
               patched = res.patch.is_some(), "admission request allowed");
    } else {
        info!(uid = %req.uid, kind = %req.kind.kind, %name, operation = ?req.operation,
              reason = %res.result.message, "admission request denied");
    }
    res.into_review()
}

async fn admission(State(admit): State<Arc<AdmitFn>>, body: Bytes) -> Response {
    json_response(&review_admission(&body, admit.as_ref()))
}

fn invalid_admission(uid: &str, err: &Error) -> AdmissionReview<DynamicObject> {
    warn!(uid, error = %err, "malformed admission review");
    let mut res = AdmissionResponse::invalid(err);
    res.uid = uid.to_string();
    res.result = Status::failure(&err.to_string(), "BadRequest").with_code(400);
    res.into_review()
}

/// `res` denied with a failed status carrying `code`, `reason` and `message`.
fn failed(res: AdmissionResponse, code: u16, reason: &str, message: &str) -> AdmissionResponse {
    let mut res = res.deny(message);
    res.result = Status::failure(message, reason).with_code(code);
    res
}

fn to_json(obj: &DynamicObject) -> Result<Value, Error> {
    serde_json::to_value(obj).map_err(|source| Error::Encode {
        kind: obj.types.as_ref().map(|t| t.kind.clone()).unwrap_or_default(),
        source,
    })
}

fn decode<K>(obj: Option<&DynamicObject>, field: &'static str) -> Result<K, Error>
where
    K: Resource<DynamicType = ()> + DeserializeOwned,
{
    let raw = to_json(obj.ok_or(Error::MissingObject(field))?)?;
    serde_json::from_value(raw).map_err(|source| Error::Decode { kind: K::kind(&()).into_owned(), source })
}

/// `request.uid` of a review, if any (so a response to an undecodable request still matches it).
fn request_uid(review: &Value) -> String {
    review["request"]["uid"].as_str().unwrap_or_default().to_string()
}

fn json_response(body: &impl Serialize) -> Response {
    match serde_json::to_vec(body) {
        Ok(json) => ([(header::CONTENT_TYPE, "application/json")], json).into_response(),
        Err(err) => {
            warn!(error = %err, "cannot encode webhook response");
            axum::http::StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// Conversion

struct VersionConversion {
    group: String,
    kind: String,
    version: String,
    to_hub: ConvertFn,
    from_hub: ConvertFn,
}

struct KindConversion {
    hub: String,
    versions: Vec<VersionConversion>,
}

/// The versions of one kind served by `POST /convert`: the hub `H` (the storage version) and its spokes.
///
/// Every spoke `S` converts to and from the hub with `TryFrom` (a `From` impl gives that for free), so a
/// conversion between two spokes goes through the hub.
pub struct Conversion<H> {
    inner: KindConversion,
    hub: PhantomData<fn() -> H>,
}

impl<H> Conversion<H>
where
    H: Resource<DynamicType = ()> + Serialize + DeserializeOwned + 'static,
{
    /// A conversion whose hub is `H`.
    pub fn hub() -> Self {
        let normalize: ConvertFn = Box::new(|obj| typed::<H>(obj).and_then(|hub| json(&hub)));
        Self {
            inner: KindConversion {
                hub: H::version(&()).into_owned(),
                versions: vec![VersionConversion {
                    group: H::group(&()).into_owned(),
                    kind: H::kind(&()).into_owned(),
                    version: H::version(&()).into_owned(),
                    to_hub: normalize,
                    from_hub: Box::new(Ok),
                }],
            },
            hub: PhantomData,
        }
    }

    /// Adds the spoke version `S`.
    #[must_use]
    pub fn spoke<S>(mut self) -> Self
    where
        S: Resource<DynamicType = ()> + Serialize + DeserializeOwned + TryFrom<H> + 'static,
        H: TryFrom<S>,
        <S as TryFrom<H>>::Error: Display,
        <H as TryFrom<S>>::Error: Display,
    {
        self.inner.versions.push(VersionConversion {
            group: S::group(&()).into_owned(),
            kind: S::kind(&()).into_owned(),
            version: S::version(&()).into_owned(),
            to_hub: Box::new(|obj| {
                let spoke = typed::<S>(obj)?;
                json(&H::try_from(spoke).map_err(|err| err.to_string())?)
            }),
            from_hub: Box::new(|obj| {
                let hub = typed::<H>(obj)?;
                json(&S::try_from(hub).map_err(|err| err.to_string())?)
            }),
        });
        self
    }
}

fn typed<K: DeserializeOwned>(obj: Value) -> Result<K, String> {
    serde_json::from_value(obj).map_err(|err| format!("cannot decode: {err}"))
}

fn json<K: Serialize>(obj: &K) -> Result<Value, String> {
    serde_json::to_value(obj).map_err(|err| format!("cannot encode: {err}"))
}

/// The conversions of all kinds, by (group, kind).
#[derive(Default)]
struct Conversions {
    kinds: BTreeMap<(String, String), KindConversion>,
}

impl Conversions {
    fn add(&mut self, conversion: KindConversion) -> anyhow::Result<()> {
        let hub = conversion.versions.first().context("conversion without versions")?;
        let key = (hub.group.clone(), hub.kind.clone());
        let mut versions = HashSet::new();
        for version in &conversion.versions {
            anyhow::ensure!(
                (&version.group, &version.kind) == (&key.0, &key.1),
                "conversion of {}/{}: {}/{} {} is another kind",
                key.0,
                key.1,
                version.group,
                version.version,
                version.kind
            );
            anyhow::ensure!(
                versions.insert(version.version.clone()),
                "conversion of {}/{}: version {} registered twice",
                key.0,
                key.1,
                version.version
            );
        }
        anyhow::ensure!(!self.kinds.contains_key(&key), "conversion of {}/{} registered twice", key.0, key.1);
        self.kinds.insert(key, conversion);
        Ok(())
    }

    /// Converts one object to `desired` (`group/version`).
    fn convert(&self, obj: Value, desired: &str) -> Result<Value, String> {
        let api_version = obj["apiVersion"].as_str().unwrap_or_default().to_string();
        let kind = obj["kind"].as_str().unwrap_or_default().to_string();
        let name = obj["metadata"]["name"].as_str().unwrap_or_default();
        let what = format!("{kind} {name:?} ({api_version})");
        let (group, from) =
            split_api_version(&api_version).ok_or_else(|| format!("{what}: invalid apiVersion {api_version:?}"))?;
        let (desired_group, to) =
            split_api_version(desired).ok_or_else(|| format!("invalid desiredAPIVersion {desired:?}"))?;
        if group != desired_group {
            return Err(format!("{what}: cannot convert to another group ({desired})"));
        }
        let conversion = self
            .kinds
            .get(&(group.to_string(), kind.clone()))
            .ok_or_else(|| format!("{what}: no conversion registered for this kind"))?;
        let served = || {
            let versions: Vec<&str> = conversion.versions.iter().map(|v| v.version.as_str()).collect();
            versions.join(", ")
        };
        let version = |v: &str| conversion.versions.iter().find(|c| c.version == v);
        let source =
            version(from).ok_or_else(|| format!("{what}: unsupported version {from} (served: {})", served()))?;
        let target =
            version(to).ok_or_else(|| format!("{what}: unsupported desired version {to} (served: {})", served()))?;
        if from == to {
            return Ok(obj);
        }
        let hub = (source.to_hub)(obj).map_err(|err| format!("{what}: converting to {}: {err}", conversion.hub))?;
        (target.from_hub)(hub).map_err(|err| format!("{what}: converting from {} to {to}: {err}", conversion.hub))
    }
}

fn split_api_version(api_version: &str) -> Option<(&str, &str)> {
    api_version.split_once('/').filter(|(group, version)| !group.is_empty() && !version.is_empty())
}

/// Answers a `ConversionReview` (JSON `body`); malformed reviews and failed conversions get a failed result.
fn review_conversion(body: &[u8], conversions: &Conversions) -> ConversionReview {
    let invalid = |uid: String, err: Error| {
        warn!(uid, error = %err, "malformed conversion review");
        let mut res = ConversionResponse::invalid(Status::failure(&err.to_string(), "BadRequest").with_code(400));
        res.uid = uid;
        res.into_review()
    };
    let malformed = |source| Error::MalformedReview { kind: "ConversionReview", source };
    let value: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(err) => return invalid(String::new(), malformed(err)),
    };
    let uid = request_uid(&value);
    let review: ConversionReview = match serde_json::from_value(value) {
        Ok(review) => review,
        Err(err) => return invalid(uid, malformed(err)),
    };
    let req = match ConversionRequest::from_review(review) {
        Ok(req) => req,
        Err(_) => return invalid(uid, Error::MissingRequest("ConversionReview")),
    };
    let desired = req.desired_api_version.clone();
    let converted: Result<Vec<Value>, String> =
        req.objects.iter().cloned().map(|obj| conversions.convert(obj, &desired)).collect();
    let res = ConversionResponse::for_request(req);
    match converted {
        Ok(objects) => {
            debug!(uid = %res.uid, %desired, count = objects.len(), "converted objects");
            res.success(objects).into_review()
        }
        Err(message) => {
            warn!(uid = %res.uid, %desired, error = %message, "conversion failed");
            res.failure(Status::failure(&message, "")).into_review()
        }
    }
}

async fn convert(State(conversions): State<Arc<Conversions>>, body: Bytes) -> Response {
    json_response(&review_conversion(&body, &conversions))
}

// ---------------------------------------------------------------------------------------------------------
// Server

/// Where and how the webhook server listens.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Listen address.
    pub addr: SocketAddr,
    /// Directory holding the certificate and key.
    pub cert_dir: PathBuf,
    /// Certificate file name (PEM, leaf first, then intermediates).
    pub cert_name: String,
    /// Private key file name (PEM).
    pub key_name: String,
    /// How often the files are checked for a new certificate.
    pub reload_interval: Duration,
}

impl ServeOptions {
    /// Options for `addr` with the default certificate location and reload interval.
    pub fn new(addr: SocketAddr) -> Self {
        Self {
            addr,
            cert_dir: manager::DEFAULT_WEBHOOK_CERT_DIR.into(),
            cert_name: manager::DEFAULT_WEBHOOK_CERT_NAME.into(),
            key_name: manager::DEFAULT_WEBHOOK_KEY_NAME.into(),
            reload_interval: CERT_RELOAD_INTERVAL,
        }
    }

    /// The certificate file.
    pub fn cert_file(&self) -> PathBuf {
        self.cert_dir.join(&self.cert_name)
    }

    /// The private key file.
    pub fn key_file(&self) -> PathBuf {
        self.cert_dir.join(&self.key_name)
    }
}

/// The HTTPS webhook server, bound but not yet serving.
pub struct WebhookServer {
    opts: ServeOptions,
    listener: std::net::TcpListener,
    app: Router,
}

impl WebhookServer {
    /// Binds `opts.addr` for the webhooks of `registrations`.
    pub fn bind(opts: ServeOptions, registrations: Vec<WebhookRegistration>) -> anyhow::Result<Self> {
        let app = router(registrations)?;
        let listener = std::net::TcpListener::bind(opts.addr)
            .with_context(|| format!("binding the webhook server to {}", opts.addr))?;
        listener.set_nonblocking(true)?;
        Ok(Self { opts, listener, app })
    }

    /// The bound address (useful with port 0).
    pub fn local_addr(&self) -> anyhow::Result<SocketAddr> {
        Ok(self.listener.local_addr()?)
    }

    /// Waits for the certificate, marks `ready`, then serves until `shutdown` (in-flight requests get 10 seconds),
    /// reloading the certificate whenever its files change.
    pub async fn run(self, ready: ReadyCheck, shutdown: Shutdown) -> anyhow::Result<()> {
        let (cert_file, key_file) = (self.opts.cert_file(), self.opts.key_file());
        let mut ticker = tokio::time::interval(self.opts.reload_interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut certificate = CertificateFiles::new(cert_file, key_file);
        let tls = loop {
            tokio::select! {
                () = shutdown.clone().wait() => return Ok(()),
                _ = ticker.tick() => {}
            }
            if let Some(config) = certificate.changed().await {
                break RustlsConfig::from_config(config);
            }
        };
        ready.set(true);
        let handle = Handle::<SocketAddr>::new();
        info!(addr = %self.local_addr()?, cert = %certificate.cert_file.display(), "serving webhooks over https");
        let server = axum_server::from_tcp_rustls(self.listener, tls.clone())?
            .handle(handle.clone())
            .serve(self.app.into_make_service());
        tokio::pin!(server);
        let stopping = shutdown.wait();
        tokio::pin!(stopping);
        let mut stopped = false;
        let result = loop {
            tokio::select! {
                result = &mut server => break result,
                () = &mut stopping, if !stopped => {
                    stopped = true;
                    ready.set(false);
                    handle.graceful_shutdown(Some(SHUTDOWN_GRACE));
                }
                _ = ticker.tick(), if !stopped => {
                    if let Some(config) = certificate.changed().await {
                        tls.reload_from_config(config);
                    }
                }
            }
        };
        ready.set(false);
        result.context("webhook server")
    }
}

/// The certificate and key files, re-read on every check; a new TLS config is built when their content changed.
struct CertificateFiles {
    cert_file: PathBuf,
    key_file: PathBuf,
    /// Content last loaded successfully.
    loaded: Option<(Vec<u8>, Vec<u8>)>,
    /// Content or error last reported as unusable (reported once).
    failed: Option<String>,
}

impl CertificateFiles {
    fn new(cert_file: PathBuf, key_file: PathBuf) -> Self {
        Self { cert_file, key_file, loaded: None, failed: None }
    }

    /// A TLS config for the files if their content changed since the last load and is usable.
    async fn changed(&mut self) -> Option<Arc<rustls::ServerConfig>> {
        let read = async {
            let cert = read_file(&self.cert_file).await?;
            let key = read_file(&self.key_file).await?;
            anyhow::Ok((cert, key))
        };
        let outcome = match read.await {
            Ok(pem) if self.loaded.as_ref() == Some(&pem) => return None,
            Ok(pem) => server_config(&pem.0, &pem.1)
                .with_context(|| format!("loading {}", self.cert_file.display()))
                .map(|config| (config, pem)),
            Err(err) => Err(err),
        };
        match outcome {
            Ok((config, pem)) => {
                let reload = self.loaded.is_some();
                self.loaded = Some(pem);
                self.failed = None;
                if reload {
                    info!(cert = %self.cert_file.display(), "reloaded the webhook certificate");
                } else {
                    info!(cert = %self.cert_file.display(), "loaded the webhook certificate");
                }
                Some(config)
            }
            Err(err) => {
                let message = format!("{err:#}");
                if self.failed.as_ref() != Some(&message) {
                    warn!(error = %message, "webhook certificate not usable (yet); keeping the current one");
                    self.failed = Some(message);
                }
                None
            }
        }
    }
}

async fn read_file(path: &Path) -> anyhow::Result<Vec<u8>> {
    tokio::fs::read(path).await.with_context(|| format!("reading {}", path.display()))
}

/// A rustls server config (ring provider, HTTP/1.1 only) for a PEM certificate chain and private key.
pub fn server_config(cert_pem: &[u8], key_pem: &[u8]) -> anyhow::Result<Arc<rustls::ServerConfig>> {
    let chain =
        CertificateDer::pem_slice_iter(cert_pem).collect::<Result<Vec<_>, _>>().context("parsing the certificate")?;
    anyhow::ensure!(!chain.is_empty(), "no certificate in the certificate file");
    let key = PrivateKeyDer::from_pem_slice(key_pem).context("parsing the private key")?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .context("certificate and key do not match")?;
    // HTTP/2 stays off, like kubebuilder's default (`--enable-http2=false`): the API server speaks HTTP/1.1.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Test kinds (independent of the project's APIs): `Widget` in v1 (hub) and v2 (spoke).
    mod v1 {
        use kube::CustomResource;
        use schemars::JsonSchema;
        use serde::{Deserialize, Serialize};

        #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
        #[kube(group = "test.example.com", version = "v1", kind = "Widget", namespaced)]
        pub struct WidgetSpec {
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub size: Option<i32>,
        }
    }

    mod v2 {
        use kube::CustomResource;
        use schemars::JsonSchema;
        use serde::{Deserialize, Serialize};

        #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
        #[kube(group = "test.example.com", version = "v2", kind = "Widget", namespaced)]
        pub struct WidgetSpec {
            pub replicas: i32,
        }

        impl From<Widget> for super::v1::Widget {
            fn from(w: Widget) -> Self {
                let spec = super::v1::WidgetSpec { size: Some(w.spec.replicas) };
                Self { metadata: w.metadata, spec }
            }
        }

        impl TryFrom<super::v1::Widget> for Widget {
            type Error = String;

            fn try_from(w: super::v1::Widget) -> Result<Self, String> {
                let replicas = w.spec.size.ok_or("spec.size is required in v2")?;
                Ok(Self { metadata: w.metadata, spec: WidgetSpec { replicas } })
            }
        }
    }

    fn default_size(w: &mut v1::Widget) {
        w.spec.size.get_or_insert(3);
    }

    fn no_big_widgets(w: &v1::Widget) -> Result<Warnings, Denial> {
        match w.spec.size {
            Some(size) if size > 10 => Err(Denial::invalid("spec.size", "at most 10")),
            Some(size) if size > 5 => Ok(vec!["large widget".into()]),
            _ => Ok(Vec::new()),
        }
    }

    fn validator() -> Validator<v1::Widget> {
        Validator {
            create: no_big_widgets,
            update: |_, new| no_big_widgets(new),
            delete: |_| Err(Denial::new("widgets are forever")),
        }
    }

    fn admit(webhook: Webhook) -> Arc<AdmitFn> {
        match webhook.0 {
            Kind::Admission { admit, .. } => admit,
            Kind::Conversion(_) => panic!("not an admission webhook"),
        }
    }

    fn widget(size: Option<i32>) -> Value {
        let spec = size.map_or(json!({}), |size| json!({ "size": size }));
        json!({"apiVersion": "test.example.com/v1", "kind": "Widget",
               "metadata": {"name": "w", "namespace": "ns", "annotations": {"a/b": "c"}}, "spec": spec})
    }

    fn admission(operation: &str, object: Value, old_object: Value) -> Vec<u8> {
        let review = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
            "uid": "u-1", "operation": operation, "name": "w", "namespace": "ns",
            "kind": {"group": "test.example.com", "version": "v1", "kind": "Widget"},
            "resource": {"group": "test.example.com", "version": "v1", "resource": "widgets"},
            "userInfo": {"username": "admin"}, "object": object, "oldObject": old_object, "dryRun": false}});
        serde_json::to_vec(&review).expect("json")
    }

    fn response(review: AdmissionReview<DynamicObject>) -> AdmissionResponse {
        review.response.expect("review has a response")
    }

    fn allow_all() -> Arc<AdmitFn> {
        Arc::new(|req: &AdmissionRequest<DynamicObject>| AdmissionResponse::from(req))
    }

    #[test]
    fn defaulting_answers_with_a_json_patch() {
        let admit = admit(Webhook::defaulting("/mutate", default_size));
        let res = response(review_admission(&admission("CREATE", widget(None), Value::Null), admit.as_ref()));
        assert!(res.allowed);
        assert_eq!(res.uid, "u-1");
        let patch: json_patch::Patch = serde_json::from_slice(&res.patch.clone().expect("patch")).expect("JSON Patch");
        let mut patched = widget(None);
        json_patch::patch(&mut patched, &patch).expect("applies");
        assert_eq!(patched, widget(Some(3)));
        let wire = serde_json::to_value(res).expect("json");
        assert_eq!(wire["patchType"], "JSONPatch");

        let res = response(review_admission(&admission("CREATE", widget(Some(1)), Value::Null), admit.as_ref()));
        assert!(res.allowed && res.patch.is_none());
        let res = response(review_admission(&admission("DELETE", Value::Null, widget(None)), admit.as_ref()));
        assert!(res.allowed && res.patch.is_none());
    }

    #[test]
    fn defaulting_patch_never_removes_what_the_type_does_not_know() {
        let mut raw = widget(None);
        raw["spec"]["unknown"] = json!("kept");
        let patch = defaulting_patch::<v1::Widget>(&raw, default_size).expect("patch");
        assert_eq!(
            serde_json::to_value(&patch).expect("json"),
            json!([{"op": "add", "path": "/spec/size", "value": 3}])
        );
    }

    #[test]
    fn validation_calls_the_hook_of_the_operation() {
        let admit = admit(Webhook::validating("/validate", validator()));
        let review =
            |operation, object, old| response(review_admission(&admission(operation, object, old), admit.as_ref()));
        let denied = review("CREATE", widget(Some(11)), Value::Null);
        assert!(!denied.allowed);
        assert_eq!(denied.uid, "u-1");
        assert_eq!(denied.result.code, 422);
        assert_eq!(denied.result.reason, "Invalid");
        assert_eq!(denied.result.message, "spec.size: Invalid value: at most 10");
        let warned = review("UPDATE", widget(Some(6)), widget(Some(1)));
        assert!(warned.allowed);
        assert_eq!(warned.warnings, Some(vec!["large widget".to_string()]));
        let deleted = review("DELETE", Value::Null, widget(Some(1)));
        assert!(!deleted.allowed);
        assert_eq!(deleted.result.code, 403);
        assert_eq!(deleted.result.message, "widgets are forever");
        let missing_old = review("UPDATE", widget(Some(1)), Value::Null);
        assert!(!missing_old.allowed);
        assert_eq!(missing_old.result.message, "admission request has no oldObject");
        let undecodable = review(
            "CREATE",
            json!({"apiVersion": "test.example.com/v1", "kind": "Widget",
                                                  "metadata": {"name": "w"}, "spec": {"size": "big"}}),
            Value::Null,
        );
        assert!(!undecodable.allowed);
        assert_eq!(undecodable.result.code, 400);
        assert!(undecodable.result.message.starts_with("cannot decode Widget"));
    }

    #[test]
    fn unparsable_admission_review_is_answered_with_a_failure() {
        let review = review_admission(b"{not json", allow_all().as_ref());
        assert_eq!(review.types.api_version, "admission.k8s.io/v1");
        assert_eq!(review.types.kind, "AdmissionReview");
        let res = response(review);
        assert!(!res.allowed);
        assert_eq!(res.uid, "");
        assert_eq!(res.result.code, 400);
        assert!(res.result.message.starts_with("malformed AdmissionReview"));
    }

    #[test]
    fn admission_review_without_request_is_answered_with_a_failure() {
        let body = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"});
        let body = serde_json::to_vec(&body).expect("json");
        let res = response(review_admission(&body, allow_all().as_ref()));
        assert!(!res.allowed);
        assert_eq!(res.result.message, "AdmissionReview has no request");
    }

    #[test]
    fn undecodable_request_keeps_its_uid() {
        let body = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                          "request": {"uid": "u-1", "operation": "CREATE"}});
        let body = serde_json::to_vec(&body).expect("json");
        let res = response(review_admission(&body, allow_all().as_ref()));
        assert!(!res.allowed);
        assert_eq!(res.uid, "u-1");
    }

    #[test]
    fn registration_reports_its_admission_paths_and_conversion() {
        let registration = WebhookRegistration::new(
            "widget",
            vec![Webhook::defaulting("/mutate", default_size), Webhook::validating("/validate", validator())],
        );
        assert_eq!(registration.name(), "widget");
        assert_eq!(registration.admission_paths(), [("/mutate", true), ("/validate", false)]);
        assert!(!registration.has_conversion() && !registration.is_empty());
        let conversion = Conversion::<v1::Widget>::hub().spoke::<v2::Widget>();
        let registration = WebhookRegistration::new("widget", vec![Webhook::conversion(conversion)]);
        assert!(registration.admission_paths().is_empty());
        assert!(registration.has_conversion());
        assert!(WebhookRegistration::new("none", Vec::new()).is_empty());
    }

    #[test]
    fn duplicate_paths_and_kinds_are_rejected() {
        let webhook = || Webhook::defaulting("/mutate", default_size);
        let registrations =
            vec![WebhookRegistration::new("a", vec![webhook()]), WebhookRegistration::new("b", vec![webhook()])];
        assert!(router(registrations).is_err());
        let convert = || Webhook::conversion(Conversion::<v1::Widget>::hub());
        let registrations = vec![WebhookRegistration::new("c", vec![convert(), convert()])];
        assert!(router(registrations).is_err());
        let bad_path = vec![WebhookRegistration::new("d", vec![Webhook::defaulting(CONVERT_PATH, default_size)])];
        assert!(router(bad_path).is_err());
        assert!(router(Vec::new()).is_ok());
    }

    fn conversions() -> Conversions {
        let mut conversions = Conversions::default();
        let widget = Conversion::<v1::Widget>::hub().spoke::<v2::Widget>();
        conversions.add(widget.inner).expect("registers");
        conversions
    }

    fn conversion_review(desired: &str, objects: Value) -> Vec<u8> {
        let review = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
                            "request": {"uid": "c-1", "desiredAPIVersion": desired, "objects": objects}});
        serde_json::to_vec(&review).expect("json")
    }

    fn convert_response(desired: &str, objects: Value) -> ConversionResponse {
        review_conversion(&conversion_review(desired, objects), &conversions()).response.expect("response")
    }

    #[test]
    fn conversion_converts_every_object_in_order() {
        let res = convert_response(
            "test.example.com/v2",
            json!([
                {"apiVersion": "test.example.com/v1", "kind": "Widget", "metadata": {"name": "a"}, "spec": {"size": 4}},
                {"apiVersion": "test.example.com/v2", "kind": "Widget", "metadata": {"name": "b"}, "spec": {"replicas": 5}},
            ]),
        );
        assert_eq!(res.uid, "c-1");
        assert!(res.result.is_success());
        assert_eq!(
            res.converted_objects,
            [
                json!({"apiVersion": "test.example.com/v2", "kind": "Widget", "metadata": {"name": "a"}, "spec": {"replicas": 4}}),
                json!({"apiVersion": "test.example.com/v2", "kind": "Widget", "metadata": {"name": "b"}, "spec": {"replicas": 5}}),
            ]
        );
    }

    #[test]
    fn unknown_versions_kinds_and_failed_conversions_fail_the_review() {
        let cases = [
            ("test.example.com/v2", "test.example.com/v9", "Widget", "unsupported version v9 (served: v1, v2)"),
            ("test.example.com/v9", "test.example.com/v1", "Widget", "unsupported desired version v9"),
            ("other.example.com/v1", "test.example.com/v1", "Widget", "cannot convert to another group"),
            ("test.example.com/v2", "test.example.com/v1", "Gadget", "no conversion registered for this kind"),
            (
                "test.example.com/v2",
                "test.example.com/v1",
                "Widget",
                "converting from v1 to v2: spec.size is required in v2",
            ),
            ("test.example.com/v2", "v1", "Widget", "invalid apiVersion"),
        ];
        for (desired, api_version, kind, expected) in cases {
            let res = convert_response(
                desired,
                json!([{"apiVersion": api_version, "kind": kind, "metadata": {"name": "m"}, "spec": {}}]),
            );
            assert_eq!(res.uid, "c-1");
            assert!(res.converted_objects.is_empty());
            assert!(!res.result.is_success());
            assert!(res.result.message.contains(expected), "{expected:?} in {:?}", res.result.message);
        }
    }

    #[test]
    fn malformed_conversion_review_is_answered_with_a_failure() {
        let review = review_conversion(b"[]", &conversions());
        assert_eq!(review.types.api_version, "apiextensions.k8s.io/v1");
        let res = review.response.expect("response");
        assert_eq!(res.result.code, 400);
        assert!(res.result.message.starts_with("malformed ConversionReview"));
        let no_request = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview"});
        let body = serde_json::to_vec(&no_request).expect("json");
        let res = review_conversion(&body, &conversions()).response.expect("response");
        assert_eq!(res.result.message, "ConversionReview has no request");
    }

    #[test]
    fn server_config_rejects_mismatched_key() {
        let a = rcgen::generate_simple_self_signed(vec!["a".into()]).expect("cert");
        let b = rcgen::generate_simple_self_signed(vec!["b".into()]).expect("cert");
        let cert = a.cert.pem();
        let key_a = a.signing_key.serialize_pem();
        let config = server_config(cert.as_bytes(), key_a.as_bytes()).expect("config");
        assert_eq!(config.alpn_protocols, [b"http/1.1".to_vec()]);
        let key_b = b.signing_key.serialize_pem();
        assert!(server_config(cert.as_bytes(), key_b.as_bytes()).is_err());
        assert!(server_config(b"", key_a.as_bytes()).is_err());
    }
}
