//! The plugin's hot path, `__observeEncoded(memory, pieces, widePieces)`: a
//! raw Node-API function, because napi-rs' argument conversions and class
//! unwrapping cost more than the rest of a small call. `encode.js` writes a
//! call into one `ArrayBuffer`, `memory`: a header of [`HEADER`] `f64`s (the
//! guard's handle, the bytes written, the number of pieces of each kind, where
//! the result starts), then bytes in the transport's encoding
//! (`core/src/transport.rs`): the agent id, the tool name, the arguments as
//! JavaScript holds them, and with `sameResultOnly` the tool result's
//! `{ content, isError }`. Strings long enough that passing them as they are
//! beats copying them in JavaScript come in `pieces` (`[string, …]`, each code
//! unit at most 0xff, as `encode.js` checks, read one byte each) and
//! `widePieces` (read as UTF-16), before the buffer is borrowed. The core
//! checks every byte and canonicalizes the value before it counts the call.
//! It returns the reminder, or `undefined`.
//! `__observeMemory()` does the same for a call without pieces written into
//! the thread's call memory (`crate::memory`), which it finds without asking
//! Node-API. Both are internal: the public API is `RepeatToolGuard`.

use std::cell::RefCell;
use std::ptr;

use napi::bindgen_prelude::{JsObjectValue, Object, ToNapiValue};
use napi::sys::{napi_callback_info, napi_env, napi_value};
use napi::{Error, Result, Status};
use repeat_tool_guard_core::{Arguments, Call, Pieces};

use crate::js::{answer, read_args, ErrorClass, Js};
use crate::reminder::Reminder;
use crate::wire::{
    malformed, out_of_range, whole, HANDLE, HEADER, LENGTH, PIECES, RESULT_START, WIDE_PIECES,
};
use crate::{memory, registry};

/// The long strings of the last call with pieces, kept to reuse their allocation.
#[derive(Default)]
struct PiecesRead {
    /// The narrow ones' code units, one byte each, back to back, and where each ends.
    narrow: Vec<u8>,
    narrow_ends: Vec<usize>,
    /// The wide ones' code units, back to back, and where each ends.
    wide: Vec<u16>,
    wide_ends: Vec<usize>,
}

thread_local! {
    static PIECES_READ: RefCell<PiecesRead> = RefCell::new(PiecesRead::default());
}

/// Largest buffer kept between calls (8 MB); a larger one is freed after use.
/// Keeping a big one spares every large call fresh pages.
const KEEP_BYTES: usize = 1 << 23;

/// Exports the raw functions, `__observeEncoded`, `__observeMemory` and
/// `__callMemory` (`crate::memory`), on the module's `exports`.
pub fn register(exports: &mut Object) -> Result<()> {
    exports.create_c_named_method(c"__observeEncoded", observe_encoded)?;
    exports.create_c_named_method(c"__observeMemory", observe_memory)?;
    exports.create_c_named_method(c"__callMemory", memory::create)
}

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

/// Reads the strings of `list` (`[string, …]`, `count` of them, as the
/// header says) with `append`, each one's end into `ends`.
fn read_list<T>(
    js: Js,
    list: napi_value,
    count: usize,
    (units, ends): (&mut Vec<T>, &mut Vec<usize>),
    append: impl Fn(napi_value, &mut Vec<T>) -> Result<()>,
) -> Result<()> {
    units.clear();
    ends.clear();
    if count == 0 {
        return Ok(());
    }
    let length = js.array_length(list).map_err(|_| {
        Error::new(
            Status::InvalidArg,
            "repeat-tool-guard: expected the pieces, arrays of strings".to_owned(),
        )
    })?;
    if length as usize != count {
        return Err(miscounted());
    }
    for index in 0..length {
        append(js.element(list, index)?, units)?;
        ends.push(units.len());
    }
    Ok(())
}

impl PiecesRead {
    /// Reads the long strings of `narrow` and `wide` (`[string, …]` each),
    /// before the buffer is borrowed: reading an element may run JavaScript
    /// (a getter), which could detach the buffer.
    fn read(
        &mut self,
        js: Js,
        (narrow, wide): (napi_value, napi_value),
        counts: [usize; 2],
    ) -> Result<()> {
        let [narrow_count, wide_count] = counts;
        read_list(
            js,
            narrow,
            narrow_count,
            (&mut self.narrow, &mut self.narrow_ends),
            |value, out| js.latin1_append(value, out),
        )?;
        read_list(
            js,
            wide,
            wide_count,
            (&mut self.wide, &mut self.wide_ends),
            |value, out| js.utf16_append(value, out),
        )
    }

