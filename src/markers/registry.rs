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
    /// What the marker does.
    pub doc: String,
    /// The part of the reference it is listed in.
    pub section: Section,
    /// A marker line using it (empty when the marker is only useful with a free suffix).
    pub example: String,
}

/// The parts of the marker reference (`kubesmith markers`, `docs/markers.md`), in the order they are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Section {
    /// `+kubebuilder:rbac`.
    Rbac,
    /// `+kubebuilder:webhook*`.
    Webhook,
    /// On the `#[derive(CustomResource)]` spec struct, configuring the CRD (not its schema).
    Crd,
    /// Schema markers on a field or a type.
    Validation,
    /// `+kubebuilder:validation:items:*`.
    Items,
    /// Schema markers on fields only.
    Field,
    /// List and map topology.
    Topology,
    /// Schema markers on types only.
    Type,
    /// Module-level markers of Go API packages.
    Package,
    /// operator-sdk's ClusterServiceVersion markers.
    Olm,
    /// kubesmith's own markers.
    Kubesmith,
}

impl Section {
    /// Every section, in reference order.
    pub const ALL: [Section; 11] = [
        Section::Rbac,
        Section::Webhook,
        Section::Crd,
        Section::Validation,
        Section::Items,
        Section::Field,
        Section::Topology,
        Section::Type,
        Section::Package,
        Section::Olm,
        Section::Kubesmith,
    ];

    /// Short machine name (`rbac`, `crd`, `validation`, ...).
    pub fn key(self) -> &'static str {
        match self {
            Section::Rbac => "rbac",
            Section::Webhook => "webhook",
            Section::Crd => "crd",
            Section::Validation => "validation",
            Section::Items => "items",
            Section::Field => "field",
            Section::Topology => "topology",
            Section::Type => "type",
            Section::Package => "package",
            Section::Olm => "olm",
            Section::Kubesmith => "kubesmith",
        }
    }

    /// Heading of the section in the reference.
    pub fn title(self) -> &'static str {
        match self {
            Section::Rbac => "RBAC",
            Section::Webhook => "Webhooks",
            Section::Crd => "CRD-level (on the `#[derive(CustomResource)]` spec struct)",
            Section::Validation => "Validation (field or type)",
            Section::Items => "Validation of array items (field)",
            Section::Field => "Field-only",
            Section::Topology => "Topology (field or type)",
            Section::Type => "Type-only",
            Section::Package => "Module-level",
            Section::Olm => "OLM ClusterServiceVersion",
            Section::Kubesmith => "kubesmith",
        }
    }

    /// What the section's markers are for, one paragraph.
    pub fn intro(self) -> &'static str {
        match self {
            Section::Rbac => {
                "Anywhere in a source file (usually above the reconciler). `make manifests` merges them into \
                 `config/rbac/role.yaml` with controller-gen's rules and checks them against the role the code needs."
            }
            Section::Webhook => {
                "Anywhere in a source file (the scaffold puts them in `src/webhook/<version>/<kind>/<part>.rs`). \
                 `make manifests` writes the webhook configurations to `config/webhook/manifests.yaml`."
            }
            Section::Crd => {
                "They configure the CRD, not a schema, and must agree with `#[kube(...)]` where it knows the value too."
            }
            Section::Validation => {
                "Applied to the field's property schema, or to the type's schema wherever it is used."
            }
            Section::Items => {
                "Each validation marker also exists as `+kubebuilder:validation:items:<Name>`, applied to the items of \
                 an array field (after the field's own markers)."
            }
            Section::Field => "Applied to a field's property schema or to its parent's `required`.",
            Section::Topology => "Server-side apply merge strategy of lists and maps.",
            Section::Type => "On a struct or enum.",
            Section::Package => {
                "Go API package markers; kubesmith reads kinds from `#[kube(...)]`, so most are ignored."
            }
            Section::Olm => {
                "Read by `make bundle` into the ClusterServiceVersion's owned CRDs (on the spec struct: the kind; on \
                 fields reachable from spec and status: descriptors)."
            }
            Section::Kubesmith => "kubesmith's own markers in scaffolded files.",
        }
    }
}

