//! What can go wrong, as one enum per stage; the binding maps each to a JS error class.

/// A configuration the guard refuses (it never falls back to defaults).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// Holds the list's name: `thresholds` or `overrides[i].thresholds`.
    #[error("repeat-tool-guard: `{0}` must not be empty")]
    EmptyThresholds(String),
    /// Holds `String(v)` of the offending value.
    #[error("repeat-tool-guard: invalid threshold {0} — every threshold must be an integer >= 2")]
    InvalidThreshold(String),
    /// Holds the list's name: `thresholds` or `overrides[i].thresholds`.
    #[error("repeat-tool-guard: `{0}` must not contain duplicates")]
    DuplicateThresholds(String),
    /// Holds `String(v)` of the offending value.
    #[error("repeat-tool-guard: invalid argumentsPreviewChars {0} — must be an integer >= 1")]
    InvalidPreviewChars(String),
    /// The config itself is not an object.
    #[error("repeat-tool-guard: the config must be an object, got {0}")]
    NotAnObject(String),
    /// A list-valued field holds something other than an array.
    #[error("repeat-tool-guard: `{field}` must be an array, got {got}")]
    NotAList { field: String, got: String },
    /// A pattern list holds something other than a string.
    #[error("repeat-tool-guard: `{field}[{index}]` must be a string, got {got}")]
    NotAString {
        field: String,
        index: usize,
        got: String,
    },
    /// `cycles` or an `overrides` entry is not a plain object.
    #[error("repeat-tool-guard: `{field}` must be an object, got {got}")]
    NotAnObjectField { field: String, got: String },
    /// Holds `String(v)` of the offending value.
    #[error("repeat-tool-guard: invalid cycles.maxPeriod {0} — must be an integer from 2 to 5")]
    InvalidMaxPeriod(String),
    /// Holds `String(v)` of the offending value.
    #[error("repeat-tool-guard: invalid cycles.repeats {0} — must be an integer >= 2")]
    InvalidRepeats(String),
    #[error("repeat-tool-guard: `{field}` must be a boolean, got {got}")]
    NotABoolean { field: String, got: String },
    /// An `overrides` entry names no tools; holds `overrides[i].tools`.
    #[error("repeat-tool-guard: `{0}` must not be empty")]
    EmptyTools(String),
    /// Holds `String(v)` of the offending value.
    #[error("repeat-tool-guard: invalid repeatEvery {0} — must be an integer >= 1")]
    InvalidRepeatEvery(String),
}

impl ConfigError {
    /// Wrong JavaScript types are `TypeError`s; wrong values are plain `Error`s, as in the reference.
    pub fn is_type_error(&self) -> bool {
        matches!(
            self,
            Self::NotAnObject(_)
                | Self::NotAList { .. }
                | Self::NotAString { .. }
                | Self::NotAnObjectField { .. }
                | Self::NotABoolean { .. }
        )
    }
}

/// The arguments could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CanonicalError {
    #[error("repeat-tool-guard: arguments are not valid JSON (at byte {0})")]
    InvalidJson(usize),
    #[error("repeat-tool-guard: malformed argument encoding (at byte {0})")]
    InvalidEncoding(usize),
}
