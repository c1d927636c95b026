//! Tests against a real Kubernetes API server, as controller-runtime's envtest: etcd and kube-apiserver from
//! `KUBEBUILDER_ASSETS`, started once per test binary, with the project's CRDs (`config/crd/bases`), the manager's
//! RBAC (`config/rbac`) and webhooks (`config/webhook`, served by the operator's own webhook server on
//! 127.0.0.1). Controllers run in-process as the manager's ServiceAccount; a request the API server forbids them
//! fails the test, naming the missing rule. Feature `testing`.
//!
//! Without the binaries the tests skip, saying how to get them (`kubesmith envtest use`);
//! `KUBESMITH_REQUIRE_CONTROL_PLANE=1` makes a missing control plane a failure.
//!
//! ```no_run
//! use kubesmith_runtime::envtest::{self, Project};
//!
//! const OPERATOR: kubesmith_runtime::Operator = kubesmith_runtime::operator!("87a7d51f.example.com");
//!
//! # async fn test() {
//! let project = Project { root: env!("CARGO_MANIFEST_DIR"), operator: OPERATOR, webhooks: Vec::new };
//! let Some(env) = envtest::env(&project) else { return }; // no control plane: skipped
//! let client = env.admin();
//! # }
//! ```

mod control_plane;
mod forbidden;
mod manifests;
#[cfg(feature = "webhook")]
mod webhooks;

pub use forbidden::Forbidden;
pub use manifests::{documents, ensure_namespace, project_root};

use control_plane::{ControlPlane, Unavailable};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::{
    Api, Client, Resource, ResourceExt,
    api::{DeleteParams, PostParams},
    client::ClientBuilder,
};
use prometheus_client::registry::Registry;
use serde::{Serialize, de::DeserializeOwned};
use std::{
    future::Future,
    io::Write,
    sync::{
        Arc, Once, OnceLock,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};
use tokio::task::JoinHandle;

use crate::{
    Operator,
    manager::{self, Runtime, Shutdown, ShutdownTrigger},
};

/// The project a test binary runs against: where its `config/` is, who its operator is, and its webhooks.
#[derive(Clone, Copy, Debug)]
pub struct Project {
    /// The project's folder: `env!("CARGO_MANIFEST_DIR")` in its tests.
    pub root: &'static str,
    /// The operator: the controllers [`Env::run`] starts apply as its field manager.
    pub operator: Operator,
    /// Its webhooks (its `webhook::registrations`), served on 127.0.0.1 for the API server; `Vec::new` when it has
    /// none.
    #[cfg(feature = "webhook")]
    pub webhooks: fn() -> Vec<crate::webhook::WebhookRegistration>,
}

static PROJECT: OnceLock<Project> = OnceLock::new();

/// The project the first [`env`] call named.
fn project() -> &'static Project {
    PROJECT.get().expect("envtest::env(&project) runs before anything reads the project's config/")
}

/// Set to `1` to make a missing control plane fail the tests instead of skipping them (CI does).
pub const REQUIRE_ENV: &str = "KUBESMITH_REQUIRE_CONTROL_PLANE";
/// The manager's ServiceAccount as `config/rbac/service_account.yaml` names it (before kustomize's prefix).
pub const SERVICE_ACCOUNT: &str = "controller-manager";
/// How long [`eventually`] waits.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// The control plane of this test binary, with the project's manifests installed.
pub struct Env {
    control_plane: ControlPlane,
    /// The namespace the manager runs in (`<project>-system`).
    pub manager_namespace: String,
}

static ENV: OnceLock<Result<Env, Unavailable>> = OnceLock::new();

