//! Records every request the API server refuses with `403 Forbidden`, as the RBAC rule it would have needed, so
//! a test fails naming the rule missing from `config/rbac/role.yaml` instead of timing out.

use futures::future::BoxFuture;
use http::{Method, Request, Response, StatusCode, Uri};
use kube::client::Body;
use std::{
    sync::{Arc, Mutex},
    task::{Context, Poll},
};
use tower::{Layer, Service};

/// The refused requests of one client (a [`Layer`] of its service stack); clones share the record.
#[derive(Clone, Default)]
pub struct Forbidden(Arc<Mutex<Vec<String>>>);

impl Forbidden {
    /// The rules refused so far, one line each.
    pub fn rules(&self) -> Vec<String> {
        self.0.lock().expect("forbidden record").clone()
    }

    /// Panics with every refused rule, if any.
    pub fn assert_none(&self, who: &str) {
        let rules = self.rules();
        assert!(
            rules.is_empty(),
            "the API server refused {who} (403 Forbidden) as the manager's ServiceAccount; the manager's role \
             (config/rbac/role.yaml, from the `// +kubebuilder:rbac` markers) lacks:\n{}\nadd the marker and run \
             `make manifests`",
            rules.join("\n")
        );
    }

    fn record(&self, rule: String) {
        let mut rules = self.0.lock().expect("forbidden record");
        if !rules.contains(&rule) {
            rules.push(rule);
        }
    }
}

impl<S> Layer<S> for Forbidden {
    type Service = Recording<S>;

    fn layer(&self, inner: S) -> Recording<S> {
        Recording { inner, forbidden: self.clone() }
    }
}

/// The service [`Forbidden`] wraps around a client's stack.
#[derive(Clone)]
pub struct Recording<S> {
    inner: S,
    forbidden: Forbidden,
}

impl<S, B> Service<Request<Body>> for Recording<S>
where
    S: Service<Request<Body>, Response = Response<B>>,
    S::Future: Send + 'static,
{
    type Response = Response<B>;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<Response<B>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        let rule = rule_of(request.method(), request.uri());
        let forbidden = self.forbidden.clone();
        let response = self.inner.call(request);
        Box::pin(async move {
            let response = response.await?;
            if response.status() == StatusCode::FORBIDDEN {
                forbidden.record(rule);
            }
            Ok(response)
        })
    }
}

/// The RBAC rule a request needs, as a marker would grant it, with the request itself:
/// `groups=apps,resources=deployments,verbs=patch (PATCH /apis/apps/v1/namespaces/a/deployments/b)`.
pub fn rule_of(method: &Method, uri: &Uri) -> String {
    let path = uri.path();
    let request = format!("{method} {path}");
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (group, rest) = match segments.as_slice() {
        ["api", _version, rest @ ..] => ("", rest),
        ["apis", group, _version, rest @ ..] => (*group, rest),
        _ => return format!("the non-resource URL {path} ({request})"),
    };
    let rest = match rest {
        ["namespaces", _namespace, rest @ ..] if !rest.is_empty() => rest,
        _ => rest,
    };
    let (resource, name) = match rest {
        [resource] => (resource.to_string(), false),
        [resource, _name] => (resource.to_string(), true),
        [resource, _name, subresource, ..] => (format!("{resource}/{subresource}"), true),
        _ => return format!("an unexpected request ({request})"),
    };
    let watch = uri.query().is_some_and(|q| q.split('&').any(|kv| kv == "watch=true" || kv == "watch=1"));
    let verb = match (method, name) {
        (&Method::GET, true) => "get",
        (&Method::GET, false) if watch => "watch",
        (&Method::GET, false) => "list",
        (&Method::POST, _) => "create",
        (&Method::PUT, _) => "update",
        (&Method::PATCH, _) => "patch",
        (&Method::DELETE, true) => "delete",
        (&Method::DELETE, false) => "deletecollection",
        _ => "?",
    };
    format!("groups={group},resources={resource},verbs={verb} ({request})")
}

#[test]
fn rules_name_group_resource_and_verb() {
    let rule = |method: Method, uri: &str| rule_of(&method, &uri.parse().expect("uri"));
    assert_eq!(
        rule(Method::PATCH, "/apis/apps/v1/namespaces/a/deployments/b"),
        "groups=apps,resources=deployments,verbs=patch (PATCH /apis/apps/v1/namespaces/a/deployments/b)"
    );
    assert_eq!(
        rule(Method::GET, "/api/v1/namespaces/a/pods?watch=true&x=1"),
        "groups=,resources=pods,verbs=watch (GET /api/v1/namespaces/a/pods)"
    );
    assert_eq!(
        rule(Method::GET, "/apis/example.com/v1/things"),
        "groups=example.com,resources=things,verbs=list (GET /apis/example.com/v1/things)"
    );
    assert_eq!(
        rule(Method::PATCH, "/apis/example.com/v1/things/t/status"),
        "groups=example.com,resources=things/status,verbs=patch (PATCH /apis/example.com/v1/things/t/status)"
    );
    assert_eq!(
        rule(Method::GET, "/api/v1/namespaces/team-a"),
        "groups=,resources=namespaces,verbs=get (GET /api/v1/namespaces/team-a)"
    );
}
