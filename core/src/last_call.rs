//! An agent's last call as it came: its tool and its transport, long
//! strings included, kept in the agent's chain up to [`MAX_BYTES`]. The
//! agent's next call is then found to be the same bytes, or certainly another
//! call (`side_by_side`), without a key: most calls of an agent that is not
//! stuck differ from its last one in a value at the same place. The kept call
//! was checked in full before it was kept, so a match needs no second check.

use crate::arguments::{Arguments, Pieces};
use crate::scratch::{Scratch, KEEP};
use crate::side_by_side::{self, Verdict};
use crate::transport;

/// The most bytes a last call is kept with, its tool name's, transport's and long strings' (two a
/// code unit) together: a larger call is keyed afresh each time.
pub const MAX_BYTES: usize = KEEP;

/// The most bytes a [`LastCall`]'s buffers hold, whatever the calls' size: each is given back
/// when it holds four times more than the call kept needs.
#[cfg(test)]
pub const HELD_BYTES: usize = 4 * MAX_BYTES + 1024;

#[derive(Debug, Clone, Default)]
pub(crate) struct LastCall {
    tool: Vec<u16>,
    bytes: Vec<u8>,
    narrow: Kept<u8>,
    wide: Kept<u16>,
    /// Whether a call is kept: false for none yet, one too large, or one not given as a transport.
    held: bool,
}

impl LastCall {
    /// Whether `tool` with `arguments` certainly is the call kept (`true`) or certainly another
    /// (`false`); `None` when that takes their keys: nothing is kept, the call is no transport or
    /// too large, or the side-by-side read cannot tell. A call said to be another is well formed.
    pub(crate) fn compare(
        &self,
        tool: &[u16],
        arguments: Arguments<'_>,
        scratch: &mut Scratch,
    ) -> Option<bool> {
        let Arguments::Transport { bytes, pieces } = arguments else {
            return None;
        };
        if !self.held || size(tool, bytes, pieces) > MAX_BYTES {
            return None;
        }
        if *self.tool != *tool {
            // Another tool: another call, once it is found well formed.
            let counts = (pieces.narrow.len(), pieces.wide.len());
            return transport::check(bytes, counts, &mut scratch.open)
                .is_ok()
                .then_some(false);
        }
        let same_strings = self.narrow.holds(pieces.narrow) && self.wide.holds(pieces.wide);
        if self.bytes != bytes {
            // Told apart side by side when they refer to the same long strings, else by the keys.
            if !same_strings {
                return None;
            }
            let counts = (pieces.narrow.len(), pieces.wide.len());
            return match side_by_side::compare(&self.bytes, bytes, counts, &mut scratch.open) {
                Verdict::Differ => Some(false),
                Verdict::Same | Verdict::Unknown => None,
            };
        }
        if same_strings {
            return Some(true);
        }
        let as_many = self.narrow.ends.len() == pieces.narrow.len()
            && self.wide.ends.len() == pieces.wide.len();
        let (narrow, wide) = (self.narrow.strings(), self.wide.strings());
        let kept = Pieces {
            narrow: &narrow,
            wide: &wide,
        };
        (as_many && side_by_side::strings_differ(bytes, (kept, pieces), &mut scratch.open))
            .then_some(false)
    }

    /// Keeps `tool` with `arguments`, checked in full (keyed, or told apart from the call kept),
    /// in place of the call kept; nothing is kept of one that is no transport or too large.
    pub(crate) fn keep(&mut self, tool: &[u16], arguments: Arguments<'_>) {
        self.held = false;
        let Arguments::Transport { bytes, pieces } = arguments else {
            return self.clear();
        };
        if size(tool, bytes, pieces) > MAX_BYTES {
            return self.clear();
        }
        refill(&mut self.tool, [tool]);
        refill(&mut self.bytes, [bytes]);
        self.narrow.keep(pieces.narrow);
        self.wide.keep(pieces.wide);
        self.held = true;
    }

