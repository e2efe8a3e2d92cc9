//! The few raw Node-API calls the binding needs, each checked.
//!
//! Raw calls rather than napi-rs' typed wrappers because the hot path
//! (`observe`) must not pay for conversions it does not need, and because the
//! deep-value walker must look at values exactly as `JSON.stringify` does.

use std::ptr;

use napi::sys::{self, napi_callback_info, napi_env, napi_value};
use napi::{Error, Result, Status, ValueType};

/// A borrowed `napi_env` for the duration of one call from JavaScript.
///
/// Made only from the env Node-API hands a callback, and dropped before it returns: the raw
/// calls below are sound because they use that env, on its thread, with handles from the same
/// call, and write only through pointers to locals or to buffers of the size they pass.
#[derive(Clone, Copy)]
pub struct Js {
    pub env: napi_env,
}

/// Appends a string's code units to `out` through `read`, a
/// `napi_get_value_string_*` call given a buffer, its size in units and where
/// to put how many it wrote: first with no buffer, for the length, then with
/// room for it and the terminating NUL.
fn append_units<T>(
    out: &mut Vec<T>,
    read: impl Fn(*mut T, usize, *mut usize) -> sys::napi_status,
) -> Result<()> {
    let mut len = 0;
    check(read(ptr::null_mut(), 0, &mut len), "string read")?;
    let start = out.len();
    out.reserve(len + 1);
    let mut written = 0;
    // SAFETY: `out` has room for `len + 1` units after `start` (reserved above).
    let buffer = unsafe { out.as_mut_ptr().add(start) };
    check(read(buffer, len + 1, &mut written), "string read")?;
    // SAFETY: Node-API wrote `written` (<= len) units after the first `start`.
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

/// JavaScript's `typeof`, as Node-API reports it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Undefined,
    Null,
    Boolean,
    Number,
    String,
    Symbol,
    Object,
    Function,
    BigInt,
    External,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Undefined => "undefined",
            Kind::Null => "null",
            Kind::Boolean => "boolean",
            Kind::Number => "number",
            Kind::String => "string",
            Kind::Symbol => "symbol",
            Kind::Object => "object",
            Kind::Function => "function",
            Kind::BigInt => "bigint",
            Kind::External => "external",
        }
    }
}

impl From<ValueType> for Kind {
    fn from(value_type: ValueType) -> Self {
        match value_type {
            ValueType::Undefined => Kind::Undefined,
            ValueType::Null => Kind::Null,
            ValueType::Boolean => Kind::Boolean,
            ValueType::Number => Kind::Number,
            ValueType::String => Kind::String,
            ValueType::Symbol => Kind::Symbol,
            ValueType::Function => Kind::Function,
            ValueType::BigInt => Kind::BigInt,
            ValueType::External => Kind::External,
            ValueType::Object | ValueType::Unknown => Kind::Object,
        }
    }
}

impl Js {
    pub fn kind(self, value: napi_value) -> Result<Kind> {
        let mut t = 0;
        check(
            // SAFETY: the running call's env and its handles (see `Js`); out-pointers are locals.
            unsafe { sys::napi_typeof(self.env, value, &mut t) },
            "typeof",
        )?;
        Ok(Kind::from(ValueType::from(t)))
    }

    pub fn global(self) -> Result<napi_value> {
        let mut out = ptr::null_mut();
        check(
            // SAFETY: the running call's env and its handles (see `Js`); out-pointers are locals.
            unsafe { sys::napi_get_global(self.env, &mut out) },
            "get global",
        )?;
        Ok(out)
    }

    pub fn undefined(self) -> Result<napi_value> {
        let mut out = ptr::null_mut();
        check(
            // SAFETY: the running call's env and its handles (see `Js`); out-pointers are locals.
            unsafe { sys::napi_get_undefined(self.env, &mut out) },
            "get undefined",
        )?;
        Ok(out)
    }

