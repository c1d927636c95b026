//! Safe CRD upgrades on scaffolded projects: a table of version pairs made by `make bundle` from Rust types that
//! change between releases, each checked by `make bundle --previous` (which must write nothing when it refuses)
//! and by `bundle validate --previous`; the other forms of OLD (a catalog, a folder of CRDs); `catalog validate`
//! along the upgrade edges; the Makefile's `PREVIOUS_BUNDLE`.

use std::path::{Path, PathBuf};

use crate::support::{create_api, init, ks, read, snapshot};

const TYPES: &str = "src/api/v1alpha1/memcached.rs";
const BETA: &str = "src/api/v1beta1/memcached.rs";
const CRD: &str = "CRD memcacheds.cache.example.com";

/// The spec of the first release of the table's project.
const SPEC: &str = r#"pub struct MemcachedSpec {
    /// Size is the number of pods.
    // +kubebuilder:validation:Maximum=10
    pub size: i32,
    /// Port the pods listen on.
    // +kubebuilder:default=11211
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
    /// How the pods run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// Restart policy of the pods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    /// Containers beside memcached.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub containers: Vec<Container>,
}

/// How the pods run.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
pub enum Mode {
    Fast,
    Safe,
}

/// A container.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Container {
    /// Name of the container.
    pub name: String,
    /// Image to run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
}
"#;

fn output(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// Replaces `from` (which must be there) by `to` in `file` of `dir`.
fn edit(dir: &Path, file: &str, from: &str, to: &str) {
    let path = dir.join(file);
    let text = read(&path);
    assert!(text.contains(from), "{file} has no {from:?}");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
}

/// Copies `from` to `to`, without `target/`.
fn copy(from: &Path, to: &Path) {
    for (rel, bytes) in snapshot(from) {
        let p = to.join(&rel);
        if rel.as_os_str().to_string_lossy().ends_with('/') {
            std::fs::create_dir_all(&p).unwrap();
        } else {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, bytes).unwrap();
        }
    }
}

/// Rewrites each Memcached sample as the least object its CRD (as just generated) accepts, as a user fixes the
/// samples after changing the types: `make bundle` refuses alm-examples their CRD would refuse.
fn fit_samples(dir: &Path) {
    let crd: serde_json::Value =
        serde_yaml_ng::from_str(&read(&dir.join("config/crd/bases/cache.example.com_memcacheds.yaml"))).unwrap();
    for version in ["v1alpha1", "v1beta1"] {
        let path = dir.join(format!("config/samples/cache_{version}_memcached.yaml"));
        if !path.is_file() {
            continue;
        }
        let labels = [("app.kubernetes.io/name", "memcached-operator"), ("app.kubernetes.io/managed-by", "kustomize")];
        if let Some(object) = kubesmith::crd::sample::sample_object(&crd, version, "memcached-sample", &labels) {
            std::fs::write(&path, kubesmith::yaml::to_string(&object)).unwrap();
        }
    }
}

fn manifests(dir: &Path) {
    let out = ks(dir).args(["make", "manifests"]).output().unwrap();
    assert!(out.status.success(), "{}", output(&out));
}

/// `make bundle --version 0.1.0 --output-dir b1`: the previous release of every row.
fn release_b1(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir.join("b1"));
    let out = ks(dir).args(["make", "bundle", "--version", "0.1.0", "--output-dir", "b1"]).output().unwrap();
    assert!(out.status.success(), "{}", output(&out));
}

