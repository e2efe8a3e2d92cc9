//! The plugin's hot path, `__observeEncoded(memory, pieces)`: a raw
//! Node-API function, because napi-rs' argument conversions and class
//! unwrapping cost more than the rest of a small call. `encode.js` writes a
//! call into one `ArrayBuffer`, `memory`: a header of [`HEADER`] `f64`s (the
//! guard's handle, the bytes written, where the key form starts, the number
//! of pieces, where the result's form starts), then bytes: the agent id as a
//! string of the key form (`core/src/form.rs`), then the call's
//! key form itself, the tool name and the arguments, except strings long
//! enough that passing them as they are beats copying them in JavaScript:
//! those come in `pieces`, `[offset, string, …]`, each string's form to be
//! spliced in at that byte offset of the key form. With `sameResultOnly`, the
//! key form of the tool result's `{ content, isError }` (as a call of the tool
//! named '') follows the call's, from the offset the header gives. The buffer
//! is borrowed, and one Node-API call finds it; without pieces no string is
//! read at all, and the key form is compared or hashed where it lies. Its
//! arguments are read back, and checked, only when the detailed reminder
//! quotes them. It returns the reminder, or `undefined`. `__observeMemory()`
//! does the same for a call without pieces written into the thread's call
//! memory (`crate::memory`), which it finds without asking Node-API. Both are
//! internal: the public API is `RepeatToolGuard`.

use std::cell::RefCell;
use std::ptr;

use napi::bindgen_prelude::ToNapiValue;
use napi::sys::{napi_callback_info, napi_env, napi_value};
use napi::{Error, Result, Status};
use repeat_tool_guard_core::tag::{NARROW, TOOL};
use repeat_tool_guard_core::{push_string, read_string};
use repeat_tool_guard_core::{Arguments, Call};

use crate::js::{answer, read_args, ErrorClass, Js};
use crate::reminder::Reminder;
use crate::wire::{
    malformed, out_of_range, whole, HANDLE, HEADER, KEY_START, LENGTH, PIECES, RESULT_START,
};
use crate::{memory, registry};

/// Buffers of the last call with pieces, kept to reuse their allocations.
#[derive(Default)]
struct Splice {
    /// A key form with its pieces spliced in.
    form: Vec<u8>,
    /// A piece's code units.
    units: Vec<u16>,
}

thread_local! {
    static SPLICE: RefCell<Splice> = RefCell::new(Splice::default());
}

/// Largest buffers kept between calls (8 MB); larger ones are freed after
/// use. Keeping a big one spares every large call fresh pages.
const KEEP_BYTES: usize = 1 << 23;

pub unsafe extern "C" fn observe_encoded(env: napi_env, info: napi_callback_info) -> napi_value {
    let js = Js { env };
    answer(js, observe(js, info))
}

/// The buffer (its data pointer and length) and a copy of its header.
fn read_header(js: Js, memory: napi_value) -> Result<(*const u8, usize, [f64; HEADER])> {
    let (data, byte_length) = js.array_buffer(memory)?;
    Ok((data, byte_length, header_of(data, byte_length)?))
}

/// A copy of the header of the buffer at `data`.
fn header_of(data: *const u8, byte_length: usize) -> Result<[f64; HEADER]> {
    view::<f64>(data, byte_length, 0, HEADER)
        .and_then(|header| header.first_chunk::<HEADER>())
        .copied()
        .ok_or_else(|| out_of_range("header"))
}

/// The long strings of `pieces` (`[offset, string, …]`), read before the
/// buffer is borrowed: reading an element may run JavaScript (a getter),
/// which could detach the buffer.
fn read_pieces(js: Js, pieces: napi_value) -> Result<Vec<(usize, napi_value)>> {
    let length = js.array_length(pieces).map_err(|_| {
        Error::new(
            Status::InvalidArg,
            "repeat-tool-guard: expected the pieces, an array of [offset, string, ...]".to_owned(),
        )
    })?;
    (0..length / 2)
        .map(|pair| {
            let offset = length_of(js, js.element(pieces, pair * 2)?, "piece offset")?;
            Ok((offset, js.element(pieces, pair * 2 + 1)?))
        })
        .collect()
}

