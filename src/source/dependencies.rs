//! The crates a package calls kube through, found where cargo keeps their sources: path dependencies from the
//! manifests (and theirs, transitively), and the registry and git crates the workspace's `Cargo.lock` reaches from
//! the package, unpacked under `$CARGO_HOME/registry/src/<index>/<name>-<version>` or checked out under
//! `$CARGO_HOME/git/checkouts/<repo>-<hash>/<short rev>/` (see [`git`]). Only crates that depend on kube count;
//! kube's own crates and k8s-openapi are known by their calls, never read. Looking costs no process: when a source
//! is not on disk, [`fetch`] runs cargo to get it.
//!
//! A crate whose source is not on disk is `Unread`, with why, the fix and its line in the lock; [`uses`] finds the
//! first line of the sources naming it, where its warning points. The lock is read line by line, not as TOML (a
//! whole parse cost more than a cached inference: `docs/benchmarks.md`). [`locked`] gives the versions a lock pins
//! (the CRD generator's schemars dialect and k8s-openapi release, the RBAC table's kube-runtime).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use toml_edit::Item;

use super::Package;
use super::workspace::{normalize, read_manifest};

pub(crate) mod fetch;
pub(crate) mod git;
pub(crate) mod locked;
pub(crate) mod uses;

/// The crates through which code calls the API server: a crate depending on one of them may hold kube calls.
pub const KUBE_CRATES: &[&str] = &["kube", "kube-client", "kube-runtime", "kube-core"];

/// Crates never read as dependencies: kube's own, k8s-openapi, and those whose calls are modelled by name
/// (`kube_leader_election::LeaseLock`).
const NOT_READ: &[&str] =
    &["kube", "kube-client", "kube-runtime", "kube-core", "kube-derive", "k8s-openapi", "kube-leader-election"];

/// A kube-dependent crate whose source was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Package name.
    pub name: String,
    /// The folder of its lib root (a `--source` folder).
    pub src: PathBuf,
    /// Whether its files never change: a registry crate's `<name>-<version>` folder or a git checkout's revision
    /// folder (a path dependency's do).
    pub immutable: bool,
}

/// A kube-dependent crate whose source cannot be read, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unread {
    /// Package name.
    pub name: String,
    /// Version, from `Cargo.lock`.
    pub version: String,
    /// Its `source` in the lock (`registry+..`, `git+<url>#<rev>`).
    pub source: String,
    /// Why it is not read (`its source is not fetched`).
    pub why: String,
    /// What makes it read.
    pub fix: String,
    /// The lock file naming it.
    pub lock: PathBuf,
    /// The 1-based line of its `name = ".."` there.
    pub line: usize,
}

impl Unread {
    /// Whether it comes from a git repository (else a registry).
    pub fn is_git(&self) -> bool {
        self.source.starts_with("git+")
    }
}

/// The kube-dependent crates of the packages holding `sources` (source folders), besides those packages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dependencies {
    /// Sources found, in the order met.
    pub found: Vec<Found>,
    /// Crates that could not be read.
    pub unread: Vec<Unread>,
}

/// The kube-dependent dependencies of the packages `sources` belong to, with registry sources looked up under
/// `cargo_home` (`None`: `$CARGO_HOME`, else `~/.cargo`).
pub fn kube_dependencies(sources: &[PathBuf], cargo_home: Option<&Path>) -> Dependencies {
    dependencies_of(sources, cargo_home, false)
}

/// The crates whose types the packages holding `sources` may name in their kinds: [`kube_dependencies`], and
/// besides them every path dependency (transitively: a workspace's shared types crate, which may reach kube
/// through another crate, `stackable-operator`). Only those a path names are ever read. Registry crates that do
/// not use kube stay unread: a general library's `JsonSchema` impls sit behind features (ipnet's
/// `schemars08`/`schemars1`), which kubesmith does not evaluate.
pub fn schema_dependencies(sources: &[PathBuf], cargo_home: Option<&Path>) -> Dependencies {
    dependencies_of(sources, cargo_home, true)
}

