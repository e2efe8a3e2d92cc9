//! The key form: an unambiguous binary form of one call, the tool name and
//! then the canonical arguments, which the chain hashes (`key`), and which
//! the canonical text is read off. `key_form` writes it from a transport. Its
//! strings are also the transport's (`transport`), so those bytes are copied
//! as they are.
//!
//! | tag | then | value |
//! | --- | --- | --- |
//! | [`tag::NULL`], [`tag::FALSE`], [`tag::TRUE`] | | `null`, `false`, `true` |
//! | [`tag::NUMBER`] | 8 bytes, IEEE-754 little-endian, -0 as 0 | a finite number (others are `null`, as in JSON) |
//! | [`tag::NARROW`] | length, one byte per code unit | a string whose UTF-16 code units are all at most 0xff |
//! | [`tag::WIDE`] | length, two bytes per code unit, little-endian | any other string |
//! | [`tag::ARRAY`] | values, [`tag::END`] | an array |
//! | [`tag::OBJECT`] | (key string, value) pairs, [`tag::END`] | an object, members in canonical order |
//! | [`tag::TOOL`] | a string | the tool name, first in every form |
//!
//! Lengths count code units in LEB128 (seven bits a byte, the high bit set on
//! all but the last), so short strings take one length byte. No tag is both a
//! value and [`tag::END`], and every length precedes its contents, so the code is
//! prefix-free: two calls have the same form exactly when their tool names and
//! canonical texts are equal.

use std::cmp::Ordering;

use crate::error::CanonicalError;

/// The tags, one byte each.
pub mod tag {
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
}

use tag::{NARROW, WIDE};

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
    let narrow = all_narrow(units);
    push_len(out, if narrow { NARROW } else { WIDE }, units.len());
    push_units(out, units, narrow);
}

/// Whether every code unit fits in a byte: the string's form is then [`NARROW`].
pub(crate) fn all_narrow(units: &[u16]) -> bool {
    // A fold, not `all`: with no early exit it vectorizes, which a long string needs.
    units.iter().fold(0, |all, &unit| all | unit) <= 0xff
}

/// Appends code units as a form's string holds them: one byte each when `narrow` (every unit
/// fits in one), else two, little-endian.
pub(crate) fn push_units(out: &mut Vec<u8>, units: &[u16], narrow: bool) {
    let start = out.len();
    if narrow {
        // Every unit fits in a byte here. Extended, not zero-filled and then written over.
        out.extend(units.iter().map(|&unit| unit as u8));
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

/// A string of a form or of a transport, which write strings alike: its code units, one byte
/// each or two (little-endian, with one past 0xff), and what its readers ask of them.
#[derive(Clone, Copy, Debug)]
pub struct FormStr<'a> {
    pub(crate) wide: bool,
    pub(crate) bytes: &'a [u8],
}

impl<'a> FormStr<'a> {
    /// How many code units it has.
    pub(crate) fn len(self) -> usize {
        self.bytes.len() >> usize::from(self.wide)
    }

    /// Its tag in a form: [`tag::WIDE`] or [`tag::NARROW`].
    pub(crate) fn tag(self) -> u8 {
        if self.wide {
            WIDE
        } else {
            NARROW
        }
    }

    /// The code units.
    pub fn units(self) -> impl Iterator<Item = u16> + 'a {
        let (narrow, wide) = if self.wide {
            (&[][..], self.bytes)
        } else {
            (self.bytes, &[][..])
        };
        // One of the two is empty.
        let wide = wide
            .as_chunks::<2>()
            .0
            .iter()
            .map(|pair| u16::from_le_bytes(*pair));
        narrow.iter().map(|&byte| u16::from(byte)).chain(wide)
    }

    /// UTF-16 code-unit order.
    pub(crate) fn cmp(self, other: Self) -> Ordering {
        match (self.wide, other.wide) {
            // Bytes that are code units order as the units do.
            (false, false) => self.bytes.cmp(other.bytes),
            _ => self.units().cmp(other.units()),
        }
    }

    /// Whether it is `name`.
    pub(crate) fn is(self, name: &[u16]) -> bool {
        self.len() == name.len() && self.units().eq(name.iter().copied())
    }

    /// The string as an array index ("0" … "4294967294"), which V8 orders first.
    pub(crate) fn array_index(self) -> Option<u32> {
        let len = self.len();
        if len == 0 || len > 10 {
            return None;
        }
        let mut value: u64 = 0;
        for (position, unit) in self.units().enumerate() {
            let digit = unit.checked_sub(u16::from(b'0')).filter(|d| *d <= 9)?;
            if position == 0 && digit == 0 && len > 1 {
                return None;
            }
            value = value * 10 + u64::from(digit);
        }
        u32::try_from(value).ok().filter(|&v| v != u32::MAX)
    }

    /// Its code units as bytes, when they are one byte each.
    pub(crate) fn narrow(&self) -> Option<&[u8]> {
        (!self.wide).then_some(self.bytes)
    }

    /// Its code units as bytes, one each where it is narrow; else into `out`, an ASCII unit as its
    /// byte and any other as three bytes past ASCII: ASCII text reads as itself either way.
    pub(crate) fn as_bytes<'b>(&'b self, out: &'b mut Vec<u8>) -> &'b [u8] {
        if !self.wide {
            return self.bytes;
        }
        out.clear();
        let (fours, rest) = self.bytes.as_chunks::<8>();
        for four in fours {
            // Four ASCII units at once, most of a wide string's text.
            if u64::from_le_bytes(*four) & 0xff80_ff80_ff80_ff80 == 0 {
                out.extend([four[0], four[2], four[4], four[6]]);
            } else {
                for &pair in four.as_chunks().0 {
                    push_unit(out, pair);
                }
            }
        }
        for &pair in rest.as_chunks().0 {
            push_unit(out, pair);
        }
        out
    }

    /// The string cut to its first `units` code units, where it is longer.
    pub(crate) fn cut(self, units: usize) -> Self {
        let end = if self.wide {
            units.saturating_mul(2)
        } else {
            units
        };
        Self {
            bytes: self.bytes.get(..end).unwrap_or(self.bytes),
            ..self
        }
    }

    /// The code units into `out`, replacing what it held; lone surrogates stay as they are.
    pub fn to_units(&self, out: &mut Vec<u16>) {
        out.clear();
        out.extend(self.units());
    }
}

