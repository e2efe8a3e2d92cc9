//! The flat encoding the plugin builds in JavaScript (`encode.js`): a value
//! as a sequence of numbers plus one string holding every key and string value
//! back to back. Walking plain objects in JavaScript and copying one string
//! into Rust beats `JSON.stringify`, which must escape every character and
//! print every number only for the text to be parsed again here.
//!
//! `ops`, in prefix order:
//!
//! | op | then | value |
//! | --- | --- | --- |
//! | 0 | | `null` |
//! | 1 | | `false` |
//! | 2 | | `true` |
//! | 3 | the number | a number |
//! | 4 | length | a string: the next `length` code units of the characters |
//! | 5 | length | an array of `length` values |
//! | 6 | count | an object: `count` × (key length, value) |
//! | 7 | | no JSON form (`undefined`, a function, a symbol) |

use crate::canonical::CanonicalError;
use crate::tape::{Open, Token};

pub const NULL: f64 = 0.0;
pub const FALSE: f64 = 1.0;
pub const TRUE: f64 = 2.0;
pub const NUMBER: f64 = 3.0;
pub const STRING: f64 = 4.0;
pub const ARRAY: f64 = 5.0;
pub const OBJECT: f64 = 6.0;
pub const ABSENT: f64 = 7.0;

/// Builds the tape for `ops` over a character buffer of `units_len` code units.
/// Every count and length is checked against what is left, so no input can
/// make it read out of bounds or allocate more than the input's size.
pub(crate) fn decode(
    ops: &[f64],
    units_len: usize,
    tokens: &mut Vec<Token>,
    open: &mut Vec<Open>,
) -> Result<(), CanonicalError> {
    let invalid = |at: usize| CanonicalError::InvalidEncoding(at);
    tokens.clear();
    // Open containers; `count` is values still to read.
    open.clear();
    let mut at = 0;
    let mut chars = 0;
    let next_op = |at: &mut usize| {
        let op = ops.get(*at).copied();
        *at += 1;
        op
    };
    // A length is a whole number no larger than `limit`.
    let length = |value: Option<f64>, limit: usize, at: usize| match value {
        // `as` saturates (NaN becomes 0), so the round trip holds only for whole numbers in range.
        Some(v) if v <= limit as f64 && (v as usize) as f64 == v => Ok(v as usize),
        _ => Err(invalid(at)),
    };
    loop {
        // Close every container whose values are all read.
        while let Some(top) = open.last() {
            if top.count > 0 {
                break;
            }
            let end = tokens.len();
            match tokens.get_mut(top.index) {
                Some(Token::Array { end: e, .. } | Token::Object { end: e }) => *e = end,
                _ => return Err(invalid(at)),
            }
            open.pop();
        }
        match open.last_mut() {
            None if !tokens.is_empty() => break,
            None => {}
            Some(top) => {
                top.count -= 1;
                if top.object {
                    let len = length(next_op(&mut at), units_len - chars, at)?;
                    tokens.push(Token::Utf16Str {
                        start: chars,
                        end: chars + len,
                    });
                    chars += len;
                }
            }
        }
        let op = next_op(&mut at).ok_or(invalid(at))?;
        let token = if op == NULL {
            Token::Null
        } else if op == FALSE {
            Token::False
        } else if op == TRUE {
            Token::True
        } else if op == NUMBER {
            Token::Number(next_op(&mut at).ok_or(invalid(at))?)
        } else if op == STRING {
            let len = length(next_op(&mut at), units_len - chars, at)?;
            chars += len;
            Token::Utf16Str {
                start: chars - len,
                end: chars,
            }
        } else if op == ARRAY || op == OBJECT {
            // Each value takes at least one op, each member at least two.
            let object = op == OBJECT;
            let per_value = if object { 2 } else { 1 };
            let len = length(
                next_op(&mut at),
                ops.len().saturating_sub(at) / per_value,
                at,
            )?;
            open.push(Open {
                index: tokens.len(),
                object,
                count: len,
            });
            if object {
                Token::Object { end: 0 }
            } else {
                Token::Array { end: 0, len }
            }
        } else if op == ABSENT && !open.is_empty() {
            Token::Absent
        } else {
            return Err(invalid(at));
        };
        tokens.push(token);
    }
    if at != ops.len() || chars != units_len {
        return Err(invalid(at));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_malformed_encodings() {
        let units: Vec<u16> = "ab".encode_utf16().collect();
        for ops in [
            &[][..],
            &[9.0],
            &[1.5],
            &[STRING, 3.0],
            &[STRING, -1.0],
            &[STRING, 1.0],
            &[ARRAY, 2.0, NULL],
            &[OBJECT, 1.0, 2.0],
            &[OBJECT, 1.0, 3.0, NULL],
            &[NULL, NULL],
            &[NUMBER],
            &[ARRAY, f64::NAN],
            &[ARRAY, f64::INFINITY],
            &[ABSENT],
        ] {
            let len = if ops.first() == Some(&STRING) || ops.first() == Some(&OBJECT) {
                2
            } else {
                0
            };
            let (mut tokens, mut open) = (Vec::new(), Vec::new());
            assert!(
                decode(ops, len, &mut tokens, &mut open).is_err(),
                "{ops:?} should be rejected"
            );
            assert!(
                decode(ops, units.len() + 5, &mut tokens, &mut open).is_err(),
                "{ops:?} with spare characters"
            );
        }
    }

    #[test]
    fn accepts_nested_values() {
        // {"ab": [null, 1]}
        let (mut tokens, mut open) = (Vec::new(), Vec::new());
        decode(
            &[OBJECT, 1.0, 2.0, ARRAY, 2.0, NULL, NUMBER, 1.0],
            2,
            &mut tokens,
            &mut open,
        )
        .unwrap();
        assert_eq!(tokens.len(), 5);
    }
}
