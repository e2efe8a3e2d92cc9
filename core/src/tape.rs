//! The arguments as a flat tape of tokens, and the one walk over it in
//! canonical order that both the canonical text and the chain digest use.
//!
//! A tape comes from JSON text ([`Tape::parse_json`]); the key form the
//! plugin writes in JavaScript is read back in place ([`crate::form::walk`])
//! through the same [`Visitor`]. Neither the parser nor the walks recurse, so
//! input depth never becomes Rust stack depth.

use std::cmp::Ordering;

use crate::canonical::{Arguments, CanonicalError};
use crate::form::FormFrame;

/// One token. Containers record where their subtree ends on the tape.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Token {
    Null,
    True,
    False,
    /// Byte span of a number in the JSON text.
    NumberText {
        start: usize,
        end: usize,
    },
    /// Byte span between the quotes in the JSON text; `escaped` when it holds a backslash.
    JsonStr {
        start: usize,
        end: usize,
        escaped: bool,
    },
    /// `end` is the tape index just past the last descendant.
    Array {
        end: usize,
    },
    /// Members are (key, value subtree) pairs up to `end`.
    Object {
        end: usize,
    },
}

/// Buffers reused from call to call, so a small call allocates nothing.
#[derive(Debug, Default)]
pub struct Scratch {
    tokens: Vec<Token>,
    open: Vec<Open>,
    frames: Vec<Frame>,
    members: Vec<Member>,
    form_frames: Vec<FormFrame>,
    /// A key form's current string, decoded to UTF-16.
    form_units: Vec<u16>,
    /// Escaped JSON keys, decoded to UTF-16, back to back.
    decoded: Vec<u16>,
    /// The digest's input block: zeroed as it grows (to 16 KB at most), then
    /// kept whole, not trimmed, so a call writes into it without zeroing.
    pub(crate) block: Vec<u8>,
}

/// Buffers larger than this are given back after a call.
const KEEP: usize = 1 << 14;

impl Scratch {
    /// Drops buffers a large call grew, so one huge call does not pin its memory.
    pub(crate) fn trim(&mut self) {
        fn trim<T>(buffer: &mut Vec<T>) {
            buffer.clear();
            if buffer.capacity() > KEEP {
                *buffer = Vec::new();
            }
        }
        trim(&mut self.tokens);
        trim(&mut self.open);
        trim(&mut self.frames);
        trim(&mut self.members);
        trim(&mut self.form_frames);
        trim(&mut self.form_units);
        trim(&mut self.decoded);
    }
}

/// Walks `arguments` in canonical order with `visitor`, using `scratch`'s buffers.
pub(crate) fn visit(
    arguments: Arguments<'_>,
    scratch: &mut Scratch,
    visitor: &mut impl Visitor,
) -> Result<(), CanonicalError> {
    let Scratch {
        tokens,
        open,
        frames,
        members,
        form_frames,
        form_units,
        decoded,
        ..
    } = scratch;
    match arguments {
        Arguments::Json(text) => {
            Tape::parse_json(text, tokens, open)?.walk(frames, members, decoded, visitor);
        }
        Arguments::Form { key, arguments_at } => {
            let form = key
                .get(arguments_at..)
                .ok_or(CanonicalError::InvalidEncoding(arguments_at))?;
            crate::form::walk(form, form_frames, form_units, visitor)?;
        }
        Arguments::Text(units) => visitor.scalar(Scalar::Str(Str::Units(units))),
    }
    Ok(())
}

/// An open container while the JSON parser reads: its tape index and whether it is an object.
#[derive(Debug)]
pub(crate) struct Open {
    pub(crate) index: usize,
    pub(crate) object: bool,
}

/// Parsed JSON text: tokens plus the text their spans point into.
pub(crate) struct Tape<'a> {
    text: &'a str,
    tokens: &'a [Token],
}

