//! `create api --image`: kubebuilder's deploy-image plugin as kube-rs code — checks the image options, renders the
//! kind's types, sample and reconciler that run the image as a Deployment, adds `<KIND>_IMAGE` to the manager's
//! environment and records the options in PROJECT (`plugins["deploy-image.rust.kubesmith.io/v1alpha1"]`).

use std::path::Path;

use anyhow::Result;
use serde::Serialize;
use serde_json::{Value, json};

use crate::edit::{self, Lang};
use crate::ops::api_context::ApiContext;
use crate::ops::scaffold::insert_rust;
use crate::plan::Plan;
use crate::project::ProjectFile;
use crate::render;
use crate::usage::UsageError;

/// Key under PROJECT's `plugins:` listing the kinds scaffolded with `--image` (kubebuilder's
/// `deploy-image.go.kubebuilder.io/v1-alpha` shape).
pub const PLUGIN_KEY: &str = "deploy-image.rust.kubesmith.io/v1alpha1";
/// The manager Deployment, whose container gets one `<KIND>_IMAGE` variable per kind.
pub const MANAGER_FILE: &str = "config/manager/manager.yaml";
/// Marker line ending the manager container's `env:` list.
pub const MANAGER_ENV_MARKER: &str = "# +kubesmith:scaffold:manager-env";
/// The module the `--image` reconcilers share.
pub const OPERAND_FILE: &str = "src/controller/operand.rs";
/// The largest uid Kubernetes accepts in `runAsUser`.
const MAX_UID: i64 = i32::MAX as i64;
/// The longest container port name Kubernetes accepts (an IANA service name).
const MAX_PORT_NAME: usize = 15;

/// The `--image` options of one kind, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct DeployImage {
    pub image: String,
    /// `--image-container-command`, split at commas; empty: the image's entrypoint.
    pub command: Vec<String>,
    pub container_port: Option<u16>,
    pub run_as_user: Option<i64>,
}

/// What the deploy-image templates see: the kind's [`ApiContext`] and the image options.
#[derive(Debug, Serialize)]
struct ImageContext<'a> {
    #[serde(flatten)]
    api: &'a ApiContext,
    /// The image as given, for comments and YAML.
    image: &'a str,
    /// The image as a Rust string literal.
    image_literal: String,
    /// `MEMCACHED_IMAGE`
    image_env: String,
    /// The command's arguments joined with commas (as `--image-container-command` takes them), as a Rust string
    /// literal: one value, so the rendered code is laid out the same however many arguments there are; empty when
    /// the image's entrypoint runs.
    command: String,
    container_port: Option<u16>,
    /// Name of the container port (at most 15 characters).
    port_name: String,
    run_as_user: Option<i64>,
    /// k8s-openapi before Kubernetes 1.37 has `Deployment.spec` optional and `DeploymentCondition`'s type and
    /// status required.
    k8s_before_1_37: bool,
}

/// The image flags of `create api` as given (`--image`, `--image-container-command`, `--image-container-port`,
/// `--run-as-user`).
#[derive(Debug, Clone, Default)]
pub(crate) struct ImageFlags {
    pub image: Option<String>,
    pub image_container_command: Option<String>,
    pub image_container_port: Option<String>,
    pub run_as_user: Option<String>,
}

/// What `create api` scaffolds for the kind, as far as the image's controller depends on it.
pub(crate) struct KindFlags<'a> {
    pub group: &'a str,
    pub kind: &'a str,
    pub resource: bool,
    pub controller: bool,
    pub namespaced: bool,
}

