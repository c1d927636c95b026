//! Tests for RBAC generation: controller-gen golden files and merge/sort edge cases.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Value, json};

use super::generate;
use crate::markers::{Marker, scan};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rbac").join(name)
}

fn read(name: &str) -> String {
    let path = fixture(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Parses a multi-document YAML file into JSON values.
fn golden(name: &str) -> Vec<Value> {
    let text = read(name);
    serde_yaml_ng::Deserializer::from_str(&text)
        .map(|doc| Value::deserialize(doc).expect("golden YAML parses"))
        .collect()
}

fn markers_of(name: &str) -> Vec<Marker> {
    let text = read(name);
    scan(&fixture(name), &text).unwrap_or_else(|e| panic!("{e}"))
}

fn markers(text: &str) -> Vec<Marker> {
    scan(Path::new("src/controller.rs"), text).unwrap_or_else(|e| panic!("{e}"))
}

fn rules(text: &str) -> Value {
    let objs = generate(&markers(text), "manager-role");
    assert_eq!(objs.len(), 1, "{objs:#?}");
    objs[0]["rules"].clone()
}

#[test]
fn controller_tools_fixture_matches_golden() {
    let got = generate(&markers_of("controller_tools_markers.rs"), "manager-role");
    let want = golden("controller-tools.role.yaml");
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w, "got:\n{g:#}\nwant:\n{w:#}");
    }
}

#[test]
fn kubebuilder_project_v4_matches_golden() {
    let got = generate(&markers_of("project_v4_markers.rs"), "manager-role");
    assert_eq!(got, golden("project-v4.role.yaml"));
}

#[test]
fn kubebuilder_project_v4_with_plugins_namespaced_role() {
    let got = generate(&markers_of("project_v4_with_plugins_markers.rs"), "manager-role");
    assert_eq!(got, golden("project-v4-with-plugins.role.yaml"));
    assert_eq!(got[0]["kind"], "Role");
    assert_eq!(got[0]["metadata"]["namespace"], "project-v4-with-plugins-system");
}

/// Rebuilds one marker per (rule, resource) from a golden role.yaml and checks that merging them
/// gives the golden file back (sorting and merging are idempotent on controller-gen's own output).
#[test]
fn every_kubebuilder_golden_role_round_trips() {
    for file in [
        "project-v4.role.yaml",
        "project-v4-multigroup.role.yaml",
        "project-v4-with-plugins.role.yaml",
        "book-cronjob-tutorial.role.yaml",
        "book-getting-started.role.yaml",
        "book-multiversion-tutorial.role.yaml",
        "controller-tools.role.yaml",
    ] {
        let want = golden(file);
        let mut text = String::new();
        // Reverse everything so that the input order differs from the output order.
        for obj in want.iter().rev() {
            let ns = obj["metadata"]["namespace"].as_str().unwrap_or("");
            let name = obj["metadata"]["name"].as_str().expect("name");
            for rule in obj["rules"].as_array().expect("rules").iter().rev() {
                let list = |k: &str| -> Vec<String> {
                    rule[k]
                        .as_array()
                        .map(|a| a.iter().map(|v| format!("{:?}", v.as_str().expect("string"))).collect())
                        .unwrap_or_default()
                };
                let mut args = vec![format!("verbs={}", list("verbs").join(";"))];
                for (key, arg) in
                    [("apiGroups", "groups"), ("resourceNames", "resourceNames"), ("nonResourceURLs", "urls")]
                {
                    if !list(key).is_empty() {
                        args.push(format!("{arg}={}", list(key).join(";")));
                    }
                }
                if !ns.is_empty() {
                    args.push(format!("namespace={ns}"));
                }
                args.push(format!("roleName={name}"));
                let resources = list("resources");
                if resources.is_empty() {
                    text.push_str(&format!("// +kubebuilder:rbac:{}\n", args.join(",")));
                }
                for r in resources.iter().rev() {
                    text.push_str(&format!("// +kubebuilder:rbac:resources={r},{}\n", args.join(",")));
                }
            }
        }
        let got = generate(&markers(&text), "unused");
        assert_eq!(got, want, "{file}:\n{text}");
    }
}

