//! Conformance of the static CRD generator with kube-derive: every corpus sample kube-derive accepted is run
//! through `kubesmith::crd::generate` on a temp crate and compared with kube-derive's own `crd()` output as
//! committed in `tests/conformance/kube-derive/out/` (`conformance_live` recompiles the corpus and checks
//! those files are still what kube-derive produces).

use std::path::{Path, PathBuf};

use kubesmith::crd::{self, CrdError, GeneratedCrd, SourceSet};
use serde_json::Value;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/conformance/kube-derive");

/// How to cut a corpus sample out of its input file.
pub(crate) struct Sample {
    /// Output file stem (`out/<name>.json`).
    pub(crate) name: &'static str,
    pub(crate) input: &'static str,
    /// (kind, version) of the specs that keep `#[derive(CustomResource)]`.
    pub(crate) keep: &'static [(&'static str, Option<&'static str>)],
    /// Rust fields removed from the input (constructs kubesmith rejects on purpose); their
    /// camelCase names are removed from the expected spec schema.
    pub(crate) strip: &'static [(&'static str, &'static str)],
}

fn corpus(file: &str) -> String {
    std::fs::read_to_string(Path::new(CORPUS).join(file)).expect("corpus file")
}

/// The input with only the wanted specs deriving CustomResource and the stripped fields removed.
pub(crate) fn cut_input(sample: &Sample) -> String {
    let src = corpus(sample.input);
    let lines: Vec<&str> = src.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.trim_start().starts_with("#[derive(CustomResource") {
            // Look ahead until the struct line for kind/version.
            let mut j = i;
            let mut header = String::new();
            while j < lines.len() && !lines[j].contains("pub struct") && !lines[j].contains("pub enum") {
                header.push_str(lines[j]);
                j += 1;
            }
            let keep = sample.keep.iter().any(|(kind, version)| {
                header.contains(&format!("kind = \"{kind}\""))
                    && version.is_none_or(|v| header.contains(&format!("version = \"{v}\"")))
            });
            if keep {
                out.push(line.to_string());
            } else {
                out.push(line.replacen("CustomResource, ", "", 1));
            }
            i += 1;
            continue;
        }
        let trimmed = line.trim_start();
        if let Some((field, _)) = sample.strip.iter().find(|(f, _)| trimmed.starts_with(&format!("pub {f}:"))) {
            let _ = field;
            // Drop the field and its attributes/doc lines above it.
            while out.last().is_some_and(|l| l.trim_start().starts_with("#[") || l.trim_start().starts_with("///")) {
                out.pop();
            }
            i += 1;
            continue;
        }
        out.push(line.to_string());
        i += 1;
    }
    out.join("\n")
}

pub(crate) fn expected(sample: &Sample) -> Value {
    let dir = Path::new(CORPUS).join("out");
    let json = dir.join(format!("{}.json", sample.name));
    let v: Value = if json.exists() {
        serde_json::from_str(&std::fs::read_to_string(json).expect("read")).expect("json")
    } else {
        let yaml = std::fs::read_to_string(dir.join(format!("{}.serde_yaml.yaml", sample.name))).expect("read yaml");
        serde_yaml_ng::from_str(&yaml).expect("yaml")
    };
    strip_expected(sample, v)
}

/// kube-derive's CRD without the properties of the fields `cut_input` removes.
pub(crate) fn strip_expected(sample: &Sample, mut v: Value) -> Value {
    if let Some(Value::Array(versions)) = v.pointer_mut("/spec/versions") {
        for version in versions {
            let Some(spec) = version.pointer_mut("/schema/openAPIV3Schema/properties/spec") else {
                continue;
            };
            for (_, prop) in sample.strip {
                if let Some(Value::Object(p)) = spec.get_mut("properties") {
                    p.remove(*prop);
                }
                if let Some(Value::Array(r)) = spec.get_mut("required") {
                    r.retain(|x| x != prop);
                }
            }
        }
    }
    v
}

