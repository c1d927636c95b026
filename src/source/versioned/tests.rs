//! The expansion of stackable-versioned modules, item by item, against what the macro writes.

use super::*;

fn expanded(src: &str) -> String {
    let file = syn::parse_file(src).unwrap();
    let items = expand_all(file.items);
    let file = syn::File { shebang: None, attrs: Vec::new(), items };
    prettyplease_like(&file)
}

/// Each item's tokens on a line (a trailing comma in a field or variant list left out), enough to compare.
fn prettyplease_like(file: &syn::File) -> String {
    file.items.iter().map(|i| quote!(#i).to_string().replace(" , }", " }")).collect::<Vec<_>>().join("\n")
}

fn item_text(src: &str) -> String {
    let file = syn::parse_file(src).unwrap();
    prettyplease_like(&file)
}

#[test]
fn versions_are_ordered_as_kubernetes_orders_them() {
    let mut names = ["v1", "v1beta1", "v2alpha1", "v1alpha2", "v1alpha1", "v10"];
    names.sort_by_key(|n| version_order(n).unwrap());
    assert_eq!(names, ["v1alpha1", "v1alpha2", "v1beta1", "v1", "v2alpha1", "v10"]);
    assert!(version_order("v1gamma1").is_none() && version_order("1").is_none() && version_order("v1beta").is_none());
}

#[test]
fn a_module_becomes_one_module_per_version_with_each_field_as_that_version_has_it() {
    let got = expanded(
        r#"
        use stackable_operator::versioned::versioned;
        #[versioned(
            version(name = "v1alpha1"),
            version(name = "v1beta1", doc = "  The beta.\n   Second line.  "),
            version(name = "v1"),
            crates(kube_core = "stackable_operator::kube::core"),
            options(k8s(enable_tracing))
        )]
        pub mod versioned {
            /// A flock.
            #[versioned(crd(group = "herd.example.org", plural = "flocks", shortname = "fl", shortname = "f",
                namespaced, status = "v1::FlockStatus", doc = "Sheep together."))]
            #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
            #[serde(rename_all = "camelCase")]
            pub struct FlockSpec {
                /// Head count.
                #[versioned(changed(since = "v1", from_name = "count", from_type = "u16"))]
                pub size: u32,
                #[versioned(added(since = "v1beta1"), hint(option))]
                pub colour: Option<String>,
                #[versioned(deprecated(since = "v1beta1", note = "use size"))]
                deprecated_sheep: u8,
            }
            #[derive(Serialize, Deserialize, JsonSchema)]
            pub enum Kind {
                #[versioned(changed(since = "v1", from_name = "ExperimentalWool"))]
                Wool(u8),
                #[versioned(deprecated(since = "v1"))]
                DeprecatedMeat {},
            }
            mod v1 {
                pub use crate::status::FlockStatus;
            }
        }
        "#,
    );
    let want = item_text(
        r#"
        use stackable_operator::versioned::versioned;
        #[kubesmith_stackable_versioned]
        pub mod v1alpha1 {
            use super::*;
            /// A flock.
            #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
            #[serde(rename_all = "camelCase")]
            #[kube(group = "herd.example.org", version = "v1alpha1", kind = "Flock", doc = "Sheep together.",
                plural = "flocks", namespaced, status = "v1::FlockStatus", shortname = "fl", shortname = "f")]
            pub struct FlockSpec {
                /// Head count.
                pub count: u16,
                pub sheep: u8,
            }
            #[derive(Serialize, Deserialize, JsonSchema)]
            pub enum Kind {
                ExperimentalWool(u8),
                Meat {},
            }
        }
        #[kubesmith_stackable_versioned]
        pub mod v1beta1 {
            use super::*;
            #[doc = "The beta."]
            #[doc = "Second line."]
            /// A flock.
            #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
            #[serde(rename_all = "camelCase")]
            #[kube(group = "herd.example.org", version = "v1beta1", kind = "Flock", doc = "Sheep together.",
                plural = "flocks", namespaced, status = "v1::FlockStatus", shortname = "fl", shortname = "f")]
            pub struct FlockSpec {
                /// Head count.
                pub count: u16,
                pub colour: Option<String>,
                #[deprecated = "use size"]
                pub deprecated_sheep: u8,
            }
            #[doc = "The beta."]
            #[doc = "Second line."]
            #[derive(Serialize, Deserialize, JsonSchema)]
            pub enum Kind {
                ExperimentalWool(u8),
                Meat {},
            }
        }
        #[kubesmith_stackable_versioned]
        pub mod v1 {
            use super::*;
            pub use crate::status::FlockStatus;
            /// A flock.
            #[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
            #[serde(rename_all = "camelCase")]
            #[kube(group = "herd.example.org", version = "v1", kind = "Flock", doc = "Sheep together.",
                plural = "flocks", namespaced, status = "v1::FlockStatus", shortname = "fl", shortname = "f")]
            pub struct FlockSpec {
                /// Head count.
                pub size: u32,
                pub colour: Option<String>,
                #[deprecated]
                pub deprecated_sheep: u8,
            }
            #[derive(Serialize, Deserialize, JsonSchema)]
            pub enum Kind {
                Wool(u8),
                #[deprecated]
                DeprecatedMeat {},
            }
        }
        "#,
    );
    assert_eq!(got, want);
}

