//! Opt-in `similar: { minCalls, similarity }`: runs of near-identical calls.
//! A call's sample is the first [`SAMPLE_UNITS`] UTF-16 code units of its
//! canonical arguments (as compared, without ignored keys); two samples'
//! similarity is the Dice coefficient of their bigram multisets,
//! `2 |A ∩ B| / (|A| + |B|)`, from 0 (no bigram shared) to 1. The last
//! call's sample is kept per agent, so a call costs one capped walk and, for
//! a call of the same tool, a count of the bigrams where the two samples
//! differ by bucket, stopped once too few are left to share, which rules
//! most calls out, and only then a sort and merge of them, whatever the size
//! of its arguments.

/// How much of the canonical arguments a sample holds.
pub const SAMPLE_UNITS: usize = 512;

pub const DEFAULT_MIN_CALLS: f64 = 5.0;
pub const DEFAULT_SIMILARITY: f64 = 0.85;

/// What `profile: 'recommended'` sets: stricter than the defaults, since on
/// real agents' runs 8 such calls in a row came only in runs that were stuck.
pub const RECOMMENDED: SimilarConfig = SimilarConfig {
    min_calls: 8.0,
    similarity: 0.9,
};

/// The validated option.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimilarConfig {
    /// Calls in a run that bring the reminder, an integer >= 2.
    pub min_calls: f64,
    /// The least similarity of two adjacent calls in a run, in (0, 1].
    pub similarity: f64,
}

/// Two adjacent code units as one number.
fn bigram(pair: &[u16]) -> u32 {
    match *pair {
        [a, b] => (u32::from(a) << 16) | u32::from(b),
        _ => 0,
    }
}

/// The sorted bigrams of `units`.
pub(crate) fn bigrams(units: &[u16]) -> Vec<u32> {
    let mut bigrams: Vec<u32> = units.windows(2).map(bigram).collect();
    bigrams.sort_unstable();
    bigrams
}

/// How many bigrams two sorted bigram multisets share.
fn shared(a: &[u32], b: &[u32]) -> usize {
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        match x.cmp(y) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    shared
}

/// The Dice coefficient of two samples' bigram multisets (0 when both have none). The bigrams
/// wholly inside their common start or their common end are the same in both, and shared as
/// they stand; only those between are sorted and merged: a call that changes one value of the
/// last one costs two short sorts.
pub(crate) fn similarity(a: &[u16], b: &[u16]) -> f64 {
    dice(a, b, 0.0, |a, b, _| shared(&bigrams(a), &bigrams(b)))
}

/// Whether [`similarity`] may reach `least`, in one pass without a sort: the bigrams between the
/// common start and end are counted by bucket (a hash of the bigram), two in one bucket count as
/// shared, and the count stops once too few are left to reach `least`. Most pairs of calls fall
/// short already by this.
pub(crate) fn may_reach(a: &[u16], b: &[u16], least: f64) -> bool {
    dice(a, b, least, |a, b, needed| {
        const BUCKETS: usize = 1 << 10;
        let bucket =
            |pair: &[u16]| (bigram(pair).wrapping_mul(0x9e37_79b1) >> 22) as usize % BUCKETS;
        let mut counts = [0_u16; BUCKETS];
        for pair in a.windows(2) {
            if let Some(count) = counts.get_mut(bucket(pair)) {
                *count += 1;
            }
        }
        let (mut shared, mut left) = (0, b.len().saturating_sub(1));
        for pair in b.windows(2) {
            if shared + left < needed {
                break;
            }
            left -= 1;
            if let Some(count) = counts.get_mut(bucket(pair)).filter(|count| **count > 0) {
                *count -= 1;
                shared += 1;
            }
        }
        shared
    }) >= least
}

/// `2 |A ∩ B| / (|A| + |B|)` for the bigrams of `a` and `b`, with `shared_between` counting those
/// shared between their common start and their common end (given the units there, and how many
/// of them must be shared for the coefficient to reach `goal`).
fn dice(
    a: &[u16],
    b: &[u16],
    goal: f64,
    shared_between: impl Fn(&[u16], &[u16], usize) -> usize,
) -> f64 {
    let total = a.len().saturating_sub(1) + b.len().saturating_sub(1);
    if total == 0 {
        return 0.0;
    }
    let start = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a_rest, b_rest) = (
        a.get(start..).unwrap_or_default(),
        b.get(start..).unwrap_or_default(),
    );
    let end = a_rest
        .iter()
        .rev()
        .zip(b_rest.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    // The bigrams within the common start and end, and the slices that hold the others.
    let (first, last) = (start.saturating_sub(1), end.saturating_sub(1));
    let between = |units: &[u16]| first..units.len().saturating_sub(last).max(first);
    let (a_between, b_between) = (
        a.get(between(a)).unwrap_or_default(),
        b.get(between(b)).unwrap_or_default(),
    );
    // Rounded down: a count below it falls short of `goal` whatever the rounding of the ratio.
    let needed = ((goal * total as f64 / 2.0).floor() as usize).saturating_sub(first + last);
    let shared = first + last + shared_between(a_between, b_between, needed);
    (2 * shared) as f64 / total as f64
}

