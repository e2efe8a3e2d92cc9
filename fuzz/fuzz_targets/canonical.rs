//! Canonicalization on arbitrary bytes, read two ways: as JSON text (when the bytes are
//! UTF-8) and as UTF-16 code units (the raw-string arguments the loop passes on when
//! a model's JSON is malformed). Nothing may panic, and:
//! - whatever serde_json accepts, the core accepts too; its canonical text parses
//!   with serde_json to the same value (numbers compared as the f64 JavaScript sees),
//!   with every object's keys in V8's order for a key-sorted object (array indices
//!   first, ascending, then UTF-16 code-unit order), each key once;
//! - canonical text is a fixed point: canonicalizing it again changes nothing;
//! - a UTF-16 string canonicalizes to the same text as its JSON literal, escaped any
//!   way (here: every unit as `\uXXXX`), and gets the same chain key;
//! - what serde_json parses, written in the transport's encoding as `encode.js`
//!   writes it (members in reverse order, so the core must sort them), reads back to the same canonical text and has the same
//!   chain key; so does it with every 0 written as `-0` and every `null` as
//!   `NaN`, numbers JSON prints as `0` and `null`;
//! - the bytes read as a transport, as they are and with container sizes put
//!   in: whatever the core accepts has canonical text that is a fixed point,
//!   and keys the same as that text (the key written straight from the bytes
//!   where it can, the text from the key form: the two ways agree);
//! - two calls in a row, as transports (the value in two member orders, with
//!   odd numbers, with one scalar changed; the bytes and the bytes with one
//!   byte changed; the bytes' two halves): the second extends the run exactly
//!   when the two calls have the same key, and is an error exactly when its
//!   key is. The guard tells most such calls apart without a key (the side-by-side read, `side_by_side`):
//!   this is where what it tells is checked against the keys.
#![no_main]

use std::cmp::Ordering;

use libfuzzer_sys::fuzz_target;
use repeat_tool_guard_core::transport_tag::{ARRAY, END, FALSE, NULL, NUMBER, OBJECT, TRUE};
use repeat_tool_guard_core::{
    call_key, canonicalize_json, push_string, transport_sized, Arguments, Call, Guard, GuardConfig,
    RawConfig, RawValue, Tier,
};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        check_json(text);
    }
    check_encoding(data);
    check_encoding(&transport_sized(data));
    check_byte_pairs(data);
    let units: Vec<u16> = data
        .chunks_exact(2)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
        .collect();
    check_text(&units);
});

fn check_json(text: &str) {
    let ours = canonicalize_json(text);
    let theirs = serde_json::from_str::<Value>(text);
    let canonical = match (ours, &theirs) {
        (Ok(canonical), _) => canonical,
        (Err(error), Ok(_)) => panic!("serde_json accepts {text:?}, the core says {error}"),
        (Err(_), Err(_)) => return,
    };
    assert_eq!(
        canonicalize_json(&canonical).as_deref(),
        Ok(canonical.as_str()),
        "canonical text of {text:?} is not a fixed point"
    );
    if let Ok(value) = &theirs {
        for odd_numbers in [false, true] {
            check_transport(text, value, &canonical, odd_numbers);
        }
        check_pairs(value);
    }
    if let Ok(value) = theirs {
        let reparsed: Value = serde_json::from_str(&canonical)
            .unwrap_or_else(|e| panic!("canonical {canonical:?} of {text:?} does not parse: {e}"));
        assert!(
            same(&value, &reparsed),
            "canonical {canonical:?} of {text:?} is another value"
        );
        assert!(
            keys_in_order(&reparsed),
            "canonical {canonical:?} of {text:?} has keys out of order"
        );
    }
}

/// Every object's keys strictly ascending in V8's order (serde_json keeps text order here).
fn keys_in_order(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.iter().all(keys_in_order),
        Value::Object(map) => {
            let keys: Vec<&String> = map.keys().collect();
            keys.windows(2)
                .all(|w| v8_order(w[0], w[1]) == Ordering::Less)
                && map.values().all(keys_in_order)
        }
        _ => true,
    }
}

fn v8_order(a: &str, b: &str) -> Ordering {
    match (array_index(a), array_index(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.encode_utf16().cmp(b.encode_utf16()),
    }
}

/// An array index: "0" or digits without a leading zero, at most 2^32 - 2.
fn array_index(key: &str) -> Option<u64> {
    let digits = !key.is_empty() && key.bytes().all(|b| b.is_ascii_digit());
    if !digits || (key.len() > 1 && key.starts_with('0')) || key.len() > 10 {
        return None;
    }
    key.parse::<u64>().ok().filter(|&v| v <= 4_294_967_294)
}

/// JSON equality as JavaScript sees it: numbers are doubles (so -0 == 0 and
/// 9007199254740993 == 9007199254740992); object key order is irrelevant.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, x)| y.get(key).is_some_and(|y| same(x, y)))
        }
        _ => a == b,
    }
}

