//! Entry point of memcached-operator: parse flags, set up logging, run the manager with all controllers and webhooks.
use clap::Parser;

use memcached_operator::manager::{self, Manager, Options, Registration};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let opts = Options::parse();
    manager::init_logging(&opts)?;
    let controllers: Vec<Registration> = vec![
        memcached_operator::controller::memcached::registration(),
        memcached_operator::controller::cluster::registration(),
        memcached_operator::controller::r#match::registration(),
        // +kubesmith:scaffold:controllers
    ];
    let webhooks = memcached_operator::webhook::registrations();
    Manager::new(opts).run(controllers, webhooks).await
}
