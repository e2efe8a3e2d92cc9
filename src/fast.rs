//! The plugin's hot path, `__observeEncoded(buffer, pieces, widePieces)`: a
//! raw Node-API function, because napi-rs' argument conversions and class
//! unwrapping cost more than the rest of a small call. `encode.js` writes a
//! call into one `ArrayBuffer`, `buffer`: a header of [`HEADER`] `f64`s (the
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
//! `__observeAgain(handle)` counts a call whose arguments the
//! plugin found equal to the last call's (same agent and tool), from what the
//! guard kept of that call. When there is no reminder, each returns `null` if
//! the call repeated its agent's last one, else `undefined` (the plugin looks
//! for the next repeat only after one); `__observeAgain` returns `false` when
//! the guard cannot count the call so. All are internal: the public API is
//! `RepeatToolGuard`.

use std::cell::RefCell;
use std::ptr;

use napi::bindgen_prelude::{JsObjectValue, Object};
use napi::sys::{napi_callback_info, napi_env, napi_value};
use napi::{Error, Result, Status};
use repeat_tool_guard_core::{Arguments, Call, CanonicalError, Pieces};

use crate::header::{
    malformed, out_of_range, whole, HANDLE, HEADER, LENGTH, PIECES, RESULT_START, WIDE_PIECES,
};
use crate::js::{answer, Js};
use crate::prefix::Prefix;
use crate::registry;
use crate::reminder::Reminder;

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

/// Exports the raw functions, `__observeEncoded` and `__observeAgain`, on the module's `exports`.
pub fn register(exports: &mut Object) -> Result<()> {
    exports.create_c_named_method(c"__observeEncoded", observe_encoded)?;
    exports.create_c_named_method(c"__observeAgain", observe_again)
}

pub unsafe extern "C" fn observe_encoded(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: `env` is what Node-API called `__observeEncoded` with; `js`, a local, and every
    // borrow of it end when this returns.
    let mut js = unsafe { Js::from_callback(env) };
    let observed = observe(&mut js, info);
    answer(&js, observed)
}

/// A copy of the header at the start of `buffer`.
fn header_of(buffer: &[u8]) -> Result<[f64; HEADER]> {
    let (words, _) = buffer
        .first_chunk::<BYTES>()
        .ok_or_else(|| out_of_range("header"))?
        .as_chunks::<8>();
    let mut header = [0.0; HEADER];
    for (slot, word) in header.iter_mut().zip(words) {
        // `encode.js` writes them through a `Float64Array`: in the machine's byte order.
        *slot = f64::from_ne_bytes(*word);
    }
    Ok(header)
}

/// Reads the strings of `list` (`[string, …]`, `count` of them, as the
/// header says) with `append`, each one's end into `ends`.
fn read_list<'env, T>(
    js: &mut Js<'env>,
    list: napi_value,
    count: usize,
    (units, ends): (&mut Vec<T>, &mut Vec<usize>),
    append: impl Fn(&Js<'env>, napi_value, &mut Vec<T>) -> Result<()>,
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
        let string = js.element(list, index)?;
        append(js, string, units)?;
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
        js: &mut Js,
        (narrow, wide): (napi_value, napi_value),
        counts: [usize; 2],
    ) -> Result<()> {
        let [narrow_count, wide_count] = counts;
        read_list(
            js,
            narrow,
            narrow_count,
            (&mut self.narrow, &mut self.narrow_ends),
            Js::latin1_append,
        )?;
        read_list(
            js,
            wide,
            wide_count,
            (&mut self.wide, &mut self.wide_ends),
            Js::utf16_append,
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

/// Where the bytes start.
const BYTES: usize = HEADER * size_of::<f64>();

fn observe(js: &mut Js, info: napi_callback_info) -> Result<napi_value> {
    let [handed, narrow, wide] = js.args::<3>(info, "__observeEncoded takes 3 arguments")?;
    let buffer = js.array_buffer(handed)?;
    let header = header_of(buffer)?;
    let counts = [
        whole(header[PIECES], "piece count")?,
        whole(header[WIDE_PIECES], "wide piece count")?,
    ];
    if counts == [0, 0] {
        let outcome = observe_call(js, buffer, header, Pieces::NONE)?;
        return outcome.answer(js);
    }
    let outcome = PIECES_READ.with(|read| {
        let mut read = read.try_borrow_mut().map_err(|_| busy())?;
        read.read(js, (narrow, wide), counts)?;
        // Reading them may have run JavaScript: find the buffer again.
        let buffer = js.array_buffer(handed)?;
        let header = header_of(buffer)?;
        let narrow = strings(&read.narrow, &read.narrow_ends);
        let wide = strings(&read.wide, &read.wide_ends);
        let pieces = Pieces {
            narrow: &narrow,
            wide: &wide,
        };
        let outcome = observe_call(js, buffer, header, pieces);
        read.trim();
        outcome
    })?;
    outcome.answer(js)
}

/// Observes the call in `buffer` (`header` read from it) with its `pieces`
/// read already. `buffer` borrows `js`, so no JavaScript can run until this
/// returns; the outcome owns what it holds, and is made a JavaScript value
/// ([`Outcome::answer`], which may run JavaScript) once the borrow has ended.
fn observe_call(
    js: &Js,
    buffer: &[u8],
    header: [f64; HEADER],
    pieces: Pieces<'_>,
) -> Result<Outcome> {
    let [handle, length, narrow, wide, result_at] =
        [HANDLE, LENGTH, PIECES, WIDE_PIECES, RESULT_START].map(|slot| header[slot]);
    let length = whole(length, "length")?;
    let bytes = buffer
        .get(BYTES..)
        .and_then(|bytes| bytes.get(..length))
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
    let outcome = registry::with_prefix(handle, |guard, prefix| {
        match call_in(bytes, prefix, result_at, guard.takes_results(), pieces) {
            Ok(call) => {
                let observed = guard.observe(call);
                Outcome::of(observed, guard.repeated())
            }
            Err(error) => Outcome::Refused(Box::new(error)),
        }
    });
    // Thrown once the guard is no longer borrowed.
    outcome.map_err(|e| js.throw(&e.to_string()))
}

/// The call `bytes` hold: the agent id and tool name (`prefix` reads them),
/// the arguments, and from `result_at` (0: none) the tool result.
fn call_in<'a>(
    bytes: &'a [u8],
    prefix: &'a mut Prefix,
    result_at: usize,
    same_result_only: bool,
    pieces: Pieces<'a>,
) -> Result<Call<'a>> {
    let (agent, tool, arguments_at) = prefix.read(bytes)?;
    let (arguments, result) = match result_at {
        0 => (bytes.get(arguments_at..), None),
        _ if !same_result_only => return Err(malformed("call: a result without sameResultOnly")),
        _ if result_at < arguments_at => return Err(out_of_range("result start")),
        _ => (bytes.get(arguments_at..result_at), bytes.get(result_at..)),
    };
    let transport = |bytes| Arguments::Transport { bytes, pieces };
    let arguments = arguments.ok_or_else(|| out_of_range("result start"))?;
    // The plugin calls this only for tools its cache already found tracked.
    Ok(Call::new(agent, tool, transport(arguments))
        .with_result(result.map(transport))
        .known_tracked())
}

