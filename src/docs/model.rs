//! The API reference as data: per group and version, each kind (names, scope, versions, printer columns) and every
//! object type its schema reaches, with fields (JSON name, type as written in YAML, required, default, validation,
//! description), built from the CRDs alone so the page says what the API server enforces.
//!
//! Sections are per group and version, sorted by group, then by Kubernetes' version priority (GA, beta, alpha); a
//! kind appears at a version once, with its root fields (`apiVersion`, `kind`, `metadata` added). Every object
//! schema a kind reaches becomes one type, found breadth-first, one per shape (the schema without description,
//! nullable and default) per section, named by [`super::builtin`] when it is Kubernetes' own (linked to the reference
//! of the project's version), else the kind and field path in UpperCamelCase (`MemcachedSpec`, numbered on a clash).
//! Fields carry the type as written in YAML (`[]`, `map[string]`, links), required, the default as compact JSON and
//! their checks (format, bounds, lengths, pattern, enum, list and map types, one-of/any-of, CEL rules).

use std::collections::{BTreeMap, HashMap, VecDeque};

use heck::ToUpperCamelCase;
use serde_json::{Map, Value};

use super::builtin::Builtins;

/// The whole page.
#[derive(Debug)]
pub struct Page {
    pub groups: Vec<GroupVersion>,
}

/// One `group/version` section.
#[derive(Debug)]
pub struct GroupVersion {
    pub group: String,
    pub version: String,
    pub anchor: String,
    pub kinds: Vec<Kind>,
    pub types: Vec<TypeDoc>,
}

/// A kind at one version.
#[derive(Debug)]
pub struct Kind {
    pub name: String,
    pub anchor: String,
    pub plural: String,
    pub singular: String,
    pub scope: String,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    pub served: bool,
    pub storage: bool,
    /// `Some(warning)` when the version is deprecated.
    pub deprecated: Option<Option<String>>,
    /// The kind's other versions, with their state (`v1beta1 (served)`).
    pub other_versions: Vec<String>,
    pub subresources: Vec<String>,
    pub columns: Vec<Column>,
    pub description: String,
    pub checks: Vec<Check>,
    pub fields: Vec<Field>,
}

/// How a page format writes the pieces of a kind's facts list.
pub struct Markup {
    /// Literal text (`code`).
    pub code: fn(&str) -> String,
    /// Prose, escaped for the format (`cell`: as in a table cell).
    pub prose: fn(&str, bool) -> String,
    /// Strong emphasis markers around a word (`**` in Markdown, `*` in AsciiDoc).
    pub strong: &'static str,
}

impl Kind {
    /// The facts of the kind in `gv` as list items, without their bullet: API version, scope, names, state,
    /// deprecation, other versions, subresources. Both formats list the same facts in the same order.
    pub fn facts(&self, gv: &GroupVersion, m: &Markup) -> Vec<String> {
        let codes = |items: &[String]| items.iter().map(|s| (m.code)(s)).collect::<Vec<_>>().join(", ");
        let api_version = if gv.group.is_empty() { gv.version.clone() } else { format!("{}/{}", gv.group, gv.version) };
        let mut out = vec![
            format!("API version: {}", (m.code)(&api_version)),
            format!("Scope: {}", self.scope),
            format!("Plural: {}, singular: {}", (m.code)(&self.plural), (m.code)(&self.singular)),
        ];
        if !self.short_names.is_empty() {
            out.push(format!("Short names: {}", codes(&self.short_names)));
        }
        if !self.categories.is_empty() {
            out.push(format!("Categories: {}", codes(&self.categories)));
        }
        let mut state = vec![if self.served { "served" } else { "not served" }];
        if self.storage {
            state.push("storage version");
        }
        out.push(format!("This version: {}", state.join(", ")));
        let strong = m.strong;
        match &self.deprecated {
            Some(Some(w)) => out.push(format!("{strong}Deprecated{strong}: {}", (m.prose)(w, true))),
            Some(None) => out.push(format!("{strong}Deprecated{strong}")),
            None => {}
        }
        if !self.other_versions.is_empty() {
            out.push(format!("Other versions: {}", self.other_versions.join("; ")));
        }
        if !self.subresources.is_empty() {
            out.push(format!("Subresources: {}", self.subresources.join(", ")));
        }
        out
    }
}

