//! Cargo layout: a workspace's members (root `[workspace] members` globs minus `exclude`), and each package's crate
//! name and targets (lib root, bin roots) by Cargo's conventions and its `[lib]` / `[[bin]]` paths.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use toml_edit::{DocumentMut, Item};

/// A cargo workspace (or a lone package, which is its own one-member workspace).
#[derive(Debug, Clone, PartialEq)]
pub struct Workspace {
    /// Folder of the root `Cargo.toml`.
    pub root: PathBuf,
    /// Members, sorted by folder; the root package first when the root manifest has one.
    pub packages: Vec<Package>,
}

/// One package: its crate name and the root file of each of its targets.
#[derive(Debug, Clone, PartialEq)]
pub struct Package {
    /// `name` of `[package]` (`fleet-operator`).
    pub name: String,
    /// Folder of its `Cargo.toml`.
    pub dir: PathBuf,
    /// The library target, if any.
    pub lib: Option<Target>,
    /// The binary targets, sorted by name.
    pub bins: Vec<Target>,
    /// Whether the library is a proc-macro crate (`[lib] proc-macro = true`): it exports only macros, so its
    /// sources declare no kinds (code a macro generates is read where the macro is used).
    pub proc_macro: bool,
}

/// A compilation target: the crate name other code uses for it and its root file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The target's name (`[lib] name` or the package name with `-` → `_`; a bin's own name).
    pub name: String,
    /// Its crate root (`src/lib.rs`, `src/main.rs`, `src/bin/x.rs`, ...).
    pub path: PathBuf,
}

impl Package {
    /// The name code uses for the library crate: `[lib] name`, else the package name with `-` → `_`.
    pub fn crate_name(&self) -> String {
        self.lib.as_ref().map(|l| l.name.clone()).unwrap_or_else(|| crate_ident(&self.name))
    }

    /// Reads the package whose `Cargo.toml` is in `dir`.
    pub fn load(dir: &Path) -> Result<Package> {
        let manifest = dir.join("Cargo.toml");
        let doc = read_manifest(&manifest)?;
        package_from(dir, &doc, &manifest)
    }

    /// The package a source folder belongs to: the nearest folder at or above `src_dir` whose `Cargo.toml` has a
    /// `[package]` table (`crates/x/src` → `crates/x`). `None` when there is none.
    pub fn of_source_dir(src_dir: &Path) -> Option<Package> {
        let mut dir = Some(src_dir);
        while let Some(d) = dir {
            let manifest = d.join("Cargo.toml");
            if manifest.is_file() {
                let doc = read_manifest(&manifest).ok()?;
                return doc.get("package").is_some().then(|| package_from(d, &doc, &manifest).ok()).flatten();
            }
            dir = d.parent().filter(|p| !p.as_os_str().is_empty());
        }
        None
    }

    /// Every target root: the lib first, then the bins.
    pub fn targets(&self) -> impl Iterator<Item = &Target> {
        self.lib.iter().chain(&self.bins)
    }
}

impl Workspace {
    /// The workspace whose root `Cargo.toml` is in `dir`: its members when it has `[workspace]` (plus the root
    /// package if it also has `[package]`), else the single package.
    pub fn discover(dir: &Path) -> Result<Workspace> {
        let manifest = dir.join("Cargo.toml");
        if !manifest.is_file() {
            bail!("no Cargo.toml in {}: run this in the root of a crate or a cargo workspace", dir.display());
        }
        let doc = read_manifest(&manifest)?;
        let mut packages = Vec::new();
        if doc.get("package").is_some() {
            packages.push(package_from(dir, &doc, &manifest)?);
        }
        if let Some(ws) = doc.get("workspace") {
            let strings = |key: &str| -> Vec<String> {
                ws.get(key)
                    .and_then(Item::as_array)
                    .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
                    .unwrap_or_default()
            };
            let exclude: Vec<PathBuf> = strings("exclude").iter().map(|e| normalize(&dir.join(e))).collect();
            let mut members = Vec::new();
            for pattern in strings("members") {
                for found in expand_member(dir, &pattern)? {
                    let found = normalize(&found);
                    if found == normalize(dir) || exclude.iter().any(|e| found.starts_with(e)) {
                        continue;
                    }
                    if found.join("Cargo.toml").is_file() && !members.contains(&found) {
                        members.push(found);
                    }
                }
            }
            members.sort();
            for member in members {
                packages.push(Package::load(&member)?);
            }
        }
        if packages.is_empty() {
            bail!("{} has neither [package] nor [workspace] members", manifest.display());
        }
        Ok(Workspace { root: dir.to_path_buf(), packages })
    }

