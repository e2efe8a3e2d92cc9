//! An agent's last call as it came: its tool and its transport, kept in the
//! agent's chain up to [`MAX_BYTES`]. The agent's next call is then found to
//! be the same bytes, or certainly another call (`side_by_side`), without a
//! key: most calls of an agent that is not stuck differ from its last one in a
//! value at the same place. The kept call was checked in full before it was
//! kept, so a match needs no second check.

use crate::arguments::Arguments;
use crate::scratch::{Scratch, KEEP};
use crate::side_by_side::{self, Verdict};
use crate::transport;

/// The most bytes a last call is kept with, its tool name's (two a code unit) and transport's
/// together: a larger call is keyed afresh each time.
pub const MAX_BYTES: usize = KEEP;

/// The most bytes a [`LastCall`]'s buffers hold, whatever the calls' size: each is given back
/// when it holds four times more than the call kept needs.
#[cfg(test)]
pub const HELD_BYTES: usize = 4 * MAX_BYTES + 1024;

#[derive(Debug, Clone, Default)]
pub(crate) struct LastCall {
    tool: Vec<u16>,
    /// The call's transport; empty when none is kept (none yet, one too large, or one not given
    /// as a transport): a checked transport holds a value, so it is never empty.
    bytes: Vec<u8>,
}

impl LastCall {
    fn held(&self) -> bool {
        !self.bytes.is_empty()
    }

    /// Whether `tool` with `arguments` certainly is the call kept (`true`) or certainly another
    /// (`false`); `None` when that takes their keys: nothing is kept, the call is no transport or
    /// too large, or the side-by-side read cannot tell. A call said to be another is well formed.
    pub(crate) fn compare(
        &self,
        tool: &[u16],
        arguments: Arguments<'_>,
        scratch: &mut Scratch,
    ) -> Option<bool> {
        let Arguments::Transport(bytes) = arguments else {
            return None;
        };
        if !self.held() || size(tool, bytes) > MAX_BYTES {
            return None;
        }
        if *self.tool != *tool {
            // Another tool: another call, once it is found well formed.
            return transport::check(bytes, &mut scratch.reading.open)
                .is_ok()
                .then_some(false);
        }
        match side_by_side::compare(&self.bytes, bytes, &mut scratch.reading.open) {
            Verdict::Same => Some(true),
            Verdict::Differ => Some(false),
            Verdict::Unknown => None,
        }
    }

    /// Keeps `tool` with `arguments`, checked in full (keyed, or told apart from the call kept),
    /// in place of the call kept; nothing is kept of one that is no transport or too large.
    pub(crate) fn keep(&mut self, tool: &[u16], arguments: Arguments<'_>) {
        let Arguments::Transport(bytes) = arguments else {
            return self.clear();
        };
        if size(tool, bytes) > MAX_BYTES {
            return self.clear();
        }
        refill(&mut self.tool, tool);
        refill(&mut self.bytes, bytes);
    }

    /// Gives back what a call kept before took.
    fn clear(&mut self) {
        *self = Self::default();
    }

    /// `f` called with the call kept, when there is one: its tool and arguments.
    pub(crate) fn with_call<R>(&self, f: impl FnOnce(Option<(&[u16], Arguments<'_>)>) -> R) -> R {
        f(self
            .held()
            .then(|| (&self.tool[..], Arguments::Transport(&self.bytes))))
    }

    /// The bytes its buffers take.
    #[cfg(test)]
    pub(crate) fn held_bytes(&self) -> usize {
        self.tool.capacity() * 2 + self.bytes.capacity()
    }
}

/// Puts `part` in `kept`, in a buffer of just its size when it must grow or holds four times more
/// than it takes.
fn refill<T: Copy>(kept: &mut Vec<T>, part: &[T]) {
    if kept.capacity() < part.len() || kept.capacity() > 4 * part.len().max(16) {
        *kept = Vec::with_capacity(part.len());
    }
    kept.clear();
    kept.extend_from_slice(part);
}

/// The bytes a call of `tool` and `bytes` is kept with.
fn size(tool: &[u16], bytes: &[u8]) -> usize {
    2 * tool.len() + bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::sized;
    use crate::transport::tag::{ARRAY, END, NARROW, NULL};

    #[test]
    fn the_same_bytes_of_the_same_tool_are_the_same_call() {
        let call = |bytes| Arguments::Transport(bytes);
        let bytes = sized(&[ARRAY, NARROW, 1, b'x', NULL, END]);
        let other = sized(&[ARRAY, NARROW, 1, b'y', NULL, END]);
        let huge = sized(
            &[
                &[ARRAY, NARROW, 0x80, 0x80, 0x01][..],
                &[b'z'; 1 << 14],
                &[END],
            ]
            .concat(),
        );
        let (tool, other_tool) = (&[0x74_u16][..], &[0x75_u16][..]);
        let scratch = &mut Scratch::default();
        let mut last = LastCall::default();
        assert_eq!(
            last.compare(tool, call(&bytes), scratch),
            None,
            "nothing kept"
        );
        last.keep(tool, call(&bytes));
        assert_eq!(last.compare(tool, call(&bytes), scratch), Some(true));
        assert_eq!(last.compare(tool, call(&other), scratch), Some(false));
        assert_eq!(last.compare(other_tool, call(&bytes), scratch), Some(false));
        // A call too large is not kept, and what the last one took is given back.
        last.keep(tool, call(&huge));
        assert_eq!(last.compare(tool, call(&bytes), scratch), None);
        assert_eq!(last.held_bytes(), 0);
    }
}
