//! Webhook configuration generation from `+kubebuilder:webhook` and `+kubebuilder:webhookconfiguration` markers.
//!
//! Mirrors controller-tools `pkg/webhook/parser.go` (reference/kubebuilder.md §9): one
//! `MutatingWebhookConfiguration` (when any webhook is mutating) then one
//! `ValidatingWebhookConfiguration` (when any is validating), both `admissionregistration.k8s.io/v1`,
//! named `mutating-webhook-configuration` / `validating-webhook-configuration` unless renamed by a
//! `+kubebuilder:webhookconfiguration` marker, with the webhooks sorted by name (stable, so webhooks
//! sharing a name keep their source order).
//!
//! Per webhook: `failurePolicy`, `matchPolicy`, `sideEffects`, `reinvocationPolicy` and the verbs are
//! matched case-insensitively to their API spelling; the `core` group becomes `""`; `timeoutSeconds=0`
//! means unset; `clientConfig` is either the webhook Service (`path=`, optional
//! `serviceName`/`serviceNamespace`/`servicePort`) or `url=`; `patch=` is a strategic-merge patch
//! (JSON) applied to the generated entry before the v1 checks (`sideEffects` None/NoneOnDryRun,
//! `timeoutSeconds` 1..30, `admissionReviewVersions` non-empty).
//!
//! Deliberate differences from controller-gen (all of them turn a silent surprise into an error):
//! a `+kubebuilder:webhookconfiguration` given twice for the same kind is an error across the whole
//! crate (controller-gen checks one Go package and lets a later package win); a patch that sets a
//! field a webhook entry does not have, or uses a strategic-merge directive other than `$patch`, is an
//! error (controller-gen drops unknown fields when it decodes the patched entry); `servicePort` must be
//! a port number (1..65535).

use std::fmt;

use serde_json::{Map, Value, json};
use thiserror::Error;

use crate::markers::{Marker, MarkerValue};

/// Name of the webhook marker (without `+`).
pub const WEBHOOK_MARKER: &str = "kubebuilder:webhook";

/// Name of the marker that renames a webhook configuration object (without `+`).
pub const WEBHOOK_CONFIGURATION_MARKER: &str = "kubebuilder:webhookconfiguration";

/// `apiVersion` of the generated configurations.
pub const ADMISSION_API_VERSION: &str = "admissionregistration.k8s.io/v1";

/// Default `metadata.name` of the `MutatingWebhookConfiguration`.
pub const DEFAULT_MUTATING_NAME: &str = "mutating-webhook-configuration";

/// Default `metadata.name` of the `ValidatingWebhookConfiguration`.
pub const DEFAULT_VALIDATING_NAME: &str = "validating-webhook-configuration";

/// Default `clientConfig.service.name`.
pub const DEFAULT_SERVICE_NAME: &str = "webhook-service";

/// Default `clientConfig.service.namespace` (kustomize replaces it with the project namespace).
pub const DEFAULT_SERVICE_NAMESPACE: &str = "system";

/// The only `webhookVersions=` value controller-gen still generates.
pub const SUPPORTED_WEBHOOK_VERSION: &str = "v1";

/// Fields of a `MutatingWebhook` entry (a `ValidatingWebhook` has all but `reinvocationPolicy`).
const MUTATING_FIELDS: &[&str] = &[
    "admissionReviewVersions",
    "clientConfig",
    "failurePolicy",
    "matchConditions",
    "matchPolicy",
    "name",
    "namespaceSelector",
    "objectSelector",
    "reinvocationPolicy",
    "rules",
    "sideEffects",
    "timeoutSeconds",
];

/// Mutating or validating.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebhookKind {
    /// `MutatingWebhookConfiguration`.
    Mutating,
    /// `ValidatingWebhookConfiguration`.
    Validating,
}

impl WebhookKind {
    fn of(mutating: bool) -> Self {
        if mutating { WebhookKind::Mutating } else { WebhookKind::Validating }
    }

