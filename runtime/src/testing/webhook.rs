//! Webhook tests over real HTTPS: a throw-away CA, the webhook server on 127.0.0.1 with a rustls client, and
//! AdmissionReview / ConversionReview builders. Every request/response pair is printed (see them with
//! `cargo test --test <name> -- --nocapture`). Features `testing` and `webhook`.
#![cfg(feature = "webhook")]

use axum::body::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, StatusCode, header};
use hyper_util::rt::TokioIo;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, SerialNumber};
use serde_json::{Value, json};
use std::{
    net::SocketAddr,
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};
use tokio::{net::TcpStream, task::JoinHandle};
use tokio_rustls::{
    TlsConnector,
    rustls::{self, pki_types::CertificateDer},
};

use crate::{
    manager::{Shutdown, ShutdownTrigger, health::ReadyCheck},
    webhook::{ServeOptions, WebhookRegistration, WebhookServer},
};

/// A throw-away CA that signs serving certificates for `localhost` / `127.0.0.1`.
pub struct TestCa {
    issuer: Issuer<'static, KeyPair>,
    der: CertificateDer<'static>,
}

impl Default for TestCa {
    fn default() -> Self {
        Self::new()
    }
}

impl TestCa {
    /// A new CA with a fresh key.
    pub fn new() -> Self {
        let key = KeyPair::generate().expect("CA key");
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, "webhook test CA");
        let cert = params.self_signed(&key).expect("CA certificate");
        Self { issuer: Issuer::new(params, key), der: cert.der().clone() }
    }

    /// A serving certificate with `serial` (also in its common name): PEM certificate and key.
    pub fn serving(&self, serial: u8) -> (String, String) {
        let key = KeyPair::generate().expect("serving key");
        let mut params = CertificateParams::new(vec!["localhost".into(), "127.0.0.1".into()]).expect("serving params");
        params.serial_number = Some(SerialNumber::from(vec![serial]));
        params.distinguished_name.push(DnType::CommonName, format!("webhook-service.system.svc #{serial}"));
        let cert = params.signed_by(&key, &self.issuer).expect("signed");
        (cert.pem(), key.serialize_pem())
    }
}

/// The webhook server running in the background, with its certificate directory and CA.
pub struct TestServer {
    /// Where it listens.
    pub addr: SocketAddr,
    /// The folder it loads its certificate from (`tls.crt`, `tls.key`).
    pub cert_dir: PathBuf,
    /// The CA its certificates are signed by.
    pub ca: TestCa,
    /// Passes once it has loaded a certificate.
    pub ready: ReadyCheck,
    trigger: ShutdownTrigger,
    task: JoinHandle<anyhow::Result<()>>,
}

impl TestServer {
    /// Starts the server for `registrations`; with `cert_serial`, a certificate is written first and the server
    /// is awaited until ready. `name` keeps the certificate directories of concurrent tests apart.
    pub async fn start(name: &str, cert_serial: Option<u8>, registrations: Vec<WebhookRegistration>) -> Self {
        let cert_dir =
            std::env::temp_dir().join(format!("{}-webhook-{name}-{}", env!("CARGO_PKG_NAME"), std::process::id()));
        let _ = std::fs::remove_dir_all(&cert_dir);
        std::fs::create_dir_all(&cert_dir).expect("cert dir");
        let ca = TestCa::new();
        if let Some(serial) = cert_serial {
            write_cert(&cert_dir, &ca.serving(serial));
        }
        let opts = ServeOptions {
            cert_dir: cert_dir.clone(),
            reload_interval: Duration::from_millis(100),
            ..ServeOptions::new(SocketAddr::from(([127, 0, 0, 1], 0)))
        };
        let server = WebhookServer::bind(opts, registrations).expect("server binds");
        let addr = server.local_addr().expect("bound address");
        let ready = ReadyCheck::detached("webhook-certificate");
        let (trigger, shutdown) = Shutdown::new();
        let task = tokio::spawn(server.run(ready.clone(), shutdown));
        let server = Self { addr, cert_dir, ca, ready, trigger, task };
        if cert_serial.is_some() {
            server.wait_ready().await;
        }
        server
    }

