//! Configuration: a value as JavaScript gave it ([`RawValue`]), the validated
//! [`GuardConfig`], and the rules the options (`options`) are checked by.

use crate::cycles::CycleConfig;
use crate::error::ConfigError;
use crate::ignore::IgnoreRules;
use crate::number::js_number_to_string;
use crate::overrides::Overrides;
use crate::patterns::ToolFilter;
use crate::similar::SimilarConfig;

/// A config value as the binding read it from JavaScript, one level deep.
#[derive(Debug, Clone, PartialEq)]
pub enum RawValue {
    /// The key is absent or `undefined`: the default applies.
    Missing,
    Number(f64),
    /// A string as UTF-16 code units, lone surrogates included (patterns match names by them).
    String(Vec<u16>),
    Bool(bool),
    List(Vec<RawValue>),
    /// A plain object, read only where the config expects one (`cycles`, an
    /// `overrides` entry): the named fields the guard knows, in order.
    Object(Vec<(String, RawValue)>),
    /// Anything else; `shown` is `String(v)`, `kind` what a message calls it (`null`, `object`, …).
    Other {
        shown: String,
        kind: String,
    },
}

impl RawValue {
    /// A [`RawValue::String`] of `text`'s code units.
    pub fn string(text: &str) -> Self {
        RawValue::String(text.encode_utf16().collect())
    }

    /// `String(v)`, as the validation messages quote values (a lone surrogate shown as U+FFFD).
    fn shown(&self) -> String {
        match self {
            RawValue::Missing => "undefined".into(),
            RawValue::Number(n) => js_number_to_string(*n),
            RawValue::String(s) => String::from_utf16_lossy(s),
            RawValue::Bool(b) => b.to_string(),
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
            RawValue::Object(_) => "[object Object]".into(),
            RawValue::Other { shown, .. } => shown.clone(),
        }
    }

    /// What a type error says was found.
    fn kind(&self) -> String {
        match self {
            RawValue::Missing => "undefined".into(),
            RawValue::Number(_) => "number".into(),
            RawValue::String(_) => "string".into(),
            RawValue::Bool(_) => "boolean".into(),
            RawValue::List(_) => "array".into(),
            RawValue::Object(_) => "object".into(),
            RawValue::Other { kind, .. } => kind.clone(),
        }
    }
}

impl RawValue {
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

pub const DEFAULT_THRESHOLDS: [f64; 3] = [3.0, 5.0, 8.0];
pub const DEFAULT_PREVIEW_CHARS: usize = 500;

/// A validated configuration. Each field is set by its option's declaration
/// (`options`); the defaults are those of absent keys.
#[derive(Debug, Clone)]
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
            resume: false,
        }
    }
}

impl GuardConfig {
    /// Whether any opt-in feature is on; when none is, the guard runs the reference's path alone.
    pub fn has_extensions(&self) -> bool {
        self.cycles.is_some()
            || self.same_result_only
            || !self.overrides.is_empty()
            || self.repeat_every.is_some()
            || !self.ignore.is_empty()
            || self.similar.is_some()
    }
}

// The rules options are made of. Each takes the option's path (`field`) for its messages.

fn is_integer_at_least(value: f64, min: f64) -> bool {
    value.is_finite() && value.fract() == 0.0 && value >= min
}

fn wrong_type(field: &str, expected: &'static str, got: &RawValue) -> ConfigError {
    ConfigError::WrongType {
        field: field.to_owned(),
        expected,
        got: got.kind(),
    }
}

