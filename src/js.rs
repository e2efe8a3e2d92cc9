//! The few raw Node-API calls the hot path (`fast`) needs, each checked: raw
//! rather than napi-rs' typed wrappers because a small call must not pay for
//! conversions it does not need.
//!
//! The rules the raw calls rely on are in the types: a [`Js`] borrows the env
//! of one call from JavaScript for `'env` and cannot be copied, nor made in
//! safe code (its constructor is `unsafe`: napi-rs' `Env::from_raw` is safe,
//! so an `Env` proves nothing); calls that may run JavaScript (a getter, a
//! setter that making an object's fields may meet) take it `&mut`, so bytes
//! borrowed from JavaScript memory ([`Js::array_buffer`]) cannot outlive into
//! one.

use std::marker::PhantomData;
use std::ptr;

use napi::bindgen_prelude::{Env, ToNapiValue};
use napi::sys::{self, napi_callback_info, napi_env, napi_value};
use napi::{Error, Result, Status};

/// The env of the call from JavaScript now running, borrowed for `'env`.
pub struct Js<'env> {
    env: napi_env,
    call: PhantomData<&'env Env>,
}

/// Calls the Node-API function `$name` with `$js`'s env and `$arg`s and
/// checks its status, as `what`: every Node-API call on a [`Js`] goes
/// through here.
macro_rules! napi {
    ($js:expr, $what:expr, $name:ident($($arg:expr),* $(,)?)) => {
        check(
            // SAFETY: the env is that of the call now running (a `Js` borrows it for no longer;
            // see `Js::from_callback`), on its thread. Every use in this module passes handles
            // that call received or made, which live until it returns, out-pointers to locals,
            // and buffers with their sizes (`append_units`).
            unsafe { sys::$name($js.env, $($arg),*) },
            $what,
        )
    };
}

impl Js<'_> {
    /// The env Node-API handed a raw callback.
    ///
    /// # Safety
    ///
    /// `env` is the env of the callback now running, and the `Js` is dropped before it returns.
    pub unsafe fn from_callback(env: napi_env) -> Self {
        Js {
            env,
            call: PhantomData,
        }
    }

    /// `value` made a JavaScript value by napi-rs in this env. `&mut`: an object's fields are set
    /// with `napi_set_named_property`, which runs any setter `Object.prototype` has for that name.
    pub fn make<T: ToNapiValue>(&mut self, value: T) -> Result<napi_value> {
        // SAFETY: `self.env` is the running call's env (see `Js::from_callback`), which is all
        // `to_napi_value` asks of its caller; it makes the value there and checks every call.
        unsafe { T::to_napi_value(self.env, value) }
    }
}

/// Appends a string's code units to `out` through `read`, a
/// `napi_get_value_string_*` call given a buffer, its size in units and where
/// to put how many it wrote: first with no buffer, for the length, then with
/// room for it and the terminating NUL.
fn append_units<T>(
    out: &mut Vec<T>,
    read: impl Fn(*mut T, usize, *mut usize) -> Result<()>,
) -> Result<()> {
    let mut len = 0;
    read(ptr::null_mut(), 0, &mut len)?;
    out.reserve(len + 1);
    let start = out.len();
    let mut written = 0;
    // `len + 1` units of spare room, reserved above.
    read(
        out.spare_capacity_mut().as_mut_ptr().cast(),
        len + 1,
        &mut written,
    )?;
    // SAFETY: Node-API wrote `written` units at the start of the spare room, and never more than
    // `len` (it leaves the last unit for the NUL): they are initialized, and within capacity.
    unsafe { out.set_len(start + written.min(len)) };
    Ok(())
}

