//! What `make bundle` records in PROJECT (`plugins["rust.kubesmith.io/v1alpha1"].bundle`): the dependencies given
//! with `--depends-on-package` / `--depends-on-gvk` and the install modes given with `--install-modes`, so that the
//! next `make bundle` (the Makefile's, which passes neither) keeps them.
//!
//! Giving `--depends-on-package` replaces the recorded package dependencies (and `--depends-on-gvk` the API ones);
//! `=none` removes them; `--install-modes auto` drops the recorded install modes.

use anyhow::{Result, anyhow};
use serde_json::{Map, Value, json};

use super::dependencies::{self, Dependency};
use super::install_modes::{self, Mode};
use crate::project::{PLUGIN_KEY, PROJECT_FILE, ProjectFile};

/// The key under kubesmith's plugin entry.
const KEY: &str = "bundle";

/// The recorded settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// Package dependencies first, then API ones, each in the order given.
    pub dependencies: Vec<Dependency>,
    /// `None`: the project and the base CSV decide.
    pub install_modes: Option<Vec<Mode>>,
}

/// What one command line asks to change.
#[derive(Debug, Clone, Default)]
pub struct Requested {
    /// `Some(list)` replaces the package dependencies (`none` gives an empty list).
    pub packages: Option<Vec<Dependency>>,
    /// `Some(list)` replaces the API dependencies.
    pub gvks: Option<Vec<Dependency>>,
    /// `Some(None)`: `auto`; `Some(Some(modes))`: these.
    pub install_modes: Option<Option<Vec<Mode>>>,
}

fn parse_list(
    flag: &str,
    items: &[String],
    parse: fn(&str) -> Result<Dependency, String>,
) -> Result<Option<Vec<Dependency>>, String> {
    if items.is_empty() {
        return Ok(None);
    }
    if items.iter().any(|i| i.trim() == dependencies::NONE) {
        if items.len() > 1 {
            return Err(format!("{flag}={}: stands alone (it removes the recorded ones)", dependencies::NONE));
        }
        return Ok(Some(Vec::new()));
    }
    let mut out: Vec<Dependency> = Vec::new();
    for i in items {
        let d = parse(i)?;
        if !out.contains(&d) {
            out.push(d);
        }
    }
    Ok(Some(out))
}

impl Requested {
    /// Parses the three flags; an error is a usage error's text.
    pub fn parse(packages: &[String], gvks: &[String], install_modes: &[String]) -> Result<Requested, String> {
        Ok(Requested {
            packages: parse_list("--depends-on-package", packages, Dependency::parse_package)?,
            gvks: parse_list("--depends-on-gvk", gvks, Dependency::parse_gvk)?,
            install_modes: if install_modes.is_empty() {
                None
            } else {
                Some(install_modes::parse_flag(install_modes)?)
            },
        })
    }

    /// True when no flag was given.
    pub fn is_empty(&self) -> bool {
        self.packages.is_none() && self.gvks.is_none() && self.install_modes.is_none()
    }
}

impl Settings {
    /// The settings PROJECT records (none in a project that never used the flags).
    pub fn read(file: &ProjectFile) -> Result<Settings> {
        let Some(b) = file.plugins.get(PLUGIN_KEY).and_then(|p| p.get(KEY)) else {
            return Ok(Settings::default());
        };
        let at = |what: &str, e: String| {
            anyhow!(
                "{PROJECT_FILE}: plugins[\"{PLUGIN_KEY}\"].{KEY}.{what}: {e}; fix it, or set it again with \
                 `kubesmith make bundle` and its flags"
            )
        };
        let mut out = Settings::default();
        for (i, e) in b.get("dependencies").and_then(Value::as_array).into_iter().flatten().enumerate() {
            out.dependencies.push(Dependency::from_entry(e).map_err(|e| at(&format!("dependencies[{i}]"), e))?);
        }
        if let Some(modes) = b.get("installModes") {
            let items: Vec<String> = modes
                .as_array()
                .ok_or_else(|| at("installModes", "not a list of install modes".into()))?
                .iter()
                .map(|m| m.as_str().unwrap_or_default().to_string())
                .collect();
            let parsed = install_modes::parse_flag(&items).map_err(|e| at("installModes", e))?;
            out.install_modes = Some(parsed.ok_or_else(|| at("installModes", "list install modes".into()))?);
        }
        Ok(out)
    }

