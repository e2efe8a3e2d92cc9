//! The configs the state machine runs under: well-formed ones, built with the model that
//! mirrors them, and raw values of any shape, accepted or rejected as the spec orders the checks.

use std::collections::HashMap;

use arbitrary::Arbitrary;
use repeat_tool_guard_core::{
    Arguments, Call, ConfigError, Guard, GuardConfig, RawConfig, RawValue, Stats,
};

use crate::inputs::{agent, units, IgnoreModel, KeyNames, Name, KEYS, POOL, SIMILARITIES};
use crate::model::Model;

#[derive(Arbitrary, Debug)]
pub(crate) enum ConfigInput {
    Valid {
        thresholds: Vec<u8>,
        include: Vec<Name>,
        exclude: Vec<Name>,
        preview: u8,
        /// (maxPeriod, repeats), reduced to 2..=5 and 2..=4.
        cycles: Option<(u8, u8)>,
        same_result_only: bool,
        /// (patterns, thresholds) per entry.
        overrides: Vec<(Vec<Name>, Vec<u8>)>,
        repeat_every: Option<u8>,
        /// (patterns, a bit per key of [`KEYS`]) of one `ignoreArguments` entry.
        ignore: Option<(Vec<Name>, u8)>,
        /// (minCalls, similarity), reduced to 2..=5 and one of [`SIMILARITIES`].
        similar: Option<(u8, u8)>,
        /// `noProgress` and `failures`: (minCalls, window), reduced to 2..=5 and minCalls to
        /// minCalls + 7.
        no_progress: Option<(u8, u8)>,
        failures: Option<(u8, u8)>,
        /// Reduced to 2..=13.
        stop_at: Option<u8>,
        per_response: bool,
    },
    Raw {
        thresholds: Raw,
        include: Raw,
        exclude: Raw,
        preview: Raw,
    },
}

/// A config value of any shape, one level of list deep (as the binding reads it) or two.
#[derive(Arbitrary, Debug)]
pub(crate) enum Raw {
    Missing,
    Number(f64),
    Small(i8),
    String(String),
    Name(Name),
    Null,
    Object,
    List(Vec<RawItem>),
}

#[derive(Arbitrary, Debug)]
pub(crate) enum RawItem {
    Missing,
    Number(f64),
    Small(i8),
    Name(Name),
    Null,
    List(Vec<i8>),
}