    /// `object[name]` for a NUL-terminated `name`.
    pub fn named(self, object: napi_value, name: &std::ffi::CStr) -> Result<napi_value> {
        let mut out = ptr::null_mut();
        check(
            // SAFETY: the running call's env and its handles (see `Js`); out-pointers are locals.
            unsafe { sys::napi_get_named_property(self.env, object, name.as_ptr(), &mut out) },
            "property read",
        )?;
        Ok(out)
    }

    pub fn property(self, object: napi_value, key: napi_value) -> Result<napi_value> {
        let mut out = ptr::null_mut();
        check(
            // SAFETY: the running call's env and its handles (see `Js`); out-pointers are locals.
            unsafe { sys::napi_get_property(self.env, object, key, &mut out) },
            "property read",
        )?;
        Ok(out)
    }

    pub fn element(self, array: napi_value, index: u32) -> Result<napi_value> {
        let mut out = ptr::null_mut();
        check(
            // SAFETY: the running call's env and its handles (see `Js`); out-pointers are locals.
            unsafe { sys::napi_get_element(self.env, array, index, &mut out) },
            "element read",
        )?;
        Ok(out)
    }

    pub fn array_length(self, array: napi_value) -> Result<u32> {
        let mut out = 0;
        check(
            // SAFETY: the running call's env and its handles (see `Js`); out-pointers are locals.
            unsafe { sys::napi_get_array_length(self.env, array, &mut out) },
            "array length",
        )?;
        Ok(out)
    }

    /// Own enumerable string keys, as `Object.keys` lists them.
    pub fn keys(self, object: napi_value) -> Result<napi_value> {
        let mut out = ptr::null_mut();
        check(
            // SAFETY: the running call's env and its handles (see `Js`); out-pointers are locals.
            unsafe {
                sys::napi_get_all_property_names(
                    self.env,
                    object,
                    sys::KeyCollectionMode::own_only,
                    sys::KeyFilter::enumerable | sys::KeyFilter::skip_symbols,
                    sys::KeyConversion::numbers_to_strings,
                    &mut out,
                )
            },
            "Object.keys",
        )?;
        Ok(out)
    }

    pub fn number(self, value: napi_value) -> Result<f64> {
        let mut out = 0.0;
        check(
            // SAFETY: the running call's env and its handles (see `Js`); out-pointers are locals.
            unsafe { sys::napi_get_value_double(self.env, value, &mut out) },
            "number read",
        )?;
        Ok(out)
    }

    pub fn boolean(self, value: napi_value) -> Result<bool> {
        let mut out = false;
        check(
            // SAFETY: the running call's env and its handles (see `Js`); out-pointers are locals.
            unsafe { sys::napi_get_value_bool(self.env, value, &mut out) },
            "boolean read",
        )?;
        Ok(out)
    }

    /// A string's UTF-16 code units, lone surrogates included.
    pub fn utf16(self, value: napi_value) -> Result<Vec<u16>> {
        let mut units = Vec::new();
        self.utf16_append(value, &mut units)?;
        Ok(units)
    }

    /// Appends the code units of `value`, a string whose every code unit is
    /// at most 0xff (the caller knows), one byte each.
    pub fn latin1_append(self, value: napi_value, bytes: &mut Vec<u8>) -> Result<()> {
        append_units(bytes, |buffer, size, written| {
            // SAFETY: the running call's env and its handles (see `Js`); `append_units` passes a
            // buffer of `size` bytes (or none, with size 0) and a local for `written`.
            unsafe {
                sys::napi_get_value_string_latin1(self.env, value, buffer.cast(), size, written)
            }
        })
    }

    /// Appends the UTF-16 code units of `value`, a string, lone surrogates included.
    pub fn utf16_append(self, value: napi_value, units: &mut Vec<u16>) -> Result<()> {
        append_units(units, |buffer, size, written| {
            // SAFETY: as in `latin1_append`, with a buffer of `size` code units.
            unsafe { sys::napi_get_value_string_utf16(self.env, value, buffer, size, written) }
        })
    }

