//! Two opt-in detections that read results, both counted over the agent's
//! last `window` tracked calls:
//! - `noProgress: { minCalls, window }`: the same call returning the same
//!   result again and again, back to back or with other calls between. A call
//!   counts when its key and its normalized result equal an earlier call's in
//!   the window.
//! - `failures: { minCalls, window }`: one tool failing again and again with
//!   the same error, with other arguments each time. A call counts when its
//!   result is a failure and its tool and normalized result equal an earlier
//!   failed call's in the window, once per distinct arguments: the same call
//!   failing again is a repeat, for the run rule and `noProgress`.
//!
//! The reminder comes when `minCalls` such calls are in the window together,
//! and again for that call only once the call it came at has left the window
//! (a loop that goes on is reminded of every `window` calls).
//!
//! A result is compared after its volatile parts are removed: in its
//! canonical text, every run of hexadecimal digits and hyphens that holds a
//! decimal digit reads as one `#`. Numbers, counters, durations, timestamps'
//! parts, line numbers in error messages, hexadecimal ids and UUIDs so compare
//! equal, while any change in the result's words is progress. A result is a
//! failure when it says so (`"isError":true`) or when its first
//! [`FAILURE_PREFIX`] bytes hold one of [`FAILURE_WORDS`] at the start of a
//! word, in any case: tools that report errors as text (shells, editors) are
//! read as the model reads them. Per agent the guard keeps one 32-byte digest
//! per call of the window (for a failure, its arguments' too), never a copy.

use std::collections::VecDeque;
use std::mem::take;

use crate::arguments::Arguments;
use crate::canonical::write_canonical_in;
use crate::error::CanonicalError;
use crate::key::{CallKey, KeyForm};
use crate::scan;
use crate::scratch::Scratch;

/// The defaults, chosen on the shared trajectories (docs/DETECTION.md): the most stuck runs caught
/// while reminding in at most 1 % of the solved ones.
pub const NO_PROGRESS: WindowConfig = WindowConfig {
    min_calls: 6.0,
    window: 16.0,
};
pub const FAILURES: WindowConfig = WindowConfig {
    min_calls: 3.0,
    window: 8.0,
};
/// The largest window: per-agent state stays a few dozen digests.
pub const MAX_WINDOW: f64 = 64.0;

/// Where a result's text is searched for [`FAILURE_WORDS`]: an error is said first.
pub const FAILURE_PREFIX: usize = 512;
/// Words that make a result a failure, lower case, matched at the start of a word.
pub const FAILURE_WORDS: &[&str] = &[
    "error",
    "exception",
    "traceback",
    "not found",
    "no such file",
    "failed",
    "failure",
    "invalid",
    "cannot",
    "can't",
    "unable",
    "denied",
    "usage:",
];

/// A validated `noProgress` or `failures` option.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowConfig {
    /// Equal calls in the window that bring the reminder, an integer >= 2.
    pub min_calls: f64,
    /// Tracked calls looked back over, an integer from `min_calls` to [`MAX_WINDOW`].
    pub window: f64,
}

/// A BLAKE3 digest of what a detection compares.
pub(crate) type CallDigest = [u8; blake3::OUT_LEN];

/// A call as a window holds it: what its detection compares and, for `failures`, the digest of
/// its arguments (the key), for calls with the same arguments count once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Counted {
    pub(crate) digest: CallDigest,
    pub(crate) arguments: Option<CallDigest>,
}

/// `noProgress`'s and `failures`' configs, each with what it compares for one call (`None`: off;
/// `failures`' `None` within: the call did not fail).
pub(crate) type Compared<'a> = (
    Option<(&'a WindowConfig, CallDigest)>,
    Option<(&'a WindowConfig, Option<Counted>)>,
);

/// What `noProgress` and `failures` compare for the call `(key, tool)` with this result:
/// `noProgress` the digest of the call's key and its normalized result, `failures` (for a failure
/// only) the digest of the tool and the normalized result, with the key's digest. The result is
/// read once, and only when one of them is on.
pub(crate) fn compared<'a>(
    no_progress: Option<&'a WindowConfig>,
    failures: Option<&'a WindowConfig>,
    (key, tool): (&CallKey, &[u16]),
    result: Option<Arguments<'_>>,
    scratch: &mut Scratch,
) -> Result<Compared<'a>, CanonicalError> {
    if no_progress.is_none() && failures.is_none() {
        return Ok((None, None));
    }
    let failed = read_result(result, failures.is_some(), scratch)?;
    // Hashed once; each detection's digest is of what it adds and this one.
    let normalized = blake3::hash(&scratch.normalized);
    let normalized = normalized.as_bytes();
    let keyed = || {
        let mut hasher = blake3::Hasher::new();
        match key.form() {
            KeyForm::Inline(form) => hasher.update(b"i").update(form),
            KeyForm::Digest(hash) => hasher.update(b"d").update(&hash),
        };
        hasher
    };
    let no_progress =
        no_progress.map(|config| (config, *keyed().update(normalized).finalize().as_bytes()));
    let failures = failures.map(|config| {
        let failure = failed.then(|| {
            let mut hasher = blake3::Hasher::new();
            hasher.update(&(tool.len() as u64).to_le_bytes());
            for unit in tool {
                hasher.update(&unit.to_le_bytes());
            }
            Counted {
                digest: *hasher.update(normalized).finalize().as_bytes(),
                arguments: Some(*keyed().finalize().as_bytes()),
            }
        });
        (config, failure)
    });
    Ok((no_progress, failures))
}

