//! The public [`Guard`] as the binding and the fuzz targets use it: tiers and
//! their escalation, include/exclude, chains per agent with reset and dispose,
//! the opt-in features and the counters.

use repeat_tool_guard_core::{
    Arguments, Call, Guard, GuardConfig, RawConfig, RawValue, Stats, Tier,
};

/// A name's UTF-16 code units.
fn u(text: &str) -> Vec<u16> {
    text.encode_utf16().collect()
}

fn guard(thresholds: &[f64], include: &[&str], exclude: &[&str]) -> Guard {
    let strings =
        |list: &[&str]| RawValue::List(list.iter().map(|s| RawValue::string(s)).collect());
    let raw = RawConfig::default()
        .with(
            "thresholds",
            RawValue::List(thresholds.iter().map(|&t| RawValue::Number(t)).collect()),
        )
        .with("include", strings(include))
        .with("exclude", strings(exclude));
    Guard::new(GuardConfig::from_raw(&raw).unwrap())
}

fn tiers(guard: &mut Guard, agent: &str, calls: &[(&str, &str)]) -> Vec<Option<(Tier, u64)>> {
    calls
        .iter()
        .map(|(tool, json)| {
            guard
                .observe(Call::new(&u(agent), &u(tool), Arguments::Json(json)))
                .unwrap()
                .map(|r| (r.tier, r.count))
        })
        .collect()
}

#[test]
fn escalates_at_each_threshold_and_is_silent_after_the_last() {
    let mut g = guard(&[3.0, 5.0, 8.0], &[], &[]);
    let fired: Vec<_> = (1..=12)
        .filter_map(|_| {
            g.observe(Call::new(&u("a"), &u("grep"), Arguments::Json("{}")))
                .unwrap()
        })
        .map(|r| (r.tier, r.count))
        .collect();
    assert_eq!(
        fired,
        vec![(Tier::Gentle, 3), (Tier::Detailed, 5), (Tier::Detailed, 8)]
    );
}

#[test]
fn gentle_is_keyed_to_the_smallest_threshold() {
    let mut g = guard(&[4.0, 2.0], &[], &[]);
    let got = tiers(&mut g, "a", &[("t", "1"); 4]);
    assert_eq!(
        got,
        vec![
            None,
            Some((Tier::Gentle, 2)),
            None,
            Some((Tier::Detailed, 4))
        ]
    );
}

#[test]
fn untracked_calls_are_transparent() {
    let mut g = guard(&[2.0], &[], &["todo_*"]);
    let got = tiers(
        &mut g,
        "a",
        &[("grep", "\"X\""), ("todo_write", "{}"), ("grep", "\"X\"")],
    );
    assert_eq!(got, vec![None, None, Some((Tier::Gentle, 2))]);
    let mut g = guard(&[2.0], &["read*"], &[]);
    let got = tiers(&mut g, "a", &[("read", "1"), ("grep", "1"), ("read", "1")]);
    assert_eq!(got, vec![None, None, Some((Tier::Gentle, 2))]);
}

#[test]
fn a_different_call_restarts_the_run() {
    let mut g = guard(&[2.0], &[], &[]);
    let got = tiers(
        &mut g,
        "a",
        &[("t", "1"), ("t", "2"), ("t", "2"), ("u", "2"), ("u", "2")],
    );
    assert_eq!(
        got,
        vec![
            None,
            None,
            Some((Tier::Gentle, 2)),
            None,
            Some((Tier::Gentle, 2))
        ]
    );
}

#[test]
fn reset_and_dispose_drop_state() {
    let mut g = guard(&[2.0], &[], &[]);
    g.observe(Call::new(&u("a"), &u("t"), Arguments::Json("1")))
        .unwrap();
    g.observe(Call::new(&u("b"), &u("t"), Arguments::Json("1")))
        .unwrap();
    assert_eq!(g.agent_count(), 2);
    g.reset(&u("a"));
    assert!(g
        .observe(Call::new(&u("a"), &u("t"), Arguments::Json("1")))
        .unwrap()
        .is_none());
    g.dispose(&u("a"));
    g.dispose(&u("b"));
    g.dispose(&u("never-seen"));
    assert_eq!(g.agent_count(), 0);
    g.observe(Call::new(&u("a"), &u("t"), Arguments::Json("1")))
        .unwrap();
    g.clear();
    assert_eq!(g.agent_count(), 0);
}

