//! `kubesmith edit --multigroup`: plans the move of a single-group project to the multigroup layout — its
//! modules below `<group>`, the module paths its code names, role files and names, PROJECT — as one plan.

mod rewrite;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::cli::EditArgs;
use crate::edit::{self, Lang};
use crate::names::{self, ModuleName};
use crate::ops::create_webhook::markers as webhook_markers;
use crate::ops::scaffold::api_markers;
use crate::plan::Plan;
use crate::project::{PROJECT_FILE, Project};
use crate::render;
use crate::usage::UsageError;

use rewrite::{Renames, replace_word, rewrite_paths, rewrite_webhook_registrations};

/// The first line of `src/api.rs` as `init` writes it in each layout.
const API_DOC_SINGLE: &str = "//! The APIs (custom resource types) served by this operator, one module per version.";
const API_DOC_MULTI: &str = "//! The APIs (custom resource types) served by this operator, one module per group.";
/// Folders whose Rust files may name the moved modules.
const RUST_DIRS: [&str; 4] = ["src", "tests", "examples", "benches"];
/// The per-kind roles `create api` writes.
const ROLES: [&str; 3] = ["admin", "editor", "viewer"];

/// Runs `kubesmith edit`.
pub fn run(args: &EditArgs, cwd: &Path) -> Result<()> {
    if !args.plugins.is_empty() {
        return crate::ops::write::finish(crate::ops::edit_plugins::plan(cwd, &args.plugins)?, args.dry_run);
    }
    if let Some(namespaced) = args.namespaced {
        return crate::ops::write::finish(crate::ops::edit_namespaced::plan(cwd, namespaced)?, args.dry_run);
    }
    match args.multigroup {
        None => Err(UsageError(
            "nothing to edit: pass --multigroup to move the project to the multigroup layout, --namespaced to \
             make its manager namespace-scoped, or --plugins grafana to add Grafana dashboards"
                .into(),
        )
        .into()),
        Some(false) => Err(UsageError(
            "--multigroup=false is not supported: kubesmith moves a single-group project to the multigroup layout, \
             not back; restore the single-group layout from version control"
                .into(),
        )
        .into()),
        Some(true) => crate::ops::write::finish(plan(cwd)?, args.dry_run),
    }
}

/// One file that moves, and what changes in it on the way.
struct Move {
    from: PathBuf,
    to: PathBuf,
    /// Whole-word replacements (a test's name, a role's name, a controller's name).
    words: Vec<(String, String)>,
}

