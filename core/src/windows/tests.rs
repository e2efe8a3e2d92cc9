use std::ops::Not;

use super::*;

/// What `noProgress` and `failures` compare of the call `(call, tool)` with this result.
fn compare(call: CallDigest, tool: &[u16], result: Option<&str>) -> (CallDigest, Option<Counted>) {
    let config = WindowConfig {
        min_calls: 2.0,
        window: 2.0,
    };
    let result = result.map(Arguments::Json);
    let (no_progress, failures) = compared(
        Some(&config),
        Some(&config),
        (call, tool),
        result,
        &mut Scratch::default(),
    )
    .unwrap();
    (no_progress.unwrap().1, failures.unwrap().1)
}

/// The digest of a call's key form, here one byte.
fn key(n: u8) -> CallDigest {
    call_digest(&[n])
}

/// A call as `noProgress`'s window holds it.
fn same_call(call: CallDigest, result: &str) -> Counted {
    Counted {
        digest: compare(call, &[0x67], Some(result)).0,
        arguments: None,
    }
}

fn same_failure(tool: &[u16], arguments: u8, result: &str) -> Option<Counted> {
    compare(key(arguments), tool, Some(result)).1
}

/// A result as one call reads it: what `noProgress` compares, and whether it is a failure.
struct Read {
    digest: CallDigest,
    failed: bool,
}

fn read_as(result: Option<&str>) -> Read {
    let (digest, failure) = compare(key(0), &[0x67], result);
    Read {
        digest,
        failed: failure.is_some(),
    }
}

fn read(json: &str) -> Read {
    read_as(Some(json))
}

fn digest(json: &str) -> CallDigest {
    read(json).digest
}

