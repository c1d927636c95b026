//! Whose kinds are these: which `#[derive(CustomResource)]` kinds of an adopted crate are the project's own (CRD,
//! sample and roles generated, shipped in bundles) and which are other projects' APIs the operator only uses as a
//! client (recorded as external APIs). Decided from evidence, each decision with its reason.

use std::collections::BTreeMap;

use crate::crd::kinds::KindDecl;
use crate::usage::UsageError;

use super::shipped::ShippedCrd;

/// Domains of well-known projects whose APIs operators use without owning them: a kind in one of these groups is
/// external unless the repository ships its CRD or reconciles it.
const FOREIGN_DOMAINS: &[&str] = &[
    "k8s.io",
    "x-k8s.io",
    "knative.dev",
    "coreos.com",
    "cert-manager.io",
    "istio.io",
    "linkerd.io",
    "k8s.aws",
    "cnrm.cloud.google.com",
    "azure.com",
    "fluxcd.io",
    "argoproj.io",
    "crossplane.io",
    "openshift.io",
    "traefik.io",
    "traefik.containo.us",
    "projectcalico.org",
    "cilium.io",
    "keda.sh",
    "kyverno.io",
    "operators.coreos.com",
];

/// What `adopt` knows about the kinds.
pub struct Evidence<'a> {
    /// CRDs the repository ships.
    pub shipped: &'a [ShippedCrd],
    /// Resources a `Controller` reconciles as its primary: `(group, plural, "file:line")`.
    pub primaries: &'a [(String, String, String)],
    /// `--owned`.
    pub owned: &'a [String],
    /// `--external`.
    pub external: &'a [String],
    /// `--domain`.
    pub domain: Option<&'a str>,
}

/// The decision on one kind (all its versions).
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub group: String,
    pub kind: String,
    pub owned: bool,
    pub reason: String,
}

/// One decision per group and kind, in the order the kinds were found. A `--owned`/`--external` value naming no
/// kind, or a kind named by both, is a usage error.
pub fn decide(kinds: &[KindDecl], ev: &Evidence<'_>) -> Result<Vec<Decision>, UsageError> {
    let mut unique: Vec<&KindDecl> = Vec::new();
    for k in kinds {
        if !unique.iter().any(|u| u.group == k.group && u.kind == k.kind) {
            unique.push(k);
        }
    }
    let names = |k: &KindDecl| [k.kind.clone(), format!("{}.{}", k.kind, k.group), format!("{}.{}", k.plural, k.group)];
    let mut flagged: BTreeMap<(String, String), bool> = BTreeMap::new();
    for (values, owned, flag) in [(ev.owned, true, "--owned"), (ev.external, false, "--external")] {
        for v in values {
            let hits: Vec<&&KindDecl> = unique.iter().filter(|k| names(k).contains(v)).collect();
            if hits.is_empty() {
                let known: Vec<String> = unique.iter().map(|k| format!("{} ({})", k.kind, k.group)).collect();
                return Err(UsageError(format!(
                    "{flag} {v}: no kind of the crate has that name (name a kind as `Kind`, `Kind.group` or \
                     `plural.group`; the kinds are: {})",
                    known.join(", ")
                )));
            }
            for k in hits {
                let key = (k.group.clone(), k.kind.clone());
                if flagged.insert(key, owned).is_some_and(|before| before != owned) {
                    return Err(UsageError(format!(
                        "{} ({}) is named by both --owned and --external: name it in one of them",
                        k.kind, k.group
                    )));
                }
            }
        }
    }

    // Strong evidence: a flag, a shipped CRD, a Controller reconciling the kind.
    let strong = |k: &KindDecl| -> Option<(bool, String)> {
        if let Some(&owned) = flagged.get(&(k.group.clone(), k.kind.clone())) {
            return Some((owned, if owned { "--owned" } else { "--external" }.to_string()));
        }
        if let Some(s) = ev.shipped.iter().find(|s| s.group == k.group && s.kind == k.kind) {
            return Some((true, format!("the repository ships its CRD ({})", s.file.display())));
        }
        if let Some((_, _, at)) = ev.primaries.iter().find(|(g, p, _)| *g == k.group && *p == k.plural) {
            return Some((true, format!("a Controller reconciles it ({at})")));
        }
        None
    };
    let home: Vec<String> = match ev.domain {
        Some(d) if !d.is_empty() => vec![d.to_string()],
        _ => {
            let mut h: Vec<String> = unique
                .iter()
                .filter(|k| strong(k).is_some_and(|(owned, _)| owned))
                .map(|k| parent_domain(&k.group))
                .collect();
            h.sort();
            h.dedup();
            h
        }
    };
    let in_domain = |group: &str, d: &str| group == d || group.ends_with(&format!(".{d}"));
    let anything_shipped_or_reconciled = !ev.shipped.is_empty() || !ev.primaries.is_empty();

    Ok(unique
        .iter()
        .map(|k| {
            let (owned, reason) = match strong(k) {
                Some(found) => found,
                None => match home.iter().find(|d| in_domain(&k.group, d)) {
                    Some(d) => (true, format!("its group is in the project's domain {d}")),
                    None if !home.is_empty() => (
                        false,
                        format!(
                            "its group {} is outside the project's domain ({}), {}",
                            k.group,
                            home.join(", "),
                            if anything_shipped_or_reconciled {
                                "the repository ships no CRD for it and no Controller reconciles it"
                            } else {
                                "which --domain sets"
                            }
                        ),
                    ),
                    None => match FOREIGN_DOMAINS.iter().find(|d| in_domain(&k.group, d)) {
                        Some(d) => (false, format!("its group {} belongs to a well-known project ({d})", k.group)),
                        None => (
                            true,
                            "nothing says otherwise (the repository ships no CRD YAML and no Controller reconciles \
                             one of its kinds)"
                                .to_string(),
                        ),
                    },
                },
            };
            Decision { group: k.group.clone(), kind: k.kind.clone(), owned, reason }
        })
        .collect())
}