/// Memcached v1alpha1 with [`SPEC`], manifests and the 0.1.0 bundle in `b1`.
fn types_base(parent: &Path) -> PathBuf {
    let dir = init(parent, "memcached-operator", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    let text = read(&dir.join(TYPES));
    let start = text.find("pub struct MemcachedSpec {").unwrap();
    let end = start + text[start..].find("}\n").unwrap() + 2;
    std::fs::write(dir.join(TYPES), format!("{}{SPEC}{}", &text[..start], &text[end..])).unwrap();
    // `size` is required: the sample (alm-examples) must have it.
    edit(&dir, "config/samples/cache_v1alpha1_memcached.yaml", "spec: {}", "spec:\n  size: 1");
    manifests(&dir);
    release_b1(&dir);
    dir
}

/// Memcached v1alpha1 (storage) and v1beta1 as scaffolded (identical schemas), with the 0.1.0 bundle in `b1`.
fn versions_base(parent: &Path) -> PathBuf {
    let dir = init(parent, "memcached-operator", &[]);
    create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    create_api(&dir, &["--group", "cache", "--version", "v1beta1", "--kind", "Memcached", "--controller=false"]);
    manifests(&dir);
    release_b1(&dir);
    dir
}

#[derive(Clone, Copy)]
enum Verdict {
    /// Both commands pass, saying nothing about the upgrade.
    Accepted,
    /// Both commands pass with these warnings.
    Warned(&'static [&'static str]),
    /// Both commands fail with these errors (`make bundle` writing nothing); `--allow-breaking` passes.
    Refused(&'static [&'static str]),
    /// Refused even with `--allow-breaking` (the release is wrong, not just breaking).
    Invalid(&'static [&'static str]),
}

struct Row {
    name: &'static str,
    /// Run on a copy of the base, then `make manifests` and `b1` again (the previous release differs).
    before: Option<fn(&Path)>,
    /// The change of the new release.
    change: fn(&Path),
    /// `make bundle` arguments of the new release (beside `--version 0.2.0 --output-dir b2`).
    args: &'static [&'static str],
    verdict: Verdict,
}

const REPLACES: &[&str] = &["--replaces", "memcached-operator.v0.1.0"];

/// Runs each row in a copy of `base`; returns what went wrong, row by row.
fn run(base: &Path, rows: &[Row]) -> Vec<String> {
    let mut failures = Vec::new();
    for row in rows {
        let dir = base.parent().unwrap().join(row.name.replace(' ', "-"));
        copy(base, &dir);
        if let Some(before) = row.before {
            before(&dir);
            manifests(&dir);
            fit_samples(&dir);
            release_b1(&dir);
        }
        (row.change)(&dir);
        manifests(&dir);
        fit_samples(&dir);
        let mut fail = |what: String| failures.push(format!("{}: {what}", row.name));
        let make = |extra: &[&str]| {
            ks(&dir)
                .args(["make", "bundle", "--version", "0.2.0", "--output-dir", "b2", "--previous", "b1"])
                .args(row.args)
                .args(extra)
                .output()
                .unwrap()
        };
        let before = snapshot(&dir);
        let made = make(&[]);
        let text = output(&made);
        match row.verdict {
            Verdict::Accepted | Verdict::Warned(_) if !made.status.success() => {
                fail(format!("make bundle --previous failed:\n{text}"));
                continue;
            }
            Verdict::Accepted if text.contains("upgrade") => fail(format!("make bundle said:\n{text}")),
            Verdict::Warned(needles) => {
                for n in needles {
                    if !text
                        .lines()
                        .any(|l| l.starts_with("warning: upgrade from memcached-operator.v0.1.0: ") && l.contains(n))
                    {
                        fail(format!("make bundle did not warn {n:?}:\n{text}"));
                    }
                }
            }
            Verdict::Refused(needles) | Verdict::Invalid(needles) => {
                if made.status.code() != Some(1) || !text.contains("nothing was written") {
                    fail(format!("make bundle --previous did not refuse:\n{text}"));
                }
                if snapshot(&dir) != before {
                    fail("make bundle --previous changed files although it failed".into());
                }
                for n in needles {
                    if !text.contains(n) {
                        fail(format!("make bundle did not report {n:?}:\n{text}"));
                    }
                }
                let allowed = make(&["--allow-breaking"]);
                let text = output(&allowed);
                if matches!(row.verdict, Verdict::Invalid(_)) {
                    if allowed.status.success() {
                        fail(format!("make bundle --allow-breaking passed:\n{text}"));
                    }
                    continue;
                }
                if !allowed.status.success() || !text.contains("(allowed by --allow-breaking)") {
                    fail(format!("make bundle --allow-breaking:\n{text}"));
                    continue;
                }
            }
            _ => {}
        }
        let validated = ks(&dir).args(["bundle", "validate", "b2", "--previous", "b1"]).output().unwrap();
        let text = output(&validated);
        match row.verdict {
            Verdict::Accepted => {
                if !validated.status.success() || text.contains("upgrade") {
                    fail(format!("bundle validate --previous:\n{text}"));
                }
            }
            Verdict::Warned(needles) => {
                if !validated.status.success() {
                    fail(format!("bundle validate --previous failed:\n{text}"));
                }
                for n in needles {
                    if !text
                        .lines()
                        .any(|l| l.starts_with("Warning: upgrade from memcached-operator.v0.1.0: ") && l.contains(n))
                    {
                        fail(format!("bundle validate did not warn {n:?}:\n{text}"));
                    }
                }
            }
            Verdict::Refused(needles) | Verdict::Invalid(needles) => {
                if validated.status.code() != Some(1) {
                    fail(format!("bundle validate --previous passed:\n{text}"));
                }
                for n in needles {
                    if !text.lines().any(|l| l.starts_with("Error: ") && l.contains(n)) {
                        fail(format!("bundle validate did not report {n:?} as an error:\n{text}"));
                    }
                }
            }
        }
    }
    failures
}

