//! The inference cache: `make manifests` runs inference on every call, so what the last run read and found is kept
//! under the cargo target directory (`<target>/kubesmith/rbac-cache/infer-<roots>.bin`, see
//! [`crate::source::cache`]) and a run reads only what changed since.
//!
//! The file holds, for one set of crate roots and `--bin`:
//! - every path the last run read (or looked for), with the fingerprint of its text: when none changed, the
//!   inference it found is the answer, and nothing is parsed;
//! - each file's [`Skeleton`] (items without bodies), by the fingerprint of its text;
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

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{InferError, Inference, Replay, Walked, parse_code, resources::Resource, walk, walk_roots};
use crate::source::SourceError;
use crate::source::cache::{CacheDir, decode_sections, encode_sections, fingerprint};
use crate::source::skeleton::Skeleton;

/// Bumped whenever what the file holds, or what the walk records, changes meaning.
const FORMAT: u32 = 1;

/// How many files an instance may pull in full before a full read is cheaper.
const MAX_EXTRA_FILES: usize = 8;

/// The crate roots of a run: `(crate name, root file, is a binary)`.
type Roots = Vec<(String, PathBuf, bool)>;

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

#[derive(Serialize, Deserialize)]
struct Memo {
    kinds: Vec<Resource>,
    entries: Vec<(walk::Instance, walk::Effects)>,
}

/// The inference cache of one set of crate roots.
pub struct Cache {
    dir: CacheDir,
    last: std::cell::Cell<Option<Outcome>>,
}

/// How the last [`Cache::infer`] got its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing changed: the stored inference.
    Unchanged,
    /// Files changed inside fn bodies: `parsed` files read in full, the rest from skeletons and stored effects.
    Replayed {
        /// Files parsed in full.
        parsed: usize,
    },
    /// Everything read.
    Full,
}

/// Files read in this run, each once: the text (or `None` when it cannot be read) and its fingerprint.
#[derive(Default)]
struct Reads {
    files: RefCell<BTreeMap<PathBuf, Option<(String, u128)>>>,
}

impl Reads {
    fn get(&self, read: &dyn Fn(&Path) -> std::io::Result<String>, path: &Path) -> std::io::Result<String> {
        if let Some(known) = self.files.borrow().get(path) {
            return known.as_ref().map(|(t, _)| t.clone()).ok_or_else(|| std::io::ErrorKind::NotFound.into());
        }
        let got = read(path);
        let entry = got.as_ref().ok().map(|t| (t.clone(), fingerprint(t.as_bytes())));
        self.files.borrow_mut().insert(path.to_path_buf(), entry);
        got
    }

    fn fingerprint(&self, read: &dyn Fn(&Path) -> std::io::Result<String>, path: &Path) -> Option<u128> {
        let _ = self.get(read, path);
        self.files.borrow().get(path).and_then(|e| e.as_ref().map(|(_, h)| *h))
    }

    fn probes(&self) -> Vec<(PathBuf, Option<u128>)> {
        self.files.borrow().iter().map(|(p, e)| (p.clone(), e.as_ref().map(|(_, h)| *h))).collect()
    }
}

impl Cache {
    /// The cache for crates whose first root is `root` (an absolute path, as the commands give), when there is a
    /// target directory to keep it in.
    pub fn for_root(root: &Path) -> Option<Cache> {
        if !root.is_absolute() {
            return None;
        }
        let dir = root.parent()?;
        CacheDir::for_sources(dir, "rbac-cache").map(|dir| Cache { dir, last: Default::default() })
    }

    /// A cache in `dir` itself (tests).
    pub fn at(dir: &Path) -> Cache {
        Cache { dir: CacheDir::at(dir), last: Default::default() }
    }

    /// How the last inference through this cache got its answer.
    pub fn last_outcome(&self) -> Option<Outcome> {
        self.last.get()
    }

