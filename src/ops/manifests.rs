//! Generating the manifests (`make manifests`, and every command that plans them): CRDs from the Rust types (static,
//! via `crate::crd`), `role.yaml` from RBAC markers, webhook configurations; a recorded chart and API reference follow.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::crd::{self, K8sTable, SourceSet};
use crate::plan::Plan;
use crate::project::{PROJECT_FILE, Project};
use crate::usage::UsageError;

mod check;
mod rbac;
mod samples;

pub use check::check_crds_current;
pub(crate) use rbac::infer_in_plan;
pub use rbac::plan_role;
use rbac::{EarlyInference, bound_rules, grants_of, macro_resource, rbac_drift, take_inference, write_role};
use samples::{SeenCrd, sample_warnings};

/// What `make manifests` is asked for, as typed options (the command's flags; `Default` is the command without
/// flags, what the Makefile runs). `--check`, `--dry-run` and `--keep-going` are the caller's: they decide what
/// happens to the plan.
#[derive(Debug, Default, Clone)]
pub(crate) struct Options {
    /// Folders holding crate roots; empty: PROJECT's, else `src`.
    pub sources: Vec<PathBuf>,
    pub crd_dir: Option<PathBuf>,
    pub rbac_dir: Option<PathBuf>,
    pub webhook_dir: Option<PathBuf>,
    /// The Kubernetes version (`1.33`) whose k8s-openapi schemas embedded types get; `None`: PROJECT's, else the
    /// crate's k8s-openapi feature, else the default.
    pub k8s_version: Option<&'static str>,
    pub max_description_length: Option<usize>,
    pub no_compile: bool,
    /// Never run cargo to fetch missing sources of kube-dependent crates.
    pub offline: bool,
}

const ROLE_FILE: &str = "role.yaml";
const WEBHOOK_FILE: &str = "manifests.yaml";

/// Where `make manifests` reads and writes, after applying project defaults.
#[derive(Debug)]
pub struct Targets {
    pub sources: Vec<PathBuf>,
    pub crd_dir: Option<PathBuf>,
    pub rbac_dir: Option<PathBuf>,
    pub webhook_dir: Option<PathBuf>,
    /// `--max-description-length`.
    pub max_description_length: Option<usize>,
    /// The k8s-openapi schemas of the Kubernetes version the crate builds against.
    pub k8s: &'static K8sTable,
    /// Whether kinds whose schema needs running code may be compiled (`--no-compile`, PROJECT `crd.compile`).
    pub compile: bool,
    /// `Some(bin)` when the role is inferred from the code (PROJECT `rbac: {infer: true, bin}`, made by `kubesmith
    /// adopt`): role.yaml then grants what the code needs plus what markers add.
    pub rbac_infer: Option<Option<String>>,
    /// Whether CRD files this run does not produce are removed (`kubesmith adopt` never removes anything).
    pub remove_stale: bool,
    /// The namespace of a namespace-scoped manager (PROJECT `namespaced: true`): without RBAC markers, role.yaml is
    /// an empty Role there rather than an empty ClusterRole.
    pub manager_namespace: Option<String>,
    /// CRDs (`plural.group`) of kinds the sources derive but the project does not own (PROJECT `external: true`,
    /// which `adopt` records for other projects' APIs): never generated, never compiled, their problems not ours.
    pub external_crds: std::collections::BTreeSet<String>,
    /// The storage versions PROJECT names (`storageVersions`), by `(group, kind)`.
    pub storage_versions: std::collections::BTreeMap<(String, String), String>,
    /// Whether the RBAC inference starts on a second thread while the CRDs are generated ([`plan_into`]): for
    /// projects of [`EARLY_INFERENCE_KINDS`] resources or more, and for `adopt`'s first, uncached read of a crate.
    pub early_inference: bool,
    /// Never run cargo to fetch missing sources of kube-dependent crates.
    pub offline: bool,
}

/// Projects with at least this many resources infer RBAC on a second thread while the CRDs are generated: for a
/// scaffold of one kind, the thread's start and its own allocator heap cost ~0.5 ms of an ~8 ms run.
pub const EARLY_INFERENCE_KINDS: usize = 8;

