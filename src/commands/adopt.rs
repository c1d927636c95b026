//! `kubesmith adopt`: makes an existing kube-rs crate or cargo workspace a kubesmith project without touching its
//! sources — PROJECT (its kinds, where its sources are, RBAC inferred from the code) and the `config/` tree `init`
//! and `create api` would give, with the CRDs, the role the code needs and one minimal sample per kind. Kinds that
//! are other projects' APIs (decided by [`owners`] from what the repository ships and reconciles) are recorded as
//! external APIs, and the CRD YAML the repository ships is compared with kubesmith's ([`crate::crd::compare`]).

mod builtins;
mod failed;
mod owners;
mod shipped;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::cli::AdoptArgs;
use crate::crd::kinds::{KindDecl, kinds};
use crate::crd::{K8sTable, SourceSet};
use crate::names;
use crate::ops::api_context::{ApiContext, KindShape};
use crate::ops::create_api::plan_kind_config;
use crate::ops::init::InitContext;
use crate::ops::manifests::{self, Targets};
use crate::plan::{Action, Plan};
use crate::project::{self, ProjectFile, Resource, ResourceApi};
use crate::source::Workspace;
use crate::usage::UsageError;

/// `config/` files of `init` an adopted operator does not use: the scaffold's leader election and secure metrics.
const NOT_ADOPTED: &[&str] = &[
    "config/rbac/leader_election_role.yaml",
    "config/rbac/leader_election_role_binding.yaml",
    "config/rbac/metrics_auth_role.yaml",
    "config/rbac/metrics_auth_role_binding.yaml",
    "config/rbac/metrics_reader_role.yaml",
];

