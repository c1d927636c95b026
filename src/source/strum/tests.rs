//! The discriminants enum against what strum_macros 0.27 writes.

use super::*;

fn generated(src: &str) -> Option<String> {
    let e: syn::ItemEnum = syn::parse_str(src).unwrap();
    discriminants(&e).map(|d| quote!(#d).to_string())
}

fn text(src: &str) -> String {
    let e: syn::ItemEnum = syn::parse_str(src).unwrap();
    quote!(#e).to_string()
}

#[test]
fn the_discriminants_enum_has_the_named_derives_passthroughs_and_variant_docs() {
    let got = generated(
        r#"
        /// Not copied.
        #[derive(Debug, strum::EnumDiscriminants)]
        #[strum_discriminants(name(SecretFormat), derive(Serialize, JsonSchema), serde(rename_all = "kebab-case"))]
        #[strum_discriminants(doc = "The formats.")]
        pub enum Data {
            /// PEM files.
            #[serde(skip)]
            TlsPem(Pem),
            #[strum_discriminants(serde(rename = "p12"))]
            TlsPkcs12 { store: Vec<u8> },
        }
        "#,
    );
    let want = text(
        r#"
        #[doc = "The formats."]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
        #[serde(rename_all = "kebab-case")]
        pub enum SecretFormat {
            /// PEM files.
            TlsPem,
            #[serde(rename = "p12")]
            TlsPkcs12
        }
        "#,
    );
    assert_eq!(got.unwrap(), want);
}

#[test]
fn the_default_name_and_visibility_are_the_enums() {
    let got = generated("#[derive(EnumDiscriminants)] #[repr(u8)] pub(crate) enum Phase { A = 1, B(u8) }");
    let want = text(
        "#[derive(Clone, Copy, Debug, PartialEq, Eq, )] #[repr(u8)] pub(crate) enum PhaseDiscriminants { A = 1, B }",
    );
    assert_eq!(got.unwrap(), want);
    assert_eq!(generated("#[derive(Debug)] enum Plain { A }"), None);
}