    /// The crate source folders of the workspace (relative to `cwd`): the folder of each package's lib and bin roots
    /// (`src` for `src/lib.rs`, `src/main.rs` and the `src/bin/*` they share it with), and the folder of a root
    /// Cargo.toml declares elsewhere (`[[bin]] path = "version.rs"`: the package's own folder, `.` at the root)
    /// when no folder listed before holds it.
    pub fn source_dirs(&self, cwd: &Path) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        let rel = |dir: &Path| match dir.strip_prefix(cwd) {
            Ok(r) if r.as_os_str().is_empty() => PathBuf::from("."),
            Ok(r) => r.to_path_buf(),
            Err(_) => dir.to_path_buf(),
        };
        for pkg in &self.packages {
            let targets: Vec<&Target> =
                pkg.targets().filter(|t| !(pkg.proc_macro && pkg.lib.as_ref() == Some(*t))).collect();
            let mut dirs: Vec<&Path> = Vec::new();
            // The CRD generator reads a folder's lib.rs or main.rs; `src/bin/x.rs` belongs to that binary alone.
            for t in &targets {
                let is_root = |f: &str| t.path.file_name().is_some_and(|n| n == f);
                if let Some(dir) = t.path.parent().filter(|_| is_root("lib.rs") || is_root("main.rs")) {
                    dirs.push(dir);
                }
            }
            for t in &targets {
                let Some(dir) = t.path.parent() else { continue };
                if !dirs.iter().any(|d| t.path.starts_with(d)) {
                    dirs.push(dir);
                }
            }
            for dir in dirs {
                let r = rel(dir);
                if !out.contains(&r) {
                    out.push(r);
                }
            }
        }
        out
    }
}

/// The crate roots of one source folder: `(crate name, root file, is a binary)`: the targets of the package it
/// belongs to that lie inside it, else `lib.rs`, `main.rs` and `bin/*` by cargo's conventions. `read` tells
/// whether a file exists (a plan's overlay).
pub fn crate_roots(src: &Path, read: &dyn Fn(&Path) -> std::io::Result<String>) -> Vec<(String, PathBuf, bool)> {
    let exists = |p: &Path| read(p).is_ok();
    if let Some(pkg) = Package::of_source_dir(src) {
        let mut out: Vec<(String, PathBuf, bool)> = Vec::new();
        if let Some(lib) = &pkg.lib {
            out.push((lib.name.clone(), lib.path.clone(), false));
        }
        for b in &pkg.bins {
            out.push((b.name.clone(), b.path.clone(), true));
        }
        // A package's targets outside this folder belong to another --source; in the package's own folder, those
        // in its `src/` do too when others lie outside it (`[[bin]] path = "version.rs"`).
        let mut inside: Vec<_> = out.iter().filter(|(_, p, _)| p.starts_with(src)).cloned().collect();
        let own_src = pkg.dir.join("src");
        if same_dir(src, &pkg.dir) && inside.iter().any(|(_, p, _)| !p.starts_with(&own_src)) {
            inside.retain(|(_, p, _)| !p.starts_with(&own_src));
        }
        if !inside.is_empty() {
            return inside;
        }
    }
    let name = src
        .parent()
        .and_then(Path::file_name)
        .map(|n| crate_ident(&n.to_string_lossy()))
        .unwrap_or_else(|| "crate".into());
    let mut out = Vec::new();
    if exists(&src.join("lib.rs")) {
        out.push((name.clone(), src.join("lib.rs"), false));
    }
    if exists(&src.join("main.rs")) {
        out.push((name.replace('_', "-"), src.join("main.rs"), true));
    }
    if let Ok(entries) = std::fs::read_dir(src.join("bin")) {
        let mut bins: Vec<(String, PathBuf, bool)> = entries
            .flatten()
            .filter_map(|e| {
                let p = e.path();
                let stem = p.file_stem()?.to_string_lossy().into_owned();
                if p.extension().is_some_and(|x| x == "rs") {
                    Some((stem, p, true))
                } else if p.join("main.rs").is_file() {
                    Some((stem, p.join("main.rs"), true))
                } else {
                    None
                }
            })
            .collect();
        bins.sort();
        out.extend(bins);
    }
    out
}

