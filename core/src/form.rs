//! The key form: an unambiguous binary form of one call, the tool name and
//! then the canonical arguments, which the chain keeps (short forms) or
//! hashes ([`crate::digest`]). The plugin's `encode.js` writes it directly
//! from the parsed arguments, so the hot path only compares or hashes bytes;
//! the class path writes the same bytes from JSON text ([`crate::digest`]'s
//! digester). `walk` reads a form back, checking all of it, for the
//! detailed reminder's canonical text.
//!
//! | tag | then | value |
//! | --- | --- | --- |
//! | [`NULL`], [`FALSE`], [`TRUE`] | | `null`, `false`, `true` |
//! | [`NUMBER`] | 8 bytes, IEEE-754 little-endian, -0 as 0 | a finite number (others are `null`, as in JSON) |
//! | [`NARROW`] | length, one byte per code unit | a string whose UTF-16 code units are all at most 0xff |
//! | [`WIDE`] | length, two bytes per code unit, little-endian | any other string |
//! | [`ARRAY`] | values, [`END`] | an array |
//! | [`OBJECT`] | (key string, value) pairs, [`END`] | an object, members in canonical order |
//! | [`TOOL`] | a string | the tool name, first in every form |
//!
//! Lengths count code units in LEB128 (seven bits a byte, the high bit set on
//! all but the last), so short strings take one length byte. No tag is both a
//! value and [`END`], and every length precedes its contents, so the code is
//! prefix-free: two calls have the same form exactly when their tool names and
//! canonical texts are equal.

use crate::canonical::CanonicalError;
use crate::tape::{Key, Scalar, Str, Visitor};

pub const NULL: u8 = 0;
pub const FALSE: u8 = 1;
pub const TRUE: u8 = 2;
pub const NUMBER: u8 = 3;
pub const NARROW: u8 = 4;
pub const WIDE: u8 = 5;
pub const ARRAY: u8 = 6;
pub const OBJECT: u8 = 7;
pub const TOOL: u8 = 8;
pub const END: u8 = 9;

/// Whether two byte strings are equal, compared here a word at a time. For
/// the short keys and prefixes of the hot path this takes fewer instructions
/// than a call to libc's `memcmp` (what `==` on slices becomes), whose code is
/// large for what a key of a few dozen bytes needs.
#[inline]
pub fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 8 {
        return a.iter().zip(b).fold(0, |diff, (x, y)| diff | (x ^ y)) == 0;
    }
    let word = |s: &[u8], at: usize| {
        u64::from_ne_bytes(
            s.get(at..at + 8)
                .and_then(|w| w.try_into().ok())
                .unwrap_or_default(),
        )
    };
    let mut at = 0;
    while at + 8 < n {
        if word(a, at) != word(b, at) {
            return false;
        }
        at += 8;
    }
    // The last eight bytes, overlapping the word before when `n` is not a multiple of 8.
    word(a, n - 8) == word(b, n - 8)
}

/// [`same`] for strings of UTF-16 code units (agent ids), four units a word.
#[inline]
pub fn same_units(a: &[u16], b: &[u16]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 4 {
        return a.iter().zip(b).fold(0, |diff, (x, y)| diff | (x ^ y)) == 0;
    }
    let word = |s: &[u16], at: usize| {
        s.get(at..)
            .and_then(|rest| rest.first_chunk::<4>())
            .map_or(0, |&[u0, u1, u2, u3]| {
                u64::from(u0) | u64::from(u1) << 16 | u64::from(u2) << 32 | u64::from(u3) << 48
            })
    };
    let mut at = 0;
    while at + 4 < n {
        if word(a, at) != word(b, at) {
            return false;
        }
        at += 4;
    }
    // The last four units, overlapping the word before when `n` is not a multiple of 4.
    word(a, n - 4) == word(b, n - 4)
}

/// Appends `tag` and `len` in LEB128.
pub fn push_len(out: &mut Vec<u8>, tag: u8, len: usize) {
    out.push(tag);
    let mut rest = len as u64;
    while rest >= 0x80 {
        out.push((rest & 0x7f) as u8 | 0x80);
        rest >>= 7;
    }
    out.push(rest as u8);
}

