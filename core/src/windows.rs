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
//! A result is compared as a value (members in any order) after its volatile
//! parts are removed: in each of its strings and numbers, every run of
//! hexadecimal digits and hyphens that holds a decimal digit reads as one
//! `#`. Numbers, counters, durations, timestamps' parts, line numbers in error
//! messages, hexadecimal ids and UUIDs so compare equal, while any change in
//! the result's words is progress. A result is a failure when it says so (a
//! member `isError` that is `true`) or when the first [`FAILURE_PREFIX`] bytes
//! of its strings, in canonical order, hold one of [`FAILURE_WORDS`] at the
//! start of a word, in any case: tools that report errors as text (shells,
//! editors) are read as the model reads them. Per agent the guard keeps one
//! 16-byte digest per call of the window (for a failure, its arguments' too),
//! never a copy.

use std::collections::hash_map::RandomState;
use std::collections::VecDeque;
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

use xxhash_rust::xxh3::{xxh3_128_with_seed, Xxh3};

use crate::arguments::Arguments;
use crate::error::CanonicalError;
use crate::form::tag::{ARRAY, END, NUMBER, OBJECT, TRUE};
use crate::form::FormStr;
use crate::key_form::FormSink;
use crate::number::js_number;
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

/// A 128-bit XXH3 digest of what a detection compares, under the process's [`seed`].
pub(crate) type CallDigest = u128;

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

/// The digests' seed, drawn once per process; digests live only in memory, so none outlives it.
/// XXH3 is not cryptographic: real results collide about as often as any 128-bit digest's, but a
/// pair crafted for it may collide more often, which at worst brings or holds back an advisory
/// reminder. The run rule is decided by a call's bytes or its key, BLAKE3's (`key`).
fn seed() -> u64 {
    static SEED: OnceLock<u64> = OnceLock::new();
    *SEED.get_or_init(|| RandomState::new().build_hasher().finish())
}

/// The digest of two digests, one after the other.
fn pair(first: CallDigest, second: CallDigest) -> CallDigest {
    let mut bytes = [0; 32];
    let (head, tail) = bytes.split_at_mut(16);
    head.copy_from_slice(&first.to_le_bytes());
    tail.copy_from_slice(&second.to_le_bytes());
    xxh3_128_with_seed(&bytes, seed())
}

/// The digest of a tool's name, its units little-endian.
fn tool_digest(tool: &[u16]) -> CallDigest {
    let mut hasher = Xxh3::with_seed(seed());
    for unit in tool {
        hasher.update(&unit.to_le_bytes());
    }
    hasher.digest128()
}

/// The digest of a call's key form (`key::write_key_form`), which the windows compare in place of
/// its key.
pub(crate) fn call_digest(form: &[u8]) -> CallDigest {
    xxh3_128_with_seed(form, seed())
}

/// What `noProgress` and `failures` compare for the call `(call, tool)` (`call` its
/// [`call_digest`]) with this result: `noProgress` the digest of the call and its normalized
/// result, `failures` (for a failure only) the digest of the tool and the normalized result, with
/// the call's. The result is read once; the guard asks only when one of them is on.
pub(crate) fn compared<'a>(
    no_progress: Option<&'a WindowConfig>,
    failures: Option<&'a WindowConfig>,
    (call, tool): (CallDigest, &[u16]),
    result: Option<Arguments<'_>>,
    scratch: &mut Scratch,
) -> Result<Compared<'a>, CanonicalError> {
    let failed = read_result(result, failures.is_some(), scratch)?;
    // Hashed once; each detection's digest is of this one and what it adds.
    let normalized = xxh3_128_with_seed(&scratch.normalized, seed());
    let no_progress = no_progress.map(|config| (config, pair(normalized, call)));
    let failures = failures.map(|config| {
        let failure = failed.then(|| Counted {
            digest: pair(normalized, tool_digest(tool)),
            arguments: Some(call),
        });
        (config, failure)
    });
    Ok((no_progress, failures))
}

/// Writes a result (`None`: none was given, a result of its own) with its volatile parts removed
/// into `scratch.normalized`, read once as its key form is written; whether it is a failure, asked
/// only when `failures`.
fn read_result(
    result: Option<Arguments<'_>>,
    failures: bool,
    scratch: &mut Scratch,
) -> Result<bool, CanonicalError> {
    // Empty whatever a call that failed midway left, not only after `Scratch::trim`.
    scratch.normalized.clear();
    scratch.said.clear();
    let Some(result) = result else {
        scratch.normalized.push(b'-');
        return Ok(false);
    };
    let mut normalizer = Normalizer {
        out: &mut scratch.normalized,
        said: &mut scratch.said,
        wide: &mut scratch.text,
        open: Vec::new(),
        flagged: false,
        flag_key: false,
    };
    scratch.reading.write(result, &[], &mut normalizer)?;
    Ok(failures && (normalizer.flagged || says_failure(&scratch.said)))
}

