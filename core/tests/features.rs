//! The opt-in features of the public [`Guard`]: `repeatEvery`, `overrides`,
//! `cycles`, `sameResultOnly`, `ignoreArguments` and `similar`.

mod support;

use repeat_tool_guard_core::{Arguments, Call, Guard, RawConfig, RawValue, Tier};
use support::{cycles, extended, fired, object, raw_numbers, u};

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
    assert_eq!(g.stats().of(Tier::Cycle), 0);
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
    assert_eq!(g.stats().of(Tier::Similar), 1);
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
