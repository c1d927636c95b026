//! `kubesmith init`: plans a new operator project (PROJECT, crate, manager, config/ tree, Dockerfile, Makefile).

use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use crate::names;
use crate::plan::Plan;
use crate::project::{self, ProjectFile};
use crate::usage::UsageError;

/// Values the `init` templates see. Every casing is computed here.
#[derive(Debug, Serialize)]
pub struct InitContext {
    pub project_name: String,
    /// `Memcached Operator`
    pub display_name: String,
    pub crate_name: String,
    pub domain: String,
    pub repo: String,
    pub owner: String,
    pub license_apache2: bool,
    pub year: String,
    pub k8s_version: String,
    pub k8s_feature: String,
    pub kubesmith_version: String,
    pub leader_election_id: String,
    pub namespace: String,
    pub multigroup: bool,
    /// A namespace-scoped manager (`init --namespaced`): a Role and RoleBinding instead of the ClusterRole, the
    /// controllers watching `WATCH_NAMESPACE` (the manager's own namespace).
    pub manager_namespaced: bool,
    /// `kubesmith adopt` renders the `config/` tree around an operator it did not scaffold: no scaffold-specific
    /// manager flags, probes, metrics endpoint, leader-election or metrics roles.
    pub adopted: bool,
    /// The manager image's name and tag in `config/manager/kustomization.yaml` (`controller`, `latest`).
    pub image_name: String,
    pub image_tag: String,
    /// kubesmith-runtime comes from `vendor/kubesmith-runtime` (`init --runtime vendored`), not the registry.
    pub runtime_vendored: bool,
    /// The version of kubesmith-runtime the project depends on (this kubesmith's).
    pub runtime_version: String,
}

/// What `init` is asked for (the command's flags but `--dry-run` and `--from-crd`; the flags' docs say what each
/// does).
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub domain: Option<String>,
    pub project_name: Option<String>,
    pub repo: Option<String>,
    pub owner: Option<String>,
    /// The Apache 2.0 license (else none).
    pub apache2: bool,
    pub copyright_year: Option<u16>,
    /// `1.37`
    pub k8s_version: &'static str,
    pub multigroup: bool,
    pub namespaced: bool,
    /// kubesmith-runtime vendored under `vendor/kubesmith-runtime` (else from the registry).
    pub runtime_vendored: bool,
    pub plugins: Vec<String>,
    pub force: bool,
}

