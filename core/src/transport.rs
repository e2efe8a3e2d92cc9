//! The transport: a call's value as the plugin's JavaScript (`lib/encode.js`)
//! writes it (and `json` writes JSON text so), checked here and written in
//! its key form by `key_form`, which canonicalizes it. JavaScript applies no canonical rule: members come
//! in their own order, numbers as they are (`-0`, `NaN`), and values JSON has
//! no form for as [`tag::ABSENT`]. Every byte is checked before anything is
//! counted: anything else is an error.
//!
//! | tag | then | value |
//! | --- | --- | --- |
//! | [`tag::NULL`], [`tag::FALSE`], [`tag::TRUE`] | | `null`, `false`, `true` |
//! | [`tag::NUMBER`] | 8 bytes, IEEE-754 little-endian | any number |
//! | [`tag::NARROW`], [`tag::WIDE`] | a length, code units | a string, as in the key form (`form`) |
//! | [`tag::ABSENT`] | | `undefined`, a function or a symbol |
//! | [`tag::ARRAY`] | its size, values, [`tag::END`] | an array |
//! | [`tag::OBJECT`] | its size, (key string, value) pairs, [`tag::END`] | an object |
//!
//! A key is a string ([`tag::NARROW`] or [`tag::WIDE`]). The
//! whole value is a value other than [`tag::ABSENT`], with nothing after it. A container's size
//! ([`SIZE_BYTES`] bytes, little-endian) counts the bytes after it, [`tag::END`] included: a reader
//! can step over a member without reading it (`side_by_side`), and every reader checks it.

use crate::error::CanonicalError;
use crate::form::{read_len, read_string, string_span};

/// The transport's tags, one byte each: the key form's where they mean the same.
pub mod tag {
    pub use crate::form::tag::{ARRAY, END, FALSE, NARROW, NULL, NUMBER, OBJECT, TRUE, WIDE};
    /// A value JSON has no form for.
    pub const ABSENT: u8 = 11;
}

use tag::{ABSENT, ARRAY, END, FALSE, NARROW, NULL, NUMBER, OBJECT, TRUE, WIDE};

/// The bytes of a container's size, after its tag.
pub const SIZE_BYTES: usize = 4;

/// Where the container whose tag is at `at` ends, as its size says: `None`
/// when the size is cut short or runs past the bytes.
#[inline]
pub(crate) fn container_end(bytes: &[u8], at: usize) -> Option<usize> {
    let size = bytes.get(at + 1..)?.first_chunk::<SIZE_BYTES>()?;
    let end = (at + 1 + SIZE_BYTES).checked_add(u32::from_le_bytes(*size) as usize)?;
    (end <= bytes.len()).then_some(end)
}

/// Where the value whose tag is at `at` ends (a container by its size), as
/// far as its first bytes tell; `None` when they are malformed.
#[inline(always)]
pub(crate) fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match *bytes.get(at)? {
        NULL | FALSE | TRUE | ABSENT => Some(at + 1),
        NUMBER => Some(at + 9).filter(|&end| end <= bytes.len()),
        NARROW | WIDE => string_span(bytes, at).ok().map(|(_, _, end)| end),
        ARRAY | OBJECT => container_end(bytes, at),
        _ => None,
    }
}

/// An open container while a transport is checked: whether it is an object,
/// and where its bytes end.
#[derive(Debug)]
pub(crate) struct Open {
    pub(crate) object: bool,
    pub(crate) end: usize,
}

/// Checks `bytes`: every tag, length, size and string, or the error.
pub(crate) fn check(bytes: &[u8], open: &mut Vec<Open>) -> Result<(), CanonicalError> {
    open.clear();
    check_from(bytes, 0, open)
}

/// Whether [`check`] finds a transport well formed, knowing its bytes before
/// `at` (a member's or an element's start in the containers `open`) to be so;
/// `open` is then the containers around it.
pub(crate) fn well_formed_from(bytes: &[u8], at: usize, open: &mut Vec<Open>) -> bool {
    check_from(bytes, at, open).is_ok()
}

