//! Operations: what commands do and share — generating manifests, scaffolding an API or a webhook, replaying a
//! project — each a plan computed from typed inputs; `commands` parses, calls these, prints. Nothing here imports
//! `commands`.

pub(crate) mod api_context;
pub(crate) mod create_api;
pub(crate) mod create_webhook;
pub(crate) mod deploy_image;
pub(crate) mod docs;
pub(crate) mod edit_namespaced;
pub(crate) mod edit_plugins;
pub(crate) mod findings;
pub(crate) mod foreign;
pub(crate) mod from_crd;
pub(crate) mod helm;
pub(crate) mod init;
pub(crate) mod manifests;
pub(crate) mod rbac_infer;
pub(crate) mod replay;
pub(crate) mod scaffold;
pub(crate) mod write;
