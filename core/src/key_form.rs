//! The key form of a value (see `form`), written from its transport in one
//! pass: every canonical rule of the arguments is applied here. Members are
//! sorted (array indices first, numerically, then by UTF-16 code units), of
//! duplicates the later one wins, members without a JSON form are left out and
//! such elements written `null`; numbers are written as JSON prints them alike
//! (`-0` as `0`, non-finite ones as `null`). With `ignoreArguments`, the members its key paths name are left out
//! too. The canonical text (`canonical`) is read off the form.
//!
//! The transport is checked in full first (`transport::check`), so this
//! walk only finds its way. An explicit stack of frames: input depth never
//! becomes Rust stack depth.

use std::cmp::Ordering;

use crate::form::tag::{ARRAY, END, NULL, NUMBER, OBJECT};
use crate::form::{push_len, string_span, FormStr};
use crate::ignore::KeyPath;
use crate::transport::tag::{ABSENT, NARROW, WIDE};
use crate::transport::{container_end, value_end, SIZE_BYTES};

/// Where a key form goes as it is written, in order: a buffer that holds it, or a reader that
/// takes what it needs of it as it comes (a result's, in `windows`).
pub(crate) trait FormSink {
    /// A tag that stands alone: `null`, `false`, `true`, an array's or object's start, `END`.
    fn tag(&mut self, tag: u8);
    /// A string, a key or a value.
    fn string(&mut self, string: FormStr<'_>);
    /// A finite number, `-0` as `0`.
    fn number(&mut self, value: f64);
}

impl FormSink for Vec<u8> {
    fn tag(&mut self, tag: u8) {
        self.push(tag);
    }
    fn string(&mut self, string: FormStr<'_>) {
        push_len(self, string.tag(), string.len());
        self.extend_from_slice(string.bytes);
    }
    fn number(&mut self, value: f64) {
        self.push(NUMBER);
        self.extend_from_slice(&value.to_le_bytes());
    }
}

/// An object member: where its key's code units are, its key as an array
/// index (`u32::MAX`: none), which decides most comparisons, and where its
/// value is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Member {
    key: KeyAt,
    index: u32,
    value: usize,
}

/// Where a key's code units lie: a span of the bytes (`wide`: two bytes a unit).
#[derive(Clone, Copy, Debug)]
struct KeyAt {
    start: usize,
    end: usize,
    wide: bool,
}

/// An open container of the walk.
#[derive(Debug)]
pub(crate) enum Frame {
    /// The next element's place, and where the array's END is.
    Array { next: usize, end: usize },
    /// The object's members are `members[next..stop]` (the rest, in order);
    /// `depth` names deep, with the key paths still matching there.
    Object {
        base: usize,
        next: usize,
        stop: usize,
        depth: usize,
        live: Vec<usize>,
    },
}

/// The buffers of a walk, kept from call to call.
#[derive(Debug, Default)]
pub(crate) struct Walk {
    pub(crate) frames: Vec<Frame>,
    pub(crate) members: Vec<Member>,
    /// Which key paths left something out, by index.
    pub(crate) removed: Vec<bool>,
}

/// A checked transport.
struct Source<'a> {
    bytes: &'a [u8],
}

impl<'a> Source<'a> {
    /// Where the code units of the string whose tag is at `at` (a checked one) lie; the string
    /// ends where they do.
    fn locate(&self, at: usize) -> KeyAt {
        // A checked transport's strings always read; were one not to, the walk ends there.
        let none = (false, at, self.bytes.len());
        let (wide, start, end) = string_span(self.bytes, at).unwrap_or(none);
        KeyAt { start, end, wide }
    }

    /// The code units at `key`. The transport's wide strings hold a unit past 0xff
    /// (`transport::check` checks it), as the key form's do.
    fn units(&self, KeyAt { start, end, wide }: KeyAt) -> FormStr<'a> {
        let bytes = self.bytes.get(start..end).unwrap_or_default();
        FormStr { wide, bytes }
    }

    /// The string whose tag is at `at` (a checked one).
    fn string(&self, at: usize) -> FormStr<'a> {
        self.units(self.locate(at))
    }

    /// Where the value whose tag is at `at` ends.
    fn end(&self, at: usize) -> usize {
        value_end(self.bytes, at).unwrap_or(self.bytes.len())
    }

    fn tag(&self, at: usize) -> u8 {
        self.bytes.get(at).copied().unwrap_or(END)
    }

    /// Key order: indices first, then code units.
    fn order(&self, a: &Member, b: &Member) -> Ordering {
        a.index
            .cmp(&b.index)
            .then_with(|| self.units(a.key).cmp(self.units(b.key)))
    }
}

