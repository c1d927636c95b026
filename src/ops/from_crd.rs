//! `kubesmith create api --from-crd FILE`: the kind's Rust types written from an existing CRD, planned like
//! `create api` for each version, then checked: the CRD `make manifests` generates from them is compared with FILE,
//! and a difference that would break objects stored under FILE's CRD stops the command with nothing written.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::crd::SourceSet;
use crate::crd::{self, reverse};
use crate::ops::create_api;
use crate::ops::create_api::Options as CreateApi;
use crate::plan::Plan;
use crate::project::Project;
use crate::usage::UsageError;

/// What `--from-crd` takes besides the CRDs.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `--version`: the versions to generate (all when empty); only with one CRD.
    pub versions: Vec<String>,
    pub force: bool,
    /// Scaffold a reconciler for each kind (on its storage version's types).
    pub controller: bool,
    /// `--kind`: only this kind's CRD.
    pub kind: Option<String>,
    /// What PROJECT records as the CRD's file (a replay keeps the original's words); `None`: the path from the
    /// project's folder.
    pub record_as: Option<String>,
}

/// The key of PROJECT's record of the kinds written from CRDs (`alpha generate` replays them with `--from-crd`).
pub const PLUGIN_KEY: &str = "from-crd.rust.kubesmith.io/v1alpha1";

/// Plans `create api --from-crd`: `path` (a CRD file, a file of several, or a folder of YAML files) as the user
/// named it, `invoked` the folder they ran in.
pub fn plan(args: &CreateApi, path: &Path, invoked: &Path, cwd: &Path) -> Result<Plan> {
    let opts = Options {
        versions: args.version.clone(),
        force: args.force,
        controller: args.controller,
        kind: (!args.kind.is_empty()).then(|| args.kind.clone()),
        record_as: None,
    };
    plan_onto(&opts, path, invoked, Plan::new(cwd))
}

/// `create api --from-crd` replayed by `alpha generate` in `dir`: `path` as PROJECT records it, relative to
/// `origin` (the project replayed), and recorded again in the same words.
pub fn plan_replayed(args: &CreateApi, path: &Path, origin: &Path, dir: &Path) -> Result<Plan> {
    if !origin.join(path).exists() {
        bail!(
            "PROJECT records that {} was written from the CRD {} (`create api --from-crd`), which is not there: put \
             the CRD back at that path (relative to the project), or fix `{PLUGIN_KEY}` in PROJECT",
            if args.kind.is_empty() { "a kind" } else { &args.kind },
            path.display()
        );
    }
    let opts = Options {
        versions: args.version.clone(),
        force: args.force,
        controller: args.controller,
        kind: (!args.kind.is_empty()).then(|| args.kind.clone()),
        record_as: Some(path.to_string_lossy().into_owned()),
    };
    plan_onto(&opts, path, origin, Plan::new(dir))
}

/// Plans every CRD `path` holds on top of `plan` (`init --from-crd` passes the project it plans).
pub fn plan_onto(opts: &Options, path: &Path, invoked: &Path, mut plan: Plan) -> Result<Plan> {
    let mut crds = read_crds(&invoked.join(path), path)?;
    if let Some(kind) = &opts.kind {
        let kinds: Vec<String> =
            crds.iter().filter_map(|(_, c)| c["spec"]["names"]["kind"].as_str().map(String::from)).collect();
        crds.retain(|(_, c)| c["spec"]["names"]["kind"] == kind.as_str());
        if crds.is_empty() {
            return Err(UsageError(format!(
                "{}: no CRD of kind `{kind}` in it (it has {}); pass one of those to --kind, or drop --kind",
                path.display(),
                kinds.join(", ")
            ))
            .into());
        }
    }
    if crds.len() > 1 && !opts.versions.is_empty() {
        return Err(UsageError(format!(
            "{}: --version picks versions of one CRD, and it holds {}; pass the CRD's own file",
            path.display(),
            crds.len()
        ))
        .into());
    }
    let mut names = std::collections::BTreeSet::new();
    for (file, source) in &crds {
        let name = source["metadata"]["name"].as_str().unwrap_or_default().to_string();
        if !names.insert(name.clone()) {
            bail!("{}: the CRD {name} is there twice; keep one", file.display());
        }
        let recorded = match &opts.record_as {
            Some(words) => PathBuf::from(words),
            None => relative_to(&plan.root, &invoked.join(file)),
        };
        // the types' header names the file as PROJECT does, or by its name when it lies outside the project's
        // parent folders: never a path of the machine it was written on
        let shown = if recorded.is_absolute() {
            PathBuf::from(recorded.file_name().unwrap_or(recorded.as_os_str()))
        } else {
            recorded.clone()
        };
        plan = plan_crd(opts, file, &shown, source, plan)?;
        record(&mut plan, &recorded, source)?;
    }
    Ok(plan)
}

