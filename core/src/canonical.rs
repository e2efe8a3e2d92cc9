//! Canonical arguments: the text `JSON.stringify` gives for a deep key-sorted
//! copy of the arguments. The chain compares calls by the key form of the same
//! canonical value (`key`); this text, read off that form, is what
//! `canonicalize` returns and what the detailed reminder quotes. Whatever form
//! the value came in, it is written as `JSON.parse` then `JSON.stringify`
//! would write it.

use crate::arguments::Arguments;
use crate::error::CanonicalError;
use crate::form::tag::{ARRAY, END, FALSE, NULL, NUMBER, OBJECT, TRUE};
use crate::form::{read_string, FormStr};
use crate::ignore::KeyPath;
use crate::number::js_number;
use crate::scan;
use crate::scratch::Scratch;

/// Where canonical text goes: a `String`, its bytes, a preview.
pub trait Sink {
    fn write(&mut self, chunk: &str);
    /// Writes `chunk`, every byte of which is ASCII.
    fn write_ascii(&mut self, chunk: &[u8]) {
        self.write(std::str::from_utf8(chunk).unwrap_or_default());
    }
    /// How many more UTF-16 code units the sink keeps: a string is cut to
    /// about that before it is escaped, and the text ends at 0.
    fn room(&self) -> usize {
        usize::MAX
    }
}

impl Sink for String {
    fn write(&mut self, chunk: &str) {
        self.push_str(chunk);
    }
}

impl Arguments<'_> {
    /// Writes the canonical form to `sink`.
    pub fn write_canonical(&self, sink: &mut impl Sink) -> Result<(), CanonicalError> {
        write_canonical_in(*self, sink, &[], &mut Scratch::default())
    }

    /// Writes the canonical form without the members `ignored` names to
    /// `sink`, and says which of them left something out (their texts).
    pub(crate) fn write_canonical_without(
        &self,
        sink: &mut impl Sink,
        ignored: &[KeyPath],
        scratch: &mut Scratch,
    ) -> Result<Vec<Vec<u16>>, CanonicalError> {
        write_canonical_in(*self, sink, ignored, scratch)?;
        Ok(ignored
            .iter()
            .zip(&scratch.reading.walk.removed)
            .filter(|(_, &removed)| removed)
            .map(|(path, _)| path.text.clone())
            .collect())
    }
}

/// The first `cap` UTF-16 code units of the canonical form without the
/// members `ignored` names; strings are cut before they are escaped. (What
/// [`key_form_head`] reads off a key form, as its tests check.)
#[cfg(test)]
pub(crate) fn canonical_head(
    arguments: Arguments<'_>,
    cap: usize,
    ignored: &[KeyPath],
    scratch: &mut Scratch,
) -> Result<Vec<u16>, CanonicalError> {
    let mut head = Head::new(cap);
    write_canonical_in(arguments, &mut head, ignored, scratch)?;
    Ok(head.units)
}

/// [`canonical_head`] read off a call's key form, `form` (the tool name first), as
/// `key::write_key_form` wrote it; `None` when there is none.
pub(crate) fn key_form_head(form: &[u8], cap: usize) -> Option<Vec<u16>> {
    let (_, arguments) = read_string(form, 1).ok()?;
    let mut head = Head::new(cap);
    write_text(form.get(arguments..)?, &mut head);
    Some(head.units)
}

/// Keeps the first `cap` code units written.
struct Head {
    cap: usize,
    units: Vec<u16>,
}

impl Head {
    fn new(cap: usize) -> Self {
        Self {
            cap,
            units: Vec::with_capacity(cap),
        }
    }
}

impl Sink for Head {
    fn write(&mut self, chunk: &str) {
        let room = self.room();
        self.units.extend(chunk.encode_utf16().take(room));
    }
    fn write_ascii(&mut self, chunk: &[u8]) {
        let room = self.room();
        let chunk = chunk.get(..room).unwrap_or(chunk);
        self.units.extend(chunk.iter().map(|&byte| u16::from(byte)));
    }
    fn room(&self) -> usize {
        self.cap.saturating_sub(self.units.len())
    }
}

/// Canonical text of `text` as a `String` (used by `canonicalize` and tests).
pub fn canonicalize_json(text: &str) -> Result<String, CanonicalError> {
    let mut out = String::with_capacity(text.len());
    Arguments::Json(text).write_canonical(&mut out)?;
    Ok(out)
}

