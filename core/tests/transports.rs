//! Calls that come as transports (as the plugin's JavaScript writes them) are
//! counted exactly as the same calls as JSON text: two guards side by side,
//! one fed each form, over seeded streams of calls that repeat, change in one
//! place, reorder their members, write numbers JSON prints alike (`-0`,
//! `NaN`), leave members absent or name a key twice, from two agents and two
//! tools, with resets, disposals, clears and calls counted again. The
//! transport guard counts most of them without a key (a call told apart from
//! the one before, or found to be it); the JSON guard keys every one.

use std::fmt::Write;

use repeat_tool_guard_core::transport_tag::{
    ABSENT, ARRAY, END, FALSE, NULL, NUMBER, OBJECT, TRUE,
};
use repeat_tool_guard_core::{
    push_string, transport_sized, Arguments, Call, Guard, GuardConfig, RawConfig, RawValue,
};

/// A value as JavaScript may hold it.
#[derive(Clone, Debug)]
enum Value {
    Null,
    Bool(bool),
    Number(f64),
    Text(&'static str),
    /// `undefined`: a member left out, an element written as `null`.
    Absent,
    Array(Vec<Value>),
    /// Members in their own order, a key possibly twice (the later one wins).
    Object(Vec<(&'static str, Value)>),
}

impl Value {
    fn json(&self, out: &mut String) {
        match self {
            Value::Number(n) if n.is_finite() => write!(out, "{n:?}").unwrap(),
            // Numbers JSON has no form for, and an absent element (absent members are left out
            // below), are written as null.
            Value::Null | Value::Absent | Value::Number(_) => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Text(s) => write!(out, "{s:?}").unwrap(),
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.json(out);
                }
                out.push(']');
            }
            Value::Object(members) => {
                // JSON.parse keeps the last of a key, as the guard does: so is it written here.
                out.push('{');
                let mut first = true;
                for (i, (key, value)) in members.iter().enumerate() {
                    let later = members[i + 1..].iter().any(|(k, _)| k == key);
                    if later || matches!(value, Value::Absent) {
                        continue;
                    }
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    write!(out, "{key:?}:").unwrap();
                    value.json(out);
                }
                out.push('}');
            }
        }
    }

    fn transport(&self, out: &mut Vec<u8>) {
        let text =
            |out: &mut Vec<u8>, s: &str| push_string(out, &s.encode_utf16().collect::<Vec<_>>());
        match self {
            Value::Null => out.push(NULL),
            Value::Absent => out.push(ABSENT),
            Value::Bool(b) => out.push(if *b { TRUE } else { FALSE }),
            Value::Number(n) => {
                out.push(NUMBER);
                out.extend(n.to_le_bytes());
            }
            Value::Text(s) => text(out, s),
            Value::Array(items) => {
                out.push(ARRAY);
                for item in items {
                    item.transport(out);
                }
                out.push(END);
            }
            Value::Object(members) => {
                out.push(OBJECT);
                for (key, value) in members {
                    text(out, key);
                    value.transport(out);
                }
                out.push(END);
            }
        }
    }
}

/// xorshift64*: the same stream on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

const KEYS: [&str; 3] = ["a", "b", "ā"];
const SCALARS: [Value; 10] = [
    Value::Null,
    Value::Bool(true),
    Value::Bool(false),
    Value::Number(0.0),
    Value::Number(-0.0),
    Value::Number(1.5),
    Value::Number(f64::NAN),
    Value::Text("x"),
    Value::Text("xy"),
    Value::Absent,
];

fn random(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth == 0 { 1 } else { 4 }) {
        0 if depth < 3 && rng.below(2) == 0 => {
            Value::Array((0..rng.below(3)).map(|_| random(rng, depth + 1)).collect())
        }
        0 if depth < 3 => Value::Object(
            (0..rng.below(4))
                .map(|_| (KEYS[rng.below(KEYS.len())], random(rng, depth + 1)))
                .collect(),
        ),
        _ => SCALARS[rng.below(SCALARS.len())].clone(),
    }
}

