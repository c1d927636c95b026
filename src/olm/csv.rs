//! Building a bundle's ClusterServiceVersion from the rendered manifests (`kubectl kustomize config/manifests`)
//! and the user's base CSV, the way `operator-sdk generate bundle` does (see `docs/olm.md` in the reference),
//! but keeping everything the user wrote in the base: only `spec.install`, the owned CRDs' generated fields,
//! `spec.webhookdefinitions`, the generated `relatedImages` and a few annotations are computed.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Result, bail};
use serde_json::{Map, Value, json};

/// Kinds a registry+v1 bundle may carry besides the CSV and CRDs (operator-registry `supported_resources.go`).
pub const SUPPORTED_KINDS: &[&str] = &[
    "ClusterServiceVersion",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleBinding",
    "Service",
    "ServiceAccount",
    "Role",
    "RoleBinding",
    "PrometheusRule",
    "ServiceMonitor",
    "Secret",
    "ConfigMap",
    "PodDisruptionBudget",
    "PriorityClass",
    "VerticalPodAutoscaler",
    "ConsoleYAMLSample",
    "ConsoleQuickStart",
    "ConsoleCLIDownload",
    "ConsoleLink",
    "ConsolePlugin",
    "NetworkPolicy",
    "PodMonitor",
];

/// What `make bundle` asked for.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub package: String,
    /// `--version`: sets `metadata.name` and `spec.version`.
    pub version: Option<String>,
    /// `--image`: replaces the `controller` placeholder image.
    pub image: Option<String>,
    pub replaces: Option<String>,
    pub skips: Vec<String>,
    pub skip_range: Option<String>,
    /// RFC 3339 UTC.
    pub created_at: String,
    /// `operators.operatorframework.io/project_layout`.
    pub layout: String,
    /// `operators.operatorframework.io/builder`.
    pub builder: String,
    /// Owned-CRD descriptions generated from the sources' CSV markers and doc comments.
    pub descriptions: Vec<crate::olm::descriptors::CsvDescription>,
}

/// The CSV and the other files of `bundle/manifests`.
#[derive(Debug, Clone, Default)]
pub struct Generated {
    pub csv: Value,
    /// `(file name, object)` in input order, CRDs first.
    pub manifests: Vec<(String, Value)>,
    /// The scorecard `Configuration`, when the input had one.
    pub scorecard: Option<Value>,
    pub notes: Vec<String>,
}

fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map(|(g, _)| g).unwrap_or("")
}

fn version_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map(|(_, v)| v).unwrap_or(api_version)
}

fn s<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

/// operator-sdk's bundle file name of an object: `<group>_<plural>.yaml` for CRDs,
/// `<name>_<version>_<kind>.yaml` for the core group, `<name>_<group>_<version>_<kind>.yaml` otherwise.
pub fn manifest_file_name(obj: &Value) -> String {
    let kind = s(obj, "/kind");
    let api = s(obj, "/apiVersion");
    if kind == "CustomResourceDefinition" {
        let (g, p) = (s(obj, "/spec/group"), s(obj, "/spec/names/plural"));
        if !g.is_empty() && !p.is_empty() {
            return format!("{g}_{p}.yaml");
        }
    }
    let name = s(obj, "/metadata/name");
    let group = group_of(api);
    let lower = kind.to_ascii_lowercase();
    if group.is_empty() {
        format!("{name}_{}_{lower}.yaml", version_of(api))
    } else {
        format!("{name}_{group}_{}_{lower}.yaml", version_of(api))
    }
}

#[derive(Default)]
struct Collected {
    crds: Vec<Value>,
    roles: Vec<Value>,
    cluster_roles: Vec<Value>,
    role_bindings: Vec<Value>,
    cluster_role_bindings: Vec<Value>,
    service_accounts: Vec<Value>,
    services: Vec<Value>,
    deployments: Vec<Value>,
    webhooks: Vec<(String, Value)>,
    scorecard: Option<Value>,
    others: Vec<Value>,
}

