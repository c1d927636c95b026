//! The one registry of every marker kubesmith understands (names, arguments, types, docs).

use std::sync::OnceLock;

/// Where a marker is meant to be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerTarget {
    /// Anywhere in a source file (controller-gen's "package-level" markers).
    Package,
    /// On a type (struct/enum) declaration.
    Type,
    /// On a struct field.
    Field,
    /// On a type or a field.
    TypeOrField,
}

impl MarkerTarget {
    /// Short human name (`package`, `type`, `field`, `type or field`).
    pub fn as_str(self) -> &'static str {
        match self {
            MarkerTarget::Package => "package",
            MarkerTarget::Type => "type",
            MarkerTarget::Field => "field",
            MarkerTarget::TypeOrField => "type or field",
        }
    }
}

/// The type of one marker argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgType {
    /// A bare word, `"double"` or `` `raw` `` quoted string.
    String,
    /// An integer.
    Int,
    /// An integer or a float.
    Number,
    /// `true` / `false`; a bare argument name (or an anonymous flag) means `true`.
    Bool,
    /// `a;b;c` or `{a,b,c}`; items are bare words or quoted strings.
    StringList,
    /// Any value: strings, numbers, bools, lists (`a;b` or `{a,b}`) and maps (`{k: v}`).
    Any,
    /// A list of any values (`a;b;c` or `{a,b,c}`); a single value is a one-element list.
    AnyList,
    /// One of a fixed set of (case-sensitive) words.
    OneOf(&'static [&'static str]),
}

impl ArgType {
    /// Short human name used in docs and error messages.
    pub fn describe(self) -> String {
        match self {
            ArgType::String => "string".to_string(),
            ArgType::Int => "int".to_string(),
            ArgType::Number => "number".to_string(),
            ArgType::Bool => "bool".to_string(),
            ArgType::StringList => "string list".to_string(),
            ArgType::Any => "any".to_string(),
            ArgType::AnyList => "list".to_string(),
            ArgType::OneOf(words) => {
                words.iter().map(|w| if w.is_empty() { "\"\"" } else { w }).collect::<Vec<_>>().join("|")
            }
        }
    }
}

/// One argument of a marker. The anonymous argument (`+name=value`) has the empty name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgDef {
    /// Argument name (`""` for the anonymous value).
    pub name: &'static str,
    /// Value type.
    pub ty: ArgType,
    /// Whether the argument must be given.
    pub required: bool,
    /// One-line description.
    pub doc: &'static str,
}

/// One marker kubesmith understands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkerDef {
    /// Marker name without the leading `+` (e.g. `kubebuilder:rbac`).
    pub name: String,
    /// Arguments; empty for a pure flag.
    pub args: Vec<ArgDef>,
    /// Where the marker goes.
    pub target: MarkerTarget,
    /// The name is a prefix followed by a free `:<suffix>` (e.g. `kubesmith:scaffold:<what>`);
    /// the suffix is stored as the argument `what`.
    pub open_suffix: bool,
    /// One-line description.
    pub doc: String,
}

impl MarkerDef {
    /// The definition of the argument `name` (`""` for the anonymous value).
    pub fn arg(&self, name: &str) -> Option<&ArgDef> {
        self.args.iter().find(|a| a.name == name)
    }

    /// The marker takes exactly one anonymous value (`+name=value`).
    pub fn is_anonymous(&self) -> bool {
        self.args.len() == 1 && self.args[0].name.is_empty()
    }

    /// Usage string such as `+kubebuilder:rbac:groups=<string list>,verbs=<string list>`.
    pub fn usage(&self) -> String {
        let name = if self.open_suffix { format!("+{}:<what>", self.name) } else { format!("+{}", self.name) };
        if self.args.is_empty() || self.open_suffix {
            return name;
        }
        if self.is_anonymous() {
            let a = &self.args[0];
            if a.ty == ArgType::Bool && !a.required {
                return format!("{name}[=<bool>]");
            }
            return format!("{name}=<{}>", a.ty.describe());
        }
        let args = self
            .args
            .iter()
            .map(|a| {
                if a.required {
                    format!("{}=<{}>", a.name, a.ty.describe())
                } else {
                    format!("[{}=<{}>]", a.name, a.ty.describe())
                }
            })
            .collect::<Vec<_>>()
            .join(",");
        format!("{name}:{args}")
    }
}

