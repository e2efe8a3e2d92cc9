//! Getting a tool's result into Rust, for `sameResultOnly`: the canonical form
//! of `{ content, isError }`, with `isError` as a boolean (`Boolean(isError)`),
//! read through the same path as arguments (V8's `JSON.stringify`, so JSON's
//! rules apply to `content`: a missing `content` is left out).

use napi::sys::napi_value;
use napi::Result;

use crate::arguments::{self, ArgumentsText};
use crate::js::{ErrorClass, Js, Kind};

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
    let is_error = js.coerce_to_bool(js.named(result, c"isError")?)?;
    let object = js.object(&[(c"content", content), (c"isError", is_error)])?;
    arguments::read(js, object).map(Some)
}
