//! The inference cache: `make manifests` runs inference on every call, so what the last run read and found is kept
//! under the cargo target directory (`<target>/kubesmith/rbac-cache/infer-<roots>.bin`, see
//! [`crate::source::cache`]) and a run reads only what changed since.
//!
//! The file holds, for one set of crate roots and `--bin`:
//! - every path the last run read (or looked for), with the fingerprint of its text: when none changed, the
//!   inference it found is the answer, and nothing is parsed;
//! - each file's [`Skeleton`](crate::source::skeleton::Skeleton) (items without bodies), by the fingerprint of its text;
//! - the effects of every fn instance the walk read ([`walk::Effects`]: needs, warnings, instances queued).
//!
//! When files changed but each changed file's skeleton is the one stored (an edit inside fn bodies, comments or
//! tests), only the changed files are parsed; every other file is loaded from its skeleton, so paths, types and
//! signatures resolve exactly as in a full load, and the walk replays the stored effects of every instance whose fn
//! lives in an unchanged file instead of reading its body. An instance of an unchanged file that was not read before
//! (a changed fn calls a helper with new types) loads that file in full and walks again. Any other change (a new
//! file, an item added, removed or re-typed, a `use` edited), a read that depended on the order resources were met,
//! or anything unexpected reads everything again, as without a cache, and stores the result. Either way the result
//! is the one a full read gives: the cache only skips work whose outcome it already knows.
//!
//! The files of registry and git dependencies (a `<name>-<version>` folder or a checkout's revision folder, which
//! cargo never rewrites) are taken as stored without being read ([`Cache::with_immutable`]), so a cached run costs
//! the same whether the walk reached into 1 or 50 fetched crates; a path dependency's files are fingerprinted like
//! the sources'. Every need and warning carries the file of the fn whose body made it, so a changed file's instances
//! read again alone ([`Outcome::Reread`]) replace just its share; the other outcomes are [`Outcome::Unchanged`],
//! [`Outcome::Replayed`] and [`Outcome::Full`]. A file a hand-written resource impl's values were read from, or a walk
//! that looked a kind up by the order resources were met (`ApiResource::from_gvk`), forces a full read. Reads go
//! through the caller's reader (a plan's overlay), so the cache sees the files as the plan leaves them.
//!
//! **Invariant:** the result is always the one a full read gives (unit tests compare both after every kind of edit and
//! with damaged files; `tests/it/rbac_cache.rs` compares the binary's output with `KUBESMITH_NO_CACHE=1`); only
//! kubesmith's own folder under the target directory is written, never the sources. `make manifests --dry-run` and
//! `--check` write no project file, but may refresh the cache.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{
    InferError, Inference, Loaded, OwnKinds, Replay, Walked, load, parse_code_items, resource_impl,
    resources::Resource, walk, walk_roots,
};
use crate::source::SourceError;
use crate::source::cache::{CacheDir, decode_sections, encode_header, fingerprint};
use crate::source::modules::{Entry, entries};
use crate::source::skeleton;

/// Bumped whenever what the file holds, or what the walk records, changes meaning.
const FORMAT: u32 = 15;

/// How many files an instance may pull in full before a full read is cheaper.
const MAX_EXTRA_FILES: usize = 8;

/// The crate roots of a run: `(crate name, root file, what it is to the walk)`.
type Roots = Vec<(String, PathBuf, super::Role)>;

#[derive(Serialize)]
struct HeadRef<'a> {
    roots: &'a Roots,
    bin: Option<&'a str>,
    probes: Vec<(PathBuf, Option<u128>)>,
    replayable: bool,
    inference: &'a Inference,
}

#[derive(Serialize, Deserialize)]
struct Head {
    roots: Roots,
    bin: Option<String>,
    /// Every path read or looked for, with the fingerprint of its text (`None`: it did not exist).
    probes: Vec<(PathBuf, Option<u128>)>,
    /// Whether the stored effects may be replayed.
    replayable: bool,
    inference: Inference,
}

