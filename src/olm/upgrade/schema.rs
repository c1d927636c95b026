//! The schema rules of a CRD upgrade: walks the `openAPIV3Schema` of one version in the previous and the new CRD
//! together (properties, items, additionalProperties, allOf/anyOf/oneOf, not, patternProperties, ...) and reports
//! every change that can break objects stored under the old schema, by OLM v1's CRD Upgrade Safety rules.
//!
//! Each schema node is compared without its children (they are compared at their own paths). Known-safe changes
//! pass: descriptions, new optional properties, new enum values, relaxed bounds, required → optional. Title and
//! example changes are harmless but OLM v1 has no rule for them (a warning). Everything else not known to be safe
//! is an unknown change.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::{Change, Rule};

/// Keys whose values are subschemas (compared at their own paths) or handled with the parent (`required`).
const CHILD_KEYS: &[&str] = &[
    "properties",
    "items",
    "additionalProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "patternProperties",
    "additionalItems",
    "definitions",
    "dependencies",
    "required",
];

/// Keys that do not change what validates: always safe.
const DOC_KEYS: &[&str] = &["description"];
/// Keys that do not change what validates but OLM v1's preflight has no rule for.
const ADVISORY_KEYS: &[&str] = &["title", "example", "examples", "externalDocs"];
/// Boolean keys whose absence means `false`.
const FALSE_BY_DEFAULT: &[&str] = &[
    "nullable",
    "uniqueItems",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-int-or-string",
    "x-kubernetes-embedded-resource",
];

const MINIMA: &[&str] = &["minimum", "minLength", "minItems", "minProperties"];
const MAXIMA: &[&str] = &["maximum", "maxLength", "maxItems", "maxProperties"];

/// One step of a path through a schema.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Seg {
    /// A property, by the name written in the CRD.
    Prop(String),
    /// The items of a list (`[*]`).
    Items,
    /// The values of a map (`additionalProperties`, `.*`).
    Values,
    /// A subschema under a keyword: `allOf[0]`, `not`, `patternProperties[^a]`.
    Keyword(String, Option<String>),
}

/// `spec.items[*].name`: property names as written in the CRD (quoted when they hold dots or other symbols).
pub fn render(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Prop(name) => {
                let plain = !name.is_empty()
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '$');
                if plain {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(name);
                } else {
                    out.push_str(&format!("[{}]", serde_json::to_string(name).unwrap_or_default()));
                }
            }
            Seg::Items => out.push_str("[*]"),
            Seg::Values => out.push_str(if out.is_empty() { "*" } else { ".*" }),
            Seg::Keyword(k, index) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
                if let Some(i) = index {
                    out.push_str(&format!("[{i}]"));
                }
            }
        }
    }
    out
}

/// A value for a message: compact JSON, cut after 80 characters.
pub fn show(v: &Value) -> String {
    let text = serde_json::to_string(v).unwrap_or_default();
    if text.chars().count() > 80 { format!("{}…", text.chars().take(79).collect::<String>()) } else { text }
}

/// The subschemas of a node, by path step.
pub fn children(node: &Map<String, Value>) -> BTreeMap<Seg, &Value> {
    let mut out = BTreeMap::new();
    for (k, v) in node {
        match (k.as_str(), v) {
            ("properties", Value::Object(props)) => {
                for (name, s) in props {
                    out.insert(Seg::Prop(name.clone()), s);
                }
            }
            ("items", Value::Array(list)) => {
                for (i, s) in list.iter().enumerate() {
                    out.insert(Seg::Keyword("items".into(), Some(i.to_string())), s);
                }
            }
            ("items", s) => {
                out.insert(Seg::Items, s);
            }
            ("additionalProperties", s) => {
                out.insert(Seg::Values, s);
            }
            ("allOf" | "anyOf" | "oneOf", Value::Array(list)) => {
                for (i, s) in list.iter().enumerate() {
                    out.insert(Seg::Keyword(k.clone(), Some(i.to_string())), s);
                }
            }
            ("patternProperties" | "definitions" | "dependencies", Value::Object(m)) => {
                for (name, s) in m {
                    out.insert(Seg::Keyword(k.clone(), Some(name.clone())), s);
                }
            }
            ("not" | "additionalItems", s) => {
                out.insert(Seg::Keyword(k.clone(), None), s);
            }
            _ => {}
        }
    }
    out
}

fn required(node: &Map<String, Value>) -> BTreeSet<&str> {
    node.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect()
}

