//! Getting a call's arguments into Rust.
//!
//! A string argument (the loop's fallback for malformed JSON) is read as UTF-16
//! and escaped here. Anything else goes through V8's own `JSON.stringify`, which
//! applies JSON's rules (`toJSON`, dropped `undefined`, …) faster than any walk
//! through Node-API could; its text is then key-sorted by the core. When V8
//! gives up on depth (near 10,000 levels), [`deep_json`] builds the same text
//! with an explicit stack.

use std::cell::Cell;

use napi::sys::napi_value;
use napi::Result;
use repeat_tool_guard_core::Arguments;

use crate::deep_json;
use crate::js::{ErrorClass, Js};
use crate::kind::Kind;

/// Arguments read out of JavaScript, owning their text.
pub enum ArgumentsText {
    Json(String),
    Text(Vec<u16>),
}

impl ArgumentsText {
    pub fn as_arguments(&self) -> Arguments<'_> {
        match self {
            ArgumentsText::Json(text) => Arguments::Json(text),
            ArgumentsText::Text(units) => Arguments::Text(units),
        }
    }
}

thread_local! {
    /// How many reads are under way on this thread: a `toJSON` may read again.
    static READING: Cell<u32> = const { Cell::new(0) };
}

/// Reads nested deeper than this (a `toJSON` that reads its own object again, and again) end
/// in a `RangeError`, well before the stack would: how a stack overflow unwinds through
/// Node-API differs between builds (on the WASI build, emnapi may find its handle scopes
/// unbalanced and throw its own error instead).
const MAX_NESTED_READS: u32 = 100;

/// Counts one read for as long as it lives.
struct Reading;

impl Reading {
    /// Starts a read; its depth, 1 when no other read is under way.
    fn start() -> (Self, u32) {
        let depth = READING.with(|r| {
            r.set(r.get().saturating_add(1));
            r.get()
        });
        (Reading, depth)
    }
}

impl Drop for Reading {
    fn drop(&mut self) {
        READING.with(|r| r.set(r.get().saturating_sub(1)));
    }
}

pub fn read(js: &mut Js, value: napi_value) -> Result<ArgumentsText> {
    if js.kind(value)? == Kind::String {
        return Ok(ArgumentsText::Text(js.utf16(value)?));
    }
    // A read inside a read (a toJSON canonicalizing again) never falls back to the deep walk:
    // that would call the same toJSON again and again. Its stack overflow goes to the caller,
    // as JSON.stringify's does.
    let (_reading, depth) = Reading::start();
    if depth > MAX_NESTED_READS {
        return Err(js.throw(
            ErrorClass::RangeError,
            &format!("repeat-tool-guard: arguments read again from within their own reading, more than {MAX_NESTED_READS} deep (a toJSON that canonicalizes its own object?)"),
        ));
    }
    let outermost = depth == 1;
    let json = js.named(js.global()?, c"JSON")?;
    let stringify = js.named(json, c"stringify")?;
    let text = match js.call(stringify, json, &[value]) {
        Ok(text) => (js.kind(text)? == Kind::String)
            .then(|| js.utf8(text))
            .transpose()?,
        Err(error) => {
            let Some(exception) = js.take_exception() else {
                return Err(error);
            };
            if !outermost || !js.is_stack_overflow(exception) {
                return Err(js.rethrow(exception));
            }
            deep_json::to_json(js, value)?
        }
    };
    match text {
        Some(text) => Ok(ArgumentsText::Json(text)),
        None => {
            let kind = js.kind(value)?.name();
            Err(js.throw(
                ErrorClass::TypeError,
                &format!("repeat-tool-guard: arguments of type {kind} have no JSON form"),
            ))
        }
    }
}