/// Records in PROJECT that the CRD's kind was written from `file` (relative to the project when it can be), so
/// that `alpha generate` replays it with `--from-crd`.
fn record(plan: &mut Plan, crd: &Path, source: &Value) -> Result<()> {
    let Some(mut project) = crate::project::Project::planned(plan)? else {
        return Ok(());
    };
    let group = source["spec"]["group"].as_str().unwrap_or_default();
    let kind = source["spec"]["names"]["kind"].as_str().unwrap_or_default();
    let entry = serde_json::json!({ "crd": crd.to_string_lossy(), "group": group, "kind": kind });
    let slot = project.file.plugins.entry(PLUGIN_KEY).or_insert_with(|| serde_json::json!({ "resources": [] }));
    if let Some(list) = slot.get_mut("resources").and_then(Value::as_array_mut) {
        list.retain(|r| !(r["group"] == group && r["kind"] == kind));
        list.push(entry);
    }
    plan.edit(crate::project::PROJECT_FILE, project.file.to_yaml());
    Ok(())
}

/// `path` from `root` (`crds/a.yaml`, `../crds/a.yaml`), or as it is when they share no folder.
fn relative_to(root: &Path, path: &Path) -> PathBuf {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (root, path) = (canon(root), canon(path));
    let (r, p): (Vec<_>, Vec<_>) = (root.components().collect(), path.components().collect());
    let common = r.iter().zip(&p).take_while(|(a, b)| a == b).count();
    if common <= 1 {
        return path;
    }
    let mut out = PathBuf::new();
    for _ in common..r.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c);
    }
    out
}

/// Which `--from-crd` file PROJECT records for the kind `group`/`kind`.
pub fn recorded(pf: &crate::project::ProjectFile, group: &str, kind: &str) -> Option<String> {
    let list = pf.plugins.get(PLUGIN_KEY)?.get("resources")?.as_array()?;
    let entry = list.iter().find(|r| r["group"] == group && r["kind"] == kind)?;
    entry["crd"].as_str().map(String::from)
}

/// The domain the groups of the CRDs at `path` share, leaving each group a name of its own (`toolkit.fluxcd.io`
/// for `source.toolkit.fluxcd.io`, `io` for `argoproj.io`): what `init --from-crd` takes without `--domain`.
pub fn domain_of(path: &Path, invoked: &Path) -> Result<String> {
    let crds = read_crds(&invoked.join(path), path)?;
    let groups: std::collections::BTreeSet<&str> =
        crds.iter().filter_map(|(_, c)| c["spec"]["group"].as_str()).collect();
    let labels: Vec<Vec<&str>> = groups.iter().map(|g| g.split('.').rev().collect()).collect();
    // the longest shared suffix, shorter than every group
    let shortest = labels.iter().map(Vec::len).min().unwrap_or(0);
    let mut n = 0;
    while n + 1 < shortest && labels.iter().all(|l| l[n] == labels[0][n]) {
        n += 1;
    }
    if n == 0 {
        let list = groups.iter().copied().collect::<Vec<_>>().join(", ");
        return Err(UsageError(format!(
            "{}: the CRDs' groups ({list}) share no domain; pass --domain, and --multigroup when the groups differ",
            path.display()
        ))
        .into());
    }
    Ok(labels[0][..n].iter().rev().copied().collect::<Vec<_>>().join("."))
}

