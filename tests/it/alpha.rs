//! `kubesmith alpha generate` (replaying PROJECT gives the scaffolded tree byte for byte: the standard project,
//! multigroup, built-in and external types; refusals; in place on a clean git tree) and `kubesmith alpha update`
//! (a three-way merge of today's templates that keeps the user's edits).

use std::path::{Path, PathBuf};

use crate::support::{assert_same_tree, create_api, init, ks, read, repo_root, snapshot, standard_project};

fn stdout(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

fn stderr(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stderr).into_owned()
}

fn create_webhook(dir: &Path, args: &[&str]) {
    ks(dir).args(["create", "webhook"]).args(args).assert().success();
}

/// The replay runs in a fresh folder and reads nothing but PROJECT: the golden tree's own PROJECT, alone in a
/// folder, replays into the golden tree. The clock is moved on to show the year comes from PROJECT.
#[test]
fn replaying_the_standard_projects_project_file_gives_its_tree_byte_for_byte() {
    let golden = repo_root().join("tests/golden/memcached-operator");
    let parent = tempfile::tempdir().unwrap();
    let input = parent.path().join("input");
    std::fs::create_dir(&input).unwrap();
    std::fs::copy(golden.join("PROJECT"), input.join("PROJECT")).unwrap();
    let out = ks(parent.path())
        .env("SOURCE_DATE_EPOCH", "1924992000") // 2031
        .args(["alpha", "generate", "--input-dir", "input", "--output-dir", "replay"])
        .assert()
        .success();
    let said = stdout(&out);
    for line in [
        "replay: kubesmith init --domain example.com --project-name memcached-operator --owner 'The Memcached Authors' \
         --copyright-year 2026 --k8s-version 1.37",
        "replay: kubesmith create api --group cache --version v1alpha1 --kind Memcached",
        "replay: kubesmith create api --group cache --version v1 --kind Cluster --namespaced=false",
        "replay: kubesmith create api --group cache --version v1 --kind Match",
        "replay: kubesmith create api --group cache --version v1beta1 --kind Memcached --controller=false",
        "replay: kubesmith create webhook --group cache --version v1alpha1 --kind Memcached --defaulting \
         --programmatic-validation --conversion --spoke v1beta1",
        "replay: kubesmith make manifests",
    ] {
        assert!(said.lines().any(|l| l == line), "`{line}` not replayed:\n{said}");
    }
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    // The golden tree keeps no copy of the vendored runtime's sources (its test compares them with `runtime/src`).
    let sources = parent.path().join("replay/vendor/kubesmith-runtime/src");
    assert!(sources.join("manager.rs").is_file(), "the replay vendors kubesmith-runtime");
    std::fs::remove_dir_all(sources).unwrap();
    assert_same_tree(&parent.path().join("replay"), &golden);
    // the standard project scaffolded now replays into itself too (the golden test ties it to the golden tree)
    let fresh = standard_project(parent.path());
    ks(&fresh).args(["alpha", "generate"]).assert().success();
    assert_same_tree(&parent.path().join("memcached-operator-generated"), &fresh);
}

