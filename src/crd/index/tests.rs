//! Tests of the crate index: lazy fn bodies and stubs.

mod lazy_tests {
    use super::super::*;
    use crate::source::lex::blank_test_modules;

    #[test]
    fn test_modules_are_blanked_keeping_lines() {
        let src = "fn a() {}\n#[cfg(test)]\nmod tests {\n    fn t() { \"}\"; }\n}\nfn b() {}\n";
        let out = blank_test_modules(src);
        assert_eq!(out.lines().count(), src.lines().count());
        assert!(out.contains("mod tests {") && !out.contains("fn t()") && out.ends_with("}\nfn b() {}\n"), "{out}");
        assert!(matches!(blank_test_modules("fn a() {}"), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn multi_statement_bodies_are_blanked_keeping_lines() {
        let src =
            "fn a() -> u8 { 1 }\nfn b() -> u8 {\n    let x = \"}\";\n    2\n}\nfn c() -> u8 { return 3; }\nstruct S;\n";
        let out = blank_fn_bodies(src);
        assert_eq!(out.len(), src.len());
        assert_eq!(out.lines().count(), src.lines().count());
        assert!(out.contains("fn a() -> u8 { 1 }"));
        assert!(out.contains("fn c() -> u8 { return 3; }"));
        assert!(!out.contains("let x"));
        assert!(out.contains("struct S;"));
        let items = parse_items(src, None).unwrap().0;
        assert_eq!(items.len(), 4);
    }

    #[test]
    fn literals_comments_and_lifetimes_do_not_confuse_the_scanner() {
        let src = r####"
fn life<'a>(x: &'a str) -> &'a str { x }
fn chars() -> char { '{' }
fn raw() -> &'static str { r#"fn x() { a; b; }"# }
/* fn hidden() { a; b; } */
// fn line() { a; b; }
fn bytes() -> u8 { b'}' }
fn esc() -> char { '\'' }
fn big() { let a = 1; let b = '}'; }
trait T { fn decl(&self); fn def(&self) -> u8 { 7 } }
struct After { pub f: u8 }
"####;
        let out = blank_fn_bodies(src);
        for kept in [
            "{ x }",
            "{ '{' }",
            r####"r#"fn x() { a; b; }"#"####,
            "/* fn hidden() { a; b; } */",
            "{ b'}' }",
            "fn decl(&self);",
            "{ 7 }",
            "struct After { pub f: u8 }",
        ] {
            assert!(out.contains(kept), "{kept} missing from\n{out}");
        }
        assert!(!out.contains("let a"));
        parse_items(src, None).unwrap();
    }

    #[test]
    fn cfg_test_module_bodies_are_blanked() {
        let src = "#[cfg(test)]\n#[allow(unused)] // c\npub(crate) mod tests {\n    use super::*;\n    #[test] fn t() { let s = \"}\"; }\n}\nstruct After;\n";
        let out = blank_fn_bodies(src);
        assert_eq!(out.len(), src.len());
        assert_eq!(out.lines().count(), src.lines().count());
        assert!(!out.contains("use super") && out.contains("mod tests {") && out.contains("struct After;"), "{out}");
        assert_eq!(parse_items(src, None).unwrap().0.len(), 1);
        // Not a test module: kept.
        for kept in ["#[cfg(not(test))]\nmod m { struct S; }\n", "#[cfg(test)]\nfn f() { a; b; }\n"] {
            let out = blank_fn_bodies(kept);
            assert!(out.contains("mod m { struct S; }") || out.contains("fn f() {"), "{out}");
        }
    }

    #[test]
    fn full_blocks_are_parsed_again_with_their_lines() {
        let dir = tempfile::tempdir().expect("tempdir");
        let src = "// é\npub struct S;\nimpl S {\n    fn m() -> u8 {\n        let a = \"}\";\n        1\n    }\n}\nfn f() -> u8 {\n  let x = 1;\n  x }\nfn one() -> u8 { 2 }\npub static ST: u8 = 3;\n";
        std::fs::write(dir.path().join("lib.rs"), src).expect("write");
        let force: BTreeSet<PathBuf> = [dir.path().join("lib.rs")].into();
        let ix = CrateIndex::load_with(&SourceSet::new(dir.path()), &force).expect("load");
        let f = ix.items.iter().find(|i| i.name == "f").expect("f");
        let ItemKind::Fn(f) = &f.kind else { panic!("fn") };
        assert!(f.block.stmts.is_empty(), "multi-statement bodies are not indexed");
        let full = ix.full_block(0, &f.block).expect("parse");
        assert_eq!(full.stmts.len(), 2);
        assert_eq!(full.stmts[0].span().start().line, 10);
        assert_eq!(full.stmts[1].span().start().column, 2);
        assert!(std::ptr::eq(full, ix.full_block(0, &f.block).expect("cached")));
        let m = ix.impls[0].item.items.iter().find_map(|i| match i {
            syn::ImplItem::Fn(m) => Some(m),
            _ => None,
        });
        let full = ix.full_block(0, &m.expect("method").block).expect("parse method");
        assert_eq!(full.stmts.len(), 2);
        assert_eq!(full.stmts[0].span().start().line, 5);
        assert!(ix.items.iter().any(|i| i.name == "ST" && matches!(i.kind, ItemKind::Static(_))));
        let one = ix.items.iter().find(|i| i.name == "one").expect("one");
        let ItemKind::Fn(one) = &one.kind else { panic!("fn") };
        assert_eq!(ix.full_block(0, &one.block).expect("kept").stmts.len(), 1);
    }

    /// Item names with the line and column of each, and the tokens of the items.
    fn spans_and_tokens(items: &[syn::Item]) -> (Vec<(String, usize, usize)>, String) {
        let spans = items
            .iter()
            .filter_map(|i| match i {
                syn::Item::Struct(s) => Some(&s.ident),
                syn::Item::Fn(f) => Some(&f.sig.ident),
                syn::Item::Const(c) => Some(&c.ident),
                _ => None,
            })
            .map(|id| (id.to_string(), id.span().start().line, id.span().start().column))
            .collect();
        (spans, items.iter().map(|i| quote::quote!(#i).to_string()).collect())
    }

    /// Where a text may be cut, as the loader finds it.
    fn cut_lines(text: &str) -> Vec<usize> {
        crate::source::syntax::parseable(text).expect("parseable").cut_lines
    }

    #[test]
    fn large_texts_are_parsed_in_pieces_with_the_spans_of_the_whole() {
        let mut text = String::from("#![allow(unused)]\n//! Docs.\n");
        for i in 0..1500 {
            text.push_str(&format!(
                "/// Kind {i}: {{ ; }}\n#[derive(Debug)]\npub struct S{i} {{\n    /// A field.\n    pub f: Option<String>, // }}\n}}\n\
                 const C{i}: &str = \"}}\n;\";\nfn f{i}() -> u8 {{ {i} }}\n"
            ));
        }
        assert!(text.len() > 2 * crate::source::syntax::PIECE_BYTES);
        let pieces = parse_pieces(&text, &cut_lines(&text)).expect("parses in pieces");
        let whole: LazyItems = syn::parse_str(&text).expect("parses whole");
        assert_eq!(pieces.0.len(), 4500);
        assert_eq!(spans_and_tokens(&pieces.0), spans_and_tokens(&whole.0));
        // The original text's cuts cut the text the loader parses (bodies blanked, doc comments lifted): same lines.
        let blanked = blank_fn_bodies(&text);
        let lifted = docs::lift(&blanked);
        assert!(lifted.lifts_any());
        assert!(parse_pieces(&lifted.text, &cut_lines(&text)).is_some(), "the lifted text parses in pieces");
        // Through the loader's path: doc comments put back on the items of every piece.
        let items = parse_items(&text, None).expect("parses").0;
        let syn::Item::Struct(last) = &items[items.len() - 3] else { panic!("a struct") };
        assert_eq!(crate::crd::attrs::doc_text(&last.attrs).as_deref(), Some("Kind 1499: { ; }"));
        assert_eq!(last.ident.span().start().line, 3 + 1499 * 9 + 2);

        // A cut that does not end an item (`}` closing a line inside a const's expression), or an error in a later
        // piece: the whole text is parsed, for the same items or the same error.
        let filler = "struct Filler;\n".repeat(crate::source::syntax::PIECE_BYTES / 15 + 1);
        let fields: String = (0..crate::source::syntax::PIECE_BYTES / 10).map(|i| format!("a{i}: u8, ")).collect();
        let split_const = format!("struct Big {{ {fields} }} const X: A = A {{\n}}\n.b();\n{filler}");
        assert_eq!(crate::source::syntax::top_level_cuts(&split_const, crate::source::syntax::PIECE_BYTES).len(), 2);
        assert!(parse_pieces(&split_const, &cut_lines(&split_const)).is_none());
        assert!(parse_text(&split_const, &cut_lines(&split_const)).is_ok());
        let broken = format!("{filler}{filler}struct Broken {{ x: }}\n{filler}");
        assert!(parse_pieces(&broken, &cut_lines(&broken)).is_none());
        let e = parse_text(&broken, &cut_lines(&broken)).err().expect("an error");
        assert_eq!(e.span().start().line, 2 * (crate::source::syntax::PIECE_BYTES / 15 + 1) + 1);
    }

    #[test]
    fn byte_offsets_count_chars() {
        let text = "ab\nçd\n";
        assert_eq!(byte_offset(text, 1, 1), Some(1));
        assert_eq!(byte_offset(text, 2, 1), Some(5));
        assert_eq!(byte_offset(text, 3, 0), Some(text.len()));
        assert_eq!(byte_offset(text, 9, 0), None);
    }

    #[test]
    fn cfg_test_modules_are_skipped() {
        let src = "#[cfg(test)]\nmod tests { pub struct Hidden; }\nmod inline { pub struct Seen; }\n";
        let items = parse_items(src, None).unwrap().0;
        assert_eq!(items.len(), 1);
    }
}

mod stub_tests {
    use super::super::prescan::{prescan, prescan_elsewhere};
    use super::super::scan::names_api_group_or_crd;
    use super::super::*;
    use crate::crd::{CrdErrors, GeneratedCrd, K8sTable};

    fn names(text: &str) -> StubNames {
        prescan(text).expect("no module declared")
    }

    #[test]
    fn prescan_finds_modules_outside_test_modules_and_fn_bodies() {
        assert!(prescan("pub mod api;\n").is_none());
        assert!(prescan("mod inline { pub struct S; }\n").is_none());
        assert!(prescan("#[cfg(test)]\nmod tests;\n").is_none(), "out-of-line test modules are parsed");
        assert!(
            prescan("#[cfg(test)]\n#[allow(unused)]\npub(crate) mod tests { mod x; }\nfn f() { mod y {} }\n").is_some()
        );
        assert!(prescan("// mod a;\n/* mod b; */\nconst S: &str = \"mod c;\";\nfn r#mod() {}\n").is_some());
        assert!(prescan("#[cfg(not(test))]\nmod tests {}\n").is_none());
        // An attribute ends at its own `]`, not at one in its literals; identifiers ending in `r`, `b` or `c` start
        // no literal.
        for text in [
            "#[serde(rename = \"] mod a;\")]\nstruct S;\n",
            "#[serde(alias = r#\"] mod a;\"#)]\nstruct S;\n",
            "#[x(c = b']', y = br\"] mod a;\")]\nstruct S;\n",
            "#[derive(Ser)]\n#[cfg(test)]\nmod t { mod x; }\n",
        ] {
            assert!(prescan(text).is_some(), "{text}");
        }
        // A derive another part owns: an inline module is the file's, its name and its body's names too.
        let inline =
            prescan_elsewhere("mod inline { pub struct S; pub use k8s_openapi::Thing; }\nuse self::inline::*;\n")
                .expect("an inline module declares no file");
        assert!(has_name(&inline.declared, "inline") && has_name(&inline.declared, "S"));
        assert!(has_name(&inline.used, "Thing") && inline.globs);
        assert!(prescan_elsewhere("pub mod api;\n").is_none());
    }

    #[test]
    fn prescan_keeps_every_name_a_lookup_could_find() {
        let s = names(
            "use crate::{api::Kind1, api::Kind1Status as St};\n\
             pub const NAME: &str = \"x\";\n\
             pub static SCHEMA: &'static str = \"{}\";\nstatic mut COUNTER: u8 = 0;\n\
             type Alias = u8;\n\
             pub type Limited<T: Clone = Inner> = crate::api::Limits<Wrapped<T>>;\n\
             pub struct Holder { f: fn(u8) -> u8 }\n\
             use other::Later;\n\
             pub fn run(obj: Kind1) -> Result<()> { struct Hidden; let x = Kind1Status::default(); }\n\
             impl<T> Default for Wrapper<T> where T: Clone { fn default() -> Self { todo!() } }\n\
             enum r#Raw { A }\n\
             #[cfg(test)]\nmod tests { pub struct InTests; use super::*; }\n",
        );
        for declared in ["NAME", "Alias", "Holder", "run", "Raw", "r#Raw", "SCHEMA", "COUNTER"] {
            assert!(has_name(&s.declared, declared), "{declared}");
        }
        for hidden in ["Hidden", "InTests", "Kind1", "str"] {
            assert!(!has_name(&s.declared, hidden), "{hidden}");
        }
        for used in ["Kind1", "Kind1Status", "St", "Later"] {
            assert!(has_name(&s.used, used), "{used}");
        }
        assert!(!has_name(&s.used, "Holder"));
        assert!(has_name(&s.impls, "Wrapper") && has_name(&s.impls, "Default"));
        assert!(!has_name(&s.impls, "Kind1"));
        // What an alias may stand for: its path's last segment, outside generic arguments.
        for aliased in ["u8", "Limits"] {
            assert!(has_name(&s.aliased, aliased), "{aliased}");
        }
        for not in ["Alias", "Limited", "Inner", "crate", "api", "Wrapped", "T", "Holder", "Kind1Status"] {
            assert!(!has_name(&s.aliased, not), "{not}");
        }
        // What a `use` renames: `Kind1Status` (as `St`).
        assert!(has_name(&s.renamed, "Kind1Status"));
        for not in ["Kind1", "St", "api", "Later"] {
            assert!(!has_name(&s.renamed, not), "{not}");
        }
    }

    #[test]
    fn prescan_counts_the_kind_types_a_derive_generates_among_a_stub_s_names() {
        let s = prescan_elsewhere(
            "#[derive(CustomResource)]\n#[kube(group = \"g.io\", version = \"v1\", kind = \"Foo\", root = r#\"FooRoot\"#)]\n\
             #[cfg_attr(feature = \"x\", kube(shortname = \"f\", printcolumn = r#\"{\"name\":\"N\"}\"#))]\n\
             #[serde(rename = \"fooSpec\")]\npub struct FooSpec {}\n",
        )
        .expect("no module declared");
        for declared in ["FooSpec", "Foo", "FooRoot", "v1", "f"] {
            assert!(has_name(&s.declared, declared), "{declared}");
        }
        for not_a_name in ["g.io", "fooSpec", "name", "N"] {
            assert!(!has_name(&s.declared, not_a_name), "{not_a_name}");
        }
    }

    #[test]
    fn prescan_skips_bodies_whatever_they_hold() {
        let s = names(
            "fn a() { let s = r#\"} mod x;\"#; let t = \"}\\\"}\"; let c = '}'; let l: &'static str = \"\"; }\n\
             fn b() { let u = br\"}\"; let v = b'}'; /* } mod y; */ // }\n let w = cr#\"}\"#; { { } } }\n\
             pub struct After;\n",
        );
        assert!(has_name(&s.declared, "After") && has_name(&s.declared, "a") && has_name(&s.declared, "b"));
    }

    const SPEC: &str = r#"
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use crate::reexport::Renamed;
use crate::types::*;

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, JsonSchema)]
#[kube(group = "a.example.com", version = "v1", kind = "Foo", namespaced)]
pub struct FooSpec {
    pub inner: crate::types::Inner,
    pub other: Other,
    pub renamed: Renamed,
    #[serde(default)]
    pub defaulted: WithDefault,
}
"#;

    const TYPES: &str = r#"
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
/// Inner docs.
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Inner { pub a: u8 }
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Other { pub b: String }
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct Target { pub c: bool }
#[derive(Serialize, Deserialize, Clone, Debug, JsonSchema)]
pub struct WithDefault { pub d: u32 }
"#;

    const CONTROLLER: &str = r#"
// +kubebuilder:rbac:groups=a.example.com,resources=foos,verbs=get
use crate::api::{Foo, FooSpec};
pub const NAME: &str = "foo";
pub fn reconcile(obj: Foo) -> FooSpec { let spec = obj.spec; spec }
#[cfg(test)]
mod tests { use super::*; #[test] fn t() { let _ = NAME; } }
"#;

    fn write(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        for (path, text) in files {
            let p = dir.path().join("src").join(path);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, text).expect("write");
        }
        dir
    }

    #[test]
    fn paths_resolve_through_glob_imported_modules_renames_and_lazy_statics() {
        let src = "pub mod paths {\n\
                   pub mod v1 { pub struct Status; }\n\
                   pub mod v2 { pub struct Status; }\n\
                   pub mod kinds {\n\
                       use super::*;\n\
                       use super::v2 as second;\n\
                       use second::Status as Two;\n\
                       lazy_static::lazy_static! { static ref RE: regex::Regex = regex::Regex::new(\"x\").unwrap(); }\n\
                   }\n\
                   }\n";
        let dir = write(&[("lib.rs", src)]);
        let ix = CrateIndex::load(&SourceSet::new(&dir.path().join("src"))).expect("load");
        let kinds = ix.modules.iter().position(|m| m.path == ["crate", "paths", "kinds"]).expect("module");
        let segs = |p: &str| p.split("::").map(str::to_string).collect::<Vec<_>>();
        let module_of = |r: Resolved| match r {
            Resolved::Item(id) => ix.modules[ix.items[id].module].path.join("::"),
            other => format!("{other:?}"),
        };
        let types = |k: &ItemKind| matches!(k, ItemKind::Struct(_));
        assert_eq!(module_of(ix.resolve(kinds, &segs("v1::Status"), types)), "crate::paths::v1");
        assert_eq!(module_of(ix.resolve(kinds, &segs("v2::Status"), types)), "crate::paths::v2");
        assert_eq!(module_of(ix.resolve(kinds, &segs("second::Status"), types)), "crate::paths::v2");
        assert_eq!(module_of(ix.resolve(kinds, &segs("Two"), types)), "crate::paths::v2");
        assert_eq!(module_of(ix.resolve(kinds, &segs("self::super::v1::Status"), types)), "crate::paths::v1");
        assert_eq!(ix.resolve(kinds, &segs("Status"), types), Resolved::External(segs("Status")), "never a guess");
        let statics = |k: &ItemKind| matches!(k, ItemKind::Static(_));
        assert_eq!(module_of(ix.resolve(kinds, &segs("RE"), statics)), "crate::paths::kinds");
        // A glob of another crate leads to no module of this one.
        let ext = "use k8s_openapi::api::core::v1::*;\nuse chrono::*;\npub mod a { use super::*; }\n";
        let dir = write(&[("lib.rs", ext)]);
        let ix = CrateIndex::load(&SourceSet::new(&dir.path().join("src"))).expect("load");
        let pod = segs("k8s_openapi::api::core::v1::Pod");
        assert_eq!(ix.resolve(1, &segs("Pod"), types), Resolved::External(pod.clone()), "through `super::*`");
        // A glob of a module of the crate that re-exports k8s-openapi's, as RBAC inference reads it too.
        let prelude = "pub mod prelude { pub use k8s_openapi::api::core::v1::*; }
pub mod b { use crate::prelude::*; }
";
        let dir = write(&[("lib.rs", prelude)]);
        let ix = CrateIndex::load(&SourceSet::new(&dir.path().join("src"))).expect("load");
        let b = ix.modules.iter().position(|m| m.path == ["crate", "b"]).expect("module");
        assert_eq!(ix.resolve(b, &segs("Pod"), types), Resolved::External(pod));
        // A name raw in its declaration is found by its plain name.
        let dir = write(&[("lib.rs", "pub struct r#Match;\n")]);
        let force = [dir.path().join("src/lib.rs")].into();
        let ix = CrateIndex::load_with(&SourceSet::new(&dir.path().join("src")), &force).expect("load");
        assert!(matches!(ix.resolve(0, &segs("Match"), types), Resolved::Item(_)));
    }

    #[test]
    fn files_naming_a_group_or_crd_in_an_attribute_are_parsed() {
        assert!(names_api_group_or_crd("#[loom::resource(group = \"a.b\")]\npub struct S;"));
        assert!(names_api_group_or_crd("#[versioned(crd(group = \"a.b\"))]\npub struct S;"));
        assert!(!names_api_group_or_crd("#[derive(Debug)]\npub struct S { group: u8 }\nconst X: bool = group == 1;"));
        assert!(!names_api_group_or_crd("pub fn f() {}"));
        assert!(names_api_group_or_crd("#[kube(kind = \"A\")]\npub struct ASpec;"));
        // RBAC markers and comments name groups; serde renames and fields only contain the letters.
        let controller = "// +kubebuilder:rbac:groups=a.b,resources=cs,verbs=get\n// the crd of the group = x\n#[instrument(skip(ctx))]\nasync fn f() {}";
        assert!(!names_api_group_or_crd(controller));
        assert!(!names_api_group_or_crd("#[serde(rename = \"crdName\", default = \"subgroup\")]\npub x: u8,"));
    }

    #[test]
    fn prescan_declares_lazy_static_refs() {
        let stub = prescan("lazy_static::lazy_static! { static ref NAME_RE: Regex = make(); }\n").expect("stub");
        assert!(has_name(&stub.declared, "NAME_RE"));
    }

    /// The nameable paths of the root type `name` generated beside the spec in module `at` (from the crate root,
    /// from another crate).
    fn paths_of(files: &[(&str, &str)], at: &[&str], name: &str) -> (Option<String>, Option<String>) {
        let dir = write(files);
        let all: BTreeSet<PathBuf> = files.iter().map(|(p, _)| dir.path().join("src").join(p)).collect();
        let ix = CrateIndex::load_with(&SourceSet::new(&dir.path().join("src")), &all).expect("load");
        let at: Vec<String> = at.iter().map(|s| s.to_string()).collect();
        let home = ix.modules.iter().position(|m| m.path == at).expect("module");
        let show = |p: Option<Vec<String>>| p.map(|p| p.join("::"));
        (show(ix.nameable_path(home, name, Vis::Public, false)), show(ix.nameable_path(home, name, Vis::Public, true)))
    }

    #[test]
    fn kinds_are_named_through_public_modules_and_re_exports() {
        // The scaffold: a private module per kind, re-exported by its version module.
        let scaffold = [
            ("lib.rs", "pub mod api;\n"),
            ("api.rs", "pub mod v1;\n"),
            ("api/v1.rs", "mod cluster;\npub use cluster::*;\n"),
            ("api/v1/cluster.rs", "pub struct ClusterSpec;\n"),
        ];
        let both = Some("crate::api::v1::Cluster".to_string());
        assert_eq!(paths_of(&scaffold, &["crate", "api", "v1", "cluster"], "Cluster"), (both.clone(), both));
        // A binary's private module: nameable from its own root only.
        let bin = [("main.rs", "mod kinds;\nfn main() {}\n"), ("kinds.rs", "pub mod v1 { pub struct GSpec; }\n")];
        let own = Some("crate::kinds::v1::G".to_string());
        assert_eq!(paths_of(&bin, &["crate", "kinds", "v1"], "G"), (own, None));
        // A named re-export at the root wins over the long path; a private grandchild without one is unnameable.
        let reexport = [
            ("lib.rs", "mod inner;\npub use inner::deep::Thing;\n"),
            ("inner.rs", "pub mod deep { pub struct ThingSpec; }\n"),
        ];
        let short = Some("crate::Thing".to_string());
        assert_eq!(paths_of(&reexport, &["crate", "inner", "deep"], "Thing"), (short.clone(), short));
        let renamed =
            [("lib.rs", "mod inner;\npub use inner::Thing as Other;\n"), ("inner.rs", "pub struct ThingSpec;\n")];
        let other = Some("crate::Other".to_string());
        assert_eq!(paths_of(&renamed, &["crate", "inner"], "Thing"), (other.clone(), other));
        let hidden = [("lib.rs", "mod a;\n"), ("a.rs", "mod b { pub struct HidSpec; }\n")];
        assert_eq!(paths_of(&hidden, &["crate", "a", "b"], "Hid"), (None, None));
    }

    /// Lazy generation and generation with every file parsed.
    fn lazy_and_full(
        files: &[(&str, &str)],
    ) -> (Result<Vec<GeneratedCrd>, CrdErrors>, Result<Vec<GeneratedCrd>, CrdErrors>) {
        let dir = write(files);
        let set = SourceSet::new(&dir.path().join("src"));
        let lazy = crate::crd::generate(&set);
        let all: BTreeSet<PathBuf> = files.iter().map(|(p, _)| dir.path().join("src").join(p)).collect();
        let ix = CrateIndex::load_with(&set, &all).expect("load");
        assert!(ix.files.iter().all(|f| f.stub.is_none()));
        let full = crate::crd::generate_from(&ix, K8sTable::default_table(), &Default::default()).into_result();
        assert!(ix.take_touched().is_empty());
        (lazy, full)
    }

    /// A file whose only `CustomResource`s are test kinds in a `#[cfg(test)]` module (as the scaffold's shared
    /// webhook module has) is prescanned, not parsed, and the CRDs are those of a full parse.
    #[test]
    fn test_only_custom_resources_do_not_force_a_parse() {
        let webhook = "pub fn handle() {}\n#[cfg(test)]\nmod tests {\n    use kube::CustomResource;\n    \
                       #[derive(CustomResource)]\n    #[kube(group = \"t.io\", version = \"v1\", kind = \"W\")]\n    \
                       pub struct WSpec {}\n}\n";
        let mut files = crate_files("");
        files[0].1.push_str("pub mod webhook;\n");
        files.push(("webhook.rs", webhook.to_string()));
        let (lazy, full) = lazy_and_full(&refs(&files));
        assert_eq!(lazy.expect("lazy"), full.expect("full"));
        let dir = write(&refs(&files));
        let ix = CrateIndex::load_with(&SourceSet::new(&dir.path().join("src")), &BTreeSet::new()).expect("load");
        let file = ix.files.iter().find(|f| f.path.ends_with("webhook.rs")).expect("webhook.rs is indexed");
        assert!(file.stub.is_some(), "prescanned, not parsed");
        let api = ix.files.iter().find(|f| f.path.ends_with("api.rs")).expect("api.rs is indexed");
        assert!(api.stub.is_none(), "the file with the kind is parsed");
    }

    const DEFAULT: &str =
        "use crate::types::WithDefault;\nimpl Default for WithDefault { fn default() -> Self { Self { d: 7 } } }\n";

    /// The crate; `more` is appended to `more.rs`, which holds the `impl Default` the spec needs.
    fn crate_files(more: &str) -> Vec<(&'static str, String)> {
        vec![
            ("lib.rs", "pub mod api;\npub mod types;\npub mod reexport;\npub mod controller;\npub mod more;\n".into()),
            ("api.rs", SPEC.into()),
            ("types.rs", TYPES.into()),
            ("reexport.rs", "pub use crate::types::Target as Renamed;\n".into()),
            ("controller.rs", CONTROLLER.into()),
            ("more.rs", format!("{DEFAULT}{more}")),
        ]
    }

    fn refs<'a>(files: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
        files.iter().map(|(p, t)| (*p, t.as_str())).collect()
    }

    #[test]
    fn stubs_a_lookup_leads_into_are_parsed() {
        let (lazy, full) = lazy_and_full(&refs(&crate_files("")));
        let (lazy, full) = (lazy.expect("lazy"), full.expect("full"));
        assert_eq!(lazy, full);
        let spec = &lazy[0].crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
        assert_eq!(spec["properties"]["inner"]["description"], "Inner docs.");
        assert_eq!(spec["properties"]["renamed"]["properties"]["c"]["type"], "boolean");
        assert_eq!(spec["properties"]["defaulted"]["default"], serde_json::json!({"d": 7}), "impl Default in a stub");
    }

    #[test]
    fn impls_in_stubs_count() {
        let manual = "impl schemars::JsonSchema for crate::types::Other {\n    fn json_schema(_: &mut SchemaGenerator) -> Schema {\n        let mut s = schemars::json_schema!({ \"type\": \"string\" });\n        s.insert(\"format\".into(), \"x\".into());\n        s\n    }\n}\n";
        let (lazy, full) = lazy_and_full(&refs(&crate_files(manual)));
        let (lazy, full) = (lazy.expect("hand-written JsonSchema"), full.expect("hand-written JsonSchema"));
        assert_eq!(lazy, full);
        let spec = &lazy[0].crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
        assert_eq!(spec["properties"]["other"], serde_json::json!({"type": "string", "format": "x"}));
    }

    #[test]
    fn a_name_defined_twice_is_the_one_imported() {
        let (lazy, full) = lazy_and_full(&refs(&crate_files("pub struct Other { pub z: u8 }\n")));
        let (lazy, full) = (lazy.expect("lazy"), full.expect("full"));
        assert_eq!(lazy, full);
        let spec = &lazy[0].crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
        assert_eq!(spec["properties"]["other"]["properties"]["b"]["type"], "string", "types::Other, through the glob");
    }

    #[test]
    fn controllers_stay_stubs() {
        let dir = write(&refs(&crate_files("")));
        let set = SourceSet::new(&dir.path().join("src"));
        let mut parse = BTreeSet::new();
        let mut rounds = 0;
        loop {
            rounds += 1;
            let ix = CrateIndex::load_with(&set, &parse).expect("load");
            let out = crate::crd::generate_from(&ix, K8sTable::default_table(), &Default::default());
            let touched = ix.take_touched();
            if touched.is_empty() {
                out.into_result().expect("generate");
                break;
            }
            parse.extend(touched);
        }
        let names: Vec<String> =
            parse.iter().map(|p| p.file_name().unwrap_or_default().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["more.rs", "reexport.rs", "types.rs"], "only what the spec needs, after {rounds} rounds");
    }
}

/// Every Rust file of this repository (kubesmith's sources, its tests and fixtures, the xtask), with its text: a
/// corpus of real Rust for tests that compare two ways of reading it.
pub(super) fn repository_rust_files() -> Vec<(std::path::PathBuf, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut stack = vec![root.join("src"), root.join("tests"), root.join("xtask")];
    let mut out = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && let Ok(text) = std::fs::read_to_string(&path)
            {
                out.push((path, text));
            }
        }
    }
    out
}
