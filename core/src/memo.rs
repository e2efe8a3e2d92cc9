//! The memo: the last transport the guard keyed in one role (a call's
//! arguments, or a tool result), with its long strings and its key, up to
//! 4 MB. The same call again, as a stuck agent makes it, is then keyed by
//! comparing its bytes instead of canonicalizing and hashing them again:
//! 10–20 µs for a ~1 MB string, where hashing its key form takes over 100 µs.
//! Its bytes were checked in full when they were first keyed, so a match
//! needs no second check.
//!
//! A call that certainly differs from the one kept, by the side-by-side read
//! (`side_by_side`), is kept in its place without a key (the memo is then
//! *pending*): its key is written only if a later call needs it
//! (`Memo::settle`), and an agent making new call after new call has none
//! written at all.

use crate::arguments::{Arguments, Pieces};
use crate::error::CanonicalError;
use crate::ignore::KeyPath;
use crate::key::{digest_form, CallKey, KeyForm};
use crate::scratch::{Scratch, KEEP};
use crate::side_by_side::{self, Verdict};
use crate::transport;

/// The most bytes a memo keeps, its transport's and its long strings' (two a
/// code unit) together: a larger call is keyed afresh each time.
const MAX_BYTES: usize = 1 << 22;

#[derive(Debug, Default)]
pub(crate) struct Memo {
    tool: Vec<u16>,
    bytes: Vec<u8>,
    narrow: Kept<u8>,
    wide: Kept<u16>,
    key: CallKey,
    state: State,
    /// The agent the kept call was last counted for, when `agent_kept`.
    agent: Vec<u16>,
    agent_kept: bool,
}

/// What a memo holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Empty,
    /// A call and its key.
    Keyed,
    /// A call whose key is not written yet: the chain of the agent it was
    /// counted for (kept) holds no key either until [`Memo::settle`].
    Pending,
}

impl Memo {
    /// Whether this is the memo of `tool`, `bytes` and `pieces`.
    fn holds(&self, tool: &[u16], bytes: &[u8], pieces: Pieces<'_>) -> bool {
        self.state == State::Keyed && self.holds_call(tool, bytes, pieces)
    }

    /// Whether the call kept, keyed or not, is `tool`, `bytes` and `pieces`.
    fn holds_call(&self, tool: &[u16], bytes: &[u8], pieces: Pieces<'_>) -> bool {
        self.bytes == bytes
            && self.tool == tool
            && self.narrow.holds(pieces.narrow)
            && self.wide.holds(pieces.wide)
    }

    /// The call whose arguments are kept was counted for `agent`.
    pub(crate) fn counted_for(&mut self, agent: &[u16]) {
        if !self.agent_kept || self.agent != agent {
            refill(&mut self.agent, [agent]);
            self.agent_kept = true;
        }
    }

    /// The last call counted, when its arguments are kept: its agent and its tool.
    pub(crate) fn last_call(&self) -> Option<(&[u16], &[u16])> {
        (self.state != State::Empty && self.agent_kept).then(|| (&self.agent[..], &self.tool[..]))
    }