/// A crate of `src` with the corpus' manifest (schemars' features decide which foreign types have a schema).
fn temp_crate(src: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("src")).expect("mkdir");
    std::fs::write(dir.path().join("src/lib.rs"), src).expect("write");
    std::fs::write(dir.path().join("Cargo.toml"), corpus("input-Cargo.toml")).expect("write");
    dir
}

fn run(src: &str) -> Result<Vec<GeneratedCrd>, CrdError> {
    let dir = temp_crate(src);
    crd::generate(&SourceSet::new(&dir.path().join("src"))).map_err(|e| e.first().clone())
}

/// Compare JSON values, numbers by value; returns the first differing path.
pub(crate) fn diff(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => (x.as_f64() != y.as_f64()).then(|| format!("{path}: {x} != {y}")),
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => {
                        if let Some(d) = diff(p, q, &format!("{path}/{k}")) {
                            return Some(d);
                        }
                    }
                    (p, q) => {
                        let show = |v: Option<&Value>| v.map(|v| v.to_string().chars().take(300).collect::<String>());
                        return Some(format!("{path}/{k}: got {:?}, expected {:?}", show(p), show(q)));
                    }
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(format!("{path}: length {} != {}", x.len(), y.len()));
            }
            x.iter().zip(y).enumerate().find_map(|(i, (p, q))| diff(p, q, &format!("{path}/{i}")))
        }
        _ => (a != b).then(|| format!("{path}: {a} != {b}")),
    }
}

fn check(sample: &Sample) {
    if let Err(e) = check_against(sample, &expected(sample)) {
        panic!("{e}");
    }
}

/// kubesmith's static CRD for `sample` compared with `want` (kube-derive's, stripped).
pub(crate) fn check_against(sample: &Sample, want: &Value) -> Result<(), String> {
    let src = cut_input(sample);
    let crds = run(&src).map_err(|e| format!("{}: generate failed: {e}", sample.name))?;
    if crds.len() != 1 {
        return Err(format!(
            "{}: expected one CRD, got {:?}",
            sample.name,
            crds.iter().map(|c| &c.name).collect::<Vec<_>>()
        ));
    }
    if let Some(d) = diff(&crds[0].crd, want, "") {
        return Err(format!("{}: CRD differs from kube-derive at {d}", sample.name));
    }
    if crds[0].name != want["metadata"]["name"] {
        return Err(format!("{}: name {} differs", sample.name, crds[0].name));
    }
    assert_eq!(crds[0].file_name, format!("{}_{}.yaml", crds[0].group, crds[0].plural));
    Ok(())
}

const SCHEMA: &str = "input-schema_samples.rs";
const COVERAGE: &str = "input-coverage.rs";
const CUSTOM: &str = "input-custom_schemas.rs";
const OPERATORS: &str = "input-operator_shapes.rs";
const ENUM_SPECS: &str = "input-enum_specs.rs";
const LAST_MILE: &str = "input-last_mile.rs";
const VALUES: &str = "input-value_schemas.rs";
const MERGES: &str = "input-merge_storage.rs";
const GENERICS: &str = "input-generics.rs";

macro_rules! conformance {
    ($($test:ident: $name:literal, $input:expr, [$(($kind:literal, $ver:expr)),*], [$(($f:literal, $p:literal)),*];)*) => {
        /// Every sample kubesmith reproduces.
        pub(crate) const SAMPLES: &[Sample] = &[
            $(Sample { name: $name, input: $input, keep: &[$(($kind, $ver)),*], strip: &[$(($f, $p)),*] },)*
        ];
        $(
            #[test]
            fn $test() {
                check(SAMPLES.iter().find(|s| s.name == $name).expect("listed"));
            }
        )*
    };
}