impl DeployImage {
    /// The checked image options of `create api`, `None` without `--image`. Misuse is a [`UsageError`]; an env var
    /// another kind of the project already uses is an error.
    pub fn from_args(args: &ImageFlags, kind: KindFlags<'_>, project: &ProjectFile) -> Result<Option<Self>> {
        let Some(image) = &args.image else {
            let stray = [
                ("--image-container-command", args.image_container_command.is_some()),
                ("--image-container-port", args.image_container_port.is_some()),
                ("--run-as-user", args.run_as_user.is_some()),
            ];
            if let Some((flag, _)) = stray.iter().find(|(_, given)| *given) {
                return Err(UsageError(format!(
                    "{flag} configures the container of --image: add --image IMAGE, or drop {flag}"
                ))
                .into());
            }
            return Ok(None);
        };
        if !kind.resource || !kind.controller {
            return Err(UsageError(
                "--image scaffolds both the kind's types (its `size`) and the controller that runs the image: \
                 drop --resource=false and --controller=false"
                    .into(),
            )
            .into());
        }
        if !kind.namespaced {
            return Err(UsageError(format!(
                "--image runs the image as a Deployment in the namespace of each {} object, so the kind must be \
                 namespaced: drop --namespaced=false",
                kind.kind
            ))
            .into());
        }
        let options = DeployImage {
            image: check_image(image)?,
            command: args.image_container_command.as_deref().map(check_command).transpose()?.unwrap_or_default(),
            container_port: args.image_container_port.as_deref().map(check_port).transpose()?,
            run_as_user: args.run_as_user.as_deref().map(check_uid).transpose()?,
        };
        let env = image_env(kind.kind);
        if let Some(other) = entries(project).find(|r| {
            r["kind"].as_str().is_some_and(|k| image_env(k) == env)
                && !(r["group"] == kind.group && r["kind"] == kind.kind)
        }) {
            anyhow::bail!(
                "kind {} of group `{}` already runs its image from {env}, the variable {} of group `{}` would use; \
                 give the new kind another name",
                other["kind"].as_str().unwrap_or_default(),
                other["group"].as_str().unwrap_or_default(),
                kind.kind,
                kind.group
            );
        }
        Ok(Some(options))
    }

    /// The kind's types: `spec.size` (and `spec.containerPort`), status conditions.
    pub fn types(&self, api: &ApiContext, project: &ProjectFile) -> Result<String> {
        render::render("api/src/api/kind_image.rs.hbs", &self.context(api, project))
    }

    /// The kind's sample, with `size` and the port.
    pub fn sample(&self, api: &ApiContext, project: &ProjectFile) -> Result<String> {
        render::render("api/config/samples/sample_image.yaml.hbs", &self.context(api, project))
    }

    /// The reconciler that runs the image as a Deployment.
    pub fn controller(&self, api: &ApiContext, project: &ProjectFile) -> Result<String> {
        render::render("api/src/controller/kind_image.rs.hbs", &self.context(api, project))
    }

    /// The kind's control-plane test: the Deployment its reconciler runs, against a real API server.
    pub fn envtest(&self, api: &ApiContext, project: &ProjectFile) -> Result<String> {
        render::render("api/tests/envtest/kind_image.rs.hbs", &self.context(api, project))
    }

    /// The module every `--image` reconciler shares (`controller::operand`: the Deployment, its apply and its rollout
    /// as conditions), with the first kind that needs it.
    pub fn plan_operand(&self, plan: &mut Plan, api: &ApiContext, project: &ProjectFile) -> Result<()> {
        let path = Path::new(OPERAND_FILE);
        if plan.exists(path) {
            return Ok(());
        }
        plan.create(path, render::render("api/src/controller/operand.rs.hbs", &self.context(api, project))?);
        let marker = crate::ops::scaffold::api_markers::CONTROLLER_MODULES;
        insert_rust(plan, Path::new("src/controller.rs"), marker, &["pub mod operand;".to_string()])
    }

    /// Adds (or updates) `<KIND>_IMAGE` in the manager's environment.
    pub fn plan_manager_env(&self, plan: &mut Plan, kind: &str) -> Result<()> {
        let path = Path::new(MANAGER_FILE);
        let text = plan.read_existing(path)?;
        let new = set_env(path, &text, &image_env(kind), &self.image)?;
        if new != text {
            plan.edit(path, new);
        }
        Ok(())
    }

    fn context<'a>(&'a self, api: &'a ApiContext, project: &ProjectFile) -> ImageContext<'a> {
        ImageContext {
            api,
            image: &self.image,
            image_literal: format!("{:?}", self.image),
            image_env: image_env(&api.kind),
            command: if self.command.is_empty() { String::new() } else { format!("{:?}", self.command.join(",")) },
            container_port: self.container_port,
            port_name: api.kind_lower.chars().take(MAX_PORT_NAME).collect(),
            run_as_user: self.run_as_user,
            k8s_before_1_37: project
                .k8s_version()
                .and_then(|v| v.strip_prefix("1."))
                .and_then(|minor| minor.parse::<u32>().ok())
                .is_some_and(|minor| minor < 37),
        }
    }
}