    /// The configuration's `kind`.
    pub fn configuration_kind(self) -> &'static str {
        match self {
            WebhookKind::Mutating => "MutatingWebhookConfiguration",
            WebhookKind::Validating => "ValidatingWebhookConfiguration",
        }
    }

    /// The default configuration name.
    pub fn default_name(self) -> &'static str {
        match self {
            WebhookKind::Mutating => DEFAULT_MUTATING_NAME,
            WebhookKind::Validating => DEFAULT_VALIDATING_NAME,
        }
    }

    fn flag(self) -> bool {
        self == WebhookKind::Mutating
    }
}

impl fmt::Display for WebhookKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WebhookKind::Mutating => "mutating",
            WebhookKind::Validating => "validating",
        })
    }
}

/// A webhook marker that cannot be turned into a v1 webhook configuration.
///
/// Every variant names the marker's `file:line` (`location`); the text after it is controller-gen's
/// message followed by how to fix the marker.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum WebhookError {
    /// A required argument is missing or has the wrong type (only possible for markers that did not
    /// come from [`crate::markers::scan`], which already enforces the registry).
    #[error("{location}: missing argument \"{arg}\" ({expected}); add `{arg}=<value>` to the `+{marker}` marker")]
    MissingArgument {
        /// `file:line` of the marker.
        location: String,
        /// Marker name.
        marker: String,
        /// Argument name.
        arg: String,
        /// What the argument should be.
        expected: String,
    },

    /// `webhookVersions=` lists something other than `v1`.
    #[error(
        "{location}: unsupported webhook version: {version}; admissionregistration.k8s.io/v1 is the only version generated: set `webhookVersions=v1` or remove the argument"
    )]
    UnsupportedWebhookVersion {
        /// `file:line` of the marker.
        location: String,
        /// The rejected version.
        version: String,
    },

    /// `matchPolicy=` is neither `Exact` nor `Equivalent`.
    #[error(
        "{location}: unknown value {value:?} for matchPolicy; use `matchPolicy=Exact` or `matchPolicy=Equivalent`, or remove it for the API server default (Equivalent)"
    )]
    UnknownMatchPolicy {
        /// `file:line` of the marker.
        location: String,
        /// The rejected value.
        value: String,
    },

    /// Both or neither of `path=` and `url=` are given.
    #[error(
        "{location}: `url` or `path` markers are required and mutually exclusive ({}); give `path=/validate-...` to call the in-cluster webhook Service, or `url=\"https://host:port/path\"` to call an external endpoint",
        if *both { "both are set" } else { "neither is set" }
    )]
    UrlOrPath {
        /// `file:line` of the marker.
        location: String,
        /// `true` when both were given, `false` when neither was.
        both: bool,
    },

    /// `servicePort=` is not a port number.
    #[error(
        "{location}: servicePort must be between 1 and 65535 (got {port}); set `servicePort=` to the Service port (443 by default), or remove it"
    )]
    InvalidServicePort {
        /// `file:line` of the marker.
        location: String,
        /// The rejected port.
        port: i64,
    },

    /// `patch=` is not a JSON object, uses an unsupported directive, or sets an unknown field.
    #[error(
        "{location}: invalid patch: {reason}; `patch=` takes a backtick-quoted JSON object with fields of the webhook entry, e.g. patch=`{{\"namespaceSelector\":{{\"matchLabels\":{{\"webhook-enabled\":\"true\"}}}}}}`"
    )]
    InvalidPatch {
        /// `file:line` of the marker.
        location: String,
        /// What is wrong with the patch.
        reason: String,
    },

    /// `sideEffects` is missing (or not a known value).
    #[error(
        "{location}: SideEffects is required for creating v1 {{Mutating,Validating}}WebhookConfiguration{}; add `sideEffects=None` (or `sideEffects=NoneOnDryRun` if the webhook skips its side effects on dry-run requests)",
        match given { Some(v) => format!(" (`{v}` is not one of None, NoneOnDryRun)"), None => String::new() }
    )]
    SideEffectsRequired {
        /// `file:line` of the marker.
        location: String,
        /// The unrecognized value, when one was given.
        given: Option<String>,
    },

    /// `sideEffects` is `Some` or `Unknown`.
    #[error(
        "{location}: SideEffects should not be set to `Some` or `Unknown` for v1 {{Mutating,Validating}}WebhookConfiguration (got `{value}`); use `sideEffects=None`, or `sideEffects=NoneOnDryRun` and skip the side effects when the request is a dry-run"
    )]
    SideEffectsSomeOrUnknown {
        /// `file:line` of the marker.
        location: String,
        /// `Some` or `Unknown`.
        value: String,
    },

    /// `timeoutSeconds` is outside 1..30.
    #[error(
        "{location}: TimeoutSeconds must be between 1 and 30 seconds (got {value}); set `timeoutSeconds=` to 1..30, or remove it for the API server default of 10"
    )]
    TimeoutSeconds {
        /// `file:line` of the marker.
        location: String,
        /// The rejected value (as written in the marker or patch).
        value: String,
    },

    /// `admissionReviewVersions` is empty.
    #[error(
        "{location}: AdmissionReviewVersions is mandatory for v1 {{Mutating,Validating}}WebhookConfiguration; add `admissionReviewVersions=v1` (the AdmissionReview versions the webhook server understands)"
    )]
    AdmissionReviewVersionsRequired {
        /// `file:line` of the marker.
        location: String,
    },

    /// Two `+kubebuilder:webhookconfiguration` markers for the same kind.
    #[error(
        "{location}: duplicate {kind} kubebuilder:webhookconfiguration with name {name} (the first one, at {first}, is named {first_name}); keep a single `+kubebuilder:webhookconfiguration:mutating={},name=...` marker",
        kind.flag()
    )]
    DuplicateConfiguration {
        /// `file:line` of the second marker.
        location: String,
        /// `file:line` of the first marker.
        first: String,
        /// Which configuration.
        kind: WebhookKind,
        /// Name given by the second marker.
        name: String,
        /// Name given by the first marker.
        first_name: String,
    },
}

