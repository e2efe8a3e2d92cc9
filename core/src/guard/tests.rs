use super::*;
use crate::config::RawValue;
use crate::raw_config::RawConfig;

fn extended(raw: RawConfig) -> Guard {
    Guard::new(GuardConfig::from_raw(&raw).unwrap())
}

#[test]
fn tiers_by_run_length() {
    let tiers = |thresholds: &[f64], every: Option<f64>| -> Vec<Option<Tier>> {
        (0..=14)
            .map(|run| tier_at(thresholds, every, run))
            .collect()
    };
    let (g, d) = (Some(Tier::Gentle), Some(Tier::Detailed));
    assert_eq!(
        tiers(&[3.0, 5.0, 8.0], None),
        [None, None, None, g, None, d, None, None, d, None, None, None, None, None, None]
    );
    assert_eq!(
        tiers(&[3.0, 5.0, 8.0], Some(3.0)),
        [None, None, None, g, None, d, None, None, d, None, None, d, None, None, d]
    );
    assert_eq!(
        tiers(&[2.0], Some(5.0)),
        [None, None, g, None, None, None, None, d, None, None, None, None, d, None, None]
    );
    assert_eq!(tiers(&[], Some(1.0)), [None; 15]);
}

/// A value that turns the option `name` on; `None` for the reference's own options and `resume`.
fn sample(name: &str) -> Option<RawValue> {
    let object = |fields: &[(&str, RawValue)]| {
        RawValue::Object(
            fields
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    };
    let list = |text: &str| RawValue::List(vec![RawValue::string(text)]);
    let number = RawValue::Number;
    let entry = |field: &str, value: RawValue| {
        RawValue::List(vec![object(&[("tools", list("x")), (field, value)])])
    };
    Some(match name {
        "thresholds" | "argumentsPreviewChars" | "include" | "exclude" | "resume" => return None,
        "profile" => RawValue::string("recommended"),
        "cycles" => object(&[("maxPeriod", number(2.0)), ("repeats", number(2.0))]),
        "sameResultOnly" | "perResponse" => RawValue::Bool(true),
        "overrides" => entry("thresholds", RawValue::List(vec![number(2.0)])),
        "repeatEvery" | "stopAt" => number(2.0),
        "ignoreArguments" => entry("keys", list("k")),
        "similar" | "noProgress" | "failures" => object(&[]),
        other => panic!("no sample for the option {other}: add one"),
    })
}

/// Every option but the reference's own and `resume`, set, leaves the reference's path; an
/// option added without a sample here fails this test.
#[test]
fn every_opt_in_option_leaves_the_reference_path() {
    for option in crate::options::OPTIONS {
        let Some(sample) = sample(option.name) else {
            continue;
        };
        let g = extended(RawConfig::default().with(option.name, sample));
        assert!(g.extended, "{}", option.name);
    }
}

/// A config with the option of `tier` alone on (the defaults for the run's tiers).
fn with_tier_on(tier: Tier) -> GuardConfig {
    let raw = match sample(tier.option()) {
        Some(value) => RawConfig::default().with(tier.option(), value),
        None => RawConfig::default(),
    };
    GuardConfig::from_raw(&raw).unwrap()
}

/// Each tier's option turns it on, and none but the run's tiers is on by default.
#[test]
fn each_tier_is_on_with_its_option() {
    let default = GuardConfig::default();
    for tier in Tier::ALL {
        assert!(tier.is_on(&with_tier_on(tier)), "{tier:?}");
        let run = matches!(tier, Tier::Gentle | Tier::Detailed);
        assert_eq!(tier.is_on(&default), run, "{tier:?}");
    }
}

/// A guard takes results with `sameResultOnly`, or with a tier on that reads them, and else not.
#[test]
fn a_guard_takes_results_when_a_tier_on_reads_them() {
    for tier in Tier::ALL {
        let guard = Guard::new(with_tier_on(tier));
        assert_eq!(guard.takes_results(), tier.reads_results(), "{tier:?}");
    }
    let same = RawConfig::default().with("sameResultOnly", RawValue::Bool(true));
    assert!(extended(same).takes_results());
}

#[test]
fn explicitly_disabled_features_keep_the_reference_path() {
    let raw = RawConfig::default()
        .with("sameResultOnly", RawValue::Bool(false))
        .with("overrides", RawValue::List(vec![]));
    let g = extended(raw);
    assert!(!g.extended);
    assert!(!extended(RawConfig::default()).extended);
}

#[test]
fn per_response_counts_a_response_s_identical_calls_once() {
    let mut g = extended(RawConfig::default().with("perResponse", RawValue::Bool(true)));
    let (agent, tool): (&[u16], &[u16]) = (&[0x61], &[0x74]);
    let call = |g: &mut Guard, args: &str| {
        g.observe(Call::new(agent, tool, Arguments::Json(args)))
            .unwrap()
            .map(|r| (r.tier, r.count))
    };
    // Three identical calls in one response: one call of the run.
    let first: Vec<_> = (0..3).map(|_| call(&mut g, r#"{"q":1}"#)).collect();
    assert_eq!(first, [None, None, None]);
    assert_eq!(
        g.stats().observed,
        1,
        "the repeats within the response are left out"
    );
    // The same call in the next two responses: the run grows to 3.
    g.next_response(agent);
    assert_eq!(call(&mut g, r#"{"q":1}"#), None);
    assert_eq!(
        call(&mut g, r#"{"q":1}"#),
        None,
        "again within the response"
    );
    g.next_response(agent);
    assert_eq!(call(&mut g, r#"{"q":1}"#), Some((Tier::Gentle, 3)));
    // Another call in the same response is counted, and ends the run.
    assert_eq!(call(&mut g, r#"{"q":2}"#), None);
    assert_eq!(call(&mut g, r#"{"q":1}"#), None);
    g.next_response(agent);
    g.next_response(&[0x62]);
    assert_eq!(call(&mut g, r#"{"q":1}"#), None, "a run of 2");
    // Without the option, the same calls make one run of three in one response.
    let mut plain = extended(RawConfig::default());
    let runs: Vec<_> = (0..3).map(|_| call(&mut plain, r#"{"q":1}"#)).collect();
    assert_eq!(runs, [None, None, Some((Tier::Gentle, 3))]);
}

/// `restore_times` leaves a chain as that many restores do: every reminder of the calls after
/// it the same, under the defaults, the opt-in detections and `stopAt`, for runs shorter and
/// longer than those it replays.
#[test]
fn restoring_a_call_many_times_is_restoring_it_that_many_times() {
    let number = |n: f64| RawValue::Number(n);
    let configs = [
        RawConfig::default(),
        RawConfig::default().with("repeatEvery", number(7.0)),
        RawConfig::default().with("profile", RawValue::string("recommended")),
        RawConfig::default()
            .with("stopAt", number(300.0))
            .with("noProgress", RawValue::Object(vec![])),
        RawConfig::default().with("sameResultOnly", RawValue::Bool(true)),
        // Windows of other lengths: their reminders come back every 7 and 5 calls.
        RawConfig::default()
            .with(
                "noProgress",
                RawValue::Object(vec![
                    ("window".into(), number(7.0)),
                    ("minCalls".into(), number(2.0)),
                ]),
            )
            .with(
                "failures",
                RawValue::Object(vec![
                    ("window".into(), number(5.0)),
                    ("minCalls".into(), number(2.0)),
                ]),
            )
            .with(
                "cycles",
                RawValue::Object(vec![
                    ("maxPeriod".into(), number(5.0)),
                    ("repeats".into(), number(3.0)),
                ]),
            ),
    ];
    let (agent, tool): (&[u16], &[u16]) = (&[0x61], &[0x74]);
    let other: &[u16] = &[0x75];
    for (i, raw) in configs.iter().enumerate() {
        for times in [1, 2, 5, 255, 256, 257, 262, 291, 300, 1000, 1003] {
            let call = |tool, args| {
                Call::new(agent, tool, Arguments::Json(args))
                    .with_result(Some(Arguments::Json(r#"{"content":"same"}"#)))
            };
            let (mut one_by_one, mut at_once) = (extended(raw.clone()), extended(raw.clone()));
            for guard in [&mut one_by_one, &mut at_once] {
                guard.restore(call(other, r#"{"q":0}"#)).unwrap();
            }
            for _ in 0..times {
                one_by_one.restore(call(tool, r#"{"q":1}"#)).unwrap();
            }
            at_once
                .restore_times(call(tool, r#"{"q":1}"#), times)
                .unwrap();
            let next = |guard: &mut Guard| -> Vec<_> {
                (0..12)
                    .map(|k| {
                        let args = if k == 6 { r#"{"q":2}"# } else { r#"{"q":1}"# };
                        guard
                            .observe(call(tool, args))
                            .unwrap()
                            .map(|r| (r.tier, r.count, r.text))
                    })
                    .collect()
            };
            assert_eq!(
                next(&mut at_once),
                next(&mut one_by_one),
                "config {i}, {times} times"
            );
            assert_eq!(at_once.stats(), one_by_one.stats());
        }
    }
}