/// Plans the move to the multigroup layout.
pub fn plan(cwd: &Path) -> Result<Plan> {
    let project = Project::load(cwd)?;
    let pf = &project.file;
    if pf.adopted() {
        anyhow::bail!(
            "{PROJECT_FILE}: this project was adopted (`kubesmith adopt`): its sources keep their own layout, which \
             `kubesmith edit --multigroup` does not move; lay the modules out as you like, `kubesmith make manifests` \
             reads them wherever they are"
        );
    }
    if pf.multigroup {
        anyhow::bail!(
            "{PROJECT_FILE}: the project is already multigroup (`multigroup: true`, APIs in src/api/<group>/<version>); \
             nothing to do"
        );
    }
    if let Some(f) = pf.resources.iter().find(|r| r.is_foreign()) {
        anyhow::bail!(
            "{PROJECT_FILE}: the project has a controller or webhooks for {} {}/{}, a type it does not define; \
             `kubesmith edit --multigroup` moves only the project's own APIs: remove that entry from PROJECT (keep its \
             files), run `kubesmith edit --multigroup`, then move its modules below their group by hand",
            f.kind,
            f.group,
            f.version
        );
    }
    let group = match pf.resources.first() {
        Some(r) => r.group.clone(),
        None => String::new(),
    };
    if let Some(other) = pf.resources.iter().find(|r| !r.group.eq_ignore_ascii_case(&group)) {
        anyhow::bail!(
            "{PROJECT_FILE}: a single-group project with resources of groups `{group}` and `{}`; fix PROJECT so every \
             resource has the group its code uses, then run `kubesmith edit --multigroup` again",
            other.group
        );
    }
    let group_mod = names::module_name(if group.is_empty() { &pf.domain } else { &group });

    let mut versions: Vec<ModuleName> = Vec::new();
    let mut webhook_versions: Vec<ModuleName> = Vec::new();
    let mut controllers: Vec<(String, ModuleName)> = Vec::new();
    let mut kinds_with_api: Vec<String> = Vec::new();
    let mut webhook_kinds: Vec<(ModuleName, ModuleName)> = Vec::new();
    for r in &pf.resources {
        let v = names::module_name(&r.version);
        let k = names::module_name(&r.kind);
        if !versions.iter().any(|x| x.ident == v.ident) {
            versions.push(v.clone());
        }
        if r.api.is_some() && !kinds_with_api.contains(&r.kind) {
            kinds_with_api.push(r.kind.clone());
        }
        if r.controller && !controllers.iter().any(|(kind, _)| kind == &r.kind) {
            controllers.push((r.kind.clone(), k.clone()));
        }
        if r.webhooks.is_some() {
            if !webhook_versions.iter().any(|x| x.ident == v.ident) {
                webhook_versions.push(v.clone());
            }
            webhook_kinds.push((v, k));
        }
    }
    let renames = Renames {
        crate_name: project.crate_name(),
        group: group_mod.ident.clone(),
        versions: versions.iter().map(|v| v.ident.clone()).collect(),
        controllers: controllers.iter().map(|(_, k)| k.ident.clone()).collect(),
    };

    let moves = moves(cwd, &group, &group_mod, &versions, &controllers, &kinds_with_api, &webhook_kinds)?;
    let mut plan = Plan::new(cwd);
    let mut rust_originals: Vec<(PathBuf, String)> = Vec::new();
    for m in &moves {
        let original = std::fs::read_to_string(cwd.join(&m.from))
            .with_context(|| format!("failed to read {}", m.from.display()))?;
        let mut text = original.clone();
        for (old, new) in &m.words {
            text = replace_word(&text, old, new);
        }
        if is_rust(&m.to) {
            text = rewrite_paths(&text, &renames);
            edit::check(&m.to, &text, Lang::Rust)?;
            rust_originals.push((m.to.clone(), original));
        }
        plan.create(&m.to, text);
        plan.delete(&m.from);
    }

    for path in rust_files(cwd)? {
        if moves.iter().any(|m| m.from == path) {
            continue;
        }
        let original =
            std::fs::read_to_string(cwd.join(&path)).with_context(|| format!("failed to read {}", path.display()))?;
        let mut text = rewrite_paths(&original, &renames);
        if path == Path::new("src/api.rs") {
            text = text.replacen(API_DOC_SINGLE, API_DOC_MULTI, 1);
            text = regroup_modules(&path, &text, &renames.versions, &group_mod, api_markers::API_MODULES)?;
        } else if path == Path::new("src/controller.rs") {
            text = regroup_modules(&path, &text, &renames.controllers, &group_mod, api_markers::CONTROLLER_MODULES)?;
        } else if path == Path::new("src/webhook.rs") {
            let idents: Vec<String> = webhook_versions.iter().map(|v| v.ident.clone()).collect();
            text = rewrite_webhook_registrations(&text, &renames);
            text = regroup_modules(&path, &text, &idents, &group_mod, webhook_markers::WEBHOOK_MODULES)?;
        }
        if text != original {
            edit::check(&path, &text, Lang::Rust)?;
            plan.edit(&path, text);
            rust_originals.push((path, original));
        }
    }

    let ctx = serde_json::json!({ "qualified_group": names::qualified_group(&group, &pf.domain) });
    let group_files = [
        ("api", "api/src/api/group.rs.hbs", api_markers::API_VERSIONS, &versions),
        ("webhook", "webhook/src/webhook/group.rs.hbs", webhook_markers::WEBHOOK_VERSIONS, &webhook_versions),
    ];
    for (root, template, marker, children) in group_files {
        if !children.is_empty() {
            let lines: Vec<String> = children.iter().map(|c| format!("pub mod {};", c.ident)).collect();
            plan_group_file(&mut plan, root, &group_mod, template, marker, &lines, &ctx)?;
        }
    }
    if !controllers.is_empty() {
        let lines: Vec<String> = controllers.iter().map(|(_, k)| format!("pub mod {};", k.ident)).collect();
        let template = "api/src/controller/group.rs.hbs";
        plan_group_file(&mut plan, "controller", &group_mod, template, api_markers::CONTROLLER_MODULES, &lines, &ctx)?;
    }

    plan_rbac_kustomization(&mut plan, &moves)?;

    let mut file = pf.clone();
    file.multigroup = true;
    for r in &mut file.resources {
        r.path = rewrite_paths(&r.path, &renames);
    }
    plan.edit(PROJECT_FILE, file.to_yaml());

    keep_unformatted_user_code(&mut plan, &rust_originals);
    plan.notes.push(format!(
        "the project is multigroup: APIs in src/api/{g}/, controllers in src/controller/{g}/, webhooks in \
         src/webhook/{g}/; the controllers' names in logs and metrics and the per-kind roles now start with `{group}-`; \
         run `kubesmith make manifests` and `cargo test`",
        g = group_mod.file
    ));
    Ok(plan)
}

