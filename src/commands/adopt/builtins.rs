//! The built-in kinds an adopted operator reconciles: kubebuilder records a controller of a kind the project does not
//! define as a `core: true` resource, and `adopt` does the same for what the code's `Controller::new(Api<K>)` calls
//! reconcile, and, in an operator with no kinds and no `Controller` of its own (a reflector serving a cache of
//! Deployments), for what its watchers watch.

use crate::builtin::BuiltinGroup;
use crate::project::Resource;

/// One call the RBAC inference found: `(group, resource, call, "file:line")`.
pub(super) type Watch = (String, String, String, String);

/// A built-in kind the operator reconciles, with the call that shows it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Reconciled {
    /// The PROJECT entry (`core: true`, `controller: true`).
    pub(super) resource: Resource,
    /// `Controller::new at src/main.rs:12`.
    pub(super) why: String,
}

/// The built-in kinds of `watches` the operator reconciles (see the module's doc), once each, for Kubernetes
/// `minor`; `own_kinds` tells whether the operator declares kinds of its own.
pub(super) fn reconciled(watches: &[Watch], own_kinds: bool, minor: &str) -> Vec<Reconciled> {
    let is_controller = |w: &&Watch| w.2 == "Controller::new";
    let has_controller = watches.iter().any(|w| is_controller(&w));
    let reconciles = |w: &&Watch| {
        is_controller(w) || (!own_kinds && !has_controller && matches!(w.2.as_str(), "watcher" | "metadata_watcher"))
    };
    let mut out: Vec<Reconciled> = Vec::new();
    for (group, plural, call, place) in watches.iter().filter(reconciles) {
        let Some(builtin) = crate::builtin::by_resource(group, plural, minor) else { continue };
        let Some(named) = BuiltinGroup::resolve(group) else { continue };
        let r = &builtin.resource;
        if out.iter().any(|o| o.resource.kind == r.kind && o.resource.group == named.project_group) {
            continue;
        }
        out.push(Reconciled {
            resource: Resource {
                controller: true,
                core: true,
                domain: named.project_domain.clone(),
                group: named.project_group.clone(),
                kind: r.kind.clone(),
                path: builtin.module_path(),
                version: r.version.clone(),
                ..Resource::default()
            },
            why: format!("{call} at {place}"),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watch(group: &str, plural: &str, call: &str) -> Watch {
        (group.into(), plural.into(), call.into(), "src/main.rs:3".into())
    }

    #[test]
    fn controllers_of_built_ins_and_a_lone_reflector_are_reconciled() {
        let kinds = |w: &[Watch], own: bool| -> Vec<(String, String, String, String)> {
            reconciled(w, own, "1.33")
                .into_iter()
                .map(|r| (r.resource.group, r.resource.domain, r.resource.version, r.resource.kind))
                .collect()
        };
        let reflector = [watch("apps", "deployments", "watcher"), watch("apps", "deployments", "watcher")];
        assert_eq!(kinds(&reflector, false), [("apps".into(), "".into(), "v1".into(), "Deployment".into())]);
        assert!(
            kinds(&reflector, true).is_empty(),
            "an operator with kinds of its own: its watches are no controllers"
        );
        let controller =
            [watch("", "configmaps", "Controller::new"), watch("networking.k8s.io", "ingresses", "watcher")];
        assert_eq!(kinds(&controller, true), [("core".into(), "".into(), "v1".into(), "ConfigMap".into())]);
        assert_eq!(
            kinds(&[watch("networking.k8s.io", "ingresses", "Controller::new")], true),
            [("networking".into(), "k8s.io".into(), "v1".into(), "Ingress".into())]
        );
        assert!(kinds(&[watch("example.org", "widgets", "Controller::new")], true).is_empty(), "not a built-in");
    }
}
