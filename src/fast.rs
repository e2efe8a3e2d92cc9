//! The plugin's hot path, `__observeEncoded(memory, pieces)`: a raw
//! Node-API function, because napi-rs' argument conversions and class
//! unwrapping cost more than the rest of a small call. `encode.js` writes a
//! call into one `ArrayBuffer`, `memory`: from its start, `f64` ops, a header
//! ([`HEADER`] numbers: the guard's handle, the ops and code units used, the
//! agent id's and tool name's lengths, the number of pieces, the byte offset
//! of the code units) and then the arguments (see
//! `repeat_tool_guard_core::encoded`); from that offset, `u16` code units: the
//! agent id, the tool name and every key and string of the arguments, except
//! strings long enough that passing them as they are beats copying them
//! there: those come in `pieces`, `[offset, string, …]`, each to be read in at
//! that offset of the code units. The buffer is borrowed, and one Node-API
//! call finds it; without pieces no string is read at all. It is internal:
//! the public API is `RepeatToolGuard`.

use std::cell::RefCell;
use std::ptr;

use napi::bindgen_prelude::ToNapiValue;
use napi::sys::{self, napi_callback_info, napi_env, napi_value};
use napi::{Error, Result, Status};
use repeat_tool_guard_core::Arguments;

use crate::js::{ErrorClass, Js};
use crate::{registry, Reminder};

/// Buffers of the last call, kept to reuse their allocations.
#[derive(Default)]
struct Buffers {
    units: Vec<u16>,
    agent: Text,
    tool: Text,
}

/// An agent id or tool name in UTF-8, with the code units it came from: the
/// next call mostly brings the same ones, which then need no conversion.
#[derive(Default)]
struct Text {
    units: Vec<u16>,
    utf8: String,
}

impl Text {
    fn set(&mut self, units: &[u16]) -> &str {
        if self.units != units {
            self.units.clear();
            self.units.extend_from_slice(units);
            self.utf8.clear();
            self.utf8
                .extend(char::decode_utf16(units.iter().copied()).map(|c| c.unwrap_or('\u{fffd}')));
        }
        &self.utf8
    }
}

thread_local! {
    static BUFFERS: RefCell<Buffers> = RefCell::new(Buffers::default());
}

/// Longest character buffer kept between calls (8 MB); a larger one is freed
/// after use. Keeping a big one spares every large call fresh pages.
const KEEP_CHARS: usize = 1 << 22;

pub unsafe extern "C" fn observe_encoded(env: napi_env, info: napi_callback_info) -> napi_value {
    let js = Js { env };
    match observe(js, info) {
        Ok(value) => value,
        Err(error) => {
            if error.status != Status::PendingException {
                js.throw(ErrorClass::Error, &error.reason);
            }
            ptr::null_mut()
        }
    }
}

/// The buffer (its data pointer and length) and a copy of its header.
fn read_header(js: Js, memory: napi_value) -> Result<(*const u8, usize, [f64; HEADER])> {
    let (data, byte_length) = js.array_buffer(memory)?;
    let header = view::<f64>(data, byte_length, 0, HEADER)
        .and_then(|header| header.first_chunk::<HEADER>())
        .ok_or_else(|| out_of_range("ops header"))?;
    Ok((data, byte_length, *header))
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

/// The characters: `units` itself without pieces, else `units` with each
/// piece's string read in at its offset, assembled in `buffer`.
fn read_chars<'a>(
    js: Js,
    units: &'a [u16],
    pieces: &[(usize, napi_value)],
    buffer: &'a mut Vec<u16>,
) -> Result<&'a [u16]> {
    if pieces.is_empty() {
        return Ok(units);
    }
    buffer.clear();
    let mut copied = 0;
    for &(offset, piece) in pieces {
        let before = units.get(copied..offset).ok_or_else(|| {
            Error::new(
                Status::InvalidArg,
                "repeat-tool-guard: piece offsets out of order".to_owned(),
            )
        })?;
        buffer.extend_from_slice(before);
        js.utf16_append(piece, buffer)?;
        copied = offset;
    }
    buffer.extend_from_slice(units.get(copied..).unwrap_or_default());
    Ok(buffer)
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

/// Numbers at the head of `ops`: handle, ops used, units used, id length,
/// name length, pieces, byte offset of the units.
const HEADER: usize = 7;
/// Where in the header the number of pieces is.
const PIECE_COUNT: usize = 5;

