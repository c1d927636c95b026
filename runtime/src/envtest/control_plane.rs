//! Starts etcd and kube-apiserver from `KUBEBUILDER_ASSETS` on free 127.0.0.1 ports, with a throw-away CA
//! (rcgen), an admin token and RBAC authorization, and stops them when the test binary exits.

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use std::{
    fs::File,
    io,
    net::TcpListener,
    path::{Path, PathBuf},
    process::{Child, ChildStdin, Command, Stdio},
    sync::Mutex,
    time::{Duration, Instant, SystemTime},
};

/// Where envtest binaries are looked for (a folder holding `etcd` and `kube-apiserver`), as in kubebuilder.
pub const ASSETS_ENV: &str = "KUBEBUILDER_ASSETS";
/// How long kube-apiserver may take to become ready.
const READY_TIMEOUT: Duration = Duration::from_secs(90);

/// Why there is no control plane.
pub enum Unavailable {
    /// No binaries: the tests skip, unless a control plane is required.
    NoAssets(String),
    /// The binaries are there but the control plane did not come up.
    Failed(String),
}

/// A throw-away CA that signs the API server's and the webhook server's serving certificates.
pub struct Ca {
    issuer: Issuer<'static, KeyPair>,
    /// The CA certificate (PEM), the `caBundle` of webhook configurations.
    pub pem: String,
    /// The CA certificate (DER), the root the test clients trust.
    pub der: Vec<u8>,
}

impl Ca {
    fn new() -> Result<Self, rcgen::Error> {
        let key = KeyPair::generate()?;
        let mut params = CertificateParams::new(Vec::<String>::new())?;
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, "envtest CA");
        let cert = params.self_signed(&key)?;
        Ok(Self { pem: cert.pem(), der: cert.der().to_vec(), issuer: Issuer::new(params, key) })
    }

    /// A serving certificate for `127.0.0.1` and `localhost`: PEM certificate and key.
    pub fn serving(&self, common_name: &str) -> Result<(String, String), rcgen::Error> {
        let key = KeyPair::generate()?;
        let mut params = CertificateParams::new(vec!["localhost".into(), "127.0.0.1".into()])?;
        params.distinguished_name.push(DnType::CommonName, common_name);
        let cert = params.signed_by(&key, &self.issuer)?;
        Ok((cert.pem(), key.serialize_pem()))
    }
}

/// A running etcd + kube-apiserver, stopped when the test binary exits.
pub struct ControlPlane {
    /// `https://127.0.0.1:<port>`.
    pub url: String,
    /// The CA of the API server's (and the webhook server's) certificate.
    pub ca: Ca,
    /// The bearer token of an admin (`system:masters`).
    pub token: String,
    /// The folder of the certificates, data and logs (removed at exit).
    pub dir: PathBuf,
    /// `kube-apiserver --version`, e.g. `Kubernetes v1.30.0`.
    pub version: String,
    /// The folder the binaries came from (`KUBEBUILDER_ASSETS`).
    pub assets: PathBuf,
    /// Open while this process lives: closing it stops etcd and kube-apiserver.
    _reaper: Mutex<ChildStdin>,
}

