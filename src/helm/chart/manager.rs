//! The manager Deployment's template: the image, replicas, resources, security contexts, scheduling, extra args
//! and env, pod annotations and labels, the metrics and webhook wiring read from values, and the defaults those
//! values get from the Deployment `config/default` renders.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{
    Ctx, bind_port, common, flag_value, manager_container, merge_list_value, merge_map_value, service_account_refs,
    spread_block, with_block,
};
use crate::helm::holes::Holes;

/// Defaults the Deployment gives the values under `manager`.
#[derive(Debug, Default)]
pub(super) struct ManagerValues {
    pub(super) replicas: Value,
    pub(super) repository: String,
    pub(super) tag: String,
    pub(super) digest: String,
    pub(super) pull_policy: String,
    pub(super) image_pull_secrets: Value,
    pub(super) resources: Value,
    pub(super) pod_security_context: Value,
    pub(super) security_context: Value,
    pub(super) node_selector: Value,
    pub(super) tolerations: Value,
    pub(super) affinity: Value,
}

pub(super) fn take(m: &mut Value, key: &str, or: Value) -> Value {
    m.as_object_mut().and_then(|o| o.remove(key)).filter(|v| !v.is_null()).unwrap_or(or)
}

pub(super) fn manager_template(original: &Value, ctx: &Ctx, holes: &mut Holes) -> (Value, ManagerValues) {
    let mut o = original.clone();
    let mut mv = ManagerValues::default();
    let ci = manager_container(&o).unwrap_or(0);
    // Values first, from the Deployment as config/ renders it.
    let pod_spec = &mut o["spec"]["template"]["spec"];
    mv.pod_security_context = take(pod_spec, "securityContext", json!({}));
    mv.node_selector = take(pod_spec, "nodeSelector", json!({}));
    mv.tolerations = take(pod_spec, "tolerations", json!([]));
    mv.affinity = take(pod_spec, "affinity", json!({}));
    mv.image_pull_secrets = take(pod_spec, "imagePullSecrets", json!([]));
    let container = &mut pod_spec["containers"][ci];
    mv.resources = take(container, "resources", json!({}));
    mv.security_context = take(container, "securityContext", json!({}));
    mv.pull_policy = take(container, "imagePullPolicy", json!("")).as_str().unwrap_or_default().into();
    let image = take(container, "image", json!("controller:latest"));
    let image = image.as_str().unwrap_or("controller:latest");
    let (rest, digest) = image.split_once('@').unwrap_or((image, ""));
    let (repository, tag) = match rest.rsplit_once(':') {
        Some((r, t)) if !t.contains('/') => (r, t),
        _ => (rest, ""),
    };
    mv.repository = repository.into();
    mv.digest = digest.into();
    mv.tag = if tag == "latest" { String::new() } else { tag.into() };
    mv.replicas = take(&mut o["spec"], "replicas", json!(1));

    common(&mut o, ctx, holes, true);
    service_account_refs(&mut o, original, ctx, holes);
    o["spec"]["replicas"] = json!(holes.inline("{{ .Values.manager.replicas }}"));
    let template_meta = o["spec"]["template"]["metadata"].as_object_mut().expect("pod template metadata");
    merge_map_value(template_meta, "annotations", ".Values.manager.podAnnotations", holes);
    let labels = template_meta.entry("labels").or_insert_with(|| json!({}));
    if let Some(l) = labels.as_object_mut() {
        l.insert(ctx.labels_hole(holes), Value::Null);
        l.insert(spread_block(holes, ".Values.manager.podLabels"), Value::Null);
    }

    let f = &ctx.features;
    let metrics_on = f.metrics.is_some();
    let webhook_on = f.webhook_port.is_some();
    let pod_spec = o["spec"]["template"]["spec"].as_object_mut().expect("pod spec");
    for (key, value) in [
        ("securityContext", ".Values.manager.podSecurityContext"),
        ("nodeSelector", ".Values.manager.nodeSelector"),
        ("tolerations", ".Values.manager.tolerations"),
        ("affinity", ".Values.manager.affinity"),
        ("imagePullSecrets", ".Values.manager.imagePullSecrets"),
    ] {
        pod_spec.insert(with_block(holes, value, key), Value::Null);
    }

    // Volumes serving the webhook's or the metrics' certificate follow their feature.
    let args: Vec<Value> = pod_spec["containers"][ci]["args"].as_array().cloned().unwrap_or_default();
    let mount_dirs = |flag: &str| flag_value(&args, flag).map(str::to_string);
    let (webhook_dir, metrics_dir) = (mount_dirs("--webhook-cert-path"), mount_dirs("--metrics-cert-path"));
    let mut volume_condition: BTreeMap<String, &str> = BTreeMap::new();
    for m in pod_spec["containers"][ci]["volumeMounts"].as_array().into_iter().flatten() {
        let path = m["mountPath"].as_str().map(|p| p.trim_end_matches('/'));
        let vol = m["name"].as_str().unwrap_or_default().to_string();
        if webhook_on && path.is_some() && path == webhook_dir.as_deref().map(|d| d.trim_end_matches('/')) {
            volume_condition.insert(vol, ".Values.webhook.enable");
        } else if metrics_on && path.is_some() && path == metrics_dir.as_deref().map(|d| d.trim_end_matches('/')) {
            volume_condition.insert(
                vol,
                if f.cert_manager {
                    "and .Values.metrics.enable .Values.certManager.enable"
                } else {
                    ".Values.metrics.enable"
                },
            );
        }
    }
    if let Some(vols) = pod_spec.get_mut("volumes").and_then(Value::as_array_mut) {
        for v in vols.iter_mut() {
            if let Some(cond) = v["name"].as_str().and_then(|n| volume_condition.get(n)) {
                let item = v.clone();
                *v = json!(holes.item_if(cond, &item));
            }
        }
    }
    for c in pod_spec.get_mut("containers").and_then(Value::as_array_mut).into_iter().flatten() {
        for m in c.get_mut("volumeMounts").and_then(Value::as_array_mut).into_iter().flatten() {
            if let Some(cond) = m["name"].as_str().and_then(|n| volume_condition.get(n)) {
                let item = m.clone();
                *m = json!(holes.item_if(cond, &item));
            }
        }
    }

    let container = pod_spec
        .get_mut("containers")
        .and_then(|c| c.get_mut(ci))
        .and_then(Value::as_object_mut)
        .expect("manager container");
    container.insert(
        "image".into(),
        json!(holes.inline(
            "\"{{ .Values.manager.image.repository }}{{ with .Values.manager.image.digest }}@{{ . }}{{ else }}:{{ \
             .Values.manager.image.tag | default $.Chart.AppVersion }}{{ end }}\""
        )),
    );
    let policy = holes.block_named("imagePullPolicy", |col| {
        let pad = " ".repeat(col);
        format!("{pad}{{{{- with .Values.manager.image.pullPolicy }}}}\n{pad}imagePullPolicy: {{{{ . }}}}\n{pad}{{{{- end }}}}")
    });
    container.insert(policy, Value::Null);
    container.insert(with_block(holes, ".Values.manager.resources", "resources"), Value::Null);
    container.insert(with_block(holes, ".Values.manager.securityContext", "securityContext"), Value::Null);

    // Flags: each optional feature's own, then the user's extra ones.
    let mut new_args = Vec::new();
    for a in &args {
        let Some(s) = a.as_str() else {
            new_args.push(a.clone());
            continue;
        };
        let item = if metrics_on && s.starts_with("--metrics-bind-address=") {
            let flag = if bind_port(s.trim_start_matches("--metrics-bind-address=")).is_some() {
                holes.inline("--metrics-bind-address=:{{ .Values.metrics.port }}")
            } else {
                s.to_string()
            };
            json!(holes.item_if(".Values.metrics.enable", &json!(flag)))
        } else if metrics_on && s.starts_with("--metrics-cert-path") && f.cert_manager {
            json!(holes.item_if("and .Values.metrics.enable .Values.certManager.enable", a))
        } else if metrics_on && s.starts_with("--metrics-") {
            json!(holes.item_if(".Values.metrics.enable", a))
        } else if f.leader_election && (s == "--leader-elect" || s.starts_with("--leader-elect")) {
            json!(holes.item_if(".Values.leaderElection.enable", a))
        } else if webhook_on && s.starts_with("--webhook-port=") {
            let flag = holes.inline("--webhook-port={{ .Values.webhook.port }}");
            json!(holes.item_if(".Values.webhook.enable", &json!(flag)))
        } else if webhook_on && s.starts_with("--webhook-") {
            json!(holes.item_if(".Values.webhook.enable", a))
        } else {
            a.clone()
        };
        new_args.push(item);
    }
    container.insert("args".into(), Value::Array(new_args));
    merge_list_value(container, "args", ".Values.manager.extraArgs", holes);
    merge_list_value(container, "env", ".Values.manager.extraEnv", holes);
    if let Some(ports) = container.get_mut("ports").and_then(Value::as_array_mut) {
        for p in ports.iter_mut() {
            let port = p["containerPort"].as_u64();
            if webhook_on && (p["name"] == "webhook-server" || port == f.webhook_port) {
                let mut item = p.clone();
                item["containerPort"] = json!(holes.inline("{{ .Values.webhook.port }}"));
                *p = json!(holes.item_if(".Values.webhook.enable", &item));
            } else if metrics_on && port.is_some() && port == f.metrics.map(|m| m.0) {
                let mut item = p.clone();
                item["containerPort"] = json!(holes.inline("{{ .Values.metrics.port }}"));
                *p = json!(holes.item_if(".Values.metrics.enable", &item));
            }
        }
    }
    (o, mv)
}
