//! `kubesmith rbac infer` through a wrapper crate the operator gets from git: not read with `--offline` (a warning
//! at the operator's call into it), fetched by `cargo metadata` otherwise, then read from the checkout cargo made,
//! with no cargo run the next time. Everything lives in a temporary folder, `CARGO_HOME` included; the git
//! repository is a `file://` one, and holds stub `kube` and `k8s-openapi` crates (kubesmith never reads them, only
//! names them), so nothing needs the network. Needs `git` and `cargo` (both in CI).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::rbac_generics::OP;
use crate::rbac_infer::{set, triples};
use crate::support::ks;

/// The kitchen fixture, whose wrapper crate is copied into the git repository.
fn kitchen() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rbac-infer/kitchen")
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn copy_dir(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            write(&target, &std::fs::read_to_string(e.path()).unwrap());
        }
    }
}

fn run(cmd: &mut Command) {
    let out = cmd.output().expect("the tool runs");
    assert!(out.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn git(dir: &Path, args: &[&str]) {
    run(Command::new("git")
        .args(["-c", "user.name=kubesmith", "-c", "user.email=kubesmith@example.org", "-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null"));
}

/// A git repository (a workspace: the wrapper `kitchen` in `kitchen/`, stubs `kube` and `k8s-openapi`) and the
/// operator `op` depending on all three through its `file://` URL, locked by cargo (with a scratch cargo home) as
/// in a fresh clone of a project that commits its Cargo.lock. Returns the operator's folder.
fn operator_using_a_git_wrapper(tmp: &Path) -> PathBuf {
    let repo = tmp.join("kitchen-repo");
    write(
        &repo.join("Cargo.toml"),
        "[workspace]\nmembers = [\"kitchen\", \"kube\", \"k8s-openapi\"]\nresolver = \"2\"\n",
    );
    write(&repo.join("kube/Cargo.toml"), "[package]\nname = \"kube\"\nversion = \"5.0.0\"\nedition = \"2021\"\n");
    write(&repo.join("kube/src/lib.rs"), "//! A stub: kubesmith knows kube's calls by name.\n");
    write(
        &repo.join("k8s-openapi/Cargo.toml"),
        "[package]\nname = \"k8s-openapi\"\nversion = \"0.29.0\"\nedition = \"2021\"\n",
    );
    write(&repo.join("k8s-openapi/src/lib.rs"), "//! A stub: kubesmith knows the built-in kinds by name.\n");
    write(
        &repo.join("kitchen/Cargo.toml"),
        "[package]\nname = \"kitchen\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n\
         kube = { path = \"../kube\" }\nk8s-openapi = { path = \"../k8s-openapi\" }\n",
    );
    copy_dir(&kitchen().join("kitchen/src"), &repo.join("kitchen/src"));
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "kitchen"]);

    let op = tmp.join("op");
    let url = format!("file://{}", repo.display());
    write(
        &op.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"op\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n\
             kitchen = {{ git = \"{url}\" }}\nkube = {{ git = \"{url}\" }}\nk8s-openapi = {{ git = \"{url}\" }}\n"
        ),
    );
    copy_dir(&kitchen().join("op/src"), &op.join("src"));
    // Only the kitchen here: the registry and git crates of the fixture's operator are not part of this one.
    let main = std::fs::read_to_string(op.join("src/main.rs")).unwrap();
    let main: String =
        main.lines().filter(|l| !l.contains("pantry::") && !l.contains("larder::")).map(|l| format!("{l}\n")).collect();
    write(&op.join("src/main.rs"), &main);
    run(Command::new(env!("CARGO"))
        .args(["generate-lockfile", "--manifest-path"])
        .arg(op.join("Cargo.toml"))
        .env("CARGO_HOME", tmp.join("scratch-cargo-home")));
    op
}

/// What `op` reaches through the kitchen: the fixture's expectation without pantry's `secrets list`.
fn expected() -> Vec<(&'static str, &'static str, &'static str)> {
    OP.iter().copied().filter(|t| *t != ("", "secrets", "list")).collect()
}

/// The line of the kitchen's entry in the operator's Cargo.lock.
fn lock_line(op: &Path) -> usize {
    let lock = std::fs::read_to_string(op.join("Cargo.lock")).unwrap();
    lock.lines().position(|l| l == "name = \"kitchen\"").unwrap() + 1
}

