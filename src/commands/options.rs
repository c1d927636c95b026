//! The flags of `init`, `create api` and `create webhook` as the typed options of their operations (`crate::ops`).

use crate::cli::{CreateApiArgs, CreateWebhookArgs, InitArgs, License, RuntimeSource};
use crate::ops::{create_api, create_webhook, deploy_image, init};

pub(crate) fn init(a: &InitArgs) -> init::Options {
    init::Options {
        domain: a.domain.clone(),
        project_name: a.project_name.clone(),
        repo: a.repo.clone(),
        owner: a.owner.clone(),
        apache2: a.license == License::Apache2,
        copyright_year: a.copyright_year,
        k8s_version: a.k8s_version.dotted(),
        multigroup: a.multigroup,
        namespaced: a.namespaced,
        runtime_vendored: a.runtime == RuntimeSource::Vendored,
        plugins: a.plugins.clone(),
        force: a.force,
    }
}

pub(crate) fn create_api(a: &CreateApiArgs) -> create_api::Options {
    create_api::Options {
        group: a.group.clone(),
        version: a.version.clone(),
        kind: a.kind.clone(),
        plural: a.plural.clone(),
        namespaced: a.namespaced,
        resource: a.resource,
        controller: a.controller,
        external_api_path: a.external_api_path.clone(),
        external_api_crate: a.external_api_crate.clone(),
        external_api_domain: a.external_api_domain.clone(),
        force: a.force,
        image: deploy_image::ImageFlags {
            image: a.image.clone(),
            image_container_command: a.image_container_command.clone(),
            image_container_port: a.image_container_port.clone(),
            run_as_user: a.run_as_user.clone(),
        },
    }
}

pub(crate) fn create_webhook(a: &CreateWebhookArgs) -> create_webhook::Options {
    create_webhook::Options {
        group: a.group.clone(),
        version: a.version.clone(),
        kind: a.kind.clone(),
        defaulting: a.defaulting,
        programmatic_validation: a.programmatic_validation,
        conversion: a.conversion,
        spoke: a.spoke.clone(),
        external_api_path: a.external_api_path.clone(),
        external_api_crate: a.external_api_crate.clone(),
        external_api_domain: a.external_api_domain.clone(),
        force: a.force,
    }
}