    /// Gives back what a call kept before took.
    fn clear(&mut self) {
        *self = Self::default();
    }

    /// `f` called with the call kept, when there is one: its tool and arguments.
    pub(crate) fn with_call<R>(&self, f: impl FnOnce(Option<(&[u16], Arguments<'_>)>) -> R) -> R {
        if !self.held {
            return f(None);
        }
        let (narrow, wide) = (self.narrow.strings(), self.wide.strings());
        let pieces = Pieces {
            narrow: &narrow,
            wide: &wide,
        };
        let bytes = &self.bytes;
        f(Some((&self.tool, Arguments::Transport { bytes, pieces })))
    }

    /// The bytes its buffers take.
    #[cfg(test)]
    pub(crate) fn held_bytes(&self) -> usize {
        self.tool.capacity() * 2
            + self.bytes.capacity()
            + self.narrow.held_bytes()
            + self.wide.held_bytes()
    }
}

/// Strings kept back to back, with where each ends.
#[derive(Debug, Clone, Default)]
struct Kept<T> {
    units: Vec<T>,
    ends: Vec<usize>,
}

impl<T: Copy + PartialEq> Kept<T> {
    fn holds(&self, strings: &[&[T]]) -> bool {
        let mut start = 0;
        self.ends.len() == strings.len()
            && strings.iter().zip(&self.ends).all(|(&string, &end)| {
                let same = self.units.get(start..end) == Some(string);
                start = end;
                same
            })
    }

    /// The strings kept, each a slice of `units`.
    fn strings(&self) -> Vec<&[T]> {
        let mut start = 0;
        self.ends
            .iter()
            .map(|&end| {
                let string = self.units.get(start..end).unwrap_or_default();
                start = end;
                string
            })
            .collect()
    }

    #[inline]
    fn keep(&mut self, strings: &[&[T]]) {
        // Most calls: no long strings, now or before.
        if strings.is_empty() && self.ends.is_empty() {
            return;
        }
        refill(&mut self.units, strings.iter().copied());
        let mut end = 0;
        self.ends.clear();
        self.ends.extend(strings.iter().map(|string| {
            end += string.len();
            end
        }));
    }

    #[cfg(test)]
    fn held_bytes(&self) -> usize {
        self.units.capacity() * size_of::<T>() + self.ends.capacity() * size_of::<usize>()
    }
}

/// Puts `parts` back to back in `kept`, in a buffer of just their size when it must grow or
/// holds four times more than they take.
fn refill<'p, T: Copy + 'p>(kept: &mut Vec<T>, parts: impl IntoIterator<Item = &'p [T]> + Clone) {
    let len = parts.clone().into_iter().map(<[T]>::len).sum::<usize>();
    if kept.capacity() < len || kept.capacity() > 4 * len.max(16) {
        *kept = Vec::with_capacity(len);
    }
    kept.clear();
    for part in parts {
        kept.extend_from_slice(part);
    }
}

/// The bytes a call of `tool`, `bytes` and `pieces` is kept with.
fn size(tool: &[u16], bytes: &[u8], pieces: Pieces<'_>) -> usize {
    let narrow: usize = pieces.narrow.iter().map(|piece| piece.len()).sum();
    let wide: usize = pieces.wide.iter().map(|piece| piece.len()).sum();
    2 * tool.len() + bytes.len() + narrow + 2 * wide
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::sized;
    use crate::transport::tag::{ARRAY, END, LONG, LONG_WIDE};

    #[test]
    fn the_same_bytes_are_the_same_call_only_with_the_same_long_strings_and_tool() {
        fn call<'a>(
            bytes: &'a [u8],
            narrow: &'a [&'a [u8]],
            wide: &'a [&'a [u16]],
        ) -> Arguments<'a> {
            let pieces = Pieces { narrow, wide };
            Arguments::Transport { bytes, pieces }
        }
        let bytes = sized(&[ARRAY, LONG, 0, LONG_WIDE, 0, LONG, 1, END]);
        let (x, y, huge) = (
            &[b'x'; 300][..],
            &[b'y'; 300][..],
            &vec![b'z'; MAX_BYTES][..],
        );
        let (w, v) = (&[0x101_u16; 200][..], &[0x102_u16; 200][..]);
        let (xy, yx, xx, big) = ([x, y], [y, x], [x, x], [huge, x]);
        let (ww, vv) = ([w], [v]);
        let call = |narrow, wide| call(&bytes, narrow, wide);
        let (tool, other) = (&[0x74_u16][..], &[0x75_u16][..]);
        let scratch = &mut Scratch::default();
        let mut last = LastCall::default();
        assert_eq!(
            last.compare(tool, call(&xy, &ww), scratch),
            None,
            "nothing kept"
        );
        last.keep(tool, call(&xy, &ww));
        assert_eq!(last.compare(tool, call(&xy, &ww), scratch), Some(true));
        // The same bytes with other strings: elements of an array, so certainly another call.
        for (narrow, wide) in [(&yx, &ww), (&xx, &ww), (&xy, &vv)] {
            assert_eq!(last.compare(tool, call(narrow, wide), scratch), Some(false));
        }
        assert_eq!(last.compare(other, call(&xy, &ww), scratch), Some(false));
        // A call too large is not kept, and what the last one took is given back.
        last.keep(tool, call(&big, &ww));
        assert_eq!(last.compare(tool, call(&xy, &ww), scratch), None);
        assert_eq!(last.held_bytes(), 0);
    }

    #[test]
    fn a_long_string_that_differs_is_another_call_unless_it_is_a_key_or_its_key_comes_again() {
        use crate::key::call_key;
        use crate::transport::tag::{NARROW, NUMBER, OBJECT};
        let (tool, scratch) = (&[0x74_u16][..], &mut Scratch::default());
        let (x, y) = ([&[b'x'; 300][..]], [&[b'y'; 300][..]]);
        let number = |n: f64| [&[NUMBER][..], &n.to_le_bytes()].concat();
        // {"a": <piece>, "n": 1}, {<piece>: 1}, {"a": <piece>, "a": 2}, {"a": <piece>, "n": 2}
        let value = sized(
            &[
                &[OBJECT, NARROW, 1, b'a', LONG, 0, NARROW, 1, b'n'][..],
                &number(1.0),
                &[END],
            ]
            .concat(),
        );
        let key = sized(&[&[OBJECT, LONG, 0][..], &number(1.0), &[END]].concat());
        let again = sized(
            &[
                &[OBJECT, NARROW, 1, b'a', LONG, 0, NARROW, 1, b'a'][..],
                &number(2.0),
                &[END],
            ]
            .concat(),
        );
        let other = sized(
            &[
                &[OBJECT, NARROW, 1, b'a', LONG, 0, NARROW, 1, b'n'][..],
                &number(2.0),
                &[END],
            ]
            .concat(),
        );
        let call = |bytes, narrow| Arguments::Transport {
            bytes,
            pieces: Pieces { narrow, wide: &[] },
        };
        for (bytes, expected) in [(&value, Some(false)), (&key, None), (&again, None)] {
            let mut last = LastCall::default();
            last.keep(tool, call(bytes, &x));
            let verdict = last.compare(tool, call(bytes, &y), scratch);
            assert_eq!(verdict, expected, "{bytes:?}");
            let keys = [&x, &y].map(|narrow| call_key(tool, call(bytes, narrow), scratch));
            assert_eq!(keys[0] == keys[1], bytes == &again, "{bytes:?}");
        }
        // Other bytes with the same long strings are read side by side; with others, left to the keys.
        let mut last = LastCall::default();
        last.keep(tool, call(&value, &x));
        assert_eq!(last.compare(tool, call(&other, &x), scratch), Some(false));
        assert_eq!(last.compare(tool, call(&other, &y), scratch), None);
    }
}
