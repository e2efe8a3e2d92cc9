//! Canonical key order, as V8 orders a sorted object's keys: array indices
//! ("0" … "4294967294") first, numerically, then the rest by UTF-16 code units.

use std::cmp::Ordering;

/// A property key, decoded as far as sorting needs.
pub(crate) enum Key<'a> {
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
        // Most keys: not starting with a digit, so not an index.
        let first = match self {
            Key::Narrow(bytes) => bytes.first().map(|&byte| u16::from(byte)),
            Key::Units(units) => units.first().copied(),
        };
        if let Some(index) = first
            .filter(|unit| (u16::from(b'0')..=u16::from(b'9')).contains(unit))
            .and_then(|_| self.array_index())
        {
            return u64::from(index);
        }
        let mut head = self.units().map(u64::from).chain([0, 0, 0]);
        let mut next = || head.next().unwrap_or(0);
        (1 << 63) | (next() << 47) | (next() << 31) | (next() << 15)
    }

    /// The key as an array index ("0" … "4294967294"), which V8 orders first, numerically.
    fn array_index(&self) -> Option<u32> {
        match self {
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
            _ => self.units().cmp(other.units()),
        }
    }

    /// The code units, whatever the key holds.
    fn units(&self) -> impl Iterator<Item = u16> + '_ {
        let (units, narrow) = match self {
            Key::Units(units) => (*units, &[][..]),
            Key::Narrow(bytes) => (&[][..], *bytes),
        };
        // One of the two is empty.
        units
            .iter()
            .copied()
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
