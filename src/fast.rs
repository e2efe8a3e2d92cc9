//! The plugin's hot path, `__observeEncoded(handle, agentId, toolName, ops,
//! opsLength, chars)`: a raw Node-API function, because napi-rs' argument
//! conversions and class unwrapping cost more than the rest of a small call.
//! `encode.js` builds `ops` and `chars` (see `repeat_tool_guard_core::encoded`).
//! It is internal: the public API is `RepeatToolGuard`.

use std::cell::RefCell;
use std::ptr;

use napi::bindgen_prelude::ToNapiValue;
use napi::sys::{self, napi_callback_info, napi_env, napi_value};
use napi::{Error, Result, Status};
use repeat_tool_guard_core::Arguments;

use crate::js::{ErrorClass, Js};
use crate::{registry, Reminder};

thread_local! {
    /// The character buffer of the last call, kept to reuse its allocation.
    static CHARS: RefCell<Vec<u16>> = const { RefCell::new(Vec::new()) };
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
    let [handle, agent, tool, ops, used, chars] = argv;
    let handle = js.number(handle)?;
    let agent = js.utf8(agent)?;
    let tool = js.utf8(tool)?;
    let used = js.number(used)?;
    CHARS.with(|buffer| {
        let mut units = buffer.try_borrow_mut().map_err(|_| {
            Error::new(Status::GenericFailure, "repeat-tool-guard: busy".to_owned())
        })?;
        // Read the characters (which may allocate on the V8 heap) before borrowing the ops.
        read_chars(js, chars, &mut units)?;
        let ops = js.float64_array(ops)?;
        let ops = (used >= 0.0 && used.fract() == 0.0)
            .then(|| ops.get(..used as usize))
            .flatten()
            .ok_or_else(|| {
                Error::new(
                    Status::InvalidArg,
                    "repeat-tool-guard: opsLength out of range".to_owned(),
                )
            })?;
        let arguments = Arguments::Encoded { ops, units: &units };
        let observed = registry::with(handle, |guard| guard.observe(&agent, &tool, arguments))
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
