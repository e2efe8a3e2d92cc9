//! The plugin's hot path, `__observeEncoded(ops, units, pieces)`: a raw
//! Node-API function, because napi-rs' argument conversions and class
//! unwrapping cost more than the rest of a small call. `encode.js` builds the
//! `Float64Array` `ops`: a header ([`HEADER`] numbers: the guard's handle, the
//! ops and code units used, the agent id's and tool name's lengths, the number
//! of pieces) and then the arguments (see `repeat_tool_guard_core::encoded`). It writes the agent
//! id, the tool name and every key and string of the arguments into the
//! `Uint16Array` `units`, except strings long enough that passing them as
//! they are beats copying them there: those come in `pieces`, `[offset,
//! string, …]`, each to be read in at that offset of `units`. Both arrays are
//! borrowed; without pieces no string is read at all. It is internal: the
//! public API is `RepeatToolGuard`.

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
    agent: String,
    tool: String,
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

/// The characters: `units` itself without pieces, else `units` with each of
/// the `count` pieces' string read in at its offset, assembled in `buffer`.
fn read_chars<'a>(
    js: Js,
    units: &'a [u16],
    pieces: napi_value,
    count: usize,
    buffer: &'a mut Vec<u16>,
) -> Result<&'a [u16]> {
    if count == 0 {
        return Ok(units);
    }
    buffer.clear();
    let mut copied = 0;
    let count = u32::try_from(count)
        .ok()
        .filter(|&count| count <= js.array_length(pieces).unwrap_or(0) / 2)
        .ok_or_else(|| {
            Error::new(
                Status::InvalidArg,
                "repeat-tool-guard: fewer pieces than the header says".to_owned(),
            )
        })?;
    for index in (0..count * 2).step_by(2) {
        let offset = length(js, js.element(pieces, index)?, "piece offset")?;
        let before = units.get(copied..offset).ok_or_else(|| {
            Error::new(
                Status::InvalidArg,
                "repeat-tool-guard: piece offsets out of order".to_owned(),
            )
        })?;
        buffer.extend_from_slice(before);
        js.utf16_append(js.element(pieces, index + 1)?, buffer)?;
        copied = offset;
    }
    buffer.extend_from_slice(units.get(copied..).unwrap_or_default());
    Ok(buffer)
}

/// Numbers at the head of `ops`: handle, ops used, units used, id length, name length, pieces.
const HEADER: usize = 6;

/// A length passed from JavaScript as a value.
fn length(js: Js, value: napi_value, what: &str) -> Result<usize> {
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

/// Replaces `out` with UTF-16 `units` as UTF-8 (a lone surrogate becomes U+FFFD).
fn utf8_into(units: &[u16], out: &mut String) {
    out.clear();
    out.extend(char::decode_utf16(units.iter().copied()).map(|c| c.unwrap_or('\u{fffd}')));
}

fn observe(js: Js, info: napi_callback_info) -> Result<napi_value> {
    const ARGS: usize = 3;
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
            "repeat-tool-guard: __observeEncoded takes 3 arguments".to_owned(),
        ));
    }
    let [ops, units, pieces] = argv;
    // Borrowed: no JavaScript runs until the call returns (see `Js::float64_array`).
    let ops = js.float64_array(ops)?;
    let [handle, ops_len, units_len, agent_len, tool_len, piece_count] = *ops
        .first_chunk::<HEADER>()
        .ok_or_else(|| out_of_range("ops header"))?;
    let ops = ops
        .get(HEADER..whole(ops_len, "ops length")?)
        .ok_or_else(|| out_of_range("ops length"))?;
    let units = js
        .uint16_array(units)?
        .get(..whole(units_len, "units length")?)
        .ok_or_else(|| out_of_range("units length"))?;
    let agent_len = whole(agent_len, "agent id length")?;
    let tool_len = whole(tool_len, "tool name length")?;
    let piece_count = whole(piece_count, "piece count")?;
    BUFFERS.with(|buffers| {
        let mut buffers = buffers.try_borrow_mut().map_err(|_| {
            Error::new(Status::GenericFailure, "repeat-tool-guard: busy".to_owned())
        })?;
        let Buffers {
            units: buffer,
            agent,
            tool,
        } = &mut *buffers;
        let chars = read_chars(js, units, pieces, piece_count, buffer)?;
        let (agent_units, rest) = chars
            .split_at_checked(agent_len)
            .ok_or_else(|| out_of_range("agent id length"))?;
        let (tool_units, argument_units) = rest
            .split_at_checked(tool_len)
            .ok_or_else(|| out_of_range("tool name length"))?;
        utf8_into(agent_units, agent);
        utf8_into(tool_units, tool);
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