fn dependencies_of(sources: &[PathBuf], cargo_home: Option<&Path>, schemas: bool) -> Dependencies {
    let mut out = Dependencies::default();
    let packages: Vec<Package> = sources.iter().filter_map(|s| Package::of_source_dir(s)).collect();
    let given: BTreeSet<PathBuf> = packages.iter().map(|p| normalize(&p.dir)).collect();
    let mut seen = given.clone();
    let mut queue: Vec<PathBuf> = packages.iter().map(|p| p.dir.clone()).collect();
    let mut names: BTreeSet<String> = packages.iter().map(|p| p.name.clone()).collect();
    let patched = packages.first().map(|p| patched_paths(&p.dir)).unwrap_or_default();
    // Path dependencies, transitively (a registry or git dependency the workspace patches to a path is one).
    while let Some(dir) = queue.pop() {
        let Ok(doc) = read_manifest(&dir.join("Cargo.toml")) else { continue };
        for path in path_dependencies(&dir, doc.get("dependencies"), &patched) {
            let path = normalize(&path);
            if !seen.insert(path.clone()) {
                continue;
            }
            let Ok(pkg) = Package::load(&path) else { continue };
            names.insert(pkg.name.clone());
            queue.push(path.clone());
            if NOT_READ.contains(&pkg.name.as_str()) || (!schemas && !depends_on_kube(&path)) {
                continue;
            }
            if let Some(lib) = &pkg.lib
                && let Some(src) = lib.path.parent()
            {
                out.found.push(Found { name: pkg.name.clone(), src: src.to_path_buf(), immutable: false });
            }
        }
    }
    // Registry and git crates the lock file reaches from those packages.
    let Some(lock) = packages.first().and_then(|p| lock_file(&p.dir)) else { return out };
    let home = cargo_home.map(Path::to_path_buf).or_else(default_cargo_home);
    for (name, version, source) in locked_kube_dependents(&lock, &names) {
        // a patched package is built from its patch's folder, whatever source the lock still names
        if NOT_READ.contains(&name.as_str()) || patched.contains_key(&name) {
            continue;
        }
        let src = if source.starts_with("registry+") || source.starts_with("sparse+") {
            home.as_deref().and_then(|h| registry_source(h, &name, &version))
        } else if source.starts_with("git+") {
            home.as_deref().and_then(|h| git::checkout_source(h, &name, &source))
        } else {
            None
        };
        match src {
            Some(src) => out.found.push(Found { name, src, immutable: true }),
            None => {
                let why = if source.starts_with("git+") {
                    "its git checkout is not on disk"
                } else {
                    "its source is not on disk (not fetched)"
                };
                let fix = "run `cargo fetch` (or kubesmith without --offline) and infer again, or pass --source with \
                    its src folder";
                let line = lock_line(&lock, &name);
                out.unread.push(Unread {
                    name,
                    version,
                    source,
                    why: why.into(),
                    fix: fix.into(),
                    lock: lock.clone(),
                    line,
                });
            }
        }
    }
    out
}

/// The folders of a dependency table's `path` entries, relative to the manifest in `dir`; an entry with
/// `workspace = true` takes its path from `[workspace.dependencies]` of the workspace root above, relative to it;
/// any other entry whose package `patched` names (the workspace's `[patch]` tables) is the patch's folder.
fn path_dependencies(dir: &Path, deps: Option<&Item>, patched: &BTreeMap<String, PathBuf>) -> Vec<PathBuf> {
    let Some(deps) = deps.and_then(Item::as_table_like) else { return Vec::new() };
    let mut root: Option<Option<(PathBuf, toml_edit::DocumentMut)>> = None;
    let mut out = Vec::new();
    for (key, e) in deps.iter() {
        let package = e.get("package").and_then(Item::as_str).unwrap_or(key);
        if let Some(p) = e.get("path").and_then(Item::as_str) {
            out.push(dir.join(p));
        } else if e.get("workspace").and_then(Item::as_bool) == Some(true) {
            let ws = root.get_or_insert_with(|| workspace_root(dir));
            let path = ws.as_ref().and_then(|(d, doc)| {
                let entry = doc.get("workspace")?.get("dependencies")?.get(key)?;
                match entry.get("path").and_then(Item::as_str) {
                    Some(p) => Some(d.join(p)),
                    None => {
                        let package = entry.get("package").and_then(Item::as_str).unwrap_or(key);
                        patched.get(package).cloned()
                    }
                }
            });
            out.extend(path);
        } else if let Some(p) = patched.get(package) {
            out.push(p.clone());
        }
    }
    out
}

