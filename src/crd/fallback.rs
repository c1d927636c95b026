//! The compiled fallback: the kinds whose schema only the crate's own code can produce (see
//! [`super::PendingCrd`]) get it from `Kind::crd()`, printed by a throw-away harness crate that cargo builds
//! under `<target-dir>/kubesmith/`, with the crate's `Cargo.lock` and target directory.
//!
//! Two harness shapes, one output:
//! - **dependent** (a library whose kinds other crates can name): the harness depends on the library by path and
//!   calls `<lib>::path::Kind::crd()`; cargo reuses the library the user's own builds compiled;
//! - **mirror** (a binary-only crate, or kinds behind private modules): the harness is a copy of the package (same
//!   name) whose source folder holds links to the crate's files and a copy of its root file with one generated
//!   function appended, compiled as a library, so `crate::` paths and private modules resolve as in the crate
//!   itself; modules private below the root get copies re-exporting the kind (`reexport`), and the crate's build
//!   script runs in the crate's own folder (`build_script`).
//!
//! A crate that leaves k8s-openapi's version feature to the crates using it gets the one they enable
//! (`cargo::K8sPin`).
//!
//! The harness lock file starts as a copy of the crate's `Cargo.lock`; cargo trims it to the harness' graph (no
//! version moves), kubesmith checks that every registry package kept the crate's version, and the build runs
//! `--locked`. Nothing is written outside `<target-dir>/kubesmith/`. The static skeleton of each CRD (names,
//! versions, storage) is kept and only the compiled versions' `schema` is taken from `crd()`, which is what
//! `merge_crds` would give for the same versions, with the spec struct's root-schema markers applied by the
//! static path's function ([`super::markers::root`]). The CRD of a kind an attribute macro generates
//! ([`MacroKind`]) has no static skeleton: it is taken whole from `crd()`, or, when a versioning macro generates a
//! type per version, merged from theirs as `merge_crds` does (the storage version [`MacroKind::storage`]).
//!
//! It runs for `make manifests`' pending kinds unless `--no-compile` or PROJECT's `crd: {compile: false}`. The harness
//! enables on the crate's registry dependencies the features the other workspace members enable on them
//! (`Package::unified`: cargo unifies them when the workspace builds), and takes the workspace's `[patch.*]` and
//! `[replace]` entries (`Package::overrides`, from `source::dependencies::workspace_overrides`), so cargo neither
//! fetches a git dependency the workspace patches to a folder nor builds another version. cargo builds with
//! `--ignore-rust-version`, its JSON messages read as they come: the `Progress` line names the kinds compiled and
//! counts the crates built. A default or `skip_serializing_if` predicate kubesmith cannot evaluate is the fallback's
//! to give, like a `schema_with` fn. CRDs of one name (from macros, or beside a static one) are merged like
//! `merge_crds` (`macro_kinds::merge_same_names`), and the compiled types are given to RBAC inference.
//! `KUBESMITH_COMPILE_ALL=FILE` ([`compile_all`]) is `cargo xtask realworld`'s hook, not for users.
//!
//! **Invariant:** writes nothing outside `<target-dir>/kubesmith/`, never into the sources; a failed build says what
//! to do first (a missing version feature, a full disk, a failing build script, a private path, a macro kind's type
//! not where kubesmith looked, else build the crate), then shows cargo's errors as they are.

mod build_script;
mod cargo;
mod files;
mod harness;
mod reexport;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use super::macro_kinds::{self, MacroKind};
use super::{GeneratedCrd, PendingCrd, PendingVersion};

/// `KUBESMITH_COMPILE_ALL=FILE`, read once: the hook `cargo xtask realworld` takes kube-derive's truth with. Every
/// kind goes to the compiled fallback (not only those the static reader cannot finish), and what each version's
/// `crd()` printed is written whole to FILE (a JSON object keyed `<crd name>/<version>`, merged with what is there),
/// so the static reader's CRDs can be compared with kube-derive's own. Not for users: it only makes runs slower.
pub fn compile_all() -> Option<&'static Path> {
    static FILE: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    FILE.get_or_init(|| std::env::var_os("KUBESMITH_COMPILE_ALL").filter(|v| !v.is_empty()).map(PathBuf::from))
        .as_deref()
}

