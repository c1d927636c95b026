//! Static CRD generation: parse a crate's sources with syn (never compiling them) and produce, for every
//! `#[derive(CustomResource)]` spec, the CRD kube-derive's `Kind::crd()` would produce, merged per group/kind.
//!
//! Pipeline: [`index`] (module discovery) → [`kube_attrs`] (`#[kube]` keys) → [`schema`] (schemars 1.2
//! semantics, with [`defaults`] evaluation and [`types`] resolution) → [`transform`] (kube's transforms and the
//! JSONSchemaProps key filter) → assembly and `merge_crds` here.
//!
//! [`generate_all`] returns a [`Generation`] kind by kind: `crds` (complete), `pending` (kinds one of whose versions
//! has a schema only the crate's code can produce: [`CrdErrorKind::NeedsCompile`] constructs, for [`fallback`]),
//! `macro_kinds` (kinds an attribute macro generates, [`macro_kinds`]) and `problems` (every problem, sorted by file
//! and line, each naming its CRD or none for crate-level ones such as a file that does not parse). The schema
//! generator records a problem and goes on, and marker problems are attached to the type or field they sit on, so one
//! run reports everything; `generate`/`generate_with` are the all-or-nothing form ([`CrdErrors`]). A [`SourceSet`]
//! can overlay planned contents, so `create api` generates the CRD of files not yet written. Crates of over 2 MiB of
//! Rust without `merge_crds` calls are generated in parts on worker threads (`partition`). `finish` is the one place
//! a `GeneratedCrd` becomes its file's text; [`size`] holds controller-gen's `maxDescLen` truncation and the
//! `kubectl apply` size check; [`markers`] applies kubebuilder markers on top of kube-derive's schema.
//!
//! Module map: [`index`] (lazy crate index), [`kube_attrs`] and [`spec`] (what kube-derive's parser and expansion
//! accept), [`unbuildable`] (derives kubesmith cannot build from, each a problem of its kind), [`attrs`] (serde and
//! schemars attributes), [`schema`] and [`types`] (schemas and type resolution), [`custom`] (custom schemas),
//! [`defaults`] and `predicates` (default values and `skip_serializing_if`), [`pattern`] (regexes in the sources),
//! [`pruning`] (maps of any JSON), [`transform`] (kube's transforms), [`dialect`] (schemars 0.8 or 1), [`k8s`]
//! (k8s-openapi's schemas), [`storage`] (the crate's `merge_crds` calls), [`macro_kinds`], [`fallback`],
//! [`finish`], [`kinds`] (the kinds a crate declares, for `adopt`), [`error`], and for other commands
//! [`instance`] (an object against its schema), [`sample`] (the least valid object), [`compare`] (two CRDs' differences
//! by path) and [`reverse`] (Rust types for a CRD, `--from-crd`).
//!
//! **Invariant:** the static generator never compiles or runs the user's code; an unsupported construct is a
//! [`CrdError`] with `path:line:col` and the fix, never a silently different CRD; a construct it cannot evaluate is
//! `NeedsCompile`, never a guess; a `#[derive(CustomResource)]` is never skipped in silence (only `#[cfg(test)]`
//! modules are skipped, on purpose). A crate without markers produces exactly `Kind::crd()` (the conformance corpus).

pub(crate) mod attrs;
pub(crate) mod compare;
pub(crate) mod custom;
pub(crate) mod defaults;
pub(crate) mod dialect;
pub(crate) mod error;
pub(crate) mod fallback;
pub(crate) mod finish;
pub(crate) mod index;
pub mod instance;
pub mod k8s;
pub(crate) mod kinds;
pub(crate) mod macro_kinds;
pub(crate) mod markers;
mod partition;
pub(crate) mod pattern;
mod predicates;
pub(crate) mod pruning;
pub(crate) mod reverse;
pub mod sample;
pub(crate) mod schema;
pub(crate) mod size;
pub mod spec;
pub(crate) mod storage;
pub(crate) mod transform;
pub(crate) mod type_names;
pub(crate) mod types;
pub(crate) mod unbuildable;
pub(crate) mod x_kube;

/// The reader of `#[kube(...)]`, for the conformance suite (it lives in [`crate::source`], below RBAC too).
pub use crate::source::kube_attrs;

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

pub use error::{CrdError, CrdErrorKind, CrdErrors};
pub use index::SourceSet;
pub use k8s::K8sTable;

use crate::source::kube_attrs::{KubeAttrs, SchemaMode};
use index::{CrateIndex, ItemId, ItemKind};
use markers::MarkerIndex;
use schema::Generator;
use spec::SpecItem;

/// One generated CRD (all versions of a group/kind merged).
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedCrd {
    /// `memcacheds.cache.example.com`.
    pub name: String,
    /// `cache.example.com`.
    pub group: String,
    /// `memcacheds`.
    pub plural: String,
    /// `<group>_<plural>.yaml`.
    pub file_name: String,
    /// The CustomResourceDefinition as JSON.
    pub crd: Value,
}

/// Generate every CRD of the crate, sorted by file name, for the default Kubernetes version
/// ([`k8s::DEFAULT_VERSION`]). Fails with every problem of the crate (a schema that needs compiling included).
pub fn generate(sources: &SourceSet) -> Result<Vec<GeneratedCrd>, CrdErrors> {
    generate_with(sources, K8sTable::default_table())
}

