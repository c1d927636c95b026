//! The samples the scaffolded manager's `/metrics` serves, with their labels: what the dashboards may query.

/// One sample name as Prometheus stores it (`_total`, `_bucket`, `_sum`, `_count` included), and its labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Served {
    pub name: &'static str,
    pub labels: &'static [&'static str],
}

/// What `runtime/src/manager/metrics.rs` registers, as its own test `served_samples_are_exactly_the_listed_ones`
/// lists it (`SERVED`), in the same order; `tests::list_is_the_templates` keeps the two equal, and the scaffold's
/// test keeps its list equal to what the registry encodes.
pub const SERVED: &[Served] = &[
    Served { name: "controller_runtime_reconcile_errors_total", labels: &["controller", "error"] },
    Served { name: "controller_runtime_reconcile_time_seconds_bucket", labels: &["controller", "le"] },
    Served { name: "controller_runtime_reconcile_time_seconds_count", labels: &["controller"] },
    Served { name: "controller_runtime_reconcile_time_seconds_sum", labels: &["controller"] },
    Served { name: "controller_runtime_reconcile_total", labels: &["controller", "result"] },
];

/// Labels Prometheus adds to every scraped sample of the manager (the ServiceMonitor's target labels).
pub const TARGET_LABELS: &[&str] = &["job", "namespace", "instance", "pod", "service", "container", "endpoint"];

/// The served sample called `name`.
pub fn find(name: &str) -> Option<&'static Served> {
    SERVED.iter().find(|s| s.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The template's `SERVED` list, read from its source: `(name, labels)` in order.
    fn templates_list() -> Vec<(String, Vec<String>)> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/runtime/src/manager/metrics.rs");
        let text = std::fs::read_to_string(path).expect("the metrics template");
        let file = syn::parse_file(&text).expect("the metrics template is Rust without handlebars expressions");
        let tests = file
            .items
            .iter()
            .find_map(|item| match item {
                syn::Item::Mod(m) if m.ident == "tests" => m.content.as_ref().map(|(_, items)| items),
                _ => None,
            })
            .expect("the metrics template has a tests module");
        let list = tests
            .iter()
            .find_map(|item| match item {
                syn::Item::Const(c) if c.ident == "SERVED" => Some(&c.expr),
                _ => None,
            })
            .expect("the metrics template's tests define SERVED");
        let syn::Expr::Reference(reference) = list.as_ref() else { panic!("SERVED is `&[...]`") };
        let syn::Expr::Array(array) = reference.expr.as_ref() else { panic!("SERVED is `&[...]`") };
        array
            .elems
            .iter()
            .map(|elem| {
                let syn::Expr::Tuple(tuple) = elem else { panic!("SERVED holds (name, labels) tuples") };
                let strings = |expr: &syn::Expr| -> Vec<String> {
                    let mut out = Vec::new();
                    collect_strings(expr, &mut out);
                    out
                };
                let name = strings(&tuple.elems[0]).remove(0);
                (name, strings(&tuple.elems[1]))
            })
            .collect()
    }

    fn collect_strings(expr: &syn::Expr, out: &mut Vec<String>) {
        match expr {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => out.push(s.value()),
            syn::Expr::Reference(r) => collect_strings(&r.expr, out),
            syn::Expr::Array(a) => a.elems.iter().for_each(|e| collect_strings(e, out)),
            other => panic!("unexpected expression in SERVED: {}", quote::quote!(#other)),
        }
    }

    #[test]
    fn list_is_the_templates() {
        let ours: Vec<(String, Vec<String>)> =
            SERVED.iter().map(|s| (s.name.to_string(), s.labels.iter().map(|l| l.to_string()).collect())).collect();
        assert_eq!(
            ours,
            templates_list(),
            "src/grafana/served.rs and the SERVED list of runtime/src/manager/metrics.rs differ"
        );
    }

    #[test]
    fn target_labels_are_not_served_labels() {
        // A served label named like a target label would be renamed `exported_<label>` by Prometheus.
        for s in SERVED {
            assert!(s.labels.iter().all(|l| !TARGET_LABELS.contains(l)), "{s:?}");
        }
    }
}
