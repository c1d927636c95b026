//! What a newcomer trips on after the first hour (issue 43): each test fails on the behaviour the issue reports.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::{create_api, init, ks, read, repo_root, snapshot};

fn output(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// A `cargo` for the scaffold's Makefile that builds nothing: it logs its arguments, runs the real cargo for the
/// lock file (`update`, `generate-lockfile`) and, where the Makefile passes `--locked`, checks as the real one
/// would that Cargo.lock exists and is current (offline `cargo update --workspace --locked`).
fn fake_cargo(dir: &Path) -> PathBuf {
    let path = dir.join("fake-cargo");
    std::fs::write(
        &path,
        r#"#!/usr/bin/env bash
echo "$*" >>"$FAKE_CARGO_LOG"
case "$1" in
  fmt) exit 0 ;;
  test) echo "KUBEBUILDER_ASSETS=${KUBEBUILDER_ASSETS-unset}" >>"$FAKE_CARGO_LOG" ;;
  update|generate-lockfile) exec "$REAL_CARGO" "$@" ;;
esac
if [[ " $* " == *" --locked "* ]]; then
  CARGO_NET_OFFLINE=true exec "$REAL_CARGO" update --workspace --locked --quiet
fi
"#,
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// `make <targets>` in a scaffolded project with the fake cargo and this kubesmith.
fn make(dir: &Path, tools: &Path, targets: &[&str]) -> Output {
    make_with(dir, tools, targets, &[])
}

/// [`make`] with more environment (`KUBEBUILDER_ASSETS` is unset unless given).
fn make_with(dir: &Path, tools: &Path, targets: &[&str], env: &[(&str, &str)]) -> Output {
    let kubesmith = assert_cmd::cargo::cargo_bin("kubesmith");
    std::process::Command::new("make")
        .env_remove("KUBEBUILDER_ASSETS")
        .env("XDG_DATA_HOME", tools.join("data"))
        .envs(env.iter().copied())
        .current_dir(dir)
        .args(targets)
        .arg(format!("CARGO={}", fake_cargo(tools).display()))
        .arg(format!("KUBESMITH={}", kubesmith.display()))
        .env("FAKE_CARGO_LOG", tools.join("cargo.log"))
        .env("REAL_CARGO", std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .env("SOURCE_DATE_EPOCH", "1767225600")
        .output()
        .expect("make runs")
}

#[test]
fn make_build_lint_work_on_a_fresh_scaffold_and_after_a_new_dependency() {
    let parent = tempfile::tempdir().unwrap();
    let tools = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &[]);
    assert!(!dir.join("Cargo.lock").exists(), "init writes no lock file");
    for target in ["lint", "build"] {
        let _ = std::fs::remove_file(dir.join("Cargo.lock"));
        let out = make(&dir, tools.path(), &[target]);
        assert!(out.status.success(), "make {target} fails on a fresh scaffold:\n{}", output(&out));
        assert!(dir.join("Cargo.lock").exists(), "make {target} leaves no Cargo.lock");
    }
    // A dependency added to Cargo.toml (one already in the graph, so this resolves offline) is locked before
    // `--locked` runs; nothing else moves.
    let before = std::fs::read_to_string(dir.join("Cargo.lock")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    std::fs::write(dir.join("Cargo.toml"), manifest.replace("[dependencies]\n", "[dependencies]\neither = \"1\"\n"))
        .unwrap();
    let out = make(&dir, tools.path(), &["lint"]);
    assert!(out.status.success(), "make lint fails after a new dependency:\n{}", output(&out));
    let after = std::fs::read_to_string(dir.join("Cargo.lock")).unwrap();
    let removed: Vec<_> = before.lines().filter(|l| !after.lines().any(|a| a == *l)).collect();
    assert!(removed.iter().all(|l| l.trim().is_empty() || l.starts_with(" \"")), "upgraded: {removed:?}");
    // Up to date: no second resolution.
    let log = tools.path().join("cargo.log");
    std::fs::write(&log, "").unwrap();
    assert!(make(&dir, tools.path(), &["lint"]).status.success());
    let calls = std::fs::read_to_string(&log).unwrap();
    assert!(!calls.contains("update"), "the lock file is resolved again though current:\n{calls}");
    // The scaffold's README and .gitignore say where the lock file comes from.
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    assert!(readme.contains("writes no `Cargo.lock`") && readme.contains("CARGO_NET_OFFLINE"), "{readme}");
    let ignore = std::fs::read_to_string(dir.join(".gitignore")).unwrap();
    assert!(ignore.contains("first\n# `make build`"), "{ignore}");
}

#[test]
fn create_api_refuses_with_the_syntax_error_when_another_api_file_does_not_parse() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    let types = dir.join("src/api/v1alpha1/memcached.rs");
    let text = std::fs::read_to_string(&types).unwrap();
    // A missing comma after `foo`: the error is at the next field.
    let broken = text.replace("pub foo: Option<String>,\n", "pub foo: Option<String>\n    pub bar: Option<String>,\n");
    assert_ne!(broken, text);
    let line = broken.lines().position(|l| l.contains("pub bar")).unwrap() + 1;
    std::fs::write(&types, broken).unwrap();
    let before = snapshot(&dir);
    for quiet in [false, true] {
        let mut cmd = ks(&dir);
        cmd.args(["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Other"]);
        if quiet {
            cmd.arg("-q");
        }
        let out = cmd.output().unwrap();
        let said = output(&out);
        assert_eq!(out.status.code(), Some(1), "{said}");
        assert!(said.contains(&format!("src/api/v1alpha1/memcached.rs:{line}:5: expected `,`")), "{said}");
        assert!(said.contains("nothing was written"), "{said}");
        assert!(!said.contains("fn body") && !said.contains(&dir.display().to_string()), "{said}");
        assert_eq!(snapshot(&dir), before, "a refused create api writes nothing");
    }
}

