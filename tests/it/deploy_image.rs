//! `kubesmith create api --image` (kubebuilder's deploy-image plugin): types, reconciler, manager environment,
//! sample and PROJECT entry; usage errors and failures that leave the project unchanged.

use std::path::{Path, PathBuf};

use crate::support::{BUSYBOX, MEMCACHED, create_api, init, ks, read, snapshot};

fn project() -> (tempfile::TempDir, PathBuf) {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "memcached-operator", &[]);
    (parent, dir)
}

/// Runs `create api` with `args`, expecting exit code `code`; returns stderr.
fn create_api_fails(dir: &Path, args: &[&str], code: i32) -> String {
    let out = ks(dir).args(["create", "api"]).args(args).assert().code(code).get_output().stderr.clone();
    String::from_utf8(out).unwrap()
}

fn yaml(path: &Path) -> serde_json::Value {
    serde_yaml_ng::from_str(&read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn scaffolds_the_tutorial_operator() {
    let (_t, dir) = project();
    create_api(&dir, &MEMCACHED);
    create_api(&dir, &BUSYBOX);

    let project = read(&dir.join("PROJECT"));
    let expected = "plugins:\n  deploy-image.rust.kubesmith.io/v1alpha1:\n    resources:\n    - domain: example.com\n      \
                    group: cache\n      kind: Memcached\n      options:\n        containerCommand: \
                    memcached,--memory-limit=64,-o,modern,-v\n        containerPort: '11211'\n        image: \
                    memcached:1.6.26-alpine3.19\n        runAsUser: '1001'\n      version: v1alpha1\n    - domain: \
                    example.com\n      group: cache\n      kind: Busybox\n      options:\n        image: busybox:1.36.1\n      \
                    version: v1alpha1\n  rust.kubesmith.io/v1alpha1:\n";
    assert!(project.contains(expected), "{project}");
    assert_eq!(project.matches("  controller: true\n").count(), 2, "{project}");

    let manager = read(&dir.join("config/manager/manager.yaml"));
    let env = "              fieldPath: metadata.name\n        - name: BUSYBOX_IMAGE\n          value: busybox:1.36.1\n        \
               - name: MEMCACHED_IMAGE\n          value: memcached:1.6.26-alpine3.19\n        \
               # +kubesmith:scaffold:manager-env\n";
    assert!(manager.contains(env), "{manager}");

    let sample = read(&dir.join("config/samples/cache_v1alpha1_memcached.yaml"));
    assert!(sample.contains("\nspec:\n") && sample.contains("\n  size: 1\n"), "{sample}");
    assert!(sample.contains("\n  containerPort: 11211\n"), "{sample}");
    let busybox_sample = read(&dir.join("config/samples/cache_v1alpha1_busybox.yaml"));
    assert!(busybox_sample.contains("  size: 1\n") && !busybox_sample.contains("containerPort"), "{busybox_sample}");
    let sample_doc = yaml(&dir.join("config/samples/cache_v1alpha1_memcached.yaml"));
    assert_eq!(sample_doc["spec"], serde_json::json!({"size": 1, "containerPort": 11211}));

    let types = read(&dir.join("src/api/v1alpha1/memcached.rs"));
    for needle in [
        "// +kubebuilder:validation:Minimum=1\n    // +kubebuilder:validation:Maximum=3\n    \
         // +kubebuilder:validation:ExclusiveMaximum=false\n    pub size: i32,",
        "pub container_port: i32,",
        "// +listType=map\n    // +listMapKey=type\n",
    ] {
        assert!(types.contains(needle), "types lack `{needle}`:\n{types}");
    }
    assert!(!read(&dir.join("src/api/v1alpha1/busybox.rs")).contains("container_port"));

    let controller = read(&dir.join("src/controller/memcached.rs"));
    for needle in [
        "pub const IMAGE_ENV: &str = \"MEMCACHED_IMAGE\";",
        "pub const DEFAULT_IMAGE: &str = \"memcached:1.6.26-alpine3.19\";",
        "const COMMAND: &str = \"memcached,--memory-limit=64,-o,modern,-v\";",
        "command: Some(COMMAND.split(',').map(String::from).collect()),",
        "const RUN_AS_USER: i64 = 1001;",
        "type Kind = crate::api::v1alpha1::Memcached;",
        "pub fn deployment(obj: &Kind, image: &str) -> Result<Deployment>",
        ".owns(runtime.api::<Deployment>(), operand::owned(APP_NAME));",
        "owner_references: Some(vec![operand::owner_reference(obj)?]),",
        "operand::apply(obj.as_ref(), &desired, ctx).await?",
        "container_port: obj.spec.container_port,",
        "// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;patch",
        "// +kubebuilder:rbac:groups=core,resources=pods,verbs=list",
        "// +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds/finalizers,verbs=update",
    ] {
        assert!(controller.contains(needle), "the Memcached controller lacks `{needle}`");
    }
    let busybox = read(&dir.join("src/controller/busybox.rs"));
    for absent in ["COMMAND", "RUN_AS_USER", "ContainerPort"] {
        assert!(!busybox.contains(absent), "the Busybox controller has `{absent}`, which no option asked for");
    }
    assert!(busybox.contains("pub const DEFAULT_IMAGE: &str = \"busybox:1.36.1\";"));
    // What both run as a Deployment share is one module.
    let operand = read(&dir.join("src/controller/operand.rs"));
    for needle in [
        "PatchParams::apply(ctx.field_manager).force()",
        "controller_owner_ref(&())",
        "block_owner_deletion: Some(true),",
        "pub fn set_conditions(",
        "pub fn pod_failure(pod: &Pod)",
    ] {
        assert!(operand.contains(needle), "the operand module lacks `{needle}`");
    }
    let modules = read(&dir.join("src/controller.rs"));
    assert!(modules.contains("\npub mod busybox;\npub mod memcached;\npub mod operand;\n"), "{modules}");

    // The markers cover every call of the reconcilers: `make manifests` warns about nothing and notes nothing.
    let out = ks(&dir).args(["make", "manifests"]).assert().success().get_output().clone();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!said.contains("warning") && !said.contains("note"), "{said}");
    let crd = yaml(&dir.join("config/crd/bases/cache.example.com_memcacheds.yaml"));
    let spec = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
    assert_eq!(spec["properties"]["size"]["minimum"], 1.0, "{spec}");
    assert_eq!(spec["properties"]["size"]["maximum"], 3.0, "{spec}");
    assert_eq!(spec["properties"]["size"]["exclusiveMaximum"], false, "{spec}");
    assert_eq!(spec["properties"]["containerPort"]["maximum"], 65535.0, "{spec}");
    assert_eq!(spec["required"], serde_json::json!(["containerPort", "size"]));
    let conditions =
        &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"]["conditions"];
    assert_eq!(conditions["x-kubernetes-list-type"], "map", "{conditions}");
    assert_eq!(conditions["x-kubernetes-list-map-keys"], serde_json::json!(["type"]));
    let role = yaml(&dir.join("config/rbac/role.yaml"));
    let rule = |group: &str, resource: &str| {
        role["rules"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["apiGroups"][0] == group && r["resources"][0] == resource)
            .map(|r| r["verbs"].clone())
    };
    let verbs = |v: &[&str]| Some(serde_json::json!(v));
    assert_eq!(rule("apps", "deployments"), verbs(&["create", "get", "list", "patch", "watch"]));
    assert_eq!(rule("", "pods"), verbs(&["list"]));
    assert_eq!(rule("cache.example.com", "busyboxes/finalizers"), verbs(&["update"]));
}

#[test]
fn options_are_checked_with_exit_2_and_nothing_written() {
    let (_t, dir) = project();
    let before = snapshot(&dir);
    let base = ["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"];
    for (extra, needle) in [
        (&["--image-container-port", "11211"][..], "--image-container-port configures the container of --image"),
        (&["--run-as-user", "1001"], "--run-as-user configures the container of --image"),
        (&["--image-container-command", "memcached"], "add --image IMAGE"),
        (&["--image", "memcached", "--namespaced=false"], "must be namespaced"),
        (&["--image", "memcached", "--controller=false"], "drop --resource=false and --controller=false"),
        (&["--image", "memcached", "--image-container-port", "0"], "give a number from 1 to 65535"),
        (&["--image", "memcached", "--image-container-port", "65536"], "give a number from 1 to 65535"),
        (&["--image", "memcached", "--run-as-user", "0"], "0 is root"),
        (&["--image", "memcached", "--run-as-user=-1"], "not a user id"),
        (&["--image", "memcached", "--image-container-command", "memcached,,-v"], "empty argument"),
        (&["--image", "mem cached"], "not an image reference"),
    ] {
        let err = create_api_fails(&dir, &[&base[..], extra].concat(), 2);
        assert!(err.contains(needle), "{extra:?}: {err}");
    }
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn failures_leave_the_project_unchanged() {
    // The manager's env marker is gone: nothing is written, the error names the marker.
    let (_t, dir) = project();
    let manager = dir.join("config/manager/manager.yaml");
    std::fs::write(&manager, read(&manager).replace("        # +kubesmith:scaffold:manager-env\n", "")).unwrap();
    let before = snapshot(&dir);
    let err = create_api_fails(&dir, &MEMCACHED, 1);
    assert!(err.contains("config/manager/manager.yaml") && err.contains("+kubesmith:scaffold:manager-env"), "{err}");
    assert_eq!(snapshot(&dir), before);

    // Two kinds of one name in two groups would share MEMCACHED_IMAGE.
    let parent = tempfile::tempdir().unwrap();
    let multi = init(parent.path(), "multi-operator", &["--multigroup"]);
    create_api(&multi, &MEMCACHED);
    assert!(multi.join("src/controller/cache/memcached.rs").is_file());
    let before = snapshot(&multi);
    let args = ["--group", "web", "--version", "v1", "--kind", "Memcached", "--image", "memcached:1.6"];
    let err = create_api_fails(&multi, &args, 1);
    assert!(err.contains("already runs its image from MEMCACHED_IMAGE"), "{err}");
    assert_eq!(snapshot(&multi), before);
}

#[test]
fn force_replaces_the_image_and_a_plain_controller_drops_the_entry() {
    let (_t, dir) = project();
    create_api(&dir, &BUSYBOX);
    let mut newer = BUSYBOX.to_vec();
    newer[7] = "busybox:1.37.0";
    newer.push("--force");
    create_api(&dir, &newer);
    let manager = read(&dir.join("config/manager/manager.yaml"));
    assert_eq!(manager.matches("BUSYBOX_IMAGE").count(), 1, "{manager}");
    assert!(manager.contains("- name: BUSYBOX_IMAGE\n          value: busybox:1.37.0\n"), "{manager}");
    let project = yaml(&dir.join("PROJECT"));
    let entries = &project["plugins"]["deploy-image.rust.kubesmith.io/v1alpha1"]["resources"];
    assert_eq!(entries.as_array().map(Vec::len), Some(1), "{entries}");
    assert_eq!(entries[0]["options"]["image"], "busybox:1.37.0");
    assert!(read(&dir.join("src/controller/busybox.rs")).contains("\"busybox:1.37.0\""));

    let out = ks(&dir)
        .args(["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Busybox", "--force"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8_lossy(&out).contains("still sets BUSYBOX_IMAGE"));
    let project = yaml(&dir.join("PROJECT"));
    assert!(project["plugins"].get("deploy-image.rust.kubesmith.io/v1alpha1").is_none(), "{project}");
    assert!(!read(&dir.join("src/controller/busybox.rs")).contains("DEFAULT_IMAGE"));
}

#[test]
fn the_reconciler_follows_the_k8s_openapi_shape_of_the_project_version() {
    // k8s-openapi makes `Deployment.spec` required, and `DeploymentCondition`'s type and status optional, from
    // Kubernetes 1.37 on; the reconciler is written for the version the project compiles against.
    let parent = tempfile::tempdir().unwrap();
    let old = init(parent.path(), "old-operator", &["--k8s-version", "1.33"]);
    create_api(&old, &BUSYBOX);
    let controller = read(&old.join("src/controller/busybox.rs"));
    let operand = read(&old.join("src/controller/operand.rs"));
    assert!(controller.contains("        spec: Some(spec),\n") && operand.contains("deployment.spec.as_ref()"));
    assert!(operand.contains("c.type_.as_str(),") && operand.contains("spec: Some(spec),"), "{operand}");
    let (_t, new) = project();
    create_api(&new, &BUSYBOX);
    let controller = read(&new.join("src/controller/busybox.rs"));
    let operand = read(&new.join("src/controller/operand.rs"));
    assert!(controller.contains("        spec,\n") && operand.contains("Some(&deployment.spec)"));
    assert!(operand.contains("c.type_.as_deref().unwrap_or_default(),"), "{operand}");
}

/// Webhooks of a kind whose spec has no scaffolded `foo` (here an `--image` kind) get the examples that work on
/// any object, the team label, with test objects carrying the kind's required `size`; a conversion webhook, which
/// copies `foo` between versions, is refused with what to do instead.
#[test]
fn webhooks_of_an_image_kind_use_the_label_examples() {
    let (_parent, dir) = project();
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached", "--image", "memcached:1.6"]);
    ks(&dir)
        .args(["create", "webhook", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"])
        .args(["--defaulting", "--programmatic-validation"])
        .assert()
        .success();
    let defaulting = read(&dir.join("src/webhook/v1alpha1/memcached/defaulting.rs"));
    assert!(defaulting.contains("use crate::api::v1alpha1::Memcached as Kind;"), "{defaulting}");
    assert!(defaulting.contains("failurePolicy=fail") && !defaulting.contains("spec.foo"), "{defaulting}");
    assert!(defaulting.contains("\"spec\": {\"size\": 1},"), "{defaulting}");
    let module = read(&dir.join("src/webhook/v1alpha1/memcached.rs"));
    assert!(module.contains("pub const TEAM_LABEL: &str = \"example.com/team\";"), "{module}");
    let test = read(&dir.join("tests/webhook_v1alpha1_memcached.rs"));
    assert!(test.contains("async fn validation_denies_an_empty_team_and_warns_without_one()"), "{test}");

    create_api(&dir, &["--group", "cache", "--version", "v1beta1", "--kind", "Memcached", "--controller=false"]);
    let before = snapshot(&dir);
    let out = ks(&dir)
        .args(["create", "webhook", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"])
        .args(["--conversion", "--spoke", "v1beta1"])
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("has no `foo` in its spec"), "{err}");
    assert_eq!(snapshot(&dir), before);
}
