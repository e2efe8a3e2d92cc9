//! The layout of the buffer `lib/encode.js` writes a call into: a
//! header of [`HEADER`] `f64`s, then the bytes: the agent id and the tool
//! name as transport strings, the arguments, and with `sameResultOnly` the
//! tool result (`repeat_tool_guard_core::transport_tag`'s encoding).
//!
//! The constants live here once. `lib/encode.js` carries a copy between its
//! `BEGIN HEADER` and `END HEADER` lines that this module's test renders from
//! them and compares: `UPDATE_HEADER=1 cargo test -p repeat-tool-guard header`
//! writes it after a change.

/// Header slot: the guard's handle.
pub(crate) const HANDLE: usize = 0;
/// Header slot: how many bytes follow the header.
pub(crate) const LENGTH: usize = 1;
/// Header slot: where among the bytes the tool result starts (0: none).
pub(crate) const RESULT_START: usize = 2;
/// The header's length, in `f64`s.
pub(crate) const HEADER: usize = 3;

use napi::{Error, Result, Status};

/// A number as a length: a whole, non-negative number.
#[inline]
pub(crate) fn whole(value: f64, what: &str) -> Result<usize> {
    // `as` saturates (NaN gives 0): it gives back the same number only for a whole one in range.
    let length = value as u32;
    if f64::from(length) == value {
        Ok(length as usize)
    } else {
        Err(out_of_range(what))
    }
}

#[cold]
pub(crate) fn out_of_range(what: &str) -> Error {
    Error::new(
        Status::InvalidArg,
        format!("repeat-tool-guard: {what} out of range"),
    )
}

#[cold]
pub(crate) fn malformed(what: &str) -> Error {
    Error::new(
        Status::InvalidArg,
        format!("repeat-tool-guard: malformed {what}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use repeat_tool_guard_core::transport_tag as tag;

    /// The constants as `lib/encode.js` declares them.
    fn javascript() -> String {
        use std::fmt::Write;

        let tags = [
            ("NULL", tag::NULL),
            ("FALSE", tag::FALSE),
            ("TRUE", tag::TRUE),
            ("NUMBER", tag::NUMBER),
            ("NARROW", tag::NARROW),
            ("WIDE", tag::WIDE),
            ("ARRAY", tag::ARRAY),
            ("OBJECT", tag::OBJECT),
            ("END", tag::END),
            ("ABSENT", tag::ABSENT),
        ];
        let slots = [
            ("HANDLE", HANDLE),
            ("LENGTH", LENGTH),
            ("RESULT_START", RESULT_START),
        ];
        let mut out = String::from("// The transport's tags (core/src/transport.rs).\n");
        for (name, value) in tags {
            writeln!(out, "const {name} = {value}").unwrap();
        }
        out += "// The bytes of a container's size, after its tag: a Uint32, little-endian.\n";
        writeln!(
            out,
            "const SIZE_BYTES = {}",
            repeat_tool_guard_core::TRANSPORT_SIZE_BYTES
        )
        .unwrap();
        out += "// The header's slots and its length, in numbers (src/header.rs).\n";
        for (name, value) in slots {
            writeln!(out, "const {name} = {value}").unwrap();
        }
        writeln!(out, "export const HEADER = {HEADER}").unwrap();
        out
    }

    #[test]
    fn encode_js_declares_the_header_constants_as_rust_does() {
        const BEGIN: &str = "// BEGIN HEADER: generated from src/header.rs, checked by its test\n";
        const END: &str = "// END HEADER\n";
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/lib/encode.js");
        let source = std::fs::read_to_string(path).expect("lib/encode.js");
        let start = source.find(BEGIN).expect("the BEGIN HEADER line") + BEGIN.len();
        let end = start + source[start..].find(END).expect("the END HEADER line");
        let expected = javascript();
        if std::env::var_os("UPDATE_HEADER").is_some() {
            let updated = format!("{}{expected}{}", &source[..start], &source[end..]);
            std::fs::write(path, updated).expect("lib/encode.js written");
            return;
        }
        assert_eq!(
            source[start..end],
            expected,
            "lib/encode.js's header constants differ from Rust's: run UPDATE_HEADER=1 cargo test -p repeat-tool-guard header"
        );
    }
}