/// The root of the crate whose sources are in `src` (the one whose items are the crate's own): its lib target as
/// [`crate_roots`] finds it (`[lib] path` honoured), else `lib.rs`, else `main.rs`, else the first binary. `read`
/// answers for files not yet on disk too (planned ones): a `lib.rs` only planned still counts.
pub(crate) fn crate_root(src: &Path, read: &dyn Fn(&Path) -> std::io::Result<String>) -> Option<PathBuf> {
    let roots = crate_roots(src, read);
    let exists = |p: &Path| read(p).is_ok();
    let lib = roots.iter().find(|(_, p, is_bin)| !is_bin && exists(p)).map(|(_, p, _)| p.clone());
    let conventional = || ["lib.rs", "main.rs"].iter().map(|f| src.join(f)).find(|p| exists(p));
    lib.or_else(conventional).or_else(|| roots.into_iter().map(|(_, p, _)| p).next())
}

/// Whether two paths name the same folder, `.` components aside (`/w/.` and `/w`).
fn same_dir(a: &Path, b: &Path) -> bool {
    normalize(a) == normalize(b)
}

/// `fleet-api` → `fleet_api`.
pub fn crate_ident(package: &str) -> String {
    package.replace('-', "_")
}

/// The features a package's manifest turns on for one of its dependencies (`dependency` is the package's name on
/// crates.io, e.g. `schemars`, whatever the key it is declared under): the `features` of its entry in
/// `[dependencies]`, with those of `[workspace.dependencies]` when the entry says `workspace = true`. `None` when no
/// manifest with a `[package]` holds `src_dir` (a crate without a manifest). Features turned on by other packages of
/// the build (cargo unifies them) or through the package's own `[features]` are not seen.
pub fn dependency_features(src_dir: &Path, dependency: &str) -> Option<std::collections::BTreeSet<String>> {
    let mut dir = Some(src_dir);
    let (manifest_dir, doc) = loop {
        let d = dir?;
        let manifest = d.join("Cargo.toml");
        if manifest.is_file() {
            let doc = read_manifest(&manifest).ok()?;
            doc.get("package")?;
            break (d, doc);
        }
        dir = d.parent().filter(|p| !p.as_os_str().is_empty());
    };
    let mut out = std::collections::BTreeSet::new();
    let Some(entry) = dependency_entry(doc.get("dependencies"), dependency) else {
        return Some(out);
    };
    out.extend(entry_features(entry));
    if entry.get("workspace").and_then(Item::as_bool) == Some(true) {
        let workspace = manifest_dir.ancestors().skip(1).find_map(|d| {
            let doc = read_manifest(&d.join("Cargo.toml")).ok()?;
            doc.get("workspace").is_some().then_some(doc)
        });
        if let Some(ws) = workspace {
            let deps = ws.get("workspace").and_then(|w| w.get("dependencies"));
            out.extend(dependency_entry(deps, dependency).map(entry_features).unwrap_or_default());
        }
    }
    Some(out)
}

/// The Kubernetes version (`"1.33"`) of the `v1_XX` feature the package whose sources are in `src_dir` turns on
/// for k8s-openapi ([`dependency_features`]); `None` when it names none (`latest`, or another package sets it).
pub fn k8s_openapi_version(src_dir: &Path) -> Option<String> {
    dependency_features(src_dir, "k8s-openapi")?.iter().find_map(|f| {
        let minor = f.strip_prefix("v1_")?;
        (!minor.is_empty() && minor.bytes().all(|b| b.is_ascii_digit())).then(|| format!("1.{minor}"))
    })
}

