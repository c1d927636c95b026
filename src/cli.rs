//! Command-line types (clap derive only: no logic, no file system access).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// `make bundle`'s default `--output-dir`.
pub const BUNDLE_DIR: &str = "bundle";
/// `make catalog`'s default `--output-dir`.
pub const CATALOG_DIR: &str = "catalog";

/// Scaffold, generate and package Kubernetes operators written in Rust with kube-rs.
#[derive(Debug, Parser)]
#[command(name = "kubesmith", version, max_term_width = 110)]
#[command(after_help = "Quick start:\n  kubesmith init --domain example.com\n  \
    kubesmith create api --group cache --version v1alpha1 --kind Memcached\n  kubesmith make manifests")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Print errors only (no created/updated files, no notes).
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print every planned operation, unchanged files included, and how long planning and writing took.
    #[arg(short, long, global = true)]
    pub verbose: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Scaffold a new operator project in the current folder.
    #[command(after_help = "Example:\n  mkdir memcached-operator && cd memcached-operator\n  \
        kubesmith init --domain example.com --owner \"The Memcached Authors\"")]
    Init(InitArgs),
    /// Make an existing kube-rs crate or cargo workspace a kubesmith project without touching its sources: PROJECT,
    /// and the config/ tree with its kinds' CRDs, samples and the RBAC its code needs.
    #[command(
        after_help = "Examples:\n  kubesmith adopt --domain example.org --image quay.io/me/fleet-operator:0.1.0\n  \
        kubesmith adopt --bin fleet-operator --dry-run"
    )]
    Adopt(AdoptArgs),
    /// Change the layout of a scaffolded project: `--multigroup` moves a single-group project's APIs,
    /// controllers and webhooks below their group (`src/api/<group>/<version>`) so it can hold several groups;
    /// `--namespaced` makes the manager namespace-scoped (a Role, `WATCH_NAMESPACE`), `--namespaced=false` undoes it;
    /// `--plugins grafana` adds Grafana dashboards for the manager's metrics.
    #[command(after_help = "Examples:\n  \
        kubesmith edit --multigroup\n  \
        kubesmith edit --multigroup --dry-run\n  \
        # once multigroup, a second group:\n  \
        kubesmith create api --group ship --version v1 --kind Frigate\n  \
        kubesmith edit --namespaced\n  \
        kubesmith edit --namespaced=false\n  \
        kubesmith edit --plugins grafana")]
    Edit(EditArgs),
    /// Add something to the project.
    #[command(subcommand)]
    Create(CreateCommand),
    /// Generate files from the project's sources.
    #[command(subcommand)]
    Make(MakeCommand),
    /// Work with OLM bundles.
    #[command(subcommand)]
    Bundle(BundleCommand),
    /// Work with OLM file-based catalogs.
    #[command(subcommand)]
    Catalog(CatalogCommand),
    /// Work with the RBAC an operator needs.
    #[command(subcommand)]
    Rbac(RbacCommand),
    /// Work with Helm charts.
    #[command(subcommand)]
    Helm(HelmCommand),
    /// Experimental: re-create the project from PROJECT with this kubesmith, or merge today's templates into it.
    #[command(subcommand)]
    Alpha(AlphaCommand),
    /// Get the etcd, kube-apiserver and kubectl binaries that tests against a real API server run (setup-envtest's
    /// job): from --bin-dir, $KUBEBUILDER_ASSETS or the store shared with setup-envtest, else downloaded and verified.
    #[command(subcommand)]
    Envtest(EnvtestCommand),
    /// Print the shell completion script for bash, zsh, fish or powershell.
    #[command(after_help = "Examples:\n  \
        kubesmith completion bash \\\n      \
        > ~/.local/share/bash-completion/completions/kubesmith\n  \
        kubesmith completion zsh > \"${fpath[1]}/_kubesmith\"\n  \
        kubesmith completion fish > ~/.config/fish/completions/kubesmith.fish\n  \
        kubesmith completion powershell >> $PROFILE")]
    Completion(CompletionArgs),
    /// List every marker kubesmith understands, with its arguments, their types and meaning.
    #[command(after_help = "Examples:\n  kubesmith markers\n  kubesmith markers kubebuilder:validation\n  \
        kubesmith markers kubebuilder:rbac --output json\n  kubesmith markers --output markdown > docs/markers.md")]
    Markers(MarkersArgs),
}

#[derive(Debug, Subcommand)]
pub enum AlphaCommand {
    /// Replay `init`, every `create api` and `create webhook` PROJECT records, then `make manifests`, into a new
    /// folder (default: `<project>-generated` beside the project), to compare with the project and carry code over.
    #[command(after_help = "Examples:\n  \
        kubesmith alpha generate\n  \
        kubesmith alpha generate --output-dir /tmp/memcached-operator-replay\n  \
        # in place, on a clean git tree (review with `git diff`):\n  \
        kubesmith alpha generate --output-dir .")]
    Generate(AlphaGenerateArgs),
    /// Merge today's templates into the project with git: commits the replay of the project as scaffolded
    /// (`kubesmith-ancestor`), the replay with this kubesmith (`kubesmith-upgrade`) and your tree
    /// (`kubesmith-original`), then merges the upgrade into `kubesmith-merge`, leaving conflicts for you.
    #[command(after_help = "Examples:\n  kubesmith alpha update\n  kubesmith alpha update --from-branch main\n  \
        kubesmith alpha update --ancestor-binary ~/.cargo/bin/kubesmith-0.1.0")]
    Update(AlphaUpdateArgs),
}