fn unchanged(_: &Path) {}

#[test]
fn upgrade_table_fields_and_types() {
    let tmp = tempfile::tempdir().unwrap();
    let base = types_base(tmp.path());
    let rows = [
        Row { name: "unchanged", before: None, change: unchanged, args: REPLACES, verdict: Verdict::Accepted },
        Row {
            name: "description changed",
            before: None,
            change: |d| edit(d, TYPES, "/// Size is the number of pods.", "/// How many memcached pods to run."),
            args: REPLACES,
            verdict: Verdict::Accepted,
        },
        Row {
            name: "optional field added",
            before: None,
            change: |d| {
                edit(
                    d,
                    TYPES,
                    "    pub containers: Vec<Container>,\n",
                    "    pub containers: Vec<Container>,\n    /// Stop.\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub paused: Option<bool>,\n",
                )
            },
            args: REPLACES,
            verdict: Verdict::Accepted,
        },
        Row {
            name: "field removed",
            before: None,
            change: |d| {
                edit(
                    d,
                    TYPES,
                    "    /// Image to run.\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub image: Option<String>,\n",
                    "",
                )
            },
            args: REPLACES,
            verdict: Verdict::Refused(&["version v1alpha1, field spec.containers[*].image: field removed"]),
        },
        Row {
            name: "renamed via serde",
            before: None,
            change: |d| edit(d, TYPES, "    pub size: i32,", "    #[serde(rename = \"replicas\")]\n    pub size: i32,"),
            args: REPLACES,
            verdict: Verdict::Refused(&[
                "field spec.size: field removed (spec.replicas was added with the same schema: a rename is a removal)",
                "field spec.replicas: new required field",
            ]),
        },
        Row {
            name: "Rust field renamed keeping the JSON name",
            before: None,
            change: |d| edit(d, TYPES, "    pub size: i32,", "    #[serde(rename = \"size\")]\n    pub replicas: i32,"),
            args: REPLACES,
            verdict: Verdict::Accepted,
        },
        Row {
            name: "type i32 to String",
            before: None,
            change: |d| {
                edit(d, TYPES, "    // +kubebuilder:validation:Maximum=10\n    pub size: i32,", "    pub size: String,")
            },
            args: REPLACES,
            verdict: Verdict::Refused(&["field spec.size: type changed from integer (int32) to string"]),
        },
        Row {
            name: "type i32 to i64",
            before: None,
            change: |d| edit(d, TYPES, "    pub size: i32,", "    pub size: i64,"),
            args: REPLACES,
            verdict: Verdict::Refused(&[
                "field spec.size: `format` changed from \"int32\" to \"int64\", a change kubesmith (like OLM v1) cannot prove",
            ]),
        },
        Row {
            name: "Option<T> to T",
            before: None,
            change: |d| {
                edit(
                    d,
                    TYPES,
                    "    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub port: Option<i32>,",
                    "    pub port: i32,",
                )
            },
            args: REPLACES,
            verdict: Verdict::Refused(&[
                "field spec.port: became required (it was optional)",
                "field spec.port: no longer nullable",
            ]),
        },
        Row {
            name: "T to Option<T>",
            before: None,
            change: |d| {
                edit(
                    d,
                    TYPES,
                    "    pub size: i32,",
                    "    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub size: Option<i32>,",
                )
            },
            args: REPLACES,
            verdict: Verdict::Refused(&["field spec.size: became nullable"]),
        },
        Row {
            name: "new enum variant",
            before: None,
            change: |d| edit(d, TYPES, "    Fast,\n    Safe,\n", "    Fast,\n    Safe,\n    Auto,\n"),
            args: REPLACES,
            verdict: Verdict::Accepted,
        },
        Row {
            name: "enum variant removed",
            before: None,
            change: |d| edit(d, TYPES, "    Fast,\n    Safe,\n", "    Fast,\n"),
            args: REPLACES,
            verdict: Verdict::Refused(&["field spec.mode: enum value \"Safe\" removed"]),
        },
    ];
    let failures = run(&base, &rows);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn upgrade_table_constraints_scope_and_edges() {
    let tmp = tempfile::tempdir().unwrap();
    let base = types_base(tmp.path());
    let rows = [
        Row {
            name: "enum added to a free field",
            before: None,
            change: |d| {
                edit(d, TYPES, "    pub policy: Option<String>,", "    pub policy: Option<Policy>,");
                edit(
                    d,
                    TYPES,
                    "/// A container.",
                    "/// Restart policy.\n#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]\npub enum Policy {\n    Always,\n    Never,\n}\n\n/// A container.",
                );
            },
            args: REPLACES,
            verdict: Verdict::Refused(&[
                "field spec.policy: enum [\"Always\",\"Never\",null] added where any value was allowed",
            ]),
        },
        Row {
            name: "Maximum lowered",
            before: None,
            change: |d| edit(d, TYPES, "Maximum=10", "Maximum=5"),
            args: REPLACES,
            verdict: Verdict::Refused(&["field spec.size: maximum lowered from 10 to 5"]),
        },
        Row {
            name: "Maximum raised",
            before: None,
            change: |d| edit(d, TYPES, "Maximum=10", "Maximum=20"),
            args: REPLACES,
            verdict: Verdict::Accepted,
        },
        Row {
            name: "Maximum removed",
            before: None,
            change: |d| edit(d, TYPES, "    // +kubebuilder:validation:Maximum=10\n", ""),
            args: REPLACES,
            verdict: Verdict::Accepted,
        },
        Row {
            name: "Minimum added",
            before: None,
            change: |d| edit(d, TYPES, "Maximum=10\n", "Maximum=10\n    // +kubebuilder:validation:Minimum=1\n"),
            args: REPLACES,
            verdict: Verdict::Refused(&["field spec.size: minimum 1 added where there was none"]),
        },
        Row {
            name: "MaxLength added",
            before: None,
            change: |d| {
                edit(
                    d,
                    TYPES,
                    "    /// Name of the container.\n",
                    "    /// Name of the container.\n    // +kubebuilder:validation:MaxLength=63\n",
                )
            },
            args: REPLACES,
            verdict: Verdict::Refused(&["field spec.containers[*].name: maxLength 63 added where there was none"]),
        },
        Row {
            name: "default added",
            before: None,
            change: |d| {
                edit(
                    d,
                    TYPES,
                    "    /// How the pods run.\n    #[serde",
                    "    /// How the pods run.\n    // +kubebuilder:default=Fast\n    #[serde",
                )
            },
            args: REPLACES,
            verdict: Verdict::Refused(&["field spec.mode: default \"Fast\" added where there was none"]),
        },
        Row {
            name: "default changed",
            before: None,
            change: |d| edit(d, TYPES, "default=11211", "default=11311"),
            args: REPLACES,
            verdict: Verdict::Refused(&["field spec.port: default changed from 11211 to 11311"]),
        },
        Row {
            name: "scope flipped",
            before: None,
            change: |d| edit(d, TYPES, "    namespaced,\n", ""),
            args: REPLACES,
            verdict: Verdict::Refused(&["scope changed from Namespaced to Cluster"]),
        },
        Row {
            name: "no upgrade edge",
            before: None,
            change: unchanged,
            args: &[],
            verdict: Verdict::Invalid(&[
                "no upgrade edge from memcached-operator.v0.1.0 to memcached-operator.v0.2.0: memcached-operator.v0.2.0 replaces nothing",
            ]),
        },
        Row {
            name: "edge by skipRange",
            before: None,
            change: unchanged,
            args: &["--skip-range", ">=0.1.0 <0.2.0"],
            verdict: Verdict::Accepted,
        },
        Row {
            name: "edge by skips",
            before: None,
            change: unchanged,
            args: &["--skips", "memcached-operator.v0.1.0"],
            verdict: Verdict::Accepted,
        },
    ];
    let failures = run(&base, &rows);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Drops a version's module from `src/api.rs` (the version is no longer in the CRD).
fn drop_version(dir: &Path, version: &str) {
    edit(dir, "src/api.rs", &format!("pub mod {version};\n"), "");
}

#[test]
fn upgrade_table_versions() {
    let tmp = tempfile::tempdir().unwrap();
    let base = versions_base(tmp.path());
    let rows = [
        Row {
            name: "served version dropped",
            before: None,
            change: |d| drop_version(d, "v1beta1"),
            args: REPLACES,
            verdict: Verdict::Warned(&["version v1beta1: version removed while the previous release still served it"]),
        },
        Row {
            name: "version unserved then dropped",
            before: Some(|d| {
                edit(d, BETA, "/// MemcachedSpec defines", "// +kubebuilder:unservedversion\n/// MemcachedSpec defines")
            }),
            change: |d| drop_version(d, "v1beta1"),
            args: REPLACES,
            verdict: Verdict::Accepted,
        },
        Row {
            name: "stored version dropped",
            before: None,
            change: |d| {
                drop_version(d, "v1alpha1");
                edit(d, BETA, "    storage = false,\n", "");
            },
            args: REPLACES,
            verdict: Verdict::Refused(&[
                "version v1alpha1: version removed, but the previous release stores objects in it (storage: true)",
            ]),
        },
        Row {
            name: "served versions differ without conversion",
            before: None,
            change: |d| {
                edit(
                    d,
                    BETA,
                    "    pub foo: Option<String>,",
                    "    pub foo: Option<String>,\n    /// Bar.\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub bar: Option<String>,",
                )
            },
            args: REPLACES,
            verdict: Verdict::Refused(&[
                "version v1beta1: served with a schema that differs from v1alpha1's (first at spec.bar) while spec.conversion.strategy is None",
            ]),
        },
        Row {
            name: "served versions differ with a conversion webhook",
            before: None,
            change: |d| {
                ks(d)
                    .args(["create", "webhook", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"])
                    .args(["--conversion", "--spoke", "v1beta1"])
                    .assert()
                    .success();
                edit(
                    d,
                    BETA,
                    "    pub foo: Option<String>,",
                    "    pub foo: Option<String>,\n    /// Bar.\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub bar: Option<String>,",
                );
            },
            args: REPLACES,
            verdict: Verdict::Accepted,
        },
    ];
    let failures = run(&base, &rows);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `make bundle` of 0.2.0 into `b2` with these changes allowed (so that it can be compared afterwards).
fn release_b2(dir: &Path, extra: &[&str]) {
    let out = ks(dir)
        .args(["make", "bundle", "--version", "0.2.0", "--output-dir", "b2"])
        .args(REPLACES)
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", output(&out));
}

fn make_catalog(dir: &Path, bundles: &[&str]) {
    let mut cmd = ks(dir);
    cmd.args(["make", "catalog", "--bundle-image", "example.com/memcached-operator-bundle:v{version}"]);
    for b in bundles {
        cmd.args(["--bundle", b]);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", output(&out));
}

const CATALOG: &str = "catalog/memcached-operator/catalog.yaml";

#[test]
fn previous_as_a_catalog_or_a_folder_of_crds() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = types_base(tmp.path());
    make_catalog(&dir, &["b1"]);
    std::fs::create_dir(dir.join("old-crds")).unwrap();
    let crd_file = "config/crd/bases/cache.example.com_memcacheds.yaml";
    std::fs::copy(dir.join(crd_file), dir.join("old-crds/memcacheds.yaml")).unwrap();

    // Unchanged: the catalog entry 0.2.0 replaces passes, and so does the CRD folder.
    release_b2(&dir, &[]);
    for previous in [CATALOG, "old-crds"] {
        let out = ks(&dir).args(["bundle", "validate", "b2", "--previous", previous]).output().unwrap();
        assert!(out.status.success() && !output(&out).contains("upgrade"), "{previous}: {}", output(&out));
    }

    // A breaking change is reported against the catalog entry and against the CRD folder.
    edit(&dir, TYPES, "Maximum=10", "Maximum=5");
    manifests(&dir);
    let before = snapshot(&dir);
    let out = ks(&dir)
        .args(["make", "bundle", "--version", "0.2.0", "--output-dir", "b2", "--previous", CATALOG])
        .args(REPLACES)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", output(&out));
    assert_eq!(snapshot(&dir), before, "a refused make bundle writes nothing");
    release_b2(&dir, &["--previous", CATALOG, "--allow-breaking"]);
    let out = ks(&dir).args(["bundle", "validate", "b2", "--previous", CATALOG]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        output(&out).contains(&format!(
            "Error: upgrade from memcached-operator.v0.1.0 ({CATALOG}): {CRD}, version v1alpha1, field spec.size: \
             maximum lowered from 10 to 5"
        )),
        "{}",
        output(&out)
    );
    let out =
        ks(&dir).args(["bundle", "validate", "b2", "--previous", "old-crds", "--output", "json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["passed"], false);
    assert!(
        report["outputs"].as_array().unwrap().iter().any(|o| o["type"] == "error"
            && o["message"].as_str().unwrap().starts_with(&format!(
                "Error: upgrade from old-crds: {CRD}, version v1alpha1, field spec.size: maximum lowered"
            ))),
        "{report}"
    );

    // Required -> optional is safe (the previous CRD required `port`; the new one does not).
    let old = read(&dir.join("old-crds/memcacheds.yaml"));
    let required = "            required:\n            - size\n";
    assert!(old.contains(required), "{old}");
    std::fs::write(
        dir.join("old-crds/memcacheds.yaml"),
        old.replace(required, "            required:\n            - port\n            - size\n"),
    )
    .unwrap();
    edit(&dir, TYPES, "Maximum=5", "Maximum=10");
    manifests(&dir);
    let out = ks(&dir)
        .args(["make", "bundle", "--version", "0.2.0", "--output-dir", "b2", "--previous", "old-crds"])
        .args(REPLACES)
        .output()
        .unwrap();
    assert!(out.status.success() && !output(&out).contains("upgrade"), "{}", output(&out));

    // A catalog whose bundles carry no CRD: an error naming what is missing, even with --allow-breaking.
    let catalog = read(&dir.join(CATALOG));
    let stripped: Vec<serde_json::Value> = kubesmith::yaml::from_multi_doc_str(&catalog)
        .unwrap()
        .into_iter()
        .map(|mut d| {
            if let Some(props) = d["properties"].as_array_mut() {
                props.retain(|p| p["type"] != "olm.bundle.object");
            }
            d
        })
        .collect();
    std::fs::write(dir.join("image-only.yaml"), kubesmith::yaml::to_multi_doc_string(&stripped)).unwrap();
    let out = ks(&dir)
        .args(["bundle", "validate", "b2", "--previous", "image-only.yaml", "--allow-breaking"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        output(&out).contains(
            "Error: upgrade from memcached-operator.v0.1.0 (image-only.yaml): bundle memcached-operator.v0.1.0 in \
             catalog image-only.yaml carries no CustomResourceDefinition: it provides cache.example.com/v1alpha1 \
             Memcached (olm.gvk) but no olm.bundle.object property holds the CRD"
        ),
        "{}",
        output(&out)
    );

    // Not a bundle, catalog or CRD: said, with what to pass.
    let out = ks(&dir).args(["bundle", "validate", "b2", "--previous", "src"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        output(&out).contains("--previous src holds no CustomResourceDefinition and no catalog"),
        "{}",
        output(&out)
    );
    // --allow-breaking means nothing without --previous.
    let out = ks(&dir).args(["bundle", "validate", "b2", "--allow-breaking"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", output(&out));
}

#[test]
fn owned_crd_versions_must_match_the_crds_shipped() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = types_base(tmp.path());
    release_b2(&dir, &[]);
    let csv = dir.join("b2/manifests/memcached-operator.clusterserviceversion.yaml");
    let text = read(&csv);
    assert!(text.contains("    version: v1alpha1\n"), "{text}");
    std::fs::write(&csv, text.replace("    version: v1alpha1\n", "    version: v1beta1\n")).unwrap();
    let out = ks(&dir).args(["bundle", "validate", "b2", "--previous", "b1", "--allow-breaking"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        output(&out).contains(&format!(
            "Error: {CRD}: memcached-operator.v0.2.0 does not own served version(s) v1alpha1 (owned: v1beta1; served: \
             v1alpha1); list exactly the served versions in spec.customresourcedefinitions.owned"
        )),
        "{}",
        output(&out)
    );
}

#[test]
fn catalog_validate_checks_crds_along_every_upgrade_edge() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = types_base(tmp.path());
    edit(&dir, TYPES, "    Fast,\n    Safe,\n", "    Fast,\n");
    manifests(&dir);
    release_b2(&dir, &["--previous", "b1", "--allow-breaking"]);
    make_catalog(&dir, &["b1", "b2"]);
    let out = ks(&dir).args(["catalog", "validate", "catalog"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", output(&out));
    assert!(
        output(&out).contains(&format!(
            "Error: upgrade memcached-operator.v0.1.0 -> memcached-operator.v0.2.0: {CRD}, version v1alpha1, field \
             spec.mode: enum value \"Safe\" removed"
        )),
        "{}",
        output(&out)
    );
    let out = ks(&dir).args(["catalog", "validate", "catalog", "--allow-breaking"]).output().unwrap();
    assert!(out.status.success(), "{}", output(&out));
    assert!(output(&out).contains("(allowed by --allow-breaking)"), "{}", output(&out));
    assert!(output(&out).contains("channel alpha (head: memcached-operator.v0.2.0)"), "{}", output(&out));

    // A compatible 0.2.0: the catalog is valid and says nothing about CRDs.
    edit(&dir, TYPES, "    Fast,\n", "    Fast,\n    Safe,\n    Auto,\n");
    manifests(&dir);
    release_b2(&dir, &["--previous", "b1"]);
    make_catalog(&dir, &["b1", "b2"]);
    let out = ks(&dir).args(["catalog", "validate", "catalog"]).output().unwrap();
    assert!(out.status.success() && !output(&out).contains("upgrade"), "{}", output(&out));
    assert!(output(&out).contains("catalog is valid"), "{}", output(&out));
}

#[test]
fn the_makefile_passes_previous_bundle() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = types_base(tmp.path());
    edit(&dir, TYPES, "Maximum=10", "Maximum=5");
    let kubesmith = assert_cmd::cargo::cargo_bin("kubesmith");
    let make = |extra: &[&str]| {
        std::process::Command::new("make")
            .arg("bundle")
            .arg(format!("KUBESMITH={}", kubesmith.display()))
            .args(["VERSION=0.2.0", "BUNDLE_METADATA_OPTS=--replaces memcached-operator.v0.1.0"])
            .args(extra)
            .current_dir(&dir)
            .env("SOURCE_DATE_EPOCH", "1767225600")
            .output()
            .expect("make runs")
    };
    let out = make(&["PREVIOUS_BUNDLE=b1"]);
    assert!(!out.status.success(), "{}", output(&out));
    assert!(output(&out).contains("field spec.size: maximum lowered from 10 to 5"), "{}", output(&out));
    assert!(!dir.join("bundle").exists(), "nothing written");
    // Without PREVIOUS_BUNDLE the target makes the bundle as before.
    let out = make(&[]);
    assert!(out.status.success(), "{}", output(&out));
    assert!(dir.join("bundle/manifests").is_dir());
}
