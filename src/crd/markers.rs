//! kubebuilder markers on CRD types: which struct, enum or field each marker line belongs to.
//!
//! syn keeps no `//` comments, so markers are mapped to items by line numbers. Placement rules (documented in
//! `docs/markers.md`):
//!
//! * A marker belongs to the field, struct or enum whose declaration (its first attribute or doc line) starts
//!   right below it: the run of `//` comment lines directly above, with no blank line in between. Markers may
//!   also sit between the attributes and the declaration.
//! * For a struct or enum (as in controller-gen) a second comment block separated from that run by exactly one
//!   blank line also counts.
//! * Markers must be `//` comments: a `///` line is part of the doc comment, which kube-derive copies into the
//!   schema description, so a `///` marker is an error.
//! * A CRD marker that belongs to nothing, to something else (a fn, an enum variant, a type alias), or to the
//!   wrong kind of target (a field marker on a type, a type marker on a field) is an error at its line.
//!
//! The schema generator leaves placeholders ([`TYPE_KEY`], [`FIELD_KEY`]) where markers apply; [`apply`]
//! replaces them after kube's transforms, [`resource`] applies the CRD-level markers of a spec struct and [`root`]
//! those of them that change the root schema (on the static and the compiled schema alike).
//!
//! [`apply`] works bottom-up (a field's `+optional`/`+required`/`+k8s:immutable` change its parent), in
//! controller-gen's priority order, then refuses, at the last marker involved, bounds that leave no value valid and a
//! `default` the node's own `enum` or bounds reject. The CRD-level markers of a spec struct (`printcolumn`,
//! `resource`, version and subresource markers, `metadata`, `selectablefield`) must agree with its `#[kube(...)]`.
//! [`root`]'s `apply_to_version_schema` is the one function both paths call: the static generator right after
//! [`resource`], the compiled fallback on the schema `crd()` printed; its errors name the marker's file and line on
//! both. A crate without markers produces exactly `Kind::crd()`.

pub(crate) mod apply;
pub(crate) mod resource;
pub(crate) mod root;
pub(crate) mod transplant;

use std::collections::HashMap;

use serde_json::{Value, json};
use syn::spanned::Spanned;

use super::error::{CrdError, CrdErrors};
use super::index::{CrateIndex, ItemId, ItemKind, ModId};
use crate::markers::{self as mk, Marker, MarkerTarget, is_crd_marker};

/// Placeholder key holding the type-marker references of a schema.
pub const TYPE_KEY: &str = "x-kubesmith-type-markers";
/// Placeholder key holding the field-marker references of a schema.
pub const FIELD_KEY: &str = "x-kubesmith-field-markers";

/// A field, identified by (file index, line, column) of its name (or type, for tuple fields).
pub type FieldKey = (usize, usize, usize);

/// Whether a marker configures the CRD (only valid on a `#[derive(CustomResource)]` spec struct): the registry's
/// [`Section::Crd`](mk::Section::Crd).
pub fn is_crd_level(name: &str) -> bool {
    mk::lookup(name).is_some_and(|d| d.section == mk::Section::Crd)
}

/// Markers accepted on types or fields but ignored by the CRD generator.
const IGNORED: &[&str] = &["kubebuilder:object:root", "k8s:enum"];

/// The markers of every struct, enum and field of a crate.
#[derive(Debug, Default, Clone)]
pub struct MarkerIndex {
    items: HashMap<ItemId, Vec<Marker>>,
    fields: HashMap<FieldKey, Vec<Marker>>,
    /// Problems of markers placed on a struct or enum (reported by every kind whose schema uses it).
    item_problems: HashMap<ItemId, Vec<CrdError>>,
    /// Problems of markers placed on a field.
    field_problems: HashMap<FieldKey, Vec<CrdError>>,
    /// Problems of markers that belong to no type or field (and of files whose markers do not scan).
    loose: Vec<CrdError>,
}