/// Writes the key form of the checked transport `bytes` to
/// `out`, without the members the key paths `ignored` name (`walk.removed`
/// then says which of them left something out).
pub(crate) fn write(bytes: &[u8], ignored: &[KeyPath], out: &mut impl FormSink, walk: &mut Walk) {
    let source = Source { bytes };
    let Walk {
        frames,
        members,
        removed,
    } = walk;
    frames.clear();
    members.clear();
    removed.clear();
    removed.resize(ignored.len(), false);
    let mut value = Some(0);
    // The key paths that reach into the value about to be written.
    let mut reaching: Vec<usize> = (0..ignored.len()).collect();
    loop {
        if let Some(at) = value.take() {
            write_value(
                &source,
                at,
                out,
                frames,
                members,
                std::mem::take(&mut reaching),
            );
        }
        let Some(frame) = frames.last_mut() else {
            break;
        };
        match frame {
            Frame::Array { next, end } => {
                if *next + 1 >= *end {
                    out.tag(END);
                    frames.pop();
                } else if source.tag(*next) == ABSENT {
                    out.tag(NULL);
                    *next += 1;
                } else {
                    value = Some(*next);
                    *next = source.end(*next);
                }
            }
            Frame::Object {
                base,
                next,
                stop,
                depth,
                live,
            } => {
                let Some(&member) = members.get(*next).filter(|_| *next < *stop) else {
                    out.tag(END);
                    members.truncate(*base);
                    frames.pop();
                    continue;
                };
                *next += 1;
                let key = source.units(member.key);
                let mut left_out = false;
                for &path in live.iter() {
                    let names = ignored.get(path).map(KeyPath::names).unwrap_or_default();
                    if names.get(*depth).is_some_and(|name| key.is(name)) {
                        if names.len() == *depth + 1 {
                            left_out = true;
                            if let Some(flag) = removed.get_mut(path) {
                                *flag = true;
                            }
                        } else {
                            reaching.push(path);
                        }
                    }
                }
                if left_out {
                    reaching.clear();
                    continue;
                }
                out.string(key);
                value = Some(member.value);
            }
        }
    }
}

/// Writes the scalar at `at`, or opens the container there (its members
/// sorted); `live` are the key paths that reach into it.
fn write_value(
    source: &Source<'_>,
    at: usize,
    out: &mut impl FormSink,
    frames: &mut Vec<Frame>,
    members: &mut Vec<Member>,
    live: Vec<usize>,
) {
    let bytes = source.bytes;
    match source.tag(at) {
        NUMBER => {
            let bits = bytes.get(at + 1..).and_then(|rest| rest.first_chunk::<8>());
            match json_number(f64::from_le_bytes(bits.copied().unwrap_or_default())) {
                Some(value) => out.number(value),
                None => out.tag(NULL),
            }
        }
        NARROW | WIDE => out.string(source.string(at)),
        ARRAY => {
            out.tag(ARRAY);
            let end = container_end(bytes, at).unwrap_or(at);
            frames.push(Frame::Array {
                next: at + 1 + SIZE_BYTES,
                end,
            });
        }
        OBJECT => {
            out.tag(OBJECT);
            let depth = match frames.last() {
                Some(Frame::Object { depth, .. }) => depth + 1,
                // The top level, or an array's element: paths do not reach into arrays.
                _ => 0,
            };
            let live = if matches!(frames.last(), Some(Frame::Array { .. })) {
                Vec::new()
            } else {
                live
            };
            let base = members.len();
            let end = container_end(bytes, at).unwrap_or(at);
            let mut next = at + 1 + SIZE_BYTES;
            while next + 1 < end {
                let key = source.locate(next);
                let index = source.units(key).array_index().unwrap_or(u32::MAX);
                members.push(Member {
                    key,
                    index,
                    value: key.end,
                });
                next = source.end(key.end);
            }
            let stop = sort_members(source, members, base);
            frames.push(Frame::Object {
                base,
                next: base,
                stop,
                depth,
                live,
            });
        }
        // NULL, FALSE and TRUE are the key form's own tags; ABSENT never stands here.
        tag => out.tag(tag),
    }
}

/// A number as JSON writes it: `None` for `null` (NaN and the infinities), `-0`
/// as `0`; every other finite value prints distinctly.
#[inline]
pub(crate) fn json_number(value: f64) -> Option<f64> {
    match value {
        _ if !value.is_finite() => None,
        0.0 => Some(0.0),
        _ => Some(value),
    }
}

/// Sorts `members[base..]` into canonical order, keeping of each key only the
/// last member, and that only when it has a JSON form; returns where they end.
fn sort_members(source: &Source<'_>, members: &mut Vec<Member>, base: usize) -> usize {
    let Some(slice) = members.get_mut(base..) else {
        return base;
    };
    // Stable, so duplicates stay in input order and the last one can win below. A sort
    // compares every two members that end up side by side, so if it met no equal pair, no
    // key is there twice.
    let mut twice = false;
    slice.sort_by(|a, b| {
        let ordering = source.order(a, b);
        twice |= ordering == Ordering::Equal;
        ordering
    });
    let absent = slice
        .iter()
        .any(|member| source.tag(member.value) == ABSENT);
    if !twice && !absent {
        return members.len();
    }
    let mut write = base;
    for read in base..members.len() {
        let (Some(&current), next) = (members.get(read), members.get(read + 1)) else {
            break;
        };
        let last =
            !twice || next.is_none_or(|next| source.order(&current, next) != Ordering::Equal);
        if last && source.tag(current.value) != ABSENT {
            if let Some(slot) = members.get_mut(write) {
                *slot = current;
            }
            write += 1;
        }
    }
    members.truncate(write);
    write
}

#[cfg(test)]
mod tests;