fn check_text(units: &[u16]) {
    let mut canonical = String::new();
    Arguments::Text(units)
        .write_canonical(&mut canonical)
        .expect("a string always has a canonical form");
    assert_eq!(
        canonicalize_json(&canonical).as_deref(),
        Ok(canonical.as_str()),
        "canonical string literal {canonical:?} is not a fixed point"
    );
    // The same string as JSON text with every unit escaped canonicalizes identically.
    let mut escaped = String::with_capacity(units.len() * 6 + 2);
    escaped.push('"');
    for unit in units {
        escaped.push_str(&format!("\\u{unit:04x}"));
    }
    escaped.push('"');
    assert_eq!(
        canonicalize_json(&escaped).as_deref(),
        Ok(canonical.as_str()),
        "{units:04x?} as text and as escaped JSON differ"
    );
    // Through the public API, so the check holds whatever the chain key is made of.
    let config = GuardConfig::from_raw(
        &RawConfig::default().with("thresholds", RawValue::List(vec![RawValue::Number(2.0)])),
    )
    .expect("thresholds [2] are valid");
    let mut guard = Guard::new(config);
    assert_eq!(
        guard.observe(Call::new(&A, &T, Arguments::Text(units))),
        Ok(None)
    );
    let second = guard.observe(Call::new(&A, &T, Arguments::Json(&escaped)));
    assert!(
        matches!(&second, Ok(Some(r)) if r.tier == Tier::Gentle && r.count == 2),
        "{units:04x?}: text and JSON forms are not the same call: {second:?}"
    );
    if let Ok(string) = String::from_utf16(units) {
        let back: String = serde_json::from_str(&canonical)
            .unwrap_or_else(|e| panic!("canonical {canonical:?} does not parse: {e}"));
        assert_eq!(back, string);
        let plain = serde_json::to_string(&string).expect("serde_json writes any String");
        assert_eq!(
            canonicalize_json(&plain).as_deref(),
            Ok(canonical.as_str()),
            "serde_json's literal {plain:?} canonicalizes differently"
        );
    }
}

/// `value` (parsed from `text`, whose canonical text is `canonical`) written as a transport must
/// read back to that text and key as the text does; with `odd_numbers`, every 0 is written as
/// `-0` and every `null` as `NaN`.
fn check_transport(text: &str, value: &Value, canonical: &str, odd_numbers: bool) {
    let mut bytes = Vec::new();
    write_transport(value, &mut bytes, (odd_numbers, true));
    let bytes = transport_sized(&bytes);
    let encoded = Arguments::Transport(&bytes);
    let mut walked = String::new();
    encoded
        .write_canonical(&mut walked)
        .unwrap_or_else(|e| panic!("the encoding of {text:?} is rejected: {e}"));
    assert_eq!(
        walked, canonical,
        "the encoding of {text:?} walks elsewhere"
    );
    let scratch = &mut Default::default();
    assert_eq!(
        call_key(&T, encoded, scratch),
        call_key(&T, Arguments::Json(text), scratch),
        "the encoding of {text:?} has another key"
    );
}

/// The tool name "t" and the agent id "a", as UTF-16 code units.
const T: [u16; 1] = [b't' as u16];
const A: [u16; 1] = [b'a' as u16];

/// `value` in the transport's encoding as `encode.js` writes it, without container sizes (see
/// `transport_sized`), members in reverse order when `reverse` and
/// numbers as they are (with `odd_numbers`, 0 as `-0` and `null` as `NaN`).
fn write_transport(value: &Value, out: &mut Vec<u8>, (odd_numbers, reverse): (bool, bool)) {
    let string =
        |out: &mut Vec<u8>, s: &str| push_string(out, &s.encode_utf16().collect::<Vec<_>>());
    match value {
        Value::Null if odd_numbers => {
            out.push(NUMBER);
            out.extend(f64::NAN.to_le_bytes());
        }
        Value::Null => out.push(NULL),
        Value::Bool(b) => out.push(if *b { TRUE } else { FALSE }),
        // serde_json reads numbers past f64's range as errors, so every number here is finite.
        Value::Number(n) => {
            let n = n.as_f64().unwrap_or(0.0);
            out.push(NUMBER);
            out.extend(if odd_numbers && n == 0.0 { -0.0 } else { n }.to_le_bytes());
        }
        Value::String(s) => string(out, s),
        Value::Array(items) => {
            out.push(ARRAY);
            items
                .iter()
                .for_each(|item| write_transport(item, out, (odd_numbers, reverse)));
            out.push(END);
        }
        Value::Object(members) => {
            out.push(OBJECT);
            let members: Vec<_> = if reverse {
                members.iter().rev().collect()
            } else {
                members.iter().collect()
            };
            for (key, item) in members {
                string(out, key);
                write_transport(item, out, (odd_numbers, reverse));
            }
            out.push(END);
        }
    }
}

