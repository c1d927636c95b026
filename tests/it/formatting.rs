//! How scaffolded Rust files are formatted: with the configuration `rustfmt` finds from the working folder, never
//! one near the temporary folder kubesmith formats in, and without `rustfmt` as rendered, with a note.

use std::path::Path;
use std::process::Command;

use crate::support::{init, ks, snapshot};

/// Whether `rustfmt` runs here; the tests that need it pass without it, saying so.
fn rustfmt_works() -> bool {
    let works = Command::new("rustfmt").arg("--version").output().is_ok_and(|o| o.status.success());
    if !works {
        eprintln!("rustfmt unavailable here");
    }
    works
}

/// `rustfmt --check` over the crate from its roots, as `cargo fmt --check` runs it.
fn assert_rustfmt_clean(dir: &Path) {
    let out = Command::new("rustfmt")
        .args(["--edition", "2024", "--check", "src/main.rs", "src/lib.rs"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "not rustfmt clean:\n{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn without_rustfmt_the_files_are_written_as_rendered_with_a_note() {
    let parent = tempfile::tempdir().unwrap();
    let missing = parent.path().join("no-such-rustfmt");
    // A name longer than the bound kubesmith's templates are known clean for: the files that hold it need rustfmt.
    let long = "a-project-name-longer-than-any-the-templates-are-checked-with";
    let dir = parent.path().join("long");
    std::fs::create_dir_all(&dir).unwrap();
    let out = ks(&dir)
        .args(["init", "--domain", "example.com", "--project-name", long])
        .env("RUSTFMT", &missing)
        .assert()
        .success()
        .get_output()
        .clone();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("note: rustfmt is not available (cannot start rustfmt: ")
            && stdout.contains("run `cargo fmt` in the project"),
        "{stdout}"
    );
    assert_eq!(stdout.matches("rustfmt is not available").count(), 1, "one note:\n{stdout}");
    // With a short name every file is known clean: no rustfmt needed, no note, and the tree is the formatted one.
    let dir = parent.path().join("p");
    std::fs::create_dir_all(&dir).unwrap();
    let out = ks(&dir).args(["init", "--domain", "example.com"]).env("RUSTFMT", &missing).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(!stdout.contains("rustfmt"), "{stdout}");
    if rustfmt_works() {
        let formatted = init(parent.path(), "p2", &["--project-name", "p"]);
        assert_eq!(snapshot(&dir), snapshot(&formatted));
    }
}

#[test]
fn long_names_are_formatted_in_one_run() {
    if !rustfmt_works() {
        return;
    }
    let parent = tempfile::tempdir().unwrap();
    let scaffold = |folder: &str, rustfmt: &Path| {
        let dir = parent.path().join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        let name = "a-long-project-name-that-pushes-lines-past-the-width-of-rustfm";
        ks(&dir)
            .args(["init", "--domain", "some.very.long.domain.name.example.com", "--project-name", name])
            .env("RUSTFMT", rustfmt)
            .assert()
            .success();
        let kind = "AnExceptionallyLongKindNameThatRustfmtMustWrapSomewhere";
        ks(&dir)
            .args(["create", "api", "--group", "a-long-group-name", "--version", "v1alpha1", "--kind", kind])
            .env("RUSTFMT", rustfmt)
            .assert()
            .success();
        dir
    };
    let formatted = scaffold("formatted", Path::new("rustfmt"));
    assert_rustfmt_clean(&formatted);
    let rendered = scaffold("rendered", &parent.path().join("no-such-rustfmt"));
    let changed: Vec<_> = snapshot(&formatted)
        .into_iter()
        .zip(snapshot(&rendered))
        .filter(|((_, a), (_, b))| a != b)
        .map(|((path, _), _)| path)
        .collect();
    assert!(changed.len() > 1, "several files need formatting with these names: {changed:?}");
}

#[test]
fn the_working_folders_configuration_formats_every_file() {
    if !rustfmt_works() {
        return;
    }
    let parent = tempfile::tempdir().unwrap();
    std::fs::write(parent.path().join("rustfmt.toml"), "hard_tabs = true\n").unwrap();
    let dir = init(parent.path(), "tabbed", &[]);
    ks(&dir).args(["create", "api", "--group", "cache", "--version", "v1", "--kind", "Memcached"]).assert().success();
    // rustfmt on the files finds the same configuration, from their folders upward.
    assert_rustfmt_clean(&dir);
    // Templates kubesmith ships formatted (with rustfmt's defaults) are formatted again.
    for file in ["tests/envtest/support.rs", "src/main.rs", "src/controller/memcached.rs"] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(text.lines().any(|l| l.starts_with('\t')), "{file} is not indented with tabs");
    }
}

