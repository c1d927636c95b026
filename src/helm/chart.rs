//! The chart's templates and values, built from the objects `config/default` renders ([`super::source`]).
//!
//! Every object becomes one template that renders it back as it was, with Helm's wiring in place of kustomize's:
//! names carrying the `namePrefix` come from the `<chart>.fullname` helper (the release name, so a release named
//! after the project gets the names `make deploy` gives), the namespace is the release's, Helm's labels join the
//! object's own (`app.kubernetes.io/managed-by` becomes Helm), and the parts users switch or tune read values:
//! the manager Deployment (image, replicas, resources, security contexts, scheduling, extra args and env, pod
//! annotations and labels), RBAC (`rbac.create`, leader election, the metrics roles, the per-kind helper roles),
//! the ServiceAccount, metrics (its Service, flags and port), the ServiceMonitor, webhooks (configurations,
//! Service, port, certificate mount, CRD conversion), cert-manager (Issuer, Certificates, CA injection), CRDs
//! (`crds.install`, `crds.keep`), network policies and the Namespace. Objects of no known role are kept as they
//! are under `templates/extras/`.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;
use serde_json::{Map, Value, json};

use super::holes::Holes;
use super::source::Source;
use super::values::{self, Entry, MARK};

mod manager;
mod values_tree;

use manager::manager_template;
use values_tree::values_tree;

/// What the chart is called.
#[derive(Debug, Clone)]
pub struct Options {
    /// The chart's name (the project's name), which prefixes its helpers (`<name>.fullname`).
    pub name: String,
}

/// The generated part of a chart: every template (path under the chart → text) and the values tree.
#[derive(Debug)]
pub struct Chart {
    pub templates: BTreeMap<String, String>,
    pub values: Vec<Entry>,
}

/// The first line of every template kubesmith writes.
pub fn template_header() -> String {
    format!(
        "{{{{- /* {MARK} from config/: rewritten on every run. Delete this line to keep your own version of this \
         file. */ -}}}}\n"
    )
}

/// The role of an object in the chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Namespace,
    Crd,
    ServiceAccount,
    Manager,
    Rbac(RbacRole),
    MetricsService,
    WebhookService,
    WebhookConfiguration,
    Issuer,
    Certificate(Feature),
    ServiceMonitor,
    NetworkPolicy(Feature),
    Extra,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RbacRole {
    Manager,
    LeaderElection,
    Metrics,
    Helper,
}

/// What a certificate or a network policy serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Feature {
    Metrics,
    Webhook,
    Other,
}

/// The optional parts the project has, with their defaults.
#[derive(Debug, Default)]
struct Features {
    /// Metrics port, and whether config/default turns metrics on.
    metrics: Option<(u64, bool)>,
    webhook_port: Option<u64>,
    cert_manager: bool,
    crds: bool,
    leader_election: bool,
    /// Whether config/default includes the network policies.
    network_policy: Option<bool>,
    /// Whether config/default includes the ServiceMonitor.
    prometheus: Option<bool>,
    helper_roles: bool,
    namespace: bool,
    service_account: bool,
}

struct Ctx<'a> {
    chart: String,
    src: &'a Source,
    /// Rendered name → name without the prefix, for every object whose name carries the prefix.
    names: BTreeMap<String, String>,
    /// The manager's ServiceAccount (rendered name).
    service_account: Option<String>,
    features: Features,
    webhook_services: BTreeSet<String>,
    metrics_services: BTreeSet<String>,
    /// The labels that select the manager's pods (its Deployment's `matchLabels`), behind `<chart>.selectorLabels`.
    selector: Option<Map<String, Value>>,
}