#[derive(Debug, Args)]
pub struct AlphaGenerateArgs {
    /// The project to replay (the folder holding its PROJECT). Default: the current folder.
    #[arg(long, value_name = "DIR")]
    pub input_dir: Option<PathBuf>,
    /// Where to write the replay: a new or empty folder. Default: `<project>-generated` beside the project. The
    /// project itself (`--output-dir .`) only on a clean git tree: `.git`, `Cargo.lock` and ignored files are kept,
    /// every other tracked file is replaced by the replay's.
    #[arg(long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// Print the commands that would be replayed, write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct AlphaUpdateArgs {
    /// The branch holding your project (default: the current branch); it is left as it is.
    #[arg(long, value_name = "BRANCH")]
    pub from_branch: Option<String>,
    /// A kubesmith binary of the version that scaffolded the project (PROJECT's `cliVersion`): its `alpha generate`
    /// makes the ancestor. Default: this kubesmith's templates stand for the ancestor's, so the merge brings no
    /// template change made since that version.
    #[arg(long, value_name = "PATH")]
    pub ancestor_binary: Option<PathBuf>,
    /// Check that the update can run and print the commands it would replay; create no branch.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct CompletionArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Output format of `kubesmith markers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MarkersFormat {
    Text,
    Markdown,
    Json,
}

#[derive(Debug, Args)]
pub struct MarkersArgs {
    /// Only markers whose name starts with this (without `+`), e.g. `kubebuilder:validation`.
    pub prefix: Option<String>,
    /// Output format; `markdown` is the reference page `docs/markers.md`.
    #[arg(long, value_enum, default_value_t = MarkersFormat::Text)]
    pub output: MarkersFormat,
}

#[derive(Debug, Subcommand)]
pub enum RbacCommand {
    /// Print the ClusterRole the code needs, read from its kube-rs calls (never compiled); warnings on stderr.
    #[command(after_help = "Examples:\n  \
        kubesmith rbac infer\n  \
        kubesmith rbac infer --source crates/api/src --source crates/operator/src \\\n      \
        --bin operator\n  \
        kubesmith rbac infer --explain")]
    Infer(RbacInferArgs),
}

#[derive(Debug, Args)]
pub struct RbacInferArgs {
    /// A crate's source folder (holding `lib.rs`, `main.rs` or `bin/`); repeat for the crates of a workspace, which
    /// refer to each other by crate name. Default: the PROJECT's sources in a kubesmith project, else `src`, else
    /// every member's at the root of a cargo workspace.
    #[arg(long = "source", value_name = "DIR")]
    pub sources: Vec<PathBuf>,
    /// Start only from this binary's `fn main` (default: PROJECT's `rbac.bin` when adopted, else every binary; a
    /// library alone starts from its public fns).
    #[arg(long, value_name = "NAME")]
    pub bin: Option<String>,
    /// Print each rule with the call sites that need it (file:line, call) instead of the YAML.
    #[arg(long)]
    pub explain: bool,
    /// Never run cargo to fetch the sources of dependencies that are not on disk (also `CARGO_NET_OFFLINE=true` or
    /// cargo's `net.offline`): those crates are not read, and a warning names each.
    #[arg(long)]
    pub offline: bool,
}

#[derive(Debug, Subcommand)]
pub enum BundleCommand {
    /// Check a bundle with operator-framework's validators and OLM's CSV schema.
    #[command(after_help = "Examples:\n  \
        kubesmith bundle validate bundle\n  \
        kubesmith bundle validate bundle --select-optional suite=operatorframework \\\n      \
        --optional-values k8s-version=1.25\n  \
        kubesmith bundle validate bundle --select-optional name=community \\\n      \
        --optional-values index-path=bundle.Dockerfile\n  \
        kubesmith bundle validate bundle --select-optional name=good-practices \\\n      \
        --output json\n  \
        kubesmith bundle validate bundle --olm-v1")]
    Validate(BundleValidateArgs),
}

#[derive(Debug, Subcommand)]
pub enum CatalogCommand {
    /// Check a file-based catalog with opm's rules and print its upgrade graph.
    #[command(
        after_help = "Examples:\n  kubesmith catalog validate catalog\n  kubesmith catalog validate catalog --graph mermaid\n  \
        kubesmith catalog validate catalog --resolve --with ../etcd-catalog"
    )]
    Validate(CatalogValidateArgs),
}

#[derive(Debug, Subcommand)]
pub enum CreateCommand {
    /// Add an API (a custom resource kind): Rust types, a reconciler, samples and RBAC; or a reconciler for a
    /// built-in type (`--group apps --kind Deployment --resource=false`) or another crate's (`--external-api-path`).
    #[command(after_help = "Examples:\n  \
        kubesmith create api --group cache --version v1alpha1 --kind Memcached\n  \
        kubesmith create api --group cache --version v1 --kind Cluster \\\n      \
        --namespaced=false\n  \
        kubesmith create api --group cache --version v1beta1 --kind Memcached \\\n      \
        --controller=false\n  \
        kubesmith create api --group apps --version v1 --kind Deployment \\\n      \
        --controller --resource=false\n  \
        kubesmith create api --group cert-manager --version v1 --kind Issuer \\\n      \
        --resource=false \\\n      \
        --external-api-path acme_crds::cert_manager::v1::Issuer \\\n      \
        --external-api-crate acme-crds@0.3 --external-api-domain io")]
    Api(CreateApiArgs),
    /// Add admission (defaulting, validating) and conversion webhooks for an existing API, a built-in type or another
    /// crate's (`--external-api-path`).
    #[command(after_help = "Examples:\n  \
        kubesmith create webhook --group cache --version v1alpha1 --kind Memcached \\\n      \
        --defaulting --programmatic-validation\n  \
        kubesmith create webhook --group cache --version v1alpha1 --kind Memcached \\\n      \
        --conversion --spoke v1beta1\n  \
        kubesmith create webhook --group core --version v1 --kind Pod --defaulting")]
    Webhook(CreateWebhookArgs),
}