pub fn plan(args: &Options, cwd: &Path) -> Result<Plan> {
    crate::ops::edit_plugins::check_names(&args.plugins)?;
    if cwd.join(project::PROJECT_FILE).exists() {
        anyhow::bail!(
            "{} is already a kubesmith project (it holds a PROJECT file): add an API to it with `kubesmith create api \
             --group <group> --version <version> --kind <Kind>`; `kubesmith init` only scaffolds new projects",
            cwd.display()
        );
    }
    if cwd.join("Cargo.toml").exists() {
        anyhow::bail!(
            "{} already holds a Cargo.toml: to make an existing kube-rs crate or workspace a kubesmith project, run \
             `kubesmith adopt` there (it writes PROJECT and config/ and never touches your sources); to start a new \
             operator, run `kubesmith init` in a new folder",
            cwd.display()
        );
    }
    let project_name = match &args.project_name {
        Some(n) => n.clone(),
        None => cwd
            .file_name()
            .map(|n| n.to_string_lossy().to_lowercase())
            .ok_or_else(|| UsageError("cannot derive a project name from the folder: pass --project-name".into()))?,
    };
    names::validate_project_name(&project_name).map_err(UsageError::from)?;
    names::validate_crate_name(&project_name).map_err(|e| {
        let message = e.to_string();
        match args.project_name {
            Some(_) => UsageError(message),
            None => UsageError(message.replacen("` cannot", "` (this folder's name) cannot", 1)),
        }
    })?;
    let Some(domain) = args.domain.clone() else {
        return Err(UsageError("pass --domain (the domain of the project's API groups)".into()).into());
    };
    names::validate_domain(&domain).map_err(UsageError::from)?;
    let repo = args.repo.clone().unwrap_or_default();
    let year = args.copyright_year.map_or_else(|| crate::clock::year(crate::clock::now()), i64::from);
    let ctx = InitContext {
        crate_name: names::crate_name(&project_name),
        display_name: names::display_name(&project_name),
        domain: domain.clone(),
        repo: repo.clone(),
        owner: args.owner.clone().unwrap_or_else(|| default_owner(&project_name)),
        license_apache2: args.apache2,
        year: year.to_string(),
        k8s_version: args.k8s_version.to_string(),
        k8s_feature: format!("v{}", args.k8s_version.replace('.', "_")),
        kubesmith_version: env!("CARGO_PKG_VERSION").to_string(),
        leader_election_id: format!("{:08x}.{}", names::fnv32a(&project_name), domain),
        namespace: format!("{project_name}-system"),
        multigroup: args.multigroup,
        manager_namespaced: args.namespaced,
        adopted: false,
        image_name: "controller".into(),
        image_tag: "latest".into(),
        runtime_vendored: args.runtime_vendored,
        runtime_version: crate::runtime_source::VERSION.into(),
        project_name,
    };

    let mut plan = Plan::new(cwd);
    let mut clashes = Vec::new();
    let vendored = if ctx.runtime_vendored { crate::runtime_source::vendored_files() } else { Vec::new() };
    // kubesmith's crate, formatted as released: the project's rustfmt settings are not its.
    plan.verbatim.extend(vendored.iter().map(|(path, _)| std::path::PathBuf::from(path)));
    for (path, contents) in crate::render::render_set("init", &ctx)?.into_iter().chain(vendored) {
        if path == "LICENSE" && !ctx.license_apache2 {
            continue;
        }
        if cwd.join(&path).exists() {
            if !args.force {
                clashes.push(path);
                continue;
            }
            plan.overwrite(path, contents);
        } else {
            plan.create(path, contents);
        }
    }
    if !clashes.is_empty() {
        anyhow::bail!(
            "{} already holds files kubesmith would write: {}; move them away or pass --force to overwrite them",
            cwd.display(),
            clashes.join(", ")
        );
    }

    let mut plugins = serde_json::Map::new();
    plugins.insert(project::PLUGIN_KEY.into(), plugin_settings(&ctx, year));
    let mut file = ProjectFile {
        cli_version: ctx.kubesmith_version.clone(),
        domain: ctx.domain.clone(),
        layout: vec![project::LAYOUT.into()],
        multigroup: ctx.multigroup,
        namespaced: ctx.manager_namespaced,
        plugins,
        project_name: ctx.project_name.clone(),
        repo,
        version: "3".into(),
        ..Default::default()
    };
    crate::ops::edit_plugins::plan_into(&mut plan, &mut file, &args.plugins)?;
    plan.create(project::PROJECT_FILE, file.to_yaml());
    // As kubebuilder: files init does not write stay (said once); hidden ones (.git, .envrc) go unmentioned.
    let mut kept: Vec<String> = std::fs::read_dir(cwd)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.') && !plan.ops().iter().any(|op| op.path.starts_with(n)))
                .collect()
        })
        .unwrap_or_default();
    kept.sort();
    if !kept.is_empty() {
        plan.notes.push(format!(
            "note: the folder already held {} entr{} init does not write, kept as they are: {}",
            kept.len(),
            if kept.len() == 1 { "y" } else { "ies" },
            kept.join(", ")
        ));
    }
    plan.notes.push(format!(
        "next: add an API with\n  kubesmith create api --group <group> --version v1alpha1 --kind <Kind>\n\
         then build and test the operator with `cargo build` and `cargo test` (Kubernetes {}, project `{}`)",
        ctx.k8s_version, ctx.project_name
    ));
    Ok(plan)
}

/// The copyright owner when `--owner` names none: `The memcached-operator authors`.
pub fn default_owner(project_name: &str) -> String {
    format!("The {project_name} authors")
}

/// kubesmith's PROJECT settings from `init`: everything the scaffold depends on beyond kubebuilder's own fields
/// (domain, projectName, repo, multigroup), so that `kubesmith alpha generate` can replay `init` exactly. The owner
/// and the copyright year only appear in the Apache-2.0 notice, so they are recorded only with that license.
fn plugin_settings(ctx: &InitContext, year: i64) -> serde_json::Value {
    let mut settings = serde_json::json!({
        "k8sVersion": ctx.k8s_version,
        "license": if ctx.license_apache2 { project::LICENSE_APACHE2 } else { project::LICENSE_NONE },
    });
    if !ctx.runtime_vendored {
        settings["runtime"] = project::RUNTIME_REGISTRY.into();
    }
    if ctx.license_apache2 {
        settings["owner"] = ctx.owner.clone().into();
        settings["copyrightYear"] = year.into();
    }
    settings
}