pub(crate) fn build(config: &ConfigInput) -> Option<(Guard, Model)> {
    match config {
        ConfigInput::Valid {
            thresholds,
            include,
            exclude,
            preview,
            cycles,
            same_result_only,
            no_progress,
            failures,
            stop_at,
            per_response,
            overrides,
            repeat_every,
            ignore,
            similar,
        } => {
            let threshold_list = |raw: &[u8]| {
                let mut values: Vec<u64> = Vec::new();
                for t in raw.iter().take(6) {
                    let v = u64::from(t % 12) + 2;
                    if !values.contains(&v) {
                        values.push(v);
                    }
                }
                if values.is_empty() {
                    values.push(3);
                }
                values
            };
            let mut values = threshold_list(thresholds);
            let cycles = cycles.map(|(p, r)| (usize::from(p % 4) + 2, usize::from(r % 3) + 2));
            let overrides: Vec<(Vec<Vec<u16>>, Vec<u64>)> = overrides
                .iter()
                .take(3)
                .map(|(patterns, thresholds)| {
                    let mut patterns: Vec<Vec<u16>> =
                        patterns.iter().take(3).map(Name::text).collect();
                    if patterns.is_empty() {
                        patterns.push(units("*"));
                    }
                    (patterns, threshold_list(thresholds))
                })
                .collect();
            let repeat_every = repeat_every.map(|n| u64::from(n % 5) + 1);
            let include: Vec<Vec<u16>> = include.iter().take(4).map(Name::text).collect();
            let exclude: Vec<Vec<u16>> = exclude.iter().take(4).map(Name::text).collect();
            let preview = usize::from(preview % 40) + 1;
            let strings = |list: &[Vec<u16>]| {
                RawValue::List(list.iter().cloned().map(RawValue::String).collect())
            };
            let numbers = |list: &[u64]| {
                RawValue::List(list.iter().map(|&v| RawValue::Number(v as f64)).collect())
            };
            let object = |fields: Vec<(&str, RawValue)>| {
                RawValue::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            };
            let ignore: Option<IgnoreModel> = ignore.as_ref().map(|(patterns, bits)| {
                let mut patterns: Vec<Vec<u16>> = patterns.iter().take(3).map(Name::text).collect();
                if patterns.is_empty() {
                    patterns.push(units("*"));
                }
                let mut keys: Vec<KeyNames> = KEYS
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| bits >> i & 1 == 1)
                    .map(|(_, (text, names))| {
                        ((*text).to_owned(), names.iter().map(|n| units(n)).collect())
                    })
                    .collect();
                if keys.is_empty() {
                    keys.push(("task_progress".to_owned(), vec![units("task_progress")]));
                }
                (patterns, keys)
            });
            let similar = similar.map(|(m, s)| {
                (
                    u64::from(m % 4) + 2,
                    SIMILARITIES[usize::from(s) % SIMILARITIES.len()],
                )
            });
            let window = |(m, w): &(u8, u8)| {
                let min_calls = u64::from(m % 4) + 2;
                (min_calls, min_calls as usize + usize::from(w % 8))
            };
            let window_value = |w: Option<(u64, usize)>| {
                w.map_or(RawValue::Missing, |(m, w)| {
                    object(vec![
                        ("minCalls", RawValue::Number(m as f64)),
                        ("window", RawValue::Number(w as f64)),
                    ])
                })
            };
            let no_progress = no_progress.as_ref().map(window);
            let failures = failures.as_ref().map(window);
            let stop_at = stop_at.map(|n| u64::from(n % 12) + 2);
            let raw = RawConfig::default()
                .with("thresholds", numbers(&values))
                .with("include", strings(&include))
                .with("exclude", strings(&exclude))
                .with("argumentsPreviewChars", RawValue::Number(preview as f64))
                .with(
                    "cycles",
                    cycles.map_or(RawValue::Missing, |(p, r)| {
                        object(vec![
                            ("maxPeriod", RawValue::Number(p as f64)),
                            ("repeats", RawValue::Number(r as f64)),
                        ])
                    }),
                )
                .with("sameResultOnly", RawValue::Bool(*same_result_only))
                .with(
                    "overrides",
                    RawValue::List(
                        overrides
                            .iter()
                            .map(|(patterns, thresholds)| {
                                object(vec![
                                    ("tools", strings(patterns)),
                                    ("thresholds", numbers(thresholds)),
                                ])
                            })
                            .collect(),
                    ),
                )
                .with(
                    "repeatEvery",
                    repeat_every.map_or(RawValue::Missing, |n| RawValue::Number(n as f64)),
                )
                .with(
                    "ignoreArguments",
                    RawValue::List(
                        ignore
                            .iter()
                            .map(|(patterns, keys)| {
                                object(vec![
                                    ("tools", strings(patterns)),
                                    (
                                        "keys",
                                        RawValue::List(
                                            keys.iter()
                                                .map(|(text, _)| RawValue::string(text))
                                                .collect(),
                                        ),
                                    ),
                                ])
                            })
                            .collect(),
                    ),
                )
                .with(
                    "similar",
                    similar.map_or(RawValue::Missing, |(m, s)| {
                        object(vec![
                            ("minCalls", RawValue::Number(m as f64)),
                            ("similarity", RawValue::Number(s)),
                        ])
                    }),
                )
                .with("noProgress", window_value(no_progress))
                .with("failures", window_value(failures))
                .with(
                    "stopAt",
                    stop_at.map_or(RawValue::Missing, |n| RawValue::Number(n as f64)),
                )
                .with("perResponse", RawValue::Bool(*per_response));
            let config = GuardConfig::from_raw(&raw)
                .unwrap_or_else(|e| panic!("a valid config {raw:?} is rejected: {e}"));
            values.sort_unstable();
            let expected: Vec<f64> = values.iter().map(|&v| v as f64).collect();
            let guard = Guard::new(config);
            assert_eq!(
                guard.thresholds(),
                expected.as_slice(),
                "thresholds ascending"
            );
            let model = Model {
                thresholds: values,
                include,
                exclude,
                preview,
                cycles,
                same_result_only: *same_result_only,
                overrides: overrides
                    .iter()
                    .map(|(patterns, thresholds)| (patterns.clone(), thresholds.clone()))
                    .collect(),
                repeat_every,
                ignore,
                similar,
                no_progress,
                failures,
                stop_at,
                per_response: *per_response,
                chains: HashMap::new(),
                stats: Stats::default(),
            };
            Some((guard, model))
        }
        ConfigInput::Raw {
            thresholds,
            include,
            exclude,
            preview,
        } => {
            let raw = RawConfig::default()
                .with("thresholds", raw_value(thresholds))
                .with("include", raw_value(include))
                .with("exclude", raw_value(exclude))
                .with("argumentsPreviewChars", raw_value(preview));
            let got = GuardConfig::from_raw(&raw);
            let expected = expected_verdict(&raw);
            match (&got, expected) {
                (Ok(_), Ok(())) => {}
                (Err(error), Err(kind)) => {
                    assert_eq!(verdict_kind(error), kind, "{raw:?}: {error}")
                }
                (got, expected) => panic!("{raw:?}: got {got:?}, expected {expected:?}"),
            }
            // Run the accepted ones through the raw path only for the no-panic property.
            let mut guard = Guard::new(got.ok()?);
            for (i, json) in POOL.iter().enumerate() {
                let _ = guard.observe(Call::new(
                    agent(i as u8),
                    &units("t"),
                    Arguments::Json(json),
                ));
            }
            None
        }
    }
}