#[derive(Debug, Clone)]
enum Target {
    Item(ItemId, String),
    Field(FieldKey, String, bool),
    Other(String),
}

struct Placed {
    start: usize,
    decl: usize,
    target: Target,
}

fn first_line(attrs: &[syn::Attribute], fallback: usize) -> usize {
    attrs.iter().map(|a| a.span().start().line).chain(std::iter::once(fallback)).min().unwrap_or(fallback)
}

fn is_comment(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("//") && !t.starts_with("//!")
}

fn is_serde_flatten(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("serde")
            && a.meta.require_list().is_ok_and(|l| l.tokens.to_string().split(',').any(|t| t.trim() == "flatten"))
    })
}

impl MarkerIndex {
    /// The key of a field defined in module `m`.
    pub fn field_key(ix: &CrateIndex, m: ModId, field: &syn::Field) -> FieldKey {
        let span = field.ident.as_ref().map(|i| i.span()).unwrap_or_else(|| field.ty.span());
        let start = span.start();
        (ix.modules[m].file, start.line, start.column)
    }

    /// Whether some field has a marker or a marker problem (when none has, a field's key need not be worked out:
    /// its span's line and column are looked up in proc-macro2's table of the texts).
    pub fn has_field_markers(&self) -> bool {
        !self.fields.is_empty() || !self.field_problems.is_empty()
    }

