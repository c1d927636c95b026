//! The chart's `values.yaml` tree, with the schema of every value (`values.schema.json`): what each feature of
//! the rendered objects lets users switch or tune, with the defaults the objects had.

use serde_json::json;

use super::manager::ManagerValues;
use super::{Ctx, values};
use crate::helm::values::Entry;

pub(super) fn values_tree(ctx: &Ctx, manager: Option<ManagerValues>) -> Vec<Entry> {
    use values::{array, boolean, integer, object, one_of, string, string_map};
    let f = &ctx.features;
    let port = || integer(1, 65535);
    let mut tree = vec![
        Entry::leaf(
            "nameOverride",
            "Replaces the chart's name in the names of objects (<release>-<nameOverride>-...).",
            json!(""),
            string(),
        ),
        Entry::leaf(
            "fullnameOverride",
            "Replaces the prefix of every object's name. By default objects are named <release>-...\n\
             (or <release>-<chart>-... when the release's name does not contain the chart's).",
            json!(""),
            string(),
        ),
    ];
    if let Some(m) = manager {
        tree.push(Entry::map(
            "manager",
            "The manager Deployment.",
            vec![
                Entry::leaf("replicas", "Number of manager pods; one leads at a time when leader election is on.", m.replicas, integer(0, 1000)),
                Entry::map(
                    "image",
                    "",
                    vec![
                        Entry::leaf("repository", "", json!(m.repository), json!({"type": "string", "minLength": 1})),
                        Entry::leaf("tag", "Defaults to the chart's appVersion.", json!(m.tag), string()),
                        Entry::leaf("digest", "When set (sha256:...), the image is pulled by digest and tag is ignored.", json!(m.digest), string()),
                        Entry::leaf(
                            "pullPolicy",
                            "Always, IfNotPresent or Never; empty: Kubernetes' default (IfNotPresent, Always for :latest).",
                            json!(m.pull_policy),
                            one_of(&["", "Always", "IfNotPresent", "Never"]),
                        ),
                    ],
                ),
                Entry::leaf(
                    "imagePullSecrets",
                    "Secrets for pulling the image from a private registry, e.g. [{name: regcred}].",
                    m.image_pull_secrets,
                    array(json!({"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}})),
                ),
                Entry::leaf("extraArgs", "Flags added to the manager's command line, e.g. [--log-level=debug].", json!([]), array(string())),
                Entry::leaf(
                    "extraEnv",
                    "Environment variables added to the manager container, e.g. [{name: RUST_LOG, value: debug}].",
                    json!([]),
                    array(json!({"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}})),
                ),
                Entry::leaf("resources", "CPU and memory requests and limits of the manager container.", m.resources, object()),
                Entry::leaf("podSecurityContext", "Security context of the pod (the restricted Pod Security Standard by default).", m.pod_security_context, object()),
                Entry::leaf("securityContext", "Security context of the manager container.", m.security_context, object()),
                Entry::leaf("nodeSelector", "", m.node_selector, string_map()),
                Entry::leaf("tolerations", "", m.tolerations, array(object())),
                Entry::leaf("affinity", "", m.affinity, object()),
                Entry::leaf("podAnnotations", "Annotations added to the manager pods.", json!({}), string_map()),
                Entry::leaf("podLabels", "Labels added to the manager pods.", json!({}), string_map()),
            ],
        ));
    }
    if f.service_account {
        tree.push(Entry::map(
            "serviceAccount",
            "The ServiceAccount the manager runs as.",
            vec![
                Entry::leaf(
                    "create",
                    "Create it; when false, name an existing one (or the namespace's default is used).",
                    json!(true),
                    boolean(),
                ),
                Entry::leaf("name", "Its name; empty: <fullname>-controller-manager.", json!(""), string()),
                Entry::leaf(
                    "annotations",
                    "Annotations of the ServiceAccount (e.g. a cloud IAM role).",
                    json!({}),
                    string_map(),
                ),
            ],
        ));
    }
    let mut rbac = vec![Entry::leaf(
        "create",
        "Create the manager's roles and bindings (and every other role below); when false, grant the\n\
         ServiceAccount what config/rbac grants yourself.",
        json!(true),
        boolean(),
    )];
    if f.helper_roles {
        rbac.push(Entry::leaf(
            "helperRoles",
            "The admin, editor and viewer ClusterRoles of each API, for administrators to bind to users.",
            json!(true),
            boolean(),
        ));
    }
    tree.push(Entry::map("rbac", "", rbac));
    if f.leader_election {
        tree.push(Entry::map(
            "leaderElection",
            "",
            vec![Entry::leaf(
                "enable",
                "Hold a Lease so that one replica reconciles at a time (--leader-elect and its Role).",
                json!(true),
                boolean(),
            )],
        ));
    }
    if let Some((port_default, on)) = f.metrics {
        tree.push(Entry::map(
            "metrics",
            "The metrics endpoint (HTTPS, with authentication and authorization of every scrape).",
            vec![
                Entry::leaf("enable", "Serve metrics, with their Service and RBAC.", json!(on), boolean()),
                Entry::leaf("port", "", json!(port_default), port()),
            ],
        ));
    }
    if let Some(on) = f.prometheus {
        tree.push(Entry::map(
            "prometheus",
            "",
            vec![Entry::leaf(
                "enable",
                "A ServiceMonitor for the Prometheus Operator (its CRDs must be installed).",
                json!(on),
                boolean(),
            )],
        ));
    }
    if let Some(p) = f.webhook_port {
        tree.push(Entry::map(
            "webhook",
            "The admission and conversion webhooks.",
            vec![
                Entry::leaf(
                    "enable",
                    "Serve the webhooks: configurations, Service and the server's port and certificate.",
                    json!(true),
                    boolean(),
                ),
                Entry::leaf("port", "", json!(p), port()),
            ],
        ));
    }
    if f.cert_manager {
        tree.push(Entry::map(
            "certManager",
            "",
            vec![Entry::leaf(
                "enable",
                "Issue the serving certificates with cert-manager (Issuer, Certificates, CA injection).",
                json!(true),
                boolean(),
            )],
        ));
    }
    if f.crds {
        tree.push(Entry::map(
            "crds",
            "The CustomResourceDefinitions.",
            vec![
                Entry::leaf("install", "Install and upgrade them with the chart.", json!(true), boolean()),
                Entry::leaf(
                    "keep",
                    "Keep them (and every custom resource) when the release is uninstalled.",
                    json!(true),
                    boolean(),
                ),
            ],
        ));
    }
    if let Some(on) = f.network_policy {
        tree.push(Entry::map(
            "networkPolicy",
            "",
            vec![Entry::leaf(
                "enable",
                "NetworkPolicies admitting only metrics scrapes and webhook calls (needs a CNI that enforces them).",
                json!(on),
                boolean(),
            )],
        ));
    }
    if f.namespace {
        tree.push(Entry::map(
            "namespace",
            "",
            vec![Entry::leaf(
                "create",
                "Create the release namespace with the chart (as config/default does); leave false with\n\
                 `helm install --create-namespace`.",
                json!(false),
                boolean(),
            )],
        ));
    }
    tree
}
