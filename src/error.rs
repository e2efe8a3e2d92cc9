//! What can go wrong in the binding's class and config reading, and
//! [`map_error`], the one place it becomes the JavaScript error the API
//! documents: wrong types are `TypeError`s, wrong values plain `Error`s.

use napi::bindgen_prelude::Env;
use repeat_tool_guard_core::{CanonicalError, ConfigError};

use crate::registry::RegistryError;

#[derive(Debug, thiserror::Error)]
pub enum Failure {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Canonical(#[from] CanonicalError),
    #[error(transparent)]
    Registry(#[from] RegistryError),
    #[error("repeat-tool-guard: {name} must be a string, got {kind}")]
    NotAString {
        name: &'static str,
        kind: &'static str,
    },
    /// `restore`'s `times` is no integer >= 1.
    #[error("repeat-tool-guard: times must be an integer >= 1, got {0}")]
    Times(f64),
    /// A Node-API call failed, or JavaScript code it ran threw (the
    /// exception is then pending, and is what the caller gets).
    #[error("{}", .0.reason)]
    Node(#[from] napi::Error),
}

impl Failure {
    fn is_type_error(&self) -> bool {
        match self {
            Failure::Config(error) => error.is_type_error(),
            Failure::NotAString { .. } => true,
            Failure::Canonical(_) | Failure::Registry(_) | Failure::Times(_) | Failure::Node(_) => {
                false
            }
        }
    }
}

/// Throws `failure` in `env` as its JavaScript error (a Node-API failure or
/// a pending exception is left to napi-rs, as it stands).
pub fn map_error(env: Env, failure: Failure) -> napi::Error {
    if let Failure::Node(error) = failure {
        return error;
    }
    let type_error = failure.is_type_error();
    throw(env, failure.to_string(), type_error)
}

/// Throws `message` as a JavaScript `Error` (`TypeError` with `type_error`) and
/// returns the error that tells napi-rs one is pending.
pub fn throw(env: Env, message: String, type_error: bool) -> napi::Error {
    let thrown = if type_error {
        env.throw_type_error(&message, None)
    } else {
        env.throw_error(&message, None)
    };
    match thrown {
        Ok(()) => napi::Error::new(napi::Status::PendingException, message),
        Err(_) => napi::Error::new(napi::Status::GenericFailure, message),
    }
}