/// Every marker kubesmith understands, in a stable documentation order.
pub fn registry() -> &'static [MarkerDef] {
    static REGISTRY: OnceLock<Vec<MarkerDef>> = OnceLock::new();
    REGISTRY.get_or_init(build)
}

/// Finds the definition of an exact marker name (without `+`).
pub fn lookup(name: &str) -> Option<&'static MarkerDef> {
    static BY_NAME: OnceLock<std::collections::HashMap<&'static str, &'static MarkerDef>> = OnceLock::new();
    BY_NAME.get_or_init(|| registry().iter().rev().map(|d| (d.name.as_str(), d)).collect()).get(name).copied()
}

/// Whether a registered marker is one the CRD generator applies (or must check the placement of): any marker
/// on a type or field except operator-sdk's CSV descriptors.
pub fn is_crd_marker(name: &str) -> bool {
    lookup(name).is_some_and(|def| def.target != MarkerTarget::Package && !name.starts_with("operator-sdk:"))
}

const fn arg(name: &'static str, ty: ArgType, required: bool, doc: &'static str) -> ArgDef {
    ArgDef { name, ty, required, doc }
}

fn def(name: &str, target: MarkerTarget, args: Vec<ArgDef>, doc: &str) -> MarkerDef {
    MarkerDef { name: name.to_string(), args, target, open_suffix: false, doc: doc.to_string() }
}

fn flag(name: &str, target: MarkerTarget, doc: &str) -> MarkerDef {
    def(name, target, Vec::new(), doc)
}

/// A marker with one anonymous value.
fn value(name: &str, target: MarkerTarget, ty: ArgType, doc: &str) -> MarkerDef {
    def(name, target, vec![arg("", ty, true, "the value")], doc)
}

/// A bool marker usable as a flag (`+name`) or with a value (`+name=false`).
fn bool_flag(name: &str, target: MarkerTarget, doc: &str) -> MarkerDef {
    def(name, target, vec![arg("", ArgType::Bool, false, "defaults to true")], doc)
}

const LIST_TYPES: &[&str] = &["map", "set", "atomic"];
const MAP_TYPES: &[&str] = &["granular", "atomic"];
const XVALIDATION_REASONS: &[&str] =
    &["FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate"];

