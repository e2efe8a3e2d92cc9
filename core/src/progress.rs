//! Opt-in `noProgress: { minCalls, window }`: the same call returning the
//! same result again and again, back to back or with other calls between.
//! A call counts as no progress when its key and its normalized result equal
//! an earlier call's among the agent's last `window` tracked calls; the
//! reminder comes when `minCalls` such calls are in the window together, and
//! again for that call only once the call it came at has left the window (a
//! loop that goes on is reminded of every `window` calls).
//!
//! A result is compared after its volatile parts are removed: in its
//! canonical text, every run of hexadecimal digits and hyphens that holds a
//! decimal digit reads as one `#`. Numbers, counters, durations, timestamps'
//! parts, line numbers in error messages, hexadecimal ids and UUIDs so compare
//! equal, while any change in the result's words is progress. Per agent the
//! guard keeps one 32-byte digest per call of the window, never a copy.

use std::collections::VecDeque;

use crate::canonical::{write_canonical_in, Sink};
use crate::error::CanonicalError;
use crate::key::{CallKey, KeyForm};
use crate::read::Scratch;
use crate::value::Arguments;

/// The defaults, chosen on the shared trajectories (docs/DETECTION.md): the most stuck runs caught
/// while reminding in at most 1 % of the solved ones.
pub const DEFAULT_MIN_CALLS: f64 = 6.0;
pub const DEFAULT_WINDOW: f64 = 16.0;
/// The largest window: per-agent state stays a few dozen digests.
pub const MAX_WINDOW: f64 = 64.0;

/// The validated option.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NoProgressConfig {
    /// Equal calls in the window that bring the reminder, an integer >= 2.
    pub min_calls: f64,
    /// Tracked calls looked back over, an integer from `min_calls` to [`MAX_WINDOW`].
    pub window: f64,
}

/// The digest of a result's canonical text with its volatile parts removed
/// (`None`, no result, is a result of its own).
pub(crate) fn result_digest(
    result: Option<Arguments<'_>>,
    scratch: &mut Scratch,
) -> Result<[u8; blake3::OUT_LEN], CanonicalError> {
    let mut sink = Normalized::default();
    match result {
        Some(result) => {
            sink.hasher.update(b"r");
            write_canonical_in(result, &mut sink, scratch)?;
            sink.flush();
        }
        None => {
            sink.hasher.update(b"-");
        }
    }
    Ok(*sink.hasher.finalize().as_bytes())
}

/// Hashes the text written to it, each run of hexadecimal digits and hyphens
/// that holds a decimal digit written as `#`.
#[derive(Default)]
struct Normalized {
    hasher: blake3::Hasher,
    /// The run being read, while it has no decimal digit.
    run: String,
    /// Whether the run being read holds a decimal digit.
    numeric: bool,
}

impl Normalized {
    fn flush(&mut self) {
        if self.numeric {
            self.hasher.update(b"#");
        } else {
            self.hasher.update(self.run.as_bytes());
        }
        self.run.clear();
        self.numeric = false;
    }
}

impl Sink for Normalized {
    fn write(&mut self, chunk: &str) {
        let mut plain = 0;
        for (at, c) in chunk.char_indices() {
            if c.is_ascii_hexdigit() || c == '-' {
                if plain < at {
                    self.flush();
                    self.hasher
                        .update(chunk.as_bytes().get(plain..at).unwrap_or_default());
                }
                plain = at + 1;
                if c.is_ascii_digit() {
                    self.numeric = true;
                    self.run.clear();
                } else if !self.numeric {
                    self.run.push(c);
                }
            }
        }
        if plain < chunk.len() {
            self.flush();
            self.hasher
                .update(chunk.as_bytes().get(plain..).unwrap_or_default());
        }
    }
}

/// An agent's last calls, as digests of their key and normalized result.
#[derive(Debug, Clone, Default)]
pub(crate) struct Recent {
    /// Each call's digest, and whether the reminder came at it.
    calls: VecDeque<([u8; blake3::OUT_LEN], bool)>,
}

impl Recent {
    /// Takes the agent's next tracked call; the number of equal calls in the
    /// window, and whether the reminder is due: they are at least `minCalls`
    /// and the call was not reminded of since it last entered the window.
    pub(crate) fn push(
        &mut self,
        key: &CallKey,
        result: &[u8; blake3::OUT_LEN],
        config: &NoProgressConfig,
    ) -> (u64, bool) {
        let mut hasher = blake3::Hasher::new();
        match key.form() {
            KeyForm::Inline(form) => hasher.update(b"i").update(form),
            KeyForm::Digest(hash) => hasher.update(b"d").update(&hash),
        };
        let call = *hasher.update(result).finalize().as_bytes();
        // Both validated integers in [2, MAX_WINDOW].
        let window = config.window as usize;
        while self.calls.len() >= window {
            self.calls.pop_front();
        }
        let (mut equal, mut reminded) = (1, false);
        for (held, at) in &self.calls {
            if *held == call {
                equal += 1;
                reminded |= *at;
            }
        }
        let due = equal as f64 >= config.min_calls && !reminded;
        self.calls.push_back((call, due));
        (equal, due)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(json: &str) -> [u8; 32] {
        result_digest(Some(Arguments::Json(json)), &mut Scratch::default()).unwrap()
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
        assert_ne!(
            digest(r#"{"content":""}"#),
            result_digest(None, &mut Scratch::default()).unwrap()
        );
    }

    fn due((equal, due): (u64, bool)) -> Option<u64> {
        due.then_some(equal)
    }

    #[test]
    fn reminds_when_the_window_holds_min_calls_equal_calls() {
        let config = NoProgressConfig {
            min_calls: 3.0,
            window: 5.0,
        };
        let key = |n: u8| CallKey::from(&KeyForm::Inline(&[n]));
        let (same, other) = (digest(r#""x""#), digest(r#""y""#));
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
        .map(|(n, result)| due(recent.push(&key(*n), result, &config)))
        .collect();
        assert_eq!(hits, [None, None, None, None, Some(3), None]);
        // Calls that fall out of the window no longer count.
        let mut recent = Recent::default();
        let spaced: Vec<Option<u64>> = [1, 2, 3, 4, 1, 2, 3, 4, 1]
            .iter()
            .map(|n| due(recent.push(&key(*n), &same, &config)))
            .collect();
        assert_eq!(spaced, [None; 9]);
        // A loop that goes on is reminded of once, and again after it was broken.
        let mut recent = Recent::default();
        let looping: Vec<Option<u64>> = [1, 2, 1, 2, 1, 2, 1, 2, 3, 4, 5, 6, 7, 1, 1, 1]
            .iter()
            .map(|n| due(recent.push(&key(*n), &same, &config)))
            .collect();
        let hits: Vec<usize> = looping
            .iter()
            .enumerate()
            .filter_map(|(i, hit)| hit.map(|_| i + 1))
            .collect();
        assert_eq!(hits, [5, 6, 16]);
        assert_eq!(looping.get(4), Some(&Some(3)));
    }
}