fn collect(docs: Vec<Value>) -> Result<Collected> {
    let mut c = Collected::default();
    let mut seen = BTreeSet::new();
    for d in docs {
        let api = s(&d, "/apiVersion").to_string();
        let kind = s(&d, "/kind").to_string();
        if api.is_empty() || kind.is_empty() {
            continue;
        }
        // Drop exact duplicates, as operator-sdk's collector does.
        if !seen.insert(serde_json::to_string(&d).unwrap_or_default()) {
            continue;
        }
        let group = group_of(&api);
        match (group, kind.as_str()) {
            (_, "ClusterServiceVersion") => {}
            ("rbac.authorization.k8s.io", "Role") => c.roles.push(d),
            ("rbac.authorization.k8s.io", "ClusterRole") => c.cluster_roles.push(d),
            ("rbac.authorization.k8s.io", "RoleBinding") => c.role_bindings.push(d),
            ("rbac.authorization.k8s.io", "ClusterRoleBinding") => c.cluster_role_bindings.push(d),
            ("", "ServiceAccount") => c.service_accounts.push(d),
            ("", "Service") => c.services.push(d),
            ("apps", "Deployment") => c.deployments.push(d),
            ("apiextensions.k8s.io", "CustomResourceDefinition") => {
                if !matches!(version_of(&api), "v1" | "v1beta1") {
                    bail!("unrecognized CustomResourceDefinition version {api} ({})", s(&d, "/metadata/name"));
                }
                c.crds.push(d);
            }
            ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration") => {
                for w in d["webhooks"].as_array().cloned().unwrap_or_default() {
                    c.webhooks.push((kind.clone(), w));
                }
            }
            ("scorecard.operatorframework.io", "Configuration") => {
                if c.scorecard.is_some() {
                    bail!("duplicate scorecard configurations in the rendered manifests");
                }
                c.scorecard = Some(d);
            }
            _ => c.others.push(d),
        }
    }
    Ok(c)
}

/// `(group, version, kind)` of every served version of the CRDs.
fn served_gvks(crds: &[Value]) -> Vec<(String, String, String, String)> {
    let mut out = Vec::new();
    for crd in crds {
        let name = s(crd, "/metadata/name").to_string();
        let group = s(crd, "/spec/group").to_string();
        let kind = s(crd, "/spec/names/kind").to_string();
        for v in crd["spec"]["versions"].as_array().into_iter().flatten() {
            if v["served"] != Value::Bool(false) {
                out.push((name.clone(), group.clone(), s(v, "/name").to_string(), kind.clone()));
            }
        }
    }
    out
}

fn clear_namespace(obj: &mut Value) {
    if let Some(m) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
        m.remove("namespace");
        m.remove("creationTimestamp");
    }
}

fn replace_image(image: &str, new: &str) -> Option<String> {
    let repo = image.split('@').next().unwrap_or(image);
    let repo = match repo.rsplit_once(':') {
        Some((r, tag)) if !tag.contains('/') => r,
        _ => repo,
    };
    (repo == "controller").then(|| new.to_string())
}

fn containers_mut(pod_spec: &mut Value) -> impl Iterator<Item = &mut Value> {
    let mut all = Vec::new();
    if let Some(o) = pod_spec.as_object_mut() {
        for (k, v) in o.iter_mut() {
            if k == "containers" || k == "initContainers" {
                all.extend(v.as_array_mut().into_iter().flatten());
            }
        }
    }
    all.into_iter()
}

