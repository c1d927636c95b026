//! `kubesmith create webhook`: plans defaulting, validating and conversion webhooks for an existing API.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use crate::names;
use crate::ops::foreign::{self, Foreign};
use crate::ops::scaffold::{
    KindModules, create_if_missing, enable, insert_rust, insert_yaml, insert_yaml_block, scaffold_file,
};
use crate::plan::Plan;
use crate::project::{Project, ProjectFile, ResourceWebhooks};
use crate::render;
use crate::usage::UsageError;

/// Marker lines where `create webhook` inserts lines.
pub(crate) mod markers {
    pub const WEBHOOK_MODULES: &str = "// +kubesmith:scaffold:webhook-modules";
    pub const WEBHOOKS: &str = "// +kubesmith:scaffold:webhooks";
    pub const WEBHOOK_VERSIONS: &str = "// +kubesmith:scaffold:webhook-versions";
    pub const WEBHOOK_KINDS: &str = "// +kubesmith:scaffold:webhook-kinds";
    pub const WEBHOOK_PARTS: &str = "// +kubesmith:scaffold:webhook-parts";
    pub const WEBHOOK_LIST: &str = "// +kubesmith:scaffold:webhook-list";
    pub const CONVERSION_SPOKES: &str = "// +kubesmith:scaffold:conversion-spokes";
    pub const WEBHOOK_TESTS: &str = "// +kubesmith:scaffold:webhook-tests";
    /// In `src/lib.rs`: the crate's top modules `init` does not write (`pub mod webhook;`).
    pub const LIB_MODULES: &str = "// +kubesmith:scaffold:modules";
    /// In `src/main.rs`: the servers the manager runs beside its own (`manager.with_server(..)`).
    pub const SERVERS: &str = "// +kubesmith:scaffold:servers";
    pub const API_KINDS: &str = "// +kubesmith:scaffold:api-kinds";
    pub const NETWORK_POLICIES: &str = "# +kubesmith:scaffold:network-policies";
    pub const CRD_WEBHOOK_PATCHES: &str = "# +kubesmith:scaffold:crd-webhook-patches";
    pub const CRD_CA_NAMESPACE: &str = "# +kubesmith:scaffold:crd-cainjection-namespace";
    pub const CRD_CA_NAME: &str = "# +kubesmith:scaffold:crd-cainjection-name";
    pub const STORAGE_VERSION: &str = "// +kubebuilder:storageversion";
}

/// Values the `webhook` templates see.
#[derive(Debug, Clone, Serialize)]
pub struct WebhookContext {
    pub project_name: String,
    pub crate_name: String,
    pub qualified_group: String,
    pub version: String,
    pub kind: String,
    pub kind_lower: String,
    /// File stem of the kind's modules (`memcached`, `type`).
    pub kind_file: String,
    pub plural: String,
    pub namespaced: bool,
    /// The kind's HTTPS test target (`webhook_v1alpha1_memcached`).
    pub test_name: String,
    /// Module path of the hub's types from the crate root (`api::v1alpha1`).
    pub api_module_path: String,
    /// Module path of the kind's webhooks from the crate root (`webhook::v1alpha1::memcached`).
    pub webhook_module_path: String,
    /// `memcached-v1alpha1`: the registration's name in logs.
    pub registration_name: String,
    pub mutate_path: String,
    pub validate_path: String,
    pub mutate_name: String,
    pub validate_name: String,
    /// Set for the per-spoke templates: the spoke version and its module path (`api::v1beta1`).
    pub spoke_version: String,
    pub spoke_api_module_path: String,
    /// A type the project does not define (built-in or external): the `_foreign` templates.
    pub foreign: bool,
    /// Set for foreign types: the type's full Rust path (`k8s_openapi::api::core::v1::Pod`).
    pub type_path: String,
    /// `v1`, `apps/v1`, `cert-manager.io/v1`.
    pub api_version: String,
    /// The API group in reviews (`""` for core).
    pub api_group: String,
    /// The group as markers write it (`""` for core).
    pub marker_group: String,
    /// Set for foreign types: a k8s-openapi type (no `spec` needed in test objects).
    pub builtin: bool,
    /// The label the metadata-based defaulting and validation examples manage (`example.com/team`); empty when
    /// the examples work on the scaffold's `spec.foo`.
    pub team_label: String,
    /// The examples label objects with their team (the `_foreign` part templates): a foreign type, or one of the
    /// project's kinds whose spec has no scaffolded `foo` (a `create api --image` kind, types the user rewrote).
    pub label_examples: bool,
    /// The `spec` of test objects for the label examples (`{}`, `{"size": 1}`).
    pub spec_json: String,
    /// The module of the kind's control-plane webhook tests in `tests/envtest/` (`cache_v1alpha1_memcached_webhooks`).
    pub envtest_module: String,
}

/// The three webhook parts, in the order they are registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Defaulting,
    Validation,
    Conversion,
}

impl Part {
    fn module(self) -> &'static str {
        match self {
            Part::Defaulting => "defaulting",
            Part::Validation => "validation",
            Part::Conversion => "conversion",
        }
    }
}

