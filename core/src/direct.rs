//! The key form of a transport written straight from its bytes, for the
//! common call: no tape, no visitor. A transport's scalars and strings are
//! the key form's bytes already and go in as they are, a run of them at a
//! time: an object's member with a scalar value as one span, an array's
//! scalars side by side as one. An object's members are found by stepping
//! over each value by its size (`transport`), put in canonical order
//! (`key_order`), and written in that order. The bytes are checked as the
//! transport reader (`transport`) checks them.
//!
//! Anything less common gives `None` and is left to the tape (`tape`), where
//! every canonical rule lives: a key that is wide or long, a key twice, a
//! member without a JSON form, and a malformed transport (whose error the
//! tape reader gives). The differential fuzz target checks that whatever this
//! writes, the tape writes too.

use std::cmp::Ordering;

use crate::digester::Digester;
use crate::form::string_span;
use crate::form::tag::{NULL, OBJECT};
use crate::key_order::{narrow_order_key, Key};
use crate::tape::sort_members;
use crate::transport::tag::{
    ABSENT, ARRAY, END, FALSE, LONG, LONG_WIDE, NARROW, NUMBER, TRUE, WIDE,
};
use crate::transport::{self, container_end, SIZE_BYTES};
use crate::value::Pieces;

/// The buffers of a write, kept from call to call.
#[derive(Debug, Default)]
pub(crate) struct Buffers {
    frames: Vec<Frame>,
    members: Members,
}

impl Buffers {
    /// Gives back what a large call grew past `keep` entries.
    pub(crate) fn trim(&mut self, keep: usize) {
        if self.frames.capacity() > keep {
            self.frames = Vec::new();
        }
        if self.members.open.capacity() > keep {
            self.members = Members::default();
        }
    }
}

/// The members of the open objects, each object's sorted, one after another.
#[derive(Debug, Default)]
struct Members {
    open: Vec<Member>,
}

impl Members {
    /// Puts `open[first..]` in canonical order; `false` when a key is there twice.
    fn sort(&mut self, bytes: &[u8], first: usize) -> bool {
        let Some(object) = self.open.get_mut(first..) else {
            return true;
        };
        // Most objects' order keys (seven code units) all differ: sorted by
        // them alone, as plain numbers, the members are in canonical order.
        sort_members(object, |a, b| a.order.cmp(&b.order));
        if object
            .windows(2)
            .all(|pair| matches!(pair, [a, b] if a.order != b.order))
        {
            return true;
        }
        // A sort compares every two members that end up side by side: if it met
        // no equal pair, no key is there twice.
        let mut twice = false;
        sort_members(object, |a, b| {
            let ordering = order(bytes, a, b);
            twice |= ordering == Ordering::Equal;
            ordering
        });
        !twice
    }
}

/// An open container: an array's next element and where its bytes end, or
/// an object's members (`members[first..last]`) and the next one of them.
#[derive(Debug, Clone, Copy)]
enum Frame {
    Array {
        next: usize,
        end: usize,
    },
    Object {
        first: usize,
        next: usize,
        last: usize,
    },
}

/// An object member: its order key, where its key's string starts (its tag)
/// and its code units start, where its value starts and ends, and whether the
/// value is a scalar whose bytes are its key form. Positions fit in 32 bits:
/// `write` takes no longer transport.
#[derive(Debug, Clone, Copy)]
struct Member {
    order: u64,
    key: u32,
    units: u32,
    value: u32,
    end: u32,
    own_form: bool,
}

impl Member {
    fn units<'a>(&self, bytes: &'a [u8]) -> &'a [u8] {
        bytes
            .get(self.units as usize..self.value as usize)
            .unwrap_or_default()
    }
}

/// [`narrow_order_key`] of the key whose code units are `bytes[units..end]`,
/// read as one word from the bytes there when they reach that far.
#[inline]
fn order_key(bytes: &[u8], units: usize, end: usize) -> u64 {
    let len = end - units;
    match bytes.get(units..).and_then(|rest| rest.first_chunk::<8>()) {
        // Not an array index: a high bit, then the first seven code units.
        Some(head) if len == 0 || !head[0].is_ascii_digit() => {
            let word = u64::from_be_bytes(*head) & !(u64::MAX >> (8 * len.min(7)));
            (1 << 63) | (word >> 1)
        }
        _ => narrow_order_key(bytes.get(units..end).unwrap_or_default()),
    }
}

