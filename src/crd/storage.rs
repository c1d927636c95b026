//! The storage version the crate's own code chooses: kube-rs documents multi-version kinds as
//! `merge_crds(vec![v1::Foo::crd(), v2::Foo::crd()], "v2")`, typically in a `crdgen` binary, and that call (not
//! `#[kube(storage)]`) decides what the crate's CRD says. Read like `// +kubebuilder:storageversion`: the named
//! version is the storage version, the others `storage: false`, in `merge_crds`' order (the named version first,
//! then the others from the end of the list), exactly what kube-core 5's `merge_crds` returns.
//!
//! kube-core's `merge_crds` fails at run time when the CRDs differ in group, kind or scope, or when the named
//! version is not among them; kubesmith reports those at the call. Two calls naming different versions of one
//! kind, or a `+kubebuilder:storageversion` marker on another version, are errors naming both places. A call whose
//! storage argument kubesmith cannot evaluate is an error saying why, unless a marker names the storage version:
//! the compiled fallback cannot help there (it prints each `Kind::crd()` alone, and `merge_crds`' argument lives
//! in the crate's own code, often a binary's `main`).

mod calls;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use super::error::{CrdError, CrdErrorKind};
use super::index::{CrateIndex, SourceSet};

/// A version of a kind, as `#[kube(group, kind, version)]` names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VersionKey {
    /// `group`.
    pub group: String,
    /// `kind`.
    pub kind: String,
    /// `version`.
    pub version: String,
}

/// One `merge_crds(crds, storage)` call of the crate's sources.
#[derive(Debug, Clone, PartialEq)]
pub struct MergeCall {
    /// File of the call.
    pub path: PathBuf,
    /// 1-based line of `merge_crds`.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// The `Kind::crd()`s it merges, in order; `Err(why)` when kubesmith cannot read the list.
    pub merges: Result<Vec<VersionKey>, String>,
    /// The storage version it names; `Err((argument, why))` when kubesmith cannot evaluate it.
    pub storage: Result<String, (String, String)>,
}

impl MergeCall {
    /// `src/bin/crdgen.rs:12`, relative to `base`.
    fn place(&self, base: &Path) -> String {
        place(base, &self.path, self.line)
    }

    fn error(&self, message: String) -> CrdError {
        CrdError {
            path: self.path.clone(),
            line: self.line,
            column: self.column,
            kind: CrdErrorKind::Mismatch(message),
        }
    }
}

/// `path:line`, relative to `base` when it is below it.
pub fn place(base: &Path, path: &Path, line: usize) -> String {
    format!("{}:{line}", path.strip_prefix(base).unwrap_or(path).display())
}

/// The `merge_crds` calls of a crate and what reading them found.
#[derive(Debug, Default)]
pub struct MergeCalls {
    /// Every call, by file and line.
    pub calls: Vec<MergeCall>,
    /// Files that hold a call but cannot be read.
    pub problems: Vec<CrdError>,
    /// The folder other places are shown relative to in messages (the package's).
    pub base: PathBuf,
    /// The storage versions the project names outside the sources, by `(group, kind)`
    /// ([`SourceSet::with_storage_versions`]).
    pub named: std::collections::BTreeMap<(String, String), String>,
}

/// Every `merge_crds` call in the targets of the package whose sources are `sources` (lib and bins), read over a
/// [`CrateIndex`] of them all ([`CrateIndex::load_targets`]). Nothing is parsed unless some file of the source folder
/// mentions `merge_crds`; then the files that do (or name a `use` rename of it) are, with those the index needs
/// for the kinds and the names the calls use.
pub fn find(sources: &SourceSet) -> MergeCalls {
    let src = sources.src_dir();
    let base = src.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut out = MergeCalls { base, named: sources.storage_versions().clone(), ..MergeCalls::default() };
    let holders = call_files(sources);
    if holders.is_empty() {
        return out;
    }
    let mut parse = holders.clone();
    loop {
        let ix = match CrateIndex::load_targets(sources, &parse) {
            Ok(ix) => ix,
            Err(e) => {
                out.problems.push(read_for_calls(e));
                return out;
            }
        };
        let kinds = kinds(&ix);
        let (calls, problems) = calls::calls(&ix, &kinds, &holders);
        let touched = ix.take_touched();
        if touched.is_empty() {
            out.calls = calls;
            let unread =
                ix.problems.iter().filter(|e| holders.contains(&e.path) || matches!(e.kind, CrdErrorKind::Io(_)));
            out.problems.extend(unread.cloned().chain(problems).map(read_for_calls));
            return out;
        }
        parse.extend(touched);
    }
}

