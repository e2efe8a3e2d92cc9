//! The plugin's hot path, `__observeEncoded(handle, ops, opsLength, chars,
//! agentIdLength, toolNameLength)`: a raw Node-API function, because napi-rs'
//! argument conversions and class unwrapping cost more than the rest of a
//! small call. `encode.js` builds `ops` and the arguments' characters (see
//! `repeat_tool_guard_core::encoded`); the plugin puts the agent id and the
//! tool name in front of those characters, so one string read brings all
//! three. It is internal: the public API is `RepeatToolGuard`.

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

/// The characters are one string, or an array of strings to join (`encode.js`
/// passes long strings on their own, so V8 need not copy them into one).
fn read_chars(js: Js, chars: napi_value, units: &mut Vec<u16>) -> Result<()> {
    if !js.is_array(chars)? {
        return js.utf16_into(chars, units);
    }
    units.clear();
    for index in 0..js.array_length(chars)? {
        js.utf16_append(js.element(chars, index)?, units)?;
    }
    Ok(())
}

/// A length passed from JavaScript: a whole, non-negative number.
fn length(js: Js, value: napi_value, what: &str) -> Result<usize> {
    let value = js.number(value)?;
    // `as` saturates, so the round trip holds only for whole numbers in range.
    if (value as usize) as f64 == value {
        Ok(value as usize)
    } else {
        Err(Error::new(
            Status::InvalidArg,
            format!("repeat-tool-guard: {what} out of range"),
        ))
    }
}

/// Replaces `out` with UTF-16 `units` as UTF-8 (a lone surrogate becomes U+FFFD).
fn utf8_into(units: &[u16], out: &mut String) {
    out.clear();
    out.extend(char::decode_utf16(units.iter().copied()).map(|c| c.unwrap_or('\u{fffd}')));
}

fn observe(js: Js, info: napi_callback_info) -> Result<napi_value> {
    let mut argc = 6;
    let mut argv = [ptr::null_mut(); 6];
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
    if status != sys::Status::napi_ok || argc < 6 {
        return Err(Error::new(
            Status::InvalidArg,
            "repeat-tool-guard: __observeEncoded takes 6 arguments".to_owned(),
        ));
    }
    let [handle, ops, used, chars, agent_len, tool_len] = argv;
    let handle = js.number(handle)?;
    let used = length(js, used, "opsLength")?;
    let agent_len = length(js, agent_len, "agentIdLength")?;
    let tool_len = length(js, tool_len, "toolNameLength")?;
    BUFFERS.with(|buffers| {
        let mut buffers = buffers.try_borrow_mut().map_err(|_| {
            Error::new(Status::GenericFailure, "repeat-tool-guard: busy".to_owned())
        })?;
        let Buffers { units, agent, tool } = &mut *buffers;
        // Read the characters (which may allocate on the V8 heap) before borrowing the ops.
        read_chars(js, chars, units)?;
        let out_of_range = || {
            Error::new(
                Status::InvalidArg,
                "repeat-tool-guard: id and name lengths exceed the characters".to_owned(),
            )
        };
        let (agent_units, rest) = units.split_at_checked(agent_len).ok_or_else(out_of_range)?;
        let (tool_units, argument_units) =
            rest.split_at_checked(tool_len).ok_or_else(out_of_range)?;
        utf8_into(agent_units, agent);
        utf8_into(tool_units, tool);
        let ops = js.float64_array(ops)?.get(..used).ok_or_else(|| {
            Error::new(
                Status::InvalidArg,
                "repeat-tool-guard: opsLength out of range".to_owned(),
            )
        })?;
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
        if units.capacity() > KEEP_CHARS {
            *units = Vec::new();
        }
        match observed {
            None => js.null(),
            Some(reminder) => unsafe { Reminder::to_napi_value(js.env, Reminder::from(reminder)) },
        }
    })
}