/// Every file that moves, refused when its new place is taken.
fn moves(
    cwd: &Path,
    group: &str,
    group_mod: &ModuleName,
    versions: &[ModuleName],
    controllers: &[(String, ModuleName)],
    kinds_with_api: &[String],
    webhook_kinds: &[(ModuleName, ModuleName)],
) -> Result<Vec<Move>> {
    let mut out = Vec::new();
    let mut module = |root: &str, name: &str, words: Vec<(String, String)>| -> Result<()> {
        let (old, new) = (Path::new("src").join(root), Path::new("src").join(root).join(&group_mod.file));
        let file = format!("{name}.rs");
        if cwd.join(&old).join(&file).is_file() {
            out.push(Move { from: old.join(&file), to: new.join(&file), words: words.clone() });
        }
        for from in files_under(cwd, &old.join(name))? {
            let to = new.join(from.strip_prefix(&old).unwrap_or(&from));
            out.push(Move { from, to, words: words.clone() });
        }
        Ok(())
    };
    for v in versions {
        module("api", &v.file, Vec::new())?;
        module("webhook", &v.file, Vec::new())?;
    }
    for (kind, k) in controllers {
        let old = format!("pub const CONTROLLER_NAME: &str = \"{}\";", kind.to_ascii_lowercase());
        let new = format!("pub const CONTROLLER_NAME: &str = \"{}\";", role_prefix(group, kind));
        module("controller", &k.file, vec![(old, new)])?;
    }
    for (v, k) in webhook_kinds {
        let kind = k.file.trim_end_matches('_');
        let old = format!("webhook_{}_{kind}", v.file);
        let new = format!("webhook_{}_{}_{kind}", group_mod.file, v.file);
        let from = PathBuf::from(format!("tests/{old}.rs"));
        if cwd.join(&from).is_file() {
            out.push(Move { from, to: PathBuf::from(format!("tests/{new}.rs")), words: vec![(old, new)] });
        }
    }
    for kind in kinds_with_api {
        let (old, new) = (kind.to_ascii_lowercase(), role_prefix(group, kind));
        for role in ROLES {
            let from = PathBuf::from(format!("config/rbac/{}_{role}_role.yaml", old.replace('-', "_")));
            if cwd.join(&from).is_file() {
                let to = PathBuf::from(format!("config/rbac/{}_{role}_role.yaml", new.replace('-', "_")));
                let words = vec![(format!("name: {old}-{role}-role"), format!("name: {new}-{role}-role"))];
                out.push(Move { from, to, words });
            }
        }
    }
    for m in &out {
        if cwd.join(&m.to).exists() {
            anyhow::bail!(
                "{} already exists: moving {} there would overwrite it; move it away (or remove it), then run \
                 `kubesmith edit --multigroup` again",
                m.to.display(),
                m.from.display()
            );
        }
    }
    Ok(out)
}