/// What kept some CRDs from being planned: every problem of every kind, and a failed compiled fallback.
#[derive(Debug, Default)]
pub struct Problems {
    /// Problems found statically, sorted by file and line.
    pub found: Vec<crd::Problem>,
    /// Kinds that need compiling when compiling is off (`--no-compile`), with why.
    pub not_compiled: Vec<crd::PendingCrd>,
    /// Kinds attribute macros generate when compiling is off: only compiling gives their CRDs.
    pub not_expanded: Vec<crd::macro_kinds::MacroKind>,
    /// CRDs whose versions the compiled fallback made but cannot merge: (`plural.group`, why).
    pub unmerged: Vec<(String, String)>,
    /// Whether some kinds attribute macros generate were not compiled (`--no-compile`, or a failed build): which CRD
    /// files they own is unknown, so no CRD file is stale.
    pub macro_crds_unknown: bool,
    /// The compiled fallback's failure (cargo's output) and the CRDs it was to complete.
    pub fallback: Option<(anyhow::Error, Vec<String>)>,
    /// RBAC markers against the code, when the sources have markers (not a problem by itself: `--check` fails on
    /// calls no marker grants).
    pub drift: Option<crate::rbac::drift::Drift>,
}

impl Problems {
    /// Whether every kind was planned.
    pub fn is_empty(&self) -> bool {
        self.found.is_empty()
            && self.not_compiled.is_empty()
            && self.not_expanded.is_empty()
            && self.unmerged.is_empty()
            && self.fallback.is_none()
    }

    /// The CRD names (`plural.group`) that were not planned; `None` when some problem belongs to no CRD, or kinds
    /// attribute macros generate were not compiled.
    fn failed_crds(&self) -> Option<Vec<String>> {
        if self.macro_crds_unknown {
            // Which CRDs a macro makes is known only once it is compiled.
            return None;
        }
        let mut out = Vec::new();
        out.extend(self.unmerged.iter().map(|(name, _)| name.clone()));
        for p in &self.found {
            out.push(p.crd.clone()?);
        }
        out.extend(self.not_compiled.iter().map(|p| p.crd.name.clone()));
        out.extend(self.fallback.iter().flat_map(|(_, names)| names.iter().cloned()));
        Some(out)
    }

    /// Every problem as one error, paths relative to `root`.
    pub fn into_error(self, root: &Path) -> anyhow::Error {
        let rel = |e: &crd::CrdError| {
            let mut e = e.clone();
            if let Ok(p) = e.path.strip_prefix(root) {
                e.path = p.to_path_buf();
            }
            e
        };
        let mut lines: Vec<String> = Vec::new();
        let errors = crd::CrdErrors::new(self.found.iter().map(|p| rel(&p.error)).collect());
        lines.extend(errors.all().iter().map(ToString::to_string));
        if !self.not_compiled.is_empty() {
            lines.push(format!(
                "{} kind(s) need compiling for their schema, which --no-compile (or `crd: {{compile: false}}` in \
                 PROJECT) forbids; make these schemas data (a json_schema!/json! literal, or a type kubesmith can \
                 read), or let kubesmith compile them:",
                self.not_compiled.len()
            ));
            for p in &self.not_compiled {
                for v in &p.versions {
                    for e in &v.because {
                        lines.push(format!("  {} {}: {}", p.crd.name, v.version, rel(e)));
                    }
                }
            }
        }
        if !self.not_expanded.is_empty() {
            lines.push(format!(
                "{} kind(s) come from attribute macros kubesmith cannot expand, so only compiling gives their CRDs, \
                 which --no-compile (or `crd: {{compile: false}}` in PROJECT) forbids; let kubesmith compile them, or \
                 declare them with #[derive(CustomResource)] and a complete #[kube(group, version, kind)]:",
                self.not_expanded.len()
            ));
            for m in &self.not_expanded {
                lines.push(format!("  {}", rel(&m.because)));
            }
        }
        for (name, why) in &self.unmerged {
            lines.push(format!("the compiled versions of {name} cannot be merged into one CRD: {why}"));
        }
        let fallback_failed = self.fallback.is_some();
        if let Some((e, names)) = self.fallback {
            lines.push(format!("the compiled fallback for {} failed: {e:#}", names.join(", ")));
        }
        let count = errors.len()
            + self.not_compiled.iter().flat_map(|p| &p.versions).map(|v| v.because.len()).sum::<usize>()
            + self.not_expanded.len()
            + self.unmerged.len()
            + usize::from(fallback_failed);
        let text = lines.join("\n");
        if count > 1 { anyhow::anyhow!("{count} problems:\n{text}") } else { anyhow::anyhow!("{text}") }
    }
}

