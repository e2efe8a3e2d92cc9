//! The plugin's hot path, two internal functions (the public API is
//! `RepeatToolGuard`):
//! - `__observeEncoded(buffer)`: `encode.js` writes a call into one
//!   `ArrayBuffer`, `buffer`: a header of [`HEADER`] `f64`s (the guard's
//!   handle, the bytes written, where the result starts), then bytes in the
//!   transport's encoding (`core/src/transport.rs`): the agent id, the tool
//!   name, the arguments as JavaScript holds them, and, when the guard reads
//!   results, the tool result's `{ content, isError }`. The core checks every
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
//! its bytes are borrowed. The answer, whose conversion may run JavaScript (a
//! setter on `Object.prototype`), owns everything it holds.

use std::ptr;

use napi::bindgen_prelude::{
    ArrayBuffer, CallbackInfo, FromNapiValue, JsObjectValue, Null, Object, ToNapiValue, Unknown,
};
use napi::sys::{napi_callback_info, napi_env, napi_value};
use napi::{Error, JsError, Result, Status, ValueType};
use repeat_tool_guard_core::{Arguments, Call, CanonicalError};

use crate::header::{malformed, out_of_range, whole, HANDLE, HEADER, LENGTH, RESULT_START};
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
    let answer = CallbackInfo::<1>::new(env, info, None, false).and_then(|call| {
        // SAFETY: the argument of this call, in its `env`.
        let buffer = unsafe { Unknown::from_raw_unchecked(env, call.get_arg(0)) };
        observe_encoded(buffer)
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

fn observe_encoded(buffer: Unknown) -> Result<Answer> {
    let bytes = array_buffer(&buffer)?;
    let header = header_of(&bytes)?;
    observe_call(&bytes, header)
}

/// `buffer`'s bytes.
fn array_buffer<'a>(buffer: &Unknown<'a>) -> Result<ArrayBuffer<'a>> {
    // SAFETY: Node-API's napi_get_arraybuffer_info, which the conversion calls, checks that the
    // value is an ArrayBuffer.
    unsafe { buffer.cast::<ArrayBuffer>() }.map_err(|_| {
        let expected = match buffer.get_type() {
            Ok(ValueType::Undefined) => "__observeEncoded takes 1 argument: buffer",
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

/// Observes the call in `buffer` (`header` read from it).
fn observe_call(buffer: &[u8], header: [f64; HEADER]) -> Result<Answer> {
    let [handle, length, result_at] = [HANDLE, LENGTH, RESULT_START].map(|slot| header[slot]);
    let length = whole(length, "length")?;
    let bytes = buffer
        .get(BYTES..)
        .and_then(|bytes| bytes.get(..length))
        .ok_or_else(|| out_of_range("length"))?;
    let result_at = whole(result_at, "result start")?;
    registry::with_prefix(handle, |guard, prefix| {
        let call = call_in(bytes, prefix, result_at, guard.takes_results())?;
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
) -> Result<Call<'a>> {
    let (agent, tool, arguments_at) = prefix.read(bytes)?;
    let (arguments, result) = match result_at {
        0 => (bytes.get(arguments_at..), None),
        _ if !takes_results => return Err(malformed("call: a result without sameResultOnly")),
        _ if result_at < arguments_at => return Err(out_of_range("result start")),
        _ => (bytes.get(arguments_at..result_at), bytes.get(result_at..)),
    };
    let arguments = arguments.ok_or_else(|| out_of_range("result start"))?;
    // The plugin calls this only for tools its cache already found tracked.
    Ok(Call::new(agent, tool, Arguments::Transport(arguments))
        .with_result(result.map(Arguments::Transport))
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
