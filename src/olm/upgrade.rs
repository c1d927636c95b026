//! Safe CRD upgrades (`bundle validate NEW --previous OLD`, `make bundle --previous OLD`, `catalog validate`):
//! compares the CRDs a release ships with those of the release it upgrades, by the rules of OLM v1's CRD Upgrade
//! Safety preflight, before a bundle is pushed; and checks that an upgrade edge leads from OLD to NEW.
//!
//! `load` reads the two sides (a bundle folder, the bundles of a catalog, a folder of CRDs); `crd` holds the
//! CRD-wide rules and `schema` the rules on each schema node. Every finding is a [`Change`]: what changed where
//! (CRD, version, field path as written in the CRD) and what to do instead.
//!
//! **Invariant:** a schema change passes without a finding only when a rule knows it is safe (descriptions, new
//! optional fields, new enum values, relaxed bounds, required → optional); title and example changes, harmless to
//! stored objects but unknown to OLM v1, are warnings; everything else is an error (breaking: unless
//! `--allow-breaking`).

pub mod crd;
pub mod load;
pub mod schema;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::Value;

use super::catalog::Package;
use super::finding::{Finding, Level};
use super::semver::{Range, Version};
pub use load::{Previous, Release};

/// The rules, each with how a finding of it counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rule {
    ScopeChanged,
    CrdRemoved,
    StoredVersionRemoved,
    ServedVersionRemoved,
    FieldRemoved,
    TypeChanged,
    RequiredAdded,
    NullableChanged,
    DefaultChanged,
    EnumAdded,
    EnumValueRemoved,
    MinimumTightened,
    MaximumTightened,
    UnknownChange,
    /// Title or examples changed: harmless, but OLM v1 has no rule for it.
    Cosmetic,
    ConversionNeeded,
    StorageVersions,
    OwnedVersions,
    NoUpgradeEdge,
    MissingCrds,
}

/// How a rule's findings count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Breaks stored objects or clients: an error unless `--allow-breaking`.
    Breaking,
    /// Worth knowing, never fails: a warning.
    Advisory,
    /// The release is wrong whatever the user allows: an error.
    Invalid,
}

impl Rule {
    pub fn class(self) -> Class {
        match self {
            Rule::ServedVersionRemoved | Rule::Cosmetic => Class::Advisory,
            Rule::StorageVersions | Rule::OwnedVersions | Rule::NoUpgradeEdge | Rule::MissingCrds => Class::Invalid,
            _ => Class::Breaking,
        }
    }
}

/// One finding: where, what changed, and what to do instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub rule: Rule,
    /// The CRD's `metadata.name`.
    pub crd: Option<String>,
    pub version: Option<String>,
    /// The field, e.g. `spec.items[*].name` (empty: the schema root).
    pub path: Option<String>,
    pub what: String,
    pub fix: String,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut subject = Vec::new();
        if let Some(c) = &self.crd {
            subject.push(format!("CRD {c}"));
        }
        if let Some(v) = &self.version {
            subject.push(format!("version {v}"));
        }
        match self.path.as_deref() {
            Some("") => subject.push("the schema root".into()),
            Some(p) => subject.push(format!("field {p}")),
            None => {}
        }
        if subject.is_empty() {
            write!(f, "{}; {}", self.what, self.fix)
        } else {
            write!(f, "{}: {}; {}", subject.join(", "), self.what, self.fix)
        }
    }
}

/// What the user allows.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// `--allow-breaking`: breaking changes are warnings.
    pub allow_breaking: bool,
}

fn finding(context: &str, c: &Change, opts: Options) -> Finding {
    let level = match (c.rule.class(), opts.allow_breaking) {
        (Class::Breaking, false) | (Class::Invalid, _) => Level::Error,
        _ => Level::Warning,
    };
    let allowed =
        if c.rule.class() == Class::Breaking && opts.allow_breaking { " (allowed by --allow-breaking)" } else { "" };
    let prefix = if context.is_empty() { String::new() } else { format!("{context}: ") };
    Finding { level, message: format!("{prefix}{c}{allowed}") }
}

/// Every rule between the CRDs of the previous release and those of the new one, matched by name.
pub fn compare_crds(old: &[Value], new: &[Value]) -> Vec<Change> {
    let mut out = Vec::new();
    for o in old {
        match new.iter().find(|n| crd::name(n) == crd::name(o)) {
            Some(n) => out.extend(crd::compare(o, n)),
            None => out.push(crd::removed(o)),
        }
    }
    out
}

