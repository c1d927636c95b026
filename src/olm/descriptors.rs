//! OLM owned-CRD descriptions from the sources: the `// +operator-sdk:csv:customresourcedefinitions:` markers on
//! a `#[derive(CustomResource)]` spec struct (`displayName`, `resources`, `order`) and on the fields reachable from
//! its spec and status (`type=spec|status`, `displayName`, `xDescriptors`, `order`), with doc comments as
//! descriptions, like operator-sdk's Go marker parser.

use serde_json::{Map, Value, json};

use crate::crd::attrs;
use crate::crd::error::{CrdError, CrdErrors};
use crate::crd::index::{CrateIndex, ItemId, ItemKind, ModId, Resolved, SourceSet, unraw};
use crate::crd::markers::MarkerIndex;
use crate::markers::{Marker, MarkerValue};
use crate::source::kube_attrs;

const CSV_MARKER: &str = "operator-sdk:csv:customresourcedefinitions";

/// The description of one kind version, for `spec.customresourcedefinitions.owned`.
#[derive(Debug, Clone, PartialEq)]
pub struct CsvDescription {
    pub group: String,
    pub version: String,
    pub kind: String,
    /// `description`, `displayName`, `resources`, `specDescriptors`, `statusDescriptors` (only those known).
    pub fields: Map<String, Value>,
}

fn is_csv_marker(name: &str) -> bool {
    name == CSV_MARKER
}

/// Descriptions of every `#[derive(CustomResource)]` of the crate, in source order.
pub fn descriptions(sources: &SourceSet) -> Result<Vec<CsvDescription>, CrdErrors> {
    let ix = CrateIndex::load(sources)?;
    if !ix.problems.is_empty() {
        return Err(CrdErrors::new(ix.problems.clone()));
    }
    let mi = MarkerIndex::build_strict(&ix, is_csv_marker)?;
    let mut out = Vec::new();
    for (id, item) in ix.items.iter().enumerate() {
        let ItemKind::Struct(s) = &item.kind else {
            continue;
        };
        if !crate::source::kube_attrs::derives_custom_resource(&s.attrs) {
            continue;
        }
        let Ok(k) = kube_attrs::parse(&s.attrs, s.ident.span()) else {
            continue;
        };
        let mut fields = Map::new();
        let doc = k.doc.clone().or_else(|| attrs::doc_text(&s.attrs)).map(|d| one_line(&d));
        if let Some(d) = doc.filter(|d| !d.is_empty()) {
            fields.insert("description".into(), json!(d));
        }
        let type_markers: Vec<&Marker> = mi.item(id).iter().filter(|m| m.name == CSV_MARKER).collect();
        if let Some(name) = type_markers.iter().find_map(|m| m.string("displayName")) {
            fields.insert("displayName".into(), json!(name));
        }
        let mut resources = Vec::new();
        for m in &type_markers {
            if let Some(MarkerValue::List(items)) = m.arg("resources") {
                for r in items {
                    let parts = r.to_string_list();
                    if parts.len() < 2 {
                        return Err(CrdError::marker(
                            &m.file,
                            m.line,
                            format!("resource {parts:?} did not have at least a kind and a version"),
                        )
                        .into());
                    }
                    resources.push(json!({"kind": parts[0], "name": parts.get(2).cloned().unwrap_or_default(),
                        "version": parts[1]}));
                }
            }
        }
        resources.sort_by_key(|r| (r["name"].to_string(), r["kind"].to_string(), r["version"].to_string()));
        if !resources.is_empty() {
            fields.insert("resources".into(), Value::Array(resources));
        }
        let mut spec = Vec::new();
        walk(&ix, &mi, id, "", "spec", &mut spec, 0);
        if let Some((status, _)) = &k.status
            && let Ok(syn::Type::Path(p)) = syn::parse_str::<syn::Type>(status)
        {
            let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            if let Resolved::Item(sid) = ix.resolve(item.module, &segs, is_struct) {
                let mut status = Vec::new();
                walk(&ix, &mi, sid, "", "status", &mut status, 0);
                insert_descriptors(&mut fields, "statusDescriptors", status);
            }
        }
        insert_descriptors(&mut fields, "specDescriptors", spec);
        out.push(CsvDescription { group: k.group.clone(), version: k.version.clone(), kind: k.kind.clone(), fields });
    }
    Ok(out)
}