#[test]
fn a_configuration_near_the_temporary_folder_is_not_used() {
    if !rustfmt_works() {
        return;
    }
    let stray = tempfile::tempdir().unwrap();
    std::fs::write(stray.path().join("rustfmt.toml"), "hard_tabs = true\n").unwrap();
    let tmpdir = stray.path().join("tmp");
    std::fs::create_dir_all(&tmpdir).unwrap();
    let parent = tempfile::tempdir().unwrap();
    let plain = init(parent.path(), "plain", &["--project-name", "p"]);
    let dir = parent.path().join("with-stray-config");
    std::fs::create_dir_all(&dir).unwrap();
    ks(&dir).args(["init", "--domain", "example.com", "--project-name", "p"]).env("TMPDIR", &tmpdir).assert().success();
    assert_eq!(snapshot(&dir), snapshot(&plain));
    assert_eq!(std::fs::read_dir(&tmpdir).unwrap().count(), 0, "the temporary folder is left empty");
}

/// One scaffold of [`scaffolds_are_rendered_formatted_and_short_names_need_no_rustfmt`]: project, domain, group, four kinds.
struct Names<'a>([&'a str; 7]);

/// Scaffolds a project with every `init` / `create api` / `create webhook` option in `dir` (with `rustfmt`
/// available or not); returns the output of each run, headed by its arguments, and the tree before the first
/// `create webhook`.
fn scaffold_everything(dir: &Path, names: &Names, init_flags: &[&str], rustfmt: &Path) -> (Vec<String>, Snapshot) {
    let [project, domain, group, k1, k2, k3, k4] = names.0;
    let image = "--image memcached:1.6 --image-container-command memcached,-m=64 --image-container-port 11211";
    let issuer = "--external-api-path acme_crds::cert_manager::v1::Issuer --external-api-crate acme-crds@0.3 \
                  --external-api-domain io";
    let mut runs: Vec<String> = vec![
        format!(
            "init --domain {domain} --repo github.com/x/{project} --project-name {project} {}",
            init_flags.join(" ")
        ),
        format!("create api --group {group} --version v1alpha1 --kind {k1}"),
        format!("create api --group {group} --version v1alpha1 --kind {k2} {image} --run-as-user 1001"),
        format!("create api --group {group} --version v1alpha1 --kind {k4} --image busybox:1.36"),
        format!("create api --group {group} --version v1beta1 --kind {k1} --controller=false"),
        "create api --group apps --version v1 --kind Deployment --resource=false".into(),
        format!("create api --group cert-manager --version v1 --kind Issuer --resource=false {issuer}"),
        format!("create webhook --group {group} --version v1alpha1 --kind {k1} --defaulting"),
        format!("create webhook --group {group} --version v1alpha1 --kind {k1} --conversion --spoke v1beta1"),
        format!("create webhook --group {group} --version v1alpha1 --kind {k2} --programmatic-validation"),
        "create webhook --group core --version v1 --kind Pod --defaulting".into(),
    ];
    if init_flags.contains(&"--multigroup") {
        runs.insert(4, format!("create api --group {group}2 --version v1 --kind {k3}"));
    }
    if !init_flags.contains(&"--namespaced") {
        runs.insert(3, format!("create api --group {group} --version v1alpha1 --kind {k3} --namespaced=false"));
    }
    let mut outputs = Vec::new();
    let mut before_webhooks = None;
    for run in &runs {
        let args: Vec<&str> = run.split_whitespace().collect();
        if args[1] == "webhook" && before_webhooks.is_none() {
            before_webhooks = Some(snapshot(dir));
        }
        let out = ks(dir).args(&args).env("RUSTFMT", rustfmt).assert().success().get_output().clone();
        outputs.push(format!("{run}: {}", String::from_utf8_lossy(&out.stdout)));
    }
    (outputs, before_webhooks.expect("the runs end with webhooks"))
}

