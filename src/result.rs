//! Getting a tool's result into Rust, for `sameResultOnly`: the canonical form
//! of `{ content, isError }`, with `isError` as a boolean (`Boolean(isError)`),
//! read through the same path as arguments (V8's `JSON.stringify`, so JSON's
//! rules apply to `content`: a missing `content` is left out).

use napi::bindgen_prelude::{Env, JsObjectValue, JsValue, Object, Unknown};

use crate::arguments::{self, ArgumentsText};
use crate::error::Failure;
use crate::js::Js;
use crate::kind::Kind;
use crate::value::kind;

/// The result's comparable text; `None` for `undefined` or `null` (no result,
/// a value of its own). Any other non-object is a `TypeError`.
pub fn read(env: Env, result: Unknown) -> Result<Option<ArgumentsText>, Failure> {
    match kind(&result)? {
        Kind::Undefined | Kind::Null => return Ok(None),
        Kind::Object | Kind::Function => {}
        other => return Err(Failure::ResultNotAnObject(other.name())),
    }
    let result = result.coerce_to_object()?;
    let content: Unknown = result.get_c_named_property(c"content")?;
    let is_error = result
        .get_c_named_property::<Unknown>(c"isError")?
        .coerce_to_bool()?;
    let mut comparable = Object::new(&env)?;
    comparable.set_c_named_property(c"content", content)?;
    comparable.set_c_named_property(c"isError", is_error)?;
    // SAFETY: every `Env` in this crate is one napi-rs handed a `#[napi]` function, passed down
    // while it runs (this module is private to the crate): here, the method reading this result.
    Ok(Some(arguments::read(
        &mut unsafe { Js::new(&env) },
        comparable.raw(),
    )?))
}
