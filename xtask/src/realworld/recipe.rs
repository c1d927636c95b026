//! The recipe of the real-world corpus (`xtask/realworld/`): which public repositories, at which commits, which
//! paths, and our readings of the operators' RBAC needs. Read, never fetched: the files come from git mirrors.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

/// `crds/<name>.toml`: CRD YAML files a project ships.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrdProject {
    #[serde(skip)]
    pub name: String,
    pub repo: String,
    pub commit: String,
    pub files: Vec<String>,
    #[serde(default)]
    pub shapes: Vec<String>,
}

/// `operators/<name>.toml`: a Rust operator workspace, the crates its calls go through, and its binaries' needs.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Operator {
    #[serde(skip)]
    pub name: String,
    pub repo: String,
    pub commit: String,
    pub paths: Vec<String>,
    #[serde(default)]
    pub root: String,
    #[serde(default)]
    pub kinds: Vec<String>,
    #[serde(default)]
    pub deps: Vec<Dep>,
    #[serde(default)]
    pub submodules: Vec<Submodule>,
    #[serde(default, rename = "bin")]
    pub bins: Vec<Bin>,
    /// For the reader (the shapes that make the code hard to read).
    #[serde(default)]
    #[allow(dead_code)]
    pub notes: String,
}

#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct Dep {
    #[serde(rename = "crate")]
    pub krate: String,
    /// As the workspace's Cargo.lock pins it (the commit is that version's).
    pub version: String,
    pub repo: String,
    pub commit: String,
    pub path: String,
    #[serde(default)]
    pub git: String,
}

/// A git submodule of the operator's repository (a gitlink, which snapshots and `git archive` leave empty) that
/// the build needs, placed as a real clone would check it out.
#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct Submodule {
    /// Its folder, relative to the repository root.
    pub path: String,
    /// The submodule's repository (`owner/name`), mirrored like the others.
    pub repo: String,
    /// The commit the gitlink pins.
    pub commit: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // `package`, `shipped_role` and `notes` are for the reader of the recipe
pub struct Bin {
    pub name: String,
    pub package: String,
    pub rules: Vec<Rule>,
    #[serde(default)]
    pub shipped_role: String,
    #[serde(default)]
    pub notes: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub group: String,
    pub resource: String,
    pub verbs: Vec<String>,
    #[serde(default)]
    pub at: Vec<String>,
}

/// One permission: (group, resource, verb); the unit precision and recall count.
pub type Triple = (String, String, String);

impl Bin {
    /// Every (group, resource, verb) the reading names.
    pub fn triples(&self) -> BTreeSet<Triple> {
        let mut out = BTreeSet::new();
        for r in &self.rules {
            for v in &r.verbs {
                out.insert((r.group.clone(), r.resource.clone(), v.clone()));
            }
        }
        out
    }

    /// The call sites the reading gives for `t`.
    pub fn evidence(&self, t: &Triple) -> Vec<&str> {
        let rules = self.rules.iter().filter(|r| r.group == t.0 && r.resource == t.1 && r.verbs.contains(&t.2));
        rules.flat_map(|r| r.at.iter().map(String::as_str)).collect()
    }
}

/// The whole recipe.
pub struct Recipe {
    pub crds: Vec<CrdProject>,
    pub operators: Vec<Operator>,
}

impl Recipe {
    /// Reads `dir/crds/*.toml` and `dir/operators/*.toml`, checking what a run relies on.
    pub fn load(dir: &Path) -> Result<Recipe> {
        let mut crds: Vec<(String, CrdProject)> = read_all(&dir.join("crds"))?;
        let mut operators: Vec<(String, Operator)> = read_all(&dir.join("operators"))?;
        for (name, c) in crds.iter_mut() {
            c.name = name.clone();
        }
        for (name, o) in operators.iter_mut() {
            o.name = name.clone();
        }
        let recipe = Recipe {
            crds: crds.into_iter().map(|(_, c)| c).collect(),
            operators: operators.into_iter().map(|(_, o)| o).collect(),
        };
        recipe.check()?;
        Ok(recipe)
    }

    fn check(&self) -> Result<()> {
        let commits = self.crds.iter().map(|c| (&c.name, &c.repo, &c.commit));
        let commits = commits.chain(self.operators.iter().map(|o| (&o.name, &o.repo, &o.commit)));
        let deps = self.operators.iter().flat_map(|o| o.deps.iter().map(move |d| (&o.name, &d.repo, &d.commit)));
        let subs = self.operators.iter().flat_map(|o| o.submodules.iter().map(move |s| (&o.name, &s.repo, &s.commit)));
        for (name, repo, commit) in commits.chain(deps).chain(subs) {
            if !is_commit(commit) {
                bail!("{name}: commit `{commit}` of {repo} is not 40 hex digits");
            }
            if repo.split('/').count() != 2 {
                bail!("{name}: repo `{repo}` is not owner/name");
            }
        }
        for o in &self.operators {
            for s in &o.submodules {
                let path = Path::new(&s.path);
                if s.path.is_empty() || path.is_absolute() || path.components().any(|c| c.as_os_str() == "..") {
                    bail!("{}: submodule path `{}` is not a folder inside the repository", o.name, s.path);
                }
            }
            for b in &o.bins {
                for r in &b.rules {
                    if r.verbs.is_empty() || r.resource.is_empty() {
                        bail!("{}: binary {}: a rule of {} has no resource or verbs", o.name, b.name, r.group);
                    }
                }
            }
        }
        Ok(())
    }
}

fn is_commit(s: &str) -> bool {
    s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Every `*.toml` of `dir`, parsed, with its file stem, in name order.
fn read_all<T: for<'de> Deserialize<'de>>(dir: &Path) -> Result<Vec<(String, T)>> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p)?;
            let parsed: T =
                toml_edit::de::from_str(&text).with_context(|| format!("{} does not parse", p.display()))?;
            let stem = p.file_stem().unwrap_or_default().to_string_lossy().into_owned();
            Ok((stem, parsed))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reading_counts_each_verb_and_finds_its_evidence() {
        let op: Operator = toml_edit::de::from_str(
            r#"
repo = "o/r"
commit = "0123456789012345678901234567890123456789"
paths = ["Cargo.toml"]
[[bin]]
name = "b"
package = "."
rules = [
  { group = "", resource = "pods", verbs = ["list", "watch"], at = ["src/main.rs:3"] },
  { group = "apps", resource = "deployments", verbs = ["patch"], at = ["src/a.rs:9", "src/b.rs:1"] },
]
"#,
        )
        .unwrap();
        let b = &op.bins[0];
        assert_eq!(b.triples().len(), 3);
        let t = ("apps".to_string(), "deployments".to_string(), "patch".to_string());
        assert_eq!(b.evidence(&t), ["src/a.rs:9", "src/b.rs:1"]);
        let none = ("".to_string(), "pods".to_string(), "get".to_string());
        assert!(b.evidence(&none).is_empty());
    }

    #[test]
    fn the_committed_recipe_loads() {
        let recipe = Recipe::load(&crate::root().join("xtask/realworld")).unwrap();
        assert!(!recipe.crds.is_empty() && !recipe.operators.is_empty());
        assert!(recipe.crds.iter().all(|c| !c.files.is_empty()));
    }

    #[test]
    fn a_short_commit_is_refused() {
        assert!(is_commit("0123456789abcdef0123456789abcdef01234567"));
        assert!(!is_commit("0123abc"));
    }
}