/// A problem met reading the targets for `merge_crds` calls, saying so.
fn read_for_calls(mut e: CrdError) -> CrdError {
    if let CrdErrorKind::Parse(m) | CrdErrorKind::Io(m) = &mut e.kind {
        m.push_str(" (kubesmith reads this target for `merge_crds` calls)");
    }
    e
}

/// The files that may hold a `merge_crds` call: those that mention it, or a name a `use .. merge_crds as name`
/// of one of them renames it to.
fn call_files(sources: &SourceSet) -> BTreeSet<PathBuf> {
    let paths: Vec<PathBuf> = sources
        .overlay_paths()
        .map(Path::to_path_buf)
        .chain(sources.rust_files().iter().map(|(p, _)| p.clone()))
        .collect();
    let mut out: BTreeSet<PathBuf> = sources.paths_containing(&paths, "merge_crds").into_iter().collect();
    let mut renames: BTreeSet<String> = BTreeSet::new();
    for p in &out {
        if let Ok(text) = sources.read_text(p) {
            renames.extend(renamed(&text));
        }
    }
    for name in &renames {
        out.extend(sources.paths_containing(&paths, name));
    }
    out
}

/// The names `merge_crds as name` renames it to in `text`.
fn renamed(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices("merge_crds") {
        let mut words = text[i + "merge_crds".len()..].split_whitespace();
        if words.next() == Some("as")
            && let Some(word) = words.next()
        {
            let name: String = word.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !name.is_empty() && name != "_" {
                out.push(name);
            }
        }
    }
    out
}

/// The kind version behind each kind type the index's derives generate, by the number
/// [`CrateIndex::generated`] gives it.
pub(crate) struct Kinds {
    pub(crate) versions: Vec<VersionKey>,
}

fn kinds(ix: &CrateIndex) -> Kinds {
    let specs = &ix.generated().specs;
    let versions = specs
        .iter()
        .map(|k| VersionKey { group: k.group.clone(), kind: k.kind.clone(), version: k.version.clone() })
        .collect();
    Kinds { versions }
}

/// One version of a kind, as the storage choice sees it.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// `spec.versions[].name`.
    pub version: String,
    /// Where its spec is (for errors about it).
    pub at: (PathBuf, usize, usize),
    /// Where a `+kubebuilder:storageversion` marker sits on it.
    pub marker: Option<(PathBuf, usize)>,
}

/// What the calls decide for one kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// Index (into the candidates) of the storage version.
    pub storage: usize,
    /// The order `merge_crds` lists the candidates in (indexes, as its call lists them), when a call decides.
    pub order: Vec<usize>,
}

/// The calls of a crate sorted by the kind they merge.
#[derive(Debug, Default)]
pub struct ByKind<'a> {
    /// By `(group, kind)`: the calls whose list holds versions of that kind (and of no other kind).
    pub calls: HashMap<(String, String), Vec<&'a MergeCall>>,
    /// `(group, kind, error)`: calls merging several kinds, an error of each (kube's `merge_crds` refuses them at
    /// run time).
    pub mixed: Vec<(String, String, CrdError)>,
    /// Calls whose list kubesmith cannot read.
    pub loose: Vec<&'a MergeCall>,
}

/// Sorts `calls` by the kind they merge.
pub fn by_kind(calls: &[MergeCall]) -> ByKind<'_> {
    let mut out = ByKind::default();
    for c in calls {
        let Ok(list) = &c.merges else {
            out.loose.push(c);
            continue;
        };
        let mut kinds: Vec<(String, String)> = list.iter().map(|v| (v.group.clone(), v.kind.clone())).collect();
        kinds.sort();
        kinds.dedup();
        match kinds.as_slice() {
            [] => {}
            [one] => out.calls.entry(one.clone()).or_default().push(c),
            many => {
                let groups: std::collections::BTreeSet<&String> = many.iter().map(|(g, _)| g).collect();
                let property = if groups.len() > 1 { "group" } else { "kind" };
                let names: Vec<String> = many.iter().map(|(g, k)| format!("{k} ({g})")).collect();
                for (g, k) in many {
                    out.mixed.push((
                        g.clone(),
                        k.clone(),
                        c.error(format!(
                            "`merge_crds` merges the CRDs of {}: kube's merge_crds returns `mismatching {property} \
                             property from given CRDs` at run time; merge the versions of one kind per call",
                            names.join(" and ")
                        )),
                    ));
                }
            }
        }
    }
    out
}

