//! File-based catalogs (FBC): rendering bundle folders into `olm.package`, `olm.channel` and `olm.bundle`
//! documents like `opm render`, validating a catalog with `opm validate`'s rules, and drawing the upgrade graph.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use super::bundle::{self, BundleFiles};
use super::finding::{Finding, Level};
use super::semver::{Range, Version};

fn s<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

/// Standard base64 (RFC 4648, padded).
pub fn base64(data: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(T[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// One bundle folder, read for the catalog.
#[derive(Debug, Clone)]
pub struct RenderedBundle {
    pub package: String,
    pub name: String,
    pub version: Version,
    pub channels: Vec<String>,
    pub default_channel: Option<String>,
    pub replaces: Option<String>,
    pub skips: Vec<String>,
    pub skip_range: Option<String>,
    /// The `olm.bundle` document.
    pub blob: Value,
}

/// Renders a bundle folder as `opm render` does (the image is the bundle image's pull spec).
pub fn render_bundle(files: &BundleFiles, image: &str) -> Result<RenderedBundle> {
    let root = &files.root;
    let Some((_, ann)) = files.annotations() else {
        bail!("{root}: Could not find annotations file in metadata/");
    };
    let package = ann.get(bundle::PACKAGE).cloned().unwrap_or_default();
    if package.is_empty() {
        bail!("{root}: annotation {} is missing", bundle::PACKAGE);
    }
    let channels: Vec<String> = ann
        .get(bundle::CHANNELS)
        .map(|c| c.split(',').map(|c| c.trim().to_string()).filter(|c| !c.is_empty()).collect())
        .unwrap_or_default();
    if channels.is_empty() {
        bail!("{root}: annotation {} names no channel", bundle::CHANNELS);
    }
    let mut csv = None;
    let mut objects = Vec::new();
    for (p, bytes) in files.in_dir(Path::new("manifests")) {
        let docs = BundleFiles::documents(bytes).map_err(|e| anyhow::anyhow!("{root}/{}: {e}", p.display()))?;
        for d in docs {
            if d["kind"] == "ClusterServiceVersion" && csv.is_none() {
                csv = Some(d.clone());
            }
            objects.push(d);
        }
    }
    let Some(csv) = csv else {
        bail!("{root}: no csv in bundle");
    };
    let name = s(&csv, "/metadata/name").to_string();
    let version_text = s(&csv, "/spec/version");
    let version = Version::parse(version_text)
        .map_err(|e| anyhow::anyhow!("{root}: error parsing bundle {name:?} version {version_text:?}: {e}"))?;
    let mut props: Vec<Value> =
        vec![json!({"type": "olm.package", "value": {"packageName": package, "version": version_text}})];
    for (list, ty) in [("owned", "olm.gvk"), ("required", "olm.gvk.required")] {
        for o in csv["spec"]["customresourcedefinitions"][list].as_array().into_iter().flatten() {
            let group = s(o, "/name").split_once('.').map(|(_, g)| g).unwrap_or("");
            props.push(
                json!({"type": ty, "value": {"group": group, "kind": s(o, "/kind"), "version": s(o, "/version")}}),
            );
        }
    }
    props.extend(super::dependencies::catalog_properties(files));
    props.sort_by_key(|p| (p["type"].to_string(), p["value"].to_string()));
    props.dedup();
    for o in &objects {
        let data = serde_json::to_vec(o)?;
        props.push(json!({"type": "olm.bundle.object", "value": {"data": base64(&data)}}));
    }
    let mut images: BTreeMap<String, String> = BTreeMap::new();
    for r in csv["spec"]["relatedImages"].as_array().into_iter().flatten() {
        images.insert(s(r, "/image").to_string(), s(r, "/name").to_string());
    }
    if !image.is_empty() {
        images.entry(image.to_string()).or_default();
    }
    for d in csv["spec"]["install"]["spec"]["deployments"].as_array().into_iter().flatten() {
        for k in ["initContainers", "containers"] {
            for c in d.pointer(&format!("/spec/template/spec/{k}")).and_then(Value::as_array).into_iter().flatten() {
                images.entry(s(c, "/image").to_string()).or_default();
            }
        }
    }
    let related: Vec<Value> = images
        .into_iter()
        .filter(|(i, _)| !i.is_empty())
        .map(|(i, n)| if n.is_empty() { json!({"image": i}) } else { json!({"image": i, "name": n}) })
        .collect();
    let mut blob =
        json!({"schema": "olm.bundle", "name": name, "package": package, "image": image, "properties": props});
    if !related.is_empty() {
        blob["relatedImages"] = Value::Array(related);
    }
    let skip_range = csv["metadata"]["annotations"]["olm.skipRange"].as_str().map(str::to_string);
    let skips =
        csv["spec"]["skips"].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect();
    let replaces = csv["spec"]["replaces"].as_str().filter(|r| !r.is_empty()).map(str::to_string);
    Ok(RenderedBundle {
        package,
        name,
        version,
        channels,
        default_channel: ann.get(bundle::DEFAULT_CHANNEL).cloned().filter(|c| !c.is_empty()),
        replaces,
        skips,
        skip_range,
        blob,
    })
}

/// The catalog documents of one package, in opm's canonical order (package, channels by name, bundles by name).
pub fn package_documents(bundles: &[RenderedBundle], default_channel: Option<&str>) -> Result<Vec<Value>> {
    let Some(first) = bundles.first() else {
        bail!("no bundle given");
    };
    let package = &first.package;
    if let Some(other) = bundles.iter().find(|b| &b.package != package) {
        bail!(
            "bundles of different packages ({package:?} and {:?}): a catalog is made per package; pass the bundles of one package",
            other.package
        );
    }
    let mut channels: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for b in bundles {
        for c in &b.channels {
            let mut e = json!({"name": b.name});
            if let Some(r) = &b.replaces {
                e["replaces"] = json!(r);
            }
            if !b.skips.is_empty() {
                e["skips"] = json!(b.skips);
            }
            if let Some(r) = &b.skip_range {
                e["skipRange"] = json!(r);
            }
            channels.entry(c.clone()).or_default().push(e);
        }
    }
    let default = match default_channel {
        Some(d) => d.to_string(),
        None => {
            let newest = bundles.iter().max_by(|a, b| a.version.cmp(&b.version)).map(|b| b.default_channel.clone());
            match (newest.flatten(), channels.len()) {
                (Some(d), _) => d,
                (None, 1) => channels.keys().next().cloned().unwrap_or_default(),
                (None, _) => bail!(
                    "cannot tell the default channel of package {package:?} (channels {}): pass --default-channel, or \
                     make the newest bundle with --default-channel",
                    channels.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            }
        }
    };
    let mut docs = vec![json!({"schema": "olm.package", "name": package, "defaultChannel": default})];
    for (name, mut entries) in channels {
        entries.sort_by(|a, b| s(a, "/name").cmp(s(b, "/name")));
        docs.push(json!({"schema": "olm.channel", "package": package, "name": name, "entries": entries}));
    }
    let mut blobs: Vec<&RenderedBundle> = bundles.iter().collect();
    blobs.sort_by(|a, b| a.name.cmp(&b.name));
    let mut seen = BTreeSet::new();
    for b in blobs {
        if !seen.insert(b.name.clone()) {
            bail!("package {package:?} has duplicate bundle {:?}: two bundle folders have the same CSV name", b.name);
        }
        docs.push(b.blob.clone());
    }
    Ok(docs)
}

/// `<dir>.Dockerfile` (`opm generate dockerfile`).
pub fn dockerfile(dir: &str, base_image: &str) -> String {
    format!(
        "# The base image is expected to contain\n# /bin/opm (with a serve subcommand) and /bin/grpc_health_probe\n\
         FROM {base_image} as builder\nADD {dir} /configs\n\
         RUN [\"/bin/opm\", \"serve\", \"/configs\", \"--cache-dir=/tmp/cache\", \"--cache-only\"]\n\n\
         FROM {base_image}\n# Configure the entrypoint and command\nENTRYPOINT [\"/bin/opm\"]\n\
         CMD [\"serve\", \"/configs\", \"--cache-dir=/tmp/cache\"]\n\n\
         COPY --from=builder /configs /configs\nCOPY --from=builder /tmp/cache /tmp/cache\n\n\
         # Set FBC-specific label for the location of the FBC root directory\n# in the image\n\
         LABEL operators.operatorframework.io.index.configs.v1=/configs\n"
    )
}

/// Every document of the YAML and JSON files under `dir` (skipping hidden files and folders).
pub fn load_dir(dir: &Path) -> Result<Vec<Value>> {
    if !dir.is_dir() {
        bail!("{} is not a folder: pass the catalog folder", dir.display());
    }
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).with_context(|| format!("failed to list {}", d.display()))? {
            let p = e?.path();
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if name.starts_with('.') {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if [".yaml", ".yml", ".json"].iter().any(|x| name.ends_with(x)) {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut docs = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).with_context(|| format!("failed to read {}", f.display()))?;
        let parsed = crate::yaml::from_multi_doc_str(&text)
            .with_context(|| format!("{} is not valid YAML/JSON", f.display()))?;
        docs.extend(parsed);
    }
    Ok(docs)
}

/// One channel of the model.
#[derive(Debug, Clone)]
pub struct Channel {
    pub name: String,
    pub entries: Vec<Value>,
}

/// One package of the model.
#[derive(Debug, Clone, Default)]
pub struct Package {
    pub name: String,
    pub default_channel: String,
    pub channels: Vec<Channel>,
    pub bundles: Vec<Value>,
}

/// Converts the documents to packages (fail-fast rules of `declcfg.ConvertToModel`) and validates them
/// (`model.Validate`). Returns the packages it could build and every finding.
pub fn validate(docs: &[Value]) -> (Vec<Package>, Vec<Finding>) {
    let mut findings = Vec::new();
    let mut err = |m: String| findings.push(Finding { level: Level::Error, message: m });
    let mut packages: BTreeMap<String, Package> = BTreeMap::new();
    for d in docs {
        if d.get("schema").and_then(Value::as_str).is_none() {
            err(format!("object '{}' is missing root schema field", serde_json::to_string(d).unwrap_or_default()));
        }
    }
    for d in docs.iter().filter(|d| d["schema"] == "olm.package") {
        let name = s(d, "/name");
        if name.is_empty() {
            err("config contains package with no name".into());
            continue;
        }
        if packages.contains_key(name) {
            err(format!("duplicate package {name:?}"));
            continue;
        }
        if !crate::names::is_dns1123_label(name) {
            err(format!(
                "invalid package name {name:?}: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"
            ));
        }
        packages.insert(
            name.into(),
            Package { name: name.into(), default_channel: s(d, "/defaultChannel").into(), ..Default::default() },
        );
    }
    for d in docs.iter().filter(|d| d["schema"] == "olm.channel") {
        let (pkg, name) = (s(d, "/package"), s(d, "/name"));
        let Some(p) = packages.get_mut(pkg) else {
            err(format!("unknown package {pkg:?} for channel {name:?}"));
            continue;
        };
        if name.is_empty() {
            err(format!("package {pkg:?} contains channel with no name"));
            continue;
        }
        if p.channels.iter().any(|c| c.name == name) {
            err(format!("package {pkg:?} has duplicate channel {name:?}"));
            continue;
        }
        let entries = d["entries"].as_array().cloned().unwrap_or_default();
        let mut seen = BTreeSet::new();
        for e in &entries {
            if !seen.insert(s(e, "/name").to_string()) {
                err(format!("invalid package {pkg:?}, channel {name:?}: duplicate entry {:?}", s(e, "/name")));
            }
        }
        p.channels.push(Channel { name: name.into(), entries });
    }
    for d in docs.iter().filter(|d| d["schema"] == "olm.bundle") {
        let (pkg, name) = (s(d, "/package"), s(d, "/name"));
        if pkg.is_empty() {
            err(format!("package name must be set for bundle {name:?}"));
            continue;
        }
        let Some(p) = packages.get_mut(pkg) else {
            err(format!("unknown package {pkg:?} for bundle {name:?}"));
            continue;
        };
        if name.is_empty() {
            err(format!("package {pkg:?} contains a bundle with no name: name must be set"));
            continue;
        }
        if p.bundles.iter().any(|b| s(b, "/name") == name) {
            err(format!("package {pkg:?} has duplicate bundle {name:?}"));
            continue;
        }
        let props: Vec<&Value> = d["properties"].as_array().into_iter().flatten().collect();
        for (i, prop) in props.iter().enumerate() {
            if s(prop, "/type").is_empty() {
                err(format!("parse properties for bundle {name:?}: properties[{i}]: type must be set"));
            }
            if prop.get("value").is_none_or(Value::is_null) {
                err(format!("parse properties for bundle {name:?}: properties[{i}]: value must be set"));
            }
        }
        let pkgs: Vec<&&Value> = props.iter().filter(|p| p["type"] == "olm.package").collect();
        if pkgs.len() != 1 {
            err(format!(
                "package {pkg:?} bundle {name:?} must have exactly 1 \"olm.package\" property, found {}",
                pkgs.len()
            ));
        } else {
            let pp = s(pkgs[0], "/value/packageName");
            if pp != pkg {
                err(format!("package {pkg:?} does not match \"olm.package\" property {pp:?}"));
            }
            let v = s(pkgs[0], "/value/version");
            if let Err(e) = Version::parse(v) {
                err(format!("error parsing bundle {name:?} version {v:?}: {e}"));
            }
        }
        let image = s(d, "/image");
        let has_objects = props.iter().any(|p| p["type"] == "olm.bundle.object" || p["type"] == "olm.csv.metadata");
        if image.is_empty() && !has_objects {
            err(format!("package {pkg:?} bundle {name:?}: bundle image must be set"));
        } else if !image.is_empty()
            && let Err(e) = super::validate::check_image(image)
        {
            err(format!("package {pkg:?} bundle {name:?} image: invalid image pull spec {image:?}: {e}"));
        }
        for (i, r) in d["relatedImages"].as_array().into_iter().flatten().enumerate() {
            let img = s(r, "/image");
            if !img.is_empty()
                && let Err(e) = super::validate::check_image(img)
            {
                err(format!(
                    "package {pkg:?} bundle {name:?} relatedImages[{i}].image: invalid image pull spec {img:?}: {e}"
                ));
            }
        }
        p.bundles.push(d.clone());
    }
    for p in packages.values() {
        let in_channels: BTreeSet<&str> =
            p.channels.iter().flat_map(|c| c.entries.iter().map(|e| s(e, "/name"))).collect();
        let blobs: BTreeSet<&str> = p.bundles.iter().map(|b| s(b, "/name")).collect();
        for b in &blobs {
            if !in_channels.contains(b) {
                err(format!("package {:?}, bundle {b:?} not found in any channel entries", p.name));
            }
        }
        let missing: Vec<&str> = in_channels.difference(&blobs).copied().collect();
        if !missing.is_empty() {
            err(format!(
                "no olm.bundle blobs found in package {:?} for olm.channel entries [{}]",
                p.name,
                missing.join(" ")
            ));
        }
        for m in validate_package(p) {
            err(format!("invalid package {:?}: {m}", p.name));
        }
    }
    (packages.into_values().collect(), findings)
}

fn validate_package(p: &Package) -> Vec<String> {
    let mut out = Vec::new();
    if p.default_channel.is_empty() {
        out.push("default channel must be set".into());
    } else if !p.channels.iter().any(|c| c.name == p.default_channel) {
        out.push(format!("default channel {:?} not found in channels list", p.default_channel));
    }
    if p.channels.is_empty() {
        out.push("package must contain at least one channel".into());
    }
    let mut versions: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for b in &p.bundles {
        let v = b["properties"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["type"] == "olm.package")
            .map(|p| s(p, "/value/version").to_string())
            .unwrap_or_default();
        versions.entry(v).or_default().push(s(b, "/name").to_string());
    }
    let dups: Vec<String> = versions
        .iter()
        .filter(|(_, names)| names.len() > 1)
        .map(|(v, names)| format!("{{{v}: [{}]}}", names.join(", ")))
        .collect();
    if !dups.is_empty() {
        out.push(format!("duplicate versions found in bundles: [{}]", dups.join(" ")));
    }
    for c in &p.channels {
        for m in validate_channel(c) {
            out.push(format!("invalid channel {:?}: {m}", c.name));
        }
    }
    out
}

/// The channel head: the one entry no other entry replaces or skips.
pub fn heads(c: &Channel) -> Vec<String> {
    let incoming: BTreeSet<&str> = c
        .entries
        .iter()
        .flat_map(|e| {
            std::iter::once(s(e, "/replaces"))
                .chain(e["skips"].as_array().into_iter().flatten().filter_map(Value::as_str))
                .filter(|n| !n.is_empty())
        })
        .collect();
    let mut h: Vec<String> =
        c.entries.iter().map(|e| s(e, "/name")).filter(|n| !incoming.contains(n)).map(str::to_string).collect();
    h.sort();
    h
}

fn validate_channel(c: &Channel) -> Vec<String> {
    let mut out = Vec::new();
    if c.entries.is_empty() {
        out.push("channel must contain at least one bundle".into());
        return out;
    }
    for e in &c.entries {
        for (i, sk) in e["skips"].as_array().into_iter().flatten().enumerate() {
            if sk.as_str().is_none_or(str::is_empty) {
                out.push(format!("invalid bundle {:?}: skip[{i}] is empty", s(e, "/name")));
            }
        }
        if let Some(r) = e["skipRange"].as_str()
            && let Err(er) = Range::parse(r)
        {
            out.push(format!("invalid bundle {:?}: invalid skipRange {r:?}: {er}", s(e, "/name")));
        }
    }
    let h = heads(c);
    let head = match h.len() {
        0 => {
            out.push("no channel head found in graph".into());
            return out;
        }
        1 => h[0].clone(),
        _ => {
            out.push(format!("multiple channel heads found in graph: {}", h.join(", ")));
            return out;
        }
    };
    let by_name: BTreeMap<&str, &Value> = c.entries.iter().map(|e| (s(e, "/name"), e)).collect();
    let mut chain = vec![head.clone()];
    let mut reached: BTreeSet<String> = BTreeSet::from([head.clone()]);
    let mut skipped: BTreeSet<String> = BTreeSet::new();
    let mut cur = head;
    while let Some(e) = by_name.get(cur.as_str()) {
        for sk in e["skips"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            skipped.insert(sk.to_string());
        }
        let next = s(e, "/replaces");
        if next.is_empty() || !by_name.contains_key(next) {
            break;
        }
        chain.push(next.to_string());
        if !reached.insert(next.to_string()) {
            out.push(format!("detected cycle in replaces chain of upgrade graph: {}", chain.join(" -> ")));
            return out;
        }
        cur = next.to_string();
    }
    let stranded: Vec<&str> =
        c.entries.iter().map(|e| s(e, "/name")).filter(|n| !reached.contains(*n) && !skipped.contains(*n)).collect();
    if !stranded.is_empty() {
        out.push(format!("channel contains one or more stranded bundles: {}", stranded.join(", ")));
    }
    out
}

/// The upgrade graph of every channel, as indented text.
pub fn graph_text(packages: &[Package]) -> String {
    let mut out = String::new();
    for p in packages {
        out.push_str(&format!("package {} (default channel: {})\n", p.name, p.default_channel));
        for c in &p.channels {
            let h = heads(c);
            out.push_str(&format!(
                "  channel {} (head: {})\n",
                c.name,
                if h.is_empty() { "none".into() } else { h.join(", ") }
            ));
            let mut entries = c.entries.clone();
            entries.sort_by(|a, b| s(b, "/name").cmp(s(a, "/name")));
            for e in entries {
                let mut parts = Vec::new();
                if !s(&e, "/replaces").is_empty() {
                    parts.push(format!("replaces {}", s(&e, "/replaces")));
                }
                let skips: Vec<&str> = e["skips"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
                if !skips.is_empty() {
                    parts.push(format!("skips {}", skips.join(", ")));
                }
                if !s(&e, "/skipRange").is_empty() {
                    parts.push(format!("skipRange '{}'", s(&e, "/skipRange")));
                }
                let tail = if parts.is_empty() { String::new() } else { format!(" ({})", parts.join("; ")) };
                out.push_str(&format!("    {}{tail}\n", s(&e, "/name")));
            }
        }
    }
    out
}

/// The upgrade graph as a mermaid flowchart (like `opm alpha render-graph`).
pub fn graph_mermaid(packages: &[Package]) -> String {
    let mut out = String::from("graph LR\n");
    for p in packages {
        out.push_str(&format!("  %% package {:?}\n  subgraph {:?}\n", p.name, p.name));
        for c in &p.channels {
            let id = |n: &str| format!("{}-{}-{n}", p.name, c.name);
            out.push_str(&format!("    %% channel {:?}\n    subgraph {}-{}[{:?}]\n", c.name, p.name, c.name, c.name));
            for e in &c.entries {
                let n = s(e, "/name");
                out.push_str(&format!("      {}[{n:?}]\n", id(n)));
            }
            for e in &c.entries {
                let n = s(e, "/name");
                let r = s(e, "/replaces");
                if !r.is_empty() {
                    out.push_str(&format!("      {}[{r:?}]-- replace --> {}[{n:?}]\n", id(r), id(n)));
                }
                for sk in e["skips"].as_array().into_iter().flatten().filter_map(Value::as_str) {
                    out.push_str(&format!("      {}[{sk:?}]-- skip --> {}[{n:?}]\n", id(sk), id(n)));
                }
                let range = s(e, "/skipRange");
                if !range.is_empty() {
                    out.push_str(&format!("      {}-range[{range:?}]-- skipRange --> {}[{n:?}]\n", id(n), id(n)));
                }
            }
            out.push_str("    end\n");
        }
        out.push_str("  end\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    fn channel(entries: Value) -> Channel {
        Channel { name: "alpha".into(), entries: entries.as_array().unwrap().clone() }
    }

    #[test]
    fn channel_rules() {
        let ok = channel(
            json!([{"name": "a.v2", "replaces": "a.v1", "skipRange": ">=0.1.0 <2.0.0"}, {"name": "a.v1", "replaces": "a.v0"}]),
        );
        assert!(validate_channel(&ok).is_empty());
        let two = channel(json!([{"name": "a.v2"}, {"name": "a.v1"}]));
        assert_eq!(validate_channel(&two), ["multiple channel heads found in graph: a.v1, a.v2"]);
        let none = channel(json!([{"name": "a.v2", "replaces": "a.v1"}, {"name": "a.v1", "replaces": "a.v2"}]));
        assert_eq!(validate_channel(&none), ["no channel head found in graph"]);
        let cycle = channel(
            json!([{"name": "a.v3", "replaces": "a.v2"}, {"name": "a.v2", "replaces": "a.v1"}, {"name": "a.v1", "replaces": "a.v2"}]),
        );
        assert_eq!(
            validate_channel(&cycle),
            ["detected cycle in replaces chain of upgrade graph: a.v3 -> a.v2 -> a.v1 -> a.v2"]
        );
        let stranded = channel(
            json!([{"name": "a.v3", "replaces": "a.v1", "skips": ["a.v0"]}, {"name": "a.v1"}, {"name": "a.v2", "replaces": "a.v1"}, {"name": "a.v0"}]),
        );
        assert_eq!(validate_channel(&stranded), ["multiple channel heads found in graph: a.v2, a.v3"]);
        let stranded = channel(
            json!([{"name": "a.v3", "replaces": "a.v1", "skips": ["a.v2"]}, {"name": "a.v1"}, {"name": "a.v2", "replaces": "a.v0"}, {"name": "a.v0"}]),
        );
        assert_eq!(validate_channel(&stranded), ["channel contains one or more stranded bundles: a.v0"]);
        let bad = channel(json!([{"name": "a.v1", "skipRange": ">=x", "skips": [""]}]));
        assert_eq!(validate_channel(&bad).len(), 2);
        assert_eq!(validate_channel(&channel(json!([]))), ["channel must contain at least one bundle"]);
    }
}
