//! `rbac infer` on each binary of the corpus against our reading: precision, recall, and every miss (with the
//! reading's call site and whether a warning of kubesmith named that place) and every extra (with the call
//! sites kubesmith gives for it).

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::Result;
use serde_json::Value;

use super::Run;
use super::recipe::{Bin, Triple};

/// One binary's figures.
#[derive(Debug, Default)]
pub struct BinRow {
    pub project: String,
    pub bin: String,
    pub needed: usize,
    pub inferred: usize,
    pub hits: usize,
    /// What the reading needs and kubesmith did not give: the triple, the reading's call sites, whether a warning
    /// named one of them (same file and line, or the same file).
    pub misses: Vec<(Triple, Vec<String>, Warned)>,
    /// What kubesmith gives and the reading does not need, with kubesmith's call sites.
    pub extras: Vec<(Triple, Vec<String>)>,
    /// kubesmith's warnings.
    pub warnings: usize,
    /// Set when `rbac infer` itself failed.
    pub error: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Warned {
    AtTheLine,
    InTheFile,
    No,
}

impl BinRow {
    pub fn precision(&self) -> f64 {
        if self.inferred == 0 { 0.0 } else { self.hits as f64 / self.inferred as f64 }
    }
    pub fn recall(&self) -> f64 {
        if self.needed == 0 { 1.0 } else { self.hits as f64 / self.needed as f64 }
    }
}

/// Runs `rbac infer --bin` (with `--explain`, for the call sites) in the workspace `root` and compares.
pub fn measure(run: &Run, project: &str, root: &Path, bin: &Bin) -> Result<BinRow> {
    let mut row = BinRow { project: project.into(), bin: bin.name.clone(), ..Default::default() };
    let truth = bin.triples();
    row.needed = truth.len();
    let plain = run.kubesmith(root, &["rbac", "infer", "--bin", &bin.name], &[])?;
    if !plain.ok {
        row.error = Some(plain.first_error());
        row.misses = truth.iter().map(|t| (t.clone(), own(bin.evidence(t)), Warned::No)).collect();
        return Ok(row);
    }
    let explained = run.kubesmith(root, &["rbac", "infer", "--bin", &bin.name, "--explain"], &[])?;
    let inferred = triples_of_role(&plain.stdout);
    row.inferred = inferred.len();
    row.hits = inferred.intersection(&truth).count();
    let warnings: Vec<&str> = plain.stderr.lines().filter(|l| l.starts_with("warning")).collect();
    row.warnings = warnings.len();
    for t in truth.difference(&inferred) {
        let at = own(bin.evidence(t));
        row.misses.push((t.clone(), at.clone(), warned(&at, &plain.stderr)));
    }
    for t in inferred.difference(&truth) {
        row.extras.push((t.clone(), sites(&explained.stdout, t)));
    }
    Ok(row)
}

fn own(v: Vec<&str>) -> Vec<String> {
    v.into_iter().map(str::to_string).collect()
}

/// Every (group, resource, verb) a ClusterRole's rules grant (YAML text).
pub fn triples_of_role(yaml: &str) -> BTreeSet<Triple> {
    let mut out = BTreeSet::new();
    let Ok(role) = serde_yaml_ng::from_str::<Value>(yaml) else { return out };
    let list = |v: &Value, k: &str| -> Vec<String> {
        v[k].as_array().into_iter().flatten().filter_map(|x| x.as_str().map(str::to_string)).collect()
    };
    for rule in role["rules"].as_array().into_iter().flatten() {
        for g in list(rule, "apiGroups") {
            for r in list(rule, "resources") {
                for v in list(rule, "verbs") {
                    out.insert((g.clone(), r.clone(), v));
                }
            }
        }
    }
    out
}

/// Whether a warning line names one of `at` (`path:line`): at that line, or in that file.
pub fn warned(at: &[String], stderr: &str) -> Warned {
    let mut best = Warned::No;
    for site in at {
        let (file, line) = site.rsplit_once(':').unwrap_or((site, ""));
        // a dependency's site is `<crate>-<version>/path`; kubesmith names it by its path on disk
        let tail = file.split_once('/').filter(|(first, _)| first.contains('.')).map_or(file, |(_, t)| t);
        for w in stderr.lines().filter(|l| l.contains("warning")) {
            if w.contains(&format!("{file}:{line}"))
                || w.contains(&format!("{tail}:{line}:"))
                || w.ends_with(&format!("{tail}:{line}"))
            {
                return Warned::AtTheLine;
            }
            if w.contains(tail) {
                best = Warned::InTheFile;
            }
        }
    }
    best
}

/// The call sites `--explain` lists for `t`.
fn sites(explained: &str, t: &Triple) -> Vec<String> {
    let group = if t.0.is_empty() { "core" } else { &t.0 };
    let head = format!("  {} {} ({group}): ", t.2, t.1);
    let mut out: Vec<String> = explained
        .lines()
        .filter_map(|l| l.strip_prefix(&head))
        .map(|rest| rest.split_whitespace().next().unwrap_or_default().to_string())
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(g: &str, r: &str, v: &str) -> Triple {
        (g.into(), r.into(), v.into())
    }

    #[test]
    fn a_role_expands_to_triples() {
        let yaml = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: m\nrules:\n\
                    - apiGroups:\n  - ''\n  - apps\n  resources:\n  - pods\n  verbs:\n  - get\n  - list\n";
        let got = triples_of_role(yaml);
        assert_eq!(got.len(), 4);
        assert!(got.contains(&t("apps", "pods", "list")) && got.contains(&t("", "pods", "get")));
    }

    #[test]
    fn a_warning_counts_at_the_line_or_in_the_file() {
        let stderr = "warning: src/a.rs:12:5: Api<DynamicObject> is only known at run time\n\
                      warning: fw/src/client.rs:40:1: a generic no call binds\n";
        assert_eq!(warned(&["src/a.rs:12".into()], stderr), Warned::AtTheLine);
        assert_eq!(warned(&["src/a.rs:99".into()], stderr), Warned::InTheFile);
        assert_eq!(warned(&["fw-0.1.0/src/client.rs:40".into()], stderr), Warned::AtTheLine);
        assert_eq!(warned(&["src/b.rs:12".into()], stderr), Warned::No);
    }

    #[test]
    fn explain_gives_the_sites_of_a_rule() {
        let explained = "rule: apiGroups=\"\" resources=pods verbs=get\n  get pods (core): src/a.rs:3 Api::get\n  \
                         get pods (core): src/b.rs:9 Api::get\n";
        assert_eq!(sites(explained, &t("", "pods", "get")), ["src/a.rs:3", "src/b.rs:9"]);
        assert!(sites(explained, &t("", "pods", "list")).is_empty());
    }
}
