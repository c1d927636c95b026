//! The evaluator on custom schema code: literals, consts, helper fns, edits and subschemas it follows; code that
//! needs compiling or panics, refused at the construct.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::json;

use serde_json::Value;

use super::*;
use crate::crd::dialect::Dialect;
use crate::crd::index::SourceSet;
use crate::source::eval::{Site, type_name};

type Res<T> = Result<T, CrdError>;

/// Schemas by type name; `Missing` is a type kubesmith does not know.
struct Fake;

impl Subschemas<CrateIndex> for Fake {
    fn subschema_for(&mut self, ty: &syn::Type, module: ModId) -> Res<Value> {
        let _ = module;
        match type_name(ty).as_deref() {
            Some("String") => Ok(json!({"type": "string"})),
            Some("Missing") => Err(CrdError {
                path: PathBuf::from("lib.rs"),
                line: 1,
                column: 1,
                kind: CrdErrorKind::UnresolvedType { name: "Missing".into(), hint: "not here".into() },
            }),
            Some(other) => Ok(json!({ "title": other })),
            None => Ok(json!({})),
        }
    }
}

/// Evaluates the fn `name` of a crate whose `lib.rs` is `src` (as a `schema_with` fn).
fn eval(src: &str, name: &str) -> Res<Value> {
    eval_in(src, name, Dialect::Schemars1)
}

/// [`eval`] for a crate deriving its schemas with `dialect`'s schemars.
fn eval_in(src: &str, name: &str, dialect: Dialect) -> Res<Value> {
    let dir = tempfile::tempdir().expect("tempdir");
    let lib = dir.path().join("lib.rs");
    std::fs::write(&lib, src).expect("write");
    let force: BTreeSet<PathBuf> = [lib].into();
    let mut ix = CrateIndex::load_with(&SourceSet::new(dir.path()), &force).expect("load");
    ix.dialect = dialect;
    let mut fake = Fake;
    let mut ev = Evaluator::new(&ix, &mut fake, "`test`".into());
    if let Some(item) = ix.items.iter().find(|i| i.name == name) {
        let ItemKind::Fn(f) = &item.kind else { panic!("{name} is not a fn") };
        return ev.schema_fn(&f.sig, &f.block, item.module, None);
    }
    for imp in &ix.impls {
        for it in &imp.item.items {
            if let syn::ImplItem::Fn(m) = it
                && m.sig.ident == name
            {
                return ev.schema_fn(&m.sig, &m.block, imp.module, Some(&imp.item.self_ty));
            }
        }
    }
    panic!("no fn {name}")
}

fn ok(src: &str, name: &str) -> Value {
    eval(src, name).unwrap_or_else(|e| panic!("{e}"))
}

/// The NeedsCompile error of fn `name`, checked to be on the line of `at` and to mention `why`.
fn needs(src: &str, name: &str, at: &str, why: &str) {
    let err = eval(src, name).expect_err("needs compiling");
    assert!(matches!(err.kind, CrdErrorKind::NeedsCompile { .. }), "{err}");
    let line = src.lines().position(|l| l.contains(at)).expect("marker line") + 1;
    assert_eq!(err.line, line, "{err}");
    assert!(err.to_string().contains(why), "{err}");
    assert!(err.to_string().starts_with(&format!("{}:{line}:", err.path.display())), "{err}");
}

#[test]
fn literal_bodies() {
    let src = r#"
fn a(_: &mut SchemaGenerator) -> Schema { schemars::json_schema!({ "type": "object", "x-kubernetes-preserve-unknown-fields": true }) }
fn b(_: &mut SchemaGenerator) -> Schema { Schema::try_from(serde_json::json!({ "type": "string", "enum": ["a", null], "minimum": -1 })).unwrap() }
fn c(_: &mut SchemaGenerator) -> Schema { serde_json::from_value(json!({ "type": "integer" })).expect("valid") }
fn d(_: &mut SchemaGenerator) -> Schema { json_schema!(true) }
fn e(_: &mut SchemaGenerator) -> Schema { Schema::from(true) }
fn f() -> Schema { let s: Schema = serde_json::from_value(json!({"type": "boolean"}))?; Ok(s).unwrap() }
"#;
    assert_eq!(ok(src, "a"), json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}));
    assert_eq!(ok(src, "b"), json!({"type": "string", "enum": ["a", null], "minimum": -1}));
    assert_eq!(ok(src, "c"), json!({"type": "integer"}));
    assert_eq!(ok(src, "d"), json!(true));
    assert_eq!(ok(src, "e"), json!(true));
    assert_eq!(ok(src, "f"), json!({"type": "boolean"}));
}