/// The key form, and the result's after it from `result_at` (0: none),
/// with each piece's string form spliced in at its offset (past `start`, the
/// arguments' first byte), assembled in `form`; with where the result's form
/// then starts.
fn splice<'a>(
    js: Js,
    key: &'a [u8],
    (start, result_at): (usize, usize),
    pieces: &[(usize, napi_value)],
    form: &'a mut Vec<u8>,
    units: &mut Vec<u16>,
) -> Result<(&'a [u8], usize)> {
    form.clear();
    let mut copied = 0;
    let mut result_start = result_at;
    for &(offset, piece) in pieces {
        let before = key
            .get(copied..offset)
            .filter(|_| offset >= start)
            .ok_or_else(|| {
                Error::new(
                    Status::InvalidArg,
                    "repeat-tool-guard: piece offsets out of order".to_owned(),
                )
            })?;
        form.extend_from_slice(before);
        units.clear();
        js.utf16_append(piece, units)?;
        let at = form.len();
        push_string(form, units);
        // A piece up to where the result starts belongs to the arguments (the result's form
        // starts with its tool tag, which JavaScript writes): the result moves by its size.
        if offset <= result_at {
            result_start += form.len() - at;
        }
        copied = offset;
    }
    form.extend_from_slice(key.get(copied..).unwrap_or_default());
    // Without a result (0) no piece comes before it: every piece is past the tool name.
    Ok((form, result_start))
}

/// The start of a result's key form: the empty tool name (as `call_key("", …)` writes it).
const RESULT_TOOL: [u8; 3] = [TOOL, NARROW, 0];

/// `count` elements of `T` at byte `offset` of the buffer at `data` of
/// `byte_length` bytes, if they lie within it and are aligned for `T`.
fn view<T>(
    data: *const u8,
    byte_length: usize,
    offset: usize,
    count: usize,
) -> Option<&'static [T]> {
    let end = count.checked_mul(size_of::<T>())?.checked_add(offset)?;
    if end > byte_length {
        return None;
    }
    if count == 0 {
        return Some(&[]);
    }
    // Within the buffer: `offset + count * size_of::<T>() <= byte_length`.
    let start = data.wrapping_add(offset);
    if start.align_offset(align_of::<T>()) != 0 {
        return None;
    }
    // SAFETY: `count` elements of `T` lie in the buffer, aligned; any bits are
    // a valid f64 or u16; the caller runs no JavaScript while holding them.
    Some(unsafe { std::slice::from_raw_parts(start.cast::<T>(), count) })
}

/// Where the bytes start.
const BYTES: usize = HEADER * size_of::<f64>();

/// A length passed from JavaScript as a value.
fn length_of(js: Js, value: napi_value, what: &str) -> Result<usize> {
    whole(js.number(value)?, what)
}

fn observe(js: Js, info: napi_callback_info) -> Result<napi_value> {
    let [memory, pieces] = read_args::<2>(js, info, "__observeEncoded takes 2 arguments")?;
    let (mut data, mut byte_length, mut header) = read_header(js, memory)?;
    let pieces = if header[PIECES] == 0.0 {
        Vec::new()
    } else {
        let pieces = read_pieces(js, pieces)?;
        // Reading them may have run JavaScript: find the buffer again.
        (data, byte_length, header) = read_header(js, memory)?;
        pieces
    };
    observe_call(js, (data, byte_length), header, &pieces)
}

/// `__observeMemory()`: [`observe_encoded`] for a call without pieces that
/// lies in the thread's current call memory (`crate::memory`).
pub unsafe extern "C" fn observe_memory(env: napi_env, _info: napi_callback_info) -> napi_value {
    let js = Js { env };
    let observed = memory::current()
        .ok_or_else(|| {
            Error::new(
                Status::GenericFailure,
                "repeat-tool-guard: no call memory".to_owned(),
            )
        })
        .and_then(|(data, byte_length)| {
            let header = header_of(data, byte_length)?;
            observe_call(js, (data, byte_length), header, &[])
        });
    answer(js, observed)
}

