//! A real Kubernetes control plane for the `cp_*` tests: etcd + kube-apiserver from `$KUBEBUILDER_ASSETS`, started
//! once per test binary, with a kubeconfig, `kubectl` helpers and a reaper that stops both when the binary exits.
//!
//! Without `KUBEBUILDER_ASSETS` every `cp_*` test says `skipping: no control plane ...` and passes; with
//! `KUBESMITH_REQUIRE_CONTROL_PLANE=1` a missing or failed control plane fails them instead. The certificates (a
//! CA, the serving certificate for 127.0.0.1/localhost, an admin client certificate in `system:masters`, the
//! service-account signing key) are made with `rcgen`; the flags are those of the team's control-plane `up.sh`
//! (RBAC authorization, no ServiceAccount admission, no endpoint reconciler, loopback ports only). The server is whatever version the assets hold (v1.20.2 on the team's
//! machines): tests must only rely on behaviour that version has, and say so.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::Value;

const SKIP: &str = "skipping: no control plane (set KUBEBUILDER_ASSETS, e.g. $(kubesmith envtest use -p path))";
const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// A running etcd + kube-apiserver and how to reach it.
pub struct ControlPlane {
    /// Removed by the reaper when the test binary exits (with the processes' data and logs).
    state: PathBuf,
    kubeconfig: PathBuf,
    /// `$KUBEBUILDER_ASSETS/kubectl` when present (the server's own version), else `kubectl` on the PATH.
    kubectl: PathBuf,
    /// `v1.20.2`.
    pub version: String,
    /// Bugs of this server's build that tests work around (`for_this_server`), probed at start.
    pub quirks: Quirks,
    /// Held open for the life of the test binary: when it closes, the reaper stops the processes.
    _reaper: Mutex<ChildStdin>,
}

static PLANE: OnceLock<Result<ControlPlane, String>> = OnceLock::new();

fn required() -> bool {
    std::env::var("KUBESMITH_REQUIRE_CONTROL_PLANE").is_ok_and(|v| v == "1")
}

/// The control plane, started on first use. `None`, said on stderr, when `KUBEBUILDER_ASSETS` is not set or the
/// control plane does not start: the test then returns. With `KUBESMITH_REQUIRE_CONTROL_PLANE=1` either panics.
pub fn control_plane() -> Option<&'static ControlPlane> {
    let Some(assets) = std::env::var_os("KUBEBUILDER_ASSETS").filter(|a| !a.is_empty()) else {
        assert!(!required(), "KUBESMITH_REQUIRE_CONTROL_PLANE=1 but KUBEBUILDER_ASSETS is not set");
        eprintln!("{SKIP}");
        return None;
    };
    match PLANE.get_or_init(|| start(Path::new(&assets))) {
        Ok(plane) => Some(plane),
        Err(e) if required() => panic!("KUBESMITH_REQUIRE_CONTROL_PLANE=1 but the control plane failed: {e}"),
        Err(e) => {
            eprintln!("{SKIP}: {e}");
            None
        }
    }
}

