//! The repeat-tool-guard core, free of napi so `cargo test` drives it directly.
//!
//! The modules, bottom up; each uses only modules listed before it.
//!
//! - The value vocabulary: `error` (what can go wrong), `number`
//!   (JavaScript's `Number::toString`), `value` (the [`Arguments`] of a
//!   call), `form` (the key form's tags, strings and lengths), `patterns`
//!   (tool-name patterns), `ignore` (`ignoreArguments`' key paths).
//! - `transport`: what the plugin's JavaScript writes, checked in full.
//!   `json`: JSON text written in the transport's encoding.
//! - `key_form` (a transport's key form, with every canonical rule: the one
//!   walk of a value; `lockstep` reads two transports side by side with its
//!   number rule; the golden vectors and the fuzz targets hold them equal).
//! - `read` (any [`Arguments`]' key form; the reused buffers), then
//!   `canonical` (the canonical text, read off the key form) and `key` (a
//!   call's key: a short form, or a digest).
//! - `lockstep` (two transports read side by side: certainly different, or
//!   the same, without a key), `memo`, `similar`, `cycles`, `chains`, `overrides`, `reminders`, `stats`,
//!   `config` (values and rules), `options` (every option declared once),
//!   `raw_config` (the config as the binding read it, validated option by option).
//! - `guard`: [`Guard`], which ties them together the way the plugin uses them.
//!   The opt-in features (cycles, overrides, `sameResultOnly`, `repeatEvery`,
//!   `ignoreArguments`, `similar`) stay off the reference's path unless configured.

// Everything here is safe Rust: the binding alone talks to Node-API.
#![forbid(unsafe_code)]

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
mod lockstep;
mod memo;
mod number;
mod options;
mod overrides;
mod patterns;
#[cfg(test)]
mod profile;
mod progress;
mod raw_config;
mod read;
mod reminders;
mod similar;
mod stats;
mod transport;
mod value;

// What the binding, the integration tests and the fuzz targets use.
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
pub use value::{Arguments, Pieces};
