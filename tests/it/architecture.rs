//! The import graph of kubesmith's own sources flows one way (docs/ARCHITECTURE.md): no two modules refer to each
//! other, except a module and one of its children (a file split along its seams). References are read from the
//! lexed source (comments are gone, macro bodies kept): every path from `crate::`, `super::` or `self::`, `use`
//! groups included; `#[cfg(test)]` items and `tests.rs` files are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use proc_macro2::{Delimiter, TokenStream, TokenTree};

use crate::support::{repo_root, snapshot};

/// A module's path from the crate root (`["rbac", "infer", "walk"]`).
type ModPath = Vec<String>;

/// The module a source file is, from its path under `src/`.
fn module_of(rel: &Path) -> ModPath {
    let mut parts: Vec<String> = rel.with_extension("").iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("lib" | "main" | "mod")) {
        parts.pop();
    }
    parts
}

/// Every path `text` (the file of module `module`) names from `crate`, `super` or `self`, made absolute.
fn referenced_paths(text: &str, module: &ModPath) -> Vec<ModPath> {
    let tokens: TokenStream = text.parse().expect("kubesmith's sources lex");
    let mut out = Vec::new();
    scan(tokens, module, &mut out);
    out
}

fn is_punct(t: Option<&TokenTree>, c: char) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

/// Whether `tokens[i..]` starts with `::`.
fn path_sep(tokens: &[TokenTree], i: usize) -> bool {
    is_punct(tokens.get(i), ':') && is_punct(tokens.get(i + 1), ':')
}

fn scan(stream: TokenStream, module: &ModPath, out: &mut Vec<ModPath>) {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            // `#[cfg(test)]`: the item it marks is skipped, up to its `;` or its body.
            TokenTree::Punct(p) if p.as_char() == '#' => {
                if let Some(TokenTree::Group(g)) = tokens.get(i + 1)
                    && g.delimiter() == Delimiter::Bracket
                    && g.stream().to_string().replace(' ', "") == "cfg(test)"
                {
                    i += 2;
                    while i < tokens.len() {
                        let end = is_punct(tokens.get(i), ';')
                            || matches!(&tokens[i], TokenTree::Group(g) if g.delimiter() == Delimiter::Brace);
                        i += 1;
                        if end {
                            break;
                        }
                    }
                    continue;
                }
                i += 1;
            }
            // An inline module: its paths are relative to it.
            TokenTree::Ident(id) if id == "mod" => {
                if let (Some(TokenTree::Ident(name)), Some(TokenTree::Group(body))) =
                    (tokens.get(i + 1), tokens.get(i + 2))
                    && body.delimiter() == Delimiter::Brace
                {
                    let mut inner = module.clone();
                    inner.push(name.to_string());
                    scan(body.stream(), &inner, out);
                    i += 3;
                    continue;
                }
                i += 1;
            }
            TokenTree::Ident(id) if (id == "crate" || id == "super" || id == "self") && path_sep(&tokens, i + 1) => {
                if i >= 2 && path_sep(&tokens, i - 2) {
                    // `x::super::..` is not a path of ours.
                    i += 1;
                    continue;
                }
                i = path(&tokens, i, Vec::new(), module, out);
            }
            TokenTree::Group(g) => {
                scan(g.stream(), module, out);
                i += 1;
            }
            _ => i += 1,
        }
    }
}

/// Reads the path starting at `tokens[i]` (after `segs`), `use` groups included; records each full path made
/// absolute; returns the index after it.
fn path(tokens: &[TokenTree], mut i: usize, mut segs: Vec<String>, module: &ModPath, out: &mut Vec<ModPath>) -> usize {
    while let Some(TokenTree::Ident(id)) = tokens.get(i) {
        segs.push(id.to_string());
        i += 1;
        if !path_sep(tokens, i) {
            break;
        }
        i += 2;
        if let Some(TokenTree::Group(g)) = tokens.get(i)
            && g.delimiter() == Delimiter::Brace
        {
            // `prefix::{a, b::c, d::{e, f}}`: each branch is a path of its own.
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            let mut j = 0;
            while j < inner.len() {
                if let TokenTree::Ident(_) = &inner[j] {
                    j = path(&inner, j, segs.clone(), module, out);
                } else {
                    j += 1;
                }
            }
            return i + 1;
        }
    }
    if let Some(abs) = absolute(&segs, module) {
        out.push(abs);
    }
    i
}