    /// Frees buffers a large call grew.
    fn trim(&mut self) {
        if self.narrow.capacity() > KEEP_BYTES {
            self.narrow = Vec::new();
        }
        if self.wide.capacity() > KEEP_BYTES / 2 {
            self.wide = Vec::new();
        }
    }
}

/// Each string of `units`, back to back, ending where `ends` say.
fn strings<'a, T>(units: &'a [T], ends: &[usize]) -> Vec<&'a [T]> {
    let mut start = 0;
    ends.iter()
        .map(|&end| {
            let string = units.get(start..end).unwrap_or_default();
            start = end;
            string
        })
        .collect()
}

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

fn observe(js: Js, info: napi_callback_info) -> Result<napi_value> {
    let [memory, narrow, wide] = read_args::<3>(js, info, "__observeEncoded takes 3 arguments")?;
    let (data, byte_length, header) = read_header(js, memory)?;
    let counts = [
        whole(header[PIECES], "piece count")?,
        whole(header[WIDE_PIECES], "wide piece count")?,
    ];
    if counts == [0, 0] {
        return observe_call(js, (data, byte_length), header, Pieces::NONE);
    }
    PIECES_READ.with(|read| {
        let mut read = read.try_borrow_mut().map_err(|_| busy())?;
        read.read(js, (narrow, wide), counts)?;
        // Reading them may have run JavaScript: find the buffer again.
        let (data, byte_length, header) = read_header(js, memory)?;
        let narrow = strings(&read.narrow, &read.narrow_ends);
        let wide = strings(&read.wide, &read.wide_ends);
        let pieces = Pieces {
            narrow: &narrow,
            wide: &wide,
        };
        let observed = observe_call(js, (data, byte_length), header, pieces);
        read.trim();
        observed
    })
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
            observe_call(js, (data, byte_length), header, Pieces::NONE)
        });
    answer(js, observed)
}

/// Observes the call in the buffer at `data` (`byte_length` bytes, `header`
/// read from it) with its `pieces` read already; returns the reminder or `undefined`.
fn observe_call(
    js: Js,
    (data, byte_length): (*const u8, usize),
    header: [f64; HEADER],
    pieces: Pieces<'_>,
) -> Result<napi_value> {
    // Borrowed from here on: no JavaScript runs until the call returns (see `Js::array_buffer`).
    let [handle, length, narrow, wide, result_at] =
        [HANDLE, LENGTH, PIECES, WIDE_PIECES, RESULT_START].map(|slot| header[slot]);
    let bytes = view::<u8>(data, byte_length, BYTES, whole(length, "length")?)
        .ok_or_else(|| out_of_range("length"))?;
    let counts = [
        whole(narrow, "piece count")?,
        whole(wide, "wide piece count")?,
    ];
    // Read again: JavaScript run while the pieces were read may have changed the header.
    if counts != [pieces.narrow.len(), pieces.wide.len()] {
        return Err(miscounted());
    }
    let result_at = whole(result_at, "result start")?;
    let observed = registry::with_prefix(handle, |guard, prefix| {
        let (agent, tool, arguments_at) = prefix.read(bytes)?;
        let (arguments, result) = match result_at {
            0 => (bytes.get(arguments_at..), None),
            _ if !guard.same_result_only() => {
                return Err(malformed("call: a result without sameResultOnly"))
            }
            _ if result_at < arguments_at => return Err(out_of_range("result start")),
            _ => (bytes.get(arguments_at..result_at), bytes.get(result_at..)),
        };
        let transport = |bytes| Arguments::Transport { bytes, pieces };
        let arguments = arguments.ok_or_else(|| out_of_range("result start"))?;
        // The plugin calls this only for tools its cache already found tracked.
        let call = Call::new(agent, tool, transport(arguments))
            .with_result(result.map(transport))
            .known_tracked();
        Ok(guard.observe(call))
    });
    // Thrown once the guard is no longer borrowed.
    let observed = observed
        .map_err(|e| js.throw(ErrorClass::Error, &e.to_string()))??
        .map_err(|e| js.throw(ErrorClass::Error, &e.to_string()))?;
    match observed {
        // No reminder: `undefined` in JavaScript (a null result), cheaper than asking for `null`.
        None => Ok(ptr::null_mut()),
        // SAFETY: `js.env` is the running callback's env, where napi-rs makes the object.
        Some(reminder) => unsafe { Reminder::to_napi_value(js.env, Reminder::from(reminder)) },
    }
}

#[cold]
fn miscounted() -> Error {
    Error::new(
        Status::InvalidArg,
        "repeat-tool-guard: the pieces are not as many as the header says".to_owned(),
    )
}

#[cold]
fn busy() -> Error {
    Error::new(Status::GenericFailure, "repeat-tool-guard: busy".to_owned())
}
