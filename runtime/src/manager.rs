//! The manager: command-line `Options`, logging, controller `Registration`s, and `Manager::run`, which starts the
//! probe and metrics servers, the servers added with `Manager::with_server` (the webhook server, once there are
//! webhooks), leader election and the controllers (namespaced ones once per watched namespace), and shuts
//! everything down gracefully.
pub mod health;
pub mod leader;
pub mod metrics;
pub mod namespaces;

use anyhow::Context as _;
use axum_server::Handle;
use clap::{ArgAction, CommandFactory, FromArgMatches, Parser, ValueEnum};
use futures::future::BoxFuture;
use kube::{Api, Client, Resource};
pub use namespaces::{WatchNamespaces, parse_watch_namespaces};
use prometheus_client::registry::Registry;
use std::{
    future::Future,
    net::{SocketAddr, ToSocketAddrs},
    path::PathBuf,
    sync::Arc,
    time::Duration,
};
use tokio::{sync::watch, task::JoinSet};
use tracing::{error, info, warn};
use tracing_subscriber::EnvFilter;

use crate::Operator;

/// Default port of the webhook server (`--webhook-port`).
pub const DEFAULT_WEBHOOK_PORT: u16 = 9443;
/// Default directory of the webhook server's certificate (`--webhook-cert-path`), where cert-manager's secret is
/// mounted.
pub const DEFAULT_WEBHOOK_CERT_DIR: &str = "/tmp/k8s-webhook-server/serving-certs";
/// Default name of the webhook server's certificate file (`--webhook-cert-name`).
pub const DEFAULT_WEBHOOK_CERT_NAME: &str = "tls.crt";
/// Default name of the webhook server's private key file (`--webhook-cert-key`).
pub const DEFAULT_WEBHOOK_KEY_NAME: &str = "tls.key";

/// How long controllers and servers get to finish in-flight work after shutdown was requested.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(30);

/// Service-account namespace file mounted into every pod.
const SERVICE_ACCOUNT_NAMESPACE: &str = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

/// Command-line options of the manager, with the names and defaults of kubebuilder's `cmd/main.go`.
///
/// Parse them with [`Options::parse_for`], which names the command after the [`Operator`] and takes its default
/// Lease name:
///
/// ```no_run
/// # const OPERATOR: kubesmith_runtime::Operator = kubesmith_runtime::operator!("87a7d51f.example.com");
/// let opts = kubesmith_runtime::manager::Options::parse_for(&OPERATOR);
/// ```
#[derive(Clone, Debug, Parser)]
pub struct Options {
    /// Address the metrics endpoint binds to, e.g. `:8443` (all interfaces) or `127.0.0.1:8080`; `0` disables it.
    #[arg(long, value_name = "ADDR", default_value = "0", value_parser = parse_bind_address)]
    pub metrics_bind_address: BindAddress,

    /// Address the health probe endpoint (/healthz, /readyz) binds to; `0` disables it.
    #[arg(long, value_name = "ADDR", default_value = ":8081", value_parser = parse_bind_address)]
    pub health_probe_bind_address: BindAddress,

    /// Enable leader election, ensuring only one active controller manager.
    #[arg(long, value_name = "BOOL", default_value_t = false, action = ArgAction::Set,
          num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub leader_elect: bool,

    /// Name of the Lease used for leader election.
    #[arg(long, value_name = "NAME", default_value = "")]
    pub leader_election_id: String,

    /// Namespace of the leader election Lease [default: the pod's service-account namespace, else `default`].
    #[arg(long, value_name = "NAMESPACE", env = "POD_NAMESPACE")]
    pub leader_election_namespace: Option<String>,

    /// Serve metrics over HTTPS and require a bearer token allowed to `get` the `/metrics` non-resource URL;
    /// `--metrics-secure=false` serves plain HTTP without authentication.
    #[arg(long, value_name = "BOOL", default_value_t = true, action = ArgAction::Set,
          num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub metrics_secure: bool,

    /// Directory containing `tls.crt` and `tls.key` for the metrics server [default: generate a self-signed certificate].
    #[arg(long, value_name = "DIR")]
    pub metrics_cert_path: Option<PathBuf>,

    /// Port the webhook server listens on (all interfaces); it runs only when webhooks are registered.
    #[arg(long, value_name = "PORT", default_value_t = DEFAULT_WEBHOOK_PORT)]
    pub webhook_port: u16,