/// What `create webhook` is asked for (the command's flags but `--dry-run`; the flags' docs say what each does).
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub group: String,
    /// The version the webhooks serve; with `conversion`, the hub.
    pub version: String,
    pub kind: String,
    pub defaulting: bool,
    pub programmatic_validation: bool,
    pub conversion: bool,
    /// Versions converted to and from the hub.
    pub spoke: Vec<String>,
    pub external_api_path: Option<String>,
    pub external_api_crate: Option<String>,
    pub external_api_domain: Option<String>,
    /// Scaffold the requested webhooks' files again even if they exist.
    pub force: bool,
}

pub fn plan(args: &Options, cwd: &Path) -> Result<Plan> {
    let project = Project::load(cwd)?;
    if project.file.adopted() {
        anyhow::bail!(
            "this project was adopted (`kubesmith adopt`): its sources keep their own layout, which `kubesmith create webhook` \
             does not scaffold into; add the code to your crate, then `kubesmith make manifests` picks it up"
        );
    }
    let pf = &project.file;
    if !(args.defaulting || args.programmatic_validation || args.conversion) {
        return Err(UsageError(
            "no webhook requested: pass at least one of --defaulting, --programmatic-validation and --conversion"
                .into(),
        )
        .into());
    }
    let external = foreign::ExternalFlags {
        path: args.external_api_path.as_deref(),
        krate: args.external_api_crate.as_deref(),
        domain: args.external_api_domain.as_deref(),
    };
    let named =
        foreign::Named { group: &args.group, version: &args.version, kind: &args.kind, plural: None, namespaced: true };
    if let Some(f) = foreign::for_webhook(pf, named, external)? {
        return plan_foreign(args, &project, &f, cwd);
    }
    let Some(resource) = pf.find(&args.group, &args.version, &args.kind).filter(|r| r.api.is_some()) else {
        let missing = format!(
            "there is no API {}/{} kind {} in PROJECT",
            names::qualified_group(&args.group, &pf.domain),
            args.version,
            args.kind
        );
        // A typo (`--kind Memcahced`, `--version v1alpha`) names an API that exists: say which.
        let near = |given: &str, known: &str| names::closest(given, std::iter::once(known)).map(|(_, d)| d);
        let nearest = pf
            .resources
            .iter()
            .filter(|r| r.api.is_some())
            .filter_map(|r| {
                let d = near(&args.kind, &r.kind)? + near(&args.group, &r.group)? + near(&args.version, &r.version)?;
                Some((d, r))
            })
            .min_by_key(|(d, _)| *d);
        if let Some((_, r)) = nearest {
            let mut flags: Vec<String> = [
                (args.defaulting, "--defaulting"),
                (args.programmatic_validation, "--programmatic-validation"),
                (args.conversion, "--conversion"),
            ]
            .into_iter()
            .filter(|(on, _)| *on)
            .map(|(_, flag)| flag.to_string())
            .collect();
            flags.extend(args.spoke.iter().map(|s| format!("--spoke {s}")));
            // Only the group or version differs: the user may mean a new version of the kind.
            let or_new = if r.kind == args.kind {
                format!(
                    " (or add {} to {} first: `kubesmith create api --group {} --version {} --kind {}`)",
                    args.version, args.kind, args.group, args.version, args.kind
                )
            } else {
                String::new()
            };
            anyhow::bail!(
                "{missing}; did you mean `kubesmith create webhook --group {} --version {} --kind {} {}`?{or_new}",
                r.group,
                r.version,
                r.kind,
                flags.join(" ")
            );
        }
        anyhow::bail!(
            "{missing}: create it first with `kubesmith create api --group {} --version {} --kind {}`",
            args.group,
            args.version,
            args.kind
        );
    };
    let existing = resource.webhooks.clone().unwrap_or_default();
    let versions: Vec<String> =
        pf.versions_of(&args.group, &args.kind).filter(|r| r.api.is_some()).map(|r| r.version.clone()).collect();
    let group_flag = if args.group.is_empty() { String::new() } else { format!("--group {} ", args.group) };
    for spoke in &args.spoke {
        if spoke == &args.version {
            return Err(UsageError(format!(
                "invalid spoke version `{spoke}`: it is the hub; a spoke is another version of {} that converts to \
                 and from the hub {}",
                args.kind, args.version
            ))
            .into());
        }
        if !versions.contains(spoke) {
            return Err(UsageError(format!(
                "invalid spoke version `{spoke}`: a spoke must be another existing version of {} (existing: {}); \
                 add it with `kubesmith create api {group_flag}--version {spoke} --kind {} --controller=false` first",
                args.kind,
                versions.join(", "),
                args.kind
            ))
            .into());
        }
    }
    if args.conversion && args.spoke.is_empty() && existing.spoke.is_empty() {
        let others: Vec<&String> = versions.iter().filter(|v| *v != &args.version).collect();
        let spokes = if others.is_empty() {
            format!(
                "{} has no other version yet: add one with `kubesmith create api {group_flag}--version <version> \
                 --kind {} --controller=false`, then pass it as --spoke",
                args.kind, args.kind
            )
        } else {
            format!(
                "pass the other versions of {} that convert to and from the hub {}: {}",
                args.kind,
                args.version,
                others.iter().map(|v| format!("--spoke {v}")).collect::<Vec<_>>().join(" ")
            )
        };
        return Err(UsageError(format!("--conversion needs at least one --spoke: {spokes}")).into());
    }
    if args.conversion
        && let Some(other) = pf
            .versions_of(&args.group, &args.kind)
            .find(|r| r.version != args.version && r.webhooks.as_ref().is_some_and(|w| w.conversion))
    {
        anyhow::bail!(
            "{} already has a conversion webhook with hub {}; a kind has one hub: run `kubesmith create webhook \
             {group_flag}--version {} --kind {} --conversion --spoke <version>` to add spokes",
            args.kind,
            other.version,
            other.version,
            args.kind
        );
    }

    let kind_lower = args.kind.to_ascii_lowercase();
    let plural = if resource.plural.is_empty() { names::kube_plural(&kind_lower) } else { resource.plural.clone() };
    let qualified_group = names::qualified_group(&args.group, &pf.domain);
    let modules = KindModules::new(pf.multigroup, &args.group, &pf.domain, &args.version, &args.kind);
    let target = Target {
        version: &args.version,
        kind: &args.kind,
        api_group: &qualified_group,
        plural,
        namespaced: resource.api.as_ref().is_some_and(|a| a.namespaced),
    };
    let mut ctx = WebhookContext {
        qualified_group: qualified_group.clone(),
        api_module_path: modules.version_path("api"),
        type_path: format!("crate::{}::{}", modules.version_path("api"), args.kind),
        api_version: format!("{qualified_group}/{}", args.version),
        marker_group: qualified_group.clone(),
        ..WebhookContext::new(&project, &modules, target)
    };
    let types_file = modules.version_dir("api").join(format!("{}.rs", modules.kind.file));
    if !has_foo(&std::fs::read_to_string(cwd.join(&types_file)).unwrap_or_default()) {
        if args.conversion {
            anyhow::bail!(
                "--conversion: the conversion scaffold copies the spec's `foo` field between versions, and {} has no \
                 `foo` in its spec; scaffold the defaulting and validation webhooks without --conversion, and write \
                 the conversion (`From` impls between the versions) by hand",
                types_file.display()
            );
        }
        ctx.label_examples = true;
        ctx.team_label = format!("{}/team", pf.domain);
    }
    ctx.spec_json = crate::ops::deploy_image::test_spec_json(pf, cwd, &args.group, &args.version, &args.kind);

    let mut plan = Plan::new(cwd);
    let (kind_file, test_file) = plan_kind(&mut plan, pf, &modules, &ctx)?;

    let wanted = [
        (Part::Defaulting, args.defaulting, existing.defaulting),
        (Part::Validation, args.programmatic_validation, existing.validation),
        (Part::Conversion, args.conversion, existing.conversion),
    ];
    let added = plan_parts(&mut plan, &wanted, &kind_file, &test_file, &ctx, args.force)?;
    let mut spokes = existing.spoke.clone();
    if args.conversion {
        for spoke in &args.spoke {
            plan_spoke(
                &mut plan,
                pf.multigroup,
                &args.group,
                &pf.domain,
                spoke,
                &kind_file,
                &test_file,
                &ctx,
                args.force,
            )?;
            if !spokes.contains(spoke) {
                spokes.push(spoke.clone());
            }
        }
        plan_conversion_config(&mut plan, &ctx)?;
        plan_storage_version(&mut plan, pf, &args.group, &args.version, &args.kind)?;
    }
    if added.is_empty() && spokes == existing.spoke {
        plan.notes.push("nothing new to add: every requested webhook already exists".into());
    }

    let mut file = pf.clone();
    if let Some(r) =
        file.resources.iter_mut().find(|r| r.group == args.group && r.version == args.version && r.kind == args.kind)
    {
        r.webhooks = Some(ResourceWebhooks {
            conversion: existing.conversion || args.conversion,
            defaulting: existing.defaulting || args.defaulting,
            spoke: spokes,
            validation: existing.validation || args.programmatic_validation,
            webhook_version: "v1".into(),
        });
    }
    finish(plan, &file, &kind_file)
}

