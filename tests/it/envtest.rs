//! `kubesmith envtest use|list|cleanup` against a release index and archives served on loopback by the test
//! (fake `etcd`/`kube-apiserver`/`kubectl` shell scripts), with the store in a temporary folder.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use sha2::{Digest, Sha512};

use crate::support::ks;

/// A loopback HTTP server serving fixed files; it records the paths asked for and stops by itself after two
/// minutes or 200 connections.
struct Server {
    base: String,
    hits: Arc<Mutex<Vec<String>>>,
}

impl Server {
    fn start(files: Vec<(String, Vec<u8>)>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let hits = Arc::new(Mutex::new(Vec::new()));
        let recorded = Arc::clone(&hits);
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(120);
            let mut served = 0;
            while Instant::now() < deadline && served < 200 {
                let Ok((stream, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                };
                served += 1;
                stream.set_nonblocking(false).unwrap();
                stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                let mut reader = BufReader::new(stream);
                let mut request = String::new();
                if reader.read_line(&mut request).is_err() {
                    continue;
                }
                let mut header = String::new();
                while reader.read_line(&mut header).map(|n| n > 0).unwrap_or(false) && header.trim() != "" {
                    header.clear();
                }
                let path = request.split_whitespace().nth(1).unwrap_or("").to_string();
                recorded.lock().unwrap().push(path.clone());
                let (status, body) = match files.iter().find(|(p, _)| *p == path) {
                    Some((_, body)) => ("200 OK", body.clone()),
                    None => ("404 Not Found", b"not found".to_vec()),
                };
                let mut stream = reader.into_inner();
                let head = format!("HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
                let _ = stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(&body));
            }
        });
        Server { base, hits }
    }

    fn index_url(&self) -> String {
        format!("{}/envtest-releases.yaml", self.base)
    }

    fn hits(&self) -> Vec<String> {
        self.hits.lock().unwrap().clone()
    }
}

/// This machine's platform as Go names it.
fn host() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    };
    let os = if std::env::consts::OS == "macos" { "darwin" } else { std::env::consts::OS };
    format!("{os}-{arch}")
}

fn script(version: &str, name: &str) -> String {
    match name {
        "kube-apiserver" => format!("#!/bin/sh\necho 'Kubernetes v{version}'\n"),
        _ => format!("#!/bin/sh\necho '{name} {version}'\n"),
    }
}

/// An envtest archive of `version` holding `files` under `controller-tools/envtest/`, not executable (kubesmith
/// sets the exec bits).
fn archive(version: &str, files: &[&str]) -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut tar = tar::Builder::new(gz);
    let mut dir = tar::Header::new_gnu();
    dir.set_entry_type(tar::EntryType::Directory);
    dir.set_mode(0o755);
    dir.set_size(0);
    tar.append_data(&mut dir, "controller-tools/envtest/", std::io::empty()).unwrap();
    for name in files {
        let body = script(version, name);
        let mut header = tar::Header::new_gnu();
        header.set_mode(0o644);
        header.set_size(body.len() as u64);
        tar.append_data(&mut header, format!("controller-tools/envtest/{name}"), body.as_bytes()).unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap()
}

fn sha512(bytes: &[u8]) -> String {
    Sha512::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

const ALL: &[&str] = &["kube-apiserver", "etcd", "kubectl"];

/// A release the index lists: version, platform, files, and a hash to claim instead of the true one.
struct Release {
    version: &'static str,
    platform: String,
    files: &'static [&'static str],
    claimed_hash: Option<String>,
}

fn release(version: &'static str) -> Release {
    Release { version, platform: host(), files: ALL, claimed_hash: None }
}

/// The releases most tests use: 1.29.3, 1.30.0, 1.30.2 and 1.31.0 for this machine, 1.32.0 for another one.
fn standard() -> Vec<Release> {
    let mut releases: Vec<Release> = ["1.29.3", "1.30.0", "1.30.2", "1.31.0"].into_iter().map(release).collect();
    releases.push(Release { platform: "plan9-mips".into(), ..release("1.32.0") });
    releases
}

struct Fixture {
    tmp: tempfile::TempDir,
    server: Server,
}