#[test]
fn a_multigroup_project_replays_byte_for_byte() {
    let parent = tempfile::tempdir().unwrap();
    let dir =
        init(parent.path(), "fleet", &["--multigroup", "--k8s-version", "1.34", "--repo", "https://example.com/f"]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    create_api(&dir, &["--group", "ship", "--version", "v1", "--kind", "Frigate", "--plural", "frigatez"]);
    create_api(
        &dir,
        &["--group", "ship", "--version", "v2", "--kind", "Frigate", "--plural", "frigatez", "--controller=false"],
    );
    create_api(&dir, &["--group", "apps", "--version", "v1", "--kind", "Deployment", "--resource=false"]);
    create_api(&dir, &["--group", "ship", "--version", "v1", "--kind", "Harbor", "--namespaced=false"]);
    // PROJECT does not record when webhooks were made: the replay makes them after the APIs, in PROJECT order
    create_webhook(&dir, &["--group", "ship", "--version", "v2", "--kind", "Frigate", "--conversion", "--spoke", "v1"]);
    create_webhook(&dir, &["--group", "ship", "--version", "v1", "--kind", "Harbor", "--programmatic-validation"]);
    ks(&dir).args(["make", "manifests"]).assert().success();
    let out = ks(&dir).args(["alpha", "generate"]).assert().success();
    assert!(stdout(&out).contains("--k8s-version 1.34 --multigroup\n"), "{}", stdout(&out));
    assert_same_tree(&parent.path().join("fleet-generated"), &dir);
}

/// Types the project does not define: a webhook on Pods made before any API (its PROJECT entry comes first), a
/// controller over Deployments, an external type from a local crate with a webhook added later, a cluster-scoped
/// external type, and a webhook on an external type no `create api` registered. No license: no notice to date.
#[test]
fn a_project_with_built_in_and_external_types_replays_byte_for_byte() {
    let parent = tempfile::tempdir().unwrap();
    let fixture = repo_root().join("tests/fixtures/external/acme-crds");
    let crate_dir = parent.path().join("acme-crds");
    std::fs::create_dir_all(crate_dir.join("src")).unwrap();
    for f in ["Cargo.toml", "src/lib.rs"] {
        std::fs::copy(fixture.join(f), crate_dir.join(f)).unwrap();
    }
    let dir = init(parent.path(), "op", &["--license", "none"]);
    create_webhook(&dir, &["--group", "core", "--version", "v1", "--kind", "Pod", "--defaulting"]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    create_api(&dir, &["--group", "apps", "--version", "v1", "--kind", "Deployment", "--resource=false"]);
    create_api(
        &dir,
        &[
            "--group",
            "cert-manager",
            "--version",
            "v1",
            "--kind",
            "Issuer",
            "--resource=false",
            "--external-api-path",
            "acme_crds::v1::Issuer",
            "--external-api-crate",
            "acme-crds@../acme-crds",
            "--external-api-domain",
            "io",
        ],
    );
    create_api(
        &dir,
        &[
            "--group",
            "cert-manager",
            "--version",
            "v1",
            "--kind",
            "ClusterIssuer",
            "--resource=false",
            "--namespaced=false",
            "--external-api-path",
            "acme_crds::v1::ClusterIssuer",
            "--external-api-domain",
            "io",
        ],
    );
    create_webhook(&dir, &["--group", "cert-manager", "--version", "v1", "--kind", "Issuer", "--defaulting"]);
    create_webhook(
        &dir,
        &[
            "--group",
            "widgets.acme.org",
            "--version",
            "v2",
            "--kind",
            "Widget",
            "--programmatic-validation",
            "--external-api-path",
            "acme_crds::widgets",
        ],
    );
    ks(&dir).args(["make", "manifests"]).assert().success();
    let out = ks(&dir).args(["alpha", "generate"]).assert().success();
    let said = stdout(&out);
    let first_webhook = said.find("create webhook --group core --version v1 --kind Pod").unwrap();
    assert!(first_webhook < said.find("create api --group cache").unwrap(), "{said}");
    assert!(said.contains("--external-api-crate acme-crds@../acme-crds --external-api-domain io\n"), "{said}");
    assert!(said.contains("--external-api-domain io --namespaced=false\n"), "{said}");
    assert_same_tree(&parent.path().join("op-generated"), &dir);
}

/// A PROJECT from before kubesmith recorded init's license, owner and year replays with their defaults, saying so;
/// settings no command writes (`crd: {compile: false}`) are carried over.
#[test]
fn an_older_project_file_replays_with_defaults_and_keeps_hand_written_settings() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "op", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1", "--kind", "Memcached"]);
    let project = read(&dir.join("PROJECT"));
    let older: String = project
        .lines()
        .filter(|l| !["copyrightYear:", "license:", "owner:"].iter().any(|k| l.trim_start().starts_with(k)))
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        .replace("    k8sVersion:", "    crd:\n      compile: false\n    k8sVersion:");
    std::fs::write(dir.join("PROJECT"), &older).unwrap();
    let out = ks(&dir).args(["alpha", "generate", "--output-dir", "../replay"]).assert().success();
    let err = stderr(&out);
    assert!(err.contains("note: PROJECT records no license"), "{err}");
    assert!(err.contains("no copyright owner: the replay uses `The op authors`"), "{err}");
    assert!(err.contains("no copyright year: the replay uses this year"), "{err}");
    assert!(stdout(&out).contains("note: kept PROJECT settings no command writes: `crd`"), "{}", stdout(&out));
    let replayed = read(&parent.path().join("replay/PROJECT"));
    assert!(replayed.contains("    crd:\n      compile: false\n"), "{replayed}");
    // the replay records what it used
    assert!(replayed.contains("license: apache2") && replayed.contains("owner: The op authors"), "{replayed}");
    assert_eq!(read(&parent.path().join("replay/LICENSE")), read(&dir.join("LICENSE")));
}

#[test]
fn refusals_leave_everything_as_it_was() {
    let parent = tempfile::tempdir().unwrap();
    let empty = parent.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let before = snapshot(parent.path());
    let out = ks(&empty).args(["alpha", "generate"]).assert().code(1);
    assert!(stderr(&out).contains("no PROJECT file in"), "{}", stderr(&out));
    assert_eq!(snapshot(parent.path()), before);

    let dir = init(parent.path(), "op", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1", "--kind", "Memcached"]);
    std::fs::create_dir(parent.path().join("taken")).unwrap();
    std::fs::write(parent.path().join("taken/notes.txt"), "mine").unwrap();
    let before = snapshot(parent.path());
    let refused = |args: &[&str], expect: &str| {
        let out = ks(&dir).args(["alpha", "generate"]).args(args).assert().code(1);
        assert!(stderr(&out).contains(expect), "{args:?}: {}", stderr(&out));
        assert_eq!(snapshot(parent.path()), before, "{args:?} changed something");
    };
    refused(&["--output-dir", "../taken"], "already exists and is not empty");
    refused(&["--output-dir", "../none/replay"], "does not exist: create it first");
    // in place needs git
    refused(&["--output-dir", "."], "only in a git repository");

    // an adopted project was never scaffolded: nothing to replay
    let project = read(&dir.join("PROJECT"));
    std::fs::write(dir.join("PROJECT"), project.replace("    k8sVersion:", "    adopted: true\n    k8sVersion:"))
        .unwrap();
    let before = snapshot(parent.path());
    let out = ks(&dir).args(["alpha", "generate"]).assert().code(1);
    assert!(stderr(&out).contains("adopted (`kubesmith adopt`), not scaffolded"), "{}", stderr(&out));
    assert_eq!(snapshot(parent.path()), before);
}

/// A step that fails (a kind PROJECT holds that `create api` refuses) stops the replay naming the command, and
/// leaves neither the output folder nor the staging folder behind.
#[test]
fn a_failing_replay_names_the_command_and_leaves_nothing() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "op", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1", "--kind", "Memcached"]);
    let project = read(&dir.join("PROJECT")).replace("kind: Memcached", "kind: memcached");
    std::fs::write(dir.join("PROJECT"), project).unwrap();
    let before = snapshot(parent.path());
    let out = ks(&dir).args(["alpha", "generate"]).assert().code(1);
    let err = stderr(&out);
    assert!(
        err.contains("replaying `kubesmith create api --group cache --version v1 --kind memcached` failed"),
        "{err}"
    );
    assert_eq!(snapshot(parent.path()), before, "the replay left files behind");
}

#[test]
fn dry_run_prints_the_commands_and_writes_nothing() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "op", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1", "--kind", "Memcached"]);
    let before = snapshot(parent.path());
    let out = ks(&dir).args(["alpha", "generate", "--dry-run"]).assert().success();
    assert!(stdout(&out).contains("replay: kubesmith create api --group cache --version v1 --kind Memcached\n"));
    assert!(stdout(&out).contains("dry run: 3 command(s) would be replayed into"), "{}", stdout(&out));
    assert_eq!(snapshot(parent.path()), before);
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git").args(args).current_dir(dir).output().expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A git repository holding a committed project (user and email set locally, as the update commits).
fn repo_with_project(parent: &Path) -> PathBuf {
    let dir = init(parent, "memcached-operator", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    ks(&dir).args(["make", "manifests"]).assert().success();
    commit_all(&dir, "scaffold", true);
    dir
}

fn commit_all(dir: &Path, message: &str, first: bool) {
    if first {
        git(dir, &["init", "--quiet", "--initial-branch=main"]);
        git(dir, &["config", "user.name", "Test"]);
        git(dir, &["config", "user.email", "test@example.com"]);
        git(dir, &["config", "commit.gpgsign", "false"]);
    }
    git(dir, &["add", "--all"]);
    git(dir, &["commit", "--quiet", "-m", message]);
}

/// `--output-dir .` on a clean git tree: the tracked files become the replay's (an edit reverted, a file the
/// scaffold does not make removed), `.git`, `Cargo.lock` and ignored files stay; `git diff` shows the difference.
/// A dirty tree is refused.
#[test]
fn in_place_on_a_clean_git_tree_only() {
    let parent = tempfile::tempdir().unwrap();
    let dir = repo_with_project(parent.path());
    let controller = dir.join("src/controller/memcached.rs");
    let scaffolded = read(&controller);
    std::fs::write(&controller, scaffolded.replace("has been reconciled", "is ready")).unwrap();
    std::fs::write(dir.join("NOTES.md"), "mine\n").unwrap();
    std::fs::write(dir.join("Cargo.lock"), "# pinned\n").unwrap();
    std::fs::create_dir_all(dir.join("target/debug")).unwrap();
    std::fs::write(dir.join("target/debug/build.log"), "ignored\n").unwrap();

    let before = snapshot(&dir);
    let out = ks(&dir).args(["alpha", "generate", "--output-dir", "."]).assert().code(1);
    assert!(stderr(&out).contains("uncommitted changes") && stderr(&out).contains("NOTES.md"), "{}", stderr(&out));
    assert_eq!(snapshot(&dir), before);

    commit_all(&dir, "user edits", false);
    let out = ks(&dir).args(["alpha", "generate", "--output-dir", "."]).assert().success();
    assert!(stdout(&out).contains("remove    NOTES.md"), "{}", stdout(&out));
    assert_eq!(read(&controller), scaffolded);
    assert!(!dir.join("NOTES.md").exists());
    assert_eq!(read(&dir.join("Cargo.lock")), "# pinned\n");
    assert_eq!(read(&dir.join("target/debug/build.log")), "ignored\n");
    let status = git(&dir, &["status", "--porcelain"]);
    assert_eq!(status, " D NOTES.md\n M src/controller/memcached.rs\n");
}

/// Stands in for an older kubesmith whose templates differed from today's in two places: the first line of the
/// Makefile (a file the user never touches) and the doc comment of the controller's resync interval (in the file
/// whose reconciler the user edits). It runs today's kubesmith and changes those lines back, which is exactly what
/// that version's `alpha generate` would give.
const OLD_DOC: &str = "/// How often a reconciled object is looked at again.";
const NEW_DOC: &str = "/// Periodic resync interval after a successful reconcile.";
const OLD_MAKEFILE_LINE: &str = "# Makefile of kubesmith 0.0.9";

fn to_old_templates(dir: &Path) {
    let controller = dir.join("src/controller/memcached.rs");
    let text = read(&controller);
    assert!(text.contains(NEW_DOC), "the controller template changed: pick another line for this test");
    std::fs::write(&controller, text.replace(NEW_DOC, OLD_DOC)).unwrap();
    let makefile = read(&dir.join("Makefile"));
    let rest = makefile.split_once('\n').unwrap().1;
    std::fs::write(dir.join("Makefile"), format!("{OLD_MAKEFILE_LINE}\n{rest}")).unwrap();
}

#[cfg(unix)]
fn old_kubesmith(parent: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let real = assert_cmd::cargo::cargo_bin("kubesmith");
    let script = format!(
        "#!/bin/sh\nset -e\n'{}' \"$@\"\nif [ \"$1\" = alpha ] && [ \"$2\" = generate ]; then\n  out=\n  prev=\n  \
         for a in \"$@\"; do [ \"$prev\" = --output-dir ] && out=\"$a\"; prev=\"$a\"; done\n  \
         sed -i 's|^{NEW_DOC}$|{OLD_DOC}|' \"$out/src/controller/memcached.rs\"\n  \
         sed -i '1s|.*|{OLD_MAKEFILE_LINE}|' \"$out/Makefile\"\nfi\n",
        real.display()
    );
    let path = parent.join("kubesmith-old");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The project as the "older" kubesmith scaffolded it, committed, then edited by its user in the reconciler and
/// the type, committed again.
fn project_scaffolded_by_the_old_templates(parent: &Path) -> PathBuf {
    let dir = init(parent, "memcached-operator", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    ks(&dir).args(["make", "manifests"]).assert().success();
    to_old_templates(&dir);
    commit_all(&dir, "scaffold", true);
    let controller = dir.join("src/controller/memcached.rs");
    std::fs::write(
        &controller,
        read(&controller).replace("\"Memcached has been reconciled\"", "\"Memcached is ready\""),
    )
    .unwrap();
    let types = dir.join("src/api/v1alpha1/memcached.rs");
    let with_size = read(&types).replace(
        "    pub foo: Option<String>,\n}",
        "    pub foo: Option<String>,\n    /// Number of memcached pods.\n    pub size: i32,\n}",
    );
    std::fs::write(&types, with_size).unwrap();
    commit_all(&dir, "user edits", false);
    dir
}

#[cfg(unix)]
#[test]
fn alpha_update_keeps_the_users_edits_and_brings_the_template_changes() {
    let parent = tempfile::tempdir().unwrap();
    let old = old_kubesmith(parent.path());
    let dir = project_scaffolded_by_the_old_templates(parent.path());
    let main_before = git(&dir, &["rev-parse", "main"]);

    let out = ks(&dir).args(["alpha", "update", "--ancestor-binary"]).arg(&old).assert().success();
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert!(said.contains("merged without conflicts"), "{said}");
    assert!(said.contains("replay: kubesmith create api --group cache --version v1alpha1 --kind Memcached"), "{said}");
    assert_eq!(git(&dir, &["branch", "--show-current"]), "kubesmith-merge\n");
    assert_eq!(git(&dir, &["rev-parse", "main"]), main_before, "the user's branch moved");
    assert_eq!(git(&dir, &["status", "--porcelain"]), "");

    let controller = read(&dir.join("src/controller/memcached.rs"));
    assert!(controller.contains("\"Memcached is ready\""), "the user's reconciler edit is lost");
    assert!(controller.contains(NEW_DOC) && !controller.contains(OLD_DOC), "the template change did not come");
    assert!(read(&dir.join("src/api/v1alpha1/memcached.rs")).contains("pub size: i32,"), "the type edit is lost");
    let makefile = read(&dir.join("Makefile"));
    assert!(!makefile.starts_with(OLD_MAKEFILE_LINE), "the untouched file kept the old template");

    // the branches hold what they say
    let ancestor_makefile = git(&dir, &["show", "kubesmith-ancestor:Makefile"]);
    assert!(ancestor_makefile.starts_with(OLD_MAKEFILE_LINE));
    assert_eq!(git(&dir, &["show", "kubesmith-upgrade:Makefile"]), makefile);
    assert_eq!(git(&dir, &["rev-parse", "kubesmith-original^{tree}"]), git(&dir, &["rev-parse", "main^{tree}"]));
    assert_eq!(git(&dir, &["rev-parse", "kubesmith-original^"]), git(&dir, &["rev-parse", "kubesmith-ancestor"]));
    assert_eq!(git(&dir, &["rev-parse", "kubesmith-upgrade^"]), git(&dir, &["rev-parse", "kubesmith-ancestor"]));
}

/// The user changed the very line the template changed: the conflict is left marked and listed.
#[cfg(unix)]
#[test]
fn alpha_update_leaves_conflicts_marked_and_lists_them() {
    let parent = tempfile::tempdir().unwrap();
    let old = old_kubesmith(parent.path());
    let dir = project_scaffolded_by_the_old_templates(parent.path());
    let controller = dir.join("src/controller/memcached.rs");
    std::fs::write(&controller, read(&controller).replace(OLD_DOC, "/// Resync interval (our own words).")).unwrap();
    commit_all(&dir, "reword", false);
    let out = ks(&dir).args(["alpha", "update", "--ancestor-binary"]).arg(&old).assert().success();
    assert!(stderr(&out).contains("1 file(s) have conflicts, marked in the files: src/controller/memcached.rs"));
    let text = read(&controller);
    assert!(
        text.contains("<<<<<<<") && text.contains("/// Resync interval (our own words).") && text.contains(NEW_DOC)
    );
    assert_eq!(git(&dir, &["branch", "--show-current"]), "kubesmith-merge\n");
}

/// Without an older kubesmith, today's templates stand for the ancestor's, and the output says so: the merge keeps
/// the user's tree as it is.
#[test]
fn alpha_update_without_an_older_kubesmith_says_the_ancestor_uses_todays_templates() {
    let parent = tempfile::tempdir().unwrap();
    let dir = project_scaffolded_by_the_old_templates(parent.path());
    let out = ks(&dir).args(["alpha", "update", "--from-branch", "main"]).assert().success();
    let err = stderr(&out);
    assert!(err.contains("the ancestor is replayed with this kubesmith's templates"), "{err}");
    assert!(err.contains("--ancestor-binary"), "{err}");
    assert_eq!(git(&dir, &["rev-parse", "kubesmith-merge^{tree}"]), git(&dir, &["rev-parse", "main^{tree}"]));
    for branch in ["kubesmith-ancestor", "kubesmith-upgrade", "kubesmith-original", "kubesmith-merge"] {
        git(&dir, &["rev-parse", "--verify", branch]);
    }
}

#[test]
fn alpha_update_refusals_create_no_branch() {
    let parent = tempfile::tempdir().unwrap();
    // not a repository
    let plain = init(parent.path(), "plain", &[]);
    let out = ks(&plain).args(["alpha", "update"]).assert().code(1);
    assert!(stderr(&out).contains("is not in a git repository"), "{}", stderr(&out));

    let dir = repo_with_project(parent.path());
    let branches = || git(&dir, &["branch", "--list"]);
    let before = branches();
    std::fs::write(dir.join("scratch.txt"), "wip\n").unwrap();
    let out = ks(&dir).args(["alpha", "update"]).assert().code(1);
    assert!(stderr(&out).contains("uncommitted changes (?? scratch.txt)"), "{}", stderr(&out));
    assert_eq!(branches(), before);
    std::fs::remove_file(dir.join("scratch.txt")).unwrap();

    let out = ks(&dir).args(["alpha", "update", "--dry-run"]).assert().success();
    assert!(stdout(&out).contains("dry run: would commit the replays"), "{}", stdout(&out));
    assert_eq!(branches(), before);
    let out = ks(&dir).args(["alpha", "update", "--from-branch", "nope"]).assert().code(1);
    assert!(stderr(&out).contains("there is no branch `nope`"), "{}", stderr(&out));
    git(&dir, &["branch", "kubesmith-merge"]);
    let before = branches();
    let out = ks(&dir).args(["alpha", "update"]).assert().code(1);
    assert!(stderr(&out).contains("branch `kubesmith-merge` already exists"), "{}", stderr(&out));
    assert_eq!(branches(), before);
    assert_eq!(git(&dir, &["status", "--porcelain"]), "");
}