pub fn plan(args: &AdoptArgs, cwd: &Path) -> Result<Plan> {
    if !cwd.join("Cargo.toml").is_file() {
        bail!(
            "{} is not a crate: there is no Cargo.toml; run `kubesmith adopt` in the root of a kube-rs crate or cargo \
             workspace (or `kubesmith init` to start a new operator)",
            cwd.display()
        );
    }
    if cwd.join(project::PROJECT_FILE).exists() {
        bail!(
            "{} is already a kubesmith project (it has a PROJECT file): run `kubesmith make manifests` to regenerate \
             its manifests; remove PROJECT first to adopt it again",
            cwd.display()
        );
    }
    let ws = Workspace::discover(cwd)?;
    let sources = ws.source_dirs(cwd);
    let (found, found_notes) = find_kinds(cwd, &sources, args.k8s_version.dotted(), args.keep_going)?;
    let storage_versions = storage_versions(&args.storage_version, &found)?;
    let bins: Vec<(&str, &str)> =
        ws.packages.iter().flat_map(|p| p.bins.iter().map(move |b| (p.name.as_str(), b.name.as_str()))).collect();
    let bin = match &args.bin {
        Some(b) if !bins.iter().any(|(_, n)| n == b) => {
            let known: Vec<&str> = bins.iter().map(|(_, n)| *n).collect();
            return Err(UsageError(format!(
                "--bin {b}: the workspace has no such binary (it has: {})",
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            ))
            .into());
        }
        Some(b) => Some(b.clone()),
        None if bins.len() == 1 => Some(bins[0].1.to_string()),
        None => None,
    };
    // Whose kinds are these: from what the repository ships, what its Controllers reconcile, the groups' domains.
    let shipped = shipped::find(cwd);
    let watches = watches(cwd, &sources, bin.as_deref(), args.offline);
    let primaries: Vec<(String, String, String)> = watches
        .iter()
        .filter(|w| w.2 == "Controller::new")
        .map(|(group, plural, _, place)| (group.clone(), plural.clone(), place.clone()))
        .collect();
    let reconciled = builtins::reconciled(&watches, !found.is_empty(), args.k8s_version.dotted());
    if found.is_empty() && reconciled.is_empty() {
        let looked: Vec<String> = sources.iter().map(|s| s.display().to_string()).collect();
        bail!(
            "no kind to adopt in {} (looked in {}): no #[derive(CustomResource)] kind, and no `Controller::new` or \
             watcher over a built-in kind in the code {} reaches; adopt makes a project around the kinds an \
             operator reconciles: check that the crates holding them are members of the workspace, or pass --bin \
             with the operator's binary",
            cwd.display(),
            if looked.is_empty() { "no crate source folder".to_string() } else { looked.join(", ") },
            match &bin {
                Some(b) => format!("binary `{b}`"),
                None => "the workspace's binaries".to_string(),
            }
        );
    }
    let evidence = owners::Evidence {
        shipped: &shipped,
        primaries: &primaries,
        owned: &args.owned,
        external: &args.external,
        domain: args.domain.as_deref(),
    };
    let decisions = owners::decide(&found, &evidence)?;
    let is_owned = |k: &KindDecl| decisions.iter().any(|d| d.owned && d.group == k.group && d.kind == k.kind);
    let groups: BTreeSet<&str> = found.iter().filter(|k| is_owned(k)).map(|k| k.group.as_str()).collect();
    let domain = match &args.domain {
        Some(d) => d.clone(),
        None => common_domain(&groups),
    };
    if !domain.is_empty() {
        names::validate_domain(&domain).map_err(UsageError::from)?;
    }
    let project_name = match &args.project_name {
        Some(n) => n.clone(),
        None => default_project_name(&ws, bin.as_deref(), &bins, cwd),
    };
    names::validate_project_name(&project_name).map_err(UsageError::from)?;
    let (image_name, image_tag) = split_image(args.image.as_deref().unwrap_or("controller:latest"));

    let (storage_versions, storage_notes) = shipped_storage(storage_versions, &found, &shipped, &is_owned);

    let mut draft = Plan::new(cwd);
    let ctx = InitContext {
        crate_name: names::crate_name(&project_name),
        display_name: names::display_name(&project_name),
        domain: domain.clone(),
        repo: String::new(),
        owner: String::new(),
        license_apache2: false,
        year: crate::clock::year(crate::clock::now()).to_string(),
        k8s_version: args.k8s_version.dotted().to_string(),
        k8s_feature: args.k8s_version.feature(),
        kubesmith_version: env!("CARGO_PKG_VERSION").to_string(),
        leader_election_id: format!("{:08x}.{domain}", names::fnv32a(&project_name)),
        namespace: format!("{project_name}-system"),
        multigroup: groups.len() > 1,
        manager_namespaced: false,
        adopted: true,
        image_name,
        image_tag,
        runtime_vendored: false,
        runtime_version: crate::runtime_source::VERSION.into(),
        project_name: project_name.clone(),
    };
    for (path, contents) in crate::render::render_set("init", &ctx)? {
        if path.starts_with("config/") && !NOT_ADOPTED.contains(&path.as_str()) {
            draft.create(path, contents);
        }
    }

    // The manifests as `make manifests` will keep them: CRDs, and the role the code needs.
    let k8s = K8sTable::for_version(args.k8s_version.dotted()).expect("every --k8s-version value has a table");
    let targets = Targets {
        sources: sources.clone(),
        crd_dir: Some(PathBuf::from("config/crd/bases")),
        rbac_dir: Some(PathBuf::from("config/rbac")),
        webhook_dir: None,
        max_description_length: None,
        k8s,
        compile: true,
        rbac_infer: Some(bin.clone()),
        remove_stale: false,
        manager_namespace: None,
        external_crds: found.iter().filter(|k| !is_owned(k)).map(|k| format!("{}.{}", k.plural, k.group)).collect(),
        storage_versions: storage_versions.clone(),
        // The crate's first read, uncached: inference costs as much as the CRDs.
        early_inference: true,
        offline: args.offline,
    };
    let problems = manifests::plan_into(&mut draft, &targets)?;
    // A kind whose CRD failed would leave PROJECT and the kustomizations naming a file that does not exist.
    let failed = failed::failed(&draft, found.iter().filter(|k| is_owned(k)));
    let is_adopted = |k: &KindDecl| is_owned(k) && !failed.iter().any(|f| f.group == k.group && f.kind == k.kind);
    let mut left_out = None;
    if !problems.is_empty() {
        if !args.keep_going {
            return Err(failed::refusal(&failed, problems, cwd));
        }
        if found.iter().all(|k| !is_owned(k) || !is_adopted(k)) && !failed.is_empty() {
            bail!(
                "adopt wrote nothing: no kind of the project's own has a CRD kubesmith can generate, so --keep-going \
                 would leave none to adopt; fix the problems below and run `kubesmith adopt` again\n{:#}",
                problems.into_error(cwd)
            );
        }
        left_out = Some(failed::left_out_note(&failed, problems, cwd));
    }

    let mut resources = Vec::new();
    let mut cluster_scoped_external = Vec::new();
    let mut first_versions: BTreeSet<(String, String)> = BTreeSet::new();
    for k in &found {
        let (group, res_domain) = split_group(&k.group, &domain);
        if !is_owned(k) {
            let resource = Resource {
                domain: res_domain,
                external: true,
                group,
                kind: k.kind.clone(),
                path: rust_path(&ws, cwd, k),
                plural: if k.plural == names::kube_plural(&k.kind.to_ascii_lowercase()) {
                    String::new()
                } else {
                    k.plural.clone()
                },
                version: k.version.clone(),
                ..Resource::default()
            };
            if !k.namespaced {
                cluster_scoped_external.push(resource.clone());
            }
            resources.push(resource);
            continue;
        }
        if !is_adopted(k) {
            continue;
        }
        let kind_lower = k.kind.to_ascii_lowercase();
        let role_prefix = if groups.len() > 1 { format!("{group}-{kind_lower}") } else { kind_lower.clone() };
        let api = ApiContext {
            project_name: project_name.clone(),
            crate_name: ctx.crate_name.clone(),
            domain: res_domain.clone(),
            group: group.clone(),
            qualified_group: k.group.clone(),
            version: k.version.clone(),
            kind: k.kind.clone(),
            kind_lower: kind_lower.clone(),
            kind_file: kind_lower.clone(),
            controller_name: role_prefix.clone(),
            plural: k.plural.clone(),
            custom_plural: k.plural != names::kube_plural(&kind_lower),
            kind_module: kind_lower.clone(),
            api_module_path: String::new(),
            controller_module_path: String::new(),
            namespaced: k.namespaced,
            storage: k.storage,
            role_prefix,
            sample_name: format!("{kind_lower}-sample"),
            sample_file: crate::ops::create_api::sample_file(&group, &k.group, &k.version, &kind_lower),
            finalizer: String::new(),
            field_manager: project_name.clone(),
            manager_namespaced: false,
            shape: KindShape::SCAFFOLD,
        };
        let sample = sample_text(&draft, k, &api)?;
        let first = first_versions.insert((k.group.clone(), k.kind.clone()));
        plan_kind_config(&mut draft, &api, sample, first, false)?;
        resources.push(Resource {
            api: Some(ResourceApi { crd_version: "v1".into(), namespaced: k.namespaced }),
            controller: false,
            domain: res_domain,
            group,
            kind: k.kind.clone(),
            path: rust_path(&ws, cwd, k),
            plural: if k.plural == names::kube_plural(&kind_lower) { String::new() } else { k.plural.clone() },
            version: k.version.clone(),
            ..Resource::default()
        });
    }

    resources.extend(reconciled.iter().map(|r| r.resource.clone()));

    let mut settings = serde_json::Map::new();
    settings.insert("adopted".into(), json!(true));
    settings.insert("k8sVersion".into(), json!(ctx.k8s_version));
    let mut rbac = serde_json::Map::new();
    if let Some(b) = &bin {
        rbac.insert("bin".into(), json!(b));
    }
    rbac.insert("infer".into(), json!(true));
    settings.insert("rbac".into(), Value::Object(rbac));
    let list: Vec<String> = sources.iter().map(|s| s.display().to_string()).collect();
    settings.insert("sources".into(), json!(list));
    if !storage_versions.is_empty() {
        let named: serde_json::Map<String, Value> =
            storage_versions.iter().map(|((group, kind), v)| (format!("{kind}.{group}"), json!(v))).collect();
        settings.insert("storageVersions".into(), Value::Object(named));
    }
    let mut plugins = serde_json::Map::new();
    plugins.insert(project::PLUGIN_KEY.into(), Value::Object(settings));
    let mut file = ProjectFile {
        cli_version: ctx.kubesmith_version.clone(),
        domain: domain.clone(),
        layout: vec![project::LAYOUT.into()],
        multigroup: groups.len() > 1,
        plugins,
        project_name: project_name.clone(),
        version: "3".into(),
        resources,
        ..Default::default()
    };
    for r in &cluster_scoped_external {
        file.set_external_namespaced(r, false);
    }
    draft.create(project::PROJECT_FILE, file.to_yaml());
    let comparisons = compare_shipped(&draft, &found, &decisions, &shipped)?;

    let mut plan = settle(draft, args.force)?;
    if !decisions.is_empty() {
        plan.notes.push(decision_lines(&decisions));
    }
    plan.notes.extend(comparisons);
    plan.notes.extend(found_notes);
    plan.notes.extend(storage_notes);
    plan.notes.extend(left_out);
    if !reconciled.is_empty() {
        let mut lines = vec![
            "built-in kinds the operator reconciles, recorded as `core: true` resources (no CRD, no sample):".into(),
        ];
        for r in &reconciled {
            let api =
                if r.resource.domain.is_empty() { r.resource.group.clone() } else { r.resource.qualified_group() };
            lines.push(format!("  {} ({}/{}): {}", r.resource.kind, api, r.resource.version, r.why));
        }
        plan.notes.push(lines.join("\n"));
    }
    let owned: Vec<String> =
        found.iter().filter(|k| is_adopted(k)).map(|k| format!("{} ({}/{})", k.kind, k.group, k.version)).collect();
    plan.notes.push(format!(
        "adopted {} kind(s) as the project's own: {}; the manager's role is inferred from {}\nnext: `kubectl kustomize \
         config/default`, `kubesmith make manifests` (keeps CRDs and the role current), `kubesmith make bundle \
         --version 0.1.0`",
        owned.len(),
        if owned.is_empty() && found.is_empty() {
            "none (it has no kinds of its own)".to_string()
        } else if owned.is_empty() {
            "none (pass --owned KIND to make one the project's)".to_string()
        } else {
            owned.join(", ")
        },
        match &bin {
            Some(b) => format!("what binary `{b}` reaches"),
            None => "what every binary of the workspace reaches (pass --bin to pick the manager's)".to_string(),
        }
    ));
    Ok(plan)
}