/// Generate every CRD of the crate, sorted by file name, embedding k8s-openapi types as `k8s` (one
/// Kubernetes version's table, [`K8sTable::for_version`]) describes them. All or nothing: fails with every
/// problem of the crate, sorted by file and line (see [`generate_all`] for the per-kind outcome).
pub fn generate_with(sources: &SourceSet, k8s: &K8sTable) -> Result<Vec<GeneratedCrd>, CrdErrors> {
    generate_all(sources, k8s)?.into_result()
}

/// What one run of the generator found, kind by kind: one kind's problems never keep another kind from being
/// generated, and every problem is reported.
#[derive(Debug, Default)]
pub struct Generation {
    /// Kinds generated statically, without a problem, sorted by file name.
    pub crds: Vec<GeneratedCrd>,
    /// Kinds without a problem some version of which needs compiling (see [`PendingCrd`]).
    pub pending: Vec<PendingCrd>,
    /// Every problem, sorted by file and line; a kind with a problem is neither in `crds` nor in `pending`.
    pub problems: Vec<Problem>,
    /// Kinds an attribute macro generates (see [`macro_kinds`]): only the compiled fallback can produce their CRDs.
    pub macro_kinds: Vec<macro_kinds::MacroKind>,
    /// Kinds generated statically and finished where they were generated ([`generate_finishing`]), sorted by file
    /// name; a kind is either here or in `crds`. Always empty from [`generate_all`].
    pub finished: Vec<finish::FinishedCrd>,
}

impl Generation {
    /// The CRDs if every kind was generated statically, else every problem (a schema that needs compiling
    /// included), sorted by file and line.
    pub fn into_result(self) -> Result<Vec<GeneratedCrd>, CrdErrors> {
        let mut errors: Vec<CrdError> = self.problems.into_iter().map(|p| p.error).collect();
        errors.extend(self.pending.into_iter().flat_map(|p| p.versions).flat_map(|v| v.because));
        errors.extend(self.macro_kinds.into_iter().map(|m| m.because));
        if errors.is_empty() { Ok(self.crds) } else { Err(CrdErrors::new(errors)) }
    }
}

/// A problem, and the CRD it keeps from being generated.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// `plural.group` of the CRD it concerns; `None` when it is about the crate (a file that does not parse, a
    /// marker that belongs to nothing) or a kind whose `#[kube(...)]` cannot be read.
    pub crd: Option<String>,
    /// What and where.
    pub error: CrdError,
}

/// A kind some version of which has a schema only compiling the crate can produce. Everything else about the
/// CRD (names, scope, every static version, the merge of versions) is final.
#[derive(Debug, Clone)]
pub struct PendingCrd {
    /// The merged CRD; the `schema` of each version in `versions` is still to be filled in.
    pub crd: GeneratedCrd,
    /// The versions to compile.
    pub versions: Vec<PendingVersion>,
}

/// One version of a [`PendingCrd`] to compile.
#[derive(Debug, Clone)]
pub struct PendingVersion {
    /// `spec.versions[].name`.
    pub version: String,
    /// The generated root type's name (`Foo`, or `#[kube(root)]`).
    pub root: String,
    /// A path naming the root type from the crate root (`["crate", "api", "v1", "Foo"]`), through modules and
    /// re-exports; `None` when private modules hide it.
    pub crate_path: Option<Vec<String>>,
    /// A path naming it from another crate (`crate` standing for the library's name); `None` when it is not public.
    pub public_path: Option<Vec<String>>,
    /// When private modules hide it from the crate root (`crate_path` is `None`) but the type itself is visible in
    /// the crate: the modules the compiled fallback re-exports it through to reach the root.
    pub reexport: Option<Reexport>,
    /// Why: one [`CrdErrorKind::NeedsCompile`] per construct, sorted.
    pub because: Vec<CrdError>,
    /// The spec struct's `+kubesmith:root:*` markers, for the compiled schema
    /// ([`markers::root::apply_to_version_schema`], as on the static path).
    pub root_markers: Vec<crate::markers::Marker>,
    /// The static schema around the holes (kube's transforms run, marker placeholders in place) and the markers
    /// they refer to, applied to the compiled schema ([`markers::transplant`]).
    pub schema_markers: Option<(Value, MarkerIndex)>,
}

/// How the compiled fallback names a type private modules hide (`crate::ledger::entries::Manifest` with `entries`
/// private to `ledger`): in its copy of the crate, each module from the type's parent up to the root's child
/// re-exports it (`pub(crate) use self::entries::Manifest as __Alias;`), so the root names `crate::ledger::__Alias`.
#[derive(Debug, Clone, PartialEq)]
pub struct Reexport {
    /// The type's name in its own module.
    pub name: String,
    /// The re-exporting modules, the type's parent first, the root's child last.
    pub steps: Vec<ReexportStep>,
    /// The path below the re-exported name to the type: empty for a type, `["Foo"]` when `name` is the version
    /// module (`v1`) an attribute macro generates the type `v1::Foo` in.
    pub tail: Vec<String>,
}

/// One module of a [`Reexport`].
#[derive(Debug, Clone, PartialEq)]
pub struct ReexportStep {
    /// The module's name (its last path segment).
    pub module: String,
    /// The file its items are written in.
    pub file: std::path::PathBuf,
    /// The inline modules (`mod x { .. }`) leading to it inside `file`, outermost first; empty when the module is
    /// the file's own.
    pub inline: Vec<String>,
    /// The child module the re-export goes through.
    pub child: String,
}