/// The rules on the new release alone: its CRDs (one storage version, conversion) and its CSV's owned CRDs.
pub fn alone(new: &Release) -> Vec<Change> {
    let mut out: Vec<Change> = new.crds.iter().flat_map(crd::alone).collect();
    if let Some(csv) = &new.csv {
        out.extend(owned_versions(csv, &new.crds));
    }
    out
}

/// The CSV's owned CRD versions must be the served versions of the CRDs shipped. (An owned version the CRD does
/// not have at all is operator-framework's "owned CRD ... not found in bundle".)
fn owned_versions(csv: &Value, crds: &[Value]) -> Vec<Change> {
    let csv_name = csv["metadata"]["name"].as_str().unwrap_or("the CSV");
    let mut owned: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for o in csv.pointer("/spec/customresourcedefinitions/owned").and_then(Value::as_array).into_iter().flatten() {
        if let (Some(n), Some(v)) = (o["name"].as_str(), o["version"].as_str()) {
            owned.entry(n).or_default().insert(v);
        }
    }
    let mut out = Vec::new();
    for c in crds {
        let name = crd::name(c);
        let all: Vec<&Value> = c["spec"]["versions"].as_array().into_iter().flatten().collect();
        let served: BTreeSet<&str> =
            all.iter().filter(|v| v["served"] != Value::Bool(false)).filter_map(|v| v["name"].as_str()).collect();
        let listed = owned.get(name).cloned().unwrap_or_default();
        let missing: Vec<&str> = served.difference(&listed).copied().collect();
        let unserved: Vec<&str> =
            listed.iter().filter(|v| !served.contains(*v) && all.iter().any(|x| x["name"] == **v)).copied().collect();
        if missing.is_empty() && unserved.is_empty() {
            continue;
        }
        let mut what = Vec::new();
        if !missing.is_empty() {
            what.push(format!("{csv_name} does not own served version(s) {}", missing.join(", ")));
        }
        if !unserved.is_empty() {
            what.push(format!("{csv_name} owns version(s) {} that the CRD does not serve", unserved.join(", ")));
        }
        out.push(Change {
            rule: Rule::OwnedVersions,
            crd: Some(name.to_string()),
            version: None,
            path: None,
            what: format!(
                "{} (owned: {}; served: {})",
                what.join(" and "),
                list_or_none(&listed.iter().copied().collect::<Vec<_>>()),
                list_or_none(&served.iter().copied().collect::<Vec<_>>())
            ),
            fix: "list exactly the served versions in spec.customresourcedefinitions.owned (`make bundle` writes them \
                  from the CRDs)"
                .into(),
        });
    }
    out
}

fn list_or_none(items: &[&str]) -> String {
    if items.is_empty() { "none".into() } else { items.join(", ") }
}

/// Whether NEW's `replaces`, `skips` or `olm.skipRange` reach OLD (an upgrade edge exists), and OLD is older.
pub fn edge(old: &Release, new: &Release) -> Option<Change> {
    let (Some(old_name), Some(new_name)) = (&old.name, &new.name) else {
        return None;
    };
    let fail = |what: String, fix: String| {
        Some(Change { rule: Rule::NoUpgradeEdge, crd: None, version: None, path: None, what, fix })
    };
    if let (Some(a), Some(b)) = (&old.package, &new.package)
        && a != b
    {
        return fail(
            format!("{new_name} is in package {b} but the previous release {old_name} is in package {a}"),
            "compare with a release of the same package".into(),
        );
    }
    if let (Some(ov), Some(nv)) = (&old.version, &new.version)
        && nv <= ov
    {
        return fail(
            format!("{new_name} (version {nv}) is not newer than {old_name} (version {ov})"),
            "give the new bundle a higher version (`make bundle --version`)".into(),
        );
    }
    let in_range = match (&new.skip_range, &old.version) {
        (Some(r), Some(v)) => Range::parse(r).is_ok_and(|r| r.contains(v)),
        _ => false,
    };
    if new.replaces.as_ref() == Some(old_name) || new.skips.contains(old_name) || in_range {
        return None;
    }
    let how = [
        format!("replaces {}", new.replaces.as_deref().unwrap_or("nothing")),
        if new.skips.is_empty() { "skips nothing".into() } else { format!("skips {}", new.skips.join(", ")) },
        match &new.skip_range {
            Some(r) => format!("its olm.skipRange '{r}' does not contain {}", version_text(old)),
            None => "has no olm.skipRange".into(),
        },
    ];
    fail(
        format!(
            "no upgrade edge from {old_name} to {new_name}: {new_name} {}, so OLM never upgrades {old_name} to it",
            how.join(", ")
        ),
        format!(
            "pass `--replaces {old_name}` to `make bundle` (or `--skips {old_name}`, or a --skip-range holding its version)"
        ),
    )
}