conformance! {
    shapes: "shapes", SCHEMA, [("Shapes", None)],
        [("any_value", "anyValue"), ("opt_any_value", "optAnyValue"), ("tuple", "tuple")];
    flatmap: "flatmap", SCHEMA, [("FlatMap", None)], [];
    strict: "strict", SCHEMA, [("Strict", None)], [];
    enums: "enums", SCHEMA, [("Enums", None)], [("untagged_scalar", "untaggedScalar")];
    k8stypes: "k8stypes", SCHEMA, [("K8sTypes", None)], [];
    big_k8stypes: "big-k8stypes", SCHEMA, [("BigK8sTypes", None)], [];
    everything: "everything", SCHEMA, [("Everything", None)], [];
    clusterthing: "clusterthing", SCHEMA, [("ClusterThing", None)], [];
    policy: "policy", SCHEMA, [("Policy", None)], [];
    gateway: "gateway", SCHEMA, [("Gateway", None)], [];
    ingress: "ingress", SCHEMA, [("Ingress", None)], [];
    bucket_nospec: "bucket-nospec", SCHEMA, [("Bucket", None)], [];
    noschema: "noschema", SCHEMA, [("NoSchema", None)], [];
    empty: "empty", SCHEMA, [("Empty", None)], [];
    cel_validated: "cel-validated", SCHEMA, [("Validated", None)], [];
    multi_v1: "multi-v1", SCHEMA, [("Multi", Some("v1"))], [];
    multi_merged: "multi-merged", SCHEMA, [("Multi", None)], [];
    edge_cases: "edge-cases", "input-edge_cases.rs", [("Edge", None)],
        [("u32_map_key", "u32MapKey"), ("unit_struct", "unitStruct")];
    cov_scaled: "cov-scaled", COVERAGE, [("Scaled", None)], [];
    cov_renames: "cov-renames", COVERAGE, [("Renames", None)], [];
    cov_defaults: "cov-defaults", COVERAGE, [("Defaults", None)], [];
    cov_wrappers: "cov-wrappers", COVERAGE, [("Wrappers", None)], [];
    cov_enum_shapes: "cov-enum-shapes", COVERAGE, [("EnumShapes", None)], [];
    cov_more_k8stypes: "cov-more-k8stypes", COVERAGE, [("MoreK8sTypes", None)], [];
    cs_literals: "cs-literals", CUSTOM, [("LiteralSchemas", None)], [];
    cs_statements: "cs-statements", CUSTOM, [("EditedSchemas", None)], [];
    cs_subschemas: "cs-subschemas", CUSTOM, [("NestedSchemas", None)], [];
    cs_impls: "cs-impls", CUSTOM, [("HandWritten", None)], [];
    cs_manual: "cs-manual", CUSTOM, [("ManualRoot", None)], [];
    cs_manual_literal: "cs-manual-literal", CUSTOM, [("LiteralRoot", None)], [];
    cs_with: "cs-with", CUSTOM, [("WithAttrs", None)], [];
    cs_variants: "cs-variants", CUSTOM, [("VariantSchemas", None)], [];
    op_workflow_engine: "op-workflow-engine", OPERATORS, [("WorkflowEngine", None)], [];
    op_analytics_cluster: "op-analytics-cluster", OPERATORS, [("AnalyticsCluster", None)], [];
    op_traffic_route: "op-traffic-route", OPERATORS, [("TrafficRoute", None)], [];
    op_listable: "op-listable", OPERATORS, [("Listable", None)], [];
    enum_spec_tagged: "enum-spec-tagged", ENUM_SPECS, [("BackupTarget", None)], [];
    enum_spec_renamed: "enum-spec-renamed", ENUM_SPECS, [("Sink", None)], [];
    enum_spec_unit: "enum-spec-unit", ENUM_SPECS, [("Mode", None)], [];
    enum_spec_documented_unit: "enum-spec-documented-unit", ENUM_SPECS, [("Tier", None)], [];
    enum_spec_untagged: "enum-spec-untagged", ENUM_SPECS, [("Source", None)], [];
    assoc_defaults: "assoc-defaults", "input-assoc_defaults.rs", [("Tuned", None)], [];
    lm_relative_status: "lm-relative-status", LAST_MILE, [("ManyDerive", None)], [];
    lm_super_status: "lm-super-status", LAST_MILE, [("OtherDerive", None)], [];
    lm_foreign_scalars: "lm-foreign-scalars", LAST_MILE, [("Schedule", None)], [];
    lm_regex: "lm-regex", LAST_MILE, [("Release", None)], [];
    lm_untagged_skip: "lm-untagged-skip", LAST_MILE, [("Upstream", None)], [];
    value_fixes: "value-fixes", VALUES, [("ValueFixes", None)], [];
    value_flatten: "value-flatten", VALUES, [("Extras", None)], [];
    merge_ordered: "merge-ordered", MERGES, [("Berth", None)], [];
    merge_kind_version: "merge-kind-version", MERGES, [("Lock", None)], [];
    gen_roles: "gen-roles", GENERICS, [("Broker", None)], [];
    gen_shapes: "gen-shapes", GENERICS, [("Shaped", None)], [];
}

