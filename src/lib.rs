//! Node binding of the repeat-tool-guard core: a thin layer that reads
//! JavaScript values, calls the core, and maps its errors to JavaScript ones.

mod arguments;
mod deep_json;
mod fast;
mod js;
mod memory;
mod prefix;
mod registry;
mod reminder;
mod result;
mod wire;

use napi::bindgen_prelude::{Env, Object, Unknown};
use napi::sys::{self, napi_value};
use napi::{JsValue, Result};
use napi_derive::napi;
use repeat_tool_guard_core::{
    Call, CanonicalError, ConfigError, Guard, GuardConfig, RawConfig, RawValue,
};

use js::{ErrorClass, Js, Kind};
use reminder::Reminder;

/// Turns a core error into the JavaScript error the API documents:
/// wrong types are `TypeError`s, wrong values plain `Error`s.
fn map_config_error(js: Js, error: ConfigError) -> napi::Error {
    let class = if error.is_type_error() {
        ErrorClass::TypeError
    } else {
        ErrorClass::Error
    };
    js.throw(class, &error.to_string())
}

fn map_canonical_error(js: Js, error: CanonicalError) -> napi::Error {
    js.throw(ErrorClass::Error, &error.to_string())
}

fn map_registry_error(js: Js, error: registry::RegistryError) -> napi::Error {
    js.throw(ErrorClass::Error, &error.to_string())
}

/// Reads a string argument named `name` as UTF-16 code units, lone surrogates
/// included; anything else is a `TypeError` naming it.
fn string_arg(js: Js, value: Unknown, name: &str) -> Result<Vec<u16>> {
    let value = value.raw();
    match js.kind(value)? {
        Kind::String => js.utf16(value),
        other => Err(js.throw(
            ErrorClass::TypeError,
            &format!(
                "repeat-tool-guard: {name} must be a string, got {}",
                other.name()
            ),
        )),
    }
}

/// Reads one config value; `list_level` says whether an array may still be a list.
fn raw_value(js: Js, value: napi_value, list_level: bool) -> Result<RawValue> {
    let kind = js.kind(value)?;
    Ok(match kind {
        Kind::Undefined => RawValue::Missing,
        Kind::Number => RawValue::Number(js.number(value)?),
        Kind::Boolean => RawValue::Bool(js.boolean(value)?),
        Kind::String => RawValue::String(js.utf16(value)?),
        Kind::Object if list_level && js.is_array(value)? => {
            let items = (0..js.array_length(value)?)
                .map(|index| raw_value(js, js.element(value, index)?, false))
                .collect::<Result<_>>()?;
            RawValue::List(items)
        }
        _ => {
            let kind = if kind == Kind::Object && js.is_array(value)? {
                "array"
            } else {
                kind.name()
            };
            RawValue::Other {
                shown: js.to_display(value)?,
                kind: kind.to_owned(),
            }
        }
    })
}

/// Reads a value the config expects to be an object with `fields` (each read
/// as a config value, arrays as lists); anything else is read as a plain value.
fn raw_object(js: Js, value: napi_value, fields: &[&std::ffi::CStr]) -> Result<RawValue> {
    if js.kind(value)? != Kind::Object || js.is_array(value)? {
        return raw_value(js, value, false);
    }
    let fields = fields
        .iter()
        .map(|name| {
            let field = raw_value(js, js.named(value, name)?, true)?;
            Ok((name.to_string_lossy().into_owned(), field))
        })
        .collect::<Result<_>>()?;
    Ok(RawValue::Object(fields))
}

/// `overrides`: a list of `{ tools, thresholds }` objects.
fn raw_overrides(js: Js, value: napi_value) -> Result<RawValue> {
    if js.kind(value)? != Kind::Object || !js.is_array(value)? {
        return raw_value(js, value, false);
    }
    let entries = (0..js.array_length(value)?)
        .map(|index| raw_object(js, js.element(value, index)?, &[c"tools", c"thresholds"]))
        .collect::<Result<_>>()?;
    Ok(RawValue::List(entries))
}

fn raw_config(js: Js, config: Option<napi_value>) -> Result<RawConfig> {
    let Some(config) = config else {
        return Ok(RawConfig::default());
    };
    match js.kind(config)? {
        Kind::Undefined | Kind::Null => return Ok(RawConfig::default()),
        Kind::Object if js.is_array(config)? => {
            return Err(map_config_error(
                js,
                ConfigError::NotAnObject("array".to_owned()),
            ))
        }
        Kind::Object => {}
        other => {
            return Err(map_config_error(
                js,
                ConfigError::NotAnObject(other.name().to_owned()),
            ))
        }
    }
    let field = |name: &std::ffi::CStr| raw_value(js, js.named(config, name)?, true);
    Ok(RawConfig {
        thresholds: field(c"thresholds")?,
        include: field(c"include")?,
        exclude: field(c"exclude")?,
        arguments_preview_chars: field(c"argumentsPreviewChars")?,
        cycles: raw_object(
            js,
            js.named(config, c"cycles")?,
            &[c"maxPeriod", c"repeats"],
        )?,
        same_result_only: field(c"sameResultOnly")?,
        overrides: raw_overrides(js, js.named(config, c"overrides")?)?,
        repeat_every: field(c"repeatEvery")?,
    })
}

