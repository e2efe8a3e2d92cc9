//! Configuration: the user's values as JavaScript gave them, validated in the
//! documented order (first failure wins), with defaults only for absent keys.

use crate::error::ConfigError;
use crate::number::js_number_to_string;
use crate::patterns::ToolFilter;

/// A config value as the binding read it from JavaScript, one level deep.
#[derive(Debug, Clone, PartialEq)]
pub enum RawValue {
    /// The key is absent or `undefined`: the default applies.
    Missing,
    Number(f64),
    String(String),
    List(Vec<RawValue>),
    /// Anything else; `shown` is `String(v)`, `kind` what a message calls it (`null`, `object`, …).
    Other {
        shown: String,
        kind: String,
    },
}

impl RawValue {
    /// `String(v)`, as the validation messages quote values.
    fn shown(&self) -> String {
        match self {
            RawValue::Missing => "undefined".into(),
            RawValue::Number(n) => js_number_to_string(*n),
            RawValue::String(s) => s.clone(),
            RawValue::List(items) => items
                .iter()
                .map(|item| match item {
                    // `String([null])` and `String([undefined])` print empty elements.
                    RawValue::Missing => String::new(),
                    RawValue::Other { kind, .. } if kind == "null" => String::new(),
                    other => other.shown(),
                })
                .collect::<Vec<_>>()
                .join(","),
            RawValue::Other { shown, .. } => shown.clone(),
        }
    }

    /// What a type error says was found.
    fn kind(&self) -> String {
        match self {
            RawValue::Missing => "undefined".into(),
            RawValue::Number(_) => "number".into(),
            RawValue::String(_) => "string".into(),
            RawValue::List(_) => "array".into(),
            RawValue::Other { kind, .. } => kind.clone(),
        }
    }
}

/// The four user settings, before validation.
#[derive(Debug, Clone, PartialEq)]
pub struct RawConfig {
    pub thresholds: RawValue,
    pub include: RawValue,
    pub exclude: RawValue,
    pub arguments_preview_chars: RawValue,
}

impl Default for RawConfig {
    fn default() -> Self {
        Self {
            thresholds: RawValue::Missing,
            include: RawValue::Missing,
            exclude: RawValue::Missing,
            arguments_preview_chars: RawValue::Missing,
        }
    }
}

pub const DEFAULT_THRESHOLDS: [f64; 3] = [3.0, 5.0, 8.0];
pub const DEFAULT_PREVIEW_CHARS: usize = 500;

/// A validated configuration.
#[derive(Debug, Clone)]
pub struct GuardConfig {
    /// Ascending, distinct integers >= 2. Kept as f64: JavaScript allows 1e21.
    pub thresholds: Vec<f64>,
    pub filter: ToolFilter,
    /// UTF-16 code units of canonical arguments quoted in a detailed reminder.
    pub preview_chars: usize,
}

impl GuardConfig {
    pub fn from_raw(raw: &RawConfig) -> Result<Self, ConfigError> {
        let thresholds = thresholds(&raw.thresholds)?;
        let preview_chars = preview_chars(&raw.arguments_preview_chars)?;
        let include = patterns("include", &raw.include)?;
        let exclude = patterns("exclude", &raw.exclude)?;
        Ok(Self {
            thresholds,
            filter: ToolFilter::new(&include, &exclude),
            preview_chars,
        })
    }
}

fn is_integer_at_least(value: f64, min: f64) -> bool {
    value.is_finite() && value.fract() == 0.0 && value >= min
}

fn thresholds(raw: &RawValue) -> Result<Vec<f64>, ConfigError> {
    let items = match raw {
        RawValue::Missing => return Ok(DEFAULT_THRESHOLDS.to_vec()),
        RawValue::List(items) => items,
        other => {
            return Err(ConfigError::NotAList {
                field: "thresholds",
                got: other.kind(),
            })
        }
    };
    if items.is_empty() {
        return Err(ConfigError::EmptyThresholds);
    }
    let mut values = Vec::with_capacity(items.len());
    for item in items {
        match item {
            RawValue::Number(n) if is_integer_at_least(*n, 2.0) => values.push(*n),
            other => return Err(ConfigError::InvalidThreshold(other.shown())),
        }
    }
    values.sort_by(f64::total_cmp);
    if values.windows(2).any(|pair| pair.first() == pair.last()) {
        return Err(ConfigError::DuplicateThresholds);
    }
    Ok(values)
}