    /// The bytes of an `ArrayBuffer`, borrowed: its data pointer and length.
    ///
    /// The bytes stay valid while no JavaScript runs: only JavaScript can
    /// detach or resize the buffer (a detached one has no bytes), and the
    /// caller makes no calls into it while holding them.
    pub fn array_buffer(self, value: napi_value) -> Result<(*const u8, usize)> {
        let mut data = ptr::null_mut();
        let mut length = 0;
        // Anything but an ArrayBuffer makes Node-API answer napi_invalid_arg: no separate check.
        let status =
            // SAFETY: the running call's env and its handles (see `Js`); out-pointers are locals. A
            // value that is not an ArrayBuffer gets an error status, checked below.
            unsafe { sys::napi_get_arraybuffer_info(self.env, value, &mut data, &mut length) };
        if status != sys::Status::napi_ok {
            return Err(Error::new(
                Status::InvalidArg,
                "repeat-tool-guard: expected an ArrayBuffer".to_owned(),
            ));
        }
        Ok((data.cast_const().cast::<u8>(), length))
    }

    /// A string as UTF-8; only for text known to be well-formed (JSON.stringify output).
    pub fn utf8(self, value: napi_value) -> Result<String> {
        let mut len = 0;
        check(
            // SAFETY: the running call's env and its handles (see `Js`); out-pointers are locals.
            unsafe {
                sys::napi_get_value_string_utf8(self.env, value, ptr::null_mut(), 0, &mut len)
            },
            "string read",
        )?;
        let mut bytes: Vec<u8> = Vec::with_capacity(len + 1);
        let mut written = 0;
        check(
            // SAFETY: `bytes` has capacity `len + 1`, the size passed; Node-API writes at most
            // that.
            unsafe {
                sys::napi_get_value_string_utf8(
                    self.env,
                    value,
                    bytes.as_mut_ptr().cast(),
                    len + 1,
                    &mut written,
                )
            },
            "string read",
        )?;
        // SAFETY: Node-API wrote `written` (<= len) bytes into the buffer.
        unsafe { bytes.set_len(written.min(len)) };
        // Node-API emits UTF-8 (lone surrogates become U+FFFD), so this does not fail.
        String::from_utf8(bytes).map_err(|_| {
            Error::new(
                Status::GenericFailure,
                "repeat-tool-guard: string was not UTF-8",
            )
        })
    }

    pub fn string(self, text: &str) -> Result<napi_value> {
        let mut out = ptr::null_mut();
        check(
            // SAFETY: the running call's env and its handles (see `Js`); out-pointers are locals.
            // `text`'s pointer and length describe its bytes, which Node-API copies.
            unsafe {
                sys::napi_create_string_utf8(
                    self.env,
                    text.as_ptr().cast(),
                    text.len() as isize,
                    &mut out,
                )
            },
            "string create",
        )?;
        Ok(out)
    }

    pub fn call(
        self,
        function: napi_value,
        this: napi_value,
        args: &[napi_value],
    ) -> Result<napi_value> {
        let mut out = ptr::null_mut();
        check(
            // SAFETY: the running call's env and its handles (see `Js`); out-pointers are locals.
            // `args` is a live slice of handles, passed with its length.
            unsafe {
                sys::napi_call_function(
                    self.env,
                    this,
                    function,
                    args.len(),
                    args.as_ptr(),
                    &mut out,
                )
            },
            "call",
        )?;
        Ok(out)
    }

    pub fn construct(self, constructor: napi_value) -> Result<napi_value> {
        let mut out = ptr::null_mut();
        check(
            // SAFETY: the running call's env and its handles (see `Js`); out-pointers are locals.
            // No arguments: argc 0 with a null argv.
            unsafe { sys::napi_new_instance(self.env, constructor, 0, ptr::null(), &mut out) },
            "new",
        )?;
        Ok(out)
    }

