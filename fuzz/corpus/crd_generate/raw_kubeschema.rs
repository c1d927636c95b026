use kube::KubeSchema;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
pub struct S {
    #[x_kube(merge_strategy = StructMerge::Atomic)]
    pub atomic_struct: Option<P>,
    #[x_kube(merge_strategy = StructMerge::Granular)]
    pub granular_struct: P,
    #[x_kube(merge_strategy = MapMerge::Atomic)]
    pub map_atomic_on_struct: P,
}
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct P { pub name: String }
fn main() {
    let g = &mut schemars::generate::SchemaSettings::openapi3().with(|s| { s.inline_subschemas = true; s.meta_schema = None; }).into_generator();
    let json = serde_json::to_string_pretty(&S::json_schema(g)).unwrap();
    // With an output folder (the conformance harness): write the file there; else print it.
    match std::env::args().nth(1) {
        Some(dir) => std::fs::write(std::path::Path::new(&dir).join("raw-kubeschema-structmerge.json"), json).unwrap(),
        None => println!("{json}"),
    }
}