/// Records the deploy-image options of `group`/`kind` in PROJECT (kubebuilder's shape: options are strings), or,
/// for a kind whose controller is scaffolded again without `--image`, removes them, returning a note about the
/// variable left in the manager's environment. One entry per kind: its reconciler serves every version.
pub fn record(
    project: &mut ProjectFile,
    domain: &str,
    group: &str,
    version: &str,
    kind: &str,
    image: Option<&DeployImage>,
) -> Option<String> {
    let same = |r: &Value| r["group"] == group && r["kind"] == kind;
    let entry = image.map(|options| {
        let mut opts = serde_json::Map::new();
        if !options.command.is_empty() {
            opts.insert("containerCommand".into(), json!(options.command.join(",")));
        }
        if let Some(port) = options.container_port {
            opts.insert("containerPort".into(), json!(port.to_string()));
        }
        opts.insert("image".into(), json!(options.image));
        if let Some(uid) = options.run_as_user {
            opts.insert("runAsUser".into(), json!(uid.to_string()));
        }
        json!({ "domain": domain, "group": group, "kind": kind, "options": opts, "version": version })
    });
    let Some(Value::Object(plugin)) = project.plugins.get_mut(PLUGIN_KEY) else {
        if let Some(entry) = entry {
            project.plugins.insert(PLUGIN_KEY.into(), json!({ "resources": [entry] }));
        }
        return None;
    };
    let resources = plugin.entry("resources").or_insert_with(|| json!([]));
    if !resources.is_array() {
        *resources = json!([]);
    }
    let list = resources.as_array_mut().expect("made an array above");
    let mut note = None;
    match (list.iter().position(same), entry) {
        (Some(i), Some(entry)) => list[i] = entry,
        (None, Some(entry)) => list.push(entry),
        (Some(i), None) => {
            list.remove(i);
            note = Some(format!(
                "note: the new {kind} controller runs no image: {MANAGER_FILE} still sets {}, which nothing reads \
                 now; remove it when you no longer need it",
                image_env(kind)
            ));
        }
        (None, None) => {}
    }
    if list.is_empty() {
        project.plugins.remove(PLUGIN_KEY);
    }
    note
}

/// The deploy-image entries of PROJECT.
fn entries(project: &ProjectFile) -> impl Iterator<Item = &Value> {
    project.plugins.get(PLUGIN_KEY).and_then(|p| p["resources"].as_array()).into_iter().flatten()
}

/// The environment variable holding a kind's image: `MEMCACHED_IMAGE` (kubebuilder's rule).
pub fn image_env(kind: &str) -> String {
    format!("{}_IMAGE", kind.to_ascii_uppercase())
}

fn check_image(image: &str) -> Result<String, UsageError> {
    if image.is_empty() || image.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(UsageError(format!(
            "--image `{}` is not an image reference: give one without spaces, such as memcached:1.6.26-alpine3.19 \
             or registry.example.com/team/app:v1",
            image.escape_debug()
        )));
    }
    Ok(image.to_string())
}

fn check_command(command: &str) -> Result<Vec<String>, UsageError> {
    let args: Vec<String> = command.split(',').map(str::to_string).collect();
    if args.iter().any(String::is_empty) {
        return Err(UsageError(format!(
            "--image-container-command `{command}` has an empty argument: separate the arguments with single commas, \
             e.g. memcached,--memory-limit=64,-v"
        )));
    }
    Ok(args)
}

fn check_port(port: &str) -> Result<u16, UsageError> {
    match port.parse::<u16>() {
        Ok(p) if p > 0 => Ok(p),
        _ => Err(UsageError(format!("--image-container-port `{port}` is not a port: give a number from 1 to 65535"))),
    }
}

fn check_uid(uid: &str) -> Result<i64, UsageError> {
    match uid.parse::<i64>() {
        Ok(0) => Err(UsageError(
            "--run-as-user 0 is root, and the scaffolded pods must run as non-root (`runAsNonRoot`, the \"restricted\" \
             Pod Security Standard): give the image's non-root uid, such as 1001"
                .into(),
        )),
        Ok(u) if (1..=MAX_UID).contains(&u) => Ok(u),
        _ => Err(UsageError(format!(
            "--run-as-user `{uid}` is not a user id: give a number from 1 to {MAX_UID}, such as 1001"
        ))),
    }
}