/// An additional printer column.
#[derive(Debug)]
pub struct Column {
    pub name: String,
    pub ty: String,
    pub json_path: String,
    pub description: String,
    pub priority: i64,
}

/// An object type a kind's schema reaches.
#[derive(Debug)]
pub struct TypeDoc {
    pub name: String,
    pub anchor: String,
    /// The Kubernetes reference of a built-in type.
    pub builtin_url: Option<String>,
    pub builtin: bool,
    pub description: String,
    /// The types and kinds whose fields hold it: (name, anchor).
    pub appears_in: Vec<(String, String)>,
    pub checks: Vec<Check>,
    pub fields: Vec<Field>,
}

/// One field of an object type.
#[derive(Debug)]
pub struct Field {
    pub name: String,
    pub ty: Vec<Part>,
    pub required: bool,
    /// The default as compact JSON.
    pub default: Option<String>,
    pub checks: Vec<Check>,
    pub description: String,
}

/// A piece of a type as users write it in YAML: `[]`, `map[string]`, `string`, or a link.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    /// A type of this page: (name, anchor).
    Local(String, String),
    /// A Kubernetes type: (name, URL).
    External(String, String),
}

/// A validation: `label: `value`, `value`` and an optional message (a CEL rule's).
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub label: String,
    pub values: Vec<String>,
    pub message: Option<String>,
}

impl Check {
    fn new(label: impl Into<String>, values: Vec<String>) -> Check {
        Check { label: label.into(), values, message: None }
    }
}

/// `cache.example.com-v1alpha1-MemcachedSpec` → `cache-example-com-v1alpha1-memcachedspec`.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

/// Kubernetes' version priority: GA before beta before alpha, higher numbers first, others by name last.
/// How a version sorts ([`version_key`]).
type VersionKey = (u8, i64, i64, String);

/// A CRD and one of its versions.
type KindVersion<'a> = (&'a Value, &'a Value);

fn version_key(v: &str) -> VersionKey {
    match crate::names::version_parts(v) {
        Some((major, level, n)) => (2 - level, -(major as i64), -(n as i64), String::new()),
        None => (3, 0, 0, v.to_string()),
    }
}

fn text(v: Option<&Value>) -> String {
    v.and_then(Value::as_str).unwrap_or("").to_string()
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default()
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// A JSON number as written: `1` rather than `1.0`.
fn number(v: &Value) -> String {
    match v.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
        _ => compact(v),
    }
}

impl Page {
    /// The page of `crds`: group/version sections sorted by group, then by Kubernetes' version priority; kinds
    /// by name.
    pub fn build(crds: &[Value], k8s_version: &str) -> Page {
        let builtins = Builtins::new(k8s_version);
        // (group, version) → [(kind, crd, version object)]
        let mut sections: BTreeMap<(String, VersionKey, String), Vec<KindVersion>> = BTreeMap::new();
        // A kind at a version once (the first CRD naming it wins; a project's CRDs never repeat one).
        let mut seen = std::collections::HashSet::new();
        for crd in crds {
            let group = text(crd.pointer("/spec/group"));
            let kind = text(crd.pointer("/spec/names/kind"));
            for v in crd.pointer("/spec/versions").and_then(Value::as_array).into_iter().flatten() {
                let version = text(v.get("name"));
                if seen.insert((group.clone(), version.clone(), kind.clone())) {
                    sections.entry((group.clone(), version_key(&version), version)).or_default().push((crd, v));
                }
            }
        }
        let groups = sections
            .into_iter()
            .map(|((group, _, version), mut kinds)| {
                kinds.sort_by_key(|(crd, _)| text(crd.pointer("/spec/names/kind")));
                Builder::new(&builtins, &group, &version).section(&kinds)
            })
            .collect();
        Page { groups }
    }
}

