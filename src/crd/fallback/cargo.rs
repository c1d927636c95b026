//! Cargo for the compiled fallback: which package owns a source folder (`cargo metadata`), the harness lock file
//! made from the crate's own `Cargo.lock` (and checked to pin the same versions), the build and the run.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::Value;

/// The cargo package whose crate root is the source folder `make manifests` reads.
#[derive(Debug, Clone)]
pub struct Package {
    /// Package name (`memcached-operator`).
    pub name: String,
    /// Package version.
    pub version: String,
    /// Rust edition.
    pub edition: String,
    /// The folder of its `Cargo.toml`.
    pub manifest_dir: PathBuf,
    /// Its entry in `cargo metadata --no-deps` (dependencies, features, targets).
    pub metadata: Value,
    /// The crate root (`src/lib.rs` or `src/main.rs`).
    pub root: PathBuf,
    /// The library target's crate name, when the root is the library's.
    pub lib_name: Option<String>,
    /// Its build script, if any.
    pub build_script: Option<PathBuf>,
    /// Cargo's target directory for it (honours `CARGO_TARGET_DIR` and `.cargo/config`).
    pub target_dir: PathBuf,
    /// The workspace's `Cargo.lock`, when there is one.
    pub lock: Option<PathBuf>,
    /// The k8s-openapi version feature the harness must enable because the crate enables none itself.
    pub k8s_openapi: Option<K8sPin>,
    /// Features other members of the workspace enable on the crate's registry dependencies and it does not: cargo
    /// unifies them when the workspace builds (a member enabling k8s-openapi's `schemars` for a types crate that
    /// derives `JsonSchema` on its types), so the harness enables them too.
    pub unified: Vec<Unified>,
    /// The workspace's `[patch.*]` and `[replace]` entries (paths absolute): the harness is a workspace of its own,
    /// so it takes them to build the same crates the workspace does (a git dependency patched to a local folder
    /// builds from that folder, offline, not from a fetch of the repository).
    pub(crate) overrides: Vec<crate::source::dependencies::Override>,
}

/// Features of one dependency the workspace turns on beyond the crate's own.
#[derive(Debug, Clone, PartialEq)]
pub struct Unified {
    /// The package (`k8s-openapi`).
    pub name: String,
    /// The crate's key for it (a rename, else the name).
    pub key: String,
    /// Its version requirement, for a harness that adds it (`=0.29.0` when the lock pins one).
    pub version: String,
    /// The features to add, sorted.
    pub features: Vec<String>,
    /// The members that enable them, for the note.
    pub from: Vec<String>,
}

/// The features other workspace `members` enable on `package`'s normal registry dependencies beyond its own (what
/// cargo unifies when the workspace builds).
fn unified_features(package: &Value, members: &[Value], lock: Option<&Path>) -> Vec<Unified> {
    let deps = |p: &Value| p["dependencies"].as_array().cloned().unwrap_or_default();
    let normal = |d: &Value| d["kind"].is_null() && d["path"].is_null() && d["source"].is_string();
    let features = |d: &Value| -> BTreeSet<String> {
        d["features"].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
    };
    let name = package["name"].as_str().unwrap_or_default();
    let mut out = Vec::new();
    for d in deps(package).iter().filter(|d| normal(d)) {
        let dep = d["name"].as_str().unwrap_or_default();
        let own = features(d);
        let mut extra = BTreeSet::new();
        let mut from = Vec::new();
        for m in members.iter().filter(|m| m["name"] != name) {
            for o in deps(m).iter().filter(|o| o["kind"].is_null() && o["name"] == dep) {
                let more: Vec<String> = features(o).difference(&own).cloned().collect();
                if !more.is_empty() {
                    extra.extend(more);
                    from.push(m["name"].as_str().unwrap_or_default().to_string());
                }
            }
        }
        // A version feature is the pin's business (one version only), never unified here.
        extra.retain(|f| !is_version_feature(f));
        if extra.is_empty() {
            continue;
        }
        from.sort();
        from.dedup();
        let version = lock
            .and_then(|l| locked_version(l, dep, name))
            .map(|v| format!("={v}"))
            .or_else(|| d["req"].as_str().map(str::to_string))
            .unwrap_or_else(|| "*".to_string());
        out.push(Unified {
            name: dep.to_string(),
            key: d["rename"].as_str().unwrap_or(dep).to_string(),
            version,
            features: extra.into_iter().collect(),
            from,
        });
    }
    out
}

