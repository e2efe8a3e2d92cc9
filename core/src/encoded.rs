//! The flat encoding the plugin builds in JavaScript (`encode.js`): a value
//! in canonical order as a sequence of numbers, plus the UTF-16 code units of
//! every key and string value back to back. Walking plain objects in
//! JavaScript (sorting each object's few keys there) and lending Rust the
//! buffer beats `JSON.stringify`, which must escape every character and print
//! every number only for the text to be parsed again here; and since the value
//! arrives in canonical order, [`walk`] streams it to the digest or the text
//! writer in one pass, with no tape and no sorting.
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
//!
//! An object's members come in canonical order: array-index keys first,
//! numerically, then the others in UTF-16 order, each key once; members
//! without a JSON form are left out and array elements without one are
//! `null`, as `JSON.stringify` does. [`walk`] checks all of it, and every
//! count and length, so no input reads out of bounds, allocates more than its
//! own size, or passes for a value it is not.

use crate::canonical::CanonicalError;
use crate::tape::{Key, Scalar, Str, Visitor};

pub const NULL: f64 = 0.0;
pub const FALSE: f64 = 1.0;
pub const TRUE: f64 = 2.0;
pub const NUMBER: f64 = 3.0;
pub const STRING: f64 = 4.0;
pub const ARRAY: f64 = 5.0;
pub const OBJECT: f64 = 6.0;

/// An open container during [`walk`]: values still to read, and for an object
/// the span of the last key read, to check the next one comes after it.
#[derive(Debug)]
pub(crate) struct EncodedFrame {
    remaining: usize,
    object: bool,
    first: bool,
    last_key: (usize, usize),
}