impl Ctx<'_> {
    fn fullname(&self) -> String {
        format!("{{{{ include \"{}.fullname\" $ }}}}", self.chart)
    }

    fn sa_name(&self) -> String {
        format!("{{{{ include \"{}.serviceAccountName\" $ }}}}", self.chart)
    }

    fn selector_hole(&self, holes: &mut Holes) -> String {
        let chart = self.chart.clone();
        holes.block(move |col| {
            format!("{}{{{{- include \"{chart}.selectorLabels\" $ | nindent {col} }}}}", " ".repeat(col))
        })
    }

    /// Selectors equal to the manager's (`matchLabels`, a Service's `selector`) become `<chart>.selectorLabels`;
    /// label maps holding them (the pod template's) get them from it too.
    fn use_selector_labels(&self, v: &mut Value, holes: &mut Holes) {
        let Some(sel) = &self.selector else { return };
        let Value::Object(m) = v else {
            if let Value::Array(a) = v {
                a.iter_mut().for_each(|x| self.use_selector_labels(x, holes));
            }
            return;
        };
        for (k, child) in m.iter_mut() {
            match child {
                Value::Object(c) if (k == "matchLabels" || k == "selector") && c == sel => {
                    *child = json!({ self.selector_hole(holes): null });
                }
                Value::Object(c) if k == "labels" && sel.iter().all(|(sk, sv)| c.get(sk) == Some(sv)) => {
                    c.retain(|ck, _| !sel.contains_key(ck));
                    c.insert(self.selector_hole(holes), Value::Null);
                }
                _ => self.use_selector_labels(child, holes),
            }
        }
    }

    fn labels_hole(&self, holes: &mut Holes) -> String {
        let chart = self.chart.clone();
        holes.block(move |col| format!("{}{{{{- include \"{chart}.labels\" $ | nindent {col} }}}}", " ".repeat(col)))
    }

    /// The template text for a string naming objects or the namespace, `None` when it names none.
    fn subst(&self, s: &str) -> Option<String> {
        let mut out = String::new();
        let mut changed = false;
        for piece in split_keeping(s) {
            let replaced = if let Some(base) = self.names.get(piece) {
                Some(format!("{}-{base}", self.fullname()))
            } else if piece == self.src.namespace {
                Some("{{ .Release.Namespace }}".to_string())
            } else {
                None
            };
            match replaced {
                Some(r) => {
                    changed = true;
                    out.push_str(&r);
                }
                None if crate::yaml::plain_or_quoted(s) != s => {
                    let quoted = serde_json::to_string(piece).expect("strings serialize");
                    out.push_str(&quoted[1..quoted.len() - 1]);
                }
                None => out.push_str(piece),
            }
        }
        if !changed {
            return None;
        }
        Some(if crate::yaml::plain_or_quoted(s) != s { format!("\"{out}\"") } else { out })
    }

    /// Replaces, in every string of `v`, the names of objects and the namespace with template text.
    fn subst_all(&self, v: &mut Value, holes: &mut Holes) {
        match v {
            Value::String(s) => {
                if let Some(t) = self.subst(s) {
                    *s = holes.inline(t);
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| self.subst_all(x, holes)),
            Value::Object(m) => m.values_mut().for_each(|x| self.subst_all(x, holes)),
            _ => {}
        }
    }
}

/// Splits at `.`, `/`, `=`, `:`, `,`, `@` and spaces, keeping the separators as pieces of their own.
fn split_keeping(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if matches!(c, '.' | '/' | '=' | ':' | ',' | '@' | ' ') {
            if start < i {
                out.push(&s[start..i]);
            }
            out.push(&s[i..i + c.len_utf8()]);
            start = i + c.len_utf8();
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

fn kind(o: &Value) -> &str {
    o["kind"].as_str().unwrap_or_default()
}

fn name(o: &Value) -> &str {
    o["metadata"]["name"].as_str().unwrap_or_default()
}

/// The manager Deployment: the one whose name ends with `controller-manager`, else the only Deployment.
fn manager_index(objects: &[Value]) -> Option<usize> {
    let deployments: Vec<usize> = (0..objects.len()).filter(|&i| kind(&objects[i]) == "Deployment").collect();
    deployments
        .iter()
        .copied()
        .find(|&i| name(&objects[i]).ends_with("controller-manager"))
        .or_else(|| (deployments.len() == 1).then(|| deployments[0]))
}

/// The manager container of a pod spec: the default-container annotation's, else `manager`, else the first.
fn manager_container(deployment: &Value) -> Option<usize> {
    let containers = deployment["spec"]["template"]["spec"]["containers"].as_array()?;
    let wanted = deployment["spec"]["template"]["metadata"]["annotations"]["kubectl.kubernetes.io/default-container"]
        .as_str()
        .unwrap_or("manager");
    Some(containers.iter().position(|c| c["name"] == wanted).unwrap_or(0)).filter(|_| !containers.is_empty())
}

/// The port of a bind address (`:8443`, `0.0.0.0:8443`); `None` for `0` (off) or other forms.
fn bind_port(addr: &str) -> Option<u64> {
    let (_, port) = addr.rsplit_once(':')?;
    port.parse().ok().filter(|p| *p > 0)
}

fn flag_value<'a>(args: &'a [Value], flag: &str) -> Option<&'a str> {
    args.iter().filter_map(Value::as_str).find_map(|a| a.strip_prefix(flag)?.strip_prefix('='))
}