    /// Directory containing the webhook server's certificate and key; changed files are reloaded.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_WEBHOOK_CERT_DIR)]
    pub webhook_cert_path: PathBuf,

    /// Name of the webhook server's certificate file in `--webhook-cert-path`.
    #[arg(long, value_name = "FILE", default_value = DEFAULT_WEBHOOK_CERT_NAME)]
    pub webhook_cert_name: String,

    /// Name of the webhook server's private key file in `--webhook-cert-path`.
    #[arg(long, value_name = "FILE", default_value = DEFAULT_WEBHOOK_KEY_NAME)]
    pub webhook_cert_key: String,

    /// Namespaces the controllers watch, comma-separated; empty watches every namespace. The manager's RBAC must
    /// grant access in each (a Role per namespace, or the ClusterRole).
    #[arg(long, value_name = "NS[,NS...]", env = "WATCH_NAMESPACE", default_value = "",
          value_parser = parse_watch_namespaces)]
    pub watch_namespace: WatchNamespaces,

    /// Log output format.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Log level or filter directives (e.g. `debug` or `info,kube=debug`).
    #[arg(long, value_name = "FILTER", env = "RUST_LOG", default_value = "info")]
    pub log_level: String,
}

impl Options {
    /// The options of `operator`'s command line (`std::env::args`); prints the help, the version or the usage
    /// error and exits when the command line asks for it or is wrong.
    pub fn parse_for(operator: &Operator) -> Self {
        Self::try_parse_for(operator, std::env::args_os()).unwrap_or_else(|err| err.exit())
    }

    /// The options of the command line `args` (the command's name first) of `operator`: the command is named after
    /// it and `--leader-election-id` defaults to its Lease.
    pub fn try_parse_for<I, T>(operator: &Operator, args: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let command = Self::command()
            .name(operator.name)
            .bin_name(operator.name)
            .version(operator.version)
            .about(operator.about)
            .mut_arg("leader_election_id", |arg| arg.default_value(operator.leader_election_id));
        Self::from_arg_matches(&command.try_get_matches_from(args)?)
    }

    /// The namespace of the leader election Lease: the flag, `POD_NAMESPACE`, the service-account namespace, or `default`.
    pub fn leader_election_namespace(&self) -> String {
        self.leader_election_namespace
            .clone()
            .or_else(|| std::fs::read_to_string(SERVICE_ACCOUNT_NAMESPACE).ok())
            .map(|ns| ns.trim().to_string())
            .filter(|ns| !ns.is_empty())
            .unwrap_or_else(|| "default".into())
    }
}

/// Log output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// A listen address; `None` disables the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BindAddress(pub Option<SocketAddr>);

/// Parses `0` (disabled), `:PORT` (all interfaces), `IP:PORT` or `HOST:PORT`.
pub fn parse_bind_address(value: &str) -> Result<BindAddress, String> {
    let value = value.trim();
    if value.is_empty() || value == "0" {
        return Ok(BindAddress(None));
    }
    if let Some(port) = value.strip_prefix(':') {
        let port: u16 = port.parse().map_err(|_| format!("invalid port in {value:?}"))?;
        return Ok(BindAddress(Some(SocketAddr::from(([0, 0, 0, 0], port)))));
    }
    if let Ok(addr) = value.parse::<SocketAddr>() {
        return Ok(BindAddress(Some(addr)));
    }
    value
        .to_socket_addrs()
        .map_err(|err| format!("invalid address {value:?}: {err}"))?
        .next()
        .map(|addr| BindAddress(Some(addr)))
        .ok_or_else(|| format!("address {value:?} resolved to nothing"))
}

/// Installs the global tracing subscriber (text or JSON, filtered by `--log-level` / `RUST_LOG`).
pub fn init_logging(opts: &Options) -> anyhow::Result<()> {
    let filter = EnvFilter::try_new(&opts.log_level).context("invalid --log-level")?;
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    match opts.log_format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).with_current_span(false).try_init(),
    }
    .map_err(|err| anyhow::anyhow!(err))
}

/// Resolves once shutdown has been requested; cheap to clone.
#[derive(Clone, Debug)]
pub struct Shutdown(watch::Receiver<bool>);

impl Shutdown {
    /// A shutdown signal and the trigger that fires it.
    pub fn new() -> (ShutdownTrigger, Shutdown) {
        let (tx, rx) = watch::channel(false);
        (ShutdownTrigger(Arc::new(tx)), Shutdown(rx))
    }

