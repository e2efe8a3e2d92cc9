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
            normalize(text.as_bytes(), &mut normalized);
            failures && (text.contains(ERROR_FLAG) || says_failure(text.as_bytes()))
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
    while let Some(digit) = rest.iter().position(u8::is_ascii_digit) {
        let (before, from) = rest.split_at(digit);
        // The run holding the digit, from its first byte before it to its last after it.
        let start = before
            .iter()
            .rposition(|byte| !in_run(byte))
            .map_or(0, |at| at + 1);
        let len = from
            .iter()
            .position(|byte| !in_run(byte))
            .unwrap_or(from.len());
        out.extend_from_slice(before.get(..start).unwrap_or_default());
        out.push(b'#');
        rest = from.get(len..).unwrap_or_default();
    }
    out.extend_from_slice(rest);
}

/// Whether the first [`FAILURE_PREFIX`] bytes of `text` hold one of [`FAILURE_WORDS`] at the
/// start of a word, in any case: each word start is tried once, by its first byte before the
/// words are compared.
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
        let first = byte.to_ascii_lowercase();
        if FIRST_LETTERS & (1 << (first - b'a')) == 0 {
            continue;
        }
        let rest = text.get(at..).unwrap_or_default();
        if FAILURE_WORDS.iter().any(|word| {
            word.as_bytes().first() == Some(&first)
                && rest
                    .get(..word.len())
                    .is_some_and(|head| head.eq_ignore_ascii_case(word.as_bytes()))
        }) {
            return true;
        }
    }
    false
}

/// The first letters of [`FAILURE_WORDS`], one bit each from `a`: most word starts are ruled out
/// by one test.
const FIRST_LETTERS: u32 = {
    let (mut bits, mut i) = (0, 0);
    while i < FAILURE_WORDS.len() {
        bits |= 1 << (FAILURE_WORDS[i].as_bytes()[0] - b'a');
        i += 1;
    }
    bits
};

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
mod tests {
    use std::ops::Not;

    use super::*;

    /// What `noProgress` and `failures` compare of the call `(key, tool)` with this result.
    fn compare(key: &CallKey, tool: &[u16], result: Option<&str>) -> (CallDigest, Option<Counted>) {
        let config = WindowConfig {
            min_calls: 2.0,
            window: 2.0,
        };
        let result = result.map(Arguments::Json);
        let (no_progress, failures) = compared(
            Some(&config),
            Some(&config),
            (key, tool),
            result,
            &mut Scratch::default(),
        )
        .unwrap();
        (no_progress.unwrap().1, failures.unwrap().1)
    }

    fn key(n: u8) -> CallKey {
        CallKey::from(&KeyForm::Inline(&[n]))
    }

    /// A call as `noProgress`'s window holds it.
    fn same_call(key: &CallKey, result: &str) -> Counted {
        Counted {
            digest: compare(key, &[0x67], Some(result)).0,
            arguments: None,
        }
    }

    fn same_failure(tool: &[u16], arguments: u8, result: &str) -> Option<Counted> {
        compare(&key(arguments), tool, Some(result)).1
    }

    /// A result as one call reads it: what `noProgress` compares, and whether it is a failure.
    struct Read {
        digest: CallDigest,
        failed: bool,
    }

    fn read_as(result: Option<&str>) -> Read {
        let (digest, failure) = compare(&key(0), &[0x67], result);
        Read {
            digest,
            failed: failure.is_some(),
        }
    }

    fn read(json: &str) -> Read {
        read_as(Some(json))
    }

    fn digest(json: &str) -> CallDigest {
        read(json).digest
    }