/// Members in canonical order; equal keys are [`Ordering::Equal`].
fn order(bytes: &[u8], a: &Member, b: &Member) -> Ordering {
    a.order
        .cmp(&b.order)
        .then_with(|| Key::Narrow(a.units(bytes)).cmp_utf16(&Key::Narrow(b.units(bytes))))
}

/// Whether a number's bits are its key form's: not `-0`, and finite (JSON
/// prints the others as `0` and `null`).
#[inline]
fn plain_number(bits: [u8; 8]) -> bool {
    let bits = u64::from_le_bytes(bits);
    bits != 1 << 63 && (bits >> 52) & 0x7ff != 0x7ff
}

/// Writes the key form of the transport `bytes` (with its `pieces`) after
/// the tool name in `out`; `None` when the tape must write it instead (`out`
/// then holds a partial form, to restart).
pub(crate) fn write(
    bytes: &[u8],
    pieces: Pieces<'_>,
    out: &mut Digester<'_>,
    buffers: &mut Buffers,
) -> Option<()> {
    if u32::try_from(bytes.len()).is_err() {
        return None;
    }
    let Buffers { frames, members } = buffers;
    frames.clear();
    members.open.clear();
    let end = value(bytes, 0, pieces, out, frames, members, false)?;
    while let Some(&frame) = frames.last() {
        let top = frames.len() - 1;
        match frame {
            Frame::Array { next, end } => {
                // Scalars that are their own form, side by side, go in as one span.
                let run = scalars(bytes, next, end);
                out.span(bytes, next, run);
                if bytes.get(run) == Some(&END) {
                    if run + 1 != end {
                        return None;
                    }
                    out.put([END]);
                    frames.pop();
                    continue;
                }
                // Anything else, a container opened (its frame pushed above this one).
                let after = value(bytes, run, pieces, out, frames, members, true)?;
                if after >= end {
                    return None;
                }
                if let Some(Frame::Array { next, .. }) = frames.get_mut(top) {
                    *next = after;
                }
            }
            Frame::Object { first, next, last } => {
                // Members whose values are their own form (checked when they were
                // sorted), each key and value as one span, up to one that is not.
                let mut position = next;
                let member = loop {
                    match members.open.get(position).filter(|_| position < last) {
                        Some(member) if member.own_form => {
                            out.span(bytes, member.key as usize, member.end as usize);
                            position += 1;
                        }
                        member => break member.copied(),
                    }
                };
                let Some(member) = member else {
                    out.put([END]);
                    members.open.truncate(first);
                    frames.pop();
                    continue;
                };
                if let Some(Frame::Object { next, .. }) = frames.get_mut(top) {
                    *next = position + 1;
                }
                let (at, end) = (member.value as usize, member.end as usize);
                out.span(bytes, member.key as usize, at);
                if value(bytes, at, pieces, out, frames, members, false)? != end {
                    return None;
                }
            }
        }
    }
    (end == bytes.len()).then_some(())
}

/// Where the run of scalars whose bytes are their key form, from `at` on,
/// ends, each checked (no further than `end`).
#[inline]
fn scalars(bytes: &[u8], mut at: usize, end: usize) -> usize {
    while at < end {
        let next = match bytes.get(at) {
            Some(&(NULL | FALSE | TRUE)) => at + 1,
            Some(&NUMBER) => match bytes.get(at + 1..).and_then(|rest| rest.first_chunk::<8>()) {
                Some(bits) if plain_number(*bits) => at + 9,
                _ => break,
            },
            Some(&(NARROW | WIDE)) => match string_end(bytes, at) {
                Some(next) => next,
                None => break,
            },
            _ => break,
        };
        if next > end {
            break;
        }
        at = next;
    }
    at
}

/// Where the value at `at` ends (a container's end as its size says, a
/// scalar's as its bytes say, checked), and whether it is a scalar whose
/// bytes are its key form. `None` for a member without a JSON form (an
/// element's is `null`) and for anything malformed.
#[inline]
fn step(bytes: &[u8], at: usize, pieces: Pieces<'_>) -> Option<(usize, bool)> {
    match *bytes.get(at)? {
        NULL | FALSE | TRUE => Some((at + 1, true)),
        NUMBER => {
            let bits = bytes.get(at + 1..)?.first_chunk::<8>()?;
            Some((at + 9, plain_number(*bits)))
        }
        NARROW | WIDE => Some((string_end(bytes, at)?, true)),
        LONG | LONG_WIDE => piece(bytes, at, pieces).map(|(_, _, end)| (end, false)),
        ARRAY | OBJECT => Some((container_end(bytes, at)?, false)),
        _ => None,
    }
}