    /// Whether `agent`'s call of `tool` with the transport `bytes` and
    /// `pieces` certainly is the call kept (`true`) or certainly another
    /// (`false`), when the call kept was `agent`'s last: then the call needs
    /// no key to be counted. `None` when that takes its key: it is not so
    /// kept, or too large to be, or not well formed (for the key to report),
    /// or the side-by-side read cannot tell.
    pub(crate) fn compare(
        &self,
        agent: &[u16],
        tool: &[u16],
        (bytes, pieces): (&[u8], Pieces<'_>),
        scratch: &mut Scratch,
    ) -> Option<bool> {
        if self.state == State::Empty
            || !self.agent_kept
            || *self.agent != *agent
            || size(bytes, pieces) > MAX_BYTES
        {
            return None;
        }
        let no_pieces = pieces.narrow.is_empty() && pieces.wide.is_empty();
        let kept_pieces = !self.narrow.ends.is_empty() || !self.wide.ends.is_empty();
        let same_tool = *self.tool == *tool;
        if same_tool && no_pieces && !kept_pieces {
            return match side_by_side::compare(&self.bytes, bytes, &mut scratch.open) {
                Verdict::Same => Some(true),
                Verdict::Differ => Some(false),
                Verdict::Unknown => None,
            };
        }
        if self.holds_call(tool, bytes, pieces) {
            return Some(true);
        }
        // Long strings the same bytes refer to could differ: left to the keys.
        if same_tool {
            return None;
        }
        let counts = (pieces.narrow.len(), pieces.wide.len());
        transport::check(bytes, counts, &mut scratch.open)
            .is_ok()
            .then_some(false)
    }

    /// Keeps the call of `tool`, `bytes` and `pieces`, which certainly differs
    /// from the one kept ([`Memo::compare`]) and was counted for the same
    /// agent, without its key.
    pub(crate) fn keep_pending(&mut self, tool: &[u16], bytes: &[u8], pieces: Pieces<'_>) {
        if *self.tool != *tool {
            refill(&mut self.tool, [tool]);
        }
        refill(&mut self.bytes, [bytes]);
        self.narrow.keep(pieces.narrow);
        self.wide.keep(pieces.wide);
        self.state = State::Pending;
    }

    /// When the memo is pending: writes the key of the call kept and returns
    /// it (`None` if it has none, which a call checked in full cannot be)
    /// with the agent whose chain waits for it.
    pub(crate) fn settle(&mut self, scratch: &mut Scratch) -> Option<(&[u16], Option<CallKey>)> {
        if self.state != State::Pending {
            return None;
        }
        let key = self.with_arguments(|arguments| {
            digest_form(&self.tool, arguments, scratch, &[]).map(|form| CallKey::from(&form))
        });
        self.state = State::Empty;
        if let Ok(key) = key {
            self.key = key;
            self.state = State::Keyed;
        }
        Some((&self.agent[..], key.ok()))
    }

    /// Calls `f` with the arguments kept, as the transport they came in.
    pub(crate) fn with_arguments<R>(&self, f: impl FnOnce(Arguments<'_>) -> R) -> R {
        let (narrow, wide) = (self.narrow.strings(), self.wide.strings());
        f(Arguments::Transport {
            bytes: &self.bytes,
            pieces: Pieces {
                narrow: &narrow,
                wide: &wide,
            },
        })
    }

    /// Keeps `tool`, `bytes` and `pieces` with their `key`.
    fn keep(&mut self, tool: &[u16], bytes: &[u8], pieces: Pieces<'_>, key: &KeyForm<'_>) {
        refill(&mut self.tool, [tool]);
        refill(&mut self.bytes, [bytes]);
        self.narrow.keep(pieces.narrow);
        self.wide.keep(pieces.wide);
        self.key.set(key);
        self.state = State::Keyed;
        self.agent_kept = false;
    }
}

/// Strings kept back to back, with where each ends.
#[derive(Debug, Default)]
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
        if !(strings.is_empty() && self.ends.is_empty()) {
            self.replace(strings);
        }
    }

    fn replace(&mut self, strings: &[&[T]]) {
        refill(&mut self.units, strings.iter().copied());
        let mut end = 0;
        self.ends.clear();
        self.ends.extend(strings.iter().map(|string| {
            end += string.len();
            end
        }));
    }
}

/// Puts `parts` back to back in `kept`, giving back a buffer a much larger
/// call grew instead of pinning it.
fn refill<'p, T: Copy + 'p>(kept: &mut Vec<T>, parts: impl IntoIterator<Item = &'p [T]> + Clone) {
    let len = parts.clone().into_iter().map(<[T]>::len).sum::<usize>();
    if kept.capacity() > KEEP && kept.capacity() > 4 * len {
        *kept = Vec::with_capacity(len);
    }
    kept.clear();
    for part in parts {
        kept.extend_from_slice(part);
    }
}

/// The bytes a memo of `bytes` and `pieces` takes.
fn size(bytes: &[u8], pieces: Pieces<'_>) -> usize {
    let narrow: usize = pieces.narrow.iter().map(|piece| piece.len()).sum();
    let wide: usize = pieces.wide.iter().map(|piece| piece.len()).sum();
    bytes.len() + narrow + 2 * wide
}