#[derive(Debug, Subcommand)]
pub enum MakeCommand {
    /// Generate CRDs and RBAC from the Rust sources (read with syn; only kinds whose schema needs running code are
    /// compiled, unless --no-compile).
    #[command(after_help = "Examples:\n  kubesmith make manifests\n  kubesmith make manifests --check\n  \
        kubesmith make manifests --keep-going\n  kubesmith make manifests --no-compile --check\n  \
        kubesmith make manifests --source src --crd-dir out/crds --rbac-dir out/rbac")]
    Manifests(MakeManifestsArgs),
    /// Generate an OLM bundle (bundle/manifests, bundle/metadata, bundle.Dockerfile) from config/manifests.
    #[command(after_help = "Examples:\n  \
        kubesmith make bundle --version 0.1.0 \\\n      \
        --image quay.io/me/memcached-operator:v0.1.0\n  \
        kubesmith make bundle --version 0.2.0 --channels fast,stable \\\n      \
        --default-channel stable --replaces memcached-operator.v0.1.0\n  \
        kubesmith make bundle --version 0.2.0 --check\n  \
        kubesmith make bundle --version 0.2.0 \\\n      \
        --depends-on-package etcd:'>=0.9.0 <1.0.0' \\\n      \
        --install-modes OwnNamespace,SingleNamespace")]
    Bundle(MakeBundleArgs),
    /// Generate a file-based catalog (olm.package, olm.channel, olm.bundle) from bundle folders.
    #[command(after_help = "Examples:\n  \
        kubesmith make catalog --bundle bundle \\\n      \
        --bundle-image quay.io/me/memcached-operator-bundle:v0.1.0\n  \
        kubesmith make catalog --bundle old/bundle=quay.io/me/op-bundle:v0.1.0 \\\n      \
        --bundle bundle=quay.io/me/op-bundle:v0.2.0")]
    Catalog(MakeCatalogArgs),
    /// Generate a Helm chart (dist/chart) from what config/default renders; re-run to update it: your values and
    /// files are kept.
    #[command(after_help = "Examples:\n  kubesmith make helm\n  kubesmith make helm --check\n  \
        kubesmith make helm --output-dir charts/memcached-operator")]
    Helm(MakeHelmArgs),
    /// Generate the API reference (docs/api-reference.md) of the project's own kinds from the CRDs `make manifests`
    /// generates: kinds, fields with YAML types, defaults, validation and doc comments; PROJECT records it, so
    /// `make manifests` keeps it current.
    #[command(after_help = "Examples:\n  kubesmith make docs\n  kubesmith make docs --check\n  \
        kubesmith make docs --format asciidoc --output docs/api-reference.adoc")]
    Docs(MakeDocsArgs),
}

/// `make docs --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DocsFormat {
    Markdown,
    Asciidoc,
}

#[derive(Debug, Args)]
pub struct MakeDocsArgs {
    /// The page to write. Default: the one PROJECT records, else docs/api-reference.md (.adoc for asciidoc).
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// The page's markup. Default: the one PROJECT records, else markdown.
    #[arg(long, value_enum)]
    pub format: Option<DocsFormat>,
    /// Write nothing; exit 1 naming the page when it is missing or stale.
    #[arg(long)]
    pub check: bool,
    /// Print the files that would be written, write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Subcommand)]
pub enum HelmCommand {
    /// Check a chart as `helm lint` does: Chart.yaml, values against values.schema.json, template syntax, and
    /// every .Values path the templates read.
    #[command(
        after_help = "Examples:\n  kubesmith helm lint\n  kubesmith helm lint dist/chart --set manager.replicas=2"
    )]
    Lint(HelmLintArgs),
}

#[derive(Debug, Args)]
pub struct MakeHelmArgs {
    /// The chart's folder. Default: the one PROJECT records, else dist/chart.
    #[arg(long)]
    pub output_dir: Option<PathBuf>,
    /// Write nothing; list missing, stale and extra files and exit 1 if there are any.
    #[arg(long)]
    pub check: bool,
    /// Print the files that would be written, write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct HelmLintArgs {
    /// The chart's folder. Default: the one PROJECT records, else dist/chart.
    pub dir: Option<PathBuf>,
    /// Values to check along with values.yaml, as for helm (`a.b=c,d=1`); repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

/// Where a project takes `kubesmith-runtime` from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RuntimeSource {
    /// A copy of the crate released with this kubesmith under `vendor/kubesmith-runtime`, named by path: builds
    /// offline and reproducibly before the crate is published; `alpha update` replaces it.
    Vendored,
    /// The published crate from crates.io.
    Registry,
}

/// Licenses `init` knows how to set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum License {
    Apache2,
    None,
}

/// Kubernetes minor versions the scaffold can target (k8s-openapi 0.29 features `v1_33` .. `v1_37`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum K8sVersion {
    #[value(name = "1.33")]
    V1_33,
    #[value(name = "1.34")]
    V1_34,
    #[value(name = "1.35")]
    V1_35,
    #[value(name = "1.36")]
    V1_36,
    #[value(name = "1.37")]
    V1_37,
}

