//! `kubesmith make docs`: the API reference of the standard project and of the kube-derive corpus against golden
//! pages (`tests/golden/api-reference/`, re-blessed by `cargo xtask bless`), every field of every CRD found on the
//! page by following its links from the kind's section (parsed with pulldown-cmark), `--check`, PROJECT's record
//! kept current by `make manifests` and replayed by `alpha generate`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use serde_json::Value;

use crate::support::{blessing, init, ks, read, repo_root, standard_project};

const PAGE: &str = "docs/api-reference.md";

/// One row of a field table: the field's name and the `#anchors` its cells link to.
#[derive(Debug, Default)]
struct Row {
    name: String,
    links: Vec<String>,
}

/// The page as sections: anchor id → field rows of the tables below it (up to the next anchor); and every
/// `#anchor` link of the page, and the headings' text.
#[derive(Debug, Default)]
struct Parsed {
    sections: BTreeMap<String, Vec<Row>>,
    links: BTreeSet<String>,
    headings: Vec<String>,
}

fn anchor_ids(html: &str) -> Vec<String> {
    html.split("id=\"").skip(1).filter_map(|rest| rest.split('"').next()).map(str::to_string).collect()
}

fn parse(page: &str) -> Parsed {
    let mut out = Parsed::default();
    let mut current: Option<String> = None;
    let (mut in_head, mut in_heading, mut cell, mut row) = (false, false, 0usize, None::<Row>);
    let mut heading = String::new();
    for event in Parser::new_ext(page, Options::ENABLE_TABLES) {
        match event {
            Event::Html(h) | Event::InlineHtml(h) => {
                for id in anchor_ids(&h) {
                    assert!(!out.sections.contains_key(&id), "anchor {id} is defined twice");
                    out.sections.insert(id.clone(), Vec::new());
                    current = Some(id);
                }
            }
            Event::Start(Tag::Heading { .. }) => (in_heading, heading) = (true, String::new()),
            Event::End(TagEnd::Heading(_)) => {
                in_heading = false;
                out.headings.push(heading.clone());
            }
            Event::Start(Tag::TableHead) => in_head = true,
            Event::End(TagEnd::TableHead) => in_head = false,
            Event::Start(Tag::TableRow) if !in_head => (row, cell) = (Some(Row::default()), 0),
            Event::End(TagEnd::TableRow) => {
                if let (Some(r), Some(id)) = (row.take(), &current) {
                    out.sections.get_mut(id).unwrap().push(r);
                }
            }
            Event::End(TagEnd::TableCell) => cell += 1,
            Event::Code(c) | Event::Text(c) => {
                if in_heading {
                    heading.push_str(&c);
                }
                if let Some(r) = row.as_mut().filter(|_| cell == 0) {
                    r.name.push_str(&c);
                }
            }
            Event::Start(Tag::Link { dest_url, .. }) => {
                if let Some(id) = dest_url.strip_prefix('#') {
                    out.links.insert(id.to_string());
                    if let Some(r) = row.as_mut() {
                        r.links.push(id.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The node whose properties a field's type section lists: the object itself, or the object an array's items or a
/// map's values are (nested lists and maps too).
fn object_of(node: &Value) -> Option<&Value> {
    if node.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty()) {
        return Some(node);
    }
    if let Some(items) = node.get("items") {
        return object_of(items);
    }
    match node.get("additionalProperties") {
        Some(ap @ Value::Object(_)) => object_of(ap),
        _ => None,
    }
}

/// Follows every property of `node` from the section `id` of the page: each is a row of that section, and an
/// object-typed one links to a section listing its own properties. Returns the paths found.
fn walk(page: &Parsed, id: &str, node: &Value, path: &str, found: &mut Vec<String>, missing: &mut Vec<String>) {
    let Some(rows) = page.sections.get(id) else {
        missing.push(format!("{path} (no section #{id})"));
        return;
    };
    for (name, child) in node.get("properties").and_then(Value::as_object).into_iter().flatten() {
        let here = format!("{path}.{name}");
        let Some(row) = rows.iter().find(|r| &r.name == name) else {
            missing.push(format!("{here} (no row in #{id})"));
            continue;
        };
        found.push(here.clone());
        if let Some(object) = object_of(child) {
            match row.links.first() {
                Some(target) => walk(page, target, object, &here, found, missing),
                None => missing.push(format!("{here} (an object, but its type links nowhere)")),
            }
        }
    }
}

fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

/// Every property of every version of every CRD is reachable on the page from its kind's section, every link
/// lands on an anchor, and each kind has its heading. Returns how many field paths were found.
fn assert_page_covers(page_text: &str, crds: &[Value]) -> usize {
    let page = parse(page_text);
    let dangling: Vec<_> = page.links.iter().filter(|l| !page.sections.contains_key(*l)).collect();
    assert!(dangling.is_empty(), "links to no anchor: {dangling:?}");
    let (mut found, mut missing) = (Vec::new(), Vec::new());
    for crd in crds {
        let group = crd["spec"]["group"].as_str().unwrap();
        let kind = crd["spec"]["names"]["kind"].as_str().unwrap();
        assert!(page.headings.iter().any(|h| h == kind), "no heading for {kind}");
        for v in crd["spec"]["versions"].as_array().unwrap() {
            let version = v["name"].as_str().unwrap();
            let id = slug(&format!("{group}-{version}-{kind}"));
            let schema = &v["schema"]["openAPIV3Schema"];
            walk(&page, &id, schema, &format!("{kind}.{version}"), &mut found, &mut missing);
        }
    }
    assert!(
        missing.is_empty(),
        "{} field(s) not on the page, e.g. {:?}",
        missing.len(),
        &missing[..missing.len().min(8)]
    );
    found.len()
}

/// `actual` against the golden file (rewritten under `cargo xtask bless`).
fn golden(actual: &str, name: &str) {
    let path = repo_root().join("tests/golden/api-reference").join(name);
    if blessing() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = read(&path);
    assert!(
        expected == actual,
        "{} differs from the generated page; run `cargo xtask bless` if intended.\n--- actual\n{actual}",
        path.display()
    );
}

fn crds_in(dir: &Path) -> Vec<Value> {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for f in files {
        let text = read(&f);
        let doc: Value = if f.extension().is_some_and(|x| x == "json") {
            match serde_json::from_str(&text) {
                Ok(v) => v,
                Err(_) => continue,
            }
        } else if f.extension().is_some_and(|x| x == "yaml") {
            kubesmith::yaml::from_str(text.trim_start_matches("---\n")).unwrap()
        } else {
            continue;
        };
        // the corpus has two samples of one kind (`multi-merged`, `multi-v1`): the page documents the first
        let same = |c: &Value| c["spec"]["group"] == doc["spec"]["group"] && c["spec"]["names"] == doc["spec"]["names"];
        if doc["kind"] == "CustomResourceDefinition" && !out.iter().any(same) {
            out.push(doc);
        }
    }
    out
}

#[test]
fn golden_api_reference_of_the_standard_project() {
    let parent = tempfile::tempdir().unwrap();
    let dir = standard_project(parent.path());
    ks(&dir).args(["make", "docs", "--help"]).assert().success();
    let out = ks(&dir).args(["make", "docs"]).assert().success();
    let said = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(said.contains("docs/api-reference.md"), "{said}");
    let page = read(&dir.join(PAGE));
    let crds = crds_in(&dir.join("config/crd/bases"));
    assert_eq!(crds.len(), 3);
    let fields = assert_page_covers(&page, &crds);
    assert!(fields >= 20, "only {fields} field paths");
    // a Kubernetes type is named and linked; the kind's facts are there
    assert!(page.contains("#### Condition\n"), "{page}");
    assert!(page.contains("#condition-v1-meta"), "{page}");
    assert!(page.contains("- Scope: Cluster"), "{page}");
    assert!(page.contains("`.status.conditions[?(@.type==\"Available\")].status`"), "{page}");
    golden(&page, "memcached-operator.md");
    // the same in AsciiDoc, at a page of its own
    ks(&dir).args(["make", "docs", "--format", "asciidoc"]).assert().success();
    let adoc = read(&dir.join("docs/api-reference.adoc"));
    assert!(adoc.contains("[[cache-example-com-v1alpha1-memcachedspec]]\n==== MemcachedSpec"), "{adoc}");
    assert!(read(&dir.join("PROJECT")).contains("format: asciidoc"));
    golden(&adoc, "memcached-operator.adoc");
}

#[test]
fn golden_api_reference_of_the_kube_derive_corpus() {
    let crds = crds_in(&repo_root().join("tests/conformance/kube-derive/out"));
    assert!(crds.len() > 50, "{} CRDs in the corpus", crds.len());
    let page = kubesmith::docs::render(&crds, kubesmith::docs::Format::Markdown, "1.37");
    let fields = assert_page_covers(&page, &crds);
    assert!(fields > 1000, "only {fields} field paths");
    // validation and types as written in YAML
    for needle in [
        "`map[string]`",
        "`[]string`",
        "[Quantity](",
        "`IntOrString`",
        "rule: `",
        "one of: `",
        "pattern: `",
        "exactly one of: ",
    ] {
        assert!(page.contains(needle), "no {needle} on the corpus' page");
    }
    golden(&page, "kube-derive-corpus.md");
    let adoc = kubesmith::docs::render(&crds, kubesmith::docs::Format::Asciidoc, "1.37");
    // every cross reference of the AsciiDoc page lands on an anchor of it
    let defined: BTreeSet<&str> = adoc.lines().filter_map(|l| l.strip_prefix("[[")?.strip_suffix("]]")).collect();
    let referenced: BTreeSet<&str> = adoc.split("<<").skip(1).filter_map(|r| r.split(',').next()).collect();
    let dangling: Vec<_> = referenced.difference(&defined).collect();
    assert!(dangling.is_empty() && referenced.len() > 100, "cross references to no anchor: {dangling:?}");
    for c in &crds {
        let kind = c["spec"]["names"]["kind"].as_str().unwrap();
        assert!(adoc.contains(&format!("=== {kind}\n")), "no {kind} in the AsciiDoc page");
    }
}

#[test]
fn make_docs_check_names_a_stale_page_and_make_manifests_keeps_it_current() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "op", &[]);
    crate::support::create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    // not made yet: --check fails naming the page, and writes nothing
    let out = ks(&dir).args(["make", "docs", "--check"]).assert().failure();
    assert!(String::from_utf8_lossy(&out.get_output().stdout).contains("missing: docs/api-reference.md"));
    assert!(!dir.join(PAGE).exists());
    ks(&dir).args(["make", "docs"]).assert().success();
    ks(&dir).args(["make", "docs", "--check"]).assert().success();
    ks(&dir).args(["make", "manifests", "--check"]).assert().success();
    // a new field: the page is stale until make manifests, which PROJECT's record makes rewrite it
    let types = dir.join("src/api/v1alpha1/memcached.rs");
    let text = read(&types);
    let field = "    pub foo: Option<String>,\n";
    assert!(text.contains(field), "{text}");
    let added =
        "    /// How many memcached pods to run.\n    #[schemars(range(min = 1, max = 9))]\n    pub size: i32,\n";
    std::fs::write(&types, text.replacen(field, &format!("{field}{added}"), 1)).unwrap();
    let before = read(&dir.join(PAGE));
    let out = ks(&dir).args(["make", "docs", "--check"]).assert().failure();
    assert!(String::from_utf8_lossy(&out.get_output().stdout).contains("stale: docs/api-reference.md"));
    assert_eq!(read(&dir.join(PAGE)), before, "--check wrote the page");
    ks(&dir).args(["make", "manifests", "--check"]).assert().failure();
    ks(&dir).args(["make", "manifests"]).assert().success();
    let page = read(&dir.join(PAGE));
    assert!(
        page.contains("| `size` | `integer` | required |  | format: `int32`<br>minimum: `1`<br>maximum: `9` | How many memcached pods to run. |"),
        "{page}"
    );
    ks(&dir).args(["make", "docs", "--check"]).assert().success();
}

#[test]
fn alpha_generate_replays_make_docs() {
    let parent = tempfile::tempdir().unwrap();
    let dir = init(parent.path(), "op", &[]);
    crate::support::create_api(&dir, &["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);
    ks(&dir).args(["make", "manifests"]).assert().success();
    ks(&dir).args(["make", "docs", "--output", "docs/reference/api.md"]).assert().success();
    let out = ks(&dir).args(["alpha", "generate"]).assert().success();
    let said = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(said.lines().any(|l| l == "replay: kubesmith make docs --output docs/reference/api.md"), "{said}");
    let replayed = parent.path().join("op-generated");
    assert_eq!(read(&replayed.join("docs/reference/api.md")), read(&dir.join("docs/reference/api.md")));
    assert_eq!(read(&replayed.join("PROJECT")), read(&dir.join("PROJECT")));
}

#[test]
fn an_adopted_project_documents_its_own_kinds_only() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("orchard");
    crate::adopt::copy_dir(&crate::rbac_infer::orchard(), &dir);
    ks(&dir)
        .args(["adopt", "--domain", "example.net", "--image", "quay.io/orchard/controller:0.1.0"])
        .args(["--bin", "orchard-controller", "--external", "Plot"])
        .assert()
        .success();
    ks(&dir).args(["make", "docs"]).assert().success();
    let page = read(&dir.join(PAGE));
    assert!(page.contains("### Tree\n"), "{page}");
    assert!(!page.contains("Plot") && !page.contains("land.example.net"), "an external kind is documented:\n{page}");
    assert_page_covers(&page, &crds_in(&dir.join("config/crd/bases")));
    ks(&dir).args(["make", "manifests", "--check"]).assert().success();
}
