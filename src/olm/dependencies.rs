//! A bundle's OLM dependencies: `make bundle --depends-on-package NAME:RANGE` and `--depends-on-gvk
//! GROUP/VERSION/KIND` (parsed and checked here, recorded in PROJECT by `olm::settings`), the
//! `metadata/dependencies.yaml` they are written to, the `olm.package.required` / `olm.gvk.required` properties
//! `make catalog` turns them into (as `opm render` does), and `catalog validate --resolve`, which looks for a bundle
//! providing each.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{Value, json};

use super::bundle::BundleFiles;
use super::finding::{Finding, Level};
use super::semver::{Range, Version};

/// The file `make bundle` writes under `metadata/`.
pub const FILE: &str = "dependencies.yaml";
/// The value of `--depends-on-package` / `--depends-on-gvk` that removes the recorded dependencies of that kind.
pub const NONE: &str = "none";

/// One dependency of a bundle.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Dependency {
    /// `olm.package`: a package installed at a version in a blang semver range.
    Package { name: String, range: String },
    /// `olm.gvk`: an API some installed operator provides.
    Gvk { group: String, version: String, kind: String },
}

fn s<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

const RANGE_HELP: &str = "blang semver ranges, as OLM reads them: '>=0.9.0 <1.0.0', '0.9.x', '<1.0.0 || >=2.0.0', \
                          '0.9.2' for one version";

impl Dependency {
    /// `NAME:RANGE`, e.g. `etcd:>=0.9.0 <1.0.0` (`--depends-on-package`).
    pub fn parse_package(text: &str) -> Result<Dependency, String> {
        let Some((name, range)) = text.split_once(':') else {
            return Err(format!(
                "--depends-on-package {text:?}: write PACKAGE:RANGE, e.g. --depends-on-package etcd:'>=0.9.0 <1.0.0'"
            ));
        };
        let (name, range) = (name.trim(), range.trim());
        if !crate::names::is_dns1123_label(name) {
            return Err(format!(
                "--depends-on-package {text:?}: package name {name:?} must be a DNS-1123 label (lower case letters, \
                 digits and '-'), as OLM package names are"
            ));
        }
        if range.is_empty() {
            return Err(format!(
                "--depends-on-package {text:?}: no version range after ':' ({RANGE_HELP}), e.g. {name}:'>=0.9.0 <1.0.0'"
            ));
        }
        Range::parse(range).map_err(|e| {
            format!("--depends-on-package {text:?}: version range {range:?} is not one OLM accepts: {e} ({RANGE_HELP})")
        })?;
        Ok(Dependency::Package { name: name.to_string(), range: range.to_string() })
    }

    /// `GROUP/VERSION/KIND`, e.g. `etcd.database.coreos.com/v1beta2/EtcdCluster` (`--depends-on-gvk`).
    pub fn parse_gvk(text: &str) -> Result<Dependency, String> {
        let parts: Vec<&str> = text.split('/').map(str::trim).collect();
        let [group, version, kind] = parts[..] else {
            return Err(format!(
                "--depends-on-gvk {text:?}: write GROUP/VERSION/KIND, e.g. --depends-on-gvk \
                 etcd.database.coreos.com/v1beta2/EtcdCluster"
            ));
        };
        if group.is_empty() || !crate::names::is_dns1123_subdomain(group) {
            return Err(format!(
                "--depends-on-gvk {text:?}: API group {group:?} must be a DNS-1123 subdomain such as \
                 etcd.database.coreos.com (a dependency names another operator's API; built-in kinds need none)"
            ));
        }
        if !crate::names::is_dns1035_label(version) {
            return Err(format!(
                "--depends-on-gvk {text:?}: API version {version:?} must be a version name such as v1 or v1beta2"
            ));
        }
        let kind_ok = kind.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && kind.chars().all(|c| c.is_ascii_alphanumeric());
        if !kind_ok {
            return Err(format!(
                "--depends-on-gvk {text:?}: kind {kind:?} must be a Kubernetes kind in CamelCase, such as EtcdCluster"
            ));
        }
        Ok(Dependency::Gvk { group: group.into(), version: version.into(), kind: kind.into() })
    }

    /// The entry of `dependencies.yaml` (and of PROJECT's record): `{type, value}`.
    pub fn to_entry(&self) -> Value {
        match self {
            Dependency::Package { name, range } => {
                json!({"type": "olm.package", "value": {"packageName": name, "version": range}})
            }
            Dependency::Gvk { group, version, kind } => {
                json!({"type": "olm.gvk", "value": {"group": group, "kind": kind, "version": version}})
            }
        }
    }