/// A counted call's outcome as it leaves the guard's borrow: small, so that
/// the common one, no reminder, is not a large value moved through each layer
/// of results on the way out. A reminder (rare) is boxed.
enum Outcome {
    /// No reminder; whether the call repeated its agent's last one.
    Quiet {
        repeated: bool,
    },
    Reminder(Box<repeat_tool_guard_core::Reminder>),
    /// The guard could not count the call.
    Failed(CanonicalError),
    /// The call's bytes were refused before it reached the guard.
    Refused(Box<Error>),
}

impl Outcome {
    fn of(
        observed: std::result::Result<Option<repeat_tool_guard_core::Reminder>, CanonicalError>,
        repeated: bool,
    ) -> Self {
        match observed {
            Ok(None) => Outcome::Quiet { repeated },
            Ok(Some(reminder)) => Outcome::Reminder(Box::new(reminder)),
            Err(error) => Outcome::Failed(error),
        }
    }

    /// What the call gives JavaScript: its reminder; or with none, `null` when
    /// it repeated its agent's last call, else `undefined`.
    fn answer(self, js: &mut Js) -> Result<napi_value> {
        match self {
            Outcome::Quiet { repeated: true } => js.null(),
            // `undefined` in JavaScript (a null result), cheaper than asking for it.
            Outcome::Quiet { repeated: false } => Ok(ptr::null_mut()),
            Outcome::Reminder(reminder) => js.make(Reminder::from(*reminder)),
            Outcome::Failed(error) => Err(js.throw(&error.to_string())),
            Outcome::Refused(error) => Err(*error),
        }
    }
}

/// `__observeAgain(handle)`: counts, for the guard with `handle`, a call whose
/// agent, tool and arguments are those of the last call it counted
/// (`Guard::observe_again`); `false` when the guard cannot.
pub unsafe extern "C" fn observe_again(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: `env` is what Node-API called `__observeAgain` with; `js`, a local, ends when this
    // returns.
    let mut js = unsafe { Js::from_callback(env) };
    let observed = again(&mut js, info);
    answer(&js, observed)
}

fn again(js: &mut Js, info: napi_callback_info) -> Result<napi_value> {
    let [handle] = js.args::<1>(info, "__observeAgain takes the guard's handle")?;
    let handle = js.number(handle)?;
    let outcome = registry::with(handle, |guard| {
        let observed = guard.observe_again()?;
        Some(Outcome::of(observed, guard.repeated()))
    })
    .map_err(|e| js.throw(&e.to_string()))?;
    match outcome {
        Some(outcome) => outcome.answer(js),
        None => js.boolean_value(false),
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