/// [`check`] from `at` inside the containers `open`.
fn check_from(bytes: &[u8], mut at: usize, open: &mut Vec<Open>) -> Result<(), CanonicalError> {
    let invalid = CanonicalError::InvalidEncoding;
    loop {
        if let Some(&Open { object, end }) = open.last() {
            if bytes.get(at) == Some(&END) {
                at += 1;
                if at != end {
                    return Err(invalid(at - 1));
                }
                open.pop();
                if open.is_empty() {
                    break;
                }
                continue;
            }
            if object {
                at = string(bytes, at)?;
            }
        }
        match *bytes.get(at).ok_or(invalid(at))? {
            NULL | FALSE | TRUE => at += 1,
            NUMBER if at + 9 <= bytes.len() => at += 9,
            NARROW | WIDE => at = string(bytes, at)?,
            // The whole value must have a JSON form: the plugin sends no other.
            ABSENT if !open.is_empty() => at += 1,
            tag @ (ARRAY | OBJECT) => {
                open.push(Open {
                    object: tag == OBJECT,
                    end: container_end(bytes, at).ok_or(invalid(at))?,
                });
                at += 1 + SIZE_BYTES;
                continue;
            }
            _ => return Err(invalid(at)),
        }
        if open.is_empty() {
            break;
        }
    }
    if at == bytes.len() {
        Ok(())
    } else {
        Err(invalid(at))
    }
}

/// Checks the string whose tag is at `at`; returns where it ends.
fn string(bytes: &[u8], at: usize) -> Result<usize, CanonicalError> {
    read_string(bytes, at).map(|(_, end)| end)
}

