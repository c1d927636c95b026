//! A validation finding of the OLM checks (bundle, catalog, upgrade, install modes): its level and message.

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Error,
    Warning,
}

/// One validation result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub level: Level,
    pub message: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let l = if self.level == Level::Error { "Error" } else { "Warning" };
        write!(f, "{l}: {}", self.message)
    }
}
