//! The model the guard is checked against, written its own way: `*` patterns by dynamic
//! programming, cycles from each agent's whole history, similarity as bigram counts in a
//! map, and ignored keys cut out of the canonical text by a scanner of its own.

use std::collections::HashMap;

use repeat_tool_guard_core::{Stats, Tier};

use crate::inputs::{units, IgnoreModel, KeyNames};

/// `*` matches any run of code units but line terminators (as `.` in a JavaScript regular
/// expression without the `u` flag); all else is literal.
pub(crate) fn wildcard_match(pattern: &[u16], name: &[u16]) -> bool {
    // matches[j]: pattern prefix so far matches name[..j].
    let mut matches = vec![false; name.len() + 1];
    matches[0] = true;
    for &p in pattern {
        if p == u16::from(b'*') {
            for j in 1..=name.len() {
                let terminator = matches!(name[j - 1], 0x0a | 0x0d | 0x2028 | 0x2029);
                matches[j] = matches[j] || (matches[j - 1] && !terminator);
            }
        } else {
            for j in (1..=name.len()).rev() {
                matches[j] = matches[j - 1] && name[j - 1] == p;
            }
            matches[0] = false;
        }
    }
    matches[name.len()]
}

/// One agent in the model: its run, and every tracked call (tool, canonical text) when
/// cycles are on, with the period of the cycle reported and not broken since.
#[derive(Default)]
pub(crate) struct AgentModel {
    /// (tool, canonical arguments, canonical result when compared, run length).
    pub(crate) last: Option<(Vec<u16>, String, Option<String>, u64)>,
    pub(crate) history: Vec<(Vec<u16>, String)>,
    pub(crate) reported: Option<usize>,
    /// The near-identical run: the last call's tool, its sample's code units, the run's length.
    pub(crate) near: Option<(Vec<u16>, Vec<u16>, u64)>,
    /// `noProgress`' window: (tool, canonical arguments, normalized result) per call, and whether
    /// its reminder was due at it.
    pub(crate) progress: Window<(Vec<u16>, String, Option<String>)>,
    /// `failures`' window: (tool, normalized result) per failed call, with its canonical
    /// arguments; `None` for any other call.
    pub(crate) failures: Window<(Vec<u16>, Option<String>)>,
    /// Whether the last call was made in the current model response (`perResponse`).
    pub(crate) in_response: bool,
}

/// A detection's last calls, each what it compares with, for `failures`, the call's canonical
/// arguments, and whether its reminder was due at it.
pub(crate) type Window<T> = Vec<(Option<(T, Option<String>)>, bool)>;

/// Takes the next call into `window` (at most `size` kept); the count of equal calls in it, those
/// with the same arguments once, and whether the reminder is due (at least `min_calls`, none of
/// them reminded of). `None` never counts.
pub(crate) fn push_window<T: PartialEq>(
    window: &mut Window<T>,
    call: Option<(T, Option<String>)>,
    min_calls: u64,
    size: usize,
) -> (u64, bool) {
    while window.len() >= size {
        window.remove(0);
    }
    let Some(call) = call else {
        window.push((None, false));
        return (0, false);
    };
    let equal: Vec<_> = window
        .iter()
        .filter_map(|(held, at)| {
            held.as_ref()
                .filter(|(compared, _)| *compared == call.0)
                .map(|(_, arguments)| (arguments, *at))
        })
        .collect();
    let reminded = equal.iter().any(|(_, at)| *at);
    let mut seen = std::collections::HashSet::new();
    seen.insert(call.1.clone());
    let count = 1 + equal
        .iter()
        .filter(|(arguments, _)| arguments.is_none() || seen.insert((*arguments).clone()))
        .count() as u64;
    let due = count >= min_calls && !reminded;
    window.push((Some(call), due));
    (count, due)
}

