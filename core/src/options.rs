//! Every config option, declared once: its name, how the binding reads it,
//! its TypeScript type, default, one-line documentation, the errors a bad
//! value gets, and the rule that checks it and sets its [`GuardConfig`] field.
//! The schema (`lib/options.js`), the known keys and the keys of identity
//! (`lib/keys.js`), the `Config` interface (`binding-header.d.ts`) and the
//! options table in docs/CONFIGURATION.md are rendered from [`OPTIONS`] and
//! checked by `core/tests/options.rs`; the binding reads the
//! config by [`Shape`]. Options are validated in this order; the first failure wins.

use crate::config::{self, GuardConfig, RawValue, DEFAULT_PREVIEW_CHARS};
use crate::cycles::CycleConfig;
use crate::error::{ConfigError, Hint};
use crate::ignore::{IgnoreEntry, IgnoreRules, KeyPath};
use crate::overrides::{Override, Overrides};
use crate::similar::{self, SimilarConfig, DEFAULT_MIN_CALLS, DEFAULT_SIMILARITY};
use crate::windows::{self, WindowConfig};

/// How the binding reads an option's value from JavaScript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A value, or an array of values.
    Value,
    /// An object: these fields are read, each as a [`Shape::Value`].
    Object(&'static [&'static str]),
    /// An array of such objects.
    Entries(&'static [&'static str]),
}

/// One option.
pub struct OptionSpec {
    /// The config key.
    pub name: &'static str,
    pub shape: Shape,
    /// Its TypeScript type in the `Config` interface.
    pub ts_type: &'static str,
    /// The default, as the README says it (`off` for opt-in features).
    pub default: &'static str,
    /// One line for the README, the schema's description and the `Config` interface.
    pub doc: &'static str,
    /// The errors a bad value gets, with `<v>`, `<found>`, `<i>` for the parts that vary.
    pub errors: fn() -> Vec<ConfigError>,
    /// Checks the value and sets its field of the config.
    pub apply: fn(&RawValue, &mut GuardConfig) -> Result<(), ConfigError>,
    /// Whether it decides which calls are identical (what a run is), rather than where or whether
    /// reminders come: the replay measures run lengths under these options alone.
    pub identity: bool,
}

/// The placeholders the documented errors carry: the value as written, and
/// what was found (its kind and value).
const V: &str = "<v>";
const FOUND: &str = "<found>";

fn doc_wrong(field: &str, expected: &'static str) -> ConfigError {
    ConfigError::WrongType {
        field: field.to_owned(),
        expected,
        got: FOUND.to_owned(),
        hint: Hint::default(),
    }
}

fn doc_invalid(what: &str, rule: &'static str) -> ConfigError {
    ConfigError::Invalid {
        what: what.to_owned(),
        shown: V.to_owned(),
        rule,
        hint: Hint::default(),
    }
}

/// The errors of a thresholds list named `field`.
fn threshold_errors(field: &str) -> Vec<ConfigError> {
    vec![
        doc_wrong(field, "an array"),
        ConfigError::Empty(field.to_owned()),
        doc_invalid("threshold", THRESHOLD_RULE),
        ConfigError::Duplicates(field.to_owned()),
    ]
}

/// The errors of a pattern list named `field`.
fn pattern_errors(field: &str) -> Vec<ConfigError> {
    vec![
        doc_wrong(field, "an array"),
        doc_wrong(&format!("{field}[<i>]"), "a string"),
    ]
}

const THRESHOLD_RULE: &str = "every threshold must be an integer >= 2";
const AT_LEAST_ONE: &str = "must be an integer >= 1";
const MAX_PERIOD_RULE: &str = "must be an integer from 2 to 5";
const REPEATS_RULE: &str = "must be an integer >= 2";
const SIMILARITY_RULE: &str = "must be a number greater than 0 and at most 1";
const MIN_CALLS_RULE: &str = "must be an integer from 2 to 64";
const WINDOW_RULE: &str = "must be an integer from `minCalls` to 64";
const PROFILE_RULE: &str = "must be \"recommended\"";
const KEY_PATH_RULE: &str =
    "must be names separated by `.`, none empty (`\\.` is a dot and `\\\\` a backslash within a name)";

/// The errors of a `{ minCalls, window }` option named `field`.
fn window_errors(field: &str) -> Vec<ConfigError> {
    vec![
        doc_wrong(field, "an object"),
        doc_invalid(&format!("{field}.minCalls"), MIN_CALLS_RULE),
        doc_invalid(&format!("{field}.window"), WINDOW_RULE),
    ]
}

