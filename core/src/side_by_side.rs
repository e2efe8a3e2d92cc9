//! Two transports (`transport`) read side by side, to tell without
//! canonicalizing either that their canonical values certainly differ. The
//! guard asks it about an agent's call and the call before, which the chain
//! keeps (`last_call`): a call that is not a repeat mostly differs from the last
//! one in a value at the same place, found here long before a key form could
//! be written and hashed.
//!
//! The read finds the first byte where the two differ (sixteen bytes a step),
//! then steps down to it from the top, over the members and elements before
//! it, which are the same on both sides. The values found there certainly
//! differ when JSON writes them differently: numbers other than `-0` and `0`,
//! strings, `true` and `false`, values of different kinds, arrays of
//! different lengths; and each member on the way down has a key that does not
//! come again later in its object (a later duplicate would win). Anything
//! else is left to the keys: a key that differs (members in another order, or
//! one more), a member absent on one side, numbers JSON writes alike.
//!
//! The call kept must be well formed. The new call is checked as the
//! transport reader checks it, from where it differs on (what comes before is
//! the call kept's): a call said to differ is well formed. Every read is
//! checked, and anything unexpected is "not certain".

use crate::form::string_span;
use crate::key_form::json_number;
use crate::transport::tag::{ABSENT, ARRAY, END, FALSE, NARROW, NULL, NUMBER, OBJECT, TRUE, WIDE};
use crate::transport::{container_end, value_end, well_formed_from, Open, SIZE_BYTES};

/// What a side-by-side read tells of two calls' transports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The same bytes.
    Same,
    /// Values that certainly differ, the new call well formed.
    Differ,
    /// Neither: left to the keys.
    Unknown,
}

/// Whether the transports `kept`, well formed, and `call` are the same bytes,
/// or have canonical values that certainly differ, `call` being well formed
/// too (checked here: from the first difference on, the bytes before it being
/// `kept`'s). `open` is room for the containers around the difference.
pub(crate) fn compare(kept: &[u8], call: &[u8], open: &mut Vec<Open>) -> Verdict {
    open.clear();
    let first = first_difference(kept, call, 0);
    if first == kept.len() && first == call.len() {
        return Verdict::Same;
    }
    match descend(kept, call, first, open) {
        Some((true, start)) if well_formed_from(call, start, open) => Verdict::Differ,
        _ => Verdict::Unknown,
    }
}

/// Steps down from the top of `a` and `b` to their first difference, at
/// `first`: whether the values there certainly differ, and where the member or element holding
/// them starts, `open` holding `b`'s containers around it. `None` where a read fails.
fn descend(a: &[u8], b: &[u8], mut first: usize, open: &mut Vec<Open>) -> Option<(bool, usize)> {
    // The value both sides hold at `at` (the same bytes before `first`), whether it is an
    // array's element (where an absent value is `null`), and where its member starts.
    let (mut at, mut element, mut start) = (0, false, 0);
    loop {
        if first == at {
            return Some((kinds_differ(a, b, at, element), start));
        }
        let tag = *a.get(at)?;
        match tag {
            ARRAY | OBJECT => {
                // Sizes that differ: the contents differ further on.
                if first < at + 1 + SIZE_BYTES {
                    first = first_difference(a, b, at + 1 + SIZE_BYTES);
                }
                let object = tag == OBJECT;
                let (a_end, b_end) = (container_end(a, at)?, container_end(b, at)?);
                open.push(Open { object, end: b_end });
                let mut member = at + 1 + SIZE_BYTES;
                // Step over what comes before the first difference.
                loop {
                    if first == member {
                        // Where one side ends or holds another kind of value. A key that
                        // differs, or a member more, may be members in another order.
                        let differ = kinds_differ(a, b, member, true);
                        return Some((!object && differ, member));
                    }
                    // An object member's key (whether wide, where its code units start), and the value.
                    let (key, value) = if object {
                        let (wide, start, key_end) = string_span(a, member).ok()?;
                        if first < key_end {
                            return Some((false, member));
                        }
                        (Some((wide, start)), key_end)
                    } else {
                        (None, member)
                    };
                    let value_ends = value_end(a, value)?;
                    if value_ends <= first {
                        member = value_ends;
                        continue;
                    }
                    // The difference is in this value: certain only if its key comes no more.
                    if let Some((wide, start)) = key {
                        let name = (wide, a.get(start..value)?);
                        if met_again(a, value_ends, a_end, name)
                            || met_again(b, value_end(b, value)?, b_end, name)
                        {
                            return Some((false, member));
                        }
                    }
                    (at, element, start) = (value, !object, member);
                    break;
                }
            }
            // The same kind of scalar, other bytes: a string with other code units, or another
            // number (but `-0` and `0`, and numbers JSON writes as `null`).
            NARROW | WIDE => return Some((true, start)),
            NUMBER => {
                let (x, y) = (number(a, at)?, number(b, at)?);
                return Some((json_number(x) != json_number(y), start));
            }
            _ => return Some((false, start)),
        }
    }
}

