//! Bytes of a kind found eight bytes at a time: each kind is a test of the bytes of a `u64` at
//! once that sets the high bit of each byte of the kind and of no other; [`first`] finds the
//! first such byte.

const LOW: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Where the first byte of `bytes` that `kind` marks is.
#[inline]
pub(crate) fn first(bytes: &[u8], kind: impl Fn(u64) -> u64) -> Option<usize> {
    let (words, rest) = bytes.as_chunks::<8>();
    for (at, word) in words.iter().enumerate() {
        let marked = kind(u64::from_le_bytes(*word));
        if marked != 0 {
            return Some(at * 8 + (marked.trailing_zeros() / 8) as usize);
        }
    }
    let at = words.len() * 8;
    rest.iter()
        .position(|&byte| kind(u64::from(byte)) & 0x80 != 0)
        .map(|found| at + found)
}

/// The ASCII bytes of `x` at least `floor` (itself ASCII).
#[inline]
fn at_least(x: u64, floor: u8) -> u64 {
    (((x & !HIGH) | HIGH) - LOW * u64::from(floor)) & HIGH & !x
}

/// The bytes of `x` equal to `byte` (ASCII).
#[inline]
fn equal(x: u64, byte: u8) -> u64 {
    let diff = x ^ (LOW * u64::from(byte));
    !(((diff & !HIGH) | HIGH) - LOW) & HIGH & !diff
}

/// Decimal digits.
#[inline]
pub(crate) fn digits(x: u64) -> u64 {
    at_least(x, b'0') & !at_least(x, b'9' + 1)
}

/// ASCII letters, in either case.
#[inline]
pub(crate) fn letters(x: u64) -> u64 {
    let lower = x | (LOW * 0x20);
    at_least(lower, b'a') & !at_least(lower, b'z' + 1)
}

/// The bytes a JSON string literal does not hold as they are: control characters, `"` and `\`
/// (escaped), and those past ASCII (encoded).
#[inline]
pub(crate) fn escaped(x: u64) -> u64 {
    (!at_least(x, 0x20) & HIGH) | equal(x, b'"') | equal(x, b'\\')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_marks_exactly_its_bytes_wherever_they_lie() {
        type Kind = (fn(u64) -> u64, fn(u8) -> bool);
        let kinds: [Kind; 3] = [
            (digits, |b| b.is_ascii_digit()),
            (letters, |b| b.is_ascii_alphabetic()),
            (escaped, |b| {
                b < 0x20 || b == b'"' || b == b'\\' || b >= 0x80
            }),
        ];
        for (kind, is) in kinds {
            for byte in 0..=255_u8 {
                for filler in [b'a', b'0', b'"', 0x00, 0xff] {
                    for len in 1..=19 {
                        for at in 0..len {
                            let mut bytes = vec![filler; len];
                            bytes[at] = byte;
                            let naive = bytes.iter().position(|&b| is(b));
                            assert_eq!(first(&bytes, kind), naive, "{byte} {filler} {len} {at}");
                        }
                    }
                }
            }
        }
    }
}
