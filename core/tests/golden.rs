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

/// Canonical key order: array indices ("0" … "4294967294") first, numerically, then UTF-16 order.
fn canonical_key_order(a: &str, b: &str) -> std::cmp::Ordering {
    let index = |key: &str| {
        let canonical = key == "0" || (!key.starts_with('0') && !key.is_empty());
        key.parse::<u32>()
            .ok()
            .filter(|&i| canonical && i != u32::MAX && key.bytes().all(|b| b.is_ascii_digit()))
    };
    match (index(a), index(b)) {
        (Some(a), Some(b)) => a.cmp(&b),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.encode_utf16().cmp(b.encode_utf16()),
    }
}

/// The key form of `value` (see `form.rs`), as `encode.js` writes it: members sorted, -0 as 0.
fn encode(value: &serde_json::Value, out: &mut Vec<u8>) {
    use repeat_tool_guard_core::push_string;
    use repeat_tool_guard_core::tag::{ARRAY, END, FALSE, NULL, NUMBER, OBJECT, TRUE};
    use serde_json::Value;
    match value {
        Value::Null => out.push(NULL),
        Value::Bool(b) => out.push(if *b { TRUE } else { FALSE }),
        Value::Number(n) => {
            let n = n.as_f64().expect("finite");
            out.push(NUMBER);
            out.extend((if n == 0.0 { 0.0 } else { n }).to_le_bytes());
        }
        Value::String(s) => push_string(out, &s.encode_utf16().collect::<Vec<_>>()),
        Value::Array(items) => {
            out.push(ARRAY);
            for item in items {
                encode(item, out);
            }
            out.push(END);
        }
        Value::Object(members) => {
            out.push(OBJECT);
            let mut sorted: Vec<_> = members.iter().collect();
            sorted.sort_by(|(a, _), (b, _)| canonical_key_order(a, b));
            for (key, item) in sorted {
                push_string(out, &key.encode_utf16().collect::<Vec<_>>());
                encode(item, out);
            }
            out.push(END);
        }
    }
}

#[test]
fn written_form_reads_back_to_the_same_canonical_text_and_key() {
    use repeat_tool_guard_core::tag;
    use repeat_tool_guard_core::{call_key, Arguments};
    let mut compared = 0;
    for (input, expected) in vectors() {
        let (input, expected) = (input.as_str(), expected.as_str());
        // serde_json reads numbers past f64's range as errors, which JSON.parse reads as ±Infinity.
        let Ok(value) = serde_json::from_str::<serde_json::Value>(input) else {
            continue;
        };
        // The tool name "t", then the arguments.
        let mut key = vec![tag::TOOL, tag::NARROW, 1, b't'];
        encode(&value, &mut key);
        let encoded = Arguments::Form {
            key: &key,
            arguments_at: 4,
        };
        let mut canonical = String::new();
        encoded
            .write_canonical(&mut canonical)
            .expect("valid encoding");
        assert_eq!(canonical, expected, "input {input}");
        // The scratch type is private to the core: `Default` is the way to name one here.
        #[allow(clippy::default_trait_access)]
        let scratch = &mut Default::default();
        assert_eq!(
            call_key(&[u16::from(b't')], encoded, scratch),
            call_key(&[u16::from(b't')], Arguments::Json(input), scratch),
            "input {input}"
        );
        compared += 1;
    }
    assert!(compared > 300, "only {compared} vectors compared");
}