/// The table of the project's Kubernetes version (`plugins["rust.kubesmith.io/v1alpha1"].k8sVersion`), or of
/// kubesmith's default version outside a project or when PROJECT names none.
pub fn project_k8s(project: Option<&Project>) -> Result<&'static K8sTable> {
    match project.and_then(|p| p.file.k8s_version()) {
        None => Ok(K8sTable::default_table()),
        Some(v) => K8sTable::for_version(v).ok_or_else(|| {
            UsageError(format!(
                "PROJECT sets k8sVersion {v}, which kubesmith has no k8s-openapi schemas for (it supports {}); \
                 fix k8sVersion or pass --k8s-version",
                crd::k8s::VERSIONS.join(", ")
            ))
            .into()
        }),
    }
}

/// Resolves the folders: flags win; in a project the layout gives defaults; outside one only flags count.
pub fn targets(args: &Options, cwd: &Path) -> Result<Targets> {
    let project = if cwd.join(PROJECT_FILE).is_file() { Some(Project::load(cwd)?) } else { None };
    targets_of(args, cwd, project, None)
}

/// [`targets`] for `project` (the one on disk, or the one `plan` leaves; a source folder `plan` creates counts).
fn targets_of(args: &Options, cwd: &Path, project: Option<Project>, plan: Option<&Plan>) -> Result<Targets> {
    let in_project = project.is_some();
    let has_webhooks = project.as_ref().is_some_and(|p| p.file.resources.iter().any(|r| r.webhooks.is_some()))
        || (in_project && cwd.join("config/webhook").is_dir());
    let project_sources = project.as_ref().map(|p| p.file.sources()).unwrap_or_default();
    let sources = match (args.sources.is_empty(), project_sources.is_empty()) {
        (false, _) => args.sources.clone(),
        (true, false) => project_sources,
        (true, true) => vec![PathBuf::from("src")],
    };
    let declared = project.as_ref().is_some_and(|p| p.file.k8s_version().is_some());
    let k8s = match args.k8s_version {
        Some(v) => K8sTable::for_version(v).ok_or_else(|| {
            UsageError(format!(
                "kubesmith has no k8s-openapi schemas for Kubernetes {v} (it supports {})",
                crd::k8s::VERSIONS.join(", ")
            ))
        })?,
        // no version in PROJECT (or no PROJECT): the `v1_XX` feature the crate turns on for k8s-openapi
        // (with its release's own table where the release is an older one)
        None if !declared => sources
            .first()
            .and_then(|s| {
                let dir = cwd.join(s);
                let version = crate::source::dependencies::locked::k8s_openapi_version(&dir)?;
                let release = crate::source::dependencies::locked::dependency_version(&dir, "k8s-openapi");
                Some(K8sTable::for_crate(&version, release.as_deref()))
            })
            .unwrap_or_else(K8sTable::default_table),
        None => project_k8s(project.as_ref())?,
    };
    let rbac_infer = project.as_ref().and_then(|p| p.file.rbac_inferred());
    let (crd_dir, rbac_dir, webhook_dir) = if in_project {
        (
            Some(args.crd_dir.clone().unwrap_or_else(|| PathBuf::from("config/crd/bases"))),
            Some(args.rbac_dir.clone().unwrap_or_else(|| PathBuf::from("config/rbac"))),
            args.webhook_dir.clone().or_else(|| has_webhooks.then(|| PathBuf::from("config/webhook"))),
        )
    } else {
        if args.crd_dir.is_none() && args.rbac_dir.is_none() && args.webhook_dir.is_none() {
            anyhow::bail!(
                "no PROJECT file in {} or above it, so there are no default outputs: run this command in a kubesmith \
                 project, or pass --crd-dir DIR, --rbac-dir DIR and/or --webhook-dir DIR, e.g. `kubesmith make \
                 manifests --source src --crd-dir out/crds`",
                cwd.display()
            );
        }
        (args.crd_dir.clone(), args.rbac_dir.clone(), args.webhook_dir.clone())
    };
    let planned =
        |s: &Path| plan.is_some_and(|p| p.ops().iter().any(|op| op.path.starts_with(s) && op.contents.is_some()));
    for s in &sources {
        if !cwd.join(s).is_dir() && !planned(s) {
            return Err(UsageError(format!(
                "source folder {} does not exist: pass --source with the folder holding lib.rs or main.rs",
                s.display()
            ))
            .into());
        }
    }
    let compile = !args.no_compile && project.as_ref().and_then(|p| p.file.crd_compile()).unwrap_or(true);
    Ok(Targets {
        sources,
        crd_dir,
        rbac_dir,
        webhook_dir,
        max_description_length: args.max_description_length,
        k8s,
        compile,
        rbac_infer,
        remove_stale: true,
        manager_namespace: project.as_ref().filter(|p| p.file.namespaced).map(|p| p.file.manager_namespace()),
        external_crds: project.as_ref().map(|p| p.file.external_crd_names()).unwrap_or_default(),
        storage_versions: project.as_ref().map(|p| p.file.storage_versions()).unwrap_or_default(),
        early_inference: project.as_ref().is_some_and(|p| p.file.resources.len() >= EARLY_INFERENCE_KINDS),
        offline: args.offline,
    })
}