/// The first index from `from` where `a` and `b` differ, or where the shorter one ends.
fn first_difference(a: &[u8], b: &[u8], from: usize) -> usize {
    let end = a.len().min(b.len());
    let (Some(a), Some(b)) = (a.get(from..end), b.get(from..end)) else {
        return from;
    };
    // Sixteen bytes a step: the common part of two calls is most of them.
    let ((a_blocks, a_rest), (b_blocks, b_rest)) = (a.as_chunks::<16>(), b.as_chunks::<16>());
    let mut at = from;
    for (x, y) in a_blocks.iter().zip(b_blocks) {
        let diff = u128::from_le_bytes(*x) ^ u128::from_le_bytes(*y);
        if diff != 0 {
            return at + (diff.trailing_zeros() / 8) as usize;
        }
        at += 16;
    }
    at + a_rest
        .iter()
        .zip(b_rest)
        .take_while(|(x, y)| x == y)
        .count()
}

/// The number whose tag is at `at`.
fn number(bytes: &[u8], at: usize) -> Option<f64> {
    Some(f64::from_le_bytes(
        *bytes.get(at + 1..)?.first_chunk::<8>()?,
    ))
}

/// What JSON makes of the value whose tag is at `at`; an array's element when `element`.
#[derive(PartialEq, Eq)]
enum Kind {
    Null,
    False,
    True,
    Number,
    Text,
    Array,
    Object,
    /// A member's value without JSON form: the member is left out.
    Absent,
    /// No value: the container's end.
    End,
}

fn kind(bytes: &[u8], at: usize, element: bool) -> Option<Kind> {
    Some(match *bytes.get(at)? {
        ABSENT if !element => Kind::Absent,
        NUMBER if json_number(number(bytes, at)?).is_some() => Kind::Number,
        // Numbers JSON writes as `null` (NaN, infinities), and an element without JSON form.
        NULL | ABSENT | NUMBER => Kind::Null,
        FALSE => Kind::False,
        TRUE => Kind::True,
        // A string has one transport form: a wide one holds a code unit a narrow one cannot.
        NARROW | WIDE => Kind::Text,
        ARRAY => Kind::Array,
        OBJECT => Kind::Object,
        END => Kind::End,
        _ => return None,
    })
}

/// Whether the values at `at`, whose first bytes differ, are certainly of different kinds.
fn kinds_differ(a: &[u8], b: &[u8], at: usize, element: bool) -> bool {
    match (kind(a, at, element), kind(b, at, element)) {
        (Some(Kind::Text), Some(Kind::Text)) => true,
        (Some(Kind::Absent), _) | (_, Some(Kind::Absent)) => false,
        (Some(x), Some(y)) => x != y,
        _ => false,
    }
}

