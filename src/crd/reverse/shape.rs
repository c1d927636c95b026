//! A schema node's Rust shape: the type of a field, an array item or a map value, the structs and newtypes it
//! needs, and the markers that say the rest; a node no type says is written as a schema function.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::markers::{Place, keyword_markers};
use super::names::{TypeNames, field_ident};

/// One generated item of the file.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Struct(Struct),
    /// `pub struct Name(pub Inner);` carrying type markers (or a schema function) for an item or a map value.
    Newtype {
        name: String,
        doc: Option<String>,
        markers: Vec<String>,
        inner: String,
        schema_fn: Option<String>,
    },
    /// `fn name(_: &mut SchemaGenerator) -> Schema { json_schema!(schema) }`.
    SchemaFn {
        name: String,
        schema: Value,
    },
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Struct {
    pub name: String,
    pub doc: Option<String>,
    pub markers: Vec<String>,
    pub fields: Vec<Field>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Field {
    pub ident: String,
    /// `#[serde(rename = ..)]` when `rename_all = "camelCase"` does not give the JSON name.
    pub rename: Option<String>,
    pub doc: Option<String>,
    /// The contents of `#[serde(..)]` besides the rename (`default, skip_serializing_if = ".."`).
    pub serde: Option<String>,
    /// The contents of `#[schemars(..)]`.
    pub schemars: Option<String>,
    pub markers: Vec<String>,
    pub ty: String,
}

/// A place where the CRD says something the file writes as a schema function, or cannot say at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// Dotted path from the version's schema root (`spec.template.ports[*]`).
    pub path: String,
    pub reason: String,
}

/// Builds the items of one file.
#[derive(Debug, Default)]
pub struct Builder {
    pub names: TypeNames,
    pub items: Vec<Item>,
    /// Nodes written as schema functions (exact, but not as Rust types).
    pub as_schema_fns: Vec<Note>,
    /// What the file cannot say at all.
    pub unexpressed: Vec<Note>,
    pub uses_map: bool,
    pub uses_int_or_string: bool,
    pub uses_value: bool,
    /// Schema functions several types share, written once at the end.
    pub shared_fns: Vec<Item>,
}

/// What a field node becomes.
struct FieldType {
    ty: String,
    markers: Vec<String>,
    /// The schema does not come from the Rust type (`Schemaless`, a schema function): `Option` adds no `nullable`.
    reset: bool,
    /// `#[schemars(..)]` arguments the type needs.
    schemars: Option<String>,
}

/// The base Rust type a node's `type`/`format` (and int-or-string, preserve-unknown-fields) give.
enum Base {
    /// A type whose schema is exactly the node's type and format.
    Plain(&'static str),
    /// A scalar whose format no Rust type gives: `Schemaless` + `Type` markers on a field.
    Reset {
        ty: &'static str,
        json_type: String,
        format: Option<String>,
    },
    IntOrString,
    /// `x-kubernetes-preserve-unknown-fields` (optionally with a type) and nothing inside.
    Any,
    Array,
    Struct,
    Map,
    /// `{type: object}` with nothing inside.
    EmptyObject,
}

fn str_of<'a>(node: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    node.get(key).and_then(Value::as_str)
}

fn is_true(node: &Map<String, Value>, key: &str) -> bool {
    node.get(key) == Some(&Value::Bool(true))
}

/// The schema combinators: on a struct, `+kubesmith:schema:<combinator>` markers.
const COMBINATORS: [&str; 4] = ["oneOf", "anyOf", "allOf", "not"];

/// `anyOf: [{type: integer}, {type: string}]`, as controller-gen writes it for int-or-string.
fn standard_any_of(v: &Value) -> bool {
    *v == serde_json::json!([{"type": "integer"}, {"type": "string"}])
}

