//! Dispatch from parsed arguments to the command that computes a plan, then applies or prints it.

pub mod adopt;
pub mod alpha_generate;
pub mod alpha_update;
pub mod api_context;
pub mod bundle_validate;
pub mod catalog;
pub mod completion;
pub mod create_api;
pub mod create_webhook;
pub mod deploy_image;
pub mod edit_namespaced;
pub mod edit_plugins;
pub mod envtest;
pub mod foreign;
pub mod from_crd;
pub mod helm_lint;
pub mod init;
pub mod make_bundle;
pub mod make_docs;
pub mod make_helm;
pub mod make_manifests;
pub mod markers;
pub mod multigroup;
pub mod rbac_infer;
pub mod replay;
pub mod scaffold;

use std::path::Path;
use std::time::Instant;

use anyhow::Result;

use crate::cli::{
    AlphaCommand, BundleCommand, CatalogCommand, Cli, Command, CreateCommand, HelmCommand, MakeCommand, RbacCommand,
};
use crate::output;
use crate::plan::Plan;

/// An error in what the user asked for (a bad name, conflicting flags): exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

impl From<crate::names::NameError> for UsageError {
    fn from(e: crate::names::NameError) -> Self {
        UsageError(e.0)
    }
}

/// The folder a command that works on a project runs in: `cwd` when it holds PROJECT or the command names folders
/// of its own (those stay relative to `cwd`); else the nearest folder above holding PROJECT, as cargo finds
/// Cargo.toml, with a note saying so; else `cwd` (the command then says there is no project).
fn project_root(command: &Command, cwd: &Path) -> std::path::PathBuf {
    let walks = match command {
        Command::Create(_) | Command::Edit(_) | Command::Alpha(AlphaCommand::Update(_)) => true,
        Command::Make(MakeCommand::Manifests(a)) => {
            a.sources.is_empty() && a.crd_dir.is_none() && a.rbac_dir.is_none() && a.webhook_dir.is_none()
        }
        Command::Make(MakeCommand::Bundle(a)) => {
            a.upgrade.previous.is_none() && a.output_dir == Path::new(crate::cli::BUNDLE_DIR)
        }
        Command::Make(MakeCommand::Helm(a)) => a.output_dir.is_none(),
        Command::Make(MakeCommand::Docs(a)) => a.output.is_none(),
        _ => false,
    };
    if !walks || cwd.join(crate::project::PROJECT_FILE).is_file() {
        return cwd.to_path_buf();
    }
    match cwd.ancestors().skip(1).find(|d| d.join(crate::project::PROJECT_FILE).is_file()) {
        Some(root) => {
            output::info(format_args!("note: working in the project at {} (its PROJECT file)", root.display()));
            root.to_path_buf()
        }
        None => cwd.to_path_buf(),
    }
}