fn infer(op: &Path, home: &Path, extra: &[&str], cargo: Option<&Path>) -> (String, String) {
    let mut cmd = ks(op);
    cmd.env("CARGO_HOME", home).env_remove("CARGO_NET_OFFLINE").args(["rbac", "infer", "--bin", "op"]).args(extra);
    if let Some(cargo) = cargo {
        cmd.env("CARGO", cargo);
    }
    let out = cmd.assert().success();
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
    (text(&out.get_output().stdout), text(&out.get_output().stderr))
}

#[test]
fn a_git_wrapper_is_fetched_by_cargo_read_from_its_checkout_and_not_fetched_again() {
    let tmp = tempfile::tempdir().unwrap();
    let op = operator_using_a_git_wrapper(tmp.path());
    let home = tmp.path().join("cargo-home");
    std::fs::create_dir_all(&home).unwrap();

    // --offline: the wrapper's checkout is not on disk; the warning is at the operator's first use of it.
    let (stdout, stderr) = infer(&op, &home, &["--offline"], None);
    assert_eq!(triples(&stdout), set(&[]), "nothing is called but through the kitchen: {stdout}");
    let line = std::fs::read_to_string(op.join("src/main.rs"))
        .unwrap()
        .lines()
        .position(|l| l.starts_with("use kitchen::"))
        .unwrap()
        + 1;
    let lock = lock_line(&op);
    assert_eq!(
        stderr.trim_end(),
        format!(
            "warning: src/main.rs:{line}: kitchen 0.1.0 (a git dependency, Cargo.lock:{lock}) depends on kube but its git \
             checkout is not on disk, so it was not read: the role misses the API calls the code makes through \
             `kitchen::`; nothing was fetched (offline); run `cargo fetch` (or kubesmith without --offline) and infer \
             again, or pass --source with its src folder"
        )
    );
    assert!(!home.join("git").exists(), "--offline runs no cargo");

    // Without it: cargo checks the repository out under CARGO_HOME, and the wrapper's generic calls land on op's
    // kinds.
    let (stdout, stderr) = infer(&op, &home, &[], None);
    assert_eq!(triples(&stdout), set(&expected()), "{stdout}");
    assert_eq!(
        stderr.trim_end(),
        "note: kubesmith ran `cargo metadata` to fetch 1 crate the code may call kube through (kitchen); later runs \
         read it from disk"
    );
    let checkouts: Vec<PathBuf> = std::fs::read_dir(home.join("git/checkouts"))
        .unwrap()
        .flat_map(|e| std::fs::read_dir(e.unwrap().path()).unwrap())
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(checkouts.len(), 1, "{checkouts:?}");
    assert!(checkouts[0].join("kitchen/src/lib.rs").is_file(), "the wrapper sits inside the checkout");

    // Again, with a cargo that cannot run: everything is on disk, so no process is spawned.
    let no_cargo = tmp.path().join("no-such-cargo");
    let (again, stderr) = infer(&op, &home, &[], Some(&no_cargo));
    assert_eq!(again, stdout);
    assert_eq!(stderr, "");

    // A project never resolved (no Cargo.lock) is not resolved by kubesmith (that is a build's job): no cargo run,
    // nothing written.
    std::fs::remove_file(op.join("Cargo.lock")).unwrap();
    let (_, stderr) = infer(&op, &home, &[], Some(&no_cargo));
    assert_eq!(stderr, "");
    assert!(!op.join("Cargo.lock").exists());
}

#[test]
fn a_failed_fetch_leaves_the_crate_unread_and_says_what_cargo_said() {
    let tmp = tempfile::tempdir().unwrap();
    let op = operator_using_a_git_wrapper(tmp.path());
    let home = tmp.path().join("cargo-home");
    // The repository is gone: cargo cannot fetch it.
    std::fs::remove_dir_all(tmp.path().join("kitchen-repo")).unwrap();
    let (stdout, stderr) = infer(&op, &home, &[], None);
    assert_eq!(triples(&stdout), set(&[]));
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    let at = format!("warning: src/main.rs:5: kitchen 0.1.0 (a git dependency, Cargo.lock:{}) depends", lock_line(&op));
    assert!(lines[0].starts_with(&at), "{stderr}");
    assert!(lines[0].contains("kubesmith ran `cargo metadata` to fetch it, which failed: error: "), "{stderr}");
}
