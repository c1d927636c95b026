//! `kubesmith make catalog` (a file-based catalog for one package from bundle folders, plus
//! `<dir>.Dockerfile`) and `kubesmith catalog validate` (opm's rules, the upgrade graph, the CRD upgrade rules
//! along its edges, and with `--resolve` the bundles' dependencies).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::cli::{CatalogValidateArgs, GraphFormat, MakeCatalogArgs, OutputFormat};
use crate::olm::bundle::BundleFiles;
use crate::olm::catalog;
use crate::olm::validate::{Level, Suites};
use crate::plan::Plan;
use crate::usage::UsageError;

/// Plans the catalog.
pub fn plan(args: &MakeCatalogArgs, cwd: &Path) -> Result<Plan> {
    let mut rendered = Vec::new();
    for spec in &args.bundles {
        let (dir, image) = match spec.split_once('=') {
            Some((d, i)) => (d.to_string(), Some(i.to_string())),
            None => (spec.clone(), None),
        };
        if dir.is_empty() {
            return Err(
                UsageError(format!("--bundle {spec:?}: give the bundle folder, e.g. --bundle bundle=IMAGE")).into()
            );
        }
        let mut files = BundleFiles::load(&cwd.join(&dir))?;
        files.root = dir.clone();
        let errors: Vec<String> = crate::olm::validate::validate(&files, &Suites::default())
            .into_iter()
            .filter(|f| f.level == Level::Error)
            .map(|f| f.to_string())
            .collect();
        if !errors.is_empty() {
            bail!("bundle {dir} is not valid (run `kubesmith bundle validate {dir}`):\n  {}", errors.join("\n  "));
        }
        // The version is known only after reading the CSV, so render once to resolve `{version}`.
        let probe = catalog::render_bundle(&files, "")?;
        let image = match (image, &args.bundle_image) {
            (Some(i), _) => i,
            (None, Some(t)) => t.replace("{version}", &probe.version.to_string()),
            (None, None) => {
                return Err(UsageError(format!(
                    "--bundle {dir}: no bundle image; pass --bundle {dir}=REGISTRY/IMG:TAG or --bundle-image with {{version}}"
                ))
                .into());
            }
        };
        if let Err(e) = crate::olm::validate::check_image(&image) {
            return Err(UsageError(format!("bundle image {image:?} of {dir}: {e}")).into());
        }
        rendered.push(catalog::render_bundle(&files, &image)?);
    }
    let docs = catalog::package_documents(&rendered, args.default_channel.as_deref())?;
    let (packages, findings) = catalog::validate(&docs);
    let errors: Vec<String> = findings.iter().map(|f| f.message.clone()).collect();
    if !errors.is_empty() {
        bail!("the catalog would not pass `opm validate`:\n  {}", errors.join("\n  "));
    }
    let package = &rendered[0].package;
    let out = &args.output_dir;
    let mut plan = Plan::new(cwd);
    if out != Path::new(crate::cli::CATALOG_DIR) {
        plan.outside_ok.push(out.clone());
    }
    let file = out.join(package).join("catalog.yaml");
    plan.write(&file, crate::yaml::to_multi_doc_string(&docs))?;
    if let Ok(entries) = std::fs::read_dir(cwd.join(out).join(package)) {
        let mut stale: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_file())
            .map(|e| out.join(package).join(e.file_name()))
            .filter(|p| p != &file)
            .collect();
        stale.sort();
        for p in stale {
            plan.delete(p);
        }
    }
    let shown = out.to_string_lossy().trim_end_matches('/').to_string();
    plan.write(format!("{shown}.Dockerfile"), catalog::dockerfile(&shown, &args.base_image))?;
    plan.notes.push(catalog::graph_text(&packages).trim_end().to_string());
    Ok(plan)
}

pub fn run_make(args: &MakeCatalogArgs, cwd: &Path) -> Result<()> {
    let plan = plan(args, cwd)?;
    if args.check {
        return crate::ops::write::check(&plan, "catalog", "kubesmith make catalog");
    }
    crate::ops::write::finish(plan, args.dry_run)
}

/// A `--with` catalog: a folder of catalog files, or one file.
fn load_catalog(path: &Path) -> Result<Vec<serde_json::Value>> {
    if path.is_file() {
        let text = std::fs::read_to_string(path).with_context(|| format!("failed to read {}", path.display()))?;
        return crate::yaml::from_multi_doc_str(&text)
            .with_context(|| format!("{} is not valid YAML/JSON", path.display()));
    }
    catalog::load_dir(path).with_context(|| format!("--with {}", path.display()))
}

pub fn run_validate(args: &CatalogValidateArgs, cwd: &Path) -> Result<()> {
    let docs = catalog::load_dir(&cwd.join(&args.dir))?;
    let (packages, mut findings) = catalog::validate(&docs);
    let opts = crate::olm::upgrade::Options { allow_breaking: args.allow_breaking };
    findings.extend(crate::olm::upgrade::check_catalog(&packages, opts));
    if args.resolve {
        let mut with = Vec::new();
        for w in &args.with {
            with.extend(load_catalog(&cwd.join(w))?);
        }
        findings.extend(crate::olm::dependencies::resolve(&docs, &with));
    }
    if args.output == OutputFormat::Text && findings.iter().all(|f| f.level != Level::Error) {
        match args.graph {
            GraphFormat::Text => print!("{}", catalog::graph_text(&packages)),
            GraphFormat::Mermaid => print!("{}", catalog::graph_mermaid(&packages)),
            GraphFormat::None => {}
        }
    }
    let failing =
        crate::ops::findings::report(&findings, args.output == OutputFormat::Json, false, "catalog is valid", false);
    if failing > 0 {
        bail!("catalog {} is invalid: {failing} error(s)", args.dir.display());
    }
    Ok(())
}
