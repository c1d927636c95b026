//! Command-line conventions: help with examples, version, exit codes.

use crate::support::ks;

#[test]
fn every_command_has_help_with_an_example() {
    let dir = tempfile::tempdir().unwrap();
    for args in [vec!["init"], vec!["create", "api"], vec!["make", "manifests"]] {
        let out = ks(dir.path()).args(&args).arg("--help").assert().success().get_output().stdout.clone();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("Example"), "{args:?} --help has no example:\n{text}");
        assert!(text.contains("--dry-run"), "{args:?} --help has no --dry-run:\n{text}");
    }
}

#[test]
fn version_is_printed() {
    let dir = tempfile::tempdir().unwrap();
    let out = ks(dir.path()).arg("--version").assert().success().get_output().stdout.clone();
    assert_eq!(String::from_utf8(out).unwrap().trim(), format!("kubesmith {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    ks(dir.path()).arg("frobnicate").assert().code(2);
    ks(dir.path()).arg("init").assert().code(2); // --domain is required
    ks(dir.path()).args(["init", "--domain", "example.com", "--k8s-version", "1.20"]).assert().code(2);
}

#[test]
fn invalid_names_exit_2_and_write_nothing() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("Bad_Name");
    std::fs::create_dir(&dir).unwrap();
    let out = ks(&dir).args(["init", "--domain", "example.com"]).assert().code(2).get_output().stderr.clone();
    let err = String::from_utf8(out).unwrap();
    assert!(err.contains("project name `bad_name` is invalid") && err.contains("--project-name"), "{err}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    ks(&dir).args(["init", "--domain", "Example.COM", "--project-name", "ok"]).assert().code(2);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}

/// Every leaf command's path (`["create", "api"]`, ...).
fn command_paths() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, prefix: &[String], out: &mut Vec<Vec<String>>) {
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let path: Vec<String> = prefix.iter().cloned().chain([sub.get_name().to_string()]).collect();
            if sub.has_subcommands() {
                walk(sub, &path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&<kubesmith::cli::Cli as clap::CommandFactory>::command(), &[], &mut out);
    out
}

/// The examples of every command's help, at 80 and 110 columns, can be copied and pasted: each command is one line
/// or continues with a trailing ` \` onto indented lines, and a `\` never stands inside a line.
#[test]
fn help_examples_paste_as_written_at_any_width() {
    let dir = tempfile::tempdir().unwrap();
    let starts = ["kubesmith ", "KUBEBUILDER_ASSETS=", "eval ", "mkdir ", "cd ", "#"];
    for columns in ["80", "110"] {
        for path in command_paths() {
            let out = ks(dir.path()).args(&path).arg("--help").env("COLUMNS", columns).output().unwrap();
            let text = String::from_utf8(out.stdout).unwrap();
            let Some(at) = text.find("Example") else { continue };
            let mut continued = false;
            for line in text[at..].lines().skip(1).take_while(|l| !l.trim().is_empty()) {
                let at = format!("{path:?} at {columns} columns: {line:?} in\n{}", &text[at..]);
                assert!(line.chars().count() <= columns.parse().unwrap(), "too long: {at}");
                let body = line.trim_start();
                let indent = line.len() - body.len();
                if continued {
                    assert!(indent >= 4, "a continuation line is not indented: {at}");
                } else {
                    assert!(indent == 2 && starts.iter().any(|s| body.starts_with(s)), "no command starts here: {at}");
                }
                let code = body.split("  #").next().unwrap().trim_end();
                assert!(!code.trim_end_matches('\\').contains(" \\ "), "a `\\` inside a line: {at}");
                continued = code.ends_with(" \\");
            }
            assert!(!continued, "{path:?}: the last example ends with `\\`");
        }
    }
}
