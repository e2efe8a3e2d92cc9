//! The tape: a value read into one flat list of tokens by the transport's
//! reader (`transport`: what the plugin's JavaScript writes, and JSON text
//! once `json` has written it so), and walked once in canonical order. Every
//! canonical rule of the arguments is applied here: members sorted
//! (array indices first, numerically, then UTF-16 order), later duplicates
//! winning, members without a JSON form left out and array elements without
//! one as `null`. Numbers go to the visitor as they came (`-0` and non-finite
//! numbers are the writers' to print as JSON does). An explicit stack of
//! frames: input depth never becomes Rust stack depth.

use std::cmp::Ordering;

use crate::key_order::Key;
use crate::value::{Pieces, Scalar, Str, Visitor};

/// One token. Containers record where their subtree ends on the tape.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Token {
    Null,
    True,
    False,
    /// A number, as JavaScript held it.
    Number(f64),
    /// Byte span of a transport string's code units: one byte each, or two (little-endian) when `wide`.
    Units {
        start: usize,
        end: usize,
        wide: bool,
    },
    /// A long string the transport passed as it is: its index among the
    /// narrow pieces, or the wide ones.
    Piece {
        index: usize,
        wide: bool,
    },
    /// A value JSON has no form for (`undefined`, a function, a symbol): a
    /// member left out, an element written as `null`.
    Absent,
    /// `end` is the tape index just past the last descendant.
    Array {
        end: usize,
    },
    /// Members are (key, value subtree) pairs up to `end`.
    Object {
        end: usize,
    },
}

/// An open container while a reader fills the tape: its tape index, whether
/// it is an object, and (from the transport) where its bytes end.
#[derive(Debug)]
pub(crate) struct Open {
    pub(crate) index: usize,
    pub(crate) object: bool,
    pub(crate) end: usize,
}

/// A filled tape with what its tokens point into: the transport's bytes and long strings.
pub(crate) struct Tape<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) pieces: Pieces<'a>,
    pub(crate) tokens: &'a [Token],
}

impl<'a> Tape<'a> {
    fn str_at(&self, token: Token) -> Str<'a> {
        match token {
            Token::Units { start, end, wide } => {
                let units = self.bytes.get(start..end).unwrap_or_default();
                if wide {
                    Str::Wide(units)
                } else {
                    Str::Narrow(units)
                }
            }
            Token::Piece { index, wide: false } => {
                Str::Narrow(self.pieces.narrow.get(index).copied().unwrap_or_default())
            }
            Token::Piece { index, wide: true } => {
                Str::Units(self.pieces.wide.get(index).copied().unwrap_or_default())
            }
            // Only string tokens stand in key position; the reader guarantees it.
            _ => Str::Narrow(&[]),
        }
    }

    fn scalar_at(&self, token: Token) -> Scalar<'a> {
        match token {
            Token::True => Scalar::Bool(true),
            Token::False => Scalar::Bool(false),
            Token::Number(value) => Scalar::Number(value),
            Token::Units { .. } | Token::Piece { .. } => Scalar::Str(self.str_at(token)),
            // An element without a JSON form is `null` (members without one are left out).
            Token::Null | Token::Absent | Token::Array { .. } | Token::Object { .. } => {
                Scalar::Null
            }
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
            // A visitor that wants no more (a capped sample) ends the walk; for the others this is `false`.
            if visitor.full() {
                break;
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
        match member.key {
            KeyAt::Narrow { start, end } => {
                Key::Narrow(self.bytes.get(start..end).unwrap_or_default())
            }
            KeyAt::Decoded { start, end } => {
                Key::Units(decoded.get(start..end).unwrap_or_default())
            }
            KeyAt::Piece { index, wide: false } => {
                Key::Narrow(self.pieces.narrow.get(index).copied().unwrap_or_default())
            }
            KeyAt::Piece { index, wide: true } => {
                Key::Units(self.pieces.wide.get(index).copied().unwrap_or_default())
            }
        }
    }

    /// Appends the members of the object at `index` to `members` in canonical
    /// order: later duplicates win, as in `JSON.parse`, and members without a
    /// JSON form are then left out, as `JSON.stringify` leaves them.
    fn sorted_members(
        &self,
        index: usize,
        end: usize,
        members: &mut Vec<Member>,
        decoded: &mut Vec<u16>,
    ) {
        let start = members.len();
        let mut absent = false;
        let mut i = index + 1;
        while i < end {
            let token = self.tokens.get(i).copied().unwrap_or(Token::Null);
            // Keys that are not their own code units yet are decoded into `decoded`.
            let key = match token {
                Token::Units {
                    start,
                    end,
                    wide: false,
                } => KeyAt::Narrow { start, end },
                Token::Piece { index, wide } => KeyAt::Piece { index, wide },
                token => {
                    let from = decoded.len();
                    if let Str::Wide(bytes) = self.str_at(token) {
                        decoded.extend(wide_units(bytes));
                    }
                    KeyAt::Decoded {
                        start: from,
                        end: decoded.len(),
                    }
                }
            };
            let mut member = Member {
                key,
                order: 0,
                value: i + 1,
            };
            member.order = self.key(&member, decoded).order_key();
            absent |= matches!(self.tokens.get(member.value), Some(Token::Absent));
            i = subtree_end(self.tokens, member.value);
            members.push(member);
        }
        let decoded = &*decoded;
        let full = |a: &Member, b: &Member| self.key(a, decoded).cmp_utf16(&self.key(b, decoded));
        let order = |a: &Member, b: &Member| a.order.cmp(&b.order).then_with(|| full(a, b));
        let slice = members.get_mut(start..).unwrap_or_default();
        // Stable, so duplicates stay in input order and the last one can win below. A sort
        // compares every two members that end up side by side, so if it met no equal pair, no
        // key is there twice.
        let mut twice = false;
        slice.sort_by(|a, b| {
            let ordering = order(a, b);
            twice |= ordering == Ordering::Equal;
            ordering
        });
        if !twice && !absent {
            return;
        }
        // Keep, of each run of equal keys, the last member, unless it has no JSON form.
        let mut write = start;
        for read in start..members.len() {
            let (Some(&current), next) = (members.get(read), members.get(read + 1)) else {
                break;
            };
            let last = !twice || next.is_none_or(|next| order(&current, next) != Ordering::Equal);
            if last && !matches!(self.tokens.get(current.value), Some(Token::Absent)) {
                if let Some(slot) = members.get_mut(write) {
                    *slot = current;
                }
                write += 1;
            }
        }
        members.truncate(write);
    }
}

/// The code units of a wide string's bytes (little-endian pairs).
pub(crate) fn wide_units(bytes: &[u8]) -> impl Iterator<Item = u16> + '_ {
    bytes
        .as_chunks::<2>()
        .0
        .iter()
        .map(|pair| u16::from_le_bytes(*pair))
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
    key: KeyAt,
    /// [`Key::order_key`]: decides most comparisons without looking at the keys.
    order: u64,
    value: usize,
}

/// Where a member's key lies: in the transport's bytes, in the decoded-keys
/// buffer (wide keys), or among the pieces.
#[derive(Clone, Copy, Debug)]
enum KeyAt {
    Narrow { start: usize, end: usize },
    Decoded { start: usize, end: usize },
    Piece { index: usize, wide: bool },
}

/// Tape index just past the subtree that starts at `index`.
fn subtree_end(tokens: &[Token], index: usize) -> usize {
    match tokens.get(index) {
        Some(Token::Array { end, .. } | Token::Object { end }) => *end,
        _ => index + 1,
    }
}
