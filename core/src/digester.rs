//! The digester: the key form's writer (see `form`), into a block that it
//! hashes with BLAKE3 when the form is longer than [`INLINE`]. Both ways of
//! writing a form use it: the canonical walk (it is a [`Visitor`]) and the
//! direct writer (`direct`), which puts a transport's bytes in as they are.

use crate::form::push_len;
use crate::form::tag::{ARRAY, END, FALSE, NARROW, NULL, NUMBER, OBJECT, TOOL, TRUE, WIDE};
use crate::key::INLINE;
use crate::key_order::Key;
use crate::value::{decode_json_string, Scalar, Str, Visitor};

/// Writes the key form in a fixed block: kept whole when it fits (most
/// calls; then it is the key itself, or hashed in one go), else hashed block by
/// block, blocks large enough for BLAKE3's SIMD paths. A write checks its room
/// once, with no `Vec` capacity checks per byte.
pub(crate) struct Digester<'b> {
    /// Boxed: a `blake3::Hasher` is about 2 KB, which every move of the
    /// digester would copy, and only a form longer than the block needs one.
    hasher: Option<Box<blake3::Hasher>>,
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

impl<'b> Digester<'b> {
    /// A digester writing into `block` (a buffer kept from call to call), the
    /// form started with the tool name.
    pub(crate) fn new(block: &'b mut Vec<u8>, tool: &[u16]) -> Self {
        let mut digester = Self {
            hasher: None,
            block,
            len: 0,
        };
        digester.restart(tool);
        digester
    }

    /// Forgets all but the tool name: the form is written again from the start.
    pub(crate) fn restart(&mut self, tool: &[u16]) {
        self.hasher = None;
        self.len = 0;
        self.put([TOOL]);
        self.units(tool);
    }

    /// The bytes of the form kept in the block (all of it when it was not hashed).
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

impl Digester<'_> {
    /// Appends a few bytes (`N` at most [`BLOCK`]).
    #[inline(always)]
    pub(crate) fn put<const N: usize>(&mut self, bytes: [u8; N]) {
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

    pub(crate) fn bytes(&mut self, mut bytes: &[u8]) {
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

    /// Appends `source[start..end]`: a short span as one fixed-size copy where
    /// both sides have room for it (what it writes past the span is written
    /// over later), with no call to `memcpy`; any other as [`Digester::bytes`].
    #[inline(always)]
    pub(crate) fn span(&mut self, source: &[u8], start: usize, end: usize) {
        const SHORT: usize = 32;
        let n = end.saturating_sub(start);
        if n <= SHORT {
            let from = source
                .get(start..)
                .and_then(|rest| rest.first_chunk::<SHORT>());
            let to = self
                .block
                .get_mut(self.len..)
                .and_then(|rest| rest.first_chunk_mut::<SHORT>());
            if let (Some(from), Some(to)) = (from, to) {
                *to = *from;
                self.len += n;
                return;
            }
        }
        self.bytes(source.get(start..end).unwrap_or_default());
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
            let hasher = self.hasher.get_or_insert_with(Box::default);
            hasher.update(self.block.get(..BLOCK).unwrap_or_default());
            self.block.copy_within(BLOCK..self.len, 0);
            self.len -= BLOCK;
        }
    }

    /// A tag and a length, the length in LEB128 (seven bits a byte, high bit
    /// set on all but the last): short lengths take one byte, which keeps small
    /// calls to two BLAKE3 blocks; the code stays prefix-free.
    #[inline]
    pub(crate) fn tag_len(&mut self, tag: u8, len: usize) {
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
    pub(crate) fn units(&mut self, units: &[u16]) {
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
    pub(crate) fn number(&mut self, value: f64) {
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
    /// block, is short enough to be the key itself.
    pub(crate) fn finish(&mut self) -> Option<blake3::Hash> {
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
