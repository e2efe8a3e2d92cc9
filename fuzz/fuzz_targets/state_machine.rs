//! The Guard's observe / reset / dispose state machine against a model written here:
//! a map agent → (tool, full canonical text, run length), the spec's chain semantics,
//! the reference's `*`-wildcard patterns and reminder texts. Configs are either
//! well-formed (thresholds 2..=13, short patterns, small preview caps, so runs reach
//! every tier and previews cut everywhere) or raw values of any shape, which must be
//! accepted or rejected exactly as the spec orders the checks — never with a panic.
//! Tool names, patterns and agent ids are UTF-16 code units, lone surrogates among them.
//! Well-formed configs may also turn on the opt-in features (cycles,
//! sameResultOnly with results drawn from a pool, overrides, repeatEvery, ignoreArguments,
//! similar), which the model implements its own way: cycles from each agent's whole history
//! of calls, ignored keys cut out of the canonical text by a scanner of its own, similarity
//! as bigram counts in a map.
#![no_main]

use std::collections::HashMap;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use repeat_tool_guard_core::{
    Arguments, Call, ConfigError, Guard, GuardConfig, RawConfig, RawValue, Reminder, Stats, Tier,
    GENTLE_TEXT,
};

#[derive(Arbitrary, Debug)]
struct Input {
    config: ConfigInput,
    ops: Vec<Op>,
}

#[derive(Arbitrary, Debug)]
enum ConfigInput {
    Valid {
        thresholds: Vec<u8>,
        include: Vec<Name>,
        exclude: Vec<Name>,
        preview: u8,
        /// (maxPeriod, repeats), reduced to 2..=5 and 2..=4.
        cycles: Option<(u8, u8)>,
        same_result_only: bool,
        /// (patterns, thresholds) per entry.
        overrides: Vec<(Vec<Name>, Vec<u8>)>,
        repeat_every: Option<u8>,
        /// (patterns, a bit per key of [`KEYS`]) of one `ignoreArguments` entry.
        ignore: Option<(Vec<Name>, u8)>,
        /// (minCalls, similarity), reduced to 2..=5 and one of [`SIMILARITIES`].
        similar: Option<(u8, u8)>,
    },
    Raw {
        thresholds: Raw,
        include: Raw,
        exclude: Raw,
        preview: Raw,
    },
}

/// A config value of any shape, one level of list deep (as the binding reads it) or two.
#[derive(Arbitrary, Debug)]
enum Raw {
    Missing,
    Number(f64),
    Small(i8),
    String(String),
    Name(Name),
    Null,
    Object,
    List(Vec<RawItem>),
}

#[derive(Arbitrary, Debug)]
enum RawItem {
    Missing,
    Number(f64),
    Small(i8),
    Name(Name),
    Null,
    List(Vec<i8>),
}

/// A short tool name or pattern over an alphabet rich in glob and regex metacharacters.
/// Line terminators included: the reference's `.*` does not match them, and neither may `*`.
/// Lone surrogates, U+FFFD and the halves of a pair too: `*` takes one code unit.
#[derive(Arbitrary, Debug, Clone)]
struct Name(Vec<u8>);

const ALPHABET: [&[u16]; 27] = [
    &[0x61],
    &[0x62],
    &[0x5f],
    &[0x2a],
    &[0x2a],
    &[0x2e],
    &[0x3f],
    &[0x5b],
    &[0x5d],
    &[0x7b],
    &[0x7d],
    &[0x2c],
    &[0x5c],
    &[0x2f],
    &[0x5e],
    &[0x24],
    &[0x28],
    &[0xe9],
    // 😀, and each of its halves alone.
    &[0xd83d, 0xde00],
    &[0xd83d],
    &[0xde00],
    &[0xd800],
    &[0xdbff],
    &[0xfffd],
    &[0x0],
    &[0x0a],
    &[0x2028],
];

