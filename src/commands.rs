//! Dispatch from parsed arguments to the command that computes a plan, then applies or prints it.

pub(crate) mod adopt;
pub(crate) mod alpha_generate;
pub(crate) mod alpha_update;
pub(crate) mod bundle_validate;
pub(crate) mod catalog;
pub(crate) mod completion;
pub(crate) mod envtest;
pub(crate) mod helm_lint;
pub(crate) mod make_bundle;
pub(crate) mod make_docs;
pub(crate) mod make_helm;
pub(crate) mod make_manifests;
pub(crate) mod markers;
pub(crate) mod multigroup;
mod options;
pub(crate) mod rbac_infer;

use std::path::Path;

use anyhow::Result;
use clap::Parser;

use crate::cli::{
    AlphaCommand, BundleCommand, CatalogCommand, Cli, Command, CreateCommand, HelmCommand, MakeCommand, RbacCommand,
};
use crate::ops::replay::Step;
use crate::ops::write::finish;
use crate::ops::{self, create_api, create_webhook, from_crd, init};
use crate::{apply, output};

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
            let mut plan = init::plan(&options::init(&args), cwd)?;
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
                Some(file) => from_crd::plan(&options::create_api(&args), file, &invoked, cwd)?,
                None => create_api::plan(&options::create_api(&args), cwd)?,
            };
            finish(plan, args.dry_run)
        }
        Command::Create(CreateCommand::Webhook(args)) => {
            let plan = create_webhook::plan(&options::create_webhook(&args), cwd)?;
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

/// One step, the way `kubesmith` would run it in `dir` (without printing its file list and next steps).
pub(crate) fn run_step(step: &Step, origin: &Path, dir: &Path) -> Result<()> {
    let cli = Cli::try_parse_from(step.argv()).map_err(|e| {
        let message = e.to_string();
        let first = message.lines().next().unwrap_or_default().trim_start_matches("error: ").to_string();
        anyhow::anyhow!(
            "this kubesmith does not accept the command ({first}); PROJECT was written by a kubesmith that knows it: \
             replay it with that version"
        )
    })?;
    let mut plan = match cli.command {
        Command::Init(a) => ops::init::plan(&options::init(&a), dir)?,
        Command::Create(CreateCommand::Api(a)) => match &a.from_crd {
            Some(crd) => ops::from_crd::plan_replayed(&options::create_api(&a), crd, origin, dir)?,
            None => ops::create_api::plan(&options::create_api(&a), dir)?,
        },
        Command::Create(CreateCommand::Webhook(a)) => ops::create_webhook::plan(&options::create_webhook(&a), dir)?,
        Command::Make(MakeCommand::Manifests(a)) => ops::manifests::plan(&make_manifests::options(&a), dir)?,
        Command::Make(MakeCommand::Helm(a)) => ops::helm::plan(a.output_dir.as_deref(), dir)?,
        Command::Edit(a) if !a.plugins.is_empty() => ops::edit_plugins::plan(dir, &a.plugins)?,
        Command::Make(MakeCommand::Docs(a)) => ops::docs::plan(a.output.as_deref(), make_docs::format(a.format), dir)?,
        other => anyhow::bail!("{other:?} is not a command a replay runs"),
    };
    crate::rustfmt::format_plan(&mut plan)?;
    let outcome = apply::apply(&plan)?;
    for (action, path) in &outcome.changed {
        output::planned(action.verb(), path);
    }
    // Warnings matter (something differs from what the user got); next steps do not.
    for note in plan.notes.iter().filter(|n| n.starts_with("warning:") || n.contains("rustfmt")) {
        output::warn(note);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every step `alpha generate` replays parses through the real CLI ([`run_step`] parses it so), a value that looks
    /// like a flag included, and means what PROJECT recorded.
    #[test]
    fn replayed_steps_parse_as_the_cli_parses_them() {
        let text = "cliVersion: 0.1.0\ndomain: example.com\nlayout:\n- rust.kubesmith.io/v1alpha1\nplugins:\n  \
            grafana.rust.kubesmith.io/v1alpha1: {}\n  rust.kubesmith.io/v1alpha1:\n    copyrightYear: 2025\n    \
            k8sVersion: '1.35'\n    license: apache2\n    owner: -The Authors-\nprojectName: memcached-operator\n\
            repo: https://example.com/m.git\nresources:\n- api:\n    crdVersion: v1\n  controller: true\n  \
            domain: example.com\n  group: cache\n  kind: Cluster\n  path: memcached_operator::api::v1\n  \
            version: v1\nversion: '3'\n";
        let pf = crate::project::ProjectFile::parse(text, Path::new("PROJECT")).unwrap();
        let script = ops::replay::script(&pf).unwrap();
        let mut seen = Vec::new();
        for step in &script.steps {
            let cli = Cli::try_parse_from(step.argv()).unwrap_or_else(|e| panic!("{step:?}: {e}"));
            match cli.command {
                Command::Init(a) => {
                    assert_eq!(a.owner.as_deref(), Some("-The Authors-"));
                    assert_eq!((a.copyright_year, a.k8s_version.dotted()), (Some(2025), "1.35"));
                    seen.push("init");
                }
                Command::Create(CreateCommand::Api(a)) => {
                    assert!(!a.namespaced && a.controller && a.resource, "{a:?}");
                    seen.push("create api");
                }
                Command::Make(_) => seen.push("make"),
                Command::Edit(a) => {
                    assert_eq!(a.plugins, ["grafana"]);
                    seen.push("edit");
                }
                other => panic!("unexpected step {other:?}"),
            }
        }
        assert_eq!(seen.first(), Some(&"init"));
        assert_eq!(seen.last(), Some(&"edit"), "the grafana plugin is replayed last");
        assert!(seen.contains(&"create api"), "{seen:?}");
    }
}