/// An agent's near-identical run: the last call's tool and sample, and the run's length.
#[derive(Debug, Clone, Default)]
pub(crate) struct SimilarRun {
    tool: Vec<u16>,
    sample: Vec<u16>,
    run: u64,
}

impl SimilarRun {
    /// Takes the agent's next tracked call: `sample` is `None` when it is the
    /// same call as the last (it then starts a run of its own, as far as
    /// similarity goes: it belongs to the exact run). `results_equal` is false
    /// only under `sameResultOnly`, when the result changed. Returns the run's
    /// length, and whether this call brings it to `minCalls`.
    pub(crate) fn push(
        &mut self,
        tool: &[u16],
        sample: Option<Vec<u16>>,
        results_equal: bool,
        config: &SimilarConfig,
    ) -> (u64, bool) {
        let Some(sample) = sample else {
            self.run = 1;
            return (1, false);
        };
        let least = config.similarity;
        let close = self.run > 0
            && results_equal
            && self.tool == tool
            && may_reach(&self.sample, &sample, least)
            && similarity(&self.sample, &sample) >= least;
        self.run = if close { self.run.saturating_add(1) } else { 1 };
        if self.tool != tool {
            self.tool = tool.to_vec();
        }
        self.sample = sample;
        (self.run, close && self.run as f64 == config.min_calls)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arguments::Arguments;
    use crate::canonical::canonical_head;
    use crate::ignore::KeyPath;
    use crate::scratch::Scratch;

    /// A call's sample: the head of its canonical arguments.
    fn sample(
        arguments: Arguments<'_>,
        ignored: &[KeyPath],
        scratch: &mut Scratch,
    ) -> Result<Vec<u16>, crate::error::CanonicalError> {
        canonical_head(arguments, SAMPLE_UNITS, ignored, scratch)
    }

    fn head(json: &str) -> Vec<u16> {
        sample(Arguments::Json(json), &[], &mut Scratch::default()).unwrap()
    }

    fn bigrams(json: &str) -> Vec<u32> {
        super::bigrams(&head(json))
    }

    /// The Dice coefficient as defined: on the two whole sorted bigram multisets.
    fn dice(a: &[u32], b: &[u32]) -> f64 {
        let total = a.len() + b.len();
        if total == 0 {
            0.0
        } else {
            (2 * shared(a, b)) as f64 / total as f64
        }
    }

    #[test]
    fn similarity_is_the_dice_coefficient_of_the_whole_samples() {
        let units = |text: &str| text.encode_utf16().collect::<Vec<u16>>();
        let mut pairs: Vec<(Vec<u16>, Vec<u16>)> = [
            ("", ""),
            ("a", ""),
            ("a", "a"),
            ("ab", "ab"),
            ("aaa", "aa"),
            ("abab", "ab"),
            ("abcabc", "abc"),
            ("xaay", "xay"),
            (r#"{"q":"foo1"}"#, r#"{"q":"foo12"}"#),
            (r#"{"q":"foo"}"#, r#"{"path":"src/lib.rs"}"#),
        ]
        .iter()
        .map(|(a, b)| (units(a), units(b)))
        .collect();
        // Pairs over a two-letter alphabet, where bigrams repeat across the common start and end.
        let mut seed = 7u32;
        let mut next = |modulo: u32| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (seed >> 16) % modulo
        };
        for _ in 0..2_000 {
            let (len_a, len_b) = (next(12), next(12));
            let a: Vec<u16> = (0..len_a).map(|_| 0x61 + next(2) as u16).collect();
            let b: Vec<u16> = (0..len_b).map(|_| 0x61 + next(2) as u16).collect();
            let mut c = a.clone();
            c.insert(c.len() / 2, 0x61);
            pairs.push((a.clone(), b));
            pairs.push((a, c));
        }
        // Longer pairs over many units, where bigrams share buckets in `may_reach`.
        for _ in 0..200 {
            let (len_a, len_b) = (next(600), next(600));
            let a: Vec<u16> = (0..len_a).map(|_| 0x100 + next(40) as u16).collect();
            let b: Vec<u16> = (0..len_b).map(|_| 0x100 + next(40) as u16).collect();
            pairs.push((a, b));
        }
        for (a, b) in &pairs {
            assert_eq!(
                similarity(a, b).to_bits(),
                dice(&super::bigrams(a), &super::bigrams(b)).to_bits(),
                "{a:?} {b:?}"
            );
            assert_eq!(similarity(a, b).to_bits(), similarity(b, a).to_bits());
            // Never false where the similarity reaches `least`, its own value included.
            let exact = similarity(a, b);
            for least in [0.3, 0.5, 0.8, 0.9, 1.0, exact] {
                assert!(
                    exact < least || may_reach(a, b, least),
                    "{a:?} {b:?} {least}"
                );
            }
        }
    }

    #[test]
    fn dice_of_bigram_multisets() {
        assert_eq!(dice(&bigrams(r#""abc""#), &bigrams(r#""abc""#)), 1.0);
        assert_eq!(dice(&[], &[]), 0.0);
        // "aaa" has the bigram aa twice; "aa" once: 2·(`"a`, aa, `a"` shared) / (4 + 3).
        assert_eq!(dice(&bigrams(r#""aaa""#), &bigrams(r#""aa""#)), 6.0 / 7.0);
        let (a, b) = (bigrams(r#"{"q":"foo"}"#), bigrams(r#"{"q":"foo "}"#));
        let d = dice(&a, &b);
        assert!((0.85..1.0).contains(&d), "{d}");
        assert!(
            dice(
                &bigrams(r#"{"q":"foo"}"#),
                &bigrams(r#"{"path":"src/lib.rs"}"#)
            ) < 0.5
        );
    }

    #[test]
    fn a_sample_is_the_canonical_texts_head_without_ignored_keys() {
        // Key order does not matter, and past the head nothing does.
        assert_eq!(bigrams(r#"{"b":1,"a":2}"#), bigrams(r#"{"a":2,"b":1}"#));
        let long = |tail: &str| format!(r#"{{"a":"{}{tail}"}}"#, "x".repeat(SAMPLE_UNITS));
        assert_eq!(bigrams(&long("1")), bigrams(&long("2")));
        assert_eq!(bigrams(&long("")).len(), SAMPLE_UNITS - 1);
        let path = KeyPath::parse(&"t".encode_utf16().collect::<Vec<_>>()).unwrap();
        let without = super::bigrams(
            &sample(
                Arguments::Json(r#"{"q":1,"t":"9"}"#),
                &[path],
                &mut Scratch::default(),
            )
            .unwrap(),
        );
        assert_eq!(without, bigrams(r#"{"q":1}"#));
    }

    #[test]
    fn the_head_read_off_a_key_form_is_the_canonical_head() {
        use crate::canonical::key_form_head;
        use crate::key::write_key_form;
        let path = KeyPath::parse(&"t".encode_utf16().collect::<Vec<_>>()).unwrap();
        let long = format!(
            r#"{{"b":"{}","a":[1,-0,"\u00e9\n"],"t":9}}"#,
            "x".repeat(600)
        );
        let text: Vec<u16> = "raw \u{1F600} text".encode_utf16().collect();
        let calls = [
            Arguments::Json(r#"{"q":"a\"b","t":1}"#),
            Arguments::Json(&long),
            Arguments::Text(&text),
        ];
        for arguments in calls {
            for ignored in [&[][..], &[path.clone()][..]] {
                let mut scratch = Scratch::default();
                write_key_form(&[0x74], arguments, &mut scratch, ignored).unwrap();
                let read = key_form_head(&scratch.form, SAMPLE_UNITS).unwrap();
                let written =
                    canonical_head(arguments, SAMPLE_UNITS, ignored, &mut Scratch::default())
                        .unwrap();
                assert_eq!(read, written);
            }
        }
    }

    #[test]
    fn a_run_grows_on_close_calls_of_one_tool_and_reports_once() {
        let config = SimilarConfig {
            min_calls: 3.0,
            similarity: 0.8,
        };
        let t: Vec<u16> = "grep".encode_utf16().collect();
        let u: Vec<u16> = "read".encode_utf16().collect();
        let mut run = SimilarRun::default();
        let calls = [
            r#"{"q":"foo1"}"#,
            r#"{"q":"foo2"}"#,
            r#"{"q":"foo3"}"#,
            r#"{"q":"foo4"}"#,
        ];
        let got: Vec<_> = calls
            .iter()
            .map(|c| run.push(&t, Some(head(c)), true, &config))
            .collect();
        assert_eq!(got, [(1, false), (2, false), (3, true), (4, false)]);
        // Another tool, a far call, a changed result or the same call again: a new run.
        assert_eq!(
            run.push(&u, Some(head(calls[0])), true, &config),
            (1, false)
        );
        assert_eq!(run.run, 1);
        run.push(&u, Some(head(calls[1])), true, &config);
        assert_eq!(run.run, 2);
        run.push(&u, Some(head(r#"{"path":"/etc/hosts"}"#)), true, &config);
        assert_eq!(run.run, 1);
        run.push(&u, Some(head(r#"{"path":"/etc/hosts2"}"#)), false, &config);
        assert_eq!(run.run, 1);
        run.push(&u, None, true, &config);
        assert_eq!(run.run, 1);
    }
}
