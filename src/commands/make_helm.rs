//! `kubesmith make helm`: the chart ([`crate::ops::helm`]), then `--check`, `--dry-run` or apply.

use std::path::Path;

use anyhow::Result;

use crate::cli::MakeHelmArgs;
use crate::ops::{helm, write};

pub(crate) fn run(args: &MakeHelmArgs, cwd: &Path) -> Result<()> {
    let plan = helm::plan(args.output_dir.as_deref(), cwd)?;
    if args.check {
        return write::check(&plan, "chart", "kubesmith make helm");
    }
    write::finish(plan, args.dry_run)
}
