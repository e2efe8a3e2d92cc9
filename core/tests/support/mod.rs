//! Helpers the integration tests of the guard share: configs built from raw
//! values, and calls run for their reminders.

use repeat_tool_guard_core::{Arguments, Call, Guard, GuardConfig, RawConfig, RawValue, Tier};

/// A name's UTF-16 code units.
pub fn u(text: &str) -> Vec<u16> {
    text.encode_utf16().collect()
}

pub fn raw_numbers(values: &[f64]) -> RawValue {
    RawValue::List(values.iter().map(|&v| RawValue::Number(v)).collect())
}

pub fn object(fields: &[(&str, RawValue)]) -> RawValue {
    RawValue::Object(
        fields
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

pub fn cycles(max_period: f64, repeats: f64) -> RawValue {
    object(&[
        ("maxPeriod", RawValue::Number(max_period)),
        ("repeats", RawValue::Number(repeats)),
    ])
}

pub fn extended(raw: RawConfig) -> Guard {
    Guard::new(GuardConfig::from_raw(&raw).unwrap())
}

/// Runs `calls` for agent "a" and lists (call number, tier, count) of each reminder.
pub fn fired(guard: &mut Guard, calls: &[(&str, &str)]) -> Vec<(usize, Tier, u64)> {
    calls
        .iter()
        .enumerate()
        .filter_map(|(i, (tool, json))| {
            guard
                .observe(Call::new(&u("a"), &u(tool), Arguments::Json(json)))
                .unwrap()
                .map(|r| (i + 1, r.tier, r.count))
        })
        .collect()
}