/// The entry of `deps` for the package `name` (declared under its own name or renamed with `package = "name"`).
pub(super) fn dependency_entry<'a>(deps: Option<&'a Item>, name: &str) -> Option<&'a Item> {
    let deps = deps?.as_table_like()?;
    deps.iter().find_map(|(key, entry)| {
        let package = entry.get("package").and_then(Item::as_str).unwrap_or(key);
        (package == name).then_some(entry)
    })
}

fn entry_features(entry: &Item) -> Vec<String> {
    let list = entry.get("features").and_then(Item::as_array);
    list.map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

pub(super) fn read_manifest(path: &Path) -> Result<DocumentMut> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    text.parse::<DocumentMut>().with_context(|| format!("{} is not valid TOML", path.display()))
}

/// `a/./b/../c` → `a/c`, without touching the file system.
pub(super) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The folders a `members` entry names (a glob like `crates/*` or a plain path).
fn expand_member(root: &Path, pattern: &str) -> Result<Vec<PathBuf>> {
    if !pattern.contains(['*', '?', '[']) {
        return Ok(vec![root.join(pattern)]);
    }
    let full = root.join(pattern);
    let text = full.to_str().with_context(|| format!("workspace member pattern {pattern} is not UTF-8"))?;
    let paths = glob::glob(text).with_context(|| format!("invalid workspace member pattern {pattern:?}"))?;
    Ok(paths.filter_map(std::result::Result::ok).filter(|p| p.is_dir()).collect())
}