    /// Takes the pending exception, if any, so the caller can look at it.
    pub fn take_exception(self) -> Option<napi_value> {
        let mut pending = false;
        // SAFETY: the running call's env and its handles (see `Js`); out-pointers are locals.
        unsafe { sys::napi_is_exception_pending(self.env, &mut pending) };
        if !pending {
            return None;
        }
        let mut out = ptr::null_mut();
        // SAFETY: the running call's env and its handles (see `Js`); out-pointers are locals.
        let status = unsafe { sys::napi_get_and_clear_last_exception(self.env, &mut out) };
        (status == sys::Status::napi_ok).then_some(out)
    }

    /// Throws `error` again and reports it as pending.
    pub fn rethrow(self, error: napi_value) -> Error {
        // SAFETY: the running call's env and its handles (see `Js`); out-pointers are locals.
        // `error` is a handle of this env.
        unsafe { sys::napi_throw(self.env, error) };
        Error::new(Status::PendingException, "rethrown".to_owned())
    }
}

/// Which JavaScript error class a failure becomes.
#[derive(Clone, Copy)]
pub enum ErrorClass {
    Error,
    TypeError,
    RangeError,
}

impl Js {
    /// Throws a new `Error`, `TypeError` or `RangeError` with `message` and reports it as pending.
    pub fn throw(self, class: ErrorClass, message: &str) -> Error {
        let thrown = (|| -> Result<()> {
            let text = self.string(message)?;
            let mut error = ptr::null_mut();
            let status = match class {
                // SAFETY: `self.env` is the live env (see `Js`) and `text` a string handle of it;
                // `error` is a local.
                ErrorClass::Error => unsafe {
                    sys::napi_create_error(self.env, ptr::null_mut(), text, &mut error)
                },
                // SAFETY: as above.
                ErrorClass::TypeError => unsafe {
                    sys::napi_create_type_error(self.env, ptr::null_mut(), text, &mut error)
                },
                // SAFETY: as above.
                ErrorClass::RangeError => unsafe {
                    sys::napi_create_range_error(self.env, ptr::null_mut(), text, &mut error)
                },
            };
            check(status, "error create")?;
            // SAFETY: `self.env` is the live env and `error` the handle just created.
            check(unsafe { sys::napi_throw(self.env, error) }, "throw")
        })();
        match thrown {
            Ok(()) => Error::new(Status::PendingException, message.to_owned()),
            Err(_) => Error::new(Status::GenericFailure, message.to_owned()),
        }
    }

    /// Whether a caught exception is V8 running out of stack (a `RangeError`
    /// about the call stack), rather than, say, a string grown too long.
    pub fn is_stack_overflow(self, error: napi_value) -> bool {
        let read = |name: &std::ffi::CStr| {
            self.named(error, name)
                .and_then(|value| match self.kind(value)? {
                    Kind::String => self.utf8(value),
                    _ => Ok(String::new()),
                })
        };
        let (name, message) = (read(c"name"), read(c"message"));
        // Reading them cannot leave an exception behind that the caller did not expect.
        let _ = self.take_exception();
        matches!(name.as_deref(), Ok("RangeError"))
            && message.is_ok_and(|m| m.contains("call stack"))
    }
}

/// What a hot-path function returns to JavaScript: the value, or `undefined`
/// with the error thrown.
pub(crate) fn answer(js: Js, result: Result<napi_value>) -> napi_value {
    match result {
        Ok(value) => value,
        Err(error) => {
            if error.status != Status::PendingException {
                js.throw(ErrorClass::Error, &error.reason);
            }
            ptr::null_mut()
        }
    }
}

/// The call's `N` arguments, or an error saying what they should be.
pub(crate) fn read_args<const N: usize>(
    js: Js,
    info: napi_callback_info,
    expected: &str,
) -> Result<[napi_value; N]> {
    let mut argc = N;
    let mut argv = [ptr::null_mut(); N];
    // SAFETY: `js.env` and `info` are the running callback's; `argv` has room for `argc` (N)
    // handles.
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
    if status != sys::Status::napi_ok || argc < N {
        return Err(Error::new(
            Status::InvalidArg,
            format!("repeat-tool-guard: {expected}"),
        ));
    }
    Ok(argv)
}
