//! Tests for the marker scanner, argument parser and registry.

use std::collections::BTreeSet;
use std::path::Path;

use super::*;

fn one(line: &str) -> Marker {
    let ms = scan(Path::new("src/lib.rs"), line).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ms.len(), 1, "{ms:#?}");
    ms.into_iter().next().expect("one marker")
}

fn err(text: &str) -> String {
    match scan(Path::new("src/api/v1.rs"), text) {
        Ok(ms) => panic!("expected an error, got {ms:#?}"),
        Err(e) => e.to_string(),
    }
}

fn s(v: &str) -> MarkerValue {
    MarkerValue::String(v.to_string())
}

fn strs(v: &[&str]) -> MarkerValue {
    MarkerValue::List(v.iter().map(|x| s(x)).collect())
}

#[test]
fn scanner_accepts_line_and_doc_comments_with_line_numbers() {
    let text = "\
//! +kubebuilder:rbac:groups=ignored,resources=inner,verbs=get
// +kubebuilder:rbac:groups=a,resources=x,verbs=get
//+kubebuilder:rbac:groups=b,resources=x,verbs=get
    /// +kubebuilder:validation:Minimum=1
let x = 1; // +kubebuilder:rbac:groups=trailing,verbs=get
//// +kubebuilder:not-a-doc-comment
/* +kubebuilder:block */
\t//   +kubebuilder:subresource:status   
";
    let ms = scan(Path::new("src/x.rs"), text).expect("scan");
    let got: Vec<(&str, usize)> = ms.iter().map(|m| (m.name.as_str(), m.line)).collect();
    assert_eq!(
        got,
        vec![
            ("kubebuilder:rbac", 2),
            ("kubebuilder:rbac", 3),
            ("kubebuilder:validation:Minimum", 4),
            ("kubebuilder:subresource:status", 8),
        ]
    );
    assert_eq!(ms[0].file, Path::new("src/x.rs"));
    assert_eq!(ms[0].location(), "src/x.rs:2");
    assert_eq!(ms[1].strings("groups"), vec!["b"]);
}

#[test]
fn ordinary_plus_comments_are_ignored() {
    let text = "\
// +1 for this approach
// + see below
// +something:else=3
// +Optional
// +kubebuilder
// a + b
";
    assert_eq!(scan(Path::new("a.rs"), text).expect("scan"), Vec::new());
}

#[test]
fn unknown_marker_suggests_closest_name_with_location() {
    assert_eq!(
        err("\n\n// +kubebuilder:validation:enum=a;b\n"),
        "src/api/v1.rs:3: unknown marker `+kubebuilder:validation:enum`; \
         did you mean `+kubebuilder:validation:Enum`?"
    );
    assert_eq!(
        err("// +kubebuilder:rbca:groups=apps,resources=pods,verbs=get"),
        "src/api/v1.rs:1: unknown marker `+kubebuilder:rbca`; did you mean `+kubebuilder:rbac`?"
    );
    assert_eq!(
        err("// +kubebuilder:subresource:Status"),
        "src/api/v1.rs:1: unknown marker `+kubebuilder:subresource:Status`; \
         did you mean `+kubebuilder:subresource:status`?"
    );
    assert_eq!(
        err("// +k8s:listtype=map"),
        "src/api/v1.rs:1: unknown marker `+k8s:listtype`; did you mean `+k8s:listType`?"
    );
    let e = err("// +kubesmith:completely-unrelated-thing");
    assert!(e.starts_with("src/api/v1.rs:1: unknown marker `+kubesmith:completely-unrelated-thing`"), "{e}");
    assert!(!e.contains("did you mean"), "{e}");
}

#[test]
fn all_errors_of_a_file_are_reported() {
    let e = err("// +kubebuilder:validation:minimum=1\nfn f() {}\n// +kubebuilder:rbac:groups=a\n");
    let lines: Vec<&str> = e.lines().collect();
    assert_eq!(lines.len(), 2, "{e}");
    assert!(lines[0].starts_with("src/api/v1.rs:1: unknown marker"), "{e}");
    assert_eq!(lines[1], "src/api/v1.rs:3: marker `+kubebuilder:rbac`: missing required argument `verbs`");
}