/// The packages the `[patch.<source>]` tables of the workspace holding `dir` (its root manifest, or the package's
/// own when it is no workspace member) replace with a local folder, by package name: cargo builds those folders,
/// so they are what the code calls.
fn patched_paths(dir: &Path) -> BTreeMap<String, PathBuf> {
    let root = workspace_root(dir).or_else(|| {
        let doc = read_manifest(&dir.join("Cargo.toml")).ok()?;
        Some((dir.to_path_buf(), doc))
    });
    let mut out = BTreeMap::new();
    let Some((root, doc)) = root else { return out };
    for o in overrides(&root, &doc).into_iter().filter(|o| matches!(o.table, OverrideTable::Patch(_))) {
        if let Some(p) = o.path() {
            out.insert(o.package().to_string(), p);
        }
    }
    out
}

/// Where an [`Override`] is declared: `[patch.<source>]` (`crates-io` or a git URL) or `[replace]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OverrideTable {
    Patch(String),
    Replace,
}

/// One entry of a workspace's `[patch.<source>]` or `[replace]` tables: what cargo builds instead of a dependency.
#[derive(Debug, Clone)]
pub(crate) struct Override {
    /// The table it is in.
    pub(crate) table: OverrideTable,
    /// Its key (a package name, or `name:version` in `[replace]`).
    pub(crate) key: String,
    /// Its value as written (a version string, or an inline table), with a `path` made absolute against the
    /// workspace root, so a manifest elsewhere (the compiled fallback's harness) names the same folder.
    pub(crate) entry: toml_edit::Value,
}

impl Override {
    /// The package it replaces (`package = ".."`, else the key without a `[replace]` version).
    pub(crate) fn package(&self) -> &str {
        let named = self.entry.as_inline_table().and_then(|t| t.get("package")).and_then(|v| v.as_str());
        named.unwrap_or_else(|| self.key.split(':').next().unwrap_or(&self.key))
    }

    /// Its local folder, when it is a `path` entry.
    pub(crate) fn path(&self) -> Option<PathBuf> {
        self.entry.as_inline_table()?.get("path")?.as_str().map(PathBuf::from)
    }

    /// Whether it is the `[patch]` entry a `Cargo.lock` `[[patch.unused]]` entry `(name, source)` records: the
    /// same package, from the same kind of source (its git URL, or a folder when the lock names no source).
    pub(crate) fn is_patch_of(&self, (name, source): &(String, Option<String>)) -> bool {
        if !matches!(self.table, OverrideTable::Patch(_)) || self.package() != name {
            return false;
        }
        let field = |k: &str| self.entry.as_inline_table().and_then(|t| t.get(k)).and_then(|v| v.as_str());
        match (field("git"), source) {
            (Some(url), Some(src)) => {
                src.strip_prefix("git+").is_some_and(|s| s.starts_with(url.trim_end_matches(".git")))
            }
            (None, None) => self.path().is_some(),
            (None, Some(src)) => self.path().is_none() && src.starts_with("registry+"),
            (Some(_), None) => false,
        }
    }
}