/// Reads a `{ minCalls, window }` option named `field` (`None`: absent), each field defaulting to
/// `defaults`' (a window never below `minCalls`).
fn window_option(
    field: &str,
    raw: &RawValue,
    defaults: WindowConfig,
) -> Result<Option<WindowConfig>, ConfigError> {
    if !config::object(field, raw)? {
        return Ok(None);
    }
    let min_calls = config::number(
        &format!("{field}.minCalls"),
        raw.field("minCalls"),
        config::integer_in(2.0, windows::MAX_WINDOW),
        MIN_CALLS_RULE,
    )?
    .unwrap_or(defaults.min_calls);
    let window = config::number(
        &format!("{field}.window"),
        raw.field("window"),
        config::integer_in(min_calls, windows::MAX_WINDOW),
        WINDOW_RULE,
    )?
    .unwrap_or(defaults.window.max(min_calls));
    Ok(Some(WindowConfig { min_calls, window }))
}

/// Every option, in validation order: the reference's four first, so their messages win as there.
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "thresholds",
        shape: Shape::Value,
        ts_type: "number[]",
        default: "`[3, 5, 8]`",
        doc: "Run lengths that bring a reminder, integers >= 2 (sorted): the first gentle, later ones detailed.",
        errors: || threshold_errors("thresholds"),
        apply: |raw, config| {
            if !matches!(raw, RawValue::Missing) {
                config.thresholds = config::thresholds("thresholds", raw)?;
            }
            Ok(())
        },
        identity: false,
    },
    OptionSpec {
        name: "argumentsPreviewChars",
        shape: Shape::Value,
        ts_type: "number",
        default: "`500`",
        doc: "UTF-16 code units of arguments quoted in the detailed reminder, an integer >= 1 (never limits detection).",
        errors: || vec![doc_invalid("argumentsPreviewChars", AT_LEAST_ONE)],
        apply: |raw, config| {
            let cap = config::number("argumentsPreviewChars", raw, config::integer_in(1.0, f64::MAX), AT_LEAST_ONE)?;
            // `as` saturates: a cap beyond memory just means "never truncate".
            config.preview_chars = cap.map_or(DEFAULT_PREVIEW_CHARS, |n| n as usize);
            Ok(())
        },
        identity: false,
    },
    OptionSpec {
        name: "include",
        shape: Shape::Value,
        ts_type: "string[]",
        default: "`[]`",
        doc: "Tool-name patterns to track; empty means every tool.",
        errors: || pattern_errors("include"),
        apply: |raw, config| {
            config.filter.include = config::strings("include", raw)?;
            Ok(())
        },
        identity: true,
    },
    OptionSpec {
        name: "exclude",
        shape: Shape::Value,
        ts_type: "string[]",
        default: "`[]`",
        doc: "Tool-name patterns transparent to the chain: neither counted nor breaking a run.",
        errors: || pattern_errors("exclude"),
        apply: |raw, config| {
            config.filter.exclude = config::strings("exclude", raw)?;
            Ok(())
        },
        identity: true,
    },
    OptionSpec {
        name: "profile",
        shape: Shape::Value,
        ts_type: "'recommended'",
        default: "none",
        doc: "`recommended` turns on the detections measured to catch the most stuck runs at the fewest reminders in solved ones (docs/DETECTION.md): today `noProgress` and `failures` at their defaults and `similar` at 8 calls 0.9 alike. Explicit keys override it.",
        errors: || vec![doc_invalid("profile", PROFILE_RULE)],
        apply: |raw, config| match raw {
            RawValue::Missing => Ok(()),
            RawValue::String(name) if name.iter().copied().eq("recommended".encode_utf16()) => {
                config.no_progress = Some(windows::NO_PROGRESS);
                config.failures = Some(windows::FAILURES);
                config.similar = Some(similar::RECOMMENDED);
                Ok(())
            }
            other => Err(config::invalid("profile", other, PROFILE_RULE)),
        },
        identity: false,
    },
    OptionSpec {
        name: "cycles",
        shape: Shape::Object(&["maxPeriod", "repeats"]),
        ts_type: "{ maxPeriod: number; repeats: number }",
        default: "off",
        doc: "Opt-in: remind once when a block of 2 to `maxPeriod` (at most 5) calls repeats `repeats` (>= 2) times back to back; both required.",
        errors: || {
            vec![
                doc_wrong("cycles", "an object"),
                doc_invalid("cycles.maxPeriod", MAX_PERIOD_RULE),
                doc_invalid("cycles.repeats", REPEATS_RULE),
            ]
        },
        apply: |raw, config| {
            if !config::object("cycles", raw)? {
                return Ok(());
            }
            let max_period = config::required_number("cycles.maxPeriod", raw.field("maxPeriod"), config::integer_in(2.0, 5.0), MAX_PERIOD_RULE)?;
            let repeats = config::required_number("cycles.repeats", raw.field("repeats"), config::integer_in(2.0, f64::MAX), REPEATS_RULE)?;
            config.cycles = Some(CycleConfig::new(max_period as usize, repeats));
            Ok(())
        },
        identity: false,
    },
    OptionSpec {
        name: "sameResultOnly",
        shape: Shape::Value,
        ts_type: "boolean",
        default: "`false`",
        doc: "Opt-in: a run grows only while the results (`content` and `isError`) are equal too.",
        errors: || vec![doc_wrong("sameResultOnly", "a boolean")],
        apply: |raw, config| {
            config.same_result_only = config::boolean("sameResultOnly", raw)?;
            Ok(())
        },
        identity: true,
    },
    OptionSpec {
        name: "overrides",
        shape: Shape::Entries(&["tools", "thresholds"]),
        ts_type: "Array<{ tools: string[]; thresholds: number[] }>",
        default: "`[]`",
        doc: "Opt-in: per-tool thresholds; the first entry with a pattern matching the tool wins.",
        errors: || {
            let mut errors = vec![
                doc_wrong("overrides", "an array"),
                doc_wrong("overrides[<i>]", "an object"),
                doc_wrong("overrides[<i>].tools", "an array"),
                doc_wrong("overrides[<i>].tools[<j>]", "a string"),
                ConfigError::Empty("overrides[<i>].tools".to_owned()),
            ];
            errors.extend(threshold_errors("overrides[<i>].thresholds"));
            errors
        },
        apply: |raw, config| {
            let entries = config::entries("overrides", raw, |at, entry| {
                let tools = config::required_strings(&format!("{at}.tools"), entry.field("tools"))?;
                let thresholds = config::thresholds(&format!("{at}.thresholds"), entry.field("thresholds"))?;
                Ok(Override { tools, thresholds })
            })?;
            config.overrides = Overrides::new(entries);
            Ok(())
        },
        identity: false,
    },
    OptionSpec {
        name: "repeatEvery",
        shape: Shape::Value,
        ts_type: "number",
        default: "off",
        doc: "Opt-in: past the last threshold, a detailed reminder every this many further calls of the run, an integer >= 1.",
        errors: || vec![doc_invalid("repeatEvery", AT_LEAST_ONE)],
        apply: |raw, config| {
            config.repeat_every = config::number("repeatEvery", raw, config::integer_in(1.0, f64::MAX), AT_LEAST_ONE)?;
            Ok(())
        },
        identity: false,
    },
    OptionSpec {
        name: "ignoreArguments",
        shape: Shape::Entries(&["tools", "keys"]),
        ts_type: "Array<{ tools: string[]; keys: string[] }>",
        default: "`[]`",
        doc: "Opt-in: for tools matching `tools`, the argument keys named in `keys` (dotted paths into nested objects, `\\.` for a dot within a name) are left out of the comparison.",
        errors: || {
            vec![
                doc_wrong("ignoreArguments", "an array"),
                doc_wrong("ignoreArguments[<i>]", "an object"),
                doc_wrong("ignoreArguments[<i>].tools", "an array"),
                doc_wrong("ignoreArguments[<i>].tools[<j>]", "a string"),
                ConfigError::Empty("ignoreArguments[<i>].tools".to_owned()),
                doc_wrong("ignoreArguments[<i>].keys", "an array"),
                doc_wrong("ignoreArguments[<i>].keys[<j>]", "a string"),
                ConfigError::Empty("ignoreArguments[<i>].keys".to_owned()),
                doc_invalid("ignoreArguments[<i>].keys[<j>]", KEY_PATH_RULE),
            ]
        },
        apply: |raw, config| {
            let entries = config::entries("ignoreArguments", raw, |at, entry| {
                let tools = config::required_strings(&format!("{at}.tools"), entry.field("tools"))?;
                let field = format!("{at}.keys");
                let keys = config::required_strings(&field, entry.field("keys"))?
                    .iter()
                    .enumerate()
                    .map(|(j, text)| {
                        KeyPath::parse(text).ok_or_else(|| {
                            config::invalid(&format!("{field}[{j}]"), &RawValue::String(text.clone()), KEY_PATH_RULE)
                        })
                    })
                    .collect::<Result<_, _>>()?;
                Ok(IgnoreEntry { tools, keys })
            })?;
            config.ignore = IgnoreRules::new(entries);
            Ok(())
        },
        identity: true,
    },
    OptionSpec {
        name: "similar",
        shape: Shape::Object(&["minCalls", "similarity"]),
        ts_type: "{ minCalls?: number; similarity?: number }",
        default: "off",
        doc: "Opt-in: remind once when `minCalls` (default 5) calls of one tool in a row each differ from the last but are at least `similarity` (default 0.85) alike.",
        errors: || {
            vec![
                doc_wrong("similar", "an object"),
                doc_invalid("similar.minCalls", REPEATS_RULE),
                doc_invalid("similar.similarity", SIMILARITY_RULE),
            ]
        },
        apply: |raw, config| {
            if !config::object("similar", raw)? {
                return Ok(());
            }
            let min_calls = config::number("similar.minCalls", raw.field("minCalls"), config::integer_in(2.0, f64::MAX), REPEATS_RULE)?;
            let similarity = config::number("similar.similarity", raw.field("similarity"), |n| n > 0.0 && n <= 1.0, SIMILARITY_RULE)?;
            config.similar = Some(SimilarConfig {
                min_calls: min_calls.unwrap_or(DEFAULT_MIN_CALLS),
                similarity: similarity.unwrap_or(DEFAULT_SIMILARITY),
            });
            Ok(())
        },
        identity: false,
    },
    OptionSpec {
        name: "noProgress",
        shape: Shape::Object(&["minCalls", "window"]),
        ts_type: "{ minCalls?: number; window?: number }",
        default: "off",
        doc: "Opt-in: remind when `minCalls` (default 6) of the agent's last `window` (default 16) calls are the same call with the same result, volatile parts (numbers, ids, timestamps) left out.",
        errors: || window_errors("noProgress"),
        apply: |raw, config| {
            config.no_progress = window_option("noProgress", raw, windows::NO_PROGRESS)?.or(config.no_progress);
            Ok(())
        },
        identity: false,
    },
    OptionSpec {
        name: "failures",
        shape: Shape::Object(&["minCalls", "window"]),
        ts_type: "{ minCalls?: number; window?: number }",
        default: "off",
        doc: "Opt-in: remind when `minCalls` (default 3) of the agent's last `window` (default 8) calls are one tool failing with the same error, with other arguments each time (a result flagged `isError: true`, or with an error word such as `error`, `not found` or `failed` in its first 512 bytes), volatile parts left out. Calls with the same arguments count once: the same call failing again is a repeat, for the run rule and `noProgress`.",
        errors: || window_errors("failures"),
        apply: |raw, config| {
            config.failures = window_option("failures", raw, windows::FAILURES)?.or(config.failures);
            Ok(())
        },
        identity: false,
    },
    OptionSpec {
        name: "perResponse",
        shape: Shape::Value,
        ts_type: "boolean",
        default: "`false`",
        doc: "Opt-in: identical calls made together in one model response count once (the agent's last call again in the same response neither grows its run nor brings a reminder); the same call in the next response does. The plugin tells responses apart by the harness's steps; the class by `nextResponse(agentId)`.",
        errors: || vec![doc_wrong("perResponse", "a boolean")],
        apply: |raw, config| {
            config.per_response = config::boolean("perResponse", raw)?;
            Ok(())
        },
        identity: false,
    },
    OptionSpec {
        name: "stopAt",
        shape: Shape::Value,
        ts_type: "number",
        default: "off",
        doc: "Opt-in hard stop: once a run of identical calls, `similar`'s run of near-identical ones, `noProgress`'s count of the same call and result, or `failures`' count of the same error, reaches this many (an integer >= 2), the plugin ends the agent's turn and says why.",
        errors: || vec![doc_invalid("stopAt", REPEATS_RULE)],
        apply: |raw, config| {
            config.stop_at = config::number("stopAt", raw, config::integer_in(2.0, f64::MAX), REPEATS_RULE)?;
            Ok(())
        },
        identity: false,
    },
    OptionSpec {
        name: "resume",
        shape: Shape::Value,
        ts_type: "boolean",
        default: "`false`",
        doc: "Opt-in: an agent resumed on a persisted session continues its chains, rebuilt from the session's calls since the last user prompt.",
        errors: || vec![doc_wrong("resume", "a boolean")],
        apply: |raw, config| {
            config.resume = config::boolean("resume", raw)?;
            Ok(())
        },
        identity: false,
    },
];
