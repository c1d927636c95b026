//! Each real CRD through `init --from-crd` + `make manifests` (identical as data / the same as the API server
//! stores it / refused / different), and through kopium + `make manifests` against kube-derive's `crd()` of the
//! same types; the kopium output of every CRD is also the wide corpus `make manifests` is timed on.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::Value;

use super::compare::{as_stored, first_difference, identity};
use super::{Run, read_crd_dir};

/// One CRD document of the corpus.
#[derive(Debug, Clone)]
pub struct Doc {
    pub project: String,
    /// `file` in the project's repository, and the CRD's name.
    pub file: String,
    pub name: String,
    pub crd: Value,
    /// Its size as YAML, in bytes (the file's size divided among its documents is not needed: one document).
    pub bytes: usize,
}

/// Every `CustomResourceDefinition` document of the YAML `text` (other documents and empty ones skipped).
pub fn documents(text: &str) -> Result<Vec<Value>> {
    let mut out = Vec::new();
    for doc in serde_yaml_ng::Deserializer::from_str(text) {
        let value: Value = match serde_yaml_ng::Value::deserialize(doc) {
            Ok(serde_yaml_ng::Value::Null) => continue,
            Ok(v) => serde_json::to_value(v).context("a document is not JSON-shaped")?,
            Err(e) => return Err(e).context("a YAML document does not parse"),
        };
        if value["kind"] == "CustomResourceDefinition" {
            out.push(value);
        }
    }
    Ok(out)
}

use serde::Deserialize;

/// How one CRD came back through `--from-crd`.
#[derive(Debug, Clone, PartialEq)]
pub enum RoundTrip {
    Identical,
    /// The same once the API server's defaults and set-like orders apply; the first difference as data.
    AsStored(String),
    /// Refused by `init --from-crd` or `make manifests`: the first error line.
    Refused(String),
    /// Different as the server stores it: the first differing path, and whether kubesmith said it differs.
    Different {
        path: String,
        said: bool,
    },
}

impl RoundTrip {
    pub fn label(&self) -> &'static str {
        match self {
            RoundTrip::Identical => "identical",
            RoundTrip::AsStored(_) => "same as stored",
            RoundTrip::Refused(_) => "refused",
            RoundTrip::Different { said: true, .. } => "different (said)",
            RoundTrip::Different { said: false, .. } => "different (silent)",
        }
    }
}

/// The domain a project holding `group` gets: the group without its first label (`acme.cert-manager.io` →
/// `cert-manager.io`), or the group itself when it has one label.
pub fn domain_of(group: &str) -> String {
    match group.split_once('.') {
        Some((_, rest)) => rest.to_string(),
        None => group.to_string(),
    }
}

/// Judges what came back (`got`, `None` when no CRD was written) against `want`.
pub fn judge(want: &Value, got: Option<&Value>, failure: Option<String>, said_differs: bool) -> RoundTrip {
    if let Some(why) = failure {
        return RoundTrip::Refused(why);
    }
    let Some(got) = got else { return RoundTrip::Refused("no CRD written".into()) };
    if identity(want) == identity(got) {
        return RoundTrip::Identical;
    }
    let first = first_difference(&identity(want), &identity(got)).unwrap_or_default();
    match first_difference(&as_stored(want), &as_stored(got)) {
        None => RoundTrip::AsStored(first),
        Some(path) => RoundTrip::Different { path, said: said_differs },
    }
}

/// `init --from-crd` of `doc` in a fresh project under `work`, then `make manifests`; the CRD it wrote.
pub fn round_trip(run: &Run, doc: &Doc, work: &Path) -> Result<RoundTrip> {
    let _ = std::fs::remove_dir_all(work);
    let project = work.join("project");
    std::fs::create_dir_all(&project)?;
    let file = work.join("crd.yaml");
    std::fs::write(&file, serde_yaml_ng::to_string(&doc.crd)?)?;
    let group = doc.crd.pointer("/spec/group").and_then(Value::as_str).unwrap_or_default();
    let init = run.kubesmith(
        &project,
        &[
            "init",
            "--domain",
            &domain_of(group),
            "--project-name",
            "realworld",
            "--from-crd",
            &file.display().to_string(),
        ],
        &[],
    )?;
    if !init.ok {
        return Ok(RoundTrip::Refused(init.first_error()));
    }
    let said = init.stdout.contains("differs from") || init.stderr.contains("differs from");
    let make = run.kubesmith(&project, &["make", "manifests", "--no-compile"], &[])?;
    let failure = (!make.ok).then(|| make.first_error());
    let crds = read_crd_dir(&project.join("config/crd/bases"));
    Ok(judge(&doc.crd, crds.get(&doc.name), failure, said))
}

/// Where kopium's output for `doc` goes in the wide crate: `src/<project>/<module>.rs`.
pub fn module_name(doc: &Doc) -> String {
    module_name_of(&doc.name)
}

/// [`module_name`] of a CRD name (`plural.group`).
pub fn module_name_of(name: &str) -> String {
    let base = name.split('.').next().unwrap_or("crd");
    let group = name.split_once('.').map_or("", |(_, g)| g);
    sanitize(&format!("{base}_{}", group.replace('.', "_")))
}

fn sanitize(s: &str) -> String {
    let mut out: String =
        s.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'm');
    }
    out
}