pub(crate) fn raw_value(raw: &Raw) -> RawValue {
    match raw {
        Raw::Missing => RawValue::Missing,
        Raw::Number(n) => RawValue::Number(*n),
        Raw::Small(n) => RawValue::Number(f64::from(*n)),
        Raw::String(s) => RawValue::String(units(s)),
        Raw::Name(n) => RawValue::String(n.text()),
        Raw::Null => RawValue::Null,
        Raw::Object => RawValue::Other {
            kind: "object".to_owned(),
            written: "{…}".to_owned(),
        },
        Raw::List(items) => RawValue::List(
            items
                .iter()
                .take(8)
                .map(|item| match item {
                    RawItem::Missing => RawValue::Missing,
                    RawItem::Number(n) => RawValue::Number(*n),
                    RawItem::Small(n) => RawValue::Number(f64::from(*n)),
                    RawItem::Name(n) => RawValue::String(n.text()),
                    RawItem::Null => RawValue::Null,
                    RawItem::List(values) => RawValue::List(
                        values
                            .iter()
                            .map(|&v| RawValue::Number(f64::from(v)))
                            .collect(),
                    ),
                })
                .collect(),
        ),
    }
}

/// The spec's checks in order: thresholds, argumentsPreviewChars, include, exclude.
pub(crate) fn expected_verdict(raw: &RawConfig) -> Result<(), &'static str> {
    let integer_at_least = |n: f64, min: f64| n.is_finite() && n.fract() == 0.0 && n >= min;
    match raw.get("thresholds") {
        RawValue::Missing => {}
        RawValue::List(items) => {
            if items.is_empty() {
                return Err("EmptyThresholds");
            }
            let mut seen: Vec<f64> = Vec::new();
            for item in items {
                match item {
                    RawValue::Number(n) if integer_at_least(*n, 2.0) => seen.push(*n),
                    _ => return Err("InvalidThreshold"),
                }
            }
            seen.sort_by(f64::total_cmp);
            if seen.windows(2).any(|w| w[0] == w[1]) {
                return Err("DuplicateThresholds");
            }
        }
        _ => return Err("NotAList"),
    }
    match raw.get("argumentsPreviewChars") {
        RawValue::Missing => {}
        RawValue::Number(n) if integer_at_least(*n, 1.0) => {}
        _ => return Err("InvalidPreviewChars"),
    }
    for list in [raw.get("include"), raw.get("exclude")] {
        match list {
            RawValue::Missing => {}
            RawValue::List(items) => {
                if !items.iter().all(|item| matches!(item, RawValue::String(_))) {
                    return Err("NotAString");
                }
            }
            _ => return Err("NotAList"),
        }
    }
    Ok(())
}

/// The kind of a config error, as `expected_verdict` names it.
pub(crate) fn verdict_kind(error: &ConfigError) -> &'static str {
    match error {
        ConfigError::Empty(field) if field == "thresholds" => "EmptyThresholds",
        ConfigError::Invalid { what, .. } if what == "threshold" => "InvalidThreshold",
        ConfigError::Duplicates(field) if field == "thresholds" => "DuplicateThresholds",
        ConfigError::Invalid { what, .. } if what == "argumentsPreviewChars" => {
            "InvalidPreviewChars"
        }
        ConfigError::NotAnObject(_) => "NotAnObject",
        ConfigError::WrongType { expected, .. } if *expected == "an array" => "NotAList",
        ConfigError::WrongType { expected, .. } if *expected == "a string" => "NotAString",
        // The opt-in keys, which these raw configs leave absent.
        _ => "another option's error",
    }
}