/// Samples whose schema code only compiling can run, with what kubesmith must name as the reason: kubesmith
/// generates everything but those versions' `schema` and leaves that to the compiled fallback.
pub(crate) const COMPILED: &[(Sample, &[&str])] = &[
    (
        Sample { name: "cs-compiled", input: CUSTOM, keep: &[("NeedsBuild", None)], strip: &[] },
        &[
            "`#[schemars(schema_with = \"terse_affinity\")]` on field `affinity` needs compiling",
            "`#[schemars(schema_with = \"levels\")]` on field `level` needs compiling: a `for` loop",
            // `format!` is read; its argument `env!(..)` is the compiler's
            "`#[schemars(schema_with = \"versioned\")]` on variant `Note` needs compiling: the macro `env!`",
        ],
    ),
    (
        // `hidden::inner` is private to `hidden`: the fallback re-exports the kind through its copy of `hidden`.
        Sample { name: "cs-private", input: CUSTOM, keep: &[("Hidden", None)], strip: &[] },
        &["`#[schemars(schema_with = \"shade\")]` on field `shade` needs compiling"],
    ),
    (
        // CopyTarget is generated statically beside it: Mirror holds its kind type. (Its NetworkPolicySpec field is
        // read from the k8s-openapi table.)
        Sample { name: "lm-compiled", input: LAST_MILE, keep: &[("Mirror", None), ("CopyTarget", None)], strip: &[] },
        &[
            "type `self::sibling::CopyTargetCrd` needs compiling: `CopyTargetCrd` is the kind type \
             #[derive(CustomResource)] generates from `crate::compiled::sibling::CopyTargetSpec`",
            "type `std::time::SystemTime` needs compiling: kubesmith has no schema for `std::time::SystemTime`",
            "`#[validate(regex(path = ..))]` on field `port` needs compiling: schemars takes the pattern from \
             `*PORT_RE` at run time and `PORT_RE` is built at run time (`.unwrap_or_else(..)`)",
        ],
    ),
];