/// `value` changed a little: one scalar replaced, members reordered or dropped, one appended.
fn changed(rng: &mut Rng, value: &Value) -> Value {
    let mut value = value.clone();
    change(rng, &mut value, 0);
    value
}

fn change(rng: &mut Rng, value: &mut Value, depth: usize) {
    match value {
        Value::Object(members) if !members.is_empty() && rng.below(3) > 0 => match rng.below(4) {
            0 => members.reverse(),
            1 => {
                members.pop();
            }
            2 => members.push((KEYS[rng.below(KEYS.len())], random(rng, 2))),
            _ => {
                let i = rng.below(members.len());
                change(rng, &mut members[i].1, depth + 1);
            }
        },
        Value::Array(items) if !items.is_empty() && rng.below(3) > 0 => {
            let i = rng.below(items.len());
            change(rng, &mut items[i], depth + 1);
        }
        // The whole value stays an array or an object.
        _ => *value = random(rng, if depth == 0 { 0 } else { 2 }),
    }
}

fn guard() -> Guard {
    let thresholds = RawValue::List([2.0, 3.0, 5.0].map(RawValue::Number).to_vec());
    Guard::new(GuardConfig::from_raw(&RawConfig::default().with("thresholds", thresholds)).unwrap())
}

#[test]
fn transports_are_counted_as_the_same_calls_as_json_text() {
    let agents = [[0x61u16], [0x62]];
    let tools = [[0x74u16], [0x75]];
    for seed in 1..=40u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let (mut by_transport, mut by_text) = (guard(), guard());
        let mut value = Value::Object(vec![("a", Value::Number(1.0))]);
        // The last call counted: agent, tool, value.
        let mut last: Option<(usize, usize, Value)> = None;
        for step in 0..400 {
            let op = rng.below(20);
            let context = format!("seed {seed}, step {step}, op {op}, value {value:?}");
            match op {
                0 => {
                    let agent = &agents[rng.below(2)];
                    by_transport.reset(agent);
                    by_text.reset(agent);
                }
                1 => {
                    let agent = &agents[rng.below(2)];
                    by_transport.dispose(agent);
                    by_text.dispose(agent);
                }
                2 if rng.below(4) == 0 => {
                    by_transport.clear();
                    by_text.clear();
                }
                3 => {
                    if let Some(counted) = by_transport.observe_again() {
                        let (agent, tool, value) = last.clone().expect("a call was counted");
                        let mut json = String::new();
                        value.json(&mut json);
                        let call = Call::new(&agents[agent], &tools[tool], Arguments::Json(&json));
                        assert_eq!(counted, by_text.observe(call), "{context}");
                    }
                }
                _ => {
                    value = match rng.below(5) {
                        0 => random(&mut rng, 0),
                        1 | 2 => changed(&mut rng, &value),
                        _ => value,
                    };
                    // Mostly one agent and one tool, as a stuck agent or a busy one calls.
                    let agent = usize::from(rng.below(5) == 0);
                    let tool = usize::from(rng.below(5) == 0);
                    let mut bytes = Vec::new();
                    value.transport(&mut bytes);
                    let bytes = transport_sized(&bytes);
                    let mut json = String::new();
                    value.json(&mut json);
                    let transport = Arguments::Transport(&bytes);
                    let ours =
                        by_transport.observe(Call::new(&agents[agent], &tools[tool], transport));
                    let theirs = by_text.observe(Call::new(
                        &agents[agent],
                        &tools[tool],
                        Arguments::Json(&json),
                    ));
                    assert_eq!(ours, theirs, "{context}: {json}");
                    assert_eq!(by_transport.repeated(), by_text.repeated(), "{context}");
                    last = Some((agent, tool, value.clone()));
                }
            }
            assert_eq!(by_transport.stats(), by_text.stats(), "{context}");
            assert_eq!(
                by_transport.agent_count(),
                by_text.agent_count(),
                "{context}"
            );
        }
    }
}
