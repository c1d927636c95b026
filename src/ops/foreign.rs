//! Types the project does not define — Kubernetes' built-in kinds (k8s-openapi) and other crates' types
//! (`--external-api-*`): which one a `create api` / `create webhook` names, its PROJECT entry in kubebuilder's
//! shape (`core` / `external`, `module`), and the dependency an external crate adds to Cargo.toml.

use std::path::Path;

use anyhow::{Context, Result};

use crate::builtin::BuiltinGroup;
use crate::names;
use crate::plan::Plan;
use crate::project::{ProjectFile, Resource};
use crate::usage::UsageError;

/// The `--external-api-*` flags, as both `create` commands take them.
#[derive(Debug, Clone, Copy)]
pub struct ExternalFlags<'a> {
    pub path: Option<&'a str>,
    pub krate: Option<&'a str>,
    pub domain: Option<&'a str>,
}

impl ExternalFlags<'_> {
    fn any(&self) -> bool {
        self.path.is_some() || self.krate.is_some() || self.domain.is_some()
    }
}

/// The type a command names: `--group`, `--version`, `--kind`, `--plural` and the scope.
#[derive(Debug, Clone, Copy)]
pub struct Named<'a> {
    pub group: &'a str,
    pub version: &'a str,
    pub kind: &'a str,
    pub plural: Option<&'a str>,
    pub namespaced: bool,
}

/// A type the project does not define.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Foreign {
    /// `group` as PROJECT records it (`apps`, `core`, `networking`, `cert-manager`).
    pub project_group: String,
    /// `domain` as PROJECT records it (`""`, `k8s.io`, `io`).
    pub project_domain: String,
    /// The API group (`""` for core, `networking.k8s.io`, `cert-manager.io`).
    pub api_group: String,
    pub version: String,
    pub kind: String,
    /// RBAC resource name (`deployments`).
    pub plural: String,
    /// Whether objects live in namespaces (an external type's scope is what `--namespaced` says).
    pub namespaced: bool,
    /// Full Rust path of the type (`k8s_openapi::api::apps::v1::Deployment`, `acme_crds::v1::Issuer`).
    pub type_path: String,
    /// What PROJECT's `path` holds: the type's module for built-ins, the path as given for external types.
    pub project_path: String,
    /// A Kubernetes built-in (k8s-openapi), else another crate's type.
    pub builtin: bool,
    /// The dependency `--external-api-crate` asks for.
    pub dependency: Option<Dependency>,
}

/// A crate to add to `[dependencies]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dependency {
    /// Package name (`acme-crds`).
    pub name: String,
    pub source: DependencySource,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DependencySource {
    /// A crates.io version requirement.
    Version(String),
    /// A local crate folder, as written (relative to the project).
    Path(String),
}

impl Foreign {
    /// `apps/v1`, or `v1` for the core group.
    pub fn api_version(&self) -> String {
        if self.api_group.is_empty() { self.version.clone() } else { format!("{}/{}", self.api_group, self.version) }
    }

    /// The group as RBAC and webhook markers write it (`""` for core).
    pub fn marker_group(&self) -> String {
        if self.api_group.is_empty() { "\"\"".into() } else { self.api_group.clone() }
    }

    /// The PROJECT entry (without `controller` / `webhooks`, which the commands set).
    pub fn project_entry(&self) -> Resource {
        Resource {
            core: self.builtin,
            external: !self.builtin,
            domain: self.project_domain.clone(),
            group: self.project_group.clone(),
            kind: self.kind.clone(),
            module: self.dependency.as_ref().map(Dependency::spec).unwrap_or_default(),
            path: self.project_path.clone(),
            version: self.version.clone(),
            // kubebuilder records a plural only when it is irregular; a built-in's comes from the table
            plural: if self.builtin || self.plural == names::kube_plural(&self.kind.to_ascii_lowercase()) {
                String::new()
            } else {
                self.plural.clone()
            },
            ..Resource::default()
        }
    }
}

