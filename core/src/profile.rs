//! Where a new call's time goes in the core, stage by stage: what
//! `benchmark/profile.mjs` prints beside the JavaScript side's stages. It
//! reads the transport of calls `encode.js` wrote (the file named by
//! `PROFILE_CALLS`: per call a little-endian `u32` length, then the
//! arguments' bytes) and times, over them in turn: the side-by-side read of
//! each call with the one before and the check of the new one (`side_by_side`),
//! then `Guard::observe`, which adds the chain to it; and, for a
//! call that must be keyed, its key form written from the transport
//! and hashed (`key`), and BLAKE3 alone over bytes as many.
//! `PROFILE_ROUNDS` rounds (15) after one that warms up; the medians.
//! Ignored by `cargo test`; `benchmark/profile.mjs` runs it.

use std::hint::black_box;
use std::time::Instant;

use crate::key::call_key;
use crate::scratch::Scratch;
use crate::side_by_side;
use crate::{Arguments, Call, Guard, GuardConfig, RawConfig};

fn read_calls(path: &str) -> Vec<Vec<u8>> {
    let file = std::fs::read(path).expect("PROFILE_CALLS names a readable file");
    let mut calls = Vec::new();
    let mut rest = &file[..];
    while let Some((length, tail)) = rest.split_first_chunk::<4>() {
        let length = u32::from_le_bytes(*length) as usize;
        calls.push(tail[..length].to_vec());
        rest = &tail[length..];
    }
    calls
}

const TOOL: &[u16] = &[0x67, 0x72, 0x65, 0x70];
const AGENT: &[u16] = &[0x61];

fn transport(bytes: &[u8]) -> Arguments<'_> {
    Arguments::Transport(bytes)
}

/// Mean ns per call of `stage` run on every call in turn, `passes` times.
fn time(calls: &[Vec<u8>], passes: usize, mut stage: impl FnMut(&[u8])) -> f64 {
    time_pairs(calls, passes, |_, call| stage(call))
}

/// [`time`] for `stage` run on each call and the one before it.
fn time_pairs(calls: &[Vec<u8>], passes: usize, mut stage: impl FnMut(&[u8], &[u8])) -> f64 {
    let start = Instant::now();
    for _ in 0..passes {
        // Each call after the one before it, the first after the last.
        for (before, call) in calls.last().into_iter().chain(calls).zip(calls) {
            stage(before, call);
        }
    }
    start.elapsed().as_nanos() as f64 / (passes * calls.len()) as f64
}

#[test]
#[ignore = "a measurement: benchmark/profile.mjs runs it"]
fn stages_of_a_new_call() {
    let path = std::env::var("PROFILE_CALLS").expect("PROFILE_CALLS names the calls' file");
    let calls = read_calls(&path);
    let bytes: usize = calls.iter().map(Vec::len).sum();
    let passes = (2_000_000 / bytes.max(1)).clamp(1, 10_000);
    let rounds: usize = std::env::var("PROFILE_ROUNDS")
        .map_or(Ok(15), |r| r.parse())
        .unwrap();
    let mut scratch = Scratch::default();
    let mut guard = Guard::new(GuardConfig::from_raw(&RawConfig::default()).unwrap());
    let mut stages: [Vec<f64>; 4] = Default::default();
    let mut open = Vec::new();
    for round in 0..=rounds {
        let times = [
            time(&calls, passes, |bytes| {
                black_box(call_key(TOOL, transport(bytes), &mut scratch).unwrap());
                scratch.trim();
            }),
            time(&calls, passes, |bytes| {
                black_box(blake3::hash(bytes));
            }),
            time(&calls, passes, |bytes| {
                let call = Call::new(AGENT, TOOL, transport(bytes)).known_tracked();
                black_box(guard.observe(call).unwrap());
            }),
            time_pairs(&calls, passes, |last, bytes| {
                black_box(side_by_side::compare(last, bytes, &mut open));
            }),
        ];
        // The first round warms up.
        if round == 0 {
            continue;
        }
        for (stage, time) in stages.iter_mut().zip(times) {
            stage.push(time);
        }
    }
    let names = ["form", "hash", "observe", "side_by_side"];
    let medians = stages.map(|mut times| {
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    });
    let line: Vec<String> = names
        .iter()
        .zip(medians)
        .map(|(name, ns)| format!("{name}={ns:.1}"))
        .collect();
    // One line for benchmark/profile.mjs to read.
    println!("PROFILE {} {}", bytes / calls.len(), line.join(" "));
}
