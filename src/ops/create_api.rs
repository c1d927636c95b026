//! Scaffolding an API (`create api`, and `create api --from-crd` and `init --from-crd` for each kind): plans the Rust types, reconciler, samples, RBAC roles and PROJECT entry of a kind.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use crate::names::{self, ModuleName};
use crate::ops::api_context::{ApiContext, KindShape};
use crate::ops::deploy_image::{self, DeployImage};
use crate::ops::foreign::{self, Foreign};
use crate::ops::scaffold::{KindModules, api_markers as markers, enable, file_name, insert_rust, insert_yaml};
use crate::plan::Plan;
use crate::project::{Project, Resource, ResourceApi};
use crate::render;
use crate::usage::UsageError;

/// Where one kind's files go.
struct Layout {
    types: PathBuf,
    version_mod_file: PathBuf,
    /// Multigroup only: `src/api/<group>.rs`.
    group_mod_file: Option<PathBuf>,
    controller: PathBuf,
    /// Multigroup only: `src/controller/<group>.rs`.
    controller_group_file: Option<PathBuf>,
}

pub fn plan(args: &Options, cwd: &Path) -> Result<Plan> {
    plan_onto(args, Plan::new(cwd), true, KindShape::SCAFFOLD)
}

/// The project as `plan` leaves it: its planned PROJECT, else the one on disk.
pub fn planned_project(plan: &Plan) -> Result<Project> {
    match Project::planned(plan)? {
        Some(p) => Ok(p),
        None => Project::load(&plan.root),
    }
}

/// What `create api` is asked for (the command's flags but `--dry-run`; the flags' docs say what each does).
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// API group, without the domain.
    pub group: String,
    /// API versions: one (several only come with `--from-crd`, which the command handles).
    pub version: Vec<String>,
    pub kind: String,
    pub plural: Option<String>,
    pub namespaced: bool,
    /// Scaffold the Rust types.
    pub resource: bool,
    /// Scaffold a reconciler.
    pub controller: bool,
    pub external_api_path: Option<String>,
    pub external_api_crate: Option<String>,
    pub external_api_domain: Option<String>,
    /// Replace the kind's scaffolded files if the API exists.
    pub force: bool,
    /// deploy-image: the container image the controller runs, and its container's settings.
    pub image: deploy_image::ImageFlags,
}

impl Options {
    /// The one version a `create api` without `--from-crd` scaffolds.
    pub fn version(&self) -> &str {
        self.version.first().map(String::as_str).unwrap_or_default()
    }
}