impl K8sVersion {
    /// `1.37`
    pub fn dotted(self) -> &'static str {
        match self {
            K8sVersion::V1_33 => "1.33",
            K8sVersion::V1_34 => "1.34",
            K8sVersion::V1_35 => "1.35",
            K8sVersion::V1_36 => "1.36",
            K8sVersion::V1_37 => "1.37",
        }
    }

    /// The k8s-openapi feature, `v1_37`.
    pub fn feature(self) -> String {
        format!("v{}", self.dotted().replace('.', "_"))
    }
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Domain of the project's API groups (groups become `<group>.<domain>`); with --from-crd, by default the
    /// domain the CRDs' groups share (`toolkit.fluxcd.io` for `source.toolkit.fluxcd.io`).
    #[arg(long, required_unless_present = "from_crd")]
    pub domain: Option<String>,
    /// Project (and crate) name; defaults to the folder's name.
    #[arg(long)]
    pub project_name: Option<String>,
    /// Source repository URL, recorded in PROJECT and Cargo.toml.
    #[arg(long)]
    pub repo: Option<String>,
    /// Copyright owner for the license notice and Cargo.toml authors.
    #[arg(long)]
    pub owner: Option<String>,
    /// License of the scaffolded project.
    #[arg(long, value_enum, default_value_t = License::Apache2)]
    pub license: License,
    /// Year in the license notice (LICENSE, README). Default: this year (`SOURCE_DATE_EPOCH`'s when set).
    #[arg(long, value_name = "YEAR", value_parser = clap::value_parser!(u16).range(1000..=9999))]
    pub copyright_year: Option<u16>,
    /// Kubernetes version the operator is built against.
    #[arg(long, value_enum, default_value_t = K8sVersion::V1_37)]
    pub k8s_version: K8sVersion,
    /// Lay APIs out per group (`src/api/<group>/<version>`), allowing several groups.
    #[arg(long)]
    pub multigroup: bool,
    /// Existing CRDs (a YAML file, or a folder of them) to write the project's first kinds from, as `create api
    /// --from-crd` does for each.
    #[arg(long, value_name = "PATH")]
    pub from_crd: Option<PathBuf>,
    /// A namespace-scoped manager: its RBAC is a Role and RoleBinding in its own namespace (`namespace=` on every
    /// RBAC marker), its controllers watch the namespaces in `WATCH_NAMESPACE` (the manager's own by default).
    #[arg(long)]
    pub namespaced: bool,
    /// Where the project takes kubesmith-runtime (the manager, probes, metrics, leader election, webhook server and
    /// test support) from: `vendored`, a copy under `vendor/kubesmith-runtime` named by path (offline, reproducible,
    /// replaced by `alpha update`), or `registry`, the published crate.
    #[arg(long, value_enum, default_value_t = RuntimeSource::Vendored)]
    pub runtime: RuntimeSource,
    /// Optional plugins to add as well: `grafana` (Grafana dashboards for the manager's metrics in `grafana/`, as
    /// `kubesmith edit --plugins grafana` writes them).
    #[arg(long, value_delimiter = ',', value_name = "PLUGIN")]
    pub plugins: Vec<String>,
    /// Scaffold even if the folder holds files other than a PROJECT or Cargo.toml.
    #[arg(long)]
    pub force: bool,
    /// Print the files that would be written, write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct AdoptArgs {
    /// Domain of the API groups (default: the longest common suffix of the kinds' groups, leaving each group a
    /// name of its own: `fleet.example.org` and `infra.example.org` give `example.org`).
    #[arg(long)]
    pub domain: Option<String>,
    /// Project name (default: the binary's package, else the root package, else the folder's name).
    #[arg(long)]
    pub project_name: Option<String>,
    /// The operator's image, set in `config/manager/kustomization.yaml`.
    #[arg(long, value_name = "REGISTRY/IMG:TAG")]
    pub image: Option<String>,
    /// The binary the manager Deployment runs, whose reachable code the role is inferred from (default: the only
    /// binary; with several, every binary counts).
    #[arg(long, value_name = "NAME")]
    pub bin: Option<String>,
    /// Kubernetes version whose k8s-openapi schemas embedded types get.
    #[arg(long, value_enum, default_value_t = K8sVersion::V1_37)]
    pub k8s_version: K8sVersion,
    /// Kinds that are the project's own (CRD, sample and roles generated, shipped in bundles), whatever the evidence
    /// says: `Kind`, `Kind.group` or `plural.group`, comma-separated or repeated.
    #[arg(long, value_name = "KIND,..", value_delimiter = ',')]
    pub owned: Vec<String>,
    /// Kinds the operator only uses, another project's APIs: recorded as external APIs (`external: true`), with no
    /// CRD, sample or role. Without either flag, adopt decides from the CRD YAML the repository ships, the kinds a
    /// `Controller` reconciles and the groups' domains, and prints each decision with its reason.
    #[arg(long, value_name = "KIND,..", value_delimiter = ',')]
    pub external: Vec<String>,
    /// The storage version of a kind whose versions the crate's own code combines (a function setting the old
    /// versions' `storage = false`, which kubesmith cannot read): `Kind=VERSION` or `Kind.group=VERSION`, comma-
    /// separated or repeated. Recorded in PROJECT (`storageVersions`), which `make manifests` reads; sources untouched.
    #[arg(long, value_name = "KIND=VERSION,..", value_delimiter = ',')]
    pub storage_version: Vec<String>,
    /// Overwrite config/ files that already exist (only files adopt itself generates; never sources).
    #[arg(long)]
    pub force: bool,
    /// Adopt the kinds whose CRD can be generated and leave the others out of PROJECT and config/ (each named, with
    /// its problems). Without it adopt writes nothing when any kind's CRD has a problem.
    #[arg(long)]
    pub keep_going: bool,
    /// Print the files that would be written, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Never run cargo to fetch the sources of kube-dependent crates the Cargo.lock names but that are not on disk
    /// (also `CARGO_NET_OFFLINE=true` or cargo's `net.offline`): the role inferred then misses their calls, and a
    /// warning says so.
    #[arg(long)]
    pub offline: bool,
}