impl MarkerDef {
    /// The same definition with a usage example (a marker line).
    fn example(mut self, example: &str) -> Self {
        self.example = example.to_string();
        self
    }

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

/// Every marker kubesmith understands, in definition order (the reference groups them by [`Section`]).
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
    MarkerDef {
        name: name.to_string(),
        args,
        target,
        open_suffix: false,
        doc: doc.to_string(),
        section: Section::Package,
        example: String::new(),
    }
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

/// Collects definitions, each in the section set last.
struct Builder {
    out: Vec<MarkerDef>,
    section: Section,
}

impl Builder {
    fn push(&mut self, mut def: MarkerDef) {
        def.section = self.section;
        self.out.push(def);
    }
}

// One `push` per marker keeps the table readable and diff-friendly. The order is the lookup order (the first
// close name wins a suggestion); the reference groups the markers by `section`.
fn build() -> Vec<MarkerDef> {
    use ArgType as T;
    use MarkerTarget::{Field, Package, Type, TypeOrField};

    let mut out = Builder { out: Vec::new(), section: Section::Rbac };

    // ---- RBAC (§8.1) ----
    out.push(
        def(
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
        )
        .example("// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch"),
    );

    // ---- Webhooks (§9.1) ----
    out.section = Section::Webhook;
    out.push(
        def(
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
        )
        .example(
            "// +kubebuilder:webhook:path=/mutate-cache-example-com-v1-memcached,mutating=true,failurePolicy=fail,\
             sideEffects=None,groups=cache.example.com,resources=memcacheds,verbs=create;update,versions=v1,\
             name=mmemcached-v1.kb.io,admissionReviewVersions=v1",
        ),
    );
    out.push(
        def(
            "kubebuilder:webhookconfiguration",
            Package,
            vec![
                arg("mutating", T::Bool, true, "which configuration to rename"),
                arg("name", T::String, true, "new name of the (Mutating|Validating)WebhookConfiguration"),
            ],
            "Renames the generated webhook configuration object.",
        )
        .example("// +kubebuilder:webhookconfiguration:mutating=true,name=memcached-mutating"),
    );

    // ---- Package-level CRD markers (§10.1) ----
    out.section = Section::Package;
    out.push(
        value("groupName", Package, T::String, "API group of the types in this module.")
            .example("// +groupName=cache.example.com"),
    );
    out.push(
        value("versionName", Package, T::String, "API version of the types in this module.")
            .example("// +versionName=v1"),
    );
    out.push(
        flag("kubebuilder:skip", Package, "Do not treat this module as an API version.")
            .example("// +kubebuilder:skip"),
    );
    out.push(
        bool_flag("kubebuilder:object:generate", Package, "Go deepcopy generation; accepted and ignored by kubesmith.")
            .example("// +kubebuilder:object:generate=true"),
    );
    out.section = Section::Type;
    out.push(
        bool_flag("kubebuilder:object:root", Type, "Go runtime.Object marker; accepted and ignored by kubesmith.")
            .example("// +kubebuilder:object:root=true"),
    );
    out.section = Section::Package;
    out.push(
        bool_flag(
            "kubebuilder:ac:generate",
            Package,
            "Go applyconfiguration generation; accepted and ignored by kubesmith.",
        )
        .example("// +kubebuilder:ac:generate=false"),
    );
    out.push(
        value(
            "kubebuilder:ac:output:package",
            Package,
            T::String,
            "Go applyconfiguration output package; accepted and ignored by kubesmith.",
        )
        .example("// +kubebuilder:ac:output:package=applyconfiguration"),
    );

    // ---- Type-level CRD markers (§10.2) ----
    out.section = Section::Crd;
    out.push(
        flag(
            "kubebuilder:subresource:status",
            Type,
            "Enables the status subresource. `#[kube(status = \"...\")]` already enables it and adds the `status` \
             property; without a status type the marker adds the subresource alone (the schema has no `status`, so \
             the API server prunes what is written there unless the root keeps unknown fields).",
        )
        .example("// +kubebuilder:subresource:status"),
    );
    out.push(
        def(
            "kubebuilder:subresource:scale",
            Type,
            vec![
                arg("specpath", T::String, true, "JSON path of the desired replicas, e.g. `.spec.replicas`"),
                arg("statuspath", T::String, true, "JSON path of the observed replicas"),
                arg("selectorpath", T::String, false, "JSON path of the label selector"),
            ],
            "Enables the scale subresource (`subresources.scale`).",
        )
        .example("// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas"),
    );
    out.push(
        def(
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
            "Appends an `additionalPrinterColumns` entry after the `#[kube(printcolumn)]` ones (in marker order).",
        )
        .example("// +kubebuilder:printcolumn:name=\"Age\",type=date,JSONPath=\".metadata.creationTimestamp\""),
    );
    out.push(
        def(
            "kubebuilder:resource",
            Type,
            vec![
                arg("path", T::String, false, "plural name"),
                arg("shortName", T::StringList, false, "short names"),
                arg("categories", T::StringList, false, "categories, e.g. `all`"),
                arg("singular", T::String, false, "singular name"),
                arg("scope", T::OneOf(&["Namespaced", "Cluster", ""]), false, "`Namespaced` (default) or `Cluster`"),
            ],
            "CRD names and scope: adds `shortNames` and `categories`; `path`, `singular`, `scope` must match \
             `#[kube(...)]`.",
        )
        .example("// +kubebuilder:resource:shortName=mc;mcd,categories=all"),
    );
    out.push(
        flag("kubebuilder:storageversion", Type, "Marks this version as the storage version of a multi-version kind.")
            .example("// +kubebuilder:storageversion"),
    );
    out.push(
        flag("kubebuilder:skipversion", Type, "Leaves this version out of the CRD (an error when it is the only one).")
            .example("// +kubebuilder:skipversion"),
    );
    out.push(
        flag(
            "kubebuilder:unservedversion",
            Type,
            "Sets `served: false` on this version (an error when no version is served).",
        )
        .example("// +kubebuilder:unservedversion"),
    );
    out.push(
        def(
            "kubebuilder:deprecatedversion",
            Type,
            vec![arg("warning", T::String, false, "deprecation warning returned to clients")],
            "Marks this version as deprecated (`deprecated: true`, `deprecationWarning`).",
        )
        .example("// +kubebuilder:deprecatedversion:warning=\"use v2\""),
    );
    out.push(
        def(
            "kubebuilder:metadata",
            Type,
            vec![
                arg("annotations", T::StringList, false, "`\"k=v\";\"k2=v2\"` annotations of the CRD"),
                arg("labels", T::StringList, false, "`\"k=v\";\"k2=v2\"` labels of the CRD"),
            ],
            "Extra metadata on the CRD object (`metadata.annotations` / `labels`).",
        )
        .example("// +kubebuilder:metadata:annotations=\"api-approved.kubernetes.io=unapproved\""),
    );
    out.push(
        def(
            "kubebuilder:selectablefield",
            Type,
            vec![arg("JSONPath", T::String, true, "JSON path of the field")],
            "Appends a `selectableFields` entry.",
        )
        .example("// +kubebuilder:selectablefield:JSONPath=\".spec.size\""),
    );
    // The root `openAPIV3Schema` as controller-gen writes it (Go ports keep the CRD clusters store objects under).
    out.push(
        def(
            "kubesmith:root:typeMeta",
            Type,
            vec![
                arg(
                    "apiVersion",
                    T::String,
                    false,
                    "description of `apiVersion` (default: controller-gen's metav1.TypeMeta text; `\"\"`: none)",
                ),
                arg(
                    "kind",
                    T::String,
                    false,
                    "description of `kind` (default: controller-gen's metav1.TypeMeta text; `\"\"`: none)",
                ),
            ],
            "Root schema as controller-gen writes it: adds `apiVersion` and `kind` (`type: string` and a \
             description) and `metadata: {type: object}`, and drops the root `title` kube-derive writes. Applied \
             before `kubesmith:root:required` and `kubesmith:root:optional`.",
        )
        .example("// +kubesmith:root:typeMeta"),
    );
    out.push(
        value(
            "kubesmith:root:required",
            Type,
            T::StringList,
            "Adds root properties (`spec`, `status`, `metadata`, `apiVersion`, `kind`, or with `#[kube(no_spec)]` \
             the spec's fields) to the root `required` (sorted); each must exist and not be required already.",
        )
        .example("// +kubesmith:root:required=metadata"),
    );
    out.push(
        value(
            "kubesmith:root:optional",
            Type,
            T::StringList,
            "Removes names from the root `required` (each must be in it; an empty list is dropped). `spec`: the API \
             server accepts objects without one, which kube's root type (`spec: FooSpec`) cannot read.",
        )
        .example("// +kubesmith:root:optional=spec"),
    );
    out.push(
        value(
            "kubesmith:root:notNullable",
            Type,
            T::StringList,
            "Removes `nullable: true` from root properties (kube-derive writes it on `status`, an `Option`; \
             controller-gen does not); each must be nullable. The API server then refuses `status: null`, which kube's \
             client never sends (it leaves a `None` status out).",
        )
        .example("// +kubesmith:root:notNullable=status"),
    );
    out.push(
        value(
            "kubesmith:root:nullable",
            Type,
            T::StringList,
            "Adds `nullable: true` to root properties (kube-derive writes it only on `status`): a CRD whose `spec` \
             accepts `null`, kept as the file has it. The kind's Rust type still reads a `null` spec as an error; \
             each must not be nullable already.",
        )
        .example("// +kubesmith:root:nullable=spec"),
    );
    out.push(
        value(
            "kubesmith:root:properties",
            Type,
            T::String,
            "Root properties beside `spec` and `status`, a JSON object of names to schemas (argo-cd's Application \
             keeps an `operation` there): the CRD keeps them, so objects that carry them stay valid. The kind's Rust \
             type cannot hold them: it reads such an object without them, and a replace (PUT) from it drops them; \
             patch or apply instead.",
        )
        .example(r#"// +kubesmith:root:properties={"operation": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}"#),
    );
    let section = out.section;
    out.section = Section::Validation;
    out.push(
        value(
            "kubesmith:requiredOrder",
            Type,
            T::StringList,
            "The order of a struct's `required` list (kube's rewriter sorts it; a CRD file may not): exactly the \
             required fields, in the order the file lists them.",
        )
        .example("// +kubesmith:requiredOrder=port;hosts"),
    );
    out.push(
        value(
            "kubesmith:schema:required",
            Type,
            T::StringList,
            "Keys a struct's object requires that its Rust type does not declare (a free-form object, \
             `XPreserveUnknownFields`, whose CRD still lists `required` keys): added to `required` after the \
             fields', in the order given. A name a field already requires is refused.",
        )
        .example("// +kubesmith:schema:required=retentionPeriod"),
    );
    for (key, example) in [
        ("oneOf", r#"[{"required": ["file"]}, {"required": ["stream"]}]"#),
        ("anyOf", r#"[{"required": ["file"]}, {"required": ["stream"]}]"#),
        ("allOf", r#"[{"required": ["file"]}]"#),
        ("not", r#"{"required": ["file", "stream"]}"#),
    ] {
        out.push(
            value(
                match key {
                    "oneOf" => "kubesmith:schema:oneOf",
                    "anyOf" => "kubesmith:schema:anyOf",
                    "allOf" => "kubesmith:schema:allOf",
                    _ => "kubesmith:schema:not",
                },
                Type,
                T::String,
                match key {
                    "not" => {
                        "`not` of a struct's schema, written as given (a JSON schema), after kube's structural \
                              rewriter, which would hoist properties out of it and sort its `required` lists."
                    }
                    _ => {
                        "This combinator of a struct's schema, written as given (a JSON array of schemas), after \
                          kube's structural rewriter, which would hoist the branches' properties into the struct's \
                          and sort their `required` lists."
                    }
                },
            )
            .example(&format!("// +kubesmith:schema:{key}={example}")),
        );
    }
    out.section = section;
    out.push(
        value(
            "kubesmith:root:title",
            Type,
            T::String,
            "Sets the root schema's `title` (kube-derive writes the kind's name when the doc has no title).",
        )
        .example("// +kubesmith:root:title=Widget"),
    );
    out.push(
        flag(
            "kubesmith:root:noTitle",
            Type,
            "Drops the root `title` kube-derive writes (the kind's name), for a CRD whose root has none \
             (`typeMeta` drops it too).",
        )
        .example("// +kubesmith:root:noTitle"),
    );
    out.push(
        value(
            "kubesmith:root:specDefault",
            Type,
            T::String,
            "`default` of the root `spec` property, a JSON object: the API server fills it in when an object has no \
             spec (or an empty one, field by field).",
        )
        .example("// +kubesmith:root:specDefault={\"upgradeStrategy\": \"Default\"}"),
    );
    out.push(
        value(
            "kubesmith:root:statusDefault",
            Type,
            T::String,
            "`default` of the root `status` property, a JSON object (`{\"observedGeneration\": -1}`): what objects \
             stored without a status read as.",
        )
        .example("// +kubesmith:root:statusDefault={\"observedGeneration\": -1}"),
    );
    out.push(
        def(
            "kubesmith:crd",
            Type,
            vec![
                arg(
                    "listKind",
                    T::String,
                    false,
                    "`spec.names.listKind` (left out, the API server fills in `<Kind>List`)",
                ),
                arg(
                    "preserveUnknownFields",
                    T::Bool,
                    false,
                    "`spec.preserveUnknownFields`, written out; only `false` (apiextensions.k8s.io/v1 refuses `true`)",
                ),
                arg(
                    "conversion",
                    T::OneOf(&["None", "Webhook"]),
                    false,
                    "`spec.conversion.strategy`: `None` written out (the API server's default), or `Webhook` with the \
                     `conversion*` arguments (a CRD file that carries its conversion webhook itself rather than \
                     through a kustomize patch)",
                ),
                arg(
                    "conversionService",
                    T::String,
                    false,
                    "with `conversion=Webhook`: the Service, `<namespace>/<name>`",
                ),
                arg("conversionPath", T::String, false, "with `conversionService`: the URL path (`/convert`)"),
                arg("conversionPort", T::Int, false, "with `conversionService`: the Service port"),
                arg("conversionURL", T::String, false, "with `conversion=Webhook`, instead of a Service: the URL"),
                arg(
                    "conversionReviewVersions",
                    T::StringList,
                    false,
                    "with `conversion=Webhook`: the ConversionReview versions the webhook takes (`v1;v1beta1`)",
                ),
                arg(
                    "statusSubresource",
                    T::Bool,
                    false,
                    "only `false`: this version has no status subresource although its kind has a status (kube-derive \
                     adds the subresource with `status = ..`)",
                ),
                arg(
                    "emptySubresources",
                    T::Bool,
                    false,
                    "`true`: this version writes `subresources: {}` when it has none",
                ),
                arg(
                    "versionOrder",
                    T::StringList,
                    false,
                    "the order of `spec.versions` (`v1alpha1;v1beta1;v1`; versions left out follow, storage version \
                     first); on the storage version only",
                ),
            ],
            "CRD fields kube-derive never writes, spelled out as a CRD file has them: what `create api --from-crd` \
             keeps so that `make manifests` gives the file back identical as data. Each says what the API server \
             fills in when it is absent, so the stored CRD is the same either way. On a multi-version kind, the \
             storage version's spec struct decides.",
        )
        .example("// +kubesmith:crd:listKind=MemcachedList,preserveUnknownFields=false"),
    );
    out.section = Section::Validation;
    out.push(
        def(
            "kubebuilder:externalDocs",
            TypeOrField,
            vec![
                arg("url", T::String, true, "documentation URL (absolute)"),
                arg("description", T::String, false, "description of the link"),
            ],
            "Schema `externalDocs{url, description}`.",
        )
        .example("// +kubebuilder:externalDocs:url=\"https://example.com\",description=\"Docs\""),
    );
    out.section = Section::Type;
    out.push(
        flag("k8s:enum", Type, "Accepted and ignored: Rust enums are already enums (a Go string type's constants).")
            .example("// +k8s:enum"),
    );

    // ---- Validation markers (§10.3), each also as `validation:items:<Name>` ----
    out.section = Section::Validation;
    let validation: Vec<(&str, Vec<ArgDef>, &str, &str)> = vec![
        (
            "Minimum",
            vec![arg("", T::Number, true, "minimum")],
            "`minimum` (numbers; integral on integers), written as spelled: `=1` gives `1`, as controller-gen writes it.",
            "=1",
        ),
        ("Maximum", vec![arg("", T::Number, true, "maximum")], "`maximum` (numbers), written as spelled.", "=65535"),
        ("ExclusiveMinimum", vec![arg("", T::Bool, false, "defaults to true")], "`exclusiveMinimum: true`.", ""),
        ("ExclusiveMaximum", vec![arg("", T::Bool, false, "defaults to true")], "`exclusiveMaximum: true`.", "=true"),
        ("MultipleOf", vec![arg("", T::Number, true, "divisor")], "`multipleOf` (numbers), written as spelled.", "=2"),
        ("MinLength", vec![arg("", T::Int, true, "length")], "`minLength` (strings, int-or-string).", "=1"),
        ("MaxLength", vec![arg("", T::Int, true, "length")], "`maxLength` (strings, int-or-string).", "=63"),
        ("Pattern", vec![arg("", T::String, true, "ECMA regex")], "`pattern` (strings, int-or-string).", "=`^[a-z]+$`"),
        (
            "Enum",
            vec![arg("", T::AnyList, true, "`a;b;c`")],
            "`enum`; values typed like kubebuilder (`1;2` are numbers, quote strings that look like numbers).",
            "=Always;Never",
        ),
        ("Format", vec![arg("", T::String, true, "format name")], "`format`.", "=date-time"),
        ("MinItems", vec![arg("", T::Int, true, "count")], "`minItems` (arrays).", "=1"),
        ("MaxItems", vec![arg("", T::Int, true, "count")], "`maxItems` (arrays).", "=10"),
        (
            "UniqueItems",
            vec![arg("", T::Bool, false, "defaults to true")],
            "Arrays; `true` is an error (the API server rejects `uniqueItems: true`): use `+listType=set`.",
            "=false",
        ),
        ("MinProperties", vec![arg("", T::Int, true, "count")], "`minProperties` (structs, maps).", "=1"),
        ("MaxProperties", vec![arg("", T::Int, true, "count")], "`maxProperties` (structs, maps).", "=16"),
        ("Type", vec![arg("", T::String, true, "OpenAPI type")], "Overrides `type` (applied first).", "=object"),
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
            "Appends a CEL rule to `x-kubernetes-validations`; repeatable.",
            ":rule=\"self.min <= self.max\",message=\"min > max\"",
        ),
        (
            "XEmbeddedResource",
            vec![arg("", T::Bool, false, "defaults to true")],
            "`x-kubernetes-embedded-resource: true` (objects).",
            "",
        ),
        (
            "XIntOrString",
            vec![arg("", T::Bool, false, "defaults to true")],
            "`x-kubernetes-int-or-string: true` with `anyOf: [integer, string]` (replaces `type`).",
            "",
        ),
        (
            "XPreserveUnknownFields",
            vec![arg("", T::Bool, false, "defaults to true")],
            "`x-kubernetes-preserve-unknown-fields: true` (deprecated spelling of `pruning:PreserveUnknownFields`).",
            "",
        ),
    ];
    let mut items = Vec::new();
    for (name, args, doc, example) in validation {
        items.push(
            def(
                &format!("kubebuilder:validation:items:{name}"),
                Field,
                args.clone(),
                &format!("Like `validation:{name}`, applied to the array items."),
            )
            .example(&format!("// +kubebuilder:validation:items:{name}{example}")),
        );
        out.push(
            def(&format!("kubebuilder:validation:{name}"), TypeOrField, args, doc)
                .example(&format!("// +kubebuilder:validation:{name}{example}")),
        );
    }
    out.section = Section::Field;
    out.push(
        flag(
            "kubebuilder:validation:Schemaless",
            Field,
            "Replaces the field's schema by an empty one (keeps the description); add `Type` yourself.",
        )
        .example("// +kubebuilder:validation:Schemaless"),
    );
    out.push(
        flag(
            "kubebuilder:validation:EmbeddedResource",
            Field,
            "`x-kubernetes-embedded-resource: true`: the field is an embedded Kubernetes object \
             (apiVersion/kind/metadata).",
        )
        .example("// +kubebuilder:validation:EmbeddedResource"),
    );
    out.push(
        flag(
            "kubebuilder:validation:Optional",
            Field,
            "Alias of `+optional` (on a module: fields default to optional).",
        )
        .example("// +kubebuilder:validation:Optional"),
    );
    out.push(
        flag(
            "kubebuilder:validation:Required",
            Field,
            "Alias of `+required` (on a module: fields default to required).",
        )
        .example("// +kubebuilder:validation:Required"),
    );
    out.section = Section::Type;
    for (name, word, rule) in [
        (
            "ExactlyOneOf",
            "exactly one",
            "CEL `(has(self.a)?1:0)+(has(self.b)?1:0) == 1`, `exactly one of the fields in [a b] must be set`",
        ),
        (
            "AtMostOneOf",
            "at most one",
            "CEL `(has(self.a)?1:0)+(has(self.b)?1:0) <= 1`, `at most one of the fields in [a b] may be set`",
        ),
        (
            "AtLeastOneOf",
            "at least one",
            "CEL `has(self.a)||has(self.b)`, `at least one of the fields in [a b] must be set`",
        ),
    ] {
        out.push(
            def(
                &format!("kubebuilder:validation:{name}"),
                Type,
                vec![arg("", T::StringList, true, "JSON field names `a;b`")],
                &format!("{rule}: {word} of the listed fields; members must be optional JSON names of this type."),
            )
            .example(&format!("// +kubebuilder:validation:{name}=a;b")),
        );
    }
    out.section = Section::Items;
    for item in items {
        out.push(item);
    }

    // ---- Field-level schema markers ----
    out.section = Section::Field;
    out.push(
        value(
            "kubebuilder:default",
            Field,
            T::Any,
            "`default`, kubebuilder syntax (`{a,b}` lists, `{k: v}` maps, `{}` on an array is `[]`); overrides \
             serde's default and must fit the field's type.",
        )
        .example("// +kubebuilder:default={a,b}"),
    );
    out.push(
        value(
            "default",
            Field,
            T::String,
            "`default` as JSON (`+default=ref(...)` is ignored; `+kubebuilder:default` wins when both are set).",
        )
        .example("// +default={\"k\": [1]}"),
    );
    out.push(value("kubebuilder:example", Field, T::Any, "`example`.").example("// +kubebuilder:example=5"));
    out.section = Section::Validation;
    out.push(
        value("kubebuilder:title", TypeOrField, T::String, "Schema `title`.").example("// +kubebuilder:title=Replicas"),
    );
    out.push(
        flag(
            "kubebuilder:pruning:PreserveUnknownFields",
            TypeOrField,
            "`x-kubernetes-preserve-unknown-fields: true`; also makes a `serde_json::Value` field acceptable.",
        )
        .example("// +kubebuilder:pruning:PreserveUnknownFields"),
    );
    out.section = Section::Field;
    out.push(
        flag(
            "optional",
            Field,
            "Removes the field from the parent's `required`; an error on a field the Rust type requires (not \
             `Option`, no `#[serde(default)]`).",
        )
        .example("// +optional"),
    );
    out.push(flag("required", Field, "Adds the field to the parent's `required`.").example("// +required"));
    out.push(flag("nullable", Field, "`nullable: true`.").example("// +nullable"));
    out.push(flag("k8s:optional", Field, "Alias of `+optional`.").example("// +k8s:optional"));
    out.push(flag("k8s:required", Field, "Alias of `+required`.").example("// +k8s:required"));
    out.push(
        flag(
            "k8s:immutable",
            Field,
            "`self == oldSelf` rule (`field is immutable`); for an optional field the parent also gets \
             `!has(oldSelf.f) || has(self.f)` (`field f is immutable once set`).",
        )
        .example("// +k8s:immutable"),
    );
    out.section = Section::Topology;
    out.push(
        value(
            "listType",
            TypeOrField,
            T::OneOf(LIST_TYPES),
            "`x-kubernetes-list-type` (arrays only; `map` needs object items and at least one key).",
        )
        .example("// +listType=map"),
    );
    out.push(
        value("k8s:listType", TypeOrField, T::OneOf(LIST_TYPES), "Alias of `+listType`.")
            .example("// +k8s:listType=set"),
    );
    out.push(
        value(
            "listMapKey",
            TypeOrField,
            T::String,
            "`x-kubernetes-list-map-keys` entry (repeatable; needs `listType=map`; must name a field of the items).",
        )
        .example("// +listMapKey=name"),
    );
    out.push(
        value("k8s:listMapKey", TypeOrField, T::String, "Alias of `+listMapKey`.").example("// +k8s:listMapKey=name"),
    );
    out.push(
        value("mapType", TypeOrField, T::OneOf(MAP_TYPES), "`x-kubernetes-map-type` on a map.")
            .example("// +mapType=atomic"),
    );
    out.push(
        value("structType", TypeOrField, T::OneOf(MAP_TYPES), "`x-kubernetes-map-type` on a struct.")
            .example("// +structType=atomic"),
    );

    // ---- OLM CSV markers ----
    out.section = Section::Olm;
    out.push(
        def(
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
        )
        .example("// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName=\"Size\",xDescriptors=\"urn:alm:descriptor:com.tectonic.ui:podCount\""),
    );

    // ---- kubesmith's own markers ----
    out.section = Section::Kubesmith;
    out.push(MarkerDef {
        name: "kubesmith:scaffold".to_string(),
        args: vec![arg("what", T::String, true, "insertion point name")],
        target: Package,
        open_suffix: true,
        doc: "Insertion point used by `kubesmith create`; ignored by generators.".to_string(),
        section: Section::Kubesmith,
        example: "// +kubesmith:scaffold:controllers".to_string(),
    });

    out.out
}