/// `segs` (from `crate`, `super` or `self`) as a path from the crate root, seen from `module`.
fn absolute(segs: &[String], module: &ModPath) -> Option<ModPath> {
    let mut base = match segs.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("super" | "self") => module.clone(),
        _ => return None,
    };
    let mut rest = segs;
    if segs[0] == "crate" || segs[0] == "self" {
        rest = &segs[1..];
    }
    while let Some(("super", tail)) = rest.split_first().map(|(h, t)| (h.as_str(), t)) {
        base.pop()?;
        rest = tail;
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The file modules of `src/` (test files left out), each with the modules its references land in (the longest
/// prefix of each path that is a file module; itself left out).
fn import_graph() -> BTreeMap<ModPath, BTreeSet<ModPath>> {
    let modules: BTreeMap<ModPath, String> = snapshot(&repo_root().join("src"))
        .into_iter()
        .filter(|(rel, _)| {
            rel.extension().is_some_and(|e| e == "rs") && rel.file_name().is_some_and(|n| n != "tests.rs")
        })
        .map(|(rel, bytes)| (module_of(&rel), String::from_utf8(bytes).expect("UTF-8 source")))
        .collect();
    let mut graph = BTreeMap::new();
    for (module, text) in &modules {
        let mut targets = BTreeSet::new();
        for path in referenced_paths(text, module) {
            let hit = (1..=path.len()).rev().map(|k| path[..k].to_vec()).find(|p| modules.contains_key(p));
            if let Some(target) = hit.filter(|t| t != module) {
                targets.insert(target);
            }
        }
        graph.insert(module.clone(), targets);
    }
    graph
}

#[test]
fn no_two_modules_import_each_other_but_a_module_and_its_child() {
    let graph = import_graph();
    let name = |m: &ModPath| if m.is_empty() { "lib".to_string() } else { m.join("/") };
    // The graph is the real one: some edges every reader of this code knows are there.
    let edge = |a: &[&str], b: &[&str]| {
        let a: ModPath = a.iter().map(|s| s.to_string()).collect();
        let b: ModPath = b.iter().map(|s| s.to_string()).collect();
        graph.get(&a).is_some_and(|t| t.contains(&b))
    };
    assert!(graph.len() > 150, "only {} modules read", graph.len());
    assert!(edge(&["commands", "create_api"], &["commands", "deploy_image"]), "a `use crate::..` edge");
    assert!(edge(&["rbac", "infer", "walk", "expr"], &["rbac", "infer", "walk", "needs"]), "a `use super::..` edge");
    assert!(edge(&["helm", "chart", "values_tree"], &["helm", "chart", "manager"]), "an edge from a `use` group");

    let mut circles = Vec::new();
    for (a, targets) in &graph {
        for b in targets {
            let related = a.starts_with(b) || b.starts_with(a);
            if a < b && !related && graph.get(b).is_some_and(|t| t.contains(a)) {
                circles.push(format!("{} <-> {}", name(a), name(b)));
            }
        }
    }
    assert!(
        circles.is_empty(),
        "modules that import each other (move what both need below both, see docs/ARCHITECTURE.md):\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_reader_finds_paths_in_use_groups_macros_and_inline_modules() {
    let text = r#"
        use super::{a, b::{c, d}};
        use crate::x::y as z;
        pub(crate) fn f() { let _ = json!({ "k": crate::m::n() }); self::own::g(); }
        // use crate::commented::out;
        #[cfg(test)]
        mod tests { use crate::only_in_tests; }
        pub mod inner { use super::super::up; }
        fn g() -> Vec<super::t::T> { Vec::new() }
    "#;
    let module: ModPath = vec!["p".into(), "q".into()];
    let found: Vec<String> = referenced_paths(text, &module).iter().map(|p| p.join("/")).collect();
    assert_eq!(found, ["p/a", "p/b/c", "p/b/d", "x/y", "m/n", "p/q/own/g", "p/up", "p/t/T"]);
}