/// One webhook entry built from a marker, before the v1 checks.
struct Entry {
    kind: WebhookKind,
    name: String,
    location: String,
    /// The `sideEffects=` text as written, for the error when it is not a known value.
    raw_side_effects: Option<String>,
    body: Map<String, Value>,
}

fn missing(marker: &Marker, arg: &str, expected: &str) -> WebhookError {
    WebhookError::MissingArgument {
        location: marker.location(),
        marker: marker.name.clone(),
        arg: arg.to_string(),
        expected: expected.to_string(),
    }
}

fn required_bool(marker: &Marker, arg: &str) -> Result<bool, WebhookError> {
    match marker.arg(arg) {
        Some(MarkerValue::Bool(b)) => Ok(*b),
        _ => Err(missing(marker, arg, "true or false")),
    }
}

fn required_string(marker: &Marker, arg: &str) -> Result<String, WebhookError> {
    marker.string(arg).map(str::to_string).ok_or_else(|| missing(marker, arg, "a string"))
}

fn required_list(marker: &Marker, arg: &str) -> Result<Vec<String>, WebhookError> {
    match marker.arg(arg) {
        Some(v) => Ok(v.to_string_list()),
        None => Err(missing(marker, arg, "a `;`-separated list")),
    }
}

/// An optional string argument; empty counts as absent (Go's zero value).
fn optional_string<'a>(marker: &'a Marker, arg: &str) -> Option<&'a str> {
    marker.string(arg).filter(|s| !s.is_empty())
}

