//! The config options are declared once, in `OPTIONS`; the schema (`lib/options.js`), the known keys
//! (`lib/keys.js`), the `Config` interface (`binding-header.d.ts`) and the
//! options table in docs/CONFIGURATION.md are rendered from that declaration between their
//! `BEGIN OPTIONS` and `END OPTIONS` lines, and compared here.
//! `UPDATE_OPTIONS=1 cargo test -p repeat-tool-guard-core --test options`
//! writes them after a change.

use std::fmt::Write;

use repeat_tool_guard_core::{
    ConfigError, GuardConfig, Hint, RawConfig, RawValue, Shape, Tier, OPTIONS,
};

/// A file of the package, from the repository's root.
fn path(file: &str) -> String {
    format!("{}/../{file}", env!("CARGO_MANIFEST_DIR"))
}

/// Compares (or with `UPDATE_OPTIONS`, writes) the part of `file` between `begin` and `end`.
fn check(file: &str, begin: &str, end: &str, expected: &str) {
    // Tests run in parallel, and several render parts of one file: one reads and writes at a time.
    static FILES: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = FILES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let path = path(file);
    let source = std::fs::read_to_string(&path).expect(file);
    let start = source
        .find(begin)
        .unwrap_or_else(|| panic!("{file}: no line {begin:?}"))
        + begin.len();
    let stop = start
        + source[start..]
            .find(end)
            .unwrap_or_else(|| panic!("{file}: no line {end:?}"));
    if std::env::var_os("UPDATE_OPTIONS").is_some() {
        std::fs::write(
            &path,
            format!("{}{expected}{}", &source[..start], &source[stop..]),
        )
        .expect(file);
        return;
    }
    assert_eq!(
        source[start..stop],
        *expected,
        "{file} differs from the options' declaration: run UPDATE_OPTIONS=1 cargo test -p repeat-tool-guard-core --test options"
    );
}

