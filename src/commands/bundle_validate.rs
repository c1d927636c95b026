//! `kubesmith bundle validate DIR`: runs `crate::olm::validate` on a bundle folder (with `--olm-v1`,
//! `olm::validate::olm_v1`; with `--previous OLD`, `crate::olm::upgrade` against the release it upgrades) and prints
//! the findings. Errors exit 1; warnings exit 0 unless `--strict`. The files the optional validators read
//! (`index-path`, `OPERATOR_BUNDLE_CATEGORIES`) are read here.

use std::path::{Component, Path, PathBuf};

use anyhow::{Result, bail};

use crate::cli::{BundleValidateArgs, OutputFormat};
use crate::olm::bundle::BundleFiles;
use crate::olm::upgrade::{self, Release};
use crate::olm::validate::{CustomCategories, Finding, IndexFile, Level, Suites, read_custom_categories, validate};
use crate::ops::findings::{previous, report, unique};
use crate::usage::UsageError;

/// Every optional validator, in operator-sdk's order.
const OPTIONAL: &[&str] = &[
    "operatorhubv2",
    "capabilities",
    "categories",
    "operatorhub",
    "community",
    "alpha-deprecated-apis",
    "good-practices",
];
/// What `suite=operatorframework` selects.
const SUITE: &[&str] = &["operatorhubv2", "capabilities", "categories", "alpha-deprecated-apis", "good-practices"];
/// The `--optional-values` keys the validators read.
const VALUE_KEYS: &[&str] = &["k8s-version", "index-path"];
/// The environment variable naming a JSON file of custom categories (`{"categories": [...]}`).
pub const CATEGORIES_ENV: &str = "OPERATOR_BUNDLE_CATEGORIES";

/// Parses `--select-optional` (`name=X`, `suite=operatorframework`, or a bare name) and `--optional-values`.
pub fn suites(args: &BundleValidateArgs) -> Result<Suites, UsageError> {
    let mut s = Suites { k8s_version: args.k8s_version.clone(), ..Default::default() };
    for sel in &args.select_optional {
        let names: Vec<&str> = match sel.split_once('=') {
            Some(("suite", "operatorframework")) => SUITE.to_vec(),
            Some(("name", n)) => vec![n],
            None => vec![sel.as_str()],
            _ => {
                return Err(UsageError(format!(
                    "--select-optional {sel:?}: use name=<validator> ({}) or suite=operatorframework",
                    OPTIONAL.join(", ")
                )));
            }
        };
        for n in names {
            match n {
                "operatorhubv2" => s.operatorhubv2 = true,
                "capabilities" => s.capabilities = true,
                "categories" => s.categories = true,
                "operatorhub" => s.operatorhub = true,
                "community" => s.community = true,
                "alpha-deprecated-apis" => s.deprecated_apis = true,
                "good-practices" => s.good_practices = true,
                other => {
                    return Err(UsageError(format!(
                        "--select-optional: unknown validator {other:?}; known: {}",
                        OPTIONAL.join(", ")
                    )));
                }
            }
        }
    }
    for kv in &args.optional_values {
        match kv.split_once('=') {
            Some(("k8s-version", v)) => s.k8s_version = Some(v.to_string()),
            Some(("index-path", _)) => {}
            _ => {
                return Err(UsageError(format!(
                    "--optional-values {kv:?}: use KEY=VALUE with a key of {}",
                    VALUE_KEYS.join(", ")
                )));
            }
        }
    }
    Ok(s)
}

/// The `index-path` option, as the community validator finds the file (Go's `os.Stat` / `ReadFile` errors).
fn index_file(args: &BundleValidateArgs, cwd: &Path) -> Option<IndexFile> {
    let path = args.optional_values.iter().filter_map(|kv| kv.strip_prefix("index-path=")).next_back()?;
    let path = path.to_string();
    let full = cwd.join(&path);
    Some(match std::fs::metadata(&full) {
        Err(e) => IndexFile::NotFound { error: format!("stat {path}: {}", go_io_error(&e)), path },
        Ok(m) if m.is_dir() => IndexFile::Directory { path },
        Ok(_) => match std::fs::read(&full) {
            Ok(bytes) => IndexFile::Content { text: String::from_utf8_lossy(&bytes).into_owned() },
            Err(e) => IndexFile::Unreadable { error: format!("open {path}: {}", go_io_error(&e)), path },
        },
    })
}

/// `OPERATOR_BUNDLE_CATEGORIES`, read as `extractCategories` reads it (the path made absolute).
fn custom_categories(cwd: &Path) -> Option<CustomCategories> {
    let path = std::env::var(CATEGORIES_ENV).ok().filter(|p| !p.is_empty())?;
    let abs = clean(&cwd.join(&path));
    Some(match std::fs::read(&abs) {
        Err(e) => Err(format!("reading category file: open {}: {}", abs.display(), go_io_error(&e))),
        Ok(bytes) => read_custom_categories(&bytes).map_err(|e| format!("unmarshaling category file: {e}")),
    })
}

/// `filepath.Clean` of an absolute path.
fn clean(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// The text Go's `syscall.Errno` gives the usual file errors.
fn go_io_error(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        std::io::ErrorKind::IsADirectory => "is a directory".into(),
        _ => e.to_string(),
    }
}

pub fn run(args: &BundleValidateArgs, cwd: &Path) -> Result<()> {
    let mut suites = suites(args)?;
    suites.index_path = index_file(args, cwd);
    suites.custom_categories = custom_categories(cwd);
    let files = BundleFiles::load(&cwd.join(&args.dir)).map(|mut f| {
        f.root = args.dir.display().to_string();
        f
    })?;
    let mut findings = unique(validate(&files, &suites));
    findings.extend(crate::olm::examples::check(&files));
    if args.olm_v1 {
        findings.extend(crate::olm::validate::olm_v1::check(&files));
    }
    if let Some(previous) = previous(args.upgrade.previous.as_deref(), cwd)? {
        match Release::from_bundle(&files) {
            Ok(new) => findings.extend(upgrade::check(
                &new,
                &previous,
                upgrade::Options { allow_breaking: args.upgrade.allow_breaking },
            )),
            Err(e) => findings.push(Finding { level: Level::Error, message: format!("upgrade check not run: {e:#}") }),
        }
    }
    let findings = unique(findings);
    let failing = report(
        &findings,
        args.output == OutputFormat::Json,
        args.strict,
        "All validation tests have completed successfully",
        true,
    );
    if failing > 0 {
        let what = if args.strict { "error(s) or warning(s)" } else { "error(s)" };
        bail!("bundle {} failed validation: {failing} {what}", args.dir.display());
    }
    Ok(())
}