/// Takes a result's key form as it is written and writes it into `out` with each string's and
/// number's text normalized, and the first [`FAILURE_PREFIX`] bytes of its strings, in canonical
/// order, into `said`; `flagged`: a member `isError` is `true`, at any depth. Each string and
/// number is written with its length and tag after it, so that no two forms write the same bytes.
/// A wide string is read as bytes in `wide`.
struct Normalizer<'a> {
    out: &'a mut Vec<u8>,
    said: &'a mut Vec<u8>,
    wide: &'a mut Vec<u8>,
    /// Per open container: an array (`0`), or an object whose next item is a key (`1`) or a value.
    open: Vec<u8>,
    flagged: bool,
    /// Whether the last item was the key `isError`.
    flag_key: bool,
}

impl Normalizer<'_> {
    /// The next item's role in its container: a key (`1`), a member's value (`2`), or else `0`.
    fn role(&mut self, end: bool) -> u8 {
        match self.open.last_mut() {
            Some(state @ 1..=2) if !end => {
                *state = 3 - *state;
                3 - *state
            }
            _ => 0,
        }
    }
}

/// Writes `text` normalized into `out`, then its length and `tag`.
fn write_normalized(out: &mut Vec<u8>, text: &[u8], tag: u8) {
    let start = out.len();
    normalize(text, out);
    let len = (out.len() - start) as u32;
    out.extend_from_slice(&len.to_le_bytes());
    out.push(tag);
}

impl FormSink for Normalizer<'_> {
    fn tag(&mut self, tag: u8) {
        let role = self.role(tag == END);
        self.flagged |= self.flag_key && role == 2 && tag == TRUE;
        match tag {
            ARRAY | OBJECT => self.open.push(u8::from(tag == OBJECT)),
            END => drop(self.open.pop()),
            _ => {}
        }
        self.out.push(tag);
    }

    fn string(&mut self, string: FormStr<'_>) {
        let role = self.role(false);
        let text = string.as_bytes(self.wide);
        let room = FAILURE_PREFIX.saturating_sub(self.said.len());
        if room > 0 {
            self.said
                .extend_from_slice(text.get(..room).unwrap_or(text));
            // Where one string ends, a word does.
            self.said.push(b'"');
        }
        self.flag_key = role == 1 && text == b"isError";
        write_normalized(self.out, text, string.tag());
    }

    fn number(&mut self, value: f64) {
        self.role(false);
        self.flag_key = false;
        let mut buffer = ryu_js::Buffer::new();
        write_normalized(self.out, js_number(value, &mut buffer).as_bytes(), NUMBER);
    }
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

/// Whether `text` holds one of [`FAILURE_WORDS`] at the start of a word, in any case. The starts
/// of words (a letter after a byte that is neither a letter nor a digit) are found eight bytes at
/// a time, and the words compared only at one whose first two letters begin one of them.
fn says_failure(text: &[u8]) -> bool {
    let (eights, rest) = text.as_chunks::<8>();
    let mut last = [b' '; 8];
    last.get_mut(..rest.len())
        .unwrap_or_default()
        .copy_from_slice(rest);
    // Whether the byte before these eight is a letter or a digit, as the first byte's high bit.
    let mut before = 0;
    for (n, eight) in eights.iter().chain([&last]).enumerate() {
        let x = u64::from_le_bytes(*eight);
        let letters = scan::letters(x);
        let alphanumeric = letters | scan::digits(x);
        let mut starts = letters & !(alphanumeric << 8 | before);
        before = alphanumeric >> 56;
        while starts != 0 {
            let from = text.get(n * 8 + (starts.trailing_zeros() / 8) as usize..);
            let from = from.unwrap_or_default();
            let pair = match from {
                [first, second, ..] => usize::from(first & 0x1f) << 5 | usize::from(second & 0x1f),
                _ => 0,
            };
            let mut words = WORDS_BY_PAIR.get(pair).copied().unwrap_or(0);
            while words != 0 {
                let word = FAILURE_WORDS[words.trailing_zeros() as usize % FAILURE_WORDS.len()];
                if from
                    .get(..word.len())
                    .is_some_and(|head| head.eq_ignore_ascii_case(word.as_bytes()))
                {
                    return true;
                }
                words &= words - 1;
            }
            starts &= starts - 1;
        }
    }
    false
}

/// For each two bytes, by the low five bits of each (a letter's place in the alphabet, in either
/// case), the [`FAILURE_WORDS`] that may begin with them, one bit each: most words of a text begin
/// otherwise, and are passed over at one look.
const WORDS_BY_PAIR: [u16; 1 << 10] = {
    let mut words = [0; 1 << 10];
    let mut i = 0;
    while i < FAILURE_WORDS.len() {
        let word = FAILURE_WORDS[i].as_bytes();
        words[((word[0] & 0x1f) as usize) << 5 | (word[1] & 0x1f) as usize] |= 1 << i;
        i += 1;
    }
    words
};

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