/// Generate every kind of the crate it can, reporting every problem. Fails only when there is no crate to read
/// (no `lib.rs`/`main.rs`, an unreadable file).
pub fn generate_all(sources: &SourceSet, k8s: &K8sTable) -> Result<Generation, CrdError> {
    let merges = storage::find(sources);
    partition::generate(sources, k8s, &merges, None)
}

/// [`generate_all`] for a caller that writes the CRD files: when the generation is split in parts
/// ([`partition`]), each part finishes its CRDs as `how` asks ([`finish::finish`]) before the next part is loaded,
/// so their JSON is let go early; those are in [`Generation::finished`], the others in [`Generation::crds`].
pub fn generate_finishing(sources: &SourceSet, k8s: &K8sTable, how: &finish::Finish) -> Result<Generation, CrdError> {
    let merges = storage::find(sources);
    partition::generate(sources, k8s, &merges, Some(how))
}

/// The kinds of the crate (of one part of it: [`partition`]) and every problem met.
fn generate_part(
    sources: &SourceSet,
    k8s: &K8sTable,
    merges: &storage::MergeCalls,
    part: Option<index::Part>,
) -> Result<Generation, CrdError> {
    // Files that cannot matter are not parsed; when a lookup finds that one might, parse it too and start over
    // (each round parses more files, so this ends; the scaffold's layout needs one round).
    let mut parse = std::collections::BTreeSet::new();
    loop {
        let ix = CrateIndex::load_part(sources, &parse, part.clone())?;
        let out = generate_from(&ix, k8s, merges);
        let touched = ix.take_touched();
        if touched.is_empty() {
            // Freed, the trees of a large crate make room for the CRDs' text that comes next (the wide bench corpus
            // peaked 20 MB lower, no slower); a small crate's are not worth the time it takes to free them.
            let parsed: usize = ix.files.iter().filter(|f| f.stub.is_none()).map(|f| f.text.len()).sum();
            // A part's trees are always freed: the next part reuses their memory.
            if part.is_none() && crate::source::forget::forgets_trees() && parsed < FREE_INDEX_ABOVE {
                std::mem::forget(ix);
            }
            return Ok(out);
        }
        parse.extend(touched);
    }
}

/// The bytes of parsed source above which [`generate_all`] frees its crate index even when told to leak it
/// ([`crate::source::forget`]): what comes after reuses its memory.
const FREE_INDEX_ABOVE: usize = 1 << 20;

fn generate_from(ix: &CrateIndex, k8s: &K8sTable, merges: &storage::MergeCalls) -> Generation {
    let mi = MarkerIndex::build(ix);
    let mut problems: Vec<Problem> = Vec::new();
    let crate_level = ix.problems.iter().chain(mi.loose_problems());
    problems.extend(crate_level.map(|e| Problem { crd: None, error: e.clone() }));
    // A file of the crate that does not parse is reported by the index already.
    let unread = merges.problems.iter().filter(|e| !ix.files.iter().any(|f| f.path == e.path));
    problems.extend(unread.map(|e| Problem { crd: None, error: e.clone() }));
    let mut versions: Vec<VersionOutcome> = Vec::new();
    let mut built = Vec::new();
    let mut generated = Vec::new();
    // A file another part owns is parsed here only for what a lookup needed in it: its kinds are that part's.
    for (id, item) in ix.own_items().filter(|(_, item)| !ix.generated_elsewhere(item.module)) {
        let spec = match &item.kind {
            ItemKind::Struct(s) => SpecItem::of_struct(s),
            ItemKind::Enum(e) => SpecItem::of_enum(e),
            _ => None,
        };
        if let Some(spec) = spec {
            built.push((item.module, spec.derive_span));
            // A derive whose names an attribute macro adds is the macro's kind, for the compiled fallback.
            let incomplete = macro_kinds::has_attribute_macro(spec.attrs)
                && spec.kube_attrs().err().is_some_and(|e| macro_kinds::only_missing_names(&e));
            if let Some(m) = macro_kinds::of_item(ix, id, true, incomplete) {
                generated.push(m);
                continue;
            }
            versions.push(version_crd(ix, &mi, id, &spec, k8s));
        } else if let Some(m) = macro_kinds::of_item(ix, id, false, false) {
            generated.push(m);
        }
    }
    // Never silent: a derive kubesmith cannot build from is a problem of its kind.
    for u in unbuildable::find(ix, &built) {
        versions.push(VersionOutcome { key: u.key, result: Err(vec![u.error]) });
    }
    let mut out = merge_all(ix, versions, merges, &mut problems);
    out.crds.sort_by(|a, b| a.file_name.cmp(&b.file_name));
    out.pending.sort_by(|a, b| a.crd.file_name.cmp(&b.crd.file_name));
    sort_problems(&mut problems);
    out.problems = problems;
    out.macro_kinds = generated;
    out
}

/// Sorts `problems` by file, line, column and message, each once.
fn sort_problems(problems: &mut Vec<Problem>) {
    problems.sort_by(|a, b| error::by_place(&a.error, &b.error));
    problems.dedup();
}

