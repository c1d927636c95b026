//! `kubesmith make bundle`: renders `config/manifests` with `kubectl kustomize`, builds the CSV over the user's
//! base CSV (`crate::olm::csv`) and plans `bundle/manifests`, `bundle/metadata/annotations.yaml`,
//! `bundle/metadata/dependencies.yaml`, `bundle/tests/scorecard/config.yaml` and `bundle.Dockerfile`, removing files
//! that no longer belong. The install modes follow `crate::olm::install_modes`; dependencies and install modes given
//! with flags are recorded in PROJECT (`crate::olm::settings`). With `--previous OLD` it first runs the safe CRD
//! upgrade check (`crate::olm::upgrade`) and writes nothing if it fails.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::cli::MakeBundleArgs;
use crate::olm::bundle::Metadata;
use crate::olm::csv::{self, Options};
use crate::olm::dependencies;
use crate::olm::install_modes::{self, Source};
use crate::olm::semver::{Range, Version};
use crate::olm::settings::{Requested, Settings};
use crate::olm::upgrade::{self, Release};
use crate::olm::validate::Level;
use crate::plan::Plan;
use crate::project::{PROJECT_FILE, Project};
use crate::usage::UsageError;

/// The layout recorded in bundles of projects without a PROJECT file.
const UNKNOWN_LAYOUT: &str = "unknown";

/// `operators.operatorframework.io/builder`.
pub fn builder() -> String {
    format!("kubesmith-v{}", env!("CARGO_PKG_VERSION"))
}

/// Checks the arguments before anything is read: a bad value is a usage error.
fn check_args(args: &MakeBundleArgs) -> Result<Requested, UsageError> {
    if let Err(e) = Version::parse(&args.version) {
        return Err(UsageError(format!(
            "--version {}: {} is not a valid semantic version: {e} (use MAJOR.MINOR.PATCH, e.g. 0.1.0, without a leading v)",
            args.version, args.version
        )));
    }
    Version::parse_canonical(&args.version).map_err(|e| UsageError(format!("--version: {e}")))?;
    if args.channels.is_empty() || args.channels.iter().any(|c| c.trim().is_empty()) {
        return Err(UsageError(format!(
            "--channels {:?} has an empty channel name: list channel names separated by commas, e.g. --channels fast,stable",
            args.channels.join(",")
        )));
    }
    for c in &args.channels {
        if c.trim() != c || c.contains(char::is_whitespace) {
            return Err(UsageError(format!("--channels: channel name {c:?} must not contain spaces")));
        }
    }
    if let Some(d) = &args.default_channel
        && !args.channels.contains(d)
    {
        return Err(UsageError(format!(
            "--default-channel {d} is not among the channels ({}): add it to --channels or pick one of them",
            args.channels.join(",")
        )));
    }
    if let Some(r) = &args.skip_range {
        Range::parse(r).map_err(|e| UsageError(format!("--skip-range {r:?}: {e}")))?;
    }
    for (flag, names) in
        [("--replaces", args.replaces.iter().collect::<Vec<_>>()), ("--skips", args.skips.iter().collect())]
    {
        for n in names {
            if !crate::names::is_dns1123_subdomain(n) {
                return Err(UsageError(format!(
                    "{flag} {n:?} is not a bundle name: use <package>.v<version>, e.g. memcached-operator.v0.1.0"
                )));
            }
        }
    }
    Requested::parse(&args.depends_on_package, &args.depends_on_gvk, &args.install_modes).map_err(UsageError)
}

/// `createdAt`: `SOURCE_DATE_EPOCH` when set, else the existing bundle's when its version is the same, else now.
fn created_at(existing: Option<&Value>, version: &str) -> String {
    if let Some(secs) = crate::clock::source_date_epoch() {
        return crate::clock::rfc3339(secs);
    }
    if let Some(csv) = existing
        && csv["spec"]["version"] == version
        && let Some(c) = csv["metadata"]["annotations"]["createdAt"].as_str()
    {
        return c.to_string();
    }
    crate::clock::rfc3339(crate::clock::now())
}