/// The control plane with `project`'s manifests installed, started on first use (the first call's project is the
/// test binary's); `None` (after one line on stderr saying how to get the binaries) when there are none and
/// [`REQUIRE_ENV`] is not set. Panics when it cannot start.
pub fn env(project: &Project) -> Option<&'static Env> {
    PROJECT.get_or_init(|| *project);
    // The controllers' logs, shown with a failing test's output (`RUST_LOG` filters them; default: info).
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_test_writer().try_init();
    let env = ENV.get_or_init(|| {
        // Its own thread: setting up runs a runtime of its own, which cannot nest in the test's.
        std::thread::spawn(Env::start)
            .join()
            .unwrap_or_else(|_| Err(Unavailable::Failed("starting the control plane panicked".into())))
    });
    match env {
        Ok(env) => {
            static SAID: Once = Once::new();
            // Straight to stderr, so a passing run says which API server it ran against.
            SAID.call_once(|| {
                let _ = writeln!(
                    std::io::stderr(),
                    "envtest: {} from {}",
                    env.control_plane.version,
                    env.control_plane.assets.display()
                );
            });
            Some(env)
        }
        Err(Unavailable::NoAssets(why)) if std::env::var(REQUIRE_ENV).as_deref() != Ok("1") => {
            static SAID: Once = Once::new();
            // Straight to stderr: `cargo test` shows no output of passing tests.
            SAID.call_once(|| {
                let _ = writeln!(std::io::stderr(), "envtest: skipping the control-plane tests: {why}");
            });
            None
        }
        Err(Unavailable::NoAssets(why)) => panic!("{REQUIRE_ENV}=1 but {why}"),
        Err(Unavailable::Failed(why)) => panic!("the control plane did not start: {why}"),
    }
}

impl Env {
    fn start() -> Result<Self, Unavailable> {
        let control_plane = ControlPlane::start()?;
        let failed = Unavailable::Failed;
        let manager_namespace = manifests::manager_namespace();
        #[cfg(feature = "webhook")]
        let webhook = webhooks::serve(project().webhooks, &control_plane.ca, &control_plane.dir).map_err(failed)?;
        #[cfg(not(feature = "webhook"))]
        let webhook: Option<std::net::SocketAddr> = None;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| failed(format!("starting a runtime: {e}")))?;
        runtime
            .block_on(async {
                let client = Client::try_from(control_plane.config()).map_err(|e| e.to_string())?;
                let conversion = webhook.map(|addr| (addr, control_plane.ca.pem.as_str()));
                manifests::install_crds(&client, conversion).await?;
                manifests::apply_rbac(&client, &manager_namespace).await?;
                if let Some(addr) = webhook {
                    manifests::register_webhooks(&client, addr, &control_plane.ca.pem).await?;
                }
                Ok::<_, String>(())
            })
            .map_err(failed)?;
        Ok(Self { control_plane, manager_namespace })
    }

    /// `kube-apiserver --version` of the running control plane.
    pub fn version(&self) -> &str {
        &self.control_plane.version
    }

    /// A client with the admin's rights (the test's own view; not the operator's).
    pub fn admin(&self) -> Client {
        Client::try_from(self.control_plane.config()).expect("admin client")
    }

    /// A client acting as the manager's ServiceAccount (impersonated), recording what it is forbidden.
    pub fn manager(&self, forbidden: &Forbidden) -> Client {
        let (namespace, name) = (&self.manager_namespace, SERVICE_ACCOUNT);
        let mut config = self.control_plane.config();
        config.auth_info.impersonate = Some(format!("system:serviceaccount:{namespace}:{name}"));
        config.auth_info.impersonate_groups = Some(vec![
            "system:serviceaccounts".into(),
            format!("system:serviceaccounts:{namespace}"),
            "system:authenticated".into(),
        ]);
        ClientBuilder::try_from(config).expect("manager client").with_layer(forbidden).build()
    }

    /// The conversion strategy of the installed CRD `name` (`None` or `Webhook`).
    pub async fn conversion_strategy(&self, name: &str) -> String {
        let crds: Api<CustomResourceDefinition> = Api::all(self.admin());
        let crd = crds.get(name).await.expect("the CRD is installed");
        crd.spec.conversion.map(|c| c.strategy).unwrap_or_default()
    }

    /// The namespace a test of a namespaced kind works in: a new one named after `prefix`, so concurrent tests
    /// keep apart; the manager's own when its role is a Role (a namespace-scoped manager watches only there).
    pub async fn namespace(&self, prefix: &str) -> String {
        if let Some(namespace) = manifests::manager_role_namespace() {
            return namespace;
        }
        static NEXT: AtomicUsize = AtomicUsize::new(1);
        let name = format!("{prefix}-{}", NEXT.fetch_add(1, Ordering::Relaxed));
        ensure_namespace(&self.admin(), &name).await.expect("namespace created");
        name
    }

    /// Runs a controller's `run` in this process as the manager's ServiceAccount, watching `namespace` (`None`:
    /// every namespace), until [`Running::stop`].
    pub fn run<F, Fut>(&self, controller: &'static str, run: F, namespace: Option<&str>) -> Running
    where
        F: FnOnce(Runtime) -> Fut,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let forbidden = Forbidden::default();
        let (trigger, shutdown) = Shutdown::new();
        let runtime = Runtime {
            field_manager: project().operator.name,
            controller,
            client: self.manager(&forbidden),
            metrics: Arc::new(manager::metrics::Metrics::new(&mut Registry::default())),
            shutdown,
            namespace: namespace.map(str::to_string),
        };
        Running { controller, task: tokio::spawn(run(runtime)), trigger, forbidden }
    }
}