/// Files every project gets with its first webhook: config/webhook, config/certmanager, the manager patch, the
/// network policy, the webhook server tests; and the kustomize sections they need.
fn plan_project_files(plan: &mut Plan, ctx: &WebhookContext) -> Result<()> {
    for (path, contents) in render::render_set("webhook/config", ctx)? {
        if path.starts_with("crd/") {
            continue; // per converted kind, see plan_conversion_config
        }
        let path = Path::new("config").join(&path);
        create_if_missing(plan, &path, || Ok(contents))?;
    }
    for (path, contents) in render::render_set("webhook/tests", ctx)? {
        if path.contains("parts/") || path == "webhook_kind.rs" || path.starts_with("envtest/") {
            continue; // per kind, see plan_kind_modules and plan_envtest_part
        }
        create_if_missing(plan, &Path::new("tests").join(&path), || Ok(contents))?;
    }
    enable(plan, "config/default/kustomization.yaml", "webhook")?;
    enable(plan, "config/manifests/kustomization.yaml", "webhook")?;
    insert_yaml(
        plan,
        "config/network-policy/kustomization.yaml",
        markers::NETWORK_POLICIES,
        "- allow-webhook-traffic.yaml",
    )
}

/// The webhook server, written with the project's first webhook (`init` leaves it out: most operators never add
/// one): `src/webhook.rs`, its module in `src/lib.rs`, `main.rs` giving it to the manager, the `json-patch`
/// dependency of defaulting webhooks, and the webhooks named in the control-plane tests' `Project`. Nothing
/// when `src/webhook.rs` exists (an earlier webhook wrote it, or an older kubesmith's `init` did, with the rest).
fn plan_server(plan: &mut Plan, ctx: &WebhookContext) -> Result<()> {
    let webhook_rs = Path::new("src/webhook.rs");
    if plan.exists(webhook_rs) {
        return Ok(());
    }
    plan.create(webhook_rs, render::render("webhook/src/webhook.rs.hbs", ctx)?);
    insert_rust(plan, Path::new("src/lib.rs"), markers::LIB_MODULES, &["pub mod webhook;".to_string()])?;
    insert_rust(plan, Path::new("src/main.rs"), markers::SERVERS, &[with_server_statement(&ctx.crate_name)])?;
    foreign::plan_dependency(
        plan,
        &foreign::Dependency { name: "json-patch".into(), source: foreign::DependencySource::Version("4".into()) },
        Some("JSON Patch of defaulting webhooks (kube-core's major)"),
    )?;
    let support = Path::new(ENVTEST_SUPPORT);
    if plan.exists(support) {
        let text = plan.read_existing(support)?;
        let served = format!("webhooks: {}::webhook::registrations,", ctx.crate_name);
        if text.contains(ENVTEST_NO_WEBHOOKS) {
            plan.edit(support, text.replacen(ENVTEST_NO_WEBHOOKS, &served, 1));
        } else if !text.contains(&served) {
            plan.notes.push(format!(
                "warning: {ENVTEST_SUPPORT} names no `{ENVTEST_NO_WEBHOOKS}`, so it was left as it is; its \
                 `Project` must name `{served}` for the control-plane tests to reach the webhooks"
            ));
        }
    }
    Ok(())
}

