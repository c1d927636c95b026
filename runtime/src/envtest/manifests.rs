//! What the tests install from the project's `config/`: the CRDs of `config/crd/bases` (with the conversion
//! webhook of `config/crd/patches`), the manager's RBAC of `config/rbac` and the webhook configurations of
//! `config/webhook`, pointed at the test's webhook server.

use k8s_openapi::{
    ByteString,
    api::admissionregistration::v1::{
        MutatingWebhookConfiguration, ValidatingWebhookConfiguration, WebhookClientConfig,
    },
    apiextensions_apiserver::pkg::apis::apiextensions::v1::{
        CustomResourceConversion, CustomResourceDefinition, WebhookClientConfig as ConversionClientConfig,
        WebhookConversion,
    },
};
use kube::{
    Api, Client,
    api::{DynamicObject, GroupVersionKind, PostParams},
    discovery::{self, Scope},
};
use serde::Deserialize;
use serde_json::Value;
use std::{
    net::SocketAddr,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

/// The project's folder ([`super::Project::root`]).
pub fn project_root() -> PathBuf {
    PathBuf::from(super::project().root)
}

/// The YAML documents of `file`, as JSON values (empty documents skipped).
pub fn documents(file: &Path) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("reading {}: {e}", file.display()))?;
    serde_yaml_ng::Deserializer::from_str(&text)
        .map(|doc| Value::deserialize(doc).map_err(|e| format!("{}: {e}", file.display())))
        .filter(|doc| !matches!(doc, Ok(Value::Null)))
        .collect()
}

/// The `.yaml` files of `dir`, sorted, without kustomize's own files.
fn yaml_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("reading {}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .filter(|p| !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("kustomiz")))
        .collect();
    files.sort();
    Ok(files)
}