/// Whether the members from `at` of the object ending at `end` may hold the key
/// `name` (its code units as the transport holds them, and whether they are wide) again.
#[inline]
fn met_again(bytes: &[u8], mut at: usize, end: usize, (wide, name): (bool, &[u8])) -> bool {
    while at + 1 < end {
        let Ok((other_wide, start, key_end)) = string_span(bytes, at) else {
            return true;
        };
        let other = bytes.get(start..key_end).unwrap_or_default();
        if other_wide == wide && other == name {
            return true;
        }
        let Some(next) = value_end(bytes, key_end) else {
            return true;
        };
        at = next;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arguments::Arguments;
    use crate::form::push_string;
    use crate::key::call_key;
    use crate::scratch::Scratch;
    use crate::transport::{check, sized};

    /// A value written as a transport: `{`, `}`, `[`, `]`, numbers, `n` (null), `t`, `f`, `u`
    /// (absent) and other words (strings), separated by spaces. Members are key-value pairs.
    fn transport(text: &str) -> Vec<u8> {
        let mut out = Vec::new();
        for word in text.split_whitespace() {
            match word {
                "{" => out.push(OBJECT),
                "[" => out.push(ARRAY),
                "}" | "]" => out.push(END),
                "n" => out.push(NULL),
                "t" => out.push(TRUE),
                "f" => out.push(FALSE),
                "u" => out.push(ABSENT),
                _ => match word.parse::<f64>() {
                    Ok(number) => {
                        out.push(NUMBER);
                        out.extend(number.to_le_bytes());
                    }
                    Err(_) => {
                        let units: Vec<u16> = word.trim_matches('"').encode_utf16().collect();
                        push_string(&mut out, &units);
                    }
                },
            }
        }
        sized(&out)
    }

    /// Whether the two values are said to differ, checked against their keys, both ways round.
    fn said_to_differ(a: &str, b: &str) -> bool {
        let (a, b) = (transport(a), transport(b));
        for bytes in [&a, &b] {
            assert!(check(bytes, &mut Vec::new()).is_ok(), "{bytes:?}");
        }
        let key = |bytes| {
            let arguments = Arguments::Transport(bytes);
            call_key(&[0x74], arguments, &mut Scratch::default()).unwrap()
        };
        let open = &mut Vec::new();
        let verdict = compare(&a, &b, open);
        assert_ne!(verdict, Verdict::Same, "not the same bytes");
        let said = verdict == Verdict::Differ;
        assert!(
            !said || key(&a) != key(&b),
            "said to differ, with the same key"
        );
        assert_eq!(compare(&b, &a, open), verdict, "not symmetric");
        said
    }

    #[test]
    fn first_difference_is_the_first_byte_that_differs_or_the_shorter_end() {
        let naive = |a: &[u8], b: &[u8], from: usize| {
            (from..a.len().min(b.len()))
                .find(|&at| a[at] != b[at])
                .unwrap_or(from.max(a.len().min(b.len())))
        };
        let base: Vec<u8> = (0..40u8).collect();
        for len in 0..=40_usize {
            for other_len in [0, len.saturating_sub(1), len, 40] {
                for changed in 0..=other_len {
                    let a = &base[..len];
                    let mut b = base[..other_len].to_vec();
                    if let Some(byte) = b.get_mut(changed) {
                        *byte ^= 0x80;
                    }
                    for from in [0, 1, 17, 45] {
                        assert_eq!(
                            first_difference(a, &b, from),
                            naive(a, &b, from),
                            "{len} {other_len} {changed} {from}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_malformed_call_is_never_said_to_differ() {
        let kept = transport("{ a [ 1 2 ] b { c x } d 0 }");
        let call = transport("{ a [ 1 3 ] b { c x } d 0 }");
        let open = &mut Vec::new();
        assert_eq!(compare(&kept, &call, open), Verdict::Differ);
        assert_eq!(compare(&kept, &kept.clone(), open), Verdict::Same);
        let at = |bytes: &[u8], tag| bytes.iter().rposition(|&b| b == tag).unwrap();
        let mut cut = call.clone();
        cut.pop();
        let mut longer = call.clone();
        longer.push(NULL);
        let mut bad_tag = call.clone();
        bad_tag[at(&call, NUMBER)] = 0xee;
        let mut inner_size = call.clone();
        inner_size[at(&call, OBJECT) + 1] += 1;
        let mut root_size = call.clone();
        root_size[1] -= 1;
        let mut bad_key = call.clone();
        bad_key[at(&call, b'd') - 1] = 7;
        for malformed in [cut, longer, bad_tag, inner_size, root_size, bad_key] {
            assert!(check(&malformed, open).is_err(), "{malformed:?}");
            assert_eq!(
                compare(&kept, &malformed, open),
                Verdict::Unknown,
                "{malformed:?}"
            );
        }
    }

    #[test]
    fn a_value_changed_in_place_differs() {
        for (a, b) in [
            ("{ q a k 1 }", "{ q a k 2 }"),
            ("{ q abc k 1 }", "{ q abd k 1 }"),
            ("{ q abc k 1 }", "{ q abcd k 1 }"),
            ("{ q t }", "{ q f }"),
            ("{ q n }", "{ q 0 }"),
            ("{ q NaN }", "{ q 0 }"),
            ("{ q 1 }", "{ q \"1\" }"),
            ("{ q [ 1 2 ] }", "{ q [ 1 2 3 ] }"),
            ("{ q [ 1 2 ] }", "{ q { } }"),
            ("{ q [ ] }", "{ q n }"),
            ("[ u ]", "[ 0 ]"),
            ("[ a ]", "[ ā ]"),
            ("{ a { b { c 1 } } z 0 }", "{ a { b { c 2 } } z 0 }"),
            ("{ a { b [ x y ] } z 0 }", "{ a { b [ x yy ] } z 0 }"),
            ("{ a 1 b 2 }", "{ a 3 b 2 }"),
            ("\"ā\"", "\"āā\""),
        ] {
            assert!(said_to_differ(a, b), "{a} against {b}");
        }
    }

    #[test]
    fn what_a_side_by_side_read_cannot_tell_is_not_said_to_differ() {
        for (a, b) in [
            // Values JSON writes alike.
            ("{ q -0 }", "{ q 0 }"),
            ("[ NaN ]", "[ n ]"),
            ("[ u ]", "[ n ]"),
            ("{ q NaN }", "{ q Infinity }"),
            // Another order, or a member absent on one side: the same values, maybe.
            ("{ a 1 b 2 }", "{ b 2 a 1 }"),
            ("{ a 1 b u }", "{ a 1 }"),
            ("{ a 1 b u }", "{ a 1 b 2 }"),
            ("{ a 1 }", "{ a 1 b 2 }"),
            ("{ a 1 }", "{ b 1 }"),
            // A key met again later wins over the difference.
            ("{ a 1 a 2 }", "{ a 3 a 2 }"),
            ("{ a { x 1 } a 2 }", "{ a { x 3 } a 2 }"),
            ("{ a 1 b 0 }", "{ a 3 b 0 a 1 }"),
        ] {
            assert!(!said_to_differ(a, b), "{a} against {b}");
        }
    }
}