/// Where the control-plane tests name the project's webhooks (`init` writes a `Project` with none).
const ENVTEST_SUPPORT: &str = "tests/envtest/support.rs";
/// The webhooks of `init`'s envtest `Project`: none.
const ENVTEST_NO_WEBHOOKS: &str = "webhooks: Vec::new,";

/// The statement of `main.rs` that gives the manager the webhook server (inserted at the marker's indentation, 4),
/// laid out as `rustfmt` lays it out: broken after `=` when one line would pass 100 columns.
fn with_server_statement(crate_name: &str) -> String {
    let call = format!("manager.with_server({crate_name}::webhook::server());");
    let one_line = format!("let manager = {call}");
    if 4 + one_line.len() <= 100 { one_line } else { format!("let manager =\n        {call}") }
}

/// The kind's webhook module (and its version/group modules), its registration and its HTTPS test file.
fn plan_kind_modules(
    plan: &mut Plan,
    modules: &KindModules,
    kind_file: &Path,
    test_file: &Path,
    ctx: &WebhookContext,
) -> Result<()> {
    let webhook_rs = Path::new("src/webhook.rs");
    let version_file = modules.version_file("webhook");
    create_if_missing(plan, &version_file, || render::render("webhook/src/webhook/version.rs.hbs", ctx))?;
    insert_rust(plan, &version_file, markers::WEBHOOK_KINDS, &[format!("pub mod {};", modules.kind.ident)])?;
    match modules.group_file("webhook") {
        Some(group_file) => {
            create_if_missing(plan, &group_file, || render::render("webhook/src/webhook/group.rs.hbs", ctx))?;
            insert_rust(
                plan,
                &group_file,
                markers::WEBHOOK_VERSIONS,
                &[format!("pub mod {};", modules.version.ident)],
            )?;
            insert_rust(plan, webhook_rs, markers::WEBHOOK_MODULES, &[format!("pub mod {};", modules.group.ident)])?;
        }
        None => {
            insert_rust(plan, webhook_rs, markers::WEBHOOK_MODULES, &[format!("pub mod {};", modules.version.ident)])?
        }
    }
    let registration = ctx.webhook_module_path.trim_start_matches("webhook::");
    insert_rust(plan, webhook_rs, markers::WEBHOOKS, &[format!("{registration}::registration(),")])?;
    let kind_template =
        if ctx.foreign { "webhook/src/webhook/kind_foreign.rs.hbs" } else { "webhook/src/webhook/kind.rs.hbs" };
    create_if_missing(plan, kind_file, || render::render(kind_template, ctx))?;
    create_if_missing(plan, test_file, || render::render("webhook/tests/webhook_kind.rs.hbs", ctx))
}

/// The parts asked for (`(part, asked, already there)`), each planned unless it exists and `force` is off (a
/// note says so); returns the parts planned.
fn plan_parts(
    plan: &mut Plan,
    wanted: &[(Part, bool, bool)],
    kind_file: &Path,
    test_file: &Path,
    ctx: &WebhookContext,
    force: bool,
) -> Result<Vec<Part>> {
    let mut added = Vec::new();
    for &(part, asked, exists) in wanted {
        if !asked {
            continue;
        }
        if exists && !force {
            plan.notes.push(format!(
                "note: the {} webhook of {} {} already exists; left as it is (pass --force to scaffold it again)",
                part.module(),
                ctx.kind,
                ctx.version
            ));
            continue;
        }
        plan_part(plan, part, kind_file, test_file, ctx, force)?;
        added.push(part);
    }
    Ok(added)
}