/// The watches of the code the manager reaches (`Controller::new(Api<K>, ..)`, `watcher(api, ..)`): `(group,
/// resource, call, "file:line")`, once per group, resource and call. Empty when the code cannot be read; making the
/// manifests then says why.
fn watches(cwd: &Path, sources: &[PathBuf], bin: Option<&str>, offline: bool) -> Vec<builtins::Watch> {
    let probe = Plan::new(cwd);
    let Ok(inference) = manifests::infer_in_plan(&probe, sources, bin, offline) else { return Vec::new() };
    // A need's call reads `watcher(Api<Deployment>)`, `Controller::new(Api<Widget>)`.
    let called = |call: &str| call.split(['(', '<']).next().unwrap_or_default().to_string();
    let mut out: Vec<builtins::Watch> = inference
        .needs
        .iter()
        .filter(|n| matches!(called(&n.call).as_str(), "Controller::new" | "watcher" | "metadata_watcher"))
        .filter(|n| !n.resource.contains('/'))
        .map(|n| {
            let file = n.file.strip_prefix(cwd).unwrap_or(&n.file);
            (n.group.clone(), n.resource.clone(), called(&n.call), format!("{}:{}", file.display(), n.line))
        })
        .collect();
    out.sort();
    out.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1 && a.2 == b.2);
    out
}

