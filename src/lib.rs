//! Node binding of the repeat-tool-guard core: a thin layer that reads the
//! calls JavaScript hands it (JSON text, or `lib/encode.js`' bytes), calls the
//! core, and maps its errors to JavaScript ones.

mod config;
mod error;
mod header;
mod hot_path;
mod js_values;
mod prefix;
mod registry;
mod reminder;

use napi::bindgen_prelude::{Env, Object, Unknown};
use napi::Result;
use napi_derive::napi;
use repeat_tool_guard_core::{Arguments, Call, CanonicalError, Guard, GuardConfig, Tier};

use error::{map_error, Failure};
use js_values::{string_arg, StringArg};
use reminder::Reminder;

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
    /// Runs `f` on this guard (a stale one is an `Error`).
    fn with<R>(&self, env: Env, f: impl FnOnce(&mut Guard) -> R) -> Result<R> {
        registry::with(self.id, f).map_err(|e| map_error(env, e.into()))
    }

    /// Reads one call (agent id, tool name, and as JSON text its arguments and, with
    /// `sameResultOnly`, `noProgress` or `failures`, its result) and runs `f` on this guard with
    /// it; `None` for an untracked tool.
    fn with_call<R>(
        &self,
        env: Env,
        (agent_id, tool_name, args, result): (StringArg, StringArg, Option<String>, Option<String>),
        f: impl FnOnce(&mut Guard, Call<'_>) -> std::result::Result<R, CanonicalError>,
    ) -> Result<Option<R>> {
        let read = |value, name| string_arg(value, name).map_err(|f| map_error(env, f));
        let (agent_id, tool_name) = (read(agent_id, "agentId")?, read(tool_name, "toolName")?);
        let done = self.with(env, |guard| {
            if !guard.is_tracked(&tool_name) {
                return Ok(None);
            }
            // Text that is missing is no JSON: an error, as for any text that does not parse.
            let args = Arguments::Json(args.as_deref().unwrap_or_default());
            let result = result.as_deref().filter(|_| guard.takes_results());
            let call = Call::new(&agent_id, &tool_name, args)
                .with_result(result.map(Arguments::Json))
                .known_tracked();
            f(guard, call).map(Some)
        })?;
        done.map_err(|e| map_error(env, e.into()))
    }

    /// Runs `f` on this guard with the agent id or tool name `value` read as `name`.
    fn with_string<R>(
        &self,
        env: Env,
        value: StringArg,
        name: &'static str,
        f: impl FnOnce(&mut Guard, &[u16]) -> R,
    ) -> Result<R> {
        let units = string_arg(value, name).map_err(|failure| map_error(env, failure))?;
        self.with(env, |guard| f(guard, &units))
    }
}

#[napi]
impl RepeatToolGuard {
    /// Validates `config` (absent keys take their defaults) and throws on
    /// anything invalid: an `Error` with the documented message for a bad
    /// value, a `TypeError` naming the field for a wrong type.
    #[napi(constructor, ts_args_type = "config?: Config | null")]
    pub fn new(env: Env, config: Option<Unknown>) -> Result<Self> {
        let made = config::read(env, config).and_then(|raw| {
            let config = GuardConfig::from_raw(&raw)?;
            Ok(registry::insert(Guard::new(config))?)
        });
        let id = made.map_err(|failure| map_error(env, failure))?;
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
        agent_id: StringArg,
        tool_name: StringArg,
        args: Option<String>,
        result: Option<String>,
    ) -> Result<Option<Reminder>> {
        // `lib/guard.js` hands the native method the arguments and the result as JSON text.
        let reminder = self.with_call(env, (agent_id, tool_name, args, result), Guard::observe)?;
        Ok(reminder.flatten().map(Reminder::from))
    }

