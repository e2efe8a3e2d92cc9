use super::*;
use crate::form::push_string;
use crate::last_call::HELD_BYTES;
use crate::transport::sized;
use crate::transport::tag::{ARRAY, END, NARROW, OBJECT};

impl Chains {
    /// Records a tracked call of `t` with the JSON text `json`; the run it belongs to.
    fn count(&mut self, agent: &[u16], json: &str) -> u64 {
        let arguments = Arguments::Json(json);
        self.advance(agent, T, arguments, &mut Scratch::default())
            .unwrap()
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn key(tool: &str, json: &str) -> CallKey {
    let tool: Vec<u16> = tool.encode_utf16().collect();
    call_key(&tool, Arguments::Json(json), &mut Scratch::default()).unwrap()
}

/// An agent id's code units.
fn id(text: &str) -> Vec<u16> {
    text.encode_utf16().collect()
}

#[test]
fn runs_count_per_agent() {
    let mut chains = Chains::default();
    assert_eq!(chains.count(&id("x"), "1"), 1);
    assert_eq!(chains.count(&id("y"), "1"), 1);
    assert_eq!(chains.count(&id("x"), "1.0"), 2);
    assert_eq!(chains.count(&id("x"), "2"), 1);
    assert_eq!(chains.count(&id("y"), "1"), 2);
    chains.forget(&id("y"));
    assert_eq!(chains.len(), 1);
    chains.forget(&id("unknown"));
    assert_eq!(chains.count(&id("y"), "1"), 1);
    // A call that fails to canonicalize changes nothing, not even for a new agent.
    let fails = chains.advance(&id("z"), T, Arguments::Json("{"), &mut Scratch::default());
    assert!(fails.is_err());
    assert_eq!(chains.len(), 2);
}

#[test]
fn the_last_agents_chain_hands_over() {
    let mut chains = Chains::default();
    // Agents taking turns, each run kept while another agent's chain is the last one.
    for round in 1..=3 {
        for agent in ["x", "y", "z"] {
            assert_eq!(chains.count(&id(agent), "1"), round, "{agent}");
        }
    }
    assert_eq!(chains.len(), 3);
    assert_eq!(chains.count(&id("y"), "2"), 1, "a new key restarts the run");
    // Forgetting the last agent, and one in the map.
    chains.forget(&id("y"));
    assert_eq!(chains.len(), 2);
    assert_eq!(chains.count(&id("y"), "2"), 1);
    chains.forget(&id("x"));
    assert_eq!(chains.count(&id("z"), "1"), 4);
    assert_eq!(chains.count(&id("x"), "1"), 1);
    assert_eq!(chains.len(), 3);
    for agent in ["x", "y", "z"] {
        chains.forget(&id(agent));
    }
    assert!(chains.is_empty());
    assert_eq!(chains.count(&id("z"), "1"), 1);
}

/// `{"q": text, "k": [n]}` as a transport.
fn transport(text: &str, n: u8) -> Vec<u8> {
    let units = |text: &str| text.encode_utf16().collect::<Vec<u16>>();
    let mut bytes = vec![OBJECT];
    push_string(&mut bytes, &units("q"));
    push_string(&mut bytes, &units(text));
    push_string(&mut bytes, &units("k"));
    bytes.extend([ARRAY, NARROW, 1, n, END, END]);
    sized(&bytes)
}

#[test]
fn each_agent_tells_its_calls_apart_by_their_bytes_and_keys_them_when_it_cannot() {
    let mut chains = Chains::default();
    let scratch = &mut Scratch::default();
    let mut count = |chains: &mut Chains, agent: &str, bytes: &[u8]| {
        let arguments = Arguments::Transport(bytes);
        chains.advance(&id(agent), T, arguments, scratch).unwrap()
    };
    let (a, b) = (transport("grep", b'1'), transport("grep", b'2'));
    // Two agents taking turns, each call told apart from its agent's last without a key.
    for (agent, bytes, run) in [("x", &a, 1), ("y", &b, 1), ("x", &b, 1), ("y", &b, 2)] {
        assert_eq!(count(&mut chains, agent, bytes), run, "{agent}");
    }
    assert_eq!(chains.find(&id("x")).and_then(|chain| chain.key), None);
    // Members in another order: only the keys can tell, the one left unwritten included.
    let mut swapped = vec![OBJECT];
    push_string(&mut swapped, &[u16::from(b'k')]);
    swapped.extend([ARRAY, NARROW, 1, b'2', END]);
    push_string(&mut swapped, &[u16::from(b'q')]);
    push_string(&mut swapped, &"grep".encode_utf16().collect::<Vec<_>>());
    let swapped = sized(&[&swapped[..], &[END]].concat());
    assert_eq!(count(&mut chains, "x", &swapped), 2);
    assert_eq!(
        chains.find(&id("x")).and_then(|chain| chain.key),
        Some(key("t", r#"{"k":["2"],"q":"grep"}"#))
    );
    assert_eq!(count(&mut chains, "x", &a), 1);
}

#[test]
fn an_agents_last_call_is_kept_in_bounded_bytes() {
    let mut chains = Chains::default();
    let scratch = &mut Scratch::default();
    let agent = id("x");
    for size in [10, 1 << 20, 1 << 13, 100, (1 << 14) - 64, 1 << 14, 3] {
        let text: Vec<u16> = "y".repeat(size).encode_utf16().collect();
        let wide: Vec<u16> = vec![0x101; size / 2];
        let mut bytes = vec![ARRAY];
        push_string(&mut bytes, &text);
        push_string(&mut bytes, &wide);
        bytes.push(END);
        let bytes = sized(&bytes);
        let arguments = Arguments::Transport(&bytes);
        chains.advance(&agent, T, arguments, scratch).unwrap();
        let held = chains.find(&agent).map(|chain| chain.last.held_bytes());
        assert!(
            held.is_some_and(|held| held <= HELD_BYTES),
            "{size}: {held:?}"
        );
    }
}

const T: &[u16] = &[b't' as u16];

/// A call as the opt-in path hands it over: whether it is the agent's last call again, and its key.
fn step(
    (same, key): (bool, CallKey),
    result: Option<CallKey>,
    cycles: Option<&CycleConfig>,
) -> Step<'_> {
    Step {
        same,
        key: Some(key),
        arguments: Arguments::Json("null"),
        result,
        tool: T,
        cycles,
        similar: None,
        no_progress: None,
        failures: None,
    }
}

#[test]
#[allow(clippy::clone_on_copy)]
fn extended_runs_need_the_same_result_too() {
    let mut chains = Chains::default();
    let (a, r1, r2) = (key("t", "1"), key("", "1"), key("", "2"));
    let run = |chains: &mut Chains, result: Option<CallKey>| {
        chains
            .advance_extended(&id("x"), step((true, a.clone()), result, None))
            .run
    };
    assert_eq!(run(&mut chains, Some(r1)), 1);
    assert_eq!(run(&mut chains, Some(r1)), 2);
    assert_eq!(
        run(&mut chains, Some(r2)),
        1,
        "a new result restarts the run"
    );
    assert_eq!(run(&mut chains, Some(r2)), 2);
    assert_eq!(run(&mut chains, None), 1, "no result is a value of its own");
    assert_eq!(run(&mut chains, None), 2);
    chains.forget(&id("x"));
    assert!(chains.is_empty());
}

#[test]
#[allow(clippy::clone_on_copy)]
fn extended_feeds_cycles_by_key_only() {
    let mut chains = Chains::default();
    let config = CycleConfig::new(2, 2.0);
    let (a, b) = (key("t", "1"), key("t", "2"));
    let hits: Vec<_> = [a.clone(), b.clone(), a, b]
        .into_iter()
        .enumerate()
        .map(|(i, k)| {
            let result = Some(key("", &i.to_string()));
            chains
                .advance_extended(&id("x"), step((false, k), result, Some(&config)))
                .cycle
        })
        .collect();
    assert_eq!(hits.iter().filter(|h| h.is_some()).count(), 1);
    assert_eq!(hits[3].as_ref().map(|h| h.repeats), Some(2));
}