/// A string on the tape, resolved against its source.
#[derive(Clone, Copy)]
pub(crate) enum Str<'a> {
    /// JSON text without escapes: already the string's content.
    Plain(&'a str),
    /// JSON text with escapes, still to be decoded.
    Escaped(&'a str),
    /// UTF-16 code units.
    Units(&'a [u16]),
}

/// A scalar on the tape, resolved against its source.
pub(crate) enum Scalar<'a> {
    Null,
    Bool(bool),
    NumberText(&'a str),
    Number(f64),
    Str(Str<'a>),
}

/// Receives a value in canonical order: object members sorted, duplicates
/// resolved, members without a JSON form left out.
pub(crate) trait Visitor {
    fn scalar(&mut self, value: Scalar<'_>);
    fn open_array(&mut self);
    fn close_array(&mut self);
    fn open_object(&mut self);
    fn close_object(&mut self);
    /// Before every array element but the first.
    fn element_separator(&mut self);
    /// The key of the next member; `first` for the object's first member.
    fn key(&mut self, key: &Key<'_>, first: bool);
}

impl<'a> Tape<'a> {
    /// Parses JSON text; anything `JSON.parse` rejects is an error.
    pub(crate) fn parse_json(
        text: &'a str,
        tokens: &'a mut Vec<Token>,
        open: &mut Vec<Open>,
    ) -> Result<Self, CanonicalError> {
        parse(text.as_bytes(), tokens, open)?;
        Ok(Tape { text, tokens })
    }

    fn str_at(&self, token: Token) -> Str<'a> {
        match token {
            Token::JsonStr {
                start,
                end,
                escaped,
            } => {
                let raw = self.text.get(start..end).unwrap_or_default();
                if escaped {
                    Str::Escaped(raw)
                } else {
                    Str::Plain(raw)
                }
            }
            // Only string tokens stand in key position; the front ends guarantee it.
            _ => Str::Plain(""),
        }
    }

    fn scalar_at(&self, token: Token) -> Scalar<'a> {
        match token {
            Token::True => Scalar::Bool(true),
            Token::False => Scalar::Bool(false),
            Token::NumberText { start, end } => {
                Scalar::NumberText(self.text.get(start..end).unwrap_or("0"))
            }
            Token::JsonStr { .. } => Scalar::Str(self.str_at(token)),
            _ => Scalar::Null,
        }
    }

    /// Walks the value in canonical order. Iterative: an explicit stack of frames.
    pub(crate) fn walk(
        &self,
        frames: &mut Vec<Frame>,
        members: &mut Vec<Member>,
        decoded: &mut Vec<u16>,
        visitor: &mut impl Visitor,
    ) {
        let tokens = self.tokens;
        frames.clear();
        members.clear();
        decoded.clear();
        let mut pending = Some(0);
        loop {
            if let Some(index) = pending.take() {
                match tokens.get(index).copied() {
                    Some(Token::Array { end }) => {
                        visitor.open_array();
                        frames.push(Frame::Array {
                            next: index + 1,
                            end,
                            first: true,
                        });
                    }
                    Some(Token::Object { end }) => {
                        let start = members.len();
                        let decoded_start = decoded.len();
                        self.sorted_members(index, end, members, decoded);
                        visitor.open_object();
                        frames.push(Frame::Object {
                            start,
                            decoded_start,
                            position: start,
                        });
                    }
                    Some(token) => visitor.scalar(self.scalar_at(token)),
                    None => visitor.scalar(Scalar::Null),
                }
            }
            let Some(frame) = frames.last_mut() else {
                break;
            };
            match frame {
                Frame::Array { next, end, first } => {
                    if *next >= *end {
                        visitor.close_array();
                        frames.pop();
                    } else {
                        if !*first {
                            visitor.element_separator();
                        }
                        *first = false;
                        pending = Some(*next);
                        *next = subtree_end(tokens, *next);
                    }
                }
                Frame::Object {
                    start,
                    decoded_start,
                    position,
                } => match members.get(*position) {
                    None => {
                        visitor.close_object();
                        members.truncate(*start);
                        decoded.truncate(*decoded_start);
                        frames.pop();
                    }
                    Some(member) => {
                        visitor.key(&self.key(member, decoded), *position == *start);
                        pending = Some(member.value);
                        *position += 1;
                    }
                },
            }
        }
    }

    /// A member's key, resolved against the tape and the decoded keys.
    fn key<'k>(&'k self, member: &Member, decoded: &'k [u16]) -> Key<'k> {
        match member.decoded {
            Some((start, end)) => Key::Units(decoded.get(start..end).unwrap_or_default()),
            None => {
                match self.str_at(self.tokens.get(member.key).copied().unwrap_or(Token::Null)) {
                    Str::Plain(text) | Str::Escaped(text) => Key::Plain(text),
                    Str::Units(units) => Key::Units(units),
                }
            }
        }
    }

    /// Appends the members of the object at `index` to `members` in canonical
    /// order: later duplicates win, as in `JSON.parse`.
    fn sorted_members(
        &self,
        index: usize,
        end: usize,
        members: &mut Vec<Member>,
        decoded: &mut Vec<u16>,
    ) {
        let start = members.len();
        let mut i = index + 1;
        while i < end {
            let token = self.tokens.get(i).copied().unwrap_or(Token::Null);
            let mut member = Member {
                key: i,
                decoded: None,
                order: 0,
                value: i + 1,
            };
            if let Str::Escaped(raw) = self.str_at(token) {
                let from = decoded.len();
                decode_json_string_into(raw, decoded);
                member.decoded = Some((from, decoded.len()));
            }
            member.order = self.key(&member, decoded).order_key();
            i = subtree_end(self.tokens, member.value);
            members.push(member);
        }
        let decoded = &*decoded;
        let full = |a: &Member, b: &Member| self.key(a, decoded).cmp_utf16(&self.key(b, decoded));
        let order = |a: &Member, b: &Member| a.order.cmp(&b.order).then_with(|| full(a, b));
        let slice = members.get_mut(start..).unwrap_or_default();
        // Strictly ascending means sorted with no key twice: nothing to do.
        if slice.is_sorted_by(|a, b| order(a, b) == Ordering::Less) {
            return;
        }
        // Stable, so duplicates stay in text order and the last one can win below.
        slice.sort_by(order);
        // Keep, of each run of equal keys, the last member.
        let mut write = start;
        for read in start..members.len() {
            let (Some(&current), next) = (members.get(read), members.get(read + 1)) else {
                break;
            };
            if next.is_none_or(|next| order(&current, next) != Ordering::Equal) {
                if let Some(slot) = members.get_mut(write) {
                    *slot = current;
                }
                write += 1;
            }
        }
        members.truncate(write);
    }
}

#[derive(Debug)]
pub(crate) enum Frame {
    Array {
        next: usize,
        end: usize,
        first: bool,
    },
    /// Walking the members `members[start..]` of an object, now at `position`.
    Object {
        start: usize,
        decoded_start: usize,
        position: usize,
    },
}

/// An object member: where its key is, the key as an array index, and its
/// value's tape index.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Member {
    /// Tape index of the key's string token.
    key: usize,
    /// Span of the decoded key in the decoded-keys buffer, for escaped JSON keys.
    decoded: Option<(usize, usize)>,
    /// [`Key::order_key`]: decides most comparisons without looking at the keys.
    order: u64,
    value: usize,
}

/// A property key, decoded as far as sorting needs.
pub(crate) enum Key<'a> {
    /// From JSON text without escapes.
    Plain(&'a str),
    /// UTF-16 code units: from a key form, or a decoded escaped JSON key.
    Units(&'a [u16]),
}

impl Key<'_> {
    pub(crate) fn as_str(&self) -> Str<'_> {
        match self {
            Key::Plain(text) => Str::Plain(text),
            Key::Units(units) => Str::Units(units),
        }
    }

    /// A number that orders keys as [`Member`]s sort (array indices first,
    /// numerically, then UTF-16 order) wherever two keys' numbers differ; equal
    /// numbers need a full comparison. An index is its value; any other key is
    /// a high bit, then its first three code units.
    fn order_key(&self) -> u64 {
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
    fn cmp_utf16(&self, other: &Self) -> Ordering {
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

/// Tape index just past the subtree that starts at `index`.
fn subtree_end(tokens: &[Token], index: usize) -> usize {
    match tokens.get(index) {
        Some(Token::Array { end, .. } | Token::Object { end }) => *end,
        _ => index + 1,
    }
}

/// Decodes a validated JSON string token's content to UTF-16 code units.
pub(crate) fn decode_json_string(raw: &str) -> Vec<u16> {
    let mut units = Vec::with_capacity(raw.len());
    decode_json_string_into(raw, &mut units);
    units
}

/// Appends a validated JSON string token's content to `units`.
fn decode_json_string_into(raw: &str, units: &mut Vec<u16>) {
    let mut rest = raw;
    while let Some(at) = rest.find('\\') {
        let (plain, escape) = rest.split_at(at);
        units.extend(plain.encode_utf16());
        let mut chars = escape.chars();
        chars.next();
        let unit = match chars.next() {
            Some('b') => 0x08,
            Some('f') => 0x0c,
            Some('n') => 0x0a,
            Some('r') => 0x0d,
            Some('t') => 0x09,
            Some('u') => {
                let hex = escape.get(2..6).unwrap_or("0");
                rest = escape.get(6..).unwrap_or_default();
                units.push(u16::from_str_radix(hex, 16).unwrap_or(0));
                continue;
            }
            Some(c) => c as u16,
            None => 0,
        };
        units.push(unit);
        rest = escape.get(2..).unwrap_or_default();
    }
    units.extend(rest.encode_utf16());
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    Value,
    ValueOrClose,
    Key,
    KeyOrClose,
    Colon,
    CommaOrClose,
    End,
}

fn parse(bytes: &[u8], tape: &mut Vec<Token>, open: &mut Vec<Open>) -> Result<(), CanonicalError> {
    tape.clear();
    open.clear();
    let mut expect = Expect::Value;
    let mut i = 0;
    loop {
        i = skip_whitespace(bytes, i);
        let Some(&byte) = bytes.get(i) else {
            return if expect == Expect::End {
                Ok(())
            } else {
                Err(CanonicalError::InvalidJson(i))
            };
        };
        let closes = match (expect, byte) {
            (Expect::ValueOrClose, b']') | (Expect::KeyOrClose, b'}') => true,
            (Expect::CommaOrClose, b']' | b'}') => {
                open.last().map(|o| o.object) == Some(byte == b'}')
            }
            _ => false,
        };
        if closes {
            // `open` is non-empty here: only container states can close.
            let Some(Open { index, .. }) = open.pop() else {
                return Err(CanonicalError::InvalidJson(i));
            };
            let tape_end = tape.len();
            if let Some(Token::Array { end } | Token::Object { end }) = tape.get_mut(index) {
                *end = tape_end;
            }
            i += 1;
            expect = if open.is_empty() {
                Expect::End
            } else {
                Expect::CommaOrClose
            };
            continue;
        }
        match expect {
            Expect::Value | Expect::ValueOrClose => {
                match byte {
                    b'{' => {
                        open.push(Open {
                            index: tape.len(),
                            object: true,
                        });
                        tape.push(Token::Object { end: 0 });
                        i += 1;
                        expect = Expect::KeyOrClose;
                        continue;
                    }
                    b'[' => {
                        open.push(Open {
                            index: tape.len(),
                            object: false,
                        });
                        tape.push(Token::Array { end: 0 });
                        i += 1;
                        expect = Expect::ValueOrClose;
                        continue;
                    }
                    b'"' => i = string_token(bytes, i, tape)?,
                    b't' => i = literal(bytes, i, b"true", Token::True, tape)?,
                    b'f' => i = literal(bytes, i, b"false", Token::False, tape)?,
                    b'n' => i = literal(bytes, i, b"null", Token::Null, tape)?,
                    b'-' | b'0'..=b'9' => {
                        let end = scan_number(bytes, i)?;
                        tape.push(Token::NumberText { start: i, end });
                        i = end;
                    }
                    _ => return Err(CanonicalError::InvalidJson(i)),
                }
                expect = if open.is_empty() {
                    Expect::End
                } else {
                    Expect::CommaOrClose
                };
            }
            Expect::Key | Expect::KeyOrClose => {
                if byte != b'"' {
                    return Err(CanonicalError::InvalidJson(i));
                }
                i = string_token(bytes, i, tape)?;
                expect = Expect::Colon;
            }
            Expect::Colon => {
                if byte != b':' {
                    return Err(CanonicalError::InvalidJson(i));
                }
                i += 1;
                expect = Expect::Value;
            }
            Expect::CommaOrClose => {
                if byte != b',' {
                    return Err(CanonicalError::InvalidJson(i));
                }
                i += 1;
                expect = match open.last() {
                    Some(Open { object: true, .. }) => Expect::Key,
                    _ => Expect::Value,
                };
            }
            Expect::End => return Err(CanonicalError::InvalidJson(i)),
        }
    }
}

/// Pushes the string whose opening quote is at `i`; returns the index past its closing quote.
fn string_token(bytes: &[u8], i: usize, tape: &mut Vec<Token>) -> Result<usize, CanonicalError> {
    let (end, escaped) = scan_string(bytes, i + 1)?;
    tape.push(Token::JsonStr {
        start: i + 1,
        end,
        escaped,
    });
    Ok(end + 1)
}

fn skip_whitespace(bytes: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(i) {
        i += 1;
    }
    i
}

fn literal(
    bytes: &[u8],
    i: usize,
    word: &[u8],
    token: Token,
    tape: &mut Vec<Token>,
) -> Result<usize, CanonicalError> {
    if bytes.get(i..i + word.len()) == Some(word) {
        tape.push(token);
        Ok(i + word.len())
    } else {
        Err(CanonicalError::InvalidJson(i))
    }
}

/// Finds the closing quote of a string whose content starts at `i`; validates escapes.
fn scan_string(bytes: &[u8], mut i: usize) -> Result<(usize, bool), CanonicalError> {
    let mut escaped = false;
    loop {
        // Skip the plain run in one go: this is the hot loop for large strings.
        let rest = bytes.get(i..).unwrap_or_default();
        let plain = plain_run(rest).ok_or(CanonicalError::InvalidJson(bytes.len()))?;
        i += plain;
        match bytes.get(i) {
            Some(b'"') => return Ok((i, escaped)),
            Some(b'\\') => {
                escaped = true;
                match bytes.get(i + 1) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                    Some(b'u') => {
                        let hex = bytes
                            .get(i + 2..i + 6)
                            .ok_or(CanonicalError::InvalidJson(i))?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return Err(CanonicalError::InvalidJson(i));
                        }
                        i += 6;
                    }
                    _ => return Err(CanonicalError::InvalidJson(i)),
                }
            }
            _ => return Err(CanonicalError::InvalidJson(i)),
        }
    }
}

/// Length of the leading run of bytes that need no attention inside a string
/// (not `"`, `\` or a control character), or `None` if the text ends first.
/// Eight bytes at a time: the hot loop for large strings.
fn plain_run(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has_byte = |word: u64, byte: u8| {
        (word ^ (ONES * u64::from(byte))).wrapping_sub(ONES)
            & !(word ^ (ONES * u64::from(byte)))
            & HIGHS
    };
    let mut chunks = bytes.chunks_exact(8);
    let mut offset = 0;
    for chunk in chunks.by_ref() {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        // Bytes below 0x20: (b - 0x20) borrows into the high bit when b < 0x20 and b < 0x80.
        let control = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
        if has_byte(word, b'"') | has_byte(word, b'\\') | control != 0 {
            break;
        }
        offset += 8;
    }
    bytes
        .get(offset..)
        .unwrap_or_default()
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .map(|at| offset + at)
}

/// Validates `-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?` from `i`; returns its end.
fn scan_number(bytes: &[u8], mut i: usize) -> Result<usize, CanonicalError> {
    let digits = |bytes: &[u8], mut i: usize| -> Result<usize, CanonicalError> {
        let start = i;
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            Err(CanonicalError::InvalidJson(i))
        } else {
            Ok(i)
        }
    };
    if bytes.get(i) == Some(&b'-') {
        i += 1;
    }
    if bytes.get(i) == Some(&b'0') {
        i += 1;
    } else {
        i = digits(bytes, i)?;
    }
    if bytes.get(i) == Some(&b'.') {
        i = digits(bytes, i + 1)?;
    }
    if let Some(b'e' | b'E') = bytes.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = bytes.get(i) {
            i += 1;
        }
        i = digits(bytes, i)?;
    }
    Ok(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_run_stops_at_quotes_backslashes_and_controls() {
        for (text, expected) in [
            ("abc\"", Some(3)),
            ("0123456789abcdef\"", Some(16)),
            ("01234567\\", Some(8)),
            ("0123456\u{1f}", Some(7)),
            ("\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\"", Some(10)),
            (
                "\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}\"",
                Some(9),
            ),
            ("no end at all", None),
        ] {
            assert_eq!(plain_run(text.as_bytes()), expected, "{text:?}");
        }
    }
}