/// The role names of a kind in a multigroup project (`cache-memcached`), as `create api` writes them.
fn role_prefix(group: &str, kind: &str) -> String {
    format!("{group}-{}", kind.to_ascii_lowercase())
}

/// Replaces the `pub mod <child>;` lines of a layout root module by one `pub mod <group>;` at its marker.
fn regroup_modules(path: &Path, text: &str, children: &[String], group: &ModuleName, marker: &str) -> Result<String> {
    let declares = |line: &str| children.iter().any(|c| line.trim() == format!("pub mod {c};"));
    if !text.lines().any(declares) {
        return Ok(text.to_string());
    }
    let kept: String = text.split_inclusive('\n').filter(|l| !declares(l)).collect();
    edit::insert_lines_before_marker(path, &kept, marker, &[format!("pub mod {};", group.ident)], Lang::Rust)
}

/// The group module below `src/<root>` (`src/api/cache.rs`), declaring `lines`; refused when it exists.
fn plan_group_file(
    plan: &mut Plan,
    root: &str,
    group: &ModuleName,
    template: &str,
    marker: &str,
    lines: &[String],
    ctx: &serde_json::Value,
) -> Result<()> {
    let path = Path::new("src").join(root).join(format!("{}.rs", group.file));
    if plan.root.join(&path).exists() {
        anyhow::bail!(
            "{} already exists: the multigroup layout puts the `{}` group module there; move it away (or remove it), \
             then run `kubesmith edit --multigroup` again",
            path.display(),
            group.ident
        );
    }
    let text = render::render(template, ctx)?;
    plan.create(&path, edit::insert_lines_before_marker(&path, &text, marker, lines, Lang::Rust)?);
    Ok(())
}

/// The renamed role files in `config/rbac/kustomization.yaml`.
fn plan_rbac_kustomization(plan: &mut Plan, moves: &[Move]) -> Result<()> {
    let path = Path::new("config/rbac/kustomization.yaml");
    let Some(original) = plan.read(path)? else { return Ok(()) };
    let mut text = original.clone();
    for m in moves.iter().filter(|m| m.from.starts_with("config/rbac")) {
        let (old, new) = (crate::ops::scaffold::file_name(&m.from), crate::ops::scaffold::file_name(&m.to));
        text = text
            .split_inclusive('\n')
            .map(|l| if l.trim_end() == format!("- {old}") { l.replacen(&old, &new, 1) } else { l.to_string() })
            .collect();
    }
    if text != original {
        edit::check(path, &text, Lang::Yaml)?;
        plan.edit(path, text);
    }
    Ok(())
}

/// Rust files of the user's that were not `rustfmt`-clean stay as they are, but for the rewritten paths.
fn keep_unformatted_user_code(plan: &mut Plan, originals: &[(PathBuf, String)]) {
    let texts: Vec<&str> = originals.iter().map(|(_, original)| original.as_str()).collect();
    // One rustfmt run for all of them; without rustfmt none counts as clean (format_plan then notes it).
    let formatted = crate::rustfmt::format_all(&texts).unwrap_or_default();
    for (n, (path, original)) in originals.iter().enumerate() {
        if formatted.get(n).and_then(|r| r.as_ref().ok()) != Some(original) {
            plan.verbatim.insert(path.clone());
        }
    }
}

fn is_rust(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "rs")
}

/// Every file under `cwd/dir`, relative to `cwd`, sorted; none when the folder does not exist.
fn files_under(cwd: &Path, dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = match std::fs::read_dir(cwd.join(&d)) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).with_context(|| format!("failed to read folder {}", d.display())),
        };
        for entry in entries {
            let entry = entry.with_context(|| format!("failed to read folder {}", d.display()))?;
            let rel = d.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                stack.push(rel);
            } else {
                out.push(rel);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The Rust files of the crate's usual folders.
fn rust_files(cwd: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for dir in RUST_DIRS {
        out.extend(files_under(cwd, Path::new(dir))?.into_iter().filter(|p| is_rust(p)));
    }
    Ok(out)
}