    /// The folder the cache files are in.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    fn file_name(roots: &Roots, bin: Option<&str>) -> String {
        format!("infer-{:032x}.bin", fingerprint(format!("{roots:?}{bin:?}").as_bytes()))
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
        let head: Option<Head> = sections.as_ref().and_then(|s| s.get(0)).and_then(|b| bincode::deserialize(b).ok());
        let mut known: HashMap<u128, &[u8]> = HashMap::new();
        if let Some(head) = head.filter(|h| h.roots == roots && h.bin.as_deref() == bin) {
            let changed: Vec<&(PathBuf, Option<u128>)> =
                head.probes.iter().filter(|(p, h)| reads.fingerprint(read, p) != *h).collect();
            if changed.is_empty() {
                self.last.set(Some(Outcome::Unchanged));
                return Ok(head.inference);
            }
            let sections = sections.as_ref().expect("a head was decoded from them");
            if let Some(bytes) = sections.get(2) {
                known = skeleton_index(bytes).unwrap_or_default();
            }
            let memo: Option<Memo> =
                if head.replayable { sections.get(1).and_then(|b| bincode::deserialize(b).ok()) } else { None };
            if let Some(memo) = memo {
                let changed: Vec<(PathBuf, u128)> =
                    changed.iter().map(|(p, h)| (p.clone(), h.unwrap_or_default())).collect();
                if let Some(done) = self.replay(&roots, bin, read, &reads, &known, memo, &changed) {
                    return Ok(done);
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
        let parse = |path: &Path, text: &str| -> Result<Vec<syn::Item>, SourceError> {
            let items = parse_code(path, text)?;
            let hash = fingerprint(text.as_bytes());
            let bytes = match known.get(&hash) {
                Some(b) => b.to_vec(),
                None => encode_skeleton(&items),
            };
            skeletons.borrow_mut().push((hash, bytes));
            Ok(items)
        };
        let walked = walk_roots(roots.clone(), bin, &read_once, &parse, None, true)?;
        self.last.set(Some(Outcome::Full));
        self.store(roots, bin, reads, &walked, &skeletons.into_inner());
        Ok(walked.inference)
    }

    /// The run after an edit that left every changed file's skeleton as it was: changed files parsed, the others
    /// loaded from their skeletons, stored effects replayed. `None` when that cannot give the full read's result.
    #[allow(clippy::too_many_arguments)]
    fn replay(
        &self,
        roots: &Roots,
        bin: Option<&str>,
        read: &dyn Fn(&Path) -> std::io::Result<String>,
        reads: &Reads,
        known: &HashMap<u128, &[u8]>,
        memo: Memo,
        changed: &[(PathBuf, u128)],
    ) -> Option<Inference> {
        // Every changed path existed before and still does, with the same skeleton.
        let mut parsed: HashMap<PathBuf, (u128, Vec<syn::Item>)> = HashMap::new();
        for (path, old) in changed {
            let text = reads.get(read, path).ok()?;
            let stored = known.get(old)?;
            let items = parse_code(path, &text).ok()?;
            if encode_skeleton(&items) != *stored {
                return None;
            }
            parsed.insert(path.clone(), (fingerprint(text.as_bytes()), items));
        }
        let changed: HashSet<PathBuf> = parsed.keys().cloned().collect();
        let mut in_full: HashSet<PathBuf> = changed.clone();
        let parsed = RefCell::new(parsed);
        for _ in 0..=MAX_EXTRA_FILES {
            let bodiless: RefCell<HashSet<PathBuf>> = RefCell::default();
            let skeletons: RefCell<Vec<(u128, Vec<u8>)>> = RefCell::default();
            let read_once = |p: &Path| reads.get(read, p);
            let parse = |path: &Path, text: &str| -> Result<Vec<syn::Item>, SourceError> {
                let hash = fingerprint(text.as_bytes());
                let stored = known.get(&hash).copied();
                if in_full.contains(path) {
                    let items = match parsed.borrow_mut().remove(path) {
                        Some((_, items)) => items,
                        None => parse_code(path, text)?,
                    };
                    let bytes = stored.map(<[u8]>::to_vec).unwrap_or_else(|| encode_skeleton(&items));
                    skeletons.borrow_mut().push((hash, bytes));
                    return Ok(items);
                }
                let no_skeleton =
                    || SourceError { path: path.into(), line: 0, column: 0, message: "no stored skeleton".into() };
                let bytes = stored.ok_or_else(no_skeleton)?;
                let skeleton: Skeleton = bincode::deserialize(bytes).map_err(|_| no_skeleton())?;
                skeletons.borrow_mut().push((hash, bytes.to_vec()));
                bodiless.borrow_mut().insert(path.to_path_buf());
                Ok(skeleton.items())
            };
            let replay = Replay { kinds: &memo.kinds, entries: &memo.entries, changed: &changed, bodiless: &bodiless };
            let walked = walk_roots(roots.clone(), bin, &read_once, &parse, Some(replay), true).ok()?;
            match walked.missing.clone() {
                // An unchanged file whose body is needed: load it in full too, and walk again.
                Some(file) => {
                    if !in_full.insert(file) {
                        return None;
                    }
                }
                None if walked.order_dependent => return None,
                None => {
                    self.last.set(Some(Outcome::Replayed { parsed: in_full.len() }));
                    self.store(roots.clone(), bin, reads, &walked, &skeletons.into_inner());
                    return Some(walked.inference);
                }
            }
        }
        None
    }

    fn store(&self, roots: Roots, bin: Option<&str>, reads: &Reads, walked: &Walked, skeletons: &[(u128, Vec<u8>)]) {
        let name = Self::file_name(&roots, bin);
        let head = Head {
            roots,
            bin: bin.map(str::to_string),
            probes: reads.probes(),
            replayable: !walked.order_dependent,
            inference: walked.inference.clone(),
        };
        let memo = Memo { kinds: walked.kinds.clone(), entries: walked.recorded.clone() };
        let (Ok(head), Ok(memo)) = (bincode::serialize(&head), bincode::serialize(&memo)) else { return };
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
        let _ = self.dir.write(&name, &encode_sections(FORMAT, &[&head, &memo, &index]));
    }
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
    let file = syn::File { shebang: None, attrs: Vec::new(), items: items.to_vec() };
    let skeleton = Skeleton::of(&file, &|s| crate::crd::derives_custom_resource(&s.attrs));
    bincode::serialize(&skeleton).unwrap_or_default()
}

#[cfg(test)]
mod tests;
