//! Equality of short byte and code-unit strings, a word at a time: the hot
//! path compares keys, prefixes and agent ids this way.

/// Whether two byte strings are equal, compared here a word at a time. For
/// the short keys and prefixes of the hot path this takes fewer instructions
/// than a call to libc's `memcmp` (what `==` on slices becomes), whose code is
/// large for what a key of a few dozen bytes needs.
#[inline]
pub fn bytes_equal(a: &[u8], b: &[u8]) -> bool {
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

/// [`bytes_equal`] for strings of UTF-16 code units (agent ids), four units a word.
#[inline]
pub fn units_equal(a: &[u16], b: &[u16]) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_equal_compares_every_byte() {
        for n in 0..40usize {
            let a: Vec<u8> = (0..n as u8).map(|i| i.wrapping_mul(37)).collect();
            assert!(bytes_equal(&a, &a.clone()), "{n} bytes");
            if n > 0 {
                assert!(!bytes_equal(&a, &a[..n - 1]), "{n} bytes against {}", n - 1);
            }
            for at in 0..n {
                let mut b = a.clone();
                b[at] ^= 0x80;
                assert!(!bytes_equal(&a, &b), "{n} bytes, differing at {at}");
            }
        }
    }

    #[test]
    fn units_equal_compares_every_unit() {
        for n in 0..24usize {
            let a: Vec<u16> = (0..n as u16).map(|i| i.wrapping_mul(0x9e37)).collect();
            assert!(units_equal(&a, &a.clone()), "{n} units");
            if n > 0 {
                assert!(!units_equal(&a, &a[..n - 1]), "{n} units against {}", n - 1);
            }
            for at in 0..n {
                for flip in [0x0001, 0x0100, 0x8000] {
                    let mut b = a.clone();
                    b[at] ^= flip;
                    assert!(
                        !units_equal(&a, &b),
                        "{n} units, differing at {at} by {flip:#x}"
                    );
                }
            }
        }
    }
}