/// Plans every generated manifest into `plan` (CRDs, role.yaml), removing stale CRD files. The CRDs of kinds with
/// problems are left out (and their files kept); the problems are returned. When the sources have RBAC markers,
/// also compares them with what the code needs ([`crate::rbac::drift`]): its messages join the plan's notes and the
/// drift is returned with the problems.
pub fn plan_into(plan: &mut Plan, targets: &Targets) -> Result<Problems> {
    if targets.rbac_dir.is_none() || !targets.early_inference || crate::parallel::threads() == 1 {
        return plan_manifests(plan, targets, None);
    }
    // The RBAC inference reads the sources on its own (its own syntax trees): it runs beside the CRD generator, on
    // the plan as it is now (the manifests planned below are YAML; inference reads Rust, Cargo files and PROJECT).
    // Its result is used only when the markers call for it, exactly as the sequential path would compute it.
    let snapshot = plan.clone();
    let bin = targets.rbac_infer.clone().flatten();
    std::thread::scope(|s| {
        let early = s.spawn(move || infer_in_plan(&snapshot, &targets.sources, bin.as_deref(), targets.offline));
        plan_manifests(plan, targets, Some(early))
    })
}

fn plan_manifests(plan: &mut Plan, targets: &Targets, mut early: Option<EarlyInference<'_>>) -> Result<Problems> {
    let root = plan.root.clone();
    let mut problems = Problems::default();
    // The CRD generator reads and scans the crate's files; the RBAC and webhook markers come from that scan.
    let mut sets = Vec::new();
    // The API groups the project defines, with their kinds' plurals: RBAC markers naming them are checked.
    let mut own: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = Default::default();
    let mut crds_seen: Vec<SeenCrd> = Vec::new();
    // The types attribute macros generate, with the resources their compiled CRDs name: RBAC inference knows them.
    let mut macro_types: Vec<(String, crate::builtin::Resource)> = Vec::new();
    if let Some(crd_dir) = &targets.crd_dir {
        let mut written = Vec::new();
        for src in &targets.sources {
            let set = SourceSet::new(&root.join(src))
                .with_overlay(plan.overlay())
                .with_storage_versions(targets.storage_versions.clone());
            let finish = crd::finish::Finish { max_description_length: targets.max_description_length };
            let mut generation = crd::generate_finishing(&set, targets.k8s, &finish)?;
            sets.push(set);
            let external = |name: &str| targets.external_crds.contains(name);
            generation.crds.retain(|c| !external(&c.name));
            generation.finished.retain(|c| !external(&c.name));
            generation.pending.retain(|p| !external(&p.crd.name));
            generation.problems.retain(|p| !p.crd.as_deref().is_some_and(external));
            let names = generation.crds.iter().map(|c| c.name.as_str());
            let names = names.chain(generation.finished.iter().map(|c| c.name.as_str()));
            let names = names.chain(generation.pending.iter().map(|p| p.crd.name.as_str()));
            for name in names.chain(generation.problems.iter().filter_map(|p| p.crd.as_deref())) {
                if let Some((plural, group)) = name.split_once('.') {
                    own.entry(group.to_string()).or_default().insert(plural.to_string());
                }
            }
            let mut crds = generation.crds;
            problems.found.extend(generation.problems);
            if !targets.compile {
                problems.not_compiled.extend(generation.pending);
                problems.macro_crds_unknown |= !generation.macro_kinds.is_empty();
                problems.not_expanded.extend(generation.macro_kinds);
            } else if !generation.pending.is_empty() || !generation.macro_kinds.is_empty() {
                let mut names: Vec<String> = generation.pending.iter().map(|p| p.crd.name.clone()).collect();
                names.extend(generation.macro_kinds.iter().map(|m| format!("{} (#[{}])", m.root, m.macro_path)));
                let (pending, generated) = (generation.pending, generation.macro_kinds);
                let from_macros = !generated.is_empty();
                let (skip, roots): (usize, Vec<String>) =
                    (pending.len(), generated.iter().map(|m| m.root.clone()).collect());
                match crd::fallback::compile(&root.join(src), pending, generated, &root, targets.k8s.version()) {
                    Ok(compiled) => {
                        // After the pending kinds, the macros' CRDs in the order of their kinds.
                        for (c, root) in compiled.crds.iter().skip(skip).zip(roots) {
                            macro_types.push((root, macro_resource(c)));
                        }
                        crds.extend(compiled.crds.into_iter().filter(|c| !external(&c.name)));
                        plan.notes.extend(compiled.notes);
                    }
                    Err(e) => {
                        problems.macro_crds_unknown |= from_macros;
                        problems.fallback = Some((e, names));
                    }
                }
                if from_macros {
                    // A macro's kinds are known only now: their groups, and their versions to merge.
                    for c in &crds {
                        own.entry(c.group.clone()).or_default().insert(c.plural.clone());
                    }
                    let (merged, unmerged) = crd::macro_kinds::merge_same_names(std::mem::take(&mut crds));
                    crds = merged;
                    problems.unmerged.extend(unmerged);
                }
            }
            // The CRDs not finished where they were generated are finished on every core; each file is read on
            // every core too (and let go there, not held until the last CRD is done), to tell whether it changes.
            let mut all: Vec<Result<crd::finish::FinishedCrd, crd::GeneratedCrd>> =
                generation.finished.into_iter().map(Ok).collect();
            all.extend(crds.into_iter().map(Err));
            let file_name = |c: &Result<crd::finish::FinishedCrd, crd::GeneratedCrd>| match c {
                Ok(done) => done.file_name.clone(),
                Err(generated) => generated.file_name.clone(),
            };
            all.sort_by_cached_key(file_name);
            let shared: &Plan = plan;
            let compared = crate::parallel::map(all, |crd| {
                let done = crd.unwrap_or_else(|generated| crd::finish::finish(generated, &finish));
                let path = crd_dir.join(&done.file_name);
                let modified = std::fs::metadata(root.join(&path)).and_then(|m| m.modified()).ok();
                // `Some(changed)` for a file that exists, as `Plan::write` tells.
                let old = shared.read(&path).map(|old| old.map(|old| old != done.text));
                (done, path, modified, old)
            });
            for (done, path, modified, old) in compared {
                let old = old?;
                let changed = old != Some(false);
                let crd::finish::FinishedCrd { group, kind, text, notes, .. } = done;
                plan.notes.extend(notes);
                if old.is_some() {
                    plan.overwrite(path.clone(), text);
                } else {
                    plan.create(path.clone(), text);
                }
                written.push(path.clone());
                crds_seen.push(SeenCrd { group, kind, path, changed, modified });
            }
        }
        // A kind with a problem keeps its file; when a problem belongs to no kind, no file is removed.
        if let Some(failed) = problems.failed_crds().filter(|_| targets.remove_stale) {
            let kept: Vec<PathBuf> =
                failed.iter().filter_map(|name| crd_file_of(name)).map(|f| crd_dir.join(f)).collect();
            for stale in stale_crds(&root, crd_dir, &written)? {
                if !kept.contains(&stale) {
                    plan.delete(stale);
                }
            }
        }
    }
    let samples = sample_warnings(plan, &crds_seen);
    plan.notes.extend(samples);
    let mut markers = None;
    let mut drift = None;
    if let Some(rbac_dir) = &targets.rbac_dir {
        let markers = markers.insert(scan_markers(plan, &targets.sources, &sets)?);
        let typos = crate::rbac::check::check(markers, &own);
        if !typos.is_empty() {
            return Err(crate::markers::MarkerError { diagnostics: typos, found: Vec::new() }.into());
        }
        let mut grants = markers.clone();
        if let Some(bin) = &targets.rbac_infer {
            let inference = take_inference(plan, &targets.sources, bin.as_deref(), targets.offline, &mut early)?;
            grants.extend(grants_of(plan, inference, &macro_types)?);
        } else if markers.iter().any(|m| m.name == crate::rbac::RBAC_MARKER) {
            let bound = bound_rules(plan, rbac_dir)?;
            let inference = take_inference(plan, &targets.sources, None, targets.offline, &mut early)?;
            drift = Some(rbac_drift(plan, inference, markers, &bound, &macro_types));
        }
        if !write_role(plan, rbac_dir, &grants, targets.manager_namespace.as_deref())? {
            plan.notes.push("note: no `// +kubebuilder:rbac:` markers found; role.yaml grants nothing".into());
        }
    }
    if let Some(webhook_dir) = &targets.webhook_dir {
        let markers = match markers {
            Some(m) => m,
            None => scan_markers(plan, &targets.sources, &sets)?,
        };
        plan_webhook_manifests_from(plan, webhook_dir, &markers)?;
    }
    problems.drift = drift;
    Ok(problems)
}