/// The `[patch.*]` and `[replace]` entries of the workspace root manifest `doc` in folder `root`, in the order
/// written; relative `path`s are made absolute against `root` (where cargo resolves them).
pub(crate) fn overrides(root: &Path, doc: &toml_edit::DocumentMut) -> Vec<Override> {
    let mut out = Vec::new();
    let mut take = |table: OverrideTable, entries: &dyn toml_edit::TableLike| {
        for (key, e) in entries.iter() {
            let entry = match e {
                Item::Value(toml_edit::Value::String(s)) => toml_edit::Value::from(s.value().as_str()),
                other => {
                    let Some(fields) = other.as_table_like() else { continue };
                    let mut t = toml_edit::InlineTable::new();
                    for (k, v) in fields.iter() {
                        let Some(v) = v.as_value() else { continue };
                        let v = match (k, v.as_str()) {
                            ("path", Some(p)) => toml_edit::Value::from(normalize(&root.join(p)).display().to_string()),
                            _ => {
                                let mut v = v.clone();
                                v.decor_mut().clear();
                                v
                            }
                        };
                        t.insert(k, v);
                    }
                    toml_edit::Value::InlineTable(t)
                }
            };
            out.push(Override { table: table.clone(), key: key.to_string(), entry });
        }
    };
    if let Some(patches) = doc.get("patch").and_then(Item::as_table_like) {
        for (source, entries) in patches.iter() {
            if let Some(entries) = entries.as_table_like() {
                take(OverrideTable::Patch(source.to_string()), entries);
            }
        }
    }
    if let Some(entries) = doc.get("replace").and_then(Item::as_table_like) {
        take(OverrideTable::Replace, entries);
    }
    out
}

/// The [`overrides`] of the workspace whose root manifest is in `root` (as `cargo metadata`'s `workspace_root`
/// names it); none when it does not read.
pub(crate) fn workspace_overrides(root: &Path) -> Vec<Override> {
    read_manifest(&root.join("Cargo.toml")).map(|doc| overrides(root, &doc)).unwrap_or_default()
}

/// The folder and manifest of the workspace root at or above `dir` (the nearest `Cargo.toml` with `[workspace]`).
fn workspace_root(dir: &Path) -> Option<(PathBuf, toml_edit::DocumentMut)> {
    dir.ancestors().find_map(|d| {
        let manifest = d.join("Cargo.toml");
        let doc = manifest.is_file().then(|| read_manifest(&manifest).ok()).flatten()?;
        doc.get("workspace").is_some().then(|| (d.to_path_buf(), doc))
    })
}

/// Whether the package in `dir` lists a kube crate among its dependencies (renames included).
fn depends_on_kube(dir: &Path) -> bool {
    let Ok(doc) = read_manifest(&dir.join("Cargo.toml")) else { return false };
    let Some(deps) = doc.get("dependencies").and_then(Item::as_table_like) else { return false };
    deps.iter().any(|(key, e)| KUBE_CRATES.contains(&e.get("package").and_then(Item::as_str).unwrap_or(key)))
}

/// The `Cargo.lock` of the workspace holding the package in `dir`: the nearest one at or above it.
fn lock_file(dir: &Path) -> Option<PathBuf> {
    let own = dir.join("Cargo.lock");
    if own.is_file() {
        return Some(own);
    }
    // As cargo finds it: the lock of the first workspace above that has the package among its members. A folder
    // above that does not (a project kept inside another repository's tree) is not the package's workspace.
    let dir = normalize(dir);
    for above in dir.ancestors().skip(1) {
        let manifest = above.join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else { continue };
        if !text.contains("[workspace") {
            continue;
        }
        let member = crate::source::Workspace::discover(above)
            .is_ok_and(|ws| ws.packages.iter().any(|p| normalize(&p.dir) == dir));
        let lock = above.join("Cargo.lock");
        return (member && lock.is_file()).then_some(lock);
    }
    None
}

/// `$CARGO_HOME`, else `~/.cargo`.
pub fn default_cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
}

/// The `(name, version, source)` of every non-path package of `lock` that `roots` (package names) reach through
/// the lock's dependency lists and that depends on a kube crate itself.
fn locked_kube_dependents(lock: &Path, roots: &BTreeSet<String>) -> Vec<(String, String, String)> {
    let Ok(text) = std::fs::read_to_string(lock) else { return Vec::new() };
    let packages = lock_packages(&text);
    let mut reached: BTreeSet<String> = BTreeSet::new();
    let mut queue: Vec<String> = roots.iter().cloned().collect();
    while let Some(n) = queue.pop() {
        // kube's own dependencies are not the operator's code.
        if NOT_READ.contains(&n.as_str()) || !reached.insert(n.clone()) {
            continue;
        }
        if let Some((_, _, deps)) = packages.get(&n) {
            queue.extend(deps.iter().cloned());
        }
    }
    reached
        .into_iter()
        .filter_map(|n| {
            let (version, source, deps) = packages.get(&n)?;
            let kube = deps.iter().any(|d| KUBE_CRATES.contains(&d.as_str()));
            (kube && !source.is_empty()).then(|| (n.clone(), version.clone(), source.clone()))
        })
        .collect()
}

