//! JSON text read into the transport's encoding (`transport`), which the
//! transport's reader then reads like any call the plugin writes: one reader
//! of a value, whatever form it came in. Anything `JSON.parse` rejects is an
//! error. Members keep their order (later duplicates win when the value is
//! walked), strings become code units, numbers the doubles `JSON.parse` reads.
//! An explicit stack of open containers: input depth never becomes Rust stack
//! depth.

use crate::error::CanonicalError;
use crate::form::{push_len, push_string};
use crate::transport::{tag, SIZE_BYTES};

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

/// Writes JSON text into `out` in the transport's encoding. `open` holds, for
/// each open container, where its size goes and whether it is an object;
/// `units` is a buffer for strings with escapes or past ASCII.
pub(crate) fn to_transport(
    bytes: &[u8],
    out: &mut Vec<u8>,
    open: &mut Vec<(usize, bool)>,
    units: &mut Vec<u16>,
) -> Result<(), CanonicalError> {
    out.clear();
    open.clear();
    let mut expect = Expect::Value;
    let mut i = 0;
    loop {
        i = skip_whitespace(bytes, i);
        let Some(&byte) = bytes.get(i) else {
            return if expect == Expect::End {
                Ok(())
            } else {
                Err(CanonicalError::InvalidJson(i))
            };
        };
        let closes = match (expect, byte) {
            (Expect::ValueOrClose, b']') | (Expect::KeyOrClose, b'}') => true,
            (Expect::CommaOrClose, b']' | b'}') => open.last().map(|o| o.1) == Some(byte == b'}'),
            _ => false,
        };
        if closes {
            // `open` is non-empty here: only container states can close.
            let Some((size_at, _)) = open.pop() else {
                return Err(CanonicalError::InvalidJson(i));
            };
            out.push(tag::END);
            let size = u32::try_from(out.len() - size_at - SIZE_BYTES)
                .map_err(|_| CanonicalError::InvalidJson(i))?;
            if let Some(slot) = out.get_mut(size_at..size_at + SIZE_BYTES) {
                slot.copy_from_slice(&size.to_le_bytes());
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
                    b'{' | b'[' => {
                        let object = byte == b'{';
                        out.push(if object { tag::OBJECT } else { tag::ARRAY });
                        open.push((out.len(), object));
                        out.extend([0; SIZE_BYTES]);
                        i += 1;
                        expect = if object {
                            Expect::KeyOrClose
                        } else {
                            Expect::ValueOrClose
                        };
                        continue;
                    }
                    b'"' => i = string(bytes, i, out, units)?,
                    b't' => i = literal(bytes, i, b"true", tag::TRUE, out)?,
                    b'f' => i = literal(bytes, i, b"false", tag::FALSE, out)?,
                    b'n' => i = literal(bytes, i, b"null", tag::NULL, out)?,
                    b'-' | b'0'..=b'9' => {
                        let end = scan_number(bytes, i)?;
                        // Validated above: Rust reads such text to the double JavaScript reads.
                        let text = std::str::from_utf8(bytes.get(i..end).unwrap_or_default());
                        let value: f64 = text.ok().and_then(|t| t.parse().ok()).unwrap_or(0.0);
                        out.push(tag::NUMBER);
                        out.extend(value.to_le_bytes());
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
                i = string(bytes, i, out, units)?;
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

/// Writes the string whose opening quote is at `i`, as code units; returns the index past its
/// closing quote.
fn string(
    bytes: &[u8],
    i: usize,
    out: &mut Vec<u8>,
    units: &mut Vec<u16>,
) -> Result<usize, CanonicalError> {
    let (end, escaped) = scan_string(bytes, i + 1)?;
    let raw = bytes.get(i + 1..end).unwrap_or_default();
    if !escaped && raw.is_ascii() {
        // Most strings: their bytes are their code units.
        push_len(out, tag::NARROW, raw.len());
        out.extend_from_slice(raw);
    } else {
        // Validated above: the text is UTF-8 and its escapes are well formed.
        let raw = std::str::from_utf8(raw).unwrap_or_default();
        units.clear();
        decode_string(raw, units);
        push_string(out, units);
    }
    Ok(end + 1)
}

/// Appends a validated JSON string's content, escapes decoded, to `units`.
fn decode_string(raw: &str, units: &mut Vec<u16>) {
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
    tag: u8,
    out: &mut Vec<u8>,
) -> Result<usize, CanonicalError> {
    if bytes.get(i..i + word.len()) == Some(word) {
        out.push(tag);
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
        let plain = plain_run(rest).ok_or(CanonicalError::InvalidJson(bytes.len()))?;
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

/// Length of the leading run of bytes that need no attention inside a string
/// (not `"`, `\` or a control character), or `None` if the text ends first.
/// Eight bytes at a time: the hot loop for large strings.
fn plain_run(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has_byte = |word: u64, byte: u8| {
        (word ^ (ONES * u64::from(byte))).wrapping_sub(ONES)
            & !(word ^ (ONES * u64::from(byte)))
            & HIGHS
    };
    let mut chunks = bytes.chunks_exact(8);
    let mut offset = 0;
    for chunk in chunks.by_ref() {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        // Bytes below 0x20: (b - 0x20) borrows into the high bit when b < 0x20 and b < 0x80.
        let control = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
        if has_byte(word, b'"') | has_byte(word, b'\\') | control != 0 {
            break;
        }
        offset += 8;
    }
    bytes
        .get(offset..)
        .unwrap_or_default()
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .map(|at| offset + at)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_run_stops_at_quotes_backslashes_and_controls() {
        for (text, expected) in [
            ("abc\"", Some(3)),
            ("0123456789abcdef\"", Some(16)),
            ("01234567\\", Some(8)),
            ("0123456\u{1f}", Some(7)),
            ("\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\"", Some(10)),
            (
                "\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}\"",
                Some(9),
            ),
            ("no end at all", None),
        ] {
            assert_eq!(plain_run(text.as_bytes()), expected, "{text:?}");
        }
    }
}