fn invalid(what: &str, value: &RawValue, rule: &'static str) -> ConfigError {
    ConfigError::Invalid {
        what: what.to_owned(),
        shown: value.shown(),
        rule,
    }
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
                return Err(invalid(
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
        other => Err(invalid(field, other, rule)),
    }
}

/// A number that `accepts` takes, required: absent is `undefined`, which it does not take.
pub(crate) fn required_number(
    field: &str,
    raw: &RawValue,
    accepts: impl Fn(f64) -> bool,
    rule: &'static str,
) -> Result<f64, ConfigError> {
    number(field, raw, accepts, rule)?.ok_or_else(|| invalid(field, raw, rule))
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

pub(crate) fn boolean(field: &str, raw: &RawValue) -> Result<bool, ConfigError> {
    match raw {
        RawValue::Missing => Ok(false),
        RawValue::Bool(b) => Ok(*b),
        other => Err(wrong_type(field, "a boolean", other)),
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
mod tests {
    use super::*;
    use crate::options::RawConfig;
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
        assert!(config
            .filter
            .is_tracked(&"anything".encode_utf16().collect::<Vec<_>>()));
    }

    #[test]
    fn thresholds_are_sorted_and_may_be_huge() {
        let raw = RawConfig::default().with("thresholds", list(&[8.0, 1e21, 2.0]));
        assert_eq!(
            GuardConfig::from_raw(&raw).unwrap().thresholds,
            vec![2.0, 8.0, 1e21]
        );
    }

    #[test]
    fn threshold_messages_in_order() {
        let t = |thresholds| {
            error(
                RawConfig::default()
                    .with("thresholds", thresholds)
                    .with("argumentsPreviewChars", Number(0.0)),
            )
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
            t(List(vec![Number(3.0), RawValue::string("4")])),
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
            error(
                RawConfig::default()
                    .with("argumentsPreviewChars", value)
                    .with("include", Number(1.0)),
            )
        };
        for (bad, shown) in [
            (Number(0.0), "0"),
            (Number(1.5), "1.5"),
            (Number(f64::NAN), "NaN"),
            (RawValue::string("10"), "10"),
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
        let e =
            GuardConfig::from_raw(&RawConfig::default().with("include", RawValue::string("grep")))
                .unwrap_err();
        assert!(e.is_type_error());
        assert_eq!(
            e.to_string(),
            "repeat-tool-guard: `include` must be an array, got string"
        );
        let e = GuardConfig::from_raw(
            &RawConfig::default().with("exclude", List(vec![RawValue::string("a"), Number(1.0)])),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "repeat-tool-guard: `exclude[1]` must be a string, got number"
        );
    }

    fn obj(fields: &[(&str, RawValue)]) -> RawValue {
        Object(
            fields
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    fn null() -> RawValue {
        Other {
            shown: "null".into(),
            kind: "null".into(),
        }
    }

    fn failure(raw: RawConfig) -> (std::string::String, bool) {
        let e = GuardConfig::from_raw(&raw).unwrap_err();
        (e.to_string(), e.is_type_error())
    }

    #[test]
    fn opt_in_keys_default_to_off() {
        let config = GuardConfig::from_raw(&RawConfig::default()).unwrap();
        assert!(config.cycles.is_none());
        assert!(!config.same_result_only);
        assert!(config.overrides.is_empty());
        assert!(config.repeat_every.is_none());
        assert!(!config.has_extensions());
    }

    #[test]
    fn cycles_messages() {
        let c = |cycles| failure(RawConfig::default().with("cycles", cycles));
        for (bad, got) in [
            (null(), "null"),
            (Number(2.0), "number"),
            (List(vec![]), "array"),
            (Bool(true), "boolean"),
        ] {
            assert_eq!(
                c(bad),
                (
                    format!("repeat-tool-guard: `cycles` must be an object, got {got}"),
                    true
                )
            );
        }
        let max = |v: RawValue| obj(&[("maxPeriod", v), ("repeats", Number(2.0))]);
        for (bad, shown) in [
            (Number(1.0), "1"),
            (Number(6.0), "6"),
            (Number(2.5), "2.5"),
            (Number(f64::NAN), "NaN"),
            (RawValue::string("3"), "3"),
            (null(), "null"),
            (Missing, "undefined"),
        ] {
            assert_eq!(c(max(bad)), (format!("repeat-tool-guard: invalid cycles.maxPeriod {shown} — must be an integer from 2 to 5"), false));
        }
        let rep = |v: RawValue| obj(&[("maxPeriod", Number(5.0)), ("repeats", v)]);
        for (bad, shown) in [
            (Number(1.0), "1"),
            (Number(0.0), "0"),
            (Number(2.5), "2.5"),
            (Number(f64::INFINITY), "Infinity"),
            (Missing, "undefined"),
            (Bool(true), "true"),
        ] {
            assert_eq!(c(rep(bad)), (format!("repeat-tool-guard: invalid cycles.repeats {shown} — must be an integer >= 2"), false));
        }
        let ok = GuardConfig::from_raw(&RawConfig::default().with(
            "cycles",
            obj(&[
                ("maxPeriod", Number(2.0)),
                ("repeats", Number(1e21)),
                ("other", null()),
            ]),
        ))
        .unwrap();
        assert_eq!(ok.cycles, Some(CycleConfig::new(2, 1e21)));
    }

    #[test]
    fn same_result_only_and_repeat_every_messages() {
        for (bad, got) in [
            (null(), "null"),
            (RawValue::string("true"), "string"),
            (Number(1.0), "number"),
        ] {
            assert_eq!(
                failure(RawConfig::default().with("sameResultOnly", bad)),
                (
                    format!("repeat-tool-guard: `sameResultOnly` must be a boolean, got {got}"),
                    true
                )
            );
        }
        for (bad, shown) in [
            (Number(0.0), "0"),
            (Number(1.5), "1.5"),
            (Number(-1.0), "-1"),
            (RawValue::string("4"), "4"),
            (null(), "null"),
            (Bool(false), "false"),
        ] {
            assert_eq!(
                failure(RawConfig::default().with("repeatEvery", bad)),
                (
                    format!(
                        "repeat-tool-guard: invalid repeatEvery {shown} — must be an integer >= 1"
                    ),
                    false
                )
            );
        }
    }

    #[test]
    fn overrides_messages() {
        let o = |overrides| failure(RawConfig::default().with("overrides", overrides));
        let tools = |names: &[&str]| List(names.iter().map(|n| RawValue::string(n)).collect());
        let entry = |tools: RawValue, thresholds: RawValue| {
            obj(&[("tools", tools), ("thresholds", thresholds)])
        };
        let good = entry(tools(&["a"]), list(&[2.0]));
        assert_eq!(
            o(null()),
            (
                "repeat-tool-guard: `overrides` must be an array, got null".into(),
                true
            )
        );
        assert_eq!(
            o(obj(&[])),
            (
                "repeat-tool-guard: `overrides` must be an array, got object".into(),
                true
            )
        );
        assert_eq!(
            o(List(vec![good.clone(), Number(1.0)])),
            (
                "repeat-tool-guard: `overrides[1]` must be an object, got number".into(),
                true
            )
        );
        assert_eq!(
            o(List(vec![null()])),
            (
                "repeat-tool-guard: `overrides[0]` must be an object, got null".into(),
                true
            )
        );
        assert_eq!(
            o(List(vec![entry(RawValue::string("a"), list(&[2.0]))])),
            (
                "repeat-tool-guard: `overrides[0].tools` must be an array, got string".into(),
                true
            )
        );
        assert_eq!(
            o(List(vec![obj(&[("thresholds", list(&[2.0]))])])),
            (
                "repeat-tool-guard: `overrides[0].tools` must be an array, got undefined".into(),
                true
            )
        );
        assert_eq!(
            o(List(vec![entry(
                List(vec![RawValue::string("a"), Number(1.0)]),
                list(&[2.0])
            )])),
            (
                "repeat-tool-guard: `overrides[0].tools[1]` must be a string, got number".into(),
                true
            )
        );
        assert_eq!(
            o(List(vec![entry(tools(&[]), list(&[2.0]))])),
            (
                "repeat-tool-guard: `overrides[0].tools` must not be empty".into(),
                false
            )
        );
        assert_eq!(
            o(List(vec![entry(tools(&["a"]), Missing)])),
            (
                "repeat-tool-guard: `overrides[0].thresholds` must be an array, got undefined"
                    .into(),
                true
            )
        );
        assert_eq!(
            o(List(vec![good.clone(), entry(tools(&["a"]), null())])),
            (
                "repeat-tool-guard: `overrides[1].thresholds` must be an array, got null".into(),
                true
            )
        );
        assert_eq!(
            o(List(vec![entry(tools(&["a"]), list(&[]))])),
            (
                "repeat-tool-guard: `overrides[0].thresholds` must not be empty".into(),
                false
            )
        );
        assert_eq!(
            o(List(vec![entry(tools(&["a"]), list(&[3.0, 1.0]))])),
            (
                "repeat-tool-guard: invalid threshold 1 — every threshold must be an integer >= 2"
                    .into(),
                false
            )
        );
        assert_eq!(
            o(List(vec![entry(tools(&["a"]), list(&[3.0, 3.0]))])),
            (
                "repeat-tool-guard: `overrides[0].thresholds` must not contain duplicates".into(),
                false
            )
        );
        let config = GuardConfig::from_raw(&RawConfig::default().with(
            "overrides",
            List(vec![entry(tools(&["a", "b*"]), list(&[9.0, 4.0]))]),
        ))
        .unwrap();
        assert_eq!(config.overrides.entries()[0].thresholds, vec![4.0, 9.0]);
    }

    #[test]
    fn the_references_keys_are_checked_first() {
        let raw = RawConfig::default()
            .with("exclude", Number(1.0))
            .with("cycles", null())
            .with("sameResultOnly", null())
            .with("overrides", null())
            .with("repeatEvery", null());
        assert_eq!(
            error(raw.clone()),
            "repeat-tool-guard: `exclude` must be an array, got number"
        );
        let order = [
            "`cycles` must be an object",
            "`sameResultOnly` must be a boolean",
            "`overrides` must be an array",
        ];
        let mut raw = raw.with("exclude", Missing);
        for (expected, checked) in order
            .into_iter()
            .zip(["cycles", "sameResultOnly", "overrides"])
        {
            let message = error(raw.clone());
            assert!(message.contains(expected), "{message}");
            raw = raw.with(checked, Missing);
        }
        let message = error(raw);
        assert!(message.contains("invalid repeatEvery null"), "{message}");
    }
}