/// A length passed from JavaScript as a value.
fn length_of(js: Js, value: napi_value, what: &str) -> Result<usize> {
    whole(js.number(value)?, what)
}

/// A number as a length: a whole, non-negative number.
fn whole(value: f64, what: &str) -> Result<usize> {
    // `as` saturates, so the round trip holds only for whole numbers in range.
    if (value as usize) as f64 == value {
        Ok(value as usize)
    } else {
        Err(out_of_range(what))
    }
}

fn out_of_range(what: &str) -> Error {
    Error::new(
        Status::InvalidArg,
        format!("repeat-tool-guard: {what} out of range"),
    )
}

fn observe(js: Js, info: napi_callback_info) -> Result<napi_value> {
    const ARGS: usize = 2;
    let mut argc = ARGS;
    let mut argv = [ptr::null_mut(); ARGS];
    let status = unsafe {
        sys::napi_get_cb_info(
            js.env,
            info,
            &mut argc,
            argv.as_mut_ptr(),
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    if status != sys::Status::napi_ok || argc < ARGS {
        return Err(Error::new(
            Status::InvalidArg,
            "repeat-tool-guard: __observeEncoded takes 2 arguments".to_owned(),
        ));
    }
    let [memory, pieces] = argv;
    let (mut data, mut byte_length, mut header) = read_header(js, memory)?;
    let pieces = if header[PIECE_COUNT] == 0.0 {
        Vec::new()
    } else {
        let pieces = read_pieces(js, pieces)?;
        // Reading them may have run JavaScript: find the buffer again.
        (data, byte_length, header) = read_header(js, memory)?;
        pieces
    };
    // Borrowed from here on: no JavaScript runs until the call returns (see `Js::array_buffer`).
    let [handle, ops_len, units_len, agent_len, tool_len, piece_count, units_offset] = header;
    let ops_len = whole(ops_len, "ops length")?;
    let ops = view::<f64>(data, byte_length, 0, ops_len)
        .and_then(|ops| ops.get(HEADER..))
        .ok_or_else(|| out_of_range("ops length"))?;
    let units_offset = whole(units_offset, "units offset")?;
    if units_offset < ops_len * size_of::<f64>() {
        return Err(out_of_range("units offset"));
    }
    let units = view::<u16>(
        data,
        byte_length,
        units_offset,
        whole(units_len, "units length")?,
    )
    .ok_or_else(|| out_of_range("units length"))?;
    let agent_len = whole(agent_len, "agent id length")?;
    let tool_len = whole(tool_len, "tool name length")?;
    if whole(piece_count, "piece count")? != pieces.len() {
        return Err(Error::new(
            Status::InvalidArg,
            "repeat-tool-guard: the pieces are not as many as the header says".to_owned(),
        ));
    }
    BUFFERS.with(|buffers| {
        let mut buffers = buffers.try_borrow_mut().map_err(|_| {
            Error::new(Status::GenericFailure, "repeat-tool-guard: busy".to_owned())
        })?;
        let Buffers {
            units: buffer,
            agent,
            tool,
        } = &mut *buffers;
        let chars = read_chars(js, units, &pieces, buffer)?;
        let (agent_units, rest) = chars
            .split_at_checked(agent_len)
            .ok_or_else(|| out_of_range("agent id length"))?;
        let (tool_units, argument_units) = rest
            .split_at_checked(tool_len)
            .ok_or_else(|| out_of_range("tool name length"))?;
        let agent = agent.set(agent_units);
        let tool = tool.set(tool_units);
        let arguments = Arguments::Encoded {
            ops,
            units: argument_units,
        };
        // The plugin calls this only for tools its cache already found tracked.
        let observed = registry::with(handle, |guard| {
            guard.observe_tracked(agent, tool, arguments)
        })
        .map_err(|e| js.throw(ErrorClass::Error, &e.to_string()))?
        .map_err(|e| js.throw(ErrorClass::Error, &e.to_string()))?;
        if buffer.capacity() > KEEP_CHARS {
            *buffer = Vec::new();
        }
        match observed {
            None => js.null(),
            Some(reminder) => unsafe { Reminder::to_napi_value(js.env, Reminder::from(reminder)) },
        }
    })
}
