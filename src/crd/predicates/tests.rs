//! Predicate fns evaluated on a value, with the crate's features.

use super::*;

fn holds_for(body: &str, v: Value, default: Value, features: &[&str]) -> Option<bool> {
    let f: syn::ItemFn = syn::parse_str(&format!("fn p(value: &T) -> bool {body}")).unwrap();
    let features: BTreeSet<String> = features.iter().map(|s| s.to_string()).collect();
    let e = tail(&f.block.stmts, &features)?;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("lib.rs"), "").unwrap();
    let ix = CrateIndex::load_with(&crate::crd::index::SourceSet::new(dir.path()), &BTreeSet::new()).unwrap();
    run(&ix, 0, e, "value", &v, &|| Some(default.clone()))
}

#[test]
fn comparisons_with_the_type_default_follow_the_crates_features() {
    // kaniop's `is_default`: never skipped when generating examples, else compared with `T::default()`.
    let body = r#"{
        #[cfg(feature = "examples-gen")]
        {
            let _ = value;
            false
        }
        #[cfg(not(feature = "examples-gen"))]
        {
            value == &T::default()
        }
    }"#;
    assert_eq!(holds_for(body, json(0), json(0), &[]), Some(true));
    assert_eq!(holds_for(body, json(3600), json(0), &[]), Some(false));
    assert_eq!(holds_for(body, json(0), json(0), &["examples-gen"]), Some(false));
    assert_eq!(holds_for("{ *value == Default::default() }", json("a"), json(""), &[]), Some(false));
    assert_eq!(holds_for("{ T::default() != *value }", json(""), json(""), &[]), Some(false));
    // lists, maps and `None` compare as serde writes them (kaniop's `is_default` on a `Vec` and an `Option`)
    let list = serde_json::json!([{"host": "a"}]);
    assert_eq!(holds_for(body, json(Vec::<Value>::new()), json(Vec::<Value>::new()), &[]), Some(true));
    assert_eq!(holds_for(body, list.clone(), json(Vec::<Value>::new()), &[]), Some(false));
    assert_eq!(holds_for(body, list.clone(), list, &[]), Some(true));
    assert_eq!(holds_for(body, Value::Null, Value::Null, &[]), Some(true));
    assert_eq!(holds_for(body, serde_json::json!({"a": 1}), serde_json::json!({}), &[]), Some(false));
}

#[test]
fn literals_negations_and_methods() {
    assert_eq!(holds_for("{ !*value }", json(false), json(false), &[]), Some(true));
    assert_eq!(holds_for("{ *value }", json(true), json(false), &[]), Some(true));
    assert_eq!(holds_for("{ *value == 0 }", json(5), json(0), &[]), Some(false));
    assert_eq!(holds_for("{ value.is_empty() }", json(""), json(""), &[]), Some(true));
    assert_eq!(holds_for("{ (*value == \"x\") }", json("x"), json(""), &[]), Some(true));
    assert_eq!(holds_for("{ *value == 0.5 }", json(0.5), json(0.0), &[]), Some(true));
    assert_eq!(holds_for("{ *value == 2 * 3 && !value.is_none() }", json(6), json(0), &[]), Some(true));
    assert_eq!(holds_for("{ value.is_some() }", Value::Null, json(0), &[]), Some(false));
    assert_eq!(holds_for("{ value.len() > 3 }", json("abcd"), json(""), &[]), Some(true));
}

#[test]
fn what_it_cannot_tell_is_unknown() {
    assert_eq!(holds_for("{ value.starts_with('a') }", json("abcd"), json(""), &[]), None);
    assert_eq!(holds_for("{ value.len() }", json("abcd"), json(""), &[]), None, "not a bool");
    // a `#[cfg]` inside the expression (not among the body's statements) would need the features
    assert_eq!(holds_for("{ (*value == 1) == { #[cfg(test)] { true } } }", json(1), json(0), &[]), None);
    assert_eq!(holds_for("{ let n = 1; *value == n }", json(1), json(0), &[]), None);
    assert_eq!(holds_for("{ #[cfg(unix)] { true } }", json(1), json(0), &[]), None);
    assert_eq!(holds_for("{ other == 1 }", json(1), json(0), &[]), None);
}

#[test]
fn cfg_predicates() {
    let on: BTreeSet<String> = ["a".to_string()].into();
    let meta = |s: &str| syn::parse_str::<syn::Meta>(s).unwrap();
    assert_eq!(cfg_meta(&meta("all(feature = \"a\", not(test))"), &on), Some(true));
    assert_eq!(cfg_meta(&meta("any(feature = \"b\", test)"), &on), Some(false));
    assert_eq!(cfg_meta(&meta("target_os = \"linux\""), &on), None);
}

#[test]
fn default_features_are_followed_transitively() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"x\"\n[features]\ndefault = [\"a\", \"dep:q\"]\na = [\"b\", \"serde/std\"]\nb = []\nc = []\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    let got = default_features(&dir.path().join("src/lib.rs"));
    assert_eq!(got, ["a".to_string(), "b".to_string()].into());
}

fn json(v: impl Into<Value>) -> Value {
    v.into()
}
