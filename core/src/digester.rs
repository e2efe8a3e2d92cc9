//! The digester: the key form's writer (see `form`), into a buffer whose
//! form is hashed with BLAKE3 when it is longer than [`INLINE`]. The canonical
//! walk writes through it: it is a [`Visitor`].

use crate::form::tag::{ARRAY, END, FALSE, NARROW, NULL, NUMBER, OBJECT, TOOL, TRUE, WIDE};
use crate::form::{all_narrow, push_len, push_string, push_units};
use crate::key::INLINE;
use crate::key_order::Key;
use crate::value::{Scalar, Str, Visitor};

/// Writes the key form into a buffer kept from call to call. A form that
/// grows past two [`BLOCK`]s is hashed a block at a time as it is written, so
/// a call of any size holds at most three blocks.
pub(crate) struct Digester<'b> {
    /// Boxed: a `blake3::Hasher` is about 2 KB, and only a long form needs one.
    hasher: Option<Box<blake3::Hasher>>,
    out: &'b mut Vec<u8>,
}

/// The unit hashed at a time: BLAKE3's widest SIMD path takes 16 chunks of 1 KB
/// at once, and input fed in multiples of it keeps BLAKE3 on that path.
pub(crate) const BLOCK: usize = 16 * 1024;

impl<'b> Digester<'b> {
    /// A digester writing into `out` (emptied first), the form started with the tool name.
    pub(crate) fn new(out: &'b mut Vec<u8>, tool: &[u16]) -> Self {
        out.clear();
        out.push(TOOL);
        push_string(out, tool);
        Self { hasher: None, out }
    }

    /// The bytes of the form in the buffer (all of it when none was hashed yet).
    pub(crate) fn len(&self) -> usize {
        self.out.len()
    }

    fn put(&mut self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
        self.check();
    }

    /// Hashes whole blocks once the buffer holds two, keeping the last one.
    #[inline(always)]
    fn check(&mut self) {
        if self.out.len() >= 2 * BLOCK {
            self.flush();
        }
    }

    #[inline(never)]
    fn flush(&mut self) {
        let whole = (self.out.len() / BLOCK - 1) * BLOCK;
        let hasher = self.hasher.get_or_insert_with(Box::default);
        hasher.update(self.out.get(..whole).unwrap_or_default());
        self.out.drain(..whole);
    }

    /// A tag and a length (see `form`).
    fn tag_len(&mut self, tag: u8, len: usize) {
        push_len(self.out, tag, len);
    }

    /// A string's bytes, already in the form's encoding, a block at a time.
    fn string_bytes(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(BLOCK) {
            self.put(chunk);
        }
    }

    /// A string of UTF-16 code units, one byte each when they all fit.
    fn units(&mut self, units: &[u16]) {
        let narrow = all_narrow(units);
        self.tag_len(if narrow { NARROW } else { WIDE }, units.len());
        for chunk in units.chunks(BLOCK / 2) {
            push_units(self.out, chunk, narrow);
            self.check();
        }
    }

    #[inline]
    fn string(&mut self, text: Str<'_>) {
        match text {
            Str::Units(units) => self.units(units),
            // The transport's strings are in the key form's encoding already.
            Str::Narrow(bytes) => {
                self.tag_len(NARROW, bytes.len());
                self.string_bytes(bytes);
            }
            Str::Wide(bytes) => {
                self.tag_len(WIDE, bytes.len() / 2);
                self.string_bytes(bytes);
            }
        }
    }

    #[inline]
    pub(crate) fn number(&mut self, value: f64) {
        if !value.is_finite() {
            // `JSON.stringify` prints NaN and ±Infinity as null.
            self.put(&[NULL]);
            return;
        }
        // -0 prints as 0; every other finite value prints distinctly.
        let value = if value == 0.0 { 0.0 } else { value };
        let bits = value.to_bits().to_le_bytes();
        self.put(&[
            NUMBER, bits[0], bits[1], bits[2], bits[3], bits[4], bits[5], bits[6], bits[7],
        ]);
    }

    /// The digest of the binary form, or `None` when the form, whole in the
    /// buffer, is short enough to be the key itself.
    pub(crate) fn finish(&mut self) -> Option<blake3::Hash> {
        let form = self.out.as_slice();
        match self.hasher.as_mut() {
            None if form.len() <= INLINE => None,
            None => Some(blake3::hash(form)),
            Some(hasher) => {
                hasher.update(form);
                Some(hasher.finalize())
            }
        }
    }
}

impl Visitor for Digester<'_> {
    #[inline(always)]
    fn scalar(&mut self, value: Scalar<'_>) {
        match value {
            Scalar::Null => self.put(&[NULL]),
            Scalar::Bool(false) => self.put(&[FALSE]),
            Scalar::Bool(true) => self.put(&[TRUE]),
            Scalar::Number(value) => self.number(value),
            Scalar::Str(text) => self.string(text),
        }
    }
    fn open_array(&mut self) {
        self.put(&[ARRAY]);
    }
    fn close_array(&mut self) {
        self.put(&[END]);
    }
    fn open_object(&mut self) {
        self.put(&[OBJECT]);
    }
    fn close_object(&mut self) {
        self.put(&[END]);
    }
    fn element_separator(&mut self) {}
    #[inline]
    fn key(&mut self, key: &Key<'_>, _first: bool) {
        self.string(Str::from(key));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::form::tag::TOOL;

    /// A long form hashed block by block as it is written has the digest of the whole form: no
    /// byte is dropped or hashed twice at a block's edge, whatever the strings' sizes.
    #[test]
    fn a_form_hashed_as_it_grows_has_the_whole_forms_digest() {
        let tool: Vec<u16> = "grep".encode_utf16().collect();
        for sizes in [
            vec![BLOCK / 2 - 1, 3, BLOCK, 1, 2 * BLOCK + 5],
            vec![5; 40_000],
            vec![BLOCK / 2 + 1; 9],
        ] {
            let mut whole = vec![TOOL];
            push_string(&mut whole, &tool);
            let mut out = Vec::new();
            let mut digester = Digester::new(&mut out, &tool);
            for (i, &size) in sizes.iter().enumerate() {
                // Narrow and wide strings in turn, and numbers between them.
                let unit = if i % 2 == 0 {
                    u16::from(b'a') + (i % 26) as u16
                } else {
                    0x20ac
                };
                let units = vec![unit; size];
                digester.units(&units);
                push_string(&mut whole, &units);
                digester.number(i as f64);
                whole.push(NUMBER);
                whole.extend_from_slice(&(i as f64).to_bits().to_le_bytes());
            }
            assert!(digester.len() < 3 * BLOCK, "at most three blocks held");
            assert_eq!(digester.finish(), Some(blake3::hash(&whole)), "{sizes:?}");
        }
    }
}
