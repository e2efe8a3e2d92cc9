//! A call's key: its key form (see `form`, written by `key_form`) after the
//! tool name, kept as it is when at most [`INLINE`] bytes long (most calls:
//! comparing it is exact and costs no hashing), else as its 256-bit BLAKE3
//! digest. Either way a chain's size does not grow with the arguments while
//! detection still covers every byte of them: two different calls share a key
//! only through a BLAKE3 collision. What is kept or hashed is not the
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
use crate::scratch::{write_form, Scratch};

/// Binary forms up to this many bytes are the key themselves.
pub const INLINE: usize = 128;

/// [`CallKey::len`] of a key holding a digest rather than a binary form.
const DIGEST: u8 = u8::MAX;

/// The chain key of one call: a short binary form, or the digest of a longer one.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CallKey {
    /// The binary form's length, or [`DIGEST`]: a digest and a form never compare equal.
    len: u8,
    /// The form, or the digest, zero-padded.
    bytes: [u8; INLINE],
}

/// A call's key before it is stored: the key form where it was written (at
/// most [`INLINE`] bytes), or its digest.
#[derive(Clone, Copy, Debug)]
pub(crate) enum KeyForm<'a> {
    Inline(&'a [u8]),
    Digest([u8; blake3::OUT_LEN]),
}

impl<'a> KeyForm<'a> {
    /// A key form as a key holds it: itself when short, else its digest.
    pub(crate) fn of(form: &'a [u8]) -> Self {
        if form.len() <= INLINE {
            KeyForm::Inline(form)
        } else {
            KeyForm::Digest(*blake3::hash(form).as_bytes())
        }
    }

    /// The (tag, meaningful bytes) a [`CallKey`] holds for this form, its other bytes zero.
    fn parts(&self) -> (u8, &[u8]) {
        match self {
            // An inline form has at most INLINE (< DIGEST) bytes.
            KeyForm::Inline(form) => (form.len() as u8, form),
            KeyForm::Digest(hash) => (DIGEST, hash),
        }
    }
}

/// The key of an empty form.
impl Default for CallKey {
    fn default() -> Self {
        Self::from(&KeyForm::Inline(&[]))
    }
}

impl From<&KeyForm<'_>> for CallKey {
    fn from(form: &KeyForm<'_>) -> Self {
        let (len, form) = form.parts();
        let mut bytes = [0; INLINE];
        let head = bytes.get_mut(..form.len()).unwrap_or_default();
        head.copy_from_slice(form.get(..head.len()).unwrap_or_default());
        Self { len, bytes }
    }
}

/// Key of (tool, canonical arguments); the tool name (UTF-16 code units) is
/// length-prefixed so no (tool, arguments) pair can run into another.
pub fn call_key(
    tool: &[u16],
    arguments: Arguments<'_>,
    scratch: &mut Scratch,
) -> Result<CallKey, CanonicalError> {
    digest_form(tool, arguments, scratch, &[]).map(|form| CallKey::from(&form))
}

/// The key form of any arguments without the members `ignored` names,
/// written into `scratch`'s form buffer and hashed when long.
pub(crate) fn digest_form<'s>(
    tool: &[u16],
    arguments: Arguments<'_>,
    scratch: &'s mut Scratch,
    ignored: &[KeyPath],
) -> Result<KeyForm<'s>, CanonicalError> {
    write_key_form(tool, arguments, scratch, ignored)?;
    Ok(KeyForm::of(&scratch.form))
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
    write_form(arguments, ignored, scratch)
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
    fn keys_stay_exact_on_both_sides_of_the_inline_limit() {
        for n in INLINE - 12..INLINE + 12 {
            let text = |tail: &str| format!("\"{}{tail}\"", "x".repeat(n));
            assert_eq!(key("t", &text("")), key("t", &text("")));
            assert_ne!(key("t", &text("")), key("t", &text("y")));
            assert_ne!(key("t", &text("y")), key("t", &text("z")));
        }
    }
}
