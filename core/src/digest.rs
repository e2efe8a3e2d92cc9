//! The digester: writes a call's key form (see `form`) from JSON text or a
//! raw string, as a [`Visitor`] of the canonical walk, and hashes it when it
//! is longer than [`INLINE`]. What is kept or hashed is not the canonical text
//! but the key form of the same canonical value (members sorted and
//! deduplicated exactly as for the text): a type tag per value, lengths before
//! contents, numbers as their IEEE-754 bits, strings as their UTF-16 code units
//! (one byte each when they all fit). Two calls get the same key exactly when
//! their canonical texts are equal, and no time goes into escaping strings or
//! printing numbers. A call that repeats the last one is keyed by the memo
//! (`memo`) instead.

use crate::error::CanonicalError;
use crate::form::push_len;
use crate::form::tag::{ARRAY, END, FALSE, NARROW, NULL, NUMBER, OBJECT, TOOL, TRUE, WIDE};
use crate::ignore::{KeyPath, Without};
use crate::key::{CallKey, KeyForm, INLINE};
use crate::key_order::Key;
use crate::read::{visit, Scratch};
use crate::value::{decode_json_string, Arguments, Scalar, Str, Visitor};

/// Writes the key form in a fixed block: kept whole when it fits (most
/// calls; then it is the key itself, or hashed in one go), else hashed block by
/// block, blocks large enough for BLAKE3's SIMD paths. A write checks its room
/// once, with no `Vec` capacity checks per byte.
struct Digester<'b> {
    hasher: Option<blake3::Hasher>,
    block: &'b mut Vec<u8>,
    /// Bytes of `block` in use.
    len: usize,
}

/// The unit hashed at a time: BLAKE3's widest SIMD path takes 16 chunks of 1 KB
/// at once, and only updates that keep the input at a multiple of it let
/// BLAKE3 hash whole subtrees (a misaligned stream falls back to small ones,
/// several times slower). The block holds two, so a write of up to one fits
/// after a flush.
pub(crate) const BLOCK: usize = 16 * 1024;

/// The block's first size: most calls' forms fit; it doubles up to 2 × [`BLOCK`].
const FIRST_BLOCK: usize = 256;