/// `--storage-version Kind=VERSION` / `Kind.group=VERSION`, by `(group, kind)` of the kinds found.
fn storage_versions(flags: &[String], found: &[KindDecl]) -> Result<BTreeMap<(String, String), String>> {
    let mut out = BTreeMap::new();
    for flag in flags {
        let usage = |why: String| anyhow::Error::from(UsageError(format!("--storage-version {flag}: {why}")));
        let Some((name, version)) = flag.split_once('=').filter(|(n, v)| !n.is_empty() && !v.is_empty()) else {
            return Err(usage("write `Kind=VERSION` or `Kind.group=VERSION` (e.g. `Widget=v2`)".into()));
        };
        let (kind, group) = name.split_once('.').map_or((name, None), |(k, g)| (k, Some(g)));
        let versions: Vec<&KindDecl> =
            found.iter().filter(|k| k.kind == kind && group.is_none_or(|g| g == k.group)).collect();
        let groups: BTreeSet<&str> = versions.iter().map(|k| k.group.as_str()).collect();
        let [group] = groups.into_iter().collect::<Vec<_>>()[..] else {
            let why = if versions.is_empty() {
                "the crate declares no such kind".to_string()
            } else {
                "kinds of that name are in several groups: write `Kind.group=VERSION`".to_string()
            };
            return Err(usage(why));
        };
        if !versions.iter().any(|k| k.version == version) {
            let known: Vec<&str> = versions.iter().map(|k| k.version.as_str()).collect();
            return Err(usage(format!("{kind} has no version `{version}` (it has {})", known.join(", "))));
        }
        out.insert((group.to_string(), kind.to_string()), version.to_string());
    }
    Ok(out)
}