impl Dependency {
    /// Parses `NAME@VERSION` or `NAME@PATH`.
    pub fn parse(spec: &str) -> Result<Dependency, String> {
        let Some((name, rest)) = spec.split_once('@') else {
            return Err(format!(
                "--external-api-crate `{spec}` names no version: write `NAME@VERSION` (e.g. `acme-crds@0.3`) or \
                 `NAME@PATH` for a local crate folder (e.g. `acme-crds@../acme-crds`)"
            ));
        };
        let valid_name = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
        if !valid_name {
            return Err(format!(
                "--external-api-crate `{spec}`: `{name}` is not a crate name (letters, digits, `-` and `_`, starting \
                 with a letter)"
            ));
        }
        if rest.is_empty() {
            return Err(format!("--external-api-crate `{spec}` has nothing after `@`: give a version or a folder"));
        }
        let looks_like_path =
            rest.starts_with('.') || rest.starts_with('/') || rest.contains('/') || rest.contains('\\');
        let source = if looks_like_path {
            DependencySource::Path(rest.to_string())
        } else {
            let req = rest.trim_start_matches(['=', '^', '~', '<', '>', ' ']);
            if req.is_empty() || !req.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                return Err(format!(
                    "--external-api-crate `{spec}`: `{rest}` is neither a version requirement (e.g. `0.3`, `=1.2.0`) \
                     nor a folder (start it with `./` or `../`)"
                ));
            }
            DependencySource::Version(rest.to_string())
        };
        Ok(Dependency { name: name.to_string(), source })
    }

    /// `NAME@VERSION` / `NAME@PATH`, as PROJECT's `module` records it.
    pub fn spec(&self) -> String {
        match &self.source {
            DependencySource::Version(v) => format!("{}@{v}", self.name),
            DependencySource::Path(p) => format!("{}@{p}", self.name),
        }
    }

    /// The crate's name in Rust paths (`acme_crds`).
    pub fn ident(&self) -> String {
        self.name.replace('-', "_")
    }
}

/// The foreign type a `create api` names, if it names one: an external type (any `--external-api-*` flag; needs
/// `--resource=false`), or a built-in kind when `--resource=false` and PROJECT has no API of that group, version
/// and kind. `Ok(None)`: the project's own API.
pub fn for_api(pf: &ProjectFile, n: Named<'_>, resource: bool, external: ExternalFlags<'_>) -> Result<Option<Foreign>> {
    if external.any() && resource {
        return Err(UsageError(
            "cannot use '--external-api-path', '--external-api-domain', or '--external-api-crate' when creating an \
             API in the project with '--resource=true'. Use '--resource=false' when referencing an external API"
                .into(),
        )
        .into());
    }
    if resource {
        return Ok(None);
    }
    resolve(pf, n, external)
}

/// The foreign type a `create webhook` names: an external type, or a built-in kind PROJECT has no own API for.
pub fn for_webhook(pf: &ProjectFile, n: Named<'_>, external: ExternalFlags<'_>) -> Result<Option<Foreign>> {
    // A webhook on an external type registered by an earlier `create api` needs no flags again.
    if !external.any()
        && let Some(r) = find_foreign(pf, n.group, n.version, n.kind).filter(|r| r.external)
    {
        let flags = ExternalFlags { path: Some(&r.path), krate: None, domain: Some(&r.domain) };
        let mut f = external_type(n, flags)?;
        f.dependency = None;
        return Ok(Some(f));
    }
    resolve(pf, n, external)
}