    #[test]
    fn volatile_parts_are_removed() {
        let shell = |line: &str| {
            digest(&format!(
                r#"{{"content":"/bin/bash: line {line}: cd: fastxml/: No such file or directory","isError":false}}"#
            ))
        };
        assert_eq!(shell("69527"), shell("69737"));
        let stamped =
            |at: &str, id: &str| digest(&format!(r#"{{"content":"done at {at} (request {id})"}}"#));
        assert_eq!(
            stamped(
                "2025-03-31T08:33:04.309Z",
                "3fa85f64-5717-4562-b3fc-2c963f66afa6"
            ),
            stamped(
                "2026-12-04T17:35:41.000Z",
                "9b2e0c1d-aaaa-4bbb-8ccc-0123456789ab"
            )
        );
        assert_ne!(
            digest(r#"{"content":"status: running"}"#),
            digest(r#"{"content":"status: done"}"#)
        );
        assert_ne!(
            digest(r#"{"content":"cafe"}"#),
            digest(r#"{"content":"face"}"#)
        );
        assert_ne!(digest(r#"{"content":"x1"}"#), digest(r#"{"content":"y1"}"#));
        assert_ne!(digest(r#"{"content":""}"#), read_as(None).digest);
    }

    #[test]
    fn normalize_replaces_each_maximal_run_that_holds_a_digit() {
        // The rule read plainly: maximal runs of hexadecimal digits and hyphens, one at a time.
        fn plainly(text: &[u8]) -> Vec<u8> {
            let mut out = Vec::new();
            for (is_run, group) in text
                .chunk_by(|a, b| RUN[*a as usize] == RUN[*b as usize])
                .map(|g| (RUN[g[0] as usize], g))
            {
                if is_run && group.iter().any(u8::is_ascii_digit) {
                    out.push(b'#');
                } else {
                    out.extend_from_slice(group);
                }
            }
            out
        }
        const ALPHABET: &[u8] = b"0a-Fz \"#";
        // Every text of up to 6 bytes over an alphabet of each kind of byte.
        let mut texts = vec![Vec::new()];
        for _ in 0..6 {
            let longer: Vec<Vec<u8>> = texts
                .iter()
                .filter(|t| t.len() == texts.last().unwrap().len())
                .flat_map(|t| ALPHABET.iter().map(move |&b| [&t[..], &[b]].concat()))
                .collect();
            texts.extend(longer);
        }
        for text in texts {
            let mut out = Vec::new();
            normalize(&text, &mut out);
            assert_eq!(out, plainly(&text), "{:?}", String::from_utf8_lossy(&text));
        }
    }

    #[test]
    fn failures_are_flagged_or_said_early() {
        let failed = |json: &str| read(json).failed;
        assert!(failed(r#"{"content":"ok","isError":true}"#));
        assert!(!failed(r#"{"content":"ok","isError":false}"#));
        assert!(failed(
            r#"{"content":"bash: cd: x/: No such file or directory"}"#
        ));
        assert!(failed(r#""ERROR: Invalid `path` parameter""#));
        assert!(failed(r#""Traceback (most recent call last):""#));
        assert!(failed(r#""Usage: edit <start>:<end>""#));
        // At the start of a word only: the key `isError` and words that merely hold one are not.
        assert!(!failed(r#"{"content":"42 tests passed","isError":false}"#));
        assert!(!failed(r#""terrors and inerrant unfailed text""#));
        // Only letters start a word here, so every failure word must begin with one.
        assert!(FAILURE_WORDS
            .iter()
            .all(|word| word.as_bytes().first().is_some_and(u8::is_ascii_alphabetic)));
        // Said past the first FAILURE_PREFIX bytes it is not read.
        let late = format!(r#""{} error""#, "x".repeat(FAILURE_PREFIX));
        assert!(!failed(&late));
        // The flag is found wherever it is, also when a long content puts it far in.
        let far = format!(r#"{{"content":"{}","isError":true}}"#, "x".repeat(10_000));
        assert!(failed(&far));
        assert!(!failed(&far.replace("true", "false")));
        assert!(read_as(None).failed.not());
    }

    #[test]
    fn the_flag_is_found_at_any_offset_of_the_text() {
        for pad in 0..=70 {
            let text = format!(r#"{{"content":"{}","isError":true}}"#, "x".repeat(pad));
            assert!(read(&text).failed, "after {pad} bytes");
            assert!(
                !read(&text.replace("true", "false")).failed,
                "after {pad} bytes"
            );
        }
    }

    fn due((equal, due): (u64, bool)) -> Option<u64> {
        due.then_some(equal)
    }

    #[test]
    fn reminds_when_the_window_holds_min_calls_equal_calls() {
        let config = WindowConfig {
            min_calls: 3.0,
            window: 5.0,
        };
        let (same, other) = (r#""x""#, r#""y""#);
        let mut recent = Recent::default();
        let hits: Vec<Option<u64>> = [
            (1, same),
            (2, same),
            (1, same),
            (1, other),
            (1, same),
            (3, same),
        ]
        .iter()
        .map(|&(n, result)| due(recent.push(Some(same_call(&key(n), result)), &config)))
        .collect();
        assert_eq!(hits, [None, None, None, None, Some(3), None]);
        // Calls that fall out of the window no longer count.
        let mut recent = Recent::default();
        let spaced: Vec<Option<u64>> = [1, 2, 3, 4, 1, 2, 3, 4, 1]
            .iter()
            .map(|n| due(recent.push(Some(same_call(&key(*n), same)), &config)))
            .collect();
        assert_eq!(spaced, [None; 9]);
        // A loop that goes on is reminded of once, and again after it was broken.
        let mut recent = Recent::default();
        let looping: Vec<Option<u64>> = [1, 2, 1, 2, 1, 2, 1, 2, 3, 4, 5, 6, 7, 1, 1, 1]
            .iter()
            .map(|n| due(recent.push(Some(same_call(&key(*n), same)), &config)))
            .collect();
        let hits: Vec<usize> = looping
            .iter()
            .enumerate()
            .filter_map(|(i, hit)| hit.map(|_| i + 1))
            .collect();
        assert_eq!(hits, [5, 6, 16]);
        assert_eq!(looping.get(4), Some(&Some(3)));
    }

    #[test]
    fn failures_count_one_tool_and_error_once_per_arguments() {
        let config = WindowConfig {
            min_calls: 3.0,
            window: 4.0,
        };
        let (missing, ok) = (r#""cd: x: No such file or directory""#, r#""done""#);
        let (cd, ls): (&[u16], &[u16]) = (&[0x63, 0x64], &[0x6c, 0x73]);
        let hits = |calls: &[(&[u16], u8, &str)]| {
            let mut recent = Recent::default();
            let hits: Vec<Option<u64>> = calls
                .iter()
                .map(|&(tool, arguments, result)| {
                    due(recent.push(same_failure(tool, arguments, result), &config))
                })
                .collect();
            hits
        };
        // The sixth: three of cd's same error, with three arguments, among the last four calls
        // (the first has left).
        let retries = [
            (cd, 1, missing),
            (ls, 2, missing),
            (cd, 3, missing),
            (cd, 4, ok),
            (cd, 5, missing),
            (cd, 6, missing),
        ];
        assert_eq!(hits(&retries), [None, None, None, None, None, Some(3)]);
        // The same call failing again counts once: a repeat is the run rule's and noProgress's.
        let again = [
            (cd, 1, missing),
            (cd, 1, missing),
            (cd, 1, missing),
            (cd, 2, missing),
        ];
        assert_eq!(hits(&again), [None, None, None, None]);
        let mut recent = Recent::default();
        let counts: Vec<u64> = [1, 1, 2, 1, 2, 3]
            .iter()
            .map(|&arguments| recent.push(same_failure(cd, arguments, missing), &config).0)
            .collect();
        assert_eq!(counts, [1, 1, 2, 2, 2, 3]);
        // A call that is not a failure never counts, nor brings a reminder.
        let mut recent = Recent::default();
        assert_eq!(recent.push(same_failure(cd, 1, ok), &config), (0, false));
    }
}