impl ControlPlane {
    /// Starts etcd and kube-apiserver from `KUBEBUILDER_ASSETS`.
    pub fn start() -> Result<Self, Unavailable> {
        let assets = assets()?;
        let failed = |what: &str, e: &dyn std::fmt::Display| Unavailable::Failed(format!("{what}: {e}"));
        let dir = std::env::temp_dir().join(format!("{}-envtest-{}", env!("CARGO_PKG_NAME"), std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("etcd")).map_err(|e| failed("creating the envtest folder", &e))?;
        let ca = Ca::new().map_err(|e| failed("making the envtest CA", &e))?;
        let (cert, key) =
            ca.serving("kube-apiserver").map_err(|e| failed("making the API server's certificate", &e))?;
        let service_account_key =
            KeyPair::generate().map_err(|e| failed("making the service account signing key", &e))?;
        let token = format!(
            "envtest-{}-{}",
            std::process::id(),
            SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default().as_nanos()
        );
        let files = [
            ("ca.crt", ca.pem.as_str()),
            ("apiserver.crt", cert.as_str()),
            ("apiserver.key", key.as_str()),
            ("sa.key", &service_account_key.serialize_pem()),
            ("sa.pub", &service_account_key.public_key_pem()),
            ("tokens.csv", &format!("{token},envtest-admin,envtest-admin,\"system:masters\"\n")),
        ];
        for (name, contents) in files {
            std::fs::write(dir.join(name), contents).map_err(|e| failed("writing the envtest certificates", &e))?;
        }
        let version =
            version(&assets.join("kube-apiserver")).map_err(|e| failed("running kube-apiserver --version", &e))?;
        let ports = (free_port(), free_port(), free_port());
        let (Ok(etcd_port), Ok(peer_port), Ok(api_port)) = ports else {
            return Err(Unavailable::Failed("no free port on 127.0.0.1".into()));
        };
        let etcd_url = format!("http://127.0.0.1:{etcd_port}");
        let peer_url = format!("http://127.0.0.1:{peer_port}");
        let etcd = spawn(
            &assets.join("etcd"),
            &dir.join("etcd.log"),
            &[
                "--name=envtest".into(),
                format!("--data-dir={}", dir.join("etcd").display()),
                format!("--listen-client-urls={etcd_url}"),
                format!("--advertise-client-urls={etcd_url}"),
                format!("--listen-peer-urls={peer_url}"),
                format!("--initial-advertise-peer-urls={peer_url}"),
                format!("--initial-cluster=envtest={peer_url}"),
                "--initial-cluster-state=new".into(),
            ],
        )
        .map_err(|e| failed("starting etcd", &e))?;
        let mut args = vec![
            format!("--etcd-servers={etcd_url}"),
            "--bind-address=127.0.0.1".into(),
            "--advertise-address=127.0.0.1".into(),
            format!("--secure-port={api_port}"),
            format!("--cert-dir={}", dir.display()),
            format!("--tls-cert-file={}", dir.join("apiserver.crt").display()),
            format!("--tls-private-key-file={}", dir.join("apiserver.key").display()),
            format!("--token-auth-file={}", dir.join("tokens.csv").display()),
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local".into(),
            format!("--service-account-key-file={}", dir.join("sa.pub").display()),
            format!("--service-account-signing-key-file={}", dir.join("sa.key").display()),
            "--service-cluster-ip-range=10.0.0.0/24".into(),
            "--authorization-mode=RBAC".into(),
            "--allow-privileged=true".into(),
            "--endpoint-reconciler-type=none".into(),
            // Pods need no ServiceAccount token: there is no controller-manager to make one.
            "--disable-admission-plugins=ServiceAccount".into(),
        ];
        if minor(&version).is_some_and(|minor| minor < 24) {
            // Before 1.24 kube-apiserver also listens, unauthenticated, on port 8080 unless told not to.
            args.push("--insecure-port=0".into());
        }
        let apiserver = spawn(&assets.join("kube-apiserver"), &dir.join("kube-apiserver.log"), &args);
        let apiserver = match apiserver {
            Ok(child) => child,
            Err(e) => {
                stop(&mut [etcd]);
                return Err(failed("starting kube-apiserver", &e));
            }
        };
        let reaper = reaper(&[&etcd, &apiserver], &dir);
        let mut children = [etcd, apiserver];
        let reaper = match reaper {
            Ok(reaper) => reaper,
            Err(e) => {
                stop(&mut children);
                return Err(failed("starting the envtest reaper (sh)", &e));
            }
        };
        let control_plane = Self {
            url: format!("https://127.0.0.1:{api_port}"),
            ca,
            token,
            dir,
            version,
            assets,
            _reaper: Mutex::new(reaper),
        };
        control_plane.wait_ready(&mut children)?;
        Ok(control_plane)
    }

    /// A client configuration with the admin's token.
    pub fn config(&self) -> kube::Config {
        let mut config = kube::Config::new(self.url.parse().expect("the API server's URL parses"));
        config.root_cert = Some(vec![self.ca.der.clone()]);
        config.auth_info.token = Some(self.token.clone().into());
        config
    }

    /// Waits until `/readyz` answers `ok`; fails with the end of the log of a process that died or of
    /// kube-apiserver when it takes too long.
    fn wait_ready(&self, children: &mut [Child; 2]) -> Result<(), Unavailable> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Unavailable::Failed(format!("starting a runtime: {e}")))?;
        let _entered = runtime.enter();
        let client = kube::Client::try_from(self.config())
            .map_err(|e| Unavailable::Failed(format!("building a client: {e}")))?;
        // Refused connections while kube-apiserver starts are expected: they are not logged, and a failure
        // reports the log of the process that failed instead.
        let _quiet = tracing::subscriber::set_default(tracing::subscriber::NoSubscriber::default());
        let started = Instant::now();
        loop {
            let request = http::Request::get("/readyz").body(Vec::new()).expect("request");
            if let Ok(body) = runtime.block_on(client.request_text(request))
                && body == "ok"
            {
                return Ok(());
            }
            for (child, name) in children.iter_mut().zip(["etcd", "kube-apiserver"]) {
                if let Ok(Some(status)) = child.try_wait() {
                    return Err(Unavailable::Failed(format!(
                        "{name} exited ({status}):\n{}",
                        log_tail(&self.dir.join(format!("{name}.log")))
                    )));
                }
            }
            if started.elapsed() > READY_TIMEOUT {
                return Err(Unavailable::Failed(format!(
                    "kube-apiserver not ready after {}s:\n{}",
                    READY_TIMEOUT.as_secs(),
                    log_tail(&self.dir.join("kube-apiserver.log"))
                )));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

/// The folder of `KUBEBUILDER_ASSETS`, holding `etcd` and `kube-apiserver`.
fn assets() -> Result<PathBuf, Unavailable> {
    let how = "get them with `kubesmith envtest use -p path` and set KUBEBUILDER_ASSETS to the folder it prints \
               (`make test` does both)";
    let Some(dir) = std::env::var_os(ASSETS_ENV).filter(|d| !d.is_empty()) else {
        return Err(Unavailable::NoAssets(format!("no control plane: {ASSETS_ENV} is not set; {how}")));
    };
    let dir = PathBuf::from(dir);
    for binary in ["etcd", "kube-apiserver"] {
        if !dir.join(binary).is_file() {
            // Set, but wrong: a mistake to fix, not a machine without binaries.
            return Err(Unavailable::Failed(format!(
                "{ASSETS_ENV}={} has no {binary}; point it at a folder holding etcd and kube-apiserver \
                 (`kubesmith envtest use -p path` prints one), or unset it to skip these tests",
                dir.display()
            )));
        }
    }
    Ok(dir)
}

/// A port nobody listens on right now.
fn free_port() -> io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// `binary --version`'s output, trimmed.
fn version(binary: &Path) -> io::Result<String> {
    let out = Command::new(binary).arg("--version").output()?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The minor version of `Kubernetes v1.30.2`.
fn minor(version: &str) -> Option<u32> {
    version.rsplit('v').next()?.split('.').nth(1)?.parse().ok()
}

/// Starts `binary` with its output in `log` (never this process's: `cargo test`'s pipes must close at exit).
fn spawn(binary: &Path, log: &Path, args: &[String]) -> io::Result<Child> {
    let log = File::create(log)?;
    Command::new(binary).args(args).stdin(Stdio::null()).stdout(log.try_clone()?).stderr(log).spawn()
}

/// A shell that waits for this process to exit (its stdin, a pipe only this process holds, closes), then stops
/// `children` and removes `dir`: the test harness has no hook that runs after the last test.
fn reaper(children: &[&Child], dir: &Path) -> io::Result<ChildStdin> {
    let script = r#"cat >/dev/null; kill "$@" 2>/dev/null; sleep 2; kill -9 "$@" 2>/dev/null; rm -rf "$ENVTEST_DIR""#;
    let mut reaper = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg("envtest-reaper")
        .args(children.iter().map(|c| c.id().to_string()))
        .env("ENVTEST_DIR", dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    Ok(reaper.stdin.take().expect("piped stdin"))
}

/// Kills `children` now (a start that failed half-way).
fn stop(children: &mut [Child]) {
    for child in children {
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// The last lines of a log file.
fn log_tail(path: &Path) -> String {
    let log = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(25)..].join("\n")
}

#[test]
fn minor_versions_are_read_from_version_output() {
    assert_eq!(minor("Kubernetes v1.20.2"), Some(20));
    assert_eq!(minor("Kubernetes v1.33.0"), Some(33));
    assert_eq!(minor("garbage"), None);
}