impl Digester<'_> {
    /// Appends a few bytes (`N` at most [`BLOCK`]).
    #[inline(always)]
    fn put<const N: usize>(&mut self, bytes: [u8; N]) {
        if self.len + N > self.block.len() {
            self.room(N);
        }
        // `room` always makes room (growing or flushing the block): a write is never dropped.
        debug_assert!(self.len + N <= self.block.len());
        if let Some(out) = self
            .block
            .get_mut(self.len..)
            .and_then(|rest| rest.first_chunk_mut::<N>())
        {
            *out = bytes;
            self.len += N;
        }
    }

    fn bytes(&mut self, mut bytes: &[u8]) {
        while self.len + bytes.len() > self.block.len() {
            // Fill the block (grown to its full size) and flush a unit, as often as it takes.
            self.room(bytes.len().min(BLOCK));
            let space = (self.block.len() - self.len).min(bytes.len());
            let (head, rest) = bytes.split_at(space);
            if let Some(out) = self.block.get_mut(self.len..self.len + space) {
                out.copy_from_slice(head);
                self.len += space;
            }
            bytes = rest;
        }
        if let Some(out) = self.block.get_mut(self.len..self.len + bytes.len()) {
            out.copy_from_slice(bytes);
            self.len += bytes.len();
        }
    }

    /// Makes room for `n` more bytes (`n` at most [`BLOCK`]): grows the block
    /// while it is smaller than 2 × [`BLOCK`] (zeroed once, kept in
    /// [`Scratch`]), else hashes its first [`BLOCK`] bytes and moves the rest
    /// down, so that the hasher's input stays a multiple of [`BLOCK`].
    #[inline(never)]
    fn room(&mut self, n: usize) {
        let size = self.block.len();
        if size < 2 * BLOCK {
            let grown = (size * 2).max(self.len + n).clamp(FIRST_BLOCK, 2 * BLOCK);
            self.block.resize(grown, 0);
            if self.len + n <= grown {
                return;
            }
        }
        if self.len >= BLOCK {
            let hasher = self.hasher.get_or_insert_with(blake3::Hasher::new);
            hasher.update(self.block.get(..BLOCK).unwrap_or_default());
            self.block.copy_within(BLOCK..self.len, 0);
            self.len -= BLOCK;
        }
    }

    /// A tag and a length, the length in LEB128 (seven bits a byte, high bit
    /// set on all but the last): short lengths take one byte, which keeps small
    /// calls to two BLAKE3 blocks; the code stays prefix-free.
    #[inline]
    fn tag_len(&mut self, tag: u8, len: usize) {
        if len < 0x80 {
            self.put([tag, len as u8]);
        } else {
            self.tag_len_long(tag, len);
        }
    }

    #[inline(never)]
    fn tag_len_long(&mut self, tag: u8, len: usize) {
        let mut out = Vec::with_capacity(11);
        push_len(&mut out, tag, len);
        self.bytes(&out);
    }

    /// A string of UTF-16 code units, one byte each when they all fit.
    #[inline(always)]
    fn units(&mut self, units: &[u16]) {
        // Most strings are short: room for the wide form checked once, then
        // narrowed in one pass while checking they fit.
        let n = units.len();
        if n >= 0x80 {
            return self.units_long(units);
        }
        if self.len + 2 + 2 * n > self.block.len() {
            self.room(2 + 2 * n);
        }
        debug_assert!(self.len + 2 + 2 * n <= self.block.len());
        let Some((head, body)) = self
            .block
            .get_mut(self.len..self.len + 2 + 2 * n)
            .and_then(|out| out.split_first_chunk_mut::<2>())
        else {
            return;
        };
        let mut all = 0u16;
        // Most strings are a few units: a plain loop (`black_box` keeps LLVM from
        // vectorizing it) costs less than a vectorized loop's set-up and tail.
        for (out, &unit) in body.iter_mut().zip(units) {
            all |= unit;
            // Truncation is checked below: `all` keeps every high bit seen.
            *out = unit as u8;
            std::hint::black_box(());
        }
        if all <= 0xff {
            *head = [NARROW, n as u8];
            self.len += 2 + n;
        } else {
            *head = [WIDE, n as u8];
            for (out, unit) in body.as_chunks_mut::<2>().0.iter_mut().zip(units) {
                *out = unit.to_le_bytes();
            }
            self.len += 2 + 2 * n;
        }
    }

    #[inline(never)]
    fn units_long(&mut self, units: &[u16]) {
        let narrow = units.iter().fold(0u16, |all, &unit| all | unit) <= 0xff;
        if narrow {
            self.tag_len(NARROW, units.len());
            for chunk in units.chunks(BLOCK) {
                if self.len + chunk.len() > self.block.len() {
                    self.room(chunk.len());
                }
                if let Some(out) = self.block.get_mut(self.len..self.len + chunk.len()) {
                    // Truncation is the point: every unit is at most 0xff here.
                    for (out, &unit) in out.iter_mut().zip(chunk) {
                        *out = unit as u8;
                    }
                    self.len += chunk.len();
                }
            }
        } else {
            self.tag_len(WIDE, units.len());
            for chunk in units.chunks(BLOCK / 2) {
                if self.len + chunk.len() * 2 > self.block.len() {
                    self.room(chunk.len() * 2);
                }
                if let Some(out) = self.block.get_mut(self.len..self.len + chunk.len() * 2) {
                    for (out, unit) in out.as_chunks_mut::<2>().0.iter_mut().zip(chunk) {
                        *out = unit.to_le_bytes();
                    }
                    self.len += chunk.len() * 2;
                }
            }
        }
    }

    #[inline]
    fn string(&mut self, text: Str<'_>) {
        match text {
            Str::Units(units) => self.units(units),
            // The transport's strings are in the key form's encoding already.
            Str::Narrow(bytes) => {
                self.tag_len(NARROW, bytes.len());
                self.bytes(bytes);
            }
            Str::Wide(bytes) => {
                self.tag_len(WIDE, bytes.len() / 2);
                self.bytes(bytes);
            }
            text => self.json_string(text),
        }
    }

    /// A string from JSON text.
    #[inline(never)]
    fn json_string(&mut self, text: Str<'_>) {
        match text {
            // ASCII text: its bytes are its code units.
            Str::Plain(raw) if raw.is_ascii() => {
                self.tag_len(NARROW, raw.len());
                self.bytes(raw.as_bytes());
            }
            Str::Plain(raw) => self.units(&raw.encode_utf16().collect::<Vec<_>>()),
            Str::Escaped(raw) => self.units(&decode_json_string(raw)),
            Str::Units(_) | Str::Narrow(_) | Str::Wide(_) => self.string(text),
        }
    }

    #[inline]
    fn number(&mut self, value: f64) {
        if !value.is_finite() {
            // `JSON.stringify` prints NaN and ±Infinity as null.
            self.put([NULL]);
            return;
        }
        // -0 prints as 0; every other finite value prints distinctly.
        let value = if value == 0.0 { 0.0 } else { value };
        let bits = value.to_bits().to_le_bytes();
        self.put([
            NUMBER, bits[0], bits[1], bits[2], bits[3], bits[4], bits[5], bits[6], bits[7],
        ]);
    }

    /// The digest of the binary form, or `None` when the form, whole in the
    /// block, is short enough to be the key itself. By reference: the digester
    /// holds a whole (unused) `blake3::Hasher`, about 2 KB, that a move would copy.
    fn finish(&mut self) -> Option<blake3::Hash> {
        let form = self.block.get(..self.len).unwrap_or_default();
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
            Scalar::Null => self.put([NULL]),
            Scalar::Bool(false) => self.put([FALSE]),
            Scalar::Bool(true) => self.put([TRUE]),
            Scalar::NumberText(token) => self.number(token.parse().unwrap_or(f64::NAN)),
            Scalar::Number(value) => self.number(value),
            Scalar::Str(text) => self.string(text),
        }
    }
    fn open_array(&mut self) {
        self.put([ARRAY]);
    }
    fn close_array(&mut self) {
        self.put([END]);
    }
    fn open_object(&mut self) {
        self.put([OBJECT]);
    }
    fn close_object(&mut self) {
        self.put([END]);
    }
    fn element_separator(&mut self) {}
    #[inline]
    fn key(&mut self, key: &Key<'_>, _first: bool) {
        self.string(Str::from(key));
    }
}

