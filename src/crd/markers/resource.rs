//! CRD-level markers of a `#[derive(CustomResource)]` spec struct (reference §10.2): printer columns, names and
//! scope, version flags, subresources, selectable fields and CRD metadata, applied on top of `Kind::crd()`.
//!
//! Whatever the Rust code also knows (`Kind::crd_name()`, `Kind::plural()`, the scope type) must agree with the
//! `#[kube(...)]` attribute: a marker contradicting it is an error that names the attribute to change.

use std::path::PathBuf;

use serde_json::{Map, Value, json};

use crate::crd::error::CrdError;
use crate::markers::Marker;
use crate::source::kube_attrs::KubeAttrs;

/// What the CRD-level markers of one version say about the version itself.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct VersionFlags {
    /// `+kubebuilder:storageversion`: where it was written.
    pub storage: Option<(PathBuf, usize)>,
    /// `+kubebuilder:skipversion`: where it was written.
    pub skip: Option<(PathBuf, usize)>,
    /// `+kubesmith:crd:versionOrder`: the versions in the order `spec.versions` lists them, and where it was written.
    pub order: Option<(Vec<String>, PathBuf, usize)>,
}

fn err(m: &Marker, msg: impl std::fmt::Display) -> CrdError {
    CrdError::marker(&m.file, m.line, format!("`+{}`: {msg}", m.name))
}

fn push_unique(list: &mut Value, v: Value) {
    if !list.is_array() {
        *list = json!([]);
    }
    if let Value::Array(a) = list
        && !a.contains(&v)
    {
        a.push(v);
    }
}

fn key_values(m: &Marker, arg: &str) -> Result<Vec<(String, String)>, CrdError> {
    m.strings(arg)
        .into_iter()
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) => Ok((k.to_string(), v.to_string())),
            None => Err(err(m, format!("{arg} entry `{kv}` is not in 'xxx=xxx' format"))),
        })
        .collect()
}

/// The `+kubesmith:crd` arguments that describe a conversion webhook.
const CONVERSION_ARGS: [&str; 5] =
    ["conversionService", "conversionPath", "conversionPort", "conversionURL", "conversionReviewVersions"];

/// `spec.conversion` of `+kubesmith:crd:conversion=Webhook,..`: a Service (`namespace/name`, path, port) or a URL,
/// and the review versions.
fn conversion_webhook(m: &Marker) -> Result<Value, CrdError> {
    let mut client = Map::new();
    match (m.string("conversionService"), m.string("conversionURL")) {
        (Some(service), None) => {
            let Some((namespace, name)) = service.split_once('/').filter(|(ns, n)| !ns.is_empty() && !n.is_empty())
            else {
                return Err(err(m, format!("conversionService `{service}` is not `<namespace>/<name>`")));
            };
            let mut svc = Map::new();
            svc.insert("name".into(), json!(name));
            svc.insert("namespace".into(), json!(namespace));
            if let Some(path) = m.string("conversionPath") {
                svc.insert("path".into(), json!(path));
            }
            if let Some(port) = m.arg("conversionPort") {
                svc.insert("port".into(), port.to_json());
            }
            client.insert("service".into(), Value::Object(svc));
        }
        (None, Some(url)) => {
            if m.arg("conversionPath").is_some() || m.arg("conversionPort").is_some() {
                return Err(err(m, "conversionPath and conversionPort go with conversionService; put them in the URL"));
            }
            client.insert("url".into(), json!(url));
        }
        (Some(_), Some(_)) => return Err(err(m, "give conversionService or conversionURL, not both")),
        (None, None) => {
            return Err(err(m, "conversion=Webhook needs conversionService=<namespace>/<name> or conversionURL"));
        }
    }
    let mut webhook = Map::new();
    webhook.insert("clientConfig".into(), Value::Object(client));
    let reviews = m.strings("conversionReviewVersions");
    if reviews.is_empty() {
        return Err(err(m, "conversion=Webhook needs conversionReviewVersions (`v1`, or `v1;v1beta1`)"));
    }
    webhook.insert("conversionReviewVersions".into(), json!(reviews));
    Ok(json!({ "strategy": "Webhook", "webhook": webhook }))
}

