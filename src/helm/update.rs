//! The chart's files after a run, from what it generates and what is already there. kubesmith writes only the
//! files it owns — absent ones, and those carrying its mark ([`MARK`]: the first line of a template or of
//! `.helmignore`, the header of `values.yaml` and `Chart.yaml`, the `$comment` of `values.schema.json`) — and
//! removes only owned templates it no longer generates. `values.yaml` keeps the user's values and keys
//! ([`super::merge`]), with the previous run's defaults read from the schema; `Chart.yaml` keeps every key but
//! `apiVersion` and `appVersion` (the crate's version), and `version` follows `appVersion` until the user sets it
//! apart.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use serde_json::{Value, json};

use super::chart::Chart;
use super::values::{self, MARK};

/// What the chart's files become.
#[derive(Debug, Default)]
pub struct Update {
    /// Files to write (path inside the chart → contents); unchanged ones included.
    pub write: BTreeMap<String, String>,
    /// Owned files that no longer belong.
    pub delete: Vec<String>,
    /// What the user should know (files kept because kubesmith does not own them, comments it could not keep).
    pub notes: Vec<String>,
}

/// Chart-level facts.
#[derive(Debug, Clone)]
pub struct Meta {
    pub name: String,
    pub app_version: String,
    /// Where the chart lives in the project (for messages).
    pub dir: String,
}

const HELMIGNORE: &str = include_str!("files/helmignore");

/// Whether kubesmith owns a file with this text.
pub fn owned(path: &str, text: &str) -> bool {
    if path == "values.schema.json" {
        return serde_json::from_str::<Value>(text)
            .ok()
            .and_then(|v| v.get("$comment").and_then(Value::as_str).map(|c| c.contains(MARK)))
            .unwrap_or(false);
    }
    text.lines().take(3).any(|l| l.contains(MARK))
}

fn values_header(name: &str) -> Vec<String> {
    vec![
        format!("Values of the {name} chart. {MARK} from config/; when it runs again it"),
        "keeps your changes: values you change and keys you add stay, new keys are added.".into(),
        "values.schema.json gives the type of each value.".into(),
    ]
}

fn chart_header() -> String {
    format!(
        "# {MARK}. On every run apiVersion is set and appVersion becomes the crate's version;\n# version follows \
         appVersion until you set it apart. Your other keys are kept.\n"
    )
}

/// Computes the update of the chart whose current files are `existing` (path inside the chart → text).
pub fn update(existing: &BTreeMap<String, String>, chart: &Chart, meta: &Meta) -> Result<Update> {
    let mut up = Update::default();
    let keep = |path: &str, up: &mut Update| {
        up.notes.push(format!("kept {}/{path}: it has no `{MARK}` mark, so kubesmith leaves it to you", meta.dir));
    };
    let mut generated: BTreeMap<String, String> = chart.templates.clone();
    generated.insert(
        ".helmignore".into(),
        format!("# {MARK}: rewritten on every run; delete this line to keep your own.\n{HELMIGNORE}"),
    );
    for (path, text) in generated {
        match existing.get(&path) {
            Some(old) if !owned(&path, old) => keep(&path, &mut up),
            _ => {
                up.write.insert(path, text);
            }
        }
    }
    for (path, text) in existing {
        if path.starts_with("templates/") && owned(path, text) && !chart.templates.contains_key(path) {
            up.delete.push(path.clone());
        }
    }

    // values.schema.json: the previous run's defaults first.
    let old_schema = existing.get("values.schema.json");
    let base = old_schema
        .filter(|t| owned("values.schema.json", t))
        .and_then(|t| serde_json::from_str::<Value>(t).ok())
        .and_then(|s| values::defaults_in_schema(&s));
    match old_schema {
        Some(_) if base.is_none() => keep("values.schema.json", &mut up),
        _ => {
            let schema = values::schema(&chart.values, &meta.name);
            up.write.insert("values.schema.json".into(), format!("{}\n", serde_json::to_string_pretty(&schema)?));
        }
    }

    let defaults = values::defaults(&chart.values);
    let header = values_header(&meta.name);
    match existing.get("values.yaml") {
        Some(old) if !owned("values.yaml", old) => keep("values.yaml", &mut up),
        Some(old) => {
            let user = match crate::yaml::from_str(old) {
                Ok(Value::Null) => json!({}),
                Ok(v @ Value::Object(_)) => v,
                Ok(_) => bail!(
                    "{}/values.yaml is not a mapping of keys to values: fix it, or delete it to start over",
                    meta.dir
                ),
                Err(e) => bail!("{}/values.yaml is not valid YAML ({e}): fix it, or delete it to start over", meta.dir),
            };
            let merged = super::merge::three_way(&user, base.as_ref(), &defaults);
            let doc = |p: &[String]| values::doc_of(&chart.values, p);
            let text = match super::merge::edit_text(old, &user, &merged, &doc) {
                Some(t) => t,
                None => {
                    up.notes.push(format!(
                        "rewrote {}/values.yaml in kubesmith's layout (its comments could not be kept while updating it); \
                         your values and keys are kept",
                        meta.dir
                    ));
                    values::render(&chart.values, &merged, &header)
                }
            };
            up.write.insert("values.yaml".into(), text);
        }
        None => {
            up.write.insert("values.yaml".into(), values::render(&chart.values, &defaults, &header));
        }
    }

    match existing.get("Chart.yaml") {
        Some(old) if !owned("Chart.yaml", old) => keep("Chart.yaml", &mut up),
        Some(old) => {
            let user = match crate::yaml::from_str(old) {
                Ok(v @ Value::Object(_)) => v,
                _ => bail!("{}/Chart.yaml is not a YAML mapping: fix it, or delete it to start over", meta.dir),
            };
            let target = chart_yaml(Some(&user), meta);
            let text = super::merge::edit_text(old, &user, &target, &|_| Vec::new())
                .unwrap_or_else(|| format!("{}{}", chart_header(), crate::yaml::to_string(&target)));
            up.write.insert("Chart.yaml".into(), text);
        }
        None => {
            up.write.insert(
                "Chart.yaml".into(),
                format!("{}{}", chart_header(), crate::yaml::to_string(&chart_yaml(None, meta))),
            );
        }
    }
    Ok(up)
}