#[test]
fn consts_statics_and_helper_fns() {
    let src = r##"
const TEXT: &str = r#"{"type": "object", "properties": {"a": {"type": "string"}}}"#;
const DESCRIPTION: &str = "made of data";
const KEY: &str = "x-kubernetes-map-type";
static SHARED: std::sync::LazyLock<serde_json::Value> = std::sync::LazyLock::new(|| json!({"type": "array"}));
fn from_text(_: &mut SchemaGenerator) -> Schema { serde_json::from_str(TEXT).unwrap() }
fn keyed(_: &mut SchemaGenerator) -> Schema { json_schema!({ "description": DESCRIPTION, (KEY): "atomic" }) }
fn shared(_: &mut SchemaGenerator) -> Schema { Schema::try_from(SHARED.clone()).unwrap() }
fn described(mut schema: Schema, text: &str) -> Schema { schema.insert("description".into(), text.into()); schema }
fn wrapped(g: &mut SchemaGenerator) -> Result<Schema, serde_json::Error> { let s = base(g); Ok(s) }
fn base(g: &mut SchemaGenerator) -> Schema { g.subschema_for::<String>() }
fn calls(g: &mut SchemaGenerator) -> Schema { described(wrapped(g).unwrap(), DESCRIPTION) }
"##;
    assert_eq!(ok(src, "from_text"), json!({"type": "object", "properties": {"a": {"type": "string"}}}));
    assert_eq!(ok(src, "keyed"), json!({"description": "made of data", "x-kubernetes-map-type": "atomic"}));
    assert_eq!(ok(src, "shared"), json!({"type": "array"}));
    assert_eq!(ok(src, "calls"), json!({"type": "string", "description": "made of data"}));
}

#[test]
fn statements_edit_the_literal() {
    let src = r#"
fn inserts(_: &mut SchemaGenerator) -> Schema {
let mut schema = json_schema!(true);
schema.insert("type".to_owned(), "object".into());
schema.insert("nullable".into(), true.into());
schema.remove("nullable");
schema
}
fn ensures(_: &mut SchemaGenerator) -> Schema {
let mut schema = json_schema!(false);
schema.ensure_object().insert("description".into(), Value::String("no".into()));
let obj = schema.ensure_object();
obj.extend([("a".to_string(), json!(1)), ("b".to_string(), json!(2))]);
schema
}
fn indexes(_: &mut SchemaGenerator) -> Schema {
let mut value = json!({"type": "object"});
value["x-kubernetes-int-or-string"] = true.into();
value["properties"]["port"]["type"] = json!("integer");
value["required"] = json!([]);
value["required"].as_array_mut().unwrap().push("port".into());
Schema::try_from(value).unwrap()
}
fn extends(_: &mut SchemaGenerator) -> Schema {
let mut map = serde_json::Map::new();
map.insert("type".into(), "object".into());
map.extend(json!({"minProperties": 1}).as_object().cloned().unwrap());
let props = map.entry("properties").or_insert(json!({}));
props.as_object_mut().unwrap().insert("x".into(), json!({"type": "string"}));
Schema::from(map)
}
fn if_let(g: &mut SchemaGenerator) -> Schema {
let mut schema = g.subschema_for::<Inner>();
if let Some(obj) = schema.as_object_mut() {
    obj.insert("x-kubernetes-embedded-resource".into(), true.into());
    obj.remove("title");
}
if let Some(_) = schema.get_mut("missing") {
    return json_schema!(false);
} else {
    schema.insert("else".into(), json!(1));
}
schema
}
fn returns(_: &mut SchemaGenerator) -> Schema {
let schema = json_schema!({"type": "string"});
return schema;
}
"#;
    assert_eq!(ok(src, "inserts"), json!({"type": "object"}));
    assert_eq!(ok(src, "ensures"), json!({"not": {}, "description": "no", "a": 1, "b": 2}));
    assert_eq!(
        ok(src, "indexes"),
        json!({"type": "object", "x-kubernetes-int-or-string": true, "properties": {"port": {"type": "integer"}}, "required": ["port"]})
    );
    assert_eq!(
        ok(src, "extends"),
        json!({"type": "object", "minProperties": 1, "properties": {"x": {"type": "string"}}})
    );
    assert_eq!(ok(src, "if_let"), json!({"x-kubernetes-embedded-resource": true, "else": 1}));
    assert_eq!(ok(src, "returns"), json!({"type": "string"}));
}

