//! The public [`Guard`] as the binding and the fuzz targets use it, with the
//! reference's options: tiers and their escalation, include/exclude, chains per
//! agent with reset and dispose, the counters, names told apart unit for unit,
//! and a call counted again from the kept arguments. The opt-in features are
//! in `features.rs`.

mod support;

use repeat_tool_guard_core::{Arguments, Call, Guard, GuardConfig, RawConfig, RawValue, Tier};
use support::{cycles, extended, fired, raw_numbers, u};

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
    let stats = g.stats();
    assert_eq!((stats.observed, stats.reminders), (6, 3));
    let by_tier: Vec<u64> = Tier::ALL.iter().map(|&tier| stats.of(tier)).collect();
    // gentle, detailed, cycle, similar, noProgress, failure, stop
    assert_eq!(by_tier, [1, 1, 1, 0, 0, 0, 0]);
    let mut plain = guard(&[2.0], &[], &[]);
    fired(&mut plain, &[("t", "1"); 3]);
    assert_eq!(
        (plain.stats().observed, plain.stats().of(Tier::Gentle)),
        (3, 1)
    );
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

#[test]
fn a_call_counted_again_from_the_kept_arguments_counts_as_observed() {
    use repeat_tool_guard_core::push_string;
    use repeat_tool_guard_core::transport_sized;
    use repeat_tool_guard_core::transport_tag::{END, NULL, NUMBER, OBJECT};
    // {"z": null, "a": 1.5}: written unsorted, as encode.js writes it.
    let mut bytes = vec![OBJECT];
    push_string(&mut bytes, &u("z"));
    bytes.push(NULL);
    push_string(&mut bytes, &u("a"));
    bytes.push(NUMBER);
    bytes.extend(1.5f64.to_le_bytes());
    bytes.push(END);
    let bytes = transport_sized(&bytes);
    let transport = Arguments::Transport(&bytes);
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
    // Nothing to count for a guard that has seen nothing.
    assert!(guard(&[3.0], &[], &[]).observe_again().is_none());
    // Arguments not kept (JSON text, or too large): counted until a reminder would quote them.
    again
        .observe(Call::new(&agent, &tool, Arguments::Json("{}")))
        .unwrap();
    assert_eq!(text(again.observe_again().unwrap().unwrap()), None);
    let gentle = text(again.observe_again().unwrap().unwrap());
    assert_eq!(
        gentle.map(|(tier, count, _)| (tier, count)),
        Some((Tier::Gentle, 3))
    );
    assert_eq!(text(again.observe_again().unwrap().unwrap()), None);
    assert!(
        again.observe_again().is_none(),
        "the detailed reminder at 5 quotes them"
    );
    let detailed = text(
        again
            .observe(Call::new(&agent, &tool, Arguments::Json("{}")))
            .unwrap(),
    );
    assert_eq!(
        detailed.map(|(tier, count, _)| (tier, count)),
        Some((Tier::Detailed, 5))
    );
    // An opt-in feature reads the arguments of every call: none is counted again.
    let raw = RawConfig::default().with("repeatEvery", RawValue::Number(2.0));
    let mut extended = Guard::new(GuardConfig::from_raw(&raw).unwrap());
    extended.observe(call).unwrap();
    extended.observe(call).unwrap();
    assert!(!extended.repeated());
    assert!(extended.observe_again().is_none());
}