/// Adds what the harness printed (`compiled`, keyed as the harness keys it) to [`compile_all`]'s FILE, keyed by
/// each printed CRD's own name and version.
fn record_truth(file: &Path, compiled: &BTreeMap<String, Value>) -> Result<()> {
    let mut all: BTreeMap<String, Value> = match std::fs::read_to_string(file) {
        Ok(text) => serde_json::from_str(&text).with_context(|| format!("{} is not a JSON object", file.display()))?,
        Err(_) => BTreeMap::new(),
    };
    for crd in compiled.values() {
        let name = crd.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
        for v in crd.pointer("/spec/versions").and_then(Value::as_array).into_iter().flatten() {
            let version = v["name"].as_str().unwrap_or_default();
            all.insert(format!("{name}/{version}"), crd.clone());
        }
    }
    let text = serde_json::to_string_pretty(&all)?;
    std::fs::write(file, text).with_context(|| format!("cannot write {}", file.display()))
}

/// What the fallback produced.
#[derive(Debug)]
pub struct Compiled {
    /// The pending CRDs, complete, in the order given.
    pub crds: Vec<GeneratedCrd>,
    /// One note per compiled kind (the constructs that forced it) and one with the time it took.
    pub notes: Vec<String>,
}

/// Completes `pending` (kinds of the crate whose root is in `source_dir`) and makes the CRDs of `generated` (kinds
/// attribute macros generate, taken whole from `crd()`) by building and running the harness. `display_root` is the
/// folder paths in notes are shown relative to; `k8s_version` (`1.33`) the project's Kubernetes version, whose
/// k8s-openapi feature a crate that enables none, in a workspace that enables none, is built with.
pub fn compile(
    source_dir: &Path,
    pending: Vec<PendingCrd>,
    generated: Vec<MacroKind>,
    display_root: &Path,
    k8s_version: &str,
) -> Result<Compiled> {
    if pending.is_empty() && generated.is_empty() {
        return Ok(Compiled { crds: Vec::new(), notes: Vec::new() });
    }
    let started = Instant::now();
    let feature = format!("v{}", k8s_version.replace('.', "_"));
    let package = cargo::package_of(source_dir, Some(&feature))?;
    let mut wanted: Vec<harness::Wanted> = pending
        .iter()
        .flat_map(|p| {
            p.versions.iter().map(move |v| harness::Wanted {
                key: key(&p.crd.name, &v.version),
                kind: format!("{} ({} {})", v.root, p.crd.name, v.version),
                crate_path: v.crate_path.clone(),
                public_path: v.public_path.clone(),
                reexport: v.reexport.clone(),
            })
        })
        .collect();
    for (i, m) in generated.iter().enumerate() {
        if m.versions.is_empty() {
            wanted.push(harness::Wanted {
                key: macro_key(i),
                kind: format!("{} (generated by #[{}] on `{}`)", m.root, m.macro_path, m.item),
                crate_path: m.crate_path.clone(),
                public_path: m.public_path.clone(),
                reexport: m.reexport.clone(),
            });
        }
        wanted.extend(m.versions.iter().map(|v| harness::Wanted {
            key: format!("{}/{}", macro_key(i), v.name),
            kind: format!("{}::{} (generated by #[{}] on `{}`)", v.name, m.root, m.macro_path, m.item),
            crate_path: v.crate_path.clone(),
            public_path: v.public_path.clone(),
            reexport: v.reexport.clone(),
        }));
    }
    let built = harness::write(&package, &wanted)?;
    let output = cargo::run_harness(&package, &built).map_err(|e| unfound_macro_type(e, &generated))?;
    let compiled: BTreeMap<String, Value> =
        serde_json::from_str(output.trim()).context("the compiled harness printed something that is not JSON")?;
    if let Some(file) = compile_all() {
        record_truth(file, &compiled)?;
    }
    let elapsed = started.elapsed();
    let mut crds = Vec::new();
    let mut notes = Vec::new();
    for mut p in pending {
        for v in &p.versions {
            fill_version(&mut p.crd.crd, &p.crd.name, v, &compiled, display_root)?;
        }
        let kind = p.crd.crd.pointer("/spec/names/kind").and_then(Value::as_str).unwrap_or_default().to_string();
        let versions: Vec<&str> = p.versions.iter().map(|v| v.version.as_str()).collect();
        let mut note = format!("note: compiled {kind} ({}) {} for its schema:", p.crd.name, versions.join(", "));
        for v in &p.versions {
            for e in &v.because {
                let path = e.path.strip_prefix(display_root).unwrap_or(&e.path);
                note.push_str(&format!("\n  {}:{}:{}: {}", path.display(), e.line, e.column, e.kind));
            }
        }
        notes.push(note);
        crds.push(p.crd);
    }
    for (i, m) in generated.iter().enumerate() {
        let made = macro_crd(&compiled, i, m, display_root)?;
        let kind = made.crd.pointer("/spec/names/kind").and_then(Value::as_str).unwrap_or_default().to_string();
        let versions: Vec<&str> = made
            .crd
            .pointer("/spec/versions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| v["name"].as_str())
            .collect();
        let e = &m.because;
        let path = e.path.strip_prefix(display_root).unwrap_or(&e.path);
        let stored = match &m.storage {
            Some(s) => format!(" ({})", s.describe(&m.root, display_root)),
            None => String::new(),
        };
        notes.push(format!(
            "note: compiled {kind} ({}) {}, whose CustomResource derive an attribute macro generates{stored}:\n  \
             {}:{}:{}: {}",
            made.name,
            versions.join(", "),
            path.display(),
            e.line,
            e.column,
            e.kind
        ));
        crds.push(made);
    }
    if let Some(pin) = &package.k8s_openapi {
        notes.push(format!(
            "note: {} enables no k8s-openapi version feature of its own; the compiled fallback built it with `{}`, \
             as {} does",
            package.name, pin.feature, pin.from
        ));
    }
    for u in &package.unified {
        notes.push(format!(
            "note: the compiled fallback built {}'s dependency {} with feature(s) {}, as the workspace does ({} \
             enable(s) them)",
            package.name,
            u.name,
            u.features.join(", "),
            u.from.join(", ")
        ));
    }
    notes.push(format!(
        "note: the compiled fallback ({} kind(s), harness in {}) took {:.1}s; `--no-compile` refuses these kinds \
         instead",
        crds.len(),
        display(&built.dir, display_root).display(),
        elapsed.as_secs_f64()
    ));
    Ok(Compiled { crds, notes })
}

/// The CRD of the `i`th kind an attribute macro generates, `m`: printed whole, or (a versioning macro's kind) the
/// merge of its versions' CRDs with its storage version stored.
fn macro_crd(compiled: &BTreeMap<String, Value>, i: usize, m: &MacroKind, root: &Path) -> Result<GeneratedCrd> {
    let printed = |key: &str, what: &str| {
        let crd = compiled.get(key).cloned().and_then(macro_kinds::generated_crd);
        crd.with_context(|| {
            format!(
                "`{what}::crd()` (the kind #[{}] generates from `{}`) printed no CRD with a name, group and plural; \
                 this is a kubesmith bug, please report it",
                m.macro_path, m.item
            )
        })
    };
    let Some(stored) = &m.storage else { return printed(&macro_key(i), &m.root) };
    let crds = m
        .versions
        .iter()
        .map(|v| printed(&format!("{}/{}", macro_key(i), v.name), &format!("{}::{}", v.name, m.root)))
        .collect::<Result<Vec<_>>>()?;
    macro_kinds::merge_stored(crds, &stored.version).map_err(|why| {
        let e = &m.because;
        anyhow::anyhow!(
            "{}:{}: the versions #[{}] generates from `{}` do not merge into one CRD: {why}",
            display(&e.path, root).display(),
            e.line,
            m.macro_path,
            m.item
        )
    })
}

/// A harness build that found no type where kubesmith looked for one an attribute macro generates, said so.
fn unfound_macro_type(e: anyhow::Error, generated: &[MacroKind]) -> anyhow::Error {
    let text = format!("{e:#}");
    let unfound = ["cannot find", "could not find", "failed to resolve"].iter().any(|w| text.contains(w));
    let Some(m) = generated.iter().find(|m| unfound && text.contains(&format!("`{}`", m.root))) else { return e };
    if !m.versions.is_empty() {
        let names: Vec<&str> = m.versions.iter().map(|v| v.name.as_str()).collect();
        return e.context(format!(
            "the compiled fallback found no type `{}` in the version modules ({}) where kubesmith looks for the kind \
             #[{}] generates from `{}` (a module per `version(name = ..)`, beside the item, or beside the module the \
             versioning macro is on and replaces; inside it with `preserve_module`); declare that kind with \
             #[derive(CustomResource)] and a complete #[kube(group, version, kind)], or pass --no-compile",
            m.root,
            names.join(", "),
            m.macro_path,
            m.item
        ));
    }
    e.context(format!(
        "the compiled fallback found no type `{}` in the module of `{}`, where kubesmith looks for the kind #[{}] \
         generates (named by the macro's `kind` argument, else the item's #[kube(kind)], else the item's name \
         without `Spec`); a macro that puts it elsewhere (another name, a module no `version(name = ..)` argument \
         names) cannot be compiled this way: declare that kind with #[derive(CustomResource)] and a complete #[kube(group, version, kind)], or pass \
         --no-compile",
        m.root, m.item, m.macro_path
    ))
}

/// The key the harness prints the CRD of the `i`th kind an attribute macro generates under.
fn macro_key(i: usize) -> String {
    format!("<generated>/{i}")
}

fn key(crd: &str, version: &str) -> String {
    format!("{crd}/{version}")
}

fn display(path: &Path, root: &Path) -> PathBuf {
    path.strip_prefix(root).map(Path::to_path_buf).unwrap_or_else(|_| path.to_path_buf())
}

/// Puts the compiled schema of pending version `v` into the static CRD `crd` (named `name`), with the spec
/// struct's root markers applied to it as on the static path ([`super::markers::root`]).
fn fill_version(
    crd: &mut Value,
    name: &str,
    v: &PendingVersion,
    compiled: &BTreeMap<String, Value>,
    display_root: &Path,
) -> Result<()> {
    let k = key(name, &v.version);
    let Some(made) = compiled.get(&k) else {
        bail!("the compiled harness printed no CRD for {k}; this is a kubesmith bug, please report it");
    };
    let mut schema = made.pointer("/spec/versions/0/schema").cloned();
    let shown = |e: super::CrdError| {
        let path = e.path.strip_prefix(display_root).unwrap_or(&e.path).to_path_buf();
        anyhow::anyhow!("{}:{}:{}: {}", path.display(), e.line, e.column, e.kind)
    };
    if let (Some((skeleton, index)), Some(root)) =
        (&v.schema_markers, schema.as_mut().and_then(|s| s.get_mut("openAPIV3Schema")))
    {
        super::markers::transplant::apply_to_compiled(skeleton, index, root).map_err(shown)?;
        // as on the static path: JSONSchemaProps' key filter and number types after the markers
        *root = super::transform::to_json_schema_props(root.take());
    }
    if let Some(s) = schema.as_mut() {
        super::markers::root::apply_to_version_schema(&v.root_markers, s).map_err(|e| {
            let path = e.path.strip_prefix(display_root).unwrap_or(&e.path);
            anyhow::anyhow!("{}:{}:{}: {}", path.display(), e.line, e.column, e.kind)
        })?;
    } else if let Some(m) = v.root_markers.first() {
        let path = m.file.strip_prefix(display_root).unwrap_or(&m.file);
        bail!(
            "{}:{}:1: `+{}`: the compiled CRD of {k} has no schema whose root it could change; drop the marker",
            path.display(),
            m.line,
            m.name
        );
    }
    let versions = crd.pointer_mut("/spec/versions").and_then(Value::as_array_mut);
    let Some(target) = versions.and_then(|vs| vs.iter_mut().find(|x| x["name"] == v.version.as_str())) else {
        bail!("version {} of {name} is missing from the static CRD; this is a kubesmith bug", v.version);
    };
    match (schema, target.as_object_mut()) {
        (Some(s), Some(t)) => {
            t.insert("schema".into(), s);
        }
        (None, Some(t)) => {
            t.remove("schema");
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_truth_is_keyed_by_each_printed_crds_name_and_version_and_merged() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("truth.json");
        let crd = |name: &str, version: &str| serde_json::json!({"metadata": {"name": name}, "spec": {"versions": [{"name": version}]}});
        let first = BTreeMap::from([("foos.x.io/v1".to_string(), crd("foos.x.io", "v1"))]);
        record_truth(&file, &first).unwrap();
        // the harness' own keys (`<generated>/0/v2` for a macro's kind) give way to the CRD's name and version
        let second = BTreeMap::from([("<generated>/0/v2".to_string(), crd("bars.x.io", "v2"))]);
        record_truth(&file, &second).unwrap();
        let all: BTreeMap<String, Value> = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(all.keys().collect::<Vec<_>>(), ["bars.x.io/v2", "foos.x.io/v1"]);
        assert_eq!(all["bars.x.io/v2"], crd("bars.x.io", "v2"));
    }

    #[test]
    fn a_type_the_harness_cannot_find_is_explained_for_macro_kinds() {
        let because = crate::crd::CrdError::file(Path::new("src/lib.rs"), crate::crd::CrdErrorKind::NoCrateRoot);
        let m = MacroKind {
            macro_path: "versioned".into(),
            item: "GearSpec".into(),
            root: "Gear".into(),
            crate_path: None,
            public_path: None,
            reexport: None,
            public: true,
            because,
            versions: Vec::new(),
            storage: None,
        };
        let cargo = anyhow::anyhow!("error[E0433]: failed to resolve: could not find `Gear` in `crate_under_test`");
        let explained = format!("{:#}", unfound_macro_type(cargo, std::slice::from_ref(&m)));
        assert!(
            explained.starts_with("the compiled fallback found no type `Gear` in the module of `GearSpec`"),
            "{explained}"
        );
        assert!(explained.ends_with("could not find `Gear` in `crate_under_test`"), "{explained}");
        let other = anyhow::anyhow!("error: could not compile `x`: mismatched types `u8`");
        assert_eq!(
            format!("{:#}", unfound_macro_type(other, std::slice::from_ref(&m))),
            "error: could not compile `x`: mismatched types `u8`"
        );
        // A versioning macro's kind: looked for in the version modules.
        let version = |name: &str| crate::crd::macro_kinds::MacroVersion {
            name: name.into(),
            crate_path: None,
            public_path: None,
            reexport: None,
        };
        let versioned = MacroKind { versions: vec![version("v1alpha1"), version("v1")], ..m };
        let cargo = anyhow::anyhow!("error[E0433]: failed to resolve: could not find `Gear` in `v1alpha1`");
        let explained = format!("{:#}", unfound_macro_type(cargo, &[versioned]));
        assert!(
            explained.starts_with(
                "the compiled fallback found no type `Gear` in the version modules (v1alpha1, v1) where kubesmith looks \
                 for the kind #[versioned] generates from `GearSpec`"
            ),
            "{explained}"
        );
    }
}

#[cfg(test)]
mod root_marker_tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::crd::{K8sTable, SourceSet};

    const MARKERS: &str = "// +kubesmith:root:typeMeta\n// +kubesmith:root:required=metadata\n\
                           // +kubesmith:root:optional=spec\n";

    fn source(markers: &str, field: &str) -> String {
        format!(
            "{markers}#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]\n\
             #[kube(group = \"m.io\", version = \"v1\", kind = \"Thing\", namespaced, status = \"ThingStatus\")]\n\
             pub struct ThingSpec {{ pub w: {field} }}\n\
             #[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]\n\
             pub struct ThingStatus {{ pub phase: String }}\n"
        )
    }

    fn generation(src: &str) -> (tempfile::TempDir, crate::crd::Generation) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), src).unwrap();
        let set = SourceSet::new(&dir.path().join("src"));
        let generation = crate::crd::generate_all(&set, K8sTable::default_table()).unwrap();
        (dir, generation)
    }

    fn static_crd(src: &str) -> Value {
        let (_dir, g) = generation(src);
        assert!(g.problems.is_empty() && g.pending.is_empty(), "{:?}", g.problems);
        g.crds[0].crd.clone()
    }

    #[test]
    fn the_compiled_schema_gets_the_root_markers_as_the_static_one() {
        // A field type only the compiled crate knows makes the kind pending, with its root markers.
        let (dir, mut g) = generation(&source(MARKERS, "widgets::Widget"));
        assert!(g.problems.is_empty(), "{:?}", g.problems);
        let mut pending = g.pending.pop().expect("a pending kind");
        let v = pending.versions[0].clone();
        assert_eq!(v.root_markers.len(), 3);
        // What `Thing::crd()` prints when `Widget` is a string: kube's own root, without the markers' effects.
        let mut compiled = BTreeMap::new();
        compiled.insert(key(&pending.crd.name, "v1"), static_crd(&source("", "String")));
        fill_version(&mut pending.crd.crd, &pending.crd.name, &v, &compiled, dir.path()).unwrap();
        let root = &pending.crd.crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
        assert_eq!(root["required"], json!(["metadata"]));
        assert!(root.get("title").is_none(), "{root}");
        // Exactly the static path's CRD of the same kind.
        assert_eq!(pending.crd.crd, static_crd(&source(MARKERS, "String")));

        // A marker error in the compiled schema names the marker's file and line.
        let mut wrong = v.clone();
        wrong.root_markers.retain(|m| m.name == "kubesmith:root:optional");
        let mut kube_only = static_crd(&source("", "String"));
        kube_only["spec"]["versions"][0]["schema"]["openAPIV3Schema"].as_object_mut().unwrap().remove("required");
        compiled.insert(key(&pending.crd.name, "v1"), kube_only);
        let e = fill_version(&mut pending.crd.crd, &pending.crd.name, &wrong, &compiled, dir.path()).unwrap_err();
        assert!(
            e.to_string().starts_with("src/lib.rs:3:1: `+kubesmith:root:optional`: `spec` is not in the root"),
            "{e}"
        );
    }
}
