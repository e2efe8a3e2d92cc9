//! Canonical arguments: the text `JSON.stringify` gives for a deep key-sorted
//! copy of the arguments, computed from any JSON text of them.
//!
//! The binding hands us `JSON.stringify`'s own output (or an equivalent text
//! it built itself when V8 gave up on depth), so strings and numbers usually
//! pass through verbatim and only object members need reordering. Any other
//! JSON text is normalised the way `JSON.parse` then `JSON.stringify` would.
//!
//! Nothing here recurses: the text is parsed into a flat tape and written out
//! with an explicit stack, so input depth never becomes Rust stack depth.

use std::cmp::Ordering;

use crate::number::write_js_number;

/// Where canonical text goes: a `String`, a digest, a preview.
pub trait Sink {
    fn write(&mut self, chunk: &str);
}

impl Sink for String {
    fn write(&mut self, chunk: &str) {
        self.push_str(chunk);
    }
}

/// The arguments of one call, in one of the two forms the binding can get cheaply.
#[derive(Clone, Copy, Debug)]
pub enum Arguments<'a> {
    /// JSON text of the value (unsorted keys are fine).
    Json(&'a str),
    /// A JavaScript string value (the loop's raw-string fallback), as UTF-16.
    Text(&'a [u16]),
}

impl Arguments<'_> {
    /// Writes the canonical form to `sink`.
    pub fn write_canonical(&self, sink: &mut impl Sink) -> Result<(), CanonicalError> {
        match self {
            Arguments::Json(text) => write_canonical_json(text, sink),
            Arguments::Text(units) => {
                write_string_literal(units, sink);
                Ok(())
            }
        }
    }
}

/// The arguments' JSON text could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CanonicalError {
    #[error("repeat-tool-guard: arguments are not valid JSON (at byte {0})")]
    InvalidJson(usize),
}

/// Canonical text of `text` as a `String` (used by `canonicalize` and tests).
pub fn canonicalize_json(text: &str) -> Result<String, CanonicalError> {
    let mut out = String::with_capacity(text.len());
    write_canonical_json(text, &mut out)?;
    Ok(out)
}

/// Writes the canonical form of the JSON `text` to `sink`.
pub fn write_canonical_json(text: &str, sink: &mut impl Sink) -> Result<(), CanonicalError> {
    let tape = parse(text.as_bytes())?;
    emit(text, &tape, sink);
    Ok(())
}

/// One parsed JSON token. Containers record where their subtree ends on the tape.
#[derive(Clone, Copy, Debug)]
enum Token {
    Null,
    True,
    False,
    /// Byte span of the number token.
    Number {
        start: usize,
        end: usize,
    },
    /// Byte span between the quotes; `escaped` when it holds a backslash.
    Str {
        start: usize,
        end: usize,
        escaped: bool,
    },
    /// `end` is the tape index just past the last descendant.
    Array {
        end: usize,
    },
    /// Members are (key `Str`, value subtree) pairs up to `end`.
    Object {
        end: usize,
    },
}

