//! JSON text read onto a tape (`tape`): anything `JSON.parse` rejects is an
//! error. An explicit stack of open containers: input depth never becomes
//! Rust stack depth.

use crate::error::CanonicalError;
use crate::tape::{Open, Token};

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

/// Parses JSON text into `tape`, each container's token recording where its subtree ends.
pub(crate) fn parse(
    bytes: &[u8],
    tape: &mut Vec<Token>,
    open: &mut Vec<Open>,
) -> Result<(), CanonicalError> {
    tape.clear();
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
            (Expect::CommaOrClose, b']' | b'}') => {
                open.last().map(|o| o.object) == Some(byte == b'}')
            }
            _ => false,
        };
        if closes {
            // `open` is non-empty here: only container states can close.
            let Some(Open { index, .. }) = open.pop() else {
                return Err(CanonicalError::InvalidJson(i));
            };
            let tape_end = tape.len();
            if let Some(Token::Array { end } | Token::Object { end }) = tape.get_mut(index) {
                *end = tape_end;
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
                        open.push(Open {
                            index: tape.len(),
                            object: true,
                            end: 0,
                        });
                        tape.push(Token::Object { end: 0 });
                        i += 1;
                        expect = Expect::KeyOrClose;
                        continue;
                    }
                    b'[' => {
                        open.push(Open {
                            index: tape.len(),
                            object: false,
                            end: 0,
                        });
                        tape.push(Token::Array { end: 0 });
                        i += 1;
                        expect = Expect::ValueOrClose;
                        continue;
                    }
                    b'"' => i = string_token(bytes, i, tape)?,
                    b't' => i = literal(bytes, i, b"true", Token::True, tape)?,
                    b'f' => i = literal(bytes, i, b"false", Token::False, tape)?,
                    b'n' => i = literal(bytes, i, b"null", Token::Null, tape)?,
                    b'-' | b'0'..=b'9' => {
                        let end = scan_number(bytes, i)?;
                        tape.push(Token::NumberText { start: i, end });
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
                i = string_token(bytes, i, tape)?;
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
                    Some(Open { object: true, .. }) => Expect::Key,
                    _ => Expect::Value,
                };
            }
            Expect::End => return Err(CanonicalError::InvalidJson(i)),
        }
    }
}

/// Pushes the string whose opening quote is at `i`; returns the index past its closing quote.
fn string_token(bytes: &[u8], i: usize, tape: &mut Vec<Token>) -> Result<usize, CanonicalError> {
    let (end, escaped) = scan_string(bytes, i + 1)?;
    tape.push(Token::JsonStr {
        start: i + 1,
        end,
        escaped,
    });
    Ok(end + 1)
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
