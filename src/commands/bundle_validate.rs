//! `kubesmith bundle validate DIR`: runs `crate::olm::validate` on a bundle folder (with `--olm-v1`,
//! `olm::validate::olm_v1`; with `--previous OLD`, `crate::olm::upgrade` against the release it upgrades) and prints
//! the findings. Errors exit 1; warnings exit 0 unless `--strict`. The files the optional validators read
//! (`index-path`, `OPERATOR_BUNDLE_CATEGORIES`) are read here.

use std::path::{Component, Path, PathBuf};

use anyhow::{Result, bail};
use serde_json::json;

use crate::cli::{BundleValidateArgs, OutputFormat, UpgradeArgs};
use crate::commands::UsageError;
use crate::olm::bundle::BundleFiles;
use crate::olm::upgrade::{self, Previous, Release};
use crate::olm::validate::{CustomCategories, Finding, IndexFile, Level, Suites, read_custom_categories, validate};

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
            Ok(bytes) => IndexFile::Content { text: String::from_utf8_lossy(&bytes).into_owned(), path },
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

/// Prints the findings; returns how many errors (and warnings, with `strict`) count as failures. In JSON, with
/// `levelled`, each message carries its level as operator-sdk's `json-alpha1` does (`Error: …`).
pub fn report(findings: &[Finding], format: OutputFormat, strict: bool, success: &str, levelled: bool) -> usize {
    let failing = findings.iter().filter(|f| f.level == Level::Error || strict).count();
    match format {
        OutputFormat::Json => {
            let outputs: Vec<_> = findings
                .iter()
                .map(|f| {
                    let message = if levelled { f.to_string() } else { f.message.clone() };
                    json!({"type": if f.level == Level::Error { "error" } else { "warning" }, "message": message})
                })
                .collect();
            let doc = json!({"passed": failing == 0, "outputs": outputs});
            println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        }
        OutputFormat::Text => {
            for f in findings {
                println!("{f}");
            }
            for hint in hints(findings) {
                println!("{hint}");
            }
            if failing == 0 {
                println!("{success}");
            }
        }
    }
    failing
}

/// Each finding once, in the order first found (operator-framework's validators repeat some).
pub fn unique(findings: Vec<Finding>) -> Vec<Finding> {
    let mut seen = std::collections::HashSet::new();
    findings.into_iter().filter(|f| seen.insert((f.level == Level::Error, f.message.clone()))).collect()
}

/// What to do about the findings whose words stay operator-framework's: the file to edit, or that there is
/// nothing to do.
fn hints(findings: &[Finding]) -> Vec<String> {
    // `(memcached-operator.v0.1.0) ...`: the package names the base CSV.
    let base = |m: &str| {
        let csv = m.strip_prefix("Value : (").or_else(|| m.strip_prefix("Value ")).unwrap_or(m);
        let package = csv.split(".v").next().unwrap_or_default().trim_start_matches('(');
        format!("config/manifests/bases/{package}.clusterserviceversion.yaml")
    };
    let mut out = Vec::new();
    let mut said = std::collections::HashSet::new();
    for f in findings {
        let m = f.message.as_str();
        let hint = if m.contains("csv.Spec.Icon") {
            format!("hint: give spec.icon a base64data and a mediatype (image/svg+xml, image/png, ..) in {}", base(m))
        } else if m.contains("csv.Spec.minKubeVersion is not informed") {
            format!(
                "hint: set spec.minKubeVersion in {} (make bundle sets it from PROJECT's k8sVersion when the base has \
                 none)",
                base(m)
            )
        } else if m.contains("deprecated and removed") && m.contains("for events:") && m.contains("Permissions") {
            "note: nothing to do about the events rule: RBAC rules name no API version, and the one kube's Recorder \
             uses (events.k8s.io/v1) is served; operator-framework's check cannot tell it from the removed v1beta1"
                .to_string()
        } else if m.contains("are not following the recommended naming convention") {
            "hint: OLM's recommended channels are candidate, fast and stable (`kubesmith make bundle --channels \
             stable --default-channel stable`); alpha, the scaffold's, is fine while the operator is young"
                .to_string()
        } else {
            continue;
        };
        if said.insert(hint.clone()) {
            out.push(hint);
        }
    }
    out
}

/// The release given with `--previous`, read relative to `cwd`.
pub fn previous(args: &UpgradeArgs, cwd: &Path) -> Result<Option<Previous>> {
    let Some(path) = &args.previous else {
        return Ok(None);
    };
    Ok(Some(Previous::load(&cwd.join(path), &path.display().to_string())?))
}

pub fn options(args: &UpgradeArgs) -> upgrade::Options {
    upgrade::Options { allow_breaking: args.allow_breaking }
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
    if let Some(previous) = previous(&args.upgrade, cwd)? {
        match Release::from_bundle(&files) {
            Ok(new) => findings.extend(upgrade::check(&new, &previous, options(&args.upgrade))),
            Err(e) => findings.push(Finding { level: Level::Error, message: format!("upgrade check not run: {e:#}") }),
        }
    }
    let findings = unique(findings);
    let failing = report(&findings, args.output, args.strict, "All validation tests have completed successfully", true);
    if failing > 0 {
        let what = if args.strict { "error(s) or warning(s)" } else { "error(s)" };
        bail!("bundle {} failed validation: {failing} {what}", args.dir.display());
    }
    Ok(())
}