/// The outline of the stored effects: the resources their kind ids index, the specs, and where each file's group
/// of instances is in the section.
#[derive(Serialize, Deserialize)]
struct MemoHead {
    kinds: Vec<Resource>,
    own: OwnKinds,
    spec_files: Vec<PathBuf>,
    tree: Vec<String>,
    impls: Vec<String>,
    groups: Vec<(PathBuf, u32, u32)>,
}

/// The stored effects, each file's group decoded only when needed.
struct Memo<'a> {
    head: MemoHead,
    body: &'a [u8],
}

impl<'a> Memo<'a> {
    fn decode(bytes: &'a [u8]) -> Option<Memo<'a>> {
        let (head, body) = split_outline(bytes)?;
        let head: MemoHead = postcard::from_bytes(head).ok()?;
        head.groups
            .iter()
            .all(|(_, at, len)| body.len() >= (*at as usize) + (*len as usize))
            .then_some(Memo { head, body })
    }

    fn group(&self, i: usize) -> Option<Vec<(walk::Instance, walk::Effects)>> {
        let (file, at, len) = &self.head.groups[i];
        let mut list: Vec<(walk::Instance, walk::Effects)> =
            postcard::from_bytes(&self.body[*at as usize..(*at + *len) as usize]).ok()?;
        // The group's file is stored once (see `encode_group`).
        for (_, e) in &mut list {
            for n in &mut e.needs {
                if n.file.as_os_str().is_empty() {
                    n.file.clone_from(file);
                }
            }
            for w in &mut e.warnings {
                if w.file.as_os_str().is_empty() {
                    w.file.clone_from(file);
                }
            }
        }
        Some(list)
    }

    fn group_bytes(&self, i: usize) -> &'a [u8] {
        let (_, at, len) = &self.head.groups[i];
        &self.body[*at as usize..(*at + *len) as usize]
    }
}

/// A [`walk::Need`] as stored, its file left empty when it is the group's.
#[derive(Serialize)]
struct NeedOut<'a> {
    group: &'a str,
    resource: &'a str,
    verb: &'a str,
    file: &'a Path,
    line: usize,
    call: &'a str,
}

/// A [`walk::Warning`] as stored.
#[derive(Serialize)]
struct WarningOut<'a> {
    file: &'a Path,
    line: usize,
    message: &'a str,
    unresolved: &'a Option<walk::Unresolved>,
}

/// [`walk::Effects`] as stored.
#[derive(Serialize)]
struct EffectsOut<'a> {
    needs: Vec<NeedOut<'a>>,
    warnings: Vec<WarningOut<'a>>,
    pushed: &'a [walk::Instance],
    deps: &'a [crate::source::ModKey],
    impls: bool,
}

/// The effects of one file's instances, encoded as `Vec<(Instance, Effects)>` with every need's and warning's
/// file left empty when it is `file` (always, as a need or warning is in the file of the fn that makes it).
fn encode_group(file: &Path, list: &[(walk::Instance, walk::Effects)], out: &mut Vec<u8>) -> bool {
    let none = Path::new("");
    let rows: Vec<(&walk::Instance, EffectsOut)> = list
        .iter()
        .map(|(inst, e)| {
            let needs = e
                .needs
                .iter()
                .map(|n| NeedOut {
                    group: &n.group,
                    resource: &n.resource,
                    verb: &n.verb,
                    file: if n.file.as_os_str() == file.as_os_str() { none } else { &n.file },
                    line: n.line,
                    call: &n.call,
                })
                .collect();
            let warnings = e
                .warnings
                .iter()
                .map(|w| WarningOut {
                    file: if w.file.as_os_str() == file.as_os_str() { none } else { &w.file },
                    line: w.line,
                    message: &w.message,
                    unresolved: &w.unresolved,
                })
                .collect();
            (inst, EffectsOut { needs, warnings, pushed: &e.pushed, deps: &e.deps, impls: e.impls })
        })
        .collect();
    postcard::to_io(&rows, out).is_ok()
}

/// `[outline length][outline][body]`.
fn split_outline(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let n = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    Some((bytes.get(4..4 + n)?, bytes.get(4 + n..)?))
}

