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

/// Every option but the reference's own and `resume`, set, leaves the reference's path; an
/// option added without a sample here fails this test.
#[test]
fn every_opt_in_option_leaves_the_reference_path() {
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
    for option in crate::options::OPTIONS {
        let sample = match option.name {
            "thresholds" | "argumentsPreviewChars" | "include" | "exclude" | "resume" => continue,
            "profile" => RawValue::string("recommended"),
            "cycles" => object(&[("maxPeriod", number(2.0)), ("repeats", number(2.0))]),
            "sameResultOnly" | "perResponse" => RawValue::Bool(true),
            "overrides" => entry("thresholds", RawValue::List(vec![number(2.0)])),
            "repeatEvery" | "stopAt" => number(2.0),
            "ignoreArguments" => entry("keys", list("k")),
            "similar" | "noProgress" | "failures" => object(&[]),
            other => panic!("no sample for the option {other}: add one"),
        };
        let g = extended(RawConfig::default().with(option.name, sample));
        assert!(g.extended, "{}", option.name);
    }
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
