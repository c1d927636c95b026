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
    /// `pub use` (a re-export) or not; [`flatten_use`] leaves it private, its caller sets the `use` item's.
    pub vis: Vis,
}

/// How far a module, a `use` or an item can be named from elsewhere (what naming a type from the crate root or
/// from another crate needs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Vis {
    /// Private (or `pub(super)` / `pub(in ..)`, which are treated as private).
    #[default]
    Private,
    /// `pub(crate)`: anywhere in the crate.
    Crate,
    /// `pub`.
    Public,
}

impl Vis {
    /// The visibility syn read.
    pub fn of(vis: &syn::Visibility) -> Self {
        match vis {
            syn::Visibility::Public(_) => Vis::Public,
            syn::Visibility::Restricted(r) if r.path.is_ident("crate") && r.in_token.is_none() => Vis::Crate,
            _ => Vis::Private,
        }
    }
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
                    out.push(UseEntry { alias: last.clone(), path: prefix.clone(), glob: false, vis: Vis::Private });
                }
            } else {
                let mut path = prefix.clone();
                path.push(name.clone());
                out.push(UseEntry { alias: name, path, glob: false, vis: Vis::Private });
            }
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            let name = unraw(&r.ident);
            if name != "self" {
                path.push(name);
            }
            out.push(UseEntry { alias: unraw(&r.rename), path, glob: false, vis: Vis::Private });
        }
        syn::UseTree::Glob(_) => {
            out.push(UseEntry { alias: String::new(), path: prefix.clone(), glob: true, vis: Vis::Private })
        }
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