/// Counts since the guard was made (`clear()` keeps them).
#[napi(object)]
pub struct GuardStats {
    /// Tracked calls counted into a chain.
    pub observed: f64,
    /// Reminders returned, every tier.
    pub reminders: f64,
    /// `gentle` reminders returned.
    pub gentle: f64,
    /// `detailed` reminders returned.
    pub detailed: f64,
    /// `cycle` reminders returned.
    pub cycle: f64,
}

/// Counts runs of identical tool calls per agent and says when to remind the model.
///
/// A call is identified by its tool name and canonical arguments; an agent's
/// run grows while it repeats the same call and restarts at 1 on a different
/// tracked call. Untracked tools (see `include` / `exclude`) are transparent.
#[napi]
pub struct RepeatToolGuard {
    /// The guard's number in this thread's [`registry`].
    id: f64,
}

impl Drop for RepeatToolGuard {
    fn drop(&mut self) {
        registry::remove(self.id);
    }
}

impl RepeatToolGuard {
    fn with<R>(&self, js: Js, f: impl FnOnce(&mut Guard) -> R) -> Result<R> {
        registry::with(self.id, f).map_err(|e| map_registry_error(js, e))
    }
}

#[napi]
impl RepeatToolGuard {
    /// Validates `config` (absent keys take their defaults) and throws on
    /// anything invalid: an `Error` with the documented message for a bad
    /// value, a `TypeError` naming the field for a wrong type.
    #[napi(constructor, ts_args_type = "config?: Config | null")]
    pub fn new(env: Env, config: Option<Unknown>) -> Result<Self> {
        let js = Js { env: env.raw() };
        let raw = raw_config(js, config.map(|c| c.raw()))?;
        let config = GuardConfig::from_raw(&raw).map_err(|e| map_config_error(js, e))?;
        let id = registry::insert(Guard::new(config)).map_err(|e| map_registry_error(js, e))?;
        Ok(Self { id })
    }