impl Name {
    fn text(&self) -> Vec<u16> {
        self.0
            .iter()
            .take(8)
            .flat_map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()].iter().copied())
            .collect()
    }
}

/// A string's UTF-16 code units.
fn units(text: &str) -> Vec<u16> {
    text.encode_utf16().collect()
}

#[derive(Arbitrary, Debug)]
enum Op {
    Observe {
        agent: u8,
        tool: Name,
        args: Args,
        /// An index into [`RESULTS`], or no result.
        result: Option<u8>,
    },
    /// Repeats the agent's last attempted call `times % 16` times.
    Repeat {
        agent: u8,
        times: u8,
    },
    /// Replays the agent's last `period % 4 + 2` attempted calls, in order, `times % 6` times:
    /// the alternating loops that cycles look for.
    Replay {
        agent: u8,
        period: u8,
        times: u8,
    },
    /// A block of `period % 5 + 1` calls drawn by `seed` from two tools and four valid
    /// arguments (so blocks with a call twice, or one call only, occur), `times % 6` times.
    Cycle {
        agent: u8,
        period: u8,
        times: u8,
        seed: u16,
        result: Option<u8>,
    },
    /// `count % 8` calls of one tool whose arguments drift: `{"q":"<word><i>","task_progress":<i>}`,
    /// near-identical to each other, identical once `task_progress` is ignored when `word` is short.
    Drift {
        agent: u8,
        count: u8,
        word: u8,
        step: u8,
    },
    Reset(u8),
    Dispose(u8),
}

/// Key paths `ignoreArguments` may name: (as configured, the names it stands for).
const KEYS: [(&str, &[&str]); 7] = [
    ("a", &["a"]),
    ("b", &["b"]),
    ("0", &["0"]),
    ("a.x", &["a", "x"]),
    ("__proto__.x", &["__proto__", "x"]),
    (r"x\.y", &["x.y"]),
    ("task_progress", &["task_progress"]),
];

/// A key path of `ignoreArguments`: as configured, and the names it stands for.
type KeyNames = (String, Vec<Vec<u16>>);
/// One `ignoreArguments` entry as the model holds it: its patterns and its keys.
type IgnoreModel = (Vec<Vec<u16>>, Vec<KeyNames>);

const SIMILARITIES: [f64; 4] = [0.5, 0.7, 0.85, 1.0];

/// Words that drifting calls are made of: short ones change a lot from call to call, long ones little.
const WORDS: [&str; 3] = ["q", "needle", "a much longer search pattern"];

#[derive(Arbitrary, Debug, Clone)]
enum Args {
    Pool(u8),
    Json(String),
    Text(Vec<u16>),
    Deep { depth: u16, object: bool },
}

/// JSON texts with equivalent spellings next to each other, invalid ones among them.
const POOL: [&str; 24] = [
    r#"{"a":1,"b":2}"#,
    r#" { "b" : 2.0 , "a" : 1e0 } "#,
    r#"{"b":2,"a":1,"a":1}"#,
    r#"{}"#,
    r#"[]"#,
    r#""x""#,
    r#""\u0078""#,
    r#"{"1":1,"0":0,"a":[]}"#,
    r#"{"a":[],"0":0,"1":1}"#,
    "{\"\u{1f600}\":1,\"\u{ff5e}\":2}",
    r#"{"\uff5e":2,"\ud83d\ude00":1}"#,
    r#""\ud800""#,
    r#"-0"#,
    r#"0"#,
    r#"1e21"#,
    r#"1000000000000000000000"#,
    r#"9007199254740993"#,
    r#"{"__proto__":{"x":1}}"#,
    r#"{"constructor":null}"#,
    r#"{"#,
    r#"[1,]"#,
    r#"1e400"#,
    r#"null"#,
    r#""\u0000\u001f\"\\""#,
];