#[derive(Debug, Args)]
pub struct EditArgs {
    /// Move the project to the multigroup layout (`src/api/<group>/<version>`, `src/controller/<group>/<kind>`,
    /// `src/webhook/<group>/<version>`), rewriting the module paths its code names; `--multigroup=true` also works.
    #[arg(long, action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub multigroup: Option<bool>,
    /// Make the manager namespace-scoped (`--namespaced`, `=true`): a Role and RoleBinding in its namespace,
    /// `namespace=` on every RBAC marker of the code, `WATCH_NAMESPACE` in the manager's Deployment; or cluster-scoped
    /// again (`--namespaced=false`).
    #[arg(long, action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL",
          conflicts_with = "multigroup")]
    pub namespaced: Option<bool>,
    /// Add optional plugins' files: `grafana` writes Grafana dashboards for the manager's metrics in `grafana/`
    /// (again: regenerates them, and the custom-metrics dashboard from `grafana/custom-metrics/config.yaml`).
    #[arg(long, value_delimiter = ',', value_name = "PLUGIN", conflicts_with_all = ["multigroup", "namespaced"])]
    pub plugins: Vec<String>,
    /// Print the files that would be moved and changed, write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct CreateApiArgs {
    /// API group, without the domain (e.g. `cache`).
    #[arg(
        long,
        required_unless_present = "from_crd",
        conflicts_with = "from_crd",
        default_value = "",
        hide_default_value = true
    )]
    pub group: String,
    /// API version (e.g. `v1alpha1`); with --from-crd, a version of the CRD to generate (repeat; default: all).
    #[arg(long, required_unless_present = "from_crd")]
    pub version: Vec<String>,
    /// Kind, in PascalCase (e.g. `Memcached`); with --from-crd, the kind whose CRD to take from FILE or DIR.
    #[arg(long, required_unless_present = "from_crd", default_value = "", hide_default_value = true)]
    pub kind: String,
    /// An existing CRD (YAML, apiextensions.k8s.io/v1; a file of several, or a folder of them) to write the kind's
    /// Rust types from, so that `make manifests` gives the same CRD back; group, kind, plural, scope and versions come
    /// from it.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["plural", "image", "external_api_path", "external_api_crate", "external_api_domain"])]
    pub from_crd: Option<PathBuf>,
    /// Plural resource name, when kube-derive's rule gives the wrong one.
    #[arg(long)]
    pub plural: Option<String>,
    /// Whether objects of the kind live in a namespace.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub namespaced: bool,
    /// Scaffold the Rust types (the resource).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub resource: bool,
    /// Scaffold a reconciler and register it in the manager.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub controller: bool,
    /// Rust path of a type another crate defines (`cert_manager::v1::Issuer`, or its module `cert_manager::v1`);
    /// the controller or webhooks are scaffolded over it. Only with --resource=false.
    #[arg(long, value_name = "PATH")]
    pub external_api_path: Option<String>,
    /// The crate defining the external type, added to Cargo.toml: `NAME@VERSION` (a crates.io version
    /// requirement) or `NAME@PATH` (a local crate folder, relative to the project). Needs --external-api-path.
    #[arg(long, value_name = "NAME@VERSION")]
    pub external_api_crate: Option<String>,
    /// Domain of the external type's API group (`io` for `cert-manager.io`); default: the project's domain.
    #[arg(long, value_name = "DOMAIN")]
    pub external_api_domain: Option<String>,
    /// Replace the kind's scaffolded files if the API already exists.
    #[arg(long)]
    pub force: bool,
    /// Print the files that would be written, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Scaffold a controller that runs this container image as a Deployment of `spec.size` pods (kubebuilder's
    /// deploy-image plugin), e.g. `memcached:1.6.26-alpine3.19`.
    #[arg(long, value_name = "IMAGE", help_heading = "Deploy an image")]
    pub image: Option<String>,
    /// Command of the image's container, comma-separated (needs --image), e.g. `memcached,--memory-limit=64,-v`.
    #[arg(long, value_name = "ARGS", help_heading = "Deploy an image")]
    pub image_container_command: Option<String>,
    /// Port the image's container listens on, added to the spec as `containerPort` (needs --image).
    #[arg(long, value_name = "PORT", help_heading = "Deploy an image")]
    pub image_container_port: Option<String>,
    /// Non-root user id the image's processes run as (needs --image).
    #[arg(long, value_name = "UID", help_heading = "Deploy an image")]
    pub run_as_user: Option<String>,
}