/// `named` (the flags) with, for each owned kind whose versions' `#[kube(storage)]` leave no single storage version
/// (a function of the crate's own combines them), the storage version of the CRD the repository ships for it, when
/// every shipped copy agrees on one the crate declares; a note for each so taken.
fn shipped_storage(
    mut named: BTreeMap<(String, String), String>,
    found: &[KindDecl],
    shipped: &[shipped::ShippedCrd],
    is_owned: &dyn Fn(&KindDecl) -> bool,
) -> (BTreeMap<(String, String), String>, Vec<String>) {
    let mut notes = Vec::new();
    let kinds: BTreeSet<(&str, &str)> =
        found.iter().filter(|k| is_owned(k)).map(|k| (k.group.as_str(), k.kind.as_str())).collect();
    for (group, kind) in kinds {
        let key = (group.to_string(), kind.to_string());
        let versions: Vec<&KindDecl> = found.iter().filter(|k| k.group == group && k.kind == kind).collect();
        if named.contains_key(&key) || versions.len() < 2 || versions.iter().filter(|k| k.storage).count() == 1 {
            continue;
        }
        let mut stored: BTreeSet<&str> = BTreeSet::new();
        let mut files = Vec::new();
        for s in shipped.iter().filter(|s| s.group == group && s.kind == kind) {
            let list = s.doc.pointer("/spec/versions").and_then(Value::as_array);
            stored
                .extend(list.into_iter().flatten().filter(|v| v["storage"] == true).filter_map(|v| v["name"].as_str()));
            files.push(s.file.display().to_string());
        }
        let [version] = stored.into_iter().collect::<Vec<_>>()[..] else { continue };
        if !versions.iter().any(|k| k.version == version) {
            continue;
        }
        notes.push(format!(
            "note: {kind} ({group}) has {} versions and the sources choose no storage version kubesmith can read; {version} \
             is stored, as the CRD {} ships says (recorded in PROJECT's storageVersions; `--storage-version \
             {kind}=VERSION` decides otherwise)",
            versions.len(),
            files.join(", ")
        ));
        named.insert(key, version.to_string());
    }
    (named, notes)
}

/// One line per kind: whose it is and why, with how to decide otherwise.
fn decision_lines(decisions: &[owners::Decision]) -> String {
    let mut lines = vec!["whose kinds these are (--owned KIND / --external KIND decide otherwise):".to_string()];
    for d in decisions {
        let whose = if d.owned { "owned   " } else { "external" };
        lines.push(format!("  {whose} {} ({}): {}", d.kind, d.group, d.reason));
    }
    lines.join("\n")
}