/// Tool results as `{ content, isError }` JSON: equal ones spelled differently, an invalid one.
const RESULTS: [&str; 7] = [
    r#"{"content":[{"type":"text","text":"ok"}],"isError":false}"#,
    r#"{"isError":false,"content":[{"text":"ok","type":"text"}]}"#,
    r#"{"content":[{"type":"text","text":"ok"}],"isError":true}"#,
    r#"{"content":[{"type":"text","text":"progress 2"}],"isError":false}"#,
    r#"{"isError":false}"#,
    r#"{"content":[],"isError":false}"#,
    r#"{"content":["#,
];

/// Agent ids, three of them told apart only by a lone surrogate or U+FFFD.
const AGENTS: [&[u16]; 8] = [
    &[0x61],
    &[0x62],
    &[0x61, 0x67, 0x65, 0x6e, 0x74, 0x2d, 0xd83d, 0xde00],
    &[],
    &[0x61, 0x0],
    &[0x61, 0xd800],
    &[0x61, 0xdbff],
    &[0x61, 0xfffd],
];

fn agent(index: u8) -> &'static [u16] {
    AGENTS[usize::from(index) % AGENTS.len()]
}

/// Owned arguments, so a call can be repeated.
enum Owned {
    Json(String),
    Text(Vec<u16>),
}

impl Owned {
    fn from(args: &Args) -> Self {
        match args {
            Args::Pool(i) => Owned::Json(POOL[usize::from(*i) % POOL.len()].to_owned()),
            Args::Json(text) => Owned::Json(text.clone()),
            Args::Text(units) => Owned::Text(units.clone()),
            Args::Deep { depth, object } => {
                let depth = usize::from(*depth % 512);
                Owned::Json(if *object {
                    format!("{}0{}", "{\"k\":".repeat(depth), "}".repeat(depth))
                } else {
                    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
                })
            }
        }
    }

    fn arguments(&self) -> Arguments<'_> {
        match self {
            Owned::Json(text) => Arguments::Json(text),
            Owned::Text(units) => Arguments::Text(units),
        }
    }
}