/// The packages of a `Cargo.lock`: name → (version, source, dependency names), the first version of a name kept.
/// Read line by line (cargo writes the file in one fixed layout): a parse of the whole TOML cost more than the
/// cached inference `make manifests` runs on every call.
fn lock_packages(text: &str) -> BTreeMap<String, (String, String, Vec<String>)> {
    type Entry = (String, String, String, Vec<String>);
    fn flush(out: &mut BTreeMap<String, (String, String, Vec<String>)>, cur: &mut Option<Entry>) {
        if let Some((name, version, source, deps)) = cur.take() {
            out.entry(name).or_insert((version, source, deps));
        }
    }
    let unquote = |v: &str| v.trim().trim_end_matches(',').trim_matches('"').to_string();
    let dep_name = |v: &str| unquote(v).split(' ').next().unwrap_or_default().to_string();
    let mut out = BTreeMap::new();
    let mut cur: Option<Entry> = None;
    let mut in_deps = false;
    for line in text.lines() {
        let t = line.trim();
        if in_deps {
            if t.starts_with(']') {
                in_deps = false;
            } else if let Some(c) = cur.as_mut() {
                c.3.push(dep_name(t));
            }
            continue;
        }
        if t.starts_with('[') {
            flush(&mut out, &mut cur);
            if t == "[[package]]" {
                cur = Some(Default::default());
            }
            continue;
        }
        let Some(c) = cur.as_mut() else { continue };
        let Some((key, value)) = t.split_once(" = ") else { continue };
        match key {
            "name" => c.0 = unquote(value),
            "version" => c.1 = unquote(value),
            "source" => c.2 = unquote(value),
            "dependencies" => {
                let inner = value.trim().trim_start_matches('[');
                match inner.strip_suffix(']') {
                    Some(list) => c.3.extend(list.split(',').filter(|d| !d.trim().is_empty()).map(dep_name)),
                    None => in_deps = true,
                }
            }
            _ => {}
        }
    }
    flush(&mut out, &mut cur);
    out
}

/// The line of `name = "<name>"` in the lock file (1 when not found).
fn lock_line(lock: &Path, name: &str) -> usize {
    let text = std::fs::read_to_string(lock).unwrap_or_default();
    let wanted = format!("name = \"{name}\"");
    text.lines().position(|l| l.trim() == wanted).map_or(1, |i| i + 1)
}

