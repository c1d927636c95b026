//! The CLI conveniences: shell completion, the marker reference, quiet/verbose output and colour.

use crate::support::ks;

#[test]
fn completion_scripts_name_the_subcommands() {
    let dir = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let out = ks(dir.path()).args(["completion", shell]).assert().success().get_output().stdout.clone();
        let script = String::from_utf8(out).unwrap();
        assert!(!script.trim().is_empty(), "{shell}: empty script");
        for word in ["create", "manifests", "markers", "completion"] {
            assert!(script.contains(word), "{shell}: the script does not mention `{word}`");
        }
    }
}

#[test]
fn completion_of_an_unknown_shell_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    ks(dir.path()).args(["completion", "tcsh"]).assert().code(2);
    ks(dir.path()).arg("completion").assert().code(2);
}

#[test]
fn markers_lists_every_marker_with_its_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let out = ks(dir.path()).arg("markers").assert().success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    for name in ["+kubebuilder:rbac", "+kubebuilder:webhook", "+kubebuilder:validation:Minimum", "+listType"] {
        assert!(text.contains(name), "missing {name}:\n{text}");
    }
    assert!(text.contains("verbs") && text.contains("string list, required"), "{text}");
}

#[test]
fn markers_prefix_filters_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = ks(dir.path()).args(["markers", "kubebuilder:validation"]).assert().success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("+kubebuilder:validation:Minimum=<number>"), "{text}");
    assert!(!text.contains("  +kubebuilder:rbac") && !text.contains("  +listType"), "{text}");
    // A leading `+` is accepted; a prefix no marker has fails with a suggestion.
    ks(dir.path()).args(["markers", "+kubebuilder:rbac"]).assert().success();
    let err = ks(dir.path()).args(["markers", "kubebuilder:rbca"]).assert().code(1).get_output().stderr.clone();
    let err = String::from_utf8(err).unwrap();
    assert!(err.contains("no marker starts with `kubebuilder:rbca`") && err.contains("kubebuilder:rbac"), "{err}");
}

#[test]
fn markers_json_is_valid_and_typed() {
    let dir = tempfile::tempdir().unwrap();
    let out = ks(dir.path()).args(["markers", "--output", "json"]).assert().success().get_output().stdout.clone();
    let doc: serde_json::Value = serde_json::from_slice(&out).expect("valid JSON");
    let markers = doc.as_array().expect("an array of markers");
    let rbac = markers.iter().find(|m| m["name"] == "kubebuilder:rbac").expect("kubebuilder:rbac");
    assert_eq!(rbac["section"], "rbac");
    let verbs = rbac["arguments"].as_array().unwrap().iter().find(|a| a["name"] == "verbs").unwrap();
    assert_eq!(verbs["type"], "string list");
    assert_eq!(verbs["required"], true);
    let list_type = markers.iter().find(|m| m["name"] == "listType").unwrap();
    assert_eq!(list_type["arguments"][0]["values"], serde_json::json!(["map", "set", "atomic"]));

    let out = ks(dir.path()).args(["markers", "kubebuilder:validation:Max", "--output", "json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    assert!(
        doc.as_array().unwrap().iter().all(|m| m["name"].as_str().unwrap().starts_with("kubebuilder:validation:Max"))
    );
}

#[test]
fn markers_markdown_with_a_prefix_is_only_that_part() {
    let dir = tempfile::tempdir().unwrap();
    let out = ks(dir.path()).args(["markers", "listType", "--output", "markdown"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.starts_with("## Topology"), "{text}");
    assert!(text.contains("| `+listType=<map\\|set\\|atomic>` |"), "{text}");
}

#[test]
fn new_commands_have_help_with_examples() {
    let dir = tempfile::tempdir().unwrap();
    for cmd in ["completion", "markers"] {
        let out = ks(dir.path()).args([cmd, "--help"]).assert().success().get_output().stdout.clone();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("Examples:") && text.contains(&format!("kubesmith {cmd} ")), "{cmd}:\n{text}");
    }
}

fn stdout_of(cmd: &mut assert_cmd::Command) -> String {
    String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap()
}

#[test]
fn quiet_init_prints_nothing_on_stdout() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("op");
    std::fs::create_dir(&dir).unwrap();
    let out = ks(&dir).args(["-q", "init", "--domain", "example.com"]).assert().success();
    assert!(out.get_output().stdout.is_empty(), "{}", String::from_utf8_lossy(&out.get_output().stdout));
    assert!(&dir.join("PROJECT").is_file());
    // Errors are still reported.
    let err = ks(&dir).args(["init", "--domain", "example.com", "--quiet"]).assert().code(1);
    assert!(String::from_utf8_lossy(&err.get_output().stderr).contains("error: "));
}

#[test]
fn verbose_init_prints_every_operation_and_timings() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("op");
    std::fs::create_dir(&dir).unwrap();
    let text = stdout_of(ks(&dir).args(["init", "--domain", "example.com", "--verbose"]));
    let planned = text.lines().filter(|l| l.starts_with("  create ")).count();
    let created = text.lines().filter(|l| l.starts_with("create ")).count();
    assert!(planned > 10 && planned == created, "{planned} planned, {created} created:\n{text}");
    for file in ["Cargo.toml", "PROJECT", "src/main.rs"] {
        assert!(text.contains(&format!("  create    {file}\n")), "{file}:\n{text}");
    }
    let timing = regex::Regex::new(r"planned \d+ operation\(s\) in \d+\.\d ms").unwrap();
    assert!(timing.is_match(&text), "{text}");
    assert!(text.contains(" ms in all"), "{text}");
    // -q and -v together are a usage error.
    ks(&dir).args(["-q", "-v", "make", "manifests"]).assert().code(2);
}

#[test]
fn no_escape_codes_without_a_terminal_or_with_no_color() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["a", "b", "c"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
    }
    // Not a terminal: plain.
    let text =
        stdout_of(ks(&dir.path().join("a")).args(["init", "--domain", "example.com"]).env_remove("CLICOLOR_FORCE"));
    assert!(text.contains("create    PROJECT") && !text.contains("\x1b["), "{text:?}");
    // Forced colour (what a terminal gets) colours the labels only ...
    let text =
        stdout_of(ks(&dir.path().join("b")).args(["init", "--domain", "example.com"]).env("CLICOLOR_FORCE", "1"));
    assert!(text.contains("\x1b[32mcreate\x1b[0m    PROJECT"), "{text:?}");
    // ... and NO_COLOR wins over it, on stdout and stderr (the second init in `c` fails: its error is checked).
    for (sub, args) in [("c", vec!["init", "--domain", "example.com"]), ("c", vec!["init", "--domain", "example.com"])]
    {
        let out =
            ks(&dir.path().join(sub)).args(&args).env("CLICOLOR_FORCE", "1").env("NO_COLOR", "1").output().unwrap();
        let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(!all.contains("\x1b["), "{all:?}");
    }
}