/// One webhook part: its module, its registration line, its HTTPS test, and its kustomize section.
fn plan_part(
    plan: &mut Plan,
    part: Part,
    kind_file: &Path,
    test_file: &Path,
    ctx: &WebhookContext,
    force: bool,
) -> Result<()> {
    let name = part.module();
    let variant = if ctx.label_examples { format!("{name}_foreign") } else { name.to_string() };
    let part_file = kind_file.with_extension("").join(format!("{name}.rs"));
    scaffold_file(plan, &part_file, render::render(&format!("webhook/src/webhook/kind/{variant}.rs.hbs"), ctx)?, force);
    insert_rust(plan, kind_file, markers::WEBHOOK_PARTS, &[format!("mod {name};")])?;
    insert_rust(plan, kind_file, markers::WEBHOOK_LIST, &[format!("{name}::webhook(),")])?;
    if part != Part::Conversion {
        // Conversion tests are per spoke (plan_spoke).
        append_test(plan, test_file, &render::render(&format!("webhook/tests/parts/{variant}.rs.hbs"), ctx)?)?;
        let envtest_variant = if ctx.label_examples { format!("{name}_labels") } else { name.to_string() };
        plan_envtest_part(plan, ctx, &envtest_variant)?;
    }
    match part {
        Part::Defaulting => enable(plan, "config/default/kustomization.yaml", "defaulting-webhook"),
        Part::Validation => enable(plan, "config/default/kustomization.yaml", "validating-webhook"),
        Part::Conversion => Ok(()),
    }
}

/// One spoke: its `From` conversions to and from the hub, declared in its version module, listed in the hub's
/// conversion webhook.
#[allow(clippy::too_many_arguments)]
fn plan_spoke(
    plan: &mut Plan,
    multigroup: bool,
    group: &str,
    domain: &str,
    spoke: &str,
    kind_file: &Path,
    test_file: &Path,
    ctx: &WebhookContext,
    force: bool,
) -> Result<()> {
    let spoke_modules = KindModules::new(multigroup, group, domain, spoke, &ctx.kind);
    let spoke_ctx = WebhookContext {
        spoke_version: spoke.to_string(),
        spoke_api_module_path: spoke_modules.version_path("api"),
        ..ctx.clone()
    };
    let conversion_module = format!("{}_conversion", spoke_modules.kind.file.trim_end_matches('_'));
    let file = spoke_modules.version_dir("api").join(format!("{conversion_module}.rs"));
    if force || !plan.exists(&file) {
        scaffold_file(plan, &file, render::render("webhook/src/api/kind_conversion.rs.hbs", &spoke_ctx)?, force);
    }
    insert_rust(plan, &spoke_modules.version_file("api"), markers::API_KINDS, &[format!("mod {conversion_module};")])?;
    let conversion_file = kind_file.with_extension("").join("conversion.rs");
    let spoke_type = format!("crate::{}::{}", spoke_ctx.spoke_api_module_path, ctx.kind);
    let text = plan.read_existing(&conversion_file)?;
    if !text.contains(&format!("spoke::<{spoke_type}>")) {
        let new = crate::edit::insert_block_before_marker(
            &conversion_file,
            &text,
            markers::CONVERSION_SPOKES,
            &spoke_statement(&spoke_type),
            crate::edit::Lang::Rust,
        )?;
        plan.edit(&conversion_file, new);
    }
    append_test(plan, test_file, &render::render("webhook/tests/parts/conversion.rs.hbs", &spoke_ctx)?)?;
    plan_envtest_part(plan, &spoke_ctx, "conversion")
}

/// Appends the control-plane test of `part` (a template of `webhook/tests/envtest/parts/`) to the kind's webhook
/// tests in `tests/envtest/<group>_<version>_<kind>_webhooks.rs`, creating that file and declaring it in
/// `tests/envtest/main.rs` first. Nothing for types the project does not define (their webhooks are tested over
/// HTTPS only), and a warning when the project has no `tests/envtest/` (an older kubesmith scaffolded it).
fn plan_envtest_part(plan: &mut Plan, ctx: &WebhookContext, part: &str) -> Result<()> {
    if ctx.foreign {
        return Ok(());
    }
    let main = Path::new(crate::ops::create_api::ENVTEST_MAIN);
    if !plan.exists(main) {
        let warning = format!(
            "warning: {} is missing (an older kubesmith scaffolded this project), so the webhooks of {} are not \
             tested against a real API server: bring the shared code up to date with `kubesmith alpha update`",
            main.display(),
            ctx.kind
        );
        if !plan.notes.contains(&warning) {
            plan.notes.push(warning);
        }
        return Ok(());
    }
    let file = PathBuf::from(format!("tests/envtest/{}.rs", ctx.envtest_module));
    if !plan.exists(&file) {
        plan.create(&file, render::render("webhook/tests/envtest/webhooks.rs.hbs", ctx)?);
        let marker = crate::ops::scaffold::api_markers::ENVTEST_MODULES;
        insert_rust(plan, main, marker, &[format!("mod {};", ctx.envtest_module)])?;
    }
    let test = render::render(&format!("webhook/tests/envtest/parts/{part}.rs.hbs"), ctx)?;
    let text = plan.read_existing(&file)?;
    let signature = test.lines().find(|l| l.contains("async fn")).unwrap_or(&test);
    if text.contains(signature.trim()) {
        return Ok(());
    }
    let new =
        crate::edit::insert_block_before_marker(&file, &text, markers::WEBHOOK_TESTS, &test, crate::edit::Lang::Rust)?;
    plan.edit(&file, new);
    Ok(())
}