/// Sets `- name: <env>` / `value: <image>` in the list that ends at the manager-env marker of `text`: the value of
/// an existing entry is replaced; a new one joins the run of `*_IMAGE` entries just above the marker in name order.
fn set_env(path: &Path, text: &str, env: &str, image: &str) -> Result<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let name_line = |l: &str| l.trim().strip_prefix("- name:").map(str::trim).map(str::to_string);
    let value = crate::yaml::plain_or_quoted(image);
    if let Some(at) = lines.iter().position(|l| name_line(l).as_deref() == Some(env)) {
        let indent: String = lines[at].chars().take_while(|c| *c == ' ').collect();
        let value_at = at + 1;
        if lines.get(value_at).is_none_or(|l| !l.trim_start().starts_with("value:")) {
            anyhow::bail!(
                "{}: the `{env}` variable has no `value:` line after its name, so kubesmith cannot set it to `{image}`; \
                 give it one (`  value: {value}`) and run the command again",
                path.display()
            );
        }
        let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        out[value_at] = format!("{indent}  value: {value}\n");
        let out = out.concat();
        edit::check(path, &out, Lang::Yaml)?;
        return Ok(out);
    }
    let Some(marker) = lines.iter().position(|l| l.trim() == MANAGER_ENV_MARKER) else {
        anyhow::bail!(
            "{}: the marker `{MANAGER_ENV_MARKER}` is missing, so kubesmith cannot add `{env}` to the manager's \
             environment; put the marker back as the last line of the manager container's `env:` list and run the \
             command again",
            path.display()
        );
    };
    let indent: String = lines[marker].chars().take_while(|c| *c == ' ').collect();
    // The run of image entries (name line, value line) right above the marker, and where `env` goes in it.
    let mut at = marker;
    while at >= 2 {
        let Some(name) = name_line(lines[at - 2]) else { break };
        if !name.ends_with("_IMAGE") || !lines[at - 1].trim_start().starts_with("value:") || name.as_str() < env {
            break;
        }
        at -= 2;
    }
    let entry = format!("{indent}- name: {env}\n{indent}  value: {value}\n");
    let out = format!("{}{entry}{}", lines[..at].concat(), lines[at..].concat());
    edit::check(path, &out, Lang::Yaml)?;
    Ok(out)
}

/// The smallest `spec` a test object of `group`/`kind` (`version`) needs as JSON: `{"size": 1}` (and the port) for
/// a deploy-image kind; else the least object the kind's schema accepts as the types in `cwd`'s sources are now
/// (its required fields with minimal values, `crate::crd::sample`), so tests scaffolded after a field became
/// required still send valid objects; `{}` when the types cannot be read.
pub fn test_spec_json(project: &ProjectFile, cwd: &Path, group: &str, version: &str, kind: &str) -> String {
    let entry = project
        .plugins
        .get(PLUGIN_KEY)
        .and_then(|p| p.get("resources"))
        .and_then(Value::as_array)
        .and_then(|list| list.iter().find(|r| r["group"] == group && r["kind"] == kind));
    if let Some(r) = entry {
        return match r["options"]["containerPort"].as_str() {
            Some(port) => format!("{{\"size\": 1, \"containerPort\": {port}}}"),
            None => "{\"size\": 1}".into(),
        };
    }
    let qualified = crate::names::qualified_group(group, &project.domain);
    let k8s = project
        .k8s_version()
        .and_then(crate::crd::K8sTable::for_version)
        .unwrap_or_else(crate::crd::K8sTable::default_table);
    let mut sources = project.sources();
    if sources.is_empty() {
        sources.push(std::path::PathBuf::from("src"));
    }
    for src in sources {
        let Ok(generation) = crate::crd::generate_all(&crate::crd::SourceSet::new(&cwd.join(src)), k8s) else {
            continue;
        };
        let crds = generation.crds.iter().map(|c| &c.crd).chain(generation.pending.iter().map(|p| &p.crd.crd));
        for crd in crds {
            if crd["spec"]["group"] == qualified.as_str() && crd["spec"]["names"]["kind"] == kind {
                let object = crate::crd::sample::sample_object(crd, version, "sample", &[]);
                return object.map(|o| inline_json(&o["spec"])).filter(|j| j != "null").unwrap_or_else(|| "{}".into());
            }
        }
    }
    "{}".into()
}

