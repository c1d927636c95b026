//! Small helpers of the chart builder: splitting names around separators, the port of a bind address.

use super::*;

#[test]
fn split_keeps_separators() {
    assert_eq!(split_keeping("a-b.ns.svc"), vec!["a-b", ".", "ns", ".", "svc"]);
    assert_eq!(split_keeping("ns/cert"), vec!["ns", "/", "cert"]);
    assert_eq!(split_keeping("--x=ns"), vec!["--x", "=", "ns"]);
}

#[test]
fn bind_ports() {
    assert_eq!(bind_port(":8443"), Some(8443));
    assert_eq!(bind_port("0.0.0.0:8080"), Some(8080));
    assert_eq!(bind_port("0"), None);
}