/// Plans the kind on top of `plan` (whose PROJECT, when planned, is the one read); `crd`: also plan its CRD;
/// `shape`: what the reconciler may rely on in the kind's types.
pub fn plan_onto(args: &Options, mut plan: Plan, crd: bool, shape: KindShape) -> Result<Plan> {
    let cwd = plan.root.clone();
    let cwd = cwd.as_path();
    let project = planned_project(&plan)?;
    if project.file.adopted() {
        anyhow::bail!(
            "this project was adopted (`kubesmith adopt`): its sources keep their own layout, which `kubesmith create api` \
             does not scaffold into; add the code to your crate, then `kubesmith make manifests` picks it up"
        );
    }
    let pf = &project.file;
    names::validate_group(&args.group, &pf.domain).map_err(UsageError::from)?;
    if args.version.len() != 1 {
        return Err(UsageError(
            "pass one --version (several only with --from-crd, to pick versions of the CRD)".into(),
        )
        .into());
    }
    let version_warning = names::validate_version(args.version()).map_err(UsageError::from)?;
    names::validate_kind(&args.kind).map_err(UsageError::from)?;
    if let Some(p) = &args.plural {
        names::validate_plural(p).map_err(UsageError::from)?;
    }
    if !args.resource && !args.controller {
        return Err(UsageError("nothing to do: --resource=false and --controller=false".into()).into());
    }
    let external = foreign::ExternalFlags {
        path: args.external_api_path.as_deref(),
        krate: args.external_api_crate.as_deref(),
        domain: args.external_api_domain.as_deref(),
    };
    let named = foreign::Named {
        group: &args.group,
        version: args.version(),
        kind: &args.kind,
        plural: args.plural.as_deref(),
        namespaced: args.namespaced,
    };
    // --image needs the project's own types and controller: checked before a foreign type is considered
    let kind_flags = deploy_image::KindFlags {
        group: &args.group,
        kind: &args.kind,
        resource: args.resource,
        controller: args.controller,
        namespaced: args.namespaced,
    };
    let image = DeployImage::from_args(&args.image, kind_flags, pf)?;
    if let Some(f) = foreign::for_api(pf, named, args.resource, external)? {
        return plan_foreign(args, &project, &f, cwd);
    }

    if !pf.multigroup
        && let Some(other) = pf.own_resources().find(|r| !r.group.eq_ignore_ascii_case(&args.group))
    {
        anyhow::bail!(
            "this project holds APIs of group `{}` and is not multigroup; a second group `{}` needs the multigroup \
                 layout (`src/api/<group>/<version>`): start the project with `kubesmith init --multigroup`",
            other.group,
            args.group
        );
    }

    let kind_lower = args.kind.to_ascii_lowercase();
    let existing_versions: Vec<&Resource> = pf.versions_of(&args.group, &args.kind).collect();
    let same_gvk = existing_versions.iter().find(|r| r.version == args.version()).copied();
    let plural = args.plural.clone().unwrap_or_else(|| names::kube_plural(&kind_lower));
    let qualified_group = names::qualified_group(&args.group, &pf.domain);

    if let Some(first) = existing_versions.iter().find(|r| r.version != args.version()) {
        let their_plural = if first.plural.is_empty() { names::kube_plural(&kind_lower) } else { first.plural.clone() };
        if their_plural != plural {
            return Err(UsageError(format!(
                "kind `{}` already has version `{}` with plural `{their_plural}`; every version of a kind shares one plural: \
                 pass --plural {their_plural} or drop --plural",
                args.kind, first.version
            ))
            .into());
        }
        let their_ns = first.api.as_ref().is_some_and(|a| a.namespaced);
        if their_ns != args.namespaced {
            return Err(UsageError(format!(
                "kind `{}` version `{}` is {}; every version of a kind has the same scope: pass --namespaced={their_ns}",
                args.kind,
                first.version,
                if their_ns { "namespaced" } else { "cluster-scoped" }
            ))
            .into());
        }
    }

    if let Some(r) = same_gvk {
        let has_api = r.api.is_some();
        if !args.force && ((args.resource && has_api) || (args.controller && r.controller)) {
            anyhow::bail!(
                "API {}/{} kind {} already exists; pass --force to scaffold its files again (your edits to them are lost), \
                 or use another version or kind",
                qualified_group,
                args.version(),
                args.kind
            );
        }
    } else if !args.resource {
        anyhow::bail!(
            "there is no API {}/{} kind {} in PROJECT to attach a controller to: drop --resource=false to scaffold its \
             types, or pass --external-api-path for a type another crate defines",
            qualified_group,
            args.version(),
            args.kind
        );
    }

    let storage_version = existing_versions.iter().find(|r| r.version != args.version() && r.api.is_some());
    let kind_mod = names::module_name(&args.kind);
    let version_mod = names::module_name(args.version());
    let group_mod = names::module_name(if args.group.is_empty() { &pf.domain } else { &args.group });
    let api_module_path = if pf.multigroup {
        format!("api::{}::{}", group_mod.ident, version_mod.ident)
    } else {
        format!("api::{}", version_mod.ident)
    };
    let controller_module_path = if pf.multigroup {
        format!("controller::{}::{}", group_mod.ident, kind_mod.ident)
    } else {
        format!("controller::{}", kind_mod.ident)
    };
    let role_prefix = if pf.multigroup { format!("{}-{kind_lower}", args.group) } else { kind_lower.clone() };
    let ctx = ApiContext {
        project_name: pf.project_name.clone(),
        crate_name: project.crate_name(),
        domain: pf.domain.clone(),
        group: args.group.clone(),
        qualified_group: qualified_group.clone(),
        version: args.version().to_string(),
        kind: args.kind.clone(),
        kind_lower: kind_lower.clone(),
        kind_file: kind_mod.file.clone(),
        controller_name: role_prefix.clone(),
        plural: plural.clone(),
        custom_plural: plural != names::kube_plural(&kind_lower),
        kind_module: kind_mod.ident.clone(),
        api_module_path: api_module_path.clone(),
        controller_module_path: controller_module_path.clone(),
        namespaced: args.namespaced,
        storage: storage_version.is_none(),
        role_prefix: role_prefix.clone(),
        sample_name: format!("{kind_lower}-sample"),
        sample_file: sample_file(&args.group, &qualified_group, args.version(), &kind_lower),
        finalizer: format!("{plural}.{qualified_group}/finalizer"),
        field_manager: pf.project_name.clone(),
        manager_namespaced: pf.namespaced,
        shape,
    };
    let layout = layout(pf.multigroup, &group_mod, &version_mod, &kind_mod);

    if let Some(w) = version_warning {
        plan.notes.push(format!("warning: {w}"));
    }
    let scaffold = |plan: &mut Plan, path: &Path, contents: String| {
        if args.force && plan.exists(path) {
            plan.overwrite(path, contents);
        } else {
            plan.create(path, contents);
        }
    };

    if args.resource {
        let types = match &image {
            Some(image) => image.types(&ctx, pf)?,
            None => render::render("api/src/api/kind.rs.hbs", &ctx)?,
        };
        scaffold(&mut plan, &layout.types, types);
        plan_api_modules(&mut plan, pf.multigroup, &layout, &group_mod, &version_mod, &kind_mod, &ctx)?;
        let sample = match &image {
            Some(image) => image.sample(&ctx, pf)?,
            None => render::render("api/config/samples/sample.yaml.hbs", &ctx)?,
        };
        let first_version = existing_versions.iter().all(|r| r.api.is_none());
        plan_kind_config(&mut plan, &ctx, sample, first_version, args.force)?;
        if let Some(storage) = storage_version {
            plan.notes.push(format!(
                "note: {} {} stays the storage version; {} is served with `storage = false` (move storage with \
                 `kubesmith create webhook --conversion`, or by editing the #[kube(...)] attributes)",
                args.kind,
                storage.version,
                args.version()
            ));
        }
    }

    if args.controller {
        check_not_shared(pf.multigroup, &group_mod, &kind_mod)?;
        let has_controller = existing_versions.iter().any(|r| r.controller && r.version != args.version());
        if (has_controller || plan.exists(&layout.controller)) && !args.force {
            anyhow::bail!(
                "{} already exists: kind {} has a controller (one reconciler serves every version); pass --controller=false \
                 to add only the types of {}, or --force to scaffold the controller again",
                layout.controller.display(),
                args.kind,
                args.version()
            );
        }
        refuse_cluster_scoped_controller(pf, &args.kind, args.namespaced)?;
        let controller = match &image {
            Some(image) => image.controller(&ctx, pf)?,
            None => render::render("api/src/controller/kind.rs.hbs", &ctx)?,
        };
        let controller = scope_markers(pf, controller);
        scaffold(&mut plan, &layout.controller, controller);
        let modules = ControllerModules {
            group_file: layout.controller_group_file.as_deref(),
            group: &group_mod,
            kind: &kind_mod,
            crate_name: &ctx.crate_name,
            module_path: &ctx.controller_module_path,
        };
        plan_controller_modules(&mut plan, &modules, &ctx)?;
        if let Some(image) = &image {
            image.plan_operand(&mut plan, &ctx, pf)?;
            image.plan_manager_env(&mut plan, &args.kind)?;
        }
        let envtest = match &image {
            Some(image) => image.envtest(&ctx, pf)?,
            None => render::render("api/tests/envtest/kind.rs.hbs", &ctx)?,
        };
        plan_envtest(&mut plan, &envtest_module(&group_mod, &kind_mod), envtest, &ctx.kind, args.force)?;
    }

    if args.resource && crd {
        crate::ops::manifests::plan_one_crd(&mut plan, &format!("{plural}.{qualified_group}"))?;
    }
    if args.controller {
        crate::ops::manifests::plan_role(&mut plan)?;
    }

    let mut file = pf.clone();
    let entry = Resource {
        api: args.resource.then(|| ResourceApi { crd_version: "v1".into(), namespaced: args.namespaced }),
        controller: args.controller,
        domain: pf.domain.clone(),
        group: args.group.clone(),
        kind: args.kind.clone(),
        path: format!("{}::{}", ctx.crate_name, api_module_path),
        plural: if plural == names::kube_plural(&kind_lower) { String::new() } else { plural.clone() },
        version: args.version().to_string(),
        ..Resource::default()
    };
    match file
        .resources
        .iter_mut()
        .find(|r| r.group == args.group && r.version == args.version() && r.kind == args.kind)
    {
        Some(r) => {
            r.controller |= entry.controller;
            if entry.api.is_some() {
                r.api = entry.api;
            }
            r.path = entry.path;
        }
        None => file.resources.push(entry),
    }
    if args.controller {
        let note = deploy_image::record(&mut file, &pf.domain, &args.group, args.version(), &args.kind, image.as_ref());
        plan.notes.extend(note);
    }
    plan.edit(crate::project::PROJECT_FILE, file.to_yaml());

    plan.notes.push(format!(
        "next: describe the API in {}{}, then run `kubesmith make manifests` and `cargo test`",
        layout.types.display(),
        if args.controller { format!(" and its reconciler in {}", layout.controller.display()) } else { String::new() }
    ));
    Ok(plan)
}