/// One `Kind::crd()` output plus where it came from.
struct VersionCrd {
    item: ItemId,
    attrs: KubeAttrs,
    storage_marker: Option<(std::path::PathBuf, usize)>,
    skip: Option<(std::path::PathBuf, usize)>,
    /// `+kubesmith:crd:versionOrder`, where it was written.
    order: Option<(Vec<String>, std::path::PathBuf, usize)>,
    crd: Value,
    /// Constructs that need compiling: the version's schema is left for the compiled fallback.
    compile: Vec<CrdError>,
    /// The `+kubesmith:root:*` markers of the spec struct (already applied unless `compile` is non-empty).
    root_markers: Vec<crate::markers::Marker>,
    /// With `compile`: the static schema around the holes and the markers its placeholders refer to.
    schema_markers: Option<(Value, MarkerIndex)>,
}

/// What became of one `#[derive(CustomResource)]` spec.
struct VersionOutcome {
    /// `(group, kind, plural.group)` when its `#[kube(...)]` could be read.
    key: Option<(String, String, String)>,
    result: Result<VersionCrd, Vec<CrdError>>,
}

/// Every error of a (possibly combined) `syn::Error` about `#[kube(...)]` of item `id`.
fn kube_errs(ix: &CrateIndex, id: ItemId, e: syn::Error) -> Vec<CrdError> {
    let file = ix.module_file(ix.items[id].module);
    e.into_iter().map(|e| CrdError::at(file, e.span(), CrdErrorKind::KubeAttr(e.to_string()))).collect()
}

fn version_crd(ix: &CrateIndex, mi: &MarkerIndex, id: ItemId, s: &SpecItem, k8s: &K8sTable) -> VersionOutcome {
    let k = match s.kube_attrs() {
        Ok(k) => k,
        Err(e) => return VersionOutcome { key: None, result: Err(kube_errs(ix, id, e)) },
    };
    let key = Some(spec::crd_key(&k));
    let refused = spec::compile_errors(ix.module_file(ix.items[id].module), s, &k);
    if !refused.is_empty() {
        return VersionOutcome { key, result: Err(refused) };
    }
    VersionOutcome { key, result: version_crd_of(ix, mi, id, s, k, k8s) }
}

fn version_crd_of(
    ix: &CrateIndex,
    mi: &MarkerIndex,
    id: ItemId,
    s: &SpecItem,
    k: KubeAttrs,
    k8s: &K8sTable,
) -> Result<VersionCrd, Vec<CrdError>> {
    let root_name = k.root.clone().unwrap_or_else(|| k.kind.clone());
    let mut compile = Vec::new();
    let mut skeleton = None;
    let schema = match k.schema.0 {
        SchemaMode::Disabled => json!({}),
        SchemaMode::Manual | SchemaMode::Derived => match root_schema(ix, mi, id, s, &k, &root_name, k8s) {
            Ok(schema) => schema::object([("openAPIV3Schema", schema)]),
            Err((problems, skel)) if problems.iter().all(CrdError::needs_compiling) => {
                compile = problems;
                skeleton = skel.and_then(|r| transform::rewrite(r, ix.dialect, ix.rewriter).ok());
                json!({})
            }
            Err((problems, _)) => return Err(problems),
        },
    };
    let singular = k.singular.clone().unwrap_or_else(|| k.kind.to_ascii_lowercase());
    let plural = k.plural.clone().unwrap_or_else(|| kube_attrs::to_plural(&singular));
    let mut metadata = Map::new();
    if !k.annotations.is_empty() {
        metadata.insert("annotations".into(), pairs(&k.annotations));
    }
    if !k.labels.is_empty() {
        metadata.insert("labels".into(), pairs(&k.labels));
    }
    metadata.insert("name".into(), json!(format!("{plural}.{}", k.group)));
    let mut names = Map::new();
    if !k.categories.is_empty() {
        names.insert("categories".into(), json!(k.categories));
    }
    names.insert("kind".into(), json!(k.kind));
    names.insert("plural".into(), json!(plural));
    if !k.shortnames.is_empty() {
        names.insert("shortNames".into(), json!(k.shortnames));
    }
    names.insert("singular".into(), json!(singular));
    let mut version = Map::new();
    if !k.printcolumns.is_empty() {
        version.insert("additionalPrinterColumns".into(), json!(k.printcolumns));
    }
    if let Some(dep) = &k.deprecated {
        version.insert("deprecated".into(), json!(true));
        if let Some(w) = dep {
            version.insert("deprecationWarning".into(), json!(w));
        }
    }
    version.insert("name".into(), json!(k.version));
    version.insert("schema".into(), schema);
    if !k.selectable.is_empty() {
        let fields: Vec<Value> = k.selectable.iter().map(|p| json!({ "jsonPath": p })).collect();
        version.insert("selectableFields".into(), Value::Array(fields));
    }
    version.insert("served".into(), json!(k.served));
    version.insert("storage".into(), json!(k.storage));
    if k.status.is_some() {
        let mut sub = Map::new();
        if let Some(scale) = &k.scale {
            sub.insert("scale".into(), scale.clone());
        }
        sub.insert("status".into(), json!({}));
        version.insert("subresources".into(), Value::Object(sub));
    }
    let mut crd = schema::object([
        ("apiVersion", json!("apiextensions.k8s.io/v1")),
        ("kind", json!("CustomResourceDefinition")),
        ("metadata", Value::Object(metadata)),
        (
            "spec",
            schema::object([
                ("group", json!(k.group)),
                ("names", Value::Object(names)),
                ("scope", json!(if k.namespaced { "Namespaced" } else { "Cluster" })),
                ("versions", Value::Array(vec![Value::Object(version)])),
            ]),
        ),
    ]);
    let flags = markers::resource::apply_crd_markers(mi.item(id), &k, &mut crd).map_err(|e| vec![e])?;
    let schema_markers = skeleton.map(|s| {
        let index = mi.subset_for(&s);
        (s, index)
    });
    // The root markers change the final schema: this one, or the compiled fallback's (`PendingVersion::root_markers`).
    let root_markers = markers::root::root_markers(mi.item(id));
    if compile.is_empty() {
        markers::root::apply_to_version_schema(&root_markers, &mut crd["spec"]["versions"][0]["schema"])
            .map_err(|e| vec![e])?;
    }
    Ok(VersionCrd {
        item: id,
        attrs: k,
        storage_marker: flags.storage.clone(),
        skip: flags.skip.clone(),
        order: flags.order.clone(),
        crd,
        compile,
        root_markers,
        schema_markers,
    })
}

