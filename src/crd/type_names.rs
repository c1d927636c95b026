//! What a type path written in a module names, as [`super::types::classify`] reads it (generic arguments aside),
//! kept by the crate index per module and path ([`super::index::CrateIndex::type_named`]): every field of a module
//! names the same few types (`Option`, `String`, the module's own structs), so each is worked out once. What a path
//! names depends only on the index, which does not change once loaded, and on the k8s-openapi table, which is part
//! of the key.

use serde_json::Value;

use super::k8s::K8sTable;

/// Scalar kinds, for default-value evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarKind {
    /// Serialized as a JSON string.
    Str,
    /// `bool`.
    Bool,
    /// An integer.
    Int,
    /// A float.
    Float,
    /// Anything else (objects like `std::time::Duration`).
    Other,
}

/// What a type path names.
#[derive(Debug, Clone)]
pub(crate) enum Named {
    /// A type alias of the crate (its item id).
    Alias(usize),
    /// A struct or enum of the crate with type parameters.
    Generic(usize),
    /// A struct or enum of the crate.
    Item(usize),
    /// `Option<T>`; the name the path leads to, for errors.
    Option(String),
    /// `Vec<T>` and the other sequences; sets are `set` (uniqueItems).
    Seq { set: bool, name: String },
    /// `BTreeMap<K, V>` and the other maps.
    Map(String),
    /// `Box<T>` and the other wrappers: the schema of T.
    Wrapper(String),
    /// `serde_json::Value`.
    JsonValue,
    /// A k8s-openapi type (its table key).
    K8s(String),
    /// A scalar with its raw schemars schema.
    Scalar(ScalarKind, Value),
    /// A type only compiling can read: the type as written, and why.
    NeedsCompile { written: String, why: String },
    /// A name that is no type: the name, and what to do.
    Unresolved { name: String, hint: String },
}

/// The memo's key for `path` written in `module` with the k8s-openapi table `k8s`, built in `key`: no allocation
/// once `key` has grown to its size. The module and the table's address as bytes (every table lives as long as the
/// process: [`K8sTable`]'s constructors hand out `&'static` ones, so its address names it), then the path's
/// segments without `r#`, as resolution reads them.
pub(crate) fn write_key(key: &mut Vec<u8>, module: usize, k8s: &K8sTable, path: &syn::Path) {
    use std::io::Write;
    key.clear();
    key.extend_from_slice(&module.to_le_bytes());
    key.extend_from_slice(&(std::ptr::from_ref(k8s) as usize).to_le_bytes());
    // `pairs`, not `iter`: syn boxes the iterator `iter` returns (an allocation per lookup).
    for seg in path.segments.pairs().map(syn::punctuated::Pair::into_value) {
        key.push(b':');
        let start = key.len();
        let _ = write!(key, "{}", seg.ident);
        if key[start..].starts_with(b"r#") {
            key.drain(start..start + 2);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::write_key;
    use crate::crd::k8s::K8sTable;

    #[test]
    fn keys_tell_modules_tables_and_paths_apart_and_drop_raw_prefixes() {
        let (new, old) = (K8sTable::default_table(), K8sTable::for_crate("1.28", Some("0.20.0")));
        let key = |module: usize, k8s: &'static K8sTable, path: &str| {
            let mut k = b"left over".to_vec();
            write_key(&mut k, module, k8s, &syn::parse_str(path).unwrap());
            k
        };
        let table = std::ptr::from_ref(new) as usize;
        let want = [&3usize.to_le_bytes()[..], &table.to_le_bytes(), b":std:option:Option"].concat();
        assert_eq!(key(3, new, "std::option::Option"), want);
        assert_eq!(key(3, new, "r#gen::Thing"), key(3, new, "gen::Thing"));
        // `::a::B` resolves as `a::B` does
        assert_eq!(key(3, new, "::a::B"), key(3, new, "a::B"));
        assert_ne!(key(3, new, "Thing"), key(4, new, "Thing"));
        assert_ne!(key(3, new, "Thing"), key(3, old, "Thing"));
    }
}