/// The file name of the CRD named `plural.group`.
fn crd_file_of(name: &str) -> Option<String> {
    let (plural, group) = name.split_once('.')?;
    Some(format!("{group}_{plural}.yaml"))
}

/// Plans `<dir>/manifests.yaml` from the `+kubebuilder:webhook` markers of the sources (as planned). Written even
/// without admission webhooks (a comment only), because `config/webhook/kustomization.yaml` lists it.
pub fn plan_webhook_manifests(plan: &mut Plan, dir: &Path, sources: &[PathBuf]) -> Result<()> {
    let markers = scan_markers(plan, sources, &[])?;
    plan_webhook_manifests_from(plan, dir, &markers)
}

fn plan_webhook_manifests_from(plan: &mut Plan, dir: &Path, markers: &[crate::markers::Marker]) -> Result<()> {
    let configs = crate::webhook::generate(markers)?;
    let text = if configs.is_empty() {
        "# No admission webhooks: `kubesmith make manifests` writes their configurations here from the\n\
         # `// +kubebuilder:webhook:` markers in src/ (see `kubesmith create webhook`).\n"
            .to_string()
    } else {
        crate::yaml::to_multi_doc_string(&configs)
    };
    plan.write(dir.join(WEBHOOK_FILE), text)
}

/// Every marker in the `.rs` files under the source folders, as the plan will leave them. Files the CRD
/// generator already read and scanned (`scanned`, built over the same plan) are taken from its scan.
fn scan_markers(plan: &Plan, sources: &[PathBuf], scanned: &[SourceSet]) -> Result<Vec<crate::markers::Marker>> {
    let mut markers = Vec::new();
    for src in sources {
        for rel in plan_rust_files(plan, src)? {
            let full = plan.root.join(&rel);
            if let Some(found) = scanned.iter().find_map(|set| set.take_scanned(&full)) {
                markers.extend(found.into_iter().map(|m| crate::markers::Marker { file: rel.clone(), ..m }));
                continue;
            }
            let text = plan.read_existing(&rel)?;
            markers.extend(crate::markers::scan(&rel, &text)?);
        }
    }
    Ok(markers)
}

