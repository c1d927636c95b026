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

/// The layers of docs/ARCHITECTURE.md, top to bottom: each top-level module of `src/` (`lib` for the crate root)
/// in one. A module may import modules of its own layer or of any lower one, never of a higher one.
const LAYERS: &[(&str, &[&str])] = &[
    ("entry", &["lib", "main", "cli", "commands"]),
    ("ops", &["ops"]),
    ("packaging", &["helm", "docs", "grafana", "envtest"]),
    ("olm", &["olm"]),
    ("generators", &["crd", "rbac", "webhook", "edit"]),
    ("reading", &["source", "markers", "rustfmt"]),
    (
        "foundation",
        &[
            "project",
            "plan",
            "apply",
            "names",
            "yaml",
            "render",
            "formatted",
            "output",
            "git",
            "clock",
            "interrupt",
            "parallel",
            "builtin",
            "runtime_source",
            "kustomize",
            "usage",
        ],
    ),
];

/// Arrows against the layers that are known and owned: each names what removes it. The list only shrinks.
const KNOWN_UPWARD: &[(&str, &str, &str)] = &[];

/// Modules of one layer that stay apart: each reads Rust through `source`, not through the other.
const APART: &[(&str, &str)] =
    &[("rbac", "crd"), ("crd", "rbac"), ("edit", "crd"), ("webhook", "crd"), ("webhook", "rbac")];

fn name(m: &ModPath) -> String {
    if m.is_empty() { "lib".to_string() } else { m.join("/") }
}

fn layer_of(m: &ModPath) -> Option<usize> {
    let top = m.first().map_or("lib", String::as_str);
    LAYERS.iter().position(|(_, members)| members.contains(&top))
}

#[test]
fn the_graph_is_read_from_the_sources() {
    let graph = import_graph();
    // The graph is the real one: some edges every reader of this code knows are there.
    let edge = |a: &[&str], b: &[&str]| {
        let a: ModPath = a.iter().map(|s| s.to_string()).collect();
        let b: ModPath = b.iter().map(|s| s.to_string()).collect();
        graph.get(&a).is_some_and(|t| t.contains(&b))
    };
    assert!(graph.len() > 150, "only {} modules read", graph.len());
    assert!(edge(&["commands", "make_manifests"], &["ops", "manifests"]), "a `use crate::..` edge");
    assert!(edge(&["rbac", "infer", "walk", "expr"], &["rbac", "infer", "walk", "needs"]), "a `use super::..` edge");
    assert!(edge(&["helm", "chart", "values_tree"], &["helm", "chart", "manager"]), "an edge from a `use` group");
}

/// Tarjan's strongly connected components of `graph`, each of more than one module (or a module importing itself).
fn circles(graph: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<ModPath>> {
    struct State<'g> {
        graph: &'g BTreeMap<ModPath, BTreeSet<ModPath>>,
        index: BTreeMap<&'g ModPath, usize>,
        low: BTreeMap<&'g ModPath, usize>,
        stack: Vec<&'g ModPath>,
        on_stack: BTreeSet<&'g ModPath>,
        out: Vec<Vec<ModPath>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g ModPath) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let Some((w, _)) = s.graph.get_key_value(w) else { continue };
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.clone());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

/// The import graph without the arrows between a module and its own ancestors or descendants: a file split along
/// its seams (a parent re-exporting its children, a child using its parent's items) is one module to its readers.
fn graph_between_modules() -> BTreeMap<ModPath, BTreeSet<ModPath>> {
    let mut graph = import_graph();
    for (a, targets) in graph.iter_mut() {
        targets.retain(|b| !(a.starts_with(b) || b.starts_with(a)));
    }
    graph
}

#[test]
fn no_circle_of_any_length() {
    let found = circles(&graph_between_modules());
    let shown: Vec<String> = found.iter().map(|c| c.iter().map(name).collect::<Vec<_>>().join(" -> ")).collect();
    assert!(
        found.is_empty(),
        "modules that import each other through a circle (move what they share below them all, see \
         docs/ARCHITECTURE.md):\n{}",
        shown.join("\n")
    );
}