fn preview_chars(raw: &RawValue) -> Result<usize, ConfigError> {
    match raw {
        RawValue::Missing => Ok(DEFAULT_PREVIEW_CHARS),
        // `as` saturates: a cap beyond memory just means "never truncate".
        RawValue::Number(n) if is_integer_at_least(*n, 1.0) => Ok(*n as usize),
        other => Err(ConfigError::InvalidPreviewChars(other.shown())),
    }
}

fn patterns(field: &'static str, raw: &RawValue) -> Result<Vec<String>, ConfigError> {
    let items = match raw {
        RawValue::Missing => return Ok(Vec::new()),
        RawValue::List(items) => items,
        other => {
            return Err(ConfigError::NotAList {
                field,
                got: other.kind(),
            })
        }
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| match item {
            RawValue::String(pattern) => Ok(pattern.clone()),
            other => Err(ConfigError::NotAString {
                field,
                index,
                got: other.kind(),
            }),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use RawValue::*;

    fn list(values: &[f64]) -> RawValue {
        List(values.iter().map(|&v| Number(v)).collect())
    }

    fn error(raw: RawConfig) -> std::string::String {
        GuardConfig::from_raw(&raw).unwrap_err().to_string()
    }

    #[test]
    fn defaults_for_missing_keys() {
        let config = GuardConfig::from_raw(&RawConfig::default()).unwrap();
        assert_eq!(config.thresholds, vec![3.0, 5.0, 8.0]);
        assert_eq!(config.preview_chars, 500);
        assert!(config.filter.is_tracked("anything"));
    }

    #[test]
    fn thresholds_are_sorted_and_may_be_huge() {
        let raw = RawConfig {
            thresholds: list(&[8.0, 1e21, 2.0]),
            ..Default::default()
        };
        assert_eq!(
            GuardConfig::from_raw(&raw).unwrap().thresholds,
            vec![2.0, 8.0, 1e21]
        );
    }

    #[test]
    fn threshold_messages_in_order() {
        let t = |thresholds| {
            error(RawConfig {
                thresholds,
                arguments_preview_chars: Number(0.0),
                ..Default::default()
            })
        };
        assert_eq!(
            t(List(vec![])),
            "repeat-tool-guard: `thresholds` must not be empty"
        );
        for (bad, shown) in [
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
            (2.5, "2.5"),
            (1.0, "1"),
            (0.0, "0"),
            (-0.0, "0"),
        ] {
            assert_eq!(t(list(&[3.0, bad, 1.0])), format!("repeat-tool-guard: invalid threshold {shown} — every threshold must be an integer >= 2"));
        }
        assert_eq!(
            t(List(vec![Number(3.0), String("4".into())])),
            "repeat-tool-guard: invalid threshold 4 — every threshold must be an integer >= 2"
        );
        assert_eq!(
            t(List(vec![Other {
                shown: "null".into(),
                kind: "null".into()
            }])),
            "repeat-tool-guard: invalid threshold null — every threshold must be an integer >= 2"
        );
        assert_eq!(
            t(list(&[3.0, 5.0, 3.0])),
            "repeat-tool-guard: `thresholds` must not contain duplicates"
        );
        assert_eq!(
            t(Other {
                shown: "null".into(),
                kind: "null".into()
            }),
            "repeat-tool-guard: `thresholds` must be an array, got null"
        );
    }

    #[test]
    fn preview_chars_messages() {
        let p = |value| {
            error(RawConfig {
                arguments_preview_chars: value,
                include: Number(1.0),
                ..Default::default()
            })
        };
        for (bad, shown) in [
            (Number(0.0), "0"),
            (Number(1.5), "1.5"),
            (Number(f64::NAN), "NaN"),
            (String("10".into()), "10"),
            (
                Other {
                    shown: "null".into(),
                    kind: "null".into(),
                },
                "null",
            ),
        ] {
            assert_eq!(p(bad), format!("repeat-tool-guard: invalid argumentsPreviewChars {shown} — must be an integer >= 1"));
        }
    }

    #[test]
    fn pattern_lists_must_be_string_arrays() {
        let e = GuardConfig::from_raw(&RawConfig {
            include: String("grep".into()),
            ..Default::default()
        })
        .unwrap_err();
        assert!(e.is_type_error());
        assert_eq!(
            e.to_string(),
            "repeat-tool-guard: `include` must be an array, got string"
        );
        let e = GuardConfig::from_raw(&RawConfig {
            exclude: List(vec![String("a".into()), Number(1.0)]),
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "repeat-tool-guard: `exclude[1]` must be a string, got number"
        );
    }
}
