//! The Guard's observe / reset / dispose state machine against a model written here:
//! a map agent → (tool, full canonical text, run length), the spec's chain semantics,
//! the reference's `*`-wildcard patterns and reminder texts. Configs are either
//! well-formed (thresholds 2..=13, short patterns, small preview caps, so runs reach
//! every tier and previews cut everywhere) or raw values of any shape, which must be
//! accepted or rejected exactly as the spec orders the checks — never with a panic.
//! Tool names, patterns and agent ids are UTF-16 code units, lone surrogates among them.
//! Well-formed configs may also turn on the opt-in features (cycles,
//! sameResultOnly with results drawn from a pool, overrides, repeatEvery, ignoreArguments,
//! similar, noProgress, failures, stopAt, perResponse), which the model implements its own way: cycles from
//! each agent's whole history of calls, ignored keys cut out of the canonical text by a scanner
//! of its own, similarity as bigram counts in a map, the windows of noProgress and failures as
//! lists of texts (results normalized, failures told by a reading of its own and counted once per
//! canonical arguments), not digests.
#![no_main]

// One module per concern: what ops and calls are drawn from, the model, and the configs.
#[path = "state_machine/config.rs"]
mod config;
#[path = "state_machine/inputs.rs"]
mod inputs;
#[path = "state_machine/model.rs"]
mod model;

use std::collections::HashMap;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use repeat_tool_guard_core::{Arguments, Call, Guard, Reminder, Tier, GENTLE_TEXT};

use config::{build, ConfigInput};
use inputs::{agent, units, Args, Name, Owned, AGENTS, POOL, RESULTS, WORDS};
use model::{
    cycle_hit, cycle_text, dice, failures_text, is_failure, no_progress_text, normalized,
    push_window, similar_text, stop_text, strip, wildcard_match, Model,
};

#[derive(Arbitrary, Debug)]
struct Input {
    config: ConfigInput,
    ops: Vec<Op>,
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
    /// The agent's next calls belong to a new model response (`perResponse`).
    NextResponse(u8),
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
            Op::NextResponse(a) => {
                guard.next_response(agent(*a));
                if let Some(state) = model.chains.get_mut(agent(*a)) {
                    state.in_response = false;
                }
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
    // perResponse: the agent's last call again in the same response is left out, result unread.
    if model.per_response
        && model.chains.get(agent).is_some_and(|state| {
            state.in_response
                && matches!(&state.last, Some((t, c, _, _)) if t == tool && *c == canonical)
        })
    {
        assert_eq!(got, Ok(None), "a repeat within the response is left out");
        return;
    }
    // Results are read only when compared; one without canonical form fails the call.
    let reads_results =
        model.same_result_only || model.no_progress.is_some() || model.failures.is_some();
    let result_text = match result {
        Some(json) if reads_results => {
            let mut text = String::new();
            if let Err(error) = Arguments::Json(json).write_canonical(&mut text) {
                assert_eq!(got, Err(error), "an invalid result fails observe");
                return;
            }
            Some(text)
        }
        _ => None,
    };
    let result = result_text.clone().filter(|_| model.same_result_only);
    let similar = model.similar;
    let state = model.chains.entry(agent.to_vec()).or_default();
    let same_call = matches!(&state.last, Some((t, c, _, _)) if t == tool && *c == canonical);
    let results_equal = state.last.as_ref().map(|(_, _, r, _)| r) == Some(&result);
    let run = match &state.last {
        Some((_, _, r, run)) if same_call && *r == result => run + 1,
        _ => 1,
    };
    // similar: a sample of the first 512 code units, compared by bigram counts.
    let (near, near_fired) = similar.map_or((0, false), |(min_calls, similarity)| {
        let sample: Vec<u16> = canonical.encode_utf16().take(512).collect();
        let (last_tool, last_sample, near_run) = state.near.get_or_insert_with(Default::default);
        if same_call {
            *near_run = 1;
            return (1, false);
        }
        let close = *near_run > 0
            && results_equal
            && last_tool.as_slice() == tool
            && dice(last_sample, &sample) >= similarity;
        *near_run = if close { *near_run + 1 } else { 1 };
        *last_tool = tool.to_vec();
        *last_sample = sample;
        (*near_run, close && *near_run == min_calls)
    });
    state.last = Some((tool.to_vec(), canonical.clone(), result, run));
    state.in_response = true;
    // noProgress and failures: the result without its volatile parts, in the agent's windows.
    let normal = result_text.as_deref().map(normalized);
    let (unchanged, no_progress) = model.no_progress.map_or((0, false), |(min_calls, size)| {
        let call = (tool.to_vec(), canonical.clone(), normal.clone());
        push_window(&mut state.progress, Some((call, None)), min_calls, size)
    });
    let (failed, failures) = model.failures.map_or((0, false), |(min_calls, size)| {
        let failure = result_text
            .as_deref()
            .is_some_and(is_failure)
            .then(|| ((tool.to_vec(), normal.clone()), Some(canonical.clone())));
        push_window(&mut state.failures, failure, min_calls, size)
    });
    let cycle = model.cycles.and_then(|(max_period, repeats)| {
        state.history.push((tool.to_vec(), canonical.clone()));
        cycle_hit(state, max_period, repeats)
    });
    model.stats.observed += 1;
    let stop = model
        .stop_at
        .map(|at| (at, run.max(near).max(unchanged).max(failed)))
        .filter(|(at, count)| count >= at)
        .map(|(_, count)| Reminder {
            tier: Tier::Stop,
            count,
            text: stop_text(tool, count),
            tools: Vec::new(),
        });
    let expected = stop.or_else(|| match model.tier(tool, run) {
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
                near_fired.then(|| Reminder {
                    tier: Tier::Similar,
                    count: near,
                    text: similar_text(tool, near),
                    tools: Vec::new(),
                })
            })
            .or_else(|| {
                let (_, size) = model.no_progress?;
                no_progress.then(|| Reminder {
                    tier: Tier::NoProgress,
                    count: unchanged,
                    text: no_progress_text(tool, unchanged, size),
                    tools: Vec::new(),
                })
            })
            .or_else(|| {
                let (_, size) = model.failures?;
                failures.then(|| Reminder {
                    tier: Tier::Failure,
                    count: failed,
                    text: failures_text(tool, failed, size),
                    tools: Vec::new(),
                })
            }),
    });
    if let Some(reminder) = &expected {
        model.stats.reminded(reminder.tier);
    }
    assert_eq!(got, Ok(expected), "{agent:?} {tool:?} run {run}");
}
