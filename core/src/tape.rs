//! Parsed JSON text walked once in canonical order (members sorted as V8
//! orders a sorted object, later duplicates winning), with an explicit stack
//! of frames, so input depth never becomes Rust stack depth.

use std::cmp::Ordering;

use crate::error::CanonicalError;
use crate::json::{parse, Open, Token};
use crate::key_order::Key;
use crate::value::{decode_json_string_into, Scalar, Str, Visitor};

/// Parsed JSON text: tokens plus the text their spans point into.
pub(crate) struct Tape<'a> {
    text: &'a str,
    tokens: &'a [Token],
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

/// Tape index just past the subtree that starts at `index`.
fn subtree_end(tokens: &[Token], index: usize) -> usize {
    match tokens.get(index) {
        Some(Token::Array { end, .. } | Token::Object { end }) => *end,
        _ => index + 1,
    }
}