#[test]
fn create_api_generates_its_crd_though_another_kind_has_a_problem() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    let types = dir.join("src/api/v1alpha1/memcached.rs");
    let text = std::fs::read_to_string(&types).unwrap();
    let other = text.replace(
        "pub foo: Option<String>,\n",
        "pub foo: Option<String>,\n    pub bar: std::collections::HashMap<i32, String>,\n",
    );
    std::fs::write(&types, other).unwrap();
    let out = ks(&dir)
        .args(["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Other"])
        .output()
        .unwrap();
    let said = output(&out);
    assert!(out.status.success(), "{said}");
    assert!(!said.contains("warning"), "{said}");
    assert!(dir.join("config/crd/bases/cache.example.com_others.yaml").exists(), "{said}");
}

/// `init` + Memcached, manifests made.
fn memcached(parent: &Path) -> PathBuf {
    let dir = init(parent, "memcached-operator", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    ks(&dir).args(["make", "manifests"]).assert().success();
    dir
}

/// Runs `args` in `dir`, expects exit `code` with nothing changed, and returns what it printed.
fn refused(dir: &Path, args: &[&str], code: i32) -> String {
    let before = snapshot(dir);
    let out = ks(dir).args(args).output().unwrap();
    let said = output(&out);
    assert_eq!(out.status.code(), Some(code), "{args:?}:\n{said}");
    assert_eq!(snapshot(dir), before, "{args:?} changed the tree:\n{said}");
    said
}

#[test]
fn typos_in_markers_and_project_are_errors_that_say_the_fix() {
    let parent = tempfile::tempdir().unwrap();
    let dir = memcached(parent.path());
    let controller = dir.join("src/controller/memcached.rs");
    let text = std::fs::read_to_string(&controller).unwrap();
    let line = text.lines().count() + 1;
    std::fs::write(&controller, format!("{text}// +kubebuidler:rbac:groups=apps,resources=deployments,verbs=get\n"))
        .unwrap();
    let said = refused(&dir, &["make", "manifests"], 1);
    let want = format!(
        "src/controller/memcached.rs:{line}: unknown marker prefix `kubebuidler:`; did you mean `+kubebuilder:rbac`?"
    );
    assert!(said.contains(&want), "{said}");
    std::fs::write(
        &controller,
        format!("{text}// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=list,watch\n"),
    )
    .unwrap();
    let said = refused(&dir, &["make", "manifests"], 1);
    assert!(said.contains("unknown argument `watch`") && said.contains("write `verbs=list;watch`"), "{said}");
    std::fs::write(&controller, &text).unwrap();

    let types = dir.join("src/api/v1alpha1/memcached.rs");
    let api = std::fs::read_to_string(&types).unwrap();
    for (markers, needle) in [
        ("// +kubebuilder:validation:Enum=a;b\n    // +kubebuilder:default=c", "is not one of the enum values"),
        (
            "// +kubebuilder:validation:MinLength=1\n    // +kubebuilder:validation:MaxLength=0",
            "MinLength=1 is greater",
        ),
    ] {
        std::fs::write(
            &types,
            api.replace("    pub foo: Option<String>,", &format!("    {markers}\n    pub foo: Option<String>,")),
        )
        .unwrap();
        let said = refused(&dir, &["make", "manifests"], 1);
        assert!(said.contains("src/api/v1alpha1/memcached.rs:") && said.contains(needle), "{said}");
    }
    std::fs::write(&types, &api).unwrap();

    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    let line = project.lines().position(|l| l.trim_start() == "group: cache").unwrap() + 1;
    std::fs::write(dir.join("PROJECT"), project.replace("  group: cache", "  grop: cache")).unwrap();
    let said = refused(&dir, &["create", "api", "--group", "cache", "--version", "v1", "--kind", "Other"], 1);
    assert!(
        said.contains(&format!(
            "PROJECT:{line}: unknown key `grop` in resources[0] (kind Memcached); did you mean `group`?"
        )),
        "{said}"
    );
}

#[test]
fn init_refuses_a_folder_name_that_is_no_crate_name() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("123op");
    std::fs::create_dir(&dir).unwrap();
    let said = refused(&dir, &["init", "--domain", "example.com"], 2);
    assert!(said.contains("project name `123op` (this folder's name) cannot name the operator's crate"), "{said}");
    assert!(said.contains("start with a digit") && said.contains("--project-name"), "{said}");
    assert!(std::fs::read_dir(&dir).unwrap().next().is_none(), "init wrote files");
    let said = refused(&dir, &["init", "--domain", "example.com", "--project-name", "fn"], 2);
    assert!(said.contains("Rust keyword"), "{said}");
    ks(&dir).args(["init", "--domain", "example.com", "--project-name", "op-123"]).assert().success();
}

