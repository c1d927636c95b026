//! `kubesmith make catalog` and `kubesmith catalog validate`.

use std::path::Path;

use anyhow::{Result, bail};

use crate::cli::{CatalogValidateArgs, MakeCatalogArgs};

pub fn run_make(_args: &MakeCatalogArgs, _cwd: &Path) -> Result<()> {
    bail!("make catalog is not available yet")
}

pub fn run_validate(_args: &CatalogValidateArgs, _cwd: &Path) -> Result<()> {
    bail!("catalog validate is not available yet")
}