fn join_outline(head: &[u8], body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + head.len() + body.len());
    out.extend_from_slice(&(head.len() as u32).to_le_bytes());
    out.extend_from_slice(head);
    out.extend_from_slice(body);
    out
}

/// A group to store: freshly recorded, or the stored bytes of an unchanged one.
enum GroupOut<'a> {
    New(&'a [(walk::Instance, walk::Effects)]),
    Stored(&'a [u8]),
}

/// The inference cache of one set of crate roots.
pub struct Cache {
    dir: CacheDir,
    last: std::cell::Cell<Option<Outcome>>,
    /// Folders whose files never change (dependencies' registry or git sources): their probes hold unread.
    immutable: Vec<PathBuf>,
}

/// How the last [`Cache::infer`] got its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing changed: the stored inference.
    Unchanged,
    /// Files changed inside fn bodies, and reading their fns again queued exactly what it did before: only their
    /// needs and warnings were replaced.
    Reread,
    /// Files changed inside fn bodies: `parsed` files read in full, the rest from skeletons and stored effects.
    Replayed {
        /// Files parsed in full.
        parsed: usize,
    },
    /// Everything read.
    Full,
}

/// A file read in this run: `None` when it cannot be read, else its text (kept only when a reader asked for it)
/// and its fingerprint.
type ReadFile = Option<(Option<String>, u128)>;

/// Files read in this run, each once: the text (or `None` when it cannot be read) and its fingerprint.
#[derive(Default)]
struct Reads {
    /// Path → `None` when it cannot be read, else its text (kept only when a reader asked for it) and fingerprint.
    files: RefCell<HashMap<PathBuf, ReadFile>>,
}

impl Reads {
    fn get(&self, read: &dyn Fn(&Path) -> std::io::Result<String>, path: &Path) -> std::io::Result<String> {
        match self.files.borrow().get(path) {
            Some(None) => return Err(std::io::ErrorKind::NotFound.into()),
            Some(Some((Some(t), _))) => return Ok(t.clone()),
            _ => {}
        }
        let got = read(path);
        let entry = got.as_ref().ok().map(|t| (Some(t.clone()), fingerprint(t.as_bytes())));
        self.files.borrow_mut().insert(path.to_path_buf(), entry);
        got
    }

    /// The fingerprint of a file's text (the text is not kept).
    fn fingerprint(&self, read: &dyn Fn(&Path) -> std::io::Result<String>, path: &Path) -> Option<u128> {
        if !self.files.borrow().contains_key(path) {
            let got = read(path).ok().map(|t| (None, fingerprint(t.as_bytes())));
            self.files.borrow_mut().insert(path.to_path_buf(), got);
        }
        self.known(path)
    }

    /// Takes `path` as holding what it held when `hash` was taken (`None`: missing), without reading it: a file of
    /// a folder that never changes. Its text is read only if asked for.
    fn assume(&self, path: &Path, hash: Option<u128>) {
        self.files.borrow_mut().entry(path.to_path_buf()).or_insert(hash.map(|h| (None, h)));
    }

    /// The fingerprint of a file already read.
    fn known(&self, path: &Path) -> Option<u128> {
        self.files.borrow().get(path).and_then(|e| e.as_ref().map(|(_, h)| *h))
    }

    /// [`Reads::get`], except that a file outside `full` that was read already gives an empty text: it is loaded
    /// from its skeleton, which does not need it.
    fn get_for(
        &self,
        read: &dyn Fn(&Path) -> std::io::Result<String>,
        path: &Path,
        full: &HashSet<PathBuf>,
    ) -> std::io::Result<String> {
        if !full.contains(path)
            && let Some(known) = self.files.borrow().get(path)
        {
            return known.as_ref().map(|_| String::new()).ok_or_else(|| std::io::ErrorKind::NotFound.into());
        }
        self.get(read, path)
    }

    fn probes(&self) -> Vec<(PathBuf, Option<u128>)> {
        let mut out: Vec<_> =
            self.files.borrow().iter().map(|(p, e)| (p.clone(), e.as_ref().map(|(_, h)| *h))).collect();
        out.sort_unstable_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
        out
    }
}