/// A JavaScript single-quoted string literal.
fn js_string(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// The documented message, without the package prefix, as a Markdown code span.
fn code_span(error: &ConfigError) -> String {
    let message = error.to_string();
    let message = message
        .strip_prefix("repeat-tool-guard: ")
        .unwrap_or(&message);
    if message.contains('`') {
        format!("`` {message} ``")
    } else {
        format!("`{message}`")
    }
}

#[test]
fn lib_options_js_declares_the_schema_of_every_option() {
    let mut out = String::from("export const OPTION_SCHEMA = Schema.object({\n");
    for option in OPTIONS {
        let description = format!(
            "{} Default: {}.",
            option.doc,
            option.default.replace('`', "")
        );
        writeln!(
            out,
            "  {}: Schema.any().description({}),",
            option.name,
            js_string(&description)
        )
        .unwrap();
    }
    out += "})\n";
    check(
        "lib/options.js",
        "// BEGIN OPTIONS: rendered from core/src/options.rs, checked by core/tests/options.rs\n",
        "// END OPTIONS\n",
        &out,
    );
}

#[test]
fn lib_keys_js_lists_every_option() {
    let names: Vec<String> = OPTIONS
        .iter()
        .map(|option| js_string(option.name))
        .collect();
    let out = format!("export const KNOWN_KEYS = [{}]\n", names.join(", "));
    check(
        "lib/keys.js",
        "// BEGIN KEYS: rendered from core/src/options.rs, checked by core/tests/options.rs\n",
        "// END KEYS\n",
        &out,
    );
}

#[test]
fn lib_keys_js_lists_the_options_of_identity() {
    let names: Vec<String> = OPTIONS
        .iter()
        .filter(|option| option.identity)
        .map(|option| js_string(option.name))
        .collect();
    let out = format!("export const IDENTITY_KEYS = [{}]\n", names.join(", "));
    check(
        "lib/keys.js",
        "// BEGIN IDENTITY: rendered from core/src/options.rs, checked by core/tests/options.rs\n",
        "// END IDENTITY\n",
        &out,
    );
}

#[test]
fn binding_header_declares_the_config_interface_of_every_option() {
    let mut out = String::from("export interface Config {\n");
    for option in OPTIONS {
        writeln!(out, "  /** {} Default: {}. */", option.doc, option.default).unwrap();
        writeln!(out, "  {}?: {}", option.name, option.ts_type).unwrap();
    }
    out += "}\n";
    check(
        "binding-header.d.ts",
        "// BEGIN OPTIONS: rendered from core/src/options.rs, checked by core/tests/options.rs\n",
        "// END OPTIONS\n",
        &out,
    );
}

/// The tiers' names, as JavaScript gives them, quoted for a union type or an array.
fn tier_names() -> Vec<String> {
    Tier::ALL
        .iter()
        .map(|tier| js_string(tier.as_str()))
        .collect()
}

#[test]
fn binding_header_declares_the_tiers_and_the_stats_of_each() {
    let mut out = format!(
        "/** Which rule a reminder comes from. */\nexport type Tier = {}\n",
        tier_names().join(" | ")
    );
    out += "/** Counts since the guard was made (`clear()` keeps them): tracked calls counted, reminders\n * returned, and reminders returned by tier. Per guard, not per agent. */\nexport interface GuardStats {\n  observed: number\n  reminders: number\n";
    for tier in Tier::ALL {
        writeln!(out, "  {}: number", tier.as_str()).unwrap();
    }
    out += "}\n";
    check(
        "binding-header.d.ts",
        "// BEGIN TIERS: rendered from core/src/reminders.rs, checked by core/tests/options.rs\n",
        "// END TIERS\n",
        &out,
    );
}

#[test]
fn lib_keys_js_lists_the_tiers() {
    let symbols: Vec<String> = Tier::ALL
        .iter()
        .map(|tier| format!("{}: {}", tier.as_str(), js_string(tier.symbol())))
        .collect();
    let ends_turn: Vec<String> = Tier::ALL
        .iter()
        .filter(|tier| tier.ends_turn())
        .map(|tier| js_string(tier.as_str()))
        .collect();
    let out = format!(
        "export const TIERS = [{}]\nexport const SYMBOLS = {{ {} }}\nexport const ENDS_TURN = [{}]\n",
        tier_names().join(", "),
        symbols.join(", "),
        ends_turn.join(", ")
    );
    check(
        "lib/keys.js",
        "// BEGIN TIERS: rendered from core/src/reminders.rs, checked by core/tests/options.rs\n",
        "// END TIERS\n",
        &out,
    );
}

/// Each tier is turned on by an option, one that never decides which calls are identical.
#[test]
fn every_tier_is_turned_on_by_an_option_not_of_identity() {
    for tier in Tier::ALL {
        let option = OPTIONS.iter().find(|option| option.name == tier.option());
        let option = option.unwrap_or_else(|| panic!("{tier:?}: no option {}", tier.option()));
        assert!(
            !option.identity,
            "{tier:?}: {} decides identity",
            option.name
        );
    }
}

/// `stopAt`'s documentation names the option of every detection whose count counts toward it,
/// and of no other.
#[test]
fn the_stop_at_doc_names_every_detection_that_counts_toward_it() {
    let stop_at = OPTIONS
        .iter()
        .find(|option| option.name == "stopAt")
        .unwrap();
    for tier in Tier::ALL {
        if matches!(tier, Tier::Gentle | Tier::Detailed | Tier::Stop) {
            continue;
        }
        let named = stop_at.doc.contains(&format!("`{}`", tier.option()));
        assert_eq!(named, tier.counts_toward_stop(), "{tier:?}");
    }
}

#[test]
fn the_configuration_doc_tables_every_option_with_its_errors() {
    let mut out = String::from("| option | type | default | meaning | a bad value gets |\n| --- | --- | --- | --- | --- |\n");
    for option in OPTIONS {
        let errors = (option.errors)();
        let class = |type_error: bool| {
            errors
                .iter()
                .filter(|e| e.is_type_error() == type_error)
                .map(code_span)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let classes: Vec<String> = [("TypeError", class(true)), ("Error", class(false))]
            .into_iter()
            .filter(|(_, list)| !list.is_empty())
            .map(|(name, list)| format!("`{name}` {list}"))
            .collect();
        writeln!(
            out,
            "| `{}` | `{}` | {} | {} | {} |",
            option.name,
            option.ts_type,
            option.default,
            option.doc,
            classes.join("; ")
        )
        .unwrap();
    }
    check("docs/CONFIGURATION.md", "<!-- BEGIN OPTIONS: rendered from core/src/options.rs, checked by core/tests/options.rs -->\n", "<!-- END OPTIONS -->\n", &out);
}

/// Values of every kind the binding can pass, nested where a shape has fields.
fn bad_values(shape: Shape) -> Vec<RawValue> {
    let other = |kind: &str, written: &str| RawValue::Other {
        kind: kind.to_owned(),
        written: written.to_owned(),
    };
    let scalars = vec![
        RawValue::Null,
        RawValue::Number(0.0),
        RawValue::Number(1.5),
        RawValue::Number(-1.0),
        RawValue::Number(f64::NAN),
        RawValue::string(""),
        RawValue::string("a..b"),
        // Strings YAML leaves where a number or a boolean belongs: their messages carry a hint.
        RawValue::string("3"),
        RawValue::string("yes"),
        RawValue::Bool(true),
        RawValue::Object(Vec::new()),
        other("function", "function"),
        other("bigint", "3n"),
    ];
    let mut values = scalars.clone();
    values.push(RawValue::List(Vec::new()));
    values.push(RawValue::List(vec![
        RawValue::Number(3.0),
        RawValue::Number(3.0),
    ]));
    for scalar in &scalars {
        values.push(RawValue::List(vec![scalar.clone()]));
        values.push(RawValue::List(vec![
            RawValue::Number(3.0),
            RawValue::Number(3.0),
            scalar.clone(),
        ]));
    }
    let fields = match shape {
        Shape::Value => return values,
        Shape::Object(fields) | Shape::Entries(fields) => fields,
    };
    // Each field bad in turn, the fields before it each given a value of one
    // of the kinds a valid config has there.
    let valid = [
        RawValue::List(vec![RawValue::string("x")]),
        RawValue::List(vec![RawValue::Number(3.0)]),
        RawValue::Number(3.0),
    ];
    let mut objects = Vec::new();
    for (i, field) in fields.iter().enumerate() {
        let mut prefixes: Vec<Vec<(String, RawValue)>> = vec![Vec::new()];
        for name in &fields[..i] {
            prefixes = prefixes
                .into_iter()
                .flat_map(|prefix| {
                    valid.iter().map(move |value| {
                        let mut next = prefix.clone();
                        next.push(((*name).to_owned(), value.clone()));
                        next
                    })
                })
                .collect();
        }
        for prefix in prefixes {
            for value in values.iter().chain([&RawValue::Missing]) {
                let mut members = prefix.clone();
                members.push(((*field).to_owned(), value.clone()));
                objects.push(RawValue::Object(members));
            }
        }
    }
    match shape {
        Shape::Entries(_) => {
            let mut lists: Vec<RawValue> = objects
                .into_iter()
                .map(|o| RawValue::List(vec![o]))
                .collect();
            lists.extend(values);
            lists
        }
        _ => {
            objects.extend(values);
            objects
        }
    }
}

/// An error as documented: the parts that vary replaced by their placeholders,
/// without the hint some values add.
fn documented(error: &ConfigError) -> ConfigError {
    let indices = |field: &str| {
        let mut out = String::new();
        let mut placeholders = ["<i>", "<j>"].into_iter();
        let mut rest = field;
        while let Some(open) = rest.find('[') {
            let close = open + rest[open..].find(']').expect("a closing bracket");
            out += &rest[..=open];
            out += placeholders.next().expect("at most two indices");
            rest = &rest[close..];
        }
        out + rest
    };
    match error {
        ConfigError::WrongType {
            field, expected, ..
        } => ConfigError::WrongType {
            field: indices(field),
            expected,
            got: "<found>".into(),
            hint: Hint::default(),
        },
        ConfigError::Invalid { what, rule, .. } => ConfigError::Invalid {
            what: indices(what),
            shown: "<v>".into(),
            rule,
            hint: Hint::default(),
        },
        ConfigError::Empty(field) => ConfigError::Empty(indices(field)),
        ConfigError::Duplicates(field) => ConfigError::Duplicates(indices(field)),
        ConfigError::NotAnObject(_) => error.clone(),
    }
}

#[test]
fn every_error_an_option_gives_is_one_it_documents() {
    for option in OPTIONS {
        let listed = (option.errors)();
        let mut seen = Vec::new();
        for value in bad_values(option.shape) {
            let raw = RawConfig::default().with(option.name, value.clone());
            if let Err(error) = GuardConfig::from_raw(&raw) {
                let error = documented(&error);
                assert!(
                    listed.contains(&error),
                    "{}: {value:?} gives {error}, which its declaration does not list",
                    option.name
                );
                if !seen.contains(&error) {
                    seen.push(error);
                }
            }
        }
        for error in &listed {
            assert!(
                seen.contains(error),
                "{}: {error} is listed but no bad value gave it",
                option.name
            );
        }
    }
}
