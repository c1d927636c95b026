//! One test per validator rule: a good bundle, broken in one way, must produce the rule's message.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::*;
use crate::olm::bundle as olm_bundle;

/// A small bundle that passes every validator, optional suites included.
struct Fixture {
    csv: Value,
    crd: Value,
    annotations: Value,
    /// Extra files (relative path → text).
    extra: Vec<(String, String)>,
    /// Paths to leave out.
    drop: Vec<String>,
    /// Folders added (e.g. a sub-folder of manifests).
    dirs: Vec<String>,
    /// The optional validators run.
    suites: Suites,
}

fn fixture() -> Fixture {
    let csv = json!({
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {
            "name": "foo-operator.v0.1.0",
            "namespace": "placeholder",
            "annotations": {
                "alm-examples": "[{\"apiVersion\": \"example.com/v1\", \"kind\": \"Foo\", \"metadata\": {\"name\": \"foo\"}}]",
                "capabilities": "Basic Install",
                "categories": "Database, Storage",
            },
        },
        "spec": {
            "displayName": "Foo Operator",
            "description": "Runs foos.",
            "version": "0.1.0",
            "minKubeVersion": "1.33.0",
            "provider": {"name": "Foo Inc"},
            "maintainers": [{"name": "Ann", "email": "ann@example.com"}],
            "links": [{"name": "Docs", "url": "https://example.com/docs"}],
            "icon": [{"base64data": "iVBORw0KGgo=", "mediatype": "image/png"}],
            "installModes": [
                {"type": "OwnNamespace", "supported": false},
                {"type": "SingleNamespace", "supported": false},
                {"type": "MultiNamespace", "supported": false},
                {"type": "AllNamespaces", "supported": true},
            ],
            "customresourcedefinitions": {"owned": [
                {"name": "foos.example.com", "version": "v1", "kind": "Foo", "displayName": "Foo", "description": "A foo."}
            ]},
            "install": {"strategy": "deployment", "spec": {
                "deployments": [{"name": "foo-operator", "spec": {
                    "selector": {"matchLabels": {"app": "foo"}},
                    "template": {"metadata": {"labels": {"app": "foo"}}, "spec": {
                        "serviceAccountName": "foo-operator",
                        "containers": [{"name": "manager", "image": "example.com/foo-operator:v0.1.0",
                            "resources": {"requests": {"cpu": "10m", "memory": "64Mi"}}}],
                    }},
                }}],
                "clusterPermissions": [{"serviceAccountName": "foo-operator",
                    "rules": [{"apiGroups": ["example.com"], "resources": ["foos"], "verbs": ["get"]}]}],
            }},
            "relatedImages": [{"name": "foo", "image": "example.com/foo:v1"}],
        },
    });
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "foos.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Foo", "listKind": "FooList", "plural": "foos", "singular": "foo"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object"}}}],
        },
    });
    let annotations = json!({
        olm_bundle::MEDIATYPE: "registry+v1",
        olm_bundle::MANIFESTS: "manifests/",
        olm_bundle::METADATA: "metadata/",
        olm_bundle::PACKAGE: "foo-operator",
        olm_bundle::CHANNELS: "stable",
    });
    Fixture { csv, crd, annotations, extra: Vec::new(), drop: Vec::new(), dirs: Vec::new(), suites: all_suites() }
}

impl Fixture {
    fn files(&self) -> BundleFiles {
        let mut b = BundleFiles { root: "bundle".into(), ..Default::default() };
        let mut add = |p: &str, text: String| {
            b.files.insert(PathBuf::from(p), text.into_bytes());
        };
        add("manifests/foo-operator.clusterserviceversion.yaml", crate::yaml::to_string(&self.csv));
        add("manifests/example.com_foos.yaml", crate::yaml::to_string(&self.crd));
        add("metadata/annotations.yaml", crate::yaml::to_string(&json!({"annotations": self.annotations})));
        for (p, t) in &self.extra {
            add(p, t.clone());
        }
        for d in &self.drop {
            b.files.retain(|p, _| !p.starts_with(d));
        }
        b.dirs = ["manifests", "metadata"]
            .iter()
            .map(|d| d.to_string())
            .chain(self.dirs.iter().cloned())
            .filter(|d| !self.drop.iter().any(|x| d.starts_with(x.as_str())))
            .map(PathBuf::from)
            .collect();
        b
    }

    fn run(&self) -> Vec<Finding> {
        validate(&self.files(), &self.suites)
    }
}

/// Every optional validator but the deprecated `operatorhub` (which always warns that it is deprecated).
fn all_suites() -> Suites {
    Suites {
        operatorhubv2: true,
        capabilities: true,
        categories: true,
        community: true,
        good_practices: true,
        deprecated_apis: true,
        ..Default::default()
    }
}

fn check(mutate: impl FnOnce(&mut Fixture), level: Level, want: &str) {
    let mut f = fixture();
    mutate(&mut f);
    let found = f.run();
    assert!(
        found.iter().any(|x| x.level == level && x.message.contains(want)),
        "expected {level:?} containing {want:?}, got:\n{}",
        found.iter().map(|f| f.to_string()).collect::<Vec<_>>().join("\n")
    );
}

/// The findings of the fixture changed by `mutate`.
fn findings(mutate: impl FnOnce(&mut Fixture)) -> Vec<Finding> {
    let mut f = fixture();
    mutate(&mut f);
    f.run()
}

fn shown(found: &[Finding]) -> String {
    found.iter().map(|f| f.to_string()).collect::<Vec<_>>().join("\n")
}

/// Asserts that the changed fixture gives `want`, word for word.
fn check_exact(mutate: impl FnOnce(&mut Fixture), level: Level, want: &str) {
    let found = findings(mutate);
    assert!(
        found.iter().any(|x| x.level == level && x.message == want),
        "expected {level:?} {want:?}, got:\n{}",
        shown(&found)
    );
}

/// `ErrInvalidCSV` of the fixture's CSV.
fn csv_msg(detail: &str) -> String {
    format!("Value : (foo-operator.v0.1.0) {detail}")
}

/// A finding of the fixture's CSV with `Value foo-operator.v0.1.0`.
fn named(detail: &str) -> String {
    format!("Value foo-operator.v0.1.0: {detail}")
}