/// The call key of `tool` and `arguments` (without the members `ignored`
/// names, the same for every call of `tool`) as a [`KeyForm`], reusing `memo`'s
/// key for the same transport as its last one: an inline form stays where it
/// is (in `memo`, or where it was written in `scratch`'s form buffer), for the
/// chain to compare in place.
pub(crate) fn remembered_form<'s>(
    tool: &[u16],
    arguments: Arguments<'_>,
    scratch: &'s mut Scratch,
    memo: &'s mut Memo,
    ignored: &[KeyPath],
) -> Result<KeyForm<'s>, CanonicalError> {
    let remembered = match arguments {
        Arguments::Transport { bytes, pieces } if size(bytes, pieces) <= MAX_BYTES => {
            Some((bytes, pieces))
        }
        _ => None,
    };
    if let Some((bytes, pieces)) = remembered {
        if memo.holds(tool, bytes, pieces) {
            // No form is written for this call: none is left to be read as its own.
            scratch.form.clear();
            return Ok(memo.key.form());
        }
    }
    debug_assert!(
        memo.state != State::Pending,
        "a pending memo is settled first"
    );
    memo.state = State::Empty;
    let form = digest_form(tool, arguments, scratch, ignored)?;
    if let Some((bytes, pieces)) = remembered {
        memo.keep(tool, bytes, pieces, &form);
    }
    Ok(form)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::form::push_string;
    use crate::form::tag::{END, NARROW, NULL, OBJECT};
    use crate::key::call_key;
    use crate::transport::sized;
    use crate::transport::tag::{LONG, LONG_WIDE};

    fn units(text: &str) -> Vec<u16> {
        text.encode_utf16().collect()
    }

    fn fresh(tool: &str, arguments: Arguments<'_>) -> CallKey {
        call_key(&units(tool), arguments, &mut Scratch::default()).unwrap()
    }

    #[test]
    fn a_remembered_transport_keys_as_a_fresh_one_and_only_for_the_same_tool_and_bytes() {
        let mut long = vec![OBJECT];
        push_string(&mut long, &units("a"));
        push_string(&mut long, &units(&"y".repeat(300)));
        push_string(&mut long, &units("b"));
        long.extend([NULL, END]);
        let long = sized(&long);
        let short = [NULL];
        let transport = |bytes| Arguments::Transport {
            bytes,
            pieces: Pieces::NONE,
        };
        let (scratch, memo) = (&mut Scratch::default(), &mut Memo::default());
        let mut kept = |tool: &str, arguments| {
            CallKey::from(&remembered_form(&units(tool), arguments, scratch, memo, &[]).unwrap())
        };
        for (tool, bytes) in [
            ("t", &long[..]),
            ("t", &long[..]),
            ("u", &long[..]),
            ("t", &short[..]),
            ("t", &short[..]),
            ("u", &short[..]),
        ] {
            assert_eq!(kept(tool, transport(bytes)), fresh(tool, transport(bytes)));
        }
        assert_ne!(fresh("t", transport(&short)), fresh("u", transport(&short)));
        // Another call in between, whose form is written where an inline key was written.
        let json = Arguments::Json("[1,2]");
        assert_eq!(kept("u", json), fresh("u", json));
        assert_eq!(kept("u", transport(&short)), fresh("u", transport(&short)));
    }

    #[test]
    fn a_remembered_transport_with_long_strings_matches_only_the_same_strings() {
        // {"a": <narrow piece 0>, "b": <wide piece 0>, "c": <narrow piece 1>}
        let one = sized(&[
            OBJECT, NARROW, 1, b'a', LONG, 0, NARROW, 1, b'b', LONG_WIDE, 0, NARROW, 1, b'c', LONG,
            1, END,
        ]);
        let (x, y) = ("x".repeat(1000).into_bytes(), "y".repeat(1000).into_bytes());
        let (w, v) = (units(&"\u{101}".repeat(500)), units(&"\u{102}".repeat(500)));
        let (xy, yx, xx, x_shorter) = (
            [&x[..], &y[..]],
            [&y[..], &x[..]],
            [&x[..], &x[..]],
            [&x[..], &x[..999]],
        );
        let (scratch, memo) = (&mut Scratch::default(), &mut Memo::default());
        let mut kept = |narrow: &[&[u8]], wide: &[u16]| {
            let pieces = Pieces {
                narrow,
                wide: &[wide],
            };
            let arguments = Arguments::Transport {
                bytes: &one,
                pieces,
            };
            let key = CallKey::from(
                &remembered_form(&units("t"), arguments, scratch, memo, &[]).unwrap(),
            );
            assert_eq!(key, fresh("t", arguments));
            key
        };
        let first = kept(&xy, &w);
        assert_eq!(kept(&xy, &w), first);
        // The same bytes with other strings, swapped, repeated or cut short, are other calls.
        for (narrow, wide) in [(&yx, &w), (&xx, &w), (&x_shorter, &w), (&xy, &v)] {
            assert_ne!(kept(narrow, wide), first);
            assert_eq!(kept(&xy, &w), first);
        }
    }

    #[test]
    fn a_memo_gives_back_what_a_large_call_grew() {
        fn wide_piece<'a>(bytes: &'a [u8], wide: &'a [&'a [u16]]) -> Arguments<'a> {
            let pieces = Pieces { narrow: &[], wide };
            Arguments::Transport { bytes, pieces }
        }
        let bytes = [LONG_WIDE, 0];
        let (scratch, memo) = (&mut Scratch::default(), &mut Memo::default());
        let big = units(&"\u{101}".repeat(1 << 20));
        remembered_form(&units("t"), wide_piece(&bytes, &[&big]), scratch, memo, &[]).unwrap();
        assert!(memo.state == State::Keyed && memo.wide.units.capacity() >= 1 << 20);
        let null = Arguments::Transport {
            bytes: &[NULL],
            pieces: Pieces::NONE,
        };
        remembered_form(&units("t"), null, scratch, memo, &[]).unwrap();
        assert!(memo.state == State::Keyed && memo.wide.units.capacity() <= KEEP);
        // Past the cap, nothing is kept, and the key is as fresh as ever.
        let huge = [&units(&"\u{101}".repeat(MAX_BYTES / 2 + 1))[..]];
        let arguments = wide_piece(&bytes, &huge);
        let key =
            CallKey::from(&remembered_form(&units("t"), arguments, scratch, memo, &[]).unwrap());
        assert!(memo.state == State::Empty);
        assert_eq!(key, fresh("t", arguments));
    }
}
