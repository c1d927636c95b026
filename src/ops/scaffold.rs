//! Plan-building helpers shared by the scaffolding commands: marker insertions, toggles, module names.

use std::path::Path;

use anyhow::Result;

use crate::edit::{self, Lang};
use crate::names::{self, ModuleName};
use crate::plan::Plan;

/// Marker lines in scaffolded files where `create api` inserts lines.
pub(crate) mod api_markers {
    pub const API_MODULES: &str = "// +kubesmith:scaffold:api-modules";
    pub const API_VERSIONS: &str = "// +kubesmith:scaffold:api-versions";
    pub const API_KINDS: &str = "// +kubesmith:scaffold:api-kinds";
    pub const CONTROLLER_MODULES: &str = "// +kubesmith:scaffold:controller-modules";
    pub const CONTROLLERS: &str = "// +kubesmith:scaffold:controllers";
    /// Where `tests/envtest/main.rs` declares each kind's control-plane tests.
    pub const ENVTEST_MODULES: &str = "// +kubesmith:scaffold:envtest-modules";
    pub const CRD_RESOURCES: &str = "# +kubesmith:scaffold:crd-resources";
    pub const RBAC_KIND_ROLES: &str = "# +kubesmith:scaffold:rbac-kind-roles";
    pub const SAMPLES: &str = "# +kubesmith:scaffold:samples";
}

/// Inserts Rust lines before `marker` in `path` (as planned so far), re-parsing the result.
pub fn insert_rust(plan: &mut Plan, path: &Path, marker: &str, lines: &[String]) -> Result<()> {
    let text = plan.read_existing(path)?;
    let new = edit::insert_lines_before_marker(path, &text, marker, lines, Lang::Rust)?;
    if new != text {
        plan.edit(path, new);
    }
    Ok(())
}

/// Inserts one YAML line before `marker` in `path`, re-parsing the result.
pub fn insert_yaml(plan: &mut Plan, path: &str, marker: &str, line: &str) -> Result<()> {
    let path = Path::new(path);
    let text = plan.read_existing(path)?;
    let new = edit::insert_before_marker(path, &text, marker, line, Lang::Yaml)?;
    if new != text {
        plan.edit(path, new);
    }
    Ok(())
}

/// Inserts a YAML block (kept verbatim) before `marker` in `path`, once.
pub fn insert_yaml_block(plan: &mut Plan, path: &str, marker: &str, block: &str) -> Result<()> {
    let path = Path::new(path);
    let text = plan.read_existing(path)?;
    let new = edit::insert_block_before_marker(path, &text, marker, block, Lang::Yaml)?;
    if new != text {
        plan.edit(path, new);
    }
    Ok(())
}

/// Enables the commented YAML blocks tagged `tag` in `path`.
pub fn enable(plan: &mut Plan, path: &str, tag: &str) -> Result<()> {
    let path = Path::new(path);
    let text = plan.read_existing(path)?;
    let new = edit::uncomment_blocks(path, &text, tag, Lang::Yaml)?;
    if new != text {
        plan.edit(path, new);
    }
    Ok(())
}

/// Writes a scaffolded file: created when absent; replaced only with `force`; otherwise an existing file is an
/// error at apply time (a `Create` over an existing file).
pub fn scaffold_file(plan: &mut Plan, path: &Path, contents: String, force: bool) {
    if force && plan.exists(path) {
        plan.overwrite(path, contents);
    } else {
        plan.create(path, contents);
    }
}

/// Writes a file only if it does not exist yet (shared files such as `config/webhook/service.yaml`).
pub fn create_if_missing(plan: &mut Plan, path: &Path, contents: impl FnOnce() -> Result<String>) -> Result<()> {
    if !plan.exists(path) {
        plan.create(path, contents()?);
    }
    Ok(())
}

/// The file name of a path, for kustomization entries.
pub fn file_name(p: &Path) -> String {
    p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// Rust module names of one kind's group, version and kind, and where its modules live.
#[derive(Debug, Clone)]
pub struct KindModules {
    pub group: ModuleName,
    pub version: ModuleName,
    pub kind: ModuleName,
    pub multigroup: bool,
}

impl KindModules {
    pub fn new(multigroup: bool, group: &str, domain: &str, version: &str, kind: &str) -> Self {
        KindModules {
            group: names::module_name(if group.is_empty() { domain } else { group }),
            version: names::module_name(version),
            kind: names::module_name(kind),
            multigroup,
        }
    }

    /// Module path of the version below `root` (`api::v1alpha1`, or `api::cache::v1alpha1` when multigroup).
    pub fn version_path(&self, root: &str) -> String {
        if self.multigroup {
            format!("{root}::{}::{}", self.group.ident, self.version.ident)
        } else {
            format!("{root}::{}", self.version.ident)
        }
    }

    /// Folder of the version's modules below `src/<root>` (`src/api/v1alpha1`, `src/api/cache/v1alpha1`).
    pub fn version_dir(&self, root: &str) -> std::path::PathBuf {
        if self.multigroup {
            Path::new("src").join(root).join(&self.group.file).join(&self.version.file)
        } else {
            Path::new("src").join(root).join(&self.version.file)
        }
    }

    /// The file declaring the version module (`src/api/v1alpha1.rs`, `src/api/cache/v1alpha1.rs`).
    pub fn version_file(&self, root: &str) -> std::path::PathBuf {
        self.version_dir(root).with_extension("rs")
    }

    /// Multigroup only: the group module file (`src/api/cache.rs`).
    pub fn group_file(&self, root: &str) -> Option<std::path::PathBuf> {
        self.multigroup.then(|| Path::new("src").join(root).join(format!("{}.rs", self.group.file)))
    }
}
