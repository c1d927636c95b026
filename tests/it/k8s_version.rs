//! The Kubernetes version picks the k8s-openapi schema table: PROJECT's `k8sVersion`, else
//! `make manifests --k8s-version`, else 1.37.

use std::path::Path;

use kubesmith::crd::{self, K8sTable, SourceSet};
use serde_json::Value;

use crate::support::{create_api, init, ks, read};

const SPEC: &str = r#"
use k8s_openapi::api::core::v1::EnvVar;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "demo.example.com", version = "v1", kind = "Demo", namespaced)]
pub struct DemoSpec {
    pub env: Vec<EnvVar>,
}
"#;

fn env_items(crd: &Value) -> Value {
    crd.pointer("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/env/items")
        .expect("env items")
        .clone()
}

/// A crate `demo` whose `lib.rs` is [`SPEC`], depending on k8s-openapi as `k8s_openapi` (a manifest's dependency
/// value), kube `kube` and schemars `schemars`; with a lock pinning (k8s-openapi, kube and kube-core, schemars) when
/// given.
fn demo_crate(k8s_openapi: &str, kube: &str, schemars: &str, lock: Option<(&str, &str, &str)>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), SPEC).unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        format!(
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n\
             k8s-openapi = {k8s_openapi}\nkube = \"{kube}\"\nschemars = \"{schemars}\"\n"
        ),
    )
    .unwrap();
    if let Some((k8s_openapi, kube, schemars)) = lock {
        std::fs::write(
            dir.path().join("Cargo.lock"),
            format!(
                "version = 4\n\n[[package]]\nname = \"demo\"\nversion = \"0.1.0\"\n\
                 dependencies = [\"k8s-openapi\", \"kube\", \"schemars\"]\n\n\
                 [[package]]\nname = \"k8s-openapi\"\nversion = \"{k8s_openapi}\"\n\n\
                 [[package]]\nname = \"kube\"\nversion = \"{kube}\"\n\n\
                 [[package]]\nname = \"kube-core\"\nversion = \"{kube}\"\n\n\
                 [[package]]\nname = \"schemars\"\nversion = \"{schemars}\"\n"
            ),
        )
        .unwrap();
    }
    dir
}

fn yaml_crd(path: &Path) -> Value {
    serde_yaml_ng::from_str(&read(path)).expect("CRD YAML")
}

#[test]
fn versions_differ_where_k8s_openapi_does() {
    let (old, new) = (K8sTable::for_version("1.33").unwrap(), K8sTable::for_version("1.37").unwrap());
    assert_ne!(old.get("EnvVar"), new.get("EnvVar"));
    assert_eq!(old.get("Condition"), new.get("Condition"));
}

#[test]
fn flag_selects_the_table_outside_a_project() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), SPEC).unwrap();
    let mut seen = Vec::new();
    for (flag, version) in [(None, "1.37"), (Some("1.33"), "1.33"), (Some("1.37"), "1.37")] {
        let out = format!("out-{version}-{}", flag.is_some());
        let mut cmd = ks(dir.path());
        cmd.args(["make", "manifests", "--source", "src", "--crd-dir", &out]);
        if let Some(f) = flag {
            cmd.args(["--k8s-version", f]);
        }
        cmd.assert().success();
        let got = yaml_crd(&dir.path().join(&out).join("demo.example.com_demos.yaml"));
        let table = K8sTable::for_version(version).unwrap();
        assert_eq!(env_items(&got), table.get("EnvVar").unwrap(), "{version}");
        let lib = crd::generate_with(&SourceSet::new(&dir.path().join("src")), table).unwrap();
        assert_eq!(got, lib[0].crd, "{version}");
        seen.push(env_items(&got));
    }
    assert_eq!(seen[0], seen[2]);
    assert_ne!(seen[0], seen[1]);
    ks(dir.path()).args(["make", "manifests", "--crd-dir", "x", "--k8s-version", "1.20"]).assert().code(2);
}

#[test]
fn project_k8s_version_selects_the_table() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "old-k8s", &["--k8s-version", "1.33"]);
    create_api(&dir, &["--group", "cache", "--version", "v1", "--kind", "Memcached"]);
    let kind = dir.join("src/api/v1/memcached.rs");
    let text = read(&kind).replace(
        "pub struct MemcachedSpec {",
        "pub struct MemcachedSpec {\n    pub env: Vec<k8s_openapi::api::core::v1::EnvVar>,",
    );
    std::fs::write(&kind, text).unwrap();
    ks(&dir).args(["make", "manifests"]).assert().success();
    let crd_file = dir.join("config/crd/bases/cache.example.com_memcacheds.yaml");
    let old = K8sTable::for_version("1.33").unwrap();
    assert_eq!(env_items(&yaml_crd(&crd_file)), old.get("EnvVar").unwrap());

    // The flag wins over PROJECT.
    ks(&dir).args(["make", "manifests", "--k8s-version", "1.37"]).assert().success();
    let new = K8sTable::for_version("1.37").unwrap();
    assert_eq!(env_items(&yaml_crd(&crd_file)), new.get("EnvVar").unwrap());

    // A version kubesmith has no table for is a usage error naming the fix.
    let project = dir.join("PROJECT");
    std::fs::write(&project, read(&project).replace("'1.33'", "'1.20'")).unwrap();
    let out = ks(&dir).args(["make", "manifests"]).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("k8sVersion 1.20"), "{err}");
    assert!(err.contains("--k8s-version"), "{err}");
}

