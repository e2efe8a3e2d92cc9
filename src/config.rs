//! Reading the constructor's config into the core's [`RawConfig`], through
//! napi-rs' typed API: every value as JavaScript gave it (its type, a
//! string's UTF-16 code units, how a message writes what the core does not
//! read), for the core to validate. Only the keys the guard declares
//! (`OPTIONS`) are read, each once, in order.

use napi::bindgen_prelude::{Env, Function, JsObjectValue, JsValue, Object, Unknown};
use napi::ValueType;
use repeat_tool_guard_core::{ConfigError, RawConfig, RawValue, Shape, OPTIONS, SHOWN_ITEMS};

use crate::error::Failure;
use crate::js_values::{kind, units};

/// `String(value)`: how a message writes a symbol or a bigint.
fn string_of(env: Env, value: Unknown) -> Result<String, Failure> {
    let string: Function<Unknown, Unknown> = env.get_global()?.get_named_property("String")?;
    Ok(String::from_utf16_lossy(&units(&string.call(value)?)?))
}

/// The object `value` is (an object or an array: itself).
fn object<'e>(value: &Unknown<'e>) -> Result<Object<'e>, Failure> {
    Ok(value.coerce_to_object()?)
}

/// Reads one config value. `depth` counts the arrays around it: a config
/// list (depth 0) is read whole; an array within one only as far as a message
/// shows it, and one deeper not at all.
fn raw_value(env: Env, value: Unknown, depth: usize) -> Result<RawValue, Failure> {
    let other = |kind: &str, written: String| RawValue::Other {
        kind: kind.to_owned(),
        written,
    };
    Ok(match kind(&value)? {
        ValueType::Undefined => RawValue::Missing,
        ValueType::Null => RawValue::Null,
        ValueType::Number => RawValue::Number(value.coerce_to_number()?.get_double()?),
        ValueType::Boolean => RawValue::Bool(value.coerce_to_bool()?),
        ValueType::String => RawValue::String(units(&value)?),
        ValueType::Object if value.is_array()? => {
            let list = object(&value)?;
            let len = list.get_array_length()?;
            if depth >= 2 {
                return Ok(other(
                    "array",
                    if len == 0 { "[]" } else { "[…]" }.to_owned(),
                ));
            }
            let read = if depth == 0 {
                len
            } else {
                len.min(SHOWN_ITEMS as u32 + 1)
            };
            let items = (0..read)
                .map(|index| raw_value(env, list.get_element(index)?, depth + 1))
                .collect::<Result<_, _>>()?;
            RawValue::List(items)
        }
        ValueType::Object | ValueType::Unknown => other("object", "{…}".to_owned()),
        ValueType::Function => other("function", "function".to_owned()),
        ValueType::Symbol => other("symbol", string_of(env, value)?),
        ValueType::BigInt => other("bigint", format!("{}n", string_of(env, value)?)),
        ValueType::External => other("external", "external".to_owned()),
    })
}

/// Reads a value the config expects to be an object with `fields` (each read
/// as a config value, arrays as lists); anything else is read as a plain value.
fn raw_object(env: Env, value: Unknown, fields: &[&str]) -> Result<RawValue, Failure> {
    if kind(&value)? != ValueType::Object || value.is_array()? {
        return raw_value(env, value, 0);
    }
    let object = object(&value)?;
    let fields = fields
        .iter()
        .map(|&name| {
            let field = raw_value(env, object.get_named_property(name)?, 0)?;
            Ok((name.to_owned(), field))
        })
        .collect::<Result<_, Failure>>()?;
    Ok(RawValue::Object(fields))
}

/// A list of objects with `fields` (`overrides`, `ignoreArguments`).
fn raw_entries(env: Env, value: Unknown, fields: &[&str]) -> Result<RawValue, Failure> {
    if kind(&value)? != ValueType::Object || !value.is_array()? {
        return raw_value(env, value, 0);
    }
    let list = object(&value)?;
    let entries = (0..list.get_array_length()?)
        .map(|index| raw_object(env, list.get_element(index)?, fields))
        .collect::<Result<_, _>>()?;
    Ok(RawValue::List(entries))
}

/// The config as JavaScript gave it: `undefined` and `null` are the defaults,
/// anything but an object a `TypeError`. Each option is read by its declared shape.
pub fn read(env: Env, config: Option<Unknown>) -> Result<RawConfig, Failure> {
    let Some(config) = config else {
        return Ok(RawConfig::default());
    };
    match kind(&config)? {
        ValueType::Undefined | ValueType::Null => return Ok(RawConfig::default()),
        ValueType::Object if !config.is_array()? => {}
        // Read as an array within a config is, to be shown.
        _ => return Err(ConfigError::not_an_object(&raw_value(env, config, 1)?).into()),
    }
    let config = object(&config)?;
    OPTIONS
        .iter()
        .try_fold(RawConfig::default(), |raw, option| {
            let value: Unknown = config.get_named_property(option.name)?;
            let value = match option.shape {
                Shape::Value => raw_value(env, value, 0)?,
                Shape::Object(fields) => raw_object(env, value, fields)?,
                Shape::Entries(fields) => raw_entries(env, value, fields)?,
            };
            Ok(raw.with(option.name, value))
        })
}