/// Writes the key form of `arguments` without the members `ignored` names into
/// `scratch`, then reads the canonical text off it into `sink`.
pub(crate) fn write_canonical_in(
    arguments: Arguments<'_>,
    sink: &mut impl Sink,
    ignored: &[KeyPath],
    scratch: &mut Scratch,
) -> Result<(), CanonicalError> {
    scratch.form.clear();
    scratch
        .reading
        .write(arguments, ignored, &mut scratch.form)?;
    write_text(&scratch.form, sink);
    Ok(())
}

/// Writes a key form (without a tool name) as JSON text, up to where `sink`
/// has no more room. The form is the guard's own: it is read as written.
fn write_text(form: &[u8], sink: &mut impl Sink) {
    // The open containers (true: an object), and whether the next value is the first in its own.
    let mut open: Vec<bool> = Vec::new();
    let mut first = true;
    let mut at = 0;
    while let Some(&tag) = form.get(at) {
        if sink.room() == 0 {
            break;
        }
        if tag == END {
            sink.write(if open.pop() == Some(true) { "}" } else { "]" });
            first = false;
            at += 1;
            continue;
        }
        if let Some(&object) = open.last() {
            if !first {
                sink.write(",");
            }
            if object {
                let Ok((key, end)) = read_string(form, at) else {
                    break;
                };
                write_str(key, sink);
                sink.write(":");
                at = end;
            }
        }
        first = false;
        at = match form.get(at).copied().unwrap_or(NULL) {
            NULL => text(sink, "null", at + 1),
            FALSE => text(sink, "false", at + 1),
            TRUE => text(sink, "true", at + 1),
            NUMBER => {
                let bits = form.get(at + 1..).and_then(|rest| rest.first_chunk::<8>());
                let value = f64::from_le_bytes(bits.copied().unwrap_or_default());
                text(sink, js_number(value, &mut ryu_js::Buffer::new()), at + 9)
            }
            tag @ (ARRAY | OBJECT) => {
                open.push(tag == OBJECT);
                first = true;
                text(sink, if tag == OBJECT { "{" } else { "[" }, at + 1)
            }
            _ => match read_string(form, at) {
                Ok((string, end)) => {
                    write_str(string, sink);
                    end
                }
                Err(_) => break,
            },
        };
    }
}

/// Writes `chunk` to `sink`; returns `next`.
fn text(sink: &mut impl Sink, chunk: &str, next: usize) -> usize {
    sink.write(chunk);
    next
}

/// Writes a string's canonical literal. A sink with little room gets the
/// string cut first: one code unit past its room (so no surrogate pair is
/// split where it is kept), escapes included.
fn write_str(string: FormStr<'_>, sink: &mut impl Sink) {
    let string = string.cut(sink.room().saturating_add(1));
    let Some(bytes) = string.narrow() else {
        return write_literal(string.units(), sink);
    };
    // Most strings are printable ASCII without a quote or a backslash: written as they are, in
    // runs, with the other characters escaped or encoded one at a time between them.
    sink.write("\"");
    let mut rest = bytes;
    while !rest.is_empty() {
        let plain = scan::first(rest, scan::escaped).unwrap_or(rest.len());
        let (run, tail) = rest.split_at(plain);
        sink.write_ascii(run);
        let Some((&byte, tail)) = tail.split_first() else {
            break;
        };
        write_char(char::from(byte), sink);
        rest = tail;
    }
    sink.write("\"");
}

/// Writes `units` as a JSON string literal, as `JSON.stringify` escapes it (a lone surrogate as
/// `\uXXXX`).
pub fn write_string_literal(units: &[u16], sink: &mut impl Sink) {
    write_literal(units.iter().copied(), sink);
}

fn write_literal(units: impl Iterator<Item = u16>, sink: &mut impl Sink) {
    sink.write("\"");
    for c in char::decode_utf16(units) {
        match c {
            Ok(c) => write_char(c, sink),
            Err(lone) => write_escape(lone.unpaired_surrogate(), sink),
        }
    }
    sink.write("\"");
}

/// Writes one character of a string literal, escaped as `JSON.stringify` escapes it.
fn write_char(c: char, sink: &mut impl Sink) {
    match c {
        '"' => sink.write("\\\""),
        '\\' => sink.write("\\\\"),
        '\u{08}' => sink.write("\\b"),
        '\u{0c}' => sink.write("\\f"),
        '\n' => sink.write("\\n"),
        '\r' => sink.write("\\r"),
        '\t' => sink.write("\\t"),
        c if (c as u32) < 0x20 => write_escape(c as u16, sink),
        c => sink.write(c.encode_utf8(&mut [0; 4])),
    }
}