fn version_text(r: &Release) -> String {
    r.version.as_ref().map(Version::to_string).unwrap_or_else(|| "its version".into())
}

/// `bundle validate NEW --previous OLD` and `make bundle --previous OLD`: every finding about NEW as an upgrade
/// of OLD.
pub fn check(new: &Release, previous: &Previous, opts: Options) -> Vec<Finding> {
    let mut out: Vec<Finding> = alone(new).iter().map(|c| finding("", c, opts)).collect();
    match previous {
        Previous::Bundle(old) => {
            let context = format!("upgrade from {}", old.display());
            out.extend(edge(old, new).iter().map(|c| finding(&context, c, opts)));
            out.extend(compare_crds(&old.crds, &new.crds).iter().map(|c| finding(&context, c, opts)));
        }
        Previous::Crds { shown, crds } => {
            let context = format!("upgrade from {shown}");
            out.extend(compare_crds(crds, &new.crds).iter().map(|c| finding(&context, c, opts)));
        }
        Previous::Catalog { shown, docs } => {
            let (olds, problems) = load::predecessors(docs, shown, new);
            out.extend(problems.iter().map(|c| finding("", c, opts)));
            for old in olds {
                let context = format!("upgrade from {} ({shown})", old.display());
                if let Some(missing) = load::missing_crds(&old, shown) {
                    out.push(finding(&context, &missing, opts));
                    continue;
                }
                out.extend(compare_crds(&old.crds, &new.crds).iter().map(|c| finding(&context, c, opts)));
            }
        }
    }
    out
}

/// `catalog validate`: the CRD rules along every upgrade edge of every channel (replaces, skips and skipRange),
/// where both bundles carry their CRDs as `olm.bundle.object` properties.
pub fn check_catalog(packages: &[Package], opts: Options) -> Vec<Finding> {
    let mut out = Vec::new();
    for p in packages {
        let releases: BTreeMap<String, Release> = p
            .bundles
            .iter()
            .map(|b| (b["name"].as_str().unwrap_or("").to_string(), Release::from_catalog(b)))
            .collect();
        let mut edges: BTreeSet<(String, String)> = BTreeSet::new();
        for c in &p.channels {
            let names: Vec<&str> = c.entries.iter().filter_map(|e| e["name"].as_str()).collect();
            for e in &c.entries {
                let to = e["name"].as_str().unwrap_or("").to_string();
                let mut from: Vec<String> = e["replaces"].as_str().into_iter().map(str::to_string).collect();
                from.extend(e["skips"].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string));
                if let Some(range) = e["skipRange"].as_str().and_then(|r| Range::parse(r).ok()) {
                    for n in &names {
                        if releases.get(*n).and_then(|r| r.version.as_ref()).is_some_and(|v| range.contains(v)) {
                            from.push(n.to_string());
                        }
                    }
                }
                for f in from {
                    if f != to && releases.contains_key(&f) && releases.contains_key(&to) {
                        edges.insert((f, to.clone()));
                    }
                }
            }
        }
        let mut unchecked: BTreeSet<String> = BTreeSet::new();
        for r in releases.values() {
            out.extend(alone(r).iter().map(|c| finding(&format!("bundle {}", r.display()), c, opts)));
        }
        for (from, to) in &edges {
            let (old, new) = (&releases[from], &releases[to]);
            let blind: Vec<&Release> =
                [old, new].into_iter().filter(|r| r.crds.is_empty() && !r.provides.is_empty()).collect();
            if !blind.is_empty() {
                unchecked.extend(blind.iter().map(|r| r.display()));
                continue;
            }
            let context = format!("upgrade {from} -> {to}");
            out.extend(compare_crds(&old.crds, &new.crds).iter().map(|c| finding(&context, c, opts)));
        }
        if !unchecked.is_empty() {
            out.push(Finding {
                level: Level::Warning,
                message: format!(
                    "package {}: CRD upgrade safety not checked on the edges of {}: they provide APIs (olm.gvk) but \
                     carry no CustomResourceDefinition in olm.bundle.object properties (render the catalog with \
                     `kubesmith make catalog`, which keeps them)",
                    p.name,
                    unchecked.into_iter().collect::<Vec<_>>().join(", ")
                ),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests;