/// A transport written without sizes (as tests and fuzz targets write them),
/// with them put in: after each container's tag, the size up to its
/// [`tag::END`]. A container left open gets the size of the rest.
#[doc(hidden)]
pub fn sized(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut open = Vec::new();
    let mut at = 0;
    while let Some(&tag) = bytes.get(at) {
        let skip = match tag {
            NUMBER => 9,
            NARROW | WIDE => match read_len(bytes, at + 1, usize::MAX) {
                // A length past the bytes (any up to usize::MAX) takes the rest of them.
                Ok((len, end)) if tag == NARROW => (end - at).saturating_add(len),
                Ok((len, end)) => (end - at).saturating_add(len.saturating_mul(2)),
                Err(_) => 1,
            },
            ARRAY | OBJECT => {
                out.extend([tag, 0, 0, 0, 0]);
                open.push(out.len());
                at += 1;
                continue;
            }
            _ => 1,
        };
        let end = at.saturating_add(skip).min(bytes.len());
        out.extend_from_slice(bytes.get(at..end).unwrap_or_default());
        at = end;
        if tag == END {
            if let Some(start) = open.pop() {
                let size = u32::try_from(out.len() - start).unwrap_or(0);
                out.get_mut(start - SIZE_BYTES..start)
                    .unwrap_or_default()
                    .copy_from_slice(&size.to_le_bytes());
            }
        }
    }
    for start in open.into_iter().rev() {
        let size = u32::try_from(out.len() - start).unwrap_or(0);
        out.get_mut(start - SIZE_BYTES..start)
            .unwrap_or_default()
            .copy_from_slice(&size.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arguments::Arguments;
    use crate::form::push_string;
    use crate::key::call_key;
    use crate::scratch::Scratch;

    fn text(out: &mut Vec<u8>, text: &str) {
        push_string(out, &text.encode_utf16().collect::<Vec<_>>());
    }

    fn number(out: &mut Vec<u8>, value: f64) {
        out.push(NUMBER);
        out.extend(value.to_le_bytes());
    }

    /// The canonical text of `bytes`, a transport written without sizes.
    fn canonical(bytes: &[u8]) -> Result<String, CanonicalError> {
        let mut out = String::new();
        Arguments::Transport(&sized(bytes)).write_canonical(&mut out)?;
        Ok(out)
    }

    /// {"b": [1.5, -0, NaN, undefined], "10": "x", "9": true, "é": "😀", "gone": undefined, "a": "long"}
    fn unsorted() -> Vec<u8> {
        let mut bytes = vec![OBJECT];
        text(&mut bytes, "b");
        bytes.push(ARRAY);
        for value in [1.5, -0.0, f64::NAN] {
            number(&mut bytes, value);
        }
        bytes.extend([ABSENT, END]);
        for (key, value) in [("10", "x"), ("9", "")] {
            text(&mut bytes, key);
            if value.is_empty() {
                bytes.push(TRUE);
            } else {
                text(&mut bytes, value);
            }
        }
        text(&mut bytes, "é");
        text(&mut bytes, "😀");
        text(&mut bytes, "gone");
        bytes.push(ABSENT);
        text(&mut bytes, "a");
        text(&mut bytes, "long");
        bytes.push(END);
        bytes
    }

    #[test]
    fn every_canonical_rule_is_applied_to_a_value_as_javascript_holds_it() {
        assert_eq!(
            canonical(&unsorted()),
            Ok(
                "{\"9\":true,\"10\":\"x\",\"a\":\"long\",\"b\":[1.5,0,null,null],\"é\":\"😀\"}"
                    .to_owned()
            )
        );
        // The same key as the JSON text of the same value, in any order.
        let json = "{\"a\":\"long\",\"é\":\"😀\",\"b\":[1.5,0,null,null],\"10\":\"x\",\"9\":true}";
        let key = |arguments| call_key(&[0x74], arguments, &mut Scratch::default());
        assert_eq!(
            key(Arguments::Transport(&sized(&unsorted()))),
            key(Arguments::Json(json))
        );
    }

    #[test]
    fn later_duplicates_win_and_an_absent_one_removes_the_member() {
        let mut bytes = vec![OBJECT];
        for (key, value) in [("b", NULL), ("a", TRUE), ("b", FALSE), ("a", ABSENT)] {
            text(&mut bytes, key);
            bytes.push(value);
        }
        bytes.push(END);
        assert_eq!(canonical(&bytes), Ok("{\"b\":false}".to_owned()));
    }

    #[test]
    fn wide_keys_sort_with_the_others() {
        let mut bytes = vec![OBJECT];
        for key in ["ā", "z", "", "0", "āāā", "éé"] {
            text(&mut bytes, key);
            bytes.push(NULL);
        }
        bytes.push(END);
        assert_eq!(
            canonical(&bytes),
            Ok("{\"0\":null,\"\":null,\"z\":null,\"éé\":null,\"ā\":null,\"āāā\":null}".to_owned())
        );
    }

    #[test]
    fn a_malformed_transport_is_an_error() {
        let mut number_cut = vec![ARRAY];
        number_cut.extend([NUMBER, 0, 0]);
        for bytes in [
            &[][..],
            &[13],
            &[END],
            &[ABSENT],
            &[NULL, NULL],
            &number_cut,
            &[NARROW, 3, b'a', b'b'],
            &[NARROW, 0x80],
            &[WIDE, 1, b'a', 0],
            &[10],
            &[12, 0],
            &[ARRAY, NULL],
            &[ARRAY, END, END],
            &[OBJECT, NULL, END],
            &[OBJECT, NARROW, 1, b'a', END],
            &[OBJECT, ABSENT, NULL, END],
        ] {
            assert!(canonical(bytes).is_err(), "{bytes:?} should be rejected");
        }
        // Sizes that do not match what the container holds.
        for bytes in [
            &[ARRAY, 0, 0, 0, 0, END][..],
            &[ARRAY, 2, 0, 0, 0, END],
            &[ARRAY, 1, 0, 0],
            &[ARRAY, 1, 0, 0, 0, NULL, END],
            &[ARRAY, 3, 0, 0, 0, NULL, END],
            &[OBJECT, 2, 0, 0, 0, END, NULL],
            &[ARRAY, 8, 0, 0, 0, ARRAY, 1, 0, 0, 0, NULL, END, END],
            &[ARRAY, 8, 0, 0, 0, ARRAY, 3, 0, 0, 0, NULL, END, END],
        ] {
            let mut out = String::new();
            assert!(
                Arguments::Transport(bytes)
                    .write_canonical(&mut out)
                    .is_err(),
                "{bytes:?} should be rejected"
            );
        }
    }

    #[test]
    fn sizes_are_put_into_any_bytes_even_with_a_length_past_them() {
        // A wide string whose length (2^63 - 1) is twice past usize's range in bytes.
        let mut bytes = vec![WIDE];
        bytes.extend([0xff; 8]);
        bytes.push(0x7f);
        bytes.extend([0xff; 8]);
        assert_eq!(sized(&bytes), bytes);
        let mut narrow = bytes.clone();
        narrow[0] = NARROW;
        assert_eq!(sized(&narrow), narrow);
        // The same past the first byte, where the string's end is past usize's range.
        for bytes in [bytes, narrow] {
            let later = [&[NULL][..], &bytes].concat();
            assert_eq!(sized(&later), later);
        }
    }

    #[test]
    fn deep_nesting_is_read_and_walked_without_recursion() {
        let depth = 200_000;
        let mut bytes = vec![ARRAY; depth];
        bytes.push(ABSENT);
        bytes.extend(std::iter::repeat_n(END, depth));
        assert_eq!(canonical(&bytes).unwrap().len(), depth * 2 + 4);
    }
}