#[test]
fn invalid_arguments_leave_the_chain_alone() {
    let mut g = guard(&[2.0], &[], &[]);
    g.observe(Call::new(&u("a"), &u("t"), Arguments::Json("1")))
        .unwrap();
    assert!(g
        .observe(Call::new(&u("a"), &u("t"), Arguments::Json("{")))
        .is_err());
    assert_eq!(
        g.observe(Call::new(&u("a"), &u("t"), Arguments::Json("1")))
            .unwrap()
            .map(|r| r.count),
        Some(2)
    );
}

fn raw_numbers(values: &[f64]) -> RawValue {
    RawValue::List(values.iter().map(|&v| RawValue::Number(v)).collect())
}

fn object(fields: &[(&str, RawValue)]) -> RawValue {
    RawValue::Object(
        fields
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

fn cycles(max_period: f64, repeats: f64) -> RawValue {
    object(&[
        ("maxPeriod", RawValue::Number(max_period)),
        ("repeats", RawValue::Number(repeats)),
    ])
}

fn extended(raw: RawConfig) -> Guard {
    Guard::new(GuardConfig::from_raw(&raw).unwrap())
}

/// Runs `calls` for agent "a" and lists (call number, tier, count) of each reminder.
fn fired(guard: &mut Guard, calls: &[(&str, &str)]) -> Vec<(usize, Tier, u64)> {
    calls
        .iter()
        .enumerate()
        .filter_map(|(i, (tool, json))| {
            guard
                .observe(Call::new(&u("a"), &u(tool), Arguments::Json(json)))
                .unwrap()
                .map(|r| (i + 1, r.tier, r.count))
        })
        .collect()
}

#[test]
fn repeat_every_fires_past_the_last_threshold() {
    let mut g = extended(RawConfig::default().with("repeatEvery", RawValue::Number(4.0)));
    let got: Vec<_> = fired(&mut g, &[("t", "1"); 21])
        .into_iter()
        .map(|(i, tier, _)| (i, tier))
        .collect();
    let d = Tier::Detailed;
    assert_eq!(
        got,
        vec![(3, Tier::Gentle), (5, d), (8, d), (12, d), (16, d), (20, d)]
    );
}

#[test]
fn overrides_first_match_wins_and_repeat_every_uses_the_tools_thresholds() {
    let entry = |tools: &[&str], thresholds: &[f64]| {
        object(&[
            (
                "tools",
                RawValue::List(tools.iter().map(|t| RawValue::string(t)).collect()),
            ),
            ("thresholds", raw_numbers(thresholds)),
        ])
    };
    let mut g = extended(
        RawConfig::default()
            .with(
                "overrides",
                RawValue::List(vec![
                    entry(&["poll*"], &[6.0, 10.0]),
                    entry(&["poll_fast", "build"], &[2.0]),
                ]),
            )
            .with("repeatEvery", RawValue::Number(2.0)),
    );
    let tiers = |g: &mut Guard, tool: &str, n: usize| -> Vec<usize> {
        g.reset(&u("a"));
        fired(g, &vec![(tool, "{}"); n])
            .into_iter()
            .map(|(i, _, _)| i)
            .collect()
    };
    assert_eq!(tiers(&mut g, "poll_fast", 14), vec![6, 10, 12, 14]);
    assert_eq!(tiers(&mut g, "build", 6), vec![2, 4, 6]);
    assert_eq!(tiers(&mut g, "grep", 10), vec![3, 5, 8, 10]);
    g.reset(&u("a"));
    assert_eq!(
        fired(&mut g, &[("build", "{}"), ("build", "{}")]),
        vec![(2, Tier::Gentle, 2)],
        "an override's smallest threshold is its gentle one"
    );
}

#[test]
fn cycles_fire_once_per_run_and_again_after_a_break() {
    let mut g = extended(RawConfig::default().with("cycles", cycles(3.0, 2.0)));
    let ab = [("read", "1"), ("grep", "1")];
    let mut calls: Vec<_> = ab.iter().cycle().take(8).copied().collect();
    calls.push(("other", "1"));
    calls.extend(ab.iter().cycle().take(4).copied());
    assert_eq!(
        fired(&mut g, &calls),
        vec![(4, Tier::Cycle, 2), (13, Tier::Cycle, 2)]
    );
    let reminder = {
        g.reset(&u("a"));
        for (tool, json) in [("x", "1"), ("y", "2"), ("z", "3"), ("x", "1"), ("y", "2")] {
            assert!(g
                .observe(Call::new(&u("a"), &u(tool), Arguments::Json(json)))
                .unwrap()
                .is_none());
        }
        g.observe(Call::new(&u("a"), &u("z"), Arguments::Json("3")))
            .unwrap()
            .unwrap()
    };
    assert_eq!(reminder.tools, vec![u("x"), u("y"), u("z")]);
    assert_eq!(reminder.count, 2);
    assert!(String::from_utf16_lossy(&reminder.text).contains("- tools: x, y, z\n"));
}

#[test]
fn cycles_compare_arguments_too_and_ignore_the_same_call_repeated() {
    let mut g = extended(
        RawConfig::default()
            .with("cycles", cycles(2.0, 2.0))
            .with("thresholds", raw_numbers(&[100.0])),
    );
    let calls = [("t", "1"), ("t", "2"), ("t", "1"), ("t", "3"), ("t", "1")];
    assert_eq!(fired(&mut g, &calls), vec![]);
    assert_eq!(fired(&mut g, &[("t", "1"); 10]), vec![]);
}

#[test]
fn a_run_reminder_due_with_a_cycle_wins_and_the_cycle_counts_as_reported() {
    // A,B,B repeated: the B run reaches 2 on the same call the period-3 cycle completes.
    let mut g = extended(
        RawConfig::default()
            .with("cycles", cycles(3.0, 2.0))
            .with("thresholds", raw_numbers(&[2.0])),
    );
    let abb = [("a", "{}"), ("b", "{}"), ("b", "{}")];
    let calls: Vec<_> = abb.iter().cycle().take(12).copied().collect();
    assert_eq!(
        fired(&mut g, &calls),
        vec![
            (3, Tier::Gentle, 2),
            (6, Tier::Gentle, 2),
            (9, Tier::Gentle, 2),
            (12, Tier::Gentle, 2)
        ]
    );
    assert_eq!(g.stats().cycle, 0);
}

#[test]
fn cycle_state_is_per_agent_and_reset_clears_it() {
    let mut g = extended(RawConfig::default().with("cycles", cycles(2.0, 2.0)));
    let mut seen = Vec::new();
    for (agent, tool) in [("a", "x"), ("b", "x"), ("a", "y"), ("b", "y"), ("a", "x")] {
        seen.push(
            g.observe(Call::new(&u(agent), &u(tool), Arguments::Json("1")))
                .unwrap(),
        );
    }
    g.reset(&u("a"));
    seen.push(
        g.observe(Call::new(&u("a"), &u("y"), Arguments::Json("1")))
            .unwrap(),
    );
    assert!(
        seen.iter().all(Option::is_none),
        "a's cycle was cut by the reset"
    );
    assert!(g
        .observe(Call::new(&u("b"), &u("x"), Arguments::Json("1")))
        .unwrap()
        .is_none());
    let b = g
        .observe(Call::new(&u("b"), &u("y"), Arguments::Json("1")))
        .unwrap();
    assert_eq!(
        b.map(|r| (r.tier, r.count)),
        Some((Tier::Cycle, 2)),
        "b's own x,y,x,y"
    );
}

#[test]
fn same_result_only_extends_the_run_only_on_equal_results() {
    let mut g = extended(
        RawConfig::default()
            .with("sameResultOnly", RawValue::Bool(true))
            .with("thresholds", raw_numbers(&[3.0])),
    );
    let mut call = |result: Option<&str>| {
        g.observe(
            Call::new(&u("a"), &u("poll"), Arguments::Json("{}"))
                .with_result(result.map(Arguments::Json)),
        )
        .unwrap()
        .map(|r| r.count)
    };
    let ok = |n: u32| format!(r#"{{"content":[{{"type":"text","text":"{n}"}}],"isError":false}}"#);
    assert_eq!(call(Some(&ok(1))), None);
    assert_eq!(call(Some(&ok(2))), None);
    assert_eq!(call(Some(&ok(3))), None, "new data every time: no loop");
    assert_eq!(call(Some(&ok(3))), None);
    assert_eq!(call(Some(&ok(3))), Some(3));
    let error = r#"{"content":[{"type":"text","text":"3"}],"isError":true}"#;
    assert_eq!(call(Some(error)), None, "isError differs: a new run");
    assert_eq!(call(None), None, "no result is its own value");
    assert_eq!(call(None), None);
    assert_eq!(call(None), Some(3));
    assert!(g
        .observe(
            Call::new(&u("a"), &u("poll"), Arguments::Json("{}"))
                .with_result(Some(Arguments::Json("{")))
        )
        .is_err());
    assert_eq!(
        g.observe(Call::new(&u("a"), &u("poll"), Arguments::Json("{}")).with_result(None))
            .unwrap()
            .map(|r| r.count),
        None,
        "a failed result leaves the chain alone (run 4, past the last threshold)"
    );
    assert_eq!(g.stats().observed, 10);
}

#[test]
fn results_are_ignored_without_same_result_only() {
    let mut g = guard(&[2.0], &[], &[]);
    g.observe(
        Call::new(&u("a"), &u("t"), Arguments::Json("1")).with_result(Some(Arguments::Json("1"))),
    )
    .unwrap();
    let second = g
        .observe(
            Call::new(&u("a"), &u("t"), Arguments::Json("1"))
                .with_result(Some(Arguments::Json("{"))),
        )
        .unwrap();
    assert_eq!(second.map(|r| r.count), Some(2), "the result is never read");
}

#[test]
fn stats_count_calls_and_reminders_by_tier() {
    let mut g = extended(
        RawConfig::default()
            .with("cycles", cycles(2.0, 2.0))
            .with("thresholds", raw_numbers(&[2.0, 3.0]))
            .with("exclude", RawValue::List(vec![RawValue::string("todo")])),
    );
    fired(
        &mut g,
        &[
            ("t", "1"),
            ("t", "1"),
            ("t", "1"),
            ("todo", "1"),
            ("u", "1"),
            ("t", "1"),
            ("u", "1"),
        ],
    );
    assert!(g
        .observe(Call::new(&u("a"), &u("t"), Arguments::Json("{")))
        .is_err());
    g.clear();
    assert_eq!(
        g.stats(),
        Stats {
            observed: 6,
            reminders: 3,
            gentle: 1,
            detailed: 1,
            cycle: 1,
            similar: 0
        }
    );
    let mut plain = guard(&[2.0], &[], &[]);
    fired(&mut plain, &[("t", "1"); 3]);
    assert_eq!((plain.stats().observed, plain.stats().gentle), (3, 1));
}

#[test]
fn names_and_agent_ids_are_told_apart_by_lone_surrogates() {
    let lone = |text: &str, unit: u16| {
        let mut units = u(text);
        units.push(unit);
        units
    };
    let (x_d800, x_dbff) = (lone("x", 0xd800), lone("x", 0xdbff));
    let (a_d800, a_dbff) = (lone("a", 0xd800), lone("a", 0xdbff));
    let mut g = guard(&[2.0, 3.0], &[], &[]);
    let count = |g: &mut Guard, agent: &[u16], tool: &[u16]| {
        g.observe(Call::new(agent, tool, Arguments::Json("{}")))
            .unwrap()
            .map(|r| r.count)
    };
    assert_eq!(count(&mut g, &a_d800, &x_d800), None);
    assert_eq!(
        count(&mut g, &a_d800, &x_dbff),
        None,
        "another tool: a new run"
    );
    assert_eq!(
        count(&mut g, &a_dbff, &x_dbff),
        None,
        "another agent: its own chain"
    );
    assert_eq!(count(&mut g, &a_d800, &x_dbff), Some(2));
    let detailed = g
        .observe(Call::new(&a_d800, &x_dbff, Arguments::Json("{}")))
        .unwrap()
        .unwrap();
    let mut named = u("- tool: ");
    named.extend_from_slice(&x_dbff);
    named.push(u16::from(b'\n'));
    assert!(
        detailed
            .text
            .windows(named.len())
            .any(|w| w == named.as_slice()),
        "the detailed text names the tool unit for unit"
    );
    assert_eq!(g.agent_count(), 2);
    g.dispose(&lone("a", 0xfffd));
    assert_eq!(g.agent_count(), 2, "U+FFFD names neither agent");
    g.reset(&a_dbff);
    assert_eq!(count(&mut g, &a_dbff, &x_dbff), None);
    g.dispose(&a_d800);
    g.dispose(&a_dbff);
    assert_eq!(g.agent_count(), 0);

    let exclude = |pattern: &[u16]| {
        let raw = RawConfig::default().with(
            "exclude",
            RawValue::List(vec![RawValue::String(pattern.to_vec())]),
        );
        Guard::new(GuardConfig::from_raw(&raw).unwrap())
    };
    assert!(exclude(&u("x\u{fffd}")).is_tracked(&x_d800));
    assert!(!exclude(&x_d800).is_tracked(&x_d800));
    assert!(exclude(&x_d800).is_tracked(&x_dbff));
}

fn ignore_arguments(entries: &[(&[&str], &[&str])]) -> RawValue {
    let strings =
        |list: &[&str]| RawValue::List(list.iter().map(|s| RawValue::string(s)).collect());
    RawValue::List(
        entries
            .iter()
            .map(|(tools, keys)| object(&[("tools", strings(tools)), ("keys", strings(keys))]))
            .collect(),
    )
}

#[test]
fn ignored_keys_leave_a_run_unbroken_for_matching_tools_only() {
    let raw = RawConfig::default()
        .with("thresholds", raw_numbers(&[3.0, 4.0]))
        .with(
            "ignoreArguments",
            ignore_arguments(&[(&["gr*"], &["task_progress", "meta.id"])]),
        );
    let mut g = extended(raw);
    let calls: Vec<(&str, String)> = (0..4)
        .map(|i| {
            (
                "grep",
                format!(r#"{{"q":"x","task_progress":"step {i}","meta":{{"id":{i},"keep":1}}}}"#),
            )
        })
        .collect();
    let calls: Vec<(&str, &str)> = calls.iter().map(|(t, j)| (*t, j.as_str())).collect();
    let got = fired(&mut g, &calls);
    assert_eq!(
        got.iter()
            .map(|&(i, tier, count)| (i, tier, count))
            .collect::<Vec<_>>(),
        [(3, Tier::Gentle, 3), (4, Tier::Detailed, 4)]
    );
    // The detailed reminder quotes the arguments as compared and names the keys left out.
    let mut g = extended(
        RawConfig::default()
            .with("thresholds", raw_numbers(&[2.0, 3.0]))
            .with(
                "ignoreArguments",
                ignore_arguments(&[(&["grep"], &["task_progress", "meta.id", "absent"])]),
            ),
    );
    let texts: Vec<String> = calls
        .iter()
        .filter_map(|(tool, json)| {
            g.observe(Call::new(&u("a"), &u(tool), Arguments::Json(json)))
                .unwrap()
        })
        .map(|r| String::from_utf16_lossy(&r.text))
        .collect();
    assert_eq!(texts.len(), 2);
    assert!(
        texts[1].contains("- consecutive_calls: 3\n- arguments: {\"meta\":{\"keep\":1},\"q\":\"x\"}\n- ignored_keys: task_progress, meta.id\nThe repeated calls"),
        "{}",
        texts[1]
    );
    // Another tool's calls keep every key: no run forms.
    assert_eq!(
        fired(
            &mut g,
            &calls.iter().map(|(_, j)| ("read", *j)).collect::<Vec<_>>()
        ),
        []
    );
}

fn similar(min_calls: f64, similarity: f64) -> RawValue {
    object(&[
        ("minCalls", RawValue::Number(min_calls)),
        ("similarity", RawValue::Number(similarity)),
    ])
}

#[test]
fn near_identical_calls_bring_one_similar_reminder_per_run() {
    let mut g = extended(RawConfig::default().with("similar", similar(3.0, 0.8)));
    let calls = [
        ("grep", r#"{"q":"needle1"}"#),
        ("grep", r#"{"q":"needle2"}"#),
        ("grep", r#"{"q":"needle3"}"#),
        ("grep", r#"{"q":"needle4"}"#),
        // The same call again ends the near-identical run (it starts an exact one).
        ("grep", r#"{"q":"needle4"}"#),
        ("grep", r#"{"q":"needle5"}"#),
        ("grep", r#"{"q":"needle6"}"#),
        // Another tool in between ends it too.
        ("read", r#"{"q":"needle7"}"#),
        ("grep", r#"{"q":"needle8"}"#),
        ("grep", r#"{"q":"needle9"}"#),
    ];
    assert_eq!(
        fired(&mut g, &calls),
        [(3, Tier::Similar, 3), (7, Tier::Similar, 3)]
    );
    let mut g = extended(RawConfig::default().with("similar", similar(3.0, 0.8)));
    let text = (1..=3)
        .filter_map(|i| {
            let json = format!(r#"{{"q":"needle{i}"}}"#);
            g.observe(Call::new(&u("a"), &u("grep"), Arguments::Json(&json)))
                .unwrap()
        })
        .map(|r| String::from_utf16_lossy(&r.text))
        .collect::<Vec<_>>();
    assert_eq!(text.len(), 1);
    assert!(
        text[0].starts_with(
            "Near-identical tool calls detected:\n- tool: grep\n- consecutive_calls: 3\n"
        ),
        "{}",
        text[0]
    );
    assert_eq!(g.stats().similar, 1);
}

#[test]
fn similar_runs_yield_to_exact_runs_and_cycles_and_are_per_agent() {
    // An exact repeat ends a near-identical run: the two never fire on one call.
    let raw = RawConfig::default()
        .with("thresholds", raw_numbers(&[2.0]))
        .with("similar", similar(3.0, 0.5));
    let mut g = extended(raw);
    let calls = [
        ("t", r#"{"a":"x1"}"#),
        ("t", r#"{"a":"x2"}"#),
        ("t", r#"{"a":"x2"}"#),
        ("t", r#"{"a":"x3"}"#),
        ("t", r#"{"a":"x4"}"#),
    ];
    assert_eq!(
        fired(&mut g, &calls),
        [(3, Tier::Gentle, 2), (5, Tier::Similar, 3)]
    );
    // A cycle due on the same call wins, and the near-identical run counts as reported.
    let raw = RawConfig::default()
        .with("cycles", cycles(2.0, 2.0))
        .with("similar", similar(4.0, 0.5));
    let mut g = extended(raw);
    let (x1, x2) = (("t", r#"{"a":"x1"}"#), ("t", r#"{"a":"x2"}"#));
    assert_eq!(
        fired(&mut g, &[x1, x2, x1, x2, x1, x2]),
        [(4, Tier::Cycle, 2)]
    );
    // Two agents interleaving keep their own runs.
    let mut g = extended(RawConfig::default().with("similar", similar(2.0, 0.8)));
    let observe = |g: &mut Guard, agent: &str, json: &str| {
        g.observe(Call::new(&u(agent), &u("grep"), Arguments::Json(json)))
            .unwrap()
            .map(|r| r.tier)
    };
    assert_eq!(observe(&mut g, "a", r#"{"q":"needle1"}"#), None);
    assert_eq!(observe(&mut g, "b", r#"{"q":"other text entirely"}"#), None);
    assert_eq!(
        observe(&mut g, "a", r#"{"q":"needle2"}"#),
        Some(Tier::Similar)
    );
    g.reset(&u("b"));
    assert_eq!(
        observe(&mut g, "b", r#"{"q":"other text entirely!"}"#),
        None,
        "reset starts over"
    );
}

#[test]
fn similar_runs_compare_arguments_without_ignored_keys_and_need_equal_results_with_same_result_only(
) {
    let raw = RawConfig::default()
        .with("similar", similar(2.0, 0.99))
        .with("ignoreArguments", ignore_arguments(&[(&["*"], &["id"])]));
    let mut g = extended(raw);
    let got = fired(
        &mut g,
        &[
            ("t", r#"{"q":"needle","id":1,"z":1}"#),
            ("t", r#"{"q":"needle","id":2,"z":2}"#),
        ],
    );
    assert_eq!(got, [], "z differs: 0.99 is not reached");
    let got = fired(
        &mut g,
        &[
            ("t", r#"{"q":"needle","id":3}"#),
            ("t", r#"{"q":"needle","id":4}"#),
        ],
    );
    assert_eq!(
        got,
        [],
        "without id the calls are identical: an exact run, not a near-identical one"
    );
    let mut g = extended(
        RawConfig::default()
            .with("similar", similar(2.0, 0.5))
            .with("sameResultOnly", RawValue::Bool(true)),
    );
    let call = |g: &mut Guard, json: &str, result: &str| {
        g.observe(
            Call::new(&u("a"), &u("t"), Arguments::Json(json))
                .with_result(Some(Arguments::Json(result))),
        )
        .unwrap()
        .map(|r| r.tier)
    };
    assert_eq!(call(&mut g, r#"{"q":"x1"}"#, "1"), None);
    assert_eq!(
        call(&mut g, r#"{"q":"x2"}"#, "2"),
        None,
        "a new result: no run"
    );
    assert_eq!(call(&mut g, r#"{"q":"x3"}"#, "2"), Some(Tier::Similar));
}

#[test]
fn a_call_counted_again_from_the_kept_arguments_counts_as_observed() {
    use repeat_tool_guard_core::transport_sized;
    use repeat_tool_guard_core::transport_tag::{END, NULL, NUMBER, OBJECT};
    use repeat_tool_guard_core::{push_string, Pieces};
    // {"z": null, "a": 1.5}: written unsorted, as encode.js writes it.
    let mut bytes = vec![OBJECT];
    push_string(&mut bytes, &u("z"));
    bytes.push(NULL);
    push_string(&mut bytes, &u("a"));
    bytes.push(NUMBER);
    bytes.extend(1.5f64.to_le_bytes());
    bytes.push(END);
    let bytes = transport_sized(&bytes);
    let transport = Arguments::Transport {
        bytes: &bytes,
        pieces: Pieces::NONE,
    };
    let (agent, tool) = (u("a"), u("grep"));
    let call = Call::new(&agent, &tool, transport).known_tracked();
    // One guard observes the call nine times, the other once and then counts it again.
    let (mut observed, mut again) = (
        guard(&[3.0, 5.0, 8.0], &[], &[]),
        guard(&[3.0, 5.0, 8.0], &[], &[]),
    );
    let text = |reminder: Option<repeat_tool_guard_core::Reminder>| {
        reminder.map(|r| (r.tier, r.count, r.text))
    };
    assert_eq!(
        text(observed.observe(call).unwrap()),
        text(again.observe(call).unwrap())
    );
    assert!(!again.repeated(), "a first call repeats nothing");
    let mut texts = Vec::new();
    for _ in 2..=9 {
        let expected = text(observed.observe(call).unwrap());
        let counted = text(again.observe_again().unwrap().unwrap());
        assert_eq!(counted, expected);
        assert_eq!(again.repeated(), observed.repeated());
        assert!(again.repeated());
        texts.extend(counted.map(|(_, _, text)| String::from_utf16_lossy(&text)));
    }
    assert_eq!(again.stats(), observed.stats());
    // Reminders at 3, 5 and 8; the detailed ones quote the kept arguments, canonical.
    assert_eq!(texts.len(), 3);
    assert!(texts[1].contains(r#"{"a":1.5,"z":null}"#), "{}", texts[1]);
    // The same arguments from another agent: counted again, for that agent.
    let other = u("b");
    again
        .observe(Call::new(&other, &tool, transport).known_tracked())
        .unwrap();
    assert!(!again.repeated());
    again.observe_again().unwrap().unwrap();
    assert!(again.repeated(), "the other agent's run grew");
    // Nothing kept for a guard that has seen nothing, or after a call of JSON text.
    assert!(guard(&[3.0], &[], &[]).observe_again().is_none());
    again
        .observe(Call::new(&agent, &tool, Arguments::Json("{}")))
        .unwrap();
    assert!(again.observe_again().is_none());
    // An opt-in feature reads the arguments of every call: none is counted again.
    let raw = RawConfig::default().with("repeatEvery", RawValue::Number(2.0));
    let mut extended = Guard::new(GuardConfig::from_raw(&raw).unwrap());
    extended.observe(call).unwrap();
    extended.observe(call).unwrap();
    assert!(!extended.repeated());
    assert!(extended.observe_again().is_none());
}