fn has_flag(args: &[Value], flag: &str) -> bool {
    args.iter().filter_map(Value::as_str).any(|a| a == flag || a.starts_with(&format!("{flag}=")))
}

fn rules_resources(role: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for rule in role["rules"].as_array().into_iter().flatten() {
        for g in rule["apiGroups"].as_array().into_iter().flatten() {
            for r in rule["resources"].as_array().into_iter().flatten() {
                out.push((g.as_str().unwrap_or_default().to_string(), r.as_str().unwrap_or_default().to_string()));
            }
        }
    }
    out
}

fn rbac_role_of(role: &Value, base: &str, bound: bool) -> RbacRole {
    let resources = rules_resources(role);
    let urls: Vec<&str> = role["rules"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|r| r["nonResourceURLs"].as_array().into_iter().flatten())
        .filter_map(Value::as_str)
        .collect();
    let only = |allowed: &[(&str, &str)]| {
        !resources.is_empty() && resources.iter().all(|(g, r)| allowed.iter().any(|(ag, ar)| g == ag && r == ar))
    };
    if base.contains("leader-election") || (urls.is_empty() && only(&[("coordination.k8s.io", "leases")])) {
        RbacRole::LeaderElection
    } else if (urls.is_empty()
        && only(&[("authentication.k8s.io", "tokenreviews"), ("authorization.k8s.io", "subjectaccessreviews")]))
        || (resources.is_empty() && !urls.is_empty() && urls.iter().all(|u| u.starts_with("/metrics")))
    {
        RbacRole::Metrics
    } else if !bound
        && kind(role) == "ClusterRole"
        && ["-admin-role", "-editor-role", "-viewer-role"].iter().any(|s| base.ends_with(s))
    {
        RbacRole::Helper
    } else {
        RbacRole::Manager
    }
}