#[derive(Debug, Args)]
pub struct CreateWebhookArgs {
    /// API group, without the domain (e.g. `cache`).
    #[arg(long)]
    pub group: String,
    /// API version the webhooks serve; with --conversion, the hub (storage) version.
    #[arg(long)]
    pub version: String,
    /// Kind, in PascalCase (e.g. `Memcached`).
    #[arg(long)]
    pub kind: String,
    /// Scaffold a defaulting (mutating) admission webhook.
    #[arg(long)]
    pub defaulting: bool,
    /// Scaffold a validating admission webhook (create, update, delete hooks).
    #[arg(long)]
    pub programmatic_validation: bool,
    /// Scaffold a conversion webhook with --version as the hub and the --spoke versions converted to and from it.
    #[arg(long)]
    pub conversion: bool,
    /// A version converted to and from the hub (repeat, or separate with commas); must be an existing version.
    #[arg(long, value_delimiter = ',', requires = "conversion")]
    pub spoke: Vec<String>,
    /// Rust path of a type another crate defines (`cert_manager::v1::Issuer`, or its module `cert_manager::v1`);
    /// the webhooks are scaffolded over it.
    #[arg(long, value_name = "PATH")]
    pub external_api_path: Option<String>,
    /// The crate defining the external type, added to Cargo.toml: `NAME@VERSION` (a crates.io version
    /// requirement) or `NAME@PATH` (a local crate folder, relative to the project). Needs --external-api-path.
    #[arg(long, value_name = "NAME@VERSION")]
    pub external_api_crate: Option<String>,
    /// Domain of the external type's API group (`io` for `cert-manager.io`); default: the project's domain.
    #[arg(long, value_name = "DOMAIN")]
    pub external_api_domain: Option<String>,
    /// Scaffold the requested webhooks' files again even if they exist (your edits to them are lost).
    #[arg(long)]
    pub force: bool,
    /// Print the files that would be written, write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// `Default` is the command without flags (no field has a clap default): what the Makefile runs.
#[derive(Debug, Default, Args)]
pub struct MakeManifestsArgs {
    /// Folder holding the crate root (`lib.rs` or `main.rs`); repeat for several crates. Default: `src`.
    #[arg(long = "source", value_name = "DIR")]
    pub sources: Vec<PathBuf>,
    /// Where to write one `<group>_<plural>.yaml` per CRD. Default in a project: `config/crd/bases`.
    #[arg(long, value_name = "DIR")]
    pub crd_dir: Option<PathBuf>,
    /// Where to write `role.yaml`. Default in a project: `config/rbac`.
    #[arg(long, value_name = "DIR")]
    pub rbac_dir: Option<PathBuf>,
    /// Where to write `manifests.yaml` (webhook configurations). Default in a project with webhooks: `config/webhook`.
    #[arg(long, value_name = "DIR")]
    pub webhook_dir: Option<PathBuf>,
    /// Kubernetes version whose k8s-openapi schemas embedded types get. Default: the project's `k8sVersion`
    /// (PROJECT), else the `v1_XX` feature the crate turns on for k8s-openapi, else 1.37.
    #[arg(long, value_enum, value_name = "VERSION")]
    pub k8s_version: Option<K8sVersion>,
    /// Write nothing; list missing, stale and extra files and exit 1 if there are any.
    #[arg(long)]
    pub check: bool,
    /// Print the files that would be written, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Truncate every CRD schema description to N bytes (controller-gen's `maxDescLen`: at the last sentence end,
    /// else the last space plus `...`); 0 drops descriptions. Shrinks CRDs too big for `kubectl apply`.
    #[arg(long, value_name = "N")]
    pub max_description_length: Option<usize>,
    /// Write every CRD that has no problem (each file whole), report every problem, exit 1. Without it nothing is
    /// written when any kind has a problem.
    #[arg(long)]
    pub keep_going: bool,
    /// Never compile the crate: a kind whose schema needs running code (a `schema_with` function or `impl
    /// JsonSchema` that is not data) is an error listing why, instead of being built by the compiled fallback
    /// (a throw-away harness crate under `target/kubesmith/`). Also `crd: {compile: false}` in PROJECT's plugin
    /// settings.
    #[arg(long)]
    pub no_compile: bool,
    /// Never run cargo to fetch the sources of kube-dependent crates the Cargo.lock names but that are not on disk
    /// (also `CARGO_NET_OFFLINE=true` or cargo's `net.offline`): the RBAC check then does not read them, and says so.
    #[arg(long)]
    pub offline: bool,
}

#[derive(Debug, Args)]
pub struct MakeBundleArgs {
    /// Bundle version, strict semver without a leading `v` (e.g. `0.1.0`); names the CSV `<package>.v<version>`.
    #[arg(long)]
    pub version: String,
    /// Channels the bundle is published to, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "alpha")]
    pub channels: Vec<String>,
    /// The channel subscriptions use when they name none; must be one of --channels.
    #[arg(long)]
    pub default_channel: Option<String>,
    /// Package name. Default: the PROJECT's projectName.
    #[arg(long)]
    pub package: Option<String>,
    /// Operator image; replaces the `controller:latest` placeholder in the deployment.
    #[arg(long, value_name = "REGISTRY/IMG:TAG")]
    pub image: Option<String>,
    /// The bundle this one upgrades (`spec.replaces`, e.g. `memcached-operator.v0.1.0`).
    #[arg(long, value_name = "NAME.vX")]
    pub replaces: Option<String>,
    /// Bundles this one can replace directly (`spec.skips`); repeat or separate with commas.
    #[arg(long, value_delimiter = ',')]
    pub skips: Vec<String>,
    /// Installed versions that may upgrade straight to this one (`olm.skipRange`, e.g. '>=0.1.0 <0.2.0').
    #[arg(long, value_name = "RANGE")]
    pub skip_range: Option<String>,
    /// A package the operator needs installed, at a version in a semver range: `NAME:RANGE` (e.g.
    /// etcd:'>=0.9.0 <1.0.0'); repeat for several. Written to metadata/dependencies.yaml and recorded in PROJECT
    /// (later runs keep them); replaces the recorded package dependencies; `none` removes them.
    #[arg(long, value_name = "NAME:RANGE")]
    pub depends_on_package: Vec<String>,
    /// An API the operator needs some installed operator to provide: `GROUP/VERSION/KIND` (e.g.
    /// etcd.database.coreos.com/v1beta2/EtcdCluster); repeat for several. Recorded like --depends-on-package;
    /// `none` removes them.
    #[arg(long, value_name = "GROUP/VERSION/KIND")]
    pub depends_on_gvk: Vec<String>,
    /// Supported install modes (OwnNamespace, SingleNamespace, MultiNamespace, AllNamespaces), comma separated,
    /// instead of the project's (cluster-scoped: AllNamespaces; namespaced: the other three) or the base CSV's.
    /// Recorded in PROJECT; `auto` drops the record.
    #[arg(long, value_delimiter = ',', value_name = "MODE,...")]
    pub install_modes: Vec<String>,
    /// Bundle folder (bundle.Dockerfile goes next to it, in the current folder).
    #[arg(long, default_value = BUNDLE_DIR)]
    pub output_dir: PathBuf,
    /// Write nothing; list missing, stale and extra files and exit 1 if there are any.
    #[arg(long)]
    pub check: bool,
    /// Print the files that would be written, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub upgrade: UpgradeArgs,
}

/// Output format of the validators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Text,
    /// JSON; `json-alpha1` is operator-sdk's name for it.
    #[value(alias = "json-alpha1")]
    Json,
}