/// Plans the bundle.
pub fn plan(args: &MakeBundleArgs, cwd: &Path) -> Result<Plan> {
    let requested = check_args(args)?;
    let project = if cwd.join(PROJECT_FILE).is_file() { Some(Project::load(cwd)?) } else { None };
    if project.is_some() {
        let progress = crate::output::Progress::start("checking that config/crd/bases is current with src/");
        crate::ops::manifests::check_crds_current(cwd)?;
        progress.finish();
    }
    let recorded = project.as_ref().map(|p| Settings::read(&p.file)).transpose()?.unwrap_or_default();
    let settings = recorded.apply(&requested);
    let package = match (&args.package, &project) {
        (Some(p), _) => p.clone(),
        (None, Some(p)) if !p.file.project_name.is_empty() => p.file.project_name.clone(),
        (None, Some(_)) => {
            return Err(UsageError(
                "--package <name> must be set if \"projectName\" is not set in the PROJECT file".into(),
            )
            .into());
        }
        (None, None) if !cwd.join("config/manifests").is_dir() => {
            bail!(
                "no PROJECT file in {} or above it: make bundle packages a kubesmith project; run it in one \
                 (`kubesmith init` or `kubesmith adopt` makes one)",
                cwd.display()
            );
        }
        (None, None) => {
            return Err(UsageError(
                "--package <name> must be set: there is no PROJECT file to take the package name from".into(),
            )
            .into());
        }
    };
    if !crate::names::is_dns1123_label(&package) {
        return Err(UsageError(format!(
            "--package {package:?} must be a DNS-1123 label (lower case letters, digits and '-')"
        ))
        .into());
    }
    let layout = project.as_ref().map(|p| p.file.layout.join(",")).unwrap_or_else(|| UNKNOWN_LAYOUT.into());
    let manifests_dir = PathBuf::from("config/manifests");
    let base_path = manifests_dir.join("bases").join(format!("{package}.clusterserviceversion.yaml"));
    let base_text = std::fs::read_to_string(cwd.join(&base_path)).map_err(|_| {
        anyhow::anyhow!(
            "no base ClusterServiceVersion at {}: make bundle builds the CSV over it (display name, description, icon, \
             maintainers, install modes...); restore it from version control or re-run `kubesmith init` in a new folder \
             and copy it",
            base_path.display()
        )
    })?;
    let base_docs = crate::yaml::from_multi_doc_str(&base_text)
        .with_context(|| format!("{} is not valid YAML", base_path.display()))?;
    let Some(file_base) = base_docs.into_iter().find(|d| d["kind"] == "ClusterServiceVersion") else {
        bail!("no ClusterServiceVersion manifest in {}", base_path.display());
    };

    let rendered = crate::kustomize::kustomize(cwd, &manifests_dir)?;
    let docs = crate::yaml::from_multi_doc_str(&rendered)
        .context("`kubectl kustomize config/manifests` printed invalid YAML")?;
    // The rendered base carries any kustomize patches over the file; it is the one to build on.
    let prefix = format!("{package}.");
    let base = docs
        .iter()
        .find(|d| {
            d["kind"] == "ClusterServiceVersion"
                && d["metadata"]["name"].as_str().is_some_and(|n| n.starts_with(&prefix))
        })
        .cloned()
        .unwrap_or(file_base);
    // The oldest Kubernetes the operator supports is the one its k8s-openapi feature names (PROJECT's k8sVersion,
    // as kube-rs advises): the bundle says so unless the base CSV does.
    let mut base = base;
    let min_kube = project.as_ref().and_then(|p| p.file.k8s_version()).map(|v| format!("{v}.0"));
    if let (Some(min), Some(spec)) = (min_kube, base["spec"].as_object_mut())
        && spec.get("minKubeVersion").and_then(Value::as_str).is_none_or(str::is_empty)
    {
        spec.insert("minKubeVersion".into(), Value::String(min));
    }

    let mut sources = project.as_ref().map(|p| p.file.sources()).unwrap_or_default();
    if sources.is_empty() {
        sources.push(std::path::PathBuf::from("src"));
    }
    let mut descriptions = Vec::new();
    for src in sources.iter().filter(|s| cwd.join(s).is_dir()) {
        let found = crate::olm::descriptors::descriptions(&crate::crd::SourceSet::new(&cwd.join(src)))
            .map_err(|e| anyhow::anyhow!("reading the CSV markers in {}: {e}", src.display()))?;
        descriptions.extend(found);
    }
    let out_dir = &args.output_dir;
    let csv_file = format!("{}.clusterserviceversion.yaml", package.to_ascii_lowercase());
    let csv_path = out_dir.join("manifests").join(&csv_file);
    let existing = std::fs::read_to_string(cwd.join(&csv_path)).ok().and_then(|t| crate::yaml::from_str(&t).ok());
    let opts = Options {
        package: package.clone(),
        version: Some(args.version.clone()),
        image: args.image.clone(),
        replaces: args.replaces.clone(),
        skips: args.skips.clone(),
        skip_range: args.skip_range.clone(),
        created_at: created_at(existing.as_ref(), &args.version),
        layout: layout.clone(),
        builder: builder(),
        descriptions,
    };
    let mut generated = csv::build(&base, docs, &opts)?;
    let namespaced = project.as_ref().is_some_and(|p| p.file.namespaced);
    let flag_modes = requested.install_modes.as_ref().and_then(|m| m.as_deref());
    let modes = install_modes::choose(
        base.pointer("/spec/installModes"),
        flag_modes,
        settings.install_modes.as_deref().filter(|_| flag_modes.is_none()),
        namespaced,
    );
    generated.csv["spec"]["installModes"] = modes.value.clone();

    // Refuse a CSV OLM would reject.
    let schema = crate::olm::schema::validate(crate::olm::schema::csv_schema(), &generated.csv);
    if !schema.errors.is_empty() {
        bail!(
            "invalid generated ClusterServiceVersion (OLM's CSV schema rejects it; fix {}):\n  {}",
            base_path.display(),
            schema.errors.join("\n  ")
        );
    }

    let upgrade_notes = check_upgrade(args, cwd, &package, &generated)?;

    // Every example must be an object its CRD accepts: OperatorHub and the console start users from them.
    let crds: Vec<Value> = generated
        .manifests
        .iter()
        .map(|(_, m)| m.clone())
        .filter(|m| m["kind"] == "CustomResourceDefinition")
        .collect();
    let bad = crate::olm::examples::problems(&generated.csv, &crds);
    if !bad.is_empty() {
        bail!(
            "the samples make alm-examples their CRDs refuse; fix them in config/samples/ (make bundle copies those \
             listed in config/samples/kustomization.yaml):\n  {}",
            bad.join("\n  ")
        );
    }

    let mut plan = Plan::new(cwd);
    plan.notes.extend(upgrade_notes);
    if args.output_dir != Path::new(crate::cli::BUNDLE_DIR) {
        plan.outside_ok.push(args.output_dir.clone());
    }
    plan.notes.extend(generated.notes.iter().cloned());
    let mut written = vec![csv_path.clone()];
    plan.write(&csv_path, crate::yaml::to_string(&generated.csv))?;
    for (name, obj) in &generated.manifests {
        let p = out_dir.join("manifests").join(name);
        plan.write(&p, crate::yaml::to_string(obj))?;
        written.push(p);
    }
    let scorecard_path = out_dir.join("tests/scorecard/config.yaml");
    match &generated.scorecard {
        Some(sc) => plan.write(&scorecard_path, crate::yaml::to_string(sc))?,
        None if cwd.join(&scorecard_path).exists() => plan.delete(&scorecard_path),
        None => {}
    }
    if let Ok(entries) = std::fs::read_dir(cwd.join(out_dir).join("manifests")) {
        let mut stale: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_file())
            .map(|e| out_dir.join("manifests").join(e.file_name()))
            .filter(|p| !written.contains(p))
            .collect();
        stale.sort();
        for p in stale {
            plan.delete(p);
        }
    }
    let metadata = Metadata {
        package: package.clone(),
        channels: args.channels.clone(),
        default_channel: args.default_channel.clone(),
        builder: builder(),
        layout,
        scorecard: generated.scorecard.is_some(),
    };
    plan.write(out_dir.join("metadata/annotations.yaml"), metadata.annotations_yaml())?;
    let deps_path = out_dir.join("metadata").join(dependencies::FILE);
    if !settings.dependencies.is_empty() {
        plan.write(&deps_path, dependencies::file_yaml(&settings.dependencies))?;
    } else if cwd.join(&deps_path).exists() {
        plan.delete(&deps_path);
    }
    match &project {
        Some(p) if settings != recorded => {
            let mut file = p.file.clone();
            settings.write(&mut file);
            plan.write(PROJECT_FILE, file.to_yaml())?;
        }
        None if !requested.is_empty() => plan
            .notes
            .push("note: no PROJECT file: the dependencies and install modes given apply to this run only".to_string()),
        _ => {}
    }
    plan.notes.extend(install_mode_notes(&modes, &generated.csv));
    let shown_dir = out_dir.to_string_lossy().trim_end_matches('/').to_string();
    plan.write("bundle.Dockerfile", metadata.dockerfile(&shown_dir))?;
    plan.notes.push(format!(
        "next: `kubesmith bundle validate {shown_dir}`, then `make bundle-build bundle-push` (bundle.Dockerfile)"
    ));
    Ok(plan)
}