/// kopium's Rust for `doc` (all served versions it offers, one module each), or why it has none.
pub fn kopium(kopium: &Path, doc: &Doc, work: &Path) -> Result<Result<Vec<(String, String)>, String>> {
    std::fs::create_dir_all(work)?;
    let file = work.join(format!("{}.yaml", module_name(doc)));
    std::fs::write(&file, serde_yaml_ng::to_string(&doc.crd)?)?;
    let versions: Vec<String> = doc
        .crd
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v["name"].as_str().map(str::to_string))
        .collect();
    let mut out = Vec::new();
    for v in versions {
        let made = std::process::Command::new(kopium)
            .args(["-f"])
            .arg(&file)
            .args(["--api-version", &v, "--schema", "derived"])
            .output()
            .context("cannot run kopium")?;
        if !made.status.success() {
            let err = String::from_utf8_lossy(&made.stderr);
            return Ok(Err(format!("kopium {v}: {}", err.lines().next().unwrap_or("failed"))));
        }
        out.push((sanitize(&v), String::from_utf8_lossy(&made.stdout).into_owned()));
    }
    Ok(Ok(out))
}

/// Writes the wide crate (`Cargo.toml`, `src/lib.rs`, a module per project, CRD and version) at `dir` from
/// `modules` (project, CRD module, version module, Rust), with kube 5's dependency set from `lock`.
pub fn write_wide_crate(
    dir: &Path,
    package: &str,
    modules: &[(String, String, String, String)],
    lock: &Path,
) -> Result<PathBuf> {
    let src = dir.join("src");
    let _ = std::fs::remove_dir_all(&src);
    std::fs::create_dir_all(&src)?;
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{package}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\nkube = {{ version = \"5\", default-features = false, features = [\"derive\"] }}\n\
         k8s-openapi = {{ version = \"0.29\", features = [\"v1_33\", \"schemars\"] }}\nschemars = \"1\"\n\
         serde = {{ version = \"1\", features = [\"derive\"] }}\nserde_json = \"1\"\n\n[workspace]\n"
        ),
    )?;
    if !dir.join("Cargo.lock").exists() && lock.exists() {
        std::fs::copy(lock, dir.join("Cargo.lock"))?;
    }
    let mut lib = String::from(
        "//! kopium's output for every CRD of the real-world corpus (generated; never committed).\n#![allow(clippy::all, non_camel_case_types, non_snake_case, dead_code, unused_imports)]\n",
    );
    type Versions<'a> = Vec<(&'a str, &'a str)>;
    let mut projects: std::collections::BTreeMap<&str, std::collections::BTreeMap<&str, Versions>> = Default::default();
    for (p, m, v, text) in modules {
        projects.entry(p).or_default().entry(m).or_default().push((v, text));
    }
    for (p, crds) in projects {
        let pm = sanitize(p);
        lib.push_str(&format!("pub mod {pm};\n"));
        let mut pmod = String::new();
        for (m, versions) in crds {
            pmod.push_str(&format!("pub mod {m} {{\n"));
            for (v, _) in &versions {
                pmod.push_str(&format!("    pub mod {v};\n"));
            }
            pmod.push_str("}\n");
            for (v, text) in versions {
                let file = src.join(&pm).join(m).join(format!("{v}.rs"));
                std::fs::create_dir_all(file.parent().expect("folder"))?;
                std::fs::write(file, text)?;
            }
        }
        std::fs::write(src.join(format!("{pm}.rs")), pmod)?;
    }
    std::fs::write(src.join("lib.rs"), lib)?;
    Ok(dir.to_path_buf())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn crd_documents_are_found_among_others() {
        let text = "# header\n---\napiVersion: v1\nkind: Namespace\n---\n\n---\napiVersion: apiextensions.k8s.io/v1\n\
                    kind: CustomResourceDefinition\nmetadata:\n  name: foos.x.io\nspec:\n  group: x.io\n";
        let docs = documents(text).unwrap();
        assert_eq!(docs.len(), 1);
        assert_eq!(docs[0]["metadata"]["name"], "foos.x.io");
    }

    #[test]
    fn the_domain_is_the_group_less_its_first_label() {
        assert_eq!(domain_of("acme.cert-manager.io"), "cert-manager.io");
        assert_eq!(domain_of("argoproj.io"), "io");
        assert_eq!(domain_of("local"), "local");
    }

    #[test]
    fn round_trips_are_judged_as_data_then_as_stored() {
        let want = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "foos.x.io"},
            "spec": {"group": "x.io", "names": {"kind": "Foo", "plural": "foos", "singular": "foo"}, "scope": "Namespaced",
                     "versions": []}});
        assert_eq!(judge(&want, Some(&want), None, false), RoundTrip::Identical);
        let mut dropped = want.clone();
        dropped["spec"]["names"].as_object_mut().unwrap().remove("singular");
        assert_eq!(judge(&want, Some(&dropped), None, true).label(), "same as stored");
        let mut other = want.clone();
        other["spec"]["scope"] = json!("Cluster");
        assert_eq!(
            judge(&want, Some(&other), None, false),
            RoundTrip::Different { path: "spec.scope: \"Namespaced\" / \"Cluster\"".into(), said: false }
        );
        assert_eq!(judge(&want, None, Some("error: x".into()), false), RoundTrip::Refused("error: x".into()));
    }

    #[test]
    fn module_names_are_rust_identifiers() {
        let doc =
            Doc { project: "p".into(), file: "f".into(), name: "1foos.x-y.io".into(), crd: Value::Null, bytes: 0 };
        assert_eq!(module_name(&doc), "m1foos_x_y_io");
    }
}
