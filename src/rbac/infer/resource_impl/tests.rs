//! Unit tests of hand-written resource impls: each way a value can be written, read through inference.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::rbac::infer::{Inference, infer_with};

/// Inference over in-memory crates: `(path, text)`; `sources` are crate `src` folders.
fn run(files: &[(&str, &str)], sources: &[&str]) -> Inference {
    let map: BTreeMap<PathBuf, String> = files.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect();
    let read = move |p: &Path| map.get(p).cloned().ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound));
    let sources: Vec<PathBuf> = sources.iter().map(PathBuf::from).collect();
    infer_with(&sources, None, &read).unwrap()
}

fn triples(inf: &Inference) -> BTreeSet<String> {
    inf.grants().into_iter().map(|(g, r, v)| format!("{}/{r}:{v}", if g.is_empty() { "core" } else { &g })).collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// A binary listing `Api<T>` for each type path given.
fn lister(types: &[&str]) -> String {
    let calls: String = types
        .iter()
        .map(|t| format!("    kube::Api::<{t}>::all(client.clone()).list(&Default::default()).await.unwrap();\n"))
        .collect();
    format!("async fn run(client: kube::Client) {{\n{calls}}}\nfn main() {{ run(todo!()); }}\n")
}

const KUBE_IMPLS: &str = "use std::borrow::Cow;\n\
use kube::Resource;\n\
use kube::core::{ClusterResourceScope, NamespaceResourceScope, ObjectMeta};\n\
const GROUP: &str = \"tools.example.org\";\n\
mod names { pub const VERSION: &str = \"v1beta2\"; }\n\
pub struct Hammer { metadata: ObjectMeta }\n\
impl Hammer { const PLURAL: &'static str = \"hammers\"; }\n\
impl Resource for Hammer {\n\
    type DynamicType = ();\n\
    type Scope = NamespaceResourceScope;\n\
    fn kind(_: &()) -> Cow<'_, str> { \"Hammer\".into() }\n\
    fn group(_: &()) -> Cow<'_, str> { GROUP.into() }\n\
    fn version(_: &()) -> Cow<'_, str> { Cow::Borrowed(names::VERSION) }\n\
    fn plural(_: &()) -> Cow<'_, str> { Self::PLURAL.into() }\n\
    fn meta(&self) -> &ObjectMeta { &self.metadata }\n\
    fn meta_mut(&mut self) -> &mut ObjectMeta { &mut self.metadata }\n\
}\n\
pub struct Anvil { metadata: ObjectMeta }\n\
impl kube::core::Resource for Anvil {\n\
    type DynamicType = ();\n\
    type Scope = ClusterResourceScope;\n\
    fn kind(_: &()) -> Cow<'_, str> { Cow::from(\"Anvil\") }\n\
    fn group(_: &()) -> Cow<'_, str> { return \"forge.example.org\".to_string().into(); }\n\
    fn version(_: &()) -> Cow<'_, str> { \"v1\".into() }\n\
    fn plural(_: &()) -> Cow<'_, str> { Cow::Owned(String::from(Anvil::PLURAL)) }\n\
    fn meta(&self) -> &ObjectMeta { &self.metadata }\n\
    fn meta_mut(&mut self) -> &mut ObjectMeta { &mut self.metadata }\n\
}\n\
impl Anvil { pub const PLURAL: &'static str = \"anvils\"; }\n";

#[test]
fn kube_resource_fns_literals_module_and_associated_consts() {
    let main = lister(&["tools::Hammer", "tools::Anvil"]);
    let inf = run(&[("/tools/src/lib.rs", KUBE_IMPLS), ("/op/src/main.rs", &main)], &["/tools/src", "/op/src"]);
    assert_eq!(triples(&inf), set(&["tools.example.org/hammers:list", "forge.example.org/anvils:list"]));
    assert!(inf.warnings.is_empty(), "{:?}", inf.warnings);
}

#[test]
fn k8s_openapi_resource_consts() {
    let lib = "pub struct Saw { metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta }\n\
        const G: &str = \"cut.example.org\";\n\
        impl k8s_openapi::Resource for Saw {\n\
            const API_VERSION: &'static str = \"cut.example.org/v1\";\n\
            const GROUP: &'static str = G;\n\
            const KIND: &'static str = \"Saw\";\n\
            const VERSION: &'static str = \"v1\";\n\
            const URL_PATH_SEGMENT: &'static str = \"saws\";\n\
            type Scope = k8s_openapi::NamespaceResourceScope;\n\
        }\n";
    let inf =
        run(&[("/tools/src/lib.rs", lib), ("/op/src/main.rs", &lister(&["tools::Saw"]))], &["/tools/src", "/op/src"]);
    assert_eq!(triples(&inf), set(&["cut.example.org/saws:list"]));
}

#[test]
fn a_kind_with_a_resource_impl_keeps_its_fields_and_methods() {
    // The Api comes from a method of the type, and a field of it holds another Api.
    let lib = format!(
        "{KUBE_IMPLS}\
         pub struct Shed {{ pub tools: kube::Api<Hammer> }}\n\
         impl Hammer {{ pub fn secrets(&self, c: kube::Client) -> kube::Api<k8s_openapi::api::core::v1::Secret> {{ kube::Api::all(c) }} }}\n"
    );
    let main = "async fn run(client: kube::Client, h: tools::Hammer, shed: tools::Shed) {\n\
            h.secrets(client).get(\"x\").await.unwrap();\n\
            shed.tools.delete(\"old\", &Default::default()).await.unwrap();\n\
        }\n\
        fn main() { run(todo!(), todo!(), todo!()); }\n";
    let inf = run(&[("/tools/src/lib.rs", &lib), ("/op/src/main.rs", main)], &["/tools/src", "/op/src"]);
    assert_eq!(triples(&inf), set(&["core/secrets:get", "tools.example.org/hammers:delete"]));
}

#[test]
fn values_known_only_at_run_time_are_a_warning_at_each_call_naming_the_fn() {
    let lib = "use std::borrow::Cow;\n\
        use kube::Resource;\n\
        use kube::core::{ApiResource, ObjectMeta};\n\
        pub struct Loose { metadata: ObjectMeta }\n\
        impl Resource for Loose {\n\
            type DynamicType = ApiResource;\n\
            type Scope = kube::core::DynamicResourceScope;\n\
            fn kind(dt: &ApiResource) -> Cow<'_, str> { dt.kind.as_str().into() }\n\
            fn group(dt: &ApiResource) -> Cow<'_, str> { dt.group.as_str().into() }\n\
            fn version(dt: &ApiResource) -> Cow<'_, str> { dt.version.as_str().into() }\n\
            fn plural(dt: &ApiResource) -> Cow<'_, str> { dt.plural.as_str().into() }\n\
            fn meta(&self) -> &ObjectMeta { &self.metadata }\n\
            fn meta_mut(&mut self) -> &mut ObjectMeta { &mut self.metadata }\n\
        }\n\
        pub struct Circular { metadata: ObjectMeta }\n\
        impl Circular { const KIND: &'static str = Self::KIND; }\n\
        impl Resource for Circular {\n\
            type DynamicType = ();\n\
            type Scope = kube::core::NamespaceResourceScope;\n\
            fn kind(_: &()) -> Cow<'_, str> { Self::KIND.into() }\n\
            fn group(_: &()) -> Cow<'_, str> { \"\".into() }\n\
            fn version(_: &()) -> Cow<'_, str> { \"v1\".into() }\n\
            fn plural(_: &()) -> Cow<'_, str> { \"circulars\".into() }\n\
            fn meta(&self) -> &ObjectMeta { &self.metadata }\n\
            fn meta_mut(&mut self) -> &mut ObjectMeta { &mut self.metadata }\n\
        }\n";
    let main = lister(&["tools::Loose", "tools::Circular"]);
    let inf = run(&[("/tools/src/lib.rs", lib), ("/op/src/main.rs", &main)], &["/tools/src", "/op/src"]);
    assert!(inf.needs.is_empty(), "{:?}", inf.needs);
    let messages: Vec<(usize, &str)> = inf.warnings.iter().map(|w| (w.line, w.message.as_str())).collect();
    assert_eq!(
        messages,
        [
            (
                2,
                "list on Api<Loose>: the group of `impl kube::Resource for Loose` cannot be read without running the \
                 code (its DynamicType is `ApiResource`: the value may come from it at run time): make `fn group` give \
                 a string literal or a const holding one (lib.rs:9), or add the rule by hand \
                 (// +kubebuilder:rbac:groups=<group>,resources=<resource>,verbs=list)"
            ),
            (
                3,
                "list on Api<Circular>: the kind of `impl kube::Resource for Circular` cannot be read without running \
                 the code: make `fn kind` give a string literal or a const holding one (lib.rs:20), or add the rule by \
                 hand (// +kubebuilder:rbac:groups=<group>,resources=<resource>,verbs=list)"
            ),
        ]
    );
}

#[test]
fn associated_consts_are_found_as_rust_finds_them_inherent_first_and_through_aliases() {
    // `Self::KIND` in the trait impl is the inherent const (the trait's own, written first, would refer to itself);
    // `Vise::GROUP` is written in an impl of an alias of `Vise`, `Self::PLURAL` in one through a `use` rename.
    let lib = "pub struct Vise { metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta }\n\
        pub type Clamp = Vise;\n\
        impl k8s_openapi::Resource for Vise {\n\
            const API_VERSION: &'static str = \"grip.example.org/v1\";\n\
            const GROUP: &'static str = Clamp::GROUP;\n\
            const KIND: &'static str = Self::KIND;\n\
            const VERSION: &'static str = \"v1\";\n\
            const URL_PATH_SEGMENT: &'static str = Self::PLURAL;\n\
            type Scope = k8s_openapi::NamespaceResourceScope;\n\
        }\n\
        impl Vise { const KIND: &'static str = \"Vise\"; }\n\
        impl Clamp { const GROUP: &'static str = \"grip.example.org\"; }\n\
        mod plural { use super::Vise as Held; impl Held { pub(crate) const PLURAL: &'static str = \"vises\"; } }\n\
        mod other { pub struct Vise; impl Vise { pub const PLURAL: &'static str = \"not these\"; } }\n";
    let inf =
        run(&[("/tools/src/lib.rs", lib), ("/op/src/main.rs", &lister(&["tools::Vise"]))], &["/tools/src", "/op/src"]);
    assert_eq!(triples(&inf), set(&["grip.example.org/vises:list"]));
    assert!(inf.warnings.is_empty(), "{:?}", inf.warnings);
}

#[test]
fn values_computed_by_constant_code_are_read_by_the_one_interpreter() {
    // `format!`, a crate fn, a `let` and a block: what the CRD generator's interpreter reads in schema code, RBAC
    // reads in a `Resource` impl (`dt` is never read, so its value at run time does not matter).
    let lib = "use std::borrow::Cow;\n\
        use kube::Resource;\n\
        use kube::core::ObjectMeta;\n\
        const GROUP: &str = \"bore.example.org\";\n\
        fn kind_name() -> &'static str { \"Drill\" }\n\
        pub struct Drill { metadata: ObjectMeta }\n\
        impl Resource for Drill {\n\
            type DynamicType = ();\n\
            type Scope = kube::core::NamespaceResourceScope;\n\
            fn kind(_: &()) -> Cow<'_, str> { kind_name().into() }\n\
            fn group(_dt: &()) -> Cow<'_, str> { let g = GROUP; { g }.into() }\n\
            fn version(_: &()) -> Cow<'_, str> { format!(\"v{}\", 1).into() }\n\
            fn plural(_: &()) -> Cow<'_, str> { format!(\"{}s\", kind_name()).to_lowercase().into() }\n\
            fn meta(&self) -> &ObjectMeta { &self.metadata }\n\
            fn meta_mut(&mut self) -> &mut ObjectMeta { &mut self.metadata }\n\
        }\n\
        pub struct Bit { metadata: ObjectMeta }\n\
        impl Resource for Bit {\n\
            type DynamicType = ();\n\
            type Scope = kube::core::NamespaceResourceScope;\n\
            fn kind(_: &()) -> Cow<'_, str> { \"Bit\".into() }\n\
            fn group(_: &()) -> Cow<'_, str> { GROUP.into() }\n\
            fn version(_: &()) -> Cow<'_, str> { \"v1\".into() }\n\
            fn plural(_: &()) -> Cow<'_, str> { format!(\"{}s\", Self::kind(&())).into() }\n\
            fn meta(&self) -> &ObjectMeta { &self.metadata }\n\
            fn meta_mut(&mut self) -> &mut ObjectMeta { &mut self.metadata }\n\
        }\n";
    let main = lister(&["tools::Drill", "tools::Bit"]);
    let inf = run(&[("/tools/src/lib.rs", lib), ("/op/src/main.rs", &main)], &["/tools/src", "/op/src"]);
    // `.to_lowercase()` is no call the interpreter runs: Drill's plural is a warning naming the fn; `Self::kind(&())`
    // is a call of the impl's own fn, read through the type's impls.
    assert_eq!(triples(&inf), set(&["bore.example.org/Bits:list"]), "{:?}", inf.warnings);
    let messages: Vec<&str> = inf.warnings.iter().map(|w| w.message.as_str()).collect();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(messages[0].contains("the plural of `impl kube::Resource for Drill`"), "{messages:?}");
}