/// The lib root folder of `name`-`version` unpacked in a registry index folder under `home`, as cargo unpacks it.
fn registry_source(home: &Path, name: &str, version: &str) -> Option<PathBuf> {
    let indexes = std::fs::read_dir(home.join("registry").join("src")).ok()?;
    let mut dirs: Vec<PathBuf> = indexes.flatten().map(|e| e.path().join(format!("{name}-{version}"))).collect();
    dirs.sort();
    let dir = dirs.into_iter().find(|d| d.join("Cargo.toml").is_file())?;
    let lib = Package::load(&dir).ok()?.lib?;
    lib.path.parent().map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn path_and_registry_dependencies_on_kube_are_found_and_git_ones_said_unread() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rbac-infer");
        let op = fixtures.join("kitchen/op/src");
        let home = fixtures.join("kitchen-cargo-home");
        let deps = kube_dependencies(&[op], Some(&home));
        let found: Vec<(&str, PathBuf)> = deps.found.iter().map(|f| (f.name.as_str(), f.src.clone())).collect();
        let pantry = home.join("registry/src/index.crates.io-1949cf8c6b5b557f/pantry-0.3.1/src");
        assert_eq!(found, [("kitchen", fixtures.join("kitchen/kitchen/src")), ("pantry", pantry)]);
        let unread: Vec<(&str, &str)> = deps.unread.iter().map(|u| (u.name.as_str(), u.version.as_str())).collect();
        assert_eq!(unread, [("larder", "0.2.0")], "kube's own crates and k8s-openapi are never listed");
        // The wrapper given as a source itself is no dependency to add.
        let both = [fixtures.join("kitchen/op/src"), fixtures.join("kitchen/kitchen/src")];
        let deps = kube_dependencies(&both, Some(&home));
        assert_eq!(deps.found.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["pantry"]);
    }

    #[test]
    fn the_lock_is_the_packages_own_or_its_workspaces_never_another_trees() {
        let tmp = tempfile::tempdir().unwrap();
        let write = |rel: &str, text: &str| {
            let path = tmp.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        let package = |name: &str| format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\n");
        write("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n");
        write("Cargo.lock", "version = 4\n");
        write("crates/member/Cargo.toml", &package("member"));
        write("crates/member/src/lib.rs", "");
        write("elsewhere/project/Cargo.toml", &package("project"));
        write("elsewhere/project/src/lib.rs", "");
        assert_eq!(lock_file(&tmp.path().join("crates/member")), Some(tmp.path().join("Cargo.lock")));
        // A project kept inside another workspace's tree (not a member) has no lock until it builds its own.
        assert_eq!(lock_file(&tmp.path().join("elsewhere/project")), None);
        write("elsewhere/project/Cargo.lock", "version = 4\n");
        assert_eq!(
            lock_file(&tmp.path().join("elsewhere/project")),
            Some(tmp.path().join("elsewhere/project/Cargo.lock"))
        );
    }

    #[test]
    fn lock_packages_reads_cargos_layout_line_by_line() {
        let text = "version = 4\n\n[[package]]\nname = \"a\"\nversion = \"1.0.0\"\nsource = \"registry+x\"\n\
            dependencies = [\"kube 5.0.0\", \"serde\"]\n\n[[package]]\nname = \"b\"\nversion = \"0.1.0\"\n\
            dependencies = [\n \"a\",\n \"kube-client 5.0.0 (registry+x)\",\n]\n\n[metadata]\nname = \"not a package\"\n";
        let p = lock_packages(text);
        assert_eq!(p.len(), 2);
        assert_eq!(p["a"], ("1.0.0".into(), "registry+x".into(), vec!["kube".into(), "serde".into()]));
        assert_eq!(p["b"], ("0.1.0".into(), String::new(), vec!["a".into(), "kube-client".into()]));
    }

    #[test]
    fn a_git_or_registry_dependency_the_workspace_patches_to_a_folder_is_read_there() {
        let tmp = tempfile::tempdir().unwrap();
        let files = [
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"op\"]\n[workspace.dependencies]\nfw = { git = \"https://example.com/fw.git\", package = \"framework\" }\n\
                 [patch.\"https://example.com/fw.git\"]\nframework = { path = \"vendor/fw\" }\n\
                 [patch.crates-io]\nhelper = { path = \"vendor/helper\" }\n",
            ),
            ("op/Cargo.toml", "[package]\nname = \"op\"\n[dependencies]\nfw = { workspace = true }\nhelper = \"1\"\n"),
            ("op/src/main.rs", "fn main() {}"),
            ("vendor/fw/Cargo.toml", "[package]\nname = \"framework\"\n[dependencies]\nkube = \"5\"\n"),
            ("vendor/fw/src/lib.rs", ""),
            ("vendor/helper/Cargo.toml", "[package]\nname = \"helper\"\n[dependencies]\nkube-client = \"5\"\n"),
            ("vendor/helper/src/lib.rs", ""),
        ];
        for (rel, text) in files {
            let p = tmp.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let deps = kube_dependencies(&[tmp.path().join("op/src")], Some(tmp.path()));
        let mut found: Vec<(&str, PathBuf)> = deps.found.iter().map(|f| (f.name.as_str(), f.src.clone())).collect();
        found.sort();
        assert_eq!(
            found,
            [("framework", tmp.path().join("vendor/fw/src")), ("helper", tmp.path().join("vendor/helper/src"))]
        );
    }

    #[test]
    fn a_patch_the_lock_records_as_unused_is_matched_by_name_and_source_kind() {
        let doc: toml_edit::DocumentMut = "[workspace]\n\
             [patch.crates-io]\nh2 = { git = \"https://github.com/fork/h2\", branch = \"fix\" }\n\
             local = { path = \"vendor/local\" }\n"
            .parse()
            .unwrap();
        let got = overrides(Path::new("/w"), &doc);
        let unused_git = ("h2".to_string(), Some("git+https://github.com/fork/h2?branch=fix#1bf9857f".to_string()));
        let unused_path = ("local".to_string(), None);
        assert!(got[0].is_patch_of(&unused_git));
        assert!(!got[0].is_patch_of(&unused_path));
        assert!(got[1].is_patch_of(&unused_path));
        assert!(!got[1].is_patch_of(&unused_git));
        // another package of that name from the registry is not this git patch
        assert!(!got[0].is_patch_of(&("h2".to_string(), Some("registry+https://github.com/rust-lang".into()))));
    }

    #[test]
    fn patch_and_replace_entries_are_read_with_their_paths_made_absolute() {
        let doc: toml_edit::DocumentMut = "[workspace]\n\
             [patch.\"https://example.com/fw.git\"]\n\
             fw = { path = \"../vendor/./fw\", package = \"framework\" }\n\
             other = { git = \"https://example.com/other.git\", branch = \"fix\" }\n\
             [patch.crates-io.helper]\npath = \"vendor/helper\"\n\
             [replace]\n\"old:1.0.0\" = { path = \"/abs/old\" }\n"
            .parse()
            .unwrap();
        let got = overrides(Path::new("/w/root"), &doc);
        let shown: Vec<(OverrideTable, &str, &str, String)> =
            got.iter().map(|o| (o.table.clone(), o.key.as_str(), o.package(), o.entry.to_string())).collect();
        let fw = OverrideTable::Patch("https://example.com/fw.git".into());
        assert_eq!(
            shown,
            [
                (fw.clone(), "fw", "framework", r#"{ path = "/w/vendor/fw", package = "framework" }"#.to_string()),
                (fw, "other", "other", r#"{ git = "https://example.com/other.git", branch = "fix" }"#.to_string()),
                (
                    OverrideTable::Patch("crates-io".into()),
                    "helper",
                    "helper",
                    r#"{ path = "/w/root/vendor/helper" }"#.into()
                ),
                (OverrideTable::Replace, "old:1.0.0", "old", r#"{ path = "/abs/old" }"#.to_string()),
            ]
        );
        assert_eq!(got[0].path(), Some(PathBuf::from("/w/vendor/fw")));
        assert_eq!(got[1].path(), None);
    }

    #[test]
    fn a_path_dependency_declared_in_the_workspace_is_followed_and_one_without_kube_is_not_read() {
        let tmp = tempfile::tempdir().unwrap();
        let files = [
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"op\"]\n[workspace.dependencies]\nkit = { path = \"libs/kit\" }\n",
            ),
            ("op/Cargo.toml", "[package]\nname = \"op\"\n[dependencies]\nkit = { workspace = true }\n"),
            ("op/src/main.rs", "fn main() {}"),
            (
                "libs/kit/Cargo.toml",
                "[package]\nname = \"kit\"\n[dependencies]\nk = { package = \"kube\", version = \"5\" }\nutil = { path = \"../util\" }\n",
            ),
            ("libs/kit/src/lib.rs", ""),
            ("libs/util/Cargo.toml", "[package]\nname = \"util\"\n[dependencies]\nserde = \"1\"\n"),
            ("libs/util/src/lib.rs", ""),
        ];
        for (rel, text) in files {
            let p = tmp.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let deps = kube_dependencies(&[tmp.path().join("op/src")], Some(tmp.path()));
        let found: Vec<(&str, PathBuf)> = deps.found.iter().map(|f| (f.name.as_str(), f.src.clone())).collect();
        // kit (kube renamed to `k`) through `workspace = true`; util, its own path dependency, does not use kube.
        assert_eq!(found, [("kit", tmp.path().join("libs/kit/src"))]);
        assert!(deps.unread.is_empty());
    }
}