/// Applies the CRD-level markers of one version's spec struct to its single-version CRD.
pub fn apply_crd_markers(markers: &[Marker], k: &KubeAttrs, crd: &mut Value) -> Result<VersionFlags, CrdError> {
    let mut flags = VersionFlags::default();
    let group = k.group.clone();
    for m in markers {
        match m.name.as_str() {
            "kubebuilder:storageversion" => flags.storage = Some((m.file.clone(), m.line)),
            "kubebuilder:skipversion" => flags.skip = Some((m.file.clone(), m.line)),
            "kubebuilder:unservedversion" => {
                crd["spec"]["versions"][0]["served"] = json!(false);
            }
            "kubebuilder:deprecatedversion" => {
                let warning = m.string("warning").map(str::to_string);
                if let (Some(Some(kw)), Some(w)) = (&k.deprecated, &warning)
                    && kw != w
                {
                    return Err(err(
                        m,
                        format!("warning {w:?} contradicts #[kube(deprecated = {kw:?})]; keep one of them"),
                    ));
                }
                let v = &mut crd["spec"]["versions"][0];
                v["deprecated"] = json!(true);
                if let Some(w) = warning {
                    v["deprecationWarning"] = json!(w);
                }
            }
            // without a status type: the subresource alone, and no `status` property in the schema (what a CRD
            // whose status is written only through the subresource, unvalidated or pruned, spells)
            "kubebuilder:subresource:status" if k.status.is_none() => {
                let v = &mut crd["spec"]["versions"][0];
                if !v["subresources"].is_object() {
                    v["subresources"] = json!({});
                }
                v["subresources"]["status"] = json!({});
            }
            "kubebuilder:subresource:scale" => {
                let mut scale = Map::new();
                scale.insert("specReplicasPath".into(), json!(m.string("specpath").unwrap_or_default()));
                scale.insert("statusReplicasPath".into(), json!(m.string("statuspath").unwrap_or_default()));
                if let Some(sel) = m.string("selectorpath") {
                    scale.insert("labelSelectorPath".into(), json!(sel));
                }
                let scale = Value::Object(scale);
                if let Some(existing) = &k.scale
                    && *existing != scale
                {
                    return Err(err(m, "contradicts #[kube(scale(...))]; keep one of them"));
                }
                let v = &mut crd["spec"]["versions"][0];
                if !v["subresources"].is_object() {
                    v["subresources"] = json!({});
                }
                v["subresources"]["scale"] = scale;
            }
            "kubebuilder:printcolumn" => {
                let t = m.string("type").unwrap_or_default();
                const TYPES: &[&str] = &["integer", "number", "string", "boolean", "date"];
                if !TYPES.contains(&t) {
                    return Err(err(m, format!("column type `{t}` is not one of {}", TYPES.join(", "))));
                }
                let mut col = Map::new();
                if let Some(d) = m.string("description") {
                    col.insert("description".into(), json!(d));
                }
                if let Some(f) = m.string("format") {
                    col.insert("format".into(), json!(f));
                }
                col.insert("jsonPath".into(), json!(m.string("JSONPath")));
                col.insert("name".into(), json!(m.string("name")));
                if let Some(p) = m.arg("priority") {
                    col.insert("priority".into(), p.to_json());
                }
                col.insert("type".into(), json!(t));
                let v = &mut crd["spec"]["versions"][0];
                if !v["additionalPrinterColumns"].is_array() {
                    v["additionalPrinterColumns"] = json!([]);
                }
                if let Value::Array(a) = &mut v["additionalPrinterColumns"] {
                    a.push(Value::Object(col));
                }
            }
            "kubebuilder:resource" => {
                let names = &crd["spec"]["names"];
                let plural = names["plural"].as_str().unwrap_or_default().to_string();
                let singular = names["singular"].as_str().unwrap_or_default().to_string();
                if let Some(p) = m.string("path")
                    && p != plural
                {
                    return Err(err(
                        m,
                        format!(
                            "path={p} contradicts the plural `{plural}` kube-derive uses (Kind::crd_name() is \
                                 `{plural}.{group}`); add `plural = \"{p}\"` to #[kube(...)] or drop `path`"
                        ),
                    ));
                }
                if let Some(s) = m.string("singular")
                    && s != singular
                {
                    return Err(err(
                        m,
                        format!(
                            "singular={s} contradicts the singular `{singular}` of #[kube(...)]; add \
                                 `singular = \"{s}\"` to #[kube(...)] or drop `singular`"
                        ),
                    ));
                }
                if let Some(scope) = m.string("scope") {
                    let want_ns = scope != "Cluster";
                    if want_ns != k.namespaced {
                        let fix = if want_ns {
                            "add `namespaced` to #[kube(...)]"
                        } else {
                            "remove `namespaced` from #[kube(...)]"
                        };
                        return Err(err(
                            m,
                            format!(
                                "scope={} contradicts #[kube(...)], which makes the kind {} (the Rust type's \
                                 Resource::Scope); {fix} or drop `scope`",
                                if scope.is_empty() { "Namespaced" } else { scope },
                                if k.namespaced { "namespaced" } else { "cluster-scoped" }
                            ),
                        ));
                    }
                }
                for (arg, key) in [("shortName", "shortNames"), ("categories", "categories")] {
                    for v in m.strings(arg) {
                        push_unique(&mut crd["spec"]["names"][key], json!(v));
                    }
                }
            }
            "kubebuilder:metadata" => {
                for (arg, key, existing) in
                    [("annotations", "annotations", &k.annotations), ("labels", "labels", &k.labels)]
                {
                    for (name, value) in key_values(m, arg)? {
                        if let Some((_, kv)) = existing.iter().find(|(n, _)| *n == name)
                            && *kv != value
                        {
                            return Err(err(
                                m,
                                format!("{arg} {name}={value} contradicts #[kube(...)] ({name}={kv}); keep one"),
                            ));
                        }
                        let meta = &mut crd["metadata"];
                        if !meta[key].is_object() {
                            meta[key] = json!({});
                        }
                        meta[key][name] = json!(value);
                    }
                }
            }
            "kubesmith:crd" => {
                let order = m.strings("versionOrder");
                if !order.is_empty() {
                    flags.order = Some((order, m.file.clone(), m.line));
                }
                if let Some(list_kind) = m.string("listKind") {
                    if list_kind.is_empty() || !list_kind.starts_with(|c: char| c.is_ascii_uppercase()) {
                        return Err(err(m, format!("listKind `{list_kind}` is not a kind name (`FooList`)")));
                    }
                    crd["spec"]["names"]["listKind"] = json!(list_kind);
                }
                match m.arg("preserveUnknownFields") {
                    Some(crate::markers::MarkerValue::Bool(false)) => {
                        crd["spec"]["preserveUnknownFields"] = json!(false);
                    }
                    Some(_) => {
                        return Err(err(
                            m,
                            "preserveUnknownFields can only be false: apiextensions.k8s.io/v1 refuses true (use \
                             `x-kubernetes-preserve-unknown-fields` on the schema instead)",
                        ));
                    }
                    None => {}
                }
                match m.string("conversion") {
                    Some("Webhook") => crd["spec"]["conversion"] = conversion_webhook(m)?,
                    Some(_) => crd["spec"]["conversion"] = json!({ "strategy": "None" }),
                    None => {
                        if let Some(arg) = CONVERSION_ARGS.iter().find(|a| m.arg(a).is_some()) {
                            return Err(err(m, format!("`{arg}` needs `conversion=Webhook`; add it or drop `{arg}`")));
                        }
                    }
                }
                let version = &mut crd["spec"]["versions"][0];
                match m.arg("statusSubresource") {
                    Some(crate::markers::MarkerValue::Bool(false)) => {
                        if let Some(sub) = version.get_mut("subresources").and_then(Value::as_object_mut) {
                            sub.remove("status");
                            if sub.is_empty() {
                                version.as_object_mut().map(|v| v.remove("subresources"));
                            }
                        }
                    }
                    Some(_) => {
                        return Err(err(m, "statusSubresource can only be false (`status = ..` in #[kube] adds it)"));
                    }
                    None => {}
                }
                if let Some(crate::markers::MarkerValue::Bool(true)) = m.arg("emptySubresources")
                    && version.get("subresources").is_none()
                    && let Some(v) = version.as_object_mut()
                {
                    v.insert("subresources".into(), json!({}));
                }
            }
            "kubebuilder:selectablefield" => {
                let path = m.string("JSONPath").unwrap_or_default();
                push_unique(&mut crd["spec"]["versions"][0]["selectableFields"], json!({ "jsonPath": path }));
            }
            _ => {}
        }
    }
    Ok(flags)
}