/// The CRDs of a file (one or several documents) or of every `.yaml`/`.yml` file of a folder, by file name.
fn read_crds(full: &Path, shown: &Path) -> Result<Vec<(PathBuf, Value)>> {
    let files: Vec<(PathBuf, PathBuf)> = if full.is_dir() {
        let mut files = Vec::new();
        for e in std::fs::read_dir(full).with_context(|| format!("cannot list {}", shown.display()))? {
            let p = e.with_context(|| format!("cannot list {}", shown.display()))?.path();
            if p.is_file() && p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
                files.push((p.clone(), shown.join(p.file_name().unwrap_or_default())));
            }
        }
        files.sort();
        files
    } else {
        vec![(full.to_path_buf(), shown.to_path_buf())]
    };
    let mut out = Vec::new();
    for (full, shown) in &files {
        let text = std::fs::read_to_string(full).with_context(|| format!("cannot read the CRD {}", shown.display()))?;
        let docs = crate::yaml::from_multi_doc_str(&text)
            .map_err(|e| anyhow::anyhow!("{}: not valid YAML: {e}", shown.display()))?;
        out.extend(docs.into_iter().filter(|d| d["kind"] == "CustomResourceDefinition").map(|d| (shown.clone(), d)));
    }
    if out.is_empty() {
        bail!(
            "{}: no CustomResourceDefinition in {}; pass a CRD's YAML file or a folder of them",
            shown.display(),
            if full.is_dir() { "its .yaml files" } else { "it" }
        );
    }
    Ok(out)
}