impl Fixture {
    fn new(releases: Vec<Release>) -> Fixture {
        let mut files = Vec::new();
        // As controller-tools writes it: one entry per release, one archive per platform in it; the archives are
        // named by links relative to the index (the server's address is known only once it runs).
        let mut by_version: std::collections::BTreeMap<&str, String> = Default::default();
        for r in &releases {
            let name = format!("envtest-v{}-{}.tar.gz", r.version, r.platform);
            let bytes = archive(r.version, r.files);
            let hash = r.claimed_hash.clone().unwrap_or_else(|| sha512(&bytes));
            let entry = by_version.entry(r.version).or_default();
            entry.push_str(&format!("    {name}:\n      hash: {hash}\n      selfLink: dl/{name}\n"));
            files.push((format!("/dl/{name}"), bytes));
        }
        let mut yaml = String::from("releases:\n");
        for (version, archives) in by_version {
            yaml.push_str(&format!("  v{version}:\n{archives}"));
        }
        files.push(("/envtest-releases.yaml".to_string(), yaml.into_bytes()));
        Fixture { tmp: tempfile::tempdir().unwrap(), server: Server::start(files) }
    }

    fn dir(&self) -> &Path {
        self.tmp.path()
    }

    /// The default store's version folders.
    fn store(&self) -> PathBuf {
        self.dir().join("data/kubebuilder-envtest/k8s")
    }

    /// `kubesmith envtest ARGS` with the store in the temporary folder and the index on loopback.
    fn envtest(&self, args: &[&str]) -> Command {
        let mut cmd = ks(self.dir());
        cmd.arg("envtest").args(args);
        cmd.env("XDG_DATA_HOME", self.dir().join("data"))
            .env("HOME", self.dir().join("home"))
            .env("KUBESMITH_ENVTEST_INDEX", self.server.index_url())
            .env("NO_COLOR", "1");
        for var in ["KUBEBUILDER_ASSETS", "KUBESMITH_ENVTEST_STORE", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"] {
            cmd.env_remove(var).env_remove(var.to_lowercase());
        }
        cmd
    }

    fn stdout(&self, args: &[&str]) -> String {
        let out = self.envtest(args).assert().success().get_output().stdout.clone();
        String::from_utf8(out).unwrap()
    }

    fn failure(&self, args: &[&str], code: i32) -> String {
        let out = self.envtest(args).assert().code(code).get_output().stderr.clone();
        String::from_utf8(out).unwrap()
    }

    /// The names of the version folders in the default store.
    fn installed(&self) -> Vec<String> {
        let mut names: Vec<String> = match std::fs::read_dir(self.store()) {
            Ok(read) => read.map(|e| e.unwrap().file_name().into_string().unwrap()).collect(),
            Err(_) => Vec::new(),
        };
        names.sort();
        names
    }
}