/// Writes a result (`None`: none was given, a result of its own) with its volatile parts removed
/// into `scratch.normalized`; whether it is a failure, asked only when `failures`.
fn read_result(
    result: Option<Arguments<'_>>,
    failures: bool,
    scratch: &mut Scratch,
) -> Result<bool, CanonicalError> {
    let (mut text, mut normalized) = (take(&mut scratch.text), take(&mut scratch.normalized));
    // Empty whatever a call that failed midway left, not only after `Scratch::trim`.
    text.clear();
    normalized.clear();
    let read = match result {
        None => {
            normalized.push(b'-');
            Ok(false)
        }
        Some(result) => write_canonical_in(result, &mut text, &[], scratch).map(|()| {
            normalized.push(b'r');
            normalize(&text, &mut normalized);
            failures && (says_failure(&text) || holds_error_flag(&text))
        }),
    };
    (scratch.text, scratch.normalized) = (text, normalized);
    read
}

/// Whether a byte belongs to a run that `normalize` may replace: a hexadecimal digit or a hyphen.
/// A table: one load a byte where the tests take several.
const RUN: [bool; 256] = {
    let mut run = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        run[byte] = (byte as u8).is_ascii_hexdigit() || byte == b'-' as usize;
        byte += 1;
    }
    run
};

/// Writes `text` into `out` with each run of hexadecimal digits and hyphens that holds a decimal
/// digit written as `#`. Only decimal digits are looked for: most text has none for long
/// stretches (where hexadecimal letters are everywhere), and is copied as it is up to the next.
fn normalize(text: &[u8], out: &mut Vec<u8>) {
    let in_run = |byte: &u8| RUN[usize::from(*byte)];
    let mut rest = text;
    while let Some(digit) = scan::first(rest, scan::digits) {
        let (before, from) = rest.split_at(digit);
        // The run holding the digit, from its first byte before it to its last after it.
        let start = before
            .iter()
            .rposition(|b| !in_run(b))
            .map_or(0, |at| at + 1);
        let len = from.iter().position(|b| !in_run(b)).unwrap_or(from.len());
        out.extend_from_slice(before.get(..start).unwrap_or_default());
        out.push(b'#');
        rest = from.get(len..).unwrap_or_default();
    }
    out.extend_from_slice(rest);
}

/// Whether the first [`FAILURE_PREFIX`] bytes of `text` hold one of [`FAILURE_WORDS`] at the
/// start of a word, in any case: the words are compared only at a word start whose first letter
/// begins one of them.
fn says_failure(text: &[u8]) -> bool {
    let text = text.get(..FAILURE_PREFIX).unwrap_or(text);
    let mut word_start = true;
    for (at, &byte) in text.iter().enumerate() {
        let starts = word_start;
        word_start = !byte.is_ascii_alphanumeric();
        // Every word begins with a letter.
        if !starts || !byte.is_ascii_alphabetic() {
            continue;
        }
        let rest = text.get(at..).unwrap_or_default();
        let mut words = WORDS_BY_LETTER[usize::from(byte.to_ascii_lowercase() - b'a') % 26];
        while words != 0 {
            let word = FAILURE_WORDS[words.trailing_zeros() as usize % FAILURE_WORDS.len()];
            if rest
                .get(..word.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(word.as_bytes()))
            {
                return true;
            }
            words &= words - 1;
        }
    }
    false
}

/// For each letter from `a`, the [`FAILURE_WORDS`] that begin with it, one bit each.
const WORDS_BY_LETTER: [u16; 26] = {
    let mut words = [0; 26];
    let mut i = 0;
    while i < FAILURE_WORDS.len() {
        words[(FAILURE_WORDS[i].as_bytes()[0] - b'a') as usize] |= 1 << i;
        i += 1;
    }
    words
};

/// Whether `text` holds [`ERROR_FLAG`], looked for at each quotation mark.
fn holds_error_flag(text: &[u8]) -> bool {
    let mut rest = text;
    while let Some(at) = scan::first(rest, scan::quotes) {
        let from = rest.get(at..).unwrap_or_default();
        if from.starts_with(ERROR_FLAG.as_bytes()) {
            return true;
        }
        rest = from.get(1..).unwrap_or_default();
    }
    false
}

const ERROR_FLAG: &str = r#""isError":true"#;

/// An agent's last calls as one detection compares them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Recent {
    /// Each call (`None`: a call that never counts), and whether the reminder came at it.
    calls: VecDeque<(Option<Counted>, bool)>,
}

impl Recent {
    /// Takes the agent's next tracked call; the number of equal calls in the
    /// window, those with the same arguments once (0 for a call that never
    /// counts), and whether the reminder is due: they are at least `minCalls`
    /// and the call was not reminded of since it last entered the window.
    pub(crate) fn push(&mut self, call: Option<Counted>, config: &WindowConfig) -> (u64, bool) {
        // Both validated integers in [2, MAX_WINDOW].
        let window = config.window as usize;
        while self.calls.len() >= window {
            self.calls.pop_front();
        }
        let Some(call) = call else {
            self.calls.push_back((None, false));
            return (0, false);
        };
        let (mut equal, mut reminded) = (1, false);
        for (at, (held, due)) in self.calls.iter().enumerate() {
            let Some(held) = held.as_ref().filter(|held| held.digest == call.digest) else {
                continue;
            };
            // Arguments already counted (the digests being equal, the same call): the call's own,
            // or an earlier one's.
            let counted = held.arguments.is_some()
                && (*held == call
                    || self
                        .calls
                        .iter()
                        .take(at)
                        .any(|(earlier, _)| earlier.as_ref() == Some(held)));
            if !counted {
                equal += 1;
            }
            reminded |= *due;
        }
        let due = equal as f64 >= config.min_calls && !reminded;
        self.calls.push_back((Some(call), due));
        (equal, due)
    }
}

#[cfg(test)]
mod tests;
