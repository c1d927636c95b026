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
    let dir = parent.path().join("p");
    std::fs::create_dir_all(&dir).unwrap();
    let missing = parent.path().join("no-such-rustfmt");
    let out = ks(&dir)
        .args(["init", "--domain", "example.com"])
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
    // The templates are written formatted: with a short name the rendered tree is the formatted one.
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
    for file in ["src/webhook.rs", "src/manager/health.rs", "src/controller/memcached.rs"] {
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