/// Builds one group/version section: names types, shares one section among uses of one shape.
struct Builder<'a> {
    builtins: &'a Builtins,
    group: String,
    version: String,
    /// Type name → shape key, for every name given (kinds' included).
    names: HashMap<String, String>,
    /// Shape key → index in `types`.
    by_shape: HashMap<String, usize>,
    types: Vec<TypeDoc>,
    /// Types whose fields are still to read: (index, schema).
    queue: VecDeque<(usize, Value)>,
}

/// What identifies an object type: its schema without what a field's use adds (description, nullable, default).
fn shape_key(node: &Value) -> String {
    let mut n = node.clone();
    if let Some(o) = n.as_object_mut() {
        for k in ["description", "nullable", "default"] {
            o.remove(k);
        }
    }
    compact(&n)
}

fn has_properties(node: &Value) -> bool {
    node.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty())
}

impl<'a> Builder<'a> {
    fn new(builtins: &'a Builtins, group: &str, version: &str) -> Self {
        Builder {
            builtins,
            group: group.to_string(),
            version: version.to_string(),
            names: HashMap::new(),
            by_shape: HashMap::new(),
            types: Vec::new(),
            queue: VecDeque::new(),
        }
    }

    fn anchor(&self, name: &str) -> String {
        slug(&format!("{}-{}-{name}", self.group, self.version))
    }

    fn section(mut self, kinds: &[(&Value, &Value)]) -> GroupVersion {
        for (crd, _) in kinds {
            let kind = text(crd.pointer("/spec/names/kind"));
            self.names.insert(kind, String::new());
        }
        let kinds: Vec<Kind> = kinds.iter().map(|(crd, v)| self.kind(crd, v)).collect();
        while let Some((i, schema)) = self.queue.pop_front() {
            let (name, anchor) = (self.types[i].name.clone(), self.types[i].anchor.clone());
            let fields = self.fields(&schema, &name, &anchor);
            self.types[i].fields = fields;
        }
        GroupVersion {
            anchor: slug(&format!("{}-{}", self.group, self.version)),
            group: self.group,
            version: self.version,
            kinds,
            types: self.types,
        }
    }

    fn kind(&mut self, crd: &Value, v: &Value) -> Kind {
        let names = crd.pointer("/spec/names").cloned().unwrap_or(Value::Null);
        let name = text(names.get("kind"));
        let anchor = self.anchor(&name);
        let this = text(v.get("name"));
        let other_versions = crd
            .pointer("/spec/versions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|o| text(o.get("name")) != this)
            .map(|o| format!("{} ({})", text(o.get("name")), version_state(o)))
            .collect();
        let columns = v
            .get("additionalPrinterColumns")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|c| Column {
                name: text(c.get("name")),
                ty: text(c.get("type")),
                json_path: text(c.get("jsonPath")),
                description: text(c.get("description")),
                priority: c.get("priority").and_then(Value::as_i64).unwrap_or(0),
            })
            .collect();
        let mut subresources: Vec<String> =
            v.get("subresources").and_then(Value::as_object).map(|s| s.keys().cloned().collect()).unwrap_or_default();
        subresources.sort();
        let root = v.pointer("/schema/openAPIV3Schema").cloned().unwrap_or(Value::Null);
        let mut fields = Vec::new();
        let props = root.get("properties").and_then(Value::as_object);
        let group_version =
            if self.group.is_empty() { self.version.clone() } else { format!("{}/{}", self.group, self.version) };
        if !props.is_some_and(|p| p.contains_key("apiVersion")) {
            fields.push(Field {
                name: "apiVersion".into(),
                ty: vec![Part::Text("string".into())],
                required: true,
                default: None,
                checks: vec![Check::new("value", vec![group_version])],
                description: String::new(),
            });
        }
        if !props.is_some_and(|p| p.contains_key("kind")) {
            fields.push(Field {
                name: "kind".into(),
                ty: vec![Part::Text("string".into())],
                required: true,
                default: None,
                checks: vec![Check::new("value", vec![name.clone()])],
                description: String::new(),
            });
        }
        if !props.is_some_and(|p| p.contains_key("metadata")) {
            let url = self.builtins.url("ObjectMeta").unwrap_or_default();
            fields.push(Field {
                name: "metadata".into(),
                ty: vec![Part::External("ObjectMeta".into(), url)],
                required: false,
                default: None,
                checks: Vec::new(),
                description: "Refer to the Kubernetes API documentation for the fields of `metadata`.".into(),
            });
        }
        fields.extend(self.fields(&root, &name, &anchor));
        Kind {
            anchor,
            plural: text(names.get("plural")),
            singular: text(names.get("singular")),
            scope: text(crd.pointer("/spec/scope")),
            short_names: strings(names.get("shortNames")),
            categories: strings(names.get("categories")),
            served: v.get("served").and_then(Value::as_bool).unwrap_or(false),
            storage: v.get("storage").and_then(Value::as_bool).unwrap_or(false),
            deprecated: v
                .get("deprecated")
                .and_then(Value::as_bool)
                .filter(|d| *d)
                .map(|_| v.get("deprecationWarning").and_then(Value::as_str).map(str::to_string)),
            other_versions,
            subresources,
            columns,
            description: text(root.get("description")),
            checks: object_checks(&root),
            fields,
            name,
        }
    }