#[test]
fn missing_verbs_is_an_error() {
    assert_eq!(
        err("// +kubebuilder:rbac:groups=apps,resources=deployments"),
        "src/api/v1.rs:1: marker `+kubebuilder:rbac`: missing required argument `verbs`"
    );
    assert_eq!(
        err("// +kubebuilder:rbac"),
        "src/api/v1.rs:1: marker `+kubebuilder:rbac`: missing required argument `verbs`"
    );
}

#[test]
fn unknown_argument_names_marker_argument_and_location() {
    let e = err("\n// +kubebuilder:rbac:groups=apps,resources=deployments,verb=get");
    assert!(
        e.starts_with("src/api/v1.rs:2: marker `+kubebuilder:rbac`: unknown argument `verb`; did you mean `verbs`?"),
        "{e}"
    );
    let e = err("// +kubebuilder:resource:Path=foos");
    assert!(e.contains("unknown argument `Path`; did you mean `path`?"), "{e}");
    let e = err("// +kubebuilder:validation:Minimum:foo=1");
    assert!(e.contains("`+kubebuilder:validation:Minimum`: unknown argument `foo`"), "{e}");
}

#[test]
fn bad_values_are_errors() {
    let e = err("// +kubebuilder:validation:Minimum=abc");
    assert_eq!(e, "src/api/v1.rs:1: marker `+kubebuilder:validation:Minimum`: expected a number, found `abc`");
    let e = err("// +kubebuilder:printcolumn:name=Age,type=date,JSONPath=.x,priority=high");
    assert!(e.contains("argument `priority`: expected an integer, found `high`"), "{e}");
    let e = err("// +listType=list");
    assert!(e.contains("expected one of map|set|atomic, found `list`"), "{e}");
    let e = err("// +kubebuilder:rbac:groups=\"apps,verbs=get");
    assert!(e.contains("unterminated"), "{e}");
    let e = err("// +kubebuilder:rbac:verbs=get,verbs=list");
    assert!(e.contains("argument `verbs` given twice"), "{e}");
    let e = err("// +kubebuilder:subresource:status=true");
    assert!(e.contains("takes no value"), "{e}");
    let e = err("// +kubebuilder:validation:Maximum");
    assert!(e.contains("missing value"), "{e}");
    let e = err("// +kubebuilder:rbac:groups=apps,verbs");
    assert!(e.contains("argument `verbs` needs a value"), "{e}");
}

#[test]
fn rbac_marker_arguments() {
    let m = one("// +kubebuilder:rbac:groups=apps;\"\",resources={deployments, deployments/status},\
         resourceNames=a;b,verbs=get;list,urls=/metrics,namespace=ns,roleName=r");
    assert_eq!(m.name, "kubebuilder:rbac");
    assert_eq!(m.arg("groups"), Some(&strs(&["apps", ""])));
    assert_eq!(m.strings("resources"), vec!["deployments", "deployments/status"]);
    assert_eq!(m.strings("resourceNames"), vec!["a", "b"]);
    assert_eq!(m.strings("verbs"), vec!["get", "list"]);
    assert_eq!(m.strings("urls"), vec!["/metrics"]);
    assert_eq!(m.string("namespace"), Some("ns"));
    assert_eq!(m.string("roleName"), Some("r"));
}

#[test]
fn empty_quoted_group_is_the_core_group() {
    let m = one("// +kubebuilder:rbac:groups=\"\",resources=pods,verbs=get");
    assert_eq!(m.arg("groups"), Some(&strs(&[""])));
    let m = one("// +kubebuilder:rbac:groups=core;\"\";x,resources=pods,verbs=*");
    assert_eq!(m.arg("groups"), Some(&strs(&["core", "", "x"])));
    assert_eq!(m.strings("verbs"), vec!["*"]);
}