/// JSON on one line with a space after `:` and `,`, as a person writes it in a `json!`.
fn inline_json(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let fields: Vec<String> =
                m.iter().map(|(k, v)| format!("{}: {}", Value::String(k.clone()), inline_json(v))).collect();
            format!("{{{}}}", fields.join(", "))
        }
        Value::Array(a) => format!("[{}]", a.iter().map(inline_json).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANAGER: &str = "spec:\n  containers:\n  - name: manager\n    env:\n    - name: POD_NAME\n      valueFrom:\n        \
                           fieldRef:\n          fieldPath: metadata.name\n    # +kubesmith:scaffold:manager-env\n    \
                           ports: []\n";

    #[test]
    fn env_entries_are_added_in_name_order_and_updated_in_place() {
        let p = Path::new(MANAGER_FILE);
        let one = set_env(p, MANAGER, "MEMCACHED_IMAGE", "memcached:1.6.26-alpine3.19").unwrap();
        let two = set_env(p, &one, "BUSYBOX_IMAGE", "busybox:1.36.1").unwrap();
        let three = set_env(p, &two, "NGINX_IMAGE", "nginx").unwrap();
        assert!(
            three.contains(
                "metadata.name\n    - name: BUSYBOX_IMAGE\n      value: busybox:1.36.1\n    - name: MEMCACHED_IMAGE\n      \
                 value: memcached:1.6.26-alpine3.19\n    - name: NGINX_IMAGE\n      value: nginx\n    # +kubesmith"
            ),
            "{three}"
        );
        let updated = set_env(p, &three, "BUSYBOX_IMAGE", "busybox:1.37").unwrap();
        assert_eq!(updated, three.replace("busybox:1.36.1", "busybox:1.37"));
        assert_eq!(set_env(p, &updated, "BUSYBOX_IMAGE", "busybox:1.37").unwrap(), updated);
    }

    #[test]
    fn env_values_are_quoted_when_yaml_would_misread_them() {
        let out = set_env(Path::new(MANAGER_FILE), MANAGER, "X_IMAGE", "reg.example.com/x:1 #a").unwrap();
        let doc = crate::yaml::from_str(&out).unwrap();
        assert_eq!(doc["spec"]["containers"][0]["env"][1]["value"], "reg.example.com/x:1 #a");
    }

    #[test]
    fn a_missing_marker_names_the_fix() {
        let err = set_env(Path::new(MANAGER_FILE), "env: []\n", "X_IMAGE", "x").unwrap_err().to_string();
        assert!(err.contains(MANAGER_ENV_MARKER) && err.contains("env:"), "{err}");
    }

    #[test]
    fn options_are_checked() {
        assert_eq!(check_port("11211").unwrap(), 11211);
        for bad in ["0", "65536", "-1", "http"] {
            assert!(check_port(bad).unwrap_err().0.contains("1 to 65535"), "{bad}");
        }
        assert_eq!(check_uid("1001").unwrap(), 1001);
        assert!(check_uid("0").unwrap_err().0.contains("root"));
        for bad in ["-5", "2147483648", "nobody"] {
            assert!(check_uid(bad).unwrap_err().0.contains("not a user id"), "{bad}");
        }
        assert_eq!(check_command("memcached,-o,modern").unwrap(), ["memcached", "-o", "modern"]);
        assert!(check_command("memcached,,-v").unwrap_err().0.contains("empty argument"));
        assert!(check_image("memcached 1.6").is_err() && check_image("").is_err());
        assert_eq!(
            check_image("registry.example.com:5000/team/app@sha256:abc").unwrap(),
            "registry.example.com:5000/team/app@sha256:abc"
        );
    }

    #[test]
    fn project_entries_follow_kubebuilder_and_are_replaced_or_removed() {
        let mut project = ProjectFile::default();
        let memcached = DeployImage {
            image: "memcached:1.6.26-alpine3.19".into(),
            command: vec!["memcached".into(), "-v".into()],
            container_port: Some(11211),
            run_as_user: Some(1001),
        };
        let busybox =
            DeployImage { image: "busybox:1.36.1".into(), command: vec![], container_port: None, run_as_user: None };
        record(&mut project, "example.com", "cache", "v1alpha1", "Memcached", Some(&memcached));
        record(&mut project, "example.com", "cache", "v1alpha1", "Busybox", Some(&busybox));
        assert_eq!(
            project.plugins[PLUGIN_KEY],
            json!({"resources": [
                {"domain": "example.com", "group": "cache", "kind": "Memcached", "version": "v1alpha1", "options": {
                    "containerCommand": "memcached,-v", "containerPort": "11211",
                    "image": "memcached:1.6.26-alpine3.19", "runAsUser": "1001"}},
                {"domain": "example.com", "group": "cache", "kind": "Busybox", "version": "v1alpha1",
                 "options": {"image": "busybox:1.36.1"}},
            ]})
        );
        let newer = DeployImage { image: "busybox:1.37".into(), ..busybox };
        record(&mut project, "example.com", "cache", "v1", "Busybox", Some(&newer));
        assert_eq!(project.plugins[PLUGIN_KEY]["resources"][1]["options"]["image"], "busybox:1.37");
        assert_eq!(project.plugins[PLUGIN_KEY]["resources"][1]["version"], "v1");
        let note = record(&mut project, "example.com", "cache", "v1", "Busybox", None);
        assert!(note.is_some_and(|n| n.contains("still sets BUSYBOX_IMAGE")));
        record(&mut project, "example.com", "cache", "v1alpha1", "Memcached", None);
        assert_eq!(record(&mut project, "example.com", "cache", "v1alpha1", "Memcached", None), None);
        assert!(!project.plugins.contains_key(PLUGIN_KEY), "{:?}", project.plugins);
    }
}
