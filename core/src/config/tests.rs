//! The config rules and their messages, through `GuardConfig::from_raw`.

use super::*;
use crate::raw_config::RawConfig;
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
        "repeat-tool-guard: invalid threshold \"4\" — every threshold must be an integer >= 2 (a string, not a number: write 4 without quotes)"
    );
    assert_eq!(
        t(List(vec![Null])),
        "repeat-tool-guard: invalid threshold null — every threshold must be an integer >= 2"
    );
    assert_eq!(
        t(list(&[3.0, 5.0, 3.0])),
        "repeat-tool-guard: `thresholds` must not contain duplicates"
    );
    assert_eq!(
        t(Null),
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
        (Null, "null"),
        (List(vec![Number(500.0)]), "[500]"),
    ] {
        assert_eq!(p(bad), format!("repeat-tool-guard: invalid argumentsPreviewChars {shown} — must be an integer >= 1"));
    }
    assert_eq!(
        p(RawValue::string("10")),
        "repeat-tool-guard: invalid argumentsPreviewChars \"10\" — must be an integer >= 1 (a string, not a number: write 10 without quotes)"
    );
}

#[test]
fn pattern_lists_must_be_string_arrays() {
    let e = GuardConfig::from_raw(&RawConfig::default().with("include", RawValue::string("grep")))
        .unwrap_err();
    assert!(e.is_type_error());
    assert_eq!(
        e.to_string(),
        "repeat-tool-guard: `include` must be an array, got the string \"grep\""
    );
    let e = GuardConfig::from_raw(
        &RawConfig::default().with("exclude", List(vec![RawValue::string("a"), Number(1.0)])),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "repeat-tool-guard: `exclude[1]` must be a string, got the number 1"
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
        (Null, "null"),
        (Number(2.0), "the number 2"),
        (List(vec![]), "the array []"),
        (Bool(true), "the boolean true"),
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
        (RawValue::string("3"), "\"3\""),
        (Null, "null"),
        (Missing, "undefined"),
    ] {
        let hint = if shown == "\"3\"" {
            " (a string, not a number: write 3 without quotes)"
        } else {
            ""
        };
        assert_eq!(c(max(bad)), (format!("repeat-tool-guard: invalid cycles.maxPeriod {shown} — must be an integer from 2 to 5{hint}"), false));
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
        assert_eq!(
            c(rep(bad)),
            (
                format!(
                    "repeat-tool-guard: invalid cycles.repeats {shown} — must be an integer >= 2"
                ),
                false
            )
        );
    }
    let ok = GuardConfig::from_raw(&RawConfig::default().with(
        "cycles",
        obj(&[
            ("maxPeriod", Number(2.0)),
            ("repeats", Number(1e21)),
            ("other", Null),
        ]),
    ))
    .unwrap();
    assert_eq!(ok.cycles, Some(CycleConfig::new(2, 1e21)));
}

#[test]
fn same_result_only_and_repeat_every_messages() {
    for (bad, got) in [
        (Null, "null"),
        (
            RawValue::string("true"),
            "the string \"true\" (a string, not a boolean: write true without quotes)",
        ),
        (Number(1.0), "the number 1"),
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
        (Null, "null"),
        (Bool(false), "false"),
    ] {
        assert_eq!(
            failure(RawConfig::default().with("repeatEvery", bad)),
            (
                format!("repeat-tool-guard: invalid repeatEvery {shown} — must be an integer >= 1"),
                false
            )
        );
    }
    assert_eq!(
        failure(RawConfig::default().with("repeatEvery", RawValue::string("4"))),
        (
            "repeat-tool-guard: invalid repeatEvery \"4\" — must be an integer >= 1 (a string, not a number: write 4 without quotes)".into(),
            false
        )
    );
}

#[test]
// Every message of one option, as a table read top to bottom.
#[allow(clippy::too_many_lines)]
fn overrides_messages() {
    let o = |overrides| failure(RawConfig::default().with("overrides", overrides));
    let tools = |names: &[&str]| List(names.iter().map(|n| RawValue::string(n)).collect());
    let entry = |tools: RawValue, thresholds: RawValue| {
        obj(&[("tools", tools), ("thresholds", thresholds)])
    };
    let good = entry(tools(&["a"]), list(&[2.0]));
    assert_eq!(
        o(Null),
        (
            "repeat-tool-guard: `overrides` must be an array, got null".into(),
            true
        )
    );
    assert_eq!(
        o(obj(&[])),
        (
            "repeat-tool-guard: `overrides` must be an array, got an object".into(),
            true
        )
    );
    assert_eq!(
        o(List(vec![good.clone(), Number(1.0)])),
        (
            "repeat-tool-guard: `overrides[1]` must be an object, got the number 1".into(),
            true
        )
    );
    assert_eq!(
        o(List(vec![Null])),
        (
            "repeat-tool-guard: `overrides[0]` must be an object, got null".into(),
            true
        )
    );
    assert_eq!(
        o(List(vec![entry(RawValue::string("a"), list(&[2.0]))])),
        (
            "repeat-tool-guard: `overrides[0].tools` must be an array, got the string \"a\"".into(),
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
            "repeat-tool-guard: `overrides[0].tools[1]` must be a string, got the number 1".into(),
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
            "repeat-tool-guard: `overrides[0].thresholds` must be an array, got undefined".into(),
            true
        )
    );
    assert_eq!(
        o(List(vec![good.clone(), entry(tools(&["a"]), Null)])),
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
        .with("cycles", Null)
        .with("sameResultOnly", Null)
        .with("overrides", Null)
        .with("repeatEvery", Null);
    assert_eq!(
        error(raw.clone()),
        "repeat-tool-guard: `exclude` must be an array, got the number 1"
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
