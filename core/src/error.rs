//! What can go wrong, as one enum per stage; the binding maps each to a JS error class.

/// A configuration the guard refuses (it never falls back to defaults). The
/// variants are generic, so that an option declares its rules and its messages
/// in one place (`options`): `field` is the option's path, such as
/// `thresholds`, `include[1]` or `overrides[0].tools`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The config itself is not an object; holds what it is.
    #[error("repeat-tool-guard: the config must be an object, got {0}")]
    NotAnObject(String),
    /// A value of the wrong JavaScript type: `expected` is `an array`, `a string`, ….
    #[error("repeat-tool-guard: `{field}` must be {expected}, got {got}")]
    WrongType {
        field: String,
        expected: &'static str,
        got: String,
    },
    /// A value outside its rule; `shown` is `String(v)`, `what` names the value
    /// (`threshold`, `argumentsPreviewChars`, `cycles.maxPeriod`, …).
    #[error("repeat-tool-guard: invalid {what} {shown} — {rule}")]
    Invalid {
        what: String,
        shown: String,
        rule: &'static str,
    },
    /// A list that must hold something is empty.
    #[error("repeat-tool-guard: `{0}` must not be empty")]
    Empty(String),
    /// A list holds one value twice.
    #[error("repeat-tool-guard: `{0}` must not contain duplicates")]
    Duplicates(String),
}

impl ConfigError {
    /// Wrong JavaScript types are `TypeError`s; wrong values are plain `Error`s, as in the reference.
    pub fn is_type_error(&self) -> bool {
        matches!(self, Self::NotAnObject(_) | Self::WrongType { .. })
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