    /// Whether no struct, enum or field has a marker (or a marker problem).
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
            && self.fields.is_empty()
            && self.item_problems.is_empty()
            && self.field_problems.is_empty()
    }

    /// The problems of the markers on an item.
    pub fn item_problems(&self, id: ItemId) -> &[CrdError] {
        self.item_problems.get(&id).map(Vec::as_slice).unwrap_or_default()
    }

    /// The problems of the markers on a field.
    pub fn field_problems(&self, key: FieldKey) -> &[CrdError] {
        self.field_problems.get(&key).map(Vec::as_slice).unwrap_or_default()
    }

    /// The problems of markers that belong to no type or field.
    pub fn loose_problems(&self) -> &[CrdError] {
        &self.loose
    }

    /// Every marker problem, wherever it sits.
    pub fn all_problems(&self) -> Vec<CrdError> {
        let placed = self.item_problems.values().chain(self.field_problems.values()).flatten();
        self.loose.iter().chain(placed).cloned().collect()
    }

    /// The markers on an item.
    pub fn item(&self, id: ItemId) -> &[Marker] {
        self.items.get(&id).map(Vec::as_slice).unwrap_or_default()
    }

    /// The markers on a field.
    pub fn field(&self, key: FieldKey) -> &[Marker] {
        self.fields.get(&key).map(Vec::as_slice).unwrap_or_default()
    }

    /// Scans every file of the crate and attaches each CRD marker to its struct, enum or field. A misplaced or
    /// malformed marker is kept as a problem of its target (or as a loose problem), so one bad marker does not hide
    /// the others: see [`MarkerIndex::all_problems`].
    pub fn build(ix: &CrateIndex) -> Self {
        Self::build_with(ix, is_crd_marker)
    }

    /// Like [`MarkerIndex::build`], failing with every problem at once (for callers that need all or nothing).
    pub fn build_strict(ix: &CrateIndex, keep: fn(&str) -> bool) -> Result<Self, CrdErrors> {
        let out = Self::build_with(ix, keep);
        let problems = out.all_problems();
        if problems.is_empty() { Ok(out) } else { Err(CrdErrors::new(problems)) }
    }

    /// Like [`MarkerIndex::build`] for the markers `keep` selects (e.g. the OLM CSV markers).
    pub fn build_with(ix: &CrateIndex, keep: fn(&str) -> bool) -> Self {
        let mut out = MarkerIndex::default();
        for (fi, file) in ix.own_files() {
            // A stub holds no CRD marker (the index parses files that do), unless it is a file another part of a
            // split generation owns, which reports them.
            if file.stub.is_some() {
                continue;
            }
            let (markers, bad) = match file.markers.as_ref() {
                Ok(m) => (m, &[][..]),
                Err(e) => (&e.found, e.diagnostics.as_slice()),
            };
            let markers: Vec<Marker> = markers.iter().filter(|m| keep(&m.name)).cloned().collect();
            if markers.is_empty() && bad.is_empty() {
                continue;
            }
            let lines: Vec<&str> = file.text.lines().collect();
            let targets = targets_of_file(ix, fi);
            let mut owner: HashMap<usize, usize> = HashMap::new();
            for (t, p) in targets.iter().enumerate() {
                for l in attached_lines(&lines, p) {
                    owner.entry(l).or_insert(t);
                }
            }
            // A marker that does not scan (unknown, malformed) belongs to what it sits above, like one that does.
            let unscanned = bad.iter().map(|d| (d.line, Err(CrdError::marker(&d.file, d.line, &d.message))));
            let scanned = markers.into_iter().map(|m| (m.line, Ok(m)));
            for (line, marker) in unscanned.chain(scanned) {
                let placed = owner.get(&line).map(|t| &targets[*t]);
                let problem = match marker {
                    Ok(m) => match out.attach(ix, &lines, placed, m.clone()) {
                        Ok(()) => continue,
                        Err(message) => CrdError::marker(&m.file, m.line, message),
                    },
                    Err(e) => e,
                };
                match placed.map(|p| &p.target) {
                    Some(Target::Item(id, _)) => out.item_problems.entry(*id).or_default().push(problem),
                    Some(Target::Field(key, ..)) => out.field_problems.entry(*key).or_default().push(problem),
                    _ => out.loose.push(problem),
                }
            }
        }
        out
    }

    /// Attaches one marker to the target it sits above, or says why it cannot go there.
    fn attach(&mut self, ix: &CrateIndex, lines: &[&str], placed: Option<&Placed>, m: Marker) -> Result<(), String> {
        let text = lines.get(m.line - 1).copied().unwrap_or_default();
        if text.trim_start().starts_with("///") {
            return Err(format!(
                "marker `+{}` is written in a `///` doc comment, which kube-derive copies into the schema \
                 description (so `Kind::crd()` would differ from the generated YAML); write it as a `//` \
                 comment",
                m.name
            ));
        }
        let def = mk::lookup(&m.name).map(|d| d.target);
        let Some(p) = placed else {
            if IGNORED.contains(&m.name.as_str()) {
                return Ok(());
            }
            if m.name == "kubebuilder:validation:Optional" || m.name == "kubebuilder:validation:Required" {
                return Err(format!(
                    "marker `+{}` is not attached to a field: module-wide default optionality is not \
                     supported (the Rust types decide: Option<T> or #[serde(default)] is optional); put it \
                     directly above a field",
                    m.name
                ));
            }
            return Err(format!(
                "marker `+{}` is not attached to a struct, enum or field: write it on the `//` lines \
                 directly above the field or type (no blank line in between)",
                m.name
            ));
        };
        match &p.target {
            Target::Other(what) => Err(format!(
                "marker `+{}` cannot go on {what}; put it above a struct, an enum or a struct field",
                m.name
            )),
            Target::Item(id, name) => {
                if def == Some(MarkerTarget::Field) {
                    return Err(format!(
                        "`+{}` is a field marker and cannot go on type `{name}`; put it directly above a field",
                        m.name
                    ));
                }
                if is_crd_level(&m.name) && !crate::source::kube_attrs::derives_custom_resource(item_attrs(ix, *id)) {
                    return Err(format!(
                        "`+{}` configures the CRD and only goes on the #[derive(CustomResource)] spec \
                         struct, not on `{name}`",
                        m.name
                    ));
                }
                self.items.entry(*id).or_default().push(m);
                Ok(())
            }
            Target::Field(key, name, flatten) => {
                if def == Some(MarkerTarget::Type) {
                    return Err(format!(
                        "`+{}` is a type marker and cannot go on field `{name}`; put it directly above the \
                         struct or enum (CRD markers go on the #[derive(CustomResource)] spec struct)",
                        m.name
                    ));
                }
                if *flatten && !IGNORED.contains(&m.name.as_str()) && !m.name.starts_with("operator-sdk:") {
                    return Err(format!(
                        "marker `+{}` on #[serde(flatten)] field `{name}`: a flattened field has no schema \
                         of its own; put the markers on the fields (or the type) being flattened",
                        m.name
                    ));
                }
                self.fields.entry(*key).or_default().push(m);
                Ok(())
            }
        }
    }
}

