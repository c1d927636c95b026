//! `kubesmith bundle validate DIR`: runs `crate::olm::validate` on a bundle folder (and, with `--previous OLD`,
//! `crate::olm::upgrade` against the release it upgrades) and prints the findings.
//! Errors exit 1; warnings exit 0 unless `--strict`.

use std::path::Path;

use anyhow::{Result, bail};
use serde_json::json;

use crate::cli::{BundleValidateArgs, OutputFormat, UpgradeArgs};
use crate::commands::UsageError;
use crate::olm::bundle::BundleFiles;
use crate::olm::upgrade::{self, Previous, Release};
use crate::olm::validate::{Finding, Level, Suites, validate};

const OPTIONAL: &[&str] = &["operatorhub", "good-practices", "alpha-deprecated-apis"];

/// Parses `--select-optional` values (`name=X`, `suite=operatorframework`, or a bare name).
pub fn suites(args: &BundleValidateArgs) -> Result<Suites, UsageError> {
    let mut s = Suites { k8s_version: args.k8s_version.clone(), ..Default::default() };
    for sel in &args.select_optional {
        let names: Vec<&str> = match sel.split_once('=') {
            Some(("suite", "operatorframework")) => OPTIONAL.to_vec(),
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
                "operatorhub" | "operatorhubv2" => s.operatorhub = true,
                "good-practices" => s.good_practices = true,
                "alpha-deprecated-apis" => s.deprecated_apis = true,
                other => {
                    return Err(UsageError(format!(
                        "--select-optional: unknown validator {other:?}; known: {}",
                        OPTIONAL.join(", ")
                    )));
                }
            }
        }
    }
    if s.k8s_version.is_some() && !s.deprecated_apis {
        return Err(UsageError("--k8s-version only applies to --select-optional name=alpha-deprecated-apis".into()));
    }
    Ok(s)
}

/// Prints the findings; returns how many errors (and warnings, with `strict`) count as failures.
pub fn report(findings: &[Finding], format: OutputFormat, strict: bool, success: &str) -> usize {
    let failing = findings.iter().filter(|f| f.level == Level::Error || strict).count();
    match format {
        OutputFormat::Json => {
            let outputs: Vec<_> = findings
                .iter()
                .map(|f| {
                    json!({"type": if f.level == Level::Error { "error" } else { "warning" }, "message": f.message})
                })
                .collect();
            let doc = json!({"passed": failing == 0, "outputs": outputs});
            println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        }
        OutputFormat::Text => {
            for f in findings {
                println!("{f}");
            }
            if failing == 0 {
                println!("{success}");
            }
        }
    }
    failing
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
    let suites = suites(args)?;
    let files = BundleFiles::load(&cwd.join(&args.dir)).map(|mut f| {
        f.root = args.dir.display().to_string();
        f
    })?;
    let mut findings = validate(&files, &suites);
    if let Some(previous) = previous(&args.upgrade, cwd)? {
        match Release::from_bundle(&files) {
            Ok(new) => findings.extend(upgrade::check(&new, &previous, options(&args.upgrade))),
            Err(e) => findings.push(Finding { level: Level::Error, message: format!("upgrade check not run: {e:#}") }),
        }
    }
    let failing = report(&findings, args.output, args.strict, "All validation tests have completed successfully");
    if failing > 0 {
        let what = if args.strict { "error(s) or warning(s)" } else { "error(s)" };
        bail!("bundle {} failed validation: {failing} {what}", args.dir.display());
    }
    Ok(())
}