    /// Waits until shutdown is requested (or the trigger is gone).
    pub async fn wait(mut self) {
        // Err means the trigger was dropped, which also means shutting down.
        let _ = self.0.wait_for(|requested| *requested).await;
    }

    /// Whether shutdown has been requested.
    pub fn is_requested(&self) -> bool {
        *self.0.borrow()
    }
}

/// Fires the [`Shutdown`] signal.
#[derive(Clone, Debug)]
pub struct ShutdownTrigger(Arc<watch::Sender<bool>>);

impl ShutdownTrigger {
    /// Requests shutdown (idempotent).
    pub fn trigger(&self) {
        self.0.send_replace(true);
    }
}

/// What the manager hands to each controller when starting it.
#[derive(Clone)]
pub struct Runtime {
    /// The operator's name: the field manager of its server-side applies and the reporter of its events.
    pub field_manager: &'static str,
    /// The name of the controller being started (its registration's): the label of its metrics and logs.
    pub controller: &'static str,
    /// Kubernetes client.
    pub client: Client,
    /// Shared reconcile metrics (registered in the `/metrics` registry).
    pub metrics: Arc<metrics::Metrics>,
    /// Fires when the controller must stop (pass to `Controller::graceful_shutdown_on`).
    pub shutdown: Shutdown,
    /// The namespace a namespaced controller watches; `None`: every namespace.
    pub namespace: Option<String>,
}

impl Runtime {
    /// The API of a namespaced kind within this controller's scope: its namespace, or every namespace.
    pub fn api<K>(&self) -> Api<K>
    where
        K: Resource<Scope = k8s_openapi::NamespaceResourceScope>,
        K::DynamicType: Default,
    {
        match &self.namespace {
            Some(namespace) => Api::namespaced(self.client.clone(), namespace),
            None => Api::all(self.client.clone()),
        }
    }
}

type StartFn = Arc<dyn Fn(Runtime) -> BoxFuture<'static, ()> + Send + Sync>;

/// A named controller the manager starts once it may reconcile (after leader election, if enabled).
///
/// Each controller module exposes `registration()`; `main` lists them, one per line.
pub struct Registration {
    name: &'static str,
    start: StartFn,
    namespaced: bool,
}

impl Registration {
    /// Registers the controller `name` of a cluster-scoped kind, started once and run by `start` until its
    /// `Runtime::shutdown` fires.
    pub fn new<F, Fut>(name: &'static str, start: F) -> Self
    where
        F: Fn(Runtime) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        Self { name, start: Arc::new(move |runtime| Box::pin(start(runtime))), namespaced: false }
    }

    /// Registers the controller `name` of a namespaced kind: started once per watched namespace (`--watch-namespace`),
    /// with that namespace in `Runtime::namespace`, or once for every namespace.
    pub fn namespaced<F, Fut>(name: &'static str, start: F) -> Self
    where
        F: Fn(Runtime) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        Self { namespaced: true, ..Self::new(name, start) }
    }

    /// The controller's name.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// Starts every controller in `running`: a namespaced one once per scope of `watch`, the others once.
fn start_controllers(
    controllers: &[Registration],
    runtime: &Runtime,
    watch: &WatchNamespaces,
    running: &mut JoinSet<()>,
) {
    for controller in controllers {
        let scopes = if controller.namespaced { watch.scopes() } else { vec![None] };
        for namespace in scopes {
            let runtime = Runtime { controller: controller.name, namespace, ..runtime.clone() };
            running.spawn((controller.start)(runtime));
        }
    }
}

/// A server that every replica runs (leader or not) beside the probe and metrics servers, such as the webhook
/// server: given the manager's options, its readiness and the shutdown signal, it binds and returns the future
/// that serves until shutdown, or `None` when it has nothing to serve. See [`Manager::with_server`].
pub type Server = Box<dyn FnOnce(ServerContext<'_>) -> anyhow::Result<Option<ServerFuture>> + Send>;

/// A running [`Server`]: ends when the manager shuts down (`Ok`) or the server fails (`Err`).
pub type ServerFuture = BoxFuture<'static, anyhow::Result<()>>;

/// What [`Manager::run`] gives each [`Server`] it starts.
pub struct ServerContext<'a> {
    /// The manager's options (the server's own flags among them).
    pub opts: &'a Options,
    /// The manager's readiness: a server adds a check of its own (`/readyz` fails until it passes).
    pub readiness: &'a health::Readiness,
    /// Resolves when the manager shuts down; the server then stops gracefully.
    pub shutdown: Shutdown,
}

/// Runs controllers with probes, metrics, leader election and graceful shutdown.
pub struct Manager {
    operator: Operator,
    opts: Options,
    servers: Vec<Server>,
}

impl Manager {
    /// The manager of `operator`, configured by `opts`.
    pub fn new(operator: Operator, opts: Options) -> Self {
        Self { operator, opts, servers: Vec::new() }
    }