/// The statement that adds the spoke `spoke_type` to the hub's conversion (in `webhook()`, indented 4), laid out as
/// `rustfmt` lays it out for the type's length, so the edited file needs no formatting: on one line; broken after
/// `=`; the call broken off `conversion` (`rustfmt` then puts the `)` on its own line); past that, on one line
/// again, which `rustfmt` cannot fit and leaves as it is.
fn spoke_statement(spoke_type: &str) -> String {
    const MAX_WIDTH: usize = 100;
    let call = format!("conversion.spoke::<{spoke_type}>();");
    let one_line = format!("    let conversion = {call}\n");
    if one_line.len() - 1 <= MAX_WIDTH {
        one_line
    } else if 8 + call.len() <= MAX_WIDTH {
        format!("    let conversion =\n        {call}\n")
    } else if 8 + ".spoke::<>(".len() + spoke_type.len() <= MAX_WIDTH {
        format!("    let conversion = conversion\n        .spoke::<{spoke_type}>(\n    );\n")
    } else {
        one_line
    }
}

/// Defaulting and validating webhooks for a built-in or external type: the kind's webhook module, its parts and
/// HTTPS tests, and the PROJECT entry (`core` / `external`); conversion is refused (there is no CRD of ours).
fn plan_foreign(args: &Options, project: &Project, f: &Foreign, cwd: &Path) -> Result<Plan> {
    let pf = &project.file;
    if args.conversion {
        return Err(UsageError(format!(
            "--conversion: {} ({}) is not defined by this project, so it has no CRD of ours to convert; conversion \
             webhooks serve the project's own multi-version kinds",
            f.kind,
            f.api_version()
        ))
        .into());
    }
    let modules = KindModules::new(pf.multigroup, &f.project_group, "", &f.version, &f.kind);
    let target = Target {
        version: &f.version,
        kind: &f.kind,
        api_group: &f.api_group,
        plural: f.plural.clone(),
        namespaced: f.namespaced,
    };
    let ctx = WebhookContext {
        qualified_group: if f.api_group.is_empty() { "core".into() } else { f.api_group.clone() },
        foreign: true,
        type_path: f.type_path.clone(),
        api_version: f.api_version(),
        marker_group: f.marker_group(),
        builtin: f.builtin,
        team_label: format!("{}/team", pf.domain),
        label_examples: true,
        ..WebhookContext::new(project, &modules, target)
    };
    let existing_entry = foreign::find_foreign(pf, &args.group, &args.version, &args.kind);
    let existing = existing_entry.and_then(|r| r.webhooks.clone()).unwrap_or_default();

    let mut plan = Plan::new(cwd);
    let (kind_file, test_file) = plan_kind(&mut plan, pf, &modules, &ctx)?;
    let wanted = [
        (Part::Defaulting, args.defaulting, existing.defaulting),
        (Part::Validation, args.programmatic_validation, existing.validation),
    ];
    if plan_parts(&mut plan, &wanted, &kind_file, &test_file, &ctx, args.force)?.is_empty() {
        plan.notes.push("nothing new to add: every requested webhook already exists".into());
    }
    if let Some(dep) = &f.dependency {
        foreign::plan_dependency(&mut plan, dep, None)?;
    }

    let mut file = pf.clone();
    let webhooks = ResourceWebhooks {
        defaulting: existing.defaulting || args.defaulting,
        validation: existing.validation || args.programmatic_validation,
        webhook_version: "v1".into(),
        ..ResourceWebhooks::default()
    };
    match file.resources.iter_mut().find(|r| existing_entry.is_some_and(|e| *r == e)) {
        Some(r) => {
            r.webhooks = Some(webhooks);
            if let Some(dep) = &f.dependency {
                r.module = dep.spec();
            }
        }
        None => {
            let mut entry = f.project_entry();
            entry.webhooks = Some(webhooks);
            file.resources.push(entry);
        }
    }
    finish(plan, &file, &kind_file)
}

/// What the webhook templates of a kind need to know about it, beyond the project.
struct Target<'a> {
    version: &'a str,
    kind: &'a str,
    /// The API group in reviews and webhook paths (`cache.example.com`; `""` for core).
    api_group: &'a str,
    plural: String,
    namespaced: bool,
}

impl WebhookContext {
    /// The context of `target`'s webhooks in the modules `modules`: names, paths and test target; what depends on
    /// whether the project defines the kind (its API module and path, the examples' style) is left empty.
    fn new(project: &Project, modules: &KindModules, target: Target) -> Self {
        let Target { version, kind, api_group, plural, namespaced } = target;
        let kind_lower = kind.to_ascii_lowercase();
        let dashed_group = api_group.replace('.', "-");
        let group_prefix = if modules.multigroup { format!("{}_", modules.group.file) } else { String::new() };
        WebhookContext {
            project_name: project.file.project_name.clone(),
            crate_name: project.crate_name(),
            qualified_group: String::new(),
            version: version.to_string(),
            kind: kind.to_string(),
            kind_lower: kind_lower.clone(),
            kind_file: modules.kind.file.clone(),
            plural,
            namespaced,
            test_name: format!(
                "webhook_{group_prefix}{}_{}",
                modules.version.file,
                modules.kind.file.trim_end_matches('_')
            ),
            api_module_path: String::new(),
            webhook_module_path: format!("{}::{}", modules.version_path("webhook"), modules.kind.ident),
            registration_name: format!("{kind_lower}-{version}"),
            mutate_path: format!("/mutate-{dashed_group}-{version}-{kind_lower}"),
            validate_path: format!("/validate-{dashed_group}-{version}-{kind_lower}"),
            mutate_name: format!("m{kind_lower}-{version}.kb.io"),
            validate_name: format!("v{kind_lower}-{version}.kb.io"),
            spoke_version: String::new(),
            spoke_api_module_path: String::new(),
            foreign: false,
            type_path: String::new(),
            api_version: String::new(),
            api_group: api_group.to_string(),
            marker_group: String::new(),
            builtin: false,
            team_label: String::new(),
            label_examples: false,
            spec_json: "{}".into(),
            envtest_module: format!(
                "{}_{}_{}_webhooks",
                modules.group.file.trim_end_matches('_'),
                modules.version.file.trim_end_matches('_'),
                modules.kind.file.trim_end_matches('_')
            ),
        }
    }
}

