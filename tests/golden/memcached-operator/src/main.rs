//! Entry point of memcached-operator: parse flags, set up logging, run the manager with all controllers and servers.
use kubesmith_runtime::manager::{self, Manager, Options, Registration};

use memcached_operator::OPERATOR;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let opts = Options::parse_for(&OPERATOR);
    manager::init_logging(&opts)?;
    let controllers: Vec<Registration> = vec![
        memcached_operator::controller::memcached::registration(),
        memcached_operator::controller::cluster::registration(),
        memcached_operator::controller::r#match::registration(),
        // +kubesmith:scaffold:controllers
    ];
    let manager = Manager::new(OPERATOR, opts);
    let manager = manager.with_server(memcached_operator::webhook::server());
    // +kubesmith:scaffold:servers
    manager.run(controllers).await
}