/// What a changed file is now: its fingerprint and parsed items.
type Parsed = HashMap<PathBuf, (u128, Vec<syn::Item>)>;

impl Cache {
    /// The cache for crates whose first root is `root` (an absolute path, as the commands give), when there is a
    /// target directory to keep it in.
    pub fn for_root(root: &Path) -> Option<Cache> {
        if !root.is_absolute() {
            return None;
        }
        let dir = root.parent()?;
        CacheDir::for_sources(dir, "rbac-cache").map(|dir| Cache {
            dir,
            last: Default::default(),
            immutable: Vec::new(),
        })
    }

    /// A cache in `dir` itself (tests).
    #[cfg(test)]
    pub(crate) fn at(dir: &Path) -> Cache {
        Cache { dir: CacheDir::at(dir), last: Default::default(), immutable: Vec::new() }
    }

    /// The cache, with `dirs` as folders whose files never change (a registry crate's `<name>-<version>`, a git
    /// checkout's revision): a stored probe there is taken as it was, without reading the file again.
    pub fn with_immutable(mut self, dirs: Vec<PathBuf>) -> Cache {
        self.immutable = dirs;
        self
    }

    /// How the last inference through this cache got its answer (tests).
    #[cfg(test)]
    pub(crate) fn last_outcome(&self) -> Option<Outcome> {
        self.last.get()
    }

    /// The folder the cache files are in (tests).
    #[cfg(test)]
    pub(crate) fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// One file per roots and binary, and per kube-runtime version (the lock is not among the files a run reads
    /// through the cache, and the events recorder's verbs follow it).
    fn file_name(roots: &Roots, bin: Option<&str>) -> String {
        let runtime = super::kube_api::kube_runtime_version(roots, &crate::source::modules::read_disk);
        format!("infer-{:032x}.bin", fingerprint(format!("{roots:?}{bin:?}{runtime:?}").as_bytes()))
    }

    /// Inference over `roots`, reusing what the last run over the same roots stored (see the module docs).
    pub fn infer(
        &self,
        roots: Roots,
        bin: Option<&str>,
        read: &dyn Fn(&Path) -> std::io::Result<String>,
    ) -> Result<Inference, InferError> {
        let name = Self::file_name(&roots, bin);
        let reads = Reads::default();
        let stored = self.dir.read(&name);
        let sections = stored.as_deref().and_then(|b| decode_sections(b, FORMAT));
        let head: Option<Head> = sections.as_ref().and_then(|s| s.get(0)).and_then(|b| postcard::from_bytes(b).ok());
        let mut known: HashMap<u128, &[u8]> = HashMap::new();
        if let (Some(head), Some(sections)) = (head, &sections)
            && head.roots == roots
            && head.bin.as_deref() == bin
        {
            let changed: Vec<(PathBuf, Option<u128>)> = head
                .probes
                .iter()
                .filter(|(p, h)| {
                    if self.immutable.iter().any(|d| p.starts_with(d)) {
                        reads.assume(p, *h);
                        return false;
                    }
                    reads.fingerprint(read, p) != *h
                })
                .cloned()
                .collect();
            if changed.is_empty() {
                self.last.set(Some(Outcome::Unchanged));
                return Ok(head.inference);
            }
            if let Some(bytes) = sections.get(2) {
                known = skeleton_index(bytes).unwrap_or_default();
            }
            let memo = if head.replayable { sections.get(1).and_then(Memo::decode) } else { None };
            let mut head = head;
            if let Some(memo) = memo {
                let ctx = Ctx { roots: &roots, bin, read, reads: &reads, known: &known };
                if let Some((parsed, same)) = ctx.parse_changed(&changed) {
                    let changed: HashSet<PathBuf> = parsed.keys().cloned().collect();
                    // A resource impl's values may sit in fn bodies and consts, which skeletons leave out: an
                    // edit where they were read, or a new impl, reads everything.
                    let resources_changed = memo.head.own.impl_files.iter().any(|f| changed.contains(f))
                        || parsed.values().any(|(_, items)| resource_impl::has_resource_impl(items));
                    let parsed = RefCell::new(parsed);
                    if resources_changed {
                        // Falls through to the full read below.
                    } else if same {
                        if let Some(done) = self.reread(&ctx, &mut head, &memo, &parsed) {
                            return Ok(done);
                        }
                        if let Some(done) = self.replay(&ctx, &memo, &parsed, &changed, false) {
                            return Ok(done);
                        }
                    } else if !memo.head.spec_files.iter().any(|f| changed.contains(f))
                        && !parsed.borrow().values().any(|(_, items)| has_custom_resource(items))
                        && let Some(done) = self.replay(&ctx, &memo, &parsed, &changed, true)
                    {
                        return Ok(done);
                    }
                }
            }
        }
        self.full(roots, bin, read, &reads, &known)
    }

