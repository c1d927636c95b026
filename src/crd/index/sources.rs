//! Source files as the crate index reads them: the `.rs` files under the source folder read once, planned
//! contents overlaid, and what a first load learned of each text, shared by every index of the set and its clones.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::PathMap;
use super::prescan::{StubNames, prescan, prescan_elsewhere};
use super::scan::names_api_group_or_crd;
use crate::crd::error::{CrdError, CrdErrorKind};
use crate::markers::{Marker, MarkerError};
use crate::source::lex::blank_fn_bodies;

/// Bytes of Rust under the source folder above which a crate is large: its generation is split in parts
/// ([`crate::crd::partition`]; below it the parts' shared files, the crate root and module declarations, and the
/// threads cost more than they save), and the process runs in small pages from the first read of its texts
/// ([`crate::source::forget::small_pages`]).
pub(crate) const LARGE_CRATE: u64 = 2 << 20;

/// Source files as the tool sees them: disk, optionally overlaid with planned (not yet written) contents.
#[derive(Debug, Clone)]
pub struct SourceSet {
    src_dir: PathBuf,
    overlay: HashMap<PathBuf, String>,
    /// The markers of every file read so far that scanned without errors, by path.
    pub(super) scanned: RefCell<PathMap<Vec<Marker>>>,
    /// The `.rs` files under the source folder and their sizes, once [`SourceSet::rust_files`] walked it.
    listed: std::cell::OnceCell<Vec<(PathBuf, u64)>>,
    /// The texts that walk read, shared with every index loaded from the set (each file is opened once), and what
    /// the index learned of each from its text alone, shared by the set's clones: the parts of a split generation
    /// ([`crate::crd::partition`]) each load the whole crate and look at every file.
    read_ahead: RefCell<PathMap<SourceText>>,
    /// Storage versions the project names outside the sources (PROJECT's `storageVersions`), by `(group, kind)`.
    storage_versions: Arc<BTreeMap<(String, String), String>>,
    /// The lib roots of the crate's kube-dependent dependencies by crate name, once an index needed them
    /// ([`super::deps`]): worked out from the manifests and the lock once for every index of the set and its clones.
    pub(super) dependency_roots: Arc<OnceLock<BTreeMap<String, PathBuf>>>,
    /// What the package's manifest and lock say of how its kinds are derived, read once for every index of the set
    /// and its clones ([`SourceSet::package`]).
    package: Arc<OnceLock<PackageFacts>>,
}

/// What the manifest and the lock of the package whose sources a [`SourceSet`] holds say of how its kinds' schemas
/// are generated: the same for every index of the set (the parts of a split generation each load one).
#[derive(Debug, Clone)]
pub(crate) struct PackageFacts {
    /// The features the manifest turns on for schemars; `None` without a manifest.
    pub(crate) schemars_features: Option<BTreeSet<String>>,
    /// The schemars generation its lock's schemars derives with.
    pub(crate) dialect: crate::crd::dialect::Dialect,
    /// The kube-core schema rewriting its lock's kube-core runs.
    pub(crate) rewriter: crate::crd::dialect::Rewriter,
}

/// A file's text and its [`FileFacts`], once an index worked them out.
pub(super) type SourceText = (Arc<String>, Arc<OnceLock<FileFacts>>);

/// What [`super::CrateIndex::load_part`] learns of a file from its text alone, the same for every index that loads it.
#[derive(Debug)]
pub(super) struct FileFacts {
    /// Its markers ([`crate::markers::scan`]).
    pub(super) markers: Result<Vec<Marker>, MarkerError>,
    /// Whether the parser would see a `CustomResource` in it (not only in fn bodies or `#[cfg(test)]` modules,
    /// which it skips: the shared webhook module's test kinds).
    pub(super) derives: bool,
    /// Whether its attributes may make a kind through an attribute macro (`crd::macro_kinds`).
    pub(super) macro_kinds: bool,
    /// Whether a derive in it generates a type kubesmith puts in the tree under a name the text never declares
    /// (strum's `EnumDiscriminants`: [`crate::source::expand`]), which [`prescan`]'s names would miss.
    pub(super) generates_types: bool,
    /// [`prescan`]'s answer, once a load needed it.
    prescan: OnceLock<Option<Arc<StubNames>>>,
    /// [`prescan_elsewhere`]'s answer, once a part that does not own the file needed it.
    prescan_elsewhere: OnceLock<Option<Arc<StubNames>>>,
}