/// The `config/` part of a kind: its sample (listed in `config/samples`), and for its first version the admin,
/// editor and viewer roles (listed in `config/rbac`), its CRD in `config/crd` and the CRD section of the default
/// overlay. Shared by `create api` and `kubesmith adopt`.
pub fn plan_kind_config(
    plan: &mut Plan,
    ctx: &ApiContext,
    sample: String,
    first_version: bool,
    force: bool,
) -> Result<()> {
    let (sample_path, roles) = config_layout(ctx);
    let scaffold = |plan: &mut Plan, path: &Path, contents: String| {
        if force && plan.exists(path) {
            plan.overwrite(path, contents);
        } else {
            plan.create(path, contents);
        }
    };
    scaffold(plan, &sample_path, sample);
    insert_yaml(
        plan,
        "config/samples/kustomization.yaml",
        markers::SAMPLES,
        &format!("- {}", file_name(&sample_path)),
    )?;
    if first_version {
        for (path, template) in &roles {
            scaffold(plan, path, render::render(template, ctx)?);
            insert_yaml(
                plan,
                "config/rbac/kustomization.yaml",
                markers::RBAC_KIND_ROLES,
                &format!("- {}", file_name(path)),
            )?;
        }
        let crd_entry = format!("- bases/{}_{}.yaml", ctx.qualified_group, ctx.plural);
        insert_yaml(plan, "config/crd/kustomization.yaml", markers::CRD_RESOURCES, &crd_entry)?;
        enable(plan, "config/default/kustomization.yaml", "crd")?;
    }
    Ok(())
}