fn optional_int(marker: &Marker, arg: &str) -> Result<Option<i64>, WebhookError> {
    match marker.arg(arg) {
        None => Ok(None),
        Some(MarkerValue::Int(i)) => Ok(Some(*i)),
        Some(_) => Err(missing(marker, arg, "an integer")),
    }
}

/// `fail`/`ignore` (any case) → `Fail`/`Ignore`; anything else passes through.
fn normalize_failure_policy(raw: &str) -> String {
    match raw.to_ascii_lowercase().as_str() {
        "fail" => "Fail".to_string(),
        "ignore" => "Ignore".to_string(),
        _ => raw.to_string(),
    }
}

/// `exact`/`equivalent` (any case) → `Exact`/`Equivalent`; `""` → unset; anything else is `Err`.
fn normalize_match_policy(raw: &str) -> Result<Option<&'static str>, ()> {
    match raw.to_ascii_lowercase().as_str() {
        "" => Ok(None),
        "exact" => Ok(Some("Exact")),
        "equivalent" => Ok(Some("Equivalent")),
        _ => Err(()),
    }
}

/// `none`/`noneondryrun`/`some` (any case) → API spelling; anything else (including `Unknown`) →
/// unset, which the v1 check then reports as missing (controller-gen's behaviour).
fn normalize_side_effects(raw: &str) -> Option<&'static str> {
    match raw.to_ascii_lowercase().as_str() {
        "none" => Some("None"),
        "noneondryrun" => Some("NoneOnDryRun"),
        "some" => Some("Some"),
        _ => None,
    }
}

/// `never`/`ifneeded` (any case) → `Never`/`IfNeeded`; anything else → unset.
fn normalize_reinvocation_policy(raw: &str) -> Option<&'static str> {
    match raw.to_ascii_lowercase().as_str() {
        "never" => Some("Never"),
        "ifneeded" => Some("IfNeeded"),
        _ => None,
    }
}

/// `create`/`update`/`delete`/`connect`/`*` (any case) → `CREATE`/.../`*`; anything else passes through.
fn normalize_verb(raw: &str) -> String {
    match raw.to_ascii_lowercase().as_str() {
        "create" => "CREATE".to_string(),
        "update" => "UPDATE".to_string(),
        "delete" => "DELETE".to_string(),
        "connect" => "CONNECT".to_string(),
        "*" => "*".to_string(),
        _ => raw.to_string(),
    }
}

