//! `key_form`'s own cases; the canonical rules are also held by the golden vectors and the fuzz targets.

use crate::arguments::Arguments;
use crate::form::push_string;
use crate::form::tag::{ARRAY, END, NULL, OBJECT, TRUE};
use crate::ignore::KeyPath;
use crate::scratch::Scratch;
use crate::transport::sized;
use crate::transport::tag::ABSENT;

fn key(out: &mut Vec<u8>, text: &str) {
    push_string(out, &text.encode_utf16().collect::<Vec<_>>());
}

/// The canonical text of the transport `bytes` (written without sizes) without `paths`,
/// and the paths that left something out.
fn without(bytes: &[u8], paths: &[&str]) -> (String, Vec<String>) {
    let paths: Vec<KeyPath> = paths
        .iter()
        .map(|p| KeyPath::parse(&p.encode_utf16().collect::<Vec<_>>()).unwrap())
        .collect();
    let mut out = String::new();
    let removed = Arguments::Transport(&sized(bytes))
        .write_canonical_without(&mut out, &paths, &mut Scratch::default())
        .unwrap();
    let removed = removed
        .iter()
        .map(|p| String::from_utf16_lossy(p))
        .collect();
    (out, removed)
}

#[test]
fn a_path_meets_a_member_after_duplicates_and_absent_members_are_resolved() {
    // {"a": true, "a": null, "b": undefined, "c": [{"a": true}]}
    let mut bytes = vec![OBJECT];
    key(&mut bytes, "a");
    bytes.push(TRUE);
    key(&mut bytes, "a");
    bytes.push(NULL);
    key(&mut bytes, "b");
    bytes.push(ABSENT);
    key(&mut bytes, "c");
    bytes.extend([ARRAY, OBJECT]);
    key(&mut bytes, "a");
    bytes.extend([TRUE, END, END, END]);
    // The later "a" wins and is left out; "b" has no JSON form, so nothing named "b" is
    // left out; paths do not reach into arrays.
    assert_eq!(
        without(&bytes, &["a", "b", "c.a"]),
        ("{\"c\":[{\"a\":true}]}".to_owned(), vec!["a".to_owned()])
    );
    assert_eq!(
        without(&bytes, &[]),
        ("{\"a\":null,\"c\":[{\"a\":true}]}".to_owned(), vec![])
    );
}

#[test]
fn a_path_names_a_long_key() {
    let long = "k".repeat(200);
    // {<long>: {"x": true, "y": null}, "z": true}
    let mut bytes = vec![OBJECT];
    key(&mut bytes, &long);
    bytes.push(OBJECT);
    key(&mut bytes, "x");
    bytes.push(TRUE);
    key(&mut bytes, "y");
    bytes.extend([NULL, END]);
    key(&mut bytes, "z");
    bytes.extend([TRUE, END]);
    let path = format!("{long}.y");
    assert_eq!(
        without(&bytes, &[&path, "z.x"]),
        (
            format!("{{\"{long}\":{{\"x\":true}},\"z\":true}}"),
            vec![path.clone()]
        )
    );
}
