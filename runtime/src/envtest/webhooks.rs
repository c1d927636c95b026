//! The operator's webhook server (its `webhook::registrations`) on 127.0.0.1 for the whole test binary, with a
//! certificate of the envtest CA, so the API server calls it as a cluster would.

use super::control_plane::Ca;
use std::{
    net::SocketAddr,
    path::Path,
    sync::mpsc,
    time::{Duration, Instant},
};

use crate::manager::{Shutdown, health::ReadyCheck};
use crate::webhook::{ServeOptions, WebhookRegistration, WebhookServer};

/// Starts the webhook server in a thread of its own that lives as long as the test binary; `None` when the
/// operator has no webhooks.
pub fn serve(
    registrations: fn() -> Vec<WebhookRegistration>,
    ca: &Ca,
    dir: &Path,
) -> Result<Option<SocketAddr>, String> {
    if registrations().is_empty() {
        return Ok(None);
    }
    let cert_dir = dir.join("webhook-certs");
    let (cert, key) = ca
        .serving("webhook-service.system.svc")
        .map_err(|e| format!("making the webhook server's certificate: {e}"))?;
    std::fs::create_dir_all(&cert_dir).map_err(|e| format!("creating {}: {e}", cert_dir.display()))?;
    let opts = ServeOptions { cert_dir, ..ServeOptions::new(SocketAddr::from(([127, 0, 0, 1], 0))) };
    std::fs::write(opts.cert_file(), cert).map_err(|e| format!("writing the webhook certificate: {e}"))?;
    std::fs::write(opts.key_file(), key).map_err(|e| format!("writing the webhook key: {e}"))?;
    let (sent, received) = mpsc::channel();
    let ready = ReadyCheck::detached("webhook-certificate");
    let serving = ready.clone();
    std::thread::spawn(move || {
        let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
            Ok(runtime) => runtime,
            Err(e) => return sent.send(Err(format!("starting the webhook server's runtime: {e}"))),
        };
        let server = {
            let _entered = runtime.enter();
            WebhookServer::bind(opts, registrations())
        };
        let server = match server {
            Ok(server) => server,
            Err(e) => return sent.send(Err(format!("binding the webhook server: {e:#}"))),
        };
        let addr = server.local_addr().map_err(|e| e.to_string());
        let _ = sent.send(addr);
        // Never asked to stop: the server goes with the test binary.
        let (_trigger, shutdown) = Shutdown::new();
        let _ = runtime.block_on(server.run(serving, shutdown));
        Ok(())
    });
    let addr = received.recv().map_err(|_| "the webhook server's thread ended".to_string())??;
    let started = Instant::now();
    while !ready.is_ready() {
        if started.elapsed() > Duration::from_secs(10) {
            return Err("the webhook server did not load its certificate within 10s".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(Some(addr))
}
