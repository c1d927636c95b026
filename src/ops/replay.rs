//! The script of `kubesmith alpha generate`: the commands that re-create a project from its PROJECT file — `init`,
//! every `create api` and `create webhook` with the options PROJECT records, then `make manifests` — as the argument
//! lists a user would type, parsed by the real CLI.

use std::path::Path;

use anyhow::Result;
use serde_json::Value;

use crate::ops::init::default_owner;
use crate::plan::Plan;
use crate::project::{self, PROJECT_FILE, Project, ProjectFile, Resource};
use crate::{apply, output};

/// kubebuilder's deploy-image plugin as kubesmith records it (`create api --image`): one entry per kind in
/// `plugins["deploy-image.rust.kubesmith.io/v1alpha1"].resources[]`, options as strings.
pub const DEPLOY_IMAGE_KEY: &str = "deploy-image.rust.kubesmith.io/v1alpha1";

/// One command of the replay: the words after `kubesmith`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub args: Vec<String>,
}

impl Step {
    fn new<S: Into<String>>(args: impl IntoIterator<Item = S>) -> Step {
        Step { args: args.into_iter().map(Into::into).collect() }
    }

    /// `--flag value`, or `--flag=value` when the value starts with `-` (clap would take it for a flag).
    fn push(&mut self, flag: &str, value: impl Into<String>) {
        let value = value.into();
        if value.starts_with('-') {
            self.args.push(format!("{flag}={value}"));
        } else {
            self.args.push(flag.to_string());
            self.args.push(value);
        }
    }