/// `*` matches any run of code units but line terminators (as `.` in a JavaScript regular
/// expression without the `u` flag); all else is literal.
fn wildcard_match(pattern: &[u16], name: &[u16]) -> bool {
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
struct AgentModel {
    /// (tool, canonical arguments, canonical result when compared, run length).
    last: Option<(Vec<u16>, String, Option<String>, u64)>,
    history: Vec<(Vec<u16>, String)>,
    reported: Option<usize>,
    /// The near-identical run: the last call's tool, its sample's code units, the run's length.
    near: Option<(Vec<u16>, Vec<u16>, u64)>,
}

struct Model {
    thresholds: Vec<u64>,
    include: Vec<Vec<u16>>,
    exclude: Vec<Vec<u16>>,
    preview: usize,
    cycles: Option<(usize, usize)>,
    same_result_only: bool,
    overrides: Vec<(Vec<Vec<u16>>, Vec<u64>)>,
    repeat_every: Option<u64>,
    /// One `ignoreArguments` entry: its patterns and (text, names) of its keys.
    ignore: Option<IgnoreModel>,
    /// (minCalls, similarity).
    similar: Option<(u64, f64)>,
    chains: HashMap<Vec<u16>, AgentModel>,
    stats: Stats,
}

impl Model {
    fn tracked(&self, tool: &[u16]) -> bool {
        let any = |list: &[Vec<u16>]| list.iter().any(|p| wildcard_match(p, tool));
        (self.include.is_empty() || any(&self.include)) && !any(&self.exclude)
    }

    /// The first override whose patterns match `tool`, else the global thresholds.
    fn thresholds_for(&self, tool: &[u16]) -> &[u64] {
        self.overrides
            .iter()
            .find(|(patterns, _)| patterns.iter().any(|p| wildcard_match(p, tool)))
            .map_or(&self.thresholds, |(_, thresholds)| thresholds)
    }

    fn tier(&self, tool: &[u16], run: u64) -> Option<Tier> {
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
    fn detailed(&self, tool: &[u16], count: u64, canonical: &str, ignored: &[String]) -> Vec<u16> {
        let units = units(canonical);
        let mut text = crate::units("Repeated tool call detected:\n- tool: ");
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

/// A call as attempted: tool, arguments, result.
type Attempt = (Vec<u16>, Args, Option<u8>);

fuzz_target!(|input: Input| {
    let Some((mut guard, mut model)) = build(&input.config) else {
        return;
    };
    // Each agent's attempted calls, latest last (at most five kept, for Op::Replay).
    let mut last: HashMap<&'static [u16], Vec<Attempt>> = HashMap::new();
    for op in input.ops.iter().take(128) {
        match op {
            Op::Observe {
                agent: a,
                tool,
                args,
                result,
            } => {
                let tool = tool.text();
                let owned = Owned::from(args);
                observe(&mut guard, &mut model, agent(*a), &tool, &owned, *result);
                let calls = last.entry(agent(*a)).or_default();
                calls.push((tool, args.clone(), *result));
                if calls.len() > 5 {
                    calls.remove(0);
                }
            }
            Op::Repeat { agent: a, times } => {
                if let Some((tool, args, result)) = last.get(agent(*a)).and_then(|c| c.last()) {
                    let owned = Owned::from(args);
                    for _ in 0..times % 16 {
                        observe(&mut guard, &mut model, agent(*a), tool, &owned, *result);
                    }
                }
            }
            Op::Cycle {
                agent: a,
                period,
                times,
                seed,
                result,
            } => {
                let block: Vec<(Vec<u16>, Owned)> = (0..usize::from(period % 5) + 1)
                    .map(|i| {
                        let bits = usize::from(*seed) >> (3 * i);
                        let tool = units(["grep", "read"][bits & 1]);
                        (tool, Owned::Json(POOL[(bits >> 1) & 3].to_owned()))
                    })
                    .collect();
                for _ in 0..times % 6 {
                    for (tool, args) in &block {
                        observe(&mut guard, &mut model, agent(*a), tool, args, *result);
                    }
                }
            }
            Op::Replay {
                agent: a,
                period,
                times,
            } => {
                if let Some(calls) = last.get(agent(*a)) {
                    let block = &calls[calls.len().saturating_sub(usize::from(period % 4) + 2)..];
                    let owned: Vec<_> =
                        block.iter().map(|(_, args, _)| Owned::from(args)).collect();
                    for _ in 0..times % 6 {
                        for ((tool, _, result), args) in block.iter().zip(&owned) {
                            observe(&mut guard, &mut model, agent(*a), tool, args, *result);
                        }
                    }
                }
            }
            Op::Drift {
                agent: a,
                count,
                word,
                step,
            } => {
                let word = WORDS[usize::from(*word) % WORDS.len()];
                for i in 0..count % 8 {
                    let n = u32::from(i) * u32::from(step % 3);
                    let args = Owned::Json(format!(r#"{{"q":"{word}{n}","task_progress":{i}}}"#));
                    observe(
                        &mut guard,
                        &mut model,
                        agent(*a),
                        &units("grep"),
                        &args,
                        None,
                    );
                }
            }
            Op::Reset(a) => {
                guard.reset(agent(*a));
                model.chains.remove(agent(*a));
            }
            Op::Dispose(a) => {
                guard.dispose(agent(*a));
                model.chains.remove(agent(*a));
            }
        }
        assert_eq!(
            guard.agent_count(),
            model.chains.len(),
            "agent count after {op:?}"
        );
    }
    assert_eq!(guard.stats(), model.stats, "stats");
    for a in AGENTS {
        guard.dispose(a);
    }
    assert_eq!(guard.agent_count(), 0, "every agent disposed");
});

/// The cycle reminder's text, written out here: the tools joined as JavaScript joins them.
fn cycle_text(tools: &[Vec<u16>], repetitions: u64) -> Vec<u16> {
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
fn cycle_hit(
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
fn similar_text(tool: &[u16], count: u64) -> Vec<u16> {
    let mut text = units("Near-identical tool calls detected:\n- tool: ");
    text.extend_from_slice(tool);
    text.extend(units(&format!("\n- consecutive_calls: {count}\nThe arguments change only slightly from call to call and the calls are not making progress. Do not call this tool again with a small variation of the same arguments. Inspect the latest result and choose a different action, or finish the task if enough evidence has been gathered.")));
    text
}

/// The Dice coefficient of two texts' bigram multisets, counted in a map.
fn dice(a: &[u16], b: &[u16]) -> f64 {
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
fn strip(
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

fn observe(
    guard: &mut Guard,
    model: &mut Model,
    agent: &[u16],
    tool: &[u16],
    args: &Owned,
    result: Option<u8>,
) {
    let tracked = model.tracked(tool);
    assert_eq!(guard.is_tracked(tool), tracked, "is_tracked({tool:?})");
    let result = result.map(|i| RESULTS[usize::from(i) % RESULTS.len()]);
    let got = guard
        .observe(Call::new(agent, tool, args.arguments()).with_result(result.map(Arguments::Json)));
    if !tracked {
        assert_eq!(
            got,
            Ok(None),
            "an untracked call of {tool:?} changes nothing"
        );
        return;
    }
    let mut canonical = String::new();
    if let Err(error) = args.arguments().write_canonical(&mut canonical) {
        assert_eq!(got, Err(error), "invalid arguments fail observe");
        return;
    }
    // Results are read only when compared; one without canonical form fails the call.
    let result = match result {
        Some(json) if model.same_result_only => {
            let mut text = String::new();
            if let Err(error) = Arguments::Json(json).write_canonical(&mut text) {
                assert_eq!(got, Err(error), "an invalid result fails observe");
                return;
            }
            Some(text)
        }
        _ => None,
    };
    // ignoreArguments: the canonical text without the keys named for this tool.
    let keys = match &model.ignore {
        Some((patterns, keys)) if patterns.iter().any(|p| wildcard_match(p, tool)) => &keys[..],
        _ => &[],
    };
    let mut removed = vec![false; keys.len()];
    let canonical = if canonical.starts_with('{') && !keys.is_empty() {
        let paths: Vec<usize> = (0..keys.len()).collect();
        strip(&canonical, keys, &paths, 0, &mut removed)
    } else {
        canonical
    };
    let ignored: Vec<String> = keys
        .iter()
        .zip(&removed)
        .filter(|(_, &r)| r)
        .map(|((text, _), _)| text.clone())
        .collect();
    let similar = model.similar;
    let state = model.chains.entry(agent.to_vec()).or_default();
    let same_call = matches!(&state.last, Some((t, c, _, _)) if t == tool && *c == canonical);
    let results_equal = state.last.as_ref().map(|(_, _, r, _)| r) == Some(&result);
    let run = match &state.last {
        Some((_, _, r, run)) if same_call && *r == result => run + 1,
        _ => 1,
    };
    // similar: a sample of the first 512 code units, compared by bigram counts.
    let near = similar.and_then(|(min_calls, similarity)| {
        let sample: Vec<u16> = canonical.encode_utf16().take(512).collect();
        let (last_tool, last_sample, near_run) = state.near.get_or_insert_with(Default::default);
        if same_call {
            *near_run = 1;
            return None;
        }
        let close = *near_run > 0
            && results_equal
            && last_tool.as_slice() == tool
            && dice(last_sample, &sample) >= similarity;
        *near_run = if close { *near_run + 1 } else { 1 };
        *last_tool = tool.to_vec();
        *last_sample = sample;
        (close && *near_run == min_calls).then_some(*near_run)
    });
    state.last = Some((tool.to_vec(), canonical.clone(), result, run));
    let cycle = model.cycles.and_then(|(max_period, repeats)| {
        state.history.push((tool.to_vec(), canonical.clone()));
        cycle_hit(state, max_period, repeats)
    });
    model.stats.observed += 1;
    let expected = match model.tier(tool, run) {
        Some(Tier::Gentle) => Some(Reminder {
            tier: Tier::Gentle,
            count: run,
            text: GENTLE_TEXT.encode_utf16().collect(),
            tools: Vec::new(),
        }),
        Some(_) => Some(Reminder {
            tier: Tier::Detailed,
            count: run,
            text: model.detailed(tool, run, &canonical, &ignored),
            tools: Vec::new(),
        }),
        None => cycle
            .map(|(tools, repetitions)| Reminder {
                tier: Tier::Cycle,
                count: repetitions,
                text: cycle_text(&tools, repetitions),
                tools,
            })
            .or_else(|| {
                near.map(|count| Reminder {
                    tier: Tier::Similar,
                    count,
                    text: similar_text(tool, count),
                    tools: Vec::new(),
                })
            }),
    };
    if let Some(reminder) = &expected {
        model.stats.reminders += 1;
        match reminder.tier {
            Tier::Gentle => model.stats.gentle += 1,
            Tier::Detailed => model.stats.detailed += 1,
            Tier::Cycle => model.stats.cycle += 1,
            Tier::Similar => model.stats.similar += 1,
        }
    }
    assert_eq!(got, Ok(expected), "{agent:?} {tool:?} run {run}");
}

fn build(config: &ConfigInput) -> Option<(Guard, Model)> {
    match config {
        ConfigInput::Valid {
            thresholds,
            include,
            exclude,
            preview,
            cycles,
            same_result_only,
            overrides,
            repeat_every,
            ignore,
            similar,
        } => {
            let threshold_list = |raw: &[u8]| {
                let mut values: Vec<u64> = Vec::new();
                for t in raw.iter().take(6) {
                    let v = u64::from(t % 12) + 2;
                    if !values.contains(&v) {
                        values.push(v);
                    }
                }
                if values.is_empty() {
                    values.push(3);
                }
                values
            };
            let mut values = threshold_list(thresholds);
            let cycles = cycles.map(|(p, r)| (usize::from(p % 4) + 2, usize::from(r % 3) + 2));
            let overrides: Vec<(Vec<Vec<u16>>, Vec<u64>)> = overrides
                .iter()
                .take(3)
                .map(|(patterns, thresholds)| {
                    let mut patterns: Vec<Vec<u16>> =
                        patterns.iter().take(3).map(Name::text).collect();
                    if patterns.is_empty() {
                        patterns.push(units("*"));
                    }
                    (patterns, threshold_list(thresholds))
                })
                .collect();
            let repeat_every = repeat_every.map(|n| u64::from(n % 5) + 1);
            let include: Vec<Vec<u16>> = include.iter().take(4).map(Name::text).collect();
            let exclude: Vec<Vec<u16>> = exclude.iter().take(4).map(Name::text).collect();
            let preview = usize::from(preview % 40) + 1;
            let strings = |list: &[Vec<u16>]| {
                RawValue::List(list.iter().cloned().map(RawValue::String).collect())
            };
            let numbers = |list: &[u64]| {
                RawValue::List(list.iter().map(|&v| RawValue::Number(v as f64)).collect())
            };
            let object = |fields: Vec<(&str, RawValue)>| {
                RawValue::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            };
            let ignore: Option<IgnoreModel> = ignore.as_ref().map(|(patterns, bits)| {
                let mut patterns: Vec<Vec<u16>> = patterns.iter().take(3).map(Name::text).collect();
                if patterns.is_empty() {
                    patterns.push(units("*"));
                }
                let mut keys: Vec<KeyNames> = KEYS
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| bits >> i & 1 == 1)
                    .map(|(_, (text, names))| {
                        ((*text).to_owned(), names.iter().map(|n| units(n)).collect())
                    })
                    .collect();
                if keys.is_empty() {
                    keys.push(("task_progress".to_owned(), vec![units("task_progress")]));
                }
                (patterns, keys)
            });
            let similar = similar.map(|(m, s)| {
                (
                    u64::from(m % 4) + 2,
                    SIMILARITIES[usize::from(s) % SIMILARITIES.len()],
                )
            });
            let raw = RawConfig::default()
                .with("thresholds", numbers(&values))
                .with("include", strings(&include))
                .with("exclude", strings(&exclude))
                .with("argumentsPreviewChars", RawValue::Number(preview as f64))
                .with(
                    "cycles",
                    cycles.map_or(RawValue::Missing, |(p, r)| {
                        object(vec![
                            ("maxPeriod", RawValue::Number(p as f64)),
                            ("repeats", RawValue::Number(r as f64)),
                        ])
                    }),
                )
                .with("sameResultOnly", RawValue::Bool(*same_result_only))
                .with(
                    "overrides",
                    RawValue::List(
                        overrides
                            .iter()
                            .map(|(patterns, thresholds)| {
                                object(vec![
                                    ("tools", strings(patterns)),
                                    ("thresholds", numbers(thresholds)),
                                ])
                            })
                            .collect(),
                    ),
                )
                .with(
                    "repeatEvery",
                    repeat_every.map_or(RawValue::Missing, |n| RawValue::Number(n as f64)),
                )
                .with(
                    "ignoreArguments",
                    RawValue::List(
                        ignore
                            .iter()
                            .map(|(patterns, keys)| {
                                object(vec![
                                    ("tools", strings(patterns)),
                                    (
                                        "keys",
                                        RawValue::List(
                                            keys.iter()
                                                .map(|(text, _)| RawValue::string(text))
                                                .collect(),
                                        ),
                                    ),
                                ])
                            })
                            .collect(),
                    ),
                )
                .with(
                    "similar",
                    similar.map_or(RawValue::Missing, |(m, s)| {
                        object(vec![
                            ("minCalls", RawValue::Number(m as f64)),
                            ("similarity", RawValue::Number(s)),
                        ])
                    }),
                );
            let config = GuardConfig::from_raw(&raw)
                .unwrap_or_else(|e| panic!("a valid config {raw:?} is rejected: {e}"));
            values.sort_unstable();
            let expected: Vec<f64> = values.iter().map(|&v| v as f64).collect();
            let guard = Guard::new(config);
            assert_eq!(
                guard.thresholds(),
                expected.as_slice(),
                "thresholds ascending"
            );
            let model = Model {
                thresholds: values,
                include,
                exclude,
                preview,
                cycles,
                same_result_only: *same_result_only,
                overrides: overrides
                    .iter()
                    .map(|(patterns, thresholds)| (patterns.clone(), thresholds.clone()))
                    .collect(),
                repeat_every,
                ignore,
                similar,
                chains: HashMap::new(),
                stats: Stats::default(),
            };
            Some((guard, model))
        }
        ConfigInput::Raw {
            thresholds,
            include,
            exclude,
            preview,
        } => {
            let raw = RawConfig::default()
                .with("thresholds", raw_value(thresholds))
                .with("include", raw_value(include))
                .with("exclude", raw_value(exclude))
                .with("argumentsPreviewChars", raw_value(preview));
            let got = GuardConfig::from_raw(&raw);
            let expected = expected_verdict(&raw);
            match (&got, expected) {
                (Ok(_), Ok(())) => {}
                (Err(error), Err(kind)) => {
                    assert_eq!(verdict_kind(error), kind, "{raw:?}: {error}")
                }
                (got, expected) => panic!("{raw:?}: got {got:?}, expected {expected:?}"),
            }
            // Run the accepted ones through the raw path only for the no-panic property.
            let mut guard = Guard::new(got.ok()?);
            for (i, json) in POOL.iter().enumerate() {
                let _ = guard.observe(Call::new(
                    agent(i as u8),
                    &units("t"),
                    Arguments::Json(json),
                ));
            }
            None
        }
    }
}

fn raw_value(raw: &Raw) -> RawValue {
    let other = |shown: &str, kind: &str| RawValue::Other {
        shown: shown.to_owned(),
        kind: kind.to_owned(),
    };
    match raw {
        Raw::Missing => RawValue::Missing,
        Raw::Number(n) => RawValue::Number(*n),
        Raw::Small(n) => RawValue::Number(f64::from(*n)),
        Raw::String(s) => RawValue::String(units(s)),
        Raw::Name(n) => RawValue::String(n.text()),
        Raw::Null => other("null", "null"),
        Raw::Object => other("[object Object]", "object"),
        Raw::List(items) => RawValue::List(
            items
                .iter()
                .take(8)
                .map(|item| match item {
                    RawItem::Missing => RawValue::Missing,
                    RawItem::Number(n) => RawValue::Number(*n),
                    RawItem::Small(n) => RawValue::Number(f64::from(*n)),
                    RawItem::Name(n) => RawValue::String(n.text()),
                    RawItem::Null => other("null", "null"),
                    RawItem::List(values) => RawValue::List(
                        values
                            .iter()
                            .map(|&v| RawValue::Number(f64::from(v)))
                            .collect(),
                    ),
                })
                .collect(),
        ),
    }
}

/// The spec's checks in order: thresholds, argumentsPreviewChars, include, exclude.
fn expected_verdict(raw: &RawConfig) -> Result<(), &'static str> {
    let integer_at_least = |n: f64, min: f64| n.is_finite() && n.fract() == 0.0 && n >= min;
    match raw.get("thresholds") {
        RawValue::Missing => {}
        RawValue::List(items) => {
            if items.is_empty() {
                return Err("EmptyThresholds");
            }
            let mut seen: Vec<f64> = Vec::new();
            for item in items {
                match item {
                    RawValue::Number(n) if integer_at_least(*n, 2.0) => seen.push(*n),
                    _ => return Err("InvalidThreshold"),
                }
            }
            seen.sort_by(f64::total_cmp);
            if seen.windows(2).any(|w| w[0] == w[1]) {
                return Err("DuplicateThresholds");
            }
        }
        _ => return Err("NotAList"),
    }
    match raw.get("argumentsPreviewChars") {
        RawValue::Missing => {}
        RawValue::Number(n) if integer_at_least(*n, 1.0) => {}
        _ => return Err("InvalidPreviewChars"),
    }
    for list in [raw.get("include"), raw.get("exclude")] {
        match list {
            RawValue::Missing => {}
            RawValue::List(items) => {
                if !items.iter().all(|item| matches!(item, RawValue::String(_))) {
                    return Err("NotAString");
                }
            }
            _ => return Err("NotAList"),
        }
    }
    Ok(())
}

/// The kind of a config error, as `expected_verdict` names it.
fn verdict_kind(error: &ConfigError) -> &'static str {
    match error {
        ConfigError::Empty(field) if field == "thresholds" => "EmptyThresholds",
        ConfigError::Invalid { what, .. } if what == "threshold" => "InvalidThreshold",
        ConfigError::Duplicates(field) if field == "thresholds" => "DuplicateThresholds",
        ConfigError::Invalid { what, .. } if what == "argumentsPreviewChars" => {
            "InvalidPreviewChars"
        }
        ConfigError::NotAnObject(_) => "NotAnObject",
        ConfigError::WrongType { expected, .. } if *expected == "an array" => "NotAList",
        ConfigError::WrongType { expected, .. } if *expected == "a string" => "NotAString",
        // The opt-in keys, which these raw configs leave absent.
        _ => "another option's error",
    }
}