/// Appends the form of a string of UTF-16 code units.
pub fn push_string(out: &mut Vec<u8>, units: &[u16]) {
    // A fold, not `all`: with no early exit it vectorizes, which a long string needs.
    let narrow = units.iter().fold(0, |all, &unit| all | unit) <= 0xff;
    push_len(out, if narrow { NARROW } else { WIDE }, units.len());
    let start = out.len();
    if narrow {
        out.resize(start + units.len(), 0);
        for (out, &unit) in out
            .get_mut(start..)
            .unwrap_or_default()
            .iter_mut()
            .zip(units)
        {
            // Every unit fits in a byte here.
            *out = unit as u8;
        }
    } else {
        out.resize(start + 2 * units.len(), 0);
        let body = out
            .get_mut(start..)
            .unwrap_or_default()
            .as_chunks_mut::<2>()
            .0;
        for (out, unit) in body.iter_mut().zip(units) {
            *out = unit.to_le_bytes();
        }
    }
}

/// A string read from a form: its code units, one or two bytes each.
#[derive(Clone, Copy, Debug)]
pub struct FormStr<'a> {
    wide: bool,
    bytes: &'a [u8],
}

impl FormStr<'_> {
    /// The code units.
    pub fn units(&self) -> impl Iterator<Item = u16> + '_ {
        let step = if self.wide { 2 } else { 1 };
        self.bytes.chunks(step).map(|unit| match unit {
            [low, high] => u16::from_le_bytes([*low, *high]),
            [byte] => u16::from(*byte),
            _ => 0,
        })
    }

    /// The code units into `out`, replacing what it held; lone surrogates stay as they are.
    pub fn to_units(&self, out: &mut Vec<u16>) {
        out.clear();
        if self.wide {
            out.extend(self.units());
        } else {
            out.extend(self.bytes.iter().map(|&byte| u16::from(byte)));
        }
    }
}

/// A length from `at` and where it ends: LEB128 as the writers write it, in
/// as few bytes as it takes (so a length has one form) and at most nine (a
/// length is at most `limit`, a slice length, below 2^63).
fn read_len(form: &[u8], at: usize, limit: usize) -> Result<(usize, usize), CanonicalError> {
    let mut value = 0u64;
    for (i, &byte) in form
        .get(at..)
        .unwrap_or_default()
        .iter()
        .take(9)
        .enumerate()
    {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            return match usize::try_from(value) {
                Ok(len) if len <= limit && (byte != 0 || i == 0) => Ok((len, at + i + 1)),
                _ => Err(CanonicalError::InvalidEncoding(at)),
            };
        }
    }
    Err(CanonicalError::InvalidEncoding(at))
}

/// The string whose tag is at `at`, and where it ends.
pub fn read_string(form: &[u8], at: usize) -> Result<(FormStr<'_>, usize), CanonicalError> {
    let wide = match form.get(at) {
        Some(&NARROW) => false,
        Some(&WIDE) => true,
        _ => return Err(CanonicalError::InvalidEncoding(at)),
    };
    let (len, start) = read_len(form, at + 1, form.len())?;
    let end = len
        .checked_mul(if wide { 2 } else { 1 })
        .and_then(|size| size.checked_add(start))
        .filter(|&end| end <= form.len())
        .ok_or(CanonicalError::InvalidEncoding(at))?;
    let bytes = form.get(start..end).unwrap_or_default();
    // A wide string whose units all fit in a byte has a narrow form: only that one is canonical.
    if wide && bytes.chunks(2).all(|unit| unit.get(1) == Some(&0)) {
        return Err(CanonicalError::InvalidEncoding(at));
    }
    Ok((FormStr { wide, bytes }, end))
}

/// An open container during [`walk`]: whether it is an object, whether a
/// value was read in it yet, and for an object the last key read.
#[derive(Debug, Default)]
pub(crate) struct FormFrame {
    object: bool,
    first: bool,
    last_key: Vec<u16>,
}