/// Tape index just past the subtree that starts at `index`.
fn subtree_end(tape: &[Token], index: usize) -> usize {
    match tape.get(index) {
        Some(Token::Array { end } | Token::Object { end }) => *end,
        _ => index + 1,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    Value,
    ValueOrClose,
    Key,
    KeyOrClose,
    Colon,
    CommaOrClose,
    End,
}

fn parse(bytes: &[u8]) -> Result<Vec<Token>, CanonicalError> {
    let mut tape = Vec::new();
    // Open containers: (tape index, is_object).
    let mut open: Vec<(usize, bool)> = Vec::new();
    let mut expect = Expect::Value;
    let mut i = 0;
    loop {
        i = skip_whitespace(bytes, i);
        let Some(&byte) = bytes.get(i) else {
            return if expect == Expect::End {
                Ok(tape)
            } else {
                Err(CanonicalError::InvalidJson(i))
            };
        };
        let closes = match (expect, byte) {
            (Expect::ValueOrClose, b']') => true,
            (Expect::KeyOrClose, b'}') => true,
            (Expect::CommaOrClose, b']' | b'}') => {
                open.last().map(|&(_, obj)| obj) == Some(byte == b'}')
            }
            _ => false,
        };
        if closes {
            // `open` is non-empty here: only container states can close.
            let Some((index, _)) = open.pop() else {
                return Err(CanonicalError::InvalidJson(i));
            };
            let end = tape.len();
            if let Some(Token::Array { end: e } | Token::Object { end: e }) = tape.get_mut(index) {
                *e = end;
            }
            i += 1;
            expect = if open.is_empty() {
                Expect::End
            } else {
                Expect::CommaOrClose
            };
            continue;
        }
        match expect {
            Expect::Value | Expect::ValueOrClose => {
                match byte {
                    b'{' => {
                        open.push((tape.len(), true));
                        tape.push(Token::Object { end: 0 });
                        i += 1;
                        expect = Expect::KeyOrClose;
                        continue;
                    }
                    b'[' => {
                        open.push((tape.len(), false));
                        tape.push(Token::Array { end: 0 });
                        i += 1;
                        expect = Expect::ValueOrClose;
                        continue;
                    }
                    b'"' => {
                        let (end, escaped) = scan_string(bytes, i + 1)?;
                        tape.push(Token::Str {
                            start: i + 1,
                            end,
                            escaped,
                        });
                        i = end + 1;
                    }
                    b't' => i = literal(bytes, i, b"true", Token::True, &mut tape)?,
                    b'f' => i = literal(bytes, i, b"false", Token::False, &mut tape)?,
                    b'n' => i = literal(bytes, i, b"null", Token::Null, &mut tape)?,
                    b'-' | b'0'..=b'9' => {
                        let end = scan_number(bytes, i)?;
                        tape.push(Token::Number { start: i, end });
                        i = end;
                    }
                    _ => return Err(CanonicalError::InvalidJson(i)),
                }
                expect = if open.is_empty() {
                    Expect::End
                } else {
                    Expect::CommaOrClose
                };
            }
            Expect::Key | Expect::KeyOrClose => {
                if byte != b'"' {
                    return Err(CanonicalError::InvalidJson(i));
                }
                let (end, escaped) = scan_string(bytes, i + 1)?;
                tape.push(Token::Str {
                    start: i + 1,
                    end,
                    escaped,
                });
                i = end + 1;
                expect = Expect::Colon;
            }
            Expect::Colon => {
                if byte != b':' {
                    return Err(CanonicalError::InvalidJson(i));
                }
                i += 1;
                expect = Expect::Value;
            }
            Expect::CommaOrClose => {
                if byte != b',' {
                    return Err(CanonicalError::InvalidJson(i));
                }
                i += 1;
                expect = match open.last() {
                    Some((_, true)) => Expect::Key,
                    _ => Expect::Value,
                };
            }
            Expect::End => return Err(CanonicalError::InvalidJson(i)),
        }
    }
}

fn skip_whitespace(bytes: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(i) {
        i += 1;
    }
    i
}

fn literal(
    bytes: &[u8],
    i: usize,
    word: &[u8],
    token: Token,
    tape: &mut Vec<Token>,
) -> Result<usize, CanonicalError> {
    if bytes.get(i..i + word.len()) == Some(word) {
        tape.push(token);
        Ok(i + word.len())
    } else {
        Err(CanonicalError::InvalidJson(i))
    }
}

/// Finds the closing quote of a string whose content starts at `i`; validates escapes.
fn scan_string(bytes: &[u8], mut i: usize) -> Result<(usize, bool), CanonicalError> {
    let mut escaped = false;
    loop {
        // Skip the plain run in one go: this is the hot loop for large strings.
        let rest = bytes.get(i..).unwrap_or_default();
        let plain = rest
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
            .ok_or(CanonicalError::InvalidJson(bytes.len()))?;
        i += plain;
        match bytes.get(i) {
            Some(b'"') => return Ok((i, escaped)),
            Some(b'\\') => {
                escaped = true;
                match bytes.get(i + 1) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                    Some(b'u') => {
                        let hex = bytes
                            .get(i + 2..i + 6)
                            .ok_or(CanonicalError::InvalidJson(i))?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return Err(CanonicalError::InvalidJson(i));
                        }
                        i += 6;
                    }
                    _ => return Err(CanonicalError::InvalidJson(i)),
                }
            }
            _ => return Err(CanonicalError::InvalidJson(i)),
        }
    }
}

/// Validates `-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?` from `i`; returns its end.
fn scan_number(bytes: &[u8], mut i: usize) -> Result<usize, CanonicalError> {
    let digits = |bytes: &[u8], mut i: usize| -> Result<usize, CanonicalError> {
        let start = i;
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            Err(CanonicalError::InvalidJson(i))
        } else {
            Ok(i)
        }
    };
    if bytes.get(i) == Some(&b'-') {
        i += 1;
    }
    if bytes.get(i) == Some(&b'0') {
        i += 1;
    } else {
        i = digits(bytes, i)?;
    }
    if bytes.get(i) == Some(&b'.') {
        i = digits(bytes, i + 1)?;
    }
    if let Some(b'e' | b'E') = bytes.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = bytes.get(i) {
            i += 1;
        }
        i = digits(bytes, i)?;
    }
    Ok(i)
}

/// An object member, with the key in the form the sort compares.
struct Member<'a> {
    key: Key<'a>,
    value: usize,
}

