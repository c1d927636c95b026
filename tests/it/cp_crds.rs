//! The conformance corpus meets a real API server (`control_plane`): every CRD kubesmith's `make manifests` writes
//! for a corpus sample is created and served, and stored as kube-derive writes it; for every shape kubesmith refuses
//! because kube-derive's CRD would not be structural, the API server rejects kube-derive's CRD, naming that field.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::control_plane::{ControlPlane, control_plane, dropped, list, name_of, said};
use crate::crd_conformance::{SAMPLES, Sample, corpus_dir, cut_input, expected, strip_expected};
use crate::support::{ks, read};

/// A crate whose `src/lib.rs` is `lib`, in a folder of its own under `parent`.
fn krate(parent: &Path, name: &str, lib: &str) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir_all(dir.join("src")).expect("crate folder");
    std::fs::write(dir.join("src/lib.rs"), lib).expect("lib.rs");
    dir
}

/// `make manifests --crd-dir config/crd` on `dir`, which must write one file: its path.
fn make_manifests(dir: &Path) -> PathBuf {
    let out = ks(dir).args(["make", "manifests", "--crd-dir", "config/crd"]).output().expect("kubesmith runs");
    assert!(out.status.success(), "{}: make manifests failed:\n{}", dir.display(), said(&out));
    let written: Vec<PathBuf> =
        std::fs::read_dir(dir.join("config/crd")).expect("config/crd").map(|e| e.expect("entry").path()).collect();
    assert_eq!(written.len(), 1, "{written:?}");
    written[0].clone()
}