/// How many differences one comparison lists before counting the rest.
const SHOWN_DIFFERENCES: usize = 25;

/// For each owned kind whose CRD the repository ships, how the shipped CRD differs from kubesmith's, by path.
fn compare_shipped(
    draft: &Plan,
    found: &[KindDecl],
    decisions: &[owners::Decision],
    shipped: &[shipped::ShippedCrd],
) -> Result<Vec<String>> {
    let mut notes = Vec::new();
    for d in decisions.iter().filter(|d| d.owned) {
        let Some(ours_kind) = found.iter().find(|k| k.group == d.group && k.kind == d.kind) else { continue };
        let path = Path::new("config/crd/bases").join(format!("{}_{}.yaml", d.group, ours_kind.plural));
        let Some(ours) = draft.read(&path)?.and_then(|t| crate::yaml::from_str(&t).ok()) else { continue };
        for s in shipped.iter().filter(|s| s.group == d.group && s.kind == d.kind) {
            let whose = format!("the CRD of {} that {} ships", d.kind, s.file.display());
            if s.doc["apiVersion"] != ours["apiVersion"] {
                notes.push(format!(
                    "{whose} is {}; kubesmith writes {} ({}): compare them after converting it",
                    s.doc["apiVersion"].as_str().unwrap_or("?"),
                    ours["apiVersion"].as_str().unwrap_or("?"),
                    path.display()
                ));
                continue;
            }
            let diffs = crate::crd::compare::differences(&s.doc, &ours);
            if diffs.is_empty() {
                notes.push(format!("{whose} is the one kubesmith generates ({})", path.display()));
                continue;
            }
            let mut lines = vec![format!(
                "{whose} differs from kubesmith's ({}){} in {} place(s):",
                path.display(),
                if s.template { ", read without its template lines," } else { "" },
                diffs.len()
            )];
            for diff in diffs.iter().take(SHOWN_DIFFERENCES) {
                lines.push(match (&diff.left, &diff.right) {
                    (Some(a), Some(b)) => format!("  {}: shipped {}, kubesmith {}", diff.path, show(a), show(b)),
                    (Some(a), None) => format!("  {}: only shipped ({})", diff.path, show(a)),
                    (None, Some(b)) => format!("  {}: only kubesmith's ({})", diff.path, show(b)),
                    (None, None) => format!("  {}", diff.path),
                });
            }
            if diffs.len() > SHOWN_DIFFERENCES {
                lines.push(format!("  … and {} more", diffs.len() - SHOWN_DIFFERENCES));
            }
            notes.push(lines.join("\n"));
        }
    }
    Ok(notes)
}

/// A value on one line, shortened.
fn show(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 72 { format!("{}…", text.chars().take(71).collect::<String>()) } else { text }
}