impl FileFacts {
    /// The facts of `text` (of `path`), and its text with fn bodies blanked when working them out needed it.
    pub(super) fn of<'t>(path: &Path, text: &'t str) -> (Self, Option<Cow<'t, str>>) {
        let markers = if text.contains('+') { crate::markers::scan(path, text) } else { Ok(Vec::new()) };
        let mut blanked: Option<Cow<'t, str>> = None;
        let derives = text.contains("CustomResource")
            && blanked.get_or_insert_with(|| blank_fn_bodies(text)).contains("CustomResource");
        let macro_kinds = !derives
            && names_api_group_or_crd(text)
            && names_api_group_or_crd(blanked.get_or_insert_with(|| blank_fn_bodies(text)));
        let generates_types = text.contains("EnumDiscriminants");
        (
            Self {
                markers,
                derives,
                macro_kinds,
                generates_types,
                prescan: OnceLock::new(),
                prescan_elsewhere: OnceLock::new(),
            },
            blanked,
        )
    }

    pub(super) fn prescan(&self, text: &str) -> Option<Arc<StubNames>> {
        self.prescan.get_or_init(|| prescan(text).map(Arc::new)).clone()
    }

    /// [`FileFacts::prescan`] for a derive another part owns ([`prescan_elsewhere`]).
    pub(super) fn prescan_elsewhere(&self, text: &str) -> Option<Arc<StubNames>> {
        self.prescan_elsewhere.get_or_init(|| prescan_elsewhere(text).map(Arc::new)).clone()
    }
}

impl SourceSet {
    /// Sources rooted at `src_dir` (the directory holding `lib.rs` / `main.rs`).
    pub fn new(src_dir: &Path) -> Self {
        Self {
            src_dir: src_dir.to_path_buf(),
            overlay: HashMap::new(),
            scanned: RefCell::default(),
            listed: std::cell::OnceCell::new(),
            read_ahead: RefCell::default(),
            storage_versions: Arc::default(),
            dependency_roots: Arc::default(),
            package: Arc::default(),
        }
    }

    /// What the package's `Cargo.toml` and `Cargo.lock` say of its schemars and kube-core, read from disk once for
    /// the set and its clones (each lookup parses the lock).
    pub(crate) fn package(&self) -> &PackageFacts {
        self.package.get_or_init(|| {
            let dir = &self.src_dir;
            PackageFacts {
                schemars_features: crate::source::workspace::dependency_features(dir, "schemars"),
                dialect: crate::crd::dialect::Dialect::of_src_dir(dir),
                rewriter: crate::crd::dialect::Rewriter::of_src_dir(dir),
            }
        })
    }

    /// The storage version of each `(group, kind)` the project names outside the sources (PROJECT's
    /// `storageVersions`, `kubesmith adopt --storage-version`): chosen as a `+kubebuilder:storageversion` marker
    /// would choose it, for a kind whose versions the crate's own code combines where kubesmith cannot read it.
    pub fn with_storage_versions(mut self, versions: BTreeMap<(String, String), String>) -> Self {
        self.storage_versions = Arc::new(versions);
        self
    }

    /// The storage versions the project names, by `(group, kind)` ([`SourceSet::with_storage_versions`]).
    pub fn storage_versions(&self) -> &BTreeMap<(String, String), String> {
        &self.storage_versions
    }

    /// Every `.rs` file under the source folder (hidden folders skipped, 32 levels at most) with its size in bytes,
    /// read once: the texts are kept for the readers that come next (the crate index takes them), so a command
    /// that looks at the whole folder first and then parses the crate opens each file once.
    pub fn rust_files(&self) -> &[(PathBuf, u64)] {
        self.listed.get_or_init(|| {
            let mut found: Vec<(PathBuf, u64)> = Vec::new();
            let mut dirs = vec![(self.src_dir.clone(), 0usize)];
            while let Some((dir, depth)) = dirs.pop() {
                let Ok(entries) = std::fs::read_dir(&dir) else { continue };
                for entry in entries.flatten() {
                    let path = entry.path();
                    let Ok(meta) = std::fs::metadata(&path) else { continue };
                    let hidden = path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
                    if meta.is_dir() {
                        if !hidden && depth < 32 {
                            dirs.push((path, depth + 1));
                        }
                    } else if path.extension().is_some_and(|x| x == "rs") && !self.overlay.contains_key(&path) {
                        found.push((path, meta.len()));
                    }
                }
            }
            let large = found.iter().map(|(_, len)| len).sum::<u64>() > LARGE_CRATE;
            // Before the texts take their memory: a large crate runs in small pages from here on.
            if large {
                crate::source::forget::small_pages();
            }
            let mut out = Vec::with_capacity(found.len());
            let mut texts = self.read_ahead.borrow_mut();
            let read = |(path, _): (PathBuf, u64)| {
                let text = std::fs::read_to_string(&path).ok();
                (path, text)
            };
            // A large crate's on every core: most of a read is the kernel copying the file into memory it first
            // zeroes, and the wide bench crate's texts kept one core busy alone for ~5 % of `make manifests`. A small
            // crate's take less than starting a thread (~0.5 ms of a scaffold's 8 ms run).
            let read: Vec<(PathBuf, Option<String>)> =
                if large { crate::parallel::map(found, read) } else { found.into_iter().map(read).collect() };
            for (path, text) in read {
                if let Some(text) = text {
                    out.push((path.clone(), text.len() as u64));
                    texts.insert(path, (Arc::new(text), Arc::default()));
                }
            }
            // By bytes (cheaper than `Path`'s component order), for `exists`' binary search.
            out.sort_unstable_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
            out
        })
    }

