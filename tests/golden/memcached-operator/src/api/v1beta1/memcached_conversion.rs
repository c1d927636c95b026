//! Conversion of `Memcached` between this spoke version (v1beta1) and the hub, v1alpha1 (the storage version).
//!
//! The conversion webhook (`POST /convert`) converts every object to the hub and from there to the version the
//! API server asked for, so a round trip must lose nothing: map every field, and keep in annotations what the
//! other version cannot express. The struct literals have no `..`, so a field added to a version fails to
//! compile here until it is mapped; the round-trip tests below catch a field that is dropped.
use super::{Memcached, MemcachedSpec, MemcachedStatus};
use crate::api::v1alpha1 as hub;

impl From<Memcached> for hub::Memcached {
    fn from(spoke: Memcached) -> Self {
        let Memcached {
            metadata,
            spec,
            status,
        } = spoke;
        hub::Memcached {
            metadata,
            spec: spec.into(),
            status: status.map(Into::into),
        }
    }
}

impl From<hub::Memcached> for Memcached {
    fn from(hub: hub::Memcached) -> Self {
        let hub::Memcached {
            metadata,
            spec,
            status,
        } = hub;
        Memcached {
            metadata,
            spec: spec.into(),
            status: status.map(Into::into),
        }
    }
}

impl From<MemcachedSpec> for hub::MemcachedSpec {
    fn from(spec: MemcachedSpec) -> Self {
        hub::MemcachedSpec { foo: spec.foo }
    }
}

impl From<hub::MemcachedSpec> for MemcachedSpec {
    fn from(spec: hub::MemcachedSpec) -> Self {
        MemcachedSpec { foo: spec.foo }
    }
}

impl From<MemcachedStatus> for hub::MemcachedStatus {
    fn from(status: MemcachedStatus) -> Self {
        let MemcachedStatus {
            conditions,
            observed_generation,
        } = status;
        hub::MemcachedStatus {
            conditions,
            observed_generation,
        }
    }
}

impl From<hub::MemcachedStatus> for MemcachedStatus {
    fn from(status: hub::MemcachedStatus) -> Self {
        let hub::MemcachedStatus {
            conditions,
            observed_generation,
        } = status;
        MemcachedStatus {
            conditions,
            observed_generation,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn hub_object() -> hub::Memcached {
        serde_json::from_value(json!({
            "apiVersion": "cache.example.com/v1alpha1",
            "kind": "Memcached",
            "metadata": {
                "name": "sample", "namespace": "default", "uid": "6a1c2f5e-0000-4000-8000-000000000001",
                "resourceVersion": "42", "generation": 3, "creationTimestamp": "2026-01-02T03:04:05Z",
                "labels": {"app": "memcached"}, "annotations": {"note": "keep"},
                "finalizers": ["memcacheds.cache.example.com/finalizer"],
            },
            "spec": {"foo": "bar"},
            "status": {
                "observedGeneration": 3,
                "conditions": [{"type": "Available", "status": "True", "reason": "Reconciled",
                                "message": "ok", "lastTransitionTime": "2026-01-02T03:04:06Z", "observedGeneration": 3}],
            },
        }))
        .expect("valid hub object")
    }

    #[test]
    fn hub_to_spoke_to_hub_loses_nothing() {
        let original = hub_object();
        let spoke = Memcached::from(original.clone());
        assert_eq!(spoke.metadata, original.metadata);
        assert_eq!(hub::Memcached::from(spoke), original);
    }

    #[test]
    fn spoke_to_hub_to_spoke_loses_nothing() {
        let spoke = Memcached::from(hub_object());
        assert_eq!(Memcached::from(hub::Memcached::from(spoke.clone())), spoke);
        let empty = Memcached::default();
        assert_eq!(Memcached::from(hub::Memcached::from(empty.clone())), empty);
    }
}
