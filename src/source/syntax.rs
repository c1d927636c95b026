//! Small syntax helpers every reader of Rust source shares: `use` trees, identifiers, `#[cfg(test)]`, `#[path]`.

/// A `use` entry: `alias` stands for `path` (already absolute when it starts with `crate`).
#[derive(Debug, Clone)]
pub struct UseEntry {
    /// Name introduced (empty for globs).
    pub alias: String,
    /// Path segments.
    pub path: Vec<String>,
    /// `use path::*`.
    pub glob: bool,
}

/// Flattens a `use` tree into one entry per name it imports (`use a::{b, c as d, e::*}` → `b`, `d`, glob `a::e`).
pub fn flatten_use(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<UseEntry>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(unraw(&p.ident));
            flatten_use(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = unraw(&n.ident);
            if name == "self" {
                if let Some(last) = prefix.last() {
                    out.push(UseEntry { alias: last.clone(), path: prefix.clone(), glob: false });
                }
            } else {
                let mut path = prefix.clone();
                path.push(name.clone());
                out.push(UseEntry { alias: name, path, glob: false });
            }
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            let name = unraw(&r.ident);
            if name != "self" {
                path.push(name);
            }
            out.push(UseEntry { alias: unraw(&r.rename), path, glob: false });
        }
        syn::UseTree::Glob(_) => out.push(UseEntry { alias: String::new(), path: prefix.clone(), glob: true }),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                flatten_use(t, prefix, out);
            }
        }
    }
}

/// Identifier text without a leading `r#`.
pub fn unraw(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_string).unwrap_or(s)
}

/// Whether `attrs` hold `#[cfg(test)]`.
pub fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("cfg") && a.meta.require_list().is_ok_and(|l| l.tokens.to_string().trim() == "test"))
}

/// The value of a `#[path = ".."]` attribute.
pub fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find(|a| a.path().is_ident("path")).and_then(|a| match &a.meta {
        syn::Meta::NameValue(nv) => match &nv.value {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}