/// The `.rs` files under `src` (relative to the plan's root) once the plan is applied: on disk or planned.
fn plan_rust_files(plan: &Plan, src: &Path) -> Result<Vec<PathBuf>> {
    let root = &plan.root;
    let mut files: std::collections::BTreeSet<PathBuf> = if root.join(src).is_dir() {
        rust_files(&root.join(src))?
            .into_iter()
            .map(|f| f.strip_prefix(root).map(Path::to_path_buf).unwrap_or(f))
            .collect()
    } else {
        Default::default()
    };
    for op in plan.ops() {
        if op.path.starts_with(src) && op.path.extension().is_some_and(|e| e == "rs") {
            if op.contents.is_some() {
                files.insert(op.path.clone());
            } else {
                files.remove(&op.path);
            }
        }
    }
    Ok(files.into_iter().collect())
}

/// The text of a CRD file: one YAML document, starting with `---` as controller-gen writes them.
pub fn crd_text(generated: &crd::GeneratedCrd) -> String {
    crd::finish::text(generated)
}

/// Plans the CRD named `name` (e.g. `memcacheds.cache.example.com`) from the project's sources as they will be
/// after the plan. A source file that does not parse is an error (the command that called this writes nothing);
/// any other reason the CRD cannot be generated is a warning: the command still does its main job.
pub fn plan_one_crd(plan: &mut Plan, name: &str) -> Result<()> {
    let set = SourceSet::new(&plan.root.join("src")).with_overlay(plan.overlay());
    let project = Project::load(&plan.root).ok();
    let k8s = project_k8s(project.as_ref()).unwrap_or_else(|_| K8sTable::default_table());
    let root = plan.root.clone();
    let shown = |e: &crd::CrdError| {
        let path = e.path.strip_prefix(&root).unwrap_or(&e.path);
        format!("{}:{}:{}: {}", path.display(), e.line, e.column, e.kind)
    };
    let generation = match crd::generate_all(&set, k8s) {
        Ok(generation) => generation,
        Err(e) => return not_generated(plan, name, &[shown(&e)]),
    };
    let syntax: Vec<String> = generation
        .problems
        .iter()
        .filter_map(|p| match &p.error.kind {
            crd::CrdErrorKind::Parse(message) => {
                let path = p.error.path.strip_prefix(&root).unwrap_or(&p.error.path);
                Some(format!("{}:{}:{}: {message}", path.display(), p.error.line, p.error.column))
            }
            _ => None,
        })
        .collect();
    if !syntax.is_empty() {
        anyhow::bail!(
            "the crate does not parse as Rust, so the CRD {name} cannot be generated; nothing was written:\n  {}\n  \
             fix the syntax error, then run the command again",
            syntax.join("\n  ")
        );
    }
    let Some(generated) = generation.crds.iter().find(|c| c.name == name) else {
        let mut why: Vec<String> = generation
            .problems
            .iter()
            .filter(|p| p.crd.as_deref().is_none_or(|crd| crd == name))
            .map(|p| shown(&p.error))
            .collect();
        for pending in generation.pending.iter().filter(|p| p.crd.name == name) {
            why.extend(pending.versions.iter().flat_map(|v| &v.because).map(shown));
        }
        return not_generated(plan, name, &why);
    };
    if let Some(warning) = crd::size::size_warning(generated) {
        plan.notes.push(warning);
    }
    plan.write(Path::new("config/crd/bases").join(&generated.file_name), crd_text(generated))
}