#[test]
fn star_collapses_verbs() {
    assert_eq!(
        rules(
            "// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list\n\
             // +kubebuilder:rbac:groups=apps,resources=deployments,verbs=*\n"
        ),
        json!([{ "apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["*"] }])
    );
    // `*` collapses only after merging: a rule with `*` does not absorb a different rule.
    assert_eq!(
        rules(
            "// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=*;get\n\
             // +kubebuilder:rbac:groups=apps,resources=statefulsets,verbs=*\n"
        ),
        json!([
            { "apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["*"] },
            { "apiGroups": ["apps"], "resources": ["statefulsets"], "verbs": ["*"] },
        ])
    );
}

#[test]
fn dedupes_verbs_resources_groups_and_urls() {
    assert_eq!(
        rules(
            "// +kubebuilder:rbac:groups=a,resources=x,verbs=get;get\n\
             // +kubebuilder:rbac:groups=a,resources=x,verbs=list\n\
             // +kubebuilder:rbac:groups=a,resources=y,verbs=get;list\n\
             // +kubebuilder:rbac:groups=b,resources=x;y,verbs=list;get\n\
             // +kubebuilder:rbac:urls=/metrics,verbs=get\n\
             // +kubebuilder:rbac:urls=/healthz;/metrics,verbs=get\n"
        ),
        json!([
            { "nonResourceURLs": ["/healthz", "/metrics"], "verbs": ["get"] },
            { "apiGroups": ["a", "b"], "resources": ["x", "y"], "verbs": ["get", "list"] },
        ])
    );
}

#[test]
fn core_group_and_empty_group_are_the_same() {
    assert_eq!(
        rules(
            "// +kubebuilder:rbac:groups=core,resources=pods,verbs=get\n\
             // +kubebuilder:rbac:groups=\"\",resources=pods,verbs=list\n\
             // +kubebuilder:rbac:groups=apps,resources=pods,verbs=get;list\n"
        ),
        json!([{ "apiGroups": ["", "apps"], "resources": ["pods"], "verbs": ["get", "list"] }])
    );
}

#[test]
fn resource_names_split_rules_and_sort_after_plain_rules() {
    assert_eq!(
        rules(
            "// +kubebuilder:rbac:groups=\"\",resources=configmaps,resourceNames=b;a,verbs=get\n\
             // +kubebuilder:rbac:groups=\"\",resources=configmaps,verbs=list\n"
        ),
        json!([
            { "apiGroups": [""], "resources": ["configmaps"], "verbs": ["list"] },
            { "apiGroups": [""], "resourceNames": ["a", "b"], "resources": ["configmaps"], "verbs": ["get"] },
        ])
    );
}

#[test]
fn namespaces_and_role_names_make_separate_objects_sorted() {
    let objs = generate(
        &markers(
            "// +kubebuilder:rbac:groups=a,resources=x,verbs=get,namespace=zoo\n\
             // +kubebuilder:rbac:groups=a,resources=x,verbs=get,namespace=app,roleName=reader\n\
             // +kubebuilder:rbac:groups=a,resources=x,verbs=get,namespace=app\n\
             // +kubebuilder:rbac:groups=a,resources=x,verbs=get\n\
             // +kubebuilder:rbac:groups=a,resources=y,verbs=get,roleName=aggregated\n",
        ),
        "manager-role",
    );
    let ids: Vec<(String, String, String)> = objs
        .iter()
        .map(|o| {
            (
                o["kind"].as_str().unwrap_or("").to_string(),
                o["metadata"]["namespace"].as_str().unwrap_or("").to_string(),
                o["metadata"]["name"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let id = |k: &str, ns: &str, n: &str| (k.to_string(), ns.to_string(), n.to_string());
    assert_eq!(
        ids,
        vec![
            id("ClusterRole", "", "aggregated"),
            id("ClusterRole", "", "manager-role"),
            id("Role", "app", "manager-role"),
            id("Role", "app", "reader"),
            id("Role", "zoo", "manager-role"),
        ]
    );
    assert_eq!(
        objs[1],
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": { "name": "manager-role" },
            "rules": [{ "apiGroups": ["a"], "resources": ["x"], "verbs": ["get"] }],
        })
    );
    assert!(objs[1]["metadata"].get("namespace").is_none());
}

#[test]
fn no_rbac_markers_means_no_objects() {
    assert!(generate(&[], "manager-role").is_empty());
    let only_others = markers("// +kubebuilder:subresource:status\n// +kubebuilder:validation:Minimum=1\n");
    assert_eq!(only_others.len(), 2);
    assert!(generate(&only_others, "manager-role").is_empty());
}

#[test]
fn non_resource_rule_has_no_groups_or_resources() {
    assert_eq!(
        rules("// +kubebuilder:rbac:urls=/metrics,verbs=get\n"),
        json!([{ "nonResourceURLs": ["/metrics"], "verbs": ["get"] }])
    );
}

/// controller-gen drops one of two rules that collide after the resource merge (Go map overwrite,
/// random); kubesmith keeps both by unioning their verbs.
#[test]
fn colliding_merged_rules_union_their_verbs() {
    assert_eq!(
        rules(
            "// +kubebuilder:rbac:groups=g,resources=a;b,verbs=get\n\
             // +kubebuilder:rbac:groups=g,resources=a,verbs=list\n\
             // +kubebuilder:rbac:groups=g,resources=b,verbs=list\n"
        ),
        json!([{ "apiGroups": ["g"], "resources": ["a", "b"], "verbs": ["get", "list"] }])
    );
}

#[test]
fn markers_from_several_files_merge() {
    let mut all = scan(Path::new("src/a.rs"), "// +kubebuilder:rbac:groups=a,resources=x,verbs=get\n").expect("a.rs");
    all.extend(scan(Path::new("src/b.rs"), "/// +kubebuilder:rbac:groups=a,resources=y,verbs=get\n").expect("b.rs"));
    let objs = generate(&all, "manager-role");
    assert_eq!(objs[0]["rules"], json!([{ "apiGroups": ["a"], "resources": ["x", "y"], "verbs": ["get"] }]));
}

#[test]
fn cluster_role_from_grants_merges_like_markers() {
    let grants = [
        ("apps", "deployments", "patch"),
        ("", "secrets", "get"),
        ("apps", "deployments", "create"),
        ("", "configmaps", "get"),
        ("apps", "deployments", "patch"),
    ];
    let role = super::cluster_role(grants, "manager-role");
    let from_markers = generate(
        &markers(
            "// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=create;patch\n\
             // +kubebuilder:rbac:groups=core,resources=secrets;configmaps,verbs=get\n",
        ),
        "manager-role",
    );
    assert_eq!(role, from_markers[0]);
    assert_eq!(super::cluster_role([], "r")["rules"], json!([]));
}