/// The value of a node-level key, with `false` for absent booleans that default to it.
fn get<'a>(node: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    match node.get(key) {
        Some(Value::Bool(false)) if FALSE_BY_DEFAULT.contains(&key) => None,
        Some(Value::Null) => None,
        other => other,
    }
}

fn type_name(node: &Map<String, Value>) -> String {
    let t = node.get("type").and_then(Value::as_str).unwrap_or("");
    let t = if t.is_empty() { "(none)".to_string() } else { t.to_string() };
    match node.get("format").and_then(Value::as_str) {
        Some(f) => format!("{t} ({f})"),
        None => t,
    }
}

/// Compares one version's schemas; appends what breaks to `out`.
pub fn compare(crd: &str, version: &str, old: &Value, new: &Value, out: &mut Vec<Change>) {
    let mut found = Vec::new();
    let mut w = Walk { crd, version, out: &mut found };
    w.node(&mut Vec::new(), old, new);
    // In the order of the fields, whatever the order the rules met them in.
    found.sort_by(|a, b| a.path.cmp(&b.path));
    out.extend(found);
}

struct Walk<'a> {
    crd: &'a str,
    version: &'a str,
    out: &'a mut Vec<Change>,
}

impl Walk<'_> {
    fn push(&mut self, rule: Rule, path: &[Seg], what: String, fix: String) {
        self.out.push(Change {
            rule,
            crd: Some(self.crd.to_string()),
            version: Some(self.version.to_string()),
            path: Some(render(path)),
            what,
            fix,
        });
    }

    fn node(&mut self, path: &mut Vec<Seg>, old: &Value, new: &Value) {
        let (Value::Object(o), Value::Object(n)) = (old, new) else {
            if old != new {
                self.unknown(path, "the schema", Some(old), Some(new));
            }
            return;
        };
        self.own_keys(path, o, n);
        self.required(path, o, n);
        let (oc, nc) = (children(o), children(n));
        for (seg, old_child) in &oc {
            match (nc.get(seg), seg) {
                (Some(new_child), _) => {
                    path.push(seg.clone());
                    self.node(path, old_child, new_child);
                    path.pop();
                }
                (None, Seg::Prop(name)) => {
                    path.push(seg.clone());
                    self.removed(path, name, old_child, &oc, &nc);
                    path.pop();
                }
                (None, _) => self.unknown(path, &format!("`{}`", keyword(seg)), Some(old_child), None),
            }
        }
        for (seg, new_child) in &nc {
            if !oc.contains_key(seg) && !matches!(seg, Seg::Prop(_)) {
                self.unknown(path, &format!("`{}`", keyword(seg)), None, Some(new_child));
            }
        }
    }

    /// The keys of the node itself (not its subschemas).
    fn own_keys(&mut self, path: &[Seg], o: &Map<String, Value>, n: &Map<String, Value>) {
        let keys: BTreeSet<&String> = o.keys().chain(n.keys()).filter(|k| !CHILD_KEYS.contains(&k.as_str())).collect();
        let type_changed = get(o, "type") != get(n, "type");
        for key in keys {
            let (a, b) = (get(o, key), get(n, key));
            if a == b || DOC_KEYS.contains(&key.as_str()) {
                continue;
            }
            match key.as_str() {
                "type" => self.push(
                    Rule::TypeChanged,
                    path,
                    format!(
                        "type changed from {} to {}, so objects stored with the old type no longer validate",
                        type_name(o),
                        type_name(n)
                    ),
                    "keep the type; add a field with the new type instead (or serve a new API version with a \
                     conversion webhook)"
                        .into(),
                ),
                "format" if type_changed => {}
                "default" => self.default(path, a, b),
                "enum" => self.enumeration(path, a, b),
                "nullable" => {
                    if b.is_none() {
                        self.push(
                            Rule::NullableChanged,
                            path,
                            "no longer nullable (an `Option<T>` became `T`?), so objects storing null there no \
                             longer validate"
                                .into(),
                            "keep it nullable (`Option<T>`)".into(),
                        );
                    } else {
                        self.push(
                            Rule::NullableChanged,
                            path,
                            "became nullable (a `T` became `Option<T>`?); OLM v1 refuses any change of `nullable`"
                                .into(),
                            "keep the type as it was (`#[serde(default)]` would add a default, which OLM v1 \
                             refuses too); make the field optional in a new API version"
                                .into(),
                        );
                    }
                }
                k if MINIMA.contains(&k) => self.bound(path, k, a, b, true),
                k if MAXIMA.contains(&k) => self.bound(path, k, a, b, false),
                k if ADVISORY_KEYS.contains(&k) => self.push(
                    Rule::Cosmetic,
                    path,
                    format!("`{k}` {}; harmless for stored objects, but OLM v1 has no rule for it", changed(a, b)),
                    format!(
                        "keep `{k}` as it was, or expect OLM v1 to refuse the upgrade as an unknown change (it \
                         ignores only descriptions)"
                    ),
                ),
                k => self.unknown(path, &format!("`{k}`"), a, b),
            }
        }
    }

    fn unknown(&mut self, path: &[Seg], what: &str, a: Option<&Value>, b: Option<&Value>) {
        self.push(
            Rule::UnknownChange,
            path,
            format!(
                "{what} {}, a change kubesmith (like OLM v1) cannot prove keeps stored objects valid",
                changed(a, b)
            ),
            "revert it, or check the objects stored in the cluster and pass --allow-breaking".into(),
        );
    }

    fn required(&mut self, path: &mut Vec<Seg>, o: &Map<String, Value>, n: &Map<String, Value>) {
        let (old_req, new_req) = (required(o), required(n));
        let old_props = children(o);
        for name in new_req.difference(&old_req) {
            let seg = Seg::Prop(name.to_string());
            let existed = old_props.contains_key(&seg);
            path.push(seg);
            let (what, fix) = if existed {
                (
                    "became required (it was optional), so objects stored without it no longer validate",
                    "keep it optional, as it was (`Option<T>`)",
                )
            } else {
                (
                    "new required field, so objects stored without it no longer validate",
                    "make it optional: `Option<T>`, or `#[serde(default)]`",
                )
            };
            self.push(Rule::RequiredAdded, path, what.into(), fix.into());
            path.pop();
        }
    }

    fn removed(
        &mut self,
        path: &[Seg],
        name: &str,
        old_child: &Value,
        oc: &BTreeMap<Seg, &Value>,
        nc: &BTreeMap<Seg, &Value>,
    ) {
        // A property added beside it with the same schema is probably the same field under a new name.
        let renamed = nc.iter().find_map(|(seg, s)| match seg {
            Seg::Prop(n) if !oc.contains_key(seg) && same_meaning(s, old_child) => Some(n.clone()),
            _ => None,
        });
        let what = match &renamed {
            Some(to) => format!(
                "field removed ({} was added with the same schema: a rename is a removal), so the values stored \
                 in it are dropped and clients that set it break",
                render(&[&path[..path.len() - 1], &[Seg::Prop(to.clone())]].concat())
            ),
            None => "field removed, so the values stored in it are dropped and clients that set it break".into(),
        };
        let fix = match &renamed {
            Some(_) => format!(
                "keep the JSON name `{name}` (`#[serde(rename = \"{name}\")]` on the renamed Rust field), or serve \
                 a new API version with a conversion webhook"
            ),
            None => "keep the field (say it is deprecated in its doc comment), or serve a new API version with a \
                     conversion webhook"
                .into(),
        };
        self.push(Rule::FieldRemoved, path, what, fix);
    }

    fn default(&mut self, path: &[Seg], a: Option<&Value>, b: Option<&Value>) {
        let what = match (a, b) {
            (None, Some(b)) => format!(
                "default {} added where there was none, so objects stored without the field change meaning",
                show(b)
            ),
            (Some(a), None) => {
                format!("default {} removed, so objects stored without the field change meaning", show(a))
            }
            (Some(a), Some(b)) => format!(
                "default changed from {} to {}, so objects stored without the field change meaning",
                show(a),
                show(b)
            ),
            (None, None) => return,
        };
        self.push(
            Rule::DefaultChanged,
            path,
            what,
            "keep the default as it was; set the new value in the reconciler or in a new API version".into(),
        );
    }

    fn enumeration(&mut self, path: &[Seg], a: Option<&Value>, b: Option<&Value>) {
        let list = |v: Option<&Value>| v.and_then(Value::as_array).cloned().unwrap_or_default();
        let (old, new) = (list(a), list(b));
        if old.is_empty() && !new.is_empty() {
            self.push(
                Rule::EnumAdded,
                path,
                format!(
                    "enum {} added where any value was allowed, so stored objects with other values no longer \
                     validate",
                    show(&Value::Array(new))
                ),
                "leave the field unconstrained and check its values in a validating webhook or the reconciler".into(),
            );
            return;
        }
        let removed: Vec<Value> = old.iter().filter(|v| !new.contains(v)).cloned().collect();
        if removed.is_empty() {
            return;
        }
        let (what, fix) = if new.is_empty() {
            (
                format!(
                    "enum {} removed; any value is allowed now, but OLM v1 refuses this as removing allowed values",
                    show(&Value::Array(old))
                ),
                "keep the enum, adding the values you need to it".to_string(),
            )
        } else {
            (
                format!(
                    "enum value{} {} removed, so stored objects using {} no longer validate",
                    if removed.len() > 1 { "s" } else { "" },
                    removed.iter().map(show).collect::<Vec<_>>().join(", "),
                    if removed.len() > 1 { "them" } else { "it" }
                ),
                "keep the value (the enum variant) and say it is deprecated in its doc comment".to_string(),
            )
        };
        self.push(Rule::EnumValueRemoved, path, what, fix);
    }

    fn bound(&mut self, path: &[Seg], key: &str, a: Option<&Value>, b: Option<&Value>, minimum: bool) {
        let num = |v: Option<&Value>| v.and_then(Value::as_f64);
        if (a.is_some() && num(a).is_none()) || (b.is_some() && num(b).is_none()) {
            return self.unknown(path, &format!("`{key}`"), a, b);
        }
        let (rule, verb) =
            if minimum { (Rule::MinimumTightened, "raised") } else { (Rule::MaximumTightened, "lowered") };
        let beyond = match key {
            "minimum" => "smaller values",
            "maximum" => "larger values",
            "minLength" => "shorter strings",
            "maxLength" => "longer strings",
            "minItems" => "fewer items",
            "maxItems" => "more items",
            "minProperties" => "fewer properties",
            _ => "more properties",
        };
        let what = match (num(a), num(b)) {
            (None, Some(_)) => format!("{key} {} added where there was none", show(b.unwrap_or(&Value::Null))),
            (Some(x), Some(y)) if (minimum && y > x) || (!minimum && y < x) => {
                format!("{key} {verb} from {} to {}", show(a.unwrap_or(&Value::Null)), show(b.unwrap_or(&Value::Null)))
            }
            // Removed or relaxed: every stored object still validates.
            _ => return,
        };
        self.push(
            rule,
            path,
            format!("{what}, so stored objects with {beyond} there no longer validate"),
            "keep the old bound; enforce the tighter one for new objects in a validating webhook".into(),
        );
    }
}