// One `push` per marker keeps the table readable and diff-friendly.
#[allow(clippy::vec_init_then_push)]
fn build() -> Vec<MarkerDef> {
    use ArgType as T;
    use MarkerTarget::{Field, Package, Type, TypeOrField};

    let mut out = Vec::new();

    // ---- RBAC (§8.1) ----
    out.push(def(
        "kubebuilder:rbac",
        Package,
        vec![
            arg("groups", T::StringList, false, "API groups (`core` or `\"\"` = core group)"),
            arg("resources", T::StringList, false, "resources, e.g. `pods;pods/status`"),
            arg("resourceNames", T::StringList, false, "restrict the rule to these object names"),
            arg("verbs", T::StringList, true, "verbs, e.g. `get;list;watch` (`*` = all)"),
            arg("urls", T::StringList, false, "non-resource URLs, e.g. `/metrics`"),
            arg("namespace", T::String, false, "emit a Role in this namespace instead of the ClusterRole"),
            arg(
                "roleName",
                T::String,
                false,
                "name of the generated Role/ClusterRole (default: the generator's role name)",
            ),
        ],
        "RBAC rule for the manager's role (config/rbac/role.yaml).",
    ));

    // ---- Webhooks (§9.1) ----
    out.push(def(
        "kubebuilder:webhook",
        Package,
        vec![
            arg("mutating", T::Bool, true, "mutating (true) or validating (false) webhook"),
            arg("failurePolicy", T::String, true, "`fail` or `ignore` (case-insensitive)"),
            arg("matchPolicy", T::String, false, "`Exact` or `Equivalent` (case-insensitive)"),
            arg("sideEffects", T::String, false, "`None` or `NoneOnDryRun` (required by admissionregistration v1)"),
            arg("timeoutSeconds", T::Int, false, "timeout, 1..30 seconds"),
            arg("groups", T::StringList, true, "API groups (`core` or `\"\"` = core group)"),
            arg("resources", T::StringList, true, "resources (plural)"),
            arg("verbs", T::StringList, true, "operations: create;update;delete;connect or `*`"),
            arg("versions", T::StringList, true, "API versions"),
            arg("name", T::String, true, "webhook name, e.g. `mcaptain-v1.kb.io`"),
            arg("path", T::String, false, "service path (exclusive with `url`)"),
            arg("url", T::String, false, "external URL (exclusive with `path`)"),
            arg("serviceName", T::String, false, "service name (default `webhook-service`)"),
            arg("serviceNamespace", T::String, false, "service namespace (default `system`)"),
            arg("servicePort", T::Int, false, "service port"),
            arg("webhookVersions", T::StringList, false, "only `v1` is supported"),
            arg("admissionReviewVersions", T::StringList, true, "AdmissionReview versions, e.g. `v1`"),
            arg("reinvocationPolicy", T::String, false, "`Never` or `IfNeeded` (mutating only)"),
            arg(
                "patch",
                T::String,
                false,
                "strategic-merge patch (JSON, backtick-quoted) applied to the webhook entry",
            ),
        ],
        "Admission webhook entry in config/webhook/manifests.yaml.",
    ));
    out.push(def(
        "kubebuilder:webhookconfiguration",
        Package,
        vec![
            arg("mutating", T::Bool, true, "which configuration to rename"),
            arg("name", T::String, true, "new name of the (Mutating|Validating)WebhookConfiguration"),
        ],
        "Renames the generated webhook configuration object.",
    ));

    // ---- Package-level CRD markers (§10.1) ----
    out.push(value("groupName", Package, T::String, "API group of the types in this module."));
    out.push(value("versionName", Package, T::String, "API version of the types in this module."));
    out.push(flag("kubebuilder:skip", Package, "Do not treat this module as an API version."));
    out.push(bool_flag(
        "kubebuilder:object:generate",
        Package,
        "Go deepcopy generation; accepted and ignored by kubesmith.",
    ));
    out.push(bool_flag(
        "kubebuilder:object:root",
        Type,
        "Go runtime.Object marker; accepted and ignored by kubesmith.",
    ));
    out.push(bool_flag(
        "kubebuilder:ac:generate",
        Package,
        "Go applyconfiguration generation; accepted and ignored by kubesmith.",
    ));
    out.push(value(
        "kubebuilder:ac:output:package",
        Package,
        T::String,
        "Go applyconfiguration output package; accepted and ignored by kubesmith.",
    ));

    // ---- Type-level CRD markers (§10.2) ----
    out.push(flag("kubebuilder:subresource:status", Type, "Enables the status subresource."));
    out.push(def(
        "kubebuilder:subresource:scale",
        Type,
        vec![
            arg("specpath", T::String, true, "JSON path of the desired replicas, e.g. `.spec.replicas`"),
            arg("statuspath", T::String, true, "JSON path of the observed replicas"),
            arg("selectorpath", T::String, false, "JSON path of the label selector"),
        ],
        "Enables the scale subresource.",
    ));
    out.push(def(
        "kubebuilder:printcolumn",
        Type,
        vec![
            arg("name", T::String, true, "column header"),
            arg("type", T::String, true, "integer, number, string, boolean or date"),
            arg("JSONPath", T::String, true, "JSON path of the value"),
            arg("description", T::String, false, "column description"),
            arg("format", T::String, false, "OpenAPI format"),
            arg("priority", T::Int, false, "0 = shown by default, >0 = only with -o wide"),
        ],
        "Adds an additionalPrinterColumns entry (in marker order).",
    ));
    out.push(def(
        "kubebuilder:resource",
        Type,
        vec![
            arg("path", T::String, false, "plural name"),
            arg("shortName", T::StringList, false, "short names"),
            arg("categories", T::StringList, false, "categories, e.g. `all`"),
            arg("singular", T::String, false, "singular name"),
            arg("scope", T::OneOf(&["Namespaced", "Cluster", ""]), false, "`Namespaced` (default) or `Cluster`"),
        ],
        "CRD names and scope.",
    ));
    out.push(flag("kubebuilder:storageversion", Type, "Marks this version as the storage version."));
    out.push(flag("kubebuilder:skipversion", Type, "Leaves this version out of the CRD."));
    out.push(flag("kubebuilder:unservedversion", Type, "Sets `served: false` on this version."));
    out.push(def(
        "kubebuilder:deprecatedversion",
        Type,
        vec![arg("warning", T::String, false, "deprecation warning returned to clients")],
        "Marks this version as deprecated.",
    ));
    out.push(def(
        "kubebuilder:metadata",
        Type,
        vec![
            arg("annotations", T::StringList, false, "`\"k=v\";\"k2=v2\"` annotations of the CRD"),
            arg("labels", T::StringList, false, "`\"k=v\";\"k2=v2\"` labels of the CRD"),
        ],
        "Extra metadata on the CRD object.",
    ));
    out.push(def(
        "kubebuilder:selectablefield",
        Type,
        vec![arg("JSONPath", T::String, true, "JSON path of the field")],
        "Adds a selectableFields entry.",
    ));
    out.push(def(
        "kubebuilder:externalDocs",
        TypeOrField,
        vec![
            arg("url", T::String, true, "documentation URL"),
            arg("description", T::String, false, "description of the link"),
        ],
        "Schema externalDocs.",
    ));
    out.push(flag("k8s:enum", Type, "String type whose constants become the enum (Rust enums need no marker)."));

    // ---- Validation markers (§10.3), each also as `validation:items:<Name>` ----
    let validation: Vec<(&str, Vec<ArgDef>, &str)> = vec![
        ("Minimum", vec![arg("", T::Number, true, "minimum")], "Minimum value (`minimum`)."),
        ("Maximum", vec![arg("", T::Number, true, "maximum")], "Maximum value (`maximum`)."),
        ("ExclusiveMinimum", vec![arg("", T::Bool, false, "defaults to true")], "Makes `minimum` exclusive."),
        ("ExclusiveMaximum", vec![arg("", T::Bool, false, "defaults to true")], "Makes `maximum` exclusive."),
        ("MultipleOf", vec![arg("", T::Number, true, "divisor")], "Value must be a multiple of this (`multipleOf`)."),
        ("MinLength", vec![arg("", T::Int, true, "length")], "Minimum string length (`minLength`)."),
        ("MaxLength", vec![arg("", T::Int, true, "length")], "Maximum string length (`maxLength`)."),
        ("Pattern", vec![arg("", T::String, true, "ECMA regex")], "String must match this regex (`pattern`)."),
        ("Enum", vec![arg("", T::AnyList, true, "`a;b;c`")], "Allowed values (`enum`)."),
        ("Format", vec![arg("", T::String, true, "format name")], "OpenAPI format (`format`)."),
        ("MinItems", vec![arg("", T::Int, true, "count")], "Minimum array length (`minItems`)."),
        ("MaxItems", vec![arg("", T::Int, true, "count")], "Maximum array length (`maxItems`)."),
        (
            "UniqueItems",
            vec![arg("", T::Bool, false, "defaults to true")],
            "Array items must be unique (`uniqueItems`).",
        ),
        ("MinProperties", vec![arg("", T::Int, true, "count")], "Minimum number of object properties."),
        ("MaxProperties", vec![arg("", T::Int, true, "count")], "Maximum number of object properties."),
        ("Type", vec![arg("", T::String, true, "OpenAPI type")], "Overrides the schema `type`."),
        (
            "XValidation",
            vec![
                arg("rule", T::String, true, "CEL expression"),
                arg("message", T::String, false, "message shown when the rule fails"),
                arg("messageExpression", T::String, false, "CEL expression producing the message"),
                arg("reason", T::OneOf(XVALIDATION_REASONS), false, "machine-readable failure reason"),
                arg("fieldPath", T::String, false, "field the failure is reported on"),
                arg("optionalOldSelf", T::Bool, false, "evaluate transition rules on create too"),
            ],
            "CEL validation rule (`x-kubernetes-validations`, repeatable).",
        ),
        (
            "XEmbeddedResource",
            vec![arg("", T::Bool, false, "defaults to true")],
            "`x-kubernetes-embedded-resource: true`.",
        ),
        ("XIntOrString", vec![arg("", T::Bool, false, "defaults to true")], "`x-kubernetes-int-or-string: true`."),
        (
            "XPreserveUnknownFields",
            vec![arg("", T::Bool, false, "defaults to true")],
            "Deprecated spelling of pruning:PreserveUnknownFields.",
        ),
    ];
    let mut items = Vec::new();
    for (name, args, doc) in validation {
        items.push(def(
            &format!("kubebuilder:validation:items:{name}"),
            Field,
            args.clone(),
            &format!("Like validation:{name}, applied to the array items."),
        ));
        out.push(def(&format!("kubebuilder:validation:{name}"), TypeOrField, args, doc));
    }
    out.push(flag(
        "kubebuilder:validation:Schemaless",
        Field,
        "Emits an empty schema for the field (add a Type yourself).",
    ));
    out.push(flag(
        "kubebuilder:validation:EmbeddedResource",
        Field,
        "The field is an embedded Kubernetes object (apiVersion/kind/metadata).",
    ));
    out.push(flag(
        "kubebuilder:validation:Optional",
        Field,
        "The field is optional (on a module: fields default to optional).",
    ));
    out.push(flag(
        "kubebuilder:validation:Required",
        Field,
        "The field is required (on a module: fields default to required).",
    ));
    for (name, word) in
        [("ExactlyOneOf", "exactly one"), ("AtMostOneOf", "at most one"), ("AtLeastOneOf", "at least one")]
    {
        out.push(def(
            &format!("kubebuilder:validation:{name}"),
            Type,
            vec![arg("", T::StringList, true, "JSON field names `a;b`")],
            &format!("CEL rule: {word} of the listed fields must be set."),
        ));
    }
    out.extend(items);

    // ---- Field-level schema markers ----
    out.push(value("kubebuilder:default", Field, T::Any, "Default value (`{a,b}` lists, `{k: v}` maps)."));
    out.push(value(
        "default",
        Field,
        T::String,
        "Default value as JSON (`+kubebuilder:default` wins when both are set).",
    ));
    out.push(value("kubebuilder:example", Field, T::Any, "Example value (`example`)."));
    out.push(value("kubebuilder:title", TypeOrField, T::String, "Schema title."));
    out.push(flag(
        "kubebuilder:pruning:PreserveUnknownFields",
        TypeOrField,
        "`x-kubernetes-preserve-unknown-fields: true`.",
    ));
    out.push(flag("optional", Field, "The field is optional."));
    out.push(flag("required", Field, "The field is required."));
    out.push(flag("nullable", Field, "`nullable: true`."));
    out.push(flag("k8s:optional", Field, "Alias of `+optional`."));
    out.push(flag("k8s:required", Field, "Alias of `+required`."));
    out.push(flag("k8s:immutable", Field, "The field cannot change once set (CEL `self == oldSelf`)."));
    out.push(value("listType", TypeOrField, T::OneOf(LIST_TYPES), "`x-kubernetes-list-type`: map, set or atomic."));
    out.push(value("k8s:listType", TypeOrField, T::OneOf(LIST_TYPES), "Alias of `+listType`."));
    out.push(value(
        "listMapKey",
        TypeOrField,
        T::String,
        "`x-kubernetes-list-map-keys` entry (repeatable; needs listType=map).",
    ));
    out.push(value("k8s:listMapKey", TypeOrField, T::String, "Alias of `+listMapKey`."));
    out.push(value("mapType", TypeOrField, T::OneOf(MAP_TYPES), "`x-kubernetes-map-type`: granular or atomic."));
    out.push(value(
        "structType",
        TypeOrField,
        T::OneOf(MAP_TYPES),
        "`x-kubernetes-map-type` of a struct: granular or atomic.",
    ));

    // ---- OLM CSV markers ----
    out.push(def(
        "operator-sdk:csv:customresourcedefinitions",
        TypeOrField,
        vec![
            arg("displayName", T::String, false, "display name of the kind or field"),
            arg("type", T::OneOf(&["spec", "status"]), false, "field descriptor kind (required on fields)"),
            arg(
                "xDescriptors",
                T::StringList,
                false,
                "UI x-descriptors, e.g. `urn:alm:descriptor:com.tectonic.ui:podCount`",
            ),
            arg("resources", T::Any, false, "owned resources `{{Kind,v1,name},...}`"),
            arg("order", T::Int, false, "position in the CSV list"),
        ],
        "ClusterServiceVersion owned-CRD description / spec and status descriptors.",
    ));

    // ---- kubesmith's own markers ----
    out.push(MarkerDef {
        name: "kubesmith:scaffold".to_string(),
        args: vec![arg("what", T::String, true, "insertion point name")],
        target: Package,
        open_suffix: true,
        doc: "Insertion point used by `kubesmith create`; ignored by generators.".to_string(),
    });

    out
}
