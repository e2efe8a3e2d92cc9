//! Configuration: a value as JavaScript gave it ([`RawValue`]), the validated
//! [`GuardConfig`], and the rules the options (`options`) are checked by.

use crate::canonical::write_string_literal;
use crate::cycles::CycleConfig;
use crate::error::{ConfigError, Hint};
use crate::ignore::IgnoreRules;
use crate::number::js_number_to_string;
use crate::overrides::Overrides;
use crate::patterns::ToolFilter;
use crate::similar::SimilarConfig;
use crate::windows::WindowConfig;

/// A config value as the binding read it from JavaScript.
#[derive(Debug, Clone, PartialEq)]
pub enum RawValue {
    /// The key is absent or `undefined`: the default applies.
    Missing,
    Null,
    Number(f64),
    /// A string as UTF-16 code units, lone surrogates included (patterns match names by them).
    String(Vec<u16>),
    Bool(bool),
    /// An array: a config list, every item; an array within one, for messages
    /// only, its first [`SHOWN_ITEMS`] and one more at least.
    List(Vec<RawValue>),
    /// A plain object, read only where the config expects one (`cycles`, an
    /// `overrides` entry): the named fields the guard knows, in order.
    Object(Vec<(String, RawValue)>),
    /// Anything else: `kind` as `typeof` names it (`object`, `function`,
    /// `symbol`, `bigint`; `array` for one nested too deep to read), and the
    /// value as a message writes it (`{…}`, `Symbol(s)`, `3n`, `[…]`).
    Other {
        kind: String,
        written: String,
    },
}

/// How many items of an array a message shows; more are written `…`.
pub const SHOWN_ITEMS: usize = 3;

impl RawValue {
    /// A [`RawValue::String`] of `text`'s code units.
    pub fn string(text: &str) -> Self {
        RawValue::String(text.encode_utf16().collect())
    }

    /// The value as written in JavaScript or YAML: a string quoted as
    /// `JSON.stringify` quotes it (so `""` shows), a number as `String(n)`, an
    /// array's first items, an object as `{…}`.
    pub(crate) fn written(&self) -> String {
        match self {
            RawValue::Missing => "undefined".into(),
            RawValue::Null => "null".into(),
            RawValue::Number(n) => js_number_to_string(*n),
            RawValue::String(units) => {
                let mut out = String::new();
                write_string_literal(units, &mut out);
                out
            }
            RawValue::Bool(b) => b.to_string(),
            RawValue::List(items) => {
                let mut shown: Vec<String> = items
                    .iter()
                    .take(SHOWN_ITEMS)
                    .map(RawValue::written)
                    .collect();
                if items.len() > SHOWN_ITEMS {
                    shown.push("…".into());
                }
                format!("[{}]", shown.join(", "))
            }
            RawValue::Object(_) => "{…}".into(),
            RawValue::Other { written, .. } => written.clone(),
        }
    }

    /// What a type error says was found: the kind and the value as written
    /// (`the string "yes"`, `the array [3]`); `null`, `undefined`, an object
    /// and a function by name alone.
    pub(crate) fn described(&self) -> String {
        let kind = match self {
            RawValue::Missing | RawValue::Null => return self.written(),
            RawValue::Object(_) => return "an object".into(),
            RawValue::Other { kind, .. } if kind == "object" => return "an object".into(),
            RawValue::Other { kind, .. } if kind == "function" => return "a function".into(),
            RawValue::Number(_) => "number",
            RawValue::String(_) => "string",
            RawValue::Bool(_) => "boolean",
            RawValue::List(_) => "array",
            RawValue::Other { kind, .. } => kind,
        };
        format!("the {kind} {}", self.written())
    }

    /// A field of an [`RawValue::Object`]; `Missing` when absent.
    pub(crate) fn field(&self, name: &str) -> &RawValue {
        match self {
            RawValue::Object(fields) => fields
                .iter()
                .find(|(key, _)| key == name)
                .map_or(&RawValue::Missing, |(_, value)| value),
            _ => &RawValue::Missing,
        }
    }
}

impl ConfigError {
    /// The error of a config that is not an object (`config`: what it is instead).
    pub fn not_an_object(config: &RawValue) -> Self {
        ConfigError::NotAnObject(config.described())
    }
}

pub const DEFAULT_THRESHOLDS: [f64; 3] = [3.0, 5.0, 8.0];
pub const DEFAULT_PREVIEW_CHARS: usize = 500;