/// Builds one webhook entry from a `+kubebuilder:webhook` marker (controller-gen's
/// `webhookVersions()`, `ToMutatingWebhook`/`ToValidatingWebhook`, then the patch).
fn build_entry(marker: &Marker) -> Result<Entry, WebhookError> {
    let location = marker.location();
    let mutating = required_bool(marker, "mutating")?;
    let kind = WebhookKind::of(mutating);

    for version in marker.strings("webhookVersions") {
        if version != SUPPORTED_WEBHOOK_VERSION {
            return Err(WebhookError::UnsupportedWebhookVersion { location, version });
        }
    }

    let failure_policy = normalize_failure_policy(&required_string(marker, "failurePolicy")?);
    let match_policy_raw = marker.string("matchPolicy").unwrap_or_default();
    let match_policy = normalize_match_policy(match_policy_raw).map_err(|()| WebhookError::UnknownMatchPolicy {
        location: location.clone(),
        value: match_policy_raw.to_string(),
    })?;

    let path = optional_string(marker, "path");
    let url = optional_string(marker, "url");
    let client_config = match (path, url) {
        (Some(path), None) => {
            let mut service = Map::new();
            let name = optional_string(marker, "serviceName").unwrap_or(DEFAULT_SERVICE_NAME);
            let namespace = optional_string(marker, "serviceNamespace").unwrap_or(DEFAULT_SERVICE_NAMESPACE);
            service.insert("name".into(), json!(name));
            service.insert("namespace".into(), json!(namespace));
            service.insert("path".into(), json!(path));
            if let Some(port) = optional_int(marker, "servicePort")? {
                if !(1..=65535).contains(&port) {
                    return Err(WebhookError::InvalidServicePort { location, port });
                }
                service.insert("port".into(), json!(port));
            }
            json!({ "service": service })
        }
        (None, Some(url)) => json!({ "url": url }),
        (p, u) => {
            return Err(WebhookError::UrlOrPath { location, both: p.is_some() && u.is_some() });
        }
    };

    let groups: Vec<String> =
        required_list(marker, "groups")?.into_iter().map(|g| if g == "core" { String::new() } else { g }).collect();
    let versions = required_list(marker, "versions")?;
    let resources = required_list(marker, "resources")?;
    let operations: Vec<String> = required_list(marker, "verbs")?.iter().map(|v| normalize_verb(v)).collect();
    let name = required_string(marker, "name")?;

    let mut rule = Map::new();
    let mut put_list = |key: &str, list: Vec<String>| {
        // Go's `omitempty` on the rule's slices.
        if !list.is_empty() {
            rule.insert(key.to_string(), json!(list));
        }
    };
    put_list("apiGroups", groups);
    put_list("apiVersions", versions);
    put_list("operations", operations);
    put_list("resources", resources);

    let mut body = Map::new();
    let review_versions = marker.strings("admissionReviewVersions");
    if !review_versions.is_empty() {
        body.insert("admissionReviewVersions".into(), json!(review_versions));
    }
    body.insert("clientConfig".into(), client_config);
    body.insert("failurePolicy".into(), json!(failure_policy));
    if let Some(mp) = match_policy {
        body.insert("matchPolicy".into(), json!(mp));
    }
    body.insert("name".into(), json!(name));
    if mutating && let Some(rp) = marker.string("reinvocationPolicy").and_then(normalize_reinvocation_policy) {
        body.insert("reinvocationPolicy".into(), json!(rp));
    }
    body.insert("rules".into(), json!([Value::Object(rule)]));
    if let Some(se) = marker.string("sideEffects").and_then(normalize_side_effects) {
        body.insert("sideEffects".into(), json!(se));
    }
    match optional_int(marker, "timeoutSeconds")? {
        None | Some(0) => {}
        Some(t) => {
            body.insert("timeoutSeconds".into(), json!(t));
        }
    }

    if let Some(patch_text) = optional_string(marker, "patch") {
        body = apply_patch(body, patch_text, kind)
            .map_err(|reason| WebhookError::InvalidPatch { location: location.clone(), reason })?;
    }

    let name = body.get("name").and_then(Value::as_str).unwrap_or_default().to_string();
    Ok(Entry {
        kind,
        name,
        location,
        raw_side_effects: optional_string(marker, "sideEffects").map(str::to_string),
        body,
    })
}

/// Parses `patch_text` and applies it to `body` as a strategic-merge patch, then checks the result
/// has only fields of a webhook entry of `kind`.
fn apply_patch(body: Map<String, Value>, patch_text: &str, kind: WebhookKind) -> Result<Map<String, Value>, String> {
    let patch: Value = serde_json::from_str(patch_text).map_err(|e| format!("not valid JSON ({e})"))?;
    let Value::Object(patch) = patch else {
        return Err("not a JSON object".to_string());
    };
    let merged = strategic_merge(Value::Object(body), &Value::Object(patch), "")?;
    let Value::Object(merged) = merged else {
        return Err("`$patch: delete` would remove the whole webhook entry".to_string());
    };
    for key in merged.keys() {
        let known =
            MUTATING_FIELDS.contains(&key.as_str()) && (kind == WebhookKind::Mutating || key != "reinvocationPolicy");
        if !known {
            let allowed: Vec<&str> = MUTATING_FIELDS
                .iter()
                .copied()
                .filter(|f| kind == WebhookKind::Mutating || *f != "reinvocationPolicy")
                .collect();
            return Err(format!("a {kind} webhook has no field `{key}` (fields: {})", allowed.join(", ")));
        }
    }
    Ok(merged)
}

