//! A JavaScript value's kind, and a string's code units, read through
//! napi-rs' typed API, for the class and the config (the hot path reads its
//! own way, `hot_path`).

use napi::bindgen_prelude::{Either, Unknown, Utf16String};
use napi::{JsValue, ValueType};

use crate::error::Failure;

/// The kind of `value`, as `typeof` names it (`null` apart); a kind Node-API
/// does not know is an object.
pub fn kind(value: &Unknown) -> Result<ValueType, Failure> {
    Ok(match value.get_type()? {
        ValueType::Unknown => ValueType::Object,
        kind => kind,
    })
}

/// The name `typeof` gives a value of `kind` (`null` for null).
pub fn kind_name(kind: ValueType) -> &'static str {
    match kind {
        ValueType::Undefined => "undefined",
        ValueType::Null => "null",
        ValueType::Boolean => "boolean",
        ValueType::Number => "number",
        ValueType::String => "string",
        ValueType::Symbol => "symbol",
        ValueType::Function => "function",
        ValueType::BigInt => "bigint",
        ValueType::External => "external",
        ValueType::Object | ValueType::Unknown => "object",
    }
}

/// The UTF-16 code units of `value`, a string, lone surrogates included.
pub fn units(value: &Unknown) -> Result<Vec<u16>, Failure> {
    // A string converts to itself: no JavaScript runs.
    let string = value.coerce_to_string()?;
    let len = string.utf16_len()?;
    let mut units = string.into_utf16()?.as_slice().to_vec();
    // napi-rs leaves the terminating NUL in the slice.
    units.truncate(len);
    Ok(units)
}

/// A string argument named `name`, read as UTF-16 code units (lone
/// surrogates included) by napi-rs as it checks the argument's type; anything
/// else is a `TypeError` naming it.
pub fn string_arg(value: StringArg, name: &'static str) -> Result<Utf16String, Failure> {
    match value {
        Either::A(units) => Ok(units),
        Either::B(other) => Err(Failure::NotAString {
            name,
            kind: kind_name(kind(&other)?),
        }),
    }
}

/// An argument that should be a string: its code units, or what it is instead.
pub type StringArg<'e> = Either<Utf16String, Unknown<'e>>;