#[test]
fn subschemas_of_known_types() {
    let src = r#"
fn nested(generator: &mut SchemaGenerator) -> Schema {
let item = generator.subschema_for::<Item>();
json_schema!({ "type": "array", "items": item, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"] })
}
fn direct(g: &mut SchemaGenerator) -> Schema { Item::json_schema(g) }
fn raw(r#gen: &mut SchemaGenerator) -> Schema { let r#item = r#gen.subschema_for::<Item>(); json_schema!({ "items": r#item }) }
fn qualified(g: &mut SchemaGenerator) -> Schema { <Item as JsonSchema>::json_schema(g) }
fn inline(g: &mut SchemaGenerator) -> Schema { json_schema!({ "properties": { "spec": g.subschema_for::<Spec>() } }) }
pub struct Duration;
impl JsonSchema for Duration {
fn schema_name() -> Cow<'static, str> { "Duration".into() }
fn json_schema(g: &mut SchemaGenerator) -> Schema { Self::json_schema_of_self(g) }
}
impl Duration {
fn json_schema_of_self(g: &mut SchemaGenerator) -> Schema { g.subschema_for::<Self>() }
}
"#;
    assert_eq!(
        ok(src, "nested"),
        json!({"type": "array", "items": {"title": "Item"}, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]})
    );
    assert_eq!(ok(src, "direct"), json!({"title": "Item"}));
    assert_eq!(ok(src, "raw"), json!({"items": {"title": "Item"}}), "`r#gen` and `gen` are one name");
    assert_eq!(ok(src, "qualified"), json!({"title": "Item"}));
    assert_eq!(ok(src, "inline"), json!({"properties": {"spec": {"title": "Spec"}}}));
    assert_eq!(ok(src, "json_schema"), json!({"title": "Duration"}), "`Self` is the impl's type");
}

#[test]
fn arithmetic_comparisons_and_lengths() {
    let src = r#"
const PREFIX: &str = "tunnel-";
const LIMIT: usize = 63;
fn bounds(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "maxLength": (LIMIT - PREFIX.len()),
        "minimum": -2 * 3 + 7 % 4,
        "maximum": 7 / 2,
        "multipleOf": 0.5 * 3.0,
        "x-flags": [1 < 2, "a" == "b", true && false, false || 2 >= 2, 3 != 3],
        "maxItems": (["a", "b"].len())
    })
}
"#;
    assert_eq!(
        ok(src, "bounds"),
        json!({
            "maxLength": 56, "minimum": -3, "maximum": 3, "multipleOf": 1.5,
            "x-flags": [true, false, false, true, false], "maxItems": 2
        })
    );
}