/// Writes `\uXXXX` for `unit`.
fn write_escape(unit: u16, sink: &mut impl Sink) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digit = |shift: u16| {
        HEX.get(usize::from((unit >> shift) & 0xf))
            .copied()
            .unwrap_or(b'0')
    };
    let escape = [b'\\', b'u', digit(12), digit(8), digit(4), digit(0)];
    sink.write(std::str::from_utf8(&escape).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(text: &str) -> String {
        canonicalize_json(text).unwrap()
    }

    #[test]
    fn sorts_keys_deeply() {
        assert_eq!(
            c(r#"{"b":1,"a":{"d":[{"z":1,"y":2}],"c":2}}"#),
            r#"{"a":{"c":2,"d":[{"y":2,"z":1}]},"b":1}"#
        );
    }

    #[test]
    fn array_indices_come_first_numerically() {
        assert_eq!(
            c(r#"{"b":1,"10":2,"2":3,"a":4,"01":5,"4294967294":6,"4294967295":7}"#),
            r#"{"2":3,"10":2,"4294967294":6,"01":5,"4294967295":7,"a":4,"b":1}"#
        );
    }

    #[test]
    fn keys_sort_by_utf16_code_units() {
        // U+FF5E sorts after U+1F600 in code points, before it in UTF-16 (0xD83D < 0xFF5E).
        assert_eq!(
            c("{\"\u{ff5e}\":1,\"\u{1f600}\":2}"),
            "{\"\u{1f600}\":2,\"\u{ff5e}\":1}"
        );
        assert_eq!(c(r#"{"b":1,"B":2,"a":3}"#), r#"{"B":2,"a":3,"b":1}"#);
    }

    #[test]
    fn later_duplicate_wins() {
        assert_eq!(c(r#"{"a":1,"b":2,"a":3}"#), r#"{"a":3,"b":2}"#);
        assert_eq!(c(r#"{"a":1,"\u0061":3}"#), r#"{"a":3}"#);
    }

    #[test]
    fn proto_is_an_ordinary_key() {
        assert_eq!(
            c(r#"{"__proto__":{"x":1},"a":1}"#),
            r#"{"__proto__":{"x":1},"a":1}"#
        );
    }

    #[test]
    fn numbers_print_as_javascript_prints_them() {
        assert_eq!(
            c("[-0,1E2,1e21,0.1e1,1.50,9007199254740993,1e400,-1e-7]"),
            "[0,100,1e+21,1,1.5,9007199254740992,null,-1e-7]"
        );
    }

    #[test]
    fn strings_escape_as_json_stringify() {
        assert_eq!(
            c(r#""\u0041\/\u00e9\b\u001f\ud800x\udc00\ud83d\ude00\u2028""#),
            "\"A/\u{e9}\\b\\u001f\\ud800x\\udc00\u{1f600}\u{2028}\""
        );
    }

    #[test]
    fn whitespace_and_empty_containers() {
        assert_eq!(c(" { \"a\" : [ ] , \"b\" : { } } "), r#"{"a":[],"b":{}}"#);
    }

    #[test]
    fn rejects_invalid_json() {
        for bad in [
            "",
            "{",
            "[1,]",
            "{\"a\"}",
            "{\"a\":1,}",
            "01",
            "1.",
            "\"\\x\"",
            "\"a",
            "[1] 2",
            "tru",
            "{]",
            "[}",
            "\"\u{1}\"",
        ] {
            assert!(
                canonicalize_json(bad).is_err(),
                "{bad:?} should be rejected"
            );
        }
    }

    #[test]
    fn deep_nesting_uses_no_stack() {
        let depth = 1_000_000;
        let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(c(&text), text);
        let text = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
        assert_eq!(c(&text), text);
    }

    #[test]
    fn raw_text_is_a_string_literal() {
        let units: Vec<u16> = "{not json\n".encode_utf16().chain([0xd800]).collect();
        let mut out = String::new();
        Arguments::Text(&units).write_canonical(&mut out).unwrap();
        assert_eq!(out, r#""{not json\n\ud800""#);
    }
}
