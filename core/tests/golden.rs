//! The canonical form against vectors V8 produced (scripts/golden.mjs).

use repeat_tool_guard_core::canonicalize_json;

/// The golden vectors: (input JSON text, canonical text V8 gave).
fn vectors() -> Vec<(String, String)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../__test__/golden/canonical.json"
    );
    let text = std::fs::read_to_string(path).expect("golden vectors are committed");
    let vectors: Vec<serde_json::Value> = serde_json::from_str(&text).expect("golden file is JSON");
    assert!(vectors.len() > 400);
    vectors
        .iter()
        .map(|vector| {
            let field = |name: &str| vector[name].as_str().expect("a string field").to_owned();
            (field("input"), field("canonical"))
        })
        .collect()
}

#[test]
fn canonical_form_matches_v8_golden_vectors() {
    for (input, expected) in vectors() {
        let (input, expected) = (input.as_str(), expected.as_str());
        assert_eq!(
            canonicalize_json(input).as_deref(),
            Ok(expected),
            "input {input}"
        );
    }
}

/// `value` in the transport's encoding (`core/src/transport.rs`) without container sizes (see
/// `transport_sized`), members in reverse order, so that the core must sort them.
fn write_transport(value: &serde_json::Value, out: &mut Vec<u8>) {
    use repeat_tool_guard_core::push_string;
    use repeat_tool_guard_core::transport_tag::{ARRAY, END, FALSE, NULL, NUMBER, OBJECT, TRUE};
    use serde_json::Value;
    let string = |text: &str, out: &mut Vec<u8>| {
        push_string(out, &text.encode_utf16().collect::<Vec<_>>());
    };
    match value {
        Value::Null => out.push(NULL),
        Value::Bool(b) => out.push(if *b { TRUE } else { FALSE }),
        Value::Number(n) => {
            out.push(NUMBER);
            out.extend(n.as_f64().expect("finite").to_le_bytes());
        }
        Value::String(s) => string(s, out),
        Value::Array(items) => {
            out.push(ARRAY);
            for item in items {
                write_transport(item, out);
            }
            out.push(END);
        }
        Value::Object(members) => {
            out.push(OBJECT);
            for (key, item) in members.iter().rev() {
                string(key, out);
                write_transport(item, out);
            }
            out.push(END);
        }
    }
}

#[test]
fn a_value_as_javascript_writes_it_canonicalizes_to_the_same_text_and_key() {
    use repeat_tool_guard_core::{call_key, Arguments};
    let mut compared = 0;
    for (input, expected) in vectors() {
        let (input, expected) = (input.as_str(), expected.as_str());
        // serde_json reads numbers past f64's range as errors, which JSON.parse reads as ±Infinity.
        let Ok(value) = serde_json::from_str::<serde_json::Value>(input) else {
            continue;
        };
        let mut bytes = Vec::new();
        write_transport(&value, &mut bytes);
        let bytes = repeat_tool_guard_core::transport_sized(&bytes);
        let transport = Arguments::Transport(&bytes);
        let mut canonical = String::new();
        transport
            .write_canonical(&mut canonical)
            .expect("valid transport");
        assert_eq!(canonical, expected, "input {input}");
        // The scratch type is private to the core: `Default` is the way to name one here.
        #[allow(clippy::default_trait_access)]
        let scratch = &mut Default::default();
        assert_eq!(
            call_key(&[u16::from(b't')], transport, scratch),
            call_key(&[u16::from(b't')], Arguments::Json(input), scratch),
            "input {input}"
        );
        compared += 1;
    }
    assert!(compared > 300, "only {compared} vectors compared");
}
