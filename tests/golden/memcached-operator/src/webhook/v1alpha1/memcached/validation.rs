//! Validating webhook of `Memcached` (cache.example.com/v1alpha1): edit the `validate_*` functions.
//! `validate_delete` runs only if `delete` is added to the verbs of the marker below (kubebuilder's scaffold
//! registers `create;update`).

// +kubebuilder:webhook:path=/validate-cache-example-com-v1alpha1-memcached,mutating=false,failurePolicy=fail,sideEffects=None,groups=cache.example.com,resources=memcacheds,verbs=create;update,versions=v1alpha1,name=vmemcached-v1alpha1.kb.io,admissionReviewVersions=v1

use crate::api::v1alpha1::Memcached as Kind;
use kubesmith_runtime::webhook::{Denial, Validator, Warnings, Webhook};

/// Path of the validating webhook; must match the marker above.
pub const VALIDATE_PATH: &str = "/validate-cache-example-com-v1alpha1-memcached";

/// Longest `spec.foo` accepted by the example validation rule.
const FOO_MAX_LEN: usize = 63;

/// The validating webhook, listed in `registration()`.
pub(super) fn webhook() -> Webhook {
    Webhook::validating(
        VALIDATE_PATH,
        Validator {
            create: validate_create,
            update: validate_update,
            delete: validate_delete,
        },
    )
}

/// Validates a Memcached being created.
pub fn validate_create(obj: &Kind) -> Result<Warnings, Denial> {
    validate(obj)?;
    Ok(Warnings::new())
}

/// Validates an update from `old` to `new`.
pub fn validate_update(
    old: &Kind, // as stored
    new: &Kind, // as the update would store it
) -> Result<Warnings, Denial> {
    validate(new)?;
    let mut warnings = Warnings::new();
    if old.spec.foo != new.spec.foo {
        warnings.push(format!(
            "spec.foo changed from {:?} to {:?}",
            old.spec.foo.as_deref().unwrap_or_default(),
            new.spec.foo.as_deref().unwrap_or_default()
        ));
    }
    Ok(warnings)
}

/// Validates a Memcached being deleted (runs only with `delete` in the validating marker's verbs).
pub fn validate_delete(_obj: &Kind) -> Result<Warnings, Denial> {
    Ok(Warnings::new())
}

/// Rules shared by create and update.
fn validate(obj: &Kind) -> Result<(), Denial> {
    if let Some(value) = &obj.spec.foo {
        let len = value.chars().count();
        if len > FOO_MAX_LEN {
            return Err(Denial::invalid(
                "spec.foo",
                format!("must be no more than {FOO_MAX_LEN} characters, got {len}"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::v1alpha1::MemcachedSpec as KindSpec;
    use kubesmith_runtime::webhook::WebhookRegistration;

    /// The least spec the schema accepts, with `foo`.
    fn object(foo: Option<&str>) -> Kind {
        let mut spec = serde_json::json!({});
        if let Some(foo) = foo {
            spec["foo"] = serde_json::json!(foo);
        }
        let spec: KindSpec = serde_json::from_value(spec).expect("a valid spec");
        Kind::new("sample", spec)
    }

    #[test]
    fn long_foo_is_denied_with_its_message() {
        let denial = validate_create(&object(Some(&"x".repeat(64)))).expect_err("denied");
        assert_eq!(
            denial.message,
            "spec.foo: Invalid value: must be no more than 63 characters, got 64"
        );
        assert_eq!(denial.code, 422);
        assert_eq!(
            validate_create(&object(Some(&"x".repeat(63)))),
            Ok(Vec::new())
        );
        let update = validate_update(&object(None), &object(Some(&"é".repeat(70))));
        assert!(update.is_err());
    }

    #[test]
    fn changing_foo_warns_on_update() {
        let warnings = validate_update(&object(Some("a")), &object(Some("b"))).expect("allowed");
        assert_eq!(warnings, ["spec.foo changed from \"a\" to \"b\""]);
        let unchanged = validate_update(&object(Some("a")), &object(Some("a"))).expect("allowed");
        assert!(unchanged.is_empty());
        assert_eq!(validate_delete(&object(None)), Ok(Vec::new()));
    }

    #[test]
    fn webhook_is_validating_at_its_path() {
        let registration = WebhookRegistration::new("test", vec![webhook()]);
        assert_eq!(registration.admission_paths(), [(VALIDATE_PATH, false)]);
    }
}
