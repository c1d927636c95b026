//! Rust types for a version of an existing CRD (`create api --from-crd`): the spec and status structs with
//! `#[derive(CustomResource)]` and `#[kube(..)]`, doc comments from the descriptions, and markers for what the
//! types alone cannot say, chosen so that `make manifests` gives the CRD back.
//!
//! The parts: `shape` (a schema node's Rust type, or a schema function with the node's exact JSON when no type says
//! it), `markers` (keywords as marker lines, quoted so the parser reads the exact value back), `names` (idents serde
//! renames back, unique type names) and `emit` (the text). The root's differences from controller-gen go to the root
//! markers ([`super::markers::root`]); what kube-derive never writes but the file spells out (`listKind`,
//! `preserveUnknownFields: false`, a conversion strategy, no status subresource beside a status, `subresources: {}`)
//! goes to `+kubesmith:crd`, which [`super::markers::resource`] applies to the version's CRD.

mod emit;
mod markers;
mod names;
mod shape;

use std::fmt::Write;

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value};

pub use shape::Note;

use crate::crd::markers::root::{API_VERSION_DOC as TYPE_META_API_VERSION, KIND_DOC as TYPE_META_KIND};

/// What a CRD says about its kind as a whole.
#[derive(Debug, Clone, PartialEq)]
pub struct CrdFacts {
    /// The CRD's `spec.group`.
    pub group: String,
    pub kind: String,
    pub plural: String,
    pub namespaced: bool,
    /// Every version, in the CRD's order.
    pub versions: Vec<String>,
    /// The version with `storage: true`.
    pub storage: String,
}

