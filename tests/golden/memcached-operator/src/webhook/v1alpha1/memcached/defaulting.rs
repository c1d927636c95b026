//! Defaulting (mutating) webhook of `Memcached` (cache.example.com/v1alpha1): edit [`default`]; its changes are
//! sent back to the API server as a JSON Patch.

// +kubebuilder:webhook:path=/mutate-cache-example-com-v1alpha1-memcached,mutating=true,failurePolicy=fail,sideEffects=None,groups=cache.example.com,resources=memcacheds,verbs=create;update,versions=v1alpha1,name=mmemcached-v1alpha1.kb.io,admissionReviewVersions=v1

use crate::api::v1alpha1::Memcached as Kind;
use kubesmith_runtime::webhook::Webhook;

/// Path of the defaulting (mutating) webhook; must match the marker above.
pub const MUTATE_PATH: &str = "/mutate-cache-example-com-v1alpha1-memcached";

/// The defaulting webhook, listed in `registration()`.
pub(super) fn webhook() -> Webhook {
    Webhook::defaulting(MUTATE_PATH, default)
}

/// Sets defaults on a Memcached being created or updated.
pub fn default(obj: &mut Kind) {
    if obj.spec.foo.is_none() {
        obj.spec.foo = Some("default".into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::v1alpha1::MemcachedSpec as KindSpec;
    use kubesmith_runtime::webhook::{WebhookRegistration, defaulting_patch};
    use serde_json::json;

    #[test]
    fn defaulting_patch_applied_to_the_original_gives_the_defaulted_object() {
        let raw = json!({
            "apiVersion": "cache.example.com/v1alpha1",
            "kind": "Memcached",
            "metadata": {"name": "sample", "namespace": "default", "labels": {"app": "x"}},
            "spec": {},
        });
        let patch = defaulting_patch(&raw, default).expect("patch");
        assert_eq!(
            serde_json::to_value(&patch).expect("json"),
            json!([{"op": "add", "path": "/spec/foo", "value": "default"}])
        );
        let mut patched = raw.clone();
        json_patch::patch(&mut patched, &patch).expect("applies");
        let mut expected = raw;
        expected["spec"]["foo"] = json!("default");
        assert_eq!(patched, expected);
    }

    #[test]
    fn defaulting_keeps_a_set_value() {
        let mut spec = json!({});
        spec["foo"] = json!("mine");
        let spec: KindSpec = serde_json::from_value(spec).expect("a valid spec");
        let obj = Kind::new("sample", spec);
        let raw = serde_json::to_value(obj).expect("json");
        let patch = defaulting_patch(&raw, default).expect("patch");
        assert!(patch.0.is_empty());
    }

    #[test]
    fn webhook_is_mutating_at_its_path() {
        let registration = WebhookRegistration::new("test", vec![webhook()]);
        assert_eq!(registration.admission_paths(), [(MUTATE_PATH, true)]);
    }
}
