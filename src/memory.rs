//! The call memory: bytes that Rust allocates and `encode.js` writes its
//! calls into, through an external `ArrayBuffer` over them. The plugin's hot
//! path then calls `__observeMemory()` with no arguments: Rust already knows
//! where the call lies, and spares the two Node-API calls that find the
//! arguments and the buffer's bytes (`napi_get_cb_info`,
//! `napi_get_arraybuffer_info`), about a twentieth of a small call.
//!
//! One memory per thread is current (the registry's table holds it); a new
//! one replaces it, and the replaced one's header says it is no longer
//! current, so a second copy of `encode.js` in the same thread (a test
//! runner's isolated module graph) hands its own buffer to
//! `__observeEncoded` instead. Each memory is shared by the table and the
//! `ArrayBuffer` (an `Arc`, whose last owner frees it): neither JavaScript
//! dropping the buffer nor Rust replacing it can leave the other with freed
//! bytes. Runtimes that refuse external buffers get none, and `encode.js`
//! allocates its own.

use std::alloc::{self, Layout};
use std::cell::RefCell;
use std::ffi::c_void;
use std::ptr::{self, NonNull};
use std::sync::Arc;

use napi::sys::{self, napi_callback_info, napi_env, napi_value};
use napi::{Error, Result, Status};

use crate::js::{answer, read_args, Js};
use crate::wire::{whole, CURRENT, HEADER};

/// Zeroed bytes (8-aligned, as the header's `f64`s need) that JavaScript
/// writes through its buffer between calls and Rust reads during them.
pub(crate) struct Memory {
    bytes: NonNull<u8>,
    layout: Layout,
}

// SAFETY: plain bytes with no references into them between calls; JavaScript
// writes them on its own thread, and Rust reads them only inside a call from
// that thread, while no JavaScript runs.
unsafe impl Send for Memory {}
// SAFETY: as for `Send`: every access happens on the thread that made the memory.
unsafe impl Sync for Memory {}

impl Memory {
    /// `len` zeroed bytes (0 < `len`); `None` when they cannot be had.
    fn zeroed(len: usize) -> Option<Self> {
        let layout = Layout::from_size_align(len, 8).ok()?;
        // SAFETY: the layout is not empty (callers ask for at least the header).
        let bytes = NonNull::new(unsafe { alloc::alloc_zeroed(layout) })?;
        Some(Memory { bytes, layout })
    }

    /// The bytes' address and length.
    pub(crate) fn bytes(&self) -> (*const u8, usize) {
        (self.bytes.as_ptr().cast_const(), self.layout.size())
    }

    /// Marks this memory current or not, in the header slot `encode.js` reads.
    pub(crate) fn set_current(&self, current: bool) {
        // SAFETY: the header lies within the bytes, 8-aligned, and no JavaScript runs during a
        // call.
        unsafe {
            self.bytes
                .as_ptr()
                .cast::<f64>()
                .add(CURRENT)
                .write(if current { 1.0 } else { 0.0 });
        }
    }
}

impl Drop for Memory {
    fn drop(&mut self) {
        // SAFETY: allocated by `zeroed` with this layout, freed once, by its last owner.
        unsafe { alloc::dealloc(self.bytes.as_ptr(), self.layout) };
    }
}

/// The largest memory asked for: the header and `encode.js`'s 128 MB cap, with room to spare.
const MAX_BYTES: usize = 1 << 28;

/// `__callMemory(bytes)`: a new current memory of `bytes` bytes (at least the
/// header), as an `ArrayBuffer`; `undefined` where external buffers are not
/// allowed.
pub unsafe extern "C" fn create(env: napi_env, info: napi_callback_info) -> napi_value {
    let js = Js { env };
    answer(js, create_buffer(js, info))
}

fn create_buffer(js: Js, info: napi_callback_info) -> Result<napi_value> {
    let [bytes] = read_args::<1>(js, info, "__callMemory takes the byte length")?;
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
    let memory = Arc::new(Memory::zeroed(bytes).ok_or_else(|| {
        Error::new(
            Status::GenericFailure,
            "repeat-tool-guard: out of memory for the call memory".to_owned(),
        )
    })?);
    // The buffer's share, released by its finalizer.
    let share = Box::into_raw(Box::new(Arc::clone(&memory)));
    let mut buffer = ptr::null_mut();
    // SAFETY: `js.env` is the env of the call now running. The bytes stay allocated while the
    // buffer lives: `share` keeps the memory's `Arc` alive until the buffer's finalizer drops it.
    let status = unsafe {
        sys::napi_create_external_arraybuffer(
            js.env,
            memory.bytes.as_ptr().cast::<c_void>(),
            bytes,
            Some(drop_share),
            share.cast::<c_void>(),
            &mut buffer,
        )
    };
    if status != sys::Status::napi_ok {
        // SAFETY: not handed to the buffer; still ours.
        drop(unsafe { Box::from_raw(share) });
        // `undefined`: encode.js allocates its own buffers.
        return Ok(ptr::null_mut());
    }
    set_current(memory);
    Ok(buffer)
}

unsafe extern "C" fn drop_share(_env: napi_env, _data: *mut c_void, share: *mut c_void) {
    // SAFETY: the `Box<Arc<Memory>>` that `create_buffer` handed this buffer, dropped once.
    drop(unsafe { Box::from_raw(share.cast::<Arc<Memory>>()) });
}

thread_local! {
    /// The thread's current call memory: the one `__observeMemory()` reads.
    static CURRENT_MEMORY: RefCell<Option<Arc<Memory>>> = const { RefCell::new(None) };
}

/// Makes `memory` the thread's current call memory, and marks it so; the one
/// it replaces is marked not current.
pub fn set_current(memory: Arc<Memory>) {
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

/// The current call memory's bytes: valid until the next `set_current`, which only JavaScript causes.
pub fn current() -> Option<(*const u8, usize)> {
    CURRENT_MEMORY
        .try_with(|current| {
            let current = current.try_borrow().ok()?;
            current.as_ref().map(|memory| memory.bytes())
        })
        .ok()
        .flatten()
}