/// Where the string at `at` (narrow or wide) ends, checked as the transport reader checks it.
#[inline]
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    string_span(bytes, at).ok().map(|(_, _, end)| end)
}

/// [`transport::piece`] against `pieces`.
#[inline]
fn piece(bytes: &[u8], at: usize, pieces: Pieces<'_>) -> Option<(usize, bool, usize)> {
    transport::piece(bytes, at, (pieces.narrow.len(), pieces.wide.len()))
}

/// Writes the value at `at`, a scalar whole, a container opened (its frame
/// pushed, an object's members sorted, or an object whose members need
/// neither sorting nor anything else written whole); returns where it ends.
fn value(
    bytes: &[u8],
    at: usize,
    pieces: Pieces<'_>,
    out: &mut Digester<'_>,
    frames: &mut Vec<Frame>,
    members: &mut Members,
    element: bool,
) -> Option<usize> {
    let tag = *bytes.get(at)?;
    match tag {
        NULL | FALSE | TRUE => {
            out.put([tag]);
            Some(at + 1)
        }
        NUMBER => {
            let bits = bytes.get(at + 1..)?.first_chunk::<8>()?;
            out.number(f64::from_le_bytes(*bits));
            Some(at + 9)
        }
        // A transport string is in the key form's encoding already.
        NARROW | WIDE => {
            let end = string_end(bytes, at)?;
            out.span(bytes, at, end);
            Some(end)
        }
        LONG | LONG_WIDE => {
            let (index, wide, end) = piece(bytes, at, pieces)?;
            if wide {
                out.units(pieces.wide.get(index)?);
            } else {
                let piece = pieces.narrow.get(index)?;
                out.tag_len(NARROW, piece.len());
                out.bytes(piece);
            }
            Some(end)
        }
        // An element without a JSON form is `null`.
        ABSENT if element => {
            out.put([NULL]);
            Some(at + 1)
        }
        ARRAY => {
            let end = container_end(bytes, at)?;
            out.put([ARRAY]);
            frames.push(Frame::Array {
                next: at + 1 + SIZE_BYTES,
                end,
            });
            Some(end)
        }
        OBJECT => {
            let end = container_end(bytes, at)?;
            let first = members.open.len();
            out.put([OBJECT]);
            if sorted_members(bytes, at, end, pieces, members)? {
                // In canonical order already, scalars alone: its members as they are.
                out.span(bytes, at + 1 + SIZE_BYTES, end - 1);
                out.put([END]);
                members.open.truncate(first);
            } else {
                frames.push(Frame::Object {
                    first,
                    next: first,
                    last: members.open.len(),
                });
            }
            Some(end)
        }
        _ => None,
    }
}

/// Appends the members of the object at `at` (ending at `end`) to `members`
/// in canonical order; `None` for a key that is not a narrow string of the
/// bytes, a key twice or a member without a JSON form. `true` when they
/// came in that order and every value is a scalar that is its own form.
fn sorted_members(
    bytes: &[u8],
    at: usize,
    end: usize,
    pieces: Pieces<'_>,
    members: &mut Members,
) -> Option<bool> {
    let open = &mut members.open;
    let first = open.len();
    let mut i = at + 1 + SIZE_BYTES;
    let (mut in_order, mut own_forms, mut previous) = (true, true, None);
    while i + 1 < end {
        // Keys that are narrow strings of the bytes: wide and long ones are the tape's.
        let (units, value) = match *bytes.get(i..i + 2)? {
            [NARROW, len] if len < 0x80 => (i + 2, i + 2 + usize::from(len)),
            [NARROW, _] => {
                let (_, units, value) = string_span(bytes, i).ok()?;
                (units, value)
            }
            _ => return None,
        };
        let (value_end, own_form) = step(bytes, value, pieces)?;
        let order = order_key(bytes, units, value);
        own_forms &= own_form;
        in_order &= previous.is_none_or(|previous| previous < order);
        previous = Some(order);
        // Positions fit in 32 bits: `write` checked the length.
        open.push(Member {
            order,
            key: i as u32,
            units: units as u32,
            value: value as u32,
            end: value_end as u32,
            own_form,
        });
        i = value_end;
    }
    if i + 1 != end || bytes.get(i) != Some(&END) {
        return None;
    }
    // Strictly rising order keys: sorted, and no key twice.
    if in_order {
        return Some(own_forms);
    }
    // A key twice: the tape decides which member wins.
    members.sort(bytes, first).then_some(false)
}

#[cfg(test)]
mod tests;