    /// The fields of an object schema, its properties in the schema's order.
    fn fields(&mut self, schema: &Value, owner: &str, owner_anchor: &str) -> Vec<Field> {
        let required = strings(schema.get("required"));
        let empty = Map::new();
        let props = schema.get("properties").and_then(Value::as_object).unwrap_or(&empty);
        props
            .iter()
            .map(|(name, node)| {
                let suggested = format!("{owner}{}", name.to_upper_camel_case());
                let ty = self.type_of(node, &suggested, (owner, owner_anchor));
                Field {
                    name: name.clone(),
                    ty,
                    required: required.contains(name),
                    default: node.get("default").map(compact),
                    checks: checks(node),
                    // A Kubernetes scalar (Quantity, Time) still described by Kubernetes: its link says it.
                    description: match self.builtins.scalar_name(node) {
                        Some(_) => String::new(),
                        None => text(node.get("description")),
                    },
                }
            })
            .collect()
    }

    /// The type of `node` as written in YAML; object types get a section (named `suggested` unless built in).
    fn type_of(&mut self, node: &Value, suggested: &str, parent: (&str, &str)) -> Vec<Part> {
        let scalar = |name: &str| vec![Part::Text(name.to_string())];
        if node.get("x-kubernetes-int-or-string").and_then(Value::as_bool) == Some(true) {
            let name = self.builtins.scalar_name(node).unwrap_or("IntOrString").to_string();
            return match self.builtins.url(&name) {
                Some(url) => vec![Part::External(name, url)],
                None => scalar(&name),
            };
        }
        if node.get("x-kubernetes-embedded-resource").and_then(Value::as_bool) == Some(true) && !has_properties(node) {
            return scalar("object (a Kubernetes object)");
        }
        match node.get("type").and_then(Value::as_str) {
            Some("array") => {
                let mut out = scalar("[]");
                match node.get("items") {
                    Some(items) => out.extend(self.type_of(items, suggested, parent)),
                    None => out.push(Part::Text("any".into())),
                }
                merge_text(out)
            }
            Some("object") | None if has_properties(node) => self.object(node, suggested, parent),
            Some("object") => match node.get("additionalProperties") {
                Some(ap @ Value::Object(_)) => {
                    let mut out = scalar("map[string]");
                    out.extend(self.type_of(ap, suggested, parent));
                    merge_text(out)
                }
                _ => scalar("object"),
            },
            Some(t @ ("string" | "integer" | "number" | "boolean")) => match self.builtins.scalar_name(node) {
                Some(name) if name != "IntOrString" && name != "Quantity" => {
                    let name = name.to_string();
                    match self.builtins.url(&name) {
                        Some(url) => vec![Part::External(name, url)],
                        None => scalar(&name),
                    }
                }
                _ => scalar(t),
            },
            Some(other) => scalar(other),
            None => scalar("any"),
        }
    }

