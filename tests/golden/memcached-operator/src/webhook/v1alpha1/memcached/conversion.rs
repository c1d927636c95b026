//! Conversion webhook of `Memcached` (cache.example.com): v1alpha1 is the hub (the storage version), and every
//! spoke converts to and from it with the `From` impls in `src/api/<spoke>/memcached_conversion.rs`.
use crate::api::v1alpha1::Memcached as Kind;
use kubesmith_runtime::webhook::{Conversion, Webhook};

/// The conversion webhook (`POST /convert`), listed in `registration()`; one line per spoke version.
pub(super) fn webhook() -> Webhook {
    let conversion = Conversion::<Kind>::hub();
    let conversion = conversion.spoke::<crate::api::v1beta1::Memcached>();
    // +kubesmith:scaffold:conversion-spokes
    Webhook::conversion(conversion)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubesmith_runtime::webhook::{WebhookRegistration, router};

    #[test]
    fn webhook_registers_the_hub_and_its_spokes() {
        let registration = WebhookRegistration::new("test", vec![webhook()]);
        assert!(registration.has_conversion());
        assert!(router(vec![registration]).is_ok());
    }
}