#[test]
fn quoted_strings_keep_commas_and_escapes() {
    let m = one(
        r#"// +kubebuilder:printcolumn:name="Ready, really",type=string,JSONPath=".status.conditions[?(@.type==\"Ready\")].status",description=`raw, "quoted" \n`,priority=1"#,
    );
    assert_eq!(m.name, "kubebuilder:printcolumn");
    assert_eq!(m.string("name"), Some("Ready, really"));
    assert_eq!(m.string("type"), Some("string"));
    assert_eq!(m.string("JSONPath"), Some(r#".status.conditions[?(@.type=="Ready")].status"#));
    assert_eq!(m.string("description"), Some(r#"raw, "quoted" \n"#));
    assert_eq!(m.arg("priority"), Some(&MarkerValue::Int(1)));
}

#[test]
fn brace_lists_and_nested_lists() {
    let m = one("// +kubebuilder:resource:path=foos,shortName={f,fo},categories=all;mine,scope=Cluster");
    assert_eq!(m.arg("shortName"), Some(&strs(&["f", "fo"])));
    assert_eq!(m.arg("categories"), Some(&strs(&["all", "mine"])));
    assert_eq!(m.string("scope"), Some("Cluster"));

    let m = one(
        r#"// +operator-sdk:csv:customresourcedefinitions:displayName="Memcached App",resources={{Deployment,v1,memcached-deployment},{Service,v1,"svc"}}"#,
    );
    assert_eq!(m.name, "operator-sdk:csv:customresourcedefinitions");
    assert_eq!(m.string("displayName"), Some("Memcached App"));
    assert_eq!(
        m.arg("resources"),
        Some(&MarkerValue::List(vec![
            strs(&["Deployment", "v1", "memcached-deployment"]),
            strs(&["Service", "v1", "svc"]),
        ]))
    );
    let m = one(
        r#"// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Size",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount","urn:alm:descriptor:io.kubernetes:custom"}"#,
    );
    assert_eq!(m.string("type"), Some("spec"));
    assert_eq!(
        m.arg("xDescriptors"),
        Some(&strs(&["urn:alm:descriptor:com.tectonic.ui:podCount", "urn:alm:descriptor:io.kubernetes:custom"]))
    );
}

#[test]
fn anonymous_values() {
    assert_eq!(one("// +kubebuilder:validation:Minimum=0").value(), Some(&MarkerValue::Int(0)));
    assert_eq!(one("// +kubebuilder:validation:Maximum=-1.5").value(), Some(&MarkerValue::Float(-1.5)));
    assert_eq!(
        one("// +kubebuilder:validation:Pattern=^[a-z]{1,3}(,[a-z]+)*$").value(),
        Some(&s("^[a-z]{1,3}(,[a-z]+)*$"))
    );
    assert_eq!(one(r#"// +kubebuilder:validation:Pattern=`^\d+$`"#).value(), Some(&s(r"^\d+$")));
    assert_eq!(
        one("// +kubebuilder:validation:Enum=Always;Never;\"If Needed\";3").value(),
        Some(&MarkerValue::List(vec![s("Always"), s("Never"), s("If Needed"), MarkerValue::Int(3)]))
    );
    assert_eq!(one("// +kubebuilder:validation:Enum=Only").value(), Some(&MarkerValue::List(vec![s("Only")])));
    assert_eq!(one("// +kubebuilder:validation:MaxLength=63").value(), Some(&MarkerValue::Int(63)));
    assert_eq!(one("// +kubebuilder:validation:ExactlyOneOf=foo;bar").value(), Some(&strs(&["foo", "bar"])));
    assert_eq!(one("// +groupName=").value(), Some(&s("")));
    assert_eq!(one("// +groupName=crew.testproject.org").value(), Some(&s("crew.testproject.org")));
    assert_eq!(one("// +listType=map").value(), Some(&s("map")));
    assert_eq!(one("// +k8s:listMapKey=type").value(), Some(&s("type")));
}

#[test]
fn default_and_example_values_of_any_type() {
    let v = |t: &str| one(t).value().cloned().expect("value");
    assert_eq!(v("// +kubebuilder:default=3"), MarkerValue::Int(3));
    assert_eq!(v("// +kubebuilder:default=true"), MarkerValue::Bool(true));
    assert_eq!(v("// +kubebuilder:default=\"3\""), s("3"));
    assert_eq!(v("// +kubebuilder:default=Always"), s("Always"));
    assert_eq!(v("// +kubebuilder:default={}"), MarkerValue::Map(Vec::new()));
    assert_eq!(v("// +kubebuilder:default={a,b}"), MarkerValue::List(vec![s("a"), s("b")]));
    assert_eq!(
        v("// +kubebuilder:default={replicas: 1, name: \"x, y\", tags: {a, b}}"),
        MarkerValue::Map(vec![
            ("replicas".to_string(), MarkerValue::Int(1)),
            ("name".to_string(), s("x, y")),
            ("tags".to_string(), MarkerValue::List(vec![s("a"), s("b")])),
        ])
    );
    assert_eq!(v("// +kubebuilder:default={replicas: 1}").to_json(), serde_json::json!({"replicas": 1}));
    assert_eq!(v("// +kubebuilder:example=a;b"), MarkerValue::List(vec![s("a"), s("b")]));
}

#[test]
fn flags_and_bool_markers() {
    let m = one("// +kubebuilder:subresource:status");
    assert!(m.args.is_empty());
    assert_eq!(one("// +kubebuilder:validation:XEmbeddedResource").value(), Some(&MarkerValue::Bool(true)));
    assert_eq!(one("// +kubebuilder:validation:UniqueItems=false").value(), Some(&MarkerValue::Bool(false)));
    assert_eq!(one("// +kubebuilder:object:root=true").value(), Some(&MarkerValue::Bool(true)));
    assert_eq!(one("// +optional").name, "optional");
    assert_eq!(one("// +nullable").name, "nullable");
    let m = one(
        r#"// +kubebuilder:validation:XValidation:rule="self.a <= self.b",message="a must not exceed b, ever",optionalOldSelf"#,
    );
    assert_eq!(m.string("rule"), Some("self.a <= self.b"));
    assert_eq!(m.string("message"), Some("a must not exceed b, ever"));
    assert_eq!(m.arg("optionalOldSelf"), Some(&MarkerValue::Bool(true)));
    let m = one("// +kubebuilder:validation:items:Maximum=10");
    assert_eq!(m.name, "kubebuilder:validation:items:Maximum");
}

#[test]
fn webhook_markers_as_scaffolded() {
    let m = one("// +kubebuilder:webhook:path=/mutate-crew-testproject-org-v1-captain,mutating=true,\
         failurePolicy=fail,sideEffects=None,groups=crew.testproject.org,resources=captains,\
         verbs=create;update,versions=v1,name=mcaptain-v1.kb.io,admissionReviewVersions=v1");
    assert_eq!(m.name, "kubebuilder:webhook");
    assert_eq!(m.arg("mutating"), Some(&MarkerValue::Bool(true)));
    assert_eq!(m.strings("verbs"), vec!["create", "update"]);
    assert_eq!(m.string("name"), Some("mcaptain-v1.kb.io"));
    let m = one(
        r#"// +kubebuilder:webhook:path=/mutate--v1-pod,mutating=true,failurePolicy=fail,sideEffects=None,groups="",resources=pods,verbs=create,versions=v1,name=mpod-v1.kb.io,admissionReviewVersions=v1,patch=`{"namespaceSelector":{"matchLabels":{"a":"b"}}}`"#,
    );
    assert_eq!(m.arg("groups"), Some(&strs(&[""])));
    assert_eq!(m.string("patch"), Some(r#"{"namespaceSelector":{"matchLabels":{"a":"b"}}}"#));
    let m = one("// +kubebuilder:webhookconfiguration:mutating=false,name=my-validator");
    assert_eq!(m.arg("mutating"), Some(&MarkerValue::Bool(false)));
    let e = err(
        "// +kubebuilder:webhook:mutating=true,failurePolicy=fail,groups=a,resources=b,verbs=create,versions=v1,admissionReviewVersions=v1",
    );
    assert!(e.ends_with("missing required argument `name`"), "{e}");
}

#[test]
fn scaffold_markers() {
    let m = one("    // +kubesmith:scaffold:imports");
    assert_eq!(m.name, "kubesmith:scaffold");
    assert_eq!(m.string("what"), Some("imports"));
    let e = err("// +kubesmith:scaffold");
    assert!(e.contains("needs a name"), "{e}");
    let e = err("// +kubesmith:scafold:imports");
    assert!(e.contains("did you mean `+kubesmith:scaffold`?"), "{e}");
}

#[test]
fn registry_covers_the_documented_markers() {
    let names: BTreeSet<&str> = registry().iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names.len(), registry().len(), "duplicate marker names");
    for name in [
        "kubebuilder:rbac",
        "kubebuilder:webhook",
        "kubebuilder:webhookconfiguration",
        "kubebuilder:validation:Minimum",
        "kubebuilder:validation:Maximum",
        "kubebuilder:validation:ExclusiveMinimum",
        "kubebuilder:validation:ExclusiveMaximum",
        "kubebuilder:validation:MultipleOf",
        "kubebuilder:validation:MinLength",
        "kubebuilder:validation:MaxLength",
        "kubebuilder:validation:Pattern",
        "kubebuilder:validation:Enum",
        "kubebuilder:validation:Format",
        "kubebuilder:validation:MinItems",
        "kubebuilder:validation:MaxItems",
        "kubebuilder:validation:UniqueItems",
        "kubebuilder:validation:MinProperties",
        "kubebuilder:validation:MaxProperties",
        "kubebuilder:validation:Type",
        "kubebuilder:validation:XValidation",
        "kubebuilder:validation:XEmbeddedResource",
        "kubebuilder:validation:XIntOrString",
        "kubebuilder:validation:Schemaless",
        "kubebuilder:validation:Optional",
        "kubebuilder:validation:Required",
        "kubebuilder:validation:EmbeddedResource",
        "kubebuilder:validation:ExactlyOneOf",
        "kubebuilder:validation:AtMostOneOf",
        "kubebuilder:validation:AtLeastOneOf",
        "kubebuilder:validation:items:Enum",
        "kubebuilder:default",
        "kubebuilder:example",
        "kubebuilder:title",
        "kubebuilder:pruning:PreserveUnknownFields",
        "kubebuilder:printcolumn",
        "kubebuilder:resource",
        "kubebuilder:storageversion",
        "kubebuilder:skipversion",
        "kubebuilder:unservedversion",
        "kubebuilder:deprecatedversion",
        "kubebuilder:subresource:status",
        "kubebuilder:subresource:scale",
        "kubebuilder:selectablefield",
        "kubebuilder:metadata",
        "kubebuilder:externalDocs",
        "optional",
        "required",
        "nullable",
        "listType",
        "listMapKey",
        "mapType",
        "structType",
        "groupName",
        "versionName",
        "k8s:listType",
        "k8s:listMapKey",
        "k8s:optional",
        "k8s:required",
        "operator-sdk:csv:customresourcedefinitions",
        "kubesmith:scaffold",
    ] {
        assert!(names.contains(name), "missing {name}");
    }
    let rbac = lookup("kubebuilder:rbac").expect("rbac");
    let args: Vec<&str> = rbac.args.iter().map(|a| a.name).collect();
    assert_eq!(args, ["groups", "resources", "resourceNames", "verbs", "urls", "namespace", "roleName"]);
    assert!(rbac.arg("verbs").is_some_and(|a| a.required));
    assert!(rbac.args.iter().filter(|a| a.required).count() == 1);
    for d in registry() {
        assert!(!d.doc.is_empty(), "{} has no doc", d.name);
        assert!(d.args.iter().all(|a| !a.doc.is_empty()), "{}", d.name);
        assert!(d.usage().starts_with(&format!("+{}", d.name)));
    }
    assert_eq!(
        lookup("kubebuilder:validation:Minimum").map(MarkerDef::usage).as_deref(),
        Some("+kubebuilder:validation:Minimum=<number>")
    );
    assert_eq!(
        lookup("kubebuilder:subresource:scale").map(MarkerDef::usage).as_deref(),
        Some("+kubebuilder:subresource:scale:specpath=<string>,statuspath=<string>,[selectorpath=<string>]")
    );
}

#[test]
fn every_registered_marker_parses_from_its_usage_example() {
    // Build a minimal valid marker for every definition and parse it back.
    for d in registry() {
        let sample = |a: &ArgDef| -> String {
            match a.ty {
                ArgType::String => "x".to_string(),
                ArgType::Int => "1".to_string(),
                ArgType::Number => "1.5".to_string(),
                ArgType::Bool => "true".to_string(),
                ArgType::StringList | ArgType::AnyList => "a;b".to_string(),
                ArgType::Any => "{a: 1}".to_string(),
                ArgType::OneOf(words) => words[0].to_string(),
            }
        };
        let text = if d.open_suffix {
            format!("// +{}:thing", d.name)
        } else if d.args.is_empty() {
            format!("// +{}", d.name)
        } else if d.is_anonymous() {
            format!("// +{}={}", d.name, sample(&d.args[0]))
        } else {
            let args: Vec<String> = d.args.iter().map(|a| format!("{}={}", a.name, sample(a))).collect();
            format!("// +{}:{}", d.name, args.join(","))
        };
        let m = one(&text);
        assert_eq!(m.name, d.name, "{text}");
    }
}

#[test]
fn plus_lines_match_str_lines() {
    let texts = [
        "",
        "+",
        "a + b\n+c\r\n\nx\n// +optional\r\n  /// +kubebuilder:validation:Minimum=1 ++ +\nlast+",
        "\n\n+\n\n",
        "no plus at all\nstill none\n",
        "a\r\n+b\r",
    ];
    for text in texts {
        let naive: Vec<(usize, &str)> =
            text.lines().enumerate().filter(|(_, l)| l.contains('+')).map(|(i, l)| (i + 1, l)).collect();
        let fast: Vec<(usize, &str)> =
            plus_lines(text).map(|(start, l)| (text[..start].matches('\n').count() + 1, l)).collect();
        let trim = |v: &[(usize, &'static str)]| -> Vec<(usize, &'static str)> {
            v.iter().map(|&(i, l)| (i, l.trim_end_matches('\r'))).collect()
        };
        assert_eq!(trim(&fast), trim(&naive), "{text:?}");
    }
}

#[test]
fn every_example_in_the_registry_parses_as_its_marker() {
    for def in registry() {
        assert!(!def.example.is_empty(), "+{} has no example", def.name);
        let markers = scan(Path::new("example.rs"), &def.example).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(markers.len(), 1, "{}", def.example);
        assert_eq!(markers[0].name, def.name, "{}", def.example);
    }
}

#[test]
fn a_misspelled_checked_prefix_is_an_error_with_the_marker_it_meant() {
    assert_eq!(
        err("// +kubebuidler:rbac:groups=apps,resources=deployments,verbs=get\n"),
        "src/api/v1.rs:1: unknown marker prefix `kubebuidler:`; did you mean `+kubebuilder:rbac`?"
    );
    assert_eq!(
        err("// +Kubebuilder:validation:Minimum=1\n"),
        "src/api/v1.rs:1: unknown marker prefix `Kubebuilder:`; did you mean `+kubebuilder:validation:Minimum`?"
    );
    assert!(err("// +kubesmth:nothing\n").contains("did you mean `+kubesmith:...`?"));
    // Other tools' markers and short look-alikes of `k8s:` stay ordinary comments.
    for text in ["// +genclient\n", "// +k9s:x\n", "// +kube:thing\n"] {
        assert_eq!(scan(Path::new("a.rs"), text).unwrap(), Vec::new(), "{text}");
    }
}

#[test]
fn a_comma_inside_a_list_says_items_are_separated_by_semicolons() {
    let e = err("// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=list,watch\n");
    assert!(e.contains("unknown argument `watch`"), "{e}");
    assert!(e.contains("list items are separated by `;`") && e.contains("`verbs=list;watch`"), "{e}");
    // A misspelled argument after a list argument with a value is no list item.
    let e = err("// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=list,nmespace=x\n");
    assert!(!e.contains("separated by"), "{e}");
}