    /// Reads everything and stores the result.
    fn full(
        &self,
        roots: Roots,
        bin: Option<&str>,
        read: &dyn Fn(&Path) -> std::io::Result<String>,
        reads: &Reads,
        known: &HashMap<u128, &[u8]>,
    ) -> Result<Inference, InferError> {
        let skeletons: RefCell<Vec<(u128, Vec<u8>)>> = RefCell::default();
        let read_once = |p: &Path| reads.get(read, p);
        let parse = |path: &Path, text: &str| -> Result<Vec<Entry>, SourceError> {
            let items = parse_code_items(path, text)?;
            let hash = reads.known(path).unwrap_or_else(|| fingerprint(text.as_bytes()));
            let bytes = match known.get(&hash) {
                Some(b) => b.to_vec(),
                None => encode_skeleton(&items),
            };
            skeletons.borrow_mut().push((hash, bytes));
            Ok(entries(items))
        };
        let walked = walk_roots(roots.clone(), bin, &read_once, &parse, None, true, None)?;
        self.last.set(Some(Outcome::Full));
        let groups: Vec<(&Path, GroupOut)> =
            walked.recorded.iter().map(|(p, g)| (p.as_path(), GroupOut::New(g))).collect();
        let memo = memo_head(&walked);
        let replayable = !walked.order_dependent;
        let skeletons = skeletons.into_inner();
        let skeletons: Vec<(u128, &[u8])> = skeletons.iter().map(|(h, b)| (*h, b.as_slice())).collect();
        self.store(roots, bin, reads, &walked.inference, replayable, memo, &groups, &skeletons);
        Ok(walked.inference)
    }