#[test]
fn preserve_module_keeps_the_module_around_public_version_modules() {
    let got = expanded(
        r#"
        #[stackable_versioned::versioned(version(name = "v1"), options(preserve_module))]
        pub(crate) mod kept {
            #[versioned(crd(group = "k.example.dev", kind = "Chain"))]
            pub struct LinkSpec { a: u8 }
        }
        "#,
    );
    let want = item_text(
        r#"
        pub(crate) mod kept {
            #[kubesmith_stackable_versioned]
            pub mod v1 {
                use super::*;
                #[kube(group = "k.example.dev", version = "v1", kind = "Chain")]
                pub struct LinkSpec { pub a: u8 }
            }
        }
        "#,
    );
    assert_eq!(got, want);
}

#[test]
fn what_the_expansion_does_not_model_stays_as_written() {
    for src in [
        // another crate's `versioned` macro
        r#"use loom::versioned; #[versioned(version(name = "v1"))] mod m { pub struct ASpec { a: u8 } }"#,
        "#[loom::versioned(version(name = \"v1\"))] mod m { pub struct ASpec { a: u8 } }",
        // an item the macro refuses, an unknown argument, conversion tracking's generated status
        "#[stackable_versioned::versioned(version(name = \"v1\"))] mod m { fn f() {} }",
        "#[stackable_versioned::versioned(version(name = \"v1\"), future(x))] mod m { pub struct A { a: u8 } }",
        "#[stackable_versioned::versioned(version(name = \"v1\"), options(k8s(experimental_conversion_tracking)))] \
         mod m { #[versioned(crd(group = \"g\"))] pub struct ASpec { a: u8 } }",
        // an action naming a version the module does not declare
        "#[stackable_versioned::versioned(version(name = \"v1\"))] mod m { pub struct A { \
         #[versioned(added(since = \"v2\"))] a: u8 } }",
    ] {
        assert_eq!(expanded(src), item_text(src), "{src}");
    }
}

/// What the expansion refuses to model (a newer macro's argument) still names the versions and the kind for the
/// readers that do not expand (RBAC inference), read by the same parsers leniently.
#[test]
fn names_and_kinds_are_read_leniently_where_the_expansion_refuses() {
    let src = r#"
        use stackable_operator::versioned::versioned;
        #[versioned(version(name = "v1beta1"), version(name = "v1alpha1", future = "x"), newer_option(a))]
        pub mod versioned {
            #[versioned(crd(group = "herd.example.org", plural = "flocks", namespaced, future_key = 1), skip(from))]
            pub struct FlockSpec {}
        }
    "#;
    let file = syn::parse_file(src).unwrap();
    let syn::Item::Mod(m) = &file.items[1] else { panic!("a module") };
    assert!(module_args(&m.attrs[0], Mode::Strict).is_err(), "the expansion does not model `future` or `newer_option`");
    assert_eq!(expanded(src), item_text(src), "so it leaves the module as written");
    assert_eq!(version_names(&m.attrs), ["v1alpha1", "v1beta1"], "in Kubernetes' order");
    let syn::Item::Struct(s) = &m.content.as_ref().unwrap().1[0] else { panic!("a struct") };
    let kind = spec_kind(&s.attrs, &s.ident).unwrap();
    assert_eq!(
        kind,
        SpecKind {
            group: "herd.example.org".into(),
            kind: "Flock".into(),
            singular: None,
            plural: Some("flocks".into()),
            namespaced: true
        }
    );
    let field: syn::ItemStruct = syn::parse_quote! { #[versioned(deprecated(since = "v1"))] struct Field {} };
    assert_eq!(spec_kind(&field.attrs, &field.ident), None, "a field's or variant's attribute names no kind");
    let groupless: syn::ItemStruct = syn::parse_quote! { #[versioned(crd(kind = "Ewe"))] struct EweSpec {} };
    assert_eq!(spec_kind(&groupless.attrs, &groupless.ident), None, "a kind without a group is the macro's error");
}