/// The project files of the first webhook, and the kind's webhook module and HTTPS test file; returns the paths of
/// those two.
fn plan_kind(
    plan: &mut Plan,
    pf: &ProjectFile,
    modules: &KindModules,
    ctx: &WebhookContext,
) -> Result<(PathBuf, PathBuf)> {
    if pf.resources.iter().all(|r| r.webhooks.is_none()) {
        plan_project_files(plan, ctx)?;
    }
    plan_server(plan, ctx)?;
    let kind_file = modules.version_dir("webhook").join(format!("{}.rs", modules.kind.file));
    let test_file = PathBuf::from(format!("tests/{}.rs", ctx.test_name));
    plan_kind_modules(plan, modules, &kind_file, &test_file, ctx)?;
    Ok((kind_file, test_file))
}

/// Records `file` as PROJECT, plans the webhook configurations that follow from the markers just planned, and says
/// where to go next.
fn finish(mut plan: Plan, file: &ProjectFile, kind_file: &Path) -> Result<Plan> {
    plan.edit(crate::project::PROJECT_FILE, file.to_yaml());
    crate::ops::manifests::plan_webhook_manifests(&mut plan, Path::new("config/webhook"), &[PathBuf::from("src")])?;
    plan.notes.push(format!(
        "next: edit the webhooks in {}, then run `kubesmith make manifests` and `cargo test`",
        kind_file.with_extension("").display()
    ));
    Ok(plan)
}

/// Whether a kind's types file has the scaffold's `foo: Option<String>` field the spec-based examples use.
fn has_foo(types: &str) -> bool {
    types.lines().any(|l| l.trim() == "pub foo: Option<String>,")
}

/// Appends a test block before the test file's marker, unless a test of the same name is already there.
fn append_test(plan: &mut Plan, test_file: &Path, test: &str) -> Result<()> {
    let text = plan.read_existing(test_file)?;
    let signature = test.lines().find(|l| l.contains("async fn")).unwrap_or(test);
    if text.contains(signature.trim()) {
        return Ok(());
    }
    if !text.contains("const PLURAL: &str") {
        let warning = format!(
            "warning: {} predates this kubesmith (it has no `const GROUP`, `VERSION`, `KIND` and `PLURAL`), which the \
             tests added to it use: add them as a new webhook test file has them, or bring the file up to date with \
             `kubesmith alpha update`",
            test_file.display()
        );
        if !plan.notes.contains(&warning) {
            plan.notes.push(warning);
        }
    }
    let new = crate::edit::insert_block_before_marker(
        test_file,
        &text,
        markers::WEBHOOK_TESTS,
        test,
        crate::edit::Lang::Rust,
    )?;
    plan.edit(test_file, new);
    Ok(())
}

/// The CRD's conversion patch and its CA injection.
fn plan_conversion_config(plan: &mut Plan, ctx: &WebhookContext) -> Result<()> {
    let patch = PathBuf::from(format!("config/crd/patches/webhook_in_{}.yaml", ctx.plural));
    create_if_missing(plan, &patch, || render::render("webhook/config/crd/patches/webhook_in.yaml.hbs", ctx))?;
    enable(plan, "config/crd/kustomization.yaml", "conversion-webhook")?;
    insert_yaml(
        plan,
        "config/crd/kustomization.yaml",
        markers::CRD_WEBHOOK_PATCHES,
        &format!("- path: patches/webhook_in_{}.yaml", ctx.plural),
    )?;
    enable(plan, "config/default/kustomization.yaml", "conversion-webhook")?;
    for (marker, index) in [(markers::CRD_CA_NAMESPACE, 0), (markers::CRD_CA_NAME, 1)] {
        let block = format!(
            "  - select:\n      kind: CustomResourceDefinition\n      name: {}.{}\n    fieldPaths:\n    \
             - .metadata.annotations.[cert-manager.io/inject-ca-from]\n    options:\n      delimiter: '/'\n      \
             index: {index}\n      create: true\n",
            ctx.plural, ctx.qualified_group
        );
        insert_yaml_block(plan, "config/default/kustomization.yaml", marker, &block)?;
    }
    Ok(())
}