fn base(node: &Map<String, Value>) -> Option<Base> {
    let int_or_string = is_true(node, "x-kubernetes-int-or-string") && node.get("anyOf").is_some_and(standard_any_of);
    // on a struct, `+kubesmith:schema:<combinator>` markers keep them
    if !int_or_string && COMBINATORS.iter().any(|k| node.contains_key(*k)) && !node.contains_key("properties") {
        return None;
    }
    // keywords of another type (`items` on an object, `properties` on an array): no Rust type carries them
    let foreign: &[&str] = match str_of(node, "type") {
        Some("object") => &["items"],
        Some("array") => &["properties", "additionalProperties"],
        Some(_) => &["items", "properties", "additionalProperties"],
        None => &[],
    };
    if foreign.iter().any(|k| node.contains_key(*k)) {
        return None;
    }
    // `required` is a struct's: on a node without properties no type and marker say it
    if node.contains_key("required") && !node.contains_key("properties") {
        return None;
    }
    let format = str_of(node, "format");
    if is_true(node, "x-kubernetes-int-or-string") {
        return (!node.contains_key("type")).then_some(Base::IntOrString);
    }
    let inside = ["properties", "items", "additionalProperties"].iter().any(|k| node.contains_key(*k));
    if is_true(node, "x-kubernetes-preserve-unknown-fields") && !inside {
        return Some(Base::Any);
    }
    let reset = |ty, json_type: &str| Base::Reset { ty, json_type: json_type.into(), format: format.map(String::from) };
    Some(match (str_of(node, "type")?, format) {
        ("string", _) => Base::Plain("String"),
        ("boolean", None) => Base::Plain("bool"),
        ("integer", Some("int32")) => Base::Plain("i32"),
        ("integer", Some("int64")) => Base::Plain("i64"),
        ("integer", _) => reset("i64", "integer"),
        ("number", Some("double")) => Base::Plain("f64"),
        ("number", Some("float")) => Base::Plain("f32"),
        ("number", _) => reset("f64", "number"),
        ("array", None) if node.get("items").is_some_and(Value::is_object) => Base::Array,
        ("object", None) => match (node.get("properties"), node.get("additionalProperties")) {
            (Some(_), None) => Base::Struct,
            (None, Some(Value::Object(_) | Value::Bool(true))) => Base::Map,
            (None, None) => Base::EmptyObject,
            _ => return None,
        },
        _ => return None,
    })
}

impl Builder {
    /// A place in `items` for a type whose children come after it.
    pub fn reserve(&mut self) -> usize {
        self.items.push(Item::Struct(Struct::default()));
        self.items.len() - 1
    }

    /// The struct `name` for an object node with properties, pushed with its children; `doc` is the type's own doc.
    pub fn object_struct(
        &mut self,
        name: String,
        node: &Map<String, Value>,
        path: &str,
        doc: Option<String>,
    ) -> Struct {
        let (mut markers, mut left) = (Vec::new(), Vec::new());
        // the combinators as they are, applied after kube's rewriter (which would hoist their properties into the
        // struct's and sort their `required` lists)
        let mut own = node.clone();
        for k in COMBINATORS {
            if let Some(v) = own.remove(k) {
                markers.push(format!("+kubesmith:schema:{k}={v}"));
            }
        }
        keyword_markers(&own, Place::Type, &mut markers, &mut left);
        for key in left {
            self.unexpressed.push(Note {
                path: path.to_string(),
                reason: format!("`{key}` on this object has no marker a struct can carry"),
            });
        }
        let listed: Vec<&str> =
            node.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        let required: HashSet<&str> = listed.iter().copied().collect();
        let empty = Map::new();
        let props = node.get("properties").and_then(Value::as_object).unwrap_or(&empty);
        // keys required that no property declares (a free-form object's): added after the fields' by a marker
        let (mut declared, undeclared): (Vec<&str>, Vec<&str>) =
            listed.iter().copied().partition(|name| props.contains_key(*name));
        if !undeclared.is_empty() {
            markers.push(format!("+kubesmith:schema:required={}", undeclared.join(";")));
        }
        // kube's rewriter sorts the fields' `required`: another order is the marker's to keep
        declared.sort_unstable();
        if required.len() == listed.len() && listed != [declared, undeclared].concat() {
            markers.push(format!("+kubesmith:requiredOrder={}", listed.join(";")));
        }
        let mut taken = HashSet::new();
        let mut fields = Vec::new();
        for (json, prop) in props {
            let sub = if path.is_empty() { json.clone() } else { format!("{path}.{json}") };
            let empty_node = Map::new();
            let prop = prop.as_object().unwrap_or(&empty_node);
            fields.push(self.field(&name, json, prop, &sub, required.contains(json.as_str()), &mut taken));
        }
        Struct { name, doc, markers, fields }
    }