type Snapshot = std::collections::BTreeMap<std::path::PathBuf, Vec<u8>>;

/// The speed promise of `init` and `create api` (no `rustfmt` process): with every value the templates receive at
/// most `formatted::NAME_BOUND` characters (short names that sort first and last, keywords, long realistic ones),
/// every Rust file they write is known clean, so they run without `rustfmt`. And with any names, up to 40-character
/// kinds and project names whose derived values go past the bound, every file of the whole scaffold is written as
/// `rustfmt` gives it (`ks` sets the audit, which makes kubesmith check each file it calls clean with `rustfmt`).
#[test]
fn scaffolds_are_rendered_formatted_and_short_names_need_no_rustfmt() {
    if !rustfmt_works() {
        return;
    }
    let std = ["memcached-operator", "example.com", "cache", "Memcached", "Busybox", "Frigate", "Nginx"];
    let realistic = [
        "a-rather-long-operator-name-for-tests",
        "platform.example.org",
        "infrastructure",
        "ClusterBackupSchedulePolicy",
        "DatabaseReplicaSetTemplate",
        "Match",
        "ObjectStorageBucketClaim",
    ];
    let long = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"; // 37 characters
    let [k1, k2, k3, k4] = ["K", "Z", "T", "P"].map(|first| format!("{first}{long}xx")); // 40
    let max = ["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-op-xx", "averylongdomain.io", "averyveryverylonggrp"];
    // (names, init flags, whether every value is within the bound, so that no rustfmt is needed)
    let sets = [
        (Names(std), &[][..], true),
        (Names(["a-op", "io", "x", "Ab", "Zz", "Match", "Pb"]), &[][..], true),
        (
            Names(["memcached-operator", "example.com", "cache", "Memcached", "Busybox", "Type", "Nginx"]),
            &["--namespaced"][..],
            true,
        ),
        (Names(std), &["--multigroup"][..], true),
        (Names(realistic), &["--multigroup", "--namespaced"][..], true),
        (Names(realistic), &[][..], true),
        (Names([max[0], max[1], max[2], &k1, &k2, &k3, &k4]), &[][..], false),
        (Names([max[0], max[1], max[2], &k1, &k2, &k3, &k4]), &["--multigroup", "--namespaced"][..], false),
    ];
    let parent = tempfile::tempdir().unwrap();
    let missing = parent.path().join("no-such-rustfmt");
    for (n, (names, flags, within_bound)) in sets.iter().enumerate() {
        let rendered = parent.path().join(format!("{n}-rendered/{}", names.0[0]));
        let formatted = parent.path().join(format!("{n}-formatted/{}", names.0[0]));
        std::fs::create_dir_all(&rendered).unwrap();
        std::fs::create_dir_all(&formatted).unwrap();
        let (outputs, apis_rendered) = scaffold_everything(&rendered, names, flags, &missing);
        let needed_rustfmt = |o: &String| o.contains("rustfmt is not available");
        for output in outputs.iter().filter(|o| o.starts_with("init ") || o.starts_with("create api ")) {
            assert!(!within_bound || !needed_rustfmt(output), "{output}");
        }
        let (_, apis_formatted) = scaffold_everything(&formatted, names, flags, Path::new("rustfmt"));
        assert_rustfmt_clean(&formatted);
        // Where no file needed rustfmt, what was written without it is the formatted tree.
        if *within_bound {
            let differ: Vec<_> = apis_rendered.iter().filter(|(p, b)| apis_formatted.get(*p) != Some(b)).collect();
            assert!(differ.is_empty(), "written without rustfmt, these differ: {:?}", differ.iter().map(|d| d.0));
            assert_eq!(apis_rendered.len(), apis_formatted.len());
        }
        if !outputs.iter().any(needed_rustfmt) {
            crate::support::assert_same_tree(&rendered, &formatted);
        }
    }
}