    /// After an edit inside fn bodies: the changed files' instances read again, alone. When each queues exactly
    /// what it queued before, the rest of the walk is what it was, and the inference is the stored one with the
    /// changed files' needs and warnings (a need or warning is always in the file of the fn that makes it)
    /// replaced. `None` when a changed instance queues anything else.
    fn reread(&self, ctx: &Ctx, head: &mut Head, memo: &Memo, parsed: &RefCell<Parsed>) -> Option<Inference> {
        let in_full: HashSet<PathBuf> = parsed.borrow().keys().cloned().collect();
        let groups: Vec<usize> =
            (0..memo.head.groups.len()).filter(|&i| in_full.contains(&memo.head.groups[i].0)).collect();
        let mut stored = Vec::new();
        for &i in &groups {
            stored.push(memo.group(i)?);
        }
        let skeletons: RefCell<Vec<(u128, Vec<u8>)>> = RefCell::default();
        let parse = ctx.parser(&in_full, parsed, &skeletons, None);
        let read_once = |p: &Path| ctx.reads.get_for(ctx.read, p, &in_full);
        let Loaded { prog, kinds, entries, recorder_verbs, .. } =
            load(ctx.roots.clone(), ctx.bin, &read_once, &parse, Some(&memo.head.own)).ok()?;
        let mut engine = walk::Engine::new(&prog, kinds);
        engine.recorder_verbs = recorder_verbs;
        // Stored kind ids are kept as they are: the own kinds come first in the same order, the others after.
        for (i, r) in memo.head.kinds.iter().enumerate() {
            if engine.kinds.id(r) != i {
                return None;
            }
        }
        let mut fresh: Vec<Vec<(walk::Instance, walk::Effects)>> = Vec::new();
        let (mut needs, mut warnings) = (Vec::new(), Vec::new());
        for group in stored {
            let mut out = Vec::new();
            for (inst, old) in group {
                let new = engine.read_alone(&inst);
                if new.pushed != old.pushed || engine.order_dependent || !engine.missing.is_empty() {
                    return None;
                }
                needs.extend(new.needs.iter().cloned());
                warnings.extend(new.warnings.iter().cloned());
                out.push((inst, new));
            }
            fresh.push(out);
        }
        let changed: HashSet<&Path> = in_full.iter().map(PathBuf::as_path).collect();
        if loaded_entries_differ(&entries, &head.inference.entries) {
            return None;
        }
        needs.extend(
            std::mem::take(&mut head.inference.needs).into_iter().filter(|n| !changed.contains(n.file.as_path())),
        );
        warnings.extend(
            std::mem::take(&mut head.inference.warnings).into_iter().filter(|w| !changed.contains(w.file.as_path())),
        );
        needs.sort();
        needs.dedup();
        warnings.sort();
        warnings.dedup();
        let inference = Inference { needs, warnings, entries };
        let kinds = engine.kinds.list.clone();
        if crate::source::forget::forgets_trees() {
            std::mem::forget(engine);
            std::mem::forget(prog);
        }
        self.last.set(Some(Outcome::Reread));
        let mut out: Vec<(&Path, GroupOut)> = Vec::new();
        let mut next = fresh.iter();
        for (i, (path, _, _)) in memo.head.groups.iter().enumerate() {
            if groups.contains(&i) {
                out.push((path, GroupOut::New(next.next()?)));
            } else {
                out.push((path, GroupOut::Stored(memo.group_bytes(i))));
            }
        }
        let head_out = MemoHead {
            kinds,
            own: memo.head.own.clone(),
            spec_files: memo.head.spec_files.clone(),
            tree: memo.head.tree.clone(),
            impls: memo.head.impls.clone(),
            groups: Vec::new(),
        };
        let noted = skeletons.take();
        let skeletons = ctx.all_skeletons(&noted);
        self.store(ctx.roots.clone(), ctx.bin, ctx.reads, &inference, true, head_out, &out, &skeletons);
        Some(inference)
    }

    /// After an edit: changed files parsed, the others loaded from their skeletons, and a walk that replays the
    /// stored effects of every instance whose fn is in an unchanged file. When the changed files' items changed
    /// (`items_changed`), the module tree and the impls must be the ones recorded, and instances that looked at a
    /// module of a changed file are read again too. `None` when that cannot give the full read's result.
    fn replay(
        &self,
        ctx: &Ctx,
        memo: &Memo,
        parsed: &RefCell<Parsed>,
        changed: &HashSet<PathBuf>,
        items_changed: bool,
    ) -> Option<Inference> {
        let mut stored = Vec::new();
        for i in 0..memo.head.groups.len() {
            if !changed.contains(&memo.head.groups[i].0) {
                stored.extend(memo.group(i)?);
            }
        }
        let mut in_full: HashSet<PathBuf> = changed.clone();
        for _ in 0..=MAX_EXTRA_FILES {
            let bodiless: RefCell<HashSet<PathBuf>> = RefCell::default();
            let skeletons: RefCell<Vec<(u128, Vec<u8>)>> = RefCell::default();
            let walked = {
                let parse = ctx.parser(&in_full, parsed, &skeletons, Some(&bodiless));
                let read_once = |p: &Path| ctx.reads.get_for(ctx.read, p, &in_full);
                let replay = Replay {
                    kinds: &memo.head.kinds,
                    entries: stored.clone(),
                    changed,
                    bodiless: &bodiless,
                    check_deps: items_changed,
                    expect: items_changed.then_some((memo.head.tree.as_slice(), memo.head.impls.as_slice())),
                };
                walk_roots(ctx.roots.clone(), ctx.bin, &read_once, &parse, Some(replay), true, Some(&memo.head.own))
                    .ok()?
            };
            if walked.stale {
                return None;
            }
            match walked.missing.is_empty() {
                // Unchanged files whose bodies are needed: load them in full too, and walk again.
                false => {
                    let before = in_full.len();
                    in_full.extend(walked.missing.iter().cloned());
                    if in_full.len() == before {
                        return None;
                    }
                }
                true if walked.order_dependent => return None,
                true => {
                    self.last.set(Some(Outcome::Replayed { parsed: in_full.len() }));
                    let groups: Vec<(&Path, GroupOut)> =
                        walked.recorded.iter().map(|(p, g)| (p.as_path(), GroupOut::New(g))).collect();
                    let head = memo_head(&walked);
                    let noted = skeletons.take();
                    let skeletons = ctx.all_skeletons(&noted);
                    self.store(
                        ctx.roots.clone(),
                        ctx.bin,
                        ctx.reads,
                        &walked.inference,
                        true,
                        head,
                        &groups,
                        &skeletons,
                    );
                    return Some(walked.inference);
                }
            }
        }
        None
    }