/// kubesmith's CRD for a sample in [`COMPILED`] compared with `want` (kube-derive's): the kind is pending, every
/// construct is named (each on a line of the input), and all but the pending schema equals kube-derive's.
pub(crate) fn check_pending(sample: &Sample, because: &[&str], want: &Value) -> Result<(), String> {
    let src = cut_input(sample);
    let dir = temp_crate(&src);
    let g = crd::generate_all(&SourceSet::new(&dir.path().join("src")), crd::K8sTable::default_table())
        .map_err(|e| format!("{}: {e}", sample.name))?;
    // Other kinds a sample keeps (a kind the pending one holds) are generated statically beside it.
    if !g.problems.is_empty() || g.pending.len() != 1 {
        return Err(format!(
            "{}: expected one kind pending compilation, got crds {:?}, problems {:?}",
            sample.name,
            g.crds.iter().map(|c| &c.name).collect::<Vec<_>>(),
            g.problems
        ));
    }
    let pending = &g.pending[0];
    let reasons: Vec<String> = pending.versions.iter().flat_map(|v| &v.because).map(|e| e.to_string()).collect();
    for needle in because {
        if !reasons.iter().any(|r| r.contains(needle)) {
            return Err(format!("{}: no reason mentions {needle:?} in {reasons:#?}", sample.name));
        }
    }
    if reasons.len() != because.len() {
        return Err(format!("{}: expected {} reasons, got {reasons:#?}", sample.name, because.len()));
    }
    let lines = src.lines().count();
    for e in pending.versions.iter().flat_map(|v| &v.because) {
        if e.line <= 1 || e.line > lines {
            return Err(format!("{}: reason without a useful line: {e}", sample.name));
        }
    }
    let mut want = want.clone();
    if let Some(Value::Array(versions)) = want.pointer_mut("/spec/versions") {
        for v in versions {
            if pending.versions.iter().any(|p| v["name"] == p.version.as_str()) {
                v["schema"] = serde_json::json!({});
            }
        }
    }
    match diff(&pending.crd.crd, &want, "") {
        Some(d) => Err(format!("{}: pending CRD differs from kube-derive's (schema aside) at {d}", sample.name)),
        None => Ok(()),
    }
}

/// A corpus sample kubesmith refuses: kube-derive's `crd()` panics on it (`out/<name>.PANIC.txt`), or it emits a
/// CRD the API server rejects (`out/<name>.json`, with the reason in `rejected_because`).
pub(crate) struct Refused {
    pub(crate) name: &'static str,
    pub(crate) input: &'static str,
    /// The kind kept deriving CustomResource.
    keep: &'static [(&'static str, Option<&'static str>)],
    /// What kubesmith's refusal must say.
    needles: &'static [&'static str],
    /// `None`: kube-derive panics; else why the API server rejects kube-derive's CRD.
    pub(crate) rejected_because: Option<&'static str>,
}

