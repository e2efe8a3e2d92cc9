//! The memo: the last transport the guard keyed in one role (a call's
//! arguments, or a tool result), its long strings and its key, up to 4 MB. The same call
//! again, as a stuck agent makes it, is then keyed by comparing its bytes
//! instead of canonicalizing and hashing them again: tens of microseconds for
//! a ~1 MB string, where hashing its key form takes over a hundred.
//! Its bytes were checked in full when they were first keyed, so a match needs
//! no second check.

use crate::digest::digest_form;
use crate::error::CanonicalError;
use crate::key::{CallKey, KeyForm};
use crate::read::{Scratch, KEEP};
use crate::value::Arguments;

/// The most bytes a memo keeps, its transport's and its long strings' (two a
/// code unit) together: a larger call is keyed afresh each time.
const MAX_BYTES: usize = 1 << 22;

#[derive(Debug)]
pub(crate) struct Memo {
    tool: Vec<u16>,
    bytes: Vec<u8>,
    /// The long strings' code units, back to back.
    units: Vec<u16>,
    /// Where each long string ends in `units`.
    ends: Vec<usize>,
    key: CallKey,
    /// Whether `key` is the key of the rest.
    valid: bool,
}

impl Default for Memo {
    fn default() -> Self {
        Self {
            tool: Vec::new(),
            bytes: Vec::new(),
            units: Vec::new(),
            ends: Vec::new(),
            key: CallKey::from(&KeyForm::Inline(&[])),
            valid: false,
        }
    }
}

impl Memo {
    /// Whether this is the memo of `tool`, `bytes` and `pieces`.
    fn holds(&self, tool: &[u16], bytes: &[u8], pieces: &[&[u16]]) -> bool {
        if !self.valid
            || self.ends.len() != pieces.len()
            || self.bytes != bytes
            || self.tool != tool
        {
            return false;
        }
        let mut start = 0;
        pieces.iter().zip(&self.ends).all(|(&piece, &end)| {
            let same = self.units.get(start..end) == Some(piece);
            start = end;
            same
        })
    }

    /// Keeps `tool`, `bytes` and `pieces` with their `key`.
    fn keep(&mut self, tool: &[u16], bytes: &[u8], pieces: &[&[u16]], key: &KeyForm<'_>) {
        fn refill<T: Copy>(kept: &mut Vec<T>, from: impl IntoIterator<Item = T>, len: usize) {
            // A buffer a much larger call grew is given back, not pinned.
            if kept.capacity() > KEEP && kept.capacity() > 4 * len {
                *kept = Vec::with_capacity(len);
            }
            kept.clear();
            kept.extend(from);
        }
        let units = pieces.iter().map(|piece| piece.len()).sum();
        refill(&mut self.tool, tool.iter().copied(), tool.len());
        refill(&mut self.bytes, bytes.iter().copied(), bytes.len());
        refill(
            &mut self.units,
            pieces.iter().flat_map(|p| p.iter().copied()),
            units,
        );
        let mut end = 0;
        let ends = pieces.iter().map(|piece| {
            end += piece.len();
            end
        });
        refill(&mut self.ends, ends, pieces.len());
        self.key.set(key);
        self.valid = true;
    }
}

/// The call key of `tool` and `arguments` as a [`KeyForm`], reusing `memo`'s
/// key for the same transport as its last one: an inline form stays where it
/// is (in `memo`, or where the digester wrote it in `scratch`'s block), for the
/// chain to compare in place.
pub(crate) fn key_form<'s>(
    tool: &[u16],
    arguments: Arguments<'_>,
    scratch: &'s mut Scratch,
    memo: &'s mut Memo,
) -> Result<KeyForm<'s>, CanonicalError> {
    let remembered = match arguments {
        Arguments::Transport { bytes, pieces }
            if pieces
                .iter()
                .try_fold(bytes.len(), |size, piece| size.checked_add(2 * piece.len()))
                .is_some_and(|size| size <= MAX_BYTES) =>
        {
            Some((bytes, pieces))
        }
        _ => None,
    };
    if let Some((bytes, pieces)) = remembered {
        if memo.holds(tool, bytes, pieces) {
            return Ok(memo.key.form());
        }
    }
    memo.valid = false;
    let form = digest_form(tool, arguments, scratch)?;
    if let Some((bytes, pieces)) = remembered {
        memo.keep(tool, bytes, pieces, &form);
    }
    Ok(form)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::call_key;
    use crate::form::push_string;
    use crate::form::tag::{END, NARROW, NULL, OBJECT};
    use crate::transport::tag::LONG;

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
        let short = [NULL];
        let transport = |bytes| Arguments::Transport { bytes, pieces: &[] };
        let (scratch, memo) = (&mut Scratch::default(), &mut Memo::default());
        let mut kept = |tool: &str, arguments| {
            CallKey::from(&key_form(&units(tool), arguments, scratch, memo).unwrap())
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
        // Another call in between, whose form the digester writes where an inline key was written.
        let json = Arguments::Json("[1,2]");
        assert_eq!(kept("u", json), fresh("u", json));
        assert_eq!(kept("u", transport(&short)), fresh("u", transport(&short)));
    }

    #[test]
    fn a_remembered_transport_with_long_strings_matches_only_the_same_strings() {
        let one = [
            OBJECT, NARROW, 1, b'a', LONG, 0, NARROW, 1, b'b', LONG, 1, END,
        ];
        let (x, y) = (units(&"x".repeat(1000)), units(&"y".repeat(1000)));
        let (xy, yx) = ([&x[..], &y[..]], [&y[..], &x[..]]);
        let (xx, x_shorter) = ([&x[..], &x[..]], [&x[..], &x[..999]]);
        let (scratch, memo) = (&mut Scratch::default(), &mut Memo::default());
        let mut kept = |pieces| {
            let arguments = Arguments::Transport {
                bytes: &one,
                pieces,
            };
            let key = CallKey::from(&key_form(&units("t"), arguments, scratch, memo).unwrap());
            assert_eq!(key, fresh("t", arguments));
            key
        };
        let first = kept(&xy);
        assert_eq!(kept(&xy), first);
        // The same bytes with other strings, swapped, repeated or cut short, are other calls.
        for other in [&yx, &xx, &x_shorter] {
            assert_ne!(kept(other), first);
            assert_eq!(kept(&xy), first);
        }
    }

    #[test]
    fn a_memo_gives_back_what_a_large_call_grew() {
        let big = units(&"z".repeat(1 << 20));
        let bytes = [LONG, 0];
        let (scratch, memo) = (&mut Scratch::default(), &mut Memo::default());
        let pieces: [&[u16]; 1] = [&big];
        key_form(
            &units("t"),
            Arguments::Transport {
                bytes: &bytes,
                pieces: &pieces,
            },
            scratch,
            memo,
        )
        .unwrap();
        assert!(memo.valid && memo.units.capacity() >= 1 << 20);
        key_form(
            &units("t"),
            Arguments::Transport {
                bytes: &[NULL],
                pieces: &[],
            },
            scratch,
            memo,
        )
        .unwrap();
        assert!(memo.valid && memo.units.capacity() <= KEEP);
        // Past the cap, nothing is kept, and the key is as fresh as ever.
        let huge = units(&"z".repeat(MAX_BYTES / 2 + 1));
        let pieces: [&[u16]; 1] = [&huge];
        let arguments = Arguments::Transport {
            bytes: &bytes,
            pieces: &pieces,
        };
        let key = CallKey::from(&key_form(&units("t"), arguments, scratch, memo).unwrap());
        assert!(!memo.valid);
        assert_eq!(key, fresh("t", arguments));
    }
}