fn item_attrs(ix: &CrateIndex, id: ItemId) -> &[syn::Attribute] {
    match &ix.items[id].kind {
        ItemKind::Struct(s) => &s.attrs,
        ItemKind::Enum(e) => &e.attrs,
        _ => &[],
    }
}

/// Every declaration of one file that markers can sit above.
fn targets_of_file(ix: &CrateIndex, fi: usize) -> Vec<Placed> {
    let mut out = Vec::new();
    let field_targets = |out: &mut Vec<Placed>, m: ModId, fields: &syn::Fields| {
        for f in fields {
            let decl = f.ident.as_ref().map(|i| i.span().start().line).unwrap_or_else(|| f.ty.span().start().line);
            let name = f.ident.as_ref().map(super::index::unraw).unwrap_or_else(|| "0".to_string());
            out.push(Placed {
                start: first_line(&f.attrs, decl),
                decl,
                target: Target::Field(MarkerIndex::field_key(ix, m, f), name, is_serde_flatten(&f.attrs)),
            });
        }
    };
    for (id, item) in ix.items.iter().enumerate() {
        if ix.modules[item.module].file != fi {
            continue;
        }
        match &item.kind {
            ItemKind::Struct(s) => {
                let decl = s.struct_token.span.start().line;
                out.push(Placed {
                    start: first_line(&s.attrs, decl),
                    decl,
                    target: Target::Item(id, item.name.clone()),
                });
                field_targets(&mut out, item.module, &s.fields);
            }
            ItemKind::Enum(e) => {
                let decl = e.enum_token.span.start().line;
                out.push(Placed {
                    start: first_line(&e.attrs, decl),
                    decl,
                    target: Target::Item(id, item.name.clone()),
                });
                for v in &e.variants {
                    let decl = v.ident.span().start().line;
                    out.push(Placed {
                        start: first_line(&v.attrs, decl),
                        decl,
                        target: Target::Other(format!("enum variant `{}`", v.ident)),
                    });
                    field_targets(&mut out, item.module, &v.fields);
                }
            }
            ItemKind::Alias(t) => {
                let decl = t.type_token.span.start().line;
                out.push(Placed {
                    start: first_line(&t.attrs, decl),
                    decl,
                    target: Target::Other(format!(
                        "type alias `{}` (aliases are transparent to the schema; use a newtype struct or put the \
                         markers on the fields)",
                        t.ident
                    )),
                });
            }
            ItemKind::Fn(f) => {
                let decl = f.sig.fn_token.span.start().line;
                out.push(Placed {
                    start: first_line(&f.attrs, decl),
                    decl,
                    target: Target::Other(format!("fn `{}`", f.sig.ident)),
                });
            }
            ItemKind::Const(c) => {
                let decl = c.const_token.span.start().line;
                out.push(Placed {
                    start: first_line(&c.attrs, decl),
                    decl,
                    target: Target::Other(format!("const `{}`", c.ident)),
                });
            }
            ItemKind::Static(st) => {
                let decl = st.static_token.span.start().line;
                out.push(Placed {
                    start: first_line(&st.attrs, decl),
                    decl,
                    target: Target::Other(format!("static `{}`", st.ident)),
                });
            }
        }
    }
    out
}