    /// The field for property `json` of `parent`.
    fn field(
        &mut self,
        parent: &str,
        json: &str,
        node: &Map<String, Value>,
        path: &str,
        required: bool,
        taken: &mut HashSet<String>,
    ) -> Field {
        let (ident, rename) = field_ident(json, taken);
        let mut f = Field {
            ident,
            rename: rename.then(|| json.to_string()),
            doc: str_of(node, "description").map(String::from),
            ..Field::default()
        };
        let nullable = is_true(node, "nullable");
        let Some(FieldType { ty, mut markers, reset, schemars }) =
            self.field_type(parent, json, node, path, required || nullable)
        else {
            return self.schema_fn_field(f, parent, json, node, path, required);
        };
        // how the field is optional, nullable, required
        let untyped = reset || matches!(base(node), Some(Base::Any));
        let collection = ty.starts_with("Vec<") || ty.starts_with("BTreeMap<");
        let mut schemars_args: Vec<String> = schemars.into_iter().collect();
        if required {
            if nullable {
                f.ty = format!("Option<{ty}>");
                schemars_args.push("required".into());
                markers.push("+nullable".into());
            } else {
                f.ty = ty;
            }
        } else if nullable {
            f.ty = format!("Option<{ty}>");
            f.serde = Some("default, skip_serializing_if = \"Option::is_none\"".into());
            if untyped {
                markers.push("+nullable".into());
            }
        } else if collection {
            let is_empty = if ty.starts_with("Vec<") { "Vec::is_empty" } else { "BTreeMap::is_empty" };
            f.serde = Some(format!("default, skip_serializing_if = \"{is_empty}\""));
            f.ty = ty;
        } else {
            f.serde = Some("default, skip_serializing_if = \"Option::is_none\"".into());
            if !untyped {
                schemars_args.push(format!("with = \"{ty}\""));
            }
            f.ty = format!("Option<{ty}>");
        }
        if !schemars_args.is_empty() {
            f.schemars = Some(schemars_args.join(", "));
        }
        f.markers = markers;
        f
    }