/// Every kind of every source folder, once per group/version/kind, with notes on how they were found. The kinds
/// attribute macros generate are named by their CRDs, which the compiled fallback makes (`k8s_version`, the
/// project's); when it fails, adopt stops unless `keep_going` (then they are left out, said in a note).
fn find_kinds(
    cwd: &Path,
    sources: &[PathBuf],
    k8s_version: &str,
    keep_going: bool,
) -> Result<(Vec<KindDecl>, Vec<String>)> {
    let mut out: Vec<KindDecl> = Vec::new();
    let mut notes = Vec::new();
    let mut problems = Vec::new();
    let add = |out: &mut Vec<KindDecl>, k: KindDecl| {
        if !out.iter().any(|o| o.group == k.group && o.version == k.version && o.kind == k.kind) {
            out.push(k);
        }
    };
    for src in sources {
        match kinds(&SourceSet::new(&cwd.join(src))) {
            Ok(found) => {
                for k in found.declared {
                    add(&mut out, k);
                }
                if found.generated.is_empty() {
                    continue;
                }
                let generated = found.generated.clone();
                match crate::crd::fallback::compile(&cwd.join(src), Vec::new(), found.generated, cwd, k8s_version) {
                    // The CRDs come in the order of the macro kinds.
                    Ok(compiled) => {
                        for (crd, m) in compiled.crds.iter().zip(&generated) {
                            for k in KindDecl::of_compiled(&crd.crd, m) {
                                add(&mut out, k);
                            }
                        }
                    }
                    Err(e) => {
                        let which: Vec<String> = generated
                            .iter()
                            .map(|m| format!("{} (#[{}] on `{}`)", m.root, m.macro_path, m.item))
                            .collect();
                        let what = format!(
                            "the compiled fallback cannot name the kinds attribute macros generate in {}: {}",
                            src.display(),
                            which.join(", ")
                        );
                        if !keep_going {
                            bail!(
                                "adopt wrote nothing: {what}; fix the build, or pass --keep-going to adopt the other \
                                 kinds without them: {e:#}"
                            );
                        }
                        // The same build fails again when the manifests are planned: its errors are shown there.
                        notes.push(format!(
                            "warning: --keep-going left out {}: the compiled fallback that names the kinds attribute \
                             macros generate in {} does not build (cargo's errors below)",
                            which.join(", "),
                            src.display()
                        ));
                    }
                }
            }
            Err(e) => problems.extend(e.into_vec()),
        }
    }
    if !problems.is_empty() {
        bail!("cannot read the crate's kinds: {}", crate::crd::CrdErrors::new(problems));
    }
    Ok((out, notes))
}

/// The longest common suffix of the groups' labels that still leaves every group a label of its own.
fn common_domain(groups: &BTreeSet<&str>) -> String {
    let labels: Vec<Vec<&str>> = groups.iter().map(|g| g.split('.').rev().collect()).collect();
    let Some(first) = labels.first() else { return String::new() };
    let shortest = labels.iter().map(Vec::len).min().unwrap_or(0);
    let mut n = 0;
    while n + 1 < shortest && labels.iter().all(|l| l[n] == first[n]) {
        n += 1;
    }
    let mut suffix: Vec<&str> = first[..n].to_vec();
    suffix.reverse();
    suffix.join(".")
}

/// `(group, domain)` of a resource entry: `fleet.example.org` with domain `example.org` → (`fleet`, `example.org`);
/// a group outside the domain keeps its own (`monitoring.coreos.com` → (`monitoring`, `coreos.com`)).
fn split_group(group: &str, domain: &str) -> (String, String) {
    if !domain.is_empty() {
        if let Some(g) = group.strip_suffix(&format!(".{domain}")) {
            return (g.to_string(), domain.to_string());
        }
        if group == domain {
            return (String::new(), domain.to_string());
        }
    }
    match group.split_once('.') {
        Some((g, d)) => (g.to_string(), d.to_string()),
        None => (group.to_string(), String::new()),
    }
}

/// The binary's package, else the root package, else the folder.
fn default_project_name(ws: &Workspace, bin: Option<&str>, bins: &[(&str, &str)], cwd: &Path) -> String {
    if let Some((pkg, _)) = bin.and_then(|b| bins.iter().find(|(_, n)| *n == b)) {
        return pkg.to_string();
    }
    if let Some(root) = ws.packages.iter().find(|p| p.dir == cwd) {
        return root.name.clone();
    }
    cwd.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_else(|| "operator".into())
}

/// `registry/name:tag` → (`registry/name`, `tag`); no tag → `latest`.
fn split_image(image: &str) -> (String, String) {
    match image.rsplit_once(':') {
        Some((name, tag)) if !tag.contains('/') => (name.to_string(), tag.to_string()),
        _ => (image.to_string(), "latest".to_string()),
    }
}

/// The Rust path of a kind's type as other crates name it (`fleet_api::Widget`), or as its own crate does.
fn rust_path(ws: &Workspace, cwd: &Path, k: &KindDecl) -> String {
    let krate = ws
        .packages
        .iter()
        .filter(|p| k.file.starts_with(&p.dir) || cwd.join(&k.file).starts_with(&p.dir))
        .max_by_key(|p| p.dir.components().count())
        .map(|p| p.crate_name())
        .unwrap_or_else(|| "crate".into());
    match &k.path {
        Some(path) => std::iter::once(krate).chain(path.iter().skip(1).cloned()).collect::<Vec<_>>().join("::"),
        None => format!("{krate}::{}", k.kind),
    }
}

