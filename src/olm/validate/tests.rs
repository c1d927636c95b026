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
    Fixture { csv, crd, annotations, extra: Vec::new(), drop: Vec::new(), dirs: Vec::new() }
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
        let all = Suites { operatorhub: true, good_practices: true, deprecated_apis: true, k8s_version: None };
        validate(&self.files(), &all)
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

macro_rules! rule {
    ($name:ident, $level:ident, $want:expr, |$f:ident| $body:expr) => {
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
rule!(csv_invalid_name, Error, "metadata.name \"Foo_Operator.v0.1.0\" is invalid", |f| f.csv["metadata"]["name"] =
    json!("Foo_Operator.v0.1.0"));
rule!(csv_invalid_replaces, Error, "spec.replaces \"Foo.v0\" is invalid", |f| f.csv["spec"]["replaces"] =
    json!("Foo.v0"));
rule!(csv_no_annotations, Warning, "annotations not found", |f| f.csv["metadata"]
    .as_object_mut()
    .unwrap()
    .remove("annotations"));
rule!(csv_no_examples, Warning, "example annotations not found", |f| f.csv["metadata"]["annotations"]
    .as_object_mut()
    .unwrap()
    .remove("alm-examples"));
rule!(
    csv_both_examples,
    Warning,
    "both `alm-examples` and `olm.examples` are present",
    |f| f.csv["metadata"]["annotations"]["olm.examples"] = json!("[]")
);
rule!(csv_invalid_example_json, Error, "invalid example", |f| f.csv["metadata"]["annotations"]["alm-examples"] =
    json!("[{"));
rule!(
    csv_example_not_a_list,
    Error,
    "error decoding example CustomResource",
    |f| f.csv["metadata"]["annotations"]["alm-examples"] = json!("{}")
);
rule!(csv_example_not_provided, Error, "Value example.com/v2, Kind=Foo: example must have a provided API", |f| f.csv
    ["metadata"]["annotations"]["alm-examples"] = json!(
    "[{\"apiVersion\": \"example.com/v1\", \"kind\": \"Foo\"}, {\"apiVersion\": \"example.com/v2\", \"kind\": \"Foo\"}]"
));
rule!(
    csv_api_without_example,
    Warning,
    "provided API should have an example annotation",
    |f| f.csv["metadata"]["annotations"]["alm-examples"] = json!("[]")
);
rule!(
    csv_owned_name_without_dot,
    Error,
    "couldn't parse plural.group from crd name: foos",
    |f| f.csv["spec"]["customresourcedefinitions"]["owned"][0]["name"] = json!("foos")
);
rule!(csv_no_install_modes, Error, "install modes not found", |f| f.csv["spec"]["installModes"] = json!([]));
rule!(
    csv_no_supported_install_mode,
    Error,
    "none of InstallModeTypes are supported",
    |f| f.csv["spec"]["installModes"][3]["supported"] = json!(false)
);
rule!(
    csv_conversion_needs_all_namespaces,
    Error,
    "only AllNamespaces InstallModeType is supported when conversionCRDs",
    |f| {
        f.csv["spec"]["installModes"][0]["supported"] = json!(true);
        f.csv["spec"]["webhookdefinitions"] = json!([{"type": "ConversionWebhook", "generateName": "cfoos.kb.io",
        "admissionReviewVersions": ["v1"], "sideEffects": "None", "conversionCRDs": ["foos.example.com"]}]);
    }
);
rule!(csv_no_min_kube_version, Warning, "csv.Spec.minKubeVersion is not informed", |f| f.csv["spec"]
    .as_object_mut()
    .unwrap()
    .remove("minKubeVersion"));
rule!(
    csv_invalid_min_kube_version,
    Error,
    "csv.Spec.MinKubeVersion has an invalid value: 1.33",
    |f| f.csv["spec"]["minKubeVersion"] = json!("1.33")
);
rule!(csv_no_display_name, Error, "Field Spec.DisplayName, Value field: required field missing", |f| f.csv["spec"]
    .as_object_mut()
    .unwrap()
    .remove("displayName"));
rule!(csv_empty_strategy, Error, "Spec.InstallStrategy.StrategyName, Value field: required field missing", |f| f.csv
    ["spec"]["install"]["strategy"] =
    json!(""));
rule!(csv_no_install, Error, "Field Spec.InstallStrategy, Value field: required field missing", |f| f.csv["spec"]
    .as_object_mut()
    .unwrap()
    .remove("install"));
rule!(
    csv_no_deployments,
    Error,
    "StrategySpec.DeploymentSpecs, Value field: required field missing",
    |f| f.csv["spec"]["install"]["spec"]["deployments"] = json!([])
);
rule!(
    csv_annotation_case,
    Error,
    "provided annotation olm.skiprange uses wrong case and should be olm.skipRange",
    |f| f.csv["metadata"]["annotations"]["olm.skiprange"] = json!(">=0.0.1 <0.1.0")
);
rule!(
    csv_olm_properties,
    Warning,
    "found olm.properties annotation",
    |f| f.csv["metadata"]["annotations"]["olm.properties"] = json!("[]")
);
rule!(
    csv_invalid_skip_range,
    Error,
    "invalid olm.skipRange \">=banana\"",
    |f| f.csv["metadata"]["annotations"]["olm.skipRange"] = json!(">=banana")
);
rule!(csv_api_version_missing, Error, "'apiVersion' is missing", |f| f.csv["apiVersion"] = json!(""));
rule!(csv_kind_in_file_required, Error, "unable to find a csv", |f| f.csv["kind"] = json!("Other"));

// ---- CSV schema
rule!(
    schema_type_mismatch,
    Error,
    "does not match OLM's ClusterServiceVersion schema: spec.installModes[0].supported: Invalid value",
    |f| f.csv["spec"]["installModes"][0]["supported"] = json!("no")
);
rule!(schema_required, Error, "spec.customresourcedefinitions.owned[0].version: Required value", |f| {
    f.csv["spec"]["customresourcedefinitions"]["owned"][0].as_object_mut().unwrap().remove("version")
});
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
rule!(bundle_duplicate_crd, Error, "duplicate CRD \"example.com/v1, Kind=Foo\" in bundle", |f| {
    let crd = crate::yaml::to_string(&f.crd);
    f.extra.push(("manifests/copy.yaml".into(), crd));
});
rule!(
    bundle_owned_crd_missing,
    Error,
    "owned CRD \"example.com/v1, Kind=Foo\" not found in bundle \"foo-operator.v0.1.0\"",
    |f| f.drop.push("manifests/example.com_foos.yaml".into())
);
rule!(
    bundle_crd_not_in_csv,
    Error,
    "CRD \"example.com/v1, Kind=Bar\" is present in bundle \"foo-operator.v0.1.0\" but not defined in CSV",
    |f| {
        let mut bar = f.crd.clone();
        bar["metadata"]["name"] = json!("bars.example.com");
        bar["spec"]["names"] = json!({"kind": "Bar", "listKind": "BarList", "plural": "bars", "singular": "bar"});
        f.extra.push(("manifests/bar.yaml".into(), crate::yaml::to_string(&bar)));
    }
);
rule!(bundle_service_account_clash, Error, "This service account foo-operator in your bundle is not valid", |f| f
    .extra
    .push((
        "manifests/sa.yaml".into(),
        "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: foo-operator\n".into()
    )));
rule!(bundle_too_big, Error, "maximum bundle compressed size with gzip size exceeded", |f| f
    .extra
    .push(("manifests/big.yaml".into(), noise_config_map(1_500_000))));
rule!(bundle_nearly_too_big, Warning, "nearing maximum bundle compressed size with gzip", |f| f
    .extra
    .push(("manifests/big.yaml".into(), noise_config_map(1_200_000))));
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
rule!(crd_name_mismatch, Error, "must be spec.names.plural+\".\"+spec.group", |f| f.crd["spec"]["names"]["plural"] =
    json!("foozes"));
rule!(crd_group_without_dot, Error, "should be a domain with at least one dot", |f| {
    f.crd["spec"]["group"] = json!("example");
    f.crd["metadata"]["name"] = json!("foos.example");
});
rule!(crd_scope, Error, "spec.scope: Unsupported value: \"Global\"", |f| f.crd["spec"]["scope"] = json!("Global"));
rule!(crd_plural_label, Error, "spec.names.plural: Invalid value: \"Foos\"", |f| f.crd["spec"]["names"]["plural"] =
    json!("Foos"));
rule!(
    crd_kind_equals_list_kind,
    Error,
    "kind and listKind may not be the same",
    |f| f.crd["spec"]["names"]["listKind"] = json!("Foo")
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
    "must have exactly one version marked as storage version",
    |f| f.crd["spec"]["versions"][0]["storage"] = json!(false)
);
rule!(crd_conversion_client_config, Error, "spec.conversion.webhook.clientConfig: Required value", |f| f.crd["spec"]
    ["conversion"] =
    json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"]}}));
rule!(
    crd_conversion_review_versions,
    Error,
    "must include at least one of v1, v1beta1",
    |f| f.crd["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {"clientConfig": {"url": "https://x"}, "conversionReviewVersions": ["v2"]}})
);
rule!(
    crd_conversion_strategy,
    Error,
    "spec.conversion.strategy: Unsupported value: \"Magic\"",
    |f| f.crd["spec"]["conversion"] = json!({"strategy": "Magic"})
);

// ---- operatorhub
rule!(hub_provider, Error, "csv.Spec.Provider.Name not specified", |f| f.csv["spec"]["provider"] = json!({}));
rule!(
    hub_maintainer_fields,
    Error,
    "csv.Spec.Maintainers elements should contain both name and email",
    |f| f.csv["spec"]["maintainers"] = json!([{"name": "Ann"}])
);
rule!(
    hub_maintainer_email,
    Error,
    "csv.Spec.Maintainers email ann-at-example is invalid",
    |f| f.csv["spec"]["maintainers"] = json!([{"name": "Ann", "email": "ann-at-example"}])
);
rule!(hub_link_fields, Error, "csv.Spec.Links elements should contain both name and url", |f| f.csv["spec"]["links"] =
    json!([{"name": "Docs"}]));
rule!(hub_link_url, Error, "csv.Spec.Links url not a url is invalid", |f| f.csv["spec"]["links"] =
    json!([{"name": "Docs", "url": "not a url"}]));
rule!(hub_version, Error, "csv.Spec.Version must be set", |f| f.csv["spec"]["version"] = json!(""));
rule!(hub_icon_missing, Warning, "csv.Spec.Icon not specified", |f| f.csv["spec"]
    .as_object_mut()
    .unwrap()
    .remove("icon"));
rule!(hub_icon_count, Error, "csv.Spec.Icon should only have one element", |f| {
    let icon = f.csv["spec"]["icon"][0].clone();
    f.csv["spec"]["icon"] = json!([icon.clone(), icon]);
});
rule!(
    hub_icon_fields,
    Error,
    "csv.Spec.Icon elements should contain both data and mediatype",
    |f| f.csv["spec"]["icon"] = json!([{"base64data": "", "mediatype": ""}])
);
rule!(hub_icon_mediatype, Error, "csv.Spec.Icon image/bmp does not have a valid mediatype", |f| f.csv["spec"]["icon"]
    [0]["mediatype"] =
    json!("image/bmp"));
rule!(
    hub_capabilities,
    Error,
    "csv.Metadata.Annotations.Capabilities \"Magic\" is not a valid capabilities level",
    |f| f.csv["metadata"]["annotations"]["capabilities"] = json!("Magic")
);
rule!(
    hub_categories,
    Error,
    "value \"Toys\" is not in the set of standard categories",
    |f| f.csv["metadata"]["annotations"]["categories"] = json!("Database, Toys")
);

// ---- good practices
rule!(
    good_no_deployment,
    Error,
    "unable to find a deployment to install in the CSV",
    |f| f.csv["spec"]["install"]["spec"]["deployments"] = json!([])
);
rule!(good_resource_requests, Warning, "unable to find the resource requests for the container: (manager)", |f| f
    .csv["spec"]["install"]["spec"]["deployments"][0]["spec"]["template"]["spec"]["containers"][0]["resources"] =
    json!({}));
rule!(
    good_crd_description,
    Warning,
    "owned CRD \"foos.example.com\" has an empty description",
    |f| f.csv["spec"]["customresourcedefinitions"]["owned"][0]["description"] = json!("")
);
rule!(good_channel_naming, Warning, "channel(s) [alpha] are not following the recommended naming convention", |f| f
    .annotations[olm_bundle::CHANNELS] =
    json!("alpha"));
rule!(
    good_crd_create_permission,
    Warning,
    "CSV contains permissions to create CRD",
    |f| f.csv["spec"]["install"]["spec"]["clusterPermissions"][0]["rules"] = json!([{"apiGroups": ["apiextensions.k8s.io"], "resources": ["customresourcedefinitions"], "verbs": ["create"]}])
);
rule!(
    good_name_convention,
    Warning,
    "is not following the recommended naming convention",
    |f| f.csv["metadata"]["name"] = json!("foo-operator")
);
rule!(good_version_convention, Warning, "is not following the versioning convention", |f| f.csv["metadata"]["name"] =
    json!("foo-operator.vlatest"));

// ---- deprecated APIs
rule!(deprecated_api_error_at_min_kube_version, Error, "deprecated and removed in v1.22", |f| {
    f.csv["spec"]["minKubeVersion"] = json!("1.25.0");
    f.crd["apiVersion"] = json!("apiextensions.k8s.io/v1beta1");
});
rule!(deprecated_api_warning_before_removal, Warning, "Migrate the API(s) for PodDisruptionBudget: (\"pdb\")", |f| {
    f.csv["spec"]["minKubeVersion"] = json!("1.20.0");
    f.extra.push((
        "manifests/pdb.yaml".into(),
        "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: pdb\n".into(),
    ));
});

#[test]
fn deprecated_api_k8s_version_option() {
    let mut f = fixture();
    f.extra.push((
        "manifests/pdb.yaml".into(),
        "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: pdb\n".into(),
    ));
    let suites = |v: &str| Suites { deprecated_apis: true, k8s_version: Some(v.into()), ..Default::default() };
    let found = validate(&f.files(), &suites("1.25"));
    assert!(found.iter().any(|x| x.level == Level::Error && x.message.contains("removed in v1.25")), "{found:?}");
    let found = validate(&f.files(), &suites("banana"));
    assert!(found.iter().any(|x| x.message == "invalid value informed via the k8s key option : banana"), "{found:?}");
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