/// [`FormStr::as_bytes`] of one wide unit.
fn push_unit(out: &mut Vec<u8>, pair: [u8; 2]) {
    match u16::from_le_bytes(pair) {
        unit @ 0..0x80 => out.push(unit as u8),
        unit => out.extend([unit >> 14, unit >> 7, unit].map(|bits| 0x80 | (bits & 0x7f) as u8)),
    }
}

/// A length from `at` and where it ends: LEB128 as the writers write it, in
/// as few bytes as it takes (so a length has one form) and at most nine (a
/// length is at most `limit`, a slice length, below 2^63).
pub(crate) fn read_len(
    form: &[u8],
    at: usize,
    limit: usize,
) -> Result<(usize, usize), CanonicalError> {
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

/// The string whose tag is at `at`, and where it ends. A wide string whose units all fit in a
/// byte is an error: it has a narrow form, and only that one is canonical.
pub fn read_string(form: &[u8], at: usize) -> Result<(FormStr<'_>, usize), CanonicalError> {
    let (wide, start, end) = string_span(form, at)?;
    let bytes = form.get(start..end).unwrap_or_default();
    if wide && !holds_a_wide_unit(bytes) {
        return Err(CanonicalError::InvalidEncoding(at));
    }
    Ok((FormStr { wide, bytes }, end))
}

/// The string whose tag is at `at`: whether it is wide, and where its code
/// units start and end. Its units are not read: [`read_string`] and the transport's
/// check find a wide string that has a narrow form.
#[inline(always)]
pub(crate) fn string_span(form: &[u8], at: usize) -> Result<(bool, usize, usize), CanonicalError> {
    // Most strings: narrow, with a one-byte length.
    if let Some(&[NARROW, len]) = form.get(at..at + 2).and_then(|head| head.first_chunk()) {
        let end = at + 2 + usize::from(len);
        if len < 0x80 && end <= form.len() {
            return Ok((false, at + 2, end));
        }
    }
    any_string_span(form, at)
}

/// [`string_span`] for any string: wide, or with a longer length.
#[inline(never)]
fn any_string_span(form: &[u8], at: usize) -> Result<(bool, usize, usize), CanonicalError> {
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
    Ok((wide, start, end))
}

/// Whether the little-endian code units `bytes` hold one past 0xff: sixteen bytes a step, a wide
/// string's text mostly being narrow.
fn holds_a_wide_unit(bytes: &[u8]) -> bool {
    // The high byte of each unit.
    const HIGH: u128 = u128::from_le_bytes([
        0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff,
    ]);
    let (blocks, rest) = bytes.as_chunks::<16>();
    blocks
        .iter()
        .any(|block| u128::from_le_bytes(*block) & HIGH != 0)
        || rest
            .chunks(2)
            .any(|unit| unit.get(1).is_some_and(|&high| high != 0))
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn wide_strings_are_checked_and_read_as_bytes_whatever_the_place_of_their_units() {
        // Lengths past several of the steps the readers take, with one unit past ASCII, or past
        // a byte, at each place.
        for len in 1..200 {
            for at in 0..len {
                for odd in [0xe9, 0x100, 0x2026, 0xd800] {
                    let mut units = vec![u16::from(b'a'); len];
                    units[at] = odd;
                    let mut form = Vec::new();
                    push_len(&mut form, WIDE, len);
                    push_units(&mut form, &units, false);
                    let read = read_string(&form, 0);
                    // Wide, with every unit fitting in a byte: only the narrow form is canonical.
                    assert_eq!(read.is_ok(), odd > 0xff, "{len} {at} {odd:#x}");
                    let text = FormStr {
                        wide: true,
                        bytes: &form[form.len() - 2 * len..],
                    };
                    let mut plainly = Vec::new();
                    for unit in &units {
                        push_unit(&mut plainly, unit.to_le_bytes());
                    }
                    assert_eq!(
                        text.as_bytes(&mut Vec::new()),
                        &plainly[..],
                        "{len} {at} {odd:#x}"
                    );
                }
            }
        }
    }
}
