//! The plugin's hot path, two internal functions (the public API is
//! `RepeatToolGuard`):
//! - `__observeEncoded(buffer, pieces, widePieces)`: `encode.js` writes a call
//!   into one `ArrayBuffer`, `buffer`: a header of [`HEADER`] `f64`s (the
//!   guard's handle, the bytes written, the number of pieces of each kind,
//!   where the result starts), then bytes in the transport's encoding
//!   (`core/src/transport.rs`): the agent id, the tool name, the arguments as
//!   JavaScript holds them, and, when the guard reads results, the tool
//!   result's `{ content, isError }`. Strings long enough that passing them as
//!   they are beats copying them in JavaScript come in `pieces`
//!   (`[string, …]`, each code unit at most 0xff, as `encode.js` checks, read
//!   one byte each) and `widePieces` (read as UTF-16). The core checks every
//!   byte and canonicalizes the value before it counts the call.
//! - `__observeAgain(handle)`: counts a call whose arguments the plugin found
//!   equal to the last call's (same agent and tool), from what the guard kept
//!   of that call; `false` when the guard cannot count the call so.
//!
//! Each returns the reminder; with none, `null` when the call repeated its
//! agent's last one (the plugin looks for the next repeat only after one),
//! else `undefined`.
//!
//! Both are plain Node-API callbacks that use napi-rs' conversions: a
//! `#[napi]` function would also set up napi-rs' borrow tracking on every
//! call, which costs more than the rest of a small call.
//!
//! The one rule that keeps the borrowed buffer sound: no JavaScript runs while
//! its bytes are borrowed. Reading a piece may run JavaScript (a getter that
//! detaches the buffer, say), so the pieces are read first and the buffer is
//! looked up after them; the answer, whose conversion may run JavaScript (a
//! setter on `Object.prototype`), owns everything it holds.

use std::ptr;

use napi::bindgen_prelude::{
    ArrayBuffer, CallbackInfo, FromNapiValue, JsObjectValue, Latin1String, Null, Object,
    ToNapiValue, Unknown, Utf16String,
};
use napi::sys::{napi_callback_info, napi_env, napi_value};
use napi::{Error, JsError, Result, Status, ValueType};
use repeat_tool_guard_core::{Arguments, Call, CanonicalError, Pieces};

use crate::header::{
    malformed, out_of_range, whole, HANDLE, HEADER, LENGTH, PIECES, RESULT_START, WIDE_PIECES,
};
use crate::prefix::Prefix;
use crate::registry;
use crate::reminder::Reminder;

/// Where the bytes start.
const BYTES: usize = HEADER * size_of::<f64>();

/// Exports `__observeEncoded` and `__observeAgain` on the module's `exports`.
pub fn register(exports: &mut Object) -> Result<()> {
    exports.create_c_named_method(c"__observeEncoded", observe_encoded_callback)?;
    exports.create_c_named_method(c"__observeAgain", observe_again_callback)
}

unsafe extern "C" fn observe_encoded_callback(
    env: napi_env,
    info: napi_callback_info,
) -> napi_value {
    let answer = CallbackInfo::<3>::new(env, info, None, false).and_then(|call| {
        // SAFETY: each is an argument of this call, in its `env`.
        let [buffer, narrow, wide] =
            [0, 1, 2].map(|at| unsafe { Unknown::from_raw_unchecked(env, call.get_arg(at)) });
        observe_encoded(buffer, narrow, wide)
    });
    // SAFETY: `env` is the one Node-API called this function with.
    unsafe { respond(env, answer) }
}

unsafe extern "C" fn observe_again_callback(env: napi_env, info: napi_callback_info) -> napi_value {
    let answer = CallbackInfo::<1>::new(env, info, None, false).and_then(|call| {
        // SAFETY: the argument of this call, in its `env`.
        let handle = unsafe { f64::from_napi_value(env, call.get_arg(0)) }?;
        observe_again(handle)
    });
    // SAFETY: `env` is the one Node-API called this function with.
    unsafe { respond(env, answer) }
}