/// Reads the kind, names and versions of a CRD object, or says what is wrong with it.
pub fn facts(crd: &Value) -> Result<CrdFacts> {
    if crd["kind"] != "CustomResourceDefinition" {
        bail!("this is no CustomResourceDefinition (its kind is {})", crd["kind"]);
    }
    if crd["apiVersion"] != "apiextensions.k8s.io/v1" {
        bail!(
            "this CRD is {}; kubesmith reads apiextensions.k8s.io/v1 CRDs (convert it with a current controller-gen, or \
             `kubectl get crd NAME -o yaml` from a cluster that stores it)",
            crd["apiVersion"]
        );
    }
    let spec = &crd["spec"];
    let text = |v: &Value, what: &str| v.as_str().map(String::from).with_context(|| format!("the CRD has no {what}"));
    let versions: Vec<String> = spec["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v["name"].as_str().map(String::from))
        .collect();
    if versions.is_empty() {
        bail!("the CRD has no spec.versions");
    }
    let storage = spec["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|v| v["storage"] == true)
        .and_then(|v| v["name"].as_str())
        .context("no version of the CRD has `storage: true`")?
        .to_string();
    Ok(CrdFacts {
        group: text(&spec["group"], "spec.group")?,
        kind: text(&spec["names"]["kind"], "spec.names.kind")?,
        plural: text(&spec["names"]["plural"], "spec.names.plural")?,
        namespaced: spec["scope"] == "Namespaced",
        versions,
        storage,
    })
}

/// The Rust file of one version.
#[derive(Debug, Clone)]
pub struct VersionTypes {
    pub version: String,
    pub source: String,
    /// Nodes written as schema functions: exact, but as JSON rather than Rust types.
    pub as_schema_fns: Vec<Note>,
    /// What the file cannot say (the generated CRD differs there).
    pub unexpressed: Vec<Note>,
}

/// controller-gen's stamp on the CRDs it writes (not carried over: kubesmith writes the new CRD).
pub const CONTROLLER_GEN_ANNOTATION: &str = "controller-gen.kubebuilder.io/version";

/// The types of `version` of `crd`; `header` is the file's `//!` line.
pub fn version_types(crd: &Value, version: &str, header: &str) -> Result<VersionTypes> {
    let facts = facts(crd)?;
    let v = crd["spec"]["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|v| v["name"] == version)
        .with_context(|| format!("the CRD has no version `{version}` (it has {})", facts.versions.join(", ")))?;
    let empty = Map::new();
    let root = v["schema"]["openAPIV3Schema"].as_object().unwrap_or(&empty);
    let props = root.get("properties").and_then(Value::as_object).unwrap_or(&empty);
    let mut b = shape::Builder::default();
    let kind = &facts.kind;
    for reserved in
        [kind.as_str(), "IntOrString", "BTreeMap", "CustomResource", "JsonSchema", "Serialize", "Deserialize"]
    {
        b.names.reserve(reserved);
    }
    let spec_name = b.names.unique(format!("{kind}Spec"));
    // a status subresource without a status property: `+kubebuilder:subresource:status` with no status type
    let status_subresource = v["subresources"].get("status").is_some();
    let status_name = props.contains_key("status").then(|| b.names.unique(format!("{kind}Status")));
    // no `spec`: the kind's fields sit at the root (`#[kube(no_spec)]`)
    let no_spec = !props.contains_key("spec");

    let mut unexpressed = Vec::new();
    let mut note = |path: &str, reason: String| unexpressed.push(Note { path: path.to_string(), reason });
    let (mut spec_node, spec_doc, spec_path) = match props.get("spec").and_then(Value::as_object) {
        Some(s) => (s.clone(), s.get("description").and_then(Value::as_str).map(String::from), "spec"),
        None => (root_fields(root), None, ""),
    };
    // a default on the spec or status object itself is the root's to write (no struct marker says it)
    let mut root_defaults = Vec::new();
    if !no_spec && let Some(d) = spec_node.remove("default") {
        root_defaults.push(format!("+kubesmith:root:specDefault={d}"));
    }
    // `nullable` on the spec property (rook's shape): kube-derive never writes it, the root marker does
    if !no_spec && spec_node.remove("nullable") == Some(Value::Bool(true)) {
        root_defaults.push("+kubesmith:root:nullable=spec".into());
    }
    let spec_at = b.reserve();
    let spec = b.object_struct(spec_name.clone(), &spec_node, spec_path, spec_doc);
    let status = status_name.as_ref().map(|name| {
        let node = props.get("status").and_then(Value::as_object).cloned().unwrap_or_else(|| {
            let mut empty = Map::new();
            empty.insert("type".into(), Value::String("object".into()));
            empty
        });
        let mut node = node;
        if let Some(d) = node.remove("default") {
            root_defaults.push(format!("+kubesmith:root:statusDefault={d}"));
        }
        let at = b.reserve();
        let doc = node.get("description").and_then(Value::as_str).map(String::from);
        let s = b.object_struct(name.clone(), &node, "status", doc);
        (at, s)
    });

    // the root: what kube-derive's generated kind says, and the markers and #[kube] keys for the rest
    let mut root_markers = Vec::new();
    for (key, value) in root {
        match key.as_str() {
            "type" if value == "object" => {}
            "properties" | "description" | "required" => {}
            "title" => {}
            "x-kubernetes-validations" => {}
            other => note("", format!("`{other}` at the schema root: kube-derive's kind has no way to write it")),
        }
    }
    // properties of the root beside spec (argo-cd's `operation`): kube-derive's kind has spec, status and metadata
    // only, so the CRD keeps them by a root marker (with no_spec they are the spec's fields)
    let beside: Map<String, Value> = props
        .iter()
        .filter(|(name, _)| {
            !no_spec && !matches!(name.as_str(), "spec" | "status" | "apiVersion" | "kind" | "metadata")
        })
        .map(|(name, schema)| (name.clone(), schema.clone()))
        .collect();
    if !beside.is_empty() {
        root_defaults.push(format!("+kubesmith:root:properties={}", Value::Object(beside)));
    }
    // printer columns as markers: several `#[kube(printcolumn(type_ = "integer", ..))]` trip clippy's
    // duplicated_attributes lint
    for col in v["additionalPrinterColumns"].as_array().into_iter().flatten() {
        let mut args = Vec::new();
        for (key, arg) in [
            ("name", "name"),
            ("type", "type"),
            ("jsonPath", "JSONPath"),
            ("description", "description"),
            ("format", "format"),
        ] {
            if let Some(t) = col[key].as_str() {
                args.push(format!("{arg}={}", markers::quote_double(t)));
            }
        }
        if let Some(p) = col["priority"].as_i64() {
            args.push(format!("priority={p}"));
        }
        root_markers.push(format!("+kubebuilder:printcolumn:{}", args.join(",")));
    }
    let type_meta = ["apiVersion", "kind", "metadata"].iter().any(|k| props.contains_key(*k));
    if type_meta {
        root_markers.push(type_meta_marker(props));
    }
    // kube-derive titles the root with the kind's name; typeMeta drops it, as controller-gen has none
    match root.get("title").and_then(Value::as_str) {
        Some(t) => root_markers.push(format!("+kubesmith:root:title={}", markers::quote_double(t))),
        None if !type_meta => root_markers.push("+kubesmith:root:noTitle".into()),
        None => {}
    }
    root_markers.append(&mut root_defaults);
    // what kube-derive never writes but the file spells out: kept as written
    let mut crd_args = Vec::new();
    if let Some(list_kind) = crd["spec"]["names"]["listKind"].as_str() {
        let plain = list_kind.chars().all(|c| c.is_ascii_alphanumeric());
        crd_args
            .push(format!("listKind={}", if plain { list_kind.to_string() } else { markers::quote_double(list_kind) }));
    }
    if crd["spec"].get("preserveUnknownFields") == Some(&Value::Bool(false)) {
        crd_args.push("preserveUnknownFields=false".into());
    }
    match crd["spec"].get("conversion") {
        Some(c) if *c == serde_json::json!({"strategy": "None"}) => crd_args.push("conversion=None".into()),
        Some(c) if v["storage"] == true => crd_args.extend(conversion_args(c)),
        _ => {}
    }
    if status_subresource && status_name.is_none() {
        root_markers.push("+kubebuilder:subresource:status".into());
    }
    let subresources = v.get("subresources");
    if status_name.is_some() && subresources.and_then(|s| s.get("status")).is_none() {
        crd_args.push("statusSubresource=false".into());
    }
    if subresources.is_some_and(|s| s.as_object().is_some_and(Map::is_empty)) {
        crd_args.push("emptySubresources=true".into());
    }
    // the versions' order, as the file lists them (kube's merge puts the storage version first)
    let names: Vec<&str> =
        crd["spec"]["versions"].as_array().into_iter().flatten().filter_map(|v| v["name"].as_str()).collect();
    if names.len() > 1 && v["storage"] == true {
        crd_args.push(format!("versionOrder={}", names.join(";")));
    }
    if !crd_args.is_empty() {
        root_markers.push(format!("+kubesmith:crd:{}", crd_args.join(",")));
    }
    let required: Vec<&str> =
        root.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    if !required.contains(&"spec") && !no_spec {
        root_markers.push("+kubesmith:root:optional=spec".into());
    }
    if status_name.is_some() && props.get("status").and_then(|s| s.get("nullable")) != Some(&Value::Bool(true)) {
        root_markers.push("+kubesmith:root:notNullable=status".into());
    }
    // what kube-derive's root requires: spec, or with no_spec the spec's own required fields
    let kube_required = |r: &str| if no_spec { spec_node_required(&spec_node, r) } else { r == "spec" };
    let extra: Vec<&str> = required.iter().copied().filter(|r| !kube_required(r)).collect();
    if !extra.is_empty() {
        root_markers.push(format!("+kubesmith:root:required={}", extra.join(";")));
    }

    let mut kube = vec![
        format!("group = {}", emit::rust_str(&facts.group)),
        format!("version = {}", emit::rust_str(version)),
        format!("kind = {}", emit::rust_str(kind)),
    ];
    if no_spec {
        kube.push("no_spec".into());
    }
    kube_keys(crd, v, root, &facts, status_name.as_deref(), &mut kube, &mut note);

    let mut out = String::new();
    let _ = writeln!(out, "//! {header}");
    let _ = writeln!(out, "//!");
    let _ = writeln!(
        out,
        "//! The doc comments are the CRD's descriptions, word for word (`make manifests` writes them back), so \
         rustdoc's\n//! Markdown lints about their lists are off here."
    );
    let _ = writeln!(out, "#![allow(clippy::doc_lazy_continuation, clippy::doc_overindented_list_items)]");
    let _ = writeln!(out, "use kube::CustomResource;");
    let _ = writeln!(out, "use schemars::JsonSchema;");
    let _ = writeln!(out, "use serde::{{Deserialize, Serialize}};");
    if b.uses_map {
        let _ = writeln!(out, "use std::collections::BTreeMap;");
    }
    if b.uses_int_or_string {
        let _ = writeln!(out, "use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;");
    }
    out.push('\n');
    let mut spec = spec;
    let mut head_markers = root_markers;
    head_markers.append(&mut spec.markers);
    spec.markers = head_markers;
    let mut head = vec![emit::DERIVES.replacen("#[derive(", "#[derive(CustomResource, ", 1)];
    head.push(format!("#[kube(\n    {}\n)]", kube.join(",\n    ")));
    b.items[spec_at] = shape::Item::Struct(spec);
    if let Some((at, s)) = status {
        b.items[at] = shape::Item::Struct(s);
    }
    for (i, item) in b.items.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match item {
            shape::Item::Struct(s) if i == spec_at => emit::write_struct(&mut out, s, &head),
            other => emit::write_item(&mut out, other),
        }
    }
    for f in &b.shared_fns {
        out.push('\n');
        emit::write_item(&mut out, f);
    }
    unexpressed.extend(b.unexpressed);
    Ok(VersionTypes { version: version.to_string(), source: out, as_schema_fns: b.as_schema_fns, unexpressed })
}

/// The `+kubesmith:crd` arguments of a conversion webhook a CRD carries itself (a Service or a URL, the review
/// versions); none when it has anything else (a `caBundle`, another strategy), which `make manifests` could not
/// give back.
fn conversion_args(c: &Value) -> Vec<String> {
    let q = markers::quote_double;
    let Some(c) = c.as_object() else { return Vec::new() };
    let webhook = c.get("webhook").and_then(Value::as_object);
    let client = webhook.and_then(|w| w.get("clientConfig")).and_then(Value::as_object);
    let reviews: Vec<&str> = webhook
        .and_then(|w| w.get("conversionReviewVersions"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let (Some(webhook), Some(client)) = (webhook, client) else { return Vec::new() };
    let known = c.keys().all(|k| k == "strategy" || k == "webhook")
        && c.get("strategy") == Some(&Value::from("Webhook"))
        && webhook.keys().all(|k| k == "clientConfig" || k == "conversionReviewVersions")
        && !reviews.is_empty();
    if !known {
        return Vec::new();
    }
    let mut args = vec!["conversion=Webhook".to_string()];
    match (client.get("service").and_then(Value::as_object), client.get("url").and_then(Value::as_str)) {
        (Some(svc), None) if client.len() == 1 => {
            let (Some(ns), Some(name)) =
                (svc.get("namespace").and_then(Value::as_str), svc.get("name").and_then(Value::as_str))
            else {
                return Vec::new();
            };
            if svc.keys().any(|k| !["namespace", "name", "path", "port"].contains(&k.as_str())) {
                return Vec::new();
            }
            args.push(format!("conversionService={}", q(&format!("{ns}/{name}"))));
            if let Some(path) = svc.get("path") {
                let Some(path) = path.as_str() else { return Vec::new() };
                args.push(format!("conversionPath={}", q(path)));
            }
            if let Some(port) = svc.get("port") {
                let Some(port) = port.as_i64() else { return Vec::new() };
                args.push(format!("conversionPort={port}"));
            }
        }
        (None, Some(url)) if client.len() == 1 => args.push(format!("conversionURL={}", q(url))),
        _ => return Vec::new(),
    }
    args.push(format!("conversionReviewVersions={}", reviews.join(";")));
    args
}

/// `+kubesmith:root:typeMeta`, with the descriptions of `apiVersion` and `kind` when they are not controller-gen's.
fn type_meta_marker(props: &Map<String, Value>) -> String {
    let desc = |k: &str| props.get(k).and_then(|p| p.get("description")).and_then(Value::as_str).unwrap_or("");
    let mut args = Vec::new();
    for (k, default) in [("apiVersion", TYPE_META_API_VERSION), ("kind", TYPE_META_KIND)] {
        if desc(k) != default {
            args.push(format!("{k}={}", markers::quote_double(desc(k))));
        }
    }
    if args.is_empty() {
        "+kubesmith:root:typeMeta".into()
    } else {
        format!("+kubesmith:root:typeMeta:{}", args.join(","))
    }
}

/// The `#[kube(..)]` keys besides group, version and kind.
fn kube_keys(
    crd: &Value,
    v: &Value,
    root: &Map<String, Value>,
    facts: &CrdFacts,
    status: Option<&str>,
    kube: &mut Vec<String>,
    note: &mut impl FnMut(&str, String),
) {
    let s = emit::rust_str;
    let names = &crd["spec"]["names"];
    if facts.namespaced {
        kube.push("namespaced".into());
    }
    let singular = names["singular"].as_str().map(String::from).unwrap_or_else(|| facts.kind.to_ascii_lowercase());
    if singular != facts.kind.to_ascii_lowercase() {
        kube.push(format!("singular = {}", s(&singular)));
    }
    if facts.plural != crate::names::kube_plural(&singular) {
        kube.push(format!("plural = {}", s(&facts.plural)));
    }
    for n in names["shortNames"].as_array().into_iter().flatten().filter_map(Value::as_str) {
        kube.push(format!("shortname = {}", s(n)));
    }
    for c in names["categories"].as_array().into_iter().flatten().filter_map(Value::as_str) {
        kube.push(format!("category = {}", s(c)));
    }
    if let Some(status) = status {
        kube.push(format!("status = {}", s(status)));
    }
    let sub = &v["subresources"];
    if let Some(scale) = sub.get("scale") {
        let mut args = Vec::new();
        for (key, arg) in [
            ("specReplicasPath", "spec_replicas_path"),
            ("statusReplicasPath", "status_replicas_path"),
            ("labelSelectorPath", "label_selector_path"),
        ] {
            if let Some(p) = scale[key].as_str() {
                args.push(format!("{arg} = {}", s(p)));
            }
        }
        kube.push(format!("scale({})", args.join(", ")));
    }
    for f in v["selectableFields"].as_array().into_iter().flatten().filter_map(|f| f["jsonPath"].as_str()) {
        kube.push(format!("selectable = {}", s(f)));
    }
    // an empty doc is no description (without `doc` kube-derive writes its own text)
    let d = root.get("description").and_then(Value::as_str).unwrap_or_default();
    kube.push(format!("doc = {}", s(&kube_doc(d))));
    for rule in root.get("x-kubernetes-validations").and_then(Value::as_array).into_iter().flatten() {
        match root_rule(rule) {
            Some(expr) => kube.push(format!("validation = {expr}")),
            None => note("", format!("the root rule {rule}: a key kube's `Rule` has no method for")),
        }
    }
    if v["served"] == false {
        kube.push("served = false".into());
    }
    if v["storage"] != true {
        kube.push("storage = false".into());
    }
    if v["deprecated"] == true {
        match v["deprecationWarning"].as_str() {
            Some(w) => kube.push(format!("deprecated = {}", s(w))),
            None => kube.push("deprecated".into()),
        }
    }
    let meta = &crd["metadata"];
    for (key, attr) in [("annotations", "annotation"), ("labels", "label")] {
        for (k, val) in meta[key].as_object().into_iter().flatten() {
            if k == CONTROLLER_GEN_ANNOTATION {
                continue;
            }
            if let Some(val) = val.as_str() {
                kube.push(format!("{attr}({}, {})", s(k), s(val)));
            }
        }
    }
    if let Some(c) = crd["spec"].get("conversion").filter(|c| c["strategy"] != "None")
        && conversion_args(c).is_empty()
    {
        note("", "spec.conversion: kube-derive writes none; `kubesmith create webhook --conversion` adds it".into());
    }
    kube.push("derive = \"PartialEq\"".into());
}

/// The root's properties but apiVersion, kind, metadata and status, as the object `#[kube(no_spec)]` spreads at
/// the root, with the root's `required` among them.
fn root_fields(root: &Map<String, Value>) -> Map<String, Value> {
    let skip = ["apiVersion", "kind", "metadata", "status"];
    let props: Map<String, Value> = root
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(k, _)| !skip.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let required: Vec<Value> = root
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|r| r.as_str().is_some_and(|r| props.contains_key(r)))
        .cloned()
        .collect();
    let mut node = Map::new();
    node.insert("type".into(), Value::String("object".into()));
    node.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        node.insert("required".into(), Value::Array(required));
    }
    node
}

fn spec_node_required(spec: &Map<String, Value>, name: &str) -> bool {
    spec.get("required").and_then(Value::as_array).is_some_and(|r| r.iter().any(|x| x == name))
}

/// A root CEL rule as the `#[kube(validation = ..)]` expression kube-derive takes: the rule alone as a string,
/// else a `kube::core::Rule` built with its methods.
fn root_rule(rule: &Value) -> Option<String> {
    let o = rule.as_object()?;
    let text = emit::rust_str(o.get("rule")?.as_str()?);
    if o.len() == 1 {
        return Some(text);
    }
    let mut expr = format!("kube::core::Rule::new({text})");
    for (key, value) in o {
        let call = match (key.as_str(), value) {
            ("rule", _) => continue,
            ("message", Value::String(m)) => format!(".message({})", emit::rust_str(m)),
            ("messageExpression", Value::String(m)) => {
                format!(".message(kube::core::Message::Expression({}.into()))", emit::rust_str(m))
            }
            ("reason", Value::String(r)) if r.chars().all(|c| c.is_ascii_alphanumeric()) && !r.is_empty() => {
                format!(".reason(kube::core::Reason::{r})")
            }
            ("fieldPath", Value::String(p)) => format!(".field_path({})", emit::rust_str(p)),
            _ => return None,
        };
        expr.push_str(&call);
    }
    Some(expr)
}

/// The text for `#[kube(doc)]`: kube-derive puts it on the root type as one `#[doc]` attribute, of which schemars
/// strips only the first leading space (the lines inside are kept as they are).
fn kube_doc(d: &str) -> String {
    if d.starts_with(' ') { format!(" {d}") } else { d.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn root_rules_are_kube_validation_expressions() {
        assert_eq!(root_rule(&json!({"rule": "self.a"})).unwrap(), "\"self.a\"");
        assert_eq!(
            root_rule(&json!({"rule": "self.a", "message": "m", "reason": "FieldValueRequired", "fieldPath": ".a"}))
                .unwrap(),
            "kube::core::Rule::new(\"self.a\").field_path(\".a\").message(\"m\").reason(kube::core::Reason::FieldValueRequired)"
        );
        assert_eq!(
            root_rule(&json!({"rule": "true", "messageExpression": "'x'"})).unwrap(),
            "kube::core::Rule::new(\"true\").message(kube::core::Message::Expression(\"'x'\".into()))"
        );
        assert_eq!(root_rule(&json!({"rule": "true", "optionalOldSelf": true})), None);
    }

    #[test]
    fn kube_doc_keeps_the_lines_schemars_keeps() {
        assert_eq!(kube_doc("a\n b\nc"), "a\n b\nc");
        assert_eq!(kube_doc(" a"), "  a");
    }
}