fn pairs(p: &[(String, String)]) -> Value {
    Value::Object(p.iter().map(|(k, v)| (k.clone(), json!(v))).collect())
}

/// The root `openAPIV3Schema` of `Kind::crd()`, or every problem found on the way with, when only code can fill
/// them, the schema around the holes (kube's transforms not run, marker placeholders in place).
fn root_schema(
    ix: &CrateIndex,
    mi: &MarkerIndex,
    id: ItemId,
    s: &SpecItem,
    k: &KubeAttrs,
    root_name: &str,
    k8s: &K8sTable,
) -> Result<Value, (Vec<CrdError>, Option<Value>)> {
    let mut g = Generator::new(ix, k8s).with_markers(mi);
    let result = root_schema_with(&mut g, mi, id, s, k, root_name);
    let mut problems = g.take_problems();
    match result {
        Ok(schema) if problems.is_empty() => return Ok(schema),
        Ok(skeleton) => return Err((problems, Some(skeleton))),
        Err(e) => problems.push(e),
    }
    Err((problems, None))
}

fn root_schema_with(
    g: &mut Generator,
    mi: &MarkerIndex,
    id: ItemId,
    s: &SpecItem,
    k: &KubeAttrs,
    root_name: &str,
) -> Result<Value, CrdError> {
    let ix = g.ix;
    let m = ix.items[id].module;
    let file = ix.module_file(m);
    if k.schema.0 == SchemaMode::Manual {
        let root = manual_root(g, m, k, root_name)?;
        return finish_root(g, mi, file, s, root);
    }
    let spec = g.item_schema(id)?;
    let mut root = json!({"type": "object"});
    if k.no_spec {
        let mut spec = spec;
        if let Value::Object(o) = &mut spec {
            // A flattened struct keeps only what flatten() merges; its own metadata stays on it.
            o.remove("description");
            o.remove("title");
        }
        merge_flat(&mut root, spec);
    } else {
        root["properties"] = schema::object([("spec", spec)]);
        root["required"] = json!(["spec"]);
    }
    if let Some((status, span)) = &k.status {
        let ty: syn::Type = syn::parse_str(status).map_err(|e| {
            CrdError::at(file, *span, CrdErrorKind::KubeAttr(format!("invalid status type `{status}`: {e}")))
        })?;
        // Resolve with the attribute's span for errors.
        let mut st = g.type_schema(&ty, m).map_err(|mut e| {
            if e.path == file && e.line == 1 {
                let start = span.start();
                e.line = start.line;
                e.column = start.column + 1;
            }
            e
        })?;
        schema::make_optional(&mut st, ix.dialect);
        if let Some(Value::Object(props)) =
            root.as_object_mut().map(|o| o.entry("properties").or_insert_with(|| json!({})))
        {
            props.insert("status".into(), st);
        }
    }
    let doc =
        k.doc.clone().unwrap_or_else(|| format!(" Auto-generated derived type for {} via `CustomResource`", s.ident));
    let doc = doc.strip_prefix(' ').map(str::to_string).unwrap_or(doc);
    let (title, description) = ix.dialect.title_and_description(&doc);
    if !title.is_empty() {
        root["title"] = json!(title);
    }
    if !description.is_empty() {
        root["description"] = json!(description);
    }
    if !k.validations.is_empty() {
        root["x-kubernetes-validations"] = json!(k.validations);
    }
    if root.get("title").is_none() {
        root["title"] = json!(root_name);
    }
    finish_root(g, mi, file, s, root)
}

/// kube's transforms, then the kubebuilder markers, then the JSONSchemaProps key filter.
fn finish_root(
    g: &mut Generator,
    mi: &MarkerIndex,
    file: &std::path::Path,
    s: &SpecItem,
    root: Value,
) -> Result<Value, CrdError> {
    if g.has_problems() {
        // The schema is incomplete: kube's rewriter would only add noise to the problems already found.
        return Ok(root);
    }
    let mut root = transform::rewrite(root, g.ix.dialect, g.ix.rewriter).map_err(|c| {
        let fix = if c.0.starts_with("property") {
            "kube-derive 5's crd() panics on it (`Property .. has the schema .. but was already defined as .. in \
             another subschema`): give that property the same schema (type, format and doc comment) in every variant \
             that has it, or rename it in one of them"
        } else {
            "kube-derive 5's crd() panics on it (its structural rewriter finds two variants of different types): use \
             only externally tagged enums whose variants do not mix unit and data variants"
        };
        CrdError::unsupported(
            file,
            s.ident.span(),
            format!("schema of `{}` is rejected by kube's structural rewriter ({})", s.ident, c.0),
            fix,
        )
    })?;
    markers::apply::apply_schema(&mut root, mi)?;
    Ok(transform::to_json_schema_props(root))
}