fn resolve(pf: &ProjectFile, n: Named<'_>, external: ExternalFlags<'_>) -> Result<Option<Foreign>> {
    let Named { group, version, kind, plural, .. } = n;
    if external.any() {
        return external_type(n, external).map(Some);
    }
    if pf.find(group, version, kind).is_some_and(|r| !r.core && !r.external) {
        return Ok(None);
    }
    let Some(builtin_group) = BuiltinGroup::resolve(group) else { return Ok(None) };
    let Some(builtin) = builtin_group.find(version, kind) else {
        anyhow::bail!(
            "Kubernetes has no kind `{kind}` in {}/{version} (k8s-openapi 0.29); its kinds in that group are: {}. \
             For a type of another crate pass --external-api-path",
            if builtin_group.api_group.is_empty() { "the core group" } else { &builtin_group.api_group },
            builtin_group.kinds().join(", ")
        );
    };
    if let Some(minor) = pf.k8s_version().filter(|m| !builtin.served_in(m)) {
        anyhow::bail!(
            "{kind} ({}) is not served by Kubernetes {minor}, the version this project compiles against (served in \
             {}); change `k8sVersion` in PROJECT or pick another version of the kind",
            builtin.type_path(),
            builtin.minors
        );
    }
    if let Some(p) = plural.filter(|p| *p != builtin.resource.plural) {
        return Err(UsageError(format!(
            "--plural {p}: the resource of built-in kind {kind} is `{}`; drop --plural",
            builtin.resource.plural
        ))
        .into());
    }
    Ok(Some(Foreign {
        project_group: builtin_group.project_group.clone(),
        project_domain: builtin_group.project_domain.clone(),
        api_group: builtin.resource.group.clone(),
        version: version.to_string(),
        kind: kind.to_string(),
        plural: builtin.resource.plural.clone(),
        namespaced: builtin.resource.namespaced,
        type_path: builtin.type_path(),
        project_path: builtin.module_path(),
        builtin: true,
        dependency: None,
    }))
}

fn external_type(n: Named<'_>, external: ExternalFlags<'_>) -> Result<Foreign> {
    let Named { group, version, kind, plural, namespaced } = n;
    let Some(path) = external.path else {
        let flag = if external.krate.is_some() { "--external-api-crate" } else { "--external-api-domain" };
        return Err(UsageError(format!("'{flag}' requires '--external-api-path' to be specified")).into());
    };
    let segments: Vec<&str> = path.trim_start_matches("::").split("::").collect();
    if segments.len() < 2 || segments.iter().any(|s| !is_ident(s)) {
        return Err(UsageError(format!(
            "--external-api-path `{path}` is not a Rust path with a crate and a module or type (e.g. \
             `acme_crds::v1::Issuer` or `acme_crds::v1`)"
        ))
        .into());
    }
    let last = segments[segments.len() - 1];
    let type_path = if last.starts_with(|c: char| c.is_ascii_uppercase()) {
        segments.join("::")
    } else {
        format!("{}::{kind}", segments.join("::"))
    };
    let dependency = external.krate.map(Dependency::parse).transpose().map_err(UsageError)?;
    if let Some(dep) = &dependency
        && segments[0] != dep.ident()
    {
        return Err(UsageError(format!(
            "--external-api-path `{path}` does not start with `{}`, the crate --external-api-crate adds; write \
                 `{}::...`",
            dep.ident(),
            dep.ident()
        ))
        .into());
    }
    let domain = external.domain.unwrap_or_default().to_string();
    let api_group = match (group.is_empty(), domain.is_empty()) {
        (_, true) => group.to_string(),
        (true, false) => domain.clone(),
        (false, false) => format!("{group}.{domain}"),
    };
    if api_group.is_empty() {
        return Err(UsageError(
            "an external type needs its API group: pass --group (and --external-api-domain)".into(),
        )
        .into());
    }
    let plural = match plural {
        Some(p) => {
            names::validate_plural(p).map_err(UsageError::from)?;
            p.to_string()
        }
        None => names::kube_plural(&kind.to_ascii_lowercase()),
    };
    Ok(Foreign {
        project_group: group.to_string(),
        project_domain: domain,
        api_group,
        version: version.to_string(),
        kind: kind.to_string(),
        plural,
        namespaced,
        type_path,
        project_path: segments.join("::"),
        builtin: false,
        dependency,
    })
}

fn is_ident(s: &str) -> bool {
    let s = s.strip_prefix("r#").unwrap_or(s);
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// The PROJECT entry of a foreign type with this group (either form), version and kind.
pub fn find_foreign<'a>(pf: &'a ProjectFile, group: &str, version: &str, kind: &str) -> Option<&'a Resource> {
    let builtin_group = BuiltinGroup::resolve(group).map(|g| g.project_group);
    pf.resources.iter().find(|r| {
        (r.core || r.external)
            && r.version == version
            && r.kind == kind
            && (r.group == group || builtin_group.as_deref() == Some(r.group.as_str()))
    })
}

