//! Typed errors of static CRD generation; every error points at `path:line:col` in the user's sources.

use std::fmt;
use std::path::{Path, PathBuf};

/// An error found while generating CRDs statically. Displays as `path:line:col: message`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}:{line}:{column}: {kind}", path.display())]
pub struct CrdError {
    /// The source file the error is about.
    pub path: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What went wrong.
    pub kind: CrdErrorKind,
}

/// What went wrong; each message is lowercase and says how to fix it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CrdErrorKind {
    /// A source file could not be read.
    #[error("cannot read source file: {0}")]
    Io(String),
    /// A source file is not valid Rust.
    #[error("cannot parse rust source: {0}; fix the syntax error first")]
    Parse(String),
    /// Neither `lib.rs` nor `main.rs` exists.
    #[error("no crate root: expected lib.rs or main.rs in this directory")]
    NoCrateRoot,
    /// `mod x;` whose file does not exist.
    #[error("file for module `{module}` not found (looked for {looked}); create it or fix the `mod` declaration")]
    ModuleNotFound {
        /// Module name.
        module: String,
        /// Candidate paths, comma-separated.
        looked: String,
    },
    /// A `#[kube(...)]` attribute problem.
    #[error("{0}")]
    KubeAttr(String),
    /// A type name that cannot be resolved to a known schema.
    #[error("cannot resolve type `{name}`: {hint}")]
    UnresolvedType {
        /// The type as written.
        name: String,
        /// How to fix it.
        hint: String,
    },
    /// A construct kube-derive rejects, panics on, or turns into a schema the API server rejects.
    #[error("{construct}: {fix}")]
    Unsupported {
        /// What was found.
        construct: String,
        /// How to fix it.
        fix: String,
    },
    /// A default value that cannot be computed without compiling the crate.
    #[error(
        "cannot evaluate the default of field `{field}` statically ({reason}); make the default a literal expression \
         (or a fn whose body is one) or add a `// +kubebuilder:default=<json>` marker above the field"
    )]
    Default {
        /// The field.
        field: String,
        /// Why evaluation failed.
        reason: String,
    },
    /// Multi-version kind with a wrong number of storage versions.
    #[error(
        "kind {kind} in group {group} has {count} storage versions ({versions}): mark all but one with \
         #[kube(storage = false)], put `// +kubebuilder:storageversion` on the storage version's spec struct, or \
         merge the versions with kube's `merge_crds(vec![..], \"<version>\")` in the crate; or, leaving the sources \
         as they are, name it in PROJECT: `storageVersions: {{{kind}.{group}: <version>}}` under \
         plugins[\"rust.kubesmith.io/v1alpha1\"] (`kubesmith adopt --storage-version {kind}=<version>` writes it)"
    )]
    StorageVersions {
        /// Kind.
        kind: String,
        /// Group.
        group: String,
        /// Number of storage versions found.
        count: usize,
        /// The versions, comma-separated.
        versions: String,
    },
    /// Versions of one kind disagree on a CRD-level property.
    #[error("{0}")]
    Mismatch(String),
    /// A kubebuilder marker that is malformed, misplaced, or does not fit the schema it is on.
    #[error("{0}")]
    Marker(String),
    /// A construct whose schema only running the crate's code can produce (a custom schema function or
    /// `impl JsonSchema` whose body is not data). Not an error when the compiled fallback may run.
    #[error("{construct} needs compiling: {why}")]
    NeedsCompile {
        /// What was found.
        construct: String,
        /// Why it cannot be evaluated statically.
        why: String,
    },
}

impl CrdError {
    /// An error at a span of a file.
    pub fn at(path: &Path, span: proc_macro2::Span, kind: CrdErrorKind) -> Self {
        let start = span.start();
        Self { path: path.to_path_buf(), line: start.line.max(1), column: start.column + 1, kind }
    }

    /// An error about a whole file (line 1, column 1).
    pub fn file(path: &Path, kind: CrdErrorKind) -> Self {
        Self { path: path.to_path_buf(), line: 1, column: 1, kind }
    }

    /// A marker problem at the marker's own line (column 1).
    pub fn marker(path: &Path, line: usize, message: impl fmt::Display) -> Self {
        Self { path: path.to_path_buf(), line: line.max(1), column: 1, kind: CrdErrorKind::Marker(message.to_string()) }
    }

    /// Shorthand for [`CrdErrorKind::NeedsCompile`].
    pub fn needs_compile(
        path: &Path,
        span: proc_macro2::Span,
        construct: impl fmt::Display,
        why: impl fmt::Display,
    ) -> Self {
        Self::at(path, span, CrdErrorKind::NeedsCompile { construct: construct.to_string(), why: why.to_string() })
    }

    /// Why the code could not be read, without where (a caller that words its own message around it): what only
    /// compiling can tell, what would panic, or the problem itself.
    pub(crate) fn reason(self) -> String {
        match self.kind {
            CrdErrorKind::NeedsCompile { why, .. } => why,
            CrdErrorKind::Unsupported { construct, .. } => construct,
            other => other.to_string(),
        }
    }

    /// Whether only compiling the crate can resolve this (see [`CrdErrorKind::NeedsCompile`]).
    pub fn needs_compiling(&self) -> bool {
        matches!(self.kind, CrdErrorKind::NeedsCompile { .. })
    }

    /// Shorthand for [`CrdErrorKind::Unsupported`].
    pub fn unsupported(
        path: &Path,
        span: proc_macro2::Span,
        construct: impl fmt::Display,
        fix: impl fmt::Display,
    ) -> Self {
        Self::at(path, span, CrdErrorKind::Unsupported { construct: construct.to_string(), fix: fix.to_string() })
    }
}

/// Every problem found in one run, sorted by file, line and column, without duplicates (a type used in two
/// places reports its problem once). Displays one problem per line.
#[derive(Debug, Clone, PartialEq)]
pub struct CrdErrors(Vec<CrdError>);

/// The order problems are reported in: by file, line and column, then by message (formatted only for problems at
/// one place: a crate of generated types has hundreds of problems).
pub(crate) fn by_place(a: &CrdError, b: &CrdError) -> std::cmp::Ordering {
    (&a.path, a.line, a.column)
        .cmp(&(&b.path, b.line, b.column))
        .then_with(|| a.kind.to_string().cmp(&b.kind.to_string()))
}

impl CrdErrors {
    /// Sorts and deduplicates `errors`.
    pub fn new(mut errors: Vec<CrdError>) -> Self {
        errors.sort_by(by_place);
        errors.dedup();
        Self(errors)
    }

    /// The first problem (by file and line). Panics on an empty list, which [`CrdErrors`] never holds when
    /// returned as an error.
    pub fn first(&self) -> &CrdError {
        &self.0[0]
    }

    /// Every problem, sorted.
    pub fn all(&self) -> &[CrdError] {
        &self.0
    }

    /// Consumes the list.
    pub fn into_vec(self) -> Vec<CrdError> {
        self.0
    }

    /// Whether there is no problem.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many problems.
    pub fn len(&self) -> usize {
        self.0.len()
    }
}

impl From<CrdError> for CrdErrors {
    fn from(e: CrdError) -> Self {
        Self(vec![e])
    }
}

impl fmt::Display for CrdErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.len() > 1 {
            writeln!(f, "{} problems:", self.0.len())?;
        }
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for CrdErrors {}