/// Walks the encoded value with `visitor`. Iterative: input depth never
/// becomes Rust stack depth.
pub(crate) fn walk(
    ops: &[f64],
    units: &[u16],
    frames: &mut Vec<EncodedFrame>,
    visitor: &mut impl Visitor,
) -> Result<(), CanonicalError> {
    let invalid = CanonicalError::InvalidEncoding;
    // A whole number from 0 to `limit`: the round trip holds only for whole
    // numbers, and NaN fails every comparison. Through i64, whose conversions
    // are single instructions on x86-64 where usize's are not: both `limit` (a
    // slice length) and an accepted `v` are below 2^63, so nothing saturates
    // and -0 is 0, exactly as through usize.
    let length = |at: usize, limit: usize| match ops.get(at) {
        Some(&v) if v >= 0.0 && v <= limit as i64 as f64 && (v as i64) as f64 == v => {
            Ok(v as i64 as usize)
        }
        _ => Err(invalid(at)),
    };
    frames.clear();
    let mut at = 0;
    let mut chars = 0;
    loop {
        let tag = *ops.get(at).ok_or(invalid(at))?;
        at += 1;
        if tag == NULL {
            visitor.scalar(Scalar::Null);
        } else if tag == FALSE || tag == TRUE {
            visitor.scalar(Scalar::Bool(tag == TRUE));
        } else if tag == NUMBER {
            visitor.scalar(Scalar::Number(*ops.get(at).ok_or(invalid(at))?));
            at += 1;
        } else if tag == STRING {
            let len = length(at, units.len() - chars)?;
            at += 1;
            let text = units.get(chars..chars + len).unwrap_or_default();
            visitor.scalar(Scalar::Str(Str::Units(text)));
            chars += len;
        } else if tag == ARRAY || tag == OBJECT {
            let object = tag == OBJECT;
            // Each element takes at least one op, each member at least two.
            let per_value = if object { 2 } else { 1 };
            let len = length(at, ops.len().saturating_sub(at + 1) / per_value)?;
            at += 1;
            if object {
                visitor.open_object(len);
            } else {
                visitor.open_array(len);
            }
            frames.push(EncodedFrame {
                remaining: len,
                object,
                first: true,
                last_key: (0, 0),
            });
        } else {
            return Err(invalid(at - 1));
        }
        // Close what is complete, then move to the next element or member.
        loop {
            let Some(frame) = frames.last_mut() else {
                return if at == ops.len() && chars == units.len() {
                    Ok(())
                } else {
                    Err(invalid(at))
                };
            };
            if frame.remaining == 0 {
                if frame.object {
                    visitor.close_object();
                } else {
                    visitor.close_array();
                }
                frames.pop();
                continue;
            }
            frame.remaining -= 1;
            if frame.object {
                let len = length(at, units.len() - chars)?;
                let key = units.get(chars..chars + len).unwrap_or_default();
                let (start, end) = frame.last_key;
                let last = units.get(start..end).unwrap_or_default();
                if !frame.first && Key::Units(last).canonical_cmp(&Key::Units(key)).is_ge() {
                    return Err(invalid(at));
                }
                visitor.key(&Key::Units(key), frame.first);
                frame.last_key = (chars, chars + len);
                chars += len;
                at += 1;
            } else if !frame.first {
                visitor.element_separator();
            }
            frame.first = false;
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::Arguments;

    fn canonical(ops: &[f64], chars: &str) -> Result<String, CanonicalError> {
        let units: Vec<u16> = chars.encode_utf16().collect();
        let mut text = String::new();
        Arguments::Encoded { ops, units: &units }.write_canonical(&mut text)?;
        Ok(text)
    }

    #[test]
    fn rejects_malformed_encodings() {
        for (ops, chars) in [
            (&[][..], ""),
            (&[9.0], ""),
            (&[7.0], ""),
            (&[1.5], ""),
            (&[NULL, NULL], ""),
            (&[NUMBER], ""),
            (&[STRING, 3.0], "ab"),
            (&[STRING, -1.0], "ab"),
            (&[STRING, 1.0], "ab"),
            (&[STRING, 2.0], "abc"),
            (&[ARRAY], ""),
            (&[ARRAY, 2.0, NULL], ""),
            (&[ARRAY, f64::NAN], ""),
            (&[ARRAY, f64::INFINITY], ""),
            (&[ARRAY, 1e300, NULL], ""),
            (&[OBJECT], ""),
            (&[OBJECT, 1.0, 3.0, NULL], "ab"),
            (&[OBJECT, 1.0, 2.0], "ab"),
            (&[OBJECT, 2.0, 2.0, NULL], "ab"),
            // Members out of canonical order, or a key twice.
            (&[OBJECT, 2.0, 1.0, NULL, 1.0, NULL], "ba"),
            (&[OBJECT, 2.0, 1.0, NULL, 1.0, NULL], "aa"),
            (&[OBJECT, 2.0, 1.0, NULL, 1.0, NULL], "a1"),
            (&[OBJECT, 2.0, 2.0, NULL, 1.0, NULL], "109"),
        ] {
            assert!(
                canonical(ops, chars).is_err(),
                "{ops:?} {chars:?} should be rejected"
            );
        }
    }

    #[test]
    fn streams_a_value_in_canonical_order() {
        // {"9": true, "10": "x", "b": [1.5, null, {}], "é": 0}
        let ops = [
            OBJECT, 4.0, //
            1.0, TRUE, //
            2.0, STRING, 1.0, //
            1.0, ARRAY, 3.0, NUMBER, 1.5, NULL, OBJECT, 0.0, //
            1.0, NUMBER, 0.0,
        ];
        assert_eq!(
            canonical(&ops, "910xbé"),
            Ok("{\"9\":true,\"10\":\"x\",\"b\":[1.5,null,{}],\"é\":0}".to_owned())
        );
    }

    #[test]
    fn deep_nesting_is_walked_without_recursion() {
        let depth = 200_000;
        let mut ops = Vec::with_capacity(depth * 2 + 1);
        for _ in 0..depth {
            ops.extend([ARRAY, 1.0]);
        }
        ops.push(NULL);
        let text = canonical(&ops, "").unwrap();
        assert_eq!(text.len(), depth * 2 + 4);
    }
}