/// Samples kubesmith refuses (checked statically here, and live by `conformance_live`: kube-derive still panics
/// on them, or still emits what the API server rejects).
pub(crate) const REFUSED: &[Refused] = &[
    Refused {
        name: "enum-spec-mixed",
        input: ENUM_SPECS,
        keep: &[("Mixed", None)],
        needles: &["enum `MixedSpec` mixes unit variant `Off` with data variants", "`Off {}`"],
        rejected_because: None,
    },
    Refused {
        name: "enum-spec-internally-tagged",
        input: ENUM_SPECS,
        keep: &[("Shape", None)],
        needles: &["internally tagged enum `ShapeSpec` (tag = \"type\")"],
        rejected_because: None,
    },
    Refused {
        name: "enum-spec-adjacently-tagged",
        input: ENUM_SPECS,
        keep: &[("Event", None)],
        needles: &["adjacently tagged enum `EventSpec` (tag = \"kind\", content = \"data\")"],
        rejected_because: None,
    },
    Refused {
        name: "enum-spec-untagged-conflict",
        input: ENUM_SPECS,
        keep: &[("Port", None)],
        needles: &["schema of `PortSpec`", "property \"port\"", "same schema"],
        rejected_because: None,
    },
    Refused {
        name: "enum-spec-untagged-scalar",
        input: ENUM_SPECS,
        keep: &[("Threshold", None)],
        needles: &["untagged enum `ThresholdSpec` with non-struct variant `Count`"],
        rejected_because: Some("the spec is an anyOf of scalars without a type: not a structural schema"),
    },
    Refused {
        name: "value-documented",
        input: VALUES,
        keep: &[("Documented", None)],
        needles: &[
            "field `config` holds a serde_json::Value without x-kubernetes-preserve-unknown-fields",
            "emits `{\"description\": ..}` for it",
            "add #[schemars(extend(\"x-kubernetes-preserve-unknown-fields\" = true))] to the field",
        ],
        rejected_because: Some(
            "`config` is `{description}` without a type: `properties[config].type: Required value: must not be empty \
             for specified object fields`",
        ),
    },
    Refused {
        name: "value-list-marked",
        input: VALUES,
        keep: &[("ListMarked", None)],
        needles: &[
            "field `entries` holds a serde_json::Value (in `items`)",
            "add #[schemars(extend(\"items\" = {\"x-kubernetes-preserve-unknown-fields\": true}))] to the field",
        ],
        rejected_because: Some(
            "the extension lands on the list and its items stay `{}`: `properties[entries].items.type: Required \
             value: must not be empty for specified array items`",
        ),
    },
    Refused {
        name: "value-map-of-lists",
        input: VALUES,
        keep: &[("MapOfLists", None)],
        needles: &[
            "field `groups` holds a serde_json::Value (in `additionalProperties.items`)",
            "crd() panics on it",
            "add #[schemars(extend(\"additionalProperties\" = {\"type\": \"array\", \"items\": \
             {\"x-kubernetes-preserve-unknown-fields\": true}}))]",
        ],
        rejected_because: None,
    },
    Refused {
        name: "value-variant-marked",
        input: VALUES,
        keep: &[("VariantMarked", None)],
        needles: &["the field of variant `Inline` holds a serde_json::Value", "to the variant's field"],
        rejected_because: Some(
            "the extension lands on the variant's `oneOf` entry (`oneOf[0].x-kubernetes-preserve-unknown-fields: \
             Forbidden: must be false to be structural`) and `properties[Inline]` has no type",
        ),
    },
    Refused {
        name: "value-newtype",
        input: VALUES,
        keep: &[("Wrapped", None)],
        needles: &["field `document` holds a serde_json::Value", "emits `{\"description\": ..}` for it"],
        rejected_because: Some(
            "the newtype's schema is its doc comment alone: `properties[document].type: Required value: must not \
             be empty for specified object fields`",
        ),
    },
    Refused {
        name: "enum-spec-empty",
        input: ENUM_SPECS,
        keep: &[("Nothing", None)],
        needles: &["enum `NothingSpec` without variants"],
        rejected_because: Some("the spec is `not: {}` without a type: not a structural schema"),
    },
];

/// kubesmith's refusal of `r`, checked: it names the construct, at file:line:col of the crate.
pub(crate) fn check_refused(r: &Refused) -> Result<(), String> {
    let sample = Sample { name: r.name, input: r.input, keep: r.keep, strip: &[] };
    let err = match run(&cut_input(&sample)) {
        Ok(crds) => {
            return Err(format!(
                "{}: kubesmith generates {:?}",
                r.name,
                crds.iter().map(|c| &c.name).collect::<Vec<_>>()
            ));
        }
        Err(e) => e,
    };
    let msg = err.to_string();
    let prefix = format!("{}:{}:{}: ", err.path.display(), err.line, err.column);
    if err.line <= 1 || !msg.starts_with(&prefix) {
        return Err(format!("{}: the refusal has no useful location: {msg}", r.name));
    }
    match r.needles.iter().find(|n| !msg.contains(*n)) {
        Some(n) => Err(format!("{}: the refusal {msg:?} does not say {n:?}", r.name)),
        None => Ok(()),
    }
}

#[test]
fn cs_compiled_is_left_to_the_fallback_naming_every_construct() {
    for (sample, because) in COMPILED {
        if let Err(e) = check_pending(sample, because, &expected(sample)) {
            panic!("{e}");
        }
    }
}