/// A validated configuration. Each field is set by its option's declaration
/// (`options`); the defaults are those of absent keys.
#[derive(Debug, Clone, PartialEq)]
pub struct GuardConfig {
    /// Ascending, distinct integers >= 2. Kept as f64: JavaScript allows 1e21.
    pub thresholds: Vec<f64>,
    pub filter: ToolFilter,
    /// UTF-16 code units of canonical arguments quoted in a detailed reminder.
    pub preview_chars: usize,
    /// Opt-in: cycle detection (`None`: off).
    pub cycles: Option<CycleConfig>,
    /// Opt-in: a call extends the run only when its result also equals the previous one's.
    pub same_result_only: bool,
    /// Opt-in: per-tool thresholds (empty: every tool uses `thresholds`).
    pub overrides: Overrides,
    /// Opt-in: past the last threshold, a detailed reminder every this many calls
    /// (`None`: silent past the last threshold, as the reference). An integer >= 1.
    pub repeat_every: Option<f64>,
    /// Opt-in: argument keys left out of matching tools' calls (empty: none).
    pub ignore: IgnoreRules,
    /// Opt-in: runs of near-identical calls (`None`: off).
    pub similar: Option<SimilarConfig>,
    /// Opt-in: the same call returning the same normalized result again (`None`: off).
    pub no_progress: Option<WindowConfig>,
    /// Opt-in: one tool failing with the same normalized error again (`None`: off).
    pub failures: Option<WindowConfig>,
    /// Opt-in: the agent's last call again in the same model response is left out.
    pub per_response: bool,
    /// Opt-in: the count (a run's, `noProgress`'s or `failures`') at which the turn is ended (`None`: never).
    pub stop_at: Option<f64>,
    /// Opt-in: a resumed agent's chain is rebuilt from its session's log (by the plugin).
    pub resume: bool,
}

impl Default for GuardConfig {
    fn default() -> Self {
        Self {
            thresholds: DEFAULT_THRESHOLDS.to_vec(),
            filter: ToolFilter::default(),
            preview_chars: DEFAULT_PREVIEW_CHARS,
            cycles: None,
            same_result_only: false,
            overrides: Overrides::default(),
            repeat_every: None,
            ignore: IgnoreRules::default(),
            similar: None,
            no_progress: None,
            failures: None,
            per_response: false,
            stop_at: None,
            resume: false,
        }
    }
}

impl GuardConfig {
    /// Whether any opt-in feature is on; when none is, the guard runs the reference's path alone.
    /// Every field but the reference's own options (and `resume`, which the plugin reads) is an
    /// opt-in: a config that differs from the default in any other field has extensions, so a new
    /// option cannot be left out of this check.
    pub fn has_extensions(&self) -> bool {
        let reference = GuardConfig {
            thresholds: self.thresholds.clone(),
            filter: self.filter.clone(),
            preview_chars: self.preview_chars,
            resume: self.resume,
            ..GuardConfig::default()
        };
        *self != reference
    }
}

// The rules options are made of. Each takes the option's path (`field`) for its messages.

fn is_integer_at_least(value: f64, min: f64) -> bool {
    value.is_finite() && value.fract() == 0.0 && value >= min
}

fn wrong_type(field: &str, expected: &'static str, got: &RawValue) -> ConfigError {
    wrong_type_with(field, expected, got, None)
}

fn wrong_type_with(
    field: &str,
    expected: &'static str,
    got: &RawValue,
    hint: Option<String>,
) -> ConfigError {
    ConfigError::WrongType {
        field: field.to_owned(),
        expected,
        got: got.described(),
        hint: Hint(hint),
    }
}

/// `value` breaks `rule`.
pub(crate) fn invalid(what: &str, value: &RawValue, rule: &'static str) -> ConfigError {
    invalid_with(what, value, rule, None)
}

fn invalid_with(
    what: &str,
    value: &RawValue,
    rule: &'static str,
    hint: Option<String>,
) -> ConfigError {
    ConfigError::Invalid {
        what: what.to_owned(),
        shown: value.written(),
        rule,
        hint: Hint(hint),
    }
}

/// As [`invalid`], where a number belongs: a string that reads as a number
/// (YAML's `'3'`) is said to be one.
fn invalid_number(what: &str, value: &RawValue, rule: &'static str) -> ConfigError {
    let hint = match value {
        RawValue::String(units) => {
            let text = String::from_utf16_lossy(units);
            text.parse::<f64>()
                .is_ok_and(f64::is_finite)
                .then(|| format!("a string, not a number: write {text} without quotes"))
        }
        _ => None,
    };
    invalid_with(what, value, rule, hint)
}

/// The items of a list-valued field (`None` when absent).
pub(crate) fn list<'v>(
    field: &str,
    raw: &'v RawValue,
) -> Result<Option<&'v [RawValue]>, ConfigError> {
    match raw {
        RawValue::Missing => Ok(None),
        RawValue::List(items) => Ok(Some(items)),
        other => Err(wrong_type(field, "an array", other)),
    }
}