/// The storage version of kind `kind` of `group`, among `candidates` (its versions, skipped ones left out), that
/// its `merge_crds` calls choose; `Ok(None)` when no call decides it (the markers and `#[kube(storage)]` do).
/// `skipped` are the versions `+kubebuilder:skipversion` leaves out, with where.
pub fn choose(
    group: &str,
    kind: &str,
    candidates: &[Candidate],
    skipped: &[(String, PathBuf, usize)],
    calls: &[&MergeCall],
    base: &Path,
) -> Result<Option<Choice>, Vec<CrdError>> {
    let deciding: Vec<(&MergeCall, &String)> =
        calls.iter().filter_map(|c| c.storage.as_ref().ok().map(|s| (*c, s))).collect();
    let Some(&(first, storage)) = deciding.first() else {
        let marked = candidates.iter().filter(|c| c.marker.is_some()).count();
        return match calls.first() {
            Some(call) if marked != 1 => {
                let (arg, why) = call.storage.clone().err().unwrap_or_default();
                Err(vec![call.error(format!(
                    "`merge_crds` chooses the storage version of kind {kind} in group {group} from `{arg}`, which \
                     kubesmith cannot evaluate without running the crate ({why}); pass a string literal or a const \
                     (`merge_crds(crds, \"v1\")`), or put `// +kubebuilder:storageversion` on the storage version's \
                     spec struct"
                ))])
            }
            _ => Ok(None),
        };
    };
    let mut errors = Vec::new();
    for &(other, s) in &deciding[1..] {
        if s != storage {
            errors.push(other.error(format!(
                "`merge_crds` chooses `{s}` as the storage version of kind {kind} in group {group}, but `merge_crds` \
                 at {} chooses `{storage}`; make both calls name the same version",
                first.place(base)
            )));
        }
    }
    let versions_of = |c: &MergeCall| -> Vec<String> {
        let list = c.merges.as_ref().map(Vec::as_slice).unwrap_or_default();
        list.iter().filter(|v| v.group == group && v.kind == kind).map(|v| v.version.clone()).collect()
    };
    for &(call, s) in &deciding {
        let merged = versions_of(call);
        if !merged.contains(s) {
            errors.push(call.error(format!(
                "`merge_crds` names `{s}` as the storage version of kind {kind} in group {group}, but merges only \
                 {}: kube's merge_crds returns `root api version {s} not found` at run time; name one of them or add \
                 `{s}`'s `crd()` to the list",
                merged.join(", ")
            )));
        }
    }
    if let Some((_, file, line)) = skipped.iter().find(|(v, _, _)| v == storage) {
        errors.push(first.error(format!(
            "`merge_crds` names `{storage}` as the storage version of kind {kind} in group {group}, but \
             `+kubebuilder:skipversion` at {} leaves that version out of the CRD; drop the marker or name another \
             version",
            place(base, file, *line)
        )));
    }
    let index = |v: &str| candidates.iter().position(|c| c.version == v);
    let merged = versions_of(first);
    for c in candidates {
        if !merged.contains(&c.version) {
            errors.push(first.error(format!(
                "`merge_crds` merges {} of kind {kind} in group {group}, but the crate also defines version `{}` \
                 (at {}), which its CRD would then lack; add that version's `crd()` to the list or mark it \
                 `// +kubebuilder:skipversion`",
                merged.join(", "),
                c.version,
                place(base, &c.at.0, c.at.1)
            )));
        }
        if let Some((file, line)) = &c.marker
            && &c.version != storage
        {
            errors.push(CrdError::marker(
                file,
                *line,
                format!(
                    "`+kubebuilder:storageversion` makes `{}` the storage version of kind {kind} in group {group}, \
                         but `merge_crds` at {} chooses `{storage}`; drop the marker or make them agree",
                    c.version,
                    first.place(base)
                ),
            ));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let Some(storage) = index(storage) else { return Ok(None) };
    let mut order = Vec::new();
    for v in merged {
        if let Some(i) = index(&v)
            && !order.contains(&i)
        {
            order.push(i);
        }
    }
    Ok(Some(Choice { storage, order }))
}

/// The calls whose list kubesmith cannot read, as problems of a kind whose storage version is not known
/// otherwise (they may be what chooses it).
pub fn unread(loose: &[&MergeCall], group: &str, kind: &str) -> Vec<CrdError> {
    loose
        .iter()
        .map(|call| {
            let why = call.merges.as_ref().err().cloned().unwrap_or_default();
            call.error(format!(
                "`merge_crds` may choose the storage version of kind {kind} in group {group}, but kubesmith cannot \
                 read which CRDs it merges ({why}); list them in the call: `merge_crds(vec![v1::{kind}::crd(), \
                 v2::{kind}::crd()], \"v2\")`"
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests;
