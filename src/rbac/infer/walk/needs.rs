//! What a kube call needs: the RBAC rule of an API call on a known resource, the escalation rules of creating
//! roles and bindings, the finalizers permission an owner reference asks for, and the warnings of calls whose
//! resource cannot be known.

use super::{Engine, Frame, Need, Unresolved, Warning, kube_api, strip_ref};
use crate::rbac::infer::types::Ty;
use crate::source::Res;
use crate::source::lex::path_segs;
use crate::source::syntax::unraw;

/// Types no `Api` can be of.
const NEVER_RESOURCES: &[&str] =
    &["Vec", "VecDeque", "String", "str", "Option", "Result", "HashMap", "BTreeMap", "HashSet", "BTreeSet", "Bytes"];

impl<'p> Engine<'p> {
    /// Records the accesses `access` on the resource of `api` (an `Api<K>`), or a warning when `K` is not known.
    pub(super) fn need_api(&mut self, fr: &Frame, api: &Ty, access: &[kube_api::Access], line: usize, call: &str) {
        let k = api.pointee().api_arg().cloned().unwrap_or(Ty::Unknown);
        let verbs_of = |sub: &str, verbs: &[&str]| -> String {
            let res = if sub.is_empty() { "<resource>".to_string() } else { format!("<resource>/{sub}") };
            format!("resources={res},verbs={}", verbs.join(";"))
        };
        let hint = access.iter().map(|(s, v)| verbs_of(s, v)).collect::<Vec<_>>().join(" and ");
        match k.pointee().wrapped_resource() {
            Ty::Kind(id) => {
                let r = self.kinds.list[*id].clone();
                let method = call.split(' ').next().unwrap_or_default();
                let what = if kube_api::api_method(method).is_some() || kube_api::api_subresource_method(method).is_some() {
                    format!("Api<{}>::{call}", r.kind)
                } else {
                    format!("{call}(Api<{}>)", r.kind)
                };
                for (sub, verbs) in access {
                    let resource = if sub.is_empty() { r.plural.clone() } else { format!("{}/{sub}", r.plural) };
                    for v in *verbs {
                        self.needs.push(Need {
                            group: r.group.clone(),
                            resource: resource.clone(),
                            verb: (*v).into(),
                            file: fr.file.clone(),
                            line,
                            call: what.clone(),
                        });
                    }
                }
            }
            Ty::Ext(n, _) if n == "DynamicObject" => self.warn(
                fr,
                line,
                format!(
                    "{call} on an Api<DynamicObject> whose ApiResource is only known at run time: add the rule by hand \
                     (// +kubebuilder:rbac:groups=<group>,{hint})"
                ),
            ),
            Ty::Param(p) => self.warn(
                fr,
                line,
                format!(
                    "{call} on Api<{p}> where the generic {p} is not bound by any call in the sources (it comes from \
                     outside them, or no caller's argument tells its type): name the kind at the call \
                     (`::<Kind>`) or add the rule by hand (// +kubebuilder:rbac:groups=<group>,{hint})"
                ),
            ),
            // `Api<Vec<u8>>` cannot be written in code that compiles: a method of the sources reached by name from a
            // receiver whose type was not known (`hasher.update(bytes)` → a client's `update<T>`), not a call made
            Ty::Ext(n, _) if NEVER_RESOURCES.contains(&n.as_str()) => {}
            Ty::Ext(n, _) => {
                let message = format!(
                    "{call} on Api<{n}>: {n} is neither a k8s-openapi resource nor a CustomResource of the sources: add \
                     the rule by hand (// +kubebuilder:rbac:groups=<group>,{hint})"
                );
                let unresolved = Unresolved {
                    type_name: n.clone(),
                    access: access
                        .iter()
                        .map(|(sub, verbs)| (sub.to_string(), verbs.iter().map(|v| v.to_string()).collect()))
                        .collect(),
                    call: call.to_string(),
                };
                self.warn_with(fr, line, message, Some(unresolved))
            }
            Ty::Adt(key, _) if self.kinds.unreadable.contains_key(key) => {
                let (file, at, why) = &self.kinds.unreadable[key];
                let name = crate::source::syntax::item_name(self.prog.item(*key)).unwrap_or_default();
                self.warn(
                    fr,
                    line,
                    format!(
                        "{call} on Api<{name}>: {why} ({file}:{at}), or add the rule by hand \
                         (// +kubebuilder:rbac:groups=<group>,{hint})"
                    ),
                )
            }
            _ => self.warn(
                fr,
                line,
                format!(
                    "{call} on an Api whose resource type cannot be told from the code: annotate it (`let api: Api<Kind> = ..`) \
                     or add the rule by hand (// +kubebuilder:rbac:groups=<group>,{hint})"
                ),
            ),
        }
    }