    /// Reads an entry written by `to_entry`, checking it as the flags are checked.
    pub fn from_entry(entry: &Value) -> Result<Dependency, String> {
        let v = &entry["value"];
        match s(entry, "/type") {
            "olm.package" => Dependency::parse_package(&format!("{}:{}", s(v, "/packageName"), s(v, "/version"))),
            "olm.gvk" => Dependency::parse_gvk(&format!("{}/{}/{}", s(v, "/group"), s(v, "/version"), s(v, "/kind"))),
            other => Err(format!("unsupported dependency type {other:?} (kubesmith records olm.package and olm.gvk)")),
        }
    }
}

/// The text of `metadata/dependencies.yaml`.
pub fn file_yaml(deps: &[Dependency]) -> String {
    let entries: Vec<Value> = deps.iter().map(Dependency::to_entry).collect();
    crate::yaml::to_string(&json!({ "dependencies": entries }))
}

/// The `dependencies:` entries of every file in a bundle's `metadata/` folder.
pub fn entries(files: &BundleFiles) -> Vec<Value> {
    let mut out = Vec::new();
    for (_, bytes) in files.in_dir(Path::new("metadata")) {
        let Ok(v) = crate::yaml::from_str(&String::from_utf8_lossy(bytes)) else { continue };
        out.extend(v["dependencies"].as_array().into_iter().flatten().cloned());
    }
    out
}

/// The catalog properties of a bundle's dependencies, as `opm render` makes them: `olm.package` →
/// `olm.package.required {packageName, versionRange}`, `olm.gvk` → `olm.gvk.required`, `olm.label` →
/// `olm.label.required`, `olm.constraint` as it is.
pub fn catalog_properties(files: &BundleFiles) -> Vec<Value> {
    let mut out = Vec::new();
    for d in entries(files) {
        let value = &d["value"];
        let prop = match s(&d, "/type") {
            "olm.package" => json!({"type": "olm.package.required", "value": {
                "packageName": s(value, "/packageName"), "versionRange": s(value, "/version")}}),
            "olm.gvk" => json!({"type": "olm.gvk.required", "value": {
                "group": s(value, "/group"), "kind": s(value, "/kind"), "version": s(value, "/version")}}),
            "olm.label" => json!({"type": "olm.label.required", "value": value}),
            "olm.constraint" => json!({"type": "olm.constraint", "value": value}),
            _ => continue,
        };
        out.push(prop);
    }
    out
}

/// What the bundles of some catalogs provide: package versions and APIs, each with the bundle providing it.
#[derive(Default)]
struct Provided {
    /// package → (version, bundle)
    packages: BTreeMap<String, Vec<(Version, String)>>,
    /// (group, kind) → (version, bundle)
    apis: BTreeMap<(String, String), Vec<(String, String)>>,
}

impl Provided {
    fn add(&mut self, bundle: &Value) {
        let name = s(bundle, "/name").to_string();
        for p in bundle["properties"].as_array().into_iter().flatten() {
            let v = &p["value"];
            match s(p, "/type") {
                "olm.package" => {
                    if let Ok(version) = Version::parse(s(v, "/version")) {
                        self.packages
                            .entry(s(v, "/packageName").to_string())
                            .or_default()
                            .push((version, name.clone()));
                    }
                }
                "olm.gvk" => {
                    let key = (s(v, "/group").to_string(), s(v, "/kind").to_string());
                    self.apis.entry(key).or_default().push((s(v, "/version").to_string(), name.clone()));
                }
                _ => {}
            }
        }
    }
}