    /// Counts one call of `agentId` and returns the reminder due for it, or
    /// `null`. `args` is the call's arguments as the loop parsed them (or the
    /// raw string when their JSON was malformed). Throws for arguments with no
    /// JSON form (a `TypeError` naming the problem); the chain is then unchanged.
    ///
    /// `result`, the tool's result (`{ content, isError }`, as `tools/post-execute`
    /// receives it), matters only with `sameResultOnly`: the call then extends the
    /// run only when its canonical `{ content, isError }` also equals the previous
    /// call's. `undefined` or `null` is "no result", a value of its own. Without
    /// `sameResultOnly` it is never read.
    #[napi(
        ts_args_type = "agentId: string, toolName: string, args: unknown, result?: ToolResult | null"
    )]
    pub fn observe(
        &self,
        env: Env,
        agent_id: Unknown,
        tool_name: Unknown,
        args: Unknown,
        result: Option<Unknown>,
    ) -> Result<Option<Reminder>> {
        let js = Js { env: env.raw() };
        let agent_id = string_arg(js, agent_id, "agentId")?;
        let tool_name = string_arg(js, tool_name, "toolName")?;
        let (tracked, same_result_only) = self.with(js, |guard| {
            (guard.is_tracked(&tool_name), guard.same_result_only())
        })?;
        if !tracked {
            return Ok(None);
        }
        // Reading may run JavaScript (toJSON, getters): done before the guard is borrowed.
        let text = arguments::read(js, args.raw())?;
        let result = match result {
            Some(value) if same_result_only => result::read(js, value.raw())?,
            _ => None,
        };
        let reminder = self
            .with(js, |guard| {
                guard.observe(
                    Call::new(&agent_id, &tool_name, text.as_arguments())
                        .with_result(result.as_ref().map(|r| r.as_arguments()))
                        .known_tracked(),
                )
            })?
            .map_err(|e| map_canonical_error(js, e))?;
        Ok(reminder.map(Reminder::from))
    }

    /// Counts since the guard was made: tracked calls observed, reminders
    /// returned, and reminders per tier. Per guard, not per agent; `clear()` keeps them.
    #[napi]
    pub fn stats(&self, env: Env) -> Result<GuardStats> {
        self.with(Js { env: env.raw() }, |guard| {
            let stats = guard.stats();
            GuardStats {
                observed: stats.observed as f64,
                reminders: stats.reminders as f64,
                gentle: stats.gentle as f64,
                detailed: stats.detailed as f64,
                cycle: stats.cycle as f64,
            }
        })
    }

    /// A user prompt: the agent's chain starts over. Unknown ids are ignored.
    #[napi(ts_args_type = "agentId: string")]
    pub fn reset(&self, env: Env, agent_id: Unknown) -> Result<()> {
        let js = Js { env: env.raw() };
        let agent_id = string_arg(js, agent_id, "agentId")?;
        self.with(js, |guard| guard.reset(&agent_id))
    }

    /// The agent is gone: its chain state is dropped. Unknown ids are ignored.
    #[napi(ts_args_type = "agentId: string")]
    pub fn dispose(&self, env: Env, agent_id: Unknown) -> Result<()> {
        let js = Js { env: env.raw() };
        let agent_id = string_arg(js, agent_id, "agentId")?;
        self.with(js, |guard| guard.dispose(&agent_id))
    }

    /// Drops every agent's chain, as when the plugin is unloaded; the guard stays usable.
    #[napi]
    pub fn clear(&self, env: Env) -> Result<()> {
        self.with(Js { env: env.raw() }, repeat_tool_guard_core::Guard::clear)
    }

    /// Whether calls to `toolName` take part in chains.
    #[napi(ts_args_type = "toolName: string")]
    pub fn is_tracked(&self, env: Env, tool_name: Unknown) -> Result<bool> {
        let js = Js { env: env.raw() };
        let tool_name = string_arg(js, tool_name, "toolName")?;
        self.with(js, |guard| guard.is_tracked(&tool_name))
    }

    /// The validated thresholds, ascending.
    #[napi(getter)]
    pub fn thresholds(&self, env: Env) -> Result<Vec<f64>> {
        self.with(Js { env: env.raw() }, |guard| guard.thresholds().to_vec())
    }

    /// How many agents hold chain state.
    #[napi(getter)]
    pub fn agent_count(&self, env: Env) -> Result<u32> {
        self.with(Js { env: env.raw() }, |guard| {
            u32::try_from(guard.agent_count()).unwrap_or(u32::MAX)
        })
    }

    /// Internal: this guard's number for the plugin's `__observeEncoded` hot path.
    #[napi(js_name = "__handle", skip_typescript)]
    pub fn handle(&self) -> f64 {
        self.id
    }
}

/// Registers the raw hot-path functions next to the generated exports.
#[napi(module_exports)]
pub fn register_hot_path(exports: Object, env: Env) -> Result<()> {
    let js = Js { env: env.raw() };
    export_function(js, &exports, c"__observeEncoded", fast::observe_encoded)?;
    export_function(js, &exports, c"__observeMemory", fast::observe_memory)?;
    export_function(js, &exports, c"__callMemory", memory::create)
}

fn export_function(
    js: Js,
    exports: &Object,
    name: &std::ffi::CStr,
    callback: unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> napi_value,
) -> Result<()> {
    let mut function = std::ptr::null_mut();
    // SAFETY: `js.env` is the env of module initialization; `name` is NUL-terminated and its length
    // given; `callback` has the signature Node-API calls.
    let status = unsafe {
        sys::napi_create_function(
            js.env,
            name.as_ptr(),
            name.count_bytes() as isize,
            Some(callback),
            std::ptr::null_mut(),
            &mut function,
        )
    };
    if status != sys::Status::napi_ok {
        return Err(napi::Error::from_reason(format!(
            "repeat-tool-guard: could not create {}",
            name.to_string_lossy()
        )));
    }
    let status =
        // SAFETY: `js.env` is the live env; `exports` and `function` are its handles, `name` is
        // NUL-terminated.
        unsafe { sys::napi_set_named_property(js.env, exports.raw(), name.as_ptr(), function) };
    if status != sys::Status::napi_ok {
        return Err(napi::Error::from_reason(format!(
            "repeat-tool-guard: could not export {}",
            name.to_string_lossy()
        )));
    }
    Ok(())
}

/// The canonical text of `args`: `JSON.stringify` of a deep key-sorted copy,
/// integer-like keys first, as V8 orders them. A string is its JSON literal.
#[napi(ts_args_type = "args: unknown")]
pub fn canonicalize(env: Env, args: Unknown) -> Result<String> {
    let js = Js { env: env.raw() };
    let text = arguments::read(js, args.raw())?;
    let mut out = String::new();
    text.as_arguments()
        .write_canonical(&mut out)
        .map_err(|e| map_canonical_error(js, e))?;
    Ok(out)
}