    /// Creating or replacing a Role/ClusterRole needs every rule it grants (RBAC escalation prevention): the
    /// rules of a `PolicyRule { .. }` literal in the object's expression (or its `let`) are added.
    pub(super) fn escalation(&mut self, fr: &Frame, k: &Ty, m: &syn::ExprMethodCall, line: usize) {
        let Ty::Kind(id) = k.pointee() else { return };
        let r = &self.kinds.list[*id];
        if r.group != "rbac.authorization.k8s.io" || !matches!(r.kind.as_str(), "Role" | "ClusterRole") {
            return;
        }
        let kind = r.kind.clone();
        let mut rules = Vec::new();
        let mut unknown = false;
        for arg in &m.args {
            let local = match strip_ref(arg) {
                syn::Expr::Path(p) => p.path.get_ident().and_then(|id| fr.rule_inits.get(&unraw(id))),
                _ => None,
            };
            collect_policy_rules(local.unwrap_or(arg), &mut rules, &mut unknown);
        }
        if rules.is_empty() {
            self.warn(
                fr,
                line,
                format!(
                    "creates or updates a {kind} whose rules are not written as `PolicyRule {{ .. }}` literals here: the \
                     operator must itself hold every rule it grants; add them by hand"
                ),
            );
            return;
        }
        for (groups, resources, verbs) in rules {
            for g in &groups {
                for res in &resources {
                    for v in &verbs {
                        self.needs.push(Need {
                            group: g.clone(),
                            resource: res.clone(),
                            verb: v.clone(),
                            file: fr.file.clone(),
                            line,
                            call: format!("{kind} rule it grants (escalation prevention)"),
                        });
                    }
                }
            }
        }
        if unknown {
            self.warn(
                fr,
                line,
                format!("a rule of this {kind} is not a literal: add what it grants to the operator's role by hand"),
            );
        }
    }

    /// A hand-built `OwnerReference { block_owner_deletion: Some(true), kind: .., .. }`: as `controller_owner_ref`,
    /// `update` on the owner's `finalizers` (wanted where OwnerReferencesPermissionEnforcement runs, as on
    /// OpenShift). The owner is the project kind the `kind` field names (`"Memcached".into()`, `Memcached::kind(&())`).
    pub(super) fn owner_reference(&mut self, fr: &Frame, s: &syn::ExprStruct) {
        let field = |name: &str| {
            s.fields.iter().find(|f| matches!(&f.member, syn::Member::Named(n) if unraw(n) == name)).map(|f| &f.expr)
        };
        let blocks = field("block_owner_deletion").is_some_and(|e| {
            matches!(strip_ref(e), syn::Expr::Call(c)
                if matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident("Some"))
                    && matches!(c.args.first(), Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(b), .. })) if b.value))
        });
        let Some(kind_expr) = field("kind").filter(|_| blocks) else { return };
        let named = owner_kind_name(kind_expr);
        let id = match named {
            Some(OwnerKind::Name(n)) => self.kinds.list.iter().position(|r| r.kind == n),
            Some(OwnerKind::Type(segs)) => match self.prog.resolve(fr.scope.at, &segs, &fr.scope.local_uses) {
                Res::Generated(g) => self.kinds.by_generated.get(&g).copied(),
                Res::Item(k) => self.kinds.by_item.get(&k).copied(),
                _ => None,
            },
            None => None,
        };
        let Some(id) = id else { return };
        let line = s.brace_token.span.open().start().line;
        self.owner_finalizers(fr, id, line, "OwnerReference { block_owner_deletion: Some(true) }");
    }

    /// A `RoleRef { kind, .. }` literal: writing the binding that holds it needs `bind` on the role it names
    /// (RBAC escalation prevention, unless the operator holds every permission of that role); a kind not written
    /// here is a warning.
    pub(super) fn role_ref(&mut self, fr: &Frame, s: &syn::ExprStruct) {
        let kind_expr =
            s.fields.iter().find(|f| matches!(&f.member, syn::Member::Named(n) if unraw(n) == "kind")).map(|f| &f.expr);
        let kind = match kind_expr.and_then(owner_kind_name) {
            Some(OwnerKind::Name(n)) => Some(n),
            // `ClusterRole::KIND.to_owned()`
            Some(OwnerKind::Type(segs)) => Some(segs.last().cloned().unwrap_or_default()),
            None => match kind_expr.map(strip_ref) {
                Some(syn::Expr::MethodCall(m)) => match strip_ref(&m.receiver) {
                    syn::Expr::Path(p) if p.path.segments.last().is_some_and(|l| l.ident == "KIND") => {
                        p.path.segments.iter().rev().nth(1).map(|seg| unraw(&seg.ident))
                    }
                    _ => None,
                },
                Some(syn::Expr::Path(p)) if p.path.segments.last().is_some_and(|l| l.ident == "KIND") => {
                    p.path.segments.iter().rev().nth(1).map(|seg| unraw(&seg.ident))
                }
                _ => None,
            },
        };
        let line = s.brace_token.span.open().start().line;
        let resource = match kind.as_deref() {
            Some("ClusterRole") => "clusterroles",
            Some("Role") => "roles",
            _ => {
                self.warn(
                    fr,
                    line,
                    "a RoleRef whose kind is not written here: binding a role needs `bind` on it (// \
                     +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=clusterroles,verbs=bind)"
                        .to_string(),
                );
                return;
            }
        };
        self.needs.push(Need {
            group: "rbac.authorization.k8s.io".into(),
            resource: resource.into(),
            verb: "bind".into(),
            file: fr.file.clone(),
            line,
            call: "RoleRef (a binding to write needs bind on its role, or every permission the role grants)".into(),
        });
    }

    /// An owner reference with blockOwnerDeletion: the API server's OwnerReferencesPermissionEnforcement (on in
    /// OpenShift) then wants `update` on the owner's finalizers subresource. `call` names what set it.
    pub(super) fn owner_finalizers(&mut self, fr: &Frame, owner: usize, line: usize, call: &str) {
        let r = self.kinds.list[owner].clone();
        self.needs.push(Need {
            group: r.group.clone(),
            resource: format!("{}/finalizers", r.plural),
            verb: "update".into(),
            file: fr.file.clone(),
            line,
            call: format!(
                "{call} (blockOwnerDeletion: needed only where OwnerReferencesPermissionEnforcement runs, as on \
                 OpenShift; upstream Kubernetes does not ask)"
            ),
        });
    }

    pub(super) fn warn(&mut self, fr: &Frame, line: usize, message: String) {
        self.warn_with(fr, line, message, None)
    }

    pub(super) fn warn_with(&mut self, fr: &Frame, line: usize, message: String, unresolved: Option<Unresolved>) {
        let w = Warning { file: fr.file.clone(), line, message, unresolved };
        if let Some(c) = &mut self.current {
            c.warnings.push(w.clone());
        }
        self.add_warning(w);
    }

    pub(super) fn add_warning(&mut self, w: Warning) {
        if !self.warnings.contains(&w) {
            self.warnings.push(w);
        }
    }
}