/// Makes the hub the one storage version: `// +kubebuilder:storageversion` on it, `storage = false` on the others.
fn plan_storage_version(
    plan: &mut Plan,
    pf: &crate::project::ProjectFile,
    group: &str,
    hub: &str,
    kind: &str,
) -> Result<()> {
    for r in pf.versions_of(group, kind).filter(|r| r.api.is_some()) {
        let modules = KindModules::new(pf.multigroup, group, &pf.domain, &r.version, kind);
        let path = modules.version_dir("api").join(format!("{}.rs", modules.kind.file));
        let Some(text) = plan.read(&path)? else {
            plan.notes.push(format!(
                "warning: {} is missing, so the storage version of {kind} {} was not adjusted; make sure exactly one \
                 version has `// +kubebuilder:storageversion` and the others `storage = false`",
                path.display(),
                r.version
            ));
            continue;
        };
        let new = if r.version == hub { storage_hub(&text) } else { storage_spoke(&text) };
        match new {
            Some(new) if new != text => {
                crate::edit::check(&path, &new, crate::edit::Lang::Rust)?;
                plan.edit(&path, new);
            }
            Some(_) => {}
            None => plan.notes.push(format!(
                "warning: {}: no `#[kube(` attribute found; set the storage version of {kind} by hand \
                 (`// +kubebuilder:storageversion` on {hub}, `storage = false` on the others)",
                path.display()
            )),
        }
    }
    Ok(())
}

/// Removes `storage = false` from the `#[kube(...)]` of the hub and puts the storage-version marker before the
/// `#[derive(CustomResource ...)]` line. `None` when the file has no such derive.
fn storage_hub(text: &str) -> Option<String> {
    let derive_at =
        text.lines().position(|l| l.trim_start().starts_with("#[derive(") && l.contains("CustomResource"))?;
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if !lines.iter().any(|l| l.trim() == markers::STORAGE_VERSION) {
        lines.insert(derive_at, markers::STORAGE_VERSION.to_string());
    }
    lines.retain(|l| l.trim() != "storage = false,");
    Some(lines.join("\n") + "\n")
}

/// Adds `storage = false,` to a spoke's `#[kube(...)]` (after its `kind = ".."` line) and drops a stray
/// storage-version marker.
fn storage_spoke(text: &str) -> Option<String> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines.retain(|l| l.trim() != markers::STORAGE_VERSION);
    if lines.iter().any(|l| l.trim() == "storage = false," || l.contains("storage = false")) {
        return Some(lines.join("\n") + "\n");
    }
    let kube_at = lines.iter().position(|l| l.trim_start().starts_with("#[kube("))?;
    let kind_at = lines.iter().skip(kube_at).position(|l| l.trim_start().starts_with("kind = "))? + kube_at;
    let indent: String = lines[kind_at].chars().take_while(|c| c.is_whitespace()).collect();
    lines.insert(kind_at + 1, format!("{indent}storage = false,"));
    Some(lines.join("\n") + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TYPES: &str = "/// Spec.\n#[derive(CustomResource, Clone)]\n#[kube(\n    group = \"g\",\n    version = \"v1\",\n    kind = \"K\",\n    storage = false,\n)]\npub struct KSpec {}\n";

    #[test]
    fn the_with_server_line_is_laid_out_as_rustfmt_lays_it_out() {
        assert_eq!(
            with_server_statement("memcached_operator"),
            "let manager = manager.with_server(memcached_operator::webhook::server());"
        );
        let long = "a".repeat(45);
        let broken = with_server_statement(&long);
        assert_eq!(broken, format!("let manager =\n        manager.with_server({long}::webhook::server());"));
        assert!(broken.lines().all(|l| 4 + l.len() <= 100), "{broken}");
    }

    #[test]
    fn the_hub_gets_the_marker_and_loses_storage_false() {
        let hub = storage_hub(TYPES).unwrap();
        assert!(hub.contains("/// Spec.\n// +kubebuilder:storageversion\n#[derive(CustomResource"));
        assert!(!hub.contains("storage = false"));
        assert_eq!(storage_hub(&hub).unwrap(), hub);
    }

    /// `spoke_statement` is laid out as rustfmt (default style) lays it out, whatever the length of the type.
    #[test]
    fn spoke_statements_are_rustfmt_clean_at_every_length() {
        use std::io::Write;
        let mut text = String::new();
        for module in ["api::v1beta1", "api::averyveryverylonggroupname::v2beta12"] {
            for len in 1..100 {
                let spoke_type = format!("crate::{module}::K{}", "a".repeat(len));
                text.push_str("fn webhook() {\n");
                text.push_str(&spoke_statement(&spoke_type));
                text.push_str("}\n");
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let child = std::process::Command::new(std::env::var("RUSTFMT").unwrap_or_else(|_| "rustfmt".into()))
            .args(["--edition", "2024", "--emit", "stdout"])
            .current_dir(dir.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn();
        let Ok(mut child) = child else {
            eprintln!("rustfmt unavailable here");
            return;
        };
        child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let formatted = String::from_utf8(out.stdout).unwrap();
        for (ours, theirs) in text.split("fn webhook()").zip(formatted.split("fn webhook()")) {
            assert_eq!(ours, theirs);
        }
        assert_eq!(text, formatted);
    }

    #[test]
    fn spokes_get_storage_false_once() {
        let spoke = storage_spoke(&storage_hub(TYPES).unwrap()).unwrap();
        assert!(spoke.contains("    kind = \"K\",\n    storage = false,\n"));
        assert!(!spoke.contains("storageversion"));
        assert_eq!(storage_spoke(&spoke).unwrap(), spoke);
        assert!(storage_spoke("fn main() {}\n").is_none());
    }
}