/// The command a message suggests between backticks after `marker`, as arguments (without `kubesmith`).
fn suggested(said: &str, marker: &str) -> Vec<String> {
    let from = said.find(marker).unwrap_or_else(|| panic!("no {marker:?} in:\n{said}")) + marker.len();
    let command = &said[from..said[from..].find('`').map(|i| from + i).unwrap()];
    let words: Vec<String> = command.split_whitespace().map(str::to_string).collect();
    assert_eq!(words[0], "kubesmith", "{command}");
    assert!(!command.contains("...") && !command.contains('<'), "not runnable as written: {command}");
    words[1..].to_vec()
}

#[test]
fn suggestions_run_as_written() {
    let parent = tempfile::tempdir().unwrap();
    let dir = memcached(parent.path());
    let webhook = ["create", "webhook", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"];

    // A spoke that does not exist yet: the suggested `create api` makes it, then the webhook is made.
    let conversion = [&webhook[..], &["--conversion", "--spoke", "v1beta1"]].concat();
    let said = refused(&dir, &conversion, 2);
    let fix = suggested(&said, "add it with `");
    assert!(fix.contains(&"--group".to_string()), "{fix:?}");
    ks(&dir).args(&fix).assert().success();

    // No spoke at all: the message names the version there is, without empty parentheses.
    let said = refused(&dir, &[&webhook[..], &["--conversion"]].concat(), 2);
    assert!(said.contains("--spoke v1beta1") && !said.contains("()"), "{said}");
    ks(&dir).args(&conversion).assert().success();

    // A misspelled kind: did you mean, with the flags given.
    let typo =
        ["create", "webhook", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcahced", "--defaulting"];
    let said = refused(&dir, &typo, 1);
    assert!(!said.contains("create api"), "offers to create the typo: {said}");
    ks(&dir).args(suggested(&said, "did you mean `")).assert().success();

    // A version that is one letter off may be a typo or a new version: both commands are offered.
    let said = refused(
        &dir,
        &["create", "webhook", "--group", "cache", "--version", "v1alpha2", "--kind", "Memcached", "--defaulting"],
        1,
    );
    assert!(said.contains("did you mean `kubesmith create webhook --group cache --version v1alpha1"), "{said}");
    assert!(said.contains("`kubesmith create api --group cache --version v1alpha2 --kind Memcached`"), "{said}");

    // A second hub: the suggested command adds spokes to the existing one.
    ks(&dir)
        .args(["create", "api", "--group", "cache", "--version", "v1", "--kind", "Memcached", "--controller=false"])
        .assert()
        .success();
    let said = refused(
        &dir,
        &[
            "create",
            "webhook",
            "--group",
            "cache",
            "--version",
            "v1beta1",
            "--kind",
            "Memcached",
            "--conversion",
            "--spoke",
            "v1",
        ],
        1,
    );
    assert!(
        said.contains("--group cache --version v1alpha1 --kind Memcached --conversion --spoke <version>"),
        "{said}"
    );
}

#[test]
fn make_bundle_outside_a_project_says_there_is_none() {
    let parent = tempfile::tempdir().unwrap();
    let said = refused(parent.path(), &["make", "bundle", "--version", "0.1.0"], 1);
    assert!(said.contains("no PROJECT file in") && !said.contains("--package"), "{said}");
}

#[test]
fn no_project_is_the_same_failure_for_every_project_command() {
    let parent = tempfile::tempdir().unwrap();
    for args in [
        &["create", "api", "--group", "cache", "--version", "v1", "--kind", "Foo"][..],
        &["edit", "--multigroup"],
        &["alpha", "generate"],
        &["make", "manifests"],
        &["make", "bundle", "--version", "0.1.0"],
        &["make", "helm"],
        &["make", "docs"],
    ] {
        let said = refused(parent.path(), args, 1);
        assert!(said.contains("no PROJECT file in"), "{args:?}: {said}");
    }
}

#[test]
fn a_reader_that_stops_early_is_no_error() {
    // Both outputs are larger than a pipe's buffer, so the write meets the closed pipe.
    for args in [&["completion", "bash"][..], &["markers", "--output", "markdown"]] {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("kubesmith"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", output(&out));
        assert!(out.stderr.is_empty(), "{args:?}: {}", output(&out));
    }
}

#[test]
fn the_docs_agree_with_the_scaffold() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    // The Rust version: what the scaffold declares is what the READMEs ask for.
    let manifest = read(&dir.join("Cargo.toml"));
    let rust = manifest.lines().find_map(|l| l.strip_prefix("rust-version = ")).unwrap().trim_matches('"');
    assert!(read(&repo_root().join("README.md")).contains(&format!("rust-version = \"{rust}\"")), "README: {rust}");
    let readme = read(&dir.join("README.md"));
    assert!(readme.contains(&format!("Rust {rust} or newer")), "the scaffold's README does not ask for Rust {rust}");
    // The layout table: every path it names exists, and the manager is where `struct Manager` is.
    let layout = &readme[readme.find("## Layout").unwrap()..];
    let layout = &layout[..layout[3..].find("\n## ").unwrap()];
    let rows: Vec<&str> = layout.lines().filter(|l| l.starts_with("| `")).collect();
    assert!(!rows.is_empty());
    for row in &rows {
        let cell = row.split('|').nth(1).unwrap();
        for path in cell.split(',').map(|p| p.trim().trim_matches('`')) {
            assert!(dir.join(path).exists(), "the README names {path}, which init + create api do not write");
        }
    }
    let manager = rows.iter().find(|r| r.contains("| The manager")).expect("a row for the manager");
    let home = manager.split('|').nth(1).unwrap();
    let defines = |path: &str| {
        let path = dir.join(path.trim().trim_matches('`'));
        let path = if path.is_dir() { path.join("src/manager.rs") } else { path };
        path.is_file() && read(&path).contains("pub struct Manager")
    };
    assert!(home.split(',').any(defines), "the README puts the manager in {home}");
    // The guide's webhook section: no field section 3 removed, and every spoke made before it is named.
    let guide = read(&repo_root().join("docs/guide.md"));
    let section = &guide[guide.find("## 5.").unwrap()..guide.find("## 6.").unwrap()];
    assert!(!section.contains("without `foo`"), "section 5 speaks of `foo`, which section 3 replaced");
    for spoke in section.split("--spoke ").skip(1).map(|s| s.split(|c: char| !c.is_alphanumeric()).next().unwrap()) {
        let create = format!("kubesmith create api --group cache --version {spoke} --kind Memcached");
        assert!(section.replace('\n', " ").contains(&create), "section 5 does not say to create {spoke} first");
    }
}

/// A folder holding fake `etcd` and `kube-apiserver` of `version` (`--version` prints it).
fn fake_assets(parent: &Path, version: &str) -> PathBuf {
    let dir = parent.join(format!("assets-{version}"));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["etcd", "kube-apiserver"] {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\necho \"Kubernetes v{version}\"\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

#[test]
fn make_test_uses_the_control_plane_it_is_given_and_stops_when_it_has_none() {
    let parent = tempfile::tempdir().unwrap();
    let tools = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &[]);
    let log = tools.path().join("cargo.log");
    let unreachable = ("KUBESMITH_ENVTEST_INDEX", "http://127.0.0.1:9/envtest-releases.yaml");

    // A KUBEBUILDER_ASSETS of the user's (another version than ENVTEST_K8S_VERSION) is used as it is, and said.
    let assets = fake_assets(tools.path(), "1.20.2");
    let out =
        make_with(&dir, tools.path(), &["test"], &[("KUBEBUILDER_ASSETS", assets.to_str().unwrap()), unreachable]);
    assert!(out.status.success(), "{}", output(&out));
    let calls = std::fs::read_to_string(&log).unwrap();
    assert!(calls.contains(&format!("KUBEBUILDER_ASSETS={}\n", assets.display())), "{calls}");
    assert!(
        output(&out).contains(&format!("control plane: KUBEBUILDER_ASSETS={}", assets.display())),
        "{}",
        output(&out)
    );

    // None, and the index cannot be read: make test fails before cargo test, saying why.
    std::fs::write(&log, "").unwrap();
    let out = make_with(&dir, tools.path(), &["test"], &[unreachable]);
    assert!(!out.status.success(), "make test passes without a control plane:\n{}", output(&out));
    assert!(output(&out).contains("cannot read the envtest release index"), "{}", output(&out));
    let calls = std::fs::read_to_string(&log).unwrap();
    assert!(!calls.lines().any(|l| l.starts_with("test ")), "cargo test ran:\n{calls}");
}

/// Every file under `dir` but `target/`, as [`snapshot`], and the temporary files among them.
fn tree(dir: &Path) -> (std::collections::BTreeMap<PathBuf, Vec<u8>>, Vec<PathBuf>) {
    let files = snapshot(dir);
    let temps = files.keys().filter(|p| p.to_string_lossy().contains(".kubesmith-")).cloned().collect();
    (files, temps)
}

/// Copies the files of `from` into a new folder `to`.
fn copy_tree(from: &Path, to: &Path) {
    for (rel, bytes) in snapshot(from) {
        let path = to.join(&rel);
        if rel.to_string_lossy().ends_with('/') {
            std::fs::create_dir_all(&path).unwrap();
        } else {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, bytes).unwrap();
        }
    }
    std::fs::create_dir_all(to).unwrap();
}

/// Runs `args` in a copy of `base` and sends it SIGINT after `delay`; returns the tree it left and its exit code.
fn interrupted(base: &Path, work: &Path, args: &[&str], delay: std::time::Duration) -> (PathBuf, Option<i32>) {
    let dir = work.join(format!("{}-at-{}", args[0], delay.as_micros()));
    copy_tree(base, &dir);
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("kubesmith"))
        .args(args)
        .current_dir(&dir)
        .env("SOURCE_DATE_EPOCH", "1767225600")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(delay);
    let _ = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status();
    let status = child.wait().unwrap();
    (dir, status.code())
}

#[test]
fn ctrl_c_finishes_or_rolls_back_and_leaves_no_temporary_files() {
    let work = tempfile::tempdir().unwrap();
    let empty = work.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let project = init(work.path(), "memcached-operator", &[]);
    let api = ["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"];
    let init_args = ["init", "--domain", "example.com", "--project-name", "memcached-operator"];
    for (base, args) in [(&project, &api[..]), (&empty, &init_args[..])] {
        let complete = work.path().join(format!("complete-{}", args[0]));
        copy_tree(base, &complete);
        ks(&complete).args(args).assert().success();
        let (before, after) = (snapshot(base), snapshot(&complete));
        let mut outcomes = std::collections::BTreeSet::new();
        for ms in (0..=30u64).map(|i| i * 15) {
            let (dir, code) = interrupted(base, work.path(), args, std::time::Duration::from_millis(ms));
            let (files, temps) = tree(&dir);
            assert!(temps.is_empty(), "{args:?} interrupted after {ms} ms left {temps:?}");
            let state = if files == before {
                "unchanged"
            } else if files == after {
                "complete"
            } else {
                let partial: Vec<_> = files.keys().filter(|p| before.get(*p) != files.get(*p)).collect();
                panic!("{args:?} interrupted after {ms} ms left a partial tree (exit {code:?}): {partial:?}");
            };
            assert!(
                code == Some(130)
                    || (state == "unchanged" && code.is_none())
                    || (state == "complete" && code == Some(0)),
                "{args:?} after {ms} ms: {state}, exit {code:?}"
            );
            outcomes.insert(state);
        }
        eprintln!("{args:?}: {outcomes:?}");
    }
}

#[test]
fn make_bundle_says_it_checks_the_crds_unless_quiet() {
    let parent = tempfile::tempdir().unwrap();
    let dir = memcached(parent.path());
    let out = ks(&dir).args(["make", "bundle", "--version", "0.1.0"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{}", output(&out));
    let what = "checking that config/crd/bases is current with src/";
    assert!(stderr.contains(&format!("{what} ...\n")) && stderr.contains(&format!("{what}: done in ")), "{stderr}");
    let out = ks(&dir).args(["make", "bundle", "--version", "0.1.0", "-q"]).output().unwrap();
    assert!(out.status.success() && out.stderr.is_empty(), "{}", output(&out));
}