/// What the `kind` field of an `OwnerReference` names: a literal, or the type whose `kind` it asks.
pub(super) enum OwnerKind {
    Name(String),
    Type(Vec<String>),
}

/// `"Memcached".into()`, `"Memcached".to_string()`, `String::from("Memcached")`, `Memcached::kind(&()).into()`.
pub(super) fn owner_kind_name(e: &syn::Expr) -> Option<OwnerKind> {
    match strip_ref(e) {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(OwnerKind::Name(s.value())),
        syn::Expr::MethodCall(m) if m.method == "kind" => match strip_ref(&m.receiver) {
            syn::Expr::Path(p) => Some(OwnerKind::Type(path_segs(&p.path))),
            _ => None,
        },
        syn::Expr::MethodCall(m) => owner_kind_name(&m.receiver),
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(p) if p.path.segments.last().is_some_and(|l| l.ident == "kind") => {
                let mut segs = path_segs(&p.path);
                segs.pop();
                Some(OwnerKind::Type(segs))
            }
            _ => c.args.first().and_then(owner_kind_name),
        },
        _ => None,
    }
}

/// The string literals of `vec!["a".into(), ..]`, `Some(vec![..])`, `["a".to_string()]`.
pub(super) fn string_list(e: &syn::Expr, unknown: &mut bool) -> Vec<String> {
    match strip_ref(e) {
        syn::Expr::Call(c) if c.args.len() == 1 => string_list(&c.args[0], unknown),
        syn::Expr::MethodCall(m) if m.args.is_empty() => string_list(&m.receiver, unknown),
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => vec![s.value()],
        syn::Expr::Array(a) => a.elems.iter().flat_map(|x| string_list(x, unknown)).collect(),
        syn::Expr::Macro(m) => {
            use syn::parse::Parser;
            match syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated
                .parse2(m.mac.tokens.clone())
            {
                Ok(list) => list.iter().flat_map(|x| string_list(x, unknown)).collect(),
                Err(_) => {
                    *unknown = true;
                    Vec::new()
                }
            }
        }
        _ => {
            *unknown = true;
            Vec::new()
        }
    }
}

/// `PolicyRule { api_groups, resources, verbs, .. }` literals anywhere in `e`.
pub(super) fn collect_policy_rules(
    e: &syn::Expr,
    out: &mut Vec<(Vec<String>, Vec<String>, Vec<String>)>,
    unknown: &mut bool,
) {
    struct V<'a> {
        out: &'a mut Vec<(Vec<String>, Vec<String>, Vec<String>)>,
        unknown: &'a mut bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for V<'_> {
        fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
            if s.path.segments.last().is_some_and(|l| l.ident == "PolicyRule") {
                let mut field = |name: &str| {
                    s.fields
                        .iter()
                        .find(|f| matches!(&f.member, syn::Member::Named(n) if n == name))
                        .map(|f| string_list(&f.expr, self.unknown))
                        .unwrap_or_default()
                };
                let groups = field("api_groups");
                let resources = field("resources");
                let verbs = field("verbs");
                self.out.push((if groups.is_empty() { vec![String::new()] } else { groups }, resources, verbs));
                return;
            }
            syn::visit::visit_expr_struct(self, s);
        }

        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            use syn::parse::Parser;
            if let Ok(list) =
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated.parse2(m.tokens.clone())
            {
                for e in &list {
                    syn::visit::Visit::visit_expr(self, e);
                }
            }
        }
    }
    syn::visit::Visit::visit_expr(&mut V { out, unknown }, e);
}