/// The warning of [`plan_one_crd`] when the CRD `name` is not generated, with each reason (`file:line: ...`).
fn not_generated(plan: &mut Plan, name: &str, why: &[String]) -> Result<()> {
    let why = if why.is_empty() { String::new() } else { format!(":\n  {}", why.join("\n  ")) };
    plan.notes.push(format!(
        "warning: the CRD {name} was not generated{why}\n  fix that, then run `kubesmith make manifests` \
         (config/crd/kustomization.yaml lists a file that does not exist yet)"
    ));
    Ok(())
}

/// CRD files in `dir` that this run did not produce (only files that parse as CustomResourceDefinitions).
fn stale_crds(root: &Path, dir: &Path, written: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let full = root.join(dir);
    let Ok(entries) = std::fs::read_dir(&full) else {
        return Ok(Vec::new());
    };
    let written: std::collections::HashSet<&Path> = written.iter().map(PathBuf::as_path).collect();
    let mut out = Vec::new();
    for e in entries {
        let p = e.with_context(|| format!("failed to list {}", full.display()))?.path();
        let rel = dir.join(p.file_name().unwrap_or_default());
        if p.extension().is_none_or(|x| x != "yaml") || written.contains(rel.as_path()) {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        // A CRD names its kind in its text: a file that never does is not parsed (a folder of large
        // non-CRD manifests costs a read, not a YAML parse).
        let is_crd = text.contains("CustomResourceDefinition")
            && crate::yaml::from_multi_doc_str(&text)
                .map(|docs| docs.iter().any(|d| d["kind"] == "CustomResourceDefinition"))
                .unwrap_or(false);
        if is_crd {
            out.push(rel);
        }
    }
    out.sort();
    Ok(out)
}

/// Every `.rs` file under `dir`, sorted, skipping `target/` and hidden folders.
pub fn rust_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).with_context(|| format!("failed to list {}", d.display()))? {
            let e = e.with_context(|| format!("failed to list {}", d.display()))?;
            let p = e.path();
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            // The entry's own type saves a stat per file; a symlink is followed as before.
            let is_dir = match e.file_type() {
                Ok(t) if !t.is_symlink() => t.is_dir(),
                _ => p.is_dir(),
            };
            if is_dir {
                if !name.starts_with('.') && name != "target" {
                    stack.push(p);
                }
            } else if name.ends_with(".rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The plan of `make manifests` (without `--check`) when every kind could be planned, else every problem as one
/// error: the step `kubesmith alpha generate` replays.
pub fn plan(args: &Options, cwd: &Path) -> Result<Plan> {
    let (plan, problems) = plan_with_problems(args, cwd)?;
    if problems.is_empty() { Ok(plan) } else { Err(problems.into_error(cwd)) }
}

pub(crate) fn plan_with_problems(args: &Options, cwd: &Path) -> Result<(Plan, Problems)> {
    let targets = targets(args, cwd)?;
    let mut plan = Plan::new(cwd);
    plan.outside_ok.extend([&args.crd_dir, &args.rbac_dir, &args.webhook_dir].into_iter().flatten().cloned());
    let problems = plan_into(&mut plan, &targets)?;
    // A chart recorded in PROJECT (`make helm`) follows the manifests; nothing to read or run without one.
    if problems.is_empty()
        && let Some(dir) = crate::ops::helm::recorded_in(cwd)?
    {
        crate::ops::helm::plan_into(&mut plan, &dir)?;
    }
    // So does an API reference recorded in PROJECT (`make docs`), made from the CRDs just planned.
    if problems.is_empty()
        && let Some(crd_dir) = &targets.crd_dir
        && let Some(docs) = crate::docs::recorded::recorded_in(cwd)?
    {
        crate::docs::recorded::plan_into(&mut plan, crd_dir, targets.k8s.version(), &docs)?;
    }
    Ok((plan, problems))
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    #[test]
    fn stale_crds_are_the_unwritten_yaml_files_holding_a_crd() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = Path::new("crds");
        let full = tmp.path().join(dir);
        std::fs::create_dir_all(&full).expect("mkdir");
        let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: a\n";
        std::fs::write(full.join("written.yaml"), crd).expect("write");
        std::fs::write(full.join("gone.yaml"), crd).expect("write");
        // quoted, and second in a multi-document file
        std::fs::write(full.join("multi.yaml"), "kind: ConfigMap\n---\nkind: \"CustomResourceDefinition\"\n")
            .expect("write");
        // names the kind without being one
        std::fs::write(full.join("mention.yaml"), "kind: ConfigMap\ndata:\n  note: CustomResourceDefinition\n")
            .expect("write");
        std::fs::write(full.join("kustomization.yaml"), "resources:\n- written.yaml\n").expect("write");
        std::fs::write(full.join("notes.txt"), crd).expect("write");
        std::fs::write(full.join("broken.yaml"), "kind: CustomResourceDefinition\n  : [").expect("write");
        let stale = super::stale_crds(tmp.path(), dir, &[dir.join("written.yaml")]).expect("stale");
        assert_eq!(stale, vec![PathBuf::from("crds/gone.yaml"), PathBuf::from("crds/multi.yaml")]);
    }
}