/// The file name of a kind's sample in `config/samples`: `<group>_<version>_<kind>.yaml`. A kind whose API group is
/// the project's domain itself (no group of its own) is named after the domain's first label, as kubebuilder names
/// its Go package (`example_v1_hook.yaml` for `example.com`); `core` is only Kubernetes' own group.
pub fn sample_file(group: &str, qualified_group: &str, version: &str, kind_lower: &str) -> String {
    let prefix = match (group, qualified_group.split('.').next().unwrap_or_default()) {
        ("", "") => "core",
        ("", label) => label,
        (group, _) => group,
    };
    format!("{prefix}_{version}_{kind_lower}.yaml")
}

/// Where a kind's sample and roles go.
fn config_layout(ctx: &ApiContext) -> (PathBuf, [(PathBuf, &'static str); 3]) {
    let role_file = ctx.role_prefix.replace('-', "_");
    let sample = Path::new("config/samples").join(&ctx.sample_file);
    let roles = [
        (PathBuf::from(format!("config/rbac/{role_file}_admin_role.yaml")), "api/config/rbac/admin_role.yaml.hbs"),
        (PathBuf::from(format!("config/rbac/{role_file}_editor_role.yaml")), "api/config/rbac/editor_role.yaml.hbs"),
        (PathBuf::from(format!("config/rbac/{role_file}_viewer_role.yaml")), "api/config/rbac/viewer_role.yaml.hbs"),
    ];
    (sample, roles)
}

/// Where the Rust types of `kind` `version` of `group` go in a project of this layout.
pub fn types_path(multigroup: bool, group_or_domain: &str, version: &str, kind: &str) -> PathBuf {
    let (g, v, k) = (names::module_name(group_or_domain), names::module_name(version), names::module_name(kind));
    layout(multigroup, &g, &v, &k).types
}

/// Where the reconciler of `kind` goes in a project of this layout.
pub fn controller_path(multigroup: bool, group_or_domain: &str, kind: &str) -> PathBuf {
    let (g, k) = (names::module_name(group_or_domain), names::module_name(kind));
    layout(multigroup, &g, &names::module_name("v1"), &k).controller
}

fn layout(multigroup: bool, group_mod: &ModuleName, version_mod: &ModuleName, kind_mod: &ModuleName) -> Layout {
    let (api_dir, controller_dir) = if multigroup {
        (
            PathBuf::from(format!("src/api/{}", group_mod.file)),
            PathBuf::from(format!("src/controller/{}", group_mod.file)),
        )
    } else {
        (PathBuf::from("src/api"), PathBuf::from("src/controller"))
    };
    Layout {
        types: api_dir.join(&version_mod.file).join(format!("{}.rs", kind_mod.file)),
        version_mod_file: api_dir.join(format!("{}.rs", version_mod.file)),
        group_mod_file: multigroup.then(|| PathBuf::from(format!("src/api/{}.rs", group_mod.file))),
        controller: controller_dir.join(format!("{}.rs", kind_mod.file)),
        controller_group_file: multigroup.then(|| PathBuf::from(format!("src/controller/{}.rs", group_mod.file))),
    }
}

/// Declares the kind's module in its version module, the version in its group (multigroup) and in `src/api.rs`.
fn plan_api_modules(
    plan: &mut Plan,
    multigroup: bool,
    layout: &Layout,
    group_mod: &ModuleName,
    version_mod: &ModuleName,
    kind_mod: &ModuleName,
    ctx: &ApiContext,
) -> Result<()> {
    if !plan.exists(&layout.version_mod_file) {
        plan.create(&layout.version_mod_file, render::render("api/src/api/version.rs.hbs", ctx)?);
    }
    let kind_lines = [format!("mod {};", kind_mod.ident), format!("pub use {}::*;", kind_mod.ident)];
    insert_rust(plan, &layout.version_mod_file, markers::API_KINDS, &kind_lines)?;
    match &layout.group_mod_file {
        Some(group_file) if multigroup => {
            if !plan.exists(group_file) {
                plan.create(group_file, render::render("api/src/api/group.rs.hbs", ctx)?);
            }
            insert_rust(plan, group_file, markers::API_VERSIONS, &[format!("pub mod {};", version_mod.ident)])?;
            insert_rust(plan, Path::new("src/api.rs"), markers::API_MODULES, &[format!("pub mod {};", group_mod.ident)])
        }
        _ => insert_rust(
            plan,
            Path::new("src/api.rs"),
            markers::API_MODULES,
            &[format!("pub mod {};", version_mod.ident)],
        ),
    }
}

/// Modules of `src/controller.rs` that are no kind's: the test helpers (`controller::testing`) and what the
/// `--image` reconcilers share (`controller::operand`).
const SHARED_CONTROLLER_MODULES: &[&str] = &["testing", "operand"];

/// Refuses a controller whose module in `src/controller.rs` (the kind's, or the group's when multigroup) would be
/// one of the shared ones the project keeps there.
fn check_not_shared(multigroup: bool, group: &ModuleName, kind: &ModuleName) -> Result<()> {
    let (declared, what) = if multigroup { (group, "group") } else { (kind, "kind") };
    if SHARED_CONTROLLER_MODULES.contains(&declared.ident.as_str()) {
        anyhow::bail!(
            "the controller module of {what} `{}` would be `controller::{}`, which the project keeps for what every \
             controller shares; choose another {what} name, or pass --controller=false",
            declared.ident,
            declared.ident
        );
    }
    Ok(())
}

/// Where a controller module is declared.
struct ControllerModules<'a> {
    /// Multigroup only: `src/controller/<group>.rs`.
    group_file: Option<&'a Path>,
    group: &'a ModuleName,
    kind: &'a ModuleName,
    crate_name: &'a str,
    /// `controller::memcached`
    module_path: &'a str,
}

/// Declares the controller module and registers it in the manager. `group_ctx` renders a new group module.
fn plan_controller_modules(plan: &mut Plan, m: &ControllerModules, group_ctx: &impl Serialize) -> Result<()> {
    match m.group_file {
        Some(group_file) => {
            if !plan.exists(group_file) {
                plan.create(group_file, render::render("api/src/controller/group.rs.hbs", group_ctx)?);
            }
            insert_rust(plan, group_file, markers::CONTROLLER_MODULES, &[format!("pub mod {};", m.kind.ident)])?;
            insert_rust(
                plan,
                Path::new("src/controller.rs"),
                markers::CONTROLLER_MODULES,
                &[format!("pub mod {};", m.group.ident)],
            )?;
        }
        None => {
            insert_rust(
                plan,
                Path::new("src/controller.rs"),
                markers::CONTROLLER_MODULES,
                &[format!("pub mod {};", m.kind.ident)],
            )?;
        }
    }
    let registration = format!("{}::{}::registration(),", m.crate_name, m.module_path);
    insert_rust(plan, Path::new("src/main.rs"), markers::CONTROLLERS, &[registration])?;
    warn_if_older(plan, Path::new("Cargo.toml"), RUNTIME_DEPENDENCY, m.module_path)
}

/// What a scaffolded controller runs on, which a project scaffolded by an older kubesmith (one that copied the
/// manager into `src/`) does not depend on.
const RUNTIME_DEPENDENCY: &str = "kubesmith-runtime";

/// A warning when `shared` (a module every kind's code uses, written by `init` or the first webhook) lacks `item`,
/// which the code just scaffolded into `user` needs: the module comes from an older kubesmith.
pub fn warn_if_older(plan: &mut Plan, shared: &Path, item: &str, user: &str) -> Result<()> {
    if plan.read_existing(shared)?.contains(item) {
        return Ok(());
    }
    let warning = format!(
        "warning: {} predates this kubesmith (it has no `{}`), which `{user}` uses: bring the shared code up to \
         date with `kubesmith alpha update`, or copy it from a project `kubesmith init` scaffolds now",
        shared.display(),
        item.trim_end_matches('<')
    );
    if !plan.notes.contains(&warning) {
        plan.notes.push(warning);
    }
    Ok(())
}

/// The module of the control-plane tests (`tests/envtest/main.rs`), where each kind's module is declared.
pub const ENVTEST_MAIN: &str = "tests/envtest/main.rs";

/// The module of a kind's control-plane tests in `tests/envtest/`: `<group>_<kind>`, the same in the single-group
/// and multigroup layouts (so `edit --multigroup` moves nothing), never one of the shared modules' names.
pub fn envtest_module(group: &ModuleName, kind: &ModuleName) -> String {
    let module = format!("{}_{}", group.file.trim_end_matches('_'), kind.file.trim_end_matches('_'));
    if ["support", "leader_election"].contains(&module.as_str()) { format!("{module}_kind") } else { module }
}

/// Writes `text` as `tests/envtest/<module>.rs` and declares it in [`ENVTEST_MAIN`]; a project without that file
/// (an older kubesmith scaffolded it) gets a warning pointing at `alpha update` instead.
pub fn plan_envtest(plan: &mut Plan, module: &str, text: String, kind: &str, force: bool) -> Result<()> {
    let main = Path::new(ENVTEST_MAIN);
    if !plan.exists(main) {
        plan.notes.push(format!(
            "warning: {ENVTEST_MAIN} is missing (an older kubesmith scaffolded this project), so {kind} gets no tests \
             against a real API server: bring the shared code up to date with `kubesmith alpha update`"
        ));
        return Ok(());
    }
    let path = PathBuf::from(format!("tests/envtest/{module}.rs"));
    if force && plan.exists(&path) {
        plan.overwrite(&path, text);
    } else {
        plan.create(&path, text);
    }
    insert_rust(plan, main, markers::ENVTEST_MODULES, &[format!("mod {module};")])
}

/// Values the controller template of a type the project does not define sees.
#[derive(Debug, Clone, Serialize)]
pub struct ForeignContext {
    pub crate_name: String,
    pub kind: String,
    /// `k8s_openapi::api::apps::v1::Deployment`
    pub type_path: String,
    /// `apps/v1`, `v1`
    pub api_version: String,
    /// `apps`, `""` (core), `cert-manager.io`
    pub marker_group: String,
    /// The group for headings and the group module's doc (`apps`, `core`, `cert-manager.io`).
    pub qualified_group: String,
    pub plural: String,
    pub namespaced: bool,
    pub builtin: bool,
    /// `acme-crds` for external types from a crate `--external-api-crate` added.
    pub crate_dependency: String,
    pub controller_name: String,
}

/// A controller for a built-in or external type: the reconciler, its registration, the dependency and the PROJECT
/// entry (`core` / `external`); no types, CRD, sample or per-kind roles.
fn plan_foreign(args: &Options, project: &Project, f: &Foreign, cwd: &Path) -> Result<Plan> {
    let pf = &project.file;
    if !args.controller {
        return Err(UsageError(format!(
            "nothing to do: {} is not defined by this project (--resource=false) and --controller=false",
            f.type_path
        ))
        .into());
    }
    let existing = foreign::find_foreign(pf, &args.group, args.version(), &args.kind);
    if existing.is_some_and(|r| r.controller) && !args.force {
        anyhow::bail!(
            "{} {} already has a controller in this project; pass --force to scaffold it again (your edits are lost)",
            f.api_version(),
            f.kind
        );
    }
    let modules = KindModules::new(pf.multigroup, &f.project_group, "", &f.version, &f.kind);
    check_not_shared(pf.multigroup, &modules.group, &modules.kind)?;
    let (path, group_file, module_path, controller_name) = if pf.multigroup {
        (
            PathBuf::from(format!("src/controller/{}/{}.rs", modules.group.file, modules.kind.file)),
            Some(PathBuf::from(format!("src/controller/{}.rs", modules.group.file))),
            format!("controller::{}::{}", modules.group.ident, modules.kind.ident),
            format!("{}-{}", f.project_group.replace('.', "-"), f.kind.to_ascii_lowercase()),
        )
    } else {
        (
            PathBuf::from(format!("src/controller/{}.rs", modules.kind.file)),
            None,
            format!("controller::{}", modules.kind.ident),
            f.kind.to_ascii_lowercase(),
        )
    };
    if plan_exists_unowned(cwd, &path, args.force) {
        anyhow::bail!(
            "{} already exists (another kind's controller?); pass --force to replace it, or move that file first",
            path.display()
        );
    }
    let ctx = ForeignContext {
        crate_name: project.crate_name(),
        kind: f.kind.clone(),
        type_path: f.type_path.clone(),
        api_version: f.api_version(),
        marker_group: f.marker_group(),
        qualified_group: if f.api_group.is_empty() { "core".into() } else { f.api_group.clone() },
        plural: f.plural.clone(),
        namespaced: f.namespaced,
        builtin: f.builtin,
        crate_dependency: f.dependency.as_ref().map(|d| d.name.clone()).unwrap_or_default(),
        controller_name,
    };
    refuse_cluster_scoped_controller(pf, &f.kind, f.namespaced)?;
    let mut plan = Plan::new(cwd);
    let contents = scope_markers(pf, render::render("api/src/controller/foreign.rs.hbs", &ctx)?);
    if args.force && plan.exists(&path) {
        plan.overwrite(&path, contents);
    } else {
        plan.create(&path, contents);
    }
    let m = ControllerModules {
        group_file: group_file.as_deref(),
        group: &modules.group,
        kind: &modules.kind,
        crate_name: &ctx.crate_name,
        module_path: &module_path,
    };
    if !(args.force && existing.is_some_and(|r| r.controller)) {
        plan_controller_modules(&mut plan, &m, &ctx)?;
    }
    if let Some(dep) = &f.dependency {
        foreign::plan_dependency(&mut plan, dep, None)?;
    }

    let mut file = pf.clone();
    let mut entry = f.project_entry();
    entry.controller = true;
    match file.resources.iter_mut().find(|r| existing.is_some_and(|e| *r == e)) {
        Some(r) => {
            r.controller = true;
            if !entry.module.is_empty() {
                r.module = entry.module;
            }
            r.path = entry.path;
        }
        None => file.resources.push(entry),
    }
    if !f.builtin {
        // a built-in's scope comes from k8s-openapi; an external type's is what --namespaced says
        file.set_external_namespaced(&f.project_entry(), f.namespaced);
    }
    plan.edit(crate::project::PROJECT_FILE, file.to_yaml());
    plan.notes.push(format!(
        "next: write the reconciler of {} ({}) in {}, then run `kubesmith make manifests` (RBAC from its markers) and \
         `cargo test`",
        f.kind,
        f.api_version(),
        path.display()
    ));
    Ok(plan)
}

/// A controller's source as the project needs it: in a project with a namespace-scoped manager (PROJECT
/// `namespaced: true`) every RBAC marker names the manager's namespace, so `make manifests` gives a Role there.
pub fn scope_markers(pf: &crate::project::ProjectFile, source: String) -> String {
    if !pf.namespaced {
        return source;
    }
    let scoped = crate::rbac::scope::add_namespace(&source, &pf.manager_namespace());
    // Only marker comments change, and rustfmt leaves comments as they are: as clean as the source.
    crate::formatted::edited(&source, &scoped);
    scoped
}

/// A namespace-scoped manager cannot reconcile a cluster-scoped kind: its Role grants nothing outside its namespace.
fn refuse_cluster_scoped_controller(pf: &crate::project::ProjectFile, kind: &str, namespaced: bool) -> Result<()> {
    if pf.namespaced && !namespaced {
        return Err(UsageError(format!(
            "{kind} is cluster-scoped, and this project's manager is namespace-scoped (PROJECT `namespaced: true`): its \
             Role grants nothing outside its namespace, so a controller could not watch {kind}; pass \
             --controller=false to add only the types, or make the manager cluster-scoped first with \
             `kubesmith edit --namespaced=false`"
        ))
        .into());
    }
    Ok(())
}

/// True when `path` exists and is not to be replaced.
fn plan_exists_unowned(cwd: &Path, path: &Path, force: bool) -> bool {
    !force && cwd.join(path).exists()
}