/// Runs one command in `cwd` (or in the project above it, see [`project_root`]).
pub fn run(cli: Cli, cwd: &Path) -> Result<()> {
    let invoked = cwd.to_path_buf();
    let root = project_root(&cli.command, cwd);
    let cwd = root.as_path();
    match cli.command {
        Command::Init(mut args) => {
            let mut inferred = None;
            if let (None, Some(crds)) = (&args.domain, &args.from_crd) {
                let domain = from_crd::domain_of(crds, &invoked)?;
                inferred = Some(format!("domain: {domain}, the one the CRDs' groups share (--domain sets another)"));
                args.domain = Some(domain);
            }
            let mut plan = init::plan(&args, cwd)?;
            plan.notes.extend(inferred);
            if let Some(crds) = &args.from_crd {
                let opts = from_crd::Options { controller: true, ..from_crd::Options::default() };
                plan = from_crd::plan_onto(&opts, crds, &invoked, plan)?;
                // init's next step is to add an API: done
                plan.notes.retain(|n| !n.starts_with("next: add an API"));
            }
            finish(plan, args.dry_run)
        }
        Command::Adopt(args) => {
            let plan = adopt::plan(&args, cwd)?;
            finish(plan, args.dry_run)
        }
        Command::Edit(args) => multigroup::run(&args, cwd),
        Command::Create(CreateCommand::Api(args)) => {
            let plan = match &args.from_crd {
                Some(file) => from_crd::plan(&args, file, &invoked, cwd)?,
                None => create_api::plan(&args, cwd)?,
            };
            finish(plan, args.dry_run)
        }
        Command::Create(CreateCommand::Webhook(args)) => {
            let plan = create_webhook::plan(&args, cwd)?;
            finish(plan, args.dry_run)
        }
        Command::Make(MakeCommand::Manifests(args)) => make_manifests::run(&args, cwd),
        Command::Make(MakeCommand::Bundle(args)) => make_bundle::run(&args, cwd),
        Command::Make(MakeCommand::Catalog(args)) => catalog::run_make(&args, cwd),
        Command::Make(MakeCommand::Helm(args)) => make_helm::run(&args, cwd),
        Command::Make(MakeCommand::Docs(args)) => make_docs::run(&args, cwd),
        Command::Helm(HelmCommand::Lint(args)) => helm_lint::run(&args, cwd),
        Command::Bundle(BundleCommand::Validate(args)) => bundle_validate::run(&args, cwd),
        Command::Catalog(CatalogCommand::Validate(args)) => catalog::run_validate(&args, cwd),
        Command::Rbac(RbacCommand::Infer(args)) => rbac_infer::run(&args, cwd),
        Command::Alpha(AlphaCommand::Generate(args)) => alpha_generate::run(&args, cwd),
        Command::Alpha(AlphaCommand::Update(args)) => alpha_update::run(&args, cwd),
        Command::Envtest(command) => envtest::run(&command, cwd),
        Command::Completion(args) => completion::run(&args),
        Command::Markers(args) => markers::run(&args),
    }
}

/// `--check` of a generating command: lists what is missing, stale or would be removed, and fails if anything is.
/// `what` names the files (`manifest`, `bundle`), `command` the command that regenerates them.
pub fn check(plan: &Plan, what: &str, command: &str) -> Result<()> {
    let ops = crate::apply::effective_ops(plan)?;
    if ops.is_empty() {
        output::info(format_args!("{what} files are up to date"));
        return Ok(());
    }
    for op in &ops {
        let state = match op.action {
            crate::plan::Action::Delete => "would be removed",
            _ if plan.root.join(&op.path).exists() => "stale",
            _ => "missing",
        };
        output::info(format_args!("{state}: {}", op.path.display()));
    }
    anyhow::bail!("{} {what} file(s) out of date: run `{command}` and commit the result", ops.len())
}

/// Applies the plan (or prints it for `--dry-run`) and prints the notes; `-v` adds every planned operation and
/// the time planning, formatting and writing took.
pub fn finish(mut plan: Plan, dry_run: bool) -> Result<()> {
    output::detail(format_args!("planned {} operation(s) in {}", plan.ops().len(), output::millis(output::elapsed())));
    let started = Instant::now();
    crate::rustfmt::format_plan(&mut plan)?;
    output::detail(format_args!("formatted the Rust files in {}", output::millis(started.elapsed())));
    for op in plan.ops() {
        output::planned(op.action.verb(), &op.path);
    }
    let started = Instant::now();
    if dry_run {
        crate::apply::confine(&plan)?;
        let ops = crate::apply::effective_ops(&plan)?;
        output::info(format_args!("dry run: {} file(s) would change, nothing was written", ops.len()));
        for op in ops {
            output::info(format_args!("  {}", Plan::describe(op)));
        }
    } else {
        let outcome = crate::apply::apply(&plan)?;
        for (action, path) in &outcome.changed {
            output::change(action.verb(), path);
        }
        if outcome.changed.is_empty() {
            output::info("everything is up to date: no file changed");
        }
        output::detail(format_args!(
            "wrote {} file(s) ({} unchanged) in {}; {} in all",
            outcome.changed.len(),
            outcome.unchanged,
            output::millis(started.elapsed()),
            output::millis(output::elapsed())
        ));
    }
    for note in &plan.notes {
        output::info(note);
    }
    Ok(())
}