/// `answer` as the callback's value, or thrown.
///
/// # Safety
/// `env` must be the env of the Node-API call being answered.
unsafe fn respond(env: napi_env, answer: Result<Answer>) -> napi_value {
    // SAFETY: `env` is the call's, as the caller promises.
    match answer.and_then(|answer| unsafe { Answer::to_napi_value(env, answer) }) {
        Ok(value) => value,
        Err(error) => {
            // SAFETY: as above.
            unsafe { JsError::from(error).throw_into(env) };
            ptr::null_mut()
        }
    }
}

fn observe_encoded(buffer: Unknown, narrow: Unknown, wide: Unknown) -> Result<Answer> {
    let counts = {
        let bytes = array_buffer(&buffer)?;
        let header = header_of(&bytes)?;
        let counts = [PIECES, WIDE_PIECES].map(|slot| header[slot]);
        if counts == [0.0, 0.0] {
            return observe_call(&bytes, header, Pieces::NONE);
        }
        // The bytes are not borrowed past here.
        counts
    };
    let narrow: Vec<Latin1String> = read_pieces(narrow, whole(counts[0], "piece count")?)?;
    let wide: Vec<Utf16String> = read_pieces(wide, whole(counts[1], "wide piece count")?)?;
    // Reading the pieces may have run JavaScript: the buffer is looked up again, and its header
    // read again.
    let bytes = array_buffer(&buffer)?;
    let header = header_of(&bytes)?;
    let narrow: Vec<&[u8]> = narrow.iter().map(|piece| &**piece).collect();
    let wide: Vec<&[u16]> = wide.iter().map(|piece| &**piece).collect();
    let pieces = Pieces {
        narrow: &narrow,
        wide: &wide,
    };
    observe_call(&bytes, header, pieces)
}

/// `buffer`'s bytes.
fn array_buffer<'a>(buffer: &Unknown<'a>) -> Result<ArrayBuffer<'a>> {
    // SAFETY: Node-API's napi_get_arraybuffer_info, which the conversion calls, checks that the
    // value is an ArrayBuffer.
    unsafe { buffer.cast::<ArrayBuffer>() }.map_err(|_| {
        let expected = match buffer.get_type() {
            Ok(ValueType::Undefined) => {
                "__observeEncoded takes 3 arguments: buffer, pieces, widePieces"
            }
            _ => "expected an ArrayBuffer",
        };
        Error::new(Status::InvalidArg, format!("repeat-tool-guard: {expected}"))
    })
}

/// A copy of the header at the start of `buffer`.
fn header_of(buffer: &[u8]) -> Result<[f64; HEADER]> {
    let (words, _) = buffer
        .first_chunk::<BYTES>()
        .ok_or_else(|| out_of_range("header"))?
        .as_chunks::<8>();
    // `encode.js` writes them through a `Float64Array`: in the machine's byte order.
    Ok(std::array::from_fn(|slot| {
        words
            .get(slot)
            .map_or(0.0, |word| f64::from_ne_bytes(*word))
    }))
}

/// The strings of `list` (`[string, …]`); none are read when the header says there are none.
/// How many there are is checked against the header once the buffer is read again.
fn read_pieces<T: FromNapiValue>(list: Unknown, count: usize) -> Result<Vec<T>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: the conversion checks that the value is an array (napi_get_array_length fails on
    // anything else) and that each element is a string.
    unsafe { list.cast::<Vec<T>>() }.map_err(|error| match error.status {
        Status::ArrayExpected | Status::ObjectExpected => Error::new(
            Status::InvalidArg,
            "repeat-tool-guard: expected the pieces, arrays of strings".to_owned(),
        ),
        _ => error,
    })
}

