//! What can go wrong, as one enum per stage; the binding maps each to a JS error class.

/// A configuration the guard refuses (it never falls back to defaults). The
/// variants are generic, so that an option declares its rules and its messages
/// in one place (`options`): `field` is the option's path, such as
/// `thresholds`, `include[1]` or `overrides[0].tools`. A value is shown as it
/// was written (`"3"`, `""`, `null`, `[3, 5]`), and a [`Hint`] follows where
/// YAML's reading of the value is the likely cause.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The config itself is not an object; holds what it is (`the array [{…}]`).
    #[error("repeat-tool-guard: the config must be an object, got {0}")]
    NotAnObject(String),
    /// A value of the wrong JavaScript type: `expected` is `an array`, `a string`, …;
    /// `got` says what it is, with its value (`the string "yes"`, `null`, `an object`).
    #[error("repeat-tool-guard: `{field}` must be {expected}, got {got}{hint}")]
    WrongType {
        field: String,
        expected: &'static str,
        got: String,
        hint: Hint,
    },
    /// A value outside its rule; `shown` is the value as written, `what` names it
    /// (`threshold`, `argumentsPreviewChars`, `cycles.maxPeriod`, …).
    #[error("repeat-tool-guard: invalid {what} {shown} — {rule}{hint}")]
    Invalid {
        what: String,
        shown: String,
        rule: &'static str,
        hint: Hint,
    },
    /// A list that must hold something is empty.
    #[error("repeat-tool-guard: `{0}` must not be empty")]
    Empty(String),
    /// A list holds one value twice.
    #[error("repeat-tool-guard: `{0}` must not contain duplicates")]
    Duplicates(String),
}

/// What likely caused a bad value, when YAML's reading explains it (a quoted
/// number, `yes` for a boolean); written after the message in parentheses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hint(pub Option<String>);

impl std::fmt::Display for Hint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some(text) => write!(f, " ({text})"),
            None => Ok(()),
        }
    }
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
