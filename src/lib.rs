//! Node binding of the repeat-tool-guard core: a thin layer that reads
//! JavaScript values, calls the core, and maps its errors to JavaScript ones.

mod arguments;
mod deep_json;
mod fast;
mod js;
mod registry;

use napi::bindgen_prelude::{Env, Object, Unknown, Utf16String};
use napi::sys::{self, napi_value};
use napi::{JsValue, Result};
use napi_derive::napi;
use repeat_tool_guard_core::{
    CanonicalError, ConfigError, Guard, GuardConfig, RawConfig, RawValue,
};

use js::{ErrorClass, Js, Kind};

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

/// Reads one config value; `list_level` says whether an array may still be a list.
fn raw_value(js: Js, value: napi_value, list_level: bool) -> Result<RawValue> {
    let kind = js.kind(value)?;
    Ok(match kind {
        Kind::Undefined => RawValue::Missing,
        Kind::Number => RawValue::Number(js.number(value)?),
        Kind::String => RawValue::String(String::from_utf16_lossy(&js.utf16(value)?)),
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

fn raw_config(js: Js, config: Option<napi_value>) -> Result<RawConfig> {
    let Some(config) = config else {
        return Ok(RawConfig::default());
    };
    match js.kind(config)? {
        Kind::Undefined | Kind::Null => return Ok(RawConfig::default()),
        Kind::Object | Kind::Function => {}
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
    })
}

/// A reminder due for the call just observed.
#[napi(object)]
pub struct Reminder {
    /// `gentle` at the first threshold, `detailed` at every later one.
    #[napi(ts_type = "'gentle' | 'detailed'")]
    pub tier: String,
    /// The run length that reached the threshold.
    pub count: f64,
    /// The text the model reads, exactly as the reference plugin words it.
    pub text: Utf16String,
}

impl From<repeat_tool_guard_core::Reminder> for Reminder {
    fn from(reminder: repeat_tool_guard_core::Reminder) -> Self {
        Self {
            tier: reminder.tier.as_str().to_owned(),
            count: reminder.count as f64,
            text: reminder.text.into(),
        }
    }
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
    #[napi(ts_args_type = "agentId: string, toolName: string, args: unknown")]
    pub fn observe(
        &self,
        env: Env,
        agent_id: String,
        tool_name: String,
        args: Unknown,
    ) -> Result<Option<Reminder>> {
        let js = Js { env: env.raw() };
        if !self.with(js, |guard| guard.is_tracked(&tool_name))? {
            return Ok(None);
        }
        // Reading may run JavaScript (toJSON, getters): done before the guard is borrowed.
        let text = arguments::read(js, args.raw())?;
        let reminder = self
            .with(js, |guard| {
                guard.observe_tracked(&agent_id, &tool_name, text.as_arguments())
            })?
            .map_err(|e| map_canonical_error(js, e))?;
        Ok(reminder.map(Reminder::from))
    }

    /// A user prompt: the agent's chain starts over. Unknown ids are ignored.
    #[napi]
    pub fn reset(&self, env: Env, agent_id: String) -> Result<()> {
        self.with(Js { env: env.raw() }, |guard| guard.reset(&agent_id))
    }

    /// The agent is gone: its chain state is dropped. Unknown ids are ignored.
    #[napi]
    pub fn dispose(&self, env: Env, agent_id: String) -> Result<()> {
        self.with(Js { env: env.raw() }, |guard| guard.dispose(&agent_id))
    }

    /// Whether calls to `toolName` take part in chains.
    #[napi]
    pub fn is_tracked(&self, env: Env, tool_name: String) -> Result<bool> {
        self.with(Js { env: env.raw() }, |guard| guard.is_tracked(&tool_name))
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

/// Registers the raw hot-path function next to the generated exports.
#[napi(module_exports)]
pub fn register_hot_path(exports: Object, env: Env) -> Result<()> {
    let js = Js { env: env.raw() };
    let mut function = std::ptr::null_mut();
    let name = c"__observeEncoded";
    let status = unsafe {
        sys::napi_create_function(
            js.env,
            name.as_ptr(),
            name.count_bytes() as isize,
            Some(fast::observe_encoded),
            std::ptr::null_mut(),
            &mut function,
        )
    };
    if status != sys::Status::napi_ok {
        return Err(napi::Error::from_reason(
            "repeat-tool-guard: could not create __observeEncoded",
        ));
    }
    let status =
        unsafe { sys::napi_set_named_property(js.env, exports.raw(), name.as_ptr(), function) };
    if status != sys::Status::napi_ok {
        return Err(napi::Error::from_reason(
            "repeat-tool-guard: could not export __observeEncoded",
        ));
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
