//! A namespace-scoped manager's RBAC markers: `namespace=<ns>` added to or removed from every
//! `// +kubebuilder:rbac:` line of a Rust source, so controller-gen's rules give a Role in that namespace
//! instead of the ClusterRole (`init --namespaced`, `create api` in such a project, `edit --namespaced`).

use super::markers::RBAC_MARKER;

/// The marker's arguments, when `line` is an RBAC marker comment: (text before them, the arguments).
fn marker_args(line: &str) -> Option<(&str, &str)> {
    let trimmed = line.trim_start();
    let rest = trimmed.strip_prefix("//")?.trim_start();
    let args = rest.strip_prefix('+')?.strip_prefix(RBAC_MARKER)?.strip_prefix(':')?;
    Some((&line[..line.len() - args.len()], args))
}

/// Rewrites each RBAC marker line's arguments with `f` (which returns `None` to keep the line).
fn rewrite(source: &str, f: impl Fn(&[&str]) -> Option<Vec<String>>) -> String {
    let mut out = String::with_capacity(source.len() + 64);
    for line in source.split_inclusive('\n') {
        let (body, newline) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        let rewritten = marker_args(body).and_then(|(head, args)| {
            let args: Vec<&str> = args.trim_end().split(',').collect();
            f(&args).map(|new| format!("{head}{}", new.join(",")))
        });
        match rewritten {
            Some(new) => {
                out.push_str(&new);
                out.push_str(newline);
            }
            None => out.push_str(line),
        }
    }
    out
}

fn is_namespace_arg(arg: &str) -> bool {
    arg.trim_start().starts_with("namespace=")
}

/// `source` with `namespace=<namespace>` after the `groups=` argument of every RBAC marker that names no namespace
/// (markers that already name one keep it).
pub fn add_namespace(source: &str, namespace: &str) -> String {
    rewrite(source, |args| {
        if args.iter().any(|a| is_namespace_arg(a)) {
            return None;
        }
        let at = args.iter().position(|a| a.trim_start().starts_with("groups=")).map_or(args.len(), |i| i + 1);
        let mut new: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        new.insert(at, format!("namespace={namespace}"));
        Some(new)
    })
}

/// `source` without the `namespace=<namespace>` argument of its RBAC markers (other namespaces are kept: a marker
/// for another namespace is a Role the user asked for).
pub fn remove_namespace(source: &str, namespace: &str) -> String {
    let arg = format!("namespace={namespace}");
    rewrite(source, |args| {
        if !args.iter().any(|a| a.trim() == arg) {
            return None;
        }
        Some(args.iter().filter(|a| a.trim() != arg).map(|a| a.to_string()).collect())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "//! A controller.\n\
        // +kubebuilder:rbac:groups=cache.example.com,resources=memcacheds,verbs=list;watch;patch\n\
        //   +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get\n\
        // +kubebuilder:rbac:groups=\"\",namespace=other,resources=pods,verbs=list\n\
        // +kubebuilder:webhook:path=/mutate,groups=apps\n\
        let s = \"+kubebuilder:rbac:groups=x\";\n\
        // +kubebuilder:rbac:urls=/metrics,verbs=get";

    #[test]
    fn adds_after_groups_and_keeps_markers_that_name_a_namespace() {
        let out = add_namespace(SOURCE, "op-system");
        assert_eq!(
            out,
            "//! A controller.\n\
             // +kubebuilder:rbac:groups=cache.example.com,namespace=op-system,resources=memcacheds,verbs=list;watch;patch\n\
             //   +kubebuilder:rbac:groups=apps,namespace=op-system,resources=deployments,verbs=get\n\
             // +kubebuilder:rbac:groups=\"\",namespace=other,resources=pods,verbs=list\n\
             // +kubebuilder:webhook:path=/mutate,groups=apps\n\
             let s = \"+kubebuilder:rbac:groups=x\";\n\
             // +kubebuilder:rbac:urls=/metrics,verbs=get,namespace=op-system"
        );
        assert_eq!(add_namespace(&out, "op-system"), out, "adding twice changes nothing");
    }

    #[test]
    fn removing_undoes_adding_and_keeps_other_namespaces() {
        let added = add_namespace(SOURCE, "op-system");
        assert_eq!(remove_namespace(&added, "op-system"), SOURCE);
        assert!(remove_namespace(&added, "other").contains("groups=\"\",resources=pods"));
        assert_eq!(remove_namespace(SOURCE, "op-system"), SOURCE);
    }
}