/// A controller running against the control plane.
pub struct Running {
    controller: &'static str,
    task: JoinHandle<()>,
    trigger: ShutdownTrigger,
    forbidden: Forbidden,
}

impl Running {
    /// Polls `probe` until it gives a value (at most [`TIMEOUT`]); fails at once when the controller was
    /// forbidden anything, and with `what` when time runs out.
    pub async fn until<T, Fut>(&self, what: &str, mut probe: impl FnMut() -> Fut) -> T
    where
        Fut: Future<Output = Option<T>>,
    {
        let started = Instant::now();
        loop {
            self.forbidden.assert_none(self.controller);
            if let Some(value) = probe().await {
                return value;
            }
            assert!(
                started.elapsed() < TIMEOUT,
                "{}: timed out after {}s waiting for {what}",
                self.controller,
                TIMEOUT.as_secs()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Stops the controller (it must stop within 10s) and fails if it was forbidden anything.
    pub async fn stop(self) {
        self.trigger.trigger();
        tokio::time::timeout(Duration::from_secs(10), self.task)
            .await
            .expect("the controller stops on shutdown")
            .expect("the controller does not panic");
        self.forbidden.assert_none(self.controller);
    }
}

/// Polls `probe` until it gives a value; fails with `what` after [`TIMEOUT`].
pub async fn eventually<T, Fut>(what: &str, mut probe: impl FnMut() -> Fut) -> T
where
    Fut: Future<Output = Option<T>>,
{
    let started = Instant::now();
    loop {
        if let Some(value) = probe().await {
            return value;
        }
        assert!(started.elapsed() < TIMEOUT, "timed out after {}s waiting for {what}", TIMEOUT.as_secs());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Creates objects `make` makes in `api` until what the API server stores satisfies `done`, and returns it: a
/// webhook configuration reaches the API server's admission chain a moment after it is registered, so an object
/// created before the webhook was called is deleted and made again.
pub async fn create_until<K>(api: &Api<K>, make: impl Fn() -> K, done: impl Fn(&K) -> bool) -> K
where
    K: Resource + Clone + DeserializeOwned + Serialize + std::fmt::Debug,
{
    eventually("the webhook applied by the API server", || async {
        let created = api.create(&PostParams::default(), &make()).await.expect("the API server admits the object");
        if done(&created) {
            return Some(created);
        }
        let _ = api.delete(&created.name_any(), &DeleteParams::default()).await;
        None
    })
    .await
}

/// The message the API server refuses an object `make` makes with, once the webhooks are called (an object
/// admitted before is deleted and made again).
pub async fn refusal<K>(api: &Api<K>, make: impl Fn() -> K) -> String
where
    K: Resource + Clone + DeserializeOwned + Serialize + std::fmt::Debug,
{
    eventually("the webhook's refusal", || async {
        match api.create(&PostParams::default(), &make()).await {
            Err(kube::Error::Api(status)) => Some(status.message),
            Err(other) => panic!("the API server failed: {other}"),
            Ok(created) => {
                let _ = api.delete(&created.name_any(), &DeleteParams::default()).await;
                None
            }
        }
    })
    .await
}

/// The object of `config/samples/<file>`.
pub fn sample<K: DeserializeOwned>(file: &str) -> K {
    let path = project_root().join("config/samples").join(file);
    let doc = documents(&path)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("{} holds no object", path.display()));
    serde_json::from_value(doc).unwrap_or_else(|e| panic!("{} is no valid object: {e}", path.display()))
}

/// Whether `obj` carries the condition `type_` with status `True` for its current generation.
pub fn condition_true<K: Resource>(
    obj: &K,
    conditions: &[k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition],
    type_: &str,
) -> bool {
    conditions.iter().any(|c| c.type_ == type_ && c.status == "True" && c.observed_generation == obj.meta().generation)
}