/// Observes the call in `buffer` (`header` read from it) with its `pieces`.
fn observe_call(buffer: &[u8], header: [f64; HEADER], pieces: Pieces<'_>) -> Result<Answer> {
    let [handle, length, narrow, wide, result_at] =
        [HANDLE, LENGTH, PIECES, WIDE_PIECES, RESULT_START].map(|slot| header[slot]);
    let length = whole(length, "length")?;
    let bytes = buffer
        .get(BYTES..)
        .and_then(|bytes| bytes.get(..length))
        .ok_or_else(|| out_of_range("length"))?;
    let counts = [
        whole(narrow, "piece count")?,
        whole(wide, "wide piece count")?,
    ];
    // Read again: JavaScript run while the pieces were read may have changed the header.
    if counts != [pieces.narrow.len(), pieces.wide.len()] {
        return Err(Error::new(
            Status::InvalidArg,
            "repeat-tool-guard: the pieces are not as many as the header says".to_owned(),
        ));
    }
    let result_at = whole(result_at, "result start")?;
    registry::with_prefix(handle, |guard, prefix| {
        let call = call_in(bytes, prefix, result_at, guard.takes_results(), pieces)?;
        let observed = guard.observe(call);
        Answer::of(observed, guard.repeated())
    })
    .map_err(failed)?
}

/// The call `bytes` hold: the agent id and tool name (`prefix` reads them),
/// the arguments, and from `result_at` (0: none) the tool result.
fn call_in<'a>(
    bytes: &'a [u8],
    prefix: &'a mut Prefix,
    result_at: usize,
    takes_results: bool,
    pieces: Pieces<'a>,
) -> Result<Call<'a>> {
    let (agent, tool, arguments_at) = prefix.read(bytes)?;
    let (arguments, result) = match result_at {
        0 => (bytes.get(arguments_at..), None),
        _ if !takes_results => return Err(malformed("call: a result without sameResultOnly")),
        _ if result_at < arguments_at => return Err(out_of_range("result start")),
        _ => (bytes.get(arguments_at..result_at), bytes.get(result_at..)),
    };
    let transport = |bytes| Arguments::Transport { bytes, pieces };
    let arguments = arguments.ok_or_else(|| out_of_range("result start"))?;
    // The plugin calls this only for tools its cache already found tracked.
    Ok(Call::new(agent, tool, transport(arguments))
        .with_result(result.map(transport))
        .known_tracked())
}

fn observe_again(handle: f64) -> Result<Answer> {
    registry::with(handle, |guard| match guard.observe_again() {
        Some(observed) => Answer::of(observed, guard.repeated()),
        None => Ok(Answer::Unable),
    })
    .map_err(failed)?
}

/// What a call gives JavaScript.
pub enum Answer {
    /// No reminder, and the call repeated its agent's last one: `null`.
    Repeated,
    /// No reminder: `undefined`.
    Quiet,
    Reminder(Reminder),
    /// `__observeAgain` could not count the call: `false`.
    Unable,
}

impl Answer {
    fn of(
        observed: std::result::Result<Option<repeat_tool_guard_core::Reminder>, CanonicalError>,
        repeated: bool,
    ) -> Result<Self> {
        Ok(match observed.map_err(failed)? {
            None if repeated => Answer::Repeated,
            None => Answer::Quiet,
            Some(reminder) => Answer::Reminder(reminder.into()),
        })
    }
}

impl ToNapiValue for Answer {
    unsafe fn to_napi_value(env: napi_env, answer: Self) -> Result<napi_value> {
        // SAFETY: `env` is the one napi-rs called this function with.
        unsafe {
            match answer {
                Answer::Repeated => Null::to_napi_value(env, Null),
                // No value is `undefined` to Node-API: cheaper than asking for it.
                Answer::Quiet => Ok(ptr::null_mut()),
                Answer::Reminder(reminder) => Reminder::to_napi_value(env, reminder),
                Answer::Unable => bool::to_napi_value(env, false),
            }
        }
    }
}

/// The guard's error (a disposed guard, a call it cannot canonicalize) as JavaScript's `Error`.
#[cold]
fn failed(error: impl std::fmt::Display) -> Error {
    Error::new(Status::GenericFailure, error.to_string())
}