/// A decoded property key.
enum Key<'a> {
    /// A key without escapes, as it appears in the text.
    Plain(&'a str),
    /// A key that had escapes, decoded to UTF-16 code units.
    Decoded(Vec<u16>),
}

impl Key<'_> {
    /// The key as an array index ("0" … "4294967294"), which V8 orders first, numerically.
    fn array_index(&self) -> Option<u32> {
        match self {
            Key::Plain(text) => array_index(text.bytes().map(u16::from)),
            Key::Decoded(units) => array_index(units.iter().copied()),
        }
    }

    fn units(&self) -> KeyUnits<'_> {
        match self {
            Key::Plain(text) => KeyUnits::Plain(text.encode_utf16()),
            Key::Decoded(units) => KeyUnits::Decoded(units.iter()),
        }
    }

    /// `Array.prototype.sort`'s default order: UTF-16 code units.
    fn cmp_utf16(&self, other: &Self) -> Ordering {
        if let (Key::Plain(a), Key::Plain(b)) = (self, other) {
            // UTF-8 byte order equals UTF-16 order unless the first difference is non-ASCII.
            let first_diff = a.bytes().zip(b.bytes()).find(|(x, y)| x != y);
            match first_diff {
                None => return a.len().cmp(&b.len()),
                Some((x, y)) if x.is_ascii() && y.is_ascii() => return x.cmp(&y),
                Some(_) => {}
            }
        }
        self.units().cmp(other.units())
    }
}

/// Canonical decimal digits without a leading zero, at most 4294967294.
fn array_index(units: impl ExactSizeIterator<Item = u16>) -> Option<u32> {
    let len = units.len();
    if len == 0 || len > 10 {
        return None;
    }
    let mut value: u64 = 0;
    for (position, unit) in units.enumerate() {
        let digit = unit.checked_sub(u16::from(b'0')).filter(|d| *d <= 9)?;
        if position == 0 && digit == 0 && len > 1 {
            return None;
        }
        value = value * 10 + u64::from(digit);
    }
    u32::try_from(value).ok().filter(|&v| v != u32::MAX)
}

enum KeyUnits<'a> {
    Plain(std::str::EncodeUtf16<'a>),
    Decoded(std::slice::Iter<'a, u16>),
}

impl Iterator for KeyUnits<'_> {
    type Item = u16;
    fn next(&mut self) -> Option<u16> {
        match self {
            KeyUnits::Plain(iter) => iter.next(),
            KeyUnits::Decoded(iter) => iter.next().copied(),
        }
    }
}

/// The order of a key-sorted object's properties: array indices first,
/// ascending, then every other key in UTF-16 order.
fn key_order(a: &(Option<u32>, &Key<'_>), b: &(Option<u32>, &Key<'_>)) -> Ordering {
    match (a.0, b.0) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.1.cmp_utf16(b.1),
    }
}

/// The members of the object at `index`, in canonical order, later duplicates winning.
fn sorted_members<'a>(text: &'a str, tape: &[Token], index: usize, end: usize) -> Vec<Member<'a>> {
    let mut members: Vec<(Option<u32>, Member<'a>)> = Vec::new();
    let mut i = index + 1;
    while i < end {
        let key = match tape.get(i) {
            Some(&Token::Str {
                start,
                end,
                escaped,
            }) => {
                let raw = text.get(start..end).unwrap_or_default();
                if escaped {
                    Key::Decoded(decode_string(raw))
                } else {
                    Key::Plain(raw)
                }
            }
            // The parser only puts a `Str` in key position.
            _ => Key::Plain(""),
        };
        let value = i + 1;
        i = subtree_end(tape, value);
        members.push((key.array_index(), Member { key, value }));
    }
    // Stable sort keeps duplicates in text order; `JSON.parse` keeps the last.
    members.sort_by(|a, b| key_order(&(a.0, &a.1.key), &(b.0, &b.1.key)));
    let mut sorted: Vec<Member<'a>> = Vec::with_capacity(members.len());
    for (_, member) in members {
        if let Some(last) = sorted.last_mut() {
            if last.key.cmp_utf16(&member.key) == Ordering::Equal {
                *last = member;
                continue;
            }
        }
        sorted.push(member);
    }
    sorted
}

enum Frame<'a> {
    Array {
        next: usize,
        end: usize,
        first: bool,
    },
    Object {
        members: Vec<Member<'a>>,
        position: usize,
    },
}