#[derive(Debug, Args)]
pub struct BundleValidateArgs {
    /// The bundle folder (holding manifests/ and metadata/).
    pub dir: PathBuf,
    /// Optional validators: `name=operatorhubv2`, `name=capabilities`, `name=categories`, `name=operatorhub`
    /// (deprecated upstream), `name=community`, `name=alpha-deprecated-apis`, `name=good-practices`, or
    /// `suite=operatorframework` (operatorhubv2, capabilities, categories, alpha-deprecated-apis, good-practices);
    /// repeat or separate with commas.
    #[arg(long, value_delimiter = ',')]
    pub select_optional: Vec<String>,
    /// Values for the optional validators, as operator-sdk spells them: `k8s-version=1.25` (the Kubernetes version
    /// for alpha-deprecated-apis, operatorhub, operatorhubv2; default: the CSV's minKubeVersion),
    /// `index-path=./bundle.Dockerfile` (the bundle image's Dockerfile, for community); repeat or separate with
    /// commas. Custom categories come from the JSON file named by `OPERATOR_BUNDLE_CATEGORIES`.
    #[arg(long, value_delimiter = ',', value_name = "KEY=VALUE")]
    pub optional_values: Vec<String>,
    /// The same as `--optional-values k8s-version=VERSION`.
    #[arg(long)]
    pub k8s_version: Option<String>,
    /// Also report what OLM v1 (operator-controller's ClusterExtension) refuses or ignores: no AllNamespaces install
    /// mode, dependencies, conversion webhooks beside other install modes, APIService definitions.
    #[arg(long = "olm-v1")]
    pub olm_v1: bool,
    /// Exit 1 on warnings too.
    #[arg(long)]
    pub strict: bool,
    /// Output format.
    #[arg(long, short = 'o', value_enum, default_value_t = OutputFormat::Text)]
    pub output: OutputFormat,
    #[command(flatten)]
    pub upgrade: UpgradeArgs,
}

/// The safe CRD upgrade check (`bundle validate` and `make bundle`).
#[derive(Debug, Args)]
pub struct UpgradeArgs {
    /// The release this one upgrades: its bundle folder, a catalog (the entries this bundle replaces or skips), or
    /// a folder of its CRDs. CRD changes that break objects it stored are errors.
    #[arg(long, value_name = "OLD")]
    pub previous: Option<PathBuf>,
    /// Report breaking CRD changes as warnings instead of errors.
    #[arg(long, requires = "previous")]
    pub allow_breaking: bool,
}

/// How `catalog validate` prints the upgrade graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    Text,
    Mermaid,
    None,
}

#[derive(Debug, Args)]
pub struct MakeCatalogArgs {
    /// A bundle folder, optionally with its image: `DIR` or `DIR=IMAGE`; repeat for every version of the package.
    #[arg(long = "bundle", value_name = "DIR[=IMAGE]", required = true)]
    pub bundles: Vec<String>,
    /// Image of a bundle given without `=IMAGE` (`{version}` is replaced by its version), e.g.
    /// `quay.io/me/op-bundle:v{version}`.
    #[arg(long, value_name = "IMAGE")]
    pub bundle_image: Option<String>,
    /// The package's default channel. Default: the newest bundle's default channel, else its only channel.
    #[arg(long)]
    pub default_channel: Option<String>,
    /// Catalog folder; the package goes in `<DIR>/<package>/catalog.yaml`, the Dockerfile in `<DIR>.Dockerfile`.
    #[arg(long, default_value = CATALOG_DIR)]
    pub output_dir: PathBuf,
    /// Base image of the catalog image.
    #[arg(long, default_value = "quay.io/operator-framework/opm:latest")]
    pub base_image: String,
    /// Write nothing; list missing and stale files and exit 1 if there are any.
    #[arg(long)]
    pub check: bool,
    /// Print the files that would be written, write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct CatalogValidateArgs {
    /// The catalog folder (YAML or JSON files of olm.package, olm.channel and olm.bundle documents).
    pub dir: PathBuf,
    /// Print the upgrade graph of every channel.
    #[arg(long, value_enum, default_value_t = GraphFormat::Text)]
    pub graph: GraphFormat,
    /// Check that every bundle's dependencies (olm.package.required, olm.gvk.required) are provided by a bundle of
    /// the catalog or of a --with catalog.
    #[arg(long)]
    pub resolve: bool,
    /// Another catalog (folder or file) whose bundles may provide dependencies, for --resolve; repeat for several.
    #[arg(long = "with", value_name = "CATALOG", requires = "resolve")]
    pub with: Vec<PathBuf>,
    /// Output format of the findings.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub output: OutputFormat,
    /// Report breaking CRD changes along the upgrade edges as warnings instead of errors.
    #[arg(long)]
    pub allow_breaking: bool,
}