#[test]
fn the_circle_finder_finds_long_circles_and_only_them() {
    let m = |s: &str| -> ModPath { s.split('/').map(str::to_string).collect() };
    let mut graph: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "d"), ("d", "a"), ("e", "a"), ("f", "e")] {
        graph.entry(m(a)).or_default().insert(m(b));
        graph.entry(m(b)).or_default();
    }
    let found = circles(&graph);
    assert_eq!(found, vec![vec![m("a"), m("b"), m("c"), m("d")]]);
}

#[test]
fn every_arrow_goes_down_the_layers() {
    let graph = graph_between_modules();
    let mut unknown = Vec::new();
    let mut wrong = Vec::new();
    let mut known_seen = BTreeSet::new();
    for (a, targets) in &graph {
        let Some(la) = layer_of(a) else {
            unknown.push(name(a));
            continue;
        };
        for b in targets {
            let Some(lb) = layer_of(b) else { continue };
            if lb >= la {
                continue;
            }
            let (an, bn) = (name(a), name(b));
            if let Some(k) = KNOWN_UPWARD.iter().find(|(x, y, _)| *x == an && *y == bn) {
                known_seen.insert(k.0);
                continue;
            }
            wrong.push(format!("{an} ({}) -> {bn} ({})", LAYERS[la].0, LAYERS[lb].0));
        }
    }
    assert!(
        unknown.is_empty(),
        "top-level modules in no layer (add each to LAYERS and docs/ARCHITECTURE.md): {unknown:?}"
    );
    assert!(wrong.is_empty(), "arrows up the layers (docs/ARCHITECTURE.md, \"Layers\"):\n{}", wrong.join("\n"));
    let stale: Vec<&str> = KNOWN_UPWARD.iter().map(|k| k.0).filter(|k| !known_seen.contains(k)).collect();
    assert!(stale.is_empty(), "KNOWN_UPWARD lists arrows that are gone: remove {stale:?}");
}

#[test]
fn the_readers_of_rust_stay_apart() {
    let graph = import_graph();
    let mut found = Vec::new();
    for (a, targets) in &graph {
        for b in targets {
            let (ta, tb) = (a.first().map_or("", String::as_str), b.first().map_or("", String::as_str));
            if APART.contains(&(ta, tb)) {
                found.push(format!("{} -> {}", name(a), name(b)));
            }
        }
    }
    assert!(found.is_empty(), "generators importing each other (share it through `source`):\n{}", found.join("\n"));
}

#[test]
fn no_command_imports_another() {
    let graph = import_graph();
    let command = |m: &ModPath| (m.len() >= 2 && m[0] == "commands").then(|| m[1].clone());
    let mut found = Vec::new();
    for (a, targets) in &graph {
        let Some(ca) = command(a) else { continue };
        for b in targets {
            if command(b).is_some_and(|cb| cb != ca) {
                found.push(format!("{} -> {}", name(a), name(b)));
            }
        }
    }
    assert!(
        found.is_empty(),
        "commands importing other commands (move what they share into `ops`):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_map_names_every_module() {
    let map = std::fs::read_to_string(repo_root().join("docs/ARCHITECTURE.md")).expect("docs/ARCHITECTURE.md");
    let lines = map.lines().count();
    assert!(
        lines <= 300,
        "docs/ARCHITECTURE.md has {lines} lines: it is a map (at most 300); details go in the modules' docs"
    );
    let graph = import_graph();
    let mut missing = BTreeSet::new();
    for m in graph.keys().filter(|m| !m.is_empty() && m.len() <= 2 && m[0] != "main") {
        let path = m.join("::");
        if !map.contains(&format!("`{path}`")) && !map.contains(&format!("`{path}::")) {
            missing.insert(path);
        }
    }
    assert!(missing.is_empty(), "modules docs/ARCHITECTURE.md does not name (as `a::b`): {missing:?}");
    // Its table of layers is this test's.
    let rows: Vec<BTreeSet<String>> = map
        .lines()
        .filter(|l| l.starts_with("| ") && l.as_bytes().get(2).is_some_and(u8::is_ascii_digit))
        .map(|l| l.split('|').nth(2).unwrap_or_default().split('`').skip(1).step_by(2).map(str::to_string).collect())
        .collect();
    let ours: Vec<BTreeSet<String>> =
        LAYERS.iter().map(|(_, members)| members.iter().map(|m| m.to_string()).collect()).collect();
    assert_eq!(rows, ours, "the layers of docs/ARCHITECTURE.md's table differ from LAYERS in this test");
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