/// The keyword a non-property path step stands for: `items`, `additionalProperties`, `allOf[1]`.
fn keyword(seg: &Seg) -> String {
    match seg {
        Seg::Prop(name) => name.clone(),
        Seg::Items => "items".into(),
        Seg::Values => "additionalProperties".into(),
        Seg::Keyword(k, Some(i)) => format!("{k}[{i}]"),
        Seg::Keyword(k, None) => k.clone(),
    }
}

/// "changed from X to Y", "added: Y", "removed (was X)".
fn changed(a: Option<&Value>, b: Option<&Value>) -> String {
    match (a, b) {
        (Some(a), Some(b)) => format!("changed from {} to {}", show(a), show(b)),
        (None, Some(b)) => format!("added ({})", show(b)),
        (Some(a), None) => format!("removed (was {})", show(a)),
        (None, None) => "changed".into(),
    }
}

/// Two schemas equal but for documentation (descriptions, titles, examples).
pub fn same_meaning(a: &Value, b: &Value) -> bool {
    first_difference(a, b, &mut Vec::new()).is_none()
}

/// The path of the first place two schemas differ, documentation aside (`None` when they do not).
pub fn first_difference(a: &Value, b: &Value, path: &mut Vec<Seg>) -> Option<String> {
    let (Value::Object(o), Value::Object(n)) = (a, b) else {
        return (a != b).then(|| render(path));
    };
    let own = |m: &Map<String, Value>| -> BTreeMap<String, Value> {
        m.iter()
            .filter(|(k, _)| {
                let k = k.as_str();
                (!CHILD_KEYS.contains(&k) || k == "required") && !DOC_KEYS.contains(&k) && !ADVISORY_KEYS.contains(&k)
            })
            .filter(|(k, v)| !(v.is_null() || (**v == Value::Bool(false) && FALSE_BY_DEFAULT.contains(&k.as_str()))))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    if own(o) != own(n) {
        return Some(render(path));
    }
    let (oc, nc) = (children(o), children(n));
    if oc.keys().ne(nc.keys()) {
        let seg = oc.keys().chain(nc.keys()).find(|s| !(oc.contains_key(*s) && nc.contains_key(*s)));
        path.extend(seg.cloned());
        return Some(render(path));
    }
    for (seg, x) in &oc {
        path.push(seg.clone());
        if let Some(found) = first_difference(x, nc[seg], path) {
            return Some(found);
        }
        path.pop();
    }
    None
}