    /// A link to the section of the object type `node` is, made the first time its shape is met.
    fn object(&mut self, node: &Value, suggested: &str, parent: (&str, &str)) -> Vec<Part> {
        let key = shape_key(node);
        let appears = (parent.0.to_string(), parent.1.to_string());
        if let Some(&i) = self.by_shape.get(&key) {
            let t = &mut self.types[i];
            if !t.appears_in.contains(&appears) {
                t.appears_in.push(appears);
            }
            return vec![Part::Local(t.name.clone(), t.anchor.clone())];
        }
        let builtin = self.builtins.object_name(node).map(str::to_string);
        let base = builtin.clone().unwrap_or_else(|| suggested.to_string());
        let mut name = base.clone();
        let mut n = 2;
        while self.names.contains_key(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        self.names.insert(name.clone(), key.clone());
        let anchor = self.anchor(&name);
        let builtin_url = builtin.as_deref().and_then(|b| self.builtins.url(b));
        self.types.push(TypeDoc {
            name: name.clone(),
            anchor: anchor.clone(),
            builtin_url,
            builtin: builtin.is_some(),
            description: text(node.get("description")),
            appears_in: vec![appears],
            checks: object_checks(node),
            fields: Vec::new(),
        });
        let i = self.types.len() - 1;
        self.by_shape.insert(key, i);
        self.queue.push_back((i, node.clone()));
        vec![Part::Local(name, anchor)]
    }
}

/// Adjacent text parts joined (`[]` + `string` → `[]string`).
fn merge_text(parts: Vec<Part>) -> Vec<Part> {
    let mut out: Vec<Part> = Vec::new();
    for p in parts {
        match (out.last_mut(), p) {
            (Some(Part::Text(a)), Part::Text(b)) => a.push_str(&b),
            (_, p) => out.push(p),
        }
    }
    out
}

fn version_state(v: &Value) -> String {
    let mut out = Vec::new();
    if v.get("storage").and_then(Value::as_bool) == Some(true) {
        out.push("storage");
    }
    if v.get("served").and_then(Value::as_bool) == Some(true) {
        out.push("served");
    } else {
        out.push("not served");
    }
    if v.get("deprecated").and_then(Value::as_bool) == Some(true) {
        out.push("deprecated");
    }
    out.join(", ")
}

/// The validations of a field's node: its own, then its items' (`items …`) and map values' (`values …`).
fn checks(node: &Value) -> Vec<Check> {
    let mut out = scalar_checks(node, "");
    if let Some(items) = node.get("items") {
        out.extend(scalar_checks(items, "items "));
        if let Some(inner) = items.get("items") {
            out.extend(scalar_checks(inner, "items of items "));
        }
    }
    if let Some(ap @ Value::Object(_)) = node.get("additionalProperties") {
        out.extend(scalar_checks(ap, "values "));
    }
    out
}

/// The validations a node states about itself; object-level ones (CEL rules, one-of) are listed with the type
/// too, and kept here since the field's node is where the API server reads them.
fn scalar_checks(node: &Value, prefix: &str) -> Vec<Check> {
    let mut out = Vec::new();
    let label = |l: &str| format!("{prefix}{l}");
    if let Some(f) = node.get("format").and_then(Value::as_str) {
        out.push(Check::new(label("format"), vec![f.to_string()]));
    }
    for (key, exclusive, name) in
        [("minimum", "exclusiveMinimum", "minimum"), ("maximum", "exclusiveMaximum", "maximum")]
    {
        if let Some(v) = node.get(key) {
            let exclusive = node.get(exclusive);
            let name = if exclusive.and_then(Value::as_bool) == Some(true) {
                format!("exclusive {name}")
            } else {
                name.into()
            };
            out.push(Check::new(label(&name), vec![number(v)]));
        }
    }
    for (key, name) in [
        ("multipleOf", "multiple of"),
        ("minLength", "min length"),
        ("maxLength", "max length"),
        ("minItems", "min items"),
        ("maxItems", "max items"),
        ("minProperties", "min properties"),
        ("maxProperties", "max properties"),
    ] {
        if let Some(v) = node.get(key) {
            out.push(Check::new(label(name), vec![number(v)]));
        }
    }
    if node.get("uniqueItems").and_then(Value::as_bool) == Some(true) {
        out.push(Check::new(label("unique items"), Vec::new()));
    }
    if let Some(p) = node.get("pattern").and_then(Value::as_str) {
        out.push(Check::new(label("pattern"), vec![p.to_string()]));
    }
    if let Some(values) = node.get("enum").and_then(Value::as_array) {
        let values = values.iter().map(|v| v.as_str().map(str::to_string).unwrap_or_else(|| compact(v))).collect();
        out.push(Check::new(label("one of"), values));
    }
    if let Some(t) = node.get("x-kubernetes-list-type").and_then(Value::as_str) {
        let mut values = vec![t.to_string()];
        values.extend(strings(node.get("x-kubernetes-list-map-keys")));
        out.push(Check::new(label("list type"), values));
    }
    if let Some(t) = node.get("x-kubernetes-map-type").and_then(Value::as_str) {
        out.push(Check::new(label("map type"), vec![t.to_string()]));
    }
    if node.get("x-kubernetes-preserve-unknown-fields").and_then(Value::as_bool) == Some(true) {
        out.push(Check::new(label("unknown fields kept"), Vec::new()));
    }
    out.extend(object_checks(node).into_iter().map(|mut c| {
        c.label = label(&c.label);
        c
    }));
    out
}

/// The rules an object states about its fields as a whole: exactly one of (`oneOf`), at least one of (`anyOf`)
/// sets of required fields, and CEL rules with their messages.
fn object_checks(node: &Value) -> Vec<Check> {
    let mut out = Vec::new();
    for (key, label) in [("oneOf", "exactly one of"), ("anyOf", "at least one of")] {
        let Some(branches) = node.get(key).and_then(Value::as_array) else { continue };
        let sets: Vec<String> = branches
            .iter()
            .filter_map(|b| b.get("required").and_then(Value::as_array))
            .map(|r| r.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" + "))
            .collect();
        if !sets.is_empty() {
            out.push(Check::new(label, sets));
        }
    }
    for rule in node.get("x-kubernetes-validations").and_then(Value::as_array).into_iter().flatten() {
        let mut c = Check::new("rule", vec![text(rule.get("rule"))]);
        let message = match (rule.get("message"), rule.get("messageExpression")) {
            (Some(m), _) => m.as_str().map(str::to_string),
            (None, Some(e)) => e.as_str().map(|e| format!("message expression `{e}`")),
            _ => None,
        };
        c.message = message;
        if let Some(reason) = rule.get("reason").and_then(Value::as_str) {
            c.values.push(format!("reason: {reason}"));
        }
        if let Some(path) = rule.get("fieldPath").and_then(Value::as_str) {
            c.values.push(format!("field: {path}"));
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_sort_by_kubernetes_priority() {
        let mut v = vec!["v1alpha1", "v2", "v1beta1", "v1", "v1beta2", "foo"];
        v.sort_by_key(|v| version_key(v));
        assert_eq!(v, ["v2", "v1", "v1beta2", "v1beta1", "v1alpha1", "foo"]);
    }

    #[test]
    fn slugs_are_lowercase_words() {
        assert_eq!(slug("cache.example.com-v1alpha1-MemcachedSpec"), "cache-example-com-v1alpha1-memcachedspec");
    }
}