/// Builds the templates and the values tree.
pub fn build(src: &Source, opts: &Options) -> Result<Chart> {
    let mut all: Vec<(Value, Option<String>)> = src.objects.iter().map(|o| (o.clone(), None)).collect();
    all.extend(src.optional.iter().map(|(d, o)| (o.clone(), Some(d.clone()))));
    let objects: Vec<&Value> = all.iter().map(|(o, _)| o).collect();

    let mut names = BTreeMap::new();
    for o in &objects {
        let n = name(o);
        if !src.prefix.is_empty()
            && kind(o) != "CustomResourceDefinition"
            && kind(o) != "Namespace"
            && let Some(base) = n.strip_prefix(&src.prefix).filter(|b| !b.is_empty())
        {
            names.insert(n.to_string(), base.to_string());
        }
    }
    let manager = manager_index(&src.objects);
    let deployment = manager.map(|i| &src.objects[i]);
    let service_account = deployment
        .and_then(|d| d["spec"]["template"]["spec"]["serviceAccountName"].as_str())
        .map(str::to_string)
        .filter(|sa| objects.iter().any(|o| kind(o) == "ServiceAccount" && name(o) == sa));
    let container =
        deployment.and_then(|d| Some(d["spec"]["template"]["spec"]["containers"][manager_container(d)?].clone()));
    let args: Vec<Value> = container.as_ref().and_then(|c| c["args"].as_array().cloned()).unwrap_or_default();

    // Services by what they serve: the webhook Service is the one webhooks and conversions call.
    let mut webhook_services = BTreeSet::new();
    for o in &objects {
        let mut refs = Vec::new();
        for w in o["webhooks"].as_array().into_iter().flatten() {
            refs.push(&w["clientConfig"]["service"]["name"]);
        }
        refs.push(&o["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["name"]);
        webhook_services.extend(refs.into_iter().filter_map(Value::as_str).map(str::to_string));
    }
    let metrics_port_arg = flag_value(&args, "--metrics-bind-address").and_then(bind_port);
    let metrics_services: BTreeSet<String> = objects
        .iter()
        .filter(|o| kind(o) == "Service" && !webhook_services.contains(name(o)))
        .filter(|o| {
            names.get(name(o)).is_some_and(|b| b.ends_with("metrics-service"))
                || o["spec"]["ports"].as_array().into_iter().flatten().any(|p| {
                    metrics_port_arg.is_some_and(|m| p["targetPort"].as_u64() == Some(m))
                        || p["name"] == "https-metrics"
                })
        })
        .map(|o| name(o).to_string())
        .collect();

    let mut features = Features::default();
    let bound_roles: BTreeSet<(String, String)> = objects
        .iter()
        .filter(|o| kind(o).ends_with("Binding"))
        .map(|o| {
            (
                o["roleRef"]["kind"].as_str().unwrap_or_default().to_string(),
                o["roleRef"]["name"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let rbac_roles: BTreeMap<(String, String), RbacRole> = objects
        .iter()
        .filter(|o| matches!(kind(o), "Role" | "ClusterRole"))
        .map(|o| {
            let key = (kind(o).to_string(), name(o).to_string());
            let base = names.get(name(o)).map(String::as_str).unwrap_or(name(o));
            let role = rbac_role_of(o, base, bound_roles.contains(&key));
            (key, role)
        })
        .collect();
    let metrics_service_port = objects
        .iter()
        .filter(|o| metrics_services.contains(name(o)))
        .find_map(|o| o["spec"]["ports"][0]["targetPort"].as_u64().or_else(|| o["spec"]["ports"][0]["port"].as_u64()));
    let metrics_present = metrics_port_arg.is_some()
        || !metrics_services.is_empty()
        || rbac_roles.values().any(|r| *r == RbacRole::Metrics);
    if metrics_present {
        let on = metrics_port_arg.is_some() || src.objects.iter().any(|o| metrics_services.contains(name(o)));
        features.metrics = Some((metrics_port_arg.or(metrics_service_port).unwrap_or(8443), on));
    }
    let webhook_port_arg = flag_value(&args, "--webhook-port").and_then(|p| p.parse::<u64>().ok());
    let webhook_container_port = container
        .as_ref()
        .and_then(|c| c["ports"].as_array()?.iter().find(|p| p["name"] == "webhook-server")?["containerPort"].as_u64());
    if !webhook_services.is_empty() || webhook_port_arg.is_some() || webhook_container_port.is_some() {
        let service_port = objects
            .iter()
            .filter(|o| webhook_services.contains(name(o)))
            .find_map(|o| o["spec"]["ports"][0]["targetPort"].as_u64());
        features.webhook_port = Some(webhook_port_arg.or(webhook_container_port).or(service_port).unwrap_or(9443));
    }
    features.cert_manager =
        objects.iter().any(|o| o["apiVersion"].as_str().is_some_and(|a| a.starts_with("cert-manager.io/")));
    features.crds = objects.iter().any(|o| kind(o) == "CustomResourceDefinition");
    features.leader_election =
        has_flag(&args, "--leader-elect") || rbac_roles.values().any(|r| *r == RbacRole::LeaderElection);
    features.helper_roles = rbac_roles.values().any(|r| *r == RbacRole::Helper);
    features.namespace = src.objects.iter().any(|o| kind(o) == "Namespace");
    features.service_account = service_account.is_some();
    for (o, folder) in &all {
        let on = folder.is_none();
        match (kind(o), folder.as_deref()) {
            ("NetworkPolicy", _) | (_, Some("network-policy")) => {
                features.network_policy = Some(features.network_policy.unwrap_or(false) || on)
            }
            ("ServiceMonitor", _) | (_, Some("prometheus")) => {
                features.prometheus = Some(features.prometheus.unwrap_or(false) || on)
            }
            _ => {}
        }
    }

    let selector = deployment
        .and_then(|d| d["spec"]["selector"]["matchLabels"].as_object())
        .filter(|m| !m.is_empty() && m.values().all(Value::is_string))
        .cloned();
    let ctx = Ctx {
        chart: opts.name.clone(),
        src,
        names,
        service_account,
        features,
        webhook_services,
        metrics_services,
        selector,
    };

    let mut templates = BTreeMap::new();
    let mut values_manager = None;
    for (i, (o, folder)) in all.iter().enumerate() {
        let role = role_of(o, folder.as_deref(), Some(i) == manager, &ctx, &rbac_roles);
        let mut holes = Holes::default();
        let (dir, condition, doc) = match role {
            Role::Manager => {
                let (doc, manager_values) = manager_template(o, &ctx, &mut holes);
                values_manager = Some(manager_values);
                ("manager", None, doc)
            }
            _ => {
                let doc = object_template(o, role, &ctx, &mut holes);
                let (dir, cond) = placement(role, &ctx);
                (dir, cond, doc)
            }
        };
        let base = ctx.names.get(name(o)).cloned().unwrap_or_else(|| name(o).to_string());
        let file = match role {
            Role::Namespace => "templates/namespace.yaml".to_string(),
            Role::ServiceAccount => "templates/rbac/service-account.yaml".to_string(),
            Role::Manager => "templates/manager/manager.yaml".to_string(),
            Role::Extra => format!("templates/{dir}/{}-{base}.yaml", kind(o).to_ascii_lowercase()),
            _ => format!("templates/{dir}/{base}.yaml"),
        };
        let file = unique(&templates, file, kind(o));
        let body = holes.render(&doc);
        let text = match condition {
            // `-}}` here: the document starts on the next line, at column 0.
            Some(c) => format!("{}{{{{- if {c} -}}}}\n{}\n{{{{- end }}}}\n", template_header(), body.trim_end()),
            None => format!("{}{body}", template_header()),
        };
        templates.insert(file, text);
    }
    templates.insert("templates/_helpers.tpl".into(), helpers(&ctx));
    templates.insert("templates/NOTES.txt".into(), notes(&ctx, manager.map(|i| name(&src.objects[i]))));
    let values = values_tree(&ctx, values_manager);
    Ok(Chart { templates, values })
}

fn unique(templates: &BTreeMap<String, String>, file: String, kind: &str) -> String {
    if !templates.contains_key(&file) {
        return file;
    }
    let stem = file.trim_end_matches(".yaml");
    let with_kind = format!("{stem}-{}.yaml", kind.to_ascii_lowercase());
    if !templates.contains_key(&with_kind) {
        return with_kind;
    }
    (2..).map(|n| format!("{stem}-{n}.yaml")).find(|f| !templates.contains_key(f)).expect("some number is free")
}

fn role_of(
    o: &Value,
    folder: Option<&str>,
    is_manager: bool,
    ctx: &Ctx,
    rbac_roles: &BTreeMap<(String, String), RbacRole>,
) -> Role {
    let api = o["apiVersion"].as_str().unwrap_or_default();
    match kind(o) {
        _ if is_manager => Role::Manager,
        "Namespace" if name(o) == ctx.src.namespace => Role::Namespace,
        "CustomResourceDefinition" => Role::Crd,
        "ServiceAccount" if ctx.service_account.as_deref() == Some(name(o)) => Role::ServiceAccount,
        "Role" | "ClusterRole" => Role::Rbac(rbac_roles[&(kind(o).to_string(), name(o).to_string())]),
        "RoleBinding" | "ClusterRoleBinding" => {
            let key = (
                o["roleRef"]["kind"].as_str().unwrap_or_default().to_string(),
                o["roleRef"]["name"].as_str().unwrap_or_default().to_string(),
            );
            Role::Rbac(rbac_roles.get(&key).copied().unwrap_or(RbacRole::Manager))
        }
        "Service" if ctx.webhook_services.contains(name(o)) => Role::WebhookService,
        "Service" if ctx.metrics_services.contains(name(o)) => Role::MetricsService,
        "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration" => Role::WebhookConfiguration,
        "Issuer" | "ClusterIssuer" if api.starts_with("cert-manager.io/") => Role::Issuer,
        "Certificate" if api.starts_with("cert-manager.io/") => {
            let dns: Vec<&str> =
                o["spec"]["dnsNames"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            let serves = |services: &BTreeSet<String>| {
                dns.iter().any(|d| services.iter().any(|s| d.split('.').next() == Some(s.as_str())))
            };
            Role::Certificate(if serves(&ctx.webhook_services) {
                Feature::Webhook
            } else if serves(&ctx.metrics_services) {
                Feature::Metrics
            } else {
                Feature::Other
            })
        }
        "ServiceMonitor" => Role::ServiceMonitor,
        "NetworkPolicy" => {
            let ports: Vec<u64> = o["spec"]["ingress"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|r| r["ports"].as_array().into_iter().flatten())
                .filter_map(|p| p["port"].as_u64())
                .collect();
            let is = |p: Option<u64>| p.is_some_and(|p| ports.contains(&p));
            Role::NetworkPolicy(if is(ctx.features.webhook_port) {
                Feature::Webhook
            } else if is(ctx.features.metrics.map(|m| m.0)) {
                Feature::Metrics
            } else {
                Feature::Other
            })
        }
        _ if folder == Some("prometheus") => Role::ServiceMonitor,
        _ if folder == Some("network-policy") => Role::NetworkPolicy(Feature::Other),
        _ => Role::Extra,
    }
}

/// The template folder and the condition of an object's template.
fn placement(role: Role, ctx: &Ctx) -> (&'static str, Option<String>) {
    let f = &ctx.features;
    let and = |a: &str, b: Option<&str>| match b {
        Some(b) => format!("and {a} {b}"),
        None => a.to_string(),
    };
    let metrics = f.metrics.is_some().then_some(".Values.metrics.enable");
    let webhook = f.webhook_port.is_some().then_some(".Values.webhook.enable");
    let cert = f.cert_manager.then_some(".Values.certManager.enable");
    match role {
        Role::Namespace => ("", Some(".Values.namespace.create".into())),
        Role::Crd => ("crd", Some(".Values.crds.install".into())),
        Role::ServiceAccount => ("rbac", Some(".Values.serviceAccount.create".into())),
        Role::Manager => ("manager", None),
        Role::Rbac(r) => {
            let extra = match r {
                RbacRole::Manager => None,
                RbacRole::LeaderElection => f.leader_election.then_some(".Values.leaderElection.enable"),
                RbacRole::Metrics => metrics,
                RbacRole::Helper => Some(".Values.rbac.helperRoles"),
            };
            ("rbac", Some(and(".Values.rbac.create", extra)))
        }
        Role::MetricsService => ("metrics", metrics.map(str::to_string)),
        Role::WebhookService | Role::WebhookConfiguration => ("webhook", webhook.map(str::to_string)),
        Role::Issuer => ("cert-manager", cert.map(str::to_string)),
        Role::Certificate(feature) => {
            let on = match feature {
                Feature::Webhook => webhook,
                Feature::Metrics => metrics,
                Feature::Other => None,
            };
            ("cert-manager", cert.map(|c| and(c, on)))
        }
        Role::ServiceMonitor => ("prometheus", Some(and(".Values.prometheus.enable", metrics))),
        Role::NetworkPolicy(feature) => {
            let on = match feature {
                Feature::Webhook => webhook,
                Feature::Metrics => metrics,
                Feature::Other => None,
            };
            ("network-policy", Some(and(".Values.networkPolicy.enable", on)))
        }
        // Objects of the optional folders never get here: `role_of` gives them their folder's role.
        Role::Extra => ("extras", None),
    }
}

/// Metadata every template gets: names and the namespace as template text, Helm's labels, managed-by dropped,
/// cert-manager's CA injection switched by `certManager.enable`.
fn common(o: &mut Value, ctx: &Ctx, holes: &mut Holes, subst_spec: bool) {
    if subst_spec {
        ctx.subst_all(o, holes);
        if let Some(spec) = o.get_mut("spec") {
            ctx.use_selector_labels(spec, holes);
        }
    } else {
        ctx.subst_all(&mut o["metadata"], holes);
    }
    let meta = o["metadata"].as_object_mut().expect("objects have metadata");
    let labels = meta.entry("labels").or_insert_with(|| json!({}));
    if let Some(l) = labels.as_object_mut() {
        l.remove("app.kubernetes.io/managed-by");
        l.insert(ctx.labels_hole(holes), Value::Null);
    }
    let injected = |k: &String| k.starts_with("cert-manager.io/inject-ca-from");
    if ctx.features.cert_manager
        && let Some(a) = meta.get_mut("annotations").and_then(Value::as_object_mut)
    {
        if !a.is_empty() && a.keys().all(injected) {
            let all = Value::Object(a.clone());
            meta.insert("annotations".into(), json!(holes.entry_if(".Values.certManager.enable", "annotations", &all)));
        } else {
            for (k, v) in a.iter_mut() {
                if injected(k) {
                    let value = v.clone();
                    *v = json!(holes.entry_if(".Values.certManager.enable", k, &value));
                }
            }
        }
    }
}

/// Appends the items of a list value (`extraArgs`) to `parent[key]`: after its items when it has some, else
/// `key:` written only when the value is set.
fn merge_list_value(parent: &mut Map<String, Value>, key: &str, value: &str, holes: &mut Holes) {
    match parent.get_mut(key).and_then(Value::as_array_mut) {
        Some(items) if !items.is_empty() => items.push(json!(spread_block(holes, value))),
        _ => {
            parent.remove(key);
            parent.insert(with_block(holes, value, key), Value::Null);
        }
    }
}

/// Adds the entries of a map value (`podAnnotations`) to `parent[key]`: spread into the map when it has entries,
/// else `key:` written only when the value is set (never an empty `key:`).
fn merge_map_value(parent: &mut Map<String, Value>, key: &str, value: &str, holes: &mut Holes) {
    match parent.get_mut(key).and_then(Value::as_object_mut) {
        Some(m) if !m.is_empty() => {
            m.insert(spread_block(holes, value), Value::Null);
        }
        _ => {
            parent.remove(key);
            parent.insert(with_block(holes, value, key), Value::Null);
        }
    }
}

/// References to the manager's ServiceAccount (a pod's `serviceAccountName`, a binding's subject) name it through
/// the `serviceAccountName` helper, which follows `serviceAccount.create` and `serviceAccount.name`.
fn service_account_refs(o: &mut Value, original: &Value, ctx: &Ctx, holes: &mut Holes) {
    let Some(sa) = ctx.service_account.as_deref() else { return };
    if original["spec"]["template"]["spec"]["serviceAccountName"] == sa {
        o["spec"]["template"]["spec"]["serviceAccountName"] = json!(holes.inline(ctx.sa_name()));
    }
    for (i, subject) in original["subjects"].as_array().into_iter().flatten().enumerate() {
        if subject["kind"] == "ServiceAccount" && subject["name"] == sa {
            o["subjects"][i]["name"] = json!(holes.inline(ctx.sa_name()));
        }
    }
}

fn object_template(original: &Value, role: Role, ctx: &Ctx, holes: &mut Holes) -> Value {
    let mut o = original.clone();
    service_account_refs(&mut o, original, ctx, holes);
    match role {
        Role::Crd => {
            let keep = "{{- if .Values.crds.keep }}";
            let meta = o["metadata"].as_object_mut().expect("objects have metadata");
            match meta.get_mut("annotations").and_then(Value::as_object_mut) {
                Some(a) if !a.is_empty() => {
                    let token = holes.block_named("helm.sh/resource-policy", move |col| {
                        let pad = " ".repeat(col);
                        format!("{pad}{keep}\n{pad}helm.sh/resource-policy: keep\n{pad}{{{{- end }}}}")
                    });
                    a.insert(token, Value::Null);
                }
                _ => {
                    let token = holes.block_named("annotations", move |col| {
                        let pad = " ".repeat(col);
                        format!(
                            "{pad}{keep}\n{pad}annotations:\n{pad}  helm.sh/resource-policy: keep\n{pad}{{{{- end }}}}"
                        )
                    });
                    meta.remove("annotations");
                    meta.insert(token, Value::Null);
                }
            }
            common(&mut o, ctx, holes, false);
            let conversion = o["spec"].get("conversion").cloned();
            if let Some(mut conversion) = conversion {
                ctx.subst_all(&mut conversion, holes);
                if conversion["strategy"] == "Webhook" && ctx.features.webhook_port.is_some() {
                    let hole = holes.entry_if(".Values.webhook.enable", "conversion", &conversion);
                    o["spec"]["conversion"] = json!(hole);
                } else {
                    o["spec"]["conversion"] = conversion;
                }
            }
        }
        Role::ServiceAccount => {
            common(&mut o, ctx, holes, true);
            o["metadata"]["name"] = json!(holes.inline(ctx.sa_name()));
            let meta = o["metadata"].as_object_mut().expect("objects have metadata");
            merge_map_value(meta, "annotations", ".Values.serviceAccount.annotations", holes);
        }
        Role::MetricsService | Role::WebhookService => {
            common(&mut o, ctx, holes, true);
            let (port, value) = if role == Role::MetricsService {
                (ctx.features.metrics.map(|m| m.0), ".Values.metrics.port")
            } else {
                (ctx.features.webhook_port, ".Values.webhook.port")
            };
            for p in o["spec"]["ports"].as_array_mut().into_iter().flatten() {
                for key in ["port", "targetPort"] {
                    if role == Role::WebhookService && key == "port" {
                        continue;
                    }
                    if port.is_some() && p[key].as_u64() == port {
                        p[key] = json!(holes.inline(format!("{{{{ {value} }}}}")));
                    }
                }
            }
        }
        Role::NetworkPolicy(feature) => {
            common(&mut o, ctx, holes, true);
            let (port, value) = match feature {
                Feature::Metrics => (ctx.features.metrics.map(|m| m.0), ".Values.metrics.port"),
                Feature::Webhook => (ctx.features.webhook_port, ".Values.webhook.port"),
                Feature::Other => (None, ""),
            };
            for rule in o["spec"]["ingress"].as_array_mut().into_iter().flatten() {
                for p in rule["ports"].as_array_mut().into_iter().flatten() {
                    if port.is_some() && p["port"].as_u64() == port {
                        p["port"] = json!(holes.inline(format!("{{{{ {value} }}}}")));
                    }
                }
            }
        }
        _ => common(&mut o, ctx, holes, true),
    }
    o
}

/// A `with` block: `key:` and the value's YAML when the value is set.
fn with_block(holes: &mut Holes, value: &str, key: &str) -> String {
    let (value, name) = (value.to_string(), key.to_string());
    holes.block_named(key, move |col| {
        let key = &name;
        let pad = " ".repeat(col);
        format!(
            "{pad}{{{{- with {value} }}}}\n{pad}{key}:\n{pad}  {{{{- toYaml . | nindent {} }}}}\n{pad}{{{{- end }}}}",
            col + 2
        )
    })
}

/// A block that spreads the items of a list value (`extraArgs`) in a sequence, or the entries of a map value
/// (`podAnnotations`) in a map, when the value is set.
fn spread_block(holes: &mut Holes, value: &str) -> String {
    let value = value.to_string();
    holes.block(move |col| {
        let pad = " ".repeat(col);
        format!("{pad}{{{{- with {value} }}}}\n{pad}{{{{- toYaml . | nindent {col} }}}}\n{pad}{{{{- end }}}}")
    })
}

fn helpers(ctx: &Ctx) -> String {
    let c = &ctx.chart;
    let mut out = template_header();
    out.push_str(&include_str!("files/helpers.tpl").replace("CHART", c));
    if let Some(sel) = &ctx.selector {
        out.push_str(&format!(
            "\n{{{{/*\nThe labels that select the manager's pods: its Deployment's selector, the selector of its \
             Services,\nthe pods its policies and monitor apply to (config/'s, so that an upgrade from `make deploy` \
             keeps them).\n*/}}}}\n{{{{- define \"{c}.selectorLabels\" -}}}}\n{}{{{{- end }}}}\n",
            crate::yaml::to_string(&Value::Object(sel.clone()))
        ));
    }
    if let Some(sa) = &ctx.service_account {
        let base = ctx.names.get(sa).cloned();
        let default = match base {
            Some(b) => format!("(printf \"%s-{b}\" (include \"{c}.fullname\" .))"),
            None => format!("{:?}", sa),
        };
        out.push_str(&format!(
            "\n{{{{/*\nThe manager's ServiceAccount: serviceAccount.name, else the one the chart creates (or \"default\" \
             when\nserviceAccount.create is false).\n*/}}}}\n{{{{- define \"{c}.serviceAccountName\" -}}}}\n\
             {{{{- if .Values.serviceAccount.create }}}}\n{{{{- default {default} .Values.serviceAccount.name }}}}\n\
             {{{{- else }}}}\n{{{{- default \"default\" .Values.serviceAccount.name }}}}\n{{{{- end }}}}\n{{{{- end }}}}\n"
        ));
    }
    out
}

fn notes(ctx: &Ctx, deployment: Option<&str>) -> String {
    let f = &ctx.features;
    let mut out = template_header();
    out.push_str("{{ .Chart.Name }} {{ .Chart.AppVersion }} is installed as release {{ .Release.Name }} in namespace {{ .Release.Namespace }}.\n");
    if let Some(d) = deployment {
        let d = match ctx.names.get(d) {
            Some(base) => format!("{}-{base}", ctx.fullname()),
            None => d.to_string(),
        };
        out.push_str(&format!(
            "\nThe manager runs as Deployment {d}:\n\n  kubectl --namespace {{{{ .Release.Namespace }}}} rollout status \
             deployment/{d}\n  kubectl --namespace {{{{ .Release.Namespace }}}} logs deployment/{d}\n"
        ));
    }
    if f.crds {
        out.push_str(
            "{{- if not .Values.crds.install }}\n\ncrds.install is false: install the CRDs before the operator runs.\n{{- end }}\n",
        );
    }
    if let Some(reader) = ctx.names.iter().find(|(_, b)| b.as_str() == "metrics-reader").map(|(_, b)| b)
        && f.metrics.is_some()
    {
        out.push_str(&format!(
            "{{{{- if .Values.metrics.enable }}}}\n\nMetrics are served over HTTPS on port {{{{ .Values.metrics.port }}}}; \
             bind the ClusterRole\n{}-{reader} to the identity that scrapes them.\n{{{{- end }}}}\n",
            ctx.fullname()
        ));
    }
    if f.webhook_port.is_some() && f.cert_manager {
        out.push_str(
            "{{- if and .Values.webhook.enable .Values.certManager.enable }}\n\nThe webhook server's certificate comes \
             from cert-manager, which must run in the cluster:\nhttps://cert-manager.io/docs/installation/\n\
             {{- else if .Values.webhook.enable }}\n\ncertManager.enable is false: create the webhook server's \
             certificate Secret yourself and set the\ncaBundle of the webhook configurations.\n{{- end }}\n",
        );
    }
    out
}

#[cfg(test)]
mod tests;