/// A k8s-openapi version feature the harness enables for a crate that leaves the Kubernetes version to the crates
/// that use it (k8s-openapi's build fails with "None of the v1_* features are enabled" otherwise).
#[derive(Debug, Clone, PartialEq)]
pub struct K8sPin {
    /// `latest`, `v1_33`.
    pub feature: String,
    /// Where it comes from (`harbor-operator`, `PROJECT's k8sVersion`), for the note.
    pub from: String,
    /// The crate's own dependency key for k8s-openapi, when it depends on it directly.
    pub key: Option<String>,
    /// The version requirement of a dependency the harness adds (`=0.29.0`), when it depends on it only through kube.
    pub version: Option<String>,
}

/// Whether a k8s-openapi feature picks the Kubernetes version.
fn is_version_feature(f: &str) -> bool {
    f == "latest" || f == "earliest" || f.starts_with("v1_")
}

/// The k8s-openapi version feature `package` needs from outside: none when it enables one itself (directly or by
/// default features) or does not build k8s-openapi; else the one the workspace members that depend on it enable
/// (the binary that picks the version), else any member's, else `fallback` (the project's k8sVersion).
fn k8s_pin(package: &Value, members: &[Value], lock: Option<&Path>, fallback: Option<&str>) -> Option<K8sPin> {
    let deps = |p: &Value| p["dependencies"].as_array().cloned().unwrap_or_default();
    let normal = |d: &Value| d["kind"].is_null();
    let own = deps(package);
    let own_k8s = own.iter().find(|d| normal(d) && d["name"] == "k8s-openapi");
    let builds_k8s =
        own_k8s.is_some() || own.iter().any(|d| normal(d) && (d["name"] == "kube" || d["name"] == "kube-core"));
    let enabled =
        |d: &Value| d["features"].as_array().into_iter().flatten().filter_map(Value::as_str).any(is_version_feature);
    let by_default = package["features"]["default"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .any(|f| f.split_once('/').is_some_and(|(_, feature)| is_version_feature(feature)));
    if !builds_k8s || own_k8s.is_some_and(enabled) || by_default {
        return None;
    }
    let name = package["name"].as_str().unwrap_or_default();
    let uses_it = |p: &Value| deps(p).iter().any(|d| d["name"] == name && d["path"].is_string());
    let member_pin = |consumers_only: bool| {
        members.iter().filter(|p| p["name"] != name && (!consumers_only || uses_it(p))).find_map(|p| {
            let d = deps(p).into_iter().find(|d| normal(d) && d["name"] == "k8s-openapi" && enabled(d))?;
            let feature = d["features"].as_array()?.iter().filter_map(Value::as_str).find(|f| is_version_feature(f))?;
            Some((
                feature.to_string(),
                p["name"].as_str().unwrap_or_default().to_string(),
                d["req"].as_str().map(str::to_string),
            ))
        })
    };
    let (feature, from, req) = member_pin(true)
        .or_else(|| member_pin(false))
        .or_else(|| fallback.map(|f| (f.to_string(), "the project's k8sVersion".to_string(), None)))?;
    let key = own_k8s.map(|d| d["rename"].as_str().unwrap_or("k8s-openapi").to_string());
    let version = match key {
        Some(_) => None,
        None => lock
            .and_then(|l| locked_version(l, "k8s-openapi", "kube-core"))
            .map(|v| format!("={v}"))
            .or(req)
            .or_else(|| Some("*".to_string())),
    };
    Some(K8sPin { feature, from, key, version })
}

/// The cargo to run: the one running us (`CARGO`, set by cargo for its children) or `cargo` on the PATH.
pub fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// The package whose `lib.rs` or `main.rs` is in `source_dir`; `k8s_feature` is the k8s-openapi feature of the
/// project's Kubernetes version, for a crate that enables none and whose workspace does not either.
pub fn package_of(source_dir: &Path, k8s_feature: Option<&str>) -> Result<Package> {
    let source_dir = source_dir
        .canonicalize()
        .with_context(|| format!("cannot resolve the source folder {}", source_dir.display()))?;
    let manifest = source_dir.ancestors().map(|d| d.join("Cargo.toml")).find(|m| m.is_file()).with_context(|| {
        format!(
            "{} is in no cargo package (no Cargo.toml above it): compiling the kinds listed below needs one; add \
             it, or pass --no-compile to refuse those kinds instead",
            source_dir.display()
        )
    })?;
    let out = cargo()
        .args(["metadata", "--no-deps", "--format-version", "1", "--manifest-path"])
        .arg(&manifest)
        .output()
        .context(
            "cannot run `cargo metadata` (is cargo on the PATH?); pass --no-compile to refuse the kinds instead",
        )?;
    if !out.status.success() {
        bail!("`cargo metadata` failed for {}:\n{}", manifest.display(), String::from_utf8_lossy(&out.stderr).trim());
    }
    let meta: Value =
        serde_json::from_slice(&out.stdout).context("`cargo metadata` printed something that is not JSON")?;
    let packages = meta["packages"].as_array().cloned().unwrap_or_default();
    let in_source =
        |t: &Value, file: &str| t["src_path"].as_str().is_some_and(|p| Path::new(p) == source_dir.join(file));
    let has_kind = |t: &Value, kind: &str| t["kind"].as_array().is_some_and(|k| k.iter().any(|x| x == kind));
    for p in &packages {
        let targets = p["targets"].as_array().cloned().unwrap_or_default();
        let lib = targets.iter().find(|t| in_source(t, "lib.rs") && (has_kind(t, "lib") || has_kind(t, "rlib")));
        let bin = targets.iter().find(|t| in_source(t, "main.rs") && has_kind(t, "bin"));
        // The CRD generator reads lib.rs when there is one, like this choice.
        let (root, lib_name) = match (lib, bin) {
            (Some(l), _) => (source_dir.join("lib.rs"), l["name"].as_str().map(str::to_string)),
            (None, Some(_)) => (source_dir.join("main.rs"), None),
            (None, None) => continue,
        };
        let build_script = targets
            .iter()
            .find(|t| has_kind(t, "custom-build"))
            .and_then(|t| t["src_path"].as_str())
            .map(PathBuf::from);
        let manifest_dir =
            p["manifest_path"].as_str().map(PathBuf::from).and_then(|m| m.parent().map(Path::to_path_buf));
        let workspace_root = meta["workspace_root"].as_str().map(PathBuf::from).unwrap_or_default();
        let lock = Some(workspace_root.join("Cargo.lock")).filter(|l| l.is_file());
        let k8s_openapi = k8s_pin(p, &packages, lock.as_deref(), k8s_feature);
        let unified = unified_features(p, &packages, lock.as_deref());
        let mut overrides = crate::source::dependencies::workspace_overrides(&workspace_root);
        if let Some(l) = &lock {
            let unused = unused_patches(l);
            overrides.retain(|o| !unused.iter().any(|u| o.is_patch_of(u)));
        }
        return Ok(Package {
            name: p["name"].as_str().unwrap_or_default().to_string(),
            version: p["version"].as_str().unwrap_or("0.0.0").to_string(),
            edition: p["edition"].as_str().unwrap_or("2021").to_string(),
            manifest_dir: manifest_dir.unwrap_or_else(|| source_dir.clone()),
            metadata: p.clone(),
            root,
            lib_name,
            build_script,
            target_dir: meta["target_directory"]
                .as_str()
                .map(PathBuf::from)
                .unwrap_or_else(|| workspace_root.join("target")),
            lock,
            k8s_openapi,
            unified,
            overrides,
        });
    }
    bail!(
        "no package of {} has its lib.rs or main.rs in {}: compiling needs the crate's own package; pass --no-compile \
         to refuse the kinds instead",
        manifest.display(),
        source_dir.display()
    )
}

/// The registry packages of a lock file as `name version source`.
fn locked_packages(text: &str) -> Result<BTreeSet<String>> {
    let doc: toml_edit::DocumentMut = text.parse().context("Cargo.lock is not valid TOML")?;
    let mut out = BTreeSet::new();
    if let Some(packages) = doc.get("package").and_then(|p| p.as_array_of_tables()) {
        for p in packages {
            let field = |k: &str| p.get(k).and_then(|v| v.as_str()).unwrap_or_default().to_string();
            if p.contains_key("source") {
                out.insert(format!("{} {} {}", field("name"), field("version"), field("source")));
            }
        }
    }
    Ok(out)
}

/// The version `name` is locked at, when the lock holds exactly one (or one that `via` depends on).
pub fn locked_version(lock: &Path, name: &str, via: &str) -> Option<String> {
    crate::source::dependencies::locked::version_in_lock(lock, name, &[via])
}

/// The `[[patch.unused]]` entries of a `Cargo.lock`: patches cargo found matching nothing in the graph, as
/// `(name, source)` (`source` absent for a path patch). They change nothing the workspace builds, so the harness
/// leaves them out rather than make cargo fetch them (a git patch, offline, would fail the build for nothing).
fn unused_patches(lock: &Path) -> Vec<(String, Option<String>)> {
    let Some(doc) = std::fs::read_to_string(lock).ok().and_then(|t| t.parse::<toml_edit::DocumentMut>().ok()) else {
        return Vec::new();
    };
    let Some(unused) = doc.get("patch").and_then(|p| p.get("unused")).and_then(|u| u.as_array_of_tables()) else {
        return Vec::new();
    };
    let field = |p: &toml_edit::Table, k: &str| p.get(k).and_then(|v| v.as_str()).map(str::to_string);
    unused.iter().filter_map(|p| Some((field(p, "name")?, field(p, "source")))).collect()
}

/// A harness written to disk: what [`run_harness`] builds and runs.
#[derive(Debug)]
pub struct Built {
    /// Its folder.
    pub dir: PathBuf,
    /// The binary to build and run.
    pub bin: String,
    /// Whether its `Cargo.toml` changed (the lock file must be made again).
    pub changed: bool,
    /// The kinds it prints, for messages (`Foo (foos.example.com v1)`).
    pub kinds: Vec<String>,
}

/// Prepares the harness lock (a copy of the crate's, trimmed by cargo to the harness' graph, then checked to pin
/// every registry package at the crate's version), builds the harness and runs it; returns what it printed.
pub fn run_harness(package: &Package, built: &Built) -> Result<String> {
    let harness_manifest = built.dir.join("Cargo.toml");
    let harness_lock = built.dir.join("Cargo.lock");
    let origin = built.dir.join("Cargo.lock.origin");
    let mut build = cargo();
    // A dependency's `rust-version` newer than this toolchain stops cargo before it compiles anything, though the
    // crate may well build: try, and let the compiler's own errors say what is missing.
    build.args(["build", "--quiet", "--ignore-rust-version", "--message-format", "json-render-diagnostics"]);
    build.arg("--manifest-path");
    build.arg(&harness_manifest).args(["--bin", &built.bin]);
    if let Some(lock) = &package.lock {
        let text = std::fs::read_to_string(lock).with_context(|| format!("cannot read {}", lock.display()))?;
        let fresh =
            std::fs::read_to_string(&origin).is_ok_and(|o| o == text) && harness_lock.is_file() && !built.changed;
        if !fresh {
            std::fs::write(&harness_lock, &text).context("cannot write the harness Cargo.lock")?;
            // Cargo drops what the harness does not use and adds the harness itself, keeping every locked version.
            let out = cargo()
                .args(["metadata", "--format-version", "1", "--manifest-path"])
                .arg(&harness_manifest)
                .env("CARGO_TARGET_DIR", &package.target_dir)
                .output()
                .context("cannot run cargo")?;
            if !out.status.success() {
                bail!(
                    "cargo cannot resolve the compiled fallback's harness ({}) with {}:\n{}",
                    harness_manifest.display(),
                    lock.display(),
                    String::from_utf8_lossy(&out.stderr).trim()
                );
            }
            let theirs = locked_packages(&text)?;
            let ours = locked_packages(&std::fs::read_to_string(&harness_lock)?)?;
            let moved: Vec<&String> = ours.difference(&theirs).collect();
            if !moved.is_empty() {
                let list: Vec<&str> = moved.iter().take(5).map(|s| s.as_str()).collect();
                bail!(
                    "the compiled fallback would build with dependency versions {} does not pin ({}); run `cargo \
                     update` or `cargo build` in the crate first so its lock file is complete, or pass --no-compile",
                    lock.display(),
                    list.join(", ")
                );
            }
            std::fs::write(&origin, &text).context("cannot write the harness' lock origin")?;
        }
        build.arg("--locked");
    }
    let shown: Vec<&str> = built.kinds.iter().take(3).map(String::as_str).collect();
    let more = built.kinds.len().saturating_sub(shown.len());
    let progress = crate::output::Progress::start(format_args!(
        "compiling {} kind(s) of {} whose CRD only its own code gives ({}{}): cargo builds a harness in {} with its \
         Cargo.lock and target folder; a first build compiles every dependency and takes minutes",
        built.kinds.len(),
        package.name,
        shown.join(", "),
        if more > 0 { format!(", and {more} more") } else { String::new() },
        built.dir.display()
    ));
    let total = std::fs::read_to_string(&harness_lock).map(|t| t.matches("[[package]]").count()).unwrap_or(0);
    let (ok, stdout, stderr) = build_counting(&mut build, &package.target_dir, &progress, total)?;
    if ok {
        progress.finish();
    } else {
        bail!(
            "building the compiled fallback's harness failed: {}\n(cargo's output follows; the harness is {})\n{}",
            build_failure_hint(&stderr, package),
            built.dir.display(),
            stderr.trim_end()
        );
    }
    let exe = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == built.bin.as_str())
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .context("cargo built the harness but named no executable for it")?;
    let run = Command::new(&exe).output().with_context(|| format!("cannot run {}", exe.display()))?;
    if !run.status.success() {
        bail!(
            "the compiled fallback's harness failed: `Kind::crd()` of one of the kinds panicked or failed:\n{}",
            String::from_utf8_lossy(&run.stderr).trim_end()
        );
    }
    String::from_utf8(run.stdout).context("the harness printed something that is not UTF-8")
}