/// Key of (tool, canonical arguments); the tool name (UTF-16 code units) is
/// length-prefixed so no (tool, arguments) pair can run into another.
pub fn call_key(
    tool: &[u16],
    arguments: Arguments<'_>,
    scratch: &mut Scratch,
) -> Result<CallKey, CanonicalError> {
    digest_form(tool, arguments, scratch, &[]).map(|form| CallKey::from(&form))
}

/// The key form of any arguments without the members `ignored` names,
/// written into `scratch`'s block and hashed when long.
pub(crate) fn digest_form<'s>(
    tool: &[u16],
    arguments: Arguments<'_>,
    scratch: &'s mut Scratch,
    ignored: &[KeyPath],
) -> Result<KeyForm<'s>, CanonicalError> {
    let mut block = std::mem::take(&mut scratch.block);
    let mut digester = Digester {
        hasher: None,
        block: &mut block,
        len: 0,
    };
    digester.put([TOOL]);
    digester.units(tool);
    let visited = if ignored.is_empty() {
        visit(arguments, scratch, &mut digester)
    } else {
        visit(
            arguments,
            scratch,
            &mut Without::new(&mut digester, ignored),
        )
    };
    let digest = visited.map(|()| digester.finish());
    let len = digester.len;
    scratch.block = block;
    Ok(match digest? {
        None => KeyForm::Inline(scratch.block.get(..len).unwrap_or_default()),
        Some(hash) => KeyForm::Digest(*hash.as_bytes()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(tool: &str, json: &str) -> CallKey {
        call_key(&units(tool), Arguments::Json(json), &mut Scratch::default()).unwrap()
    }

    fn units(text: &str) -> Vec<u16> {
        text.encode_utf16().collect()
    }

    #[test]
    fn key_ignores_property_order_but_not_tool_or_values() {
        assert_eq!(
            key("grep", r#"{"a":1,"b":2}"#),
            key("grep", r#"{ "b":2, "a":1 }"#)
        );
        assert_ne!(key("grep", r#"{"a":1}"#), key("find", r#"{"a":1}"#));
        let lone = |unit: u16| {
            call_key(
                &[u16::from(b'x'), unit],
                Arguments::Json("1"),
                &mut Scratch::default(),
            )
            .unwrap()
        };
        assert_ne!(
            lone(0xd800),
            lone(0xdbff),
            "tools told apart by a lone surrogate"
        );
        assert_ne!(lone(0xd800), key("x\u{fffd}", "1"));
        assert_eq!(lone(0xfffd), key("x\u{fffd}", "1"));
        assert_ne!(key("grep", r#"{"a":1}"#), key("grep", r#"{"a":2}"#));
        assert_ne!(key("grep", r#"["a","b"]"#), key("grep", r#"["ab"]"#));
        assert_ne!(key("grep", r"[1]"), key("grep", r#"["1"]"#));
    }

    #[test]
    fn equal_canonical_values_share_a_key_whatever_their_spelling() {
        assert_eq!(key("t", "[1.0, -0, 1e2]"), key("t", "[1, 0, 100]"));
        assert_eq!(key("t", r#"["\u0041\u00e9"]"#), key("t", "[\"A\u{e9}\"]"));
        assert_eq!(key("t", r#"{"a":1,"a":2}"#), key("t", r#"{"a":2}"#));
        assert_eq!(key("t", "[1e400]"), key("t", "[null]"));
        assert_ne!(key("t", "[\"\u{e9}\"]"), key("t", "[\"\u{1e9}\"]"));
    }

    #[test]
    fn keys_stay_exact_on_both_sides_of_the_inline_limit() {
        for n in INLINE - 12..INLINE + 12 {
            let text = |tail: &str| format!("\"{}{tail}\"", "x".repeat(n));
            assert_eq!(key("t", &text("")), key("t", &text("")));
            assert_ne!(key("t", &text("")), key("t", &text("y")));
            assert_ne!(key("t", &text("y")), key("t", &text("z")));
        }
    }

    #[test]
    fn keys_compared_and_set_in_place_match_built_keys() {
        let long = format!("[\"{}\"]", "x".repeat(200));
        let keys = [
            key("t", "1"),
            key("t", r#"{"a":[1,"bc"]}"#),
            key("t", &long),
            key("", "null"),
        ];
        for a in &keys {
            for b in &keys {
                assert_eq!(a.is(&b.form()), a == b);
                let mut c = *a;
                c.set(&b.form());
                assert_eq!(c, *b, "set leaves no byte of the old key behind");
                assert_eq!(CallKey::from(&b.form()), *b);
            }
        }
    }

    #[test]
    fn key_covers_bytes_far_past_any_preview() {
        let long = "x".repeat(1 << 20);
        assert_ne!(
            key("t", &format!("[\"{long}a\"]")),
            key("t", &format!("[\"{long}b\"]"))
        );
    }

    #[test]
    fn raw_string_and_json_string_share_a_key() {
        assert_eq!(
            call_key(
                &units("t"),
                Arguments::Text(&units("hi\n\u{e9}")),
                &mut Scratch::default()
            )
            .unwrap(),
            key("t", r#""hi\n\u00e9""#)
        );
    }
}