/// The root schema of `#[kube(schema = "manual")]`: the crate's `impl JsonSchema for <Root>`, evaluated, with
/// the `title` `into_root_schema_for` adds (`schema_name()`) when it has none.
fn manual_root(g: &mut Generator, m: index::ModId, k: &KubeAttrs, root_name: &str) -> Result<Value, CrdError> {
    let ix = g.ix;
    let file = ix.module_file(m);
    if k.cel.is_some() {
        return Err(CrdError::unsupported(
            file,
            k.schema.1,
            "#[kube(cel)] with #[kube(schema = \"manual\")]",
            "kube-derive refuses it (the CEL methods need a derived schema); drop `cel` or derive the schema",
        ));
    }
    if !k.validations.is_empty() {
        return Err(CrdError::unsupported(
            file,
            k.schema.1,
            "#[kube(validation = ..)] with #[kube(schema = \"manual\")]",
            "kube-derive then puts #[x_kube(validation)] on a root that does not derive KubeSchema, which does not \
             compile; write the rules into the hand-written schema (x-kubernetes-validations) instead",
        ));
    }
    let Some(imp) = custom::root_impl(ix, root_name, m) else {
        return Err(CrdError::needs_compile(
            file,
            k.schema.1,
            "#[kube(schema = \"manual\")]",
            format!(
                "kubesmith finds no `impl JsonSchema for {root_name}` in the crate's sources (a macro may generate it)"
            ),
        ));
    };
    let construct = format!("`impl JsonSchema for {root_name}`");
    let mut root = custom::impl_schema(ix, g, imp, construct.clone(), false)?;
    if root.get("title").is_none() {
        let title = custom::impl_schema_name(ix, g, imp, construct)?;
        attrs::insert(&mut root, "title", json!(title));
    }
    Ok(root)
}

/// `#[serde(flatten)] spec` on the root (no_spec): merge properties and required.
fn merge_flat(root: &mut Value, spec: Value) {
    let Value::Object(spec) = spec else { return };
    let Value::Object(r) = root else { return };
    for (k, v) in spec {
        match (k.as_str(), r.get_mut(&k)) {
            ("required", Some(Value::Array(a))) => {
                if let Value::Array(b) = v {
                    a.extend(b);
                }
            }
            ("properties", Some(Value::Object(a))) => {
                if let Value::Object(b) = v {
                    a.extend(b);
                }
            }
            (_, None) => {
                r.insert(k, v);
            }
            _ => {}
        }
    }
}

/// Group versions by (group, kind) and merge them with `merge_crds` semantics; a kind any version of which has
/// a problem is left out, with its problems in `problems`.
fn merge_all(
    ix: &CrateIndex,
    versions: Vec<VersionOutcome>,
    merges: &storage::MergeCalls,
    problems: &mut Vec<Problem>,
) -> Generation {
    /// The versions of one kind found so far.
    struct KindVersions {
        name: String,
        ok: Vec<VersionCrd>,
        errors: Vec<CrdError>,
    }
    let mut groups: BTreeMap<(String, String), KindVersions> = BTreeMap::new();
    for v in versions {
        let Some((group, kind, name)) = v.key else {
            let errors = v.result.err().unwrap_or_default();
            problems.extend(errors.into_iter().map(|error| Problem { crd: None, error }));
            continue;
        };
        let entry =
            groups.entry((group, kind)).or_insert_with(|| KindVersions { name, ok: Vec::new(), errors: Vec::new() });
        match v.result {
            Ok(v) => entry.ok.push(v),
            Err(errors) => entry.errors.extend(errors),
        }
    }
    let storage::ByKind { mut calls, mixed, loose } = storage::by_kind(&merges.calls);
    for (group, kind, error) in mixed {
        if let Some(entry) = groups.get_mut(&(group, kind)) {
            entry.errors.push(error);
        }
    }
    let mut out = Generation::default();
    for ((group, kind), KindVersions { name, ok, errors }) in groups {
        let calls = calls.remove(&(group.clone(), kind.clone())).unwrap_or_default();
        let named = merges.named.get(&(group.clone(), kind.clone())).map(String::as_str);
        let storage = StorageCalls { calls: &calls, loose: &loose, base: &merges.base, named };
        let result = if errors.is_empty() { merge_kind(ix, &group, &kind, ok, &storage) } else { Err(errors) };
        match result {
            Ok(merged) if merged.versions.is_empty() => out.crds.push(merged.crd),
            Ok(merged) => out.pending.push(merged),
            Err(errors) => {
                problems.extend(errors.into_iter().map(|error| Problem { crd: Some(name.clone()), error }));
            }
        }
    }
    out
}

/// The `merge_crds` calls one kind's merge looks at.
struct StorageCalls<'a> {
    /// The calls merging its versions.
    calls: &'a [&'a storage::MergeCall],
    /// The calls whose list kubesmith cannot read (they may merge it).
    loose: &'a [&'a storage::MergeCall],
    /// What places in messages are relative to.
    base: &'a std::path::Path,
    /// The storage version PROJECT names (`storageVersions`), chosen as a `+kubebuilder:storageversion` marker is.
    named: Option<&'a str>,
}