/// Observes the call in the buffer at `data` (`byte_length` bytes, `header`
/// read from it) with its `pieces` read already; returns the reminder or `undefined`.
fn observe_call(
    js: Js,
    (data, byte_length): (*const u8, usize),
    header: [f64; HEADER],
    pieces: &[(usize, napi_value)],
) -> Result<napi_value> {
    // Borrowed from here on: no JavaScript runs until the call returns (see `Js::array_buffer`).
    let [handle, length, key_start, piece_count, result_at] =
        [HANDLE, LENGTH, KEY_START, PIECES, RESULT_START].map(|slot| header[slot]);
    let bytes = view::<u8>(data, byte_length, BYTES, whole(length, "form length")?)
        .ok_or_else(|| out_of_range("form length"))?;
    if whole(piece_count, "piece count")? != pieces.len() {
        return Err(Error::new(
            Status::InvalidArg,
            "repeat-tool-guard: the pieces are not as many as the header says".to_owned(),
        ));
    }
    let call = EncodedCall {
        handle,
        bytes,
        key_start: whole(key_start, "key start")?,
        result_at: whole(result_at, "result start")?,
    };
    let observed = if pieces.is_empty() {
        call.observe(js, (call.key()?, call.result_at))?
    } else {
        // The pieces' strings are read (through Node-API) before the guard is borrowed.
        SPLICE.with(|buffers| {
            let mut buffers = buffers.try_borrow_mut().map_err(|_| busy())?;
            let Splice { form, units } = &mut *buffers;
            let key = call.key()?;
            // A piece goes past the tool name; if the name is malformed, `observe` says so.
            let start = match read_string(key, 1) {
                Ok((_, end)) => end,
                Err(_) => key.len(),
            };
            let spliced = splice(js, key, (start, call.result_at), pieces, form, units)?;
            let observed = call.observe(js, spliced);
            if form.capacity() > KEEP_BYTES {
                *form = Vec::new();
            }
            if units.capacity() > KEEP_BYTES / 2 {
                *units = Vec::new();
            }
            observed
        })?
    };
    match observed {
        // No reminder: `undefined` in JavaScript (a null result), cheaper than asking for `null`.
        None => Ok(ptr::null_mut()),
        // SAFETY: `js.env` is the running callback's env, where napi-rs makes the object.
        Some(reminder) => unsafe { Reminder::to_napi_value(js.env, Reminder::from(reminder)) },
    }
}

/// One call read from the buffer: the guard's handle, the bytes (the agent
/// id's form, then the key form from `key_start`), and where in the key form
/// the result's form starts (0: none).
struct EncodedCall<'a> {
    handle: f64,
    bytes: &'a [u8],
    key_start: usize,
    result_at: usize,
}

impl EncodedCall<'_> {
    /// The key form as JavaScript wrote it (its pieces not yet spliced in).
    fn key(&self) -> Result<&[u8]> {
        self.bytes
            .get(self.key_start..)
            .ok_or_else(|| out_of_range("key start"))
    }

    /// Counts the call, whose key form is `key` with its pieces spliced in
    /// (their result start moved by their size, `(key, result_at)`).
    fn observe(
        &self,
        js: Js,
        (key, result_at): (&[u8], usize),
    ) -> Result<Option<repeat_tool_guard_core::Reminder>> {
        let observed = registry::with_prefix(self.handle, |guard, prefix| {
            // The agent id and tool name come before any piece: the bytes as written hold them.
            let (agent, tool, arguments_at) = prefix.read(self.bytes, self.key_start)?;
            if result_at != 0 && (result_at < arguments_at || result_at > key.len()) {
                return Err(out_of_range("result start"));
            }
            let (key, result) = match key.split_at_checked(result_at) {
                Some((key, result)) if result_at != 0 => {
                    if !result.starts_with(&RESULT_TOOL) {
                        return Err(malformed("tool result"));
                    }
                    (
                        key,
                        Some(Arguments::Form {
                            key: result,
                            arguments_at: RESULT_TOOL.len(),
                        }),
                    )
                }
                _ => (key, None),
            };
            let arguments = Arguments::Form { key, arguments_at };
            // The plugin calls this only for tools its cache already found tracked.
            let call = Call::new(agent, tool, arguments)
                .with_result(result)
                .known_tracked();
            Ok(guard.observe(call))
        });
        // Thrown once the guard is no longer borrowed.
        observed
            .map_err(|e| js.throw(ErrorClass::Error, &e.to_string()))??
            .map_err(|e| js.throw(ErrorClass::Error, &e.to_string()))
    }
}

#[cold]
fn busy() -> Error {
    Error::new(Status::GenericFailure, "repeat-tool-guard: busy".to_owned())
}
