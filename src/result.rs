//! Getting a tool's result into Rust, for `sameResultOnly`: the canonical form
//! of `{ content, isError }`, with `isError` as a boolean (`Boolean(isError)`),
//! read through the same path as arguments (V8's `JSON.stringify`, so JSON's
//! rules apply to `content`: a missing `content` is left out).

use std::ptr;

use napi::sys::{self, napi_value};
use napi::{Error, Result, Status};

use crate::arguments::{self, ArgumentsText};
use crate::js::{ErrorClass, Js, Kind};

fn check(js: Js, status: sys::napi_status, what: &str) -> Result<()> {
    if status == sys::Status::napi_ok {
        return Ok(());
    }
    if status == sys::Status::napi_pending_exception {
        return Err(Error::new(Status::PendingException, what.to_owned()));
    }
    Err(js.throw(
        ErrorClass::Error,
        &format!("repeat-tool-guard: {what} failed"),
    ))
}

/// The result's comparable text; `None` for `undefined` or `null` (no result,
/// a value of its own). Any other non-object is a `TypeError`.
pub fn read(js: Js, result: napi_value) -> Result<Option<ArgumentsText>> {
    match js.kind(result)? {
        Kind::Undefined | Kind::Null => return Ok(None),
        Kind::Object | Kind::Function => {}
        other => {
            return Err(js.throw(
                ErrorClass::TypeError,
                &format!(
                    "repeat-tool-guard: a tool result must be an object with `content` and `isError`, got {}",
                    other.name()
                ),
            ))
        }
    }
    let content = js.named(result, c"content")?;
    let is_error = js.named(result, c"isError")?;
    let mut flag = ptr::null_mut();
    check(
        js,
        // SAFETY: `js.env` is the env of the call now running, `is_error` its handle, `flag` a
        // local.
        unsafe { sys::napi_coerce_to_bool(js.env, is_error, &mut flag) },
        "Boolean(isError)",
    )?;
    let mut object = ptr::null_mut();
    check(
        js,
        // SAFETY: `js.env` is the env of the call now running; `object` is a local.
        unsafe { sys::napi_create_object(js.env, &mut object) },
        "object create",
    )?;
    for (name, value) in [(c"content", content), (c"isError", flag)] {
        check(
            js,
            // SAFETY: `js.env` is the live env; `object` and `value` are its handles, `name` is
            // NUL-terminated.
            unsafe { sys::napi_set_named_property(js.env, object, name.as_ptr(), value) },
            "property write",
        )?;
    }
    arguments::read(js, object).map(Some)
}