/// Plans one CRD's kind on top of `plan`.
fn plan_crd(opts: &Options, file: &Path, shown: &Path, source: &Value, mut plan: Plan) -> Result<Plan> {
    let facts = reverse::facts(source).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let project = create_api::planned_project(&plan)?;
    let pf = &project.file;
    let group = local_group(&facts.group, &pf.domain).ok_or_else(|| {
        let suffix = facts.group.split_once('.').map(|(_, d)| d).unwrap_or(&facts.group);
        UsageError(format!(
            "{}: the CRD's group `{}` is not in this project's domain `{}`; kubesmith scaffolds APIs as <group>.<domain>: \
             create the project with `kubesmith init --domain {suffix}`",
            file.display(),
            facts.group,
            pf.domain
        ))
    })?;
    let versions = pick_versions(&facts, &opts.versions, file)?;

    let mut written = Vec::new();
    for (i, version) in versions.iter().enumerate() {
        let sub = CreateApi {
            group: group.clone(),
            version: vec![version.clone()],
            kind: facts.kind.clone(),
            plural: (facts.plural != crate::names::kube_plural(&facts.kind.to_ascii_lowercase()))
                .then(|| facts.plural.clone()),
            namespaced: facts.namespaced,
            resource: true,
            // one reconciler serves every version: the storage version's, planned first
            controller: opts.controller && i == 0,
            external_api_path: None,
            external_api_crate: None,
            external_api_domain: None,
            force: opts.force,
            image: Default::default(),
        };
        let before = plan.notes.len();
        let has_status = source["spec"]["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|v| v["name"] == version.as_str())
            .is_some_and(|v| v["schema"]["openAPIV3Schema"]["properties"].get("status").is_some());
        let shape = crate::ops::api_context::KindShape { status_conditions: false, has_status, spec_default: true };
        plan = create_api::plan_onto(&sub, plan, false, shape)?;
        // create api's own next steps are about its template; this command says its own
        let notes: Vec<String> = plan.notes.drain(before..).filter(|n| n.starts_with("warning:")).collect();
        plan.notes.extend(notes);
        let header = format!(
            "The `{}` custom resource (`{}/{version}`), written from {} by `kubesmith create api --from-crd`.",
            facts.kind,
            facts.group,
            shown.display()
        );
        let types = reverse::version_types(source, version, &header)?;
        let path = create_api::types_path(
            pf.multigroup,
            if group.is_empty() { &pf.domain } else { &group },
            version,
            &facts.kind,
        );
        plan.replace_contents(&path, types.source.clone());
        written.push((path, types));
    }

    let generated = generate(&plan, &facts, &project)?;
    let expected = only_versions(source, &versions);
    report(&mut plan, &expected, &generated, &written, file)?;
    let crd_path = Path::new("config/crd/bases").join(format!("{}_{}.yaml", facts.group, facts.plural));
    plan.write(&crd_path, crate::yaml::to_multi_doc_string(std::slice::from_ref(&generated)))?;
    plan_samples(&mut plan, &generated, &facts, &group, &versions, pf)?;
    let controller = if opts.controller {
        format!(
            "; its reconciler's `apply` in {} (its status is the CRD's own type: the reconciler leaves it to you)",
            create_api::controller_path(pf.multigroup, if group.is_empty() { &pf.domain } else { &group }, &facts.kind)
                .display()
        )
    } else {
        String::new()
    };
    plan.notes.push(format!(
        "next: {} {} is ready in {}{controller}; then `cargo test`",
        facts.kind,
        versions.join(", "),
        written.iter().map(|(p, _)| p.display().to_string()).collect::<Vec<_>>().join(", ")
    ));
    Ok(plan)
}

/// The project's name for `group` (`cache` for `cache.example.com` in domain `example.com`), if it is in the domain.
fn local_group(group: &str, domain: &str) -> Option<String> {
    if group == domain {
        return Some(String::new());
    }
    group.strip_suffix(domain).and_then(|g| g.strip_suffix('.')).map(String::from)
}

/// The versions to generate, the storage version first (`create api` makes the first version of a kind its storage).
fn pick_versions(facts: &reverse::CrdFacts, asked: &[String], file: &Path) -> Result<Vec<String>> {
    for v in asked {
        if !facts.versions.contains(v) {
            return Err(UsageError(format!(
                "{}: the CRD has no version `{v}`; it has {}",
                file.display(),
                facts.versions.join(", ")
            ))
            .into());
        }
    }
    let mut picked: Vec<String> =
        facts.versions.iter().filter(|v| asked.is_empty() || asked.contains(v)).cloned().collect();
    if !picked.contains(&facts.storage) {
        return Err(UsageError(format!(
            "{}: the versions asked for leave out `{}`, the CRD's storage version; add --version {}",
            file.display(),
            facts.storage,
            facts.storage
        ))
        .into());
    }
    picked.retain(|v| *v != facts.storage);
    picked.insert(0, facts.storage.clone());
    Ok(picked)
}

/// The CRD the planned sources give, as `make manifests` generates it.
fn generate(plan: &Plan, facts: &reverse::CrdFacts, project: &Project) -> Result<Value> {
    let set = SourceSet::new(&plan.root.join("src")).with_overlay(plan.overlay());
    let k8s = crate::ops::manifests::project_k8s(Some(project))?;
    let name = format!("{}.{}", facts.plural, facts.group);
    let crds = crd::generate_with(&set, k8s).map_err(|e| {
        anyhow::anyhow!(
            "kubesmith could not read back the types it wrote for {name} (nothing was written; please report this with \
             the CRD):\n{e}"
        )
    })?;
    crds.into_iter()
        .find(|c| c.name == name)
        .map(|c| c.crd)
        .with_context(|| format!("the written types gave no CRD {name} (nothing was written; please report this)"))
}

/// `crd` with only `versions` (the ones generated).
fn only_versions(crd: &Value, versions: &[String]) -> Value {
    let mut crd = crd.clone();
    if let Some(list) = crd["spec"]["versions"].as_array_mut() {
        list.retain(|v| v["name"].as_str().is_some_and(|n| versions.iter().any(|w| w == n)));
    }
    crd
}

/// What the API server fills in when a CRD leaves it out, and numbers as values (`1.0` is `1`), so that two CRDs
/// the API server stores alike compare equal.
fn normalized(crd: &Value) -> Value {
    let mut crd = crd.clone();
    let kind = crd["spec"]["names"]["kind"].as_str().unwrap_or_default().to_string();
    if let Some(names) = crd["spec"]["names"].as_object_mut() {
        names.entry("listKind").or_insert_with(|| Value::String(format!("{kind}List")));
        names.entry("singular").or_insert_with(|| Value::String(kind.to_ascii_lowercase()));
    }
    if let Some(spec) = crd["spec"].as_object_mut() {
        if spec.get("conversion").is_some_and(|c| *c == serde_json::json!({"strategy": "None"})) {
            spec.remove("conversion");
        }
        if spec.get("preserveUnknownFields") == Some(&Value::Bool(false)) {
            spec.remove("preserveUnknownFields");
        }
    }
    if let Some(annotations) = crd["metadata"]["annotations"].as_object_mut() {
        annotations.remove(reverse::CONTROLLER_GEN_ANNOTATION);
    }
    whole_numbers(&mut crd);
    crd
}

fn whole_numbers(v: &mut Value) {
    match v {
        Value::Number(n) => {
            if let Some(f) = n.as_f64().filter(|f| n.is_f64() && f.fract() == 0.0 && f.abs() < 9.0e15) {
                *v = Value::from(f as i64);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(whole_numbers),
        Value::Object(o) => o.values_mut().for_each(whole_numbers),
        _ => {}
    }
}

/// Compares the generated CRD with FILE's: equal is said in one line; each difference is listed by path; a
/// difference that would break objects stored under FILE's CRD is an error.
fn report(
    plan: &mut Plan,
    expected: &Value,
    generated: &Value,
    written: &[(PathBuf, reverse::VersionTypes)],
    file: &Path,
) -> Result<()> {
    let (want, got) = (normalized(expected), normalized(generated));
    let differences = crd::compare::differences(&want, &got);
    let changes = crate::olm::upgrade::compare_crds(std::slice::from_ref(&want), std::slice::from_ref(&got));
    let breaking: Vec<String> = changes
        .iter()
        .filter(|c| c.rule.class() != crate::olm::upgrade::Class::Advisory)
        .map(|c| format!("  {c}"))
        .collect();
    let show = |v: &Option<Value>| match v {
        Some(v) => crate::olm::upgrade::schema::show(v),
        None => "(absent)".to_string(),
    };
    let listed: Vec<String> = differences
        .iter()
        .map(|d| format!("  {}: {} has {}, the types give {}", d.path, file.display(), show(&d.left), show(&d.right)))
        .collect();
    if !breaking.is_empty() {
        bail!(
            "the CRD the new types give would break objects stored under {} ({} finding(s)); nothing was written:\n{}\n\
             every difference:\n{}\nplease report this with the CRD: kubesmith should write types that keep it",
            file.display(),
            breaking.len(),
            breaking.join("\n"),
            listed.join("\n")
        );
    }
    for (path, types) in written {
        for n in &types.as_schema_fns {
            plan.notes.push(format!(
                "note: {}: {} `{}` is written as a schema function (exact, but JSON rather than a Rust type): {}",
                path.display(),
                types.version,
                n.path,
                n.reason
            ));
        }
        for n in &types.unexpressed {
            plan.notes.push(format!(
                "warning: {}: {} `{}`: {}",
                path.display(),
                types.version,
                if n.path.is_empty() { "(root)" } else { &n.path },
                n.reason
            ));
        }
    }
    if differences.is_empty() {
        plan.notes.push(format!(
            "the CRD `kubesmith make manifests` generates from the new types equals {} (as data)",
            file.display()
        ));
    } else {
        plan.notes.push(format!(
            "note: the CRD the new types give differs from {} in {} place(s), none of which breaks stored objects:\n{}",
            file.display(),
            differences.len(),
            listed.join("\n")
        ));
    }
    Ok(())
}

/// Each version's sample: the least object its schema accepts.
fn plan_samples(
    plan: &mut Plan,
    crd: &Value,
    facts: &reverse::CrdFacts,
    group: &str,
    versions: &[String],
    pf: &crate::project::ProjectFile,
) -> Result<()> {
    let kind_lower = facts.kind.to_ascii_lowercase();
    let name = format!("{kind_lower}-sample");
    let labels = [("app.kubernetes.io/name", pf.project_name.as_str()), ("app.kubernetes.io/managed-by", "kustomize")];
    for version in versions {
        let path = Path::new("config/samples").join(create_api::sample_file(group, &facts.group, version, &kind_lower));
        if let Some(object) = crd::sample::sample_object(crd, version, &name, &labels) {
            let text = format!(
                "# The least {} its schema accepts, made by `kubesmith create api --from-crd`: fill in values that show \
                 what the\n# operator does. `make bundle` copies it into the CSV's alm-examples.\n{}",
                facts.kind,
                crate::yaml::to_string(&object)
            );
            plan.write(&path, text)?;
        }
    }
    Ok(())
}