    /// The Rust type of a field node and its markers; `None` when no type and markers say the node exactly.
    /// `in_required_or_nullable`: kube's OptionalIntOrString leaves the field's `nullable` alone.
    fn field_type(
        &mut self,
        parent: &str,
        json: &str,
        node: &Map<String, Value>,
        path: &str,
        in_required_or_nullable: bool,
    ) -> Option<FieldType> {
        let base = base(node)?;
        let (mut markers, mut left) = (Vec::new(), Vec::new());
        let own = |markers: &mut Vec<String>, left: &mut Vec<String>| {
            keyword_markers(node, Place::Field, markers, left);
        };
        let ty = match base {
            Base::Plain(t) => {
                if let Some(f) = str_of(node, "format").filter(|_| t == "String") {
                    markers.push(format!("+kubebuilder:validation:Format={f}"));
                }
                own(&mut markers, &mut left);
                t.to_string()
            }
            Base::Reset { ty, json_type, format } => {
                markers.push("+kubebuilder:validation:Schemaless".into());
                markers.push(format!("+kubebuilder:validation:Type={json_type}"));
                if let Some(f) = format {
                    markers.push(format!("+kubebuilder:validation:Format={f}"));
                }
                own(&mut markers, &mut left);
                if !left.is_empty() {
                    return None;
                }
                return Some(FieldType { ty: ty.to_string(), markers, reset: true, schemars: None });
            }
            Base::IntOrString => {
                // the schema comes from markers, applied after kube's transforms (which would make an optional
                // int-or-string nullable and strip the types of `anyOf`); IntOrString's own description stays out
                let fn_name = self.int_or_string_fn(node, in_required_or_nullable)?;
                if node.contains_key("anyOf") {
                    markers.push("+kubebuilder:validation:XIntOrString".into());
                }
                own(&mut markers, &mut left);
                if !left.is_empty() {
                    return None;
                }
                self.uses_int_or_string = true;
                let schemars = Some(format!("schema_with = \"{fn_name}\""));
                return Some(FieldType { ty: "IntOrString".into(), markers, reset: true, schemars });
            }
            Base::Any => {
                if let Some(t) = str_of(node, "type") {
                    markers.push(format!("+kubebuilder:validation:Type={t}"));
                }
                own(&mut markers, &mut left);
                self.uses_value = true;
                "serde_json::Value".to_string()
            }
            Base::EmptyObject => {
                markers.push("+kubebuilder:validation:Schemaless".into());
                markers.push("+kubebuilder:validation:Type=object".into());
                own(&mut markers, &mut left);
                if !left.is_empty() {
                    return None;
                }
                self.uses_map = true;
                self.uses_value = true;
                let ty = "BTreeMap<String, serde_json::Value>".into();
                return Some(FieldType { ty, markers, reset: true, schemars: None });
            }
            Base::Array => {
                own(&mut markers, &mut left);
                if !left.is_empty() {
                    return None;
                }
                let items = node["items"].as_object()?;
                let name = self.names.child(parent, json);
                let (item, item_markers) = self.value_type(name, items, &format!("{path}[*]"), true);
                markers.extend(item_markers);
                format!("Vec<{item}>")
            }
            Base::Map => {
                own(&mut markers, &mut left);
                if !left.is_empty() {
                    return None;
                }
                self.uses_map = true;
                let value = match &node["additionalProperties"] {
                    Value::Object(v) => {
                        let name = self.names.child(parent, json);
                        self.value_type(name, v, &format!("{path}.*"), false).0
                    }
                    _ => {
                        self.uses_value = true;
                        "serde_json::Value".to_string()
                    }
                };
                format!("BTreeMap<String, {value}>")
            }
            Base::Struct => {
                // the object's own keywords go on its struct (used here only), the field keeps its doc and the
                // keywords only a field marker says (default, example)
                let mut type_node = node.clone();
                let mut field_only = Map::new();
                for key in ["default", "example"] {
                    if let Some(v) = type_node.remove(key) {
                        field_only.insert(key.to_string(), v);
                    }
                }
                if !type_markers_say_all(&type_node) {
                    return None;
                }
                keyword_markers(&field_only, Place::Field, &mut markers, &mut left);
                let name = self.names.child(parent, json);
                let at = self.reserve();
                let s = self.object_struct(name.clone(), &type_node, path, None);
                self.items[at] = Item::Struct(s);
                name
            }
        };
        if !left.is_empty() {
            return None;
        }
        Some(FieldType { ty, markers, reset: false, schemars: None })
    }

    /// The schema function an int-or-string's Rust type takes its schema from: empty when `anyOf` is there (the
    /// `XIntOrString` marker writes it all), else only `x-kubernetes-int-or-string`, which kube makes nullable on
    /// an optional property (`None` then: no type says it).
    fn int_or_string_fn(&mut self, node: &Map<String, Value>, keeps_nullable: bool) -> Option<String> {
        let (name, schema) = if node.contains_key("anyOf") {
            ("untyped_schema", serde_json::json!({}))
        } else if keeps_nullable {
            ("int_or_string_schema", serde_json::json!({"x-kubernetes-int-or-string": true}))
        } else {
            return None;
        };
        Some(self.shared_fn(name, schema))
    }

    /// The schema function `name` returning `schema`, shared by every type that needs it.
    fn shared_fn(&mut self, name: &str, schema: Value) -> String {
        if !self.shared_fns.iter().any(|i| matches!(i, Item::SchemaFn { name: n, .. } if n == name)) {
            self.shared_fns.push(Item::SchemaFn { name: name.into(), schema });
        }
        name.to_string()
    }