fn insert_descriptors(fields: &mut Map<String, Value>, key: &str, mut list: Vec<(i64, String, Value)>) {
    if list.is_empty() {
        return;
    }
    list.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    fields.insert(key.into(), Value::Array(list.into_iter().map(|(_, _, v)| v).collect()));
}

fn one_line(doc: &str) -> String {
    doc.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn is_struct(k: &ItemKind) -> bool {
    matches!(k, ItemKind::Struct(_))
}

/// The struct a field type leads to (through `Option`, `Box`, `Vec`...), and whether a list was crossed.
fn inner_path(ty: &syn::Type) -> Option<(Vec<String>, bool)> {
    let syn::Type::Path(p) = ty else {
        return None;
    };
    let last = p.path.segments.last()?;
    let name = last.ident.to_string();
    if matches!(name.as_str(), "Option" | "Box" | "Arc" | "Rc" | "Vec" | "BTreeSet" | "HashSet") {
        let arg = crate::crd::types::type_args(&p.path).into_iter().next()?;
        let (segs, list) = inner_path(&arg)?;
        return Some((segs, list || matches!(name.as_str(), "Vec" | "BTreeSet" | "HashSet")));
    }
    Some((p.path.segments.iter().map(|s| s.ident.to_string()).collect(), false))
}

fn walk(
    ix: &CrateIndex,
    mi: &MarkerIndex,
    id: ItemId,
    prefix: &str,
    which: &str,
    out: &mut Vec<(i64, String, Value)>,
    depth: usize,
) {
    if depth > 8 {
        return;
    }
    let item = &ix.items[id];
    let ItemKind::Struct(s) = &item.kind else {
        return;
    };
    let module: ModId = item.module;
    let container = attrs::container_attrs(&s.attrs).unwrap_or_default();
    for f in &s.fields {
        let Some(ident) = &f.ident else {
            continue;
        };
        let fa = attrs::field_attrs(&f.attrs).unwrap_or_default();
        if fa.skip_ser && fa.skip_de {
            continue;
        }
        let rust_name = unraw(ident);
        let json_name = fa
            .rename
            .clone()
            .unwrap_or_else(|| container.rename_all.map(|r| r.apply_to_field(&rust_name)).unwrap_or(rust_name.clone()));
        let path = if fa.flatten {
            prefix.to_string()
        } else if prefix.is_empty() {
            json_name
        } else {
            format!("{prefix}.{json_name}")
        };
        let key = MarkerIndex::field_key(ix, module, f);
        for m in mi.field(key).iter().filter(|m| m.name == CSV_MARKER && m.string("type") == Some(which)) {
            let mut d = Map::new();
            if let Some(doc) = attrs::doc_text(&f.attrs).map(|d| one_line(&d)).filter(|d| !d.is_empty()) {
                d.insert("description".into(), json!(doc));
            }
            let display = m.string("displayName").map(str::to_string);
            d.insert("displayName".into(), json!(display.unwrap_or_else(|| crate::names::display_name(&rust_name))));
            d.insert("path".into(), json!(path));
            let xs = m.strings("xDescriptors");
            if !xs.is_empty() {
                d.insert("x-descriptors".into(), json!(xs));
            }
            let order = match m.arg("order") {
                Some(MarkerValue::Int(n)) => *n,
                _ => i64::MAX,
            };
            out.push((order, path.clone(), Value::Object(d)));
        }
        if let Some((segs, list)) = inner_path(&f.ty)
            && let Resolved::Item(child) = ix.resolve(module, &segs, is_struct)
            && child != id
        {
            let child_prefix = if list && !fa.flatten { format!("{path}[0]") } else { path };
            walk(ix, mi, child, &child_prefix, which, out, depth + 1);
        }
    }
}
