//! The usage error: what the user asked for is wrong (a bad name, conflicting flags), exit code 2.

/// An error in what the user asked for (a bad name, conflicting flags): exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

impl From<crate::names::NameError> for UsageError {
    fn from(e: crate::names::NameError) -> Self {
        UsageError(e.0)
    }
}