#[test]
fn enum_specs_and_samples_kube_derive_cannot_turn_into_a_valid_crd_are_refused() {
    let problems: Vec<String> = REFUSED.iter().filter_map(|r| check_refused(r).err()).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Samples where kube-derive panics or emits a CRD the API server rejects: kubesmith must report them.
fn expect_error(sample: &Sample, needles: &[&str]) -> CrdError {
    let src = cut_input(sample);
    let err = run(&src).expect_err(sample.name);
    let msg = err.to_string();
    for n in needles {
        assert!(msg.contains(n), "{}: error {msg:?} does not mention {n:?}", sample.name);
    }
    assert!(err.line > 1, "{}: error has no useful line: {msg}", sample.name);
    let prefix = format!("{}:{}:{}: ", err.path.display(), err.line, err.column);
    assert!(msg.starts_with(&prefix), "{msg}");
    err
}

#[test]
fn internally_tagged_is_an_error() {
    let sample = Sample { name: "internally-tagged", input: SCHEMA, keep: &[("InternallyTagged", None)], strip: &[] };
    expect_error(&sample, &["internally tagged enum `InternalTag`", "externally tagged"]);
}

#[test]
fn adjacently_tagged_is_an_error() {
    let sample = Sample { name: "adjacently-tagged", input: SCHEMA, keep: &[("AdjacentlyTagged", None)], strip: &[] };
    expect_error(&sample, &["adjacently tagged enum `AdjacentTag`"]);
}

#[test]
fn mixed_enum_is_an_error() {
    let sample = Sample { name: "mixed-enum", input: SCHEMA, keep: &[("MixedEnum", None)], strip: &[] };
    expect_error(&sample, &["enum `Mixed` mixes unit variant `Unit`"]);
}

#[test]
fn recursive_is_an_error() {
    let sample = Sample { name: "recursive", input: SCHEMA, keep: &[("Recursive", None)], strip: &[] };
    expect_error(&sample, &["recursive type `Node`"]);
}

#[test]
fn untagged_scalar_enum_is_an_error() {
    let sample = Sample { name: "enums", input: SCHEMA, keep: &[("Enums", None)], strip: &[] };
    expect_error(&sample, &["untagged enum `UntaggedScalar`", "non-struct variant `Int`"]);
}

#[test]
fn non_string_map_key_is_an_error() {
    let sample = Sample { name: "edge-cases", input: "input-edge_cases.rs", keep: &[("Edge", None)], strip: &[] };
    expect_error(&sample, &["map key type `u32`", "String keys"]);
}

/// A unit struct serializes as `null`; kube-derive's schema for it (`enum: [null]`, no type) is not structural, and
/// the API server rejects the CRD (`cp_crds` shows it on a real one).
#[test]
fn unit_struct_is_an_error() {
    let strip = &[("u32_map_key", "u32MapKey")];
    let sample = Sample { name: "edge-cases", input: "input-edge_cases.rs", keep: &[("Edge", None)], strip };
    expect_error(&sample, &["unit struct `UnitStruct`", "not a structural schema"]);
}

#[test]
fn shapes_rejected_fields_are_errors() {
    let all = [("any_value", "anyValue"), ("opt_any_value", "optAnyValue"), ("tuple", "tuple")];
    let needles: [&[&str]; 3] = [
        &["field `any_value`", "x-kubernetes-preserve-unknown-fields"],
        &["field `opt_any_value`", "x-kubernetes-preserve-unknown-fields"],
        &["tuple type"],
    ];
    for (i, n) in needles.iter().enumerate() {
        let strip: Vec<(&'static str, &'static str)> =
            all.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, f)| *f).collect();
        let strip: &'static [(&'static str, &'static str)] = Box::leak(strip.into_boxed_slice());
        let sample = Sample { name: "shapes", input: SCHEMA, keep: &[("Shapes", None)], strip };
        expect_error(&sample, n);
    }
}

/// `tests/conformance/kube-derive`.
pub(crate) fn corpus_dir() -> PathBuf {
    PathBuf::from(CORPUS)
}