/// Adds the dependency to the project's Cargo.toml (`toml_edit`: comments and layout kept), with `comment` after
/// it in the column `init`'s dependencies keep theirs. A dependency the manifest already has is left as it is,
/// with a note when it differs.
pub fn plan_dependency(plan: &mut Plan, dep: &Dependency, comment: Option<&str>) -> Result<()> {
    let manifest = Path::new("Cargo.toml");
    let text = plan.read_existing(manifest)?;
    let mut doc: toml_edit::DocumentMut =
        text.parse().with_context(|| "Cargo.toml: not valid TOML; fix it, then run the command again")?;
    let deps = doc
        .entry("dependencies")
        .or_insert_with(toml_edit::table)
        .as_table_like_mut()
        .context("Cargo.toml: `dependencies` is not a table; fix it, then run the command again")?;
    if let Some(existing) = deps.get(&dep.name) {
        let same = match (&dep.source, existing) {
            (DependencySource::Version(v), item) => item.as_str() == Some(v.as_str()),
            (DependencySource::Path(p), item) => item.get("path").and_then(|i| i.as_str()) == Some(p.as_str()),
        };
        if !same {
            plan.notes.push(format!(
                "note: Cargo.toml already depends on `{}`; left as it is (asked for `{}`)",
                dep.name,
                dep.spec()
            ));
        }
        return Ok(());
    }
    let mut value: toml_edit::Value = match &dep.source {
        DependencySource::Version(v) => v.as_str().into(),
        DependencySource::Path(p) => {
            let mut t = toml_edit::InlineTable::new();
            t.insert("path", p.as_str().into());
            t.into()
        }
    };
    if let Some(comment) = comment {
        // `init` aligns its dependencies' comments at column 79.
        let line = format!("{} = {}", dep.name, value.to_string().trim());
        let pad = 78usize.saturating_sub(line.len()).max(1);
        value.decor_mut().set_suffix(format!("{}# {comment}", " ".repeat(pad)));
    }
    deps.insert(&dep.name, toml_edit::Item::Value(value));
    plan.edit(manifest, doc.to_string());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags<'a>(path: Option<&'a str>, krate: Option<&'a str>, domain: Option<&'a str>) -> ExternalFlags<'a> {
        ExternalFlags { path, krate, domain }
    }

    fn named<'a>(group: &'a str, version: &'a str, kind: &'a str) -> Named<'a> {
        Named { group, version, kind, plural: None, namespaced: true }
    }

    fn project() -> ProjectFile {
        ProjectFile { domain: "example.com".into(), version: "3".into(), ..ProjectFile::default() }
    }

    #[test]
    fn builtin_kinds_resolve_with_kubebuilders_project_fields() {
        let none = flags(None, None, None);
        let f = for_api(&project(), named("apps", "v1", "Deployment"), false, none).unwrap().unwrap();
        assert_eq!((f.project_group.as_str(), f.project_domain.as_str(), f.api_group.as_str()), ("apps", "", "apps"));
        assert_eq!(f.type_path, "k8s_openapi::api::apps::v1::Deployment");
        assert_eq!(f.project_path, "k8s_openapi::api::apps::v1");
        assert_eq!((f.plural.as_str(), f.api_version().as_str()), ("deployments", "apps/v1"));
        let e = f.project_entry();
        assert!(e.core && !e.external && e.api.is_none());

        let ing = for_api(&project(), named("networking.k8s.io", "v1", "Ingress"), false, none).unwrap().unwrap();
        assert_eq!((ing.project_group.as_str(), ing.project_domain.as_str()), ("networking", "k8s.io"));
        let pod = for_webhook(&project(), named("core", "v1", "Pod"), none).unwrap().unwrap();
        assert_eq!(
            (pod.api_group.as_str(), pod.marker_group().as_str(), pod.api_version().as_str()),
            ("", "\"\"", "v1")
        );

        // the project's own API of that name wins; --resource=true is always the project's own
        assert_eq!(for_api(&project(), named("apps", "v1", "Deployment"), true, none).unwrap(), None);
        let err = for_api(&project(), named("apps", "v1", "Deploymnt"), false, none).unwrap_err().to_string();
        assert!(err.contains("no kind `Deploymnt` in apps/v1") && err.contains("v1/Deployment"), "{err}");
        assert_eq!(for_api(&project(), named("cache", "v1", "Memcached"), false, none).unwrap(), None);
    }

    #[test]
    fn external_types_take_a_type_or_module_path_and_a_crate() {
        let f = for_api(
            &project(),
            named("cert-manager", "v1", "Issuer"),
            false,
            flags(Some("acme_crds::v1::Issuer"), Some("acme-crds@0.3"), Some("io")),
        )
        .unwrap()
        .unwrap();
        assert_eq!((f.api_group.as_str(), f.plural.as_str()), ("cert-manager.io", "issuers"));
        assert_eq!(f.type_path, "acme_crds::v1::Issuer");
        assert_eq!(f.project_entry().module, "acme-crds@0.3");
        assert!(f.project_entry().external);
        let m = for_api(&project(), named("g", "v1", "Issuer"), false, flags(Some("acme_crds::v1"), None, None))
            .unwrap()
            .unwrap();
        assert_eq!((m.type_path.as_str(), m.api_group.as_str()), ("acme_crds::v1::Issuer", "g"));
    }

    #[test]
    fn external_flags_are_refused_the_way_kubebuilder_refuses_them() {
        let usage = |r: Result<Option<Foreign>>| {
            let e = r.unwrap_err();
            assert!(e.downcast_ref::<UsageError>().is_some(), "{e}");
            e.to_string()
        };
        let e = usage(for_api(&project(), named("g", "v1", "K"), true, flags(Some("a::b"), None, None)));
        assert!(e.contains("'--resource=true'"), "{e}");
        let e = usage(for_api(&project(), named("g", "v1", "K"), false, flags(None, Some("a@1"), None)));
        assert_eq!(e, "'--external-api-crate' requires '--external-api-path' to be specified");
        let e = usage(for_api(&project(), named("g", "v1", "K"), false, flags(Some("a::b"), Some("b@1"), None)));
        assert!(e.contains("does not start with `b`"), "{e}");
        let e = usage(for_api(&project(), named("g", "v1", "K"), false, flags(Some("a"), None, None)));
        assert!(e.contains("not a Rust path"), "{e}");
    }

    #[test]
    fn dependencies_parse_versions_and_folders() {
        let d = Dependency::parse("acme-crds@0.3").unwrap();
        assert_eq!((d.ident(), d.source), ("acme_crds".to_string(), DependencySource::Version("0.3".into())));
        let p = Dependency::parse("acme-crds@../acme-crds").unwrap();
        assert_eq!(p.source, DependencySource::Path("../acme-crds".into()));
        assert_eq!(Dependency::parse("acme-crds@=1.2.0").unwrap().source, DependencySource::Version("=1.2.0".into()));
        for bad in ["acme-crds", "acme-crds@", "@1", "acme crds@1", "acme@latest"] {
            assert!(Dependency::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_dependency_is_added_keeping_comments() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = "[package]\nname = \"op\"\n\n[dependencies]\nkube = \"5\" # the client\n\n[dev-dependencies]\nhttp = \"1\"\n";
        std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
        let mut plan = Plan::new(dir.path());
        plan_dependency(&mut plan, &Dependency::parse("acme-crds@../acme").unwrap(), None).unwrap();
        let text = plan.read(Path::new("Cargo.toml")).unwrap().unwrap();
        assert!(text.contains("kube = \"5\" # the client\nacme-crds = { path = \"../acme\" }\n"), "{text}");
        assert!(text.ends_with("[dev-dependencies]\nhttp = \"1\"\n"), "{text}");
        // again: already there, nothing changes
        let mut again = Plan::new(dir.path());
        std::fs::write(dir.path().join("Cargo.toml"), &text).unwrap();
        plan_dependency(&mut again, &Dependency::parse("acme-crds@../acme").unwrap(), None).unwrap();
        assert!(again.ops().is_empty() && again.notes.is_empty());
        plan_dependency(&mut again, &Dependency::parse("acme-crds@0.4").unwrap(), None).unwrap();
        assert!(again.notes[0].contains("already depends on `acme-crds`"), "{:?}", again.notes);
    }
}