/// Chart.yaml's value: the user's (if any) with kubesmith's fields set.
fn chart_yaml(user: Option<&Value>, meta: &Meta) -> Value {
    let mut c = user.cloned().unwrap_or_else(|| json!({}));
    let follows = match (user.map(|u| &u["version"]), user.map(|u| &u["appVersion"])) {
        (None, _) | (Some(Value::Null), _) => true,
        (Some(v), Some(a)) => v == a,
        _ => false,
    };
    let obj = c.as_object_mut().expect("a mapping");
    obj.insert("apiVersion".into(), json!("v2"));
    obj.entry("name").or_insert_with(|| json!(meta.name));
    obj.entry("description")
        .or_insert_with(|| json!(format!("Installs {}, a Kubernetes operator built with kube-rs.", meta.name)));
    obj.entry("type").or_insert_with(|| json!("application"));
    if follows {
        obj.insert("version".into(), json!(meta.app_version));
    }
    obj.insert("appVersion".into(), json!(meta.app_version));
    if user.is_none() {
        // Key order of a new file: Helm's usual one.
        let mut ordered = serde_json::Map::new();
        for k in ["apiVersion", "name", "description", "type", "version", "appVersion"] {
            if let Some(v) = obj.remove(k) {
                ordered.insert(k.into(), v);
            }
        }
        return Value::Object(ordered);
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(v: &str) -> Meta {
        Meta { name: "op".into(), app_version: v.into(), dir: "dist/chart".into() }
    }

    #[test]
    fn chart_version_follows_the_crate_until_set_apart() {
        let fresh = chart_yaml(None, &meta("0.1.0"));
        assert_eq!(fresh["version"], "0.1.0");
        let next = chart_yaml(Some(&fresh), &meta("0.2.0"));
        assert_eq!((next["version"].as_str(), next["appVersion"].as_str()), (Some("0.2.0"), Some("0.2.0")));
        let mut pinned = next.clone();
        pinned["version"] = json!("1.0.0");
        pinned["home"] = json!("https://example.com");
        let after = chart_yaml(Some(&pinned), &meta("0.3.0"));
        assert_eq!((after["version"].as_str(), after["appVersion"].as_str()), (Some("1.0.0"), Some("0.3.0")));
        assert_eq!(after["home"], "https://example.com");
    }

    #[test]
    fn ownership_is_the_mark() {
        assert!(owned("templates/a.yaml", &format!("{{{{- /* {MARK} */ -}}}}\nkind: X\n")));
        assert!(!owned("templates/a.yaml", "kind: X\n"));
        assert!(owned("values.schema.json", &format!("{{\"$comment\": \"{MARK} ...\"}}")));
        assert!(!owned("values.schema.json", "{}"));
    }
}