/// Pairs of calls from `value`: written in two orders, with odd numbers, and with one scalar
/// changed, each pair counted as [`check_pair`] checks.
fn check_pairs(value: &Value) {
    let write = |value: &Value, how| {
        let mut bytes = Vec::new();
        write_transport(value, &mut bytes, how);
        transport_sized(&bytes)
    };
    let mut changed = value.clone();
    change_first_scalar(&mut changed);
    let plain = write(value, (false, false));
    for other in [
        write(value, (false, true)),
        write(value, (true, false)),
        write(&changed, (false, false)),
        write(&changed, (true, false)),
    ] {
        check_pair(&plain, &other);
    }
}

/// Changes the first scalar of `value` in reading order (numbers by one, strings by a code unit).
fn change_first_scalar(value: &mut Value) -> bool {
    match value {
        Value::Null => *value = Value::Bool(false),
        Value::Bool(b) => *b = !*b,
        Value::Number(n) => *value = serde_json::json!(n.as_f64().unwrap_or(0.0) + 1.0),
        Value::String(s) => s.push('x'),
        Value::Array(items) => return items.iter_mut().any(change_first_scalar),
        Value::Object(members) => return members.values_mut().any(change_first_scalar),
    }
    true
}

/// Two calls of one agent and tool in a row, as transports: the second extends the run
/// exactly when the two have the same key; a malformed one is an error and counts nothing.
fn check_pair(a: &[u8], b: &[u8]) {
    let (first, second) = (Arguments::Transport(a), Arguments::Transport(b));
    let scratch = &mut Default::default();
    let (a_key, b_key) = (call_key(&T, first, scratch), call_key(&T, second, scratch));
    let mut guard = pair_guard();
    assert_eq!(
        guard.observe(Call::new(&A, &T, first)).map(|r| r.is_some()),
        a_key.clone().map(|_| false)
    );
    let counted = guard.observe(Call::new(&A, &T, second));
    match (a_key, b_key) {
        (_, Err(_)) => assert!(
            counted.is_err(),
            "{b:?} after {a:?} is accepted: {counted:?}"
        ),
        (Ok(x), Ok(y)) => assert_eq!(
            counted.map(|r| r.is_some()),
            Ok(x == y),
            "{b:?} after {a:?}: the same key {}",
            x == y
        ),
        (Err(_), Ok(_)) => assert_eq!(counted, Ok(None), "{b:?} after the malformed {a:?}"),
    }
}

/// A guard that reminds at the second call of a run.
fn pair_guard() -> Guard {
    let thresholds = RawValue::List(vec![RawValue::Number(2.0)]);
    Guard::new(
        GuardConfig::from_raw(&RawConfig::default().with("thresholds", thresholds))
            .expect("thresholds [2] are valid"),
    )
}

/// Pairs of transports from the bytes for [`check_pair`]: the bytes with sizes put in, then with
/// one byte of them changed; and the two halves of the bytes.
fn check_byte_pairs(data: &[u8]) {
    let sized = transport_sized(data);
    if let Some((&first, _)) = data.split_first() {
        let mut changed = sized.clone();
        let at = usize::from(first) % changed.len();
        changed[at] = changed[at].wrapping_add(data.len() as u8 | 1);
        check_pair(&sized, &changed);
        let (a, b) = data.split_at(data.len() / 2);
        check_pair(&transport_sized(a), &transport_sized(b));
    }
}

/// The bytes as a transport.
fn check_encoding(data: &[u8]) {
    let written = Arguments::Transport(data);
    let mut text = String::new();
    if written.write_canonical(&mut text).is_ok() {
        assert_eq!(
            canonicalize_json(&text).as_deref(),
            Ok(text.as_str()),
            "an accepted transport {data:?} read back as {text:?}, not canonical text"
        );
        let scratch = &mut Default::default();
        assert_eq!(
            call_key(&T, written, scratch),
            call_key(&T, Arguments::Json(&text), scratch),
            "an accepted transport {data:?} keys otherwise than its text {text:?}"
        );
    }
}