/// `N` loopback ports nobody listens on now (bound to port 0 together, then released).
fn free_ports<const N: usize>() -> Result<[u16; N], String> {
    let listeners: Vec<TcpListener> = (0..N)
        .map(|_| TcpListener::bind("127.0.0.1:0").map_err(|e| format!("cannot bind a loopback port: {e}")))
        .collect::<Result<_, _>>()?;
    let mut ports = [0; N];
    for (p, l) in ports.iter_mut().zip(&listeners) {
        *p = l.local_addr().map_err(|e| e.to_string())?.port();
    }
    Ok(ports)
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The last `n` lines of a log file.
fn tail(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    format!("--- last lines of {}\n{}", path.display(), lines[lines.len().saturating_sub(n)..].join("\n"))
}

/// CA, serving certificate, admin client certificate and service-account key, as PEM files under `pki`.
fn pki(pki: &Path) -> Result<(), String> {
    use rcgen::{
        BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair, KeyUsagePurpose,
    };
    let e = |e: rcgen::Error| format!("rcgen: {e}");
    std::fs::create_dir_all(pki).map_err(|e| e.to_string())?;
    let ca_key = KeyPair::generate().map_err(e)?;
    let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(e)?;
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name.push(DnType::CommonName, "kubesmith-test-ca");
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
    write(&pki.join("ca.crt"), &ca.self_signed(&ca_key).map_err(e)?.pem())?;
    let issuer = Issuer::new(ca, ca_key);

    let names = ["127.0.0.1", "localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"];
    let mut serving = CertificateParams::new(names.map(String::from).to_vec()).map_err(e)?;
    serving.distinguished_name.push(DnType::CommonName, "kube-apiserver");
    serving.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let serving_key = KeyPair::generate().map_err(e)?;
    write(&pki.join("apiserver.crt"), &serving.signed_by(&serving_key, &issuer).map_err(e)?.pem())?;
    write(&pki.join("apiserver.key"), &serving_key.serialize_pem())?;

    let mut admin = CertificateParams::new(Vec::<String>::new()).map_err(e)?;
    admin.distinguished_name.push(DnType::OrganizationName, "system:masters");
    admin.distinguished_name.push(DnType::CommonName, "kubesmith-admin");
    admin.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    let admin_key = KeyPair::generate().map_err(e)?;
    write(&pki.join("admin.crt"), &admin.signed_by(&admin_key, &issuer).map_err(e)?.pem())?;
    write(&pki.join("admin.key"), &admin_key.serialize_pem())?;

    let sa = KeyPair::generate().map_err(e)?;
    write(&pki.join("sa.key"), &sa.serialize_pem())?;
    write(&pki.join("sa.pub"), &sa.public_key_pem())
}

/// `sh` waiting for end of file on its standard input (the test binary's end, however it ends), then stopping the
/// processes listed in `state/pids` and removing `state`. It ignores the terminal's signals so an interrupted run
/// is cleaned up too.
const REAPER: &str = r#"trap '' INT TERM HUP
cat >/dev/null
pids=$(cat "$1/pids" 2>/dev/null)
for p in $pids; do kill -TERM "$p" 2>/dev/null; done
i=0
while [ $i -lt 50 ]; do
  alive=
  for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
  [ -z "$alive" ] && break
  sleep 0.1
  i=$((i + 1))
done
for p in $pids; do kill -KILL "$p" 2>/dev/null; done
rm -rf "$1""#;

fn spawn(cmd: &mut Command, log: &Path, state: &Path) -> Result<Child, String> {
    let out = std::fs::File::create(log).map_err(|e| e.to_string())?;
    let err = out.try_clone().map_err(|e| e.to_string())?;
    let child = cmd
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        // Its own process group: a Ctrl-C reaches the reaper's rules, not the server mid-write.
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start {:?}: {e}", cmd.get_program()))?;
    let mut pids =
        std::fs::OpenOptions::new().create(true).append(true).open(state.join("pids")).map_err(|e| e.to_string())?;
    writeln!(pids, "{}", child.id()).map_err(|e| e.to_string())?;
    Ok(child)
}

fn start(assets: &Path) -> Result<ControlPlane, String> {
    let t0 = Instant::now();
    for bin in ["etcd", "kube-apiserver"] {
        if !assets.join(bin).is_file() {
            return Err(format!("{} has no {bin}", assets.display()));
        }
    }
    let version = Command::new(assets.join("kube-apiserver"))
        .arg("--version")
        .output()
        .map_err(|e| format!("cannot run kube-apiserver --version: {e}"))?;
    let version = String::from_utf8_lossy(&version.stdout).trim().trim_start_matches("Kubernetes ").to_string();
    let minor: u32 = version.split('.').nth(1).and_then(|m| m.parse().ok()).unwrap_or(u32::MAX);

    let state =
        tempfile::Builder::new().prefix("kubesmith-control-plane-").tempdir().map_err(|e| e.to_string())?.keep();
    let reaper = Command::new("sh")
        .args(["-c", REAPER, "kubesmith-reaper"])
        .arg(&state)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start the reaper: {e}"))?;
    let reaper = Mutex::new(reaper.stdin.expect("piped stdin"));
    let pki_dir = state.join("pki");
    pki(&pki_dir)?;
    let p = |f: &str| pki_dir.join(f);

    let [etcd_port, peer_port, api_port] = free_ports::<3>()?;
    let etcd_url = format!("http://127.0.0.1:{etcd_port}");
    let peer_url = format!("http://127.0.0.1:{peer_port}");
    let mut etcd = spawn(
        Command::new(assets.join("etcd"))
            .args(["--name", "kubesmith", "--data-dir"])
            .arg(state.join("etcd-data"))
            .args(["--listen-client-urls", &etcd_url, "--advertise-client-urls", &etcd_url])
            .args(["--listen-peer-urls", &peer_url, "--initial-advertise-peer-urls", &peer_url])
            .args(["--initial-cluster", &format!("kubesmith={peer_url}"), "--initial-cluster-state", "new"]),
        &state.join("etcd.log"),
        &state,
    )?;
    let deadline = Instant::now() + READY_TIMEOUT;
    while TcpStream::connect(("127.0.0.1", etcd_port)).is_err() {
        if let Ok(Some(status)) = etcd.try_wait() {
            return Err(format!("etcd exited ({status})\n{}", tail(&state.join("etcd.log"), 20)));
        }
        if Instant::now() > deadline {
            return Err(format!("etcd does not listen after {READY_TIMEOUT:?}\n{}", tail(&state.join("etcd.log"), 20)));
        }
        std::thread::sleep(Duration::from_millis(50));
    }

    let mut api = Command::new(assets.join("kube-apiserver"));
    api.args(["--etcd-servers", &etcd_url])
        .args(["--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1"])
        .args(["--secure-port", &api_port.to_string()])
        .arg("--cert-dir")
        .arg(state.join("cert-dir"))
        .arg("--tls-cert-file")
        .arg(p("apiserver.crt"))
        .arg("--tls-private-key-file")
        .arg(p("apiserver.key"))
        .arg("--client-ca-file")
        .arg(p("ca.crt"))
        .args(["--service-account-issuer", "https://kubernetes.default.svc.cluster.local"])
        .arg("--service-account-key-file")
        .arg(p("sa.pub"))
        .arg("--service-account-signing-key-file")
        .arg(p("sa.key"))
        .args(["--service-cluster-ip-range", "10.0.0.0/24", "--authorization-mode", "RBAC"])
        .args(["--allow-privileged=true", "--endpoint-reconciler-type", "none"])
        .args(["--disable-admission-plugins", "ServiceAccount"]);
    if minor < 24 {
        // Removed in 1.24, where the insecure port is gone anyway.
        api.args(["--insecure-port", "0"]);
    }
    let api_log = state.join("kube-apiserver.log");
    let mut apiserver = spawn(&mut api, &api_log, &state)?;

    let kubeconfig = state.join("kubeconfig");
    write(
        &kubeconfig,
        &format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: kubesmith\n  cluster:\n    server: https://127.0.0.1:{api_port}\n    \
             certificate-authority: {}\nusers:\n- name: kubesmith-admin\n  user:\n    client-certificate: {}\n    \
             client-key: {}\ncontexts:\n- name: kubesmith\n  context: {{cluster: kubesmith, user: kubesmith-admin}}\n\
             current-context: kubesmith\n",
            p("ca.crt").display(),
            p("admin.crt").display(),
            p("admin.key").display()
        ),
    )?;
    let kubectl = Some(assets.join("kubectl")).filter(|k| k.is_file()).unwrap_or_else(|| PathBuf::from("kubectl"));
    let mut plane =
        ControlPlane { state: state.clone(), kubeconfig, kubectl, version, quirks: Quirks::default(), _reaper: reaper };
    let failure = loop {
        let out = plane.kubectl(&["get", "--raw", "/readyz"]);
        if out.status.success() && out.stdout == b"ok" {
            break None;
        }
        if let Ok(Some(status)) = apiserver.try_wait() {
            break Some(format!("kube-apiserver exited ({status})"));
        }
        if Instant::now() > deadline {
            let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
            break Some(format!("kube-apiserver is not ready after {READY_TIMEOUT:?}: /readyz says {said}"));
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    if let Some(why) = failure {
        let _ = apiserver.kill();
        let _ = etcd.kill();
        return Err(format!("{why}\n{}\n{}", tail(&api_log, 30), tail(&state.join("etcd.log"), 10)));
    }
    plane.quirks = Quirks::probe(&plane);
    eprintln!(
        "control plane: etcd + kube-apiserver {} ready in {:.1} s (https://127.0.0.1:{api_port}, {}); {:?}",
        plane.version,
        t0.elapsed().as_secs_f64(),
        plane.state.display(),
        plane.quirks
    );
    Ok(plane)
}

/// Bugs of the API server's build, not of Kubernetes 1.20 as released, found by creating (dry run) a CRD that
/// shows each. The Debian build of v1.20.2 (Go 1.19, where upstream used Go 1.15) has both.
#[derive(Debug, Default, Clone, Copy)]
pub struct Quirks {
    /// An empty string is validated as `null` (kubernetes/kubernetes#99804, go-openapi/validate with Go >= 1.16):
    /// a CRD whose `default` holds `""` is refused with `Invalid value: "null": ... must be of type string`, and so
    /// is a custom resource holding `""` in a string field.
    pub empty_string_is_null: bool,
    /// A `null` in an `enum` list (kube-derive's `Option<Enum>`) breaks the CRD's decoding: the server refuses it
    /// with `per-version schemas may not all be set to identical values` (one version) or reads the versions after
    /// it as empty (several).
    pub null_in_enum_breaks_crds: bool,
}

impl Quirks {
    fn probe(cp: &ControlPlane) -> Quirks {
        let refused = |property: Value, needle: &str| {
            let crd = serde_json::json!({
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": {"name": "probes.quirks.kubesmith.dev"},
                "spec": {
                    "group": "quirks.kubesmith.dev",
                    "names": {"kind": "Probe", "plural": "probes"},
                    "scope": "Namespaced",
                    "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                        "type": "object", "properties": {"p": property}}}}]
                }
            });
            let out = cp.kubectl_with(&["create", "--dry-run=server", "--validate=false", "-f", "-"], &crd.to_string());
            let text = said(&out);
            assert!(out.status.success() || text.contains(needle), "probing the server: {text}");
            !out.status.success()
        };
        Quirks {
            empty_string_is_null: refused(serde_json::json!({"type": "string", "default": ""}), "\"null\""),
            null_in_enum_breaks_crds: refused(
                serde_json::json!({"type": "string", "nullable": true, "enum": ["a", null]}),
                "per-version schemas may not all be set to identical values",
            ),
        }
    }
}

impl ControlPlane {
    /// A `kubectl` command against this control plane (its own discovery cache, no user configuration).
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(&self.kubectl);
        cmd.arg("--kubeconfig").arg(&self.kubeconfig).arg("--cache-dir").arg(self.state.join("kube-cache"));
        cmd.env_remove("KUBECONFIG");
        cmd
    }

    /// What of `doc` (a CRD, or any object holding schemas) must change for this server's `quirks`, changed: a
    /// `default` that holds `""` removed, `null` removed from `enum` lists. Returns where it changed something, for
    /// the test to say.
    pub fn for_this_server(&self, doc: &mut Value) -> Vec<String> {
        fn walk(v: &mut Value, q: Quirks, in_default: bool, path: &str, out: &mut Vec<String>) {
            match v {
                Value::Object(o) => {
                    if q.empty_string_is_null && !in_default && o.get("default").is_some_and(holds_empty_string) {
                        o.remove("default");
                        out.push(format!("{path}/default: dropped (it holds \"\")"));
                    }
                    if q.null_in_enum_breaks_crds
                        && !in_default
                        && let Some(Value::Array(e)) = o.get_mut("enum")
                    {
                        let before = e.len();
                        e.retain(|x| !x.is_null());
                        if e.len() != before {
                            out.push(format!("{path}/enum: null dropped"));
                        }
                    }
                    for (k, x) in o.iter_mut() {
                        walk(x, q, in_default || k == "default", &format!("{path}/{k}"), out);
                    }
                }
                Value::Array(a) => {
                    for (i, x) in a.iter_mut().enumerate() {
                        walk(x, q, in_default, &format!("{path}/{i}"), out);
                    }
                }
                _ => {}
            }
        }
        fn holds_empty_string(v: &Value) -> bool {
            match v {
                Value::String(s) => s.is_empty(),
                Value::Array(a) => a.iter().any(holds_empty_string),
                Value::Object(o) => o.values().any(holds_empty_string),
                _ => false,
            }
        }
        let mut out = Vec::new();
        walk(doc, self.quirks, false, "", &mut out);
        out
    }

    /// What of a custom resource must change for this server's `quirks`, changed: `""` in its `spec` replaced by
    /// `"-"` (a `""` the schema accepts is a string without bounds, pattern or enum, which `"-"` passes too).
    /// Returns where it changed something, for the test to say.
    pub fn object_for_this_server(&self, doc: &mut Value) -> Vec<String> {
        fn walk(v: &mut Value, path: &str, out: &mut Vec<String>) {
            match v {
                Value::String(s) if s.is_empty() => {
                    *s = "-".into();
                    out.push(format!("{path}: \"\" sent as \"-\""));
                }
                Value::Object(o) => o.iter_mut().for_each(|(k, x)| walk(x, &format!("{path}/{k}"), out)),
                Value::Array(a) => a.iter_mut().enumerate().for_each(|(i, x)| walk(x, &format!("{path}/{i}"), out)),
                _ => {}
            }
        }
        let mut out = Vec::new();
        if self.quirks.empty_string_is_null
            && let Some(spec) = doc.get_mut("spec")
        {
            walk(spec, "/spec", &mut out);
        }
        out
    }

    /// `docs` changed for this server's quirks: CRDs by `for_this_server`, custom resources by
    /// `object_for_this_server`; each change said on stderr. Built-in objects are left alone.
    pub fn docs_for_this_server(&self, docs: &mut [Value]) {
        for d in docs {
            let changed = if d["kind"] == "CustomResourceDefinition" {
                self.for_this_server(d)
            } else if typed(d) {
                continue;
            } else {
                self.object_for_this_server(d)
            };
            if !changed.is_empty() {
                eprintln!(
                    "{}/{}: changed for this server's quirks: {}",
                    d["kind"].as_str().unwrap_or("?"),
                    name_of(d),
                    changed.join(", ")
                );
            }
        }
    }

    /// `kubectl ARGS`, whatever its outcome.
    pub fn kubectl(&self, args: &[&str]) -> Output {
        self.command().args(args).output().expect("kubectl runs")
    }

    /// `kubectl ARGS` with `input` on its standard input, whatever its outcome.
    pub fn kubectl_with(&self, args: &[&str], input: &str) -> Output {
        let mut child = self
            .command()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("kubectl runs");
        child.stdin.take().expect("piped").write_all(input.as_bytes()).expect("kubectl reads its input");
        child.wait_with_output().expect("kubectl runs")
    }

    /// `kubectl ARGS` (with `input` when given), which must succeed: its standard output.
    pub fn ok(&self, args: &[&str], input: Option<&str>) -> String {
        let out = match input {
            Some(i) => self.kubectl_with(args, i),
            None => self.kubectl(args),
        };
        assert!(out.status.success(), "kubectl {} failed:\n{}", args.join(" "), said(&out));
        String::from_utf8(out.stdout).expect("UTF-8")
    }

    /// A folder for a test's files, removed with the control plane's state.
    pub fn scratch(&self, name: &str) -> PathBuf {
        let dir = self.state.join("work").join(name);
        std::fs::create_dir_all(&dir).expect("scratch folder");
        dir
    }

    /// Waits until every CRD named is `Established` and its resource is served (discovery can lag behind the
    /// condition); fails after 60 s naming those that are not. (Polled here: kubectl 1.20's `wait` fails on a CRD
    /// that has no conditions yet.)
    pub fn wait_for_crds(&self, names: &[String]) {
        let deadline = Instant::now() + READY_TIMEOUT;
        let mut args = vec!["get", "crd", "-o", "json"];
        args.extend(names.iter().map(String::as_str));
        loop {
            let got: Value = serde_json::from_str(&self.ok(&args, None)).expect("kubectl prints JSON");
            let items =
                if got["kind"] == "List" { got["items"].as_array().cloned().unwrap_or_default() } else { vec![got] };
            let waiting: Vec<String> = items
                .iter()
                .filter(|crd| {
                    !crd["status"]["conditions"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|c| c["type"] == "Established" && c["status"] == "True")
                })
                .map(name_of)
                .collect();
            if waiting.is_empty() {
                break;
            }
            assert!(Instant::now() < deadline, "not Established after {READY_TIMEOUT:?}: {waiting:?}");
            std::thread::sleep(Duration::from_millis(100));
        }
        loop {
            let out = self.kubectl(&["api-resources", "-o", "name"]);
            let served: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap_or_default().lines().collect();
            let missing: Vec<&String> = names.iter().filter(|n| !served.contains(&n.as_str())).collect();
            if missing.is_empty() {
                break;
            }
            assert!(Instant::now() < deadline, "Established but not served: {missing:?}\n{}", said(&out));
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// `kubectl apply --server-side ARGS -f -` of `docs`, which must succeed for each: kubectl's line for each
    /// object (`kind/name serverside-applied`, with ` (server dry run)` under `--dry-run=server`).
    pub fn apply(&self, docs: &[Value], args: &[&str]) -> Vec<String> {
        let mut all = vec!["apply", "--server-side", "--validate=false", "-f", "-"];
        all.extend(args);
        let out = self.ok(&all, Some(&list(docs)));
        let lines: Vec<String> = out.lines().map(String::from).collect();
        let suffix = if args.contains(&"--dry-run=server") { " (server dry run)" } else { "serverside-applied" };
        assert_eq!(lines.len(), docs.len(), "one line per object:\n{out}");
        assert!(lines.iter().all(|l| l.ends_with(suffix)), "every object is applied:\n{out}");
        lines
    }

    /// The objects `kubectl get -f - ARGS` finds for `docs` (one per document, in order), as JSON.
    pub fn get_all(&self, docs: &[Value], args: &[&str]) -> Vec<Value> {
        let mut all = vec!["get", "-f", "-", "-o", "json"];
        all.extend(args);
        let out = self.ok(&all, Some(&list(docs)));
        let got: Value = serde_json::from_str(&out).expect("kubectl prints JSON");
        let items = match got.get("items") {
            Some(Value::Array(items)) if got["kind"] == "List" => items.clone(),
            _ => vec![got],
        };
        assert_eq!(items.len(), docs.len(), "every object exists:\n{out}");
        items
    }
}

/// Says how long a test took (after the control plane was up), when dropped: at its end, or when it fails.
pub struct Took(Instant, String);

impl Took {
    pub fn start() -> Took {
        Took(Instant::now(), std::thread::current().name().unwrap_or("a test").to_string())
    }
}

impl Drop for Took {
    fn drop(&mut self) {
        eprintln!("{}: {:.1} s", self.1, self.0.elapsed().as_secs_f64());
    }
}

/// Standard output and error of a command, for messages.
pub fn said(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// `kubectl kustomize PATH` in `dir` with the machine's kubectl (the 1.20 one's kustomize is too old for the
/// scaffold's kustomizations): the rendered documents.
pub fn kustomize(dir: &Path, path: &str) -> Vec<Value> {
    let out = Command::new("kubectl").args(["kustomize", path]).current_dir(dir).output().expect("kubectl runs");
    assert!(out.status.success(), "kubectl kustomize {path} failed:\n{}", said(&out));
    kubesmith::yaml::from_multi_doc_str(&String::from_utf8(out.stdout).expect("UTF-8")).expect("kustomize prints YAML")
}

/// Where `stored` (what the server returned) lacks or changes a value of `sent`: the first such path. Values the
/// server adds (defaults, metadata) are allowed; a value it dropped (an unknown field pruned by Kubernetes 1.20,
/// which has no field validation) or changed is not. Numbers compare by value. In a `typed` object (a built-in
/// kind, read into Go structs) a zero value (`false`, `0`, `""`, `[]`, `{}`, `null`) may be missing: Go's `omitempty`
/// drops it, which changes nothing.
pub fn dropped(sent: &Value, stored: &Value, path: &str, typed: bool) -> Option<String> {
    let zero = |v: &Value| match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    };
    match (sent, stored) {
        (Value::Object(a), Value::Object(b)) => a.iter().find_map(|(k, v)| match b.get(k) {
            Some(w) => dropped(v, w, &format!("{path}/{k}"), typed),
            None if typed && zero(v) => None,
            None => Some(format!("{path}/{k}: sent {v}, not stored")),
        }),
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            a.iter().zip(b).enumerate().find_map(|(i, (v, w))| dropped(v, w, &format!("{path}/{i}"), typed))
        }
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => None,
        _ => (sent != stored).then(|| format!("{path}: sent {sent}, stored {stored}")),
    }
}

/// Whether `doc` is of a built-in kind (its API group has no dot, or ends in `k8s.io`), not a custom resource.
pub fn typed(doc: &Value) -> bool {
    let api = doc["apiVersion"].as_str().unwrap_or_default();
    let group = api.rsplit_once('/').map_or("", |(g, _)| g);
    !group.contains('.') || group.ends_with("k8s.io")
}

/// `docs` as one `v1` `List` in JSON, which kubectl reads as the objects it holds (JSON: no YAML reader in between).
pub fn list(docs: &[Value]) -> String {
    serde_json::json!({"apiVersion": "v1", "kind": "List", "items": docs}).to_string()
}

/// Whether the server kept every value of `sent` in the object it returned (found in `stored` by kind and name): the
/// problems, each `kind/name: path`.
pub fn kept(sent: &[Value], stored: &[Value]) -> Result<(), String> {
    let id =
        |v: &Value| format!("{}/{}", v["kind"].as_str().unwrap_or("?"), v["metadata"]["name"].as_str().unwrap_or("?"));
    let problems: Vec<String> = sent
        .iter()
        .filter_map(|s| match stored.iter().find(|g| id(g) == id(s)) {
            Some(g) => dropped(s, g, "", typed(s)).map(|d| format!("{}: {d}", id(s))),
            None => Some(format!("{}: not found", id(s))),
        })
        .collect();
    if problems.is_empty() { Ok(()) } else { Err(problems.join("\n")) }
}

/// `name` of a document.
pub fn name_of(doc: &Value) -> String {
    doc["metadata"]["name"].as_str().expect("metadata.name").to_string()
}