#[test]
fn code_that_is_not_data_needs_compiling() {
    let src = r#"
fn for_loop(_: &mut SchemaGenerator) -> Schema {
let mut s = json_schema!({});
for k in ["a", "b"] { s.insert(k.into(), true.into()); }
s
}
fn while_loop(_: &mut SchemaGenerator) -> Schema { let mut s = json_schema!({}); while false {} s }
fn plain_loop(_: &mut SchemaGenerator) -> Schema { loop { break json_schema!({}); } }
fn condition(_: &mut SchemaGenerator) -> Schema { let s = if cfg!(test) { json_schema!(true) } else { json_schema!(false) }; s }
fn matched(_: &mut SchemaGenerator) -> Schema { match 1 { _ => json_schema!({}) } }
fn closure(_: &mut SchemaGenerator) -> Schema { let f = || json_schema!({}); f() }
fn other_macro(_: &mut SchemaGenerator) -> Schema { json_schema!({ "description": env!("BUILD_HOST") }) }
fn wraps(_: &mut SchemaGenerator) -> Schema { json_schema!({ "maximum": 300 as u8 }) }
fn json_text(_: &mut SchemaGenerator) -> Schema { let v = json!(1); json_schema!({ "description": v.to_string() }) }
fn unknown_call(g: &mut SchemaGenerator) -> Schema { strip_docs(g.subschema_for::<Item>()) }
fn other_crate(g: &mut SchemaGenerator) -> Schema { stackable::raw_object_schema(g) }
fn unknown_method(g: &mut SchemaGenerator) -> Schema { g.subschema_for::<Item>().into_object() }
fn operator(_: &mut SchemaGenerator) -> Schema { json_schema!({ "maxLength": 63 - "ten" }) }
fn overflow(_: &mut SchemaGenerator) -> Schema { json_schema!({ "maxLength": 1 / 0 }) }
fn generic<T>(_: &mut SchemaGenerator) -> Schema { json_schema!({}) }
fn uses_generic(g: &mut SchemaGenerator) -> Schema { generic::<u8>(g) }
fn unknown_type(g: &mut SchemaGenerator) -> Schema { g.subschema_for::<Missing>() }
fn let_else(_: &mut SchemaGenerator) -> Schema { let Some(s) = Some(json_schema!({})) else { panic!() }; s }
fn if_value(_: &mut SchemaGenerator) -> Schema { let mut s = json_schema!({}); if let Some(o) = s.as_object_mut() { json_schema!(true) } else { s } }
fn edits(s: &mut Schema) { s.insert("a".into(), true.into()); }
fn by_ref(_: &mut SchemaGenerator) -> Schema { let mut s = json_schema!({}); edits(&mut s); s }
"#;
    needs(src, "for_loop", "for k in", "a `for` loop");
    needs(src, "while_loop", "while false", "a `while` loop");
    needs(src, "plain_loop", "loop {", "a `loop`");
    needs(src, "condition", "if cfg!", "an `if`");
    needs(src, "matched", "match 1", "a `match`");
    needs(src, "closure", "let f = ||", "a closure");
    needs(src, "other_macro", "env!", "the macro `env!`");
    needs(src, "wraps", "300 as u8", "a cast to `u8`");
    needs(src, "json_text", "v.to_string()", "`.to_string()` of a value that may not be a `str`");
    needs(src, "unknown_call", "strip_docs(", "a call of `strip_docs`, which is not a fn of this crate");
    needs(src, "other_crate", "stackable::", "`stackable::raw_object_schema`");
    needs(src, "unknown_method", "into_object", "`.into_object()`");
    needs(src, "operator", "63 - \"ten\"", "the operator `-` on a number and a string");
    needs(src, "overflow", "1 / 0", "the operator `/` on a number and a number");
    needs(src, "uses_generic", "fn generic<T>", "is generic");
    needs(src, "unknown_type", "subschema_for::<Missing>", "`Missing` is not a type kubesmith can describe");
    needs(src, "let_else", "let Some(s)", "a `let .. else`");
    needs(src, "if_value", "fn if_value", "an `if .. else` giving the value");
    needs(src, "by_ref", "fn edits(s: &mut Schema)", "`edits` edits a value through a `&mut` parameter");
    let err = eval(src, "for_loop").expect_err("loop");
    assert!(err.to_string().contains("`test` needs compiling"), "{err}");
}

