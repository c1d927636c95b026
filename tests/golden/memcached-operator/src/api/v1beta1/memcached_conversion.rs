//! Conversion of `Memcached` between this spoke version (v1beta1) and the hub, v1alpha1 (the storage version).
//!
//! The conversion webhook (`POST /convert`) converts every object to the hub and from there to the version the
//! API server asked for, so a round trip must lose nothing: map every field, and keep in annotations what the
//! other version cannot express. The struct literals have no `..`, so a field added to a version fails to
//! compile here until it is mapped; the round-trip tests below catch a field that is dropped.
use super::Memcached;
use super::MemcachedSpec;
use super::MemcachedStatus;
use crate::api::v1alpha1::Memcached as Hub;
use crate::api::v1alpha1::MemcachedSpec as HubSpec;
use crate::api::v1alpha1::MemcachedStatus as HubStatus;

impl From<Memcached> for Hub {
    fn from(spoke: Memcached) -> Self {
        let Memcached {
            metadata,
            spec,
            status,
        } = spoke;
        Self {
            metadata,
            spec: spec.into(),
            status: status.map(Into::into),
        }
    }
}

impl From<Hub> for Memcached {
    fn from(hub: Hub) -> Self {
        let Hub {
            metadata,
            spec,
            status,
        } = hub;
        Self {
            metadata,
            spec: spec.into(),
            status: status.map(Into::into),
        }
    }
}

impl From<MemcachedSpec> for HubSpec {
    fn from(spec: MemcachedSpec) -> Self {
        Self { foo: spec.foo }
    }
}

impl From<HubSpec> for MemcachedSpec {
    fn from(spec: HubSpec) -> Self {
        Self { foo: spec.foo }
    }
}

impl From<MemcachedStatus> for HubStatus {
    fn from(status: MemcachedStatus) -> Self {
        let MemcachedStatus {
            conditions,
            observed_generation,
        } = status;
        Self {
            conditions,
            observed_generation,
        }
    }
}

impl From<HubStatus> for MemcachedStatus {
    fn from(status: HubStatus) -> Self {
        let HubStatus {
            conditions,
            observed_generation,
        } = status;
        Self {
            conditions,
            observed_generation,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn hub_object() -> Hub {
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
        assert_eq!(Hub::from(spoke), original);
    }

    #[test]
    fn spoke_to_hub_to_spoke_loses_nothing() {
        let spoke = Memcached::from(hub_object());
        let round_trip = Memcached::from(Hub::from(spoke.clone()));
        assert_eq!(round_trip, spoke);
        let empty = Memcached::default();
        let round_trip = Memcached::from(Hub::from(empty.clone()));
        assert_eq!(round_trip, empty);
    }
}