fn check(status: sys::napi_status, what: &str) -> Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else if status == sys::Status::napi_pending_exception {
        Err(Error::new(Status::PendingException, what.to_owned()))
    } else {
        Err(Error::new(
            Status::GenericFailure,
            format!("repeat-tool-guard: {what} failed"),
        ))
    }
}
/// Reading values: these run no JavaScript.
impl Js<'_> {
    pub fn null(&self) -> Result<napi_value> {
        let mut out = ptr::null_mut();
        napi!(self, "get null", napi_get_null(&mut out))?;
        Ok(out)
    }

    pub fn boolean_value(&self, value: bool) -> Result<napi_value> {
        let mut out = ptr::null_mut();
        napi!(self, "get boolean", napi_get_boolean(value, &mut out))?;
        Ok(out)
    }

    pub fn array_length(&self, array: napi_value) -> Result<u32> {
        let mut out = 0;
        napi!(self, "array length", napi_get_array_length(array, &mut out))?;
        Ok(out)
    }

    pub fn number(&self, value: napi_value) -> Result<f64> {
        let mut out = 0.0;
        napi!(self, "number read", napi_get_value_double(value, &mut out))?;
        Ok(out)
    }

    /// Appends the code units of `value`, a string whose every code unit is
    /// at most 0xff (the caller knows), one byte each.
    pub fn latin1_append(&self, value: napi_value, bytes: &mut Vec<u8>) -> Result<()> {
        append_units(bytes, |buffer, size, written| {
            napi!(
                self,
                "string read",
                napi_get_value_string_latin1(value, buffer.cast(), size, written)
            )
        })
    }

    /// Appends the UTF-16 code units of `value`, a string, lone surrogates included.
    pub fn utf16_append(&self, value: napi_value, units: &mut Vec<u16>) -> Result<()> {
        append_units(units, |buffer, size, written| {
            napi!(
                self,
                "string read",
                napi_get_value_string_utf16(value, buffer, size, written)
            )
        })
    }

    /// The bytes of an `ArrayBuffer`, borrowed for as long as this `Js` is not
    /// used to run JavaScript: only JavaScript can detach or resize the buffer
    /// (a detached one has no bytes).
    pub fn array_buffer(&self, value: napi_value) -> Result<&[u8]> {
        let mut data = ptr::null_mut();
        let mut length = 0;
        // Anything but an ArrayBuffer makes Node-API answer napi_invalid_arg: no separate check.
        napi!(
            self,
            "ArrayBuffer read",
            napi_get_arraybuffer_info(value, &mut data, &mut length)
        )
        .map_err(|_| {
            Error::new(
                Status::InvalidArg,
                "repeat-tool-guard: expected an ArrayBuffer".to_owned(),
            )
        })?;
        if length == 0 {
            return Ok(&[]);
        }
        // SAFETY: Node-API says `length` bytes lie at `data` (not null for a buffer with bytes),
        // allocated by V8, and any byte is a `u8`. They stay there, and no
        // Rust code writes them, for as long as `self` is borrowed shared: only JavaScript could
        // detach the buffer or write it, and running JavaScript takes `&mut self`.
        Ok(unsafe { std::slice::from_raw_parts(data.cast_const().cast::<u8>(), length) })
    }

    /// The call's `N` arguments, or an error saying what they should be.
    pub fn args<const N: usize>(
        &self,
        info: napi_callback_info,
        expected: &str,
    ) -> Result<[napi_value; N]> {
        let mut argc = N;
        let mut argv = [ptr::null_mut(); N];
        // `argv` has room for `argc` (N) handles.
        let read = napi!(
            self,
            "arguments",
            napi_get_cb_info(
                info,
                &mut argc,
                argv.as_mut_ptr(),
                ptr::null_mut(),
                ptr::null_mut(),
            )
        );
        if read.is_err() || argc < N {
            return Err(Error::new(
                Status::InvalidArg,
                format!("repeat-tool-guard: {expected}"),
            ));
        }
        Ok(argv)
    }
}

/// Calls that may run JavaScript (a getter, a proxy's trap, a function): they
/// take the `Js` mutably, so no borrowed bytes outlive into them.
impl Js<'_> {
    pub fn element(&mut self, array: napi_value, index: u32) -> Result<napi_value> {
        let mut out = ptr::null_mut();
        napi!(
            self,
            "element read",
            napi_get_element(array, index, &mut out)
        )?;
        Ok(out)
    }
}

impl Js<'_> {
    /// Throws a new `Error` with `message` and reports it as pending.
    pub fn throw(&self, message: &str) -> Error {
        throw(Env::from_raw(self.env), message.to_owned(), false)
    }
}

/// Throws `message` in `env`, a `TypeError` or an `Error`, and reports it as pending: the one way
/// the binding throws, from a raw function's `Js` or a `#[napi]` function's `Env` alike.
pub fn throw(env: Env, message: String, type_error: bool) -> Error {
    let thrown = if type_error {
        env.throw_type_error(&message, None)
    } else {
        env.throw_error(&message, None)
    };
    match thrown {
        Ok(()) => Error::new(Status::PendingException, message),
        Err(_) => Error::new(Status::GenericFailure, message),
    }
}

/// What a hot-path function returns to JavaScript: the value, or `undefined`
/// with the error thrown.
pub(crate) fn answer(js: &Js, result: Result<napi_value>) -> napi_value {
    match result {
        Ok(value) => value,
        Err(error) => {
            if error.status != Status::PendingException {
                js.throw(&error.reason);
            }
            ptr::null_mut()
        }
    }
}