    /// The files under the source folder whose [`FileFacts`] say they derive `CustomResource` (outside fn bodies),
    /// with their sizes, in [`SourceSet::rust_files`]' order: what a split generation shares out among its parts
    /// ([`crate::crd::partition`]). Each file's facts are worked out here, on every core for a large crate (a
    /// substring search of the wide bench crate's texts for the name kept one core busy alone), and every load of
    /// the set takes them as they are.
    pub(crate) fn derive_files(&self) -> Vec<(PathBuf, u64)> {
        let files = self.rust_files();
        let large = files.iter().map(|(_, len)| len).sum::<u64>() > LARGE_CRATE;
        let texts: Vec<((PathBuf, u64), Option<SourceText>)> = {
            let read = self.read_ahead.borrow();
            files.iter().map(|file| (file.clone(), read.get(&file.0).cloned())).collect()
        };
        let derives = |((path, len), text): ((PathBuf, u64), Option<SourceText>)| {
            let (text, cell) = text?;
            cell.get_or_init(|| FileFacts::of(&path, &text).0).derives.then_some((path, len))
        };
        let found = if large { crate::parallel::map(texts, derives) } else { texts.into_iter().map(derives).collect() };
        found.into_iter().flatten().collect()
    }

    /// Works out on every core what the parts of a split generation ([`crate::crd::partition`]) ask of the files
    /// read so far: each file's [`FileFacts`] and the names its stub declares (a derive's as a part that does not
    /// own it sees them). Every part loads the whole crate in the same order, so without this the first part to
    /// reach a file worked its facts out while the others waited for them. The part that owns a derive parses it
    /// and blanks its fn bodies once more, which the first reader could reuse.
    pub(crate) fn work_out_facts(&self) {
        let texts: Vec<(PathBuf, SourceText)> =
            self.read_ahead.borrow().iter().map(|(path, text)| (path.clone(), text.clone())).collect();
        crate::parallel::map(texts, |(path, (text, cell))| {
            let facts = cell.get_or_init(|| FileFacts::of(&path, &text).0);
            if facts.derives {
                facts.prescan_elsewhere(&text);
            } else if !facts.macro_kinds && !facts.generates_types {
                facts.prescan(&text);
            }
        });
    }

    /// The markers of `path` ([`crate::markers::scan`], reporting `path`), when the CRD generator read and
    /// scanned that file, so `make manifests` neither reads nor scans it again for RBAC and webhook markers.
    pub fn take_scanned(&self, path: &Path) -> Option<Vec<Marker>> {
        self.scanned.borrow_mut().remove(path)
    }

    /// Takes the scanned markers of `other` (a clone that read files on another thread) this set does not have.
    pub fn absorb_scanned(&self, other: SourceSet) {
        let mut mine = self.scanned.borrow_mut();
        for (path, markers) in other.scanned.into_inner() {
            mine.entry(path).or_insert(markers);
        }
    }

    /// Overlay planned contents. Relative paths are taken relative to the src dir.
    pub fn with_overlay(mut self, overlay: BTreeMap<PathBuf, String>) -> Self {
        for (path, text) in overlay {
            let path = if path.is_absolute() { path } else { self.src_dir.join(path) };
            self.overlay.insert(path, text);
        }
        self
    }

    /// The src dir.
    pub fn src_dir(&self) -> &Path {
        &self.src_dir
    }

    /// The planned files of the overlay.
    pub fn overlay_paths(&self) -> impl Iterator<Item = &Path> {
        self.overlay.keys().map(PathBuf::as_path)
    }

    /// A file's text as the plan leaves it (the overlay, else the disk).
    pub fn read_text(&self, path: &Path) -> std::io::Result<String> {
        if let Some(text) = self.overlay.get(path) {
            return Ok(text.clone());
        }
        if let Some(text) = self.read_ahead.borrow().get(path) {
            return Ok(text.0.to_string());
        }
        std::fs::read_to_string(path)
    }