/// An object-valued field (`false` when absent): `cycles`, an `overrides` entry.
pub(crate) fn object(field: &str, raw: &RawValue) -> Result<bool, ConfigError> {
    match raw {
        RawValue::Missing => Ok(false),
        RawValue::Object(_) => Ok(true),
        other => Err(wrong_type(field, "an object", other)),
    }
}

/// A thresholds list (the global one, or an override's, named by `field`), required.
pub(crate) fn thresholds(field: &str, raw: &RawValue) -> Result<Vec<f64>, ConfigError> {
    let Some(items) = list(field, raw)? else {
        return Err(wrong_type(field, "an array", raw));
    };
    if items.is_empty() {
        return Err(ConfigError::Empty(field.to_owned()));
    }
    let mut values = Vec::with_capacity(items.len());
    for item in items {
        match item {
            RawValue::Number(n) if is_integer_at_least(*n, 2.0) => values.push(*n),
            other => {
                return Err(invalid_number(
                    "threshold",
                    other,
                    "every threshold must be an integer >= 2",
                ))
            }
        }
    }
    values.sort_by(f64::total_cmp);
    if values.windows(2).any(|pair| pair.first() == pair.last()) {
        return Err(ConfigError::Duplicates(field.to_owned()));
    }
    Ok(values)
}

/// A number that `accepts` takes (`None` when absent); `rule` says what it takes.
pub(crate) fn number(
    field: &str,
    raw: &RawValue,
    accepts: impl Fn(f64) -> bool,
    rule: &'static str,
) -> Result<Option<f64>, ConfigError> {
    match raw {
        RawValue::Missing => Ok(None),
        RawValue::Number(n) if accepts(*n) => Ok(Some(*n)),
        other => Err(invalid_number(field, other, rule)),
    }
}

/// A number that `accepts` takes, required: absent is `undefined`, which it does not take.
pub(crate) fn required_number(
    field: &str,
    raw: &RawValue,
    accepts: impl Fn(f64) -> bool,
    rule: &'static str,
) -> Result<f64, ConfigError> {
    number(field, raw, accepts, rule)?.ok_or_else(|| invalid_number(field, raw, rule))
}

/// Whether a number is an integer from `min` to `max`.
pub(crate) fn integer_in(min: f64, max: f64) -> impl Fn(f64) -> bool {
    move |n| is_integer_at_least(n, min) && n <= max
}

/// A list of strings (empty when absent), as UTF-16 code units.
pub(crate) fn strings(field: &str, raw: &RawValue) -> Result<Vec<Vec<u16>>, ConfigError> {
    let Some(items) = list(field, raw)? else {
        return Ok(Vec::new());
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| match item {
            RawValue::String(text) => Ok(text.clone()),
            other => Err(wrong_type(&format!("{field}[{index}]"), "a string", other)),
        })
        .collect()
}

/// A pattern list that must name something: `overrides[i].tools`.
pub(crate) fn required_strings(field: &str, raw: &RawValue) -> Result<Vec<Vec<u16>>, ConfigError> {
    if matches!(raw, RawValue::Missing) {
        // Absent is not "no patterns": the entry must say what it is about.
        return Err(wrong_type(field, "an array", raw));
    }
    let items = strings(field, raw)?;
    if items.is_empty() {
        return Err(ConfigError::Empty(field.to_owned()));
    }
    Ok(items)
}

/// A boolean (`false` when absent). YAML 1.2 reads `yes`, `no`, `on`, `off`,
/// `y` and `n` as strings, and a quoted `true` is one: said so.
pub(crate) fn boolean(field: &str, raw: &RawValue) -> Result<bool, ConfigError> {
    match raw {
        RawValue::Missing => Ok(false),
        RawValue::Bool(b) => Ok(*b),
        other => {
            let hint = match other {
                RawValue::String(units) => {
                    let text = String::from_utf16_lossy(units);
                    match text.to_lowercase().as_str() {
                        "yes" | "no" | "on" | "off" | "y" | "n" => Some(format!(
                            "YAML 1.2 reads {text} as a string: write true or false"
                        )),
                        word @ ("true" | "false") => Some(format!(
                            "a string, not a boolean: write {word} without quotes"
                        )),
                        _ => None,
                    }
                }
                _ => None,
            };
            Err(wrong_type_with(field, "a boolean", other, hint))
        }
    }
}

/// A list of objects (empty when absent), each checked by `entry` with its path `field[i]`.
pub(crate) fn entries<T>(
    field: &str,
    raw: &RawValue,
    entry: impl Fn(&str, &RawValue) -> Result<T, ConfigError>,
) -> Result<Vec<T>, ConfigError> {
    let Some(items) = list(field, raw)? else {
        return Ok(Vec::new());
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let at = format!("{field}[{index}]");
            if !matches!(item, RawValue::Object(_)) {
                return Err(wrong_type(&at, "an object", item));
            }
            entry(&at, item)
        })
        .collect()
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod written_tests;