/// A folder holding fake binaries of `version` itself.
fn flat_folder(parent: &Path, version: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = parent.join(format!("flat-{version}"));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ALL {
        let path = dir.join(name);
        std::fs::write(&path, script(version, name)).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

#[test]
fn use_downloads_verifies_and_prints_the_folder_then_reuses_it() {
    use std::os::unix::fs::PermissionsExt;
    let f = Fixture::new(standard());
    let folder = f.store().join(format!("1.30.2-{}", host()));
    let out = f.envtest(&["use", "1.30.2", "-p", "path"]).assert().success().get_output().clone();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{}\n", folder.display()));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains(&format!("downloading envtest-v1.30.2-{}.tar.gz", host())), "{stderr}");
    for name in ALL {
        let mode = std::fs::metadata(folder.join(name)).unwrap().permissions().mode();
        assert_eq!(mode & 0o111, 0o111, "{name} is not executable: {mode:o}");
    }
    let version = std::process::Command::new(folder.join("kube-apiserver")).arg("--version").output().unwrap();
    assert_eq!(String::from_utf8(version.stdout).unwrap(), "Kubernetes v1.30.2\n");
    assert_eq!(f.installed(), [format!("1.30.2-{}", host())], "no temporary folder is left");
    let hits = f.server.hits();
    assert_eq!(hits, ["/envtest-releases.yaml".to_string(), format!("/dl/envtest-v1.30.2-{}.tar.gz", host())]);

    // The second time the store answers: no request at all.
    assert_eq!(f.stdout(&["use", "1.30.2", "-p", "path"]), format!("{}\n", folder.display()));
    let overview = f.stdout(&["use", "1.30.2"]);
    assert_eq!(
        overview,
        format!(
            "version:  1.30.2\nplatform: {}\npath:     {}\nsource:   the envtest store (shared with setup-envtest)\n",
            host().replace('-', "/"),
            folder.display()
        )
    );
    assert_eq!(f.server.hits(), hits, "an installed version needs no request");
}

#[test]
fn selectors_pick_the_newest_matching_release() {
    let f = Fixture::new(standard());
    let path = |v: &str| format!("{}\n", f.store().join(format!("{v}-{}", host())).display());
    assert_eq!(f.stdout(&["use", "1.30.x", "-p", "path"]), path("1.30.2"));
    assert_eq!(f.stdout(&["use", "<1.30", "-p", "path"]), path("1.29.3"));
    // Installed now: found without the index.
    let hits = f.server.hits().len();
    assert_eq!(f.stdout(&["use", "1.30", "-p", "path", "--installed-only"]), path("1.30.2"));
    assert_eq!(f.stdout(&["use", "~1.30.0", "-p", "path"]), path("1.30.2"));
    assert_eq!(f.stdout(&["use", "-p", "path"]), path("1.30.2"), "latest is the newest installed");
    assert_eq!(f.server.hits().len(), hits);
    // `!` asks the index, which has a newer one.
    assert_eq!(f.stdout(&["use", "latest!", "-p", "path"]), path("1.31.0"));
    assert_eq!(f.stdout(&["use", "1.30.x!", "-p", "path"]), path("1.30.2"), "nothing newer: no download");
    let installed = [path("1.29.3"), path("1.30.2"), path("1.31.0")];
    let installed: Vec<String> =
        installed.iter().map(|p| Path::new(p.trim()).file_name().unwrap().to_str().unwrap().to_string()).collect();
    assert_eq!(f.installed(), installed);
}

#[test]
fn a_checksum_mismatch_is_refused_and_nothing_is_stored() {
    let claimed = sha512(b"something else");
    let f = Fixture::new(vec![Release { claimed_hash: Some(claimed.clone()), ..release("1.30.2") }]);
    let got = sha512(&archive("1.30.2", ALL));
    let err = f.failure(&["use", "1.30.2"], 1);
    assert!(err.contains(&format!("checksum mismatch for envtest-v1.30.2-{}.tar.gz", host())), "{err}");
    assert!(err.contains(&claimed[..16]) && err.contains(&got[..16]), "{err}");
    assert!(err.contains("nothing was extracted"), "{err}");
    assert!(!f.dir().join("data").exists(), "the store was touched");
}

#[test]
fn an_archive_without_etcd_is_refused() {
    let f = Fixture::new(vec![Release { files: &["kube-apiserver", "kubectl"], ..release("1.30.2") }]);
    let err = f.failure(&["use", "1.30.2", "-p", "path"], 1);
    assert!(err.contains(&format!("envtest-v1.30.2-{}.tar.gz holds no etcd", host())), "{err}");
    assert!(err.contains("nothing was installed"), "{err}");
    assert!(!f.dir().join("data/kubebuilder-envtest/k8s").exists(), "left behind: {:?}", f.installed());
}

#[test]
fn an_unknown_version_lists_the_nearest_releases() {
    let f = Fixture::new(standard());
    let err = f.failure(&["use", "1.27.x"], 1);
    let platform = host().replace('-', "/");
    assert!(
        err.contains(&format!("has no release 1.27.x for {platform}; the nearest are 1.31.0, 1.30.2, 1.30.0, 1.29.3")),
        "{err}"
    );
    assert!(err.contains(&f.server.index_url()), "{err}");
    let err = f.failure(&["use", "--os", "plan9", "--arch", "arm64"], 1);
    assert!(err.contains("has no release for plan9/arm64 (it has ") && err.contains("plan9/mips"), "{err}");
    assert!(f.installed().is_empty());
}

#[test]
fn installed_only_with_nothing_installed_says_how_to_download() {
    let f = Fixture::new(standard());
    let err = f.failure(&["use", "1.30.x", "--installed-only"], 1);
    assert!(err.contains("no envtest binaries for 1.30.x"), "{err}");
    assert!(err.contains(&f.store().display().to_string()), "{err}");
    assert!(err.contains("run `kubesmith envtest use 1.30.x` to download them, or pass --bin-dir DIR"), "{err}");
    assert!(f.server.hits().is_empty(), "--installed-only read the index");
}

#[test]
fn a_bin_dir_holding_the_binaries_is_used_as_it_is() {
    let f = Fixture::new(standard());
    let flat = flat_folder(f.dir(), "1.20.2");
    let path = format!("{}\n", flat.display());
    assert_eq!(f.stdout(&["use", "--bin-dir", flat.to_str().unwrap(), "--installed-only", "-p", "path"]), path);
    // Found before any index is needed, even an unreachable one.
    let args = ["use", "1.20.x", "--bin-dir", "flat-1.20.2", "-p", "path", "--index", "http://127.0.0.1:9/none.yaml"];
    assert_eq!(f.stdout(&args), path, "a relative --bin-dir is the folder below the current one");
    assert!(f.stdout(&["use", "1.20.2", "--bin-dir", "flat-1.20.2"]).contains("source:   --bin-dir\n"));
    let err = f.failure(&["use", "1.30.x", "--bin-dir", "flat-1.20.2", "-i"], 1);
    assert!(err.contains(&format!("--bin-dir {}", flat.display())) && err.contains("(installed: 1.20.2)"), "{err}");
    assert!(err.contains("run `kubesmith envtest use 1.30.x --bin-dir flat-1.20.2`"), "{err}");
    assert!(f.server.hits().is_empty());
}

#[test]
fn a_bin_dir_is_a_store_root_like_setup_envtest() {
    let f = Fixture::new(standard());
    let folder = f.dir().join(format!("bin/k8s/1.30.2-{}", host()));
    assert_eq!(f.stdout(&["use", "1.30.x", "--bin-dir", "./bin", "-p", "path"]), format!("{}\n", folder.display()));
    assert!(f.installed().is_empty(), "the download went to the default store");
    assert!(f.stdout(&["use", "1.30.x", "--bin-dir", "bin", "-i"]).contains("source:   --bin-dir's store\n"));
}

#[test]
fn kubebuilder_assets_is_honoured() {
    let f = Fixture::new(standard());
    let flat = flat_folder(f.dir(), "1.29.1");
    let out = f.envtest(&["use", "1.29.x", "-p", "env"]).env("KUBEBUILDER_ASSETS", &flat).assert().success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(stdout, format!("export KUBEBUILDER_ASSETS='{}'\n", flat.display()));
    let out = f.envtest(&["use", "-i"]).env("KUBEBUILDER_ASSETS", &flat).assert().success();
    assert!(String::from_utf8_lossy(&out.get_output().stdout).contains("source:   $KUBEBUILDER_ASSETS\n"));
    assert!(f.server.hits().is_empty());
}

#[test]
fn list_shows_installed_and_available_versions_newest_first() {
    let f = Fixture::new(standard());
    f.stdout(&["use", "1.29.3"]);
    f.stdout(&["use", "1.30.2"]);
    let p = host().replace('-', "/");
    let dir = |v: &str| f.store().join(format!("{v}-{}", host())).display().to_string();
    assert_eq!(
        f.stdout(&["list"]),
        format!(
            "installed  1.30.2  {p}  {}\ninstalled  1.29.3  {p}  {}\navailable  1.31.0  {p}\navailable  1.30.2  {p}\n\
             available  1.30.0  {p}\navailable  1.29.3  {p}\n",
            dir("1.30.2"),
            dir("1.29.3")
        )
    );
    let hits = f.server.hits().len();
    assert_eq!(f.stdout(&["list", "1.30.x", "-i"]), format!("installed  1.30.2  {p}  {}\n", dir("1.30.2")));
    assert_eq!(f.server.hits().len(), hits, "--installed-only read the index");
}

#[test]
fn cleanup_removes_matching_versions_from_the_store() {
    let f = Fixture::new(standard());
    for v in ["1.29.3", "1.30.0", "1.30.2"] {
        f.stdout(&["use", v]);
    }
    let name = |v: &str| format!("{v}-{}", host());
    let out = f.stdout(&["cleanup", "1.30.0"]);
    assert!(out.contains(&format!("remove    {}", f.store().join(name("1.30.0")).display())), "{out}");
    assert_eq!(f.installed(), [name("1.29.3"), name("1.30.2")]);
    f.stdout(&["cleanup", "<1.30"]);
    assert_eq!(f.installed(), [name("1.30.2")]);
    // A folder holding binaries itself is never removed.
    let flat = flat_folder(f.dir(), "1.20.2");
    let out = f.envtest(&["cleanup", "--bin-dir", flat.to_str().unwrap()]).assert().success().get_output().clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains("kubesmith never removes such a folder"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing to remove"));
    assert!(flat.join("kube-apiserver").is_file() && flat.join("etcd").is_file());
    assert_eq!(f.installed(), [name("1.30.2")], "--bin-dir's store is the one cleaned");
    // No version: every version of the platform, as setup-envtest's cleanup.
    f.stdout(&["cleanup"]);
    assert!(f.installed().is_empty());
    assert!(f.stdout(&["cleanup"]).contains("nothing to remove"));
}

#[test]
fn an_unreachable_index_names_the_url_and_the_ways_around_it() {
    let f = Fixture::new(standard());
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/envtest-releases.yaml");
    let err = f.failure(&["use", "1.30.x", "--index", &url], 1);
    assert!(err.contains(&format!("cannot read the envtest release index {url}")), "{err}");
    assert!(
        err.contains("--bin-dir DIR") && err.contains("KUBEBUILDER_ASSETS") && err.contains("--index URL"),
        "{err}"
    );
    assert!(f.installed().is_empty());
}

#[test]
fn malformed_requests_are_usage_errors() {
    let f = Fixture::new(standard());
    let err = f.failure(&["use", "1.x"], 2);
    assert!(err.contains("`1.x` is no envtest version selector"), "{err}");
    f.failure(&["cleanup", "one"], 2);
    f.failure(&["list", ">1.30"], 2);
    assert!(f.failure(&["use", "--os", "../x"], 2).contains("`../x` is no operating system"));
    assert!(f.failure(&["use", "1.30.x!", "-i"], 2).contains("drop the `!` or --installed-only"));
    f.failure(&["use", "-p", "json"], 2);
    assert!(f.server.hits().is_empty());
}

#[test]
fn list_offline_shows_what_is_installed_and_succeeds() {
    let f = Fixture::new(standard());
    f.stdout(&["use", "1.30.2"]);
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/envtest-releases.yaml");
    let out = f.envtest(&["list", "--index", &url]).assert().success().get_output().clone();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(stdout.starts_with("installed  1.30.2") && !stdout.contains("available"), "{stdout}");
    assert!(stderr.contains("warning: only installed versions are listed") && stderr.contains(&url), "{stderr}");
    // With nothing installed there is nothing to show: that stays a failure.
    f.stdout(&["cleanup"]);
    let err = f.failure(&["list", "--index", &url], 1);
    assert!(err.contains(&url), "{err}");
}

#[test]
fn use_offline_says_what_is_installed_and_asks_only_for_what_was_not_given() {
    let f = Fixture::new(standard());
    let flat = flat_folder(f.dir(), "1.20.2");
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/envtest-releases.yaml");
    let out = f
        .envtest(&["use", "1.30.x", "--bin-dir", "bin", "-p", "path", "--index", &url])
        .env("KUBEBUILDER_ASSETS", &flat)
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains(&format!("cannot read the envtest release index {url}")), "{err}");
    assert!(
        err.contains(&format!(
            "what is installed does not match 1.30.x: 1.20.2 ($KUBEBUILDER_ASSETS {})",
            flat.display()
        )),
        "{err}"
    );
    assert!(err.contains("`kubesmith envtest use 1.20.2 --bin-dir bin`"), "{err}");
    assert!(!err.contains("pass --bin-dir DIR"), "asks for --bin-dir though it was passed: {err}");
}

#[test]
fn a_download_is_said_before_it_starts_and_when_it_ends_unless_quiet() {
    let f = Fixture::new(standard());
    let out = f.envtest(&["use", "1.30.2", "-p", "path"]).assert().success().get_output().clone();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let name = format!("envtest-v1.30.2-{}.tar.gz", host());
    let started = stderr.find(&format!("downloading {name} from ")).unwrap_or_else(|| panic!("{stderr}"));
    let ended = stderr.find(&format!("{}/dl/{name}: done in ", f.server.base)).unwrap_or_else(|| panic!("{stderr}"));
    assert!(started < ended, "{stderr}");
    f.stdout(&["cleanup"]);
    let out = f.envtest(&["use", "1.30.2", "-p", "path", "-q"]).assert().success().get_output().clone();
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}
