//! Tests for webhook generation: controller-tools and kubebuilder golden files, normalisations and errors.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{WebhookError, WebhookKind, generate};
use crate::markers::{Marker, scan};

fn fixture_dir(case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/webhook").join(case)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The markers of every `.rs` file of a fixture folder, files in name order.
fn markers_of(case: &str) -> Vec<Marker> {
    let dir = fixture_dir(case);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no markers in {}", dir.display());
    files.iter().flat_map(|f| scan(f, &read(f)).unwrap_or_else(|e| panic!("{e}"))).collect()
}

fn golden(case: &str) -> Vec<Value> {
    let text = read(&fixture_dir(case).join("manifests.yaml"));
    crate::yaml::from_multi_doc_str(&text).expect("golden YAML parses")
}

fn assert_golden(case: &str) {
    let got = generate(&markers_of(case)).unwrap_or_else(|e| panic!("{case}: {e}"));
    let want = golden(case);
    assert_eq!(
        got,
        want,
        "{case}\ngot:\n{}\nwant:\n{}",
        crate::yaml::to_multi_doc_string(&got),
        crate::yaml::to_multi_doc_string(&want)
    );
}

fn generate_err(case: &str) -> WebhookError {
    match generate(&markers_of(case)) {
        Ok(objs) => panic!("{case}: expected an error, got {objs:#?}"),
        Err(e) => e,
    }
}

const SRC: &str = "src/webhooks.rs";

fn markers(text: &str) -> Vec<Marker> {
    scan(Path::new(SRC), text).unwrap_or_else(|e| panic!("{e}"))
}

/// A validating marker with every required argument, plus `extra` (`,k=v...`).
fn validating(extra: &str) -> String {
    format!(
        "// +kubebuilder:webhook:path=/validate-x,mutating=false,failurePolicy=fail,sideEffects=None,groups=g.io,resources=things,verbs=create,versions=v1,name=vthing.kb.io,admissionReviewVersions=v1{extra}\n"
    )
}

/// A mutating marker with every required argument, plus `extra`.
fn mutating(extra: &str) -> String {
    format!(
        "// +kubebuilder:webhook:path=/mutate-x,mutating=true,failurePolicy=fail,sideEffects=None,groups=g.io,resources=things,verbs=create,versions=v1,name=mthing.kb.io,admissionReviewVersions=v1{extra}\n"
    )
}

/// The single webhook entry generated from `text`.
fn one(text: &str) -> Value {
    let objs = generate(&markers(text)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(objs.len(), 1, "{objs:#?}");
    let hooks = objs[0]["webhooks"].as_array().expect("webhooks").clone();
    assert_eq!(hooks.len(), 1, "{hooks:#?}");
    hooks[0].clone()
}

fn err(text: &str) -> WebhookError {
    match generate(&markers(text)) {
        Ok(objs) => panic!("expected an error, got {objs:#?}"),
        Err(e) => e,
    }
}

// ---- Golden files ----

#[test]
fn controller_tools_valid_fixtures_match_golden() {
    for case in [
        "valid",
        "root",
        "valid-custom-name",
        "valid-url",
        "valid-custom-service",
        "valid-namespaceselector",
        "valid-objectselector",
        "valid-ordered",
        "valid-selectors-matchexpressions",
        "valid-crosspkg-stable",
        "valid-patch-removal",
    ] {
        assert_golden(&format!("controller-tools/{case}"));
    }
}

#[test]
fn kubebuilder_projects_match_golden() {
    for project in [
        "project-v4",
        "project-v4-multigroup",
        "project-v4-with-plugins",
        "book-cronjob-tutorial",
        "book-multiversion-tutorial",
    ] {
        assert_golden(&format!("kubebuilder/{project}"));
    }
}

/// kubebuilder's manifests.yaml are byte-exact controller-gen output: rendering ours with the project's
/// YAML emitter gives the same bytes, except that `crate::yaml` writes the empty string (the core API
/// group) as `''` where controller-gen (yaml.v2) writes `""`; both parse to the same value.
#[test]
fn kubebuilder_projects_render_byte_for_byte() {
    for project in [
        "project-v4",
        "project-v4-multigroup",
        "project-v4-with-plugins",
        "book-cronjob-tutorial",
        "book-multiversion-tutorial",
    ] {
        let case = format!("kubebuilder/{project}");
        let got = generate(&markers_of(&case)).unwrap_or_else(|e| panic!("{e}"));
        let rendered = crate::yaml::to_multi_doc_string(&got);
        let want = read(&fixture_dir(&case).join("manifests.yaml"));
        assert_eq!(rendered.replace("- ''\n", "- \"\"\n"), want, "{project}");
    }
}

#[test]
fn crosspkg_order_is_stable_by_name() {
    let got = generate(&markers_of("controller-tools/valid-crosspkg-stable")).expect("ok");
    let names: Vec<&str> =
        got[0]["webhooks"].as_array().expect("webhooks").iter().map(|w| w["name"].as_str().expect("name")).collect();
    assert_eq!(names, ["a.cronjob.testdata.kubebuilder.io", "validation.cronjob.testdata.kubebuilder.io"]);
}

#[test]
fn same_name_webhooks_keep_source_order() {
    // controller-tools `valid`: the two validating webhooks share a name; the `None` one comes first.
    let got = generate(&markers_of("controller-tools/valid")).expect("ok");
    let effects: Vec<&str> = got[1]["webhooks"]
        .as_array()
        .expect("webhooks")
        .iter()
        .map(|w| w["sideEffects"].as_str().expect("sideEffects"))
        .collect();
    assert_eq!(effects, ["None", "NoneOnDryRun"]);
}

// ---- Invalid controller-tools fixtures ----

#[test]
fn invalid_v1beta1_not_supported() {
    let e = generate_err("controller-tools/invalid-v1beta1NotSupported");
    assert!(matches!(&e, WebhookError::UnsupportedWebhookVersion { version, .. } if version == "v1beta1"), "{e:?}");
    assert!(e.to_string().contains("markers.rs:3: unsupported webhook version: v1beta1"), "{e}");
}

#[test]
fn invalid_side_effects() {
    let e = generate_err("controller-tools/invalid-sideEffects");
    assert!(matches!(&e, WebhookError::SideEffectsSomeOrUnknown { value, .. } if value == "Some"), "{e:?}");
    let text = e.to_string();
    assert!(
        text.contains("markers.rs:3: SideEffects should not be set to `Some` or `Unknown` for v1 {Mutating,Validating}WebhookConfiguration"),
        "{text}"
    );
    assert!(text.contains("sideEffects=None"), "{text}");
}

#[test]
fn invalid_timeout_seconds() {
    // Like controller-gen, the mutating webhooks are checked first: the `-1` on line 5.
    let e = generate_err("controller-tools/invalid-timeoutSeconds");
    assert!(matches!(&e, WebhookError::TimeoutSeconds { value, .. } if value == "-1"), "{e:?}");
    assert!(e.to_string().contains("markers.rs:5: TimeoutSeconds must be between 1 and 30 seconds"), "{e}");
}

#[test]
fn invalid_admission_review_versions_required() {
    let case = "controller-tools/invalid-admissionReviewVersionsRequired";
    let path = fixture_dir(case).join("markers.rs");
    let text = read(&path);
    // The scanner already rejects the marker (controller-gen: `missing argument "admissionReviewVersions"`).
    let scan_err = scan(&path, &text).expect_err("scan rejects the marker");
    assert_eq!(scan_err.diagnostics.len(), 1);
    assert_eq!(scan_err.diagnostics[0].line, 3);
    assert!(
        scan_err.diagnostics[0].message.contains("missing required argument `admissionReviewVersions`"),
        "{scan_err}"
    );
    // A marker built without the scanner gets the generator's own check.
    let patched = text.replace("timeoutSeconds=10\n", "timeoutSeconds=10,admissionReviewVersions={}\n");
    let ms = scan(&path, &patched).unwrap_or_else(|e| panic!("{e}"));
    let e = generate(&ms).expect_err("empty admissionReviewVersions");
    assert!(
        matches!(&e, WebhookError::AdmissionReviewVersionsRequired { location } if location.ends_with("markers.rs:3")),
        "{e:?}"
    );
    assert!(
        e.to_string().contains("AdmissionReviewVersions is mandatory for v1 {Mutating,Validating}WebhookConfiguration"),
        "{e}"
    );
    let mut ms = ms;
    ms[0].args.remove("admissionReviewVersions");
    assert!(matches!(generate(&ms), Err(WebhookError::AdmissionReviewVersionsRequired { .. })));
}

#[test]
fn invalid_multiple_webhookconfigurations() {
    let e = generate_err("controller-tools/invalid-multiple-webhookconfigurations");
    assert!(
        matches!(&e, WebhookError::DuplicateConfiguration { kind: WebhookKind::Mutating, name, first_name, .. } if name == "bar" && first_name == "foo"),
        "{e:?}"
    );
    let text = e.to_string();
    assert!(text.contains("markers.rs:7: duplicate mutating kubebuilder:webhookconfiguration with name bar"), "{text}");
    assert!(text.contains("markers.rs:6"), "{text}");
}

#[test]
fn invalid_path_and_url() {
    let e = generate_err("controller-tools/invalid-path-and-url");
    assert!(matches!(e, WebhookError::UrlOrPath { both: true, .. }), "{e:?}");
    assert!(
        e.to_string().contains("`url` or `path` markers are required and mutually exclusive (both are set)"),
        "{e}"
    );
}

// ---- Normalisations ----

#[test]
fn failure_policy_is_case_insensitive_and_passes_unknown_through() {
    for (raw, want) in
        [("fail", "Fail"), ("FAIL", "Fail"), ("Ignore", "Ignore"), ("ignore", "Ignore"), ("Sometimes", "Sometimes")]
    {
        let w = one(&validating("").replace("failurePolicy=fail", &format!("failurePolicy={raw}")));
        assert_eq!(w["failurePolicy"], want, "{raw}");
    }
}

#[test]
fn match_policy_normalised_or_omitted() {
    assert_eq!(one(&validating(",matchPolicy=exact"))["matchPolicy"], "Exact");
    assert_eq!(one(&validating(",matchPolicy=EQUIVALENT"))["matchPolicy"], "Equivalent");
    assert!(one(&validating("")).get("matchPolicy").is_none());
}

#[test]
fn match_policy_unknown_is_an_error() {
    let e = err(&validating(",matchPolicy=Fuzzy"));
    assert!(matches!(&e, WebhookError::UnknownMatchPolicy { value, .. } if value == "Fuzzy"), "{e:?}");
    assert!(e.to_string().starts_with("src/webhooks.rs:1: unknown value \"Fuzzy\" for matchPolicy;"), "{e}");
}

#[test]
fn side_effects_normalised() {
    let w = one(&validating("").replace("sideEffects=None", "sideEffects=noneondryrun"));
    assert_eq!(w["sideEffects"], "NoneOnDryRun");
    let w = one(&validating("").replace("sideEffects=None", "sideEffects=NONE"));
    assert_eq!(w["sideEffects"], "None");
}

#[test]
fn side_effects_missing_or_unknown_is_required() {
    let e = err(&validating("").replace(",sideEffects=None", ""));
    assert!(matches!(e, WebhookError::SideEffectsRequired { given: None, .. }), "{e:?}");
    assert!(
        e.to_string().contains(
            "SideEffects is required for creating v1 {Mutating,Validating}WebhookConfiguration; add `sideEffects=None`"
        ),
        "{e}"
    );
    // controller-gen does not map `Unknown` (nor typos) and reports them as missing.
    for raw in ["Unknown", "nope"] {
        let e = err(&validating("").replace("sideEffects=None", &format!("sideEffects={raw}")));
        assert!(matches!(&e, WebhookError::SideEffectsRequired { given: Some(g), .. } if g == raw), "{e:?}");
        assert!(e.to_string().contains(&format!("`{raw}` is not one of")), "{e}");
    }
    let e = err(&mutating("").replace("sideEffects=None", "sideEffects=some"));
    assert!(matches!(e, WebhookError::SideEffectsSomeOrUnknown { .. }), "{e:?}");
}

#[test]
fn verbs_upper_cased_in_order_unknown_passed_through() {
    let w = one(&validating("").replace("verbs=create", "verbs=Update;create;DELETE;connect;*;patch"));
    assert_eq!(w["rules"][0]["operations"], json!(["UPDATE", "CREATE", "DELETE", "CONNECT", "*", "patch"]));
}

#[test]
fn core_group_becomes_empty() {
    let w = one(&validating("").replace("groups=g.io", "groups=core;apps;\"\""));
    assert_eq!(w["rules"][0]["apiGroups"], json!(["", "apps", ""]));
}

#[test]
fn rule_lists_keep_marker_order() {
    let w =
        one(&validating("").replace("resources=things", "resources=b;a").replace("versions=v1,", "versions=v2;v1,"));
    assert_eq!(
        w["rules"],
        json!([{
            "apiGroups": ["g.io"],
            "apiVersions": ["v2", "v1"],
            "operations": ["CREATE"],
            "resources": ["b", "a"],
        }])
    );
}

#[test]
fn timeout_seconds_bounds() {
    assert!(one(&validating(",timeoutSeconds=0")).get("timeoutSeconds").is_none());
    assert!(one(&validating("")).get("timeoutSeconds").is_none());
    assert_eq!(one(&validating(",timeoutSeconds=1"))["timeoutSeconds"], 1);
    assert_eq!(one(&validating(",timeoutSeconds=30"))["timeoutSeconds"], 30);
    for bad in ["31", "-1", "99999999999"] {
        let e = err(&validating(&format!(",timeoutSeconds={bad}")));
        assert!(matches!(&e, WebhookError::TimeoutSeconds { value, .. } if value == bad), "{e:?}");
        assert!(e.to_string().contains(&format!("TimeoutSeconds must be between 1 and 30 seconds (got {bad})")), "{e}");
    }
}

#[test]
fn reinvocation_policy_mutating_only() {
    assert_eq!(one(&mutating(",reinvocationPolicy=ifneeded"))["reinvocationPolicy"], "IfNeeded");
    assert_eq!(one(&mutating(",reinvocationPolicy=Never"))["reinvocationPolicy"], "Never");
    assert!(one(&mutating(",reinvocationPolicy=Sometimes")).get("reinvocationPolicy").is_none());
    assert!(one(&validating(",reinvocationPolicy=IfNeeded")).get("reinvocationPolicy").is_none());
}

#[test]
fn admission_review_versions_kept_in_order() {
    let w = one(&validating("").replace("admissionReviewVersions=v1", "admissionReviewVersions=v1beta1;v1"));
    assert_eq!(w["admissionReviewVersions"], json!(["v1beta1", "v1"]));
}

#[test]
fn webhook_versions_only_v1() {
    assert!(generate(&markers(&validating(",webhookVersions=v1"))).is_ok());
    let e = err(&validating(",webhookVersions=v1;v1beta1"));
    assert!(matches!(&e, WebhookError::UnsupportedWebhookVersion { version, .. } if version == "v1beta1"), "{e:?}");
}

// ---- clientConfig ----

#[test]
fn client_config_service_defaults() {
    let w = one(&validating(""));
    assert_eq!(
        w["clientConfig"],
        json!({"service": {"name": "webhook-service", "namespace": "system", "path": "/validate-x"}})
    );
}

#[test]
fn client_config_service_overrides() {
    let w = one(&validating(",serviceName=hooks,serviceNamespace=ops,servicePort=8443"));
    assert_eq!(
        w["clientConfig"],
        json!({"service": {"name": "hooks", "namespace": "ops", "path": "/validate-x", "port": 8443}})
    );
    for bad in ["0", "65536"] {
        let e = err(&validating(&format!(",servicePort={bad}")));
        assert!(matches!(e, WebhookError::InvalidServicePort { .. }), "{e:?}");
    }
}

#[test]
fn client_config_url() {
    let text = validating("").replace("path=/validate-x", "url=\"https://hooks.example.com:9443/validate\"");
    assert_eq!(one(&text)["clientConfig"], json!({"url": "https://hooks.example.com:9443/validate"}));
}

#[test]
fn client_config_needs_exactly_one_of_path_and_url() {
    let e = err(&validating("").replace("path=/validate-x,", ""));
    assert!(matches!(e, WebhookError::UrlOrPath { both: false, .. }), "{e:?}");
    assert!(e.to_string().contains("(neither is set)"), "{e}");
    let e = err(&validating(",url=\"https://x:1/y\""));
    assert!(matches!(e, WebhookError::UrlOrPath { both: true, .. }), "{e:?}");
}

// ---- patch= ----

#[test]
fn patch_adds_selectors_and_match_conditions() {
    let w = one(&validating(
        r#",patch=`{"namespaceSelector":{"matchLabels":{"a":"b"}},"matchConditions":[{"name":"not-system","expression":"true"}]}`"#,
    ));
    assert_eq!(w["namespaceSelector"], json!({"matchLabels": {"a": "b"}}));
    assert_eq!(w["matchConditions"], json!([{"name": "not-system", "expression": "true"}]));
}

#[test]
fn patch_merges_objects_and_replaces_lists() {
    let w = one(&validating(
        r#",patch=`{"clientConfig":{"service":{"port":8443}},"rules":[{"apiGroups":["*"],"apiVersions":["*"],"operations":["*"],"resources":["*"]}]}`"#,
    ));
    assert_eq!(
        w["clientConfig"],
        json!({"service": {"name": "webhook-service", "namespace": "system", "path": "/validate-x", "port": 8443}})
    );
    assert_eq!(w["rules"][0]["resources"], json!(["*"]));
    assert_eq!(w["rules"].as_array().map(Vec::len), Some(1));
}

#[test]
fn patch_replace_directive() {
    let w = one(&validating(r#",patch=`{"clientConfig":{"$patch":"replace","url":"https://x:1/y"}}`"#));
    assert_eq!(w["clientConfig"], json!({"url": "https://x:1/y"}));
}

#[test]
fn patch_null_removes_and_the_v1_checks_run_after_it() {
    let e = err(&validating(r#",patch=`{"sideEffects":null}`"#));
    assert!(matches!(e, WebhookError::SideEffectsRequired { .. }), "{e:?}");
    let e = err(&validating(r#",patch=`{"timeoutSeconds":45}`"#));
    assert!(matches!(e, WebhookError::TimeoutSeconds { .. }), "{e:?}");
    let e = err(&validating(r#",patch=`{"admissionReviewVersions":[]}`"#));
    assert!(matches!(e, WebhookError::AdmissionReviewVersionsRequired { .. }), "{e:?}");
}

#[test]
fn patch_errors() {
    for (patch, needle) in [
        ("`{not json`", "not valid JSON"),
        ("`[1]`", "not a JSON object"),
        (r#"`{"namespaceSelektor":{}}`"#, "has no field `namespaceSelektor`"),
        (r#"`{"reinvocationPolicy":"Never"}`"#, "a validating webhook has no field `reinvocationPolicy`"),
        (r#"`{"$retainKeys":["name"]}`"#, "`$retainKeys` is not supported"),
        (r#"`{"$patch":"delete"}`"#, "would remove the whole webhook entry"),
        (r#"`{"clientConfig":{"$patch":"bogus"}}`"#, "unknown `$patch` value `bogus`"),
    ] {
        let e = err(&validating(&format!(",patch={patch}")));
        assert!(matches!(e, WebhookError::InvalidPatch { .. }), "{patch}: {e:?}");
        let text = e.to_string();
        assert!(text.starts_with("src/webhooks.rs:1: invalid patch: "), "{text}");
        assert!(text.contains(needle), "{patch}: {text}");
    }
    // reinvocationPolicy is a field of mutating webhooks.
    let w = one(&mutating(r#",patch=`{"reinvocationPolicy":"IfNeeded"}`"#));
    assert_eq!(w["reinvocationPolicy"], "IfNeeded");
}

#[test]
fn patch_rename_changes_the_order() {
    let text = format!(
        "{}{}",
        validating("").replace("name=vthing.kb.io", "name=a.kb.io"),
        validating(r#",patch=`{"name":"0.kb.io"}`"#).replace("name=vthing.kb.io", "name=b.kb.io")
    );
    let objs = generate(&markers(&text)).expect("ok");
    let names: Vec<&str> =
        objs[0]["webhooks"].as_array().expect("webhooks").iter().map(|w| w["name"].as_str().expect("name")).collect();
    assert_eq!(names, ["0.kb.io", "a.kb.io"]);
}

// ---- Configurations ----

#[test]
fn no_webhook_markers_no_objects() {
    let ms = markers(
        "// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get\n// +kubebuilder:webhookconfiguration:mutating=true,name=foo\n",
    );
    assert_eq!(generate(&ms).expect("ok"), Vec::<Value>::new());
}

#[test]
fn mutating_then_validating_with_default_names() {
    let text = format!("{}{}", validating(""), mutating(""));
    let objs = generate(&markers(&text)).expect("ok");
    assert_eq!(objs.len(), 2);
    assert_eq!(objs[0]["kind"], "MutatingWebhookConfiguration");
    assert_eq!(objs[0]["metadata"], json!({"name": "mutating-webhook-configuration"}));
    assert_eq!(objs[0]["apiVersion"], "admissionregistration.k8s.io/v1");
    assert_eq!(objs[1]["kind"], "ValidatingWebhookConfiguration");
    assert_eq!(objs[1]["metadata"], json!({"name": "validating-webhook-configuration"}));
}

#[test]
fn rename_only_applies_to_its_kind() {
    let text = format!(
        "{}// +kubebuilder:webhookconfiguration:mutating=false,name=checks\n// +kubebuilder:webhookconfiguration:mutating=true,name=unused\n",
        validating("")
    );
    let objs = generate(&markers(&text)).expect("ok");
    assert_eq!(objs.len(), 1);
    assert_eq!(objs[0]["metadata"]["name"], "checks");
}

#[test]
fn duplicate_configuration_across_files() {
    let mut ms = markers(&format!("{}// +kubebuilder:webhookconfiguration:mutating=false,name=a\n", validating("")));
    ms.extend(
        scan(Path::new("src/other.rs"), "// +kubebuilder:webhookconfiguration:mutating=false,name=b\n").expect("scan"),
    );
    let e = generate(&ms).expect_err("duplicate");
    assert_eq!(
        e,
        WebhookError::DuplicateConfiguration {
            location: "src/other.rs:1".into(),
            first: "src/webhooks.rs:2".into(),
            kind: WebhookKind::Validating,
            name: "b".into(),
            first_name: "a".into(),
        }
    );
    assert!(
        e.to_string().starts_with("src/other.rs:1: duplicate validating kubebuilder:webhookconfiguration with name b"),
        "{e}"
    );
    assert!(e.to_string().contains("mutating=false,name=..."), "{e}");
}

#[test]
fn missing_required_argument_of_a_hand_built_marker() {
    let mut ms = markers(&validating(""));
    ms[0].args.remove("groups");
    let e = generate(&ms).expect_err("missing groups");
    assert!(matches!(&e, WebhookError::MissingArgument { arg, .. } if arg == "groups"), "{e:?}");
    assert!(e.to_string().starts_with("src/webhooks.rs:1: missing argument \"groups\""), "{e}");
}

#[test]
fn errors_follow_controller_gen_order() {
    // Marker problems (by webhook name) come before the v1 checks; mutating v1 checks before validating.
    let text = format!(
        "{}{}",
        validating(",timeoutSeconds=99").replace("name=vthing.kb.io", "name=a.kb.io"),
        mutating(",matchPolicy=bogus").replace("name=mthing.kb.io", "name=z.kb.io")
    );
    assert!(matches!(err(&text), WebhookError::UnknownMatchPolicy { .. }));
    let text =
        format!("{}{}", validating(",timeoutSeconds=99"), mutating("").replace("sideEffects=None", "sideEffects=Some"));
    assert!(matches!(err(&text), WebhookError::SideEffectsSomeOrUnknown { .. }));
}