    #[allow(clippy::too_many_arguments)]
    fn store(
        &self,
        roots: Roots,
        bin: Option<&str>,
        reads: &Reads,
        inference: &Inference,
        replayable: bool,
        mut memo: MemoHead,
        groups: &[(&Path, GroupOut)],
        skeletons: &[(u128, &[u8])],
    ) {
        let name = Self::file_name(&roots, bin);
        let head = HeadRef { roots: &roots, bin, probes: reads.probes(), replayable, inference };
        let mut body = Vec::new();
        for (path, g) in groups {
            let at = body.len();
            match g {
                GroupOut::New(list) => {
                    if !encode_group(path, list, &mut body) {
                        return;
                    }
                }
                GroupOut::Stored(bytes) => body.extend_from_slice(bytes),
            }
            memo.groups.push((path.to_path_buf(), at as u32, (body.len() - at) as u32));
        }
        let (Ok(head), Ok(outline)) = (postcard::to_allocvec(&head), postcard::to_allocvec(&memo)) else { return };
        let memo = join_outline(&outline, &body);
        let mut index = Vec::new();
        let mut seen = HashSet::new();
        for (hash, bytes) in skeletons {
            if seen.insert(*hash) {
                index.extend_from_slice(&hash.to_le_bytes());
                index.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
                index.extend_from_slice(bytes);
            }
        }
        // A cache that cannot be written is no cache: the result stands.
        let header = encode_header(FORMAT, &[&head, &memo, &index]);
        let _ = self.dir.write_parts(&name, &[&header, &head, &memo, &index]);
    }
}

/// What the runs after an edit share.
struct Ctx<'a> {
    roots: &'a Roots,
    bin: Option<&'a str>,
    read: &'a dyn Fn(&Path) -> std::io::Result<String>,
    reads: &'a Reads,
    known: &'a HashMap<u128, &'a [u8]>,
}

impl<'a> Ctx<'a> {
    /// The changed files parsed, when each existed before and still does, and whether each has the skeleton
    /// stored for its old text.
    fn parse_changed(&self, changed: &[(PathBuf, Option<u128>)]) -> Option<(Parsed, bool)> {
        let mut parsed = HashMap::new();
        let mut same = true;
        for (path, old) in changed {
            let text = self.reads.get(self.read, path).ok()?;
            let stored = self.known.get(&(*old)?)?;
            let items = parse_code_items(path, &text).ok()?;
            same = same && encode_skeleton(&items) == *stored;
            parsed.insert(path.clone(), (fingerprint(text.as_bytes()), items));
        }
        Some((parsed, same))
    }

