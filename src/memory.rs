//! The call memory: bytes that Rust allocates and `encode.js` writes its
//! calls into, through an external `ArrayBuffer` over them. The plugin's hot
//! path then calls `__observeMemory()` with no arguments: Rust already knows
//! where the call lies, and spares the two Node-API calls that find the
//! arguments and the buffer's bytes (`napi_get_cb_info`,
//! `napi_get_arraybuffer_info`), about a twentieth of a small call.
//!
//! One memory per thread is current (a thread-local holds it); a new one
//! replaces it, and the replaced one's header says it is no longer current,
//! so a second copy of `encode.js` in the same thread (a test runner's
//! isolated module graph) hands its own buffer to `__observeEncoded`
//! instead. Each memory is shared by the thread-local and the `ArrayBuffer`
//! (an `Rc`, whose last owner frees it; both live on the thread that made
//! it): neither JavaScript dropping the buffer nor Rust replacing it can leave
//! the other with freed bytes. Runtimes that refuse external buffers get none,
//! and `encode.js` allocates its own.

use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::ptr;
use std::rc::Rc;

use napi::sys::{self, napi_callback_info, napi_env, napi_value};
use napi::{Error, Result, Status};

use crate::js::{answer, Js};
use crate::wire::{whole, CURRENT, HEADER};

/// Zeroed words (8-aligned, as the header's `f64`s need) that JavaScript
/// writes through its buffer between calls and Rust reads during them. In
/// cells: JavaScript writes them while Rust holds the memory.
pub(crate) struct Memory {
    words: Box<[Cell<u64>]>,
}

impl Memory {
    /// At least `len` zeroed bytes, a whole number of words; `None` when they cannot be had.
    fn zeroed(len: usize) -> Option<Self> {
        let count = len.div_ceil(8);
        let mut words = Vec::new();
        words.try_reserve_exact(count).ok()?;
        words.resize_with(count, || Cell::new(0));
        Some(Memory {
            words: words.into_boxed_slice(),
        })
    }

    /// A copy of the header, as `encode.js` last wrote it.
    pub(crate) fn header(&self) -> Option<[f64; HEADER]> {
        let words = self.words.first_chunk::<HEADER>()?;
        Some(words.each_ref().map(|word| f64::from_bits(word.get())))
    }

    /// The bytes, borrowed while `js` runs no JavaScript (which takes it `&mut`).
    pub(crate) fn bytes<'a>(&'a self, _js: &'a Js<'_>) -> &'a [u8] {
        // SAFETY: the words' bytes, `u64`s in `Cell`s, which have their layout: initialized and
        // any byte a `u8`. Nothing writes them while the slice lives: JavaScript writes them only
        // when it runs, which takes `js` mutably; Rust writes only `set_current`'s slot, called
        // from `__callMemory`, which only JavaScript calls.
        unsafe {
            std::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), self.words.len() * 8)
        }
    }

    /// Marks this memory current or not, in the header slot `encode.js` reads.
    fn set_current(&self, current: bool) {
        if let Some(word) = self.words.get(CURRENT) {
            word.set(f64::to_bits(if current { 1.0 } else { 0.0 }));
        }
    }
}

/// The largest memory asked for: the header and `encode.js`'s 128 MB cap, with room to spare.
const MAX_BYTES: usize = 1 << 28;

/// `__callMemory(bytes)`: a new current memory of `bytes` bytes (at least the
/// header), as an `ArrayBuffer`; `undefined` where external buffers are not
/// allowed.
pub unsafe extern "C" fn create(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: `env` is what Node-API called `__callMemory` with; `js` is a local, dropped when
    // this returns.
    let js = unsafe { Js::from_callback(env) };
    answer(&js, create_buffer(&js, info))
}

fn create_buffer(js: &Js, info: napi_callback_info) -> Result<napi_value> {
    let [bytes] = js.args::<1>(info, "__callMemory takes the byte length")?;
    let bytes = whole(js.number(bytes)?, "memory size")?;
    if !(HEADER * 8..=MAX_BYTES).contains(&bytes) {
        return Err(Error::new(
            Status::InvalidArg,
            "repeat-tool-guard: memory size out of range".to_owned(),
        ));
    }
    // emnapi, the Node-API of the WASI build, makes an external `ArrayBuffer` a copy of the bytes:
    // what JavaScript writes there never reaches them. No call memory there.
    if cfg!(target_family = "wasm") {
        return Ok(ptr::null_mut());
    }
    let memory = Rc::new(Memory::zeroed(bytes).ok_or_else(|| {
        Error::new(
            Status::GenericFailure,
            "repeat-tool-guard: out of memory for the call memory".to_owned(),
        )
    })?);
    // The buffer's share, released by its finalizer.
    let share = Box::into_raw(Box::new(Rc::clone(&memory)));
    let mut buffer = ptr::null_mut();
    // SAFETY: `js`'s env is the running call's. The `bytes` bytes at the words' address (no more
    // than the words hold) stay allocated while the buffer lives: `share` keeps the memory's `Rc`
    // alive until the buffer's finalizer drops it, on this thread, the env's. JavaScript may write
    // them: they are `Cell`s.
    let status = unsafe {
        sys::napi_create_external_arraybuffer(
            js.raw(),
            memory.words.as_ptr().cast_mut().cast::<c_void>(),
            bytes,
            Some(drop_share),
            share.cast::<c_void>(),
            &mut buffer,
        )
    };
    if status != sys::Status::napi_ok {
        // SAFETY: `share` came from `Box::into_raw` above and, the buffer not made, is still ours.
        drop(unsafe { Box::from_raw(share) });
        // `undefined`: encode.js allocates its own buffers.
        return Ok(ptr::null_mut());
    }
    set_current(memory);
    Ok(buffer)
}

unsafe extern "C" fn drop_share(_env: napi_env, _data: *mut c_void, share: *mut c_void) {
    // SAFETY: the `Box<Rc<Memory>>` that `create_buffer` handed this buffer, which Node-API
    // finalizes once, on the env's thread, where the `Rc` was made.
    drop(unsafe { Box::from_raw(share.cast::<Rc<Memory>>()) });
}

thread_local! {
    /// The thread's current call memory: the one `__observeMemory()` reads.
    static CURRENT_MEMORY: RefCell<Option<Rc<Memory>>> = const { RefCell::new(None) };
}

/// Makes `memory` the thread's current call memory, and marks it so; the one
/// it replaces is marked not current.
fn set_current(memory: Rc<Memory>) {
    // Fails only while the thread is shutting down, or from a getter run during a call: then
    // the memory is not current, and encode.js hands its buffer to `__observeEncoded`.
    let _ = CURRENT_MEMORY.try_with(|current| {
        if let Ok(mut current) = current.try_borrow_mut() {
            memory.set_current(true);
            if let Some(replaced) = current.replace(memory) {
                replaced.set_current(false);
            }
        }
    });
}

/// `f` of the current call memory, or `None` when there is none.
pub fn with_current<R>(f: impl FnOnce(&Memory) -> R) -> Option<R> {
    CURRENT_MEMORY
        .try_with(|current| Some(f(current.try_borrow().ok()?.as_ref()?)))
        .ok()
        .flatten()
}