#[derive(Debug, Subcommand)]
pub enum EnvtestCommand {
    /// Print the folder holding the envtest binaries of VERSION (the value of KUBEBUILDER_ASSETS): an installed
    /// one, else downloaded from the release index (SHA-512 checked) into the store.
    #[command(after_help = "Examples:\n  kubesmith envtest use 1.30.x -p path\n  \
        KUBEBUILDER_ASSETS=\"$(kubesmith envtest use 1.30.x --bin-dir bin -p path)\" \\\n      \
        cargo test\n  \
        # the newest installed, never downloading:\n  \
        eval \"$(kubesmith envtest use --installed-only -p env)\"\n  \
        # ask the index for a newer 1.30 patch than the installed one:\n  \
        kubesmith envtest use 1.30.x!\n\n\
        Looked for in this order: --bin-dir (the folder itself, then DIR/k8s/<version>-<os>-<arch>/), \
        $KUBEBUILDER_ASSETS, the store ($KUBESMITH_ENVTEST_STORE, else setup-envtest's \
        ${XDG_DATA_HOME:-~/.local/share}/kubebuilder-envtest). Downloads go to --bin-dir's k8s/ folder when given, \
        else to the store.")]
    Use(EnvtestUseArgs),
    /// List the installed envtest versions with their folders and, unless --installed-only, the versions the release
    /// index offers for the platform, newest first.
    #[command(after_help = "Examples:\n  kubesmith envtest list\n  kubesmith envtest list 1.30.x --installed-only\n  \
        kubesmith envtest list --os darwin --arch arm64")]
    List(EnvtestListArgs),
    /// Remove the installed envtest versions matching VERSION (default: every version) of the platform from the
    /// store (--bin-dir's k8s/ folder when given), as setup-envtest's cleanup does. A folder holding binaries itself
    /// is never removed.
    #[command(after_help = "Examples:\n  kubesmith envtest cleanup '<1.30'   # every version older than 1.30\n  \
        kubesmith envtest cleanup 1.29.x\n  kubesmith envtest cleanup --bin-dir bin   # every version in bin/k8s/")]
    Cleanup(EnvtestCleanupArgs),
}

/// What `envtest use` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EnvtestPrint {
    /// Version, platform, folder and where it came from.
    Overview,
    /// The folder alone.
    Path,
    /// `export KUBEBUILDER_ASSETS='<folder>'`, for `eval`.
    Env,
}

/// Where envtest binaries are looked for and for which platform.
#[derive(Debug, Args)]
pub struct EnvtestPlaceArgs {
    /// A folder holding kube-apiserver and etcd itself, or a store root with setup-envtest's layout
    /// (DIR/k8s/<version>-<os>-<arch>/, where downloads then go): searched first.
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Option<PathBuf>,
    /// Operating system of the binaries, Go's name (linux, darwin, windows). Default: this machine's.
    #[arg(long, value_name = "OS")]
    pub os: Option<String>,
    /// Architecture of the binaries, Go's name (amd64, arm64, ppc64le, s390x). Default: this machine's.
    #[arg(long, value_name = "ARCH")]
    pub arch: Option<String>,
}

#[derive(Debug, Args)]
pub struct EnvtestUseArgs {
    /// Version selector: latest (default: the newest installed, else the newest release), 1.30.2, 1.30 or 1.30.x
    /// (the newest patch), ~1.30.2 (1.30.2 or a later patch), <1.31, <=1.30.2; a trailing `!` asks the index for a
    /// newer match even when one is installed.
    pub version: Option<String>,
    #[command(flatten)]
    pub place: EnvtestPlaceArgs,
    /// Never download: fail unless a matching version is installed.
    #[arg(short = 'i', long)]
    pub installed_only: bool,
    /// What to print.
    #[arg(short = 'p', long = "print", value_enum, default_value_t = EnvtestPrint::Overview)]
    pub print: EnvtestPrint,
    /// The release index (controller-tools' envtest-releases.yaml; https://, http:// or file://). Default:
    /// $KUBESMITH_ENVTEST_INDEX, else controller-tools' on GitHub.
    #[arg(long, value_name = "URL")]
    pub index: Option<String>,
}

#[derive(Debug, Args)]
pub struct EnvtestListArgs {
    /// Only versions this selector takes (as for `envtest use`). Default: every version.
    pub version: Option<String>,
    #[command(flatten)]
    pub place: EnvtestPlaceArgs,
    /// List installed versions only; do not read the release index.
    #[arg(short = 'i', long)]
    pub installed_only: bool,
    /// The release index (controller-tools' envtest-releases.yaml; https://, http:// or file://). Default:
    /// $KUBESMITH_ENVTEST_INDEX, else controller-tools' on GitHub.
    #[arg(long, value_name = "URL")]
    pub index: Option<String>,
}

#[derive(Debug, Args)]
pub struct EnvtestCleanupArgs {
    /// The versions to remove (as for `envtest use`: 1.29.x, <1.30, ...). Default: every version of the platform.
    pub version: Option<String>,
    #[command(flatten)]
    pub place: EnvtestPlaceArgs,
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    /// The commands that run `make manifests` inside another (`make bundle`, `make docs`, `create api`) start
    /// from `MakeManifestsArgs::default()`: it must be what parsing the bare command gives.
    #[test]
    fn make_manifests_args_default_is_the_bare_command() {
        let Command::Make(MakeCommand::Manifests(parsed)) = Cli::parse_from(["kubesmith", "make", "manifests"]).command
        else {
            panic!("`make manifests` parses as itself")
        };
        assert_eq!(format!("{parsed:?}"), format!("{:?}", MakeManifestsArgs::default()));
    }
}
