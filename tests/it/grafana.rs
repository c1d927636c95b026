//! The grafana plugin: `edit --plugins grafana` and `init --plugins grafana` write the dashboards and the
//! custom-metrics config, keep the user's config on a second run and chart its metrics, refuse a malformed config
//! without writing anything, record the plugin in PROJECT, and `alpha generate` replays it.

use std::path::Path;

use crate::support::{assert_same_tree, create_api, init, ks, read, snapshot};

const RUNTIME: &str = "grafana/controller-runtime-metrics.json";
const CONFIG: &str = "grafana/custom-metrics/config.yaml";
const CUSTOM: &str = "grafana/custom-metrics/custom-metrics-dashboard.json";

fn panel_titles(path: &Path) -> Vec<String> {
    let model: serde_json::Value = serde_json::from_str(&read(path)).expect("a dashboard is JSON");
    let panels = model["panels"].as_array().expect("panels");
    panels.iter().map(|p| p["title"].as_str().expect("a title").to_string()).collect()
}

fn stdout(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

fn stderr(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stderr).into_owned()
}

#[test]
fn edit_writes_the_dashboards_and_a_second_run_keeps_the_users_config() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &[]);
    let out = ks(&dir).args(["edit", "--plugins", "grafana"]).assert().success();
    let said = stdout(&out);
    let titles = panel_titles(&dir.join(RUNTIME));
    assert!(titles.contains(&"Reconcile duration percentiles".to_string()), "{titles:?}");
    // The output lists every panel of the dashboard.
    for title in &titles {
        assert!(said.contains(&format!("    - {title}\n")), "{title} not listed:\n{said}");
    }
    assert!(read(&dir.join("PROJECT")).contains("  grafana.rust.kubesmith.io/v1alpha1: {}\n"));
    assert!(!dir.join(CUSTOM).exists(), "no custom metrics listed yet: no custom dashboard");
    let runtime = read(&dir.join(RUNTIME));

    // The user lists a metric (and edits the config's comments): the config stays, the custom dashboard charts it.
    let config = read(&dir.join(CONFIG)).replace("# Example:", "# Our metrics:")
        + "  - metric: memcached_restarts_total\n    type: counter\n    unit: ops\n";
    std::fs::write(dir.join(CONFIG), &config).unwrap();
    std::fs::write(dir.join(RUNTIME), "{}").unwrap();
    let out = ks(&dir).args(["edit", "--plugins", "grafana"]).assert().success();
    assert_eq!(read(&dir.join(CONFIG)), config, "the user's config is never overwritten");
    assert_eq!(read(&dir.join(RUNTIME)), runtime, "the runtime dashboard is regenerated, the same");
    assert_eq!(panel_titles(&dir.join(CUSTOM)), ["memcached_restarts_total"]);
    let custom: serde_json::Value = serde_json::from_str(&read(&dir.join(CUSTOM))).unwrap();
    assert_eq!(
        custom["panels"][0]["targets"][0]["expr"],
        r#"sum by (instance, pod) (rate(memcached_restarts_total{job="$job", namespace="$namespace"}[$__rate_interval]))"#
    );
    assert!(
        stdout(&out).contains(&format!("  {CUSTOM}: 1 panel\n    - memcached_restarts_total\n")),
        "{}",
        stdout(&out)
    );

    // A third run with the same config changes nothing.
    let before = snapshot(&dir);
    let out = ks(&dir).args(["edit", "--plugins", "grafana"]).assert().success();
    assert!(stdout(&out).contains("no file changed"), "{}", stdout(&out));
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn a_malformed_config_is_refused_at_its_line_and_nothing_is_written() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &["--plugins", "grafana"]);
    let config = read(&dir.join(CONFIG));
    let item_line = config.lines().count() + 1;
    std::fs::write(dir.join(CONFIG), format!("{config}  - metric: foo_seconds\n    type: summary\n")).unwrap();
    std::fs::write(dir.join(RUNTIME), "{\"panels\": []}").unwrap();
    let before = snapshot(&dir);
    let out = ks(&dir).args(["edit", "--plugins", "grafana"]).assert().code(1);
    let err = stderr(&out);
    assert!(err.contains(&format!("error: {CONFIG}:{item_line}:")), "{err}");
    assert!(err.contains("unknown metric type `summary`, expected counter, gauge or histogram"), "{err}");
    assert!(err.contains("nothing was written"), "{err}");
    assert_eq!(snapshot(&dir), before, "a refused run writes nothing");

    std::fs::write(dir.join(CONFIG), "customMetrics:\n  - metric: [unclosed\n").unwrap();
    let out = ks(&dir).args(["edit", "--plugins", "grafana"]).assert().code(1);
    assert!(stderr(&out).contains(&format!("error: {CONFIG}:")), "{}", stderr(&out));
}

#[test]
fn init_with_the_plugin_writes_what_edit_writes_and_unknown_plugins_are_usage_errors() {
    let parent = tempfile::tempdir().unwrap();
    let with = init(parent.path(), "memcached-operator", &["--plugins", "grafana"]);
    let later = parent.path().join("later");
    std::fs::create_dir(&later).unwrap();
    let later = init(&later, "memcached-operator", &[]);
    ks(&later).args(["edit", "--plugins", "grafana.kubebuilder.io/v1-alpha"]).assert().success();
    assert_same_tree(&later, &with);

    let empty = parent.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = ks(&empty).args(["init", "--domain", "example.com", "--plugins", "grafana,helm"]).assert().code(2);
    assert!(stderr(&out).contains("unknown plugin `helm`"), "{}", stderr(&out));
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0);
    let out = ks(&with).args(["edit", "--plugins", "grafana", "--multigroup"]).assert().code(2);
    assert!(stderr(&out).contains("cannot be used with"), "{}", stderr(&out));
}

#[test]
fn alpha_generate_replays_the_plugin() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    ks(&dir).args(["make", "manifests"]).assert().success();
    ks(&dir).args(["edit", "--plugins", "grafana"]).assert().success();
    let out = ks(&dir).args(["alpha", "generate"]).assert().success();
    assert!(stdout(&out).contains("replay: kubesmith edit --plugins grafana\n"), "{}", stdout(&out));
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    assert_same_tree(&parent.path().join("memcached-operator-generated"), &dir);
}
