//! Canonical key order, as V8 orders a sorted object's keys: array indices
//! ("0" … "4294967294") first, numerically, then the rest by UTF-16 code units.

use std::cmp::Ordering;

/// A property key, decoded as far as sorting needs.
pub(crate) enum Key<'a> {
    /// From JSON text without escapes.
    Plain(&'a str),
    /// UTF-16 code units: a long string, or a decoded escaped or wide key.
    Units(&'a [u16]),
    /// Code units of at most 0xff, one byte each.
    Narrow(&'a [u8]),
}

impl Key<'_> {
    /// A number that orders keys as [`Member`]s sort (array indices first,
    /// numerically, then UTF-16 order) wherever two keys' numbers differ; equal
    /// numbers need a full comparison. An index is its value; any other key is
    /// a high bit, then its first three code units.
    pub(crate) fn order_key(&self) -> u64 {
        // Most keys: bytes that are their code units, not starting with a digit, so not an index.
        let bytes = match self {
            Key::Narrow(bytes) => Some(*bytes),
            Key::Plain(text) if text.bytes().take(3).all(|b| b.is_ascii()) => Some(text.as_bytes()),
            _ => None,
        };
        if let Some(bytes) = bytes.filter(|bytes| !bytes.first().is_some_and(u8::is_ascii_digit)) {
            let at = |i: usize| u64::from(bytes.get(i).copied().unwrap_or(0));
            return (1 << 63) | (at(0) << 47) | (at(1) << 31) | (at(2) << 15);
        }
        if let Some(index) = self.array_index() {
            return u64::from(index);
        }
        let mut head = [0u16; 3];
        match self {
            // ASCII bytes are their code units; anything else is decoded.
            Key::Plain(text) if text.bytes().take(3).all(|b| b.is_ascii()) => {
                for (slot, byte) in head.iter_mut().zip(text.bytes()) {
                    *slot = u16::from(byte);
                }
            }
            Key::Plain(text) => {
                for (slot, unit) in head.iter_mut().zip(text.encode_utf16()) {
                    *slot = unit;
                }
            }
            Key::Units(units) => {
                for (slot, &unit) in head.iter_mut().zip(units.iter()) {
                    *slot = unit;
                }
            }
            Key::Narrow(bytes) => {
                for (slot, &byte) in head.iter_mut().zip(bytes.iter()) {
                    *slot = u16::from(byte);
                }
            }
        }
        let [a, b, c] = head.map(u64::from);
        (1 << 63) | (a << 47) | (b << 31) | (c << 15)
    }

    /// The key as an array index ("0" … "4294967294"), which V8 orders first, numerically.
    fn array_index(&self) -> Option<u32> {
        match self {
            Key::Plain(text) => array_index(text.bytes().map(u16::from)),
            Key::Units(units) => array_index(units.iter().copied()),
            Key::Narrow(bytes) => array_index(bytes.iter().map(|&byte| u16::from(byte))),
        }
    }

    /// `Array.prototype.sort`'s default order: UTF-16 code units.
    pub(crate) fn cmp_utf16(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Key::Units(a), Key::Units(b)) => a.cmp(b),
            // Bytes that are code units order as the units do.
            (Key::Narrow(a), Key::Narrow(b)) => a.cmp(b),
            (Key::Plain(a), Key::Plain(b)) => {
                // UTF-8 byte order equals UTF-16 order unless the first difference is non-ASCII.
                match a.bytes().zip(b.bytes()).find(|(x, y)| x != y) {
                    None => a.len().cmp(&b.len()),
                    Some((x, y)) if x.is_ascii() && y.is_ascii() => x.cmp(&y),
                    Some(_) => a.encode_utf16().cmp(b.encode_utf16()),
                }
            }
            _ => self.units().cmp(other.units()),
        }
    }

    /// The code units, whatever the key holds.
    fn units(&self) -> impl Iterator<Item = u16> + '_ {
        let (plain, units, narrow) = match self {
            Key::Plain(text) => (*text, &[][..], &[][..]),
            Key::Units(units) => ("", *units, &[][..]),
            Key::Narrow(bytes) => ("", &[][..], *bytes),
        };
        // Two of the three are empty.
        plain
            .encode_utf16()
            .chain(units.iter().copied())
            .chain(narrow.iter().map(|&byte| u16::from(byte)))
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