/// What `make bundle` says about the install modes it chose: where they came from when that is not the project,
/// and a conflict OLM will refuse (conversion webhooks need AllNamespaces as the only supported mode).
fn install_mode_notes(choice: &install_modes::Choice, csv: &Value) -> Vec<String> {
    let modes = install_modes::supported(&choice.value);
    let mut notes = Vec::new();
    match choice.source {
        Source::Base => notes.push(format!(
            "note: install modes {} come from the base CSV (edited there; `--install-modes` overrides them)",
            install_modes::list(&modes)
        )),
        Source::Recorded => notes.push(format!(
            "note: install modes {} as recorded in PROJECT (`--install-modes auto` lets the project decide again)",
            install_modes::list(&modes)
        )),
        Source::Flag | Source::Project => {}
    }
    let conversion =
        csv["spec"]["webhookdefinitions"].as_array().into_iter().flatten().any(|w| w["type"] == "ConversionWebhook");
    if conversion && modes != [install_modes::Mode::AllNamespaces] {
        notes.push(format!(
            "warning: the bundle has conversion webhooks, which OLM accepts only when AllNamespaces is the only \
             supported install mode (supported: {}); `bundle validate` will refuse it",
            install_modes::list(&modes)
        ));
    }
    notes
}

/// `--previous OLD`: the safe CRD upgrade check on the bundle about to be written. Errors stop the command before
/// anything is written; warnings become notes.
fn check_upgrade(args: &MakeBundleArgs, cwd: &Path, package: &str, generated: &csv::Generated) -> Result<Vec<String>> {
    let Some(previous) = crate::ops::findings::previous(args.upgrade.previous.as_deref(), cwd)? else {
        return Ok(Vec::new());
    };
    let mut objects = vec![generated.csv.clone()];
    objects.extend(generated.manifests.iter().map(|(_, o)| o.clone()));
    let shown = args.output_dir.display().to_string();
    let new = Release::from_objects(&shown, Some(package.to_string()), args.channels.clone(), &objects);
    let findings = upgrade::check(&new, &previous, upgrade::Options { allow_breaking: args.upgrade.allow_breaking });
    let (errors, warnings): (Vec<_>, Vec<_>) = findings.iter().partition(|f| f.level == Level::Error);
    if !errors.is_empty() {
        let all: Vec<String> = findings.iter().map(|f| f.to_string()).collect();
        bail!(
            "the upgrade check against --previous {} failed with {} error(s); nothing was written:\n  {}",
            args.upgrade.previous.as_deref().unwrap_or(Path::new("")).display(),
            errors.len(),
            all.join("\n  ")
        );
    }
    Ok(warnings.iter().map(|f| format!("warning: {}", f.message)).collect())
}

/// Runs the command: plan, then `--check`, `--dry-run` or apply.
pub fn run(args: &MakeBundleArgs, cwd: &Path) -> Result<()> {
    let plan = plan(args, cwd)?;
    if args.check {
        return crate::ops::write::check(&plan, "bundle", "kubesmith make bundle");
    }
    crate::ops::write::finish(plan, args.dry_run)
}
