//! How messages write a value (as JavaScript or YAML wrote it), and the hints
//! they add where YAML's reading of a value is the likely mistake.

use super::*;
use crate::raw_config::RawConfig;
use RawValue::*;

fn error(raw: RawConfig) -> std::string::String {
    GuardConfig::from_raw(&raw).unwrap_err().to_string()
}

#[test]
fn values_are_written_as_javascript_writes_them() {
    let other = |kind: &str, written: &str| Other {
        kind: kind.into(),
        written: written.into(),
    };
    for (value, written, described) in [
        (Missing, "undefined", "undefined"),
        (Null, "null", "null"),
        (Number(3.0), "3", "the number 3"),
        (Number(-0.0), "0", "the number 0"),
        (Number(f64::NAN), "NaN", "the number NaN"),
        (Bool(false), "false", "the boolean false"),
        (RawValue::string("3"), "\"3\"", "the string \"3\""),
        (RawValue::string(""), "\"\"", "the string \"\""),
        (
            RawValue::string("a\"b\\\n"),
            r#""a\"b\\\n""#,
            r#"the string "a\"b\\\n""#,
        ),
        (
            String(vec![0x61, 0xd800]),
            r#""a\ud800""#,
            r#"the string "a\ud800""#,
        ),
        (List(vec![]), "[]", "the array []"),
        (
            List(vec![RawValue::string("3"), Number(5.0), Null]),
            "[\"3\", 5, null]",
            "the array [\"3\", 5, null]",
        ),
        (
            List([1.0, 2.0, 3.0, 4.0].map(Number).to_vec()),
            "[1, 2, 3, …]",
            "the array [1, 2, 3, …]",
        ),
        (
            List(vec![List(vec![Number(3.0)]), other("array", "[…]")]),
            "[[3], […]]",
            "the array [[3], […]]",
        ),
        (Object(vec![]), "{…}", "an object"),
        (other("object", "{…}"), "{…}", "an object"),
        (other("function", "function"), "function", "a function"),
        (
            other("symbol", "Symbol(s)"),
            "Symbol(s)",
            "the symbol Symbol(s)",
        ),
        (other("bigint", "3n"), "3n", "the bigint 3n"),
    ] {
        assert_eq!(
            (value.written(), value.described()),
            (written.into(), described.into()),
            "{value:?}"
        );
    }
    assert_eq!(
        ConfigError::not_an_object(&List(vec![Object(vec![])])).to_string(),
        "repeat-tool-guard: the config must be an object, got the array [{…}]"
    );
}

#[test]
fn a_string_that_reads_as_a_number_is_said_to_be_a_string_where_a_number_belongs() {
    let hint = |text: &str| {
        let e = error(RawConfig::default().with("repeatEvery", RawValue::string(text)));
        e.split_once(" — must be an integer >= 1")
            .expect("the repeatEvery message")
            .1
            .to_owned()
    };
    for number in ["3", "0", "-2", "2.5", "1e3", "+4", ".5"] {
        assert_eq!(
            hint(number),
            format!(" (a string, not a number: write {number} without quotes)")
        );
    }
    for text in [
        "", "three", "3 calls", " 3", "0x10", "Infinity", "NaN", "1e400",
    ] {
        assert_eq!(hint(text), "", "{text:?}");
    }
    // Where a string or an array belongs, a number-like string gets no hint.
    assert_eq!(
        error(RawConfig::default().with("include", RawValue::string("3"))),
        "repeat-tool-guard: `include` must be an array, got the string \"3\""
    );
}

#[test]
fn a_yaml_1_2_string_where_a_boolean_belongs_says_how_yaml_read_it() {
    let message = |text: &str| error(RawConfig::default().with("resume", RawValue::string(text)));
    for word in [
        "yes", "no", "on", "off", "y", "n", "Yes", "NO", "On", "OFF", "Y", "N",
    ] {
        assert_eq!(
            message(word),
            format!("repeat-tool-guard: `resume` must be a boolean, got the string \"{word}\" (YAML 1.2 reads {word} as a string: write true or false)")
        );
    }
    for (word, lower) in [("true", "true"), ("False", "false"), ("TRUE", "true")] {
        assert_eq!(
            message(word),
            format!("repeat-tool-guard: `resume` must be a boolean, got the string \"{word}\" (a string, not a boolean: write {lower} without quotes)")
        );
    }
    for text in ["", "maybe", "1", "yes please"] {
        assert_eq!(
            message(text),
            format!("repeat-tool-guard: `resume` must be a boolean, got the string \"{text}\"")
        );
    }
    assert_eq!(
        error(RawConfig::default().with("sameResultOnly", RawValue::string("off"))),
        "repeat-tool-guard: `sameResultOnly` must be a boolean, got the string \"off\" (YAML 1.2 reads off as a string: write true or false)"
    );
}

#[test]
fn an_empty_key_path_shows_as_an_empty_string() {
    let entry = |key: RawValue| {
        RawConfig::default().with(
            "ignoreArguments",
            List(vec![Object(vec![
                ("tools".into(), List(vec![RawValue::string("x")])),
                ("keys".into(), List(vec![RawValue::string("a"), key])),
            ])]),
        )
    };
    let rule = "must be names separated by `.`, none empty (`\\.` is a dot and `\\\\` a backslash within a name)";
    assert_eq!(
        error(entry(RawValue::string(""))),
        format!("repeat-tool-guard: invalid ignoreArguments[0].keys[1] \"\" — {rule}")
    );
    assert_eq!(
        error(entry(RawValue::string("a..b"))),
        format!("repeat-tool-guard: invalid ignoreArguments[0].keys[1] \"a..b\" — {rule}")
    );
}