/// Walks the arguments' form (a key form past its tool name) with `visitor`,
/// checking every tag and length, that members come in canonical order with
/// no key twice, that every container is closed, and that nothing trails.
/// Iterative: input depth never becomes Rust stack depth.
pub(crate) fn walk(
    form: &[u8],
    frames: &mut Vec<FormFrame>,
    units: &mut Vec<u16>,
    visitor: &mut impl Visitor,
) -> Result<(), CanonicalError> {
    let invalid = CanonicalError::InvalidEncoding;
    frames.clear();
    let mut at = 0;
    loop {
        // Close what ends here, then read a key if the value is a member's.
        if let Some(frame) = frames.last_mut() {
            if form.get(at) == Some(&END) {
                at += 1;
                if frame.object {
                    visitor.close_object();
                } else {
                    visitor.close_array();
                }
                frames.pop();
                if frames.is_empty() {
                    return if at == form.len() {
                        Ok(())
                    } else {
                        Err(invalid(at))
                    };
                }
                continue;
            }
            if frame.object {
                let (key, end) = read_string(form, at)?;
                units.clear();
                units.extend(key.units());
                if !frame.first
                    && Key::Units(&frame.last_key)
                        .canonical_cmp(&Key::Units(units))
                        .is_ge()
                {
                    return Err(invalid(at));
                }
                visitor.key(&Key::Units(units), frame.first);
                std::mem::swap(&mut frame.last_key, units);
                at = end;
            } else if !frame.first {
                visitor.element_separator();
            }
            frame.first = false;
        }
        let tag = *form.get(at).ok_or(invalid(at))?;
        at = match tag {
            NULL => {
                visitor.scalar(Scalar::Null);
                at + 1
            }
            FALSE | TRUE => {
                visitor.scalar(Scalar::Bool(tag == TRUE));
                at + 1
            }
            NUMBER => {
                let bits = form
                    .get(at + 1..)
                    .and_then(|rest| rest.first_chunk::<8>())
                    .ok_or(invalid(at))?;
                let value = f64::from_le_bytes(*bits);
                // Only what the writers write: finite, and 0 rather than -0.
                if !value.is_finite() || (value == 0.0 && value.is_sign_negative()) {
                    return Err(invalid(at));
                }
                visitor.scalar(Scalar::Number(value));
                at + 9
            }
            NARROW | WIDE => {
                let (text, end) = read_string(form, at)?;
                units.clear();
                units.extend(text.units());
                visitor.scalar(Scalar::Str(Str::Units(units)));
                end
            }
            ARRAY | OBJECT => {
                let object = tag == OBJECT;
                if object {
                    visitor.open_object();
                } else {
                    visitor.open_array();
                }
                frames.push(FormFrame {
                    object,
                    first: true,
                    last_key: Vec::new(),
                });
                at += 1;
                continue;
            }
            _ => return Err(invalid(at)),
        };
        if frames.is_empty() {
            return if at == form.len() {
                Ok(())
            } else {
                Err(invalid(at))
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::Arguments;

    #[test]
    fn same_compares_every_byte() {
        for n in 0..40usize {
            let a: Vec<u8> = (0..n as u8).map(|i| i.wrapping_mul(37)).collect();
            assert!(same(&a, &a.clone()), "{n} bytes");
            if n > 0 {
                assert!(!same(&a, &a[..n - 1]), "{n} bytes against {}", n - 1);
            }
            for at in 0..n {
                let mut b = a.clone();
                b[at] ^= 0x80;
                assert!(!same(&a, &b), "{n} bytes, differing at {at}");
            }
        }
    }

    #[test]
    fn same_units_compares_every_unit() {
        for n in 0..24usize {
            let a: Vec<u16> = (0..n as u16).map(|i| i.wrapping_mul(0x9e37)).collect();
            assert!(same_units(&a, &a.clone()), "{n} units");
            if n > 0 {
                assert!(!same_units(&a, &a[..n - 1]), "{n} units against {}", n - 1);
            }
            for at in 0..n {
                for flip in [0x0001, 0x0100, 0x8000] {
                    let mut b = a.clone();
                    b[at] ^= flip;
                    assert!(
                        !same_units(&a, &b),
                        "{n} units, differing at {at} by {flip:#x}"
                    );
                }
            }
        }
    }

    /// The canonical text of an arguments form.
    fn canonical(arguments: &[u8]) -> Result<String, CanonicalError> {
        let mut key = vec![TOOL, NARROW, 1, b't'];
        key.extend_from_slice(arguments);
        let mut text = String::new();
        Arguments::Form {
            key: &key,
            arguments_at: 4,
        }
        .write_canonical(&mut text)?;
        Ok(text)
    }

    fn number(value: f64) -> Vec<u8> {
        let mut out = vec![NUMBER];
        out.extend(value.to_le_bytes());
        out
    }

    #[test]
    fn reads_a_value_in_canonical_order_back_as_text() {
        // {"9": true, "10": "x", "b": [1.5, null, {}], "é": "😀"}
        let mut form = vec![OBJECT, NARROW, 1, b'9', TRUE, NARROW, 2, b'1', b'0'];
        form.extend([NARROW, 1, b'x', NARROW, 1, b'b', ARRAY]);
        form.extend(number(1.5));
        form.extend([NULL, OBJECT, END, END, NARROW, 1, 0xe9]);
        push_string(&mut form, &"😀".encode_utf16().collect::<Vec<_>>());
        form.push(END);
        assert_eq!(
            canonical(&form),
            Ok("{\"9\":true,\"10\":\"x\",\"b\":[1.5,null,{}],\"é\":\"😀\"}".to_owned())
        );
    }

    #[test]
    fn rejects_malformed_forms() {
        let wide_a = [WIDE, 1, b'a', 0];
        for form in [
            &[][..],
            &[10],
            &[END],
            &[NULL, NULL],
            &[NUMBER, 0, 0],
            &[NARROW, 3, b'a', b'b'],
            &[NARROW, 0x80],
            &[
                NARROW, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1,
            ],
            &wide_a,
            &[ARRAY, NULL],
            &[ARRAY, END, END],
            &[OBJECT, NULL, END],
            &[OBJECT, NARROW, 1, b'a', END],
            // Members out of canonical order, or a key twice.
            &[OBJECT, NARROW, 1, b'b', NULL, NARROW, 1, b'a', NULL, END],
            &[OBJECT, NARROW, 1, b'a', NULL, NARROW, 1, b'a', NULL, END],
            &[OBJECT, NARROW, 1, b'a', NULL, NARROW, 1, b'1', NULL, END],
            &[
                OBJECT, NARROW, 2, b'1', b'0', NULL, NARROW, 1, b'9', NULL, END,
            ],
            &number(-0.0),
            &number(f64::NAN),
            &number(f64::INFINITY),
        ] {
            assert!(canonical(form).is_err(), "{form:?} should be rejected");
        }
    }

    #[test]
    fn deep_nesting_is_walked_without_recursion() {
        let depth = 200_000;
        let mut form = vec![ARRAY; depth];
        form.push(NULL);
        form.extend(std::iter::repeat_n(END, depth));
        assert_eq!(canonical(&form).unwrap().len(), depth * 2 + 4);
    }

    #[test]
    fn strings_take_their_narrow_form_when_they_can() {
        let mut out = Vec::new();
        push_string(&mut out, &[0x61, 0xff]);
        assert_eq!(out, [NARROW, 2, 0x61, 0xff]);
        out.clear();
        push_string(&mut out, &[0x61, 0x100]);
        assert_eq!(out, [WIDE, 2, 0x61, 0, 0, 1]);
        out.clear();
        push_string(&mut out, &[b'x'.into(); 300]);
        assert_eq!(out.get(..3), Some(&[NARROW, 0xac, 0x02][..]));
        let (text, end) = read_string(&out, 0).unwrap();
        assert_eq!((text.units().count(), end), (300, out.len()));
    }
}