/// Strategic merge of `patch` into `base` for the admissionregistration v1 webhook types: objects
/// merge key by key, `null` deletes, `$patch: replace|delete|merge` is honoured on objects,
/// `matchConditions` merges by `name` (its `patchMergeKey`), every other list is replaced.
fn strategic_merge(base: Value, patch: &Value, field: &str) -> Result<Value, String> {
    let Value::Object(patch_map) = patch else {
        return Ok(patch.clone());
    };
    let mut patch_map = patch_map.clone();
    let directive = patch_map.remove("$patch");
    for key in patch_map.keys() {
        if key.starts_with('$') {
            return Err(format!("the strategic-merge directive `{key}` is not supported (only `$patch`)"));
        }
    }
    let mut out = match directive.as_ref().map(|d| d.as_str()) {
        None | Some(Some("merge")) => match base {
            Value::Object(m) => m,
            _ => Map::new(),
        },
        Some(Some("replace")) => Map::new(),
        Some(Some("delete")) => return Ok(Value::Null),
        Some(other) => {
            let shown = other.map_or_else(|| directive_text(directive.as_ref()), str::to_string);
            return Err(format!("unknown `$patch` value `{shown}` (expected replace, delete or merge)"));
        }
    };
    for (key, value) in patch_map {
        if value.is_null() {
            out.remove(&key);
            continue;
        }
        let current = out.remove(&key).unwrap_or(Value::Null);
        let merged = if key == "matchConditions" && field.is_empty() {
            merge_by_name(current, &value)?
        } else {
            strategic_merge(current, &value, &key)?
        };
        if !merged.is_null() {
            out.insert(key, merged);
        }
    }
    Ok(Value::Object(out))
}

fn directive_text(v: Option<&Value>) -> String {
    v.map(Value::to_string).unwrap_or_default()
}

/// Merges a list of objects keyed by `name` (strategic merge with `patchMergeKey: name`).
fn merge_by_name(base: Value, patch: &Value) -> Result<Value, String> {
    let Value::Array(patch_items) = patch else {
        return Err("`matchConditions` must be a list".to_string());
    };
    let mut items = match base {
        Value::Array(a) => a,
        _ => Vec::new(),
    };
    for p in patch_items {
        let Some(name) = p.get("name").and_then(Value::as_str) else {
            return Err("every `matchConditions` item needs a `name`".to_string());
        };
        let pos = items.iter().position(|i| i.get("name").and_then(Value::as_str) == Some(name));
        let merged = match pos {
            Some(i) => strategic_merge(items.remove(i), p, "matchConditions")?,
            None => strategic_merge(Value::Null, p, "matchConditions")?,
        };
        match (pos, merged.is_null()) {
            (_, true) => {}
            (Some(i), false) => items.insert(i, merged),
            (None, false) => items.push(merged),
        }
    }
    Ok(Value::Array(items))
}

/// controller-gen's v1 checks on a (patched) webhook entry: `checkSideEffectsForV1`,
/// `checkTimeoutSeconds`, then the mandatory `admissionReviewVersions`.
fn check_v1(entry: &Entry) -> Result<(), WebhookError> {
    let location = || entry.location.clone();
    match entry.body.get("sideEffects") {
        None => {
            return Err(WebhookError::SideEffectsRequired {
                location: location(),
                given: entry.raw_side_effects.clone(),
            });
        }
        Some(Value::String(s)) if s == "None" || s == "NoneOnDryRun" => {}
        Some(Value::String(s)) if s == "Some" || s == "Unknown" => {
            return Err(WebhookError::SideEffectsSomeOrUnknown { location: location(), value: s.clone() });
        }
        Some(other) => {
            return Err(WebhookError::SideEffectsRequired {
                location: location(),
                given: Some(other.as_str().map_or_else(|| other.to_string(), str::to_string)),
            });
        }
    }
    if let Some(t) = entry.body.get("timeoutSeconds") {
        let ok = t.as_i64().is_some_and(|t| (1..=30).contains(&t));
        if !ok {
            return Err(WebhookError::TimeoutSeconds { location: location(), value: t.to_string() });
        }
    }
    let has_versions =
        entry.body.get("admissionReviewVersions").and_then(Value::as_array).is_some_and(|a| !a.is_empty());
    if !has_versions {
        return Err(WebhookError::AdmissionReviewVersionsRequired { location: location() });
    }
    Ok(())
}