/// A CRD without what Kubernetes 1.20 does not know and drops on create: CEL rules (`x-kubernetes-validations`,
/// 1.25) and `selectableFields` (1.30). What the server stores is compared with this.
fn known_to_1_20(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(o) => {
                o.remove("x-kubernetes-validations");
                o.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    for version in v.pointer_mut("/spec/versions").and_then(Value::as_array_mut).into_iter().flatten() {
        version.as_object_mut().expect("a version").remove("selectableFields");
        strip(version);
    }
    v
}

/// A CRD file `make manifests` wrote for a sample, and what it must be stored as.
struct Written {
    sample: &'static str,
    file: PathBuf,
    /// What the file holds (as YAML 1.2 reads it), changed for the server's quirks when `sent` is set.
    holds: Value,
    /// kube-derive's CRD for the sample, changed likewise.
    want: Value,
    /// Set when the server's quirks required a change (`ControlPlane::for_this_server`): what is sent instead of
    /// the file, as JSON.
    sent: Option<Value>,
}

impl Written {
    fn new(cp: &ControlPlane, sample: &'static str, file: PathBuf, want: Value) -> Written {
        let mut holds = kubesmith::yaml::from_str(&read(&file)).expect("YAML");
        let mut want = known_to_1_20(want);
        let changed = cp.for_this_server(&mut holds);
        cp.for_this_server(&mut want);
        if !changed.is_empty() {
            eprintln!("{sample}: sent as JSON, changed for this server's quirks: {}", changed.join(", "));
        }
        let sent = (!changed.is_empty()).then(|| holds.clone());
        Written { sample, file, holds: known_to_1_20(holds), want, sent }
    }
}

/// Creates the CRDs (the files as `make manifests` wrote them, or what `for_this_server` made of them), waits until
/// each is Established and served, and checks the server stored each one's `spec` as the file holds it and as
/// kube-derive's `crd()` gives it: nothing dropped or changed (the server's defaults, such as `conversion:
/// {strategy: None}`, may be added).
fn create_and_compare(cp: &ControlPlane, files: &[Written]) {
    let mut args = vec!["create".to_string(), "--validate=false".to_string()];
    for w in files.iter().filter(|w| w.sent.is_none()) {
        args.extend(["-f".to_string(), w.file.display().to_string()]);
    }
    if args.len() > 2 {
        cp.ok(&args.iter().map(String::as_str).collect::<Vec<_>>(), None);
    }
    let sent: Vec<Value> = files.iter().filter_map(|w| w.sent.clone()).collect();
    if !sent.is_empty() {
        cp.ok(&["create", "--validate=false", "-f", "-"], Some(&list(&sent)));
    }
    let names: Vec<String> = files.iter().map(|w| name_of(&w.want)).collect();
    cp.wait_for_crds(&names);
    let stored = cp.get_all(&files.iter().map(|w| w.holds.clone()).collect::<Vec<_>>(), &[]);
    let mut problems = Vec::new();
    for w in files {
        let name = name_of(&w.want);
        assert_eq!(name_of(&w.holds), name, "{}", w.file.display());
        let got = stored.iter().find(|s| name_of(s) == name).expect("every CRD is listed");
        for (what, sent) in [("the file", &w.holds), ("kube-derive's", &w.want)] {
            if let Some(d) = dropped(&sent["spec"], &got["spec"], "/spec", true) {
                problems.push(format!("{}: the server stored another spec than {what}: {d}", w.sample));
            }
        }
        if got["status"]["acceptedNames"]["kind"] != w.want["spec"]["names"]["kind"] {
            problems.push(format!("{}: accepted names {}", w.sample, got["status"]["acceptedNames"]));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Samples `make manifests` writes although the API server rejects them: (sample, what the server says, the
/// defect). Each is checked to be still rejected, so the entry goes when the defect is fixed.
const KNOWN_DEFECTS: &[(&str, &str, &str)] = &[(
    "noschema",
    "spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required",
    "`#[kube(schema = \"disabled\")]`: kubesmith writes kube-derive's CRD, whose version has `schema: {}`, into \
     config/crd; apiextensions.k8s.io/v1 requires a schema, so `make install` fails",
)];

/// Every corpus sample kubesmith generates statically (all of `crd_conformance::SAMPLES`; `cs-compiled` needs the
/// compiled fallback, which builds Rust, and is left out) goes through `make manifests`; the YAML files it writes
/// are created on the server (`kubectl create`), reach `Established` and are served, and the server stores each as
/// kube-derive's own `crd()` output for the sample (`out/<name>.json`), less what 1.20 does not know. This checks
/// kubesmith's YAML as Go's YAML reader takes it, and the schemas against the API server's rules (structural
/// schemas, defaults valid against them, list and map types). Where the server's build has a quirk
/// (`control_plane::Quirks`) the CRD is sent as JSON with the least change that avoids it, and the test says so.
/// `multi-v1` and `multi-merged` are one CRD name: the second replaces the first. The `KNOWN_DEFECTS` are checked
/// to be rejected, with the server's reason.
#[test]
fn cp_every_corpus_crd_kubesmith_writes_is_established_and_stored_as_kube_derive_writes_it() {
    let Some(cp) = control_plane() else { return };
    let _took = crate::control_plane::Took::start();
    let scratch = cp.scratch("corpus");
    let (mut first, mut later) = (Vec::new(), Vec::new());
    // `make manifests` of every sample, four at a time.
    let files: Vec<PathBuf> = std::thread::scope(|s| {
        let chunks: Vec<_> = SAMPLES
            .chunks(SAMPLES.len().div_ceil(4))
            .map(|chunk| {
                let scratch = &scratch;
                s.spawn(move || {
                    chunk.iter().map(|x| make_manifests(&krate(scratch, x.name, &cut_input(x)))).collect::<Vec<_>>()
                })
            })
            .collect();
        chunks.into_iter().flat_map(|c| c.join().expect("make manifests")).collect()
    });
    for (sample, file) in SAMPLES.iter().zip(files) {
        if let Some((_, server_says, defect)) = KNOWN_DEFECTS.iter().find(|(name, _, _)| *name == sample.name) {
            let out =
                cp.kubectl(&["create", "--dry-run=server", "--validate=false", "-f", &file.display().to_string()]);
            assert!(
                !out.status.success() && said(&out).contains(server_says),
                "{}: known defect ({defect}) no longer rejected as {server_says:?}: {}",
                sample.name,
                said(&out)
            );
            continue;
        }
        let w = Written::new(cp, sample.name, file, expected(sample));
        if sample.name == "multi-merged" { later.push(w) } else { first.push(w) }
    }
    assert!(first.len() >= 40 && later.len() == 1, "the corpus has {} samples", first.len() + later.len());
    create_and_compare(cp, &first);
    cp.ok(&["delete", "crd", "multis.samples.kube.rs", "--wait=true", "--timeout=60s"], None);
    create_and_compare(cp, &later);
    eprintln!("{} corpus CRDs created and compared", first.len() + later.len());
}

/// A shape kubesmith refuses because kube-derive's CRD for it is not one the API server accepts.
struct Rejected {
    /// The corpus sample: kube-derive's CRD is `out/<name>.json`.
    name: &'static str,
    input: &'static str,
    /// The kind that keeps `#[derive(CustomResource)]` in the input.
    keep: &'static [(&'static str, Option<&'static str>)],
    /// Other refused fields, removed from the input and from kube-derive's CRD so that the server judges one.
    strip: &'static [(&'static str, &'static str)],
    /// What `make manifests` says about the input.
    kubesmith_says: &'static str,
    /// What the API server says about kube-derive's CRD: the field kubesmith refuses, and why.
    server_says: &'static str,
}

const SCHEMA: &str = "input-schema_samples.rs";
const EDGE: &str = "input-edge_cases.rs";
const ENUM_SPECS: &str = "input-enum_specs.rs";
const SHAPES: &[(&str, &str)] = &[("any_value", "anyValue"), ("opt_any_value", "optAnyValue"), ("tuple", "tuple")];

const REJECTED: &[Rejected] = &[
    Rejected {
        name: "shapes",
        input: SCHEMA,
        keep: &[("Shapes", None)],
        strip: &[SHAPES[1], SHAPES[2]],
        kubesmith_says: "field `any_value`",
        server_says: "properties[spec].properties[anyValue].type: Required value",
    },
    Rejected {
        name: "shapes",
        input: SCHEMA,
        keep: &[("Shapes", None)],
        strip: &[SHAPES[0], SHAPES[2]],
        kubesmith_says: "field `opt_any_value`",
        server_says: "properties[spec].properties[optAnyValue].type: Required value",
    },
    Rejected {
        name: "shapes",
        input: SCHEMA,
        keep: &[("Shapes", None)],
        strip: &[SHAPES[0], SHAPES[1]],
        kubesmith_says: "tuple type",
        server_says: "properties[spec].properties[tuple].items: Forbidden: items must be a schema object",
    },
    Rejected {
        name: "enums",
        input: SCHEMA,
        keep: &[("Enums", None)],
        strip: &[],
        kubesmith_says: "untagged enum `UntaggedScalar`",
        server_says: "properties[spec].properties[untaggedScalar].type: Required value",
    },
    Rejected {
        name: "edge-cases",
        input: EDGE,
        keep: &[("Edge", None)],
        strip: &[("unit_struct", "unitStruct")],
        kubesmith_says: "map key type `u32`",
        server_says: "properties[spec].properties[u32MapKey].patternProperties: Forbidden",
    },
    Rejected {
        name: "edge-cases",
        input: EDGE,
        keep: &[("Edge", None)],
        strip: &[("u32_map_key", "u32MapKey")],
        kubesmith_says: "unit struct `UnitStruct`",
        server_says: "properties[spec].properties[unitStruct].type: Required value",
    },
    Rejected {
        name: "recursive",
        input: SCHEMA,
        keep: &[("Recursive", None)],
        strip: &[],
        kubesmith_says: "recursive type `Node`",
        server_says: "properties[tree].properties[children].items.$ref: Forbidden: $ref is not supported",
    },
    Rejected {
        name: "enum-spec-untagged-scalar",
        input: ENUM_SPECS,
        keep: &[("Threshold", None)],
        strip: &[],
        kubesmith_says: "untagged enum `ThresholdSpec` with non-struct variant `Count`",
        server_says: "openAPIV3Schema.properties[spec].type: Required value",
    },
    Rejected {
        name: "enum-spec-empty",
        input: ENUM_SPECS,
        keep: &[("Nothing", None)],
        strip: &[],
        kubesmith_says: "enum `NothingSpec` without variants",
        server_says: "openAPIV3Schema.properties[spec].type: Required value",
    },
];

/// For each shape kubesmith refuses as non-structural, both sides agree: `make manifests` on the corpus input
/// refuses the kind (exit 1, naming the construct), and the API server rejects kube-derive's own CRD for it
/// (`kubectl create --dry-run=server`: validated in full, stored nowhere), naming the same field and the rule it
/// breaks. One refused field at a time (the others removed from both sides, as `crd_conformance` does), since the
/// server reports one kind of problem per pass.
#[test]
fn cp_the_server_rejects_kube_derives_crd_for_every_shape_kubesmith_refuses() {
    let Some(cp) = control_plane() else { return };
    let _took = crate::control_plane::Took::start();
    let scratch = cp.scratch("rejected");
    let mut problems = Vec::new();
    for (i, r) in REJECTED.iter().enumerate() {
        let sample = Sample { name: r.name, input: r.input, keep: r.keep, strip: r.strip };
        let dir = krate(&scratch, &format!("{}-{i}", r.name), &cut_input(&sample));
        let out = ks(&dir).args(["make", "manifests", "--crd-dir", "config/crd"]).output().expect("kubesmith runs");
        let kubesmith = said(&out);
        if out.status.code() != Some(1) || !kubesmith.contains(r.kubesmith_says) {
            problems.push(format!(
                "{}: kubesmith should refuse saying {:?}; it said:\n{kubesmith}",
                r.name, r.kubesmith_says
            ));
        }
        let crd = read(&corpus_dir().join("out").join(format!("{}.json", r.name)));
        let mut crd = strip_expected(&sample, serde_json::from_str(&crd).expect("JSON"));
        cp.for_this_server(&mut crd);
        let out = cp.kubectl_with(&["create", "--dry-run=server", "--validate=false", "-f", "-"], &crd.to_string());
        let server = said(&out);
        if out.status.success() || !server.contains("is invalid") || !server.contains(r.server_says) {
            problems.push(format!(
                "{}: the server should reject kube-derive's CRD saying {:?}; it said:\n{server}",
                r.name, r.server_says
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