/// A rule whose message is operator-framework's, asserted word for word.
macro_rules! exact {
    ($(#[$doc:meta])* $name:ident, $level:ident, $want:expr, |$f:ident| $body:expr) => {
        $(#[$doc])*
        #[test]
        fn $name() {
            check_exact(
                |$f: &mut Fixture| {
                    $body;
                },
                Level::$level,
                &$want,
            );
        }
    };
}

macro_rules! rule {
    ($(#[$doc:meta])* $name:ident, $level:ident, $want:expr, |$f:ident| $body:expr) => {
        $(#[$doc])*
        #[test]
        fn $name() {
            check(
                |$f: &mut Fixture| {
                    $body;
                },
                Level::$level,
                $want,
            );
        }
    };
}

#[test]
fn the_fixture_is_clean() {
    assert_eq!(fixture().run(), Vec::<Finding>::new());
}

// ---- format
rule!(format_no_manifests_dir, Error, "Unable to locate manifests directory", |f| f.drop.push("manifests".into()));
rule!(format_no_metadata_dir, Error, "Unable to locate metadata directory", |f| f.drop.push("metadata".into()));
rule!(format_no_annotations_file, Error, "Could not find annotations file", |f| f.annotations = json!({}));
rule!(
    format_missing_annotation,
    Error,
    "Missing annotation \"operators.operatorframework.io.bundle.package.v1\"",
    |f| f.annotations.as_object_mut().unwrap().remove(olm_bundle::PACKAGE)
);
rule!(format_wrong_mediatype, Error, "to have value \"registry+v1\" instead of \"plain\"", |f| f.annotations
    [olm_bundle::MEDIATYPE] =
    json!("plain"));
rule!(format_empty_channels, Error, "channels.v1\" to have non-empty value", |f| f.annotations[olm_bundle::CHANNELS] =
    json!(""));
rule!(format_empty_default_channel, Error, "channel.default.v1\" to have non-empty value", |f| f.annotations
    [olm_bundle::DEFAULT_CHANNEL] =
    json!(""));
rule!(format_default_channel_not_in_channels, Error, "default channel \"fast\" is not among", |f| f.annotations
    [olm_bundle::DEFAULT_CHANNEL] =
    json!("fast"));
rule!(format_empty_channel_name, Error, "has an empty channel name", |f| f.annotations[olm_bundle::CHANNELS] =
    json!("stable,,fast"));
rule!(format_dependency_type, Error, "unsupported dependency type olm.nope", |f| f
    .extra
    .push(("metadata/dependencies.yaml".into(), "dependencies:\n- type: olm.nope\n  value: {}\n".into())));
rule!(format_dependency_gvk, Error, "API Group is empty", |f| f.extra.push((
    "metadata/dependencies.yaml".into(),
    "dependencies:\n- type: olm.gvk\n  value: {kind: Bar, version: v1}\n".into()
)));
rule!(format_dependency_package, Error, "Invalid semver format version", |f| f.extra.push((
    "metadata/dependencies.yaml".into(),
    "dependencies:\n- type: olm.package\n  value: {packageName: bar, version: '>=x'}\n".into()
)));
rule!(format_dependency_label, Error, "Label information is missing", |f| f
    .extra
    .push(("metadata/dependencies.yaml".into(), "dependencies:\n- type: olm.label\n  value: {}\n".into())));
rule!(format_dependency_cel, Error, "The CEL expression is missing", |f| f.extra.push((
    "metadata/dependencies.yaml".into(),
    "dependencies:\n- type: olm.constraint\n  value: {cel: {rule: ''}}\n".into()
)));

// ---- loading
rule!(load_sub_directory, Error, "bundle manifests dir contains directory: bundle/manifests/extra", |f| f
    .dirs
    .push("manifests/extra".into()));
rule!(load_hidden_file, Error, "bundle manifests dir has hidden file", |f| f
    .extra
    .push(("manifests/.hidden.yaml".into(), "a: b\n".into())));
rule!(load_undecodable, Error, "unable to decode object", |f| f
    .extra
    .push(("manifests/bad.yaml".into(), "a: [b\n".into())));
rule!(load_multiple_csvs, Error, "invalid bundle: contains multiple CSVs", |f| {
    let csv = crate::yaml::to_string(&f.csv);
    f.extra.push(("manifests/second.yaml".into(), csv));
});
rule!(load_crd_version, Error, "unsupported CRD version apiextensions.k8s.io/v2", |f| f.crd["apiVersion"] =
    json!("apiextensions.k8s.io/v2"));
rule!(load_no_csv, Error, "unable to find a csv in bundle directory", |f| f
    .drop
    .push("manifests/foo-operator.clusterserviceversion.yaml".into()));
rule!(load_no_files, Error, "contains no yaml files", |f| {
    f.drop.push("manifests/foo-operator.clusterserviceversion.yaml".into());
    f.drop.push("manifests/example.com_foos.yaml".into());
});

// ---- content
rule!(content_unsupported_kind, Error, "Value apps/v1, Kind=Deployment: unsupported media type registry+v1", |f| f
    .extra
    .push(("manifests/d.yaml".into(), "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n".into())));
rule!(content_name_required, Error, "metadata.name: Required value", |f| f
    .extra
    .push(("manifests/c.yaml".into(), "apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n".into())));
rule!(
    content_namespace_forbidden,
    Error,
    "metadata.namespace: Forbidden: not allowed on this type",
    |f| f.crd["metadata"]["namespace"] = json!("x")
);

// ---- CSV
exact!(
    csv_invalid_name,
    Error,
    format!("Value : (Foo_Operator.v0.1.0) metadata.name \"Foo_Operator.v0.1.0\" is invalid: {}", csv::SUBDOMAIN_MSG),
    |f| f.csv["metadata"]["name"] = json!("Foo_Operator.v0.1.0")
);
exact!(
    csv_name_longer_than_a_label,
    Error,
    format!(
        "Value : ({0}) metadata.name \"{0}\" is invalid: must be no more than 63 bytes",
        "a".repeat(60) + ".v0.1.0"
    ),
    |f| f.csv["metadata"]["name"] = json!("a".repeat(60) + ".v0.1.0")
);
exact!(
    csv_invalid_replaces,
    Error,
    csv_msg(&format!("spec.replaces \"Foo.v0\" is invalid: {}", csv::SUBDOMAIN_MSG)),
    |f| f.csv["spec"]["replaces"] = json!("Foo.v0")
);
exact!(csv_no_annotations, Warning, csv_msg("annotations not found"), |f| f.csv["metadata"]
    .as_object_mut()
    .unwrap()
    .remove("annotations"));
exact!(csv_empty_annotations, Warning, csv_msg("annotations not found"), |f| f.csv["metadata"]["annotations"] =
    json!({}));
exact!(csv_no_examples, Warning, csv_msg("example annotations not found"), |f| f.csv["metadata"]["annotations"]
    .as_object_mut()
    .unwrap()
    .remove("alm-examples"));
exact!(
    csv_both_examples,
    Warning,
    csv_msg("both `alm-examples` and `olm.examples` are present. Checking only `alm-examples`"),
    |f| f.csv["metadata"]["annotations"]["olm.examples"] = json!("[]")
);
exact!(
    csv_invalid_example_json_at_end,
    Error,
    "Value invalid character at 2\n [{<--(see the invalid character): invalid example",
    |f| f.csv["metadata"]["annotations"]["alm-examples"] = json!("[{")
);
exact!(
    csv_invalid_example_json_offset,
    Error,
    "Value invalid character at 10\n [{\"a\": 1,}<--(see the invalid character): invalid example",
    |f| f.csv["metadata"]["annotations"]["alm-examples"] = json!("[{\"a\": 1,}]")
);
exact!(
    csv_example_not_a_list,
    Error,
    "Value json: cannot unmarshal object into Go value of type []unstructured.Unstructured: error decoding example \
     CustomResource",
    |f| f.csv["metadata"]["annotations"]["alm-examples"] = json!("{}")
);
exact!(
    csv_example_without_kind,
    Error,
    "Value error unmarshaling JSON: while decoding JSON: Object 'Kind' is missing in '{\"apiVersion\":\"example.com/v1\"}': \
     error decoding example CustomResource",
    |f| f.csv["metadata"]["annotations"]["alm-examples"] = json!("[{\"apiVersion\": \"example.com/v1\"}]")
);
exact!(
    csv_example_not_an_object,
    Error,
    "Value error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number into Go value of type \
     map[string]interface {}: error decoding example CustomResource",
    |f| f.csv["metadata"]["annotations"]["alm-examples"] = json!("[1]")
);
exact!(csv_example_not_provided, Error, "Value example.com/v2, Kind=Foo: example must have a provided API", |f| f
    .csv["metadata"]["annotations"]["alm-examples"] = json!(
    "[{\"apiVersion\": \"example.com/v1\", \"kind\": \"Foo\"}, {\"apiVersion\": \"example.com/v2\", \"kind\": \"Foo\"}]"
));
exact!(
    csv_api_without_example,
    Warning,
    "Value example.com/v1, Kind=Foo: provided API should have an example annotation",
    |f| f.csv["metadata"]["annotations"]["alm-examples"] = json!("[]")
);

/// An empty `alm-examples` is no example: the provided API warns, nothing fails.
#[test]
fn csv_empty_examples_are_no_examples() {
    let found = findings(|f| f.csv["metadata"]["annotations"]["alm-examples"] = json!(""));
    assert_eq!(
        found,
        vec![Finding {
            level: Level::Warning,
            message: "Value example.com/v1, Kind=Foo: provided API should have an example annotation".into()
        }]
    );
}

exact!(
    csv_owned_name_without_dot,
    Error,
    ": couldn't parse plural.group from crd name: foos",
    |f| f.csv["spec"]["customresourcedefinitions"]["owned"][0]["name"] = json!("foos")
);
exact!(csv_no_install_modes, Error, csv_msg("install modes not found"), |f| f.csv["spec"]["installModes"] = json!([]));
exact!(
    csv_no_supported_install_mode,
    Error,
    csv_msg("none of InstallModeTypes are supported"),
    |f| f.csv["spec"]["installModes"][3]["supported"] = json!(false)
);
exact!(
    csv_conversion_needs_all_namespaces,
    Error,
    csv_msg("only AllNamespaces InstallModeType is supported when conversionCRDs is present"),
    |f| {
        f.csv["spec"]["installModes"][0]["supported"] = json!(true);
        f.csv["spec"]["webhookdefinitions"] = json!([{"type": "ConversionWebhook", "generateName": "cfoos.kb.io",
        "admissionReviewVersions": ["v1"], "sideEffects": "None", "conversionCRDs": ["foos.example.com"]}]);
    }
);
exact!(csv_no_min_kube_version, Warning, csv_msg(csv::MIN_KUBE_VERSION_WARNING), |f| f.csv["spec"]
    .as_object_mut()
    .unwrap()
    .remove("minKubeVersion"));
exact!(csv_invalid_min_kube_version, Error, csv_msg("csv.Spec.MinKubeVersion has an invalid value: 1.33"), |f| f.csv
    ["spec"]["minKubeVersion"] =
    json!("1.33"));

/// `minKubeVersion: 1.21` unquoted is the string "1.21" to OLM's typed CSV: invalid semver, not a schema error.
#[test]
fn csv_unquoted_min_kube_version_is_read_as_go_reads_it() {
    let mut f = fixture();
    let yaml = crate::yaml::to_string(&f.csv).replace("minKubeVersion: 1.33.0", "minKubeVersion: 1.21");
    assert!(yaml.contains("minKubeVersion: 1.21\n"), "{yaml}");
    f.drop.push("manifests/foo-operator.clusterserviceversion.yaml".into());
    f.extra.push(("manifests/csv.yaml".into(), yaml));
    let found = f.run();
    let want = csv_msg("csv.Spec.MinKubeVersion has an invalid value: 1.21");
    assert!(found.iter().any(|x| x.level == Level::Error && x.message == want), "{}", shown(&found));
    assert!(!found.iter().any(|x| x.message.contains("would refuse")), "{}", shown(&found));
}

exact!(csv_no_display_name, Error, "Field Spec.DisplayName, Value field: required field missing", |f| f.csv["spec"]
    .as_object_mut()
    .unwrap()
    .remove("displayName"));
exact!(
    csv_empty_strategy,
    Error,
    "Field Spec.InstallStrategy.StrategyName, Value field: required field missing",
    |f| f.csv["spec"]["install"]["strategy"] = json!("")
);
exact!(csv_no_install, Error, "Field Spec.InstallStrategy, Value field: required field missing", |f| f.csv["spec"]
    .as_object_mut()
    .unwrap()
    .remove("install"));
rule!(
    csv_no_deployments,
    Error,
    "StrategySpec.DeploymentSpecs, Value field: required field missing",
    |f| f.csv["spec"]["install"]["spec"]["deployments"] = json!([])
);
exact!(
    csv_annotation_case,
    Error,
    named("provided annotation olm.skiprange uses wrong case and should be olm.skipRange instead"),
    |f| f.csv["metadata"]["annotations"]["olm.skiprange"] = json!(">=0.0.1 <0.1.0")
);
exact!(
    csv_olm_properties,
    Warning,
    "Value : found olm.properties annotation, please define these properties in metadata/properties.yaml instead",
    |f| f.csv["metadata"]["annotations"]["olm.properties"] = json!("[]")
);
rule!(
    csv_invalid_skip_range,
    Error,
    "invalid olm.skipRange \">=banana\"",
    |f| f.csv["metadata"]["annotations"]["olm.skipRange"] = json!(">=banana")
);
exact!(csv_api_version_missing, Error, csv_msg("'apiVersion' is missing"), |f| f.csv["apiVersion"] = json!(""));
rule!(csv_kind_in_file_required, Error, "unable to find a csv", |f| f.csv["kind"] = json!("Other"));

// ---- CSV schema (kubesmith's own: what the API server would refuse)
exact!(
    schema_type_mismatch,
    Error,
    "(foo-operator.v0.1.0) the cluster would refuse this ClusterServiceVersion: spec.installModes[0].supported: \
     Invalid value: \"string\": spec.installModes[0].supported in body must be of type boolean: \"string\" (OLM's \
     ClusterServiceVersion CRD schema)",
    |f| f.csv["spec"]["installModes"][0]["supported"] = json!("no")
);
rule!(
    schema_required,
    Error,
    "refuse this ClusterServiceVersion: spec.customresourcedefinitions.owned[0].version: Required value",
    |f| { f.csv["spec"]["customresourcedefinitions"]["owned"][0].as_object_mut().unwrap().remove("version") }
);
rule!(
    schema_enum,
    Error,
    "spec.webhookdefinitions[0].type: Unsupported value: \"Other\"",
    |f| f.csv["spec"]["webhookdefinitions"] =
        json!([{"type": "Other", "generateName": "x", "admissionReviewVersions": ["v1"], "sideEffects": "None"}])
);
rule!(
    schema_unknown_field,
    Warning,
    "field spec.colour is not in OLM's ClusterServiceVersion schema",
    |f| f.csv["spec"]["colour"] = json!("blue")
);

// ---- bundle
exact!(
    bundle_duplicate_crd,
    Error,
    "Value example.com/v1, Kind=Foo: duplicate CRD \"example.com/v1, Kind=Foo\" in bundle \"foo-operator.v0.1.0\"",
    |f| {
        let crd = crate::yaml::to_string(&f.crd);
        f.extra.push(("manifests/copy.yaml".into(), crd));
    }
);
exact!(
    bundle_owned_crd_missing,
    Error,
    "Value example.com/v1, Kind=Foo: owned CRD \"example.com/v1, Kind=Foo\" not found in bundle \"foo-operator.v0.1.0\"",
    |f| f.drop.push("manifests/example.com_foos.yaml".into())
);
exact!(
    bundle_crd_not_in_csv,
    Error,
    "Value example.com/v1, Kind=Bar: CRD \"example.com/v1, Kind=Bar\" is present in bundle \"foo-operator.v0.1.0\" but \
     not defined in CSV",
    |f| {
        let mut bar = f.crd.clone();
        bar["metadata"]["name"] = json!("bars.example.com");
        bar["spec"]["names"] = json!({"kind": "Bar", "listKind": "BarList", "plural": "bars", "singular": "bar"});
        f.extra.push(("manifests/bar.yaml".into(), crate::yaml::to_string(&bar)));
    }
);
// Another version of an owned kind is tolerated only when the owned version itself is in the bundle.
exact!(
    bundle_other_version_of_a_missing_owned_crd,
    Error,
    "Value example.com/v2, Kind=Foo: CRD \"example.com/v2, Kind=Foo\" is present in bundle \"foo-operator.v0.1.0\" but \
     not defined in CSV",
    |f| f.crd["spec"]["versions"][0]["name"] = json!("v2")
);
rule!(
    bundle_service_account_clash,
    Error,
    "Value foo-operator: invalid service account found in bundle. This service account foo-operator in your bundle is not valid",
    |f| f.extra.push((
        "manifests/sa.yaml".into(),
        "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: foo-operator\n".into()
    ))
);
rule!(
    bundle_too_big,
    Error,
    "Value foo-operator.v0.1.0: maximum bundle compressed size with gzip size exceeded: size=~",
    |f| f.extra.push(("manifests/big.yaml".into(), noise_config_map(1_500_000)))
);
rule!(
    bundle_nearly_too_big,
    Warning,
    "Value foo-operator.v0.1.0: nearing maximum bundle compressed size with gzip",
    |f| f.extra.push(("manifests/big.yaml".into(), noise_config_map(1_200_000)))
);
rule!(
    bundle_release_name,
    Error,
    "bundle name with release versioning \"foo-operator.v0.1.0\" does not match expected name \"foo-operator-v0.1.0-2\"",
    |f| f.csv["spec"]["release"] = json!("2")
);
rule!(
    bundle_related_image_empty,
    Error,
    "relatedImages[0] has an empty image field",
    |f| f.csv["spec"]["relatedImages"][0]["image"] = json!("")
);
rule!(bundle_related_image_invalid, Error, "relatedImages[0] has an invalid image pullspec \"Not An Image\"", |f| f
    .csv["spec"]["relatedImages"][0]["image"] =
    json!("Not An Image"));

#[test]
fn bundle_sizes_read_like_go() {
    assert_eq!(bundle::size_text(512), "512 B");
    assert_eq!(bundle::size_text(1_048_576), "1.0 MB");
    assert_eq!(bundle::size_text(891_289), "891.3 kB");
}

/// A ConfigMap of about `n` bytes of incompressible text (a linear congruential generator).
fn noise_config_map(n: usize) -> String {
    let mut x: u64 = 42;
    let data: String = (0..n)
        .map(|_| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (b'a' + ((x >> 33) % 26) as u8) as char
        })
        .collect();
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  blob: {data}\n")
}

// ---- CRD
exact!(
    crd_name_mismatch,
    Error,
    "Field metadata.name, Value foos.example.com: metadata.name: Invalid value: \"foos.example.com\": must be \
     spec.names.plural+\".\"+spec.group",
    |f| f.crd["spec"]["names"]["plural"] = json!("foozes")
);
exact!(
    crd_group_without_dot,
    Error,
    "Field spec.group, Value example: spec.group: Invalid value: \"example\": should be a domain with at least one dot",
    |f| {
        f.crd["spec"]["group"] = json!("example");
        f.crd["metadata"]["name"] = json!("foos.example");
    }
);
exact!(
    crd_scope,
    Error,
    "Field spec.scope, Value Global: spec.scope: Unsupported value: \"Global\": supported values: \"Cluster\", \
     \"Namespaced\"",
    |f| f.crd["spec"]["scope"] = json!("Global")
);
exact!(
    crd_plural_label,
    Error,
    format!("Field spec.names.plural, Value Foos: spec.names.plural: Invalid value: \"Foos\": {}", csv::DNS1035_MSG),
    |f| f.crd["spec"]["names"]["plural"] = json!("Foos")
);
exact!(
    crd_kind_mixed_case,
    Error,
    format!(
        "Field spec.names.kind, Value Foo_Bar: spec.names.kind: Invalid value: \"Foo_Bar\": may have mixed case, but \
         should otherwise match: {}",
        csv::DNS1035_MSG
    ),
    |f| f.crd["spec"]["names"]["kind"] = json!("Foo_Bar")
);
exact!(
    crd_kind_equals_list_kind,
    Error,
    "Field spec.names.listKind, Value Foo: spec.names.listKind: Invalid value: \"Foo\": kind and listKind may not be the \
     same",
    |f| f.crd["spec"]["names"]["listKind"] = json!("Foo")
);
exact!(
    crd_namespace_forbidden,
    Error,
    "Field metadata.namespace, Value : metadata.namespace: Forbidden: not allowed on this type",
    |f| f.crd["metadata"]["namespace"] = json!("x")
);
rule!(crd_duplicate_versions, Error, "must contain unique version names", |f| {
    let v = f.crd["spec"]["versions"][0].clone();
    let mut v2 = v.clone();
    v2["storage"] = json!(false);
    f.crd["spec"]["versions"] = json!([v, v2]);
});
rule!(
    crd_one_storage_version,
    Error,
    "Field spec.versions, Value [v1]: spec.versions: Invalid value: [\"v1\"]: must have exactly one version marked as \
     storage version",
    |f| f.crd["spec"]["versions"][0]["storage"] = json!(false)
);
// v1 has no `spec.version`: a v1 CRD that only sets it has no version at all.
exact!(
    crd_v1_with_only_the_old_version_field,
    Error,
    "Field spec.versions, Value []: spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion(nil): \
     must have exactly one version marked as storage version",
    |f| {
        f.crd["spec"].as_object_mut().unwrap().remove("versions");
        f.crd["spec"]["version"] = json!("v1");
    }
);
exact!(
    crd_conversion_client_config,
    Error,
    "Field spec.conversion.webhookClientConfig, Value : spec.conversion.webhookClientConfig: Required value: required \
     when strategy is set to Webhook",
    |f| f.crd["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"]}})
);
exact!(
    crd_conversion_review_versions,
    Error,
    "Field spec.conversion.conversionReviewVersions, Value [v2]: spec.conversion.conversionReviewVersions: Invalid \
     value: []string{\"v2\"}: must include at least one of v1, v1beta1",
    |f| f.crd["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {"clientConfig": {"url": "https://x"}, "conversionReviewVersions": ["v2"]}})
);
exact!(
    crd_conversion_review_versions_required,
    Error,
    "Field spec.conversion.conversionReviewVersions, Value : spec.conversion.conversionReviewVersions: Required value",
    |f| f.crd["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {"clientConfig": {"url": "https://x"}}})
);
exact!(
    crd_conversion_strategy,
    Error,
    "Field spec.conversion.strategy, Value Magic: spec.conversion.strategy: Unsupported value: \"Magic\": supported \
     values: \"None\", \"Webhook\"",
    |f| f.crd["spec"]["conversion"] = json!({"strategy": "Magic"})
);

/// The fixture's CRD as apiextensions.k8s.io/v1beta1, with `extra` merged into its spec.
fn v1beta1_crd(f: &mut Fixture, extra: Value) {
    f.crd["apiVersion"] = json!("apiextensions.k8s.io/v1beta1");
    for (k, v) in extra.as_object().unwrap() {
        f.crd["spec"][k] = v.clone();
    }
}

/// A v1beta1 CRD's conversion lives in `webhookClientConfig` and defaults its review versions to v1beta1.
#[test]
fn crd_v1beta1_conversion_is_read_as_v1beta1() {
    let found = findings(|f| {
        v1beta1_crd(
            f,
            json!({"preserveUnknownFields": false, "conversion": {"strategy": "Webhook",
                "webhookClientConfig": {"service": {"name": "webhook", "namespace": "system"}}}}),
        )
    });
    assert!(!found.iter().any(|x| x.message.contains("spec.conversion")), "{}", shown(&found));
}

// v1beta1 defaults `preserveUnknownFields` to true, which webhook conversion does not allow.
exact!(
    crd_v1beta1_webhook_conversion_needs_pruning,
    Error,
    "Field spec.conversion.strategy, Value Webhook: spec.conversion.strategy: Invalid value: \"Webhook\": must be None if \
     spec.preserveUnknownFields is true",
    |f| v1beta1_crd(f, json!({"conversion": {"strategy": "Webhook", "webhookClientConfig": {"url": "https://x"}}}))
);

/// A v1beta1 CRD may give only `spec.version`: it is its one served and stored version.
#[test]
fn crd_v1beta1_version_field_alone_is_a_version() {
    let found = findings(|f| {
        v1beta1_crd(f, json!({"version": "v1"}));
        f.crd["spec"].as_object_mut().unwrap().remove("versions");
    });
    assert!(
        !found.iter().any(|x| x.message.contains("spec.version") || x.message.contains("Kind=Foo")),
        "{}",
        shown(&found)
    );
}

exact!(
    crd_v1beta1_version_must_match_first,
    Error,
    "Field spec.version, Value v2: spec.version: Invalid value: \"v2\": must match the first version in spec.versions",
    |f| v1beta1_crd(f, json!({"version": "v2"}))
);

// ---- operatorhubv2, capabilities, categories, operatorhub
exact!(hub_provider, Error, csv_msg("csv.Spec.Provider.Name not specified"), |f| f.csv["spec"]["provider"] =
    json!({"name": "  "}));
exact!(
    hub_maintainer_fields,
    Error,
    csv_msg("csv.Spec.Maintainers elements should contain both name and email"),
    |f| f.csv["spec"]["maintainers"] = json!([{"name": "Ann"}])
);
exact!(
    hub_maintainer_email,
    Error,
    csv_msg("csv.Spec.Maintainers email ann-at-example is invalid: mail: missing '@' or angle-addr"),
    |f| f.csv["spec"]["maintainers"] = json!([{"name": "Ann", "email": "ann-at-example"}])
);
// A maintainer without a name still has its email checked.
exact!(
    hub_maintainer_without_name_has_its_email_checked,
    Error,
    csv_msg("csv.Spec.Maintainers email Ann Smith is invalid: mail: no angle-addr"),
    |f| f.csv["spec"]["maintainers"] = json!([{"email": "Ann Smith"}])
);
exact!(hub_link_fields, Error, csv_msg("csv.Spec.Links elements should contain both name and url"), |f| f.csv["spec"]
    ["links"] =
    json!([{"name": "Docs"}]));
exact!(
    hub_link_url,
    Error,
    csv_msg("csv.Spec.Links url not a url is invalid: parse \"not a url\": invalid URI for request"),
    |f| f.csv["spec"]["links"] = json!([{"url": "not a url"}])
);
exact!(hub_version, Error, csv_msg("csv.Spec.Version must be set"), |f| f.csv["spec"]["version"] = json!("0.0.0"));
exact!(hub_icon_missing, Warning, csv_msg("csv.Spec.Icon not specified"), |f| f.csv["spec"]
    .as_object_mut()
    .unwrap()
    .remove("icon"));
exact!(hub_icon_count, Error, csv_msg("csv.Spec.Icon should only have one element"), |f| {
    let icon = f.csv["spec"]["icon"][0].clone();
    f.csv["spec"]["icon"] = json!([icon.clone(), icon]);
});
exact!(
    hub_icon_fields,
    Error,
    csv_msg("csv.Spec.Icon elements should contain both data and mediatype"),
    |f| f.csv["spec"]["icon"] = json!([{"base64data": "", "mediatype": "image/bmp"}])
);
exact!(
    hub_icon_mediatype,
    Error,
    csv_msg("csv.Spec.Icon image/bmp does not have a valid mediatype"),
    |f| f.csv["spec"]["icon"] = json!([{"base64data": "", "mediatype": "image/bmp"}])
);
exact!(
    hub_min_kube_version,
    Error,
    csv_msg("csv.Spec.MinKubeVersion has an invalid value: v1.33.0"),
    |f| f.csv["spec"]["minKubeVersion"] = json!("v1.33.0")
);
exact!(
    hub_capabilities,
    Error,
    csv_msg("csv.Metadata.Annotations.Capabilities \"Magic\" is not a valid capabilities level"),
    |f| f.csv["metadata"]["annotations"]["capabilities"] = json!("Magic")
);
// The category is quoted as written, space and all.
exact!(
    hub_categories,
    Error,
    csv_msg("csv.Metadata.Annotations[\"categories\"] value \" Toys\" is not in the set of standard categories"),
    |f| f.csv["metadata"]["annotations"]["categories"] = json!("Database, Toys")
);
exact!(
    hub_custom_categories,
    Error,
    csv_msg("csv.Metadata.Annotations[\"categories\"] value \"Database\" is not in the set of custom categories"),
    |f| {
        f.suites.custom_categories = Some(Ok(vec!["Toys".into(), "Games".into()]));
        f.csv["metadata"]["annotations"]["categories"] = json!("Database, Toys");
    }
);
exact!(
    hub_custom_categories_unreadable,
    Error,
    csv_msg(
        "could not extract custom categories from categories map[string]struct {}(nil): unmarshaling category file: \
         invalid character 'x' looking for beginning of value"
    ),
    |f| f.suites.custom_categories =
        Some(read_custom_categories(b"x").map_err(|e| format!("unmarshaling category file: {e}")))
);

/// Custom categories replace the standard ones.
#[test]
fn hub_custom_categories_accept_their_own() {
    let found = findings(|f| {
        f.suites.custom_categories = Some(Ok(vec!["Toys".into()]));
        f.csv["metadata"]["annotations"]["categories"] = json!("Toys");
    });
    assert_eq!(found, Vec::<Finding>::new());
}

#[test]
fn custom_categories_files_decode_like_go() {
    assert_eq!(read_custom_categories(br#"{"categories": ["A", "B"], "x": 1}"#), Ok(vec!["A".into(), "B".into()]));
    assert_eq!(read_custom_categories(b"null"), Ok(vec![]));
    assert_eq!(read_custom_categories(b"").unwrap_err(), "unexpected end of JSON input");
    assert_eq!(
        read_custom_categories(br#"{"categories": "A"}"#).unwrap_err(),
        "json: cannot unmarshal string into Go struct field categories.categories of type []string"
    );
    assert_eq!(
        read_custom_categories(br#"{"categories": [1]}"#).unwrap_err(),
        "json: cannot unmarshal number into Go struct field categories.categories of type string"
    );
    assert_eq!(
        read_custom_categories(br#"["A"]"#).unwrap_err(),
        "json: cannot unmarshal array into Go value of type internal.categories"
    );
}

/// `operatorhubv2` checks neither capabilities nor categories; the deprecated `operatorhub` checks both and says
/// it is deprecated.
#[test]
fn operatorhub_v2_is_its_own_validator() {
    let bad = |f: &mut Fixture, suites: Suites| {
        f.suites = suites;
        f.csv["metadata"]["annotations"]["capabilities"] = json!("Magic");
        f.csv["metadata"]["annotations"]["categories"] = json!("Toys");
    };
    let v2 = findings(|f| bad(f, Suites { operatorhubv2: true, ..Default::default() }));
    assert_eq!(v2, Vec::<Finding>::new());
    let v1 = findings(|f| bad(f, Suites { operatorhub: true, ..Default::default() }));
    let messages: Vec<String> = v1.iter().map(|x| x.to_string()).collect();
    assert_eq!(
        messages,
        [
            format!(
                "Error: {}",
                csv_msg("csv.Metadata.Annotations.Capabilities \"Magic\" is not a valid capabilities level")
            ),
            format!(
                "Error: {}",
                csv_msg(
                    "csv.Metadata.Annotations[\"categories\"] value \"Toys\" is not in the set of standard categories"
                )
            ),
            "Warning: Value : The \"operatorhub\" validator is deprecated; for equivalent validation use \
             \"operatorhub/v2\", \"standardcapabilities\" and \"standardcategories\" validators"
                .to_string(),
        ]
    );
}

// ---- good practices
exact!(good_no_deployment, Error, named("unable to find a deployment to install in the CSV"), |f| {
    f.csv["spec"]["install"]["spec"].as_object_mut().unwrap().remove("deployments")
});
exact!(
    good_resource_requests,
    Warning,
    named(
        "unable to find the resource requests for the container: (manager). It is recommended to ensure the resource \
         request for CPU and Memory. Be aware that for some clusters configurations it is required to specify \
         requests or limits for those values. Otherwise, the system or quota may reject Pod creation. More info: \
         https://master.sdk.operatorframework.io/docs/best-practices/managing-resources/"
    ),
    |f| f.csv["spec"]["install"]["spec"]["deployments"][0]["spec"]["template"]["spec"]["containers"][0]["resources"] =
        json!({})
);
exact!(
    good_crd_description,
    Warning,
    named("owned CRD \"foos.example.com\" has an empty description"),
    |f| f.csv["spec"]["customresourcedefinitions"]["owned"][0]["description"] = json!("")
);
exact!(
    good_channel_naming,
    Warning,
    named(
        "channel(s) [\"alpha\"] are not following the recommended naming convention: \
         https://olm.operatorframework.io/docs/best-practices/channel-naming"
    ),
    |f| f.annotations[olm_bundle::CHANNELS] = json!("alpha, stable")
);
rule!(good_crd_create_permission, Warning, "Value foo-operator.v0.1.0: CSV contains permissions to create CRD", |f| {
    f.csv["spec"]["install"]["spec"]["clusterPermissions"][0]["rules"] = json!([{"apiGroups": ["apiextensions.k8s.io"], "resources": ["customresourcedefinitions"], "verbs": ["create"]}])
});

/// A name without `.v<semver>` misses both conventions.
#[test]
fn good_name_conventions() {
    let found = findings(|f| f.csv["metadata"]["name"] = json!("foo-operator"));
    let v = "Value foo-operator: csv.metadata.Name foo-operator is not following the";
    for want in [
        format!("{v} versioning convention (MAJOR.MINOR.PATCH e.g 0.0.1): https://semver.org/"),
        format!("{v} recommended naming convention: <operator-name>.v<semver> e.g. memcached-operator.v0.0.1"),
    ] {
        assert!(found.iter().any(|x| x.level == Level::Warning && x.message == want), "{want}\n{}", shown(&found));
    }
}

rule!(good_version_convention, Warning, "is not following the versioning convention", |f| f.csv["metadata"]["name"] =
    json!("foo-operator.vlatest"));

// ---- deprecated APIs
/// A `Value foo-operator.v0.1.0` message that the bundle uses APIs removed in `v1.<minor>`.
fn removed(minor: u32, apis: &str) -> String {
    named(&format!(
        "this bundle is using APIs which were deprecated and removed in v1.{minor}. More info: \
         https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-{minor}. Migrate the API(s) for {apis}"
    ))
}

const PDB: &str = "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: pdb\n";

exact!(deprecated_api_error_at_min_kube_version, Error, removed(22, "CRD: ([\"foos.example.com\"])"), |f| {
    f.csv["spec"]["minKubeVersion"] = json!("1.25.0");
    f.crd["apiVersion"] = json!("apiextensions.k8s.io/v1beta1");
});
exact!(deprecated_api_warning_before_removal, Warning, removed(25, "PodDisruptionBudget: ([\"pdb\"])"), |f| {
    f.csv["spec"]["minKubeVersion"] = json!("1.20.0");
    f.extra.push(("manifests/pdb.yaml".into(), PDB.into()));
});
// With more than one kind, upstream ends every entry with a comma.
exact!(
    deprecated_api_several_kinds,
    Error,
    removed(22, "PriorityClass: ([\"high\"]),TokenReview: ([\"review\"]),"),
    |f| {
        f.extra.push((
            "manifests/pc.yaml".into(),
            "apiVersion: scheduling.k8s.io/v1beta1\nkind: PriorityClass\nmetadata:\n  name: high\n".into(),
        ));
        f.extra.push((
            "manifests/tr.yaml".into(),
            "apiVersion: authentication.k8s.io/v1beta1\nkind: TokenReview\nmetadata:\n  name: review\n".into(),
        ));
    }
);
// RBAC rules on a resource 1.25 removed only warn, whatever the version.
exact!(
    deprecated_api_pod_security_policies_in_rules,
    Warning,
    removed(
        25,
        "podsecuritypolicies: ([\"ClusterServiceVersion.Spec.InstallStrategy.StrategySpec.ClusterPermissions[0].Rules[1]\"])"
    ),
    |f| {
        let rules = f.csv["spec"]["install"]["spec"]["clusterPermissions"][0]["rules"].as_array_mut().unwrap();
        rules.push(json!({"apiGroups": ["policy"], "resources": ["podsecuritypolicies"], "verbs": ["use"]}));
    }
);
// The CSV's CRD `resources` count when their version names the removed group.
exact!(
    deprecated_api_in_owned_crd_resources,
    Error,
    removed(
        25,
        "PodDisruptionBudget: ([\"ClusterServiceVersion.Spec.CustomResourceDefinitions.Owned[0].Resource[1]\"])"
    ),
    |f| f.csv["spec"]["customresourcedefinitions"]["owned"][0]["resources"] = json!([
        {"kind": "PodDisruptionBudget", "version": "v1beta1", "name": "plain"},
        {"kind": "PodDisruptionBudget", "version": "policy/v1beta1", "name": "grouped"}
    ])
);
exact!(deprecated_api_removed_in_1_26, Error, removed(26, "HorizontalPodAutoscaler: ([\"hpa\"])"), |f| f.extra.push((
    "manifests/hpa.yaml".into(),
    "apiVersion: autoscaling/v2beta2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: hpa\n".into()
)));

/// An invalid minKubeVersion is an error of its own; the removals are still listed, as warnings.
#[test]
fn deprecated_api_invalid_min_kube_version() {
    let found = findings(|f| {
        f.csv["spec"]["minKubeVersion"] = json!("banana");
        f.extra.push(("manifests/pdb.yaml".into(), PDB.into()));
    });
    let want = named(
        "unable to use csv.Spec.MinKubeVersion to verify the CRD/Webhook apis because it has an invalid value: banana",
    );
    assert!(found.iter().any(|x| x.level == Level::Error && x.message == want), "{}", shown(&found));
    let pdb = removed(25, "PodDisruptionBudget: ([\"pdb\"])");
    assert!(found.iter().any(|x| x.level == Level::Warning && x.message == pdb), "{}", shown(&found));
}

#[test]
fn deprecated_api_k8s_version_option() {
    let mut f = fixture();
    f.extra.push(("manifests/pdb.yaml".into(), PDB.into()));
    let suites = |v: &str| Suites { deprecated_apis: true, k8s_version: Some(v.into()), ..Default::default() };
    let found = validate(&f.files(), &suites("1.25"));
    let pdb = removed(25, "PodDisruptionBudget: ([\"pdb\"])");
    assert!(found.iter().any(|x| x.level == Level::Error && x.message == pdb), "{}", shown(&found));
    // An invalid version is an error of its own; the check goes on with the CSV's minKubeVersion.
    f.csv["spec"]["minKubeVersion"] = json!("1.20.0");
    let found = validate(&f.files(), &suites("banana"));
    assert!(
        found
            .iter()
            .any(|x| x.level == Level::Error
                && x.message == named("invalid value informed via the k8s key option : banana")),
        "{}",
        shown(&found)
    );
    assert!(found.iter().any(|x| x.level == Level::Warning && x.message == pdb), "{}", shown(&found));
}

// ---- community
/// The fixture with a v1beta1 CRD (an API 1.22 removed) and the community validator only.
fn community(f: &mut Fixture, properties: Option<&str>, index: Option<IndexFile>) {
    f.crd["apiVersion"] = json!("apiextensions.k8s.io/v1beta1");
    f.suites = Suites { community: true, index_path: index, ..Default::default() };
    if let Some(p) = properties {
        f.csv["metadata"]["annotations"]["olm.properties"] = json!(p);
    }
}

fn dockerfile(label: &str) -> Option<IndexFile> {
    Some(IndexFile::Content {
        text: format!("FROM scratch\nLABEL operators.operatorframework.io.bundle.package.v1=foo\n{label}\nCOPY x /x\n"),
    })
}

const MAX_48: &str = r#"[{"type": "olm.maxOpenShiftVersion", "value": "4.8"}]"#;
const CRD_1_22: &str = "CRD: ([\"foos.example.com\"])";
const REMOVED_1_22: &str = "using APIs which were deprecated and removed in v1.22. More info: \
     https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-22";

/// The community validator's findings (the CSV validator's warning about `olm.properties` left out).
fn community_findings(properties: Option<&str>, index: Option<IndexFile>) -> Vec<String> {
    findings(|f| community(f, properties, index))
        .iter()
        .filter(|x| !x.message.contains("found olm.properties annotation"))
        .map(|x| x.to_string())
        .collect()
}

#[test]
fn community_is_silent_without_removed_apis() {
    let found = findings(|f| f.suites = Suites { community: true, ..Default::default() });
    assert_eq!(found, Vec::<Finding>::new());
}

#[test]
fn community_passes_a_capped_bundle() {
    assert_eq!(
        community_findings(Some(MAX_48), dockerfile("LABEL com.redhat.openshift.versions=\"v4.6-v4.8\"")),
        Vec::<String>::new()
    );
}

#[test]
fn community_without_max_openshift_version_or_index_path() {
    let err = csv_msg(&format!(
        "csv.Annotations not specified olm.maxOpenShiftVersion for an OCP version < 4.9. This annotation is required to \
         prevent the user from upgrading their OCP cluster before they have installed a version of their operator which \
         is compatible with 4.9. This bundle is {REMOVED_1_22} which are no longer supported on 4.9. Migrate the \
         API(s) for {CRD_1_22} or use the annotation"
    ));
    let index = csv_msg(&format!(
        "please, inform the path of its index image file via the the optional key values and the key index-path to \
         allow this validator check the labels configuration or migrate the API(s) for {CRD_1_22}. (e.g. \
         index-path=./mypath/bundle.Dockerfile). This bundle is {REMOVED_1_22} "
    ));
    // Upstream reports its errors again as warnings when index-path is missing.
    assert_eq!(
        community_findings(None, None),
        [format!("Warning: {err}"), format!("Warning: {index}"), format!("Error: {err}")]
    );
}

#[test]
fn community_max_openshift_version_rules() {
    let cases: &[(&str, &str)] = &[
        (
            r#"[{"type": "olm.maxOpenShiftVersion", "value": "4.9"}]"#,
            &format!(
                "Error: {}",
                csv_msg(&format!(
                    "csv.Annotations.olm.properties with the key and value for olm.maxOpenShiftVersion has the OCP \
                     version value 4.9 which is >= of 4.9. This bundle is {REMOVED_1_22}. Migrate the API(s) for \
                     {CRD_1_22} or inform in this property an OCP version which is < 4.9"
                ))
            ),
        ),
        (
            r#"[{"type": "olm.maxOpenShiftVersion", "value": "4.8.1"}]"#,
            &format!(
                "Warning: {}",
                csv_msg(
                    "csv.Annotations.olm.properties has an invalid value. olm.maxOpenShiftVersion must specify only \
                     major.minor versions, 4.8.1 will be truncated to 4.8.0"
                )
            ),
        ),
        (
            r#"[{"type": "olm.maxOpenShiftVersion", "value": "four"}]"#,
            &format!(
                "Error: {}",
                csv_msg(
                    "csv.Annotations.olm.properties has an invalid value.Unable to parse (four) using semver : Invalid \
                     character(s) found in major number \"0four\""
                )
            ),
        ),
        (
            r#"[{"type": "olm.invalid", "value": "4.8"}]"#,
            &format!(
                "Error: {}",
                csv_msg(&format!(
                    "csv.Annotations.olm.properties with the key `olm.maxOpenShiftVersion` and a value with an OCP \
                     version which is < 4.9 is required for any operator bundle that is {REMOVED_1_22}. Migrate the \
                     API(s) for {CRD_1_22} or use the annotation"
                ))
            ),
        ),
        (
            r#"[{"type": "olm.maxOpenShiftVersion", "value": 4.8}]"#,
            &format!(
                "Error: {}",
                csv_msg(
                    "csv.Annotations has an invalid value specified for olm.properties. Please, check the value  \
                     ([{\"type\": \"olm.maxOpenShiftVersion\", \"value\": 4.8}]) and ensure that it is an array such \
                     as: \"olm.properties\": '[{\"type\": \"key name\", \"value\": \"key value\"}]'"
                )
            ),
        ),
    ];
    let label = "LABEL com.redhat.openshift.versions=\"v4.6-v4.8\"";
    for (props, want) in cases {
        assert_eq!(community_findings(Some(props), dockerfile(label)), [want.to_string()], "{props}");
    }
}

#[test]
fn community_index_path_rules() {
    let use_annotation = "by using the com.redhat.openshift.versions annotation in `metadata/annotations.yaml` to \
         ensure that the index image will be generated with its label. (e.g. LABEL \
         com.redhat.openshift.versions='4.6-4.8')";
    let cases: Vec<(Option<IndexFile>, String)> = vec![
        (
            dockerfile("LABEL com.redhat.openshift.versions=\"v4.6\""),
            format!(
                "this bundle is {REMOVED_1_22} The v4.6 allows to distribute it on >= 4.9. Migrate the API(s) for \
                 {CRD_1_22} or provide compatible version(s) {use_annotation}"
            ),
        ),
        (
            dockerfile("LABEL com.redhat.openshift.versions=\"v4.6-v4.9\""),
            format!(
                "this bundle is {REMOVED_1_22}. Upgrade the APIs from for {CRD_1_22} or provide compatible \
                 distribution version(s) {use_annotation}"
            ),
        ),
        (
            dockerfile("LABEL com.redhat.openshift.versions=\"=v4.8\""),
            "unable to get the range informed on com.redhat.openshift.versions".into(),
        ),
        (
            dockerfile("LABEL com.redhat.openshift.versions v4.6-v4.8"),
            "invalid syntax (LABEL com.redhat.openshift.versions v4.6-v4.8) for (com.redhat.openshift.versions)".into(),
        ),
        (
            dockerfile("LABEL other=1"),
            format!(
                "this bundle is {REMOVED_1_22}. Migrate the APIs for {CRD_1_22} or provide compatible version(s) via \
                 the labels. (e.g. LABEL com.redhat.openshift.versions='4.6-4.8')"
            ),
        ),
        (
            Some(IndexFile::NotFound { path: "./nope".into(), error: "stat ./nope: no such file or directory".into() }),
            "the index image in the path (./nope) was not found. Please, inform the path of the bundle operator index \
             image via the the optional key values and the key index-path. (e.g. \
             index-path=./mypath/bundle.Dockerfile). Error : stat ./nope: no such file or directory"
                .into(),
        ),
        (
            Some(IndexFile::Directory { path: "bundle".into() }),
            "the index image in the path (bundle) is not file. Please, inform the path of its index image via the the \
             optional key values and the key index-path. (e.g. index-path=./mypath/bundle.Dockerfile). The value \
             informed is a diretory and not a file"
                .into(),
        ),
    ];
    for (index, want) in cases {
        assert_eq!(community_findings(Some(MAX_48), index), [format!("Error: {}", csv_msg(&want))]);
    }
}

#[test]
fn image_references() {
    assert!(check_image("quay.io/example/memcached-operator:v0.0.1").is_ok());
    assert!(check_image("memcached:1.6").is_ok());
    assert!(
        check_image("localhost:5000/a/b@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
            .is_ok()
    );
    assert!(check_image("Quay.io/UPPER/Case:x").is_err());
    assert!(check_image("bad image").is_err());
}

#[test]
fn label_value_names() {
    assert!(csv::name_problems("memcached-operator.v0.1.0").is_empty());
    assert_eq!(csv::name_problems("Bad_Name").len(), 1);
    assert_eq!(csv::name_problems(&"a".repeat(64)).len(), 1);
}