/// `versions` with those `order` names first, in its order, and the others after them as they were.
fn in_order(versions: Vec<Value>, order: &[String]) -> Result<Vec<Value>, String> {
    let mut slots: Vec<Option<Value>> = versions.into_iter().map(Some).collect();
    let mut out = Vec::new();
    for (i, name) in order.iter().enumerate() {
        if order[..i].contains(name) {
            return Err(format!("`{name}` is named twice; name each version once"));
        }
        let Some(slot) = slots.iter_mut().find(|s| s.as_ref().is_some_and(|v| v["name"] == name.as_str())) else {
            let known: Vec<String> = out
                .iter()
                .chain(slots.iter().flatten())
                .filter_map(|v: &Value| v["name"].as_str().map(str::to_string))
                .collect();
            return Err(format!(
                "the kind has no version `{name}` (it has {}); drop it from the list",
                known.join(", ")
            ));
        };
        out.extend(slot.take());
    }
    out.extend(slots.into_iter().flatten());
    Ok(out)
}

/// The versions of one kind merged like `merge_crds`: exactly one storage version (the one the crate's own
/// `merge_crds` call names, else the marked one, else the one `#[kube(storage)]` leaves), scopes that agree.
fn merge_kind(
    ix: &CrateIndex,
    group: &str,
    kind: &str,
    all: Vec<VersionCrd>,
    calls: &StorageCalls,
) -> Result<PendingCrd, Vec<CrdError>> {
    let (group, kind) = (group.to_string(), kind.to_string());
    let (skipped, mut vs): (Vec<VersionCrd>, Vec<VersionCrd>) = all.into_iter().partition(|v| v.skip.is_some());
    if vs.is_empty() {
        let (file, line) = skipped[0].skip.clone().unwrap_or_default();
        return Err(vec![CrdError::marker(
            &file,
            line,
            format!(
                "`+kubebuilder:skipversion` leaves kind {kind} in group {group} without any version (cannot \
                 skip a version if there is only a single version); remove the marker"
            ),
        )]);
    }
    let mut pending = Vec::new();
    for v in &vs {
        if !v.compile.is_empty() || fallback::compile_all().is_some() {
            let item = &ix.items[v.item];
            let root = v.attrs.root.clone().unwrap_or_else(|| v.attrs.kind.clone());
            // kube-derive gives the root type the spec struct's visibility.
            let vis = match &item.kind {
                ItemKind::Struct(s) => index::Vis::of(&s.vis),
                _ => index::Vis::Private,
            };
            let crate_path = ix.nameable_path(item.module, &root, vis, false);
            let public_path = ix.nameable_path(item.module, &root, vis, true);
            let reexport = if crate_path.is_none() { ix.reexport_route(item.module, &root, vis) } else { None };
            let because = CrdErrors::new(v.compile.clone()).into_vec();
            pending.push(PendingVersion {
                version: v.attrs.version.clone(),
                root,
                crate_path,
                public_path,
                reexport,
                because,
                root_markers: v.root_markers.clone(),
                schema_markers: v.schema_markers.clone(),
            });
        }
    }
    let candidates: Vec<storage::Candidate> = vs
        .iter()
        .map(|v| {
            let item = &ix.items[v.item];
            let start = index::item_span(&item.kind).start();
            storage::Candidate {
                version: v.attrs.version.clone(),
                at: (ix.module_file(item.module).to_path_buf(), start.line, start.column + 1),
                marker: v.storage_marker.clone(),
            }
        })
        .collect();
    let skipped_at: Vec<(String, std::path::PathBuf, usize)> = skipped
        .iter()
        .filter_map(|v| v.skip.clone().map(|(file, line)| (v.attrs.version.clone(), file, line)))
        .collect();
    let chosen = storage::choose(&group, &kind, &candidates, &skipped_at, calls.calls, calls.base)?;
    let root_idx = match &chosen {
        Some(choice) => {
            // `merge_crds` keeps its list's order: the storage version first, then the others from the end.
            let mut slots: Vec<Option<VersionCrd>> = vs.drain(..).map(Some).collect();
            vs = choice.order.iter().filter_map(|&i| slots[i].take()).collect();
            vs.extend(slots.into_iter().flatten());
            choice.order.iter().position(|&i| i == choice.storage).unwrap_or_default()
        }
        None if vs.len() == 1 => 0,
        None => {
            let marked: Vec<usize> = (0..vs.len()).filter(|i| vs[*i].storage_marker.is_some()).collect();
            let storage: Vec<usize> = (0..vs.len()).filter(|i| vs[*i].attrs.storage).collect();
            let named: Option<usize> = match calls.named {
                Some(n) => match vs.iter().position(|v| v.attrs.version == n) {
                    Some(i) => Some(i),
                    None => {
                        let names: Vec<&str> = vs.iter().map(|v| v.attrs.version.as_str()).collect();
                        let item = &ix.items[vs[0].item];
                        return Err(vec![CrdError::at(
                            ix.module_file(item.module),
                            index::item_span(&item.kind),
                            CrdErrorKind::Mismatch(format!(
                                "PROJECT's `storageVersions` names `{n}` as the storage version of kind {kind} in \
                                 group {group}, which has no such version (it has {}); name one of them there",
                                names.join(", ")
                            )),
                        )]);
                    }
                },
                None => None,
            };
            let chosen = match named {
                Some(i) => vec![i],
                None if marked.len() == 1 => marked,
                None if storage.len() == vs.len() && vs.iter().all(|v| expanded_version(ix, v.item)) => {
                    vec![versioned_storage(ix, &kind, &vs)]
                }
                None => storage,
            };
            if chosen.len() != 1 {
                let list = if chosen.is_empty() { (0..vs.len()).collect::<Vec<_>>() } else { chosen.clone() };
                let names: Vec<&str> = list.iter().map(|i| vs[*i].attrs.version.as_str()).collect();
                let at = &vs[list[0]];
                let item = &ix.items[at.item];
                let mut errors = vec![CrdError::at(
                    ix.module_file(item.module),
                    index::item_span(&item.kind),
                    CrdErrorKind::StorageVersions {
                        kind: kind.clone(),
                        group: group.clone(),
                        count: chosen.len(),
                        versions: names.join(", "),
                    },
                )];
                errors.extend(storage::unread(calls.loose, &group, &kind));
                return Err(errors);
            }
            chosen[0]
        }
    };
    let root = vs.remove(root_idx);
    for v in &vs {
        for (what, a, b) in [("scope", &root.crd["spec"]["scope"], &v.crd["spec"]["scope"])] {
            if a != b {
                let item = &ix.items[v.item];
                return Err(vec![CrdError::at(
                    ix.module_file(item.module),
                    index::item_span(&item.kind),
                    CrdErrorKind::Mismatch(format!(
                        "version {} of kind {kind} has {what} {b} but the storage version {} has {a}; make them agree",
                        v.attrs.version, root.attrs.version
                    )),
                )]);
            }
        }
    }
    if let Some(v) = vs.iter().find(|v| v.order.is_some())
        && let Some((_, file, line)) = &v.order
    {
        return Err(vec![CrdError::marker(
            file,
            *line,
            format!(
                "`+kubesmith:crd:versionOrder` is on version {} of kind {kind}, but the storage version {} decides                  the CRD; move the marker to its spec struct",
                v.attrs.version, root.attrs.version
            ),
        )]);
    }
    let order = root.order.clone();
    let mut crd = root.crd;
    let mut all_versions = Vec::new();
    if let Some(Value::Array(rv)) = crd["spec"].get_mut("versions") {
        if vs.is_empty() && chosen.is_none() {
            all_versions = std::mem::take(rv);
        } else {
            for mut v in std::mem::take(rv) {
                v["storage"] = json!(true);
                all_versions.push(v);
            }
        }
    }
    while let Some(mut v) = vs.pop() {
        if let Some(Value::Array(vv)) = v.crd["spec"].get_mut("versions") {
            for mut x in std::mem::take(vv) {
                x["storage"] = json!(false);
                all_versions.push(x);
            }
        }
    }
    if !all_versions.iter().any(|v| v["served"] == json!(true)) {
        let names: Vec<&str> = all_versions.iter().filter_map(|v| v["name"].as_str()).collect();
        let item = &ix.items[root.item];
        return Err(vec![CrdError::at(
            ix.module_file(item.module),
            index::item_span(&item.kind),
            CrdErrorKind::Mismatch(format!(
                "CRD for {kind} in group {group} with version(s) [{}] does not serve any version; drop \
                 `+kubebuilder:unservedversion` (or #[kube(served = false)]) from one of them",
                names.join(" ")
            )),
        )]);
    }
    if !all_versions.iter().any(|v| v["storage"] == json!(true)) {
        // Only a kind of one version gets here: merged kinds got their storage version above.
        let item = &ix.items[root.item];
        return Err(vec![CrdError::at(
            ix.module_file(item.module),
            index::item_span(&item.kind),
            CrdErrorKind::Mismatch(format!(
                "the only version {} of kind {kind} in group {group} has #[kube(storage = false)]: the API server \
                 refuses a CRD without a storage version; drop `storage = false` (it sets apart the other versions \
                 of a kind that has several)",
                root.attrs.version
            )),
        )]);
    }
    if let Some((order, file, line)) = order {
        all_versions = in_order(all_versions, &order)
            .map_err(|why| vec![CrdError::marker(&file, line, format!("`+kubesmith:crd:versionOrder`: {why}"))])?;
    }
    crd["spec"]["versions"] = Value::Array(all_versions);
    let plural = crd["spec"]["names"]["plural"].as_str().unwrap_or_default().to_string();
    let name = crd["metadata"]["name"].as_str().unwrap_or_default().to_string();
    let file_name = format!("{group}_{plural}.yaml");
    Ok(PendingCrd { crd: GeneratedCrd { file_name, name, group, plural, crd }, versions: pending })
}

/// Whether item `item` sits in a version module of an expanded stackable-versioned module
/// ([`crate::source::versioned`]).
fn expanded_version(ix: &CrateIndex, item: ItemId) -> bool {
    let module = &ix.modules[ix.items[item].module];
    module.decl.attrs.iter().any(|a| a.path().is_ident(crate::source::versioned::EXPANDED))
}

/// The storage version stackable-versioned's merged CRD of kind `kind` has among the versions `vs`: the one a
/// `Kind::merged_crd(..)` call names, else the newest.
fn versioned_storage(ix: &CrateIndex, kind: &str, vs: &[VersionCrd]) -> usize {
    let mut names: Vec<String> = vs.iter().map(|v| v.attrs.version.clone()).collect();
    names.sort_by_key(|n| crate::source::versioned::version_order(n));
    let chosen = macro_kinds::versions::storage(ix, kind, &names).version;
    vs.iter().position(|v| v.attrs.version == chosen).unwrap_or_default()
}