/// The domain a project's group sits in: `fleet.example.org` → `example.org`; a group of two labels or fewer is its
/// own domain.
fn parent_domain(group: &str) -> String {
    match group.split_once('.') {
        Some((_, rest)) if rest.contains('.') => rest.to_string(),
        _ => group.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn kind(group: &str, kind: &str) -> KindDecl {
        KindDecl {
            group: group.into(),
            version: "v1".into(),
            kind: kind.into(),
            plural: format!("{}s", kind.to_ascii_lowercase()),
            namespaced: true,
            storage: true,
            path: None,
            public: true,
            file: PathBuf::from("src/lib.rs"),
            line: 1,
        }
    }

    fn shipped(group: &str, k: &str) -> ShippedCrd {
        ShippedCrd {
            group: group.into(),
            kind: k.into(),
            file: PathBuf::from("deploy/crds.yaml"),
            template: false,
            doc: serde_json::Value::Null,
        }
    }

    fn owned(d: &[Decision]) -> Vec<(&str, bool)> {
        d.iter().map(|d| (d.kind.as_str(), d.owned)).collect()
    }

    const NONE: &[String] = &[];

    #[test]
    fn shipped_crds_and_controllers_own_their_kinds_and_set_the_domain() {
        let kinds = [
            kind("fleet.example.org", "Widget"),
            kind("infra.example.org", "Gadget"),
            kind("serving.knative.dev", "Service"),
            kind("s3.services.k8s.aws", "Bucket"),
            kind("example.org", "Thing"),
        ];
        let ship = [shipped("fleet.example.org", "Widget")];
        let ev = Evidence { shipped: &ship, primaries: &[], owned: NONE, external: NONE, domain: None };
        let d = decide(&kinds, &ev).unwrap();
        assert_eq!(
            owned(&d),
            [("Widget", true), ("Gadget", true), ("Service", false), ("Bucket", false), ("Thing", true)]
        );
        assert!(d[0].reason.contains("ships its CRD (deploy/crds.yaml)"), "{}", d[0].reason);
        assert!(d[1].reason.contains("domain example.org"), "{}", d[1].reason);
        assert!(d[2].reason.contains("outside the project's domain"), "{}", d[2].reason);

        let primaries = [("serving.knative.dev".to_string(), "services".to_string(), "src/main.rs:9".to_string())];
        let ev = Evidence { shipped: &[], primaries: &primaries, owned: NONE, external: NONE, domain: None };
        let d = decide(&kinds, &ev).unwrap();
        assert_eq!(
            owned(&d),
            [("Widget", false), ("Gadget", false), ("Service", true), ("Bucket", false), ("Thing", false)]
        );
        assert_eq!(d[2].reason, "a Controller reconciles it (src/main.rs:9)");
    }

    #[test]
    fn without_evidence_well_known_groups_are_external_and_the_rest_owned() {
        let kinds = [kind("fleet.example.org", "Widget"), kind("monitoring.coreos.com", "ServiceMonitor")];
        let ev = Evidence { shipped: &[], primaries: &[], owned: NONE, external: NONE, domain: None };
        let d = decide(&kinds, &ev).unwrap();
        assert_eq!(owned(&d), [("Widget", true), ("ServiceMonitor", false)]);
        assert!(d[1].reason.contains("well-known project (coreos.com)"), "{}", d[1].reason);
    }

    #[test]
    fn flags_override_evidence_and_bad_flags_are_usage_errors() {
        let kinds = [kind("fleet.example.org", "Widget"), kind("serving.knative.dev", "Service")];
        let ship = [shipped("fleet.example.org", "Widget")];
        let ext = ["Widget".to_string()];
        let own = ["services.serving.knative.dev".to_string()];
        let ev = Evidence { shipped: &ship, primaries: &[], owned: &own, external: &ext, domain: None };
        let d = decide(&kinds, &ev).unwrap();
        assert_eq!(owned(&d), [("Widget", false), ("Service", true)]);
        assert_eq!((d[0].reason.as_str(), d[1].reason.as_str()), ("--external", "--owned"));

        let bad = ["Nope".to_string()];
        let ev = Evidence { shipped: &[], primaries: &[], owned: &bad, external: NONE, domain: None };
        let e = decide(&kinds, &ev).unwrap_err().0;
        assert!(e.contains("--owned Nope") && e.contains("Widget (fleet.example.org)"), "{e}");
        let both = ["Widget.fleet.example.org".to_string()];
        let ev = Evidence { shipped: &[], primaries: &[], owned: &both, external: &ext, domain: None };
        assert!(decide(&kinds, &ev).unwrap_err().0.contains("both --owned and --external"));
    }

    #[test]
    fn the_domain_flag_sets_the_home_domain() {
        let kinds = [kind("fleet.example.org", "Widget"), kind("other.io", "Thing")];
        let ev = Evidence { shipped: &[], primaries: &[], owned: NONE, external: NONE, domain: Some("example.org") };
        let d = decide(&kinds, &ev).unwrap();
        assert_eq!(owned(&d), [("Widget", true), ("Thing", false)]);
        assert!(d[1].reason.contains("which --domain sets"), "{}", d[1].reason);
    }
}