    /// Waits (at most 10s) until the server has loaded its certificate.
    pub async fn wait_ready(&self) {
        tokio::time::timeout(Duration::from_secs(10), async {
            while !self.ready.is_ready() {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .expect("server became ready");
    }

    /// POSTs `body` to `path` over a new TLS connection trusting only the test CA; returns the HTTP status, the
    /// response body and the served certificate.
    pub async fn post_raw(&self, path: &str, body: Vec<u8>) -> (StatusCode, Bytes, CertificateDer<'static>) {
        let mut roots = rustls::RootCertStore::empty();
        roots.add(self.ca.der.clone()).expect("CA trusted");
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("protocol versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let tcp = TcpStream::connect(self.addr).await.expect("connects");
        let server_name = "localhost".try_into().expect("server name");
        let tls = TlsConnector::from(Arc::new(config))
            .connect(server_name, tcp)
            .await
            .expect("TLS handshake with the test CA");
        let served = tls
            .get_ref()
            .1
            .peer_certificates()
            .and_then(|chain| chain.first())
            .expect("server certificate")
            .clone()
            .into_owned();
        let (mut sender, conn) =
            hyper::client::conn::http1::handshake(TokioIo::new(tls)).await.expect("HTTP handshake");
        tokio::spawn(conn);
        let request = Request::post(path)
            .header(header::HOST, "localhost")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body)))
            .expect("request");
        let response = sender.send_request(request).await.expect("response");
        let status = response.status();
        let bytes = response.into_body().collect().await.expect("body").to_bytes();
        (status, bytes, served)
    }

    /// POSTs `body` to `path`; asserts HTTP 200 (webhooks always answer 200) and returns the parsed JSON reply and
    /// the served certificate.
    pub async fn post(&self, path: &str, body: Vec<u8>) -> (Value, CertificateDer<'static>) {
        let (status, bytes, served) = self.post_raw(path, body).await;
        assert_eq!(status, 200, "webhooks always answer 200");
        let reply = serde_json::from_slice(&bytes).expect("JSON reply");
        (reply, served)
    }

    /// Sends `review` to `path`, printing the request/response pair; returns the reply.
    pub async fn review(&self, path: &str, review: &Value) -> Value {
        let (reply, _) = self.post(path, serde_json::to_vec(review).expect("json")).await;
        print_pair(path, &review.to_string(), &reply);
        reply
    }

    /// Stops the server and checks that it stopped cleanly and is no longer ready.
    pub async fn stop(self) {
        self.trigger.trigger();
        let result = tokio::time::timeout(Duration::from_secs(15), self.task)
            .await
            .expect("server stopped in time")
            .expect("server task");
        assert!(result.is_ok(), "server stopped cleanly: {result:?}");
        assert!(!self.ready.is_ready());
        let _ = std::fs::remove_dir_all(&self.cert_dir);
    }
}

/// Writes a PEM certificate and key as `tls.crt` / `tls.key` in `dir` (key first, as a rotation would).
pub fn write_cert(dir: &Path, (cert, key): &(String, String)) {
    std::fs::write(dir.join("tls.key"), key).expect("key written");
    std::fs::write(dir.join("tls.crt"), cert).expect("certificate written");
}

/// Prints one request/response pair.
pub fn print_pair(path: &str, request: &str, reply: &Value) {
    eprintln!("==> POST {path}\n    {request}");
    eprintln!("<== 200 OK\n    {reply}\n");
}

/// Serial and subject of a DER certificate.
pub fn describe(der: &CertificateDer<'_>) -> (String, String) {
    let (_, cert) = x509_parser::parse_x509_certificate(der.as_ref()).expect("X.509");
    (cert.raw_serial_as_string(), cert.subject().to_string())
}

/// The resource the API server sends `AdmissionReview`s about: its group/version/kind and group/version/resource.
pub struct Admission {
    kind: Value,
    resource: Value,
}

impl Admission {
    /// Reviews about the kind `kind` (`plural`) of `group`/`version`.
    pub fn new(group: &str, version: &str, kind: &str, plural: &str) -> Self {
        Self {
            kind: json!({"group": group, "version": version, "kind": kind}),
            resource: json!({"group": group, "version": version, "resource": plural}),
        }
    }

    /// An `AdmissionReview` as the API server sends it; `old_object` is `Value::Null` for CREATE and `object` for
    /// DELETE.
    pub fn review(&self, uid: &str, operation: &str, object: Value, old_object: Value) -> Value {
        let metadata = |field: &str| {
            let of = |obj: &Value| obj["metadata"][field].as_str().map(str::to_owned);
            of(&object).or_else(|| of(&old_object))
        };
        let (name, namespace) = (metadata("name"), metadata("namespace"));
        let options = match operation {
            "UPDATE" => "UpdateOptions",
            "DELETE" => "DeleteOptions",
            _ => "CreateOptions",
        };
        json!({
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "request": {
                "uid": uid,
                "kind": self.kind,
                "resource": self.resource,
                "requestKind": self.kind,
                "requestResource": self.resource,
                "name": name,
                "namespace": namespace,
                "operation": operation,
                "userInfo": {"username": "kubernetes-admin", "groups": ["system:masters", "system:authenticated"]},
                "object": object,
                "oldObject": old_object,
                "dryRun": false,
                "options": {"apiVersion": "meta.k8s.io/v1", "kind": options},
            },
        })
    }
}

/// The JSON Patch of an admission `response`. kube serializes `patch` (`Vec<u8>`) as a JSON array of bytes, which
/// Go's decoder accepts for `[]byte`.
pub fn patch_of(response: &Value) -> json_patch::Patch {
    let bytes: Vec<u8> = response["patch"]
        .as_array()
        .expect("patch bytes")
        .iter()
        .map(|b| u8::try_from(b.as_u64().expect("byte")).expect("byte"))
        .collect();
    let patch = serde_json::from_slice(&bytes).expect("JSON Patch");
    eprintln!("    decoded patch: {}\n", serde_json::to_string(&patch).unwrap_or_default());
    patch
}

/// A `ConversionReview` asking to convert `objects` to `desired` (`group/version`).
pub fn conversion_review(uid: &str, desired: &str, objects: Vec<Value>) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {"uid": uid, "desiredAPIVersion": desired, "objects": objects},
    })
}
