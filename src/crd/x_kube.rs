//! Applying `#[x_kube(validation = .., merge_strategy = ..)]` (kube's `KubeSchema` derive) to a field's or a
//! type's schema.

use serde_json::{Value, json};
use syn::Expr;

use super::attrs::insert;
use crate::source::kube_attrs::{err, lit_string, rule, strip_into};
use crate::source::meta::{MetaValue, meta_items};

/// Apply `#[x_kube(validation = .., merge_strategy = ..)]` (KubeSchema) to a schema.
pub fn apply_x_kube(attrs_list: &[syn::Attribute], schema: &mut Value) -> syn::Result<()> {
    for item in meta_items(attrs_list, "x_kube")? {
        let MetaValue::Expr(e) = &item.value else {
            if item.name == "cel" {
                continue;
            }
            return Err(err(item.span, format!("unsupported #[x_kube({})]", item.name)));
        };
        match item.name.as_str() {
            "validation" => {
                let r = rule(e).ok_or_else(|| {
                    err(item.span, "this validation rule cannot be evaluated statically; use literals")
                })?;
                let obj = match schema {
                    Value::Object(o) => o,
                    _ => {
                        *schema = json!({});
                        schema.as_object_mut().ok_or_else(|| err(item.span, "invalid schema"))?
                    }
                };
                match obj.get_mut("x-kubernetes-validations") {
                    Some(Value::Array(a)) => a.push(r),
                    _ => {
                        obj.insert("x-kubernetes-validations".into(), json!([r]));
                    }
                }
            }
            "merge_strategy" => {
                let (key, value, keys) = merge_strategy(e).ok_or_else(|| err(item.span, "unknown merge strategy"))?;
                insert(schema, key, Value::String(value));
                if let Some(keys) = keys {
                    insert(schema, "x-kubernetes-list-map-keys", keys);
                }
            }
            other => return Err(err(item.span, format!("unsupported #[x_kube({other})]"))),
        }
    }
    Ok(())
}

fn merge_strategy(e: &Expr) -> Option<(&'static str, String, Option<Value>)> {
    let (path, arg) = match strip_into(e) {
        Expr::Path(p) => (&p.path, None),
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) => (&p.path, c.args.first()),
            _ => return None,
        },
        _ => return None,
    };
    let segs = crate::source::lex::path_segs(path);
    let (ty, variant) = match segs.as_slice() {
        [.., t, v] => (t.as_str(), v.as_str()),
        _ => return None,
    };
    let key = match ty {
        "ListMerge" => "x-kubernetes-list-type",
        "MapMerge" => "x-kubernetes-map-type",
        "StructMerge" => "x-kubernetes-struct-type",
        _ => return None,
    };
    let value = variant.to_ascii_lowercase();
    let keys = match (ty, variant, arg) {
        ("ListMerge", "Map", Some(a)) => {
            let Expr::Macro(m) = strip_into(a) else {
                return None;
            };
            let list =
                m.mac.parse_body_with(syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated).ok()?;
            Some(Value::Array(
                list.iter().map(lit_string).collect::<Option<Vec<_>>>()?.into_iter().map(Value::String).collect(),
            ))
        }
        _ => None,
    };
    Some((key, value, keys))
}