#[test]
fn code_that_panics_is_an_error() {
    let src = r#"
fn array(_: &mut SchemaGenerator) -> Schema { Schema::try_from(json!([1])).unwrap() }
fn text(_: &mut SchemaGenerator) -> Schema { serde_json::from_value(json!("x")).unwrap() }
fn missing(_: &mut SchemaGenerator) -> Schema { let mut s = json!({}); let a = s.get_mut("a").unwrap(); Schema::try_from(s).unwrap() }
"#;
    for (name, why) in [
        ("array", "not an object or a bool"),
        ("text", "which is not a schema"),
        ("missing", "a key that is not there"),
    ] {
        let err = eval(src, name).expect_err(name);
        assert!(matches!(err.kind, CrdErrorKind::Unsupported { .. }), "{err}");
        assert!(err.to_string().contains(why), "{name}: {err}");
    }
}

/// akri's and tembo's schemars 0.8 idiom: a `SchemaObject` (from a subschema or `default()`) whose `extensions`
/// get a key, back as a `Schema`; under schemars 1 the same code is not understood.
#[test]
fn schemars_08_schema_objects_and_their_extensions() {
    let src = r#"
fn list_set(g: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
    let mut schema: schemars::schema::SchemaObject = <Vec<String>>::json_schema(g).into();
    schema.extensions.insert("x-kubernetes-list-type".to_owned(), serde_json::Value::String("set".to_owned()));
    schema.into()
}
fn preserve(_gen: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
    let mut obj = schemars::schema::SchemaObject::default();
    obj.extensions.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
    schemars::schema::Schema::Object(obj)
}
"#;
    let v08 = |name| eval_in(src, name, Dialect::Schemars08).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v08("list_set"), json!({"title": "Vec", "x-kubernetes-list-type": "set"}));
    assert_eq!(v08("preserve"), json!({"x-kubernetes-preserve-unknown-fields": true}));
    assert!(eval(src, "preserve").is_err(), "schemars 1 has no SchemaObject");
}

/// `Type::CONST` and `Type::f()` read the impls of the type the path names where it is written, not of another
/// type of that name.
#[test]
fn associated_consts_and_fns_are_those_of_the_type_the_path_names() {
    let src = r#"
pub mod a { pub struct Limit; impl Limit { pub const MAX: u64 = 1; pub fn max() -> u64 { 10 } } }
pub mod c { pub struct Limit; impl Limit { pub const MAX: u64 = 2; pub fn max() -> u64 { 20 } } }
pub mod b {
    use crate::c::Limit;
    pub fn by_const(_: &mut SchemaGenerator) -> Schema { json_schema!({ "maximum": Limit::MAX }) }
    pub fn by_fn(_: &mut SchemaGenerator) -> Schema { json_schema!({ "maximum": Limit::max() }) }
}
"#;
    assert_eq!(ok(src, "by_const"), json!({"maximum": 2}));
    assert_eq!(ok(src, "by_fn"), json!({"maximum": 20}));
}

/// An associated const or fn is looked up as Rust does (`CrateIndex::assoc_const`): the type's inherent impls,
/// then its trait impls, through a type alias.
#[test]
fn associated_items_of_trait_impls_and_through_aliases() {
    let src = r#"
pub trait Bounded { const MAX: u64; fn max() -> u64; }
pub struct Limit;
impl Bounded for Limit { const MAX: u64 = 1; fn max() -> u64 { 10 } }
pub struct Both;
impl Bounded for Both { const MAX: u64 = 2; fn max() -> u64 { 20 } }
impl Both { pub const MAX: u64 = 3; pub fn max() -> u64 { 30 } }
pub type Alias = Both;
pub fn by_trait_const(_: &mut SchemaGenerator) -> Schema { json_schema!({ "maximum": Limit::MAX }) }
pub fn by_trait_fn(_: &mut SchemaGenerator) -> Schema { json_schema!({ "maximum": Limit::max() }) }
pub fn inherent_first(_: &mut SchemaGenerator) -> Schema { json_schema!({ "maximum": Both::MAX, "minimum": Both::max() }) }
pub fn through_alias(_: &mut SchemaGenerator) -> Schema { json_schema!({ "maximum": Alias::MAX }) }
"#;
    assert_eq!(ok(src, "by_trait_const"), json!({"maximum": 1}));
    assert_eq!(ok(src, "by_trait_fn"), json!({"maximum": 10}));
    assert_eq!(ok(src, "inherent_first"), json!({"maximum": 3, "minimum": 30}));
    assert_eq!(ok(src, "through_alias"), json!({"maximum": 3}));
}