    /// The settings after a command line's changes.
    pub fn apply(&self, r: &Requested) -> Settings {
        let keep = |want_package: bool| {
            self.dependencies.iter().filter(move |d| matches!(d, Dependency::Package { .. }) == want_package).cloned()
        };
        let mut dependencies: Vec<Dependency> = match &r.packages {
            Some(p) => p.clone(),
            None => keep(true).collect(),
        };
        match &r.gvks {
            Some(g) => dependencies.extend(g.iter().cloned()),
            None => dependencies.extend(keep(false)),
        }
        let install_modes = match &r.install_modes {
            Some(m) => m.clone(),
            None => self.install_modes.clone(),
        };
        Settings { dependencies, install_modes }
    }

    /// Writes the settings into PROJECT's model (removing the entry when there is nothing to record).
    pub fn write(&self, file: &mut ProjectFile) {
        let mut entry = Map::new();
        if !self.dependencies.is_empty() {
            entry.insert("dependencies".into(), self.dependencies.iter().map(Dependency::to_entry).collect());
        }
        if let Some(m) = &self.install_modes {
            entry.insert("installModes".into(), m.iter().map(|m| json!(m.name())).collect());
        }
        let plugin = file.plugins.entry(PLUGIN_KEY).or_insert_with(|| json!({}));
        if !plugin.is_object() {
            *plugin = json!({});
        }
        let Some(plugin) = plugin.as_object_mut() else { return };
        if entry.is_empty() {
            plugin.remove(KEY);
        } else {
            plugin.insert(KEY.into(), Value::Object(entry));
        }
        if plugin.is_empty() {
            file.plugins.remove(PLUGIN_KEY);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn requests_replace_per_kind_and_round_trip_through_project() {
        let mut file = ProjectFile { version: "3".into(), ..Default::default() };
        let first = Requested::parse(
            &strings(&["etcd:>=0.9.0 <1.0.0", "vault:1.x"]),
            &strings(&["etcd.database.coreos.com/v1beta2/EtcdCluster"]),
            &strings(&["OwnNamespace", "SingleNamespace"]),
        )
        .unwrap();
        let s1 = Settings::read(&file).unwrap().apply(&first);
        assert_eq!(s1.dependencies.len(), 3);
        s1.write(&mut file);
        assert_eq!(file.plugins[PLUGIN_KEY][KEY]["installModes"], json!(["OwnNamespace", "SingleNamespace"]));
        assert_eq!(Settings::read(&file).unwrap(), s1);
        // Nothing asked: unchanged. Packages only: the API dependency stays.
        assert_eq!(s1.apply(&Requested::default()), s1);
        let s2 = s1.apply(&Requested::parse(&strings(&["etcd:0.9.2"]), &[], &[]).unwrap());
        assert_eq!(
            s2.dependencies,
            vec![
                Dependency::parse_package("etcd:0.9.2").unwrap(),
                Dependency::parse_gvk("etcd.database.coreos.com/v1beta2/EtcdCluster").unwrap()
            ]
        );
        // none and auto remove everything; the plugin entry goes away.
        let s3 = s2.apply(&Requested::parse(&strings(&["none"]), &strings(&["none"]), &strings(&["auto"])).unwrap());
        assert_eq!(s3, Settings::default());
        s3.write(&mut file);
        assert!(file.plugins.is_empty(), "{:?}", file.plugins);
    }

    #[test]
    fn bad_requests_and_records_are_refused() {
        assert!(Requested::parse(&strings(&["none", "etcd:1.0.0"]), &[], &[]).unwrap_err().contains("stands alone"));
        assert!(Requested::parse(&[], &strings(&["x"]), &[]).unwrap_err().contains("GROUP/VERSION/KIND"));
        let mut file = ProjectFile { version: "3".into(), ..Default::default() };
        file.plugins.insert(PLUGIN_KEY.into(), json!({"bundle": {"installModes": ["Everywhere"]}}));
        let e = Settings::read(&file).unwrap_err().to_string();
        assert!(e.contains("bundle.installModes: --install-modes: unknown install mode \"Everywhere\""), "{e}");
    }
}
