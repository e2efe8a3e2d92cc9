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

/// Long strings of a transport, owned: narrow ones (every code unit at most 0xff) and wide ones.
#[derive(Default)]
struct OwnedPieces {
    narrow: Vec<Vec<u8>>,
    wide: Vec<Vec<u16>>,
}

/// `value` in the transport's encoding (`core/src/transport.rs`) without container sizes (see
/// `transport_sized`), members in reverse order, so that the core must sort them; strings over 8 code units passed as pieces, as `encode.js`
/// passes long ones: narrow when every code unit fits in a byte.
fn write_transport(value: &serde_json::Value, out: &mut Vec<u8>, pieces: &mut OwnedPieces) {
    use repeat_tool_guard_core::push_string;
    use repeat_tool_guard_core::transport_tag::{
        ARRAY, END, FALSE, LONG, LONG_WIDE, NULL, NUMBER, OBJECT, TRUE,
    };
    use serde_json::Value;
    let string = |text: &str, out: &mut Vec<u8>, pieces: &mut OwnedPieces| {
        let units: Vec<u16> = text.encode_utf16().collect();
        let index = |len: usize| u8::try_from(len).expect("few pieces");
        if units.len() <= 8 {
            push_string(out, &units);
        } else if let Ok(narrow) = units.iter().map(|&unit| u8::try_from(unit)).collect() {
            out.extend([LONG, index(pieces.narrow.len())]);
            pieces.narrow.push(narrow);
        } else {
            out.extend([LONG_WIDE, index(pieces.wide.len())]);
            pieces.wide.push(units);
        }
    };
    match value {
        Value::Null => out.push(NULL),
        Value::Bool(b) => out.push(if *b { TRUE } else { FALSE }),
        Value::Number(n) => {
            out.push(NUMBER);
            out.extend(n.as_f64().expect("finite").to_le_bytes());
        }
        Value::String(s) => string(s, out, pieces),
        Value::Array(items) => {
            out.push(ARRAY);
            for item in items {
                write_transport(item, out, pieces);
            }
            out.push(END);
        }
        Value::Object(members) => {
            out.push(OBJECT);
            for (key, item) in members.iter().rev() {
                string(key, out, pieces);
                write_transport(item, out, pieces);
            }
            out.push(END);
        }
    }
}

#[test]
fn a_value_as_javascript_writes_it_canonicalizes_to_the_same_text_and_key() {
    use repeat_tool_guard_core::{call_key, Arguments, Pieces};
    let mut compared = 0;
    for (input, expected) in vectors() {
        let (input, expected) = (input.as_str(), expected.as_str());
        // serde_json reads numbers past f64's range as errors, which JSON.parse reads as ±Infinity.
        let Ok(value) = serde_json::from_str::<serde_json::Value>(input) else {
            continue;
        };
        let (mut bytes, mut pieces) = (Vec::new(), OwnedPieces::default());
        write_transport(&value, &mut bytes, &mut pieces);
        let bytes = repeat_tool_guard_core::transport_sized(&bytes);
        assert!(
            pieces.narrow.len().max(pieces.wide.len()) < 128,
            "an index takes one byte"
        );
        let narrow: Vec<&[u8]> = pieces.narrow.iter().map(Vec::as_slice).collect();
        let wide: Vec<&[u16]> = pieces.wide.iter().map(Vec::as_slice).collect();
        let transport = Arguments::Transport {
            bytes: &bytes,
            pieces: Pieces {
                narrow: &narrow,
                wide: &wide,
            },
        };
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