    /// Whether the text of `path` (as [`SourceSet::read_text`] gives it) holds `needle`, without copying it.
    /// The paths among `paths` whose text holds `needle` ([`SourceSet::text_contains`]), in their order: a large
    /// crate's texts searched on every core (the wide bench crate's 21.8 MB took one core ~5 ms alone).
    pub(crate) fn paths_containing(&self, paths: &[PathBuf], needle: &str) -> Vec<PathBuf> {
        let large = self.rust_files().iter().map(|(_, len)| len).sum::<u64>() > LARGE_CRATE;
        if !large {
            return paths.iter().filter(|p| self.text_contains(p, needle)).cloned().collect();
        }
        let known: Vec<Option<Arc<String>>> = {
            let read = self.read_ahead.borrow();
            let known = |p: &PathBuf| read.get(p).filter(|_| !self.overlay.contains_key(p)).map(|t| t.0.clone());
            paths.iter().map(known).collect()
        };
        let hits = crate::parallel::map(known, |text| text.map(|t| t.contains(needle)));
        let hit = |(path, hit): (&PathBuf, Option<bool>)| hit.unwrap_or_else(|| self.text_contains(path, needle));
        paths.iter().zip(hits).filter(|&(p, h)| hit((p, h))).map(|(p, _)| p.clone()).collect()
    }

    pub fn text_contains(&self, path: &Path, needle: &str) -> bool {
        if let Some(text) = self.overlay.get(path) {
            return text.contains(needle);
        }
        if let Some(text) = self.read_ahead.borrow().get(path) {
            return text.0.contains(needle);
        }
        std::fs::read_to_string(path).is_ok_and(|t| t.contains(needle))
    }

    pub(super) fn exists(&self, path: &Path) -> bool {
        self.overlay.contains_key(path)
            || self
                .listed
                .get()
                .is_some_and(|l| l.binary_search_by(|(p, _)| p.as_os_str().cmp(path.as_os_str())).is_ok())
            || path.is_file()
    }

    /// The text of `path` and its [`FileFacts`] cell (shared by the set's clones for the files walked ahead).
    pub(super) fn read(&self, path: &Path) -> Result<SourceText, CrdError> {
        if let Some(text) = self.overlay.get(path) {
            return Ok((Arc::new(text.clone()), Arc::default()));
        }
        if let Some(known) = self.read_ahead.borrow().get(path) {
            return Ok(known.clone());
        }
        let text = std::fs::read_to_string(path).map_err(|e| CrdError::file(path, CrdErrorKind::Io(e.to_string())))?;
        Ok((Arc::new(text), Arc::default()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_worked_out_ahead_are_the_ones_a_load_works_out() {
        let dir = tempfile::tempdir().expect("tempdir");
        let derive = "#[derive(CustomResource)]\n#[kube(group = \"a.io\", version = \"v1\", kind = \"Alpha\")]\n\
                      pub struct AlphaSpec { pub size: u32 }\n";
        let mut files = vec![("lib.rs".to_string(), String::new())];
        for i in 0..12 {
            files.push((format!("k{i}.rs"), derive.replace("Alpha", &format!("Kind{i}"))));
            files.push((format!("t{i}.rs"), format!("pub struct Plain{i} {{ pub name: String }}\n")));
        }
        for (path, text) in &files {
            std::fs::write(dir.path().join(path), text).expect("write");
        }
        let sources = SourceSet::new(dir.path());
        sources.rust_files();
        sources.work_out_facts();
        let texts = sources.read_ahead.borrow();
        assert_eq!(texts.len(), files.len());
        for (path, text) in &files {
            let (read, cell) = &texts[&dir.path().join(path)];
            assert_eq!(read.as_str(), text, "{path} read as it is");
            let facts = cell.get().unwrap_or_else(|| panic!("{path}: facts worked out"));
            let (alone, _) = FileFacts::of(Path::new(path), text);
            assert_eq!(facts.derives, alone.derives, "{path}");
            if facts.derives {
                let names = facts.prescan_elsewhere.get().unwrap_or_else(|| panic!("{path}: names of its stub"));
                assert_eq!(names, &prescan_elsewhere(text).map(Arc::new), "{path}");
                assert!(facts.prescan.get().is_none(), "{path}: a derive is parsed or another part's");
            } else {
                assert_eq!(facts.prescan.get().unwrap_or_else(|| panic!("{path}")), &prescan(text).map(Arc::new));
            }
        }
    }
}