/// Installs every CRD of `config/crd/bases` and waits until each is established. A CRD with a conversion
/// patch in `config/crd/patches/webhook_in_<plural>.yaml` converts through `webhook` (the test's server).
pub async fn install_crds(client: &Client, webhook: Option<(SocketAddr, &str)>) -> Result<(), String> {
    let root = project_root();
    let bases = root.join("config/crd/bases");
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    let mut names = Vec::new();
    for file in yaml_files(&bases)? {
        for doc in documents(&file)? {
            let mut crd: CustomResourceDefinition =
                serde_json::from_value(doc).map_err(|e| format!("{}: {e}", file.display()))?;
            let patch = root.join(format!("config/crd/patches/webhook_in_{}.yaml", crd.spec.names.plural));
            if let (Some((addr, ca)), true) = (webhook, patch.is_file()) {
                crd.spec.conversion = Some(conversion(&patch, addr, ca)?);
            }
            let name = crd.metadata.name.clone().unwrap_or_default();
            api.create(&PostParams::default(), &crd).await.map_err(|e| {
                format!(
                    "the API server refused the CRD {name} of {}: {e}\n(run `make manifests` if the types changed)",
                    file.display()
                )
            })?;
            names.push(name);
        }
    }
    let started = Instant::now();
    for name in names {
        loop {
            let crd = api.get(&name).await.map_err(|e| format!("reading the CRD {name}: {e}"))?;
            let established = crd
                .status
                .iter()
                .flat_map(|s| s.conditions.iter().flatten())
                .any(|c| c.type_ == "Established" && c.status == "True");
            if established {
                break;
            }
            if started.elapsed() > Duration::from_secs(30) {
                return Err(format!("the CRD {name} was not established within 30s: {:?}", crd.status));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    Ok(())
}

/// The `spec.conversion` of the conversion patch `patch`, calling the test's webhook server at its path.
fn conversion(patch: &Path, addr: SocketAddr, ca: &str) -> Result<CustomResourceConversion, String> {
    let doc = documents(patch)?.into_iter().next().unwrap_or_default();
    let webhook = &doc["spec"]["conversion"]["webhook"];
    let path = webhook["clientConfig"]["service"]["path"]
        .as_str()
        .ok_or_else(|| format!("{} has no spec.conversion.webhook.clientConfig.service.path", patch.display()))?;
    let review_versions =
        serde_json::from_value(webhook["conversionReviewVersions"].clone()).unwrap_or_else(|_| vec!["v1".to_string()]);
    Ok(CustomResourceConversion {
        strategy: "Webhook".into(),
        webhook: Some(WebhookConversion {
            client_config: Some(ConversionClientConfig {
                url: Some(format!("https://{addr}{path}")),
                ca_bundle: Some(ByteString(ca.as_bytes().to_vec())),
                service: None,
            }),
            conversion_review_versions: review_versions,
        }),
    })
}

/// How the API server reaches the test's webhook server at `path`.
fn client_config(addr: SocketAddr, path: &str, ca: &str) -> WebhookClientConfig {
    WebhookClientConfig {
        url: Some(format!("https://{addr}{path}")),
        ca_bundle: Some(ByteString(ca.as_bytes().to_vec())),
        service: None,
    }
}

/// The namespace the manager runs in: `namespace` of `config/default/kustomization.yaml` (`<project>-system`).
pub fn manager_namespace() -> String {
    let file = project_root().join("config/default/kustomization.yaml");
    documents(&file)
        .ok()
        .and_then(|docs| docs.into_iter().next())
        .and_then(|doc| doc["namespace"].as_str().map(str::to_string))
        .unwrap_or_else(|| "system".into())
}

/// The namespace of the manager's role when it is a Role (a namespace-scoped manager), else `None`.
pub fn manager_role_namespace() -> Option<String> {
    let docs = documents(&project_root().join("config/rbac/role.yaml")).ok()?;
    let role = docs.into_iter().find(|d| d["metadata"]["name"] == "manager-role")?;
    (role["kind"] == "Role").then(|| role["metadata"]["namespace"].as_str().map(str::to_string))?
}

/// Creates every ServiceAccount, (Cluster)Role and (Cluster)RoleBinding of `config/rbac` as `config/default`
/// deploys them: in the manager's namespace (kustomize's `namespace` replaces `system` and fills in a missing
/// one), names without the project prefix (it changes no permission).
pub async fn apply_rbac(client: &Client, namespace: &str) -> Result<(), String> {
    let kinds = ["ServiceAccount", "ClusterRole", "Role", "ClusterRoleBinding", "RoleBinding"];
    let mut objects = Vec::new();
    for file in yaml_files(&project_root().join("config/rbac"))? {
        for mut doc in documents(&file)? {
            let Some(kind) = doc["kind"].as_str().filter(|k| kinds.contains(k)) else {
                continue;
            };
            if !kind.starts_with("Cluster") && matches!(doc["metadata"]["namespace"].as_str(), None | Some("system")) {
                doc["metadata"]["namespace"] = namespace.into();
            }
            for subject in doc["subjects"].as_array_mut().into_iter().flatten() {
                if subject["kind"] == "ServiceAccount" && subject["namespace"] == "system" {
                    subject["namespace"] = namespace.into();
                }
            }
            objects.push((file.clone(), doc));
        }
    }
    // Accounts and roles before the bindings that name them.
    objects.sort_by_key(|(_, doc)| kinds.iter().position(|k| doc["kind"] == *k));
    for (file, doc) in objects {
        if let Some(namespace) = doc["metadata"]["namespace"].as_str() {
            ensure_namespace(client, namespace).await?;
        }
        create(client, doc).await.map_err(|e| format!("applying {}: {e}", file.display()))?;
    }
    Ok(())
}

/// Creates the namespace `name` unless it exists.
pub async fn ensure_namespace(client: &Client, name: &str) -> Result<(), String> {
    let namespace = serde_json::json!({
        "apiVersion": "v1", "kind": "Namespace", "metadata": { "name": name },
    });
    create(client, namespace).await
}

/// Creates `object` (any kind the API server serves); one that exists already is left as it is.
pub async fn create(client: &Client, object: Value) -> Result<(), String> {
    let object: DynamicObject = serde_json::from_value(object).map_err(|e| e.to_string())?;
    let types = object.types.clone().ok_or("an object without apiVersion and kind")?;
    let (group, version) = match types.api_version.split_once('/') {
        Some((group, version)) => (group, version),
        None => ("", types.api_version.as_str()),
    };
    let gvk = GroupVersionKind::gvk(group, version, &types.kind);
    let (resource, capabilities) = discovery::pinned_kind(client, &gvk)
        .await
        .map_err(|e| format!("the API server does not serve {}/{}: {e}", types.api_version, types.kind))?;
    let api: Api<DynamicObject> = match capabilities.scope {
        Scope::Namespaced => {
            let namespace = object.metadata.namespace.as_deref().unwrap_or("default");
            Api::namespaced_with(client.clone(), namespace, &resource)
        }
        Scope::Cluster => Api::all_with(client.clone(), &resource),
    };
    match api.create(&PostParams::default(), &object).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.code == 409 => Ok(()),
        Err(e) => Err(format!("creating {} {:?}: {e}", types.kind, object.metadata.name)),
    }
}

/// Registers the webhook configurations of `config/webhook/manifests.yaml` (written by `make manifests`), each
/// webhook calling the test's server at `addr` at its path, trusting `ca`.
pub async fn register_webhooks(client: &Client, addr: SocketAddr, ca: &str) -> Result<(), String> {
    let file = project_root().join("config/webhook/manifests.yaml");
    if !file.is_file() {
        return Err(format!("{} is missing: run `make manifests` to write the webhook configurations", file.display()));
    }
    let path_of = |config: &WebhookClientConfig| {
        config.service.as_ref().and_then(|s| s.path.clone()).unwrap_or_else(|| "/".into())
    };
    for doc in documents(&file)? {
        let refused =
            |e: kube::Error| format!("the API server refused a webhook configuration of {}: {e}", file.display());
        match doc["kind"].as_str() {
            Some("MutatingWebhookConfiguration") => {
                let mut config: MutatingWebhookConfiguration =
                    serde_json::from_value(doc).map_err(|e| format!("{}: {e}", file.display()))?;
                for webhook in config.webhooks.iter_mut().flatten() {
                    webhook.client_config = client_config(addr, &path_of(&webhook.client_config), ca);
                }
                Api::<MutatingWebhookConfiguration>::all(client.clone())
                    .create(&PostParams::default(), &config)
                    .await
                    .map_err(refused)?;
            }
            Some("ValidatingWebhookConfiguration") => {
                let mut config: ValidatingWebhookConfiguration =
                    serde_json::from_value(doc).map_err(|e| format!("{}: {e}", file.display()))?;
                for webhook in config.webhooks.iter_mut().flatten() {
                    webhook.client_config = client_config(addr, &path_of(&webhook.client_config), ca);
                }
                Api::<ValidatingWebhookConfiguration>::all(client.clone())
                    .create(&PostParams::default(), &config)
                    .await
                    .map_err(refused)?;
            }
            _ => {}
        }
    }
    Ok(())
}