    /// The type of an array item (`items`) or a map value: a plain type, a struct, or a newtype carrying the
    /// node's doc and markers; for items, markers the field can carry (`validation:items:..`) come back too.
    fn value_type(
        &mut self,
        name: String,
        node: &Map<String, Value>,
        path: &str,
        items: bool,
    ) -> (String, Vec<String>) {
        let nullable = is_true(node, "nullable");
        let wrap = |t: String| if nullable { format!("Option<{t}>") } else { t };
        let doc = str_of(node, "description").map(String::from);
        if matches!(base(node), Some(Base::IntOrString)) && !nullable {
            // as for fields: the markers write the schema after kube's transforms
            let (mut markers, mut left) = (Vec::new(), Vec::new());
            keyword_markers(node, Place::Type, &mut markers, &mut left);
            if node.contains_key("anyOf") {
                markers.push("+kubebuilder:validation:XIntOrString".into());
            }
            if left.is_empty()
                && let Some(f) = self.int_or_string_fn(node, true)
            {
                self.uses_int_or_string = true;
                let inner = "IntOrString".to_string();
                self.items.push(Item::Newtype { name: name.clone(), doc, markers, inner, schema_fn: Some(f) });
                return (name, Vec::new());
            }
        }
        // a scalar whose format no Rust type gives, or an empty object: a newtype whose schema the markers write
        // (`Schemaless` is for fields only)
        let reset = match base(node) {
            Some(Base::Reset { ty, json_type, format }) => Some((ty.to_string(), json_type, format)),
            Some(Base::EmptyObject) => Some(("BTreeMap<String, serde_json::Value>".to_string(), "object".into(), None)),
            _ => None,
        };
        if let Some((inner, json_type, format)) = reset.filter(|_| !nullable) {
            let mut markers = vec![format!("+kubebuilder:validation:Type={json_type}")];
            markers.extend(format.map(|f| format!("+kubebuilder:validation:Format={f}")));
            let mut left = Vec::new();
            keyword_markers(node, Place::Type, &mut markers, &mut left);
            if left.is_empty() {
                if inner.starts_with("BTreeMap") {
                    self.uses_map = true;
                    self.uses_value = true;
                }
                let schema_fn = Some(self.shared_fn("untyped_schema", serde_json::json!({})));
                self.items.push(Item::Newtype { name: name.clone(), doc, markers, inner, schema_fn });
                return (name, Vec::new());
            }
        }
        let inner = match base(node) {
            Some(Base::Struct) if type_markers_say_all(node) => {
                let at = self.reserve();
                let s = self.object_struct(name.clone(), node, path, doc);
                self.items[at] = Item::Struct(s);
                return (wrap(name), Vec::new());
            }
            Some(Base::Plain(t)) => Some(t.to_string()),
            Some(Base::Any) => {
                self.uses_value = true;
                Some("serde_json::Value".into())
            }
            Some(Base::Array) => {
                let items_node = node["items"].as_object().cloned().unwrap_or_default();
                let item_name = self.names.unique(format!("{name}Item"));
                let (item, item_markers) = self.value_type(item_name, &items_node, &format!("{path}[*]"), true);
                if item_markers.is_empty() { Some(format!("Vec<{item}>")) } else { None }
            }
            Some(Base::Map) => match &node["additionalProperties"] {
                Value::Object(v) => {
                    self.uses_map = true;
                    let value_name = self.names.unique(format!("{name}Value"));
                    Some(format!("BTreeMap<String, {}>", self.value_type(value_name, v, &format!("{path}.*"), false).0))
                }
                _ => None,
            },
            _ => None,
        };
        let Some(inner) = inner else {
            return (wrap(self.schema_fn_newtype(name, node, path)), Vec::new());
        };
        // keywords besides type/format/nullable
        let (mut markers, mut left) = (Vec::new(), Vec::new());
        let format_marker = str_of(node, "format").filter(|_| inner == "String");
        if doc.is_none() && items && !nullable && inner != "serde_json::Value" {
            keyword_markers(node, Place::Items, &mut markers, &mut left);
            if left.is_empty() {
                if let Some(f) = format_marker {
                    markers.push(format!("+kubebuilder:validation:items:Format={f}"));
                }
                return (inner, markers);
            }
        }
        markers.clear();
        left.clear();
        keyword_markers(node, Place::Type, &mut markers, &mut left);
        if let Some(f) = format_marker {
            markers.push(format!("+kubebuilder:validation:Format={f}"));
        }
        if matches!(base(node), Some(Base::Any))
            && let Some(t) = str_of(node, "type")
        {
            markers.push(format!("+kubebuilder:validation:Type={t}"));
        }
        if !left.is_empty() {
            return (wrap(self.schema_fn_newtype(name, node, path)), Vec::new());
        }
        if markers.is_empty() && doc.is_none() {
            return (wrap(inner), Vec::new());
        }
        self.items.push(Item::Newtype { name: name.clone(), doc, markers, inner, schema_fn: None });
        (wrap(name), Vec::new())
    }

