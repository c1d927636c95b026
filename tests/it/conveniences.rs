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
