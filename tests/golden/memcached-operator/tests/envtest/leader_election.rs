//! The manager's own use of the API server, as its ServiceAccount: leader election on a Lease in its namespace
//! (what `config/rbac/leader_election_role.yaml` grants).

use crate::support::{self, Forbidden};

use kubesmith_runtime::manager::leader::LeaderElector;

#[tokio::test]
async fn replicas_elect_one_leader_on_a_lease_in_the_manager_namespace() {
    let Some(env) = support::env() else { return };
    let forbidden = Forbidden::default();
    let elector = |identity: &str| {
        LeaderElector::new(
            env.manager(&forbidden),
            &env.manager_namespace,
            memcached_operator::OPERATOR.leader_election_id,
            identity.to_string(),
        )
    };
    let (first, second) = (elector("replica-a"), elector("replica-b"));
    let acquired = first.try_acquire_or_renew().await;
    forbidden.assert_none("leader election");
    assert!(
        acquired.expect("the lease is created"),
        "the first replica leads"
    );
    assert!(
        !second
            .try_acquire_or_renew()
            .await
            .expect("the lease is read")
    );
    assert!(
        first
            .try_acquire_or_renew()
            .await
            .expect("the lease is renewed")
    );
    first.release().await.expect("the lease is released");
    assert!(
        second
            .try_acquire_or_renew()
            .await
            .expect("the lease is taken over"),
        "a released lease goes to the next replica at once"
    );
    forbidden.assert_none("leader election");
}