/// `catalog validate --resolve`: every `olm.package.required` and `olm.gvk.required` of a bundle in `catalog` must be
/// provided by some bundle of `catalog` or of `with` (the `--with` catalogs): a bundle of that package with a version
/// in the range, a bundle with that `olm.gvk`. Each finding names the bundle that needs it. `olm.label.required` and
/// `olm.constraint` cannot be decided offline and are warnings.
pub fn resolve(catalog: &[Value], with: &[Value]) -> Vec<Finding> {
    let mut provided = Provided::default();
    for b in catalog.iter().chain(with).filter(|d| d["schema"] == "olm.bundle") {
        provided.add(b);
    }
    let scope = if with.is_empty() {
        "no bundle of the catalog provides it (pass the catalog that does with --with DIR)"
    } else {
        "no bundle of the catalog or of the --with catalogs provides it"
    };
    let mut out = Vec::new();
    let mut err = |m: String| out.push(Finding { level: Level::Error, message: m });
    let mut warnings = Vec::new();
    for b in catalog.iter().filter(|d| d["schema"] == "olm.bundle") {
        let bundle = s(b, "/name");
        for p in b["properties"].as_array().into_iter().flatten() {
            let v = &p["value"];
            match s(p, "/type") {
                "olm.package.required" => {
                    let (pkg, range_text) = (s(v, "/packageName"), s(v, "/versionRange"));
                    let range = match Range::parse(range_text) {
                        Ok(r) => r,
                        Err(e) => {
                            err(format!(
                                "bundle {bundle:?} requires package {pkg:?} with an invalid versionRange {range_text:?}: {e}"
                            ));
                            continue;
                        }
                    };
                    let versions = provided.packages.get(pkg).map(Vec::as_slice).unwrap_or_default();
                    if versions.iter().any(|(version, _)| range.contains(version)) {
                        continue;
                    }
                    if versions.is_empty() {
                        err(format!(
                            "bundle {bundle:?} requires package {pkg:?} at '{range_text}' (olm.package.required), but {scope}"
                        ));
                    } else {
                        let found: BTreeSet<String> = versions.iter().map(|(v, _)| v.to_string()).collect();
                        err(format!(
                            "bundle {bundle:?} requires package {pkg:?} at '{range_text}' (olm.package.required), but \
                             no bundle of {pkg:?} has a version in that range (found {})",
                            found.into_iter().collect::<Vec<_>>().join(", ")
                        ));
                    }
                }
                "olm.gvk.required" => {
                    let (group, version, kind) = (s(v, "/group"), s(v, "/version"), s(v, "/kind"));
                    let others = provided.apis.get(&(group.to_string(), kind.to_string()));
                    if others.is_some_and(|o| o.iter().any(|(ver, _)| ver == version)) {
                        continue;
                    }
                    let api = format!("{group}/{version} {kind}");
                    match others {
                        None => err(format!("bundle {bundle:?} requires API {api} (olm.gvk.required), but {scope}")),
                        Some(o) => {
                            let found: BTreeSet<String> = o.iter().map(|(ver, b)| format!("{ver} in {b}")).collect();
                            err(format!(
                                "bundle {bundle:?} requires API {api} (olm.gvk.required), but {kind} is provided only \
                                 at other versions ({})",
                                found.into_iter().collect::<Vec<_>>().join(", ")
                            ));
                        }
                    }
                }
                t @ ("olm.label.required" | "olm.constraint") => warnings.push(Finding {
                    level: Level::Warning,
                    message: format!(
                        "bundle {bundle:?} has a {t} dependency, which --resolve does not check (OLM decides it \
                         on the cluster)"
                    ),
                }),
                _ => {}
            }
        }
    }
    out.extend(warnings);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_dependencies_are_parsed_and_checked() {
        assert_eq!(
            Dependency::parse_package("etcd:>=0.9.0 <1.0.0").unwrap(),
            Dependency::Package { name: "etcd".into(), range: ">=0.9.0 <1.0.0".into() }
        );
        assert_eq!(
            Dependency::parse_package(" etcd : 0.9.x ").unwrap(),
            Dependency::Package { name: "etcd".into(), range: "0.9.x".into() }
        );
        for (bad, want) in [
            ("etcd", "write PACKAGE:RANGE"),
            ("Etcd:1.0.0", "must be a DNS-1123 label"),
            ("etcd:", "no version range"),
            ("etcd:>=v1.0.0", "is not one OLM accepts"),
            ("etcd:>=1.0", "is not one OLM accepts"),
        ] {
            let e = Dependency::parse_package(bad).unwrap_err();
            assert!(e.contains(want), "{bad}: {e}");
        }
    }

    #[test]
    fn gvk_dependencies_are_parsed_and_checked() {
        assert_eq!(
            Dependency::parse_gvk("etcd.database.coreos.com/v1beta2/EtcdCluster").unwrap(),
            Dependency::Gvk {
                group: "etcd.database.coreos.com".into(),
                version: "v1beta2".into(),
                kind: "EtcdCluster".into()
            }
        );
        for (bad, want) in [
            ("etcd.database.coreos.com/EtcdCluster", "write GROUP/VERSION/KIND"),
            ("/v1/Pod", "API group \"\""),
            ("Etcd.io/v1/X", "DNS-1123 subdomain"),
            ("etcd.io/1/X", "API version \"1\""),
            ("etcd.io/v1/etcdCluster", "CamelCase"),
        ] {
            let e = Dependency::parse_gvk(bad).unwrap_err();
            assert!(e.contains(want), "{bad}: {e}");
        }
    }

    #[test]
    fn entries_round_trip_and_format_like_opm_expects() {
        let deps = vec![
            Dependency::parse_package("etcd:>=0.9.0 <1.0.0").unwrap(),
            Dependency::parse_gvk("etcd.database.coreos.com/v1beta2/EtcdCluster").unwrap(),
        ];
        for d in &deps {
            assert_eq!(&Dependency::from_entry(&d.to_entry()).unwrap(), d);
        }
        assert_eq!(
            file_yaml(&deps),
            "dependencies:\n- type: olm.package\n  value:\n    packageName: etcd\n    version: '>=0.9.0 <1.0.0'\n\
             - type: olm.gvk\n  value:\n    group: etcd.database.coreos.com\n    kind: EtcdCluster\n    version: v1beta2\n"
        );
        assert!(Dependency::from_entry(&json!({"type": "olm.label", "value": {"label": "x"}})).is_err());
    }

    #[test]
    fn catalog_properties_are_opm_renders() {
        let mut files = BundleFiles::default();
        let deps = "dependencies:\n- type: olm.package\n  value: {packageName: etcd, version: '>=0.9.0 <1.0.0'}\n\
                    - type: olm.gvk\n  value: {group: etcd.io, kind: EtcdCluster, version: v1beta2}\n\
                    - type: olm.label\n  value: {label: beta}\n\
                    - type: olm.constraint\n  value: {failureMessage: no, cel: {rule: 'true'}}\n";
        files.files.insert("metadata/dependencies.yaml".into(), deps.as_bytes().to_vec());
        files.files.insert("metadata/annotations.yaml".into(), b"annotations: {a: b}\n".to_vec());
        assert_eq!(
            catalog_properties(&files),
            vec![
                json!({"type": "olm.package.required", "value": {"packageName": "etcd", "versionRange": ">=0.9.0 <1.0.0"}}),
                json!({"type": "olm.gvk.required", "value": {"group": "etcd.io", "kind": "EtcdCluster", "version": "v1beta2"}}),
                json!({"type": "olm.label.required", "value": {"label": "beta"}}),
                json!({"type": "olm.constraint", "value": {"failureMessage": "no", "cel": {"rule": "true"}}}),
            ]
        );
    }

    fn bundle(name: &str, props: Value) -> Value {
        json!({"schema": "olm.bundle", "name": name, "package": name.split('.').next().unwrap(), "properties": props})
    }

    #[test]
    fn resolve_reports_what_nothing_provides_naming_the_bundle() {
        let app = bundle(
            "app.v1.0.0",
            json!([
                {"type": "olm.package", "value": {"packageName": "app", "version": "1.0.0"}},
                {"type": "olm.package.required", "value": {"packageName": "etcd", "versionRange": ">=0.9.0 <1.0.0"}},
                {"type": "olm.gvk.required", "value": {"group": "etcd.io", "kind": "EtcdCluster", "version": "v1beta2"}},
                {"type": "olm.constraint", "value": {"failureMessage": "x", "cel": {"rule": "true"}}}
            ]),
        );
        let found = resolve(std::slice::from_ref(&app), &[]);
        let msgs: Vec<String> = found.iter().map(|f| f.to_string()).collect();
        assert_eq!(found.iter().filter(|f| f.level == Level::Error).count(), 2, "{msgs:#?}");
        assert!(msgs[0].contains("bundle \"app.v1.0.0\" requires package \"etcd\" at '>=0.9.0 <1.0.0'"), "{msgs:#?}");
        assert!(msgs[0].contains("--with"), "{msgs:#?}");
        assert!(msgs[1].contains("requires API etcd.io/v1beta2 EtcdCluster"), "{msgs:#?}");
        assert!(msgs[2].starts_with("Warning: bundle \"app.v1.0.0\" has a olm.constraint"), "{msgs:#?}");

        // An etcd at the wrong version and API version: said so.
        let old = bundle(
            "etcd.v0.8.0",
            json!([
                {"type": "olm.package", "value": {"packageName": "etcd", "version": "0.8.0"}},
                {"type": "olm.gvk", "value": {"group": "etcd.io", "kind": "EtcdCluster", "version": "v1beta1"}}
            ]),
        );
        let msgs: Vec<String> =
            resolve(std::slice::from_ref(&app), std::slice::from_ref(&old)).iter().map(|f| f.to_string()).collect();
        assert!(msgs[0].contains("no bundle of \"etcd\" has a version in that range (found 0.8.0)"), "{msgs:#?}");
        assert!(msgs[1].contains("provided only at other versions (v1beta1 in etcd.v0.8.0)"), "{msgs:#?}");

        // The right etcd satisfies both.
        let good = bundle(
            "etcd.v0.9.2",
            json!([
                {"type": "olm.package", "value": {"packageName": "etcd", "version": "0.9.2"}},
                {"type": "olm.gvk", "value": {"group": "etcd.io", "kind": "EtcdCluster", "version": "v1beta2"}}
            ]),
        );
        let found = resolve(&[app], &[old, good]);
        assert!(found.iter().all(|f| f.level == Level::Warning), "{found:?}");
    }
}