fn emit(text: &str, tape: &[Token], sink: &mut impl Sink) {
    let mut stack: Vec<Frame<'_>> = Vec::new();
    let mut pending = Some(0);
    loop {
        if let Some(index) = pending.take() {
            match tape.get(index) {
                Some(Token::Null) | None => sink.write("null"),
                Some(Token::True) => sink.write("true"),
                Some(Token::False) => sink.write("false"),
                Some(&Token::Number { start, end }) => {
                    write_number(text.get(start..end).unwrap_or("0"), sink)
                }
                Some(&Token::Str {
                    start,
                    end,
                    escaped,
                }) => write_string_token(text.get(start..end).unwrap_or_default(), escaped, sink),
                Some(&Token::Array { end }) => {
                    sink.write("[");
                    stack.push(Frame::Array {
                        next: index + 1,
                        end,
                        first: true,
                    });
                }
                Some(&Token::Object { end }) => {
                    sink.write("{");
                    let members = sorted_members(text, tape, index, end);
                    stack.push(Frame::Object {
                        members,
                        position: 0,
                    });
                }
            }
        }
        let Some(frame) = stack.last_mut() else { break };
        match frame {
            Frame::Array { next, end, first } => {
                if *next >= *end {
                    sink.write("]");
                    stack.pop();
                } else {
                    if !*first {
                        sink.write(",");
                    }
                    *first = false;
                    pending = Some(*next);
                    *next = subtree_end(tape, *next);
                }
            }
            Frame::Object { members, position } => match members.get(*position) {
                None => {
                    sink.write("}");
                    stack.pop();
                }
                Some(member) => {
                    if *position > 0 {
                        sink.write(",");
                    }
                    match &member.key {
                        Key::Plain(raw) => write_string_token(raw, false, sink),
                        Key::Decoded(units) => write_string_literal(units, sink),
                    }
                    sink.write(":");
                    pending = Some(member.value);
                    *position += 1;
                }
            },
        }
    }
}

/// Writes a number token as `JSON.stringify` would print its value.
fn write_number(token: &str, sink: &mut impl Sink) {
    // Short integers other than -0 are already in canonical form.
    let digits = token.strip_prefix('-').unwrap_or(token);
    let short_integer =
        !digits.is_empty() && digits.len() <= 15 && digits.bytes().all(|b| b.is_ascii_digit());
    if short_integer && token != "-0" {
        sink.write(token);
        return;
    }
    let value: f64 = token.parse().unwrap_or(f64::NAN);
    if value.is_finite() {
        let mut out = String::new();
        write_js_number(value, &mut out);
        sink.write(&out);
    } else {
        sink.write("null");
    }
}

/// Writes a string token's canonical literal; unescaped content is already canonical.
fn write_string_token(raw: &str, escaped: bool, sink: &mut impl Sink) {
    if escaped {
        write_string_literal(&decode_string(raw), sink);
    } else {
        sink.write("\"");
        sink.write(raw);
        sink.write("\"");
    }
}

/// Decodes a validated string token's content to UTF-16 code units.
fn decode_string(raw: &str) -> Vec<u16> {
    let mut units = Vec::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(at) = rest.find('\\') {
        let (plain, escape) = rest.split_at(at);
        units.extend(plain.encode_utf16());
        let mut chars = escape.chars();
        chars.next();
        let unit = match chars.next() {
            Some('b') => 0x08,
            Some('f') => 0x0c,
            Some('n') => 0x0a,
            Some('r') => 0x0d,
            Some('t') => 0x09,
            Some('u') => {
                let hex = escape.get(2..6).unwrap_or("0");
                rest = escape.get(6..).unwrap_or_default();
                units.push(u16::from_str_radix(hex, 16).unwrap_or(0));
                continue;
            }
            Some(c) => c as u16,
            None => 0,
        };
        units.push(unit);
        rest = escape.get(2..).unwrap_or_default();
    }
    units.extend(rest.encode_utf16());
    units
}

/// Writes a JavaScript string as `JSON.stringify` does (lone surrogates as `\udxxx`).
pub fn write_string_literal(units: &[u16], sink: &mut impl Sink) {
    const FLUSH_AT: usize = 8192;
    let mut out = String::with_capacity(units.len().min(FLUSH_AT) + 8);
    out.push('"');
    for decoded in char::decode_utf16(units.iter().copied()) {
        match decoded {
            Ok('"') => out.push_str("\\\""),
            Ok('\\') => out.push_str("\\\\"),
            Ok('\u{08}') => out.push_str("\\b"),
            Ok('\u{0c}') => out.push_str("\\f"),
            Ok('\n') => out.push_str("\\n"),
            Ok('\r') => out.push_str("\\r"),
            Ok('\t') => out.push_str("\\t"),
            Ok(c) if (c as u32) < 0x20 => push_unicode_escape(c as u16, &mut out),
            Ok(c) => out.push(c),
            Err(lone) => push_unicode_escape(lone.unpaired_surrogate(), &mut out),
        }
        if out.len() >= FLUSH_AT {
            sink.write(&out);
            out.clear();
        }
    }
    out.push('"');
    sink.write(&out);
}

fn push_unicode_escape(unit: u16, out: &mut String) {
    use std::fmt::Write;
    let _ = write!(out, "\\u{unit:04x}");
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
