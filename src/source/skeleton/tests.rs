//! Skeletons round-trip: what naming and typing read is the same from a stored skeleton as from the parsed file.

use super::*;

const SAMPLE: &str = r#"
    use crate::{a::{self, B as C}, d::*};
    pub(crate) use ::k8s_openapi::api::core::v1 as corev1;
    #[path = "x/y.rs"] mod y;
    mod inline { pub fn f<T: Clone + ?Sized>(t: &T) -> Option<T> where T: Send { None } }
    #[cfg(test)] mod tests { fn t() {} }
    pub async fn run(self_: Arc<Ctx>, api: Api<Pod>, f: impl Fn(u8) -> u8, g: Box<dyn Trait<X, Output = Y> + Send>) {}
    #[derive(CustomResource, Clone)]
    #[kube(group = "g.io", version = "v1", kind = "K")]
    /// doc
    pub struct KSpec<T> { pub a: Vec<T>, r#type: [u8; 4], c: (A, *const B), d: <T as Tr>::X }
    struct Tup(u8, String);
    struct Unit;
    enum E<T> { A(T) }
    type Alias<K> = Api<K>;
    trait Tr<A>: Sized { type X; fn req(&self) -> A; fn def(&self) {} const C: u8; }
    const K: &str = "x";
    static S: Mutex<u8> = Mutex::new(0);
    impl<K: Resource> Client for Wrapper<K> where K::DynamicType: Default { type T = u8; pub fn get(&self, n: &str) -> Result<K> { todo!() } fn x() {} }
    macro_rules! m { () => {} }
"#;

/// A syn item with fn bodies, expressions, patterns, spans, docs and lifetimes removed the way the skeleton
/// does, printed: what must survive the round trip.
fn printed(items: &[syn::Item]) -> String {
    items.iter().map(|i| quote::quote!(#i).to_string()).collect::<Vec<_>>().join("\n")
}

#[test]
fn round_trip_keeps_what_naming_and_typing_read() {
    let file = syn::parse_file(SAMPLE).unwrap();
    let keep = |s: &syn::ItemStruct| s.ident == "KSpec";
    let sk = Skeleton::of(&file, &keep);
    let bytes = postcard::to_allocvec(&sk).unwrap();
    let back: Skeleton = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(back, sk);
    let rebuilt = back.items();
    // Lowering the rebuilt items gives the same skeleton: nothing read by the walk was lost or changed.
    let again = Skeleton::of(&syn::File { shebang: None, attrs: Vec::new(), items: rebuilt.clone() }, &keep);
    assert_eq!(again, sk);
    let text = printed(&rebuilt);
    assert!(text.contains("# [derive (CustomResource , Clone)]"), "{text}");
    assert!(text.contains("# [kube (group = \"g.io\""), "{text}");
    assert!(!text.contains("doc"), "{text}");
    assert!(!text.contains("tests"), "{text}");
    assert!(text.contains("# [path = \"x/y.rs\"] mod y ;"), "{text}");
    assert!(text.contains("r#type"), "{text}");
    let syn::Item::Trait(t) = &rebuilt[rebuilt.len() - 5] else { panic!("{text}") };
    assert_eq!(t.items.len(), 4);
    assert!(matches!(&t.items[1], syn::TraitItem::Fn(f) if f.default.is_none()));
    assert!(matches!(&t.items[2], syn::TraitItem::Fn(f) if f.default.is_some()));
    let syn::Item::Use(u) = &rebuilt[1] else { panic!() };
    assert!(!matches!(u.vis, syn::Visibility::Inherited));
}

/// What the module loader reads: flattened uses, mods, item kinds and names, and each item once built.
fn outline(list: Vec<Entry>) -> Vec<String> {
    let keep = |s: &syn::ItemStruct| s.ident == "KSpec";
    list.into_iter()
        .map(|e| match e {
            Entry::Use(list) => {
                let (u, public) = match list {
                    UseList::Ready(u, p) => (u, p),
                    UseList::Lazy(make) => make(),
                };
                format!("use {public} {:?}", u.iter().map(|x| (&x.alias, &x.path, x.glob)).collect::<Vec<_>>())
            }
            Entry::Mod { name, path, content, .. } => format!("mod {name} {path:?} {:?}", content.map(outline)),
            Entry::Item(slot) => {
                let file = syn::File { shebang: None, attrs: Vec::new(), items: vec![slot.get().clone()] };
                format!("{:?} {:?} {:?}", slot.kind(), slot.name(), Skeleton::of(&file, &keep))
            }
        })
        .collect()
}

#[test]
fn stored_skeletons_load_like_parsed_files() {
    let file = syn::parse_file(SAMPLE).unwrap();
    let keep = |s: &syn::ItemStruct| s.ident == "KSpec";
    let bytes: Arc<[u8]> = encode(&file.items, &keep).into();
    let stored = outline(entries(&bytes).unwrap());
    let parsed = outline(crate::source::modules::entries(file.items.clone()));
    assert_eq!(stored, parsed);
    assert_eq!(stored.len(), 15);
    let rebuilt = Skeleton::of(&file, &keep).items();
    assert_eq!(&encode(&rebuilt, &keep)[..], &bytes[..], "equal skeletons encode to equal bytes");
    assert!(entries(&bytes[..bytes.len() - 1].to_vec().into()).is_none());
}

/// `lazy_static!`'s statics are statics to every loader, read from a stored skeleton or a parsed file alike; a body
/// that is not statics stays the macro it is.
#[test]
fn lazy_statics_load_as_statics_stored_or_parsed() {
    let file = syn::parse_file(
        "lazy_static::lazy_static! { pub static ref A: String = x(); static ref B: u8 = 1; }\n\
         lazy_static! { not statics }\n\
         macro_rules! m { () => {} }\n",
    )
    .unwrap();
    let keep = |_: &syn::ItemStruct| false;
    let bytes: Arc<[u8]> = encode(&file.items, &keep).into();
    assert_eq!(outline(entries(&bytes).unwrap()), outline(crate::source::modules::entries(file.items.clone())));
    let read: Vec<(ItemKind, Option<String>)> = entries(&bytes)
        .unwrap()
        .into_iter()
        .map(|e| match e {
            Entry::Item(slot) => (slot.kind(), slot.name().map(str::to_string)),
            _ => panic!("items only"),
        })
        .collect();
    let want = [
        (ItemKind::Static, Some("A".to_string())),
        (ItemKind::Static, Some("B".to_string())),
        (ItemKind::Other, None),
        (ItemKind::Other, None),
    ];
    assert_eq!(read, want);
}