    /// Counts a call from the agent's past into its chain, as `observe` would,
    /// without a reminder and without changing `stats()`: for rebuilding a
    /// resumed agent's chain from its session's log. Arguments as for `observe`;
    /// `times` (an integer >= 1, default 1) restores the same call that many
    /// times in a row, in work that stops growing past 256 of them.
    #[napi(
        ts_args_type = "agentId: string, toolName: string, args: unknown, result?: ToolResult | null, times?: number"
    )]
    pub fn restore(
        &self,
        env: Env,
        agent_id: StringArg,
        tool_name: StringArg,
        args: Option<String>,
        result: Option<String>,
        times: Option<f64>,
    ) -> Result<()> {
        let times = match times {
            None => 1,
            Some(times) if times.is_finite() && times.fract() == 0.0 && times >= 1.0 => {
                times as u64
            }
            Some(times) => return Err(map_error(env, Failure::Times(times))),
        };
        self.with_call(env, (agent_id, tool_name, args, result), |guard, call| {
            guard.restore_times(call, times)
        })?;
        Ok(())
    }

    /// Counts since the guard was made: tracked calls observed, reminders
    /// returned, and reminders per tier. Per guard, not per agent; `clear()` keeps them.
    #[napi(ts_return_type = "GuardStats")]
    pub fn stats(&self, env: Env) -> Result<Object<'_>> {
        let stats = self.with(env, |guard| guard.stats())?;
        let mut object = Object::new(&env)?;
        object.set("observed", stats.observed as f64)?;
        object.set("reminders", stats.reminders as f64)?;
        for tier in Tier::ALL {
            object.set(tier.as_str(), stats.of(tier) as f64)?;
        }
        Ok(object)
    }

    /// The agent's next calls belong to a new model response (`perResponse`: the agent's last call
    /// again in the same response is left out). Without `perResponse`, or for an unknown id, nothing.
    #[napi(ts_args_type = "agentId: string")]
    pub fn next_response(&self, env: Env, agent_id: StringArg) -> Result<()> {
        self.with_string(env, agent_id, "agentId", Guard::next_response)
    }

    /// A user prompt: the agent's chain starts over. Unknown ids are ignored.
    #[napi(ts_args_type = "agentId: string")]
    pub fn reset(&self, env: Env, agent_id: StringArg) -> Result<()> {
        self.with_string(env, agent_id, "agentId", Guard::reset)
    }

    /// The agent is gone: its chain state is dropped. Unknown ids are ignored.
    #[napi(ts_args_type = "agentId: string")]
    pub fn dispose(&self, env: Env, agent_id: StringArg) -> Result<()> {
        self.with_string(env, agent_id, "agentId", Guard::dispose)
    }

    /// Drops every agent's chain, as when the plugin is unloaded; the guard stays usable.
    #[napi]
    pub fn clear(&self, env: Env) -> Result<()> {
        self.with(env, Guard::clear)
    }

    /// Whether calls to `toolName` take part in chains.
    #[napi(ts_args_type = "toolName: string")]
    pub fn is_tracked(&self, env: Env, tool_name: StringArg) -> Result<bool> {
        self.with_string(env, tool_name, "toolName", |guard, tool| {
            guard.is_tracked(tool)
        })
    }

    /// The validated thresholds, ascending.
    #[napi(getter)]
    pub fn thresholds(&self, env: Env) -> Result<Vec<f64>> {
        self.with(env, |guard| guard.thresholds().to_vec())
    }

    /// Whether `observe` reads the tool result (`sameResultOnly`, `noProgress`, `failures`): callers pass it only then.
    #[napi(getter)]
    pub fn takes_results(&self, env: Env) -> Result<bool> {
        self.with(env, |guard| guard.takes_results())
    }

    /// `perResponse`, as validated (a profile's settings applied): the caller then says where each model response starts.
    #[napi(getter)]
    pub fn per_response(&self, env: Env) -> Result<bool> {
        self.with(env, |guard| guard.config().per_response)
    }

    /// `stopAt`, as validated (a profile's settings applied), or `null` when calls are never stopped.
    #[napi(getter)]
    pub fn stop_at(&self, env: Env) -> Result<Option<f64>> {
        self.with(env, |guard| guard.config().stop_at)
    }

    /// `resume`, as validated (a profile's settings applied): the caller rebuilds a resumed agent's chain.
    #[napi(getter)]
    pub fn resume(&self, env: Env) -> Result<bool> {
        self.with(env, |guard| guard.config().resume)
    }

    /// How many agents hold chain state.
    #[napi(getter)]
    pub fn agent_count(&self, env: Env) -> Result<u32> {
        self.with(env, |guard| {
            u32::try_from(guard.agent_count()).unwrap_or(u32::MAX)
        })
    }

    /// Internal: this guard's number for the plugin's `__observeEncoded` hot path.
    #[napi(js_name = "__handle", skip_typescript)]
    pub fn handle(&self) -> f64 {
        self.id
    }
}

/// Exports the plugin's hot path (`hot_path`).
#[napi(module_exports)]
pub fn register_hot_path(mut exports: Object) -> Result<()> {
    hot_path::register(&mut exports)
}

/// The canonical text of `args`: what `JSON.stringify` writes for it (`toJSON`
/// applied, boxed primitives unwrapped), with every object's keys sorted,
/// integer-like keys first, as V8 orders them. A string is its JSON literal.
/// For parsed JSON this is the reference's sort-then-stringify text; for other
/// values see docs/CANONICAL.md. No JSON form at the top (`undefined`, a
/// function, a symbol), a `BigInt` or a cycle: a `TypeError`.
#[napi(ts_args_type = "args: unknown")]
pub fn canonicalize(env: Env, args: String) -> Result<String> {
    // `lib/guard.js` hands the native function the JSON text of `args`.
    let mut out = String::new();
    Arguments::Json(&args)
        .write_canonical(&mut out)
        .map_err(|e| map_error(env, e.into()))?;
    Ok(out)
}