    /// The command as a shell line: `kubesmith create api --group cache ...`.
    pub fn command_line(&self) -> String {
        std::iter::once("kubesmith".to_string())
            .chain(self.args.iter().map(|a| shell_quote(a)))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The full argv, for clap.
    pub fn argv(&self) -> impl Iterator<Item = &str> {
        std::iter::once("kubesmith").chain(self.args.iter().map(String::as_str))
    }
}

/// The commands that re-create a project, and what the replay had to assume or leaves out.
#[derive(Debug, Clone, Default)]
pub struct Script {
    pub steps: Vec<Step>,
    /// Notes and warnings for the user (`note: ...`, `warning: ...`).
    pub notes: Vec<String>,
}

/// The script of a kubesmith project. PROJECT lists resources in the order they were created, but not when their
/// webhooks were added; the replay takes webhooks to come after the APIs, in PROJECT order, as kubebuilder's `alpha
/// generate` does. So: `init`; then the resources in order — a `create api` for each that has types or a
/// controller; for a type the project does not define that only has webhooks (its entry was made by that `create
/// webhook`, so it stands where it was made), first the webhooks of the resources before it whose versions all
/// exist by then, then its own `create webhook`; then the remaining webhooks in PROJECT order (a conversion
/// webhook waits for every version it converts); then `make manifests`, `make helm` when PROJECT records a chart, `make docs` when it records an API reference and `edit --plugins grafana` when it records the grafana plugin. A project whose webhooks were made in
/// another order differs only in the order of their lines (`src/webhook.rs`).
pub fn script(pf: &ProjectFile) -> Result<Script> {
    if !pf.is_kubesmith() {
        anyhow::bail!(
            "PROJECT's layout {:?} is not kubesmith's (`{}`): only projects kubesmith scaffolded can be replayed",
            pf.layout,
            project::LAYOUT
        );
    }
    if pf.adopted() {
        anyhow::bail!(
            "this project was adopted (`kubesmith adopt`), not scaffolded: there are no kubesmith commands to replay; \
             `kubesmith adopt` again in a copy of the crate gives its config/ tree"
        );
    }
    let mut out = Script::default();
    let known = [
        project::PLUGIN_KEY,
        DEPLOY_IMAGE_KEY,
        crate::helm::PLUGIN_KEY,
        crate::docs::PLUGIN_KEY,
        crate::grafana::PLUGIN_KEY,
        crate::ops::from_crd::PLUGIN_KEY,
    ];
    for key in pf.plugins.keys().filter(|k| !known.contains(&k.as_str())) {
        out.notes.push(format!(
            "warning: PROJECT's plugin `{key}` is not one kubesmith knows: its settings are not replayed"
        ));
    }
    out.steps.push(init_step(pf, &mut out.notes));
    // Resources replayed so far, and the webhooks of those replayed by `create api`, not yet replayed.
    let mut created: Vec<&Resource> = Vec::new();
    let mut pending: Vec<&Resource> = Vec::new();
    // kinds written from a CRD: one `create api --from-crd` made every version
    let mut from_crd: Vec<(&str, &str)> = Vec::new();
    for r in &pf.resources {
        let has_controller_or_types = r.controller || (r.api.is_some() && !r.is_foreign());
        let crd = (r.api.is_some() && !r.is_foreign())
            .then(|| crate::ops::from_crd::recorded(pf, &crate::names::qualified_group(&r.group, &r.domain), &r.kind))
            .flatten();
        if let Some(crd) = crd {
            if !from_crd.contains(&(r.group.as_str(), r.kind.as_str())) {
                from_crd.push((r.group.as_str(), r.kind.as_str()));
                out.steps.push(from_crd_step(pf, r, &crd));
            }
            created.push(r);
            if r.webhooks.is_some() {
                pending.push(r);
            }
        } else if has_controller_or_types {
            out.steps.push(api_step(pf, r)?);
            created.push(r);
            if r.webhooks.is_some() {
                pending.push(r);
            }
        } else if r.webhooks.is_some() {
            let ready = pending.iter().take_while(|p| versions_exist(p, &created)).count();
            out.steps.extend(pending.drain(..ready).map(|p| webhook_step(p, false)));
            out.steps.push(webhook_step(r, r.external));
            created.push(r);
        } else {
            out.notes.push(format!(
                "warning: PROJECT's resource {}/{} {} has no types, controller or webhooks: nothing to replay",
                r.group, r.version, r.kind
            ));
        }
    }
    for r in deploy_image_orphans(pf) {
        out.notes.push(format!(
            "warning: PROJECT's {DEPLOY_IMAGE_KEY} entry for {r} names no resource of PROJECT: not replayed"
        ));
    }
    out.steps.extend(pending.into_iter().map(|p| webhook_step(p, false)));
    out.steps.push(Step::new(["make", "manifests"]));
    if let Some(chart) = crate::ops::helm::recorded_dir(pf) {
        let mut step = Step::new(["make", "helm"]);
        if chart != std::path::Path::new(crate::helm::DEFAULT_DIR) {
            step.args.extend(["--output-dir".to_string(), chart.to_string_lossy().into_owned()]);
        }
        out.steps.push(step);
    }
    if let Some(page) = crate::docs::recorded::recorded(pf)? {
        out.steps.push(docs_step(&page));
    }
    if crate::grafana::recorded(pf) {
        out.steps.push(Step::new(["edit", "--plugins", "grafana"]));
    }
    Ok(out)
}

/// `create api --from-crd` for every version of `r`'s kind PROJECT records (a reconciler unless none has one).
fn from_crd_step(pf: &ProjectFile, r: &Resource, crd: &str) -> Step {
    let mut step = Step::new(["create", "api"]);
    step.push("--from-crd", crd);
    step.push("--kind", r.kind.as_str());
    let versions = pf.resources.iter().filter(|o| o.group == r.group && o.kind == r.kind && o.api.is_some());
    for v in versions.clone() {
        step.push("--version", v.version.as_str());
    }
    if !versions.clone().any(|v| v.controller) {
        step.args.push("--controller=false".into());
    }
    step
}

/// `make docs` with the page and format PROJECT records (flags only where they differ from the defaults).
fn docs_step(page: &crate::docs::recorded::Recorded) -> Step {
    let mut step = Step::new(["make", "docs"]);
    if page.format != crate::docs::Format::Markdown {
        step.args.extend(["--format".to_string(), page.format.name().to_string()]);
    }
    if page.output != std::path::Path::new(page.format.default_output()) {
        step.args.extend(["--output".to_string(), page.output.to_string_lossy().into_owned()]);
    }
    step
}

/// Whether every version a resource's webhooks need (the spokes of its conversion) has been replayed.
fn versions_exist(r: &Resource, created: &[&Resource]) -> bool {
    let spokes = r.webhooks.as_ref().map(|w| w.spoke.as_slice()).unwrap_or_default();
    spokes.iter().all(|v| created.iter().any(|c| c.group == r.group && c.kind == r.kind && &c.version == v))
}

/// `init` with what PROJECT records: domain, name, repo, multigroup and kubesmith's settings (Kubernetes version,
/// license, owner, copyright year). Settings an older PROJECT lacks take their defaults, with a note.
fn init_step(pf: &ProjectFile, notes: &mut Vec<String>) -> Step {
    let mut step = Step::new(["init"]);
    step.push("--domain", pf.domain.as_str());
    step.push("--project-name", pf.project_name.as_str());
    if !pf.repo.is_empty() {
        step.push("--repo", pf.repo.as_str());
    }
    match pf.license() {
        Some(project::LICENSE_NONE) => step.push("--license", "none"),
        Some(project::LICENSE_APACHE2) => {}
        Some(other) => notes.push(format!(
            "warning: PROJECT's license `{other}` is not one `kubesmith init` knows (apache2, none): replayed as apache2"
        )),
        None => notes.push(
            "note: PROJECT records no license (scaffolded before kubesmith recorded it): the replay uses Apache-2.0"
                .into(),
        ),
    }
    let apache2 = pf.license() != Some(project::LICENSE_NONE);
    if apache2 {
        match pf.owner() {
            Some(owner) if owner != default_owner(&pf.project_name) => step.push("--owner", owner),
            Some(_) => {}
            None => notes.push(format!(
                "note: PROJECT records no copyright owner: the replay uses `{}`",
                default_owner(&pf.project_name)
            )),
        }
        match pf.copyright_year() {
            Some(year) => step.push("--copyright-year", year.to_string()),
            None => notes.push("note: PROJECT records no copyright year: the replay uses this year".into()),
        }
    }
    match pf.k8s_version() {
        Some(v) => step.push("--k8s-version", v),
        None => notes.push("note: PROJECT records no k8sVersion: the replay uses kubesmith's default".into()),
    }
    if pf.multigroup {
        step.args.push("--multigroup".into());
    }
    if pf.namespaced {
        step.args.push("--namespaced".into());
    }
    if pf.runtime() == Some(project::RUNTIME_REGISTRY) {
        step.push("--runtime", project::RUNTIME_REGISTRY);
    }
    step
}

/// `create api` for a resource: the project's own kind (`--plural` when irregular, `--namespaced=false`,
/// `--controller=false`, deploy-image options), or a controller over a built-in (`--resource=false`) or an
/// external type (`--external-api-*`).
fn api_step(pf: &ProjectFile, r: &Resource) -> Result<Step> {
    let mut step = named(&["create", "api"], r);
    if !r.plural.is_empty() {
        step.push("--plural", r.plural.as_str());
    }
    if r.is_foreign() {
        step.args.push("--resource=false".into());
        if r.external {
            external_flags(&mut step, r);
            if !pf.external_namespaced(r) {
                step.args.push("--namespaced=false".into());
            }
        }
        return Ok(step);
    }
    match &r.api {
        Some(api) if !api.namespaced => step.args.push("--namespaced=false".into()),
        Some(_) => {}
        None => step.args.push("--resource=false".into()),
    }
    if !r.controller {
        step.args.push("--controller=false".into());
    }
    step.args.extend(deploy_image_flags(pf, r)?);
    Ok(step)
}

/// `create webhook` for a resource's recorded webhooks; `external` adds the `--external-api-*` flags (a webhook
/// on an external type no `create api` registered).
fn webhook_step(r: &Resource, external: bool) -> Step {
    let mut step = named(&["create", "webhook"], r);
    let w = r.webhooks.clone().unwrap_or_default();
    if w.defaulting {
        step.args.push("--defaulting".into());
    }
    if w.validation {
        step.args.push("--programmatic-validation".into());
    }
    if w.conversion {
        step.args.push("--conversion".into());
        if !w.spoke.is_empty() {
            step.push("--spoke", w.spoke.join(","));
        }
    }
    if external {
        external_flags(&mut step, r);
    }
    step
}

fn named(command: &[&str], r: &Resource) -> Step {
    let mut step = Step::new(command.iter().copied());
    step.push("--group", r.group.as_str());
    step.push("--version", r.version.as_str());
    step.push("--kind", r.kind.as_str());
    step
}

fn external_flags(step: &mut Step, r: &Resource) {
    step.push("--external-api-path", r.path.as_str());
    if !r.module.is_empty() {
        step.push("--external-api-crate", r.module.as_str());
    }
    if !r.domain.is_empty() {
        step.push("--external-api-domain", r.domain.as_str());
    }
}

/// The deploy-image options PROJECT records for a kind (`plugins["deploy-image.rust.kubesmith.io/v1alpha1"]`), as the
/// `create api` flags that record them: `--image`, `--image-container-command`, `--image-container-port`,
/// `--run-as-user`. Empty when the kind has no entry. An option kubesmith does not know, or one that is not a
/// string, is an error rather than a replay that silently differs.
pub fn deploy_image_flags(pf: &ProjectFile, r: &Resource) -> Result<Vec<String>> {
    let Some(entry) = deploy_image_entries(pf).find(|e| project::same_resource(e, r)) else { return Ok(Vec::new()) };
    let what = format!("PROJECT's {DEPLOY_IMAGE_KEY} entry for {}/{} {}", r.group, r.version, r.kind);
    let Some(options) = entry.get("options").and_then(Value::as_object) else {
        anyhow::bail!("{what} has no `options`: restore them (at least `image`) or remove the entry");
    };
    const FLAGS: [(&str, &str); 4] = [
        ("image", "--image"),
        ("containerCommand", "--image-container-command"),
        ("containerPort", "--image-container-port"),
        ("runAsUser", "--run-as-user"),
    ];
    if let Some(unknown) = options.keys().find(|k| !FLAGS.iter().any(|(name, _)| name == k)) {
        anyhow::bail!(
            "{what}: option `{unknown}` is not one kubesmith replays (image, containerCommand, containerPort, \
             runAsUser): a newer kubesmith wrote it, or it was added by hand"
        );
    }
    if !options.contains_key("image") {
        anyhow::bail!("{what} has no `image` option: add it (the image `create api --image` was given)");
    }
    let mut flags = Vec::new();
    for (name, flag) in FLAGS {
        let Some(value) = options.get(name) else { continue };
        let Some(text) = value.as_str() else {
            anyhow::bail!("{what}: option `{name}` is {value}, not a string: write it quoted, as kubebuilder does");
        };
        if text.starts_with('-') {
            flags.push(format!("{flag}={text}"));
        } else {
            flags.extend([flag.to_string(), text.to_string()]);
        }
    }
    Ok(flags)
}

fn deploy_image_entries(pf: &ProjectFile) -> impl Iterator<Item = &Value> {
    let list = pf.plugins.get(DEPLOY_IMAGE_KEY).and_then(|p| p.get("resources")).and_then(Value::as_array);
    list.into_iter().flatten()
}

/// deploy-image entries naming no resource of PROJECT (`group/version Kind`).
fn deploy_image_orphans(pf: &ProjectFile) -> Vec<String> {
    deploy_image_entries(pf)
        .filter(|e| !pf.resources.iter().any(|r| !r.is_foreign() && project::same_resource(e, r)))
        .map(|e| {
            let f = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
            format!("{}/{} {}", f("group"), f("version"), f("kind"))
        })
        .collect()
}

/// A word as a POSIX shell reads it back: bare when safe, else in single quotes.
pub fn shell_quote(word: &str) -> String {
    let safe = !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_.,/:=@+%".contains(c));
    if safe { word.to_string() } else { format!("'{}'", word.replace('\'', "'\\''")) }
}

/// Runs one step of a script in `dir` as `kubesmith` would there; `origin` is the project replayed.
pub(crate) type RunStep = dyn Fn(&Step, &Path, &Path) -> Result<()>;

/// The first few lines of `git status --porcelain`, for a message.
pub(crate) fn summarize(changes: &[String]) -> String {
    let mut shown: Vec<&str> = changes.iter().take(5).map(|c| c.trim()).collect();
    if changes.len() > 5 {
        shown.push("...");
    }
    shown.join(", ")
}

/// Runs the script in `dir` (an empty folder): each step run by `run_step` (the CLI's dispatcher: parsed, planned,
/// formatted and applied, as if typed there). Before `make manifests`, kubesmith settings PROJECT holds that no command writes
/// (`crd: {compile: false}`) are carried over; afterwards the replayed PROJECT is compared with the original.
/// `show` prints each command as it runs.
/// `origin`: the project replayed, where the CRDs PROJECT records (`create api --from-crd`) are read.
pub(crate) fn replay_into(
    original: &ProjectFile,
    script: &Script,
    origin: &Path,
    dir: &Path,
    show: bool,
    run_step: &RunStep,
) -> Result<()> {
    for step in &script.steps {
        if step.args.first().is_some_and(|a| a == "make") {
            carry_settings(original, dir)?;
        }
        if show {
            output::info(format_args!("replay: {}", step.command_line()));
        }
        run_step(step, origin, dir)
            .map_err(|e| anyhow::anyhow!("replaying `{}` failed: {e:#}", step.command_line()))?;
    }
    if let Some(difference) = project_difference(original, dir)? {
        output::warn(format_args!(
            "warning: the replayed PROJECT differs from the project's ({difference}): PROJECT was edited by hand, or \
             records something no kubesmith command replays; compare the two files"
        ));
    }
    Ok(())
}

/// Settings of kubesmith's plugin entry the project has and the replay does not (written by hand, such as
/// `crd: {compile: false}`), added to the replayed PROJECT.
fn carry_settings(original: &ProjectFile, dir: &Path) -> Result<()> {
    let Some(theirs) = original.plugins.get(project::PLUGIN_KEY).and_then(|p| p.as_object()) else { return Ok(()) };
    let mut file = Project::load(dir)?.file;
    let ours = file.plugins.entry(project::PLUGIN_KEY).or_insert_with(|| serde_json::json!({}));
    let Some(ours) = ours.as_object_mut() else { return Ok(()) };
    let mut kept = Vec::new();
    for (key, value) in theirs {
        if !ours.contains_key(key) {
            ours.insert(key.clone(), value.clone());
            kept.push(key.as_str());
        }
    }
    if kept.is_empty() {
        return Ok(());
    }
    let mut plan = Plan::new(dir);
    plan.edit(PROJECT_FILE, file.to_yaml());
    apply::apply(&plan)?;
    output::info(format_args!(
        "note: kept PROJECT settings no command writes: {}",
        kept.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
    ));
    Ok(())
}

/// Where the replayed PROJECT first differs from the original (`cliVersion` aside: the replay is this version's).
fn project_difference(original: &ProjectFile, dir: &Path) -> Result<Option<String>> {
    let mut replayed = Project::load(dir)?.file;
    replayed.cli_version.clone_from(&original.cli_version);
    if &replayed == original {
        return Ok(None);
    }
    let (want, got) = (original.to_yaml(), replayed.to_yaml());
    let (want, got): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let at = want.iter().zip(&got).position(|(a, b)| a != b).unwrap_or(want.len().min(got.len()));
    let line = |l: &[&str]| l.get(at).map_or_else(|| "end of file".to_string(), |s| format!("`{}`", s.trim()));
    Ok(Some(format!("line {}: {} in the project, {} in the replay", at + 1, line(&want), line(&got))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::{ResourceApi, ResourceWebhooks};

    fn project() -> ProjectFile {
        let text = "cliVersion: 0.1.0\ndomain: example.com\nlayout:\n- rust.kubesmith.io/v1alpha1\nplugins:\n  \
            rust.kubesmith.io/v1alpha1:\n    copyrightYear: 2025\n    k8sVersion: '1.35'\n    license: apache2\n    \
            owner: The Memcached Authors\nprojectName: memcached-operator\nrepo: https://example.com/m.git\nversion: '3'\n";
        ProjectFile::parse(text, std::path::Path::new("PROJECT")).unwrap()
    }

    fn own(version: &str, kind: &str) -> Resource {
        Resource {
            api: Some(ResourceApi { crd_version: "v1".into(), namespaced: true }),
            controller: true,
            domain: "example.com".into(),
            group: "cache".into(),
            kind: kind.into(),
            path: "memcached_operator::api::v1".into(),
            version: version.into(),
            ..Resource::default()
        }
    }

    fn lines(s: &Script) -> Vec<String> {
        s.steps.iter().map(Step::command_line).collect()
    }

    #[test]
    fn init_gets_every_recorded_option() {
        let s = script(&project()).unwrap();
        assert_eq!(
            lines(&s),
            [
                "kubesmith init --domain example.com --project-name memcached-operator --repo https://example.com/m.git \
                 --owner 'The Memcached Authors' --copyright-year 2025 --k8s-version 1.35",
                "kubesmith make manifests",
            ]
        );
        assert!(s.notes.is_empty(), "{:?}", s.notes);
    }

    #[test]
    fn older_projects_replay_with_defaults_and_say_so() {
        let mut pf = project();
        pf.plugins.insert(project::PLUGIN_KEY.into(), serde_json::json!({ "k8sVersion": "1.37" }));
        pf.multigroup = true;
        let s = script(&pf).unwrap();
        assert!(s.steps[0].command_line().ends_with("--k8s-version 1.37 --multigroup"), "{:?}", s.steps[0]);
        let notes = s.notes.join("\n");
        assert!(notes.contains("no license") && notes.contains("no copyright owner"), "{notes}");
        assert!(notes.contains("`The memcached-operator authors`") && notes.contains("no copyright year"), "{notes}");
        // without a license, neither owner nor year mean anything
        pf.plugins.insert(project::PLUGIN_KEY.into(), serde_json::json!({ "k8sVersion": "1.37", "license": "none" }));
        let s = script(&pf).unwrap();
        assert!(s.steps[0].command_line().contains("--license none --k8s-version"), "{:?}", s.steps[0]);
        assert!(s.notes.is_empty(), "{:?}", s.notes);
    }

    /// Webhooks follow the APIs, in PROJECT order; a webhook-only entry (made by its `create webhook`) keeps its
    /// place, after the webhooks before it that can be made by then.
    #[test]
    fn apis_in_project_order_then_webhooks() {
        let mut pf = project();
        let mut memcached = own("v1alpha1", "Memcached");
        memcached.webhooks = Some(ResourceWebhooks {
            conversion: true,
            defaulting: true,
            spoke: vec!["v1beta1".into()],
            validation: true,
            webhook_version: "v1".into(),
        });
        let mut cluster = own("v1", "Cluster");
        cluster.api = Some(ResourceApi { crd_version: "v1".into(), namespaced: false });
        cluster.plural = "clusteres".into();
        let mut beta = own("v1beta1", "Memcached");
        beta.controller = false;
        let pod = Resource {
            core: true,
            group: "core".into(),
            kind: "Pod".into(),
            path: "k8s_openapi::api::core::v1".into(),
            version: "v1".into(),
            webhooks: Some(ResourceWebhooks { defaulting: true, webhook_version: "v1".into(), ..Default::default() }),
            ..Resource::default()
        };
        let deployment = Resource {
            controller: true,
            core: true,
            group: "apps".into(),
            kind: "Deployment".into(),
            path: "k8s_openapi::api::apps::v1".into(),
            version: "v1".into(),
            ..Resource::default()
        };
        cluster.webhooks =
            Some(ResourceWebhooks { validation: true, webhook_version: "v1".into(), ..Default::default() });
        let secret = Resource {
            core: true,
            group: "core".into(),
            kind: "Secret".into(),
            path: "k8s_openapi::api::core::v1".into(),
            version: "v1".into(),
            webhooks: Some(ResourceWebhooks { validation: true, webhook_version: "v1".into(), ..Default::default() }),
            ..Resource::default()
        };
        pf.resources = vec![memcached, pod, cluster, beta, deployment, secret];
        let s = script(&pf).unwrap();
        assert_eq!(
            lines(&s)[1..],
            [
                "kubesmith create api --group cache --version v1alpha1 --kind Memcached",
                // Memcached's conversion needs v1beta1, not made yet: it waits
                "kubesmith create webhook --group core --version v1 --kind Pod --defaulting",
                "kubesmith create api --group cache --version v1 --kind Cluster --plural clusteres --namespaced=false",
                "kubesmith create api --group cache --version v1beta1 --kind Memcached --controller=false",
                "kubesmith create api --group apps --version v1 --kind Deployment --resource=false",
                "kubesmith create webhook --group cache --version v1alpha1 --kind Memcached --defaulting \
                 --programmatic-validation --conversion --spoke v1beta1",
                "kubesmith create webhook --group cache --version v1 --kind Cluster --programmatic-validation",
                "kubesmith create webhook --group core --version v1 --kind Secret --programmatic-validation",
                "kubesmith make manifests",
            ]
        );
    }

    #[test]
    fn external_types_get_their_flags_and_recorded_scope() {
        let mut pf = project();
        let issuer = Resource {
            controller: true,
            domain: "io".into(),
            external: true,
            group: "cert-manager".into(),
            kind: "ClusterIssuer".into(),
            module: "acme-crds@../acme-crds".into(),
            path: "acme_crds::v1::ClusterIssuer".into(),
            version: "v1".into(),
            webhooks: Some(ResourceWebhooks { validation: true, webhook_version: "v1".into(), ..Default::default() }),
            ..Resource::default()
        };
        let widget = Resource {
            external: true,
            group: "widgets.acme.org".into(),
            kind: "Widget".into(),
            path: "acme_crds::widgets".into(),
            version: "v2".into(),
            webhooks: Some(ResourceWebhooks { defaulting: true, webhook_version: "v1".into(), ..Default::default() }),
            ..Resource::default()
        };
        pf.set_external_namespaced(&issuer, false);
        pf.resources = vec![issuer, widget];
        let s = script(&pf).unwrap();
        assert_eq!(
            lines(&s)[1..],
            [
                "kubesmith create api --group cert-manager --version v1 --kind ClusterIssuer --resource=false \
                 --external-api-path acme_crds::v1::ClusterIssuer --external-api-crate acme-crds@../acme-crds \
                 --external-api-domain io --namespaced=false",
                "kubesmith create webhook --group cert-manager --version v1 --kind ClusterIssuer --programmatic-validation",
                "kubesmith create webhook --group widgets.acme.org --version v2 --kind Widget --defaulting \
                 --external-api-path acme_crds::widgets",
                "kubesmith make manifests",
            ]
        );
    }

    /// `create api --image` (branch deploy-image) records kubebuilder's deploy-image shape; the replay turns it back
    /// into the flags. Until those flags exist in `CreateApiArgs`, parsing such a step fails (unknown argument).
    #[test]
    fn deploy_image_options_become_create_api_flags() {
        let mut pf = project();
        pf.resources = vec![own("v1alpha1", "Memcached"), own("v1", "Cluster")];
        pf.plugins.insert(
            DEPLOY_IMAGE_KEY.into(),
            serde_json::json!({ "resources": [{
                "domain": "example.com", "group": "cache", "kind": "Memcached", "version": "v1alpha1",
                "options": {
                    "containerCommand": "memcached,--memory-limit=64,-o,modern,-v",
                    "containerPort": "11211",
                    "image": "memcached:1.6.26-alpine3.19",
                    "runAsUser": "1001"
                }
            }]}),
        );
        assert_eq!(
            deploy_image_flags(&pf, &pf.resources[0]).unwrap(),
            [
                "--image",
                "memcached:1.6.26-alpine3.19",
                "--image-container-command",
                "memcached,--memory-limit=64,-o,modern,-v",
                "--image-container-port",
                "11211",
                "--run-as-user",
                "1001"
            ]
        );
        assert!(deploy_image_flags(&pf, &pf.resources[1]).unwrap().is_empty());
        let s = script(&pf).unwrap();
        assert_eq!(
            s.steps[1].command_line(),
            "kubesmith create api --group cache --version v1alpha1 --kind Memcached --image memcached:1.6.26-alpine3.19 \
             --image-container-command memcached,--memory-limit=64,-o,modern,-v --image-container-port 11211 \
             --run-as-user 1001"
        );
        assert!(s.notes.is_empty(), "{:?}", s.notes);

        // only the image; a value clap would take for a flag is joined to its flag
        pf.plugins[DEPLOY_IMAGE_KEY]["resources"][0]["options"] =
            serde_json::json!({ "image": "busybox:1.36", "containerCommand": "-c,sleep 1" });
        assert_eq!(
            deploy_image_flags(&pf, &pf.resources[0]).unwrap(),
            ["--image", "busybox:1.36", "--image-container-command=-c,sleep 1"]
        );
        // what cannot be replayed faithfully is an error naming the entry
        for (options, expect) in [
            (serde_json::json!({ "image": "busybox", "replicas": "2" }), "option `replicas`"),
            (serde_json::json!({ "image": "busybox", "containerPort": 11211 }), "not a string"),
            (serde_json::json!({ "containerPort": "1" }), "no `image`"),
        ] {
            pf.plugins[DEPLOY_IMAGE_KEY]["resources"][0]["options"] = options;
            let e = deploy_image_flags(&pf, &pf.resources[0]).unwrap_err().to_string();
            assert!(e.contains(expect) && e.contains("cache/v1alpha1 Memcached"), "{e}");
        }
        // an entry for a kind PROJECT does not have is reported
        pf.plugins[DEPLOY_IMAGE_KEY]["resources"][0]["kind"] = "Gone".into();
        let s = script(&pf).unwrap();
        assert!(s.notes.iter().any(|n| n.contains("cache/v1alpha1 Gone")), "{:?}", s.notes);
    }

    #[test]
    fn the_grafana_plugin_is_replayed_last_when_recorded() {
        let mut pf = project();
        pf.resources = vec![own("v1alpha1", "Memcached")];
        assert!(!lines(&script(&pf).unwrap()).iter().any(|l| l.contains("grafana")));
        pf.plugins.insert(crate::grafana::PLUGIN_KEY.into(), serde_json::json!({}));
        let s = script(&pf).unwrap();
        assert_eq!(lines(&s).last().map(String::as_str), Some("kubesmith edit --plugins grafana"));
        assert!(s.notes.iter().all(|n| !n.contains("not one kubesmith knows")), "{:?}", s.notes);
    }

    #[test]
    fn adopted_and_foreign_layouts_are_refused() {
        let mut pf = project();
        pf.plugins[project::PLUGIN_KEY]["adopted"] = true.into();
        assert!(script(&pf).unwrap_err().to_string().contains("adopted"));
        let mut go = project();
        go.layout = vec!["go.kubebuilder.io/v4".into()];
        assert!(script(&go).unwrap_err().to_string().contains("not kubesmith's"));
    }

    /// A value that looks like a flag is written `--name=value` (how `commands`' tests parse it back through the
    /// real CLI).
    #[test]
    fn values_that_look_like_flags_are_attached_to_their_flag() {
        let mut pf = project();
        pf.plugins[project::PLUGIN_KEY]["owner"] = "-The Authors-".into();
        let s = script(&pf).unwrap();
        assert!(s.steps[0].command_line().contains(" '--owner=-The Authors-' "), "{:?}", s.steps[0]);
    }

    #[test]
    fn words_are_quoted_for_the_shell() {
        assert_eq!(shell_quote("cache"), "cache");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("The Memcached Authors"), "'The Memcached Authors'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
    }
}