    /// Entries of files in `in_full` from their parsed items (parsed again when taken already), of the others
    /// from their stored skeletons (noted in `bodiless`); every file's skeleton is noted in `skeletons`.
    fn parser<'p>(
        &'p self,
        in_full: &'p HashSet<PathBuf>,
        parsed: &'p RefCell<Parsed>,
        skeletons: &'p RefCell<Vec<(u128, Vec<u8>)>>,
        bodiless: Option<&'p RefCell<HashSet<PathBuf>>>,
    ) -> impl Fn(&Path, &str) -> Result<Vec<Entry>, SourceError> + 'p {
        move |path: &Path, text: &str| {
            let hash = self.reads.known(path).unwrap_or_else(|| fingerprint(text.as_bytes()));
            let stored = self.known.get(&hash).copied();
            if in_full.contains(path) {
                let items = match parsed.borrow_mut().remove(path) {
                    Some((_, items)) => items,
                    None => parse_code_items(path, text)?,
                };
                let bytes = stored.map(<[u8]>::to_vec).unwrap_or_else(|| encode_skeleton(&items));
                skeletons.borrow_mut().push((hash, bytes));
                return Ok(entries(items));
            }
            let no_skeleton =
                || SourceError { path: path.into(), line: 0, column: 0, message: "no stored skeleton".into() };
            let bytes = stored.ok_or_else(no_skeleton)?;
            let list = skeleton::entries(&Arc::from(bytes)).ok_or_else(no_skeleton)?;
            skeletons.borrow_mut().push((hash, Vec::new()));
            if let Some(b) = bodiless {
                b.borrow_mut().insert(path.to_path_buf());
            }
            Ok(list)
        }
    }

    /// The skeletons to store: those noted while loading, the stored bytes standing in for empty ones.
    fn all_skeletons<'n>(&'n self, noted: &'n [(u128, Vec<u8>)]) -> Vec<(u128, &'n [u8])> {
        noted
            .iter()
            .map(|(hash, bytes)| match self.known.get(hash) {
                Some(b) if bytes.is_empty() => (*hash, *b),
                _ => (*hash, bytes.as_slice()),
            })
            .collect()
    }
}

/// The outline of the effects a walk recorded (groups are added as they are written).
fn memo_head(walked: &Walked) -> MemoHead {
    MemoHead {
        kinds: walked.kinds.clone(),
        own: walked.own.clone(),
        spec_files: walked.spec_files.clone(),
        tree: walked.tree.clone(),
        impls: walked.impls.clone(),
        groups: Vec::new(),
    }
}

/// Whether items (inline modules included) hold a `#[derive(CustomResource)]` struct.
fn has_custom_resource(items: &[syn::Item]) -> bool {
    items.iter().any(|i| match i {
        syn::Item::Struct(s) => crate::source::kube_attrs::derives_custom_resource(&s.attrs),
        syn::Item::Mod(m) => m.content.as_ref().is_some_and(|(_, inner)| has_custom_resource(inner)),
        _ => false,
    })
}

/// Whether the entry points differ (they cannot when the skeletons are the same; checked all the same).
fn loaded_entries_differ(now: &[String], stored: &[String]) -> bool {
    now != stored
}

/// The stored skeletons by the fingerprint of their file's text.
fn skeleton_index(mut bytes: &[u8]) -> Option<HashMap<u128, &[u8]>> {
    let mut out = HashMap::new();
    while !bytes.is_empty() {
        if bytes.len() < 24 {
            return None;
        }
        let hash = u128::from_le_bytes(bytes[..16].try_into().ok()?);
        let len = usize::try_from(u64::from_le_bytes(bytes[16..24].try_into().ok()?)).ok()?;
        let rest = &bytes[24..];
        if rest.len() < len {
            return None;
        }
        out.insert(hash, &rest[..len]);
        bytes = &rest[len..];
    }
    Some(out)
}

/// A file's skeleton, encoded: struct attributes are kept for `#[derive(CustomResource)]` specs, which register
/// kinds.
fn encode_skeleton(items: &[syn::Item]) -> Vec<u8> {
    skeleton::encode(items, &|s| crate::source::kube_attrs::derives_custom_resource(&s.attrs))
}

#[cfg(test)]
mod tests;