/// The `+kubebuilder:webhookconfiguration` names: (mutating, validating), each with its marker.
fn configuration_names(markers: &[Marker]) -> Result<[Option<(String, String)>; 2], WebhookError> {
    let mut names: [Option<(String, String)>; 2] = [None, None];
    for marker in markers.iter().filter(|m| m.name == WEBHOOK_CONFIGURATION_MARKER) {
        let kind = WebhookKind::of(required_bool(marker, "mutating")?);
        // controller-gen: an empty name keeps the default name.
        let name = marker.string("name").unwrap_or_default().to_string();
        let slot = &mut names[usize::from(kind == WebhookKind::Validating)];
        if let Some((first, first_name)) = slot {
            return Err(WebhookError::DuplicateConfiguration {
                location: marker.location(),
                first: first.clone(),
                kind,
                name,
                first_name: first_name.clone(),
            });
        }
        *slot = Some((marker.location(), name));
    }
    Ok(names)
}

/// Generates the `MutatingWebhookConfiguration` (if any webhook is mutating) then the
/// `ValidatingWebhookConfiguration` (if any is validating) from the `+kubebuilder:webhook` and
/// `+kubebuilder:webhookconfiguration` markers among `markers` (other markers are ignored).
///
/// No webhook markers means an empty vector. The first problem found is returned, in
/// controller-gen's order: duplicate configuration markers, then each webhook marker by name
/// (`webhookVersions`, `matchPolicy`, `path`/`url`, `patch`), then the v1 checks on the mutating
/// webhooks, then on the validating ones.
pub fn generate(markers: &[Marker]) -> Result<Vec<Value>, WebhookError> {
    let names = configuration_names(markers)?;

    let mut webhook_markers: Vec<&Marker> = markers.iter().filter(|m| m.name == WEBHOOK_MARKER).collect();
    // Stable: webhooks sharing a name keep their source order.
    webhook_markers.sort_by(|a, b| a.string("name").unwrap_or_default().cmp(b.string("name").unwrap_or_default()));
    let mut entries = Vec::with_capacity(webhook_markers.len());
    for marker in webhook_markers {
        entries.push(build_entry(marker)?);
    }
    // A patch may rename a webhook: the final order is by the generated name.
    entries.sort_by(|a, b| a.name.cmp(&b.name));

    let mut objects = Vec::new();
    for (idx, kind) in [WebhookKind::Mutating, WebhookKind::Validating].into_iter().enumerate() {
        let of_kind: Vec<&Entry> = entries.iter().filter(|e| e.kind == kind).collect();
        if of_kind.is_empty() {
            continue;
        }
        for entry in &of_kind {
            check_v1(entry)?;
        }
        let name =
            names[idx].as_ref().map(|(_, n)| n.as_str()).filter(|n| !n.is_empty()).unwrap_or(kind.default_name());
        let webhooks: Vec<Value> = of_kind.iter().map(|e| Value::Object(e.body.clone())).collect();
        objects.push(json!({
            "apiVersion": ADMISSION_API_VERSION,
            "kind": kind.configuration_kind(),
            "metadata": { "name": name },
            "webhooks": webhooks,
        }));
    }
    Ok(objects)
}

#[cfg(test)]
mod tests;