/// The 1-based lines whose markers belong to the declaration `p`.
fn attached_lines(lines: &[&str], p: &Placed) -> Vec<usize> {
    let text = |l: usize| lines.get(l.wrapping_sub(1)).copied().unwrap_or_default();
    let mut out: Vec<usize> = (p.start..p.decl).filter(|l| is_comment(text(*l))).collect();
    let mut l = p.start.saturating_sub(1);
    while l >= 1 && is_comment(text(l)) {
        out.push(l);
        l -= 1;
    }
    if matches!(p.target, Target::Item(..)) && l >= 2 && text(l).trim().is_empty() && is_comment(text(l - 1)) {
        l -= 1;
        while l >= 1 && is_comment(text(l)) {
            out.push(l);
            l -= 1;
        }
    }
    out
}

impl MarkerIndex {
    /// The markers the placeholders of `schema` refer to (problems left out), for the compiled fallback, which
    /// applies them after the generation that built this index.
    pub fn subset_for(&self, schema: &Value) -> MarkerIndex {
        let mut out = MarkerIndex::default();
        let mut stack = vec![schema];
        while let Some(v) = stack.pop() {
            match v {
                Value::Object(o) => {
                    for r in o.get(TYPE_KEY).and_then(Value::as_array).into_iter().flatten() {
                        if let Some(id) = r.as_u64().map(|id| id as ItemId) {
                            out.items.entry(id).or_insert_with(|| self.item(id).to_vec());
                        }
                    }
                    for r in o.get(FIELD_KEY).and_then(Value::as_array).into_iter().flatten() {
                        if let Some(k) = apply::field_key(r) {
                            out.fields.entry(k).or_insert_with(|| self.field(k).to_vec());
                        }
                    }
                    stack.extend(o.values());
                }
                Value::Array(a) => stack.extend(a),
                _ => {}
            }
        }
        out
    }
}

/// Adds a placeholder reference to `schema` (an object after [`super::attrs::insert`]).
pub fn add_placeholder(schema: &mut Value, key: &str, reference: Value) {
    super::attrs::insert(schema, "__tmp", Value::Null);
    if let Value::Object(o) = schema {
        o.remove("__tmp");
        match o.entry(key).or_insert_with(|| json!([])) {
            Value::Array(a) => {
                if !a.contains(&reference) {
                    a.push(reference);
                }
            }
            other => *other = json!([reference]),
        }
    }
}

/// The placeholder reference of a type.
pub fn type_ref(id: ItemId) -> Value {
    json!(id)
}

/// The placeholder reference of a field.
pub fn field_ref(key: FieldKey) -> Value {
    json!([key.0, key.1, key.2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crd_level_markers_are_registered_type_markers() {
        let crd_level: Vec<&str> =
            mk::registry().iter().filter(|d| is_crd_level(&d.name)).map(|d| d.name.as_str()).collect();
        assert_eq!(crd_level.len(), 21, "{crd_level:?}");
        for name in crd_level {
            assert_eq!(mk::lookup(name).map(|d| d.target), Some(MarkerTarget::Type), "{name}");
        }
    }

    #[test]
    fn attached_lines_follow_the_placement_rules() {
        let text = "// a\n// +x\n\n// +type-extra\n\n/// doc\n// +y\n#[derive(X)]\n// +z\nstruct S;";
        let lines: Vec<&str> = text.lines().collect();
        let item = Placed { start: 6, decl: 10, target: Target::Item(0, "S".into()) };
        let mut got = attached_lines(&lines, &item);
        got.sort();
        // Lines 6..9 (doc, markers and attributes) and one block across one blank line; not across two.
        assert_eq!(got, vec![4, 6, 7, 9]);
        let field = Placed { start: 6, decl: 10, target: Target::Field((0, 10, 0), "s".into(), false) };
        let mut got = attached_lines(&lines, &field);
        got.sort();
        assert_eq!(got, vec![6, 7, 9]);
    }
}