    /// A field whose node no Rust type says: `serde_json::Value` with `#[schemars(schema_with)]`.
    fn schema_fn_field(
        &mut self,
        mut f: Field,
        parent: &str,
        json: &str,
        node: &Map<String, Value>,
        path: &str,
        required: bool,
    ) -> Field {
        let type_name = self.names.child(parent, json);
        let fn_name = self.schema_fn(&type_name, node, path);
        self.uses_value = true;
        f.schemars = Some(format!("schema_with = \"{fn_name}\""));
        if required {
            f.ty = "serde_json::Value".into();
        } else {
            f.ty = "Option<serde_json::Value>".into();
            f.serde = Some("default, skip_serializing_if = \"Option::is_none\"".into());
        }
        f
    }

    fn schema_fn_newtype(&mut self, name: String, node: &Map<String, Value>, path: &str) -> String {
        let fn_name = self.schema_fn(&name, node, path);
        self.uses_value = true;
        self.items.push(Item::Newtype {
            name: name.clone(),
            doc: None,
            markers: Vec::new(),
            inner: "serde_json::Value".into(),
            schema_fn: Some(fn_name),
        });
        name
    }

    /// Pushes a schema function returning `node` exactly; returns its name.
    fn schema_fn(&mut self, type_name: &str, node: &Map<String, Value>, path: &str) -> String {
        use heck::ToSnakeCase;
        let name = format!("{}_schema", type_name.to_snake_case());
        self.as_schema_fns.push(Note { path: path.to_string(), reason: why_schema_fn(node) });
        self.items.push(Item::SchemaFn { name: name.clone(), schema: Value::Object(node.clone()) });
        name
    }
}

/// Whether type markers say every keyword of an object node.
fn type_markers_say_all(node: &Map<String, Value>) -> bool {
    let (mut markers, mut left) = (Vec::new(), Vec::new());
    let mut own = node.clone();
    for k in COMBINATORS {
        own.remove(k);
    }
    keyword_markers(&own, Place::Type, &mut markers, &mut left);
    left.is_empty()
}

/// Why a node is a schema function, for the report.
fn why_schema_fn(node: &Map<String, Value>) -> String {
    for k in ["oneOf", "anyOf", "allOf", "not"] {
        if node.contains_key(k) {
            return format!("`{k}` has no Rust type");
        }
    }
    if let Some(t) = str_of(node, "type")
        && let Some(k) = ["items", "properties", "additionalProperties"].into_iter().find(|k| {
            node.contains_key(*k)
                && !matches!((t, *k), ("array", "items") | ("object", "properties" | "additionalProperties"))
        })
    {
        return format!("`{k}` on a schema of type `{t}`");
    }
    if node.contains_key("required") && !node.contains_key("properties") {
        return "`required` on a schema without properties (only a struct's fields can be required)".into();
    }
    if is_true(node, "x-kubernetes-int-or-string") {
        return "an int-or-string without a description of its own (IntOrString would bring its own)".into();
    }
    match str_of(node, "type") {
        None => "a schema without `type`".into(),
        Some(t) => format!("a `{t}` whose keywords no marker says in this position"),
    }
}