#[test]
fn a_crate_built_for_a_version_the_table_lacks_leaves_k8s_types_to_the_fallback() {
    // k8s-openapi 0.21 built for 1.27 (no table holds that pair): its schemas are not 1.37's, so none is
    // guessed; --no-compile says why, and --k8s-version reads the crate with a table of the flag's version.
    let dir = demo_crate("{ version = \"0.21\", features = [\"v1_27\", \"schemars\"] }", "3", "1", None);
    let out = ks(dir.path())
        .args(["make", "manifests", "--source", "src", "--crd-dir", "out", "--no-compile"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("the crate builds k8s-openapi for Kubernetes 1.27"), "{stderr}");
    assert!(!dir.path().join("out").exists(), "nothing written: {stderr}");
    ks(dir.path())
        .args(["make", "manifests", "--source", "src", "--crd-dir", "out", "--no-compile", "--k8s-version", "1.33"])
        .assert()
        .success();
    let got = yaml_crd(&dir.path().join("out/demo.example.com_demos.yaml"));
    assert_eq!(env_items(&got), K8sTable::for_version("1.33").unwrap().get("EnvVar").unwrap());
}

#[test]
fn the_latest_feature_is_the_newest_version_of_the_locked_release() {
    // restate-operator's shape: `features = ["latest"]` with k8s-openapi 0.26 locked, which is Kubernetes 1.34
    // (not kubesmith's newest table); and kube 2, whose crd() leaves optional int-or-strings without `nullable`.
    let dir = demo_crate(
        "{ version = \"0.26\", features = [\"latest\", \"schemars\"] }",
        "2",
        "1",
        Some(("0.26.1", "2.0.1", "1.2.1")),
    );
    ks(dir.path())
        .args(["make", "manifests", "--source", "src", "--crd-dir", "out", "--no-compile"])
        .assert()
        .success();
    let got = yaml_crd(&dir.path().join("out/demo.example.com_demos.yaml"));
    let mut want = K8sTable::for_version("1.34").unwrap().get("EnvVar").unwrap();
    assert_ne!(want, K8sTable::for_version("1.37").unwrap().get("EnvVar").unwrap());
    let divisor = "/properties/valueFrom/properties/resourceFieldRef/properties/divisor";
    assert_eq!(want.pointer(&format!("{divisor}/nullable")), Some(&Value::Bool(true)), "kube 3's table");
    want.pointer_mut(divisor).unwrap().as_object_mut().unwrap().remove("nullable");
    assert_eq!(env_items(&got), want);
}

#[test]
fn a_crate_on_an_older_schemars_08_release_is_read_with_that_releases_own_schemas() {
    // wasmcloud-operator's shape: k8s-openapi 0.20 for Kubernetes 1.28, kube 0.87, schemars 0.8. 0.20 writes an
    // int-or-string as `type: string, format: int-or-string`, and a Quantity (here a field with its own description,
    // `resourceFieldRef.divisor`) as a plain string: what its kube-derive inlines, read without compiling.
    let dir = demo_crate(
        "{ version = \"0.20\", features = [\"v1_28\", \"schemars\"] }",
        "0.87",
        "0.8",
        Some(("0.20.0", "0.87.2", "0.8.22")),
    );
    let spec = SPEC.replace("EnvVar", "Container").replace("env: Vec<Container>", "containers: Vec<Container>");
    std::fs::write(dir.path().join("src/lib.rs"), spec).unwrap();
    ks(dir.path())
        .args(["make", "manifests", "--source", "src", "--crd-dir", "out", "--no-compile"])
        .assert()
        .success();
    let got = yaml_crd(&dir.path().join("out/demo.example.com_demos.yaml"));
    let container = got
        .pointer("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/containers/items/properties")
        .expect("container properties");
    let divisor = &container["env"]["items"]["properties"]["valueFrom"]["properties"]["resourceFieldRef"]["properties"]
        ["divisor"];
    assert_eq!(divisor["type"], "string", "{divisor}");
    assert_eq!(divisor.get("x-kubernetes-int-or-string"), None, "{divisor}");
    assert_eq!(divisor["description"], "Specifies the output format of the exposed resources, defaults to \"1\"");
    let port = &container["livenessProbe"]["properties"]["httpGet"]["properties"]["port"];
    assert_eq!((&port["type"], &port["format"]), (&Value::from("string"), &Value::from("int-or-string")), "{port}");
    assert_eq!(port.get("x-kubernetes-int-or-string"), None, "{port}");
    // 1.28 of k8s-openapi 0.24 differs (its upstream patch release, `x-kubernetes-int-or-string`): the crate's own
    // release decides
    let other = K8sTable::for_crate("1.28", Some("0.24.0")).get("Container").unwrap();
    assert_eq!(
        other["properties"]["livenessProbe"]["properties"]["httpGet"]["properties"]["port"]["x-kubernetes-int-or-string"],
        true
    );
}