/// Runs the harness build, counting the crates cargo finishes (of about `total`, the harness lock's packages) on
/// `progress`; returns whether it passed, its stdout (JSON messages) and its stderr.
fn build_counting(
    build: &mut Command,
    target_dir: &Path,
    progress: &crate::output::Progress,
    total: usize,
) -> Result<(bool, String, String)> {
    use std::io::{BufRead as _, Read as _};
    let mut child = build
        .env("CARGO_TARGET_DIR", target_dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .context("cannot run cargo")?;
    let mut err = child.stderr.take().context("cargo's stderr")?;
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = err.read_to_string(&mut text);
        text
    });
    let mut stdout = String::new();
    let mut done = 0;
    for line in std::io::BufReader::new(child.stdout.take().context("cargo's stdout")?).lines() {
        let line = line.context("reading cargo's output")?;
        if line.contains("\"reason\":\"compiler-artifact\"") {
            done += 1;
            progress.count(done, total, "crates");
        }
        stdout.push_str(&line);
        stdout.push('\n');
    }
    let status = child.wait().context("waiting for cargo")?;
    let stderr = reader.join().unwrap_or_default();
    Ok((status.success(), stdout, stderr))
}

/// What to do about a failed harness build, from cargo's output: the causes seen in real crates first.
fn build_failure_hint(stderr: &str, package: &Package) -> String {
    let manifest = package.manifest_dir.join("Cargo.toml");
    if stderr.contains("None of the v1_* features are enabled") || stderr.contains("None of the `v1_*` features") {
        return format!(
            "k8s-openapi was built without a Kubernetes version feature: neither {} nor any member of its workspace \
             enables one (`k8s-openapi = {{ version = .., features = [\"v1_33\"] }}` in the binary's Cargo.toml), and \
             the project's k8sVersion is not one this k8s-openapi has; enable one, or set k8sVersion in PROJECT to a \
             version it supports",
            manifest.display()
        );
    }
    if stderr.contains("No space left on device") || stderr.contains("Bus error") || stderr.contains("signal 7") {
        return format!(
            "the disk holding {} is full (the linker dies with a bus error when it is); free space there, or point \
             CARGO_TARGET_DIR at a bigger disk",
            package.target_dir.display()
        );
    }
    if stderr.contains("failed to run custom build command") {
        return format!(
            "a build script failed; the compiled fallback runs {}'s own in {} as cargo does, so check that `cargo \
             build` passes there, or pass --no-compile to refuse the kinds instead",
            package.name,
            package.manifest_dir.display()
        );
    }
    if stderr.contains("E0603") || stderr.contains("is private") {
        return "a kind the fallback names is private where it is named: make its module `pub(crate)` or re-export the \
                kind with `pub(crate) use`, or pass --no-compile"
            .to_string();
    }
    format!(
        "the crate must build on its own for kubesmith to compile its kinds: run `cargo build` in {} and fix what it \
         reports, or pass --no-compile to refuse the kinds instead",
        package.manifest_dir.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCK: &str = r#"version = 4

[[package]]
name = "kube"
version = "5.0.0"
source = "registry+https://github.com/rust-lang/crates.io-index"
dependencies = ["kube-core 5.0.0", "serde_json"]

[[package]]
name = "kube-core"
version = "5.0.0"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "kube-core"
version = "4.2.0"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "serde_json"
version = "1.0.154"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "mine"
version = "0.1.0"
"#;

    #[test]
    fn locked_versions_come_from_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join("Cargo.lock");
        std::fs::write(&lock, LOCK).unwrap();
        assert_eq!(locked_version(&lock, "serde_json", "kube").as_deref(), Some("1.0.154"));
        assert_eq!(locked_version(&lock, "kube-core", "kube").as_deref(), Some("5.0.0"), "the one kube uses");
        assert_eq!(locked_version(&lock, "tokio", "kube"), None);
    }

    #[test]
    fn path_packages_are_not_pinned() {
        let set = locked_packages(LOCK).unwrap();
        assert_eq!(set.len(), 4);
        assert!(set.contains("kube-core 4.2.0 registry+https://github.com/rust-lang/crates.io-index"));
        assert!(!set.iter().any(|p| p.starts_with("mine ")));
    }

    fn member(name: &str, deps: serde_json::Value) -> Value {
        serde_json::json!({"name": name, "dependencies": deps, "features": {}})
    }

    #[test]
    fn features_other_members_enable_on_the_crates_dependencies_are_unified() {
        let reg = "registry+https://github.com/rust-lang/crates.io-index";
        let dep = |name: &str, features: &[&str]| serde_json::json!({"name": name, "kind": null, "req": "^0.29", "source": reg, "features": features});
        // The types crate derives JsonSchema on k8s-openapi types; only the operator turns `schemars` on.
        let types = member("types", serde_json::json!([dep("k8s-openapi", &["latest"]), dep("serde", &[])]));
        let operator = member(
            "operator",
            serde_json::json!([
                {"name": "types", "kind": null, "path": "/w/types", "features": []},
                dep("k8s-openapi", &["latest", "schemars", "v1_33"]),
                {"name": "serde", "kind": "dev", "req": "1", "source": reg, "features": ["derive"]}
            ]),
        );
        let unified = unified_features(&types, &[types.clone(), operator.clone()], None);
        assert_eq!(unified.len(), 1, "{unified:?}");
        let u = &unified[0];
        assert_eq!((u.name.as_str(), u.key.as_str(), u.version.as_str()), ("k8s-openapi", "k8s-openapi", "^0.29"));
        assert_eq!(u.features, ["schemars"], "a version feature is the pin's, a dev-dependency's is not unified");
        assert_eq!(u.from, ["operator"]);
        assert!(unified_features(&operator, &[types, operator.clone()], None).is_empty(), "nothing beyond its own");
    }

    #[test]
    fn the_k8s_openapi_version_feature_comes_from_the_crate_its_users_or_the_project() {
        let k8s = |features: &[&str]| serde_json::json!({"name": "k8s-openapi", "kind": null, "req": "^0.29", "features": features});
        let types =
            member("types", serde_json::json!([k8s(&["schemars"]), {"name": "kube", "kind": null, "features": []}]));
        let operator = member(
            "operator",
            serde_json::json!([{"name": "types", "kind": null, "path": "/w/types", "features": []}, k8s(&["latest"])]),
        );
        let other = member("other", serde_json::json!([k8s(&["v1_31"])]));
        let members = [other.clone(), types.clone(), operator.clone()];
        let pin = k8s_pin(&types, &members, None, Some("v1_37")).unwrap();
        assert_eq!(
            (pin.feature.as_str(), pin.from.as_str(), pin.key.as_deref()),
            ("latest", "operator", Some("k8s-openapi"))
        );
        // No user of the crate sets one: any member's; no member: the project's.
        assert_eq!(k8s_pin(&types, &[other, types.clone()], None, None).unwrap().feature, "v1_31");
        let alone = k8s_pin(&types, std::slice::from_ref(&types), None, Some("v1_37")).unwrap();
        assert_eq!((alone.feature.as_str(), alone.from.as_str()), ("v1_37", "the project's k8sVersion"));
        // Enabled by the crate itself, or no k8s-openapi in its build: nothing to add.
        assert!(k8s_pin(&operator, &members, None, Some("v1_37")).is_none());
        assert!(k8s_pin(&member("plain", serde_json::json!([])), &members, None, Some("v1_37")).is_none());
        // Through kube only: the harness adds the dependency, at the locked version.
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join("Cargo.lock");
        std::fs::write(&lock, format!("{LOCK}\n[[package]]\nname = \"k8s-openapi\"\nversion = \"0.29.0\"\n")).unwrap();
        let via_kube = member("via", serde_json::json!([{"name": "kube", "kind": null, "features": []}]));
        let pin = k8s_pin(&via_kube, &[via_kube.clone(), operator], Some(&lock), None).unwrap();
        assert_eq!((pin.key, pin.version.as_deref()), (None, Some("=0.29.0")));
    }

    #[test]
    fn the_locks_unused_patches_are_read_with_their_sources() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join("Cargo.lock");
        std::fs::write(
            &lock,
            "version = 4\n\n[[package]]\nname = \"h2\"\nversion = \"0.4.14\"\n\n[[patch.unused]]\nname = \"h2\"\n\
             version = \"0.3.26\"\nsource = \"git+https://github.com/fork/h2?branch=fix#1bf9\"\n\n\
             [[patch.unused]]\nname = \"local\"\nversion = \"0.1.0\"\n",
        )
        .unwrap();
        assert_eq!(
            unused_patches(&lock),
            [
                ("h2".to_string(), Some("git+https://github.com/fork/h2?branch=fix#1bf9".to_string())),
                ("local".to_string(), None)
            ]
        );
    }
}