    /// Adds a server that every replica runs from start to shutdown, leader or not (`main.rs` adds the webhook
    /// server this way); a server that fails stops the manager.
    pub fn with_server(mut self, server: Server) -> Self {
        self.servers.push(server);
        self
    }

    /// Runs until SIGTERM/ctrl-c (returns `Ok`) or a fatal error such as lost leadership (returns `Err`).
    pub async fn run(mut self, controllers: Vec<Registration>) -> anyhow::Result<()> {
        metrics::install_crypto_provider();
        let (trigger, shutdown) = Shutdown::new();
        tokio::spawn(shutdown_on_signal(trigger.clone()));

        let client = Client::try_default().await.context("building the Kubernetes client")?;
        let version = client.apiserver_version().await.context("contacting the Kubernetes API server")?;
        info!(version = %version.git_version, "connected to the API server");

        let mut registry = Registry::default();
        let metrics = Arc::new(metrics::Metrics::new(&mut registry));
        let readiness = health::Readiness::default();
        let server_handle = Handle::<SocketAddr>::new();
        let mut servers: JoinSet<anyhow::Result<()>> = JoinSet::new();
        if let BindAddress(Some(addr)) = self.opts.health_probe_bind_address {
            servers.spawn(health::serve(addr, readiness.clone(), server_handle.clone()));
        }
        if let BindAddress(Some(addr)) = self.opts.metrics_bind_address {
            let serve = metrics::ServeOptions {
                addr,
                secure: self.opts.metrics_secure,
                cert_path: self.opts.metrics_cert_path.clone(),
            };
            servers.spawn(metrics::serve(serve, Arc::new(registry), client.clone(), server_handle.clone()));
        }
        for server in std::mem::take(&mut self.servers) {
            let context = ServerContext { opts: &self.opts, readiness: &readiness, shutdown: shutdown.clone() };
            if let Some(serving) = server(context)? {
                servers.spawn(serving);
            }
        }
        // Ready: the client works; a replica waiting for leadership is ready too (it is a healthy standby).
        readiness.set(true);

        let elector = self.opts.leader_elect.then(|| {
            leader::LeaderElector::new(
                client.clone(),
                &self.opts.leader_election_namespace(),
                &self.opts.leader_election_id,
                leader::default_identity(),
            )
        });

        let mut outcome = Ok(());
        let mut running = JoinSet::new();
        let leading = match &elector {
            Some(elector) => tokio::select! {
                acquired = elector.acquire(&shutdown) => acquired,
                Some(result) = servers.join_next() => {
                    outcome = server_exit(result, &shutdown);
                    false
                }
            },
            None => true,
        };
        if leading {
            // Each controller gets its own name (and namespace) in `start_controllers`.
            let runtime = Runtime {
                field_manager: self.operator.name,
                controller: "manager",
                client,
                metrics,
                shutdown: shutdown.clone(),
                namespace: None,
            };
            info!(namespaces = %self.opts.watch_namespace, "starting controllers");
            start_controllers(&controllers, &runtime, &self.opts.watch_namespace, &mut running);
            let hold = async {
                match &elector {
                    Some(elector) => elector.hold().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                () = shutdown.clone().wait() => {}
                lost = hold => outcome = Err(lost),
                Some(result) = servers.join_next() => outcome = server_exit(result, &shutdown),
            }
        }

        info!("shutting down");
        trigger.trigger();
        if tokio::time::timeout(SHUTDOWN_TIMEOUT, async { while running.join_next().await.is_some() {} }).await.is_err()
        {
            warn!("controllers did not stop within {}s", SHUTDOWN_TIMEOUT.as_secs());
        }
        readiness.set(false);
        server_handle.graceful_shutdown(Some(Duration::from_secs(5)));
        while let Some(result) = servers.join_next().await {
            if let Ok(Err(err)) = result {
                warn!(error = %err, "server stopped with an error");
            }
        }
        if let Some(elector) = &elector
            && outcome.is_ok()
            && let Err(err) = elector.release().await
        {
            warn!(identity = elector.identity(), error = %err, "releasing the lease failed");
        }
        match &outcome {
            Ok(()) => info!("shutdown complete"),
            Err(err) => error!(error = %err, "manager stopped"),
        }
        outcome
    }
}

/// The outcome of a server task that ended: fine only if it stopped because shutdown was requested.
fn server_exit(result: Result<anyhow::Result<()>, tokio::task::JoinError>, shutdown: &Shutdown) -> anyhow::Result<()> {
    match result {
        Ok(Ok(())) if shutdown.is_requested() => Ok(()),
        Ok(Ok(())) => Err(anyhow::anyhow!("server stopped unexpectedly")),
        Ok(Err(err)) => Err(err),
        Err(err) => Err(anyhow::Error::new(err).context("server task failed")),
    }
}

/// Requests shutdown on the first SIGTERM/ctrl-c; exits immediately on the second.
async fn shutdown_on_signal(trigger: ShutdownTrigger) {
    wait_for_signal().await;
    info!("signal received, shutting down gracefully (send again to force)");
    trigger.trigger();
    wait_for_signal().await;
    error!("second signal received, exiting immediately");
    std::process::exit(1);
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut sigterm) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = sigterm.recv() => {}
                }
            }
            Err(err) => {
                warn!(error = %err, "cannot listen for SIGTERM; only ctrl-c triggers shutdown");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The operator the manager's tests run.
    const OPERATOR: Operator = Operator {
        name: "memcached-operator",
        version: "1.2.3",
        about: "Memcached Operator: a Kubernetes operator built with kube-rs",
        leader_election_id: "87a7d51f.example.com",
    };

    fn addr(s: &str) -> Option<SocketAddr> {
        parse_bind_address(s).expect("valid address").0
    }

    #[test]
    fn bind_addresses() {
        assert_eq!(addr("0"), None);
        assert_eq!(addr(":8081"), Some(SocketAddr::from(([0, 0, 0, 0], 8081))));
        assert_eq!(addr("127.0.0.1:8443"), Some(SocketAddr::from(([127, 0, 0, 1], 8443))));
        assert_eq!(addr("[::1]:8443"), "[::1]:8443".parse().ok());
        assert!(addr("localhost:8080").is_some_and(|a| a.port() == 8080));
        assert!(parse_bind_address(":http").is_err());
        assert!(parse_bind_address("nonsense").is_err());
    }

    #[test]
    fn defaults_match_kubebuilder() {
        let opts = Options::try_parse_for(&OPERATOR, ["memcached-operator"]).expect("defaults parse");
        assert_eq!(opts.metrics_bind_address, BindAddress(None));
        assert_eq!(opts.health_probe_bind_address, BindAddress(addr(":8081")));
        assert!(!opts.leader_elect);
        assert!(opts.metrics_secure);
        assert_eq!(opts.leader_election_id, OPERATOR.leader_election_id);
        assert_eq!(opts.log_format, LogFormat::Text);
        assert_eq!(opts.webhook_port, 9443);
        assert_eq!(opts.webhook_cert_path, PathBuf::from("/tmp/k8s-webhook-server/serving-certs"));
        assert_eq!(opts.webhook_cert_name, "tls.crt");
        assert_eq!(opts.webhook_cert_key, "tls.key");
        assert!(opts.watch_namespace.is_all());
    }

    #[test]
    fn watch_namespace_flag_parses_a_list() {
        let opts =
            Options::try_parse_from([env!("CARGO_PKG_NAME"), "--watch-namespace=team-a,team-b"]).expect("flags parse");
        assert_eq!(opts.watch_namespace.scopes(), [Some("team-a".to_string()), Some("team-b".to_string())]);
        assert!(Options::try_parse_from([env!("CARGO_PKG_NAME"), "--watch-namespace=Team_A"]).is_err());
    }

    /// Starts `controllers` over a mocked API server watching `watch`; each lists ConfigMaps in its scope once.
    /// Returns the paths listed, sorted.
    async fn listed_paths(watch: &str, namespaced: bool) -> Vec<String> {
        use k8s_openapi::api::core::v1::ConfigMap;
        let (runtime, mut server, _trigger) = crate::testing::runtime("lister", None);
        let list = |runtime: Runtime| async move {
            let api: Api<ConfigMap> = runtime.api();
            api.list(&Default::default()).await.expect("list answered");
        };
        let controllers = vec![if namespaced {
            Registration::namespaced("lister", list)
        } else {
            Registration::new("lister", |runtime: Runtime| async move {
                let api: Api<ConfigMap> = Api::all(runtime.client);
                api.list(&Default::default()).await.expect("list answered");
            })
        }];
        let watch = parse_watch_namespaces(watch).expect("valid namespaces");
        let mut running = JoinSet::new();
        start_controllers(&controllers, &runtime, &watch, &mut running);
        drop(runtime);
        let mut paths = Vec::new();
        let starts = if namespaced { watch.scopes().len() } else { 1 };
        for _ in 0..starts {
            let request = server.next().await;
            paths.push(request.path.clone());
            request.respond(&serde_json::json!({
                "apiVersion": "v1", "kind": "ConfigMapList", "metadata": {}, "items": [],
            }));
        }
        while let Some(result) = running.join_next().await {
            result.expect("controller task finished");
        }
        server.expect_done().await;
        paths.sort();
        paths
    }

    #[tokio::test]
    async fn namespaced_controllers_list_only_in_the_watched_namespaces() {
        assert_eq!(
            listed_paths("team-b,team-a", true).await,
            ["/api/v1/namespaces/team-a/configmaps", "/api/v1/namespaces/team-b/configmaps"]
        );
        assert_eq!(listed_paths("", true).await, ["/api/v1/configmaps"]);
        // A controller registered with `Registration::new` (a cluster-scoped kind) starts once, whatever is watched.
        assert_eq!(listed_paths("team-a,team-b", false).await, ["/api/v1/configmaps"]);
    }

    #[test]
    fn webhook_flags_parse() {
        let opts = Options::try_parse_from([
            env!("CARGO_PKG_NAME"),
            "--webhook-port=10443",
            "--webhook-cert-path=/certs",
            "--webhook-cert-name=cert.pem",
            "--webhook-cert-key=key.pem",
        ])
        .expect("flags parse");
        assert_eq!(opts.webhook_port, 10443);
        assert_eq!(opts.webhook_cert_path, PathBuf::from("/certs"));
        assert_eq!(opts.webhook_cert_name, "cert.pem");
        assert_eq!(opts.webhook_cert_key, "key.pem");
    }

    #[test]
    fn a_server_stopping_after_shutdown_is_not_an_error() {
        let (trigger, shutdown) = Shutdown::new();
        assert!(server_exit(Ok(Ok(())), &shutdown).is_err());
        trigger.trigger();
        assert!(server_exit(Ok(Ok(())), &shutdown).is_ok());
        assert!(server_exit(Ok(Err(anyhow::anyhow!("bind failed"))), &shutdown).is_err());
    }

    #[test]
    fn boolean_flags_accept_go_style_values() {
        let opts = Options::try_parse_from([
            env!("CARGO_PKG_NAME"),
            "--leader-elect",
            "--metrics-secure=false",
            "--metrics-bind-address=:8443",
            "--log-format=json",
        ])
        .expect("flags parse");
        assert!(opts.leader_elect);
        assert!(!opts.metrics_secure);
        assert_eq!(opts.metrics_bind_address, BindAddress(addr(":8443")));
        assert_eq!(opts.log_format, LogFormat::Json);
    }

    #[test]
    fn the_command_is_the_operators_with_its_lease() {
        let opts = Options::try_parse_for(&OPERATOR, ["memcached-operator"]).expect("defaults parse");
        assert_eq!(opts.leader_election_id, "87a7d51f.example.com");
        let opts = Options::try_parse_for(&OPERATOR, ["memcached-operator", "--leader-election-id=other.example.com"])
            .expect("flags parse");
        assert_eq!(opts.leader_election_id, "other.example.com");
        let help =
            Options::try_parse_for(&OPERATOR, ["memcached-operator", "--help"]).expect_err("--help exits").to_string();
        assert!(help.contains("Usage: memcached-operator"), "{help}");
        assert!(help.contains("[default: 87a7d51f.example.com]"), "{help}");
        let version = Options::try_parse_for(&OPERATOR, ["memcached-operator", "--version"])
            .expect_err("--version exits")
            .to_string();
        assert_eq!(version.trim(), "memcached-operator 1.2.3");
    }

    #[tokio::test]
    async fn shutdown_signal_reaches_all_clones() {
        let (trigger, shutdown) = Shutdown::new();
        let waiter = tokio::spawn(shutdown.clone().wait());
        assert!(!shutdown.is_requested());
        trigger.trigger();
        tokio::time::timeout(Duration::from_secs(1), waiter)
            .await
            .expect("shutdown observed")
            .expect("waiter finished");
        assert!(shutdown.is_requested());
    }
}