/// Builds the CSV and the other bundle manifests.
pub fn build(base: &Value, docs: Vec<Value>, opts: &Options) -> Result<Generated> {
    let mut c = collect(docs)?;
    let mut out = Generated::default();
    let mut csv = base.clone();
    let Some(obj) = csv.as_object_mut() else {
        bail!("the base ClusterServiceVersion is not a YAML mapping");
    };
    obj.remove("status");
    clear_creation_timestamps(&mut csv);

    // Image and WATCH_NAMESPACE in the deployments.
    for d in &mut c.deployments {
        let pod = &mut d["spec"]["template"]["spec"];
        for container in containers_mut(pod) {
            // The placeholder of a scaffold, or the manager container of an adopted operator (its image is set).
            let is_manager = container["name"] == "manager";
            if let (Some(new), Some(old)) = (&opts.image, container["image"].as_str())
                && let Some(img) = replace_image(old, new).or_else(|| is_manager.then(|| new.to_string()))
            {
                container["image"] = json!(img);
            }
            for env in container.get_mut("env").and_then(Value::as_array_mut).into_iter().flatten() {
                if env["name"] == "WATCH_NAMESPACE" {
                    *env = json!({"name": "WATCH_NAMESPACE", "valueFrom": {"fieldRef": {
                        "fieldPath": "metadata.annotations['olm.targetNamespaces']"}}});
                }
            }
        }
    }

    // Service accounts of the CSV and the permission split.
    let csv_sas: BTreeSet<String> = c
        .deployments
        .iter()
        .map(|d| {
            let sa = s(d, "/spec/template/spec/serviceAccountName");
            if sa.is_empty() { "default".to_string() } else { sa.to_string() }
        })
        .collect();
    let mut permissions: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let mut cluster_permissions: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let mut used_roles: BTreeSet<(String, String)> = BTreeSet::new();
    let mut out_bindings = Vec::new();
    let mut referenced_by_out: BTreeSet<(String, String)> = BTreeSet::new();
    for (binding_kind, bindings) in
        [("RoleBinding", &c.role_bindings), ("ClusterRoleBinding", &c.cluster_role_bindings)]
    {
        for b in bindings {
            let ref_kind = s(b, "/roleRef/kind").to_string();
            let ref_name = s(b, "/roleRef/name").to_string();
            let api_group = s(b, "/roleRef/apiGroup");
            let pool = if ref_kind == "Role" { &c.roles } else { &c.cluster_roles };
            let valid_ref = (api_group.is_empty() || api_group == "rbac.authorization.k8s.io")
                && (ref_kind == "ClusterRole" || (ref_kind == "Role" && binding_kind == "RoleBinding"));
            let role = if valid_ref { pool.iter().find(|r| s(r, "/metadata/name") == ref_name) } else { None };
            let mut rest = Vec::new();
            for subject in b["subjects"].as_array().into_iter().flatten() {
                let is_csv_sa = subject["kind"] == "ServiceAccount"
                    && subject["name"].as_str().is_some_and(|n| csv_sas.contains(n));
                match role {
                    Some(role) if is_csv_sa => {
                        let sa = subject["name"].as_str().unwrap_or_default().to_string();
                        let rules = role["rules"].as_array().cloned().unwrap_or_default();
                        let target =
                            if binding_kind == "RoleBinding" { &mut permissions } else { &mut cluster_permissions };
                        add_rules(target.entry(sa).or_default(), rules);
                        used_roles.insert((ref_kind.clone(), ref_name.clone()));
                    }
                    _ => rest.push(subject.clone()),
                }
            }
            if !rest.is_empty() {
                let mut b = b.clone();
                b["subjects"] = Value::Array(rest);
                referenced_by_out.insert((ref_kind.clone(), ref_name.clone()));
                out_bindings.push(b);
            }
        }
    }
    let to_entries = |m: BTreeMap<String, Vec<Value>>| -> Vec<Value> {
        m.into_iter()
            .filter(|(_, rules)| !rules.is_empty())
            .map(|(sa, rules)| json!({"rules": rules, "serviceAccountName": sa}))
            .collect()
    };

    // spec.install
    let deployments: Vec<Value> = c
        .deployments
        .iter()
        .map(|d| {
            let mut e = Map::new();
            if let Some(l) = d["metadata"].get("labels") {
                e.insert("label".into(), l.clone());
            }
            e.insert("name".into(), d["metadata"]["name"].clone());
            e.insert("spec".into(), d["spec"].clone());
            Value::Object(e)
        })
        .collect();
    let mut install_spec = Map::new();
    let cp = to_entries(cluster_permissions);
    if !cp.is_empty() {
        install_spec.insert("clusterPermissions".into(), Value::Array(cp));
    }
    install_spec.insert("deployments".into(), Value::Array(deployments));
    let p = to_entries(permissions);
    if !p.is_empty() {
        install_spec.insert("permissions".into(), Value::Array(p));
    }
    csv["spec"]["install"] = json!({"spec": install_spec, "strategy": "deployment"});

    // Name, version, upgrade fields.
    if let Some(v) = &opts.version {
        csv["metadata"]["name"] = json!(format!("{}.v{v}", opts.package));
        csv["spec"]["version"] = json!(v);
    }
    if let Some(r) = &opts.replaces {
        csv["spec"]["replaces"] = json!(r);
    }
    if !opts.skips.is_empty() {
        csv["spec"]["skips"] = json!(opts.skips);
    }

    // Annotations.
    let served = served_gvks(&c.crds);
    let crs: Vec<Value> = c
        .others
        .iter()
        .filter(|o| {
            let api = s(o, "/apiVersion");
            served.iter().any(|(_, g, v, k)| g == group_of(api) && v == version_of(api) && k == s(o, "/kind"))
        })
        .map(|o| {
            let mut o = o.clone();
            clear_namespace(&mut o);
            o
        })
        .collect();
    let examples = serde_json::to_string_pretty(&crs)?;
    let ann = csv["metadata"]
        .as_object_mut()
        .map(|m| m.entry("annotations").or_insert_with(|| json!({})))
        .filter(|a| a.is_object());
    let Some(Value::Object(ann)) = ann else {
        bail!("metadata.annotations of the base ClusterServiceVersion is not a mapping");
    };
    ann.insert("alm-examples".into(), json!(examples));
    ann.insert("createdAt".into(), json!(opts.created_at));
    ann.insert("operators.operatorframework.io/builder".into(), json!(opts.builder));
    ann.insert("operators.operatorframework.io/project_layout".into(), json!(opts.layout));
    if let Some(r) = &opts.skip_range {
        ann.insert("olm.skipRange".into(), json!(r));
    }

    // Owned CRDs: generated fields under the base's.
    let base_owned: Vec<Value> =
        base.pointer("/spec/customresourcedefinitions/owned").and_then(Value::as_array).cloned().unwrap_or_default();
    let key = |e: &Value| (s(e, "/name").to_string(), s(e, "/version").to_string(), s(e, "/kind").to_string());
    let mut owned = Vec::new();
    for crd in &c.crds {
        for v in crd["spec"]["versions"].as_array().into_iter().flatten() {
            if v["served"] == Value::Bool(false) {
                continue;
            }
            let k = (
                s(crd, "/metadata/name").to_string(),
                s(v, "/name").to_string(),
                s(crd, "/spec/names/kind").to_string(),
            );
            let group = s(crd, "/spec/group");
            let mut entry = opts
                .descriptions
                .iter()
                .find(|d| d.group == group && d.version == k.1 && d.kind == k.2)
                .map(|d| Value::Object(d.fields.clone()))
                .unwrap_or_else(|| json!({}));
            entry["kind"] = json!(k.2);
            entry["name"] = json!(k.0);
            entry["version"] = json!(k.1);
            if entry.get("displayName").is_none() {
                entry["displayName"] = json!(crate::names::display_name(&k.2));
            }
            let desc = s(v, "/schema/openAPIV3Schema/description");
            if entry.get("description").is_none() && !desc.is_empty() {
                entry["description"] = json!(desc);
            }
            if let Some(Value::Object(b)) = base_owned.iter().find(|b| key(b) == k) {
                for (f, val) in b {
                    entry[f] = val.clone();
                }
            }
            owned.push(entry);
        }
    }
    let crd_defs =
        csv["spec"].as_object_mut().map(|m| m.entry("customresourcedefinitions").or_insert_with(|| json!({})));
    if let Some(Value::Object(defs)) = crd_defs {
        if owned.is_empty() {
            defs.remove("owned");
        } else {
            defs.insert("owned".into(), Value::Array(owned));
        }
    }

    // Webhooks.
    let webhooks = webhook_definitions(&c);
    if let Some(spec) = csv["spec"].as_object_mut() {
        if webhooks.is_empty() {
            spec.remove("webhookdefinitions");
        } else {
            spec.insert("webhookdefinitions".into(), Value::Array(webhooks));
        }
    }

    // Related images: RELATED_IMAGE_* env vars, plus what the user listed in the base.
    let mut related: Vec<Value> = base["spec"]["relatedImages"].as_array().cloned().unwrap_or_default();
    for (name, image) in related_images(&c.deployments)? {
        let e = json!({"image": image, "name": name});
        if !related.contains(&e) {
            related.push(e);
        }
    }
    if let Some(spec) = csv["spec"].as_object_mut() {
        if related.is_empty() {
            spec.remove("relatedImages");
        } else {
            spec.insert("relatedImages".into(), Value::Array(related));
        }
    }

    // The other manifests.
    let mut manifests: Vec<Value> = Vec::new();
    manifests.extend(c.crds.iter().cloned());
    manifests.extend(c.services.iter().cloned());
    let served_crs: BTreeSet<String> = crs.iter().map(|o| serde_json::to_string(o).unwrap_or_default()).collect();
    let mut dropped = BTreeSet::new();
    for o in &c.others {
        let kind = s(o, "/kind");
        let mut cleared = o.clone();
        clear_namespace(&mut cleared);
        if served_crs.contains(&serde_json::to_string(&cleared).unwrap_or_default()) {
            continue;
        }
        if SUPPORTED_KINDS.contains(&kind) {
            manifests.push(o.clone());
        } else if kind != "Namespace" && group_of(s(o, "/apiVersion")) != "cert-manager.io" {
            dropped.insert(format!("{kind} {}", s(o, "/metadata/name")));
        }
    }
    for (kind, pool) in [("Role", &c.roles), ("ClusterRole", &c.cluster_roles)] {
        for r in pool {
            let k = (kind.to_string(), s(r, "/metadata/name").to_string());
            if !used_roles.contains(&k) || referenced_by_out.contains(&k) {
                manifests.push(r.clone());
            }
        }
    }
    manifests.extend(out_bindings);
    for sa in &c.service_accounts {
        if !csv_sas.contains(s(sa, "/metadata/name")) {
            manifests.push(sa.clone());
        }
    }
    let mut names = BTreeSet::new();
    for mut m in manifests {
        clear_namespace(&mut m);
        let mut name = manifest_file_name(&m);
        let mut n = 0;
        while names.contains(&name) {
            n += 1;
            name = format!("dup{n}_{}", manifest_file_name(&m));
        }
        names.insert(name.clone());
        out.manifests.push((name, m));
    }
    if !dropped.is_empty() {
        out.notes.push(format!(
            "note: not in the bundle (kinds a registry+v1 bundle cannot carry): {}",
            dropped.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    out.scorecard = c.scorecard.map(|mut sc| {
        clear_namespace(&mut sc);
        sc
    });
    out.csv = csv;
    Ok(out)
}

fn clear_creation_timestamps(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove("creationTimestamp");
            m.values_mut().for_each(clear_creation_timestamps);
        }
        Value::Array(a) => a.iter_mut().for_each(clear_creation_timestamps),
        _ => {}
    }
}

/// `(name, image)` of every `RELATED_IMAGE_*` env var of the deployments' containers.
fn related_images(deployments: &[Value]) -> Result<Vec<(String, String)>> {
    let mut out: Vec<(String, String)> = Vec::new();
    for d in deployments {
        let dname = s(d, "/metadata/name");
        let pod = &d["spec"]["template"]["spec"];
        let containers: Vec<&Value> =
            ["initContainers", "containers"].iter().flat_map(|k| pod[*k].as_array().into_iter().flatten()).collect();
        for c in &containers {
            for env in c["env"].as_array().into_iter().flatten() {
                let Some(var) = env["name"].as_str().and_then(|n| n.strip_prefix("RELATED_IMAGE_")) else {
                    continue;
                };
                if env.get("valueFrom").is_some() {
                    bail!("related images with valueFrom field unsupported, found in {}", s(env, "/name"));
                }
                let mut name = var.to_ascii_lowercase().replace('_', "-");
                let image = s(env, "/value").to_string();
                if out.iter().any(|(n, i)| *n == name && *i == image) {
                    continue;
                }
                if out.iter().any(|(n, _)| *n == name) {
                    name = if containers.len() == 1 {
                        format!("{dname}-{name}")
                    } else {
                        format!("{dname}-{}-{name}", s(c, "/name"))
                    };
                }
                out.push((name, image));
            }
        }
    }
    Ok(out)
}

/// The deployment a Service selects (its pod template labels hold every selector pair), else the Service's
/// name without `-service`.
fn deployment_for(c: &Collected, service_name: &str) -> String {
    let svc = c.services.iter().find(|svc| s(svc, "/metadata/name") == service_name);
    if let Some(sel) = svc.and_then(|svc| svc["spec"]["selector"].as_object()).filter(|m| !m.is_empty()) {
        for d in &c.deployments {
            let labels = &d["spec"]["template"]["metadata"]["labels"];
            if sel.iter().all(|(k, v)| &labels[k] == v) {
                return s(d, "/metadata/name").to_string();
            }
        }
    }
    service_name.strip_suffix("-service").unwrap_or(service_name).to_string()
}

/// `(containerPort, targetPort)` of the Service port that a client config's port names.
fn ports_for(c: &Collected, service_name: &str, port: i64) -> (i64, Option<Value>) {
    let svc = c.services.iter().find(|svc| s(svc, "/metadata/name") == service_name);
    let p = svc
        .and_then(|svc| svc["spec"]["ports"].as_array())
        .and_then(|ps| ps.iter().find(|p| p["port"].as_i64() == Some(port)));
    (port, p.and_then(|p| p.get("targetPort").cloned()))
}

fn webhook_definitions(c: &Collected) -> Vec<Value> {
    let mut out = Vec::new();
    for (kind, w) in &c.webhooks {
        let mut d = Map::new();
        let mutating = kind == "MutatingWebhookConfiguration";
        d.insert(
            "type".into(),
            json!(if mutating { "MutatingAdmissionWebhook" } else { "ValidatingAdmissionWebhook" }),
        );
        d.insert("generateName".into(), w["name"].clone());
        let arv = w["admissionReviewVersions"].as_array().filter(|a| !a.is_empty()).cloned();
        d.insert("admissionReviewVersions".into(), arv.map(Value::Array).unwrap_or_else(|| json!(["v1beta1"])));
        d.insert("sideEffects".into(), w.get("sideEffects").cloned().unwrap_or_else(|| json!("None")));
        for f in ["rules", "failurePolicy", "matchPolicy", "objectSelector", "timeoutSeconds"] {
            if let Some(v) = w.get(f) {
                d.insert(f.into(), v.clone());
            }
        }
        if mutating && let Some(v) = w.get("reinvocationPolicy") {
            d.insert("reinvocationPolicy".into(), v.clone());
        }
        let svc = &w["clientConfig"]["service"];
        if let Some(path) = svc.get("path") {
            d.insert("webhookPath".into(), path.clone());
        }
        let svc_name = s(svc, "/name");
        if !svc_name.is_empty() {
            let (port, target) = ports_for(c, svc_name, svc["port"].as_i64().unwrap_or(443));
            d.insert("containerPort".into(), json!(port));
            if let Some(t) = target {
                d.insert("targetPort".into(), t);
            }
            d.insert("deploymentName".into(), json!(deployment_for(c, svc_name)));
        }
        out.push(Value::Object(d));
    }
    // Conversion webhooks: one per (service, port, path), naming every CRD it converts.
    let mut groups: BTreeMap<(String, i64, String), (Vec<String>, Value)> = BTreeMap::new();
    for crd in c.crds.iter().filter(|crd| crd["apiVersion"] == "apiextensions.k8s.io/v1") {
        let conv = &crd["spec"]["conversion"];
        if conv["strategy"] != "Webhook" {
            continue;
        }
        let svc = &conv["webhook"]["clientConfig"]["service"];
        let Some(name) = svc["name"].as_str() else {
            continue;
        };
        let key = (name.to_string(), svc["port"].as_i64().unwrap_or(443), s(svc, "/path").to_string());
        let e = groups.entry(key).or_insert_with(|| (Vec::new(), conv["webhook"]["conversionReviewVersions"].clone()));
        e.0.push(s(crd, "/metadata/name").to_string());
    }
    for ((svc_name, port, path), (mut crds, review)) in groups {
        crds.sort();
        let labels: Vec<&str> = crds.iter().map(|n| n.split('.').next().unwrap_or(n)).collect();
        let (port, target) = ports_for(c, &svc_name, port);
        let mut d = Map::new();
        d.insert("admissionReviewVersions".into(), if review.is_array() { review } else { json!(["v1beta1"]) });
        d.insert("containerPort".into(), json!(port));
        d.insert("conversionCRDs".into(), json!(crds));
        d.insert("deploymentName".into(), json!(deployment_for(c, &svc_name)));
        d.insert("generateName".into(), json!(format!("c{}.kb.io", labels.join("-"))));
        d.insert("sideEffects".into(), json!("None"));
        if let Some(t) = target {
            d.insert("targetPort".into(), t);
        }
        d.insert("type".into(), json!("ConversionWebhook"));
        if !path.is_empty() {
            d.insert("webhookPath".into(), json!(path));
        }
        out.push(Value::Object(d));
    }
    out.sort_by(|a, b| s(a, "/generateName").cmp(s(b, "/generateName")));
    out
}

/// Adds `rules` to a service account's list, leaving out what the list already grants: a rule equal to one there
/// is dropped, and a plain rule (no `resourceNames`, no `nonResourceURLs`) that overlaps is cut to what is new, one
/// rule per group and resource, so no (group, resource, verb) is listed twice for one service account (the
/// manager role and a role of the project's own may both grant it).
fn add_rules(list: &mut Vec<Value>, rules: Vec<Value>) {
    fn strings(v: &Value) -> Vec<&str> {
        v.as_array().into_iter().flatten().filter_map(Value::as_str).collect()
    }
    fn plain(rule: &Value) -> bool {
        rule.get("resourceNames").is_none() && rule.get("nonResourceURLs").is_none()
    }
    fn groups(rule: &Value) -> Vec<&str> {
        let g = strings(&rule["apiGroups"]);
        if g.is_empty() { vec![""] } else { g }
    }
    for rule in rules {
        if list.contains(&rule) {
            continue;
        }
        if !plain(&rule) {
            list.push(rule);
            continue;
        }
        let granted = |g: &str, r: &str, v: &str| {
            list.iter().filter(|e| plain(e)).any(|e| {
                groups(e).iter().any(|x| *x == "*" || *x == g)
                    && strings(&e["resources"]).iter().any(|x| *x == "*" || *x == r)
                    && strings(&e["verbs"]).iter().any(|x| *x == "*" || *x == v)
            })
        };
        let (gs, rs, vs) = (groups(&rule), strings(&rule["resources"]), strings(&rule["verbs"]));
        let overlaps = gs.iter().any(|g| rs.iter().any(|r| vs.iter().any(|v| granted(g, r, v))));
        if !overlaps {
            list.push(rule);
            continue;
        }
        let mut cut = Vec::new();
        for g in &gs {
            for r in &rs {
                let verbs: Vec<&str> = vs.iter().copied().filter(|v| !granted(g, r, v)).collect();
                if !verbs.is_empty() {
                    cut.push(json!({"apiGroups": [g], "resources": [r], "verbs": verbs}));
                }
            }
        }
        list.extend(cut);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_granted_twice_to_one_service_account_are_listed_once() {
        let mut list = Vec::new();
        let manager = vec![
            json!({"apiGroups": ["authentication.k8s.io"], "resources": ["tokenreviews"], "verbs": ["create"]}),
            json!({"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list"]}),
        ];
        add_rules(&mut list, manager.clone());
        // An equal rule is dropped; an overlapping one keeps only what is new; a disjoint one is kept whole.
        add_rules(
            &mut list,
            vec![
                manager[0].clone(),
                json!({"apiGroups": [""], "resources": ["secrets", "configmaps"], "verbs": ["get", "watch"]}),
                json!({"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get"]}),
                json!({"nonResourceURLs": ["/metrics"], "verbs": ["get"]}),
            ],
        );
        assert_eq!(
            list,
            vec![
                manager[0].clone(),
                manager[1].clone(),
                json!({"apiGroups": [""], "resources": ["secrets"], "verbs": ["watch"]}),
                json!({"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "watch"]}),
                json!({"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get"]}),
                json!({"nonResourceURLs": ["/metrics"], "verbs": ["get"]}),
            ]
        );
    }

    #[test]
    fn file_names() {
        let svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "m-webhook-service"}});
        assert_eq!(manifest_file_name(&svc), "m-webhook-service_v1_service.yaml");
        let role =
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "r"}});
        assert_eq!(manifest_file_name(&role), "r_rbac.authorization.k8s.io_v1_clusterrole.yaml");
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "foos.x.io"}, "spec": {"group": "x.io", "names": {"plural": "foos"}}});
        assert_eq!(manifest_file_name(&crd), "x.io_foos.yaml");
    }

    #[test]
    fn controller_image_is_replaced() {
        assert_eq!(replace_image("controller:latest", "q.io/x:v1").as_deref(), Some("q.io/x:v1"));
        assert_eq!(replace_image("controller", "q.io/x:v1").as_deref(), Some("q.io/x:v1"));
        assert_eq!(replace_image("q.io/controller:latest", "q.io/x:v1"), None);
    }
}
