//! What can go wrong, as one enum per stage; the binding maps each to a JS error class.

/// A configuration the guard refuses (it never falls back to defaults).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("repeat-tool-guard: `thresholds` must not be empty")]
    EmptyThresholds,
    /// Holds `String(v)` of the offending value.
    #[error("repeat-tool-guard: invalid threshold {0} — every threshold must be an integer >= 2")]
    InvalidThreshold(String),
    #[error("repeat-tool-guard: `thresholds` must not contain duplicates")]
    DuplicateThresholds,
    /// Holds `String(v)` of the offending value.
    #[error("repeat-tool-guard: invalid argumentsPreviewChars {0} — must be an integer >= 1")]
    InvalidPreviewChars(String),
    /// The config itself is not an object.
    #[error("repeat-tool-guard: the config must be an object, got {0}")]
    NotAnObject(String),
    /// A list-valued field holds something other than an array.
    #[error("repeat-tool-guard: `{field}` must be an array, got {got}")]
    NotAList { field: &'static str, got: String },
    /// A pattern list holds something other than a string.
    #[error("repeat-tool-guard: `{field}[{index}]` must be a string, got {got}")]
    NotAString {
        field: &'static str,
        index: usize,
        got: String,
    },
}

impl ConfigError {
    /// Wrong JavaScript types are `TypeError`s; wrong values are plain `Error`s, as in the reference.
    pub fn is_type_error(&self) -> bool {
        matches!(
            self,
            Self::NotAnObject(_) | Self::NotAList { .. } | Self::NotAString { .. }
        )
    }
}