fn package_from(dir: &Path, doc: &DocumentMut, manifest: &Path) -> Result<Package> {
    let name = doc
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(Item::as_str)
        .with_context(|| format!("{} has no [package] name", manifest.display()))?
        .to_string();
    let flag = |key: &str| doc.get("package").and_then(|p| p.get(key)).and_then(Item::as_bool);
    let autobins = flag("autobins").unwrap_or(true);

    let lib_table = doc.get("lib");
    let lib_path = lib_table.and_then(|l| l.get("path")).and_then(Item::as_str).map(|p| dir.join(p));
    let lib_name = lib_table.and_then(|l| l.get("name")).and_then(Item::as_str).map(str::to_string);
    let lib_path = lib_path.or_else(|| Some(dir.join("src/lib.rs")).filter(|p| p.is_file()));
    let lib = lib_path.map(|path| Target { name: lib_name.unwrap_or_else(|| crate_ident(&name)), path });
    let proc_macro = ["proc-macro", "proc_macro"]
        .iter()
        .any(|k| lib_table.and_then(|l| l.get(k)).and_then(Item::as_bool).unwrap_or(false));

    let mut bins: Vec<Target> = Vec::new();
    if let Some(list) = doc.get("bin").and_then(Item::as_array_of_tables) {
        for t in list {
            let Some(bin) = t.get("name").and_then(Item::as_str) else {
                continue;
            };
            let path = match t.get("path").and_then(Item::as_str) {
                Some(p) => dir.join(p),
                None if bin == name => dir.join("src/main.rs"),
                None => {
                    let file = dir.join(format!("src/bin/{bin}.rs"));
                    if file.is_file() { file } else { dir.join(format!("src/bin/{bin}/main.rs")) }
                }
            };
            bins.push(Target { name: bin.to_string(), path });
        }
    }
    if autobins {
        let mut auto = Vec::new();
        if dir.join("src/main.rs").is_file() {
            auto.push(Target { name: name.clone(), path: dir.join("src/main.rs") });
        }
        if let Ok(entries) = std::fs::read_dir(dir.join("src/bin")) {
            for e in entries.flatten() {
                let p = e.path();
                let stem = p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                if p.is_file() && p.extension().is_some_and(|x| x == "rs") {
                    auto.push(Target { name: stem, path: p });
                } else if p.join("main.rs").is_file() {
                    auto.push(Target { name: stem, path: p.join("main.rs") });
                }
            }
        }
        for t in auto {
            if !bins.iter().any(|b| b.name == t.name || b.path == t.path) {
                bins.push(t);
            }
        }
    }
    bins.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Package { name, dir: dir.to_path_buf(), lib, bins, proc_macro })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, files: &[(&str, &str)]) {
        for (rel, text) in files {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
    }

    #[test]
    fn the_kubernetes_version_a_package_builds_k8s_openapi_for() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        write(
            root,
            &[
                (
                    "old/Cargo.toml",
                    "[package]\nname = \"old\"\n[dependencies]\nk8s-openapi = { version = \"0.25\", \
                     default-features = false, features = [\"schemars\", \"v1_33\"] }\n",
                ),
                (
                    "latest/Cargo.toml",
                    "[package]\nname = \"l\"\n[dependencies]\nk8s-openapi = { version = \"0.29\", features = [\"latest\"] }\n",
                ),
            ],
        );
        assert_eq!(k8s_openapi_version(&root.join("old/src")).as_deref(), Some("1.33"));
        assert_eq!(k8s_openapi_version(&root.join("latest/src")), None);
    }

    #[test]
    fn dependency_features_of_the_package_and_its_workspace() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        write(
            root,
            &[
                (
                    "Cargo.toml",
                    "[workspace]\nmembers = [\"op\"]\n[workspace.dependencies]\nschemars = { version = \"1\", features = [\"uuid1\"] }\n",
                ),
                (
                    "op/Cargo.toml",
                    "[package]\nname = \"op\"\n[dependencies]\nschemars = { workspace = true, features = [\"chrono04\"] }\n",
                ),
                ("op/src/lib.rs", ""),
                (
                    "renamed/Cargo.toml",
                    "[package]\nname = \"r\"\n[dependencies.js]\npackage = \"schemars\"\nfeatures = [\"url2\"]\n",
                ),
                ("plain/Cargo.toml", "[package]\nname = \"p\"\n[dependencies]\nschemars = \"1\"\n"),
            ],
        );
        let features = |dir: &str| {
            dependency_features(&root.join(dir).join("src"), "schemars").map(|f| f.into_iter().collect::<Vec<_>>())
        };
        assert_eq!(features("op").unwrap(), ["chrono04", "uuid1"]);
        assert_eq!(features("renamed").unwrap(), ["url2"]);
        assert_eq!(features("plain").unwrap(), Vec::<String>::new());
        let lone = tempfile::tempdir().unwrap();
        assert_eq!(dependency_features(&lone.path().join("src"), "schemars"), None, "no manifest");
    }

    #[test]
    fn workspace_members_globs_exclude_and_targets() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        write(
            root,
            &[
                ("Cargo.toml", "[workspace]\nmembers = [\"crates/*\", \"tools/cli\"]\nexclude = [\"crates/old\"]\n"),
                ("crates/core-api/Cargo.toml", "[package]\nname = \"core-api\"\n[lib]\nname = \"coreapi\"\n"),
                ("crates/core-api/src/lib.rs", ""),
                ("crates/old/Cargo.toml", "[package]\nname = \"old\"\n"),
                ("crates/notes/README.md", "not a package"),
                (
                    "tools/cli/Cargo.toml",
                    "[package]\nname = \"ops-cli\"\n[[bin]]\nname = \"opsctl\"\npath = \"main.rs\"\n",
                ),
                ("tools/cli/main.rs", "fn main() {}"),
                ("tools/cli/src/main.rs", "fn main() {}"),
                ("tools/cli/src/bin/gen.rs", "fn main() {}"),
                ("tools/cli/src/bin/migrate/main.rs", "fn main() {}"),
            ],
        );
        let ws = Workspace::discover(root).unwrap();
        let names: Vec<&str> = ws.packages.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["core-api", "ops-cli"]);
        let api = &ws.packages[0];
        assert_eq!(api.crate_name(), "coreapi");
        assert_eq!(api.lib.as_ref().unwrap().path, root.join("crates/core-api/src/lib.rs"));
        assert!(api.bins.is_empty());
        let cli = &ws.packages[1];
        assert!(cli.lib.is_none());
        assert_eq!(cli.crate_name(), "ops_cli");
        let bins: Vec<(&str, PathBuf)> =
            cli.bins.iter().map(|b| (b.name.as_str(), b.path.strip_prefix(root).unwrap().to_path_buf())).collect();
        assert_eq!(
            bins,
            [
                ("gen", PathBuf::from("tools/cli/src/bin/gen.rs")),
                ("migrate", PathBuf::from("tools/cli/src/bin/migrate/main.rs")),
                ("ops-cli", PathBuf::from("tools/cli/src/main.rs")),
                ("opsctl", PathBuf::from("tools/cli/main.rs")),
            ]
        );
        let core = ws.packages.iter().find(|p| p.crate_name() == "coreapi");
        assert_eq!(core.map(|p| p.name.as_str()), Some("core-api"));
    }

    #[test]
    fn proc_macro_crates_are_no_source_folders() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        write(
            root,
            &[
                ("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n"),
                ("crates/macros/Cargo.toml", "[package]\nname = \"macros\"\n[lib]\nproc-macro = true\n"),
                ("crates/macros/src/lib.rs", ""),
                ("crates/op/Cargo.toml", "[package]\nname = \"op\"\n"),
                ("crates/op/src/lib.rs", ""),
            ],
        );
        let ws = Workspace::discover(root).unwrap();
        assert!(ws.packages[0].proc_macro && !ws.packages[1].proc_macro);
        assert_eq!(ws.source_dirs(root), [PathBuf::from("crates/op/src")]);
    }

    #[test]
    fn single_package_and_source_dir_lookup() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        write(
            root,
            &[
                ("Cargo.toml", "[package]\nname = \"memcached-operator\"\nautobins = false\n"),
                ("src/lib.rs", ""),
                ("src/main.rs", "fn main() {}"),
            ],
        );
        let ws = Workspace::discover(root).unwrap();
        assert_eq!(ws.packages.len(), 1);
        assert!(ws.packages[0].bins.is_empty(), "autobins = false");
        let pkg = Package::of_source_dir(&root.join("src")).unwrap();
        assert_eq!(pkg.crate_name(), "memcached_operator");
        let err = Workspace::discover(&root.join("src")).unwrap_err().to_string();
        assert!(err.contains("no Cargo.toml"), "{err}");
    }

    #[test]
    fn the_crate_root_is_the_lib_target_else_lib_rs_main_rs_or_a_bin() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let disk = |p: &Path| std::fs::read_to_string(p);
        write(root, &[("a/Cargo.toml", "[package]\nname = \"a\"\n[lib]\npath = \"src/core.rs\"\n")]);
        write(root, &[("a/src/core.rs", ""), ("a/src/main.rs", "")]);
        assert_eq!(crate_root(&root.join("a/src"), &disk), Some(root.join("a/src/core.rs")));
        write(root, &[("b/Cargo.toml", "[package]\nname = \"b\"\n"), ("b/src/main.rs", "")]);
        assert_eq!(crate_root(&root.join("b/src"), &disk), Some(root.join("b/src/main.rs")));
        // A lib.rs only planned (not on disk yet) is the root all the same.
        let planned = root.join("b/src/lib.rs");
        let with_plan = |p: &Path| if p == planned { Ok(String::new()) } else { std::fs::read_to_string(p) };
        assert_eq!(crate_root(&root.join("b/src"), &with_plan), Some(planned.clone()));
        write(root, &[("c/Cargo.toml", "[package]\nname = \"c\"\n[[bin]]\nname = \"v\"\npath = \"src/version.rs\"\n")]);
        write(root, &[("c/src/version.rs", "")]);
        assert_eq!(crate_root(&root.join("c/src"), &disk), Some(root.join("c/src/version.rs")));
        assert_eq!(crate_root(&root.join("none/src"), &disk), None);
    }
}
