//! A call's key: the BLAKE3-256 digest of its key form (see `form`, written by
//! `key_form`) after the tool name, so a chain's size does not grow with the
//! arguments while detection still covers every byte of them: two different
//! calls share a key only through a BLAKE3 collision. What is hashed is not the
//! canonical text but the key form of the same canonical value: a type tag per
//! value, lengths before contents, numbers as their IEEE-754 bits, strings as
//! their UTF-16 code units (one byte each when they all fit). Two calls get
//! the same key exactly when their canonical texts are equal, and no time goes
//! into escaping strings or printing numbers. Most calls need no key: their
//! agent's last call tells them apart by their bytes (`last_call`).

use crate::arguments::Arguments;
use crate::error::CanonicalError;
use crate::form::push_string;
use crate::form::tag::TOOL;
use crate::ignore::KeyPath;
use crate::scratch::Scratch;

/// The chain key of one call: the digest of its key form. The default, all zeros, is no call's.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct CallKey([u8; blake3::OUT_LEN]);

impl CallKey {
    /// The key of the key form `form`.
    pub(crate) fn of(form: &[u8]) -> Self {
        Self(*blake3::hash(form).as_bytes())
    }
}

/// Key of (tool, canonical arguments); the tool name (UTF-16 code units) is
/// length-prefixed so no (tool, arguments) pair can run into another.
pub fn call_key(
    tool: &[u16],
    arguments: Arguments<'_>,
    scratch: &mut Scratch,
) -> Result<CallKey, CanonicalError> {
    write_key_form(tool, arguments, scratch, &[])?;
    Ok(CallKey::of(&scratch.form))
}

/// Writes the call's key form, the tool name first, into `scratch.form`, without the members
/// `ignored` names.
pub(crate) fn write_key_form(
    tool: &[u16],
    arguments: Arguments<'_>,
    scratch: &mut Scratch,
    ignored: &[KeyPath],
) -> Result<(), CanonicalError> {
    scratch.form.clear();
    scratch.form.push(TOOL);
    push_string(&mut scratch.form, tool);
    scratch.reading.write(arguments, ignored, &mut scratch.form)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(tool: &str, json: &str) -> CallKey {
        call_key(&units(tool), Arguments::Json(json), &mut Scratch::default()).unwrap()
    }

    fn units(text: &str) -> Vec<u16> {
        text.encode_utf16().collect()
    }

    #[test]
    fn key_ignores_property_order_but_not_tool_or_values() {
        assert_eq!(
            key("grep", r#"{"a":1,"b":2}"#),
            key("grep", r#"{ "b":2, "a":1 }"#)
        );
        assert_ne!(key("grep", r#"{"a":1}"#), key("find", r#"{"a":1}"#));
        let lone = |unit: u16| {
            call_key(
                &[u16::from(b'x'), unit],
                Arguments::Json("1"),
                &mut Scratch::default(),
            )
            .unwrap()
        };
        assert_ne!(
            lone(0xd800),
            lone(0xdbff),
            "tools told apart by a lone surrogate"
        );
        assert_ne!(lone(0xd800), key("x\u{fffd}", "1"));
        assert_eq!(lone(0xfffd), key("x\u{fffd}", "1"));
        assert_ne!(key("grep", r#"{"a":1}"#), key("grep", r#"{"a":2}"#));
        assert_ne!(key("grep", r#"["a","b"]"#), key("grep", r#"["ab"]"#));
        assert_ne!(key("grep", r"[1]"), key("grep", r#"["1"]"#));
    }

    #[test]
    fn equal_canonical_values_share_a_key_whatever_their_spelling() {
        assert_eq!(key("t", "[1.0, -0, 1e2]"), key("t", "[1, 0, 100]"));
        assert_eq!(key("t", r#"["\u0041\u00e9"]"#), key("t", "[\"A\u{e9}\"]"));
        assert_eq!(key("t", r#"{"a":1,"a":2}"#), key("t", r#"{"a":2}"#));
        assert_eq!(key("t", "[1e400]"), key("t", "[null]"));
        assert_ne!(key("t", "[\"\u{e9}\"]"), key("t", "[\"\u{1e9}\"]"));
    }

    #[test]
    fn keys_are_exact_at_every_length() {
        for n in 0..300 {
            let text = |tail: &str| format!("\"{}{tail}\"", "x".repeat(n));
            assert_eq!(key("t", &text("")), key("t", &text("")));
            assert_ne!(key("t", &text("")), key("t", &text("y")));
            assert_ne!(key("t", &text("y")), key("t", &text("z")));
        }
    }

    #[test]
    fn key_covers_bytes_far_past_any_preview() {
        let long = "x".repeat(1 << 20);
        assert_ne!(
            key("t", &format!("[\"{long}a\"]")),
            key("t", &format!("[\"{long}b\"]"))
        );
    }

    #[test]
    fn raw_string_and_json_string_share_a_key() {
        assert_eq!(
            call_key(
                &units("t"),
                Arguments::Text(&units("hi\n\u{e9}")),
                &mut Scratch::default()
            )
            .unwrap(),
            key("t", r#""hi\n\u00e9""#)
        );
    }
}