/// A result's canonical text with each run of hexadecimal digits and hyphens that holds a decimal
/// digit written `#`. The guard normalizes each string and number of the result instead; the two
/// readings compare results alike unless a string holds a control character whose escape holds a
/// hexadecimal digit (`\b`, `\f`, `\u00..`, which can join a run here). `RESULTS` holds one
/// control character, a line break: `\n` stops a run as the character does.
pub(crate) fn normalized(text: &str) -> String {
    let mut out = String::new();
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        if run.chars().any(|c| c.is_ascii_digit()) {
            out.push('#');
        } else {
            out.push_str(run);
        }
        run.clear();
    };
    for c in text.chars() {
        if c.is_ascii_hexdigit() || c == '-' {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// Whether a result (its canonical text) is a failure: a member `isError` that is `true`, at any
/// depth, or an error word at the start of a word within the first 512 bytes of its strings, keys
/// and values in canonical order, in any case.
pub(crate) fn is_failure(text: &str) -> bool {
    const WORDS: [&str; 13] = [
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
    fn walk(value: &serde_json::Value, strings: &mut Vec<String>) -> bool {
        match value {
            serde_json::Value::String(s) => {
                strings.push(s.clone());
                false
            }
            serde_json::Value::Array(items) => items
                .iter()
                .fold(false, |flag, item| walk(item, strings) | flag),
            serde_json::Value::Object(members) => {
                members.iter().fold(false, |flag, (key, value)| {
                    strings.push(key.clone());
                    (key == "isError" && *value == serde_json::Value::Bool(true))
                        | walk(value, strings)
                        | flag
                })
            }
            _ => false,
        }
    }
    let mut strings = Vec::new();
    // The canonical text keeps its members in order (serde_json's `preserve_order`).
    let flagged = walk(
        &serde_json::from_str(text).expect("canonical text is JSON"),
        &mut strings,
    );
    let joined = strings.join("\"");
    let head = joined.as_bytes()[..joined.len().min(512)].to_ascii_lowercase();
    let starts_word = |at: usize| at == 0 || !head[at - 1].is_ascii_alphanumeric();
    flagged
        || WORDS.iter().any(|word| {
            (0..head.len()).any(|at| head[at..].starts_with(word.as_bytes()) && starts_word(at))
        })
}

pub(crate) fn no_progress_text(tool: &[u16], count: u64, window: usize) -> Vec<u16> {
    let mut text = units("Tool calls without progress detected:\n- tool: ");
    text.extend_from_slice(tool);
    text.extend(units(&format!("\n- same_call_same_result: {count} of the last {window} calls\nThis call, with identical arguments, keeps returning the same result, with other calls in between, so it tells you nothing new. Do not make it again until something it depends on has changed. Read the result you already have, change your approach (a different command, file, or fix), or finish the task if enough evidence has been gathered.")));
    text
}

pub(crate) fn failures_text(tool: &[u16], count: u64, window: usize) -> Vec<u16> {
    let mut text = units("Repeated tool failures detected:\n- tool: ");
    text.extend_from_slice(tool);
    text.extend(units(&format!("\n- same_error: {count} of the last {window} calls\nThis tool keeps failing with the same error, whatever the arguments, so retrying it with small changes will fail again. Read the error message: it says what is wrong (a missing file or directory, a wrong path or parameter, a command that is not available). Fix that cause first, or use a different tool or approach.")));
    text
}

pub(crate) fn stop_text(tool: &[u16], count: u64) -> Vec<u16> {
    let mut text = units("Tool call loop stopped:\n- tool: ");
    text.extend_from_slice(tool);
    text.extend(units(&format!("\n- calls: {count}, the limit this guard was configured with\nThe same call kept coming back without progress, so this turn has been ended. Before calling tools again, review the results you already have and choose a different approach, or report what is blocking you.")));
    text
}

pub(crate) struct Model {
    pub(crate) thresholds: Vec<u64>,
    pub(crate) include: Vec<Vec<u16>>,
    pub(crate) exclude: Vec<Vec<u16>>,
    pub(crate) preview: usize,
    pub(crate) cycles: Option<(usize, usize)>,
    pub(crate) same_result_only: bool,
    pub(crate) overrides: Vec<(Vec<Vec<u16>>, Vec<u64>)>,
    pub(crate) repeat_every: Option<u64>,
    /// One `ignoreArguments` entry: its patterns and (text, names) of its keys.
    pub(crate) ignore: Option<IgnoreModel>,
    /// (minCalls, similarity).
    pub(crate) similar: Option<(u64, f64)>,
    /// `noProgress` and `failures`: (minCalls, window).
    pub(crate) no_progress: Option<(u64, usize)>,
    pub(crate) failures: Option<(u64, usize)>,
    pub(crate) stop_at: Option<u64>,
    pub(crate) per_response: bool,
    pub(crate) chains: HashMap<Vec<u16>, AgentModel>,
    pub(crate) stats: Stats,
}

impl Model {
    pub(crate) fn tracked(&self, tool: &[u16]) -> bool {
        let any = |list: &[Vec<u16>]| list.iter().any(|p| wildcard_match(p, tool));
        (self.include.is_empty() || any(&self.include)) && !any(&self.exclude)
    }

    /// The first override whose patterns match `tool`, else the global thresholds.
    pub(crate) fn thresholds_for(&self, tool: &[u16]) -> &[u64] {
        self.overrides
            .iter()
            .find(|(patterns, _)| patterns.iter().any(|p| wildcard_match(p, tool)))
            .map_or(&self.thresholds, |(_, thresholds)| thresholds)
    }

    pub(crate) fn tier(&self, tool: &[u16], run: u64) -> Option<Tier> {
        let thresholds = self.thresholds_for(tool);
        let first = *thresholds.iter().min()?;
        let last = *thresholds.iter().max()?;
        if run == first {
            Some(Tier::Gentle)
        } else if thresholds.contains(&run)
            || self
                .repeat_every
                .is_some_and(|every| run > last && (run - last).is_multiple_of(every))
        {
            Some(Tier::Detailed)
        } else {
            None
        }
    }

    /// The reference's detailed text, with its `slice`-based preview over UTF-16.
    pub(crate) fn detailed(
        &self,
        tool: &[u16],
        count: u64,
        canonical: &str,
        ignored: &[String],
    ) -> Vec<u16> {
        let units = units(canonical);
        let mut text = crate::inputs::units("Repeated tool call detected:\n- tool: ");
        text.extend_from_slice(tool);
        text.extend(format!("\n- consecutive_calls: {count}\n- arguments: ").encode_utf16());
        if units.len() <= self.preview {
            text.extend_from_slice(&units);
        } else {
            text.extend_from_slice(&units[..self.preview]);
            text.extend(format!("… (+{} more chars)", units.len() - self.preview).encode_utf16());
        }
        if !ignored.is_empty() {
            text.extend(format!("\n- ignored_keys: {}", ignored.join(", ")).encode_utf16());
        }
        text.extend("\nThe repeated calls are not making progress. Do not call this tool with these exact arguments again. Inspect the latest result and choose a different action, different arguments, or finish the task if enough evidence has been gathered.".encode_utf16());
        text
    }
}

/// The cycle reminder's text, written out here: the tools joined as JavaScript joins them.
pub(crate) fn cycle_text(tools: &[Vec<u16>], repetitions: u64) -> Vec<u16> {
    let mut text = units("Repeated cycle of tool calls detected:\n- tools: ");
    text.extend(tools.join(&units(", ")[..]));
    text.extend(units(&format!(
        "\n- consecutive_repetitions: {repetitions}\nThe same sequence of calls, with identical arguments, keeps coming back and is not making progress. Do not repeat this sequence again. Inspect the latest results and choose a different action, different arguments, or finish the task if enough evidence has been gathered."
    )));
    text
}

/// Cycles the model's way, from the whole history: the smallest period whose last
/// `period × repeats` calls repeat one block that is not one call, unless the cycle
/// reported last still goes on (its latest call equals the call a period back).
pub(crate) fn cycle_hit(
    agent: &mut AgentModel,
    max_period: usize,
    repeats: usize,
) -> Option<(Vec<Vec<u16>>, u64)> {
    let h = &agent.history;
    let n = h.len();
    let continues = |p: usize| n > p && h[n - 1] == h[n - 1 - p];
    if let Some(p) = agent.reported {
        if continues(p) {
            return None;
        }
        agent.reported = None;
    }
    let period = (2..=max_period).find(|&p| {
        n >= p * repeats
            && (n - p * (repeats - 1)..n).all(|i| h[i] == h[i - p])
            && !h[n - p..].iter().all(|call| *call == h[n - 1])
    })?;
    agent.reported = Some(period);
    // Repetitions: how far back the history keeps repeating the block, in whole blocks.
    let streak = (period..n)
        .rev()
        .take_while(|&i| h[i] == h[i - period])
        .count();
    let tools = h[n - period..]
        .iter()
        .map(|(tool, _)| tool.clone())
        .collect();
    Some((tools, (streak / period) as u64 + 1))
}

/// The near-identical reminder's text, written out here.
pub(crate) fn similar_text(tool: &[u16], count: u64) -> Vec<u16> {
    let mut text = units("Near-identical tool calls detected:\n- tool: ");
    text.extend_from_slice(tool);
    text.extend(units(&format!("\n- consecutive_calls: {count}\nThe arguments change only slightly from call to call and the calls are not making progress. Do not call this tool again with a small variation of the same arguments. Inspect the latest result and choose a different action, or finish the task if enough evidence has been gathered.")));
    text
}

/// The Dice coefficient of two texts' bigram multisets, counted in a map.
pub(crate) fn dice(a: &[u16], b: &[u16]) -> f64 {
    let count = |text: &[u16]| {
        let mut counts: HashMap<(u16, u16), usize> = HashMap::new();
        for pair in text.windows(2) {
            *counts.entry((pair[0], pair[1])).or_default() += 1;
        }
        counts
    };
    let (ca, cb) = (count(a), count(b));
    let shared: usize = ca
        .iter()
        .map(|(bigram, n)| (*n).min(cb.get(bigram).copied().unwrap_or(0)))
        .sum();
    let total = a.len().saturating_sub(1) + b.len().saturating_sub(1);
    if total == 0 {
        0.0
    } else {
        (2 * shared) as f64 / total as f64
    }
}

/// Where the JSON string token at `i` of compact JSON text ends (just past its closing quote).
fn string_end(s: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while s[j] != b'"' {
        j += if s[j] == b'\\' { 2 } else { 1 };
    }
    j + 1
}

/// Where the compact JSON value at `i` ends.
fn value_end(s: &[u8], i: usize) -> usize {
    match s[i] {
        b'"' => string_end(s, i),
        b'{' | b'[' => {
            let (mut depth, mut j) = (0, i);
            loop {
                match s[j] {
                    b'"' => {
                        j = string_end(s, j);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return j + 1;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while j < s.len() && !b",]}".contains(&s[j]) {
                j += 1;
            }
            j
        }
    }
}

/// A JSON string token's content as UTF-16 code units.
fn decode(token: &str) -> Vec<u16> {
    let mut out = Vec::new();
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.extend(c.encode_utf16(&mut [0; 2]).iter());
            continue;
        }
        match chars.next() {
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                out.push(u16::from_str_radix(&hex, 16).unwrap());
            }
            Some('b') => out.push(8),
            Some('f') => out.push(12),
            Some('n') => out.push(10),
            Some('r') => out.push(13),
            Some('t') => out.push(9),
            Some(other) => out.push(other as u16),
            None => {}
        }
    }
    out
}

/// The compact canonical object `text` without the members the `live` paths of `keys` name at
/// `depth`, deeper objects done the same way; `removed` marks the paths that cut something.
pub(crate) fn strip(
    text: &str,
    keys: &[KeyNames],
    live: &[usize],
    depth: usize,
    removed: &mut [bool],
) -> String {
    let s = text.as_bytes();
    let mut members = Vec::new();
    let mut i = 1;
    while s[i] != b'}' {
        let key_end = string_end(s, i);
        let key = decode(&text[i + 1..key_end - 1]);
        let value_start = key_end + 1;
        let end = value_end(s, value_start);
        let matching: Vec<usize> = live
            .iter()
            .copied()
            .filter(|&p| keys[p].1.get(depth) == Some(&key))
            .collect();
        let ends_here: Vec<usize> = matching
            .iter()
            .copied()
            .filter(|&p| keys[p].1.len() == depth + 1)
            .collect();
        if !ends_here.is_empty() {
            for p in ends_here {
                removed[p] = true;
            }
        } else {
            let value = &text[value_start..end];
            let value = if value.starts_with('{') && !matching.is_empty() {
                strip(value, keys, &matching, depth + 1, removed)
            } else {
                value.to_owned()
            };
            members.push(format!("{}:{value}", &text[i..key_end]));
        }
        i = end;
        if s[i] == b',' {
            i += 1;
        }
    }
    format!("{{{}}}", members.join(","))
}
