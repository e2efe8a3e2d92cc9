//! The repeat-tool-guard core, free of napi so `cargo test` drives it directly.
//!
//! The modules, bottom up: each uses only modules listed before it (outside its tests), one a
//! line, as docs/ARCHITECTURE.md's table lists them; `__test__/modules.spec.mjs` checks both
//! against the files and their `crate::` imports.
//!
//! - `error`: what can go wrong (`ConfigError`, `CanonicalError`)
//! - `number`: JavaScript's `Number::toString`
//! - `arguments`: the [`Arguments`] of a call
//! - `scan`: the first byte of a kind, found eight bytes at a time
//! - `form`: the key form's tags, strings and lengths
//! - `patterns`: tool-name patterns (`include`, `exclude`, per-tool caches)
//! - `ignore`: `ignoreArguments`' key paths
//! - `transport`: what the plugin's JavaScript writes, checked in full
//! - `json`: JSON text written in the transport's encoding
//! - `key_form`: a transport's key form, with every canonical rule
//! - `scratch`: the reused buffers, and any [`Arguments`]' key form written in them
//! - `canonical`: the canonical text, read off the key form
//! - `key`: a call's key (a short key form, or its digest)
//! - `side_by_side`: two transports read side by side, without a key
//! - `last_call`: an agent's last call as it came, told apart from its next without a key
//! - `cycles`: opt-in `cycles`
//! - `similar`: opt-in `similar`
//! - `windows`: opt-in `noProgress` and `failures`, each a window of an agent's last calls
//! - `chains`: each agent's run, and what the opt-in detections keep
//! - `overrides`: opt-in per-tool thresholds
//! - `config`: the config's values and the rules that check them
//! - `reminders`: the reminder texts, and every tier with its facts declared once
//! - `stats`: the counters
//! - `options`: every option declared once
//! - `raw_config`: the config as the binding read it, validated option by option
//! - `guard`: [`Guard`], which ties them together the way the plugin uses them
//! - `profile`: the stages of a new call timed (an ignored test)

// Everything here is safe Rust: the binding alone talks to Node-API.
#![forbid(unsafe_code)]

mod arguments;
mod canonical;
mod chains;
mod config;
mod cycles;
mod error;
mod form;
mod guard;
mod ignore;
mod json;
mod key;
mod key_form;
mod last_call;
mod number;
mod options;
mod overrides;
mod patterns;
#[cfg(test)]
mod profile;
mod raw_config;
mod reminders;
mod scan;
mod scratch;
mod side_by_side;
mod similar;
mod stats;
mod transport;
mod windows;

// What the binding, the integration tests and the fuzz targets use.
pub use arguments::Arguments;
pub use canonical::{canonicalize_json, Sink};
pub use config::{GuardConfig, RawValue, SHOWN_ITEMS};
pub use error::{CanonicalError, ConfigError, Hint};
pub use form::{push_string, read_string, FormStr};
pub use guard::{Call, Guard};
pub use key::{call_key, CallKey};
pub use options::{OptionSpec, Shape, OPTIONS};
pub use raw_config::RawConfig;
pub use reminders::{Reminder, Tier, GENTLE_TEXT};
pub use stats::Stats;
pub use transport::{
    sized as transport_sized, tag as transport_tag, SIZE_BYTES as TRANSPORT_SIZE_BYTES,
};
