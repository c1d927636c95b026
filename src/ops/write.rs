//! Ends a command that planned files: applies the plan (or prints it for `--dry-run`), or, for `--check`, lists
//! what is out of date and fails; then prints the plan's notes.

use std::time::Instant;

use anyhow::Result;

use crate::output;
use crate::plan::Plan;

/// `--check` of a generating command: lists what is missing, stale or would be removed, and fails if anything is.
/// `what` names the files (`manifest`, `bundle`), `command` the command that regenerates them.
pub(crate) fn check(plan: &Plan, what: &str, command: &str) -> Result<()> {
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
pub(crate) fn finish(mut plan: Plan, dry_run: bool) -> Result<()> {
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
