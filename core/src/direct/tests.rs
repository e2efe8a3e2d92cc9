//! The key form written straight from a transport, against the tape's.

use super::*;
use crate::form::push_string;
use crate::read::{visit, Scratch};
use crate::transport::sized;
use crate::value::Arguments;

const TOOL: &[u16] = &[0x74];

/// The form the tape writes, and the one this writes (`None`: left to the tape).
fn forms(bytes: &[u8], pieces: Pieces<'_>) -> (Vec<u8>, Option<Vec<u8>>) {
    let mut block = Vec::new();
    let mut digester = Digester::new(&mut block, TOOL);
    let arguments = Arguments::Transport { bytes, pieces };
    visit(arguments, &mut Scratch::default(), &mut digester).expect("a valid transport");
    let (len, hash) = (digester.len(), digester.finish());
    let tape = hash.map_or_else(|| block[..len].to_vec(), |hash| hash.as_bytes().to_vec());
    let mut block = Vec::new();
    let mut digester = Digester::new(&mut block, TOOL);
    let written = write(bytes, pieces, &mut digester, &mut Buffers::default());
    let (len, hash) = (digester.len(), digester.finish());
    let direct = written
        .map(|()| hash.map_or_else(|| block[..len].to_vec(), |hash| hash.as_bytes().to_vec()));
    (tape, direct)
}

fn string(out: &mut Vec<u8>, text: &str) {
    push_string(out, &text.encode_utf16().collect::<Vec<_>>());
}

fn number(out: &mut Vec<u8>, value: f64) {
    out.push(NUMBER);
    out.extend(value.to_le_bytes());
}

/// Writes a value.
type Write<'a> = &'a dyn Fn(&mut Vec<u8>);

/// An object of the given members, each a key and a value written by `value`.
fn object(members: &[(&str, Write<'_>)]) -> Vec<u8> {
    let mut out = vec![OBJECT];
    for (key, value) in members {
        string(&mut out, key);
        value(&mut out);
    }
    out.push(END);
    out
}

#[test]
fn the_common_call_is_written_directly_as_the_tape_writes_it() {
    let pieces = Pieces {
        narrow: &[&[b'n'; 300]],
        wide: &[&[0x101; 200], &[0x41; 3]],
    };
    let nested = object(&[
        ("z", &|out| out.push(NULL)),
        ("a", &|out| number(out, -0.0)),
        ("m", &|out| {
            out.push(ARRAY);
            number(out, f64::NAN);
            out.extend([ABSENT, TRUE, LONG, 0, LONG_WIDE, 0, LONG_WIDE, 1]);
            string(out, "é€😀");
            out.extend([OBJECT, END, ARRAY, END, END]);
        }),
    ]);
    let long_key = "k".repeat(200);
    let cases = [
        vec![NULL],
        vec![ARRAY, END],
        vec![OBJECT, END],
        nested.clone(),
        object(&[
            ("path", &|out| string(out, "src/components")),
            ("pattern", &|out| string(out, "TODO")),
            ("10", &|out| out.push(TRUE)),
            ("9", &|out| out.push(FALSE)),
            ("", &|out| number(out, 1.5)),
            (&long_key, &|out| out.extend_from_slice(&nested)),
            ("flags", &|out| {
                out.push(ARRAY);
                string(out, "-n");
                out.push(END);
            }),
        ]),
    ];
    for bytes in cases {
        let bytes = sized(&bytes);
        let (tape, direct) = forms(&bytes, pieces);
        assert_eq!(direct, Some(tape), "{bytes:?}");
    }
    // Wide: sorted with the standard sort, past an insertion sort's few members.
    let keys: Vec<String> = (0..300)
        .map(|i| format!("key{}", (i * 7919) % 300))
        .collect();
    let mut wide = vec![OBJECT];
    for key in &keys {
        string(&mut wide, key);
        number(&mut wide, 1.0);
    }
    wide.push(END);
    let (tape, direct) = forms(&sized(&wide), Pieces::NONE);
    assert_eq!(direct, Some(tape));
    // Deep: no recursion.
    let depth = 100_000;
    let mut deep = vec![ARRAY; depth];
    deep.push(NULL);
    deep.extend(std::iter::repeat_n(END, depth));
    let (tape, direct) = forms(&sized(&deep), Pieces::NONE);
    assert_eq!(direct, Some(tape));
}

#[test]
fn order_keys_read_as_a_word_are_narrow_order_keys() {
    let keys: [&[u8]; 10] = [
        b"",
        b"a",
        b"pattern",
        b"patterns",
        b"path",
        b"10",
        b"1a",
        b"0",
        b"abcdefgh",
        b"\xe9",
    ];
    for key in keys {
        for tail in [&[][..], &[0xff; 9], &[b'9'; 9], &[0; 3]] {
            let bytes = [key, tail].concat();
            assert_eq!(
                order_key(&bytes, 0, key.len()),
                narrow_order_key(key),
                "{key:?}, then {tail:?}"
            );
        }
    }
}

#[test]
fn what_needs_the_tape_is_left_to_it() {
    let pieces = Pieces {
        narrow: &[b"key"],
        wide: &[],
    };
    let wide_key = object(&[("ā", &|out| out.push(NULL))]);
    let twice = object(&[("a", &|out| out.push(NULL)), ("a", &|out| out.push(TRUE))]);
    let absent = object(&[("a", &|out| out.push(ABSENT)), ("b", &|out| out.push(TRUE))]);
    let long_key = sized(&[OBJECT, LONG, 0, NULL, END]);
    for bytes in [sized(&wide_key), sized(&twice), sized(&absent), long_key] {
        let (_, direct) = forms(&bytes, pieces);
        assert_eq!(direct, None, "{bytes:?}");
    }
}

#[test]
fn a_malformed_transport_is_left_to_the_tape_reader() {
    let mut block = Vec::new();
    let mut digester = Digester::new(&mut block, TOOL);
    for bytes in [
        &[][..],
        &[ABSENT],
        &[NULL, NULL],
        &[ARRAY, 1, 0, 0, 0, NULL, END],
        &[ARRAY, 8, 0, 0, 0, ARRAY, 1, 0, 0, 0, NULL, END, END],
        &[OBJECT, 4, 0, 0, 0, NARROW, 1, b'a', END],
        &[OBJECT, 6, 0, 0, 0, NARROW, 1, b'a', ARRAY, END],
        &[OBJECT, 1, 0, 0, 0, END, NULL],
        &[NARROW, 0x80, 0],
        &[WIDE, 1, b'a', 0],
        &[LONG, 0],
    ] {
        digester.restart(TOOL);
        let written = write(bytes, Pieces::NONE, &mut digester, &mut Buffers::default());
        assert_eq!(written, None, "{bytes:?}");
    }
}