#[test]
fn names_through_module_paths_self_and_primitive_bounds() {
    // `a::Limits::MAX` through a module path, `Self::` in an impl reached by that path, and a primitive bound.
    let src = r#"
pub mod a {
    pub struct Limits;
    impl Limits {
        pub const MAX: u64 = 10;
        pub fn doubled() -> u64 { Self::MAX * 2 }
    }
}
fn schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"maximum": a::Limits::doubled() + a::Limits::MAX, "minimum": u8::MAX as i64 - 255})
}
"#;
    assert_eq!(ok(src, "schema"), json!({"maximum": 30, "minimum": 0}));
}

#[test]
fn values_outside_schema_code_have_no_generator() {
    let src = "fn f() -> u64 { let junk = std::env::args().count(); let base = 4; base * N }\nconst N: u64 = 3;\n";
    let dir = tempfile::tempdir().expect("tempdir");
    let lib = dir.path().join("lib.rs");
    std::fs::write(&lib, src).expect("write");
    let force: BTreeSet<PathBuf> = [lib].into();
    let ix = CrateIndex::load_with(&SourceSet::new(dir.path()), &force).expect("load");
    let item = ix.items.iter().find(|i| i.name == "f").expect("f");
    let ItemKind::Fn(f) = &item.kind else { panic!("f is not a fn") };
    let block = ix.full_block(item.module, &f.block).expect("block");
    let (last, before) = block.stmts.split_last().expect("statements");
    let syn::Stmt::Expr(e, None) = last else { panic!("no tail") };
    let site = Site { module: item.module, self_item: None, self_ty: None, before, bound: &[] };
    // `junk` cannot be evaluated and is not used: no error
    assert_eq!(Evaluator::values(&ix).value(e, site).expect("value"), json!(12));
    let site = Site { module: item.module, self_item: None, self_ty: None, before: &[], bound: &[] };
    let err = Evaluator::values(&ix).value(e, site).expect_err("base is unbound");
    assert!(err.to_string().contains("`base` is not a local"), "{err}");
    let g: syn::Expr = syn::parse_str("generator.subschema_for::<String>()").expect("expr");
    let err = Evaluator::values(&ix).value(&g, site).expect_err("no generator");
    assert!(matches!(err.kind, CrdErrorKind::NeedsCompile { .. }), "{err}");
}

#[test]
fn format_and_struct_fields() {
    let src = r#"
const REGISTRY: &str = "quay.io/acme";
pub struct Images { pub pg15: Option<String>, pub tag: u32 }
fn images() -> Images { Images { pg15: Some("standard:15".to_string()), tag: 7 } }
fn schema(_: &mut SchemaGenerator) -> Schema {
    let image = images();
    let name = image.pg15.expect("a pg15 image");
    json_schema!({
        "default": format!("{}/{name}-{0}:{tag}{{x}}", REGISTRY, tag = image.tag),
        "description": std::format!("{REGISTRY} {} {}", true, -3)
    })
}
fn spec(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"default": format!("{:>8}", "x")})
}
fn floats(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"default": format!("{}", 1.5)})
}
fn whole(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"default": images()})
}
fn missing(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"default": images().pg16})
}
"#;
    assert_eq!(
        ok(src, "schema"),
        json!({"default": "quay.io/acme/standard:15-quay.io/acme:7{x}", "description": "quay.io/acme true -3"})
    );
    needs(src, "spec", "{:>8}", "the format spec `{:>8}`");
    needs(src, "floats", "1.5", "formatting a number");
    needs(src, "whole", "\"default\": images()", "a struct value used as data");
    needs(src, "missing", "pg16", "the field `pg16`, not in the struct value");
}
