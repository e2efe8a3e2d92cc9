//! Canonical key order, as V8 orders a sorted object's keys: array indices
//! ("0" … "4294967294") first, numerically, then the rest by UTF-16 code units.

use std::cmp::Ordering;

/// A property key, decoded as far as sorting needs.
pub(crate) enum Key<'a> {
    /// From JSON text without escapes.
    Plain(&'a str),
    /// UTF-16 code units: from a key form, or a decoded escaped JSON key.
    Units(&'a [u16]),
}

impl Key<'_> {
    /// A number that orders keys as [`Member`]s sort (array indices first,
    /// numerically, then UTF-16 order) wherever two keys' numbers differ; equal
    /// numbers need a full comparison. An index is its value; any other key is
    /// a high bit, then its first three code units.
    pub(crate) fn order_key(&self) -> u64 {
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
        }
        let [a, b, c] = head.map(u64::from);
        (1 << 63) | (a << 47) | (b << 31) | (c << 15)
    }

    /// The key as an array index ("0" … "4294967294"), which V8 orders first, numerically.
    fn array_index(&self) -> Option<u32> {
        match self {
            Key::Plain(text) => array_index(text.bytes().map(u16::from)),
            Key::Units(units) => array_index(units.iter().copied()),
        }
    }

    /// Canonical key order: array indices first, numerically, then UTF-16 order.
    /// The order [`Key::order_key`] and [`Key::cmp_utf16`] give together, without
    /// building two order keys: most keys are not indices (their first unit is not
    /// a digit, which `array_index` sees at once) and then UTF-16 order alone decides.
    pub(crate) fn canonical_cmp(&self, other: &Self) -> Ordering {
        // The common case: first units differ and neither is a digit, so
        // neither key is an index and the first units decide.
        if let (Key::Units([a, ..]), Key::Units([b, ..])) = (self, other) {
            let digit = |unit: &u16| (u16::from(b'0')..=u16::from(b'9')).contains(unit);
            if a != b && !digit(a) && !digit(b) {
                return a.cmp(b);
            }
        }
        match (self.array_index(), other.array_index()) {
            (None, None) => self.cmp_utf16(other),
            (Some(a), Some(b)) => a.cmp(&b),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
        }
    }

    /// `Array.prototype.sort`'s default order: UTF-16 code units.
    pub(crate) fn cmp_utf16(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Key::Units(a), Key::Units(b)) => a.cmp(b),
            (Key::Units(a), Key::Plain(b)) => a.iter().copied().cmp(b.encode_utf16()),
            (Key::Plain(a), Key::Units(b)) => a.encode_utf16().cmp(b.iter().copied()),
            (Key::Plain(a), Key::Plain(b)) => {
                // UTF-8 byte order equals UTF-16 order unless the first difference is non-ASCII.
                match a.bytes().zip(b.bytes()).find(|(x, y)| x != y) {
                    None => a.len().cmp(&b.len()),
                    Some((x, y)) if x.is_ascii() && y.is_ascii() => x.cmp(&y),
                    Some(_) => a.encode_utf16().cmp(b.encode_utf16()),
                }
            }
        }
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