#[test]
fn volatile_parts_are_removed() {
    let shell = |line: &str| {
        digest(&format!(
            r#"{{"content":"/bin/bash: line {line}: cd: fastxml/: No such file or directory","isError":false}}"#
        ))
    };
    assert_eq!(shell("69527"), shell("69737"));
    let stamped =
        |at: &str, id: &str| digest(&format!(r#"{{"content":"done at {at} (request {id})"}}"#));
    assert_eq!(
        stamped(
            "2025-03-31T08:33:04.309Z",
            "3fa85f64-5717-4562-b3fc-2c963f66afa6"
        ),
        stamped(
            "2026-12-04T17:35:41.000Z",
            "9b2e0c1d-aaaa-4bbb-8ccc-0123456789ab"
        )
    );
    assert_ne!(
        digest(r#"{"content":"status: running"}"#),
        digest(r#"{"content":"status: done"}"#)
    );
    assert_ne!(
        digest(r#"{"content":"cafe"}"#),
        digest(r#"{"content":"face"}"#)
    );
    assert_ne!(digest(r#"{"content":"x1"}"#), digest(r#"{"content":"y1"}"#));
    assert_ne!(digest(r#"{"content":""}"#), read_as(None).digest);
}

#[test]
fn a_result_is_compared_as_its_value_whatever_form_it_came_in() {
    // Members in any order; a raw string as the JSON string it is.
    assert_eq!(digest(r#"{"a":1,"b":"x"}"#), digest(r#"{"b":"x","a":2}"#));
    let text: Vec<u16> = "ünïcode ✓ 12".encode_utf16().collect();
    let config = WindowConfig {
        min_calls: 2.0,
        window: 2.0,
    };
    let scratch = &mut Scratch::default();
    let result = Some(Arguments::Text(&text));
    let compared = compared(Some(&config), None, (key(0), &[0x67]), result, scratch);
    assert_eq!(compared.unwrap().0.unwrap().1, digest(r#""ünïcode ✓ 34""#));
    // Wide strings lose their volatile parts as narrow ones do, wherever their other characters lie.
    for at in 0..12 {
        let mut text = "12 passed, 3 failed".to_owned();
        text.insert(at, '✓');
        let other = text.replace("12", "345").replace('3', "67");
        assert_eq!(
            digest(&format!("{text:?}")),
            digest(&format!("{other:?}")),
            "{text}"
        );
        assert_ne!(
            digest(&format!("{text:?}")),
            digest(&format!("{:?}", text.replace('✓', "✗")))
        );
    }
    // Where a string ends, and what kind of value it is, count.
    assert_ne!(digest(r#"["ab","c"]"#), digest(r#"["a","bc"]"#));
    assert_ne!(digest(r#"["1"]"#), digest("[1]"));
    assert_ne!(digest("[true]"), digest(r#"["true"]"#));
    // Numbers lose their digits as their text would.
    assert_eq!(digest("[1.5,-2]"), digest("[22.75,300]"));
    assert_ne!(digest("[1]"), digest("[1.5]"));
}

#[test]
fn failure_words_are_found_at_every_start_of_a_word() {
    let plainly = |text: &[u8]| {
        (0..text.len()).any(|at| {
            (at == 0 || !text[at - 1].is_ascii_alphanumeric())
                && FAILURE_WORDS.iter().any(|word| {
                    text.get(at..at + word.len())
                        .is_some_and(|head| head.eq_ignore_ascii_case(word.as_bytes()))
                })
        })
    };
    let words = FAILURE_WORDS
        .iter()
        .chain(&["Error", "ERRORS", "xerror", "err", "usage"]);
    for word in words {
        for before in [b' ', b'\n', b'_', b'9', b'x', b'X', 0xc3, b'"', b'@', b'['] {
            for pad in 0..20 {
                let text = [&vec![b'a'; pad][..], &[before], word.as_bytes(), b" ok"].concat();
                assert_eq!(
                    says_failure(&text),
                    plainly(&text),
                    "{:?}",
                    String::from_utf8_lossy(&text)
                );
                assert_eq!(says_failure(&text[pad + 1..]), plainly(&text[pad + 1..]));
            }
        }
    }
}

#[test]
fn normalize_replaces_each_maximal_run_that_holds_a_digit() {
    // The rule read plainly: maximal runs of hexadecimal digits and hyphens, one at a time.
    let in_run = |byte: &u8| RUN[usize::from(*byte)];
    let plainly = |text: &[u8]| {
        let mut out = Vec::new();
        for group in text.chunk_by(|a, b| in_run(a) == in_run(b)) {
            if group.iter().all(in_run) && group.iter().any(u8::is_ascii_digit) {
                out.push(b'#');
            } else {
                out.extend_from_slice(group);
            }
        }
        out
    };
    // Every text of up to 6 bytes over an alphabet of each kind of byte.
    let alphabet: &[u8] = b"0a-Fz \\\"#";
    let mut texts = vec![Vec::new()];
    for len in 1..=6 {
        let longer: Vec<Vec<u8>> = texts
            .iter()
            .filter(|t| t.len() == len - 1)
            .flat_map(|t| alphabet.iter().map(move |&b| [&t[..], &[b]].concat()))
            .collect();
        texts.extend(longer);
    }
    // And longer ones, read eight bytes at a time, with runs across those eights.
    texts.push(b"0123456789abcdef-xyz-12ab cafe 2026-12-07T19:30:09Z deadbeefcafe0".to_vec());
    let mut state = 7_u64;
    for len in 7..=40 {
        for _ in 0..200 {
            let text = (0..len).map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                alphabet[(state >> 33) as usize % alphabet.len()]
            });
            texts.push(text.collect());
        }
    }
    for text in texts {
        let mut out = Vec::new();
        normalize(&text, &mut out);
        assert_eq!(out, plainly(&text), "{:?}", String::from_utf8_lossy(&text));
    }
}

#[test]
fn failures_are_flagged_or_said_early() {
    let failed = |json: &str| read(json).failed;
    assert!(failed(r#"{"content":"ok","isError":true}"#));
    assert!(!failed(r#"{"content":"ok","isError":false}"#));
    assert!(failed(
        r#"{"content":"bash: cd: x/: No such file or directory"}"#
    ));
    assert!(failed(r#""ERROR: Invalid `path` parameter""#));
    assert!(failed(r#""Traceback (most recent call last):""#));
    assert!(failed(r#""Usage: edit <start>:<end>""#));
    // A word starts after a line break (a character, not the two of its escape).
    assert!(failed(r#""done\nError: x""#));
    // At the start of a word only: the key `isError` and words that merely hold one are not.
    assert!(!failed(r#"{"content":"42 tests passed","isError":false}"#));
    assert!(!failed(r#""terrors and inerrant unfailed text""#));
    // Only letters start a word here, and words are looked up by their first two: every failure
    // word must begin with two.
    assert!(FAILURE_WORDS
        .iter()
        .all(|word| word.as_bytes()[..2].iter().all(u8::is_ascii_alphabetic)));
    // Said past the first FAILURE_PREFIX bytes it is not read.
    let late = format!(r#""{} error""#, "x".repeat(FAILURE_PREFIX));
    assert!(!failed(&late));
    // The flag is found wherever it is, also when a long content puts it far in.
    let far = format!(r#"{{"content":"{}","isError":true}}"#, "x".repeat(10_000));
    assert!(failed(&far));
    assert!(!failed(&far.replace("true", "false")));
    assert!(read_as(None).failed.not());
    // The flag is a member: at any depth, but not a string that reads so, nor an array's items.
    assert!(failed(r#"{"content":[{"isError":true,"text":"ok"}]}"#));
    assert!(!failed(r#"{"content":["isError",true]}"#));
    assert!(!failed(r#"{"isError":"true"}"#));
    assert!(!failed(r#"{"content":"\"isError\":true"}"#));
}

#[test]
fn the_flag_is_found_at_any_offset_of_the_text() {
    for pad in 0..=70 {
        let text = format!(r#"{{"content":"{}","isError":true}}"#, "x".repeat(pad));
        assert!(read(&text).failed, "after {pad} bytes");
        assert!(
            !read(&text.replace("true", "false")).failed,
            "after {pad} bytes"
        );
    }
}

fn due((equal, due): (u64, bool)) -> Option<u64> {
    due.then_some(equal)
}

#[test]
fn reminds_when_the_window_holds_min_calls_equal_calls() {
    let config = WindowConfig {
        min_calls: 3.0,
        window: 5.0,
    };
    let (same, other) = (r#""x""#, r#""y""#);
    let mut recent = Recent::default();
    let hits: Vec<Option<u64>> = [
        (1, same),
        (2, same),
        (1, same),
        (1, other),
        (1, same),
        (3, same),
    ]
    .iter()
    .map(|&(n, result)| due(recent.push(Some(same_call(key(n), result)), &config)))
    .collect();
    assert_eq!(hits, [None, None, None, None, Some(3), None]);
    // Calls that fall out of the window no longer count.
    let mut recent = Recent::default();
    let spaced: Vec<Option<u64>> = [1, 2, 3, 4, 1, 2, 3, 4, 1]
        .iter()
        .map(|n| due(recent.push(Some(same_call(key(*n), same)), &config)))
        .collect();
    assert_eq!(spaced, [None; 9]);
    // A loop that goes on is reminded of once, and again after it was broken.
    let mut recent = Recent::default();
    let looping: Vec<Option<u64>> = [1, 2, 1, 2, 1, 2, 1, 2, 3, 4, 5, 6, 7, 1, 1, 1]
        .iter()
        .map(|n| due(recent.push(Some(same_call(key(*n), same)), &config)))
        .collect();
    let hits: Vec<usize> = looping
        .iter()
        .enumerate()
        .filter_map(|(i, hit)| hit.map(|_| i + 1))
        .collect();
    assert_eq!(hits, [5, 6, 16]);
    assert_eq!(looping.get(4), Some(&Some(3)));
}

#[test]
fn failures_count_one_tool_and_error_once_per_arguments() {
    let config = WindowConfig {
        min_calls: 3.0,
        window: 4.0,
    };
    let (missing, ok) = (r#""cd: x: No such file or directory""#, r#""done""#);
    let (cd, ls): (&[u16], &[u16]) = (&[0x63, 0x64], &[0x6c, 0x73]);
    let hits = |calls: &[(&[u16], u8, &str)]| {
        let mut recent = Recent::default();
        let hits: Vec<Option<u64>> = calls
            .iter()
            .map(|&(tool, arguments, result)| {
                due(recent.push(same_failure(tool, arguments, result), &config))
            })
            .collect();
        hits
    };
    // The sixth: three of cd's same error, with three arguments, among the last four calls
    // (the first has left).
    let retries = [
        (cd, 1, missing),
        (ls, 2, missing),
        (cd, 3, missing),
        (cd, 4, ok),
        (cd, 5, missing),
        (cd, 6, missing),
    ];
    assert_eq!(hits(&retries), [None, None, None, None, None, Some(3)]);
    // The same call failing again counts once: a repeat is the run rule's and noProgress's.
    let again = [
        (cd, 1, missing),
        (cd, 1, missing),
        (cd, 1, missing),
        (cd, 2, missing),
    ];
    assert_eq!(hits(&again), [None, None, None, None]);
    let mut recent = Recent::default();
    let counts: Vec<u64> = [1, 1, 2, 1, 2, 3]
        .iter()
        .map(|&arguments| recent.push(same_failure(cd, arguments, missing), &config).0)
        .collect();
    assert_eq!(counts, [1, 1, 2, 2, 2, 3]);
    // A call that is not a failure never counts, nor brings a reminder.
    let mut recent = Recent::default();
    assert_eq!(recent.push(same_failure(cd, 1, ok), &config), (0, false));
}