/// The sample of a kind: the least object its generated CRD accepts, else an empty spec to fill in.
fn sample_text(plan: &Plan, k: &KindDecl, api: &ApiContext) -> Result<String> {
    let crd_path = Path::new("config/crd/bases").join(format!("{}_{}.yaml", k.group, k.plural));
    let crd = plan.read(&crd_path)?.and_then(|t| crate::yaml::from_str(&t).ok());
    let labels = [("app.kubernetes.io/name", api.project_name.as_str()), ("app.kubernetes.io/managed-by", "kustomize")];
    let object = crd.as_ref().and_then(|c| crate::crd::sample::sample_object(c, &k.version, &api.sample_name, &labels));
    match object {
        Some(o) => Ok(format!(
            "# The least {} its schema accepts, made by `kubesmith adopt`: fill in values that show what the\n\
             # operator does. `make bundle` copies it into the CSV's alm-examples.\n{}",
            k.kind,
            crate::yaml::to_string(&o)
        )),
        None => crate::render::render("api/config/samples/sample.yaml.hbs", api).context("rendering a sample"),
    }
}

/// The final plan: every path must be PROJECT or under `config/` (adopt never writes anywhere else, sources
/// least of all); an existing file is a clash, listed with every other, unless `force` (then overwritten).
fn settle(draft: Plan, force: bool) -> Result<Plan> {
    let root = draft.root.clone();
    let mut plan = Plan::new(&root);
    plan.notes = draft.notes.clone();
    let mut clashes = Vec::new();
    for op in draft.ops() {
        let allowed = op.path == Path::new(project::PROJECT_FILE) || op.path.starts_with("config");
        if !allowed || op.action == Action::Delete {
            bail!(
                "kubesmith adopt planned to touch {} (a bug: adopt only writes PROJECT and config/)",
                op.path.display()
            );
        }
        let Some(contents) = op.contents.clone() else { continue };
        let exists = std::fs::symlink_metadata(root.join(&op.path)).is_ok();
        match (exists, force) {
            (false, _) => plan.create(op.path.clone(), contents),
            (true, true) => plan.overwrite(op.path.clone(), contents),
            (true, false) => clashes.push(op.path.display().to_string()),
        }
    }
    if !clashes.is_empty() {
        bail!(
            "kubesmith adopt would overwrite {} existing file(s): {}; move them away, or pass --force to overwrite \
             them (only these generated config files; sources are never written)",
            clashes.len(),
            clashes.join(", ")
        );
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_are_the_common_suffix_leaving_each_group_a_name() {
        let set = |g: &[&'static str]| g.iter().copied().collect::<BTreeSet<&str>>();
        assert_eq!(common_domain(&set(&["fleet.example.org", "infra.example.org"])), "example.org");
        assert_eq!(common_domain(&set(&["fleet.example.org"])), "example.org");
        assert_eq!(common_domain(&set(&["a.x.example.org", "b.example.org"])), "example.org");
        assert_eq!(common_domain(&set(&["fleet.example.org", "other.io"])), "");
        assert_eq!(common_domain(&set(&["stable"])), "");
    }

    #[test]
    fn groups_split_around_the_domain() {
        assert_eq!(split_group("fleet.example.org", "example.org"), ("fleet".into(), "example.org".into()));
        assert_eq!(split_group("monitoring.coreos.com", "example.org"), ("monitoring".into(), "coreos.com".into()));
        assert_eq!(split_group("example.org", "example.org"), ("".into(), "example.org".into()));
        assert_eq!(split_image("quay.io/me/op:1.2"), ("quay.io/me/op".into(), "1.2".into()));
        assert_eq!(split_image("localhost:5000/op"), ("localhost:5000/op".into(), "latest".into()));
    }
}
